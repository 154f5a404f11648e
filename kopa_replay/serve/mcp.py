"""An MCP server exposing catalog tools, backed by a :class:`~kopa_replay.env.ToolEnvironment`.

Built on the ``mcp`` SDK's low-level :class:`mcp.server.Server`, so every tool's
name, title, description, ``inputSchema`` and annotations are exactly those of
:meth:`Tool.to_mcp` (the output schema is not advertised: the result is one JSON
text block, not structured content). A call runs ``env.call(name, arguments)``
— validated, sent through the source (strict replay of a snapshot by default),
parsed, classified and logged — and answers the result as JSON text::

    {"tool", "args", "outcome", "code", "message", "total_count", "page", "records", ...}

A result whose outcome is not ``ok`` (``empty``, ``structural_error``,
``environmental_error``) sets ``isError`` and adds a ``hint`` for the agent. A call
the snapshot cannot answer at all is an ``isError`` result too, with an outcome of
its own kind (see :data:`RAISED`): a request it never recorded (``CassetteMiss``) is
``environmental_error`` with the miss hint; a recorded answer whose stored bytes do
not match their digest (``StoreError``) is ``store_error``, naming the tool, the
snapshot and ``kopa-replay snapshot verify``.

Over streamable HTTP every client has its own session; one with no request in
flight for ``session_idle_timeout`` seconds (default 600) is closed and forgotten
by the SDK's session manager, so clients that vanish without ending their session
hold nothing for long. All sessions share one environment (store, replay state).

Run it::

    python -m kopa_replay.serve.mcp --snapshot 2026-09-01 [--tools 'dart_*'] [--transport http --port 8000]
"""

from __future__ import annotations

import argparse
import json
import math
import shlex
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from kopa_replay.catalog.model import Catalog
from kopa_replay.env.environment import DEFAULT_SNAPSHOT, ToolEnvironment, ToolResult
from kopa_replay.errors import CassetteMiss, KopaError, StoreError, UsageError

__all__ = [
    "TRANSPORTS",
    "SERVER_NAME",
    "DEFAULT_SESSION_IDLE_TIMEOUT",
    "RAISED",
    "Raised",
    "build_server",
    "http_app",
    "raised_content",
    "result_content",
    "serve",
    "main",
]

TRANSPORTS = ("stdio", "http")
SERVER_NAME = "kopa-replay"

#: Seconds a streamable HTTP session may go without a request in flight before it is closed (``http`` only).
DEFAULT_SESSION_IDLE_TIMEOUT = 600.0

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


@dataclass(frozen=True)
class Raised:
    """How a call that raised ``error`` is answered: its ``outcome``, and a ``hint`` (a template over ``{tool}``,
    ``{snapshot}``, ``{store}``, ``{store_arg}`` (shell-quoted) and ``{error}``; ``message``, the same, defaults to
    the error's text)."""

    error: type[KopaError]
    outcome: str
    hint: str
    message: str = "{error}"


#: The answer to a call that raised, by the error's kind: the first entry the error is an instance of.
RAISED: tuple[Raised, ...] = (
    Raised(
        CassetteMiss,
        "environmental_error",
        "The snapshot holds no recording of this exact call; try the arguments of a recorded call or another snapshot.",
    ),
    Raised(
        StoreError,
        "store_error",
        "The server's store is corrupt: this call has a recording but it cannot be served, and calling again "
        "will not help; other calls may still answer. The operator can list what is damaged with "
        "`kopa-replay snapshot verify {snapshot} --store {store_arg}`.",
        "tool {tool!r} cannot be answered from snapshot {snapshot!r}: the store is corrupt: {error}",
    ),
    Raised(
        KopaError,
        "environmental_error",
        "The server could not run this call (see the message); other calls may still answer.",
    ),
)


