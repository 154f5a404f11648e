"""Request-level drift: the same request in two snapshots, compared pairwise.

``refresh`` re-executes every request of a snapshot, so each request of the
new snapshot has a twin in the old one (same redacted request key, same
occurrence number). Comparing the twins sees what per-tool schemas cannot:

* **outcome transitions** — ``ok`` → ``structural`` / ``unparseable`` (a tool
  whose every request now answers an error envelope), and back;
* **format and envelope** changes of documents that carry no records (an error
  or an empty page now written in XML, or in another shape);
* **status** changes, and requests that no longer get an answer at all
  (``no_answer``: timed out or refused after the refresh's retries);
* **data** changes on the same page: total counts, record counts, values;
* **values of another kind** on the same request: an envelope value (the
  total count 10 → "10"), and a field null in a record that held a value in
  the same record before — evidence where the per-tool shares are too few
  to tell (one null in twenty records).

Every pair lands in exactly one of three lists, because they mean different things
to a maintainer:

* ``changes`` — drift: the API answers differently (breaking / warning / info);
* ``noise`` — an environmental failure (429, 5xx, a rate-limit code, no answer)
  on either side: the network, not the API; retried by ``refresh`` before it is
  recorded, and reported apart;
* ``data`` — the same protocol with other data: records that came or went
  (``ok`` ↔ ``no_data``), totals, record counts, values. Not drift; it is what
  answer drift (``bench drift``) follows.

:func:`attach_requests` also hands the per-tool schema changes of
:mod:`kopa_replay.drift.diff` the requests that show each of them (the
requests whose records lost the renamed field, whose envelope lost the key …),
so every change in a report names its requests.

Pure functions over :class:`~kopa_replay.drift.schema.RecordedResponse` pairs.
"""

from __future__ import annotations

import hashlib
import json
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from kopa_replay.catalog.model import Catalog, Tool
from kopa_replay.drift.diff import CHECKS, RESPONSE_PATH, Change, values_turned_null
from kopa_replay.drift.impact import field_of
from kopa_replay.drift.schema import (
    FORMAT_FAMILIES,
    RecordedResponse,
    envelope_shape,
    page_request,
    parse_response,
    sniff_format,
    string_format,
    value_type,
)
from kopa_replay.env.blocked import blocked_body
from kopa_replay.env.call import interpret_document, unreadable_is_environmental
from kopa_replay.env.parse import ParseError

__all__ = [
    "OUTCOMES",
    "DriftReport",
    "Reading",
    "RequestPair",
    "attach_requests",
    "diff_requests",
    "pair_responses",
    "read_response",
    "request_id",
    "twin_index",
]

#: What a request can come to, as the request-level diff names it.
OUTCOMES = ("ok", "no_data", "structural", "environmental", "blocked", "unparseable", "no_answer")
_FROM_CALL = {
    "ok": "ok",
    "empty": "no_data",
    "structural_error": "structural",
    "environmental_error": "environmental",
    "blocked_error": "blocked",
}
#: Outcomes that say nothing about the API — incidents: the network, the server's bad minute, or a wall in front of
#: it (a bot wall's page, an empty body; :mod:`kopa_replay.env.blocked`).
_NOISE = frozenset({"environmental", "blocked", "no_answer"})
#: Outcomes that are an answer (possibly with no records).
_ANSWERS = frozenset({"ok", "no_data"})
_MESSAGE_CHARS = 160


@dataclass(frozen=True)
class Reading:
    """One recorded response, read with its tool's catalog entry: what a client of the tool would see."""

    outcome: str
    status: int
    format: str
    code: str | None = None
    message: str | None = None
    envelope: frozenset[str] = frozenset()
    records: int = 0
    total: int | None = None
    values: str = ""  # digest of the records, in order
    page: tuple[int, int] | None = None  # (offset, size) asked for
    kinds: Mapping[str, frozenset[str]] = field(default_factory=dict)  # field → JSON kinds, null included
    families: Mapping[str, frozenset[str]] = field(default_factory=dict)  # field → string format families
    everywhere: frozenset[str] = frozenset()  # fields present in every record
    envelope_kinds: Mapping[str, frozenset[str]] = field(default_factory=dict)  # envelope scalar's path → kinds

    def signature(self) -> dict[str, Any]:
        """What a person reading a report needs of this answer: outcome, code, message, status, format."""
        return {
            "outcome": self.outcome,
            "code": self.code,
            "message": self.message,
            "status": self.status,
            "format": self.format,
        }

    @property
    def fields(self) -> frozenset[str]:
        return frozenset(self.kinds)

    def non_null_kinds(self, name: str) -> frozenset[str]:
        return frozenset("number" if k == "integer" else k for k in self.kinds.get(name, ()) if k != "null")


