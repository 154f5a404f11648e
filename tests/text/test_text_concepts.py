"""Field concepts: synonym groups over names and descriptions, shapes, and the fillers a link is called beside."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping

from hypothesis import given
from hypothesis import strategies as st

from kopa_replay.text import (
    CONCEPTS,
    STRENGTH,
    TEMPORAL,
    concepts_of,
    name_key,
    names_an_entity,
    shape_of,
    shapes_compatible,
    target_fillers,
)

NAMES = sorted({(name, concept.name) for concept in CONCEPTS for name in concept.names})
SHAPES = st.sampled_from([None, "YYYYMMDD", "YYYYMM", "YYYY", "8 digits", "6 digits", "4 digits", "10 digits"])


@given(st.sampled_from(NAMES), st.booleans(), st.booleans())
def test_a_synonym_name_carries_its_concept_whatever_its_case(pair, upper, underscored):
    name, concept = pair
    written = name.upper() if upper else name
    if underscored and len(written) > 2:
        written = written[:2] + "_" + written[2:]
    assert name_key(written) == name
    assert concepts_of(written, {})[concept] == 1.0


@given(st.sampled_from([c for c in CONCEPTS if c.words]), st.text(alphabet="abc ", max_size=8))
def test_a_description_word_signals_its_concept_less_surely(concept, noise):
    found = concepts_of("zz_unrelated_name", {"description": f"{noise}{concept.words[0]}{noise}"})
    assert found.get(concept.name) == 0.85


@given(st.sampled_from(["YYYYMMDD", "YYYY-MM-DD", "YYYYMM", "YYYY"]))
def test_a_written_shape_is_read_and_signals_the_temporal_concept(written):
    shape = shape_of({"description": f"기준일 ({written})"})
    assert shape == written.replace("-", "")
    assert {"YYYYMMDD": "date", "YYYYMM": "yearmonth", "YYYY": "year"}[shape] in concepts_of(
        "x", {"description": f"값 ({written})"}
    )
    assert shape_of({"pattern": "^[0-9]{8}$"}) == "8 digits"


@given(SHAPES, SHAPES)
def test_shape_compatibility_is_symmetric_and_reflexive(a, b):
    assert shapes_compatible(a, b) == shapes_compatible(b, a)
    assert shapes_compatible(a, a) and shapes_compatible(a, None)
    assert shapes_compatible("YYYYMMDD", "8 digits") and not shapes_compatible("YYYYMMDD", "6 digits")


@dataclass
class FakeTool:
    input_schema: Mapping[str, Any]
    examples: tuple[Mapping[str, Any], ...] = ()
    required: tuple[str, ...] = field(default=())


def test_fillers_keep_required_dates_and_settings_and_drop_optional_entities():
    schema = {
        "properties": {
            "crno": {"description": "법인등록번호"},
            "corpNm": {"description": "법인명"},
            "basDt": {"description": "기준일자 (YYYYMMDD)"},
            "numOfRows": {"type": "integer"},
        }
    }
    tool = FakeTool(
        schema, ({"crno": "1101110000000", "corpNm": "라이트론", "basDt": "20260831", "numOfRows": 10},), ("corpNm",)
    )
    assert target_fillers(tool) == [{"corpNm": "라이트론", "basDt": "20260831", "numOfRows": 10}]
    assert target_fillers(FakeTool(schema)) == [{}]
    assert names_an_entity("crno", schema["properties"]["crno"]) and not names_an_entity("basDt", {})
    assert all(STRENGTH[c.name] > TEMPORAL or c.strength == TEMPORAL for c in CONCEPTS)
