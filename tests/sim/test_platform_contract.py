"""What every simulated platform owes the rest of the project, checked across the whole built-in catalog."""

from __future__ import annotations

import datetime as dt

import httpx
import numpy as np
import pytest

from kopa_replay.env import build_request, execute
from kopa_replay.env.call import classify
from kopa_replay.env.parse import extract, parse_body
from kopa_replay.errors import UsageError
from kopa_replay.sim import SimRequest, SimTransport, Simulator
from kopa_replay.sim.core import Context, ErrorKind, serialize
from kopa_replay.sim.registry import registry
from kopa_replay.sim.timeline import HISTORY, TIMELINE, ActiveDrift
from kopa_replay.sim.truth import DOMAINS, binding_executes, true_bindings

DOMAINS_REQUIRED = {"finance", "traffic", "education", "law", "politics", "district"}


def test_ten_platforms_six_domains_at_least_80_tools(catalog):
    assert len(catalog) >= 80
    assert len(catalog.platforms) == 10
    assert set(catalog.domains) == DOMAINS_REQUIRED


def test_every_tool_has_an_endpoint_on_its_real_host(catalog):
    for tool in catalog:
        endpoint = registry().endpoint_for_tool(tool.name)
        assert endpoint is not None, f"{tool.name} has no simulated endpoint"
        assert endpoint.host == tool.http.host, tool.name
        assert endpoint.platform == tool.platform, tool.name


def test_ground_truth_domains_name_real_fields_and_parameters(catalog):
    for tool in catalog:
        endpoint = registry().endpoint_for_tool(tool.name)
        assert set(endpoint.outputs) <= set(tool.output_fields), (
            tool.name,
            set(endpoint.outputs) - set(tool.output_fields),
        )
        assert set(endpoint.inputs) <= set(tool.params), (tool.name, set(endpoint.inputs) - set(tool.params))
        assert set(endpoint.outputs.values()) | set(endpoint.inputs.values()) <= set(DOMAINS), tool.name


def test_every_example_call_returns_records(catalog, client):
    failures = []
    for tool in catalog:
        assert tool.examples, f"{tool.name} has no example"
        for args in tool.examples:
            result = execute(tool, args, client, "sim-key")
            if result.outcome != "ok" or not result.records:
                failures.append((tool.name, args, result.outcome, result.code, result.message))
    assert not failures, failures


_EXPECTED = {
    ErrorKind.INVALID_KEY: "environmental_error",
    ErrorKind.RATE_LIMIT: "environmental_error",
    ErrorKind.MAINTENANCE: "environmental_error",
    ErrorKind.SERVER_ERROR: "environmental_error",
    ErrorKind.MISSING_PARAM: "structural_error",
    ErrorKind.BAD_PARAM: "structural_error",
    ErrorKind.NOT_FOUND: "structural_error",
    ErrorKind.NO_DATA: "empty",
}


@pytest.mark.parametrize("kind", sorted(_EXPECTED))
def test_every_error_the_platform_can_send_is_classified_by_the_catalog(catalog, kind):
    wrong = []
    for tool in catalog:
        endpoint = registry().endpoint_for_tool(tool.name)
        method, url, headers, _ = build_request(tool, tool.examples[0], "sim-key")
        request = SimRequest.from_url(method, url, headers)
        _, path_params = endpoint.protocol.route(request)
        ctx = Context(
            request,
            endpoint,
            path_params,
            endpoint.protocol.wants_xml(request, endpoint, path_params),
            ActiveDrift(None, ()),
        )
        response = serialize(endpoint.protocol.error(ctx, kind))
        parsed = (
            extract(tool, parse_body(response.body, tool.http.zip_member))
            if response.body[:1] in (b"{", b"<", b"[", b"P")
            else None
        )
        outcome = classify(tool, response.status, parsed.code if parsed else None, bool(parsed and parsed.records))
        if outcome != _EXPECTED[kind]:
            wrong.append((tool.name, response.status, parsed.code if parsed else None, outcome))
    assert not wrong, wrong


