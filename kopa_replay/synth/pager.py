"""Reading one step: a tool's pages up to a budget, each page a logged call of its own.

:meth:`ToolEnvironment.fetch_all` merges the pages into one result; a
trajectory also needs each page's call and records (the SFT export shows the
agent paging, and the state digest counts every page). :func:`read_pages`
follows the same rules as ``fetch_all`` — page or range style, a server that
caps the page size, stop at the reported total, an empty or short page, a
failed page, or the page budget — one :meth:`ToolEnvironment.call` per page,
so the merged records are the ones ``fetch_all`` gives (a test holds them equal).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from kopa_replay.catalog.model import Tool
from kopa_replay.env.environment import PageRead, result_digest

__all__ = ["StepRead", "read_pages", "with_page_size"]


@dataclass(frozen=True)
class StepRead(PageRead):
    """A step's pages and what they add up to (see :class:`~kopa_replay.env.environment.PageRead`), named
    after the tool and the arguments of its first page."""

    tool: str = ""
    args: Mapping[str, Any] = field(default_factory=dict)

    @property
    def digest(self) -> str:
        first = self.pages[0]
        return result_digest(self.tool, self.outcome, first.code, self.records)


def with_page_size(tool: Tool, args: Mapping[str, Any]) -> dict[str, Any]:
    """``args`` with the page size at the tool's maximum when the arguments leave it unset (page style only).

    An agent reading a list asks for big pages; a range-style call (Seoul's
    START/END) already names its window, so it is left alone.
    """
    pagination = tool.http.pagination
    out = dict(args)
    if (
        pagination.style == "page"
        and pagination.size_param
        and pagination.max_size
        and out.get(pagination.size_param) is None
    ):
        out[pagination.size_param] = pagination.max_size
    return out


def read_pages(env: Any, tool: Tool, args: Mapping[str, Any], max_pages: int) -> StepRead:
    """Call ``tool`` with ``args`` through ``env`` and follow its pagination for at most ``max_pages`` pages."""
    read = env.fetch_pages(tool.name, dict(args), max_pages)
    return StepRead(read.pages, read.records, read.total_count, read.complete, read.outcome, tool.name, dict(args))
