"""Answers from executed results: arithmetic, the spec language, proposals; field roles (pure)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kopa_replay.synth.answer import (
    AnswerError,
    Branch,
    answer_for,
    difference,
    evaluate,
    finish,
    pct_change,
    propose,
    render,
    total,
)
from kopa_replay.synth.fields import is_measure, label_fields, measure_fields, quantity_class, unit_of


def branch(*rows, total=None, complete=True, value=None):
    return Branch(list(rows), total, complete, value)


def test_the_lightron_premium():
    # the paper's appendix: floor 532 won, prior close 1,680 won → 215.78…%
    groups = [
        [branch({"act_mktprcfl_cvprc_lwtrsprc": "532", "corp_name": "라이트론"})],
        [branch({"clpr": "1,680", "itmsNm": "라이트론"})],
    ]
    spec = {
        "op": "pct_change",
        "a": {"op": "value", "group": 1, "field": "clpr"},
        "b": {"op": "value", "group": 0, "field": "act_mktprcfl_cvprc_lwtrsprc"},
    }
    assert evaluate(spec, groups) == 215.79
    answer = answer_for(spec, evaluate(spec, groups))
    assert (answer.kind, answer.unit, answer.tolerance) == ("number", "%", 0.01)
    assert answer.derivation == "pct_change(value(g1[0].clpr), value(g0[0].act_mktprcfl_cvprc_lwtrsprc))"
    assert evaluate({**spec, "op": "difference"}, groups) == 1148


def test_count_sum_value_and_their_refusals():
    full = [[branch({"n": "1,000"}, {"n": "2"}, {"n": None}, total=3)]]
    assert evaluate({"op": "count", "group": 0}, full) == 3
    assert evaluate({"op": "sum", "group": 0, "field": "n"}, full) == 1002
    partial = [[branch({"n": "1"}, {"n": "2"}, total=300, complete=False)]]
    assert evaluate({"op": "count", "group": 0}, partial) == 300  # the reported total
    with pytest.raises(AnswerError, match="partly read"):
        evaluate({"op": "sum", "group": 0, "field": "n"}, partial)
    with pytest.raises(AnswerError, match="partly read"):
        evaluate({"op": "count", "group": 0}, [[branch({"n": "1"}, complete=False)]])
    with pytest.raises(AnswerError, match="2 values"):
        evaluate({"op": "value", "group": 0, "field": "n"}, full)
    with pytest.raises(AnswerError, match="no step group"):
        evaluate({"op": "count", "group": 5}, full)
    with pytest.raises(AnswerError, match="unknown"):
        evaluate({"op": "median", "group": 0}, full)


def test_comparison_names_the_winner_and_refuses_ties():
    groups = [
        [branch({"id": "x"})],
        [
            branch({"nm": "A", "v": "3"}, value="1"),
            branch({"nm": "B", "v": "9"}, value="2"),
            branch({"nm": "C", "v": "5"}, value="3"),
        ],
    ]
    spec = {"op": "argmax", "group": 1, "metric": {"agg": "value", "field": "v"}, "label": "nm"}
    assert evaluate(spec, groups) == "B"
    assert evaluate({**spec, "op": "argmin"}, groups) == "A"
    assert evaluate({**spec, "label": None}, groups) == "2"  # no label field: the handed value
    assert answer_for(spec, "B").kind == "text"
    tied = [groups[0], [branch({"nm": "A", "v": "9"}), branch({"nm": "B", "v": "9"})]]
    with pytest.raises(AnswerError, match="tied"):
        evaluate(spec, tied)
    assert render(spec) == "argmax(g1 branches by value(v)) -> nm"


def test_threshold_is_a_yes_no():
    groups = [[branch({"v": "10"}, {"v": "20"})]]
    spec = {"op": "threshold", "of": {"op": "sum", "group": 0, "field": "v"}, "cmp": ">", "threshold": 25}
    assert evaluate(spec, groups) is True
    assert evaluate({**spec, "cmp": "<"}, groups) is False
    answer = answer_for(spec, True)
    assert (answer.kind, answer.value, answer.derivation) == ("bool", True, "sum(g0.v) > 25")


@settings(max_examples=300, deadline=None)
@given(st.integers(-(10**12), 10**12), st.integers(-(10**12), 10**12).filter(lambda b: b != 0))
def test_pct_change_matches_its_formula(a, b):
    assert abs(pct_change(a, b) - (a - b) / b * 100) <= 0.005 + 1e-9 * abs((a - b) / b * 100)


def test_pct_change_from_zero_is_refused():
    with pytest.raises(AnswerError):
        pct_change(5, 0)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.integers(-(10**9), 10**9), max_size=50))
def test_totals_of_integers_stay_exact_integers(numbers):
    assert total(numbers) == sum(numbers)
    assert isinstance(total(numbers), int)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.floats(-1e6, 1e6, allow_nan=False), min_size=1, max_size=50))
def test_totals_of_floats_do_not_depend_on_order(numbers):
    assert total(numbers) == total(list(reversed(numbers)))
    assert abs(total(numbers) - math.fsum(numbers)) <= 1e-4


@settings(max_examples=300, deadline=None)
@given(st.integers(-(10**9), 10**9), st.integers(-(10**9), 10**9))
def test_difference_of_integers_is_exact(a, b):
    assert difference(a, b) == a - b


def test_finish_rounds_floats_and_keeps_integers():
    assert finish(3) == 3 and isinstance(finish(np.int64(3)), int)
    assert finish(0.123456) == 0.1235 and finish(-0.00001) == 0.0
    with pytest.raises(AnswerError):
        finish(float("inf"))


# -- field roles -----------------------------------------------------------------------------
def test_fields_tell_measures_from_codes(catalog):
    stock = catalog.get("datagokr_get_stock_price_info")
    assert is_measure(stock, "clpr") and not is_measure(stock, "srtnCd") and not is_measure(stock, "basDt")
    rows = [{"clpr": "1,680", "srtnCd": "069540", "basDt": "20260831", "itmsNm": "라이트론", "fltRt": ".11"}]
    assert measure_fields(stock, rows) == ["clpr", "fltRt"]
    assert label_fields(stock, rows) == ["itmsNm"]
    assert (unit_of(stock, "clpr"), quantity_class(stock, "clpr")) == ("원", "price")
    assert quantity_class(stock, "fltRt") == "change"
    cvbd = catalog.get("dart_cvbd_is_decsn")
    assert quantity_class(cvbd, "act_mktprcfl_cvprc_lwtrsprc") == "price"
    assert unit_of(cvbd, "rmislmt_lt70p") == "원"  # the unit that trails the name, not the 70% inside it
    assert quantity_class(catalog.get("seoul_card_bus_statistics_service_new"), "GTON_TNOPE") == "count"


def test_propose_answers_each_pattern(catalog):
    tools = [catalog.get("seoulbus_get_station_by_uid"), catalog.get("seoulbus_get_route_info")]
    groups = [
        [branch({"busRouteId": "1"}, {"busRouteId": "2"}, {"busRouteId": "3"})],
        [
            branch({"busRouteAbrv": n, "length": str(km), "term": str(t)}, value=str(i))
            for i, (n, km, t) in enumerate([("101", 30.5, 9), ("202", 41.0, 12), ("303", 12.25, 7)])
        ],
    ]
    rng = np.random.default_rng(0)
    seen = {}
    for pattern in ("chain", "fan_out", "derived", "comparison", "condition"):
        proposal = propose(pattern, groups, tools, rng)
        assert proposal is not None, pattern
        spec, value, _ = proposal
        assert evaluate(spec, groups) == value
        seen[pattern] = spec["op"]
    assert seen["comparison"] in ("argmax", "argmin") and seen["condition"] == "threshold"
    assert propose("comparison", groups[:1], tools[:1], rng) is None  # one branch: nothing to compare
    with pytest.raises(AnswerError):
        propose("poem", groups, tools, rng)


def test_conditions_over_counts_use_whole_thresholds(catalog):
    tools = [catalog.get("neis_school_schedule"), catalog.get("neis_meal_service_diet_info")]
    groups = [[branch({"SD_SCHUL_CODE": "1"})], [branch(*({"MLSV_FGR": str(n)} for n in (310, 295, 0)), total=3)]]
    for seed in range(20):
        spec, value, _ = propose("condition", groups, tools, np.random.default_rng(seed))
        assert spec["op"] == "threshold" and isinstance(value, bool)
        if isinstance(evaluate(spec["of"], groups), int):
            assert isinstance(spec["threshold"], int) and spec["threshold"] != evaluate(spec["of"], groups)


def test_a_distinct_count_counts_each_thing_once_however_often_it_is_listed():
    # the same route passes two stops: two records, one route (and a blank id names no route)
    stops = [
        [
            branch({"busRouteId": "100100118", "n": "1"}, {"busRouteId": "100100124"}, total=2),
            branch({"busRouteId": "100100118 "}, {"busRouteId": None}, total=2),
        ]
    ]
    assert evaluate({"op": "count", "group": 0}, stops) == 4
    assert evaluate({"op": "count", "group": 0, "distinct": "busRouteId"}, stops) == 2
    partial = [[branch({"busRouteId": "1"}, total=9, complete=False)]]
    with pytest.raises(AnswerError, match="partly read"):  # the records unread may repeat or not
        evaluate({"op": "count", "group": 0, "distinct": "busRouteId"}, partial)
