"""Load and validate catalogs from JSON or YAML files.

A catalog file holds platform defaults and tools::

    platform:                      # or ``platforms:`` with a list
      id: dart
      domain: finance
      base_url: https://opendart.fss.or.kr
      auth: {location: query, name: crtfc_key, env: OPENDART_API_KEY}
      format: json
      envelope: {records: list, total: total_count, code: status, message: message}
      pagination: {style: none}
      result_codes: {"000": ok, "013": no_data, "100": structural, "020": environmental}
      rate_limit: {requests_per_second: 5, concurrency: 2, daily: 10000}   # optional: the key's limits
    tools:
      - name: dart_company
        title: 기업개황
        description: {ko: ..., en: ...}
        http: {path: /api/company.json, envelope: {records: "."}}
        params:                    # compact form of inputSchema (or give inputSchema)
          corp_code: {type: string, required: true, pattern: "^[0-9]{8}$", description: ...}
        output:                    # compact form of one record (or give outputSchema)
          corp_name: {type: string, description: ...}
        examples: [{corp_code: "00439743"}]

A tool's ``http`` block overrides the platform's defaults key by key. ``rate_limit`` (requests a second,
requests in flight, requests a day or null) is what one key may do on the platform's host; a platform without
one has no limit.

Every problem is reported as a :class:`CatalogError` naming the file, the tool (or the platform) and the field;
validation collects all problems of a file before raising. A key the loader does not read is a problem too, at
every level (document, platform, tool, ``http`` and its blocks, each parameter, output field, filter and
annotation), named with the nearest known key: a misspelt ``pagnation`` would otherwise turn paging off in
silence. Keys starting with ``x-`` at the top level of a document are ignored (holders of YAML anchors).
"""

from __future__ import annotations

import difflib
import json
import re
from collections.abc import Iterable, Mapping
from importlib import resources
from pathlib import Path
from typing import Any

import yaml

from kopa_replay.catalog.model import (
    AUTH_LOCATIONS,
    FORMATS,
    OUTCOMES,
    PAGINATION_STYLES,
    Auth,
    Catalog,
    ClientFilter,
    Envelope,
    HttpBinding,
    Pagination,
    RateLimit,
    Tool,
    path_placeholders,
)
from kopa_replay.errors import CatalogError
from kopa_replay.util import load_yaml

__all__ = ["load_catalog", "load_catalog_file", "builtin_catalog", "tool_to_dict", "validate_file"]

_NAME = re.compile(r"^[a-z][a-z0-9]*(_[a-z0-9]+)+$")
_JSON_TYPES = {"string", "integer", "number", "boolean", "array", "object", "null"}
_PARAM_LOCATIONS = {"query", "path", "header", "filter"}
_DEFAULT_ANNOTATIONS = {"readOnlyHint": True, "destructiveHint": False, "idempotentHint": True, "openWorldHint": True}
_TOOL_KEYS = (
    "name",
    "title",
    "description",
    "platform",
    "domain",
    "params",
    "inputSchema",
    "output",
    "outputSchema",
    "annotations",
    "http",
    "examples",
    "filters",
    "generated",
)
_HTTP_KEYS = (
    "method",
    "base_url",
    "path",
    "auth",
    "format",
    "envelope",
    "pagination",
    "result_codes",
    "fixed_query",
    "zip_member",
    "rate_limit",
)
_RATE_LIMIT_KEYS = ("requests_per_second", "concurrency", "daily")
# every key the loader reads, per kind of mapping: anything else is refused, named with the nearest of these
_DOCUMENT_KEYS = ("platform", "platforms", "tools")
_PLATFORM_KEYS = ("id", "domain", *_HTTP_KEYS)
_AUTH_KEYS = ("location", "name", "env")
_ENVELOPE_KEYS = ("records", "total", "code", "message")
_PAGINATION_KEYS = ("style", "page_param", "size_param", "start_param", "end_param", "default_size", "max_size")
_PARAM_SCHEMA_KEYS = ("enum", "pattern", "format", "default", "minimum", "maximum", "examples")
_PARAM_KEYS = ("type", "description", "required", "in", *_PARAM_SCHEMA_KEYS)
_OUTPUT_SCHEMA_KEYS = ("format", "pattern", "enum", "examples")
_OUTPUT_KEYS = ("type", "description", "nullable", *_OUTPUT_SCHEMA_KEYS)
_FILTER_KEYS = ("param", "field", "match", "limit")
_ANNOTATION_KEYS = ("title", *_DEFAULT_ANNOTATIONS)


