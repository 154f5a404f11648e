"""국가법령정보 DRF, every target: each search's first hit opens in its body service (the identifier chain), the
roots clients read, statutes with their real article counts, cited articles that exist, JO, eflaw's versions."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

import httpx
import pytest

from kopa_replay.sim import SimTransport, Simulator
from kopa_replay.sim.tables import load_table

BASE = "https://www.law.go.kr/DRF/"
_SIM = Simulator(seed=0)
_CLIENT = httpx.Client(transport=SimTransport(_SIM))
_OPS = {op.tool: op for op in load_table("law").operations}


def _get(path: str, **params) -> httpx.Response:
    return _CLIENT.get(BASE + path, params={"OC": "sim-key", "type": "JSON", **params})


def _rows(body: dict, root: str, item: str) -> list[dict]:
    rows = body[root].get(item, [])
    return rows if isinstance(rows, list) else [rows]


# (search tool, body tool): a list and the body service of the same target (the HTML pages aside)
_CHAINS = [
    (op.tool, op.tool.replace("law_search_", "law_get_"))
    for op in _OPS.values()
    if op.options["kind"] == "search"
    and op.tool.startswith("law_search_")
    and op.tool.replace("law_search_", "law_get_") in _OPS
    and not op.options.get("html")
]


@pytest.mark.parametrize(("search", "body"), _CHAINS, ids=[s for s, _ in _CHAINS])
def test_every_search_hit_opens_in_its_body_service(search, body):
    listed, served = _OPS[search], _OPS[body]
    target = listed.route.split("target=")[1]
    page = _get("lawSearch.do", target=target, display=3).json()
    rows = _rows(page, listed.options["root"], listed.options["item"])
    assert rows and list(page) == [listed.options["root"]]
    key = next(iter(served.inputs))  # ID, MST or query: the parameter that names one document
    field = next(f for f, domain in listed.outputs.items() if domain == served.inputs[key])
    link = rows[0].get(listed.options["link"] or "", "")
    assert not listed.options["link"] or link.startswith(f"/DRF/lawService.do?OC=sim-key&target={target}&"), link
    others = {k: v for k, v in served.example.items() if k not in served.inputs}  # knd of the 3-tier comparison
    answer = _get("lawService.do", target=target, **{key: rows[0][field]}, **others).json()
    root = served.options.get("json_root") or served.options["root"]
    assert list(answer) == [root], answer
    assert set(answer[root]) <= set(served.fields) and answer[root]


def test_the_interpretation_search_has_the_root_clients_read():
    xml = ET.fromstring(_CLIENT.get(BASE + "lawSearch.do", params={"OC": "sim-key", "target": "expc"}).content)
    assert xml.tag == "Expc" and xml.find("expc") is not None and xml.find("expc").get("id") == "1"
    detc = ET.fromstring(_CLIENT.get(BASE + "lawSearch.do", params={"OC": "sim-key", "target": "detc"}).content)
    assert detc.tag == "DetcSearch" and detc.find("Detc") is not None
    decc = ET.fromstring(_CLIENT.get(BASE + "lawSearch.do", params={"OC": "sim-key", "target": "decc"}).content)
    assert decc.tag == "Decc" and decc.find("decc") is not None


def test_legal_terms_search_and_body():
    rows = _rows(_get("lawSearch.do", target="lstrm", query="선박").json(), "LsTrmSearch", "lstrm")
    assert [r["법령용어명"] for r in rows] == ["선박"]
    body = _get("lawService.do", target="lstrm", query="선박").json()["LsTrmService"]
    assert body["법령용어명_한글"] == "선박" and body["법령용어정의"]


def test_a_precedent_opens_by_mst_as_by_id():
    by_id = _get("lawService.do", target="prec", ID="205882").json()
    assert by_id["PrecService"]["판례정보일련번호"] == "205882"
    assert _get("lawService.do", target="prec", MST="205882").json() == by_id


def test_the_named_acts_have_their_real_article_counts():
    laws = _SIM.world.laws
    counts = {s.name: s.article_count for s in laws.acts}
    assert counts["도로교통법"] == 166 and counts["민법"] == 1118 and counts["개인정보 보호법"] == 76
    road = next(s for s in laws.acts if s.name == "도로교통법")
    version = road.current(_SIM.as_of)
    units = _get("lawService.do", target="law", MST=version.mst).json()["법령"]["조문"]["조문단위"]
    numbers = [int(u["조문번호"]) for u in units if u["조문여부"] == "조문"]
    assert numbers == list(range(1, 167))
    one = _get("lawService.do", target="eflaw", MST=version.mst, JO="006200").json()["법령"]["조문"]["조문단위"]
    assert [u["조문번호"] for u in one] == ["62"] and one[0]["조문내용"].startswith("제62조(")
    assert "Law" in _get("lawService.do", target="law", MST=version.mst, JO="016700").json()


def test_every_article_a_precedent_or_interpretation_cites_exists():
    laws = _SIM.world.laws
    acts = {s.name: s for s in laws.acts}
    cited = [ref for p in laws.precedents for ref in p.references]
    cited += [(e.law, e.article) for e in laws.interpretations]
    cited += [(d.law, d.article) for kind in ("detc", "decc", "ppc") for d in laws.decisions(kind)]
    missing = [(law, n) for law, n in cited if law in acts and not 1 <= n <= acts[law].article_count]
    assert missing == [] and len(cited) > 400
    for law, number in cited[:20]:  # and the body service answers with that article
        version = acts[law].current(_SIM.as_of)
        units = _get("lawService.do", target="law", MST=version.mst, JO=f"{number:04d}00").json()["법령"]
        assert units["조문"]["조문단위"][0]["조문번호"] == str(number)


def test_eflaw_lists_every_version_with_its_status():
    rows = _rows(_get("lawSearch.do", target="eflaw", query="도로교통법", display=100).json(), "LawSearch", "law")
    road = [r for r in rows if r["법령명한글"] == "도로교통법"]
    assert {r["현행연혁코드"] for r in road} <= {"현행", "연혁", "시행예정"} and len(road) >= 2
    assert sum(r["현행연혁코드"] == "현행" for r in road) == 1
    assert all(re.search(r"&efYd=[0-9]{8}$", r["법령상세링크"]) for r in road)
    current = _rows(_get("lawSearch.do", target="eflaw", query="도로교통법", nw="3").json(), "LawSearch", "law")
    assert {r["현행연혁코드"] for r in current} == {"현행"}


def test_unknown_ids_are_not_found_and_a_missing_id_is_structural():
    assert _get("lawService.do", target="detc", ID="1").json() == {
        "Law": "일치하는 법령이 없습니다. 법령명을 확인하여 주십시오."
    }
    assert "result" in _get("lawService.do", target="expc").json()


def test_decisions_are_built_per_collection_on_first_use():
    sim = Simulator(seed=3)
    client = httpx.Client(transport=SimTransport(sim))
    client.get(BASE + "lawSearch.do", params={"OC": "sim-key", "type": "JSON", "target": "ftc"})
    assert set(sim.world.laws._decisions) == {"ftc"}
