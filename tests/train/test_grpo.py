"""GRPO through trl's real GRPOTrainer: scripted tool calls answered by the pinned snapshot, graded as in bench run.

The tiny random model never writes a tool call, so generation is scripted (as trl's own tool tests do): one
rollout of each group follows the oracle trajectory of a benchmark task, the other the same trajectory without
its code lookup. The reward must be 1 and 0, the tools must run against the replay store, and a second run with
the same seed must give the same rewards, losses and run record.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from kopa_replay.bench.suite import load_task_set
from kopa_replay.synth.export import SYSTEM_PROMPT
from kopa_replay.train.scripted import ScriptedGeneration, call_turn, oracle_scripts

TASK = "kopa-education-school-dinners-1"  # 수서고등학교 dinner days: school lookup (codes) -> meals over pages


def _task():
    return load_task_set().select(ids=[TASK]).tasks[0]


def _scripts(task):
    return oracle_scripts(task)


def _grpo(catalog, tiny_model, out: Path, scripts, *, store=None, **trainer):
    from kopa_replay.train.config import TrainConfig
    from kopa_replay.train.data import task_rows
    from kopa_replay.train.reward import GraderReward
    from kopa_replay.train.run import train_grpo_rows
    from kopa_replay.train.tools import SourceSpec, ToolSets

    task = _task()
    tool_sets = ToolSets(catalog, SourceSpec(store=str(store) if store else None), max_chars=1500)
    rows, _ = task_rows([task], catalog, top_k=4, system=SYSTEM_PROMPT, add_tool_set=tool_sets.add)
    config = TrainConfig(
        kind="grpo",
        model=str(tiny_model),
        data="benchmark task " + TASK,
        output_dir=str(out),
        top_k=4,
        max_chars=1500,
        store=str(store) if store else None,
        trainer={
            "max_steps": 1,
            "per_device_train_batch_size": 2,
            "num_generations": 2,
            "max_completion_length": 4096,
            "max_tool_calling_iterations": 4,
            "save_final": False,
            **trainer,
        },
    )
    reward = GraderReward()
    seen = {}

    def script(trainer):
        seen["generate"] = ScriptedGeneration(trainer.processing_class, scripts)
        trainer.model.generate = seen["generate"]
        seen["trainer"] = trainer

    result = train_grpo_rows(
        config, rows, tool_sets, {"data": {"dir": config.data}}, before_train=script, reward=reward
    )
    return result, reward, seen


def test_oracle_earns_1_and_skipping_the_lookup_earns_0(catalog, tiny_model, tmp_path):
    task = _task()
    result, reward, seen = _grpo(catalog, tiny_model, tmp_path / "run", _scripts(task))
    grades = reward.last_grades
    assert [g.passed for g in grades] == [True, False]
    oracle, skipped = grades
    assert oracle.response.passed and oracle.environment.passed and oracle.action.passed
    # the answer is right, but the environment lacks the lookup call: the paper's binary reward is 0
    assert skipped.response.passed and not skipped.environment.passed and not skipped.action.passed
    assert "neis_school_info" in skipped.environment.reason
    step = result.metrics[0]
    calls = len(task.reference_calls)
    assert step["rewards/grader/mean"] == pytest.approx(0.5)
    assert step["tools/call_frequency"] == pytest.approx(
        (calls + calls - 1) / 2
    )  # the oracle's, then without the lookup
    assert step["tools/failure_frequency"] == 0.0
    assert step["loss"] != 0.0  # rewards 1 and 0 in one group: non-zero advantages
    # the calls were answered by the pinned snapshot: every call of both rollouts found its recording
    environments = seen["trainer"].environments
    logs = [[(entry.tool, entry.outcome) for entry in env._env.log] for env in environments]
    oracle_log = [(tool, "ok") for tool, _ in task.reference_calls]
    assert oracle_log[0] == ("neis_school_info", "ok") and calls >= 2
    assert logs == [oracle_log, oracle_log[1:]]
    assert result.run["snapshot"]["name"] == "2026-09-01" and len(result.run["snapshot"]["digest"]) == 64


def test_two_runs_with_one_seed_give_identical_rewards_losses_and_records(catalog, tiny_model, tmp_path):
    task = _task()
    first, reward_a, _ = _grpo(catalog, tiny_model, tmp_path / "a", _scripts(task))
    second, reward_b, _ = _grpo(catalog, tiny_model, tmp_path / "b", _scripts(task))
    assert [reward_a.value(g) for g in reward_a.last_grades] == [reward_b.value(g) for g in reward_b.last_grades]
    assert first.metrics == second.metrics
    assert (tmp_path / "a" / "run.json").read_bytes() == (tmp_path / "b" / "run.json").read_bytes()
    assert first.metrics[0]["loss"] == second.metrics[0]["loss"]


def _tree_digest(path: Path) -> dict[str, str]:
    return {
        p.name: hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(path.parent.iterdir())
        if p.name.startswith(path.name)
    }


def test_rollout_tools_never_touch_the_network_nor_write_the_snapshot(
    catalog, tiny_model, tmp_path, store_copy, no_network
):
    task = _task()
    oracle, _ = _scripts(task)
    # a call the snapshot never recorded (another school) must read as "no data", not reach out or be recorded
    unrecorded = [call_turn(("neis_school_info", {"LCTN_SC_NM": "서울특별시", "SCHUL_NM": "없는학교"})), "모릅니다"]
    before = _tree_digest(store_copy)
    result, reward, seen = _grpo(catalog, tiny_model, tmp_path / "run", [oracle, unrecorded], store=store_copy)
    assert no_network == []  # not one connection was attempted
    assert _tree_digest(store_copy) == before  # same bytes, no journal or WAL left beside it
    # the oracle's calls were answered; the unrecorded one was a miss: answered "no data", logged nowhere
    assert [e.outcome for e in seen["trainer"].environments[0]._env.log] == ["ok"] * len(task.reference_calls)
    assert seen["trainer"].environments[1]._env.log == ()
    assert [g.passed for g in reward.last_grades] == [True, False]


def test_an_unrecorded_call_reads_as_missing_data(catalog):
    from kopa_replay.train.tools import SourceSpec, ToolSets

    tool_sets = ToolSets(catalog, SourceSpec())
    environment = tool_sets.environment(["neis_school_info", "neis_meal_service_diet_info"])
    environment.reset(task="{}")
    reply = json.loads(environment.neis_school_info(LCTN_SC_NM="서울특별시", SCHUL_NM="없는학교"))
    assert "no data" in reply["error"] and "2026-09-01" in reply["error"]
    # the school lookup of the task the GRPO tests train on: recorded in the shipped snapshot
    reply = json.loads(environment.neis_school_info(LCTN_SC_NM="서울특별시", SCHUL_NM="수서고등학교"))
    assert reply["outcome"] == "ok" and reply["records"][0]["SCHUL_NM"] == "수서고등학교"
    environment.reset(task="{}")
    assert environment._env.log == ()
    tool_sets.close()


def test_source_sim_answers_what_the_snapshot_lacks_and_records_nothing(catalog, store_copy, no_network):
    from kopa_replay.train.tools import SourceSpec, ToolSets

    before = _tree_digest(store_copy)
    tool_sets = ToolSets(catalog, SourceSpec(source="sim", store=str(store_copy)))
    environment = tool_sets.environment(["neis_school_info"])
    environment.reset()
    recorded = json.loads(environment.neis_school_info(LCTN_SC_NM="서울특별시", SCHUL_NM="답십리중학교", pSize=1000))
    other = json.loads(environment.neis_school_info(LCTN_SC_NM="서울특별시", SCHUL_NM="서울서부초등학교"))
    assert recorded["outcome"] == "ok" and other["outcome"] == "ok"  # the second was never recorded: the sim answered
    assert other["records"][0]["SCHUL_NM"] == "서울서부초등학교"
    assert [e.outcome for e in environment._env.log] == ["ok", "ok"]
    tool_sets.close()
    strict = ToolSets(catalog, SourceSpec(store=str(store_copy)))
    replay_only = strict.environment(["neis_school_info"])
    replay_only.reset()
    assert (
        "no data"
        in json.loads(replay_only.neis_school_info(LCTN_SC_NM="서울특별시", SCHUL_NM="서울서부초등학교"))["error"]
    )
    strict.close()
    assert _tree_digest(store_copy) == before and no_network == []
