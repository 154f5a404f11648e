"""Schools of the 17 시도교육청 and what NEIS publishes about them.

Every school belongs to a real 시도 (its NEIS office code ``B10`` …) and sits
in a 시군구 of that 시도 from :mod:`regions`; its name is built from a 법정동
stem of that 시군구 (``서울역삼초등학교``, ``역삼여자중학교``). The static
facts (code, name, address, founding date) are drawn once per seed; the dated
facts — school days, meals, the academic calendar, classes and timetables —
are computed on demand from the school and the date, so a handler pays only for
the days it is asked about.

What exists at an as-of date (the simulator's decision, mirrored in the
catalog descriptions):

* meals: monthly menus are published at the start of the month, so meals exist
  up to the last day of the as-of month;
* the academic calendar (학사일정) is announced a month ahead: through the end
  of the month after the as-of month;
* timetables are weekly: through the Friday of the as-of week, and only for the
  running academic year (older years are not kept by the simulator);
* class lists: for every academic year that has started;
* the past-year timetables (the ``…Timetablebgs`` services NEIS keeps for the years before its 2023 system
  change): academic years 2020–2022 (:data:`ARCHIVE_YEARS`).

History starts with academic year 2024 (2024-03-01); the archive aside, nothing is kept before it.

How many schools: the small world draws ``schools_per_office`` per office with the kinds at the national
shares; a world of ``FULL_PER_OFFICE`` or more (the full preset) has each office's real count per kind
(:data:`OFFICE_SCHOOLS`: 6,183 elementary, 3,272 middle, 2,380 high and 351 other schools, the others
simulated as 특수학교). An office's schools are drawn the first time that office is asked about, so a call
about one school pays for its office at most once, never for the country.

A few *anchor* schools (:data:`ANCHOR_SCHOOLS`) exist in every world, whatever
the seed and size, because the catalog's examples and the documentation name
them by code; every other school is drawn from the seed.
"""

from __future__ import annotations

import calendar as _calendar
import datetime as dt
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, replace
from functools import cached_property, lru_cache
from typing import TYPE_CHECKING

import numpy as np

from kopa_replay.sim.world import stable_int
from kopa_replay.sim.world.calendar import HOLIDAYS, ymd
from kopa_replay.sim.world.fmt import data, frozen

if TYPE_CHECKING:
    from kopa_replay.sim.world import World
    from kopa_replay.sim.world.regions import Sido, Sigungu

__all__ = [
    "School",
    "SchoolWorld",
    "romanize",
    "academic_year",
    "HISTORY_START",
    "ARCHIVE_YEARS",
    "KINDS",
    "ANCHOR_SCHOOLS",
    "OFFICE_SCHOOLS",
    "SPECIAL_COURSES",
    "course",
]

_DATA = data("schools")  # the fact tables: counts per office, codes, names, dishes (their sources beside them there)

#: The first day of the simulated NEIS history (academic year 2024).
HISTORY_START = dt.date(2024, 3, 1)

#: The academic years the past-year timetables (``…Timetablebgs``) hold: before NEIS's 2023 system change.
ARCHIVE_YEARS = range(2020, 2023)

KINDS = frozen(_DATA["KINDS"])
#: a special school's courses (학교과정, SCHUL_CRSE_SC_NM) and their grades, in order
SPECIAL_COURSES = (("초등학교", 6), ("중학교", 3), ("고등학교", 3))
_KIND_ORDER = ("초등학교", "중학교", "고등학교", "특수학교")
#: the small world's draw of a school's kind (elementary, middle, high)
_DRAWN_KIND_SHARES = (0.5, 0.27, 0.23)
#: a world with this many schools per office or more has the real counts of OFFICE_SCHOOLS
FULL_PER_OFFICE = 700
OFFICE_SCHOOLS = frozen(_DATA["OFFICE_SCHOOLS"])

_OFFICE_FACTS = frozen(_DATA["_OFFICE_FACTS"])
_CODE_PREFIX = frozen(_DATA["_CODE_PREFIX"])
_GENERIC_STEMS = frozen(_DATA["_GENERIC_STEMS"])
_SPECIAL_STEMS = frozen(_DATA["_SPECIAL_STEMS"])
_HIGH_TYPES = frozen(_DATA["_HIGH_TYPES"])

ANCHOR_SCHOOLS = frozen(_DATA["ANCHOR_SCHOOLS"])

_SUBJECTS = frozen(_DATA["_SUBJECTS"])

