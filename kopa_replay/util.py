"""Small helpers shared across subpackages."""

from __future__ import annotations

import os
import re
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any, Optional

from kopa_replay.errors import UsageError

__all__ = [
    "Progress",
    "tick",
    "write_atomic",
    "lazy_exports",
    "check_snapshot_name",
    "SNAPSHOT_NAME_MAX",
    "load_yaml",
]

#: A stage's progress hook: ``(what, done, total)``, ``total`` None when unknown. Stages call it as work gets done;
#: the command line draws it (a bar with an ETA on a terminal, nothing otherwise). Never part of a result.
Progress = Callable[[str, int, Optional[int]], None]


def load_yaml(text: str) -> Any:
    """YAML text as data, safely: libyaml's loader where PyYAML has it (the operation tables and catalogs run to
    tens of thousands of lines: 5-7x faster than the pure-Python one, with the same result), else the pure one."""
    import yaml

    return yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))


def tick(progress: Progress | None, what: str, done: int, total: int | None) -> None:
    """Report progress when someone listens."""
    if progress is not None:
        progress(what, done, total)


def write_atomic(path: str | Path, text: str | bytes) -> None:
    """Write a file via a temporary file and rename, so a reader never sees half of it."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    data = text.encode("utf-8") if isinstance(text, str) else text
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        # mkstemp creates the file owner-only; give it the permissions a plain open() would.
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def lazy_exports(package: str, exports: dict[str, tuple[str, ...]]):
    """``__getattr__`` and ``__dir__`` for a package that re-exports names of its modules without importing them
    up front (``from kopa_replay.graph import prune`` then loads only what it needs; the command line starts
    fast). ``exports`` maps a module to the names it gives.

    Where a re-exported name is also a submodule's (``bench.grade``, the function, in ``bench/grade.py``), the
    name stays the function: the import system sets a package's attribute to each submodule it loads, which would
    otherwise replace it — as it could not when the package imported its names eagerly."""
    import importlib
    import sys
    import types

    where = {name: module for module, names in exports.items() for name in names}

    def __getattr__(name: str):
        if name not in where:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(where[name]), name)
        setattr(sys.modules[package], name, value)  # once loaded, a plain attribute
        return value

    def __dir__() -> list[str]:
        return sorted(set(where) | set(vars(sys.modules[package])))

    class _Package(types.ModuleType):
        def __setattr__(self, name: str, value: object) -> None:
            if name in where and isinstance(value, types.ModuleType):
                return  # a submodule of the name of a re-export: the re-export wins (on first use)
            super().__setattr__(name, value)

    sys.modules[package].__class__ = _Package
    return __getattr__, __dir__


#: a snapshot name: one path segment (manifests are ``snapshots/NAME.json``) of safe characters
_SNAPSHOT_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")
SNAPSHOT_NAME_MAX = 100


def check_snapshot_name(name: object) -> str:
    """``name`` when it can name a snapshot — one path segment of letters, digits, ``.``, ``_`` and ``-``, not
    starting with ``.`` or ``-``, at most :data:`SNAPSHOT_NAME_MAX` characters — else a :class:`UsageError`: a name
    becomes a file name (its manifest), so ``../x``, ``/abs`` or ``a/b`` must never reach a path."""
    if not isinstance(name, str) or not name:
        raise UsageError(f"a snapshot needs a name, not {name!r}")
    shown = name if len(name) <= 40 else name[:40] + "…"
    if len(name) > SNAPSHOT_NAME_MAX:
        raise UsageError(
            f"snapshot name {shown!r} is {len(name)} characters long; at most {SNAPSHOT_NAME_MAX} are allowed"
        )
    if not _SNAPSHOT_NAME.fullmatch(name):
        raise UsageError(
            f"snapshot name {shown!r} is not allowed: use letters, digits, '.', '_' and '-' (one path segment, "
            "not starting with '.' or '-'), e.g. 2026-09-01"
        )
    return name
