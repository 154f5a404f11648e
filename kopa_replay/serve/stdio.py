"""MCP's stdio transport on the event loop's own pipes: what :func:`mcp.server.stdio.stdio_server` does, without a
worker thread per line and without turning every answer from bytes to text and back.

The SDK's transport reads stdin and writes stdout through ``anyio.wrap_file``: each line read and each answer
written (a write, then a flush) is a hop to a worker thread and back, and each answer is dumped to JSON bytes,
decoded to ``str``, copied once more with its newline and encoded to UTF-8 again. Our answers are pages of records
(31 KB of JSON on average, twice: structuredContent and its text block); over a pipe those hops and copies were a
third of the server's time a call. Here the lines come from an asyncio pipe reader and each answer goes out as the
JSON bytes pydantic writes (the same bytes as ``model_dump_json().encode()``), written without blocking the loop:
a slow reader on the other end holds back its own answers (``drain``), never the server's reading.

As the SDK does, the transport takes the process's descriptors 0 and 1 for itself while it serves: the wire is
spoken on private duplicates, descriptor 0 reads the null device and descriptor 1 writes to stderr, so a stray
``print`` or a child process cannot corrupt a message; both are put back on exit. Where that cannot be done the
same way — stdin or stdout is not a pipe or a socket (a terminal, whose non-blocking mode would outlive us in the
shell; a regular file, which asyncio cannot watch), another loop than asyncio, Windows — :func:`stdio_streams` is
the SDK's own transport.
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
#: The longest request line read (the SDK reads without a limit); asyncio's reader buffers at most twice this.
MAX_LINE = 1 << 30


def _is_pipe_or_socket(fd: int) -> bool:
    try:
        mode = os.fstat(fd).st_mode
    except OSError:
        return False
    return stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode)


def own_pipes_possible(stdin_fd: int = STDIN, stdout_fd: int = STDOUT) -> bool:
    """Whether :func:`stdio_streams`, called from this event loop, serves on its own pipes (else it is the SDK's
    transport)."""
    if sys.platform == "win32":
        return False
    try:
        asyncio.get_running_loop()
    except RuntimeError:  # called outside asyncio (trio, or no loop at all)
        return False
    return _is_pipe_or_socket(stdin_fd) and _is_pipe_or_socket(stdout_fd)


class _Claim:
    """Descriptors 0 and 1 diverted (null device, stderr) while the wire is spoken on private duplicates."""

    def __init__(self) -> None:
        self.wire_in = os.dup(STDIN)
        try:
            self.wire_out = os.dup(STDOUT)
        except OSError:
            os.close(self.wire_in)
            raise
        null = os.open(os.devnull, os.O_RDONLY)
        try:
            os.dup2(null, STDIN)
            os.dup2(2, STDOUT)
        except OSError:
            self.release()
            raise
        finally:
            os.close(null)

    def release(self) -> None:
        for wire, fd in ((self.wire_in, STDIN), (self.wire_out, STDOUT)):
            with suppress(OSError):
                os.set_blocking(wire, True)  # asyncio made the pipe non-blocking; the process's next reader expects not
                os.dup2(wire, fd)
            with suppress(OSError):
                os.close(wire)


@asynccontextmanager
async def _own_pipes() -> AsyncIterator[tuple[Any, Any]]:
    import anyio
    import mcp_types as types
    from mcp.shared.message import SessionMessage

    loop = asyncio.get_running_loop()
    claim = _Claim()
    reader = asyncio.StreamReader(limit=MAX_LINE)
    read_transport = write_transport = None
    try:
        # asyncio closes the file it is given: hand it duplicates, so the claim still holds the wire to put back
        read_transport, _ = await loop.connect_read_pipe(
            lambda: asyncio.StreamReaderProtocol(reader), os.fdopen(os.dup(claim.wire_in), "rb", buffering=0)
        )
        write_transport, protocol = await loop.connect_write_pipe(
            asyncio.streams.FlowControlMixin, os.fdopen(os.dup(claim.wire_out), "wb", buffering=0)
        )
        writer = asyncio.StreamWriter(write_transport, protocol, None, loop)
        read_send, read_stream = anyio.create_memory_object_stream[Any](0)
        write_stream, write_receive = anyio.create_memory_object_stream[Any](0)

        async def read_lines() -> None:
            async with read_send:
                while line := await reader.readline():
                    try:  # as the SDK reads it: UTF-8, undecodable bytes replaced
                        message = types.jsonrpc_message_adapter.validate_json(
                            line.decode("utf-8", "replace"), by_name=False
                        )
                    except Exception as exc:  # the session answers a line it cannot read; the transport goes on
                        await read_send.send(exc)
                        continue
                    await read_send.send(SessionMessage(message))

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
        await asyncio.sleep(0)  # let the transports' close callbacks run before the descriptors are put back
        claim.release()


@asynccontextmanager
async def stdio_streams() -> AsyncIterator[tuple[Any, Any]]:
    """``(read_stream, write_stream)`` for ``Server.run``: MCP over this process's stdin and stdout."""
    if own_pipes_possible():
        async with _own_pipes() as streams:
            yield streams
        return
    from mcp.server.stdio import stdio_server

    async with stdio_server() as streams:
        yield streams
