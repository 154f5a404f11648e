"""Seoul bus operations beyond the first nine: low-floor variants, a stretch of a route, the route's path."""

from __future__ import annotations

import json

import httpx
import pytest

BASE = "http://ws.bus.go.kr/api/rest"
KEY = "sim-key"
ROUTE = "100100110"


def _doc(client: httpx.Client, path: str, **params) -> dict:
    return json.loads(client.get(f"{BASE}/{path}", params={"serviceKey": KEY, "resultType": "json", **params}).content)


def _list(client: httpx.Client, path: str, **params) -> list[dict]:
    doc = _doc(client, path, **params)
    assert doc["msgHeader"]["headerCd"] == "0", doc["msgHeader"]
    return doc["msgBody"]["itemList"]


def test_low_floor_positions_are_the_low_floor_subset_of_all_positions(client):
    every = _list(client, "buspos/getBusPosByRtid", busRouteId=ROUTE)
    low = _list(client, "buspos/getLowBusPosByRtid", busRouteId=ROUTE)
    assert low == [b for b in every if b["busType"] == "1"]


def test_a_stretch_keeps_the_buses_whose_section_lies_in_it(client):
    every = _list(client, "buspos/getBusPosByRtid", busRouteId=ROUTE)
    orders = sorted(int(b["sectOrd"]) for b in every)
    start, end = orders[0], orders[len(orders) // 2]
    stretch = _list(client, "buspos/getBusPosByRouteSt", busRouteId=ROUTE, startOrd=start, endOrd=end)
    assert stretch == [b for b in every if start <= int(b["sectOrd"]) <= end]
    low = _doc(client, "buspos/getLowBusPosByRouteSt", busRouteId=ROUTE, startOrd=start, endOrd=end)
    assert (low["msgBody"]["itemList"] or []) == [b for b in stretch if b["busType"] == "1"]


@pytest.mark.parametrize(
    "params", [{"startOrd": "x", "endOrd": "3"}, {"startOrd": "1"}, {"startOrd": "0", "endOrd": "3"}]
)
def test_a_bad_or_missing_stretch_is_header_code_2(client, params):
    assert _doc(client, "buspos/getBusPosByRouteSt", busRouteId=ROUTE, **params)["msgHeader"]["headerCd"] == "2"


def test_an_empty_stretch_is_header_code_8(client, sim):
    route = sim.world.transit.seoul_route_by_id[ROUTE]
    used = {b.index + 1 for b in sim.world.transit.seoul_buses(route, sim.as_of)}
    free = next(o for o in range(1, len(route.stations)) if o not in used)
    doc = _doc(client, "buspos/getBusPosByRouteSt", busRouteId=ROUTE, startOrd=free, endOrd=free)
    assert doc["msgHeader"]["headerCd"] == "8"


def test_low_floor_arrivals_name_only_low_floor_buses(client):
    low = _list(client, "arrive/getLowArrInfoByRouteAll", busRouteId=ROUTE)
    every = _list(client, "arrive/getArrInfoByRouteAll", busRouteId=ROUTE)
    assert [r["stId"] for r in low] == [r["stId"] for r in every]
    low_ids = {b["vehId"] for b in _list(client, "buspos/getLowBusPosByRtid", busRouteId=ROUTE)}
    named = {r[f"vehId{k}"] for r in low for k in (1, 2)} - {"0"}
    assert named and named <= low_ids
    at_stop = _list(client, "stationinfo/getLowStationByUid", arsId="19001")
    assert all(r[f"busType{k}"] == "1" or r[f"vehId{k}"] == "0" for r in at_stop for k in (1, 2))


def test_low_floor_station_search_finds_the_same_stations(client):
    assert _list(client, "stationinfo/getLowStationByName", stSrch="구청") == _list(
        client, "stationinfo/getStationByName", stSrch="구청"
    )
    assert _doc(client, "stationinfo/getLowStationByUid", arsId="00000")["msgHeader"]["headerCd"] == "3"


def test_the_route_path_follows_the_stations_in_order(client):
    path = _list(client, "busRouteInfo/getRoutePath", busRouteId=ROUTE)
    stations = _list(client, "busRouteInfo/getStaionByRoute", busRouteId=ROUTE)
    assert [p["no"] for p in path] == [str(i) for i in range(1, len(path) + 1)]
    assert [(p["gpsX"], p["gpsY"]) for p in path] == [(s["gpsX"], s["gpsY"]) for s in stations]
    assert _doc(client, "busRouteInfo/getRoutePath", busRouteId="999999999")["msgHeader"]["headerCd"] == "4"


def test_new_operations_answer_xml_with_the_service_result_root(client):
    body = client.get(f"{BASE}/busRouteInfo/getRoutePath", params={"serviceKey": KEY, "busRouteId": ROUTE}).text
    assert "<ServiceResult>" in body and "<itemList><gpsX>" in body
