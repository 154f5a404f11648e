"""OpenDART's operations kept as data (kopa_replay/sim/tables/dart.yaml): the well-known companies, periodic-report
sections, 주요사항보고서 and 증권신고서 tied to list.json, the two ZIP downloads, the financial tables."""

from __future__ import annotations

import io
import re
import zipfile
from xml.etree import ElementTree

import httpx
import pytest

from kopa_replay.sim import SimTransport, Simulator
from kopa_replay.sim.tables import load_table

KEY = "sim-key"
API = "https://opendart.fss.or.kr/api/"
SAMSUNG = "00126380"
#: (corp_code, stock_code, name) of the well-known companies clients probe with
FAMOUS = (
    (SAMSUNG, "005930", "삼성전자"),
    ("00164779", "000660", "SK하이닉스"),
    ("00164742", "005380", "현대자동차"),
    ("00401731", "066570", "LG전자"),
    ("00266961", "035420", "NAVER"),
    ("00258801", "035720", "카카오"),
)
OPERATIONS = load_table("dart").operations


@pytest.fixture(scope="module")
def dart():
    simulator = Simulator(seed=3)
    with httpx.Client(transport=SimTransport(simulator)) as client:

        def get(name: str, **params) -> httpx.Response:
            return client.get(API + name, params={"crtfc_key": KEY, **params})

        get.world = simulator.world  # type: ignore[attr-defined]
        yield get


def _op(route: str):
    return next(op for op in OPERATIONS if op.route == f"/api/{route}")


def _filings(dart, corp_code: str) -> dict[str, dict]:
    body = dart("list.json", corp_code=corp_code, bgn_de="20250101", end_de="20261231", page_count=100).json()
    assert body["status"] == "000"
    return {row["rcept_no"]: row for row in body["list"]}


def test_the_catalog_has_every_documented_operation():
    # the guide's DS001–DS006 list 83 operations; 14 are hand-written in the platform module
    routes = {op.route.rsplit("/", 1)[-1] for op in OPERATIONS}
    assert len(routes) == 69
    assert {"irdsSttus", "exctvSttus", "dfOcr", "cmpMgDecsn", "estkRs", "fnlttSinglAcntAll", "document"} <= routes


@pytest.mark.parametrize("corp_code,stock_code,name", FAMOUS)
def test_well_known_companies_exist_with_their_real_codes(dart, corp_code, stock_code, name):
    body = dart("company.json", corp_code=corp_code).json()
    assert (body["status"], body["corp_name"], body["stock_code"], body["corp_cls"]) == ("000", name, stock_code, "Y")


def test_a_section_of_a_periodic_report_is_that_report(dart):
    filings = _filings(dart, SAMSUNG)
    for route in ("irdsSttus", "exctvSttus", "mrhlSttus", "accnutAdtorNmNdAdtOpinion", "cprndNrdmpBlce"):
        body = dart(f"{route}.json", corp_code=SAMSUNG, bsns_year="2025", reprt_code="11012").json()
        assert body["status"] == "000", route
        for row in body["list"]:
            assert list(row) == list(_op(route).fields), route
            report = filings[row["rcept_no"]]
            assert report["report_nm"].startswith("반기보고서") and row["corp_name"] == "삼성전자"
            assert row["stlm_dt"] == "2025-06-30" and row["corp_cls"] == "Y"


def test_report_sections_refuse_what_dart_refuses(dart):
    assert dart("exctvSttus.json", corp_code="99999999", bsns_year="2025", reprt_code="11011").json()["status"] == "013"
    assert dart("exctvSttus.json", corp_code=SAMSUNG, bsns_year="2025", reprt_code="11015").json()["status"] == "100"
    assert dart("exctvSttus.json", corp_code=SAMSUNG, bsns_year="2025").json()["status"] == "100"
    # not filed yet at the as-of day: no data
    assert dart("exctvSttus.json", corp_code=SAMSUNG, bsns_year="2030", reprt_code="11011").json()["status"] == "013"


