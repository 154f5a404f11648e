"""The pieces every simulated platform is built from.

An :class:`Endpoint` binds a real (host, route) to a *handler* — a pure
function ``handler(world, query) -> list[dict]`` that answers from the seeded
world — and to a :class:`Protocol`, which knows the platform's envelope,
pagination, result codes, key placement and error shapes. Handlers never
format envelopes; protocols never look at the world. Handlers signal "no
data" and parameter problems by raising :class:`NoData`, :class:`MissingParam`
or :class:`BadParam`; the protocol turns those into the platform's real code.

Endpoints also carry *domains* for their inputs and outputs (``corp_code``,
``date``, ``region_cd`` …): what kind of value a parameter accepts and a field
holds in this world. They are the simulator's ground truth for whether a
binding between two tools executes (see :mod:`kopa_replay.sim.truth`); the
catalog an agent sees does not contain them.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any
from xml.sax.saxutils import escape, quoteattr

from kopa_replay.sim.messages import SimRequest, SimResponse
from kopa_replay.sim.world.calendar import parse_ymd

if TYPE_CHECKING:
    from kopa_replay.sim.timeline import ActiveDrift
    from kopa_replay.sim.world import World

__all__ = [
    "NoData",
    "MissingParam",
    "BadParam",
    "Query",
    "Endpoint",
    "Doc",
    "Protocol",
    "Context",
    "ErrorKind",
    "json_bytes",
    "xml_bytes",
    "paged",
]


class NoData(Exception):
    """The request is well formed but the world holds nothing for it."""


class MissingParam(Exception):
    """A required parameter is absent or empty."""

    def __init__(self, name: str) -> None:
        super().__init__(name)
        self.name = name


class BadParam(Exception):
    """A parameter has a value the platform rejects (wrong format, out of range)."""

    def __init__(self, name: str, value: str | None = None) -> None:
        super().__init__(name)
        self.name, self.value = name, value


class ErrorKind:
    """What went wrong, before a protocol spells it as the platform does."""

    INVALID_KEY = "invalid_key"
    NO_DATA = "no_data"
    MISSING_PARAM = "missing_param"
    BAD_PARAM = "bad_param"
    RATE_LIMIT = "rate_limit"
    MAINTENANCE = "maintenance"
    SERVER_ERROR = "server_error"
    NOT_FOUND = "not_found"


@dataclass
class Query:
    """A handler's view of the request: parameter values and the as-of date."""

    values: Mapping[str, str]
    as_of: dt.date

    def get(self, name: str, default: str | None = None) -> str | None:
        value = self.values.get(name)
        if value is None or value.strip() == "":
            return default
        return value.strip()

    def require(self, name: str) -> str:
        value = self.get(name)
        if value is None:
            raise MissingParam(name)
        return value

    def date(self, name: str, default: dt.date | None = None, required: bool = False) -> dt.date | None:
        """A YYYYMMDD parameter as a date; BadParam if it is not a calendar date."""
        text = self.require(name) if required else self.get(name)
        if text is None:
            return default
        day = parse_ymd(text)
        if day is None:
            raise BadParam(name, text)
        return day

    def int(self, name: str, default: int | None = None) -> int | None:
        text = self.get(name)
        if text is None:
            return default
        try:
            return int(text)
        except ValueError:
            raise BadParam(name, text) from None


Handler = Callable[["World", Query], Sequence[dict[str, Any]]]


