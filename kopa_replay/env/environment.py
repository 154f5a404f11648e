"""The tool-execution environment: validated, recorded, parsed, classified calls with a state log.

Every consumer that executes tools (graph pruning, trajectory synthesis,
benchmark agents, RL rollouts) goes through :class:`ToolEnvironment` (or its
async twin :class:`AsyncToolEnvironment`), so calls happen one way:

1. the arguments are validated against the tool's ``inputSchema`` (types, with
   integer/number coercion from strings, enum, pattern, minimum/maximum,
   required, unknown names) — a violation is a ``structural_error`` result and
   **no request is sent**;
2. the real request is built from the catalog binding and sent through the
   source's httpx client (simulator, mirror, live — through the recorder when a
   snapshot is named; strict replay raises :class:`~kopa_replay.errors.CassetteMiss`);
3. the body is parsed (JSON, XML, ZIP of XML, EUC-KR) with the request's key
   masked as the recorder masks stored bodies (so every source gives the same
   records and digests), the records are normalized (``" "`` → None, see
   :mod:`kopa_replay.env.normalize`) and the outcome classified from the
   catalog's result-code table;
4. the call is appended to the environment's ordered log.

The two front ends share one core, as httpx does: each operation is a
generator that *yields* what it needs done (``send`` a request, ``sleep``) and
receives the answer; a sync and an async driver run the same generators.
"""

from __future__ import annotations

import asyncio
import hashlib
import inspect
import json
import math
import re
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass, field, replace
from typing import Any, Callable, Generator, Iterable, Mapping, Sequence

import httpx

from kopa_replay.catalog.model import Catalog, Tool
from kopa_replay.env.call import OUTCOME_CLASSES, build_request, interpret, live_key
from kopa_replay.env.normalize import normalize_records
from kopa_replay.env.source import REPLAY_KEY, Source, open_source
from kopa_replay.errors import UsageError
from kopa_replay.record.redact import Redactor, redactor_for, register_secret

__all__ = [
    "DEFAULT_SNAPSHOT",
    "next_page_args",
    "ToolResult",
    "PageRead",
    "LogEntry",
    "validate_args",
    "result_digest",
    "ToolEnvironment",
    "AsyncToolEnvironment",
    "AsyncSource",
    "open_async_source",
]

#: The snapshot shipped as package data (data/cassettes/kopa.sqlite); ``source="replay"`` uses it unless told
#: otherwise.
DEFAULT_SNAPSHOT = "2026-09-01"


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
    page: Mapping[str, int] | None
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
        return {"tool": self.tool, "args": dict(self.args), "outcome": self.outcome, "code": self.code,
                "message": self.message, "status": self.status, "total_count": self.total_count,
                "page": None if self.page is None else dict(self.page), "attempts": self.attempts,
                "pages": self.pages, "complete": self.complete, "digest": self.digest, "records": self.records}


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


def _canonical(value: Any) -> bytes:
    return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"), default=str).encode()


def result_digest(tool: str, outcome: str, code: str | None, records: Sequence[Mapping[str, Any]]) -> str:
    """sha256 of the canonical JSON of (tool, outcome, code, records)."""
    return hashlib.sha256(_canonical([tool, outcome, code, list(records)])).hexdigest()


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
        return {}, (f"unknown parameter {unknown[0]!r} for tool {tool.name!r} "
                    f"(parameters: {', '.join(tool.params) or 'none'})")
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


# -- the shared core ---------------------------------------------------------
@dataclass(frozen=True)
class _Reply:
    status: int
    content: bytes
    redacted: str
    error: str | None = None
    #: content digest of a body served from a snapshot: the interpretation of such a body is memoized
    body_digest: str | None = None
    #: the keys the request carried (``kopa_secrets``): masked in a body no snapshot served
    secrets: tuple[str, ...] = ()


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


#: how many records the interpretation memo holds, summed over its entries (oldest evicted first)
MEMO_RECORDS = 200_000


#: what a flow asks its driver to do: ("send", tool, args) → _Reply, or ("sleep", seconds) → None
_Op = tuple
_Flow = Generator[_Op, Any, ToolResult]


