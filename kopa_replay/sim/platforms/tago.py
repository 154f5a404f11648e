"""TAGO (국토교통부 대중교통정보) on the data.go.kr gateway: city bus routes, stops, arrivals, positions.

Four services under ``http://apis.data.go.kr/1613000``:
BusRouteInfoInqireService (cities, routes, a route's stops),
BusSttnInfoInqireService (stops by name/number, by coordinates, routes through a stop),
ArvlInfoInqireService (arrival predictions at a stop) and BusLcInfoInqireService (bus positions).
Every list pages with pageNo/numOfRows (10 by default); ``_type=json`` asks for JSON, XML otherwise.

Quirks kept from the real platform: numeric fields (citycode, nodeno, nodeord, gps, arrtime) are JSON
numbers, fields come in alphabetical order, and an empty answer is a *normal* answer — code 00,
totalCount 0, ``items: ""`` — on every service (a wrong city code or stop id gives that too, never 03).
A route's stop list says ``updowncd`` 0 (up) to the turnaround, 1 after it. TAGO keeps two stop
identifiers: ``nodeid`` (DJB8001793, what every other call takes) and ``nodeno`` (the number printed
at the stop, only for the stop search).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from kopa_replay.sim.core import BadParam, EndpointMaker, NoData, Query
from kopa_replay.sim.protocols import DataGoKrProtocol

if TYPE_CHECKING:
    from kopa_replay.sim.world import World
    from kopa_replay.sim.world.transit import Arrival, TagoNetwork, TagoRoute, TagoStop

__all__ = ["ENDPOINTS", "HOSTS", "PROTOCOL", "NEAR_RADIUS_M"]

HOST = "apis.data.go.kr"
PLATFORM = "tago"
#: getCrdntPrxmtSttnList answers the stops within this radius of the coordinate.
NEAR_RADIUS_M = 500.0


# TAGO never sends NODATA_ERROR: nothing found is a normal, empty page (code 00).
PROTOCOL = DataGoKrProtocol(format_param="_type", no_data="empty", default_size=10, max_size=1000)


# ---------------------------------------------------------------------------
# lookups shared by the handlers


def _network(world: "World", q: Query) -> "TagoNetwork":
    network = world.transit.tago_network(q.require("cityCode"))
    if network is None:
        raise NoData()  # a city TAGO does not serve (Seoul, a 시도 code, a name)
    return network


def _route(world: "World", q: Query) -> tuple["TagoNetwork", "TagoRoute"]:
    network = _network(world, q)
    route = network.route_by_id.get(q.require("routeId"))
    if route is None:
        raise NoData()
    return network, route


def _stop(world: "World", q: Query, param: str) -> tuple["TagoNetwork", "TagoStop"]:
    network = _network(world, q)
    stop = network.stop_by_id.get(q.require(param))
    if stop is None:
        raise NoData()
    return network, stop


def _float(q: Query, name: str) -> float:
    text = q.require(name)
    try:
        return float(text)
    except ValueError:
        raise BadParam(name, text) from None


def _record(**fields: Any) -> dict[str, Any]:
    """A TAGO item: fields in alphabetical order, as the gateway serializes them."""
    return {key: fields[key] for key in sorted(fields)}


def _route_summary(route: "TagoRoute") -> dict[str, Any]:
    return _record(
        endnodenm=route.end_name,
        endvehicletime=route.last_time,
        routeid=route.route_id,
        routeno=route.route_no,
        routetp=route.route_type,
        startnodenm=route.start_name,
        startvehicletime=route.first_time,
    )


def _stop_record(stop: "TagoStop", **extra: Any) -> dict[str, Any]:
    return _record(
        gpslati=stop.lat, gpslong=stop.lon, nodeid=stop.node_id, nodenm=stop.name, nodeno=stop.node_no, **extra
    )


def _arrival_record(stop: "TagoStop", route: "TagoRoute", arrival: "Arrival") -> dict[str, Any]:
    return _record(
        arrprevstationcnt=arrival.stops_away,
        arrtime=arrival.seconds,
        nodeid=stop.node_id,
        nodenm=stop.name,
        routeid=route.route_id,
        routeno=route.route_no,
        routetp=route.route_type,
        vehicletp="저상버스" if arrival.bus.low_floor else "일반차량",
    )


def _non_empty(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    if not records:
        raise NoData()
    return records


# ---------------------------------------------------------------------------
# handlers


def city_codes(world: "World", q: Query) -> list[dict[str, Any]]:
    return [_record(citycode=int(city.code), cityname=city.name) for city in world.transit.tago_cities]


def route_no_list(world: "World", q: Query) -> list[dict[str, Any]]:
    network = _network(world, q)
    wanted = q.get("routeNo")
    # The real search is a partial match: routeNo=5 also finds 51, 105 and 급행5.
    return _non_empty([_route_summary(r) for r in network.routes if wanted is None or wanted in r.route_no])


def route_info(world: "World", q: Query) -> list[dict[str, Any]]:
    _, route = _route(world, q)
    return [
        _record(
            **_route_summary(route),
            intervaltime=route.interval,
            intervalsattime=route.interval_sat,
            intervalsuntime=route.interval_sun,
        )
    ]


def route_stops(world: "World", q: Query) -> list[dict[str, Any]]:
    _, route = _route(world, q)
    return [
        _stop_record(stop, nodeord=i + 1, routeid=route.route_id, updowncd=route.updown(i))
        for i, stop in enumerate(route.stops)
    ]


def stops_by_name_or_number(world: "World", q: Query) -> list[dict[str, Any]]:
    network = _network(world, q)
    name, number = q.get("nodeNm"), q.get("nodeNo")
    return _non_empty(
        [
            _stop_record(stop)
            for stop in network.stops
            if (name is None or name in stop.name) and (number is None or str(stop.node_no) == number)
        ]
    )


def stops_near(world: "World", q: Query) -> list[dict[str, Any]]:
    lat, lon = _float(q, "gpsLati"), _float(q, "gpsLong")
    return _non_empty(
        [
            _stop_record(stop, citycode=int(stop.city_code))
            for _, stop in world.transit.tago_stops_near(lat, lon, NEAR_RADIUS_M)
        ]
    )


def routes_through_stop(world: "World", q: Query) -> list[dict[str, Any]]:
    network, stop = _stop(world, q, "nodeid")
    routes = [route for route, _ in network.routes_at.get(stop.node_id, [])]
    return _non_empty(
        [
            _record(
                endnodenm=r.end_name,
                routeid=r.route_id,
                routeno=r.route_no,
                routetp=r.route_type,
                startnodenm=r.start_name,
            )
            for r in routes
        ]
    )


def arrivals_at_stop(world: "World", q: Query) -> list[dict[str, Any]]:
    network, stop = _stop(world, q, "nodeId")
    transit = world.transit
    records = []
    for route, index in network.routes_at.get(stop.node_id, []):
        coming = transit.tago_arrivals(route, index, q.as_of, limit=1)
        if coming:
            records.append(_arrival_record(stop, route, coming[0]))
    records.sort(key=lambda r: (r["arrtime"], r["routeid"]))
    return _non_empty(records)


def arrivals_of_route_at_stop(world: "World", q: Query) -> list[dict[str, Any]]:
    network, stop = _stop(world, q, "nodeId")
    route_id = q.require("routeId")
    transit = world.transit
    records = []
    for route, index in network.routes_at.get(stop.node_id, []):
        if route.route_id == route_id:
            records.extend(_arrival_record(stop, route, a) for a in transit.tago_arrivals(route, index, q.as_of))
    return _non_empty(records)


def bus_locations(world: "World", q: Query) -> list[dict[str, Any]]:
    _, route = _route(world, q)
    return _bus_records(world, route, world.transit.tago_buses(route, q.as_of))


def buses_approaching_stop(world: "World", q: Query) -> list[dict[str, Any]]:
    """getRouteAcctoSpcifySttnAccesBusLcInfo: the route's buses still before the stop, nearest first."""
    _, route = _route(world, q)
    node_id = q.require("nodeId")
    stops = [i for i, stop in enumerate(route.stops) if stop.node_id == node_id]
    if not stops:
        raise NoData()
    target = stops[0]
    buses = [bus for bus in world.transit.tago_buses(route, q.as_of) if bus.index < target]
    buses.sort(key=lambda bus: (target - bus.index, -bus.progress))
    return _bus_records(world, route, buses)


