"""One tool call: arguments → the real HTTP request → parsed, classified result.

The request is built from the catalog binding alone (path template, key
placement, fixed query, client-side filters), so the same code calls the
live platform, a ``sim serve`` mirror (``base_url``) or the in-process
simulator — whichever transport the httpx client carries.
"""

from __future__ import annotations

import functools
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qsl, quote, unquote, urlencode, urlsplit

import httpx

from kopa_replay.catalog.model import Tool
from kopa_replay.env.blocked import blocked_body, hollow_document, html_page, is_html
from kopa_replay.env.parse import Parsed, ParseError, extract, parse_body_shared
from kopa_replay.errors import SourceError, UsageError
from kopa_replay.record.redact import MIN_SECRET_LENGTH, Redactor, install_log_filter, register_secret
from kopa_replay.record.retry import BlockedAnswer

__all__ = [
    "CallResult",
    "OUTCOME_CLASSES",
    "TRANSIENT_OUTCOMES",
    "apply_filters",
    "build_request",
    "classify",
    "execute",
    "interpret",
    "interpret_document",
    "interpret_parsed",
    "read_envelope",
    "live_key",
    "recorded_args",
    "request_label",
]

install_log_filter()

#: What a call can come to. ``empty`` is a well-formed answer with no records; ``blocked_error`` no answer of the
#: platform at all — a wall, a page or nothing where the catalog expects data (:mod:`kopa_replay.env.blocked`).
OUTCOME_CLASSES = ("ok", "empty", "structural_error", "environmental_error", "blocked_error")
#: Outcomes a later try of the same call may not meet: the platform's bad minute, or a wall in front of it.
TRANSIENT_OUTCOMES = frozenset({"environmental_error", "blocked_error"})
_CODE_TO_OUTCOME = {
    "ok": "ok",
    "no_data": "empty",
    "structural": "structural_error",
    "environmental": "environmental_error",
}


@dataclass(frozen=True)
class CallResult:
    """The parsed and classified answer to one call."""

    tool: str
    outcome: str
    records: list[dict[str, Any]] = field(default_factory=list)
    total_count: int | None = None
    code: str | None = None
    message: str | None = None
    status: int = 200
    url: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {
            "tool": self.tool,
            "outcome": self.outcome,
            "code": self.code,
            "message": self.message,
            "status": self.status,
            "total_count": self.total_count,
            "records": self.records,
        }


def live_key(tool: Tool) -> str | None:
    """The key for a live call: the platform's variable named in the catalog, else KOPA_API_KEY.

    A generated paper-scale tool has no live endpoint: calling it live is refused before anything is sent."""
    if tool.generated:
        raise UsageError(
            f"tool {tool.name} is a generated paper-scale tool: it does not exist on the live platform "
            "(leave it out: Catalog.real(), or the built-in catalog instead of --scale paper)"
        )
    if tool.http.auth.env and os.environ.get(tool.http.auth.env):
        return os.environ[tool.http.auth.env]
    return os.environ.get("KOPA_API_KEY")


def _stringify(value: Any) -> str:
    if isinstance(value, bool):
        return "Y" if value else "N"
    return str(value)


def build_request(
    tool: Tool, args: Mapping[str, Any], key: str | None, base_url: str | None = None
) -> tuple[str, str, dict[str, str | bytes], str]:
    """(method, url, headers, redacted_url) for calling ``tool`` with ``args``.

    ``base_url`` points the call at a mirror that takes the real host as the
    first path segment (``http://127.0.0.1:N``); by default the real base URL.
    """
    properties = tool.input_schema.get("properties", {})
    unknown = sorted(set(args) - set(properties))
    if unknown:
        raise UsageError(
            f"tool {tool.name!r} has no parameter {unknown[0]!r} (parameters: {', '.join(tool.params) or 'none'})"
        )
    missing = [name for name in tool.required if args.get(name) in (None, "")]
    if missing:
        raise UsageError(f"tool {tool.name!r} needs argument {missing[0]!r}")
    filters = {f.param for f in tool.client_filters}
    path = tool.http.path
    redacted_path = path
    auth = tool.http.auth
    for name, prop in properties.items():
        if prop.get("x-in") == "path" or "{" + name + "}" in path:
            value = quote(_stringify(args.get(name, prop.get("default", ""))), safe="")
            path = path.replace("{" + name + "}", value)
            redacted_path = redacted_path.replace("{" + name + "}", value)
    if auth.location == "path":
        path = path.replace("{" + auth.name + "}", quote(key or "", safe=""))
        redacted_path = redacted_path.replace("{" + auth.name + "}", "***")
    query: list[tuple[str, str]] = list(tool.http.fixed_query.items())
    for name in sorted(args):
        prop = properties[name]
        if name in filters or prop.get("x-in") in ("path", "filter", "header") or "{" + name + "}" in tool.http.path:
            continue
        if args[name] is None:
            continue
        query.append((name, _stringify(args[name])))
    headers: dict[str, str | bytes] = {}
    redacted_query = list(query)
    if auth.location == "query":
        query.insert(0, (auth.name, key or ""))
        redacted_query.insert(0, (auth.name, "***"))
    elif auth.location == "header":
        # A header value is bytes on the wire: a key outside ASCII (Hangul, say) goes as its UTF-8 bytes, which
        # HTTP/1.1 carries as obs-text (httpx would refuse a str it cannot encode as ASCII).
        value = key or ""
        headers[auth.name] = value if value.isascii() else value.encode("utf-8")
    base = tool.http.base_url if base_url is None else base_url.rstrip("/") + "/" + tool.http.host
    url = base + path + ("?" + urlencode(query) if query else "")
    redacted = (
        tool.http.base_url + redacted_path + ("?" + urlencode(redacted_query, safe="*") if redacted_query else "")
    )
    if key and len(key) < MIN_SECRET_LENGTH:
        # a short key may also be another argument's value (Seoul's START=1 beside a key "1"): masked there too,
        # as everywhere a URL is written (a key this short cannot be told from data, see the README)
        redacted = _short_key_redactor(key).scrub_text(redacted)
    return tool.http.method, url, headers, redacted


