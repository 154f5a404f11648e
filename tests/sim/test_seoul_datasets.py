"""Seoul and Gyeonggi dataset services answered from the operation tables: windows from 0, identifier chains,
positional filters, per-구 copies of a LOCALDATA service, a realtime list cut from a register, the catalog."""

from __future__ import annotations

import json

import pytest

from kopa_replay.sim import Simulator
from kopa_replay.sim.tables import load_table

OPEN = "http://openapi.seoul.go.kr:8088"
GG = "https://openapi.gg.go.kr"


@pytest.fixture(scope="module")
def sim():
    return Simulator(seed=0, world_size="default")


def body(sim: Simulator, url: str) -> dict:
    response = sim.get(url)
    assert response.status == 200
    return json.loads(response.body)


def rows(sim: Simulator, path: str) -> list[dict]:
    service = path.split("/")[3]
    return body(sim, OPEN + path)[service]["row"]


def test_a_window_from_zero_reads_from_the_first_row_with_the_sample_key_too(sim):
    # clients send 0 (seoul-py with the sample key: /sample/json/RealtimeCityAir/0/5 answered five rows)
    from_zero = rows(sim, "/sample/json/RealtimeCityAir/0/5")
    assert from_zero == rows(sim, "/sample/json/RealtimeCityAir/1/5") and len(from_zero) == 5
    assert len(rows(sim, "/sim-key/json/TbPublicWifiInfo/0/1000")) == 1000  # 0–1000 is rows 1–1000, not 1001
    assert body(sim, OPEN + "/sample/json/RealtimeCityAir/0/6")["RESULT"]["CODE"] == "ERROR-335"
    assert body(sim, OPEN + "/sim-key/json/RealtimeCityAir/-1/5")["RESULT"]["CODE"] == "ERROR-331"
    assert body(sim, OPEN + "/sim-key/json/RealtimeCityAir/0/0")["RESULT"]["CODE"] == "ERROR-332"


def test_cultural_events_filter_by_position_and_keep_their_period_consistent(sim):
    concerts = rows(sim, "/sim-key/json/culturalEventInfo/1/1000/콘서트")
    assert concerts and {r["CODENAME"] for r in concerts} == {"콘서트"}
    for r in concerts:
        first, last = r["DATE"].split("~")
        assert r["STRTDATE"] == f"{first} 00:00:00.0" and r["END_DATE"] == f"{last} 00:00:00.0"
        assert r["RGSTDATE"] < first <= last
        assert 37 < float(r["LAT"]) < 38 and 126 < float(r["LOT"]) < 128  # LAT holds the latitude
    day = concerts[0]["DATE"][:10]
    on_day = rows(sim, f"/sim-key/json/culturalEventInfo/1/1000/ / /{day}")
    assert on_day and all(day in r["DATE"] for r in on_day)
    word = concerts[0]["TITLE"].split()[-1]
    assert all(word in r["TITLE"] for r in rows(sim, f"/sim-key/json/culturalEventInfo/1/1000//{word}"))


def test_events_registered_after_the_as_of_date_are_not_listed_yet():
    early = Simulator(seed=0, as_of="2024-01-01", world_size="default")
    later = Simulator(seed=0, as_of="2026-01-01", world_size="default")
    path = "/sim-key/json/culturalEventInfo/1/1000"
    before, after = rows(early, path), rows(later, path)
    assert all(r["RGSTDATE"] < "2024-01-01" for r in before) and len(before) < len(after)
    assert {r["HMPG_ADDR"] for r in before} <= {r["HMPG_ADDR"] for r in after}


def test_a_reservation_closes_when_its_reception_ends(sim):
    courts = rows(sim, "/sim-key/json/ListPublicReservationSport/1/1000/테니스장")
    assert courts and {r["MINCLASSNM"] for r in courts} == {"테니스장"}
    as_of = sim.as_of.isoformat()
    for r in courts:
        assert r["RCPTBGNDT"] <= r["RCPTENDDT"] <= r["SVCOPNBGNDT"] <= r["SVCOPNENDDT"]
        assert r["SVCSTATNM"] == ("접수종료" if r["RCPTENDDT"][:10] < as_of else "접수중")
        assert r["SVCURL"].endswith(r["SVCID"])


def test_live_car_parks_are_the_registers_lots_that_report_occupancy(sim):
    register = {r["PKLT_CD"]: r for r in rows(sim, "/sim-key/json/GetParkInfo/1/1000")}
    live = rows(sim, "/sim-key/json/GetParkingInfo/1/1000")
    assert live and len(live) < len(register)
    for r in live:
        lot = register[r["PKLT_CD"]]  # the identifier chain: realtime → register by PKLT_CD
        assert lot["PRK_NOW_INFO_PVSN_YN"] == "1" and (lot["PKLT_NM"], lot["TPKCT"]) == (r["PKLT_NM"], r["TPKCT"])
        assert isinstance(r["TPKCT"], float) and 0 <= r["NOW_PRK_VHCL_CNT"] <= r["TPKCT"]
        assert r["NOW_PRK_VHCL_UPDT_TM"].startswith(sim.as_of.isoformat())
    dong = next(iter(register.values()))["ADDR"].split()[1]
    assert all(dong in r["ADDR"] for r in rows(sim, f"/sim-key/json/GetParkInfo/1/1000/{dong}"))


