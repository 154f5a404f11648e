"""Stage ``bench run``: an agent on the benchmark's tasks (K rollouts each), graded on RESPONSE, ACTION and
ENVIRONMENT; writes ``rollouts.jsonl``, ``report.json``, ``report.md``."""

from __future__ import annotations

from contextlib import ExitStack
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any, Literal

from kopa_replay.errors import UsageError
from kopa_replay.stages.common import (
    INCIDENTS_HELP,
    STORE_HELP,
    CatalogChoice,
    LLMServer,
    ScaleOut,
    check_incidents,
    for_workers,
    task_set_digest,
)
from kopa_replay.stages.options import as_dict, setting
from kopa_replay.stages.run_dir import atomic_run_dir, write_manifest

__all__ = ["Config", "Result", "run", "inputs", "STAGE", "AGENTS"]

STAGE = "bench-run"
AGENTS = ("oracle", "skip-lookup", "first-page", "openai", "transformers")
TASKS_HELP = "A task-set directory (tasks.jsonl, plans.jsonl) instead of the shipped one."


@dataclass(frozen=True)
class Config(CatalogChoice, LLMServer, ScaleOut):
    agent: Literal["oracle", "skip-lookup", "first-page", "openai", "transformers"] | None = setting(
        None,
        "oracle (replays the reference), skip-lookup / first-page (failure-mode baselines), openai (an "
        "OpenAI-compatible server with tool calling), transformers (a local model).",
        required=True,
    )
    snapshot: str = setting("2026-09-01", "The pinned snapshot the tools answer from (source replay).")
    source: Literal["replay", "sim"] = setting(
        "replay",
        "replay: the snapshot, offline (a call it never recorded is answered as missing); sim: the "
        "in-process simulator at --sim-seed / --as-of, on the world the tasks were built over.",
    )
    sim_seed: int = setting(0, "World seed (source sim).")
    as_of: str = setting("2026-09-01", "Simulator as-of date (source sim).")
    incidents: str = setting("", INCIDENTS_HELP + " A grade says which calls met one.", metavar="SPEC")
    k: int = setting(1, "Rollouts per task (k of pass@k).", flag="--rollouts")
    tasks: str | None = setting(None, TASKS_HELP, path="dir")
    split: Literal["main", "held_out"] | None = setting(None, "Only the tasks of this split.")
    domain: str | None = setting(
        None, "Only the tasks of this domain (finance, traffic, district, education, politics, law)."
    )
    task: tuple[str, ...] = setting((), "Only this task (repeatable).", metavar="ID")
    include_stale: bool = setting(
        False, "Also run tasks `bench drift --write` tagged stale:no_longer_executes (left out by default)."
    )
    out: str | None = setting(
        None, "Where rollouts, grades and reports are written [default: runs/bench/AGENT].", path="dir"
    )
    model_path: str | None = setting(None, "Local checkpoint directory (--agent transformers).", path="any")
    top_k: int = setting(24, "Tools offered to a model agent per task (retrieved for the question); 0: every tool.")
    max_turns: int = setting(16, "Assistant turns a model agent gets.")
    concurrency: int = setting(
        8,
        "Rollouts in flight at once against the model server (--agent openai); the other agents run one at a "
        "time. The results are the same bytes whatever it is.",
        keyed=False,
    )
    store: str | None = setting(None, STORE_HELP, envvar="KOPA_STORE", path="file")

    def __post_init__(self) -> None:
        if self.agent not in AGENTS:
            raise UsageError(f"agent must be one of {', '.join(AGENTS)}, not {self.agent!r}")
        if self.k < 1:
            raise UsageError(f"--rollouts must be at least 1, not {self.k}")
        if self.concurrency < 1:
            raise UsageError(f"--concurrency must be at least 1, not {self.concurrency}")
        check_incidents(self.incidents, self.source)
        self.executor_spec()

    @property
    def out_dir(self) -> Path:
        return Path(self.out or Path("runs") / "bench" / str(self.agent))


@dataclass(frozen=True)
class Result:
    out: Path
    report: dict[str, Any]
    #: tasks tagged stale: left out of the run (their plans no longer run on the pinned snapshot)
    left_out_stale: int
    manifest: dict[str, Any]

    def to_dict(self) -> dict[str, Any]:
        return self.report


def select_tasks(
    tasks: str | None,
    *,
    split: str | None = None,
    domain: str | None = None,
    ids: tuple[str, ...] = (),
    stale: bool = False,
) -> tuple[Any, int]:
    """The chosen tasks and how many stale ones the choice left out."""
    from kopa_replay.bench.suite import load_task_set

    loaded = load_task_set(tasks)
    chosen = loaded.select(split=split, domain=domain, ids=ids, stale=stale)
    return chosen, len(loaded.select(split=split, domain=domain, ids=ids, stale=True).tasks) - len(chosen.tasks)


