"""Stage 3: doubt the stored answer — re-solve the task and keep whichever solution is better.

Prior pipelines treat the stored answer as fixed; the paper re-solves every
task and replaces the answer when the new solution is judged better. Here the
re-solution is the plan re-run with every page read (``complete=True``); it is
better when it read everything where the stored run did not (some step holds
fewer records than its total count), and says something different. When both
read everything and still differ, neither is preferred and the stored answer
stays (the report counts it: the first stage should have caught it).

With a :class:`~kopa_replay.filter.model.Solver` (a model solving the task again
with the tools, as the paper's third stage does), its solution is the
re-solution, and execution judges which answer is better: the solver agrees
with the stored answer (kept); it gives the answer a complete re-run computes
and the stored one differs (replaced by the re-run's answer); or it gives
neither (kept, counted: a model's slip is no evidence against an executed
answer).

:func:`judge_resolution` is pure; :func:`resolve` does the one re-run (and asks the solver).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from kopa_replay.errors import KopaError
from kopa_replay.filter.model import Planner, Solver
from kopa_replay.filter.perturb import answers_equal
from kopa_replay.synth.model import Answer, Trajectory

__all__ = ["Resolution", "stored_incomplete", "judge_resolution", "judge_solution", "resolve"]


@dataclass(frozen=True)
class Resolution:
    """``outcome`` is ``replaced``, ``agrees``, ``failed`` (re-solve gave no answer) or ``differs_kept``."""

    outcome: str
    answer: Answer | None
    reason: str


def stored_incomplete(trajectory: Trajectory) -> list[int]:
    """Steps of the stored run that hold fewer records than their total count (unread pages)."""
    if trajectory.meta.get("complete") is False:
        return [s.index for s in trajectory.steps] or [0]
    return [
        s.index
        for s in trajectory.steps
        if s.total_count is not None and s.outcome == "ok" and s.records < s.total_count
    ]


def judge_resolution(trajectory: Trajectory, run: Any) -> Resolution:
    """Compare the stored answer with a complete re-run (``PlanRun``): which one to keep, and why."""
    if run is None or not run.ok or run.answer is None:
        return Resolution("failed", None, "re-solve produced no answer")
    if answers_equal(trajectory.answer, run.answer):
        return Resolution("agrees", run.answer, "re-solution agrees")
    unread = stored_incomplete(trajectory)
    if run.complete and unread:
        return Resolution(
            "replaced",
            run.answer,
            f"re-solve read every page (stored run left steps {unread} partly unread): "
            f"{trajectory.answer.value!r} → {run.answer.value!r}",
        )
    return Resolution(
        "differs_kept",
        None,
        f"re-solution {run.answer.value!r} differs from stored {trajectory.answer.value!r} but is "
        f"not better ({'complete' if run.complete else 'incomplete'} re-run, stored run "
        f"{'incomplete' if unread else 'complete'})",
    )


def judge_solution(trajectory: Trajectory, says: Callable[[Answer], bool] | None, run: Any, name: str) -> Resolution:
    """Which answer a solver's solution (``says``: does it give this answer?) and a complete re-run support.

    A complete re-run that read what the stored run left unread is better whatever the solver says (the rule of
    :func:`judge_resolution`); otherwise the solver's solution decides, execution its judge."""
    executed = judge_resolution(trajectory, run)
    if executed.outcome == "replaced" or says is None:
        if says is None and executed.outcome != "replaced":
            return Resolution(executed.outcome, executed.answer, f"{name} reached no answer; {executed.reason}")
        return executed
    if says(trajectory.answer):
        return Resolution("agrees", trajectory.answer, f"{name} re-solution agrees")
    computed = run.answer if run is not None and run.ok else None
    if computed is not None and says(computed) and not answers_equal(trajectory.answer, computed):
        return Resolution(
            "replaced",
            computed,
            f"{name} re-solution gives {computed.value!r}, as a complete re-run does; "
            f"the stored {trajectory.answer.value!r} does not",
        )
    return Resolution(
        "differs_kept",
        None,
        f"{name} re-solution differs from the stored {trajectory.answer.value!r} and a complete re-run does not "
        "side with it",
    )


def resolve(
    trajectory: Trajectory, catalog: Any, env: Any, planner: Planner, solver: Solver | None = None
) -> Resolution:
    """Re-solve ``trajectory`` — reading all pages, and with ``solver`` when given — and judge the result."""
    try:
        run = planner.run_plan(trajectory, catalog, env, complete=True)
    except KopaError as exc:
        if solver is None:
            return Resolution("failed", None, f"re-solve raised {type(exc).__name__}: {exc}")
        run = None
    if solver is None:
        return judge_resolution(trajectory, run)
    try:
        says = solver.solve(trajectory)
    except KopaError as exc:
        return Resolution("failed", None, f"{solver.name} raised {type(exc).__name__}: {exc}")
    return judge_solution(trajectory, says, run, solver.name)
