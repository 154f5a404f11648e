"""The sync and async environments are two drivers of one core: the same calls give the same results, logs
and sleeps from every kind of source; the async path takes mirrors and mirror URLs as the sync one does."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kopa_replay.env import AsyncToolEnvironment, ToolEnvironment
from kopa_replay.env.core import PageRead, ToolResult

STOCK = "datagokr_get_stock_price_info"
#: tools of four platforms: page and range pagination, JSON and XML, one unpaged with a required parameter
TOOLS = (STOCK, "gg_pharmacy", "law_search_law", "seoul_card_subway_stats_new", "dart_company")
#: values an argument may take beside the examples': valid, out of range, of the wrong type, absent
ODD_VALUES = (None, 0, 1, 3, 1000, "abc", "20260831", True)


def run_both(catalog, calls: list[tuple[str, str, dict[str, Any]]], **open_kwargs) -> tuple[list, list]:
    """Each (verb, tool, args) through a sync and an async environment opened alike: (results, log + digest)."""
    sync_sleeps: list[float] = []
    async_sleeps: list[float] = []
    with ToolEnvironment.open(catalog, sleep=sync_sleeps.append, **open_kwargs) as env:
        sync = [getattr(env, verb)(name, args) for verb, name, args in calls]
        sync_state = [env.log, env.state_digest(), sync_sleeps]

    async def drive() -> tuple[list, list]:
        async with AsyncToolEnvironment.open(catalog, sleep=async_sleeps.append, **open_kwargs) as env:
            results = [await getattr(env, verb)(name, args) for verb, name, args in calls]
            return results, [env.log, env.state_digest(), async_sleeps]

    return (sync, sync_state), asyncio.run(drive())


@st.composite
def calls(draw, catalog) -> list[tuple[str, str, dict[str, Any]]]:
    out = []
    for _ in range(draw(st.integers(1, 3))):
        tool = catalog.get(draw(st.sampled_from(TOOLS)))
        args = dict(draw(st.sampled_from([dict(a) for a in tool.examples])))
        for name in draw(st.lists(st.sampled_from(sorted(tool.params)), max_size=2, unique=True)):
            args[name] = draw(st.sampled_from(ODD_VALUES))
        verb = draw(st.sampled_from(["call", "call", "fetch_all", "fetch_pages"]))
        out.append((verb, tool.name, args))
    return out


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_sync_and_async_give_identical_results_logs_and_sleeps(catalog, data):
    drawn = data.draw(calls(catalog))
    # faults on, retries on: the retry decisions and their backoff must agree too
    (sync, sync_state), (async_, async_state) = run_both(
        catalog, drawn, source="sim", fault_rate=0.3, retries=2, backoff=0.01
    )
    assert async_ == sync
    assert async_state == sync_state
    assert all(isinstance(r, PageRead if verb == "fetch_pages" else ToolResult) for r, (verb, _, _) in zip(sync, drawn))


def test_the_twins_agree_on_the_shipped_snapshot(catalog, no_network):
    from kopa_replay.stages.probes import probe_requests

    workload = [("call", name, args) for name, args in probe_requests(catalog)]
    workload += [("call", STOCK, {"srtnCd": "69540"}), ("call", "dart_company", {})]  # refused before sending
    (sync, sync_state), (async_, async_state) = run_both(catalog, workload, source="replay")
    assert async_ == sync and async_state == sync_state
    assert len(sync) == len(workload) and {r.outcome for r in sync} == {"ok", "structural_error"}
    assert no_network == []


# -- the async path over every kind of source --------------------------------------
LAW = ("law_search_law", {"query": "도로교통법"})
CALLS = [(STOCK, {"srtnCd": "069540", "basDt": "20260831"}), LAW, ("gg_pharmacy", {"pSize": 100, "pIndex": 2})]


async def _answers(catalog, **open_kwargs) -> tuple[list, str]:
    async with AsyncToolEnvironment.open(catalog, **open_kwargs) as env:
        results = await env.gather(CALLS)
        paged = await env.fetch_all("gg_pharmacy", {"pSize": 300})
        return [*results, paged], env.state_digest()


def test_async_mirror_url_answers_like_the_in_process_simulator(catalog, server_url):
    over_http, digest = asyncio.run(_answers(catalog, source=server_url))
    in_process, expected = asyncio.run(_answers(catalog, source="sim"))
    assert [r.outcome for r in over_http] == ["ok"] * 4 and over_http[0].records[0]["clpr"] == "1680"
    assert over_http == in_process and digest == expected
    assert len(over_http[-1].records) == 896 and over_http[-1].pages == 3


def test_async_live_source_sends_mirrored_hosts_to_the_mirror(catalog, server_url, monkeypatch):
    monkeypatch.setenv("KOPA_API_KEY", "sim-key")  # the live key each platform's call carries (read per call)
    stock_host = catalog.get(STOCK).http.host

    async def run() -> tuple[Any, Any]:
        async with AsyncToolEnvironment.open(catalog, source="live", mirrors={stock_host: server_url}) as env:
            return await env.call(*CALLS[0]), env.source.details

    result, details = asyncio.run(run())
    assert result.ok and result.records[0]["clpr"] == "1680" and details == {"source": "live"}


def test_async_records_from_a_mirror_url_and_replays_offline(catalog, server_url, tmp_path):
    store = tmp_path / "k.sqlite"
    recorded, digest = asyncio.run(_answers(catalog, source=server_url, snapshot="m", mode="record", store=store))
    replayed, again = asyncio.run(_answers(catalog, source="replay", snapshot="m", store=store))
    assert replayed == recorded and again == digest
    with ToolEnvironment.open(catalog, snapshot="m", store=store) as env:  # the sync twin reads the same snapshot
        for name, args in CALLS:
            env.call(name, args)
        env.fetch_all("gg_pharmacy", {"pSize": 300})
        assert env.state_digest() == digest


def test_async_sim_replay_or_record_falls_back_then_replays(catalog, tmp_path):
    store = tmp_path / "k.sqlite"

    async def run() -> list:
        async with AsyncToolEnvironment.open(
            catalog, source="sim", snapshot="s", mode="replay-or-record", store=store
        ) as env:
            assert env.source.name == "sim+replay-or-record" and env.source.replayer is not None
            return [await env.call(*LAW), await env.call(*LAW)]

    first, second = asyncio.run(run())
    assert first == second and first.ok


@pytest.mark.parametrize("opener", ["sync", "async"])
def test_both_environments_refuse_an_unknown_source_by_name(catalog, opener):
    from kopa_replay.errors import UsageError

    with pytest.raises(UsageError, match=r"unknown source 'simm': use 'sim', 'live', 'replay' or the URL of a mirror"):
        if opener == "sync":
            ToolEnvironment.open(catalog, source="simm")
        else:
            AsyncToolEnvironment.open(catalog, source="simm")
