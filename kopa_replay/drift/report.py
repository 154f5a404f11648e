"""Render drift as text, JSON, Markdown or JUnit XML, and decide whether it fails a CI gate.

Output is byte-deterministic: changes are rendered in their sorted order, JSON
keys are sorted, and nothing reads the clock. :func:`junit_xml` is the one
JUnit writer of the project: the answer-drift and link-impact reports render
their verdicts through it too, so every CI system reads them the same way.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Any
from urllib.parse import unquote
from xml.sax.saxutils import escape, quoteattr

from kopa_replay.drift.diff import SEVERITIES, Change
from kopa_replay.drift.requests import DriftReport
from kopa_replay.errors import UsageError

__all__ = [
    "FAIL_ON",
    "REPORT_FORMATS",
    "Case",
    "check_format",
    "crosses",
    "drift_cases",
    "junit_xml",
    "markdown_cell",
    "render",
    "summary",
]

REPORT_FORMATS = ("text", "json", "markdown", "junit")
#: ``--fail-on`` levels: the severities that make :func:`crosses` true at each.
FAIL_ON = {"breaking": ("breaking",), "warning": ("breaking", "warning")}
#: Requests named per change in Markdown (text gives their count; JSON and JUnit list them all).
_SHOWN_REQUESTS = 3
#: Characters XML 1.0 cannot hold at all (an API message may carry them): dropped from JUnit output.
_XML_INVALID = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


def _ordered(changes: Iterable[Change]) -> list[Change]:
    return sorted(changes, key=Change.sort_key)


def _as_report(drift: DriftReport | Iterable[Change]) -> DriftReport:
    if isinstance(drift, DriftReport):
        return drift
    changes = tuple(_ordered(drift))
    return DriftReport(changes, tools=tuple(sorted({c.tool for c in changes})))


def summary(changes: Iterable[Change]) -> dict[str, int]:
    """Counts by severity (every severity present, zero or not) and the total."""
    counts = {severity: 0 for severity in SEVERITIES}
    for change in changes:
        counts[change.severity] = counts.get(change.severity, 0) + 1
    counts["total"] = sum(counts[s] for s in SEVERITIES)
    return counts


def _summary_line(changes: Sequence[Change]) -> str:
    counts = summary(changes)
    return f"{counts['total']} change(s): " + ", ".join(f"{counts[s]} {s}" for s in SEVERITIES)


def _value(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


def _apart(report: DriftReport) -> list[str]:
    """The lines that say what is not drift: tools not checked, incidents (environmental failures and blocked
    answers), and data that moved."""
    lines = []
    if report.carried:
        lines.append(
            f"not checked: {len(report.carried)} tool(s) carried over unchanged by an incremental refresh "
            f"(not re-executed): {', '.join(report.carried)}"
        )
    if report.unpaired:
        lines.append(f"not compared: {report.unpaired} request(s) only the new snapshot holds")
    if report.noise:
        blocked = [c for c in report.noise if c.kind == "blocked"]
        lines.append(
            f"incidents (not drift; retried by refresh): {sum(len(c.requests) for c in report.noise)} "
            f"request(s) on {len({c.tool for c in report.noise})} tool(s)"
            + (
                f", {sum(len(c.requests) for c in blocked)} of them blocked (a wall, a page or nothing where data "
                "was expected: not recorded, sent again by the next refresh)"
                if blocked
                else ""
            )
        )
        lines += [f"  {'BLOCKED' if c.kind == 'blocked' else 'NOISE':<8} {c.tool}: {c.message}" for c in report.noise]
    if report.data:
        lines.append(
            f"data (not drift): {len({c.tool for c in report.data})} tool(s) answered the same requests with other data"
        )
        lines += [f"  DATA     {c.tool}: {c.message}" for c in report.data]
    return lines


def _text(report: DriftReport) -> str:
    lines = []
    for c in report.changes:
        # request-level changes say "in n of m requests" themselves
        shown = (
            f" ({len(c.requests)} request{'s' if len(c.requests) != 1 else ''})"
            if c.requests and not c.check_id.startswith("request-")
            else ""
        )
        lines.append(f"{c.severity.upper():<8} {c.tool} {c.path}: {c.message}{shown} [{c.check_id}]")
    return "\n".join(lines + [_summary_line(report.changes)] + _apart(report)) + "\n"


def _json(report: DriftReport) -> str:
    return json.dumps(report.to_dict(), ensure_ascii=False, sort_keys=True, indent=2) + "\n"


def markdown_cell(value: Any) -> str:
    """A value as one Markdown table cell (pipes and backslashes escaped, one line)."""
    return _value(value).replace("\\", "\\\\").replace("|", "\\|").replace("\n", " ")


def _requests_cell(change: Change) -> str:
    shown = [f"`{unquote(r)}`" for r in change.requests[:_SHOWN_REQUESTS]]
    more = len(change.requests) - len(shown)
    return "<br>".join(shown + ([f"+{more} more"] if more > 0 else []))


def _markdown(report: DriftReport) -> str:
    lines = [f"**{_summary_line(report.changes)}**", ""]
    if report.changes:
        lines += [
            "| severity | tool | path | kind | before | after | check | message | requests |",
            "|---|---|---|---|---|---|---|---|---|",
        ]
        lines += [
            "| "
            + " | ".join(
                [
                    *(
                        markdown_cell(v)
                        for v in (c.severity, c.tool, c.path, c.kind, c.before, c.after, c.check_id, c.message)
                    ),
                    _requests_cell(c).replace("|", "\\|"),
                ]
            )
            + " |"
            for c in report.changes
        ]
    apart = _apart(report)
    if apart:
        lines += [
            "",
            "<details><summary>Not drift: incidents and data</summary>",
            "",
            "```",
            *apart,
            "```",
            "",
            "</details>",
        ]
    return "\n".join(lines) + "\n"


# -- JUnit XML ---------------------------------------------------------------


@dataclass(frozen=True)
class Case:
    """One JUnit test case: ``failure`` (the failure's message) makes it fail, ``skipped`` skips it."""

    classname: str
    name: str
    failure: str | None = None
    details: str = ""
    skipped: str | None = None


def _xml_text(text: str) -> str:
    return escape(_XML_INVALID.sub("", text))


def _xml_attr(text: str) -> str:
    return quoteattr(_XML_INVALID.sub("", text))


def junit_xml(suite: str, cases: Sequence[Case], properties: Sequence[tuple[str, Any]] = ()) -> str:
    """A JUnit XML document (one ``testsuite`` in ``testsuites``, with ``properties`` when given) as CI systems
    read it; deterministic."""
    failures = sum(1 for c in cases if c.failure is not None)
    skipped = sum(1 for c in cases if c.failure is None and c.skipped is not None)
    head = f'tests="{len(cases)}" failures="{failures}" errors="0" skipped="{skipped}"'
    lines = [
        '<?xml version="1.0" encoding="UTF-8"?>',
        f"<testsuites name={_xml_attr(suite)} {head}>",
        f"  <testsuite name={_xml_attr(suite)} {head}>",
    ]
    if properties:
        lines += ["    <properties>"]
        lines += [
            f"      <property name={_xml_attr(name)} value={_xml_attr('' if value is None else str(value))}/>"
            for name, value in properties
        ]
        lines += ["    </properties>"]
    for case in cases:
        opening = f"    <testcase classname={_xml_attr(case.classname)} name={_xml_attr(case.name)}"
        if case.failure is not None:
            lines += [
                opening + ">",
                f'      <failure message={_xml_attr(case.failure)} type="failure">{_xml_text(case.details)}</failure>',
                "    </testcase>",
            ]
        elif case.skipped is not None:
            lines += [opening + ">", f"      <skipped message={_xml_attr(case.skipped)}/>", "    </testcase>"]
        elif case.details:
            lines += [opening + ">", f"      <system-out>{_xml_text(case.details)}</system-out>", "    </testcase>"]
        else:
            lines.append(opening + "/>")
    lines += ["  </testsuite>", "</testsuites>"]
    return "\n".join(lines) + "\n"


def _details(change: Change) -> str:
    return "\n".join(
        [
            f"{change.kind} at {change.path}: {_value(change.before)} -> {_value(change.after)}",
            *map(unquote, change.requests),
        ]
    )


def _case_name(change: Change) -> str:
    if not change.check_id.startswith("request-"):
        return f"{change.check_id} {change.path}"

    def side(value: Any) -> str:  # a request-level change is one transition: name it by its two ends
        if isinstance(value, dict):
            return "/".join(str(value.get(k)) for k in ("outcome", "code", "status", "format"))
        return _value(value)

    return f"{change.check_id} {side(change.before)} -> {side(change.after)}"


def _unique(cases: list[Case]) -> list[Case]:
    """Cases sorted, a repeated (classname, name) numbered: CI systems merge cases of one name."""
    out: list[Case] = []
    seen: dict[tuple[str, str], int] = {}
    for case in sorted(cases, key=lambda c: (c.classname, c.name, c.details)):
        key = (case.classname, case.name)
        seen[key] = seen.get(key, 0) + 1
        out.append(case if seen[key] == 1 else replace(case, name=f"{case.name} #{seen[key]}"))
    return out


def drift_cases(report: DriftReport, fail_on: str = "breaking") -> list[Case]:
    """One case per change (failing at ``fail_on``), one passing case per tool checked without any, one skipped
    case per environmental failure group and per tool carried over unchecked."""
    levels = _levels(fail_on)
    cases = [
        Case(f"drift.{c.tool}", _case_name(c), c.message if c.severity in levels else None, _details(c))
        for c in report.changes
    ]
    changed = {c.tool for c in report.changes}
    cases += [
        Case(f"drift.{tool}", "no drift") for tool in report.tools if tool not in changed and tool not in report.carried
    ]
    cases += [
        Case(
            f"drift.{tool}", "not checked", skipped="carried over unchanged by an incremental refresh, not re-executed"
        )
        for tool in report.carried
    ]
    cases += [Case(f"drift.{c.tool}", c.kind, skipped=c.message) for c in report.noise]
    return _unique(cases)


def _junit(report: DriftReport, fail_on: str = "breaking") -> str:
    return junit_xml("kopa-replay drift", drift_cases(report, fail_on))


_RENDERERS: dict[str, Callable[[DriftReport], str]] = {"text": _text, "json": _json, "markdown": _markdown}


def check_format(fmt: str) -> str:
    if fmt not in REPORT_FORMATS:
        raise UsageError(f"unknown report format {fmt!r} (choose from {', '.join(REPORT_FORMATS)})")
    return fmt


def render(drift: DriftReport | Iterable[Change], fmt: str = "text", fail_on: str | None = None) -> str:
    """A drift report (or a list of changes) as ``text`` (one line per change, a summary line, then what is not
    drift), ``json``, ``markdown`` (a table) or ``junit`` (each change reaching ``fail_on``, default breaking, a
    failing test case)."""
    report = _as_report(drift)
    if check_format(fmt) == "junit":
        return _junit(report, fail_on or "breaking")
    return _RENDERERS[fmt](report)


def _levels(fail_on: str) -> tuple[str, ...]:
    levels = FAIL_ON.get(fail_on)
    if levels is None:
        raise UsageError(f"unknown fail-on level {fail_on!r} (choose from {', '.join(FAIL_ON)})")
    return levels


def crosses(drift: DriftReport | Iterable[Change], fail_on: str) -> bool:
    """Whether any change reaches ``fail_on`` (``breaking``, or ``warning`` = warning or breaking); environmental
    noise and data changes never do."""
    levels = _levels(fail_on)
    changes = drift.changes if isinstance(drift, DriftReport) else drift
    return any(change.severity in levels for change in changes)
