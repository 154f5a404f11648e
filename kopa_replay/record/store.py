"""The cassette store: one SQLite file of interactions, grouped in snapshots.

Schema (version 4)::

    meta(key, value)                      schema_version, application id
    blobs(digest, codec, size, data)      response bodies, content-addressed (sha256 of the
                                          scrubbed bytes), zstd-compressed, stored once
    dictionaries(id, scope, data)         zstd dictionaries trained from the store's own
                                          bodies, one per platform (codec "zstd:ID")
    snapshots(name, as_of, source, seed, catalog_digest, sealed, digest, seal)
                                          seal: the sealed manifest's fields (JSON), hashed
                                          into the digest (kopa_replay.record.snapshots)
    interactions(id, snapshot, request_key, seq, tool, method, url, request_headers,
                 status, response_headers, body)   UNIQUE(snapshot, request_key, seq)

Repeated identical requests get seq 1, 2, 3 … in the order they were
recorded; replay serves them in that order and then repeats the last. Each
interaction is written in its own ``BEGIN IMMEDIATE`` transaction (blob,
sequence number and row together), so a killed recorder leaves only whole
interactions and several processes can record into one store (WAL, a busy
timeout); a recorder numbers a request's occurrences itself and writes the
n-th answer only where the snapshot has none (:meth:`Store.put`), so
recorders sharing a snapshot write every answer once. Triggers make a sealed snapshot immutable to any SQL: no insert,
update or delete of its interactions, no unsealing or deleting it, and no
blob rewritten (blobs are content-addressed) or removed while a sealed
snapshot uses it (version 2; a version 1 store gains them when first opened
writable, its digests and manifests unchanged), and — version 4 — no
``INSERT OR REPLACE`` / ``REPLACE INTO`` can put a new row in place of a sealed
snapshot, a sealed interaction, a blob or a dictionary (SQLite runs no delete
trigger for the rows a REPLACE removes). An ``UPDATE OR REPLACE`` that moves an
unsealed row onto a sealed one is refused through the store's own connections
(``recursive_triggers``: the row it removes runs the delete triggers), not
through a plain ``sqlite3`` connection, which the digest catches as below. What no trigger can see (``ALTER``,
``DROP TRIGGER``, a trigger or table of someone else's) changes the schema, and
every open compares the file's schema with the one its version has: any
difference is refused. An edit made with the triggers dropped and put back is
caught by the snapshot digest (``snapshot verify``, pinned replay). Every body is checked
against its digest the first time a process reads it, so a flipped bit is an
error naming the body, never a wrong answer. A file that is not ours, or from
a newer schema, is refused with a clear error rather than altered.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import re
import sqlite3
import threading
from collections import OrderedDict
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import zstandard

from kopa_replay.errors import SnapshotError, StoreError
from kopa_replay.record import ledger
from kopa_replay.util import check_snapshot_name

__all__ = [
    "SCHEMA_VERSION",
    "Interaction",
    "RecordedRow",
    "Snapshot",
    "Store",
    "StoredBody",
    "blob_digest",
    "check_snapshot_name",
    "default_store_path",
    "replay_store_path",
    "shipped_store_path",
]

SCHEMA_VERSION = 4
APPLICATION = "kopa-replay cassette store"
_BUSY_TIMEOUT_MS = 30_000
#: meta keys ``recording:NAME:PID``: a recording workflow of process PID on snapshot NAME has not finished
_RECORDING = "recording:"
_COMPRESS_MIN = 64  # bodies shorter than this are stored raw: compression would not pay
_CACHED_BODIES = 1024  # decompressed bodies kept for replay
_MAX_BODY = 1 << 30  # no recorded body is larger: a row that says so is corrupt
_CACHED_BODY_MAX = 1 << 20  # larger bodies (the corpCode ZIP) are not kept
_HEADERS_KEPT = 1024  # distinct response headers texts kept parsed
#: SQLite's page cache per connection (negative: KiB): the request-key index of a million interactions stays in
#: memory, so recording does not slow with the store's size
_CACHE_KIB = -131_072

_SCHEMA = (
    """CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)""",
    """CREATE TABLE IF NOT EXISTS blobs (
    digest TEXT PRIMARY KEY, codec TEXT NOT NULL, size INTEGER NOT NULL, data BLOB NOT NULL)""",
    """CREATE TABLE IF NOT EXISTS snapshots (
    name TEXT PRIMARY KEY, as_of TEXT, source TEXT, seed INTEGER, catalog_digest TEXT,
    sealed INTEGER NOT NULL DEFAULT 0, digest TEXT)""",
    """CREATE TABLE IF NOT EXISTS interactions (
    id INTEGER PRIMARY KEY,
    snapshot TEXT NOT NULL REFERENCES snapshots(name),
    request_key TEXT NOT NULL,
    seq INTEGER NOT NULL,
    tool TEXT,
    method TEXT NOT NULL,
    url TEXT NOT NULL,
    request_headers TEXT NOT NULL,
    status INTEGER NOT NULL,
    response_headers TEXT NOT NULL,
    body TEXT NOT NULL REFERENCES blobs(digest),
    UNIQUE (snapshot, request_key, seq))""",
    """CREATE INDEX IF NOT EXISTS interactions_tool ON interactions (snapshot, tool)""",
    """CREATE TRIGGER IF NOT EXISTS sealed_snapshots_are_immutable_insert
    BEFORE INSERT ON interactions
    WHEN (SELECT sealed FROM snapshots WHERE name = NEW.snapshot) = 1
    BEGIN SELECT RAISE(ABORT, 'snapshot is sealed'); END""",
    """CREATE TRIGGER IF NOT EXISTS sealed_snapshots_are_immutable_delete
    BEFORE DELETE ON interactions
    WHEN (SELECT sealed FROM snapshots WHERE name = OLD.snapshot) = 1
    BEGIN SELECT RAISE(ABORT, 'snapshot is sealed'); END""",
)

#: Version 2: sealed means immutable to UPDATE too, and blobs cannot be rewritten.
_SEALED_V2 = (
    """CREATE TRIGGER IF NOT EXISTS sealed_snapshots_are_immutable_update
    BEFORE UPDATE ON interactions
    WHEN (SELECT sealed FROM snapshots WHERE name = OLD.snapshot) = 1
      OR (SELECT sealed FROM snapshots WHERE name = NEW.snapshot) = 1
    BEGIN SELECT RAISE(ABORT, 'snapshot is sealed'); END""",
    """CREATE TRIGGER IF NOT EXISTS sealed_snapshots_stay_sealed
    BEFORE UPDATE ON snapshots WHEN OLD.sealed = 1
    BEGIN SELECT RAISE(ABORT, 'snapshot is sealed'); END""",
    """CREATE TRIGGER IF NOT EXISTS sealed_snapshots_are_not_deleted
    BEFORE DELETE ON snapshots WHEN OLD.sealed = 1
    BEGIN SELECT RAISE(ABORT, 'snapshot is sealed'); END""",
    """CREATE TRIGGER IF NOT EXISTS blobs_are_immutable
    BEFORE UPDATE ON blobs
    BEGIN SELECT RAISE(ABORT, 'blobs are content-addressed and immutable'); END""",
    """CREATE TRIGGER IF NOT EXISTS sealed_blobs_are_kept
    BEFORE DELETE ON blobs
    WHEN EXISTS (SELECT 1 FROM interactions i JOIN snapshots s ON s.name = i.snapshot
                 WHERE i.body = OLD.digest AND s.sealed = 1)
    BEGIN SELECT RAISE(ABORT, 'snapshot is sealed'); END""",
)


#: Version 3: bodies compressed with zstd dictionaries trained per platform from the store's own bodies.
_DICTIONARIES_V3 = (
    """CREATE TABLE IF NOT EXISTS dictionaries (
    id INTEGER PRIMARY KEY, scope TEXT NOT NULL, data BLOB NOT NULL)""",
    """CREATE TRIGGER IF NOT EXISTS dictionaries_are_immutable
    BEFORE UPDATE ON dictionaries
    BEGIN SELECT RAISE(ABORT, 'dictionaries are immutable'); END""",
    """CREATE TRIGGER IF NOT EXISTS used_dictionaries_are_kept
    BEFORE DELETE ON dictionaries
    WHEN EXISTS (SELECT 1 FROM blobs WHERE codec = 'zstd:' || OLD.id)
    BEGIN SELECT RAISE(ABORT, 'dictionaries are immutable'); END""",
)
#: Version 4: a REPLACE cannot swap a sealed row for a new one (the rows a REPLACE removes fire no delete
#: trigger) — matched by its key or by the rowid it was given (NEW.rowid is -1 when none is) —, and the snapshot row
#: keeps what its seal hashed. Our own writes insert only what is absent, so these triggers never fire for them.
_REPLACE_PROOF_V4 = (
    """ALTER TABLE snapshots ADD COLUMN seal TEXT""",
    """CREATE TRIGGER IF NOT EXISTS sealed_snapshots_are_not_replaced
    BEFORE INSERT ON snapshots
    WHEN EXISTS (SELECT 1 FROM snapshots WHERE (name = NEW.name OR rowid = NEW.rowid) AND sealed = 1)
    BEGIN SELECT RAISE(ABORT, 'snapshot is sealed'); END""",
    """CREATE TRIGGER IF NOT EXISTS sealed_interactions_are_not_replaced
    BEFORE INSERT ON interactions
    WHEN EXISTS (SELECT 1 FROM interactions i JOIN snapshots s ON s.name = i.snapshot
                 WHERE s.sealed = 1 AND i.id = NEW.id)
    BEGIN SELECT RAISE(ABORT, 'snapshot is sealed'); END""",
    """CREATE TRIGGER IF NOT EXISTS blobs_are_not_replaced
    BEFORE INSERT ON blobs
    WHEN EXISTS (SELECT 1 FROM blobs WHERE digest = NEW.digest OR rowid = NEW.rowid)
    BEGIN SELECT RAISE(ABORT, 'blobs are content-addressed and immutable'); END""",
    """CREATE TRIGGER IF NOT EXISTS dictionaries_are_not_replaced
    BEFORE INSERT ON dictionaries
    WHEN EXISTS (SELECT 1 FROM dictionaries WHERE id = NEW.id)
    BEGIN SELECT RAISE(ABORT, 'dictionaries are immutable'); END""",
)

#: what each schema version adds, in order: a new store runs them all, an older one the rest
_VERSIONS = {1: _SCHEMA, 2: _SEALED_V2, 3: _DICTIONARIES_V3, 4: _REPLACE_PROOF_V4}


@functools.lru_cache(maxsize=None)
def _schema_of(version: int) -> frozenset[tuple[str, str, str | None]]:
    """(type, name, SQL) of every table, index and trigger a store of ``version`` has, as SQLite keeps them: the
    steps run on an empty database (the text SQLite stores for a table altered by ADD COLUMN included)."""
    conn = sqlite3.connect(":memory:")
    try:
        for step in range(1, version + 1):
            for statement in _VERSIONS[step]:
                conn.execute(statement)
        return _schema_rows(conn)
    finally:
        conn.close()


def _schema_rows(conn: sqlite3.Connection) -> frozenset[tuple[str, str, str | None]]:
    # SQLite's own objects are left out: the indexes behind PRIMARY KEY and UNIQUE (no SQL) and ANALYZE's tables.
    # Anything else counts, whatever its name (a trigger called sqlite_x, made with writable_schema, is not SQLite's).
    return frozenset(
        (kind, name, sql)
        for kind, name, sql in conn.execute("SELECT type, name, sql FROM sqlite_master")
        if not (kind == "index" and sql is None and name.startswith("sqlite_autoindex_"))
        and not (kind == "table" and name in _SQLITE_TABLES)
    )


#: tables SQLite makes itself (ANALYZE's statistics)
_SQLITE_TABLES = frozenset({"sqlite_stat1", "sqlite_stat2", "sqlite_stat3", "sqlite_stat4"})


#: a platform's dictionary is trained once this many of its bodies (of at least _COMPRESS_MIN bytes) are seen
_TRAIN_AT = 48
_DICTIONARY_BYTES = 16_384
_LEVEL = 3


def shipped_store_path() -> Path:
    """The store the package ships (snapshot 2026-09-01, package data: in the wheel too): replayed by default,
    written only on purpose; its manifests are in ``snapshots/`` beside its ``cassettes/`` folder."""
    return Path(__file__).resolve().parents[1] / "data" / "cassettes" / "kopa.sqlite"


def replay_store_path(snapshot: str, store: str | Path | None = None, *, root: Path | None = None) -> Path:
    """The store a replay of ``snapshot`` reads: ``store`` when named; else the default one (of the project at
    ``root``, see :func:`default_store_path`) — or the shipped store when the default lacks ``snapshot`` and the
    shipped one holds it (a project's own store need not copy 2026-09-01 to replay it)."""
    if store:
        return Path(store)
    path, shipped = default_store_path(root), shipped_store_path()
    if path.resolve() == shipped or not shipped.exists():
        return path
    if path.exists():
        with Store(path, readonly=True, create=False) as own:
            if snapshot in own.snapshot_names():
                return path
    with Store(shipped, readonly=True, create=False) as packaged:
        return shipped if snapshot in packaged.snapshot_names() else path


def default_store_path(root: Path | None = None) -> Path:
    """$KOPA_STORE, else ./cassettes/kopa.sqlite of the project in the working directory (or in ``root``: the
    pytest plugin's rootdir) if present, else the package's shipped store."""
    if os.environ.get("KOPA_STORE"):
        return Path(os.environ["KOPA_STORE"])
    local = Path(root or "") / "cassettes" / "kopa.sqlite"
    if local.exists():
        return local
    return shipped_store_path()


@dataclass(frozen=True)
class Interaction:
    """One recorded request and its response (URL and headers already redacted)."""

    snapshot: str
    request_key: str
    seq: int
    tool: str | None
    method: str
    url: str
    request_headers: Mapping[str, str]
    status: int
    response_headers: Mapping[str, str]
    body_digest: str

    @property
    def content_type(self) -> str:
        return self.response_headers.get("content-type", "")


@dataclass(frozen=True)
class RecordedRow:
    """One interaction as the store writes it (already redacted and scrubbed), without its snapshot."""

    request_key: str
    tool: str | None
    method: str
    url: str
    request_headers: Mapping[str, str]
    status: int
    response_headers: Mapping[str, str]
    body: bytes
    #: where it goes among the request's answers; None appends after the last
    seq: int | None = None

    @property
    def answer(self) -> tuple[int, dict[str, str], str]:
        """What replay serves, as :meth:`Store.answers` gives it once stored: status, headers, body digest."""
        return self.status, dict(self.response_headers), blob_digest(self.body)


#: a body as the file stores it, (codec, size, data): a ``blobs`` row but its digest, untrusted until decoded and
#: checked (a plain tuple: replay makes one per request it meets)
StoredBody = tuple[str, int, bytes]


@dataclass(frozen=True)
class Snapshot:
    name: str
    as_of: str | None
    source: str | None
    seed: int | None
    catalog_digest: str | None
    sealed: bool
    digest: str | None
    interactions: int
    #: a recording workflow started on it and has not finished (stopped, killed, or still running)
    unfinished: bool = False
    #: what its seal hashed besides the interactions — the manifest's fields but its digest, as JSON (None: open,
    #: or sealed before digest version 3)
    seal: str | None = None


def _recording_prefix(name: str) -> str:
    return f"{_RECORDING}{name}:"


def _provenance_key(name: str) -> str:
    return f"provenance:{name}"


def _once_prefix(name: str) -> str:
    return f"once:{name}:"


def _alive(pid: int) -> bool:
    """Whether process ``pid`` runs on this machine (a store is shared by processes of one machine)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OSError):
        return True
    return True


def _scope(tool: str | None) -> str:
    """Which dictionary a body shares: its platform, the tool name's first part (``dart`` of ``dart_company``)."""
    return (tool or "").split("_", 1)[0]


def _rollback(conn: sqlite3.Connection) -> None:
    """Roll back the open transaction, if SQLite has not already: it ends one itself on some errors (a full disk),
    and a ROLLBACK then would replace the real cause with "cannot rollback - no transaction is active"."""
    if conn.in_transaction:
        conn.execute("ROLLBACK")


def _cause(exc: sqlite3.Error) -> str:
    """What SQLite said, with what it usually means where that is not obvious."""
    text = str(exc)
    if "readonly database" in text:
        return f"{text} (the file or its folder is read-only: record into a store you can write)"
    if "disk is full" in text or "database or disk is full" in text:
        return f"{text} (free some space, then run the same command again: it resumes)"
    return text


def blob_digest(body: bytes) -> str:
    """The content address of a body."""
    return hashlib.sha256(body).hexdigest()


class Store:
    """A cassette store file. ``readonly=True`` opens it without any write (for replay and CI)."""

    def __init__(self, path: str | Path, *, readonly: bool = False, create: bool = True) -> None:
        self.path = Path(path)
        self.readonly = readonly
        self.version = 0  # the file's schema version, read when it is opened
        self._local = threading.local()
        self._compressor = zstandard.ZstdCompressor(level=_LEVEL)
        # per platform: bodies seen before its dictionary is trained, then (codec, compressor) with it
        # (bytes only; typed as the list[ByteString] zstandard.train_dictionary takes: a list is invariant)
        self._samples: dict[str, list[bytes | bytearray | memoryview]] = {}
        self._dictionary_compressors: dict[str, tuple[str, zstandard.ZstdCompressor]] = {}
        self._trained_uncommitted: list[str] = []  # scopes whose dictionary this transaction inserted
        self._dictionaries: dict[str, bytes] = {}  # codec -> dictionary bytes, read from the file once
        self._bodies: OrderedDict[str, bytes] = OrderedDict()
        self._bodies_lock = threading.Lock()
        self._verified: set[str] = set()  # body digests this process has checked against their bytes
        self._held: ledger.HeldFile | None = None  # see below, once the file is known to be a store
        self._headers_parsed: dict[str, dict[str, str]] = {}  # response headers text -> parsed (_parsed_headers)
        if readonly or not create:
            if not self.path.exists():
                raise StoreError(f"store {self.path} does not exist")
        else:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            if not self.path.exists():
                self._create()
        if self.path.is_file() and self.path.stat().st_size == 0:
            # SQLite would take an empty file for a new database; a truncated store must not pass for one
            raise StoreError(f"{self.path} is an empty file, not a cassette store (remove it to start a new store)")
        try:
            self._prepare()
        except BaseException:
            self.close()  # a refused file is not left open (to hold locks, or a descriptor, until collected)
            raise
        # a read-only file in rollback-journal mode, held open with its identity (record.ledger): replay reads it
        # through an immutable connection (no locks, no journal looked for: half a lookup's cost), each read
        # confirmed afterwards by one fstat; when the ledger vouches for it (verified whole, unchanged since),
        # its bodies are served without hashing them again. A change to the file ends both for this Store.
        held = ledger.hold(self.path) if readonly else None
        self._held = held if isinstance(held, ledger.HeldFile) else None

    def _create(self) -> None:
        """Make a new store file whole before it appears at ``path``: recorders starting at once on a new
        store never see a half-made (empty) file, and exactly one of them creates it."""
        temporary = self.path.with_name(f".{self.path.name}.{os.getpid()}.{threading.get_ident()}.new")
        try:
            conn = sqlite3.connect(temporary, isolation_level=None)
            try:
                conn.execute("PRAGMA journal_mode = WAL")  # kept in the file's header
                for step in sorted(_VERSIONS):
                    for statement in _VERSIONS[step]:
                        conn.execute(statement)
                conn.execute(
                    "INSERT INTO meta VALUES ('application', ?), ('schema_version', ?)",
                    (APPLICATION, str(SCHEMA_VERSION)),
                )
            finally:
                conn.close()
            try:
                os.link(temporary, self.path)  # fails, leaving the other's, when another recorder was first
            except FileExistsError:
                pass
        except (OSError, sqlite3.Error) as exc:
            raise StoreError(f"cannot create store {self.path}: {exc}") from exc
        finally:
            temporary.unlink(missing_ok=True)

    # -- connections ------------------------------------------------------------
    def _connect(self, immutable: bool = False) -> sqlite3.Connection:
        try:
            if self.readonly:
                # as a URI, percent-encoded: a name with "%41", "?" or "#" is the file it names, not another
                conn = sqlite3.connect(
                    f"{Path(os.path.abspath(self.path)).as_uri()}?mode=ro{'&immutable=1' if immutable else ''}",
                    uri=True,
                    check_same_thread=False,
                    isolation_level=None,
                )
            else:
                conn = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
            conn.execute(f"PRAGMA busy_timeout = {_BUSY_TIMEOUT_MS}")
            # a row a REPLACE removes runs the delete triggers too (off by default), so UPDATE OR REPLACE cannot
            # push a sealed snapshot's row or interaction out from under the triggers that guard them
            conn.execute("PRAGMA recursive_triggers = ON")
            if not self.readonly:
                # WAL with synchronous=NORMAL: a commit is not fsynced, yet a killed process loses nothing
                # committed (only a power cut can drop the last commits, never corrupt the file); with FULL
                # every interaction paid an fsync.
                conn.execute("PRAGMA synchronous = NORMAL")
            conn.execute(f"PRAGMA cache_size = {_CACHE_KIB}")
        except sqlite3.OperationalError as exc:
            raise StoreError(f"cannot open store {self.path}: {exc}") from exc
        except sqlite3.DatabaseError as exc:  # "file is not a database"
            raise StoreError(f"{self.path} is not a SQLite cassette store: {exc}") from exc
        return conn

    @property
    def conn(self) -> sqlite3.Connection:
        """This thread's connection (sqlite3 connections are not shared across threads)."""
        conn = getattr(self._local, "conn", None)
        if conn is None:
            conn = self._local.conn = self._connect()
        return conn

    @property
    def trusted(self) -> bool:
        """True when the file is one this user verified whole and it has not changed since (see
        :mod:`~kopa_replay.record.ledger`): replay serves its bodies without hashing them again."""
        held = self._held
        return held is not None and held.verified

    def _replay_rows(self, sql: str, params: tuple[Any, ...]) -> list[Any]:
        """The rows of a replay read: for a held file, through this thread's immutable connection, kept only if
        the file is still the one held afterwards; else (or once it changed, moved or cannot be opened again)
        through :attr:`conn`, with its locks, which reads the file as it was opened."""
        held = self._held
        if held is not None:
            rows = None
            try:
                conn = getattr(self._local, "immutable", None)
                if conn is None:
                    conn = self._connect(immutable=True)
                    if not held.is_at(self.path):  # another file moved into its place since it was held
                        conn.close()
                        conn = None
                    self._local.immutable = conn
                if conn is not None:
                    rows = conn.execute(sql, params).fetchall()
            except (StoreError, sqlite3.Error):  # gone, or not readable as it was: the locked connection decides
                pass
            if rows is not None and held.unchanged():
                return rows
            self._let_go(held)
        return self.conn.execute(sql, params).fetchall()

    def _let_go(self, held: ledger.HeldFile) -> None:
        """The held file changed or was replaced: from now on this Store reads with locks and checks every body it
        has not checked itself (the bodies served before were read before the change). The descriptor goes with
        the last reference (another thread may be checking it now)."""
        if self._held is held:
            self._held = None
        conn = getattr(self._local, "immutable", None)
        if conn is not None:  # (another thread's is left to be collected with its thread)
            conn.close()
            self._local.immutable = None

    def close(self) -> None:
        for name in ("conn", "immutable"):
            conn = getattr(self._local, name, None)
            if conn is not None:
                conn.close()
                setattr(self._local, name, None)
        self._held = None

    def __enter__(self) -> "Store":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _prepare(self) -> None:
        """Check the file is ours and current; create or migrate the schema when writable."""
        try:
            tables = {name for (name,) in self.conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        except sqlite3.DatabaseError as exc:
            raise StoreError(f"{self.path} is not a SQLite cassette store: {exc}") from exc
        if tables and "meta" not in tables:
            raise StoreError(
                f"{self.path} is a SQLite file but not a kopa-replay store "
                f"(tables: {', '.join(sorted(tables))}); refusing to touch it"
            )
        version = 0
        if "meta" in tables:
            row = self.conn.execute("SELECT value FROM meta WHERE key='schema_version'").fetchone()
            app = self.conn.execute("SELECT value FROM meta WHERE key='application'").fetchone()
            if app is None or app[0] != APPLICATION:
                raise StoreError(f"{self.path} is not a kopa-replay store; refusing to touch it")
            if row is not None and not (isinstance(row[0], str) and re.fullmatch("[0-9]{1,6}", row[0])):
                raise StoreError(
                    f"store {self.path}: its schema_version {str(row[0])[:20]!r} is not a number: the file was "
                    "edited or is not a store kopa-replay made; refusing to touch it"
                )
            version = int(row[0]) if row else 0
        if version > SCHEMA_VERSION:
            raise StoreError(
                f"store {self.path} has schema version {version}, newer than this kopa-replay "
                f"understands ({SCHEMA_VERSION}); upgrade kopa-replay"
            )
        if version >= 1:
            self._check_schema(version)
        self.version = version
        if self.readonly:
            if version >= 1:  # an older store reads the same; it gains the newer triggers when opened writable
                return
            raise StoreError(f"store {self.path} is empty; record into it first")
        self._use_wal()
        if version < SCHEMA_VERSION:
            self._migrate(version)
            self.version = SCHEMA_VERSION
            self._check_schema(SCHEMA_VERSION)  # a file that had no version (or tables of its own) gets no pass

    def _check_schema(self, version: int) -> None:
        """The file's tables, indexes and triggers must be exactly those of its schema version: an ``ALTER``, a
        dropped trigger or one of someone else's changes what a write does, which no trigger of ours can see."""
        found = _schema_rows(self.conn)
        expected = _schema_of(version)
        if found == expected:
            return
        missing = sorted(expected - found, key=lambda row: (row[0], row[1]))
        extra = sorted(found - expected, key=lambda row: (row[0], row[1]))
        names = {row[1] for row in missing} & {row[1] for row in extra}
        what = [f"{kind} {name!r} altered" for kind, name, _ in missing if name in names]
        what += [f"{kind} {name!r} missing" for kind, name, _ in missing if name not in names]
        what += [f"{kind} {name!r} not one of kopa-replay's" for kind, name, _ in extra if name not in names]
        raise StoreError(
            f"store {self.path}: its schema is not the one of store version {version} ({'; '.join(what)}): the file "
            "was edited outside kopa-replay; refusing to use it"
        )

    def _use_wal(self) -> None:
        """Writers share the store in WAL mode (a finalized store left it to be shipped as one file)."""
        if str(self.conn.execute("PRAGMA journal_mode").fetchone()[0]).lower() != "wal":
            try:
                self.conn.execute("PRAGMA journal_mode = WAL")
            except sqlite3.OperationalError:  # another process holds it: it works as it is, just less shared
                pass

    def _migrate(self, version: int) -> None:
        # One step per schema version; version 0 is a new file. Rows, digests and manifests stay as they are.
        conn = self.conn
        try:
            conn.execute("BEGIN IMMEDIATE")
            try:
                for step in range(version + 1, SCHEMA_VERSION + 1):
                    for statement in _VERSIONS[step]:
                        conn.execute(statement)
                if version < 1:
                    conn.execute("INSERT OR REPLACE INTO meta VALUES ('application', ?)", (APPLICATION,))
                conn.execute("INSERT OR REPLACE INTO meta VALUES ('schema_version', ?)", (str(SCHEMA_VERSION),))
                conn.execute("COMMIT")
            except BaseException:
                _rollback(conn)
                raise
        except sqlite3.Error as exc:
            raise StoreError(f"cannot upgrade store {self.path} to schema version {SCHEMA_VERSION}: {exc}") from exc

    # -- snapshots --------------------------------------------------------------
    def ensure_snapshot(
        self,
        name: str,
        *,
        as_of: str | None = None,
        source: str | None = None,
        seed: int | None = None,
        catalog_digest: str | None = None,
    ) -> Snapshot:
        """The snapshot called ``name``, created (unsealed) if absent; the settings given fill an empty one's."""
        if self.readonly:
            return self.snapshot(name)
        check_snapshot_name(name)
        self._write(  # inserted only when absent: a sealed one's row is never touched (nor its triggers fired)
            "INSERT INTO snapshots (name, as_of, source, seed, catalog_digest) SELECT ?, ?, ?, ?, ? "
            "WHERE NOT EXISTS (SELECT 1 FROM snapshots WHERE name = ?)",
            (name, as_of, source, seed, catalog_digest, name),
        )
        self._write(
            "UPDATE snapshots SET as_of = COALESCE(?, as_of), source = COALESCE(?, source), "
            "seed = COALESCE(?, seed), catalog_digest = COALESCE(?, catalog_digest) "
            "WHERE name = ? AND sealed = 0 AND NOT EXISTS (SELECT 1 FROM interactions WHERE snapshot = ?)",
            (as_of, source, seed, catalog_digest, name, name),
        )
        return self.snapshot(name)

    def snapshot(self, name: str) -> Snapshot:
        seal = "seal" if self.version >= 4 else "NULL"  # an older store, opened read-only as it is, has none
        row = self.conn.execute(
            f"SELECT name, as_of, source, seed, catalog_digest, sealed, digest, "
            "(SELECT COUNT(*) FROM interactions WHERE snapshot = s.name), "
            f"EXISTS (SELECT 1 FROM meta WHERE substr(key, 1, ?) = ?), {seal} FROM snapshots s WHERE name = ?",
            (len(_recording_prefix(name)), _recording_prefix(name), name),
        ).fetchone()
        if row is None:
            known = ", ".join(self.snapshot_names()) or "none"
            raise SnapshotError(f"no snapshot {str(name)[:100]!r} in store {self.path} (snapshots: {known})")
        return Snapshot(row[0], row[1], row[2], row[3], row[4], row[5] == 1, row[6], row[7], bool(row[8]), row[9])

    def begin_recording(self, name: str) -> None:
        """Mark ``name`` as being recorded by this process until :meth:`end_recording` (a kill leaves the mark)."""
        self._write("INSERT OR REPLACE INTO meta VALUES (?, '1')", (f"{_recording_prefix(name)}{os.getpid()}",))

    def end_recording(self, name: str, everyone: bool = False) -> None:
        """This process's recording of ``name`` finished: its mark goes, and so do the marks of recorders that
        died (their workload was this one's, now done); another live recorder's stays. ``everyone``: all go."""
        prefix = _recording_prefix(name)
        marks = [
            key
            for (key,) in self.conn.execute("SELECT key FROM meta WHERE substr(key, 1, ?) = ?", (len(prefix), prefix))
        ]
        done = [
            key
            for key in marks
            if everyone or not _alive(int(key[len(prefix) :])) or int(key[len(prefix) :]) == os.getpid()
        ]
        for key in done:
            self._write("DELETE FROM meta WHERE key = ?", (key,))

    def _write(self, sql: str, params: tuple) -> None:
        """One write outside a transaction of ours; SQLite's refusal (a read-only file, a full disk) as a
        :class:`StoreError` naming the store."""
        if self.readonly:
            raise StoreError(f"store {self.path} is open read-only")
        try:
            self.conn.execute(sql, params)
        except sqlite3.IntegrityError as exc:
            if "sealed" in str(exc):
                raise SnapshotError(f"store {self.path}: {exc}") from None
            raise StoreError(f"cannot write store {self.path}: {exc}") from exc
        except sqlite3.Error as exc:
            raise StoreError(f"cannot write store {self.path}: {_cause(exc)}") from exc

    def snapshot_names(self) -> list[str]:
        return [row[0] for row in self.conn.execute("SELECT name FROM snapshots ORDER BY name")]

    def snapshots(self) -> list[Snapshot]:
        return [self.snapshot(name) for name in self.snapshot_names()]

    def seal(self, name: str, digest: str, record: str | None = None) -> None:
        """Mark ``name`` sealed with ``digest`` and what the digest hashed besides the interactions (``record``,
        see :mod:`kopa_replay.record.snapshots`); from now on no SQL of ours or anyone's changes it. (A store opened
        writable is at the current schema version: older ones are upgraded when opened.)"""
        self._write("UPDATE snapshots SET sealed = 1, digest = ?, seal = ? WHERE name = ?", (digest, record, name))

    def delete_snapshot(self, name: str) -> None:
        """Remove an unsealed snapshot and its interactions (blobs stay until vacuum)."""
        if self.snapshot(name).sealed:
            raise SnapshotError(f"snapshot {name!r} is sealed and cannot be deleted")
        with self.transaction(name, create=False) as conn:
            conn.execute("DELETE FROM interactions WHERE snapshot = ?", (name,))
            conn.execute("DELETE FROM snapshots WHERE name = ?", (name,))
            conn.execute(
                "DELETE FROM meta WHERE substr(key, 1, ?) = ?", (len(_recording_prefix(name)), _recording_prefix(name))
            )
            conn.execute("DELETE FROM meta WHERE key = ?", (_provenance_key(name),))
            conn.execute("DELETE FROM meta WHERE substr(key, 1, ?) = ?", (len(_once_prefix(name)), _once_prefix(name)))

    def set_provenance(self, name: str, provenance: Mapping[str, Any]) -> None:
        """Say how ``name`` was made beyond its settings (an incremental refresh: what it carried over); kept in
        the store so every seal writes it into the manifest. Refused once the snapshot is sealed."""
        with self.transaction(name, create=False) as conn:
            if self.snapshot(name).sealed:
                raise SnapshotError(f"snapshot {name!r} is sealed: its provenance is part of its manifest")
            conn.execute(
                "INSERT OR REPLACE INTO meta VALUES (?, ?)",
                (_provenance_key(name), json.dumps(dict(provenance), sort_keys=True, ensure_ascii=False)),
            )

    def provenance(self, name: str) -> dict[str, Any] | None:
        """What :meth:`set_provenance` said of ``name``, or None."""
        row = self.conn.execute("SELECT value FROM meta WHERE key = ?", (_provenance_key(name),)).fetchone()
        if row is None:
            return None
        try:
            provenance = json.loads(row[0])
        except (TypeError, ValueError):
            provenance = None
        if not isinstance(provenance, dict):  # written by this class as a JSON object: anything else is an edit
            raise SnapshotError(
                f"snapshot {name!r} in {self.path}: its provenance is not a JSON object (the store was edited)"
            )
        return provenance

    # -- writing ----------------------------------------------------------------
    def _encode(
        self, body: bytes, conn: sqlite3.Connection | None = None, tool: str | None = None
    ) -> tuple[str, bytes]:
        """(codec, data) for a body: raw when short or incompressible, else zstd — with the dictionary of the
        tool's platform once one is trained (inside the caller's transaction ``conn``)."""
        if len(body) < _COMPRESS_MIN:
            return "raw", body
        codec, compressor = "zstd", self._compressor
        if conn is not None:
            codec, compressor = self._dictionary_for(conn, _scope(tool), body) or (codec, compressor)
        packed = compressor.compress(body)
        return (codec, packed) if len(packed) < len(body) else ("raw", body)

    def _dictionary_for(
        self, conn: sqlite3.Connection, scope: str, body: bytes
    ) -> tuple[str, zstandard.ZstdCompressor] | None:
        """The platform's dictionary compressor: the newest in the file, else one trained here from the first
        bodies seen (deterministic for the same bodies in the same order), else None while it waits for them."""
        known = self._dictionary_compressors.get(scope)
        if known is not None:
            return known
        row = conn.execute(
            "SELECT id, data FROM dictionaries WHERE scope = ? ORDER BY id DESC LIMIT 1", (scope,)
        ).fetchone()
        if row is None:
            samples = self._samples.setdefault(scope, [])
            samples.append(body)
            if len(samples) < _TRAIN_AT:
                return None
            try:
                trained = zstandard.train_dictionary(_DICTIONARY_BYTES, samples, k=1024, d=8)
            except zstandard.ZstdError:
                # bodies zstd cannot learn from: plain zstd for this platform from now on (retrying on every
                # later body would put a training run on each write)
                del self._samples[scope]
                self._dictionary_compressors[scope] = ("zstd", self._compressor)
                return self._dictionary_compressors[scope]
            cursor = conn.execute("INSERT INTO dictionaries (scope, data) VALUES (?, ?)", (scope, trained.as_bytes()))
            row = (cursor.lastrowid, trained.as_bytes())
            del self._samples[scope]
            self._trained_uncommitted.append(scope)  # forgotten if the transaction rolls back
        codec = f"zstd:{row[0]}"
        known = (codec, zstandard.ZstdCompressor(level=_LEVEL, dict_data=zstandard.ZstdCompressionDict(row[1])))
        self._dictionary_compressors[scope] = known
        return known

    def _decoder(self, codec: str) -> zstandard.ZstdDecompressor:
        """This thread's decompressor for a zstd codec (zstandard's objects are not thread-safe), with the
        codec's dictionary, read from the file once."""
        decoders = getattr(self._local, "decoders", None)
        if decoders is None:
            decoders = self._local.decoders = {}
        decoder = decoders.get(codec)
        if decoder is None:
            if codec == "zstd":
                decoder = zstandard.ZstdDecompressor()
            else:
                data = self._dictionaries.get(codec)
                if data is None:
                    row = None
                    if codec.startswith("zstd:") and codec[5:].isdigit():
                        # read as replay reads, so a held file's dictionary is the one verified (or hashed after)
                        rows = self._replay_rows("SELECT data FROM dictionaries WHERE id = ?", (int(codec[5:]),))
                        row = rows[0] if rows else None
                    if row is None:
                        raise StoreError(f"codec {codec!r} names no dictionary in the file")
                    data = self._dictionaries[codec] = bytes(row[0])
                decoder = zstandard.ZstdDecompressor(dict_data=zstandard.ZstdCompressionDict(data))
            decoders[codec] = decoder
        return decoder

    def _forget_uncommitted_dictionaries(self) -> None:
        """A rolled-back transaction took its new dictionaries with it: nothing may be written with them."""
        for scope in self._trained_uncommitted:
            codec, _ = self._dictionary_compressors.pop(scope, ("", None))
            self._dictionaries.pop(codec, None)
            decoders = getattr(self._local, "decoders", None)
            if decoders is not None:
                decoders.pop(codec, None)

    def _decode(self, codec: str, data: bytes, size: int | None = None) -> bytes:
        """A blob's bytes as recorded (not yet checked against its digest). With ``size`` (the row's), a compressed
        frame must declare that many bytes, at most :data:`_MAX_BODY`: a flipped bit in a frame header would
        otherwise have the decompressor allocate whatever it claims before the digest check could refuse it."""
        if not isinstance(data, bytes):  # a TEXT or number put in a BLOB column past our writes
            raise StoreError(f"its stored data is {type(data).__name__}, not bytes")
        if codec == "raw":
            return data
        if codec == "zstd" or codec.startswith("zstd:"):
            decoder = self._decoder(codec)
            if size is not None:
                declared = zstandard.frame_content_size(data)
                if declared != size or not 0 <= size <= _MAX_BODY:
                    raise StoreError(
                        f"cannot be decompressed: its compressed frame declares {declared} bytes, the store {size}"
                    )
            try:
                return decoder.decompress(data)
            except MemoryError:
                raise StoreError("it does not decompress within memory") from None
        raise StoreError(f"unknown codec {codec!r}")

    def append(
        self,
        *,
        snapshot: str,
        request_key: str,
        tool: str | None,
        method: str,
        url: str,
        request_headers: Mapping[str, str],
        status: int,
        response_headers: Mapping[str, str],
        body: bytes,
    ) -> int:
        """Record one interaction atomically; returns its sequence number for this request."""
        row = RecordedRow(request_key, tool, method, url, request_headers, status, response_headers, body)
        with self.transaction(snapshot) as conn:
            return self.insert_rows(conn, snapshot, [row])[-1]

    def append_many(self, snapshot: str, rows: Iterable[RecordedRow]) -> int:
        """Append ``rows`` to ``snapshot`` (created if absent) in one transaction; returns how many.

        ``rows`` may be a generator, so a million rows take flat memory; a body
        repeated in the batch is compressed once.
        """
        with self.transaction(snapshot) as conn:
            return len(self.insert_rows(conn, snapshot, rows))

    def append_once(self, snapshot: str, token: str, rows: Iterable[RecordedRow]) -> int:
        """:meth:`append_many` unless ``token`` (what the rows came from: a file's digest) was appended to
        ``snapshot`` before — then nothing, and 0. Checked and marked in the same transaction."""
        mark = f"{_once_prefix(snapshot)}{token}"
        with self.transaction(snapshot) as conn:
            if conn.execute("SELECT 1 FROM meta WHERE key = ?", (mark,)).fetchone():
                return 0
            count = len(self.insert_rows(conn, snapshot, rows))
            conn.execute("INSERT INTO meta VALUES (?, '1')", (mark,))
            return count

    @contextmanager
    def transaction(self, snapshot: str, create: bool = True) -> Iterator[sqlite3.Connection]:
        """One ``BEGIN IMMEDIATE`` transaction writing ``snapshot``; sqlite errors become store errors."""
        if self.readonly:
            raise StoreError(f"store {self.path} is open read-only")
        conn = self.conn
        try:
            conn.execute("BEGIN IMMEDIATE")
            try:
                if create:  # not ensure_snapshot: its interaction count would make every write O(snapshot)
                    check_snapshot_name(snapshot)
                    conn.execute(
                        "INSERT INTO snapshots (name) SELECT ? WHERE NOT EXISTS (SELECT 1 FROM snapshots WHERE name = ?)",
                        (snapshot, snapshot),
                    )
                yield conn
                conn.execute("COMMIT")
            except BaseException:
                _rollback(conn)
                self._forget_uncommitted_dictionaries()
                raise
            finally:
                self._trained_uncommitted.clear()
        except sqlite3.IntegrityError as exc:
            if "sealed" in str(exc):
                raise SnapshotError(
                    f"snapshot {snapshot!r} in store {self.path} is sealed: record into a new snapshot"
                ) from None
            raise StoreError(f"cannot write snapshot {snapshot!r} of {self.path}: {exc}") from exc
        except sqlite3.Error as exc:
            raise StoreError(f"cannot write snapshot {snapshot!r} of {self.path}: {_cause(exc)}") from exc

    def insert_rows(self, conn: sqlite3.Connection, snapshot: str, rows: Iterable[RecordedRow]) -> list[int]:
        """Write rows inside the caller's transaction; returns their sequence numbers.

        A row with a ``seq`` goes there unless that place is taken (then it is not written: another
        recorder got there first, and its answer stands); a row without one goes after the last.
        """
        written: set[str] = set()
        seqs: list[int] = []
        for row in rows:
            if row.seq is None:
                seq = conn.execute(
                    "SELECT COALESCE(MAX(seq), 0) + 1 FROM interactions WHERE snapshot = ? AND request_key = ?",
                    (snapshot, row.request_key),
                ).fetchone()[0]
            else:
                seq = row.seq
                if conn.execute(
                    "SELECT 1 FROM interactions WHERE snapshot = ? AND request_key = ? AND seq = ?",
                    (snapshot, row.request_key, seq),
                ).fetchone():
                    continue
            digest = blob_digest(row.body)
            if digest not in written:
                codec, data = self._encode(row.body, conn, row.tool)
                conn.execute(
                    "INSERT INTO blobs (digest, codec, size, data) SELECT ?, ?, ?, ? "
                    "WHERE NOT EXISTS (SELECT 1 FROM blobs WHERE digest = ?)",
                    (digest, codec, len(row.body), data, digest),
                )
                written.add(digest)
            conn.execute(
                "INSERT INTO interactions (snapshot, request_key, seq, tool, method, url, request_headers, status, "
                "response_headers, body) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    snapshot,
                    row.request_key,
                    seq,
                    row.tool,
                    row.method,
                    row.url,
                    json.dumps(dict(row.request_headers), sort_keys=True, ensure_ascii=False),
                    row.status,
                    json.dumps(dict(row.response_headers), sort_keys=True, ensure_ascii=False),
                    digest,
                ),
            )
            seqs.append(seq)
        return seqs

    def put_many(self, snapshot: str, rows: Iterable[RecordedRow]) -> int:
        """Write each row at its ``seq`` unless another recorder already did (one transaction); returns how
        many were written.

        This is how many recorders share one snapshot: each numbers a request's occurrences itself, so
        the n-th answer to a request is written once, by whichever recorder gets there first.
        """
        rows = list(rows)
        if any(row.seq is None for row in rows):
            raise ValueError("put_many needs rows with their seq")
        with self.transaction(snapshot) as conn:
            return len(self.insert_rows(conn, snapshot, rows))

    # -- reading ----------------------------------------------------------------
    def _interaction(self, row: tuple) -> Interaction:
        return Interaction(
            row[0], row[1], row[2], row[3], row[4], row[5], json.loads(row[6]), row[7], json.loads(row[8]), row[9]
        )

    _COLUMNS = "snapshot, request_key, seq, tool, method, url, request_headers, status, response_headers, body"

    def lookup(self, snapshot: str, request_key: str) -> list[Interaction]:
        """The recorded answers to one request, in recorded order."""
        rows = self.conn.execute(
            f"SELECT {self._COLUMNS} FROM interactions WHERE snapshot = ? AND request_key = ? ORDER BY seq",
            (snapshot, request_key),
        ).fetchall()
        return [self._interaction(r) for r in rows]

    def answers(self, snapshot: str, request_key: str) -> dict[int, tuple[int, dict[str, str], str]]:
        """seq → (status, response headers, body digest) of each recorded answer, in seq order: replay's one
        query."""
        rows = self._replay_rows(
            "SELECT seq, status, response_headers, body FROM interactions "
            "WHERE snapshot = ? AND request_key = ? ORDER BY seq",
            (snapshot, request_key),
        )
        return {seq: (status, self._parsed_headers(headers), digest) for seq, status, headers, digest in rows}

    def answers_and_bodies(
        self, snapshot: str, request_key: str
    ) -> tuple[dict[int, tuple[int, dict[str, str], str]], dict[str, StoredBody]]:
        """:meth:`answers`, and each answer's body as the file stores it, read by the same query: what a replay
        meeting a request for the first time asks, so a body not yet read costs no second query. The bodies are
        not checked here: hand one to :meth:`body`, which decodes and checks it as if it had read it itself."""
        rows = self._replay_rows(
            "SELECT i.seq, i.status, i.response_headers, i.body, b.codec, b.size, b.data FROM interactions i "
            "LEFT JOIN blobs b ON b.digest = i.body WHERE i.snapshot = ? AND i.request_key = ? ORDER BY i.seq",
            (snapshot, request_key),
        )
        answers = {seq: (status, self._parsed_headers(headers), digest) for seq, status, headers, digest, *_ in rows}
        # a missing blob (no codec) is left to body(), which says so
        return answers, {row[3]: row[4:] for row in rows if row[4] is not None}

    def _parsed_headers(self, text: str) -> dict[str, str]:
        """Recorded response headers as a new dict, the JSON parsed once per distinct text (a store holds few: its
        content types), so a replay meeting thousands of requests does not parse the same text thousands of times."""
        parsed = self._headers_parsed.get(text)
        if parsed is None:
            if len(self._headers_parsed) >= _HEADERS_KEPT:  # a store of many distinct headers: start again
                self._headers_parsed.clear()
            try:
                parsed = json.loads(text)
            except (TypeError, ValueError):
                parsed = None
            if not (isinstance(parsed, dict) and all(isinstance(v, str) for v in parsed.values())):
                # a store from elsewhere is hostile input: an edited row is its error, not a traceback
                raise StoreError(f"{self.path}: a recorded answer's response headers are not a JSON object of text")
            self._headers_parsed[text] = parsed
        return dict(parsed)

    def interactions(self, snapshot: str) -> Iterator[Interaction]:
        """Every interaction of a snapshot, in a deterministic order (request key, then seq)."""
        cursor = self.conn.execute(
            f"SELECT {self._COLUMNS} FROM interactions WHERE snapshot = ? ORDER BY request_key, seq", (snapshot,)
        )
        for row in cursor:
            yield self._interaction(row)

    def body(self, digest: str, stored: StoredBody | None = None) -> bytes:
        """A stored body by digest, checked against the digest the first time this process reads it (a
        mismatch is a :class:`StoreError`, never a wrong answer); recently read bodies are kept. ``stored``: its
        row, already read from this store (:meth:`answers_and_bodies`), decoded and checked exactly as one read
        here would be."""
        cached = self._bodies.get(digest)
        if cached is not None:
            return cached
        data = self._read_body(digest) if stored is None else self._decoded(digest, stored)
        # every read this body came from (its row, its dictionary) was kept only if the file was as held after it;
        # trusted now, the file was the one verified when each was made
        if not self.trusted and digest not in self._verified:
            if blob_digest(data) != digest:
                raise StoreError(
                    f"store {self.path}: body {digest[:12]}… does not match its digest: the store is "
                    "corrupt (kopa-replay cassette verify lists what)"
                )
            self._verified.add(digest)
        if len(data) <= _CACHED_BODY_MAX:
            with self._bodies_lock:
                self._bodies[digest] = data
                while len(self._bodies) > _CACHED_BODIES:
                    self._bodies.popitem(last=False)
        return data

    def _read_body(self, digest: str) -> bytes:
        rows = self._replay_rows("SELECT codec, size, data FROM blobs WHERE digest = ?", (digest,))
        row = rows[0] if rows else None
        if row is None:
            raise StoreError(f"store {self.path} lacks body {digest[:12]}…: the store is corrupt")
        return self._decoded(digest, row)

    def _decoded(self, digest: str, stored: StoredBody) -> bytes:
        """A blob row's bytes as recorded (not yet checked against ``digest``, which errors name)."""
        try:
            codec, size, data = stored
            return self._decode(codec, data, size)
        except zstandard.ZstdError as exc:
            raise StoreError(
                f"store {self.path}: body {digest[:12]}… cannot be decompressed ({exc}): the store "
                "is corrupt (kopa-replay cassette verify lists what)"
            ) from None
        except StoreError as exc:
            raise StoreError(f"store {self.path}: body {digest[:12]}…: {exc}: the store is corrupt") from None

    def body_problem(self, digest: str) -> str | None:
        """Why a stored body cannot be served as ``digest`` (missing, undecodable, other bytes), or None.
        Reads the file, never the cache."""
        try:
            data = self._read_body(digest)
        except StoreError as exc:
            return str(exc)
        return None if blob_digest(data) == digest else f"body {digest[:12]}… does not match its digest"

    # -- maintenance ---------------------------------------------------------------
    def verify(self) -> list[str]:
        """Problems found: blobs whose bytes do not hash to their digest, rows pointing at missing blobs.

        :func:`verify_store` also remembers a file found whole."""
        problems: list[str] = []
        for digest, codec, size, data in self.conn.execute(
            "SELECT digest, codec, size, data FROM blobs ORDER BY digest"
        ):
            try:
                raw = self._decode(codec, data, size)
            except (zstandard.ZstdError, StoreError) as exc:
                problems.append(f"blob {digest[:12]}: cannot decompress ({exc})")
                continue
            if len(raw) != size or blob_digest(raw) != digest:
                problems.append(f"blob {digest[:12]}: content does not match its digest")
        for snapshot, key, seq in self.conn.execute(
            "SELECT snapshot, request_key, seq FROM interactions WHERE body NOT IN (SELECT digest FROM blobs) "
            "ORDER BY snapshot, request_key, seq"
        ):
            problems.append(f"interaction {snapshot}/{key[:12]}#{seq}: body missing")
        integrity = self.conn.execute("PRAGMA integrity_check").fetchone()[0]
        if integrity != "ok":
            problems.append(f"sqlite integrity check: {integrity}")
        return problems

    def stats(self) -> dict[str, Any]:
        conn = self.conn
        blobs, raw, stored = conn.execute(
            "SELECT COUNT(*), COALESCE(SUM(size), 0), COALESCE(SUM(LENGTH(data)), 0) FROM blobs"
        ).fetchone()
        per_snapshot = {
            name: count
            for name, count in conn.execute(
                "SELECT snapshot, COUNT(*) FROM interactions GROUP BY snapshot ORDER BY snapshot"
            )
        }
        return {
            "path": str(self.path),
            "schema_version": int(conn.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()[0]),
            "file_bytes": self.path.stat().st_size if self.path.exists() else 0,
            "snapshots": per_snapshot,
            "interactions": sum(per_snapshot.values()),
            "blobs": blobs,
            "body_bytes_raw": raw,
            "body_bytes_stored": stored,
        }

    def finalize(self) -> bool:
        """Fold the WAL into the main file and leave WAL mode, so the file can be shipped and opened read-only;
        True when done. Only a store nobody else has open can leave WAL mode: with another recorder or reader on
        it the store stays in WAL (everything committed is safe there) and this returns False, never an error."""
        if self.readonly:
            return False
        conn = self.conn
        conn.execute("PRAGMA busy_timeout = 0")  # ask once: waiting would only block on the other process
        try:
            busy, _, _ = conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
            if busy:
                return False
            mode = conn.execute("PRAGMA journal_mode = DELETE").fetchone()[0]
            return str(mode).lower() == "delete"
        except sqlite3.OperationalError:  # "database is locked": someone else has it open
            return False
        finally:
            conn.execute(f"PRAGMA busy_timeout = {_BUSY_TIMEOUT_MS}")


def verify_store(path: str | Path) -> tuple[list[str], str | None]:
    """:meth:`Store.verify` of the store file at ``path``, and, when it finds nothing wrong, the file remembered as
    verified whole (:mod:`~kopa_replay.record.ledger`): read-only stores opened on it later serve its bodies
    without hashing them while it stays, to the byte, the file verified. Returns (problems, why it was not
    remembered, or None when it was).

    The file is held before a fresh read-only Store opens it, so the verification reads the bytes held (no page
    kept from an earlier read), and it is remembered only if it is still those bytes at that path afterwards."""
    held = ledger.hold(path)
    with Store(path, readonly=True) as store:
        problems = store.verify()
    if problems:
        return problems, "it is not whole"
    if isinstance(held, str):
        return problems, held
    return problems, ledger.remember(path, held)