NO_ANSWER = Reading("no_answer", 0, "none")


def _kinds(
    records: Sequence[Mapping[str, Any]],
) -> tuple[dict[str, frozenset[str]], dict[str, frozenset[str]], frozenset[str]]:
    kinds: dict[str, set[str]] = defaultdict(set)
    families: dict[str, set[str]] = defaultdict(set)
    counts: dict[str, int] = defaultdict(int)
    for record in records:
        for name, value in record.items():
            name = str(name)
            counts[name] += 1
            kind = value_type(value)
            kinds[name].add(kind)
            if kind == "string":
                family = FORMAT_FAMILIES.get(string_format(value))
                if family:
                    families[name].add(family)
    everywhere = frozenset(name for name, count in counts.items() if count == len(records))
    return (
        {k: frozenset(v) for k, v in sorted(kinds.items())},
        {k: frozenset(v) for k, v in sorted(families.items())},
        everywhere,
    )


def _short(message: str | None) -> str | None:
    if message is None:
        return None
    text = " ".join(str(message).split())
    return text if len(text) <= _MESSAGE_CHARS else text[: _MESSAGE_CHARS - 1] + "…"


def read_response(tool: Tool, response: RecordedResponse) -> Reading:
    """How ``tool``'s client reads one recorded response (never raises for what the body holds)."""
    body_format = sniff_format(response.body)
    page = page_request(tool, response.url)
    evidence = blocked_body(tool, response.status, response.body)
    if evidence is not None:  # a page or nothing where data was expected: an incident, never a format change
        return Reading("blocked", response.status, body_format, message=_short(evidence), page=page)
    try:
        doc = parse_response(tool, response)
    except ParseError as exc:
        # read as the environment reads it (env.call.read_envelope): an unreadable wall is blocked, not a change
        evidence = blocked_body(tool, response.status, response.body, unparsed=True)
        if evidence is not None:
            return Reading("blocked", response.status, body_format, message=_short(evidence), page=page)
        outcome = "environmental" if unreadable_is_environmental(response.status) else "unparseable"
        return Reading(outcome, response.status, body_format, message=_short(str(exc)), page=page)
    result = interpret_document(tool, {}, response.status, doc)
    outcome = _FROM_CALL[result.outcome]
    records = result.records
    kinds, families, everywhere = _kinds(records)
    envelope, envelope_kinds = envelope_shape(tool, doc, records)
    values = hashlib.sha256(json.dumps(records, sort_keys=True, ensure_ascii=False, default=str).encode()).hexdigest()[
        :16
    ]
    return Reading(
        outcome,
        response.status,
        body_format,
        result.code,
        _short(result.message),
        frozenset(envelope),
        len(records),
        result.total_count,
        values,
        page,
        kinds,
        families,
        everywhere,
        envelope_kinds,
    )


def request_id(response: RecordedResponse) -> str:
    """How a report names a request: method and redacted URL, `` #n`` for its n-th occurrence from the second."""
    return f"{response.method} {response.url}" + (f" #{response.seq}" if response.seq > 1 else "")


@dataclass(frozen=True)
class RequestPair:
    """One request in the old and the new snapshot (``NO_ANSWER`` on a side that lacks it)."""

    tool: str
    request: str
    before: Reading
    after: Reading
    #: field → records of ``after`` null in it where the same record of ``before`` held a value (values_turned_null)
    nulled: Mapping[str, int] = field(default_factory=dict)


def twin_index(catalog: Catalog, responses: Iterable[RecordedResponse]) -> dict[tuple[str, int], RecordedResponse]:
    """A snapshot's responses by request key and occurrence: what pairs a request with its twin in another."""
    return {(r.request_key or request_id(r), r.seq): r for r in responses if r.tool in catalog}


