"""ToolEnvironment: validated, replayed, paginated, retried calls with a state log; the async twin."""

from __future__ import annotations

import asyncio

import httpx
import pytest

from kopa_replay.env import Source
from kopa_replay.env.environment import (
    AsyncSource,
    AsyncToolEnvironment,
    LogEntry,
    ToolEnvironment,
    ToolResult,
    result_digest,
    validate_args,
)
from kopa_replay.errors import CassetteMiss, UnknownTool
from kopa_replay.sim import AsyncSimTransport, SimTransport, Simulator
from kopa_replay.text import as_number

KEY = "sim-key"
STOCK = "datagokr_get_stock_price_info"
LIGHTRON = [
    ("dart_corp_code", {"corp_name": "라이트론"}),
    ("dart_cvbd_is_decsn", {"corp_code": "00439743", "bgn_de": "20260101", "end_de": "20260131"}),
    (STOCK, {"srtnCd": "069540", "basDt": "20260831"}),
]


class Counting(httpx.BaseTransport):
    def __init__(self, inner: httpx.BaseTransport) -> None:
        self.inner, self.requests = inner, []

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        return self.inner.handle_request(request)


@pytest.fixture
def counted(catalog):
    transport = Counting(SimTransport(Simulator(seed=0)))
    env = ToolEnvironment(catalog, Source("sim", httpx.Client(transport=transport), KEY))
    yield env, transport
    env.source.close()


def lightron(env: ToolEnvironment) -> tuple[int, int, float]:
    found = env.call(*LIGHTRON[0])
    corp = next(r for r in found.records if r["corp_name"] == "라이트론")
    bonds = env.call("dart_cvbd_is_decsn", {**LIGHTRON[1][1], "corp_code": corp["corp_code"]})
    prices = env.call(STOCK, {"srtnCd": corp["stock_code"], "basDt": "20260831"})
    floor = as_number(bonds.records[0]["act_mktprcfl_cvprc_lwtrsprc"])
    close = as_number(prices.records[0]["clpr"])
    return floor, close, (close - floor) / floor * 100


def test_lightron_chain_replays_offline_from_the_shipped_snapshot(no_network):
    with ToolEnvironment.open() as env:
        floor, close, premium = lightron(env)
        assert env.source.details["mode"] == "replay"
        assert [e.outcome for e in env.log] == ["ok", "ok", "ok"]
    assert (floor, close) == (532, 1680)
    assert premium == pytest.approx((1680 - 532) / 532 * 100) and f"{premium:.3f}" == "215.789"
    assert no_network == []


def test_a_result_carries_records_page_outcome_and_digest(no_network):
    with ToolEnvironment.open() as env:
        result = env.call(STOCK, {"srtnCd": "069540", "basDt": "20260831"})
    assert isinstance(result, ToolResult) and result.ok
    assert result.records[0]["clpr"] == "1680" and result.total_count == 1
    assert result.page == {"page": 1, "size": 10} and result.code == "00" and result.status == 200
    assert result.digest == result_digest(STOCK, "ok", "00", result.records)
    with pytest.raises(AttributeError):
        result.outcome = "empty"  # frozen


def test_strict_replay_misses_loudly_and_unknown_tools_raise(no_network):
    with ToolEnvironment.open() as env:
        with pytest.raises(CassetteMiss, match="dart_company"):
            env.call("dart_company", {"corp_code": "00000001"})
        with pytest.raises(UnknownTool, match="no tool named 'dart_corpcode'"):
            env.call("dart_corpcode", {})
        assert env.log == ()


@pytest.mark.parametrize(
    "args, needle",
    [
        ({"srtnCd": "69540"}, "parameter 'srtnCd' does not match pattern"),
        ({"numOfRows": "abc"}, "parameter 'numOfRows' must be an integer, not 'abc'"),
        ({"numOfRows": 0}, "parameter 'numOfRows' must be at least 1"),
        ({"numOfRows": 5000}, "parameter 'numOfRows' must be at most 1000"),
        ({"pageNo": True}, "parameter 'pageNo' must be an integer"),
        ({"srtnCd": ["069540"]}, "parameter 'srtnCd' must be a string"),
        ({"basDt": "20261399"}, "parameter 'basDt' does not match pattern"),
        ({"srtnCode": "069540"}, "unknown parameter 'srtnCode'"),
    ],
)
def test_invalid_arguments_are_structural_errors_and_send_nothing(counted, args, needle):
    env, transport = counted
    result = env.call(STOCK, args)
    assert result.outcome == "structural_error" and needle in result.message
    assert result.status == 0 and result.attempts == 0 and result.records == []
    assert transport.requests == []
    assert env.log[-1].outcome == "structural_error"