class _PlatformProblem(CatalogError):
    """A problem of a platform block, named by file, platform and field (checked once, not again for each of the
    platform's tools)."""

    def __init__(self, message: str, *, source: str, platform: str, field: str | None) -> None:
        super().__init__(message, source=source, field=field)
        self.platform = platform
        where = ", ".join(
            part for part in (f"file {source}", f"platform {platform!r}", field and f"field {field!r}") if part
        )
        self.args = (f"{where}: {message}",)


class _Problems:
    """Collects validation problems so a file reports all of them at once."""

    def __init__(self, source: str) -> None:
        self.source = source
        self.items: list[CatalogError] = []

    def add(
        self, message: str, tool: str | None = None, field: str | None = None, *, platform: str | None = None
    ) -> None:
        """One problem, named by its tool (a tool's entry) or by its platform (a platform block)."""
        if platform is not None:
            self.items.append(_PlatformProblem(message, source=self.source, platform=platform, field=field))
        else:
            self.items.append(CatalogError(message, source=self.source, tool=tool, field=field))

    def unknown_keys(
        self,
        spec: Mapping[Any, Any],
        known: tuple[str, ...],
        where: str = "",
        *,
        tool: str | None = None,
        platform: str | None = None,
        extensions: bool = False,
    ) -> bool:
        """Report each key of ``spec`` the loader does not read (field ``where + key``), with the nearest known key
        (or, when none is near, the known keys); ``extensions``: keys starting with ``x-`` are allowed. True when
        there was one."""
        found = False
        for key in sorted(spec, key=str):
            if key in known or (extensions and isinstance(key, str) and key.startswith("x-")):
                continue
            close = difflib.get_close_matches(str(key), known, n=1)
            hint = f"did you mean {close[0]!r}?" if close else f"known: {', '.join(known)}"
            self.add(f"unknown key ({hint})", tool, f"{where}{key}", platform=platform)
            found = True
        return found

    def raise_if_any(self) -> None:
        if not self.items:
            return
        if len(self.items) == 1:
            raise self.items[0]
        first = self.items[0]
        more = "\n".join(f"  - {e}" for e in self.items)
        error = CatalogError(f"{len(self.items)} problems:\n{more}", source=None)
        error.source, error.tool, error.field = first.source, first.tool, first.field
        raise error


def _read_document(path: Path) -> Any:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise CatalogError("file not found", source=str(path)) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise CatalogError(f"cannot read: {exc}", source=str(path)) from exc
    try:
        if path.suffix.lower() == ".json":
            return json.loads(text)
        return load_yaml(text)
    except json.JSONDecodeError as exc:
        raise CatalogError(
            f"invalid JSON at line {exc.lineno} column {exc.colno}: {exc.msg}", source=str(path)
        ) from exc
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1} column {mark.column + 1}" if mark else ""
        raise CatalogError(f"invalid YAML{where}: {getattr(exc, 'problem', exc)}", source=str(path)) from exc


def _as_paths(value: Any) -> tuple[str, ...]:
    if value is None:
        return ()
    if isinstance(value, str):
        return (value,)
    return tuple(str(v) for v in value)


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""


def _mapping(value: Any, of: str, problems: _Problems, tool: str, field: str) -> Mapping[Any, Any]:
    """``value`` when it is a mapping (or absent: empty), else a problem naming the field, and empty."""
    if value is None or value == {}:
        return {}
    if not isinstance(value, Mapping):
        problems.add(f"{field.rsplit('.', 1)[-1]} must be a mapping {of}, not {type(value).__name__}", tool, field)
        return {}
    return value


_DESCRIPTION_KEYS = ("ko", "en")


def _description(
    value: Any, problems: "_Problems | None" = None, tool: str | None = None, field: str = ""
) -> tuple[str, str]:
    """(ko, en) from ``{ko, en}`` or a plain string used for both. Another key is refused (with ``problems``): in a
    flow mapping an unquoted comma (``{ko: 시, 군, en: …}``) cuts the text short and makes the rest a key."""
    if isinstance(value, Mapping):
        for key in sorted((k for k in value if k not in _DESCRIPTION_KEYS), key=str) if problems is not None else ():
            problems.add(  # type: ignore[union-attr]  # only reached with problems
                "a description holds ko and en only; this key is most likely the rest of a text cut at an unquoted "
                "comma ({ko: 시, 군, en: …}): quote the text",
                tool,
                f"{field}.{key}",
            )
        return _text(value.get("ko")).strip(), _text(value.get("en")).strip()
    if isinstance(value, str):
        return value.strip(), value.strip()
    return "", ""


