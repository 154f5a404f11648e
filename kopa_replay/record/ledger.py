"""Store files this machine has verified whole, so a fresh process need not hash each body again.

A replay checks every body it reads against its digest, once per process: a fresh process (a new GRPO worker, a
``bench run``) hashes every body it reads. After ``kopa-replay cassette verify``
(:func:`~kopa_replay.record.store.verify_store`) has checked every blob of a store file and found nothing wrong,
this ledger remembers that file by its *identity* — device, inode, size, and the modification and status-change
times in nanoseconds — the way git's index trusts a file whose stat data has not changed since it hashed it. A
read-only store opened later on a file with the same identity serves its bodies without hashing them again, each
body kept only if one ``fstat`` after its reads finds the file as it was opened.

Why that stands in for hashing each body: the ledger is written only by this user on this machine, in a folder
nobody else may write to (:func:`~kopa_replay.util.cache_dir`; when it is off, nothing is remembered), and a write
to the file through the file system moves its status-change time (``st_ctime``) to the current time, which no
unprivileged call can set back (``utime`` moves it too). A store from elsewhere brings no entry with it: its first
verify on this machine hashes every body. What the identity cannot see, it refuses:

* a file in WAL mode, or with a ``-wal`` or ``-journal`` file beside it or beside the file a link resolves to
  (SQLite would read pages from those, not from the file whose identity was taken);
* a file changed less than :data:`SETTLED_NS` before it is held: timestamps are kept at the kernel's tick, so a
  second write in the same tick could leave the identity as it was (git's "racy" files);
* a file that changed, or another file moved into its place, while it was verified;
* Windows, whose ``st_ctime`` is the creation time.

What it does not see, and the per-body hash would: bytes that change without a write through the file system —
bit rot on the disk or in memory, a second write through a shared writable ``mmap`` to a page already dirty (the
kernel moves the times on the first only) — and a file system that reports times of its own (FUSE, network file
systems, whose attribute cache can also answer ``fstat`` from memory for up to a minute). Those are the price of
skipping the hash; ``KOPA_CACHE_DIR=off``, or not verifying a store with ``cassette verify``, keeps the per-body
check. Refused or not, nothing is lost: a store without an entry is checked body by body, as always.

The same identity lets any read-only store skip SQLite's per-query locking (:func:`hold`, verified or not): the
replay lookups (:meth:`~kopa_replay.record.store.Store.answers`, ``answers_and_bodies``, a body read by digest)
go through an ``immutable`` connection — no lock taken, no journal looked for, half the cost of a lookup — and a
read is kept only if one ``fstat`` afterwards finds the file as it was held. A file that changed, moved or cannot
be opened again ends both for that store: it reads with locks (the file as it was opened) and checks each body
from then on.
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


class _NoIdentity(Exception):
    """Why a file cannot have an identity (its message)."""


def _identity(path: str | Path, fd: int, status: os.stat_result) -> str:
    """The identity of the file open as ``fd`` (found at ``path``); :class:`_NoIdentity` says why it has none."""
    if os.name == "nt":
        raise _NoIdentity("Windows keeps no status-change time (its st_ctime is the creation time)")
    if not status.st_ctime_ns:
        raise _NoIdentity("its file system keeps no status-change time")
    # SQLite names a journal after the file the path resolves to
    for base in dict.fromkeys((str(path), os.path.realpath(path))):
        for suffix in ("-wal", "-journal"):
            if os.path.lexists(f"{base}{suffix}"):
                raise _NoIdentity(f"a {suffix[1:]} file lies beside it (SQLite reads pages from it)")
    header = os.pread(fd, 20, 0)
    # bytes 18 and 19 are the file format's write and read versions: 1 is a rollback journal, 2 is WAL
    if len(header) < 20 or not header.startswith(_SQLITE_HEADER) or header[18:20] != b"\x01\x01":
        raise _NoIdentity("it is in WAL mode, as a store being recorded is (a finalized store is not)")
    if time.time_ns() - status.st_ctime_ns < SETTLED_NS:
        # a write in the same timestamp tick as the last one could leave the identity as it is (git's racy files)
        raise _NoIdentity(f"it changed less than {SETTLED_NS / 1e9:g} s ago")
    fields = (LEDGER_VERSION, status.st_dev, status.st_ino, status.st_size, status.st_mtime_ns, status.st_ctime_ns)
    return hashlib.sha256(":".join(map(str, fields)).encode()).hexdigest()


class HeldFile:
    """A store file in rollback-journal mode held open, with the identity it had when opened (at least
    :data:`SETTLED_NS` after its last change): :meth:`unchanged` says, for the cost of one ``fstat``, whether its
    bytes are still those (a read confirmed by it afterwards read them: a write before or during the read would have
    moved the status-change time). ``verified``: the ledger remembers those bytes as verified whole. The descriptor
    is closed when the last reference goes (a thread still checking never meets a closed or reused one)."""

    def __init__(self, fd: int, status: os.stat_result, identity: str, verified: bool) -> None:
        self.fd = fd
        self.identity = identity
        self.verified = verified
        self._stamp = _stamp(status)
        weakref.finalize(self, os.close, fd)

    def unchanged(self) -> bool:
        try:
            status = os.fstat(self.fd)
        except OSError:  # a descriptor the file system took back (NFS's ESTALE): not the file held
            return False
        # spelled out rather than through _stamp: this runs after every replay read
        stamp = (status.st_ctime_ns, status.st_mtime_ns, status.st_size, status.st_ino, status.st_dev)
        return stamp == self._stamp

    def is_at(self, path: str | Path) -> bool:
        """True when ``path`` names this very file (not another one moved into its place)."""
        try:
            status = os.stat(path)
        except OSError:
            return False
        return _stamp(status) == self._stamp


def _stamp(status: os.stat_result) -> tuple[int, ...]:
    return (status.st_ctime_ns, status.st_mtime_ns, status.st_size, status.st_ino, status.st_dev)


def hold(path: str | Path) -> HeldFile | str:
    """The file at ``path`` held open when it can have an identity (see the module), ``verified`` when it is, to
    the byte, one this user verified whole (:func:`remember`); else why it cannot."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError as exc:
        return f"it cannot be opened ({exc.strerror})"
    try:
        status = os.fstat(fd)
        identity = _identity(path, fd, status)
        entry = _entry(identity)
        held, fd = HeldFile(fd, status, identity, entry is not None and entry.is_file()), -1
        return held
    except _NoIdentity as why:
        return str(why)
    except OSError as exc:
        return f"it cannot be read ({exc.strerror})"
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


def remember(path: str | Path, held: HeldFile) -> str | None:
    """Remember the file at ``path`` as verified whole, ``held`` (:func:`hold`) before the verification began and
    the verification read through a connection opened after that. None when remembered, else why not (nothing is
    written): the file changed during the verification or another took its place, or the ledger is off."""
    if not (held.unchanged() and held.is_at(path)):
        return "it changed while it was verified"
    entry = _entry(held.identity, making=True)
    if entry is None:
        return "the cache folder is off (KOPA_CACHE_DIR) or others may write to it"
    try:
        write_atomic(entry, f"{Path(path).resolve()}\n", mode=0o600)
    except OSError as exc:
        return f"the ledger cannot be written ({exc.strerror})"
    _forget_oldest(entry.parent)
    return None


def _forget_oldest(folder: Path) -> None:
    """Keep the :data:`ENTRIES_KEPT` newest entries: files verified long ago, most of them gone or changed since,
    are checked body by body again if they are still there."""
    try:
        entries = sorted((e.stat().st_mtime_ns, e.name) for e in os.scandir(folder) if len(e.name) == 64)
        for _, name in entries[: max(0, len(entries) - ENTRIES_KEPT)]:
            os.unlink(folder / name)
    except OSError:
        pass  # another process tidied first
