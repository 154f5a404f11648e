"""Public transit: TAGO city buses across the country and Seoul city buses.

Two networks, both laid out the same way: a city holds *places* (a crossroads,
a market, a school gate), each served by two stops — one per direction, each
with its own stop id, both with the place's name (so several stops share a
name, as on the real platforms). A route runs out along a line of places and
back (up stops, a turnaround, down stops), so its stop sequence is ordered
and geographically coherent.

* TAGO (국토교통부 대중교통 정보, ``apis.data.go.kr/1613000``): the real
  2-digit metro city codes (12 세종, 21 부산 … 25 대전, 26 울산, 39 제주)
  first, then 5-digit 시군 codes (31010 수원 …). Seoul is not served. Route
  ids carry a city prefix (DJB30300004), stop ids too (DJB8001793); the stop
  number shown at the stop (nodeno) is a separate 5-digit number.
* Seoul (``ws.bus.go.kr``): busRouteId and stId are 9 digits, arsId 5 digits
  whose first two digits are the 구 (19xxx 영등포구), stations placed in the
  25 구 of ``world.regions``.

Real-time answers (bus positions, arrival predictions) are a snapshot at
08:30 of the as-of date: a pure function of (seed, as-of date, route) — no
wall clock. Night routes (N16 …) are out of service at that hour.
City networks are built per city on first use, so a call in one city never
pays for the other 131 of a full-size world.

A few *anchors* exist in every world, whatever the seed and size, because the
catalog's examples and descriptions name them: Seoul station 19001 (영등포구청)
with route 100100110 (4882) stopping there at seq 13, route number 143 (간선), and in
세종 (cityCode 12) stop SJB8000016 at 세종종합운동장 with route SJB30300001
through it. Each takes the place of a drawn stop or route; the rest of the
network stays as the seed drew it.
"""

from __future__ import annotations

import datetime as dt
import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import TYPE_CHECKING

import numpy as np

from kopa_replay.sim.world import evict_oldest
from kopa_replay.sim.world.fmt import data, frozen
from kopa_replay.sim.world.regions import Sido, Sigungu

if TYPE_CHECKING:
    from kopa_replay.sim.world import World
    from kopa_replay.sim.world.transit_paths import SeoulPaths

__all__ = [
    "TransitWorld",
    "TagoCity",
    "TagoStop",
    "TagoRoute",
    "TagoNetwork",
    "SeoulStation",
    "SeoulRoute",
    "BusPosition",
    "Arrival",
    "SNAPSHOT_TIME",
    "metres",
    "seoul_tm",
]

#: the fact tables (TAGO's cities and towns, Seoul's 구 centres, stop-name suffixes, operators): data/transit.yaml
_DATA = frozen(data("transit"))
#: The time of day the real-time snapshot of an as-of date describes.
SNAPSHOT_TIME = dt.time(8, 30, 0)

_TAGO_METROS = _DATA["tago_metros"]
_TAGO_PROVINCES = _DATA["tago_provinces"]
_PROVINCE_TOWNS = _DATA["province_towns"]
_SEOUL_GU_CENTRES = _DATA["seoul_gu_centres"]

_STOP_SUFFIXES = _DATA["stop_suffixes"]
_SEOUL_SUFFIXES = _DATA["seoul_suffixes"]

_TAGO_ROUTE_TYPES = ("간선버스", "지선버스", "급행버스", "마을버스")
_TAGO_TYPE_WEIGHTS = (0.35, 0.40, 0.10, 0.15)

# Seoul routeType codes (busRouteInfo): 1 공항 2 마을 3 간선 4 지선 5 순환 6 광역 7 인천 8 경기 9 폐지 0 공용
_SEOUL_KINDS = ("간선", "지선", "마을", "광역", "심야", "순환", "공항")
_SEOUL_KIND_WEIGHTS = (0.30, 0.40, 0.10, 0.06, 0.08, 0.03, 0.03)
_SEOUL_KIND_TYPE = {"간선": "3", "지선": "4", "마을": "2", "광역": "6", "심야": "3", "순환": "5", "공항": "1"}
_SEOUL_CORPS = _DATA["seoul_corps"]
_PLATE_LETTERS = ("아", "바", "사", "자", "배")

# Anchors: stops and routes the catalog's examples and descriptions name, the same in every world (seed and size)
# so that an example answers whatever the world. A stop anchor gives one stop of a place its fixed ids (the other
# stops keep the numbers the seed drew for them); a route anchor takes the place of one drawn route — the one with
# its id, else the one with its number, else the last drawn route of its kind — and keeps what it does not fix
# (its line unless told otherwise, times, headway, operator's telephone). A route through a stop keeps its drawn
# line when the line already puts the stop at the anchored seq, else runs a new line through it; so seed 0, whose
# draws gave these values, keeps its own lines.
#: Seoul: (구, place — 0 is the 구청 —, side, stId, arsId)
_SEOUL_STATION_ANCHORS = (("영등포구", 0, 0, "118000001", "19001"),)
#: Seoul routes: the examples' route (busRouteId 100100110 stopping at stId 118000001 as seq 13), and 143, the
#: route number the catalog's descriptions give: a 간선 route run by 대진여객, as the real one is. 143 is anchored
#: by its number only; it keeps the id and line of the drawn route it replaces, so no other route's data moves.
_SEOUL_ROUTE_ANCHORS = (
    dict(route_id="100100110", name="4882", kind="지선", through=("118000001", 13)),
    dict(name="143", kind="간선", corp="대진여객"),
)
#: Seoul buses: (busRouteId, fleet index) → vehId. Bus 0 of the examples' route keeps the vehId seed 0 drew for it,
#: so the example of getBusPosByVehId answers in every world.
_SEOUL_VEHICLE_ANCHORS = {("100100110", 0): "111099459"}
#: TAGO: per city code, the stop (place, side, nodeId, the place's position) and the route through it at a seq.
#: Place 3 is the city's 종합운동장 (세종종합운동장).
_TAGO_ANCHORS = {
    "12": dict(place=3, side=1, node_id="SJB8000016", lat=36.4778712, lon=127.2568738, route_id="SJB30300001", seq=17),
}


