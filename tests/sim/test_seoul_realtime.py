"""Seoul's second host (swopenapi.seoul.go.kr: realtime subway) and the catalog service clients discover with."""

from __future__ import annotations

import json
from xml.etree import ElementTree

import pytest

from kopa_replay.sim import Simulator
from kopa_replay.sim.tables import load_table

SW = "http://swopenapi.seoul.go.kr/api/subway"
OPEN = "http://openapi.seoul.go.kr:8088"


def get(sim: Simulator, url: str):
    response = sim.get(url)
    assert response.status == 200
    return response


def body(sim: Simulator, url: str) -> dict:
    return json.loads(get(sim, url).body)


@pytest.fixture(scope="module")
def sim():
    return Simulator(seed=0)


def test_arrivals_come_in_their_own_envelope_and_name_trains_the_position_service_knows(sim):
    answer = body(sim, f"{SW}/sim-key/json/realtimeStationArrival/0/40/강남")
    status, rows = answer["errorMessage"], answer["realtimeArrivalList"]
    assert list(answer) == ["errorMessage", "realtimeArrivalList"]
    assert status["status"] == 200 and status["code"] == "INFO-000" and status["total"] == len(rows) > 0
    assert all(r["statnNm"] == "강남" and r["totalCount"] == status["total"] for r in rows)
    assert [r["rowNum"] for r in rows] == list(range(1, len(rows) + 1))
    # two trains at most per line and direction, the nearer first
    for key in {(r["subwayId"], r["updnLine"]) for r in rows}:
        same = [int(r["barvlDt"]) for r in rows if (r["subwayId"], r["updnLine"]) == key]
        assert len(same) <= 2 and same == sorted(same)
    # the identifier chain: an arriving train is one realtimePosition places on its line
    line = {"1002": "2호선"}[rows[0]["subwayId"]]
    positions = body(sim, f"{SW}/sim-key/json/realtimePosition/1/1000/{line}")["realtimePositionList"]
    numbers = {p["trainNo"] for p in positions}
    assert {r["btrainNo"] for r in rows} <= numbers and len(numbers) == len(positions)
    assert {p["subwayNm"] for p in positions} == {line} and {p["updnLine"] for p in positions} == {"0", "1"}


def test_a_transfer_station_lists_every_line_through_it(sim):
    rows = body(sim, f"{SW}/sim-key/json/realtimeStationArrival/1/100/서울")["realtimeArrivalList"]
    lines = {r["subwayId"] for r in rows}
    assert {"1001", "1004"} <= lines
    assert all(set(r["subwayList"].split(",")) >= lines and r["trnsitCo"] == str(len(r["subwayList"].split(",")))
               for r in rows)  # fmt: skip


def test_station_names_are_the_realtime_spelling_and_no_data_is_a_bare_status(sim):
    nothing = {"status": 500, "code": "INFO-200", "message": "해당하는 데이터가 없습니다.", "link": "",
               "developerMessage": "", "total": 0}  # fmt: skip
    # the ridership dataset's 잠실(송파구청) and a name with 역 are not the realtime service's names
    assert body(sim, f"{SW}/sim-key/json/realtimeStationArrival/0/5/잠실(송파구청)") == nothing
    assert body(sim, f"{SW}/sim-key/json/realtimeStationArrival/0/5/강남역") == nothing
    assert body(sim, f"{SW}/sim-key/json/realtimeStationArrival/0/5/잠실")["errorMessage"]["code"] == "INFO-000"
    bad_key = body(sim, f"{SW}/wrong/json/realtimeStationArrival/0/5/잠실")
    assert bad_key["code"] == "INFO-100" and bad_key["status"] == 500 and "realtimeArrivalList" not in bad_key


def test_the_window_starts_at_0_or_1_and_the_sample_key_opens_five_rows(sim):
    from_zero = body(sim, f"{SW}/sim-key/json/realtimePosition/0/3/1호선")["realtimePositionList"]
    from_one = body(sim, f"{SW}/sim-key/json/realtimePosition/1/3/1호선")["realtimePositionList"]
    assert from_zero == from_one and len(from_one) == 3
    assert len(body(sim, f"{SW}/sample/json/realtimePosition/1/5/1호선")["realtimePositionList"]) == 5
    assert body(sim, f"{SW}/sim-key/json/realtimePosition/1/1001/1호선")["code"] == "ERROR-336"


def test_xml_keeps_the_status_as_result_beside_the_rows(sim):
    root = ElementTree.fromstring(get(sim, f"{SW}/sim-key/xml/realtimeStationArrival/0/5/강남").body)
    assert root.tag == "realtimeStationArrival"
    assert root.findtext("RESULT/code") == "INFO-000" and root.findtext("RESULT/status") == "200"
    assert root.findall("row") and all(r.findtext("statnNm") == "강남" for r in root.findall("row"))


def test_trains_move_with_the_as_of_date_and_the_seed():
    def positions(seed, as_of):
        url = f"{SW}/sim-key/json/realtimePosition/1/1000/2호선"
        return Simulator(seed=seed, as_of=as_of).get(url).body

    assert positions(0, "2026-09-01") == positions(0, "2026-09-01") != positions(0, "2026-09-02")
    assert positions(0, "2026-09-01") != positions(1, "2026-09-01")


def test_the_catalog_service_lists_every_dataset_of_the_table_by_its_id(sim):
    ids = {op.options["inf_id"] for op in load_table("seoul").operations if op.options.get("inf_id")}
    listed = body(sim, f"{OPEN}/sim-key/json/SearchCatalogService/1/1000")["SearchCatalogService"]
    assert {r["INF_ID"] for r in listed["row"]} == ids and listed["list_total_count"] == len(ids)
    # blank segments go as a single space, as clients send them; INF_NM matches part of the name
    subway = body(sim, f"{OPEN}/sim-key/json/SearchCatalogService/1/100/%20/지하철/%20/")["SearchCatalogService"]
    assert subway["row"] and all("지하철" in r["INF_NM"] for r in subway["row"])
    assert len(subway["row"]) < len(ids)
    one = body(sim, f"{OPEN}/sim-key/json/SearchCatalogService/1/5/OA-12914")["SearchCatalogService"]["row"]
    assert [r["INF_NM"] for r in one] == ["서울시 지하철호선별 역별 승하차 인원 정보"]
    assert all(("Api" in r["SRV_TYPE"]) and r["SHORT_URL"].endswith("datasetView.do") for r in listed["row"])


def test_the_bike_service_answers_under_its_own_root(sim):
    answer = body(sim, f"{OPEN}/sim-key/json/bikeList/1/2")
    assert list(answer) == ["rentBikeStatus"] and len(answer["rentBikeStatus"]["row"]) == 2
    root = ElementTree.fromstring(get(sim, f"{OPEN}/sim-key/xml/bikeList/1/2").body)
    assert root.tag == "rentBikeStatus"
