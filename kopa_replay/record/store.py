"""The cassette store: one SQLite file of interactions, grouped in snapshots.

Schema (version 2)::

    meta(key, value)                      schema_version, application id
    blobs(digest, codec, size, data)      response bodies, content-addressed (sha256 of the
                                          scrubbed bytes), zstd-compressed, stored once
    snapshots(name, as_of, source, seed, catalog_digest, sealed, digest)
    interactions(id, snapshot, request_key, seq, tool, method, url, request_headers,
                 status, response_headers, body)   UNIQUE(snapshot, request_key, seq)

Repeated identical requests get seq 1, 2, 3 … in the order they were
recorded; replay serves them in that order and then repeats the last. Each
interaction is written in its own ``BEGIN IMMEDIATE`` transaction (blob,
sequence number and row together), so a killed recorder leaves only whole
interactions and several processes can record into one store (WAL, a busy
timeout). Triggers make a sealed snapshot immutable to any SQL: no insert,
update or delete of its interactions, no unsealing or deleting it, and no
blob rewritten (blobs are content-addressed) or removed while a sealed
snapshot uses it (version 2; a version 1 store gains them when first opened
writable, its digests and manifests unchanged). Every body is checked
against its digest the first time a process reads it, so a flipped bit is an
error naming the body, never a wrong answer. A file that is not ours, or from
a newer schema, is refused with a clear error rather than altered.
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import threading
from collections import OrderedDict
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, Iterator, Mapping

import sqlite_utils
import zstandard

from kopa_replay.errors import SnapshotError, StoreError

__all__ = ["SCHEMA_VERSION", "Interaction", "RecordedRow", "Snapshot", "Store", "default_store_path", "blob_digest"]

SCHEMA_VERSION = 2
APPLICATION = "kopa-replay cassette store"
_BUSY_TIMEOUT_MS = 30_000
_COMPRESS_MIN = 64  # bodies shorter than this are stored raw: compression would not pay
_CACHED_BODIES = 1024  # decompressed bodies kept for replay
_CACHED_BODY_MAX = 1 << 20  # larger bodies (the corpCode ZIP) are not kept

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


def default_store_path() -> Path:
    """$KOPA_STORE, else ./cassettes/kopa.sqlite if present, else the checkout's shipped store."""
    if os.environ.get("KOPA_STORE"):
        return Path(os.environ["KOPA_STORE"])
    local = Path("cassettes") / "kopa.sqlite"
    if local.exists():
        return local
    return Path(__file__).resolve().parents[2] / "cassettes" / "kopa.sqlite"


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

    @property
    def answer(self) -> tuple[int, tuple[tuple[str, str], ...], str]:
        """What replay serves: status, headers and body digest (compared to keep unchanged rows)."""
        return self.status, tuple(sorted(self.response_headers.items())), blob_digest(self.body)


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


def blob_digest(body: bytes) -> str:
    """The content address of a body."""
    return hashlib.sha256(body).hexdigest()


