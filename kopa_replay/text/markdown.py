"""A JSON value as a Markdown document: ``--format markdown`` of the commands that have no report of their own.

The shape follows the value, the same way every time: a top-level key that holds a scalar is a bullet
(``- **key**: value``), one that holds a list or an object is a heading with its value below it; a list of flat
objects (every value a scalar) is a table whose columns are the keys in order of first appearance (numbers aligned
right); a list of scalars is a bullet list; anything deeper is a nested bullet list. Scalars are written as JSON
spells them (``null``, ``true``, ``1.5``), strings as they are, with the characters Markdown would read escaped.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from typing import Any

__all__ = ["escape", "markdown_document", "table"]

_SPECIAL = re.compile(r"([\\`*\[\]<>|])")
_MAX_HEADING = 6


def _scalar(value: Any) -> bool:
    return not isinstance(value, (dict, list))


def escape(text: str) -> str:
    """Plain text made literal in Markdown, on one line (as a table cell must be)."""
    return _SPECIAL.sub(r"\\\1", text).replace("\r\n", " ").replace("\n", " ")


def table(header: Sequence[str], rows: Iterable[Sequence[str]], align: Sequence[str]) -> list[str]:
    """A GitHub-flavoured Markdown table of plain-text cells (escaped here); ``align``: ``l`` or ``r`` per column."""

    def line(cells: Sequence[str]) -> str:
        return "| " + " | ".join(escape(cell) for cell in cells) + " |"

    return [line(header), "|" + "|".join("---:" if a == "r" else "---" for a in align) + "|", *map(line, rows)]


def _spelled(value: Any) -> str:
    """A scalar as JSON spells it (null, true, 1.5), a string as it is."""
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def _text(value: Any) -> str:
    """A scalar as one line of Markdown text: JSON's spelling for null, booleans and numbers, escaped otherwise."""
    return escape(_spelled(value))


def _flat_records(items: list[Any]) -> bool:
    return bool(items) and all(isinstance(i, dict) and all(_scalar(v) for v in i.values()) for i in items)


def _numbers(values: list[Any]) -> bool:
    """Whether a column holds numbers (nulls aside): it is aligned right."""
    present = [v for v in values if v is not None]
    return bool(present) and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in present)


def _table(items: list[dict[str, Any]]) -> list[str]:
    columns = list(dict.fromkeys(key for item in items for key in item))
    align = ["r" if _numbers([item.get(column) for item in items]) else "l" for column in columns]
    rows = [["" if c not in item else _spelled(item[c]) for c in columns] for item in items]
    return table([_spelled(c) for c in columns], rows, align)


def _bullets(value: Any, indent: str = "") -> list[str]:
    if isinstance(value, dict):
        lines = []
        for key, item in value.items():
            if _scalar(item):
                lines.append(f"{indent}- **{_text(key)}**: {_text(item)}")
            else:
                lines.append(f"{indent}- **{_text(key)}**:" + ("" if item else " (none)"))
                lines += _bullets(item, indent + "  ")
        return lines
    if isinstance(value, list):
        lines = []
        for number, item in enumerate(value, 1):
            if _scalar(item):
                lines.append(f"{indent}- {_text(item)}")
            else:
                lines.append(f"{indent}- [{number}]" + ("" if item else " (none)"))
                lines += _bullets(item, indent + "  ")
        return lines
    return [f"{indent}- {_text(value)}"]


def _block(value: Any, level: int) -> list[str]:
    """The lines of one section's body (without its heading)."""
    if isinstance(value, dict):
        if not value:
            return ["(none)"]
        scalars = [f"- **{_text(k)}**: {_text(v)}" for k, v in value.items() if _scalar(v)]
        lines = scalars + ([""] if scalars else [])
        for key, item in value.items():
            if _scalar(item):
                continue
            if level > _MAX_HEADING:  # deeper than Markdown's headings go: the rest as nested bullets
                lines += [f"- **{_text(key)}**:", *_bullets(item, "  "), ""]
                continue
            lines += [f"{'#' * level} {_text(key)}", "", *_block(item, level + 1), ""]
        return lines
    if isinstance(value, list):
        if not value:
            return ["(none)"]
        if _flat_records(value):
            return _table(value)
        return _bullets(value)
    return [_text(value)]


def markdown_document(value: Any, title: str | None = None) -> str:
    """``value`` (anything :func:`json.dumps` writes; other objects as their ``str``) as Markdown, under ``# title``.

    Deterministic: the same value gives the same bytes (objects keep their key order, as JSON output does)."""
    plain = json.loads(json.dumps(value, ensure_ascii=False, default=str))
    lines = [f"# {_text(title)}", ""] if title else []
    lines += _block(plain, 2 if title else 1)
    while lines and not lines[-1]:
        lines.pop()
    out: list[str] = []
    for line in lines:  # no two blank lines in a row
        if line or (out and out[-1]):
            out.append(line)
    return "\n".join(out) + "\n"
