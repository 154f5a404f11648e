"""국토교통부 건축HUB (건축물대장, 건축인허가, 주택인허가) and the 공동주택 단지 services as table rows over
world.buildings: the 법정동 → lot → building → unit chains, the envelope and paging, the retired paths."""

from __future__ import annotations

import httpx
import pytest

from kopa_replay.catalog import builtin_catalog
from kopa_replay.env import execute
from kopa_replay.sim import SimTransport, Simulator
from kopa_replay.sim.tables import load_table
from kopa_replay.sim.truth import link_executes
from kopa_replay.sim.world import World
from kopa_replay.sim.world.mois_bldg import REGISTER

HUB = {op.tool: op for op in load_table("mois").operations if "HubService/" in op.route}
GANGNAM = {"sigunguCd": "11680", "bjdongCd": "10100"}


@pytest.fixture(scope="module")
def sim():
    return Simulator(seed=0)


@pytest.fixture(scope="module")
def call(sim):
    catalog = builtin_catalog()
    client = httpx.Client(transport=SimTransport(sim))

    def run(tool, **args):
        result = execute(catalog.get(tool), args, client, "sim-key")
        assert result.outcome == "ok", (tool, result.outcome, result.message)
        return result

    yield run
    client.close()


@pytest.fixture(scope="module")
def http(sim):
    client = httpx.Client(transport=SimTransport(sim))
    yield lambda path, **params: client.get(
        f"https://apis.data.go.kr{path}", params={"serviceKey": "sim-key", **params}
    )
    client.close()


def _all(call, tool, **args):
    first = call(tool, numOfRows=100, **args)
    records, page = list(first.records), 2
    while len(records) < first.total_count:
        records += call(tool, numOfRows=100, pageNo=page, **args).records
        page += 1
    return records


def test_the_three_hub_services_have_every_operation_public_clients_list():
    by_service = {}
    for op in HUB.values():
        by_service.setdefault(op.route.split("/")[2], set()).add(op.route.split("/")[3])
    assert {k: len(v) for k, v in by_service.items()} == {
        "BldRgstHubService": 10,
        "ArchPmsHubService": 17,
        "HsPmsHubService": 16,
    }
    for op in HUB.values():
        assert op.required == ("sigunguCd", "bjdongCd")
        assert {"platGbCd", "bun", "ji", "startDate", "endDate"} <= set(op.params)


def test_a_region_code_splits_into_the_register_parameters_and_a_lot_narrows_it(call):
    region = call("datagokr_get_stan_regin_cd_list", locatadd_nm="서울특별시 강남구").records
    code = next(r["region_cd"] for r in region if r["umd_cd"] != "000")
    titles = call("datagokr_get_br_title", sigunguCd=code[:5], bjdongCd=code[5:], numOfRows=50)
    assert titles.total_count > 0
    assert all((r["sigunguCd"], r["bjdongCd"]) == (code[:5], code[5:]) for r in titles.records)
    lot = titles.records[-1]
    mine = _all(call, "datagokr_get_br_title", sigunguCd=code[:5], bjdongCd=code[5:], bun=lot["bun"], ji=lot["ji"])
    assert mine and all((r["bun"], r["ji"], r["platPlc"]) == (lot["bun"], lot["ji"], lot["platPlc"]) for r in mine)
    assert lot["mgmBldrgstPk"] in {r["mgmBldrgstPk"] for r in mine}
    # clients send the lot numbers zero-filled (PublicDataReader) or bare: the same lot
    where = {"sigunguCd": code[:5], "bjdongCd": code[5:]}
    bare = call("datagokr_get_br_title", **where, bun=str(int(lot["bun"])), ji=str(int(lot["ji"])), numOfRows=100)
    assert bare.total_count == len(mine)


