"""NEIS 교육정보 개방 포털 (open.neis.go.kr/hub/{service}).

The portal software's head/row envelope (:class:`HeadRowProtocol`): ``KEY``,
``Type`` (XML unless ``json``), ``pIndex``/``pSize`` (100 by default, ERROR-336
above 1,000; a call without ``KEY`` is answered as a sample, the first five rows),
INFO-200 for no data. Every service but ``schoolInfo`` needs the office code, and
most the 7-digit school code; a school *name* in ``SD_SCHUL_CODE`` simply matches
nothing (INFO-200), as on the real portal. Date parameters accept a whole day
(``YYYYMMDD``) or, like the real portal, a month (``YYYYMM``) or a year
(``YYYY``) prefix; a value that is not a date matches nothing. What exists at an
as-of date is documented in :mod:`kopa_replay.sim.world.schools` (meals to the end
of the as-of month, the calendar a month further, timetables to the Friday of the
as-of week, the past-year timetables for 2020–2022).

Every service is a row of the operation table ``kopa_replay/sim/tables/neis.yaml``
answered by the generic handler over the world tables of :data:`TABLES`.
"""

from __future__ import annotations

import datetime as dt
from bisect import bisect_right
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any

from kopa_replay.sim.core import NoData, Query
from kopa_replay.sim.protocols import HeadRowProtocol
from kopa_replay.sim.tables import endpoints
from kopa_replay.sim.world.calendar import parse_ymd, ymd
from kopa_replay.sim.world.finance import LazyRows
from kopa_replay.sim.world.schools import HISTORY_START, School, academic_year, academy_index, course

HOST = "open.neis.go.kr"
# Without a KEY the portal answers sample data (what client libraries rely on: ezneis caps pSize at 5 without a
# key, neispy warns it "requests with the sample key"): served as the first five rows, like Seoul's sample key;
# whether later pages are refused is not documented. A wrong key is ERROR-290.
PROTOCOL = HeadRowProtocol(prefix="/hub/", keyless_rows=5)

_YES_NO = {True: "Y", False: "N"}
_GRADE_FLAGS = (
    "ONE_GRADE_EVENT_YN",
    "TW_GRADE_EVENT_YN",
    "THREE_GRADE_EVENT_YN",
    "FR_GRADE_EVENT_YN",
    "FIV_GRADE_EVENT_YN",
    "SIX_GRADE_EVENT_YN",
)


# -- parameter helpers ---------------------------------------------------------
def _day_range(text: str | None) -> tuple[dt.date, dt.date] | None:
    """A YYYYMMDD / YYYYMM / YYYY value as the inclusive range of days it names; NoData if it names none."""
    if text is None:
        return None
    digits = text.replace("-", "")
    if not digits.isdigit():
        raise NoData()
    if len(digits) == 8:
        day = parse_ymd(digits)
        if day is None:
            raise NoData()
        return day, day
    try:
        if len(digits) == 6:
            first = dt.date(int(digits[:4]), int(digits[4:]), 1)
            return first, (first.replace(day=28) + dt.timedelta(days=4)).replace(day=1) - dt.timedelta(days=1)
        if len(digits) == 4:
            return dt.date(int(digits), 1, 1), dt.date(int(digits), 12, 31)
    except ValueError:
        pass
    raise NoData()


def _window(
    q: Query, single: str, start: str, end: str, horizon: dt.date, floor: dt.date = HISTORY_START
) -> tuple[dt.date, dt.date]:
    """The days asked for (one day/month/year, or a from–to range), cut to what exists at the as-of date."""
    lo, hi = floor, horizon
    for name in (single, start, end):
        bounds = _day_range(q.get(name))
        if bounds is None:
            continue
        if name == single:
            lo, hi = max(lo, bounds[0]), min(hi, bounds[1])
        elif name == start:
            lo = max(lo, bounds[0])
        else:
            hi = min(hi, bounds[1])
    if lo > hi:
        raise NoData()
    return lo, hi


def _school(world, q: Query) -> School:
    """The school named by office + school code; no data for an unknown code, a name, or the wrong office."""
    school = world.schools.school(q.require("ATPT_OFCDC_SC_CODE"), q.require("SD_SCHUL_CODE"))
    if school is None:
        raise NoData()
    return school


def _school_fields(school: School) -> dict[str, str]:
    return {
        "ATPT_OFCDC_SC_CODE": school.office,
        "ATPT_OFCDC_SC_NM": school.office_name,
        "SD_SCHUL_CODE": school.code,
        "SCHUL_NM": school.name,
    }