@dataclass(frozen=True)
class Endpoint:
    """One simulated API operation.

    ``route`` is what the host's protocol extracts from a request path to find
    the endpoint (a path, a service name …). ``inputs``/``outputs`` map
    parameter and field names to value domains (ground truth for bindings).
    ``options`` are protocol-specific (the head/row root name, the positional
    path parameters of Seoul, ``single`` for one-object responses …).
    """

    tool: str
    platform: str
    host: str
    route: str
    protocol: "Protocol"
    handler: Handler
    required: tuple[str, ...] = ()
    inputs: Mapping[str, str] = field(default_factory=dict)
    outputs: Mapping[str, str] = field(default_factory=dict)
    options: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class EndpointMaker:
    """The endpoints of one platform on one host whose routes are ``route`` filled with a group and an operation.

    Call it as ``make(tool, group, operation, handler, required, inputs, outputs, **options)``.
    """

    platform: str
    host: str
    protocol: "Protocol"
    #: a template with ``{group}`` and ``{operation}``
    route: str

    def __call__(
        self,
        tool: str,
        group: str,
        operation: str,
        handler: Handler,
        required: tuple[str, ...],
        inputs: Mapping[str, str],
        outputs: Mapping[str, str],
        **options: Any,
    ) -> Endpoint:
        route = self.route.format(group=group, operation=operation)
        return Endpoint(
            tool,
            self.platform,
            self.host,
            route,
            self.protocol,
            handler,
            required,
            dict(inputs),
            dict(outputs),
            options,
        )


@dataclass
class Doc:
    """A response before serialization, so that drift can edit its envelope.

    ``body`` is a JSON-ready dict (or raw bytes for a ZIP); ``xml_root`` names
    the root element when the response goes out as XML.
    """

    body: Any
    status: int = 200
    xml: bool = False
    xml_root: str = "response"
    content_type: str | None = None
    #: response headers besides content-type, as (name, value) pairs (OpenDART's download file name)
    headers: tuple[tuple[str, str], ...] = ()


@dataclass
class Context:
    """Everything a protocol needs to render one response."""

    request: SimRequest
    endpoint: Endpoint | None
    path_params: Mapping[str, str]
    xml: bool
    drift: "ActiveDrift"

    def code(self, code: str) -> str:
        """A result code after dated result-code changes."""
        return self.drift.result_code(code)

    def max_size(self, default: int | None) -> int | None:
        """The page-size cap after dated cap changes."""
        return self.drift.page_cap(default)


class Protocol:
    """How one platform family spells requests and responses.

    Subclasses override what differs. ``route`` maps a request to the route
    key endpoints are registered under (plus path parameters); ``api_key``
    finds the key; ``window`` reads pagination into (offset, limit, meta);
    ``ok`` and ``error`` build response documents.
    """

    name = "base"
    #: query parameters (case-insensitive) that carry the key on this platform
    key_params: tuple[str, ...] = ()
    key_header: str | None = None
    #: keys every caller may use besides the configured one (Seoul's capped ``sample`` key)
    public_keys: tuple[str, ...] = ()
    #: parameters that only choose a page (the full result is cached without them)
    paging_params: tuple[str, ...] = ()
    #: rows a request without any key is served (NEIS answers such calls as a sample of the first
    #: rows); None: a request without a key is refused like a wrong key
    keyless_rows: int | None = None

    def route(self, request: SimRequest) -> tuple[str, dict[str, str]]:
        return request.path, {}

    def api_key(self, request: SimRequest, path_params: Mapping[str, str]) -> str | None:
        # a platform with a key header may take the key in the query too (KRX): the header wins
        header = request.headers.get(self.key_header.lower()) if self.key_header else None
        if header is not None or not self.key_params:
            return header
        return request.param_ci(*self.key_params)

    def keyless(self, request: SimRequest, path_params: Mapping[str, str]) -> bool:
        """Whether this request is a keyless sample call the platform answers (see ``keyless_rows``)."""
        return self.keyless_rows is not None and not (self.api_key(request, path_params) or "").strip()

    def wants_xml(self, request: SimRequest, endpoint: Endpoint | None, path_params: Mapping[str, str]) -> bool:
        return False

    def params(self, ctx: Context) -> dict[str, str]:
        """Handler-visible parameters: query (minus keys) plus path parameters."""
        keys = {k.lower() for k in self.key_params}
        values = {k: v for k, v in ctx.request.params().items() if k.lower() not in keys}
        values.update(ctx.path_params)
        return values

    def window(self, ctx: Context, params: Mapping[str, str]) -> tuple[int, int, dict[str, Any]]:
        """(offset, limit, meta) for the requested page; the whole list by default."""
        return 0, 10**9, {}

    def ok(self, ctx: Context, records: list[dict[str, Any]], total: int, meta: Mapping[str, Any]) -> Doc:
        raise NotImplementedError

    def page(self, ctx: Context, records: Sequence[dict[str, Any]], params: Mapping[str, str]) -> Doc:
        """The answer holding the requested page of ``records`` (all the handler found): :meth:`window`, then
        :meth:`ok`. A platform that pages parts of one answer on their own (tables under titles) overrides it."""
        offset, limit, meta = self.window(ctx, params)
        page = records[offset : offset + limit]  # the lazy tables' slices are lists already: no copy on this path
        return self.ok(ctx, page if isinstance(page, list) else list(page), len(records), meta)

    def error(self, ctx: Context, kind: str, detail: str = "") -> Doc:
        raise NotImplementedError