@pytest.mark.parametrize("route", ["dfOcr", "cmpMgDecsn", "tsstkDpDecsn", "lwstLg"])
def test_a_decision_is_a_filing_of_that_company_in_its_window(dart, route):
    op = _op(route)
    body = dart(f"{route}.json", **op.example).json()
    assert body["status"] == "000"
    corp_code = op.example["corp_code"]
    filings = _filings(dart, corp_code)
    kdate = re.compile(r"^[0-9]{4}년 [0-9]{2}월 [0-9]{2}일$")
    for row in body["list"]:
        assert list(row) == list(op.fields)
        filing = filings[row["rcept_no"]]
        assert filing["report_nm"] == op.options["event"]["title"] and row["corp_code"] == corp_code
        assert op.example["bgn_de"] <= filing["rcept_dt"] <= op.example["end_de"]
        for name, kind in op.options["values"].items():
            if kind == "decided":  # the board's decision day is the filing's day
                day = filing["rcept_dt"]
                assert row[name] == f"{day[:4]}년 {day[4:6]}월 {day[6:]}일"
            elif kind == "kdate":
                assert kdate.match(row[name]), (name, row[name])
            elif kind.startswith("~"):  # a part of other figures (the daily sell limit of the planned shares)
                whole = sum(_figure(row[n]) for n in kind[1:].split()[::2])
                assert 0 < _figure(row[name]) <= whole or whole == 0 == _figure(row[name]), (name, row[name])
    # a window without the report has none
    assert dart(f"{route}.json", corp_code=corp_code, bgn_de="20150101", end_de="20150131").json()["status"] == "013"


BALANCES = ("entrprsBilScritsNrdmpBlce", "srtpdPsndbtNrdmpBlce", "cprndNrdmpBlce", "newCaplScritsNrdmpBlce",
            "cndlCaplScritsNrdmpBlce")  # fmt: skip


def _figure(text: str) -> int:
    return 0 if text == "-" else int(text.replace(",", ""))


def _listed_sections(dart, route: str, count: int = 12):
    """The route's answers for the first listed companies' 2025 half-year and annual reports (those that have it)."""
    listed = [c.corp_code for c in dart.world.finance.companies if c.stock_code][:count]
    for corp_code in listed:
        for reprt_code in ("11012", "11011"):
            body = dart(f"{route}.json", corp_code=corp_code, bsns_year="2025", reprt_code=reprt_code).json()
            if body["status"] == "000":
                yield body["list"]


@pytest.mark.parametrize("route", BALANCES)
def test_outstanding_balances_are_public_private_and_their_total(dart, route):
    buckets = [n for n in _op(route).fields if n.startswith(("de", "yy"))]
    answered = 0
    for rows in _listed_sections(dart, route):
        answered += 1
        assert [(r["remndr_exprtn1"], r["remndr_exprtn2"]) for r in rows] == [
            ("미상환잔액", "공모"), ("미상환잔액", "사모"), ("미상환잔액", "합계")
        ]  # fmt: skip
        for row in rows:
            assert _figure(row["sm"]) == sum(_figure(row[n]) for n in buckets)
            if "isu_lmt" in row:  # the issue limit is what is out plus what is left
                assert _figure(row["isu_lmt"]) == _figure(row["sm"]) + _figure(row["remndr_lmt"])
        for name in [*buckets, "sm"]:
            assert _figure(rows[2][name]) == _figure(rows[0][name]) + _figure(rows[1][name]), name
    assert answered


def test_treasury_shares_flow_and_add_up_by_share_kind(dart):
    flows = ("bsis_qy", "change_qy_acqs", "change_qy_dsps", "change_qy_incnr", "trmend_qy")
    held = 0
    for rows in _listed_sections(dart, "tesstkAcqsDspsSttus"):
        assert {r["stock_knd"] for r in rows} == {"보통주", "우선주"}
        for row in rows:
            start, bought, sold, retired, end = (_figure(row[n]) for n in flows)
            assert start + bought - sold - retired == end >= 0
            held += end > 0
        for kind in ("보통주", "우선주"):
            own = [r for r in rows if r["stock_knd"] == kind]
            leaves = [r for r in own if r["acqs_mth3"] not in ("소계", "총계")]
            direct = [r for r in leaves if r["acqs_mth2"] == "직접취득"]
            (subtotal,) = [r for r in own if r["acqs_mth2"] == "직접취득" and r["acqs_mth3"] == "소계"]
            (total,) = [r for r in own if r["acqs_mth1"] == "총계"]
            for name in flows:
                assert _figure(total[name]) == sum(_figure(r[name]) for r in leaves)
                assert _figure(subtotal[name]) == sum(_figure(r[name]) for r in direct)
    assert held  # some companies do hold treasury shares


def test_board_pay_by_type_averages_per_person(dart):
    for rows in _listed_sections(dart, "drctrAdtAllMendngSttusMendngPymntamtTyCl", 4):
        assert [r["se"] for r in rows][:2] == [
            "등기이사(사외이사, 감사위원회 위원 제외)",
            "사외이사(감사위원회 위원 제외)",
        ]
        for row in rows:
            assert _figure(row["psn1_avrg_pymntamt"]) * _figure(row["nmpr"]) == _figure(row["pymnt_totamt"]) > 0


