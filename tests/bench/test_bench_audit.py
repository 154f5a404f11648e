"""The contamination audit: the paper's four measures on hand-made data with known answers, and on synthesized data."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kopa_replay.bench.audit import (
    AuditItem,
    audit,
    char_ngrams,
    consecutive_pairs,
    items_from_sft_rows,
    items_from_trajectories,
    jaccard,
    markdown,
)
from kopa_replay.bench.overlap import plan_signature
from kopa_replay.errors import UsageError
from kopa_replay.text import normalize_question

LONG_Q = (
    "학사시작일자 2026년 8월 1일, 학사종료일자 2026년 9월 30일에 「학사일정 조회」를 호출하고, 그 결과의 "
    "행정표준코드로 「급식식단정보 조회」를 호출했을 때, 급식인원수 합계가 658보다 작습니까?"
)


def item(calls: str, links: str = "", question: str = "", id: str = "") -> AuditItem:
    """``item("a b c", "a>b b>c")``: calls by space, links as source>target."""
    return AuditItem(question, tuple(calls.split()), tuple(tuple(x.split(">")) for x in links.split()), id)


# -- helpers ----------------------------------------------------------------------------------
def test_normalize_question_folds_width_case_punctuation_and_space():
    assert normalize_question("  ＡＢＣ　１２３？ ", spaces=True) == "abc 123"
    assert (
        normalize_question("「학사일정 조회」를   호출하고,\n결과는?", spaces=True)
        == "학사일정 조회 를 호출하고 결과는"
    )
    assert normalize_question("A,B", spaces=True) == normalize_question("A, B", spaces=True) == "a b"
    assert normalize_question("?!…", spaces=True) == ""


def test_char_ngrams_and_jaccard_known_values():
    assert char_ngrams("abcd") == {"abc", "bcd"}
    assert char_ngrams("ab") == {"ab"} and char_ngrams("") == set()
    assert jaccard({1, 2, 3}, {2, 3, 4}) == 0.5
    assert jaccard({1}, {2}) == 0.0
    assert jaccard(set(), set()) == 1.0


def test_consecutive_pairs_collapse_runs_of_one_tool():
    assert consecutive_pairs(("a", "a", "b", "b", "b", "c", "a")) == [("a", "b"), ("b", "c"), ("c", "a")]
    assert consecutive_pairs(("a", "a")) == [] and consecutive_pairs(()) == []


@settings(max_examples=200, deadline=None)
@given(st.sets(st.integers(0, 20)), st.sets(st.integers(0, 20)))
def test_jaccard_is_symmetric_and_bounded(a, b):
    assert jaccard(a, b) == jaccard(b, a)
    assert 0.0 <= jaccard(a, b) <= 1.0
    assert jaccard(a, a) == 1.0
    assert (jaccard(a, b) == 1.0) == (a == b)


# -- the four measures on hand-made data ----------------------------------------------------------
def test_verbatim_and_near_verbatim_questions():
    train = [item("a", question=LONG_Q), item("a", question="학교 급식, 오늘 메뉴는?"), item("a", question="")]
    bench = [
        item("a", question="학교   급식 오늘 메뉴는", id="b1"),  # verbatim after normalization
        item("a", question=LONG_Q.replace("작습니까", "작나요"), id="b2"),  # a changed ending: near-verbatim
        item("a", question="학교 급식 내일 메뉴는", id="b3"),  # short, one word changed: neither
        item("a", question="", id="b4"),
    ]  # no question: not counted
    v = audit(train, bench)["verbatim"]
    assert (v["questions"], v["verbatim"], v["near_verbatim"]) == (3, 1, 1)
    assert v["verbatim_ratio"] == pytest.approx(1 / 3)
    assert v["verbatim_examples"] == [{"id": "b1", "question": "학교   급식 오늘 메뉴는"}]
    [near] = v["near_verbatim_examples"]
    assert near["id"] == "b2" and near["train_question"] == LONG_Q and 0.9 <= near["similarity"] < 1.0
    strict = audit(train, bench, near=0.99)["verbatim"]
    assert strict["near_verbatim"] == 0 and strict["verbatim"] == 1


def test_questions_equal_once_names_and_numbers_are_masked():
    """Another school on another day is the same question; the names masked are each side's own slots, and the
    benchmark's names mask the training side too."""
    asked = "서울 {}의 2026년 9월 {}일 점심 급식 인원은 몇 명입니까?"
    bench = [AuditItem(asked.format("답십리중학교", 2), ("a",), (), "b1", (), ("답십리중학교",))]
    train = [
        AuditItem(asked.format("양재고등학교", 1), ("a",), (), "t1", (), ("양재고등학교",)),
        AuditItem(asked.format("양재고등학교", 1) + " 반올림해서요", ("a",), (), "t2", (), ("양재고등학교",)),
    ]
    v = audit(train, bench)["verbatim"]
    assert (v["verbatim"], v["masked"]) == (0, 1)
    assert v["masked_examples"] == [
        {"id": "b1", "question": asked.format("답십리중학교", 2), "train_question": asked.format("양재고등학교", 1)}
    ]
    # without the training item's slot its school stays a word: nothing is masked-equal
    unnamed = [AuditItem(t.question, t.calls, t.links, t.id) for t in train]
    assert audit(unnamed, bench)["verbatim"]["masked"] == 0
    assert "equal with names and numbers masked: 1" in markdown(audit(train, bench))


