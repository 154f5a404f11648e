"""The three filter stages over a list of trajectories: rules → two judges → re-solve.

``run_filter(trajectories, catalog, env)`` returns what was kept, every
discard with its reason ``(trajectory_id, stage, check, detail)``, every
replaced answer, and a report of counts per stage and check. With
``exclude=f`` a stage ``decontaminate`` runs first: ``f(trajectory)`` returns
the reason an item must go (the benchmark task it repeats: the
:class:`kopa_replay.bench.contamination.Decontaminator`, which this module
never imports) or None; each drop is a discard ``(id, "decontaminate",
"benchmark_task", reason)``. The planner (by
default :mod:`kopa_replay.synth.walk`: ``run_plan``, ``candidate_values``,
``Perturbation``) is passed in, so the decision logic can be tested with fakes.
"""

from __future__ import annotations

import dataclasses
import importlib
from collections.abc import Callable, Sequence
from typing import Any

from kopa_replay.errors import KopaError, UsageError
from kopa_replay.filter.judges import default_judges
from kopa_replay.filter.model import (
    DECONTAMINATION_CHECK,
    JUDGE_CHECKS,
    RULE_CHECKS,
    Case,
    Discard,
    FilterConfig,
    FilterResult,
    Judge,
    Planner,
    Replacement,
    Solver,
    verdict_summary,
)
from kopa_replay.filter.resolve import resolve
from kopa_replay.filter.rules import malformed, near_duplicates, reproduce
from kopa_replay.synth.model import Answer, Trajectory
from kopa_replay.synth.plan import decided_figure
from kopa_replay.util import Progress, tick

__all__ = ["FilterConfig", "run_filter", "default_planner", "make_case"]


def default_planner() -> Planner:
    """:mod:`kopa_replay.synth.walk`, imported when first needed (it executes tools; the rules do not)."""
    return importlib.import_module("kopa_replay.synth.walk")


def make_case(trajectory: Trajectory, catalog: Any, env: Any, planner: Planner) -> Case:
    """A judge's view of one item, with a probe that re-runs its plan with one junction's values replaced."""

    def candidates(junction: int) -> tuple:
        try:
            return tuple(planner.candidate_values(trajectory, catalog, env, junction))
        except KopaError:
            return ()  # no alternative could be read: the junction is untestable, not convicted

    def figure(run: Any) -> Answer | None:
        return decided_figure(trajectory, run)

    def perturbed(junction: int, values: tuple) -> Answer | None:
        perturbation = planner.Perturbation(junction, tuple(values))  # type: ignore[attr-defined]
        try:
            run = planner.run_plan(trajectory, catalog, env, perturb=perturbation)
        except KopaError:
            return None  # the plan broke under these values: the judges take that as no evidence
        return figure(run) if run.ok else None

    def reference() -> Answer | None:
        try:
            run = planner.run_plan(trajectory, catalog, env)
        except KopaError:
            return None
        return figure(run) if run.ok else None

    # a yes/no threshold is compared on the figure it tests, which the stored answer does not carry
    spec = trajectory.meta.get("answer_spec") or {}
    needs_reference = spec.get("op") == "threshold" and isinstance(spec.get("of"), dict)
    return Case(trajectory, catalog, candidates, perturbed, reference if needs_reference else None)


def _check_judges(judges: Sequence[Judge]) -> None:
    if len(judges) < 2:
        raise UsageError(f"the second filter stage needs at least two independent judges, got {len(judges)}")
    names = [getattr(j, "name", None) for j in judges]
    for judge, name in zip(judges, names):
        if not isinstance(name, str) or not name or not callable(getattr(judge, "judge", None)):
            raise UsageError(f"judge {judge!r} needs a non-empty 'name' and a 'judge(check, case)' method")
    if len(set(names)) != len(names):
        raise UsageError(f"judge names must differ (got {names}): discards quote each judge by name")


