"""NEIS services of the operation table: tracks, classrooms, academies, the four timetables (special schools
too) and the past-year timetables; the school directory's size; neispy against `sim serve`."""

from __future__ import annotations

import asyncio
import xml.etree.ElementTree as ET

import httpx
import pytest

from kopa_replay.sim import SimTransport, Simulator, running_server
from kopa_replay.sim.world import World
from kopa_replay.sim.world.schools import ARCHIVE_YEARS, OFFICE_SCHOOLS, SPECIAL_COURSES

BASE = "https://open.neis.go.kr/hub/"
_SIM = Simulator(seed=0, world_size="default")
_CLIENT = httpx.Client(transport=SimTransport(_SIM))
_SCHOOLS = _SIM.world.schools.by_office["B10"]


def _first(kind: str, high_type: str | None = None):
    return next(s for s in _SCHOOLS if s.kind == kind and (high_type is None or s.high_type == high_type))


HIGH, MIDDLE, ELEMENTARY, SPECIAL = (_first(k) for k in ("고등학교", "중학교", "초등학교", "특수학교"))


def _get(service: str, **params) -> dict:
    params = {"KEY": "sim-key", "Type": "json", **params}
    return _CLIENT.get(BASE + service, params=params).json()


def _rows(body: dict, name: str) -> tuple[int, list[dict]]:
    assert name in body, body
    head, rows = body[name]
    return head["head"][0]["list_total_count"], rows["row"]


def _code(body: dict) -> str:
    return body["RESULT"]["CODE"]


def _all(service: str, name: str | None = None, **params) -> list[dict]:
    total, rows = _rows(_get(service, pSize=1000, **params), name or service)
    assert total == len(rows)
    return rows


# -- 학교학과정보 / 학교계열정보 ---------------------------------------------------------------------
def test_tracks_list_every_high_school_of_the_office_without_a_school_code():
    majors = _all("schoolMajorinfo", ATPT_OFCDC_SC_CODE="B10")
    highs = {s.code for s in _SCHOOLS if s.kind == "고등학교"}
    assert {r["SD_SCHUL_CODE"] for r in majors} == highs
    tracks = _all("schulAflcoinfo", ATPT_OFCDC_SC_CODE="B10")
    assert [(r["SD_SCHUL_CODE"], r["ORD_SC_NM"]) for r in tracks] == [
        (r["SD_SCHUL_CODE"], r["ORD_SC_NM"]) for r in majors
    ]
    assert "DDDEP_NM" not in tracks[0] and majors[0]["DDDEP_NM"]


def test_a_track_filter_keeps_its_rows_and_other_school_levels_have_none():
    majors = _all("schoolMajorinfo", ATPT_OFCDC_SC_CODE="B10")
    for track in {r["ORD_SC_NM"] for r in majors}:
        kept = _all("schoolMajorinfo", ATPT_OFCDC_SC_CODE="B10", ORD_SC_NM=track)
        assert kept == [r for r in majors if r["ORD_SC_NM"] == track]
    assert _code(_get("schoolMajorinfo", ATPT_OFCDC_SC_CODE="B10", SD_SCHUL_CODE=MIDDLE.code)) == "INFO-200"
    assert _code(_get("schoolMajorinfo", SD_SCHUL_CODE=HIGH.code)) == "ERROR-300"  # the office is required


def test_a_department_is_the_one_the_class_list_names():
    (major,) = _all("schoolMajorinfo", ATPT_OFCDC_SC_CODE="B10", SD_SCHUL_CODE=HIGH.code)
    classes = _all("classInfo", ATPT_OFCDC_SC_CODE="B10", SD_SCHUL_CODE=HIGH.code, AY="2026")
    assert {(c["ORD_SC_NM"], c["DDDEP_NM"]) for c in classes} == {(major["ORD_SC_NM"], major["DDDEP_NM"])}


# -- 시간표강의실정보 --------------------------------------------------------------------------------
def test_classrooms_are_the_classes_of_each_semester_begun():
    rooms = _all("tiClrminfo", ATPT_OFCDC_SC_CODE="B10", SD_SCHUL_CODE=HIGH.code, AY="2026")
    classes = _all("classInfo", ATPT_OFCDC_SC_CODE="B10", SD_SCHUL_CODE=HIGH.code, AY="2026")
    by_semester = {sem: [(r["GRADE"], r["CLRM_NM"]) for r in rooms if r["SEM"] == sem] for sem in ("1", "2")}
    assert by_semester["1"] == by_semester["2"] == [(c["GRADE"], c["CLASS_NM"]) for c in classes]
    early = Simulator(seed=0, world_size="default", as_of="2026-05-04")
    body = httpx.Client(transport=SimTransport(early)).get(
        BASE + "tiClrminfo",
        params={
            "KEY": "sim-key",
            "Type": "json",
            "ATPT_OFCDC_SC_CODE": "B10",
            "SD_SCHUL_CODE": HIGH.code,
            "AY": "2026",
        },
    )
    assert {r["SEM"] for r in _rows(body.json(), "tiClrminfo")[1]} == {"1"}


