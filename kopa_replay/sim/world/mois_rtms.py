"""국토교통부 실거래가 (RTMS) beyond apartments: one trade generator, a column set per family.

The apartment sales and rents live in :mod:`~kopa_replay.sim.world.datasets` (their complexes are shared with
Seoul's rent dataset). Every other RTMS service of the ``/1613000`` family is drawn here, per (family, 시군구,
contract month), as the services send it (measured responses of 2024–2026, see ``sim/tables/mois.yaml``):

* every value is a string; an empty one is a single space;
* amounts (``dealAmount``, ``deposit``, ``monthlyRent``) are in 만원 with thousands commas, ``monthlyRent`` "0"
  for a 전세;
* dates are ``YY.MM.DD`` (registration, cancellation), the contract term ``YY.MM~YY.MM``;
* lot numbers of single-owner properties (단독·다가구, land, 일반 buildings) are masked after their first digit
  (``"6**"``), a 집합 building's are not, and a 집합 building has no land area (``plottageAr`` " ");
* the fields of an item come in case-sensitive alphabetical order (``dealYear`` before ``dealingGbn``).

Buyers and landlords have 30 days to report, so a month is complete a month after it ends and the current month
is almost empty; a call draws one month of one 시군구 (tens to a few thousand contracts), whatever the world's size.
"""

from __future__ import annotations

import calendar as _calendar
import datetime as dt
from collections import OrderedDict
from collections.abc import Callable
from contextlib import suppress
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from kopa_replay.sim.world import evict_oldest
from kopa_replay.sim.world.fmt import comma, data, frozen

if TYPE_CHECKING:
    import numpy as np

    from kopa_replay.sim.world import World
    from kopa_replay.sim.world.regions import Dong, Sigungu

__all__ = ["FAMILIES", "Family", "RtmsWorld"]

_DATA = data("mois")  # the names of the trades (their sources beside them there)

_METRO = ("11", "26", "27", "28", "29", "30", "31")


@dataclass(frozen=True)
class Family:
    """One RTMS service: its id, what it trades, and how many contracts a 시군구 reports in a month.

    ``volume`` is the (low, high) base count for Seoul, Gyeonggi and the rest; ``price`` the 만원 per ㎡ factor
    against the 시군구's apartment price level.
    """

    key: str
    service: str
    rent: bool
    volume: tuple[tuple[int, int], tuple[int, int], tuple[int, int]]
    price: float


FAMILIES = {
    f.key: f
    for f in (
        Family("offi_trade", "RTMSDataSvcOffiTrade", False, ((15, 160), (5, 110), (0, 30)), 0.62),
        Family("offi_rent", "RTMSDataSvcOffiRent", True, ((80, 700), (30, 400), (2, 90)), 0.62),
        Family("rh_trade", "RTMSDataSvcRHTrade", False, ((30, 260), (10, 160), (1, 40)), 0.55),
        Family("rh_rent", "RTMSDataSvcRHRent", True, ((150, 1300), (40, 600), (3, 120)), 0.55),
        Family("sh_trade", "RTMSDataSvcSHTrade", False, ((4, 40), (5, 60), (3, 50)), 0.5),
        Family("sh_rent", "RTMSDataSvcSHRent", True, ((60, 450), (30, 300), (5, 150)), 0.5),
        Family("nrg_trade", "RTMSDataSvcNrgTrade", False, ((15, 90), (10, 90), (4, 60)), 1.1),
        Family("land_trade", "RTMSDataSvcLandTrade", False, ((4, 70), (60, 700), (50, 600)), 0.35),
        Family("silv_trade", "RTMSDataSvcSilvTrade", False, ((0, 40), (3, 80), (0, 50)), 0.95),
        Family("indu_trade", "RTMSDataSvcInduTrade", False, ((0, 6), (4, 30), (0, 14)), 0.4),
    )
}

