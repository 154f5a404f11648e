"""TAGO (apis.data.go.kr/1613000): envelope, pagination, empty answers, keys, XML, identifier traps, drift."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kopa_replay.env import execute
from kopa_replay.sim import SimTransport, Simulator

BASE = "http://apis.data.go.kr/1613000"
KEY = "sim-key"
SEJONG = "12"


def _get(client: httpx.Client, path: str, **params) -> httpx.Response:
    return client.get(f"{BASE}/{path}", params={"serviceKey": KEY, **params})


def _json(client: httpx.Client, path: str, **params) -> dict:
    return json.loads(_get(client, path, _type="json", **params).content)


def _items(doc: dict) -> list[dict]:
    items = doc["response"]["body"]["items"]
    if items == "":
        return []
    item = items["item"]
    return item if isinstance(item, list) else [item]


@pytest.fixture
def network(sim):
    return sim.world.transit.tago_network(SEJONG)


@pytest.fixture
def long_route(network):
    return max(network.routes, key=lambda r: len(r.stops))


def test_envelope_is_the_data_go_kr_one_with_json_numbers(client, long_route):
    doc = _json(
        client, "BusRouteInfoInqireService/getRouteAcctoThrghSttnList", cityCode=SEJONG, routeId=long_route.route_id
    )
    assert doc["response"]["header"] == {"resultCode": "00", "resultMsg": "NORMAL SERVICE."}
    body = doc["response"]["body"]
    assert set(body) == {"items", "numOfRows", "pageNo", "totalCount"}
    assert (body["numOfRows"], body["pageNo"], body["totalCount"]) == (10, 1, len(long_route.stops))
    first = body["items"]["item"][0]
    assert list(first) == sorted(first)  # the gateway writes fields alphabetically
    assert isinstance(first["nodeord"], int) and isinstance(first["gpslati"], float)
    assert isinstance(first["nodeno"], int) and re.fullmatch(r"SJB\d{7}", first["nodeid"])
    assert first["nodeord"] == 1 and first["updowncd"] == 0


def test_city_list_has_real_metro_codes_first_and_no_seoul(call):
    result = call("tago_get_cty_code_list", numOfRows=100)
    codes = [str(r["citycode"]) for r in result.records]
    assert result.outcome == "ok" and result.total_count == len(codes) == 12
    assert codes[:8] == ["12", "21", "22", "23", "24", "25", "26", "39"]
    assert all(len(c) == 5 for c in codes[8:]) and "11" not in codes
    assert {r["cityname"] for r in result.records} >= {"대전광역시", "울산광역시", "세종특별시"}


def test_a_route_list_pages_and_the_pages_add_up_to_total_count(call, network):
    first, second = (
        call("tago_get_route_no_list", cityCode=SEJONG),
        call("tago_get_route_no_list", cityCode=SEJONG, pageNo=2),
    )
    assert first.total_count == len(network.routes) > 10
    assert len(first.records) == 10 and first.records != second.records
    seen, page = [], 1
    while True:
        result = call("tago_get_route_no_list", cityCode=SEJONG, pageNo=page)
        if not result.records:
            break
        seen.extend(r["routeid"] for r in result.records)
        page += 1
    assert seen == [r.route_id for r in network.routes] and len(seen) == first.total_count


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(size=st.integers(1, 30))
def test_any_page_size_tiles_a_route_without_overlap_or_loss(client, long_route, size):
    ords: list[int] = []
    page = 1
    while True:
        items = _items(
            _json(
                client,
                "BusRouteInfoInqireService/getRouteAcctoThrghSttnList",
                cityCode=SEJONG,
                routeId=long_route.route_id,
                numOfRows=size,
                pageNo=page,
            )
        )
        if not items:
            break
        assert len(items) <= size
        ords.extend(i["nodeord"] for i in items)
        page += 1
    assert ords == list(range(1, len(long_route.stops) + 1))


def test_route_runs_up_to_the_turnaround_then_down(call, long_route):
    records = call(
        "tago_get_route_accto_thrgh_sttn_list", cityCode=SEJONG, routeId=long_route.route_id, numOfRows=500
    ).records
    codes = [r["updowncd"] for r in records]
    assert codes == sorted(codes) and codes[0] == 0 and codes[-1] == 1
    turn = codes.index(1)
    assert records[turn - 1]["nodenm"] == long_route.end_name
    # Each direction stops at its own stop id under the same name.
    assert records[turn]["nodenm"] == records[turn - 2]["nodenm"]
    assert records[turn]["nodeid"] != records[turn - 2]["nodeid"]


def test_nothing_found_is_a_normal_empty_page_not_a_nodata_code(client, call):
    doc = _json(client, "BusRouteInfoInqireService/getRouteNoList", cityCode="11")  # Seoul: not served
    assert doc["response"]["header"]["resultCode"] == "00"
    assert doc["response"]["body"]["items"] == "" and doc["response"]["body"]["totalCount"] == 0
    result = call("tago_get_route_no_list", cityCode="11")
    assert result.outcome == "empty" and result.records == []


def test_invalid_key_is_the_gateway_xml_even_when_json_was_asked(client, catalog):
    response = client.get(
        f"{BASE}/BusRouteInfoInqireService/getCtyCodeList", params={"serviceKey": "wrong", "_type": "json"}
    )
    root = ET.fromstring(response.content)
    assert response.status_code == 200 and root.tag == "OpenAPI_ServiceResponse"
    assert root.findtext("cmmMsgHeader/returnReasonCode") == "30"
    assert root.findtext("cmmMsgHeader/returnAuthMsg") == "SERVICE_KEY_IS_NOT_REGISTERED_ERROR"
    assert execute(catalog.get("tago_get_cty_code_list"), {}, client, "wrong").outcome == "environmental_error"


def test_missing_and_malformed_parameters_are_structural(call, client):
    missing = _json(client, "ArvlInfoInqireService/getSttnAcctoArvlPrearngeInfoList", cityCode=SEJONG)
    assert missing["response"]["header"]["resultCode"] == "11"
    assert call("tago_get_crdnt_prxmt_sttn_list", gpsLati="north", gpsLong=127.0).outcome == "structural_error"


def test_xml_by_default_reads_with_a_real_parser(client, network):
    stop = network.stops[0]
    response = _get(client, "BusSttnInfoInqireService/getSttnNoList", cityCode=SEJONG, nodeNo=str(stop.node_no))
    root = ET.fromstring(response.content)
    assert root.tag == "response" and root.findtext("header/resultCode") == "00"
    items = root.findall("body/items/item")
    assert len(items) == 1 and root.findtext("body/totalCount") == "1"
    assert items[0].findtext("nodeid") == stop.node_id and items[0].findtext("nodeno") == str(stop.node_no)


def test_a_single_record_comes_as_an_object_in_json(client, long_route):
    doc = _json(client, "BusRouteInfoInqireService/getRouteInfoIem", cityCode=SEJONG, routeId=long_route.route_id)
    item = doc["response"]["body"]["items"]["item"]
    assert isinstance(item, dict) and item["routeid"] == long_route.route_id
    assert re.fullmatch(r"\d{4}", item["startvehicletime"]) and item["intervalsuntime"] >= item["intervaltime"]


def test_arrivals_need_the_stop_id_not_its_number_or_name(call, network):
    stop, _ = max(((s, network.routes_at.get(s.node_id, [])) for s in network.stops[:8]), key=lambda p: len(p[1]))
    by_id = call("tago_get_sttn_accto_arvl_prearnge_info_list", cityCode=SEJONG, nodeId=stop.node_id)
    assert by_id.outcome == "ok" and {r["nodeid"] for r in by_id.records} == {stop.node_id}
    assert [r["arrtime"] for r in by_id.records] == sorted(r["arrtime"] for r in by_id.records)
    assert all(r["arrprevstationcnt"] >= 1 and r["vehicletp"] in ("일반차량", "저상버스") for r in by_id.records)
    for wrong in (str(stop.node_no), stop.name):
        assert call("tago_get_sttn_accto_arvl_prearnge_info_list", cityCode=SEJONG, nodeId=wrong).outcome == "empty"
    # nodeno is what the stop search takes, and it leads back to the id.
    found = call("tago_get_sttn_no_list", cityCode=SEJONG, nodeNo=str(stop.node_no))
    assert [r["nodeid"] for r in found.records] == [stop.node_id]


def test_identifier_chain_city_route_stops_arrivals_positions(call):
    city = call("tago_get_cty_code_list").records[0]["citycode"]
    route = call("tago_get_route_no_list", cityCode=str(city)).records[0]["routeid"]
    stops = call("tago_get_route_accto_thrgh_sttn_list", cityCode=str(city), routeId=route, numOfRows=200).records
    buses = call("tago_get_route_accto_bus_lc_list", cityCode=str(city), routeId=route)
    assert buses.outcome == "ok" and all(b["nodeid"] in {s["nodeid"] for s in stops} for b in buses.records)
    assert all(re.fullmatch(r"세종\d{2}[가-힣]\d{4}", b["vehicleno"]) for b in buses.records)
    # A stop just past a bus has that route coming.
    bus = buses.records[-1]
    target = stops[bus["nodeord"]]["nodeid"]  # nodeord is 1-based: this is the next stop
    coming = call(
        "tago_get_sttn_accto_spcify_route_bus_arvl_prearnge_info_list", cityCode=str(city), nodeId=target, routeId=route
    )
    assert coming.outcome == "ok" and coming.records[0]["arrprevstationcnt"] == 1
    through = call("tago_get_sttn_thrgh_route_list", cityCode=str(city), nodeid=target)
    assert route in {r["routeid"] for r in through.records}


def test_stops_near_a_point_are_within_500_m_nearest_first(call, network):
    stop = network.stops[0]
    result = call("tago_get_crdnt_prxmt_sttn_list", gpsLati=stop.lat, gpsLong=stop.lon, numOfRows=50)
    assert result.records[0]["nodeid"] == stop.node_id and result.records[0]["citycode"] == int(SEJONG)
    assert result.total_count == len(result.records) >= 2
    assert call("tago_get_crdnt_prxmt_sttn_list", gpsLati=37.5665, gpsLong=126.978).outcome == "empty"  # Seoul


def test_a_name_search_is_partial_and_finds_both_directions(call):
    result = call("tago_get_sttn_no_list", cityCode=SEJONG, nodeNm="종합운동장")
    assert result.outcome == "ok" and len(result.records) >= 2
    assert len({r["nodeid"] for r in result.records}) == len(result.records)
    assert all("종합운동장" in r["nodenm"] for r in result.records)


def test_same_seed_same_bytes_other_seed_other_world(client):
    url = f"{BASE}/BusRouteInfoInqireService/getRouteNoList?serviceKey={KEY}&_type=json&cityCode={SEJONG}"
    again = httpx.Client(transport=SimTransport(Simulator(seed=0))).get(url).content
    other = httpx.Client(transport=SimTransport(Simulator(seed=1))).get(url).content
    assert client.get(url).content == again
    assert other != again


def test_arrivals_follow_the_as_of_date_not_the_clock(network):
    stop = network.stops[0]
    url = (
        f"{BASE}/ArvlInfoInqireService/getSttnAcctoArvlPrearngeInfoList?serviceKey={KEY}&_type=json"
        f"&cityCode={SEJONG}&nodeId={stop.node_id}"
    )

    def body(as_of: str) -> bytes:
        return httpx.Client(transport=SimTransport(Simulator(seed=0, as_of=as_of, drift=False))).get(url).content

    assert body("2026-09-01") == body("2026-09-01")
    assert body("2026-09-01") != body("2026-09-02")


def test_drift_changes_the_normal_code_and_makes_vehicle_type_nullable(catalog):
    simulator = Simulator(seed=0, as_of="2026-12-01")
    later = httpx.Client(transport=SimTransport(simulator))
    result = execute(catalog.get("tago_get_route_no_list"), {"cityCode": SEJONG}, later, KEY)
    assert result.code == "0" and result.outcome == "structural_error"  # "0" is not in the catalog's table
    tool = catalog.get("tago_get_sttn_accto_arvl_prearnge_info_list")
    types = []
    for stop in simulator.world.transit.tago_network(SEJONG).stops[:20]:
        types += [
            r["vehicletp"] for r in execute(tool, {"cityCode": SEJONG, "nodeId": stop.node_id}, later, KEY).records
        ]
    assert None in types and {"일반차량", "저상버스"} & set(types)


def test_served_on_loopback_with_the_real_host_as_first_segment(server_url):
    response = httpx.get(
        f"{server_url}/apis.data.go.kr/1613000/BusRouteInfoInqireService/getCtyCodeList",
        params={"serviceKey": KEY, "_type": "json", "numOfRows": 3, "pageNo": 2},
    )
    doc = response.json()
    assert response.status_code == 200 and doc["response"]["body"]["pageNo"] == 2
    assert [i["citycode"] for i in doc["response"]["body"]["items"]["item"]] == [23, 24, 25]
