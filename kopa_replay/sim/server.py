"""The simulator as a real HTTP server on loopback.

Each real host name is the first path segment:
``http://127.0.0.1:N/opendart.fss.or.kr/api/company.json?...``. The simulator is an ASGI app
(:class:`SimApp`) served by uvicorn (its pure-Python h11 protocol, one asyncio loop) speaking HTTP/1.1 with
keep-alive; every request is turned into a :class:`SimRequest` and answered by the shared simulator. A request
met before is answered in the loop from the simulator's memory; one whose answer must be made goes to a worker
thread, so a slow answer (a world part built on first use) holds up no other connection. A ``latency`` makes each
answer wait that long first, as a network would, without holding up the others (an asyncio sleep): a benchmark can
measure recording that is bound by latency, not by the simulator.
"""

from __future__ import annotations

import asyncio
import contextlib
import math
import socket
import threading
from collections.abc import Awaitable, Callable, Iterator, MutableMapping
from typing import Any

from kopa_replay.errors import UsageError
from kopa_replay.sim.messages import SimRequest, SimResponse
from kopa_replay.sim.simulator import Simulator

__all__ = ["AsgiServer", "SimApp", "SimServer", "listen", "make_server", "serving", "running_server"]

Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]
App = Callable[[Scope, Receive, Send], Awaitable[None]]

#: what the server answers; any other method gets 501, as http.server (the server before this one) answered
_METHODS = frozenset({"GET", "POST"})
_UNSUPPORTED = b"unsupported method"
#: the longest request line and headers h11 takes in: http.server's 64 KiB line limit, not h11's 16 KiB default
#: (a bulk query string can be long)
_MAX_HEAD_BYTES = 65536
#: how long a stopping server waits for the answers it is writing before it cancels them
_GRACEFUL_SECONDS = 5


def _header_text(value: bytes) -> str:
    """A header value as the client meant it: a key outside ASCII (Hangul, say) goes as UTF-8 bytes — what httpx
    sends and the in-process transport reads; bytes that are not UTF-8 are read as Latin-1, as HTTP's default."""
    try:
        return value.decode("utf-8")
    except UnicodeDecodeError:
        return value.decode("latin-1")


class SimApp:
    """The simulator as an ASGI app: ``latency`` seconds before each answer, and a count of the requests it is
    answering (``in_flight``; ``peak_in_flight`` the most at once: what a client's limits let through;
    ``answered``)."""

    def __init__(self, simulator: Simulator, *, latency: float = 0.0) -> None:
        self.simulator = simulator
        self.latency = latency
        self.in_flight = 0
        self.peak_in_flight = 0
        self.answered = 0
        # the counts change in the loop's thread, but a caller may read them from any thread
        self._counting = threading.Lock()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":  # served with lifespan off and no websockets: nothing else comes
            return
        method = scope["method"]
        if method not in _METHODS:
            await _answer(send, SimResponse(501, _UNSUPPORTED, "text/plain;charset=UTF-8"))
            return
        with self._counting:
            self.in_flight += 1
            self.peak_in_flight = max(self.peak_in_flight, self.in_flight)
        try:
            try:
                response = await self._response(scope, receive, method)
            except Exception:
                # A fault of the simulator's own (a bug, not a platform's answer): the connection is dropped, as the
                # threaded server did, so the client meets a transport error — an environmental failure no recorder
                # keeps — never a 500 a recording could seal as the platform's. A started answer that ends early is
                # how an ASGI app has uvicorn close a connection (an unstarted one would get a 500).
                await send({"type": "http.response.start", "status": 500, "headers": []})
                raise
        finally:
            # counted before the answer goes out, so a client that has its answer finds it counted
            with self._counting:
                self.in_flight -= 1
                self.answered += 1
        await _answer(send, response)

    async def _response(self, scope: Scope, receive: Receive, method: str) -> SimResponse:
        chunks = []
        while True:
            message = await receive()
            chunks.append(message.get("body", b""))
            if not message.get("more_body"):
                break
        body = b"".join(chunks)  # joined once: adding each chunk would copy a large POST over and over
        headers = {name.decode("latin-1"): _header_text(value) for name, value in scope["headers"]}  # h11: lower
        query = scope["query_string"]
        target = scope["raw_path"].decode("latin-1") + ("?" + query.decode("latin-1") if query else "")
        request = SimRequest.from_target(method, target, headers, body)
        if self.latency:
            await asyncio.sleep(self.latency)  # this request only: the loop answers the others meanwhile
        remembered = self.simulator.remembered(request)
        if remembered is not None:
            return remembered
        return await asyncio.get_running_loop().run_in_executor(None, self.simulator.handle, request)


async def _answer(send: Send, response: SimResponse) -> None:
    await send({"type": "http.response.start", "status": response.status, "headers": response.raw_headers})
    await send({"type": "http.response.body", "body": response.body})


