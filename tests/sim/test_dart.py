"""OpenDART as simulated: corpCode.xml ZIP, status/message envelope, list.json pages, event reports, codes."""

from __future__ import annotations

import io
import json
import re
import zipfile
from xml.etree import ElementTree

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kopa_replay.sim import SimTransport, Simulator
from kopa_replay.sim.world.finance import LIGHTRON_CORP_CODE

KEY = "sim-key"
API = "https://opendart.fss.or.kr/api/"


def _get(client: httpx.Client, name: str, **params) -> httpx.Response:
    return client.get(API + name, params={"crtfc_key": KEY, **params})


@pytest.fixture(scope="module")
def shared():
    """One simulator for the property tests (hypothesis dislikes function-scoped fixtures)."""
    with httpx.Client(transport=SimTransport(Simulator(seed=0))) as client:
        yield client


def _corpcode_rows(body: bytes) -> list[ElementTree.Element]:
    with zipfile.ZipFile(io.BytesIO(body)) as archive:
        assert archive.namelist() == ["CORPCODE.xml"]
        root = ElementTree.fromstring(archive.read("CORPCODE.xml"))
    assert root.tag == "result"
    return list(root.iter("list"))


def test_corpcode_is_a_zip_of_every_company(client, sim):
    response = _get(client, "corpCode.xml")
    assert response.status_code == 200 and response.content[:2] == b"PK"
    rows = _corpcode_rows(response.content)
    sizes = sim.world.sizes
    assert len(rows) == sizes.listed_companies + sizes.unlisted_companies
    assert [child.tag for child in rows[0]] == ["corp_code", "corp_name", "corp_eng_name", "stock_code", "modify_date"]
    codes = [r.findtext("corp_code") for r in rows]
    assert len(set(codes)) == len(codes) and all(re.fullmatch(r"\d{8}", c) for c in codes)
    stock_codes = [r.findtext("stock_code") for r in rows]
    # the listed ones and the delisted ones that keep their old code carry one; the others a single space
    finance = sim.world.finance
    with_code = len(finance.listed) + sum(1 for c in finance.unlisted if c.delisted_code)
    assert sum(1 for s in stock_codes if re.fullmatch(r"\d{6}", s)) == with_code
    assert stock_codes.count(" ") == len(rows) - with_code  # unlisted: a single space, as DART sends it


def test_corpcode_names_its_file_as_the_real_download_does_over_http_and_through_a_recording(
    client, sim, server_url, tmp_path
):
    """Clients save corpCode.xml under the name the Content-Disposition header gives (CORPCODE.zip)."""
    from kopa_replay.record import RecordTransport, Store

    want = "attachment; filename=CORPCODE.zip"
    assert _get(client, "corpCode.xml").headers["content-disposition"] == want
    over_http = httpx.get(server_url + "/opendart.fss.or.kr/api/corpCode.xml", params={"crtfc_key": KEY}, timeout=60)
    assert over_http.headers["content-disposition"] == want and over_http.content[:2] == b"PK"
    assert "content-disposition" not in client.get(API + "corpCode.xml", params={"crtfc_key": "nope"}).headers
    store = Store(tmp_path / "s.sqlite")
    url = API + "corpCode.xml"
    with httpx.Client(transport=RecordTransport(SimTransport(sim), store, "t", "record")) as recording:
        recording.get(url, params={"crtfc_key": KEY})
    with httpx.Client(transport=RecordTransport(None, store, "t", "replay")) as replaying:
        assert replaying.get(url, params={"crtfc_key": KEY}).headers["content-disposition"] == want


def test_corpcode_errors_are_plain_xml_not_a_zip(client):
    response = client.get(API + "corpCode.xml", params={"crtfc_key": "not-a-key"})
    root = ElementTree.fromstring(response.content)
    assert (root.tag, root.findtext("status"), root.findtext("message")) == ("result", "010", "등록되지 않은 키입니다.")
    assert client.get(API + "corpCode.json", params={"crtfc_key": KEY}).status_code == 404


def test_the_lookup_tool_returns_every_candidate(call, catalog):
    assert "call this FIRST" in catalog.get("dart_corp_code").description_en
    result = call("dart_corp_code", corp_name="라이트")
    assert result.outcome == "ok" and result.total_count == len(result.records) >= 3
    assert {"라이트론", "라이트브릿지", "하이라이트테크"} <= {r["corp_name"] for r in result.records}
    assert next(r for r in result.records if r["corp_name"] == "하이라이트테크")["stock_code"] == " "
    by_code = call("dart_corp_code", stock_code="069540")
    assert [r["corp_code"] for r in by_code.records] == [LIGHTRON_CORP_CODE]
    assert len(call("dart_corp_code").records) == 50  # capped, never the whole list


