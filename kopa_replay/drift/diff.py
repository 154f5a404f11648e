"""Compare the schemas of two snapshots and classify what changed.

Severities follow oasdiff's response-side rules: a change that breaks a client
reading the old response is ``breaking`` (a field removed or renamed, a type
changed, the envelope or format changed, an envelope value such as the total
count of another type, a field became nullable, the page cap lowered, an ok
code replaced by an unknown one); one a careful client may trip
on is ``warning`` (a field became optional, a string format changed, new result
codes); one no client notices is ``info`` (a field added, a cap raised).

Data changes between snapshots — new prices, more bills, a bus that has not
come yet — so shares are compared as evidence, not as numbers: a share seen in
one snapshot counts as gone from the other only when seeing it zero times
there would be improbable (see :func:`_unlikely_absent`). A field present in 2
of 500 records and missing from 400 is not "removed"; one present in 2 of 2
and missing from 2 is. Where shares are too small to tell, the same record of
the same request is evidence of its own (:func:`values_turned_null`).
"""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from kopa_replay.drift.schema import FieldStats, ToolSchema

__all__ = [
    "ALPHA",
    "CHANGE_KINDS",
    "CHECKS",
    "RESPONSE_PATH",
    "SEVERITIES",
    "Change",
    "describe",
    "diff_schemas",
    "diff_tool",
    "values_turned_null",
]

SEVERITIES = ("breaking", "warning", "info")
CHANGE_KINDS = (
    "tool_missing",
    "tool_added",
    "format_changed",
    "envelope_changed",
    "envelope_type_changed",
    "field_removed",
    "field_renamed",
    "field_added",
    "type_changed",
    "became_optional",
    "became_nullable",
    "page_size_changed",
    "result_codes_changed",
    "outcome_changed",
    "status_changed",
)
#: Stable check ids, one per kind of comparison (format_changed has two: whole response and string values).
CHECKS = {
    "tool_missing": "response-tool-missing",
    "tool_added": "response-tool-added",
    "response_format": "response-format-changed",
    "envelope": "response-envelope-changed",
    "field_removed": "response-field-removed",
    "field_renamed": "response-field-renamed",
    "field_added": "response-field-added",
    "type_changed": "response-field-type-changed",
    "string_format": "response-field-format-changed",
    "became_optional": "response-field-became-optional",
    "became_nullable": "response-field-became-nullable",
    "page_size": "response-page-size-changed",
    "result_codes": "response-result-codes-changed",
    # request level (drift.requests): the same request in both snapshots
    "outcome": "request-outcome-changed",
    "status": "request-status-changed",
    "request_envelope": "request-envelope-changed",
    "request_code": "request-result-code-changed",
    "envelope_type": "request-envelope-type-changed",
    "request_nullable": "request-field-became-nullable",
}
#: How improbable "never seen" must be before a share counts as gone: 5 %.
ALPHA = 0.05
#: The path a whole-response change is reported under.
RESPONSE_PATH = "$"
#: Result-code classes whose appearance or disappearance is drift; no-data, structural and environmental codes
#: come and go with the data and the network.
_COMPARED_OUTCOMES = ("ok", "unknown")


@dataclass(frozen=True)
class Change:
    """One classified difference between two snapshots of a tool."""

    check_id: str
    tool: str
    path: str
    kind: str
    severity: str
    before: Any
    after: Any
    message: str
    #: the requests that show it (method and redacted URL), when request pairs were compared
    requests: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        out = {
            "check_id": self.check_id,
            "tool": self.tool,
            "path": self.path,
            "kind": self.kind,
            "severity": self.severity,
            "before": self.before,
            "after": self.after,
            "message": self.message,
        }
        if self.requests:
            out["requests"] = list(self.requests)
        return out

    def sort_key(self) -> tuple[str, ...]:
        return (
            self.tool,
            self.path,
            self.kind,
            self.check_id,
            json.dumps(self.before, sort_keys=True, ensure_ascii=False),
            json.dumps(self.after, sort_keys=True, ensure_ascii=False),
        )


# -- evidence ----------------------------------------------------------------


def _unlikely_absent(share: float, trials: int) -> bool:
    """Whether ``trials`` draws at a rate of ``share`` would all miss with probability below :data:`ALPHA`.

    The test behind every "it is gone" / "it is new" decision: a share observed
    in one snapshot, zero occurrences in ``trials`` of the other.
    """
    return trials > 0 and share > 0 and (1.0 - share) ** trials < ALPHA


