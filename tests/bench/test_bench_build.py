"""Proposing candidate tasks: meaningful links, executed walks, selection, the checks; reruns are identical."""

from __future__ import annotations

import dataclasses

import pytest

from kopa_replay.bench.build import (
    HELD_OUT_PLATFORMS,
    BuildSpec,
    benchmark_links,
    propose_tasks,
    split_of,
    summary,
    task_problems,
)
from kopa_replay.bench.review import objections
from kopa_replay.bench.suite import load_task_set, save_task_set
from kopa_replay.bench.tasks import task_from_trajectory
from kopa_replay.env import ToolEnvironment
from kopa_replay.synth.intents import load_intents
from kopa_replay.synth.plan import run_plan

# 30 walks per run: one plan per task and the per-start caps leave a pool the quotas can fill from
SMALL = BuildSpec(
    seeds=(0,),
    per_run=30,
    quotas=(("finance", 4), ("traffic", 4), ("district", 3), ("education", 2), ("politics", 2), ("law", 1)),
)


@pytest.fixture(scope="module")
def sim_env(catalog):
    with ToolEnvironment.open(catalog, source="sim") as env:
        yield env


@pytest.fixture(scope="module")
def intents(catalog):
    return load_intents(catalog=catalog)


def test_benchmark_links_are_the_meaningful_links_of_the_intent_table(catalog, intents):
    links = benchmark_links(catalog, intents)
    assert [(link.source, link.target, link.binding) for link in links] == [
        (link.source, link.target, dict(link.binding)) for link in intents.links
    ]
    # a date handed from a dividend report to a school lunch executes, but means nothing: it is not there
    assert not any(link.source.startswith("dart_") and link.target.startswith("neis_") for link in links)


def test_split_follows_the_held_out_platforms():
    assert split_of(["dart", "datagokr"]) == "held_out" and split_of(["seoul"]) == "held_out"
    assert split_of(["tago", "neis"]) == "main" and set(HELD_OUT_PLATFORMS) == {"dart", "krx", "seoul"}


@pytest.mark.slow
def test_a_small_build_is_deterministic_and_every_plan_reruns(catalog, sim_env, tmp_path):
    heard = []
    tasks, plans = propose_tasks(catalog, sim_env, SMALL, progress=lambda *args: heard.append(args))
    runs = 2 * len(SMALL.seeds)  # a run per seed and page policy, each reported once
    assert heard == [("synthesis runs", n, runs) for n in range(1, runs + 1)]
    again, plans_again = propose_tasks(catalog, sim_env, SMALL)
    assert [t.to_dict() for t in tasks] == [t.to_dict() for t in again]
    assert [p.to_dict() for p in plans] == [p.to_dict() for p in plans_again]
    assert [t.id for t in tasks] == sorted(t.id for t in tasks) == [p.id for p in plans]
    facts = summary(tasks, plans)
    assert facts["tasks"] == sum(q for _, q in SMALL.quotas) and facts["calls_max"] <= SMALL.max_calls
    for task, plan in zip(tasks, plans):
        rerun = run_plan(plan, catalog, sim_env)
        assert rerun.ok and rerun.state_digest == task.reference_state_digest, task.id
    root = save_task_set(tmp_path / "set", tasks, plans, facts)
    loaded = load_task_set(root)
    assert loaded.tasks == tuple(tasks) and set(loaded.plans) == {t.id for t in tasks}
    first = {name: (root / name).read_bytes() for name in ("tasks.jsonl", "plans.jsonl", "build.json")}
    save_task_set(root, again, plans_again, summary(again, plans_again))
    assert first == {name: (root / name).read_bytes() for name in first}


# -- the checks that fail the build -------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def shipped():
    return load_task_set()


def _first(shipped, predicate):
    return next(task for task in shipped.tasks if predicate(task))