def test_company_is_one_flat_object(client, call):
    body = _get(client, "company.json", corp_code=LIGHTRON_CORP_CODE).json()
    assert list(body)[:4] == ["status", "message", "corp_code", "corp_name"]
    assert body["status"] == "000" and body["message"] == "정상"
    assert {"jurir_no", "bizr_no", "ir_url", "induty_code", "est_dt", "acc_mt"} <= set(body)
    assert re.fullmatch(r"\d{13}", body["jurir_no"]) and re.fullmatch(r"\d{10}", body["bizr_no"])
    result = call("dart_company", corp_code=LIGHTRON_CORP_CODE)
    assert result.outcome == "ok" and len(result.records) == 1 and "status" not in result.records[0]


def test_xml_answers_read_with_a_real_parser(client):
    root = ElementTree.fromstring(
        _get(
            client, "list.xml", corp_code=LIGHTRON_CORP_CODE, bgn_de="20250101", end_de="20260831", page_count="5"
        ).content
    )
    assert root.tag == "result" and root.findtext("status") == "000"
    assert root.findtext("page_count") == "5" and len(root.findall("list")) == 5
    assert all(re.fullmatch(r"\d{14}", item.findtext("rcept_no")) for item in root.findall("list"))
    company = ElementTree.fromstring(_get(client, "company.xml", corp_code=LIGHTRON_CORP_CODE).content)
    assert company.findtext("corp_name") == "라이트론" and company.findtext("stock_code") == "069540"


