"""금융위원회 공시정보, 주식발행정보, 채권기본정보, 금융회사재무신용·지배구조 and the _V2 stock-price path.

They are rows of kopa_replay/sim/tables/fsc.yaml over the finance world, so what they answer agrees with the
filings DART lists, the prices the stock service sends and the companies the outline service knows.
"""

from __future__ import annotations

import datetime as dt

import httpx
import pytest

from kopa_replay.sim import SimTransport, Simulator
from kopa_replay.sim.registry import Registry

KEY = "sim-key"
HOST = "https://apis.data.go.kr/1160100/"
DISC = "service/GetDiscInfoService_V2/"
DAY = "20260831"
LIGHTRON_CRNO = "1601110041238"


@pytest.fixture(scope="module")
def client():
    sim = Simulator(seed=0, registry_=Registry(("fsc",)))
    with httpx.Client(transport=SimTransport(sim)) as c:
        c.sim = sim  # type: ignore[attr-defined]
        yield c


def fsc(client, path: str, **params) -> tuple[list[dict], int]:
    body = client.get(HOST + path, params={"serviceKey": KEY, "resultType": "json", **params}).json()
    items = body["response"]["body"]["items"]
    items = [] if items == "" else items["item"]
    return (items if isinstance(items, list) else [items]), int(body["response"]["body"]["totalCount"])


def test_a_convertible_bond_disclosure_is_the_dart_filing_in_the_gateways_spelling(client):
    fin = client.sim.world.finance
    filing = next(f for f in fin.filings if f.kind == "cvbd" and f.company.crno == LIGHTRON_CRNO)
    rows, total = fsc(client, DISC + "getCbRighIssuDiscInfo_V2", crno=LIGHTRON_CRNO)
    (row,) = [r for r in rows if r["basDt"] == filing.rcept_dt.strftime("%Y%m%d")]
    assert row["cbCnvrPrc"] == filing.detail["cv_prc"].replace(",", "")
    assert row["tcpbFcvlAmt"] == filing.detail["bd_fta"].replace(",", "")
    assert row["bondIssuDcnt"] == filing.detail["bd_tm"]
    assert row["cpbdExprDt"] == "".join(ch for ch in filing.detail["bd_mtd"] if ch.isdigit())
    assert "rptFileCtt" not in row  # the live service sends one field fewer than the guide lists


def test_disclosures_choose_by_day_and_company_newest_first_and_appear_the_next_day(client):
    rows, total = fsc(client, DISC + "getGeneMeetStocPublNotiDiscInfo_V2", numOfRows=50)
    assert total > 0 and rows
    days = [r["basDt"] for r in rows]
    assert days == sorted(days, reverse=True) and max(days) < "20260901"  # the simulator's as-of day
    same_day, n = fsc(client, DISC + "getGeneMeetStocPublNotiDiscInfo_V2", basDt=rows[0]["basDt"], numOfRows=100)
    assert n == len(same_day) and all(r["basDt"] == rows[0]["basDt"] for r in same_day)
    one, _ = fsc(client, DISC + "getGeneMeetStocPublNotiDiscInfo_V2", crno=rows[0]["crno"], numOfRows=100)
    company = client.sim.world.finance.by_crno[rows[0]["crno"]]
    assert all(r["crno"] == company.crno and r["corpNm"] == company.registry_name for r in one)
    named, _ = fsc(client, DISC + "getGeneMeetStocPublNotiDiscInfo_V2", corpNm=company.registry_name, numOfRows=100)
    assert {r["crno"] for r in named} == {company.crno}


def test_a_dividend_disclosure_carries_the_dividend_the_dividend_service_pays(client):
    rows, _ = fsc(client, DISC + "getDiviDiscInfo_V2", crno=LIGHTRON_CRNO)
    paid, _ = fsc(client, "service/GetStocDiviInfoService/getDiviInfo", crno=LIGHTRON_CRNO)
    assert rows and paid
    assert {r["crtmOnskCashDvdnAmt"] for r in rows} <= {p["stckGenrDvdnAmt"] for p in paid}
    assert all(r["crtmParPrc"] == p["stckParPrc"] for r in rows for p in paid)


