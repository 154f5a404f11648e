"""행정안전부 services (and 국토부 RTMS) on the simulated data.go.kr gateway: envelopes, paging, codes, identity flow."""

from __future__ import annotations

import json
import re
from xml.etree import ElementTree

import httpx
import pytest

from kopa_replay.env import build_request, execute
from kopa_replay.sim import SimTransport, Simulator

REGION = "datagokr_get_stan_regin_cd_list"
STDG = "datagokr_select_stdg_ppltn_hh_stus"
ADMM = "datagokr_select_admm_ppltn_hh_stus"
TRADE = "datagokr_get_rtms_data_svc_apt_trade"
TRADE_DEV = "datagokr_get_rtms_data_svc_apt_trade_dev"
RENT = "datagokr_get_rtms_data_svc_apt_rent"


def raw(client, catalog, tool: str, key: str = "sim-key", **args) -> httpx.Response:
    method, url, headers, _ = build_request(catalog.get(tool), args, key)
    return client.request(method, url, headers=headers)


# -- 법정동코드 --------------------------------------------------------------------------


def test_region_codes_come_in_the_head_row_envelope_with_the_real_typo(client, catalog):
    response = raw(client, catalog, REGION, locatadd_nm="서울특별시 강남구", numOfRows=3)
    body = json.loads(response.content)
    head, rows = body["StanReginCd"][0]["head"], body["StanReginCd"][1]["row"]
    assert head[1] == {"numOfRows": "3", "pageNo": "1", "type": "JSON"}
    assert head[2] == {"RESULT": {"resultCode": "INFO-0", "resultMsg": "NOMAL SERVICE"}}
    assert head[0]["totalCount"] > 3 and len(rows) == 3
    first = rows[0]
    assert first["region_cd"] == "1168000000" and first["locatadd_nm"] == "서울특별시 강남구"
    assert first["sgg_cd"] == "680" and isinstance(first["locat_order"], int)
    assert all(r["locatadd_nm"].startswith("서울특별시 강남구") and len(r["region_cd"]) == 10 for r in rows)
    assert response.headers["content-type"].startswith("text/html")  # the service's own quirk


def test_a_province_search_pages_through_hundreds_of_rows(call):
    first = call(REGION, locatadd_nm="서울특별시", numOfRows=100, pageNo=1)
    assert first.outcome == "ok" and first.total_count > 200
    seen = list(first.records)
    page = 2
    while len(seen) < first.total_count:
        result = call(REGION, locatadd_nm="서울특별시", numOfRows=100, pageNo=page)
        assert result.total_count == first.total_count
        seen.extend(result.records)
        page += 1
    codes = [r["region_cd"] for r in seen]
    assert len(codes) == first.total_count == len(set(codes))
    assert codes == sorted(codes)
    assert call(REGION, locatadd_nm="서울특별시", numOfRows=100, pageNo=2).records != first.records


def test_an_unknown_name_is_info_3_as_a_bare_result(client, catalog, call):
    body = json.loads(raw(client, catalog, REGION, locatadd_nm="없는도").content)
    assert body == {"RESULT": {"resultCode": "INFO-3", "resultMsg": "데이터없음 에러"}}
    result = call(REGION, locatadd_nm="없는도")
    assert result.outcome == "empty" and result.code == "INFO-3"


def test_an_invalid_key_gets_the_gateway_xml_even_when_json_was_asked(client, catalog, call):
    response = raw(client, catalog, REGION, key="not-a-key", locatadd_nm="서울특별시")
    root = ElementTree.fromstring(response.content)
    assert root.tag == "OpenAPI_ServiceResponse"
    header = root.find("cmmMsgHeader")
    assert header.findtext("errMsg") == "SERVICE ERROR"
    assert header.findtext("returnAuthMsg") == "SERVICE_KEY_IS_NOT_REGISTERED_ERROR"
    assert header.findtext("returnReasonCode") == "30"
    assert call(REGION, key="not-a-key").outcome == "environmental_error"


