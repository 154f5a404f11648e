"""The tool environment's core: every decision, no I/O.

What :class:`~kopa_replay.env.sync.ToolEnvironment` and its async twin
:class:`~kopa_replay.env.async_.AsyncToolEnvironment` share, as httpx's two
clients share their base: argument validation, the result and log types,
interpretation of a body (parse, normalize, classify, memoized by content
digest), retry decisions and pagination decisions. The operations are
generators (*flows*) that yield what they need done and receive the answer::

    ("send", tool, args, requests)  →  a :class:`Reply`  (the driver sends the request, or the snapshot
                                        answers it; ``requests``: see :func:`prepare`)
    ("sleep", seconds)     →  None               (the driver sleeps: time.sleep or asyncio.sleep)

and return a :class:`ToolResult` (or a :class:`PageRead`). Each driver is a
loop of :func:`step` over those two I/O calls; nothing else differs between
them. The only outside call made here is the source's replay fast path
(``source.replayer``), handed in with the source as hishel hands in storage.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
import threading
from collections import OrderedDict
from collections.abc import Callable, Generator, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, ClassVar, NamedTuple, Protocol, Self

import orjson

from kopa_replay.catalog.model import Catalog, Tool
from kopa_replay.env.call import (
    OUTCOME_CLASSES,
    TRANSIENT_OUTCOMES,
    CallResult,
    build_request,
    interpret,
    interpret_parsed,
    read_envelope,
)
from kopa_replay.env.normalize import normalize_read
from kopa_replay.errors import UsageError
from kopa_replay.record.redact import Redactor, redactor_for, register_secret
from kopa_replay.record.retry import BlockedAnswer

__all__ = [
    "DEFAULT_SNAPSHOT",
    "MEMO_RECORDS",
    "ToolResult",
    "LogEntry",
    "PageRead",
    "Reply",
    "Prepared",
    "RetryPolicy",
    "PageWalk",
    "Core",
    "EnvironmentBase",
    "validate_args",
    "result_digest",
    "next_page_args",
    "page_info",
    "prepare",
    "step",
]

#: The snapshot shipped as package data (data/cassettes/kopa.sqlite); ``source="replay"`` uses it unless told
#: otherwise.
DEFAULT_SNAPSHOT = "2026-09-01"

#: how many records the interpretation memo holds, summed over its entries (oldest evicted first)
MEMO_RECORDS = 200_000
#: how many whole answers of client-filtered tools (corpCode's company list and the like) stay read
_ENVELOPES = 4
#: how many calls the validation and request memos hold each (emptied when full: refilling costs little)
MEMO_CALLS = 100_000


# -- results and the log -----------------------------------------------------
@dataclass(frozen=True)
class ToolResult:
    """The validated, parsed, normalized and classified answer to one call (or one ``fetch_all``).

    ``page`` is what was asked: ``{"page": n, "size": s}`` (page style) or
    ``{"start": a, "end": b}`` (range style), None for unpaged tools.
    ``status`` is the HTTP status, 0 when nothing was sent (invalid arguments)
    or the transport failed. ``attempts`` counts tries (retries included),
    ``pages`` the pages a ``fetch_all`` read; ``complete`` is False when a
    ``fetch_all`` stopped on a failed page or its page budget before the total.
    """

    tool: str
    args: Mapping[str, Any]
    records: list[dict[str, Any]]
    total_count: int | None
    page: Mapping[str, int | None] | None
    outcome: str
    code: str | None
    message: str | None
    digest: str
    status: int = 200
    attempts: int = 1
    pages: int = 1
    complete: bool = True

    @property
    def ok(self) -> bool:
        return self.outcome == "ok"

    def to_dict(self) -> dict[str, Any]:
        return {
            "tool": self.tool,
            "args": dict(self.args),
            "outcome": self.outcome,
            "code": self.code,
            "message": self.message,
            "status": self.status,
            "total_count": self.total_count,
            "page": None if self.page is None else dict(self.page),
            "attempts": self.attempts,
            "pages": self.pages,
            "complete": self.complete,
            "digest": self.digest,
            "records": self.records,
        }


@dataclass(frozen=True)
class LogEntry:
    """One call in the environment's log. ``args`` are the validated, coerced arguments as sorted pairs."""

    tool: str
    args: tuple[tuple[str, Any], ...]
    outcome: str
    digest: str
    attempts: int = 1

    def to_dict(self) -> dict[str, Any]:
        return {"tool": self.tool, "args": dict(self.args), "outcome": self.outcome, "digest": self.digest}


