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

import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from kopa_replay.bench.model import Task
from kopa_replay.catalog.model import Catalog
from kopa_replay.errors import UsageError
from kopa_replay.synth.model import Answer, Junction, Reduction, Step, Trajectory

__all__ = [
    "CURATED_DIR",
    "CuratedTask",
    "FAN_OUT_BUDGET",
    "PAGE_BUDGET",
    "PlanStep",
    "curated_digest",
    "execute",
    "load_curated",
    "skeleton",
]

CURATED_DIR = Path(__file__).resolve().parent / "curated"
#: values one junction may hand on (the paper's B)
FAN_OUT_BUDGET = 5
#: pages one step may read: a curated plan reads every page of what it asks for
PAGE_BUDGET = 60
#: what a review must say for the task to ship
ACCEPTED = "accepted"
REVIEW_FIELDS = ("by", "date", "verdict")
_SLOT = re.compile(r"\{(\w+)\}")


@dataclass(frozen=True)
class PlanStep:
    """One group of calls: ``tool`` with ``args``; after the start, one call per value group ``source`` hands on
    through ``bind`` (target parameter <- source field), cut by ``reduce`` first when given."""

    tool: str
    args: Mapping[str, Any]
    source: int | None = None
    bind: Mapping[str, str] = field(default_factory=dict)
    reduce: Reduction | None = None


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


def _fill(value: Any, slots: Mapping[str, Any], where: str) -> Any:
    """``value`` with every ``{slot}`` replaced (a whole-text slot keeps its type)."""
    if isinstance(value, str):
        whole = _SLOT.fullmatch(value)
        if whole:
            return _slot(slots, whole.group(1), where)
        return _SLOT.sub(lambda m: str(_slot(slots, m.group(1), where)), value)
    if isinstance(value, Mapping):
        return {k: _fill(v, slots, where) for k, v in value.items()}
    if isinstance(value, list):
        return [_fill(v, slots, where) for v in value]
    return value


def _slot(slots: Mapping[str, Any], name: str, where: str) -> Any:
    if name not in slots:
        raise UsageError(f"{where}: the slot {{{name}}} has no value (slots: {', '.join(sorted(slots)) or 'none'})")
    return slots[name]


def _need(data: Mapping[str, Any], key: str, where: str) -> Any:
    if key not in data or data[key] in (None, ""):
        raise UsageError(f"{where}: missing {key!r}")
    return data[key]


def _plan(items: Any, where: str) -> tuple[PlanStep, ...]:
    if not isinstance(items, list) or not items:
        raise UsageError(f"{where}: 'plan' must be a non-empty list of calls")
    steps = []
    for k, item in enumerate(items):
        at = f"{where} plan[{k}]"
        if not isinstance(item, Mapping):
            raise UsageError(f"{at}: a call is a mapping with 'tool' and 'args'")
        reduce = item.get("reduce")
        reduction = None
        if reduce:
            try:
                reduction = Reduction(**reduce)
            except TypeError as exc:
                raise UsageError(f"{at}: reduce {reduce!r}: {exc}") from None
        if k == 0:
            if item.get("bind") or reduction:
                raise UsageError(f"{at}: the start is called as written (no bind, no reduce)")
            steps.append(PlanStep(_need(item, "tool", at), dict(item.get("args") or {})))
            continue
        source = item.get("from", k - 1)
        if not isinstance(source, int) or not 0 <= source < k:
            raise UsageError(f"{at}: 'from' must name an earlier group (0..{k - 1}), not {source!r}")
        bind = item.get("bind")
        if not isinstance(bind, Mapping) or not bind:
            raise UsageError(f"{at}: a later call needs 'bind' (target parameter: source field)")
        steps.append(PlanStep(_need(item, "tool", at), dict(item.get("args") or {}), source, dict(bind), reduction))
    return tuple(steps)


def _mapping(value: Any, what: str, where: str) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise UsageError(f"{where}: {what} must be a mapping, not {type(value).__name__}")
    return value


