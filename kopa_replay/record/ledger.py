"""Store files this machine has verified whole, so a fresh process need not hash each body again.

A replay checks every body it reads against its digest, once per process: a fresh process (a new GRPO worker, a
``bench run``) hashes every body it reads. After ``kopa-replay cassette verify`` has checked every blob of a store
file and found nothing wrong, this ledger remembers that file by its *identity* — device, inode, size, and the
modification and status-change times in nanoseconds — the way git's index trusts a file whose stat data has not
changed since it hashed it. A read-only store opened later whose file has the same identity serves its bodies
without hashing them again.

Why that is as strong as hashing each body: the ledger is written only by this user on this machine, in a folder
nobody else may write to (:func:`~kopa_replay.util.cache_dir`; when it is off, nothing is remembered), and any
change to the file's bytes moves its status-change time (``st_ctime``), which the kernel sets to the current time
on every write and no unprivileged call can set back (``utime`` moves it too). A store from elsewhere brings no
entry with it: its first verify on this machine hashes every body. What the identity cannot see, it refuses:

* a file in WAL mode, or with a ``-wal`` or ``-journal`` file beside it (SQLite would read pages from those, not
  from the file whose identity was taken);
* a file changed less than :data:`SETTLED_NS` before it was verified: timestamps are kept at the kernel's tick,
  so a second write in the same tick could leave the identity as it was (git's "racy" files);
* a file whose identity changed while it was being verified;
* Windows, whose ``st_ctime`` is the creation time.

Refused or not, nothing is lost: a store without an entry is checked body by body, as always.

The same identity lets a read-only store skip SQLite's per-query locking (:func:`hold`, verified or not): replay
reads a held file through an ``immutable`` connection — no lock taken, no journal looked for, half the cost of a
lookup — and keeps a read only if one ``fstat`` afterwards finds the file as it was held. A file that changed, or
another file moved into its place, ends both for that store: it reads with locks and checks each body from then on.
"""

from __future__ import annotations

import hashlib
import os
import time
import weakref
from pathlib import Path

from kopa_replay.util import cache_dir, private_folder, write_atomic

#: part of every entry's name: a rule that checks more makes entries of the old rule count for nothing
LEDGER_VERSION = 1
#: how long before its verification a file must have last changed to be remembered (git's racy-file guard)
SETTLED_NS = 2_000_000_000
#: how many verified files the ledger remembers (an entry is a few dozen bytes)
ENTRIES_KEPT = 1_000
_FOLDER = "verified-stores"
_SQLITE_HEADER = b"SQLite format 3\x00"


def file_identity(path: str | Path) -> str | None:
    """The identity a ledger entry is bound to, or None for a file that cannot have one (see the module)."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return None
    try:
        return _identity(path, fd, os.fstat(fd))
    except OSError:
        return None
    finally:
        os.close(fd)


def _identity(path: str | Path, fd: int, status: os.stat_result) -> str | None:
    """The identity of the file open as ``fd`` (found at ``path``, whose journal files are looked for)."""
    if os.name == "nt" or not status.st_ctime_ns:  # creation time, or no status-change time kept at all
        return None
    for suffix in ("-wal", "-journal"):
        if os.path.lexists(f"{path}{suffix}"):
            return None
    header = os.pread(fd, 20, 0)
    # bytes 18 and 19 are the file format's write and read versions: 1 is a rollback journal, 2 is WAL
    if len(header) < 20 or not header.startswith(_SQLITE_HEADER) or header[18:20] != b"\x01\x01":
        return None
    fields = (LEDGER_VERSION, status.st_dev, status.st_ino, status.st_size, status.st_mtime_ns, status.st_ctime_ns)
    return hashlib.sha256(":".join(map(str, fields)).encode()).hexdigest()


class HeldFile:
    """A store file in rollback-journal mode held open, with the identity it had when opened: :meth:`unchanged`
    says, for the cost of one ``fstat``, whether its bytes are still those (a read confirmed by it afterwards read
    them: a write before or during the read would have moved the status-change time). ``verified``: the ledger
    remembers those bytes as verified whole."""

    def __init__(self, fd: int, status: os.stat_result, verified: bool) -> None:
        self.fd = fd
        self.verified = verified
        self.device, self.inode = status.st_dev, status.st_ino
        self._stamp = (status.st_size, status.st_mtime_ns, status.st_ctime_ns)
        self._closer = weakref.finalize(self, os.close, fd)

    def unchanged(self) -> bool:
        status = os.fstat(self.fd)
        return (status.st_size, status.st_mtime_ns, status.st_ctime_ns) == self._stamp

    def is_at(self, path: str | Path) -> bool:
        """True when ``path`` names this very file (not another one moved into its place)."""
        try:
            status = os.stat(path)
        except OSError:
            return False
        return (status.st_dev, status.st_ino) == (self.device, self.inode)

    def close(self) -> None:
        self._closer()


def hold(path: str | Path) -> HeldFile | None:
    """The file at ``path`` held open when it can have an identity (see the module; None otherwise), ``verified``
    when it is, to the byte, one this user verified whole (:func:`remember`)."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return None
    try:
        status = os.fstat(fd)
        identity = _identity(path, fd, status)
        if identity is None:
            return None
        entry = _entry(identity)
        held, fd = HeldFile(fd, status, entry is not None and entry.is_file()), -1
        return held
    except OSError:
        return None
    finally:
        if fd >= 0:
            os.close(fd)


def _entry(identity: str, *, making: bool = False) -> Path | None:
    """The ledger's file for ``identity``, or None when the ledger is off or its folder may be written by others.
    Only ``making`` an entry creates the folder: a replay that merely looks leaves the cache as it is."""
    folder = cache_dir()
    if folder is None:
        return None
    folder = folder / _FOLDER
    if not (making or folder.is_dir()) or not private_folder(folder):
        return None
    return folder / identity


def settled_identity(path: str | Path) -> str | None:
    """:func:`file_identity`, taken before a verification begins, when the file last changed at least
    :data:`SETTLED_NS` ago (else None): any write after this moment gets a later status-change time, so an
    identity that is the same after the verification proves nothing was written during it."""
    identity = file_identity(path)
    try:
        changed = Path(path).stat().st_ctime_ns
    except OSError:
        return None
    return identity if time.time_ns() - changed >= SETTLED_NS else None


def remember(path: str | Path, identity_before: str | None) -> bool:
    """Remember the file at ``path`` as verified whole; ``identity_before`` is its :func:`settled_identity` taken
    before the verification began. True when remembered; False (nothing written) when the file cannot have an
    entry, changed during the verification or too shortly before it, or the ledger's folder is off or not private.
    """
    if identity_before is None or file_identity(path) != identity_before:
        return False
    entry = _entry(identity_before, making=True)
    if entry is None:
        return False
    try:
        write_atomic(entry, f"{Path(path).resolve()}\n", mode=0o600)
    except OSError:
        return False
    _forget_oldest(entry.parent)
    return True


def _forget_oldest(folder: Path) -> None:
    """Keep the :data:`ENTRIES_KEPT` newest entries: files verified long ago, most of them gone or changed since,
    are checked body by body again if they are still there."""
    try:
        entries = sorted((e.stat().st_mtime_ns, e.name) for e in os.scandir(folder) if len(e.name) == 64)
        for _, name in entries[: max(0, len(entries) - ENTRIES_KEPT)]:
            os.unlink(folder / name)
    except OSError:
        pass  # another process tidied first
