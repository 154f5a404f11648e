"""Agents: one verb, ``solve(task, catalog, env, rollout) -> final answer text``; the calls go through ``env``.

An agent makes its calls through the :class:`~kopa_replay.env.ToolEnvironment`
it is given, so the rollout's calls are ``env.log`` (see :func:`run_rollouts`).
An agent that waits on a model server (``asynchronous``: the ``openai`` chat
agent) also has ``solve_async``, which :func:`run_rollouts_async` runs several
of at once, each rollout in its own :class:`~kopa_replay.env.AsyncToolEnvironment`.
Either way the environment is rewound before each rollout (:func:`fresh`), so a
rollout's calls, answers and state digest do not depend on which rollouts ran
before it, nor beside it.

* :class:`OracleAgent` replays the task's reference calls in order with the
  reference arguments and states the reference answer: it passes all three axes.
* :class:`SkipLookupAgent` runs the reference plan but never calls a step whose
  output a junction hands on (the prerequisite code lookup); each value that
  junction would hand over is *guessed* from what the question gives — the start
  argument of the same name, else the first name-like start argument (a company
  or school name where a code is needed). It answers with what its own calls
  compute, or says it cannot. Fails ACTION on every task with a lookup.
* :class:`FirstPageAgent` runs the reference plan reading only the first page of
  every step, hands on values from that page, and answers from the partial data.
  Fails ACTION (and usually RESPONSE) on every task whose reference read more
  than one page; a task read in single pages it solves like the oracle.

The two baselines need the reference *plan* (junctions, answer spec, page
budget), which a :class:`~kopa_replay.bench.model.Task` does not carry: they are
built with the trajectories the tasks came from, keyed by task id (= trajectory
id, see :func:`kopa_replay.bench.tasks.task_from_trajectory`).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol

from kopa_replay.bench.model import Rollout, Task
from kopa_replay.catalog.model import Catalog
from kopa_replay.errors import UsageError
from kopa_replay.synth.answer import AnswerError, Branch, answer_for, evaluate
from kopa_replay.synth.export import answer_text
from kopa_replay.synth.junction import JunctionError, bound_args, derive_values
from kopa_replay.synth.model import Trajectory
from kopa_replay.synth.pager import read_pages

__all__ = [
    "UNKNOWN_ANSWER",
    "Agent",
    "FirstPageAgent",
    "OracleAgent",
    "SkipLookupAgent",
    "fresh",
    "is_asynchronous",
    "run_rollouts",
    "run_rollouts_async",
]

#: what a baseline says when its own calls determine no answer
UNKNOWN_ANSWER = "알 수 없습니다"


class Agent(Protocol):
    """Solves one task: makes its calls through ``env`` and returns its final answer text (None: gives none).

    ``rollout`` is which attempt at the task this is (0 … k - 1); a model-backed agent keys its recorded
    completions by it, the deterministic ones ignore it.
    """

    name: str

    def solve(self, task: Task, catalog: Catalog, env: Any, rollout: int = 0) -> str | None: ...


class OracleAgent:
    """Replays ``task.reference_calls`` in order (one ``env.call`` each) and states the reference answer."""

    name = "oracle"

    def solve(self, task: Task, catalog: Catalog, env: Any, rollout: int = 0) -> str | None:
        for tool, args in task.reference_calls:
            env.call(tool, dict(args))
        return answer_text(task.answer)


class _PlanAgent:
    """Runs a task's reference plan with a flaw; ``plans`` maps task id to its trajectory."""

    name = ""
    skip_lookups = False  # skip every step a junction hands values from, guessing the values
    pages: int | None = None  # read at most this many pages per step (None: the plan's page budget)

    def __init__(self, plans: Mapping[str, Trajectory]) -> None:
        self.plans = dict(plans)

    def plan(self, task: Task) -> Trajectory:
        try:
            return self.plans[task.id]
        except KeyError as exc:
            raise UsageError(f"agent {self.name!r} has no reference plan for task {task.id}") from exc

    def solve(self, task: Task, catalog: Catalog, env: Any, rollout: int = 0) -> str | None:
        return _run(self.plan(task), catalog, env, skip_lookups=self.skip_lookups, pages=self.pages)


class SkipLookupAgent(_PlanAgent):
    """Skips every prerequisite lookup and guesses the value it would hand on (see the module docstring)."""

    name = "skip-lookup"
    skip_lookups = True


class FirstPageAgent(_PlanAgent):
    """Reads only the first page of every step and answers from it (see the module docstring)."""

    name = "first-page"
    pages = 1


def _guess(start: Mapping[str, Any], binding: Mapping[str, str]) -> Any:
    """What the question gives for the bound parameters: the same-named start argument, else a name."""
    names = [v for v in start.values() if isinstance(v, str) and v and not v.isdigit()]
    fallback = names[0] if names else next(iter(start.values()), "")
    guessed = {param: start.get(param, fallback) for param in sorted(binding)}
    return guessed if len(guessed) > 1 else next(iter(guessed.values()))