def test_required_and_enum_are_checked(catalog, counted):
    env, transport = counted
    required = next(t for t in catalog if t.required)
    result = env.call(required.name, {})
    assert (
        result.outcome == "structural_error"
        and f"missing required parameter {required.required[0]!r}" in result.message
    )
    tool, name = next((t, n) for t in catalog for n, p in t.input_schema["properties"].items() if "enum" in p)
    _, problem = validate_args(tool, {**{r: "x" for r in tool.required if r != name}, name: "not-in-enum"})
    assert problem and f"parameter {name!r} must be one of" in problem
    assert transport.requests == []


def test_strings_are_coerced_to_the_schema_types(catalog, counted):
    env, transport = counted
    coerced, problem = validate_args(
        catalog.get(STOCK), {"numOfRows": "5", "pageNo": 1.0, "basDt": 20260831, "srtnCd": None}
    )
    assert problem is None and coerced == {"numOfRows": 5, "pageNo": 1, "basDt": "20260831"}
    as_text = env.call(STOCK, {"basDt": "20260831", "numOfRows": "5"})
    as_int = env.call(STOCK, {"basDt": "20260831", "numOfRows": 5})
    assert as_text.ok and as_text.digest == as_int.digest and len(as_text.records) == 5
    assert transport.requests[0].url == transport.requests[1].url
    assert env.log[0].args == env.log[1].args == (("basDt", "20260831"), ("numOfRows", 5))


def test_each_outcome_family_on_one_tool(counted):
    env, _ = counted
    ok = env.call(STOCK, {"srtnCd": "069540", "basDt": "20260831"})
    empty = env.call(STOCK, {"srtnCd": "069540", "basDt": "20260830"})  # a Sunday: no prices
    structural = env.call(STOCK, {"srtnCd": "069540", "basDt": "20260231"})  # passes the pattern, no such day
    env.source.sim_key = "not-a-key"
    environmental = env.call(STOCK, {"srtnCd": "069540", "basDt": "20260831"})
    assert (ok.outcome, ok.code) == ("ok", "00")
    assert (empty.outcome, empty.code, empty.records) == ("empty", "00", [])
    assert (structural.outcome, structural.code) == ("structural_error", "10")
    assert (environmental.outcome, environmental.code) == ("environmental_error", "30")
    assert "SERVICE_KEY" in environmental.message


def test_blank_values_are_none_and_numbers_stay_strings(counted):
    env, _ = counted
    result = env.call(STOCK, {"basDt": "20260831", "numOfRows": 100})
    assert all(isinstance(r["clpr"], str) for r in result.records)
    assert not any(isinstance(v, str) and not v.strip() for r in result.records for v in r.values())


def test_fetch_all_pages_through_more_than_500_records(counted):
    env, transport = counted
    result = env.fetch_all("gg_pharmacy", {"pSize": 100})
    assert result.ok and result.complete and result.total_count == 896
    assert len(result.records) == 896 and result.pages == 9 == len(transport.requests)
    assert [e.args for e in env.log][:2] == [(("pSize", 100),), (("pIndex", 2), ("pSize", 100))]
    ranged = env.fetch_all("seoul_card_subway_stats_new", {"USE_YMD": "20260825", "START": 1, "END": 100})
    assert ranged.ok and ranged.total_count == len(ranged.records) == 580 and ranged.pages == 6
    assert dict(env.log[-1].args)["START"] == 501 and dict(env.log[-1].args)["END"] == 600


def test_fetch_pages_gives_each_page_and_the_sum_fetch_all_gives(counted):
    env, transport = counted
    read = env.fetch_pages("gg_pharmacy", {"pSize": 100}, max_pages=4)
    assert [len(p.records) for p in read.pages] == [100] * 4 and len(transport.requests) == 4
    assert read.records == [r for p in read.pages for r in p.records] and not read.complete and read.ok
    merged = env.fetch_all("gg_pharmacy", {"pSize": 100}, max_pages=4)
    assert merged.records == read.records and merged.pages == 4 and merged.complete is False
    missing = env.fetch_pages("dart_company", {"corp_code": "99999999"})
    assert len(missing.pages) == 1 and not missing.ok