def test_tool_universe_overlap():
    t = audit([item("a b"), item("x a")], [item("a b c"), item("d")])["tools"]
    assert t["overlap"] == 0.5 and (t["shared"], t["bench"], t["train"]) == (2, 4, 3)
    assert t["shared_tools"] == ["a", "b"] and t["bench_only_tools"] == ["c", "d"]


def test_dependency_links_jaccard_and_unseen_occurrences():
    train = [item("a b c", "a>b b>c")]
    bench = [item("b c d", "b>c c>d"), item("c d", "c>d")]
    li = audit(train, bench)["links"]
    assert li["jaccard"] == pytest.approx(1 / 3)  # {b>c} of {a>b, b>c, c>d}
    assert (li["bench_occurrences"], li["unseen_occurrences"]) == (3, 2)
    assert li["unseen_share"] == pytest.approx(2 / 3)
    assert li["shared_examples"] == [["b", "c"]]


def test_consecutive_calls_regardless_of_dependency():
    train = [item("a b c")]  # pairs a>b, b>c; no links at all
    bench = [item("a b b d"), item("c a b")]  # pairs a>b, b>d | c>a, a>b
    p = audit(train, bench)["pairs"]
    assert (p["bench_occurrences"], p["unseen_occurrences"]) == (4, 2)
    assert p["unseen_share"] == 0.5
    assert p["jaccard"] == pytest.approx(1 / 4)  # {a>b} of {a>b, b>c, b>d, c>a}
    assert p["shared_examples"] == [["a", "b"]]
    assert audit(train, bench)["links"]["jaccard"] is None  # no links on either side: nothing to compare


def test_shared_plans_count_benchmark_tasks_whose_calls_training_makes():
    plan_a = plan_signature([("a", {"x": "1", "pageNo": 1}), ("b", {"y": "2"})])
    plan_b = plan_signature([("a", {"x": "9"})])
    train = [
        AuditItem("질문 가", ("a", "b"), (), "t2", plan_signature([("b", {"y": 2}), ("a", {"x": 1, "pageNo": 3})])),
        AuditItem("질문 나", ("a", "b"), (), "t1", plan_a),
        AuditItem("질문 다", ("a",), (), "t3"),
    ]  # no plan known: never shared
    bench = [
        AuditItem("질문 라", ("a", "b"), (), "b1", plan_a),
        AuditItem("질문 마", ("a",), (), "b2", plan_b),
        AuditItem("질문 바", ("a",), (), "b3"),
    ]
    plans = audit(train, bench)["plans"]
    assert plans == {
        "bench": 2,
        "train": 1,
        "shared": 1,
        "shared_ratio": 0.5,
        "examples": [{"id": "b1", "train_id": "t1", "tools": ["a", "b"]}],
    }
    assert audit(list(reversed(train)), bench)["plans"] == plans
    text = markdown(audit(train, bench))
    assert "| shared plans | 1 / 2 (50.0%) |" in text and "| 0 |" in text
    assert "### Shared plans (1)" in text and "b1 = training t1: `a`, `b`" in text


def test_disjoint_sets_overlap_nowhere():
    report = audit([item("a b", "a>b", "첫 번째 질문입니다")], [item("c d", "c>d", "전혀 다른 내용의 물음")])
    assert report["verbatim"]["verbatim"] == report["verbatim"]["near_verbatim"] == 0
    assert report["tools"]["overlap"] == 0.0
    assert report["links"]["jaccard"] == report["pairs"]["jaccard"] == 0.0
    assert report["links"]["unseen_share"] == report["pairs"]["unseen_share"] == 1.0


