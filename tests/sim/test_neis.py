"""NEIS (open.neis.go.kr/hub): head/row envelope, paging, codes, school-code prerequisite, dated facts."""

from __future__ import annotations

import datetime as dt
import json
import xml.etree.ElementTree as ET

import httpx
from hypothesis import given, settings
from hypothesis import strategies as st

from kopa_replay.sim import SimTransport, Simulator
from kopa_replay.sim.world.schools import academic_year

BASE = "https://open.neis.go.kr/hub/"
_SIM = Simulator(seed=0)
_CLIENT = httpx.Client(transport=SimTransport(_SIM))


def _school(kind: str, sim: Simulator = _SIM):
    return next(s for s in sim.world.schools.by_office["B10"] if s.kind == kind)


HIGH, ELEMENTARY = _school("고등학교"), _school("초등학교")


def _get(service: str, client: httpx.Client = _CLIENT, **params) -> httpx.Response:
    params.setdefault("KEY", "sim-key")
    params.setdefault("Type", "json")
    return client.get(BASE + service, params=params)


def _rows(body: dict, service: str) -> tuple[int, list[dict]]:
    head, rows = body[service]
    return head["head"][0]["list_total_count"], rows["row"]


def test_envelope_is_head_then_rows_with_info_000():
    body = _get("schoolInfo", ATPT_OFCDC_SC_CODE="B10", pSize=3).json()
    assert list(body) == ["schoolInfo"]
    head, rows = body["schoolInfo"]
    assert head["head"][1]["RESULT"] == {"CODE": "INFO-000", "MESSAGE": "정상 처리되었습니다."}
    assert head["head"][0]["list_total_count"] == len(_SIM.world.schools.by_office["B10"])
    row = rows["row"][0]
    assert row["ATPT_OFCDC_SC_CODE"] == "B10" and row["LCTN_SC_NM"] == "서울특별시"
    assert len(row["SD_SCHUL_CODE"]) == 7 and row["SD_SCHUL_CODE"].isdigit()
    assert row["SCHUL_KND_SC_NM"] in ("초등학교", "중학교", "고등학교")
    assert row["ORG_RDNMA"].startswith("서울특별시 ")


