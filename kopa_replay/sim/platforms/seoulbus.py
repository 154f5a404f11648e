"""서울특별시 버스정보시스템 (ws.bus.go.kr): stations, routes, arrivals and bus positions.

``http://ws.bus.go.kr/api/rest/<group>/<operation>?serviceKey=…`` with groups stationinfo,
busRouteInfo, arrive and buspos. XML by default, ``resultType=json`` for JSON. The envelope is
``ServiceResult`` (XML root; JSON has no wrapper) with ``comMsgHeader``, ``msgHeader`` {headerCd,
headerMsg, itemCount} and ``msgBody.itemList``. There are no page parameters: every list comes whole
in one response, and ``itemCount`` says 0 even when items follow. Every value is a string.

Codes (``headerCd``): 0 정상, 1 시스템 오류, 2 잘못된 쿼리, 3 정류소 없음, 4 결과 없음/노선 없음,
6 실시간 정보 없음 (served during maintenance), 7 unregistered key, 8 운행 종료 (a route with no
bus on the road), 22 request quota exceeded. A missing key never reaches the service: HTTP 401
with a small JSON body.

The platform's identifier traps are kept: a station has ``arsId`` (5 digits, printed at the stop;
what the stationinfo calls take) and ``stId`` (9 digits; what arrive/getArrInfoByRoute takes);
getStaionByRoute (sic) calls them ``stationNo`` and ``station``. The congestion field of the arrive
group is spelled ``congetion``.
"""

from __future__ import annotations

import datetime as dt
import math
from collections.abc import Iterator, Mapping
from dataclasses import replace
from functools import partial
from typing import TYPE_CHECKING, Any

from kopa_replay.sim.core import (
    BadParam,
    Context,
    Doc,
    Endpoint,
    EndpointMaker,
    ErrorKind,
    Handler,
    NoData,
    Protocol,
    Query,
)
from kopa_replay.sim.messages import SimRequest
from kopa_replay.sim.tables import endpoints
from kopa_replay.sim.world.calendar import ymd
from kopa_replay.sim.world.fmt import data, frozen
from kopa_replay.sim.world.transit import SNAPSHOT_TIME, metres, seoul_tm

if TYPE_CHECKING:
    from kopa_replay.sim.world import World
    from kopa_replay.sim.world.transit import Arrival, BusPosition, SeoulRoute, SeoulStation, TransitWorld
    from kopa_replay.sim.world.transit_paths import Place

__all__ = ["ENDPOINTS", "HOSTS", "SeoulBusProtocol", "SEOULBUS_MESSAGES"]

HOST = "ws.bus.go.kr"
PLATFORM = "seoulbus"

SEOULBUS_MESSAGES = frozen(data("transit")["seoulbus_messages"])  # headerCd → headerMsg
_COM_MSG_HEADER = {
    "errMsg": None,
    "responseTime": None,
    "requestMsgID": None,
    "responseMsgID": None,
    "successYN": None,
    "returnCode": None,
}


