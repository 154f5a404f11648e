"""A store file from elsewhere is hostile input (issue 28): no edit someone holding the file can make steers a live
key, serves a forged answer or writes outside its folder.

The attacks, as someone with the file and SQLite would make them: edits with the triggers dropped and put back
(every column replay or refresh reads, the snapshot row, the seal record, every manifest field), every SQLite write
form against the triggers (INSERT OR REPLACE, REPLACE INTO, UPSERT, ALTER, a trigger of one's own), a refresh of an
edited snapshot with a live key and a listener on loopback that must receive nothing, the manifest deleted or
disagreeing, snapshot names that are paths. The one edit no check can see without a key — rows, seal record, digest
and manifest rewritten together — is caught by a digest known out of band.
"""

from __future__ import annotations

import json
import re
import shutil
import sqlite3
import threading
from pathlib import Path

import httpx
import pytest
from click.testing import CliRunner
from hostile import edit_past_triggers
from local_http import LocalApi, send

from kopa_replay.cli import cli
from kopa_replay.drift.recorded import tool_schema_digests
from kopa_replay.env import ToolEnvironment, open_source
from kopa_replay.errors import SnapshotError, StoreError, UsageError
from kopa_replay.record import Store
from kopa_replay.record.snapshots import (
    check_pinned,
    copy_store,
    load_manifest,
    manifest_path,
    seal_snapshot,
    snapshot_digest,
    verify_snapshot,
)
from kopa_replay.sim import SimTransport, Simulator
from kopa_replay.stages.workflows import refresh_snapshot

LIVE_KEY = "LIVE-0123456789-abcdefghij-KEY"
#: one tool per place a key goes: a query parameter (two platforms), a header, a path segment
CALLS = [
    ("dart_corp_code", {"corp_name": "라이트론"}),
    ("datagokr_get_stock_price_info", {"basDt": "20260831", "numOfRows": 5}),
    ("krx_stk_bydd_trd", {"basDd": "20260831"}),
    ("seoul_card_subway_stats_new", {"USE_YMD": "20260825", "START": 1, "END": 5}),
]


def _record(folder: Path, catalog, *, seal: bool) -> Path:
    """A store ``folder/cassettes/kopa.sqlite`` holding snapshot 'base': the calls above, recorded from the
    simulator (sealed with its manifest, or left open)."""
    path = folder / "cassettes" / "kopa.sqlite"
    with Store(path) as store:  # its settings, as `record` claims them
        store.ensure_snapshot("base", as_of="2026-09-01", source="sim", seed=0)
    with open_source("sim", snapshot="base", mode="record", store=path, catalog=catalog) as source:
        env = ToolEnvironment(catalog, source)
        for tool, args in CALLS:
            assert env.call(tool, dict(args)).outcome == "ok", tool
    store = Store(path)
    if seal:
        seal_snapshot(store, "base", catalog, tool_digests=tool_schema_digests)
    store.close()
    return path


@pytest.fixture(scope="module")
def sealed_store(tmp_path_factory):
    from kopa_replay.catalog import builtin_catalog

    return _record(tmp_path_factory.mktemp("sealed"), builtin_catalog(), seal=True)


@pytest.fixture
def sealed(sealed_store, tmp_path) -> Path:
    """A private copy of the sealed store, manifest included."""
    target = tmp_path / "cassettes" / "kopa.sqlite"
    shutil.copytree(sealed_store.parents[1], tmp_path, dirs_exist_ok=True)
    return target


def _pinned_refusal(path: Path, match: str | None = None) -> str:
    """The pinned replay's refusal (a SnapshotError or StoreError), and that `snapshot verify` refuses too."""
    with pytest.raises((SnapshotError, StoreError), match=match) as refused:
        with Store(path, readonly=True) as store:
            check_pinned(store, "base")
    result = CliRunner().invoke(cli, ["snapshot", "verify", "base", "--store", str(path)])
    assert result.exit_code == 1 and result.output.startswith("Error: ") and "Traceback" not in result.output
    return str(refused.value)


