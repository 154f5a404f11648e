"""Seoul's realtime city data (서울시 실시간 도시데이터): ``citydata`` and ``citydata_ppltn`` on openapi.seoul.go.kr.

``http://openapi.seoul.go.kr:8088/{KEY}/{json|xml}/citydata/{START}/{END}/{AREA_NM or AREA_CD}``: the path is the
portal's, but the answer is one hot-spot area, nested, not the row envelope, and its result keys have dots in them:

* ``citydata`` (OA-21285): ``{"list_total_count":1,"RESULT":{"RESULT.CODE":"INFO-000","RESULT.MESSAGE":…},
  "CITYDATA":{"AREA_NM","AREA_CD","LIVE_PPLTN_STTS":[…],"ROAD_TRAFFIC_STTS":{"AVG_ROAD_DATA":{…},
  "ROAD_TRAFFIC_STTS":[…]},"PRK_STTS":[…],"SUB_STTS":[…],"LIVE_SUB_PPLTN":{…},"BUS_STN_STTS":[…],…}}``;
* ``citydata_ppltn`` (OA-21778, live population only): ``{"SeoulRtd.citydata_ppltn":[{AREA_NM, AREA_CD,
  AREA_CONGEST_LVL … FCST_PPLTN:[…]}],"RESULT":{"RESULT.CODE":…,"RESULT.MESSAGE":…}}`` — no list_total_count.

Numbers come as strings. Errors are ``{"RESULT":{"RESULT.CODE":…,"RESULT.MESSAGE":…}}``; the sample key answers
광화문·덕수궁 (POI009) whatever area is asked (measured by a public client, 2026-09-14). In XML a list is wrapped in an
element of its own name (``<LIVE_PPLTN_STTS><LIVE_PPLTN_STTS>…``), under ``SeoulRtd.citydata``.

The world: the 121 hot-spot areas (``kopa_replay/sim/world/data/seoul_citydata_areas.yaml``) at the snapshot time of
the as-of date (08:30, as the buses and trains): people drawn per (seed, area, day, hour) from the area's category
(commuter peaks at stations, afternoons in parks and markets), their forecast for the next twelve hours by the same
curve; the Seoul bus stops near the area (``world.transit``: BUS_STN_ID is an stId of the bus services, RTE_ID a
busRouteId), the bike stations of bikeList (SBIKE_SPOT_ID is a stationId), the air of RealtimeCityAir for the
area's 구 (PM10, PM25 and the index are that dataset's readings). One call builds one area: its cost does not grow
with the world.
"""

from __future__ import annotations

import datetime as dt
import math
from collections.abc import Mapping
from functools import lru_cache
from typing import Any
from weakref import WeakKeyDictionary

from kopa_replay.sim.core import Context, Doc, ErrorKind, Query
from kopa_replay.sim.platforms.seoul import SAMPLE_KEY, SEOUL_MESSAGES, SeoulProtocol
from kopa_replay.sim.world.fmt import data

__all__ = ["CityDataProtocol", "PROTOCOL", "TABLES", "AREAS"]

#: [AREA_CD, AREA_NM, CATEGORY, ENG_NM, GU] of every hot-spot area, in code order
AREAS: tuple[tuple[str, str, str, str, str], ...] = tuple(tuple(a) for a in data("seoul_citydata_areas")["AREAS"])
_BY_KEY = {key: area for area in AREAS for key in (area[0], area[1])}
#: the area the sample key always answers
SAMPLE_AREA = "POI009"
_SNAPSHOT = dt.time(8, 30)

