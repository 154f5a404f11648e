"""`kopa-replay mcp serve` under many clients, beside the mcp SDK's own no-op tool server (the floor), in one run.

Streamable HTTP: calls/s and p50/p99 latency at 1, 8 and 32 concurrent clients, each its own session calling tools
in a loop for ``--seconds``, and the CPU time each server process spent per call. Three servers, each a
subprocess served the same way (the SDK's streamable HTTP app, ``json_response``, stateful sessions, a 600 s idle
timeout, one uvicorn on a loopback socket), driven by the same client code:

* **noop** (the floor): an ``MCPServer`` (the SDK's FastMCP) with one tool ``noop`` returning a constant;
* **same answers**: the SDK's low-level ``Server`` listing our tools (the same outputSchemas) and answering each
  call with our answer to it, computed once at start: what moving these answers through the SDK costs, server
  and client, with no work per call of ours;
* **ours**: ``python -m kopa_replay mcp serve --transport http`` — every built-in tool, strict replay of the shipped
  snapshot.

Two clients (``--client``), the same sessions and calls for every server:

* **raw** (the default): plain JSON-RPC over httpx — initialize, notifications/initialized, then tools/call POSTs
  with the ``Mcp-Session-Id`` header — reading each answer's bytes and json-decoding them, no more: what the
  server costs;
* **sdk**: the mcp SDK's ``ClientSession``, which parses every result into its models and validates
  structuredContent against the tool's outputSchema (≈ 7.5 ms a call on these answers): what an agent's client
  sees.

The calls are every benchmark tool's first catalog example (the tools the shipped tasks call, the corpCode ZIP left
out as in bench_env.py), round robin, each client from its own offset: the same calls every run. The noop server
is called with ``noop`` instead.

Each server's sessions are opened once (the largest client count) and reused by every cell; the first lists the
tools (timed: ``tools/list``). The SDK's other sessions share its schema cache — its client lists once per session
and compiles a validator per tool, which a long-lived client pays once, and which for 833 tools (3.6 MB) would
cost the benchmark ≈ 1 s a session. Cells alternate between the servers, so a busy moment on the machine hits all
alike.

Stdio the same: one client launching each server over stdio (raw: JSON-RPC lines over the pipe), calling for
``--seconds``. The noop floor is served by the SDK's stdio transport (``mcp.server.stdio.stdio_server``: a worker
thread per line read and per answer written); ours and same answers by ours (``kopa_replay.serve.stdio``: the event
loop's own pipes, answers written as the JSON bytes pydantic makes), so that same answers still tells what our
server does per call beyond moving its answers.

The clients all run in this process, on one event loop; each server is one process. On two cores the clients and
the server take about a core each, and calls/s and latency depend on both. The server's CPU time a call (Linux:
``/proc``, 10 ms ticks over a cell) does not, nor on what else runs on the machine.

    python benchmarks/bench_mcp.py [--client raw|sdk|raw,sdk] [--seconds 4] [--clients 1,8,32] [--no-stdio] [--json]

About 75 s a client at the defaults.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import socket
import statistics
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Sequence
from typing import Any, Protocol

import anyio
import httpx
from anyio.streams.buffered import BufferedByteReceiveStream
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client

IDLE_TIMEOUT = 600.0
SERVERS = ("noop", "same", "ours")
CLIENTS = ("raw", "sdk")
LABELS = {"noop": "noop (floor)", "same": "same answers", "ours": "ours"}
CLIENT_LABELS = {
    "raw": "plain JSON-RPC, each answer read and json-decoded: what the server costs",
    "sdk": "the mcp SDK's ClientSession, validating structuredContent: what an agent's client sees",
}
Call = tuple[str, dict[str, Any]]


def workload() -> list[Call]:
    """Every benchmark tool's first catalog example, by tool name."""
    from kopa_replay.bench.suite import load_task_set
    from kopa_replay.catalog import builtin_catalog

    catalog = builtin_catalog()
    names = sorted({tool for task in load_task_set().tasks for tool, _ in task.reference_calls})
    return [(name, dict(catalog.get(name).examples[0])) for name in names if name != "dart_corp_code"]