def _page_info(tool: Tool, args: Mapping[str, Any]) -> dict[str, int] | None:
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
        return {"page": value(pagination.page_param, 1),
                "size": value(pagination.size_param, pagination.default_size)}
    if pagination.style == "range":
        start = value(pagination.start_param, 1)
        end = value(pagination.end_param, (start or 1) + (pagination.default_size or 100) - 1)
        return {"start": start, "end": end}
    return None


class _Core:
    """Validation, interpretation, retry and pagination plans, and the log — no I/O."""

    def __init__(self, catalog: Catalog, *, retries: int = 0, backoff: float = 0.5, max_backoff: float = 30.0) -> None:
        if retries < 0:
            raise UsageError(f"retries must be 0 or more, not {retries}")
        self.catalog = catalog
        self.retries = int(retries)
        self.backoff = float(backoff)
        self.max_backoff = float(max_backoff)
        self._log: list[LogEntry] = []
        self._lock = threading.Lock()
        # (tool, status, body digest, client-filter arguments) → _Reading. A snapshot answers the same
        # bytes to the same request, so parsing, normalizing and digesting them once is enough.
        self._memo: OrderedDict[tuple, _Reading] = OrderedDict()
        self._memo_records = 0
        # a request's keys → the recorder's masking of them (built on first use: a handful per run)
        self._redactors: dict[tuple[str, ...], Redactor] = {}

    # state
    @property
    def log(self) -> tuple[LogEntry, ...]:
        with self._lock:
            return tuple(self._log)

    def append(self, result: ToolResult) -> None:
        entry = LogEntry(result.tool, tuple(sorted(result.args.items())), result.outcome, result.digest,
                         result.attempts)
        with self._lock:
            self._log.append(entry)

    def state_digest(self) -> str:
        entries = [[e.tool, [list(pair) for pair in e.args], e.outcome, e.digest] for e in self.log]
        return hashlib.sha256(_canonical(entries)).hexdigest()

    def reset(self) -> None:
        with self._lock:
            self._log.clear()

    # one result
    def make(self, tool: Tool, args: Mapping[str, Any], outcome: str, records: list[dict[str, Any]],
             total: int | None, code: str | None, message: str | None, status: int, attempts: int = 1) -> ToolResult:
        assert outcome in OUTCOME_CLASSES
        return ToolResult(tool.name, dict(args), records, total, _page_info(tool, args), outcome, code, message,
                          result_digest(tool.name, outcome, code, records), status, attempts)

    def interpret(self, tool: Tool, args: Mapping[str, Any], reply: _Reply, attempts: int) -> ToolResult:
        """What :func:`kopa_replay.env.call.execute` does after the response, plus normalization."""
        if reply.error is not None:
            return self.make(tool, args, "environmental_error", [], None, None,
                             f"request to {reply.redacted} failed: {reply.error}", 0, attempts)
        if reply.body_digest is None:
            # A body from the simulator, a mirror or the live API: masked, then read through the same memo as
            # a snapshot's bodies, keyed by its content digest — the same bytes always say the same thing, and
            # walks that repeat a call (synthesis makes thousands) stop re-parsing its body (large XML pages
            # cost tens of milliseconds). Hashing costs far less than the parse it saves.
            content = self.masked(reply.content, reply.secrets)
            reply = replace(reply, content=content, body_digest=hashlib.sha256(content).hexdigest())
        reading = self._reading(tool, args, reply)
        records = [r.copy() for r in reading.records] if reading.flat else _fresh(reading.records)
        return ToolResult(tool.name, dict(args), records, reading.total, _page_info(tool, args),
                          reading.outcome, reading.code, reading.message, reading.digest, reply.status, attempts)

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

    def _reading(self, tool: Tool, args: Mapping[str, Any], reply: _Reply) -> _Reading:
        # Not masked again: a body served from a snapshot was masked when it was stored (every writer,
        # RecordTransport.record and the vcr import, scrubs with the key the request carried), and the
        # key a replay sends (REPLAY_KEY) never leaves this process, so no stored body can hold it.
        filters = tuple((f.param, args.get(f.param)) for f in tool.client_filters)
        key = (tool.name, reply.status, reply.body_digest, filters)
        with self._lock:
            reading = self._memo.get(key)
            if reading is not None:
                self._memo.move_to_end(key)
                return reading
        answer = interpret(tool, args, reply.status, reply.content, reply.redacted)
        records = normalize_records(answer.records)
        flat = all(type(v) not in (dict, list) for record in records for v in record.values())
        reading = _Reading(answer.outcome, records, answer.total_count, answer.code, answer.message,
                           result_digest(tool.name, answer.outcome, answer.code, records), flat)
        with self._lock:
            if key not in self._memo and len(records) <= MEMO_RECORDS:
                self._memo[key] = reading
                self._memo_records += len(records)
                while self._memo_records > MEMO_RECORDS:
                    _, evicted = self._memo.popitem(last=False)
                    self._memo_records -= len(evicted.records)
        return reading

    def delay(self, attempt: int) -> float:
        """Backoff before retry number ``attempt`` (1-based): backoff · 2^(attempt-1), capped."""
        return min(self.max_backoff, self.backoff * (2 ** (attempt - 1)))

    # flows
    def call_flow(self, name: str, args: Mapping[str, Any] | None, *, log: bool = True) -> _Flow:
        tool = self.catalog.get(name)  # UnknownTool: a programming error, raised
        coerced, problem = validate_args(tool, args)
        if problem is not None:
            shown = dict(args) if isinstance(args, Mapping) else {}
            result = self.make(tool, shown, "structural_error", [], None, None, problem, 0, 0)
        else:
            attempt = 0
            while True:
                attempt += 1
                reply = yield ("send", tool, coerced)
                result = self.interpret(tool, coerced, reply, attempt)
                if result.outcome != "environmental_error" or attempt > self.retries:
                    break
                yield ("sleep", self.delay(attempt))
        if log:
            self.append(result)
        return result

    def pages_flow(self, name: str, args: Mapping[str, Any] | None, max_pages: int) -> _Flow:
        """Every page of one read, each a logged call: returns a :class:`PageRead`."""
        if max_pages < 1:
            raise UsageError(f"max_pages must be at least 1, not {max_pages}")
        tool = self.catalog.get(name)
        first = yield from self.call_flow(name, args)
        walk = _PageWalk(tool, first, max_pages)
        while (page_args := walk.next_args()) is not None:
            walk.add((yield from self.call_flow(name, page_args)))
        return walk.read()

    def fetch_all_flow(self, name: str, args: Mapping[str, Any] | None, max_pages: int) -> _Flow:
        read = yield from self.pages_flow(name, args, max_pages)
        first = read.pages[0]
        if len(read.pages) == 1 and (first.outcome != "ok" or first.page is None):
            return first
        return replace(first, records=read.records, pages=len(read.pages), complete=read.complete,
                       digest=result_digest(first.tool, first.outcome, first.code, read.records))


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