@dataclass(frozen=True)
class PageRead:
    """The pages of one read and what they add up to.

    ``outcome`` is the first page's, or that of a later page that failed (the
    records are then not what the tool would give); ``complete``: every record
    the tool reported was read.
    """

    pages: tuple[ToolResult, ...]
    records: list[dict[str, Any]]
    total_count: int | None
    complete: bool
    outcome: str

    @property
    def ok(self) -> bool:
        return self.outcome == "ok"


def _canonical(value: Any) -> bytes:
    return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"), default=str).encode()


def result_digest(tool: str, outcome: str, code: str | None, records: Sequence[Mapping[str, Any]]) -> str:
    """sha256 of the canonical JSON of (tool, outcome, code, records)."""
    return hashlib.sha256(_canonical([tool, outcome, code, list(records)])).hexdigest()


def _reading_digest(tool: str, outcome: str, code: str | None, records: list[dict[str, Any]], plain: bool) -> str:
    """:func:`result_digest` of freshly read records; ``plain`` ones (:func:`~kopa_replay.env.normalize.normalize_read`)
    through orjson. For plain values it writes the bytes :func:`_canonical` writes — keys sorted by code point,
    compact separators, non-ASCII as is, the same string escapes, the same shortest float spelling in the plain
    range — about five times sooner; the digest of a freshly read page cost more than its parse."""
    if plain:
        try:
            text = orjson.dumps([tool, outcome, code, records], option=orjson.OPT_SORT_KEYS)
        except orjson.JSONEncodeError:  # an int past 64 bits, a lone surrogate: json's answer, as ever
            pass
        else:
            return hashlib.sha256(text).hexdigest()
    return result_digest(tool, outcome, code, records)


# -- argument validation -----------------------------------------------------
_INTEGER = re.compile(r"^\s*[+-]?\d+\s*$")
_TYPE_WORDS = {"integer": "an integer", "number": "a number", "string": "a string", "boolean": "a boolean"}


def _coerce(name: str, value: Any, prop: Mapping[str, Any]) -> tuple[Any, str | None]:
    kind = prop.get("type")
    if kind == "integer":
        if isinstance(value, bool):
            pass
        elif isinstance(value, int):
            return value, None
        elif isinstance(value, float) and value.is_integer():
            return int(value), None
        elif isinstance(value, str) and _INTEGER.match(value):
            return int(value), None
    elif kind == "number":
        if isinstance(value, bool):
            pass
        elif isinstance(value, (int, float)):
            return value, None
        elif isinstance(value, str):
            text = value.strip()
            if _INTEGER.match(text):
                return int(text), None
            try:
                number = float(text)
            except ValueError:
                pass
            else:
                if math.isfinite(number):
                    return number, None
    elif kind == "string":
        if isinstance(value, str):
            return value, None
        if isinstance(value, int) and not isinstance(value, bool):
            return str(value), None  # 20260831 written as a number: the digits the agent meant
    elif kind == "boolean":
        if isinstance(value, bool):
            return value, None
        if isinstance(value, str) and value.strip().lower() in ("true", "false"):
            return value.strip().lower() == "true", None
    else:
        return value, None
    return value, f"parameter {name!r} must be {_TYPE_WORDS.get(kind, kind)}, not {value!r}"