class AsgiServer:
    """An ASGI app served by uvicorn as the simulator is, on a bound, listening socket: :meth:`serve_forever`
    serves until :meth:`shutdown` (from another thread) or a signal. ``bench_sim.py`` runs its hello-world floor on
    it, so the floor and the simulator differ by their app alone."""

    def __init__(self, app: App, listener: socket.socket) -> None:
        self.app = app
        self.socket = listener
        self.server_address: tuple[str, int] = listener.getsockname()[:2]
        self._uvicorn = _uvicorn_server(app)
        self._state = threading.Lock()
        self._serving = False
        self._stopped = threading.Event()

    @property
    def url(self) -> str:
        """The base URL (``http://127.0.0.1:N``)."""
        host, port = self.server_address
        return f"http://[{host}]:{port}" if ":" in host else f"http://{host}:{port}"

    def serve_forever(self) -> None:
        """Serve until :meth:`shutdown` is called from another thread, or (in the main thread) SIGINT or SIGTERM,
        which stop it gracefully and are then raised again (SIGINT as KeyboardInterrupt)."""
        with self._state:
            if self._uvicorn.should_exit:  # shut down before it started
                return
            self._serving = True
        try:
            asyncio.run(self._uvicorn.serve(sockets=[self.socket]))
        finally:
            self._stopped.set()

    def shutdown(self) -> None:
        """Stop serving (open connections are closed, answers being written get a few seconds) and wait until
        :meth:`serve_forever` has returned."""
        with self._state:
            self._uvicorn.should_exit = True
            serving = self._serving
        if serving:
            self._stopped.wait()

    def server_close(self) -> None:
        """Close the listening socket (after :meth:`shutdown`, or when it never served)."""
        self.socket.close()


class SimServer(AsgiServer):
    """The simulator's HTTP server: ``url``, ``latency`` and the counts of its :class:`SimApp`."""

    app: SimApp

    def __init__(self, simulator: Simulator, listener: socket.socket, *, latency: float = 0.0) -> None:
        super().__init__(SimApp(simulator, latency=latency), listener)

    @property
    def latency(self) -> float:
        """Seconds each answer waits before it goes out."""
        return self.app.latency

    @property
    def in_flight(self) -> int:
        """Requests being answered now."""
        return self.app.in_flight

    @property
    def peak_in_flight(self) -> int:
        """The most requests answered at once."""
        return self.app.peak_in_flight

    @property
    def answered(self) -> int:
        """Requests answered (counted as their answer goes out)."""
        return self.app.answered


def _uvicorn_server(app: App) -> Any:
    """uvicorn with the simulator's settings."""
    import uvicorn  # here, not at the top: importing kopa_replay.sim stays cheap for in-process use

    config = uvicorn.Config(
        app,
        http="h11",
        ws="none",
        lifespan="off",
        log_config=None,  # uvicorn configures no logging of its own: the process's stays as it is
        access_log=False,  # request lines carry API keys (Seoul puts them in the path)
        server_header=False,
        headers=[("server", "kopa-replay-sim")],
        timeout_graceful_shutdown=_GRACEFUL_SECONDS,
        h11_max_incomplete_event_size=_MAX_HEAD_BYTES,
    )
    return uvicorn.Server(config)


def listen(host: str = "127.0.0.1", port: int = 0) -> socket.socket:
    """A listening socket on ``host:port`` (OSError when it cannot bind). Made with ``proto=IPPROTO_TCP`` (what
    ``getaddrinfo`` gives), so that asyncio turns Nagle's algorithm off on its connections: uvicorn writes an answer's
    head and body apart, and with Nagle on the body waits for the client's delayed ACK, ≈ 40 ms a request on Linux."""
    # "" is every interface, as bind() takes it; IPv4 first where a name has both (a server on localhost is reached
    # at 127.0.0.1 by what the CLI prints and the mirrors users write), an IPv6 literal as itself
    found = socket.getaddrinfo(host or "0.0.0.0", port, type=socket.SOCK_STREAM)
    family, kind, proto, _, address = next((info for info in found if info[0] == socket.AF_INET), found[0])
    listener = socket.socket(family, kind, proto or socket.IPPROTO_TCP)
    try:
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)  # accepted connections inherit it too
        listener.bind(address)
        listener.listen(socket.SOMAXCONN)
    except BaseException:
        listener.close()
        raise
    return listener


def make_server(simulator: Simulator, host: str = "127.0.0.1", port: int = 0, *, latency_ms: float = 0.0) -> SimServer:
    """A bound, not yet serving, server (``port=0`` picks a free port) that waits ``latency_ms`` milliseconds
    before each answer; :class:`UsageError` naming the address when it cannot bind (a port out of range, in use,
    an unknown host)."""
    if not (isinstance(latency_ms, (int, float)) and math.isfinite(latency_ms) and latency_ms >= 0):
        raise UsageError(f"latency must be a number of milliseconds, 0 or more, not {latency_ms!r}")
    if isinstance(port, bool) or not isinstance(port, int) or not 0 <= port <= 65535:
        raise UsageError(f"port must be 0-65535 (0: any free port), not {port!r}")
    try:
        listener = listen(host, port)
    except OSError as exc:  # in use, not an address of this machine, a host name that does not resolve
        raise UsageError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from exc
    try:
        return SimServer(simulator, listener, latency=latency_ms / 1000)
    except BaseException:
        listener.close()
        raise


@contextlib.contextmanager
def serving(
    simulator: Simulator, host: str = "127.0.0.1", port: int = 0, *, latency_ms: float = 0.0
) -> Iterator[SimServer]:
    """Serve in a background thread; yields the server (its ``url``, its counts). Connections made as soon as it
    is yielded wait in the listening socket's queue until the loop takes them."""
    server = make_server(simulator, host, port, latency_ms=latency_ms)
    thread = threading.Thread(target=server.serve_forever, name="kopa-sim-server", daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


@contextlib.contextmanager
def running_server(
    simulator: Simulator, host: str = "127.0.0.1", port: int = 0, *, latency_ms: float = 0.0
) -> Iterator[str]:
    """Serve in a background thread; yields the base URL (``http://127.0.0.1:N``)."""
    with serving(simulator, host, port, latency_ms=latency_ms) as server:
        yield server.url