def _calls_of(kind: str) -> list[Call]:
    return [("noop", {})] if kind == "noop" else workload()


# -- the servers ----------------------------------------------------------------
def _noop_server() -> Any:
    from mcp.server.mcpserver import MCPServer

    server = MCPServer("noop")

    @server.tool()
    def noop() -> str:
        """Answers a constant."""
        return "ok"

    return server


def _same_answers_server() -> Any:
    """The SDK's low-level server answering our answers (to the workload's calls), computed once, from memory."""
    from mcp.server import Server

    from kopa_replay.catalog import builtin_catalog
    from kopa_replay.env import ToolEnvironment
    from kopa_replay.serve.mcp import build_server

    catalog = builtin_catalog()
    ours: Any

    class Params:  # what the SDK hands a tools/call handler, as far as ours reads it
        def __init__(self, name: str, arguments: dict[str, Any]) -> None:
            self.name, self.arguments = name, arguments

    async def compute() -> tuple[Any, dict[str, Any]]:
        listing = await ours._request_handlers["tools/list"].handler(None, None)
        call = ours._request_handlers["tools/call"].handler
        return listing, {_key(name, args): await call(None, Params(name, args)) for name, args in workload()}

    with ToolEnvironment.open(catalog) as env:
        ours = build_server(env, catalog)
        listing, answers = anyio.run(compute)

    async def on_list_tools(ctx: Any, params: Any) -> Any:
        return listing

    async def on_call_tool(ctx: Any, params: Any) -> Any:
        return answers[_key(params.name, params.arguments or {})]

    return Server("same-answers", on_list_tools=on_list_tools, on_call_tool=on_call_tool)


def _key(name: str, args: dict[str, Any]) -> str:
    return json.dumps([name, args], sort_keys=True, ensure_ascii=False)


def serve_floor(kind: str, transport: str) -> None:
    """A floor server (``noop`` or ``same``) over ``transport``, served as ``kopa_replay.serve.mcp.serve`` serves."""
    made = _noop_server() if kind == "noop" else _same_answers_server()
    lowlevel = getattr(made, "_lowlevel_server", made)
    if transport == "stdio":
        from mcp.server.stdio import stdio_server

        from kopa_replay.serve.stdio import stdio_streams

        async def run() -> None:
            async with stdio_server() if kind == "noop" else stdio_streams() as (read, write):
                await lowlevel.run(read, write, lowlevel.create_initialization_options())

        anyio.run(run)
        return
    import uvicorn

    # bound as uvicorn binds a host and port itself (a TCP socket: asyncio turns Nagle off on its connections),
    # not through kopa_replay.serve.mcp.listen, so the floor does not share a fault of ours
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    sock.listen(2048)
    print(f"serving {kind} over MCP at http://127.0.0.1:{sock.getsockname()[1]}/mcp", file=sys.stderr, flush=True)
    app = lowlevel.streamable_http_app(host="127.0.0.1", session_idle_timeout=IDLE_TIMEOUT, json_response=True)
    uvicorn.Server(uvicorn.Config(app, log_level="warning")).run(sockets=[sock])


def _server_command(kind: str, transport: str) -> list[str]:
    if kind != "ours":
        return [sys.executable, os.path.abspath(__file__), "--serve", kind, transport]
    command = [sys.executable, "-m", "kopa_replay", "mcp", "serve", "--transport", transport]
    if transport == "http":
        command += ["--port", "0", "--session-idle-timeout", f"{IDLE_TIMEOUT:g}"]
    return command


