"""Keep benchmark tasks out of training data: a matcher that says which task a training item repeats.

Training data (``kopa-replay synth``, ``kopa-replay filter``) and the benchmark
draw on one simulated world and one catalog, so a walk can land on a benchmark
task. :class:`Decontaminator` is built from a task set
(:func:`~kopa_replay.bench.suite.load_task_set`) and tells, for one training
:class:`~kopa_replay.synth.model.Trajectory`, whether it repeats a task, in
the three ways the audit (:mod:`kopa_replay.bench.audit`) counts:

1. ``verbatim`` — its question equals a task's after :func:`~kopa_replay.text.normalize_question`;
2. ``near_verbatim`` — the character 3-gram Jaccard of the two normalized
   questions is at least ``near`` (0.9, the audit's default);
3. ``plan`` — it makes the same calls (:func:`plan_signature`: tools and
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
from kopa_replay.bench.overlap import NEAR_VERBATIM, PAGING_PARAMS, PlanSignature, QuestionIndex, plan_signature
from kopa_replay.bench.tasks import trajectory_calls
from kopa_replay.errors import UsageError
from kopa_replay.synth.model import Trajectory
from kopa_replay.text.normalize import normalize_question

if TYPE_CHECKING:
    from kopa_replay.bench.suite import TaskSet

__all__ = ["MATCH_KINDS", "Decontaminator", "Match"]

#: how a training item can repeat a task, in the order they are checked
MATCH_KINDS = ("verbatim", "near_verbatim", "plan")


@dataclass(frozen=True)
class Match:
    """A training item repeats benchmark task ``task_id``: how (one of :data:`MATCH_KINDS`), and how closely."""

    task_id: str
    kind: str
    similarity: float = 1.0

    def __str__(self) -> str:
        if self.kind == "verbatim":
            return f"verbatim question of benchmark task {self.task_id}"
        if self.kind == "near_verbatim":
            return f"near-verbatim question of benchmark task {self.task_id} (3-gram Jaccard {self.similarity:.3f})"
        return f"same plan as benchmark task {self.task_id}"


class Decontaminator:
    """Which benchmark task a training item repeats; ``__call__`` is the ``exclude`` hook (reason or None).

    ``Decontaminator(tasks, plans)`` indexes the tasks' normalized questions and
    plan signatures; ``near`` is the near-verbatim threshold, ``paging`` the
    argument names a plan signature leaves out. ``name`` says what it was built
    from (reports quote it).
    """

    def __init__(
        self,
        tasks: Iterable[Task],
        plans: Mapping[str, Trajectory] | None = None,
        *,
        near: float = NEAR_VERBATIM,
        paging: Iterable[str] = PAGING_PARAMS,
        name: str = "",
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
        for task in tasks:
            text = normalize_question(task.question_ko, spaces=True)
            if text:
                self._by_text.setdefault(text, task.id)
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
        """The matcher of every task of ``task_set`` (both splits)."""
        return cls(
            task_set.tasks,
            task_set.plans,
            near=near,
            paging=paging,
            name=f"{len(task_set.tasks)} tasks of {task_set.source}",
        )

    def match_item(self, question: str, calls: Iterable[tuple[str, Mapping[str, Any]]]) -> Match | None:
        """The task a training item (its question and its ``(tool, args)`` calls) repeats, first by question."""
        text = normalize_question(question or "", spaces=True)
        if text:
            if text in self._by_text:
                return Match(self._by_text[text], "verbatim")
            found = self._index.nearest(text, self.near)
            if found is not None:
                score, other = found
                return Match(self._by_text[other], "near_verbatim", score)
        task_id = self._by_plan.get(plan_signature(calls, self.paging))
        return Match(task_id, "plan") if task_id is not None else None

    def match(self, trajectory: Trajectory) -> Match | None:
        """The task ``trajectory`` repeats, or None."""
        return self.match_item(trajectory.question, [(tool, args) for _, tool, args in trajectory_calls(trajectory)])

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
            "near": self.near,
        }
