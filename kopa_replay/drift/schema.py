"""Infer a response schema per tool from the responses recorded in one snapshot.

A :class:`ToolSchema` describes *kinds*, never values: which formats the tool
answers in, the shape of its envelope, and per record field the JSON types,
string formats, presence and nulls seen; plus pagination evidence and the
distribution of result codes. Two snapshots taken months apart hold different
prices, counts and arrival times; their schemas differ only in counts, which
:mod:`kopa_replay.drift.diff` compares with tolerance.

Everything here is a pure function of the responses passed in, independent of
their order: counts are sums, sets are sorted.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections import Counter, OrderedDict, defaultdict
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from functools import lru_cache
from operator import itemgetter
from typing import Any
from urllib.parse import parse_qsl, unquote, urlsplit

from kopa_replay.catalog.model import Tool
from kopa_replay.env.call import CallResult, classify, read_envelope
from kopa_replay.env.parse import ParseError, extract, first_present, parse_body_shared
from kopa_replay.errors import DriftError

__all__ = [
    "FORMAT_FAMILIES",
    "HTTP_STATUS_PATH",
    "RESPONSE_FORMATS",
    "STRING_FORMATS",
    "VALUE_TYPES",
    "CodeStat",
    "FieldStats",
    "PageEvidence",
    "RecordedResponse",
    "ToolSchema",
    "envelope_of",
    "envelope_shape",
    "infer_schemas",
    "infer_tool_schema",
    "page_request",
    "parse_response",
    "sniff_format",
    "string_format",
    "value_type",
]

#: How a response body is written (sniffed from the bytes, not the Content-Type: the platforms lie).
RESPONSE_FORMATS = ("json", "xml", "zip-xml", "html", "other")
#: JSON types of a record value.
VALUE_TYPES = ("string", "integer", "number", "boolean", "null", "object", "array")
#: The kinds of string value, first match wins (see :func:`string_format`).
STRING_FORMATS = (
    "blank",  # "" or whitespace only: " " is how the platforms write "empty"
    "yyyymmdd",  # a calendar date written as 8 digits
    "yyyymm",  # a month written as 6 digits
    "digits6",  # 6 digits: stock codes (and six-digit prices; a code is a field that is always digits6)
    "digits8",  # 8 digits that are no date: DART corp_code
    "digits10",  # 10 digits: 법정동 codes, business registration numbers
    "digits",  # any other run of digits: counts, prices
    "decimal",  # a signed or decimal number: "-1.23"
    "comma_number",  # a number with thousands separators: "1,234"
    "iso_date",  # 2026-09-01, 2026.09.01, 2026/09/01, optionally followed by a time
    "id",  # an upper-case alphanumeric identifier with letters and digits: KR7069540008
    "text",  # anything else
)
#: String formats that can stand in for one another as data changes (a price is "980" one day and "1,680" the
#: next; a digits8 code is a valid date by chance). The diff compares families; ``blank`` belongs to none.
FORMAT_FAMILIES: Mapping[str, str] = {
    "yyyymmdd": "numeric",
    "yyyymm": "numeric",
    "digits6": "numeric",
    "digits8": "numeric",
    "digits10": "numeric",
    "digits": "numeric",
    "decimal": "numeric",
    "comma_number": "numeric",
    "iso_date": "date",
    "id": "text",
    "text": "text",
}
#: The result-code path reported when a response carries no code and its HTTP status stands in.
HTTP_STATUS_PATH = "http_status"

_DIGITS = re.compile(r"\d+")
_DECIMAL = re.compile(r"[-+]?(\d+\.\d*|\.\d+|\d+)")
_COMMA_NUMBER = re.compile(r"[-+]?\d{1,3}(,\d{3})+(\.\d+)?")
_ISO_DATE = re.compile(r"(19|20)\d\d([-./])(0[1-9]|1[0-2])\2(0[1-9]|[12]\d|3[01])([ T]\d\d:\d\d(:\d\d)?)?")
_ID = re.compile(r"(?=[A-Z0-9_-]*[A-Z])(?=[A-Z0-9_-]*\d)[A-Z0-9_-]+")
_CODE_WIDTHS = {6: "digits6", 8: "digits8", 10: "digits10"}
_DAYS_IN_MONTH = (31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)


@dataclass(frozen=True)
class RecordedResponse:
    """One recorded answer as the recorder hands it over.

    ``url`` is the redacted request URL with its query: it tells which page and
    page size were asked for.
    """

    tool: str
    method: str
    url: str
    status: int
    content_type: str
    body: bytes
    #: the recorder's key of the request and its occurrence number: what pairs it with its twin in another snapshot
    request_key: str = ""
    seq: int = 0


def _pairs(counter: Mapping[str, int]) -> tuple[tuple[str, int], ...]:
    return tuple(sorted((k, int(v)) for k, v in counter.items() if v))


@dataclass(frozen=True)
class FieldStats:
    """What one record field held across a snapshot's records of one tool."""

    name: str
    present: int  # records holding the key
    nulls: int  # records where it is null
    types: tuple[tuple[str, int], ...]  # (JSON type, count), nulls included
    formats: tuple[tuple[str, int], ...]  # (string format, count) over string values

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "present": self.present,
            "nulls": self.nulls,
            "types": dict(self.types),
            "formats": dict(self.formats),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> FieldStats:
        return cls(
            str(data["name"]),
            int(data["present"]),
            int(data["nulls"]),
            _pairs(data.get("types", {})),
            _pairs(data.get("formats", {})),
        )

    @property
    def kind_counts(self) -> dict[str, int]:
        """Non-null values per JSON type, integer and number merged (a price is 12 one day and 12.5 the next)."""
        counts: Counter[str] = Counter()
        for kind, count in self.types:
            if kind != "null":
                counts["number" if kind == "integer" else kind] += count
        return dict(sorted(counts.items()))

    @property
    def family_counts(self) -> dict[str, int]:
        """Non-blank string values per format family (see :data:`FORMAT_FAMILIES`)."""
        counts: Counter[str] = Counter()
        for fmt, count in self.formats:
            if fmt in FORMAT_FAMILIES:
                counts[FORMAT_FAMILIES[fmt]] += count
        return dict(sorted(counts.items()))

    @property
    def profile(self) -> tuple[frozenset[str], frozenset[str]]:
        """What a field is, regardless of its name: compared to spot a renamed field."""
        return frozenset(self.kind_counts), frozenset(self.family_counts)


