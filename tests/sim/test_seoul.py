"""Seoul Open Data Plaza: key in the path, START/END windows, positional filters, INFO/ERROR codes."""

from __future__ import annotations

import json
from xml.etree import ElementTree

import httpx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kopa_replay.env import build_request, execute
from kopa_replay.sim import SimTransport, Simulator
from kopa_replay.sim.tables import load_table
from kopa_replay.sim.world.datasets import SUBWAY_LINES

SUBWAY = "seoul_card_subway_stats_new"
SPOP = "seoul_spop_local_resd_dong"
RENT = "seoul_tb_ln_opendata_rent_v"
BASE = "http://openapi.seoul.go.kr:8088"


def body_of(client, path: str) -> dict:
    return json.loads(client.get(BASE + path).content)


def test_success_envelope_and_row_shape(client):
    body = body_of(client, "/sim-key/json/CardSubwayStatsNew/1/3/20260825")
    assert list(body) == ["CardSubwayStatsNew"]
    service = body["CardSubwayStatsNew"]
    assert service["RESULT"] == {"CODE": "INFO-000", "MESSAGE": "정상 처리되었습니다"}
    stations = sum(len(s) for _, s in SUBWAY_LINES)
    assert service["list_total_count"] == stations and 550 <= stations <= 620
    assert len(service["row"]) == 3
    assert set(service["row"][0]) == {
        "USE_YMD",
        "SBWY_ROUT_LN_NM",
        "SBWY_STNS_NM",
        "GTON_TNOPE",
        "GTOFF_TNOPE",
        "REG_YMD",
    }
    assert service["row"][0]["USE_YMD"] == "20260825"


def test_windows_tile_the_whole_day(call):
    first = call(SUBWAY, USE_YMD="20260825", START=1, END=100)
    rows = list(first.records)
    start = 101
    while start <= first.total_count:
        result = call(SUBWAY, USE_YMD="20260825", START=start, END=start + 99)
        assert result.total_count == first.total_count
        rows.extend(result.records)
        start += 100
    assert len(rows) == first.total_count
    assert len({(r["SBWY_ROUT_LN_NM"], r["SBWY_STNS_NM"]) for r in rows}) == len(rows)
    assert call(SUBWAY, USE_YMD="20260825", START=101, END=200).records != first.records


_WINDOW_SIM = Simulator(seed=0)


@settings(max_examples=40, deadline=None)
@given(start=st.integers(1, 700), size=st.integers(1, 1000))
def test_any_valid_window_is_the_matching_slice(start, size):
    with httpx.Client(transport=SimTransport(_WINDOW_SIM)) as client:
        full = body_of(client, "/sim-key/json/CardSubwayStatsNew/1/1000/20260825")["CardSubwayStatsNew"]["row"]
        body = body_of(client, f"/sim-key/json/CardSubwayStatsNew/{start}/{start + size - 1}/20260825")
    expected = full[start - 1 : start - 1 + size]
    if expected:
        assert body["CardSubwayStatsNew"]["row"] == expected
    else:
        assert body == {"RESULT": {"CODE": "INFO-200", "MESSAGE": "해당하는 데이터가 없습니다."}}


@pytest.mark.parametrize(
    "path, code",
    [
        ("/sim-key/json/CardSubwayStatsNew/1/1001/20260825", "ERROR-336"),
        ("/sim-key/json/CardSubwayStatsNew/5/2/20260825", "ERROR-334"),
        ("/sim-key/json/CardSubwayStatsNew/-1/2/20260825", "ERROR-331"),
        ("/sim-key/json/CardSubwayStatsNew/a/2/20260825", "ERROR-333"),
        ("/sim-key/json/CardSubwayStatsNew/1/5", "ERROR-300"),
        ("/sim-key/csv/CardSubwayStatsNew/1/5/20260825", "ERROR-301"),
        ("/sim-key/json/NoSuchService/1/5", "ERROR-310"),
        ("/sim-key/json/CardSubwayStatsNew/1/5/20260902", "INFO-200"),
    ],
)
def test_errors_are_a_bare_result(client, path, code):
    body = body_of(client, path)
    assert list(body) == ["RESULT"] and body["RESULT"]["CODE"] == code and body["RESULT"]["MESSAGE"]


