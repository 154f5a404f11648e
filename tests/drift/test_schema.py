"""Schema inference: value kinds, envelope shape, record statistics, pagination evidence, result codes."""

from __future__ import annotations

import io
import json
import zipfile

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kopa_replay.drift.schema import (
    HTTP_STATUS_PATH,
    STRING_FORMATS,
    CodeStat,
    PageEvidence,
    RecordedResponse,
    infer_schemas,
    infer_tool_schema,
    sniff_format,
    string_format,
    value_type,
)
from kopa_replay.env import build_request
from kopa_replay.sim import DEFAULT_KEY, SimTransport, Simulator
from kopa_replay.stages.probes import probe_requests

ROUTES = "tago_get_route_no_list"  # data.go.kr envelope, pageNo/numOfRows
SUBWAY = "seoul_card_subway_stats_new"  # Seoul envelope, START/END in the path
COMPANY = "dart_company"  # the document is the record
KRX = "krx_stk_bydd_trd"  # no result code in the body


def recorded(catalog, tool_name: str, args: dict, body: bytes | dict, status: int = 200) -> RecordedResponse:
    """A response to ``tool_name(args)`` as the recorder would hand it over (redacted URL, raw bytes)."""
    method, _, _, redacted = build_request(catalog.get(tool_name), args, None)
    raw = json.dumps(body, ensure_ascii=False).encode() if isinstance(body, dict) else body
    return RecordedResponse(tool_name, method, redacted, status, "application/json", raw)


def datagokr(items, total: int, code: str = "00", page: int = 1, size: int = 10) -> dict:
    return {
        "response": {
            "header": {"resultCode": code, "resultMsg": "NORMAL SERVICE."},
            "body": {"items": items, "numOfRows": size, "pageNo": page, "totalCount": total},
        }
    }


def route(number: str, **extra) -> dict:
    return {"routeid": f"{number:0>8}", "routeno": number, "routetp": "간선버스", **extra}


# -- values ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("", "blank"),
        (" ", "blank"),
        ("20260901", "yyyymmdd"),
        ("202609", "yyyymm"),
        ("069540", "digits6"),
        ("00126380", "digits8"),
        ("20261301", "digits8"),
        ("1168010100", "digits10"),
        ("1680", "digits"),
        ("-1.23", "decimal"),
        ("1,234", "comma_number"),
        ("-12,345.5", "comma_number"),
        ("2026-09-01", "iso_date"),
        ("2026.09.01", "iso_date"),
        ("2026-09-01 08:30", "iso_date"),
        ("KR7069540008", "id"),
        ("PRC_E2G2O4M7", "id"),
        ("라이트론", "text"),
        ("LG", "text"),
        ("1,23", "text"),
    ],
)
def test_string_format_names_the_kind_of_value(text, expected):
    assert string_format(text) == expected


@given(st.text(max_size=30))
def test_string_format_stays_in_its_vocabulary(text):
    assert string_format(text) in STRING_FORMATS


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (None, "null"),
        (True, "boolean"),
        (3, "integer"),
        (3.5, "number"),
        ("3", "string"),
        ({}, "object"),
        ([], "array"),
    ],
)
def test_value_type_is_the_json_type(value, expected):
    assert value_type(value) == expected


def test_sniff_format_reads_the_bytes_not_the_content_type():
    archive = io.BytesIO()
    with zipfile.ZipFile(archive, "w") as zf:
        zf.writestr("CORPCODE.xml", "<result/>")
    assert sniff_format(b' {"a": 1}') == "json"
    assert sniff_format(b"\xef\xbb\xbf<?xml version='1.0'?><a/>") == "xml"
    assert sniff_format(archive.getvalue()) == "zip-xml"
    assert sniff_format(b"<!DOCTYPE html><html><body>502</body></html>") == "html"
    assert sniff_format(b"Service Unavailable") == "other"


# -- records and envelope ------------------------------------------------------


