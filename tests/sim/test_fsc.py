"""금융위원회 services on data.go.kr as simulated: gateway envelope, pages, exclusive endBasDt, crno keys."""

from __future__ import annotations

import re
from xml.etree import ElementTree

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kopa_replay.sim import SimTransport, Simulator
from kopa_replay.sim.world.finance import LIGHTRON_CORP_CODE

KEY = "sim-key"
BASE = "https://apis.data.go.kr/1160100/service/"
PRICES = BASE + "GetStockSecuritiesInfoService/getStockPriceInfo"


def _json(client: httpx.Client, url: str, **params) -> dict:
    response = client.get(url, params={"serviceKey": KEY, "resultType": "json", **params})
    assert response.status_code == 200
    return response.json()


def _items(body: dict) -> list[dict]:
    items = body["response"]["body"]["items"]
    if items == "":
        return []
    item = items["item"]
    return item if isinstance(item, list) else [item]


@pytest.fixture(scope="module")
def shared():
    with httpx.Client(transport=SimTransport(Simulator(seed=0))) as client:
        yield client


def test_the_gateway_envelope(client):
    body = _json(client, PRICES, basDt="20260831", numOfRows=3)
    assert list(body) == ["response"] and list(body["response"]) == ["header", "body"]
    assert body["response"]["header"] == {"resultCode": "00", "resultMsg": "NORMAL SERVICE."}
    assert set(body["response"]["body"]) == {"items", "numOfRows", "pageNo", "totalCount"}
    items = _items(body)
    assert len(items) == 3 and all(isinstance(v, str) for item in items for v in item.values())
    assert list(items[0]) == [
        "basDt",
        "srtnCd",
        "isinCd",
        "itmsNm",
        "mrktCtg",
        "clpr",
        "vs",
        "fltRt",
        "mkp",
        "hipr",
        "lopr",
        "trqu",
        "trPrc",
        "lstgStCnt",
        "mrktTotAmt",
    ]
    assert all(re.fullmatch(r"-?(\d+)?\.\d{2}|0", i["fltRt"]) for i in items)


def test_one_item_is_an_object_and_none_is_an_empty_string(client, call):
    one = _json(client, PRICES, srtnCd="069540", basDt="20260831")
    assert isinstance(one["response"]["body"]["items"]["item"], dict)
    none = _json(client, PRICES, srtnCd="069540", basDt="20260830")  # a Sunday
    assert none["response"]["body"]["items"] == "" and none["response"]["body"]["totalCount"] == 0
    assert none["response"]["header"]["resultCode"] == "00"
    assert call("datagokr_get_stock_price_info", srtnCd="069540", basDt="20260830").outcome == "empty"


