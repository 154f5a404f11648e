"""The shipped task set, the agents by name, and one benchmark run: rollouts, grades, report.

The task set lives in the package (``kopa_replay/bench/data``): ``tasks.jsonl``
(one :class:`~kopa_replay.bench.model.Task` per line), ``plans.jsonl`` (the
trajectory behind each task, which the baseline agents run) and ``build.json``
(how :func:`kopa_replay.bench.build.build_tasks` made them). Another set in the
same layout is read from a directory with :func:`load_task_set`.

:func:`benchmark_requests` is every distinct call the oracle and the two
failure-mode baselines make; ``kopa-replay record`` records them into the
snapshot beside the probe workload, so those agents run offline on it.

A run is :func:`run_task_rollouts` (the rollouts of some tasks: all of them, or
one shard, in another process) then :func:`merge_benchmark` (grades and report
from every shard's rollouts); :func:`run_benchmark` is the two in one. A rollout
depends only on its task and index (the environment is rewound before each), so
shards merged give the same bytes as one run.
"""

from __future__ import annotations

import asyncio
import json
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kopa_replay.bench.agents import (
    Agent,
    FirstPageAgent,
    OracleAgent,
    SkipLookupAgent,
    is_asynchronous,
    run_rollouts,
    run_rollouts_async,
)
from kopa_replay.bench.grade import grade_all
from kopa_replay.bench.model import Grade, Rollout, Task, is_stale
from kopa_replay.bench.report import report
from kopa_replay.catalog.model import Catalog
from kopa_replay.errors import UsageError
from kopa_replay.synth.model import Trajectory
from kopa_replay.util import write_atomic

__all__ = [
    "AGENTS",
    "BUILTIN_DIR",
    "BenchRun",
    "TaskSet",
    "benchmark_requests",
    "benchmark_workload",
    "load_task_set",
    "make_agent",
    "merge_benchmark",
    "run_benchmark",
    "run_task_rollouts",
    "save_task_set",
]

#: the shipped task set
BUILTIN_DIR = Path(__file__).resolve().parent / "data"
#: the ``--agent`` names
AGENTS = ("oracle", "skip-lookup", "first-page", "openai", "transformers")


@dataclass(frozen=True)
class TaskSet:
    """Tasks and the plans behind them (keyed by task id), and where they were read from."""

    tasks: tuple[Task, ...]
    plans: Mapping[str, Trajectory]
    source: str
    build: Mapping[str, Any]

    @property
    def world(self) -> str:
        """The simulator world the tasks were built over (a task set of before worlds were named: the small one)."""
        return str(self.build.get("world", "default"))

    def select(
        self, *, split: str | None = None, domain: str | None = None, ids: Sequence[str] = (), stale: bool = False
    ) -> "TaskSet":
        """The tasks of one split / domain / the given ids (each filter optional); an empty result is an error.

        A task tagged ``stale:…`` (:func:`~kopa_replay.bench.model.is_stale`: its plan does not run on the snapshot
        the set is pinned to) is left out unless ``stale`` or named in ``ids``: its answer is the old snapshot's.
        """
        known = {task.id for task in self.tasks}
        unknown = sorted(set(ids) - known)
        if unknown:
            raise UsageError(f"no task {', '.join(unknown)} in {self.source}")
        tasks = tuple(
            task
            for task in self.tasks
            if (split is None or task.split == split)
            and (domain is None or task.domain == domain)
            and (not ids or task.id in ids)
            and (stale or task.id in ids or not is_stale(task))
        )
        if not tasks and not stale and self.select(split=split, domain=domain, ids=ids, stale=True).tasks:
            raise UsageError(
                f"every task of {self.source} that matches split={split!r} domain={domain!r} is "
                "tagged stale: (its plan no longer runs on the snapshot the set is pinned to); "
                "--include-stale runs them"
            )
        if not tasks:
            raise UsageError(f"no task of {self.source} matches split={split!r} domain={domain!r}")
        return TaskSet(tasks, self.plans, self.source, self.build)


def _read_rows(path: Path) -> list[tuple[int, dict[str, Any]]]:
    if not path.exists():
        raise UsageError(f"no task file {path}")
    rows = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except ValueError as exc:
            raise UsageError(f"{path}:{number}: not JSON ({exc})") from None
        if not isinstance(row, dict):
            raise UsageError(f"{path}:{number}: a line must be a JSON object")
        rows.append((number, row))
    return rows


def _parse(path: Path, make: Callable[[Mapping[str, Any]], Any]) -> list[Any]:
    out = []
    for number, row in _read_rows(path):
        try:
            out.append(make(row))
        except UsageError as exc:
            raise UsageError(f"{path}:{number}: {exc}") from None
        except (KeyError, TypeError, ValueError) as exc:
            raise UsageError(f"{path}:{number}: not a valid entry ({type(exc).__name__}: {exc})") from None
    return out


