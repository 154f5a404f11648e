"""국토교통부 건축HUB: the 건축물대장 (building register) and the 건축·주택 인허가 (permits), per 법정동.

The three services (``BldRgstHubService``, ``ArchPmsHubService``, ``HsPmsHubService``) are all asked the same way:
``sigunguCd`` (the first five digits of a 법정동 code) and ``bjdongCd`` (its last five), optionally narrowed to a
lot (``platGbCd`` 0 대지 / 1 산 / 2 블록, ``bun`` and ``ji`` as four digits). So the world here is the lots of one
법정동: drawn when a call first names the 법정동 (one numpy draw of a few arrays, whatever the size of the world),
each lot's buildings and permits drawn only when one of its rows is read.

Counts: at the ``full`` size an urban 동 holds about nine hundred lots and a 리 about two hundred and fifty, so the
country holds about seven million buildings (the real register: 7.3 million); the ``default`` world holds a
fifteenth of that. The apartment complexes the 실거래가 services trade (:meth:`DatasetWorld.complexes`) stand on their
own lots (their ``bonbun``/``bubun``), so a trade's lot finds its 표제부 and the 공동주택 단지 services list them.

Every service answers rows of one kind per lot (a 표제부 per building, a 층별개요 per floor, a 전유부 per unit …);
:meth:`BuildingWorld.rows` counts them per lot from the arrays, so a page of a 법정동's 전유부 costs its page.
"""

from __future__ import annotations

import bisect
import datetime as dt
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING, Any

import numpy as np

from kopa_replay.sim.world import stable_int
from kopa_replay.sim.world.finance import LazyRows
from kopa_replay.sim.world.fmt import data, frozen

if TYPE_CHECKING:
    from kopa_replay.sim.world import World
    from kopa_replay.sim.world.datasets import Complex
    from kopa_replay.sim.world.regions import Sigungu

__all__ = ["BuildingWorld", "Place", "KINDS", "kapt_code", "kapt_basis", "kapt_detail"]

_DATA = data("mois")  # the code tables and names (their sources beside them there)

#: lot kinds: 0 단독·다가구, 1 근린생활·업무, 2 공장·창고, 3 축사·창고 (rural), 4 다세대·연립 (집합), 5 오피스텔 (집합),
#: 6 아파트 (집합, with a 총괄표제부)
KINDS = ("house", "shop", "factory", "farm", "villa", "offi", "apt")
_HOUSE, _SHOP, _FACTORY, _FARM, _VILLA, _OFFI, _APT = range(7)
_COLLECTIVE = (False, False, False, False, True, True, True)
_RESIDENTIAL = (True, False, False, False, True, False, True)
_URBAN_P = (0.36, 0.27, 0.03, 0.0, 0.26, 0.05, 0.03)
_RURAL_P = (0.62, 0.1, 0.11, 0.15, 0.01, 0.0, 0.01)

#: (kind, recent permit) of the anchor lots every 법정동 holds: 1 신축, 2 증축, 3 대수선, 4 용도변경, 5 철거
_ANCHORS = ((_APT, 0), (_HOUSE, 3), (_SHOP, 4), (_FACTORY, 5), (_FARM, 2), (_VILLA, 1), (_OFFI, 0))

_PURPOSE = frozen(_DATA["_PURPOSE"])
_STRUCT = frozen(_DATA["_STRUCT"])
_ROOF = {"10": "(철근)콘크리트", "20": "기와", "30": "슬레이트", "90": "기타지붕"}
_ZONES_URBAN = frozen(_DATA["_ZONES_URBAN"])
_ZONES_RURAL = frozen(_DATA["_ZONES_RURAL"])
_DISTRICTS = (("UQQ300", "지구단위계획구역", "3"), ("UDX200", "가축사육제한구역", "3"), ("UQP100", "방화지구", "2"))
_APT_BUILDERS = frozen(_DATA["_APT_BUILDERS"])
_MGR = ("위탁관리", "위탁관리", "자치관리")
_HEAT = ("개별난방", "개별난방", "지역난방", "중앙난방")
_HALL = ("계단식", "계단식", "복도식", "혼합식")


def kapt_code(sgg_code: str, index: int) -> str:
    """A 공동주택 단지코드 as K-apt writes it (``A`` and eight digits): the 시군구 and the complex's place in it."""
    return f"A{sgg_code}{index:03d}"


def _ymd(day: dt.date) -> str:
    return day.strftime("%Y%m%d")


def _num(value: float, places: int = 2) -> str:
    """An area or a rate as the register writes it: up to ``places`` decimals, no trailing zeros (``84.96``)."""
    text = f"{round(float(value), places):.{places}f}".rstrip("0").rstrip(".")
    return text or "0"


@dataclass(frozen=True)
class Place:
    """One 법정동 (a 동, 읍, 면 or 리) that holds lots."""

    code: str  # 10 digits
    name: str  # the full name: 서울특별시 강남구 역삼동
    sgg: "Sigungu"
    urban: bool

    @property
    def sigungu_cd(self) -> str:
        return self.code[:5]

    @property
    def bjdong_cd(self) -> str:
        return self.code[5:]


@dataclass(frozen=True)
class Building:
    pk: str
    main: bool
    dong_nm: str  # 101동, or "" for a lot's only building
    purpose: str  # mainPurpsCd
    etc_purps: str
    strct: str
    roof: str
    grnd: int
    ugrnd: int
    flr_area: float  # each floor above ground
    units_per_floor: int  # 집합 only
    res_from: int  # the first floor with units (apartments over a 필로티 start at 2)


@dataclass(frozen=True)
class Lot:
    """One lot and its buildings: the detail of a lot, drawn when one of its rows is read."""

    place: Place
    index: int
    plat: str
    bun: int
    ji: int
    kind: int
    name: str
    plat_area: float
    use_apr: dt.date
    pms: dt.date
    stcns: dt.date
    crtn: dt.date
    buildings: tuple[Building, ...]
    recap_pk: str
    road: str
    road_cd: str
    road_no: int
    zones: tuple[tuple[str, str, str, str], ...]  # (gb, cd, name, reprYn)
    bylots: tuple[tuple[int, int], ...]  # 부속지번 (bun, ji)
    hsprc: int  # 원, the house (or a unit's) price
    wclf: bool
    pklot: tuple[int, int, int, int]  # indoor auto, outdoor auto, indoor mech, outdoor mech
    complex_index: int  # the K-apt complex (kaptCode) of an apartment lot, else -1
    recent: int  # a permit of the last years: 0 none, 1 신축 (rebuilding), 2 증축, 3 대수선, 4 용도변경, 5 철거

    @property
    def collective(self) -> bool:
        return _COLLECTIVE[self.kind]

    @property
    def units(self) -> list[tuple[Building, int, int]]:
        """(building, floor, number on the floor) of every unit (호) of a 집합 lot."""
        return [
            (b, f, n)
            for b in self.buildings
            if b.units_per_floor
            for f in range(b.res_from, b.grnd + 1)
            for n in range(1, b.units_per_floor + 1)
        ]


@dataclass(frozen=True)
class _Summary:
    """The lots of a 법정동 as arrays (index order = (platGbCd, bun, ji) order)."""

    plat: np.ndarray
    bun: np.ndarray
    ji: np.ndarray
    kind: np.ndarray
    n_main: np.ndarray
    n_atch: np.ndarray
    grnd: np.ndarray
    ugrnd: np.ndarray
    upf: np.ndarray  # units per floor (집합)
    year: np.ndarray
    crtn: np.ndarray  # days since 2000-01-01 of the record
    bylot: np.ndarray
    zones: np.ndarray
    wclf: np.ndarray
    recent: np.ndarray  # the kind of a permit of the last years: 0 none, 1 신축, 2 증축, 3 대수선, 4 용도변경, 5 철거
    complex_of: np.ndarray  # index into the 시군구's complexes, -1 for none

    def __len__(self) -> int:
        return len(self.bun)

    @cached_property
    def res_from(self) -> np.ndarray:
        return np.where(self.kind == _APT, 2, np.where(self.kind == _VILLA, 2, 1))

    @cached_property
    def units(self) -> np.ndarray:
        floors = np.maximum(self.grnd - self.res_from + 1, 0)
        return np.where(np.isin(self.kind, (_VILLA, _OFFI, _APT)), self.n_main * floors * self.upf, 0)

    @cached_property
    def keys(self) -> list[tuple[int, int, int]]:
        return list(zip(self.plat.tolist(), self.bun.tolist(), self.ji.tolist()))


_EPOCH = dt.date(2000, 1, 1)


