"""The filter's records: discards with reasons, replacements, verdicts, the judge protocol, the result.

Every item the filter drops leaves a :class:`Discard` (trajectory id, stage,
check, detail); every stored answer it overwrites leaves a
:class:`Replacement`. A :class:`Judge` answers one question about one item
(:class:`Case`) with a :class:`Verdict`; the second stage discards only when
every judge it was given says so.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple, Protocol, runtime_checkable

from kopa_replay.errors import UsageError
from kopa_replay.synth.model import Answer, Trajectory

__all__ = [
    "FilterConfig",
    "DUPLICATE_THRESHOLD",
    "NGRAM",
    "STAGES",
    "DECONTAMINATION_CHECK",
    "RULE_CHECKS",
    "JUDGE_CHECKS",
    "Discard",
    "Replacement",
    "Verdict",
    "Case",
    "Judge",
    "Planner",
    "FilterResult",
]

STAGES = ("decontaminate", "rules", "judges", "resolve")
#: stage 0's one check: the item repeats a benchmark task (the ``exclude`` hook gave a reason)
DECONTAMINATION_CHECK = "benchmark_task"
#: stage 1, in the order they run (a malformed item is not replayed; duplicates are looked for among the rest)
RULE_CHECKS = ("malformed", "not_reproducible", "near_duplicate")
#: stage 2, cheapest first (``unconstrained`` re-runs plans)
JUDGE_CHECKS = ("wrong_script", "ungradable", "disclosed", "unconstrained")


class Discard(NamedTuple):
    """Why an item was dropped. A tuple, so ``(trajectory_id, stage, check, detail)`` unpacks directly."""

    trajectory_id: str
    stage: str
    check: str
    detail: str


@dataclass(frozen=True)
class Replacement:
    """Stage 3 overwrote a stored answer: what it was, what it became, and why the new one is better."""

    trajectory_id: str
    old: Answer
    new: Answer
    reason: str


@dataclass(frozen=True)
class Verdict:
    """One judge on one check of one item: discard or keep, and a detail a person can read."""

    discard: bool
    detail: str = ""


class Planner(Protocol):
    """What the filter needs from :mod:`kopa_replay.synth.walk` (passed in so tests can use fakes)."""

    def run_plan(
        self, trajectory: Trajectory, catalog: Any, env: Any, *, perturb: Any = None, complete: bool = False
    ) -> Any: ...

    def candidate_values(self, trajectory: Trajectory, catalog: Any, env: Any, junction: int) -> tuple: ...


class Solver(Protocol):
    """An independent re-solver for stage 3 (the paper's: a model that solves the task again with the tools).

    ``solve`` returns how the solution reads: a predicate saying whether it gives a given answer (the benchmark's
    RESPONSE grading, for one), or None when it reached no answer."""

    name: str

    def solve(self, trajectory: Trajectory) -> Callable[[Answer], bool] | None: ...


def _hashable(values: tuple) -> str:
    # handed values may be {param: value} dicts (a binding of several parameters): key them by canonical JSON
    return json.dumps(list(values), sort_keys=True, ensure_ascii=False, default=str)


@dataclass
class Case:
    """What a judge may look at: the item, the catalog, and a probe that re-runs it with a junction changed.

    ``perturbed(junction, values)`` is the figure the answer is computed from
    when the plan is re-run with the values handed at ``junction`` replaced
    (None when that run failed); ``reference()`` is the same figure for the
    unchanged plan (by default the stored answer); ``candidates(junction)`` the
    other values the junction's source offers. All are memoized per case, so
    two judges asking the same thing cost one run.
    """

    trajectory: Trajectory
    catalog: Any = None
    candidates_fn: Callable[[int], tuple] | None = None
    perturbed_fn: Callable[[int, tuple], Answer | None] | None = None
    reference_fn: Callable[[], Answer | None] | None = None
    _candidates: dict[int, tuple] = field(default_factory=dict, init=False, repr=False)
    _perturbed: dict[tuple[int, str], Answer | None] = field(default_factory=dict, init=False, repr=False)
    _reference: list[Answer | None] = field(default_factory=list, init=False, repr=False)

    @property
    def can_probe(self) -> bool:
        return self.candidates_fn is not None and self.perturbed_fn is not None

    def candidates(self, junction: int) -> tuple:
        if self.candidates_fn is None:
            return ()
        if junction not in self._candidates:
            self._candidates[junction] = tuple(self.candidates_fn(junction))
        return self._candidates[junction]

    def perturbed(self, junction: int, values: tuple) -> Answer | None:
        if self.perturbed_fn is None:
            raise RuntimeError("this case has no probe")  # a judge bug: check can_probe first
        key = (junction, _hashable(tuple(values)))
        if key not in self._perturbed:
            self._perturbed[key] = self.perturbed_fn(junction, tuple(values))
        return self._perturbed[key]

    def reference(self) -> Answer | None:
        if self.reference_fn is None:
            return self.trajectory.answer
        if not self._reference:
            self._reference.append(self.reference_fn())
        return self._reference[0]

    @property
    def runs(self) -> int:
        """How many plans were re-run for this case (perturbed, and the reference when it needed one)."""
        return len(self._perturbed) + (1 if self._reference and self.reference_fn is not None else 0)


@runtime_checkable
class Judge(Protocol):
    """One verb: ``judge(check, case) -> Verdict`` for each of :data:`JUDGE_CHECKS`."""

    name: str

    def judge(self, check: str, case: Case) -> Verdict: ...


@dataclass
class FilterResult:
    """What survived, what was dropped (with reasons), what was re-answered, and the counts."""

    kept: list[Trajectory]
    discarded: list[Discard]
    replaced: list[Replacement]
    report: dict[str, Any]

    def reasons(self) -> Mapping[str, Discard]:
        """Discards by trajectory id."""
        return {d.trajectory_id: d for d in self.discarded}


def verdict_summary(verdicts: Sequence[tuple[str, Verdict]]) -> str:
    """``"regex: …; ngram: …"`` — each judge's own words, so a discard shows that both agreed and why."""
    return "; ".join(f"{name}: {v.detail or ('discard' if v.discard else 'keep')}" for name, v in verdicts)


#: questions whose character-n-gram Jaccard similarity reaches this — over the same set of tools — are
#: near-duplicates
DUPLICATE_THRESHOLD = 0.9
#: n of the character n-grams (over the normalized question: letters and digits only)
NGRAM = 3


@dataclass(frozen=True)
class FilterConfig:
    """How the filter runs; every field says what it changes."""

    duplicate_threshold: float = field(
        default=DUPLICATE_THRESHOLD,
        metadata={
            "help": "character-n-gram Jaccard similarity of two normalized questions at which the later one "
            "(by id) is a near-duplicate"
        },
    )
    ngram: int = field(default=NGRAM, metadata={"help": "n of the character n-grams compared for near-duplicates"})
    reproduce: bool = field(
        default=True,
        metadata={"help": "stage 1 re-runs every plan and drops items whose state digest or answer differs"},
    )
    resolve: bool = field(
        default=True,
        metadata={"help": "stage 3 re-solves every kept item reading all pages and replaces answers it judges worse"},
    )

    def __post_init__(self) -> None:
        if not 0.0 < self.duplicate_threshold <= 1.0:
            raise UsageError(f"duplicate_threshold must be in (0, 1], not {self.duplicate_threshold!r}")
        if self.ngram < 1:
            raise UsageError(f"ngram must be at least 1, not {self.ngram!r}")