# -- every column replay or refresh reads, edited with the triggers dropped and put back ----------------------
@pytest.mark.parametrize(
    "statement",
    [
        "UPDATE interactions SET url = replace(url, 'https://opendart.fss.or.kr', 'http://127.0.0.1:9')",
        "UPDATE interactions SET method = 'POST' WHERE tool = 'dart_corp_code'",
        'UPDATE interactions SET request_headers = \'{"x-forward-key": "***"}\'',
        "UPDATE interactions SET tool = 'dart_company' WHERE tool = 'dart_corp_code'",
        "UPDATE interactions SET status = 500 WHERE tool = 'krx_stk_bydd_trd'",
        "UPDATE interactions SET response_headers = '{\"content-type\": \"text/html\"}' WHERE tool = 'krx_stk_bydd_trd'",
        "UPDATE snapshots SET as_of = '2027-01-01'",
        "UPDATE snapshots SET source = 'live'",
        "UPDATE snapshots SET seed = 7",
        "UPDATE snapshots SET catalog_digest = 'c0ffee'",
        "UPDATE snapshots SET seal = replace(seal, '\"seed\":0', '\"seed\":7')",
        "UPDATE snapshots SET seal = NULL",
        "UPDATE snapshots SET name = 'other'",
        "DELETE FROM interactions WHERE tool = 'seoul_card_subway_stats_new'",
    ],
)
def test_an_edit_of_anything_replay_or_refresh_reads_is_caught(sealed, statement):
    assert edit_past_triggers(sealed, statement) >= 1
    message = _pinned_refusal(sealed)
    assert "base" in message


def test_the_store_digest_and_the_seal_record_rewritten_together_still_disagree_with_the_manifest(sealed):
    """An edit that also recomputes the store's own digest (past the triggers) is caught by the manifest."""
    edit_past_triggers(sealed, "UPDATE interactions SET status = 500 WHERE tool = 'krx_stk_bydd_trd'")
    with Store(sealed, readonly=True) as store:
        digest = snapshot_digest(store, "base")
    edit_past_triggers(sealed, "UPDATE snapshots SET digest = ?", params=(digest,))
    assert "differs from the store's" in _pinned_refusal(sealed, "does not match the manifest")


@pytest.mark.parametrize(
    "field, value",
    [
        ("as_of", "2027-01-01"),
        ("created", "2027-01-01"),
        ("source", "live"),
        ("seed", 7),
        ("catalog_digest", "0" * 64),
        ("interactions", 5),
        ("digest_version", 2),
        ("tools", {}),
        ("kopa_replay", "9.9.9"),
        ("name", "other"),
        ("refresh", {"base": "2026-06-01"}),  # a field the seal did not have
    ],
)
def test_every_manifest_field_is_checked_against_the_seal(sealed, field, value):
    path = sealed.parents[1] / "snapshots" / "base.json"
    manifest = json.loads(path.read_text(encoding="utf-8"))
    path.write_text(json.dumps({**manifest, field: value}), encoding="utf-8")
    assert f"'{field}'" in _pinned_refusal(sealed, "does not match the manifest")


def test_a_manifest_field_removed_is_caught(sealed):
    path = sealed.parents[1] / "snapshots" / "base.json"
    manifest = json.loads(path.read_text(encoding="utf-8"))
    del manifest["tools"]
    path.write_text(json.dumps(manifest), encoding="utf-8")
    assert "'tools'" in _pinned_refusal(sealed)


def test_a_deleted_manifest_stops_pinned_replay_and_seal_writes_it_again_from_the_store(sealed):
    path = sealed.parents[1] / "snapshots" / "base.json"
    original = path.read_text(encoding="utf-8")
    path.unlink()
    assert "has no manifest" in _pinned_refusal(sealed)
    with pytest.raises(SnapshotError, match="has no manifest"):
        open_source("replay", snapshot="base", store=sealed)
    runner = CliRunner()
    result = runner.invoke(cli, ["snapshot", "seal", "base", "--store", str(sealed)])
    assert result.exit_code == 0, result.output
    assert json.loads(path.read_text(encoding="utf-8")) == json.loads(original)  # the seal record, exactly
    with Store(sealed, readonly=True) as store:
        assert check_pinned(store, "base") is True


def test_a_store_that_says_open_where_a_manifest_says_sealed_serves_nothing(sealed):
    """The forged-price attack: unseal the snapshot past the triggers, serve another body. Pinned replay believes
    the manifest, not the store's flag."""
    forged = b'{"status": "000", "list": [{"corp_code": "99999999", "corp_name": "\\ub77c\\uc774\\ud2b8\\ub860"}]}'
    import hashlib

    digest = hashlib.sha256(forged).hexdigest()
    edit_past_triggers(
        sealed,
        "UPDATE snapshots SET sealed = 0, digest = NULL, seal = NULL",
        f"INSERT INTO blobs VALUES ('{digest}', 'raw', {len(forged)}, x'{forged.hex()}')",
        f"UPDATE interactions SET body = '{digest}' WHERE tool = 'dart_corp_code'",
    )
    assert "the store holds it open" in _pinned_refusal(sealed, "the store was edited")
    result = CliRunner().invoke(
        cli, ["call", "dart_corp_code", "--arg", "corp_name=라이트론", "--snapshot", "base", "--store", str(sealed)]
    )
    assert result.exit_code == 1 and "99999999" not in result.output and "the store was edited" in result.output


