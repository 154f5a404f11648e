"""The stdio transport of ``kopa-replay mcp serve`` (kopa_replay.serve.stdio) on real pipes, against the SDK's own.

Each session is a real server process driven line by line: a request written, its answer read before the next. The
SDK's transport is what the server uses when stdout is a regular file, so the same server answering into a file is
the reference the pipes' bytes are held to."""

from __future__ import annotations

import json
import os
import select
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
#: (line, whether it is answered): Korean records, a refused argument, an unknown tool, the listing, a line that is
#: not JSON (the session reads past it and answers nothing), a ping after it
SESSION = [
    (INITIALIZE, True),
    (INITIALIZED, False),
    ({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}, True),
    (_call(3, "datagokr_get_stock_price_info", {"srtnCd": "069540", "basDt": "20260831"}), True),
    (_call(4, "datagokr_get_stock_price_info", {"srtnCd": "069540", "basDt": "31 August"}), True),
    (_call(5, "no_such_tool", {}), True),
    ("this line is not JSON", False),
    ({"jsonrpc": "2.0", "id": 6, "method": "ping"}, True),
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


def _session(command: list[str], stdout_file: Path | None = None) -> tuple[list[bytes], bytes, int]:
    """The answers' lines to :data:`SESSION`, then stdout's rest (after stdin closed), with stderr and the exit code."""
    out = open(stdout_file, "wb") if stdout_file else subprocess.PIPE
    try:
        proc = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=out, stderr=subprocess.PIPE, cwd=ROOT, env=ENV)
    finally:
        if stdout_file:
            out.close()
    with proc:
        answers = _FileAnswers(stdout_file) if stdout_file else _PipeAnswers(proc.stdout)
        lines = []
        for message, answered in SESSION:
            proc.stdin.write(_line(message))
            proc.stdin.flush()
            if answered:
                lines.append(answers.next())
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


STRAY_SERVER = textwrap.dedent(
    """
    import os, subprocess
    import anyio
    from mcp.server import Server
    from kopa_replay.serve.stdio import stdio_streams

    async def on_list_tools(ctx, params):
        return {"tools": [{"name": "shout", "inputSchema": {"type": "object"}}]}

    async def on_call_tool(ctx, params):  # prints where a careless handler prints
        print("stray print from the handler", flush=True)
        subprocess.run(["echo", "stray echo from a child"], check=True)
        return {"content": [{"type": "text", "text": "answered"}]}

    async def main():
        server = Server("stray", on_list_tools=on_list_tools, on_call_tool=on_call_tool)
        async with stdio_streams() as (read, write):
            await server.run(read, write, server.create_initialization_options())

    anyio.run(main)
    print(f"after the transport: stdin blocking {os.get_blocking(0)}, stdout blocking {os.get_blocking(1)}")
    """
)


def test_stray_output_misses_the_wire_and_the_descriptors_come_back_blocking(tmp_path):
    script = tmp_path / "stray_server.py"
    script.write_text(STRAY_SERVER)
    with subprocess.Popen(
        [sys.executable, str(script)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT
    ) as proc:
        answers = _PipeAnswers(proc.stdout)
        for message in (INITIALIZE, INITIALIZED, _call(2, "shout", {})):
            proc.stdin.write(_line(message))
            proc.stdin.flush()
            if "id" in message:
                answer = json.loads(answers.next())
        proc.stdin.close()
        rest, stderr = answers.buffer + proc.stdout.read(), proc.stderr.read()
        assert proc.wait(timeout=WAIT_S) == 0
    assert answer["result"]["content"][0]["text"] == "answered"
    assert rest == b"after the transport: stdin blocking True, stdout blocking True\n"
    assert b"stray print from the handler" in stderr and b"stray echo from a child" in stderr


def test_a_client_that_goes_away_ends_the_server_quietly():
    with subprocess.Popen(
        SERVER, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT, env=ENV
    ) as proc:
        answers = _PipeAnswers(proc.stdout)
        proc.stdin.write(_line(INITIALIZE))
        proc.stdin.flush()
        answers.next()
        proc.stdout.close()  # the client stops reading, then asks for a listing it will never read
        proc.stdin.write(_line(INITIALIZED) + _line({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}))
        proc.stdin.flush()
        time.sleep(1)
        proc.stdin.close()
        assert proc.wait(timeout=WAIT_S) == 0
        assert proc.stderr.read() == b""


def test_a_terminal_or_a_file_is_served_by_the_sdks_transport(tmp_path):
    import anyio

    from kopa_replay.serve.stdio import own_pipes_possible

    read_end, write_end = os.pipe()
    regular = os.open(tmp_path / "file", os.O_RDWR | os.O_CREAT)
    terminal, terminal_side = os.openpty()
    try:

        async def decide() -> tuple[bool, ...]:
            return (
                own_pipes_possible(read_end, write_end),
                own_pipes_possible(read_end, regular),
                own_pipes_possible(regular, write_end),
                own_pipes_possible(terminal_side, terminal_side),
            )

        assert anyio.run(decide) == (True, False, False, False)
        assert not own_pipes_possible(read_end, write_end)  # outside an event loop
    finally:
        for fd in (read_end, write_end, regular, terminal, terminal_side):
            os.close(fd)
