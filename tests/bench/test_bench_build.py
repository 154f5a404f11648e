"""Building a task set: ground-truth links, executed walks, selection, the Lightron plan; reruns are identical."""

from __future__ import annotations

import pytest

from kopa_replay.bench.build import (CURATED_LINKS, HELD_OUT_PLATFORMS, LIGHTRON_ID, BuildSpec, benchmark_links,
                                     build_tasks, lightron_plan, split_of, summary)
from kopa_replay.bench.suite import load_task_set, save_task_set
from kopa_replay.env import ToolEnvironment
from kopa_replay.sim.truth import link_executes
from kopa_replay.synth.plan import run_plan

SMALL = BuildSpec(seeds=(0,), per_run=12, sparse_per_run=4,
                  quotas=(("finance", 4), ("traffic", 4), ("district", 3), ("education", 2), ("politics", 2),
                          ("law", 1)))


@pytest.fixture(scope="module")
def sim_env(catalog):
    with ToolEnvironment.open(catalog, source="sim") as env:
        yield env


def test_benchmark_links_are_the_ones_the_world_answers(catalog):
    links = benchmark_links(catalog)
    assert [link.key for link in links] == sorted(link.key for link in links)
    assert all(link_executes(link.source, link.binding, link.target) for link in links)
    keys = {link.key for link in links}
    assert all((source, target) in keys for source, target, _ in CURATED_LINKS)


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
    tasks, plans = build_tasks(catalog, sim_env, SMALL)
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