def _matches(record: dict[str, Any], q: Query, names: Iterable[str]) -> bool:
    return all(q.get(name) is None or str(record.get(name)) == q.get(name) for name in names)


def _nonempty(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    if not rows:
        raise NoData()
    return rows


# -- handlers ------------------------------------------------------------------
def _school_record(school: School, load: str) -> dict[str, Any]:
    return {
        **_school_fields(school),
        "ENG_SCHUL_NM": school.english,
        "SCHUL_KND_SC_NM": school.kind,
        "LCTN_SC_NM": school.sido.name,
        "JU_ORG_NM": school.support_office,
        "FOND_SC_NM": school.founding,
        "ORG_RDNZC": school.postal,
        "ORG_RDNMA": school.address,
        "ORG_RDNDA": school.address_detail,
        "ORG_TELNO": school.tel,
        "HMPG_ADRES": school.homepage,
        "COEDU_SC_NM": school.coedu,
        "ORG_FAXNO": school.fax,
        "HS_SC_NM": school.high_type,
        "INDST_SPECL_CCCCL_EXST_YN": "Y" if school.high_type == "특성화고" else "N",
        "HS_GNRL_BUSNS_SC_NM": ("전문계" if school.high_type == "특성화고" else "일반계")
        if school.kind == "고등학교"
        else "해당없음",
        "SPCLY_PURPS_HS_ORD_NM": school.special_line,
        "ENE_BFE_SEHF_SC_NM": "전기",
        "DGHT_SC_NM": "주간",
        "FOND_YMD": ymd(school.founded),
        "FOAS_MEMRD": ymd(school.founded),
        "LOAD_DTM": load,
    }


def school_info(world, q: Query) -> LazyRows:
    """Schools by office, code, name (partial), kind, 시도 name or founding; the filters read the school, a
    record is made for the rows of the page only."""
    office, code, name = q.get("ATPT_OFCDC_SC_CODE"), q.get("SD_SCHUL_CODE"), q.get("SCHUL_NM")
    kind, place, founding = q.get("SCHUL_KND_SC_NM"), q.get("LCTN_SC_NM"), q.get("FOND_SC_NM")
    schools = world.schools
    if code is not None:
        found = schools.school(office, code)
        candidates: Iterable[School] = [found] if found is not None else []
    else:
        offices = [office] if office is not None else schools.offices
        if place is not None:  # a 시도 name is one office's: the others need not be drawn
            offices = [o for o in offices if (sido := schools.sido(o)) is not None and sido.name == place]
        candidates = (school for o in offices for school in schools.office_schools(o))
    keys = [
        school
        for school in candidates
        if (name is None or name in school.name)  # the portal matches school names partially
        and (kind is None or school.kind == kind)
        and (place is None or school.sido.name == place)
        and (founding is None or school.founding == founding)
    ]
    if not keys:
        raise NoData()
    load = _load_month(q)  # the portal reloads school facts monthly
    return LazyRows(keys, lambda school: _school_record(school, load))


def meal_service_diet_info(world, q: Query) -> list[dict[str, Any]]:
    school = _school(world, q)
    horizon = world.schools.meal_horizon(q.as_of)
    first, last = _window(q, "MLSV_YMD", "MLSV_FROM_YMD", "MLSV_TO_YMD", horizon)
    wanted_meal = q.get("MMEAL_SC_CODE")
    rows = []
    for day in world.schools.school_days(school, first, last):
        month_start = day.replace(day=1)
        month_end = (month_start + dt.timedelta(days=32)).replace(day=1) - dt.timedelta(days=1)
        for meal in world.schools.meals(school, day):
            if wanted_meal is not None and meal["MMEAL_SC_CODE"] != wanted_meal:
                continue
            rows.append(
                {
                    **_school_fields(school),
                    "MMEAL_SC_CODE": meal["MMEAL_SC_CODE"],
                    "MMEAL_SC_NM": meal["MMEAL_SC_NM"],
                    "MLSV_YMD": ymd(day),
                    "MLSV_FGR": meal["MLSV_FGR"],
                    "DDISH_NM": meal["DDISH_NM"],
                    "ORPLC_INFO": meal["ORPLC_INFO"],
                    "CAL_INFO": meal["CAL_INFO"],
                    "NTR_INFO": meal["NTR_INFO"],
                    "MLSV_FROM_YMD": ymd(month_start),
                    "MLSV_TO_YMD": ymd(month_end),
                    "LOAD_DTM": ymd(month_start),
                }
            )
    return _nonempty(rows)


def school_schedule(world, q: Query) -> list[dict[str, Any]]:
    school = _school(world, q)
    horizon = world.schools.schedule_horizon(q.as_of)
    first, last = _window(q, "AA_YMD", "AA_FROM_YMD", "AA_TO_YMD", horizon)
    rows = []
    grades = min(school.grades, len(_GRADE_FLAGS))  # a special school's calendar flags its six school grades
    for ay in range(academic_year(first), academic_year(last) + 1):
        for day, event, kind in world.schools.schedule(school, ay):
            if not first <= day <= last:
                continue
            only = 1 if event == "입학식" else grades if event == "졸업식" else None
            flags = {
                flag: _YES_NO[i < grades and (only is None or only == i + 1)] for i, flag in enumerate(_GRADE_FLAGS)
            }
            rows.append(
                {
                    **_school_fields(school),
                    "AY": str(ay),
                    "DGHT_CRSE_SC_NM": "주간",
                    "SCHUL_CRSE_SC_NM": school.kind,
                    "SBTR_DD_SC_NM": kind,
                    "AA_YMD": ymd(day),
                    "EVENT_NM": event,
                    "EVENT_CNTNT": None,
                    **flags,
                    "LOAD_DTM": f"{ay}0301",
                }
            )
    return _nonempty(rows)


def _high_track(school: School) -> tuple[str | None, str | None]:
    """(ORD_SC_NM, DDDEP_NM) of a class: only high schools have them."""
    if school.kind != "고등학교":
        return None, None
    if school.high_type == "특성화고":
        department = next(
            (dep for word, dep in (("공업", "기계과"), ("상업", "회계금융과")) if word in school.name), "정보처리과"
        )
        return "전문계", department
    return ("특목계" if school.high_type == "특목고" else "일반계"), "일반학과"


def _class_years(world, school: School, as_of: dt.date) -> range:
    """The academic years a school has class lists for: from 2015 (or its first year) to the running one."""
    return range(max(2015, school.founded.year + 1), academic_year(as_of) + 1)


def class_info(world, q: Query) -> list[dict[str, Any]]:
    school = _school(world, q)
    ay_text = q.get("AY")
    if ay_text is not None and not ay_text.isdigit():
        raise NoData()
    wanted_year = int(ay_text) if ay_text else None
    order, department = _high_track(school)
    rows = []
    for ay in _class_years(world, school, q.as_of):
        if wanted_year is not None and ay != wanted_year:
            continue
        for grade, number in world.schools.classes(school, ay):
            level, level_grade = course(school, grade)
            record = {
                **_school_fields(school),
                "AY": str(ay),
                "GRADE": str(level_grade),
                "DGHT_CRSE_SC_NM": "주간",
                "SCHUL_CRSE_SC_NM": level,
                "ORD_SC_NM": order,
                "DDDEP_NM": department,
                "CLASS_NM": str(number),
                "LOAD_DTM": f"{ay}0302",
            }
            if _matches(
                record, q, ("GRADE", "CLASS_NM", "SCHUL_CRSE_SC_NM", "DGHT_CRSE_SC_NM", "ORD_SC_NM", "DDDEP_NM")
            ):
                rows.append(record)
    return _nonempty(rows)


# -- world tables of the operation table (kopa_replay/sim/tables/neis.yaml) --------------
def _load_month(q: Query) -> str:
    """LOAD_DTM of the portal's monthly reloads (school facts, tracks, academies): the as-of month's first day."""
    return ymd(q.as_of.replace(day=1))


def _school_tracks(world, q: Query) -> Sequence[dict[str, Any]]:
    """schoolMajorinfo / schulAflcoinfo: each high school's day course, track and department (as classInfo
    names them) — one school's with SD_SCHUL_CODE, else every high school of the office; other schools have
    none. The filters need no drawing."""
    office, code = q.require("ATPT_OFCDC_SC_CODE"), q.get("SD_SCHUL_CODE")
    if code is not None:
        found = world.schools.school(office, code)
        candidates: Iterable[School] = [found] if found is not None else []
    else:
        candidates = world.schools.office_schools(office)
    wanted = [(name, value) for name in ("DGHT_CRSE_SC_NM", "ORD_SC_NM") if (value := q.get(name)) is not None]
    keys = []
    for school in candidates:
        order, department = _high_track(school)
        if order is not None and all({"DGHT_CRSE_SC_NM": "주간", "ORD_SC_NM": order}[n] == v for n, v in wanted):
            keys.append((school, order, department))
    load = _load_month(q)
    return LazyRows(
        keys,
        lambda key: {
            **_school_fields(key[0]),
            "DGHT_CRSE_SC_NM": "주간",
            "ORD_SC_NM": key[1],
            "DDDEP_NM": key[2],
            "LOAD_DTM": load,
        },
    )


def _classrooms(world, q: Query) -> list[dict[str, Any]]:
    """tiClrminfo: the timetable's classrooms per school year, semester and grade (one per class, named as the
    timetables' CLRM_NM); a semester exists once it has begun."""
    school = _school(world, q)
    order, department = _high_track(school)
    rows = []
    for ay in _class_years(world, school, q.as_of):
        term = world.schools.term(school, ay)
        semesters = ("1", "2") if q.as_of >= term.second_start else ("1",)
        for semester in semesters:
            for grade, number in world.schools.classes(school, ay):
                level, level_grade = course(school, grade)
                rows.append(
                    {
                        **_school_fields(school),
                        "AY": str(ay),
                        "GRADE": str(level_grade),
                        "SEM": semester,
                        "SCHUL_CRSE_SC_NM": level,
                        "DGHT_CRSE_SC_NM": "주간",
                        "ORD_SC_NM": order,
                        "DDDEP_NM": department,
                        "CLRM_NM": str(number),
                        "LOAD_DTM": f"{ay}0302" if semester == "1" else ymd(term.second_start),
                    }
                )
    return rows


_ACADEMY_FILTERS = ("ADMST_ZONE_NM", "REALM_SC_NM", "LE_ORD_NM", "LE_CRSE_NM")


def _academies(world, q: Query) -> LazyRows:
    """acaInsTiInfo: the office's academies, made row by row (the filters, the name's too, read facts that
    need no drawing)."""
    office = q.require("ATPT_OFCDC_SC_CODE")
    schools = world.schools
    count = schools.academy_count(office)
    number = q.get("ACA_ASNUM")
    if number is not None:
        index = academy_index(office, number)
        candidates: Iterable[int] = [index] if index is not None and index < count else []
    else:
        candidates = range(count)
    wanted = [(i, q.get(name)) for i, name in enumerate(_ACADEMY_FILTERS) if q.get(name) is not None]
    name_part = q.get("ACA_NM")
    keys = []
    for index in candidates:
        sgg, facts = schools.academy_facts(office, index)
        values = (sgg.name, facts[0], facts[1], facts[3])
        if all(values[i] == value for i, value in wanted) and (
            name_part is None or name_part in schools.academy_name(office, index)[0]
        ):
            keys.append(index)
    if not keys:
        return []
    office_fields = {"ATPT_OFCDC_SC_CODE": office, "ATPT_OFCDC_SC_NM": schools.sido(office).name + "교육청"}
    load = _load_month(q)
    return LazyRows(keys, lambda index: {**office_fields, **schools.academy(office, index), "LOAD_DTM": load})


class _Timetable(Sequence):
    """A timetable's rows (school day × class × period, in that order) made as they are read: per school
    year, its days and the (grade, class, period) slots the filters leave."""

    def __init__(self, groups: list[tuple[list[tuple[dt.date, str]], list[tuple[int, int, int]]]], make) -> None:
        self._groups = [(days, slots) for days, slots in groups if days and slots]
        self._make = make
        self._starts = []
        total = 0
        for days, slots in self._groups:
            self._starts.append(total)
            total += len(days) * len(slots)
        self._total = total

    def __len__(self) -> int:
        return self._total

    def _one(self, index: int) -> dict[str, Any]:
        group = bisect_right(self._starts, index) - 1
        days, slots = self._groups[group]
        day, slot = divmod(index - self._starts[group], len(slots))
        return self._make(days[day], slots[slot])

    def __getitem__(self, index):  # type: ignore[override]
        if isinstance(index, slice):
            return [self._one(i) for i in range(*index.indices(self._total))]
        if index < 0:
            index += self._total
        if not 0 <= index < self._total:
            raise IndexError(index)
        return self._one(index)

    def __iter__(self) -> Iterator[dict[str, Any]]:
        return (self._one(i) for i in range(self._total))


# the filters each timetable service takes besides the dates (the portal's request parameters)
_TIMETABLE_FILTERS = {
    "elsTimetable": ("AY", "SEM", "GRADE", "CLASS_NM", "PERIO"),
    "misTimetable": ("AY", "SEM", "DGHT_CRSE_SC_NM", "GRADE", "CLASS_NM", "PERIO"),
    "hisTimetable": ("AY", "SEM", "DGHT_CRSE_SC_NM", "ORD_SC_NM", "DDDEP_NM", "GRADE", "CLRM_NM", "CLASS_NM", "PERIO"),
    "spsTimetable": ("AY", "SEM", "SCHUL_CRSE_SC_NM", "GRADE", "CLRM_NM", "CLASS_NM", "PERIO"),
}


def _timetables(service: str, archive: bool = False) -> Callable[[Any, Query], Sequence[dict[str, Any]]]:
    """The world table of one timetable service (each serves one school kind): the running school year up to
    this Friday, or with ``archive`` the past years (…Timetablebgs). A record carries every timetable field;
    the operation's row keeps its own."""
    filters = _TIMETABLE_FILTERS[service]

    def table(world, q: Query) -> Sequence[dict[str, Any]]:
        school = _school(world, q)
        if school.timetable_service != service:
            return []
        schools = world.schools
        floor, horizon = schools.archive_window() if archive else schools.timetable_window(q.as_of)
        first, last = _window(q, "ALL_TI_YMD", "TI_FROM_YMD", "TI_TO_YMD", horizon, floor)
        order, department = _high_track(school)
        fixed = {"DGHT_CRSE_SC_NM": "주간", "ORD_SC_NM": order, "DDDEP_NM": department}
        wanted = {name: value for name in filters if (value := q.get(name)) is not None}
        if any(str(fixed[name]) != value for name, value in wanted.items() if name in fixed):
            return []
        days: dict[int, list[tuple[dt.date, str]]] = {}
        for day in schools.school_days(school, first, last, floor):
            ay = academic_year(day)
            if archive and ay <= school.founded.year:  # no past year before the school's first
                continue
            semester = schools.term(school, ay).semester(day) or "1"
            if wanted.get("AY", str(ay)) == str(ay) and wanted.get("SEM", semester) == semester:
                days.setdefault(ay, []).append((day, semester))
        groups = []
        for ay, ay_days in days.items():
            slots = []
            for grade, number in schools.classes(school, ay):
                level, level_grade = course(school, grade)
                facts = {"GRADE": str(level_grade), "CLASS_NM": str(number), "CLRM_NM": str(number)}
                facts["SCHUL_CRSE_SC_NM"] = level
                if any(facts[name] != value for name, value in wanted.items() if name in facts):
                    continue
                for period in range(1, schools.periods(school, grade) + 1):
                    if wanted.get("PERIO", str(period)) == str(period):
                        slots.append((grade, number, period))
            groups.append((ay_days, slots))

        def make(day_semester: tuple[dt.date, str], slot: tuple[int, int, int]) -> dict[str, Any]:
            (day, semester), (grade, number, period) = day_semester, slot
            ay = academic_year(day)
            level, level_grade = course(school, grade)
            plan = schools.week_plan(school, ay, semester, grade, number)[day.weekday()]
            return {
                **_school_fields(school),
                "AY": str(ay),
                "SEM": semester,
                "ALL_TI_YMD": ymd(day),
                **fixed,
                "SCHUL_CRSE_SC_NM": level,
                "GRADE": str(level_grade),
                "CLRM_NM": str(number),
                "CLASS_NM": str(number),
                "PERIO": str(period),
                "ITRT_CNTNT": plan[period - 1],
                "LOAD_DTM": ymd(day - dt.timedelta(days=day.weekday())),  # loaded weekly, on the Monday
            }

        return _Timetable(groups, make)

    return table


#: the world tables an operation row can name
TABLES = {
    "schools": school_info,
    "meals": meal_service_diet_info,
    "calendar": school_schedule,
    "classes": class_info,
    "school_tracks": _school_tracks,
    "classrooms": _classrooms,
    "academies": _academies,
    **{
        f"{service[:3]}_timetable{'_archive' if archive else ''}": _timetables(service, archive)
        for service in _TIMETABLE_FILTERS
        for archive in (False, True)
    },
}

# Ground-truth domains (each row's inputs/outputs): a from-date opens a range that reaches today, so any earlier
# date will do, a historical one too (the history starts in 2024); what an end date finds depends on the day or
# start it comes with: no domain. A single day answers only when the school teaches on it: a weekday that is no
# public holiday, as a trading day is (vacations aside). A single day of the school calendar (AA_YMD) answers only
# when an event falls on it: no domain. LOAD_DTM is the day a row was loaded (the month's or the week's first).
ENDPOINTS = endpoints("neis", HOST, PROTOCOL, TABLES)

HOSTS = {HOST: PROTOCOL}
