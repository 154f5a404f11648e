"""Seoul's realtime subway host (swopenapi.seoul.go.kr), the second host of the Seoul platform.

``http://swopenapi.seoul.go.kr/api/subway/{KEY}/{json|xml}/{SERVICE}/{START}/{END}/{name}``: the key and the
row window sit in the path as on openapi.seoul.go.kr, but the answer has its own envelope —
``{"errorMessage": {"status": 200, "code": "INFO-000", "message", "link", "developerMessage", "total"},
"realtimeArrivalList": […]}`` (the list is named per service) — and an error or "no data" is that status object
alone, with ``status`` 500 (``{"status":500,"code":"INFO-200",…,"total":0}``). XML carries the same status as
``RESULT`` beside the ``row`` elements under the service's root. Public clients start the window at 0 or 1.

The world: the Seoul-area lines as the realtime service names them (``1001`` 1호선 … ``1063`` 경의중앙선), each a
few paths of stations drawn from the ridership dataset's line lists (:data:`~kopa_replay.sim.world.datasets.
SUBWAY_LINES`), and the trains on them at the snapshot time of the as-of date (08:30, as ``world.transit``'s buses):
a train every few stations in each direction, its phase drawn per (line, path, direction, day). Arrivals at a
station are the trains nearest upstream of it, so a ``btrainNo`` of realtimeStationArrival is a ``trainNo`` of
realtimePosition. A call computes one line's or one station's trains: its cost does not grow with the world.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Mapping
from dataclasses import replace
from functools import lru_cache
from typing import Any

from kopa_replay.sim.core import Context, Doc, ErrorKind, NoData, Query
from kopa_replay.sim.messages import SimRequest
from kopa_replay.sim.platforms.seoul import SEOUL_MESSAGES, SeoulProtocol
from kopa_replay.sim.world import stable_int
from kopa_replay.sim.world.datasets import SUBWAY_LINES

__all__ = ["HOST", "SubwayProtocol", "PROTOCOL", "TABLES", "LINES"]

HOST = "swopenapi.seoul.go.kr"
_PREFIX = "/api/subway"

#: realtime line id → (name as the service spells it, paths; a path is [(ridership line, first, last)…])
LINES: dict[str, tuple[str, tuple[tuple[tuple[str, str, str], ...], ...]]] = {
    "1001": (
        "1호선",
        (
            (("경원선", "소요산", "회기"), ("1호선", "청량리(서울시립대입구)", "서울역"), ("경부선", "남영", "천안")),
            (("경부선", "구로", "구로"), ("경인선", "구일", "인천")),
        ),
    ),
    "1002": (
        "2호선",
        (
            (("2호선", "시청", "충정로(경기대입구)"),),
            (("2호선", "성수", "성수"), ("2호선", "용답", "신설동")),
            (("2호선", "신도림", "신도림"), ("2호선", "도림천", "까치산")),
        ),
    ),
    "1003": ("3호선", ((("일산선", "대화", "삼송"), ("3호선", "지축", "오금")),)),
    "1004": ("4호선", ((("4호선", "당고개", "남태령"), ("과천선", "선바위", "범계"), ("안산선", "산본", "오이도")),)),
    "1005": (
        "5호선",
        ((("5호선", "방화", "강일"),), (("5호선", "강동", "강동"), ("5호선", "둔촌동", "마천"))),
    ),
    "1006": ("6호선", ((("6호선", "응암", "신내"),),)),
    "1007": ("7호선", ((("7호선", "장암", "부평구청"),),)),
    "1008": ("8호선", ((("8호선", "암사", "모란"),),)),
    "1009": ("9호선", ((("9호선", "개화", "신논현"), ("9호선2~3단계", "언주", "중앙보훈병원")),)),
    "1063": (
        "경의중앙선",
        (
            (("경의선", "문산", "가좌"), ("경의선", "홍대입구", "효창공원앞"), ("중앙선", "용산", "지평")),
            (("경의선", "서울역", "가좌"),),
        ),
    ),
    "1065": ("공항철도", ((("공항철도 1호선", "서울역", "인천공항2터미널"),),)),
    "1067": ("경춘선", ((("경춘선", "상봉", "춘천"),),)),
    "1075": ("수인분당선", ((("분당선", "왕십리", "수원"),),)),
    "1092": ("우이신설선", ((("우이신설선", "북한산우이", "신설동"),),)),
    "1094": ("신림선", ((("신림선", "샛강", "관악산"),),)),
}
_BY_NAME = {name: line for line, (name, _) in LINES.items()}
_RIDERSHIP = dict(SUBWAY_LINES)
#: seconds a train takes from one station to the next
_SECONDS_A_STATION = 120
_SNAPSHOT = dt.time(8, 30, 0)


def realtime_name(name: str) -> str:
    """A station as the realtime service names it: 잠실(송파구청) → 잠실, 서울역 → 서울."""
    bare = re.sub(r"\(.*\)$", "", name)
    return "서울" if bare == "서울역" else bare


def _segment(line: str, first: str, last: str) -> list[str]:
    stations = list(_RIDERSHIP[line])
    i, j = stations.index(first), stations.index(last)
    return stations[i : j + 1] if i <= j else stations[j : i + 1][::-1]


@lru_cache(maxsize=None)
def _paths(line: str) -> tuple[tuple[str, ...], ...]:
    """A line's paths as realtime station names, in order."""
    return tuple(tuple(realtime_name(s) for first in path for s in _segment(*first)) for path in LINES[line][1])