class _PageWalk:
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
        if (self.done or (self.total is not None and self.position >= self.total)
                or (self.total is None and len(last.records) < self.size) or len(self.pages) >= self.max_pages):
            return None
        if self.pagination.style == "page":
            self.number += 1
            self.args[self.pagination.page_param] = self.number
            if self.pagination.size_param:
                self.args[self.pagination.size_param] = self.size
        else:
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
            return PageRead((first,), list(first.records), first.total_count, first.outcome in ("ok", "empty"),
                            first.outcome)
        failed = self.outcome != "ok"
        complete = not failed and (self.position >= self.total if self.total is not None
                                   else len(last.records) < self.size or not last.records)
        return PageRead(tuple(self.pages), self.records, self.total, complete, self.outcome)


def next_page_args(tool: Tool, result: ToolResult) -> dict[str, Any] | None:
    """The arguments of the page after ``result`` by the same rules as :meth:`ToolEnvironment.fetch_all`;
    None when the read ends there (unpaged tool, failed call, reported total reached, short page)."""
    return _PageWalk(tool, result, 2).next_args()


def _extensions(tool: Tool, key: str | None) -> dict[str, Any]:
    # The recorder reads the tool name and the key we inserted from the request's extensions.
    register_secret(key)
    return {"kopa_tool": tool.name, "kopa_secrets": (key,) if key else ()}


