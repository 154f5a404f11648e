"""The platforms' published response specs, kept as data: what every simulated response must carry.

One YAML file per platform module (``dart.yaml``, ``neis.yaml`` …), written from the
platforms' guides, widely used public client code and recorded responses; each file and
each endpoint names its sources. A file holds:

``platform``
    the platform id the endpoints belong to.
``sources``
    where the platform-wide facts (envelope, paging, codes) come from.
``envelope``
    the catalog's path syntax for ``records``, ``total`` and ``code`` of a success, with
    ``{route}`` standing for the service name where the envelope is keyed by it.
``paging``
    ``max``: the most rows one call may ask for as documented (``null``: none documented),
    ``default``: the rows a call gets when it does not say, ``enforced: false`` where the
    servers take more than the documented maximum (RTMS).
``codes``
    every result code the platform documents, with how a client reads it (ok, no_data,
    structural, environmental — the catalog's classes).
``empty``
    values besides ``null``, ``""`` and a single space that mean "none" on this platform
    (OpenDART writes ``-``).
``endpoints``
    tool name → ``route``, ``sources``, ``fields`` and, where they differ from the platform's,
    its own ``envelope`` and ``paging``. A field has a ``type`` (``string``,
    ``integer``, ``number``, ``array``, ``object``), an optional ``format`` (a name from :data:`FORMATS`, or a
    ``^…$`` regular expression) and ``optional: true`` when the platform may send it empty —
    ``null``, ``""`` or a single space, the ways these platforms say "none" — or leave it out.

:func:`record_problems` is the contract: a record carries exactly the spec's fields, each with
its type and format. The check is pure; the tests run it over simulated responses.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from typing import Any

import yaml

from kopa_replay.errors import SimError
from kopa_replay.sim.world.calendar import parse_ymd
from kopa_replay.util import load_yaml

__all__ = [
    "FORMATS",
    "FieldSpec",
    "EndpointSpec",
    "PlatformSpec",
    "load_specs",
    "endpoint_specs",
    "value_problem",
    "record_problems",
]

TYPES = ("string", "integer", "number", "array", "object")

#: Named value formats (applied to string values); ``digits:N`` is exactly N digits.
FORMATS: dict[str, str] = {
    "ymd": r"^[0-9]{8}$",  # YYYYMMDD, and a real calendar day
    "ym": r"^[0-9]{4}(0[1-9]|1[0-2])$",  # YYYYMM
    "year": r"^(19|20)[0-9]{2}$",
    "int": r"^-?[0-9]+$",
    "decimal": r"^-?([0-9]+(\.[0-9]*)?|\.[0-9]+)$",  # "-1.5", ".11" (data.go.kr drops the leading zero)
    "comma_int": r"^ *-?[0-9]{1,3}(,[0-9]{3})*$",  # "   229,200" (RTMS pads amounts on the left)
    "comma_decimal": r"^ *-?[0-9]{1,3}(,[0-9]{3})*(\.[0-9]+)?$",
    "yn": r"^[YN]$",
}
_DIGITS = re.compile(r"^digits:([1-9][0-9]*)$")
#: What the platforms send for "no value".
_EMPTY = (None, "", " ")


@dataclass(frozen=True)
class FieldSpec:
    name: str
    type: str
    format: str | None = None
    optional: bool = False

    @property
    def pattern(self) -> re.Pattern[str] | None:
        if self.format is None:
            return None
        digits = _DIGITS.match(self.format)
        return re.compile(FORMATS.get(self.format) or (rf"^[0-9]{{{digits.group(1)}}}$" if digits else self.format))


@dataclass(frozen=True)
class EndpointSpec:
    tool: str
    platform: str
    route: str
    sources: tuple[str, ...]
    fields: tuple[FieldSpec, ...]
    envelope: Mapping[str, str]
    paging: Mapping[str, Any]
    empty: tuple[Any, ...] = _EMPTY

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(f.name for f in self.fields)

    def field(self, name: str) -> FieldSpec | None:
        return next((f for f in self.fields if f.name == name), None)


@dataclass(frozen=True)
class PlatformSpec:
    module: str
    platform: str
    sources: tuple[str, ...]
    envelope: Mapping[str, str]
    paging: Mapping[str, Any]
    codes: Mapping[str, str]
    endpoints: tuple[EndpointSpec, ...]


# -- loading ---------------------------------------------------------------------------------------
def _problem(where: str, message: str) -> SimError:
    return SimError(f"response spec {where}: {message}")


def _field(where: str, name: str, raw: Any) -> FieldSpec:
    if not isinstance(raw, Mapping):
        raise _problem(where, "a field is a mapping with type, format, optional")
    unknown = sorted(set(raw) - {"type", "format", "optional"})
    if unknown:
        raise _problem(where, f"unknown key {unknown[0]!r}")
    if raw.get("type") not in TYPES:
        raise _problem(where, f"type must be one of {', '.join(TYPES)}, not {raw.get('type')!r}")
    fmt = raw.get("format")
    if fmt is not None:
        if not isinstance(fmt, str) or not (fmt in FORMATS or _DIGITS.match(fmt) or fmt.startswith("^")):
            raise _problem(where, f"format must be one of {', '.join(FORMATS)}, digits:N or a ^regex$, not {fmt!r}")
        if raw["type"] != "string":
            raise _problem(where, "a format applies to string fields only")
        try:
            FieldSpec(name, raw["type"], fmt).pattern
        except re.error as exc:
            raise _problem(where, f"format is not a regular expression: {exc}") from None
    return FieldSpec(name, raw["type"], fmt, bool(raw.get("optional", False)))


def _mapping(where: str, key: str, raw: Any) -> dict[str, Any]:
    if raw is None:
        return {}
    if not isinstance(raw, Mapping):
        raise _problem(where, f"{key} must be a mapping, not {type(raw).__name__}")
    return dict(raw)


def _sources(where: str, raw: Any) -> tuple[str, ...]:
    if not isinstance(raw, list) or not raw or not all(isinstance(s, str) and s.strip() for s in raw):
        raise _problem(where, "sources must be a non-empty list of citations")
    return tuple(raw)


def parse_platform(module: str, document: Any) -> PlatformSpec:
    """One platform's spec from its parsed YAML; SimError naming the file and key on anything malformed."""
    where = f"{module}.yaml"
    if not isinstance(document, Mapping):
        raise _problem(where, "the file must hold a mapping")
    unknown = sorted(set(document) - {"platform", "sources", "envelope", "paging", "codes", "empty", "endpoints"})
    if unknown:
        raise _problem(where, f"unknown key {unknown[0]!r}")
    platform = document.get("platform")
    if not isinstance(platform, str):
        raise _problem(where, "platform must be a platform id")
    envelope, paging, codes, raw_endpoints = (
        _mapping(where, key, document.get(key)) for key in ("envelope", "paging", "codes", "endpoints")
    )
    extra_empty = document.get("empty") or []
    if not isinstance(extra_empty, list) or not all(isinstance(v, str) for v in extra_empty):
        raise _problem(where, "empty must be a list of strings")
    empty = _EMPTY + tuple(extra_empty)
    endpoints = []
    for tool, raw in raw_endpoints.items():
        at = f"{where} endpoints.{tool}"
        if not isinstance(raw, Mapping) or not isinstance(raw.get("fields"), Mapping) or not raw["fields"]:
            raise _problem(at, "an endpoint has a route, sources and a mapping of fields")
        unknown = sorted(set(raw) - {"route", "sources", "fields", "envelope", "paging"})
        if unknown:
            raise _problem(at, f"unknown key {unknown[0]!r}")
        route = str(raw.get("route", ""))
        own = {key: _mapping(at, key, raw.get(key)) for key in ("envelope", "paging")}
        if not all(isinstance(v, str) or v is None for v in {**envelope, **own["envelope"]}.values()):
            raise _problem(at, "envelope paths must be strings (or null to drop a role)")
        fields = tuple(_field(f"{at}.fields.{name}", str(name), spec) for name, spec in raw["fields"].items())
        # an endpoint's own envelope replaces the platform's role by role; null drops a role
        own_envelope = {
            k: v.replace("{route}", route) for k, v in {**envelope, **own["envelope"]}.items() if v is not None
        }
        endpoints.append(
            EndpointSpec(
                tool,
                platform,
                route,
                _sources(f"{at}.sources", raw.get("sources")),
                fields,
                own_envelope,
                {**paging, **own["paging"]},
                empty,
            )
        )
    return PlatformSpec(
        module,
        platform,
        _sources(f"{where} sources", document.get("sources")),
        envelope,
        paging,
        {str(k): str(v) for k, v in codes.items()},
        tuple(endpoints),
    )