def test_list_pages_tile_the_whole_result(call):
    args = {"corp_code": LIGHTRON_CORP_CODE, "bgn_de": "20250101", "end_de": "20260831", "page_count": 4}
    first, second = call("dart_list", page_no=1, **args), call("dart_list", page_no=2, **args)
    assert first.outcome == second.outcome == "ok" and first.records != second.records
    total = first.total_count
    pages = [call("dart_list", page_no=n, **args).records for n in range(1, total // 4 + 2)]
    numbers = [r["rcept_no"] for page in pages for r in page]
    assert len(numbers) == len(set(numbers)) == total
    assert numbers == sorted(numbers, reverse=True)  # newest first


_WEEK = {"bgn_de": "20260824", "end_de": "20260831"}


@pytest.fixture(scope="module")
def week_of_filings(shared):
    """All receipts of one week, gathered 100 at a time."""
    rows, page = [], 1
    while True:
        body = shared.get(
            API + "list.json", params={"crtfc_key": KEY, **_WEEK, "page_count": 100, "page_no": page}
        ).json()
        rows.extend(body.get("list", []))
        if page >= body["total_page"]:
            return body["total_count"], rows
        page += 1


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(size=st.integers(1, 100), page=st.integers(1, 8))
def test_any_page_window_is_a_slice_of_the_full_list(shared, week_of_filings, size, page):
    total, full = week_of_filings
    assert len(full) == total > 10
    body = shared.get(API + "list.json", params={"crtfc_key": KEY, **_WEEK, "page_count": size, "page_no": page}).json()
    assert body["total_count"] == total and body["total_page"] == -(-total // size)
    assert body.get("list", []) == full[(page - 1) * size : page * size]


def test_list_without_corp_code_is_limited_to_three_months(client):
    body = _get(client, "list.json", bgn_de="20260101", end_de="20260831").json()
    assert body["status"] == "100"
    assert _get(client, "list.json", bgn_de="20260601", end_de="20260831").json()["status"] == "000"
    assert _get(client, "list.json", page_count="101").json()["status"] == "100"


def test_no_data_is_013_with_the_real_spelling(client, call):
    body = _get(client, "cvbdIsDecsn.json", corp_code=LIGHTRON_CORP_CODE, bgn_de="20250201", end_de="20250228").json()
    assert body == {"status": "013", "message": "조회된 데이타가 없습니다."}
    assert (
        call("dart_cvbd_is_decsn", corp_code=LIGHTRON_CORP_CODE, bgn_de="20250201", end_de="20250228").outcome
        == "empty"
    )


def test_an_unknown_key_is_010(client, call):
    body = client.get(API + "company.json", params={"crtfc_key": "x" * 40, "corp_code": LIGHTRON_CORP_CODE}).json()
    assert body == {"status": "010", "message": "등록되지 않은 키입니다."}
    assert call("dart_company", key="wrong", corp_code=LIGHTRON_CORP_CODE).outcome == "environmental_error"


def test_a_name_is_not_a_corp_code(client, call):
    """The entity-code prerequisite: every corp_code endpoint finds nothing for a company name."""
    for name, extra in (
        ("company.json", {}),
        ("majorstock.json", {}),
        ("cvbdIsDecsn.json", {"bgn_de": "20260101", "end_de": "20260131"}),
        ("fnlttSinglAcnt.json", {"bsns_year": "2025", "reprt_code": "11011"}),
    ):
        assert _get(client, name, corp_code="라이트론", **extra).json()["status"] == "013", name
    assert call("dart_fnltt_single_acnt", corp_code="069540", bsns_year="2025", reprt_code="11011").outcome == "empty"


def test_parameter_problems_and_unknown_paths(client):
    assert _get(client, "cvbdIsDecsn.json", corp_code=LIGHTRON_CORP_CODE).json()["status"] == "100"
    assert (
        _get(client, "alotMatter.json", corp_code=LIGHTRON_CORP_CODE, bsns_year="2025", reprt_code="99999").json()[
            "status"
        ]
        == "100"
    )
    many = ",".join([LIGHTRON_CORP_CODE] * 101)
    assert (
        _get(client, "fnlttMultiAcnt.json", corp_code=many, bsns_year="2025", reprt_code="11011").json()["status"]
        == "021"
    )
    missing = _get(client, "noSuchReport.json")
    assert missing.status_code == 404 and missing.headers["content-type"].startswith("text/html")


def test_the_cb_report_has_the_real_field_list(call, catalog):
    result = call("dart_cvbd_is_decsn", corp_code=LIGHTRON_CORP_CODE, bgn_de="20260101", end_de="20260131")
    record = result.records[0]
    assert list(record)[:4] == ["rcept_no", "corp_cls", "corp_code", "corp_name"]
    assert set(record) == set(catalog.get("dart_cvbd_is_decsn").output_fields) and len(record) == 46
    assert "act_mktprcfl_cvprc_lwtrsprc" in record and "act_mkt_prcfl_cvprc_lwtrsprc" not in record
    assert re.fullmatch(r"\d{1,3}(,\d{3})*", record["bd_fta"])
    assert re.fullmatch(r"\d{4}년 \d{2}월 \d{2}일", record["cvrqpd_bgd"])
    for tool in ("dart_bdwt_is_decsn", "dart_piic_decsn", "dart_tsstk_aq_decsn"):
        other = call(tool, corp_code=LIGHTRON_CORP_CODE, bgn_de="20250101", end_de="20260831")
        assert other.outcome == "ok" and set(other.records[0]) <= set(catalog.get(tool).output_fields), tool


def test_periodic_reports_exist_once_filed(call):
    half = call("dart_fnltt_single_acnt", corp_code=LIGHTRON_CORP_CODE, bsns_year="2026", reprt_code="11012")
    assert half.outcome == "ok" and {r["fs_div"] for r in half.records} == {"CFS", "OFS"}
    assert {r["account_nm"] for r in half.records} >= {"자산총계", "매출액", "당기순이익"}
    assert all(re.fullmatch(r"-?\d{1,3}(,\d{3})*", r["thstrm_amount"]) for r in half.records)
    # The third-quarter report of 2026 is filed in November: not there at 2026-09-01.
    assert (
        call("dart_fnltt_single_acnt", corp_code=LIGHTRON_CORP_CODE, bsns_year="2026", reprt_code="11014").outcome
        == "empty"
    )
    annual = call("dart_fnltt_single_acnt", corp_code=LIGHTRON_CORP_CODE, bsns_year="2025", reprt_code="11011")
    holders = call("dart_hyslr_sttus", corp_code=LIGHTRON_CORP_CODE, bsns_year="2025", reprt_code="11011")
    assert holders.records[-1]["nm"] == "계"
    # Sections of one periodic report share its receipt number.
    assert holders.records[0]["rcept_no"] == annual.records[0]["rcept_no"] != half.records[0]["rcept_no"]


def test_nothing_dated_after_the_as_of_date_exists(catalog):
    from kopa_replay.env import execute

    tool = catalog.get("dart_cvbd_is_decsn")
    args = {"corp_code": LIGHTRON_CORP_CODE, "bgn_de": "20260101", "end_de": "20260131"}
    for as_of, outcome in (("2026-01-14", "empty"), ("2026-01-15", "ok")):
        with httpx.Client(transport=SimTransport(Simulator(seed=0, as_of=as_of))) as client:
            assert execute(tool, args, client, KEY).outcome == outcome, as_of


def test_the_ir_url_drift_removes_the_field(catalog):
    def company(as_of: str) -> dict:
        with httpx.Client(transport=SimTransport(Simulator(seed=0, as_of=as_of))) as client:
            return _get(client, "company.json", corp_code=LIGHTRON_CORP_CODE).json()

    assert "ir_url" in company("2026-09-01") and "ir_url" not in company("2026-12-01")


def test_same_seed_same_bytes_other_seed_other_world():
    def bodies(seed: int) -> list[bytes]:
        with httpx.Client(transport=SimTransport(Simulator(seed=seed))) as client:
            return [
                _get(client, "corpCode.xml").content,
                _get(client, "list.json", bgn_de="20260801", end_de="20260831").content,
                _get(
                    client, "fnlttSinglAcnt.json", corp_code=LIGHTRON_CORP_CODE, bsns_year="2025", reprt_code="11011"
                ).content,
            ]

    first, again, other = bodies(0), bodies(0), bodies(1)
    assert first == again
    assert all(a != b for a, b in zip(first, other))


def test_loopback_server_speaks_the_same_bytes(server_url, client):
    params = {"crtfc_key": KEY, "corp_code": LIGHTRON_CORP_CODE, "bgn_de": "20260101", "end_de": "20260831"}
    over_socket = httpx.get(server_url + "/opendart.fss.or.kr/api/list.json", params=params)
    assert over_socket.status_code == 200
    assert over_socket.content == client.get(API + "list.json", params=params).content
    assert json.loads(over_socket.content)["total_count"] >= 5