def _judge(case: Case, judges: Sequence[Judge], disagreed: dict[str, list[str]]) -> Discard | None:
    """The first check every judge votes to discard on; split votes are noted and the item is kept."""
    for check in JUDGE_CHECKS:
        verdicts = [(judge.name, judge.judge(check, case)) for judge in judges]
        votes = sum(v.discard for _, v in verdicts)
        if votes == len(verdicts):
            return Discard(case.trajectory.id, "judges", check, verdict_summary(verdicts))
        if votes:
            disagreed[check].append(case.trajectory.id)
    return None


def run_filter(
    trajectories: Sequence[Trajectory],
    catalog: Any,
    env: Any,
    judges: Sequence[Judge] | None = None,
    *,
    config: FilterConfig | None = None,
    planner: Planner | None = None,
    exclude: Callable[[Trajectory], str | None] | None = None,
    progress: Progress | None = None,
    solver: Solver | None = None,
) -> FilterResult:
    """Run the three stages (after decontamination with ``exclude``); input trajectories are never modified.

    ``solver`` (a model solving each item again with the tools) makes stage 3's re-solution its solution, judged
    against a complete re-run (:func:`~kopa_replay.filter.resolve.judge_solution`).

    ``progress`` hears each item each stage has checked (:data:`kopa_replay.util.Progress`).

    The report's ``decontaminated`` is how many items ``exclude`` dropped (None without it),
    ``decontaminated_against`` the hook's ``name`` (when it has one); its stage ``decontaminate`` lists each
    (id, reason).
    """
    config = config or FilterConfig()
    judges = tuple(judges) if judges is not None else default_judges()
    _check_judges(judges)
    ids = [t.id for t in trajectories]
    if len(set(ids)) != len(ids):
        dup = sorted({i for i in ids if ids.count(i) > 1})
        raise UsageError(f"trajectory ids must be unique; repeated: {', '.join(map(str, dup[:5]))}")
    planner = planner if planner is not None else default_planner()
    discarded: list[Discard] = []
    clean, decontaminating = _decontaminate_stage(trajectories, exclude, discarded)
    survivors, rules = _rules_stage(clean, catalog, env, planner, config, discarded, progress)
    judged, judging = _judges_stage(survivors, catalog, env, planner, judges, discarded, progress)
    kept, replaced, resolving = _resolve_stage(judged, catalog, env, planner, config, progress, solver)
    report: dict[str, Any] = {
        "input": len(trajectories),
        "kept": len(kept),
        "discarded": len(discarded),
        "replaced": len(replaced),
        "decontaminated": decontaminating["discarded"] if exclude is not None else None,
        "decontaminated_against": getattr(exclude, "name", None),
        "judges": [j.name for j in judges],
        "solver": solver.name if solver is not None else "complete re-run",
        "config": dataclasses.asdict(config),
        "stages": {"decontaminate": decontaminating, "rules": rules, "judges": judging, "resolve": resolving},
    }
    return FilterResult(kept, discarded, replaced, report)


def _decontaminate_stage(
    trajectories: Sequence[Trajectory], exclude: Callable[[Trajectory], str | None] | None, discarded: list[Discard]
) -> tuple[list[Trajectory], dict[str, Any]]:
    """Drop every item ``exclude`` gives a reason for; without ``exclude`` everything passes (``applied``: false)."""
    survivors: list[Trajectory] = []
    items: list[dict[str, str]] = []
    for trajectory in trajectories:
        reason = exclude(trajectory) if exclude is not None else None
        if reason is None:
            survivors.append(trajectory)
            continue
        discarded.append(Discard(trajectory.id, "decontaminate", DECONTAMINATION_CHECK, str(reason)))
        items.append({"id": trajectory.id, "reason": str(reason)})
    return survivors, {
        "in": len(trajectories),
        "out": len(survivors),
        "applied": exclude is not None,
        "discarded": len(items),
        "items": items,
    }