def test_a_day_alone_pages_over_every_listed_stock(call, sim):
    first = call("datagokr_get_stock_price_info", basDt="20260831", pageNo=1)
    second = call("datagokr_get_stock_price_info", basDt="20260831", pageNo=2)
    assert first.total_count == len(sim.world.finance.listed) and len(first.records) == 10
    assert first.records != second.records
    codes = []
    for page in range(1, (first.total_count + 99) // 100 + 1):
        codes += [
            r["srtnCd"]
            for r in call("datagokr_get_stock_price_info", basDt="20260831", numOfRows=100, pageNo=page).records
        ]
    assert len(codes) == len(set(codes)) == first.total_count


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(size=st.integers(1, 60), page=st.integers(1, 12))
def test_page_windows_never_overlap_or_lose_rows(shared, size, page):
    full = _items(
        _json(shared, PRICES, likeItmsNm="라이트", beginBasDt="20260701", endBasDt="20260901", numOfRows=1000)
    )
    window = _items(
        _json(
            shared, PRICES, likeItmsNm="라이트", beginBasDt="20260701", endBasDt="20260901", numOfRows=size, pageNo=page
        )
    )
    assert window == full[(page - 1) * size : page * size]


def test_end_day_is_exclusive_and_prices_appear_the_next_day(client):
    days = {
        i["basDt"] for i in _items(_json(client, PRICES, srtnCd="069540", beginBasDt="20260824", endBasDt="20260831"))
    }
    assert days == {"20260824", "20260825", "20260826", "20260827", "20260828"}
    # 2026-09-01 is the as-of date: its prices are not out yet.
    assert _items(_json(client, PRICES, srtnCd="069540", basDt="20260901")) == []
    with httpx.Client(transport=SimTransport(Simulator(seed=0, as_of="2026-09-02"))) as later:
        assert len(_items(_json(later, PRICES, srtnCd="069540", basDt="20260901"))) == 1


def test_an_unknown_key_gets_the_gateway_xml_even_for_json(client, call):
    response = client.get(PRICES, params={"serviceKey": "nope", "resultType": "json", "basDt": "20260831"})
    root = ElementTree.fromstring(response.content)
    assert root.tag == "OpenAPI_ServiceResponse"
    assert root.findtext("cmmMsgHeader/returnReasonCode") == "30"
    assert root.findtext("cmmMsgHeader/returnAuthMsg") == "SERVICE_KEY_IS_NOT_REGISTERED_ERROR"
    assert call("datagokr_get_stock_price_info", key="nope", basDt="20260831").outcome == "environmental_error"
    unknown = client.get(BASE + "GetStockSecuritiesInfoService/getNothing", params={"serviceKey": KEY})
    assert ElementTree.fromstring(unknown.content).findtext("cmmMsgHeader/returnReasonCode") == "12"


def test_xml_is_the_default_format(client, sim):
    response = client.get(
        BASE + "GetKrxListedInfoService/getItemInfo", params={"serviceKey": KEY, "basDt": "20260831", "numOfRows": "5"}
    )
    root = ElementTree.fromstring(response.content)
    assert root.tag == "response" and root.findtext("header/resultCode") == "00"
    items = root.findall("body/items/item")
    assert len(items) == 5 and root.findtext("body/totalCount") == str(len(sim.world.finance.listed))
    assert all(re.fullmatch(r"\d{13}", item.findtext("crno")) for item in items)


def test_financial_services_need_the_crno_not_a_corp_code_or_a_name(call):
    company = call("dart_company", corp_code=LIGHTRON_CORP_CODE).records[0]
    crno = company["jurir_no"]
    for wrong in (LIGHTRON_CORP_CODE, "라이트론"):
        assert call("datagokr_get_summ_fina_stat_v2", crno=wrong, bizYear="2025").outcome == "empty"
    summary = call("datagokr_get_summ_fina_stat_v2", crno=crno, bizYear="2025")
    assert summary.outcome == "ok" and {r["fnclDcd"] for r in summary.records} == {"110", "120"}
    # The FSC figures are DART's: revenue of the consolidated statement matches fnlttSinglAcnt.
    dart = call("dart_fnltt_single_acnt", corp_code=LIGHTRON_CORP_CODE, bsns_year="2025", reprt_code="11011")
    revenue = next(r for r in dart.records if r["fs_div"] == "CFS" and r["account_nm"] == "매출액")
    consolidated = next(r for r in summary.records if r["fnclDcd"] == "110")
    assert revenue["thstrm_amount"].replace(",", "") == consolidated["enpSaleAmt"]
    # No annual statement for 2026 exists before the 2026 annual report is filed.
    assert call("datagokr_get_summ_fina_stat_v2", crno=crno, bizYear="2026").outcome == "empty"


def test_corp_names_substring_in_the_outline_exact_in_the_listing(call):
    outline = call("datagokr_get_corp_outline_v2", corpNm="라이트론")
    assert outline.outcome == "ok" and outline.records[0]["fssCorpUnqNo"] == LIGHTRON_CORP_CODE
    registered = outline.records[0]["corpNm"]
    assert registered != "라이트론" and "라이트론" in registered
    assert call("datagokr_get_item_info", corpNm="라이트론", basDt="20260831").outcome == "empty"
    listing = call("datagokr_get_item_info", corpNm=registered, basDt="20260831")
    assert [r["srtnCd"] for r in listing.records] == ["069540"]
    assert listing.records[0]["crno"] == outline.records[0]["crno"]


def test_statements_and_dividends(call):
    crno = call("datagokr_get_corp_outline_v2", corpNm="라이트론").records[0]["crno"]
    sheet = call("datagokr_get_bs_v2", crno=crno, bizYear="2025", numOfRows=100)
    assert sheet.total_count == len(sheet.records) == 18
    income = call("datagokr_get_inco_stat_v2", crno=crno, bizYear="2025", numOfRows=100)
    assert {r["acitNm"] for r in income.records} == {"매출액", "영업이익", "법인세비용차감전순이익", "당기순이익"}
    dividends = call("datagokr_get_divi_info", crno=crno)
    assert dividends.outcome == "ok" and {r["dvdnBasDt"] for r in dividends.records} == {"20241231", "20251231"}
    assert all(r["stckDvdnRcd"] == "02" and r["isinCd"] == "KR7069540003" for r in dividends.records)


def test_the_fltrt_drift_sends_numbers(catalog):
    from kopa_replay.env import execute

    tool = catalog.get("datagokr_get_stock_price_info")
    with httpx.Client(transport=SimTransport(Simulator(seed=0, as_of="2026-09-15"))) as client:
        record = execute(tool, {"srtnCd": "069540", "basDt": "20260831"}, client, KEY).records[0]
    assert isinstance(record["fltRt"], float) and isinstance(record["clpr"], str)


def test_same_seed_same_bytes_other_seed_other_world():
    def bodies(seed: int) -> list[bytes]:
        with httpx.Client(transport=SimTransport(Simulator(seed=seed))) as client:
            return [
                client.get(PRICES, params={"serviceKey": KEY, "basDt": "20260831"}).content,
                client.get(
                    BASE + "GetCorpBasicInfoService_V2/getCorpOutline_V2",
                    params={"serviceKey": KEY, "resultType": "json"},
                ).content,
            ]

    first, again, other = bodies(0), bodies(0), bodies(1)
    assert first == again and all(a != b for a, b in zip(first, other))


def test_loopback_server(server_url):
    body = httpx.get(
        server_url + "/apis.data.go.kr/1160100/service/GetFinaStatInfoService_V2/getSummFinaStat_V2",
        params={"serviceKey": KEY, "resultType": "json", "bizYear": "2025", "numOfRows": "2"},
    ).json()
    assert body["response"]["header"]["resultCode"] == "00"
    assert body["response"]["body"]["totalCount"] > 300 and len(_items(body)) == 2