def validate_args(tool: Tool, args: Mapping[str, Any] | None) -> tuple[dict[str, Any], str | None]:
    """(coerced arguments, None) or (what could be kept, a message naming the offending parameter).

    ``None`` values count as absent. Checks, in order: unknown names, required
    parameters, then each parameter's type, enum, pattern, minimum and maximum.
    """
    if args is None:
        args = {}
    if not isinstance(args, Mapping):
        return {}, f"arguments of tool {tool.name!r} must be an object, not {type(args).__name__}"
    properties = tool.input_schema.get("properties", {})
    unknown = sorted(str(name) for name in args if name not in properties)
    if unknown:
        return {}, (
            f"unknown parameter {unknown[0]!r} for tool {tool.name!r} (parameters: {', '.join(tool.params) or 'none'})"
        )
    present = {name: value for name, value in args.items() if value is not None}
    for name in tool.required:
        if name not in present or (isinstance(present[name], str) and not present[name].strip()):
            return {}, f"missing required parameter {name!r} for tool {tool.name!r}"
    out: dict[str, Any] = {}
    for name in sorted(present):
        prop = properties[name]
        value, problem = _coerce(name, present[name], prop)
        if problem:
            return out, problem
        enum = prop.get("enum")
        if enum is not None and value not in enum and str(value) not in [str(e) for e in enum]:
            return out, f"parameter {name!r} must be one of {list(enum)!r}, not {value!r}"
        pattern = prop.get("pattern")
        if pattern is not None and isinstance(value, str) and not re.search(pattern, value):
            return out, f"parameter {name!r} does not match pattern {pattern!r}: {value!r}"
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            if "minimum" in prop and value < prop["minimum"]:
                return out, f"parameter {name!r} must be at least {prop['minimum']}, not {value!r}"
            if "maximum" in prop and value > prop["maximum"]:
                return out, f"parameter {name!r} must be at most {prop['maximum']}, not {value!r}"
        out[name] = value
    return out, None


# -- one request and its answer ------------------------------------------------
@dataclass(frozen=True, slots=True)
class Reply:
    """What a driver hands back for one ``send``: the answer's status and body, or the transport's failure."""

    status: int
    content: bytes
    redacted: str
    #: the keys the request carried (``kopa_secrets``): masked in a body no snapshot served
    secrets: tuple[str, ...] = ()
    #: the transport's failure (its exception's name); status 0, no body
    error: str | None = None
    #: content digest of a body served from a snapshot: the interpretation of such a body is memoized
    body_digest: str | None = None
    #: reads a snapshot's body (then ``content`` is empty): only when what it says is not memoized yet
    load: Callable[[], bytes] | None = None

    def body(self) -> bytes:
        return self.content if self.load is None else self.load()


@dataclass(frozen=True)
class Prepared:
    """The real request for one call, built from the catalog binding (what a driver sends)."""

    method: str
    url: str
    headers: dict[str, str | bytes]
    redacted: str
    #: the recorder reads the tool name and the key we inserted from the request's extensions
    extensions: dict[str, Any]

    def answered(self, status: int, content: bytes) -> Reply:
        return Reply(status, content, self.redacted, secrets=self.extensions["kopa_secrets"])

    def failed(self, exc: BaseException) -> Reply:
        if isinstance(exc, BlockedAnswer):  # an answer the recorder would not keep: still read for what it is
            return self.answered(exc.status, exc.body)
        return Reply(0, b"", self.redacted, error=type(exc).__name__)


class Opened(Protocol):
    """What the core reads of a source (:class:`~kopa_replay.env.source.Source` or its async twin)."""

    replayer: Callable[[str, str, tuple[str, ...], str | None], Any] | None

    def key_for(self, tool: Tool) -> str | None: ...


_SCALARS = frozenset({str, int, float, bool, type(None)})


def _call_key(head: tuple, args: Mapping[str, Any]) -> tuple | None:
    """``head`` and ``args`` as a memo key that tells ``1``, ``1.0`` and ``True`` apart (one key of a dict
    otherwise, though each is written differently in a request); None when a value is no plain scalar."""
    if type(args) is not dict:
        return None
    for value in args.values():
        if value.__class__ not in _SCALARS:
            return None
    return (*head, *((name, value.__class__, value) for name, value in args.items()))


def _remember(memo: dict[tuple, Any], key: tuple, value: Any) -> None:
    if len(memo) >= MEMO_CALLS:
        memo.clear()
    memo[key] = value