class Store:
    """A cassette store file. ``readonly=True`` opens it without any write (for replay and CI)."""

    def __init__(self, path: str | Path, *, readonly: bool = False, create: bool = True) -> None:
        self.path = Path(path)
        self.readonly = readonly
        self._local = threading.local()
        self._compressor = zstandard.ZstdCompressor(level=3)
        self._bodies: OrderedDict[str, bytes] = OrderedDict()
        self._bodies_lock = threading.Lock()
        self._verified: set[str] = set()  # body digests this process has checked against their bytes
        self._decompressor = zstandard.ZstdDecompressor()
        if readonly or not create:
            if not self.path.exists():
                raise StoreError(f"store {self.path} does not exist")
        else:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        if self.path.is_file() and self.path.stat().st_size == 0:
            # SQLite would take an empty file for a new database; a truncated store must not pass for one
            raise StoreError(f"{self.path} is an empty file, not a cassette store (remove it to start a new store)")
        self._prepare()

    # -- connections ------------------------------------------------------------
    def _connect(self) -> sqlite3.Connection:
        try:
            if self.readonly:
                conn = sqlite3.connect(f"file:{self.path}?mode=ro", uri=True, check_same_thread=False,
                                       isolation_level=None)
            else:
                conn = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
            conn.execute(f"PRAGMA busy_timeout = {_BUSY_TIMEOUT_MS}")
        except sqlite3.Error as exc:
            raise StoreError(f"cannot open store {self.path}: {exc}") from exc
        return conn

    @property
    def conn(self) -> sqlite3.Connection:
        """This thread's connection (sqlite3 connections are not shared across threads)."""
        conn = getattr(self._local, "conn", None)
        if conn is None:
            conn = self._local.conn = self._connect()
        return conn

    def close(self) -> None:
        conn = getattr(self._local, "conn", None)
        if conn is not None:
            conn.close()
            self._local.conn = None

    def __enter__(self) -> "Store":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _prepare(self) -> None:
        """Check the file is ours and current; create or migrate the schema when writable."""
        try:
            tables = set(sqlite_utils.Database(self.conn).table_names())
        except sqlite3.DatabaseError as exc:
            raise StoreError(f"{self.path} is not a SQLite cassette store: {exc}") from exc
        if tables and "meta" not in tables:
            raise StoreError(f"{self.path} is a SQLite file but not a kopa-replay store "
                             f"(tables: {', '.join(sorted(tables))}); refusing to touch it")
        version = 0
        if "meta" in tables:
            row = self.conn.execute("SELECT value FROM meta WHERE key='schema_version'").fetchone()
            app = self.conn.execute("SELECT value FROM meta WHERE key='application'").fetchone()
            if app is None or app[0] != APPLICATION:
                raise StoreError(f"{self.path} is not a kopa-replay store; refusing to touch it")
            version = int(row[0]) if row else 0
        if version > SCHEMA_VERSION:
            raise StoreError(f"store {self.path} has schema version {version}, newer than this kopa-replay "
                             f"understands ({SCHEMA_VERSION}); upgrade kopa-replay")
        if version == SCHEMA_VERSION:
            return
        if self.readonly:
            if version >= 1:   # an older store reads the same; it gains the newer triggers when opened writable
                return
            raise StoreError(f"store {self.path} is empty; record into it first")
        self._migrate(version)

    def _migrate(self, version: int) -> None:
        # One step per schema version; version 0 is a new file.
        conn = self.conn
        conn.execute("PRAGMA journal_mode = WAL")
        conn.execute("BEGIN IMMEDIATE")
        try:
            if version < 1:
                for statement in _SCHEMA:
                    conn.execute(statement)
                conn.execute("INSERT OR REPLACE INTO meta VALUES ('application', ?)", (APPLICATION,))
            if version < 2:   # triggers only: rows, digests and manifests stay as they are
                for statement in _SEALED_V2:
                    conn.execute(statement)
            conn.execute("INSERT OR REPLACE INTO meta VALUES ('schema_version', ?)", (str(SCHEMA_VERSION),))
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise

    # -- snapshots --------------------------------------------------------------
    def ensure_snapshot(self, name: str, *, as_of: str | None = None, source: str | None = None,
                        seed: int | None = None, catalog_digest: str | None = None) -> Snapshot:
        """The snapshot called ``name``, created (unsealed) if absent."""
        if self.readonly:
            return self.snapshot(name)
        self.conn.execute(
            "INSERT OR IGNORE INTO snapshots (name, as_of, source, seed, catalog_digest) VALUES (?, ?, ?, ?, ?)",
            (name, as_of, source, seed, catalog_digest))
        return self.snapshot(name)

    def snapshot(self, name: str) -> Snapshot:
        row = self.conn.execute(
            "SELECT name, as_of, source, seed, catalog_digest, sealed, digest, "
            "(SELECT COUNT(*) FROM interactions WHERE snapshot = s.name) FROM snapshots s WHERE name = ?",
            (name,)).fetchone()
        if row is None:
            known = ", ".join(self.snapshot_names()) or "none"
            raise SnapshotError(f"no snapshot {name!r} in store {self.path} (snapshots: {known})")
        return Snapshot(row[0], row[1], row[2], row[3], row[4], bool(row[5]), row[6], row[7])

    def snapshot_names(self) -> list[str]:
        return [row[0] for row in self.conn.execute("SELECT name FROM snapshots ORDER BY name")]

    def snapshots(self) -> list[Snapshot]:
        return [self.snapshot(name) for name in self.snapshot_names()]

    def seal(self, name: str, digest: str) -> None:
        self.conn.execute("UPDATE snapshots SET sealed = 1, digest = ? WHERE name = ?", (digest, name))

    def delete_snapshot(self, name: str) -> None:
        """Remove an unsealed snapshot and its interactions (blobs stay until vacuum)."""
        if self.snapshot(name).sealed:
            raise SnapshotError(f"snapshot {name!r} is sealed and cannot be deleted")
        self.conn.execute("BEGIN IMMEDIATE")
        self.conn.execute("DELETE FROM interactions WHERE snapshot = ?", (name,))
        self.conn.execute("DELETE FROM snapshots WHERE name = ?", (name,))
        self.conn.execute("COMMIT")

    # -- writing ----------------------------------------------------------------
    def _encode(self, body: bytes) -> tuple[str, bytes]:
        if len(body) < _COMPRESS_MIN:
            return "raw", body
        packed = self._compressor.compress(body)
        return ("zstd", packed) if len(packed) < len(body) else ("raw", body)

    def append(self, *, snapshot: str, request_key: str, tool: str | None, method: str, url: str,
               request_headers: Mapping[str, str], status: int, response_headers: Mapping[str, str],
               body: bytes) -> int:
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

    @contextmanager
    def transaction(self, snapshot: str, create: bool = True) -> Iterator[sqlite3.Connection]:
        """One ``BEGIN IMMEDIATE`` transaction writing ``snapshot``; sqlite errors become store errors."""
        if self.readonly:
            raise StoreError(f"store {self.path} is open read-only")
        conn = self.conn
        try:
            conn.execute("BEGIN IMMEDIATE")
            try:
                if create:
                    self.ensure_snapshot(snapshot)
                yield conn
                conn.execute("COMMIT")
            except BaseException:
                conn.execute("ROLLBACK")
                raise
        except sqlite3.IntegrityError as exc:
            if "sealed" in str(exc):
                raise SnapshotError(f"snapshot {snapshot!r} in store {self.path} is sealed: "
                                    "record into a new snapshot") from None
            raise StoreError(f"cannot write snapshot {snapshot!r} of {self.path}: {exc}") from exc
        except sqlite3.Error as exc:
            raise StoreError(f"cannot write snapshot {snapshot!r} of {self.path}: {exc}") from exc

    def insert_rows(self, conn: sqlite3.Connection, snapshot: str, rows: Iterable[RecordedRow]) -> list[int]:
        """Write rows inside the caller's transaction; returns their sequence numbers."""
        written: set[str] = set()
        seqs: list[int] = []
        for row in rows:
            digest = blob_digest(row.body)
            if digest not in written:
                codec, data = self._encode(row.body)
                conn.execute("INSERT OR IGNORE INTO blobs (digest, codec, size, data) VALUES (?, ?, ?, ?)",
                             (digest, codec, len(row.body), data))
                written.add(digest)
            seq = conn.execute("SELECT COALESCE(MAX(seq), 0) + 1 FROM interactions WHERE snapshot = ? "
                               "AND request_key = ?", (snapshot, row.request_key)).fetchone()[0]
            conn.execute(
                "INSERT INTO interactions (snapshot, request_key, seq, tool, method, url, request_headers, status, "
                "response_headers, body) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (snapshot, row.request_key, seq, row.tool, row.method, row.url,
                 json.dumps(dict(row.request_headers), sort_keys=True, ensure_ascii=False), row.status,
                 json.dumps(dict(row.response_headers), sort_keys=True, ensure_ascii=False), digest))
            seqs.append(seq)
        return seqs

    # -- reading ----------------------------------------------------------------
    def _interaction(self, row: tuple) -> Interaction:
        return Interaction(row[0], row[1], row[2], row[3], row[4], row[5], json.loads(row[6]), row[7],
                           json.loads(row[8]), row[9])

    _COLUMNS = ("snapshot, request_key, seq, tool, method, url, request_headers, status, response_headers, body")

    def lookup(self, snapshot: str, request_key: str) -> list[Interaction]:
        """The recorded answers to one request, in recorded order."""
        rows = self.conn.execute(f"SELECT {self._COLUMNS} FROM interactions WHERE snapshot = ? AND request_key = ? "
                                 "ORDER BY seq", (snapshot, request_key)).fetchall()
        return [self._interaction(r) for r in rows]

    def answers(self, snapshot: str, request_key: str) -> list[tuple[int, dict[str, str], str]]:
        """(status, response headers, body digest) of each recorded answer, in order: replay's one query."""
        rows = self.conn.execute("SELECT status, response_headers, body FROM interactions "
                                 "WHERE snapshot = ? AND request_key = ? ORDER BY seq", (snapshot, request_key))
        return [(status, json.loads(headers), digest) for status, headers, digest in rows]

    def interactions(self, snapshot: str) -> Iterator[Interaction]:
        """Every interaction of a snapshot, in a deterministic order (request key, then seq)."""
        cursor = self.conn.execute(f"SELECT {self._COLUMNS} FROM interactions WHERE snapshot = ? "
                                   "ORDER BY request_key, seq", (snapshot,))
        for row in cursor:
            yield self._interaction(row)

    def body(self, digest: str) -> bytes:
        """A stored body by digest, checked against the digest the first time this process reads it (a
        mismatch is a :class:`StoreError`, never a wrong answer); recently read bodies are kept."""
        cached = self._bodies.get(digest)
        if cached is not None:
            return cached
        data = self._read_body(digest)
        if digest not in self._verified:
            if blob_digest(data) != digest:
                raise StoreError(f"store {self.path}: body {digest[:12]}… does not match its digest: the store is "
                                 "corrupt (kopa-replay cassette verify lists what)")
            self._verified.add(digest)
        if len(data) <= _CACHED_BODY_MAX:
            with self._bodies_lock:
                self._bodies[digest] = data
                while len(self._bodies) > _CACHED_BODIES:
                    self._bodies.popitem(last=False)
        return data

    def _read_body(self, digest: str) -> bytes:
        row = self.conn.execute("SELECT codec, data FROM blobs WHERE digest = ?", (digest,)).fetchone()
        if row is None:
            raise StoreError(f"store {self.path} lacks body {digest[:12]}…: the store is corrupt")
        codec, data = row
        if codec == "zstd":
            try:
                return self._decompressor.decompress(data)
            except zstandard.ZstdError as exc:
                raise StoreError(f"store {self.path}: body {digest[:12]}… cannot be decompressed ({exc}): the store "
                                 "is corrupt (kopa-replay cassette verify lists what)") from None
        if codec != "raw":
            raise StoreError(f"store {self.path}: body {digest[:12]}… has unknown codec {codec!r}: the store is corrupt")
        return bytes(data)

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
        """Problems found: blobs whose bytes do not hash to their digest, rows pointing at missing blobs."""
        problems: list[str] = []
        for digest, codec, size, data in self.conn.execute("SELECT digest, codec, size, data FROM blobs ORDER BY digest"):
            try:
                raw = self._decompressor.decompress(data) if codec == "zstd" else bytes(data)
            except zstandard.ZstdError as exc:
                problems.append(f"blob {digest[:12]}: cannot decompress ({exc})")
                continue
            if len(raw) != size or blob_digest(raw) != digest:
                problems.append(f"blob {digest[:12]}: content does not match its digest")
        for snapshot, key, seq in self.conn.execute(
                "SELECT snapshot, request_key, seq FROM interactions WHERE body NOT IN (SELECT digest FROM blobs) "
                "ORDER BY snapshot, request_key, seq"):
            problems.append(f"interaction {snapshot}/{key[:12]}#{seq}: body missing")
        integrity = self.conn.execute("PRAGMA integrity_check").fetchone()[0]
        if integrity != "ok":
            problems.append(f"sqlite integrity check: {integrity}")
        return problems

    def stats(self) -> dict[str, Any]:
        conn = self.conn
        blobs, raw, stored = conn.execute(
            "SELECT COUNT(*), COALESCE(SUM(size), 0), COALESCE(SUM(LENGTH(data)), 0) FROM blobs").fetchone()
        per_snapshot = {name: count for name, count in conn.execute(
            "SELECT snapshot, COUNT(*) FROM interactions GROUP BY snapshot ORDER BY snapshot")}
        return {
            "path": str(self.path),
            "schema_version": SCHEMA_VERSION,
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
        conn.execute("PRAGMA busy_timeout = 0")   # ask once: waiting would only block on the other process
        try:
            busy, _, _ = conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
            if busy:
                return False
            mode = conn.execute("PRAGMA journal_mode = DELETE").fetchone()[0]
            return str(mode).lower() == "delete"
        except sqlite3.OperationalError:   # "database is locked": someone else has it open
            return False
        finally:
            conn.execute(f"PRAGMA busy_timeout = {_BUSY_TIMEOUT_MS}")