def test_registers_nest_general_title_titles_units_and_their_floors_and_areas(call):
    recap = call("datagokr_get_br_recap_title", **GANGNAM, numOfRows=1).records[0]
    lot = {"bun": recap["bun"], "ji": recap["ji"]}
    basis = _all(call, "datagokr_get_br_basis_ouln", **GANGNAM, **lot)
    kinds = [r["regstrKindCd"] for r in basis]
    assert kinds[0] == "1" and set(kinds) == {"1", "3", "4"}  # 총괄표제부, 표제부 per 동, 전유부 per 호
    titles = _all(call, "datagokr_get_br_title", **GANGNAM, **lot)
    units = _all(call, "datagokr_get_br_expos", **GANGNAM, **lot)
    assert int(recap["mainBldCnt"]) == len(titles) and int(recap["hhldCnt"]) == len(units)
    title_pks = {t["mgmBldrgstPk"] for t in titles}
    assert {r["mgmUpBldrgstPk"] for r in basis if r["regstrKindCd"] == "3"} == {recap["mgmBldrgstPk"]}
    assert {r["mgmUpBldrgstPk"] for r in basis if r["regstrKindCd"] == "4"} <= title_pks
    floors = _all(call, "datagokr_get_br_flr_ouln", **GANGNAM, **lot)
    assert len(floors) == sum(int(t["grndFlrCnt"]) + int(t["ugrndFlrCnt"]) for t in titles)
    areas = _all(call, "datagokr_get_br_expos_pubuse_area", **GANGNAM, **lot)
    assert len(areas) == 2 * len(units) and {a["exposPubuseGbCd"] for a in areas} == {"1", "2"}
    unit = units[0]
    own = call("datagokr_get_br_expos_pubuse_area", **GANGNAM, **lot, dongNm=unit["dongNm"], hoNm=unit["hoNm"]).records
    assert {a["hoNm"] for a in own} == {unit["hoNm"]} and len(own) == 2


def test_an_apartment_trade_finds_its_building_register_by_its_lot(call):
    trades = call("datagokr_get_rtms_data_svc_apt_trade_dev", LAWD_CD="11680", DEAL_YMD="202607", numOfRows=5).records
    trade = trades[0]
    titles = call(
        "datagokr_get_br_title",
        sigunguCd=trade["sggCd"],
        bjdongCd=trade["umdCd"],
        bun=trade["bonbun"],
        ji=trade["bubun"],
        numOfRows=100,
    ).records
    assert titles and {t["etcPurps"] for t in titles} == {"아파트"}
    assert link_executes(
        "datagokr_get_rtms_data_svc_apt_trade_dev",
        {"sigunguCd": "sggCd", "bjdongCd": "umdCd", "bun": "bonbun", "ji": "bubun"},
        "datagokr_get_br_title",
    )
    # a 법정동 part alone names no 법정동: without its 시군구 the binding does not execute
    assert not link_executes("datagokr_get_rtms_data_svc_apt_trade_dev", {"bjdongCd": "umdCd"}, "datagokr_get_br_title")


def test_complex_lists_lead_to_basic_facts_that_agree_with_the_register(call):
    listed = call("datagokr_get_sigungu_apt_list3", sigunguCode="11680", numOfRows=100).records
    assert listed and all(r["kaptCode"].startswith("A11680") for r in listed)
    first = listed[0]
    basis = call("datagokr_get_aphus_bass_info_v4", kaptCode=first["kaptCode"]).records[0]
    assert (basis["kaptName"], basis["bjdCode"]) == (first["kaptName"], first["bjdCode"])
    same_dong = call("datagokr_get_legaldong_apt_list3", bjdCode=first["bjdCode"], numOfRows=100).records
    assert first["kaptCode"] in {r["kaptCode"] for r in same_dong}
    lot = basis["kaptAddr"].split()[-2].split("-")
    units = call(
        "datagokr_get_br_expos",
        sigunguCd=basis["bjdCode"][:5],
        bjdongCd=basis["bjdCode"][5:],
        bun=f"{int(lot[0]):04d}",
        ji=f"{int(lot[1]) if len(lot) > 1 else 0:04d}",
        numOfRows=1,
    )
    assert units.total_count == int(basis["kaptdaCnt"])
    detail = call("datagokr_get_aphus_dtl_info_v4", kaptCode=first["kaptCode"]).records[0]
    assert detail["kaptCode"] == first["kaptCode"] and int(detail["kaptdEcnt"]) == int(basis["kaptdEcntp"])