# ---------------------------------------------------------------------------
# entities


@dataclass(frozen=True)
class TagoCity:
    code: str  # "25" (metro) or "31010" (시군)
    name: str  # cityname as TAGO spells it
    prefix: str  # id prefix of its routes and stops (DJB)
    sido: Sido
    sigungu: Sigungu | None
    lat: float
    lon: float
    index: int  # position in the city list; drives the id ranges

    @property
    def plate_region(self) -> str:
        return self.sido.short


@dataclass(frozen=True)
class TagoStop:
    node_id: str  # DJB8001793
    node_no: int  # the number shown at the stop (41193)
    name: str
    lat: float
    lon: float
    city_code: str


@dataclass(frozen=True)
class TagoRoute:
    route_id: str  # DJB30300004
    route_no: str  # "102", "급행2", "5-1"
    route_type: str  # 간선버스 …
    city_code: str
    stops: tuple[TagoStop, ...]  # nodeord 1..n
    turn: int  # number of up (updowncd 0) stops; the rest run down (1)
    first_time: str  # "0530"
    last_time: str  # "2230"
    interval: int  # minutes, weekdays
    interval_sat: int
    interval_sun: int

    @property
    def start_name(self) -> str:
        return self.stops[0].name

    @property
    def end_name(self) -> str:
        return self.stops[self.turn - 1].name

    def updown(self, index: int) -> int:
        """updowncd of the stop at 0-based ``index``: 0 up to the turnaround, 1 after."""
        return 0 if index < self.turn else 1


