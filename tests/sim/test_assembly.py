"""열린국회정보: members, bills and votes over the head/row envelope; the PRC_ id prerequisite; dated bill stages."""

from __future__ import annotations

import datetime as dt
import re
import xml.etree.ElementTree as ET
from collections import Counter

import httpx
from hypothesis import given, settings
from hypothesis import strategies as st

from kopa_replay.sim import SimTransport, Simulator

BASE = "https://open.assembly.go.kr/portal/openapi/"
MEMBERS, BILLS, VOTES = "nwvrqwxyaytdsfvhu", "nzmimeepazxkubdpn", "nojepdqqaweusdfbi"
_SIM = Simulator(seed=0)
_CLIENT = httpx.Client(transport=SimTransport(_SIM))


def _get(service: str, client: httpx.Client = _CLIENT, **params) -> httpx.Response:
    params.setdefault("KEY", "sim-key")
    params.setdefault("Type", "json")
    return client.get(BASE + service, params=params)


def _rows(body: dict, service: str) -> tuple[int, list[dict]]:
    head, rows = body[service]
    return head["head"][0]["list_total_count"], rows["row"]


def _voted_bill(sim: Simulator = _SIM):
    return next(
        b
        for b in reversed(sim.world.assembly.bills)
        if b.age == 22 and b.voted and b.fate_at(sim.as_of) and b.proposed <= sim.as_of
    )


def test_members_envelope_and_fields():
    total, rows = _rows(_get(MEMBERS, pSize=300).json(), MEMBERS)
    assert total == len(rows) == 300
    assert len({r["MONA_CD"] for r in rows}) == 300
    assert all(re.fullmatch(r"[0-9A-Z]{8}", r["MONA_CD"]) for r in rows)
    kinds = Counter(r["ELECT_GBN_NM"] for r in rows)
    assert kinds == {"지역구": 254, "비례대표": 46}
    district = next(r for r in rows if r["ELECT_GBN_NM"] == "지역구")
    sido_short = {s.short for s in _SIM.world.regions.sido}
    assert district["ORIG_NM"].split(" ")[0] in sido_short or district["ORIG_NM"].startswith("세종")
    assert re.fullmatch(r"[A-Z]+( [A-Z][a-z]*)+", rows[0]["ENG_NM"])
    assert rows == sorted(rows, key=lambda r: r["HG_NM"])


