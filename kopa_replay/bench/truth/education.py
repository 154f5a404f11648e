"""Education answers from the seeded school world (what NEIS serves from ``world.schools``).

Schools are read per 시도교육청 (``office_schools``); a district is the school's 교육지원청
(``support_office``, NEIS's JU_ORG_NM). Dated facts come from the same world methods the NEIS
platform reads: ``classes`` (학급), ``schedule`` (학사일정), ``school_days`` + ``meals`` (급식),
``week_plan`` + ``periods`` (시간표), with the platform's as-of windows (meals to the as-of month's end,
the calendar a month further, the running year's timetable to the as-of week's Friday, the archive 2020–2022).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Mapping
from typing import Any

from kopa_replay.sim.world.schools import academic_year, course

AS_OF_YEAR = 2026


def _day(text: str) -> dt.date:
    return dt.date(int(text[:4]), int(text[4:6]), int(text[6:8]))


def _office_of(world: Any, sido_name: str) -> str:
    schools = world.schools
    found = [
        office for office in schools.offices if (sido := schools.sido(office)) is not None and sido.name == sido_name
    ]
    if len(found) != 1:
        raise ValueError(f"{sido_name}: {len(found)} offices")
    return found[0]


def _district_schools(world: Any, slots: Mapping[str, Any], kind: str, founding: str = "사립") -> list[Any]:
    """The schools of a kind and founding under one 교육지원청 of a 시도."""
    office = _office_of(world, slots["sido"])
    wanted = f"{slots['sido']}{slots['office']}"
    return [
        school
        for school in world.schools.office_schools(office)
        if school.kind == kind and school.founding == founding and school.support_office == wanted
    ]


def _named_school(world: Any, slots: Mapping[str, Any]) -> Any:
    office = _office_of(world, slots["sido"])
    found = [school for school in world.schools.office_schools(office) if school.name == slots["school"]]
    if len(found) != 1:
        raise ValueError(f"{slots['school']}: {len(found)} schools")
    return found[0]


def _winner(scores: Mapping[str, int]) -> str:
    best = max(scores.values())
    winners = [name for name, score in scores.items() if score == best]
    if len(winners) != 1:
        raise ValueError(f"tied: {winners}")
    return winners[0]


def _classes(world: Any, school: Any, ay: int, grade: int | None = None) -> list[tuple[int, int]]:
    """(grade, class number) of a school year, only ``grade`` (as NEIS numbers it) when given."""
    return [
        (g, number) for g, number in world.schools.classes(school, ay) if grade is None or course(school, g)[1] == grade
    ]


def private_hs_grade1_classes(world: Any, as_of: str, slots: Mapping[str, Any]) -> str:
    schools = _district_schools(world, slots, "고등학교")
    return _winner({s.name: len(_classes(world, s, AS_OF_YEAR, 1)) for s in schools})


def private_es_size(world: Any, as_of: str, slots: Mapping[str, Any]) -> str:
    schools = _district_schools(world, slots, "초등학교")
    return _winner({s.name: len(_classes(world, s, AS_OF_YEAR)) for s in schools})


def private_ms_summer_break(world: Any, as_of: str, slots: Mapping[str, Any]) -> str:
    """Days listed as 여름방학 in July–August 2026 (inside the calendar's as-of horizon, the end of October)."""
    first, last = dt.date(2026, 7, 1), dt.date(2026, 8, 31)
    scores = {}
    for school in _district_schools(world, slots, "중학교"):
        events = world.schools.schedule(school, academic_year(first))
        scores[school.name] = sum(1 for day, name, _ in events if first <= day <= last and name == "여름방학")
    return _winner(scores)


def _subject_periods(world: Any, school: Any, days: Iterable[dt.date], grade: int, subject: str) -> int:
    """Periods of ``subject`` over the school days given, every class of ``grade``."""
    schools = world.schools
    count = 0
    for day in days:
        ay = academic_year(day)
        semester = schools.term(school, ay).semester(day) or "1"
        for g, number in _classes(world, school, ay, grade):
            plan = schools.week_plan(school, ay, semester, g, number)[day.weekday()]
            count += sum(1 for period in range(schools.periods(school, g)) if plan[period] == subject)
    return count


def _week(world: Any, school: Any, first: str, last: str) -> list[dt.date]:
    start, end = _day(first), _day(last)
    return list(world.schools.school_days(school, start, end, start))


def private_hs_history_hours(world: Any, as_of: str, slots: Mapping[str, Any]) -> str:
    scores = {}
    for school in _district_schools(world, slots, "고등학교"):
        days = _week(world, school, "20260824", "20260828")
        scores[school.name] = _subject_periods(world, school, days, 1, "한국사")
    return _winner(scores)


def timetable_2022_vs_2026(world: Any, as_of: str, slots: Mapping[str, Any]) -> int:
    school = _named_school(world, slots)
    now = _subject_periods(world, school, _week(world, school, "20260824", "20260828"), 1, slots["subject"])
    if school.founded.year >= 2022:  # the archive holds no year before the school's first
        raise ValueError(f"{school.name} has no 2022 timetable")
    then = _subject_periods(world, school, _week(world, school, "20220822", "20220826"), 1, slots["subject"])
    return now - then


def _meals(world: Any, school: Any, first: dt.date, last: dt.date, code: str) -> list[Mapping[str, str]]:
    return [
        meal
        for day in world.schools.school_days(school, first, last)
        for meal in world.schools.meals(school, day)
        if meal["MMEAL_SC_CODE"] == code
    ]


def private_hs_dinner_servings(world: Any, as_of: str, slots: Mapping[str, Any]) -> int:
    first, last = dt.date(2026, 6, 1), dt.date(2026, 6, 30)
    return sum(
        int(meal["MLSV_FGR"])
        for school in _district_schools(world, slots, "고등학교")
        for meal in _meals(world, school, first, last, "3")
    )


def school_semester_dinners(world: Any, as_of: str, slots: Mapping[str, Any]) -> int:
    school = _named_school(world, slots)
    return len(_meals(world, school, dt.date(2026, 3, 1), dt.date(2026, 7, 31), "3"))
