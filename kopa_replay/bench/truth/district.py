"""The district tasks' answers from the world: subway ridership, apartment trades, 공동주택, births and deaths.

Every function reads the world objects the simulator's platforms read — ``world.datasets`` (the Seoul Open Data
tables and the RTMS contracts), ``world.regions`` (the 법정동 tree), ``world.buildings`` (the 건축물대장 lots) —
and mirrors their as-of cut: a month of ridership or statistics exists once it is over, a trade once reported.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from functools import lru_cache
from typing import Any

# Pure row helpers of the simulator (not its HTTP handlers), as the brief allows:
# kapt_basis makes a 공동주택 기본정보 row from a complex and its lot; _BIRTHS/_DEATHS.draw draw one 행정동's
# births or deaths of a month (the 행정동 services sum them upward).
from kopa_replay.sim.platforms.mois import _BIRTHS, _DEATHS
from kopa_replay.sim.tables import load_table
from kopa_replay.sim.world.datasets import SUBWAY_LINES, load_datasets
from kopa_replay.sim.world.mois_bldg import kapt_basis


def _day(as_of: str) -> dt.date:
    return dt.date.fromisoformat(as_of)


@lru_cache(maxsize=2)
def _specs(platform: str) -> Mapping[str, Any]:
    """A platform's world tables as its operation table declares them (sim/tables/<platform>.yaml)."""
    return load_datasets(load_table(platform).extra["datasets"])


def _seoul_specs() -> Mapping[str, Any]:
    return _specs("seoul")


def _lines_of(station: str) -> list[str]:
    """The lines that stop at ``station`` (the ridership datasets' spelling), in line order."""
    return [line for line, stations in SUBWAY_LINES if station in stations]


def _sigungu(world: Any, full_name: str) -> Any:
    (found,) = [s for s in world.regions.sigungu if s.full_name == full_name]
    return found


def _amount(text: str) -> int:
    return int(str(text).replace(",", "").strip())


# -- Seoul subway ------------------------------------------------------------------------------------
def _day_rows(world: Any, as_of: str, day: str) -> list[dict[str, Any]]:
    return world.datasets.rows(_seoul_specs()["subway_ridership"], _day(as_of), {"USE_DT": day})


def station_day_boardings(world: Any, as_of: str, slots: Mapping[str, Any]) -> float:
    """Boardings at one station on one day, every line that stops there summed."""
    lines = set(_lines_of(slots["station"]))
    rows = _day_rows(world, as_of, slots["day"])
    return float(
        sum(r["RIDE_PASGR_NUM"] for r in rows if r["SUB_STA_NM"] == slots["station"] and r["LINE_NUM"] in lines)
    )


def station_busiest_line(world: Any, as_of: str, slots: Mapping[str, Any]) -> str:
    """The line with the most boardings (``measure`` on: 승차, off: 하차) at one station on one day."""
    field = "RIDE_PASGR_NUM" if slots.get("measure", "on") == "on" else "ALIGHT_PASGR_NUM"
    rows = [r for r in _day_rows(world, as_of, slots["day"]) if r["SUB_STA_NM"] == slots["station"]]
    best = max(rows, key=lambda r: r[field])
    assert sum(r[field] == best[field] for r in rows) == 1, "tied"
    return str(best["LINE_NUM"])


def station_month_hour(world: Any, as_of: str, slots: Mapping[str, Any]) -> int:
    """One hour column (HR_8_GET_ON_NOPE …) of the month's hourly ridership at a station, its lines summed."""
    spec = _seoul_specs()["subway_hourly"]
    rows = world.datasets.rows(spec, _day(as_of), {"USE_MM": slots["month"]})
    lines = set(_lines_of(slots["station"]))
    return int(sum(r[slots["column"]] for r in rows if r["STTN"] == slots["station"] and r["SBWY_ROUT_LN_NM"] in lines))


# -- apartment trades (RTMS) --------------------------------------------------------------------------
def dong_trade_count(world: Any, as_of: str, slots: Mapping[str, Any]) -> int:
    """The apartment trades of a month in one 법정동 of a Seoul 구, as reported by the as-of date."""
    sgg = _sigungu(world, "서울특별시 " + slots["gu"])
    rows = world.datasets.apt_trades(sgg.code, slots["month"], _day(as_of))
    return sum(1 for r in rows if r["umdNm"] == slots["dong"])


