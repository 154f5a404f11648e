"""국가법령정보 DRF: routing by target, LawSearch envelope and its quirks, OC echo, service answers, as-of versions."""

from __future__ import annotations

import datetime as dt
import xml.etree.ElementTree as ET

import httpx
from hypothesis import given, settings
from hypothesis import strategies as st

from kopa_replay.sim import SimTransport, Simulator

BASE = "https://www.law.go.kr/DRF/"
_SIM = Simulator(seed=0)
_CLIENT = httpx.Client(transport=SimTransport(_SIM))
AUTH_FAILED = {
    "result": "사용자 정보 검증에 실패하였습니다.",
    "msg": "OPEN API 호출 시 사용자 검증을 위하여 정확한 서버장비의 IP주소 및 도메인주소를 등록해 주세요.",
}


def _get(path: str, client: httpx.Client = _CLIENT, **params) -> httpx.Response:
    params.setdefault("OC", "sim-key")
    return client.get(BASE + path, params=params)


def _search(target: str, client: httpx.Client = _CLIENT, **params) -> dict:
    return _get("lawSearch.do", client, target=target, type="JSON", **params).json()


def _road_act(sim: Simulator = _SIM):
    statute = next(s for s in sim.world.laws.statutes if s.name == "도로교통법")
    return statute, statute.current(sim.as_of)


def test_search_envelope_and_item_fields():
    body = _search("law", query="도로교통법")
    search = body["LawSearch"]
    assert list(body) == ["LawSearch"]
    assert search["target"] == "law" and search["키워드"] == "도로교통법" and search["resultCode"] == "00"
    assert search["totalCnt"] == str(len(search["law"])) == "3"
    assert [x["법령명한글"] for x in search["law"]][0] == "도로교통법"
    first = search["law"][0]
    statute, version = _road_act()
    assert first["법령일련번호"] == version.mst and first["법령ID"] == statute.law_id
    assert len(first["법령ID"]) == 6 and first["법령구분명"] == "법률" and first["소관부처명"] == "경찰청"
    assert first["id"] == "1"


def test_a_single_hit_is_an_object_not_a_list():
    body = _search("law", query="도로교통법", display=1, page=3)
    assert isinstance(body["LawSearch"]["law"], dict)
    assert body["LawSearch"]["law"]["id"] == "3"


def test_detail_links_echo_the_callers_oc():
    for target, field in (("law", "법령상세링크"), ("prec", "판례상세링크"), ("ordin", "자치법규상세링크")):
        item = _search(target, display=2)[{"law": "LawSearch", "prec": "PrecSearch", "ordin": "OrdinSearch"}[target]]
        rows = item["law"] if target in ("law", "ordin") else item["prec"]
        assert rows[0][field].startswith("/DRF/lawService.do?OC=sim-key&target="), rows[0][field]
    xml = _get("lawSearch.do", target="law", query="도로교통법").content
    assert b"OC=sim-key&amp;target=law" in xml