def _shifted(before: Mapping[str, int], after: Mapping[str, int]) -> tuple[list[str], list[str]]:
    """(gone, new): categories whose share in one snapshot makes their absence from the other improbable."""
    n_before, n_after = sum(before.values()), sum(after.values())
    gone = sorted(k for k, v in before.items() if v and not after.get(k) and _unlikely_absent(v / n_before, n_after))
    new = sorted(k for k, v in after.items() if v and not before.get(k) and _unlikely_absent(v / n_after, n_before))
    return gone, new


def _canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False, default=str)


def _identity(record: Mapping[str, Any], left_out: frozenset[str]) -> str:
    """What names a record apart from the fields ``left_out``: its keys, and the values of the others."""
    keys = sorted(str(k) for k in record)
    return _canonical([keys, {str(k): v for k, v in record.items() if str(k) not in left_out}])


def values_turned_null(before: Sequence[Mapping[str, Any]], after: Sequence[Mapping[str, Any]]) -> dict[str, int]:
    """Field → how many records of ``after`` hold null in it where the same record of ``before`` held a value.

    ``before`` and ``after`` are the records one request got in two snapshots. A record of ``after`` is the same
    record as one of ``before`` when both hold the same keys and the same value in every field that is not null in
    ``after``; what is left (at least one value) must name exactly one record of ``before``, which ``after`` no
    longer holds unchanged. Positions say nothing: where the newest records come first, a record added since
    shifts every other one down, and a record added since has no twin at all — a bill proposed after the old
    snapshot, with no committee date yet, shows that the data grew, not that the API answers a date with null.
    """
    unchanged = {_canonical(record) for record in after}
    by_nulls: dict[frozenset[str], list[Mapping[str, Any]]] = defaultdict(list)
    for record in after:
        nulls = frozenset(str(k) for k, v in record.items() if v is None)
        if nulls and len(nulls) < len(record):
            by_nulls[nulls].append(record)
    lost: Counter[str] = Counter()
    for nulls, records in by_nulls.items():
        twins: dict[str, dict[str, Mapping[str, Any]]] = defaultdict(dict)  # identity → its distinct records
        for old in before:
            twins[_identity(old, nulls)][_canonical(old)] = old
        for record in records:
            found = twins.get(_identity(record, nulls), {})
            if len(found) != 1:
                continue  # no twin (a record new since), or what is left names several records: no evidence
            [(text, old)] = found.items()
            if text not in unchanged:
                lost.update(str(k) for k, v in old.items() if str(k) in nulls and v is not None)
    return dict(sorted(lost.items()))


def describe(stats: FieldStats) -> str:
    """A field's kind in a few characters: ``string<digits8>``, ``number``, ``string<text|id>|null``."""
    kinds = list(stats.kind_counts)
    formats = [f for f, _ in sorted(stats.formats, key=lambda item: (-item[1], item[0])) if f != "blank"]
    text = "|".join(kinds) or "null"
    if formats:
        text = text.replace("string", f"string<{'|'.join(formats[:3])}>")
    if stats.nulls and kinds:
        text += "|null"
    return text


# -- one tool ----------------------------------------------------------------


class _Builder:
    """Collects the changes of one tool; each call names its check."""

    def __init__(self, tool: str) -> None:
        self.tool = tool
        self.changes: list[Change] = []

    def add(self, check: str, kind: str, severity: str, path: str, before: Any, after: Any, message: str) -> None:
        self.changes.append(Change(CHECKS[check], self.tool, path, kind, severity, before, after, message))


def _topmost(paths: set[str]) -> list[str]:
    """Paths none of whose ancestors is in the set (``a`` covers ``a.b`` and ``a[].b``)."""

    def ancestors(path: str) -> set[str]:
        out, cut = set(), len(path)
        while cut > 0:
            cut = max(path.rfind(".", 0, cut), path.rfind("[]", 0, cut))
            if cut > 0:
                out.add(path[:cut])
        return out

    return sorted(p for p in paths if not ancestors(p) & paths)


def _parent(path: str) -> str:
    cut = max(path.rfind("."), path.rfind("[]"))
    return path[:cut] if cut > 0 else ""


def _diff_formats(out: _Builder, before: ToolSchema, after: ToolSchema) -> None:
    old, new = sorted(dict(before.formats)), sorted(dict(after.formats))
    if old and new and old != new:
        out.add(
            "response_format",
            "format_changed",
            "breaking",
            RESPONSE_PATH,
            old,
            new,
            f"response format changed from {', '.join(old)} to {', '.join(new)}",
        )