# -- 학원교습소정보 ----------------------------------------------------------------------------------
def test_academies_filter_by_district_name_and_number():
    page = _rows(_get("acaInsTiInfo", ATPT_OFCDC_SC_CODE="C10", pSize=5), "acaInsTiInfo")
    total, rows = page
    assert total > len(rows) == 5
    first = rows[0]
    (same,) = _all("acaInsTiInfo", ATPT_OFCDC_SC_CODE="C10", ACA_ASNUM=first["ACA_ASNUM"])
    assert same == first
    district = _all("acaInsTiInfo", ATPT_OFCDC_SC_CODE="C10", ADMST_ZONE_NM=first["ADMST_ZONE_NM"])
    assert first in district and {r["ADMST_ZONE_NM"] for r in district} == {first["ADMST_ZONE_NM"]}
    named = _all("acaInsTiInfo", ATPT_OFCDC_SC_CODE="C10", ACA_NM="피아노")
    assert named and all("피아노" in r["ACA_NM"] for r in named)
    assert _code(_get("acaInsTiInfo", ATPT_OFCDC_SC_CODE="C10", ACA_ASNUM="0000000001")) == "INFO-200"


# -- 특수학교시간표 -----------------------------------------------------------------------------------
def test_the_special_school_timetable_serves_special_schools_only_by_course():
    day = {"ATPT_OFCDC_SC_CODE": "B10", "ALL_TI_YMD": "20260901"}
    rows = _all("spsTimetable", SD_SCHUL_CODE=SPECIAL.code, **day)
    courses = {name: grades for name, grades in SPECIAL_COURSES}
    assert {r["SCHUL_CRSE_SC_NM"] for r in rows} == set(courses)
    assert all(1 <= int(r["GRADE"]) <= courses[r["SCHUL_CRSE_SC_NM"]] for r in rows)
    middle = _all("spsTimetable", SD_SCHUL_CODE=SPECIAL.code, SCHUL_CRSE_SC_NM="중학교", **day)
    assert middle == [r for r in rows if r["SCHUL_CRSE_SC_NM"] == "중학교"]
    assert _code(_get("spsTimetable", SD_SCHUL_CODE=ELEMENTARY.code, **day)) == "INFO-200"
    assert _code(_get("elsTimetable", SD_SCHUL_CODE=SPECIAL.code, **day)) == "INFO-200"
    # the special school's classes are classInfo's, course by course
    classes = _all("classInfo", ATPT_OFCDC_SC_CODE="B10", SD_SCHUL_CODE=SPECIAL.code, AY="2026")
    slots = {(r["SCHUL_CRSE_SC_NM"], r["GRADE"], r["CLASS_NM"]) for r in rows}
    assert slots == {(c["SCHUL_CRSE_SC_NM"], c["GRADE"], c["CLASS_NM"]) for c in classes}


def test_a_timetable_page_is_the_slice_of_the_whole_list():
    query = {"ATPT_OFCDC_SC_CODE": "B10", "SD_SCHUL_CODE": ELEMENTARY.code, "TI_FROM_YMD": "20260828"}
    whole = _all("elsTimetable", **query)
    total, page = _rows(_get("elsTimetable", pIndex=4, pSize=37, **query), "elsTimetable")
    assert total == len(whole) and page == whole[3 * 37 : 4 * 37]
    third = _all("elsTimetable", PERIO="3", GRADE="2", **query)
    assert third == [r for r in whole if r["PERIO"] == "3" and r["GRADE"] == "2"]


# -- 과거연도 시간표 (…Timetablebgs) -------------------------------------------------------------------
@pytest.mark.parametrize(
    "service, school", [("elsTimetable", ELEMENTARY), ("misTimetable", MIDDLE), ("hisTimetable", HIGH)]
)
def test_past_years_answer_under_the_current_service_name_and_only_before_2023(service, school):
    query = {"ATPT_OFCDC_SC_CODE": "B10", "SD_SCHUL_CODE": school.code, "GRADE": "1", "CLASS_NM": "1"}
    rows = _all(service + "bgs", service, ALL_TI_YMD="202209", **query)
    assert {r["ALL_TI_YMD"][:6] for r in rows} == {"202209"} and {r["AY"] for r in rows} == {"2022"}
    assert _code(_get(service + "bgs", ALL_TI_YMD="20260901", **query)) == "INFO-200"
    assert _code(_get(service, ALL_TI_YMD="20220913", **query)) == "INFO-200"  # the running years keep none
    years = _rows(_get(service + "bgs", pSize=1, **query), service)
    assert years[1][0]["AY"] == str(ARCHIVE_YEARS[0])
    xml = _CLIENT.get(BASE + service + "bgs", params={"KEY": "sim-key", **query, "AY": "2021", "pSize": 2})
    assert ET.fromstring(xml.content).tag == service


