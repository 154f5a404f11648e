"""Benchmark throughput: every shipped task × 4 oracle rollouts, rolled out on the shipped snapshot and graded.

Phases, timed apart in one run (best of ``--rounds``):

* **rollouts** — the oracle replaying each task's reference calls through a
  :class:`~kopa_replay.env.ToolEnvironment` on strict replay of the shipped
  snapshot (``cassettes/kopa.sqlite``, 2026-09-01), k rollouts per task;
* **grading** — RESPONSE, ACTION and ENVIRONMENT for every rollout
  (:func:`kopa_replay.bench.grade.grade_all`);
* **report** — pass@1 / pass@k per axis, domain and split, and its JSON text.

Baselines in the same run: the same reference calls as bare
``ToolEnvironment.call`` in a loop (no agent, no rollout bookkeeping), and
``json.dumps`` of every rollout (the least any grader has to look at each one).
Rates are rollouts per second; ratios are against those baselines.

    python benchmarks/bench_grading.py --rollouts 4
    python benchmarks/bench_grading.py --rollouts 4 --json
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
import time
from typing import Any, Callable

from kopa_replay.bench.agents import OracleAgent, run_rollouts
from kopa_replay.bench.grade import grade_all
from kopa_replay.bench.report import report, report_json
from kopa_replay.bench.suite import load_task_set
from kopa_replay.catalog import builtin_catalog
from kopa_replay.env import ToolEnvironment
from kopa_replay.record.store import shipped_store_path

SHIPPED = shipped_store_path()


def _best(func: Callable[[], Any], rounds: int) -> tuple[float, Any]:
    best, value = float("inf"), None
    for _ in range(rounds):
        start = time.perf_counter()
        value = func()
        best = min(best, time.perf_counter() - start)
    return best, value


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rollouts", type=int, default=4, help="k rollouts per task")
    parser.add_argument("--rounds", type=int, default=3, help="timed rounds per phase (best kept)")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args(argv)

    catalog = builtin_catalog()
    tasks = load_task_set().tasks
    with ToolEnvironment.open(catalog, source="replay", snapshot="2026-09-01", store=SHIPPED) as env:
        for tool, call_args in (c for task in tasks for c in task.reference_calls):  # warm the store's memo
            env.call(tool, dict(call_args))

        def bare_calls() -> int:
            for _ in range(args.rollouts):
                for task in tasks:
                    env.reset()
                    for tool, call_args in task.reference_calls:
                        env.call(tool, dict(call_args))
            return 0

        t_calls, _ = _best(bare_calls, args.rounds)
        t_rollouts, rollouts = _best(
            lambda: run_rollouts(tasks, OracleAgent(), catalog, env, args.rollouts), args.rounds
        )
    t_grade, grades = _best(lambda: grade_all(tasks, rollouts), args.rounds)
    t_report, data = _best(lambda: report_json(report(tasks, grades)), args.rounds)
    t_dump, _ = _best(lambda: [json.dumps(r.to_dict(), ensure_ascii=False) for r in rollouts], args.rounds)
    n = len(rollouts)
    calls = sum(len(r.calls) for r in rollouts)
    figures = {
        "tasks": len(tasks),
        "rollouts_per_task": args.rollouts,
        "rollouts": n,
        "calls": calls,
        "pass_at_1": json.loads(data)["pass_at_1"]["combined"],
        "rollouts_per_s": round(n / t_rollouts, 1),
        "bare_calls_rollouts_per_s": round(n / t_calls, 1),
        "rollout_vs_bare_calls": round(t_calls / t_rollouts, 3),
        "grades_per_s": round(n / t_grade, 1),
        "json_dumps_per_s": round(n / t_dump, 1),
        "grade_vs_json_dumps": round(t_dump / t_grade, 3),
        "report_s": round(t_report, 4),
        "end_to_end_rollouts_per_s": round(n / (t_rollouts + t_grade + t_report), 1),
        "python": platform.python_version(),
        "machine": platform.machine(),
    }
    if args.json:
        print(json.dumps(figures, indent=2))
    else:
        print(
            f"{figures['tasks']} tasks x {args.rollouts} oracle rollouts = {n} rollouts, {calls} calls "
            f"(pass@1 {figures['pass_at_1']})"
        )
        print(
            f"rollouts on replay: {figures['rollouts_per_s']:,}/s "
            f"({figures['rollout_vs_bare_calls']}x the bare calls' {figures['bare_calls_rollouts_per_s']:,}/s)"
        )
        print(
            f"grading, three axes: {figures['grades_per_s']:,}/s "
            f"({figures['grade_vs_json_dumps']}x json.dumps of the rollouts, {figures['json_dumps_per_s']:,}/s)"
        )
        print(f"report: {figures['report_s']} s; end to end {figures['end_to_end_rollouts_per_s']:,} rollouts/s")
    return figures


if __name__ == "__main__":
    sys.exit(0 if main() else 1)
