"""Agents: one verb, ``solve(task, catalog, env) -> final answer text``; the calls go through ``env``.

An agent makes its calls through the :class:`~kopa_replay.env.ToolEnvironment`
it is given, so the rollout's calls are ``env.log`` (see :func:`run_rollouts`).

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

from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from kopa_replay.bench.model import Rollout, Task
from kopa_replay.catalog.model import Catalog
from kopa_replay.errors import UsageError
from kopa_replay.synth.answer import AnswerError, Branch, answer_for, evaluate
from kopa_replay.synth.export import answer_text
from kopa_replay.synth.junction import JunctionError, bound_args, derive_values
from kopa_replay.synth.model import Trajectory
from kopa_replay.synth.pager import read_pages

__all__ = ["UNKNOWN_ANSWER", "Agent", "FirstPageAgent", "OracleAgent", "SkipLookupAgent", "run_rollouts"]

#: what a baseline says when its own calls determine no answer
UNKNOWN_ANSWER = "알 수 없습니다"


class Agent(Protocol):
    """Solves one task: makes its calls through ``env`` and returns its final answer text (None: gives none)."""

    name: str

    def solve(self, task: Task, catalog: Catalog, env: Any) -> str | None: ...


class OracleAgent:
    """Replays ``task.reference_calls`` in order (one ``env.call`` each) and states the reference answer."""

    name = "oracle"

    def solve(self, task: Task, catalog: Catalog, env: Any) -> str | None:
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

    def solve(self, task: Task, catalog: Catalog, env: Any) -> str | None:
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


def run_rollouts(tasks: Sequence[Task], agent: Agent, catalog: Catalog, env: Any, k: int = 1) -> list[Rollout]:
    """``k`` rollouts of ``agent`` per task, in task order; ``env`` is reset before each."""
    if k < 1:
        raise UsageError(f"k must be at least 1, not {k}")
    rollouts = []
    for task in tasks:
        for index in range(k):
            env.reset()
            answer = agent.solve(task, catalog, env)
            rollouts.append(Rollout.from_environment(task.id, agent.name, index, answer, env))
    return rollouts
