"""Refresh retries environmental failures before recording: the new snapshot holds what a retry gets.

The real case: a refresh through `sim serve --fault-rate 0.1` used to seal 5xx/429 answers (and platforms'
rate-limit / maintenance codes) in place of good ones, so replaying the refreshed snapshot served failures.
"""

from __future__ import annotations

import email.utils

import httpx
import pytest
from hypothesis import given
from hypothesis import strategies as st

from kopa_replay.record import Store
from kopa_replay.record.retry import RetryTransport, retry_after, retry_delay
from kopa_replay.sim import Simulator, running_server
from kopa_replay.stages.workflows import environmental_answer, record_snapshot, refresh_snapshot


@given(
    attempt=st.integers(1, 12),
    asked=st.one_of(st.none(), st.floats(0, 1e4)),
    backoff=st.floats(0, 10),
    cap=st.floats(0, 60),
)
def test_the_delay_doubles_honours_retry_after_and_is_capped(attempt, asked, backoff, cap):
    delay = retry_delay(attempt, asked, backoff, cap)
    assert 0 <= delay <= cap
    assert delay == min(cap, max(backoff * 2 ** (attempt - 1), asked or 0))
    if attempt > 1:
        assert delay >= retry_delay(attempt - 1, asked, backoff, cap)  # never shorter than the one before


@given(seconds=st.integers(0, 10**6), now=st.floats(1e9, 2e9))
def test_retry_after_reads_seconds_and_http_dates(seconds, now):
    assert retry_after({"Retry-After": str(seconds)}, now) == seconds
    date = email.utils.formatdate(int(now) + seconds, usegmt=True)
    assert retry_after({"retry-after": date}, int(now)) == pytest.approx(seconds, abs=1)
    assert retry_after({"Retry-After": email.utils.formatdate(now - 100, usegmt=True)}, now) == 0.0
    assert retry_after({}, now) is None and retry_after({"Retry-After": "soon"}, now) is None


def test_a_retry_answer_is_what_goes_on_and_waits_are_the_asked_ones():
    answers = iter(
        [httpx.Response(429, headers={"Retry-After": "7"}), httpx.Response(503), httpx.Response(200, content=b"ok")]
    )
    slept: list[float] = []
    transport = RetryTransport(
        httpx.MockTransport(lambda request: next(answers)), retries=3, backoff=0.5, sleep=slept.append
    )
    with httpx.Client(transport=transport) as client:
        assert client.get("https://example.test/x").content == b"ok"
    assert slept == [7.0, 1.0] and transport.stats.to_dict() == {"retried": 1, "recovered": 1, "still_failing": 0}
    always = RetryTransport(
        httpx.MockTransport(lambda request: httpx.Response(502)), retries=2, backoff=0, sleep=slept.append
    )
    with httpx.Client(transport=always) as client:
        assert client.get("https://example.test/y").status_code == 502  # the last answer, after 2 retries
    assert always.stats.to_dict() == {"retried": 1, "recovered": 0, "still_failing": 1}


def _failures(store: Store, snapshot: str, catalog) -> int:
    """Recorded answers the catalog calls environmental: read back from the store, request by request."""
    judge = environmental_answer(catalog)
    count = 0
    for item in store.interactions(snapshot):
        request = httpx.Request(item.method, "https://example.test/", extensions={"kopa_tool": item.tool})
        response = httpx.Response(item.status, content=store.body(item.body_digest))
        count += judge(request, response)
    return count


def test_refresh_through_a_faulty_server_records_what_a_retry_gets(catalog, tmp_path):
    path = tmp_path / "kopa.sqlite"
    record_snapshot(catalog, store_path=path, snapshot="base", source="sim", as_of="2026-09-01")
    with running_server(Simulator(seed=0, as_of="2026-09-01", fault_rate=0.1)) as url:
        without = refresh_snapshot(
            catalog, store_path=path, base="base", snapshot="no-retry", source=url, as_of="2026-09-01", retries=0
        )
        with_retries = refresh_snapshot(
            catalog,
            store_path=path,
            base="base",
            snapshot="retried",
            source=url,
            as_of="2026-09-01",
            retries=4,
            retry_backoff=0,
            sleep=lambda s: None,
        )
    with Store(path, readonly=True) as store:
        noisy, clean = _failures(store, "no-retry", catalog), _failures(store, "retried", catalog)
        base = _failures(store, "base", catalog)
    assert base == 0 and noisy >= 5  # the faults the server drew for the probe workload, sealed as answers
    assert without.retries == {"retried": 0, "recovered": 0, "still_failing": noisy}
    assert clean == 0  # every failure answered by a retry (0.1 ** 5 per request: none left in ~200)
    assert with_retries.retries["retried"] >= 1 and with_retries.retries["still_failing"] == 0
    assert with_retries.retries["recovered"] == with_retries.retries["retried"]
    assert with_retries.changes == []  # noise is not drift


def test_a_platform_maintenance_code_in_a_200_body_is_environmental(catalog):
    """Not only statuses: the catalog's result-code table decides (Seoul's ERROR-600 is maintenance)."""
    judge = environmental_answer(catalog)
    tool = next(t.name for t in catalog if t.platform == "seoul")
    request = httpx.Request("GET", "https://example.test/", extensions={"kopa_tool": tool})
    assert judge(request, httpx.Response(200, content=b'{"RESULT":{"CODE":"ERROR-600","MESSAGE":"m"}}'))
    assert not judge(request, httpx.Response(200, content=b'{"RESULT":{"CODE":"INFO-200","MESSAGE":"m"}}'))
    assert judge(httpx.Request("GET", "https://example.test/"), httpx.Response(503))
