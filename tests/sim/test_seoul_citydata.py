"""Seoul's realtime city data (citydata, citydata_ppltn): one nested hot-spot area, dotted result keys."""

from __future__ import annotations

import json

import httpx
import pytest

from kopa_replay.catalog import builtin_catalog
from kopa_replay.env import execute
from kopa_replay.env.parse import lookup
from kopa_replay.sim import SimTransport, Simulator
from kopa_replay.sim.platforms.seoul import seoul_citydata  # the platform module first: it loads this one

AREAS = seoul_citydata.AREAS

BASE = "http://openapi.seoul.go.kr:8088"


@pytest.fixture(scope="module")
def sim():
    return Simulator(seed=0, as_of="2026-08-25")


def _get(sim, path: str) -> dict:
    response = sim.get(BASE + path)
    assert response.status == 200
    return json.loads(response.body)


def test_the_area_list_is_the_portals():
    codes = [a[0] for a in AREAS]
    assert len(AREAS) == 121 and len(set(codes)) == 121 and codes == sorted(codes)
    assert {a[2] for a in AREAS} == {"관광특구", "고궁·문화유산", "인구밀집지역", "발달상권", "공원"}
    assert ("POI009", "광화문·덕수궁") in {(a[0], a[1]) for a in AREAS}


def test_citydata_answers_one_nested_area_by_name_or_code(sim):
    by_name = _get(sim, "/sim-key/json/citydata/1/5/강남역")
    by_code = _get(sim, "/sim-key/json/citydata/1/5/POI014")
    assert by_name == by_code
    assert list(by_name)[:2] == ["list_total_count", "RESULT"] and by_name["list_total_count"] == 1
    assert by_name["RESULT"]["RESULT.CODE"] == "INFO-000"
    city = by_name["CITYDATA"]
    assert (city["AREA_NM"], city["AREA_CD"]) == ("강남역", "POI014")
    assert isinstance(city["LIVE_PPLTN_STTS"], list) and len(city["LIVE_PPLTN_STTS"]) == 1
    assert set(city["ROAD_TRAFFIC_STTS"]) == {"AVG_ROAD_DATA", "ROAD_TRAFFIC_STTS"}
    assert city["ROAD_TRAFFIC_STTS"]["AVG_ROAD_DATA"]["ROAD_TRAFFIC_IDX"] in ("원활", "서행", "정체")
    assert int(city["LIVE_SUB_PPLTN"]["SUB_STN_CNT"]) == len(city["SUB_STTS"]) >= 1


def test_population_agrees_between_the_two_services_and_follows_the_date(sim):
    full = _get(sim, "/sim-key/json/citydata/1/5/POI072")["CITYDATA"]["LIVE_PPLTN_STTS"][0]
    light = _get(sim, "/sim-key/json/citydata_ppltn/1/5/여의도")
    assert "list_total_count" not in light and light["RESULT"]["RESULT.CODE"] == "INFO-000"
    assert light["SeoulRtd.citydata_ppltn"] == [full]
    assert full["PPLTN_TIME"] == "2026-08-25 08:30"
    assert full["AREA_CONGEST_LVL"] in ("여유", "보통", "약간 붐빔", "붐빔")
    assert int(full["AREA_PPLTN_MIN"]) < int(full["AREA_PPLTN_MAX"])
    assert abs(float(full["MALE_PPLTN_RATE"]) + float(full["FEMALE_PPLTN_RATE"]) - 100) < 0.05
    later = Simulator(seed=0, as_of="2026-08-26").get(BASE + "/sim-key/json/citydata_ppltn/1/5/여의도")
    assert json.loads(later.body)["SeoulRtd.citydata_ppltn"][0]["PPLTN_TIME"] == "2026-08-26 08:30"
    for code, *_ in AREAS[:24]:
        row = _get(sim, f"/sim-key/json/citydata_ppltn/1/5/{code}")["SeoulRtd.citydata_ppltn"][0]
        if row["FCST_YN"] == "N":
            assert row["FCST_PPLTN"] is None
        else:
            times = [f["FCST_TIME"] for f in row["FCST_PPLTN"]]
            assert times[0] == "2026-08-25 09:00" and len(times) == 12 and times[-1] == "2026-08-25 20:00"


