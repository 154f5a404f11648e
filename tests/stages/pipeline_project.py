"""Running ``kopa-replay pipeline run`` as a user does, and reading what it said (the stages' conftest runs it once
for the pipeline and the report tests)."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from pathlib import Path

STAGES = [
    "graph-build",
    "graph-prune",
    "synth",
    "filter",
    "bench-oracle",
    "bench-skip-lookup",
    "bench-first-page",
    "audit",
    "drift",
]


def pipeline(cwd: Path, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "NO_PROXY": "*"}
    env.pop("KOPA_STORE", None)
    return subprocess.run(
        [sys.executable, "-m", "kopa_replay", "pipeline", "run", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )


def said(result: subprocess.CompletedProcess) -> dict[str, str]:
    """What the command said about each stage on stderr: running / done / skipped."""
    events: dict[str, str] = {}
    for line in result.stderr.splitlines():
        name, _, event = line.partition(": ")
        if name in STAGES:
            events[name] = "skipped" if event.startswith("unchanged") else event.split()[0]
    return events


def shipped_digest() -> str:
    from kopa_replay.record.store import shipped_store_path

    return hashlib.sha256(shipped_store_path().read_bytes()).hexdigest()
