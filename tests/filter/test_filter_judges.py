"""The two offline judges on hand-made cases, check by check."""

from __future__ import annotations

import dataclasses

import pytest
from filter_fixtures import trajectory

from kopa_replay.filter.judges import RegexJudge, TokenJudge
from kopa_replay.filter.model import Case
from kopa_replay.filter.perturb import answers_equal, answers_same_text, probe_windows
from kopa_replay.synth.model import Answer

REGEX, TOKEN = RegexJudge(), TokenJudge()
BOTH = (REGEX, TOKEN)


def verdicts(check: str, case: Case) -> list[bool]:
    return [judge.judge(check, case).discard for judge in BOTH]


def with_answer(kind: str, value, **kw) -> Case:
    item = trajectory(answer=Answer(kind, value, **kw))
    return Case(item)


# -- wrong script -------------------------------------------------------------------
@pytest.mark.parametrize(
    "question",
    [
        "라이트론의 結果는 몇 건입니까?",  # Han
        "라이트론のデータ는 몇 건입니까?",  # hiragana + katakana
        "라이트론 ｶ는 몇 건입니까?",  # half-width katakana
        "How many records are there?",  # no Hangul at all
    ],
)
def test_both_judges_flag_a_question_in_the_wrong_script(question):
    assert verdicts("wrong_script", Case(trajectory(question=question))) == [True, True]


def test_a_korean_question_with_latin_and_digits_is_fine():
    question = "노선ID SJB30300001의 「TAGO 노선정보」에서 2026년 8월 31일 기준 몇 km입니까?"
    assert verdicts("wrong_script", Case(trajectory(question=question))) == [False, False]


# -- ungradable ---------------------------------------------------------------------
@pytest.mark.parametrize(
    "kind, value",
    [
        ("number", float("nan")),
        ("number", float("inf")),
        ("number", "많음"),
        ("number", True),
        ("text", ""),
        ("text", "가" * 80 + " " + "나 " * 12),
        ("set", []),
        ("set", "서대문구"),
        ("bool", "아마도"),
        ("essay", "무엇이든"),
    ],
)
def test_both_judges_flag_answers_that_cannot_be_graded(kind, value):
    assert verdicts("ungradable", with_answer(kind, value)) == [True, True]


@pytest.mark.parametrize(
    "kind, value",
    [
        ("number", 215.78),
        ("number", 20),
        ("text", "서대문구"),
        ("text", "도로교통법 일부개정법률안"),
        ("set", ["강동구", "관악구"]),
        ("bool", False),
    ],
)
def test_gradable_answers_pass_both(kind, value):
    assert verdicts("ungradable", with_answer(kind, value)) == [False, False]


def test_the_judges_differ_on_a_borderline_answer():
    # eleven one-syllable words: short in characters (the regex judge keeps it), long in tokens (not the other)
    value = " ".join("가나다라마바사아자차카")
    assert verdicts("ungradable", with_answer("text", value)) == [False, True]


# -- disclosed ----------------------------------------------------------------------
def test_a_handed_code_in_the_question_is_disclosed():
    item = trajectory(question="고유번호 00126380인 회사의 전환사채권 발행결정에서 몇 %입니까?")
    assert verdicts("disclosed", Case(item)) == [True, True]
    assert "00126380" in REGEX.judge("disclosed", Case(item)).detail


def test_the_answer_in_the_question_is_disclosed():
    item = trajectory(question="라이트론의 종가는 전환가액보다 215.78% 높은데, 몇 %입니까?")
    assert verdicts("disclosed", Case(item)) == [True, True]


