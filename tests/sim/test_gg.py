"""경기데이터드림: head/row envelope, pIndex/pSize paging, 시군 filters, codes and the as-of date."""

from __future__ import annotations

import json
from xml.etree import ElementTree

import httpx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kopa_replay.env import execute
from kopa_replay.sim import SimTransport, Simulator
from kopa_replay.sim.tables import load_table

HOSPITAL = "gg_gen_anmal_hosptl"
URL = "https://openapi.gg.go.kr/Animalhosptl"


def get_json(client, **params) -> dict:
    return json.loads(client.get(URL, params={"KEY": "sim-key", "Type": "json", **params}).content)


def test_head_row_envelope(client):
    body = get_json(client, pIndex=1, pSize=5, SIGUN_NM="수원시")
    assert list(body) == ["Animalhosptl"]
    head, rows = body["Animalhosptl"][0]["head"], body["Animalhosptl"][1]["row"]
    assert head[1] == {"RESULT": {"CODE": "INFO-000", "MESSAGE": "정상 처리되었습니다."}}
    assert head[0]["list_total_count"] >= len(rows) == 5
    assert all(r["SIGUN_NM"] == "수원시" and r["SIGUN_CD"] == "41110" for r in rows)
    assert {"BIZPLC_NM", "LICENSG_DE", "BSN_STATE_NM", "REFINE_ROADNM_ADDR", "REFINE_WGS84_LAT"} <= set(rows[0])


def test_the_province_pages_through_hundreds_of_rows(call):
    first = call(HOSPITAL, pIndex=1, pSize=100)
    assert first.outcome == "ok" and first.total_count > 300 and len(first.records) == 100
    rows = list(first.records)
    page = 2
    while len(rows) < first.total_count:
        result = call(HOSPITAL, pIndex=page, pSize=100)
        assert result.total_count == first.total_count
        rows.extend(result.records)
        page += 1
    assert len(rows) == first.total_count
    assert len({json.dumps(r, sort_keys=True, ensure_ascii=False) for r in rows}) == len(rows)
    assert call(HOSPITAL, pIndex=2, pSize=100).records != first.records
    assert {r["SIGUN_NM"] for r in rows} >= {"수원시", "가평군", "연천군"}  # every 시군 has some


_SIM = Simulator(seed=0)


@settings(max_examples=30, deadline=None)
@given(page=st.integers(1, 12), size=st.integers(1, 120))
def test_pages_are_slices_of_one_list(page, size):
    with httpx.Client(transport=SimTransport(_SIM)) as client:
        full = get_json(client, pIndex=1, pSize=1000)["Animalhosptl"][1]["row"]
        body = get_json(client, pIndex=page, pSize=size)
    expected = full[(page - 1) * size : page * size]
    if expected:
        assert body["Animalhosptl"][1]["row"] == expected
    else:
        assert body == {"RESULT": {"CODE": "INFO-200", "MESSAGE": "해당하는 데이터가 없습니다."}}


def test_sigun_code_and_name_select_the_same_rows_and_names_are_not_codes(call):
    by_name = call(HOSPITAL, SIGUN_NM="성남시", pSize=1000)
    by_code = call(HOSPITAL, SIGUN_CD=by_name.records[0]["SIGUN_CD"], pSize=1000)
    assert by_name.outcome == "ok" and by_name.records == by_code.records
    wrong = call(HOSPITAL, SIGUN_CD="성남시")
    assert wrong.outcome == "empty" and wrong.code == "INFO-200"
    assert call(HOSPITAL, SIGUN_NM="강남구").outcome == "empty"  # a Seoul 구 is no Gyeonggi 시군