@dataclass(frozen=True)
class PageEvidence:
    """What the recorded requests say about the page-size cap.

    ``param`` is the size parameter (``END`` for START/END ranges).
    ``max_answered`` is the largest page size answered without a page-size
    error — the rows actually returned when the platform cut a page short in
    silence. ``max_probed`` is the largest size asked for in a request that got
    a non-transient answer; ``size_error`` whether a request larger than any
    answered one failed with a structural error.
    """

    param: str
    max_answered: int | None
    max_probed: int | None
    size_error: bool

    def to_dict(self) -> dict[str, Any]:
        return {
            "param": self.param,
            "max_answered": self.max_answered,
            "max_probed": self.max_probed,
            "size_error": self.size_error,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> PageEvidence:
        def optional_int(value: Any) -> int | None:
            return None if value is None else int(value)

        return cls(
            str(data["param"]),
            optional_int(data.get("max_answered")),
            optional_int(data.get("max_probed")),
            bool(data.get("size_error", False)),
        )


@dataclass(frozen=True)
class CodeStat:
    """How often one result code came back, where it was read, and what the catalog says it means.

    ``path`` is the last segment of the envelope code path that held it
    (``resultCode``, ``CODE``, ``status``), or :data:`HTTP_STATUS_PATH`;
    ``outcome`` is the catalog class (``ok``, ``no_data``, ``structural``,
    ``environmental``) or ``unknown`` when the catalog's table lacks the code.
    """

    path: str
    code: str
    outcome: str
    count: int

    def to_dict(self) -> dict[str, Any]:
        return {"path": self.path, "code": self.code, "outcome": self.outcome, "count": self.count}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> CodeStat:
        return cls(str(data["path"]), str(data["code"]), str(data["outcome"]), int(data["count"]))


@dataclass(frozen=True)
class ToolSchema:
    """The inferred response schema of one tool in one snapshot.

    ``answers`` counts the responses that answered (an ok code, or records
    found); ``formats`` and ``envelope`` describe those only, because error
    documents have shapes of their own. ``envelope`` holds the key paths
    outside the record list (list positions written ``[]``; the record list
    itself is one path, not descended into). ``records`` counts the records
    the field statistics are over (distinct records: overlapping pages count once).
    """

    tool: str
    responses: int
    answers: int
    records: int
    formats: tuple[tuple[str, int], ...]
    envelope: tuple[str, ...]
    fields: tuple[FieldStats, ...]
    pagination: PageEvidence | None
    result_codes: tuple[CodeStat, ...]

    def field_stats(self, name: str) -> FieldStats | None:
        for stats in self.fields:
            if stats.name == name:
                return stats
        return None

    @property
    def field_names(self) -> tuple[str, ...]:
        return tuple(f.name for f in self.fields)

    def presence(self, name: str) -> float:
        """Share of records holding the field (0 when no records were seen)."""
        stats = self.field_stats(name)
        return stats.present / self.records if stats and self.records else 0.0

    def null_ratio(self, name: str) -> float:
        """Share of the records holding the field where it is null."""
        stats = self.field_stats(name)
        return stats.nulls / stats.present if stats and stats.present else 0.0

    def to_dict(self) -> dict[str, Any]:
        return {
            "tool": self.tool,
            "responses": self.responses,
            "answers": self.answers,
            "records": self.records,
            "formats": dict(self.formats),
            "envelope": list(self.envelope),
            "fields": [f.to_dict() for f in self.fields],
            "pagination": self.pagination.to_dict() if self.pagination else None,
            "result_codes": [c.to_dict() for c in self.result_codes],
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ToolSchema:
        """The schema :meth:`to_dict` wrote; :class:`DriftError` naming the tool when the data is not one."""
        try:
            pagination = data.get("pagination")
            return cls(
                tool=str(data["tool"]),
                responses=int(data.get("responses", 0)),
                answers=int(data.get("answers", 0)),
                records=int(data.get("records", 0)),
                formats=_pairs(data.get("formats", {})),
                envelope=tuple(sorted(set(data.get("envelope", ())))),
                fields=tuple(sorted((FieldStats.from_dict(f) for f in data.get("fields", ())), key=lambda f: f.name)),
                pagination=PageEvidence.from_dict(pagination) if pagination else None,
                result_codes=tuple(
                    sorted(
                        (CodeStat.from_dict(c) for c in data.get("result_codes", ())), key=lambda c: (c.path, c.code)
                    )
                ),
            )
        except (AttributeError, KeyError, TypeError, ValueError) as exc:
            tool = data.get("tool") if isinstance(data, Mapping) else None
            raise DriftError(f"not a tool schema (tool {tool!r}): {type(exc).__name__}: {exc}") from None

    def canonical_json(self) -> str:
        return json.dumps(self.to_dict(), sort_keys=True, ensure_ascii=False, separators=(",", ":"))

    def digest(self) -> str:
        """sha256 of the canonical JSON: equal schemas, equal digests."""
        return hashlib.sha256(self.canonical_json().encode("utf-8")).hexdigest()


# -- per value -------------------------------------------------------------


def sniff_format(body: bytes) -> str:
    """The body's format from its bytes: zip-xml, html, xml, json or other."""
    if body[:2] == b"PK":
        return "zip-xml"
    head = body[:512].lstrip(b"\xef\xbb\xbf \t\r\n").lower()
    if head.startswith((b"<!doctype html", b"<html")):
        return "html"
    if head.startswith(b"<"):
        return "xml"
    if head[:1] in (b"{", b"["):
        return "json"
    return "other"


#: value_type by exact class: it runs on every value of every record the drift reads (a subclass takes the tests)
_TYPE_OF_CLASS = {type(None): "null", bool: "boolean", int: "integer", float: "number", str: "string", dict: "object"}


def value_type(value: Any) -> str:
    """The JSON type of a parsed value."""
    known = _TYPE_OF_CLASS.get(value.__class__)
    if known is not None:
        return known
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, Mapping):
        return "object"
    return "array"


def _is_yyyymmdd(text: str) -> bool:
    year, month, day = int(text[:4]), int(text[4:6]), int(text[6:])
    return 1900 <= year <= 2099 and 1 <= month <= 12 and 1 <= day <= _DAYS_IN_MONTH[month - 1]


@lru_cache(maxsize=1 << 16)  # snapshots repeat values (codes, names, dates) many times over
def string_format(text: str) -> str:
    """The kind of a string value, one of :data:`STRING_FORMATS`."""
    value = text.strip()
    if not value:
        return "blank"
    if _DIGITS.fullmatch(value):
        if len(value) == 8 and _is_yyyymmdd(value):
            return "yyyymmdd"
        if len(value) == 6 and 1900 <= int(value[:4]) <= 2099 and 1 <= int(value[4:]) <= 12:
            return "yyyymm"
        return _CODE_WIDTHS.get(len(value), "digits")
    if _DECIMAL.fullmatch(value):
        return "decimal"
    if _COMMA_NUMBER.fullmatch(value):
        return "comma_number"
    if _ISO_DATE.fullmatch(value):
        return "iso_date"
    if _ID.fullmatch(value):
        return "id"
    return "text"


# -- per response ----------------------------------------------------------


def _code_key(tool: Tool, status: int, doc: Any, code: str | None) -> tuple[str, str, str]:
    """(path leaf, code, outcome class) of one response; the HTTP status when it carries no code."""
    path, _ = first_present(doc, tool.http.envelope.code)
    if path is None or code is None:
        text = str(status)
        outcome = tool.http.classify_code(text) or classify(tool, status, None, True).removesuffix("_error")
        return HTTP_STATUS_PATH, text, outcome
    return path.split(".")[-1], code, tool.http.classify_code(code) or "unknown"


def _display(path: tuple[str | int, ...]) -> str:
    """A concrete path with list positions written ``[]``: ``schoolInfo[].head[].RESULT.CODE``."""
    out = ""
    for part in path:
        out += "[]" if isinstance(part, int) else ("." + part if out else part)
    return out


def _envelope_paths(doc: Any, record_paths: tuple[str, ...], scalars: dict[str, set[str]]) -> set[str]:
    """Key paths of ``doc`` outside its record list; the record list itself is one path.

    A record-path prefix holding nothing (``items: ""``, ``<items/>``) stands
    for the whole record path, so an empty page has the shape of a full one.
    ``scalars`` receives the kind of every non-null scalar outside the
    records, by path (see :func:`envelope_shape`).
    """
    wanted = {tuple(p.split(".")) for p in record_paths if p not in (".", "")}
    prefixes = {w[:i] for w in wanted for i in range(1, len(w))}
    out: set[str] = set()

    def walk(node: Any, path: tuple[str | int, ...]) -> None:
        key = tuple(str(p) for p in path)
        if path:
            out.add(_display(path))
        if key in wanted:
            return
        if key in prefixes and node in ("", None, [], {}):
            for full in wanted:
                if full[: len(key)] == key:
                    out.add(_display(path + full[len(key) :]))
            return
        if isinstance(node, Mapping):
            for name, child in node.items():
                walk(child, path + (str(name),))
        elif isinstance(node, list):
            for index, child in enumerate(node):
                walk(child, path + (index,))
        elif path:
            _add_scalar(scalars, _display(path), node)

    walk(doc, ())
    return out


def _add_scalar(scalars: dict[str, set[str]], path: str, value: Any) -> None:
    kind = value_type(value)
    if kind != "null":  # as for record fields: a null comes and goes with the data, and 10 and 10.5 are one kind
        scalars.setdefault(path, set()).add("number" if kind == "integer" else kind)


def envelope_shape(tool: Tool, doc: Any, records: list[dict[str, Any]]) -> tuple[set[str], dict[str, frozenset[str]]]:
    """:func:`envelope_of`, and the kinds of the scalar values outside the records by path, read in one walk
    (``data.total``: ``{"number"}``; integer and number are one kind, nulls are left out).

    A total count that turns into a string (10 → "10") keeps every key path: only the kinds show it. They are
    compared between twin requests (:mod:`kopa_replay.drift.requests`), never sealed: :class:`ToolSchema`, whose
    digest a manifest holds, does not carry them.
    """
    scalars: dict[str, set[str]] = {}
    if tool.http.envelope.records == (".",):
        # The document is the record: its envelope is what extract() set aside (the status keys).
        kept = set(records[0]) if records else set()
        paths = set()
        if isinstance(doc, Mapping):
            for name, value in doc.items():
                if name not in kept:
                    paths.add(str(name))
                    if not isinstance(value, (Mapping, list)):
                        _add_scalar(scalars, str(name), value)
    else:
        paths = _envelope_paths(doc, tool.http.envelope.records, scalars)
    return paths, {path: frozenset(kinds) for path, kinds in sorted(scalars.items())}


def envelope_of(tool: Tool, doc: Any, records: list[dict[str, Any]]) -> set[str]:
    """The key paths of a parsed document outside its records (see :class:`ToolSchema`)."""
    return envelope_shape(tool, doc, records)[0]


def parse_response(tool: Tool, response: RecordedResponse) -> Any:
    """``parse_body`` of a recorded response, memoized by its bytes: the schema and the request diff read every
    body of both snapshots, and most bodies are the same in both. The document is shared: read it, never edit it."""
    return parse_body_shared(response.body, tool.http.zip_member, response.content_type)


def _url_params(tool: Tool, url: str) -> dict[str, str]:
    """Query parameters of a recorded URL, plus path parameters matched against the tool's path template."""
    parts = urlsplit(url)
    params = dict(parse_qsl(parts.query, keep_blank_values=True))
    base_path = urlsplit(tool.http.base_url).path.rstrip("/")
    path = parts.path.removeprefix(base_path)
    pattern = re.sub(r"\\\{([A-Za-z_][A-Za-z0-9_]*)\\\}", r"(?P<\1>[^/]*)", re.escape(tool.http.path))
    match = re.fullmatch(pattern, path)
    if match:
        params.update({k: unquote(v) for k, v in match.groupdict().items()})
    return params


def _as_int(text: str | None) -> int | None:
    try:
        return int(str(text).strip()) if text not in (None, "") else None
    except ValueError:
        return None


def page_request(tool: Tool, url: str) -> tuple[int, int] | None:
    """(offset, size) a paginated request asked for, the catalog default filling a missing size."""
    pagination = tool.http.pagination
    params = _url_params(tool, url)
    if pagination.style == "page" and pagination.size_param:
        size = _as_int(params.get(pagination.size_param)) or pagination.default_size
        page = _as_int(params.get(pagination.page_param or "")) or 1
        return ((page - 1) * size, size) if size else None
    if pagination.style == "range" and pagination.start_param and pagination.end_param:
        start, end = _as_int(params.get(pagination.start_param)), _as_int(params.get(pagination.end_param))
        if start is None or end is None or end < start:
            return None
        return start - 1, end - start + 1
    return None


def _page_param(tool: Tool) -> str | None:
    pagination = tool.http.pagination
    if pagination.style == "page":
        return pagination.size_param
    if pagination.style == "range":
        return pagination.end_param
    return None


@dataclass(frozen=True)
class _Observation:
    """One response, read once."""

    body_format: str
    answered: bool
    records: list[dict[str, Any]]
    envelope: set[str]
    code: tuple[str, str, str]
    page: tuple[int, int] | None
    total: int | None


def _observe(tool: Tool, response: RecordedResponse) -> _Observation:
    fmt = sniff_format(response.body)
    page = page_request(tool, response.url)
    try:
        doc = parse_response(tool, response) if fmt != "html" else None
    except ParseError:
        doc = None
    if doc is None:
        return _Observation(fmt, False, [], set(), _code_key(tool, response.status, None, None), page, None)
    parsed = extract(tool, doc)
    code = _code_key(tool, response.status, doc, parsed.code)
    answered = response.status < 400 and (bool(parsed.records) or code[2] == "ok")
    envelope = envelope_of(tool, doc, parsed.records) if answered else set()
    return _Observation(fmt, answered, parsed.records, envelope, code, page, parsed.total)


# -- per tool --------------------------------------------------------------


def _distinct(records: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each record once: overlapping pages (an example and the largest page of the same query) return the same
    records, and counting them twice would overstate the evidence. What is counted does not depend on order."""
    unique: dict[Any, dict[str, Any]] = {}
    # a record keys itself by its field names sorted, its values in that order and their types (1, 1.0 and True
    # are three values, as JSON writes them); the getter of each key order seen is made once
    getters: dict[tuple[Any, ...], tuple[tuple[Any, ...], Callable[[dict[str, Any]], tuple[Any, ...]]]] = {}
    for record in records:
        names = tuple(record)
        known = getters.get(names)
        if known is None:
            ordered = tuple(sorted(names, key=str))
            known = getters[names] = (ordered, _values_getter(ordered))
        ordered, values_of = known
        values = values_of(record)
        classes = tuple(map(type, values))
        if float in classes:  # -0.0 == 0.0, NaN != NaN: a float is its JSON text, as the canonical key had it
            values = tuple(json.dumps(v) if c is float else v for v, c in zip(values, classes))
        try:
            unique.setdefault((ordered, values, classes), record)
        except TypeError:  # a nested value is unhashable: its canonical JSON is the key
            unique.setdefault(json.dumps(record, sort_keys=True, ensure_ascii=False, default=str), record)
    return list(unique.values())


def _values_getter(names: tuple[Any, ...]) -> Callable[[dict[str, Any]], tuple[Any, ...]]:
    if len(names) > 1:
        return itemgetter(*names)
    if names:
        (name,) = names
        return lambda record: (record[name],)
    return lambda record: ()


def _field_stats(records: list[dict[str, Any]]) -> tuple[FieldStats, ...]:
    kinds: Counter[tuple[str, str]] = Counter()
    formats: dict[str, Counter[str]] = defaultdict(Counter)
    for record in records:
        for name, value in record.items():
            kind = value_type(value)
            kinds[name, kind] += 1
            if kind == "string":
                formats[name][string_format(value)] += 1
    # names counted as text (a parser's keys are; 1 and "1" are one field, as they were)
    types: dict[str, Counter[str]] = defaultdict(Counter)
    for (name, kind), count in kinds.items():
        types[str(name)][kind] += count
    formats_by_text: dict[str, Counter[str]] = defaultdict(Counter)
    for name, counter in formats.items():
        formats_by_text[str(name)].update(counter)
    return tuple(
        FieldStats(
            name,
            sum(types[name].values()),
            types[name]["null"],
            _pairs(types[name]),
            _pairs(formats_by_text[name]),
        )
        for name in sorted(types)
    )


def _page_evidence(tool: Tool, observations: list[_Observation]) -> PageEvidence | None:
    param = _page_param(tool)
    if param is None:
        return None
    answered_sizes: list[int] = []
    failed_sizes: list[int] = []
    probed: list[int] = []
    for obs in observations:
        if obs.page is None or obs.code[2] == "environmental":
            continue  # a transient failure says nothing about the cap
        offset, size = obs.page
        probed.append(size)
        if obs.answered:
            returned = len(obs.records)
            # Cut short in silence: fewer rows than asked although the total says more exist.
            cut_short = obs.total is not None and returned < size and obs.total > offset + returned
            answered_sizes.append(returned if cut_short else size)
        elif obs.code[2] in ("structural", "unknown"):
            failed_sizes.append(size)
    max_answered = max(answered_sizes, default=None)
    size_error = max_answered is not None and any(size > max_answered for size in failed_sizes)
    return PageEvidence(param, max_answered, max(probed, default=None), size_error)


#: schemas already inferred in this process, by tool and the exact responses (see infer_tool_schema)
_INFERRED: OrderedDict[tuple[int, bytes], tuple[Tool, ToolSchema]] = OrderedDict()
_INFERRED_MAX = 4096


def _responses_digest(responses: list[RecordedResponse]) -> bytes:
    digest = hashlib.blake2b(digest_size=20)
    for r in responses:
        head = json.dumps([r.method, r.url, r.status, r.content_type, r.request_key, r.seq, len(r.body)])
        digest.update(head.encode())
        digest.update(r.body)
    return digest.digest()


def infer_tool_schema(tool: Tool, responses: Iterable[RecordedResponse]) -> ToolSchema:
    """The schema of ``tool`` from its recorded responses (others' responses are ignored).

    A pure function, so it is kept per process by the responses' digest: a refresh infers the base snapshot's
    schemas for the drift, the new one's for the seal and again for the drift, and the tools it carried over
    answer the same bytes in both (on the full-size world this is most of a refresh's time)."""
    mine = [r for r in responses if r.tool == tool.name]
    # the tool object is held beside its schema, so its id cannot be reused by another tool while cached
    key = (id(tool), _responses_digest(mine))
    cached = _INFERRED.get(key)
    if cached is not None and cached[0] is tool:
        _INFERRED.move_to_end(key)
        return cached[1]
    schema = _infer_tool_schema(tool, mine)
    _INFERRED[key] = (tool, schema)
    if len(_INFERRED) > _INFERRED_MAX:
        _INFERRED.popitem(last=False)
    return schema


def _blocked(tool: Tool, response: RecordedResponse) -> bool:
    """Whether the environment reads ``response`` as blocked (:func:`kopa_replay.env.call.read_envelope`)."""
    read = read_envelope(tool, response.status, response.body, "", response.content_type)
    return isinstance(read, CallResult) and read.outcome == "blocked_error"


def _infer_tool_schema(tool: Tool, responses: list[RecordedResponse]) -> ToolSchema:
    # a request asked again with the same answer (DART's corpCode ZIP, once per task that names a company) is
    # observed once and its records offered once: _distinct would drop them again, after reading them all
    seen: dict[tuple[str, int, str, bytes], _Observation] = {}
    observations = []
    for r in responses:
        if _blocked(tool, r):
            continue  # a wall's page or nothing (a store another recorder wrote): an incident, not the API's schema
        key = (r.url, r.status, r.content_type, r.body)
        if key not in seen:
            seen[key] = _observe(tool, r)
        observations.append(seen[key])
    answers = [obs for obs in observations if obs.answered]
    records = _distinct(record for obs in seen.values() for record in obs.records)
    codes = Counter(obs.code for obs in observations)
    return ToolSchema(
        tool=tool.name,
        responses=len(observations),
        answers=len(answers),
        records=len(records),
        formats=_pairs(Counter(obs.body_format for obs in answers)),
        envelope=tuple(sorted(set().union(*(obs.envelope for obs in answers)))),
        fields=_field_stats(records),
        pagination=_page_evidence(tool, observations),
        result_codes=tuple(
            CodeStat(path, code, outcome, count) for (path, code, outcome), count in sorted(codes.items())
        ),
    )


def infer_schemas(catalog: Iterable[Tool], responses: Iterable[RecordedResponse]) -> dict[str, ToolSchema]:
    """Schemas of every catalog tool that has responses, by tool name (sorted); other tools are skipped."""
    tools = {tool.name: tool for tool in catalog}
    grouped: dict[str, list[RecordedResponse]] = defaultdict(list)
    for response in responses:
        if response.tool in tools:
            grouped[response.tool].append(response)
    return {name: infer_tool_schema(tools[name], grouped[name]) for name in sorted(grouped)}