def test_record_quirks_are_normalized_and_an_empty_page_has_the_full_shape(catalog):
    tool = catalog.get(ROUTES)
    full = recorded(catalog, ROUTES, {"cityCode": 12}, datagokr({"item": [route("1"), route("2")]}, 2))
    single = recorded(catalog, ROUTES, {"cityCode": 12, "routeNo": "1"}, datagokr({"item": route("1")}, 1))
    empty = recorded(catalog, ROUTES, {"cityCode": 12, "routeNo": "999"}, datagokr("", 0))
    schema = infer_tool_schema(tool, [full, single, empty])
    assert schema.records == 2  # the single item repeats a record of the full page: counted once
    assert schema.field_names == ("routeid", "routeno", "routetp")
    assert infer_tool_schema(tool, [empty]).envelope == infer_tool_schema(tool, [full]).envelope
    assert "response.body.items.item" in schema.envelope
    assert not any(path.startswith("response.body.items.item.") for path in schema.envelope)
    assert schema.formats == (("json", 3),) and schema.answers == 3


def test_field_statistics_count_presence_nulls_types_and_formats(catalog):
    records = [route("1", endnodenm=None), route("2", endnodenm="세종청사"), route("3"), route("N40")]
    schema = infer_tool_schema(
        catalog.get(ROUTES), [recorded(catalog, ROUTES, {"cityCode": 12}, datagokr({"item": records}, 4))]
    )
    end = schema.field_stats("endnodenm")
    assert (end.present, end.nulls, dict(end.types)) == (2, 1, {"null": 1, "string": 1})
    assert schema.presence("endnodenm") == 0.5 and schema.null_ratio("endnodenm") == 0.5
    assert dict(schema.field_stats("routeno").formats) == {"digits": 3, "id": 1}
    assert dict(schema.field_stats("routeid").formats) == {"digits8": 3, "id": 1}
    assert schema.field_stats("routeno").profile == (frozenset({"string"}), frozenset({"numeric", "text"}))


def test_a_record_document_has_only_its_status_keys_as_envelope(catalog):
    body = {"status": "000", "message": "정상", "corp_code": "00439743", "corp_name": "라이트론", "ir_url": ""}
    schema = infer_tool_schema(catalog.get(COMPANY), [recorded(catalog, COMPANY, {"corp_code": "00439743"}, body)])
    assert schema.envelope == ("message", "status")
    assert schema.field_names == ("corp_code", "corp_name", "ir_url")
    assert dict(schema.field_stats("ir_url").formats) == {"blank": 1}


def test_a_renamed_record_block_shows_in_the_envelope(catalog):
    rows = [{"BAS_DD": "20260831", "ISU_CD": "069540"}]
    before = infer_tool_schema(catalog.get(KRX), [recorded(catalog, KRX, {"basDd": "20260831"}, {"OutBlock_1": rows})])
    after = infer_tool_schema(catalog.get(KRX), [recorded(catalog, KRX, {"basDd": "20260831"}, {"OutBlock_2": rows})])
    assert before.envelope == ("OutBlock_1",) and before.records == 1
    assert after.envelope[0] == "OutBlock_2" and after.records == 0


# -- result codes --------------------------------------------------------------


def test_result_codes_are_read_at_the_envelope_code_path_and_classified(catalog):
    gateway = (
        b"<OpenAPI_ServiceResponse><cmmMsgHeader><errMsg>SERVICE ERROR</errMsg><returnAuthMsg>"
        b"SERVICE_KEY_IS_NOT_REGISTERED_ERROR</returnAuthMsg><returnReasonCode>30</returnReasonCode>"
        b"</cmmMsgHeader></OpenAPI_ServiceResponse>"
    )
    responses = [
        recorded(catalog, ROUTES, {"cityCode": 12}, datagokr({"item": route("1")}, 1)),
        recorded(catalog, ROUTES, {"cityCode": 13}, datagokr({"item": route("2")}, 1, code="0")),
        recorded(catalog, ROUTES, {"cityCode": 14}, gateway),
    ]
    schema = infer_tool_schema(catalog.get(ROUTES), responses)
    assert schema.result_codes == (
        CodeStat("resultCode", "0", "unknown", 1),
        CodeStat("resultCode", "00", "ok", 1),
        CodeStat("returnReasonCode", "30", "environmental", 1),
    )
    # The unknown code still carried records: the answer counts, the gateway error does not.
    assert schema.answers == 2 and schema.formats == (("json", 2),)


