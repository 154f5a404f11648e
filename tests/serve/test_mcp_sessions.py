"""Streamable HTTP sessions of the MCP server expire: the ``mcp`` SDK's real client against a real uvicorn on
loopback (an ephemeral port), in this process so the server's own session table can be read."""

from __future__ import annotations

import contextlib

import anyio
import pytest

pytest.importorskip("mcp")

from mcp import ClientSession  # noqa: E402
from mcp.client.streamable_http import streamable_http_client  # noqa: E402

from kopa_replay.errors import UsageError  # noqa: E402
from kopa_replay.serve.mcp import DEFAULT_SESSION_IDLE_TIMEOUT, serve  # noqa: E402

SESSIONS = 12


def _open_sessions(server) -> int:
    # the SDK's own table of live sessions (what a request's mcp-session-id is looked up in); no public accessor
    return len(server.session_manager._server_instances)


async def _open_and_abandon(server, url: str, count: int, hold: float) -> int:
    """Open ``count`` sessions at once and keep them ``hold`` seconds, then drop them all without the DELETE
    that ends a session; answers how many sessions the server held at the end of the hold."""
    async with contextlib.AsyncExitStack() as stack:
        for _ in range(count):
            read, write = await stack.enter_async_context(streamable_http_client(url, terminate_on_close=False))
            session = await stack.enter_async_context(ClientSession(read, write))
            await session.initialize()
        await anyio.sleep(hold)  # a session in use (its client's GET stream open) is never idle
        return _open_sessions(server)


async def _listed(url: str) -> list[str]:
    async with streamable_http_client(url) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            return [tool.name for tool in (await session.list_tools()).tools]


def test_abandoned_sessions_are_closed_and_forgotten_after_the_idle_timeout(catalog, mcp_serving):
    async def body():
        async with mcp_serving(catalog.filter("dart_*"), idle_timeout=1.0) as (server, url):
            held = await _open_and_abandon(server, url, SESSIONS, hold=2.0)
            with anyio.fail_after(30):
                while _open_sessions(server):
                    await anyio.sleep(0.05)
            # the server still opens (and, on DELETE, closes) new sessions
            names = await _listed(url)
            return held, names, _open_sessions(server)

    held, names, after = anyio.run(body)
    assert held == SESSIONS
    assert sorted(names) == sorted(catalog.filter("dart_*").names) and after == 0


def test_without_an_idle_timeout_abandoned_sessions_stay(catalog, mcp_serving):
    async def body():
        async with mcp_serving(catalog.filter("dart_*"), idle_timeout=None) as (server, url):
            held = await _open_and_abandon(server, url, 3, hold=0)
            await anyio.sleep(1.0)
            return held, _open_sessions(server)

    assert anyio.run(body) == (3, 3)


def test_the_default_idle_timeout_is_ten_minutes_in_the_library_and_the_cli():
    from kopa_replay.cli import cli

    command = cli.commands["mcp"].commands["serve"]  # type: ignore[attr-defined]
    option = next(param for param in command.params if param.name == "session_idle_timeout")
    assert DEFAULT_SESSION_IDLE_TIMEOUT == option.default == 600


@pytest.mark.parametrize("bad", [0, -1, float("inf"), float("nan")])
def test_an_idle_timeout_that_is_not_a_positive_number_of_seconds_is_a_usage_error(bad):
    with pytest.raises(UsageError, match=r"--session-idle-timeout must be a positive number of seconds"):
        serve(transport="http", session_idle_timeout=bad)


def test_the_cli_refuses_a_zero_idle_timeout_with_one_error_line():
    from click.testing import CliRunner

    from kopa_replay.cli import cli

    result = CliRunner().invoke(cli, ["mcp", "serve", "--transport", "http", "--session-idle-timeout", "0"])
    assert result.exit_code == 1
    assert result.output.strip().splitlines()[-1] == (
        "Error: --session-idle-timeout must be a positive number of seconds, not 0"
    )


def test_a_generated_paper_scale_tool_says_so_in_tools_list_over_the_real_client(catalog, mcp_serving):
    from kopa_replay.catalog import builtin_catalog
    from kopa_replay.catalog.model import GENERATED_META, Catalog

    fill = next(t for t in builtin_catalog("paper") if t.generated)
    mixed = Catalog([catalog.get("dart_company"), fill], source="<test>")

    async def body():
        async with mcp_serving(mixed, idle_timeout=None) as (_server, url):
            async with streamable_http_client(url) as (read, write):
                async with ClientSession(read, write) as session:
                    await session.initialize()
                    return {tool.name: tool.meta for tool in (await session.list_tools()).tools}

    metas = anyio.run(body)
    assert metas == {"dart_company": None, fill.name: {GENERATED_META: True}}


def test_connections_to_the_http_socket_send_without_waiting_for_acks():
    # uvicorn writes an answer's headers and body in two sends: with Nagle on, the body waited for the client's
    # delayed ACK (≈ 40 ms a request on Linux)
    import socket

    from kopa_replay.serve.mcp import listen

    with listen("127.0.0.1", 0) as sock, socket.create_connection(sock.getsockname()):
        accepted, _ = sock.accept()
        with accepted:
            assert accepted.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY)


def test_a_busy_port_is_a_usage_error_naming_it():
    from kopa_replay.serve.mcp import listen

    with listen("127.0.0.1", 0) as sock:
        port = sock.getsockname()[1]
        with pytest.raises(UsageError, match=rf"cannot serve MCP on 127\.0\.0\.1:{port}: .*choose --port"):
            listen("127.0.0.1", port)