def test_fetch_all_reduces_over_every_listed_stock(counted):
    env, _ = counted
    every = env.fetch_all(STOCK, {"basDt": "20260831", "numOfRows": 100})
    listed = Simulator(seed=0).world.finance.listed  # the world's register of listed companies, read apart
    assert every.total_count == len(every.records) == len({r["srtnCd"] for r in every.records}) == len(listed)
    top = max(every.records, key=lambda r: as_number(r["clpr"]))
    single = env.call(STOCK, {"srtnCd": top["srtnCd"], "basDt": "20260831"})
    assert single.records[0]["clpr"] == top["clpr"]
    assert as_number(top["clpr"]) == max(as_number(r["clpr"]) for r in every.records)


def test_fetch_all_stops_at_its_page_budget(counted):
    env, transport = counted
    result = env.fetch_all("gg_pharmacy", {"pSize": 100}, max_pages=3)
    assert result.pages == 3 and len(result.records) == 300 and not result.complete
    assert len(transport.requests) == 3


def test_retries_back_off_and_are_counted_only_when_asked(catalog):
    calls = [(STOCK, {"basDt": "20260831", "numOfRows": 10, "pageNo": n}) for n in range(1, 16)]
    raw = ToolEnvironment.open(catalog, source="sim", fault_rate=0.5)
    first_try = [raw.call(name, args) for name, args in calls]
    failed = [r for r in first_try if r.outcome == "environmental_error"]
    assert failed and all(r.attempts == 1 for r in first_try)  # off by default: raw outcomes
    sleeps: list[float] = []
    env = ToolEnvironment.open(catalog, source="sim", fault_rate=0.5, retries=8, sleep=sleeps.append, backoff=0.1)
    results = [env.call(name, args) for name, args in calls]
    assert all(r.ok for r in results)
    assert sum(r.attempts - 1 for r in results) == len(sleeps) >= len(failed)
    position = 0
    for result in results:  # each retried call slept 0.1, 0.2, 0.4 … before its retries
        assert sleeps[position : position + result.attempts - 1] == [0.1 * 2**i for i in range(result.attempts - 1)]
        position += result.attempts - 1
    assert [e.attempts for e in env.log] == [r.attempts for r in results]
    raw.close(), env.close()


def test_state_digest_is_reproducible_and_reset_empties_the_log(no_network):
    def run() -> ToolEnvironment:
        env = ToolEnvironment.open()
        lightron(env)
        return env

    one, two = run(), run()
    assert one.state_digest() == two.state_digest()
    assert all(isinstance(e, LogEntry) for e in one.log) and len(one.log) == 3
    with pytest.raises(AttributeError):
        one.log[0].outcome = "empty"
    two.call(STOCK, {"srtnCd": "69540"})  # one more call (invalid, so nothing is sent to the snapshot)
    assert one.state_digest() != two.state_digest()
    fresh = ToolEnvironment.open()
    two.reset()
    assert two.log == () and two.state_digest() == fresh.state_digest()
    for env in (one, two, fresh):
        env.close()


class Slow(httpx.AsyncBaseTransport):
    """The async simulator, with a pause so calls overlap; records the most in flight at once."""

    def __init__(self) -> None:
        self.inner, self.in_flight, self.most = AsyncSimTransport(Simulator(seed=0)), 0, 0

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        self.in_flight += 1
        self.most = max(self.most, self.in_flight)
        try:
            await asyncio.sleep(0.02)
            return await self.inner.handle_async_request(request)
        finally:
            self.in_flight -= 1