def pair_responses(
    catalog: Catalog,
    before: Iterable[RecordedResponse],
    after: Iterable[RecordedResponse] = (),
    *,
    twins: Mapping[tuple[str, int], RecordedResponse] | None = None,
    blocked: Mapping[str, str] | None = None,
) -> list[RequestPair]:
    """Twin requests of two snapshots (same request key and occurrence), read with their tools; sorted by tool
    and request. A request of the old snapshot the new one lacks is paired with ``NO_ANSWER``; one only the new
    snapshot has is left out (nothing to compare it with). Tools the catalog lacks are skipped. ``twins``, the new
    snapshot's :func:`twin_index`, stands for ``after`` where a caller pairs the old snapshot a part at a time.
    ``blocked`` maps a request (``METHOD redacted-URL``) the new snapshot left out because its answer was blocked to
    the evidence: such a request is paired with that, not with ``NO_ANSWER``."""
    new = twin_index(catalog, after) if twins is None else twins
    pairs = []
    # a reading is a function of the tool and the answer: a request asked again (every task that names a company
    # fetches DART's corpCode ZIP) and a twin with the same bytes read the same
    readings: dict[tuple[str, int, str, str, bytes], Reading] = {}

    def read(tool: Tool, response: RecordedResponse) -> Reading:
        key = (tool.name, response.status, response.url, response.content_type, response.body)
        if key not in readings:
            readings[key] = read_response(tool, response)
        return readings[key]

    for key, response in twin_index(catalog, before).items():
        tool = catalog.get(response.tool)
        twin = new.get(key)
        reading = read(tool, response)
        if twin is not None:
            twin_reading = read(tool, twin)
        elif (blocked or {}).get(request_id(response)) is not None:
            twin_reading = Reading("blocked", 0, "none", message=_short((blocked or {})[request_id(response)]))
        else:
            twin_reading = NO_ANSWER
        nulled = _nulled(tool, response, twin, reading, twin_reading) if twin is not None else {}
        pairs.append(RequestPair(tool.name, request_id(response), reading, twin_reading, nulled))
    return sorted(pairs, key=lambda p: (p.tool, p.request))


def _nulled(
    tool: Tool, response: RecordedResponse, twin: RecordedResponse, old: Reading, new: Reading
) -> dict[str, int]:
    """:func:`values_turned_null` of twin answers, read again only where the readings allow it: both ok, other
    values, and a field null in the new answer that was null in no record of the old one."""
    if not old.outcome == new.outcome == "ok" or old.values == new.values:
        return {}
    if not any("null" in kinds and "null" not in old.kinds.get(name, {"null"}) for name, kinds in new.kinds.items()):
        return {}

    def records(answer: RecordedResponse) -> list[dict[str, Any]]:
        return interpret_document(tool, {}, answer.status, parse_response(tool, answer)).records

    return values_turned_null(records(response), records(twin))


# -- grouping pairs into reported changes -------------------------------------------------------------------


@dataclass(frozen=True)
class DriftReport:
    """What changed between two snapshots: drift (schema and request level), environmental noise, data.

    ``tools`` are the tools compared (with responses in either snapshot); ``requests`` the requests paired;
    ``unpaired`` the requests only the new snapshot holds (nothing to compare them with); ``carried`` the tools an
    incremental refresh copied over from the old snapshot instead of re-executing (unchecked, not "no drift").
    """

    changes: tuple[Change, ...]
    noise: tuple[Change, ...] = ()
    data: tuple[Change, ...] = ()
    tools: tuple[str, ...] = ()
    requests: int = 0
    unpaired: int = 0
    carried: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        from kopa_replay.drift.report import summary

        return {
            "changes": [c.to_dict() for c in self.changes],
            "summary": summary(self.changes),
            "noise": [c.to_dict() for c in self.noise],
            "data": [c.to_dict() for c in self.data],
            "tools": list(self.tools),
            "requests": self.requests,
            "unpaired": self.unpaired,
            "carried_over": list(self.carried),
        }


