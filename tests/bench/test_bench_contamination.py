"""The decontaminator and the measures it shares with the audit: questions, n-grams, plan signatures."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kopa_replay.bench.audit import audit, items_from_trajectories
from kopa_replay.bench.contamination import Decontaminator, Match
from kopa_replay.bench.model import Task
from kopa_replay.bench.overlap import (
    NEAR_VERBATIM,
    PAGING_PARAMS,
    QuestionIndex,
    char_ngrams,
    jaccard,
    paging_params,
    plan_signature,
)
from kopa_replay.bench.suite import load_task_set, save_task_set
from kopa_replay.errors import UsageError
from kopa_replay.synth.model import Answer, Step, Trajectory
from kopa_replay.text import normalize_question

QUESTION = (
    "시군코드 41110으로 「경기도 일반음식점 현황」을 호출하고, 그 결과의 시군코드로 「경기도 전기차 충전소 현황」을 "
    "호출했을 때, 「경기도 전기차 충전소 현황」 결과는 모두 몇 건입니까?"
)
CALLS = (
    ("gg_general_restaurant", {"SIGUN_CD": "41110", "pSize": 50}),
    ("gg_general_restaurant", {"SIGUN_CD": "41110", "pIndex": 2, "pSize": 50}),
    ("gg_ev_charging_station", {"SIGUN_CD": "41110", "pIndex": 1, "pSize": 100}),
)


def task(id: str = "kopa-district-001", question: str = QUESTION, calls=CALLS, question_ko: str | None = None) -> Task:
    question = question_ko if question_ko is not None else question
    return Task(id, question, Answer("number", 49), reference_calls=tuple((t, dict(a)) for t, a in calls))


def trajectory(
    id: str = "t0001", question: str = "", calls=(("neis_school_info", {"SCHUL_NM": "서울고"}),), meta_slots=None
):
    """A training item with these calls (one step per call, pages as meta["calls"]) and slots (the names it states)."""
    steps = [Step(i, tool, dict(args), "ok", 1, 1, f"d{i}", i) for i, (tool, args) in enumerate(calls)]
    meta: dict = {"calls": [{"step": i, "tool": tool, "args": dict(args)} for i, (tool, args) in enumerate(calls)]}
    if meta_slots is not None:
        meta["slots"] = dict(meta_slots)
    return Trajectory(id, "chain", steps, [], Answer("number", 1), question, (), "", meta)


def _tail_variant(text: str, changed: int) -> str:
    """``text`` with its last ``changed`` characters before the final one replaced."""
    return text[: -1 - changed] + "쀍" * changed + text[-1]


# -- the shared helpers -------------------------------------------------------------------------
def test_plan_signature_ignores_argument_order_paging_types_and_blank_values():
    one = plan_signature(CALLS)
    assert one == (
        ("gg_ev_charging_station", (("SIGUN_CD", "41110"),)),
        ("gg_general_restaurant", (("SIGUN_CD", "41110"),)),
    )
    other = [
        ("gg_ev_charging_station", {"pSize": 10, "pIndex": 7, "SIGUN_CD": 41110}),  # another page, a number
        ("gg_general_restaurant", {"SIGUN_CD": " 41110 ", "extra": None, "note": ""}),
    ]  # blank = absent
    assert plan_signature(other) == one
    assert plan_signature([("gg_general_restaurant", '{"SIGUN_CD": "41110"}')]) == one[1:]  # JSON text arguments
    assert plan_signature([("gg_general_restaurant", {"SIGUN_CD": "41111"})]) != one[1:]
    assert plan_signature([("gg_general_restaurant", {"SIGUN_CD": "041110"})]) != one[1:]  # codes keep their zeros
    assert plan_signature([("t", {"x": 1.0})]) == plan_signature([("t", {"x": "1"})])
    assert plan_signature([("t", "not json")]) != plan_signature([("t", {})])
    assert plan_signature([]) == ()
    # paging is whatever the caller says it is
    assert plan_signature(CALLS, paging=()) != one


def test_paging_params_cover_the_builtin_catalogs(catalog):
    from kopa_replay.catalog import builtin_catalog

    # the constant code without a catalog falls back on is exactly what the shipped catalogs page with
    assert paging_params(catalog) | paging_params(builtin_catalog("paper")) == PAGING_PARAMS


args_st = st.dictionaries(
    st.sampled_from(["SIGUN_CD", "corp_code", "bgn_de", "SCHUL_NM", "x"]),
    st.one_of(st.integers(0, 10**6), st.text("0123456789가나다ab", min_size=1, max_size=8)),
    max_size=4,
)
paging_st = st.dictionaries(st.sampled_from(sorted(PAGING_PARAMS)), st.integers(1, 1000), max_size=3)
calls_st = st.lists(st.tuples(st.sampled_from(["a_tool", "b_tool", "c_tool"]), args_st), min_size=1, max_size=5)


@settings(max_examples=200, deadline=None)
@given(calls_st, st.lists(paging_st, min_size=5, max_size=5), st.randoms(use_true_random=False))
def test_plan_signature_is_independent_of_argument_order_call_order_and_paging(calls, pagings, rnd):
    reference = plan_signature(calls)
    paged = []
    for (tool, args), paging in zip(calls, pagings):
        items = list({**args, **paging}.items())
        rnd.shuffle(items)
        paged.append((tool, dict(items)))
        paged.append((tool, dict(reversed(items))))  # a second page of the same call
    rnd.shuffle(paged)
    assert plan_signature(paged) == reference
    assert plan_signature(reference_calls(reference)) == reference  # a signature's calls sign to themselves


def reference_calls(signature):
    return [(tool, dict(args)) for tool, args in signature]


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.characters(codec="utf-8"), max_size=60))
def test_normalize_question_is_idempotent(text):
    once = normalize_question(text, spaces=True)
    assert normalize_question(once, spaces=True) == once
    assert once == once.strip() and "  " not in once


words = st.sampled_from(["학교", "급식", "오늘", "메뉴", "는", "시군코드", "41110", "호출", "몇", "건", "입니까", " "])


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.lists(words, min_size=1, max_size=12).map("".join), max_size=12),
    st.lists(words, min_size=1, max_size=12).map("".join),
    st.sampled_from([0.5, 0.7, 0.9, 1.0]),
)
def test_question_index_finds_what_a_scan_finds(texts, query, threshold):
    texts = [normalize_question(t, spaces=True) for t in texts]
    query = normalize_question(query, spaces=True)
    index = QuestionIndex(texts)
    scored = [(jaccard(char_ngrams(query), char_ngrams(t)), t) for t in set(texts) if t]
    best = max((s for s, _ in scored), default=0.0)
    found = index.nearest(query, threshold)
    grown = QuestionIndex()
    for text in reversed(texts):  # one at a time, in another order: the same answers
        grown.add(text)
    assert grown.nearest(query, threshold) == found and len(grown) == len(index)
    if not query or best < threshold:
        assert found is None
    else:
        assert found is not None and found[0] == best and (best, found[1]) in scored


# -- the matcher --------------------------------------------------------------------------------
def test_a_verbatim_question_matches_whatever_its_punctuation_and_spacing():
    matcher = Decontaminator([task()])
    found = matcher.match(trajectory(question=QUESTION.replace(", ", "  ").replace("?", " ?")))
    assert found == Match("kopa-district-001", "verbatim")
    assert matcher(trajectory(question=QUESTION)) == "verbatim question of benchmark task kopa-district-001"


def test_near_verbatim_at_and_below_the_threshold():
    near = _tail_variant(QUESTION, 3)
    far = _tail_variant(QUESTION, 20)
    a, b = normalize_question(QUESTION, spaces=True), normalize_question(near, spaces=True)
    score = jaccard(char_ngrams(a), char_ngrams(b))
    assert NEAR_VERBATIM <= score < 1.0
    assert jaccard(char_ngrams(a), char_ngrams(normalize_question(far, spaces=True))) < NEAR_VERBATIM
    found = Decontaminator([task()]).match(trajectory(question=near))
    assert found is not None and found.kind == "near_verbatim" and found.similarity == score
    assert "near-verbatim question of benchmark task kopa-district-001 (3-gram Jaccard 0.9" in str(found)
    assert Decontaminator([task()]).match(trajectory(question=far)) is None
    # exactly at the threshold matches; a hair above it does not
    assert Decontaminator([task()], near=score).match(trajectory(question=near)) is not None
    assert Decontaminator([task()], near=score + 1e-9).match(trajectory(question=near)) is None


def test_the_same_plan_with_reordered_arguments_and_other_pages_matches():
    matcher = Decontaminator([task()])
    calls = [
        ("gg_ev_charging_station", {"pSize": 20, "SIGUN_CD": "41110"}),
        ("gg_general_restaurant", {"pIndex": 3, "pSize": 10, "SIGUN_CD": 41110}),
    ]
    found = matcher.match(trajectory(question="전혀 다른 말로 물은 질문입니까?", calls=calls))
    assert found == Match("kopa-district-001", "plan")
    assert str(found) == "same plan as benchmark task kopa-district-001"


def test_a_different_item_does_not_match():
    matcher = Decontaminator([task()])
    other_code = [(tool, {**args, "SIGUN_CD": "41130"}) for tool, args in CALLS]
    assert matcher.match(trajectory(question="시군코드 41130의 음식점은 몇 곳입니까?", calls=other_code)) is None
    assert matcher.match(trajectory(question="", calls=CALLS[:1])) is None  # a part of the plan is not the plan
    assert matcher(trajectory()) is None


def test_question_matches_come_first_and_ties_go_to_the_first_task_id():
    matcher = Decontaminator([task("b", calls=CALLS), task("a", question="다른 질문", calls=CALLS)])
    assert matcher.match(trajectory(question=QUESTION, calls=CALLS)) == Match("b", "verbatim")
    assert matcher.match(trajectory(question="새 질문", calls=CALLS)) == Match("a", "plan")


def test_a_task_without_reference_calls_is_matched_by_its_plan():
    plan = trajectory("kopa-x", question=QUESTION, calls=CALLS)
    matcher = Decontaminator([task("kopa-x", calls=())], {"kopa-x": plan})
    assert matcher.match(trajectory(question="새 질문", calls=CALLS)) == Match("kopa-x", "plan")


def test_threshold_is_checked():
    with pytest.raises(UsageError, match="threshold"):
        Decontaminator([task()], near=0.0)


def test_built_from_a_saved_task_set(tmp_path):
    plan = trajectory("kopa-district-001", question=QUESTION, calls=CALLS)
    save_task_set(tmp_path, [task()], [plan.to_dict()], {"note": "test"})
    matcher = Decontaminator.from_task_set(load_task_set(tmp_path))
    assert matcher.describe() == {
        "against": f"1 tasks of {tmp_path}",
        "tasks": 1,
        "questions": 1,
        "plans": 1,
        "near": NEAR_VERBATIM,
        "masked_names": 0,
    }
    assert matcher(plan) is not None


MEAL = "서울 답십리중학교의 2026년 9월 2일 점심 급식 인원은 몇 명입니까?"


def test_a_date_slot_reads_as_digits_and_a_name_inside_another_is_cut_alike():
    """A corpus item's date is one of its slots ("2026년 9월 1일"); the benchmark's day is not: both must read as
    0년 0월 0일. The benchmark names "서울", the item "서울특별시": the benchmark's names go first on both sides."""
    bench = task(question_ko="서울특별시 답십리중학교의 2026년 9월 2일 점심 급식 인원은 몇 명입니까?")
    matcher = Decontaminator([bench], names={bench.id: ["서울", "답십리중학교"]})
    item = trajectory(
        question="서울특별시 양재고등학교의 2026년 9월 1일 점심 급식 인원은 몇 명입니까?",
        meta_slots={"sido": "서울특별시", "school": "양재고등학교", "day_says": "2026년 9월 1일"},
    )
    assert matcher.match(item) == Match(bench.id, "masked")


