"""금융위원회 statistics and listings kept as rows over one generic table (options.stats in
kopa_replay/sim/tables/fsc.yaml): 금융투자협회 종합통계, ISA, 실손보험, 펀드표준코드, 주식권리일정, 개인사업자.

Every call goes through the catalog's binding (the tool's HTTP binding and envelope) into the simulator.
"""

from __future__ import annotations

import datetime as dt

import httpx
import pytest

from kopa_replay.catalog import builtin_catalog
from kopa_replay.env import execute
from kopa_replay.env.core import validate_args
from kopa_replay.sim import SimTransport, Simulator
from kopa_replay.sim.registry import Registry

KEY = "sim-key"


def _client(seed: int = 0) -> httpx.Client:
    return httpx.Client(transport=SimTransport(Simulator(seed=seed, registry_=Registry(("fsc",)))))


@pytest.fixture(scope="module")
def client():
    with _client() as c:
        yield c


def call(client: httpx.Client, tool: str, **args):
    return execute(builtin_catalog().get(tool), args, client, KEY)


def records(client: httpx.Client, tool: str, **args) -> tuple[list[dict], int]:
    result = call(client, tool, **args)
    assert result.outcome in ("ok", "empty"), (tool, args, result.outcome, result.code, result.message)
    return result.records, int(result.total_count or 0)


