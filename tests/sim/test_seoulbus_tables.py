"""Seoul bus operations kept as table rows: first/last bus at a stop, stops near a point, one bus by vehId,
low-floor arrivals by station and by route, and the pathinfo group (places and trips)."""

from __future__ import annotations

import json

import httpx
import pytest

from kopa_replay.sim.world.transit import metres
from kopa_replay.sim.world.transit_paths import WALK_M

BASE = "http://ws.bus.go.kr/api/rest"
KEY = "sim-key"
ROUTE, ARS, ST_ID, ORD = "100100110", "19001", "118000001", 13


def _doc(client: httpx.Client, path: str, **params) -> dict:
    return json.loads(client.get(f"{BASE}/{path}", params={"serviceKey": KEY, "resultType": "json", **params}).content)


def _list(client: httpx.Client, path: str, **params) -> list[dict]:
    doc = _doc(client, path, **params)
    assert doc["msgHeader"]["headerCd"] == "0", doc["msgHeader"]
    return doc["msgBody"]["itemList"]


def _code(client: httpx.Client, path: str, **params) -> str:
    return _doc(client, path, **params)["msgHeader"]["headerCd"]


def _seconds(hhmmss: str) -> int:
    return int(hhmmss[:2]) * 3600 + int(hhmmss[2:4]) * 60 + int(hhmmss[4:])


def test_a_stops_first_bus_leaves_later_along_the_route_and_an_unserved_stop_has_none(client):
    stations = _list(client, "busRouteInfo/getStaionByRoute", busRouteId=ROUTE)
    start = _list(client, "busRouteInfo/getRouteInfo", busRouteId=ROUTE)[0]["firstBusTm"][8:12]
    times = [
        _list(client, "stationinfo/getBustimeByStation", arsId=s["arsId"], busRouteId=ROUTE)[0]
        for s in stations[: ORD + 1]
    ]
    assert [t["stationNm"] for t in times] == [s["stationNm"] for s in stations[: ORD + 1]]
    firsts = [_seconds(t["firstBusTm"]) for t in times]
    assert firsts[0] == _seconds(start + "00") and firsts == sorted(firsts) and firsts[-1] > firsts[0]
    served = {s["arsId"] for s in stations}
    other = next(s for s in _list(client, "stationinfo/getStationByName", stSrch="구청") if s["arsId"] not in served)
    assert _code(client, "stationinfo/getBustimeByStation", arsId=other["arsId"], busRouteId=ROUTE) == "4"
    assert _code(client, "stationinfo/getBustimeByStation", arsId=ARS) == "2"


def test_stops_near_a_point_lie_within_the_radius_nearest_first(client):
    here = _list(client, "stationinfo/getStationByName", stSrch="영등포구청")[0]
    near = _list(client, "stationinfo/getStationByPos", tmX=here["tmX"], tmY=here["tmY"], radius=600)
    assert near[0]["stationId"] == here["stId"] and near[0]["dist"] == "0"
    dists = [int(s["dist"]) for s in near]
    assert dists == sorted(dists) and dists[-1] <= 600
    for s in near:
        assert round(metres(float(here["tmY"]), float(here["tmX"]), float(s["gpsY"]), float(s["gpsX"]))) == int(
            s["dist"]
        )
    # the arsId it gives is the one the other stationinfo calls take
    assert _list(client, "stationinfo/getStationByUid", arsId=near[0]["arsId"])[0]["stId"] == here["stId"]
    assert _code(client, "stationinfo/getStationByPos", tmX="127.9", tmY="33.2", radius=500) == "4"
    assert _code(client, "stationinfo/getStationByPos", tmX="east", tmY=here["tmY"], radius=500) == "2"


def test_one_bus_by_its_vehicle_id_is_where_the_routes_positions_put_it(client):
    buses = _list(client, "buspos/getBusPosByRtid", busRouteId=ROUTE)
    for bus in buses:
        one = _list(client, "buspos/getBusPosByVehId", vehId=bus["vehId"])
        assert len(one) == 1
        got = one[0]
        assert (got["plainNo"], got["stOrd"], got["stId"], got["lastStnId"]) == (
            bus["plainNo"],
            bus["sectOrd"],
            bus["lastStnId"],
            bus["lastStnId"],
        )
        assert (got["tmX"], got["tmY"], got["congetion"], got["busType"]) == (
            bus["gpsX"],
            bus["gpsY"],
            bus["congetion"],
            bus["busType"],
        )
    assert _code(client, "buspos/getBusPosByVehId", vehId="100000000") == "4"


def test_low_floor_arrivals_at_a_station_cover_every_route_through_it_and_name_only_low_floor_buses(client):
    rows = _list(client, "arrive/getLowArrInfoByStId", stId=ST_ID)
    through = _list(client, "stationinfo/getRouteByStation", arsId=ARS)
    assert sorted(r["busRouteId"] for r in rows) == sorted(r["busRouteId"] for r in through)
    assert {r["stId"] for r in rows} == {ST_ID}
    assert all(r[f"busType{k}"] == "1" or r[f"vehId{k}"] == "0" for r in rows for k in (1, 2))
    assert _code(client, "arrive/getLowArrInfoByStId", stId="999999999") == "4"


