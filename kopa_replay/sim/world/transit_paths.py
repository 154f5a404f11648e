"""Seoul trip planning for ws.bus.go.kr's pathinfo group: the subway network, named places, and trips.

* The subway: the Seoul metro lines of :data:`~kopa_replay.sim.world.datasets.SUBWAY_LINES` (1–9호선) in their
  real station order, split where a line branches (2호선's 성수 and 신정 branches, 5호선's 마천 branch). Stations
  stand at approximate real positions: the hubs in :data:`_HUBS` where they are, the others spaced evenly
  between them along their line (or on past the last hub at the line's spacing). The network is the same in every
  world; a station's code (the ``fid``/``tid``/``railLinkId`` of a subway leg) is its line's digit and its
  number on the line (``0201`` 시청 on 2호선).
* Places (getLocationInfo): every Seoul bus stop place (the two stops of a place share its name) and every
  subway station (``강남역``), with a ``poiId`` of their own.
* Trips (getPathInfoByBus, getPathInfoBySubway, getPathInfoByBusNSub): from the stops or stations within a walk
  of the start to those within a walk of the end; a bus trip rides one route or changes once at a stop, a subway
  trip rides one line or changes once at a station of two lines, a mixed trip rides a bus to a station's door
  and the subway on. A trip takes the minutes of walking (80 m a minute), riding (the arrivals' running times on
  a bus, two minutes a station on the subway) and changing (four minutes); the five quickest come.
Every search looks at the grid cells around a point or at the routes through a few stops, never at the whole
network.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING, Any

from kopa_replay.sim.world.datasets import SUBWAY_LINES
from kopa_replay.sim.world.fmt import data, frozen
from kopa_replay.sim.world.transit import _cell, metres

if TYPE_CHECKING:
    from kopa_replay.sim.world.transit import SeoulRoute, SeoulStation, TransitWorld

__all__ = ["SeoulPaths", "SubwayStation", "Place", "WALK_M"]

#: the subway's branches and hub positions: data/transit.yaml
_DATA = frozen(data("transit"))
#: How far a trip walks to its first stop and from its last (metres).
WALK_M = 700.0
#: How far a mixed trip walks from the bus stop to the subway station.
_DOOR_M = 300.0
_WALK_PER_MIN = 80.0
_SUBWAY_MIN_PER_STATION = 2
_CHANGE_MIN = 4
_TRIPS = 5

_BRANCHES = _DATA["branches"]
_HUBS = _DATA["hubs"]
_KM = 1 / 111.0  # degrees of latitude in a kilometre


@dataclass(frozen=True)
class SubwayStation:
    code: str  # 0201: the line's digit and the station's number on it
    name: str  # 시청
    line: str  # 2호선
    lat: float
    lon: float


@dataclass(frozen=True)
class Place:
    poi_id: str
    name: str
    lat: float
    lon: float
    addr: str | None


def _segments() -> list[tuple[str, list[str]]]:
    """(line, station names in riding order) of every stretch that can be ridden without changing."""
    out: list[tuple[str, list[str]]] = []
    for line, names in SUBWAY_LINES:
        if not line[0].isdigit():
            continue  # Seoul's metro lines only (1–9호선)
        current: list[str] = []
        joins = dict(_BRANCHES.get(line, ()))
        for name in names:
            if name in joins:
                if current:
                    out.append((line, current))
                current = [joins[name]]
            current.append(name)
        out.append((line, current))
    return out


def _place(names: list[str], known: dict[str, tuple[float, float]]) -> list[tuple[float, float]]:
    """Positions along one stretch: known ones kept, the rest spaced evenly between them (or on past the ends)."""
    fixed = [i for i, name in enumerate(names) if name in known]
    if not fixed:
        raise ValueError(f"a subway stretch without a known station: {names[0]}…")
    points = [known.get(name, (math.nan, math.nan)) for name in names]
    for a, b in zip(fixed, fixed[1:]):
        (la, lo), (lb, lob) = points[a], points[b]
        for i in range(a + 1, b):
            t = (i - a) / (b - a)
            points[i] = (la + (lb - la) * t, lo + (lob - lo) * t)
    # past the outermost known stations: on in the direction of the nearest pair, about a kilometre a station
    if len(fixed) >= 2:
        first, second, last, before = fixed[0], fixed[1], fixed[-1], fixed[-2]
    else:
        first = second = last = before = fixed[0]
    for start, ref, span in ((first, second, range(first - 1, -1, -1)), (last, before, range(last + 1, len(names)))):
        dlat, dlon = points[start][0] - points[ref][0], points[start][1] - points[ref][1]
        norm = math.hypot(dlat, dlon) or 1.0
        if start == ref:
            dlat, dlon, norm = 0.0, 1.0, 1.0  # a lone hub: the stretch runs east
        step = (dlat / norm * 1.1 * _KM, dlon / norm * 1.1 * _KM)
        for k, i in enumerate(span, start=1):
            points[i] = (points[start][0] + step[0] * k, points[start][1] + step[1] * k)
    return [(round(lat, 7), round(lon, 7)) for lat, lon in points]


class SeoulPaths:
    """The pathinfo group's world: built from the transit world on first use."""

    def __init__(self, transit: "TransitWorld") -> None:
        self._transit = transit
        #: busRouteId → (running seconds, running metres) to each station
        self._rides: dict[str, tuple[Any, list[float]]] = {}
        self._door_cache: dict[str, list[tuple[float, int, int]]] = {}

    # -- the subway network ----------------------------------------------------------
    @cached_property
    def subway(self) -> tuple[tuple[SubwayStation, ...], ...]:
        """Every stretch as its stations in riding order (the same station object where stretches share it)."""
        known = dict(_HUBS)
        codes: dict[tuple[str, str], str] = {}
        serial: dict[str, int] = {}
        out = []
        for line, names in _segments():
            points = _place(names, known)
            stations = []
            for name, (lat, lon) in zip(names, points):
                known.setdefault(name, (lat, lon))
                lat, lon = known[name]
                digit = line[0]
                if (digit, name) not in codes:
                    serial[digit] = serial.get(digit, 0) + 1
                    codes[(digit, name)] = f"0{digit}{serial[digit]:02d}"
                stations.append(SubwayStation(codes[(digit, name)], name, line[: line.index("호선") + 2], lat, lon))
            out.append(tuple(stations))
        return tuple(out)

    @cached_property
    def _subway_grid(self) -> dict[tuple[int, int], list[tuple[int, int]]]:
        """Grid cell → (stretch, index) of the stations in it."""
        grid: dict[tuple[int, int], list[tuple[int, int]]] = {}
        for k, stretch in enumerate(self.subway):
            for i, station in enumerate(stretch):
                grid.setdefault(_cell(station.lat, station.lon), []).append((k, i))
        return grid

    def _subway_near(self, lat: float, lon: float, radius_m: float) -> list[tuple[float, int, int]]:
        """(distance, stretch, index) of the stations within ``radius_m``."""
        reach = int(radius_m // 440) + 1
        row, col = _cell(lat, lon)
        out = []
        for r in range(row - reach, row + reach + 1):
            for c in range(col - reach, col + reach + 1):
                for k, i in self._subway_grid.get((r, c), ()):
                    station = self.subway[k][i]
                    distance = metres(lat, lon, station.lat, station.lon)
                    if distance <= radius_m:
                        out.append((distance, k, i))
        return sorted(out)

    # -- places ----------------------------------------------------------------------
    @cached_property
    def places(self) -> tuple[Place, ...]:
        """Every bus stop place (its first stop's position) and every subway station, bus places first."""
        out = [
            Place("1" + s.st_id, s.name, s.lat, s.lon, f"서울특별시 {s.gu.name}")
            for s in self._transit.seoul_stations[::2]
        ]
        seen: set[str] = set()
        for stretch in self.subway:
            for station in stretch:
                if station.name in seen:
                    continue
                seen.add(station.name)
                head, paren, tail = station.name.partition("(")
                label = f"{head}역{paren}{tail}"
                out.append(Place("2" + station.code.zfill(9), label, station.lat, station.lon, None))
        return tuple(out)

    @cached_property
    def _place_chars(self) -> dict[str, list[int]]:
        index: dict[str, list[int]] = {}
        for k, place in enumerate(self.places):
            for char in set(place.name):
                index.setdefault(char, []).append(k)
        return index

    def places_named(self, text: str) -> list[Place]:
        """Places whose name contains ``text``: only those holding its rarest character are looked at."""
        lists = [self._place_chars.get(char, []) for char in set(text)]
        if not lists:
            return []
        return [self.places[k] for k in min(lists, key=len) if text in self.places[k].name]

    # -- trips -----------------------------------------------------------------------
    def trips(
        self, start: tuple[float, float], end: tuple[float, float], bus: bool, subway: bool
    ) -> list[dict[str, Any]]:
        """The quickest trips (itemList records: distance, pathList, time), at most five."""
        found: list[tuple[int, int, list[dict[str, Any]]]] = []
        if bus:
            found += self._bus_trips(start, end)
        if subway:
            found += self._subway_trips(start, end)
        if bus and subway:
            found += self._mixed_trips(start, end)
        seen: set[tuple] = set()
        out = []
        for minutes, distance, legs in sorted(found, key=lambda t: (t[0], t[1], [leg["fid"] for leg in t[2]])):
            key = tuple(leg["routeNm"] for leg in legs)  # the quickest way to ride the same lines
            if key in seen:
                continue
            seen.add(key)
            out.append({"distance": str(distance), "pathList": legs, "time": str(minutes)})
            if len(out) == _TRIPS:
                break
        return out

    @staticmethod
    def _minutes(walk_m: float, ride_s: float, changes: int) -> int:
        return max(1, math.ceil(walk_m / _WALK_PER_MIN + ride_s / 60 + changes * _CHANGE_MIN))

    def _bus_leg(self, route: "SeoulRoute", i: int, j: int) -> dict[str, Any]:
        a, b = route.stations[i], route.stations[j]
        return {
            "fid": a.st_id,
            "fname": a.name,
            "fx": f"{a.lon:.10f}",
            "fy": f"{a.lat:.10f}",
            "routeId": route.route_id,
            "routeNm": route.name,
            "tid": b.st_id,
            "tname": b.name,
            "tx": f"{b.lon:.10f}",
            "ty": f"{b.lat:.10f}",
        }

    def _ride(self, route: "SeoulRoute", i: int, j: int) -> tuple[float, float]:
        """(seconds, metres) of a bus ride from index i to j."""
        if route.route_id not in self._rides:
            stations = route.stations
            gaps = [metres(a.lat, a.lon, b.lat, b.lon) for a, b in zip(stations, stations[1:])]
            self._rides[route.route_id] = (
                self._transit.seoul_running_seconds(route),
                [sum(gaps[:n]) for n in range(len(stations))],
            )
        seconds, along = self._rides[route.route_id]
        return float(seconds[j] - seconds[i]), along[j] - along[i]

    def _stops_near(self, point: tuple[float, float]) -> Iterator[tuple[float, "SeoulRoute", int]]:
        """(walk, route, index) of every stop of a running route within a walk of the point, nearest first."""
        transit = self._transit
        for walk, station in transit.seoul_stations_near(point[0], point[1], WALK_M):
            for route, index in transit.seoul_routes_at.get(station.st_id, []):
                if not route.night:
                    yield walk, route, index

    def _boardings(self, point: tuple[float, float]) -> list[tuple[float, "SeoulRoute", int]]:
        """(walk, route, index): each running route at its stop nearest the point."""
        best: dict[str, tuple[float, "SeoulRoute", int]] = {}
        for walk, route, index in self._stops_near(point):
            best.setdefault(route.route_id, (walk, route, index))
        return list(best.values())

    def _alightings(self, point: tuple[float, float]) -> dict[str, list[tuple[int, float]]]:
        """busRouteId → (index, walk) of its stops within a walk of the point."""
        out: dict[str, list[tuple[int, float]]] = {}
        for walk, route, index in self._stops_near(point):
            out.setdefault(route.route_id, []).append((index, walk))
        return out

    def _bus_trips(self, start, end) -> list[tuple[int, int, list[dict[str, Any]]]]:
        ends = self._alightings(end)
        routes = self._transit.seoul_routes_at
        out = []
        for walk, route, i in self._boardings(start):
            for j, walk_end in ends.get(route.route_id, ()):
                if j > i:
                    seconds, length = self._ride(route, i, j)
                    minutes = self._minutes(walk + walk_end, seconds, 0)
                    out.append((minutes, round(length), [self._bus_leg(route, i, j)]))
            # one change at a stop of this route onto a route that reaches the end
            for k in range(i + 1, len(route.stations)):
                for other, m in routes.get(route.stations[k].st_id, []):
                    if other.route_id == route.route_id or other.night:
                        continue
                    for j, walk_end in ends.get(other.route_id, ()):
                        if j > m:
                            s1, l1 = self._ride(route, i, k)
                            s2, l2 = self._ride(other, m, j)
                            minutes = self._minutes(walk + walk_end, s1 + s2, 1)
                            legs = [self._bus_leg(route, i, k), self._bus_leg(other, m, j)]
                            out.append((minutes, round(l1 + l2), legs))
        return out

    def _subway_leg(self, k: int, i: int, j: int) -> tuple[dict[str, Any], float]:
        stretch = self.subway[k]
        step = 1 if j >= i else -1
        passed = [stretch[x] for x in range(i, j + step, step)]
        a, b = passed[0], passed[-1]
        length = sum(metres(p.lat, p.lon, q.lat, q.lon) for p, q in zip(passed, passed[1:]))
        leg = {
            "fid": a.code,
            "fname": a.name,
            "fx": f"{a.lon:.7f}",
            "fy": f"{a.lat:.7f}",
            "railLinkList": [{"railLinkId": s.code} for s in passed[1:]],
            "routeNm": a.line,
            "tid": b.code,
            "tname": b.name,
            "tx": f"{b.lon:.7f}",
            "ty": f"{b.lat:.7f}",
        }
        return leg, length

    def _subway_rides(self, starts, ends) -> Iterator[tuple[float, int, list[dict[str, Any]], float]]:
        """(walk, changes, legs, metres) of the rides from stations near the start to stations near the end."""
        for walk, k, i in starts:
            for walk_end, k2, j in ends:
                if k == k2 and i != j:
                    leg, length = self._subway_leg(k, i, j)
                    yield walk + walk_end, 0, [leg], length
                    continue
                names = {s.name: x for x, s in enumerate(self.subway[k2])}
                changes = [
                    (abs(x - i) + abs(names[s.name] - j), x) for x, s in enumerate(self.subway[k]) if s.name in names
                ]
                if k == k2 or not changes:
                    continue
                _, x = min(changes)
                y = names[self.subway[k][x].name]
                if x == i or y == j:
                    continue
                first, l1 = self._subway_leg(k, i, x)
                second, l2 = self._subway_leg(k2, y, j)
                yield walk + walk_end, 1, [first, second], l1 + l2

    def _subway_trips(self, start, end) -> list[tuple[int, int, list[dict[str, Any]]]]:
        starts = self._subway_near(start[0], start[1], WALK_M * 1.5)
        ends = self._subway_near(end[0], end[1], WALK_M * 1.5)
        out = []
        for walk, changes, legs, length in self._subway_rides(starts, ends):
            stations = sum(len(leg["railLinkList"]) for leg in legs)
            minutes = self._minutes(walk, stations * _SUBWAY_MIN_PER_STATION * 60, changes)
            out.append((minutes, round(length), legs))
        return out

    def _doors(self, stop: "SeoulStation") -> list[tuple[float, int, int]]:
        """The subway stations within a short walk of a bus stop (kept once looked up)."""
        if stop.st_id not in self._door_cache:
            self._door_cache[stop.st_id] = self._subway_near(stop.lat, stop.lon, _DOOR_M)
        return self._door_cache[stop.st_id]

    def _mixed_trips(self, start, end) -> list[tuple[int, int, list[dict[str, Any]]]]:
        """A bus to a subway station's door, then the subway on (one line, no change on the subway)."""
        ends = self._subway_near(end[0], end[1], WALK_M * 1.5)
        lines = {k for _, k, _ in ends}
        out = []
        for walk, route, i in self._boardings(start):
            taken = 0
            for x in range(i + 1, len(route.stations)):
                if taken == 2:
                    break  # the first two stations the route passes
                stop = route.stations[x]
                doors = [d for d in self._doors(stop) if d[1] in lines]
                if not doors:
                    continue
                taken += 1
                seconds, length = self._ride(route, i, x)
                for walk_door, k, y in doors[:1]:
                    for walk_end, k2, j in ends:
                        if k2 != k or j == y:
                            continue
                        leg, rail = self._subway_leg(k, y, j)
                        ride = seconds + len(leg["railLinkList"]) * _SUBWAY_MIN_PER_STATION * 60
                        minutes = self._minutes(walk + walk_door + walk_end, ride, 1)
                        out.append((minutes, round(length + rail), [self._bus_leg(route, i, x), leg]))
        return out