def every_page(client: httpx.Client, tool: str, size: int, **args) -> tuple[list[dict], int]:
    first, total = records(client, tool, numOfRows=size, pageNo=1, **args)
    rows = list(first)
    for page in range(2, (total + size - 1) // size + 1):
        more, again = records(client, tool, numOfRows=size, pageNo=page, **args)
        assert again == total
        rows += more
    return rows, total


def test_exact_and_like_filters_choose_categories(client):
    rows, total = records(client, "datagokr_get_cma_status", basDt="20260831", numOfRows=100)
    assert total == len(rows) and len({r["mngInvTgt"] for r in rows}) > 1
    target = rows[0]["mngInvTgt"]
    exact, n = records(client, "datagokr_get_cma_status", basDt="20260831", mngInvTgt=target, numOfRows=100)
    assert n == len(exact) == sum(1 for r in rows if r["mngInvTgt"] == target)
    assert exact == [r for r in rows if r["mngInvTgt"] == target]  # the same records, whichever filter chose them
    part = target[:2]
    liked, _ = records(client, "datagokr_get_cma_status", basDt="20260831", likeMngInvTgt=part, numOfRows=100)
    assert liked == [r for r in rows if part in r["mngInvTgt"]]
    none, n = records(client, "datagokr_get_cma_status", basDt="20260831", mngInvTgt=target[:2] + "없음")
    assert none == [] and n == 0


def test_begin_is_inclusive_and_end_exclusive_on_days_and_on_values(client):
    rows, _ = records(
        client, "datagokr_get_granting_of_credit_balance_info", beginBasDt="20260824", endBasDt="20260828", numOfRows=50
    )
    assert [r["basDt"] for r in rows] == ["20260827", "20260826", "20260825", "20260824"]  # newest first
    day, _ = records(client, "datagokr_get_cma_status", basDt="20260831", numOfRows=100)
    balances = sorted(int(r["actBal"]) for r in day)
    middle = str(balances[len(balances) // 2])
    high, _ = records(client, "datagokr_get_cma_status", basDt="20260831", beginActBal=middle, numOfRows=100)
    low, _ = records(client, "datagokr_get_cma_status", basDt="20260831", endActBal=middle, numOfRows=100)
    assert all(int(r["actBal"]) >= int(middle) for r in high) and all(int(r["actBal"]) < int(middle) for r in low)
    assert len(high) + len(low) == len(day) and any(r["actBal"] == middle for r in high)


def test_a_monthly_operation_answers_months_and_a_daily_one_business_days(client):
    monthly, _ = records(client, "datagokr_get_dls_and_dlb_info", beginBasDt="202601", endBasDt="202604", numOfRows=500)
    assert sorted({r["basDt"] for r in monthly}, reverse=True) == ["202603", "202602", "202601"]
    trust, _ = records(client, "datagokr_get_trust_scale_info", likeBasYm="2026", numOfRows=1000)
    assert {r["basYm"] for r in trust} <= {f"2026{m:02d}" for m in range(1, 13)} and trust
    daily, _ = records(client, "datagokr_get_fund_total_net_esset_info", likeBasDt="202608", numOfRows=1000)
    days = {dt.date(int(d[:4]), int(d[4:6]), int(d[6:])) for d in (r["basDt"] for r in daily)}
    assert days and all(d.weekday() < 5 for d in days) and dt.date(2026, 8, 15) not in days  # 광복절
    isa, _ = records(client, "datagokr_get_join_status_v2", likeBasDt="2026", numOfRows=1000)
    assert {r["basDt"][4:] for r in isa} <= {"0131", "0228", "0331", "0430", "0531", "0630", "0731"}


def test_what_the_as_of_day_has_not_published_is_not_there(client):
    # the simulator's as-of day is 2026-09-01: a day's figures appear the next business day
    none, n = records(client, "datagokr_get_cma_status", basDt="20260901")
    assert none == [] and n == 0
    latest, _ = records(client, "datagokr_get_cma_status", numOfRows=1)
    assert latest[0]["basDt"] == "20260831"
    assert records(client, "datagokr_get_trust_scale_info", basYm="202609")[1] == 0
    assert records(client, "datagokr_get_trust_scale_info", basYm="202608")[1] > 0
    # ISA: a month is published two months later
    assert records(client, "datagokr_get_join_status_v2", basDt="20260731")[1] > 0
    assert records(client, "datagokr_get_join_status_v2", basDt="20260831")[1] == 0


@pytest.mark.parametrize(
    "tool, args",
    [
        ("datagokr_get_cma_status", {"basDt": "20260831", "numOfRows": 7, "pageNo": 2}),
        ("datagokr_get_standard_code_info", {"basDt": "20260831", "likeFndNm": "인컴", "numOfRows": 5}),
        ("datagokr_get_insurance_info", {"cmpyNm": "KB손보", "numOfRows": 10, "pageNo": 3}),
        ("datagokr_get_fnaf_info", {"basYm": "202508", "bizAreaNm": "시", "saleAmtMin": "1000000000"}),
        ("datagokr_get_righ_exer_reas_sche_v2", {"beginBasDt": "20260801", "endBasDt": "20260810"}),
    ],
)
def test_the_same_call_answers_the_same_records_in_one_simulator_and_in_a_fresh_one(client, tool, args):
    once = call(client, tool, **args)
    again = call(client, tool, **args)
    with _client() as fresh:
        other = call(fresh, tool, **args)
    assert once.outcome == "ok" and once.records
    assert once.records == again.records == other.records
    assert once.total_count == again.total_count == other.total_count


def test_another_seed_draws_other_values(client):
    with _client(seed=1) as other:
        theirs, _ = records(other, "datagokr_get_cma_status", basDt="20260831", numOfRows=50)
    ours, _ = records(client, "datagokr_get_cma_status", basDt="20260831", numOfRows=50)
    assert [(r["mngInvTgt"], r["invrCtg"]) for r in ours] == [(r["mngInvTgt"], r["invrCtg"]) for r in theirs]
    assert [r["actBal"] for r in ours] != [r["actBal"] for r in theirs]


@pytest.mark.parametrize(
    "tool, args, size",
    [
        ("datagokr_get_dls_and_dlb_info", {"beginBasDt": "202601", "endBasDt": "202603"}, 7),
        ("datagokr_get_management_status_v2", {"basDt": "20260630", "bzds": "증권"}, 25),
        ("datagokr_get_dbt_info", {"basYm": "202408", "bizBzcCdNm": "서비스"}, 90),
    ],
)
def test_the_total_is_the_records_over_every_page(client, tool, args, size):
    rows, total = every_page(client, tool, size, **args)
    assert total == len(rows) > size
    whole, again = records(client, tool, numOfRows=1000, **args)
    assert again == total and whole == rows[: len(whole)]  # the first 1,000 in the same order


def test_a_bad_date_is_refused_by_name(client):
    tool = builtin_catalog().get("datagokr_get_cma_status")
    _, problem = validate_args(tool, {"basDt": "2026-08-31"})
    assert problem is not None and "'basDt'" in problem
    _, problem = validate_args(builtin_catalog().get("datagokr_get_trust_scale_info"), {"basYm": "202613"})
    assert problem is not None and "'basYm'" in problem
    # a day the pattern lets through but the calendar has not: the gateway's invalid-parameter code
    refused = call(client, "datagokr_get_cma_status", basDt="20260231")
    assert refused.outcome != "ok" and refused.code == "10"
    from kopa_replay.sim.core import BadParam, Query
    from kopa_replay.sim.platforms.fsc_tables import TABLES

    world = Simulator(seed=0, registry_=Registry(("fsc",))).world
    with pytest.raises(BadParam) as info:
        TABLES["stats:getCMAStatus"](world, Query({"endBasDt": "20260230"}, dt.date(2026, 9, 1)))
    assert info.value.name == "endBasDt"


def test_rights_schedules_name_listed_companies_of_the_finance_world(client):
    rows, total = records(client, "datagokr_get_righ_exer_reas_sche_v2", basDt="20260831", numOfRows=100)
    assert total == len(rows) > 0
    world = Simulator(seed=0, registry_=Registry(("fsc",))).world
    for row in rows:
        company = world.finance.by_crno[row["crno"]]
        assert company.listed and row["stckIssuCmpyNm"] == company.corp_name
        assert row["stckParPrc"] == str(company.par_value)
    crno = rows[0]["crno"]
    same, _ = records(client, "datagokr_get_righ_exer_reas_sche_v2", crno=crno, numOfRows=1000)
    assert {r["issuCmpyKsdCustNo"] for r in same} == {rows[0]["issuCmpyKsdCustNo"]}  # one customer number a company


def test_sole_proprietors_filter_names_by_substring_and_amounts_by_open_bounds(client):
    rows, _ = records(client, "datagokr_get_fnaf_info", basYm="202508", bizAreaNm="광역시", numOfRows=1000)
    assert rows and all("광역시" in r["bizAreaNm"] for r in rows)
    bound = sorted(int(r["saleAmt"]) for r in rows)[len(rows) // 2]
    above, _ = records(
        client, "datagokr_get_fnaf_info", basYm="202508", bizAreaNm="광역시", saleAmtMin=str(bound), numOfRows=1000
    )
    assert above == [r for r in rows if int(r["saleAmt"]) > bound]  # greater than, not at least
    sales, _ = records(client, "datagokr_get_sls_info", basYm="202508", bizAreaNm="광역시", numOfRows=1000)
    assert [r["saleAmt"] for r in sales] == [r["saleAmt"] for r in rows]  # the same proprietors in both operations


def test_a_daily_series_moves_a_little_from_day_to_day_and_categories_sit_at_their_own_levels(client):
    # 증시자금추이 and CMA 잔고 are published series: a day's value near the day before's, not a fresh draw
    rows, _ = records(client, "datagokr_get_cma_status", numOfRows=1000, beginBasDt="20260601", endBasDt="20260901")
    series: dict[tuple[str, str], list[int]] = {}
    for row in sorted(rows, key=lambda r: r["basDt"]):
        series.setdefault((row["mngInvTgt"], row["invrCtg"]), []).append(int(row["actBal"]))
    assert len(series) > 4 and all(len(values) > 40 for values in series.values())
    for values in series.values():
        assert all(abs(b - a) <= 0.07 * max(a, b) for a, b in zip(values, values[1:]))
    levels = sorted(sum(values) / len(values) for values in series.values())
    assert levels[-1] > 1.5 * levels[0]


# -- 국내은행정보: tables under titles in body.tableList, each paged on its own ---------------------------------

BANKS = "https://apis.data.go.kr/1160100/service/GetDomeBankInfoService/getDomeBankGeneInfo"


def _raw(client: httpx.Client, **params) -> dict:
    answer = client.get(BANKS, params={"serviceKey": KEY, "resultType": "json", **params})
    return answer.json()["response"]


def test_bank_tables_sit_under_their_titles_and_page_one_by_one(client):
    whole = _raw(client, basYm="202603", numOfRows="1000")
    tables = whole["body"]["tableList"]
    assert len(tables) >= 2 and len({t["title"] for t in tables}) == len(tables)
    for table in tables:
        assert table["totalCount"] == len(table["items"]["item"]) > 0
        assert {row["title"] for row in table["items"]["item"]} == {table["title"]}
    page = _raw(client, basYm="202603", numOfRows="7", pageNo="2")
    assert page["header"]["pageNo"] == "2" and page["header"]["numOfRows"] == "7"
    for table, full in zip(page["body"]["tableList"], tables):
        assert table["totalCount"] == full["totalCount"]
        assert table["items"]["item"] == full["items"]["item"][7:14]
    one = _raw(client, basYm="202603", title=tables[1]["title"], numOfRows="1000")["body"]["tableList"]
    assert one == [tables[1]]


def test_a_month_the_banks_have_not_published_is_an_empty_table(client):
    empty = _raw(client, basYm="202604", numOfRows="5")  # not a quarter end
    assert empty["header"]["resultCode"] == "00"
    assert [(t["totalCount"], t["items"]["item"]) for t in empty["body"]["tableList"]] == [(0, [])]


def test_the_catalog_reads_the_titled_table_with_its_own_total(client):
    rows, total = every_page(
        client, "datagokr_get_dome_bank_key_mana_indi", 25, title="은행_주요경영지표_자본적정성", basYm="202603"
    )
    assert total == len(rows) > 20 and {r["title"] for r in rows} == {"은행_주요경영지표_자본적정성"}
    ratios = [float(r["cpaqItemClsfVal"]) for r in rows if r["cpaqItemDcd"] == "A"]
    assert ratios and all(8 < v < 25 for v in ratios)  # the BIS ratio in per cent, beside amounts in won
    woori = [r for r in rows if r["fncoNm"] == "우리은행"]
    assert woori and {(r["fncoCd"], r["crno"]) for r in woori} == {("0010001", "1101110023393")}
