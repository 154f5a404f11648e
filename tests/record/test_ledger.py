"""A store verified whole once is trusted by later processes only while its file is, to the byte, the one verified:
an edit (even one that puts the modification time back), a journal beside it, another file in its place, a ledger
folder others may write to, or a file changed too shortly before its verification all bring back the per-body check."""

from __future__ import annotations

import json
import os
import time

import httpx
import pytest
from click.testing import CliRunner
from hostile import edit_past_triggers
from stores import append_bodies, platform_bodies

from kopa_replay.cli import cli
from kopa_replay.errors import StoreError
from kopa_replay.record import RecordTransport, Redactor, Store, ledger
from kopa_replay.record import store as store_module
from kopa_replay.record.store import verify_store

pytestmark = pytest.mark.skipif(os.name == "nt", reason="Windows keeps no status-change time: nothing is remembered")

SETTLE_S = 0.05  # the guard shortened for the tests; real timestamps still have to move past it
BODIES = {f"k{n}": json.dumps({"item": n, "name": f"회사 {n}", "pad": "x" * (40 * n)}).encode() for n in range(1, 6)}


def _key(name: str) -> str:
    """The identity replay gives a GET of ``name``'s URL."""
    return Redactor().request_key("GET", f"https://example.org/{name}")


@pytest.fixture
def cache(tmp_path, monkeypatch):
    folder = tmp_path / "cache"
    monkeypatch.setenv("KOPA_CACHE_DIR", str(folder))
    monkeypatch.setattr(ledger, "SETTLED_NS", int(SETTLE_S * 1e9))
    return folder


def _store(tmp_path):
    """A finalized store (rollback journal, as shipped) of five answers, last changed long enough ago."""
    path = tmp_path / "kopa.sqlite"
    with Store(path) as store:
        for key, body in BODIES.items():
            store.append(
                snapshot="s",
                request_key=_key(key),
                tool="t",
                method="GET",
                url=f"https://example.org/{key}",
                request_headers={},
                status=200,
                response_headers={"content-type": "application/json"},
                body=body,
            )
        assert store.finalize()
    time.sleep(SETTLE_S * 2)
    return path


def _verified(path) -> None:
    assert verify_store(path) == ([], None)


def _replay(store: Store) -> dict[str, bytes]:
    """Every answer's body, read the way replay reads it (one query for answer and body, then the check)."""
    out = {}
    for key in BODIES:
        answers, stored = store.answers_and_bodies("s", _key(key))
        (_status, _headers, digest) = answers[1]
        out[key] = store.body(digest, stored.get(digest))
    return out


def _hashes(monkeypatch) -> list[int]:
    calls = []
    real = store_module.blob_digest

    def counting(body):
        calls.append(len(body))
        return real(body)

    monkeypatch.setattr(store_module, "blob_digest", counting)
    return calls


def test_a_store_verified_once_is_served_unhashed_and_the_same(tmp_path, cache, monkeypatch):
    path = _store(tmp_path)
    with Store(path, readonly=True) as before:
        assert not before.trusted
    _verified(path)
    hashed = _hashes(monkeypatch)
    with Store(path, readonly=True) as trusted:
        assert trusted.trusted
        assert _replay(trusted) == BODIES
    assert hashed == []
    # the same answers through the transport, as a replaying client reads them
    with (
        Store(path, readonly=True) as trusted,
        httpx.Client(transport=RecordTransport(None, trusted, "s", "replay")) as client,
    ):
        assert trusted.trusted
        assert {key: client.get(f"https://example.org/{key}").content for key in BODIES} == BODIES
    assert hashed == []
    monkeypatch.setenv("KOPA_CACHE_DIR", "off")  # no ledger: every body hashed, as before
    with Store(path, readonly=True) as unchecked:
        assert not unchecked.trusted and _replay(unchecked) == BODIES
    assert len(hashed) == len(BODIES)


def test_an_edit_after_the_verification_brings_the_check_back_even_with_the_old_mtime(tmp_path, cache):
    path = _store(tmp_path)
    _verified(path)
    digest = store_module.blob_digest(BODIES["k3"])
    stamp = os.stat(path)
    edit_past_triggers(
        path,
        f"UPDATE blobs SET codec = 'raw', data = x'{BODIES['k3'].replace(b'item', b'itex').hex()}' "
        f"WHERE digest = '{digest}'",
    )
    os.utime(path, ns=(stamp.st_atime_ns, stamp.st_mtime_ns))  # what an editor hiding its tracks can do
    assert os.stat(path).st_mtime_ns == stamp.st_mtime_ns
    with Store(path, readonly=True) as store:
        assert not store.trusted
        with pytest.raises(StoreError, match=rf"body {digest[:12]}… does not match its digest"):
            _replay(store)