def _where(config: Config) -> Any:
    from kopa_replay.bench.suite import load_task_set
    from kopa_replay.stages.common import ExecSource

    replay = config.source == "replay"
    return ExecSource(
        # the simulator answers on the world the task set was built over (its build.json says which)
        source="replay" if replay else f"sim:{load_task_set(config.tasks).world}",
        sim_seed=config.sim_seed,
        as_of=config.as_of,
        snapshot=config.snapshot if replay else None,
        store=config.store,
    )


def inputs(config: Config) -> dict[str, Any]:
    """The digests the report is a function of (with the config)."""
    return {
        "tasks": task_set_digest(config.tasks),
        "catalog": config.load_catalog().digest(),
        "snapshot": _where(config).sealed_digest(),
        "model_path": config.model_path,
    }


def run(config: Config) -> Result:
    """K rollouts per chosen task, graded and reported. With ``--workers N`` (threads, or Ray workers with
    ``--executor ray``) the tasks are dealt into N shards, each run by a worker with its own agent and
    environment, and the rollouts merged in task order: the same bytes as one process."""
    from kopa_replay.bench.report import markdown, report_json
    from kopa_replay.bench.suite import merge_benchmark
    from kopa_replay.scale import open_executor
    from kopa_replay.synth.export import write_jsonl
    from kopa_replay.util import write_atomic

    task_set, left_out = select_tasks(
        config.tasks, split=config.split, domain=config.domain, ids=config.task, stale=config.include_stale
    )
    catalog = config.load_catalog()
    final = config.out_dir
    where, made_of = _where(config), inputs(config)
    spec = config.executor_spec()
    with atomic_run_dir(final, keep=("llm.sqlite",)) as work:
        tasks = list(task_set.tasks)
        count = min(spec.workers, len(tasks)) or 1
        # task i goes to shard i mod N: neighbouring tasks (one domain, similar cost) are spread over the workers
        shipped = for_workers(config) if count > 1 or spec.kind == "ray" else config
        jobs = [_Shard(shipped, task_set, tuple(tasks[k::count]), work.resolve()) for k in range(count)]
        if count == 1 and spec.kind == "local":
            parts = [_run_shard(jobs[0])]
        else:
            with open_executor(spec) as executor:
                parts = executor.map(_run_shard, jobs)
        benched = merge_benchmark(tasks, [rollout for part in parts for rollout in part])
        write_jsonl(work / "rollouts.jsonl", [r.to_dict() for r in benched.rollouts])
        write_atomic(work / "report.json", report_json(benched.report))
        write_atomic(work / "report.md", markdown(benched.report))
        manifest = write_manifest(
            work,
            STAGE,
            config=as_dict(config),
            inputs=made_of,
            outputs=["rollouts.jsonl", "report.json", "report.md"],
            catalog=catalog.digest(),
            source=where.described(),
        )
    return Result(final, benched.report, left_out, manifest)


@dataclass(frozen=True)
class _Shard:
    config: Config
    task_set: Any
    tasks: tuple[Any, ...]
    work: Path


def _run_shard(shard: _Shard) -> tuple[Any, ...]:
    """One shard's rollouts, with an agent and an environment of its own (in a Ray worker, a thread, or here)."""
    from kopa_replay.bench.suite import make_agent, run_task_rollouts
    from kopa_replay.env import AsyncToolEnvironment

    config, where = shard.config, _where(shard.config)
    catalog = config.load_catalog()
    options: dict[str, Any] = {}
    if config.agent in ("openai", "transformers"):
        options = {"top_k": config.top_k or None, "max_turns": config.max_turns}
        if config.agent == "openai":
            # the model's answers are recorded beside the run (never in the shipped cassette): a rerun is offline;
            # every shard records into the one store (each rollout under its own tag)
            options.update(
                base_url=config.llm_url, model=config.llm_model, store=str(shard.work / "llm.sqlite"), snapshot="llm"
            )
        else:
            options["model_path"] = config.model_path
    with ExitStack() as stack:
        agent = make_agent(str(config.agent), shard.task_set, **options)
        if hasattr(agent, "close"):
            stack.callback(agent.close)
        env = where.open_env(stack, catalog, incidents=config.incidents)
        # --agent openai runs its rollouts concurrently, each in an async environment over the same source
        open_env = partial(
            AsyncToolEnvironment.open,
            catalog,
            source=where.source,
            seed=where.sim_seed,
            as_of=where.as_of,
            snapshot=where.snapshot,
            store=where.store if where.snapshot else None,
            incidents=config.incidents,
        )
        return run_task_rollouts(
            shard.tasks, agent, catalog, env, config.k, concurrency=config.concurrency, open_env=open_env
        )