def _diff_envelope(out: _Builder, before: ToolSchema, after: ToolSchema) -> None:
    if not before.answers or not after.answers:
        return  # no answer in one snapshot: nothing to compare the shape with
    old, new = set(before.envelope), set(after.envelope)
    removed, added = _topmost(old - new), _topmost(new - old)
    if len(removed) == 1 and len(added) == 1 and _parent(removed[0]) == _parent(added[0]):
        out.add(
            "envelope",
            "envelope_changed",
            "breaking",
            removed[0],
            removed[0],
            added[0],
            f"envelope key {removed[0]} is now {added[0]}",
        )
        return
    for path in removed:
        out.add("envelope", "envelope_changed", "breaking", path, path, None, f"envelope key {path} is gone")
    for path in added:
        out.add("envelope", "envelope_changed", "info", path, None, path, f"new envelope key {path}")


def _renames(removed: list[FieldStats], added: list[FieldStats]) -> list[tuple[FieldStats, FieldStats]]:
    """Pairs (old, new) whose profiles match each other and no other candidate: likely renames.

    Requiring a *mutual, unique* match keeps the pairing symmetric: diffing the
    snapshots the other way round pairs the same fields.
    """
    pairs = []
    for old in removed:
        candidates = [new for new in added if new.profile == old.profile]
        if len(candidates) == 1 and [o for o in removed if o.profile == candidates[0].profile] == [old]:
            pairs.append((old, candidates[0]))
    return pairs


def _diff_field(
    out: _Builder, name: str, old: FieldStats, new: FieldStats, before: ToolSchema, after: ToolSchema
) -> None:
    gone, appeared = _shifted(old.kind_counts, new.kind_counts)
    if gone or appeared:
        out.add(
            "type_changed",
            "type_changed",
            "breaking",
            name,
            sorted(old.kind_counts),
            sorted(new.kind_counts),
            f"type of {name} changed from {describe(old)} to {describe(new)}",
        )
    else:
        gone, appeared = _shifted(old.family_counts, new.family_counts)
        if gone or appeared:
            out.add(
                "string_format",
                "format_changed",
                "warning",
                name,
                sorted(dict(old.formats)),
                sorted(dict(new.formats)),
                f"string format of {name} changed from {describe(old)} to {describe(new)}",
            )
    old_presence, new_presence = before.presence(name), after.presence(name)
    if (
        old.present == before.records
        and new.present < after.records
        and _unlikely_absent(1.0 - new_presence, before.records)
    ):
        out.add(
            "became_optional",
            "became_optional",
            "warning",
            name,
            round(old_presence, 3),
            round(new_presence, 3),
            f"{name} is missing from {after.records - new.present} of "
            f"{after.records} records (present in all {before.records} before)",
        )
    if old.nulls == 0 and new.nulls and _unlikely_absent(after.null_ratio(name), old.present):
        out.add(
            "became_nullable",
            "became_nullable",
            "breaking",
            name,
            0.0,
            round(after.null_ratio(name), 3),
            f"{name} is null in {new.nulls} of {new.present} records (never null in {old.present} before)",
        )


def _diff_fields(out: _Builder, before: ToolSchema, after: ToolSchema) -> None:
    if not before.records or not after.records:
        return  # one side saw no record (no data, or the envelope moved): fields cannot be compared
    old_names, new_names = set(before.field_names), set(after.field_names)
    removed = [
        before.field_stats(n)
        for n in sorted(old_names - new_names)
        if _unlikely_absent(before.presence(n), after.records)
    ]
    added = [
        after.field_stats(n)
        for n in sorted(new_names - old_names)
        if _unlikely_absent(after.presence(n), before.records)
    ]
    renamed = _renames([f for f in removed if f], [f for f in added if f])
    for old, new in renamed:
        out.add(
            "field_renamed",
            "field_renamed",
            "breaking",
            old.name,
            old.name,
            new.name,
            f"field {old.name} is now {new.name} ({describe(new)})",
        )
    paired = {f.name for pair in renamed for f in pair}
    for stats in removed:
        if stats and stats.name not in paired:
            out.add(
                "field_removed",
                "field_removed",
                "breaking",
                stats.name,
                describe(stats),
                None,
                f"field {stats.name} ({describe(stats)}) is gone",
            )
    for stats in added:
        if stats and stats.name not in paired:
            out.add(
                "field_added",
                "field_added",
                "info",
                stats.name,
                None,
                describe(stats),
                f"new field {stats.name} ({describe(stats)})",
            )
    for name in sorted(old_names & new_names):
        old_stats, new_stats = before.field_stats(name), after.field_stats(name)
        if old_stats and new_stats:
            _diff_field(out, name, old_stats, new_stats, before, after)