def recorded_args(tool: Tool, url: str) -> dict[str, str]:
    """The arguments :func:`build_request` turns into ``url`` (a recorded, redacted URL) for ``tool``: the inverse
    that lets a refresh rebuild a recorded request from the catalog's binding instead of trusting the stored URL.

    The URL's path and query must be ones the binding makes — under the catalog's base path, the tool's path
    template, its fixed query, no parameter the tool lacks — else a :class:`UsageError` saying what differs. Its host
    is not read: a request rebuilt from these arguments goes where the catalog says (a store from elsewhere is
    untrusted: an edited host must never receive a key). Filters and header arguments never reach a URL, so they
    are not recovered (they do not change the request either).
    """
    parts, base = urlsplit(url), urlsplit(tool.http.base_url)
    prefix = base.path.rstrip("/")
    if not parts.path.startswith(prefix):
        raise UsageError(f"path {parts.path!r} is not under the catalog's base path {prefix!r}")
    names, pattern = _path_pattern(tool.http.path)
    matched = pattern.fullmatch(parts.path[len(prefix) :])
    if matched is None:
        raise UsageError(f"path {parts.path!r} is not the tool's {prefix + tool.http.path!r}")
    properties = tool.input_schema.get("properties", {})
    auth = tool.http.auth
    args = {name: unquote(value) for name, value in zip(names, matched.groups()) if name != auth.name}
    fixed = dict(tool.http.fixed_query)
    seen_fixed: dict[str, str] = {}
    for name, value in parse_qsl(parts.query, keep_blank_values=True):
        if auth.location == "query" and name == auth.name:
            continue
        if name in fixed:
            seen_fixed[name] = value
        elif name not in properties or name in args:
            raise UsageError(f"query parameter {name!r} is not one the tool sends")
        else:
            args[name] = value
    if seen_fixed != fixed:
        raise UsageError(f"fixed query {sorted(seen_fixed.items())} is not the catalog's {sorted(fixed.items())}")
    return args


@functools.lru_cache(maxsize=4096)
def _path_pattern(template: str) -> tuple[tuple[str, ...], re.Pattern]:
    """The placeholder names of a path template and a pattern matching the paths it makes (one segment each)."""
    names = tuple(re.findall(r"\{([^{}]+)\}", template))
    pieces = re.split(r"\{[^{}]+\}", template)
    return names, re.compile("([^/]*)".join(re.escape(piece) for piece in pieces))


def request_label(tool: Tool, args: Mapping[str, Any]) -> str:
    """``METHOD redacted-URL`` of a call, as the recorder writes it (what pairs a call with a recorded request);
    raises :class:`UsageError` for arguments the tool refuses."""
    method, _, _, redacted = build_request(tool, args, "***")
    return f"{method} {redacted}"


@functools.lru_cache(maxsize=16)
def _short_key_redactor(key: str) -> Redactor:
    return Redactor(secret_values=(key,))


@functools.lru_cache(maxsize=16)
def _body_redactor(key: str | None, env_key: str | None) -> Redactor:
    """Masks the key a call carried and the environment's key (``env_key`` keys the cache)."""
    return Redactor(secret_values=tuple(v for v in (key, env_key) if v))


