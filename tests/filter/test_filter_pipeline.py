"""run_filter end to end over hand-made items and a fake planner; the agreement rule; stage 3."""

from __future__ import annotations

import dataclasses

import pytest
from filter_fixtures import FakePlanner, company_items, moves_with, trajectory

from kopa_replay.errors import UsageError
from kopa_replay.filter import JUDGE_CHECKS, Discard, FilterConfig, RegexJudge, TokenJudge, Verdict, run_filter
from kopa_replay.synth.model import Answer, Step


class Always:
    """A judge with one opinion on everything."""

    def __init__(self, name: str, discard: bool) -> None:
        self.name, self.discard = name, discard

    def judge(self, check, case):
        return Verdict(self.discard, f"{self.name} always says {'discard' if self.discard else 'keep'}")


def test_clean_items_pass_every_stage(catalog):
    planner = FakePlanner(answer=moves_with({}), candidates={0: ("00999999",)})
    result = run_filter(company_items(), catalog, None, planner=planner)
    assert [t.id for t in result.kept] == ["t0000", "t0001", "t0002"]
    assert result.discarded == [] and result.replaced == []
    stages = result.report["stages"]
    assert stages["rules"]["discarded"] == {"malformed": 0, "not_reproducible": 0, "near_duplicate": 0}
    assert stages["judges"]["discarded"] == dict.fromkeys(JUDGE_CHECKS, 0)
    assert stages["resolve"]["agrees"] == 3
    assert result.report["input"] == 3 and result.report["kept"] == 3
    assert result.report["judges"] == ["regex", "ngram"]


def test_one_judge_saying_discard_is_not_enough(catalog):
    planner = FakePlanner(answer=moves_with({}))
    result = run_filter(company_items(), catalog, None, [Always("strict", True), RegexJudge()], planner=planner)
    assert len(result.kept) == 3
    assert result.report["stages"]["judges"]["disagreements"] == dict.fromkeys(JUDGE_CHECKS, 3)


def test_two_judges_agreeing_discard_and_both_are_quoted(catalog):
    planner = FakePlanner(answer=moves_with({}))
    result = run_filter(company_items()[:1], catalog, None, [Always("a", True), Always("b", True)], planner=planner)
    (discard,) = result.discarded
    assert discard == Discard("t0000", "judges", "wrong_script", "a: a always says discard; b: b always says discard")
    _, stage, check, _ = discard  # a plain tuple too
    assert (stage, check) == ("judges", "wrong_script")


@pytest.mark.parametrize(
    "judges, words",
    [
        ([RegexJudge()], "at least two independent judges"),
        ([RegexJudge(), RegexJudge()], "judge names must differ"),
        ([RegexJudge(), object()], "needs a non-empty 'name'"),
    ],
)
def test_the_judge_panel_is_checked(catalog, judges, words):
    with pytest.raises(UsageError, match=words):
        run_filter(company_items(), catalog, None, judges, planner=FakePlanner())


def test_ids_must_be_unique(catalog):
    with pytest.raises(UsageError, match="repeated: t0000"):
        run_filter([trajectory("t0000"), trajectory("t0000")], catalog, None, planner=FakePlanner())


def test_config_is_checked():
    with pytest.raises(UsageError, match="duplicate_threshold"):
        FilterConfig(duplicate_threshold=1.5)
    with pytest.raises(UsageError, match="ngram"):
        FilterConfig(ngram=0)