def _transition_severity(before: str, after: str) -> str:
    if before in _ANSWERS and after not in _ANSWERS:
        return "breaking"  # an answer became an error
    if before not in _ANSWERS and after in _ANSWERS:
        return "info"  # an error that went away
    return "warning"  # one error for another


def _describe(reading: Reading) -> str:
    parts = [reading.outcome]
    if reading.code is not None:
        parts.append(f"code {reading.code}")
    if reading.message:
        parts.append(repr(reading.message))
    parts.append(f"HTTP {reading.status} {reading.format}")
    return " ".join(parts)


class _Groups:
    """Pairs grouped by (list, check, tool, path, before, after): one reported change per group."""

    def __init__(self) -> None:
        self.groups: dict[tuple[str, str, str, str, str, str, str], list[str]] = defaultdict(list)
        self.meta: dict[tuple[str, str, str, str, str, str, str], tuple[Any, Any, str]] = {}
        self.totals: dict[str, int] = defaultdict(int)

    def add(
        self,
        where: str,
        check: str,
        kind: str,
        severity: str,
        pair: RequestPair,
        path: str,
        before: Any,
        after: Any,
        message: str,
    ) -> None:
        key = (
            where,
            check,
            kind,
            severity,
            pair.tool,
            path,
            json.dumps([before, after], sort_keys=True, ensure_ascii=False, default=str),
        )
        self.groups[key].append(pair.request)
        self.meta[key] = (before, after, message)

    def changes(self, where: str) -> tuple[Change, ...]:
        out = []
        for key in sorted(k for k in self.groups if k[0] == where):
            _, check, kind, severity, tool, path, _ = key
            before, after, message = self.meta[key]
            requests = tuple(sorted(self.groups[key]))
            n, of = len(requests), self.totals[tool]
            out.append(
                Change(
                    check,
                    tool,
                    path,
                    kind,
                    severity,
                    before,
                    after,
                    f"{message} in {n} of {of} request{'s' if of != 1 else ''}",
                    requests,
                )
            )
        return tuple(sorted(out, key=Change.sort_key))


def _compare(groups: _Groups, pair: RequestPair, covered_format: bool, explained: bool) -> None:
    old, new = pair.before, pair.after
    if old == new:
        return  # the same answer (a failure both times included): nothing moved
    if old.outcome in _NOISE or new.outcome in _NOISE:
        blocked = "blocked" in (old.outcome, new.outcome)
        groups.add(
            "noise",
            "request-blocked" if blocked else "request-environmental",
            "blocked" if blocked else "environmental",
            "info",
            pair,
            RESPONSE_PATH,
            _describe(old) if old.outcome in _NOISE else old.outcome,
            _describe(new) if new.outcome in _NOISE else new.outcome,
            ("blocked answer (" if blocked else "environmental failure (")
            + (f"before: {_describe(old)}" if old.outcome in _NOISE else f"now: {_describe(new)}")
            + ")",
        )
        return
    if old.outcome != new.outcome and not (old.outcome in _ANSWERS and new.outcome in _ANSWERS):
        groups.add(
            "changes",
            CHECKS["outcome"],
            "outcome_changed",
            _transition_severity(old.outcome, new.outcome),
            pair,
            RESPONSE_PATH,
            old.signature(),
            new.signature(),
            f"{_describe(old)} → {_describe(new)}",
        )
    elif old.status != new.status:
        groups.add(
            "changes",
            CHECKS["status"],
            "status_changed",
            "warning",
            pair,
            RESPONSE_PATH,
            old.status,
            new.status,
            f"HTTP status {old.status} → {new.status}",
        )
    elif old.outcome == new.outcome != "ok" and (old.code, old.message) != (new.code, new.message):
        # the same failure (or empty answer) told another way; ok codes are compared per tool (drift.diff)
        groups.add(
            "changes",
            CHECKS["request_code"],
            "result_codes_changed",
            "warning",
            pair,
            RESPONSE_PATH,
            old.signature(),
            new.signature(),
            f"{_describe(old)} → {_describe(new)}",
        )
    if old.format != new.format and not covered_format:
        groups.add(
            "changes",
            CHECKS["response_format"],
            "format_changed",
            "breaking",
            pair,
            RESPONSE_PATH,
            old.format,
            new.format,
            f"response format {old.format} → {new.format}",
        )
    if old.outcome == new.outcome != "ok" and old.envelope != new.envelope:
        # Answers with records are compared per tool (drift.diff); documents without records only here.
        gone, added = sorted(old.envelope - new.envelope), sorted(new.envelope - old.envelope)
        groups.add(
            "changes",
            CHECKS["request_envelope"],
            "envelope_changed",
            "breaking" if gone else "info",
            pair,
            RESPONSE_PATH,
            gone,
            added,
            f"{old.outcome} document's envelope lost {', '.join(gone) or '-'}, gained {', '.join(added) or '-'}",
        )
    _compare_envelope_kinds(groups, pair)
    _compare_data(groups, pair, explained)