def test_the_http_status_stands_in_when_the_body_has_no_code(catalog):
    ok = recorded(catalog, KRX, {"basDd": "20260831"}, {"OutBlock_1": [{"BAS_DD": "20260831"}]})
    down = recorded(
        catalog, KRX, {"basDd": "20260831"}, b"<html><body><h1>502 Bad Gateway</h1></body></html>", status=502
    )
    schema = infer_tool_schema(catalog.get(KRX), [ok, down])
    assert schema.result_codes == (
        CodeStat(HTTP_STATUS_PATH, "200", "ok", 1),
        CodeStat(HTTP_STATUS_PATH, "502", "environmental", 1),
    )
    assert schema.formats == (("json", 1),) and schema.responses == 2


# -- pagination ----------------------------------------------------------------


def seoul_rows(count: int, total: int) -> dict:
    rows = [{"USE_YMD": "20260825", "SBWY_STNS_NM": f"역{i}", "GTON_TNOPE": i} for i in range(count)]
    return {
        "CardSubwayStatsNew": {
            "list_total_count": total,
            "RESULT": {"CODE": "INFO-000", "MESSAGE": "정상"},
            "row": rows,
        }
    }


def test_page_evidence_reads_start_and_end_from_the_path(catalog):
    too_big = {"RESULT": {"CODE": "ERROR-336", "MESSAGE": "데이터요청은 한번에 최대 500건을 넘을 수 없습니다."}}
    responses = [
        recorded(catalog, SUBWAY, {"USE_YMD": "20260825", "START": 1, "END": 100}, seoul_rows(100, 580)),
        recorded(catalog, SUBWAY, {"USE_YMD": "20260825", "START": 1, "END": 1000}, too_big),
    ]
    schema = infer_tool_schema(catalog.get(SUBWAY), responses)
    assert schema.pagination == PageEvidence("END", max_answered=100, max_probed=1000, size_error=True)
    assert infer_tool_schema(catalog.get(SUBWAY), responses[:1]).pagination.size_error is False


def test_page_evidence_sees_a_page_cut_short_in_silence(catalog):
    rows = [route(str(i)) for i in range(500)]
    capped = recorded(
        catalog, ROUTES, {"cityCode": 12, "numOfRows": 1000, "pageNo": 1}, datagokr({"item": rows}, 800, size=500)
    )
    whole = recorded(
        catalog, ROUTES, {"cityCode": 12, "numOfRows": 1000, "pageNo": 1}, datagokr({"item": rows}, 500, size=1000)
    )
    default = recorded(catalog, ROUTES, {"cityCode": 12}, datagokr({"item": rows[:10]}, 800))
    tool = catalog.get(ROUTES)
    assert infer_tool_schema(tool, [capped, default]).pagination == PageEvidence("numOfRows", 500, 1000, False)
    assert infer_tool_schema(tool, [whole, default]).pagination == PageEvidence("numOfRows", 1000, 1000, False)
    assert infer_tool_schema(tool, [default]).pagination == PageEvidence("numOfRows", 10, 10, False)
    assert infer_tool_schema(catalog.get(KRX), []).pagination is None


# -- grouping and order ----------------------------------------------------------


def test_infer_schemas_groups_by_tool_and_skips_tools_outside_the_catalog(catalog):
    responses = [
        recorded(catalog, ROUTES, {"cityCode": 12}, datagokr({"item": route("1")}, 1)),
        RecordedResponse("no_such_tool", "GET", "https://example.org/x", 200, "application/json", b"{}"),
    ]
    schemas = infer_schemas(catalog, responses)
    assert list(schemas) == [ROUTES] and schemas[ROUTES].responses == 1


