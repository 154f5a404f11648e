"""The async environment: the core's flows driven with awaited I/O (httpx.AsyncClient, asyncio.sleep)."""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Callable, Iterable, Mapping
from typing import Any, ClassVar

import httpx

from kopa_replay.catalog.model import Tool
from kopa_replay.env.core import EnvironmentBase, Flow, PageRead, Reply, ToolResult, prepare, step
from kopa_replay.env.source import AsyncSource, open_async_source
from kopa_replay.errors import UsageError

__all__ = ["AsyncToolEnvironment"]


class AsyncToolEnvironment(EnvironmentBase):
    """The async twin of :class:`~kopa_replay.env.sync.ToolEnvironment` (same core), with ``gather`` for fan-out.

    ``sleep`` (default ``asyncio.sleep``) may also be a plain function. :meth:`open` takes every source
    :func:`~kopa_replay.env.source.open_async_source` does: sim, live, replay, mirrors and mirror URLs.
    """

    source: AsyncSource
    _opener = staticmethod(open_async_source)
    # annotated as in EnvironmentBase: bare, mypy checks the staticmethod against a bound method's type
    _default_sleep: ClassVar[Callable[[float], Any]] = staticmethod(asyncio.sleep)

    async def call(
        self, tool: str, args: Mapping[str, Any] | None = None, *, copy_records: bool = True, log: bool = True
    ) -> ToolResult:
        """See :meth:`ToolEnvironment.call <kopa_replay.env.sync.ToolEnvironment.call>`."""
        return await self._drive(self._core.call_flow(tool, args, log=log, copy_records=copy_records))

    async def fetch_all(self, tool: str, args: Mapping[str, Any] | None = None, max_pages: int = 50) -> ToolResult:
        return await self._drive(self._core.fetch_all_flow(tool, args, max_pages))

    async def fetch_pages(self, tool: str, args: Mapping[str, Any] | None = None, max_pages: int = 50) -> PageRead:
        return await self._drive(self._core.pages_flow(tool, args, max_pages))

    async def gather(
        self, calls: Iterable[tuple[str, Mapping[str, Any] | None]], concurrency: int = 5
    ) -> list[ToolResult]:
        """Run ``(tool, args)`` calls concurrently (at most ``concurrency`` in flight).

        Results come back in the order of ``calls``, and are logged in that order
        (so the state digest does not depend on which answer arrived first).
        """
        if concurrency < 1:
            raise UsageError(f"concurrency must be at least 1, not {concurrency}")
        semaphore = asyncio.Semaphore(concurrency)

        async def one(name: str, args: Mapping[str, Any] | None) -> ToolResult:
            async with semaphore:
                return await self._drive(self._core.call_flow(name, args, log=False))

        results = await asyncio.gather(*(one(name, args) for name, args in calls))
        for result in results:
            self._core.append(result)
        return list(results)

    # I/O
    async def _send(self, tool: Tool, args: Mapping[str, Any], requests: dict[str | None, Any] | None = None) -> Reply:
        request = prepare(tool, args, self.source, requests)
        if isinstance(request, Reply):
            return request  # the snapshot's answer
        try:
            response = await self.source.client.request(
                request.method,
                request.url,
                # httpx takes str and bytes values in one mapping (a non-ASCII key goes as bytes): its HeaderTypes
                # annotation lists only all-str or all-bytes mappings
                headers=request.headers,  # type: ignore[arg-type]
                extensions=request.extensions,
            )
        except httpx.TransportError as exc:
            return request.failed(exc)
        return request.answered(response.status_code, response.content)

    async def _pause(self, seconds: float) -> None:
        slept = self._sleep(seconds)
        if inspect.isawaitable(slept):
            await slept

    async def _drive(self, flow: Flow) -> Any:
        op, result = step(flow)
        while op is not None:
            op, result = step(flow, await (self._send(*op[1:]) if op[0] == "send" else self._pause(op[1])))
        return result

    async def aclose(self) -> None:
        if self._owns_source:
            await self.source.aclose()

    async def __aenter__(self) -> "AsyncToolEnvironment":
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()
