"""Render a list of changes as text, JSON or Markdown, and decide whether it fails a CI gate.

Output is byte-deterministic: changes are rendered in their sorted order, JSON
keys are sorted, and nothing reads the clock.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from typing import Any

from kopa_replay.drift.diff import SEVERITIES, Change
from kopa_replay.errors import UsageError

__all__ = ["FAIL_ON", "REPORT_FORMATS", "crosses", "render", "summary"]

REPORT_FORMATS = ("text", "json", "markdown")
#: ``--fail-on`` levels: the severities that make :func:`crosses` true at each.
FAIL_ON = {"breaking": ("breaking",), "warning": ("breaking", "warning")}


def _ordered(changes: Iterable[Change]) -> list[Change]:
    return sorted(changes, key=Change.sort_key)


def summary(changes: Iterable[Change]) -> dict[str, int]:
    """Counts by severity (every severity present, zero or not) and the total."""
    counts = {severity: 0 for severity in SEVERITIES}
    for change in changes:
        counts[change.severity] = counts.get(change.severity, 0) + 1
    counts["total"] = sum(counts[s] for s in SEVERITIES)
    return counts


def _summary_line(changes: list[Change]) -> str:
    counts = summary(changes)
    return f"{counts['total']} change(s): " + ", ".join(f"{counts[s]} {s}" for s in SEVERITIES)


def _value(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


def _text(changes: list[Change]) -> str:
    lines = [f"{c.severity.upper():<8} {c.tool} {c.path}: {c.message} [{c.check_id}]" for c in changes]
    return "\n".join(lines + [_summary_line(changes)]) + "\n"


def _json(changes: list[Change]) -> str:
    document = {"changes": [c.to_dict() for c in changes], "summary": summary(changes)}
    return json.dumps(document, ensure_ascii=False, sort_keys=True, indent=2) + "\n"


def _cell(value: Any) -> str:
    return _value(value).replace("\\", "\\\\").replace("|", "\\|").replace("\n", " ")


def _markdown(changes: list[Change]) -> str:
    lines = [f"**{_summary_line(changes)}**", ""]
    if changes:
        lines += ["| severity | tool | path | kind | before | after | check | message |",
                  "|---|---|---|---|---|---|---|---|"]
        lines += ["| " + " | ".join(_cell(v) for v in (c.severity, c.tool, c.path, c.kind, c.before, c.after,
                                                         c.check_id, c.message)) + " |" for c in changes]
    return "\n".join(lines) + "\n"


_RENDERERS: dict[str, Callable[[list[Change]], str]] = {"text": _text, "json": _json, "markdown": _markdown}


def render(changes: Iterable[Change], fmt: str = "text") -> str:
    """The changes as ``text`` (one line each, then a summary line), ``json`` or ``markdown`` (a table)."""
    renderer = _RENDERERS.get(fmt)
    if renderer is None:
        raise UsageError(f"unknown report format {fmt!r} (choose from {', '.join(REPORT_FORMATS)})")
    return renderer(_ordered(changes))


def crosses(changes: Iterable[Change], fail_on: str) -> bool:
    """Whether any change reaches ``fail_on`` (``breaking``, or ``warning`` = warning or breaking)."""
    levels = FAIL_ON.get(fail_on)
    if levels is None:
        raise UsageError(f"unknown fail-on level {fail_on!r} (choose from {', '.join(FAIL_ON)})")
    return any(change.severity in levels for change in changes)
