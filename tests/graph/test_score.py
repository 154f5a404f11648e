"""The default binding scorer: meaning over names, formats, one field per parameter."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from kopa_replay.graph.score import SemanticScorer, Slot
from kopa_replay.text import concepts_of, shape_of


def slot(name: str, description: str = "", pattern: str | None = None) -> Slot:
    schema = {"description": description, **({"pattern": pattern} if pattern else {})}
    return Slot(name, concepts_of(name, schema), shape_of(schema))


def test_the_papers_region_name_group_binds_across_names():
    names = [slot("SIGUN_NM", "시군명"), slot("REGION_NM", "지역명"), slot("rgn", "region")]
    for param in names:
        for field in names:
            assert SemanticScorer.pair_score(param, field) >= 0.5, (param.name, field.name)


def test_codes_dates_and_names_bind_by_meaning():
    score = SemanticScorer.pair_score
    assert score(slot("srtnCd", "단축코드 6자리", "^[0-9A-Z]{6}$"), slot("ISU_SRT_CD", "단축코드 6자리")) >= 0.8
    assert score(slot("stock_code", "6자리 종목코드"), slot("srtnCd", "단축코드")) >= 0.8
    assert (
        score(
            slot("corp_code", "DART 고유번호 8자리", "^[0-9]{8}$"),
            slot("fssCorpUnqNo", "금융감독원 고유번호 (= DART corp_code)"),
        )
        >= 0.8
    )
    assert score(slot("basDd", "기준일자 YYYYMMDD"), slot("MLSV_YMD", "급식일자 (YYYYMMDD)")) >= 0.5
    assert score(slot("SCHUL_NM", "학교명"), slot("corp_name", "회사명")) == 0.0


def test_a_format_conflict_vetoes_a_shared_concept():
    score = SemanticScorer.pair_score
    five = slot("LAWD_CD", "시군구코드 5자리", "^[0-9]{5}$")
    assert score(five, slot("sggCd", "시군구코드 5자리")) >= 0.8
    assert score(five, slot("region_cd", "법정동코드 10자리")) < 0.5
    assert score(slot("AY", "학년도 (YYYY)", "^[0-9]{4}$"), slot("BTH_DATE", "생년월일 (YYYY-MM-DD)")) < 0.5


def test_the_lightron_links_score_high_with_the_right_binding(catalog):
    scorer = SemanticScorer()
    corp = scorer.score(catalog.get("dart_corp_code"), catalog.get("dart_cvbd_is_decsn"))
    assert corp.binding == {"corp_code": "corp_code"} and corp.feasibility >= 0.8
    price = scorer.score(catalog.get("dart_corp_code"), catalog.get("datagokr_get_stock_price_info"))
    assert price.binding.get("srtnCd") == "stock_code" and price.feasibility >= 0.6
    assert "basDt" not in price.binding  # an entity is handed over; the date is the question's


def test_unrelated_tools_and_a_tool_with_itself_score_zero(catalog):
    scorer = SemanticScorer()
    assert scorer.score(catalog.get("law_search_law"), catalog.get("tago_get_route_no_list")).feasibility == 0.0
    same = catalog.get("dart_corp_code")
    assert scorer.score(same, same).feasibility == 0.0


def test_every_binding_names_real_parameters_and_fields_one_field_each(catalog):
    scorer = SemanticScorer()
    tools = list(catalog)
    for source in tools[::5]:
        for target in tools:
            scored = scorer.score(source, target)
            assert 0.0 <= scored.feasibility <= 1.0
            assert set(scored.binding) <= set(target.params)
            assert set(scored.binding.values()) <= set(source.output_fields)
            assert len(set(scored.binding.values())) == len(scored.binding)
            assert bool(scored.binding) == (scored.feasibility > 0)


@given(st.text(max_size=40), st.text(max_size=80))
def test_reading_any_name_and_description_never_fails(name, description):
    concepts = concepts_of(name, {"description": description})
    assert all(0 < value <= 1 for value in concepts.values())
    shape_of({"description": description, "pattern": name})
