"""Public client libraries nobody here wrote, run unchanged against `kopa-replay sim serve`.

The one change is the host, as a user pointing a client at a local server would make it (conftest.py): requests-based
clients (OpenDartReader, PublicDataReader) go through a transport adapter that sends ``https://HOST/path?query`` to
``http://127.0.0.1:N/HOST/path?query`` (the client's URLs, parameters, parsing and error handling are untouched);
neispy takes its base URL as a class attribute. The server is the real CLI in its own process, on the small
world (the behaviour these clients read is the same at every size; the full world's 114,106-company corpCode
download only makes the test slower). More clients, of more platforms: test_finance_clients.py and
test_public_sector_clients.py.
"""

from __future__ import annotations

import asyncio

import pytest

requests = pytest.importorskip("requests")
pytest.importorskip("OpenDartReader")
pytest.importorskip("PublicDataReader")
pytest.importorskip("neispy")

KEY = "sim-key"


# Clients written by others use APIs their dependencies have deprecated (BeautifulSoup's findAll …); the suite turns
# warnings into errors, which those clients would swallow in their own bare excepts and report as a failed call.
pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


# --------------------------------------------------------------------------- OpenDartReader (FinanceData)


@pytest.fixture
def dart(rerouted):
    import OpenDartReader

    # The constructor downloads corpCode.xml (a ZIP holding CORPCODE.xml) and keeps it as a DataFrame.
    reader = OpenDartReader(KEY)
    assert rerouted == ["opendart.fss.or.kr/api/corpCode.xml"]
    return reader


def test_opendartreader_reads_the_company_register_and_a_company(dart):
    codes = dart.corp_codes
    assert {"corp_code", "corp_name", "stock_code"} <= set(codes.columns)
    assert len(codes) > 100
    lightron = codes[codes.stock_code == "069540"]
    assert list(lightron.corp_name) == ["라이트론"]
    outline = dart.company("069540")  # by stock code, looked up in the register
    assert outline["status"] == "000" and outline["corp_name"] == "라이트론"
    assert dart.find_corp_code("라이트론") == lightron.corp_code.iloc[0]


def test_opendartreader_lists_filings_and_reads_financial_statements(dart):
    filings = dart.list("069540", start="2025-01-01", end="2026-08-31")
    assert len(filings) > 0 and set(filings.corp_name) == {"라이트론"}
    assert filings.rcept_dt.str.fullmatch(r"\d{8}").all()
    statements = dart.finstate("069540", 2025)
    assert len(statements) > 0 and "thstrm_amount" in statements.columns
    assert set(statements.sj_div) >= {"BS", "IS"}


def test_opendartreader_reads_report_sections(dart):
    dividends = dart.report("069540", "배당", 2025)
    assert len(dividends) > 0 and "se" in dividends.columns
    holders = dart.major_shareholders("069540")
    assert len(holders) > 0 and "repror" in holders.columns


# --------------------------------------------------------------------------- PublicDataReader (WooilJeong)


def test_publicdatareader_reads_apartment_trades_and_rents(rerouted):
    from PublicDataReader import TransactionPrice

    prices = TransactionPrice(KEY)
    trades = prices.get_data(property_type="아파트", trade_type="매매", sigungu_code="11680", year_month="202607")
    assert len(trades) > 0 and set(trades["sggCd"]) == {"11680"}
    assert trades["dealAmount"].str.replace(",", "").str.strip().str.isdigit().all()
    rents = prices.get_data(property_type="아파트", trade_type="전월세", sigungu_code="11680", year_month="202607")
    assert len(rents) > 0 and "deposit" in rents.columns
    assert rerouted[0] == "apis.data.go.kr/1613000/RTMSDataSvcAptTradeDev/getRTMSDataSvcAptTradeDev"


