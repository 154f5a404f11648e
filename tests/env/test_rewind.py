"""``rewind``: an environment answers as if freshly opened (call log, recorder occurrences, simulator attempts)."""

from __future__ import annotations

import asyncio

from kopa_replay.env import AsyncToolEnvironment, ToolEnvironment

STOCK = "datagokr_get_stock_price_info"
# one request asked again and again, and a second one between: the n-th asking is its n-th occurrence
CALLS = [(STOCK, {"srtnCd": "069540", "basDt": "20260831"})] * 6 + [("dart_corp_code", {"corp_name": "라이트론"})] * 3


def answers(env: ToolEnvironment) -> list[tuple[str, str]]:
    return [(result.outcome, result.digest) for result in (env.call(name, args) for name, args in CALLS)]


def test_rewind_on_the_faulty_simulator_answers_as_a_fresh_environment(catalog):
    with ToolEnvironment.open(catalog, source="sim", fault_rate=0.3, seed=2) as fresh:
        expected = answers(fresh)
    assert len({outcome for outcome, _ in expected}) > 1  # the faults differ by attempt: the test can tell
    with ToolEnvironment.open(catalog, source="sim", fault_rate=0.3, seed=2) as env:
        assert answers(env) == expected
        env.reset()  # the log only: the simulator goes on counting attempts
        assert answers(env) != expected
        env.rewind()
        assert env.log == ()
        assert answers(env) == expected
        assert [entry.digest for entry in env.log] == [digest for _, digest in expected]


def test_rewind_replays_a_snapshot_from_each_request_first_recorded_answer(catalog, tmp_path, no_network):
    store = tmp_path / "rewind.sqlite"
    # recording the faulty simulator stores one answer per occurrence: several, differing, for one request
    with ToolEnvironment.open(
        catalog, source="sim", fault_rate=0.3, seed=2, snapshot="rewind", mode="record", store=store
    ) as recorder:
        recorded = answers(recorder)
    assert len(set(recorded[:6])) > 1 and len(set(recorded[6:])) > 1

    def replay() -> ToolEnvironment:
        return ToolEnvironment.open(catalog, source="replay", snapshot="rewind", store=store)

    with replay() as fresh:
        assert answers(fresh) == recorded
    with replay() as env:
        answers(env)
        env.reset()
        # without a rewind replay goes on past the recorded answers (it repeats each request's last one)
        assert answers(env) != recorded
        env.rewind()
        assert answers(env) == recorded
        env.rewind()
        assert answers(env) == recorded


def test_the_async_environment_rewinds_the_same_way(catalog):
    async def run() -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
        async with AsyncToolEnvironment.open(catalog, source="sim", fault_rate=0.3, seed=2) as env:
            first = [(r.outcome, r.digest) for r in [await env.call(name, args) for name, args in CALLS]]
            env.rewind()
            again = [(r.outcome, r.digest) for r in [await env.call(name, args) for name, args in CALLS]]
            return first, again

    first, again = asyncio.run(run())
    with ToolEnvironment.open(catalog, source="sim", fault_rate=0.3, seed=2) as fresh:
        assert first == again == answers(fresh)
