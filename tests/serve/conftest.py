"""The MCP server served in the test's own process: a real uvicorn on loopback (an ephemeral port) that the ``mcp``
SDK's real client reaches over streamable HTTP, with no subprocess to start."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from typing import Any

import anyio
import pytest


@contextlib.asynccontextmanager
async def _serving(catalog, idle_timeout: float | None = None, **open_args: Any) -> AsyncIterator[tuple[Any, str]]:
    """(server, url) of an MCP server over ``ToolEnvironment.open(catalog, **open_args)`` (default: strict replay of
    the shipped snapshot), served by uvicorn on 127.0.0.1 in this loop."""
    import uvicorn

    from kopa_replay.env.environment import ToolEnvironment
    from kopa_replay.serve.mcp import build_server, http_app, listen

    open_args = {"source": "replay", "snapshot": "2026-09-01", **open_args}
    with ToolEnvironment.open(catalog, **open_args) as env:
        server = build_server(env, catalog)
        app = http_app(server, session_idle_timeout=idle_timeout)
        sock = listen("127.0.0.1", 0)
        uv = uvicorn.Server(
            uvicorn.Config(app, log_level="warning", ws="none", lifespan="on", timeout_graceful_shutdown=5)
        )
        async with anyio.create_task_group() as tg:
            tg.start_soon(uv.serve, [sock])
            while not uv.started:
                await anyio.sleep(0.01)
            try:
                yield server, f"http://127.0.0.1:{sock.getsockname()[1]}/mcp"
            finally:
                uv.should_exit = True
        sock.close()


@pytest.fixture
def mcp_serving():
    """``async with mcp_serving(catalog, idle_timeout=None, **open_args) as (server, url)``: see :func:`_serving`."""
    pytest.importorskip("mcp")
    return _serving