_RICE = frozen(_DATA["_RICE"])
_SOUP = frozen(_DATA["_SOUP"])
_MAIN = frozen(_DATA["_MAIN"])
_SIDE = frozen(_DATA["_SIDE"])
_KIMCHI = (("배추김치", "9.13"), ("깍두기", "9.13"), ("총각김치", "9.13"), ("열무김치", "9.13"))
_DESSERT = frozen(_DATA["_DESSERT"])
_ORIGIN = "<br/>".join(_DATA["_ORIGIN"])

_FIXED_HOLIDAY_NAMES = {(month, day): name for month, day, name in _DATA["_FIXED_HOLIDAY_NAMES"]}
#: days the exchange closes but schools keep: 근로자의 날 and the last day of the year
_NOT_SCHOOL_HOLIDAYS = {(5, 1), (12, 31)}

# -- romanization -------------------------------------------------------------
_INITIALS = ("g", "kk", "n", "d", "tt", "r", "m", "b", "pp", "s", "ss", "", "j", "jj", "ch", "k", "t", "p", "h")
_MEDIALS = frozen(_DATA["_MEDIALS"])
_FINALS = frozen(_DATA["_FINALS"])


def romanize(text: str) -> str:
    """Hangul in Revised Romanization, syllable by syllable (no sound-change rules): 역삼 → yeoksam."""
    out = []
    for char in text:
        code = ord(char) - 0xAC00
        if 0 <= code < 11172:
            out.append(_INITIALS[code // 588] + _MEDIALS[(code % 588) // 28] + _FINALS[code % 28])
        else:
            out.append(char)
    return "".join(out)


def course(school: "School", grade: int) -> tuple[str, int]:
    """(학교과정, grade within it) of a grade: a school's own kind, or a special school's course."""
    if school.kind != "특수학교":
        return school.kind, grade
    for name, grades in SPECIAL_COURSES:
        if grade <= grades:
            return name, grade
        grade -= grades
    raise ValueError(f"a special school has no grade beyond {sum(g for _, g in SPECIAL_COURSES)}")


def academic_year(day: dt.date) -> int:
    """The Korean school year a date belongs to (it starts in March)."""
    return day.year if day.month >= 3 else day.year - 1


def _month_end(day: dt.date) -> dt.date:
    return day.replace(day=_calendar.monthrange(day.year, day.month)[1])


def _add_month(day: dt.date) -> dt.date:
    return (day.replace(day=1) + dt.timedelta(days=32)).replace(day=1)


def _closed(day: dt.date) -> bool:
    """A public holiday: the calendar's from 2024; before it (the archive years) the fixed-date ones only."""
    if day.year >= 2024:
        return day in HOLIDAYS
    return (day.month, day.day) in _FIXED_HOLIDAY_NAMES


def _first_weekday_on_or_after(day: dt.date) -> dt.date:
    while day.weekday() >= 5 or _closed(day):
        day += dt.timedelta(days=1)
    return day


@lru_cache(maxsize=None)
def holiday_name(day: dt.date) -> str:
    """A Korean public holiday's name as school calendars write it."""
    fixed = _FIXED_HOLIDAY_NAMES.get((day.month, day.day))
    if fixed:
        return fixed
    if day.weekday() == 0 and any(day - dt.timedelta(days=k) in HOLIDAYS for k in (1, 2)):
        return "대체공휴일"
    if day.month in (1, 2):
        return "설날"
    if day.month in (9, 10):
        return "추석"
    if day.month == 5:
        return "부처님오신날"
    if (day.month, day.day) in ((4, 10), (6, 3)):
        return "선거일"
    return "대체공휴일"


def school_holiday(day: dt.date) -> bool:
    return _closed(day) and (day.month, day.day) not in _NOT_SCHOOL_HOLIDAYS


@dataclass(frozen=True)
class Term:
    """One academic year of one school: semester bounds and its own days off."""

    ay: int
    first_start: dt.date  # 1학기 개학 (입학식)
    first_end: dt.date  # 여름방학식
    second_start: dt.date  # 2학기 개학
    second_end: dt.date  # 종업식 (early January)
    days_off: tuple[dt.date, ...]  # 개교기념일, 재량휴업일
    exams: tuple[tuple[str, dt.date, int], ...]  # (name, first day, number of days)
    field_trip: dt.date
    sports_day: dt.date

    def semester(self, day: dt.date) -> str | None:
        if self.first_start <= day <= self.first_end:
            return "1"
        if self.second_start <= day <= self.second_end:
            return "2"
        return None


@dataclass(frozen=True)
class School:
    code: str  # SD_SCHUL_CODE, 7 digits
    name: str  # SCHUL_NM
    english: str  # ENG_SCHUL_NM
    kind: str  # 초등학교 / 중학교 / 고등학교
    sido: "Sido"
    sigungu: "Sigungu"
    founding: str  # 공립 / 사립
    coedu: str  # 남여공학 / 남 / 여
    high_type: str | None  # 일반고 / 특성화고 …
    special_line: str | None  # 특목고 계열
    address: str  # ORG_RDNMA
    address_detail: str  # ORG_RDNDA
    postal: str
    tel: str
    fax: str
    homepage: str
    founded: dt.date
    students: int
    classes_per_grade: tuple[int, ...]

    @property
    def office(self) -> str:
        return self.sido.office

    @property
    def office_name(self) -> str:
        return f"{self.sido.name}교육청"

    @property
    def grades(self) -> int:
        return KINDS[self.kind][2]

    @property
    def timetable_service(self) -> str:
        return KINDS[self.kind][3]

    @property
    def support_office(self) -> str:
        """JU_ORG_NM: the 교육지원청 of the school's 시군구."""
        stem = self.sigungu.name[:-1] if len(self.sigungu.name) > 2 else self.sigungu.name
        return f"{self.sido.name}{stem}교육지원청"


class _Offices(Mapping):
    """office code → its schools, an office drawn when first read."""

    def __init__(self, schools: "SchoolWorld") -> None:
        self._schools = schools

    def __getitem__(self, office: str) -> tuple[School, ...]:
        if office not in self._schools.offices:
            raise KeyError(office)
        return self._schools.office_schools(office)

    def __iter__(self) -> Iterator[str]:
        return iter(self._schools.offices)

    def __len__(self) -> int:
        return len(self._schools.offices)


class SchoolWorld:
    """The seeded schools and their dated NEIS facts."""

    def __init__(self, world: "World") -> None:
        self._world = world
        self._terms: dict[tuple[str, int], Term] = {}
        self._plans: dict[tuple, tuple[tuple[str, ...], ...]] = {}
        self._offices: dict[str, tuple[School, ...]] = {}
        self._codes: dict[str, dict[str, School]] = {}
        self._drawn_codes: dict[str, set[str]] = {}

    # -- static facts ----------------------------------------------------------
    # An office's schools are drawn together (its own generator, names unique within it) the first time the
    # office is asked about. Codes are unique nationwide: offices that share a code prefix (C10 and D10 …)
    # draw in the regions' order, each avoiding the codes drawn before it.
    def office_counts(self, office: str) -> tuple[int, int, int, int] | None:
        """(elementary, middle, high, special) schools of an office in a full world; None in a smaller one,
        which draws ``schools_per_office`` schools with the kinds at the national shares."""
        if self._world.sizes.schools_per_office < FULL_PER_OFFICE:
            return None
        return OFFICE_SCHOOLS[office]

    def office_schools(self, office: str) -> tuple[School, ...]:
        """The schools of one office ordered by code; () for an unknown office."""
        if office not in self._offices:
            sido = self._sido_by_office.get(office)
            if sido is None:
                return ()
            self._offices[office] = tuple(sorted(self._draw_office(sido), key=lambda s: s.code))
        return self._offices[office]

    @cached_property
    def _sido_by_office(self) -> dict[str, "Sido"]:
        return {sido.office: sido for sido in self._world.regions.sido}

    @cached_property
    def offices(self) -> tuple[str, ...]:
        return tuple(sorted(self._sido_by_office))

    def sido(self, office: str) -> "Sido | None":
        """The 시도 of an office code (no school drawn)."""
        return self._sido_by_office.get(office)

    def school(self, office: str | None, code: str | None) -> School | None:
        """The school with a code (within an office when one is named), drawing only the offices its code
        prefix can belong to."""
        if not code:
            return None
        offices = [office] if office else [o for o in self.offices if code.startswith(str(_CODE_PREFIX[o]))]
        for name in offices:
            found = self._by_code(name).get(code)
            if found is not None:
                return found
        return None

    def _by_code(self, office: str) -> dict[str, School]:
        if office not in self._codes:
            self._codes[office] = {s.code: s for s in self.office_schools(office)}
        return self._codes[office]

    @property
    def schools(self) -> tuple[School, ...]:
        """Every school, ordered by office then code (draws every office)."""
        return tuple(school for office in self.offices for school in self.office_schools(office))

    @property
    def by_code(self) -> dict[str, School]:
        return {s.code: s for s in self.schools}

    @cached_property
    def by_office(self) -> Mapping[str, tuple[School, ...]]:
        """office → its schools, each office drawn when first read."""
        return _Offices(self)

    def _draw_office(self, sido: "Sido") -> list[School]:
        regions = self._world.regions
        office = sido.office
        # the codes offices before this one (in the regions' order) drew with the same prefix
        used_codes: set[str] = set()
        for other in regions.sido:
            if other.office == office:
                break
            if _CODE_PREFIX[other.office] == _CODE_PREFIX[office]:
                self.office_schools(other.office)
                used_codes |= self._drawn_codes[other.office]
        rng = self._world.rng("schools.directory", office)
        sigungus = regions.sigungu_of(sido)
        dongs = {sgg.code: regions.dongs_of(sgg) for sgg in sigungus}
        names: set[str] = set()
        counts = self.office_counts(office)
        kinds = rng.permutation(np.repeat(np.arange(4), counts)) if counts else None
        drawn: list[School] = []
        codes: set[str] = set()
        for i in range(len(kinds) if kinds is not None else self._world.sizes.schools_per_office):
            if kinds is not None:
                kind = _KIND_ORDER[int(kinds[i])]
            else:
                kind = _KIND_ORDER[int(rng.choice(3, p=_DRAWN_KIND_SHARES))]
            sgg = sigungus[int(rng.integers(len(sigungus)))]
            school = self._draw_school(rng, sido, sgg, dongs[sgg.code], kind, names, used_codes)
            codes.add(school.code)
            drawn.append(school)
        self._drawn_codes[office] = codes
        return self._place_anchors(sido, drawn)

    def _place_anchors(self, sido: "Sido", drawn: list[School]) -> list[School]:
        """The office's drawn schools with its anchor schools in place of as many of them (see ANCHOR_SCHOOLS)."""
        anchors = [a for a in ANCHOR_SCHOOLS if a["sigungu"][:2] == sido.code]
        if not anchors:
            return drawn
        out = list(drawn)
        # Whom each anchor replaces: the school with its code, else the one with its name, else the last
        # drawn school of its kind (else the last one left) — codes first, so no anchor takes another's match.
        places: dict[int, int] = {}  # anchor index -> index in out
        rules = (
            lambda spec, school: school.code == spec["code"],
            lambda spec, school: school.name == spec["name"],
            lambda spec, school: school.kind == spec["kind"],
            lambda spec, school: True,
        )
        for rule in rules:
            for a, spec in enumerate(anchors):
                if a in places:
                    continue
                free = [i for i, school in enumerate(out) if i not in places.values() and rule(spec, school)]
                if free:
                    places[a] = free[-1]
        regions = self._world.regions
        for a, i in places.items():
            spec = anchors[a]
            out[i] = School(sido=sido, **{**spec, "sigungu": regions.by_code[spec["sigungu"] + "00000"]})
        # A drawn school left with an anchor's name gets its 시군구 in front, as the drawing does when a stem is taken.
        anchored = {anchors[a]["name"] for a in places}
        used = {school.name for school in out}
        for i, school in enumerate(out):
            if i in places.values() or school.name not in anchored:
                continue
            stem = school.sigungu.name[:-1]
            name = stem + school.name if stem + school.name not in used else sido.short + stem + school.name
            used.add(name)
            out[i] = replace(school, name=name, english=f"{romanize(stem).capitalize()} {school.english}")
        return out

    def _draw_school(self, rng, sido, sgg, dongs, kind, names: set[str], used_codes: set[str]) -> School:
        office = sido.office
        while True:
            code = f"{_CODE_PREFIX[office]}{int(rng.integers(0, 100_000)):05d}"
            if code not in used_codes:
                used_codes.add(code)
                break
        coedu = "남여공학"
        if kind in ("중학교", "고등학교"):
            coedu = ("남여공학", "남", "여")[int(rng.choice(3, p=(0.7, 0.15, 0.15)))]
        high_type = special = None
        suffix, english_suffix = ("학교" if kind == "특수학교" else kind), KINDS[kind][1]
        if kind == "고등학교":
            high_type, suffix, english_suffix, special = _HIGH_TYPES[int(rng.integers(len(_HIGH_TYPES)))]
        if coedu == "여":
            suffix = "여자" + suffix
            english_suffix = "Girls' " + english_suffix
        # A place-name stem from the school's own 시군구, else a generic one; Seoul
        # elementary schools carry the 서울 prefix as the real ones do. Special schools take a word of their
        # own after the 시도's short name (서울정애학교).
        # A crowded 시군구 (the full world's) runs out of single stems: a second word then follows the first.
        for attempt in range(40):
            if kind == "특수학교":
                stem = _SPECIAL_STEMS[int(rng.integers(len(_SPECIAL_STEMS)))]
            elif dongs and rng.random() < 0.75:
                stem = dongs[int(rng.integers(len(dongs)))].name[:-1]
            else:
                stem = _GENERIC_STEMS[int(rng.integers(len(_GENERIC_STEMS)))]
            if attempt >= 12:
                stem += _GENERIC_STEMS[int(rng.integers(len(_GENERIC_STEMS)))]
            if attempt >= 6:
                stem = sgg.name[:-1] + stem
            prefix = sido.short if (office == "B10" and kind == "초등학교") or kind == "특수학교" else ""
            name = f"{prefix}{stem}{suffix}"
            if name not in names:
                names.add(name)
                break
        english_stem = " ".join(part.capitalize() for part in (romanize(prefix), romanize(stem)) if part)
        english = f"{english_stem} {english_suffix}"
        postal_lo, postal_hi = _OFFICE_FACTS[office][0]
        area = _OFFICE_FACTS[office][1]
        road = (dongs[int(rng.integers(len(dongs)))].name[:-1] if dongs else stem) + (
            "로" if rng.random() < 0.6 else f"{int(rng.integers(1, 40))}길"
        )
        dong_name = dongs[int(rng.integers(len(dongs)))].name if dongs else sgg.name
        number = int(rng.integers(1, 400))
        level = {"초등학교": "es", "중학교": "ms", "고등학교": "hs", "특수학교": "sc"}[kind]
        founded = dt.date(1920, 1, 1) + dt.timedelta(days=int(rng.integers(0, 37_000)))
        founded = founded.replace(month=3, day=1) if rng.random() < 0.6 else founded
        grades = KINDS[kind][2]
        # a special school's classes are small (a few pupils each) and one or two per grade
        base_classes = int(rng.integers(*{"초등학교": (2, 6), "특수학교": (1, 3)}.get(kind, (2, 9))))
        classes = tuple(max(1, base_classes + int(rng.integers(-1, 2))) for _ in range(grades))
        students = sum(classes) * int(rng.integers(*((4, 8) if kind == "특수학교" else (20, 29))))
        private_share = {"초등학교": 0.03, "중학교": 0.2, "고등학교": 0.4, "특수학교": 0.35}[kind]
        return School(
            code=code,
            name=name,
            english=english,
            kind=kind,
            sido=sido,
            sigungu=sgg,
            founding="사립" if rng.random() < private_share else "공립",
            coedu=coedu,
            high_type=high_type,
            special_line=special,
            address=f"{sido.name} {sgg.name} {road} {number}",
            address_detail=f"({dong_name})",
            postal=f"{int(rng.integers(postal_lo, postal_hi + 1)):02d}{int(rng.integers(0, 1000)):03d}",
            tel=f"{area}-{int(rng.integers(200, 999))}-{int(rng.integers(0, 10_000)):04d}",
            fax=f"{area}-{int(rng.integers(200, 999))}-{int(rng.integers(0, 10_000)):04d}",
            homepage=f"https://{romanize(stem)}.{_OFFICE_FACTS[office][2]}.{level}.kr",
            founded=founded,
            students=students,
            classes_per_grade=classes,
        )

    # -- the academic calendar -------------------------------------------------
    def term(self, school: School, ay: int) -> Term:
        """The school's academic year ``ay`` (March ``ay`` to February ``ay + 1``)."""
        key = (school.code, ay)
        if key not in self._terms:
            self._terms[key] = self._draw_term(school, ay)
        return self._terms[key]

    def _draw_term(self, school: School, ay: int) -> Term:
        rng = self._world.rng("schools.term", school.code, ay)
        first_start = _first_weekday_on_or_after(dt.date(ay, 3, 2))
        first_end = dt.date(ay, 7, 16) + dt.timedelta(days=int(rng.integers(0, 8)))
        second_start = _first_weekday_on_or_after(dt.date(ay, 8, 14) + dt.timedelta(days=int(rng.integers(0, 7))))
        second_end = dt.date(ay + 1, 1, 2) + dt.timedelta(days=int(rng.integers(0, 8)))
        while second_end.weekday() >= 5 or school_holiday(second_end):
            second_end -= dt.timedelta(days=1)
        anniversary = dt.date(
            ay if school.founded.month >= 3 else ay + 1, school.founded.month, min(school.founded.day, 28)
        )

        def around(month: int, day: int, spread: int, least: int = 0) -> dt.date:
            """The first school weekday on or after a date shifted by up to ``spread`` days."""
            shift = dt.timedelta(days=int(rng.integers(least, spread)))
            return _first_weekday_on_or_after(dt.date(ay, month, day) + shift)

        discretionary = (around(5, 2, 4), around(10, 9, 10, least=1))
        exams: tuple[tuple[str, dt.date, int], ...] = ()
        if school.kind in ("중학교", "고등학교"):
            exams = (
                ("1학기 중간고사", around(4, 22, 8), 3),
                ("1학기 기말고사", around(6, 30, 6), 4),
                ("2학기 중간고사", around(10, 13, 8), 3),
                ("2학기 기말고사", around(12, 1, 8), 4),
            )
        return Term(
            ay,
            first_start,
            first_end,
            second_start,
            second_end,
            tuple(sorted({anniversary, *discretionary})),
            exams,
            around(4, 15, 20),
            around(5, 12, 12),
        )

    def is_school_day(self, school: School, day: dt.date) -> bool:
        if day.weekday() >= 5 or school_holiday(day):
            return False
        term = self.term(school, academic_year(day))
        return term.semester(day) is not None and day not in term.days_off

    def school_days(
        self, school: School, start: dt.date, end: dt.date, floor: dt.date = HISTORY_START
    ) -> Iterator[dt.date]:
        """School days in [start, end] (and not before ``floor``), ascending."""
        day = max(start, floor)
        while day <= end:
            if self.is_school_day(school, day):
                yield day
            day += dt.timedelta(days=1)

    # -- what exists at an as-of date -------------------------------------------
    @staticmethod
    def meal_horizon(as_of: dt.date) -> dt.date:
        return _month_end(as_of)

    @staticmethod
    def schedule_horizon(as_of: dt.date) -> dt.date:
        return _month_end(_add_month(as_of))

    @staticmethod
    def archive_window() -> tuple[dt.date, dt.date]:
        """The days the past-year timetables (…Timetablebgs) hold: the school years of ARCHIVE_YEARS."""
        return dt.date(ARCHIVE_YEARS[0], 3, 1), dt.date(ARCHIVE_YEARS[-1] + 1, 2, 28)

    @staticmethod
    def timetable_window(as_of: dt.date) -> tuple[dt.date, dt.date]:
        friday = as_of + dt.timedelta(days=4 - as_of.weekday())  # a weekend looks back to its Friday
        return dt.date(academic_year(as_of), 3, 1), friday

    # -- meals -----------------------------------------------------------------
    def meals(self, school: School, day: dt.date) -> list[dict[str, str]]:
        """The meals served on a school day: 중식 everywhere, 석식 at high schools."""
        rng = self._world.rng("schools.meal", school.code, ymd(day))
        kinds = [("2", "중식")] + ([("3", "석식")] if school.kind == "고등학교" else [])
        base_kcal = {"초등학교": 640.0, "중학교": 790.0, "고등학교": 880.0, "특수학교": 700.0}[school.kind]
        out = []
        for code, label in kinds:
            courses = [_RICE, _SOUP, _MAIN, _SIDE, _KIMCHI] + ([_DESSERT] if rng.random() < 0.6 else [])
            dishes = []
            for course in courses:
                name, allergy = course[int(rng.integers(len(course)))]
                dishes.append(f"{name} ({allergy})" if allergy else name)
            kcal = base_kcal * (0.85 if code == "3" else 1.0) + float(rng.normal(0, 45))
            nutrients = (
                ("탄수화물(g)", 0.15),
                ("단백질(g)", 0.04),
                ("지방(g)", 0.025),
                ("비타민A(R.E)", 0.25),
                ("티아민(mg)", 0.0006),
                ("리보플라빈(mg)", 0.0007),
                ("비타민C(mg)", 0.02),
                ("칼슘(mg)", 0.35),
                ("철분(mg)", 0.004),
            )
            ntr = "<br/>".join(
                f"{label_} : {kcal * ratio * float(rng.uniform(0.85, 1.15)):.1f}" for label_, ratio in nutrients
            )
            out.append(
                {
                    "MMEAL_SC_CODE": code,
                    "MMEAL_SC_NM": label,
                    "MLSV_FGR": str(
                        int(school.students * float(rng.uniform(0.9, 0.99)))
                        if code == "2"
                        else int(school.students * float(rng.uniform(0.3, 0.6)))
                    ),
                    "DDISH_NM": "<br/>".join(dishes),
                    "ORPLC_INFO": _ORIGIN,
                    "CAL_INFO": f"{kcal:.1f} Kcal",
                    "NTR_INFO": ntr,
                }
            )
        return out

    # -- the academic calendar as NEIS lists it ------------------------------------
    def schedule(self, school: School, ay: int) -> list[tuple[dt.date, str, str]]:
        """(date, EVENT_NM, SBTR_DD_SC_NM) of academic year ``ay``, ascending by date."""
        term = self.term(school, ay)
        events: list[tuple[dt.date, str, str]] = []
        events.append((term.first_start, "입학식", "해당없음"))
        events.append((term.first_start, "1학기 개학식", "해당없음"))
        events.append((term.field_trip, "현장체험학습", "해당없음"))
        events.append((term.sports_day, "체육대회", "해당없음"))
        for name, start, days in term.exams:
            day, left = start, days
            while left:
                if day.weekday() < 5 and not school_holiday(day):
                    events.append((day, name, "해당없음"))
                    left -= 1
                day += dt.timedelta(days=1)
        events.append((term.first_end, "여름방학식", "해당없음"))
        events.append((term.second_start, "2학기 개학식", "해당없음"))
        events.append((term.second_end, "졸업식", "해당없음"))
        events.append((term.second_end, "종업식", "해당없음"))
        for off in term.days_off:
            month_day = (school.founded.month, min(school.founded.day, 28))
            events.append((off, "개교기념일" if (off.month, off.day) == month_day else "재량휴업일", "휴업일"))
        day, last = term.first_start, term.second_end
        while day <= last:
            if school_holiday(day) and day.weekday() < 5:
                events.append((day, holiday_name(day), "공휴일"))
            elif day.weekday() == 5 and term.semester(day):
                events.append((day, "토요휴업일", "휴업일"))
            elif term.first_end < day < term.second_start and day.weekday() < 5:
                events.append((day, "여름방학", "휴업일"))
            day += dt.timedelta(days=1)
        order = {name: i for i, name in enumerate(("입학식", "1학기 개학식"))}
        return sorted(events, key=lambda e: (e[0], order.get(e[1], 9), e[1]))

    # -- classes and timetables ------------------------------------------------------
    def classes(self, school: School, ay: int) -> list[tuple[int, int]]:
        """(grade, class number) of academic year ``ay``."""
        rng = self._world.rng("schools.classes", school.code, ay)
        out = []
        for grade, count in enumerate(school.classes_per_grade, start=1):
            count = max(1, count + int(rng.integers(-1, 2)) if rng.random() < 0.3 else count)
            out.extend((grade, number) for number in range(1, count + 1))
        return out

    def periods(self, school: School, grade: int) -> int:
        """Periods a day of a grade (a special school's grade counts through its courses: 1–12)."""
        kind, grade = course(school, grade)
        if kind == "초등학교":
            return 4 if grade <= 2 else 6 if grade >= 5 else 5
        return 6 if kind == "중학교" or school.kind == "특수학교" else 7

    def week_plan(self, school: School, ay: int, semester: str, grade: int, number: int) -> tuple[tuple[str, ...], ...]:
        """The class's subjects per weekday and period for one semester."""
        key = (school.code, ay, semester, grade, number)
        if key not in self._plans:
            self._plans[key] = self._draw_week_plan(school, ay, semester, grade, number)
        return self._plans[key]

    def _draw_week_plan(
        self, school: School, ay: int, semester: str, grade: int, number: int
    ) -> tuple[tuple[str, ...], ...]:
        rng = self._world.rng("schools.timetable", school.code, ay, semester, grade, number)
        lower = course(school, grade) == ("초등학교", 1) or course(school, grade) == ("초등학교", 2)
        key = school.kind + "_저" if lower and school.kind in ("초등학교", "특수학교") else school.kind
        pool = _SUBJECTS[key]
        periods = self.periods(school, grade)
        return tuple(tuple(pool[int(i)] for i in rng.integers(0, len(pool), size=periods)) for _ in range(5))

    # -- academies (학원·교습소, acaInsTiInfo) -----------------------------------------
    # Academies are made one by one from (office, index): how many an office has follows from the world's
    # size (seven per school slot: about 4,800 per office and 83,000 in all at "full", near the real count),
    # and the facts a call filters on (시군구, field of study) are cheap functions of the index, so a call
    # costs one pass over integers plus one page of records, whatever the world's size.
    def academy_count(self, office: str) -> int:
        return 7 * self._world.sizes.schools_per_office if office in _OFFICE_FACTS else 0

    @lru_cache(maxsize=32)  # noqa: B019 - one SchoolWorld per world, a handful of offices
    def _office_sigungu(self, office: str) -> tuple["Sigungu", ...]:
        return tuple(self._world.regions.sigungu_of(self._sido_by_office[office]))

    @lru_cache(maxsize=512)  # noqa: B019 - one SchoolWorld per world
    def _sigungu_dongs(self, sgg_code: str) -> tuple:
        return tuple(self._world.regions.dongs_of(self._world.regions.by_code[sgg_code + "00000"]))

    def academy_facts(self, office: str, index: int) -> tuple["Sigungu", tuple[str, str, str, str]]:
        """The 시군구 and the (REALM_SC_NM, LE_ORD_NM, LE_CRSE_LIST_NM, LE_CRSE_NM) of one academy: no drawing."""
        sigungus = self._office_sigungu(office)
        return sigungus[index % len(sigungus)], _ACADEMY_FIELDS[(index // len(sigungus)) % len(_ACADEMY_FIELDS)]

    def academy_name(self, office: str, index: int) -> tuple[str, bool]:
        """(ACA_NM, whether it is a 교습소) of one academy: a hash of its place, no drawing, so a name search
        over an office's academies stays cheap."""
        realm = self.academy_facts(office, index)[1][0]
        bits = stable_int("schools.academy.name", self._world.seed, office, index)
        tutoring = realm != "독서실" and bits % 10 < 3  # 교습소: one teacher, at most nine pupils at a time
        stem = _GENERIC_STEMS[(bits >> 8) % len(_GENERIC_STEMS)]
        words = _ACADEMY_WORDS[realm]
        word = words[(bits >> 16) % len(words)]
        if realm == "독서실":
            return f"{stem}{word}", False
        return f"{stem}{word}{'교습소' if tutoring else '학원'}", tutoring

    def academy(self, office: str, index: int) -> dict[str, str | None]:
        """One academy's acaInsTiInfo facts (without the office fields)."""
        sgg, (realm, order, course_list, subject) = self.academy_facts(office, index)
        name, tutoring = self.academy_name(office, index)
        rng = self._world.rng("schools.academy", office, index)
        founded = dt.date(1995, 1, 1) + dt.timedelta(days=int(rng.integers(0, 10_500)))  # by 2023-10
        registered = founded - dt.timedelta(days=int(rng.integers(0, 30)))
        closed = rng.random() < 0.04
        capacity = 9 if tutoring else int(rng.integers(3, 40)) * 10
        fee = int(rng.integers(8, 60)) * 10_000
        dongs = self._sigungu_dongs(sgg.code)
        dong = dongs[int(rng.integers(len(dongs)))].name if dongs else sgg.name
        postal_lo, postal_hi = _OFFICE_FACTS[office][0]
        return {
            "ADMST_ZONE_NM": sgg.name,
            "ACA_INSTI_SC_NM": "교습소" if tutoring else "학원",
            "ACA_ASNUM": academy_number(office, index),
            "ACA_NM": name,
            "ESTBL_YMD": ymd(founded),
            "REG_YMD": ymd(registered),
            "REG_STTUS_NM": "휴원" if closed else "개원",
            "CAA_BEGIN_YMD": ymd(dt.date(2023, 9, 1)) if closed else None,
            "CAA_END_YMD": ymd(dt.date(2026, 8, 31)) if closed else None,
            "TOFOR_SMTOT": str(capacity),
            "DTM_RCPTN_ABLTY_NMPR_SMTOT": str(capacity if tutoring else max(9, capacity // 3)),
            "REALM_SC_NM": realm,
            "LE_ORD_NM": order,
            "LE_CRSE_LIST_NM": course_list,
            "LE_CRSE_NM": subject,
            "PSNBY_THCC_CNTNT": f"{subject}:{fee:,}원",
            "THCC_OTHBC_YN": "Y",
            "BRHS_ACA_YN": "N",
            "FA_RDNZC": f"{int(rng.integers(postal_lo, postal_hi + 1)):02d}{int(rng.integers(0, 1000)):03d}",
            "FA_RDNMA": f"{sgg.sido.name} {sgg.name} {dong}로 {int(rng.integers(1, 300))}",
            "FA_RDNDA": f"{int(rng.integers(2, 6))}층 ({dong})",
        }


def academy_number(office: str, index: int) -> str:
    """ACA_ASNUM: the office's two-digit prefix and a running number (10 digits; unique within an office)."""
    return f"{_CODE_PREFIX[office]}{index + 1:08d}"


def academy_index(office: str, number: str) -> int | None:
    """The index of the academy numbered ``number`` in the office, or None."""
    prefix = str(_CODE_PREFIX.get(office, ""))
    if not prefix or len(number) != 10 or not number.isdigit() or not number.startswith(prefix):
        return None
    return int(number[2:]) - 1


_ACADEMY_FIELDS = frozen(_DATA["_ACADEMY_FIELDS"])
_ACADEMY_WORDS = frozen(_DATA["_ACADEMY_WORDS"])