def _diff_pagination(out: _Builder, before: ToolSchema, after: ToolSchema) -> None:
    old, new = before.pagination, after.pagination
    if old is None or new is None or old.max_answered is None or new.max_answered is None:
        return
    # Only a size both snapshots asked for can show that the cap moved.
    lowered = new.max_answered < old.max_answered and (new.max_probed or 0) >= old.max_answered
    raised = old.max_answered < new.max_answered and (old.max_probed or 0) >= new.max_answered
    errors_appeared = new.size_error and not old.size_error
    errors_gone = old.size_error and not new.size_error
    if lowered or errors_appeared:
        out.add(
            "page_size",
            "page_size_changed",
            "breaking",
            new.param,
            old.max_answered,
            new.max_answered,
            f"page size cap lowered: {new.param}={old.max_answered} was answered, now the largest answered is "
            f"{new.max_answered}" + (" and larger pages fail" if new.size_error else ""),
        )
    elif raised or errors_gone:
        out.add(
            "page_size",
            "page_size_changed",
            "info",
            new.param,
            old.max_answered,
            new.max_answered,
            f"page size cap raised: largest page answered {old.max_answered} → {new.max_answered}",
        )


def _diff_result_codes(out: _Builder, before: ToolSchema, after: ToolSchema) -> None:
    def by_path(schema: ToolSchema) -> dict[str, dict[str, str]]:
        table: dict[str, dict[str, str]] = {}
        for stat in schema.result_codes:
            if stat.outcome in _COMPARED_OUTCOMES:
                table.setdefault(stat.path, {})[stat.code] = stat.outcome
        return table

    old_table, new_table = by_path(before), by_path(after)
    for path in sorted(set(old_table) | set(new_table)):
        old, new = old_table.get(path, {}), new_table.get(path, {})
        gone = {code: outcome for code, outcome in old.items() if code not in new}
        appeared = {code: outcome for code, outcome in new.items() if code not in old}
        unknown_changed = "unknown" in gone.values() or "unknown" in appeared.values()
        # An ok code that merely comes or goes is data (the examples found something, or nothing); a code
        # the catalog does not know, or an ok code replaced by another, is the API changing its vocabulary.
        if not unknown_changed and not (gone and appeared):
            continue
        severity = "breaking" if "ok" in gone.values() and "unknown" in appeared.values() else "warning"
        out.add(
            "result_codes",
            "result_codes_changed",
            severity,
            path,
            sorted(old),
            sorted(new),
            f"{path} codes changed from {', '.join(sorted(old)) or 'none'} to {', '.join(sorted(new)) or 'none'}"
            + (" (not in the catalog's code table)" if "unknown" in appeared.values() else ""),
        )


def diff_tool(before: ToolSchema, after: ToolSchema) -> list[Change]:
    """The changes of one tool between two of its schemas, sorted."""
    out = _Builder(after.tool)
    for check in (_diff_formats, _diff_envelope, _diff_fields, _diff_pagination, _diff_result_codes):
        check(out, before, after)
    return sorted(out.changes, key=Change.sort_key)


def diff_schemas(before: Mapping[str, ToolSchema], after: Mapping[str, ToolSchema]) -> list[Change]:
    """Every change between two snapshots' schemas (tool name → schema), sorted by tool, path and kind."""
    changes: list[Change] = []
    for name in sorted(set(before) | set(after)):
        if name not in after:
            changes.append(
                Change(
                    CHECKS["tool_missing"],
                    name,
                    RESPONSE_PATH,
                    "tool_missing",
                    "breaking",
                    name,
                    None,
                    f"tool {name} has no responses in the new snapshot",
                )
            )
        elif name not in before:
            changes.append(
                Change(
                    CHECKS["tool_added"],
                    name,
                    RESPONSE_PATH,
                    "tool_added",
                    "info",
                    None,
                    name,
                    f"tool {name} is new in this snapshot",
                )
            )
        else:
            changes.extend(diff_tool(before[name], after[name]))
    return sorted(changes, key=Change.sort_key)
