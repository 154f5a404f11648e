"""A stage's run directory, written atomically, with a manifest that says what made it.

A stage writes into a fresh sibling directory (``.NAME.partial-PID``) holding a copy of the files it keeps from
the previous run (an earlier stage's output in the same directory, recorded model answers); only when the stage
has finished is the old directory moved aside and the new one renamed into place, so a reader — or a stage
resumed after a crash — never sees half a run. ``manifest-STAGE.json`` records the stage, its config, the
digests of its inputs and of every file it wrote, the snapshot, the catalog and the seed; ``key`` is the digest
of (stage, config, inputs): the pipeline skips a stage whose key and outputs are unchanged. Nothing in it depends
on the wall clock or on where the directory lies.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from kopa_replay.errors import UsageError
from kopa_replay.util import write_atomic

__all__ = [
    "digest_of",
    "file_digest",
    "tree_digests",
    "stage_key",
    "manifest_path",
    "read_manifest",
    "atomic_run_dir",
    "write_manifest",
    "is_current",
]

#: caches beside the outputs (recorded model answers): kept across runs, never part of a digest
_NOT_OUTPUTS = (".sqlite", ".sqlite-wal", ".sqlite-shm", ".sqlite-journal")


def file_digest(path: str | Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def tree_digests(root: str | Path, *, only: Sequence[str] | None = None) -> dict[str, str]:
    """The sha256 of every file under ``root`` (or of the named ones), by relative path, manifests and caches
    aside."""
    root = Path(root)
    names = only if only is not None else sorted(p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file())
    return {
        name: file_digest(root / name)
        for name in sorted(names)
        if not name.rsplit("/", 1)[-1].startswith("manifest-")
        and not name.endswith(_NOT_OUTPUTS)
        and (root / name).is_file()
    }


def digest_of(value: Any) -> str:
    """The sha256 of a plain-JSON value in its canonical form (sorted keys, no spaces)."""
    canonical = json.dumps(value, ensure_ascii=False, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(canonical.encode()).hexdigest()


def stage_key(stage: str, config: Mapping[str, Any], inputs: Mapping[str, Any]) -> str:
    """What a stage's result is a function of: its name, its config and its inputs' digests."""
    return digest_of({"stage": stage, "config": config, "inputs": inputs})


def manifest_path(run_dir: str | Path, stage: str) -> Path:
    return Path(run_dir) / f"manifest-{stage}.json"


def read_manifest(run_dir: str | Path, stage: str) -> dict[str, Any] | None:
    path = manifest_path(run_dir, stage)
    if not path.exists():
        return None
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None  # unreadable: the stage runs again and rewrites it


@contextmanager
def atomic_run_dir(path: str | Path, *, keep: Sequence[str] = ()) -> Iterator[Path]:
    """Yield a fresh working directory that replaces ``path`` when the block finishes without an exception.

    ``keep`` names files (or glob patterns) of the old directory copied into the new one first. A block that
    raises leaves ``path`` exactly as it was."""
    path = Path(path)
    if path.exists() and not path.is_dir():
        raise UsageError(f"{path} is a file, not a run directory")
    path.parent.mkdir(parents=True, exist_ok=True)
    work = path.parent / f".{path.name}.partial-{os.getpid()}"
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir()
    try:
        if path.is_dir():
            for pattern in keep:
                for kept in sorted(path.glob(pattern)):
                    if kept.is_file() and not kept.name.endswith(("-wal", "-shm")):
                        shutil.copy2(kept, work / kept.name)
        yield work
    except BaseException:
        shutil.rmtree(work, ignore_errors=True)
        raise
    old = path.parent / f".{path.name}.old-{os.getpid()}"
    if path.exists():
        os.replace(path, old)
    os.replace(work, path)
    shutil.rmtree(old, ignore_errors=True)


def write_manifest(
    run_dir: str | Path,
    stage: str,
    *,
    config: Mapping[str, Any],
    inputs: Mapping[str, Any],
    outputs: Sequence[str] | None = None,
    **facts: Any,
) -> dict[str, Any]:
    """Write ``manifest-STAGE.json`` into ``run_dir``: ``facts`` are what else identifies the run (snapshot,
    catalog, seed). Returns the manifest."""
    manifest = {
        "stage": stage,
        "key": stage_key(stage, config, inputs),
        "config": dict(config),
        "inputs": dict(inputs),
        **facts,
        "outputs": tree_digests(run_dir, only=outputs),
    }
    write_atomic(
        manifest_path(run_dir, stage),
        json.dumps(manifest, ensure_ascii=False, sort_keys=True, indent=2, default=str) + "\n",
    )
    return manifest


def is_current(run_dir: str | Path, stage: str, key: str) -> dict[str, Any] | None:
    """The stage's manifest when it was made with ``key`` and every output it lists is on disk unchanged."""
    manifest = read_manifest(run_dir, stage)
    if not manifest or manifest.get("key") != key:
        return None
    listed = manifest.get("outputs") or {}
    if tree_digests(run_dir, only=sorted(listed)) != listed:
        return None
    return manifest
