"""A store nothing can silently corrupt: sealed is immutable to any SQL, every body is checked before it is
served, pinned replay and `snapshot verify` catch edits made past the triggers, a version 1 store migrates."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from pathlib import Path

import httpx
import pytest
import zstandard
from hostile import edit_past_triggers
from stores import append_bodies, platform_bodies

from kopa_replay.drift.recorded import tool_schema_digests
from kopa_replay.errors import SnapshotError, StoreError
from kopa_replay.record import Store
from kopa_replay.record.snapshots import check_pinned, seal_snapshot, snapshot_digest, verify_snapshot
from kopa_replay.record.store import SCHEMA_VERSION, blob_digest, shipped_store_path
from kopa_replay.record.transport import RecordTransport

ROOT = Path(__file__).resolve().parents[2]
BODY = json.dumps({"srtnCd": "069540", "clpr": "1680", "pad": "x" * 400}).encode()


def _recorded(tmp_path, catalog, seal=True):
    """A store with one snapshot 's' of two interactions, sealed with a manifest."""
    store = Store(tmp_path / "cassettes" / "kopa.sqlite")
    for key, body in (("k1", BODY), ("k2", b'{"short": true}')):
        store.append(
            snapshot="s",
            request_key=key,
            tool="datagokr_get_stock_price_info",
            method="GET",
            url=f"https://apis.data.go.kr/x?serviceKey=***&k={key}",
            request_headers={},
            status=200,
            response_headers={"content-type": "application/json"},
            body=body,
        )
    if seal:
        seal_snapshot(store, "s", catalog, tool_digests=tool_schema_digests)
    return store


def _hack(store: Store, *sql: str) -> None:
    """Edit the file the way a hostile tester would: triggers dropped first, put back after."""
    edit_past_triggers(store.path, *sql)


@pytest.mark.parametrize(
    "statement",
    [
        "UPDATE interactions SET url = 'https://elsewhere/'",
        "UPDATE interactions SET status = 500",
        "UPDATE snapshots SET sealed = 0",
        "UPDATE snapshots SET digest = 'x'",
        "DELETE FROM snapshots",
        "UPDATE blobs SET data = x'00'",
        "DELETE FROM blobs",
    ],
)
def test_sealed_is_immutable_to_any_sql(tmp_path, catalog, statement):
    store = _recorded(tmp_path, catalog)
    with pytest.raises(sqlite3.IntegrityError, match="sealed|immutable"):
        store.conn.execute(statement)
    assert verify_snapshot(store, "s") == []


def test_an_open_snapshot_can_still_be_edited_by_the_recorder(tmp_path, catalog):
    store = _recorded(tmp_path, catalog, seal=False)
    store.conn.execute("UPDATE interactions SET tool = 'other' WHERE request_key = 'k1'")
    store.delete_snapshot("s")
    assert store.snapshot_names() == []


def test_a_flipped_byte_is_an_error_naming_the_body_never_a_wrong_answer(tmp_path, catalog):
    store = _recorded(tmp_path, catalog)
    digest = store.lookup("s", "k1")[0].body_digest
    codec, data = store.conn.execute("SELECT codec, data FROM blobs WHERE digest = ?", (digest,)).fetchone()
    raw = zstandard.ZstdDecompressor().decompress(data) if codec == "zstd" else bytes(data)
    edited = raw.replace(b"069540", b"069541")  # another stock code, the same length
    packed = zstandard.ZstdCompressor().compress(edited) if codec == "zstd" else edited
    _hack(store, f"UPDATE blobs SET data = x'{packed.hex()}' WHERE digest = '{digest}'")
    fresh = Store(store.path, readonly=True)
    with pytest.raises(StoreError, match=rf"body {digest[:12]}… does not match its digest"):
        fresh.body(digest)
    # replay's path: the body read by the query that finds the answer, checked the same
    again = Store(store.path, readonly=True)
    _answers, stored = again.answers_and_bodies("s", "k1")
    with pytest.raises(StoreError, match=rf"body {digest[:12]}… does not match its digest"):
        again.body(digest, stored[digest])
    assert fresh.body(store.lookup("s", "k2")[0].body_digest) == b'{"short": true}'
    problems = verify_snapshot(fresh, "s")
    assert problems == [f"body {digest[:12]}… does not match its digest"]


@pytest.mark.parametrize(
    ("edit", "said"),
    [
        ("data = x'28b52ffd0000'", "cannot be decompressed"),
        ("codec = 'raw', data = 'text, not bytes'", "stored data is str, not bytes"),  # SQLite keeps any type
    ],
)
def test_an_undecompressable_blob_is_a_store_error_not_a_zstd_traceback(tmp_path, catalog, edit, said):
    store = _recorded(tmp_path, catalog)
    digest = store.lookup("s", "k1")[0].body_digest
    _hack(store, f"UPDATE blobs SET {edit} WHERE digest = '{digest}'")
    fresh = Store(store.path, readonly=True)
    with pytest.raises(StoreError, match=said):
        fresh.body(digest)
    assert any(said in p for p in verify_snapshot(fresh, "s"))
    assert any(said in p for p in fresh.verify())


@pytest.mark.parametrize(
    "statement",
    [
        "UPDATE interactions SET status = 500 WHERE request_key = 'k1'",
        "UPDATE interactions SET seq = 2 WHERE request_key = 'k1'",
        "UPDATE interactions SET request_key = 'k3' WHERE request_key = 'k1'",
        "DELETE FROM interactions WHERE request_key = 'k2'",
    ],
)
def test_an_edit_past_the_triggers_is_caught_by_verify_and_by_pinned_replay(tmp_path, catalog, statement):
    store = _recorded(tmp_path, catalog)
    sealed = store.snapshot("s").digest
    _hack(store, statement)
    fresh = Store(store.path, readonly=True)
    assert snapshot_digest(fresh, "s") != sealed
    assert any("hash to" in p for p in verify_snapshot(fresh, "s"))
    with pytest.raises(SnapshotError, match="the store was edited"):
        check_pinned(fresh, "s")


def test_a_sealed_digest_erased_past_the_triggers_is_reported_not_a_type_error(tmp_path, catalog):
    store = _recorded(tmp_path, catalog)
    _hack(store, "UPDATE snapshots SET digest = NULL")
    fresh = Store(store.path, readonly=True)
    assert any("sealed as None" in p for p in verify_snapshot(fresh, "s"))
    with pytest.raises(SnapshotError, match="the store was edited"):
        check_pinned(fresh, "s")
    with pytest.raises(SnapshotError, match="the store is corrupt"):
        seal_snapshot(Store(store.path), "s", catalog, tool_digests=tool_schema_digests)


def _older_store(tmp_path, version: int, digest_version: int = 2) -> tuple[Path, str]:
    """A store as kopa-replay of schema ``version`` wrote it: that version's tables and triggers, one snapshot 's'
    of two interactions sealed with a digest of ``digest_version`` (what every seal used before version 3), and
    its manifest as it was written then."""
    from kopa_replay.record.store import _VERSIONS

    path = tmp_path / "cassettes" / "kopa.sqlite"
    path.parent.mkdir()
    conn = sqlite3.connect(path)
    for step in range(1, version + 1):
        for statement in _VERSIONS[step]:
            conn.execute(statement)
    conn.execute(
        "INSERT INTO meta VALUES ('application', 'kopa-replay cassette store'), ('schema_version', ?)", (str(version),)
    )
    conn.execute("INSERT INTO snapshots (name, as_of, source, seed) VALUES ('s', '2026-09-01', 'sim', 0)")
    for key, body in (("k1", BODY), ("k2", b'{"short": true}')):
        conn.execute("INSERT INTO blobs VALUES (?, 'raw', ?, ?)", (blob_digest(body), len(body), body))
        conn.execute(
            "INSERT INTO interactions (snapshot, request_key, seq, tool, method, url, request_headers, status, "
            "response_headers, body) VALUES ('s', ?, 1, 'datagokr_get_stock_price_info', 'GET', ?, '{}', 200, ?, ?)",
            (
                key,
                f"https://apis.data.go.kr/x?serviceKey=***&k={key}",
                '{"content-type": "application/json"}',
                blob_digest(body),
            ),
        )
    conn.commit()
    conn.close()
    digest = snapshot_digest(Store(path, readonly=True), "s", digest_version)
    conn = sqlite3.connect(path)
    conn.execute("UPDATE snapshots SET sealed = 1, digest = ?", (digest,))
    conn.commit()
    conn.close()
    manifest = {
        "name": "s",
        "as_of": "2026-09-01",
        "created": "2026-09-01",
        "source": "sim",
        "seed": 0,
        "catalog_digest": "c" * 64,
        "interactions": 2,
        "digest": digest,
        "digest_version": digest_version,
        "tools": {},
        "kopa_replay": "0.1.0",
    }
    (tmp_path / "snapshots").mkdir()
    (tmp_path / "snapshots" / "s.json").write_text(json.dumps(manifest), encoding="utf-8")
    return path, digest


@pytest.mark.parametrize("version", [1, 2, 3])
def test_an_older_store_reads_as_it_is_and_migrates_keeping_digests_and_manifests(tmp_path, version):
    path, digest = _older_store(tmp_path, version)
    old = Store(path, readonly=True)  # read-only opens it as it is
    assert old.version == version and old.stats()["schema_version"] == version
    assert verify_snapshot(old, "s") == [] and old.body(old.lookup("s", "k1")[0].body_digest) == BODY
    assert check_pinned(old, "s") is True
    migrated = Store(path)
    assert (
        migrated.conn.execute("SELECT value FROM meta WHERE key='schema_version'").fetchone()[0]
        == str(SCHEMA_VERSION)
        == "4"
    )
    assert migrated.snapshot("s").digest == digest and verify_snapshot(migrated, "s") == []
    assert check_pinned(migrated, "s") is True
    with pytest.raises(sqlite3.IntegrityError):
        migrated.conn.execute("UPDATE snapshots SET sealed = 0")
    with pytest.raises(sqlite3.IntegrityError):  # the version 4 triggers came with the migration
        migrated.conn.execute("INSERT OR REPLACE INTO snapshots (name, sealed) VALUES ('s', 0)")


def test_an_older_seal_is_checked_on_the_fields_its_row_holds(tmp_path):
    """A version 2 digest does not cover the manifest's other fields: those the snapshot's row holds are compared
    (an edited as-of date or interaction count is caught), the rest cannot be."""
    path, _ = _older_store(tmp_path, 3)
    manifest_file = tmp_path / "snapshots" / "s.json"
    manifest = json.loads(manifest_file.read_text(encoding="utf-8"))
    manifest_file.write_text(json.dumps({**manifest, "as_of": "2027-01-01"}), encoding="utf-8")
    problems = verify_snapshot(Store(path, readonly=True), "s")
    assert problems == ['manifest field \'as_of\' is "2027-01-01" but the snapshot was sealed with "2026-09-01"']
    with pytest.raises(SnapshotError, match="'as_of'"):
        check_pinned(Store(path, readonly=True), "s")


def test_replay_of_a_corrupt_body_names_snapshot_tool_and_request_and_the_cli_says_error(tmp_path, catalog):
    shipped = shipped_store_path()
    (tmp_path / "cassettes").mkdir()
    copy = tmp_path / "cassettes" / "kopa.sqlite"
    copy.write_bytes(shipped.read_bytes())
    (tmp_path / "snapshots").mkdir()
    manifest = shipped_store_path().parents[1] / "snapshots" / "2026-09-01.json"
    (tmp_path / "snapshots" / "2026-09-01.json").write_bytes(manifest.read_bytes())
    store = Store(copy, readonly=True)
    tool = catalog.get("datagokr_get_stock_price_info")
    args = {"basDt": "20260831", "srtnCd": "069540"}
    transport = RecordTransport(None, store, "2026-09-01", mode="replay")
    from kopa_replay.env import execute

    with httpx.Client(transport=transport) as client:
        good = execute(tool, args, client, "sim-key")
    assert good.outcome == "ok" and good.records[0]["clpr"] == "1680"
    digest = next(
        i.body_digest
        for i in store.interactions("2026-09-01")
        if i.tool == tool.name and "069540" in i.url and "20260831" in i.url
    )
    codec, data = store.conn.execute("SELECT codec, data FROM blobs WHERE digest = ?", (digest,)).fetchone()
    raw = zstandard.ZstdDecompressor().decompress(data) if codec == "zstd" else bytes(data)
    edited = raw.replace(b'"1680"', b'"1681"')
    assert edited != raw
    packed = zstandard.ZstdCompressor().compress(edited) if codec == "zstd" else edited
    _hack(Store(copy, readonly=True), f"UPDATE blobs SET data = x'{packed.hex()}' WHERE digest = '{digest}'")
    with httpx.Client(
        transport=RecordTransport(None, Store(copy, readonly=True), "2026-09-01", mode="replay")
    ) as client:
        with pytest.raises(StoreError) as caught:
            execute(tool, args, client, "sim-key")
    message = str(caught.value)
    assert "snapshot '2026-09-01'" in message and tool.name in message and "does not match its digest" in message
    assert "sim-key" not in message
    result = subprocess.run(
        [
            sys.executable,
            str(ROOT / "cli.py"),
            "call",
            tool.name,
            "--arg",
            "basDt=20260831",
            "--arg",
            "srtnCd=069540",
            "--source",
            "replay",
            "--snapshot",
            "2026-09-01",
            "--store",
            str(copy),
        ],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=120,
    )
    assert result.returncode != 0 and "Traceback" not in result.stderr
    last = result.stderr.strip().splitlines()[-1]
    assert last.startswith("Error:") and "does not match its digest" in last and "1681" not in result.stdout


def test_a_zero_byte_file_is_not_a_store(tmp_path):
    empty = tmp_path / "kopa.sqlite"
    empty.write_bytes(b"")
    for readonly in (True, False):
        with pytest.raises(StoreError, match="empty file, not a cassette store"):
            Store(empty, readonly=readonly)
    assert empty.read_bytes() == b""


def test_finalize_never_fails_while_another_process_has_the_store_open(tmp_path, catalog):
    store = _recorded(tmp_path, catalog, seal=False)
    other = subprocess.Popen(
        [
            sys.executable,
            "-c",
            (
                "import sqlite3, sys, time; c = sqlite3.connect(sys.argv[1], isolation_level=None); "
                "c.execute('BEGIN'); c.execute('SELECT COUNT(*) FROM interactions').fetchone(); "
                "print('ready', flush=True); sys.stdin.readline()"
            ),
            str(store.path),
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert other.stdout.readline().strip() == "ready"
        assert store.finalize() is False  # stays in WAL, no "database is locked"
        store.append(
            snapshot="s",
            request_key="k3",
            tool="t",
            method="GET",
            url="https://h/p",
            request_headers={},
            status=200,
            response_headers={},
            body=b"after",
        )  # the store is still usable
    finally:
        other.communicate("\n", timeout=30)
    assert store.finalize() is True
    assert store.conn.execute("PRAGMA journal_mode").fetchone()[0] == "delete"
    assert len(store.lookup("s", "k3")) == 1


def test_snapshot_delete_removes_an_open_snapshot_and_refuses_a_sealed_one(tmp_path, catalog):
    store = _recorded(tmp_path, catalog, seal=False)
    store.append(
        snapshot="sealed",
        request_key="k",
        tool="t",
        method="GET",
        url="https://h/p",
        request_headers={},
        status=200,
        response_headers={},
        body=b"kept",
    )
    seal_snapshot(store, "sealed", catalog, tool_digests=tool_schema_digests)
    store.close()

    def cli(*args):
        return subprocess.run(
            [sys.executable, str(ROOT / "cli.py"), "snapshot", *args, "--store", str(store.path)],
            capture_output=True,
            text=True,
            timeout=120,
        )

    removed = cli("delete", "s")
    assert removed.returncode == 0 and "deleted open snapshot s (2 interactions)" in removed.stdout
    refused = cli("delete", "sealed")
    assert refused.returncode != 0 and refused.stderr.strip().splitlines()[-1].startswith("Error:")
    assert "sealed" in refused.stderr and "Traceback" not in refused.stderr
    missing = cli("delete", "nope")
    assert missing.returncode != 0 and "no snapshot 'nope'" in missing.stderr
    assert Store(store.path, readonly=True).snapshot_names() == ["sealed"]


def test_bodies_are_compressed_with_a_dictionary_trained_from_the_stores_own_bodies(tmp_path):
    store = Store(tmp_path / "d.sqlite")
    bodies = platform_bodies(200)
    append_bodies(store, bodies, tool="datagokr_get_stock_price_info", url="https://h/p?n={n}")
    codecs = dict(store.conn.execute("SELECT codec, COUNT(*) FROM blobs GROUP BY codec").fetchall())
    dictionary_codecs = [c for c in codecs if c.startswith("zstd:")]
    assert len(dictionary_codecs) == 1 and codecs[dictionary_codecs[0]] >= 100  # one datagokr dictionary
    plain = zstandard.ZstdCompressor(level=3)
    with_dictionary = store.conn.execute(
        "SELECT SUM(size), SUM(LENGTH(data)) FROM blobs WHERE codec = ?", (dictionary_codecs[0],)
    ).fetchone()
    stored_alone = sum(len(plain.compress(b)) for b in bodies[-with_dictionary[0] // len(bodies[-1]) :])
    assert with_dictionary[1] < 0.7 * stored_alone  # the dictionary earns its place
    fresh = Store(store.path, readonly=True)
    assert [
        fresh.body(i.body_digest) for i in sorted(fresh.interactions("s"), key=lambda i: int(i.request_key[1:]))
    ] == bodies
    assert fresh.verify() == []


def test_an_edited_dictionary_is_caught_never_a_wrong_answer(tmp_path):
    store = Store(tmp_path / "d.sqlite")
    append_bodies(store, platform_bodies(120))
    with pytest.raises(sqlite3.IntegrityError, match="immutable"):
        store.conn.execute("UPDATE dictionaries SET data = x'00'")
    ((ident, data),) = store.conn.execute("SELECT id, data FROM dictionaries").fetchall()
    edited = bytearray(data)
    edited[-4096:] = bytes(4096)  # the content matches refer to most, wiped
    _hack(store, f"UPDATE dictionaries SET data = x'{bytes(edited).hex()}'")
    fresh = Store(store.path, readonly=True)
    used = [d for (d,) in fresh.conn.execute("SELECT digest FROM blobs WHERE codec = ?", (f"zstd:{ident}",))]
    originals = {blob_digest(body): body for body in platform_bodies(120)}
    refused = 0
    for digest in used:
        try:
            served = fresh.body(digest)
        except StoreError as exc:
            assert digest[:12] in str(exc)
            refused += 1
        else:
            assert served == originals[digest]  # never another answer
    assert refused > 0 and fresh.verify()


def test_a_platform_whose_bodies_train_no_dictionary_is_tried_once(tmp_path, monkeypatch):
    calls = []

    def refuse(*args, **kwargs):
        calls.append(1)
        raise zstandard.ZstdError("cannot train")

    monkeypatch.setattr(zstandard, "train_dictionary", refuse)
    store = Store(tmp_path / "n.sqlite")
    bodies = platform_bodies(120)
    append_bodies(store, bodies)
    assert len(calls) == 1
    assert {c for (c,) in store.conn.execute("SELECT DISTINCT codec FROM blobs")} == {"zstd"}
    assert [store.body(blob_digest(b)) for b in bodies] == bodies


def test_a_body_committed_by_the_timer_between_read_and_lock_is_served(tmp_path, monkeypatch):
    """The race the graph pipeline test once hit: replay-or-record finds an answer whose body the commit timer
    writes (and drops from the pending list) after the first body read missed it. The second read, under the
    lock no commit runs under, must serve it — not call the store corrupt."""
    body = b'{"records": [1, 2, 3]}'
    store = Store(tmp_path / "race.sqlite")
    transport = RecordTransport(
        httpx.MockTransport(lambda request: httpx.Response(200, content=body)),
        store,
        "r",
        "replay-or-record",
        commit_every=1,
    )
    with httpx.Client(transport=transport) as client:
        assert client.get("https://example.test/a").content == body  # recorded and committed (batch of 1)
    digest = blob_digest(body)
    real_body = Store.body
    missed = []

    def first_read_misses(self, wanted, stored=None):
        if wanted == digest and not missed:  # the read that ran before the timer's commit became visible
            missed.append(wanted)
            raise StoreError(f"store {self.path} lacks body {wanted[:12]}…: the store is corrupt")
        return real_body(self, wanted, stored)

    monkeypatch.setattr(Store, "body", first_read_misses)
    core = transport._core
    assert core._pending == []
    assert core._body(digest, "t", "GET", "https://example.test/a", core.redactor) == body
    assert missed == [digest]


def _connecting(monkeypatch, adjust):
    """Every writable connection a Store opens, passed through ``adjust`` (SQLite's own limits, as a full disk or a
    read-only file would set them)."""
    original = Store._connect

    def connect(self):
        conn = original(self)
        return conn if self.readonly else adjust(self, conn)

    monkeypatch.setattr(Store, "_connect", connect)


def test_a_full_disk_while_recording_is_one_error_line_with_the_real_cause(tmp_path, monkeypatch):
    from click.testing import CliRunner

    from kopa_replay.cli import cli

    def tight(store, conn):
        pages = conn.execute("PRAGMA page_count").fetchone()[0]
        conn.execute(f"PRAGMA max_page_count = {pages + 4}")  # a disk with 16 KiB left
        return conn

    _connecting(monkeypatch, tight)
    path = tmp_path / "kopa.sqlite"
    result = CliRunner().invoke(cli, ["record", "--snapshot", "2026-09-01", "--no-bench", "--store", str(path)])
    assert result.exit_code == 1, result.output
    (line,) = result.output.strip().splitlines()
    assert line.startswith("Error: ") and "database or disk is full" in line and "run the same command again" in line
    assert "cannot rollback" not in line and "Traceback" not in result.output
    monkeypatch.undo()
    with Store(path, readonly=True) as store:  # what was committed is whole
        assert store.verify() == []


def test_a_read_only_store_under_record_mode_is_one_error_line(tmp_path, monkeypatch):
    from click.testing import CliRunner

    from kopa_replay.cli import cli

    path = tmp_path / "kopa.sqlite"
    Store(path).close()

    def read_only(store, conn):
        conn.close()
        return sqlite3.connect(f"file:{store.path}?mode=ro", uri=True, check_same_thread=False, isolation_level=None)

    _connecting(monkeypatch, read_only)
    result = CliRunner().invoke(
        cli,
        [
            "call",
            "dart_corp_code",
            "--arg",
            "corp_name=라이트론",
            "--mode",
            "record",
            "--snapshot",
            "s",
            "--store",
            str(path),
        ],
    )
    assert result.exit_code == 1, result.output
    assert result.output.startswith("Error: ") and "read-only" in result.output and "Traceback" not in result.output


@pytest.mark.parametrize("value", ["three", "", "4.0", "-1", "4²", "٤"])
def test_a_schema_version_that_is_not_a_number_is_refused_with_one_error_line(tmp_path, catalog, value):
    from click.testing import CliRunner

    from kopa_replay.cli import cli

    store = _recorded(tmp_path, catalog)
    store.close()
    _hack(store, f"UPDATE meta SET value = '{value}' WHERE key = 'schema_version'")
    for readonly in (True, False):
        with pytest.raises(StoreError, match="is not a number"):
            Store(store.path, readonly=readonly)
    result = CliRunner().invoke(cli, ["cassette", "stats", "--store", str(store.path)])
    assert result.exit_code == 1 and result.output.startswith("Error: ") and "is not a number" in result.output


@pytest.mark.parametrize("headers", ["null", "[1]", '{"content-type": 1}', "not json"])
def test_response_headers_that_are_not_an_object_of_text_are_a_store_error(tmp_path, catalog, headers):
    store = _recorded(tmp_path, catalog)
    _hack(store, f"UPDATE interactions SET response_headers = '{headers}' WHERE request_key = 'k1'")
    fresh = Store(store.path, readonly=True)
    for read in (fresh.answers, fresh.answers_and_bodies):
        with pytest.raises(StoreError, match="response headers are not a JSON object"):
            read("s", "k1")