def test_drift_events_name_real_tools_and_fields(catalog):
    """The catalog describes the platforms at 2026-09-01: after the historical renames, before the window's events."""
    for event in TIMELINE:
        tool = catalog.get(event.tool)
        assert tool.platform == event.platform
        if event in HISTORY:
            assert event.date < dt.date(2026, 9, 1) and event.kind == "field_renamed"
            assert event.detail["to"] in tool.output_fields and event.field not in tool.output_fields, event
        elif event.kind in ("field_renamed", "field_removed", "type_changed", "became_nullable"):
            assert event.field in tool.output_fields, (event.tool, event.field)
        if event.kind == "field_added":
            assert event.field not in tool.output_fields


def test_every_drift_event_changes_what_its_tool_answers(catalog):
    clients: dict[dt.date, httpx.Client] = {}

    def answer(as_of: dt.date, method, url, headers) -> bytes:
        if as_of not in clients:
            clients[as_of] = httpx.Client(transport=SimTransport(Simulator(seed=0, as_of=as_of)))
        return clients[as_of].request(method, url, headers=headers).content

    for event in TIMELINE:
        tool = catalog.get(event.tool)
        args = dict(tool.examples[0])
        if event.kind == "page_size_cap_changed" and tool.http.pagination.style == "range":
            args.update({tool.http.pagination.start_param: 1, tool.http.pagination.end_param: 800})
        if event in HISTORY:  # ask for a day both sides of the change hold
            day = (event.date - dt.timedelta(days=2)).strftime("%Y%m%d")
            args.update({name: day for name in tool.required if name.endswith("YMD")})
        method, url, headers, _ = build_request(tool, args, "sim-key")
        before = answer(event.date - dt.timedelta(days=1), method, url, headers)
        after = answer(event.date if event in HISTORY else dt.date(2026, 12, 1), method, url, headers)
        assert before != after, f"{event.tool}: {event.kind} of {event.field} not visible from {event.date}"


def test_same_seed_same_bytes_other_seed_other_world(catalog):
    def bodies(seed):
        client = httpx.Client(transport=SimTransport(Simulator(seed=seed)))
        out = {}
        for tool in catalog:
            method, url, headers, _ = build_request(tool, tool.examples[0], "sim-key")
            out[tool.name] = client.request(method, url, headers=headers).content
        return out

    first, again, other = bodies(0), bodies(0), bodies(1)
    assert first == again
    changed = sum(first[name] != other[name] for name in first)
    assert changed / len(first) > 0.5, f"only {changed} of {len(first)} tools answer differently under seed 1"


def test_ground_truth_agrees_with_execution(catalog, client):
    """Bindings the truth calls executable execute; a sample of those it calls broken fail.

    A binding is run the way a pruner would: the source tool's example call,
    its first value of the field, put into the target's example call.
    Disagreements remain where a target needs several arguments to agree
    (a school code from another education office), so the bar is not 100%.
    """
    examples = {t.name: execute(t, t.examples[0], client, "sim-key") for t in catalog}

    def runs(source, field, target, param):
        values = [r.get(field) for r in examples[source].records if str(r.get(field) or "").strip()]
        if not values:
            return None
        tool = catalog.get(target)
        try:
            return execute(tool, {**tool.examples[0], param: values[0]}, client, "sim-key").outcome == "ok"
        except UsageError:
            return False

    truth = sorted(true_bindings(catalog.names))
    assert len(truth) > 500
    decided = [o for o in (runs(*b) for b in truth) if o is not None]
    assert sum(decided) / len(decided) >= 0.9

    outputs = sorted((t.name, f) for t in catalog for f in registry().endpoint_for_tool(t.name).outputs)
    inputs = sorted((t.name, p) for t in catalog for p in registry().endpoint_for_tool(t.name).inputs)
    rng = np.random.default_rng(0)
    broken = []
    while len(broken) < 300:
        (source, field), (target, param) = outputs[rng.integers(len(outputs))], inputs[rng.integers(len(inputs))]
        if source != target and not binding_executes(source, field, target, param):
            broken.append((source, field, target, param))
    decided = [o for o in (runs(*b) for b in broken) if o is not None]
    assert sum(decided) / len(decided) <= 0.05