@lru_cache(maxsize=1)
def load_specs() -> tuple[PlatformSpec, ...]:
    """Every platform spec shipped with the package, in file-name order."""
    files = sorted((f for f in resources.files(__name__).iterdir() if f.name.endswith(".yaml")), key=lambda f: f.name)
    specs = []
    for entry in files:
        try:
            document = load_yaml(entry.read_text(encoding="utf-8"))
        except yaml.YAMLError as exc:
            raise _problem(entry.name, f"not YAML: {exc}") from None
        specs.append(parse_platform(entry.name[:-5], document))
    return tuple(specs)


def endpoint_specs() -> dict[str, EndpointSpec]:
    """Tool name → its endpoint spec, across all platforms."""
    return {ep.tool: ep for platform in load_specs() for ep in platform.endpoints}


# -- the contract ----------------------------------------------------------------------------------
def value_problem(spec: FieldSpec, value: Any, empty: tuple[Any, ...] = _EMPTY) -> str | None:
    """Why ``value`` breaks the field's spec, or None; ``empty`` are the values that mean "none"."""
    if value in empty or (isinstance(value, str) and not value.strip()):
        return None if spec.optional else f"{spec.name} is empty ({value!r}) but not optional"
    if spec.type == "string":
        if not isinstance(value, str):
            return f"{spec.name} should be a string, not {type(value).__name__} {value!r}"
        pattern = spec.pattern
        if pattern is not None and (not pattern.search(value) or (spec.format == "ymd" and parse_ymd(value) is None)):
            return f"{spec.name} {value!r} is not {spec.format}"
        return None
    if spec.type in ("array", "object"):
        expected = list if spec.type == "array" else dict
        return None if isinstance(value, expected) else f"{spec.name} should be {spec.type}, not {value!r}"
    if (
        isinstance(value, bool)
        or not isinstance(value, (int, float))
        or (spec.type == "integer" and isinstance(value, float) and not value.is_integer())
    ):
        return f"{spec.name} should be {spec.type}, not {type(value).__name__} {value!r}"
    return None


def record_problems(spec: EndpointSpec, record: Mapping[str, Any]) -> list[str]:
    """Every way one response record breaks its endpoint's spec (missing, unknown, mistyped fields)."""
    problems = [f"{spec.tool}: unknown field {name}" for name in record if spec.field(name) is None]
    for field in spec.fields:
        if field.name not in record:
            if not field.optional:
                problems.append(f"{spec.tool}: missing field {field.name}")
            continue
        problem = value_problem(field, record[field.name], spec.empty)
        if problem:
            problems.append(f"{spec.tool}: {problem}")
    return problems
