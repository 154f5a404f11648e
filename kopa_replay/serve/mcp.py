"""An MCP server exposing catalog tools, backed by a :class:`~kopa_replay.env.ToolEnvironment`.

Built on the ``mcp`` SDK's low-level :class:`mcp.server.Server`, so every tool's
name, title, description, ``inputSchema`` and annotations are exactly those of
:meth:`Tool.to_mcp` (the output schema is not advertised: the result is one JSON
text block, not structured content). A call runs ``env.call(name, arguments)``
— validated, sent through the source (strict replay of a snapshot by default),
parsed, classified and logged — and answers the result as JSON text::

    {"tool", "args", "outcome", "code", "message", "total_count", "page", "records", ...}

A result whose outcome is not ``ok`` (``empty``, ``structural_error``,
``environmental_error``) sets ``isError`` and adds a ``hint`` for the agent.

Run it::

    python -m kopa_replay.serve.mcp --snapshot 2026-09-01 [--tools 'dart_*'] [--transport http --port 8000]
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any, Sequence

from kopa_replay.catalog.model import Catalog
from kopa_replay.env.environment import DEFAULT_SNAPSHOT, ToolEnvironment, ToolResult
from kopa_replay.errors import KopaError, UsageError

__all__ = ["TRANSPORTS", "SERVER_NAME", "build_server", "result_content", "serve", "main"]

TRANSPORTS = ("stdio", "http")
SERVER_NAME = "kopa-replay"

_HINTS = {
    "empty": "The call was valid but matched no records: widen the date range or check the identifiers.",
    "structural_error": "The call itself is wrong: fix the named parameter against the tool's inputSchema "
    "(codes from another lookup tool, formats such as YYYYMMDD) and call again.",
    "environmental_error": "A transient or account condition on the platform side: the same call may succeed later.",
}


def result_content(result: ToolResult) -> dict[str, Any]:
    """The JSON payload of one call: :meth:`ToolResult.to_dict`, plus a ``hint`` when not ok."""
    payload = result.to_dict()
    if not result.ok:
        payload["hint"] = _HINTS.get(result.outcome, "The call did not succeed.")
    return payload


def _version() -> str:
    try:
        from importlib.metadata import version

        return version("kopa-replay")
    except Exception:  # pragma: no cover - not installed
        return "0"


def build_server(env: ToolEnvironment, catalog: Catalog | None = None) -> Any:
    """A low-level ``mcp.server.Server`` listing ``catalog`` (default: the environment's) and calling through ``env``.

    Tools outside ``catalog`` are refused (``isError``) even if ``env`` knows them.
    """
    import mcp_types as types
    from mcp.server import Server

    catalog = env.catalog if catalog is None else catalog
    listed = []
    for tool in catalog:
        entry = tool.to_mcp()
        listed.append(
            types.Tool.model_validate(
                {
                    "name": entry["name"],
                    "title": entry["title"],
                    "description": entry["description"],
                    "inputSchema": entry["inputSchema"],
                    "annotations": entry["annotations"] or None,
                }
            )
        )

    def text(payload: Any, *, error: bool) -> Any:
        body = json.dumps(payload, ensure_ascii=False, default=str)
        return types.CallToolResult(content=[types.TextContent(type="text", text=body)], is_error=error)

    async def on_list_tools(ctx: Any, params: Any) -> Any:
        return types.ListToolsResult(tools=listed)

    async def on_call_tool(ctx: Any, params: Any) -> Any:
        name = params.name
        if name not in catalog:
            import difflib

            close = difflib.get_close_matches(name, list(catalog.names), n=3)
            return text(
                {
                    "tool": name,
                    "outcome": "structural_error",
                    "code": None,
                    "message": f"no tool named {name!r} on this server",
                    "hint": f"did you mean {', '.join(close)}?" if close else "list the tools first.",
                },
                error=True,
            )
        try:
            # Synchronous on purpose: replay answers from the local store in microseconds, and the
            # store's sqlite connection belongs to this thread.
            result = env.call(name, params.arguments or {})
        except KopaError as exc:  # e.g. CassetteMiss under strict replay
            return text(
                {
                    "tool": name,
                    "args": params.arguments or {},
                    "outcome": "environmental_error",
                    "code": type(exc).__name__,
                    "message": str(exc),
                    "hint": "The snapshot holds no recording of this exact call; "
                    "try the arguments of a recorded call or another snapshot.",
                },
                error=True,
            )
        return text(result_content(result), error=not result.ok)

    return Server(
        SERVER_NAME,
        version=_version(),
        instructions="Korean open public API tools (DART, data.go.kr, Seoul, NEIS, ...) replayed "
        "from a recorded snapshot. Results are JSON text.",
        on_list_tools=on_list_tools,
        on_call_tool=on_call_tool,
    )


def serve(
    snapshot: str = DEFAULT_SNAPSHOT,
    transport: str = "stdio",
    tools_pattern: str | None = None,
    store: Any = None,
    host: str = "127.0.0.1",
    port: int = 8000,
    *,
    source: str = "replay",
    catalog: Catalog | None = None,
) -> None:
    """Run the server until the client disconnects (stdio) or the process is stopped (http).

    ``http`` is the SDK's streamable HTTP transport at ``http://HOST:PORT/mcp`` (served by uvicorn).
    """
    if transport not in TRANSPORTS:
        raise UsageError(f"unknown transport {transport!r} (use one of: {', '.join(TRANSPORTS)})")
    if catalog is None:
        from kopa_replay.catalog import builtin_catalog

        catalog = builtin_catalog()
    if tools_pattern:
        catalog = catalog.filter(tools_pattern)
        if not len(catalog):
            raise UsageError(f"no tool matches {tools_pattern!r}")
    with ToolEnvironment.open(catalog, source=source, snapshot=snapshot, store=store) as env:
        server = build_server(env, catalog)
        if transport == "stdio":
            import anyio
            from mcp.server.stdio import stdio_server

            async def run() -> None:
                async with stdio_server() as (read_stream, write_stream):
                    await server.run(read_stream, write_stream, server.create_initialization_options())

            anyio.run(run)
        else:
            import socket
            import sys

            import uvicorn

            # bound here, before uvicorn starts: a busy port is a clean error naming it, not uvicorn's exit 3
            try:
                sock = socket.create_server((host, port), reuse_port=False)
            except OSError as exc:
                raise UsageError(
                    f"cannot serve MCP on {host}:{port}: {exc.strerror or exc} (another server there? choose --port)"
                ) from None
            bound = sock.getsockname()[1]
            print(
                f"serving {len(catalog)} tools from snapshot {snapshot} over MCP at http://{host}:{bound}/mcp "
                "(Ctrl-C stops)",
                file=sys.stderr,
                flush=True,
            )
            app = server.streamable_http_app(host=host)
            uvicorn.Server(uvicorn.Config(app, log_level="warning")).run(sockets=[sock])


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m kopa_replay.serve.mcp", description="Serve catalog tools over MCP from a recorded snapshot."
    )
    parser.add_argument("--snapshot", default=DEFAULT_SNAPSHOT)
    parser.add_argument("--transport", choices=TRANSPORTS, default="stdio")
    parser.add_argument("--tools", dest="tools_pattern", default=None, help="glob over tool names, e.g. 'dart_*'")
    parser.add_argument(
        "--store", default=None, help="cassette store (default: ./cassettes/kopa.sqlite, else the shipped one)"
    )
    parser.add_argument("--source", default="replay")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8000)
    ns = parser.parse_args(argv)
    try:
        serve(ns.snapshot, ns.transport, ns.tools_pattern, ns.store, ns.host, ns.port, source=ns.source)
    except KopaError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
