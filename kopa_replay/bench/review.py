"""Reading a curated task set: the answer twice, what each failure mode does to it, what a reader would object to.

:func:`review` executes every curated task (:mod:`kopa_replay.bench.curated`), computes its
answer again from the world truth (:mod:`kopa_replay.bench.truth`), and runs the two
flawed baselines — :class:`~kopa_replay.bench.agents.SkipLookupAgent` (guesses the code a
lookup would give) and :class:`~kopa_replay.bench.agents.FirstPageAgent` (reads one page
of everything) — to see whether each failure mode changes the *answer*, not only the
action log. :func:`objections` are what fails the build: a tool named in the question, a
value a call returns stated in it, a code the person would not know given to the first
call, a real-time tool, a threshold that is not a round number, two parallel calls that
return the same records (one adds nothing).

``python -m kopa_replay.bench.review [domain ...]`` prints one line per task (the tool
authors of task files use while writing).
"""

from __future__ import annotations

import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from kopa_replay.bench.model import Rollout, Task
from kopa_replay.catalog.model import Catalog
from kopa_replay.synth.model import Answer, Trajectory
from kopa_replay.util import Progress, tick

__all__ = ["TaskReview", "failure_modes", "objections", "review", "truth_agrees"]

#: tools whose answers change minute to minute: the paper kept real-time data out of the benchmark
REALTIME_WORDS = ("arrival", "arrive", "realtime", "real_time", "bus_pos", "position", "citydata")


@dataclass(frozen=True)
class TaskReview:
    task: Task
    plan: Trajectory
    truth: Any
    agrees: bool
    skip_lookup_wrong: bool
    first_page_wrong: bool
    objections: tuple[str, ...]

    @property
    def modes(self) -> dict[str, bool]:
        """Whether each failure mode makes the answer wrong (the rows of :func:`failure_modes`)."""
        return {"skip_lookup": self.skip_lookup_wrong, "first_page": self.first_page_wrong}


def truth_agrees(task: Task, truth: Any) -> bool:
    """Whether the truth value grades right against ``task``'s answer (the grader's tolerance and normalizing)."""
    from kopa_replay.bench.grade import grade_response
    from kopa_replay.synth.export import answer_text

    if task.answer.kind == "bool" and not isinstance(truth, bool):
        return False
    text = answer_text(Answer(task.answer.kind, truth, task.answer.tolerance, unit=task.answer.unit))
    return bool(grade_response(task, Rollout(task.id, "truth", 0, text)).passed)


def failure_modes(
    tasks: Sequence[Task], plans: Sequence[Trajectory], catalog: Catalog, env: Any
) -> dict[str, dict[str, bool]]:
    """Per task: whether skipping the lookups (guessing) and whether reading only first pages gives a wrong answer."""
    from kopa_replay.bench.agents import FirstPageAgent, SkipLookupAgent, fresh
    from kopa_replay.bench.grade import grade_response

    by_id = {plan.id: plan for plan in plans}
    agents = {"skip_lookup": SkipLookupAgent(by_id), "first_page": FirstPageAgent(by_id)}
    out: dict[str, dict[str, bool]] = {}
    for task in tasks:
        row = {}
        for mode, agent in agents.items():
            fresh(env)
            answer = agent.solve(task, catalog, env)
            row[mode] = not grade_response(task, Rollout(task.id, agent.name, 0, answer)).passed
        out[task.id] = row
    return out


def objections(task: Task, plan: Trajectory, catalog: Catalog) -> list[str]:
    """What makes ``task`` not a question a person asks; [] when nothing does (see the module docstring): the
    checks every task meets (:func:`kopa_replay.bench.build.question_problems`) and the curated set's own."""
    from kopa_replay.bench.build import question_problems
    from kopa_replay.synth.exposure import round_threshold as _round

    found = question_problems(task, plan, catalog)
    for name in sorted({step.tool for step in plan.steps}):
        if any(word in name for word in REALTIME_WORDS):
            found.append(f"{name} answers in real time: kept out of the benchmark")
    if not task.who:
        found.append("no line says who asks and why")
    for junction in plan.junctions:
        cut = junction.reduction
        if cut is not None and cut.op == "threshold" and not _round(cut.threshold):
            found.append(f"the cut {cut.field} > {cut.threshold!r} is not a round number")
    groups: dict[int, list[str]] = {}
    for step in plan.steps:
        groups.setdefault(step.group, []).append(step.digest)
    for group, digests in sorted(groups.items()):
        if len(set(digests)) < len(digests):
            found.append(f"two parallel calls of group {group} return the same records: one adds nothing")
    return found


