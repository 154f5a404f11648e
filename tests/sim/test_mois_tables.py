"""The 국토부/행안부 operations kept as table rows (sim/tables/mois.yaml): the RTMS families and the 성/연령별
population services — their identifier chains, quirks, paging and as-of behaviour."""

from __future__ import annotations

import datetime as dt
import re
from xml.etree import ElementTree

import httpx
import pytest

from kopa_replay.catalog import builtin_catalog
from kopa_replay.env import execute
from kopa_replay.sim import SimTransport, Simulator
from kopa_replay.sim.tables import load_table

FAMILIES = {op.tool: op for op in load_table("mois").operations if op.route.startswith("/1613000/RTMSDataSvc")}
REGION = "datagokr_get_stan_regin_cd_list"
STDG, ADMM = "datagokr_select_stdg_ppltn_hh_stus", "datagokr_select_admm_ppltn_hh_stus"
STDG_AGE, ADMM_AGE = "datagokr_select_stdg_sexd_age_ppltn", "datagokr_select_admm_sexd_age_ppltn"
_TERM = re.compile(r"[0-9]{2}\.[0-9]{2}~[0-9]{2}\.[0-9]{2}")
_AMOUNT = re.compile(r"[0-9]{1,3}(,[0-9]{3})*")


def _empty(value) -> bool:
    """The services send a single space for nothing (a client may read it as None)."""
    return value in (None, " ")


@pytest.fixture(scope="module")
def catalog():
    return builtin_catalog()


@pytest.fixture(scope="module")
def call(catalog):
    client = httpx.Client(transport=SimTransport(Simulator(seed=0)))

    def run(tool, **args):
        return execute(catalog.get(tool), args, client, "sim-key")

    yield run
    client.close()


def _month(call, tool, lawd="41590", ym="202606"):
    result = call(tool, LAWD_CD=lawd, DEAL_YMD=ym, numOfRows=9999)
    assert result.outcome == "ok", (tool, result.message)
    return result.records


def test_there_are_ten_more_rtms_services_beside_the_apartment_ones():
    services = {op.route.split("/")[2] for op in FAMILIES.values()}
    assert services == {
        f"RTMSDataSvc{name}"
        for name in ("OffiTrade", "OffiRent", "RHTrade", "RHRent", "SHTrade", "SHRent")
        + ("NrgTrade", "LandTrade", "SilvTrade", "InduTrade")
    }


@pytest.mark.parametrize("tool", sorted(FAMILIES))
def test_every_family_sends_strings_in_case_sensitive_alphabetical_order_with_spaces_for_nothing(call, tool):
    op = FAMILIES[tool]
    assert list(op.fields) == sorted(op.fields)  # dealYear before dealingGbn, as measured
    rows = _month(call, tool)
    assert rows and all(list(r) == list(op.fields) for r in rows)
    for row in rows:
        assert row["sggCd"] == "41590" and row["dealYear"] == "2026" and row["dealMonth"] == "6"
        for name in ("dealAmount", "deposit", "monthlyRent", "preDeposit"):
            if name in row and not _empty(row[name]):
                assert _AMOUNT.fullmatch(row[name]), (name, row[name])  # 만원 with commas, no padding
        if "contractTerm" in op.fields and not _empty(row["contractTerm"]):
            assert _TERM.fullmatch(row["contractTerm"])
            assert row["contractType"] in ("신규", "갱신")
        if not _empty(row.get("cdealType")):
            assert row["cdealType"] == "O" and re.fullmatch(r"[0-9]{2}\.[0-9]{2}\.[0-9]{2}", row["cdealDay"])
    days = [int(r["dealDay"]) for r in rows]
    assert days == sorted(days)


def test_the_wire_keeps_the_empty_values_as_a_single_space_in_xml():
    client = httpx.Client(transport=SimTransport(Simulator(seed=0)))
    got = client.get(
        "https://apis.data.go.kr" + FAMILIES["datagokr_get_rtms_data_svc_sh_rent"].route,
        params={"serviceKey": "sim-key", "LAWD_CD": "11680", "DEAL_YMD": "202606", "numOfRows": 50, "_type": "json"},
    )
    root = ElementTree.fromstring(got.content)  # XML whatever _type asks
    assert root.tag == "response" and root.findtext("header/resultCode") == "000"
    items = root.findall("body/items/item")
    assert items and any(item.findtext("contractTerm") == " " for item in items)
    assert all(item.find("jibun") is None for item in items)  # the 단독·다가구 rents name no lot