def test_rows_seal_digest_and_manifest_rewritten_together_pass_every_check_but_a_digest_known_out_of_band(sealed):
    """The limit of an unsigned file: a consistent rewrite is another snapshot. Only --digest tells."""
    with Store(sealed, readonly=True) as store:
        genuine = store.snapshot("base").digest
    edit_past_triggers(sealed, "UPDATE interactions SET status = 500 WHERE tool = 'krx_stk_bydd_trd'")
    with Store(sealed, readonly=True) as store:
        forged = snapshot_digest(store, "base")
    edit_past_triggers(sealed, "UPDATE snapshots SET digest = ?", params=(forged,))
    path = sealed.parents[1] / "snapshots" / "base.json"
    path.write_text(json.dumps({**json.loads(path.read_text(encoding="utf-8")), "digest": forged}), encoding="utf-8")
    with Store(sealed, readonly=True) as store:
        assert verify_snapshot(store, "base") == [] and check_pinned(store, "base") is True
        with pytest.raises(SnapshotError, match="you expect"):
            check_pinned(store, "base", expected_digest=genuine)
    runner = CliRunner()
    result = runner.invoke(cli, ["snapshot", "verify", "base", "--store", str(sealed), "--digest", genuine])
    assert result.exit_code == 1 and "is not the" in result.output
    result = runner.invoke(cli, ["snapshot", "verify", "base", "--store", str(sealed), "--digest", "xyz"])
    assert result.exit_code == 1 and result.output.startswith("Error: --digest must be")


def test_a_genuine_snapshot_verifies_against_its_own_digest(sealed):
    with Store(sealed, readonly=True) as store:
        digest = store.snapshot("base").digest
    result = CliRunner().invoke(cli, ["snapshot", "verify", "base", "--store", str(sealed), "--digest", digest])
    assert result.exit_code == 0 and digest in result.output


# -- every SQLite write form against the triggers ----------------------------------------------------------------
@pytest.mark.parametrize(
    "statement",
    [
        # the sealed snapshot's row swapped for an open one
        "INSERT OR REPLACE INTO snapshots (name, sealed) VALUES ('base', 0)",
        "REPLACE INTO snapshots (name, as_of, sealed) VALUES ('base', '2026-09-01', 0)",
        "INSERT INTO snapshots (name, sealed) VALUES ('base', 0) ON CONFLICT (name) DO UPDATE SET sealed = 0",
        "UPDATE snapshots SET sealed = 0",
        "UPDATE snapshots SET seal = NULL",
        "DELETE FROM snapshots",
        # … or pushed out through the rowid a REPLACE is given (the triggers compare more than the name)
        "INSERT OR REPLACE INTO snapshots (rowid, name) SELECT rowid, 'other' FROM snapshots WHERE name = 'base'",
        # a sealed interaction replaced, moved or removed
        "INSERT OR REPLACE INTO interactions (id, snapshot, request_key, seq, method, url, request_headers, status, "
        "response_headers, body) SELECT id, 'elsewhere', request_key, seq, method, url, request_headers, 500, "
        "response_headers, body FROM interactions LIMIT 1",
        "REPLACE INTO interactions SELECT id, snapshot, request_key, seq, tool, method, url, request_headers, 500, "
        "response_headers, body FROM interactions LIMIT 1",
        "INSERT INTO interactions SELECT id, snapshot, request_key, seq, tool, method, url, request_headers, status, "
        "response_headers, body FROM interactions WHERE true ON CONFLICT DO UPDATE SET status = 500",
        "UPDATE interactions SET url = 'https://elsewhere/'",
        "DELETE FROM interactions",
        # a body or a dictionary swapped
        "INSERT OR REPLACE INTO blobs SELECT digest, 'raw', 2, x'7b7d' FROM blobs LIMIT 1",
        "REPLACE INTO blobs SELECT digest, 'raw', 2, x'7b7d' FROM blobs LIMIT 1",
        "INSERT INTO blobs SELECT digest, 'raw', 2, x'7b7d' FROM blobs WHERE true ON CONFLICT DO UPDATE SET data = x'00'",
        "UPDATE blobs SET data = x'00'",
        "DELETE FROM blobs",
        "INSERT OR REPLACE INTO blobs (rowid, digest, codec, size, data) SELECT rowid, 'x', 'raw', 1, x'00' FROM blobs "
        "LIMIT 1",
    ],
)
def test_every_write_form_is_refused_by_the_triggers(sealed, statement):
    conn = sqlite3.connect(sealed)
    with pytest.raises(sqlite3.IntegrityError, match="sealed|immutable"):
        conn.execute(statement)
    conn.close()
    with Store(sealed, readonly=True) as store:
        assert verify_snapshot(store, "base") == [] and check_pinned(store, "base") is True