def _merge(base: Mapping[str, Any], override: Mapping[str, Any]) -> dict[str, Any]:
    merged = dict(base)
    for key, value in override.items():
        if (
            key in ("envelope", "pagination", "auth", "fixed_query", "rate_limit")
            and isinstance(value, Mapping)
            and isinstance(merged.get(key), Mapping)
        ):
            merged[key] = {**merged[key], **value}
        elif key == "result_codes" and isinstance(value, Mapping) and isinstance(merged.get(key), Mapping):
            merged[key] = {**merged[key], **{str(k): v for k, v in value.items()}}
        else:
            merged[key] = value
    return merged


def _schema_from_params(params: Mapping[str, Any], problems: _Problems, tool: str) -> tuple[dict, dict]:
    """(inputSchema, {param: location}) from the compact ``params`` form."""
    properties: dict[str, Any] = {}
    required: list[str] = []
    locations: dict[str, str] = {}
    for pname, spec in params.items():
        if not isinstance(spec, Mapping):
            problems.add("must be a mapping with at least a type", tool, f"params.{pname}")
            continue
        problems.unknown_keys(spec, _PARAM_KEYS, f"params.{pname}.", tool=tool)
        prop: dict[str, Any] = {}
        ptype = spec.get("type", "string")
        if ptype not in _JSON_TYPES:
            problems.add(f"unknown JSON type {ptype!r}", tool, f"params.{pname}.type")
        prop["type"] = ptype
        ko, en = _description(spec.get("description"), problems, tool, f"params.{pname}.description")
        if not (ko or en):
            problems.add("a parameter needs a description", tool, f"params.{pname}.description")
        prop["description"] = f"{ko} | {en}" if ko and en and ko != en else (ko or en)
        for key in _PARAM_SCHEMA_KEYS:
            if key in spec:
                prop[key] = spec[key]
        if "pattern" in spec:
            try:
                re.compile(spec["pattern"])
            except re.error as exc:
                problems.add(f"invalid regular expression: {exc}", tool, f"params.{pname}.pattern")
        location = spec.get("in", "query")
        if location not in _PARAM_LOCATIONS:
            problems.add(f"'in' must be one of {sorted(_PARAM_LOCATIONS)}", tool, f"params.{pname}.in")
        locations[pname] = location
        properties[pname] = prop
        if spec.get("required"):
            required.append(pname)
    schema = {"type": "object", "properties": properties, "required": required, "additionalProperties": False}
    return schema, locations


def _schema_from_output(output: Mapping[str, Any], problems: _Problems, tool: str) -> dict:
    properties: dict[str, Any] = {}
    for fname, spec in output.items():
        if isinstance(spec, str):
            spec = {"type": "string", "description": spec}
        if not isinstance(spec, Mapping):
            problems.add("must be a mapping or a description string", tool, f"output.{fname}")
            continue
        problems.unknown_keys(spec, _OUTPUT_KEYS, f"output.{fname}.", tool=tool)
        ftype = spec.get("type", "string")
        if ftype not in _JSON_TYPES:
            problems.add(f"unknown JSON type {ftype!r}", tool, f"output.{fname}.type")
        ko, en = _description(spec.get("description"), problems, tool, f"output.{fname}.description")
        prop: dict[str, Any] = {"type": [ftype, "null"] if spec.get("nullable") else ftype}
        if ko or en:
            prop["description"] = f"{ko} | {en}" if ko and en and ko != en else (ko or en)
        for key in _OUTPUT_SCHEMA_KEYS:
            if key in spec:
                prop[key] = spec[key]
        properties[fname] = prop
    return {
        "type": "object",
        "properties": {
            "records": {"type": "array", "items": {"type": "object", "properties": properties}},
            "total_count": {
                "type": ["integer", "null"],
                "description": "전체 건수 | Total number of records across all pages",
            },
        },
    }


