"""The loopback server as HTTP: keep-alive, the bytes the in-process simulator gives, a slow answer that holds up no
other, and a stop with a client's connection still open."""

from __future__ import annotations

import socket
import threading
from urllib.parse import quote

import httpx
import pytest

from kopa_replay.sim import SimRequest, Simulator, accepted_key
from kopa_replay.sim.server import serving

SCHOOLS = "/open.neis.go.kr/hub/schoolInfo?KEY={key}&Type=json&pIndex=1&pSize=3"
KRX = "/data-dbg.krx.co.kr/svc/apis/sto/stk_bydd_trd?basDd=20260831"


def _exchange(conn: socket.socket, head: bytes) -> tuple[int, bytes]:
    """Send one request on ``conn`` and read its answer (status, body) by its content length."""
    conn.sendall(head)
    data = b""
    while b"\r\n\r\n" not in data:
        data += conn.recv(65536)
    top, _, body = data.partition(b"\r\n\r\n")
    lines = top.decode("latin-1").split("\r\n")
    length = next(int(line.split(":", 1)[1]) for line in lines if line.lower().startswith("content-length:"))
    while len(body) < length:
        body += conn.recv(65536)
    return int(lines[0].split()[1]), body


def test_one_connection_answers_request_after_request_with_the_in_process_bytes():
    key = "시뮬레이터키"  # a key outside ASCII: quoted in a query, UTF-8 bytes in a header (what httpx sends)
    asked = [
        ("GET", SCHOOLS.format(key=quote(key)), {}),
        ("GET", SCHOOLS.format(key="not-the-key"), {}),
        ("GET", KRX, {"AUTH_KEY": key}),
        ("GET", KRX, {"AUTH_KEY": "not-the-key"}),
        ("GET", SCHOOLS.format(key=quote(key)), {}),  # again: from the simulator's memory
    ]
    simulator = Simulator(seed=0, api_key=key)
    with serving(simulator) as server, socket.create_connection(server.server_address) as conn:
        answers = []
        for method, target, headers in asked:
            head = f"{method} {target} HTTP/1.1\r\nhost: sim\r\n".encode() + b"".join(
                f"{name}: {value}\r\n".encode() for name, value in headers.items()
            )
            answers.append(_exchange(conn, head + b"\r\n"))
        assert server.answered == len(asked)  # all on the one connection the server kept open
        status, _ = _exchange(conn, b"PUT " + SCHOOLS.format(key="k").encode() + b" HTTP/1.1\r\nhost: sim\r\n\r\n")
        assert status == 501 and server.answered == len(asked)  # refused, as before: GET and POST only
    fresh = Simulator(seed=0, api_key=key)
    expected = [fresh.handle(SimRequest.from_loopback(*request)) for request in asked]
    assert answers == [(answer.status, answer.body) for answer in expected]
    # the key was read as it was sent, in the query and in the header: the platform's data, not its refusal
    assert b"schoolInfo" in answers[0][1] and b"schoolInfo" not in answers[1][1]
    assert answers[2][0] == 200 and answers[2][1] != answers[3][1]


def test_what_the_loop_answers_itself_is_only_what_the_simulator_remembers():
    request = SimRequest.from_loopback("GET", KRX, {"AUTH_KEY": accepted_key()})
    simulator = Simulator(seed=0)
    assert simulator.remembered(request) is None  # never met: made by handle, in a worker thread
    assert simulator.remembered(request) is None
    answer = simulator.handle(request)
    assert simulator.remembered(request) is answer
    faulty = Simulator(seed=0, fault_rate=0.5)
    faulty.handle(request)
    assert faulty.remembered(request) is None  # each attempt draws its fault anew: never answered from memory


class _Gated(Simulator):
    """A simulator whose answer to one day's trades waits until the test lets it go."""

    SLOW = "20260828"

    def __init__(self) -> None:
        super().__init__(seed=0)
        self.entered, self.gate = threading.Event(), threading.Event()

    def handle(self, request: SimRequest):
        if request.param("basDd") == self.SLOW:
            self.entered.set()
            assert self.gate.wait(30)
        return super().handle(request)


def test_an_answer_being_made_holds_up_no_other_request():
    simulator = _Gated()
    key = {"AUTH_KEY": accepted_key()}
    simulator.handle(SimRequest.from_loopback("GET", KRX, key))
    with serving(simulator) as server:
        slow: list[int] = []
        waiting = threading.Thread(
            target=lambda: slow.append(
                httpx.get(server.url + KRX.replace("20260831", _Gated.SLOW), headers=key, timeout=30).status_code
            )
        )
        waiting.start()
        try:
            assert simulator.entered.wait(30)  # the slow answer is being made, in a worker thread
            # the loop answers another connection meanwhile (were it held up, this would time out)
            assert httpx.get(server.url + KRX, headers=key, timeout=10).status_code == 200
            assert (server.in_flight, server.peak_in_flight) == (1, 2)
        finally:
            simulator.gate.set()
            waiting.join(30)
        assert slow == [200] and server.answered == 2


def test_the_server_stops_with_a_client_connection_still_open():
    with httpx.Client(timeout=10) as client:
        with serving(Simulator(seed=0)) as server:
            url = server.url + "/unknown.example/"
            assert client.get(url).status_code == 404  # its connection stays open (keep-alive)
        # the stop closed it and no longer listens
        with pytest.raises(httpx.TransportError):
            client.get(url)


def test_a_fault_of_the_simulator_drops_the_connection_and_no_500_is_answered(monkeypatch):
    """A bug in the simulator (not a platform's answer) reaches the client as a transport error, as with the threaded
    server before: an environmental failure no recorder keeps, never a 500 a recording could seal."""
    simulator = Simulator(seed=0)

    def broken(request):
        raise RuntimeError("a bug of the simulator's own")

    monkeypatch.setattr(simulator, "handle", broken)
    with serving(simulator) as server, httpx.Client(base_url=server.url) as client:
        with pytest.raises(httpx.TransportError):
            client.get(SCHOOLS.format(key="k"))
        assert server.in_flight == 0
        monkeypatch.undo()  # the server goes on answering: the fault dropped one connection, not the server
        assert client.get(SCHOOLS.format(key="k")).status_code == 200


def test_an_empty_host_listens_on_every_interface_and_the_url_is_reachable():
    from kopa_replay.sim.server import listen

    with listen("", 0) as sock:
        assert sock.getsockname()[0] == "0.0.0.0"