def test_stock_issuance_agrees_with_prices_and_between_its_two_versions(client):
    prices, _ = fsc(client, "service/GetStockSecuritiesInfoService/getStockPriceInfo", basDt=DAY, srtnCd="069540")
    v2, _ = fsc(client, "service/GetStocIssuInfoService_V2/getItemBasiInfo_V2", basDt=DAY, crno=LIGHTRON_CRNO)
    v3, _ = fsc(client, "GetStocIssuInfoService_V3/getItemBasiInfo_V3", basDt=DAY, crno=LIGHTRON_CRNO)
    assert v2[0]["issuStckCnt"] == v3[0]["issuStckCnt"] == prices[0]["lstgStCnt"]
    assert v3[0]["itmsShrtnCd"] == "069540" and "itmsShrtnCd" not in v2[0]
    stat, _ = fsc(client, "GetStocIssuInfoService_V3/getStocIssuStat_V3", basDt=DAY, crno=LIGHTRON_CRNO)
    assert stat[0]["onskTisuCnt"] == prices[0]["lstgStCnt"]
    issues, _ = fsc(client, "GetStocIssuInfoService_V3/getStocIssuInfo_V3", basDt=DAY, crno=LIGHTRON_CRNO)
    reasons = {r["stckIssuRcdNm"]: int(r["issuStckCnt"]) for r in issues}
    assert reasons["설립"] + reasons["공모"] == int(prices[0]["lstgStCnt"])
    lockups, _ = fsc(client, "GetStocIssuInfoService_V3/getLockUpRetuInfo_V3", basDt=DAY, crno=LIGHTRON_CRNO)
    for row in lockups:  # a lock-up once returned holds nothing back
        returned = row["rsrnDt"] <= DAY
        assert (int(row["rsrnStckCnt"]) == int(row["lkupRegStckCnt"])) is returned
        assert (int(row["afrsRsqtCnt"]) == 0) is returned


def test_bond_master_data_finds_a_traded_bond_and_a_companys_convertible_bond(client):
    traded, _ = fsc(client, "service/GetBondSecuritiesInfoService/getBondPriceInfo", basDt=DAY, mrktCtg="KTS")
    master, total = fsc(client, "GetBondIssuInfoService_V2/getBondBasiInfo_V2", isinCd=traded[0]["isinCd"])
    assert total == 1 and master[0]["isinCdNm"] == traded[0]["itmsNm"] and master[0]["bondIsurNm"] == "대한민국정부"
    cbs, _ = fsc(client, "GetBondIssuInfoService_V2/getBondBasiInfo_V2", crno=LIGHTRON_CRNO)
    filing = next(f for f in client.sim.world.finance.filings if f.kind == "cvbd" and f.company.crno == LIGHTRON_CRNO)
    cb = next(r for r in cbs if r["isinCdNm"].endswith("CB"))
    assert cb["bondIssuAmt"] == filing.detail["bd_fta"].replace(",", "") and cb["bondOffrMcdNm"] == "사모"
    assert cb["bondIssuDt"] <= cb["nxtmCopnDt"] and cb["bondExprDt"] > DAY
    before, _ = fsc(client, "GetBondIssuInfoService_V2/getBondBasiInfo_V2", crno=LIGHTRON_CRNO, basDt="20260105")
    assert cb["isinCd"] not in {r["isinCd"] for r in before}  # issued later
    by_issuer, _ = fsc(client, "GetBondTradInfoService_V2/getIssuIssuItemStat_V2", crno=LIGHTRON_CRNO)
    first, _ = fsc(client, "service/GetBondTradInfoService/getIssuIssuItemStat", crno=LIGHTRON_CRNO)
    assert by_issuer == first and {r["isinCd"] for r in by_issuer} == {r["isinCd"] for r in cbs}


