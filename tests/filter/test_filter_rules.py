"""Stage 1: malformed structures, reproducibility, near-duplicates."""

from __future__ import annotations

import dataclasses

import pytest
from filter_fixtures import FakePlanner, trajectory

from kopa_replay.errors import CassetteMiss
from kopa_replay.filter.rules import jaccard, malformed, near_duplicates, ngrams, plan_key, reproduce
from kopa_replay.synth.model import Answer, Junction, Step


def test_a_well_formed_item_passes(catalog):
    assert malformed(trajectory(), catalog) is None


def _junction(**change):
    item = trajectory()
    return dataclasses.replace(item, junctions=[dataclasses.replace(item.junctions[0], **change)])


@pytest.mark.parametrize(
    "item, words",
    [
        (dataclasses.replace(trajectory(), question="  "), "no question"),
        (dataclasses.replace(trajectory(), answer=Answer("number", None)), "no answer"),
        (dataclasses.replace(trajectory(), answer=Answer("essay", "x")), "answer kind"),
        (dataclasses.replace(trajectory(), answer=Answer("number", float("nan"))), "non-finite"),
        (dataclasses.replace(trajectory(), answer=Answer("number", "1,680")), "number answer holds str"),
        (dataclasses.replace(trajectory(), steps=[]), "no steps"),
        (dataclasses.replace(trajectory(), state_digest=""), "no state digest"),
        (_junction(target=7), "outside steps"),
        (_junction(source=1, target=1), "runs backwards"),
        (_junction(kind="sideways"), "has kind"),
        (_junction(values=(float("inf"),)), "non-finite number among the values"),
    ],
)
def test_malformed_items_are_named(catalog, item, words):
    assert words in malformed(item, catalog)


def test_an_unknown_tool_and_bad_step_indexes_are_malformed(catalog):
    item = trajectory()
    unknown = dataclasses.replace(item, steps=[dataclasses.replace(item.steps[0], tool="no_such_tool"), item.steps[1]])
    assert "no_such_tool" in malformed(unknown, catalog)
    shuffled = dataclasses.replace(item, steps=[item.steps[1], item.steps[0]])
    assert "not 0..1 in order" in malformed(shuffled, catalog)
    nan_args = dataclasses.replace(
        item, steps=[Step(0, "dart_corp_code", {"x": float("nan")}, "ok", 1, 1, "d", 0), item.steps[1]]
    )
    assert "arguments of step 0" in malformed(nan_args, catalog)


# -- reproducibility ------------------------------------------------------------------
def test_a_faithful_rerun_reproduces():
    assert reproduce(trajectory(), None, None, FakePlanner()) is None


def test_a_different_state_digest_or_answer_is_not_reproducible():
    item = trajectory()
    assert "state digest" in reproduce(item, None, None, FakePlanner(digest=lambda t: "other"))
    moved = FakePlanner(answer=lambda t, p, c: dataclasses.replace(t.answer, value=3.0))
    assert "re-run answers 3.0, stored 215.78" in reproduce(item, None, None, moved)
    failed = FakePlanner(answer=lambda t, p, c: None)
    assert "did not complete" in reproduce(item, None, None, failed)


def test_a_cassette_miss_on_the_replay_snapshot_is_not_reproducible():
    def miss(t, p, c):
        raise CassetteMiss(tool="dart_corp_code", method="GET", url="https://x", snapshot="s", store="db")

    assert "CassetteMiss" in reproduce(trajectory(), None, None, FakePlanner(answer=miss))


def test_a_bug_in_the_planner_is_not_swallowed():
    def bug(t, p, c):
        raise ZeroDivisionError("bug")

    with pytest.raises(ZeroDivisionError):
        reproduce(trajectory(), None, None, FakePlanner(answer=bug))


# -- near-duplicates ------------------------------------------------------------------
def test_a_reworded_copy_is_a_near_duplicate_and_the_first_id_is_kept(catalog):
    first = trajectory("t0002")
    copy_ = dataclasses.replace(
        trajectory("t0001", start_args={"corp_name": "삼성전자"}), question=first.question.replace("입니까?", "인가요?")
    )
    found = near_duplicates([first, copy_], catalog)
    assert list(found) == ["t0002"]  # t0001 sorts first: it stays, whatever the input order
    assert "similar to t0001" in found["t0002"]


def test_same_tools_and_arguments_are_a_duplicate_however_worded(catalog):
    a = trajectory("a")
    b = dataclasses.replace(trajectory("b"), question="전혀 다른 말로 쓴 질문: 라이트론 전환사채 몇 %?")
    assert jaccard(ngrams(a.question), ngrams(b.question)) < 0.5
    assert plan_key(a, catalog) == plan_key(b, catalog)
    assert "same tools and arguments as a" in near_duplicates([b, a], catalog)["b"]


def test_different_tasks_are_not_duplicates(catalog):
    a = trajectory("a")
    b = dataclasses.replace(
        trajectory("b", start_args={"corp_name": "삼성전자"}),
        question="삼성전자의 최근 전환사채 발행에서 전환가액과 종가의 차이는 얼마입니까?",
    )
    c = dataclasses.replace(
        trajectory("c", reduction=None),
        answer=Answer("number", 3, 0.0, "count(g1)"),
        question="라이트론의 전환사채권 발행결정은 모두 몇 건입니까?",
    )
    assert near_duplicates([a, b, c], catalog) == {}


def test_the_threshold_and_n_are_respected(catalog):
    a = trajectory("a", start_args={"corp_name": "라이트론"})
    b = dataclasses.replace(
        trajectory("b", start_args={"corp_name": "라이트"}), question=a.question + " 소수 둘째 자리까지 답하세요."
    )
    score = jaccard(ngrams(a.question), ngrams(b.question))
    assert list(near_duplicates([a, b], catalog, threshold=score)) == ["b"]
    assert near_duplicates([a, b], catalog, threshold=min(1.0, score + 0.01)) == {}
    assert ngrams("가나") == frozenset({"가나"}) and ngrams("", 3) == frozenset()


def test_handed_values_are_not_part_of_the_plan(catalog):
    a = trajectory("a")
    b = dataclasses.replace(
        trajectory("b"), junctions=[Junction(0, 1, {"corp_code": "corp_code"}, "sequential", 3, 1, ("x",), None)]
    )
    assert plan_key(a, catalog) == plan_key(b, catalog)  # handed values are outcomes, not the plan


def test_another_name_picked_out_of_the_same_list_is_another_task(catalog):
    """A corpus family's instances share the lookup (a city's schools) and differ in the one the person names:
    the match's value is part of the plan, so they are not duplicates — and the same name twice is."""
    from kopa_replay.synth.model import Reduction

    def picking(id, name, question):
        item = trajectory(id, start_args={}, reduction=Reduction("match", "corp_name", None, 1, name))
        return dataclasses.replace(item, question=question)

    a = picking("a", "라이트론", "라이트론 전환사채의 전환가액은 얼마입니까?")
    b = picking("b", "티앤통신", "티앤통신 전환사채의 전환가액은 얼마입니까?")
    again = picking("c", "라이트론", "전환가액, 라이트론 전환사채는 얼마로 정했나요?")
    assert plan_key(a, catalog) != plan_key(b, catalog)
    assert near_duplicates([a, b], catalog) == {}
    assert "same tools and arguments as a" in near_duplicates([a, b, again], catalog)["c"]
