"""Recording and refreshing under every incident kind: nothing blocked is sealed as a tool's answer, what a retry
can fix is fixed, no echoed key reaches the store, and a later refresh fills what was left out.

Each recording is a few tools of the platform the kind strikes (law.go.kr; the data.go.kr gateway for its own
kinds), the incident at rate 1, through the library with the retries' waits skipped. The simulator's key is one
of our own (KOPA_API_KEY), so a search of the store for it means something: law.go.kr's answers echo it in their
links, and key_echo in a header.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kopa_replay.catalog import builtin_catalog
from kopa_replay.catalog.model import Catalog
from kopa_replay.env.call import interpret
from kopa_replay.record.store import Store
from kopa_replay.sim import Simulator, running_server
from kopa_replay.sim.incidents import GATEWAY_HOST, INCIDENT_KINDS
from kopa_replay.stages.probes import probe_requests
from kopa_replay.stages.workflows import record_snapshot, refresh_snapshot

KEY = "incident-refresh-key-5f3a9c1e72"
AS_OF = "2026-09-01"
SOURCE = "sim:default"
_BUILTIN = builtin_catalog()
#: JSON search and body, and the history search that answers an HTML page as its data
LAW = Catalog([_BUILTIN.get(name) for name in ("law_search_law", "law_get_law", "law_search_ls_history")])
#: one JSON and one XML tool behind the gateway
GATEWAY = Catalog(
    [
        next(t for t in _BUILTIN if t.http.host == GATEWAY_HOST and t.http.format == fmt and t.examples)
        for fmt in ("json", "xml")
    ]
)
GATEWAY_CODES = {"gateway_key_unregistered": "30", "gateway_quota": "22", "gateway_access_denied": "20"}


@pytest.fixture(autouse=True)
def own_key(monkeypatch):
    monkeypatch.setenv("KOPA_API_KEY", KEY)


def _no_sleep(seconds: float) -> None:
    return None


def _catalog(kind: str) -> Catalog:
    return GATEWAY if INCIDENT_KINDS[kind].gateway else LAW


def _stored(store_path: Path, snapshot: str, catalog: Catalog) -> list[tuple[str, object]]:
    """(request URL, how its tool reads the stored answer) of every interaction of ``snapshot``."""
    with Store(store_path, readonly=True) as store:
        return [
            (
                it.url,
                interpret(catalog.get(it.tool), {}, it.status, store.body(it.body_digest), "", it.content_type),
            )
            for it in store.interactions(snapshot)
        ]


def _assert_key_nowhere(folder: Path, store_path: Path) -> None:
    """Not in any file under ``folder`` (the store, its side files, the manifests), nor in any stored body."""
    files = [p for p in folder.rglob("*") if p.is_file()]
    assert store_path in files and any(p.suffix == ".json" for p in files)
    for path in files:
        assert KEY.encode() not in path.read_bytes(), path
    with Store(store_path, readonly=True) as store:
        for name in store.snapshot_names():
            for it in store.interactions(name):
                assert KEY.encode() not in store.body(it.body_digest), it.url
                assert KEY not in json.dumps([it.url, dict(it.request_headers), dict(it.response_headers)])


@pytest.mark.parametrize("kind", sorted(INCIDENT_KINDS))
def test_a_recording_under_an_incident_seals_nothing_blocked_and_a_refresh_fills_it(tmp_path, kind):
    catalog, truth = _catalog(kind), INCIDENT_KINDS[kind].truth
    store_path, manifests = tmp_path / "kopa.sqlite", tmp_path / "manifests"
    probes = probe_requests(catalog)
    recorded = record_snapshot(
        catalog,
        store_path=store_path,
        snapshot="under",
        as_of=AS_OF,
        source=SOURCE,
        incidents=f"{kind}=1",
        sleep=_no_sleep,
        manifest_dir=manifests,
    )
    stored = _stored(store_path, "under", catalog)
    assert all(result.outcome in ("ok", "empty", "environmental_error") for _, result in stored), stored
    if truth == "blocked":
        # every probe met it and none was recorded: each is remembered with its evidence, by the manifest too
        assert stored == [] and recorded.outcomes == {"blocked_error": len(probes)}
        assert sorted(json.dumps([e["tool"], e["args"]], sort_keys=True) for e in recorded.left_out) == sorted(
            json.dumps([tool, args], sort_keys=True) for tool, args in probes
        )
        assert all(e["class"] == "blocked" and e["evidence"] for e in recorded.left_out)
        assert all("=***" in e["request"] for e in recorded.left_out)
        manifest = json.loads((manifests / "under.json").read_text(encoding="utf-8"))
        assert json.dumps(recorded.left_out, sort_keys=True) in json.dumps(manifest, sort_keys=True)
    elif truth == "environmental":
        assert recorded.left_out == []
        if kind == "retry_storm":  # three 503s, then the answer: the retries recovered every request
            assert recorded.outcomes == {"ok": len(probes)}
            assert [r.outcome for _, r in stored] == ["ok"] * len(probes)
        else:  # the gateway's own error, by its code: recorded as what it is (the platform said it)
            assert {(r.outcome, r.code) for _, r in stored} == {("environmental_error", GATEWAY_CODES[kind])}
    else:  # key_echo: the answers, sealed, and the Link header that echoed the key kept with the key masked
        assert recorded.left_out == [] and [r.outcome for _, r in stored] == ["ok"] * len(probes)
        with Store(store_path, readonly=True) as store:
            links = [dict(it.response_headers).get("link", "") for it in store.interactions("under")]
        assert links and all("OC=***" in link and 'rel="self"' in link for link in links), links
    _assert_key_nowhere(tmp_path, store_path)

    refreshed = refresh_snapshot(
        catalog,
        store_path=store_path,
        base="under",
        snapshot="after",
        as_of=AS_OF,
        source=SOURCE,
        sleep=_no_sleep,
        manifest_dir=manifests,
    )
    after = _stored(store_path, "after", catalog)
    assert refreshed.left_out == [] and [r.outcome for _, r in after] == ["ok"] * len(probes)
    if truth == "blocked":  # the left-out requests, sent again: answered and held by the new snapshot
        assert refreshed.outcomes == {"ok": len(probes)}
        assert sorted(url for url, _ in after) == sorted(e["request"].removeprefix("GET ") for e in recorded.left_out)
    _assert_key_nowhere(tmp_path, store_path)


def test_a_refresh_over_http_under_a_bot_wall_keeps_it_out_and_the_next_fills_it(tmp_path):
    store_path, manifests = tmp_path / "kopa.sqlite", tmp_path / "manifests"
    probes = probe_requests(LAW)
    record_snapshot(LAW, store_path=store_path, snapshot="base", as_of=AS_OF, source=SOURCE, manifest_dir=manifests)
    with running_server(Simulator(as_of=AS_OF, world_size="default", incidents="bot_wall=1")) as url:
        walled = refresh_snapshot(
            LAW,
            store_path=store_path,
            base="base",
            snapshot="walled",
            as_of=AS_OF,
            source=url,
            sleep=_no_sleep,
            manifest_dir=manifests,
        )
    assert walled.outcomes == {"blocked_error": len(probes)} and _stored(store_path, "walled", LAW) == []
    assert {e["evidence"] for e in walled.left_out} == {
        "an HTML page (HTTP 403, title 'Access Denied') where JSON was expected"
    }
    manifest = json.loads((manifests / "walled.json").read_text(encoding="utf-8"))
    assert manifest["refresh"]["left_out"] == walled.left_out

    with running_server(Simulator(as_of=AS_OF, world_size="default")) as url:
        filled = refresh_snapshot(
            LAW,
            store_path=store_path,
            base="walled",
            snapshot="filled",
            as_of=AS_OF,
            source=url,
            sleep=_no_sleep,
            manifest_dir=manifests,
        )
    assert filled.left_out == [] and filled.outcomes == {"ok": len(probes)}
    with Store(store_path, readonly=True) as store:
        base = sorted((it.url, it.body_digest) for it in store.interactions("base"))
        again = sorted((it.url, it.body_digest) for it in store.interactions("filled"))
    assert again == base  # the same answers as before the wall, byte for byte
    _assert_key_nowhere(tmp_path, store_path)


@pytest.mark.parametrize("kind", sorted(INCIDENT_KINDS))
def test_a_refresh_reports_each_incident_apart_from_drift(tmp_path, kind):
    """A refresh of a clean snapshot meets the incident (no timeline drift between the two dates, so any change
    would be the incident misread): no schema or request change, no data change; what it left out or could not get
    is in the incidents (noise), by its class, with its evidence. (The other way, 0 drift as incidents:
    tests/record/test_refresh.py's timeline refresh reports no incident.)"""
    catalog = _catalog(kind)
    store_path, manifests = tmp_path / "kopa.sqlite", tmp_path / "snapshots"
    common = {"store_path": store_path, "source": SOURCE, "manifest_dir": manifests, "sleep": _no_sleep}
    record_snapshot(catalog, snapshot="clean", as_of=AS_OF, **common)
    met = refresh_snapshot(
        catalog, base="clean", snapshot="met", as_of=AS_OF, incidents=f"{kind}=1", retries=0, **common
    )
    report = met.report
    assert report.changes == () and report.data == (), [c.to_dict() for c in report.changes]
    truth = INCIDENT_KINDS[kind].truth
    if truth == "ok":
        assert report.noise == ()
    else:
        assert report.noise and {c.kind for c in report.noise} == {truth}
        requests = {r for c in report.noise for r in c.requests}
        if truth == "blocked":  # every request left out, each reported with the evidence the refresh met
            assert {e["request"] for e in met.left_out} == requests and len(requests) == met.calls
            assert all("blocked answer" in c.message and "expected" in c.message for c in report.noise)
        else:  # recorded as the failure it got (no retries here): the same requests, said as environmental
            assert len(requests) == met.calls and not met.left_out