def test_invalid_key_and_the_sample_key(client, call):
    assert body_of(client, "/wrong/json/CardSubwayStatsNew/1/5/20260825") == {
        "RESULT": {
            "CODE": "INFO-100",
            "MESSAGE": "인증키가 유효하지 않습니다. 인증키가 없는 경우, 열린 데이터 광장 홈페이지에서 인증키를 신청하십시오.",
        }
    }
    assert call(SUBWAY, key="wrong", USE_YMD="20260825").outcome == "environmental_error"
    sample = body_of(client, "/sample/json/CardSubwayStatsNew/1/5/20260825")
    assert len(sample["CardSubwayStatsNew"]["row"]) == 5
    assert body_of(client, "/sample/json/CardSubwayStatsNew/1/6/20260825")["RESULT"]["CODE"] == "ERROR-335"


def test_days_after_the_as_of_date_have_no_data(call):
    assert call(SUBWAY, USE_YMD="20150101", START=1, END=5).outcome == "ok"
    today = call(SUBWAY, USE_YMD="20260901", START=1, END=5)
    assert today.outcome == "ok" and all(r["REG_YMD"] <= "20260901" for r in today.records)
    for day in ("20260902", "20141231", "20260230"):
        result = call(SUBWAY, USE_YMD=day, START=1, END=5)
        assert result.outcome == "empty" and result.code == "INFO-200"


def test_xml_read_with_a_real_parser(client):
    root = ElementTree.fromstring(client.get(BASE + "/sim-key/xml/CardSubwayStatsNew/1/2/20260825/2호선").content)
    assert root.tag == "CardSubwayStatsNew"
    assert root.findtext("RESULT/CODE") == "INFO-000" and root.findtext("list_total_count") == "51"
    rows = root.findall("row")
    assert [r.findtext("SBWY_ROUT_LN_NM") for r in rows] == ["2호선", "2호선"]
    error = ElementTree.fromstring(client.get(BASE + "/bad/xml/CardSubwayStatsNew/1/2/20260825").content)
    assert error.tag == "RESULT" and error.findtext("CODE") == "INFO-100"


def test_an_empty_segment_skips_a_positional_filter(call):
    result = call(SUBWAY, USE_YMD="20260825", SBWY_STNS_NM="강남", START=1, END=10)
    assert [(r["SBWY_ROUT_LN_NM"], r["SBWY_STNS_NM"]) for r in result.records] == [("2호선", "강남")]
    assert call(SUBWAY, USE_YMD="20260825", SBWY_STNS_NM="강남역").outcome == "empty"  # the API's spelling only


def test_the_page_cap_drifts_to_500(catalog):
    tool = catalog.get(SUBWAY)
    with httpx.Client(transport=SimTransport(Simulator(seed=0, as_of="2026-12-01"))) as later:
        assert execute(tool, {"USE_YMD": "20261125", "START": 1, "END": 800}, later, "sim-key").code == "ERROR-336"
        assert execute(tool, {"USE_YMD": "20261125", "START": 1, "END": 500}, later, "sim-key").outcome == "ok"


def test_living_population_takes_8_digit_administrative_codes(call):
    hour = call(SPOP, STDR_DE_ID="20260825", TMZON_PD_SE="14", START=1, END=1000)
    assert hour.outcome == "ok" and all(r["TMZON_PD_SE"] == "14" for r in hour.records)
    code = hour.records[0]["ADSTRD_CODE_SE"]
    assert len(code) == 8 and code.startswith("11")
    one = call(SPOP, STDR_DE_ID="20260825", ADSTRD_CODE_SE=code, START=1, END=100)
    assert one.total_count == 24 and {r["ADSTRD_CODE_SE"] for r in one.records} == {code}
    # The 10-digit 법정동 code of the same 구 and a 구 name are not 행정동 codes.
    assert call(SPOP, STDR_DE_ID="20260825", ADSTRD_CODE_SE=code[:5] + "10100").outcome == "empty"
    assert call(SPOP, STDR_DE_ID="20260825", ADSTRD_CODE_SE="강남구").outcome == "empty"


def test_bus_ridership_counts_the_routes_and_stops_of_the_bus_service(sim, call):
    first = call("seoul_card_bus_statistics_service_new", USE_YMD="20260825", START=1, END=1000)
    assert first.outcome == "ok" and first.total_count > 1000
    transit = sim.world.transit
    for row in first.records:
        route = transit.seoul_route_by_id[row["RTE_ID"]]
        station = transit.seoul_station_by_id[row["STOPS_ID"]]
        assert row["RTE_NO"] == route.name and row["STOPS_ARS_NO"] == station.ars_id
    number = first.records[0]["RTE_NO"]
    one = call("seoul_card_bus_statistics_service_new", USE_YMD="20260825", RTE_NO=number, START=1, END=1000)
    assert {r["RTE_NO"] for r in one.records} == {number} and one.total_count < first.total_count