def test_a_localdata_service_is_also_published_per_gu(sim):
    everything = rows(sim, "/sim-key/json/LOCALDATA_020301/1/1000")
    gangnam = rows(sim, "/sim-key/json/LOCALDATA_020301_GN/1/1000")
    jongno = body(sim, OPEN + "/sim-key/json/LOCALDATA_020301_JN/1/5")
    assert list(jongno) == ["LOCALDATA_020301_JN"]  # the root is the service id called
    assert gangnam and {r["OPNSFTEAMCODE"] for r in gangnam} == {"3220000"}
    assert gangnam == [r for r in everything if r["OPNSFTEAMCODE"] == "3220000"]
    assert all(r["RDNWHLADDR"].split()[1] == "강남구" for r in gangnam)
    open_only = rows(sim, "/sim-key/json/LOCALDATA_020301_GN/1/1000/01")
    assert open_only and {(r["TRDSTATEGBN"], r["DCBYMD"]) for r in open_only} == {("01", "")}
    closed = [r for r in gangnam if r["TRDSTATEGBN"] == "03"]
    assert all(r["TRDSTATENM"] == "폐업" and r["APVPERMYMD"] < r["DCBYMD"] for r in closed)
    assert all(r["MGTNO"].startswith(f"3220000-121-{r['APVPERMYMD'][:4]}-") for r in gangnam)


def test_station_register_finds_a_station_on_every_line_through_it(sim):
    seoul = rows(sim, "/sim-key/json/SearchInfoBySubwayNameService/1/10/서울역")
    assert {r["LINE_NUM"] for r in seoul} >= {"01호선", "04호선"}
    line4 = rows(sim, "/sim-key/json/SearchSTNBySubwayLineInfo/1/100/ / /4호선")
    assert {r["LINE_NUM"] for r in line4} == {"04호선"} and any(r["STATION_NM"] == "서울역" for r in line4)
    code = seoul[0]["STATION_CD"]
    assert rows(sim, f"/sim-key/json/SearchSTNBySubwayLineInfo/1/5/{code}") == [seoul[0]]
    assert rows(sim, "/sim-key/json/SearchInfoBySubwayNameService/1/5/강남")[0]["STATION_NM_ENG"] == "Gangnam"


def test_the_catalog_service_lists_the_tables_datasets(sim):
    listed = {r["INF_ID"] for r in rows(sim, "/sim-key/json/SearchCatalogService/1/1000")}
    table = {op.options["inf_id"] for op in load_table("seoul").operations if op.options.get("inf_id")}
    assert listed == table and "OA-15486" in listed
    live = rows(sim, "/sim-key/json/SearchCatalogService/1/5/OA-21709")
    assert [r["CHNG_LOAD_NM"] for r in live] == ["실시간"]


def test_gyeonggi_rows_send_numbers_where_the_portal_does_and_filter_by_part_of_a_name(sim):
    toilets = body(sim, GG + "/Publtolt?KEY=sim-key&Type=json&pSize=20&SIGUN_NM=수원시")["Publtolt"][1]["row"]
    assert toilets and {r["SIGUN_CD"] for r in toilets} == {"41110"}
    assert all(isinstance(r["MALE_WTRCLS_CNT"], int) and isinstance(r["REFINE_WGS84_LAT"], float) for r in toilets)
    shops = body(sim, GG + "/RegionMnyFacltStus?KEY=sim-key&Type=json&pSize=1000&SIGUN_CD=41110")
    names = shops["RegionMnyFacltStus"][1]["row"]
    word = names[0]["CMPNM_NM"][-2:]
    found = body(sim, GG + f"/RegionMnyFacltStus?KEY=sim-key&Type=json&pSize=1000&SIGUN_CD=41110&CMPNM_NM={word}")
    assert {r["CMPNM_NM"] for r in found["RegionMnyFacltStus"][1]["row"]} == {
        r["CMPNM_NM"] for r in names if word in r["CMPNM_NM"]
    }


def test_hourly_ridership_serves_months_that_are_over_per_line_and_station(sim):
    assert body(sim, OPEN + "/sim-key/json/CardSubwayTime/1/5/202608")["RESULT"]["CODE"] == "INFO-200"  # loading
    (gangnam,) = rows(sim, "/sim-key/json/CardSubwayTime/1/5/202607/2호선/강남")
    hours = [k for k in gangnam if k.startswith("HR_")]
    assert len(hours) == 48 and hours[0] == "HR_4_GET_ON_NOPE" and hours[-1] == "HR_3_GET_OFF_NOPE"
    assert all(isinstance(gangnam[k], int) and gangnam[k] >= 0 for k in hours)
    assert gangnam["HR_8_GET_ON_NOPE"] > gangnam["HR_3_GET_ON_NOPE"] and gangnam["JOB_YMD"] > "20260731"
    daily = rows(sim, "/sim-key/json/CardSubwayStatsNew/1/1000/20260715")
    assert {(r["SBWY_ROUT_LN_NM"], r["SBWY_STNS_NM"]) for r in daily} == {
        (r["SBWY_ROUT_LN_NM"], r["STTN"]) for r in rows(sim, "/sim-key/json/CardSubwayTime/1/1000/202607")
    }  # the same line and station names as the daily dataset