_OFFI_SUFFIX = ("오피스텔", "시티", "타워", "스테이트", "레지던스", "하우스", "센트럴", "스퀘어")
_RH_SUFFIX = ("빌라", "하이츠", "맨션", "빌리지", "캐슬", "하우스", "팰리스", "그린빌")
_PRESALE = frozen(_DATA["_PRESALE"])
_LAND_USE = frozen(_DATA["_LAND_USE"])
_RURAL_LAND_USE = ("계획관리", "계획관리", "생산관리", "보전관리", "농림", "자연녹지", "제1종일반주거")
_JIMOK = ("대", "대", "전", "답", "임야", "도로", "잡종지", "과수원", "공장용지", "창고용지")
_NRG_USE = ("제1종근린생활", "제2종근린생활", "제2종근린생활", "업무", "판매", "숙박", "의료", "교육연구", "위락")


def _pick(rng: "np.random.Generator", items: tuple | list) -> Any:
    return items[int(rng.integers(0, len(items)))]


def _stem(name: str) -> str:
    return name[:-1] if len(name) > 2 else name


def _masked(number: int) -> str:
    """A single owner's lot number: its first digit, the rest starred (``"6**"``)."""
    text = str(number)
    return text[0] + "*" * (len(text) - 1)


def _lot(rng: "np.random.Generator") -> str:
    main = int(rng.integers(1, 1500))
    return f"{main}-{int(rng.integers(1, 60))}" if rng.random() < 0.45 else str(main)


def _rounded(amount: float) -> int:
    """A reported price in 만원: whole hundreds from 10,000 up, tens below (``13,500``, ``2,040``)."""
    step = 100 if amount >= 10_000 else 10
    return max(step, int(round(amount / step)) * step)


def _term(start: dt.date) -> str:
    """A contract term as the rent services write it (``26.08~28.08``)."""
    return f"{start:%y.%m}~{(start.year + 2) % 100:02d}.{start.month:02d}"


@dataclass(frozen=True)
class _Building:
    """A named building that trades again and again (an officetel, a 연립·다세대, a complex sold off plan)."""

    name: str
    dong: "Dong"
    jibun: str
    build_year: int
    floors: int
    areas: tuple[float, ...]
    price_m2: float
    kind: str  # 연립/다세대 for RH, else ""


