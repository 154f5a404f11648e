"""The rollout environment's cost inside GRPO: its share of a step's wall time, and the trl tool path's overhead.

Two measurements, both on CPU with the tiny offline model (built into a
temporary directory) and the shipped snapshot (strict replay):

* **share of a GRPO step** — ``--steps`` steps of trl's ``GRPOTrainer``, one
  benchmark task per step (main-split tasks of at most ``--max-calls``
  reference calls), each group's two rollouts scripted (the oracle trajectory
  and the same without its lookup: real tool calls, rewards 1 and 0). Timed
  apart: every tool call (``RolloutEnvironment._call``: argument hand-over,
  ``ToolEnvironment.call`` on the snapshot, the tool message), every
  ``reset`` and the reward (the benchmark grader). The step time is trl's own
  ``step_time``. Target: the environment under 5 % of the step.
* **tool calls per second** — every reference call of the benchmark's tasks,
  round robin over ``--calls`` calls, through (a) bare
  ``ToolEnvironment.call(tool, args)`` and (b) the path trl takes: the
  environment's bound tool method called with ``**arguments``, which runs the
  call and renders the JSON tool message the model reads (what trl then
  ``str()``s). ``trl path / bare`` is the overhead of the tool path.

    python benchmarks/bench_rollout.py --steps 6 --calls 3000
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

from _timing import rate


def _share(steps: int, max_calls: int, model: Path) -> dict:
    from kopa_replay.bench.suite import load_task_set
    from kopa_replay.catalog import builtin_catalog
    from kopa_replay.synth.export import SYSTEM_PROMPT
    from kopa_replay.train.config import TrainConfig
    from kopa_replay.train.data import task_rows
    from kopa_replay.train.reward import GraderReward
    from kopa_replay.train.run import train_grpo_rows
    from kopa_replay.train.scripted import ScriptedGeneration, oracle_scripts
    from kopa_replay.train.tools import RolloutEnvironment, SourceSpec, ToolSets

    catalog = builtin_catalog()
    tasks = [t for t in load_task_set().tasks if t.split == "main" and 2 <= len(t.reference_calls) <= max_calls]
    tasks = tasks[:steps]
    spent = {"tools": 0.0, "reset": 0.0, "reward": 0.0, "calls": 0}
    original_call, original_reset = RolloutEnvironment._call, RolloutEnvironment.reset

    def timed_call(self, name, args):
        start = time.perf_counter()
        try:
            return original_call(self, name, args)
        finally:
            spent["tools"] += time.perf_counter() - start
            spent["calls"] += 1

    def timed_reset(self, **row):
        start = time.perf_counter()
        try:
            return original_reset(self, **row)
        finally:
            spent["reset"] += time.perf_counter() - start

    class TimedReward(GraderReward):
        def __call__(self, *args, **kwargs):
            start = time.perf_counter()
            try:
                return super().__call__(*args, **kwargs)
            finally:
                spent["reward"] += time.perf_counter() - start

    tool_sets = ToolSets(catalog, SourceSpec(), max_chars=1500)
    rows, _ = task_rows(tasks, catalog, top_k=4, system=SYSTEM_PROMPT, add_tool_set=tool_sets.add)
    scripts = {task.id: oracle_scripts(task) for task in tasks}

    class PerTask(ScriptedGeneration):
        """The scripts of whichever task the batch's prompt asks."""

        def __call__(self, input_ids, attention_mask=None, **kw):
            text = self.tokenizer.decode(input_ids[0][attention_mask[0].bool()].tolist())
            task = next(t for t in tasks if t.question_ko in text)
            self.scripts = [list(s) for s in scripts[task.id]]
            return super().__call__(input_ids, attention_mask, **kw)

    with tempfile.TemporaryDirectory() as out:
        config = TrainConfig(
            kind="grpo",
            model=str(model),
            data="benchmark tasks",
            output_dir=out,
            top_k=4,
            max_chars=1500,
            trainer={
                "max_steps": len(tasks),
                "per_device_train_batch_size": 2,
                "num_generations": 2,
                "max_completion_length": 8192,
                "max_tool_calling_iterations": max_calls + 1,
                "save_final": False,
                "shuffle_dataset": False,
            },
        )
        RolloutEnvironment._call, RolloutEnvironment.reset = timed_call, timed_reset
        try:
            result = train_grpo_rows(
                config,
                rows,
                tool_sets,
                {},
                before_train=lambda trainer: setattr(trainer.model, "generate", PerTask(trainer.processing_class, [])),
                reward=TimedReward(),
            )
        finally:
            RolloutEnvironment._call, RolloutEnvironment.reset = original_call, original_reset
        timings = json.loads((Path(out) / "timings.json").read_text())
    step_time = sum(entry.get("step_time", 0.0) for entry in timings)
    metrics = [m for m in result.metrics if "reward" in m]
    environment = spent["tools"] + spent["reset"]
    return {
        "steps": len(metrics),
        "tool_calls": spent["calls"],
        "mean_reward": round(sum(m["reward"] for m in metrics) / len(metrics), 4),
        "step_s": round(step_time, 3),
        "tools_s": round(spent["tools"], 4),
        "reset_s": round(spent["reset"], 4),
        "reward_s": round(spent["reward"], 4),
        "environment_share": round(environment / step_time, 4),
        "environment_and_reward_share": round((environment + spent["reward"]) / step_time, 4),
    }


