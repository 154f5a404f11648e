"""열린국회정보's 276 services as the operation table serves them: the registry, identifier chains between
services, filters, the as-of date and the portal's codes."""

from __future__ import annotations

import datetime as dt
from collections import Counter

import httpx
import pytest

from kopa_replay.sim import SimTransport, Simulator
from kopa_replay.sim.tables import load_table

BASE = "https://open.assembly.go.kr/portal/openapi/"
_SIM = Simulator(seed=3)
_CLIENT = httpx.Client(transport=SimTransport(_SIM))


def _get(service: str, client: httpx.Client = _CLIENT, **params) -> dict:
    return client.get(BASE + service, params={"KEY": "sim-key", "Type": "json", "pSize": "1000", **params}).json()


def _rows(service: str, client: httpx.Client = _CLIENT, **params) -> list[dict]:
    body = _get(service, client, **params)
    assert service in body, (service, params, body)
    return body[service][1]["row"]


def _total(service: str, client: httpx.Client = _CLIENT, **params) -> int:
    body = _get(service, client, **params)
    return body[service][0]["head"][0]["list_total_count"] if service in body else 0


def test_the_registry_is_the_portals_276_services_each_with_its_own_id_and_code():
    table = load_table("assembly")
    ids = [op.options["inf_id"] for op in table.operations] + [r["inf_id"] for r in table.extra["registry"]]
    codes = [op.route for op in table.operations] + [r["code"] for r in table.extra["registry"]]
    assert len(ids) == len(set(ids)) == len(set(codes)) == 276
    assert not [i for i in ids if i.startswith("OSIM")]  # no invented registry id is left
    listed = _rows("OPENSRVAPI")
    assert len(listed) == 276 and {r["INF_ID"] for r in listed} == set(ids)
    assert all(r["SRV_URL"].endswith(r["INF_ID"]) and f"infId={r['INF_ID']}" in r["DDC_URL"] for r in listed)


def test_a_bill_found_in_one_service_is_the_same_bill_in_the_others():
    bill = _rows("TVBPMBILL11", AGE="22", PROC_RESULT_CD="원안가결")[0]
    detail = _rows("BILLINFODETAIL", BILL_ID=bill["BILL_ID"])
    assert [(d["BILL_NO"], d["BILL_NM"], d["PPSL_DT"]) for d in detail] == [
        (bill["BILL_NO"], bill["BILL_NAME"], bill["PROPOSE_DT"])
    ]
    summary = _rows("BPMBILLSUMMARY", BILL_NO=bill["BILL_NO"])
    assert [s["BILL_ID"] for s in summary] == [bill["BILL_ID"]] and summary[0]["SUMMARY"]
    integrated = _rows("ALLBILL", BILL_NO=bill["BILL_NO"])[0]
    assert integrated["RGS_CONF_RSLT"] == "원안가결" and integrated["RGS_RSLN_DT"] == bill["PROC_DT"]
    # a bill name or number in BILL_ID finds nothing: the services take the PRC_ id
    assert _get("BILLINFODETAIL", BILL_ID=bill["BILL_NO"])["RESULT"]["CODE"] == "INFO-200"


def test_decided_and_pending_bills_split_the_bill_search():
    every = {r["BILL_ID"] for r in _rows("TVBPMBILL11", AGE="22", CURR_COMMITTEE="국방위원회")}
    decided = {r["BILL_ID"] for r in _rows("nzpltgfqabtcpsmai", AGE="22", CURR_COMMITTEE="국방위원회")}
    pending = {r["BILL_ID"] for r in _rows("nwbqublzajtcqpdae", CURR_COMMITTEE="국방위원회") if r["AGE"] == "22"}
    assert decided and pending and not decided & pending and decided | pending == every


def test_a_vote_tally_adds_up_the_members_votes():
    for tally in _rows("ncocpgfiaoituanbr", AGE="22")[:3]:
        votes = Counter(v["RESULT_VOTE_MOD"] for v in _rows("nojepdqqaweusdfbi", AGE="22", BILL_ID=tally["BILL_ID"]))
        assert (tally["YES_TCNT"], tally["NO_TCNT"], tally["BLANK_TCNT"]) == (
            votes["찬성"],
            votes["반대"],
            votes["기권"],
        )
        assert tally["MEMBER_TCNT"] == sum(votes.values())


