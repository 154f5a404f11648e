"""The catalog's records: what an agent sees of a tool, and how it is executed.

A :class:`Tool` pairs an MCP tool definition (name, title, bilingual
description, JSON-schema input and output, annotations) with its
:class:`HttpBinding` (method, real base URL and path template, where the key
goes, response format, envelope, pagination, result-code table). All records are
frozen: a catalog, once loaded, does not change.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

__all__ = [
    "OUTCOMES",
    "FORMATS",
    "AUTH_LOCATIONS",
    "PAGINATION_STYLES",
    "PAGING_PARAMS",
    "Auth",
    "Envelope",
    "Pagination",
    "RateLimit",
    "HttpBinding",
    "ClientFilter",
    "Tool",
    "GENERATED_META",
    "Catalog",
    "path_placeholders",
]

#: the ``_meta`` key of a generated tool's MCP definition (namespaced as MCP asks of ``_meta`` keys)
GENERATED_META = "kopa-replay/generated"

#: Classes a platform result code maps to. ``structural`` means the call itself
#: is wrong (bad parameter, wrong code namespace); ``environmental`` means a
#: transient or account condition (5xx, rate limit, maintenance, key problems).
OUTCOMES = ("ok", "no_data", "structural", "environmental")
FORMATS = ("json", "xml", "zip-xml")
AUTH_LOCATIONS = ("query", "header", "path", "none")
PAGINATION_STYLES = ("page", "range", "none")
#: every paging parameter of the built-in platforms (page number and size, range start and end), for code that
#: compares calls without a catalog at hand: a call read over other pages is the same call
PAGING_PARAMS = frozenset(
    {"pageNo", "numOfRows", "pIndex", "pSize", "page", "display", "page_no", "page_count", "START", "END"}
)

_PLACEHOLDER = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")


def path_placeholders(path: str) -> tuple[str, ...]:
    """Names of the ``{placeholders}`` in a path template, in order."""
    return tuple(_PLACEHOLDER.findall(path))


def _frozen(mapping: Mapping[str, Any] | None) -> Mapping[str, Any]:
    return MappingProxyType(dict(mapping or {}))


@dataclass(frozen=True)
class Auth:
    """Where the API key goes: a query parameter, a header, or a path segment.

    For ``location == "path"`` the ``name`` is the placeholder in the path
    template (``{key}``). ``env`` names the environment variable holding the
    live key for this platform (``KOPA_API_KEY`` is the fallback).
    """

    location: str
    name: str
    env: str | None = None


@dataclass(frozen=True)
class Envelope:
    """Where records, total count, result code and message live in a response.

    Each is a tuple of alternative paths (first present wins), a path being
    dot-separated keys with integers indexing lists (``schoolInfo.1.row``).
    ``records == (".",)`` means the response object itself is the one record.
    """

    records: tuple[str, ...]
    total: tuple[str, ...] = ()
    code: tuple[str, ...] = ()
    message: tuple[str, ...] = ()


@dataclass(frozen=True)
class Pagination:
    """How a list is paged.

    ``page``: a page-number and a page-size parameter (pageNo/numOfRows,
    page_no/page_count, pIndex/pSize, page/display). ``range``: 1-based
    inclusive START/END indexes (Seoul Open Data Plaza, in the path).
    ``none``: the whole result in one response.
    """

    style: str = "none"
    page_param: str | None = None
    size_param: str | None = None
    start_param: str | None = None
    end_param: str | None = None
    default_size: int | None = None
    max_size: int | None = None

    @property
    def params(self) -> frozenset[str]:
        """The names of the arguments that choose a window of records (page, size, start, end)."""
        return frozenset(p for p in (self.page_param, self.size_param, self.start_param, self.end_param) if p)


@dataclass(frozen=True)
class RateLimit:
    """What a platform lets one key do: start at most ``requests_per_second`` requests a second (starts spaced at
    least ``1 / requests_per_second`` apart), have at most ``concurrency`` in flight, and at most ``daily`` a day
    (None: no daily figure).

    Operational, not semantic: a limit changes how fast answers are fetched, never what they are, so it stays out
    of :meth:`Catalog.digest` (see there).
    """

    requests_per_second: float
    concurrency: int
    daily: int | None = None

    @property
    def interval(self) -> float:
        """The least time between two starts, in seconds."""
        return 1.0 / self.requests_per_second

    def stricter(self, other: "RateLimit") -> "RateLimit":
        """The limit honouring both: where two platforms share a host, their key limits bind together."""
        dailies = [d for d in (self.daily, other.daily) if d is not None]
        return RateLimit(
            min(self.requests_per_second, other.requests_per_second),
            min(self.concurrency, other.concurrency),
            min(dailies) if dailies else None,
        )


@dataclass(frozen=True)
class HttpBinding:
    """How a tool is executed over HTTP against the real platform."""

    method: str
    base_url: str
    path: str
    auth: Auth
    format: str
    envelope: Envelope
    pagination: Pagination
    result_codes: Mapping[str, str]
    fixed_query: Mapping[str, str] = field(default_factory=lambda: _frozen({}))
    zip_member: str | None = None
    #: the platform's key limits (None: no limit known), per host: :meth:`Catalog.rate_limits`
    rate_limit: RateLimit | None = None

    @property
    def host(self) -> str:
        """The host name without scheme or port (the simulator's first path segment)."""
        rest = self.base_url.split("://", 1)[-1]
        return rest.split("/", 1)[0].split(":", 1)[0]

    def classify_code(self, code: str | None) -> str | None:
        """The outcome class of a platform result code, or None if the table lacks it."""
        if code is None:
            return None
        return self.result_codes.get(str(code).strip())


@dataclass(frozen=True)
class ClientFilter:
    """A tool parameter applied to downloaded records instead of being sent.

    Used where the real endpoint is a whole file (DART corpCode.xml): the tool
    offers the lookup an MCP server would, by name (``contains``) or by code
    (``exact``), and caps the result at ``limit`` records.
    """

    param: str
    field: str
    match: str = "exact"  # exact | contains
    limit: int = 50


@dataclass(frozen=True)
class Tool:
    """One tool: the MCP definition an agent sees plus its HTTP binding."""

    name: str
    title: str
    description_ko: str
    description_en: str
    platform: str
    domain: str
    input_schema: Mapping[str, Any]
    output_schema: Mapping[str, Any]
    annotations: Mapping[str, Any]
    http: HttpBinding
    examples: tuple[Mapping[str, Any], ...] = ()
    client_filters: tuple[ClientFilter, ...] = ()
    #: a paper-scale filler (``catalog --scale paper``): served by the simulator, absent from the live platform,
    #: so a live source refuses it and ``Catalog.real()`` leaves it out
    generated: bool = False

    @property
    def description(self) -> str:
        """The bilingual description as MCP servers over these APIs write it."""
        return f"{self.description_ko} | {self.description_en}"

    @property
    def params(self) -> tuple[str, ...]:
        """Input parameter names, sorted."""
        return tuple(sorted(self.input_schema.get("properties", {})))

    @property
    def required(self) -> tuple[str, ...]:
        return tuple(self.input_schema.get("required", ()))

    @property
    def output_fields(self) -> tuple[str, ...]:
        """Field names of one output record, sorted."""
        return tuple(sorted(_record_properties(self.output_schema)))

    def output_field_schema(self, field_name: str) -> Mapping[str, Any]:
        return _record_properties(self.output_schema).get(field_name, {})

    def to_mcp(self) -> dict[str, Any]:
        """The tool as an MCP ``tools/list`` entry (a generated tool says so in ``_meta``)."""
        entry = {
            "name": self.name,
            "title": self.title,
            "description": self.description,
            "inputSchema": _plain(self.input_schema),
            "outputSchema": _plain(self.output_schema),
            "annotations": _plain(self.annotations),
        }
        if self.generated:
            entry["_meta"] = {GENERATED_META: True}
        return entry

    def to_openai(self) -> dict[str, Any]:
        """The tool as an OpenAI-style function schema."""
        return {
            "type": "function",
            "function": {
                "name": self.name,
                "description": self.description,
                "parameters": _plain(self.input_schema),
            },
        }


def _record_properties(output_schema: Mapping[str, Any]) -> Mapping[str, Any]:
    """Properties of one record: output schemas wrap records in ``records: array``."""
    props = output_schema.get("properties", {})
    records = props.get("records")
    if isinstance(records, Mapping) and isinstance(records.get("items"), Mapping):
        return records["items"].get("properties", {})
    return props


def _plain(value: Any) -> Any:
    """Deep-copy mapping proxies and tuples into JSON-ready dicts and lists."""
    if isinstance(value, Mapping):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


class Catalog:
    """An ordered, name-indexed set of tools."""

    def __init__(self, tools: list[Tool] | tuple[Tool, ...], *, source: str = "<built-in>") -> None:
        self.source = source
        self._tools: dict[str, Tool] = {}
        self._digest: str | None = None
        for tool in tools:
            self._tools[tool.name] = tool

    def __len__(self) -> int:
        return len(self._tools)

    def __iter__(self):
        return iter(self._tools.values())

    def __contains__(self, name: object) -> bool:
        return name in self._tools

    def get(self, name: str) -> Tool:
        """The tool called ``name``; :class:`UnknownTool` (with close matches) if absent."""
        from kopa_replay.errors import UnknownTool  # local: keep model free of error imports at top

        try:
            return self._tools[name]
        except KeyError:
            import difflib

            raise UnknownTool(name, difflib.get_close_matches(name, list(self._tools), n=3)) from None

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(self._tools)

    @property
    def platforms(self) -> tuple[str, ...]:
        return tuple(sorted({t.platform for t in self}))

    @property
    def domains(self) -> tuple[str, ...]:
        return tuple(sorted({t.domain for t in self}))

    def filter(self, pattern: str | None = None, *, platform: str | None = None) -> "Catalog":
        """Tools whose name matches a glob ``pattern`` and/or belong to ``platform``."""
        import fnmatch

        tools = [
            t
            for t in self
            if (pattern is None or fnmatch.fnmatchcase(t.name, pattern))
            and (platform is None or t.platform == platform)
        ]
        return Catalog(tools, source=self.source)

    def real(self) -> "Catalog":
        """The tools that exist on the live platforms: every tool but the generated paper-scale fillers."""
        return Catalog([t for t in self if not t.generated], source=self.source)

    def rate_limits(self) -> dict[str, RateLimit]:
        """Each limited host's key limits, by host name (sorted); a host no tool limits is absent (no limit).

        A limit belongs to the key a host is called with, not to one tool, so tools (or platforms) on one host
        bind together: the strictest figure of each kind wins."""
        limits: dict[str, RateLimit] = {}
        for tool in self:
            limit = tool.http.rate_limit
            if limit is not None:
                host = tool.http.host.lower()
                limits[host] = limits[host].stricter(limit) if host in limits else limit
        return dict(sorted(limits.items()))

    def digest(self) -> str:
        """A content digest of the catalog (sha256 over the canonical MCP and binding JSON).

        Computed once: a catalog's tools are set when it is made and never change (0.28 s at paper scale, asked
        for by every stage's inputs and every manifest)."""
        if self._digest is None:
            import hashlib
            import json

            from kopa_replay.catalog.load import tool_to_dict

            entries = [tool_to_dict(t) for t in self]
            for entry in entries:
                # Rate limits are operational: they say how fast a recorder may ask, never what an answer is.
                # Sealed snapshots (the shipped one too) and every stage key record this digest, so a limit
                # revised after a platform's quota changes must not make them name another catalog.
                entry["http"].pop("rate_limit", None)
            blob = json.dumps(entries, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
            self._digest = hashlib.sha256(blob.encode()).hexdigest()
        return self._digest