def test_identical_sets_overlap_fully():
    items = [item("a b b c", "a>b b>c", "질문 하나", "1"), item("c a", "c>a", "질문 둘", "2")]
    report = audit(items, items)
    assert report["verbatim"]["verbatim_ratio"] == 1.0
    assert report["tools"]["overlap"] == 1.0
    assert report["links"]["jaccard"] == report["pairs"]["jaccard"] == 1.0
    assert report["links"]["unseen_share"] == report["pairs"]["unseen_share"] == 0.0


names = st.sampled_from("abcdef")
items_st = st.lists(
    st.builds(
        lambda calls, links, q: AuditItem(q, tuple(calls), tuple(links)),
        st.lists(names, min_size=1, max_size=6),
        st.lists(st.tuples(names, names), max_size=4),
        st.sampled_from(["", "가나다라", "가나다라마바사", "질문"]),
    ),
    min_size=1,
    max_size=6,
)


@settings(max_examples=100, deadline=None)
@given(items_st, items_st, st.randoms(use_true_random=False))
def test_audit_is_deterministic_and_bounded(train, bench, rnd):
    report = audit(train, bench)
    shuffled = list(train)
    rnd.shuffle(shuffled)
    assert audit(shuffled, bench) == report  # train order does not matter
    assert json.loads(json.dumps(report)) == report  # JSON-ready
    for key in ("links", "pairs"):
        part = report[key]
        assert part["jaccard"] is None or 0.0 <= part["jaccard"] <= 1.0
        assert 0 <= part["unseen_occurrences"] <= part["bench_occurrences"]
    assert 0.0 <= report["tools"]["overlap"] <= 1.0
    assert audit(bench, bench)["pairs"]["unseen_occurrences"] == 0


def test_bad_threshold_and_bad_rows_are_usage_errors():
    with pytest.raises(UsageError, match="threshold"):
        audit([], [], near=0.0)
    with pytest.raises(UsageError, match="SFT row 0"):
        items_from_sft_rows([{"id": "x"}])
    with pytest.raises(UsageError, match="trajectory row 0"):
        items_from_trajectories([{"id": "x", "steps": [{"tool": "a"}]}])


def test_markdown_names_each_measure_and_the_overlaps():
    train = [item("a b c", "a>b", "학교 급식 메뉴는")]
    bench = [item("a b d", "a>b b>d", "학교 급식 메뉴는?")]
    text = markdown(audit(train, bench))
    for needle in (
        "verbatim questions | 1 / 1 (100.0%)",
        "tool-universe overlap | 66.7%",
        "dependency-link Jaccard | 0.500",
        "1 of 2 link occurrences unseen (50.0%)",
        "consecutive-call overlap | 50.0% unseen",
        "`a` → `b`",
        "### Benchmark tools unseen in training (1)",
        "62.2%",
        "95.6%",
    ):
        assert needle in text
    assert markdown(audit(train, bench)) == text


# -- readers ------------------------------------------------------------------------------------
def _call(call_id, name, **args):
    return {
        "id": call_id,
        "type": "function",
        "function": {"name": name, "arguments": json.dumps(args, ensure_ascii=False)},
    }


def _result(call_id, name, *records):
    return {
        "role": "tool",
        "tool_call_id": call_id,
        "name": name,
        "content": json.dumps({"outcome": "ok", "records": list(records)}, ensure_ascii=False),
    }


def test_sft_links_follow_handed_values_only():
    messages = [
        {"role": "system", "content": "sys"},
        {"role": "user", "content": "정류소 19001의 노선 중 배차간격이 가장 짧은 것은?"},
        {"role": "assistant", "content": "", "tool_calls": [_call("c1", "stop", arsId="19001", numOfRows=100)]},
        _result("c1", "stop", {"arsId": "19001", "routeId": "R-7", "rows": 100}),
        {"role": "assistant", "content": "", "tool_calls": [_call("c2", "stop", arsId="19001", pageNo=2)]},
        _result("c2", "stop", {"arsId": "19001", "routeId": "R-8"}),
        # parallel calls of one tool: one run; were handed by `stop`
        {
            "role": "assistant",
            "content": "",
            "tool_calls": [
                _call("c3", "route", routeId="R-7", numOfRows=100),
                _call("c4", "route", routeId="R-8", numOfRows=100),
            ],
        },
        _result("c3", "route", {"routeId": "R-7", "term": "12"}),
        _result("c4", "route", {"routeId": "R-8", "term": "9"}),
        # uses only values the user gave (19001) or defaults (100), which `route` echoes: no link
        {"role": "assistant", "content": "", "tool_calls": [_call("c5", "weather", arsId="19001", numOfRows=100)]},
        _result("c5", "weather", {"sky": "맑음"}),
        {"role": "assistant", "content": "R-8"},
    ]
    [it] = items_from_sft_rows([{"id": "t1", "messages": messages}])
    # the plan: each distinct call once, paging (numOfRows, pageNo) aside, "19001" and 19001 alike
    plan = (
        ("route", (("routeId", "R-7"),)),
        ("route", (("routeId", "R-8"),)),
        ("stop", (("arsId", "19001"),)),
        ("weather", (("arsId", "19001"),)),
    )
    assert it == AuditItem(
        "정류소 19001의 노선 중 배차간격이 가장 짧은 것은?",
        ("stop", "stop", "route", "route", "weather"),
        (("stop", "route"),),
        "t1",
        plan,
    )