@pytest.mark.parametrize(
    ("property_type", "trade_type", "service", "name_column"),
    [
        ("오피스텔", "매매", "RTMSDataSvcOffiTrade", "offiNm"),
        ("오피스텔", "전월세", "RTMSDataSvcOffiRent", "offiNm"),
        ("연립다세대", "매매", "RTMSDataSvcRHTrade", "mhouseNm"),
        ("연립다세대", "전월세", "RTMSDataSvcRHRent", "mhouseNm"),
        ("단독다가구", "매매", "RTMSDataSvcSHTrade", "houseType"),
        ("단독다가구", "전월세", "RTMSDataSvcSHRent", "houseType"),
        ("토지", "매매", "RTMSDataSvcLandTrade", "jimok"),
        ("상업업무용", "매매", "RTMSDataSvcNrgTrade", "buildingUse"),
        ("분양입주권", "매매", "RTMSDataSvcSilvTrade", "aptNm"),
    ],
)
def test_publicdatareader_reads_every_other_property_type(rerouted, property_type, trade_type, service, name_column):
    from PublicDataReader import TransactionPrice

    # Its table of services names each one's columns; it reads the XML items into them and keeps those columns.
    rows = TransactionPrice(KEY).get_data(
        property_type=property_type, trade_type=trade_type, sigungu_code="11680", year_month="202607"
    )
    assert rerouted[0] == f"apis.data.go.kr/1613000/{service}/get{service}"
    assert len(rows) > 0 and set(rows["sggCd"]) == {"11680"}
    assert rows[name_column].ne("").all() and rows["dealYear"].eq("2026").all()


def test_publicdatareader_reads_the_building_register_of_a_dong_and_of_one_lot(rerouted):
    from PublicDataReader import BuildingLedger

    # 1.1.0 still calls the pre-HUB BldRgstService_v2 paths, with numOfRows=99999; the service pages by 100 and the
    # client walks the pages (its wait_time between them is an argument of its own, set to 0 here)
    ledger = BuildingLedger(KEY)
    titles = ledger.get_data("표제부", "11680", "10100", wait_time=0)
    assert rerouted[0] == "apis.data.go.kr/1613000/BldRgstService_v2/getBrTitleInfo" and len(rerouted) > 1
    assert len(titles) > 100 and set(titles["시군구코드"]) == {"11680"} and set(titles["법정동코드"]) == {"10100"}
    assert titles["관리건축물대장PK"].is_unique
    apartment = titles[titles["기타용도"] == "아파트"].iloc[0]
    # the client zero-fills bun and ji; one lot's units (전유부) and its general title (총괄표제부)
    units = ledger.get_data("전유부", "11680", "10100", bun=int(apartment["번"]), ji=int(apartment["지"]), wait_time=0)
    assert len(units) > 0 and set(units["대장종류코드명"]) == {"전유부"}
    recap = ledger.get_data("총괄표제부", "11680", "10100", bun=apartment["번"], ji=apartment["지"], wait_time=0)
    assert len(recap) == 1 and int(recap["세대수"].iloc[0]) == len(units)


@pytest.mark.parametrize(
    ("reader", "service_type", "path"),
    [
        ("BuildingLicense", "기본개요", "apis.data.go.kr/1613000/ArchPmsService_v2/getApBasisOulnInfo"),
        ("BuildingLicense", "호별개요", "apis.data.go.kr/1613000/ArchPmsService_v2/getApHoOulnInfo"),
        ("HousingLicense", "기본개요", "apis.data.go.kr/1611000/HsPmsService/getHpBasisOulnInfo"),
        ("HousingLicense", "동별개요", "apis.data.go.kr/1611000/HsPmsService/getHpDongOulnInfo"),
    ],
)
def test_publicdatareader_reads_building_and_housing_permits(rerouted, reader, service_type, path):
    import PublicDataReader

    permits = getattr(PublicDataReader, reader)(KEY).get_data(service_type, "11680", "10100", wait_time=0)
    assert rerouted[0] == path
    assert len(permits) > 0 and set(permits["시군구코드"]) == {"11680"}


