"""The simulator's memory of finished answers, and drift applied a page at a time."""

from __future__ import annotations

import threading

from hypothesis import given, settings
from hypothesis import strategies as st

from kopa_replay.sim import SimRequest, Simulator
from kopa_replay.sim.timeline import TIMELINE, ActiveDrift

PRICE = "https://apis.data.go.kr/1160100/service/GetStockSecuritiesInfoService/getStockPriceInfo"


def _get(sim: Simulator, query: str, key: str = "sim-key"):
    return sim.handle(SimRequest.from_url("GET", f"{PRICE}?serviceKey={key}&resultType=json&{query}"))


def test_an_answer_from_memory_is_the_answer_a_fresh_simulator_gives():
    warm = Simulator(seed=0)
    first = _get(warm, "basDt=20260831&numOfRows=5")
    again = _get(warm, "basDt=20260831&numOfRows=5")
    fresh = _get(Simulator(seed=0), "basDt=20260831&numOfRows=5")
    assert again.body == first.body == fresh.body


def test_a_wrong_key_is_refused_even_after_the_same_request_was_answered():
    sim = Simulator(seed=0)
    assert b'"resultCode":"00"' in _get(sim, "basDt=20260831&numOfRows=5").body
    refused = _get(sim, "basDt=20260831&numOfRows=5", key="wrong")
    assert b"SERVICE_KEY_IS_NOT_REGISTERED_ERROR" in refused.body


def test_threads_answering_one_request_at_once_count_its_bytes_once():
    sim = Simulator(seed=0)
    barrier = threading.Barrier(8)
    bodies = []

    def call():
        barrier.wait()
        bodies.append(_get(sim, "basDt=20260831&numOfRows=50").body)

    threads = [threading.Thread(target=call) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(set(bodies)) == 1
    assert sim._answer_bytes == sum(len(r.body) for r in sim._answers.values()) == len(bodies[0])


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 40), st.integers(0, 40), st.integers(1, 3))
def test_a_page_of_drifted_records_is_that_page_of_the_whole_list_drifted(start, length, step):
    # the ridership renames are in force at every date after 2024-08-01
    drift = ActiveDrift.at("seoul_card_subway_stats_new", Simulator().as_of, TIMELINE)
    records = [{"USE_DT": f"2026080{i % 9 + 1}", "LINE_NUM": f"{i}호선", "RIDE_PASGR_NUM": str(i)} for i in range(30)]
    lazy = drift.apply_records(records)
    whole = [drift.apply_records(records)[i] for i in range(len(records))]
    assert len(lazy) == len(records)
    assert lazy[start : start + length : step] == whole[start : start + length : step]
    assert "USE_YMD" in whole[0] and "USE_DT" not in whole[0]