def test_a_dictionary_cannot_be_replaced(tmp_path):
    store = Store(tmp_path / "s.sqlite")
    store.conn.execute("INSERT INTO dictionaries (scope, data) VALUES ('x', x'00')")
    for statement in (
        "INSERT OR REPLACE INTO dictionaries (id, scope, data) SELECT id, 'x', x'01' FROM dictionaries",
        "REPLACE INTO dictionaries (id, scope, data) SELECT id, 'x', x'01' FROM dictionaries",
        "UPDATE dictionaries SET data = x'01'",
    ):
        with pytest.raises(sqlite3.IntegrityError, match="immutable"):
            store.conn.execute(statement)
    assert store.conn.execute("SELECT data FROM dictionaries").fetchall() == [(b"\x00",)]


@pytest.mark.parametrize(
    "statements, named",
    [
        (
            ["ALTER TABLE snapshots RENAME COLUMN sealed TO was_sealed", "ALTER TABLE snapshots ADD COLUMN sealed"],
            "snapshots",
        ),
        (
            ["ALTER TABLE snapshots RENAME TO old_snapshots", "CREATE TABLE snapshots AS SELECT * FROM old_snapshots"],
            "snapshots",
        ),
        (["ALTER TABLE interactions ADD COLUMN note TEXT"], "interactions"),
        (["ALTER TABLE snapshots DROP COLUMN seal"], "snapshots"),
        (["DROP TRIGGER sealed_snapshots_stay_sealed"], "sealed_snapshots_stay_sealed"),
        (["DROP TRIGGER blobs_are_not_replaced"], "blobs_are_not_replaced"),
        # a trigger of one's own: rewrites what a user records later into this store
        (
            [
                "CREATE TRIGGER steer AFTER INSERT ON interactions BEGIN UPDATE interactions SET status = 500 "
                "WHERE id = NEW.id; END"
            ],
            "steer",
        ),
        (["CREATE VIEW answers AS SELECT * FROM interactions"], "answers"),
        # a trigger disguised with SQLite's own prefix, written straight into the schema table
        (
            [
                "PRAGMA writable_schema = ON",
                "INSERT INTO sqlite_master (type, name, tbl_name, rootpage, sql) VALUES ('trigger', 'sqlite_steer', "
                "'interactions', 0, 'CREATE TRIGGER sqlite_steer AFTER INSERT ON interactions BEGIN UPDATE interactions "
                "SET status = 999 WHERE id = NEW.id; END')",
            ],
            "sqlite_steer",
        ),
        (["CREATE TABLE extra (x)"], "extra"),
    ],
)
def test_a_schema_edit_no_trigger_sees_makes_the_store_refused_whole(sealed, statements, named):
    conn = sqlite3.connect(sealed)
    for statement in statements:
        conn.execute(statement)
    conn.commit()
    conn.close()
    for readonly in (True, False):
        with pytest.raises(StoreError, match=rf"its schema is not the one of store version 4 .*'{named}'"):
            Store(sealed, readonly=readonly)
    result = CliRunner().invoke(cli, ["record", "--snapshot", "new", "--no-bench", "--store", str(sealed)])
    assert result.exit_code == 1 and "edited outside kopa-replay" in result.output
    assert "Traceback" not in result.output


def test_our_own_writes_never_fire_the_replace_guards(tmp_path, catalog):
    """Recording the same body twice, reopening a sealed snapshot's name for recording, resuming: no trigger of
    version 4 stands in their way."""
    path = _record(tmp_path, catalog, seal=False)
    with open_source("sim", snapshot="base", mode="record", store=path, catalog=catalog) as source:
        env = ToolEnvironment(catalog, source)
        for tool, args in CALLS:  # the same answers again: resumed, nothing new written
            env.call(tool, dict(args))
    with Store(path) as store:
        seal_snapshot(store, "base", catalog, tool_digests=tool_schema_digests)
        assert store.ensure_snapshot("base").sealed  # no INSERT for a sealed row
    with open_source("sim", snapshot="base", mode="record", store=path, catalog=catalog) as source:
        assert ToolEnvironment(catalog, source).call(*CALLS[0]).outcome == "ok"  # served from the sealed snapshot


# -- a refresh of an edited snapshot never sends a key anywhere but the catalog's hosts ---------------------------
class _Listener:
    """A server on loopback that records every request it gets (the attacker's, or a spying mirror)."""

    def __init__(self, answer=None) -> None:
        self.requests: list[dict] = []
        self._lock = threading.Lock()

        def respond(handler, path, query):
            with self._lock:
                self.requests.append({"path": path, "query": query, "headers": dict(handler.headers)})
            if answer is None:
                send(handler, 200, {"ok": True})
            else:
                answer(handler, path, query)

        self.api = LocalApi(respond)

    def saw(self, text: str) -> bool:
        return any(text in json.dumps(r, ensure_ascii=False) for r in self.requests)