def prepare(
    tool: Tool, args: Mapping[str, Any], source: Opened, requests: dict[str | None, Any] | None = None
) -> Prepared | Reply:
    """The snapshot's answer to the call when the source's fast path has one, else the request to send.

    ``requests`` holds the requests built before for these same arguments, by key (what
    :meth:`Core.validate` keeps with its verdict): building is a pure function of (tool, key, arguments), and
    pruning or synthesis asks a few thousand requests a hundred thousand times (quoting and encoding the URL
    cost more than the rest of a replayed call).
    """
    key = source.key_for(tool)
    built = requests.get(key) if requests is not None else None
    if built is None:
        built = build_request(tool, args, key)
        if requests is not None:
            requests[key] = built
    method, url, headers, redacted = built
    register_secret(key)  # the log filter masks the key, replayed or not
    secrets = (key,) if key else ()
    if source.replayer is not None:
        answer = source.replayer(method, url, secrets, tool.name)  # the tool: named if its body is corrupt
        if answer is not None:
            return Reply(answer.status, b"", redacted, body_digest=answer.body_digest, load=answer.load)
    return Prepared(method, url, headers, redacted, {"kopa_tool": tool.name, "kopa_secrets": secrets})


# -- decisions -------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class RetryPolicy:
    """Whether to try a call again, and after how long (exponential backoff, capped); ``retries`` ≥ 0."""

    retries: int = 0
    backoff: float = 0.5
    max_backoff: float = 30.0

    def delay(self, attempt: int) -> float:
        """Backoff before retry number ``attempt`` (1-based): backoff · 2^(attempt-1), capped."""
        return min(self.max_backoff, self.backoff * (2 ** (attempt - 1)))

    def after(self, result: ToolResult, attempt: int) -> float | None:
        """Seconds to wait before trying again after ``attempt`` gave ``result``; None: keep the result."""
        if result.outcome not in TRANSIENT_OUTCOMES or attempt > self.retries:
            return None
        return self.delay(attempt)


def page_info(tool: Tool, args: Mapping[str, Any]) -> dict[str, int | None] | None:
    """The page a call asks for: ``{"page", "size"}``, ``{"start", "end"}`` or None (unpaged)."""
    pagination = tool.http.pagination
    props = tool.input_schema.get("properties", {})

    def value(param: str | None, fallback: int | None) -> int | None:
        if param is None:
            return None
        got = args.get(param, props.get(param, {}).get("default", fallback))
        try:
            return int(got) if got is not None else None
        except (TypeError, ValueError):
            return None

    if pagination.style == "page":
        return {"page": value(pagination.page_param, 1), "size": value(pagination.size_param, pagination.default_size)}
    if pagination.style == "range":
        start = value(pagination.start_param, 1)
        end = value(pagination.end_param, (start or 1) + (pagination.default_size or 100) - 1)
        return {"start": start, "end": end}
    return None


class PageWalk:
    """Which page to ask for next, from the pages read so far (pure: no I/O).

    Page style continues at the server's size when it capped the first page;
    range style moves its window. A read stops at the reported total, at an
    empty or short page, at a failed page, or at the page budget.
    """

    def __init__(self, tool: Tool, first: ToolResult, max_pages: int) -> None:
        self.pagination = tool.http.pagination
        self.pages = [first]
        self.records = list(first.records)
        self.total = first.total_count
        self.max_pages = max_pages
        self.outcome = first.outcome
        self.done = self.pagination.style == "none" or first.outcome != "ok" or first.page is None
        if self.done:
            return
        assert first.page is not None
        self.args = dict(first.args)
        if self.pagination.style == "page":
            self.number, self.size = first.page["page"] or 1, first.page["size"] or len(first.records)
            if self.number == 1 and self.total is not None and 0 < len(first.records) < min(self.size, self.total):
                self.size = len(first.records)  # the server capped the page size: continue at its size
            self.position = (self.number - 1) * self.size + len(first.records)
        else:
            start, end = first.page["start"] or 1, first.page["end"] or len(first.records)
            self.size = end - start + 1
            self.position = start - 1 + len(first.records)

    def next_args(self) -> dict[str, Any] | None:
        last = self.pages[-1]
        if (
            self.done
            or (self.total is not None and self.position >= self.total)
            or (self.total is None and len(last.records) < self.size)
            or len(self.pages) >= self.max_pages
        ):
            return None
        # the catalog loader (the one maker of Pagination) requires these parameters for their style
        if self.pagination.style == "page":
            assert self.pagination.page_param is not None
            self.number += 1
            self.args[self.pagination.page_param] = self.number
            if self.pagination.size_param:
                self.args[self.pagination.size_param] = self.size
        else:
            assert self.pagination.start_param is not None and self.pagination.end_param is not None
            self.args[self.pagination.start_param] = self.position + 1
            self.args[self.pagination.end_param] = self.position + self.size
        return dict(self.args)

    def add(self, page: ToolResult) -> None:
        self.pages.append(page)
        if page.outcome != "ok" or not page.records:
            if page.outcome not in ("ok", "empty"):
                self.outcome = page.outcome
            self.done = True
            return
        self.records.extend(page.records)
        if self.pagination.style == "page":
            self.position = (self.number - 1) * self.size + len(page.records)
        else:
            self.position += len(page.records)

    def read(self) -> PageRead:
        first, last = self.pages[0], self.pages[-1]
        if self.pagination.style == "none" or first.outcome != "ok" or first.page is None:
            return PageRead(
                (first,), list(first.records), first.total_count, first.outcome in ("ok", "empty"), first.outcome
            )
        failed = self.outcome != "ok"
        complete = not failed and (
            self.position >= self.total if self.total is not None else len(last.records) < self.size or not last.records
        )
        return PageRead(tuple(self.pages), self.records, self.total, complete, self.outcome)