def top_deal_households(world: Any, as_of: str, slots: Mapping[str, Any]) -> int:
    """The households (세대) of the three complexes (lots) whose best trade of the month was the highest."""
    sgg = _sigungu(world, "서울특별시 " + slots["gu"])
    best: dict[tuple[str, str, str], int] = {}
    for r in world.datasets.apt_trades(sgg.code, slots["month"], _day(as_of)):
        key = (r["umdCd"], r["bonbun"], r["bubun"])
        best[key] = max(best.get(key, 0), _amount(r["dealAmount"]))
    ranked = sorted(best.items(), key=lambda kv: -kv[1])
    assert ranked[2][1] != ranked[3][1], "the third and fourth lots tie"
    total = 0
    for (umd, bun, ji), _ in ranked[:3]:
        place = world.buildings.place(sgg.code, umd)
        lot = world.buildings.lot_of(place, int(bun), int(ji))
        total += sum(max(0, b.grnd - b.res_from + 1) * b.units_per_floor for b in lot.buildings)
    return total


# -- 공동주택 단지 (K-apt) ------------------------------------------------------------------------------
def _complexes_in(world: Any, full_name: str) -> list[dict[str, Any]]:
    """The 공동주택 기본정보 of every complex in one 법정동 (its full name)."""
    sgg_name, _, dong_name = full_name.rpartition(" ")
    sgg = _sigungu(world, sgg_name)
    out = []
    for index, apt in enumerate(world.datasets.complexes(sgg.code)):
        if apt.dong.name != dong_name:
            continue
        place = world.buildings.place(sgg.code, apt.dong.code[5:])
        out.append(kapt_basis(sgg, index, apt, world.buildings.lot_of(place, apt.bonbun, apt.bubun)))
    return out


def dong_complex_households(world: Any, as_of: str, slots: Mapping[str, Any]) -> int:
    return sum(int(row["kaptdaCnt"]) for row in _complexes_in(world, slots["place"]))


def dong_largest_complex(world: Any, as_of: str, slots: Mapping[str, Any]) -> str:
    rows = _complexes_in(world, slots["place"])
    most = max(int(r["kaptdaCnt"]) for r in rows)
    (name,) = [r["kaptName"] for r in rows if int(r["kaptdaCnt"]) == most]
    return str(name)


# -- 주민등록 births and deaths --------------------------------------------------------------------------
def _vital(world: Any, vital: Any, sgg: Any, month: str) -> int:
    """A 시군구's births or deaths of a month: its 행정동's drawn counts summed (as the 행정동 services sum them)."""
    total = 0
    for admin in world.datasets.admin_dongs_by_sgg.get(sgg.code, []):
        pop = world.datasets.admin_population(admin, month)
        rng = world.rng("mois", vital.label, admin.admm_cd, month)
        total += sum(vital.draw(rng, pop["total"], pop["households"]))
    return total


def natural_increase(world: Any, as_of: str, slots: Mapping[str, Any]) -> int:
    """Births − deaths of a 시군구 over the months of ``slots['months']`` (YYYYMM, published ones only)."""
    sgg = _sigungu(world, slots["place"])
    last = (_day(as_of).replace(day=1) - dt.timedelta(days=1)).strftime("%Y%m")
    months = [m for m in slots["months"] if m <= last]
    return sum(_vital(world, _BIRTHS, sgg, m) - _vital(world, _DEATHS, sgg, m) for m in months)


# -- 경기데이터드림 도서관 현황 ------------------------------------------------------------------------------
def gg_public_libraries(world: Any, as_of: str, slots: Mapping[str, Any]) -> int:
    """The libraries of one 시 whose own class field (LIBRRY_DIV_NM) reads 공공도서관, not 작은도서관."""
    rows = world.datasets.rows(_specs("gg")["gg_libraries"], _day(as_of), {})
    return sum(1 for r in rows if r["SIGUN_NM"] == slots["city"] and r["LIBRRY_DIV_NM"] == "공공도서관")