def _rate_limit(
    spec: Any, problems: _Problems, where: str, *, tool: str | None = None, platform: str | None = None
) -> RateLimit | None:
    """The :class:`RateLimit` of a ``rate_limit`` mapping (None when absent or null); each problem named at
    ``where`` (``http.rate_limit`` of a tool, ``rate_limit`` of a platform)."""
    if spec is None:
        return None

    def add(message: str, field: str) -> None:
        problems.add(message, tool, field, platform=platform)

    if not isinstance(spec, Mapping):
        add("must be a mapping {requests_per_second, concurrency, daily} or null, not " + type(spec).__name__, where)
        return None
    unknown = problems.unknown_keys(spec, _RATE_LIMIT_KEYS, f"{where}.", tool=tool, platform=platform)
    rps: Any = spec.get("requests_per_second")
    concurrency: Any = spec.get("concurrency")
    daily: Any = spec.get("daily")
    ok = not unknown
    # ``< inf``: an infinite rate spaces nothing (and nan fails every comparison)
    if not (isinstance(rps, (int, float)) and not isinstance(rps, bool) and 0 < rps < float("inf")):
        why = "is required" if rps is None else f"must be a positive number, not {rps!r}"
        add(f"a rate limit's requests_per_second {why}", f"{where}.requests_per_second")
        ok = False
    for key, value, required in (("concurrency", concurrency, True), ("daily", daily, False)):
        if value is None and not required:
            continue
        if not isinstance(value, int) or isinstance(value, bool) or value < 1:
            why = "is required" if value is None else f"must be a positive integer, not {value!r}"
            add(f"a rate limit's {key} {why}", f"{where}.{key}")
            ok = False
    return RateLimit(float(rps), concurrency, daily) if ok else None


def _check_http_keys(
    http: Mapping[str, Any],
    problems: _Problems,
    known: tuple[str, ...],
    where: str,
    *,
    tool: str | None = None,
    platform: str | None = None,
) -> None:
    """Refuse the unknown keys of an ``http`` block (a tool's, or a platform's defaults) and of its auth,
    envelope and pagination blocks; rate_limit's are :func:`_rate_limit`'s. Checked where they are written, so a
    platform's mistake is named once by its platform, not again by each of its tools."""
    problems.unknown_keys(http, known, where, tool=tool, platform=platform)
    for block, block_keys in (("auth", _AUTH_KEYS), ("envelope", _ENVELOPE_KEYS), ("pagination", _PAGINATION_KEYS)):
        spec = http.get(block)
        if isinstance(spec, Mapping):
            problems.unknown_keys(spec, block_keys, f"{where}{block}.", tool=tool, platform=platform)