def test_the_same_sentence_about_another_school_and_day_is_masked_equal():
    """The issue's example: below every 3-gram threshold we use once the school differs, yet the same question."""
    other = "서울 양재고등학교의 2026년 9월 1일 점심 급식 인원은 몇 명입니까?"
    bench = task(question_ko=MEAL)
    matcher = Decontaminator([bench], names={bench.id: ["답십리중학교"]})
    # the school is the training item's own slot; the benchmark's names mask both sides
    found = matcher.match(trajectory(question=other, meta_slots={"school": "양재고등학교"}))
    assert found == Match(bench.id, "masked")
    assert "with other names and numbers" in str(found)
    # without the item's slot its school stays a word, and the two differ
    assert Decontaminator([bench], names={bench.id: ["답십리중학교"]}).match(trajectory(question=other)) is None
    # another sentence about the same things is not masked-equal
    assert (
        matcher.match(
            trajectory(
                question="양재고등학교 급식 먹는 학생이 9월 1일에 몇 명이었나요?", meta_slots={"school": "양재고등학교"}
            )
        )
        is None
    )


def test_the_matcher_and_the_audit_agree(tmp_path):
    """What the decontaminator drops is exactly what makes the audit count verbatim, near-verbatim or shared plans."""
    rnd = random.Random(0)
    questions = [
        QUESTION,
        "정류소 19001을 지나는 노선 가운데 배차간격이 가장 짧은 노선은 무엇입니까?",
        "학사일정 조회 결과의 행정표준코드로 급식식단정보를 조회했을 때 급식인원수 합계가 658보다 작습니까?",
        "법령 목록에서 가장 최근에 공포된 법령의 시행일자는 언제입니까?",
    ]
    bench = [
        trajectory(
            f"kopa-{i}", question=question, calls=[(t, {**a, "SIGUN_CD": str(41110 + 20 * i)}) for t, a in CALLS]
        )
        for i, question in enumerate(questions)
    ]
    tasks = [task(t.id, t.question, [(c["tool"], c["args"]) for c in t.meta["calls"]]) for t in bench]
    train = [
        trajectory("t1", question=bench[0].question),  # verbatim
        trajectory("t2", question=_tail_variant(bench[1].question, 2)),  # near-verbatim
        trajectory("t3", question="딴 질문", calls=[(t, dict(a)) for t, a in reversed(CALLS)]),  # bench[0]'s plan
        trajectory("t4", question="무관한 질문입니다", calls=[("x_tool", {"a": rnd.randint(0, 9)})]),
    ]
    matcher = Decontaminator(tasks)
    kept = [t for t in train if matcher(t) is None]
    assert [t.id for t in kept] == ["t4"]
    before = audit(
        items_from_trajectories([t.to_dict() for t in train]), items_from_trajectories([t.to_dict() for t in bench])
    )
    assert (before["verbatim"]["verbatim"], before["verbatim"]["near_verbatim"], before["plans"]["shared"]) == (1, 1, 1)
    after = audit(
        items_from_trajectories([t.to_dict() for t in kept]), items_from_trajectories([t.to_dict() for t in bench])
    )
    assert (after["verbatim"]["verbatim"], after["verbatim"]["near_verbatim"], after["plans"]["shared"]) == (0, 0, 0)