def test_a_registration_statement_answers_in_groups(dart):
    op = _op("estkRs")
    body = dart("estkRs.json", **op.example).json()
    assert body["status"] == "000" and "list" not in body
    assert [g["title"] for g in body["group"]] == [g["title"] for g in op.options["groups"]]
    filings = _filings(dart, op.example["corp_code"])
    for group, spec in zip(body["group"], op.options["groups"]):
        assert group["list"]
        for row in group["list"]:
            assert list(row) == list(spec["fields"])
            assert filings[row["rcept_no"]]["report_nm"] == "증권신고서(지분증권)"


def test_document_download_names_its_file_and_holds_the_filing(dart):
    filings = _filings(dart, SAMSUNG)
    rcept_no = sorted(filings)[0]
    response = dart("document.xml", rcept_no=rcept_no)
    assert response.content[:2] == b"PK"
    assert response.headers["content-disposition"] == f"attachment; filename={rcept_no}.zip"
    with zipfile.ZipFile(io.BytesIO(response.content)) as archive:
        assert archive.namelist() == [f"{rcept_no}.xml"]
        root = ElementTree.fromstring(archive.read(f"{rcept_no}.xml"))
    assert root.tag == "DOCUMENT" and root.findtext("DOCUMENT-NAME") == filings[rcept_no]["report_nm"]
    missing = dart("document.xml", rcept_no="20250101999999")
    assert "content-disposition" not in missing.headers
    assert ElementTree.fromstring(missing.content).findtext("status") == "014"


def test_xbrl_download_of_a_periodic_report(dart):
    response = dart("fnlttXbrl.xml", rcept_no="20250311001085", reprt_code="11011")
    assert response.headers["content-disposition"].startswith("attachment; filename=20250311001085")
    with zipfile.ZipFile(io.BytesIO(response.content)) as archive:
        root = ElementTree.fromstring(archive.read(archive.namelist()[0]))
    assert {item.findtext("account_id") for item in root.iter("item")} >= {"ifrs-full_Assets", "ifrs-full_Revenue"}
    # the report is the annual one: another report code finds no file
    wrong = dart("fnlttXbrl.xml", rcept_no="20250311001085", reprt_code="11012")
    assert ElementTree.fromstring(wrong.content).findtext("status") == "014"


def test_all_accounts_and_indicators_agree_with_the_key_accounts(dart):
    args = {"corp_code": SAMSUNG, "bsns_year": "2025", "reprt_code": "11011"}
    key = {(r["fs_div"], r["account_nm"]): r for r in dart("fnlttSinglAcnt.json", **args).json()["list"]}
    every = dart("fnlttSinglAcntAll.json", **args, fs_div="CFS").json()["list"]
    assets = next(r for r in every if r["account_nm"] == "자산총계")
    assert assets["thstrm_amount"] == key[("CFS", "자산총계")]["thstrm_amount"]
    assert assets["rcept_no"] == key[("CFS", "자산총계")]["rcept_no"]
    indicators = dart("fnlttSinglIndx.json", **args, idx_cl_code="M220000").json()["list"]
    debt_ratio = float(next(r for r in indicators if r["idx_nm"] == "부채비율")["idx_val"])

    def amount(name):
        return int(key[("CFS", name)]["thstrm_amount"].replace(",", ""))

    assert debt_ratio == pytest.approx(amount("부채총계") / amount("자본총계"), abs=1e-3)
    assert dart("fnlttSinglAcntAll.json", **args).json()["status"] == "100"  # fs_div is required


def test_taxonomy_takes_only_the_documented_statement_kinds(dart):
    rows = dart("xbrlTaxonomy.json", sj_div="BS1").json()["list"]
    assert {"sj_div": "BS1", "account_id": "ifrs-full_CurrentAssets"}.items() <= rows[0].items()
    assert dart("xbrlTaxonomy.json", sj_div="XX9").json()["status"] == "100"


def test_every_world_size_holds_the_well_known_companies_and_dart_real_counts():
    from kopa_replay.sim.world import WORLD_SIZES

    full = WORLD_SIZES["full"]
    # corpCode.xml keeps its real size (114,106 entries) with the well-known companies among them
    assert full.listed_companies + full.unlisted_companies == 114_106
    finance = Simulator(seed=1).world.finance
    assert {code for code, _, _ in FAMOUS} <= set(finance.by_corp_code)
    assert len(finance.companies) == finance._world.sizes.listed_companies + finance._world.sizes.unlisted_companies