@pytest.fixture
def loopback_only(monkeypatch):
    """Sockets may connect to loopback only: a request meant for a real host fails here, never reaches it."""
    import socket

    connect = socket.socket.connect

    def guarded(self, address, *args, **kwargs):
        if isinstance(address, tuple) and address[0] not in ("127.0.0.1", "::1", "localhost"):
            raise OSError(f"test blocks non-loopback connection to {address!r}")
        return connect(self, address, *args, **kwargs)

    monkeypatch.setattr(socket.socket, "connect", guarded)


def _live_through(mirror: "_Listener", catalog) -> dict:
    """``refresh --source live`` with every catalog host sent to ``mirror`` (``--base-url HOST=URL``): a live
    refresh as a user runs it, on loopback — a host the catalog lacks (the attacker's) is called directly."""
    return {"source": "live", "mirrors": {tool.http.host: mirror.api.url for tool in catalog}}


def _sim_mirror():
    """A mirror in the `sim serve` scheme (``/<host>/<path>``) answering from the simulator, that records what it
    receives: where refresh sends the key, and how."""
    from kopa_replay.catalog import builtin_catalog

    simulator = Simulator(seed=0, api_key=LIVE_KEY)
    bases = {tool.http.host: tool.http.base_url for tool in builtin_catalog()}  # the mirror path names the host only

    def answer(handler, path, query):
        host, _, rest = path.lstrip("/").partition("/")
        request = httpx.Request(
            "GET",
            httpx.URL(f"{bases[host]}/{rest}", params=query),
            headers={k: v for k, v in handler.headers.items() if k.lower() == "auth_key"},
        )
        response = SimTransport(simulator).handle_request(request)
        send(handler, response.status_code, response.read(), response.headers.get("content-type", "text/plain"))

    return _Listener(answer)


@pytest.mark.parametrize(
    "statement",
    [
        # the key's host swapped for the attacker's (query key, header key, path key)
        "UPDATE interactions SET url = replace(url, 'https://opendart.fss.or.kr', '{evil}') WHERE tool = 'dart_corp_code'",
        "UPDATE interactions SET url = replace(url, 'https://data-dbg.krx.co.kr', '{evil}') WHERE tool = 'krx_stk_bydd_trd'",
        "UPDATE interactions SET url = replace(url, 'http://openapi.seoul.go.kr:8088', '{evil}') "
        "WHERE tool = 'seoul_card_subway_stats_new'",
        # the host kept, the request changed (another path, an extra parameter carrying a masked key)
        "UPDATE interactions SET url = replace(url, '/api/corpCode.xml', '/api/other.json') WHERE tool = 'dart_corp_code'",
        "UPDATE interactions SET url = url || '&callback=***' WHERE tool = 'datagokr_get_stock_price_info'",
        "UPDATE interactions SET method = 'POST' WHERE tool = 'dart_corp_code'",
        "UPDATE interactions SET tool = NULL WHERE tool = 'dart_corp_code'",
    ],
)
def test_a_refresh_of_an_edited_open_snapshot_sends_nothing_and_names_the_interaction(
    tmp_path, catalog, monkeypatch, loopback_only, statement
):
    """An open snapshot (no digest yet to catch the edit): the request is rebuilt from the catalog binding and
    checked against its recorded identity before anything is sent. (Before, the stored URL was sent with the live
    key put back into every ``***``: the attacker's listener received it.)"""
    monkeypatch.setenv("KOPA_API_KEY", LIVE_KEY)
    path = _record(tmp_path, catalog, seal=False)
    attacker, mirror = _Listener(), _sim_mirror()
    with attacker.api, mirror.api:
        assert edit_past_triggers(path, statement.format(evil=attacker.api.url)) == 1
        try:
            refresh_snapshot(catalog, store_path=path, base="base", snapshot="new", **_live_through(mirror, catalog))
            refused = ""
        except SnapshotError as exc:
            refused = str(exc)
    assert not attacker.saw(LIVE_KEY), f"the live key reached the attacker's listener: {attacker.requests}"
    assert attacker.requests == [] and mirror.requests == []  # checked before anything was sent
    assert re.search(r"snapshot 'base', interaction .* #1 \(request [0-9a-f]{12}…", refused), refused
    assert LIVE_KEY not in refused
    with Store(path, readonly=True) as store:
        assert "new" not in store.snapshot_names()