def test_low_floor_arrivals_of_one_route_at_one_station_are_its_row_of_the_routes_low_floor_list(client):
    one = _list(client, "arrive/getLowArrInfoByRoute", stId=ST_ID, busRouteId=ROUTE, ord=ORD)
    every = _list(client, "arrive/getLowArrInfoByRouteAll", busRouteId=ROUTE)
    assert one == [r for r in every if r["staOrd"] == str(ORD)]
    assert _code(client, "arrive/getLowArrInfoByRoute", stId=ST_ID, busRouteId=ROUTE, ord=ORD + 1) == "4"
    assert _code(client, "arrive/getLowArrInfoByRoute", stId=ST_ID, busRouteId=ROUTE, ord="x") == "2"


def test_places_hold_the_search_text_and_include_bus_stops_and_subway_stations(client):
    places = _list(client, "pathinfo/getLocationInfo", stSrch="영등포구청")
    names = [p["poiNm"] for p in places]
    assert all("영등포구청" in n for n in names) and "영등포구청역" in names
    stop = _list(client, "stationinfo/getStationByName", stSrch="영등포구청")[0]
    assert any((p["gpsX"], p["gpsY"]) == (stop["tmX"], stop["tmY"]) for p in places)
    assert len({p["poiId"] for p in places}) == len(places)
    assert _code(client, "pathinfo/getLocationInfo", stSrch="없는장소이름") == "4"


def _trip_params(start: dict, end: dict) -> dict:
    return {"startX": start["gpsX"], "startY": start["gpsY"], "endX": end["gpsX"], "endY": end["gpsY"]}


@pytest.fixture
def gu_centres():
    return {"startX": "126.8874", "startY": "37.4954", "endX": "126.8665", "endY": "37.5170"}


def test_a_bus_trip_boards_near_the_start_alights_near_the_end_and_rides_its_routes_forward(client, gu_centres):
    trips = _list(client, "pathinfo/getPathInfoByBus", **gu_centres)
    assert 1 <= len(trips) <= 5
    assert [int(t["time"]) for t in trips] == sorted(int(t["time"]) for t in trips)
    start = (float(gu_centres["startY"]), float(gu_centres["startX"]))
    end = (float(gu_centres["endY"]), float(gu_centres["endX"]))
    for trip in trips:
        legs = trip["pathList"]
        assert metres(*start, float(legs[0]["fy"]), float(legs[0]["fx"])) <= WALK_M
        assert metres(*end, float(legs[-1]["ty"]), float(legs[-1]["tx"])) <= WALK_M
        for before, after in zip(legs, legs[1:]):
            assert before["tid"] == after["fid"]  # a change at one stop
        for leg in legs:
            seqs = {
                s["station"]: int(s["seq"])
                for s in _list(client, "busRouteInfo/getStaionByRoute", busRouteId=leg["routeId"])
            }
            assert seqs[leg["fid"]] < seqs[leg["tid"]] and "railLinkList" not in leg


def test_a_subway_trip_names_the_stations_it_passes_and_mixed_trips_tell_bus_legs_from_subway_legs(client):
    gangnam = _list(client, "pathinfo/getLocationInfo", stSrch="강남역")[0]
    start = _list(client, "pathinfo/getLocationInfo", stSrch="영등포구청역")[0]
    trips = _list(client, "pathinfo/getPathInfoBySubway", **_trip_params(start, gangnam))
    first = trips[0]["pathList"]
    assert [(leg["fname"], leg["tname"], leg["routeNm"]) for leg in first] == [("영등포구청", "강남", "2호선")]
    assert first[0]["railLinkList"][-1]["railLinkId"] == first[0]["tid"]
    mixed = _list(client, "pathinfo/getPathInfoByBusNSub", **_trip_params(start, gangnam))
    for trip in mixed:
        for leg in trip["pathList"]:
            assert ("routeId" in leg) != ("railLinkList" in leg)
    assert (
        _code(client, "pathinfo/getPathInfoBySubway", startX="127.9", startY="33.2", endX="127.9", endY="33.3") == "4"
    )
    assert _code(client, "pathinfo/getPathInfoByBus", startX="x", startY="37.5", endX="127", endY="37.5") == "2"


def test_trips_go_out_as_xml_with_a_repeated_path_list(client):
    params = {"serviceKey": KEY, "startX": "126.8962", "startY": "37.5264", "endX": "127.0276", "endY": "37.4980"}
    body = client.get(f"{BASE}/pathinfo/getPathInfoBySubway", params=params).text
    assert "<ServiceResult>" in body and "<pathList><fid>" in body and "<railLinkList><railLinkId>" in body