def review(
    catalog: Catalog, env: Any, world: Any, as_of: str, curated: Sequence[Any], progress: Progress | None = None
) -> list[TaskReview]:
    """Each curated task executed through ``env``, answered again from the truth of ``world`` at ``as_of``, tried
    by both flawed baselines and read for objections; ``progress`` hears each task."""
    from kopa_replay.bench.curated import execute

    out = []
    for k, item in enumerate(curated, 1):
        task, plan = execute(item, catalog, env)
        truth = _truth(item, world, as_of)
        modes = failure_modes([task], [plan], catalog, env)[task.id]
        out.append(
            TaskReview(
                task,
                plan,
                truth,
                truth_agrees(task, truth),
                modes["skip_lookup"],
                modes["first_page"],
                tuple(objections(task, plan, catalog)),
            )
        )
        tick(progress, "tasks", k, len(curated))
    return out


def _truth(item: Any, world: Any, as_of: str) -> Any:
    """The task's truth answer; a truth function that fails on the task's slots is the task file's error."""
    from kopa_replay.bench.truth import truth_answer
    from kopa_replay.errors import UsageError

    try:
        return truth_answer(item.truth, world, as_of, item.slots)
    except (LookupError, TypeError, ValueError, AttributeError, ArithmeticError) as exc:
        raise UsageError(
            f"{item.where} ({item.id}): truth function {item.truth} fails on slots {dict(item.slots)!r}: "
            f"{type(exc).__name__}: {exc}"
        ) from None


def _line(item: TaskReview) -> str:
    calls = len(item.task.reference_calls)
    flags = "".join(
        mark if on else "."
        for mark, on in (
            ("P", "parallel" in item.task.tags),
            ("G", "paged" in item.task.tags),
            ("S", item.skip_lookup_wrong),
            ("F", item.first_page_wrong),
        )
    )
    verdict = "ok" if item.agrees else f"DISAGREE truth={item.truth!r}"
    line = f"{item.task.id:<40} {calls:>3} {flags} answer={item.task.answer.value!r} {verdict}"
    return line + "".join(f"\n    ! {text}" for text in item.objections)


def summary(items: Sequence[TaskReview]) -> Mapping[str, Any]:
    """The set's shape (:func:`kopa_replay.bench.build.summary`, in short) and how many tasks fail the review."""
    from kopa_replay.bench.build import summary as shape

    facts = shape([i.task for i in items], [i.plan for i in items], {i.task.id: i.modes for i in items})
    kept = ("tasks", "calls_mean", "calls_max", "calls_at_least_14", "parallel_share", "paged", "answer_broken_by")
    return {
        **{key: facts[key] for key in kept},
        "disagree": sum(not i.agrees for i in items),
        "objections": sum(bool(i.objections) for i in items),
    }


def main(argv: Sequence[str]) -> int:
    from contextlib import ExitStack

    from kopa_replay.bench.curated import load_curated
    from kopa_replay.catalog import builtin_catalog
    from kopa_replay.env import ToolEnvironment, open_source
    from kopa_replay.sim.world import World

    as_of = "2026-09-01"
    catalog = builtin_catalog("builtin")
    with ExitStack() as stack:
        env = ToolEnvironment(catalog, stack.enter_context(open_source("sim:full", seed=0, as_of=as_of)))
        items = review(catalog, env, World(0, "full"), as_of, load_curated(domains=tuple(argv)))
    for item in items:
        print(_line(item))
    print(dict(summary(items)))
    return 0 if all(i.agrees and not i.objections for i in items) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
