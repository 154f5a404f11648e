"""국가법령정보 DRF, the knowledge base (법령정보 지식베이스): the chains between legal terms, everyday terms, articles and
statutes, the envelope these targets use (검색결과개수, the items in Korean-named elements), the relation filters and
the caller's OC inside nested links."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

import httpx

from kopa_replay.sim import SimTransport, Simulator

BASE = "https://www.law.go.kr/DRF/"
_CLIENT = httpx.Client(transport=SimTransport(Simulator(seed=0)))


def _get(path: str, target: str, **params) -> dict:
    answer = _CLIENT.get(BASE + path, params={"OC": "sim-key", "type": "JSON", "target": target, **params})
    assert answer.status_code == 200
    return answer.json()


def _list(value) -> list:
    return value if isinstance(value, list) else [value]


def _mst(link: str) -> str:
    return re.search(r"MST=(\d+)", link).group(1)


def test_legal_term_list_counts_in_its_own_field_and_links_by_mst():
    body = _get("lawSearch.do", "lstrmAI", query="권", display=5)["lstrmAISearch"]
    assert "totalCnt" not in body and int(body["검색결과개수"]) >= len(_list(body["법령용어"]))
    for row in _list(body["법령용어"]):
        assert "권" in row["법령용어명"]
        assert row["용어간관계링크"].startswith("/DRF/lawService.do?OC=sim-key&target=lstrmRlt&MST=")
        assert _mst(row["용어간관계링크"]) == _mst(row["조문간관계링크"])
    assert "법령용어" not in _get("lawSearch.do", "lstrmAI", query="권", homonymYn="Y")["lstrmAISearch"]


def test_everyday_word_leads_to_legal_terms_and_back():
    daily = _list(_get("lawSearch.do", "dlytrm", query="담보")["dlytrmSearch"]["일상용어"])[0]
    by_mst = _get("lawService.do", "dlytrmRlt", MST=_mst(daily["용어간관계링크"]))["dlytrmRltService"]
    assert by_mst == _get("lawService.do", "dlytrmRlt", query="담보")["dlytrmRltService"] | {"키워드": by_mst["키워드"]}
    links = _list(by_mst["일상용어"]["연계용어"])
    assert links and all(link["용어관계"] == "하위어" for link in links)  # 저당권 is a kind of 담보
    for link in links:  # the legal term lists the word back, the relation seen from its side
        back = _get("lawService.do", "lstrmRlt", MST=_mst(link["용어간관계링크"]))["lstrmRltService"]["법령용어"]
        assert back["법령용어명"] == link["법령용어명"]
        mine = [r for r in _list(back["연계용어"]) if r["일상용어명"] == "담보"]
        assert [r["용어관계코드"] for r in mine] == ["140303"]


def test_relation_filter_and_unknown_term():
    body = _get("lawService.do", "lstrmRlt", query="부당이득", trmRltCd="140301")["lstrmRltService"]
    assert {r["용어관계"] for r in _list(body["법령용어"]["연계용어"])} == {"동의어"}
    assert _get("lawService.do", "lstrmRlt", query="없는말") == {
        "Law": "일치하는 법령용어가 없습니다. 검색조건을 확인하여 주십시오."
    }


def test_term_articles_and_article_terms_are_one_relation():
    term = _get("lawService.do", "lstrmRltJo", query="건축")["lstrmRltJoService"]["법령용어"]
    articles = _list(term["연계법령"])
    assert {(a["법령명"], a["조번호"], a["용어구분"]) for a in articles} >= {("건축법", "0002", "핵심용어")}
    for article in articles:
        link = article["조문연계용어링크"]
        law_id, jo = re.search(r"ID=(\d+)&JO=(\d{6})", link).groups()
        unit = _get("lawService.do", "joRltLstrm", ID=law_id, JO=jo)["joRltLstrmService"]["법령조문"]
        assert unit["조번호"] == article["조번호"] and unit["조문내용"] == article["조문내용"]
        assert "건축" in {t["법령용어명"] for t in _list(unit["연계용어"])}


def test_related_statutes_of_an_act_are_its_decree_and_rule():
    body = _get("lawSearch.do", "lsRlt", query="건축법")["lsRltSearch"]
    assert body["검색결과개수"] == "1" and list(body)[:3] == ["target", "키워드", "검색결과개수"]
    law = _list(body["법령"])[0]
    names = {r["관련법령명"]: r["법령간관계"] for r in _list(law["관련법령"])}
    assert names.get("건축법 시행령") == "6유형(하위법)"
    assert all("OC=sim-key" in r["관련법령상세링크"] for r in _list(law["관련법령"]))
    statute = _get("lawService.do", "law", ID=law["기준법령ID"])
    assert statute["법령"]["기본정보"]["법령명_한글"] == "건축법"


def test_intelligent_search_reaches_the_articles_of_the_words_it_names():
    hits = _list(_get("lawSearch.do", "aiSearch", query="뺑소니")["aiSearch"]["법령조문"])
    assert {h["법령명"] for h in hits} == {"도로교통법"}
    related = _list(_get("lawSearch.do", "aiRltLs", query="뺑소니")["aiRltLsSearch"]["법령조문"])
    assert {h["법령명"] for h in related} >= {"도로교통법", "도로교통법 시행령"}
    assert "법령조문" not in _get("lawSearch.do", "aiSearch", query="뺑소니", search="2")["aiSearch"]


def test_xml_carries_ids_as_attributes():
    answer = _CLIENT.get(BASE + "lawService.do", params={"OC": "sim-key", "target": "dlytrmRlt", "query": "월세"})
    root = ET.fromstring(answer.content)
    assert root.tag == "dlytrmRltService" and root.find("검색결과개수").text == "1"
    assert root.find("일상용어").get("id") == "1" and root.find("일상용어/연계용어").get("id") == "1"