def test_invalid_key_and_oversized_pages(client, call):
    bad = json.loads(client.get(URL, params={"KEY": "nope", "Type": "json"}).content)
    assert bad == {
        "RESULT": {
            "CODE": "ERROR-290",
            "MESSAGE": ("인증키가 유효하지 않습니다. 인증키가 없는 경우, 홈페이지에서 인증키를 신청하십시오."),
        }
    }
    assert call(HOSPITAL, key="nope").outcome == "environmental_error"
    too_big = call(HOSPITAL, pSize=1001)
    assert too_big.outcome == "structural_error" and too_big.code == "ERROR-336"
    unknown = json.loads(
        client.get("https://openapi.gg.go.kr/NoSuchService", params={"KEY": "sim-key", "Type": "json"}).content
    )
    assert unknown["RESULT"]["CODE"] == "ERROR-310"


def test_xml_is_the_default_and_reads_with_a_real_parser(client):
    response = client.get(URL, params={"KEY": "sim-key", "pIndex": 1, "pSize": 3, "SIGUN_CD": "41820"})
    root = ElementTree.fromstring(response.content)
    assert root.tag == "Animalhosptl"
    assert root.findtext("head/RESULT/CODE") == "INFO-000"
    assert int(root.findtext("head/list_total_count")) >= 1
    assert {row.findtext("SIGUN_NM") for row in root.findall("row")} == {"가평군"}


def test_the_register_follows_the_as_of_date(catalog):
    def rows(as_of):
        with httpx.Client(transport=SimTransport(Simulator(seed=0, as_of=as_of))) as client:
            return execute(
                catalog.get("gg_general_restaurant"), {"pSize": 1000, "pIndex": 1}, client, "sim-key"
            ), as_of.replace("-", "")

    for result, cutoff in (rows("2026-09-01"), rows("2020-01-01")):
        assert all(r["LICENSG_DE"] < cutoff for r in result.records)
        for r in result.records:
            assert (r["BSN_STATE_NM"] == "폐업") == bool(r["CLSBIZ_DE"])
            assert r["CLSBIZ_DE"] == "" or r["LICENSG_DE"] < r["CLSBIZ_DE"] < cutoff
    assert rows("2026-09-01")[0].total_count > rows("2020-01-01")[0].total_count


def test_the_business_name_field_is_renamed_by_drift(catalog):
    tool = catalog.get(HOSPITAL)
    with httpx.Client(transport=SimTransport(Simulator(seed=0, as_of="2026-12-01"))) as client:
        later = execute(tool, {"SIGUN_NM": "수원시"}, client, "sim-key")
    assert "BIZPLC_NM_INFO" in later.records[0] and "BIZPLC_NM" not in later.records[0]


@pytest.mark.parametrize("op", load_table("gg").operations, ids=lambda op: op.tool)
def test_every_dataset_answers_its_catalog_fields(call, catalog, op):
    tool = catalog.get(op.tool)
    assert tool.http.path == f"/{op.route}"
    result = call(op.tool, **tool.examples[0])
    assert result.outcome == "ok" and result.total_count > len(result.records) / 2
    assert list(result.records[0]) == list(op.fields) and set(op.fields) == set(tool.output_fields)
    if "SIGUN_CD" in op.fields:
        assert all(r["SIGUN_CD"].startswith("41") and len(r["SIGUN_CD"]) == 5 for r in result.records)


def test_same_seed_same_bytes_other_seed_other_world():
    def body(seed):
        with httpx.Client(transport=SimTransport(Simulator(seed=seed))) as client:
            return client.get(
                "https://openapi.gg.go.kr/Parmacy", params={"KEY": "sim-key", "Type": "json", "SIGUN_NM": "수원시"}
            ).content

    assert body(0) == body(0) != body(1)


def test_over_the_real_loopback_server(server_url, catalog):
    with httpx.Client() as http:
        result = execute(catalog.get(HOSPITAL), {"SIGUN_NM": "고양시"}, http, "sim-key", base_url=server_url)
        raw = http.get(
            f"{server_url}/openapi.gg.go.kr/CityPark", params={"KEY": "sim-key", "Type": "json", "pSize": 2}
        ).json()
    assert result.outcome == "ok" and {r["SIGUN_NM"] for r in result.records} == {"고양시"}
    assert raw["CityPark"][0]["head"][1]["RESULT"]["CODE"] == "INFO-000" and len(raw["CityPark"][1]["row"]) == 2
