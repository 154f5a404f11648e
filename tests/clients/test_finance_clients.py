"""Finance clients nobody here wrote — KRX Open API and OpenDART — run unchanged against `sim serve`.

Each client keeps its URLs, parameters, parsing and error handling; only the host changes (conftest.py): pykrx-openapi
and cluefin-openapi (requests) through their transport; krx-openapi through its module's
base URL (it calls urllib itself); krxon and cluefin's DART client through the base URL they take.
"""

from __future__ import annotations

import datetime as dt
import re

import pytest

KEY = "sim-key"  # the key `sim serve` takes (conftest.KEY)
pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

DAY = "20260828"  # a Friday whose data is out by the as-of date (2026-09-01)
SATURDAY = "20260829"


# --------------------------------------------------------------------------- pykrx-openapi (raccoonyy): GET, AUTH_KEY in the query


@pytest.fixture
def pykrx_openapi(rerouted):
    module = pytest.importorskip("pykrx_openapi")
    return module.KRXOpenAPI(KEY)


def test_pykrx_openapi_reads_daily_trades_and_the_issue_master(pykrx_openapi, rerouted):
    trades = pykrx_openapi.get_stock_daily_trade(DAY)["OutBlock_1"]
    master = pykrx_openapi.get_stock_base_info(DAY)["OutBlock_1"]
    assert rerouted == [
        "data-dbg.krx.co.kr/svc/apis/sto/stk_bydd_trd",
        "data-dbg.krx.co.kr/svc/apis/sto/stk_isu_base_info",
    ]
    # Its converter turns dates into datetimes and prices, volumes and values into numbers: our strings parse.
    assert len(trades) > 50 and {t["BAS_DD"] for t in trades} == {dt.datetime(2026, 8, 28)}
    assert all(isinstance(t["TDD_CLSPRC"], float) and isinstance(t["ACC_TRDVOL"], int) for t in trades)
    assert all(t["TDD_LWPRC"] <= t["TDD_CLSPRC"] <= t["TDD_HGPRC"] for t in trades)
    # The binding trap: ISU_CD is the short code in the daily trades, the ISIN in the master (KR7 + short code + …).
    # (Its converter takes the master's ISU_SRT_CD for a rate — the RT in SRT — and makes 000270 the float 270.0, so
    # the chain goes through the ISIN.)
    by_short = {t["ISU_CD"]: t for t in trades}
    assert master and isinstance(master[0]["ISU_SRT_CD"], float)
    for issue in master:
        assert (
            re.fullmatch(r"KR7\d{6}\d{3}", issue["ISU_CD"])
            and by_short[issue["ISU_CD"][3:9]]["ISU_NM"] == issue["ISU_ABBRV"]
        )


def test_pykrx_openapi_every_service_answers_and_a_weekend_is_empty(pykrx_openapi):
    for method in sorted(m for m in dir(pykrx_openapi) if m.startswith("get_")):
        assert getattr(pykrx_openapi, method)(DAY)["OutBlock_1"], method
    assert pykrx_openapi.get_kospi_daily_trade(SATURDAY) == {"OutBlock_1": []}
    index = {row["IDX_NM"]: row for row in pykrx_openapi.get_kospi_daily_trade(DAY)["OutBlock_1"]}
    assert index["코스피"]["CLSPRC_IDX"] > 0


def test_pykrx_openapi_raises_its_own_error_for_a_wrong_key(rerouted):
    module = pytest.importorskip("pykrx_openapi")
    from pykrx_openapi.exceptions import KRXAuthenticationError

    with pytest.raises(KRXAuthenticationError):
        module.KRXOpenAPI("not-a-key").get_stock_daily_trade(DAY)


# --------------------------------------------------------------------------- krx-openapi (seokhoonj): GET, AUTH_KEY header


@pytest.fixture
def krx_openapi(servers, monkeypatch):
    pytest.importorskip("krx_openapi")
    import krx_openapi._endpoint as endpoint

    # The endpoints build their URL from this module constant at call time: the host rewrite.
    monkeypatch.setattr(endpoint, "BASE_URL", f"{servers()}/data-dbg.krx.co.kr/svc/apis")
    from krx_openapi import KRX

    return KRX


def test_krx_openapi_reads_markets_by_its_category_surfaces(krx_openapi):
    krx = krx_openapi(KEY)
    kosdaq = krx.stock.daily(DAY, market="KOSDAQ")
    info = {row["ISU_SRT_CD"]: row for row in krx.stock.info(DAY, market="KOSDAQ")}
    assert kosdaq and {row["MKT_NM"] for row in kosdaq} == {"KOSDAQ"} and set(info) == {row["ISU_CD"] for row in kosdaq}
    surfaces = {
        "index": ["krx", "kospi", "kosdaq", "bond", "derivatives"],
        "etp": ["etf", "etn", "elw"],
        "bond": ["treasury", "general", "small_lot"],
        "commodity": ["oil", "gold", "emissions"],
        "esg": ["sri_bond", "etp", "index"],
        "derivatives": ["futures", "options"],
    }
    for category, methods in surfaces.items():
        for method in methods:
            assert getattr(getattr(krx, category), method)(DAY), f"{category}.{method}"
    assert krx.stock.daily(SATURDAY) == []


