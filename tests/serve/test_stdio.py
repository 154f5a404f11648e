"""The stdio transport of ``kopa-replay mcp serve`` (kopa_replay.serve.stdio) on real pipes, against the SDK's own.

Each session is a real server process driven line by line: a request written, its answer read before the next. The
SDK's transport is what the server uses when stdout is a regular file, so the same server answering into a file is
the reference the pipes' bytes are held to."""

from __future__ import annotations

import json
import os
import select
import signal
import socket
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

pytest.importorskip("mcp")
pytestmark = pytest.mark.skipif(os.name == "nt", reason="the pipes transport is POSIX's")

ROOT = Path(__file__).resolve().parents[2]
SERVER = [sys.executable, "-m", "kopa_replay.serve.mcp", "--snapshot", "2026-09-01", "--tools", "datagokr_*"]
ENV = {**os.environ, "KOPA_API_KEY": ""}
WAIT_S = 60


def _line(message: dict | str) -> bytes:
    return (message if isinstance(message, str) else json.dumps(message, ensure_ascii=False)).encode() + b"\n"


def _call(request_id: int, name: str, arguments: dict) -> dict:
    return {
        "jsonrpc": "2.0",
        "id": request_id,
        "method": "tools/call",
        "params": {"name": name, "arguments": arguments},
    }


INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "test", "version": "1"}},
}
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}
#: Korean records, a refused argument, an unknown tool, the listing, a line that is not JSON (the session reads past
#: it and answers nothing), a ping after it
SESSION = [
    INITIALIZE,
    INITIALIZED,
    {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
    _call(3, "datagokr_get_stock_price_info", {"srtnCd": "069540", "basDt": "20260831"}),
    _call(4, "datagokr_get_stock_price_info", {"srtnCd": "069540", "basDt": "31 August"}),
    _call(5, "no_such_tool", {}),
    "this line is not JSON",
    {"jsonrpc": "2.0", "id": 6, "method": "ping"},
]


class _PipeAnswers:
    def __init__(self, pipe) -> None:
        self.pipe, self.buffer = pipe, b""

    def next(self) -> bytes:
        deadline = time.monotonic() + WAIT_S
        while b"\n" not in self.buffer:
            assert select.select([self.pipe], [], [], max(0.0, deadline - time.monotonic()))[0], "no answer in time"
            chunk = os.read(self.pipe.fileno(), 1 << 20)
            assert chunk, "the server closed stdout before answering"
            self.buffer += chunk
        line, self.buffer = self.buffer.split(b"\n", 1)
        return line


class _FileAnswers:
    def __init__(self, path: Path) -> None:
        self.path, self.read = path, 0

    def next(self) -> bytes:
        deadline = time.monotonic() + WAIT_S
        while True:
            lines = self.path.read_bytes().split(b"\n")
            if len(lines) - 1 > self.read:
                self.read += 1
                return lines[self.read - 1]
            assert time.monotonic() < deadline, "no answer in time"
            time.sleep(0.01)


def _start(command: list[str], **options) -> subprocess.Popen:
    options = {"stdin": subprocess.PIPE, "stdout": subprocess.PIPE, "stderr": subprocess.PIPE, **options}
    return subprocess.Popen(command, cwd=ROOT, env={**ENV, **options.pop("env", {})}, **options)


def _ask_lines(proc: subprocess.Popen, answers: _PipeAnswers | _FileAnswers, *messages: dict | str) -> list[bytes]:
    """Each message written; the answers to those with an id, read in turn (their lines)."""
    read = []
    for message in messages:
        proc.stdin.write(_line(message))
        proc.stdin.flush()
        if isinstance(message, dict) and "id" in message:
            read.append(answers.next())
    return read


def _ask(proc: subprocess.Popen, answers: _PipeAnswers, *messages: dict | str) -> list[dict]:
    """:func:`_ask_lines`, the answers read as JSON."""
    return [json.loads(line) for line in _ask_lines(proc, answers, *messages)]


def _session(command: list[str], stdout_file: Path | None = None) -> tuple[list[bytes], bytes, int]:
    """The answers' lines to :data:`SESSION`, then stdout's rest (after stdin closed), with stderr and the exit code."""
    out = open(stdout_file, "wb") if stdout_file else subprocess.PIPE
    try:
        proc = _start(command, stdout=out)
    finally:
        if stdout_file:
            out.close()
    with proc:
        answers = _FileAnswers(stdout_file) if stdout_file else _PipeAnswers(proc.stdout)
        lines = _ask_lines(proc, answers, *SESSION)
        proc.stdin.close()
        stderr = proc.stderr.read()
        code = proc.wait(timeout=WAIT_S)
        rest = (
            stdout_file.read_bytes().split(b"\n", len(lines))[-1]
            if stdout_file
            else answers.buffer + proc.stdout.read()
        )
    return lines, rest + stderr, code


def test_answers_over_pipes_are_the_bytes_the_sdks_transport_writes(tmp_path):
    ours, ours_rest, ours_code = _session(SERVER)
    sdks, sdks_rest, sdks_code = _session(SERVER, tmp_path / "answers.jsonl")
    assert ours_code == sdks_code == 0
    assert ours_rest == sdks_rest == b""  # nothing more on stdout, nothing on stderr
    assert [json.loads(line)["id"] for line in ours] == [1, 2, 3, 4, 5, 6]
    assert ours == sdks
    price = json.loads(ours[2])["result"]["structuredContent"]
    assert price["outcome"] == "ok" and price["records"]
    assert not ours[2].isascii()  # Korean names as UTF-8, not escaped
    assert json.loads(ours[3])["result"]["structuredContent"]["error_class"] == "structural"


#: a server of two tools over :func:`stdio_streams`: ``shout`` prints where a careless handler prints (its own
#: stdout, a child's), ``big`` answers ``n`` bytes of text; ``MAX_LINE`` from the environment. ``--cancel-after S``:
#: no server, the transport left by cancellation after S seconds. After the transport it says where descriptors 0 and 1 point, which
#: descriptors are open and whether 0 and 1 block.
TEST_SERVER = textwrap.dedent(
    """
    import os, subprocess, sys
    import anyio
    from mcp.server import Server
    from kopa_replay.serve import stdio

    stdio.MAX_LINE = int(os.environ.get("MAX_LINE", stdio.MAX_LINE))

    async def on_list_tools(ctx, params):
        return {"tools": [{"name": name, "inputSchema": {"type": "object"}} for name in ("shout", "big")]}

    async def on_call_tool(ctx, params):
        if params.name == "big":
            return {"content": [{"type": "text", "text": "x" * params.arguments["n"]}]}
        print("stray print from the handler", flush=True)
        subprocess.run(["echo", "stray echo from a child"], check=True)
        return {"content": [{"type": "text", "text": "answered"}]}

    def descriptors():
        return sorted(os.listdir("/proc/self/fd")), os.readlink("/proc/self/fd/0"), os.readlink("/proc/self/fd/1")

    async def main():
        if sys.argv[1:2] == ["--cancel-after"]:
            with anyio.move_on_after(float(sys.argv[2])):
                async with stdio.stdio_streams():
                    await anyio.sleep(1e9)  # cancelled while the transport serves
            return
        server = Server("test", on_list_tools=on_list_tools, on_call_tool=on_call_tool)
        async with stdio.stdio_streams() as (read, write):
            await server.run(read, write, server.create_initialization_options())

    before = descriptors()
    anyio.run(main)
    print(f"after: same descriptors {descriptors() == before}, blocking {os.get_blocking(0)} {os.get_blocking(1)}")
    """
)


@pytest.fixture
def test_server(tmp_path) -> list[str]:
    script = tmp_path / "test_server.py"
    script.write_text(TEST_SERVER)
    return [sys.executable, str(script)]


AFTER = b"after: same descriptors True, blocking True True\n"


def test_stray_output_misses_the_wire_and_the_descriptors_come_back_as_they_were(test_server):
    with _start(test_server) as proc:
        answers = _PipeAnswers(proc.stdout)
        *_, answer = _ask(proc, answers, INITIALIZE, INITIALIZED, _call(2, "shout", {}))
        proc.stdin.close()
        rest, stderr = answers.buffer + proc.stdout.read(), proc.stderr.read()
        assert proc.wait(timeout=WAIT_S) == 0
    assert answer["result"]["content"][0]["text"] == "answered"
    assert rest == AFTER
    assert b"stray print from the handler" in stderr and b"stray echo from a child" in stderr


def test_the_pipes_the_client_holds_stay_blocking_while_the_server_serves(test_server):
    """The server's non-blocking mode is on its own reopened pipes, not on the client's (or a sibling's) copies."""
    server_in, client_out = os.pipe()
    client_in, server_out = os.pipe()
    with _start(test_server, stdin=server_in, stdout=server_out) as proc:
        answers = _PipeAnswers(os.fdopen(client_in, "rb", buffering=0))
        with os.fdopen(client_out, "wb", buffering=0) as writer:
            proc.stdin = writer
            _ask(proc, answers, INITIALIZE, INITIALIZED, _call(2, "shout", {}))
            serving = [os.get_blocking(fd) for fd in (server_in, server_out, client_out, client_in)]
            proc.kill()  # no chance to put anything back
            proc.wait(timeout=WAIT_S)
            proc.stdin = None
        after = [os.get_blocking(fd) for fd in (server_in, server_out)]
        answers.pipe.close()
        for fd in (server_in, server_out):
            os.close(fd)
    assert serving == [True] * 4 and after == [True, True]


def test_the_last_answer_arrives_whole_when_the_server_stops_before_it_is_read(test_server):
    with _start(test_server) as proc:
        answers = _PipeAnswers(proc.stdout)
        _ask(proc, answers, INITIALIZE, INITIALIZED)
        # more than a pipe holds (64 KiB), less than twice: what the pipe cannot take waits in the server
        proc.stdin.write(_line(_call(2, "big", {"n": 100_000})))
        proc.stdin.flush()
        # its first bytes fill the pipe, the rest waits in the server
        assert select.select([proc.stdout], [], [], WAIT_S)[0], "no answer in time"
        proc.stdin.close()  # the server stops at the end of its input; its answer is not read yet
        time.sleep(1)  # time to stop, for a server that would drop the rest
        answer = json.loads(answers.next())
        rest = answers.buffer + proc.stdout.read()
        assert proc.wait(timeout=WAIT_S) == 0
    assert answer["id"] == 2 and len(answer["result"]["content"][0]["text"]) == 100_000
    assert rest == AFTER


def test_a_cancelled_transport_puts_the_descriptors_back_and_leaks_none(test_server):
    with _start([*test_server, "--cancel-after", "1"]) as proc:
        out, stderr = proc.stdout.read(), proc.stderr.read()  # stdin stays open: only the cancellation ends it
        assert proc.wait(timeout=WAIT_S) == 0
    assert out == AFTER and stderr == b""


def test_a_line_over_the_limit_is_refused_and_skipped_and_the_session_goes_on(test_server):
    with _start(test_server, env={"MAX_LINE": "4096"}) as proc:
        answers = _PipeAnswers(proc.stdout)
        _ask(proc, answers, INITIALIZE, INITIALIZED)
        too_long = _call(2, "big", {"n": 1, "padding": "x" * 100_000})
        (pong,) = _ask(proc, answers, json.dumps(too_long), {"jsonrpc": "2.0", "id": 3, "method": "ping"})
        proc.stdin.close()
        rest, stderr = answers.buffer + proc.stdout.read(), proc.stderr.read()
        assert proc.wait(timeout=WAIT_S) == 0
    assert pong == {"jsonrpc": "2.0", "id": 3, "result": {}}  # nothing answered the refused line
    assert rest == AFTER and b"Traceback" not in stderr


def test_carriage_returns_end_lines_as_in_the_sdks_text_reader(test_server):
    with _start(test_server) as proc:
        answers = _PipeAnswers(proc.stdout)
        _ask(proc, answers, INITIALIZE, INITIALIZED)
        pings = [json.dumps({"jsonrpc": "2.0", "id": n, "method": "ping"}) for n in (2, 3, 4)]
        proc.stdin.write(f"{pings[0]}\r{pings[1]}\r\n{pings[2]}\n".encode())
        proc.stdin.flush()
        ids = [json.loads(answers.next())["id"] for _ in pings]
        proc.stdin.close()
        assert proc.wait(timeout=WAIT_S) == 0
    assert sorted(ids) == [2, 3, 4]


def test_a_client_that_goes_away_ends_the_server_quietly():
    with _start(SERVER) as proc:
        _ask(proc, _PipeAnswers(proc.stdout), INITIALIZE)
        proc.stdout.close()  # the client stops reading, then asks for a listing it will never read
        proc.stdin.write(_line(INITIALIZED) + _line({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}))
        proc.stdin.flush()
        time.sleep(1)
        proc.stdin.close()
        assert proc.wait(timeout=WAIT_S) == 0
        assert proc.stderr.read() == b""


def _sigint_as_from_a_shell() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)  # a test runner's worker may ignore it, and children inherit that