def _start_http(kind: str) -> tuple[subprocess.Popen[str], str]:
    proc = subprocess.Popen(
        _server_command(kind, "http"), stderr=subprocess.PIPE, text=True, env={**os.environ, "KOPA_API_KEY": ""}
    )
    assert proc.stderr is not None
    line = proc.stderr.readline()
    while line.startswith("note:"):
        line = proc.stderr.readline()
    if " at " not in line:
        proc.kill()
        raise SystemExit(f"the {kind} server did not start: {line}{proc.stderr.read()}")
    return proc, line.split(" at ")[1].split()[0]


# -- the clients ----------------------------------------------------------------
class Caller(Protocol):
    """One client session, as the timing loop sees it: call a tool, say whether the answer was an error."""

    async def call(self, name: str, args: dict[str, Any]) -> bool: ...

    async def list_tools(self) -> None: ...


class _Sdk:
    """The mcp SDK's ``ClientSession``: parses every result into its models and validates structuredContent
    against the tool's outputSchema, as an agent's client does."""

    def __init__(self, session: ClientSession) -> None:
        self.session = session

    async def call(self, name: str, args: dict[str, Any]) -> bool:
        return bool((await self.session.call_tool(name, args)).is_error)

    async def list_tools(self) -> None:
        await self.session.list_tools()


#: The handshake version the SDK's own client offers (``LATEST_HANDSHAKE_VERSION``), so both clients speak alike.
RAW_PROTOCOL_VERSION = "2025-11-25"


def _request(request_id: int, method: str, params: dict[str, Any]) -> bytes:
    return json.dumps({"jsonrpc": "2.0", "id": request_id, "method": method, "params": params}).encode()


def _initialize_params() -> dict[str, Any]:
    return {
        "protocolVersion": RAW_PROTOCOL_VERSION,
        "capabilities": {},
        "clientInfo": {"name": "bench-mcp-raw", "version": "0"},
    }


_INITIALIZED = json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}).encode()


def _result(message: Any, method: str) -> dict[str, Any]:
    if not isinstance(message, dict) or not isinstance(message.get("result"), dict):
        raise RuntimeError(f"{method}: no result in the answer: {str(message)[:300]}")
    return message["result"]