def test_pages_differ_and_add_up_to_the_total():
    total, first = _rows(_get("schoolInfo", ATPT_OFCDC_SC_CODE="J10", pIndex=1, pSize=7).json(), "schoolInfo")
    _, second = _rows(_get("schoolInfo", ATPT_OFCDC_SC_CODE="J10", pIndex=2, pSize=7).json(), "schoolInfo")
    assert first != second
    codes = []
    for page in range(1, total // 7 + 2):
        response = _get("schoolInfo", ATPT_OFCDC_SC_CODE="J10", pIndex=page, pSize=7).json()
        if "RESULT" in response:
            break
        codes += [r["SD_SCHUL_CODE"] for r in _rows(response, "schoolInfo")[1]]
    assert len(codes) == total == len(set(codes))


@settings(max_examples=25, deadline=None)
@given(page=st.integers(1, 12), size=st.integers(1, 30))
def test_any_page_window_is_the_matching_slice_of_the_full_list(page, size):
    full = _rows(
        _get(
            "mealServiceDietInfo", ATPT_OFCDC_SC_CODE="B10", SD_SCHUL_CODE=HIGH.code, MLSV_YMD="202609", pSize=1000
        ).json(),
        "mealServiceDietInfo",
    )[1]
    response = _get(
        "mealServiceDietInfo",
        ATPT_OFCDC_SC_CODE="B10",
        SD_SCHUL_CODE=HIGH.code,
        MLSV_YMD="202609",
        pIndex=page,
        pSize=size,
    ).json()
    window = full[(page - 1) * size : page * size]
    assert (response.get("mealServiceDietInfo", [None, {"row": []}])[1]["row"] if window else []) == window
    if not window:
        assert response == {"RESULT": {"CODE": "INFO-200", "MESSAGE": "해당하는 데이터가 없습니다."}}


def test_page_size_over_1000_is_error_336():
    body = _get("schoolInfo", pSize=1001).json()
    assert body["RESULT"]["CODE"] == "ERROR-336"


def test_invalid_key_is_error_290_in_a_bare_result():
    body = _get("schoolInfo", KEY="wrong").json()
    assert body == {
        "RESULT": {
            "CODE": "ERROR-290",
            "MESSAGE": "인증키가 유효하지 않습니다. 인증키가 없는 경우, 홈페이지에서 인증키를 신청하십시오.",
        }
    }


def test_a_call_without_key_is_answered_as_a_sample_of_the_first_five_rows():
    keyed_total, keyed = _rows(_get("schoolInfo", ATPT_OFCDC_SC_CODE="B10", pSize=100).json(), "schoolInfo")
    for params in ({"KEY": None}, {"KEY": ""}):
        total, rows = _rows(_get("schoolInfo", ATPT_OFCDC_SC_CODE="B10", pSize=100, **params).json(), "schoolInfo")
        assert (total, rows) == (keyed_total, keyed[:5])
    _, second = _rows(_get("schoolInfo", KEY=None, ATPT_OFCDC_SC_CODE="B10", pIndex=2, pSize=3).json(), "schoolInfo")
    assert second == keyed[3:5]
    past = _get("schoolInfo", KEY=None, ATPT_OFCDC_SC_CODE="B10", pIndex=2, pSize=100).json()
    assert past["RESULT"]["CODE"] == "INFO-200"
    assert _get("schoolInfo", KEY="wrong").json()["RESULT"]["CODE"] == "ERROR-290"


def test_no_data_is_info_200_and_missing_school_code_is_error_300():
    assert _get("schoolInfo", SCHUL_NM="존재하지않는학교").json()["RESULT"]["CODE"] == "INFO-200"
    assert _get("mealServiceDietInfo", ATPT_OFCDC_SC_CODE="B10").json()["RESULT"]["CODE"] == "ERROR-300"


def test_a_school_name_in_place_of_the_code_matches_nothing(call):
    by_code = call(
        "neis_meal_service_diet_info", ATPT_OFCDC_SC_CODE="B10", SD_SCHUL_CODE=HIGH.code, MLSV_YMD="20260901"
    )
    by_name = call(
        "neis_meal_service_diet_info", ATPT_OFCDC_SC_CODE="B10", SD_SCHUL_CODE=HIGH.name, MLSV_YMD="20260901"
    )
    assert by_code.outcome == "ok" and by_name.outcome == "empty" and by_name.code == "INFO-200"
    wrong_office = call("neis_class_info", ATPT_OFCDC_SC_CODE="C10", SD_SCHUL_CODE=HIGH.code)
    assert wrong_office.outcome == "empty"


def test_xml_by_default_parses_with_elementtree():
    response = _get(
        "mealServiceDietInfo", Type=None, ATPT_OFCDC_SC_CODE="B10", SD_SCHUL_CODE=HIGH.code, MLSV_YMD="20260901"
    )
    root = ET.fromstring(response.content)
    assert root.tag == "mealServiceDietInfo"
    assert root.findtext("head/RESULT/CODE") == "INFO-000"
    rows = root.findall("row")
    assert int(root.findtext("head/list_total_count")) == len(rows) == 2  # 중식 and 석식 at a high school
    assert {r.findtext("MMEAL_SC_NM") for r in rows} == {"중식", "석식"}
    error = ET.fromstring(_get("schoolInfo", Type=None, KEY="x").content)
    assert error.tag == "RESULT" and error.findtext("CODE") == "ERROR-290"


def test_meals_are_school_days_only_and_published_to_the_end_of_the_month(call):
    result = call(
        "neis_meal_service_diet_info",
        ATPT_OFCDC_SC_CODE="B10",
        SD_SCHUL_CODE=ELEMENTARY.code,
        MLSV_FROM_YMD="20260701",
        MLSV_TO_YMD="20261231",
        pSize=1000,
    )
    days = sorted(
        {dt.date.fromisoformat(f"{r['MLSV_YMD'][:4]}-{r['MLSV_YMD'][4:6]}-{r['MLSV_YMD'][6:]}") for r in result.records}
    )
    assert all(d.weekday() < 5 for d in days)
    assert max(days) <= dt.date(2026, 9, 30)
    assert dt.date(2026, 9, 24) not in days  # 추석
    assert not [d for d in days if dt.date(2026, 7, 31) < d < dt.date(2026, 8, 14)]  # summer vacation
    assert all(r["MMEAL_SC_CODE"] == "2" for r in result.records)  # no dinner at elementary schools
    dish = result.records[0]["DDISH_NM"]
    assert "<br/>" in dish and "(" in dish
    assert result.records[0]["CAL_INFO"].endswith(" Kcal")


def test_timetables_serve_only_their_school_level(call):
    ok = call("neis_els_timetable", ATPT_OFCDC_SC_CODE="B10", SD_SCHUL_CODE=ELEMENTARY.code, ALL_TI_YMD="20260901")
    wrong = call("neis_els_timetable", ATPT_OFCDC_SC_CODE="B10", SD_SCHUL_CODE=HIGH.code, ALL_TI_YMD="20260901")
    assert ok.outcome == "ok" and wrong.outcome == "empty"
    assert {r["AY"] for r in ok.records} == {str(academic_year(dt.date(2026, 9, 1)))}
    future = call("neis_els_timetable", ATPT_OFCDC_SC_CODE="B10", SD_SCHUL_CODE=ELEMENTARY.code, ALL_TI_YMD="20260908")
    assert future.outcome == "empty"  # next week's timetable is not out yet


def test_class_list_feeds_the_timetable(call):
    classes = call("neis_class_info", ATPT_OFCDC_SC_CODE="B10", SD_SCHUL_CODE=HIGH.code, AY="2026")
    first = classes.records[0]
    timetable = call(
        "neis_his_timetable",
        ATPT_OFCDC_SC_CODE="B10",
        SD_SCHUL_CODE=HIGH.code,
        ALL_TI_YMD="20260901",
        GRADE=first["GRADE"],
        CLASS_NM=first["CLASS_NM"],
    )
    assert timetable.outcome == "ok"
    assert [r["PERIO"] for r in timetable.records] == [str(p) for p in range(1, len(timetable.records) + 1)]


def test_school_short_name_appears_after_the_october_drift(catalog):
    tool = catalog.get("neis_school_info")
    assert "SCHUL_ABRV_NM" not in tool.output_fields
    later = httpx.Client(transport=SimTransport(Simulator(seed=0, as_of="2026-10-02")))
    row = _rows(_get("schoolInfo", client=later, SD_SCHUL_CODE=HIGH.code).json(), "schoolInfo")[1][0]
    assert row["SCHUL_ABRV_NM"] == row["SCHUL_NM"]
    assert "SCHUL_ABRV_NM" not in _rows(_get("schoolInfo", SD_SCHUL_CODE=HIGH.code).json(), "schoolInfo")[1][0]


def test_same_seed_same_bytes_other_seed_other_schools():
    params = {"ATPT_OFCDC_SC_CODE": "B10", "pSize": 5}
    again = httpx.Client(transport=SimTransport(Simulator(seed=0)))
    other = httpx.Client(transport=SimTransport(Simulator(seed=1)))
    assert _get("schoolInfo", **params).content == _get("schoolInfo", client=again, **params).content
    assert _get("schoolInfo", **params).content != _get("schoolInfo", client=other, **params).content


def test_over_a_real_loopback_server(server_url):
    response = httpx.get(
        f"{server_url}/open.neis.go.kr/hub/SchoolSchedule",
        params={
            "KEY": "sim-key",
            "Type": "json",
            "ATPT_OFCDC_SC_CODE": "B10",
            "SD_SCHUL_CODE": HIGH.code,
            "AA_YMD": "202609",
        },
    )
    total, rows = _rows(json.loads(response.content), "SchoolSchedule")
    assert response.status_code == 200 and total == len(rows)
    assert {"토요휴업일", "추석"} <= {r["EVENT_NM"] for r in rows}
    assert all(r["AA_YMD"].startswith("202609") for r in rows)
