"""What every public-client test here shares: `kopa-replay sim serve` in its own process, and the host rewrite.

A client keeps its URLs, parameters, parsing and error handling; the one change is where its requests go, as a user
pointing it at a local server would make it: requests- and httpx-based clients go through their transport, which
sends ``https://HOST/path?query`` to ``http://127.0.0.1:N/HOST/path?query`` (``reroute``); a client that takes its
base URL as an argument or an attribute gets the simulator's address there instead (``servers() + "/HOST/..."``).
The server runs on the small world (the behaviour these clients read is the same at every size). One server per
test module and as-of date.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path
from urllib.parse import urlsplit

import pytest

ROOT = Path(__file__).resolve().parents[2]
KEY = "sim-key"


@pytest.fixture(scope="module")
def servers():
    """``servers(as_of)``: the base URL of a `kopa-replay sim serve` process as of that date, started on first use."""
    started: dict[str, tuple[subprocess.Popen, str]] = {}

    def serve(as_of: str = "2026-09-01") -> str:
        if as_of not in started:
            process = subprocess.Popen(
                [sys.executable, str(ROOT / "cli.py"), "sim", "serve", "--port", "0", "--world-size", "default"]
                + ["--as-of", as_of],
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
            line = process.stderr.readline()
            match = re.search(r"http://127\.0\.0\.1:(\d+)/", line)
            assert match, line
            started[as_of] = (process, f"http://127.0.0.1:{match.group(1)}")
        return started[as_of][1]

    yield serve
    for process, _ in started.values():
        process.terminate()
        process.communicate(timeout=10)


class Reroute:
    """Sends every requests / httpx call to a simulator, the real host as the first path segment; records them."""

    def __init__(self, base: str) -> None:
        self.base = base
        self.seen: list[str] = []  # host + path of every call
        self.urls: list[str] = []  # the full URL every call had (query included)

    def target(self, url: str) -> str:
        parts = urlsplit(url)
        self.seen.append(f"{parts.netloc}{parts.path}")
        self.urls.append(url)
        return f"{self.base}/{parts.netloc}{parts.path}" + (f"?{parts.query}" if parts.query else "")

    def __call__(self, send):
        """A requests ``HTTPAdapter.send`` that rewrites the URL first."""

        def to_sim(adapter, request, **kwargs):
            request.url = self.target(request.url)
            return send(adapter, request, **kwargs)

        return to_sim


@pytest.fixture
def reroute(servers, monkeypatch, tmp_path):
    """``reroute(as_of)`` points requests and httpx (sync and async) at a server as of that date; cwd is a scratch
    folder (OpenDartReader caches corpCode under ./docs_cache)."""
    from requests.adapters import HTTPAdapter

    send = HTTPAdapter.send
    monkeypatch.chdir(tmp_path)

    def point(as_of: str = "2026-09-01") -> Reroute:
        route = Reroute(servers(as_of))
        monkeypatch.setattr(HTTPAdapter, "send", route(send))
        try:
            import httpx
        except ImportError:  # pragma: no cover - httpx is a dependency of the package
            return route
        handle, handle_async = httpx.HTTPTransport.handle_request, httpx.AsyncHTTPTransport.handle_async_request

        def to_sim(request) -> None:
            request.url = httpx.URL(route.target(str(request.url)))
            request.headers["host"] = request.url.netloc.decode("ascii")

        def handle_request(transport, request):
            to_sim(request)
            return handle(transport, request)

        async def handle_async_request(transport, request):
            to_sim(request)
            return await handle_async(transport, request)

        monkeypatch.setattr(httpx.HTTPTransport, "handle_request", handle_request)
        monkeypatch.setattr(httpx.AsyncHTTPTransport, "handle_async_request", handle_async_request)
        return route

    return point


@pytest.fixture
def rerouted(reroute):
    return reroute().seen