def _bus_records(world: "World", route: "TagoRoute", buses: list[Any]) -> list[dict[str, Any]]:
    transit = world.transit
    records = []
    for bus in buses:
        here, there = route.stops[bus.index], route.stops[bus.index + 1]
        lat = here.lat + (there.lat - here.lat) * bus.progress
        lon = here.lon + (there.lon - here.lon) * bus.progress
        records.append(
            _record(
                gpslati=round(lat, 7),
                gpslong=round(lon, 7),
                nodeid=here.node_id,
                nodenm=here.name,
                nodeord=bus.index + 1,
                routenm=route.route_no,
                routetp=route.route_type,
                vehicleno=transit.tago_vehicle_no(route, bus),
            )
        )
    return _non_empty(records)


# ---------------------------------------------------------------------------
# endpoints

_CITY = {"cityCode": "tago_city_code"}
_ROUTE_OUT = {
    "routeid": "tago_route_id",
    "routeno": "tago_route_no",
    "startnodenm": "stop_name",
    "endnodenm": "stop_name",
}
_STOP_OUT = {"nodeid": "tago_node_id", "nodenm": "stop_name", "nodeno": "tago_node_no"}
_ARRIVAL_OUT = {"nodeid": "tago_node_id", "nodenm": "stop_name", "routeid": "tago_route_id", "routeno": "tago_route_no"}


