"""Per-host rate limits: the pure decision (properties), the in-process limiter on a driven clock, and the
limited transports against a real ``sim serve`` server used as the mirror of a live host."""

from __future__ import annotations

import asyncio
import math
import pickle
import threading
import time

import httpx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kopa_replay.catalog import builtin_catalog
from kopa_replay.catalog.model import RateLimit
from kopa_replay.env.limits import (
    DAY,
    HostLimiter,
    InProcessLimiter,
    LimitedTransport,
    live_limiter,
    next_start,
)
from kopa_replay.env.source import inner_transport, open_async_source, open_source
from kopa_replay.errors import SourceError
from kopa_replay.sim import Simulator, accepted_key
from kopa_replay.sim.server import serving

DART = "opendart.fss.or.kr"
COMPANY = f"https://{DART}/api/company.json"
PARAMS = {"crtfc_key": accepted_key(), "corp_code": "00439743"}


# -- the decision --------------------------------------------------------------------------------------------------
def _schedule(limit: RateLimit, requests: list[tuple[float, float]]) -> tuple[list[float], list[float]]:
    """Start times and end times of requests arriving ``gap`` after the one before and lasting ``duration``, each
    started when :func:`next_start` says (a request finding the host full waits for the next end)."""
    now, starts, ends = 0.0, [], []
    for gap, duration in requests:
        now += gap
        while (at := next_start(limit, starts, sum(end > now for end in ends), now)) is None:
            now = min(end for end in ends if end > now)  # only a release makes room
        assert at >= now
        starts.append(at)
        ends.append(at + duration)
    return starts, ends


@settings(max_examples=300, deadline=None)
@given(
    rps=st.integers(1, 20).map(float) | st.floats(0.2, 50),
    concurrency=st.integers(1, 4),
    daily=st.none() | st.integers(1, 6),
    requests=st.lists(st.tuples(st.floats(0, 3), st.floats(0, 5)), min_size=1, max_size=40),
)
def test_starts_never_exceed_the_rate_the_concurrency_or_the_daily_limit(rps, concurrency, daily, requests):
    limit = RateLimit(rps, concurrency, daily)
    starts, ends = _schedule(limit, requests)
    tolerance = 1e-9  # start times are sums of floats
    for first, second in zip(starts, starts[1:]):
        assert second - first >= limit.interval - tolerance
    for s in starts:
        in_second = sum(s <= t < s + 1 - tolerance for t in starts)
        assert in_second <= math.ceil(rps)  # never more than rps starts in any 1-second window
        assert sum(a <= s < b for a, b in zip(starts, ends)) <= concurrency  # never more in flight
        if daily is not None:
            assert sum(s <= t < s + DAY - tolerance for t in starts) <= daily


def test_the_decision_is_the_earliest_time_the_limits_allow():
    limit = RateLimit(2, 2, 3)
    assert next_start(limit, [], 0, 10.0) == 10.0
    assert next_start(limit, [9.8], 1, 10.0) == pytest.approx(10.3)
    assert next_start(limit, [1.0], 1, 10.0) == 10.0
    assert next_start(limit, [9.8], 2, 10.0) is None  # full: time alone never makes room
    assert next_start(limit, [5.0, 6.0, 7.0], 0, 10.0) == 5.0 + DAY  # the day's three are spent


