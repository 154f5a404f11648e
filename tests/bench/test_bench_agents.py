"""Tasks from synthesized trajectories, and the oracle and the two failure-mode baselines graded on them."""

from __future__ import annotations

import pytest

from kopa_replay.bench.agents import (
    FirstPageAgent,
    OracleAgent,
    SkipLookupAgent,
    run_rollouts,
)
from kopa_replay.bench.grade import grade
from kopa_replay.bench.model import RequiredAction, Rollout, Task
from kopa_replay.bench.tasks import (
    FIRST_PAGE_ONLY,
    LOOKUP_SKIPPED,
    task_from_trajectory,
)
from kopa_replay.env import ToolEnvironment
from kopa_replay.errors import UsageError
from kopa_replay.graph import Link
from kopa_replay.synth import SynthConfig, synthesize
from kopa_replay.synth.answer import answer_for, evaluate
from kopa_replay.synth.model import Trajectory
from kopa_replay.synth.pager import read_pages
from kopa_replay.synth.plan import branches_of, make_step
from kopa_replay.synth.questions import TemplateWriter


def _paged_trajectory(catalog, env) -> Trajectory:
    """One real step read over 20 pages (Sejong's 200 stops, 10 a page): how many stops are there?

    The hand links' walks read everything in one page, so this is where the last-page rule is exercised.
    """
    env.reset()
    read = read_pages(env, catalog.get("tago_get_sttn_no_list"), {"cityCode": "12"}, 30)
    spec = {"op": "count", "group": 0}
    calls = [
        {"step": 0, "group": 0, "tool": page.tool, "args": dict(sorted(page.args.items())), "outcome": page.outcome}
        for page in read.pages
    ]
    answer = answer_for(spec, evaluate(spec, branches_of([[read]], [[None]])), "")
    return Trajectory(
        "paged",
        "chain",
        [make_step(0, 0, read)],
        [],
        answer,
        "세종시의 버스 정류소는 모두 몇 개인가?",
        (),
        env.state_digest(),
        {"page_budget": 30, "fan_out_budget": 5, "answer_spec": spec, "calls": calls},
    )


@pytest.fixture(scope="module")
def bench(catalog, hand_link_specs):
    """12 synthesized trajectories plus the paged one, their tasks, and a simulator environment (≈ 1 s)."""
    links = [Link(source, target, dict(binding), 0.9) for source, target, binding in hand_link_specs]
    with ToolEnvironment.open(catalog, source="sim") as env:
        trajectories = synthesize(
            catalog, links, env, SynthConfig(trajectories=12, seed=0, distinct_tool_sets=False), TemplateWriter()
        )
        trajectories.append(_paged_trajectory(catalog, env))
        tasks = [task_from_trajectory(t, catalog) for t in trajectories]
        yield tasks, {t.id: t for t in trajectories}, env


def _grades(bench, agent, catalog):
    tasks, _, env = bench
    return {task.id: grade(task, rollout) for task, rollout in zip(tasks, run_rollouts(tasks, agent, catalog, env))}


def test_tasks_carry_the_trajectory(bench, catalog):
    tasks, plans, _ = bench
    assert len(tasks) == 13
    for task in tasks:
        plan = plans[task.id]
        assert task.question_ko == plan.question and task.answer == plan.answer
        assert task.reference_state_digest == plan.state_digest
        assert task.domain == catalog.get(plan.steps[0].tool).domain
        assert set(task.platforms) == {catalog.get(s.tool).platform for s in plan.steps}
        assert Task.from_dict(task.to_dict()) == task
        lookups = [a for a in task.required_actions if a.why == LOOKUP_SKIPPED]
        assert {a.tool for a in lookups} == {plan.steps[j.source].tool for j in plan.junctions}
    paged = next(task for task in tasks if task.id == "paged")
    assert len(paged.reference_calls) == 20
    last = paged.reference_calls[-1][1]
    (action,) = paged.required_actions
    # a read through the first record of the last page, over the arguments without the paging ones
    assert (action.tool, dict(action.args_subset), action.why) == (
        "tago_get_sttn_no_list",
        {"cityCode": "12"},
        FIRST_PAGE_ONLY,
    )
    assert action.through == (last["pageNo"] - 1) * last["numOfRows"] + 1
    assert RequiredAction.from_dict(action.to_dict()) == action