def test_an_edit_while_a_trusted_store_is_open_ends_the_trust_never_an_unchecked_answer(tmp_path, cache):
    path = _store(tmp_path)
    _verified(path)
    digest = store_module.blob_digest(BODIES["k3"])
    with Store(path, readonly=True) as store:
        assert store.trusted
        answers, stored = store.answers_and_bodies("s", _key("k1"))
        assert store.body(answers[1][2], stored[answers[1][2]]) == BODIES["k1"]
        time.sleep(SETTLE_S)
        edited = BODIES["k3"].replace(b"item", b"itex")
        edit_past_triggers(path, f"UPDATE blobs SET codec = 'raw', data = x'{edited.hex()}' WHERE digest = '{digest}'")
        with pytest.raises(StoreError, match=rf"body {digest[:12]}… does not match its digest"):
            answers, stored = store.answers_and_bodies("s", _key("k3"))
            store.body(digest, stored[digest])
        assert not store.trusted
        answers, stored = store.answers_and_bodies("s", _key("k2"))
        assert store.body(answers[1][2], stored[answers[1][2]]) == BODIES["k2"]  # read with locks, checked


def test_another_file_moved_into_its_place_ends_the_trust(tmp_path, cache, monkeypatch):
    path = _store(tmp_path)
    _verified(path)
    with Store(path, readonly=True) as store:
        assert store.trusted
        other = tmp_path / "other.sqlite"
        other.write_bytes(path.read_bytes())
        os.replace(other, path)
        hashed = _hashes(monkeypatch)
        assert _replay(store) == BODIES
        assert not store.trusted and len(hashed) == len(BODIES)


def test_a_store_not_verified_reads_without_locks_and_still_checks_every_body(tmp_path, cache, monkeypatch):
    path = _store(tmp_path)
    hashed = _hashes(monkeypatch)
    with Store(path, readonly=True) as store:
        assert store._held is not None and not store.trusted
        assert _replay(store) == BODIES
        # a change while it is open: the next reads go through the locked connection, the file as it is now
        edit_past_triggers(path, "UPDATE interactions SET status = 500")
        answers, _ = store.answers_and_bodies("s", _key("k1"))
        assert answers[1][0] == 500 and store._held is None
    assert len(hashed) == len(BODIES)


def test_a_journal_beside_the_file_or_wal_mode_is_never_trusted(tmp_path, cache):
    path = _store(tmp_path)
    _verified(path)
    journal = tmp_path / "kopa.sqlite-wal"
    journal.write_bytes(b"")
    with Store(path, readonly=True) as store:
        assert not store.trusted and _replay(store) == BODIES
    journal.unlink()
    with Store(path, readonly=True) as store:
        assert store.trusted
    with Store(path) as writable:  # a recorder opening it puts the file back in WAL mode
        writable.conn.execute("PRAGMA journal_mode = WAL")
    time.sleep(SETTLE_S * 2)
    assert verify_store(path) == ([], "it is in WAL mode, as a store being recorded is (a finalized store is not)")
    with Store(path, readonly=True) as store:
        assert not store.trusted


def test_a_file_changed_just_before_its_verification_is_not_remembered(tmp_path, cache, monkeypatch):
    path = _store(tmp_path)
    monkeypatch.setattr(ledger, "SETTLED_NS", 3_600 * 10**9)  # changed "just now" against an hour's guard
    assert verify_store(path) == ([], "it changed less than 3600 s ago")
    monkeypatch.setattr(ledger, "SETTLED_NS", int(SETTLE_S * 1e9))
    with Store(path, readonly=True) as store:
        assert not store.trusted


def test_a_ledger_folder_others_may_write_to_is_not_believed(tmp_path, cache):
    path = _store(tmp_path)
    _verified(path)
    folder = cache / "verified-stores"
    os.chmod(folder, 0o777)
    try:
        with Store(path, readonly=True) as store:
            assert not store.trusted
    finally:
        os.chmod(folder, 0o700)


def test_a_corrupt_store_is_not_remembered(tmp_path, cache):
    path = _store(tmp_path)
    digest = store_module.blob_digest(BODIES["k2"])
    edit_past_triggers(path, f"UPDATE blobs SET codec = 'raw', data = x'00' WHERE digest = '{digest}'")
    time.sleep(SETTLE_S * 2)
    problems, why = verify_store(path)
    assert problems and why == "it is not whole"
    assert not (cache / "verified-stores").exists() or not any((cache / "verified-stores").iterdir())