def test_the_minutes_of_a_bill_lead_to_meetings_that_list_it():
    bill_id = "PRC_E2G2O4M7O2X6D8H4J9T4I1O7D0V6C1"
    minutes = _rows("VCONFBILLCONFLIST", BILL_ID=bill_id)
    assert {m["CONF_KND"] for m in minutes} == {"상임위원회 회의록", "국회본회의 회의록"}
    for m in minutes:
        detail = _rows("VCONFDETAIL", CONF_ID=m["CONF_ID"])
        assert [(d["CONF_DT"], d["SESS"], d["DGR"]) for d in detail] == [(m["CONF_DT"], m["SESS"], m["DGR"])]
        assert bill_id in {b["BILL_ID"] for b in _rows("VCONFBILLLIST", CONF_ID=m["CONF_ID"])}
    plenary = [m for m in minutes if m["CONF_KND"] == "국회본회의 회의록"][0]
    votes = _rows("nojepdqqaweusdfbi", AGE="22", BILL_ID=bill_id)
    assert {v["VOTE_DATE"][:8] for v in votes} == {plenary["CONF_DT"].replace("-", "")}


def test_a_sitting_falls_in_its_session_and_the_minutes_by_date_prefix():
    sessions = {r["SESS"]: r for r in _rows("BILLSESSPROD")}
    sittings = _rows("nzbyfwhwaoanttzje", DAE_NUM="22", CONF_DATE="2025")
    assert sittings and all(s["CONF_DATE"].startswith("2025") for s in sittings)
    for s in sittings:
        detail = _rows("VCONFDETAIL", CONF_ID=s["CONF_ID"])[0]
        span = sessions[detail["SESS"]]
        assert span["SESS_BG_DT"] <= s["CONF_DATE"].replace("-", ".") <= span["SESS_ED_DT"]


def test_a_petition_leads_to_its_introducers_and_their_petitions():
    received = _rows("PTTRCP", ERACO="제22대")
    petition = next(p for p in received if p["PTT_KIND"] == "의원소개")
    detail = _rows("PTTINFODETAIL", PTT_ID=petition["PTT_ID"])[0]
    assert (detail["PTT_NM"], detail["RCP_DT"]) == (petition["PTT_NM"], petition["RCP_DT"])
    names = [r["INTD_ASBLM_NM"] for r in _rows("PTTINFOPPSR", PTT_ID=petition["PTT_ID"])]
    members = {m["HG_NM"]: m["MONA_CD"] for m in _rows("nwvrqwxyaytdsfvhu")}
    for name in names:
        mine = _rows("NAMEMBERLEGIPTT", NAAS_CD=members[name])
        assert petition["PTT_NO"] in {p["PTT_NO"] for p in mine}
    assert _get("PTTINFOPPSR")["RESULT"]["CODE"] == "ERROR-300"  # PTT_ID is required


def test_a_members_committee_schedule_is_the_meetings_of_the_committees_they_sit_on():
    members = {m["NAAS_CD"]: m for m in _rows("ALLNAMEMBER")}
    assert set(members) == {m["MONA_CD"] for m in _rows("nwvrqwxyaytdsfvhu")}
    code = sorted(members)[0]
    committees = set(members[code]["BLNG_CMIT_NM"].split(", "))
    schedule = _rows("NAMEMBERCMITSCHEDULE", NAAS_CD=code)
    assert schedule and {s["CMIT_NM"] for s in schedule} <= committees
    assert all(s["SCH_DT"] <= _SIM.as_of.isoformat() for s in schedule)


def test_statistics_count_the_bills_they_summarise():
    stats = {r["CMIT_NM"]: r for r in _rows("BILLCNTCMIT", ERACO="제22대")}
    for committee in ("국방위원회", "정보위원회"):
        bills = _rows("TVBPMBILL11", AGE="22", CURR_COMMITTEE=committee)
        decided = [b for b in bills if b["PROC_RESULT_CD"]]
        assert (stats[committee]["RCP_CNT"], stats[committee]["PROC_CNT"]) == (len(bills), len(decided))
    assert _get("BILLCNTCMIT")["RESULT"]["CODE"] == "ERROR-300"


def test_a_corpus_grows_with_the_as_of_date_and_shows_nothing_later():
    earlier = httpx.Client(transport=SimTransport(Simulator(seed=3, as_of=dt.date(2024, 1, 1))))
    assert 0 < _total("ninnagrlaelvtzfnt", earlier) < _total("ninnagrlaelvtzfnt")
    rows = _rows("ninnagrlaelvtzfnt", earlier)
    assert all(r["WRITE_DATE"] <= "2024-01-01" for r in rows)
    assert rows == sorted(rows, key=lambda r: r["WRITE_DATE"], reverse=True)  # newest first


def test_the_full_world_has_the_portals_counts():
    full = httpx.Client(transport=SimTransport(Simulator(seed=0, world_size="full", as_of=dt.date(2025, 11, 25))))
    # list_total_count of 보도자료 and 국회의원 의정보고서 on 2025-11-25 (the fixtures the table cites)
    assert _total("ninnagrlaelvtzfnt", full) == pytest.approx(60_817, abs=1)
    assert _total("nmfcjtvmajsbhhckf", full) == pytest.approx(32_790, abs=1)