#: 혼잡도 (AREA_CONGEST_LVL) by the share of the area's usual peak present, with the portal's message for each
_LEVELS = (
    (0.45, "여유", "사람이 몰려있을 가능성이 낮고 붐빔은 거의 느껴지지 않아요. 도보 이동이 자유로워요."),
    (0.7, "보통", "사람이 몰려있을 수 있지만 크게 붐비지는 않아요. 도보 이동에 큰 제약이 없어요."),
    (
        0.9,
        "약간 붐빔",
        "사람들이 몰려있을 수 있어요. 인구밀도가 높은 구간에서는 도보 이동시 부딪힘이 발생할 수 있어요.",
    ),
    (
        9e9,
        "붐빔",
        "사람들이 몰려있을 가능성이 매우 크고 많이 붐빈다고 느낄 수 있어요. 인구밀도가 높은 구간에서는 도보 이동이 "
        "어려울 수 있어요.",
    ),
)
#: per category: (median peak people, hourly curve as (hour, weight) anchors interpolated, weekend factor)
_CATEGORIES = {
    "관광특구": (60000, ((0, 0.25), (7, 0.3), (9, 0.55), (13, 0.9), (16, 1.0), (20, 0.95), (23, 0.5)), 1.15),
    "고궁·문화유산": (9000, ((0, 0.1), (7, 0.2), (9, 0.45), (12, 0.9), (15, 1.0), (18, 0.6), (23, 0.15)), 1.4),
    "인구밀집지역": (
        40000,
        ((0, 0.3), (6, 0.35), (8, 0.95), (9, 0.9), (12, 0.8), (18, 1.0), (21, 0.7), (23, 0.45)),
        0.75,
    ),
    "발달상권": (22000, ((0, 0.25), (7, 0.3), (10, 0.5), (13, 0.85), (18, 1.0), (21, 0.9), (23, 0.5)), 1.2),
    "공원": (12000, ((0, 0.08), (6, 0.2), (9, 0.35), (14, 0.8), (18, 1.0), (21, 0.6), (23, 0.2)), 1.6),
}
_AGES = ("0", "10", "20", "30", "40", "50", "60", "70")
_ROAD_INDEX = ((10.0, "정체", "차량 정체가 심해요. 대중교통을 이용하세요."), (25.0, "서행", "차량 흐름이 다소 느려요."))
_ROAD_FREE = ("원활", "차량 흐름이 원활해요.")
_CMRCL = ("한산한", "보통", "분주한", "바쁜")
_RSB = (
    ("음식·음료", ("한식", "커피·음료", "양식", "일식", "중식", "제과·제빵·떡·케이크", "유흥주점", "기타요식")),
    ("유통", ("편의점", "슈퍼마켓", "대형마트", "화장품")),
    ("여가·오락", ("노래방", "영화관", "스포츠·레저")),
    ("생활서비스", ("미용서비스", "세탁·가사서비스")),
)


def find_area(text: str | None) -> tuple[str, str, str, str, str] | None:
    """An area by its AREA_CD (POI014) or its AREA_NM as the list spells it (강남역)."""
    return _BY_KEY.get((text or "").strip())


# ---------------------------------------------------------------------------
# the protocol
# ---------------------------------------------------------------------------


class CityDataProtocol(SeoulProtocol):
    """The Seoul path protocol answering one nested area; ``options["citydata"]`` is ``full`` or ``ppltn``."""

    def params(self, ctx: Context) -> dict[str, str]:
        values = super().params(ctx)
        if ctx.path_params.get("key") == SAMPLE_KEY:  # the sample key answers its one area, whatever is asked
            positional = ctx.endpoint.options.get("positional", ()) if ctx.endpoint is not None else ()
            values.update({name: SAMPLE_AREA for name in positional[:1]})
        return values

    def _result(self, ctx: Context, code: str) -> dict[str, str]:
        # every answer, errors too (SeoulProtocol.error), spells its result with dotted keys
        code = ctx.code(code)
        return {"RESULT.CODE": code, "RESULT.MESSAGE": SEOUL_MESSAGES.get(code, "")}

    def ok(self, ctx: Context, records: list[dict[str, Any]], total: int, meta: Mapping[str, Any]) -> Doc:
        if not records:
            return self.error(ctx, ErrorKind.NO_DATA)
        result = self._result(ctx, "INFO-000")
        if ctx.endpoint is not None and ctx.endpoint.options.get("citydata") == "ppltn":
            if ctx.xml:
                return Doc({"SeoulRtd.citydata_ppltn": _xml_lists(records), "RESULT": result}, xml=True, xml_root="Map")
            return Doc({"SeoulRtd.citydata_ppltn": records, "RESULT": result})
        body = {"list_total_count": total, "RESULT": result, "CITYDATA": records[0]}
        if ctx.xml:
            return Doc({**body, "CITYDATA": _xml_lists(records[0])}, xml=True, xml_root="SeoulRtd.citydata")
        return Doc(body)


