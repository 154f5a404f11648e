"""The wheel carries the shipped snapshot: installed outside the checkout, it replays the showcase and the benchmark."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _run(*args: str, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=600)


def test_a_wheel_installed_outside_the_checkout_replays_the_shipped_snapshot(tmp_path):
    env = {k: v for k, v in os.environ.items() if k not in ("KOPA_STORE", "PYTHONPATH")}
    built = _run(
        "-m",
        "pip",
        "wheel",
        "--no-deps",
        "--no-build-isolation",
        "-q",
        "-w",
        str(tmp_path / "dist"),
        str(ROOT),
        cwd=tmp_path,
        env=env,
    )
    assert built.returncode == 0, built.stderr
    [wheel] = (tmp_path / "dist").glob("kopa_replay-*.whl")
    site = tmp_path / "site"
    installed = _run(
        "-m", "pip", "install", "--no-deps", "-q", "--target", str(site), str(wheel), cwd=tmp_path, env=env
    )
    assert installed.returncode == 0, installed.stderr
    # the wheel's package comes first on the path, ahead of this checkout's editable install
    env["PYTHONPATH"] = str(site)
    work = tmp_path / "project"
    work.mkdir()
    where = _run("-c", "import kopa_replay; print(kopa_replay.__file__)", cwd=work, env=env)
    assert Path(where.stdout.strip()).is_relative_to(site), where.stdout + where.stderr

    showcase = _run("-m", "kopa_replay", "showcase", "--snapshot", "2026-09-01", "--json", cwd=work, env=env)
    assert showcase.returncode == 0, showcase.stderr
    assert json.loads(showcase.stdout)["prior_close"] == 1680
    oracle = _run(
        "-m",
        "kopa_replay",
        "bench",
        "run",
        "--agent",
        "oracle",
        "--json",
        "--out",
        str(work / "run"),
        cwd=work,
        env=env,
    )
    assert oracle.returncode == 0, oracle.stderr
    assert json.loads(oracle.stdout)["pass_at_1"]["combined"] == 1.0
    assert not (site / "kopa_replay" / "data" / "cassettes" / "kopa.sqlite-wal").exists()  # replay wrote nothing