class _Raw:
    """What both plain JSON-RPC clients share: tools/call and tools/list through their ``request``."""

    async def request(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        raise NotImplementedError

    async def call(self, name: str, args: dict[str, Any]) -> bool:
        return bool((await self.request("tools/call", {"name": name, "arguments": args})).get("isError"))

    async def list_tools(self) -> None:
        await self.request("tools/list", {})


class _RawHttp(_Raw):
    """Plain JSON-RPC over streamable HTTP with its own httpx connection: initialize, notifications/initialized,
    then POSTs carrying the ``Mcp-Session-Id`` header. Each answer's bytes are read and json-decoded, nothing more
    (no models, no outputSchema validation): what the server costs, with the least a client can do."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.client = httpx.AsyncClient(timeout=120.0)
        self.headers = {"accept": "application/json, text/event-stream", "content-type": "application/json"}
        self.next_id = 0

    async def _post(self, body: bytes) -> httpx.Response:
        response = await self.client.post(self.url, content=body, headers=self.headers)
        response.raise_for_status()
        return response

    async def request(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        self.next_id += 1
        response = await self._post(_request(self.next_id, method, params))
        if not response.headers.get("content-type", "").startswith("application/json"):
            raise RuntimeError(f"{method}: a {response.headers.get('content-type')} answer (json_response is off?)")
        return _result(json.loads(response.content), method)

    async def initialize(self) -> None:
        self.next_id += 1
        response = await self._post(_request(self.next_id, "initialize", _initialize_params()))
        result = _result(json.loads(response.content), "initialize")
        self.headers["mcp-session-id"] = response.headers["mcp-session-id"]
        self.headers["mcp-protocol-version"] = result["protocolVersion"]
        await self._post(_INITIALIZED)

    async def aclose(self) -> None:
        with contextlib.suppress(httpx.HTTPError):
            await self.client.delete(self.url, headers=self.headers)
        await self.client.aclose()


class _RawStdio(_Raw):
    """Plain JSON-RPC lines over a server subprocess's stdin and stdout, read and json-decoded, nothing more."""

    def __init__(self, process: anyio.abc.Process) -> None:
        assert process.stdin is not None and process.stdout is not None
        self.stdin = process.stdin
        self.stdout = BufferedByteReceiveStream(process.stdout)
        self.next_id = 0

    async def _answer_to(self, request_id: int | None) -> Any:
        while True:  # skip what is not the answer (a log notification, say)
            message = json.loads(await self.stdout.receive_until(b"\n", 1 << 30))
            if isinstance(message, dict) and message.get("id") == request_id:
                return message

    async def request(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        self.next_id += 1
        await self.stdin.send(_request(self.next_id, method, params) + b"\n")
        return _result(await self._answer_to(self.next_id), method)

    async def initialize(self) -> None:
        await self.request("initialize", _initialize_params())
        await self.stdin.send(_INITIALIZED + b"\n")


def _cpu_s(pid: int | None) -> float | None:
    """CPU seconds (user + system) process ``pid`` has used so far, from Linux's /proc; None where there is none."""
    if pid is None:
        return None
    try:
        with open(f"/proc/{pid}/stat") as stat:
            fields = stat.read().rsplit(")", 1)[1].split()  # after the command name, which may hold spaces
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _children() -> set[int]:
    """This process's child pids (Linux), to find the server the SDK's stdio client started."""
    found: set[int] = set()
    with contextlib.suppress(OSError):
        for task in os.listdir(f"/proc/{os.getpid()}/task"):
            with open(f"/proc/{os.getpid()}/task/{task}/children") as children:
                found.update(int(pid) for pid in children.read().split())
    return found


def _summary(
    latencies: Sequence[float], seconds: float, errors: int, cpu: float | None, client_cpu: float
) -> dict[str, Any]:
    ordered = sorted(latencies)
    return {
        "calls": len(ordered),
        "errors": errors,
        "calls_per_s": round(len(ordered) / seconds, 1),
        "p50_ms": round(statistics.median(ordered) * 1e3, 2) if ordered else None,
        "p99_ms": round(ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))] * 1e3, 2) if ordered else None,
        # what the server process spent per call, whoever else was using the machine (10 ms ticks over the cell)
        "server_cpu_ms": round(cpu / len(ordered) * 1e3, 3) if cpu is not None and ordered else None,
        # and what this process (every client) spent per call
        "client_cpu_ms": round(client_cpu / len(ordered) * 1e3, 3) if ordered else None,
    }


async def _drive(
    sessions: Sequence[Caller], calls: Sequence[Call], seconds: float, pid: int | None = None
) -> dict[str, Any]:
    """Every session calls round robin (each from its own offset) until ``seconds`` have passed; ``pid``: the
    server's process, whose CPU time over the cell is reported per call."""
    latencies: list[float] = []
    errors = 0

    async def loop(index: int, session: Caller, deadline: float) -> None:
        nonlocal errors
        i = index * 7
        while time.perf_counter() < deadline:
            name, args = calls[i % len(calls)]
            i += 1
            start = time.perf_counter()
            errors += await session.call(name, args)
            latencies.append(time.perf_counter() - start)

    cpu, client_cpu = _cpu_s(pid), time.process_time()
    start = time.perf_counter()
    async with anyio.create_task_group() as tg:
        for index, session in enumerate(sessions):
            tg.start_soon(loop, index, session, start + seconds)
    elapsed = time.perf_counter() - start
    after, client_cpu = _cpu_s(pid), time.process_time() - client_cpu
    return _summary(latencies, elapsed, errors, None if cpu is None or after is None else after - cpu, client_cpu)


async def _listed(session: Caller) -> float:
    start = time.perf_counter()
    await session.list_tools()
    return round((time.perf_counter() - start) * 1e3, 1)