def _compare_envelope_kinds(groups: _Groups, pair: RequestPair) -> None:
    """An envelope value of another kind in the same answer (the total count 10 → "10"): no key path shows it.

    Compared between answers of one outcome in one format only: XML writes every value as text (a JSON → XML
    change is the format's), and a no-data document may write its count as "" where an answer writes 0."""
    old, new = pair.before, pair.after
    if old.outcome != new.outcome or old.outcome not in _ANSWERS or old.format != new.format:
        return
    for path in sorted(old.envelope_kinds.keys() & new.envelope_kinds.keys()):
        before, after = sorted(old.envelope_kinds[path]), sorted(new.envelope_kinds[path])
        if before != after:
            groups.add(
                "changes",
                CHECKS["envelope_type"],
                "envelope_type_changed",
                "breaking",
                pair,
                path,
                before,
                after,
                f"envelope value {path} changed type from {'|'.join(before)} to {'|'.join(after)}",
            )


def _compare_data(groups: _Groups, pair: RequestPair, explained: bool) -> None:
    old, new = pair.before, pair.after
    if old.outcome != new.outcome:
        # records that went because the envelope moved are the drift's doing, not data
        if {old.outcome, new.outcome} == {"ok", "no_data"} and not explained:
            groups.add(
                "data",
                "request-records-came-or-went",
                "records_changed",
                "info",
                pair,
                RESPONSE_PATH,
                old.outcome,
                new.outcome,
                f"{old.outcome} → {new.outcome}",
            )
        return
    if old.total != new.total:
        groups.add(
            "data",
            "request-total-changed",
            "total_changed",
            "info",
            pair,
            RESPONSE_PATH,
            None,
            None,
            "total count changed",
        )
    if old.records != new.records:
        groups.add(
            "data",
            "request-record-count-changed",
            "record_count_changed",
            "info",
            pair,
            RESPONSE_PATH,
            None,
            None,
            "record count on the same page changed",
        )
    elif old.values != new.values and not explained:  # a renamed or retyped field changes them too
        groups.add(
            "data",
            "request-values-changed",
            "values_changed",
            "info",
            pair,
            RESPONSE_PATH,
            None,
            None,
            "values changed (same record count)",
        )


def diff_requests(
    pairs: Sequence[RequestPair],
    schema_changes: Iterable[Change] = (),
    *,
    carried: Iterable[str] = (),
    unpaired: int = 0,
) -> DriftReport:
    """The request-level report of ``pairs``, merged with the per-tool ``schema_changes`` (each given the
    requests that show it, see :func:`attach_requests`); ``carried`` and ``unpaired`` as in :class:`DriftReport`."""
    groups = _Groups()
    for pair in pairs:
        groups.totals[pair.tool] += 1
    schema = attach_requests(schema_changes, pairs)
    schema += _sparse_nulls(pairs, schema)
    covered = {c.tool for c in schema if c.kind == "format_changed" and c.path == RESPONSE_PATH}
    explained = {(c.tool, r) for c in schema if c.severity != "info" for r in c.requests}
    for pair in pairs:
        _compare(groups, pair, pair.tool in covered, (pair.tool, pair.request) in explained)
    changes = tuple(sorted(schema + list(groups.changes("changes")), key=Change.sort_key))
    tools = sorted({p.tool for p in pairs} | {c.tool for c in schema})
    return DriftReport(
        changes,
        groups.changes("noise"),
        groups.changes("data"),
        tuple(tools),
        len(pairs),
        unpaired,
        tuple(sorted(set(carried))),
    )