def next_page_args(tool: Tool, result: ToolResult) -> dict[str, Any] | None:
    """The arguments of the page after ``result`` by the same rules as :meth:`ToolEnvironment.fetch_all`;
    None when the read ends there (unpaged tool, failed call, reported total reached, short page)."""
    return PageWalk(tool, result, 2).next_args()


# -- interpretation --------------------------------------------------------------
@dataclass(frozen=True)
class _Reading:
    """What one recorded body says to one tool (records frozen in the memo, copied out per call)."""

    outcome: str
    records: list[dict[str, Any]]
    total: int | None
    code: str | None
    message: str | None
    digest: str
    flat: bool  # no record holds a dict or list: a shallow copy per record is a full copy


def _fresh(value: Any) -> Any:
    """A copy of parsed JSON-like data (dicts and lists copied, scalars shared): callers may mutate records."""
    kind = type(value)
    if kind is dict:
        return {k: (v if type(v) not in (dict, list) else _fresh(v)) for k, v in value.items()}
    if kind is list:
        return [_fresh(v) for v in value]
    return value


class _Verdict(NamedTuple):
    """What :meth:`Core.validate` says of a call's arguments, and the requests built from them by key."""

    args: dict[str, Any]
    problem: str | None
    page: dict[str, int | None] | None
    requests: dict[str | None, tuple[str, str, dict[str, str | bytes], str]]


_UNSET: Any = object()

#: what a flow asks its driver to do: ("send", tool, args, requests) → Reply, or ("sleep", seconds) → None
Op = tuple
Flow = Generator[Op, Any, Any]


def step(flow: Flow, answer: Any = None) -> tuple[Op | None, Any]:
    """Hand ``answer`` to ``flow`` (None to start it): (the next op, None), or (None, its result) when done."""
    try:
        return flow.send(answer), None
    except StopIteration as stop:
        return None, stop.value