def test_a_refresh_sends_the_key_only_where_the_catalog_binds_it_never_a_stored_header(
    tmp_path, catalog, monkeypatch, loopback_only
):
    """Stored request headers are never sent again (an edited one could carry the key anywhere): the request is the
    binding's, and the key goes where the catalog puts it — a query parameter, the AUTH_KEY header, a path segment."""
    monkeypatch.setenv("KOPA_API_KEY", LIVE_KEY)
    path = _record(tmp_path, catalog, seal=False)
    edit_past_triggers(path, 'UPDATE interactions SET request_headers = \'{"x-forwarded-key": "***", "host": "evil"}\'')
    mirror = _sim_mirror()
    with mirror.api:
        summary = refresh_snapshot(
            catalog, store_path=path, base="base", snapshot="new", **_live_through(mirror, catalog)
        )
    assert sum(summary.outcomes.values()) == len(mirror.requests) >= len(CALLS)
    for request in mirror.requests:
        assert "x-forwarded-key" not in {k.lower() for k in request["headers"]}
        assert request["headers"].get("Host") != "evil"
        host = request["path"].lstrip("/").split("/", 1)[0]
        in_query = [k for k, v in request["query"].items() if v == LIVE_KEY]
        in_header = [k for k, v in request["headers"].items() if v == LIVE_KEY]
        in_path = LIVE_KEY in request["path"]
        expected = {
            "opendart.fss.or.kr": (["crtfc_key"], [], False),
            "apis.data.go.kr": (["serviceKey"], [], False),
            "data-dbg.krx.co.kr": ([], ["AUTH_KEY"], False),
            "openapi.seoul.go.kr": ([], [], True),
        }[host]
        assert (in_query, [k.upper() for k in in_header], in_path) == expected, request
    with Store(path, readonly=True) as store:
        stored = [json.dumps([i.url, dict(i.request_headers)]) for i in store.interactions("new")]
    assert stored and not any(LIVE_KEY in text for text in stored)


def test_a_refresh_of_an_edited_sealed_snapshot_is_refused_before_anything_is_sent(
    sealed, catalog, monkeypatch, loopback_only
):
    monkeypatch.setenv("KOPA_API_KEY", LIVE_KEY)
    attacker = _Listener()
    with attacker.api:
        edit_past_triggers(
            sealed, f"UPDATE interactions SET url = replace(url, 'https://opendart.fss.or.kr', '{attacker.api.url}')"
        )
        with pytest.raises(SnapshotError, match="the store was edited"):
            refresh_snapshot(
                catalog, store_path=sealed, base="base", snapshot="new", **_live_through(attacker, catalog)
            )
        result = CliRunner().invoke(
            cli,
            ["refresh", "--store", str(sealed), "--base", "base", "--snapshot", "new2", "--as-of", "2026-12-01"],
        )
    assert result.exit_code == 1 and "the store was edited" in result.output
    assert attacker.requests == []


# -- snapshot names are never paths ------------------------------------------------------------------------------
@pytest.mark.parametrize("name", ["../../../x", "/abs/x", "a/b", "..", ".hidden", "-flag", "a" * 300, "", "a b", "ä"])
def test_a_snapshot_name_that_is_no_safe_file_name_is_refused_everywhere(tmp_path, sealed, name):
    runner = CliRunner()
    store = tmp_path / "new" / "kopa.sqlite"
    commands = [
        ["record", f"--snapshot={name}", "--no-bench", "--store", str(store)],
        ["refresh", "--base", "base", f"--snapshot={name}", "--as-of", "2026-12-01", "--store", str(sealed)],
        ["refresh", f"--base={name}", "--snapshot", "fine", "--as-of", "2026-12-01", "--store", str(sealed)],
        ["snapshot", "seal", "--store", str(sealed), "--", name],
        ["cassette", "merge", str(sealed), f"--snapshot={name}", "--store", str(store)],
    ]
    for command in commands:
        result = runner.invoke(cli, command)
        assert result.exit_code == 1, (command, result.output)
        assert result.output.startswith("Error: ") and "Traceback" not in result.output, result.output
    assert not store.exists()  # refused before a store was made
    written = {p for p in tmp_path.rglob("*") if p.is_file()}
    assert all(tmp_path in p.parents for p in written)
    assert not (tmp_path.parent / "x").exists() and not Path("/abs/x").exists()
    with Store(sealed) as opened:
        with pytest.raises(UsageError, match="snapshot name|needs a name"):
            opened.ensure_snapshot(name)
        with pytest.raises(UsageError, match="snapshot name|needs a name"):
            manifest_path(opened, name)
        with pytest.raises(UsageError, match="snapshot name|needs a name"):
            opened.append_many(name, [])


def test_a_hostile_store_whose_snapshot_is_named_like_a_path_cannot_write_its_manifest(tmp_path, catalog):
    path = _record(tmp_path, catalog, seal=False)
    edit_past_triggers(
        path, "UPDATE snapshots SET name = '../../escape'", "UPDATE interactions SET snapshot = '../../escape'"
    )
    with Store(path) as store:
        with pytest.raises(UsageError, match="not allowed"):
            seal_snapshot(store, "../../escape", catalog, tool_digests=tool_schema_digests)
        with pytest.raises(UsageError):
            load_manifest(store, "../../escape")
    assert not (tmp_path.parent / "escape.json").exists()