def _tasks_of(family: Any, domain: str, where: str) -> Iterator[CuratedTask]:
    name = _need(_mapping(family, "a family", where), "family", where)
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
        fill = lambda value: _fill(value, slots, task_at)  # noqa: E731 - one line, used below
        yield CuratedTask(
            id=str(item.get("id") or f"kopa-{domain}-{name}-{k}"),
            family=name,
            domain=domain,
            who=fill(item.get("who") or _need(family, "who", at)),
            question=fill(item.get("question") or _need(family, "question", at)),
            plan=_plan(fill(_need(family, "plan", at)), task_at),
            answer=fill(_need(family, "answer", at)),
            unit=str(fill(family.get("unit", ""))),
            truth=_need(family, "truth", at),
            slots=slots,
            review=review,
            where=task_at,
        )


def load_curated(directory: str | Path | None = None, domains: Sequence[str] = ()) -> list[CuratedTask]:
    """Every accepted task of the task files in ``directory`` (default: the shipped ones), by file then order;
    ``domains`` keeps those files only."""
    from kopa_replay.util import load_yaml

    root = Path(directory) if directory is not None else CURATED_DIR
    files = sorted(root.glob("*.yaml"))
    if not files:
        raise UsageError(f"{root}: no curated task file (*.yaml)")
    out: list[CuratedTask] = []
    for path in files:
        if domains and path.stem not in domains:
            continue
        try:
            data = load_yaml(path.read_text(encoding="utf-8"))
        except Exception as exc:  # a YAML error names its line
            raise UsageError(f"{path}: not valid YAML: {exc}") from None
        if not isinstance(data, Mapping) or not isinstance(data.get("families"), list):
            raise UsageError(f"{path}: a task file has 'domain' and a list of 'families'")
        domain = str(data.get("domain") or path.stem)
        for family in data["families"]:
            out.extend(_tasks_of(family, domain, path.name))
    ids = [task.id for task in out]
    dupes = sorted({i for i in ids if ids.count(i) > 1})
    if dupes:
        raise UsageError(f"{root}: task ids used twice: {', '.join(dupes)}")
    return out


def curated_digest(directory: str | Path | None = None) -> str:
    """sha256 over the task files' names and bytes (a build's manifest records what it was made from)."""
    import hashlib

    root = Path(directory) if directory is not None else CURATED_DIR
    digest = hashlib.sha256()
    for path in sorted(root.glob("*.yaml")):
        digest.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


def skeleton(task: CuratedTask) -> Trajectory:
    """The plan as a trajectory to run (one step per group; what :func:`run_plan` reads)."""
    steps = [Step(k, step.tool, dict(step.args), "", 0, None, "", k) for k, step in enumerate(task.plan)]
    junctions = [
        Junction(int(step.source), k, dict(step.bind), "sequential", 0, 0, (), step.reduce)
        for k, step in enumerate(task.plan)
        if k and step.source is not None
    ]
    return Trajectory(
        id=task.id,
        pattern="chain",
        steps=steps,
        junctions=junctions,
        answer=Answer("number", None, unit=task.unit),
        question=task.question,
        meta={"answer_spec": dict(task.answer), "fan_out_budget": FAN_OUT_BUDGET, "page_budget": PAGE_BUDGET},
    )


def _typed(junction: Junction) -> Junction:
    """A junction typed as the generator types its own: a cut by rank or threshold is a reduction node (derived); a
    lookup's match, or no cut, by the number of values handed on (1 sequential, 2..B fan-out)."""
    from kopa_replay.synth.junction import junction_kind

    if junction.reduction is not None and junction.reduction.op != "match":
        return replace(junction, kind="derived")
    return replace(junction, kind=junction_kind(len(junction.values), FAN_OUT_BUDGET))


def _pattern(plan: Trajectory) -> str:
    op = plan.meta["answer_spec"].get("op")
    if op in ("argmax", "argmin"):
        return "comparison"
    if op == "threshold":
        return "condition"
    kinds = {junction.kind for junction in plan.junctions}
    return "derived" if "derived" in kinds else "fan_out" if "fan_out" in kinds else "chain"


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
        junctions=[_typed(junction) for junction in run.junctions],
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
    plan.pattern = _pattern(plan)
    platforms = {catalog.get(step.tool).platform for step in plan.steps}
    made = task_from_trajectory(plan, catalog, split=split_of(platforms), hands_code=junction_hands_a_code)
    tags = (
        (plan.pattern, f"family:{task.family}")
        + (("paged",) if reads_pages(plan) else ())
        + (("parallel",) if has_parallel_calls(plan) else ())
    )
    return replace(made, domain=task.domain, tags=tags, who=task.who, review=dict(task.review)), plan
