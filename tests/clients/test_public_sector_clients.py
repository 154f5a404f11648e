"""Public-sector clients nobody here wrote — 열린국회정보, 국가법령정보, NEIS, 서울 열린데이터 — run unchanged against
`sim serve`.

Each client keeps its URLs, parameters, parsing and error handling; only the host changes (conftest.py): through the
requests or httpx transport, or (open-assembly-mcp, korean-law-mcp) a key from the environment
variable or argument the client documents.
"""

from __future__ import annotations

import asyncio
from urllib.parse import quote

import pytest

KEY = "sim-key"  # the key `sim serve` takes (conftest.KEY)
pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


# --------------------------------------------------------------------------- open-assembly-mcp (Kyusik Yang): 열린국회정보


@pytest.fixture
def assembly(rerouted, monkeypatch):
    pytest.importorskip("data_go_mcp.open_assembly.client")
    from data_go_mcp.open_assembly.client import AssemblyAPIClient

    monkeypatch.setenv("ASSEMBLY_API_KEY", KEY)

    def call(method: str, *args, **kwargs):
        async def go():
            async with AssemblyAPIClient() as client:
                return await getattr(client, method)(*args, **kwargs)

        return asyncio.run(go())

    return call


def test_open_assembly_follows_a_bill_to_its_proposers_and_their_member_record(assembly, rerouted):
    bills, total = assembly("search_bills", "22", page_size=5)
    assert total >= len(bills) == 5 and all(b["AGE"] == "22" for b in bills)
    bill = bills[0]
    detail, _ = assembly("get_bill_detail", bill["BILL_NO"])
    assert [d["BILL_ID"] for d in detail] == [bill["BILL_ID"]]
    proposers, count = assembly("get_bill_proposers", bill["BILL_ID"])
    lead = [p for p in proposers if p["REP_DIV"] == "대표발의"]
    assert count == len(proposers) > 0 and [p["PPSR_NM"] for p in lead] == [bill["RST_PROPOSER"]]
    # ALLNAMEMBER by name, cut by the client to the 22nd assembly: the lead proposer's member code is the bill's.
    members, _ = assembly("get_member_info", assembly="22", name=bill["RST_PROPOSER"])
    assert bill["RST_MONA_CD"] in {m["MONA_CD"] for m in members}
    assert rerouted[:2] == [
        "open.assembly.go.kr/portal/openapi/nzmimeepazxkubdpn",
        "open.assembly.go.kr/portal/openapi/ALLBILL",
    ]


def test_open_assembly_reads_votes_member_votes_and_pending_bills(assembly):
    votes, total = assembly("get_vote_results", "22", page_size=3)
    assert total >= len(votes) > 0
    vote = votes[0]
    assert vote["YES_TCNT"] + vote["NO_TCNT"] + vote["BLANK_TCNT"] == vote["VOTE_TCNT"] <= vote["MEMBER_TCNT"]
    ballots, _ = assembly("get_member_votes", vote["BILL_ID"], "22")
    assert {b["BILL_ID"] for b in ballots} == {vote["BILL_ID"]}
    assert sum(b["RESULT_VOTE_MOD"] == "찬성" for b in ballots) == vote["YES_TCNT"]
    pending, total = assembly("get_pending_bills", "22", page_size=3)
    assert total >= len(pending) > 0 and all(p["AGE"] == "22" for p in pending)


# --------------------------------------------------------------------------- korean-law-mcp (Seo Jinseok): 국가법령정보 DRF


@pytest.fixture
def law(rerouted, monkeypatch):
    monkeypatch.setenv("OPEN_LAW_ID", KEY)  # read when its module builds its client
    pytest.importorskip("korean_law_mcp.api_client")
    from korean_law_mcp import utils

    return utils


def test_korean_law_mcp_finds_a_statute_and_reads_an_article(law, rerouted):
    found = law.client.search_law("민법")["LawSearch"]
    laws = found["law"] if isinstance(found["law"], list) else [found["law"]]
    assert "민법" in {item["법령명한글"] for item in laws}
    # Its smart search: the statute by name, then lawService.do?target=law&MST=… and its own article parser.
    article = law.smart_search_statute_internal("민법 제1조")
    assert article.startswith("# 민법 제1조") and "제1조(" in article
    assert rerouted[-2:] == ["www.law.go.kr/DRF/lawSearch.do", "www.law.go.kr/DRF/lawService.do"]
    contents = law.smart_search_statute_internal("민법")
    assert "Table of Contents" in contents and "- 제2조:" in contents


