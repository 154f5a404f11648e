"""Re-running a trajectory as a program: fresh outputs, the recorded junction rules, the recorded answer spec.

A trajectory is replayed from its start arguments; at each junction the
values are re-derived from the *fresh* source output with the recorded rule
(every distinct value of the binding, or the recorded reduction), and each
target call gets the recorded target arguments with the bound parameters
refilled. The answer is recomputed from the fresh outputs with the recorded
spec (``meta["answer_spec"]``, see :mod:`kopa_replay.synth.answer`).

The filter uses this three ways: an unperturbed re-run must reproduce the
state digest and the answer (reproducibility); a :class:`Perturbation` swaps
the values handed at one junction for others (:func:`candidate_values`) — if
the answer does not move, the intermediate call did not constrain it; and
``complete=True`` reads every page, to see whether the page budget changed
the answer.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from kopa_replay.catalog.model import Catalog
from kopa_replay.errors import UsageError
from kopa_replay.synth.answer import AnswerError, Branch, answer_for, evaluate
from kopa_replay.synth.junction import (
    JunctionError,
    bound_args,
    derive_values,
    distinct_values,
    junction_kind,
    value_key,
)
from kopa_replay.synth.model import Answer, Junction, Step, Trajectory
from kopa_replay.synth.pager import StepRead, read_pages

__all__ = [
    "ALL_PAGES",
    "Execution",
    "Perturbation",
    "PlanRun",
    "branches_of",
    "call_log",
    "candidate_values",
    "decided_figure",
    "make_step",
    "page_calls",
    "run_plan",
    "unconstrained_junction",
]

#: the page budget of a ``complete=True`` run: every page of anything this toolkit serves
ALL_PAGES = 100_000


@dataclass(frozen=True)
class Perturbation:
    """Hand ``values`` (same form as :attr:`Junction.values`) at junction number ``junction`` instead."""

    junction: int
    values: tuple


@dataclass(frozen=True)
class PlanRun:
    """What a re-run gave. ``ok``: every call succeeded and the answer spec evaluated (``answer`` is then set).
    ``complete``: every step read all of its pages."""

    steps: list[Step]
    junctions: list[Junction]
    answer: Answer | None
    state_digest: str
    ok: bool
    complete: bool
    problem: str = ""
    groups: list[list[StepRead]] = field(default_factory=list, repr=False, compare=False)


def page_calls(run: PlanRun) -> list[dict[str, Any]]:
    """Every HTTP call of a run in order, one per page read: what ``meta["calls"]`` of a plan holds."""
    reads = (read for group in run.groups for read in group)
    return [
        {"step": index, "group": step.group, "tool": read.tool, "args": dict(sorted(page.args.items()))}
        for index, (step, read) in enumerate(zip(run.steps, reads))
        for page in read.pages
    ]


def call_log(steps: Sequence[Step], groups: Sequence[Sequence[StepRead]], keep_records: int) -> list[dict[str, Any]]:
    """Every HTTP call of an execution in order, one per page, with what came back (the first ``keep_records``
    records): ``meta["calls"]`` of a synthesized trajectory, which the SFT export shows."""
    calls = []
    for step, read in zip(steps, (read for reads in groups for read in reads)):
        for page in read.pages:
            calls.append(
                {
                    "step": step.index,
                    "group": step.group,
                    "tool": page.tool,
                    "args": dict(sorted(page.args.items())),
                    "outcome": page.outcome,
                    "total_count": page.total_count,
                    "record_count": len(page.records),
                    "records": page.records[:keep_records],
                }
            )
    return calls


def make_step(index: int, group: int, read: StepRead) -> Step:
    return Step(
        index,
        read.tool,
        dict(sorted(read.args.items())),
        read.outcome,
        len(read.records),
        read.total_count,
        read.digest,
        group,
    )


def branches_of(groups: Sequence[Sequence[StepRead]], handed: Sequence[Sequence[Any]]) -> list[list[Branch]]:
    """The answer's view of executed groups: records, totals, completeness, and the value each call got."""
    return [
        [Branch(read.records, read.total_count, read.complete, value) for read, value in zip(reads, values)]
        for reads, values in zip(groups, handed)
    ]