# -- the in-process limiter on a driven clock ----------------------------------------------------------------------
class Clock:
    def __init__(self) -> None:
        self.now, self.slept = 0.0, []

    def time(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.now += seconds


def test_the_limiter_spaces_starts_and_refuses_a_spent_day_without_reserving():
    clock = Clock()
    limiter = InProcessLimiter({"a.example": RateLimit(4, 1, 3)}, clock=clock.time, sleep=clock.sleep, max_wait=60)
    assert isinstance(limiter, HostLimiter)
    for _ in range(3):
        limiter.acquire("A.Example")  # hosts are case-insensitive
        limiter.release("a.example")
    assert clock.slept == [0.25, 0.25]
    with pytest.raises(SourceError, match=r"a\.example: the daily limit of 3 requests .* used up"):
        limiter.acquire("a.example")
    clock.now += DAY  # a day on, the refused request took nothing: the host is free again
    assert limiter.reserve("a.example") == 0.0


def test_a_full_host_reserves_nothing_until_a_release_and_unlimited_hosts_pass():
    clock = Clock()
    limiter = InProcessLimiter({"a.example": RateLimit(1000, 1)}, clock=clock.time, sleep=clock.sleep)
    limiter.acquire("a.example")
    assert limiter.reserve("a.example") is None
    limiter.release("a.example")
    assert limiter.reserve("a.example") == pytest.approx(0.001)
    limiter.acquire("elsewhere.example")
    limiter.release("elsewhere.example")
    assert clock.slept == [] and limiter.limits == {"a.example": RateLimit(1000, 1)}


def test_an_in_process_limiter_refuses_to_be_copied_into_another_process():
    with pytest.raises(TypeError, match="limits one process"):
        pickle.dumps(InProcessLimiter({"a.example": RateLimit(1, 1)}))


# -- which sources are limited by default ---------------------------------------------------------------------------
def test_live_is_limited_by_the_catalog_except_hosts_sent_to_a_mirror():
    catalog = builtin_catalog()
    inner = inner_transport("live", catalog=catalog)
    assert isinstance(inner.transport, LimitedTransport)
    assert inner.transport.limiter.limits == catalog.rate_limits()
    assert DART not in live_limiter(catalog, {DART: "http://127.0.0.1:1"}).limits
    assert live_limiter(catalog, {"*": "http://127.0.0.1:1"}).limits == {}
    # a mirror URL is ours: unlimited unless a limiter is given; sim sends nothing anywhere
    assert not isinstance(inner_transport("http://127.0.0.1:1").transport, LimitedTransport)
    given_one = InProcessLimiter({})
    assert inner_transport("http://127.0.0.1:1", limiter=given_one).transport.limiter is given_one
    assert not isinstance(inner_transport("sim").transport, LimitedTransport)


# -- against a real server -------------------------------------------------------------------------------------------
def test_threads_sharing_a_live_source_keep_to_one_request_in_flight():
    limiter = InProcessLimiter({DART: RateLimit(1000, 1)})
    with serving(Simulator(seed=0), latency_ms=30) as server:
        with open_source("live", mirrors={DART: server.url}, limiter=limiter) as source:
            statuses: list[int] = []

            def call() -> None:
                statuses.append(source.client.get(COMPANY, params=PARAMS).status_code)

            threads = [threading.Thread(target=call) for _ in range(6)]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
        assert statuses == [200] * 6
        for _ in range(500):  # the server counts an answer once its last byte is out; a client can be back first
            if server.answered == 6:
                break
            time.sleep(0.01)
        assert (server.answered, server.peak_in_flight) == (6, 1)


def test_async_calls_on_a_limited_live_source_keep_to_one_in_flight():
    limiter = InProcessLimiter({DART: RateLimit(1000, 1)})

    async def calls(url: str) -> list[int]:
        async with open_async_source("live", mirrors={DART: url}, limiter=limiter) as source:
            answers = await asyncio.gather(*(source.client.get(COMPANY, params=PARAMS) for _ in range(6)))
        return [answer.status_code for answer in answers]

    with serving(Simulator(seed=0), latency_ms=30) as server:
        assert asyncio.run(calls(server.url)) == [200] * 6
        assert (server.answered, server.peak_in_flight) == (6, 1)


def test_a_request_that_fails_gives_its_start_back():
    limiter = InProcessLimiter({DART: RateLimit(1000, 1)})
    with serving(Simulator(seed=0)) as server:
        url = server.url
    # the server is gone: the request fails, and the next one may still start
    with open_source("live", mirrors={DART: url}, limiter=limiter) as source:
        for _ in range(2):
            with pytest.raises(httpx.ConnectError):
                source.client.get(COMPANY, params=PARAMS)
    assert limiter.reserve(DART) is not None