def test_every_stage_leaves_a_reason(catalog):
    items = company_items()
    items.append(dataclasses.replace(trajectory("t0003"), question=""))  # malformed
    items.append(trajectory("t0004", start_args={"corp_name": "네이버"}))  # not reproducible
    items.append(dataclasses.replace(items[0], id="t0005"))  # duplicate of t0000
    items.append(trajectory("t0006", start_args={"corp_name": "엘지"}, question="엘지の 전환사채는 몇 %입니까?"))
    items.append(
        trajectory(
            "t0007", start_args={"corp_name": "현대"}, question="현대 고유번호 00126380의 전환사채는 몇 %입니까?"
        )
    )  # disclosed
    items.append(
        trajectory(
            "t0008",
            start_args={"corp_name": "기아"},
            answer=Answer("text", "사유 " * 40),
            question="기아의 전환사채 공시에 적힌 사유를 모두 쓰면 무엇입니까?",
        )
    )  # ungradable
    items.append(
        trajectory(
            "t0009", start_args={"corp_name": "한화"}, question="한화의 전환사채 발행결정을 보면 종가는 몇 %입니까?"
        )
    )  # unconstrained

    def answer(t, perturb, complete):
        if t.id == "t0004":
            return dataclasses.replace(t.answer, value=1.0)
        if perturb is not None and t.id != "t0009":
            return dataclasses.replace(t.answer, value=t.answer.value + 1)
        return t.answer

    planner = FakePlanner(answer=answer, candidates={0: ("00111111", "00222222")})
    result = run_filter(items, catalog, None, planner=planner)
    reasons = {d.trajectory_id: (d.stage, d.check) for d in result.discarded}
    assert reasons == {
        "t0003": ("rules", "malformed"),
        "t0004": ("rules", "not_reproducible"),
        "t0005": ("rules", "near_duplicate"),
        "t0006": ("judges", "wrong_script"),
        "t0007": ("judges", "disclosed"),
        "t0008": ("judges", "ungradable"),
        "t0009": ("judges", "unconstrained"),
    }
    assert [t.id for t in result.kept] == ["t0000", "t0001", "t0002"]
    assert result.report["discarded"] == 7
    assert sum(result.report["stages"]["rules"]["discarded"].values()) == 3


# -- stage 3 -----------------------------------------------------------------------------
def _partly_read(item):
    """The stored run read 100 of 250 records at step 1 (its page budget ran out)."""
    step = dataclasses.replace(item.steps[1], records=100, total_count=250)
    return dataclasses.replace(item, steps=[item.steps[0], step])


def test_a_complete_resolution_replaces_a_partly_read_answer(catalog):
    item = _partly_read(trajectory())
    planner = FakePlanner(answer=lambda t, p, c: dataclasses.replace(t.answer, value=230.5) if c else t.answer)
    result = run_filter([item], catalog, None, planner=planner)
    (kept,) = result.kept
    assert kept.answer.value == 230.5 and item.answer.value == 215.78  # the input is not modified
    (replacement,) = result.replaced
    assert replacement.old.value == 215.78 and replacement.new.value == 230.5
    assert "read every page" in replacement.reason and "[1]" in replacement.reason
    assert kept.meta["answer_replaced"]["old"]["value"] == 215.78
    assert result.report["stages"]["resolve"]["replaced"] == 1 and result.report["replaced"] == 1
    assert ("run_plan", item.id, None, True) in planner.calls


def test_a_differing_resolution_of_a_complete_answer_is_not_better(catalog):
    planner = FakePlanner(answer=lambda t, p, c: dataclasses.replace(t.answer, value=230.5) if c else t.answer)
    result = run_filter([trajectory()], catalog, None, planner=planner)
    assert result.replaced == [] and result.kept[0].answer.value == 215.78
    assert result.report["stages"]["resolve"]["differs_kept"] == 1


def test_a_failed_resolution_keeps_the_stored_answer(catalog):
    planner = FakePlanner(answer=lambda t, p, c: None if c else t.answer)
    result = run_filter([_partly_read(trajectory())], catalog, None, planner=planner)
    assert result.kept[0].answer.value == 215.78
    assert result.report["stages"]["resolve"]["failed"] == 1


def test_stages_can_be_switched_off(catalog):
    planner = FakePlanner(answer=lambda t, p, c: None)  # every re-run would fail
    config = FilterConfig(reproduce=False, resolve=False)
    result = run_filter(company_items(), catalog, None, planner=planner, config=config)
    assert len(result.kept) == 3 and result.report["stages"]["resolve"]["skipped"] == 3
    assert not any(call[0] == "run_plan" and call[2] is None for call in planner.calls)


def test_meta_complete_false_marks_a_partly_read_run():
    from kopa_replay.filter.resolve import stored_incomplete

    item = trajectory(meta={"complete": False})
    assert stored_incomplete(item) == [0, 1]
    item = dataclasses.replace(trajectory(), steps=[Step(0, "dart_corp_code", {}, "ok", 5, 9, "d", 0)])
    assert stored_incomplete(item) == [0]
    assert stored_incomplete(trajectory()) == []