class Core:
    """Validation, interpretation, retry and pagination plans, and the log — no I/O."""

    def __init__(self, catalog: Catalog, *, retries: int = 0, backoff: float = 0.5, max_backoff: float = 30.0) -> None:
        if retries < 0:
            raise UsageError(f"retries must be 0 or more, not {retries}")
        self.catalog = catalog
        self.policy = RetryPolicy(int(retries), float(backoff), float(max_backoff))
        self._log: list[LogEntry] = []
        self._lock = threading.Lock()
        # (tool, status, body digest, client-filter arguments) → _Reading. A snapshot answers the same
        # bytes to the same request, so parsing, normalizing and digesting them once is enough.
        self._memo: OrderedDict[tuple, _Reading] = OrderedDict()
        self._memo_records = 0
        #: the envelopes last read of tools with client-side filters, before filtering (see _reading)
        self._envelopes: OrderedDict[tuple, Any] = OrderedDict()
        # a request's keys → the recorder's masking of them (built on first use: a handful per run)
        self._redactors: dict[tuple[str, ...], Redactor] = {}
        # pure functions of a call's arguments, memoized (see _call_key): validate_args's verdict, the page and
        # the requests built from them (:func:`prepare`): a walk repeats each of a few thousand calls many times
        self._validated: dict[tuple, _Verdict] = {}

    # state
    @property
    def log(self) -> tuple[LogEntry, ...]:
        with self._lock:
            return tuple(self._log)

    def append(self, result: ToolResult) -> None:
        entry = LogEntry(
            result.tool, tuple(sorted(result.args.items())), result.outcome, result.digest, result.attempts
        )
        with self._lock:
            self._log.append(entry)

    def state_digest(self) -> str:
        entries = [[e.tool, [list(pair) for pair in e.args], e.outcome, e.digest] for e in self.log]
        return hashlib.sha256(_canonical(entries)).hexdigest()

    def reset(self) -> None:
        with self._lock:
            self._log.clear()

    # one result
    def make(
        self,
        tool: Tool,
        args: Mapping[str, Any],
        outcome: str,
        records: list[dict[str, Any]],
        total: int | None,
        code: str | None,
        message: str | None,
        status: int,
        attempts: int = 1,
    ) -> ToolResult:
        assert outcome in OUTCOME_CLASSES
        return ToolResult(
            tool.name,
            dict(args),
            records,
            total,
            page_info(tool, args),
            outcome,
            code,
            message,
            result_digest(tool.name, outcome, code, records),
            status,
            attempts,
        )

    def interpret(
        self,
        tool: Tool,
        args: Mapping[str, Any],
        reply: Reply,
        attempts: int,
        copy_records: bool = True,
        page: Any = _UNSET,
    ) -> ToolResult:
        """What :func:`kopa_replay.env.call.execute` does after the response, plus normalization.

        ``copy_records=False`` hands out the memo's own records (see :meth:`call_flow`); ``page``, when given,
        is ``page_info(tool, args)`` worked out before (copied here)."""
        if reply.error is not None:
            return self.make(
                tool,
                args,
                "environmental_error",
                [],
                None,
                None,
                f"request to {reply.redacted} failed: {reply.error}",
                0,
                attempts,
            )
        if reply.body_digest is None:
            # A body from the simulator, a mirror or the live API: masked, then read through the same memo as
            # a snapshot's bodies, keyed by its content digest — the same bytes always say the same thing, and
            # walks that repeat a call (synthesis makes thousands) stop re-parsing its body (large XML pages
            # cost tens of milliseconds). Hashing costs far less than the parse it saves.
            content = self.masked(reply.content, reply.secrets)
            reply = replace(reply, content=content, body_digest=hashlib.sha256(content).hexdigest())
        reading = self._reading(tool, args, reply)
        if not copy_records:
            records = reading.records
        else:
            records = [r.copy() for r in reading.records] if reading.flat else _fresh(reading.records)
        if page is _UNSET:
            page = page_info(tool, args)
        return ToolResult(
            tool.name,
            dict(args),
            records,
            reading.total,
            None if page is None else dict(page),
            reading.outcome,
            reading.code,
            reading.message,
            reading.digest,
            reply.status,
            attempts,
        )

    def masked(self, content: bytes, secrets: tuple[str, ...]) -> bytes:
        """``content`` with the request's keys masked exactly as the recorder masks the bodies it stores.

        Some platforms echo the caller's key in their answers (law.go.kr's detail links carry
        ``OC=<key>``). A snapshot holds such bodies masked, so records read from any other source are
        masked the same way: the same call then gives the same records and digest from the simulator,
        a mirror, the live API or a replay, and no key reaches a result, a trajectory or ``--json``.
        """
        redactor = self._redactors.get(secrets)
        if redactor is None:
            redactor = self._redactors.setdefault(secrets, redactor_for(self.catalog, extra_values=secrets))
        return redactor.scrub_bytes(content)

    def _filtered(self, tool: Tool, args: Mapping[str, Any], reply: Reply) -> CallResult:
        """:func:`interpret` for a tool that filters on the client: the whole answer is read once per body and
        each call filters it. A filter's value is part of the reading memo's key, so without this every company a
        corpCode lookup asks for would parse the 114,106-company document again."""
        key = (tool.name, reply.status, reply.body_digest)
        with self._lock:
            parsed = self._envelopes.get(key)
        if parsed is None:
            parsed = read_envelope(tool, reply.status, reply.body(), reply.redacted)
            with self._lock:
                self._envelopes[key] = parsed
                while len(self._envelopes) > _ENVELOPES:
                    self._envelopes.popitem(last=False)
        if isinstance(parsed, CallResult):
            return parsed
        return interpret_parsed(tool, args, reply.status, parsed, reply.redacted)

    def _reading(self, tool: Tool, args: Mapping[str, Any], reply: Reply) -> _Reading:
        # Not masked again: a body served from a snapshot was masked when it was stored (every writer,
        # RecordTransport.record and the vcr import, scrubs with the key the request carried), and the
        # key a replay sends (REPLAY_KEY) never leaves this process, so no stored body can hold it.
        filters = tuple((f.param, args.get(f.param)) for f in tool.client_filters) if tool.client_filters else ()
        key = (tool.name, reply.status, reply.body_digest, filters)
        with self._lock:
            reading = self._memo.get(key)
            if reading is not None:
                self._memo.move_to_end(key)
                return reading
        if tool.client_filters:
            answer = self._filtered(tool, args, reply)
        else:
            answer = interpret(tool, args, reply.status, reply.body(), reply.redacted)
        records, plain = normalize_read(answer.records)
        flat = plain or all(type(v) not in (dict, list) for record in records for v in record.values())
        reading = _Reading(
            answer.outcome,
            records,
            answer.total_count,
            answer.code,
            answer.message,
            _reading_digest(tool.name, answer.outcome, answer.code, records, plain),
            flat,
        )
        with self._lock:
            if key not in self._memo and len(records) <= MEMO_RECORDS:
                self._memo[key] = reading
                self._memo_records += len(records)
                while self._memo_records > MEMO_RECORDS:
                    _, evicted = self._memo.popitem(last=False)
                    self._memo_records -= len(evicted.records)
        return reading

    def validate(self, tool: Tool, args: Mapping[str, Any] | None) -> "_Verdict":
        """:func:`validate_args` and the page the call asks for (:func:`page_info`), memoized. The coerced
        arguments and the page are shared between calls: every reader copies them (each result holds its own),
        none writes."""
        key = _call_key((tool.name,), args) if args is not None else None
        verdict = self._validated.get(key) if key is not None else None
        if verdict is None:
            coerced, problem = validate_args(tool, args)
            verdict = _Verdict(coerced, problem, page_info(tool, coerced) if problem is None else None, {})
            if key is not None:
                _remember(self._validated, key, verdict)
        return verdict

    # flows
    def call_flow(
        self, name: str, args: Mapping[str, Any] | None, *, log: bool = True, copy_records: bool = True
    ) -> Flow:
        """One call. ``copy_records=False``: the result's records are the interpretation memo's own, shared with
        every other result of the same answer — for a caller that only reads them (the pruning loop reads
        millions; copying them cost more than the rest of a replayed call)."""
        tool = self.catalog.get(name)  # UnknownTool: a programming error, raised
        coerced, problem, page, requests = self.validate(tool, args)
        if problem is not None:
            shown = dict(args) if isinstance(args, Mapping) else {}
            result = self.make(tool, shown, "structural_error", [], None, None, problem, 0, 0)
        else:
            attempt = 0
            while True:
                attempt += 1
                reply = yield ("send", tool, coerced, requests)
                result = self.interpret(tool, coerced, reply, attempt, copy_records, page)
                pause = self.policy.after(result, attempt)
                if pause is None:
                    break
                yield ("sleep", pause)
        if log:
            self.append(result)
        return result

    def pages_flow(self, name: str, args: Mapping[str, Any] | None, max_pages: int) -> Flow:
        """Every page of one read, each a logged call: returns a :class:`PageRead`."""
        if max_pages < 1:
            raise UsageError(f"max_pages must be at least 1, not {max_pages}")
        tool = self.catalog.get(name)
        first = yield from self.call_flow(name, args)
        walk = PageWalk(tool, first, max_pages)
        while (page_args := walk.next_args()) is not None:
            walk.add((yield from self.call_flow(name, page_args)))
        return walk.read()

    def fetch_all_flow(self, name: str, args: Mapping[str, Any] | None, max_pages: int) -> Flow:
        read = yield from self.pages_flow(name, args, max_pages)
        first = read.pages[0]
        if len(read.pages) == 1 and (first.outcome != "ok" or first.page is None):
            return first
        return replace(
            first,
            records=read.records,
            pages=len(read.pages),
            complete=read.complete,
            digest=result_digest(first.tool, first.outcome, first.code, read.records),
        )


