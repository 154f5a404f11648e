"""The ``bench`` group (KOPA-Bench): run agents on the tasks, grade, audit, build."""

from __future__ import annotations

import sys

import click

from kopa_replay.cli.common import (
    _catalog_option,
    _emit,
    _fail_on_option,
    _Group,
    _load_catalog,
    _output_option,
    _progress,
    _store_option,
    _store_path,
    _tasks_option,
    cli,
)
from kopa_replay.errors import UsageError
from kopa_replay.stages import bench_audit, bench_build, bench_run
from kopa_replay.stages.options import click_options


@cli.group(cls=_Group)
def bench() -> None:
    """Run agents on the benchmark tasks, grade them on three axes, audit training data against them.

    Example: kopa-replay bench run --agent oracle --rollouts 4
    """


def _say_stale_left_out(count: int) -> None:
    if count:
        click.echo(
            f"{count} task(s) tagged stale: left out (their plans no longer run on the snapshot the set "
            "is pinned to; --include-stale runs them)",
            err=True,
        )


def _task_set(tasks_dir, ids=()):
    chosen, left_out = bench_run.select_tasks(tasks_dir, ids=ids)
    _say_stale_left_out(left_out)
    return chosen


@bench.command("drift")
@click.argument("before")
@click.argument("after")
@_tasks_option
@_store_option
@click.option(
    "--write",
    "write_dir",
    type=click.Path(file_okay=False),
    help="Write the task set re-pinned to AFTER here (answers, digests, required actions recomputed; tasks "
    "that no longer execute kept and tagged stale:no_longer_executes) with drift.json.",
)
@_output_option(junit="each listed task a test case, failing at --fail-on")
@_fail_on_option(
    ["changed", "broken"],
    "Exit 1 when any task is listed (changed: its answer, paging or calls "
    "moved, or it does not run), or only when a task does not run on AFTER or "
    "AFTER lacks a request it makes (broken).",
)
@_catalog_option
def bench_drift(before, after, tasks_dir, store, write_dir, fmt, fail_on, catalog_files, scale) -> None:
    """Re-run every task's reference plan on snapshots BEFORE and AFTER and list the tasks the drift moved.

    Each listed task (answer changed, no longer executes, paging changed, request not recorded) names the
    drift changes and data changes of the requests its plan makes.
    Example: kopa-replay bench drift 2026-09-01 2026-12-01 --write runs/tasks-2026-12-01 --fail-on broken
    """
    from kopa_replay.bench.drift import render_answer_drift, run_answer_drift
    from kopa_replay.bench.suite import load_task_set

    report = run_answer_drift(
        _load_catalog(catalog_files, scale),
        store_path=_store_path(store),
        before=before,
        after=after,
        task_set=load_task_set(tasks_dir),
        write=write_dir,
    )
    click.echo(render_answer_drift(report, fmt, fail_on), nl=False)
    if write_dir:
        click.echo(f"re-pinned task set -> {write_dir}", err=True)
    if fail_on and report.crosses(fail_on):
        sys.exit(1)


@bench.command("run")
@click_options(bench_run.Config)
@_output_option()
def bench_run_command(fmt, **settings) -> None:
    """Run an agent on the tasks (K rollouts each) and grade RESPONSE, ACTION and ENVIRONMENT.

    Example: kopa-replay bench run --agent skip-lookup --split held_out --json
    """
    from kopa_replay.bench.report import markdown, report_json

    config = bench_run.Config(**settings)
    result = bench_run.run(config)
    _say_stale_left_out(result.left_out_stale)
    report, k = result.report, config.k
    p1, pk = report["pass_at_1"], report["pass_at_k"]
    at_k = f", pass@{k} {pk['combined']:.3f}" if k > 1 else ""
    text = (
        f"{config.agent}: {report['n_tasks']} tasks x {k} rollout{'s' if k > 1 else ''}: pass@1 "
        f"{p1['combined']:.3f}{at_k} (response {p1['response']:.3f}, action {p1['action']:.3f}, "
        f"environment {p1['environment']:.3f}) -> {result.out}"
    )
    _emit(fmt, report, text, markdown=lambda: markdown(report), json_text=report_json(report))


