"""The simulator as a real HTTP server on loopback.

Each real host name is the first path segment:
``http://127.0.0.1:N/opendart.fss.or.kr/api/company.json?...``. The server is
a ``ThreadingHTTPServer`` (a thread per connection) speaking HTTP/1.1 with
keep-alive; every request is turned into a :class:`SimRequest` and answered by
the shared simulator. A ``latency`` makes each answer wait that long first, as
a network would, without holding up the others: a benchmark can measure
recording that is bound by latency, not by the simulator.
"""

from __future__ import annotations

import contextlib
import math
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from kopa_replay.errors import UsageError
from kopa_replay.sim.messages import SimRequest
from kopa_replay.sim.simulator import Simulator

__all__ = ["SimServer", "make_server", "serving", "running_server"]


class SimServer(ThreadingHTTPServer):
    """The simulator's HTTP server: a thread per connection, ``latency`` seconds before each answer, and a count
    of the requests it is answering (``in_flight``, and ``peak_in_flight`` the most at once: what a client's
    limits let through)."""

    daemon_threads = True

    def __init__(self, address: tuple[str, int], handler: Any, *, latency: float = 0.0) -> None:
        super().__init__(address, handler)
        self.latency = latency
        self.in_flight = 0
        self.peak_in_flight = 0
        self.answered = 0
        self._counting = threading.Lock()

    @property
    def url(self) -> str:
        """The base URL (``http://127.0.0.1:N``)."""
        return f"http://{self.server_address[0]!s}:{self.server_address[1]}"

    @contextlib.contextmanager
    def answering(self) -> Iterator[None]:
        """Count one request in flight while the block runs."""
        with self._counting:
            self.in_flight += 1
            self.peak_in_flight = max(self.peak_in_flight, self.in_flight)
        try:
            yield
        finally:
            with self._counting:
                self.in_flight -= 1
                self.answered += 1


def _header_text(value: str) -> str:
    """A header value as the client meant it: http.server reads header bytes as Latin-1, but a key outside ASCII
    (Hangul, say) goes as UTF-8 bytes — what httpx sends and the in-process transport reads."""
    try:
        return value.encode("latin-1").decode("utf-8")
    except UnicodeError:
        return value


def _handler_class(simulator: Simulator) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        # Headers and body go out in two writes; without TCP_NODELAY the second waits for a delayed ACK
        # (40 ms a request on Linux).
        disable_nagle_algorithm = True
        server_version = "kopa-replay-sim"
        sys_version = ""

        def _serve(self) -> None:
            server = self.server
            assert isinstance(server, SimServer)  # make_server pairs this handler with a SimServer only
            with server.answering():
                length = int(self.headers.get("content-length") or 0)
                body = self.rfile.read(length) if length else b""
                headers = {name: _header_text(value) for name, value in self.headers.items()}
                request = SimRequest.from_loopback(self.command, self.path, headers, body)
                if server.latency:
                    time.sleep(server.latency)  # this request's thread only: the others are answered meanwhile
                response = simulator.handle(request)
                self.send_response(response.status)
                for name, value in response.headers:
                    self.send_header(name, value)
                self.send_header("content-length", str(len(response.body)))
                self.end_headers()
                self.wfile.write(response.body)

        do_GET = _serve
        do_POST = _serve

        def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - stdlib signature
            # Silent: request lines would carry API keys (Seoul puts them in the path).
            return

    return Handler


def make_server(simulator: Simulator, host: str = "127.0.0.1", port: int = 0, *, latency_ms: float = 0.0) -> SimServer:
    """A bound, not yet serving, server (``port=0`` picks a free port) that waits ``latency_ms`` milliseconds
    before each answer; :class:`UsageError` naming the address when it cannot bind (a port out of range, in use,
    an unknown host)."""
    if not (isinstance(latency_ms, (int, float)) and math.isfinite(latency_ms) and latency_ms >= 0):
        raise UsageError(f"latency must be a number of milliseconds, 0 or more, not {latency_ms!r}")
    if isinstance(port, bool) or not isinstance(port, int) or not 0 <= port <= 65535:
        raise UsageError(f"port must be 0-65535 (0: any free port), not {port!r}")
    try:
        return SimServer((host, port), _handler_class(simulator), latency=latency_ms / 1000)
    except OSError as exc:  # in use, not an address of this machine, a host name that does not resolve
        raise UsageError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from exc


@contextlib.contextmanager
def serving(
    simulator: Simulator, host: str = "127.0.0.1", port: int = 0, *, latency_ms: float = 0.0
) -> Iterator[SimServer]:
    """Serve in a background thread; yields the server (its ``url``, its counts)."""
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