def raised_content(name: str, args: Any, exc: KopaError, source_details: dict[str, Any]) -> dict[str, Any]:
    """The JSON payload of a call to tool ``name`` that raised ``exc`` (see :data:`RAISED`)."""
    kind = next(entry for entry in RAISED if isinstance(exc, entry.error))
    store = str(source_details.get("store") or "?")
    fields = {
        "tool": name,
        "snapshot": source_details.get("snapshot") or "?",
        "store": store,
        "store_arg": shlex.quote(store),
        "error": str(exc),
    }
    return {
        "tool": name,
        "args": args,
        "outcome": kind.outcome,
        "code": type(exc).__name__,
        "message": kind.message.format(**fields),
        "hint": kind.hint.format(**fields),
    }


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
                    # a generated paper-scale tool says so (Tool.to_mcp): clients see it in tools/list
                    **({"_meta": entry["_meta"]} if "_meta" in entry else {}),
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
        except KopaError as exc:  # CassetteMiss under strict replay, StoreError from a corrupt store, ...
            return text(raised_content(name, params.arguments or {}, exc, env.source.details), error=True)
        return text(result_content(result), error=not result.ok)

    return Server(
        SERVER_NAME,
        version=_version(),
        instructions="Korean open public API tools (DART, data.go.kr, Seoul, NEIS, ...) replayed "
        "from a recorded snapshot. Results are JSON text.",
        on_list_tools=on_list_tools,
        on_call_tool=on_call_tool,
    )


def _check_idle_timeout(seconds: float | None) -> None:
    if seconds is not None and not (math.isfinite(seconds) and seconds > 0):
        raise UsageError(f"--session-idle-timeout must be a positive number of seconds, not {seconds:g}")


def http_app(
    server: Any, *, host: str = "127.0.0.1", session_idle_timeout: float | None = DEFAULT_SESSION_IDLE_TIMEOUT
) -> Any:
    """The ASGI app serving ``server`` (from :func:`build_server`) over streamable HTTP at ``/mcp``.

    A session with no request in flight (none being answered, no open GET stream) for ``session_idle_timeout``
    seconds is closed by the SDK's session manager and dropped from its table, with its transport and server
    task; its id then answers 404 and its client must initialize again. None keeps a session until its client
    ends it (DELETE) or the server stops. The app's lifespan runs the session manager: serve it with lifespan on.
    """
    _check_idle_timeout(session_idle_timeout)
    return server.streamable_http_app(host=host, session_idle_timeout=session_idle_timeout)


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
    session_idle_timeout: float | None = DEFAULT_SESSION_IDLE_TIMEOUT,
) -> None:
    """Run the server until the client disconnects (stdio) or the process is stopped (http).

    ``http`` is the SDK's streamable HTTP transport at ``http://HOST:PORT/mcp`` (served by uvicorn); its
    sessions close after ``session_idle_timeout`` idle seconds (see :func:`http_app`).
    """
    if transport not in TRANSPORTS:
        raise UsageError(f"unknown transport {transport!r} (use one of: {', '.join(TRANSPORTS)})")
    _check_idle_timeout(session_idle_timeout)
    if catalog is None:
        from kopa_replay.catalog import builtin_catalog

        catalog = builtin_catalog()
    if tools_pattern:
        catalog = catalog.filter(tools_pattern)
        if not len(catalog):
            raise UsageError(f"no tool matches {tools_pattern!r}")
    with ToolEnvironment.open(catalog, source=source, snapshot=snapshot, store=store) as env:
        server = build_server(env, catalog)
        if env.source.details.get("pinned") is False:  # stderr: stdout is the stdio transport's
            import sys

            print(
                f"note: snapshot {snapshot} is open (not sealed): replayed as stored, no digest pins its answers",
                file=sys.stderr,
                flush=True,
            )
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
            idle = "never" if session_idle_timeout is None else f"after {session_idle_timeout:g} s"
            print(
                f"serving {len(catalog)} tools from snapshot {snapshot} over MCP at http://{host}:{bound}/mcp "
                f"(idle sessions close {idle}; Ctrl-C stops)",
                file=sys.stderr,
                flush=True,
            )
            app = http_app(server, host=host, session_idle_timeout=session_idle_timeout)
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
    parser.add_argument(
        "--session-idle-timeout",
        type=float,
        default=DEFAULT_SESSION_IDLE_TIMEOUT,
        metavar="SECONDS",
        help="http: close a session after this many seconds with no request in flight (default: %(default)g)",
    )
    ns = parser.parse_args(argv)
    try:
        serve(
            ns.snapshot,
            ns.transport,
            ns.tools_pattern,
            ns.store,
            ns.host,
            ns.port,
            source=ns.source,
            session_idle_timeout=ns.session_idle_timeout,
        )
    except KopaError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
