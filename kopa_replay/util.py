"""Small helpers shared across subpackages."""

from __future__ import annotations

import hashlib
import marshal
import os
import re
import stat
import sys
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
    "cache_dir",
    "CACHE_ENV",
]

#: A stage's progress hook: ``(what, done, total)``, ``total`` None when unknown. Stages call it as work gets done;
#: the command line draws it (a bar with an ETA on a terminal, nothing otherwise). Never part of a result.
Progress = Callable[[str, int, Optional[int]], None]


#: where parsed YAML documents are kept between processes; ``KOPA_CACHE_DIR`` names another folder, or ``off``
CACHE_ENV = "KOPA_CACHE_DIR"
#: texts shorter than this are parsed each time (a user's small catalog costs milliseconds; no file is left for it)
_CACHED_YAML_MIN_CHARS = 32_768


def cache_dir() -> Path | None:
    """The folder kopa-replay keeps derived files in (``$KOPA_CACHE_DIR``, else ``$XDG_CACHE_HOME/kopa-replay``,
    else ``~/.cache/kopa-replay``); None when ``KOPA_CACHE_DIR`` is ``off`` or empty."""
    chosen = os.environ.get(CACHE_ENV)
    if chosen is not None:
        return None if chosen.strip().lower() in ("", "off") else Path(chosen)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "kopa-replay"


def private_folder(folder: Path) -> bool:
    """Make ``folder`` (owner-only) if missing; True when it is a folder this user owns and nobody else may write
    to: a cache whose entries are trusted like Python's own bytecode must not be one another user can fill."""
    try:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        status = folder.stat()
    except OSError:
        return False
    owner = getattr(os, "getuid", lambda: status.st_uid)()
    return stat.S_ISDIR(status.st_mode) and status.st_uid == owner and not status.st_mode & 0o022


def load_yaml(text: str) -> Any:
    """YAML text as data, safely: libyaml's loader where PyYAML has it (the operation tables and catalogs run to
    tens of thousands of lines: 5-7x faster than the pure-Python one, with the same result), else the pure one.

    A long text's document is kept in the cache folder under the digest of the text and the loader (marshal,
    as Python keeps its bytecode: the built-in catalog, operation tables and specs (≈7 MB) take ≈4 s to parse and
    0.2 s to read back, in every process that starts). Content-addressed, so an edited file is parsed again; a
    cache that cannot be read or written is passed by, and so is a folder another user owns or may write to
    (its entries are trusted as bytecode is); a document marshal cannot hold (dates) is not kept."""
    import yaml

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    entry = (
        _yaml_cache_entry(text, f"{yaml.__version__}/{loader.__name__}")
        if len(text) >= _CACHED_YAML_MIN_CHARS
        else None
    )
    if entry is not None:
        try:
            kept = marshal.loads(entry.read_bytes())
            if isinstance(kept, dict | list):  # what a document is; anything else was not written here
                return kept
        except Exception:  # absent, damaged (bad data, a length that cannot be met): parse, and keep it again
            pass
    document = yaml.load(text, Loader=loader)
    if entry is not None:
        try:
            write_atomic(entry, marshal.dumps(document), mode=0o600)  # owner-only: a catalog may be private
        except (OSError, ValueError):
            pass  # not kept (dates marshal cannot hold, a full disk): parsed again next time
    return document


def _yaml_cache_entry(text: str, loader: str) -> Path | None:
    folder = cache_dir()
    if folder is None or not private_folder(folder / "yaml"):
        return None
    key = hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=20)
    key.update(f"\0{loader}\0{sys.version_info[:2]}\0{marshal.version}".encode())
    return folder / "yaml" / f"{key.hexdigest()}.marshal"


def tick(progress: Progress | None, what: str, done: int, total: int | None) -> None:
    """Report progress when someone listens."""
    if progress is not None:
        progress(what, done, total)


def write_atomic(path: str | Path, text: str | bytes, *, mode: int | None = None) -> None:
    """Write a file via a temporary file and rename, so a reader never sees half of it; ``mode`` sets its
    permissions, else those a plain open() would give."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    data = text.encode("utf-8") if isinstance(text, str) else text
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        if mode is None:  # mkstemp creates the file owner-only
            umask = os.umask(0)
            os.umask(umask)
            mode = 0o666 & ~umask
        os.chmod(tmp, mode)
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