def apply_filters(tool: Tool, args: Mapping[str, Any], records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The tool's client-side filters (whole-file endpoints) applied to downloaded records, capped."""
    for spec in tool.client_filters:
        wanted = args.get(spec.param)
        if wanted in (None, ""):
            continue
        wanted = _stringify(wanted).strip()
        if spec.match == "contains":
            records = [r for r in records if wanted in str(r.get(spec.field, ""))]
        else:
            records = [r for r in records if str(r.get(spec.field, "")).strip() == wanted]
    if tool.client_filters:
        limit = min(f.limit for f in tool.client_filters)
        records = records[:limit]
    return records


def classify(tool: Tool, status: int, code: str | None, has_records: bool) -> str:
    """The outcome class from HTTP status and the catalog's result-code table."""
    if code is not None:
        outcome = tool.http.classify_code(code)
        if outcome is not None:
            if outcome == "ok" and not has_records:
                return "empty"
            return _CODE_TO_OUTCOME[outcome]
    if status >= 500 or status == 429:
        return "environmental_error"
    if status in (401, 403):
        return "environmental_error"
    if status >= 400:
        return "structural_error"
    if code is not None:
        return "structural_error"  # a code the table does not know: the API changed under us
    return "ok" if has_records else "empty"


def execute(
    tool: Tool, args: Mapping[str, Any], client: httpx.Client, key: str | None, base_url: str | None = None
) -> CallResult:
    """Send one call through ``client`` and return the classified result."""
    method, url, headers, redacted = build_request(tool, args, key, base_url)
    # The recorder reads the tool name (for its records and miss messages) and the key we inserted
    # (to mask it wherever it lands, path segments included) from the request's extensions.
    extensions = {"kopa_tool": tool.name, "kopa_secrets": (key,) if key else ()}
    register_secret(key)
    try:
        # httpx takes str and bytes values in one mapping (a non-ASCII key goes as bytes): its HeaderTypes annotation
        # lists only all-str or all-bytes mappings
        response = client.request(method, url, headers=headers, extensions=extensions)  # type: ignore[arg-type]
    except BlockedAnswer as exc:  # an answer the recorder would not keep: still read for what it is
        response = httpx.Response(exc.status, headers=exc.headers, content=exc.body)
    except httpx.HTTPError as exc:
        raise SourceError(f"{tool.name}: request to {redacted} failed: {type(exc).__name__}") from None
    # A platform may echo the key in its answer (law.go.kr's links carry OC): masked before anything is parsed,
    # as the recorder masks what it stores and ToolEnvironment what any source answers, so no key reaches a
    # result, whichever source answered.
    content = _body_redactor(key, os.environ.get("KOPA_API_KEY")).scrub_bytes(response.content)
    return interpret(tool, args, response.status_code, content, redacted, response.headers.get("content-type"))


def interpret(
    tool: Tool, args: Mapping[str, Any], status: int, content: bytes, redacted: str, content_type: str | None = None
) -> CallResult:
    """A response's records, total and outcome, read with the tool's envelope and result-code table."""
    parsed = read_envelope(tool, status, content, redacted, content_type)
    if isinstance(parsed, CallResult):
        return parsed
    return interpret_parsed(tool, args, status, parsed, redacted)


def unreadable_is_environmental(status: int) -> bool:
    """Whether a body that does not parse is the platform's failure (a 5xx), or its refusal of the key or the pace
    (401, 407, 429): not the call's fault. Any other unreadable answer says the binding is wrong."""
    return status >= 500 or status in (401, 407, 429)


def read_envelope(
    tool: Tool, status: int, content: bytes, redacted: str = "", content_type: str | None = None
) -> Parsed | CallResult:
    """The body's envelope read with the tool's (before its client-side filters), or the failed call a body that
    is no answer makes — blocked (:mod:`kopa_replay.env.blocked`: the evidence is the message) or unparseable:
    what :func:`interpret` does before it looks at the arguments."""
    evidence = blocked_body(tool, status, content)
    if evidence is not None:
        return CallResult(tool.name, "blocked_error", status=status, message=evidence, url=redacted)
    try:
        doc = parse_body_shared(content, tool.http.zip_member, content_type)
    except ParseError as exc:
        evidence = blocked_body(tool, status, content, unparsed=True)
        if evidence is not None:
            return CallResult(tool.name, "blocked_error", status=status, message=evidence, url=redacted)
        outcome = "environmental_error" if unreadable_is_environmental(status) else "structural_error"
        # a 5xx error page says more by its title than by where it stops parsing
        message = html_page(content, status) if status >= 500 and is_html(content) else str(exc)
        return CallResult(tool.name, outcome, status=status, message=message, url=redacted)
    evidence = hollow_document(tool, status, doc)
    if evidence is not None:
        return CallResult(tool.name, "blocked_error", status=status, message=evidence, url=redacted)
    return extract(tool, doc)


def interpret_document(tool: Tool, args: Mapping[str, Any], status: int, doc: Any, redacted: str = "") -> CallResult:
    """:func:`interpret` of a body already parsed (``parse_body``): for readers that need the document too."""
    evidence = hollow_document(tool, status, doc)
    if evidence is not None:
        return CallResult(tool.name, "blocked_error", status=status, message=evidence, url=redacted)
    return interpret_parsed(tool, args, status, extract(tool, doc), redacted)


def interpret_parsed(
    tool: Tool, args: Mapping[str, Any], status: int, parsed: Parsed, redacted: str = ""
) -> CallResult:
    """:func:`interpret` of an envelope already read (:func:`read_envelope`)."""
    records = apply_filters(tool, args, parsed.records)
    total = parsed.total if not tool.client_filters else len(records)
    outcome = classify(tool, status, parsed.code, bool(records))
    if outcome not in ("ok", "empty"):
        records = []
    return CallResult(tool.name, outcome, records, total, parsed.code, parsed.message, status, redacted)