def test_permits_answer_for_every_lot_kind_and_the_housing_approval_matches_the_complex(call):
    basis = _all(call, "datagokr_get_ap_basis_ouln", **GANGNAM)
    assert {r["archGbCdNm"] for r in basis} >= {"신축", "증축", "대수선", "용도변경"}
    demolished = call("datagokr_get_ap_demol_extng_mgm_rgst", **GANGNAM).records
    assert demolished and all(r["demolStrtDay"] <= r["demolExtngDay"] for r in demolished)
    approval = call("datagokr_get_hp_basis_ouln", **GANGNAM, numOfRows=1).records[0]
    units = call("datagokr_get_hp_ho_ouln", **GANGNAM, bun=approval["bun"], ji=approval["ji"], numOfRows=1)
    assert units.total_count == int(approval["totHhldCnt"])


def test_paging_is_capped_at_100_and_rows_are_numbered_across_pages(http):
    path = HUB["datagokr_get_br_expos"].route
    first = http(path, **GANGNAM, numOfRows=500, _type="json").json()["response"]["body"]
    assert first["numOfRows"] == 100 and len(first["items"]["item"]) == 100 and first["totalCount"] > 100
    second = http(path, **GANGNAM, numOfRows=100, pageNo=2, _type="json").json()["response"]["body"]
    assert [r["rnum"] for r in second["items"]["item"]][:2] == ["101", "102"]


def test_xml_by_default_json_on_request_and_the_retired_paths_answer_the_same(http):
    hub = http("/1613000/BldRgstHubService/getBrTitleInfo", **GANGNAM, numOfRows=3)
    assert hub.text.startswith("<?xml") and "<resultCode>00</resultCode>" in hub.text
    old = http("/1613000/BldRgstService_v2/getBrTitleInfo", **GANGNAM, numOfRows=3)
    assert old.text == hub.text
    permits = http("/1613000/ArchPmsHubService/getApBasisOulnInfo", **GANGNAM, _type="json").json()
    assert http("/1613000/ArchPmsService_v2/getApBasisOulnInfo", **GANGNAM, _type="json").json() == permits
    housing = http("/1613000/HsPmsHubService/getHpBasisOulnInfo", **GANGNAM, _type="json").json()
    assert http("/1611000/HsPmsService/getHpBasisOulnInfo", **GANGNAM, _type="json").json() == housing
    unknown = http("/1613000/BldRgstService_v2/getNothing", **GANGNAM)
    assert "OpenAPI_ServiceResponse" in unknown.text


def test_nothing_found_is_an_empty_page_and_a_malformed_lot_is_refused(http):
    path = "/1613000/BldRgstHubService/getBrTitleInfo"
    empty = http(path, sigunguCd="11680", bjdongCd="99900", _type="json").json()["response"]
    assert empty["header"]["resultCode"] == "00" and empty["body"]["totalCount"] == 0
    assert http(path, **GANGNAM, bun="0000", _type="json").json()["response"]["body"]["totalCount"] == 0
    bad = http(path, **GANGNAM, bun="12a", _type="json").json()["response"]["header"]
    assert bad["resultCode"] == "10"
    missing = http(path, sigunguCd="11680", _type="json").json()["response"]["header"]
    assert missing["resultCode"] == "11"


def test_the_register_is_drawn_per_lot_and_sized_like_the_country_at_full(unbuilt_worlds):
    world = World(0, "full")
    place = world.buildings.place("11680", "10300")
    summary, lots = world.buildings.select(place, None, None, None, "", "")
    # an urban 동 of Seoul holds hundreds of lots; the summary holds arrays, lots are made when a row is read
    assert 200 < len(summary) < 4000 and len(world.buildings._lots) == 0
    count, make = REGISTER["expos"]
    rows = world.buildings.rows(place, lots, count(summary), make)
    assert len(rows) > 1000 and rows[len(rows) - 1]["rnum"] == str(len(rows))
    assert len(world.buildings._lots) <= 2