def _build_binding(http: Mapping[str, Any], problems: _Problems, tool: str) -> HttpBinding | None:
    method = str(http.get("method", "GET")).upper()
    if method not in ("GET", "POST"):
        problems.add("method must be GET or POST", tool, "http.method")
    base_url = http.get("base_url")
    if not isinstance(base_url, str) or "://" not in base_url:
        problems.add("base_url must be an absolute URL such as https://host", tool, "http.base_url")
        return None
    path = http.get("path")
    if not isinstance(path, str) or not path.startswith("/"):
        problems.add("path must start with '/'", tool, "http.path")
        return None
    fmt = http.get("format", "json")
    if fmt not in FORMATS:
        problems.add(f"format must be one of {list(FORMATS)}", tool, "http.format")
    auth_spec = http.get("auth") or {"location": "none", "name": ""}
    if not isinstance(auth_spec, Mapping) or auth_spec.get("location") not in AUTH_LOCATIONS:
        problems.add(f"auth.location must be one of {list(AUTH_LOCATIONS)}", tool, "http.auth.location")
        auth_spec = {"location": "none", "name": ""}
    auth = Auth(location=auth_spec["location"], name=str(auth_spec.get("name", "")), env=auth_spec.get("env"))
    if auth.location != "none" and not auth.name:
        problems.add("auth.name is required", tool, "http.auth.name")
    if auth.location == "path" and auth.name not in path_placeholders(path):
        problems.add(f"the key goes in the path but the path has no {{{auth.name}}}", tool, "http.path")
    env_spec = http.get("envelope") or {}
    if not isinstance(env_spec, Mapping) or not _as_paths(env_spec.get("records")):
        problems.add("envelope.records is required", tool, "http.envelope.records")
        env_spec = {"records": "."}
    envelope = Envelope(
        records=_as_paths(env_spec.get("records")),
        total=_as_paths(env_spec.get("total")),
        code=_as_paths(env_spec.get("code")),
        message=_as_paths(env_spec.get("message")),
    )
    pag_spec = http.get("pagination") or {"style": "none"}
    style = pag_spec.get("style", "none") if isinstance(pag_spec, Mapping) else None
    if style not in PAGINATION_STYLES:
        problems.add(f"pagination.style must be one of {list(PAGINATION_STYLES)}", tool, "http.pagination.style")
        pag_spec, style = {}, "none"
    for role in ("default_size", "max_size"):
        size = pag_spec.get(role)
        if size is not None and (not isinstance(size, int) or isinstance(size, bool) or size < 1):
            problems.add(
                f"pagination.{role} must be a positive integer or null, not {size!r}", tool, f"http.pagination.{role}"
            )
            pag_spec = {**pag_spec, role: None}
    for role in ("page_param", "size_param", "start_param", "end_param"):
        if pag_spec.get(role) is not None and not isinstance(pag_spec.get(role), str):
            problems.add(f"pagination.{role} must be a parameter name", tool, f"http.pagination.{role}")
            pag_spec = {**pag_spec, role: None}
    pagination = Pagination(
        style=style,
        page_param=pag_spec.get("page_param"),
        size_param=pag_spec.get("size_param"),
        start_param=pag_spec.get("start_param"),
        end_param=pag_spec.get("end_param"),
        default_size=pag_spec.get("default_size"),
        max_size=pag_spec.get("max_size"),
    )
    codes = http.get("result_codes") or {}
    result_codes: dict[str, str] = {}
    if not isinstance(codes, Mapping):
        problems.add(
            f"result_codes must be a mapping of result code to outcome, not {type(codes).__name__}",
            tool,
            "http.result_codes",
        )
    else:
        for code, outcome in codes.items():
            if outcome not in OUTCOMES:
                problems.add(
                    f"outcome must be one of {list(OUTCOMES)}, not {outcome!r}", tool, f"http.result_codes.{code}"
                )
            result_codes[str(code)] = str(outcome)
        if "ok" not in result_codes.values():
            problems.add("the result-code table needs at least one 'ok' code", tool, "http.result_codes")
    fixed = _mapping(http.get("fixed_query"), "of query parameter to value", problems, tool, "http.fixed_query")
    for name, value in fixed.items():
        if not isinstance(value, (str, int, float)):
            problems.add(f"a fixed query value is a string or number, not {value!r}", tool, f"http.fixed_query.{name}")
    return HttpBinding(
        method=method,
        base_url=base_url.rstrip("/"),
        path=path,
        auth=auth,
        format=fmt,
        envelope=envelope,
        pagination=pagination,
        result_codes=result_codes,
        fixed_query={str(k): str(v) for k, v in fixed.items()},
        zip_member=http.get("zip_member"),
        rate_limit=_rate_limit(http.get("rate_limit"), problems, "http.rate_limit", tool=tool),
    )


def _check_value(value: Any, prop: Mapping[str, Any]) -> str | None:
    """Why ``value`` does not fit the property schema, or None."""
    ptype = prop.get("type")
    checks = {
        "string": lambda v: isinstance(v, str),
        "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
        "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
        "boolean": lambda v: isinstance(v, bool),
    }
    if ptype in checks and not checks[ptype](value):
        return f"expected {ptype}, got {type(value).__name__}"
    if "enum" in prop and value not in prop["enum"]:
        return f"{value!r} is not one of {prop['enum']}"
    if "pattern" in prop and isinstance(value, str):
        try:
            if not re.search(prop["pattern"], value):
                return f"{value!r} does not match {prop['pattern']}"
        except re.error:
            return None  # the pattern itself is reported where it is declared

    return None