def test_pages_differ_and_add_up_to_the_total():
    total = int(_search("prec", display=100)["PrecSearch"]["totalCnt"])
    assert total > 100
    seen = []
    for page in range(1, total // 30 + 2):
        rows = _search("prec", display=30, page=page)["PrecSearch"].get("prec", [])
        seen += [r["판례일련번호"] for r in (rows if isinstance(rows, list) else [rows])]
    assert len(seen) == total == len(set(seen))
    assert _search("prec", display=30, page=1) != _search("prec", display=30, page=2)


@settings(max_examples=20, deadline=None)
@given(page=st.integers(1, 12), size=st.integers(1, 40))
def test_any_page_window_is_the_matching_slice(page, size):
    full = [r for p in range(1, 6) for r in _search("admrul", display=100, page=p)["AdmRulSearch"].get("admrul", [])]
    window = _search("admrul", display=size, page=page)["AdmRulSearch"].get("admrul", [])
    window = window if isinstance(window, list) else [window]
    expected = full[(page - 1) * size : page * size]
    assert [w["행정규칙일련번호"] for w in window] == [e["행정규칙일련번호"] for e in expected]


def test_display_is_capped_at_100():
    search = _search("prec", display=500)["PrecSearch"]
    assert search["numOfRows"] == "100" and len(search["prec"]) == 100


def test_no_hit_is_totalcnt_zero_without_items(call):
    body = _search("law", query="존재하지않는법률")
    assert body["LawSearch"]["totalCnt"] == "0" and "law" not in body["LawSearch"]
    result = call("law_search_law", query="존재하지않는법률")
    assert result.outcome == "empty" and result.total_count == 0


def test_invalid_oc_is_the_real_verification_failure():
    response = _get("lawSearch.do", OC="someone", target="law", type="JSON")
    assert response.status_code == 200 and response.json() == AUTH_FAILED
    root = ET.fromstring(_get("lawSearch.do", OC="someone", target="law").content)
    assert root.tag == "Response" and root.findtext("result") == AUTH_FAILED["result"]


def test_xml_is_the_default_and_parses_with_elementtree():
    root = ET.fromstring(_get("lawSearch.do", target="law", query="도로교통법").content)
    assert root.tag == "LawSearch" and root.findtext("totalCnt") == "3"
    items = root.findall("law")
    assert [i.get("id") for i in items] == ["1", "2", "3"]
    statute, version = _road_act()
    body = ET.fromstring(_get("lawService.do", target="law", MST=version.mst).content)
    assert body.tag == "법령" and body.findtext("기본정보/법령명_한글") == "도로교통법"
    assert body.find("기본정보/소관부처").get("소관부처코드") == "1320000"
    assert body.find("조문/조문단위").get("조문키") == "0001000"


def test_law_body_by_mst_or_id(call):
    statute, version = _road_act()
    by_mst = _get("lawService.do", target="law", type="JSON", MST=version.mst).json()["법령"]
    assert by_mst["기본정보"]["법령ID"] == statute.law_id
    assert by_mst["기본정보"]["소관부처"] == {"소관부처코드": "1320000", "content": "경찰청"}
    articles = [u for u in by_mst["조문"]["조문단위"] if u["조문여부"] == "조문"]
    assert articles[0]["조문내용"].startswith("제1조(목적) 이 법은 도로교통")
    assert call("law_get_law", ID=statute.law_id).records == call("law_get_law", MST=version.mst).records


def test_a_statute_name_in_mst_is_not_found(call):
    body = _get("lawService.do", target="law", type="JSON", MST="도로교통법").json()
    assert body == {"Law": "일치하는 법령이 없습니다. 법령명을 확인하여 주십시오."}
    assert call("law_get_law", MST="도로교통법").outcome == "empty"
    assert call("law_get_prec", ID="0").outcome == "empty"
    assert _get("lawService.do", target="prec", type="JSON", ID="0").json() == {
        "Law": "일치하는 판례가 없습니다.  판례명을 확인하여 주십시오."
    }


def test_precedents_cite_the_statute_searched_for(call):
    cited = call("law_search_prec", JO="도로교통법", display=100)
    assert cited.outcome == "ok" and cited.total_count >= 10
    detail = call("law_get_prec", ID=cited.records[0]["판례일련번호"])
    assert "도로교통법 제" in detail.records[0]["참조조문"]
    assert len(cited.records[0]["선고일자"]) == 10 and len(detail.records[0]["선고일자"]) == 8


def test_unknown_target_and_bad_page_are_structural(call):
    assert _get("lawSearch.do", target="nothing", type="JSON").json()["result"] == "지원하지 않는 target 입니다."
    assert call("law_search_law", query="도로교통법", page=0).outcome == "structural_error"


def test_amendments_after_the_as_of_date_do_not_exist_yet():
    later_versions = [(s, v) for s in _SIM.world.laws.statutes for v in s.versions if v.promulgated > _SIM.as_of]
    statute, version = later_versions[0]
    assert _get("lawService.do", target="law", type="JSON", MST=version.mst).json().get("Law")
    future = httpx.Client(transport=SimTransport(Simulator(seed=0, as_of=version.promulgated)))
    answer = _get("lawService.do", future, target="law", type="JSON", MST=version.mst).json()
    assert answer["법령"]["기본정보"]["법령ID"] == statute.law_id
    names = _search("law", future, query=statute.name, display=100)["LawSearch"]["law"]
    rows = names if isinstance(names, list) else [names]
    assert next(r for r in rows if r["법령ID"] == statute.law_id)["법령일련번호"] == version.mst


def test_same_seed_same_bytes_other_seed_other_world():
    again = httpx.Client(transport=SimTransport(Simulator(seed=0)))
    other = httpx.Client(transport=SimTransport(Simulator(seed=1)))
    params = {"target": "law", "type": "JSON", "query": "법"}
    assert _get("lawSearch.do", **params).content == _get("lawSearch.do", again, **params).content
    assert _get("lawSearch.do", **params).content != _get("lawSearch.do", other, **params).content


def test_over_a_real_loopback_server(server_url):
    response = httpx.get(
        f"{server_url}/www.law.go.kr/DRF/lawSearch.do",
        params={"OC": "sim-key", "target": "ordin", "type": "JSON", "query": "서울특별시 강남구"},
    )
    search = response.json()["OrdinSearch"]
    rows = search["law"] if isinstance(search["law"], list) else [search["law"]]
    assert response.status_code == 200 and int(search["totalCnt"]) == len(rows)
    assert all(r["지자체기관명"] == "서울특별시 강남구" for r in rows)
    assert dt.date.fromisoformat(
        f"{rows[0]['공포일자'][:4]}-{rows[0]['공포일자'][4:6]}-{rows[0]['공포일자'][6:]}"
    ) <= dt.date(2026, 9, 1)