def test_rent_contracts_filter_by_district_code_not_name(call):
    by_code = call(RENT, RCPT_YR="2025", CGG_CD="11680", START=1, END=1000)
    assert by_code.outcome == "ok" and {r["CGG_NM"] for r in by_code.records} == {"강남구"}
    by_name = call(RENT, RCPT_YR="2025", CGG_NM="강남구", START=1, END=1000)
    assert by_name.records == by_code.records
    assert call(RENT, RCPT_YR="2025", CGG_CD="강남구").outcome == "empty"
    days = [r["CTRT_DAY"] for r in call(RENT, RCPT_YR="2026", START=1, END=1000).records]
    assert days == sorted(days, reverse=True) and max(days) < "20260901"


@pytest.mark.parametrize("op", load_table("seoul").operations, ids=lambda op: op.tool)
def test_every_dataset_answers_its_catalog_fields_under_todays_names(call, catalog, op):
    # a renamed dataset is drawn under its first names; the catalog and the answer use today's
    tool = catalog.get(op.tool)
    result = call(op.tool, **tool.examples[0])
    assert result.outcome == "ok"
    assert list(result.records[0]) == list(op.fields) and set(op.fields) == set(tool.output_fields)


def test_same_seed_same_bytes_other_seed_other_world():
    path = BASE + "/sim-key/json/SPOP_LOCAL_RESD_DONG/1/20/20260825/09"

    def body(seed):
        with httpx.Client(transport=SimTransport(Simulator(seed=seed))) as client:
            return client.get(path).content

    assert body(0) == body(0) != body(1)


def test_over_the_real_loopback_server(server_url, catalog):
    tool = catalog.get(SUBWAY)
    with httpx.Client() as http:
        result = execute(tool, {"USE_YMD": "20260825", "START": 1, "END": 10}, http, "sim-key", base_url=server_url)
        raw = http.get(f"{server_url}/openapi.seoul.go.kr/sim-key/json/bikeList/1/3").json()
    assert result.outcome == "ok" and len(result.records) == 10 and result.total_count > 500
    # the bike service answers under rentBikeStatus, not its service id
    assert raw["rentBikeStatus"]["RESULT"]["CODE"] == "INFO-000" and len(raw["rentBikeStatus"]["row"]) == 3
    method, url, headers, redacted = build_request(tool, {"USE_YMD": "20260825"}, "sim-key")
    assert "sim-key" in url and "sim-key" not in redacted


def test_ridership_field_names_changed_on_a_date_and_older_snapshots_keep_the_old_ones(catalog):
    """The datasets were published as USE_DT/RIDE_PASGR_NUM … and renamed (USE_YMD/GTON_TNOPE …) later."""
    old_subway = {"USE_DT", "LINE_NUM", "SUB_STA_NM", "RIDE_PASGR_NUM", "ALIGHT_PASGR_NUM", "WORK_DT"}
    old_bus = {
        "USE_DT",
        "BUS_ROUTE_ID",
        "BUS_ROUTE_NO",
        "BUS_ROUTE_NM",
        "STND_BSST_ID",
        "BSST_ARS_NO",
        "BUS_STA_NM",
        "RIDE_PASGR_NUM",
        "ALIGHT_PASGR_NUM",
        "WORK_DT",
    }
    for as_of, subway_fields, bus_fields in (
        ("2024-07-31", old_subway, old_bus),
        (
            "2024-08-01",
            set(catalog.get(SUBWAY).output_fields),
            set(catalog.get("seoul_card_bus_statistics_service_new").output_fields),
        ),
    ):
        simulator = Simulator(seed=0, as_of=as_of)
        for service, fields in (("CardSubwayStatsNew", subway_fields), ("CardBusStatisticsServiceNew", bus_fields)):
            body = json.loads(
                simulator.get(f"http://openapi.seoul.go.kr:8088/sim-key/json/{service}/1/2/20240725").body
            )
            assert {k for row in body[service]["row"] for k in row} == fields, (as_of, service)
    assert "GTON_TNOPE" in catalog.get(SUBWAY).output_fields and "REG_YMD" in catalog.get(SUBWAY).output_fields
    # the rename is history: it holds without drift and under a timeline of one's own
    for simulator in (Simulator(seed=0, drift=False), Simulator(seed=0, timeline=())):
        body = json.loads(simulator.get(f"{BASE}/sim-key/json/CardSubwayStatsNew/1/1/20260825").body)
        assert set(body["CardSubwayStatsNew"]["row"][0]) == set(catalog.get(SUBWAY).output_fields)
