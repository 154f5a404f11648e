"""The probe workload: the requests a recording sends to every tool (and so what a drift check compares).

Every catalog example of every tool, plus, for each paginated tool, one request
for the largest page its catalog allows (``page``: page 1 of ``max_size`` rows;
``range``: rows 1..``max_size``). The large page is what makes a lowered page
cap visible: it succeeds before the cap moves and fails (or comes back short)
after. The recorder replays the same list, so a snapshot and its refresh hold
the same requests.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from kopa_replay.catalog.model import Tool

__all__ = ["max_page_request", "probe_requests"]


def max_page_request(tool: Tool) -> dict[str, Any] | None:
    """Arguments asking ``tool`` for its catalog's largest page, or None when it does not page.

    The request builds on the tool's first example so that its required
    parameters are filled with values the catalog knows to work.
    """
    pagination = tool.http.pagination
    if pagination.max_size is None or not tool.examples:
        return None
    base = dict(tool.examples[0])
    if pagination.style == "page" and pagination.page_param and pagination.size_param:
        return {**base, pagination.page_param: 1, pagination.size_param: pagination.max_size}
    if pagination.style == "range" and pagination.start_param and pagination.end_param:
        return {**base, pagination.start_param: 1, pagination.end_param: pagination.max_size}
    return None


def probe_requests(catalog: Iterable[Tool]) -> list[tuple[str, dict[str, Any]]]:
    """(tool name, arguments) for every example of every tool, then its largest page; in catalog order."""
    requests: list[tuple[str, dict[str, Any]]] = []
    for tool in catalog:
        examples: list[Mapping[str, Any]] = list(tool.examples)
        requests.extend((tool.name, dict(example)) for example in examples)
        largest = max_page_request(tool)
        if largest is not None and largest not in examples:
            requests.append((tool.name, largest))
    return requests