def _run(plan: Trajectory, catalog: Catalog, env: Any, *, skip_lookups: bool, pages: int | None) -> str:
    """Execute ``plan`` group by group (group k + 1 is junction k's target), with the agent's flaw."""
    budget = int(plan.meta.get("fan_out_budget", 5))
    max_pages = pages or int(plan.meta.get("page_budget", 5))
    sources = {junction.source for junction in plan.junctions}
    start = plan.steps[0]
    groups: list[list[Branch]] = []

    def read(tool: str, args: Mapping[str, Any], value: Any, skip: bool) -> list[Branch]:
        if skip:
            return [Branch([], None, False, value)]
        result = read_pages(env, catalog.get(tool), args, max_pages)
        return [Branch(result.records, result.total_count, result.complete, value)]

    groups.append(read(start.tool, start.args, None, skip_lookups and start.index in sources))
    for junction in plan.junctions:
        source_group = plan.steps[junction.source].group
        records = [record for branch in groups[source_group] for record in branch.records]
        if skip_lookups:
            values = [_guess(start.args, junction.binding)]
        else:
            try:
                values = derive_values(records, junction.binding, junction.reduction, budget)
            except JunctionError:
                return UNKNOWN_ANSWER
        target = plan.steps[junction.target]
        beside = {p: v for p, v in target.args.items() if p not in junction.binding}
        skip = skip_lookups and junction.target in sources
        group: list[Branch] = []
        for value in values:
            try:
                args = {**beside, **bound_args(junction.binding, value)}
            except JunctionError:
                return UNKNOWN_ANSWER
            group += read(target.tool, args, value, skip)
        groups.append(group)
    spec = plan.meta.get("answer_spec")
    if not spec:
        raise UsageError(f"trajectory {plan.id} lacks meta['answer_spec']: was it made by synthesize()?")
    try:
        return answer_text(answer_for(spec, evaluate(spec, groups), plan.answer.unit))
    except (AnswerError, KeyError, IndexError, TypeError, ValueError, ZeroDivisionError):
        return UNKNOWN_ANSWER


def fresh(env: Any) -> None:
    """Before a rollout: ``env`` as if freshly opened (``rewind``: no log, the source's per-request counters
    forgotten), or, for an environment that cannot rewind, its log forgotten (``reset``)."""
    rewind = getattr(env, "rewind", None)
    (rewind if rewind is not None else env.reset)()


def is_asynchronous(agent: Any) -> bool:
    """Whether ``agent`` has ``solve_async`` to run beside others (:func:`run_rollouts_async`)."""
    return bool(getattr(agent, "asynchronous", False)) and hasattr(agent, "solve_async")


def _check_k(k: int) -> None:
    if k < 1:
        raise UsageError(f"k must be at least 1, not {k}")


def run_rollouts(tasks: Sequence[Task], agent: Agent, catalog: Catalog, env: Any, k: int = 1) -> list[Rollout]:
    """``k`` rollouts of ``agent`` per task, one at a time, in task order; ``env`` is rewound (:func:`fresh`)
    before each."""
    _check_k(k)
    rollouts = []
    for task in tasks:
        for index in range(k):
            fresh(env)
            answer = agent.solve(task, catalog, env, index)
            rollouts.append(Rollout.from_environment(task.id, agent.name, index, answer, env))
    return rollouts


async def run_rollouts_async(
    tasks: Sequence[Task],
    agent: Any,
    catalog: Catalog,
    open_env: Callable[[], Any],
    k: int = 1,
    concurrency: int = 8,
) -> list[Rollout]:
    """:func:`run_rollouts` for an :func:`asynchronous <is_asynchronous>` agent, at most ``concurrency``
    rollouts in flight at once.

    ``open_env()`` opens an :class:`~kopa_replay.env.AsyncToolEnvironment` (each over its own source): one per
    rollout that can be in flight, each rewound (:func:`fresh`) before every rollout it runs, all closed at the
    end, with the agent's ``aclose`` (when it has one). Each rollout has its own log and state digest, and the
    rollouts come back in task order, then index: the same list whatever ``concurrency`` and whatever order the
    answers arrive in. When rollouts fail, the others in flight are cancelled and the failure of the earliest
    job in task order is raised.
    """
    _check_k(k)
    if concurrency < 1:
        raise UsageError(f"concurrency must be at least 1, not {concurrency}")
    jobs = [(task, index) for task in tasks for index in range(k)]
    results: list[Rollout | None] = [None] * len(jobs)
    failures: dict[int, Exception] = {}
    pending = iter(enumerate(jobs))  # shared by the workers: each job is taken once, in order

    async def work(env: Any) -> None:
        for position, (task, index) in pending:
            fresh(env)
            try:
                answer = await agent.solve_async(task, catalog, env, index)
            except Exception as exc:
                failures[position] = exc
                raise
            results[position] = Rollout.from_environment(task.id, agent.name, index, answer, env)

    envs: list[Any] = []
    try:
        for _ in range(min(concurrency, len(jobs))):
            envs.append(open_env())
        try:
            async with asyncio.TaskGroup() as group:
                for env in envs:
                    group.create_task(work(env))
        except BaseExceptionGroup:
            if failures:
                raise failures[min(failures)] from None
            raise
    finally:
        for env in envs:
            await env.aclose()
        closer = getattr(agent, "aclose", None)  # what solve_async opened in this event loop
        if closer is not None:
            await closer()
    done = [rollout for rollout in results if rollout is not None]
    assert len(done) == len(jobs)  # every job ran: a failure raised above
    return done
