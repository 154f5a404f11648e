"""The SQLite store: schema, ownership, sealing, ordering, corruption checks."""

from __future__ import annotations

import os
import sqlite3

import pytest
from hostile import edit_past_triggers

from kopa_replay.errors import SnapshotError, StoreError
from kopa_replay.record import Store


def _append(store, snapshot="s", key="k", body=b'{"a": 1}', status=200):
    return store.append(
        snapshot=snapshot,
        request_key=key,
        tool="t",
        method="GET",
        url="https://h/p",
        request_headers={},
        status=status,
        response_headers={"content-type": "application/json"},
        body=body,
    )


def test_repeated_requests_keep_their_order(tmp_path):
    store = Store(tmp_path / "s.sqlite")
    store.ensure_snapshot("s")
    assert [_append(store, body=b) for b in (b"first", b"second", b"third")] == [1, 2, 3]
    assert [store.body(i.body_digest) for i in store.lookup("s", "k")] == [b"first", b"second", b"third"]


def test_bodies_are_stored_once_and_compressed(tmp_path):
    store = Store(tmp_path / "s.sqlite")
    store.ensure_snapshot("s")
    body = b'{"items": "' + b"x" * 5000 + b'"}'
    for key in ("a", "b", "c"):
        _append(store, key=key, body=body)
    stats = store.stats()
    assert stats["interactions"] == 3 and stats["blobs"] == 1
    assert stats["body_bytes_stored"] < stats["body_bytes_raw"] / 10


def test_a_sealed_snapshot_refuses_writes_and_deletes(tmp_path):
    store = Store(tmp_path / "s.sqlite")
    store.ensure_snapshot("s")
    _append(store)
    store.seal("s", "digest")
    with pytest.raises(SnapshotError, match="snapshot 's' in store .* is sealed"):
        _append(store)
    with pytest.raises(SnapshotError, match="sealed and cannot be deleted"):
        store.delete_snapshot("s")
    with pytest.raises(sqlite3.IntegrityError):
        store.conn.execute("DELETE FROM interactions WHERE snapshot = 's'")


def test_replace_cannot_push_a_sealed_row_out_through_the_stores_connection(tmp_path):
    store = Store(tmp_path / "s.sqlite")
    store.ensure_snapshot("s")
    _append(store)
    store.seal("s", "digest")
    store.ensure_snapshot("scratch")
    _append(store, snapshot="scratch", key="other", status=500)
    sealed_id = store.conn.execute("SELECT id FROM interactions WHERE snapshot = 's'").fetchone()[0]
    for statement, args in (
        ("UPDATE OR REPLACE snapshots SET name = 's' WHERE name = 'scratch'", ()),
        ("UPDATE OR REPLACE interactions SET id = ? WHERE snapshot = 'scratch'", (sealed_id,)),
    ):
        with pytest.raises(sqlite3.IntegrityError, match="sealed"):
            store.conn.execute(statement, args)
    assert store.conn.execute("SELECT name, sealed FROM snapshots WHERE name = 's'").fetchall() == [("s", 1)]
    assert [(i.snapshot, i.status) for i in store.lookup("s", "k")] == [("s", 200)]


def test_foreign_and_future_files_are_refused_untouched(tmp_path):
    foreign = tmp_path / "other.sqlite"
    with sqlite3.connect(foreign) as conn:
        conn.execute("CREATE TABLE people (name TEXT)")
    before = foreign.read_bytes()
    with pytest.raises(StoreError, match="not a kopa-replay store"):
        Store(foreign)
    assert foreign.read_bytes() == before
    future = tmp_path / "future.sqlite"
    Store(future).conn.execute("UPDATE meta SET value = '99' WHERE key = 'schema_version'")
    with pytest.raises(StoreError, match="schema version 99, newer"):
        Store(future)
    text = tmp_path / "notes.sqlite"
    text.write_text("not a database at all " * 100)
    with pytest.raises(StoreError, match="not a SQLite cassette store"):
        Store(text)


@pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="lists open files through /proc")
@pytest.mark.parametrize("readonly", [False, True])
def test_a_refused_file_is_not_left_open(tmp_path, readonly):
    foreign = tmp_path / "other.sqlite"
    with sqlite3.connect(foreign) as conn:
        conn.execute("CREATE TABLE notes (text)")
    conn.close()
    with pytest.raises(StoreError, match="not a kopa-replay store"):
        Store(foreign, readonly=readonly)
    opened = {os.path.realpath(f"/proc/self/fd/{fd}") for fd in os.listdir("/proc/self/fd")}
    assert str(foreign.resolve()) not in opened


def test_missing_store_and_snapshot_are_named(tmp_path):
    with pytest.raises(StoreError, match="does not exist"):
        Store(tmp_path / "missing.sqlite", readonly=True)
    store = Store(tmp_path / "s.sqlite")
    store.ensure_snapshot("2026-09-01")
    with pytest.raises(SnapshotError, match=r"no snapshot '2026-12-01' .*snapshots: 2026-09-01"):
        store.snapshot("2026-12-01")


def test_verify_finds_a_corrupted_body(tmp_path):
    store = Store(tmp_path / "s.sqlite")
    store.ensure_snapshot("s")
    _append(store, body=b"x" * 500)
    _append(store, key="k2", body=b"short")
    assert store.verify() == []
    with pytest.raises(sqlite3.IntegrityError, match="content-addressed"):  # blobs are never rewritten …
        store.conn.execute("UPDATE blobs SET data = ? WHERE size = 5", (b"SHORT",))
    edit_past_triggers(store.path, "UPDATE blobs SET data = ? WHERE size = 5", params=(b"SHORT",))  # … unless
    # someone breaks in
    problems = store.verify()
    assert len(problems) == 1 and "does not match its digest" in problems[0]
