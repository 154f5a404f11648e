"""Building a task set: meaningful links, executed walks, selection, the Lightron plan, the checks; reruns are identical."""

from __future__ import annotations

import dataclasses

import pytest

from kopa_replay.bench.build import (
    HELD_OUT_PLATFORMS,
    LIGHTRON_ID,
    BuildSpec,
    benchmark_links,
    build_tasks,
    lightron_plan,
    split_of,
    summary,
    task_problems,
)
from kopa_replay.bench.suite import load_task_set, save_task_set
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


def test_the_lightron_plan_reruns_to_its_answer(catalog, sim_env):
    plan, task = lightron_plan(catalog, sim_env)
    assert task.id == plan.id == LIGHTRON_ID and task.answer.tolerance == 0.01
    assert [j.values for j in plan.junctions] == [("00439743",), ("069540",)]
    again = run_plan(plan, catalog, sim_env)
    assert again.ok and again.state_digest == task.reference_state_digest
    assert again.answer.value == pytest.approx(task.answer.value, abs=0.01)  # pct_change rounds to 2 places


@pytest.mark.slow
def test_a_small_build_is_deterministic_and_every_plan_reruns(catalog, sim_env, tmp_path):
    heard = []
    tasks, plans = build_tasks(catalog, sim_env, SMALL, progress=lambda *args: heard.append(args))
    runs = 2 * len(SMALL.seeds)  # a run per seed and page policy, each reported once
    assert heard == [("synthesis runs", n, runs) for n in range(1, runs + 1)]
    again, plans_again = build_tasks(catalog, sim_env, SMALL)
    assert [t.to_dict() for t in tasks] == [t.to_dict() for t in again]
    assert [p.to_dict() for p in plans] == [p.to_dict() for p in plans_again]
    assert [t.id for t in tasks] == sorted(t.id for t in tasks) == [p.id for p in plans]
    facts = summary(tasks, plans)
    assert facts["tasks"] == sum(q for _, q in SMALL.quotas) + 1 and facts["calls_max"] <= SMALL.max_calls
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


def test_every_shipped_task_passes_every_check(shipped, catalog, intents):
    problems = {task.id: task_problems(task, shipped.plans[task.id], catalog, intents) for task in shipped.tasks}
    assert {task_id: found for task_id, found in problems.items() if found} == {}


@pytest.mark.parametrize(
    "edit, expected",
    [
        (lambda q, t, p: q + " 「서울버스 정류소 경유노선 조회」를 쓰세요.", "names the tool"),
        (lambda q, t, p: q.replace("입니까", "입니까, 호출해서"), "호출"),
        (lambda q, t, p: f"{p.junctions[0].values[0]}: {q}", "a value a call returns"),
    ],
)
def test_a_question_that_scripts_or_leaks_fails_the_checks(shipped, catalog, intents, edit, expected):
    task = _first(shipped, lambda t: t.domain == "traffic" and shipped.plans[t.id].junctions)
    plan = shipped.plans[task.id]
    bad = dataclasses.replace(task, question_ko=edit(task.question_ko, task, plan))
    assert any(expected in problem for problem in task_problems(bad, plan, catalog, intents))


def test_a_code_given_to_the_first_call_fails_the_checks(shipped, catalog, intents):
    task = _first(shipped, lambda t: shipped.plans[t.id].steps[0].tool == "neis_school_info")
    plan = shipped.plans[task.id]
    # the start looks the school up under an education-office code nobody reads off a sign
    steps = [dataclasses.replace(plan.steps[0], args={**plan.steps[0].args, "ATPT_OFCDC_SC_CODE": "B10"})]
    problems = task_problems(task, dataclasses.replace(plan, steps=steps + plan.steps[1:]), catalog, intents)
    assert any("neis_office_code the person would not know" in p for p in problems), problems


def test_a_link_without_a_relation_phrase_fails_the_checks(shipped, catalog, intents):
    task = _first(
        shipped, lambda t: shipped.plans[t.id].junctions and shipped.plans[t.id].steps[0].tool.startswith("seoulbus_")
    )
    plan = shipped.plans[task.id]
    odd = dataclasses.replace(plan.junctions[0], binding={"arsId": "stNm"})
    problems = task_problems(task, dataclasses.replace(plan, junctions=[odd, *plan.junctions[1:]]), catalog, intents)
    assert any("no relation phrase for the link" in p for p in problems), problems


def test_no_shipped_question_gives_a_code(shipped):
    import re

    for task in shipped.tasks:
        # codes are long digit runs or letter-digit ids (corp_code 00439743, stId 118000001, SJB8000016, B10 …);
        # what may appear: dates, amounts, stop numbers (5 digits) printed on signs, route numbers
        assert not re.search(r"(?<![\d,.])\d{7,}(?![\d,.])", task.question_ko.replace("-", "")), task.question_ko
        assert not re.search(r"\b[A-Z]{2,3}\d{3,}\b|\b[A-Z]\d{2}\b", task.question_ko), task.question_ko
