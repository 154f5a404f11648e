"""The shipped task set and the agents on the shipped snapshot: what the issue asks the benchmark to show."""

from __future__ import annotations

import re
from collections import Counter

import pytest

from kopa_replay.bench.agents import OracleAgent, run_rollouts
from kopa_replay.bench.build import HELD_OUT_PLATFORMS, LIGHTRON_ID, MAX_CALLS, hands_a_code, reads_pages, summary
from kopa_replay.bench.grade import grade
from kopa_replay.bench.model import Rollout
from kopa_replay.bench.report import report_json
from kopa_replay.bench.suite import load_task_set, make_agent, run_benchmark
from kopa_replay.bench.tasks import DATE_SKIPPED, FIRST_PAGE_ONLY, LOOKUP_SKIPPED
from kopa_replay.env import ToolEnvironment
from kopa_replay.errors import UsageError
from kopa_replay.record.store import shipped_store_path

SHIPPED = shipped_store_path()
HANGUL = re.compile("[가-힣]")


@pytest.fixture(scope="module")
def task_set():
    return load_task_set()


@pytest.fixture(scope="module")
def replay_env(catalog):
    with ToolEnvironment.open(catalog, source="replay", snapshot="2026-09-01", store=SHIPPED) as env:
        yield env


@pytest.fixture(scope="module")
def runs(task_set, catalog, replay_env):
    """Each shipped deterministic agent over every task on the shipped snapshot (strict replay, offline)."""
    return {
        name: run_benchmark(task_set.tasks, make_agent(name, task_set), catalog, replay_env, 1)
        for name in ("oracle", "skip-lookup", "first-page")
    }


def test_the_shipped_set_has_the_shape_the_paper_describes(task_set, catalog):
    tasks = task_set.tasks
    facts = summary(tasks, [task_set.plans[t.id] for t in tasks])
    assert facts["tasks"] >= 145
    assert set(facts["by_domain"]) == {"finance", "traffic", "district", "education", "politics", "law"}
    # the paper: five calls on average, the longest fourteen, 59 % with parallel calls
    assert facts["calls_mean"] >= 5.0 and facts["calls_max"] <= MAX_CALLS
    assert facts["calls_at_least_14"] >= 5
    assert facts["parallel"] >= 0.59 * facts["tasks"]
    # the paper's held-out split: at least 10 tasks on Seoul Open Data and 21 on DART / KRX
    assert sum("seoul" in t.platforms for t in tasks) >= 10
    assert sum(bool({"dart", "krx"} & set(t.platforms)) for t in tasks) >= 21
    for task in tasks:
        plan = task_set.plans[task.id]
        assert HANGUL.search(task.question_ko) and HANGUL.search(task.who), task.id
        assert task.answer.kind in ("number", "text", "set", "bool")
        # every task needs an entity-code lookup or a read over several pages, and its required actions say which
        assert hands_a_code(plan) or reads_pages(plan), task.id
        assert not hands_a_code(plan) or any(a.why == LOOKUP_SKIPPED for a in task.required_actions), task.id
        assert not reads_pages(plan) or any(a.why == FIRST_PAGE_ONLY for a in task.required_actions), task.id
        assert task.platforms and task.domain and task.reference_calls and task.reference_state_digest
        touches = set(task.platforms) & set(HELD_OUT_PLATFORMS)
        assert task.split == ("held_out" if touches else "main"), task.id
    assert Counter(t.split for t in tasks).keys() == {"main", "held_out"}
    assert len({t.id for t in tasks}) == len(tasks) == len(task_set.plans)


def test_both_failure_modes_decide_answers_on_the_shipped_snapshot(runs, task_set):
    """Not only the action log: the skip-lookup baseline's answers are wrong almost everywhere, the first-page
    baseline's wherever an answer needs every page — and the build's own count (on the simulator) says the same."""
    wrong = {
        name: {row["id"] for row in runs[name].report["tasks"] if not row["rollouts"][0]["response"]["passed"]}
        for name in ("skip-lookup", "first-page")
    }
    assert len(wrong["skip-lookup"]) >= 60 and len(wrong["first-page"]) >= 30
    assert runs["skip-lookup"].report["pass_at_1"]["response"] <= 0.05
    assert runs["first-page"].report["pass_at_1"]["response"] <= 0.80
    assert task_set.build["answer_broken_by"] == {
        "skip_lookup": len(wrong["skip-lookup"]),
        "first_page": len(wrong["first-page"]),
    }
    # a first page read answers wrong only where some step reads several pages
    paged = {t.id for t in task_set.tasks if any(a.why == FIRST_PAGE_ONLY for a in t.required_actions)}
    assert wrong["first-page"] <= paged


def test_the_lightron_task_is_the_papers(task_set):
    task = next(t for t in task_set.tasks if t.id == LIGHTRON_ID)
    assert [tool for tool, _ in task.reference_calls] == [
        "dart_corp_code",
        "dart_cvbd_is_decsn",
        "datagokr_get_stock_price_info",
    ]
    assert task.answer.value == pytest.approx((1680 - 532) / 532 * 100, abs=0.005)  # 소수점 둘째 자리까지
    assert task.split == "held_out"

    def response(text):
        return grade(task, Rollout(task.id, "t", 0, text)).response

    assert response("215.78%").passed and response("약 215.79 퍼센트 높습니다").passed
    assert not response("215.7%").passed and not response("1680원").passed