def test_ctrl_c_stops_the_server_without_a_traceback():
    with _start(SERVER, preexec_fn=_sigint_as_from_a_shell) as proc:
        answers = _PipeAnswers(proc.stdout)
        _ask(proc, answers, INITIALIZE, INITIALIZED)
        proc.send_signal(signal.SIGINT)
        code = proc.wait(timeout=WAIT_S)
        assert (code, proc.stderr.read()[-3000:]) == (130, b"")


def test_a_terminal_a_file_or_a_socket_is_served_by_the_sdks_transport(tmp_path):
    import anyio

    from kopa_replay.serve.stdio import own_pipes_possible

    read_end, write_end = os.pipe()
    regular = os.open(tmp_path / "file", os.O_RDWR | os.O_CREAT)
    terminal, terminal_side = os.openpty()
    one, other = socket.socketpair()
    try:

        async def decide() -> tuple[bool, ...]:
            return (
                own_pipes_possible(read_end, write_end),
                own_pipes_possible(read_end, regular),
                own_pipes_possible(regular, write_end),
                own_pipes_possible(terminal_side, terminal_side),
                own_pipes_possible(one.fileno(), other.fileno()),  # inetd, socat: the SDK's reads them right
            )

        assert anyio.run(decide) == (True, False, False, False, False)
        assert not own_pipes_possible(read_end, write_end)  # outside an event loop
    finally:
        for fd in (read_end, write_end, regular, terminal, terminal_side):
            os.close(fd)
        one.close()
        other.close()