def _build_tool(spec: Any, platforms: Mapping[str, Mapping[str, Any]], problems: _Problems, index: int) -> Tool | None:
    if not isinstance(spec, Mapping):
        problems.add(f"tools[{index}] must be a mapping")
        return None
    name = spec.get("name")
    if not isinstance(name, str) or not _NAME.match(name):
        problems.add("name must be snake_case {platform}_{operation}", name if isinstance(name, str) else None, "name")
        return None
    problems.unknown_keys(spec, _TOOL_KEYS, tool=name)
    platform_id = spec.get("platform")
    if platform_id is None and len(platforms) == 1:
        platform_id = next(iter(platforms))
    # platforms' keys are all strings: anything else (a YAML list or mapping would not even hash) is unknown
    if not isinstance(platform_id, str) or platform_id not in platforms:
        problems.add(f"unknown platform {platform_id!r} (known: {sorted(platforms)})", name, "platform")
        return None
    platform = platforms[platform_id]
    if not name.startswith(f"{platform_id}_"):
        problems.add(f"tool names start with the platform id '{platform_id}_'", name, "name")
    title = spec.get("title")
    if not isinstance(title, str) or not title.strip():
        problems.add("a title is required", name, "title")
    ko, en = _description(spec.get("description"), problems, name, "description")
    if not ko:
        problems.add("a Korean description (description.ko) is required", name, "description.ko")
    if not en:
        problems.add("an English description (description.en) is required", name, "description.en")

    locations: dict[str, str] = {}
    if "inputSchema" in spec:
        input_schema = spec["inputSchema"]
        if not isinstance(input_schema, Mapping) or input_schema.get("type") != "object":
            problems.add("inputSchema must be a JSON schema of type object", name, "inputSchema")
            return None
        locations = {p: s.get("x-in", "query") for p, s in input_schema.get("properties", {}).items()}
    else:
        params = spec.get("params") or {}
        if not isinstance(params, Mapping):
            problems.add("params must be a mapping of parameter name to spec", name, "params")
            return None
        input_schema, locations = _schema_from_params(params, problems, name)
    properties = input_schema.get("properties", {})
    for req in input_schema.get("required", ()):
        if req not in properties:
            problems.add(f"required parameter {req!r} is not among the properties", name, "inputSchema.required")

    if "outputSchema" in spec:
        output_schema = spec["outputSchema"]
        if not isinstance(output_schema, Mapping):
            problems.add("outputSchema must be a JSON schema", name, "outputSchema")
            return None
    else:
        output = spec.get("output")
        if not isinstance(output, Mapping) or not output:
            problems.add("output fields are required (output or outputSchema)", name, "output")
            return None
        output_schema = _schema_from_output(output, problems, name)

    own_http = spec.get("http") or {}
    if not isinstance(own_http, Mapping):
        problems.add(f"http must be a mapping (the tool's binding), not {type(own_http).__name__}", name, "http")
        own_http = {}
    _check_http_keys(own_http, problems, _HTTP_KEYS, "http.", tool=name)
    http_spec = _merge({k: v for k, v in platform.items() if k in _HTTP_KEYS}, own_http)
    binding = _build_binding(http_spec, problems, name)
    if binding is None:
        return None
    for placeholder in path_placeholders(binding.path):
        if placeholder == binding.auth.name and binding.auth.location == "path":
            continue
        if placeholder not in properties:
            problems.add(f"path placeholder {{{placeholder}}} is not a parameter", name, "http.path")
        elif locations.get(placeholder) not in ("path", "query"):
            problems.add("a path placeholder parameter must be in: path", name, f"params.{placeholder}.in")
    pag = binding.pagination
    for role, pname in (
        ("page_param", pag.page_param),
        ("size_param", pag.size_param),
        ("start_param", pag.start_param),
        ("end_param", pag.end_param),
    ):
        if pag.style == "page" and role in ("page_param", "size_param") and not pname:
            problems.add(f"page pagination needs {role}", name, f"http.pagination.{role}")
        if pag.style == "range" and role in ("start_param", "end_param") and not pname:
            problems.add(f"range pagination needs {role}", name, f"http.pagination.{role}")
        if pname and pag.style != "none" and pname not in properties:
            problems.add(f"pagination parameter {pname!r} must be a tool parameter", name, f"http.pagination.{role}")

    filters: list[ClientFilter] = []
    raw_filters = spec.get("filters") or ()
    if not isinstance(raw_filters, (list, tuple)):
        problems.add(f"filters must be a list of filters, not {type(raw_filters).__name__}", name, "filters")
        raw_filters = ()
    for i, fspec in enumerate(raw_filters):
        if isinstance(fspec, Mapping):
            problems.unknown_keys(fspec, _FILTER_KEYS, f"filters[{i}].", tool=name)
        if not isinstance(fspec, Mapping) or fspec.get("param") not in properties or not fspec.get("field"):
            problems.add("a filter needs a param (one of the tool's parameters) and a field", name, f"filters[{i}]")
            continue
        if fspec.get("match", "exact") not in ("exact", "contains"):
            problems.add("match must be exact or contains", name, f"filters[{i}].match")
        limit = fspec.get("limit", 50)
        if not isinstance(limit, int) or isinstance(limit, bool) or limit < 1:
            problems.add(f"limit must be a positive integer, not {limit!r}", name, f"filters[{i}].limit")
            limit = 50
        filters.append(
            ClientFilter(param=fspec["param"], field=fspec["field"], match=fspec.get("match", "exact"), limit=limit)
        )

    examples: list[Mapping[str, Any]] = []
    raw_examples = spec.get("examples") or ()
    if not isinstance(raw_examples, (list, tuple)):
        problems.add(
            f"examples must be a list of argument mappings, not {type(raw_examples).__name__}", name, "examples"
        )
        raw_examples = ()
    for i, example in enumerate(raw_examples):
        if not isinstance(example, Mapping):
            problems.add("an example is a mapping of arguments", name, f"examples[{i}]")
            continue
        for req in input_schema.get("required", ()):
            if req not in example:
                problems.add(f"missing required argument {req!r}", name, f"examples[{i}]")
        for arg, value in example.items():
            if arg not in properties:
                problems.add(f"unknown argument {arg!r}", name, f"examples[{i}].{arg}")
                continue
            why = _check_value(value, properties[arg])
            if why:
                problems.add(why, name, f"examples[{i}].{arg}")
        examples.append(dict(example))

    own_annotations = _mapping(spec.get("annotations"), "of MCP tool annotations", problems, name, "annotations")
    problems.unknown_keys(own_annotations, _ANNOTATION_KEYS, "annotations.", tool=name)
    annotations = {**_DEFAULT_ANNOTATIONS, **own_annotations}
    # Parameter locations ride in the schema as the ``x-in`` extension so that a
    # tool written back out (tool_to_dict) keeps them.
    input_schema = _with_locations(input_schema, locations)
    return Tool(
        name=name,
        title=(title or "").strip(),
        description_ko=ko,
        description_en=en,
        platform=platform_id,
        domain=spec.get("domain") or platform.get("domain") or "",
        input_schema=input_schema,
        output_schema=output_schema,
        annotations=annotations,
        http=binding,
        examples=tuple(examples),
        client_filters=tuple(filters),
        generated=_generated(spec.get("generated", False), problems, name),
    )


