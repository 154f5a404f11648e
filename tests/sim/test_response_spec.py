"""The published response specs (kopa_replay/sim/spec/*.yaml) against the simulator and the catalog.

Every simulated endpoint has a spec with sources; every simulated response carries exactly the
spec's fields with its types and formats, inside the spec's envelope; the catalog an agent reads
agrees with the spec field for field, and so do paging caps and result codes.
"""

from __future__ import annotations

import datetime as dt

import httpx
import pytest
from hypothesis import given
from hypothesis import strategies as st

from kopa_replay.env import build_request, execute
from kopa_replay.env.parse import extract, lookup, parse_body
from kopa_replay.errors import SimError
from kopa_replay.sim import SimTransport, Simulator
from kopa_replay.sim.registry import PLATFORM_MODULES, registry
from kopa_replay.sim.spec import (FORMATS, EndpointSpec, FieldSpec, endpoint_specs, load_specs, parse_platform,
                                  record_problems, value_problem)

SPECS = endpoint_specs()


def _responses(catalog, seeds=(0, 1)):
    """(tool, spec, parsed body, records) for every catalog example at each seed."""
    for seed in seeds:
        with httpx.Client(transport=SimTransport(Simulator(seed=seed))) as client:
            for tool in catalog:
                for args in tool.examples:
                    method, url, headers, _ = build_request(tool, args, "sim-key")
                    body = parse_body(client.request(method, url, headers=headers).content, tool.http.zip_member)
                    yield tool, SPECS[tool.name], body, extract(tool, body).records


def test_every_built_in_endpoint_has_a_spec_with_sources(catalog):
    assert {p.module for p in load_specs()} == set(PLATFORM_MODULES) - {"generated"}
    assert set(SPECS) == set(catalog.names)
    for name in catalog.names:
        spec, endpoint = SPECS[name], registry().endpoint_for_tool(name)
        assert (spec.platform, spec.route) == (endpoint.platform, endpoint.route), name
        assert spec.sources and all(len(s) > 20 for s in spec.sources), name


def test_every_simulated_response_carries_exactly_the_spec_fields(catalog):
    problems, answered = [], set()
    for tool, spec, _, records in _responses(catalog, seeds=range(5)):
        if records:
            answered.add(tool.name)
        for record in records[:200]:
            problems += record_problems(spec, record)
    assert sorted(set(problems))[:20] == []
    assert answered == set(catalog.names)


def test_every_response_sits_in_the_spec_envelope(catalog):
    for tool, spec, body, records in _responses(catalog, seeds=(0,)):
        assert records, tool.name
        for role in ("records", "total", "code"):
            if role in spec.envelope:
                path = spec.envelope[role]
                assert path == "." or lookup(body, path) is not None, (tool.name, role, path)


def test_the_catalog_output_schema_agrees_with_the_spec(catalog):
    for tool in catalog:
        spec = SPECS[tool.name]
        assert set(tool.output_fields) == set(spec.names), (tool.name, set(tool.output_fields) ^ set(spec.names))
        for field in spec.fields:
            schema = tool.output_field_schema(field.name)
            types = schema.get("type")
            types = [types] if isinstance(types, str) else list(types)
            assert field.type in types, (tool.name, field.name, types, field.type)
            if "null" in types or schema.get("nullable"):
                assert field.optional, (tool.name, field.name, "nullable in the catalog, required in the spec")
        envelope = tool.http.envelope
        assert spec.envelope["records"] == envelope.records[0], tool.name
        for role in ("total", "code"):
            assert spec.envelope.get(role) == (getattr(envelope, role)[0] if getattr(envelope, role) else None), \
                (tool.name, role)
        assert spec.paging.get("max") == tool.http.pagination.max_size, tool.name


def test_result_codes_are_the_catalogs_and_every_code_the_simulator_sends_is_documented(catalog):
    for platform in load_specs():
        for endpoint in platform.endpoints:
            assert set(platform.codes) == set(map(str, catalog.get(endpoint.tool).http.result_codes)), endpoint.tool
    for tool, spec, body, _ in _responses(catalog, seeds=(0,)):
        platform = next(p for p in load_specs() if p.platform == spec.platform and spec in p.endpoints)
        code = extract(tool, body).code
        assert code is None or code in platform.codes, (tool.name, code)


