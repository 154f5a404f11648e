"""The curated benchmark: questions people ask, each with a declarative plan, answered twice.

The task files (``curated/<domain>.yaml`` beside this module) hold *families*: one
way of asking (who asks and why, the question, the plan, the answer program, the
truth function) and the tasks that ask it (slot values — a company, a district, a
month — and the person's review). A family reads::

    family: dividend-peers
    who: "{corp} 주주가 배당을 비교하려고"          # one line: who asks, and why
    question: "{corp}의 2025년 주당 현금배당금은 몇 원입니까?"
    plan:                                          # one entry per group of calls
      - tool: dart_corp_code                       # group 0: the start, called as written
        args: {}
      - tool: dart_alot_matter                     # group 1: one call per value handed on
        from: 0                                    # the group that hands the values (default: the one before)
        bind: {corp_code: corp_code}               # target parameter <- source field
        reduce: {op: match, field: corp_name, value: "{corp}"}   # max / min / threshold / most_frequent / match
        args: {bsns_year: "2025", reprt_code: "11011"}
    answer: {op: value, group: 1, field: thstrm, where: {se: "주당 현금배당금(원)"}}
    unit: 원
    truth: finance.dividend_per_share               # kopa_replay.bench.truth.finance.dividend_per_share
    tasks:
      - slots: {corp: 삼성전자}
        review: {by: "…", date: "2026-12-07", verdict: accepted, edits: "…"}

``{slot}`` in any text is the task's slot (a whole-text ``{slot}`` keeps the slot's
type). A task may override ``question`` and ``who`` (the edits a reader made).

The plan runs through :func:`kopa_replay.synth.plan.run_plan` (the executor the
agents and the filter share); the answer program is the spec language of
:mod:`kopa_replay.synth.answer`. The truth function (:mod:`kopa_replay.bench.truth`)
computes the same answer from the simulator's world objects and shares nothing
with that executor (an import contract holds it to that).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from kopa_replay.bench.model import Task
from kopa_replay.catalog.model import Catalog
from kopa_replay.errors import UsageError
from kopa_replay.synth.declared import (
    FAN_OUT_BUDGET,
    PAGE_BUDGET,
    PlanStep,
    family_items,
    files_digest,
    fill_slots,
    need,
    parse_plan,
    plan_pattern,
    plan_skeleton,
    refuse_repeats,
    typed_junction,
)
from kopa_replay.synth.model import Trajectory

__all__ = [
    "CURATED_DIR",
    "CuratedTask",
    "FAN_OUT_BUDGET",
    "PAGE_BUDGET",
    "PlanStep",  # re-exported: the plan vocabulary lives in kopa_replay.synth.declared
    "curated_digest",
    "execute",
    "load_curated",
    "skeleton",
]

CURATED_DIR = Path(__file__).resolve().parent / "curated"
#: what a review must say for the task to ship
ACCEPTED = "accepted"
REVIEW_FIELDS = ("by", "date", "verdict")


@dataclass(frozen=True)
class CuratedTask:
    """One accepted task: the question, who asks it, the plan, the answer program, the truth function."""

    id: str
    family: str
    domain: str
    who: str
    question: str
    plan: tuple[PlanStep, ...]
    answer: Mapping[str, Any]
    unit: str
    truth: str
    slots: Mapping[str, Any]
    review: Mapping[str, Any]
    where: str  # file and family, for messages


def _mapping(value: Any, what: str, where: str) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise UsageError(f"{where}: {what} must be a mapping, not {type(value).__name__}")
    return value


def _tasks_of(family: Any, domain: str, where: str) -> Iterator[CuratedTask]:
    name = need(_mapping(family, "a family", where), "family", where)
    at = f"{where} family {name!r}"
    items = family.get("tasks")
    if not isinstance(items, list) or not items:
        raise UsageError(f"{at}: 'tasks' must list at least one task")
    for k, item in enumerate(items, 1):
        task_at = f"{at} task {k}"
        _mapping(item, "a task", task_at)
        slots = dict(_mapping(item.get("slots") or {}, "'slots'", task_at))
        review = dict(_mapping(item.get("review") or {}, "'review'", task_at))
        missing = [key for key in REVIEW_FIELDS if not review.get(key)]
        if missing:
            raise UsageError(f"{task_at}: the review lacks {', '.join(missing)} (a task ships only once read)")
        if review["verdict"] != ACCEPTED:
            continue  # read and not accepted: kept in the file, not shipped
        fill = lambda value: fill_slots(value, slots, task_at)  # noqa: E731 - one line, used below
        yield CuratedTask(
            id=str(item.get("id") or f"kopa-{domain}-{name}-{k}"),
            family=name,
            domain=domain,
            who=fill(item.get("who") or need(family, "who", at)),
            question=fill(item.get("question") or need(family, "question", at)),
            plan=parse_plan(fill(need(family, "plan", at)), task_at),
            answer=fill(need(family, "answer", at)),
            unit=str(fill(family.get("unit", ""))),
            truth=need(family, "truth", at),
            slots=slots,
            review=review,
            where=task_at,
        )


def load_curated(directory: str | Path | None = None, domains: Sequence[str] = ()) -> list[CuratedTask]:
    """Every accepted task of the task files in ``directory`` (default: the shipped ones), by file then order;
    ``domains`` keeps those files only."""
    root = Path(directory) if directory is not None else CURATED_DIR
    out: list[CuratedTask] = []
    for name, domain, family in family_items(root, domains, "curated task"):
        out.extend(_tasks_of(family, domain, name))
    refuse_repeats(root, [task.id for task in out], "task ids")
    return out


def curated_digest(directory: str | Path | None = None) -> str:
    """sha256 over the task files' names and bytes (a build's manifest records what it was made from)."""
    return files_digest(Path(directory) if directory is not None else CURATED_DIR)


def skeleton(task: CuratedTask) -> Trajectory:
    """The plan as a trajectory to run (one step per group; what :func:`run_plan` reads)."""
    return plan_skeleton(
        task.id,
        task.plan,
        task.answer,
        task.unit,
        task.question,
        fan_out_budget=FAN_OUT_BUDGET,
        page_budget=PAGE_BUDGET,
    )


def execute(task: CuratedTask, catalog: Catalog, env: Any) -> tuple[Task, Trajectory]:
    """Run ``task``'s plan through ``env``: the benchmark task and the executed plan behind it.

    Raises :class:`UsageError` naming the task when a tool is unknown, a call fails, a junction finds no value
    or the answer program has no single answer.
    """
    from kopa_replay.bench.build import has_parallel_calls, junction_hands_a_code, reads_pages, split_of
    from kopa_replay.bench.tasks import task_from_trajectory
    from kopa_replay.synth.junction import value_strings
    from kopa_replay.synth.plan import page_calls, run_plan

    for step in task.plan:
        if step.tool not in catalog:
            raise UsageError(f"{task.where}: unknown tool {step.tool!r}")
    run = run_plan(skeleton(task), catalog, env)
    if not run.ok or run.answer is None:
        raise UsageError(f"{task.where} ({task.id}): the plan does not run: {run.problem}")
    plan = Trajectory(
        id=task.id,
        pattern="chain",
        steps=run.steps,
        junctions=[typed_junction(junction, FAN_OUT_BUDGET) for junction in run.junctions],
        answer=run.answer,
        question=task.question,
        handed=tuple(text for junction in run.junctions for v in junction.values for text in value_strings(v)),
        state_digest=run.state_digest,
        meta={
            "answer_spec": dict(task.answer),
            "calls": page_calls(run),
            "fan_out_budget": FAN_OUT_BUDGET,
            "page_budget": PAGE_BUDGET,
            "family": task.family,
            "truth": task.truth,
            "slots": dict(task.slots),
        },
    )
    plan.pattern = plan_pattern(plan.meta["answer_spec"], plan.junctions)
    platforms = {catalog.get(step.tool).platform for step in plan.steps}
    made = task_from_trajectory(plan, catalog, split=split_of(platforms), hands_code=junction_hands_a_code)
    tags = (
        (plan.pattern, f"family:{task.family}")
        + (("paged",) if reads_pages(plan) else ())
        + (("parallel",) if has_parallel_calls(plan) else ())
    )
    return replace(made, domain=task.domain, tags=tags, who=task.who, review=dict(task.review)), plan