def _xml_lists(value: Any) -> Any:
    """A record as the XML spells it: a list inside an element of its own name."""
    if isinstance(value, dict):
        return {k: {k: _xml_lists(v)} if isinstance(v, list) else _xml_lists(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_xml_lists(v) for v in value]
    return value


PROTOCOL = CityDataProtocol()


# ---------------------------------------------------------------------------
# the world
# ---------------------------------------------------------------------------

_ANCHORS: "WeakKeyDictionary[Any, dict[str, Any]]" = WeakKeyDictionary()


def _stations_by_gu(world) -> dict[str, Any]:
    """The Seoul bus stops of each 구 (built once per world): where the areas are put."""
    cached = _ANCHORS.get(world)
    if cached is None:
        cached = {}
        for station in world.transit.seoul_stations:
            cached.setdefault(station.gu.name, []).append(station)
        _ANCHORS[world] = cached
    return cached


@lru_cache(maxsize=4096)
def _curve(category: str, hour: float) -> float:
    anchors = _CATEGORIES[category][1]
    for (h0, w0), (h1, w1) in zip(anchors, anchors[1:]):
        if h0 <= hour <= h1:
            return w0 + (w1 - w0) * (hour - h0) / (h1 - h0)
    return anchors[-1][1]


def _level(share: float) -> tuple[str, str]:
    return next((name, msg) for bound, name, msg in _LEVELS if share < bound)


def _range(people: float) -> tuple[str, str]:
    """The published range around a count: 500 wide below 5,000, 1,000 below 20,000, else 2,000."""
    width = 500 if people < 5000 else 1000 if people < 20000 else 2000
    low = int(people // width) * width
    return str(low), str(low + width)


def _pct(values: list[float]) -> list[str]:
    """Shares as percentages with one decimal."""
    total = sum(values) or 1.0
    return [f"{100 * v / total:.1f}" for v in values]


class _Area:
    """One area at the snapshot of a day: everything its two services say."""

    def __init__(self, world, area: tuple[str, str, str, str, str], day: dt.date) -> None:
        self.world, self.day = world, day
        self.code, self.name, self.category, self.eng, self.gu = area
        self.now = dt.datetime.combine(day, _SNAPSHOT)
        stations = _stations_by_gu(world).get(self.gu) or list(world.transit.seoul_stations[:1])
        anchor = stations[int(world.rng("seoul.citydata.anchor", self.code).integers(len(stations)))]
        self.lat, self.lon = anchor.lat, anchor.lon
        base = world.rng("seoul.citydata.base", self.code)
        self.peak = _CATEGORIES[self.category][0] * float(base.lognormal(0, 0.45))
        self.forecasts = bool(base.random() < 0.9)

    def people(self, at: dt.datetime) -> float:
        weekend = at.weekday() >= 5
        factor = _CATEGORIES[self.category][2] if weekend else 1.0
        noise = float(self.world.rng("seoul.citydata.people", self.code, at.strftime("%Y%m%d%H")).lognormal(0, 0.08))
        return self.peak * _curve(self.category, at.hour + at.minute / 60) * factor * noise

    def stamp(self, at: dt.datetime) -> str:
        return at.strftime("%Y-%m-%d %H:%M")

    def ppltn(self) -> dict[str, Any]:
        rng = self.world.rng("seoul.citydata.ppltn", self.code, self.day.isoformat())
        people = self.people(self.now)
        level, message = _level(people / self.peak)
        low, high = _range(people)
        male = float(rng.uniform(42, 58))
        ages = _pct([float(w) * float(rng.lognormal(0, 0.25)) for w in (1.5, 6, 22, 24, 19, 14, 8, 5)])
        resident = float(rng.uniform(5, 45)) if self.category != "인구밀집지역" else float(rng.uniform(10, 35))
        forecast = None
        if self.forecasts:
            forecast = []
            first = self.now.replace(minute=0) + dt.timedelta(hours=1)
            for k in range(12):
                at = first + dt.timedelta(hours=k)
                expected = self.people(at)
                flow, fhigh = _range(expected)
                forecast.append(
                    {
                        "FCST_TIME": self.stamp(at),
                        "FCST_CONGEST_LVL": _level(expected / self.peak)[0],
                        "FCST_PPLTN_MIN": flow,
                        "FCST_PPLTN_MAX": fhigh,
                    }
                )
        return {
            "AREA_NM": self.name,
            "AREA_CD": self.code,
            "AREA_CONGEST_LVL": level,
            "AREA_CONGEST_MSG": message,
            "AREA_PPLTN_MIN": low,
            "AREA_PPLTN_MAX": high,
            "MALE_PPLTN_RATE": f"{male:.1f}",
            "FEMALE_PPLTN_RATE": f"{100 - male:.1f}",
            **{f"PPLTN_RATE_{age}": share for age, share in zip(_AGES, ages)},
            "RESNT_PPLTN_RATE": f"{resident:.1f}",
            "NON_RESNT_PPLTN_RATE": f"{100 - resident:.1f}",
            "REPLACE_YN": "N",
            "PPLTN_TIME": self.stamp(self.now),
            "FCST_YN": "Y" if forecast is not None else "N",
            "FCST_PPLTN": forecast,
        }

    # -- the other blocks of citydata ------------------------------------------------------------
    def _xy(self, rng, spread: float = 0.004) -> tuple[float, float]:
        return self.lon + float(rng.normal(0, spread)), self.lat + float(rng.normal(0, spread))

    def roads(self, rng) -> dict[str, Any]:
        links, speeds = [], []
        for n in range(int(rng.integers(6, 16))):
            (x0, y0), (x1, y1) = self._xy(rng), self._xy(rng)
            speed = float(rng.lognormal(math.log(22), 0.35))
            speeds.append(speed)
            node = int(rng.integers(1000000000, 1300000000))
            links.append(
                {
                    "LINK_ID": str(int(rng.integers(1000000000, 1300000000))),
                    "ROAD_NM": f"{self.gu[:-1]}{('로', '대로', '길')[n % 3]}",
                    "START_ND_CD": str(node),
                    "START_ND_NM": f"{self.name.split('·')[0]} {('사거리', '삼거리', '입구', '교차로')[n % 4]}",
                    "START_ND_XY": f"{x0:.9f}_{y0:.9f}",
                    "END_ND_CD": str(node + int(rng.integers(1, 400))),
                    "END_ND_NM": f"{self.gu[:-1]}{('사거리', '삼거리', '입구', '교차로')[(n + 1) % 4]}",
                    "END_ND_XY": f"{x1:.9f}_{y1:.9f}",
                    "DIST": str(int(math.hypot(x1 - x0, y1 - y0) * 100000) + 40),
                    "SPD": f"{speed:.0f}",
                    "IDX": self._road_index(speed)[0],
                    "XYLIST": f"{x0:.9f}_{y0:.9f}|{(x0 + x1) / 2:.9f}_{(y0 + y1) / 2:.9f}|{x1:.9f}_{y1:.9f}",
                }
            )
        average = sum(speeds) / len(speeds)
        index, message = self._road_index(average)
        return {
            "AVG_ROAD_DATA": {
                "ROAD_MSG": message,
                "ROAD_TRAFFIC_IDX": index,
                "ROAD_TRFFIC_TIME": self.stamp(self.now - dt.timedelta(minutes=5)),
                "ROAD_TRAFFIC_SPD": f"{average:.0f}",
            },
            "ROAD_TRAFFIC_STTS": links,
        }

    @staticmethod
    def _road_index(speed: float) -> tuple[str, str]:
        return next(((name, msg) for bound, name, msg in _ROAD_INDEX if speed < bound), _ROAD_FREE)

    def parking(self, rng) -> list[dict[str, Any]]:
        out = []
        for n in range(int(rng.integers(1, 6))):
            x, y = self._xy(rng)
            capacity = int(rng.choice((20, 45, 80, 120, 250, 400)))
            live = rng.random() < 0.7
            paid = rng.random() < 0.85
            out.append(
                {
                    "PRK_NM": f"{self.name.split('·')[0]} {('공영주차장', '노상공영주차장', '부설주차장')[n % 3]}",
                    "PRK_CD": str(int(rng.integers(100000, 1100000))),
                    "PRK_TYPE": ("NW", "NS", "NW")[n % 3],
                    "CPCTY": str(capacity),
                    "CUR_PRK_CNT": str(int(capacity * float(rng.uniform(0, 0.6)))) if live else "",
                    "CUR_PRK_TIME": self.stamp(self.now - dt.timedelta(minutes=int(rng.integers(1, 20))))
                    if live
                    else "",
                    "CUR_PRK_YN": "Y" if live else "N",
                    "PAY_YN": "Y" if paid else "N",
                    "RATES": str(int(rng.choice((300, 500, 1000)))) if paid else "0",
                    "TIME_RATES": "5" if paid else "0",
                    "ADD_RATES": str(int(rng.choice((300, 500, 1000)))) if paid else "0",
                    "ADD_TIME_RATES": "5" if paid else "0",
                    "ROAD_ADDR": f"서울특별시 {self.gu} {self.gu[:-1]}로 {int(rng.integers(1, 300))}",
                    "ADDRESS": f"{self.gu} {int(rng.integers(1, 900))}-{int(rng.integers(1, 40))}",
                    "LAT": f"{y:.8f}",
                    "LNG": f"{x:.8f}",
                }
            )
        return out

    def bus(self, rng) -> tuple[list[dict[str, Any]], dict[str, str]]:
        transit = self.world.transit
        near = transit.seoul_stations_near(self.lat, self.lon, 500)[:6]
        stops = []
        for _, station in near:
            details = []
            for route, _index in transit.seoul_routes_at.get(station.st_id, [])[:4]:
                details.append(
                    {
                        "RTE_STN_NM": station.name,
                        "RTE_NM": route.name,
                        "RTE_ID": route.route_id,
                        "RTE_SECT": f"{route.start_name}~{route.end_name}",
                        "RTE_CONGEST": ("여유", "보통", "혼잡")[int(rng.integers(3))],
                        "RTE_ARRV_TM": str(int(rng.integers(30, 900))),
                        "RTE_ARRV_STN": f"{int(rng.integers(1, 6))}번째 전",
                    }
                )
            stops.append(
                {
                    "BUS_STN_ID": station.st_id,
                    "BUS_ARS_ID": station.ars_id,
                    "BUS_STN_NM": station.name,
                    "BUS_STN_X": f"{station.lon:.9f}",
                    "BUS_STN_Y": f"{station.lat:.9f}",
                    "BUS_DETAIL": details,
                }
            )
        live = self._rides(rng, "BUS", max(1, len(stops)) * 60)
        live.update({"BUS_STN_CNT": str(len(stops)), "BUS_STN_TIME": f"{self.day:%Y%m}"})
        return stops, live

    def _rides(self, rng, kind: str, scale: float) -> dict[str, str]:
        """Riders on and off around the area: since the first train (ACML), in the last 30, 10 and 5 minutes."""
        hours = (self.now - self.now.replace(hour=5, minute=30)).total_seconds() / 3600
        out: dict[str, str] = {}
        for window, minutes in (("ACML", hours * 60), ("30WTHN", 30), ("10WTHN", 10), ("5WTHN", 5)):
            for way in ("GTON", "GTOFF"):
                people = scale * minutes * float(rng.lognormal(0, 0.15)) * (1.3 if way == "GTOFF" else 1.0)
                low = int(people // 10 * 10)
                out[f"{kind}_{window}_{way}_PPLTN_MIN"] = str(low)
                out[f"{kind}_{window}_{way}_PPLTN_MAX"] = str(low + max(10, int(people * 0.05) // 10 * 10))
        return out

    def subway(self, rng) -> tuple[list[dict[str, Any]], dict[str, str]]:
        from kopa_replay.sim.platforms.seoul_subway import LINES, realtime_name

        stem = self.name.split("·")[0].split("(")[0].removesuffix("역")
        lines = [(line, name) for line, (name, _) in LINES.items() if stem in _line_stations(line)]
        if not lines and self.category == "인구밀집지역":
            line = sorted(LINES)[int(rng.integers(len(LINES)))]
            stem, lines = realtime_name(_line_stations(line)[len(_line_stations(line)) // 2]), [(line, LINES[line][0])]
        stations = []
        for line, line_name in lines[:3]:
            path = _line_stations(line)
            at = path.index(stem)
            before, after = path[max(0, at - 1)], path[min(len(path) - 1, at + 1)]
            x, y = self._xy(rng, 0.002)
            stations.append(
                {
                    "SUB_STN_NM": stem,
                    "SUB_STN_LINE": line_name,
                    "SUB_STN_RADDR": f"서울특별시 {self.gu} {self.gu[:-1]}로 {int(rng.integers(1, 300))}",
                    "SUB_STN_JIBUN": f"서울특별시 {self.gu} {int(rng.integers(1, 900))}",
                    "SUB_STN_X": f"{x:.9f}",
                    "SUB_STN_Y": f"{y:.9f}",
                    "SUB_DETAIL": [
                        {
                            "SUB_NT_STN": after,
                            "SUB_BF_STN": before,
                            "SUB_ROUTE_NM": f"{line_name} {('상행', '하행')[k % 2]}",
                            "SUB_LINE": line,
                            "SUB_ORD": str(k // 2 + 1),
                            "SUB_DIR": ("상행", "하행")[k % 2],
                            "SUB_TERMINAL": (path[0], path[-1])[k % 2],
                            "SUB_ARVTIME": str(int(rng.integers(0, 600))),
                            "SUB_ARMG1": f"{int(rng.integers(1, 9))}분 후 ({(before, after)[k % 2]})",
                            "SUB_ARMG2": f"[{int(rng.integers(1, 5))}]번째 전역",
                            "SUB_ARVINFO": str(int(rng.choice((0, 1, 2, 3, 99)))),
                        }
                        for k in range(4)
                    ],
                    "SUB_FACINFO": [
                        {
                            "ELVTR_NM": f"엘리베이터 {k + 1}",
                            "OPR_SEC": f"지하1층~지상1층 {k + 1}번 출입구",
                            "INSTL_PSTN": f"{k + 1}번 출입구",
                            "USE_YN": "Y" if rng.random() < 0.95 else "N",
                            "ELVTR_SE": "외부",
                        }
                        for k in range(int(rng.integers(1, 3)))
                    ],
                }
            )
        live = self._rides(rng, "SUB", max(1, len(stations)) * 400)
        live.update({"SUB_STN_CNT": str(len(stations)), "SUB_STN_TIME": f"{self.day:%Y%m}"})
        return stations, live

    def bikes(self, rng) -> list[dict[str, Any]]:
        stations = self.world.datasets.bike_stations
        out = []
        for index in sorted({int(i) for i in rng.integers(0, len(stations), int(rng.integers(2, 6)))}):
            station = stations[index]
            racks, parked = station["rackTotCnt"], int(rng.integers(0, station["rackTotCnt"] * 2 + 1))
            out.append(
                {
                    "SBIKE_SPOT_NM": station["stationName"],
                    "SBIKE_SPOT_ID": station["stationId"],
                    "SBIKE_SHARED": str(round(100 * parked / racks)),
                    "SBIKE_PARKING_CNT": str(parked),
                    "SBIKE_RACK_CNT": str(racks),
                    "SBIKE_X": station["stationLongitude"],
                    "SBIKE_Y": station["stationLatitude"],
                }
            )
        return out

    def weather(self, rng, air: Mapping[str, Any]) -> list[dict[str, Any]]:
        city = self.world.rng("seoul.citydata.weather", self.day.isoformat())
        season = -math.cos(2 * math.pi * (self.day.timetuple().tm_yday - 15) / 365.25)  # -1 mid-January
        high = 13.5 + 15.5 * season + float(city.normal(0, 2.5))
        low = high - float(city.uniform(6, 11))
        temp = low + (high - low) * 0.25 + float(rng.normal(0, 0.4))
        humidity = int(city.integers(35, 95))
        rain = bool(city.random() < 0.22)
        kind = ("눈" if high < 2 else "비") if rain else "없음"
        amount = f"{float(city.uniform(0.1, 8)):.1f}mm" if rain else "-"
        wind = float(city.lognormal(math.log(1.8), 0.4))
        pm10, pm25 = air.get("PM10"), air.get("PM25")
        grade = air.get("IDEX_NM") or ""
        # Seoul's sunrise runs from 05:11 (June) to 07:47 (January), its sunset from 17:14 to 19:57
        minutes = int(5 * 60 + 11 + 156 * (1 - (season + 1) / 2))
        sunrise = dt.time(minutes // 60, minutes % 60)
        minutes = int(17 * 60 + 14 + 163 * (season + 1) / 2)
        sunset = dt.time(minutes // 60, minutes % 60)
        forecast = []
        for k in range(24):
            at = self.now.replace(minute=0) + dt.timedelta(hours=k + 1)
            daytime = math.sin(math.pi * max(0.0, min(1.0, (at.hour - 6) / 14)))
            forecast.append(
                {
                    "FCST_DT": at.strftime("%Y%m%d%H%M"),
                    "TEMP": f"{low + (high - low) * daytime:.0f}",
                    "PRECIPITATION": amount if rain and k % 5 == 0 else "-",
                    "PRECPT_TYPE": kind if rain and k % 5 == 0 else "없음",
                    "RAIN_CHANCE": str(int(city.integers(50, 90)) if rain else int(city.integers(0, 30))),
                    "SKY_STTS": ("흐림" if rain else ("맑음", "구름많음", "흐림")[int(city.integers(3))]),
                }
            )
        uv = max(0, int(round(9 * (season + 1) / 2 + float(city.normal(0, 1)))))
        return [
            {
                "TEMP": f"{temp:.1f}",
                "SENSIBLE_TEMP": f"{temp - 0.7 * wind:.1f}",
                "MAX_TEMP": f"{high:.1f}",
                "MIN_TEMP": f"{low:.1f}",
                "HUMIDITY": str(humidity),
                "WIND_DIRCT": ("N", "NE", "E", "SE", "S", "SW", "W", "NW")[int(city.integers(8))],
                "WIND_SPD": f"{wind:.1f}",
                "PRECIPITATION": amount,
                "PRECPT_TYPE": kind,
                "PCP_MSG": "우산을 챙기세요." if rain else "비 소식이 없어요.",
                "SUNRISE": sunrise.strftime("%H:%M"),
                "SUNSET": sunset.strftime("%H:%M"),
                "UV_INDEX_LVL": str(uv),
                "UV_INDEX": "낮음" if uv < 3 else "보통" if uv < 6 else "높음" if uv < 8 else "매우높음",
                "UV_MSG": "햇볕이 강한 시간에는 그늘에 머무르세요." if uv >= 6 else "자외선 걱정이 없어요.",
                "PM25_INDEX": _dust_grade(pm25, (15, 35, 75)),
                "PM25": f"{pm25:.0f}" if pm25 is not None else "",
                "PM10_INDEX": _dust_grade(pm10, (30, 80, 150)),
                "PM10": f"{pm10:.0f}" if pm10 is not None else "",
                "AIR_IDX": grade,
                "AIR_IDX_MVL": str(air.get("IDEX_MVL", "")),
                "AIR_IDX_MAIN": str(air.get("ARPLT_MAIN", "")),
                "AIR_MSG": "대기질이 좋아요." if grade in ("좋음", "보통") else "외출 시 마스크를 착용하세요.",
                "WEATHER_TIME": self.stamp(self.now.replace(minute=0)),
                "NEWS_LIST": [],
                "FCST24HOURS": forecast,
            }
        ]

    def chargers(self, rng) -> list[dict[str, Any]]:
        out = []
        for n in range(int(rng.integers(0, 4))):
            x, y = self._xy(rng)
            stat_id = f"{('ME', 'KP', 'EV', 'SF')[n % 4]}{int(rng.integers(100000, 999999))}"
            out.append(
                {
                    "STAT_NM": f"{self.name.split('·')[0]} {('공영주차장', '주민센터', '주차빌딩')[n % 3]}",
                    "STAT_ID": stat_id,
                    "STAT_ADDR": f"서울특별시 {self.gu} {self.gu[:-1]}로 {int(rng.integers(1, 300))}",
                    "STAT_X": f"{x:.7f}",
                    "STAT_Y": f"{y:.7f}",
                    "STAT_USETIME": "24시간 이용가능",
                    "STAT_PARKPAY": ("Y", "N")[int(rng.integers(2))],
                    "STAT_LIMITYN": "N",
                    "STAT_LIMITDETAIL": "",
                    "STAT_KINDDETAIL": ("공영주차장", "관공서", "상업시설")[n % 3],
                    "CHARGER_DETAIL": [
                        {
                            "CHARGER_ID": f"{k + 1:02d}",
                            "CHARGER_TYPE": ("DC콤보", "AC완속", "DC차데모+AC3상+DC콤보")[k % 3],
                            "CHARGER_STAT": ("충전대기", "충전중", "충전대기", "점검중")[int(rng.integers(4))],
                            "STATUPDDT": (self.now - dt.timedelta(minutes=int(rng.integers(1, 90)))).strftime(
                                "%Y%m%d%H%M%S"
                            ),
                            "LASTTSDT": "",
                            "LASTTEDT": "",
                            "NOWTSDT": "",
                            "OUTPUT": ("100", "7", "50")[k % 3],
                            "METHOD": ("단독", "동시")[k % 2],
                        }
                        for k in range(int(rng.integers(1, 4)))
                    ],
                }
            )
        return out

    def events(self, rng) -> list[dict[str, Any]]:
        out = []
        for n in range(int(rng.integers(0, 3))):
            x, y = self._xy(rng)
            start = self.day - dt.timedelta(days=int(rng.integers(0, 20)))
            end = start + dt.timedelta(days=int(rng.integers(0, 60)))
            out.append(
                {
                    "EVENT_NM": f"{self.name.split('·')[0]} {('문화마당', '야간 공연', '특별전', '거리 축제')[n % 4]}",
                    "EVENT_PERIOD": f"{start:%Y-%m-%d}~{end:%Y-%m-%d}",
                    "EVENT_PLACE": self.name,
                    "EVENT_X": f"{x:.7f}",
                    "EVENT_Y": f"{y:.7f}",
                    "PAY_YN": ("Y", "N")[int(rng.integers(2))],
                    "THUMBNAIL": "",
                    "URL": "https://culture.seoul.go.kr",
                    "EVENT_ETC_DETAIL": "",
                }
            )
        return out

    def commerce(self, rng) -> dict[str, Any]:
        busy = min(3, int(self.people(self.now) / self.peak * 4))
        rows = []
        for large, mids in _RSB:
            for mid in mids[: int(rng.integers(1, len(mids) + 1))]:
                count = int(rng.lognormal(math.log(120), 0.8))
                amount = count * int(rng.integers(9000, 30000))
                rows.append(
                    {
                        "RSB_LRG_CTGR": large,
                        "RSB_MID_CTGR": mid,
                        "RSB_PAYMENT_LVL": _CMRCL[min(3, int(rng.integers(0, 4)))],
                        "RSB_SH_PAYMENT_CNT": str(count),
                        "RSB_SH_PAYMENT_AMT_MIN": str(amount // 10000 * 10000),
                        "RSB_SH_PAYMENT_AMT_MAX": str(amount // 10000 * 10000 + 50000),
                        "RSB_MCT_CNT": str(int(rng.integers(3, 400))),
                        "RSB_MCT_TIME": f"{(self.day.replace(day=1) - dt.timedelta(days=1)):%Y%m}",
                    }
                )
        total = sum(int(r["RSB_SH_PAYMENT_CNT"]) for r in rows)
        spend = sum(int(r["RSB_SH_PAYMENT_AMT_MIN"]) for r in rows)
        male = float(rng.uniform(40, 60))
        ages = _pct([float(w) * float(rng.lognormal(0, 0.2)) for w in (4, 24, 26, 20, 15, 11)])
        personal = float(rng.uniform(75, 97))
        return {
            "AREA_CMRCL_LVL": _CMRCL[busy],
            "AREA_SH_PAYMENT_CNT": str(total),
            "AREA_SH_PAYMENT_AMT_MIN": str(spend),
            "AREA_SH_PAYMENT_AMT_MAX": str(spend + 50000 * len(rows)),
            "CMRCL_RSB": rows,
            "CMRCL_MALE_RATE": f"{male:.1f}",
            "CMRCL_FEMALE_RATE": f"{100 - male:.1f}",
            **{f"CMRCL_{age}_RATE": share for age, share in zip(("10", "20", "30", "40", "50", "60"), ages)},
            "CMRCL_PERSONAL_RATE": f"{personal:.1f}",
            "CMRCL_CORPORATION_RATE": f"{100 - personal:.1f}",
            "CMRCL_TIME": (self.now - dt.timedelta(minutes=10)).strftime("%Y%m%d %H%M"),
        }

    def accidents(self, rng) -> list[dict[str, Any]]:
        out = []
        for n in range(int(rng.integers(0, 3)) if rng.random() < 0.4 else 0):
            x, y = self._xy(rng)
            began = self.now - dt.timedelta(minutes=int(rng.integers(10, 600)))
            kind, detail = (("공사", "차로통제"), ("사고", "추돌사고"), ("행사", "부분통제"), ("기타", "차로통제"))[
                int(rng.integers(4))
            ]
            out.append(
                {
                    "ACDNT_OCCR_DT": self.stamp(began),
                    "EXP_CLR_DT": self.stamp(began + dt.timedelta(hours=int(rng.integers(1, 12)))),
                    "ACDNT_TYPE": kind,
                    "ACDNT_DTYPE": detail,
                    "ACDNT_INFO": f"{self.gu[:-1]}로 {self.name.split('·')[0]} 부근 {detail}",
                    "ACDNT_X": f"{x:.7f}",
                    "ACDNT_Y": f"{y:.7f}",
                    "ACDNT_TIME": self.stamp(self.now - dt.timedelta(minutes=5)),
                }
            )
        return out

    def citydata(self, air: Mapping[str, Any]) -> dict[str, Any]:
        rng = self.world.rng("seoul.citydata.blocks", self.code, self.day.isoformat())
        subway, live_sub = self.subway(rng)
        bus, live_bus = self.bus(rng)
        return {
            "AREA_NM": self.name,
            "AREA_CD": self.code,
            "LIVE_PPLTN_STTS": [self.ppltn()],
            "ROAD_TRAFFIC_STTS": self.roads(rng),
            "PRK_STTS": self.parking(rng),
            "SUB_STTS": subway,
            "LIVE_SUB_PPLTN": live_sub,
            "BUS_STN_STTS": bus,
            "LIVE_BUS_PPLTN": live_bus,
            "ACDNT_CNTRL_STTS": self.accidents(rng),
            "CHARGER_STTS": self.chargers(rng),
            "SBIKE_STTS": self.bikes(rng),
            "WEATHER_STTS": self.weather(rng, air),
            "EVENT_STTS": self.events(rng),
            "LIVE_CMRCL_STTS": self.commerce(rng),
            "LIVE_DST_MESSAGE": [],
            "LIVE_YNA_NEWS": [],
        }


def _dust_grade(value: Any, bounds: tuple[int, int, int]) -> str:
    if value is None:
        return ""
    return next((g for b, g in zip(bounds, ("좋음", "보통", "나쁨")) if float(value) <= b), "매우나쁨")


@lru_cache(maxsize=None)
def _line_stations(line: str) -> tuple[str, ...]:
    from kopa_replay.sim.platforms.seoul_subway import _paths

    return tuple(name for path in _paths(line) for name in path)


def _air(world, q: Query, gu: str) -> Mapping[str, Any]:
    """RealtimeCityAir's reading for a 구 at the as-of date (its world table, whose draws this shares)."""
    from kopa_replay.sim.platforms.seoul import TABLE
    from kopa_replay.sim.world.datasets import load_datasets

    spec = load_datasets({"air_now": TABLE.extra["datasets"]["air_now"]})["air_now"]
    return next((r for r in world.datasets.rows(spec, q.as_of, {}) if r.get("MSRSTE_NM") == gu), {})


def _area(q: Query, name: str) -> tuple[str, str, str, str, str] | None:
    return find_area(q.get(name))


def citydata(world, q: Query) -> list[dict[str, Any]]:
    """citydata: the one area asked (AREA_NM, a name or a code), every block; [] for an area not in the list."""
    area = _area(q, "AREA_NM")
    if area is None:
        return []
    return [_Area(world, area, q.as_of).citydata(_air(world, q, area[4]))]


def citydata_ppltn(world, q: Query) -> list[dict[str, Any]]:
    """citydata_ppltn: the live population of the one area asked."""
    area = _area(q, "AREA_NM")
    return [] if area is None else [_Area(world, area, q.as_of).ppltn()]


TABLES = {"citydata": citydata, "citydata_ppltn": citydata_ppltn}