def load_task_set(directory: str | Path | None = None) -> TaskSet:
    """The task set in ``directory`` (``tasks.jsonl``, optional ``plans.jsonl``); default the shipped one."""
    root = Path(directory) if directory is not None else BUILTIN_DIR
    if not root.is_dir():
        raise UsageError(f"no task set directory {root}")
    tasks = _parse(root / "tasks.jsonl", Task.from_dict)
    ids = [task.id for task in tasks]
    duplicates = sorted({i for i in ids if ids.count(i) > 1})
    if duplicates:
        raise UsageError(f"{root / 'tasks.jsonl'}: duplicate task ids {', '.join(duplicates)}")
    plans_path = root / "plans.jsonl"
    plans = {plan.id: plan for plan in _parse(plans_path, Trajectory.from_dict)} if plans_path.exists() else {}
    build_path = root / "build.json"
    build = json.loads(build_path.read_text(encoding="utf-8")) if build_path.exists() else {}
    label = "the shipped task set" if directory is None else str(root)
    return TaskSet(tuple(tasks), plans, label, build)


def save_task_set(
    directory: str | Path, tasks: Sequence[Task], plans: Sequence[Trajectory], build: Mapping[str, Any]
) -> Path:
    """Write ``tasks.jsonl``, ``plans.jsonl`` and ``build.json`` (sorted keys: byte-identical rebuilds)."""
    from kopa_replay.synth.export import write_jsonl

    root = Path(directory)
    root.mkdir(parents=True, exist_ok=True)
    write_jsonl(root / "tasks.jsonl", [task.to_dict() for task in tasks])
    write_jsonl(root / "plans.jsonl", plans)
    write_atomic(root / "build.json", json.dumps(dict(build), ensure_ascii=False, sort_keys=True, indent=2) + "\n")
    return root


def make_agent(name: str, task_set: TaskSet, **options: Any) -> Agent:
    """The agent called ``name`` (one of :data:`AGENTS`); ``options`` go to the model-backed ones.

    ``openai`` takes ``base_url``, ``model`` and optionally ``api_key``, ``store``, ``snapshot``, ``mode``,
    ``top_k``, ``max_turns``; ``transformers`` takes ``model_path``, ``top_k``, ``max_turns``.
    """
    if name == "oracle":
        return OracleAgent()
    if name in ("skip-lookup", "first-page"):
        missing = [task.id for task in task_set.tasks if task.id not in task_set.plans]
        if missing:
            raise UsageError(
                f"agent {name!r} runs each task's plan, and {task_set.source} has none for "
                f"{', '.join(missing[:5])}{' …' if len(missing) > 5 else ''} (plans.jsonl)"
            )
        return (SkipLookupAgent if name == "skip-lookup" else FirstPageAgent)(task_set.plans)
    if name == "openai":
        from kopa_replay.bench.chat_agent import openai_agent

        if not options.get("base_url") or not options.get("model"):
            raise UsageError("agent 'openai' needs --llm-url and --llm-model (or KOPA_LLM_URL / KOPA_LLM_MODEL)")
        return openai_agent(options.pop("base_url"), options.pop("model"), **options)
    if name == "transformers":
        from kopa_replay.bench.chat_agent import transformers_agent

        if not options.get("model_path"):
            raise UsageError("agent 'transformers' needs --model-path (a local checkpoint directory)")
        return transformers_agent(options.pop("model_path"), **options)
    raise UsageError(f"unknown agent {name!r} (one of {', '.join(AGENTS)})")


@dataclass(frozen=True)
class BenchRun:
    """One run: the rollouts, their grades, and the report."""

    rollouts: tuple[Rollout, ...]
    grades: tuple[Grade, ...]
    report: dict[str, Any]


def run_task_rollouts(
    tasks: Sequence[Task],
    agent: Agent,
    catalog: Catalog,
    env: Any,
    k: int = 1,
    *,
    concurrency: int = 1,
    open_env: Callable[[], Any] | None = None,
) -> tuple[Rollout, ...]:
    """``k`` rollouts of ``agent`` per task of ``tasks`` (a whole run's, or one shard of them), in task order,
    then index.

    An agent that waits on a model server (``openai``: see :func:`~kopa_replay.bench.agents.is_asynchronous`)
    runs up to ``concurrency`` rollouts at once when ``open_env`` opens an
    :class:`~kopa_replay.env.AsyncToolEnvironment` over the source ``env`` reads
    (:func:`~kopa_replay.bench.agents.run_rollouts_async`); every other agent runs one rollout at a time through
    ``env``. The rollouts are the same either way.
    """
    if concurrency < 1:
        raise UsageError(f"concurrency must be at least 1, not {concurrency}")
    missing = sorted({tool for task in tasks for tool, _ in task.reference_calls if tool not in catalog})
    if missing:
        raise UsageError(f"the tasks call tools this catalog lacks: {', '.join(missing[:8])}")
    if open_env is not None and is_asynchronous(agent):
        return tuple(asyncio.run(run_rollouts_async(tasks, agent, catalog, open_env, k, concurrency)))
    return tuple(run_rollouts(tasks, agent, catalog, env, k))