def _sparse_nulls(pairs: Sequence[RequestPair], schema: Sequence[Change]) -> list[Change]:
    """``became_nullable`` shown by twin records (:attr:`RequestPair.nulled`), for a field the per-tool comparison
    has too few nulls to call (one in twenty records is not improbable for a field never null in twenty).

    Only for a field never null in any record of the old snapshot: one that already was (an arrival time, a bill's
    committee date) is null when the data says so."""
    reported = {(c.tool, c.path) for c in schema if c.kind == "became_nullable"}
    null_before = {(p.tool, name) for p in pairs for name, kinds in p.before.kinds.items() if "null" in kinds}
    shown: dict[tuple[str, str], list[tuple[str, int, int]]] = defaultdict(list)
    for pair in pairs:
        for name, count in pair.nulled.items():
            if (pair.tool, name) not in reported and (pair.tool, name) not in null_before:
                shown[pair.tool, name].append((pair.request, count, pair.after.records))
    out = []
    for (tool, name), requests in sorted(shown.items()):
        nulls, records, n = sum(r[1] for r in requests), sum(r[2] for r in requests), len(requests)
        out.append(
            Change(
                CHECKS["request_nullable"],
                tool,
                name,
                "became_nullable",
                "breaking",
                0.0,
                round(nulls / records, 3),
                f"{name} is null in {nulls} of {records} records of {n} request{'s' if n != 1 else ''}, where the "
                "same record of the same request held a value before (never null in the old snapshot)",
                tuple(sorted(r[0] for r in requests)),
            )
        )
    return out


# -- which requests show a per-tool change ---------------------------------------------------------------------


def _shows(change: Change, old: Reading, new: Reading) -> bool:
    """Whether this request pair shows ``change`` (a per-tool schema change of its tool)."""
    kind, name = change.kind, field_of(change.path)
    if kind == "tool_missing":
        return True
    if new.outcome in _NOISE or old.outcome in _NOISE:
        return False
    if kind in ("field_removed", "field_renamed"):
        return name in old.fields and name not in new.fields
    if kind == "field_added":
        return name in new.fields and name not in old.fields
    if kind == "type_changed":
        return (
            bool(old.non_null_kinds(name))
            and bool(new.non_null_kinds(name))
            and old.non_null_kinds(name) != new.non_null_kinds(name)
        )
    if kind == "became_nullable":
        return "null" in new.kinds.get(name, ()) and "null" not in old.kinds.get(name, ())
    if kind == "became_optional":
        return name in old.everywhere and name in new.fields and name not in new.everywhere
    if kind == "format_changed" and change.path == RESPONSE_PATH:
        return old.format != new.format
    if kind == "format_changed":
        return (
            bool(old.families.get(name))
            and bool(new.families.get(name))
            and old.families.get(name) != new.families.get(name)
        )
    if kind == "envelope_changed":
        return (change.before in old.envelope and change.before not in new.envelope) or (
            change.after in new.envelope and change.after not in old.envelope
        )
    if kind == "page_size_changed":
        size = old.page[1] if old.page else None
        caps = sorted(v for v in (change.before, change.after) if isinstance(v, int))
        return (
            size is not None
            and bool(caps)
            and size > caps[0]
            and (old.records != new.records or old.outcome != new.outcome)
        )
    if kind == "result_codes_changed":
        return old.code != new.code and (old.code in (change.before or ()) or new.code in (change.after or ()))
    return False


def attach_requests(changes: Iterable[Change], pairs: Sequence[RequestPair]) -> list[Change]:
    """``changes`` (per tool) each with the requests of its tool whose pair shows it."""
    by_tool: dict[str, list[RequestPair]] = defaultdict(list)
    for pair in pairs:
        by_tool[pair.tool].append(pair)
    out = []
    for change in changes:
        shown = tuple(sorted(p.request for p in by_tool.get(change.tool, ()) if _shows(change, p.before, p.after)))
        out.append(replace(change, requests=shown) if shown else change)
    return out
