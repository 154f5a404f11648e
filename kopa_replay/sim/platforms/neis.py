"""NEIS 교육정보 개방 포털 (open.neis.go.kr/hub/{service}).

The portal software's head/row envelope (:class:`HeadRowProtocol`): ``KEY``,
``Type`` (XML unless ``json``), ``pIndex``/``pSize`` (100 by default, ERROR-336
above 1,000; a call without ``KEY`` is answered as a sample, the first five rows),
INFO-200 for no data. Every service but ``schoolInfo`` needs the
office code and the 7-digit school code; a school *name* in ``SD_SCHUL_CODE``
simply matches nothing (INFO-200), as on the real portal. Date parameters
accept a whole day (``YYYYMMDD``) or, like the real portal, a month
(``YYYYMM``) or a year (``YYYY``) prefix; a value that is not a date matches
nothing. What exists at an as-of date is documented in
:mod:`kopa_replay.sim.world.schools` (meals to the end of the as-of month,
the calendar a month further, timetables to the Friday of the as-of week).
"""

from __future__ import annotations

import datetime as dt
from typing import Any, Callable, Iterable

from kopa_replay.sim.core import Endpoint, NoData, Query
from kopa_replay.sim.protocols import HeadRowProtocol
from kopa_replay.sim.world.calendar import parse_ymd, ymd
from kopa_replay.sim.world.finance import LazyRows
from kopa_replay.sim.world.schools import HISTORY_START, School, academic_year, academy_index

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
    school = world.schools.by_code.get(q.require("SD_SCHUL_CODE"))
    if school is None or school.office != q.require("ATPT_OFCDC_SC_CODE"):
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
def school_info(world, q: Query) -> list[dict[str, Any]]:
    office, code, name = q.get("ATPT_OFCDC_SC_CODE"), q.get("SD_SCHUL_CODE"), q.get("SCHUL_NM")
    if code is not None:
        candidates: Iterable[School] = [world.schools.by_code[code]] if code in world.schools.by_code else []
    elif office is not None:
        candidates = world.schools.by_office.get(office, ())
    else:
        candidates = world.schools.schools
    rows = []
    for school in candidates:
        if office is not None and school.office != office:
            continue
        if name is not None and name not in school.name:  # the portal matches school names partially
            continue
        record = {
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
            # the portal reloads school facts monthly
            "LOAD_DTM": ymd(q.as_of.replace(day=1)),
        }
        if _matches(record, q, ("SCHUL_KND_SC_NM", "LCTN_SC_NM", "FOND_SC_NM")):
            rows.append(record)
    return _nonempty(rows)


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
    grades = school.grades
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


def class_info(world, q: Query) -> list[dict[str, Any]]:
    school = _school(world, q)
    current = academic_year(q.as_of)
    first_year = max(2015, school.founded.year + 1)
    years = range(first_year, current + 1)
    ay_text = q.get("AY")
    if ay_text is not None and not ay_text.isdigit():
        raise NoData()
    wanted_year = int(ay_text) if ay_text else None
    order, department = _high_track(school)
    rows = []
    for ay in years:
        if wanted_year is not None and ay != wanted_year:
            continue
        for grade, number in world.schools.classes(school, ay):
            record = {
                **_school_fields(school),
                "AY": str(ay),
                "GRADE": str(grade),
                "DGHT_CRSE_SC_NM": "주간",
                "SCHUL_CRSE_SC_NM": school.kind,
                "ORD_SC_NM": order,
                "DDDEP_NM": department,
                "CLASS_NM": str(number),
                "LOAD_DTM": f"{ay}0302",
            }
            if _matches(record, q, ("GRADE", "CLASS_NM", "SCHUL_CRSE_SC_NM", "DGHT_CRSE_SC_NM")):
                rows.append(record)
    return _nonempty(rows)


def _timetable(service: str) -> Callable[[Any, Query], list[dict[str, Any]]]:
    """A handler for one of elsTimetable / misTimetable / hisTimetable (each serves one school kind)."""

    def handler(world, q: Query) -> list[dict[str, Any]]:
        school = _school(world, q)
        if school.timetable_service != service:
            raise NoData()
        floor, horizon = world.schools.timetable_window(q.as_of)
        first, last = _window(q, "ALL_TI_YMD", "TI_FROM_YMD", "TI_TO_YMD", horizon, floor)
        order, department = _high_track(school)
        rows = []
        for day in world.schools.school_days(school, first, last):
            ay = academic_year(day)
            semester = world.schools.term(school, ay).semester(day) or "1"
            monday = day - dt.timedelta(days=day.weekday())
            for grade, number in world.schools.classes(school, ay):
                plan = world.schools.week_plan(school, ay, semester, grade, number)[day.weekday()]
                for period, subject in enumerate(plan, start=1):
                    # the portal's field order; only middle and high schools have a course, only high
                    # schools a track and a classroom name
                    record = {**_school_fields(school), "AY": str(ay), "SEM": semester, "ALL_TI_YMD": ymd(day)}
                    if service != "elsTimetable":
                        record["DGHT_CRSE_SC_NM"] = "주간"
                    if service == "hisTimetable":
                        record.update({"ORD_SC_NM": order, "DDDEP_NM": department})
                    record["GRADE"] = str(grade)
                    if service == "hisTimetable":
                        record["CLRM_NM"] = str(number)
                    record.update(
                        {"CLASS_NM": str(number), "PERIO": str(period), "ITRT_CNTNT": subject, "LOAD_DTM": ymd(monday)}
                    )
                    if _matches(record, q, ("AY", "SEM", "GRADE", "CLASS_NM", "PERIO")):
                        rows.append(record)
        return _nonempty(rows)

    return handler