class SeoulBusProtocol(Protocol):
    """ServiceResult / msgHeader / msgBody.itemList, whole lists, headerCd codes.

    An endpoint's ``options`` name its no-data codes: ``no_data_code`` when the
    entity asked for does not exist (3 for a station, 4 otherwise) and
    ``empty_code`` when it exists but has nothing to list (8 for a route with
    no bus running).
    """

    name = "seoulbus"
    key_params = ("serviceKey",)
    paging_params = ()

    def route(self, request: SimRequest) -> tuple[str, dict[str, str]]:
        return request.path.rstrip("/") or "/", {}

    def wants_xml(self, request: SimRequest, endpoint, path_params) -> bool:
        return (request.param_ci("resultType") or "xml").lower() != "json"

    def params(self, ctx: Context) -> dict[str, str]:
        values = super().params(ctx)
        return {k: v for k, v in values.items() if k.lower() != "resulttype"}

    def _document(self, ctx: Context, code: str, items: list[dict[str, Any]] | None) -> Doc:
        code = ctx.code(code)
        header = {"headerMsg": SEOULBUS_MESSAGES.get(code, ""), "headerCd": code, "itemCount": 0}
        if ctx.xml:
            body = {
                "comMsgHeader": None,
                "msgHeader": {"headerCd": code, "headerMsg": header["headerMsg"], "itemCount": 0},
                "msgBody": {"itemList": items} if items else None,
            }
            return Doc(body, xml=True, xml_root="ServiceResult")
        return Doc({"comMsgHeader": dict(_COM_MSG_HEADER), "msgHeader": header, "msgBody": {"itemList": items or None}})

    def _option(self, ctx: Context, name: str, default: str) -> str:
        return str(ctx.endpoint.options.get(name, default)) if ctx.endpoint is not None else default

    def ok(self, ctx: Context, records: list[dict[str, Any]], total: int, meta: Mapping[str, Any]) -> Doc:
        if not records:
            return self._document(ctx, self._option(ctx, "empty_code", self._option(ctx, "no_data_code", "4")), None)
        return self._document(ctx, "0", records)

    def error(self, ctx: Context, kind: str, detail: str = "") -> Doc:
        if kind == ErrorKind.INVALID_KEY and not (ctx.request.param_ci(*self.key_params) or "").strip():
            # No key at all is refused in front of the service, in JSON whatever was asked.
            return Doc(
                {"status": 401, "error": "Unauthorized", "message": "SERVICE KEY IS MISSING", "path": ctx.request.path},
                status=401,
            )
        if kind == ErrorKind.NOT_FOUND:
            page = {"head": {"title": "404 Not Found"}, "body": {"h1": "Not Found"}}
            return Doc(page, status=404, xml=True, xml_root="html", content_type="text/html;charset=UTF-8")
        code = {
            ErrorKind.INVALID_KEY: "7",
            ErrorKind.NO_DATA: self._option(ctx, "no_data_code", "4"),
            ErrorKind.MISSING_PARAM: "2",
            ErrorKind.BAD_PARAM: "2",
            ErrorKind.RATE_LIMIT: "22",
            ErrorKind.MAINTENANCE: "6",
            ErrorKind.SERVER_ERROR: "1",
        }[kind]
        return self._document(ctx, code, None)


PROTOCOL = SeoulBusProtocol()


# ---------------------------------------------------------------------------
# value formats


def _wgs(value: float) -> str:
    return f"{value:.10f}"


def _tm(value: float) -> str:
    return f"{value:.11f}"


def _clock(hhmm: str) -> str:
    return f"{hhmm[:2]}:{hhmm[2:]}"


def _stamp(day: dt.date, hhmm: str) -> str:
    """``20260901040000``: the as-of date with a route's first/last departure (busRouteInfo writes these)."""
    return f"{ymd(day)}{hhmm}00"


def _snapshot(day: dt.date, seconds_before: int = 0) -> dt.datetime:
    return dt.datetime.combine(day, SNAPSHOT_TIME) - dt.timedelta(seconds=seconds_before)


def _section_id(previous: "SeoulStation", station: "SeoulStation") -> str:
    """A stable 9-digit id for the road section between two stations."""
    return str(100_000_000 + (int(previous.st_id) * 31 + int(station.st_id)) % 900_000_000)


def _sorted(fields: Mapping[str, Any]) -> dict[str, Any]:
    return {key: fields[key] for key in sorted(fields)}


# ---------------------------------------------------------------------------
# lookups


def _transit(world: "World") -> "TransitWorld":
    return world.transit


def _route(world: "World", q: Query) -> "SeoulRoute":
    route = _transit(world).seoul_route_by_id.get(q.require("busRouteId"))
    if route is None:
        raise NoData()
    return route


def _station_by_ars(world: "World", q: Query) -> "SeoulStation":
    station = _transit(world).seoul_station_by_ars.get(q.require("arsId"))
    if station is None:
        raise NoData()
    return station


