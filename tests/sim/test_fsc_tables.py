"""금융위원회 operations kept as data (kopa_replay/sim/tables/fsc.yaml) and the two KRX ESG services.

The market services republish the exchange's day, so the same instrument agrees across KRX and data.go.kr;
filters follow the gateway's convention (exact, like…, begin…/end… with endBasDt exclusive).
"""

from __future__ import annotations

import httpx
import pytest

from kopa_replay.sim import SimTransport, Simulator
from kopa_replay.sim.registry import Registry

KEY = "sim-key"
BASE = "https://apis.data.go.kr/1160100/service/"
KRX = "https://data-dbg.krx.co.kr/svc/apis/"
DAY = "20260831"


@pytest.fixture(scope="module")
def client():
    sim = Simulator(seed=0, registry_=Registry(("fsc", "krx")))
    with httpx.Client(transport=SimTransport(sim)) as c:
        c.sim = sim  # type: ignore[attr-defined]
        yield c


def fsc(client, path: str, **params) -> tuple[list[dict], int]:
    body = client.get(BASE + path, params={"serviceKey": KEY, "resultType": "json", **params}).json()
    items = body["response"]["body"]["items"]
    items = [] if items == "" else items["item"]
    return (items if isinstance(items, list) else [items]), int(body["response"]["body"]["totalCount"])


def krx(client, path: str, day: str = DAY) -> list[dict]:
    return client.get(KRX + path, params={"basDd": day}, headers={"AUTH_KEY": KEY}).json()["OutBlock_1"]


def test_an_etf_is_the_same_on_krx_and_on_data_go_kr(client):
    etfs, total = fsc(client, "GetSecuritiesProductInfoService/getETFPriceInfo", basDt=DAY)
    by_code = {r["ISU_CD"]: r for r in krx(client, "etp/etf_bydd_trd")}
    assert total == len(by_code) and etfs
    for row in etfs:
        same = by_code[row["srtnCd"]]
        assert (row["clpr"], row["nav"], row["stLstgCnt"]) == (same["TDD_CLSPRC"], same["NAV"], same["LIST_SHRS"])
        assert row["isinCd"].startswith("KR7" + row["srtnCd"])


def test_end_bas_dt_is_exclusive_and_begin_bas_dt_inclusive(client):
    rows, _ = fsc(
        client,
        "GetSecuritiesProductInfoService/getETNPriceInfo",
        beginBasDt="20260824",
        endBasDt="20260828",
        numOfRows=100,
    )
    assert sorted({r["basDt"] for r in rows}, reverse=True) == ["20260827", "20260826", "20260825", "20260824"]
    assert [r["basDt"] for r in rows] == sorted((r["basDt"] for r in rows), reverse=True)  # newest first


def test_filters_follow_the_gateway_convention(client):
    small, _ = fsc(client, "GetBondSecuritiesInfoService/getBondPriceInfo", basDt=DAY, mrktCtg="소액채권")
    assert small and {r["mrktCtg"] for r in small} == {"소액채권"}
    assert {r["xpYrCnt"] for r in small} == {" "}  # maturity years come on KTS only
    kts, _ = fsc(client, "GetBondSecuritiesInfoService/getBondPriceInfo", basDt=DAY, mrktCtg="KTS")
    assert all(r["xpYrCnt"].strip() and r["itmsCtg"] in ("지표", "경과") for r in kts)
    calls, _ = fsc(
        client, "GetDerivativeProductInfoService/getOptionsPriceInfo", basDt=DAY, likeItmsNm=" C ", numOfRows=99
    )
    assert calls and all(" C " in r["itmsNm"] for r in calls)
    rising, _ = fsc(client, "GetSecuritiesProductInfoService/getETFPriceInfo", basDt=DAY, beginVs="0")
    falling, _ = fsc(client, "GetSecuritiesProductInfoService/getETFPriceInfo", basDt=DAY, endVs="0")
    assert all(int(r["vs"]) >= 0 for r in rising) and all(int(r["vs"]) < 0 for r in falling)
    assert len(rising) + len(falling) == 8