# -- the service table: record sources of the services one generic handler serves ---------------------
def _school_tracks(world, q: Query) -> list[dict[str, Any]]:
    """schoolMajorinfo / schulAflcoinfo: a high school's day course, track and department (as classInfo names
    them); other schools have none (INFO-200)."""
    school = _school(world, q)
    order, department = _high_track(school)
    if order is None:
        return []
    return [{**_school_fields(school), "DGHT_CRSE_SC_NM": "주간", "ORD_SC_NM": order, "DDDEP_NM": department}]


def _classrooms(world, q: Query) -> list[dict[str, Any]]:
    """tiClrminfo: the timetable's classrooms per school year, semester and grade (one per class, named as
    hisTimetable's CLRM_NM); a semester exists once it has begun."""
    school = _school(world, q)
    order, department = _high_track(school)
    rows = []
    for ay in range(max(2015, school.founded.year + 1), academic_year(q.as_of) + 1):
        term = world.schools.term(school, ay)
        semesters = ("1", "2") if q.as_of >= term.second_start else ("1",)
        for semester in semesters:
            for grade, number in world.schools.classes(school, ay):
                rows.append(
                    {
                        **_school_fields(school),
                        "AY": str(ay),
                        "GRADE": str(grade),
                        "SEM": semester,
                        "SCHUL_CRSE_SC_NM": school.kind,
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
    """acaInsTiInfo: the office's academies, made row by row (the filters read facts that need no drawing)."""
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
    keys = []
    for index in candidates:
        sgg, facts = schools.academy_facts(office, index)
        values = (sgg.name, facts[0], facts[1], facts[3])
        if all(values[i] == value for i, value in wanted):
            keys.append(index)
    office_fields = {"ATPT_OFCDC_SC_CODE": office, "ATPT_OFCDC_SC_NM": world.schools._office_sido(office).name + "교육청"}
    load = ymd(q.as_of.replace(day=1))
    return LazyRows(keys, lambda index: {**office_fields, **schools.academy(office, index), "LOAD_DTM": load})


def _served(source: Callable[[Any, Query], Any], filters: tuple[str, ...] = ()):
    """The generic handler: the source's records, narrowed by the exact-match filter parameters; INFO-200 if none."""

    def handler(world, q: Query):
        rows = source(world, q)
        if filters and any(q.get(name) is not None for name in filters):
            rows = [row for row in rows if _matches(row, q, filters)]
        if not len(rows):
            raise NoData()
        return rows

    return handler


# -- endpoints -----------------------------------------------------------------
_SCHOOL_IN = {"ATPT_OFCDC_SC_CODE": "neis_office_code", "SD_SCHUL_CODE": "school_code"}
_SCHOOL_OUT = {"ATPT_OFCDC_SC_CODE": "neis_office_code", "SD_SCHUL_CODE": "school_code", "SCHUL_NM": "school_name"}
_REQUIRED = ("ATPT_OFCDC_SC_CODE", "SD_SCHUL_CODE")


# tool, service, record source, filter parameters, required, inputs, outputs (ground-truth domains)
_SERVICES: tuple[tuple[str, str, Callable, tuple[str, ...], tuple[str, ...], dict, dict], ...] = (
    (
        "neis_school_major_info",
        "schoolMajorinfo",
        _school_tracks,
        ("DGHT_CRSE_SC_NM", "ORD_SC_NM"),
        _REQUIRED,
        {"SD_SCHUL_CODE": "high_school_code"},
        {"SD_SCHUL_CODE": "high_school_code"},
    ),
    (
        "neis_school_affiliation_info",
        "schulAflcoinfo",
        lambda world, q: [{k: v for k, v in row.items() if k != "DDDEP_NM"} for row in _school_tracks(world, q)],
        ("DGHT_CRSE_SC_NM", "ORD_SC_NM"),
        _REQUIRED,
        {"SD_SCHUL_CODE": "high_school_code"},
        {"SD_SCHUL_CODE": "high_school_code"},
    ),
    (
        "neis_timetable_classroom_info",
        "tiClrminfo",
        _classrooms,
        ("AY", "GRADE", "SEM", "SCHUL_CRSE_SC_NM", "DGHT_CRSE_SC_NM", "ORD_SC_NM", "DDDEP_NM"),
        _REQUIRED,
        {"AY": "year"},
        {"AY": "year", "LOAD_DTM": "date"},
    ),
    (
        "neis_academy_info",
        "acaInsTiInfo",
        _academies,
        (),
        ("ATPT_OFCDC_SC_CODE",),
        {"ATPT_OFCDC_SC_CODE": "neis_office_code", "SD_SCHUL_CODE": None},
        {"ATPT_OFCDC_SC_CODE": "neis_office_code", "SD_SCHUL_CODE": None, "SCHUL_NM": None, "LOAD_DTM": "date"},
    ),
)


def _endpoint(tool: str, service: str, handler, required=_REQUIRED, inputs=None, outputs=None) -> Endpoint:
    return Endpoint(
        tool=tool,
        platform="neis",
        host=HOST,
        route=service,
        protocol=PROTOCOL,
        handler=handler,
        required=required,
        inputs={k: v for k, v in {**_SCHOOL_IN, **(inputs or {})}.items() if v is not None},
        outputs={k: v for k, v in {**_SCHOOL_OUT, **(outputs or {})}.items() if v is not None},
    )


# A from-date opens a range that reaches today, so any earlier date will do, a historical one too (the
# history starts in 2024). What an end date finds depends on the day or start it comes with: no domain.
# A single day answers only when the school teaches on it: a weekday that is no public holiday, as a
# trading day is (vacations aside). A single day of the school calendar (AA_YMD) answers only when an
# event falls on it, and a timetable's AY only for the current academic year: no domain.
# LOAD_DTM is the day a row was loaded (the month's or the week's first day).
_TIMETABLE_IN = {"TI_FROM_YMD": "since_date", "ALL_TI_YMD": "business_date"}
_TIMETABLE_OUT = {"ALL_TI_YMD": "date", "AY": "year", "LOAD_DTM": "date"}

ENDPOINTS = [
    _endpoint(
        "neis_school_info",
        "schoolInfo",
        school_info,
        required=(),
        inputs={"SCHUL_NM": "school_name", "LCTN_SC_NM": "sido_name"},
        outputs={"LCTN_SC_NM": "sido_name", "FOND_YMD": "past_date", "FOAS_MEMRD": "past_date"},
    ),
    _endpoint(
        "neis_meal_service_diet_info",
        "mealServiceDietInfo",
        meal_service_diet_info,
        inputs={"MLSV_FROM_YMD": "since_date", "MLSV_YMD": "business_date"},
        outputs={"MLSV_YMD": "date", "MLSV_FROM_YMD": "date", "MLSV_TO_YMD": "date", "LOAD_DTM": "date"},
    ),
    _endpoint(
        "neis_school_schedule",
        "SchoolSchedule",
        school_schedule,
        inputs={"AA_FROM_YMD": "since_date"},
        outputs={"AA_YMD": "date", "AY": "year", "LOAD_DTM": "date"},
    ),
    _endpoint(
        "neis_class_info", "classInfo", class_info, inputs={"AY": "year"}, outputs={"AY": "year", "LOAD_DTM": "date"}
    ),
    # each timetable answers for schools of its own level only
    _endpoint(
        "neis_els_timetable",
        "elsTimetable",
        _timetable("elsTimetable"),
        inputs={**_TIMETABLE_IN, "SD_SCHUL_CODE": "elementary_school_code"},
        outputs={**_TIMETABLE_OUT, "SD_SCHUL_CODE": "elementary_school_code"},
    ),
    _endpoint(
        "neis_mis_timetable",
        "misTimetable",
        _timetable("misTimetable"),
        inputs={**_TIMETABLE_IN, "SD_SCHUL_CODE": "middle_school_code"},
        outputs={**_TIMETABLE_OUT, "SD_SCHUL_CODE": "middle_school_code"},
    ),
    _endpoint(
        "neis_his_timetable",
        "hisTimetable",
        _timetable("hisTimetable"),
        inputs={**_TIMETABLE_IN, "SD_SCHUL_CODE": "high_school_code"},
        outputs={**_TIMETABLE_OUT, "SD_SCHUL_CODE": "high_school_code"},
    ),
    *(
        _endpoint(tool, service, _served(source, filters), required, inputs, outputs)
        for tool, service, source, filters, required, inputs, outputs in _SERVICES
    ),
]

HOSTS = {HOST: PROTOCOL}