def _non_empty(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    if not records:
        raise NoData()
    return records


# ---------------------------------------------------------------------------
# records


def _station_record(station: "SeoulStation") -> dict[str, Any]:
    pos_x, pos_y = station.tm
    # tmX/tmY hold WGS84 longitude/latitude despite their names; posX/posY are the TM metres.
    return _sorted(
        {
            "arsId": station.ars_id,
            "posX": _tm(pos_x),
            "posY": _tm(pos_y),
            "stId": station.st_id,
            "stNm": station.name,
            "tmX": _wgs(station.lon),
            "tmY": _wgs(station.lat),
        }
    )


def _route_record(route: "SeoulRoute", day: dt.date) -> dict[str, Any]:
    return _sorted(
        {
            "busRouteAbrv": route.name,
            "busRouteId": route.route_id,
            "busRouteNm": route.name,
            "corpNm": route.corp,
            "edStationNm": route.end_name,
            "firstBusTm": _stamp(day, route.first_time),
            "firstLowTm": _stamp(day, route.first_time),
            "lastBusTm": _stamp(day, route.last_time),
            "lastBusYn": " ",
            "lastLowTm": _stamp(day, route.last_time),
            "length": f"{route.length_km:.2f}",
            "routeType": route.route_type,
            "stStationNm": route.start_name,
            "term": str(route.term),
        }
    )


def _arrival_message(route: "SeoulRoute", arrival: "Arrival | None") -> str:
    if route.night:
        return "운행종료"
    if arrival is None:
        return "출발대기"
    if arrival.seconds < 60 and arrival.stops_away <= 1:
        return "곧 도착"
    minutes, seconds = divmod(arrival.seconds, 60)
    clock = f"{minutes}분{seconds}초" if seconds else f"{minutes}분"
    return f"{clock}후[{arrival.stops_away}번째 전]"


def _arrival_fields(world: "World", route: "SeoulRoute", index: int, day: dt.date, low: bool = False) -> dict[str, Any]:
    """The arrival fields the arrive group and getStationByUid share (first and second bus; low-floor ones if low)."""
    transit = _transit(world)
    station = route.stations[index]
    arrivals = transit.seoul_arrivals(route, index, day, low_floor=low)
    pos_x, pos_y = station.tm
    fields: dict[str, Any] = {
        "arsId": station.ars_id,
        "busRouteAbrv": route.name,
        "busRouteId": route.route_id,
        "firstTm": route.first_time,
        "lastTm": route.last_time,
        "gpsX": _wgs(station.lon),
        "gpsY": _wgs(station.lat),
        "posX": _tm(pos_x),
        "posY": _tm(pos_y),
        "nextBus": "N",
        "routeType": route.route_type,
        "rtNm": route.name,
        "staOrd": str(index + 1),
        "stId": station.st_id,
        "stNm": station.name,
        "term": str(route.term),
        "mkTm": _snapshot(day).strftime("%Y-%m-%d %H:%M:%S.0"),
    }
    for k in (1, 2):
        arrival = arrivals[k - 1] if len(arrivals) >= k else None
        fields[f"arrmsg{k}"] = _arrival_message(route, arrival)
        if arrival is None:
            fields.update(
                {
                    f"busType{k}": "0",
                    f"isArrive{k}": "0",
                    f"isLast{k}": "0",
                    f"plainNo{k}": " ",
                    f"sectOrd{k}": "0",
                    f"stationNm{k}": " ",
                    f"traSpd{k}": "0",
                    f"traTime{k}": "0",
                    f"vehId{k}": "0",
                }
            )
            continue
        veh_id, plate = transit.seoul_vehicle(route, arrival.bus)
        fields.update(
            {
                f"busType{k}": "1" if arrival.bus.low_floor else "0",
                f"isArrive{k}": "0",
                f"isLast{k}": "0",
                f"plainNo{k}": plate,
                f"sectOrd{k}": str(arrival.bus.index + 1),
                f"stationNm{k}": route.stations[arrival.bus.index].name,
                f"traSpd{k}": str(18 + arrival.bus.vehicle % 17),
                f"traTime{k}": str(arrival.seconds),
                f"vehId{k}": veh_id,
            }
        )
    fields["_congestion"] = [a.bus.congestion for a in arrivals] + [0, 0]
    fields["dir"] = route.heading(index)
    return fields


def _arrive_record(world: "World", route: "SeoulRoute", index: int, day: dt.date, low: bool = False) -> dict[str, Any]:
    fields = _arrival_fields(world, route, index, day, low)
    fields["congetion"] = str(fields.pop("_congestion")[0])  # sic: the arrive group's spelling
    return _sorted(fields)


# ---------------------------------------------------------------------------
# handlers


def station_by_name(world: "World", q: Query) -> list[dict[str, Any]]:
    wanted = q.require("stSrch")
    return _non_empty([_station_record(s) for s in _transit(world).seoul_stations if wanted in s.name])


def station_by_uid(world: "World", q: Query, low: bool = False) -> list[dict[str, Any]]:
    station = _station_by_ars(world, q)
    transit = _transit(world)
    records = []
    for route, index in transit.seoul_routes_at.get(station.st_id, []):
        fields = _arrival_fields(world, route, index, q.as_of, low)
        congestion = fields.pop("_congestion")
        after = route.stations[index + 1].name if index + 1 < len(route.stations) else " "
        fields.update(
            {
                "adirection": route.heading(index),
                "nxtStn": after,
                "stationTp": "0",
                "deTourAt": "00",
                "congestion1": str(congestion[0]),
                "congestion2": str(congestion[1]),
                # this operation pads its clock times with two spaces
                "firstTm": f"{route.first_time}  ",
                "lastTm": f"{route.last_time}  ",
            }
        )
        records.append(_sorted(fields))
    return records


def routes_by_station(world: "World", q: Query) -> list[dict[str, Any]]:
    station = _station_by_ars(world, q)
    records = []
    for route, _ in _transit(world).seoul_routes_at.get(station.st_id, []):
        records.append(
            _sorted(
                {
                    "busRouteAbrv": route.name,
                    "busRouteId": route.route_id,
                    "busRouteNm": route.name,
                    "busRouteType": route.route_type,
                    "firstBusTm": _stamp(q.as_of, route.first_time),
                    "firstBusTmLow": _stamp(q.as_of, route.first_time),
                    "lastBusTm": _stamp(q.as_of, route.last_time),
                    "lastBusTmLow": _stamp(q.as_of, route.last_time),
                    "length": f"{route.length_km:.2f}",
                    "nextBus": " ",
                    "stBegin": route.start_name,
                    "stEnd": route.end_name,
                    "term": str(route.term),
                }
            )
        )
    return records


def route_list(world: "World", q: Query) -> list[dict[str, Any]]:
    wanted = q.require("strSrch")
    return _non_empty([_route_record(r, q.as_of) for r in _transit(world).seoul_routes if wanted in r.name])


def route_info(world: "World", q: Query) -> list[dict[str, Any]]:
    return [_route_record(_route(world, q), q.as_of)]


def stations_of_route(world: "World", q: Query) -> list[dict[str, Any]]:
    route = _route(world, q)
    turnaround = route.stations[route.turn - 1].st_id
    records = []
    previous = None
    for index, station in enumerate(route.stations):
        pos_x, pos_y = station.tm
        gap = 0 if previous is None else round(_distance(previous, station))
        records.append(
            _sorted(
                {
                    "arsId": station.ars_id,
                    "beginTm": _clock(route.first_time),
                    "busRouteAbrv": route.name,
                    "busRouteId": route.route_id,
                    "busRouteNm": route.name,
                    "direction": route.heading(index),
                    "fullSectDist": str(gap),
                    "gpsX": _wgs(station.lon),
                    "gpsY": _wgs(station.lat),
                    "lastTm": _clock(route.last_time),
                    "posX": _tm(pos_x),
                    "posY": _tm(pos_y),
                    "routeType": route.route_type,
                    "sectSpd": "0" if previous is None else str(15 + index % 20),
                    "section": "0" if previous is None else _section_id(previous, station),
                    "seq": str(index + 1),
                    "station": station.st_id,
                    "stationNm": station.name,
                    "stationNo": station.ars_id,
                    "transYn": "Y" if index == route.turn - 1 else "N",
                    "trnstnid": turnaround,
                }
            )
        )
        previous = station
    return records


def arrivals_of_route(world: "World", q: Query, low: bool = False) -> list[dict[str, Any]]:
    route = _route(world, q)
    return [_arrive_record(world, route, index, q.as_of, low) for index in range(len(route.stations))]


def route_path(world: "World", q: Query) -> list[dict[str, Any]]:
    """getRoutePath: the route's line as points in order (no), in WGS84 (gpsX/gpsY) and TM (posX/posY)."""
    records = []
    for number, station in enumerate(_route(world, q).stations, start=1):
        pos_x, pos_y = station.tm
        records.append(
            {
                "gpsX": _wgs(station.lon),
                "gpsY": _wgs(station.lat),
                "no": str(number),
                "posX": _tm(pos_x),
                "posY": _tm(pos_y),
            }
        )
    return records


def _ord(q: Query, name: str) -> int:
    value = q.int(name)
    if value is None or value < 1:
        raise BadParam(name, q.get(name))
    return value


def arrival_at_station(world: "World", q: Query, low: bool = False) -> list[dict[str, Any]]:
    route = _route(world, q)
    st_id = q.require("stId")
    order = q.int("ord")
    if order is None or order < 1:
        raise BadParam("ord", q.get("ord"))
    index = order - 1
    if index >= len(route.stations) or route.stations[index].st_id != st_id:
        raise NoData()  # ord is the station's seq on this route (getStaionByRoute), stId its 9-digit id
    return [_arrive_record(world, route, index, q.as_of, low)]


def bus_positions(world: "World", q: Query, low: bool = False, section: bool = False) -> list[dict[str, Any]]:
    """getBusPosByRtid; ``low``: low-floor buses only (getLow…); ``section``: sectOrd in startOrd..endOrd (…ByRouteSt)."""
    route = _route(world, q)
    transit = _transit(world)
    first, last = (_ord(q, "startOrd"), _ord(q, "endOrd")) if section else (1, len(route.stations))
    turnaround = route.stations[route.turn - 1].st_id
    records = []
    distances = [0.0] + [_distance(a, b) for a, b in zip(route.stations, route.stations[1:])]
    running = [sum(distances[: i + 1]) for i in range(len(distances))]
    for bus in transit.seoul_buses(route, q.as_of):
        if (low and not bus.low_floor) or not first <= bus.index + 1 <= last:
            continue
        here, there = route.stations[bus.index], route.stations[bus.index + 1]
        section = distances[bus.index + 1]
        travelled = running[bus.index] + section * bus.progress
        lat, lon = _bus_point(route, bus)
        pos_x, pos_y = seoul_tm(lat, lon)
        veh_id, plate = transit.seoul_vehicle(route, bus)
        records.append(
            _sorted(
                {
                    "busType": "1" if bus.low_floor else "0",
                    "congetion": str(bus.congestion),
                    "dataTm": _snapshot(q.as_of, bus.vehicle * 7 % 40).strftime("%Y%m%d%H%M%S"),
                    "fullSectDist": str(round(section)),
                    "gpsX": _wgs(lon),
                    "gpsY": _wgs(lat),
                    "isFullFlag": "0",
                    "islastyn": "0",
                    "isrunyn": "1",
                    "lastStnId": here.st_id,
                    "nextStId": there.st_id,
                    "plainNo": plate,
                    "posX": _tm(pos_x),
                    "posY": _tm(pos_y),
                    "rtDist": str(round(travelled)),
                    "sectDist": str(round(section * bus.progress)),
                    "sectOrd": str(bus.index + 1),
                    "sectionId": _section_id(here, there),
                    "stopFlag": "0",
                    "trnstnid": turnaround,
                    "vehId": veh_id,
                }
            )
        )
    return records  # empty: the route exists but no bus runs now (headerCd 8)


def _distance(a: "SeoulStation", b: "SeoulStation") -> float:
    return metres(a.lat, a.lon, b.lat, b.lon)


def _bus_point(route: "SeoulRoute", bus: "BusPosition") -> tuple[float, float]:
    """(lat, lon) of a bus between the station it left and the next."""
    here, there = route.stations[bus.index], route.stations[bus.index + 1]
    return here.lat + (there.lat - here.lat) * bus.progress, here.lon + (there.lon - here.lon) * bus.progress


# ---------------------------------------------------------------------------
# the world tables of the operation table (kopa_replay/sim/tables/seoulbus.yaml)

#: getStationByPos looks no further than this (metres), as the guide's radius range says.
MAX_RADIUS_M = 1500


def _number(q: Query, name: str) -> float:
    text = q.require(name)
    try:
        value = float(text)
    except ValueError:
        raise BadParam(name, text) from None
    if not math.isfinite(value):
        raise BadParam(name, text)
    return value


def _clock_after(hhmm: str, seconds: float) -> str:
    """HHMMSS of a departure at HHMM plus ``seconds``, past midnight from 00 again."""
    total = (int(hhmm[:2]) * 3600 + int(hhmm[2:]) * 60 + int(seconds)) % 86_400
    return f"{total // 3600:02d}{total % 3600 // 60:02d}{total % 60:02d}"


def station_bus_times(world: "World", q: Query) -> Iterator[dict[str, Any]]:
    """getBustimeByStation: the route's first and last departures plus its running time to the station."""
    station, route = _station_by_ars(world, q), _route(world, q)
    running = _transit(world).seoul_running_seconds(route)
    for index, stop in enumerate(route.stations):
        if stop.st_id == station.st_id:
            yield {
                "arsId": station.ars_id,
                "busRouteAbrv": route.name,
                "busRouteId": route.route_id,
                "busRouteNm": route.name,
                "firstBusTm": _clock_after(route.first_time, running[index]),
                "lastBusTm": _clock_after(route.last_time, running[index]),
                "stationNm": station.name,
            }


def stations_near(world: "World", q: Query) -> Iterator[dict[str, Any]]:
    """getStationByPos: tmX/tmY are WGS84 longitude/latitude, radius metres (at most MAX_RADIUS_M)."""
    lon, lat = _number(q, "tmX"), _number(q, "tmY")
    radius = min(max(_number(q, "radius"), 0.0), MAX_RADIUS_M)
    for distance, station in _transit(world).seoul_stations_near(lat, lon, radius):
        pos_x, pos_y = station.tm
        yield {
            "arsId": station.ars_id,
            "dist": str(round(distance)),
            "gpsX": _wgs(station.lon),
            "gpsY": _wgs(station.lat),
            "posX": _tm(pos_x),
            "posY": _tm(pos_y),
            "stationId": station.st_id,
            "stationNm": station.name,
            "stationTp": "0",
        }


def bus_by_vehicle(world: "World", q: Query) -> list[dict[str, Any]]:
    """getBusPosByVehId: one bus of the snapshot; a bus not on the road now is no data."""
    transit = _transit(world)
    found = transit.seoul_vehicle_index.get(q.require("vehId"))
    bus = next((b for b in transit.seoul_buses(found[0], q.as_of) if b.vehicle == found[1]), None) if found else None
    if found is None or bus is None:
        raise NoData()
    route = found[0]
    here = route.stations[bus.index]
    lat, lon = _bus_point(route, bus)
    pos_x, pos_y = seoul_tm(lat, lon)
    veh_id, plate = transit.seoul_vehicle(route, bus)
    return [
        {
            "busType": "1" if bus.low_floor else "0",
            "congetion": str(bus.congestion),
            "dataTm": _snapshot(q.as_of, bus.vehicle * 7 % 40).strftime("%Y%m%d%H%M%S"),
            "isFullFlag": "0",
            "lastStnId": here.st_id,
            "plainNo": plate,
            "posX": _tm(pos_x),
            "posY": _tm(pos_y),
            "stId": here.st_id,
            "stOrd": str(bus.index + 1),
            "stopFlag": "0",
            "tmX": _wgs(lon),
            "tmY": _wgs(lat),
            "vehId": veh_id,
        }
    ]


def low_arrivals_at_station(world: "World", q: Query) -> list[dict[str, Any]]:
    """getLowArrInfoByStId: every route through the station, its next two low-floor buses."""
    at = _transit(world).seoul_routes_at.get(q.require("stId"), [])
    return [_arrive_record(world, route, index, q.as_of, low=True) for route, index in at]


def _place_record(place: "Place") -> dict[str, Any]:
    pos_x, pos_y = seoul_tm(place.lat, place.lon)
    return {
        "addr": place.addr,
        "gpsX": _wgs(place.lon),
        "gpsY": _wgs(place.lat),
        "poiId": place.poi_id,
        "poiNm": place.name,
        "posX": _tm(pos_x),
        "posY": _tm(pos_y),
    }


def places(world: "World", q: Query) -> list[dict[str, Any]]:
    """getLocationInfo: places whose name holds stSrch."""
    return [_place_record(p) for p in _transit(world).seoul_paths.places_named(q.require("stSrch"))]


def _trips(world: "World", q: Query, bus: bool, subway: bool) -> list[dict[str, Any]]:
    start = (_number(q, "startY"), _number(q, "startX"))
    end = (_number(q, "endY"), _number(q, "endX"))
    return _transit(world).seoul_paths.trips(start, end, bus=bus, subway=subway)


#: the world tables the operation table's rows name
TABLES = {
    "station_bus_times": station_bus_times,
    "stations_near": stations_near,
    "bus_by_vehicle": bus_by_vehicle,
    "low_arrivals_at_station": low_arrivals_at_station,
    "low_arrival_of_route": lambda world, q: arrival_at_station(world, q, low=True),
    "places": places,
    "trips_by_bus": partial(_trips, bus=True, subway=False),
    "trips_by_subway": partial(_trips, bus=False, subway=True),
    "trips_by_bus_and_subway": partial(_trips, bus=True, subway=True),
}


# ---------------------------------------------------------------------------
# endpoints

#: The domain of Seoul station names. TAGO's ``stop_name`` values name stops in other cities and never
#: match a Seoul station, so the two name domains are kept apart.
STATION_NAME_DOMAIN: str | None = "seoul_stop_name"


def _names(*fields: str) -> dict[str, str]:
    """Station-name fields (or the search parameter) tagged with STATION_NAME_DOMAIN, when there is one."""
    return {name: STATION_NAME_DOMAIN for name in fields} if STATION_NAME_DOMAIN else {}


_ROUTE_ID = {"busRouteId": "seoul_route_id"}
_ROUTE_NAMES = {"busRouteNm": "seoul_route_no", "busRouteAbrv": "seoul_route_no"}
_ARRIVAL_OUT = {
    "arsId": "seoul_ars_id",
    "stId": "seoul_station_id",
    "busRouteId": "seoul_route_id",
    "rtNm": "seoul_route_no",
    "busRouteAbrv": "seoul_route_no",
    "staOrd": "seoul_station_ord",
    **_names("stNm", "stationNm1", "stationNm2", "dir"),
}
_ROUTE_OUT = {**_ROUTE_ID, **_ROUTE_NAMES, **_names("stStationNm", "edStationNm")}
_POS_OUT = {
    "lastStnId": "seoul_station_id",
    "nextStId": "seoul_station_id",
    "trnstnid": "seoul_station_id",
    "vehId": "seoul_veh_id",
}


_endpoint = EndpointMaker(PLATFORM, HOST, PROTOCOL, "/api/rest/{group}/{operation}")


_STATION_BY_NAME = _endpoint(
    "seoulbus_get_station_by_name",
    "stationinfo",
    "getStationByName",
    station_by_name,
    ("stSrch",),
    _names("stSrch"),
    {"arsId": "seoul_ars_id", "stId": "seoul_station_id", **_names("stNm")},
    no_data_code="4",
)
_STATION_BY_UID = _endpoint(
    "seoulbus_get_station_by_uid",
    "stationinfo",
    "getStationByUid",
    station_by_uid,
    ("arsId",),
    {"arsId": "seoul_ars_id"},
    {**_ARRIVAL_OUT, **_names("adirection", "nxtStn")},
    no_data_code="3",
    empty_code="4",
)
_ARRIVALS_OF_ROUTE = _endpoint(
    "seoulbus_get_arr_info_by_route_all",
    "arrive",
    "getArrInfoByRouteAll",
    arrivals_of_route,
    ("busRouteId",),
    _ROUTE_ID,
    _ARRIVAL_OUT,
    no_data_code="4",
)


def _low_floor(plain: Endpoint, tool: str, operation: str, handler: Handler) -> Endpoint:
    """A low-floor (저상버스) call: its plain call's group, parameters, fields and codes, another handler."""
    group_route = plain.route.rsplit("/", 1)[0]  # /api/rest/<group>
    return replace(plain, tool=tool, route=f"{group_route}/{operation}", handler=handler)


ENDPOINTS = [
    _STATION_BY_NAME,
    _STATION_BY_UID,
    _endpoint(
        "seoulbus_get_route_by_station",
        "stationinfo",
        "getRouteByStation",
        routes_by_station,
        ("arsId",),
        {"arsId": "seoul_ars_id"},
        {**_ROUTE_ID, **_ROUTE_NAMES, **_names("stBegin", "stEnd")},
        no_data_code="3",
        empty_code="4",
    ),
    _endpoint(
        "seoulbus_get_bus_route_list",
        "busRouteInfo",
        "getBusRouteList",
        route_list,
        ("strSrch",),
        {"strSrch": "seoul_route_no"},
        _ROUTE_OUT,
        no_data_code="4",
    ),
    _endpoint(
        "seoulbus_get_route_info",
        "busRouteInfo",
        "getRouteInfo",
        route_info,
        ("busRouteId",),
        _ROUTE_ID,
        _ROUTE_OUT,
        no_data_code="4",
    ),
    _endpoint(
        "seoulbus_get_staion_by_route",
        "busRouteInfo",
        "getStaionByRoute",
        stations_of_route,
        ("busRouteId",),
        _ROUTE_ID,
        {
            **_ROUTE_ID,
            **_ROUTE_NAMES,
            "arsId": "seoul_ars_id",
            "stationNo": "seoul_ars_id",
            "station": "seoul_station_id",
            "trnstnid": "seoul_station_id",
            **_names("stationNm", "direction"),
        },
        no_data_code="4",
    ),
    _ARRIVALS_OF_ROUTE,
    _endpoint(
        "seoulbus_get_arr_info_by_route",
        "arrive",
        "getArrInfoByRoute",
        arrival_at_station,
        ("stId", "busRouteId", "ord"),
        {"stId": "seoul_station_id", "ord": "seoul_station_ord", **_ROUTE_ID},
        _ARRIVAL_OUT,
        no_data_code="4",
    ),
    _endpoint(
        "seoulbus_get_bus_pos_by_rtid",
        "buspos",
        "getBusPosByRtid",
        bus_positions,
        ("busRouteId",),
        _ROUTE_ID,
        _POS_OUT,
        no_data_code="4",
        empty_code="8",
    ),
    # The low-floor (저상버스) variants answer like their plain calls, from the low-floor buses only.
    _low_floor(_STATION_BY_NAME, "seoulbus_get_low_station_by_name", "getLowStationByName", station_by_name),
    _low_floor(
        _STATION_BY_UID, "seoulbus_get_low_station_by_uid", "getLowStationByUid", partial(station_by_uid, low=True)
    ),
    _low_floor(
        _ARRIVALS_OF_ROUTE,
        "seoulbus_get_low_arr_info_by_route_all",
        "getLowArrInfoByRouteAll",
        partial(arrivals_of_route, low=True),
    ),
    _endpoint(
        "seoulbus_get_route_path",
        "busRouteInfo",
        "getRoutePath",
        route_path,
        ("busRouteId",),
        _ROUTE_ID,
        {},
        no_data_code="4",
    ),
    *(
        _endpoint(
            tool,
            "buspos",
            operation,
            partial(bus_positions, low=low, section=section),
            ("busRouteId", "startOrd", "endOrd") if section else ("busRouteId",),
            {**_ROUTE_ID, "startOrd": "seoul_station_ord_bound", "endOrd": "seoul_station_ord_bound"}
            if section
            else _ROUTE_ID,
            _POS_OUT,
            no_data_code="4",
            empty_code="8",
        )
        for tool, operation, low, section in (
            ("seoulbus_get_bus_pos_by_route_st", "getBusPosByRouteSt", False, True),
            ("seoulbus_get_low_bus_pos_by_rtid", "getLowBusPosByRtid", True, False),
            ("seoulbus_get_low_bus_pos_by_route_st", "getLowBusPosByRouteSt", True, True),
        )
    ),
]

ENDPOINTS += endpoints("seoulbus", HOST, PROTOCOL, TABLES)

HOSTS = {HOST: PROTOCOL}