def test_every_shipped_task_matches_itself():
    """Whatever the shipped set holds: each of its plans is caught, by its own question or plan."""
    task_set = load_task_set()
    matcher = Decontaminator.from_task_set(task_set)
    planned = [t for t in task_set.tasks if t.id in task_set.plans]
    assert planned
    for t in planned:
        found = matcher.match(task_set.plans[t.id])
        assert found is not None and found.kind in ("verbatim", "plan"), t.id


# -- masking, as a property ------------------------------------------------------------------------------
from hypothesis import given  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from kopa_replay.text import masked_question  # noqa: E402

_HANGUL = st.text(alphabet=st.characters(min_codepoint=0xAC00, max_codepoint=0xD7A3), min_size=2, max_size=8)
_TEXT = st.text(alphabet=st.sampled_from(list("가나다라 의는 몇 명 0123456789,?년월일") + ["１", "٣"]), max_size=40)


@given(_TEXT, st.lists(_HANGUL, max_size=3))
def test_masking_leaves_no_digit_and_is_idempotent(text, names):
    once = masked_question(text, names)
    assert not any(ch in "0123456789" for ch in once.replace("0", ""))
    assert masked_question(once, names) == once


@given(_HANGUL, _HANGUL, st.integers(1, 31), st.integers(1, 31))
def test_two_names_and_days_in_one_sentence_mask_alike(a, b, day_a, day_b):
    sentence = "서울 {}의 2026년 9월 {}일 점심 급식 인원은 몇 명입니까?"
    one = masked_question(sentence.format(a, day_a), [a, b])
    two = masked_question(sentence.format(b, day_b), [a, b])
    if a not in b and b not in a:  # one name inside the other would mask part of it
        assert one == two
    # the masked sentence holds neither name
    assert a not in one or a in "서울 의 년 월 일 점심 급식 인원은 몇 명입니까"