@bench.command("report")
@click.argument("run_dir", type=click.Path(file_okay=False))
@_tasks_option
@_output_option()
def bench_report(run_dir, tasks_dir, fmt) -> None:
    """Re-grade a run's rollouts against the tasks and print the report (its text is Markdown: text and markdown
    print the same).

    Example: kopa-replay bench report runs/bench/oracle --format markdown
    """
    from pathlib import Path

    from kopa_replay.bench.grade import grade_all
    from kopa_replay.bench.model import Rollout
    from kopa_replay.bench.report import markdown, report, report_json
    from kopa_replay.synth.export import read_jsonl

    path = Path(run_dir) / "rollouts.jsonl"
    if not path.exists():
        raise UsageError(f"no rollouts at {path}: run `kopa-replay bench run --out {run_dir}` first")
    try:
        rollouts = [Rollout.from_dict(row) for row in read_jsonl(path)]
    except (KeyError, TypeError, ValueError) as exc:
        raise UsageError(f"{path}: not a rollouts file ({type(exc).__name__}: {exc})") from None
    if not rollouts:
        raise UsageError(f"{path} holds no rollout")
    task_set = _task_set(tasks_dir, ids=sorted({r.task_id for r in rollouts}))
    data = report(task_set.tasks, grade_all(task_set.tasks, rollouts))
    _emit(fmt, data, lambda: markdown(data), markdown=lambda: markdown(data), json_text=report_json(data))


@bench.command("audit")
@click_options(bench_audit.Config)
@_output_option()
def bench_audit_command(fmt, **settings) -> None:
    """Contamination between training data and the benchmark: questions, tools, links, consecutive calls, plans.

    Its text is Markdown (text and markdown print the same).
    Example: kopa-replay bench audit --train runs/synth/trajectories.jsonl
    """
    result = bench_audit.run(bench_audit.Config(**settings))
    _emit(fmt, result.audit, result.markdown, markdown=result.markdown)
    if result.out:
        click.echo(f"audit -> {result.out}", err=True)


@bench.command("build")
@click_options(bench_build.Config)
@_output_option()
def bench_build_command(fmt, **settings) -> None:
    """Rebuild a task set on the simulator (how the shipped one was made; several minutes).

    Example: kopa-replay bench build --out runs/bench-tasks
    """
    with _progress() as progress:
        result = bench_build.run(bench_build.Config(**settings), progress=progress)
    info = result.info
    _emit(fmt, info, lambda: f"{_stats_text(info)}\ntask set -> {result.out}")


def _stats_text(info) -> str:
    """A task set's shape as a person reads it: calls, parallel share, domains, splits, failure modes."""

    def counts(mapping) -> str:
        return ", ".join(f"{key} {value}" for key, value in mapping.items())

    lines = [
        f"{info['tasks']} tasks ({info.get('source', 'built')}): calls mean {info['calls_mean']}, "
        f"max {info['calls_max']}, {info.get('calls_at_least_14', 0)} with 14 or more",
        f"parallel calls in {info['parallel']} ({info.get('parallel_share', 0):.0%}); "
        f"read over several pages in {info['paged']}",
        f"by domain: {counts(info['by_domain'])}",
        f"by split: {counts(info['by_split'])} (held out by platform: {counts(info.get('held_out_by_platform', {}))})",
    ]
    broken = info.get("answer_broken_by")
    if broken:
        lines.append(
            f"answers wrong when the code lookup is skipped: {broken['skip_lookup']}; "
            f"when only first pages are read: {broken['first_page']}"
        )
    return "\n".join(lines)


@bench.command("stats")
@_tasks_option
@_output_option()
def bench_stats(tasks_dir, fmt) -> None:
    """The shape of a task set (the shipped one by default), as its build recorded it.

    Example: kopa-replay bench stats
    """
    from kopa_replay.bench.suite import load_task_set

    info = load_task_set(tasks_dir).build
    if not info.get("tasks"):
        raise UsageError(f"{tasks_dir or 'the task set'} has no build.json summary: rebuild it with bench build")
    _emit(fmt, dict(info), lambda: _stats_text(info))