def test_krx_openapi_surfaces_an_http_401_for_a_wrong_key(krx_openapi):
    from krx_openapi.errors import KRXError

    with pytest.raises(KRXError, match="401"):
        krx_openapi("not-a-key").stock.daily(DAY)


# --------------------------------------------------------------------------- krxon (seungdols): POST, JSON body


def test_krxon_posts_its_arguments_as_a_json_body(servers):
    krx = pytest.importorskip("krx")
    client = krx.KrxClient(KEY, base_url=f"{servers()}/data-dbg.krx.co.kr/svc/apis")
    try:
        daily = client.get_kospi_stock_daily(DAY)
        info = client.get_kospi_stock_info(DAY)
        assert daily and {row["BAS_DD"] for row in daily} == {DAY}
        assert {row["ISU_SRT_CD"] for row in info} == {row["ISU_CD"] for row in daily}
        for method in ("get_kospi_index_daily", "get_etf_daily", "get_futures_daily", "get_stock_options_kosdaq_daily"):
            assert getattr(client, method)(DAY), method
        assert client.get_kosdaq_stock_daily(SATURDAY) == []
    finally:
        client.close()


# --------------------------------------------------------------------------- cluefin-openapi (kgcrom): OpenDART, pydantic models


@pytest.fixture
def cluefin(servers):
    pytest.importorskip("cluefin_openapi")
    from cluefin_openapi.dart._client import Client

    client = Client(KEY, rate_limit_requests_per_second=100, rate_limit_burst=100)
    client.base_url = f"{servers()}/opendart.fss.or.kr"  # its base-URL attribute: the host rewrite
    yield client
    client.close()


SAMSUNG = "00126380"
REPORT = {"corp_code": SAMSUNG, "bsns_year": "2025", "reprt_code": "11011"}


def _balances(key):
    """The five 미상환 잔액 sections of cluefin's periodic-report client."""
    return [
        key.get_outstanding_commercial_paper_balance,
        key.get_outstanding_short_term_bonds,
        key.get_outstanding_corporate_bonds,
        key.get_outstanding_hybrid_capital_securities,
        key.get_outstanding_contingent_capital_securities,
    ]


def _figure(text: str) -> int:
    """A DART figure: "1,234" is 1234, "-" none."""
    return 0 if text.strip() == "-" else int(text.replace(",", ""))


def test_cluefin_reads_the_register_a_company_and_its_filings(cluefin, tmp_path):
    disclosure = cluefin.public_disclosure
    register = {item.corp_code: item for item in disclosure.corp_code().result.list}  # corpCode.xml, unzipped by it
    assert register[SAMSUNG].corp_name == "삼성전자" and register[SAMSUNG].stock_code == "005930"
    outline = disclosure.company_overview(SAMSUNG)
    assert outline.corp_name == "삼성전자" and outline.stock_code == "005930" and outline.corp_cls == "Y"
    found = disclosure.public_disclosure_search(corp_code=SAMSUNG, bgn_de="20260101", end_de="20260831").result
    assert found.total_count >= len(found.list) > 0 and {f.corp_code for f in found.list} == {SAMSUNG}
    assert all(re.fullmatch(r"\d{14}", f.rcept_no) and "20260101" <= f.rcept_dt <= "20260831" for f in found.list)
    # A receipt number from the search fetches that filing's original document (a ZIP holding its XML).
    path = disclosure.disclosure_document_file(found.list[0].rcept_no, destination=tmp_path)
    assert path.read_bytes().startswith(b"<?xml") and "삼성전자" in path.read_text(encoding="utf-8")