@dataclass
class Execution:
    """Groups executed so far (shared by the walk and the re-run): reads, handed values, steps, junctions."""

    groups: list[list[StepRead]] = field(default_factory=list)
    starts: list[int] = field(default_factory=list)  # index of each group's first step
    handed: list[list[Any]] = field(default_factory=list)
    steps: list[Step] = field(default_factory=list)
    junctions: list[Junction] = field(default_factory=list)
    problem: str = ""

    def add(self, reads: list[StepRead], values: list[Any]) -> bool:
        group = len(self.groups)
        self.starts.append(len(self.steps))
        for read in reads:
            self.steps.append(make_step(len(self.steps), group, read))
        self.groups.append(reads)
        self.handed.append(values)
        failed = [read for read in reads if not read.ok]
        if failed:
            self.problem = f"step {failed[0].tool} ended {failed[0].outcome}"
        return not failed


def _records(reads: Sequence[StepRead]) -> list[dict[str, Any]]:
    return [record for read in reads for record in read.records]


def _meta_int(trajectory: Trajectory, key: str) -> int:
    try:
        return int(trajectory.meta[key])
    except (KeyError, TypeError, ValueError) as exc:
        raise UsageError(f"trajectory {trajectory.id} lacks meta[{key!r}]: was it made by synthesize()?") from exc


def _execute(
    trajectory: Trajectory,
    catalog: Catalog,
    env: Any,
    perturb: Perturbation | None,
    max_pages: int,
    until: int | None = None,
) -> Execution:
    """Run groups 0..``until`` (all when None); stop at the first failure, leaving ``problem`` set."""
    if not trajectory.steps:
        raise UsageError(f"trajectory {trajectory.id} has no steps")
    if perturb is not None and not 0 <= perturb.junction < len(trajectory.junctions):
        raise UsageError(
            f"trajectory {trajectory.id} has no junction {perturb.junction} (it has {len(trajectory.junctions)})"
        )
    budget = _meta_int(trajectory, "fan_out_budget")
    env.reset()
    run = Execution()
    start = trajectory.steps[0]
    if not run.add([read_pages(env, catalog.get(start.tool), start.args, max_pages)], [None]):
        return run
    for k, junction in enumerate(trajectory.junctions):
        if until is not None and k >= until:
            break
        # the source's group: the group before (a chain) or an earlier one (two calls that need one lookup)
        source_group = trajectory.steps[junction.source].group
        records = _records(run.groups[source_group])
        distinct = distinct_values(records, junction.binding)
        perturbed = perturb is not None and perturb.junction == k
        if perturbed:
            assert perturb is not None  # implied by perturbed
            values = list(perturb.values)
            if not values:
                run.problem = f"the perturbation of junction {k} hands over nothing"
                return run
        else:
            try:
                values = derive_values(records, junction.binding, junction.reduction, budget)
            except JunctionError as exc:
                run.problem = f"junction {k}: {exc}"
                return run
        kind = junction.kind if perturbed or junction.reduction else junction_kind(len(values), budget)
        target = trajectory.steps[junction.target]
        beside = {p: v for p, v in target.args.items() if p not in junction.binding}
        run.junctions.append(
            Junction(
                run.starts[source_group],
                len(run.steps),
                dict(junction.binding),
                kind,
                len(records),
                len(distinct),
                tuple(values),
                junction.reduction,
            )
        )
        tool = catalog.get(target.tool)
        try:
            args = [{**beside, **bound_args(junction.binding, value)} for value in values]
        except JunctionError as exc:
            run.problem = f"junction {k}: {exc}"
            return run
        if not run.add([read_pages(env, tool, a, max_pages) for a in args], values):
            return run
    return run


def run_plan(
    trajectory: Trajectory, catalog: Catalog, env: Any, *, perturb: Perturbation | None = None, complete: bool = False
) -> PlanRun:
    """Re-run ``trajectory`` through ``env`` (reset first) and recompute its answer.

    ``complete=True`` reads every page of every step instead of the
    trajectory's page budget. Never raises for what the calls return: a failed
    call, a junction rule with no fitting values, or an answer the fresh
    outputs do not determine give ``ok=False`` with ``problem`` saying why.
    """
    max_pages = ALL_PAGES if complete else _meta_int(trajectory, "page_budget")
    run = _execute(trajectory, catalog, env, perturb, max_pages)
    answer: Answer | None = None
    if not run.problem:
        spec = trajectory.meta.get("answer_spec")
        if not spec:
            raise UsageError(f"trajectory {trajectory.id} lacks meta['answer_spec']: was it made by synthesize()?")
        try:
            answer = answer_for(spec, evaluate(spec, branches_of(run.groups, run.handed)), trajectory.answer.unit)
        except AnswerError as exc:
            run.problem = f"answer: {exc}"
    all_read = bool(run.groups) and all(read.complete for reads in run.groups for read in reads)
    return PlanRun(
        run.steps, run.junctions, answer, env.state_digest(), not run.problem, all_read, run.problem, run.groups
    )