def test_region_codes_in_xml_read_with_a_real_parser(client):
    url = (
        "https://apis.data.go.kr/1741000/StanReginCd/getStanReginCdList?ServiceKey=sim-key&type=xml"
        "&numOfRows=5&locatadd_nm=%EC%84%9C%EC%9A%B8%ED%8A%B9%EB%B3%84%EC%8B%9C"
    )
    root = ElementTree.fromstring(client.get(url).content)
    assert root.tag == "StanReginCd"
    assert root.findtext("head/RESULT/resultCode") == "INFO-0"
    assert int(root.findtext("head/totalCount")) > 200
    rows = root.findall("row")
    assert len(rows) == 5 and rows[0].findtext("region_cd") == "1100000000"


# -- 주민등록 인구 -------------------------------------------------------------------------


def test_population_levels_add_up_and_follow_the_region_tree(call):
    months = {"srchFrYm": "202608", "srchToYm": "202608"}
    gu = call(STDG, stdgCd="1168000000", lv=2, **months)
    dongs = call(STDG, stdgCd="1168000000", lv=3, numOfRows=100, **months)
    assert gu.outcome == dongs.outcome == "ok"
    assert gu.records[0]["sggNm"] == "강남구" and gu.records[0]["ctpvNm"] == "서울특별시"
    assert sum(int(r["totNmprCnt"]) for r in dongs.records) == int(gu.records[0]["totNmprCnt"])
    assert all(r["stdgCd"].startswith("11680") and r["stdgNm"] for r in dongs.records)
    for r in dongs.records:
        assert int(r["maleNmprCnt"]) + int(r["femlNmprCnt"]) == int(r["totNmprCnt"])
    one = dongs.records[0]
    tongs = call(STDG, stdgCd=one["stdgCd"], lv=4, numOfRows=100, **months)
    assert len(tongs.records) > 1 and all(r["tong"] for r in tongs.records)
    assert sum(int(r["totNmprCnt"]) for r in tongs.records) == pytest.approx(int(one["totNmprCnt"]), abs=10)


def test_a_month_exists_only_once_it_is_over(client, catalog, call):
    result = call(STDG, stdgCd="1100000000", srchFrYm="202607", srchToYm="202612", lv=1)
    assert [r["statsYm"] for r in result.records] == ["202607", "202608"]  # as of 2026-09-01
    body = json.loads(raw(client, catalog, STDG, stdgCd="1100000000", srchFrYm="202609", srchToYm="202609").content)
    assert body["Response"]["head"]["resultCode"] == "0" and body["Response"]["head"]["totalCount"] == 0
    assert body["Response"]["items"] == ""
    assert call(STDG, stdgCd="1100000000", srchFrYm="202609", srchToYm="202609").outcome == "empty"


def test_the_region_code_flows_from_the_code_list_into_population(call):
    dong = next(r for r in call(REGION, locatadd_nm="서울특별시 강남구").records if r["umd_cd"] != "000")
    result = call(STDG, stdgCd=dong["region_cd"], srchFrYm="202608", srchToYm="202608")
    assert result.outcome == "ok" and result.records[0]["stdgNm"] == dong["locallow_nm"]
    # A name where the 10-digit code belongs is a parameter error, not a guess.
    assert call(STDG, stdgCd="강남구", srchFrYm="202608", srchToYm="202608").outcome == "structural_error"


def test_administrative_dongs_take_their_own_codes_not_legal_ones(call):
    months = {"srchFrYm": "202608", "srchToYm": "202608"}
    admin = call(ADMM, admmCd="1168000000", lv=3, numOfRows=100, **months)
    assert admin.outcome == "ok"
    codes = [r["admmCd"] for r in admin.records]
    assert all(len(c) == 10 and c.startswith("11680") and c[5] in "56" for c in codes)
    one = call(ADMM, admmCd=codes[0], **months)
    assert one.outcome == "ok" and one.records[0]["dongNm"] == admin.records[0]["dongNm"]
    legal = next(r for r in call(REGION, locatadd_nm="서울특별시 강남구").records if r["umd_cd"] != "000")
    assert call(ADMM, admmCd=legal["region_cd"], **months).outcome == "empty"
    gu = call(STDG, stdgCd="1168000000", lv=2, **months).records[0]
    assert sum(int(r["totNmprCnt"]) for r in admin.records) == pytest.approx(int(gu["totNmprCnt"]), abs=len(codes))


