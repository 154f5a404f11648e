"""국가법령정보 DRF, the targets beyond the collections' lists and bodies: the ministries' own interpretations, the
special tribunals, the statutes' history (an HTML page whatever type asks), structure charts, comparisons, change
histories, attachments, school and public-body rules and the custom lists."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

import httpx

from kopa_replay.sim import SimTransport, Simulator
from kopa_replay.sim.world.laws import CGM_EXPC

BASE = "https://www.law.go.kr/DRF/"
_SIM = Simulator(seed=0)
_CLIENT = httpx.Client(transport=SimTransport(_SIM))


def _get(path: str, **params) -> httpx.Response:
    return _CLIENT.get(BASE + path, params={"OC": "sim-key", "type": "JSON", **params})


def _rows(body: dict, root: str, item: str) -> list[dict]:
    rows = body[root].get(item, [])
    return rows if isinstance(rows, list) else [rows]


def test_every_ministry_answers_under_cgmexpc_and_only_the_list_only_ones_lack_a_body():
    for target, (ministry, _, has_body) in CGM_EXPC.items():
        rows = _rows(_get("lawSearch.do", target=target, display=2).json(), "CgmExpc", "cgmExpc")
        assert rows and {r["해석기관명"] for r in rows} == {ministry}, target
        answer = _get("lawService.do", target=target, ID=rows[0]["법령해석일련번호"]).json()
        assert ("CgmExpcService" in answer) == has_body, (target, answer)
    nts = _rows(_get("lawSearch.do", target="ntsCgmExpc", display=1).json(), "CgmExpc", "cgmExpc")[0]
    assert nts["법령해석상세링크"].startswith("https://taxlaw.nts.go.kr/") and "sim-key" not in nts["법령해석상세링크"]


def test_a_ministry_list_narrows_by_case_number_and_answer_dates():
    rows = _rows(_get("lawSearch.do", target="molitCgmExpc", display=100).json(), "CgmExpc", "cgmExpc")
    first = rows[0]
    by_number = _rows(
        _get("lawSearch.do", target="molitCgmExpc", itmno=first["안건번호"], query="없는말").json(),
        "CgmExpc",
        "cgmExpc",
    )
    assert first["법령해석일련번호"] in {r["법령해석일련번호"] for r in by_number}
    day = first["해석일자"].replace(".", "")
    in_range = _rows(_get("lawSearch.do", target="molitCgmExpc", explYd=f"{day}~{day}").json(), "CgmExpc", "cgmExpc")
    assert in_range and {r["해석일자"] for r in in_range} == {first["해석일자"]}


def test_special_tribunals_list_under_decc_and_open_in_special_decc_service():
    for target in ("ttSpecialDecc", "kmstSpecialDecc", "acrSpecialDecc", "adapSpecialDecc"):
        row = _rows(_get("lawSearch.do", target=target, display=1).json(), "Decc", "decc")[0]
        body = _get("lawService.do", target=target, ID=row["특별행정심판재결례일련번호"]).json()["SpecialDeccService"]
        assert body["사건명"] == row["사건명"] and body["재결청"] == row["재결청"]
        assert ("세목" in body) == (target == "ttSpecialDecc")


def test_the_history_is_an_html_page_whatever_type_asks_and_lists_every_version():
    for kind in ("XML", "JSON", "HTML"):
        page = _get("lawSearch.do", target="lsHistory", query="도로교통법", type=kind, display=100)
        assert page.headers["content-type"].startswith("text/html")
    html = page.text
    total = int(re.search(r"<strong>([\d,]+)</strong>\s*건", html).group(1).replace(",", ""))
    links = re.findall(r"MST=(\d+)[^\"]*efYd=(\d*)", html)
    versions = _rows(_get("lawSearch.do", target="eflaw", query="도로교통법", display=100).json(), "LawSearch", "law")
    assert total == len(links) == len(versions)
    assert {mst for mst, _ in links} == {v["법령일련번호"] for v in versions}
    assert re.search(r"<td>\d{4}\.\d{1,2}\.\d{1,2}</td>", html) and re.search(r"<td>제 \d+ 호</td>", html)
    ET.fromstring(html)  # well-formed, so the catalog reads its rows


def test_the_structure_chart_is_keyed_otherwise_in_json_and_names_the_family():
    chart = _get("lawService.do", target="lsStmd", MST="106607").json()["법령체계도"]
    assert chart["기본정보"]["법령명"] == "도로교통법" and set(chart["상하위법"]) <= {"법률", "시행령", "시행규칙"}
    assert ET.fromstring(_get("lawService.do", target="lsStmd", MST="106607", type="XML").content).tag == "LsStmd"


def test_old_and_new_pairs_rows_and_a_first_version_has_nothing_to_compare():
    road = next(s for s in _SIM.world.laws.acts if s.name == "도로교통법")
    body = _get("lawService.do", target="oldAndNew", MST="106607").json()["OldAndNewService"]
    assert body["신구법존재여부"] == "Y" and len(body["구조문목록"]["조문"]) == len(body["신조문목록"]["조문"])
    first = _get("lawService.do", target="oldAndNew", MST=road.versions[0].mst).json()["OldAndNewService"]
    assert first["신구법존재여부"] == "N" and first["구조문목록"] is None
    assert "result" in _get("lawService.do", target="thdCmp", MST="106607", knd="3").json()


def test_article_histories_need_a_window_and_each_article_starts_with_its_enactment():
    empty = _get("lawSearch.do", target="lsJoHstInf", ID="013104").json()["LawSearch"]
    assert empty["totalCnt"] == "0" and "law" not in empty
    day = _rows(_get("lawSearch.do", target="lsJoHstInf", regDt="20240522").json(), "LawSearch", "law")
    changed = [jo["조문정보"]["조문번호"] for jo in day[0]["jo"]]
    history = _rows(_get("lawService.do", target="lsJoHstInf", ID="013104", JO=changed[0]).json(), "LawService", "law")
    assert history[0]["변경사유"] == "제정" and history[-1]["조문변경일"] == "20240522"


def test_a_custom_list_answers_its_articles_with_lj_jo_and_refuses_a_malformed_code():
    listed = _get("lawSearch.do", target="couseLs", vcode="L0000000003384", display=100).json()["LawSearch"]
    articles = _get("lawSearch.do", target="couseLs", vcode="L0000000003384", lj="jo", display=100).json()["LawSearch"]
    assert listed["target"] == articles["target"] == "couseLs"
    assert {a["법령ID"] for a in articles["law"]} == {r["법령ID"] for r in listed["law"]}
    assert "조문번호" in articles["law"][0] and "조문번호" not in listed["law"][0]
    assert "result" in _get("lawSearch.do", target="couseLs", vcode="A0000000000601").json()


def test_attachments_and_school_rules_have_the_roots_clients_read():
    assert "admRulBylSearch" in _get("lawSearch.do", target="admbyl", display=1).json()
    ordinbyl = _get("lawSearch.do", target="ordinbyl", display=1).json()
    assert _rows(ordinbyl, "licBylSearch", "ordinbyl")
    forms = _rows(_get("lawSearch.do", target="licbyl", knd="1", display=50).json(), "licBylSearch", "licbyl")
    assert forms and {f["별표종류"] for f in forms} == {"별표"}
    rule = _rows(_get("lawSearch.do", target="school", query="학칙", display=1).json(), "AdmRulSearch", "admrul")[0]
    body = _get("lawService.do", target="school", ID=rule["행정규칙일련번호"]).json()["AdmRulService"]
    assert body["행정규칙기본정보"]["행정규칙명"] == rule["행정규칙명"]