def _replayed(replayer: Callable[..., Any] | None, method: str, url: str, key: str | None,
              redacted: str) -> _Reply | None:
    """The snapshot's answer without a round trip through httpx, when the source has one to give."""
    if replayer is None:
        return None
    answer = replayer(method, url, (key,) if key else ())
    if answer is None:
        return None
    return _Reply(answer.status, answer.content, redacted, body_digest=answer.body_digest)


# -- sync front end ----------------------------------------------------------
class _EnvironmentState:
    """What both environments share: construction, the call log, and preparing one request."""

    _core: _Core
    source: Any

    def __init__(self, catalog: Catalog, source: Any, *, retries: int, backoff: float, max_backoff: float,
                 sleep: Callable[[float], Any], owns_source: bool) -> None:
        self.catalog = catalog
        self.source = source
        self._sleep = sleep
        self._core = _Core(catalog, retries=retries, backoff=backoff, max_backoff=max_backoff)
        self._owns_source = owns_source

    @staticmethod
    def _open_defaults(catalog: Catalog | None, source: str, snapshot: str | None) -> tuple[Catalog, str | None]:
        """The built-in catalog when none is given; the shipped snapshot for ``source="replay"``."""
        if catalog is None:
            from kopa_replay.catalog import builtin_catalog

            catalog = builtin_catalog()
        if snapshot is None and source == "replay":
            snapshot = DEFAULT_SNAPSHOT
        return catalog, snapshot

    def _prepare(self, tool: Tool, args: Mapping[str, Any]) -> tuple[_Reply | None, tuple[str, str, dict, str, dict]]:
        """(the snapshot's answer when the recorder has it, else None; method, url, headers, redacted, extensions)."""
        key = self.source.key_for(tool)
        method, url, headers, redacted = build_request(tool, args, key)
        extensions = _extensions(tool, key)  # registers the key with the log filter, replayed or not
        replayed = _replayed(self.source.replayer, method, url, key, redacted)
        return replayed, (method, url, headers, redacted, extensions)

    @property
    def log(self) -> tuple[LogEntry, ...]:
        return self._core.log

    def state_digest(self) -> str:
        return self._core.state_digest()

    def reset(self) -> None:
        self._core.reset()


class ToolEnvironment(_EnvironmentState):
    """Execute catalog tools against a :class:`~kopa_replay.env.source.Source`, keeping a log.

    ``retries`` (default 0: pruning measures raw outcomes) retries
    ``environmental_error`` outcomes with exponential backoff through ``sleep``.
    """

    def __init__(self, catalog: Catalog, source: Source, *, retries: int = 0, backoff: float = 0.5,
                 max_backoff: float = 30.0, sleep: Callable[[float], Any] = time.sleep,
                 owns_source: bool = False) -> None:
        super().__init__(catalog, source, retries=retries, backoff=backoff, max_backoff=max_backoff, sleep=sleep,
                         owns_source=owns_source)

    @classmethod
    def open(cls, catalog: Catalog | None = None, *, source: str = "replay", snapshot: str | None = None,
             mode: str | None = None, store: Any = None, seed: int = 0, as_of: Any = None, retries: int = 0,
             fault_rate: float = 0.0, sleep: Callable[[float], Any] = time.sleep,
             backoff: float = 0.5) -> "ToolEnvironment":
        """An environment over ``open_source``; by default strict replay of the shipped snapshot.

        ``snapshot`` defaults to :data:`DEFAULT_SNAPSHOT` for ``source="replay"`` and to
        none (no recorder) for every other source.
        """
        catalog, snapshot = cls._open_defaults(catalog, source, snapshot)
        opened = open_source(source, seed=seed, as_of=as_of, fault_rate=fault_rate, snapshot=snapshot, mode=mode,
                             store=store, catalog=catalog)
        return cls(catalog, opened, retries=retries, backoff=backoff, sleep=sleep, owns_source=True)

    # calls
    def call(self, tool: str, args: Mapping[str, Any] | None = None) -> ToolResult:
        return self._drive(self._core.call_flow(tool, args))

    def fetch_all(self, tool: str, args: Mapping[str, Any] | None = None, max_pages: int = 50) -> ToolResult:
        """Follow the tool's pagination until the total, an empty page or ``max_pages`` pages."""
        return self._drive(self._core.fetch_all_flow(tool, args, max_pages))

    def fetch_pages(self, tool: str, args: Mapping[str, Any] | None = None, max_pages: int = 50) -> PageRead:
        """What :meth:`fetch_all` reads, page by page: each page's result (each a logged call) and their sum."""
        return self._drive(self._core.pages_flow(tool, args, max_pages))

    def _send(self, tool: Tool, args: Mapping[str, Any]) -> _Reply:
        replayed, (method, url, headers, redacted, extensions) = self._prepare(tool, args)
        if replayed is not None:
            return replayed
        try:
            response = self.source.client.request(method, url, headers=headers, extensions=extensions)
        except httpx.TransportError as exc:
            return _Reply(0, b"", redacted, type(exc).__name__)
        return _Reply(response.status_code, response.content, redacted, secrets=extensions["kopa_secrets"])

    def _drive(self, flow: _Flow) -> ToolResult:
        try:
            op = next(flow)
            while True:
                if op[0] == "send":
                    answer: Any = self._send(op[1], op[2])
                else:
                    self._sleep(op[1])
                    answer = None
                op = flow.send(answer)
        except StopIteration as stop:
            return stop.value

    def close(self) -> None:
        if self._owns_source:
            self.source.close()

    def __enter__(self) -> "ToolEnvironment":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