def test_the_disclosure_reason_is_the_same_in_every_process():
    """A value that reads both as a number and as a code (36) is named by one form, whatever the process's string
    hashing (sets of forms iterate in a different order under each PYTHONHASHSEED)."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    script = (
        "import sys; sys.path.insert(0, sys.argv[1])\n"
        "from filter_fixtures import trajectory\n"
        "from kopa_replay.filter.judges import TokenJudge\n"
        "from kopa_replay.filter.model import Case\n"
        "from kopa_replay.synth.model import Answer\n"
        "item = trajectory(question='라이트론의 공시 36건 가운데 몇 건입니까?', answer=Answer('number', 36))\n"
        "print(TokenJudge().judge('disclosed', Case(item)).detail)\n"
    )
    here = str(Path(__file__).parent)
    reasons = {
        subprocess.run(
            [sys.executable, "-c", script, here],
            env={**os.environ, "PYTHONHASHSEED": str(seed)},
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        for seed in range(8)
    }
    assert len(reasons) == 1 and "36" in reasons.pop()


def test_a_set_members_are_each_secret_and_a_yes_no_never_is():
    item = trajectory(question="서대문구 말고 어느 구입니까?", answer=Answer("set", ["서대문구", "관악구"]))
    assert verdicts("disclosed", Case(item)) == [True, True]
    item = trajectory(question="라이트론은 참(True)입니까?", answer=Answer("bool", True))
    assert verdicts("disclosed", Case(item)) == [False, False]


def test_a_value_the_user_gave_is_not_a_secret():
    # the handed code is also a start argument: the user typed it, so stating it leaks nothing
    item = trajectory(
        start_args={"corp_name": "라이트론", "corp_code": "00126380"},
        question="고유번호 00126380인 라이트론의 전환사채권 발행결정에서 몇 %입니까?",
    )
    assert verdicts("disclosed", Case(item)) == [False, False]


def test_a_clean_question_discloses_nothing():
    assert verdicts("disclosed", Case(trajectory())) == [False, False]


# -- unconstrained ------------------------------------------------------------------
def probe_case(answers: dict, candidates: tuple, stored: Answer | None = None) -> tuple[Case, list]:
    """A case whose probe answers from ``answers`` (values tuple → answer value; missing → a failed run)."""
    asked: list = []
    item = trajectory(answer=stored or Answer("number", 3))

    def perturbed(junction, values):
        asked.append(values)
        return None if values not in answers else Answer("number", answers[values])

    return Case(item, None, lambda j: candidates, perturbed), asked


def test_an_answer_that_never_moves_is_unconstrained():
    case, asked = probe_case({("a",): 3, ("b",): 3, ("y",): 3, ("z",): 3}, ("a", "b", "y", "z"))
    assert verdicts("unconstrained", case) == [True, True]
    # the regex judge tries the first candidates, the token judge the last: independent evidence
    assert asked == [("a",), ("b",), ("z",), ("y",)]


def test_an_answer_that_moves_is_constrained():
    case, _ = probe_case({("a",): 4, ("b",): 3, ("y",): 5, ("z",): 3}, ("a", "b", "y", "z"))
    assert verdicts("unconstrained", case) == [False, False]


def test_a_run_that_breaks_under_other_values_is_no_evidence():
    case, asked = probe_case({}, ("a", "b"))
    assert verdicts("unconstrained", case) == [False, False]
    assert sorted(set(asked)) == [("a",), ("b",)]


def test_judges_look_past_broken_runs_for_evidence():
    # the first values break the plan; the next ones run and leave the answer where it was
    case, asked = probe_case({("c",): 3, ("d",): 3}, ("a", "b", "c", "d"))
    assert verdicts("unconstrained", case) == [True, True]
    assert asked[:4] == [("a",), ("b",), ("c",), ("d",)]


def test_judges_look_past_a_run_of_broken_values_at_their_end_of_the_list():
    # the last four values break the plan (nothing running now on those routes); the token judge, which probes
    # from the end, must still reach values that run, as the regex judge does from the start
    answers = {(v,): 3 for v in "abcd"}
    case, asked = probe_case(answers, tuple("abcdwxyz"))
    assert verdicts("unconstrained", case) == [True, True]
    assert ("d",) in asked


def test_no_candidates_means_untestable_not_guilty():
    case, asked = probe_case({}, ())
    assert verdicts("unconstrained", case) == [False, False]
    assert asked == []
    assert verdicts("unconstrained", Case(trajectory())) == [False, False]  # no probe at all


def test_the_judges_can_disagree_on_unconstrained():
    case, _ = probe_case({("a",): 3, ("b",): 3, ("y",): 9, ("z",): 9}, ("a", "b", "y", "z"))
    assert verdicts("unconstrained", case) == [True, False]


def test_probe_windows_keep_the_width_of_a_fan_out():
    assert probe_windows(("a", "b"), ("a", "c", "d", "e", "f"), 2, from_end=False) == [("c", "d"), ("e", "f")]
    assert probe_windows(("a", "b"), ("c", "d", "e"), 2, from_end=True) == [("e", "d"), ("c",)]


def test_two_ways_to_compare_answers():
    a = Answer("number", 215.78, 0.01)
    assert answers_equal(a, dataclasses.replace(a, value=215.785))
    assert not answers_same_text(a, dataclasses.replace(a, value=215.785))  # 6 significant digits differ
    text = Answer("text", "서대문 구")
    assert answers_equal(text, Answer("text", "서대문구"))
    assert not answers_equal(text, None) and not answers_same_text(text, None)
