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
from kopa_replay.sim.spec import (
    FORMATS,
    EndpointSpec,
    FieldSpec,
    endpoint_specs,
    load_specs,
    parse_platform,
    record_problems,
    value_problem,
)

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


def _all_pages(tool, args, client, limit=4000):
    """Every record of a call, page after page (up to ``limit``): rows past the first page break specs too."""
    pagination = tool.http.pagination
    first = execute(tool, args, client, "sim-key")
    records, page, size = list(first.records), 2, len(first.records) or 1
    while pagination.style != "none" and first.total_count and len(records) < min(first.total_count, limit):
        if pagination.style == "page":
            window = {pagination.page_param: page, pagination.size_param: size}
        else:
            start = int(args.get(pagination.start_param, 1)) + (page - 1) * size
            window = {pagination.start_param: start, pagination.end_param: start + size - 1}
        more = execute(tool, {**args, **window}, client, "sim-key").records
        if not more:
            break
        records, page = records + more, page + 1
    return records


def test_every_built_in_endpoint_has_a_spec_with_sources(catalog):
    assert {p.module for p in load_specs()} == set(PLATFORM_MODULES) - {"generated"}
    assert set(SPECS) == set(catalog.names)
    for name in catalog.names:
        spec, endpoint = SPECS[name], registry().endpoint_for_tool(name)
        assert (spec.platform, spec.route) == (endpoint.platform, endpoint.route), name
        assert spec.sources and all(len(s) > 20 for s in spec.sources), name
        # a source names this endpoint's own operation, not only the platform
        assert (
            any(spec.route.strip("/").split("/")[-1].split("?")[0] in s for s in spec.sources) or len(spec.sources) > 1
        ), (name, spec.sources)
    assert len({spec.sources for spec in SPECS.values()}) == len(SPECS)


@pytest.mark.slow
def test_every_simulated_response_carries_exactly_the_spec_fields(catalog):
    """First pages at seeds 0–4; at seed 0 every page of every example, and OpenDART's per-company
    reports over 150 companies (the examples name one company, its rows are not all there is)."""
    problems, answered = [], set()
    for tool, spec, _, records in _responses(catalog, seeds=range(1, 5)):
        if records:
            answered.add(tool.name)
        for record in records:
            problems += record_problems(spec, record)
    simulator = Simulator(seed=0)
    with httpx.Client(transport=SimTransport(simulator)) as client:
        for tool in catalog:
            for args in tool.examples:
                records = _all_pages(tool, dict(args), client)
                answered.update([tool.name] if records else [])
                problems += [p for record in records for p in record_problems(SPECS[tool.name], record)]
            if tool.platform == "dart" and "corp_code" in tool.params and tool.name != "dart_list":
                for company in simulator.world.finance.companies[:150]:
                    for record in execute(
                        tool, {**tool.examples[0], "corp_code": company.corp_code}, client, "sim-key"
                    ).records:
                        problems += record_problems(SPECS[tool.name], record)
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
            assert spec.envelope.get(role) == (getattr(envelope, role)[0] if getattr(envelope, role) else None), (
                tool.name,
                role,
            )
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
    """The simulator caps a page where the spec does (or not at all); asking for the cap is answered, one row
    more is refused as a structural error or cut to the cap."""
    with httpx.Client(transport=SimTransport(Simulator(seed=0))) as client:
        for tool in catalog:
            cap, pagination = SPECS[tool.name].paging.get("max"), tool.http.pagination
            protocol = registry().endpoint_for_tool(tool.name).protocol
            enforced = SPECS[tool.name].paging.get("enforced", True)
            if pagination.style != "none":
                assert getattr(protocol, "max_size", getattr(protocol, "max_page_count", None)) == (
                    cap if enforced else None
                ), tool.name
            if cap is None or pagination.style == "none":
                continue
            for size in (cap, cap + 1):
                if pagination.style == "range":
                    window = {pagination.start_param: 1, pagination.end_param: size}
                else:
                    window = {pagination.size_param: size}
                result = execute(tool, {**tool.examples[0], **window}, client, "sim-key")
                if size == cap or not enforced:
                    assert result.outcome == "ok", (tool.name, size, result.code)
                else:
                    assert result.outcome == "structural_error" or 0 < len(result.records) <= cap, (
                        tool.name,
                        size,
                        result.outcome,
                        len(result.records),
                    )


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


