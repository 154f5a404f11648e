"""The loopback server's latency: each answer waits, none holds up another (the server counts what it answers)."""

from __future__ import annotations

import threading
import time

import httpx
import pytest

from kopa_replay.errors import UsageError
from kopa_replay.sim import Simulator, accepted_key
from kopa_replay.sim.server import make_server, running_server, serving

PATH = "/opendart.fss.or.kr/api/company.json"
PARAMS = {"crtfc_key": accepted_key(), "corp_code": "00439743"}


def test_requests_waiting_out_their_latency_are_answered_concurrently():
    with serving(Simulator(seed=0), latency_ms=300) as server:
        statuses: list[int] = []

        def call() -> None:
            with httpx.Client(timeout=30) as client:  # a connection each, as separate recorders have
                statuses.append(client.get(server.url + PATH, params=PARAMS).status_code)

        threads = [threading.Thread(target=call) for _ in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert statuses == [200] * 4
        # the server counts an answer once its last byte is written; a client can be back before that count
        for _ in range(500):
            if server.answered == 4:
                break
            time.sleep(0.01)
        assert server.answered == 4 and server.in_flight == 0
        assert server.peak_in_flight > 1  # served one by one, each would have waited for the one before


def test_without_latency_the_server_answers_as_before():
    with running_server(Simulator(seed=0)) as url:
        answer = httpx.get(url + PATH, params=PARAMS, timeout=10)
    assert answer.json()["corp_name"] == "라이트론"


@pytest.mark.parametrize("latency", [-1, float("nan"), float("inf"), "50"])
def test_a_latency_that_is_not_a_finite_number_of_milliseconds_is_refused(latency):
    with pytest.raises(UsageError, match="latency must be a number of milliseconds"):
        make_server(Simulator(seed=0), latency_ms=latency)
