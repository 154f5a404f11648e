"""An MCP server exposing catalog tools, backed by a :class:`~kopa_replay.env.ToolEnvironment`.

Built on the ``mcp`` SDK's low-level :class:`mcp.server.Server`, so every tool's
name, title, description, ``inputSchema`` and annotations are exactly those of
:meth:`Tool.to_mcp`; its ``outputSchema`` (MCP 2025-06-18) is :func:`output_schema`:
one shape for every tool's results, success and error alike, whose records list the
fields the catalog knows for that tool. A call runs ``env.call(name, arguments)`` —
validated, sent through the source (strict replay of a snapshot by default), parsed,
classified (not logged: the server keeps no trajectory) — and answers that JSON object twice: as ``structuredContent``
and, serialized, as one text block for clients older than structured results::

    {"tool", "args", "snapshot", "outcome", "error_class", "code", "message", "status", "total_count",
     "page", "records", ...}

A result whose outcome is neither ``ok`` nor ``empty`` (a valid call that matched
nothing: an answer, with a ``hint`` to widen the query) sets ``isError``, adds a
``hint`` for the agent, and names its reason in ``error_class`` (see
:data:`ERROR_CLASSES`): ``structural`` (the call is wrong: an argument the
inputSchema refuses — the message names the tool and the parameter — a platform error
code, a tool this server does not list), ``environmental`` (the platform's side: a
5xx, 429, rate limit, maintenance, key), ``not_recorded`` (strict replay: the snapshot
holds no recording of this exact call, :class:`~kopa_replay.errors.CassetteMiss`) and
``corrupt_store`` (the recording exists but its stored bytes do not match their digest,
:class:`~kopa_replay.errors.StoreError`: the message names the tool, the snapshot and
``kopa-replay snapshot verify``). A call that raised is answered by :data:`RAISED`.

Over streamable HTTP every client has its own session; one with no request in
flight for ``session_idle_timeout`` seconds (default 600) is closed and forgotten
by the SDK's session manager, so clients that vanish without ending their session
hold nothing for long. All sessions share one environment (store, replay state).

Run it::

    python -m kopa_replay.serve.mcp --snapshot 2026-09-01 [--tools 'dart_*'] [--transport http --port 8000]
"""

from __future__ import annotations

import argparse
import gc
import json
import math
import shlex
import socket
import sys
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from kopa_replay.catalog.model import Catalog, Tool
from kopa_replay.env.environment import DEFAULT_SNAPSHOT, ToolEnvironment, ToolResult
from kopa_replay.errors import CassetteMiss, CatalogError, KopaError, StoreError, UsageError

__all__ = [
    "TRANSPORTS",
    "SERVER_NAME",
    "DEFAULT_SESSION_IDLE_TIMEOUT",
    "ERROR_CLASSES",
    "RAISED",
    "Raised",
    "build_server",
    "http_app",
    "listen",
    "output_schema",
    "raised_content",
    "record_field_schema",
    "result_content",
    "result_schema",
    "serve",
    "main",
]

TRANSPORTS = ("stdio", "http")
SERVER_NAME = "kopa-replay"

#: Seconds a streamable HTTP session may go without a request in flight before it is closed (``http`` only).
DEFAULT_SESSION_IDLE_TIMEOUT = 600.0

#: The reason class (``error_class``) of every outcome a result can have: None for ``ok`` and ``empty`` (a valid
#: answer that holds no records: the call was right, so not an ``isError`` result, though it carries a hint).
#: ``not_recorded`` and ``store_error`` are answers to calls that raised (:data:`RAISED`).
ERROR_CLASSES: dict[str, str | None] = {
    "ok": None,
    "empty": None,
    "structural_error": "structural",
    "environmental_error": "environmental",
    "blocked_error": "blocked",
    "not_recorded": "not_recorded",
    "store_error": "corrupt_store",
}

_HINTS = {
    "empty": "The call was valid but matched no records: widen the date range or check the identifiers.",
    "structural_error": "The call itself is wrong: fix the named parameter against the tool's inputSchema "
    "(codes from another lookup tool, formats such as YYYYMMDD) and call again.",
    "environmental_error": "A transient or account condition on the platform side: the same call may succeed later.",
    "blocked_error": "No answer from the platform: a bot wall, an HTML page or an empty body stood in front of it "
    "(the message has the evidence). Nothing is wrong with the call; it may pass later.",
}


