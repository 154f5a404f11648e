"""MCP's stdio transport on the event loop's own pipes: what :func:`mcp.server.stdio.stdio_server` does, without a
worker thread per line and without turning every answer from bytes to text and back.

The SDK's transport reads stdin and writes stdout through ``anyio.wrap_file``: each line read and each answer
written (a write, then a flush) is a hop to a worker thread and back, and each answer is dumped to JSON bytes,
decoded to ``str``, copied once more with its newline and encoded to UTF-8 again. Our answers are pages of records
(31 KB of JSON on average, twice: structuredContent and its text block); over a pipe those hops and copies were a
third of the server's time a call. Here the lines come from an asyncio pipe reader and each answer goes out as the
JSON bytes pydantic writes (the same bytes as ``model_dump_json().encode()``), written without blocking the loop:
a slow reader on the other end holds back its own answers, never the server's reading. Each answer is in the pipe
before the next is taken (the SDK's flush), so none is cut short when the server stops.

As the SDK does, the transport takes the process's descriptors 0 and 1 for itself while it serves: descriptor 0
reads the null device and descriptor 1 writes to stderr, so a stray ``print`` or a child process cannot corrupt a
message; both are put back on exit, also when the serving is cancelled. The wire is spoken on the pipes reopened
through ``/proc/self/fd`` — new open file descriptions of the same pipes, so their non-blocking mode is ours alone
and never reaches the client's or a sibling's copies of them, even if the server is killed. Where that cannot be
done — stdin or stdout not a pipe (a terminal, a regular file, a socket: asyncio's pipe writer takes a readable
socket for a closed one), no ``/proc`` (macOS), another loop than asyncio, Windows — :func:`stdio_streams` is the
SDK's own transport.

Lines are split on ``\\n``, and on ``\\r`` and ``\\r\\n`` as the SDK's universal newlines split them. A request line over
:data:`MAX_LINE` bytes is refused (the session is told, as of a line that is not JSON) and skipped to its end; the SDK
reads any length, but asyncio's reader would otherwise buffer up to twice its limit ahead of a busy session.
"""

from __future__ import annotations

import asyncio
import os
import stat
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager, suppress
from typing import Any

#: The wire's descriptors, as MCP's stdio transport defines it.
STDIN, STDOUT = 0, 1
#: The longest request line read, in bytes (16 MiB; a tool call's arguments are a few hundred bytes).
MAX_LINE = 16 << 20


def _is_pipe(fd: int) -> bool:
    try:
        return stat.S_ISFIFO(os.fstat(fd).st_mode)
    except OSError:
        return False


def own_pipes_possible(stdin_fd: int = STDIN, stdout_fd: int = STDOUT) -> bool:
    """Whether :func:`stdio_streams`, called from this event loop, serves on its own pipes (else it is the SDK's
    transport): both descriptors pipes, reopenable through ``/proc/self/fd``, on asyncio."""
    if sys.platform == "win32" or not os.path.isdir("/proc/self/fd"):
        return False
    try:
        asyncio.get_running_loop()
    except RuntimeError:  # called outside asyncio (trio, or no loop at all)
        return False
    return _is_pipe(stdin_fd) and _is_pipe(stdout_fd)


