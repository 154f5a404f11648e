"""Stage 3: doubt the stored answer — re-solve the task and keep whichever solution is better.

Prior pipelines treat the stored answer as fixed; the paper re-solves every
task and replaces the answer when the new solution is judged better. Here the
re-solution is the plan re-run with every page read (``complete=True``); it is
better when it read everything where the stored run did not (some step holds
fewer records than its total count), and says something different. When both
read everything and still differ, neither is preferred and the stored answer
stays (the report counts it: the first stage should have caught it).

:func:`judge_resolution` is pure; :func:`resolve` does the one re-run.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from kopa_replay.errors import KopaError
from kopa_replay.filter.model import Planner
from kopa_replay.filter.perturb import answers_equal
from kopa_replay.synth.model import Answer, Trajectory

__all__ = ["Resolution", "stored_incomplete", "judge_resolution", "resolve"]


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


def resolve(trajectory: Trajectory, catalog: Any, env: Any, planner: Planner) -> Resolution:
    """Re-solve ``trajectory`` reading all pages and judge the result."""
    try:
        run = planner.run_plan(trajectory, catalog, env, complete=True)
    except KopaError as exc:
        return Resolution("failed", None, f"re-solve raised {type(exc).__name__}: {exc}")
    return judge_resolution(trajectory, run)
