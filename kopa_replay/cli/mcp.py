"""The ``mcp`` group: serve catalog tools to any MCP client, answered from a snapshot."""

from __future__ import annotations

import click

from kopa_replay.cli.common import _Group, _store_option, cli


@cli.group(cls=_Group)
def mcp() -> None:
    """Serve catalog tools to any MCP client, answered from a snapshot.

    Example: kopa-replay mcp serve --snapshot 2026-09-01 --tools 'dart_*'
    """


@mcp.command("serve")
@click.option("--snapshot", default="2026-09-01", show_default=True, help="The snapshot that answers every call.")
@click.option(
    "--transport",
    type=click.Choice(["stdio", "http"]),
    default="stdio",
    show_default=True,
    help="stdio for a client that launches the server; http serves streamable HTTP at /mcp.",
)
@click.option("--tools", "tools_pattern", help="Only tools whose name matches this glob (dart_*).")
@click.option("--host", default="127.0.0.1", show_default=True, help="Address for --transport http.")
@click.option("--port", default=8000, show_default=True, type=int, help="Port for --transport http.")
@click.option(
    "--session-idle-timeout",
    type=float,
    default=600,
    show_default=True,
    metavar="SECONDS",
    help="For --transport http: close a session (freeing what it holds) after this many seconds with no request "
    "in flight; its client must then initialize a new one.",
)
@_store_option
def mcp_serve(snapshot, transport, tools_pattern, host, port, session_idle_timeout, store) -> None:
    """Run an MCP server whose tools replay a snapshot (strict, offline).

    Every tool lists an outputSchema; every result is structuredContent plus the same JSON as a text block, and
    a failed call (isError) names its error_class: structural, environmental, not_recorded or corrupt_store
    (an empty answer is a result, not an error).

    Example: kopa-replay mcp serve --snapshot 2026-09-01 --transport http --port 8000 --session-idle-timeout 600
    """
    from kopa_replay.serve.mcp import serve

    # no store: the default, or the shipped one
    serve(snapshot, transport, tools_pattern, store, host, port, session_idle_timeout=session_idle_timeout)