def _calls_per_second(calls: int) -> dict:
    from kopa_replay.bench.suite import load_task_set
    from kopa_replay.catalog import builtin_catalog
    from kopa_replay.env import ToolEnvironment
    from kopa_replay.train.tools import SourceSpec, ToolSets

    catalog = builtin_catalog()
    workload = [(tool, dict(args)) for task in load_task_set().tasks for tool, args in task.reference_calls]
    items = [workload[i % len(workload)] for i in range(calls)]
    tool_sets = ToolSets(catalog, SourceSpec())
    environment = tool_sets.environment(sorted({tool for tool, _ in workload}))
    environment.reset()
    bare = ToolEnvironment(catalog, tool_sets.shared.source())

    def through_trl(item):
        tool, args = item
        return str(getattr(environment, tool)(**args))

    def direct(item):
        return bare.call(item[0], item[1])

    for func in (direct, through_trl):  # warm: each distinct body parsed once, as in a long run
        rate(func, workload)
    best = {"bare": 0.0, "trl_path": 0.0}
    for _ in range(3):
        bare.reset()
        environment.reset()
        best["bare"] = max(best["bare"], rate(direct, items))
        best["trl_path"] = max(best["trl_path"], rate(through_trl, items))
    tool_sets.close()
    return {
        "distinct_calls": len(workload),
        "calls": calls,
        "bare_calls_per_s": round(best["bare"]),
        "trl_path_calls_per_s": round(best["trl_path"]),
        "trl_path_over_bare": round(best["bare"] / best["trl_path"], 3),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=6, help="GRPO steps (one task each)")
    parser.add_argument("--max-calls", type=int, default=4, help="reference calls per task at most")
    parser.add_argument("--calls", type=int, default=3000, help="tool calls per mode for the throughput")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    options = parser.parse_args()

    from kopa_replay.train.run import offline

    offline()
    from kopa_replay.train.tiny import build_tiny_model

    with tempfile.TemporaryDirectory() as directory:
        model = build_tiny_model(Path(directory) / "tiny")
        share = _share(options.steps, options.max_calls, model)
    throughput = _calls_per_second(options.calls)
    result = {"grpo_step": share, "tool_calls": throughput}
    if options.json:
        print(json.dumps(result, indent=2))
        return
    print(
        f"GRPO on CPU, tiny model, {share['steps']} steps, {share['tool_calls']} tool calls on the snapshot "
        f"(mean reward {share['mean_reward']}):"
    )
    print(
        f"  step wall time {share['step_s']} s; tools {share['tools_s']} s + resets {share['reset_s']} s = "
        f"{share['environment_share']:.2%} of it (target < 5 %); with the grader reward "
        f"{share['environment_and_reward_share']:.2%}"
    )
    print(
        f"tool calls per second over {throughput['distinct_calls']} distinct benchmark calls: bare "
        f"ToolEnvironment.call {throughput['bare_calls_per_s']:,}, trl tool path {throughput['trl_path_calls_per_s']:,} "
        f"(x{throughput['trl_path_over_bare']} the bare cost)"
    )


if __name__ == "__main__":
    main()