def test_a_platform_may_say_none_its_own_way():
    spec = EndpointSpec(
        "t", "p", "/r", ("a test",), (FieldSpec("a", "string", "comma_int", True),), {}, {}, (None, "", " ", "-")
    )
    assert record_problems(spec, {"a": "-"}) == [] and record_problems(spec, {"a": "1,000"}) == []
    assert record_problems(spec, {"a": "n/a"}) == ["t: a 'n/a' is not comma_int"]
    assert value_problem(FieldSpec("a", "string", "comma_int", True), "-") == "a '-' is not comma_int"


def test_the_checker_names_missing_unknown_empty_and_mistyped_fields():
    spec = _spec(a=FieldSpec("a", "string", "ymd"), b=FieldSpec("b", "integer"), c=FieldSpec("c", "string", None, True))
    assert record_problems(spec, {"a": "20260901", "b": 3}) == []
    assert record_problems(spec, {"a": "20260901", "b": 3, "c": " "}) == []
    problems = record_problems(spec, {"a": "20260230", "b": "3", "x": 1})
    assert problems == ["t: unknown field x", "t: a '20260230' is not ymd", "t: b should be integer, not str '3'"]
    assert record_problems(spec, {"b": 1}) == ["t: missing field a"]
    assert record_problems(spec, {"a": "", "b": 1.5}) == [
        "t: a is empty ('') but not optional",
        "t: b should be integer, not float 1.5",
    ]
    assert value_problem(FieldSpec("m", "string", "comma_int"), "   229,200") is None
    assert value_problem(FieldSpec("m", "string", "decimal"), ".11") is None
    assert set(FORMATS) >= {"ymd", "ym", "int", "decimal", "comma_int", "yn"}


@pytest.mark.parametrize(
    "document,message",
    [
        ([], "must hold a mapping"),
        (
            {
                "platform": "p",
                "sources": ["x"],
                "endpoints": {"t": {"fields": {"a": {"type": "text"}}, "sources": ["s"]}},
            },
            "endpoints.t.fields.a: type must be one of",
        ),
        (
            {
                "platform": "p",
                "sources": ["x"],
                "endpoints": {"t": {"fields": {"a": {"type": "integer", "format": "ymd"}}, "sources": ["s"]}},
            },
            "string fields only",
        ),
        (
            {
                "platform": "p",
                "sources": ["x"],
                "endpoints": {"t": {"fields": {"a": {"type": "string", "format": "ymdd"}}, "sources": ["s"]}},
            },
            "format must be one of",
        ),
        (
            {"platform": "p", "sources": ["x"], "endpoints": {"t": {"fields": {"a": {"type": "string"}}}}},
            "endpoints.t.sources: sources must be",
        ),
        ({"platform": "p", "endpoints": {}}, "x.yaml sources: sources must be"),
        ({"platform": "p", "sources": ["x"], "extra": 1}, "unknown key 'extra'"),
        ({"platform": "p", "sources": ["x"], "endpoints": ["t"]}, "endpoints must be a mapping, not list"),
        ({"platform": "p", "sources": ["x"], "codes": ["000"]}, "codes must be a mapping"),
        ({"platform": "p", "sources": ["x"], "empty": "-"}, "empty must be a list of strings"),
        (
            {
                "platform": "p",
                "sources": ["x"],
                "endpoints": {"t": {"fields": {"a": {"type": "string"}}, "sources": ["s"], "envelope": ["records"]}},
            },
            "envelope must be a mapping",
        ),
        (
            {
                "platform": "p",
                "sources": ["x"],
                "envelope": {"records": 3},
                "endpoints": {"t": {"fields": {"a": {"type": "string"}}, "sources": ["s"]}},
            },
            "envelope paths must be strings",
        ),
    ],
)
def test_malformed_spec_files_are_errors_that_name_the_place(document, message):
    with pytest.raises(SimError, match=message.replace("(", r"\(").replace(".", r"\.")):
        parse_platform("x", document)