def test_financial_companies_statements_are_the_financial_statements_of_financial_companies(client):
    fin = client.sim.world.finance
    rows, total = fsc(client, "service/GetFnCoFinaStatCredInfoService_V2/getFnCoSummFinaStat_V2", bizYear="2025")
    assert total and all(fin.by_crno[r["crno"]].induty_code == "649" for r in rows)
    same, _ = fsc(client, "service/GetFinaStatInfoService_V2/getSummFinaStat_V2", crno=rows[0]["crno"], bizYear="2025")
    mine = {r["fnclDcd"]: r for r in same}
    for row in (r for r in rows if r["crno"] == rows[0]["crno"]):
        assert row["fncoSaleAmt"] == mine[row["fnclDcd"]]["enpSaleAmt"] and row["rptCd"] == "11011"
    none, total = fsc(client, "service/GetFnCoFinaStatCredInfoService_V2/getFnCoBs_V2", crno=LIGHTRON_CRNO)
    assert none == [] and total == 0  # 라이트론 is no financial company


def test_a_financial_companys_officers_start_with_the_ceo_the_outline_names(client):
    outline, _ = fsc(client, "service/GetFnCoBasiInfoService/getFnCoOutl", numOfRows=1)
    crno = outline[0]["crno"]
    officers, _ = fsc(client, "service/GetFnCoGoveInfoService/getFnCoExecInfo", crno=crno)
    ceo, _ = fsc(client, "service/GetFnCoGoveInfoService/getFnCoReprDireInfo", crno=crno)
    assert officers[0]["exutFnm"] == ceo[0]["ceoFnm"] == outline[0]["fncoRprNm"]
    assert [r["dataSqno"] for r in officers] == [str(n) for n in range(1, len(officers) + 1)]
    pay, _ = fsc(client, "service/GetFnCoGoveInfoService/getFnCoExecRemuStat", crno=crno)
    outside = sum(r["exutJbttNm"] == "사외이사" for r in officers)
    assert int(pay[0]["otdrCnt"]) == outside
    holders, _ = fsc(client, "service/GetFnCoGoveInfoService/getFnCoStocHoldInfo", crno=crno)
    assert holders and holders[0]["maxSthdRltNm"] == "본인"


def test_the_v2_stock_price_path_answers_as_the_first_one(client):
    old, n_old = fsc(client, "service/GetStockSecuritiesInfoService/getStockPriceInfo", likeItmsNm="라이트", basDt=DAY)
    new, n_new = fsc(client, "GetStockSecuritiesInfoService_V2/getStockPriceInfo_V2", likeItmsNm="라이트", basDt=DAY)
    assert old == new and n_old == n_new > 0
    ignored, _ = fsc(client, "GetStockSecuritiesInfoService_V2/getStockPriceInfo_V2", crno=LIGHTRON_CRNO, basDt=DAY)
    assert len(ignored) == 10  # crno is not a filter here: a page of the day's stocks


def test_the_as_of_day_hides_what_is_published_later():
    sim = Simulator(seed=0, as_of=dt.date(2026, 1, 16), registry_=Registry(("fsc",)))
    with httpx.Client(transport=SimTransport(sim)) as c:
        rows, _ = fsc(c, DISC + "getCbRighIssuDiscInfo_V2", crno=LIGHTRON_CRNO)
        assert [r["basDt"] for r in rows] == ["20260115"]
        sim_before = Simulator(seed=0, as_of=dt.date(2026, 1, 15), registry_=Registry(("fsc",)))
    with httpx.Client(transport=SimTransport(sim_before)) as c:
        assert fsc(c, DISC + "getCbRighIssuDiscInfo_V2", crno=LIGHTRON_CRNO) == ([], 0)