def test_publicdatareader_pages_seoul_subway_ridership_until_no_data(reroute):
    from PublicDataReader import Transportation

    # Before 2024-08-01 the dataset used the names this client reads (USE_DT, LINE_NUM, SUB_STA_NM …).
    route = reroute("2024-06-10")
    rides = Transportation(KEY).read_data("지하철승하차", USE_DT="20240603")
    assert not isinstance(rides, str), rides  # the client answers a string when a call or its parsing failed
    # It renames the columns to Korean; a tag it does not find becomes "".
    assert len(rides) > 500 and set(rides["사용일자"]) == {"20240603"}
    assert rides["역명"].ne("").all() and rides["승차총승객수"].astype(float).gt(0).all()
    # It asks 1-1000, 1001-2000 … until the answer is no longer INFO-000: the last page is the INFO-200 one.
    assert route.seen == [
        "openapi.seoul.go.kr:8088/sim-key/xml/CardSubwayStatsNew/1/1000/20240603",
        "openapi.seoul.go.kr:8088/sim-key/xml/CardSubwayStatsNew/1001/2000/20240603",
    ]


def test_publicdatareader_reads_empty_columns_after_the_ridership_rename(reroute):
    from PublicDataReader import Transportation

    # Today's dataset names its fields USE_YMD, SBWY_STNS_NM …: the client still finds the rows, not their values
    # (what a user of its last release sees live, and what `drift` reports as field_renamed).
    reroute()
    rides = Transportation(KEY).read_data("지하철승하차", USE_YMD="20260825")
    assert not isinstance(rides, str), rides
    assert len(rides) > 500 and set(rides["역명"]) == {""} and set(rides["사용일자"]) == {""}


# --------------------------------------------------------------------------- neispy (SaidBySolo)


@pytest.fixture
def neis(servers, monkeypatch):
    from neispy import Neispy
    from neispy.http import NeispyRequest

    # neispy builds every URL from this class attribute: the host rewrite.
    monkeypatch.setattr(NeispyRequest, "BASE", f"{servers()}/open.neis.go.kr/hub")

    def call(method: str, **params):
        async def go():
            client = Neispy(KEY)
            try:
                return await getattr(client, method)(**params)
            finally:
                await client.session.close()

        return asyncio.run(go())

    return call


def _rows(answer):
    head, rows = next(iter(vars(answer).values()))
    return head.head[0].list_total_count, rows.row


def test_neispy_reads_schools_meals_and_schedules(neis):
    # neispy turns each row into a dataclass of exactly the documented fields: a field too many or too few fails.
    total, schools = _rows(neis("schoolInfo", ATPT_OFCDC_SC_CODE="C10", SCHUL_KND_SC_NM="고등학교"))
    assert total >= len(schools) > 0 and {s.ATPT_OFCDC_SC_NM for s in schools} == {"부산광역시교육청"}
    school = schools[0]
    _, meals = _rows(
        neis(
            "mealServiceDietInfo",
            ATPT_OFCDC_SC_CODE="C10",
            SD_SCHUL_CODE=school.SD_SCHUL_CODE,
            MLSV_FROM_YMD="20260824",
            MLSV_TO_YMD="20260831",
        )
    )
    assert meals and all(m.SCHUL_NM == school.SCHUL_NM and m.MLSV_YMD.startswith("202608") for m in meals)
    _, days = _rows(
        neis(
            "SchoolSchedule",
            ATPT_OFCDC_SC_CODE="C10",
            SD_SCHUL_CODE=school.SD_SCHUL_CODE,
            AA_FROM_YMD="20260301",
            AA_TO_YMD="20260331",
        )
    )
    assert days and all("20260301" <= d.AA_YMD <= "20260331" for d in days)


def test_neispy_raises_its_own_error_for_no_data(neis):
    from neispy.error import DataNotFound

    with pytest.raises(DataNotFound):
        neis("schoolInfo", ATPT_OFCDC_SC_CODE="C10", SCHUL_NM="없는학교이름")