def test_errors_keep_the_dotted_result_and_the_sample_key_is_pinned(sim):
    assert _get(sim, "/sim-key/json/citydata/1/5/없는장소") == {
        "RESULT": {"RESULT.CODE": "INFO-200", "RESULT.MESSAGE": "해당하는 데이터가 없습니다."}
    }
    assert _get(sim, "/sim-key/json/citydata/1/5")["RESULT"]["RESULT.CODE"] == "ERROR-300"
    assert _get(sim, "/nope/json/citydata_ppltn/1/5/강남역")["RESULT"]["RESULT.CODE"] == "INFO-100"
    sample = _get(sim, "/sample/json/citydata/1/5/강남역")["CITYDATA"]
    assert (sample["AREA_NM"], sample["AREA_CD"]) == ("광화문·덕수궁", "POI009")
    assert _get(sim, "/sample/json/citydata/1/6/강남역")["RESULT"]["RESULT.CODE"] == "ERROR-335"


def test_blocks_chain_to_the_other_seoul_services(sim):
    city = _get(sim, "/sim-key/json/citydata/1/5/홍대입구역(2호선)")["CITYDATA"]
    stops = {s.st_id: s for s in sim.world.transit.seoul_stations}
    assert city["BUS_STN_STTS"]
    for stop in city["BUS_STN_STTS"]:
        assert stops[stop["BUS_STN_ID"]].ars_id == stop["BUS_ARS_ID"]
        routes = {r.route_id for r, _ in sim.world.transit.seoul_routes_at[stop["BUS_STN_ID"]]}
        assert {d["RTE_ID"] for d in stop["BUS_DETAIL"]} <= routes
    bikes = {b["stationId"] for b in sim.world.datasets.bike_stations}
    assert city["SBIKE_STTS"] and {b["SBIKE_SPOT_ID"] for b in city["SBIKE_STTS"]} <= bikes
    air = _get(sim, "/sim-key/json/RealtimeCityAir/1/5//마포구")["RealtimeCityAir"]["row"][0]
    weather = city["WEATHER_STTS"][0]
    assert (float(weather["PM10"]), weather["AIR_IDX"]) == (air["PM10"], air["IDEX_NM"])
    assert {s["SUB_STN_NM"] for s in city["SUB_STTS"]} == {"홍대입구"}


def test_xml_wraps_lists_and_the_catalog_reads_both_envelopes(sim):
    xml = sim.get(BASE + "/sim-key/xml/citydata/1/5/POI009").body.decode()
    assert "<SeoulRtd.citydata><list_total_count>1</list_total_count><RESULT><RESULT.CODE>INFO-000" in xml
    assert "<LIVE_PPLTN_STTS><LIVE_PPLTN_STTS><AREA_NM>광화문·덕수궁" in xml
    catalog = builtin_catalog()
    with httpx.Client(transport=SimTransport(Simulator(seed=1))) as client:
        full = execute(catalog.get("seoul_citydata"), {"AREA_NM": "POI001", "START": 1, "END": 5}, client, "sim-key")
        light = execute(catalog.get("seoul_citydata_ppltn"), {"AREA_NM": "POI001"}, client, "sim-key")
        missing = execute(catalog.get("seoul_citydata_ppltn"), {"AREA_NM": "어딘가"}, client, "sim-key")
    assert full.records[0]["AREA_CD"] == "POI001" and full.total_count == 1
    assert light.records == full.records[0]["LIVE_PPLTN_STTS"]
    assert not missing.records
    assert lookup({"a.b": {"c": 1}}, "a.b.c") == 1 and lookup({"RESULT": {"RESULT.CODE": "x"}}, "RESULT.RESULT.CODE")