def test_korean_law_mcp_reads_precedents_and_administrative_rules(law):
    found = law.client.search_law("손해배상", target="prec")["PrecSearch"]
    cases = found["prec"] if isinstance(found["prec"], list) else [found["prec"]]
    case = cases[0]
    detail = law.get_precedent_detail_internal(case["판례일련번호"])  # the serial from the list fetches the judgment
    assert detail.startswith(f"# {case['사건명']}") and case["사건번호"] in detail
    integrated = law.search_integrated_internal("근로")
    statutes, rules = integrated.split("## 1.")[1].split("## 2.")[0], integrated.split("## 3.")[1]
    assert "[ID: statute:" in statutes and "[ID: admrul:" in rules
    rule_id = rules.split("[ID: admrul:")[1].split("]")[0]
    assert law.get_admin_rule_detail_internal(rule_id).startswith("# ")


# --------------------------------------------------------------------------- Neis-API (Piop2): NEIS


def test_neis_api_reads_schools_meals_and_schedules(rerouted):
    neis = pytest.importorskip("Neis_API")
    from Neis_API import schoolInfo

    schools = schoolInfo.get_school_data(school_type="고등학교", location_name="부산광역시", key=KEY)
    assert schools and {s.region_code for s in schools} == {"C10"} and {s.school_type for s in schools} == {"고등학교"}
    school = neis.School(schools[0], key=KEY)
    meals = school.get_meal_info(start_date="20260824", end_date="20260831")
    assert meals and {m.school_code for m in meals} == {schools[0].school_code}
    assert all("20260824" <= m.date <= "20260831" and m.cal_info.endswith("Kcal") for m in meals)
    days = school.get_schedule_info(start_date="20260301", end_date="20260331")
    assert days and all("20260301" <= d.data["AA_YMD"] <= "20260331" for d in days)
    assert rerouted[0] == "open.neis.go.kr/hub/schoolInfo"


def test_neis_api_region_filter_is_misspelled_so_every_region_answers(rerouted):
    pytest.importorskip("Neis_API")
    from Neis_API import schoolInfo

    # It sends ATPT_OFCDDC_SC_CODE (one D too many): NEIS ignores a parameter it does not know, so the answer is not
    # cut to the region asked for — what its users get from the live service too.
    schools = schoolInfo.get_school_data(region_code="C10", school_type="고등학교", key=KEY)
    assert schools and {s.region_code for s in schools} != {"C10"}


def test_neis_api_raises_its_own_errors(rerouted):
    pytest.importorskip("Neis_API")
    from Neis_API import exceptions, schoolInfo

    with pytest.raises(exceptions.Info200):
        schoolInfo.get_school_data(school_name="없는학교이름", key=KEY)
    with pytest.raises(exceptions.Error290):
        schoolInfo.get_school_data(school_name="학교", key="not-a-key")


# --------------------------------------------------------------------------- seoul (Seo Jihyeok): 서울 열린데이터광장


def test_seoul_reads_air_quality_and_train_positions(rerouted):
    seoul = pytest.importorskip("seoul")
    client = seoul.Client(KEY)
    air = client.get_air_realtime_city()  # openapi.seoul.go.kr:8088/{KEY}/json/RealtimeCityAir/1/1000
    assert len(air) == 25 and len({a.station_name for a in air}) == 25
    assert len({a.measured_at for a in air}) == 1 and all(a.index_value >= 0 for a in air)
    # swopenapi.seoul.go.kr/api/subway/{KEY}/json/realtimePosition/0/1000/2호선: a window from 0, its own envelope.
    trains = client.get_subway_realtime_position("2호선")
    assert trains and {t.subway_name for t in trains} == {"2호선"} and {t.subway_id for t in trains} == {"1002"}
    assert rerouted == [
        "openapi.seoul.go.kr:8088/sim-key/json/RealtimeCityAir/1/1000",
        "swopenapi.seoul.go.kr/api/subway/sim-key/json/realtimePosition/0/1000/" + quote("2호선"),
    ]