def paged(
    params: Mapping[str, str], page_param: str, size_param: str, default_size: int, max_size: int | None
) -> tuple[int, int, dict[str, Any]]:
    """Offset and limit from page-number pagination; BadParam on non-numbers or values < 1."""

    def number(name: str, default: int) -> int:
        text = (params.get(name) or "").strip()
        if not text:
            return default
        try:
            value = int(text)
        except ValueError:
            raise BadParam(name, text) from None
        if value < 1:
            raise BadParam(name, text)
        return value

    page = number(page_param, 1)
    size = number(size_param, default_size)
    if max_size is not None:
        size = min(size, max_size)
    return (page - 1) * size, size, {"page": page, "size": size}


def json_bytes(value: Any) -> bytes:
    """Compact UTF-8 JSON with Korean left as is (as the platforms send it)."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def _xml_element(tag: str, value: Any, out: list[str]) -> None:
    if isinstance(value, list):
        for item in value:
            _xml_element(tag, item, out)
        return
    if isinstance(value, dict):
        attrs = "".join(f" {k[1:]}={quoteattr(str(v))}" for k, v in value.items() if k.startswith("@"))
        out.append(f"<{tag}{attrs}>")
        for key, child in value.items():
            if key.startswith("@"):
                continue
            if key == "#text":
                out.append(escape(str(child)))
            else:
                _xml_element(key, child, out)
        out.append(f"</{tag}>")
        return
    if value is None:
        out.append(f"<{tag}/>")
        return
    out.append(f"<{tag}>{escape(str(value))}</{tag}>")


def xml_bytes(root: str, value: Any) -> bytes:
    """A dict as an XML document: lists repeat their element, ``@name`` keys become attributes."""
    out = ['<?xml version="1.0" encoding="UTF-8" standalone="yes"?>']
    _xml_element(root, value, out)
    return "".join(out).encode("utf-8")


def serialize(doc: Doc) -> SimResponse:
    """Bytes for a document: raw bytes as they are, else XML or JSON."""
    if isinstance(doc.body, (bytes, bytearray)):
        body, content_type = bytes(doc.body), doc.content_type or "application/octet-stream"
    elif doc.xml:
        body, content_type = xml_bytes(doc.xml_root, doc.body), doc.content_type or "application/xml;charset=UTF-8"
    else:
        body, content_type = json_bytes(doc.body), doc.content_type or "application/json;charset=UTF-8"
    return SimResponse(doc.status, body, content_type, doc.headers)


def endpoints_by_route(endpoints: Iterable[Endpoint]) -> dict[tuple[str, str], Endpoint]:
    table: dict[tuple[str, str], Endpoint] = {}
    for ep in endpoints:
        key = (ep.host, ep.route)
        if key in table:
            raise ValueError(f"two endpoints on {ep.host}{ep.route}: {table[key].tool} and {ep.tool}")
        table[key] = ep
    return table