class RtmsWorld:
    """Contracts of the RTMS families other than apartments, drawn per (family, 시군구, month)."""

    _CACHE = 48

    def __init__(self, world: "World") -> None:
        self._world = world
        self._buildings: dict[tuple[str, str], list[_Building]] = {}
        self._months: OrderedDict[tuple[str, str, str], list[dict[str, Any]]] = OrderedDict()

    # -- the stock a 시군구 trades ---------------------------------------------------------------
    def _price_level(self, sgg: "Sigungu") -> float:
        """만원 per ㎡ of housing in a 시군구 in January 2024 (the families scale it by their own factor)."""
        low, high = (850, 1500) if sgg.sido.code == "11" else (380, 1100) if sgg.sido.code == "41" else (220, 600)
        return float(self._world.rng("rtms.price", sgg.code).uniform(low, high))

    def _sigungu(self, lawd_cd: str) -> "Sigungu | None":
        unit = self._world.regions.by_code.get(lawd_cd + "00000")
        return unit if unit is not None and getattr(unit, "code", "") == lawd_cd else None

    def _buildings_of(self, family: str, sgg: "Sigungu") -> list[_Building]:
        kind = family.split("_")[0]
        key = (kind, sgg.code)
        if key in self._buildings:
            return self._buildings[key]
        rng = self._world.rng("rtms.buildings", kind, sgg.code)
        dongs = self._world.datasets.dongs_in(sgg.code)
        level = self._price_level(sgg)
        urban = sgg.sido.code in _METRO or sgg.name.endswith("구")
        count = {"offi": (12, 60) if urban else (2, 14), "rh": (40, 160) if urban else (6, 40), "silv": (1, 6)}[kind]
        out: list[_Building] = []
        names: set[str] = set()
        for n in range(int(rng.integers(*count))):
            dong = _pick(rng, dongs)
            if kind == "offi":
                name = f"{_stem(dong.name)}{_pick(rng, _OFFI_SUFFIX)}"
                areas = tuple(sorted({round(float(rng.uniform(16, 85)), 3) for _ in range(int(rng.integers(1, 4)))}))
                build, floors, house = int(rng.integers(1995, 2025)), int(rng.integers(8, 30)), ""
            elif kind == "rh":
                name = f"{_stem(dong.name)}{_pick(rng, _RH_SUFFIX)}"
                areas = tuple(sorted({round(float(rng.uniform(24, 85)), 2) for _ in range(int(rng.integers(1, 3)))}))
                house = "연립" if rng.random() < 0.25 else "다세대"
                build, floors = int(rng.integers(1985, 2025)), int(rng.integers(3, 6))
            else:
                name = f"{_stem(dong.name)} {_pick(rng, _PRESALE)}"
                areas = tuple(sorted({59.9, 84.9} | {round(float(rng.uniform(59, 135)), 4)}))
                build, floors, house = int(rng.integers(2026, 2030)), int(rng.integers(15, 40)), ""
            if name in names:
                name += f"{n % 9 + 2}차"
            names.add(name)
            price = level * FAMILIES[f"{kind}_trade"].price * float(rng.lognormal(0, 0.18))
            out.append(_Building(name, dong, _lot(rng), build, floors, areas, price, house))
        self._buildings[key] = out
        return out

    # -- one month ------------------------------------------------------------------------------
    def contracts(self, family: str, lawd_cd: str, deal_ym: str, as_of: dt.date) -> list[dict[str, Any]]:
        """The contracts of ``family`` in a 시군구 (LAWD_CD) and month reported before ``as_of``, in contract-day
        order; [] for a 시군구 the world does not know or a month not begun."""
        sgg = self._sigungu(lawd_cd)
        year, month = int(deal_ym[:4]), int(deal_ym[4:6])
        if sgg is None or dt.date(year, month, 1) >= as_of or not self._world.datasets.dongs_in(sgg.code):
            return []
        drawn = self._draw(family, sgg, deal_ym)
        return [{k: v for k, v in row.items() if k != "_reported"} for row in drawn if row["_reported"] < as_of]

    def _draw(self, family: str, sgg: "Sigungu", deal_ym: str) -> list[dict[str, Any]]:
        key = (family, sgg.code, deal_ym)
        cached = self._months.get(key)
        if cached is not None:
            with suppress(KeyError):  # another thread (the server's, or a simulator sharing this world) dropped it
                self._months.move_to_end(key)
            return cached
        spec = FAMILIES[family]
        band = 0 if sgg.sido.code == "11" else 1 if sgg.sido.code == "41" else 2
        base = float(self._world.rng("rtms.volume", family, sgg.code).uniform(*spec.volume[band]))
        rng = self._world.rng("rtms.month", family, sgg.code, deal_ym)
        year, month = int(deal_ym[:4]), int(deal_ym[4:6])
        count = round(base * float(rng.lognormal(0, 0.3)) * (0.85 if month in (1, 2, 8) else 1.0))
        trend = 1.0 + 0.003 * ((year - 2024) * 12 + month - 1)
        make = _MAKERS[family.split("_")[0]]
        days = _calendar.monthrange(year, month)[1]
        rows = []
        for _ in range(count):
            day = int(rng.integers(1, days + 1))
            dealt = dt.date(year, month, day)
            # every contract draws all its values whatever the as-of date, so that a later snapshot holds the
            # same contracts plus the ones reported since
            reported = dealt + dt.timedelta(days=int(rng.integers(0, 30)))
            record = make(self, rng, spec, sgg, dealt, trend)
            record.update(dealYear=str(year), dealMonth=str(month), dealDay=str(day), sggCd=sgg.code)
            record["_reported"] = reported
            rows.append(record)
        rows.sort(key=lambda r: (int(r["dealDay"]), r["umdNm"]))
        ordered = [{k: r[k] for k in sorted(r)} for r in rows]  # case-sensitive, as the services send them
        self._months[key] = ordered
        evict_oldest(self._months, self._CACHE)
        return ordered

    # -- what every sale and every rent carries -----------------------------------------------------
    @staticmethod
    def _sale(rng: "np.random.Generator", sgg: "Sigungu", dealt: dt.date, amount: float) -> dict[str, Any]:
        brokered = rng.random() < 0.8
        cancelled = rng.random() < 0.03
        region = f"{sgg.sido.short} {sgg.name}"
        return {
            "dealAmount": comma(_rounded(amount)),
            "cdealType": "O" if cancelled else " ",
            "cdealDay": (dealt + dt.timedelta(days=int(rng.integers(5, 40)))).strftime("%y.%m.%d")
            if cancelled
            else " ",
            "dealingGbn": "중개거래" if brokered else "직거래",
            "estateAgentSggNm": region if brokered else " ",
            "slerGbn": _pick(rng, ("개인",) * 9 + ("법인", "공공기관")),
            "buyerGbn": _pick(rng, ("개인",) * 10 + ("법인", "기타")),
        }

    @staticmethod
    def _lease(rng: "np.random.Generator", dealt: dt.date, full: float) -> dict[str, Any]:
        """Deposit and rent of one contract; ``full`` is what a 전세 deposit would be (만원)."""
        monthly = 0 if rng.random() < 0.4 else max(10, int(round(full * float(rng.uniform(0.2, 0.8)) * 0.05 / 12)))
        deposit = full - monthly * 12 / 0.05 if monthly else full
        deposit = max(100, int(round(deposit / 100.0)) * 100)
        reported_term = rng.random() < 0.7
        renewed = reported_term and rng.random() < 0.25
        start = dealt + dt.timedelta(days=int(rng.integers(0, 60)))
        return {
            "deposit": comma(deposit),
            "monthlyRent": comma(monthly),
            "contractTerm": _term(start) if reported_term else " ",
            "contractType": ("갱신" if renewed else "신규") if reported_term else " ",
            "useRRRight": "사용" if renewed and rng.random() < 0.6 else " ",
            "preDeposit": comma(int(round(deposit * 0.93 / 100.0)) * 100) if renewed else " ",
            "preMonthlyRent": comma(monthly) if renewed else " ",
        }

    def _dong(self, rng: "np.random.Generator", sgg: "Sigungu") -> "Dong":
        return _pick(rng, self._world.datasets.dongs_in(sgg.code))

    # -- the families ---------------------------------------------------------------------------------
    def _unit(self, rng, spec: Family, sgg, dealt: dt.date, trend: float) -> dict[str, Any]:
        """An officetel, a 연립·다세대 or a presale right: a unit of a named building."""
        kind = spec.key.split("_")[0]
        home = _pick(rng, self._buildings_of(spec.key, sgg))
        area = _pick(rng, home.areas)
        floor = int(rng.integers(1, home.floors + 1))
        value = home.price_m2 * area * trend * float(rng.lognormal(0, 0.08))
        name_field = {"offi": "offiNm", "rh": "mhouseNm", "silv": "aptNm"}[kind]
        record: dict[str, Any] = {
            name_field: home.name,
            "umdNm": home.dong.name,
            "jibun": home.jibun,
            "excluUseAr": f"{area:g}",
            "floor": str(floor),
        }
        if kind != "silv":
            record["buildYear"] = str(home.build_year)
        if kind == "rh":
            record["houseType"] = home.kind
        if kind in ("offi", "silv"):
            record["sggNm"] = sgg.name
        if spec.rent:
            record.update(self._lease(rng, dealt, value * (0.7 if kind == "rh" else 0.8)))
            return record
        record.update(self._sale(rng, sgg, dealt, value))
        if kind == "rh":
            record["landAr"] = f"{round(area * float(rng.uniform(0.3, 0.75)), 3):g}"
        if kind in ("rh",):
            registered = dealt + dt.timedelta(days=int(rng.integers(25, 90)))
            record["rgstDate"] = registered.strftime("%y.%m.%d") if rng.random() < 0.6 else " "
        if kind == "silv":
            record["ownershipGbn"] = _pick(rng, ("분", "분", "입", " "))
        return record

    def _house(self, rng, spec: Family, sgg, dealt: dt.date, trend: float) -> dict[str, Any]:
        """A 단독·다가구 house: masked lot, 연면적 and 대지면적."""
        dong = self._dong(rng, sgg)
        multi = rng.random() < 0.45
        floor_area = float(rng.uniform(120, 420) if multi else rng.uniform(40, 220))
        level = self._price_level(sgg)
        value = level * spec.price * floor_area * trend * float(rng.lognormal(0, 0.2))
        record: dict[str, Any] = {
            "umdNm": dong.name,
            "houseType": "다가구" if multi else "단독",
            "totalFloorAr": f"{round(floor_area, 2):g}",
            "buildYear": str(int(rng.integers(1970, 2024))),
        }
        if spec.rent:
            record.update(self._lease(rng, dealt, value * 0.12))
            return record
        record.update(self._sale(rng, sgg, dealt, value))
        record["jibun"] = _masked(int(rng.integers(10, 1500)))
        record["plottageAr"] = f"{round(floor_area * float(rng.uniform(0.45, 1.1)), 1):g}"
        return record

    def _building(self, rng, spec: Family, sgg, dealt: dt.date, trend: float) -> dict[str, Any]:
        """A commercial or industrial building (상업업무용, 공장·창고): 일반 (whole) or 집합 (a unit)."""
        dong = self._dong(rng, sgg)
        whole = rng.random() < 0.45
        industrial = spec.key == "indu_trade"
        area = float(rng.uniform(150, 2500) if whole else rng.uniform(20, 300))
        level = self._price_level(sgg)
        value = level * spec.price * area * trend * float(rng.lognormal(0, 0.3))
        lot = int(rng.integers(10, 1500))
        record = {
            "umdNm": dong.name,
            "jibun": _masked(lot) if whole else str(lot),
            "buildingType": "일반" if whole else "집합",
            "buildingUse": _pick(rng, ("공장", "공장", "창고")) if industrial else _pick(rng, _NRG_USE),
            "buildingAr": f"{round(area, 2):g}",
            "plottageAr": f"{round(area * float(rng.uniform(0.4, 1.3)), 1):g}" if whole else " ",
            "floor": " " if whole else str(int(rng.integers(1, 20))),
            "buildYear": str(int(rng.integers(1975, 2025))),
            "landUse": _pick(rng, ("준공업", "일반공업", "계획관리", "자연녹지"))
            if industrial
            else _pick(rng, _LAND_USE),
            "sggNm": sgg.name,
            "shareDealingType": "지분" if rng.random() < 0.08 else " ",
        }
        record.update(self._sale(rng, sgg, dealt, value))
        return record

    def _land(self, rng, spec: Family, sgg, dealt: dt.date, trend: float) -> dict[str, Any]:
        """A plot of land: masked lot, 지목, 용도지역 (written with 지역), 거래면적."""
        dong = self._dong(rng, sgg)
        urban = sgg.sido.code in _METRO or sgg.name.endswith("구")
        use = _pick(rng, _LAND_USE if urban else _RURAL_LAND_USE)
        area = float(rng.lognormal(5.5 if urban else 6.6, 1.0))
        level = self._price_level(sgg)
        value = level * spec.price * (1.0 if urban else 0.15) * area * trend * float(rng.lognormal(0, 0.5))
        record = self._sale(rng, sgg, dealt, value)
        for key in ("slerGbn", "buyerGbn"):
            del record[key]  # the land service names neither party
        record.update(
            umdNm=dong.name,
            jibun=_masked(int(rng.integers(10, 1500))),
            jimok=_pick(rng, _JIMOK),
            landUse=use + "지역",
            dealArea=f"{round(area, 2):g}",
            sggNm=sgg.name,
            shareDealingType="지분" if rng.random() < 0.12 else " ",
        )
        return record


_MAKERS: dict[str, Callable[..., dict[str, Any]]] = {
    "offi": RtmsWorld._unit,
    "rh": RtmsWorld._unit,
    "silv": RtmsWorld._unit,
    "sh": RtmsWorld._house,
    "nrg": RtmsWorld._building,
    "indu": RtmsWorld._building,
    "land": RtmsWorld._land,
}