def test_the_token_judge_alone_names_its_checks():
    judge = TokenJudge()
    with pytest.raises(KeyError):
        judge.judge("astrology", None)


# -- with the real planner ---------------------------------------------------------------
@pytest.fixture(scope="module")
def small_corpus(catalog, verified_links):
    from kopa_replay.env import ToolEnvironment
    from kopa_replay.synth import SynthConfig, synthesize
    from kopa_replay.synth.questions import TemplateWriter

    with ToolEnvironment.open(catalog, source="sim") as env:
        return synthesize(catalog, verified_links, env, SynthConfig(trajectories=10, seed=3), TemplateWriter())


def test_real_trajectories_reproduce_and_tampered_ones_do_not(catalog, small_corpus):
    from kopa_replay.env import ToolEnvironment

    items = list(small_corpus)
    items[0] = dataclasses.replace(items[0], state_digest="0" * 64)
    answer = items[1].answer
    other = {"number": lambda v: v + 1, "text": lambda v: v + "?", "bool": lambda v: not v}[answer.kind](answer.value)
    items[1] = dataclasses.replace(items[1], answer=dataclasses.replace(answer, value=other))
    items[2] = dataclasses.replace(items[2], question=items[2].question.replace("결과", "結果", 1))
    with ToolEnvironment.open(catalog, source="sim") as env:
        result = run_filter(items, catalog, env)
    reasons = result.reasons()
    assert reasons[items[0].id].check == "not_reproducible" and "state digest" in reasons[items[0].id].detail
    assert reasons[items[1].id].check == "not_reproducible" and "re-run answers" in reasons[items[1].id].detail
    assert reasons[items[2].id].check == "wrong_script"
    # the rest pass stage 1: every synthesized plan re-runs to its state digest and answer
    assert result.report["stages"]["rules"]["out"] == len(items) - 2
    assert result.report["stages"]["judges"]["discarded"]["disclosed"] == 0
    assert result.report["stages"]["resolve"]["failed"] == 0


# -- a re-solver (the paper's: a model solving each item again) judged by execution -----------------------
def test_a_solvers_solution_is_judged_by_a_complete_re_run():
    from filter_fixtures import FakeRun

    from kopa_replay.filter.resolve import judge_solution

    item = trajectory()  # stored answer 215.78 %
    stored, better = item.answer, Answer("number", 190.0, 0.01, item.answer.derivation, "%")

    def says(value):
        return lambda answer: answer.value == value

    complete = FakeRun(better, "s")
    assert judge_solution(item, says(215.78), complete, "m").outcome == "agrees"
    replaced = judge_solution(item, says(190.0), complete, "m")
    assert (
        replaced.outcome == "replaced" and replaced.answer == better and "as a complete re-run does" in replaced.reason
    )
    # the solver's answer is neither the stored one nor what execution computes: the stored answer stays
    assert judge_solution(item, says(7.0), complete, "m").outcome == "differs_kept"
    # the complete re-run agrees with the stored answer: a solver's other answer is its own slip
    assert judge_solution(item, says(190.0), FakeRun(stored, "s"), "m").outcome == "differs_kept"
    # no solution: execution alone decides (here: the stored run read everything, so it stays)
    nothing = judge_solution(item, None, complete, "m")
    assert nothing.outcome == "differs_kept" and "m reached no answer" in nothing.reason
    assert judge_solution(item, None, FakeRun(None, "s", ok=False), "m").outcome == "failed"
    # a stored run that left pages unread loses to a complete re-run whatever the solver says
    partial = dataclasses.replace(item, meta={**item.meta, "complete": False})
    for solution in (says(215.78), None):
        assert judge_solution(partial, solution, complete, "m").outcome == "replaced"


def test_run_filter_asks_the_solver_once_per_kept_item(catalog):
    calls = []

    class Solver:
        name = "re-solver scripted"

        def solve(self, trajectory):
            calls.append(trajectory.id)
            return lambda answer: answer.value == trajectory.answer.value

    items = [trajectory(f"t{k}") for k in range(3)]
    result = run_filter(
        items, catalog, None, config=FilterConfig(reproduce=False), planner=FakePlanner(), solver=Solver()
    )
    assert sorted(calls) == [t.id for t in result.kept] and result.report["solver"] == "re-solver scripted"
    assert result.report["stages"]["resolve"]["agrees"] == len(result.kept)