def _share_listing(first: ClientSession, other: ClientSession) -> bool:
    """Let ``other`` use ``first``'s cache of output schemas and compiled validators (SDK internals: False when they
    are not there, and ``other`` lists for itself)."""
    names = ("_tool_output_schemas", "_tool_output_validators")
    if not all(isinstance(getattr(session, name, None), dict) for session in (first, other) for name in names):
        return False
    for name in names:
        setattr(other, name, getattr(first, name))
    return True


@contextlib.asynccontextmanager
async def _http_sessions(url: str, count: int, client: str) -> AsyncIterator[tuple[list[Caller], float]]:
    """``count`` initialized sessions of ``client`` (raw or sdk), and how long the first one's tools/list took
    (ms). The SDK's sessions after the first share its schema cache; raw sessions list nothing but the first."""
    async with contextlib.AsyncExitStack() as stack:
        sessions: list[Caller] = []
        listed = 0.0
        first: ClientSession | None = None
        for index in range(count):
            if client == "raw":
                raw = _RawHttp(url)
                stack.push_async_callback(raw.aclose)
                await raw.initialize()
                sessions.append(raw)
            else:
                read, write = await stack.enter_async_context(streamable_http_client(url))
                session = await stack.enter_async_context(ClientSession(read, write))
                await session.initialize()
                if first is None:
                    first = session
                elif not _share_listing(first, session):
                    await session.list_tools()
                sessions.append(_Sdk(session))
            if index == 0:
                listed = await _listed(sessions[0])
        yield sessions, listed


async def _http(counts: Sequence[int], seconds: float, clients: Sequence[str]) -> dict[str, Any]:
    """Each client mode in turn, against the same three servers (started once)."""
    procs = {kind: _start_http(kind) for kind in SERVERS}
    try:
        out: dict[str, Any] = {}
        for client in clients:
            async with contextlib.AsyncExitStack() as stack:
                sessions, listed, calls = {}, {}, {}
                for kind, (_, url) in procs.items():
                    sessions[kind], listed[kind] = await stack.enter_async_context(
                        _http_sessions(url, max(counts), client)
                    )
                    calls[kind] = _calls_of(kind)
                    await _drive(sessions[kind], calls[kind], 1.0)  # warm: imports, first-call caches, validators
                cells = {}
                for count in counts:
                    cells[str(count)] = {
                        kind: await _drive(sessions[kind][:count], calls[kind], seconds, procs[kind][0].pid)
                        for kind in SERVERS
                    }
                out[client] = {"tools_list_ms": listed, "clients": cells}
        return out
    finally:
        for proc, _ in procs.values():
            proc.terminate()
            proc.wait(30)


async def _stdio(kind: str, seconds: float, client: str) -> dict[str, Any]:
    command = _server_command(kind, "stdio")
    env = {**os.environ, "KOPA_API_KEY": ""}
    calls = _calls_of(kind)
    session: Caller
    if client == "raw":
        async with await anyio.open_process(command, stderr=subprocess.DEVNULL, env=env) as process:
            session = _RawStdio(process)
            await session.initialize()
            listed = await _listed(session)
            await _drive([session], calls, 1.0)
            timed = await _drive([session], calls, seconds, process.pid)
            await process.stdin.aclose()  # type: ignore[union-attr]  # the server ends when its input does
            return {**timed, "tools_list_ms": listed}
    params = StdioServerParameters(command=command[0], args=command[1:], env=env)
    before = _children()
    with open(os.devnull, "w") as devnull:
        async with stdio_client(params, errlog=devnull) as (read, write):
            started = _children() - before
            pid = started.pop() if len(started) == 1 else None
            async with ClientSession(read, write) as sdk:
                await sdk.initialize()
                session = _Sdk(sdk)
                listed = await _listed(session)
                await _drive([session], calls, 1.0)
                return {**await _drive([session], calls, seconds, pid), "tools_list_ms": listed}