def test_paging_caps_hold_in_the_simulator(catalog):
    """Asking for the spec's cap is answered; one row more is refused as a structural error or cut to the cap."""
    with httpx.Client(transport=SimTransport(Simulator(seed=0))) as client:
        for tool in catalog:
            cap, pagination = SPECS[tool.name].paging.get("max"), tool.http.pagination
            if cap is None or pagination.style == "none":
                continue
            for size in (cap, cap + 1):
                if pagination.style == "range":
                    window = {pagination.start_param: 1, pagination.end_param: size}
                else:
                    window = {pagination.size_param: size}
                result = execute(tool, {**tool.examples[0], **window}, client, "sim-key")
                if size == cap:
                    assert result.outcome == "ok", (tool.name, size, result.code)
                else:
                    assert result.outcome == "structural_error" or 0 < len(result.records) <= cap, \
                        (tool.name, size, result.outcome, len(result.records))


# -- the checker itself ------------------------------------------------------------------------------
def _spec(**fields: FieldSpec) -> EndpointSpec:
    return EndpointSpec("t", "p", "/r", ("a test",), tuple(fields.values()), {}, {})


@given(st.dates(min_value=dt.date(1000, 1, 1)), st.sampled_from(["ymd", "digits:8"]))
def test_a_day_matches_ymd_and_eight_digits(day, fmt):
    assert value_problem(FieldSpec("d", "string", fmt), day.strftime("%Y%m%d")) is None


@given(st.integers(1000, 9999), st.integers(1, 12), st.integers(29, 39))
def test_a_day_past_the_month_end_breaks_ymd(year, month, day):
    text = f"{year:04d}{month:02d}{day:02d}"
    try:
        dt.date(year, month, day)
    except ValueError:
        assert value_problem(FieldSpec("d", "string", "ymd"), text) == f"d {text!r} is not ymd"


@given(st.text(min_size=1).filter(lambda t: not t.isdigit() and t.strip()))
def test_non_digit_text_breaks_a_digit_format(text):
    assert value_problem(FieldSpec("n", "string", "digits:5"), text) is not None


def test_the_checker_names_missing_unknown_empty_and_mistyped_fields():
    spec = _spec(a=FieldSpec("a", "string", "ymd"), b=FieldSpec("b", "integer"), c=FieldSpec("c", "string", None, True))
    assert record_problems(spec, {"a": "20260901", "b": 3}) == []
    assert record_problems(spec, {"a": "20260901", "b": 3, "c": " "}) == []
    problems = record_problems(spec, {"a": "20260230", "b": "3", "x": 1})
    assert problems == ["t: unknown field x", "t: a '20260230' is not ymd", "t: b should be integer, not str '3'"]
    assert record_problems(spec, {"b": 1}) == ["t: missing field a"]
    assert record_problems(spec, {"a": "", "b": 1.5}) == ["t: a is empty ('') but not optional",
                                                         "t: b should be integer, not float 1.5"]
    assert value_problem(FieldSpec("m", "string", "comma_int"), "   229,200") is None
    assert value_problem(FieldSpec("m", "string", "decimal"), ".11") is None
    assert set(FORMATS) >= {"ymd", "ym", "int", "decimal", "comma_int", "yn"}


@pytest.mark.parametrize("document,message", [
    ([], "must hold a mapping"),
    ({"platform": "p", "sources": ["x"], "endpoints": {"t": {"fields": {"a": {"type": "text"}}, "sources": ["s"]}}},
     "endpoints.t.fields.a: type must be one of"),
    ({"platform": "p", "sources": ["x"], "endpoints": {"t": {"fields": {"a": {"type": "integer", "format": "ymd"}},
                                                             "sources": ["s"]}}}, "string fields only"),
    ({"platform": "p", "sources": ["x"], "endpoints": {"t": {"fields": {"a": {"type": "string", "format": "ymdd"}},
                                                             "sources": ["s"]}}}, "format must be one of"),
    ({"platform": "p", "sources": ["x"], "endpoints": {"t": {"fields": {"a": {"type": "string"}}}}},
     "endpoints.t.sources: sources must be"),
    ({"platform": "p", "endpoints": {}}, "x.yaml sources: sources must be"),
    ({"platform": "p", "sources": ["x"], "extra": 1}, "unknown key 'extra'"),
])
def test_malformed_spec_files_are_errors_that_name_the_place(document, message):
    with pytest.raises(SimError, match=message.replace("(", r"\(").replace(".", r"\.")):
        parse_platform("x", document)