@pytest.mark.parametrize("concurrency", [5, 2])
def test_async_fan_out_of_five_parallel_calls(catalog, concurrency):
    transport = Slow()
    calls = [(STOCK, {"basDt": "20260831", "numOfRows": 20, "pageNo": n}) for n in range(1, 6)]

    async def run():
        env = AsyncToolEnvironment(
            catalog, AsyncSource("sim", httpx.AsyncClient(transport=transport), KEY), owns_source=True
        )
        async with env:
            return env, await env.gather(calls, concurrency=concurrency)

    env, results = asyncio.run(run())
    assert transport.most == concurrency
    assert [r.outcome for r in results] == ["ok"] * 5
    assert len({r["srtnCd"] for r in results for r in r.records}) == 100
    assert [dict(e.args)["pageNo"] for e in env.log] == [1, 2, 3, 4, 5]
    sync = ToolEnvironment(catalog, Source("sim", httpx.Client(transport=SimTransport(Simulator(seed=0))), KEY))
    for name, args in calls:
        sync.call(name, args)
    assert sync.state_digest() == env.state_digest()


def test_async_twin_replays_the_snapshot_and_pages(catalog, no_network):
    async def run():
        async with AsyncToolEnvironment.open(catalog) as env:
            results = await env.gather(LIGHTRON)
            return env.state_digest(), results

    digest, results = asyncio.run(run())
    assert results[1].records[0]["act_mktprcfl_cvprc_lwtrsprc"] == "532" and results[2].records[0]["clpr"] == "1680"
    with ToolEnvironment.open(catalog) as env:
        for name, args in LIGHTRON:
            env.call(name, args)
        assert env.state_digest() == digest

    async def paged():
        async with AsyncToolEnvironment.open(catalog, source="sim") as env:
            return await env.fetch_all("gg_pharmacy", {"pSize": 100})

    assert len(asyncio.run(paged()).records) == 896


# -- the replay fast path ------------------------------------------------------
def _answered_by(env: ToolEnvironment) -> list[bool]:
    """Wrap the source's fast path; the list says, per call, whether it answered (True) or passed (False)."""
    answered: list[bool] = []
    inner = env.source.replayer

    def counting(*args):
        got = inner(*args)
        answered.append(got is not None)
        return got

    env.source.replayer = counting
    return answered


def test_the_fast_path_answers_every_recorded_call_exactly_as_httpx_replay_does(catalog, no_network):
    from kopa_replay.stages.probes import probe_requests

    calls = probe_requests(catalog)
    with ToolEnvironment.open(catalog) as fast, ToolEnvironment.open(catalog) as slow:
        answered = _answered_by(fast)
        slow.source.replayer = None  # every call through httpx and RecordTransport.handle_request
        for name, args in calls:
            one, other = fast.call(name, args), slow.call(name, args)
            assert one == other, name
        assert answered == [True] * len(calls)  # same request keys: nothing fell back to the client
        assert fast.state_digest() == slow.state_digest()
    assert no_network == []


def test_memoized_records_are_copies_the_caller_may_change(no_network):
    with ToolEnvironment.open() as env:
        first = env.call(STOCK, {"srtnCd": "069540", "basDt": "20260831"})
        first.records[0]["clpr"] = "0"
        first.records.clear()
        again = env.call(STOCK, {"srtnCd": "069540", "basDt": "20260831"})
    assert again.records[0]["clpr"] == "1680" and again.digest == result_digest(STOCK, "ok", "00", again.records)


def test_nested_records_are_copied_too(tmp_path, catalog):
    from kopa_replay.env.core import _fresh

    value = [{"a": [1, {"b": None}], "c": {"d": ["x"]}}]
    copy = _fresh(value)
    assert copy == value
    copy[0]["a"][1]["b"] = 2
    copy[0]["c"]["d"].append("y")
    assert value == [{"a": [1, {"b": None}], "c": {"d": ["x"]}}]


def test_the_memo_stays_within_its_record_budget(monkeypatch, catalog, no_network):
    from kopa_replay.env import core
    from kopa_replay.stages.probes import probe_requests

    monkeypatch.setattr(core, "MEMO_RECORDS", 300)
    calls = probe_requests(catalog)
    with ToolEnvironment.open(catalog) as bounded, ToolEnvironment.open(catalog) as plain:
        plain.source.replayer = None
        for name, args in calls + calls:
            assert bounded.call(name, args) == plain.call(name, args)
            memo = bounded._core._memo
            assert sum(len(r.records) for r in memo.values()) == bounded._core._memo_records <= 300
        assert memo  # small answers were kept


def test_a_miss_on_the_fast_path_still_fails_loudly(no_network):
    with ToolEnvironment.open() as env:
        answered = _answered_by(env)
        with pytest.raises(CassetteMiss):
            env.call(STOCK, {"srtnCd": "069540", "basDt": "20250101"})
    assert answered == [False]