def candidate_values(
    trajectory: Trajectory, catalog: Catalog, env: Any, junction: int, *, beyond_source: bool = True
) -> tuple:
    """Values that could be handed at ``junction`` instead of the recorded ones (for perturbation).

    First the other values the fresh source output offers (first-appearance
    order) — a derived junction always has some. A sequential or fan-out
    junction hands over *every* value its source offers, so with
    ``beyond_source`` the same binding is then filled from the catalog: the
    target tool's example arguments, then the source tool's output under its
    other example arguments (extra calls, made after the re-run). Recorded
    values are never offered; ``()`` when nothing else is known.
    """
    if not 0 <= junction < len(trajectory.junctions):
        raise UsageError(f"trajectory {trajectory.id} has no junction {junction}")
    run = _execute(trajectory, catalog, env, None, _meta_int(trajectory, "page_budget"), until=junction)
    if run.problem or len(run.groups) <= junction:
        return ()
    recorded = trajectory.junctions[junction]
    used = {value_key(value) for value in recorded.values}
    out: list[Any] = []

    def offer(values: Sequence[Any]) -> None:
        for value in values:
            if value_key(value) not in used:
                used.add(value_key(value))
                out.append(value)

    offer(distinct_values(_records(run.groups[trajectory.steps[recorded.source].group]), recorded.binding))
    if out or not beyond_source:
        return tuple(out)
    params = sorted(recorded.binding)
    target = catalog.get(trajectory.steps[recorded.target].tool)
    for example in target.examples:
        if all(example.get(p) is not None for p in params):
            offer([example[params[0]]] if len(params) == 1 else [{p: example[p] for p in params}])
    source_step = trajectory.steps[recorded.source]
    source = catalog.get(source_step.tool)
    budget = _meta_int(trajectory, "page_budget")
    for example in source.examples:
        args = {**{k: v for k, v in source_step.args.items() if k not in example}, **example}
        if value_key(args) == value_key(source_step.args):
            continue
        read = read_pages(env, source, args, budget)
        if read.ok:
            offer(distinct_values(read.records, recorded.binding))
    return tuple(out)


def decided_figure(trajectory: Trajectory, run: PlanRun) -> Answer | None:
    """What a perturbation is compared on: the run's answer, or for a yes/no threshold the number it tests.

    A yes/no answer keeps its value under most perturbations by chance (half the
    time, or more), so comparing it would call a chain unconstrained although
    the figure behind it moved; the figure is what the intermediate call decides.
    """
    spec = trajectory.meta.get("answer_spec") or {}
    if spec.get("op") != "threshold" or not isinstance(spec.get("of"), dict):
        return run.answer
    handed = [[None], *[list(j.values) for j in run.junctions]]
    try:
        value = evaluate(spec["of"], branches_of(run.groups, handed))
    except (AnswerError, KeyError, TypeError):
        return None
    return Answer("number", value, 0.0, f"figure of {trajectory.answer.derivation}")


def unconstrained_junction(trajectory: Trajectory, catalog: Catalog, env: Any, probes: int = 8) -> int | None:
    """A junction where some other values leave the answer where it was, or None.

    Synthesis keeps only chains whose every intermediate call matters. Per
    junction up to ``probes`` other value sets are tried (from both ends of
    :func:`candidate_values`); a run that breaks is no evidence (the chain needs
    *a* fitting value, which says nothing of whether the answer depends on
    which), and one completed run whose figure stays is enough to convict —
    stricter than the filter's judges, so what synthesis keeps they keep too.
    """
    reference: Answer | None = None
    for index, junction in enumerate(trajectory.junctions):
        width = max(1, len(junction.values))
        offered = list(candidate_values(trajectory, catalog, env, index))
        # as many values as were handed, fewer when the candidates run out
        windows = [tuple(offered[i : i + width]) for i in range(0, len(offered), width)]
        half = (probes + 1) // 2
        tried = windows[:half] + [w for w in windows[::-1][: probes - half] if w not in windows[:half]]
        for window in tried:
            moved = run_plan(trajectory, catalog, env, perturb=Perturbation(index, window))
            if not moved.ok:
                continue
            if reference is None:
                reference = decided_figure(trajectory, run_plan(trajectory, catalog, env))
            figure = decided_figure(trajectory, moved)
            if reference is not None and figure is not None and figure.value == reference.value:
                return index
    return None