# (source, field, target, parameter, executes): one binding per kind of value the date, range and
# substring domains tell apart, run as test_ground_truth_agrees_with_execution runs them.
_DOMAIN_CASES = [
    # a historical date opens a range or a DART window, but no daily series holds it
    ("neis_school_info", "FOND_YMD", "neis_school_schedule", "AA_FROM_YMD", True),
    ("neis_school_info", "FOND_YMD", "dart_piic_decsn", "bgn_de", True),
    ("neis_school_info", "FOND_YMD", "seoul_card_subway_stats_new", "USE_YMD", False),
    # a recent day opens a range, but comes after a company's decisions
    ("seoul_card_subway_stats_new", "USE_YMD", "datagokr_get_stock_price_info", "beginBasDt", True),
    ("seoul_card_subway_stats_new", "USE_YMD", "dart_piic_decsn", "bgn_de", False),
    # a date of the last decade does both, but is no school day of this term
    ("law_get_prec", "선고일자", "seoul_card_subway_stats_new", "USE_YMD", True),
    ("law_get_prec", "선고일자", "dart_piic_decsn", "bgn_de", True),
    ("law_get_prec", "선고일자", "neis_els_timetable", "ALL_TI_YMD", False),
    ("krx_stk_bydd_trd", "BAS_DD", "neis_els_timetable", "ALL_TI_YMD", True),
    # substring searches find shorter names and codes; exact parameters do not
    ("datagokr_get_item_info", "corpNm", "datagokr_get_corp_outline_v2", "corpNm", True),
    ("dart_company", "corp_name", "datagokr_get_corp_outline_v2", "corpNm", True),
    ("dart_company", "corp_name", "datagokr_get_item_info", "corpNm", False),
    ("gg_gen_anmal_hosptl", "SIGUN_NM", "datagokr_get_stan_regin_cd_list", "locatadd_nm", True),
    ("krx_stk_bydd_trd", "ISU_CD", "datagokr_get_item_info", "likeIsinCd", True),
    # a 경기 시군 code is a 시군구 code, but Seoul-only rent data has none of them
    ("gg_gen_anmal_hosptl", "SIGUN_CD", "datagokr_get_rtms_data_svc_apt_trade", "LAWD_CD", True),
    ("gg_gen_anmal_hosptl", "SIGUN_CD", "seoul_tb_ln_opendata_rent_v", "CGG_CD", False),
    ("law_search_prec", "판례일련번호", "law_get_prec", "ID", True),
]


@pytest.mark.parametrize("source,field,target,param,executes", _DOMAIN_CASES)
def test_domains_tell_apart_what_parameters_answer(catalog, client, source, field, target, param, executes):
    src, tgt = catalog.get(source), catalog.get(target)
    value = next(
        r[field] for r in execute(src, src.examples[0], client, "sim-key").records if str(r.get(field) or "").strip()
    )
    outcome = execute(tgt, {**tgt.examples[0], param: value}, client, "sim-key").outcome
    assert binding_executes(source, field, target, param) is executes
    assert (outcome == "ok") is executes, (value, outcome)


@pytest.mark.parametrize(
    "binding, sound",
    [
        ({"SD_SCHUL_CODE": "SD_SCHUL_CODE"}, False),  # the example's education office beside another office's school
        ({"SD_SCHUL_CODE": "SD_SCHUL_CODE", "ATPT_OFCDC_SC_CODE": "ATPT_OFCDC_SC_CODE"}, True),
    ],
)
def test_a_link_that_leaves_a_scoping_parameter_behind_is_broken(catalog, binding, sound):
    """link_executes agrees with running the link the way the pruner does, over many source records."""
    from kopa_replay.env import ToolEnvironment
    from kopa_replay.sim.truth import link_executes

    assert link_executes("neis_school_info", binding, "neis_meal_service_diet_info") is sound
    target = catalog.get("neis_meal_service_diet_info")
    required = {k: v for k, v in target.examples[0].items() if k in target.required}
    with ToolEnvironment.open(catalog, source="sim") as env:
        schools = env.call("neis_school_info", {"pSize": 60}).records
        other = [r for r in schools if r["ATPT_OFCDC_SC_CODE"] != required.get("ATPT_OFCDC_SC_CODE")][:10]
        outcomes = [
            env.call(target.name, {**target.examples[0], **{p: r[f] for p, f in binding.items()}}).outcome
            for r in other
        ]
    assert len(outcomes) == 10
    assert (outcomes.count("ok") >= 8) if sound else (outcomes.count("ok") <= 2)