def test_a_task_needs_a_question(bench, catalog):
    _, plans, _ = bench
    plan = plans["paged"]
    blank = Trajectory(plan.id, plan.pattern, plan.steps, plan.junctions, plan.answer, "", (), "", plan.meta)
    with pytest.raises(UsageError, match="no question"):
        task_from_trajectory(blank, catalog)


def test_oracle_passes_every_axis_and_repeats(bench, catalog):
    tasks, _, env = bench
    grades = _grades(bench, OracleAgent(), catalog)
    failed = {task_id: g.to_dict() for task_id, g in grades.items() if not g.passed}
    assert not failed
    assert all(g.environment.reason == "state digest matches the reference" for g in grades.values())
    first = run_rollouts(tasks, OracleAgent(), catalog, env, k=2)
    assert first == run_rollouts(tasks, OracleAgent(), catalog, env, k=2)
    assert [(r.task_id, r.index) for r in first[:2]] == [(tasks[0].id, 0), (tasks[0].id, 1)]


def test_skip_lookup_fails_action_where_a_lookup_is_needed(bench, catalog):
    tasks, plans, _ = bench
    grades = _grades(bench, SkipLookupAgent(plans), catalog)
    with_lookup = [task for task in tasks if plans[task.id].junctions]
    assert len(with_lookup) == 12
    for task in with_lookup:
        action = grades[task.id].action
        assert not action.passed and f": {LOOKUP_SKIPPED}" in action.reason, action.reason
        assert not grades[task.id].passed
    assert grades["paged"].passed  # nothing to look up: it reads the stops like the oracle


def test_first_page_fails_every_task_read_over_pages(bench, catalog):
    tasks, plans, _ = bench
    grades = _grades(bench, FirstPageAgent(plans), catalog)
    paged = [task for task in tasks if len(task.reference_calls) > len(plans[task.id].steps)]
    assert [task.id for task in paged] == ["paged"]
    for task in paged:
        g = grades[task.id]
        assert not g.passed and not g.action.passed and FIRST_PAGE_ONLY in g.action.reason
        assert not g.environment.passed and "19 reference calls missing" in g.environment.reason
    # read in single pages, the rest are solved as the oracle solves them
    assert all(grades[task.id].passed for task in tasks if task not in paged)


def test_a_read_is_met_by_any_page_size_that_covers_it(bench, catalog):
    tasks, _, env = bench
    paged = next(task for task in tasks if task.id == "paged")
    env.reset()
    env.call("tago_get_sttn_no_list", {"cityCode": "12", "numOfRows": 1000})  # everything in one big page
    big = grade(paged, Rollout.from_environment(paged.id, "big-pages", 0, None, env))
    assert big.action.passed, big.action.reason
    env.reset()
    for page in (1, 2, 3):  # 50 a page, but only three of the four
        env.call("tago_get_sttn_no_list", {"cityCode": "12", "numOfRows": 50, "pageNo": page})
    short = grade(paged, Rollout.from_environment(paged.id, "two-pages", 0, None, env))
    assert not short.action.passed
    assert short.action.reason.startswith("record 151 of tago_get_sttn_no_list(cityCode=12) was never read")
    assert FIRST_PAGE_ONLY in short.action.reason and "records 1–150 were" in short.action.reason


def test_run_rollouts_checks_k_and_plans(bench, catalog):
    tasks, _, env = bench
    with pytest.raises(UsageError, match="k must be at least 1"):
        run_rollouts(tasks, OracleAgent(), catalog, env, k=0)
    with pytest.raises(UsageError, match="no reference plan"):
        FirstPageAgent({}).solve(tasks[0], catalog, env)