# -- 아파트 매매 실거래가 ---------------------------------------------------------------------


def test_trades_are_xml_only_with_comma_amounts_and_single_space_blanks(client):
    url = (
        "https://apis.data.go.kr/1613000/RTMSDataSvcAptTrade/getRTMSDataSvcAptTrade?serviceKey=sim-key"
        "&LAWD_CD=11680&DEAL_YMD=202607&numOfRows=50&_type=json"
    )
    response = client.get(url)
    root = ElementTree.fromstring(response.content)
    assert root.findtext("header/resultCode") == "000" and root.findtext("header/resultMsg") == "OK"
    items = root.findall("body/items/item")
    assert len(items) == 50 and int(root.findtext("body/totalCount")) >= 30
    amount = items[0].findtext("dealAmount")
    assert amount.startswith(" ") and "," in amount and amount.strip().replace(",", "").isdigit()
    assert any(item.findtext("cdealType") == " " for item in items)
    assert all(item.findtext("sggCd") == "11680" for item in items)


def test_trades_page_through_the_month(call):
    first = call(TRADE, LAWD_CD="11680", DEAL_YMD="202607", numOfRows=100, pageNo=1)
    seen = list(first.records)
    page = 2
    while len(seen) < first.total_count:
        seen.extend(call(TRADE, LAWD_CD="11680", DEAL_YMD="202607", numOfRows=100, pageNo=page).records)
        page += 1
    assert len(seen) == first.total_count >= 30
    assert call(TRADE, LAWD_CD="11680", DEAL_YMD="202607", numOfRows=100, pageNo=2).records != first.records


def test_trade_codes_are_five_digits_and_future_months_are_empty(call):
    bad = call(TRADE, LAWD_CD="1168010100", DEAL_YMD="202607")
    assert bad.outcome == "structural_error" and bad.code == "10"
    empty = call(TRADE, LAWD_CD="11680", DEAL_YMD="202609")
    assert empty.outcome == "empty" and empty.code == "000" and empty.total_count == 0
    assert call(TRADE, LAWD_CD="99999", DEAL_YMD="202607").outcome == "empty"


# The 일반 service's 20 fields, and what the 상세 service adds (국토교통부 실거래가 open API guide, 2024-07-17).
_TRADE_FIELDS = {
    "sggCd",
    "umdNm",
    "aptNm",
    "jibun",
    "excluUseAr",
    "dealYear",
    "dealMonth",
    "dealDay",
    "dealAmount",
    "floor",
    "buildYear",
    "cdealType",
    "cdealDay",
    "dealingGbn",
    "estateAgentSggNm",
    "rgstDate",
    "aptDong",
    "slerGbn",
    "buyerGbn",
    "landLeaseholdGbn",
}
_DETAIL_ONLY = {
    "umdCd",
    "landCd",
    "bonbun",
    "bubun",
    "roadNm",
    "roadNmSggCd",
    "roadNmCd",
    "roadNmSeq",
    "roadNmbCd",
    "roadNmBonbun",
    "roadNmBubun",
    "aptSeq",
}