#: the group is the service (BusRouteInfoInqireService …)
_endpoint = EndpointMaker(PLATFORM, HOST, PROTOCOL, "/1613000/{group}/{operation}")


_LC_OUT = {"nodeid": "tago_node_id", "nodenm": "stop_name", "routenm": "tago_route_no"}
_ROUTES = "BusRouteInfoInqireService"
_STOPS = "BusSttnInfoInqireService"
_ARRIVALS = "ArvlInfoInqireService"
_POSITIONS = "BusLcInfoInqireService"

ENDPOINTS = [
    _endpoint("tago_get_cty_code_list", _ROUTES, "getCtyCodeList", city_codes, (), {}, {"citycode": "tago_city_code"}),
    _endpoint(
        "tago_get_route_no_list",
        _ROUTES,
        "getRouteNoList",
        route_no_list,
        ("cityCode",),
        {**_CITY, "routeNo": "tago_route_no"},
        _ROUTE_OUT,
    ),
    _endpoint(
        "tago_get_route_info_iem",
        _ROUTES,
        "getRouteInfoIem",
        route_info,
        ("cityCode", "routeId"),
        {**_CITY, "routeId": "tago_route_id"},
        _ROUTE_OUT,
    ),
    _endpoint(
        "tago_get_route_accto_thrgh_sttn_list",
        _ROUTES,
        "getRouteAcctoThrghSttnList",
        route_stops,
        ("cityCode", "routeId"),
        {**_CITY, "routeId": "tago_route_id"},
        {**_STOP_OUT, "routeid": "tago_route_id"},
    ),
    _endpoint(
        "tago_get_sttn_no_list",
        _STOPS,
        "getSttnNoList",
        stops_by_name_or_number,
        ("cityCode",),
        {**_CITY, "nodeNm": "stop_name", "nodeNo": "tago_node_no"},
        _STOP_OUT,
    ),
    _endpoint(
        "tago_get_crdnt_prxmt_sttn_list",
        _STOPS,
        "getCrdntPrxmtSttnList",
        stops_near,
        ("gpsLati", "gpsLong"),
        {},
        {**_STOP_OUT, "citycode": "tago_city_code"},
    ),
    _endpoint(
        "tago_get_sttn_thrgh_route_list",
        _STOPS,
        "getSttnThrghRouteList",
        routes_through_stop,
        ("cityCode", "nodeid"),
        {**_CITY, "nodeid": "tago_node_id"},
        _ROUTE_OUT,
    ),
    _endpoint(
        "tago_get_sttn_accto_arvl_prearnge_info_list",
        _ARRIVALS,
        "getSttnAcctoArvlPrearngeInfoList",
        arrivals_at_stop,
        ("cityCode", "nodeId"),
        {**_CITY, "nodeId": "tago_node_id"},
        _ARRIVAL_OUT,
    ),
    _endpoint(
        "tago_get_sttn_accto_spcify_route_bus_arvl_prearnge_info_list",
        _ARRIVALS,
        "getSttnAcctoSpcifyRouteBusArvlPrearngeInfoList",
        arrivals_of_route_at_stop,
        ("cityCode", "nodeId", "routeId"),
        {**_CITY, "nodeId": "tago_node_id", "routeId": "tago_route_id"},
        _ARRIVAL_OUT,
    ),
    _endpoint(
        "tago_get_route_accto_bus_lc_list",
        _POSITIONS,
        "getRouteAcctoBusLcList",
        bus_locations,
        ("cityCode", "routeId"),
        {**_CITY, "routeId": "tago_route_id"},
        _LC_OUT,
    ),
    _endpoint(
        "tago_get_route_accto_spcify_sttn_acces_bus_lc_info",
        _POSITIONS,
        "getRouteAcctoSpcifySttnAccesBusLcInfo",
        buses_approaching_stop,
        ("cityCode", "routeId", "nodeId"),
        {**_CITY, "routeId": "tago_route_id", "nodeId": "tago_node_id"},
        _LC_OUT,
    ),
    # Each of the other three services answers the same city list under its own path.
    *(
        _endpoint(tool, service, "getCtyCodeList", city_codes, (), {}, {"citycode": "tago_city_code"})
        for tool, service in (
            ("tago_sttn_get_cty_code_list", _STOPS),
            ("tago_arvl_get_cty_code_list", _ARRIVALS),
            ("tago_lc_get_cty_code_list", _POSITIONS),
        )
    ),
]

HOSTS = {HOST: PROTOCOL}