# -- what both front ends share --------------------------------------------------
class EnvironmentBase:
    """Construction, ``open`` and the call log of both environments (no I/O).

    A driver sets :attr:`_opener` (the function that opens its kind of source, from the source
    registry) and :attr:`_default_sleep`, and supplies ``_drive`` (the loop that does the I/O a flow asks for).
    """

    _opener: ClassVar[Callable[..., Any]]
    _default_sleep: ClassVar[Callable[[float], Any]]

    def __init__(
        self,
        catalog: Catalog,
        source: Any,
        *,
        retries: int = 0,
        backoff: float = 0.5,
        max_backoff: float = 30.0,
        sleep: Callable[[float], Any] | None = None,
        owns_source: bool = False,
    ) -> None:
        self.catalog = catalog
        self.source = source
        self._sleep = sleep if sleep is not None else type(self)._default_sleep
        self._core = Core(catalog, retries=retries, backoff=backoff, max_backoff=max_backoff)
        self._owns_source = owns_source

    @classmethod
    def open(
        cls,
        catalog: Catalog | None = None,
        *,
        source: str = "replay",
        snapshot: str | None = None,
        mode: str | None = None,
        store: Any = None,
        seed: int = 0,
        as_of: Any = None,
        retries: int = 0,
        fault_rate: float = 0.0,
        incidents: str = "",
        sleep: Callable[[float], Any] | None = None,
        backoff: float = 0.5,
        mirrors: Mapping[str, str] | None = None,
        timeout: float = 30.0,
    ) -> Self:
        """An environment over a source from the registry (``open_source`` / ``open_async_source``); by default
        strict replay of the shipped snapshot. Any source either opener takes: ``sim``, ``live`` (``mirrors``
        sends chosen hosts to a mirror), ``replay``, or a mirror's URL.

        ``snapshot`` defaults to :data:`DEFAULT_SNAPSHOT` for ``source="replay"`` and to
        none (no recorder) for every other source.
        """
        if catalog is None:
            from kopa_replay.catalog import builtin_catalog

            catalog = builtin_catalog()
        if snapshot is None and source == "replay":
            snapshot = DEFAULT_SNAPSHOT
        opened = cls._opener(
            source,
            seed=seed,
            as_of=as_of,
            fault_rate=fault_rate,
            incidents=incidents,
            timeout=timeout,
            snapshot=snapshot,
            mode=mode,
            store=store,
            mirrors=mirrors,
            catalog=catalog,
        )
        return cls(catalog, opened, retries=retries, backoff=backoff, sleep=sleep, owns_source=True)

    @property
    def log(self) -> tuple[LogEntry, ...]:
        return self._core.log

    def state_digest(self) -> str:
        return self._core.state_digest()

    def reset(self) -> None:
        """Forget the call log (the source keeps its counters: see :meth:`rewind`)."""
        self._core.reset()

    def rewind(self) -> None:
        """As if freshly opened: forget the call log and every per-request counter the source keeps.

        Replay walks the answers recorded for one request by occurrence, and the simulator's faults are a
        function of (seed, request, attempt): after a rewind the same calls get the same answers as on a
        freshly opened environment (:meth:`~kopa_replay.env.source.Source.rewind`). What only speeds calls up
        (the interpretation memo) is kept: it holds nothing a fresh environment would answer otherwise.
        """
        self._core.reset()
        self.source.rewind()