def test_the_detailed_service_is_the_ordinary_one_plus_lot_and_road_codes(call):
    basic = call(TRADE, LAWD_CD="11680", DEAL_YMD="202607", numOfRows=9999)
    detail = call(TRADE_DEV, LAWD_CD="11680", DEAL_YMD="202607", numOfRows=9999)
    assert {k for r in basic.records for k in r} == _TRADE_FIELDS
    assert {k for r in detail.records for k in r} == _TRADE_FIELDS | _DETAIL_ONLY
    assert [{k: r[k] for k in _TRADE_FIELDS} for r in detail.records] == basic.records
    row = detail.records[0]
    assert row["aptSeq"].startswith("11680-") and row["roadNmSggCd"] == "11680" and len(row["umdCd"]) == 5
    assert len(row["bonbun"]) == len(row["bubun"]) == 4 and len(row["roadNmCd"]) == 7


def test_rtms_pages_are_not_capped_at_a_thousand_rows(call):
    month = call(TRADE, LAWD_CD="11680", DEAL_YMD="202607", numOfRows=9999)
    assert month.total_count == len(month.records)
    whole = call(RENT, LAWD_CD="41110", DEAL_YMD="202606", numOfRows=5000)
    assert len(whole.records) == whole.total_count and whole.outcome == "ok"


def test_rents_are_deposits_and_monthly_rents_in_manwon_with_renewals_spelled_out(call):
    result = call(RENT, LAWD_CD="11680", DEAL_YMD="202607", numOfRows=9999)
    assert result.outcome == "ok" and result.total_count == len(result.records) >= 30
    for row in result.records:
        assert row["deposit"].replace(",", "").isdigit() and row["monthlyRent"].replace(",", "").isdigit()
        assert row["contractType"] in ("신규", "갱신", " ")
        renewed = row["contractType"] == "갱신"
        assert (row["preDeposit"] != " ") == renewed and (row["useRRRight"] == " " or renewed)
        assert row["contractTerm"] == " " or re.fullmatch(r"[0-9]{2}\.[0-9]{2}~[0-9]{2}\.[0-9]{2}", row["contractTerm"])
        assert row["roadnmsggcd"] == "11680" and row["aptSeq"].startswith("11680-")
    assert {r["monthlyRent"] == "0" for r in result.records} == {True, False}  # both 전세 and 월세


def test_late_reports_fill_the_latest_month_in(catalog):
    def trades(as_of):
        with httpx.Client(transport=SimTransport(Simulator(seed=0, as_of=as_of))) as client:
            result = execute(
                catalog.get(TRADE_DEV), {"LAWD_CD": "41110", "DEAL_YMD": "202608", "numOfRows": 1000}, client, "sim-key"
            )
        return {(r["aptSeq"], r["dealDay"], r["floor"], r["dealAmount"]) for r in result.records}

    early, later = trades("2026-09-01"), trades("2026-10-15")
    assert early < later  # reports within 30 days: every early trade is still there, more arrived


# -- determinism and the loopback server -----------------------------------------------------------


def test_same_seed_same_bytes_other_seed_other_world(catalog):
    def body(seed, tool, args):
        method, url, headers, _ = build_request(catalog.get(tool), args, "sim-key")
        with httpx.Client(transport=SimTransport(Simulator(seed=seed))) as client:
            return client.request(method, url, headers=headers).content

    for tool in (REGION, STDG, TRADE):
        args = catalog.get(tool).examples[0]
        assert body(0, tool, args) == body(0, tool, args)
        assert body(0, tool, args) != body(1, tool, args)


def test_population_over_the_real_loopback_server(server_url, catalog):
    tool = catalog.get(STDG)
    url = (
        f"{server_url}/apis.data.go.kr/1741000/stdgPpltnHhStus/selectStdgPpltnHhStus?serviceKey=sim-key"
        "&type=xml&stdgCd=1100000000&srchFrYm=202608&srchToYm=202608&lv=1"
    )
    with httpx.Client() as http:
        result = execute(tool, tool.examples[0], http, "sim-key", base_url=server_url)
        root = ElementTree.fromstring(http.get(url).content)
    assert result.outcome == "ok" and result.total_count >= len(result.records) > 0
    assert root.tag == "Response" and root.findtext("head/resultCode") == "0"
    assert root.findtext("items/item/ctpvNm") == "서울특별시"
