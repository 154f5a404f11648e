"""Junction typing and reductions on hand-made source outputs (pure)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kopa_replay.synth.junction import (
    JunctionError,
    apply_reduction,
    bound_args,
    derive_values,
    distinct_values,
    junction_kind,
    nice_threshold,
    propose_reductions,
    value_strings,
)
from kopa_replay.synth.model import Reduction

B = 5
BIND = {"stationId": "id"}


def records(n: int, *, repeat: int = 1) -> list[dict]:
    """``n`` distinct station ids, each on ``repeat`` records, with a distinct number per id (score = 10·i)."""
    return [
        {"id": f"S{i:03d}", "name": f"정류소{i}", "riders": f"{10 * i:,}", "note": " "}
        for i in range(1, n + 1)
        for _ in range(repeat)
    ]


@pytest.mark.parametrize(
    ("n", "kind"), [(1, "sequential"), (3, "fan_out"), (5, "fan_out"), (6, "derived"), (12, "derived")]
)
def test_distinct_count_types_the_junction(n, kind):
    values = distinct_values(records(n, repeat=2), BIND)
    assert len(values) == n
    assert junction_kind(len(values), B) == kind


def test_distinct_values_keep_first_appearance_and_skip_blanks():
    rows = [{"id": "B"}, {"id": " "}, {"id": None}, {"id": "A"}, {"id": "B"}, {"x": 1}, {"id": {"nested": 1}}]
    assert distinct_values(rows, BIND) == ["B", "A"]
    assert distinct_values([], BIND) == []


def test_several_parameter_bindings_hand_over_dicts():
    binding = {"SD_SCHUL_CODE": "school", "ATPT_OFCDC_SC_CODE": "office"}
    rows = [
        {"office": "B10", "school": "7010"},
        {"office": "B10", "school": "7010"},
        {"office": "J10", "school": "7010"},
        {"office": "J10", "school": ""},
    ]
    values = distinct_values(rows, binding)
    assert values == [
        {"ATPT_OFCDC_SC_CODE": "B10", "SD_SCHUL_CODE": "7010"},
        {"ATPT_OFCDC_SC_CODE": "J10", "SD_SCHUL_CODE": "7010"},
    ]
    assert bound_args(binding, values[1]) == {"ATPT_OFCDC_SC_CODE": "J10", "SD_SCHUL_CODE": "7010"}
    assert value_strings(values[0]) == ["B10", "7010"]
    with pytest.raises(JunctionError):
        bound_args(binding, "7010")


def test_kind_needs_a_value_and_a_budget():
    with pytest.raises(JunctionError):
        junction_kind(0, B)
    with pytest.raises(JunctionError):
        junction_kind(3, 0)


def test_derived_reductions_keep_at_most_the_budget():
    rows = records(12)
    options = propose_reductions(rows, BIND, ["riders"], B)
    assert {r.op for r in options} == {"max", "min", "threshold"}  # every id once: no most frequent
    for reduction in options:
        kept = apply_reduction(rows, BIND, reduction)
        assert 1 <= len(kept) <= B
        assert len(kept) == reduction.kept


def test_max_and_min_keep_the_extremes():
    rows = records(12)
    assert apply_reduction(rows, BIND, Reduction("max", "riders", None, 2)) == ["S012", "S011"]
    assert apply_reduction(rows, BIND, Reduction("min", "riders", None, 3)) == ["S001", "S002", "S003"]


def test_threshold_keeps_records_above_it_in_record_order():
    rows = records(12)
    assert apply_reduction(rows, BIND, Reduction("threshold", "riders", 95, 3)) == ["S010", "S011", "S012"]
    threshold = next(r for r in propose_reductions(rows, BIND, ["riders"], B) if r.op == "threshold" and r.kept == 2)
    assert 100 <= threshold.threshold < 110  # between the 2nd and 3rd highest scores, stated short


def test_most_frequent_counts_records_and_refuses_ties():
    rows = [{"id": v} for v in "AABBBCDDDDEF"]
    options = [r for r in propose_reductions(rows, BIND, [], B) if r.op == "most_frequent"]
    # D×4, B×3, A×2, then C, E, F once each: cuts after 4 or 5 values would split that tie
    assert [r.kept for r in options] == [1, 2, 3]
    assert apply_reduction(rows, BIND, Reduction("most_frequent", "id", None, 2)) == ["D", "B"]


def test_ties_at_the_cut_are_not_proposed():
    rows = [{"id": "A", "v": "5"}, {"id": "B", "v": "5"}, {"id": "C", "v": "1"}]
    kept = {(r.op, r.kept) for r in propose_reductions(rows, BIND, ["v"], B)}
    assert ("max", 1) not in kept and ("max", 2) in kept and ("min", 1) in kept


def test_derive_values_applies_the_rule_or_refuses():
    assert derive_values(records(3), BIND, None, B) == ["S001", "S002", "S003"]
    with pytest.raises(JunctionError, match="budget"):
        derive_values(records(12), BIND, None, B)
    with pytest.raises(JunctionError, match="no value"):
        derive_values(records(12), BIND, Reduction("threshold", "riders", 10_000, 0), B)
    assert derive_values(records(12), BIND, Reduction("max", "riders", None, 1), B) == ["S012"]
    with pytest.raises(JunctionError, match="unknown"):
        apply_reduction(records(3), BIND, Reduction("median", "riders", None, 1))


def test_non_numbers_do_not_score():
    rows = [{"id": "A", "v": "N/A"}, {"id": "B", "v": "1,200"}, {"id": "C", "v": ".5"}, {"id": "D", "v": None}]
    assert apply_reduction(rows, BIND, Reduction("max", "v", None, 5)) == ["B", "C"]


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.tuples(st.sampled_from("ABCDEFGHIJKLMNOP"), st.integers(-50, 50)), min_size=1, max_size=60),
    st.integers(2, 8),
)
def test_every_proposed_reduction_is_well_defined(pairs, budget):
    rows = [{"id": key, "v": str(number)} for key, number in pairs]
    for reduction in propose_reductions(rows, BIND, ["v"], budget):
        kept = apply_reduction(rows, BIND, reduction)
        assert 1 <= len(kept) <= budget
        assert len(kept) == reduction.kept
        # the kept set does not depend on record order
        assert sorted(apply_reduction(list(reversed(rows)), BIND, reduction)) == sorted(kept)


@settings(max_examples=300, deadline=None)
@given(st.floats(-1e9, 1e9, allow_nan=False), st.floats(1e-6, 1e9, allow_nan=False))
def test_nice_threshold_lies_in_its_interval(low, width):
    high = low + width
    if not low < high:  # float absorption
        return
    threshold = nice_threshold(low, high)
    assert low <= threshold < high


def test_a_top_k_cut_that_keeps_one_of_two_equal_scores_splits_a_tie():
    from kopa_replay.synth.junction import splits_tie
    from kopa_replay.synth.model import Reduction

    records = [{"code": c, "n": n} for c, n in (("a", 9), ("b", 7), ("c", 7), ("d", 1))]
    binding = {"p": "code"}
    assert not splits_tie(records, binding, Reduction("max", "n", kept=1))  # a alone at the top
    assert splits_tie(records, binding, Reduction("max", "n", kept=2))  # b or c: the order would decide
    assert not splits_tie(records, binding, Reduction("max", "n", kept=3))  # both kept
    assert not splits_tie(records, binding, Reduction("min", "n", kept=1))
    assert splits_tie(records + [{"code": "e", "n": 1}], binding, Reduction("min", "n", kept=1))
    assert not splits_tie(records, binding, Reduction("threshold", "n", threshold=5))
    frequent = [{"code": c} for c in "aabbc"]
    assert splits_tie(frequent, binding, Reduction("most_frequent", "code", kept=1))
    assert not splits_tie(frequent, binding, Reduction("most_frequent", "code", kept=2))