@lru_cache(maxsize=None)
def _station_ids(line: str) -> dict[str, str]:
    """Every station of a line → its 10-digit id (line id, 000, a 3-digit serial)."""
    ids: dict[str, str] = {}
    for path in _paths(line):
        for name in path:
            ids.setdefault(name, f"{line}000{100 + len(ids):03d}")
    return ids


@lru_cache(maxsize=None)
def _lines_at() -> dict[str, tuple[str, ...]]:
    """Every station name → the lines through it, in line-id order."""
    table: dict[str, list[str]] = {}
    for line in sorted(LINES):
        for name in _station_ids(line):
            table.setdefault(name, []).append(line)
    return {name: tuple(lines) for name, lines in table.items()}


def _directions(line: str) -> tuple[str, str]:
    # 2호선 runs round: its two directions are the inner (내선) and outer (외선) tracks
    return ("내선", "외선") if line == "1002" else ("상행", "하행")


def _trains(world, line: str, day: dt.date) -> list[dict[str, Any]]:
    """The trains of a line at the snapshot time: path, direction (0 up: towards the path's start), position
    (a fractional station index), number, terminal, express and last-train flags."""
    out: list[dict[str, Any]] = []
    prefix = int(line) % 10 or 1  # train numbers start with the line's digit: 2xxx on 2호선
    for p, path in enumerate(_paths(line)):
        if len(path) < 2:
            continue
        for direction in (0, 1):
            rng = world.rng("seoul.subway.trains", line, p, direction, day.isoformat())
            gap = float(rng.uniform(2.5, 4.5))
            position = float(rng.uniform(0, gap))
            while position < len(path) - 1:
                index = position if direction == 1 else len(path) - 1 - position  # along the track from its start
                express = line == "1009" and rng.random() < 0.3
                out.append(
                    {
                        "path": p,
                        "direction": direction,
                        "at": index,
                        "no": f"{prefix}{len(out):03d}",
                        "terminal": path[0] if direction == 0 else path[-1],
                        "express": express,
                        "last": False,
                    }
                )
                position += gap * float(rng.uniform(0.8, 1.2))
    return out


def _stamp(day: dt.date, seconds_before: int = 0) -> str:
    moment = dt.datetime.combine(day, _SNAPSHOT) - dt.timedelta(seconds=seconds_before)
    return moment.strftime("%Y-%m-%d %H:%M:%S")


