"""TAGO's operations beyond the first ten: each service's own city list, buses approaching one stop."""

from __future__ import annotations

import json

import httpx
import pytest

BASE = "http://apis.data.go.kr/1613000"
KEY = "sim-key"
SEJONG = "12"
SERVICES = ("BusRouteInfoInqireService", "BusSttnInfoInqireService", "ArvlInfoInqireService", "BusLcInfoInqireService")


def _items(client: httpx.Client, path: str, **params) -> list[dict]:
    doc = json.loads(client.get(f"{BASE}/{path}", params={"serviceKey": KEY, "_type": "json", **params}).content)
    assert doc["response"]["header"]["resultCode"] == "00"
    items = doc["response"]["body"]["items"]
    if items == "":
        return []
    item = items["item"]
    return item if isinstance(item, list) else [item]


def test_every_service_answers_the_same_city_list_under_its_own_path(client):
    lists = [
        client.get(f"{BASE}/{s}/getCtyCodeList", params={"serviceKey": KEY, "numOfRows": 500}).content for s in SERVICES
    ]
    assert len(set(lists)) == 1
    cities = _items(client, "BusLcInfoInqireService/getCtyCodeList", numOfRows=500)
    assert {"citycode": 12, "cityname": "세종특별시"} in cities


@pytest.fixture
def route_and_stop(sim):
    """A Sejong route, a stop late on it, and the buses still before that stop."""
    transit = sim.world.transit
    network = transit.tago_network(SEJONG)
    route = max(network.routes, key=lambda r: len(r.stops))
    index = len(route.stops) - 2
    buses = [b for b in transit.tago_buses(route, sim.as_of) if b.index < index]
    return route, route.stops[index], buses


def test_buses_approaching_a_stop_are_those_before_it_nearest_first(client, route_and_stop):
    route, stop, buses = route_and_stop
    got = _items(
        client,
        "BusLcInfoInqireService/getRouteAcctoSpcifySttnAccesBusLcInfo",
        cityCode=SEJONG,
        routeId=route.route_id,
        nodeId=stop.node_id,
        numOfRows=1000,
    )
    assert buses and len(got) == len(buses)
    orders = [item["nodeord"] for item in got]
    assert orders == sorted(orders, reverse=True)
    assert all(order - 1 < route.stops.index(stop) for order in orders)
    assert all(item["routenm"] == route.route_no for item in got)
    every = _items(
        client, "BusLcInfoInqireService/getRouteAcctoBusLcList", cityCode=SEJONG, routeId=route.route_id, numOfRows=1000
    )
    assert {i["vehicleno"] for i in got} <= {i["vehicleno"] for i in every}


def test_a_stop_off_the_route_is_a_normal_empty_answer(client, route_and_stop):
    route, _, _ = route_and_stop
    got = _items(
        client,
        "BusLcInfoInqireService/getRouteAcctoSpcifySttnAccesBusLcInfo",
        cityCode=SEJONG,
        routeId=route.route_id,
        nodeId="SJB0000000",
    )
    assert got == []


def test_the_approaching_call_without_its_stop_is_refused(client, route_and_stop):
    route, _, _ = route_and_stop
    response = client.get(
        f"{BASE}/BusLcInfoInqireService/getRouteAcctoSpcifySttnAccesBusLcInfo",
        params={"serviceKey": KEY, "cityCode": SEJONG, "routeId": route.route_id},
    )
    assert "<resultCode>11</resultCode>" in response.text  # NO_MANDATORY_REQUEST_PARAMETERS_ERROR
