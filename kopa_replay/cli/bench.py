"""The ``bench`` group (KOPA-Bench): run agents on the tasks, grade, audit, build."""

from __future__ import annotations

import sys

import click

from kopa_replay.cli.common import (_Group, _catalog_option, _dump, _llm_options, _load_catalog, _open_env, _progress,
                                    _report_options, _store_option, _store_path, _task_set, _tasks_option, cli)
from kopa_replay.errors import UsageError


@cli.group(cls=_Group)
def bench() -> None:
    """Run agents on the benchmark tasks, grade them on three axes, audit training data against them.

    Example: kopa-replay bench run --agent oracle --rollouts 4
    """


@bench.command("drift")
@click.argument("before")
@click.argument("after")
@_tasks_option
@_store_option
@click.option("--write", "write_dir", type=click.Path(file_okay=False),
              help="Write the task set re-pinned to AFTER here (answers, digests, required actions recomputed; tasks "
                   "that no longer execute kept and tagged stale:no_longer_executes) with drift.json.")
@_report_options(["changed", "broken"], "Exit 1 when any task is listed (changed: its answer, paging or calls "
                                        "moved, or it does not run), or only when a task does not run on AFTER or "
                                        "AFTER lacks a request it makes (broken).")
@_catalog_option
def bench_drift(before, after, tasks_dir, store, write_dir, fmt, fail_on, catalog_files, scale) -> None:
    """Re-run every task's reference plan on snapshots BEFORE and AFTER and list the tasks the drift moved.

    Each listed task (answer changed, no longer executes, paging changed, request not recorded) names the
    drift changes and data changes of the requests its plan makes.
    Example: kopa-replay bench drift 2026-09-01 2026-12-01 --write runs/tasks-2026-12-01 --fail-on broken
    """
    from kopa_replay.bench.drift import render_answer_drift, run_answer_drift
    from kopa_replay.bench.suite import load_task_set

    report = run_answer_drift(_load_catalog(catalog_files, scale), store_path=_store_path(store), before=before,
                              after=after, task_set=load_task_set(tasks_dir), write=write_dir)
    click.echo(render_answer_drift(report, fmt, fail_on), nl=False)
    if write_dir:
        click.echo(f"re-pinned task set -> {write_dir}", err=True)
    if fail_on and report.crosses(fail_on):
        sys.exit(1)


@bench.command("run")
@click.option("--agent", "agent_name", required=True,
              type=click.Choice(["oracle", "skip-lookup", "first-page", "openai", "transformers"]),
              help="oracle (replays the reference), skip-lookup / first-page (failure-mode baselines), openai "
                   "(an OpenAI-compatible server with tool calling), transformers (a local model).")
@click.option("--snapshot", default="2026-09-01", show_default=True,
              help="The pinned snapshot the tools answer from (source replay).")
@click.option("--source", type=click.Choice(["replay", "sim"]), default="replay", show_default=True,
              help="replay: the snapshot, offline (a call it never recorded is answered as missing); "
                   "sim: the in-process simulator at --sim-seed / --as-of.")
@click.option("--sim-seed", default=0, show_default=True, type=int, help="World seed (source sim).")
@click.option("--as-of", default="2026-09-01", show_default=True, help="Simulator as-of date (source sim).")
@click.option("--rollouts", "k", default=1, show_default=True, type=int, help="Rollouts per task (k of pass@k).")
@_tasks_option
@click.option("--split", type=click.Choice(["main", "held_out"]), help="Only the tasks of this split.")
@click.option("--domain", help="Only the tasks of this domain (finance, traffic, district, education, politics, law).")
@click.option("--task", "task_ids", multiple=True, metavar="ID", help="Only this task (repeatable).")
@click.option("--include-stale", is_flag=True,
              help="Also run tasks `bench drift --write` tagged stale:no_longer_executes (left out by default).")
@click.option("--out", type=click.Path(file_okay=False),
              help="Where rollouts, grades and reports are written [default: runs/bench/AGENT].")
@_llm_options("under test (--agent openai)")
@click.option("--model-path", type=click.Path(), help="Local checkpoint directory (--agent transformers).")
@click.option("--top-k", default=24, show_default=True, type=int,
              help="Tools offered to a model agent per task (retrieved for the question); 0: every tool.")