def _answer(
    name: str,
    args: Any,
    snapshot: Any,
    outcome: str,
    code: str | None,
    message: str | None,
    hint: str | None,
    rest: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """The JSON payload of one call, its keys in the order a reader wants them (the records last)."""
    payload: dict[str, Any] = {
        "tool": name,
        "args": dict(args) if isinstance(args, Mapping) else {},
        "snapshot": snapshot if isinstance(snapshot, str) else None,
        "outcome": outcome,
        "error_class": ERROR_CLASSES[outcome],
        "code": code,
        "message": message,
    }
    if hint is not None:
        payload["hint"] = hint
    payload.update(rest or {"total_count": None, "records": []})
    return payload


def result_content(result: ToolResult, snapshot: str | None = None) -> dict[str, Any]:
    """The JSON payload of one call: :meth:`ToolResult.to_dict` with the ``snapshot`` that answered and the
    ``error_class`` of its outcome, plus a ``hint`` when not ok. An argument the tool's inputSchema refuses (nothing
    was sent) is a structural error whose message names the tool as well as the parameter."""
    fields = result.to_dict()
    message = result.message
    if result.outcome == "structural_error" and result.attempts == 0 and repr(result.tool) not in (message or ""):
        message = f"tool {result.tool!r} refused its arguments: {message}"
    rest = {key: value for key, value in fields.items() if key not in ("tool", "args", "outcome", "code", "message")}
    hint = None if result.ok else _HINTS.get(result.outcome, "The call did not succeed.")
    return _answer(result.tool, result.args, snapshot, result.outcome, result.code, message, hint, rest)


@dataclass(frozen=True)
class Raised:
    """How a call that raised ``error`` is answered: its ``outcome`` (a key of :data:`ERROR_CLASSES`), and a ``hint``
    (a template over ``{tool}``, ``{snapshot}``, ``{store}``, ``{store_arg}`` (shell-quoted) and ``{error}``;
    ``message``, the same, defaults to the error's text)."""

    error: type[KopaError]
    outcome: str
    hint: str
    message: str = "{error}"


#: The answer to a call that raised, by the error's kind: the first entry the error is an instance of.
RAISED: tuple[Raised, ...] = (
    Raised(
        # not the platform's doing: nothing was sent, the recording simply lacks these arguments
        CassetteMiss,
        "not_recorded",
        "The snapshot holds no recording of this exact call; try the arguments of a recorded call or another "
        "snapshot. Calling again with the same arguments will not help.",
    ),
    Raised(
        StoreError,
        "store_error",
        "The server's store is corrupt: this call has a recording but it cannot be served, and calling again "
        "will not help; other calls may still answer. The operator can list what is damaged with "
        "`kopa-replay snapshot verify {snapshot} --store {store_arg}`.",
        "tool {tool!r} cannot be answered from snapshot {snapshot!r}: the store is corrupt: {error}",
    ),
    # an argument the request builder refuses, a generated tool asked of the live platform, a catalog the tool's
    # binding does not fit: the call is wrong
    Raised(UsageError, "structural_error", _HINTS["structural_error"]),
    Raised(CatalogError, "structural_error", _HINTS["structural_error"]),
    Raised(
        KopaError,
        "environmental_error",
        "The server could not run this call (see the message); other calls may still answer.",
    ),
)


def raised_content(name: str, args: Any, exc: KopaError, source_details: Mapping[str, Any]) -> dict[str, Any]:
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
    return _answer(
        name,
        args,
        source_details.get("snapshot"),
        kind.outcome,
        type(exc).__name__,
        kind.message.format(**fields),
        kind.hint.format(**fields),
    )


# -- the outputSchema ---------------------------------------------------------
_JSON_TYPES = ("string", "integer", "number", "boolean", "array", "object", "null")
#: what else a field the catalog types as the key may hold in a result: a number the platform wrote as text (XML
#: has nothing else; comma numbers stay strings), an XML list of one element read as an object (and back)
_WIDER = {"integer": ("string",), "number": ("string",), "array": ("object",), "object": ("array",)}
_NULLABLE_STRING = {"type": ["string", "null"]}
_COUNT = {"type": "integer", "minimum": 0}

#: Every property of a result but ``records``: the same for every tool.
_ENVELOPE: dict[str, Any] = {
    "tool": {"type": "string"},
    "args": {"type": "object", "description": "the arguments as validated (coerced), or as sent when refused"},
    "snapshot": {**_NULLABLE_STRING, "description": "the snapshot that answered; null for a source without one"},
    "outcome": {"enum": list(ERROR_CLASSES)},
    "error_class": {
        "enum": sorted({cls for cls in ERROR_CLASSES.values() if cls is not None}) + [None],
        "description": "why the call failed (null when ok or empty): structural = the call is wrong, environmental = the "
        "platform's side (5xx, 429, rate limit, maintenance), not_recorded = the snapshot lacks this call, "
        "corrupt_store = its recording fails its digest",
    },
    "code": {**_NULLABLE_STRING, "description": "the platform's result code, or the error's name"},
    "message": _NULLABLE_STRING,
    "hint": {"type": "string", "description": "what to do next (isError and empty results)"},
    "status": {"type": "integer", "description": "HTTP status; 0 when nothing was sent or the transport failed"},
    "total_count": {"type": ["integer", "null"], "description": "records across all pages, as the platform says"},
    "page": {"type": ["object", "null"], "additionalProperties": {"type": ["integer", "null"]}},
    "attempts": _COUNT,
    "pages": _COUNT,
    "complete": {"type": "boolean"},
    "digest": {"type": "string"},
}
_REQUIRED = ["tool", "args", "snapshot", "outcome", "error_class", "code", "message", "total_count", "records"]


def record_field_schema(field: Mapping[str, Any]) -> dict[str, Any]:
    """A record field's schema as a result may hold it: the catalog's ``description``, and its ``type`` widened to
    what normalization and the platforms' encodings make of it — null always (a blank value, a missing element),
    plus :data:`_WIDER`. Patterns and enums are left out: a blank or unforeseen value breaks neither the call nor
    the schema."""
    out: dict[str, Any] = {}
    if "description" in field:
        out["description"] = field["description"]
    declared = field.get("type")
    if declared is not None:
        kinds = {declared} if isinstance(declared, str) else set(declared)
        kinds |= {wider for kind in tuple(kinds) for wider in _WIDER.get(kind, ())} | {"null"}
        out["type"] = [kind for kind in _JSON_TYPES if kind in kinds]
    return out


def result_schema(record_fields: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]:
    """The outputSchema of a tool whose records have ``record_fields`` (name → the catalog's field schema): every
    result's shape (:func:`result_content`, :func:`raised_content`), ok or not. Records may carry fields the catalog
    does not list and lack any it does."""
    records = {
        "type": "array",
        "items": {
            "type": "object",
            "properties": {name: record_field_schema(record_fields[name]) for name in sorted(record_fields)},
        },
    }
    return {"type": "object", "properties": {**_ENVELOPE, "records": records}, "required": _REQUIRED}


def output_schema(tool: Tool) -> dict[str, Any]:
    """:func:`result_schema` over ``tool``'s record fields (its catalog outputSchema's)."""
    return result_schema({name: tool.output_field_schema(name) for name in tool.output_fields})


_RECORDS_KEY = json.dumps("records")

#: How many characters of records' JSON text a server keeps (the least recently served pages go first): the
#: first example of every benchmark tool (54 calls, 1.7 M) several times over, and a bound on what the cache
#: keeps alive (its lists too, which are mostly the environment's memo's anyway).
RECORDS_TEXT_BUDGET = 16_000_000


class _RecordsText:
    """The JSON text of record lists served before, by the list's identity, least recently served evicted first.

    The environment hands out its interpretation memo's own records (``copy_records=False``), one list per
    distinct answer, shared by every call that gets that answer and never changed, so a list met again has the
    same text: writing it (31 KB on average over the benchmark tools' examples, 0.6 MB for a whole-market page)
    was most of what the handler spent on a call. Each entry holds its list, so an id cannot be reused by another
    list while it is cached; empty lists are written afresh (nothing to save, and each failed call brings a new
    one)."""

    def __init__(self, budget: int = RECORDS_TEXT_BUDGET) -> None:
        self.budget = budget
        self.size = 0
        self._entries: OrderedDict[int, tuple[list[Any], str]] = OrderedDict()

    def text(self, records: list[Any]) -> str:
        entry = self._entries.get(id(records))
        if entry is not None:  # the entry holds its list: the id is that list's
            self._entries.move_to_end(id(records))
            return entry[1]
        text = json.dumps(records, ensure_ascii=False)  # TypeError: not only JSON's types (the caller's to handle)
        if records and len(text) <= self.budget:
            self._entries[id(records)] = (records, text)
            self.size += len(text)
            while self.size > self.budget:
                _, (_, evicted) = self._entries.popitem(last=False)
                self.size -= len(evicted)
        return text


def _version() -> str:
    try:
        from importlib.metadata import version

        return version("kopa-replay")
    except Exception:  # pragma: no cover - not installed
        return "0"


def build_server(env: ToolEnvironment, catalog: Catalog | None = None) -> Any:
    """A low-level ``mcp.server.Server`` listing ``catalog`` (default: the environment's) and calling through ``env``.

    Tools outside ``catalog`` are refused (``isError``, structural) even if ``env`` knows them. The server's calls
    stay out of ``env``'s call log (it reads none): a long-running server keeps no trajectory.
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
                    "outputSchema": output_schema(tool),
                    "annotations": entry["annotations"] or None,
                    # a generated paper-scale tool says so (Tool.to_mcp): clients see it in tools/list
                    **({"_meta": entry["_meta"]} if "_meta" in entry else {}),
                }
            )
        )
    snapshot = env.source.details.get("snapshot")
    # Handlers answer in wire form (dicts, which the SDK accepts beside its models): the SDK validates and dumps
    # every result into its own dict anyway, so a model built here would be walked once more for nothing — for
    # tools/list (833 tools, 3.6 MB) ≈ 70 ms per client that lists, for a page of records its size again.
    listing = types.ListToolsResult(tools=listed).model_dump(by_alias=True, mode="json", exclude_none=True)

    texts = _RecordsText()

    def answer(payload: dict[str, Any]) -> dict[str, Any]:
        # The text block (for clients older than structured results) is the JSON of structuredContent, written
        # as json.dumps writes the whole payload: the envelope, then the records (last), whose text is kept per
        # page served (the same page answers call after call). structuredContent is the payload itself, which
        # the SDK copies while it checks it; with only JSON's types in it (else json.dumps raises TypeError) it
        # goes on the wire as the same JSON as the text.
        head = dict(payload)
        records = head.pop("records")
        try:
            body = f"{json.dumps(head, ensure_ascii=False)[:-1]}, {_RECORDS_KEY}: {texts.text(records)}}}"
            structured = {**head, "records": records}
        except TypeError:  # a value JSON has no type for: the text spells it with str(), structuredContent as read
            body = json.dumps(payload, ensure_ascii=False, default=str)
            structured = json.loads(body)
        return {
            "content": [{"type": "text", "text": body}],
            "structuredContent": structured,
            "isError": payload["error_class"] is not None,
        }

    async def on_list_tools(ctx: Any, params: Any) -> Any:
        return listing  # the SDK copies what a handler returns before shaping it for the wire

    async def on_call_tool(ctx: Any, params: Any) -> Any:
        name = params.name
        arguments = params.arguments or {}
        if name not in catalog:
            import difflib

            close = difflib.get_close_matches(name, list(catalog.names), n=3)
            hint = f"did you mean {', '.join(close)}?" if close else "list the tools first."
            message = f"no tool named {name!r} on this server"
            return answer(_answer(name, arguments, snapshot, "structural_error", None, message, hint))
        try:
            # Synchronous on purpose: replay answers from the local store in microseconds, and the
            # store's sqlite connection belongs to this thread. The records are the environment's own (no copy):
            # they are only serialized here, never changed. Unlogged: nothing here reads a call log, which would
            # grow one entry a call for as long as the server runs (a caller's own entries are left as they are).
            result = env.call(name, arguments, copy_records=False, log=False)
        except KopaError as exc:  # CassetteMiss under strict replay, StoreError from a corrupt store, ...
            return answer(raised_content(name, arguments, exc, env.source.details))
        return answer(result_content(result, snapshot))

    return Server(
        SERVER_NAME,
        version=_version(),
        instructions="Korean open public API tools (DART, data.go.kr, Seoul, NEIS, ...) replayed "
        "from a recorded snapshot. Each result is structured content (see the tool's outputSchema), also sent as "
        "JSON text; a failed call says why in error_class.",
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

    Each answer is one JSON body (``json_response``), not a server-sent event: the server streams nothing while it
    answers, and the SDK's client caps one event at 1 MiB, which a page of a thousand records (sent twice, as
    structuredContent and as text) or the full catalog's tools/list passes; a JSON body has no such cap.
    """
    _check_idle_timeout(session_idle_timeout)
    return server.streamable_http_app(host=host, session_idle_timeout=session_idle_timeout, json_response=True)


def listen(host: str = "127.0.0.1", port: int = 0) -> socket.socket:
    """A listening TCP socket on ``host:port`` (0: any free port) for uvicorn's ``sockets=``, bound before uvicorn
    starts so that a busy port is a clean :class:`UsageError` naming it, not uvicorn's exit 3. Nagle's algorithm is
    off on its connections (see :func:`kopa_replay.sim.server.listen`: ≈ 40 ms a request otherwise)."""
    from kopa_replay.sim.server import listen as tcp_listen

    try:
        return tcp_listen(host, port)
    except OSError as exc:
        raise UsageError(
            f"cannot serve MCP on {host}:{port}: {exc.strerror or exc} (another server there? choose --port)"
        ) from None


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
        # What was built to serve (the catalog, the tools/list answer, the store's caches) lives as long as the
        # server: frozen, the collector's full passes (one every few hundred calls of big pages, each stalling every
        # client) no longer walk it
        gc.freeze()
        if transport == "stdio":
            import anyio

            from kopa_replay.serve.stdio import stdio_streams

            async def run() -> None:
                async with stdio_streams() as (read_stream, write_stream):
                    await server.run(read_stream, write_stream, server.create_initialization_options())

            anyio.run(run)
        else:
            import sys

            import uvicorn

            sock = listen(host, port)
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
    except KeyboardInterrupt:  # Ctrl-C (SIGINT) stops the server: no traceback for it
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(main())
