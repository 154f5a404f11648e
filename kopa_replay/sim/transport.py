"""httpx transports that answer from the simulator in-process (no socket).

``httpx.Client(transport=SimTransport(sim))`` sends requests for the real
URLs (``https://opendart.fss.or.kr/api/company.json?...``) straight to
:meth:`Simulator.handle`. Loopback-style URLs
(``http://127.0.0.1:N/opendart.fss.or.kr/...``) are accepted too, so code
written against ``sim serve`` runs unchanged in-process.
"""

from __future__ import annotations

import httpx

from kopa_replay.sim.messages import SimRequest, SimResponse
from kopa_replay.sim.simulator import Simulator

__all__ = ["SimTransport", "AsyncSimTransport"]

_LOOPBACK = {"127.0.0.1", "localhost", "::1", "[::1]"}


def _to_sim(request: httpx.Request, body: bytes) -> SimRequest:
    # httpx's headers are read as they are (their names compare case-insensitively): copying them costs more than
    # the simulator's whole answer from its cache
    host = request.url.host
    target = request.url.raw_path.decode("ascii")
    if host in _LOOPBACK or host.startswith("127."):
        return SimRequest.from_target(request.method, target, request.headers, body)
    return SimRequest.from_target(request.method, "/" + host + target, request.headers, body)


def _to_httpx(response: SimResponse, request: httpx.Request) -> httpx.Response:
    # The answer's wire headers (made once per answer) and an unread stream, as httpx's own transports return: the
    # client reads it; building from ``content=`` re-encodes every header and sets the length on each call.
    return httpx.Response(
        response.status, headers=response.raw_headers, stream=httpx.ByteStream(response.body), request=request
    )


class SimTransport(httpx.BaseTransport):
    """Answers every request from a :class:`Simulator` in this process."""

    def __init__(self, simulator: Simulator) -> None:
        self.simulator = simulator

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        body = request.read()
        return _to_httpx(self.simulator.handle(_to_sim(request, body)), request)


class AsyncSimTransport(httpx.AsyncBaseTransport):
    """The async twin of :class:`SimTransport` (same core, no socket)."""

    def __init__(self, simulator: Simulator) -> None:
        self.simulator = simulator

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        body = await request.aread()
        return _to_httpx(self.simulator.handle(_to_sim(request, body)), request)