def test_cluefin_reads_periodic_report_sections_into_its_models(cluefin):
    filed = cluefin.public_disclosure.public_disclosure_search(corp_code=SAMSUNG, bgn_de="20260101", end_de="20260831")
    annual = {f.rcept_no for f in filed.result.list if f.report_nm.startswith("사업보고서 (2025.12)")}
    key = cluefin.periodic_report_key_information
    sections = [
        key.get_dividend_information,
        key.get_employee_status,
        key.get_executive_status,
        key.get_major_shareholder_status,
        key.get_total_number_of_shares,
        key.get_auditor_name_and_opinion,
        key.get_capital_change_status,
        key.get_treasury_stock_activity,
        key.get_board_and_audit_compensation_by_type,
        *_balances(key),
    ]
    for section in sections:
        rows = section(**REPORT).result.list
        # Every row parses into the client's model, and each names the annual report the search listed.
        assert rows and {row.rcept_no for row in rows} == annual, section.__name__
    for balance in _balances(key):
        # 미상환 잔액: a 공모, a 사모 and a 합계 row; each row's sm is its buckets' sum, 합계 the other two's.
        rows = {row.remndr_exprtn2: row for row in balance(**REPORT).result.list}
        assert list(rows) == ["공모", "사모", "합계"] and {r.remndr_exprtn1 for r in rows.values()} == {"미상환잔액"}
        buckets = [n for n in type(rows["합계"]).model_fields if n.startswith(("de", "yy"))]
        assert len(buckets) >= 5, balance.__name__
        for row in rows.values():
            assert _figure(row.sm) == sum(_figure(getattr(row, n)) for n in buckets), balance.__name__
        for name in [*buckets, "sm"]:
            public, private, total = (_figure(getattr(rows[k], name)) for k in ("공모", "사모", "합계"))
            assert total == public + private, (balance.__name__, name)
    short = {row.remndr_exprtn2: row for row in key.get_outstanding_short_term_bonds(**REPORT).result.list}
    assert all(_figure(r.isu_lmt) == _figure(r.sm) + _figure(r.remndr_lmt) for r in short.values())
    # 자기주식: 기초 + 취득 - 처분 - 소각 = 기말 on every row; 총계 is the sum of the routes' rows of its share kind.
    treasury = key.get_treasury_stock_activity(**REPORT).result.list
    flows = ("bsis_qy", "change_qy_acqs", "change_qy_dsps", "change_qy_incnr", "trmend_qy")
    for row in treasury:
        start, bought, sold, retired, end = (_figure(getattr(row, n)) for n in flows)
        assert start + bought - sold - retired == end >= 0
    for kind in {row.stock_knd for row in treasury}:
        own = [row for row in treasury if row.stock_knd == kind]
        routes = [row for row in own if "계" not in row.acqs_mth3]
        (total,) = [row for row in own if row.acqs_mth1 == "총계"]
        assert all(_figure(getattr(total, n)) == sum(_figure(getattr(r, n)) for r in routes) for n in flows)
    pay = key.get_board_and_audit_compensation_by_type(**REPORT).result.list
    assert all(_figure(p.psn1_avrg_pymntamt) * _figure(p.nmpr) == _figure(p.pymnt_totamt) for p in pay)
    statements = cluefin.periodic_report_financial_statement
    accounts = statements.get_single_company_major_accounts(**REPORT).result.list
    assert {a.sj_div for a in accounts} >= {"BS", "IS"} and {a.fs_div for a in accounts} <= {"CFS", "OFS"}
    full = statements.get_single_company_full_statements(**REPORT, fs_div="CFS").result.list
    assert {a.sj_div for a in full} >= {"BS", "IS"} and all(a.account_id and a.currency == "KRW" for a in full)


def test_cluefin_reads_material_event_decisions_into_its_models(cluefin):
    from kopa_replay.sim.tables import load_table

    examples = {op.route.rsplit("/", 1)[-1]: op.example for op in load_table("dart").operations}
    decisions = cluefin.major_shareholder_disclosure
    for route, read in (
        ("tsstkDpDecsn", decisions.treasury_stock_disposal_decision),
        ("bsnInhDecsn", decisions.business_plan_decision),
        ("otcprStkInvscrInhDecsn", decisions.retirement_stock_investment_plan_decision),
        ("stkrtbdInhDecsn", decisions.stock_related_bond_plan_decision),
    ):
        rows = read(**examples[route]).result.list  # every row parses into the client's model
        assert rows and {row.corp_code for row in rows} == {examples[route]["corp_code"]}, route
    disposals = decisions.treasury_stock_disposal_decision(**examples["tsstkDpDecsn"]).result.list
    # the daily sell-order limit is part of the shares the company plans to dispose of
    assert all(0 < _figure(d.d1_slodlm_ostk) <= _figure(d.dppln_stk_ostk) for d in disposals)


def test_cluefin_reads_ownership_reports_and_no_data(cluefin):
    holdings = cluefin.share_disclosure_comprehensive
    assert holdings.large_holding_report(corp_code=SAMSUNG).result.list
    assert holdings.executive_major_shareholder_ownership_report(corp_code=SAMSUNG).result.list
    # No report for a year long before the world's filings: status 013, an empty list (its NO_DATA).
    empty = cluefin.periodic_report_key_information.get_dividend_information(
        corp_code=SAMSUNG, bsns_year="2015", reprt_code="11011"
    )
    assert empty.result.status.value == "013" and not empty.result.list