def test_replay_or_record_falls_back_to_the_source_and_then_replays(tmp_path, catalog):
    from kopa_replay.env import open_source

    store = tmp_path / "kopa.sqlite"
    args = {"srtnCd": "069540", "basDt": "20260831"}
    with open_source("sim", snapshot="s", mode="replay-or-record", store=store, catalog=catalog) as source:
        env = ToolEnvironment(catalog, source)
        answered = _answered_by(env)
        recorded, replayed = env.call(STOCK, args), env.call(STOCK, args)
    assert answered == [False, True]
    assert recorded == replayed and replayed.records[0]["clpr"] == "1680"


# -- records over the redacted state -------------------------------------------------
LAW = ("law_search_law", {"query": "도로교통법"})


@pytest.mark.parametrize("custom", [None, "law-key-from-env"])
def test_a_key_echoed_in_a_body_is_masked_whichever_source_answers(tmp_path, catalog, monkeypatch, custom):
    from kopa_replay.env import build_request, open_source
    from kopa_replay.sim import accepted_key, running_server

    if custom:
        monkeypatch.setenv("KOPA_API_KEY", custom)  # the key the simulator accepts and the sources send
    key = accepted_key()
    assert key == (custom or KEY)
    tool = catalog.get(LAW[0])
    method, url, headers, _ = build_request(tool, LAW[1], key)
    with httpx.Client(transport=SimTransport(Simulator(seed=0))) as raw:
        assert key in raw.request(method, url, headers=headers).text  # law.go.kr echoes the caller's OC

    store = tmp_path / "kopa.sqlite"
    answers: dict[str, ToolResult] = {}
    with ToolEnvironment.open(catalog, source="sim") as env:
        answers["sim"] = env.call(*LAW)
    with ToolEnvironment.open(catalog, source="sim", snapshot="s", mode="record", store=store) as env:
        answers["record"] = env.call(*LAW)
    with ToolEnvironment.open(catalog, source="replay", snapshot="s", store=store) as env:
        answers["replay"] = env.call(*LAW)
    with (
        running_server(Simulator(seed=0)) as base,
        ToolEnvironment(catalog, open_source(base), owns_source=True) as env,
    ):
        answers["loopback"] = env.call(*LAW)

    async def on_async_sim() -> ToolResult:
        async with AsyncToolEnvironment.open(catalog, source="sim") as env:
            return (await env.gather([LAW]))[0]

    answers["async sim"] = asyncio.run(on_async_sim())

    replayed = answers["replay"]
    assert replayed.outcome == "ok" and replayed.records
    assert all("OC=***&" in record["법령상세링크"] for record in replayed.records)
    for name, answer in answers.items():
        assert answer.records == replayed.records, name
        assert answer.digest == replayed.digest == result_digest(LAW[0], "ok", answer.code, answer.records), name
        assert not [v for r in answer.records for v in r.values() if isinstance(v, str) and key in v], name


def test_the_same_calls_give_the_same_state_digest_from_the_simulator_and_its_snapshot(tmp_path, catalog):
    calls = [LAW, ("law_get_law", {"MST": "106607"}), ("law_search_prec", {"query": "도로교통법"}), LIGHTRON[2]]
    digests = []
    with (
        ToolEnvironment.open(catalog, source="sim", snapshot="s", mode="record", store=tmp_path / "k.sqlite") as rec,
        ToolEnvironment.open(catalog, source="sim") as sim,
    ):
        for name, args in calls:
            rec.call(name, args)
            sim.call(name, args)
        digests += [rec.state_digest(), sim.state_digest()]
    with ToolEnvironment.open(catalog, snapshot="s", store=tmp_path / "k.sqlite") as replay:
        for name, args in calls:
            replay.call(name, args)
        digests.append(replay.state_digest())
    assert len(set(digests)) == 1


def test_stored_bodies_hold_no_key_so_replay_need_not_mask_them_again():
    # The replay fast path hands stored bodies to the parser unscanned; this is what makes that safe.
    from kopa_replay.record import Store, default_store_path

    with Store(default_store_path(), readonly=True) as store:
        bodies = {i.body_digest for i in store.interactions("2026-09-01")}
        assert bodies
        assert [d for d in bodies if KEY.encode() in store.body(d)] == []