def _generated(value: Any, problems: "_Problems", name: str) -> bool:
    if not isinstance(value, bool):
        problems.add(f"must be true or false, not {value!r}", name, "generated")
        return False
    return value


def _with_locations(original: Mapping[str, Any], locations: Mapping[str, str]) -> dict[str, Any]:
    schema: dict[str, Any] = json.loads(json.dumps(original))
    if "required" in schema:
        # Order carries no meaning, and YAML merge keys order merged entries differently across PyYAML
        # versions; sorted, the catalog digest is the same on every machine.
        schema["required"] = sorted(schema["required"])
    for pname, prop in schema.get("properties", {}).items():
        location = locations.get(pname, "query")
        if location != "query":
            prop["x-in"] = location
        else:
            prop.pop("x-in", None)
    return schema


def _platforms_of(document: Mapping[str, Any], problems: _Problems) -> dict[str, Mapping[str, Any]]:
    raw = document.get("platforms")
    if "platforms" in document and "platform" in document:
        problems.add("give either platform (one) or platforms (a list), not both", None, "platform")
    if raw is None and "platform" in document:
        raw = [document["platform"]]
    elif raw is not None and not isinstance(raw, list):
        problems.add(f"platforms must be a list of platform blocks, not {type(raw).__name__}", None, "platforms")
        raw = None
    platforms: dict[str, Mapping[str, Any]] = {}
    for i, spec in enumerate(raw or ()):
        if not isinstance(spec, Mapping) or not isinstance(spec.get("id"), str):
            problems.add(f"platforms[{i}] needs an id", None, f"platforms[{i}].id")
            continue
        # checked once, named by its platform, not again by each of its tools
        _check_http_keys(spec, problems, _PLATFORM_KEYS, "", platform=spec["id"])
        if spec.get("rate_limit") is not None:
            # a bad one is dropped so that its tools do not repeat it
            if _rate_limit(spec["rate_limit"], problems, "rate_limit", platform=spec["id"]) is None:
                spec = {**spec, "rate_limit": None}
        platforms[spec["id"]] = spec
    return platforms


def _tools_of_document(document: Any, source: str) -> list[Tool]:
    problems = _Problems(source)
    if not isinstance(document, Mapping):
        raise CatalogError("a catalog file is a mapping with 'platform' (or 'platforms') and 'tools'", source=source)
    problems.unknown_keys(document, _DOCUMENT_KEYS, extensions=True)
    platforms = _platforms_of(document, problems)
    tools_spec = document.get("tools")
    if not isinstance(tools_spec, list) or not tools_spec:
        problems.add("'tools' must be a non-empty list", None, "tools")
        tools_spec = []
    tools: list[Tool] = []
    seen: set[str] = set()
    for i, spec in enumerate(tools_spec):
        tool = _build_tool(spec, platforms, problems, i)
        if tool is None:
            continue
        if tool.name in seen:
            problems.add("duplicate tool name", tool.name, "name")
        seen.add(tool.name)
        tools.append(tool)
    problems.raise_if_any()
    return tools


