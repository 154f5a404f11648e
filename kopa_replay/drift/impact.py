"""What a set of drift changes touches: the fields a consumer reads, or a tool as a whole.

Answer drift (``bench drift``) and link impact (``graph reverify``) both start
from the same question — which of the things built on a snapshot can the drift
have moved? — and answer it with :func:`touched`:

* a change to one record field (removed, renamed, retyped, now null or
  optional, another string format) touches that field of that tool;
* a change to how the tool answers at all (gone, another response format or
  envelope, an envelope value of another type, result codes, requests that now
  fail) touches the whole tool (``None``): anything that reads it, any binding
  from or to it;
* additions (a new field, a raised page cap) touch nothing a consumer already
  reads. Neither do data changes (values, totals) — they are reported apart.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

__all__ = ["FIELD_KINDS", "WHOLE_TOOL", "TOOL_KINDS", "field_of", "touched", "touches"]

#: Change kinds that touch one record field (the change's ``path``).
FIELD_KINDS = frozenset(
    {"field_removed", "field_renamed", "type_changed", "became_nullable", "became_optional", "format_changed"}
)
#: Change kinds that touch the whole tool.
TOOL_KINDS = frozenset(
    {
        "tool_missing",
        "envelope_changed",
        "envelope_type_changed",
        "result_codes_changed",
        "outcome_changed",
        "page_size_changed",
    }
)
#: The value :func:`touched` holds for a tool touched as a whole.
WHOLE_TOOL = None
_RESPONSE_PATH = "$"


def field_of(path: str) -> str:
    """The record field a change's path names (its last segment: ``a.b`` → ``b``)."""
    return path.split(".")[-1].removesuffix("[]")


def touched(changes: Iterable[Any]) -> dict[str, frozenset[str] | None]:
    """Tool → the record fields the changes touch, or :data:`WHOLE_TOOL`; info-level changes touch nothing.

    ``changes`` are :class:`~kopa_replay.drift.diff.Change` objects (anything with ``tool``, ``kind``,
    ``path`` and ``severity``). Sorted by tool.
    """
    fields: dict[str, set[str]] = {}
    whole: set[str] = set()
    for change in changes:
        if change.severity == "info":
            continue
        if change.kind in TOOL_KINDS or (change.kind == "format_changed" and change.path == _RESPONSE_PATH):
            whole.add(change.tool)
        elif change.kind in FIELD_KINDS:
            fields.setdefault(change.tool, set()).add(field_of(change.path))
    out: dict[str, frozenset[str] | None] = {}
    for tool in sorted(whole | set(fields)):
        out[tool] = WHOLE_TOOL if tool in whole else frozenset(fields[tool])
    return out


def touches(touched_map: Mapping[str, frozenset[str] | None], tool: str, reads: Iterable[str] = ()) -> bool:
    """Whether ``tool`` is touched as a whole, or in one of the fields ``reads``."""
    if tool not in touched_map:
        return False
    fields = touched_map[tool]
    return fields is WHOLE_TOOL or bool(fields & set(reads))