def test_single_owners_lots_are_masked_and_collective_units_have_no_plot(call):
    for tool in ("datagokr_get_rtms_data_svc_sh_trade", "datagokr_get_rtms_data_svc_land_trade"):
        assert all(re.fullmatch(r"[0-9]\*+", r["jibun"]) for r in _month(call, tool))
    for tool in ("datagokr_get_rtms_data_svc_nrg_trade", "datagokr_get_rtms_data_svc_indu_trade"):
        rows = _month(call, tool)
        assert {r["buildingType"] for r in rows} == {"일반", "집합"}
        for row in rows:
            whole = row["buildingType"] == "일반"
            assert bool(re.fullmatch(r"[0-9]\*+", row["jibun"])) == whole
            assert _empty(row["plottageAr"]) == (not whole) and _empty(row["floor"]) == whole
    land = _month(call, "datagokr_get_rtms_data_svc_land_trade")
    assert all(r["landUse"].endswith("지역") and float(r["dealArea"]) > 0 for r in land)


def test_rents_have_both_jeonse_and_wolse_and_renewals_carry_the_previous_terms(call):
    for tool in ("datagokr_get_rtms_data_svc_offi_rent", "datagokr_get_rtms_data_svc_rh_rent"):
        rows = _month(call, tool, lawd="11680")
        assert {r["monthlyRent"] == "0" for r in rows} == {True, False}
        for row in rows:
            assert (not _empty(row["preDeposit"])) == (row["contractType"] == "갱신")


def test_presale_rights_say_which_right_and_have_no_build_year(call):
    rows = _month(call, "datagokr_get_rtms_data_svc_silv_trade")
    assert {r["ownershipGbn"] for r in rows} <= {"분", "입", " ", None} and "buildYear" not in rows[0]


def test_lawd_cd_is_the_first_five_digits_of_a_region_code_and_dongs_are_its_dongs(call):
    listed = call(REGION, locatadd_nm="서울특별시 강남구", numOfRows=1000).records
    lawd = listed[0]["region_cd"][:5]
    dongs = {r["locallow_nm"] for r in listed if r["umd_cd"] != "000"}
    for tool in ("datagokr_get_rtms_data_svc_offi_trade", "datagokr_get_rtms_data_svc_rh_rent"):
        rows = _month(call, tool, lawd=lawd)
        assert rows and {r["umdNm"] for r in rows} <= dongs


def test_a_ten_digit_code_is_a_parameter_error_and_an_unknown_sigungu_is_an_empty_page(call):
    tool = "datagokr_get_rtms_data_svc_land_trade"
    wrong = call(tool, LAWD_CD="4159000000", DEAL_YMD="202606")
    assert wrong.outcome != "ok" and wrong.code == "10"
    empty = call(tool, LAWD_CD="99999", DEAL_YMD="202606")
    assert empty.outcome in ("ok", "empty") and empty.total_count == 0 and not empty.records
    future = call(tool, LAWD_CD="41590", DEAL_YMD="202612")
    assert future.total_count == 0


def test_pages_are_not_capped_and_add_up_to_the_month(call):
    tool = "datagokr_get_rtms_data_svc_offi_rent"
    whole = call(tool, LAWD_CD="11680", DEAL_YMD="202606", numOfRows=5000)
    assert whole.total_count == len(whole.records) > 100
    first = call(tool, LAWD_CD="11680", DEAL_YMD="202606", numOfRows=40, pageNo=1).records
    second = call(tool, LAWD_CD="11680", DEAL_YMD="202606", numOfRows=40, pageNo=2).records
    assert first + second == whole.records[:80]


def test_late_reports_fill_the_latest_month_in(catalog):
    def contracts(as_of):
        with httpx.Client(transport=SimTransport(Simulator(seed=0, as_of=as_of))) as client:
            tool = catalog.get("datagokr_get_rtms_data_svc_rh_trade")
            result = execute(tool, {"LAWD_CD": "11680", "DEAL_YMD": "202608", "numOfRows": 9999}, client, "sim-key")
        return [tuple(r.values()) for r in result.records]

    early, later = contracts("2026-09-01"), contracts("2026-10-15")
    assert set(early) < set(later)


