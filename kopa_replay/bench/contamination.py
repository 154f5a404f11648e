"""Keep benchmark tasks out of training data: a matcher that says which task a training item repeats.

Training data (``kopa-replay synth``, ``kopa-replay filter``) and the benchmark
draw on one simulated world and one catalog, so a walk can land on a benchmark
task. :class:`Decontaminator` is built from a task set
(:func:`~kopa_replay.bench.suite.load_task_set`) and tells, for one training
:class:`~kopa_replay.synth.model.Trajectory`, whether it repeats a task, in
the four ways the audit (:mod:`kopa_replay.bench.audit`) counts:

1. ``verbatim`` — its question equals a task's after :func:`~kopa_replay.text.normalize_question`;
2. ``masked`` — the two equal once names and digits are masked
   (:func:`~kopa_replay.bench.overlap.masked_question`: a task's names are its
   curated slots, an item's its ``meta["slots"]``, and every task's names mask
   both — the same sentence about another school or day);
3. ``near_verbatim`` — the character 3-gram Jaccard of the two normalized
   questions is at least ``near`` (0.8, the audit's default);
4. ``plan`` — it makes the same calls (:func:`plan_signature`: tools and
   arguments, paging parameters aside, values canonicalized). A task's calls
   are its ``reference_calls`` (else its plan's calls); a trajectory's are
   ``meta["calls"]`` (else its steps), as :func:`trajectory_calls` reads them.

Called as ``decontaminator(trajectory)`` it returns the reason the item must
go (``"near-verbatim question of benchmark task kopa-law-family-articles-1 (3-gram Jaccard
0.932)"``) or None: the ``exclude`` hook of
:func:`kopa_replay.synth.pipeline.run_synthesis`,
:func:`kopa_replay.synth.walk.synthesize_report` and
:func:`kopa_replay.filter.pipeline.run_filter`, which never import the
benchmark. Lookups are indexed (a set and an inverted 3-gram index of the
questions, a dict of plan signatures), so a candidate costs microseconds.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from kopa_replay.bench.model import Task
from kopa_replay.bench.overlap import (
    NEAR_VERBATIM,
    PAGING_PARAMS,
    PlanSignature,
    QuestionIndex,
    masked_question,
    plan_signature,
)
from kopa_replay.bench.tasks import trajectory_calls
from kopa_replay.errors import UsageError
from kopa_replay.synth.model import Trajectory
from kopa_replay.text.normalize import normalize_question

if TYPE_CHECKING:
    from kopa_replay.bench.suite import TaskSet

__all__ = ["MATCH_KINDS", "Decontaminator", "Match", "task_names"]

#: how a training item can repeat a task, in the order they are checked
MATCH_KINDS = ("verbatim", "masked", "near_verbatim", "plan")


@dataclass(frozen=True)
class Match:
    """A training item repeats benchmark task ``task_id``: how (one of :data:`MATCH_KINDS`), and how closely."""

    task_id: str
    kind: str
    similarity: float = 1.0

    def __str__(self) -> str:
        if self.kind == "verbatim":
            return f"verbatim question of benchmark task {self.task_id}"
        if self.kind == "masked":
            return f"the question of benchmark task {self.task_id} with other names and numbers"
        if self.kind == "near_verbatim":
            return f"near-verbatim question of benchmark task {self.task_id} (3-gram Jaccard {self.similarity:.3f})"
        return f"same plan as benchmark task {self.task_id}"


def task_names(task_set: "TaskSet") -> dict[str, list[str]]:
    """Task id -> the names its question states: the slot values its plan records (a curated task's; a generated
    one has none)."""
    out: dict[str, list[str]] = {}
    for task in task_set.tasks:
        plan = task_set.plans.get(task.id)
        slots = (plan.meta.get("slots") if plan is not None else None) or {}
        out[task.id] = [str(v) for v in slots.values()] if isinstance(slots, Mapping) else []
    return out


class Decontaminator:
    """Which benchmark task a training item repeats; ``__call__`` is the ``exclude`` hook (reason or None).

    ``Decontaminator(tasks, plans)`` indexes the tasks' normalized questions and
    plan signatures; ``names`` (task id -> the names its question states) masks
    them for the masked comparison; ``near`` is the near-verbatim threshold,
    ``paging`` the argument names a plan signature leaves out. ``name`` says what
    it was built from (reports quote it).
    """

    def __init__(
        self,
        tasks: Iterable[Task],
        plans: Mapping[str, Trajectory] | None = None,
        *,
        near: float = NEAR_VERBATIM,
        paging: Iterable[str] = PAGING_PARAMS,
        name: str = "",
        names: Mapping[str, Iterable[str]] | None = None,
    ) -> None:
        if not 0.0 < near <= 1.0:
            raise UsageError(f"near-verbatim threshold must be in (0, 1], got {near}")
        plans = plans or {}
        self.near = near
        self.paging = frozenset(paging)
        tasks = sorted(tasks, key=lambda task: task.id)
        self.tasks = len(tasks)
        self.name = name or f"{len(tasks)} benchmark tasks"
        self._by_text: dict[str, str] = {}  # normalized question -> first task id
        self._by_plan: dict[PlanSignature, str] = {}  # plan signature -> first task id
        self._by_masked: dict[str, str] = {}  # masked question -> first task id
        names = names or {}
        self.names = sorted({str(n) for task in tasks for n in names.get(task.id, ())})
        for task in tasks:
            text = normalize_question(task.question_ko, spaces=True)
            if text:
                self._by_text.setdefault(text, task.id)
                self._by_masked.setdefault(masked_question(task.question_ko, self.names), task.id)
            calls: Sequence[tuple[str, Mapping[str, Any]]] = task.reference_calls
            if not calls and task.id in plans:
                calls = [(tool, args) for _, tool, args in trajectory_calls(plans[task.id])]
            signature = plan_signature(calls, self.paging)
            if signature:
                self._by_plan.setdefault(signature, task.id)
        self._index = QuestionIndex(self._by_text)

    @classmethod
    def from_task_set(
        cls, task_set: "TaskSet", *, near: float = NEAR_VERBATIM, paging: Iterable[str] = PAGING_PARAMS
    ) -> "Decontaminator":
        """The matcher of every task of ``task_set`` (both splits); each task's plan's slots are the names masked."""
        return cls(
            task_set.tasks,
            task_set.plans,
            near=near,
            paging=paging,
            name=f"{len(task_set.tasks)} tasks of {task_set.source}",
            names=task_names(task_set),
        )

    def match_item(
        self, question: str, calls: Iterable[tuple[str, Mapping[str, Any]]], names: Iterable[str] = ()
    ) -> Match | None:
        """The task a training item (its question, its ``(tool, args)`` calls, the names it states) repeats, first
        by question."""
        text = normalize_question(question or "", spaces=True)
        if text:
            if text in self._by_text:
                return Match(self._by_text[text], "verbatim")
            masked = masked_question(question, self.names, then=names)
            if masked in self._by_masked:
                return Match(self._by_masked[masked], "masked")
            found = self._index.nearest(text, self.near)
            if found is not None:
                score, other = found
                return Match(self._by_text[other], "near_verbatim", score)
        task_id = self._by_plan.get(plan_signature(calls, self.paging))
        return Match(task_id, "plan") if task_id is not None else None

    def match(self, trajectory: Trajectory) -> Match | None:
        """The task ``trajectory`` repeats, or None."""
        slots = trajectory.meta.get("slots") or {}
        return self.match_item(
            trajectory.question,
            [(tool, args) for _, tool, args in trajectory_calls(trajectory)],
            [str(v) for v in slots.values()] if isinstance(slots, Mapping) else (),
        )

    def __call__(self, trajectory: Trajectory) -> str | None:
        found = self.match(trajectory)
        return None if found is None else str(found)

    def describe(self) -> dict[str, Any]:
        """What it matches against, JSON-ready (reports quote it)."""
        return {
            "against": self.name,
            "tasks": self.tasks,
            "questions": len(self._by_text),
            "plans": len(self._by_plan),
            "masked_names": len(self.names),
            "near": self.near,
        }
