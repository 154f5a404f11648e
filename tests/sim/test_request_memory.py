"""The simulator remembers requests it answered (issue 34): a request met again gets the same bytes, and nothing it
remembers lets another key, or a request that would draw a fault or an incident, through."""

from __future__ import annotations

from kopa_replay.sim import SimRequest, Simulator

STOCK = "https://apis.data.go.kr/1160100/service/GetStockSecuritiesInfoService/getStockPriceInfo"
KRX = "https://data-dbg.krx.co.kr/svc/apis/sto/stk_bydd_trd?basDd=20260831"


def _get(sim: Simulator, url: str, headers: dict[str, str] | None = None):
    return sim.handle(SimRequest.from_url("GET", url, headers))


def test_a_request_met_again_gets_the_bytes_a_fresh_simulator_gives():
    remembering = Simulator(world_size="default")
    url = f"{STOCK}?serviceKey=sim-key&resultType=json&numOfRows=3&likeSrtnCd=0695"
    first, again = _get(remembering, url), _get(remembering, url)
    assert again == first == _get(Simulator(world_size="default"), url)


def test_the_key_is_part_of_what_is_remembered():
    sim = Simulator(world_size="default")
    good = _get(sim, f"{STOCK}?serviceKey=sim-key&resultType=json&numOfRows=3")
    wrong = _get(sim, f"{STOCK}?serviceKey=not-the-key&resultType=json&numOfRows=3")
    assert b"SERVICE_KEY_IS_NOT_REGISTERED_ERROR" in wrong.body and wrong.body != good.body
    # a platform that reads its key from a header (KRX's AUTH_KEY): the header is part of it too
    ok = _get(sim, KRX, {"AUTH_KEY": "sim-key"})
    refused = _get(sim, KRX, {"AUTH_KEY": "not-the-key"})
    assert ok.status == 200 and refused.body != ok.body


def test_a_simulator_that_draws_faults_or_incidents_answers_each_attempt_anew():
    url = f"{STOCK}?serviceKey=sim-key&resultType=json&numOfRows=3"
    faulty = Simulator(world_size="default", fault_rate=0.5)
    statuses = {_get(faulty, url).status for _ in range(40)}
    assert len(statuses) > 1  # a remembered answer would repeat the first attempt's forever
    walled = Simulator(world_size="default", incidents="empty_body=0.5")
    bodies = {_get(walled, url).body == b"" for _ in range(40)}
    assert bodies == {True, False}