def merge_benchmark(tasks: Sequence[Task], rollouts: Iterable[Rollout]) -> BenchRun:
    """The run of ``tasks`` from their rollouts (those of every shard, in any order): the rollouts in task order,
    then index, graded on all three axes, and the report — the same as one :func:`run_benchmark` over ``tasks``.

    Every task needs a rollout, and each (task, index) comes once, from one agent (else :class:`UsageError`).
    """
    position = {task.id: i for i, task in enumerate(tasks)}
    ordered = sorted(rollouts, key=lambda r: (position.get(r.task_id, len(position)), r.task_id, r.index))
    unknown = sorted({r.task_id for r in ordered} - set(position))
    if unknown:
        raise UsageError(f"rollouts of tasks that are not in the run: {', '.join(unknown[:8])}")
    seen = Counter((r.task_id, r.index) for r in ordered)
    twice = [f"{task} #{index}" for (task, index), n in sorted(seen.items()) if n > 1]
    if twice:
        raise UsageError(f"rollouts given more than once (shards overlap?): {', '.join(twice[:8])}")
    present = {task_id for task_id, _ in seen}
    lacking = [task.id for task in tasks if task.id not in present]
    if lacking:
        raise UsageError(f"no rollout of task {', '.join(lacking[:8])}{' …' if len(lacking) > 8 else ''}")
    agents = sorted({r.agent for r in ordered})
    if len(agents) > 1:
        raise UsageError(f"rollouts of several agents cannot make one run: {', '.join(agents)}")
    grades = grade_all(tasks, ordered)
    return BenchRun(tuple(ordered), tuple(grades), report(tasks, grades))


def run_benchmark(
    tasks: Sequence[Task],
    agent: Agent,
    catalog: Catalog,
    env: Any,
    k: int = 1,
    *,
    concurrency: int = 1,
    open_env: Callable[[], Any] | None = None,
) -> BenchRun:
    """``k`` rollouts of ``agent`` per task through ``env`` (see :func:`run_task_rollouts` for ``concurrency``
    and ``open_env``), graded on all three axes, and the report: :func:`merge_benchmark` of one shard."""
    return merge_benchmark(
        tasks, run_task_rollouts(tasks, agent, catalog, env, k, concurrency=concurrency, open_env=open_env)
    )


def benchmark_requests(task_set: TaskSet, catalog: Catalog, env: Any) -> list[tuple[str, dict[str, Any]]]:
    """Every distinct (tool, args) the oracle and the two baselines make over ``task_set``, and the plans when
    re-run on ``env`` (on a later source they may hand on other values: ``bench drift`` re-runs them), first use
    first."""
    from kopa_replay.errors import KopaError
    from kopa_replay.synth.plan import page_calls, run_plan

    agents: list[Agent] = [OracleAgent()]
    if all(task.id in task_set.plans for task in task_set.tasks):
        agents += [SkipLookupAgent(task_set.plans), FirstPageAgent(task_set.plans)]
    seen: set[str] = set()
    out: list[tuple[str, dict[str, Any]]] = []

    def add(tool: str, args: Mapping[str, Any]) -> None:
        key = json.dumps([tool, args], sort_keys=True, ensure_ascii=False, default=str)
        if key not in seen:
            seen.add(key)
            out.append((tool, dict(args)))

    for agent in agents:
        for rollout in run_rollouts(task_set.tasks, agent, catalog, env, 1):
            for tool, args, _ in rollout.calls:
                add(tool, args)
    for task in task_set.tasks:
        plan = task_set.plans.get(task.id)
        if plan is None:
            continue
        try:
            run = run_plan(plan, catalog, env)
        except KopaError:
            continue  # a plan this source cannot run: bench drift reports it
        for call in page_calls(run):
            add(call["tool"], call["args"])
    return out


def benchmark_workload(
    catalog: Catalog,
    *,
    source: str = "sim",
    seed: int = 0,
    as_of: Any = None,
    mirrors: Mapping[str, str] | None = None,
    task_set: TaskSet | None = None,
) -> list[tuple[str, dict[str, Any]]]:
    """:func:`benchmark_requests` of the shipped task set (or ``task_set``), found by running the agents on
    ``source`` without recording; ``[]`` when the catalog lacks a tool the tasks call (another catalog)."""
    from kopa_replay.env import ToolEnvironment, open_source

    task_set = task_set or load_task_set()
    if any(tool not in catalog for task in task_set.tasks for tool, _ in task.reference_calls):
        return []
    with open_source(source, seed=seed, as_of=as_of, mirrors=mirrors, catalog=catalog) as src:
        return benchmark_requests(task_set, catalog, ToolEnvironment(catalog, src))