def test_trajectory_rows_give_junctions_by_tool_name():
    row = {
        "id": "t9",
        "question": "질문",
        "steps": [{"index": 1, "tool": "b"}, {"index": 0, "tool": "a"}, {"index": 2, "tool": "b"}],
        "junctions": [{"source": 0, "target": 1}, {"source": 0, "target": 2}],
    }
    assert items_from_trajectories([row]) == [
        AuditItem("질문", ("a", "b", "b"), (("a", "b"), ("a", "b")), "t9", (("a", ()), ("b", ())))
    ]


# -- real data: trajectories synthesized on the simulator ------------------------------------------
@pytest.fixture(scope="module")
def synthesized(catalog, hand_link_specs):
    """20 executed trajectories with template questions (≈ 2 s): (trajectories, SFT rows)."""
    from kopa_replay.env import ToolEnvironment
    from kopa_replay.graph import Link
    from kopa_replay.synth import SynthConfig, sft_rows, synthesize_report
    from kopa_replay.synth.questions import TemplateWriter, write_all

    # the shared hand links without NEIS's school hand-offs (they pass on values the question already gives)
    links = [
        Link(source, target, dict(binding), 0.9)
        for source, target, binding in hand_link_specs
        if not source.startswith("neis_")
    ]
    with ToolEnvironment.open(catalog, source="sim") as env:
        result = synthesize_report(catalog, links, env, SynthConfig(trajectories=20, seed=0, distinct_tool_sets=False))
    trajectories = write_all(TemplateWriter(), result.trajectories, catalog)
    return trajectories, sft_rows(trajectories, catalog)


def test_sft_links_agree_with_the_junctions(synthesized):
    trajectories, rows = synthesized
    from_sft = items_from_sft_rows(rows)
    exact = items_from_trajectories([t.to_dict() for t in trajectories])
    assert len(from_sft) == len(exact) == len(trajectories) >= 10
    for a, b in zip(from_sft, exact):
        assert (a.id, a.question) == (b.id, b.question) and a.question
        assert consecutive_pairs(a.calls) == consecutive_pairs(b.calls)
        assert set(a.links) <= set(b.links)  # never a link the trajectory lacks
    assert sum(a.links == b.links for a, b in zip(from_sft, exact)) >= 0.8 * len(exact)


def test_sft_plans_equal_the_trajectories_plans(synthesized):
    trajectories, rows = synthesized
    from_sft = items_from_sft_rows(rows)
    exact = items_from_trajectories([t.to_dict() for t in trajectories])
    assert all(a.plan and a.plan == b.plan for a, b in zip(from_sft, exact))
    report = audit(from_sft, exact)
    assert report["plans"]["shared"] == report["plans"]["bench"] == len(exact)


def test_audit_on_synthesized_data(synthesized):
    trajectories, rows = synthesized
    train, bench = items_from_sft_rows(rows[:12]), items_from_trajectories([t.to_dict() for t in trajectories[12:]])
    report = audit(train, bench)
    assert report == audit(list(reversed(train)), bench)
    assert report["bench"]["items"] == len(trajectories) - 12
    assert report["tools"]["shared"] == len(report["tools"]["shared_tools"]) > 0
    assert report["links"]["bench_occurrences"] == sum(len(t.junctions) for t in trajectories[12:])
    assert "## Contamination audit" in markdown(report)
    whole = audit(items_from_sft_rows(rows), items_from_sft_rows(rows))
    assert whole["verbatim"]["verbatim_ratio"] == 1.0 and whole["pairs"]["unseen_occurrences"] == 0
