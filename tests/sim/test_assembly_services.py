"""열린국회정보 services kept as data: the operation table's world tables, OPENSRVAPI and the spec workbook."""

from __future__ import annotations

import datetime as dt
import io
import xml.etree.ElementTree as ET
import zipfile

import httpx
from hypothesis import given, settings
from hypothesis import strategies as st

from kopa_replay.catalog import builtin_catalog
from kopa_replay.sim import SimTransport, Simulator

BASE = "https://open.assembly.go.kr/portal/openapi/"
SPEC = "https://open.assembly.go.kr/portal/data/openapi/downloadOpenApiSpec.do"
_SIM = Simulator(seed=0)
_CLIENT = httpx.Client(transport=SimTransport(_SIM))


def _get(service: str, **params) -> httpx.Response:
    params.setdefault("KEY", "sim-key")
    params.setdefault("Type", "json")
    return _CLIENT.get(BASE + service, params=params)


def _rows(service: str, **params) -> list[dict]:
    body = _get(service, pSize="1000", **params).json()
    assert service in body, body
    return body[service][1]["row"]


def _sheet(content: bytes) -> list[list[str]]:
    ns = {"s": "http://schemas.openxmlformats.org/spreadsheetml/2006/main"}
    with zipfile.ZipFile(io.BytesIO(content)) as archive:
        root = ET.fromstring(archive.read("xl/worksheets/sheet1.xml"))
        assert b"worksheets/sheet1.xml" in archive.read("xl/_rels/workbook.xml.rels")
    return [["".join(c.itertext()) for c in row.findall("s:c", ns)] for row in root.iter(f"{{{ns['s']}}}row")]


def test_a_required_filter_missing_is_the_portals_error_300():
    body = _get("nwbpacrgavhjryiph").json()
    assert body == {"RESULT": {"CODE": "ERROR-300", "MESSAGE": body["RESULT"]["MESSAGE"]}}
    assert _get("nwbpacrgavhjryiph", AGE="abc").json()["RESULT"]["CODE"] == "INFO-200"


def test_plenary_bills_are_the_voted_bills_and_agree_with_the_votes_and_the_bill_search():
    rows = _rows("nwbpacrgavhjryiph", AGE="22")
    assert rows and all(r["AGE"] == "22" and r["PROC_RESULT_CD"] in ("원안가결", "수정가결", "부결") for r in rows)
    for r in rows[:5]:
        votes = _get("nojepdqqaweusdfbi", AGE="22", BILL_ID=r["BILL_ID"]).json()["nojepdqqaweusdfbi"][1]["row"]
        assert {v["BILL_NO"] for v in votes} == {r["BILL_NO"]}
        found = _rows("nzmimeepazxkubdpn", AGE="22", BILL_ID=r["BILL_ID"])[0]
        assert found["PROC_RESULT"] == r["PROC_RESULT_CD"] and found["PROC_DT"] == r["RGS_PROC_DT"]
        assert r["RGS_PROC_DT"] <= _SIM.as_of.isoformat()


@settings(max_examples=30, deadline=None)
@given(st.data())
def test_a_part_of_a_bill_name_finds_the_bill(data):
    rows = _rows("nwbpacrgavhjryiph", AGE="22")
    row = data.draw(st.sampled_from(rows))
    start = data.draw(st.integers(0, len(row["BILL_NM"]) - 1))
    part = row["BILL_NM"][start : data.draw(st.integers(start + 1, len(row["BILL_NM"])))]
    if part.strip() != part:  # the portal trims a filter's value
        return
    got = _rows("nwbpacrgavhjryiph", AGE="22", BILL_NM=part)
    assert row["BILL_ID"] in {r["BILL_ID"] for r in got} and all(part in r["BILL_NM"] for r in got)


def test_a_notice_is_open_until_its_last_day_and_then_gone():
    rows = _rows("nknalejkafmvgzmpt")
    assert rows and all(r["NOTI_ED_DT"] >= _SIM.as_of.isoformat() for r in rows)
    last = max(r["NOTI_ED_DT"] for r in rows)
    closing = {r["BILL_ID"] for r in rows if r["NOTI_ED_DT"] == last}

    def open_on(day: dt.date) -> set[str]:
        client = httpx.Client(transport=SimTransport(Simulator(seed=0, as_of=day)))
        params = {"KEY": "sim-key", "Type": "json", "pSize": "1000"}
        body = client.get(BASE + "nknalejkafmvgzmpt", params=params).json()
        return {r["BILL_ID"] for r in body["nknalejkafmvgzmpt"][1]["row"]} if "nknalejkafmvgzmpt" in body else set()

    day = dt.date.fromisoformat(last)
    assert closing <= open_on(day) and not closing & open_on(day + dt.timedelta(days=1))


def test_committee_members_add_up_to_each_committees_current_count():
    committees = _rows("nxrvzonlafugpqjuh")
    members = _rows("nktulghcadyhmiqxi")
    for c in committees:
        mine = [m for m in members if m["DEPT_NM"] == c["COMMITTEE_NAME"]]
        assert len(mine) == int(c["CURR_CNT"]), c["COMMITTEE_NAME"]
        assert [m["HG_NM"] for m in mine if m["JOB_RES_NM"] == "위원장"] == ([c["HG_NM"]] if c["HG_NM"] else [])


def test_every_listed_service_is_served_and_its_workbook_names_its_request_url():
    listed = _rows("OPENSRVAPI")
    assert len(listed) == len({row["INF_ID"] for row in listed}) == 276  # the portal's list_total_count
    # SRV_URL is the service's page; the request URL (and so the endpoint code) is only in the workbook, as the
    # portal's own clients find it
    codes = []
    for row in listed:
        assert row["SRV_URL"].endswith("/selectAPIServicePage.do/" + row["INF_ID"])
        got = httpx.Client(transport=SimTransport(_SIM)).get(row["DDC_URL"])  # no key: the portal asks none
        assert got.status_code == 200 and got.headers["content-type"].endswith("spreadsheetml.sheet")
        sheet = _sheet(got.content)
        at = [r for r in sheet if r][1:].index(["요청주소"]) + 2
        url = [r for r in sheet if r][at][0]
        assert url.startswith("https://open.assembly.go.kr/portal/openapi/") and ["출력값"] in sheet
        codes.append(url.rsplit("/", 1)[1])
        assert _get(codes[-1]).json().get("RESULT", {}).get("CODE") != "ERROR-310", codes[-1]  # a known service
    # every service the catalog binds under /portal/openapi/ is listed once
    served = [t.http.path.rsplit("/", 1)[1] for t in builtin_catalog() if t.http.path.startswith("/portal/openapi/")]
    assert sorted(codes) == sorted(served)


def test_the_workbook_is_the_same_bytes_every_time_and_an_unknown_id_is_the_error_page():
    first = _CLIENT.get(SPEC, params={"infId": "ORDPSW001070QH19059", "infSeq": "2"}).content
    again = httpx.Client(transport=SimTransport(Simulator(seed=9))).get(
        SPEC, params={"infId": "ORDPSW001070QH19059", "infSeq": "2"}
    )
    assert first == again.content and first[:2] == b"PK"
    for params in ({"infId": "NOPE"}, {}):
        bad = _CLIENT.get(SPEC, params=params)
        assert bad.status_code == 404 and bad.headers["content-type"].startswith("text/html")
