"""What a recording leaves out because the platform's answer was blocked: remembered, never stored, never a
key's carrier, never a way for a store from elsewhere to steer a request; the same recording run again finishes."""

from __future__ import annotations

import json
import sqlite3

import anyio
import httpx
import pytest

from kopa_replay.catalog import builtin_catalog
from kopa_replay.catalog.model import Catalog
from kopa_replay.env.async_ import AsyncToolEnvironment
from kopa_replay.env.recording import blocked_answer
from kopa_replay.errors import SnapshotError
from kopa_replay.record.store import Store
from kopa_replay.stages.workflows import record_snapshot, refresh_snapshot

_BUILTIN = builtin_catalog()
LAW = Catalog([_BUILTIN.get(name) for name in ("law_search_law", "law_get_law")])


def _no_sleep(seconds: float) -> None:
    return None


@pytest.fixture
def where(tmp_path):
    store = tmp_path / "kopa.sqlite"
    return {"store_path": store, "source": "sim:default", "manifest_dir": tmp_path / "snapshots", "sleep": _no_sleep}


def test_a_finished_recording_run_again_leaves_the_same_out_and_a_resume_that_fills_them_says_none(where):
    first = record_snapshot(LAW, snapshot="walled", as_of="2026-09-01", incidents="bot_wall=1", **where)
    again = record_snapshot(LAW, snapshot="walled", as_of="2026-09-01", incidents="bot_wall=1", **where)
    assert first.left_out and again.left_out == first.left_out and again.outcomes == first.outcomes
    refreshed = refresh_snapshot(
        LAW, base="walled", snapshot="still", as_of="2026-09-01", incidents="bot_wall=1", **where
    )
    rerun = refresh_snapshot(LAW, base="walled", snapshot="still", as_of="2026-09-01", incidents="bot_wall=1", **where)
    assert rerun.left_out == refreshed.left_out and refreshed.manifest["refresh"]["added"] >= 0
    # an open recording that met the wall, resumed when the wall is gone: nothing is left out any more
    record_snapshot(LAW, snapshot="open", as_of="2026-09-01", incidents="html_page=1", seal=False, **where)
    resumed = record_snapshot(LAW, snapshot="open", as_of="2026-09-01", **where)
    assert resumed.left_out == [] and resumed.manifest["refresh"]["left_out"] == []


def test_an_edited_store_cannot_add_a_request_to_a_sealed_snapshots_left_out(where):
    record_snapshot(LAW, snapshot="walled", as_of="2026-09-01", incidents="bot_wall=1", **where)
    with sqlite3.connect(where["store_path"]) as conn:
        (key, value) = conn.execute("SELECT key, value FROM meta WHERE value LIKE '%left_out%'").fetchone()
        provenance = json.loads(value)
        provenance["left_out"].append({**provenance["left_out"][0], "args": {"query": "STEERED-BY-STORE"}})
        conn.execute("UPDATE meta SET value = ? WHERE key = ?", (json.dumps(provenance), key))
    # the manifest, checked against the seal, says what was left out: the store's own copy is not read
    refreshed = refresh_snapshot(LAW, base="walled", snapshot="later", as_of="2026-09-01", **where)
    with Store(where["store_path"], readonly=True) as store:
        sent = [it.url for it in store.interactions("later")]
    assert refreshed.left_out == [] and not any("STEERED" in url for url in sent)
    # a provenance that is not a JSON object is an edit, said as one
    with sqlite3.connect(where["store_path"]) as conn:
        conn.execute("UPDATE meta SET value = '[1, 2]' WHERE key = ?", (key,))
    with Store(where["store_path"], readonly=True) as store, pytest.raises(SnapshotError, match="not a JSON object"):
        store.provenance("walled")


def test_an_async_recording_keeps_a_blocked_answer_out_of_the_store(tmp_path):
    store = tmp_path / "kopa.sqlite"

    async def calls():
        async with AsyncToolEnvironment.open(
            LAW, source="sim", snapshot="s", mode="record", store=store, incidents="bot_wall=1@www.law.go.kr"
        ) as env:
            return await env.call("law_get_law", {"MST": "106607"})

    result = anyio.run(calls)
    assert result.outcome == "blocked_error" and "Access Denied" in str(result.message)
    with Store(store, readonly=True) as opened:
        assert list(opened.interactions("s")) == []


def test_the_evidence_never_carries_a_key_the_wall_echoed():
    key = "SECRETKEY1234567890ab"
    request = httpx.Request(
        "GET",
        f"https://www.law.go.kr/DRF/lawService.do?OC={key}",
        extensions={"kopa_tool": "law_get_law", "kopa_secrets": (key,)},
    )
    for title in (f"Denied https://www.law.go.kr/DRF/lawService.do?OC={key}", f"{'x' * 50}{key}"):
        evidence = blocked_answer(LAW)(request, httpx.Response(403, content=f"<title>{title}</title>".encode()))
        assert evidence is not None and "HTML page" in evidence
        assert key[:6] not in evidence, evidence  # masked before the title is cut, so no piece of it survives