def test_age_bands_add_up_to_the_plain_services_counts(call):
    query = {"srchFrYm": "202605", "srchToYm": "202606", "lv": 3, "numOfRows": 1000}
    for plain, aged, code in ((STDG, STDG_AGE, "stdgCd"), (ADMM, ADMM_AGE, "admmCd")):
        base = call(plain, **{code: "1168000000"}, **query).records
        rows = call(aged, **{code: "1168000000"}, **query).records
        assert len(rows) == len(base) > 0
        for row, same in zip(rows, base):
            assert row[code] == same[code] and row["statsYm"] == same["statsYm"]
            for sex, total in (("male", "maleNmprCnt"), ("feml", "femlNmprCnt")):
                assert row[total] == same[total]
                assert sum(int(row[f"{sex}{age}AgeNmprCnt"]) for age in range(0, 101, 10)) == int(row[total])
            assert int(row["totNmprCnt"]) == int(row["maleNmprCnt"]) + int(row["femlNmprCnt"])


def test_an_admm_code_from_the_household_service_finds_its_dong_by_age(call):
    dong = call(ADMM, admmCd="1168000000", srchFrYm="202606", srchToYm="202606", lv=3).records[0]
    rows = call(ADMM_AGE, admmCd=dong["admmCd"], srchFrYm="202606", srchToYm="202606", lv=4, numOfRows=100).records
    assert rows and {r["dongNm"] for r in rows} == {dong["dongNm"]} and all(r["tong"] for r in rows)
    assert sum(int(r["totNmprCnt"]) for r in rows) == int(dong["totNmprCnt"])
    missing = call(ADMM_AGE, admmCd="1168010100", srchFrYm="202606", srchToYm="202606")
    assert not missing.records  # a dong-level 법정동 code is not a 행정기관코드


def test_households_by_members_add_up_to_the_household_services_count(call):
    query = {"admmCd": "1168000000", "srchFrYm": "202605", "srchToYm": "202606", "lv": 3, "numOfRows": 1000}
    base = {(r["admmCd"], r["statsYm"]): r for r in call(ADMM, **query).records}
    rows = call("datagokr_select_admm_hsmb_hh", **query).records
    assert len(rows) == len(base) > 0
    for row in rows:
        assert row["totHhCnt"] == base[row["admmCd"], row["statsYm"]]["hhCnt"]
        assert sum(int(row[f"hhNmprCnt{n}"]) for n in range(1, 11)) == int(row["totHhCnt"])
    # one-person households are the most common kind in every large dong, as in the country
    large = [r for r in rows if int(r["totHhCnt"]) >= 1000]
    assert large and all(int(r["hhNmprCnt1"]) == max(int(r[f"hhNmprCnt{n}"]) for n in range(1, 11)) for r in large)


def test_births_come_only_where_registered_at_a_plausible_rate(call):
    query = {"admmCd": "1100000000", "srchFrYm": "202601", "srchToYm": "202606", "lv": 2, "numOfRows": 1000}
    births = call("datagokr_select_admm_sexd_brth_reg", **query).records
    residents = {(r["admmCd"], r["statsYm"]): int(r["totNmprCnt"]) for r in call(ADMM, **query).records}
    assert births and all(int(r["totNmprCnt"]) > 0 for r in births)
    assert all(int(r["totNmprCnt"]) == int(r["maleNmprCnt"]) + int(r["femlNmprCnt"]) for r in births)
    assert {(r["admmCd"], r["statsYm"]) for r in births} <= set(residents)
    # Korea registers ≈ 4.5 births a year per 1,000 residents; Seoul's districts over half a year sit near it
    # (births over resident-months: a monthly rate, times twelve)
    rate = sum(int(r["totNmprCnt"]) for r in births) / sum(residents.values()) * 12 * 1000
    assert 2.5 < rate < 7.0
    per_tong = call("datagokr_select_admm_sexd_brth_reg", **{**query, "admmCd": "1168051000", "lv": 4})
    assert per_tong.records and all(int(r["totNmprCnt"]) > 0 and r["tong"] for r in per_tong.records)


@pytest.mark.parametrize(
    "tool, count",
    [
        ("datagokr_select_admm_sexd_brth_reg", "totNmprCnt"),
        ("datagokr_select_admm_sexd_age_ersr", "male85AgeNmprCnt"),
        ("datagokr_select_admm_hsmb_hh", "hhNmprCnt1"),
    ],
)
def test_a_district_counts_what_its_dongs_count_and_a_dong_what_its_tongs_do(call, tool, count):
    query = {"srchFrYm": "202605", "srchToYm": "202606", "numOfRows": 1000}

    def by_month(rows):
        out: dict[str, int] = {}
        for row in rows:
            out[row["statsYm"]] = out.get(row["statsYm"], 0) + int(row[count])
        return out

    district = call(tool, admmCd="1168000000", lv=2, **query).records
    dongs = call(tool, admmCd="1168000000", lv=3, **query).records
    assert district and by_month(district) == by_month(dongs)
    dong = dongs[0]["admmCd"]
    tongs = call(tool, admmCd=dong, lv=4, **query).records
    assert tongs and all(r["tong"] for r in tongs)
    assert by_month(tongs) == by_month([r for r in dongs if r["admmCd"] == dong])


