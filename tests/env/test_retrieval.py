"""Tool retrieval (hashed char n-gram TF-IDF) and OpenAI schemas for a subset."""

from __future__ import annotations

import pytest

from kopa_replay.env.retrieval import ToolRetriever, openai_tools
from kopa_replay.errors import UnknownTool, UsageError


@pytest.fixture(scope="module")
def retriever():
    from kopa_replay.catalog import builtin_catalog

    return ToolRetriever(builtin_catalog())


def _names(pairs):
    return [name for name, _ in pairs]


def test_korean_company_and_convertible_bond(retriever):
    top = _names(retriever.top_k("라이트론 전환사채", k=5))
    assert {"dart_cvbd_is_decsn", "dart_corp_code"} & set(top)


def test_korean_subway_ridership(retriever):
    assert "seoul_card_subway_stats_new" in _names(retriever.top_k("서울 지하철 승하차", k=3))


def test_english_school_meals(retriever):
    assert "neis_meal_service_diet_info" in _names(retriever.top_k("school meal menu", k=3))


def test_scores_are_sorted_cosines_and_deterministic(retriever, catalog):
    first = retriever.top_k("전환사채 발행결정 convertible bond", k=20)
    again = ToolRetriever(catalog).top_k("전환사채 발행결정 convertible bond", k=20)
    assert first == again
    scores = [s for _, s in first]
    assert scores == sorted(scores, reverse=True) and all(0.0 <= s <= 1.0 + 1e-9 for s in scores)


def test_k_larger_than_the_catalog_and_edge_queries(retriever, catalog):
    everything = retriever.top_k("주식", k=10_000)
    assert len(everything) == len(catalog) and sorted(_names(everything)) == sorted(catalog.names)
    assert retriever.top_k("x", k=0) == []
    blank = retriever.top_k("", k=5)  # no features: all zero, catalog order
    assert _names(blank) == list(catalog.names[:5]) and all(s == 0.0 for _, s in blank)
    with pytest.raises(UsageError):
        retriever.top_k("x", k=-1)


def test_openai_tools_for_a_subset(retriever, catalog):
    top = retriever.top_k("school meal menu", k=3)
    schemas = openai_tools(catalog, top)
    assert [s["function"]["name"] for s in schemas] == _names(top)
    assert schemas[0] == catalog.get(top[0][0]).to_openai()
    assert len(openai_tools(catalog, ["dart_corp_code", "dart_corp_code"])) == 1
    with pytest.raises(UnknownTool):
        openai_tools(catalog, ["no_such_tool"])