# -- async front end ---------------------------------------------------------
@dataclass
class AsyncSource:
    """An async httpx client plus the key to send (None: each platform's live key)."""

    name: str
    client: httpx.AsyncClient
    sim_key: str | None
    details: dict[str, Any] = field(default_factory=dict)
    closers: list[Callable[[], None]] = field(default_factory=list)
    #: the recorder's fast path, as on :class:`~kopa_replay.env.source.Source`
    replayer: Callable[[str, str, tuple[str, ...]], Any] | None = None

    def key_for(self, tool: Tool) -> str | None:
        return self.sim_key if self.sim_key is not None else live_key(tool)

    async def aclose(self) -> None:
        await self.client.aclose()
        for close in self.closers:
            close()


def open_async_source(source: str = "sim", *, seed: int = 0, as_of: Any = None, fault_rate: float = 0.0,
                      timeout: float = 30.0, snapshot: str | None = None, mode: str | None = None,
                      store: Any = None, catalog: Catalog | None = None) -> AsyncSource:
    """The async counterpart of :func:`~kopa_replay.env.source.open_source` (sim, live, replay)."""
    from kopa_replay.sim import AsyncSimTransport, Simulator, accepted_key

    inner: httpx.AsyncBaseTransport | None
    if source == "sim":
        inner, key = AsyncSimTransport(Simulator(seed=seed, as_of=as_of, fault_rate=fault_rate)), accepted_key()
    elif source == "live":
        inner, key = httpx.AsyncHTTPTransport(), None
    elif source == "replay":
        inner, key = None, REPLAY_KEY
    else:
        raise UsageError(f"the async environment takes source 'sim', 'live' or 'replay', not {source!r}")
    if snapshot is None:
        if inner is None:
            raise UsageError("source 'replay' needs a snapshot")
        return AsyncSource(source, httpx.AsyncClient(transport=inner, timeout=timeout), key, {"source": source})
    from pathlib import Path

    from kopa_replay.record import AsyncRecordTransport, Store, default_store_path, redactor_for
    from kopa_replay.record.snapshots import check_pinned
    from kopa_replay.record.store import replay_store_path

    mode = mode or "replay"
    path = replay_store_path(snapshot, store) if mode == "replay" else Path(store) if store else default_store_path()
    opened = Store(path, readonly=(mode == "replay"))
    try:
        transport = AsyncRecordTransport(None if mode == "replay" else inner, opened, snapshot, mode,
                                         redactor_for(catalog, extra_values=[key] if key else []))
        if mode == "replay":
            check_pinned(opened, snapshot)
    except Exception:
        opened.close()
        raise
    details = {"source": source, "snapshot": snapshot, "mode": mode, "store": str(path)}
    return AsyncSource(f"{source}+{mode}", httpx.AsyncClient(transport=transport, timeout=timeout),
                       key if mode != "replay" else (key or REPLAY_KEY), details, [opened.close],
                       transport.replay_answer)


