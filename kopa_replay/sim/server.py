"""The simulator as a real HTTP server on loopback.

Each real host name is the first path segment:
``http://127.0.0.1:N/opendart.fss.or.kr/api/company.json?...``. The server is
a ``ThreadingHTTPServer`` speaking HTTP/1.1 with keep-alive; every request is
turned into a :class:`SimRequest` and answered by the shared simulator.
"""

from __future__ import annotations

import contextlib
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Iterator

from kopa_replay.sim.messages import SimRequest
from kopa_replay.sim.simulator import Simulator

__all__ = ["make_server", "running_server"]


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
            length = int(self.headers.get("content-length") or 0)
            body = self.rfile.read(length) if length else b""
            headers = {name: _header_text(value) for name, value in self.headers.items()}
            request = SimRequest.from_loopback(self.command, self.path, headers, body)
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


def make_server(simulator: Simulator, host: str = "127.0.0.1", port: int = 0) -> ThreadingHTTPServer:
    """A bound, not yet serving, server (``port=0`` picks a free port)."""
    server = ThreadingHTTPServer((host, port), _handler_class(simulator))
    server.daemon_threads = True
    return server


@contextlib.contextmanager
def running_server(simulator: Simulator, host: str = "127.0.0.1", port: int = 0) -> Iterator[str]:
    """Serve in a background thread; yields the base URL (``http://127.0.0.1:N``)."""
    server = make_server(simulator, host, port)
    thread = threading.Thread(target=server.serve_forever, name="kopa-sim-server", daemon=True)
    thread.start()
    try:
        yield f"http://{host}:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)