@pytest.fixture(scope="module")
def sim_responses(catalog):
    """Real simulator answers to the probe workload of a few tools, one of each envelope family."""
    wanted = {ROUTES, SUBWAY, COMPANY, KRX, "neis_school_info", "datagokr_get_rtms_data_svc_apt_trade"}
    out = []
    with httpx.Client(transport=SimTransport(Simulator(seed=0, api_key=DEFAULT_KEY))) as client:
        for name, args in probe_requests(catalog):
            if name in wanted:
                method, url, headers, redacted = build_request(catalog.get(name), args, DEFAULT_KEY)
                response = client.request(method, url, headers=headers)
                out.append(
                    RecordedResponse(
                        name,
                        method,
                        redacted,
                        response.status_code,
                        response.headers.get("content-type", ""),
                        response.content,
                    )
                )
    return out


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_inference_does_not_depend_on_the_order_of_responses(catalog, sim_responses, data):
    shuffled = data.draw(st.permutations(sim_responses))
    expected = infer_schemas(catalog, sim_responses)
    got = infer_schemas(catalog, shuffled)
    assert got == expected
    assert [s.digest() for s in got.values()] == [s.digest() for s in expected.values()]


# -- records counted once, schemas kept per process ----------------------------------

_SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-3, 3),
    st.sampled_from([0.0, -0.0, 1.0, 2.5, float("nan")]),
    st.sampled_from(["", "1", "a"]),
)
_VALUES = st.one_of(_SCALARS, st.lists(_SCALARS, max_size=2), st.dictionaries(st.sampled_from("xy"), _SCALARS))


@settings(max_examples=200, deadline=None)
@given(st.lists(st.dictionaries(st.sampled_from(["a", "b", "c"]), _VALUES, max_size=3), max_size=12), st.randoms())
def test_a_record_counts_once_whatever_its_key_order_and_json_tells_values_apart(catalog, records, rnd):
    """The records and field counts are those of the distinct canonical JSON texts (1, 1.0 and true are three
    values, as JSON writes them), whatever order each record's keys come in."""
    items = []
    for i, record in enumerate(records * 2):  # every record twice, in another key order the second time
        fields = list(route(str(100 + i % max(1, len(records))), **record).items())
        rnd.shuffle(fields)
        items.append(dict(fields))
    responses = [
        recorded(catalog, ROUTES, {"cityCode": 12, "pageNo": page}, datagokr({"item": items}, len(items), page=page))
        for page in (1, 2)
    ]
    schema = infer_tool_schema(catalog.get(ROUTES), responses)
    canonical = {json.dumps(r, sort_keys=True, ensure_ascii=False) for r in items}
    assert schema.records == len(canonical)
    assert {f.name: f.present for f in schema.fields}.get("routeno", 0) == len(canonical)


def test_a_schema_is_inferred_once_per_tool_and_answers(catalog, monkeypatch):
    import kopa_replay.drift.schema as schema_module

    page = [recorded(catalog, ROUTES, {"cityCode": 12}, datagokr({"item": [route("10"), route("11")]}, 2))]
    first = infer_tool_schema(catalog.get(ROUTES), page)
    inferred = []
    monkeypatch.setattr(schema_module, "_observe", lambda *a: inferred.append(a) or pytest.fail("inferred again"))
    assert infer_tool_schema(catalog.get(ROUTES), list(page)) is first  # the same answers: kept
    monkeypatch.undo()
    other = [recorded(catalog, ROUTES, {"cityCode": 12}, datagokr({"item": [route("10")]}, 1))]
    assert infer_tool_schema(catalog.get(ROUTES), other).records == 1  # other bytes: inferred anew
    # the same bytes read by another tool's envelope are another schema
    assert (
        infer_tool_schema(
            catalog.get(SUBWAY),
            [RecordedResponse(SUBWAY, r.method, r.url, r.status, r.content_type, r.body) for r in page],
        ).tool
        == SUBWAY
    )