class _Claim:
    """Descriptors 0 and 1 diverted (null device, stderr) while the wire is spoken on the same pipes reopened
    (``wire_in``, ``wire_out``: non-blocking, and new open file descriptions, so that mode stays ours)."""

    def __init__(self) -> None:
        # O_NONBLOCK also keeps the opens from waiting: a FIFO opened to read waits for a writer, else
        self.wire_in = os.open(f"/proc/self/fd/{STDIN}", os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
        self.saved: list[int] = []
        try:
            self.wire_out = os.open(f"/proc/self/fd/{STDOUT}", os.O_WRONLY | os.O_NONBLOCK | os.O_CLOEXEC)
        except OSError:  # ENXIO: nobody reads stdout any more
            os.close(self.wire_in)
            raise
        try:
            self.saved.append(os.dup(STDIN))
            self.saved.append(os.dup(STDOUT))
            null = os.open(os.devnull, os.O_RDONLY)
            try:
                os.dup2(null, STDIN)
                os.dup2(2, STDOUT)
            finally:
                os.close(null)
        except OSError:
            self.release()
            for fd in (self.wire_in, self.wire_out):
                os.close(fd)
            raise

    def release(self) -> None:
        """Descriptors 0 and 1 back to the wire as they were (blocking as they were: never changed)."""
        for saved, fd in zip(self.saved, (STDIN, STDOUT)):
            with suppress(OSError):
                os.dup2(saved, fd)
            with suppress(OSError):
                os.close(saved)
        self.saved = []


@asynccontextmanager
async def _own_pipes(claim: _Claim) -> AsyncIterator[tuple[Any, Any]]:
    import anyio
    import mcp_types as types
    from mcp.shared.message import SessionMessage

    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=MAX_LINE)
    pipe_in, pipe_out = os.fdopen(claim.wire_in, "rb", buffering=0), os.fdopen(claim.wire_out, "wb", buffering=0)
    read_transport = write_transport = None
    try:
        # the transports own the reopened pipes from here (they close them)
        read_transport, _ = await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), pipe_in)
        write_transport, protocol = await loop.connect_write_pipe(asyncio.streams.FlowControlMixin, pipe_out)
        write_transport.set_write_buffer_limits(high=0)  # drain() returns once the answer is all in the pipe
        writer = asyncio.StreamWriter(write_transport, protocol, None, loop)
        read_send, read_stream = anyio.create_memory_object_stream[Any](0)
        write_stream, write_receive = anyio.create_memory_object_stream[Any](0)

        async def deliver(text: str) -> None:
            try:
                message = types.jsonrpc_message_adapter.validate_json(text, by_name=False)
            except Exception as exc:  # the session answers a line it cannot read; the transport goes on
                await read_send.send(exc)
                return
            await read_send.send(SessionMessage(message))

        async def next_line() -> bytes | None:
            """The next line (b"" at the end of input), or None for a line over MAX_LINE, read to its end and
            dropped."""
            try:
                return await reader.readuntil(b"\n")
            except asyncio.IncompleteReadError as exc:  # the end of input: a last line without its newline, or b""
                return exc.partial
            except asyncio.LimitOverrunError as exc:
                overrun = exc
            while True:  # drop what is buffered of it (up to its newline, if that came), then the rest of it
                await reader.readexactly(overrun.consumed)
                try:
                    await reader.readuntil(b"\n")
                    return None
                except asyncio.IncompleteReadError:
                    return None
                except asyncio.LimitOverrunError as exc:
                    overrun = exc

        async def read_lines() -> None:
            with suppress(anyio.BrokenResourceError):  # the session stopped reading (it ended): so does this
                async with read_send:
                    await read_into_session()

        async def read_into_session() -> None:
            while (line := await next_line()) != b"":
                if line is None:  # the session is told, as of a line it cannot read
                    await read_send.send(ValueError(f"a request line longer than {MAX_LINE} bytes"))
                    continue
                text = line.decode("utf-8", "replace")  # as the SDK reads it: undecodable bytes replaced
                if "\r" in text:  # universal newlines, as the SDK's text reader splits (on these only)
                    parts = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
                    for part in parts[:-1] if parts[-1] == "" else parts:  # "" after the line's own end
                        await deliver(part)
                else:
                    await deliver(text)

        async def write_answers() -> None:
            async with write_receive:
                async for session_message in write_receive:
                    message = session_message.message
                    # model_dump_json(by_alias=True, exclude_unset=True), the SDK's dump, without its decode to str
                    writer.write(message.__pydantic_serializer__.to_json(message, by_alias=True, exclude_unset=True))
                    writer.write(b"\n")
                    try:
                        await writer.drain()
                    except ConnectionError:  # the client is gone: nothing more can reach it
                        tg.cancel_scope.cancel()
                        return

        async with anyio.create_task_group() as tg:
            tg.start_soon(read_lines)
            tg.start_soon(write_answers)
            yield read_stream, write_stream
    finally:
        for transport in (write_transport, read_transport):
            if transport is not None:
                transport.close()
        for transport, pipe in ((read_transport, pipe_in), (write_transport, pipe_out)):
            if transport is None:  # never handed over: still ours to close
                pipe.close()
        claim.release()
        with anyio.CancelScope(shield=True):  # cancelled or not: let the transports' close callbacks run
            await asyncio.sleep(0)


@asynccontextmanager
async def stdio_streams() -> AsyncIterator[tuple[Any, Any]]:
    """``(read_stream, write_stream)`` for ``Server.run``: MCP over this process's stdin and stdout."""
    claim = None
    if own_pipes_possible():
        try:
            claim = _Claim()
        except OSError:  # /proc/self/fd refused the reopen, or nobody reads stdout any more: the SDK's finds out
            claim = None
    if claim is not None:
        async with _own_pipes(claim) as streams:
            yield streams
        return
    from mcp.server.stdio import stdio_server

    async with stdio_server() as streams:
        yield streams