def test_a_warrant_names_its_underlying_stock_by_isin_and_close(client):
    rows, _ = fsc(client, "GetStockSecuritiesInfoService/getPreemptiveRightSecuritiesPriceInfo", basDt=DAY)
    row = rows[0]
    stock, _ = fsc(client, "GetStockSecuritiesInfoService/getStockPriceInfo", basDt=DAY, isinCd=row["purRgtScrtItmsCd"])
    assert stock[0]["itmsNm"] == row["purRgtScrtItmsNm"] and stock[0]["clpr"] == row["purRgtScrtItmsClpr"]
    by_name, _ = fsc(
        client,
        "GetStockSecuritiesInfoService/getPreemptiveRightSecuritiesPriceInfo",
        basDt=DAY,
        purRgtScrtItmsNm=row["purRgtScrtItmsNm"],
    )
    assert row in by_name and all(r["purRgtScrtItmsNm"] == row["purRgtScrtItmsNm"] for r in by_name)


def test_kospi_index_agrees_with_krx_and_its_year_range_holds_the_close(client):
    rows, _ = fsc(client, "GetMarketIndexInfoService/getStockMarketIndex", basDt=DAY, idxNm="코스피 200")
    (row,) = rows
    krx_row = next(r for r in krx(client, "idx/kospi_dd_trd") if r["IDX_NM"] == "코스피 200")
    assert row["clpr"] == krx_row["CLSPRC_IDX"] and row["idxCsf"] == "KOSPI시리즈"
    assert float(row["yrWRcrdLwst"]) <= float(row["clpr"]) <= float(row["yrWRcrdHgst"])
    assert row["yrWRcrdHgstDt"][:4] == row["yrWRcrdLwstDt"][:4] == DAY[:4]


def test_affiliates_of_one_company_resolve_to_companies(client):
    fin = client.sim.world.finance
    company = fin.listed[0]
    rows, total = fsc(client, "GetCorpBasicInfoService_V2/getAffiliate_V2", crno=company.crno)
    assert rows and total == len(rows)
    for row in rows:
        assert row["crno"] == company.crno and row["afilCmpyCrno"] in fin.by_crno
        assert row["lstgYn"] == ("Y" if fin.by_crno[row["afilCmpyCrno"]].listed else "N")
    none, total = fsc(client, "GetCorpBasicInfoService_V2/getAffiliate_V2", crno="0000000000000")
    assert none == [] and total == 0


def test_a_market_wide_company_table_pages_without_building_every_row(client):
    first, total = fsc(client, "GetCorpBasicInfoService_V2/getConsSubsComp_V2", numOfRows=5)
    last, again = fsc(client, "GetCorpBasicInfoService_V2/getConsSubsComp_V2", numOfRows=5, pageNo=(total + 4) // 5)
    assert len(first) == 5 and again == total and 1 <= len(last) <= 5
    assert all(client.sim.world.finance.by_crno[r["crno"]].has_cfs for r in first + last)


def test_financial_companies_carry_their_dart_code(client):
    rows, _ = fsc(client, "GetFnCoBasiInfoService/getFnCoOutl", numOfRows=3)
    fin = client.sim.world.finance
    for row in rows:
        company = fin.by_crno[row["crno"]]
        assert row["fssCorpUnqNo"] == company.corp_code and company.induty_code == "649"


@pytest.mark.parametrize("service, name", [("esg/esg_etp_info", "ISU_ABBRV"), ("esg/esg_index_info", "IDX_NM")])
def test_the_krx_esg_services_list_a_day_and_nothing_on_a_holiday(client, service, name):
    rows = krx(client, service)
    assert rows and all(r["BAS_DD"] == DAY and r[name] for r in rows)
    assert krx(client, service, "20260830") == []  # a Sunday