def test_deaths_by_single_year_add_up_and_fall_mostly_on_the_old(call):
    query = {"admmCd": "1100000000", "srchFrYm": "202604", "srchToYm": "202606", "lv": 2, "numOfRows": 1000}
    rows = call("datagokr_select_admm_sexd_age_ersr", **query).records
    residents = {(r["admmCd"], r["statsYm"]): int(r["totNmprCnt"]) for r in call(ADMM, **query).records}
    assert rows and {(r["admmCd"], r["statsYm"]) for r in rows} <= set(residents)
    ages: dict[int, int] = {}
    for row in rows:
        assert int(row["totNmprCnt"]) == int(row["maleNmprCnt"]) + int(row["femlNmprCnt"]) > 0
        for sex, total in (("male", "maleNmprCnt"), ("feml", "femlNmprCnt")):
            by_age = [int(row[f"{sex}{age}AgeNmprCnt"]) for age in range(111)]
            assert sum(by_age) == int(row[total])
            for age, n in enumerate(by_age):
                ages[age] = ages.get(age, 0) + n
    deaths = sum(ages.values())
    # ≈ 7 deaths a year per 1,000 residents; three of four after 70
    assert 4.0 < deaths / sum(residents.values()) * 12 * 1000 < 10.0
    assert sum(n for age, n in ages.items() if age >= 70) / deaths > 0.6


MOVES = "datagokr_select_ppltn_data_stus"


def _moves(call, into, out_of, lv, **extra):
    args = {"mvinAdmmCd": into, "mvtAdmmCd": out_of, "srchFrYm": "202606", "srchToYm": "202606", "lv": lv}
    result = call(MOVES, **args, numOfRows=1000, **extra)
    assert result.outcome == "ok", result.message
    assert result.total_count == len(result.records)  # one page holds them all here
    return result.records


def test_moves_between_two_districts_are_the_sum_of_their_dongs_and_a_province_of_its_districts(call):
    seoul, gyeonggi, gangnam, seocho = "1100000000", "4100000000", "1168000000", "1165000000"
    by_sgg = _moves(call, gangnam, seocho, 2)
    by_dong = _moves(call, gangnam, seocho, 3)
    assert len(by_sgg) == 1 and by_dong
    assert int(by_sgg[0]["totNmprCnt"]) == sum(int(r["totNmprCnt"]) for r in by_dong)
    assert {r["mvinSggNm"] for r in by_dong} == {"강남구"} and {r["mvtSggNm"] for r in by_dong} == {"서초구"}
    assert all(r["mvinAdmmCd"].startswith("11680") and r["mvtAdmmCd"].startswith("11650") for r in by_dong)
    between = _moves(call, seoul, gyeonggi, 1)
    districts = _moves(call, seoul, gyeonggi, 2)
    assert len(between) == 1 and int(between[0]["totNmprCnt"]) == sum(int(r["totNmprCnt"]) for r in districts)
    assert {(r["mvinCtpvNm"], r["mvtCtpvNm"]) for r in districts} == {("서울특별시", "경기도")}
    # a district's code at the province level stands for its province
    assert _moves(call, gangnam, gyeonggi, 1) == between


def test_a_move_row_is_a_pair_someone_moved_between_with_its_ages(call):
    rows = _moves(call, "1168000000", "1168000000", 3)  # inside one district: dong to dong
    assert rows and all(r["mvinAdmmCd"] != r["mvtAdmmCd"] for r in rows)
    young = total = 0
    for row in rows:
        assert int(row["totNmprCnt"]) == int(row["maleNmprCnt"]) + int(row["femlNmprCnt"]) > 0
        for sex in ("male", "feml"):
            by_age = [int(row[f"{sex}{age}AgeNmprCnt"]) for age in range(111)]
            assert sum(by_age) == int(row[f"{sex}NmprCnt"])
            young += sum(by_age[20:40])
            total += sum(by_age)
    assert young / total > 0.35  # movers are young adults more than any other age