class BuildingWorld:
    """The lots, buildings and permits of every 법정동, drawn per 법정동 on demand."""

    _CACHE = 64

    def __init__(self, world: "World") -> None:
        self._world = world
        self._summaries: OrderedDict[str, _Summary] = OrderedDict()
        self._lots: OrderedDict[tuple[str, int], Lot] = OrderedDict()

    # -- places ---------------------------------------------------------------------------------------
    def place(self, sigungu_cd: str, bjdong_cd: str) -> Place | None:
        """The 법정동 ``sigunguCd + bjdongCd`` names when it is a 동, 읍, 면 or 리 of the register; else None."""
        if len(sigungu_cd) != 5 or len(bjdong_cd) != 5 or not (sigungu_cd + bjdong_cd).isdigit():
            return None
        code = sigungu_cd + bjdong_cd
        register = self._world.regions.register
        i = bisect.bisect_left(register.codes, code)
        if i == len(register.codes) or register.codes[i] != code or code[5:8] == "000":
            return None
        region = register.regions[i]
        dong = getattr(region, "dong", region)
        sgg = dong.sigungu
        urban = dong.name[-1] not in "읍면" and not hasattr(region, "dong")
        return Place(code, region.full_name, sgg, urban)

    def _has_ri(self, place: Place) -> bool:
        register = self._world.regions.register
        i = bisect.bisect_left(register.codes, place.code) + 1
        return i < len(register.codes) and register.codes[i][:8] == place.code[:8] and place.code[8:] == "00"

    def complexes(self, sgg_code: str) -> list["Complex"]:
        return self._world.datasets.complexes(sgg_code)

    # -- the arrays of a 법정동 ------------------------------------------------------------------------
    def summary(self, place: Place) -> _Summary:
        found = self._summaries.get(place.code)
        if found is not None:
            self._summaries.move_to_end(place.code)
            return found
        made = self._draw(place)
        self._summaries[place.code] = made
        if len(self._summaries) > self._CACHE:
            self._summaries.popitem(last=False)
        return made

    def _draw(self, place: Place) -> _Summary:
        rng = self._world.rng("bldg.place", place.code)
        full = self._world.size == "full"
        seoul = place.sgg.sido.code in ("11", "26", "27", "28", "29", "30", "31")
        if self._has_ri(place):
            mean = 25.0
        elif place.urban:
            mean = 1300.0 if seoul else 800.0
        elif place.code[8:] != "00":
            mean = 230.0
        else:
            mean = 600.0
        count = int(np.clip(rng.lognormal(np.log(mean), 0.45), mean / 6, mean * 3))
        if not full:
            count = max(8, count // 15)
        # the complexes the RTMS data trades stand on their own lots of this 법정동
        dong_code = place.code if place.code[8:] == "00" else ""
        mine = [(i, c) for i, c in enumerate(self.complexes(place.sgg.code)) if c.dong.code == dong_code]
        taken = {(c.bonbun, c.bubun) for _, c in mine}
        keys: set[tuple[int, int, int]] = {(0, b, j) for b, j in taken}
        max_bun = max(60, int(count * (1.3 if place.urban else 2.5)))
        while len(keys) < count + len(mine):
            main = int(rng.integers(1, max_bun))
            sub = int(rng.geometric(0.35)) - 1 if rng.random() < 0.55 else 0
            plat = 1 if (not place.urban and rng.random() < 0.06) else 0
            keys.add((plat, main, sub))
        ordered = sorted(keys)
        n = len(ordered)
        arr = np.array(ordered, dtype=np.int64)
        probs = np.array(_URBAN_P if place.urban else _RURAL_P)
        kind = rng.choice(len(KINDS), size=n, p=probs / probs.sum())
        complex_of = np.full(n, -1, dtype=np.int64)
        position = {key: i for i, key in enumerate(ordered)}
        for ci, c in mine:
            at = position[(0, c.bonbun, c.bubun)]
            complex_of[at] = ci
            kind[at] = _APT
        kind = np.where((arr[:, 0] == 1) & (kind >= _VILLA), _HOUSE, kind)  # no 집합 on a mountain lot
        is_apt = kind == _APT
        n_main = np.where(
            is_apt, rng.integers(2, 16, size=n), np.where(kind == _FACTORY, rng.integers(1, 4, size=n), 1)
        )
        n_atch = np.where((kind == _HOUSE) | (kind == _FARM) | (kind == _FACTORY), rng.random(n) < 0.2, 0).astype(int)
        grnd = np.select(
            [kind == _HOUSE, kind == _SHOP, kind == _FACTORY, kind == _FARM, kind == _VILLA, kind == _OFFI],
            [
                rng.integers(1, 4, size=n),
                rng.integers(2, 9, size=n),
                rng.integers(1, 3, size=n),
                np.ones(n, dtype=np.int64),
                rng.integers(4, 6, size=n),
                rng.integers(8, 26, size=n),
            ],
            default=rng.integers(10, 30, size=n),
        )
        for ci, c in mine:
            at = position[(0, c.bonbun, c.bubun)]
            grnd[at] = max(5, c.floors)
        ugrnd = np.where(kind == _HOUSE, rng.random(n) < 0.2, np.where(kind >= _SHOP, rng.integers(0, 3, size=n), 0))
        ugrnd = np.where(kind == _FARM, 0, np.where(is_apt, np.maximum(ugrnd, 1), ugrnd)).astype(np.int64)
        upf = np.select(
            [kind == _VILLA, kind == _OFFI, is_apt],
            [rng.integers(2, 5, size=n), rng.integers(8, 21, size=n), rng.integers(2, 5, size=n)],
            default=0,
        )
        year = np.where(
            is_apt, rng.integers(1980, 2025, size=n), rng.integers(1965 if place.urban else 1955, 2025, size=n)
        )
        for ci, c in mine:
            year[position[(0, c.bonbun, c.bubun)]] = c.build_year
        bylot = np.where(rng.random(n) < (0.18 if place.urban else 0.08), rng.integers(1, 3, size=n), 0)
        zones = rng.integers(1, 4, size=n)
        wclf = (rng.random(n) < (0.15 if place.urban else 0.7)) & (kind != _OFFI)
        recent = np.where(rng.random(n) < 0.07, rng.integers(1, 6, size=n), 0)
        # Anchors: seven lots of every 법정동, spread over it, are one of each kind with a permit of the digital era
        # (and a recent one of each kind), so every service answers for every 법정동 at every seed and size.
        free = [i for i in range(n) if complex_of[i] < 0 and arr[i, 0] == 0]
        for k, (a_kind, a_recent) in enumerate(_ANCHORS):
            if len(free) < len(_ANCHORS):
                break
            at = free[(k * len(free)) // len(_ANCHORS)]
            kind[at], recent[at], year[at] = a_kind, a_recent, 1992 + (at * 7 + k) % 30
            n_atch[at] = 1 if a_kind == _HOUSE else 0
            ugrnd[at] = 0 if a_kind in (_FARM, _FACTORY) else ugrnd[at]
            if a_kind == _APT:
                n_main[at], grnd[at], ugrnd[at], upf[at] = max(2, n_main[at] % 6), max(10, grnd[at]), 1, 2 + at % 3
                bylot[at], wclf[at], zones[at] = 1, True, max(2, zones[at])
            elif a_kind in (_VILLA, _OFFI):
                n_main[at], upf[at] = 1, 2 + at % 3 if a_kind == _VILLA else 8 + at % 8
                grnd[at] = 4 + at % 2 if a_kind == _VILLA else 8 + at % 10
            else:
                n_main[at], upf[at] = 1 if a_kind != _FACTORY else n_main[at], 0
                grnd[at] = {_HOUSE: 2, _SHOP: 4, _FACTORY: 1, _FARM: 1}[a_kind]
            if a_kind == _HOUSE:
                bylot[at] = 1
        crtn = (year - 2000) * 365 + rng.integers(30, 400, size=n)
        crtn = np.maximum(crtn, rng.integers(0, 3000, size=n))  # records made before 2000 were migrated later
        return _Summary(
            arr[:, 0], arr[:, 1], arr[:, 2], kind, n_main, n_atch, grnd, ugrnd, upf, year, crtn, bylot, zones,
            wclf, recent, complex_of,
        )  # fmt: skip

    # -- one lot ----------------------------------------------------------------------------------------
    def lot(self, place: Place, index: int) -> Lot:
        key = (place.code, index)
        found = self._lots.get(key)
        if found is not None:
            self._lots.move_to_end(key)
            return found
        made = self._make_lot(place, index)
        self._lots[key] = made
        if len(self._lots) > 4096:
            self._lots.popitem(last=False)
        return made

    def _make_lot(self, place: Place, i: int) -> Lot:
        s = self.summary(place)
        rng = self._world.rng("bldg.lot", place.code, i)
        kind, plat, bun, ji = int(s.kind[i]), str(int(s.plat[i])), int(s.bun[i]), int(s.ji[i])
        year = int(s.year[i])
        use_apr = dt.date(year, int(rng.integers(1, 13)), int(rng.integers(1, 29)))
        stcns = use_apr - dt.timedelta(days=int(rng.integers(150, 900 if kind == _APT else 500)))
        pms = stcns - dt.timedelta(days=int(rng.integers(20, 200)))
        crtn = _EPOCH + dt.timedelta(days=int(s.crtn[i]))
        complex_index = int(s.complex_of[i])
        stem = place.name.split()[-1][:-1] if len(place.name.split()[-1]) > 2 else place.name.split()[-1]
        n_main, n_atch = int(s.n_main[i]), int(s.n_atch[i])
        grnd, ugrnd, upf = int(s.grnd[i]), int(s.ugrnd[i]), int(s.upf[i])
        if complex_index >= 0:
            name = self.complexes(place.sgg.code)[complex_index].name
        elif kind == _APT:
            name = f"{stem}{_pick(rng, ('아파트', '맨션', '타운'))}"
        elif kind == _VILLA:
            name = f"{stem}{_pick(rng, ('빌라', '하이츠', '빌리지', '캐슬', '그린빌'))}"
        elif kind == _OFFI:
            name = f"{stem}{_pick(rng, ('오피스텔', '타워', '시티', '스퀘어'))}"
        elif kind == _SHOP and rng.random() < 0.5:
            name = f"{_pick(rng, ('대성', '한일', '동아', '삼영', '미래', '태평'))}빌딩"
        else:
            name = ""
        purpose, etc = {
            _HOUSE: ("01000", _pick(rng, ("단독주택", "단독주택", "다가구주택"))),
            _SHOP: _pick(
                rng,
                (
                    ("03000", "소매점"),
                    ("04000", "일반음식점"),
                    ("04000", "사무소"),
                    ("14000", "사무소"),
                    ("07000", "판매시설"),
                    ("15000", "숙박시설"),
                ),
            ),
            _FACTORY: _pick(rng, (("17000", "공장"), ("18000", "창고"))),
            _FARM: _pick(rng, (("21000", "축사"), ("18000", "창고"), ("21000", "버섯재배사"))),
            _VILLA: ("02000", _pick(rng, ("다세대주택", "다세대주택", "연립주택"))),
            _OFFI: ("14000", "오피스텔"),
            _APT: ("02000", "아파트"),
        }[kind]
        strct = (
            "21"
            if kind in (_VILLA, _OFFI, _APT, _SHOP) or year > 1995
            else _pick(rng, ("11", "12", "41", "32"))
            if kind in (_HOUSE, _FARM)
            else _pick(rng, ("31", "32"))
        )
        roof = "10" if strct in ("21", "26") else _pick(rng, ("20", "30", "90"))
        base_area = {
            _HOUSE: (50, 160),
            _SHOP: (120, 700),
            _FACTORY: (300, 2500),
            _FARM: (200, 1200),
            _VILLA: (150, 320),
            _OFFI: (400, 1500),
            _APT: (350, 900),
        }[kind]
        flr_area = float(rng.uniform(*base_area))
        if kind == _APT:  # a floor of units of 59–115 ㎡ (a traded complex's own sizes), plus the common parts
            areas = self.complexes(place.sgg.code)[complex_index].areas if complex_index >= 0 else (84.9,)
            flr_area = upf * float(np.mean(areas)) / 0.74 * float(rng.uniform(0.95, 1.05))
        pk_base = f"{place.sigungu_cd}-{int(place.bjdong_cd) * 100000 + i}"
        buildings = []
        for b in range(n_main):
            dong_nm = f"{101 + b}동" if kind == _APT else (f"제{b + 1}동" if n_main > 1 else "")
            buildings.append(
                Building(
                    f"{pk_base}{b:03d}",
                    True,
                    dong_nm,
                    purpose,
                    etc,
                    strct,
                    roof,
                    grnd,
                    ugrnd,
                    round(flr_area * float(rng.uniform(0.9, 1.1)), 2),
                    upf,
                    int(s.res_from[i]),
                )
            )
        for b in range(n_atch):
            atch_purpose = "18000"
            buildings.append(
                Building(
                    f"{pk_base}{n_main + b:03d}",
                    False,
                    "",
                    atch_purpose,
                    "창고",
                    _pick(rng, ("32", "11")),
                    "90",
                    1,
                    0,
                    round(float(rng.uniform(10, 60)), 2),
                    0,
                    1,
                )
            )
        coverage = {_HOUSE: 0.55, _SHOP: 0.6, _FACTORY: 0.6, _FARM: 0.4, _VILLA: 0.58, _OFFI: 0.55, _APT: 0.18}[kind]
        arch_total = sum(b.flr_area for b in buildings)
        plat_area = round(arch_total / coverage * float(rng.uniform(0.85, 1.2)), 1)
        zone_pool = _ZONES_URBAN if place.urban else _ZONES_RURAL
        first = _pick(rng, zone_pool)
        zones = [("1", first[0], first[1], "Y")]
        for k in range(int(s.zones[i]) - 1):
            cd, nm, gb = _DISTRICTS[k % len(_DISTRICTS)]
            zones.append((gb, cd, nm, "N"))
        bylots = tuple((bun + 1 + k, 0) for k in range(int(s.bylot[i])))
        road_stem = stable_int("bldg.road", place.code, bun // 40) % 7
        road = f"{stem}{'로' if road_stem < 3 else '길'}" + (f"{road_stem + 1}길" if road_stem >= 3 else "")
        road_cd = f"{place.sigungu_cd}{stable_int('bldg.roadcd', place.code, road) % 10**7:07d}"
        level = self._price_level(place)
        if kind == _HOUSE:
            hsprc = int(round(plat_area * level * float(rng.lognormal(0, 0.2)) * 10000 / 1000000)) * 1000000
        else:
            hsprc = int(round(level * 60 * float(rng.lognormal(0, 0.2)) * 10000 / 1000000)) * 1000000
        pklot = (
            int(rng.integers(0, 4)) if kind == _HOUSE else int(rng.integers(0, 3 + n_main * grnd * max(upf, 1))),
            int(rng.integers(1, 5)),
            int(rng.integers(0, 20)) if kind in (_SHOP, _OFFI) else 0,
            0,
        )
        return Lot(
            place, i, plat, bun, ji, kind, name, plat_area, use_apr, pms, stcns, crtn, tuple(buildings),
            f"{pk_base}900" if kind == _APT else "", road, road_cd, int(rng.integers(1, 400)),
            tuple(zones), bylots, max(hsprc, 30_000_000), bool(s.wclf[i]), pklot, complex_index, int(s.recent[i]),
        )  # fmt: skip

    def lot_of(self, place: Place, bun: int, ji: int, plat: int = 0) -> Lot | None:
        """The lot at (platGbCd, bun, ji) of a 법정동, if it has one."""
        s = self.summary(place)
        i = bisect.bisect_left(s.keys, (plat, bun, ji))
        return self.lot(place, i) if i < len(s) and s.keys[i] == (plat, bun, ji) else None

    def _price_level(self, place: Place) -> float:
        """만원 per ㎡ of land in the 시군구 (a house's 공시가격 follows it)."""
        code = place.sgg.sido.code
        low, high = (500, 1400) if code == "11" else (200, 700) if code in ("41", "26", "28") else (40, 300)
        return float(self._world.rng("bldg.price", place.sgg.code).uniform(low, high))

    # -- rows ------------------------------------------------------------------------------------------
    def select(self, place: Place, plat: str | None, bun: str | None, ji: str | None, since: str, until: str):
        """The lot indices of a 법정동 a call names (all of them, or one lot's), and the summary."""
        s = self.summary(place)
        mask = np.ones(len(s), dtype=bool)
        if plat is not None:
            mask &= s.plat == int(plat)
        if bun is not None:
            mask &= s.bun == int(bun)
        if ji is not None:
            mask &= s.ji == int(ji)
        if since or until:
            days = s.crtn
            if since:
                mask &= days >= (dt.date(int(since[:4]), int(since[4:6]), int(since[6:])) - _EPOCH).days
            if until:
                mask &= days <= (dt.date(int(until[:4]), int(until[4:6]), int(until[6:])) - _EPOCH).days
        return s, np.flatnonzero(mask)

    def rows(
        self,
        place: Place,
        lots: np.ndarray,
        counts: np.ndarray,
        make: Callable[[Lot, int, int], dict[str, Any]],
    ) -> Sequence[dict[str, Any]]:
        """Every row of the chosen lots, ``counts[lot]`` of them per lot, made page by page by ``make(lot, k, rnum)``."""
        per = counts[lots]
        ends = np.cumsum(per)
        total = int(ends[-1]) if len(ends) else 0

        def one(index: int) -> dict[str, Any]:
            at = int(np.searchsorted(ends, index, side="right"))
            start = int(ends[at - 1]) if at else 0
            return make(self.lot(place, int(lots[at])), index - start, index + 1)

        return LazyRows(range(total), one)


def _pick(rng: np.random.Generator, items: Sequence[Any]) -> Any:
    return items[int(rng.integers(0, len(items)))]


# ---------------------------------------------------------------------------
# The rows each service sends, per lot (counts from the arrays, values from the lot)
# ---------------------------------------------------------------------------

_REGSTR_GB = {"1": "일반", "2": "집합"}
_REGSTR_KIND = {"1": "총괄표제부", "2": "일반건축물", "3": "표제부", "4": "전유부"}
_JIJIGU_GB = {"1": "지역", "2": "지구", "3": "구역"}
_WCLF_MODES = (("11", "부패탱크방법"), ("21", "접촉폭기방법"), ("23", "장기폭기방법"))


def _address(lot: Lot, rnum: int) -> dict[str, Any]:
    """The lot part every row of the three services carries (지번 and 도로명 address, codes, 생성일자)."""
    p = lot.place
    jibun = f"{'산' if lot.plat == '1' else ''}{lot.bun}" + (f"-{lot.ji}" if lot.ji else "")
    dong = p.name.split()[-1] if p.urban else ""
    road = f"{p.sgg.sido.name} {p.sgg.name} {lot.road} {lot.road_no}" + (f" ({dong})" if dong else "")
    return {
        "rnum": str(rnum),
        "platPlc": f"{p.name} {jibun}번지",
        "sigunguCd": p.sigungu_cd,
        "bjdongCd": p.bjdong_cd,
        "platGbCd": lot.plat,
        "bun": f"{lot.bun:04d}",
        "ji": f"{lot.ji:04d}",
        "splotNm": "",
        "block": "",
        "lot": "",
        "newPlatPlc": road,
        "naRoadCd": lot.road_cd,
        "naBjdongCd": p.bjdong_cd,
        "naUgrndCd": "0",
        "naMainBun": str(lot.road_no),
        "naSubBun": "0",
        "bldNm": lot.name,
        "crtnDay": _ymd(lot.crtn),
    }


def _regstr(gb: str, kind: str) -> dict[str, str]:
    return {
        "regstrGbCd": gb,
        "regstrGbCdNm": _REGSTR_GB[gb],
        "regstrKindCd": kind,
        "regstrKindCdNm": _REGSTR_KIND[kind],
    }


def _purpose(b: Building) -> dict[str, str]:
    return {
        "mainPurpsCd": b.purpose,
        "mainPurpsCdNm": _PURPOSE[b.purpose],
        "etcPurps": b.etc_purps,
        "strctCd": b.strct,
        "strctCdNm": _STRUCT[b.strct],
        "etcStrct": _STRUCT[b.strct],
        "mainAtchGbCd": "0" if b.main else "1",
        "mainAtchGbCdNm": "주건축물" if b.main else "부속건축물",
    }


def _areas(b: Building) -> tuple[float, float]:
    """(연면적, 용적률 산정 연면적) of a building: its floors above ground, and its basement floors beside."""
    above = b.flr_area * b.grnd
    return above + b.flr_area * 0.9 * b.ugrnd, above


def _units_of(b: Building) -> int:
    return max(0, b.grnd - b.res_from + 1) * b.units_per_floor


def _lot_pk(lot: Lot) -> str:
    """The 대장 a lot-wide row (부속지번, 지역지구구역, 오수정화시설) hangs from: its 총괄표제부 or first building."""
    return lot.recap_pk or lot.buildings[0].pk


def _parking(lot: Lot) -> dict[str, str]:
    indoor, outdoor, mech, omech = lot.pklot
    return {
        "indrAutoUtcnt": str(indoor),
        "indrAutoArea": _num(indoor * 28.5),
        "oudrAutoUtcnt": str(outdoor),
        "oudrAutoArea": _num(outdoor * 11.5),
        "indrMechUtcnt": str(mech),
        "indrMechArea": _num(mech * 6.8),
        "oudrMechUtcnt": str(omech),
        "oudrMechArea": "0",
        "totPkngCnt": str(indoor + outdoor + mech + omech),
    }


def _permit_no(lot: Lot) -> dict[str, str]:
    old = lot.use_apr.year < 1985
    return {
        "pmsDay": "" if old else _ymd(lot.pms),
        "stcnsDay": "" if old else _ymd(lot.stcns),
        "useAprDay": _ymd(lot.use_apr),
        "pmsnoYear": "" if old else str(lot.pms.year),
        "pmsnoKikCd": "" if old else f"{stable_int('bldg.kik', lot.place.sgg.code) % 9_000_000 + 1_000_000}",
        "pmsnoKikCdNm": "" if old else lot.place.sgg.full_name,
        "pmsnoGbCd": "" if old else "1111",
        "pmsnoGbCdNm": "" if old else "건축허가",
    }


def _title_values(lot: Lot, b: Building) -> dict[str, Any]:
    tot, vl_area = _areas(b)
    units = _units_of(b)
    residential = _RESIDENTIAL[lot.kind] and b.main
    elevators = 0 if b.grnd < 6 else max(1, units // 60) if units else 1
    atch = [x for x in lot.buildings if not x.main]
    return {
        **_purpose(b),
        "mgmBldrgstPk": b.pk,
        "dongNm": b.dong_nm,
        "platArea": _num(lot.plat_area),
        "archArea": _num(b.flr_area),
        # the ratios are the lot's (every building on it over its area), as the 표제부 repeats them
        "bcRat": _num(sum(x.flr_area for x in lot.buildings) / lot.plat_area * 100),
        "totArea": _num(tot),
        "vlRatEstmTotArea": _num(vl_area),
        "vlRat": _num(sum(_areas(x)[1] for x in lot.buildings) / lot.plat_area * 100),
        "roofCd": b.roof,
        "roofCdNm": _ROOF[b.roof],
        "etcRoof": _ROOF[b.roof],
        "hhldCnt": str(units if residential and lot.kind != _OFFI else 0),
        "fmlyCnt": str(b.grnd * 2 if b.etc_purps == "다가구주택" else 1 if residential and not units else 0),
        "hoCnt": str(units if lot.kind == _OFFI else 0),
        "heit": _num(b.grnd * (2.9 if residential else 3.6) + 0.5, 1),
        "grndFlrCnt": str(b.grnd),
        "ugrndFlrCnt": str(b.ugrnd),
        "rideUseElvtCnt": str(elevators),
        "emgenUseElvtCnt": str(1 if b.grnd >= 11 else 0),
        "atchBldCnt": str(len(atch) if b.main else 0),
        "atchBldArea": _num(sum(x.flr_area for x in atch) if b.main else 0),
        "totDongTotArea": _num(tot),
        "engrGrade": "1+" if lot.use_apr.year >= 2018 and lot.kind == _APT else "",
        "engrRat": "0",
        "engrEpi": "0",
        "gnBldGrade": "",
        "gnBldCert": "0",
        "itgBldGrade": "",
        "itgBldCert": "0",
        "rserthqkDsgnApplyYn": "1" if lot.use_apr.year >= 1988 and b.grnd >= 3 else "0",
        "rserthqkAblty": "VII-0.204g" if lot.use_apr.year >= 2005 and b.grnd >= 3 else "",
        "bylotCnt": str(len(lot.bylots)),
        **_parking(lot),
        **_permit_no(lot),
    }


def _title(lot: Lot, k: int, rnum: int) -> dict[str, Any]:
    b = lot.buildings[k]
    gb, kind = ("2", "3") if lot.collective else ("1", "2")
    return {**_address(lot, rnum), **_regstr(gb, kind), **_title_values(lot, b)}


def _recap(lot: Lot, k: int, rnum: int) -> dict[str, Any]:
    titles = [_title_values(lot, b) for b in lot.buildings]
    total = sum(float(t["totArea"]) for t in titles)
    vl_area = sum(float(t["vlRatEstmTotArea"]) for t in titles)
    arch = sum(b.flr_area for b in lot.buildings)
    units = sum(_units_of(b) for b in lot.buildings)
    return {
        **_address(lot, rnum),
        **_regstr("2", "1"),
        **_permit_no(lot),
        **_parking(lot),
        "mgmBldrgstPk": lot.recap_pk,
        "newOldRegstrGbCd": "1",
        "newOldRegstrGbCdNm": "신",
        "bylotCnt": str(len(lot.bylots)),
        "platArea": _num(lot.plat_area),
        "archArea": _num(arch),
        "bcRat": _num(arch / lot.plat_area * 100),
        "totArea": _num(total),
        "vlRatEstmTotArea": _num(vl_area),
        "vlRat": _num(vl_area / lot.plat_area * 100),
        "mainPurpsCd": "02000",
        "mainPurpsCdNm": _PURPOSE["02000"],
        "etcPurps": "아파트",
        "hhldCnt": str(units),
        "fmlyCnt": "0",
        "hoCnt": "0",
        "mainBldCnt": str(sum(1 for b in lot.buildings if b.main)),
        "atchBldCnt": str(sum(1 for b in lot.buildings if not b.main)),
        "atchBldArea": "0",
        "engrGrade": "1+" if lot.use_apr.year >= 2018 else "",
        "engrRat": "0",
        "engrEpi": "0",
        "gnBldGrade": "",
        "gnBldCert": "0",
        "itgBldGrade": "",
        "itgBldCert": "0",
    }


def _unit_at(lot: Lot, k: int) -> tuple[Building, int, int]:
    """The k-th unit (호) of a 집합 lot without listing them all: buildings in order, floors, then numbers."""
    for b in lot.buildings:
        n = _units_of(b)
        if k < n:
            floor, number = divmod(k, b.units_per_floor)
            return b, b.res_from + floor, number + 1
        k -= n
    raise IndexError(k)


def _ho_name(lot: Lot, floor: int, number: int) -> str:
    return f"{floor}{number:02d}호" if lot.kind != _VILLA else f"{floor}0{number}호"


def _unit_pk(b: Building, floor: int, number: int) -> str:
    return f"{b.pk}{floor:03d}{number:02d}"


def _unit_area(lot: Lot, b: Building) -> float:
    return b.flr_area * 0.74 / max(1, b.units_per_floor)


def _basis(lot: Lot, k: int, rnum: int) -> dict[str, Any]:
    """기본개요: one row per 대장 — the 총괄표제부, each 표제부 (or 일반건축물), then each 전유부."""
    row = {**_address(lot, rnum), "bylotCnt": str(len(lot.bylots))}
    zone = {z[0]: z for z in lot.zones}
    for gb, code, name in (("1", "jiyukCd", "jiyukCdNm"), ("2", "jiguCd", "jiguCdNm"), ("3", "guyukCd", "guyukCdNm")):
        row[code], row[name] = (zone[gb][1], zone[gb][2]) if gb in zone else ("", "")
    if lot.recap_pk:
        if k == 0:
            return {**row, **_regstr("2", "1"), "mgmBldrgstPk": lot.recap_pk, "mgmUpBldrgstPk": ""}
        k -= 1
    if k < len(lot.buildings):
        b = lot.buildings[k]
        kinds = ("2", "3") if lot.collective else ("1", "2")
        return {**row, **_regstr(*kinds), "mgmBldrgstPk": b.pk, "mgmUpBldrgstPk": lot.recap_pk}
    b, floor, number = _unit_at(lot, k - len(lot.buildings))
    return {**row, **_regstr("2", "4"), "mgmBldrgstPk": _unit_pk(b, floor, number), "mgmUpBldrgstPk": b.pk}


def _floors_of(b: Building) -> list[tuple[str, int]]:
    return [("10", n) for n in range(b.ugrnd, 0, -1)] + [("20", n) for n in range(1, b.grnd + 1)]


def _floor_name(gb: str, n: int) -> tuple[str, str]:
    return {"10": "지하", "20": "지상", "30": "옥탑"}[gb], (f"지{n}층" if gb == "10" else f"{n}층")


def _floor_use(lot: Lot, b: Building, gb: str, n: int) -> tuple[str, str]:
    """(용도코드, 기타용도) of one floor: parking and machine rooms below ground, shops under the homes."""
    if gb == "10":
        return ("02000", "주차장") if lot.kind == _APT else (b.purpose, "주차장" if n == 1 else "기계실")
    if lot.kind in (_APT, _VILLA) and n < b.res_from:
        return b.purpose, "필로티(주차장)"
    if lot.kind == _HOUSE and b.etc_purps == "다가구주택" and n == 1 and b.grnd > 2:
        return "04000", "근린생활시설"
    return b.purpose, b.etc_purps


def _floor(lot: Lot, k: int, rnum: int) -> dict[str, Any]:
    for b in lot.buildings:
        floors = _floors_of(b)
        if k < len(floors):
            gb, n = floors[k]
            gb_name, no_name = _floor_name(gb, n)
            purpose, etc = _floor_use(lot, b, gb, n)
            return {
                **_address(lot, rnum),
                **_purpose(b),
                "mgmBldrgstPk": b.pk,
                "dongNm": b.dong_nm,
                "flrGbCd": gb,
                "flrGbCdNm": gb_name,
                "flrNo": str(n),
                "flrNoNm": no_name,
                "area": _num(b.flr_area * (0.9 if gb == "10" else 1.0)),
                "areaExctYn": "1" if etc.startswith("필로티") else "0",
                "mainPurpsCd": purpose,
                "mainPurpsCdNm": _PURPOSE[purpose],
                "etcPurps": etc,
            }
        k -= len(floors)
    raise IndexError(k)


def _expos(lot: Lot, k: int, rnum: int) -> dict[str, Any]:
    b, floor, number = _unit_at(lot, k)
    return {
        **_address(lot, rnum),
        **_regstr("2", "4"),
        "mgmBldrgstPk": _unit_pk(b, floor, number),
        "dongNm": b.dong_nm,
        "hoNm": _ho_name(lot, floor, number),
        "flrGbCd": "20",
        "flrGbCdNm": "지상",
        "flrNo": str(floor),
    }


def _expos_pubuse(lot: Lot, k: int, rnum: int) -> dict[str, Any]:
    b, floor, number = _unit_at(lot, k // 2)
    private = k % 2 == 0
    area = _unit_area(lot, b) * (1.0 if private else 0.32)
    return {
        **_expos(lot, k // 2, rnum),
        **_purpose(b),
        "flrNoNm": f"{floor}층",
        "exposPubuseGbCd": "1" if private else "2",
        "exposPubuseGbCdNm": "전유" if private else "공용",
        "etcPurps": b.etc_purps if private else "계단실,복도",
        "area": _num(area, 4),
    }


def _atch_jibun(lot: Lot, k: int, rnum: int) -> dict[str, Any]:
    bun, ji = lot.bylots[k]
    gb = "2" if lot.collective else "1"
    return {
        **_address(lot, rnum),
        **_regstr(gb, "1" if lot.recap_pk else ("3" if lot.collective else "2")),
        "mgmBldrgstPk": _lot_pk(lot),
        "atchSigunguCd": lot.place.sigungu_cd,
        "atchBjdongCd": lot.place.bjdong_cd,
        "atchPlatGbCd": "0",
        "atchBun": f"{bun:04d}",
        "atchJi": f"{ji:04d}",
        "atchSplotNm": "",
        "atchBlock": "",
        "atchLot": "",
        "atchEtcJibunNm": "",
        "atchRegstrGbCd": gb,
        "atchRegstrGbCdNm": _REGSTR_GB[gb],
    }


def _wclf(lot: Lot, k: int, rnum: int) -> dict[str, Any]:
    mode, mode_name = _WCLF_MODES[(lot.bun + lot.ji) % len(_WCLF_MODES)]
    people = max(5, sum(_units_of(b) for b in lot.buildings) * 3 or int(lot.plat_area // 30))
    gb = "2" if lot.collective else "1"
    return {
        **_address(lot, rnum),
        **_regstr(gb, "1" if lot.recap_pk else ("3" if lot.collective else "2")),
        "mgmBldrgstPk": _lot_pk(lot),
        "modeCd": mode,
        "modeCdNm": mode_name,
        "etcMode": "",
        "unitGbCd": "1",
        "unitGbCdNm": "인용",
        "capaPsper": str(people),
        "capaLube": _num(people * 0.2, 1),
    }


def _hsprc(lot: Lot, k: int, rnum: int) -> dict[str, Any]:
    row = {**_address(lot, rnum), "bylotCnt": str(len(lot.bylots))}
    if lot.kind == _HOUSE:
        return {**row, **_regstr("1", "2"), "mgmBldrgstPk": lot.buildings[0].pk, "hsprc": str(lot.hsprc)}
    b, floor, number = _unit_at(lot, k)
    price = int(lot.hsprc * _unit_area(lot, b) / 60 * (1 + 0.004 * floor) / 1_000_000) * 1_000_000
    return {
        **row,
        **_regstr("2", "4"),
        "mgmBldrgstPk": _unit_pk(b, floor, number),
        "hsprc": str(max(price, 20_000_000)),
    }


def _jijigu(lot: Lot, k: int, rnum: int) -> dict[str, Any]:
    gb, code, name, repr_yn = lot.zones[k]
    return {
        **_address(lot, rnum),
        "mgmBldrgstPk": _lot_pk(lot),
        "jijiguGbCd": gb,
        "jijiguGbCdNm": _JIJIGU_GB[gb],
        "jijiguCd": code,
        "jijiguCdNm": name,
        "reprYn": "1" if repr_yn == "Y" else "0",
        "etcJijigu": "",
    }


def _is(s: _Summary, *kinds: int) -> np.ndarray:
    return np.isin(s.kind, kinds)


def _floor_count(s: _Summary) -> np.ndarray:
    return s.n_main * (s.grnd + s.ugrnd) + s.n_atch


#: 건축물대장 (BldRgstHubService): per operation, (rows per lot from the arrays, one row of a lot)
REGISTER: dict[str, tuple[Callable[[_Summary], np.ndarray], Callable[[Lot, int, int], dict[str, Any]]]] = {
    "basis": (lambda s: (s.kind == _APT) + s.n_main + s.n_atch + s.units, _basis),
    "recap": (lambda s: (s.kind == _APT).astype(np.int64), _recap),
    "title": (lambda s: s.n_main + s.n_atch, _title),
    "floor": (_floor_count, _floor),
    "atch_jibun": (lambda s: s.bylot, _atch_jibun),
    "expos_pubuse": (lambda s: 2 * s.units, _expos_pubuse),
    "wclf": (lambda s: s.wclf.astype(np.int64), _wclf),
    "hsprc": (lambda s: np.where(s.kind == _HOUSE, 1, np.where(_is(s, _VILLA, _APT), s.units, 0)), _hsprc),
    "expos": (lambda s: s.units, _expos),
    "jijigu": (lambda s: s.zones, _jijigu),
}


# ---------------------------------------------------------------------------
# 건축인허가 (ArchPmsHubService) and 주택인허가 (HsPmsHubService)
# ---------------------------------------------------------------------------

#: the permits of a lot: the building's own (신축, when it was built after digital permits began, 1992) and a recent
#: one; the kinds of the recent ones
_RECENT = {1: ("1", "신축"), 2: ("2", "증축"), 3: ("3", "대수선"), 4: ("5", "용도변경"), 5: ("9", "철거")}


def _permits(lot: Lot) -> list[tuple[str, str, dt.date, bool]]:
    """(archGbCd, name, permit day, finished) of a lot's permits, oldest first."""
    out = []
    if lot.use_apr.year >= 1992:
        out.append(("1", "신축", lot.pms, True))
    if lot.recent:
        code, name = _RECENT[lot.recent]
        day = dt.date(2019, 1, 1) + dt.timedelta(days=(lot.bun * 37 + lot.ji * 11 + lot.index) % 2300)
        out.append((code, name, day, lot.recent != 1))
    return out


def _pms_pk(lot: Lot, j: int) -> str:
    return f"{lot.place.sigungu_cd}-{int(lot.place.bjdong_cd) * 100000 + lot.index}{j}"


def _pms_at(lot: Lot, k: int, per: Callable[[Lot, tuple[str, str, dt.date, bool]], int]):
    """(permit number, its row number k) of the k-th row over a lot's permits, each giving ``per`` rows."""
    for j, permit in enumerate(_permits(lot)):
        n = per(lot, permit)
        if k < n:
            return j, permit, k
        k -= n
    raise IndexError(k)


def _new(permit) -> bool:
    return permit[0] == "1"


def _pms_base(lot: Lot, j: int, rnum: int) -> dict[str, Any]:
    row = _address(lot, rnum)
    row["mgmPmsrgstPk"] = _pms_pk(lot, j)
    return row


def _pms_basis(lot: Lot, k: int, rnum: int) -> dict[str, Any]:
    j, (code, name, day, done) = k, _permits(lot)[k]
    titles = [_title_values(lot, b) for b in lot.buildings]
    zone = {z[0]: z for z in lot.zones}
    units = sum(_units_of(b) for b in lot.buildings)
    row = {
        **_pms_base(lot, j, rnum),
        "archGbCd": code,
        "archGbCdNm": name,
        "jimokCd": "08" if lot.place.urban else _pick_det(lot, ("08", "01", "02")),
        "jimokCdNm": "대"
        if lot.place.urban
        else {"08": "대", "01": "전", "02": "답"}[_pick_det(lot, ("08", "01", "02"))],
        "platArea": _num(lot.plat_area),
        "archArea": _num(sum(b.flr_area for b in lot.buildings)),
        "bcRat": _num(sum(b.flr_area for b in lot.buildings) / lot.plat_area * 100),
        "totArea": _num(sum(float(t["totArea"]) for t in titles)),
        "vlRatEstmTotArea": _num(sum(float(t["vlRatEstmTotArea"]) for t in titles)),
        "vlRat": _num(sum(float(t["vlRatEstmTotArea"]) for t in titles) / lot.plat_area * 100),
        "mainBldCnt": str(sum(1 for b in lot.buildings if b.main)),
        "atchBldDongCnt": str(sum(1 for b in lot.buildings if not b.main)),
        "mainPurpsCd": lot.buildings[0].purpose,
        "mainPurpsCdNm": _PURPOSE[lot.buildings[0].purpose],
        "hhldCnt": str(units if _RESIDENTIAL[lot.kind] and lot.kind != _OFFI else 0),
        "hoCnt": str(units if lot.kind == _OFFI else 0),
        "fmlyCnt": "0",
        "totPkngCnt": _parking(lot)["totPkngCnt"],
        "stcnsSchedDay": _ymd(day + dt.timedelta(days=60)),
        "stcnsDelayDay": "",
        "realStcnsDay": _ymd(lot.stcns if j == 0 else day + dt.timedelta(days=75)),
        "archPmsDay": _ymd(day),
        "useAprDay": (_ymd(lot.use_apr) if j == 0 else _ymd(day + dt.timedelta(days=240))) if done else "",
    }
    for gb, cd, nm in (("1", "jiyukCd", "jiyukCdNm"), ("2", "jiguCd", "jiguCdNm"), ("3", "guyukCd", "guyukCdNm")):
        row[cd], row[nm] = (zone[gb][1], zone[gb][2]) if gb in zone else ("", "")
    return row


def _pick_det(lot: Lot, items: Sequence[str]) -> str:
    return items[(lot.bun + lot.index) % len(items)]


def _dongs_per(lot: Lot, permit) -> int:
    return len(lot.buildings) if _new(permit) else 0 if permit[0] == "9" else 1


def _pms_dong(lot: Lot, k: int, rnum: int) -> dict[str, Any]:
    j, permit, k = _pms_at(lot, k, _dongs_per)
    b = lot.buildings[k]
    t = _title_values(lot, b)
    return {
        **_pms_base(lot, j, rnum),
        **{n: t[n] for n in ("mainAtchGbCd", "mainAtchGbCdNm", "mainPurpsCd", "mainPurpsCdNm", "hoCnt", "fmlyCnt")},
        **{n: t[n] for n in ("hhldCnt", "strctCd", "strctCdNm", "roofCd", "roofCdNm", "archArea", "totArea")},
        **{n: t[n] for n in ("vlRatEstmTotArea", "rideUseElvtCnt", "emgenUseElvtCnt", "dongNm")},
        "mgmDongOulnPk": f"{_pms_pk(lot, j)}{k:03d}",
    }


def _floors_per(lot: Lot, permit) -> int:
    return sum(len(_floors_of(b)) for b in lot.buildings) if _new(permit) else 1 if permit[0] in ("2", "5") else 0


def _pms_floor(lot: Lot, k: int, rnum: int) -> dict[str, Any]:
    j, permit, k = _pms_at(lot, k, _floors_per)
    row = _floor(lot, k if _new(permit) else lot.buildings[0].grnd + lot.buildings[0].ugrnd - 1, rnum)
    return {
        **row,
        "mgmPmsrgstPk": _pms_pk(lot, j),
        "mgmDongOulnPk": f"{_pms_pk(lot, j)}000",
        "mgmFlrOulnPk": f"{_pms_pk(lot, j)}{k:04d}",
        "flrArea": row["area"],
        "archGbCd": permit[0],
        "archGbCdNm": permit[1],
        "purpsCd": row["mainPurpsCd"],
        "purpsCdNm": row["mainPurpsCdNm"],
    }


def _units_per(lot: Lot, permit) -> int:
    return sum(_units_of(b) for b in lot.buildings) if _new(permit) else 0


def _pms_ho(lot: Lot, k: int, rnum: int, pk_key: str = "mgmPmsrgstPk") -> dict[str, Any]:
    j, permit, k = _pms_at(lot, k, _units_per)
    b, floor, number = _unit_at(lot, k)
    area = _unit_area(lot, b)
    return {
        **_address(lot, rnum),
        pk_key: _pms_pk(lot, j),
        "mgmHoDetlPk": f"{_pms_pk(lot, j)}{floor:03d}{number:02d}",
        "mgmDongOulnPk": f"{_pms_pk(lot, j)}{lot.buildings.index(b):03d}",
        "dongNm": b.dong_nm,
        "hoNo": str(number),
        "hoNm": _ho_name(lot, floor, number),
        "pngtypGbNm": f"{round(area / 3.3058)}평형",
        "flrNo": str(floor),
        "flrGbCd": "20",
        "flrGbCdNm": "지상",
        "changGbCd": "1",
        "changGbCdNm": "신규",
    }


def _pms_ho_area(lot: Lot, k: int, rnum: int, pk_key: str = "mgmPmsrgstPk") -> dict[str, Any]:
    row = _pms_ho(lot, k // 2, rnum, pk_key)
    _, _, unit = _pms_at(lot, k // 2, _units_per)
    b, floor, number = _unit_at(lot, unit)
    private = k % 2 == 0
    return {
        **row,
        **_purpose(b),
        "mgmExposPubuseAreaPk": f"{row['mgmHoDetlPk']}{k % 2}",
        "mgmActHoExposPubusePk": f"{row['mgmHoDetlPk']}{k % 2}",
        "exposPubuseGbCd": "1" if private else "2",
        "exposPubuseGbCdNm": "전유" if private else "공용",
        "etcPurps": b.etc_purps if private else "계단실,복도",
        "area": _num(_unit_area(lot, b) * (1.0 if private else 0.32), 4),
    }


def _types_per(lot: Lot, permit) -> int:
    return 2 if _new(permit) and lot.collective else 0


def _pms_type_area(lot: Lot, k: int, rnum: int) -> dict[str, Any]:
    j, permit, k = _pms_at(lot, k, _types_per)
    b = lot.buildings[0]
    private = k % 2 == 0
    return {
        **_pms_base(lot, j, rnum),
        **_purpose(b),
        "mgmExposPubuseAreaPk": f"{_pms_pk(lot, j)}{k:02d}",
        "pngtypGbNm": f"{round(_unit_area(lot, b) / 3.3058)}평형",
        "exposPubuseGbCd": "1" if private else "2",
        "exposPubuseGbCdNm": "전유" if private else "공용",
        "flrGbCd": "20",
        "flrGbCdNm": "지상",
        "flrNo": "1",
        "area": _num(_unit_area(lot, b) * (1.0 if private else 0.32), 4),
    }


def _one_if(test: Callable[[Lot, tuple], bool]) -> Callable[[Lot, tuple], int]:
    return lambda lot, permit: 1 if test(lot, permit) else 0


def _pms_simple(per: Callable[[Lot, tuple], int], values: Callable[[Lot, tuple, int], dict[str, Any]]):
    def make(lot: Lot, k: int, rnum: int) -> dict[str, Any]:
        j, permit, k = _pms_at(lot, k, per)
        return {**_pms_base(lot, j, rnum), **values(lot, permit, k)}

    return make


def _imprpr(lot: Lot, permit, k: int) -> dict[str, Any]:
    return {
        "imprprGbCd": "03",
        "imprprGbCdNm": "내력벽 증설·해체·수선",
        "imprprChangGbCd": "1",
        "imprprChangGbCdNm": "수선",
    }


def _hdcr(lot: Lot, permit, k: int) -> dict[str, Any]:
    zone = lot.zones[0]
    return {
        "hdcrKindCd": "03",
        "hdcrKindCdNm": "옹벽",
        "strctCd": "21",
        "strctCdNm": _STRUCT["21"],
        "len": _num(12 + lot.bun % 30, 1),
        "heit": _num(2 + lot.ji % 4, 1),
        "area": _num((12 + lot.bun % 30) * 0.4, 1),
        "bcRat": "0",
        "jimokCd": "08",
        "jimokCdNm": "대",
        "jiyukCd": zone[1],
        "jiyukCdNm": zone[2],
        "jiguCd": "",
        "jiguCdNm": "",
        "guyukCd": "",
        "guyukCdNm": "",
    }


def _demol(lot: Lot, permit, k: int) -> dict[str, Any]:
    b = lot.buildings[0]
    day = permit[2]
    return {
        "demolExtngGbCd": "1",
        "demolExtngGbCdNm": "철거",
        "demolStrtDay": _ymd(day),
        "demolEndDay": _ymd(day + dt.timedelta(days=30)),
        "demolExtngDay": _ymd(day + dt.timedelta(days=45)),
        "totArea": _title_values(lot, b)["totArea"],
        "bldCnt": str(len(lot.buildings)),
        "mainPurpsCd": b.purpose,
        "mainPurpsCdNm": _PURPOSE[b.purpose],
        "strctCd": b.strct,
        "strctCdNm": _STRUCT[b.strct],
        "hhldCnt": "0",
        "hoCnt": "0",
        "fmlyCnt": "1" if lot.kind == _HOUSE else "0",
        **{f: "0" for f in ("cemaIncYn", "himaIncYn", "lgmaIncYn", "etcIncYn", "btmaIncYn", "etcYn")},
        "rfmaIncYn": "1" if b.roof == "30" else "0",
        "nabYn": "0" if b.roof == "30" else "1",
    }


def _tmpbld(lot: Lot, permit, k: int) -> dict[str, Any]:
    area = 40 + lot.bun % 120
    return {
        "sumArchArea": _num(area),
        "sumTotArea": _num(area),
        "platArea": _num(lot.plat_area),
        "tmpbldPrsvExpDay": _ymd(permit[2] + dt.timedelta(days=3 * 365)),
        "strctCd": "32",
        "strctCdNm": _STRUCT["32"],
        "mainPurpsCd": "18000",
        "mainPurpsCdNm": _PURPOSE["18000"],
        "archArea": _num(area),
        "totArea": _num(area),
        "grndFlrCnt": "1",
    }


def _pms_wclf(lot: Lot, permit, k: int) -> dict[str, Any]:
    row = _wclf(lot, 0, 0)
    return {
        "reprYn": "1",
        "wclfModeCd": row["modeCd"],
        "wclfModeCdNm": row["modeCdNm"],
        "etcWclf": "",
        "mainDongGbCd": "0",
        "mainDongGbCdNm": "주동",
        "dongRelGb": "1",
        "dongRelGbNm": "전체",
        "hjdongCd": "",
        "capaPsper": row["capaPsper"],
        "capaLube": row["capaLube"],
    }


def _pms_pklot(lot: Lot, permit, k: int) -> dict[str, Any]:
    p = _parking(lot)
    return {
        **{n: p[n] for n in p if n != "totPkngCnt"},
        **{n: "0" for n in ("neigAutoUtcnt", "neigAutoArea", "neigMechUtcnt", "neigMechArea", "exmptUtcnt")},
        "totPklotUtcnt": p["totPkngCnt"],
        "grndPklotUtcnt": str(lot.pklot[1]),
        "ugrndPklotUtcnt": str(lot.pklot[0]),
    }


def _atch_pklot(lot: Lot, permit, k: int) -> dict[str, Any]:
    return {
        "hjdongCd": "",
        "jimokCd": "08",
        "jimokCdNm": "대",
        "relJibunNm": f"{lot.place.name} {lot.bun + 3}번지",
    }


def _pms_jijigu(lot: Lot, permit, k: int) -> dict[str, Any]:
    gb, code, name, repr_yn = lot.zones[k]
    return {
        "jijiguGbCd": gb,
        "jijiguGbCdNm": _JIJIGU_GB[gb],
        "jijiguCd": code,
        "jijiguCdNm": name,
        "jijiguNm": name,
        "reprYn": "1" if repr_yn == "Y" else "0",
        "mainDongGbCd": "0",
        "mainDongGbCdNm": "주동",
        "dongRelGb": "1",
        "dongRelGbNm": "전체",
    }


def _road(lot: Lot, permit, k: int) -> dict[str, Any]:
    day = permit[2]
    return {
        "ranoYear": str(day.year),
        "ranoSeqno": str(lot.index % 900 + 1),
        "rdasnGbCd": "1",
        "rdasnGbCdNm": "지정",
        "rdasnDay": _ymd(day),
        "roadChangDay": "",
        "roadChangOdr": "0",
        "roadCloseDay": "",
        "mgmSigunguCd": lot.place.sigungu_cd,
        "rdasnChangDay": "",
        "roadLenTotal": _num(20 + lot.bun % 60, 1),
        "roadWidthTotal": _num(4 + lot.ji % 3, 1),
        "roadAreaTotal": _num((20 + lot.bun % 60) * (4 + lot.ji % 3), 1),
    }


def _plat_plc(lot: Lot, permit, k: int) -> dict[str, Any]:
    bun, ji = (lot.bun, lot.ji) if k == 0 else lot.bylots[k - 1]
    jimok = "08" if lot.place.urban else _pick_det(lot, ("08", "01", "02"))
    return {
        "mgmPlatPlcPk": f"{_pms_pk(lot, 0)}{k:02d}",
        "mgmDongOulnPk": "",
        "reprYn": "1" if k == 0 else "0",
        "mainDongGbCd": "0",
        "mainDongGbCdNm": "주동",
        "hjdongCd": "",
        "jimokCd": jimok,
        "jimokCdNm": {"08": "대", "01": "전", "02": "답"}[jimok],
        "relJibunNm": f"{lot.place.name} {bun}" + (f"-{ji}" if ji else "") + "번지",
        "platArea": _num(lot.plat_area if k == 0 else lot.plat_area * 0.2),
        "minPlatWidth": _num(8 + lot.ji % 6, 1),
        "maxPlatWidth": _num(14 + lot.bun % 20, 1),
        "dongRelGb": "1",
        "dongRelGbNm": "전체",
    }


def _hs_tp(lot: Lot, permit, k: int) -> dict[str, Any]:
    b = lot.buildings[0]
    units = sum(_units_of(x) for x in lot.buildings) or (b.grnd * 2 if b.etc_purps == "다가구주택" else 1)
    code = {"단독주택": "11", "다가구주택": "13", "다세대주택": "22", "연립주택": "23", "아파트": "21"}[b.etc_purps]
    return {
        "hstpGbCd": code,
        "hstpGbCdNm": b.etc_purps,
        "silHoHhldCnt": str(units),
        "silHoHhldArea": _num(sum(_areas(x)[0] for x in lot.buildings if x.main)),
    }


def _pms_count(s: _Summary, per_new: np.ndarray, per_recent: dict[int, np.ndarray | int] | None = None) -> np.ndarray:
    """Rows of a permit service per lot: ``per_new`` for each 신축 permit, ``per_recent[kind]`` for a recent one."""
    orig = (s.year >= 1992).astype(np.int64)
    out = orig * per_new + (s.recent == 1) * per_new
    for kind, value in (per_recent or {}).items():
        out = out + (s.recent == kind) * value
    return out


def _has_permit(s: _Summary) -> np.ndarray:
    return (s.year >= 1992).astype(np.int64) + (s.recent > 0)


def _new_and(s: _Summary, mask: np.ndarray) -> np.ndarray:
    return _pms_count(s, mask.astype(np.int64))


#: 건축인허가 (ArchPmsHubService): per operation, (rows per lot, one row of a lot)
ARCH_PERMITS: dict[str, tuple[Callable[[_Summary], np.ndarray], Callable[[Lot, int, int], dict[str, Any]]]] = {
    "basis": (_has_permit, _pms_basis),
    "dong": (lambda s: _pms_count(s, s.n_main + s.n_atch, {2: 1, 3: 1, 4: 1}), _pms_dong),
    "floor": (lambda s: _pms_count(s, _floor_count(s), {2: 1, 4: 1}), _pms_floor),
    "ho": (lambda s: _pms_count(s, s.units), _pms_ho),
    "imprpr": (lambda s: (s.recent == 3).astype(np.int64), _pms_simple(_one_if(lambda lot, p: p[0] == "3"), _imprpr)),
    "hdcr": (
        lambda s: _new_and(s, s.kind == _FACTORY),
        _pms_simple(_one_if(lambda lot, p: _new(p) and lot.kind == _FACTORY), _hdcr),
    ),
    "demol": (lambda s: (s.recent == 5).astype(np.int64), _pms_simple(_one_if(lambda lot, p: p[0] == "9"), _demol)),
    "tmpbld": (
        lambda s: _new_and(s, s.kind == _FARM),
        _pms_simple(_one_if(lambda lot, p: _new(p) and lot.kind == _FARM), _tmpbld),
    ),
    "wclf": (lambda s: _new_and(s, s.wclf), _pms_simple(_one_if(lambda lot, p: _new(p) and lot.wclf), _pms_wclf)),
    "pklot": (
        lambda s: _pms_count(s, np.ones(len(s), dtype=np.int64)),
        _pms_simple(_one_if(lambda lot, p: _new(p)), _pms_pklot),
    ),
    "atch_pklot": (
        lambda s: ((s.recent == 4) & (s.kind == _SHOP)).astype(np.int64),
        _pms_simple(_one_if(lambda lot, p: p[0] == "5" and lot.kind == _SHOP), _atch_pklot),
    ),
    "expos_pubuse": (lambda s: _pms_count(s, 2 * _is(s, _VILLA, _OFFI, _APT)), _pms_type_area),
    "ho_expos_pubuse": (lambda s: _pms_count(s, 2 * s.units), _pms_ho_area),
    "jijigu": (lambda s: _has_permit(s) * s.zones, _pms_simple(lambda lot, p: len(lot.zones), _pms_jijigu)),
    "road": (
        lambda s: _new_and(s, s.bylot > 0),
        _pms_simple(_one_if(lambda lot, p: _new(p) and bool(lot.bylots)), _road),
    ),
    "plat_plc": (lambda s: _has_permit(s) * (1 + s.bylot), _pms_simple(lambda lot, p: 1 + len(lot.bylots), _plat_plc)),
    "hs_tp": (
        lambda s: _new_and(s, _is(s, _HOUSE, _VILLA, _APT)),
        _pms_simple(_one_if(lambda lot, p: _new(p) and _RESIDENTIAL[lot.kind]), _hs_tp),
    ),
}


# 주택인허가 (HsPmsHubService): the 사업계획승인 of an apartment complex (one per apartment lot built since 1990)
def _hs_pk(lot: Lot) -> str:
    return f"{lot.place.sigungu_cd}-{int(lot.place.bjdong_cd) * 100000 + lot.index}7"


def _hs_base(lot: Lot, rnum: int) -> dict[str, Any]:
    return {**_address(lot, rnum), "mgmHsrgstPk": _hs_pk(lot), "mgmCoophsrgstPk": _hs_pk(lot)}


def _hs(make: Callable[[Lot, int], dict[str, Any]]) -> Callable[[Lot, int, int], dict[str, Any]]:
    return lambda lot, k, rnum: {**_hs_base(lot, rnum), **make(lot, k)}


def _hs_units(lot: Lot) -> int:
    return sum(_units_of(b) for b in lot.buildings)


def _hs_basis(lot: Lot, k: int) -> dict[str, Any]:
    b = lot.buildings[0]
    return {
        "purpsCd": "02000",
        "purpsCdNm": _PURPOSE["02000"],
        "strctCd": b.strct,
        "strctCdNm": _STRUCT[b.strct],
        "mainBldCnt": str(len(lot.buildings)),
        "totArea": _num(sum(_areas(x)[0] for x in lot.buildings)),
        "totHhldCnt": str(_hs_units(lot)),
        "demolExtngGbCd": "",
        "demolExtngGbCdNm": "",
        "demolStrtDay": "",
        "demolEndDay": "",
        "demolExtngDay": "",
        "apprvDay": _ymd(lot.pms),
        "stcnsSchedDay": _ymd(lot.stcns - dt.timedelta(days=20)),
        "stcnsDay": _ymd(lot.stcns),
        "useInsptSchedDay": _ymd(lot.use_apr - dt.timedelta(days=30)),
        "useInsptDay": _ymd(lot.use_apr),
    }


def _hs_dong(lot: Lot, k: int) -> dict[str, Any]:
    b = lot.buildings[k]
    t = _title_values(lot, b)
    units = _units_of(b)
    return {
        **{n: t[n] for n in ("mainAtchGbCd", "mainAtchGbCdNm", "mainPurpsCd", "mainPurpsCdNm", "strctCd", "strctCdNm")},
        **{n: t[n] for n in ("roofCd", "roofCdNm", "archArea", "totArea", "vlRatEstmTotArea", "ugrndFlrCnt")},
        **{n: t[n] for n in ("grndFlrCnt", "heit", "rideUseElvtCnt", "emgenUseElvtCnt", "dongNm")},
        "mgmDongOulnPk": f"{_hs_pk(lot)}{k:03d}",
        "ugrndArea": _num(b.flr_area * 0.9 * b.ugrnd),
        "hhldCntCvlLotou": str(units),
        **{
            f: "0"
            for f in (
                "hhldCntPeplRent",
                "hhldCntPubRent_5",
                "hhldCntPubRent_10",
                "hhldCntPubRentEtc",
                "hhldCntPubRentTot",
                "hhldCntPubLotou",
                "hhldCntEmplRent",
                "hhldCntLaborWlfar",
                "hhldCntCvlRent",
            )
        },
        "flrhFrom": "2.8",
        "ceilHeit": "2.3",
        "stairValidWidth": "1.2",
        "hwayWidth": "1.4",
        "ouwlThick": "0.2",
        "adjHhldWallThick": "0.21",
    }


def _hs_floor(lot: Lot, k: int) -> dict[str, Any]:
    row = _floor(lot, k, 0)
    return {
        **{n: row[n] for n in ("dongNm", "flrNo", "flrGbCd", "flrGbCdNm")},
        "mgmFlrOulnPk": f"{_hs_pk(lot)}{k:04d}",
        "mgmDongOulnPk": f"{_hs_pk(lot)}000",
        "flrArea": row["area"],
        "purpsCd": row["mainPurpsCd"],
        "purpsCdNm": row["mainPurpsCdNm"],
    }


def _hs_ho(lot: Lot, k: int) -> dict[str, Any]:
    b, floor, number = _unit_at(lot, k)
    area = _unit_area(lot, b)
    return {
        "mgmHoDetlPk": f"{_hs_pk(lot)}{floor:03d}{number:02d}",
        "mgmDongOulnPk": f"{_hs_pk(lot)}{lot.buildings.index(b):03d}",
        "dongNm": b.dong_nm,
        "flrNo": str(floor),
        "flrGbCd": "20",
        "flrGbCdNm": "지상",
        "hoNo": str(number),
        "hoNm": _ho_name(lot, floor, number),
        "pngtypGbNm": f"{round(area / 3.3058)}평형",
        "changGbCd": "1",
        "changGbCdNm": "신규",
    }


_SBSD = (("01", "관리사무소"), ("02", "경로당"), ("03", "어린이놀이터"), ("04", "주민운동시설"))


def _hs_sbsd(lot: Lot, k: int) -> dict[str, Any]:
    code, name = _SBSD[k]
    return {
        "sbsdfcKindCd": code,
        "sbsdfcKindCdNm": name,
        "etcFcKind": "",
        "instalCurst": str(1 + len(lot.buildings) // 6),
        "cmplxinCurst": str(1 + len(lot.buildings) // 6),
        "cmplxbyndCurst": "0",
        **{f: "" for f in ("changbefInstalCurst", "changbefCmplxinCurst", "changbefCmplxbyndCurst")},
        **{f: "" for f in ("befSbsdKindCd", "befSbsdKindCdNm", "befEtcFcKind")},
    }


def _hs_type_area(lot: Lot, k: int) -> dict[str, Any]:
    b = lot.buildings[0]
    private = k % 2 == 0
    return {
        "mgmExposPubusePk": f"{_hs_pk(lot)}{k:02d}",
        "mgmTypeOulnPk": f"{_hs_pk(lot)}{k // 2:02d}",
        **{n: v for n, v in _purpose(b).items() if n not in ("mainPurpsCd", "mainPurpsCdNm")},
        "purpsCd": b.purpose,
        "purpsCdNm": _PURPOSE[b.purpose],
        "exposPubuseGbCd": "1" if private else "2",
        "exposPubuseGbCdNm": "전유" if private else "공용",
        "flrGbCd": "20",
        "flrGbCdNm": "지상",
        "flrNo": "2",
        "flrNoNm": "2층",
        "etcPurps": "아파트" if private else "계단실,복도",
        "area": _num(_unit_area(lot, b) * (1.0 if private else 0.32) * (1 + 0.35 * (k // 2)), 4),
    }


def _hs_ho_area(lot: Lot, k: int) -> dict[str, Any]:
    b, floor, number = _unit_at(lot, k // 2)
    private = k % 2 == 0
    ho = f"{_hs_pk(lot)}{floor:03d}{number:02d}"
    return {
        **_purpose(b),
        "mgmHoDetlPk": ho,
        "mgmActHoExposPubusePk": f"{ho}{k % 2}",
        "pngtypGbNm": f"{round(_unit_area(lot, b) / 3.3058)}평형",
        "flrGbCd": "20",
        "flrGbCdNm": "지상",
        "flrNo": str(floor),
        "exposPubuseGbCd": "1" if private else "2",
        "exposPubuseGbCdNm": "전유" if private else "공용",
        "etcPurps": b.etc_purps if private else "계단실,복도",
        "area": _num(_unit_area(lot, b) * (1.0 if private else 0.32), 4),
    }


def _hs_act(lot: Lot, k: int) -> dict[str, Any]:
    b = lot.buildings[0]
    tot = sum(_areas(x)[0] for x in lot.buildings)
    return {
        "actGb": "1",
        "actGbCd": "1",
        "actGbCdNm": "신축",
        "cmplxNm": lot.name,
        "bldYn": "1",
        "fcKind": "",
        "archArea": _num(sum(x.flr_area for x in lot.buildings)),
        "totArea": _num(tot),
        "btmArea": _num(b.flr_area),
        "mainPurpsCd": "02000",
        "mainPurpsCdNm": _PURPOSE["02000"],
        "etcPurps": "아파트",
        "constArea": _num(lot.plat_area),
        "ugrndFlrCnt": str(b.ugrnd),
        "grndFlrCnt": str(b.grnd),
        "totWkp": str(int(tot * 2_100_000 // 1_000_000 * 1_000_000)),
        "stcnsSchedDay": _ymd(lot.stcns),
        "useInsptSchedDay": _ymd(lot.use_apr),
        "hhldCnt": str(_hs_units(lot)),
        "cmplxFlrCntDongCnt": f"{b.grnd}층 {len(lot.buildings)}동",
        "regstrGbCd": "2",
        "regstrGbCdNm": "집합",
        **{f: "" for f in ("actBefPurpsCd", "actBefPurpsCdNm", "actBefArea", "actBefEtcPurps", "fcNm")},
        "actAftPurpsCd": "02000",
        "actAftPurpsCdNm": _PURPOSE["02000"],
        "actAftArea": _num(tot),
        "actAftEtcPurps": "아파트",
    }


def _hs_coop_tp(lot: Lot, k: int) -> dict[str, Any]:
    b = lot.buildings[0]
    area = _unit_area(lot, b) * (1 + 0.35 * k)
    return {
        "mgmSigunguCd": lot.place.sigungu_cd,
        "typeGb": f"{round(area)}{'A' if k == 0 else 'B'}",
        "etcType": "",
        "exuseArea": _num(area, 4),
        "cmplxNm": lot.name,
        "bizBodyNm": _APT_BUILDERS[(lot.bun + lot.index) % len(_APT_BUILDERS)],
        "bizApprvDay": _ymd(lot.pms),
        "useInsptDay": _ymd(lot.use_apr),
        "mainBldCnt": str(len(lot.buildings)),
        "maxFlrCnt": str(b.grnd),
        "hhldCnt": str(_hs_units(lot) // 2 + (_hs_units(lot) % 2 if k == 0 else 0)),
        "strctCd": b.strct,
        "strctCdNm": _STRUCT[b.strct],
        "elvtRideUse": str(max(1, _hs_units(lot) // 60)),
        "elvtEmgen": str(len(lot.buildings)),
        "platArea": _num(lot.plat_area),
        "totArea": _num(sum(_areas(x)[0] for x in lot.buildings)),
        "archArea": _num(sum(x.flr_area for x in lot.buildings)),
        "hwayModeCd": "1",
        "hwayModeCdNm": "계단식",
        "wtspCd": "1",
        "wtspCdNm": "상수도",
        "mgmMthdCd": "2",
        "mgmMthdCdNm": "위탁관리",
        "sfgvMgmStrtDay": "",
        "heatMthdCd": "1",
        "heatMthdCdNm": "개별난방",
        "useFuel": "도시가스",
        "hsStyleGbCd": "1",
        "hsStyleGbCdNm": "아파트",
        "hsTypeGbCd": "1",
        "hsTypeGbCdNm": "분양",
    }


def _hs_coop_sbsd(lot: Lot, k: int) -> dict[str, Any]:
    units, dongs = _hs_units(lot), len(lot.buildings)
    return {
        "grndPklotUtcnt": str(lot.pklot[1]),
        "ugrndPklotUtcnt": str(lot.pklot[0]),
        "totPklotUtcnt": str(lot.pklot[0] + lot.pklot[1]),
        "pkngCctvCnt": str(4 * dongs),
        "reprMtrmArea": _num(40 + units * 0.05),
        "mgmOffcArea": _num(60 + units * 0.08),
        "plgndCctvCnt": str(2),
        "wttnkCapa": _num(units * 0.9),
        "lndscArea": _num(lot.plat_area * 0.3),
        "guardrmCnt": str(1 + dongs // 4),
        "hsoldArea": _num(80 + units * 0.1),
        "lifeConvFcArea": _num(units * 0.2),
        "nturFcArea": _num(units * 0.15 if units >= 300 else 0),
        "jmExcsFcCnt": str(1 if units >= 150 else 0),
        "kgtFlrCnt": "0",
        "kgtLotArea": "0",
        "kgtPurps": "",
        "mediFcArea": "0",
        "plgndCnt": str(1 + units // 500),
    }


def _hs_wlfar(lot: Lot, k: int) -> dict[str, Any]:
    return {
        "wlfarLotouFcKindCd": "01",
        "wlfarLotouFcKindCdNm": "근린생활시설",
        "etcFc": "",
        "purpsCd": "03000",
        "purpsCdNm": _PURPOSE["03000"],
        "etcPurps": "소매점",
        "area": _num(lot.plat_area * 0.04),
        "openCnt": str(1 + len(lot.buildings) // 5),
        **{f: "" for f in ("changbefPurpsCd", "changbefPurpsCdNm", "changbefEtcPurps", "changbefArea", "changbefCnt")},
        **{f: "" for f in ("changbefEtcCurst", "befWlfarFcKindCd", "befWlfarFcKindCdNm", "befEtcFc")},
    }


def _hs_lot(fn: Callable[[Lot, Any, int], dict[str, Any]]) -> Callable[[Lot, int], dict[str, Any]]:
    """An ArchPms lot-wide row (지역지구구역, 대지위치, 주차장 …) as the 주택인허가 sends it."""
    return lambda lot, k: fn(lot, ("1", "신축", lot.pms, True), k)


def _hs_mask(s: _Summary) -> np.ndarray:
    return ((s.kind == _APT) & (s.year >= 1990)).astype(np.int64)


HOUSING_PERMITS: dict[str, tuple[Callable[[_Summary], np.ndarray], Callable[[Lot, int, int], dict[str, Any]]]] = {
    "basis": (_hs_mask, _hs(_hs_basis)),
    "dong": (lambda s: _hs_mask(s) * s.n_main, _hs(_hs_dong)),
    "floor": (lambda s: _hs_mask(s) * s.n_main * (s.grnd + s.ugrnd), _hs(_hs_floor)),
    "ho": (lambda s: _hs_mask(s) * s.units, _hs(_hs_ho)),
    "sbsd": (lambda s: _hs_mask(s) * len(_SBSD), _hs(_hs_sbsd)),
    "wclf": (lambda s: _hs_mask(s) * s.wclf, _hs(_hs_lot(_pms_wclf))),
    "pklot": (_hs_mask, _hs(_hs_lot(_pms_pklot))),
    "atch_pklot": (lambda s: _hs_mask(s) * (s.bylot > 0), _hs(_hs_lot(_atch_pklot))),
    "expos_pubuse": (lambda s: _hs_mask(s) * 4, _hs(_hs_type_area)),
    "ho_expos_pubuse": (lambda s: _hs_mask(s) * 2 * s.units, _hs(_hs_ho_area)),
    "act": (_hs_mask, _hs(_hs_act)),
    "coop_tp": (lambda s: _hs_mask(s) * 2, _hs(_hs_coop_tp)),
    "coop_sbsd_wlfar": (_hs_mask, _hs(_hs_coop_sbsd)),
    "jijigu": (lambda s: _hs_mask(s) * s.zones, _hs(_hs_lot(_pms_jijigu))),
    "wlfar_lotou": (_hs_mask, _hs(_hs_wlfar)),
    "plat_plc": (lambda s: _hs_mask(s) * (1 + s.bylot), _hs(_hs_lot(_plat_plc))),
}


# ---------------------------------------------------------------------------
# 공동주택 기본·상세 정보 (AptBasisInfoServiceV4): a traded complex, from its lot of the register
# ---------------------------------------------------------------------------


def kapt_basis(sgg: "Sigungu", index: int, apt: "Complex", lot: Lot) -> dict[str, Any]:
    """getAphusBassInfoV4: the complex's name, addresses, households by size band, floors and makers."""
    units = [_unit_area(lot, b) for b in lot.buildings for _ in range(_units_of(b))]
    bands = [sum(1 for a in units if low < a <= high) for low, high in ((0, 60), (60, 85), (85, 135), (135, 10**6))]
    total = sum(_areas(b)[0] for b in lot.buildings)
    tel = f"02-{3400 + index % 500:04d}-{stable_int('kapt.tel', sgg.code, index) % 10000:04d}"
    road = _address(lot, 1)["newPlatPlc"]
    return {
        "kaptCode": kapt_code(sgg.code, index),
        "kaptName": apt.name,
        "kaptAddr": f"{lot.place.name} {lot.bun}" + (f"-{lot.ji}" if lot.ji else "") + f" {apt.name}",
        "codeSaleNm": _pick_det(lot, ("분양", "분양", "임대", "혼합")),
        "codeHeatNm": _pick_det(lot, _HEAT),
        "kaptTarea": _num(total * 1.05, 4),
        "kaptDongCnt": str(len(lot.buildings)),
        "kaptdaCnt": str(len(units)),
        "kaptBcompany": _APT_BUILDERS[(lot.bun + index) % len(_APT_BUILDERS)],
        "kaptAcompany": _APT_BUILDERS[(lot.bun + index + 3) % len(_APT_BUILDERS)],
        "kaptTel": tel,
        "kaptFax": tel[:-1] + str((int(tel[-1]) + 1) % 10),
        "kaptUrl": "",
        "codeAptNm": "아파트",
        "doroJuso": road,
        "codeMgrNm": _pick_det(lot, _MGR),
        "codeHallNm": _pick_det(lot, _HALL),
        "kaptUsedate": _ymd(lot.use_apr),
        "hoCnt": str(len(units)),
        "kaptMarea": _num(total * 0.78, 4),
        "kaptMparea60": str(bands[0]),
        "kaptMparea85": str(bands[1]),
        "kaptMparea135": str(bands[2]),
        "kaptMparea136": str(bands[3]),
        "privArea": _num(sum(units), 4),
        "bjdCode": lot.place.code,
        "kaptTopFloor": str(max(b.grnd for b in lot.buildings)),
        "ktownFlrNo": str(max(b.grnd for b in lot.buildings)),
        "kaptBaseFloor": str(max(b.ugrnd for b in lot.buildings)),
        "kaptdEcntp": str(sum(int(_title_values(lot, b)["rideUseElvtCnt"]) for b in lot.buildings)),
        "zipcode": f"{stable_int('kapt.zip', sgg.code, apt.dong.code) % 90000 + 1000:05d}",
    }


def kapt_detail(sgg: "Sigungu", index: int, apt: "Complex", lot: Lot) -> dict[str, Any]:
    """getAphusDtlInfoV4: the complex's management, security, cleaning, parking and the places around it."""
    units = sum(_units_of(b) for b in lot.buildings)
    dongs = len(lot.buildings)
    return {
        "kaptCode": kapt_code(sgg.code, index),
        "kaptName": apt.name,
        "codeMgr": _pick_det(lot, _MGR),
        "kaptMgrCnt": str(2 + units // 300),
        "kaptCcompany": f"{_pick_det(lot, ('우리', '한솔', '대한', '새한'))}관리(주)",
        "codeSec": "위탁관리",
        "kaptdScnt": str(2 + dongs // 3),
        "kaptdSecCom": f"{_pick_det(lot, ('으뜸', '정도', '한빛'))}시큐리티",
        "codeClean": "위탁관리",
        "kaptdClcnt": str(2 + dongs // 3),
        "codeGarbage": "음식물쓰레기 종량제",
        "codeDisinf": "위탁관리",
        "kaptdDcnt": "6",
        "disposalType": "도포식, 분무식",
        "codeStr": "철근콘크리트구조",
        "kaptdEcapa": str(units * 3),
        "codeEcon": "종합계약",
        "codeEmgr": "상주선임",
        "codeFalarm": "R형",
        "codeWsupply": "부스타방식",
        "codeElev": "위탁관리",
        "kaptdEcnt": str(sum(int(_title_values(lot, b)["rideUseElvtCnt"]) for b in lot.buildings)),
        "kaptdPcnt": str(lot.pklot[1]),
        "kaptdPcntu": str(lot.pklot[0]),
        "codeNet": "유",
        "kaptdCccnt": str(12 * dongs),
        "welfareFacility": "관리사무소, 노인정, 주민공동시설, 어린이놀이터",
        "kaptdWtimebus": _pick_det(lot, ("5분이내", "5~10분이내")),
        "subwayLine": "",
        "subwayStation": "",
        "kaptdWtimesub": _pick_det(lot, ("5~10분이내", "10~15분이내", "15~20분이내")),
        "convenientFacility": "관공서, 병원, 대형상가, 공원",
        "educationFacility": "초등학교, 중학교",
        "groundElChargerCnt": str(dongs // 4),
        "undergroundElChargerCnt": str(dongs * 2),
        "useYn": "Y",
    }