def test_a_replay_of_an_open_snapshot_says_nothing_pins_it(tmp_path, catalog):
    """An open snapshot without a manifest is a working cassette (the pytest plugin's): replayed, and said so."""
    path = _record(tmp_path, catalog, seal=False)
    result = CliRunner().invoke(
        cli, ["call", "dart_corp_code", "--arg", "corp_name=라이트론", "--snapshot", "base", "--store", str(path)]
    )
    assert result.exit_code == 0, result.output
    assert "snapshot base is open (not sealed)" in result.stderr and "open" not in result.stdout
    with Store(path, readonly=True) as store:
        assert check_pinned(store, "base") is False
        with pytest.raises(SnapshotError, match="no digest to compare"):
            check_pinned(store, "base", expected_digest="0" * 64)


def test_cassette_copy_brings_the_manifests_a_pinned_replay_needs(tmp_path, sealed):
    runner = CliRunner()
    target = tmp_path / "mine" / "cassettes" / "kopa.sqlite"
    result = runner.invoke(cli, ["cassette", "copy", str(sealed), str(target), "--json"])
    assert result.exit_code == 0, result.output
    copied = json.loads(result.stdout)
    assert copied["manifests"] == ["base"] and Path(copied["manifest_dir"]) == tmp_path / "mine" / "snapshots"
    with Store(target, readonly=True) as store:
        assert check_pinned(store, "base") is True
    plain = (
        tmp_path / "elsewhere" / "plain.sqlite"
    )  # a copy without its manifests is refused by pinned replay, and says how
    plain.parent.mkdir()
    shutil.copyfile(sealed, plain)
    with Store(plain, readonly=True) as store, pytest.raises(SnapshotError, match="kopa-replay cassette copy"):
        check_pinned(store, "base")
    shipped = tmp_path / "shipped.sqlite"
    assert runner.invoke(cli, ["cassette", "copy", "--shipped", str(shipped)]).exit_code == 0
    with Store(shipped, readonly=True) as store:
        assert check_pinned(store, "2026-09-01") is True
    for args, message in (
        (["cassette", "copy", str(sealed), str(target)], "exists: copy a store into a new file"),
        (["cassette", "copy", str(target)], "SOURCE TARGET, or --shipped TARGET"),
        (["cassette", "copy", "--shipped", str(sealed), str(tmp_path / "x.sqlite")], "SOURCE TARGET, or --shipped"),
        (["cassette", "copy", str(tmp_path / "none.sqlite"), str(tmp_path / "y.sqlite")], "does not exist"),
    ):
        result = runner.invoke(cli, args)
        assert result.exit_code == 1 and result.output.startswith("Error: ") and message in result.output, args


def test_sealing_again_never_overwrites_a_manifest_that_disagrees_with_the_store(sealed, catalog):
    """A manifest is the evidence against a store rewritten with its digest: a seal (a recording or a merge run
    again) leaves a consistent one as it is, refuses one that disagrees, and only --force replaces it."""
    path = sealed.parents[1] / "snapshots" / "base.json"
    genuine = path.read_text(encoding="utf-8")
    runner = CliRunner()
    assert runner.invoke(cli, ["snapshot", "seal", "base", "--store", str(sealed)]).exit_code == 0
    assert path.read_text(encoding="utf-8") == genuine
    edited = json.dumps({**json.loads(genuine), "seed": 7})
    path.write_text(edited, encoding="utf-8")
    result = runner.invoke(cli, ["snapshot", "seal", "base", "--store", str(sealed)])
    assert result.exit_code == 1 and "disagrees with the store" in result.output and "'seed'" in result.output
    assert path.read_text(encoding="utf-8") == edited  # left as evidence
    result = runner.invoke(cli, ["snapshot", "seal", "base", "--force", "--store", str(sealed)])
    assert result.exit_code == 0, result.output
    assert json.loads(path.read_text(encoding="utf-8")) == json.loads(genuine)


def test_a_digest_known_out_of_band_must_be_given_whole(sealed):
    with Store(sealed, readonly=True) as store:
        digest = store.snapshot("base").digest
    for given in (digest[:12], digest[:63], digest + "0", "z" * 64):
        result = CliRunner().invoke(cli, ["snapshot", "verify", "base", "--store", str(sealed), "--digest", given])
        assert result.exit_code == 1 and "whole digest (64 hex characters)" in result.output, given
    upper = CliRunner().invoke(cli, ["snapshot", "verify", "base", "--store", str(sealed), "--digest", digest.upper()])
    assert upper.exit_code == 0, upper.output