@dataclass
class TagoNetwork:
    """One city's stops and routes with the indexes handlers need."""

    city: TagoCity
    stops: tuple[TagoStop, ...]
    routes: tuple[TagoRoute, ...]
    stop_by_id: dict[str, TagoStop] = field(default_factory=dict)
    route_by_id: dict[str, TagoRoute] = field(default_factory=dict)
    #: node id -> [(route, 0-based index in the route's stop sequence)], in route order
    routes_at: dict[str, list[tuple[TagoRoute, int]]] = field(default_factory=dict)
    #: grid cell -> the stops in it (the coordinate search)
    grid: dict[tuple[int, int], list[TagoStop]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.stop_by_id = {s.node_id: s for s in self.stops}
        self.route_by_id = {r.route_id: r for r in self.routes}
        for stop in self.stops:
            self.grid.setdefault(_cell(stop.lat, stop.lon), []).append(stop)
        for route in self.routes:
            for index, stop in enumerate(route.stops):
                self.routes_at.setdefault(stop.node_id, []).append((route, index))


@dataclass(frozen=True)
class SeoulStation:
    st_id: str  # 9 digits (118000005)
    ars_id: str  # 5 digits (19005)
    name: str
    lat: float
    lon: float
    gu: Sigungu

    @property
    def tm(self) -> tuple[float, float]:
        return seoul_tm(self.lat, self.lon)


@dataclass(frozen=True)
class SeoulRoute:
    route_id: str  # busRouteId, 9 digits
    name: str  # rtNm / busRouteNm (143, 7612, N16, 종로01)
    kind: str  # 간선, 지선, 마을, 광역, 심야, 순환, 공항
    route_type: str  # routeType code
    corp: str  # "대진여객  02-916-2678" (two spaces, as the API writes it)
    stations: tuple[SeoulStation, ...]  # seq 1..n
    turn: int  # seq of the turnaround station
    first_time: str  # "0400"
    last_time: str  # "2230"
    term: int  # headway, minutes
    length_km: float

    @property
    def night(self) -> bool:
        return self.kind == "심야"

    @property
    def start_name(self) -> str:
        return self.stations[0].name

    @property
    def end_name(self) -> str:
        return self.stations[self.turn - 1].name

    def heading(self, index: int) -> str:
        """Where a bus at 0-based ``index`` is heading (the ``direction`` field)."""
        return self.end_name if index < self.turn - 1 else self.start_name


@dataclass(frozen=True)
class BusPosition:
    index: int  # 0-based index of the stop the bus last left
    progress: float  # share of the way to the next stop
    vehicle: int  # index into the route's fleet
    low_floor: bool
    congestion: int  # 0 없음, 3 여유, 4 보통, 5 혼잡, 6 매우혼잡


@dataclass(frozen=True)
class Arrival:
    stops_away: int
    seconds: int
    bus: BusPosition


# ---------------------------------------------------------------------------
# layout helpers shared by both networks


def _route_line(
    rng: np.random.Generator, lat: np.ndarray, lon: np.ndarray, count: int, span: float | None, hubs: int = 0
) -> tuple[list[int], bool]:
    """Indexes of ``count`` places along a random line, in travel order, and the travel direction.

    Places nearest a line through a random place are taken (within ``span``
    degrees along the line when given) and ordered by their position on it.
    Half the lines pass through one of the first ``hubs`` places (the
    station, the terminal), as real networks converge on them. The flag says
    whether the line heads "east" (it picks which of a place's two stops the
    outbound bus uses, so buses going the same way share stops).
    """
    through_hub = hubs > 0 and rng.random() < 0.5
    origin = int(rng.integers(hubs if through_hub else len(lat)))
    angle = float(rng.uniform(0, math.pi * 2))
    dx, dy = math.cos(angle), math.sin(angle)
    rel_x = (lon - lon[origin]) * math.cos(math.radians(float(lat[origin])))
    rel_y = lat - lat[origin]
    along = rel_x * dx + rel_y * dy
    across = np.abs(rel_x * dy - rel_y * dx)
    candidates = np.arange(len(lat))
    if span is not None:
        # A band span long and a fifth of that wide keeps the route from zig-zagging across town.
        in_band = (np.abs(along) <= span / 2) & (across <= span / 5)
        candidates = candidates[in_band] if in_band.sum() >= min(count, 6) else candidates
    chosen = candidates[np.argsort(across[candidates], kind="stable")[:count]]
    ordered = chosen[np.argsort(along[chosen], kind="stable")]
    return [int(i) for i in ordered], dx >= 0


def _out_and_back(pairs: list[tuple[object, object]], eastward: bool) -> tuple[list, int]:
    """A round trip over places (each a pair of stops): out on one side, back on the other.

    Returns the stop sequence and the number of outbound stops (the
    turnaround stop, counted once, ends the outbound half).
    """
    out = [p[0] if eastward else p[1] for p in pairs]
    back = [p[1] if eastward else p[0] for p in reversed(pairs[:-1])]
    return out + back, len(out)


def _line_through(
    lat: np.ndarray, lon: np.ndarray, origin: int, heading: float, before: int, after: int, reach: float | None = None
) -> list[int]:
    """Indexes of places along a line through place ``origin`` heading ``heading`` (radians, 0 = east), in
    travel order: ``before`` places behind it, the origin, then ``after`` ahead.

    On each side the places nearest the line are taken, preferring those within ``reach`` degrees along it and a
    fifth of that across (as :func:`_route_line` keeps a route from zig-zagging), then any width; a side short
    of places takes what it has.
    """
    dx, dy = math.cos(heading), math.sin(heading)
    rel_x = (lon - lon[origin]) * math.cos(math.radians(float(lat[origin])))
    rel_y = lat - lat[origin]
    along = rel_x * dx + rel_y * dy
    across = np.abs(rel_x * dy - rel_y * dx)

    def side(mask: np.ndarray, count: int) -> list[int]:
        pool = np.flatnonzero(mask)
        if reach is not None:
            for width in (reach / 5, math.inf):
                near = pool[(np.abs(along[pool]) <= reach) & (across[pool] <= width)]
                if len(near) >= count:
                    pool = near
                    break
        chosen = pool[np.argsort(across[pool], kind="stable")[:count]]
        return [int(i) for i in chosen[np.argsort(along[chosen], kind="stable")]]

    others = np.arange(len(lat)) != origin
    return side(others & (along < 0), before) + [origin] + side(others & (along >= 0), after)


def _anchored_line(
    rng: np.random.Generator,
    lat: np.ndarray,
    lon: np.ndarray,
    place: int,
    side: int,
    index: int,
    outbound: int,
    reach: float | None,
) -> tuple[list[int], bool]:
    """A line of ``outbound`` places whose outbound half reaches ``place`` as its ``index``-th (0-based) stop.

    The outbound half uses a place's stop on side 0 heading east and on side 1 heading west (see
    :func:`_out_and_back`), so the heading is drawn on the half that uses the anchored stop's side; of a few
    headings, the first with ``index`` places behind the place is taken.
    """
    eastward = side == 0
    heading = 0.0
    for _ in range(16):
        heading = float(rng.uniform(-math.pi / 2, math.pi / 2)) + (0.0 if eastward else math.pi)
        dx, dy = math.cos(heading), math.sin(heading)
        along = (lon - lon[place]) * math.cos(math.radians(float(lat[place]))) * dx + (lat - lat[place]) * dy
        if int((along < 0).sum()) >= index:
            break
    return _line_through(lat, lon, place, heading, index, outbound - index - 1, reach), eastward


def _place_names(
    rng: np.random.Generator, stems: list[str], suffixes: tuple[str, ...], count: int, landmarks: Iterable[str] = ()
) -> list[str]:
    """``count`` stop names from neighbourhood stems; a few landmarks first. Repeats are allowed."""
    names = list(landmarks)[:count]
    while len(names) < count:
        stem = stems[int(rng.integers(len(stems)))]
        suffix = suffixes[int(rng.integers(len(suffixes)))]
        names.append(stem + suffix)
    return names


def _unique(draw: Callable[[int], str], used: set[str]) -> str:
    """A value from ``draw`` not yet in ``used`` (then added); the draw widens its range as tries fail."""
    attempt = 0
    while True:
        value = draw(attempt // 20)
        if value not in used:
            used.add(value)
            return value
        attempt += 1


def _plate(rng: np.random.Generator, region: str) -> str:
    return (
        f"{region}{int(rng.integers(70, 80))}{_PLATE_LETTERS[int(rng.integers(len(_PLATE_LETTERS)))]}"
        f"{int(rng.integers(1000, 10000))}"
    )


# ---------------------------------------------------------------------------


class TransitWorld:
    """The seeded transit networks of one world."""

    def __init__(self, world: "World") -> None:
        self._world = world
        self._tago_networks: dict[str, TagoNetwork] = {}
        self._segment_cache: dict[tuple, tuple[np.ndarray, np.ndarray]] = {}
        self._position_cache: dict[tuple, tuple[BusPosition, ...]] = {}
        #: (busRouteId, fleet index) -> (vehId, plainNo): a few thousand buses at most
        self._fleet_cache: dict[tuple[str, int], tuple[str, str]] = {}

    # -- TAGO cities ------------------------------------------------------
    @cached_property
    def tago_cities(self) -> tuple[TagoCity, ...]:
        """The served cities, in getCtyCodeList order (numeric city code)."""
        regions = self._world.regions
        sido_by_code = {s.code: s for s in regions.sido}
        rows: list[tuple[str, str, str, Sido, Sigungu | None, float, float]] = []
        for code, name, prefix, sido_code, lat, lon in _TAGO_METROS:
            rows.append((code, name, prefix, sido_by_code[sido_code], None, lat, lon))
        candidates = self._tago_town_candidates(sido_by_code)
        wanted = max(0, self._world.sizes.tago_cities - len(rows))
        rng = self._world.rng("transit.tago.cities")
        if wanted < len(candidates):
            picks = sorted(int(i) for i in rng.choice(len(candidates), size=wanted, replace=False))
            candidates = [candidates[i] for i in picks]
        rows.extend(candidates)
        rows.sort(key=lambda row: int(row[0]))
        return tuple(
            TagoCity(code, name, prefix, sido, sgg, round(lat, 4), round(lon, 4), index)
            for index, (code, name, prefix, sido, sgg, lat, lon) in enumerate(rows)
        )

    def _tago_town_candidates(self, sido_by_code: dict[str, Sido]) -> list:
        regions = self._world.regions
        rng = self._world.rng("transit.tago.towns")
        out = []
        for prefix2, sido_code, id_prefix, lat, lon in _TAGO_PROVINCES:
            sido = sido_by_code[sido_code]
            in_region = {s.name: s for s in regions.sigungu_of(sido)}
            names = (
                [s.name for s in regions.sigungu_of(sido)] if sido_code == "41" else list(_PROVINCE_TOWNS[sido_code])
            )
            for i, name in enumerate(names):
                out.append(
                    (
                        f"{prefix2}{10 * (i + 1):03d}",
                        name,
                        id_prefix,
                        sido,
                        in_region.get(name),
                        lat + float(rng.uniform(-0.35, 0.35)),
                        lon + float(rng.uniform(-0.35, 0.35)),
                    )
                )
        return out

    @cached_property
    def tago_city_by_code(self) -> dict[str, TagoCity]:
        return {c.code: c for c in self.tago_cities}

    def tago_network(self, city_code: str) -> TagoNetwork | None:
        """The stops and routes of one city (built on first use); None for a code TAGO does not serve."""
        city = self.tago_city_by_code.get(city_code)
        if city is None:
            return None
        if city_code not in self._tago_networks:
            self._tago_networks[city_code] = self._build_tago_network(city)
        return self._tago_networks[city_code]

    def _stems_for(self, sido: Sido, sigungu: Sigungu | None) -> list[str]:
        regions = self._world.regions
        areas = [sigungu] if sigungu is not None else regions.sigungu_of(sido)
        stems = sorted({d.name[:-1] for a in areas for d in regions.dongs_of(a)})
        return stems or ["중앙"]

    def _build_tago_network(self, city: TagoCity) -> TagoNetwork:
        world = self._world
        rng = world.rng("transit.tago.network", city.code)
        per_city = world.sizes.routes_per_city
        places = per_city * 4
        half = 0.06 if len(city.code) == 2 else 0.035
        lat = city.lat + rng.uniform(-half, half, size=places) * 0.8
        lon = city.lon + rng.uniform(-half, half, size=places)
        anchor = _TAGO_ANCHORS.get(city.code)
        if anchor is not None and anchor["place"] >= places:
            anchor = None
        if anchor is not None:
            lat[anchor["place"]], lon[anchor["place"]] = anchor["lat"], anchor["lon"]
        town = city.name[:-1] if len(city.code) == 5 else city.sido.short
        landmarks = (
            f"{town}역",
            f"{town}시외버스터미널",
            f"{city.name}청" if len(city.code) == 5 else "시청",
            f"{town}종합운동장",
        )
        # Names draw from their own stream so that ids and positions do not move when the region tree does.
        names = _place_names(
            world.rng("transit.tago.names", city.code),
            self._stems_for(city.sido, city.sigungu),
            _STOP_SUFFIXES,
            places,
            landmarks,
        )

        node_base = 8_000_000 + city.index * 10_000
        node_no = int(rng.integers(10_000, 90_000))
        pairs: list[tuple[TagoStop, TagoStop]] = []
        stops: list[TagoStop] = []
        serial = 0
        for i in range(places):
            pair = []
            for side in (0, 1):
                # The stop across the street stands a few metres away.
                offset = 0.00018 if side else 0.0
                serial += int(rng.integers(1, 4))
                node_no += int(rng.integers(1, 3))
                stop = TagoStop(
                    f"{city.prefix}{node_base + serial:07d}",
                    node_no,
                    names[i],
                    round(float(lat[i]) + offset, 7),
                    round(float(lon[i]) + offset, 7),
                    city.code,
                )
                pair.append(stop)
                stops.append(stop)
            pairs.append((pair[0], pair[1]))
        if anchor is not None:
            # The anchored stop takes its id; a stop that drew that id takes the one the anchored stop drew.
            fixed = pairs[anchor["place"]][anchor["side"]]
            swapped = {fixed.node_id: replace(fixed, node_id=anchor["node_id"])}
            for stop in stops:
                if stop.node_id == anchor["node_id"] and stop is not fixed:
                    swapped[stop.node_id] = replace(stop, node_id=fixed.node_id)
            stops = [swapped.get(stop.node_id, stop) for stop in stops]
            pairs = [(swapped.get(a.node_id, a), swapped.get(b.node_id, b)) for a, b in pairs]

        routes: list[TagoRoute] = []
        used_numbers: set[str] = set()
        route_base = 30_300_000 + city.index * 1_000
        for k in range(per_city):
            kind = _TAGO_ROUTE_TYPES[int(rng.choice(len(_TAGO_ROUTE_TYPES), p=_TAGO_TYPE_WEIGHTS))]
            number = self._tago_route_number(rng, kind, used_numbers)
            length = int(rng.integers(15, 36)) if kind != "마을버스" else int(rng.integers(10, 18))
            order, eastward = _route_line(rng, lat, lon, length, None, hubs=len(landmarks))
            sequence, turn = _out_and_back([pairs[i] for i in order], eastward)
            first = f"{int(rng.integers(5, 7)):02d}{int(rng.choice([0, 10, 20, 30, 40])):02d}"
            last = f"{int(rng.integers(21, 24)):02d}{int(rng.choice([0, 15, 30, 45])):02d}"
            interval = int(rng.integers(8, 31))
            routes.append(
                TagoRoute(
                    f"{city.prefix}{route_base + k + 1:08d}",
                    number,
                    kind,
                    city.code,
                    tuple(sequence),
                    turn,
                    first,
                    last,
                    interval,
                    interval + interval // 5,
                    interval + interval * 2 // 5,
                )
            )
        if anchor is not None:
            self._anchor_tago_route(city, anchor, routes, pairs, lat, lon)
        return TagoNetwork(city, tuple(stops), tuple(routes))

    def _anchor_tago_route(
        self,
        city: TagoCity,
        anchor: dict,
        routes: list[TagoRoute],
        pairs: list[tuple[TagoStop, TagoStop]],
        lat: np.ndarray,
        lon: np.ndarray,
    ) -> None:
        """Make the anchored route stop at the anchored stop as its ``seq``-th stop (see _TAGO_ANCHORS)."""
        k = next((k for k, r in enumerate(routes) if r.route_id == anchor["route_id"]), None)
        if k is None:
            return
        route, index = routes[k], anchor["seq"] - 1
        if index < len(route.stops) and route.stops[index].node_id == anchor["node_id"]:
            return  # the drawn line already does
        rng = self._world.rng("transit.tago.anchor", city.code)
        outbound = max(route.turn, index + 4)
        order, eastward = _anchored_line(rng, lat, lon, anchor["place"], anchor["side"], index, outbound, None)
        sequence, turn = _out_and_back([pairs[i] for i in order], eastward)
        routes[k] = replace(route, stops=tuple(sequence), turn=turn)

    @staticmethod
    def _tago_route_number(rng: np.random.Generator, kind: str, used: set[str]) -> str:
        def draw(widen: int) -> str:
            if kind == "간선버스":
                return str(int(rng.integers(100, 200 + widen)) + (500 if rng.random() < 0.4 else 0))
            if kind == "지선버스":
                return str(int(rng.integers(300, 1000 + widen)))
            if kind == "급행버스":
                return f"급행{int(rng.integers(1, 10 + widen))}"
            return f"{int(rng.integers(1, 30 + widen))}-{int(rng.integers(1, 4))}"

        return _unique(draw, used)

    def tago_stops_near(self, lat: float, lon: float, radius_m: float) -> list[tuple[float, TagoStop]]:
        """(distance in metres, stop) for every TAGO stop within ``radius_m``, nearest first."""
        found: list[tuple[float, TagoStop]] = []
        for city in self.tago_cities:
            if abs(city.lat - lat) > 0.2 or abs(city.lon - lon) > 0.2:
                continue  # stops lie within ~0.06° of their city's centre
            grid = self.tago_network(city.code).grid
            for stop in _near_cells(grid, lat, lon, radius_m):
                distance = metres(lat, lon, stop.lat, stop.lon)
                if distance <= radius_m:
                    found.append((distance, stop))
        found.sort(key=lambda pair: (pair[0], pair[1].node_id))
        return found

    # -- real time: shared by both networks ------------------------------
    def _segments(self, label: str, line_id: str, count: int) -> tuple[np.ndarray, np.ndarray]:
        """Seconds between consecutive stops of a line, and their running sums (stable per line)."""
        key = (label, line_id, count)
        cached = self._segment_cache.get(key)
        if cached is None:
            seconds = self._world.rng(label, "segments", line_id).integers(55, 170, size=max(count - 1, 1))
            cached = self._segment_cache[key] = (seconds, np.concatenate(([0], np.cumsum(seconds))))
            evict_oldest(self._segment_cache, _CACHED)
        return cached

    def _positions(self, label: str, line_id: str, count: int, as_of: dt.date) -> list[BusPosition]:
        """Where the buses of a line are at the snapshot time of ``as_of`` (a route's arrivals at each of its
        stops read the same draw, so it is kept)."""
        key = (label, line_id, count, as_of)
        cached = self._position_cache.get(key)
        if cached is None:
            cached = self._position_cache[key] = tuple(self._draw_positions(label, line_id, count, as_of))
            evict_oldest(self._position_cache, _CACHED)
        return list(cached)

    def _draw_positions(self, label: str, line_id: str, count: int, as_of: dt.date) -> list[BusPosition]:
        rng = self._world.rng(label, "positions", line_id, as_of.isoformat())
        gap = int(rng.integers(5, 12))
        offset = int(rng.integers(0, gap))
        out = []
        for k, index in enumerate(range(offset, count - 1, gap)):
            out.append(
                BusPosition(
                    index=index,
                    progress=round(float(rng.uniform(0, 0.95)), 2),
                    vehicle=k,
                    low_floor=bool(rng.random() < 0.6),
                    congestion=int(rng.choice([3, 4, 5, 6], p=[0.45, 0.35, 0.15, 0.05])),
                )
            )
        return out

    def _arrivals(
        self, label: str, line_id: str, count: int, stop_index: int, as_of: dt.date, limit: int = 2
    ) -> list[Arrival]:
        """The next ``limit`` buses to reach the stop at ``stop_index``, soonest first."""
        seconds, running = self._segments(label, line_id, count)
        out = []
        for bus in self._positions(label, line_id, count, as_of):
            if bus.index >= stop_index:
                continue
            eta = float(running[stop_index] - running[bus.index]) - bus.progress * float(seconds[bus.index])
            out.append(Arrival(stop_index - bus.index, max(int(eta), 5), bus))
        out.sort(key=lambda a: a.seconds)
        return out[:limit]

    def tago_buses(self, route: TagoRoute, as_of: dt.date) -> list[BusPosition]:
        return self._positions("transit.tago", route.route_id, len(route.stops), as_of)

    def tago_arrivals(self, route: TagoRoute, stop_index: int, as_of: dt.date, limit: int = 2) -> list[Arrival]:
        return self._arrivals("transit.tago", route.route_id, len(route.stops), stop_index, as_of, limit)

    def tago_vehicle_no(self, route: TagoRoute, bus: BusPosition) -> str:
        city = self.tago_city_by_code[route.city_code]
        return _plate(self._world.rng("transit.tago.fleet", route.route_id, bus.vehicle), city.plate_region)

    # -- Seoul ------------------------------------------------------------
    @cached_property
    def seoul_gus(self) -> tuple[Sigungu, ...]:
        return tuple(s for s in self._world.regions.sigungu if s.sido.code == "11")

    @cached_property
    def seoul_stations(self) -> tuple[SeoulStation, ...]:
        """Every station, 구 by 구; two per place (one per direction) with the place's name."""
        world = self._world
        rng = world.rng("transit.seoul.stations")
        name_rng = world.rng("transit.seoul.names")
        per_gu = max(8, round(world.sizes.seoul_routes * 0.35))
        out: list[SeoulStation] = []
        for gu_index, gu in enumerate(self.seoul_gus):
            centre_lat, centre_lon = _SEOUL_GU_CENTRES.get(gu.name, (37.55, 126.99))
            stems = sorted({d.name[:-1] for d in world.regions.dongs_of(gu)}) or [gu.name[:-1]]
            landmarks = (f"{gu.name}청", f"{gu.name}보건소")
            names = _place_names(name_rng, stems, _SEOUL_SUFFIXES, per_gu, landmarks)
            anchors = {
                (place, side): (st_id, ars_id)
                for gu_name, place, side, st_id, ars_id in _SEOUL_STATION_ANCHORS
                if gu_name == gu.name
            }
            first = len(out)
            serial = 0
            for i in range(per_gu):
                lat = centre_lat + float(rng.normal(0, 0.011))
                lon = centre_lon + float(rng.normal(0, 0.013))
                for side in (0, 1):
                    serial += int(rng.integers(1, 3))
                    out.append(
                        SeoulStation(
                            st_id=f"{100 + gu_index}000{serial:03d}",
                            ars_id=f"{gu_index + 1:02d}{serial:03d}",
                            name=names[i],
                            lat=round(lat + (0.00017 if side else 0.0), 10),
                            lon=round(lon + (0.00021 if side else 0.0), 10),
                            gu=gu,
                        )
                    )
            # An anchored station takes its ids; a station of the 구 that drew them takes the ones it drew.
            for (place, side), (st_id, ars_id) in anchors.items():
                k = first + 2 * place + side
                if k >= len(out):
                    continue
                fixed = out[k]
                for j in range(first, len(out)):
                    if out[j].st_id == st_id and j != k:
                        out[j] = replace(out[j], st_id=fixed.st_id, ars_id=fixed.ars_id)
                out[k] = replace(fixed, st_id=st_id, ars_id=ars_id)
        return tuple(out)

    @cached_property
    def seoul_station_by_ars(self) -> dict[str, SeoulStation]:
        return {s.ars_id: s for s in self.seoul_stations}

    @cached_property
    def seoul_station_by_id(self) -> dict[str, SeoulStation]:
        return {s.st_id: s for s in self.seoul_stations}

    @cached_property
    def seoul_routes(self) -> tuple[SeoulRoute, ...]:
        world = self._world
        rng = world.rng("transit.seoul.routes")
        stations = self.seoul_stations
        pairs = [(stations[i], stations[i + 1]) for i in range(0, len(stations), 2)]
        lat = np.array([p[0].lat for p in pairs])
        lon = np.array([p[0].lon for p in pairs])
        used_names: set[str] = set()
        used_ids: set[str] = set()
        out = []
        for _ in range(world.sizes.seoul_routes):
            kind = _SEOUL_KINDS[int(rng.choice(len(_SEOUL_KINDS), p=_SEOUL_KIND_WEIGHTS))]
            name = self._seoul_route_name(rng, kind, used_names)
            route_id = self._seoul_route_id(rng, kind, used_ids)
            length = int(rng.integers(8, 16)) if kind == "마을" else int(rng.integers(18, 42))
            span = 0.05 if kind == "마을" else 0.16
            order, eastward = _route_line(rng, lat, lon, length, span)
            sequence, turn = _out_and_back([pairs[i] for i in order], eastward)
            if kind == "심야":
                first, last = "2330", "0400"
            else:
                first = f"{int(rng.integers(4, 6)):02d}{int(rng.choice([0, 10, 20, 30, 40])):02d}"
                last = f"{int(rng.integers(22, 24)):02d}{int(rng.choice([0, 10, 20, 30, 40])):02d}"
            corp = (
                f"{_SEOUL_CORPS[int(rng.integers(len(_SEOUL_CORPS)))]}  "
                f"02-{int(rng.integers(200, 1000))}-{int(rng.integers(1000, 10000))}"
            )
            distance = sum(metres(a.lat, a.lon, b.lat, b.lon) for a, b in zip(sequence, sequence[1:]))
            out.append(
                SeoulRoute(
                    route_id,
                    name,
                    kind,
                    _SEOUL_KIND_TYPE[kind],
                    corp,
                    tuple(sequence),
                    turn,
                    first,
                    last,
                    int(rng.integers(4, 25)),
                    round(distance / 1000, 2),
                )
            )
        self._place_route_anchors(out, pairs, lat, lon, used_names)
        out.sort(key=lambda r: r.route_id)
        return tuple(out)

    def _place_route_anchors(
        self,
        routes: list[SeoulRoute],
        pairs: list[tuple[SeoulStation, SeoulStation]],
        lat: np.ndarray,
        lon: np.ndarray,
        used_names: set[str],
    ) -> None:
        """Put each anchored route in place of a drawn one (see _SEOUL_ROUTE_ANCHORS)."""
        rng = self._world.rng("transit.seoul.anchors")
        taken: list[int] = []
        rules = (
            lambda spec, r: r.route_id == spec.get("route_id"),
            lambda spec, r: r.name == spec["name"],
            lambda spec, r: r.kind == spec["kind"],
            lambda spec, r: True,
        )
        for spec in _SEOUL_ROUTE_ANCHORS:
            target = None
            for rule in rules:
                found = [k for k, r in enumerate(routes) if k not in taken and rule(spec, r)]
                if found:
                    target = found[-1]
                    break
            if target is None:
                return
            taken.append(target)
            route = routes[target]
            stations, turn = route.stations, route.turn
            if "through" in spec:
                st_id, seq = spec["through"]
                index = seq - 1
                if not (index < len(stations) and stations[index].st_id == st_id):
                    place, side = next((k, p.index(s)) for k, p in enumerate(pairs) for s in p if s.st_id == st_id)
                    # within 0.08° along the line, as drawn routes keep to a 0.16° span (_route_line)
                    order, eastward = _anchored_line(rng, lat, lon, place, side, index, max(turn, index + 4), 0.08)
                    stations, turn = _out_and_back([pairs[k] for k in order], eastward)
            first, last = route.first_time, route.last_time
            if (spec["kind"] == "심야") != route.night:
                first, last = ("2330", "0400") if spec["kind"] == "심야" else ("0430", "2300")
            corp = f"{spec['corp']}  {route.corp.split('  ', 1)[-1]}" if "corp" in spec else route.corp
            distance = sum(metres(a.lat, a.lon, b.lat, b.lon) for a, b in zip(stations, stations[1:]))
            routes[target] = replace(
                route,
                route_id=spec.get("route_id", route.route_id),
                name=spec["name"],
                kind=spec["kind"],
                route_type=_SEOUL_KIND_TYPE[spec["kind"]],
                corp=corp,
                stations=tuple(stations),
                turn=turn,
                first_time=first,
                last_time=last,
                length_km=round(distance / 1000, 2),
            )
        # a drawn route left with an anchor's number takes another
        anchored = {routes[k].name for k in taken}
        used_names |= anchored
        for k, route in enumerate(routes):
            if k not in taken and route.name in anchored:
                routes[k] = replace(route, name=self._seoul_route_name(rng, route.kind, used_names))

    @staticmethod
    def _seoul_route_name(rng: np.random.Generator, kind: str, used: set[str]) -> str:
        def draw(widen: int) -> str:
            if kind == "간선":
                return f"{int(rng.integers(1, 8))}{int(rng.integers(0, 100)):02d}"
            if kind == "지선":
                return f"{int(rng.integers(1, 8))}{int(rng.integers(0, 10))}{int(rng.integers(0, 100)):02d}"
            if kind == "마을":
                area = ("종로", "마포", "강남", "서초", "관악", "성북", "은평", "동작")[int(rng.integers(8))]
                return f"{area}{int(rng.integers(1, 20 + widen)):02d}"
            if kind == "광역":
                return f"9{int(rng.integers(100, 800))}"
            if kind == "심야":
                return f"N{int(rng.integers(10, 90 + widen))}"
            if kind == "순환":
                return f"{int(rng.integers(1, 10 + widen)):02d}"
            return f"60{int(rng.integers(0, 100 + widen)):02d}"

        return _unique(draw, used)

    @staticmethod
    def _seoul_route_id(rng: np.random.Generator, kind: str, used: set[str]) -> str:
        def draw(widen: int) -> str:
            head = {"마을": "1209", "심야": "1009"}.get(kind) or str(rng.choice(["1001", "1001", "1111", "1241"]))
            return f"{head}{int(rng.integers(1, 1000 + widen)):05d}"

        return _unique(draw, used)

    @cached_property
    def seoul_route_by_id(self) -> dict[str, SeoulRoute]:
        return {r.route_id: r for r in self.seoul_routes}

    @cached_property
    def seoul_routes_at(self) -> dict[str, list[tuple[SeoulRoute, int]]]:
        """stId -> [(route, 0-based index in its station sequence)], in route-id order."""
        table: dict[str, list[tuple[SeoulRoute, int]]] = {}
        for route in self.seoul_routes:
            for index, station in enumerate(route.stations):
                table.setdefault(station.st_id, []).append((route, index))
        return table

    def seoul_buses(self, route: SeoulRoute, as_of: dt.date) -> list[BusPosition]:
        """Buses on the road at the snapshot time; none for a night route (운행 종료)."""
        if route.night:
            return []
        return self._positions("transit.seoul", route.route_id, len(route.stations), as_of)

    def seoul_arrivals(self, route: SeoulRoute, index: int, as_of: dt.date, low_floor: bool = False) -> list[Arrival]:
        """The next two buses to reach the station; ``low_floor``: the next two low-floor buses (the getLow… calls)."""
        if route.night:
            return []
        count = len(route.stations)
        if not low_floor:
            return self._arrivals("transit.seoul", route.route_id, count, index, as_of)
        coming = self._arrivals("transit.seoul", route.route_id, count, index, as_of, limit=count)
        return [a for a in coming if a.bus.low_floor][:2]

    def seoul_vehicle(self, route: SeoulRoute, bus: BusPosition) -> tuple[str, str]:
        """(vehId, plainNo) of one bus of a route's fleet."""
        return self._seoul_fleet(route.route_id, bus.vehicle)

    def _seoul_fleet(self, route_id: str, vehicle: int) -> tuple[str, str]:
        key = (route_id, vehicle)
        if key not in self._fleet_cache:
            rng = self._world.rng("transit.seoul.fleet", route_id, vehicle)
            veh_id, plate = f"1110{int(rng.integers(10000, 100000))}", _plate(rng, "서울")
            self._fleet_cache[key] = (_SEOUL_VEHICLE_ANCHORS.get(key, veh_id), plate)
        return self._fleet_cache[key]

    @cached_property
    def seoul_vehicle_index(self) -> dict[str, tuple[SeoulRoute, int]]:
        """vehId -> (route, fleet index) of every bus a route may put on the road (built once, on first use).

        A route runs at most one bus every five stations (:meth:`_positions`); a vehId drawn twice names the
        first route's bus.
        """
        index: dict[str, tuple[SeoulRoute, int]] = {}
        for route in self.seoul_routes:
            for k in range(0 if route.night else -(-(len(route.stations) - 1) // 5)):
                index.setdefault(self._seoul_fleet(route.route_id, k)[0], (route, k))
        return index

    def seoul_running_seconds(self, route: SeoulRoute) -> np.ndarray:
        """Seconds from the first station to each station of the route (what the arrivals use)."""
        return self._segments("transit.seoul", route.route_id, len(route.stations))[1]

    @cached_property
    def _seoul_grid(self) -> dict[tuple[int, int], list[SeoulStation]]:
        grid: dict[tuple[int, int], list[SeoulStation]] = {}
        for station in self.seoul_stations:
            grid.setdefault(_cell(station.lat, station.lon), []).append(station)
        return grid

    def seoul_stations_near(self, lat: float, lon: float, radius_m: float) -> list[tuple[float, SeoulStation]]:
        """(distance in metres, station) within ``radius_m``, nearest first: the grid cells the circle touches."""
        found = [(metres(lat, lon, s.lat, s.lon), s) for s in _near_cells(self._seoul_grid, lat, lon, radius_m)]
        return sorted(((d, s) for d, s in found if d <= radius_m), key=lambda pair: (pair[0], pair[1].st_id))

    @cached_property
    def seoul_paths(self) -> "SeoulPaths":
        """The subway network, the places (POIs) and the trip planner of the pathinfo group."""
        from kopa_replay.sim.world.transit_paths import SeoulPaths

        return SeoulPaths(self)


#: How many lines' real-time draws (segment times, bus positions) a world keeps at once.
_CACHED = 4096


#: Cell size (degrees) of the station grid the coordinate searches use.
_GRID_DEG = 0.005


def _cell(lat: float, lon: float) -> tuple[int, int]:
    return int(math.floor(lat / _GRID_DEG)), int(math.floor(lon / _GRID_DEG))


def _near_cells(grid: dict[tuple[int, int], list], lat: float, lon: float, radius_m: float) -> Iterable:
    """What the grid holds in the cells a circle of ``radius_m`` around the point may touch (a cell is at least
    400 m wide in Korea: 0.005° of longitude at 38.6°N)."""
    reach = int(radius_m // 400) + 1
    row, col = _cell(lat, lon)
    for r in range(row - reach, row + reach + 1):
        for c in range(col - reach, col + reach + 1):
            yield from grid.get((r, c), ())


def metres(lat1: float, lon1: float, lat2: float, lon2: float) -> float:
    """Equirectangular distance; exact enough at city scale."""
    x = math.radians(lon2 - lon1) * math.cos(math.radians((lat1 + lat2) / 2))
    y = math.radians(lat2 - lat1)
    return 6_371_000.0 * math.hypot(x, y)


def seoul_tm(lat: float, lon: float) -> tuple[float, float]:
    """(posX, posY): GRS80 TM metres, linear around central Seoul (good to a few metres there)."""
    return 200000.0 + (lon - 127.0) * 88_400.0, 457560.0 + (lat - 37.6176) * 110_950.0