@click.option("--max-turns", default=16, show_default=True, type=int, help="Assistant turns a model agent gets.")
@_store_option
@_catalog_option
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
def bench_run(agent_name, snapshot, source, sim_seed, as_of, k, tasks_dir, split, domain, task_ids, include_stale, out,
              llm_url, llm_model, model_path, top_k, max_turns, store, catalog_files, scale, as_json) -> None:
    """Run an agent on the tasks (K rollouts each) and grade RESPONSE, ACTION and ENVIRONMENT.

    Example: kopa-replay bench run --agent skip-lookup --split held_out --json
    """
    from contextlib import ExitStack
    from pathlib import Path

    from kopa_replay.bench.report import markdown, report_json
    from kopa_replay.bench.suite import make_agent, run_benchmark
    from kopa_replay.synth.export import write_jsonl
    from kopa_replay.util import write_atomic

    if k < 1:
        raise UsageError(f"--rollouts must be at least 1, not {k}")
    task_set = _task_set(tasks_dir, split, domain, task_ids, include_stale)
    cat = _load_catalog(catalog_files, scale)
    out = Path(out or Path("runs") / "bench" / agent_name)
    options = {}
    if agent_name in ("openai", "transformers"):
        options = {"top_k": top_k or None, "max_turns": max_turns}
        if agent_name == "openai":
            # the model's answers are recorded beside the run (never in the shipped cassette): a rerun is offline
            options.update(base_url=llm_url, model=llm_model, store=str(out / "llm.sqlite"), snapshot="llm")
        else:
            options["model_path"] = model_path
    with ExitStack() as stack:
        agent = make_agent(agent_name, task_set, **options)
        if hasattr(agent, "close"):
            stack.callback(agent.close)
        env = _open_env(stack, cat, "sim" if source == "sim" else "replay", sim_seed, as_of,
                        snapshot if source == "replay" else None, None, store)
        run = run_benchmark(task_set.tasks, agent, cat, env, k)
    out.mkdir(parents=True, exist_ok=True)
    write_jsonl(out / "rollouts.jsonl", [r.to_dict() for r in run.rollouts])
    text = report_json(run.report)
    write_atomic(out / "report.json", text)
    write_atomic(out / "report.md", markdown(run.report))
    if as_json:
        click.echo(text, nl=False)
        return
    p1, pk = run.report["pass_at_1"], run.report["pass_at_k"]
    at_k = f", pass@{k} {pk['combined']:.3f}" if k > 1 else ""
    click.echo(f"{agent_name}: {run.report['n_tasks']} tasks x {k} rollout{'s' if k > 1 else ''}: pass@1 "
               f"{p1['combined']:.3f}{at_k} (response {p1['response']:.3f}, action {p1['action']:.3f}, "
               f"environment {p1['environment']:.3f}) -> {out}")


@bench.command("report")
@click.argument("run_dir", type=click.Path(file_okay=False))
@_tasks_option
@click.option("--format", "fmt", type=click.Choice(["markdown", "json"]), default="markdown", show_default=True)
def bench_report(run_dir, tasks_dir, fmt) -> None:
    """Re-grade a run's rollouts against the tasks and print the report.

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
    click.echo(report_json(data) if fmt == "json" else markdown(data), nl=False)


@bench.command("audit")
@click.option("--train", "train_file", required=True, type=click.Path(dir_okay=False),
              help="The training data: trajectories.jsonl (exact links) or sft.jsonl (links inferred) of `synth`.")
@_tasks_option
@click.option("--near", default=0.9, show_default=True, type=float,
              help="Question 3-gram Jaccard at or above which a pair counts as near-verbatim.")
@click.option("--json", "as_json", is_flag=True, help="Print the audit as JSON.")
def bench_audit(train_file, tasks_dir, near, as_json) -> None:
    """Contamination between training data and the benchmark: questions, tools, links, consecutive calls, plans.

    Example: kopa-replay bench audit --train runs/synth/trajectories.jsonl
    """
    from pathlib import Path

    from kopa_replay.bench.audit import audit, items_from_sft_rows, items_from_trajectories, markdown
    from kopa_replay.synth.export import read_jsonl

    path = Path(train_file)
    if not path.exists():
        raise UsageError(f"no training file {path}")
    try:
        rows = read_jsonl(path)
    except ValueError as exc:
        raise UsageError(f"{path}: not JSONL ({exc})") from None
    if not rows:
        raise UsageError(f"{path} holds no row")
    train = items_from_trajectories(rows) if "steps" in rows[0] else items_from_sft_rows(rows)
    task_set = _task_set(tasks_dir, stale=True)   # contamination is checked against every task, stale or not
    if len(task_set.plans) != len(task_set.tasks):
        raise UsageError(f"{task_set.source} has no plan for every task (plans.jsonl): the audit needs the links")
    bench_items = items_from_trajectories([task_set.plans[t.id].to_dict() for t in task_set.tasks])
    result = audit(train, bench_items, near=near)
    click.echo(_dump(result) if as_json else markdown(result), nl=not as_json)


@bench.command("build")
@click.option("--out", required=True, type=click.Path(file_okay=False), help="Where the task set is written.")
@click.option("--seed", "seeds", multiple=True, type=int, help="Walk seed (repeatable) [default: 0 to 5].")
@click.option("--per-run", default=150, show_default=True, type=int, help="Walks kept per synthesis run.")
@click.option("--sim-seed", default=0, show_default=True, type=int, help="World seed of the simulator.")
@click.option("--as-of", default="2026-09-01", show_default=True, help="Simulator as-of date.")
@click.option("--json", "as_json", is_flag=True, help="Print the set's summary as JSON.")
def bench_build(out, seeds, per_run, sim_seed, as_of, as_json) -> None:
    """Rebuild a task set on the simulator (how the shipped one was made; several minutes).

    Example: kopa-replay bench build --out runs/bench-tasks
    """
    from contextlib import ExitStack

    from kopa_replay.bench.build import BuildSpec, build_tasks, summary
    from kopa_replay.bench.suite import save_task_set

    spec = BuildSpec(seeds=tuple(seeds) or BuildSpec.seeds, per_run=per_run)
    cat = _load_catalog((), "builtin")
    with ExitStack() as stack:
        env = _open_env(stack, cat, "sim", sim_seed, as_of, None, None, None)
        tasks, plans = build_tasks(cat, env, spec, progress=stack.enter_context(_progress()))
    info = {**summary(tasks, plans), "spec": spec.to_dict(), "sim_seed": sim_seed, "as_of": as_of}
    save_task_set(out, tasks, plans, info)
    if as_json:
        click.echo(_dump(info))
        return
    click.echo(f"{info['tasks']} tasks ({info['by_split']}) -> {out}")