@pytest.mark.parametrize(
    "edit, expected",
    [
        (lambda q, t, p: q + " 「서울버스 정류소 경유노선 조회」를 쓰세요.", "names the tool"),
        (lambda q, t, p: q.replace("입니까", "입니까, 호출해서"), "호출"),
        (lambda q, t, p: f"{p.junctions[0].values[0]}: {q}", "a value a call returns"),
    ],
)
def test_a_question_that_scripts_or_leaks_draws_an_objection(shipped, catalog, edit, expected):
    task = _first(shipped, lambda t: t.domain == "traffic" and shipped.plans[t.id].junctions)
    plan = shipped.plans[task.id]
    bad = dataclasses.replace(task, question_ko=edit(task.question_ko, task, plan))
    assert not objections(task, plan, catalog)
    assert any(expected in problem for problem in objections(bad, plan, catalog))


def test_a_code_given_to_the_first_call_and_a_task_nobody_asks_draw_objections(shipped, catalog):
    task = _first(shipped, lambda t: shipped.plans[t.id].steps[0].tool == "neis_school_info")
    plan = shipped.plans[task.id]
    # the start looks the school up under an education-office code nobody reads off a sign
    steps = [dataclasses.replace(plan.steps[0], args={**plan.steps[0].args, "ATPT_OFCDC_SC_CODE": "B10"})]
    problems = objections(task, dataclasses.replace(plan, steps=steps + plan.steps[1:]), catalog)
    assert any("ATPT_OFCDC_SC_CODE='B10', a neis_office_code the person would not know" in p for p in problems), (
        problems
    )
    assert "no line says who asks and why" in objections(dataclasses.replace(task, who=""), plan, catalog)


def test_a_parallel_call_that_adds_nothing_and_an_odd_cut_draw_objections(shipped, catalog):
    from kopa_replay.synth.model import Reduction

    task = _first(shipped, lambda t: "parallel" in t.tags)
    plan = shipped.plans[task.id]
    group = next(g for g in {s.group for s in plan.steps} if sum(s.group == g for s in plan.steps) > 1)
    twins = [s for s in plan.steps if s.group == group]
    same = [dataclasses.replace(s, digest=twins[0].digest) if s.group == group else s for s in plan.steps]
    assert any("return the same records" in p for p in objections(task, dataclasses.replace(plan, steps=same), catalog))
    odd = dataclasses.replace(plan.junctions[0], reduction=Reduction("threshold", "x", 313_300, 2))
    cut = dataclasses.replace(plan, junctions=[odd, *plan.junctions[1:]])
    assert any("313300 is not a round number" in p for p in objections(task, cut, catalog))


def test_a_proposed_link_without_a_relation_phrase_fails_the_checks(catalog, intents):
    """The generator's own check (a proposal's question is written from the intent table's relation phrases)."""
    from kopa_replay.synth.model import Answer, Junction, Step, Trajectory

    steps = [
        Step(0, "seoulbus_get_station_by_uid", {"arsId": "02021"}, "ok", 3, 3, "", 0),
        Step(1, "seoulbus_get_route_info", {"busRouteId": ""}, "ok", 1, 1, "", 1),
    ]
    odd = Junction(0, 1, {"busRouteId": "stNm"}, "sequential", 3, 1, ("x",))
    plan = Trajectory("p", "chain", steps, [odd], Answer("number", 1), "정류소 번호 02021번 정류소의 노선은?")
    task = task_from_trajectory(plan, catalog)
    problems = task_problems(task, plan, catalog, intents)
    assert any("no relation phrase for the link" in p for p in problems), problems


def test_no_shipped_question_gives_a_code(shipped):
    import re

    for task in shipped.tasks:
        # codes are long digit runs or letter-digit ids (corp_code 00439743, stId 118000001, SJB8000016, B10 …);
        # what may appear: dates, amounts, stop numbers (5 digits) printed on signs, route numbers
        assert not re.search(r"(?<![\d,.])\d{7,}(?![\d,.])", task.question_ko.replace("-", "")), task.question_ko
        assert not re.search(r"\b[A-Z]{2,3}\d{3,}\b|\b[A-Z]\d{2}\b", task.question_ko), task.question_ko
