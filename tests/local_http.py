"""A tiny HTTP server on loopback for tests that need an API of their own, not the simulator.

``LocalApi(respond)`` serves every GET with ``respond(handler, path, query)`` (query values first-only; the
request's headers are ``handler.headers``); :func:`send` writes one answer. Use it as a context manager, or
``start()`` / ``close()``.
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable, Mapping
from urllib.parse import parse_qs, urlsplit


def send(
    handler: BaseHTTPRequestHandler,
    status: int,
    body: bytes | Any,
    content_type: str = "application/json",
    headers: Mapping[str, str] | None = None,
) -> None:
    """Answer ``status`` with ``body`` (bytes as they are; anything else as JSON) and any more ``headers``."""
    data = body if isinstance(body, bytes) else json.dumps(body, ensure_ascii=False).encode()
    handler.send_response(status)
    handler.send_header("content-type", content_type)
    for name, value in (headers or {}).items():
        handler.send_header(name, value)
    handler.send_header("content-length", str(len(data)))
    handler.end_headers()
    handler.wfile.write(data)


class LocalApi:
    def __init__(self, respond: Callable[[BaseHTTPRequestHandler, str, dict[str, str]], None]) -> None:
        class Handler(BaseHTTPRequestHandler):
            def do_GET(self):  # noqa: N802 - stdlib name
                parts = urlsplit(self.path)
                respond(self, parts.path, {k: v[0] for k, v in parse_qs(parts.query).items()})

            def log_message(self, *args):
                return

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}"

    def start(self) -> "LocalApi":
        self.thread.start()
        return self

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

    def __enter__(self) -> "LocalApi":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()