def test_a_past_year_timetable_of_another_school_level_is_no_data():
    query = {"ATPT_OFCDC_SC_CODE": "B10", "SD_SCHUL_CODE": HIGH.code, "AY": "2021"}
    assert _code(_get("elsTimetablebgs", **query)) == "INFO-200"
    assert _rows(_get("spsTimetablebgs", **{**query, "SD_SCHUL_CODE": SPECIAL.code}), "spsTimetable")[0] > 0


# -- the school directory's size -------------------------------------------------------------------
def test_the_full_world_has_the_real_counts_and_draws_one_office_at_a_time(unbuilt_worlds):
    assert [sum(c[k] for c in OFFICE_SCHOOLS.values()) for k in range(4)] == [6183, 3272, 2380, 351]
    schools = World(0, "full").schools
    sejong = schools.office_schools("I10")
    assert len(sejong) == sum(OFFICE_SCHOOLS["I10"]) and list(schools._offices) == ["I10"]
    kinds = [sum(1 for s in sejong if s.kind == k) for k in ("초등학교", "중학교", "고등학교", "특수학교")]
    assert tuple(kinds) == OFFICE_SCHOOLS["I10"]
    # a code is looked up in the offices its prefix can belong to, and codes stay unique across them
    daegu = schools.office_schools("D10")
    assert {s.code for s in daegu}.isdisjoint(s.code for s in schools.office_schools("C10"))
    assert schools.school(None, daegu[0].code) == daegu[0] and schools.school("C10", daegu[0].code) is None
    assert len({s.name for s in daegu}) == len(daegu)


def test_the_small_world_keeps_forty_schools_an_office():
    assert {len(schools) for schools in _SIM.world.schools.by_office.values()} == {40}


# -- neispy (SaidBySolo) against the server `kopa-replay sim serve` runs ----------------------------
@pytest.fixture(scope="module")
def served():
    # the loopback server of `sim serve` in a thread (tests/clients starts the CLI itself; here the process's
    # already loaded registry saves a second start)
    pytest.importorskip("neispy")
    with running_server(Simulator(seed=0, world_size="default", as_of="2026-09-01")) as url:
        yield url


@pytest.mark.filterwarnings("ignore::DeprecationWarning")
def test_neispy_calls_every_service_it_has_a_method_for(served, monkeypatch):
    from neispy import Neispy
    from neispy.http import NeispyRequest

    monkeypatch.setattr(NeispyRequest, "BASE", f"{served}/open.neis.go.kr/hub")
    office = {"ATPT_OFCDC_SC_CODE": "B10"}
    calls = {
        "schoolInfo": dict(office, SCHUL_NM="고등학교"),
        "mealServiceDietInfo": dict(office, SD_SCHUL_CODE=HIGH.code, MLSV_YMD="202608"),
        "SchoolSchedule": dict(office, SD_SCHUL_CODE=HIGH.code, AA_YMD="202609"),
        "acaInsTiInfo": dict(office, LE_CRSE_NM="영어"),
        "classInfo": dict(office, SD_SCHUL_CODE=HIGH.code, AY="2026"),
        "schoolMajorinfo": dict(office, SD_SCHUL_CODE=HIGH.code),
        "schulAflcoinfo": dict(office, SD_SCHUL_CODE=HIGH.code),
        "tiClrminfo": dict(office, SD_SCHUL_CODE=HIGH.code, AY="2026"),
        "elsTimetable": dict(office, SD_SCHUL_CODE=ELEMENTARY.code, ALL_TI_YMD="20260901"),
        "misTimetable": dict(office, SD_SCHUL_CODE=MIDDLE.code, ALL_TI_YMD="20260901"),
        "hisTimetable": dict(office, SD_SCHUL_CODE=HIGH.code, ALL_TI_YMD="20260901"),
        "spsTimetable": dict(office, SD_SCHUL_CODE=SPECIAL.code, ALL_TI_YMD="20260901"),
    }
    # a year before 2023 sends neispy to the past-year service (…Timetablebgs)
    past = {
        "elsTimetable": dict(office, SD_SCHUL_CODE=ELEMENTARY.code, AY="2022", ALL_TI_YMD="20220913"),
        "spsTimetable": dict(office, SD_SCHUL_CODE=SPECIAL.code, AY="2021", ALL_TI_YMD="20211013"),
    }

    async def go():
        client = Neispy("sim-key", pSize=1000)
        try:
            out = {}
            for method, params in [*calls.items(), *((m + " (past)", p) for m, p in past.items())]:
                answer = await getattr(client, method.split()[0])(**params)
                out[method] = next(iter(vars(answer).values()))[1].row
            return out
        finally:
            await client.session.close()

    answers = asyncio.run(go())
    # neispy builds a dataclass of exactly its documented fields per row: a field too many or too few fails
    assert all(answers.values()), [method for method, rows in answers.items() if not rows]
    assert {r.SD_SCHUL_CODE for r in answers["spsTimetable"]} == {SPECIAL.code}
    assert {r.AY for r in answers["elsTimetable (past)"]} == {"2022"}
    assert {r.AY for r in answers["spsTimetable (past)"]} == {"2021"}