# -- the report -----------------------------------------------------------------
def _rows(result: dict[str, Any], client: str) -> list[tuple[str, dict[str, Any]]]:
    cells = result["http"][client]["clients"]
    rows = [(f"http, {count} client{'s' * (count != '1')}", cell) for count, cell in cells.items()]
    if client in result.get("stdio", {}):
        rows.append(("stdio, 1 client", result["stdio"][client]))
    return rows


def _cpu(ms: float | None) -> str:
    return f"[{ms:>5.2f}]" if ms is not None else f"{'[-]':>7}"


def _print(result: dict[str, Any]) -> None:
    print(f"{len(result['calls'])} calls round robin, {result['seconds']:g} s a cell; calls/s, p50 / p99 ms")
    for client in result["clients"]:
        print(f"\nclient: {client} ({CLIENT_LABELS[client]})")
        print(f"{'':<17}" + "".join(f"{LABELS[kind]:>36}" for kind in SERVERS) + f"{'ours/noop':>25}{'ours/same':>25}")
        for label, cell in _rows(result, client):
            line = f"{label:<17}"
            for kind in SERVERS:
                c = cell[kind]
                line += f"{c['calls_per_s']:>8}  {c['p50_ms']:>7} / {c['p99_ms']:>7}  {_cpu(c['server_cpu_ms'])}"
            for base in ("noop", "same"):
                ours, other = cell["ours"], cell[base]
                line += f"{ours['calls_per_s'] / other['calls_per_s']:>9.2f}x {ours['p50_ms'] / other['p50_ms']:>6.1f}x"
                cpu = ours["server_cpu_ms"] / other["server_cpu_ms"] if other["server_cpu_ms"] else None
                line += f" {cpu:>6.1f}x" if cpu is not None else f" {'-':>7}"
            errors = {kind: cell[kind]["errors"] for kind in SERVERS if cell[kind]["errors"]}
            print(line + (f"  isError: {errors}" if errors else ""))
        listed = result["http"][client]["tools_list_ms"]
        print("tools/list over http, ms: " + ", ".join(f"{LABELS[kind]} {listed[kind]}" for kind in SERVERS))
    print(
        "  (each server: calls/s, p50 / p99 ms, [server CPU ms a call]; ratios: calls/s ours over the other, p50 ours "
        "over the other, server CPU a call ours over the other)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=4.0, help="timed calling per cell (after a 1 s warm-up)")
    parser.add_argument("--clients", default="1,8,32", help="concurrent clients over streamable HTTP")
    parser.add_argument(
        "--client",
        default="raw",
        help="client modes, comma-separated: raw (plain JSON-RPC over httpx or the pipe: what the server costs), "
        "sdk (the mcp SDK's ClientSession, which validates every result: what an agent's client sees)",
    )
    parser.add_argument("--no-stdio", action="store_true", help="skip the stdio cells")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--serve", nargs=2, metavar=("KIND", "TRANSPORT"), help=argparse.SUPPRESS)
    options = parser.parse_args()
    if options.serve:
        serve_floor(*options.serve)
        return
    counts = [int(part) for part in options.clients.split(",")]
    clients = [part.strip() for part in options.client.split(",")]
    if not clients or any(client not in CLIENTS for client in clients):
        parser.error(f"--client takes {' or '.join(CLIENTS)} (comma-separated), not {options.client!r}")
    result: dict[str, Any] = {"seconds": options.seconds, "clients": clients, "calls": [n for n, _ in workload()]}
    result["http"] = anyio.run(_http, counts, options.seconds, clients)
    if not options.no_stdio:
        result["stdio"] = {
            client: {kind: anyio.run(_stdio, kind, options.seconds, client) for kind in SERVERS} for client in clients
        }
    if options.json:
        print(json.dumps(result, indent=2))
    else:
        _print(result)


if __name__ == "__main__":
    main()