def test_cassette_verify_says_when_it_remembered_the_store(tmp_path, cache, monkeypatch):
    path = _store(tmp_path)
    runner = CliRunner()
    said = runner.invoke(cli, ["cassette", "verify", "--store", str(path), "--json"])
    assert said.exit_code == 0, said.output
    assert json.loads(said.output) == {"store": str(path), "ok": True, "remembered": True, "not_remembered": None}
    monkeypatch.setenv("KOPA_CACHE_DIR", "off")
    said = runner.invoke(cli, ["cassette", "verify", "--store", str(path)])
    assert said.exit_code == 0, said.output
    assert said.output.strip().endswith(
        "matches its digest; not remembered on this machine: the cache folder is off (KOPA_CACHE_DIR) or others "
        "may write to it"
    )


def test_the_ledger_keeps_its_newest_entries_only(tmp_path, cache, monkeypatch):
    monkeypatch.setattr(ledger, "ENTRIES_KEPT", 2)
    paths = []
    for n in range(3):
        folder = tmp_path / f"s{n}"
        folder.mkdir()
        paths.append(_store(folder))
        _verified(paths[-1])
    assert len(list((cache / "verified-stores").iterdir())) == 2
    trusted = []
    for path in paths:
        with Store(path, readonly=True) as store:
            trusted.append(store.trusted)
    assert trusted == [False, True, True]


def test_a_replay_that_only_looks_leaves_the_cache_folder_alone(tmp_path, cache):
    path = _store(tmp_path)
    with Store(path, readonly=True) as store:
        assert not store.trusted and _replay(store) == BODIES
    assert not cache.exists()


@pytest.mark.parametrize("name", ["x%41.sqlite", "s#1.sqlite", "what?.sqlite"])
def test_a_name_a_uri_would_read_otherwise_opens_the_file_it_names(tmp_path, cache, name):
    folder = tmp_path / "f"
    folder.mkdir()
    made = _store(folder)
    path = made.rename(folder / name)
    time.sleep(SETTLE_S * 2)  # the rename moved its status-change time
    _verified(path)
    with Store(path, readonly=True) as store:
        assert store.trusted and _replay(store) == BODIES
    assert sorted(p.name for p in folder.iterdir()) == [name]  # no stray file made for another name


def test_a_body_read_before_a_change_is_served_and_the_next_is_hashed(tmp_path, cache, monkeypatch):
    path = _store(tmp_path)
    _verified(path)
    hashed = _hashes(monkeypatch)
    with Store(path, readonly=True) as store:
        answers, stored = store.answers_and_bodies("s", _key("k4"))  # read while the file was the one verified
        edit_past_triggers(path, "UPDATE interactions SET status = 500")
        digest = answers[1][2]
        assert store.body(digest, stored[digest]) == BODIES["k4"] and hashed == []
        answers, stored = store.answers_and_bodies("s", _key("k5"))  # read after: the change is seen
        assert answers[1][0] == 500 and not store.trusted
        assert store.body(answers[1][2], stored[answers[1][2]]) == BODIES["k5"]
        assert hashed == [len(BODIES["k5"])]


@pytest.mark.parametrize("gone", ["deleted", "moved"])
def test_a_held_file_deleted_or_moved_while_open_is_read_as_it_was_opened(tmp_path, cache, gone):
    path = _store(tmp_path)
    _verified(path)
    with Store(path, readonly=True) as store:
        assert store.trusted
        if gone == "deleted":
            path.unlink()
        else:
            path.rename(tmp_path / "elsewhere.sqlite")
        assert _replay(store) == BODIES
        assert not store.trusted


def test_a_dictionary_edited_after_a_lookup_of_a_verified_store_is_never_served_unchecked(tmp_path, cache):
    path = tmp_path / "d.sqlite"
    bodies = platform_bodies(120)
    with Store(path) as store:
        append_bodies(store, bodies)
        assert store.finalize()
        ((ident, data),) = store.conn.execute("SELECT id, data FROM dictionaries").fetchall()
        key = store.conn.execute(
            "SELECT i.request_key FROM interactions i JOIN blobs b ON b.digest = i.body WHERE b.codec = ? LIMIT 1",
            (f"zstd:{ident}",),
        ).fetchone()[0]
    time.sleep(SETTLE_S * 2)
    _verified(path)
    edited = bytearray(data)
    edited[-4096:] = bytes(4096)
    with Store(path, readonly=True) as store:
        assert store.trusted
        answers, stored = store.answers_and_bodies("s", key)  # the row, read while the file was the one verified
        digest = answers[1][2]
        edit_past_triggers(path, f"UPDATE dictionaries SET data = x'{bytes(edited).hex()}'")
        try:
            served = store.body(digest, stored[digest])  # its dictionary is read only now: after the edit
        except StoreError as exc:
            assert digest[:12] in str(exc)
        else:
            assert served == bodies[int(key[1:])]
        assert not store.trusted