def _rules_stage(
    trajectories: Sequence[Trajectory],
    catalog: Any,
    env: Any,
    planner: Planner,
    config: FilterConfig,
    discarded: list[Discard],
    progress: Progress | None = None,
) -> tuple[list[Trajectory], dict[str, Any]]:
    counts = dict.fromkeys(RULE_CHECKS, 0)
    survivors: list[Trajectory] = []
    for done, trajectory in enumerate(trajectories):
        tick(progress, "filter: rules", done, len(trajectories))
        problem, check = malformed(trajectory, catalog), "malformed"
        if problem is None and config.reproduce:
            problem, check = reproduce(trajectory, catalog, env, planner), "not_reproducible"
        if problem is not None:
            discarded.append(Discard(trajectory.id, "rules", check, problem))
            counts[check] += 1
        else:
            survivors.append(trajectory)
    # duplicates are looked for only among items that are otherwise sound, so a broken first copy
    # does not take a sound second one down with it
    duplicates = near_duplicates(survivors, catalog, threshold=config.duplicate_threshold, n=config.ngram)
    for trajectory in survivors:
        if trajectory.id in duplicates:
            discarded.append(Discard(trajectory.id, "rules", "near_duplicate", duplicates[trajectory.id]))
            counts["near_duplicate"] += 1
    survivors = [t for t in survivors if t.id not in duplicates]
    return survivors, {"in": len(trajectories), "out": len(survivors), "discarded": counts}


def _judges_stage(
    items: Sequence[Trajectory],
    catalog: Any,
    env: Any,
    planner: Planner,
    judges: Sequence[Judge],
    discarded: list[Discard],
    progress: Progress | None = None,
) -> tuple[list[Trajectory], dict[str, Any]]:
    counts = dict.fromkeys(JUDGE_CHECKS, 0)
    disagreed: dict[str, list[str]] = {check: [] for check in JUDGE_CHECKS}
    runs = 0
    judged: list[Trajectory] = []
    for done, trajectory in enumerate(items):
        tick(progress, "filter: judges", done, len(items))
        case = make_case(trajectory, catalog, env, planner)
        verdict = _judge(case, judges, disagreed)
        runs += case.runs
        if verdict is None:
            judged.append(trajectory)
        else:
            discarded.append(verdict)
            counts[verdict.check] += 1
    return judged, {
        "in": len(items),
        "out": len(judged),
        "discarded": counts,
        "disagreements": {c: len(ids) for c, ids in disagreed.items()},
        "disagreed": disagreed,
        "probe_runs": runs,
    }


def _resolve_stage(
    items: Sequence[Trajectory],
    catalog: Any,
    env: Any,
    planner: Planner,
    config: FilterConfig,
    progress: Progress | None = None,
    solver: Solver | None = None,
) -> tuple[list[Trajectory], list[Replacement], dict[str, Any]]:
    kept: list[Trajectory] = []
    replaced: list[Replacement] = []
    outcomes = {"replaced": 0, "agrees": 0, "failed": 0, "differs_kept": 0, "skipped": 0}
    for done, trajectory in enumerate(items):
        tick(progress, "filter: re-solve", done, len(items))
        if not config.resolve:
            outcomes["skipped"] += 1
            kept.append(trajectory)
            continue
        resolution = resolve(trajectory, catalog, env, planner, solver)
        outcomes[resolution.outcome] += 1
        if resolution.outcome == "replaced" and resolution.answer is not None:
            replaced.append(Replacement(trajectory.id, trajectory.answer, resolution.answer, resolution.reason))
            meta = {
                **trajectory.meta,
                "answer_replaced": {"old": dataclasses.asdict(trajectory.answer), "reason": resolution.reason},
            }
            trajectory = dataclasses.replace(trajectory, answer=resolution.answer, meta=meta)
        kept.append(trajectory)
    return kept, replaced, {"in": len(items), **outcomes}