def test_a_store_without_a_schema_version_is_checked_once_upgraded(tmp_path):
    path = tmp_path / "odd.sqlite"
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
    conn.execute("INSERT INTO meta VALUES ('application', 'kopa-replay cassette store')")
    conn.execute("CREATE TRIGGER steer AFTER INSERT ON meta BEGIN DELETE FROM meta WHERE key = 'x'; END")
    conn.commit()
    conn.close()
    with pytest.raises(StoreError, match="'steer' not one of kopa-replay's"):
        Store(path)


def test_copy_store_never_overwrites_another_stores_manifest(tmp_path, sealed):
    other = tmp_path / "cassettes" / "mine.sqlite"  # beside the sealed store: one snapshots/ folder for both
    path = sealed.parents[1] / "snapshots" / "base.json"
    assert copy_store(sealed, other) == ["base"]  # the same manifest: nothing is changed
    path.write_text(json.dumps({**json.loads(path.read_text(encoding="utf-8")), "seed": 7}), encoding="utf-8")
    from kopa_replay.catalog import builtin_catalog

    elsewhere = _record(tmp_path / "x", builtin_catalog(), seal=True)
    before = path.read_text(encoding="utf-8")
    with pytest.raises(UsageError, match="another store's"):
        copy_store(elsewhere, tmp_path / "cassettes" / "third.sqlite")
    assert path.read_text(encoding="utf-8") == before and not (tmp_path / "cassettes" / "third.sqlite").exists()


def test_a_short_key_masked_in_a_stored_value_is_said_so_by_refresh(tmp_path, catalog, monkeypatch):
    """A key shorter than 6 characters is masked where it is a whole value (Seoul's START=1 beside a key "1"): the
    stored URL then cannot rebuild its request, and the refresh says why, sending nothing."""
    monkeypatch.setenv("KOPA_API_KEY", "1")
    path = tmp_path / "cassettes" / "kopa.sqlite"
    with open_source("sim", snapshot="base", mode="record", store=path, catalog=catalog) as source:
        assert ToolEnvironment(catalog, source).call(*CALLS[3]).outcome == "ok"
    with Store(path, readonly=True) as store:
        assert "/***/json/CardSubwayStatsNew/***/5/" in next(store.interactions("base")).url
    with pytest.raises(SnapshotError, match="shorter than 6 characters"):
        refresh_snapshot(catalog, store_path=path, base="base", snapshot="new", source="sim")


def test_a_refresh_goes_where_the_catalog_now_sends_a_tool(tmp_path, monkeypatch, loopback_only):
    """A platform that moved since the recording (the catalog's base URL changed) is refreshed at its new address:
    the identity is checked where the request was recorded, the request sent where the catalog says."""
    import yaml

    from kopa_replay.catalog import load_catalog

    def catalog_at(url):
        document = {
            "platform": {
                "id": "acme",
                "domain": "finance",
                "base_url": url,
                "auth": {"location": "query", "name": "apikey", "env": "ACME_KEY"},
                "format": "json",
                "envelope": {"records": "items", "code": "code"},
                "result_codes": {"0": "ok"},
            },
            "tools": [
                {
                    "name": "acme_quotes",
                    "title": "시세",
                    "description": {"ko": "시세", "en": "quotes"},
                    "http": {"path": "/v1/quotes"},
                    "params": {"day": {"type": "string", "description": "day"}},
                    "output": {"close": "closing price"},
                    "examples": [{"day": "20260831"}],
                }
            ],
        }
        file = tmp_path / f"acme-{len(list(tmp_path.glob('acme-*')))}.yaml"
        file.write_text(yaml.safe_dump(document), encoding="utf-8")
        return load_catalog([file])

    monkeypatch.setenv("ACME_KEY", LIVE_KEY)
    old, new = (
        _Listener(lambda h, p, q: send(h, 200, {"code": "0", "items": [{"close": "1"}]})),
        _Listener(lambda h, p, q: send(h, 200, {"code": "0", "items": [{"close": "2"}]})),
    )
    store = tmp_path / "cassettes" / "kopa.sqlite"
    with old.api, new.api:
        recorded = catalog_at(old.api.url)
        with open_source("live", snapshot="base", mode="record", store=store, catalog=recorded) as source:
            assert ToolEnvironment(recorded, source).call("acme_quotes", {"day": "20260831"}).outcome == "ok"
        moved = catalog_at(new.api.url)
        summary = refresh_snapshot(moved, store_path=store, base="base", snapshot="new", source="live")
    assert len(old.requests) == 1 and len(new.requests) == 1 and summary.outcomes == {"200": 1}
    assert new.requests[0]["query"] == {"apikey": LIVE_KEY, "day": "20260831"}
