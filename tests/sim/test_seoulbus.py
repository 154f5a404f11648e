"""Seoul bus (ws.bus.go.kr): envelope, whole lists, headerCd codes, keys, XML, arsId/stId traps, determinism."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET

import httpx
import pytest

from kopa_replay.env import execute
from kopa_replay.sim import SimTransport, Simulator

BASE = "http://ws.bus.go.kr/api/rest"
KEY = "sim-key"
ARRMSG = re.compile(r"^(\d+분(\d+초)?후\[\d+번째 전\]|곧 도착|출발대기|운행종료)$")


def _get(client: httpx.Client, path: str, **params) -> httpx.Response:
    return client.get(f"{BASE}/{path}", params={"serviceKey": KEY, **params})


def _json(client: httpx.Client, path: str, **params) -> dict:
    return json.loads(_get(client, path, resultType="json", **params).content)


@pytest.fixture
def transit(sim):
    return sim.world.transit


@pytest.fixture
def day_route(transit):
    """A daytime route with buses on the road, and its busiest station."""
    return next(r for r in transit.seoul_routes if not r.night)


@pytest.fixture
def night_route(transit):
    return next(r for r in transit.seoul_routes if r.night)


def test_json_envelope_has_the_three_headers_and_item_count_zero(client, day_route):
    doc = _json(client, "busRouteInfo/getStaionByRoute", busRouteId=day_route.route_id)
    assert list(doc) == ["comMsgHeader", "msgHeader", "msgBody"]
    assert doc["msgHeader"] == {"headerMsg": "정상적으로 처리되었습니다.", "headerCd": "0", "itemCount": 0}
    assert doc["comMsgHeader"]["errMsg"] is None
    items = doc["msgBody"]["itemList"]
    assert isinstance(items, list) and all(isinstance(v, str) for v in items[0].values())


def test_a_route_comes_whole_in_one_response_and_page_parameters_change_nothing(client, call, day_route):
    result = call("seoulbus_get_staion_by_route", busRouteId=day_route.route_id)
    assert result.outcome == "ok" and len(result.records) == len(day_route.stations) > 10
    assert [r["seq"] for r in result.records] == [str(i) for i in range(1, len(day_route.stations) + 1)]
    plain = _get(client, "busRouteInfo/getStaionByRoute", busRouteId=day_route.route_id).content
    paged = _get(client, "busRouteInfo/getStaionByRoute", busRouteId=day_route.route_id, pageNo=2, numOfRows=5).content
    assert plain == paged


def test_a_name_search_returns_many_stations_one_per_direction(call, transit):
    result = call("seoulbus_get_station_by_name", stSrch="역")
    expected = [s for s in transit.seoul_stations if "역" in s.name]
    assert result.outcome == "ok" and len(result.records) == len(expected) > 20
    office = call("seoulbus_get_station_by_name", stSrch="영등포구청").records
    assert len(office) >= 2 and len({r["arsId"] for r in office}) == len(office)
    assert all(re.fullmatch(r"\d{5}", r["arsId"]) and re.fullmatch(r"\d{9}", r["stId"]) for r in office)
    assert all(r["arsId"].startswith("19") for r in office)  # 영등포구 station numbers start 19


def test_route_search_and_info_agree(call, day_route):
    found = call("seoulbus_get_bus_route_list", strSrch=day_route.name).records
    assert day_route.route_id in {r["busRouteId"] for r in found}
    info = call("seoulbus_get_route_info", busRouteId=day_route.route_id)
    assert info.records == [r for r in found if r["busRouteId"] == day_route.route_id]
    assert info.records[0]["firstBusTm"].startswith("20260901") and len(info.records[0]["firstBusTm"]) == 14
    assert "  02-" in info.records[0]["corpNm"]


def test_no_data_codes_name_what_was_missing(client, call, night_route):
    assert _json(client, "stationinfo/getStationByUid", arsId="99999")["msgHeader"]["headerCd"] == "3"
    assert _json(client, "busRouteInfo/getRouteInfo", busRouteId="100100000")["msgHeader"]["headerCd"] == "4"
    assert _json(client, "stationinfo/getStationByName", stSrch="없는정류소")["msgBody"] == {"itemList": None}
    ended = _json(client, "buspos/getBusPosByRtid", busRouteId=night_route.route_id)
    assert ended["msgHeader"]["headerCd"] == "8" and ended["msgHeader"]["headerMsg"] == "운행 종료되었습니다."
    assert call("seoulbus_get_bus_pos_by_rtid", busRouteId=night_route.route_id).outcome == "empty"
    arrivals = call("seoulbus_get_arr_info_by_route_all", busRouteId=night_route.route_id).records
    assert {r["arrmsg1"] for r in arrivals} == {"운행종료"}


def test_an_unregistered_key_is_header_code_7_and_a_missing_key_is_http_401(client, catalog):
    root = ET.fromstring(
        client.get(f"{BASE}/stationinfo/getStationByName", params={"serviceKey": "wrong", "stSrch": "역"}).content
    )
    assert root.tag == "ServiceResult" and root.findtext("msgHeader/headerCd") == "7"
    assert root.findtext("msgHeader/headerMsg") == "SERVICE KEY IS NOT REGISTERED ERROR."
    missing = client.get(f"{BASE}/stationinfo/getStationByName", params={"stSrch": "역"})
    assert missing.status_code == 401 and missing.json()["error"] == "Unauthorized"
    tool = catalog.get("seoulbus_get_station_by_name")
    assert execute(tool, {"stSrch": "역"}, client, "wrong").outcome == "environmental_error"
    assert execute(tool, {"stSrch": "역"}, client, "").outcome == "environmental_error"


def test_xml_by_default_with_repeated_item_lists(client, day_route):
    response = _get(client, "busRouteInfo/getStaionByRoute", busRouteId=day_route.route_id)
    root = ET.fromstring(response.content)
    assert root.tag == "ServiceResult" and root.find("comMsgHeader") is not None
    assert root.findtext("msgHeader/headerCd") == "0" and root.findtext("msgHeader/itemCount") == "0"
    rows = root.findall("msgBody/itemList")
    assert len(rows) == len(day_route.stations)
    assert rows[0].findtext("station") == day_route.stations[0].st_id
    assert rows[0].findtext("stationNo") == day_route.stations[0].ars_id


def test_station_calls_take_the_ars_id_not_the_station_id(call, day_route):
    station = day_route.stations[len(day_route.stations) // 2]
    by_ars = call("seoulbus_get_station_by_uid", arsId=station.ars_id)
    assert by_ars.outcome == "ok" and day_route.route_id in {r["busRouteId"] for r in by_ars.records}
    assert all(r["stId"] == station.st_id for r in by_ars.records)
    assert all(r["lastTm"].endswith("  ") and "congestion1" in r for r in by_ars.records)
    wrong = call("seoulbus_get_station_by_uid", arsId=station.st_id)
    assert wrong.outcome == "empty" and wrong.code == "3"
    routes = call("seoulbus_get_route_by_station", arsId=station.ars_id).records
    assert {r["busRouteId"] for r in routes} == {r["busRouteId"] for r in by_ars.records}


def test_route_calls_take_the_route_id_not_its_number(call, day_route):
    assert call("seoulbus_get_route_info", busRouteId=day_route.name).outcome == "empty"
    assert call("seoulbus_get_arr_info_by_route_all", busRouteId=day_route.route_id).outcome == "ok"


def test_arrival_by_route_needs_st_id_and_its_seq_as_ord(call, day_route):
    stations = call("seoulbus_get_staion_by_route", busRouteId=day_route.route_id).records
    row = stations[len(stations) // 2]
    hit = call(
        "seoulbus_get_arr_info_by_route", stId=row["station"], busRouteId=day_route.route_id, ord=int(row["seq"])
    )
    assert hit.outcome == "ok" and hit.records[0]["stNm"] == row["stationNm"]
    assert hit.records[0]["staOrd"] == row["seq"]
    assert (
        call(
            "seoulbus_get_arr_info_by_route", stId=row["arsId"], busRouteId=day_route.route_id, ord=int(row["seq"])
        ).outcome
        == "empty"
    )  # arsId in place of stId
    assert (
        call(
            "seoulbus_get_arr_info_by_route",
            stId=row["station"],
            busRouteId=day_route.route_id,
            ord=int(row["seq"]) + 1,
        ).outcome
        == "empty"
    )
    assert (
        call("seoulbus_get_arr_info_by_route", stId=row["station"], busRouteId=day_route.route_id, ord="first").code
        == "2"
    )


def test_arrival_messages_and_bus_positions_agree(call, day_route):
    arrivals = call("seoulbus_get_arr_info_by_route_all", busRouteId=day_route.route_id).records
    assert len(arrivals) == len(day_route.stations)
    assert all(ARRMSG.match(r["arrmsg1"]) and ARRMSG.match(r["arrmsg2"]) for r in arrivals)
    assert all(r["congetion"] in ("0", "3", "4", "5", "6") for r in arrivals)
    assert any("번째 전" in r["arrmsg1"] for r in arrivals)
    buses = call("seoulbus_get_bus_pos_by_rtid", busRouteId=day_route.route_id).records
    assert buses and all(b["dataTm"].startswith("20260901") for b in buses)
    # The station right after a bus sees that bus one stop away.
    bus = buses[-1]
    next_station = arrivals[int(bus["sectOrd"])]
    assert next_station["stId"] == bus["nextStId"] and next_station["vehId1"] == bus["vehId"]
    assert next_station["arrmsg1"] == "곧 도착" or next_station["arrmsg1"].endswith("[1번째 전]")


def test_unknown_operation_is_a_404_page(client):
    response = _get(client, "stationinfo/getStationByNmae", stSrch="역")
    assert response.status_code == 404 and ET.fromstring(response.content).tag == "html"


def test_same_seed_same_bytes_other_seed_other_world(client):
    url = f"{BASE}/stationinfo/getStationByName?serviceKey={KEY}&resultType=json&stSrch=%EC%97%AD"
    again = httpx.Client(transport=SimTransport(Simulator(seed=0))).get(url).content
    other = httpx.Client(transport=SimTransport(Simulator(seed=1))).get(url).content
    assert client.get(url).content == again
    assert other != again


def test_served_on_loopback_with_the_real_host_as_first_segment(server_url, day_route):
    response = httpx.get(
        f"{server_url}/ws.bus.go.kr/api/rest/busRouteInfo/getRouteInfo",
        params={"serviceKey": KEY, "busRouteId": day_route.route_id},
    )
    root = ET.fromstring(response.content)
    assert response.status_code == 200 and root.findtext("msgHeader/headerCd") == "0"
    assert root.findtext("msgBody/itemList/busRouteId") == day_route.route_id