def test_moves_take_at_most_three_months_and_no_tong_level():
    with httpx.Client(transport=SimTransport(Simulator(seed=0, api_key="k"))) as client:

        def code(**params):
            query = {"serviceKey": "k", "type": "json", "mvinAdmmCd": "1168000000", "mvtAdmmCd": "1165000000"}
            answer = client.get(
                "https://apis.data.go.kr/1741000/ppltnDataStus/selectPpltnDataStus", params={**query, **params}
            )
            return answer.json()["Response"]["head"]["resultCode"]

        assert code(srchFrYm="202604", srchToYm="202606", lv="2") == "0"
        assert code(srchFrYm="202603", srchToYm="202606", lv="2") == "10"
        assert code(srchFrYm="202606", srchToYm="202606", lv="4") == "10"


def test_moves_without_the_origin_are_refused_as_the_service_does():
    # every one of the four is needed (a measured client: one missing, code 11); sent past the catalog's own check
    with httpx.Client(transport=SimTransport(Simulator(seed=0, api_key="k"))) as client:
        answer = client.get(
            "https://apis.data.go.kr/1741000/ppltnDataStus/selectPpltnDataStus",
            params={"serviceKey": "k", "type": "json", "mvinAdmmCd": "1168000000", "srchFrYm": "202606"},
        )
    assert answer.json()["Response"]["head"]["resultCode"] == "11"


def test_a_road_code_from_a_detailed_trade_lists_the_complexes_on_that_road(call):
    trades = _month(call, "datagokr_get_rtms_data_svc_apt_trade_dev", lawd="11680")
    trade = trades[0]
    road = trade["roadNmSggCd"] + trade["roadNmCd"]
    found = call("datagokr_get_roadname_apt_list3", roadCode=road, numOfRows=100).records
    assert trade["aptNm"] in {r["kaptName"] for r in found}
    assert {r["as2"] for r in found} == {"강남구"} and all(r["bjdCode"].startswith("11680") for r in found)
    on_roads = {t["roadNm"] for t in trades if t["roadNmSggCd"] + t["roadNmCd"] == road}
    assert on_roads == {trade["roadNm"]}
    assert not call("datagokr_get_roadname_apt_list3", roadCode="116800000000").records


# -- the 법정동 register at the full size: the real country's shape ------------------------------------------


@pytest.fixture(scope="module")
def full_world():
    from kopa_replay.sim.world import World

    return World(seed=0, size="full")


def test_the_full_register_has_the_real_number_of_existing_codes_at_every_level(full_world):
    register = full_world.regions.register
    levels = {"시도": 0, "시군구": 0, "읍면동": 0, "리": 0}
    for code in register.codes:
        level = (
            "시도"
            if code[2:] == "0" * 8
            else "시군구"
            if code[5:] == "00000"
            else "읍면동"
            if code[8:] == "00"
            else "리"
        )
        levels[level] += 1
    # 행안부 법정동코드, existing codes: 17 시도, 5,066 읍면동, 15,212 리; 일반구 are folded into their city
    assert levels == {"시도": 17, "시군구": 229, "읍면동": 5066, "리": 15212}
    assert len(register.codes) == len(set(register.codes))
    for code, parent in zip(register.codes, register.parents):
        assert parent == "0000000000" or (parent in full_world.regions.by_code or parent[8:] == "00")


def test_a_full_world_search_answers_as_the_measured_service_does(full_world):
    from kopa_replay.sim.core import Query
    from kopa_replay.sim.platforms.mois import stan_regin_cd

    def search(text):
        return stan_regin_cd(full_world, Query({"locatadd_nm": text}, dt.date(2026, 9, 1)))

    assert len(search("서울특별시")) == 493  # 시도 1 + 구 25 + 법정동 467, no 리 (measured 2026-10-05)
    chuncheon = search("강원특별자치도 춘천시")
    assert len(chuncheon) == 118 and sum(r["ri_cd"] != "00" for r in chuncheon) == 78
    ri = next(r for r in chuncheon if r["ri_cd"] != "00")
    assert ri["locathigh_cd"] == ri["region_cd"][:8] + "00" and ri["locatadd_nm"].endswith(" " + ri["locallow_nm"])
    assert ri["locallow_nm"].endswith("리") and int(ri["ri_cd"]) >= 21
    everything = search("")
    assert len(everything) == 20524 and everything[-1]["region_cd"] == full_world.regions.register.codes[-1]