class AsyncToolEnvironment(_EnvironmentState):
    """The async twin of :class:`ToolEnvironment` (same core), with ``gather`` for fan-out."""

    def __init__(self, catalog: Catalog, source: AsyncSource, *, retries: int = 0, backoff: float = 0.5,
                 max_backoff: float = 30.0, sleep: Callable[[float], Any] = asyncio.sleep,
                 owns_source: bool = False) -> None:
        super().__init__(catalog, source, retries=retries, backoff=backoff, max_backoff=max_backoff, sleep=sleep,
                         owns_source=owns_source)

    @classmethod
    def open(cls, catalog: Catalog | None = None, *, source: str = "replay", snapshot: str | None = None,
             mode: str | None = None, store: Any = None, seed: int = 0, as_of: Any = None, retries: int = 0,
             fault_rate: float = 0.0, sleep: Callable[[float], Any] = asyncio.sleep,
             backoff: float = 0.5) -> "AsyncToolEnvironment":
        catalog, snapshot = cls._open_defaults(catalog, source, snapshot)
        opened = open_async_source(source, seed=seed, as_of=as_of, fault_rate=fault_rate, snapshot=snapshot,
                                   mode=mode, store=store, catalog=catalog)
        return cls(catalog, opened, retries=retries, backoff=backoff, sleep=sleep, owns_source=True)

    async def call(self, tool: str, args: Mapping[str, Any] | None = None) -> ToolResult:
        return await self._drive(self._core.call_flow(tool, args))

    async def fetch_all(self, tool: str, args: Mapping[str, Any] | None = None, max_pages: int = 50) -> ToolResult:
        return await self._drive(self._core.fetch_all_flow(tool, args, max_pages))

    async def fetch_pages(self, tool: str, args: Mapping[str, Any] | None = None, max_pages: int = 50) -> PageRead:
        return await self._drive(self._core.pages_flow(tool, args, max_pages))

    async def gather(self, calls: Iterable[tuple[str, Mapping[str, Any] | None]],
                     concurrency: int = 5) -> list[ToolResult]:
        """Run ``(tool, args)`` calls concurrently (at most ``concurrency`` in flight).

        Results come back in the order of ``calls``, and are logged in that order
        (so the state digest does not depend on which answer arrived first).
        """
        if concurrency < 1:
            raise UsageError(f"concurrency must be at least 1, not {concurrency}")
        semaphore = asyncio.Semaphore(concurrency)

        async def one(name: str, args: Mapping[str, Any] | None) -> ToolResult:
            async with semaphore:
                return await self._drive(self._core.call_flow(name, args, log=False))

        results = await asyncio.gather(*(one(name, args) for name, args in calls))
        for result in results:
            self._core.append(result)
        return list(results)

    async def _send(self, tool: Tool, args: Mapping[str, Any]) -> _Reply:
        replayed, (method, url, headers, redacted, extensions) = self._prepare(tool, args)
        if replayed is not None:
            return replayed
        try:
            response = await self.source.client.request(method, url, headers=headers, extensions=extensions)
        except httpx.TransportError as exc:
            return _Reply(0, b"", redacted, type(exc).__name__)
        return _Reply(response.status_code, response.content, redacted, secrets=extensions["kopa_secrets"])

    async def _drive(self, flow: _Flow) -> ToolResult:
        try:
            op = next(flow)
            while True:
                if op[0] == "send":
                    answer: Any = await self._send(op[1], op[2])
                else:
                    slept = self._sleep(op[1])
                    if inspect.isawaitable(slept):
                        await slept
                    answer = None
                op = flow.send(answer)
        except StopIteration as stop:
            return stop.value

    async def aclose(self) -> None:
        if self._owns_source:
            await self.source.aclose()

    async def __aenter__(self) -> "AsyncToolEnvironment":
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()