def test_pages_differ_and_add_up_to_the_total():
    total, first = _rows(_get(BILLS, AGE="22", pIndex=1, pSize=50).json(), BILLS)
    _, second = _rows(_get(BILLS, AGE="22", pIndex=2, pSize=50).json(), BILLS)
    assert first != second and total > 100
    ids = []
    for page in range(1, total // 200 + 2):
        body = _get(BILLS, AGE="22", pIndex=page, pSize=200).json()
        if "RESULT" in body:
            break
        ids += [r["BILL_ID"] for r in _rows(body, BILLS)[1]]
    assert len(ids) == total == len(set(ids))


@settings(max_examples=20, deadline=None)
@given(page=st.integers(1, 8), size=st.integers(1, 60))
def test_any_page_window_of_votes_is_the_matching_slice(page, size):
    bill = _voted_bill()
    full = _rows(_get(VOTES, AGE="22", BILL_ID=bill.bill_id, pSize=1000).json(), VOTES)[1]
    body = _get(VOTES, AGE="22", BILL_ID=bill.bill_id, pIndex=page, pSize=size).json()
    window = full[(page - 1) * size : page * size]
    assert (_rows(body, VOTES)[1] if window else body["RESULT"]["CODE"]) == (window or "INFO-200")


def test_invalid_key_and_missing_age():
    assert _get(MEMBERS, KEY="nope").json() == {
        "RESULT": {
            "CODE": "ERROR-290",
            "MESSAGE": "인증키가 유효하지 않습니다. 인증키가 없는 경우, 홈페이지에서 인증키를 신청하십시오.",
        }
    }
    assert _get(BILLS).json()["RESULT"]["CODE"] == "ERROR-300"
    assert _get(VOTES, AGE="22").json()["RESULT"]["CODE"] == "ERROR-300"
    assert _get("nosuchservice").json()["RESULT"]["CODE"] == "ERROR-310"


def test_no_data_is_info_200(call):
    result = call("assembly_member_info", HG_NM="없는사람")
    assert result.outcome == "empty" and result.code == "INFO-200"


def test_votes_need_the_prc_id_not_the_bill_name_or_number(call):
    bill = _voted_bill()
    by_id = call("assembly_bill_votes", AGE="22", BILL_ID=bill.bill_id, pSize=1000)
    assert by_id.outcome == "ok" and by_id.total_count == 300
    assert {r["RESULT_VOTE_MOD"] for r in by_id.records} <= {"찬성", "반대", "기권", "불참"}
    assert len({r["VOTE_DATE"][:8] for r in by_id.records}) == 1
    for wrong in (bill.name, bill.bill_no):
        assert call("assembly_bill_votes", AGE="22", BILL_ID=wrong).outcome == "empty"
    assert call("assembly_bill_votes", AGE="21", BILL_ID=bill.bill_id).outcome == "empty"


def test_votes_fall_on_plenary_sittings_and_match_the_result(call):
    bill = _voted_bill()
    votes = call("assembly_bill_votes", AGE="22", BILL_ID=bill.bill_id, pSize=1000).records
    day = votes[0]["VOTE_DATE"][:8]
    sittings = call("assembly_plenary_schedule", UNIT_CD="100022", pSize=1000).records
    assert f"{day[:4]}-{day[4:6]}-{day[6:]}" in {s["MEETTING_DATE"] for s in sittings}
    tally = Counter(v["RESULT_VOTE_MOD"] for v in votes)
    present = tally["찬성"] + tally["반대"] + tally["기권"]
    assert (tally["찬성"] * 2 > present) == (bill.fate in ("원안가결", "수정가결"))


def test_proposers_lead_with_the_representative(call):
    bill = _voted_bill()
    search = call("assembly_bill_search", AGE="22", BILL_ID=bill.bill_id).records[0]
    proposers = call("assembly_bill_proposers", BILL_ID=bill.bill_id).records
    assert proposers[0]["REP_DIV"] == "대표발의" and proposers[0]["PPSR_NM"] == search["RST_PROPOSER"]
    assert search["PROPOSER"] == f"{search['RST_PROPOSER']}의원 등 {len(proposers)}인"
    member = call("assembly_member_info", MONA_CD=search["RST_MONA_CD"]).records[0]
    assert member["HG_NM"] == search["RST_PROPOSER"]


def test_bills_show_only_the_stages_that_happened_by_the_as_of_date():
    bill = next(
        b
        for b in _SIM.world.assembly.bills
        if b.age == 22 and b.voted and b.decided > _SIM.as_of and b.proposed <= _SIM.as_of
    )
    now = _rows(_get(BILLS, AGE="22", BILL_ID=bill.bill_id).json(), BILLS)[1][0]
    assert now["PROC_RESULT"] is None and now["PROC_DT"] is None
    later = httpx.Client(transport=SimTransport(Simulator(seed=0, as_of=bill.decided)))
    then = _rows(_get(BILLS, later, AGE="22", BILL_ID=bill.bill_id).json(), BILLS)[1][0]
    assert then["PROC_RESULT"] == bill.fate and then["PROC_DT"] == bill.decided.isoformat()
    unborn = next(b for b in _SIM.world.assembly.bills if b.proposed > _SIM.as_of)
    assert _get(BILLS, AGE="22", BILL_ID=unborn.bill_id).json()["RESULT"]["CODE"] == "INFO-200"
    lapsed = Counter(r["PROC_RESULT"] for r in _rows(_get(BILLS, AGE="21", pSize=1000).json(), BILLS)[1])
    assert None not in lapsed and lapsed["임기만료폐기"] > 0


def test_xml_by_default_parses_with_elementtree():
    root = ET.fromstring(_get("nxrvzonlafugpqjuh", Type=None).content)
    assert root.tag == "nxrvzonlafugpqjuh" and root.findtext("head/RESULT/CODE") == "INFO-000"
    rows = root.findall("row")
    assert int(root.findtext("head/list_total_count")) == len(rows) == 18
    assert rows[0].findtext("COMMITTEE_NAME") == "국회운영위원회"


def test_english_name_is_renamed_after_the_october_drift():
    later = httpx.Client(transport=SimTransport(Simulator(seed=0, as_of="2026-10-21")))
    row = _rows(_get(MEMBERS, later, pSize=1).json(), MEMBERS)[1][0]
    assert "HG_ENG_NM" in row and "ENG_NM" not in row
    assert "ENG_NM" in _rows(_get(MEMBERS, pSize=1).json(), MEMBERS)[1][0]


def test_same_seed_same_bytes_other_seed_other_members():
    again = httpx.Client(transport=SimTransport(Simulator(seed=0)))
    other = httpx.Client(transport=SimTransport(Simulator(seed=1)))
    assert _get(MEMBERS, pSize=10).content == _get(MEMBERS, again, pSize=10).content
    assert _get(MEMBERS, pSize=10).content != _get(MEMBERS, other, pSize=10).content


def test_over_a_real_loopback_server(server_url):
    bill = _voted_bill()
    response = httpx.get(
        f"{server_url}/open.assembly.go.kr/portal/openapi/BILLINFOPPSR",
        params={"KEY": "sim-key", "Type": "json", "BILL_ID": bill.bill_id},
    )
    total, rows = _rows(response.json(), "BILLINFOPPSR")
    assert response.status_code == 200 and total == len(rows) == len(bill.co_proposers) + 1
    assert all(r["BILL_ID"] == bill.bill_id for r in rows)
    assert dt.date.fromisoformat(
        _rows(_get(BILLS, AGE="22", BILL_ID=bill.bill_id).json(), BILLS)[1][0]["PROPOSE_DT"]
    ) <= dt.date(2026, 9, 1)