def _counted(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    # the per-row counters the service repeats in every row; the paging fields are always null
    total = len(rows)
    return [
        {"beginRow": None, "endRow": None, "curPage": None, "pageRow": None, "totalCount": total,
         "rowNum": n, "selectedCount": total, **row}
        for n, row in enumerate(rows, start=1)
    ]  # fmt: skip


def arrivals(world, q: Query) -> list[dict[str, Any]]:
    """realtimeStationArrival: per line through the station and direction, the two nearest trains upstream."""
    station = q.require("statnNm")
    lines = _lines_at().get(station)
    if not lines:
        raise NoData()
    day = q.as_of
    rows = []
    for line in lines:
        ids = _station_ids(line)
        transfers = ",".join(lines)
        for updn, heading in enumerate(_directions(line)):
            nearest = []
            for train in _trains(world, line, day):
                path = _paths(line)[train["path"]]
                if train["direction"] != updn or station not in path:
                    continue
                s = path.index(station)
                ahead = (train["at"] - s) if updn == 0 else (s - train["at"])  # stations still to run
                if ahead >= 0:
                    nearest.append((ahead, train, path, s))
            for order, (ahead, train, path, s) in enumerate(sorted(nearest, key=lambda t: t[0])[:2], start=1):
                step = -1 if updn == 0 else 1
                before = path[s - step] if 0 <= s - step < len(path) else path[s]
                after = path[s + step] if 0 <= s + step < len(path) else path[s]
                here = path[int(round(train["at"]))]
                if ahead < 0.2:
                    code, message = "1", f"{station} 도착"
                elif ahead < 0.5:
                    code, message = "0", f"{station} 진입"
                elif ahead < 1.2:
                    code, message = "5", "전역 도착"
                else:
                    code, message = "99", f"{max(1, round(ahead * _SECONDS_A_STATION / 60))}분 후 ({here})"
                rows.append(
                    {
                        "subwayId": line,
                        "subwayNm": None,
                        "updnLine": heading,
                        "trainLineNm": f"{train['terminal']}행 - {after}방면",
                        "subwayHeading": None,
                        "statnFid": ids[before],
                        "statnTid": ids[after],
                        "statnId": ids[station],
                        "statnNm": station,
                        "trainCo": None,
                        "trnsitCo": str(len(lines)),
                        "ordkey": f"{updn}{order}{int(ahead):03d}{train['terminal']}{int(train['express'])}",
                        "subwayList": transfers,
                        "statnList": ",".join(_station_ids(other)[station] for other in lines),
                        "btrainSttus": "급행" if train["express"] else "일반",
                        "barvlDt": str(int(ahead * _SECONDS_A_STATION)),
                        "btrainNo": train["no"],
                        "bstatnId": ids[train["terminal"]],
                        "bstatnNm": train["terminal"],
                        "recptnDt": _stamp(day, 5 + int(ahead * 7) % 50),
                        "arvlMsg2": message,
                        "arvlMsg3": here,
                        "arvlCd": code,
                        "lstcarAt": "1" if train["last"] else "0",
                    }
                )
    if not rows:
        raise NoData()
    return _counted(rows)


def positions(world, q: Query) -> list[dict[str, Any]]:
    """realtimePosition: every train of a line (subwayNm: 1호선 … 경의중앙선) where it is now."""
    line = _BY_NAME.get(q.require("subwayNm"))
    if line is None:
        raise NoData()
    ids = _station_ids(line)
    rows = []
    for train in sorted(_trains(world, line, q.as_of), key=lambda t: (t["direction"], t["path"], t["at"])):
        path = _paths(line)[train["path"]]
        phase = train["at"] % 1 if train["direction"] == 1 else (1 - train["at"] % 1) % 1
        index = int(train["at"]) if train["direction"] == 1 else int(-(-train["at"] // 1))
        status = "1" if phase < 0.2 else "2" if phase < 0.4 else "3" if phase < 0.8 else "0"
        if status == "0":  # approaching the next station: the row names that one
            index = min(len(path) - 1, index + 1) if train["direction"] == 1 else max(0, index - 1)
        rows.append(
            {
                "subwayId": line,
                "subwayNm": LINES[line][0],
                "statnId": ids[path[index]],
                "statnNm": path[index],
                "trainNo": train["no"],
                "lastRecptnDt": q.as_of.strftime("%Y%m%d"),
                "recptnDt": _stamp(q.as_of, int(phase * 50)),
                "updnLine": str(train["direction"]),
                "statnTid": ids[train["terminal"]],
                "statnTnm": train["terminal"],
                "trainSttus": status,
                "directAt": "1" if train["express"] else "0",
                "lstcarAt": "1" if train["last"] else "0",
            }
        )
    if not rows:
        raise NoData()
    return _counted(rows)


# -- the station register of openapi.seoul.go.kr (SearchInfoBySubwayNameService, SearchSTNBySubwayLineInfo) -------

#: ridership line → (LINE_NUM as the station register spells it, STATION_CD prefix, FR_CODE prefix)
_REGISTER_LINES = {
    **dict.fromkeys(("1호선", "경부선", "경인선", "경원선"), ("01호선", "01", "1")),
    **{f"{n}호선": (f"0{n}호선", f"0{n}", str(n)) for n in range(2, 10)},
    "일산선": ("03호선", "03", "3"),
    "과천선": ("04호선", "04", "4"),
    "안산선": ("04호선", "04", "4"),
    "9호선2~3단계": ("09호선", "09", "9"),
    "경의선": ("경의선", "12", "K3"),
    "중앙선": ("중앙선", "14", "K1"),
    "분당선": ("수인분당선", "10", "K2"),
    "공항철도 1호선": ("공항철도", "40", "A0"),
    "경춘선": ("경춘선", "13", "P1"),
    "우이신설선": ("우이신설경전철", "47", "S1"),
    "신림선": ("신림선", "48", "S4"),
}
_INITIALS = "g kk n d tt r m b pp s ss - j jj ch k t p h".split()
_MEDIALS = "a ae ya yae eo e yeo ye o wa wae oe yo u wo we wi yu eu ui i".split()
_FINALS = ["", "k", "k", "k", "n", "n", "n", "t", "l", "k", "m", "l", "l", "l", "p", "l", "m", "p", "p", "t", "t",
           "ng", "t", "t", "k", "t", "p", "t"]  # fmt: skip


def romanized(name: str) -> str:
    """A station name in the Revised Romanization, syllable by syllable (강남 → Gangnam), as STATION_NM_ENG."""
    out = []
    for ch in name:
        code = ord(ch) - 0xAC00
        if not 0 <= code < 11172:
            out.append(ch)
            continue
        initial, medial, final = code // 588, code % 588 // 28, code % 28
        out.append(_INITIALS[initial].replace("-", "") + _MEDIALS[medial] + _FINALS[final])
    text = "".join(out)
    return text[:1].upper() + text[1:]


@lru_cache(maxsize=None)
def _route_names() -> dict[str, str]:
    """Ridership line → the line as riders know it (경부선 → 1호선, 중앙선 → 경의중앙선): subwayStationMaster's ROUTE."""
    return {first[0]: name for name, paths in LINES.values() for path in paths for first in path}


@lru_cache(maxsize=None)
def _register() -> tuple[dict[str, Any], ...]:
    routes = _route_names()
    rows: list[dict[str, Any]] = []
    seen: set[tuple[str, str]] = set()
    counts: dict[str, int] = {}
    for line, stations in SUBWAY_LINES:
        line_num, cd_prefix, fr_prefix = _REGISTER_LINES[line]
        for station in stations:
            name = re.sub(r"\(.*\)$", "", station)
            if (line_num, name) in seen:
                continue
            seen.add((line_num, name))
            counts[line_num] = n = counts.get(line_num, 0) + 1
            rows.append(
                {
                    "STATION_CD": f"{cd_prefix}{n + 9:02d}",
                    "STATION_NM": name,
                    "STATION_NM_ENG": romanized(name),
                    "LINE_NUM": line_num,
                    "FR_CODE": f"{fr_prefix}{n + 9:02d}",
                    "STATION_NM_CHN": "",
                    "STATION_NM_JPN": "",
                    # subwayStationMaster: the station under its full name, the line riders know, a position
                    "BLDN_ID": f"{cd_prefix}{n + 9:02d}",
                    "BLDN_NM": station,
                    "ROUTE": routes.get(line, line),
                    "LAT": f"{37.40 + stable_int('subway.lat', station) % 3000 / 10000:.6f}",
                    "LOT": f"{126.75 + stable_int('subway.lot', station) % 5000 / 10000:.6f}",
                }
            )
    return tuple(rows)


def stations(world, q: Query) -> list[dict[str, Any]]:
    """The subway station register: every line × station with its codes (the same on every day)."""
    return [dict(row) for row in _register()]


#: the world tables of the realtime rows and of the station register
TABLES = {"subway_arrivals": arrivals, "subway_positions": positions, "subway_stations": stations}


class SubwayProtocol(SeoulProtocol):
    """The swopenapi envelope over the Seoul path protocol; ``options["list"]`` names a service's list."""

    name = "seoul_subway"

    def route(self, request: SimRequest) -> tuple[str, dict[str, str]]:
        if not request.path.startswith(_PREFIX + "/"):
            return request.path, {}
        return super().route(replace(request, path=request.path[len(_PREFIX) :]))

    def _status(self, ctx: Context, code: str, total: int) -> dict[str, Any]:
        code = ctx.code(code)
        message = SEOUL_MESSAGES.get(code, "")
        return {
            "status": 200 if code == "INFO-000" else 500,
            "code": code,
            "message": message + "." if code == "INFO-000" else message,
            "link": "",
            "developerMessage": "",
            "total": total,
        }

    def ok(self, ctx: Context, records: list[dict[str, Any]], total: int, meta: Mapping[str, Any]) -> Doc:
        if not records:
            return self.error(ctx, ErrorKind.NO_DATA)
        status = self._status(ctx, "INFO-000", total)
        endpoint = ctx.endpoint
        if ctx.xml:
            root = endpoint.route if endpoint is not None else "RESULT"
            return Doc({"RESULT": status, "row": records}, xml=True, xml_root=root)
        listed = endpoint.options.get("list", "list") if endpoint is not None else "list"
        return Doc({"errorMessage": status, listed: records})

    def error(self, ctx: Context, kind: str, detail: str = "") -> Doc:
        plain = super().error(ctx, kind, detail)  # the openapi host's code for the same problem
        status = self._status(ctx, (plain.body if plain.xml else plain.body["RESULT"])["CODE"], 0)
        if ctx.xml:
            return Doc(status, xml=True, xml_root="RESULT")
        return Doc(status)


PROTOCOL = SubwayProtocol()