def load_catalog_file(path: str | Path) -> Catalog:
    """Load and validate one catalog file (``.json``, ``.yaml`` or ``.yml``)."""
    path = Path(path)
    return Catalog(_tools_of_document(_read_document(path), str(path)), source=str(path))


def validate_file(path: str | Path) -> Catalog:
    """Validate one catalog file; raise :class:`CatalogError` listing every problem."""
    return load_catalog_file(path)


def load_catalog(paths: Iterable[str | Path]) -> Catalog:
    """Load several files (or directories of ``*.yaml``/``*.json``) into one catalog."""
    tools: list[Tool] = []
    seen: dict[str, str] = {}
    sources: list[str] = []
    for entry in paths:
        entry = Path(entry)
        files = (
            sorted(p for p in entry.iterdir() if p.suffix in (".yaml", ".yml", ".json")) if entry.is_dir() else [entry]
        )
        for file in files:
            for tool in load_catalog_file(file):
                if tool.name in seen:
                    raise CatalogError(
                        f"duplicate tool name (also in {seen[tool.name]})",
                        source=str(file),
                        tool=tool.name,
                        field="name",
                    )
                seen[tool.name] = str(file)
                tools.append(tool)
            sources.append(str(file))
    return Catalog(tools, source=", ".join(sources))


_BUILTIN: dict[str, Catalog] = {}


def builtin_catalog(scale: str = "builtin") -> Catalog:
    """The shipped catalog: ``builtin`` (hand-modelled tools) or ``paper`` (2,318 tools)."""
    if scale not in ("builtin", "paper"):
        from kopa_replay.errors import UsageError

        raise UsageError(f"unknown catalog scale {scale!r} (use 'builtin' or 'paper')")
    if scale not in _BUILTIN:
        if scale == "builtin":
            tools: list[Tool] = []
            folder = resources.files("kopa_replay.catalog") / "builtin"
            for entry in sorted(folder.iterdir(), key=lambda p: p.name):
                if entry.name.endswith((".yaml", ".yml", ".json")):
                    document = load_yaml(entry.read_text(encoding="utf-8"))
                    tools.extend(_tools_of_document(document, f"<built-in>/{entry.name}"))
            _BUILTIN[scale] = Catalog(tools, source="<built-in>")
        else:
            from kopa_replay.catalog.scale import expand_to_paper_scale

            _BUILTIN[scale] = expand_to_paper_scale(builtin_catalog("builtin"))
    return _BUILTIN[scale]


def tool_to_dict(tool: Tool) -> dict[str, Any]:
    """A tool as one self-contained file entry (full schemas and binding); loads back equal."""
    http = tool.http
    pag = {k: v for k, v in vars(http.pagination).items() if v is not None}
    envelope = {k: list(v) for k, v in vars(http.envelope).items() if v}
    binding: dict[str, Any] = {
        "method": http.method,
        "base_url": http.base_url,
        "path": http.path,
        "auth": {k: v for k, v in vars(http.auth).items() if v is not None},
        "format": http.format,
        "envelope": envelope,
        "pagination": pag,
        "result_codes": dict(http.result_codes),
    }
    if http.fixed_query:
        binding["fixed_query"] = dict(http.fixed_query)
    if http.zip_member:
        binding["zip_member"] = http.zip_member
    if http.rate_limit is not None:
        binding["rate_limit"] = {k: v for k, v in vars(http.rate_limit).items() if v is not None}
    entry: dict[str, Any] = {
        "name": tool.name,
        "title": tool.title,
        "description": {"ko": tool.description_ko, "en": tool.description_en},
        "platform": tool.platform,
        "domain": tool.domain,
        "inputSchema": json.loads(json.dumps(tool.input_schema)),
        "outputSchema": json.loads(json.dumps(tool.output_schema)),
        "annotations": dict(tool.annotations),
        "http": binding,
        "examples": [dict(e) for e in tool.examples],
    }
    if tool.client_filters:
        entry["filters"] = [vars(f).copy() for f in tool.client_filters]
    if tool.generated:  # written only when set: the built-in catalog's digest is what it was
        entry["generated"] = True
    return entry