def test_oracle_passes_every_task_on_the_shipped_snapshot_offline(runs, no_network):
    run = runs["oracle"]
    assert run.report["pass_at_1"]["combined"] == 1.0
    failed = [(row["id"], row["rollouts"][0]) for row in run.report["tasks"] if row["pass_at_1"]["combined"] != 1.0]
    assert failed == []
    assert no_network == []


def test_the_oracle_passes_environment_by_state_digest_not_by_the_multiset_fallback(task_set, catalog, no_network):
    # A fresh environment (not the module's): replay serves repeated answers in order, so state is per env.
    with ToolEnvironment.open(catalog) as env:  # strict replay of the shipped snapshot
        rollouts = run_rollouts(task_set.tasks, OracleAgent(), catalog, env)
    reasons = {task.id: grade(task, rollout).environment.reason for task, rollout in zip(task_set.tasks, rollouts)}
    assert len(reasons) == len(task_set.tasks)
    assert {tid: why for tid, why in reasons.items() if why != "state digest matches the reference"} == {}
    assert no_network == []


def test_the_law_tasks_calls_give_one_state_digest_on_the_simulator_and_on_replay(task_set, catalog, no_network):
    # law.go.kr echoes the caller's key in its answers: masked in the snapshot, it must be masked on the simulator
    # too, or a task built on the simulator carries a reference digest replay can never match.
    law = [task for task in task_set.tasks if task.domain == "law"]
    assert len(law) >= 5
    build = task_set.build
    with (
        ToolEnvironment.open(
            catalog, source=f"sim:{task_set.world}", seed=build["sim_seed"], as_of=build["as_of"]
        ) as sim,
        ToolEnvironment.open(catalog) as replay,
    ):
        for task in law:
            sim.reset()
            replay.reset()
            for tool, args in task.reference_calls:
                sim.call(tool, dict(args))
                replay.call(tool, dict(args))
            assert sim.state_digest() == replay.state_digest(), task.id
    assert no_network == []


def test_skip_lookup_fails_every_task_that_needs_a_lookup_on_the_action_axis(runs, task_set):
    rows = {row["id"]: row for row in runs["skip-lookup"].report["tasks"]}
    lookups = [t for t in task_set.tasks if task_set.plans[t.id].junctions]
    for task in lookups:
        plan = task_set.plans[task.id]
        why = LOOKUP_SKIPPED if hands_a_code(plan) else DATE_SKIPPED
        assert any(a.why == why for a in task.required_actions), task.id
        action = rows[task.id]["rollouts"][0]["action"]
        assert not action["passed"] and why in action["reason"], (task.id, action)
    assert len(lookups) >= 140
    assert runs["skip-lookup"].report["pass_at_1"]["combined"] <= 1 - len(lookups) / len(task_set.tasks) + 1e-6


def test_first_page_fails_every_paged_task_and_only_those(runs, task_set):
    rows = {row["id"]: row for row in runs["first-page"].report["tasks"]}
    paged = {t.id for t in task_set.tasks if any(a.why == FIRST_PAGE_ONLY for a in t.required_actions)}
    assert len(paged) >= 10
    for task_id, row in rows.items():
        rollout = row["rollouts"][0]
        if task_id in paged:
            assert not rollout["action"]["passed"] and FIRST_PAGE_ONLY in rollout["action"]["reason"], task_id
        else:
            assert rollout["passed"], (task_id, rollout)


def test_two_runs_give_byte_identical_reports(runs, task_set, catalog, replay_env):
    for name in ("oracle", "first-page"):
        again = run_benchmark(task_set.tasks, make_agent(name, task_set), catalog, replay_env, 1)
        assert report_json(again.report) == report_json(runs[name].report)


def test_selection_and_agents_refuse_what_they_cannot_do(task_set, tmp_path):
    with pytest.raises(UsageError, match="no task nope"):
        task_set.select(ids=["nope"])
    with pytest.raises(UsageError, match="matches split"):
        task_set.select(domain="astrology")
    assert {t.split for t in task_set.select(split="held_out").tasks} == {"held_out"}
    with pytest.raises(UsageError, match="unknown agent"):
        make_agent("gpt", task_set)
    with pytest.raises(UsageError, match="--llm-url and --llm-model"):
        make_agent("openai", task_set)
    with pytest.raises(UsageError, match="--model-path"):
        make_agent("transformers", task_set)
    bare = type(task_set)(task_set.tasks, {}, "a set without plans", {})
    with pytest.raises(UsageError, match="plans.jsonl"):
        make_agent("first-page", bare)


def test_a_broken_task_file_is_named_with_its_line(tmp_path):
    (tmp_path / "tasks.jsonl").write_text('{"id": "a"}\nnot json\n', encoding="utf-8")
    with pytest.raises(UsageError, match=r"tasks.jsonl:2: not JSON"):
        load_task_set(tmp_path)
    (tmp_path / "tasks.jsonl").write_text('{"id": "a"}\n', encoding="utf-8")
    with pytest.raises(UsageError, match=r"tasks.jsonl:1: not a valid entry \(KeyError"):
        load_task_set(tmp_path)
    (tmp_path / "tasks.jsonl").write_text("[1]\n", encoding="utf-8")
    with pytest.raises(UsageError, match=r"tasks.jsonl:1: a line must be a JSON object"):
        load_task_set(tmp_path)
    with pytest.raises(UsageError, match="no task set directory"):
        load_task_set(tmp_path / "absent")
