"""The sync environment: the core's flows driven with blocking I/O (httpx.Client, time.sleep)."""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from typing import Any, ClassVar

import httpx

from kopa_replay.catalog.model import Tool
from kopa_replay.env.core import EnvironmentBase, Flow, PageRead, Reply, ToolResult, prepare, step
from kopa_replay.env.source import Source, open_source

__all__ = ["ToolEnvironment"]


class ToolEnvironment(EnvironmentBase):
    """Execute catalog tools against a :class:`~kopa_replay.env.source.Source`, keeping a log.

    ``retries`` (default 0: pruning measures raw outcomes) retries
    ``environmental_error`` outcomes with exponential backoff through ``sleep`` (default ``time.sleep``).
    :meth:`open` opens the source through the registry (see :func:`~kopa_replay.env.source.open_source`).
    """

    source: Source
    _opener = staticmethod(open_source)
    # annotated as in EnvironmentBase: bare, mypy checks the staticmethod against a bound method's type
    _default_sleep: ClassVar[Callable[[float], Any]] = staticmethod(time.sleep)

    # calls
    def call(
        self, tool: str, args: Mapping[str, Any] | None = None, *, copy_records: bool = True, log: bool = True
    ) -> ToolResult:
        """Call ``tool`` with ``args``. ``copy_records=False``: the records are shared with the environment's
        memo and every other result of the same answer — read them, never write them. ``log=False``: the call
        stays out of :attr:`log` and the state digest (a server answering for others keeps no trajectory)."""
        return self._drive(self._core.call_flow(tool, args, log=log, copy_records=copy_records))

    def fetch_all(self, tool: str, args: Mapping[str, Any] | None = None, max_pages: int = 50) -> ToolResult:
        """Follow the tool's pagination until the total, an empty page or ``max_pages`` pages."""
        return self._drive(self._core.fetch_all_flow(tool, args, max_pages))

    def fetch_pages(self, tool: str, args: Mapping[str, Any] | None = None, max_pages: int = 50) -> PageRead:
        """What :meth:`fetch_all` reads, page by page: each page's result (each a logged call) and their sum."""
        return self._drive(self._core.pages_flow(tool, args, max_pages))

    # I/O
    def _send(self, tool: Tool, args: Mapping[str, Any], requests: dict[str | None, Any] | None = None) -> Reply:
        request = prepare(tool, args, self.source, requests)
        if isinstance(request, Reply):
            return request  # the snapshot's answer
        try:
            response = self.source.client.request(
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

    def _drive(self, flow: Flow) -> Any:
        op, result = step(flow)
        while op is not None:
            op, result = step(flow, self._send(*op[1:]) if op[0] == "send" else self._sleep(op[1]))
        return result

    def close(self) -> None:
        if self._owns_source:
            self.source.close()

    def __enter__(self) -> "ToolEnvironment":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
