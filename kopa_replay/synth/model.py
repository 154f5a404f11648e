"""The vocabulary of synthesized tasks: steps, typed junctions, answers, trajectories.

A trajectory is a plan that was *executed*: every step carries the arguments
it ran with, what came back (outcome, record count, result digest), and how
its inputs were obtained from earlier steps (a :class:`Junction`). The final
answer is computed from executed results, never written by hand.

Junction kinds, by the number of distinct values handed over (fan-out budget B):

* ``sequential`` — one value, one call;
* ``fan_out`` — 2..B values, that many parallel calls;
* ``derived`` — more than B values: a :class:`Reduction` (max, min, threshold,
  most frequent) first cuts the set to at most B, then one call per value.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field, fields
from typing import Any

__all__ = [
    "JUNCTION_KINDS",
    "ANSWER_KINDS",
    "SHAPES",
    "SUBSETS",
    "Reduction",
    "Junction",
    "Step",
    "Answer",
    "Trajectory",
    "shape_of",
    "in_subset",
]

JUNCTION_KINDS = ("sequential", "fan_out", "derived")
#: number (with tolerance), text (normalized), set (of normalized texts), bool (yes/no)
ANSWER_KINDS = ("number", "text", "set", "bool")


@dataclass(frozen=True)
class Reduction:
    """How a derived junction cut its value set: ``op`` over ``field`` of the source records.

    ``op`` is ``max`` / ``min`` (the values of the records with the largest /
    smallest ``field``), ``threshold`` (records whose ``field`` is above
    ``threshold``), ``most_frequent`` (the most common values of ``field``), or
    ``match`` (the records whose ``field`` reads ``value``: the one a person
    named — a city, a statute, a district — picked out of a lookup's list).
    """

    op: str
    field: str
    threshold: float | None = None
    kept: int = 0
    value: str | None = None


@dataclass(frozen=True)
class Junction:
    """Where step ``source`` feeds step ``target``: bound parameters, distinct values available and passed."""

    source: int
    target: int
    binding: Mapping[str, str]  # target param -> source field
    kind: str  # one of JUNCTION_KINDS
    cardinality: int  # records of the source output consumed at this junction
    distinct: int  # distinct values available for the binding
    values: tuple[Any, ...]  # the values actually handed over (<= B)
    reduction: Reduction | None = None


@dataclass(frozen=True)
class Step:
    """One executed call. ``group`` numbers parallel calls: steps sharing a group ran side by side."""

    index: int
    tool: str
    args: Mapping[str, Any]
    outcome: str
    records: int
    total_count: int | None
    digest: str
    group: int


@dataclass(frozen=True)
class Answer:
    """The graded answer: ``kind`` in ANSWER_KINDS, the value, and how it was computed (``derivation``)."""

    kind: str
    value: Any
    tolerance: float = 0.0
    derivation: str = ""
    unit: str = ""


@dataclass
class Trajectory:
    """An executed multi-step task: steps, junctions, answer, the question, provenance."""

    id: str
    pattern: str  # chain | fan_out | derived | comparison | condition
    steps: list[Step]
    junctions: list[Junction]
    answer: Answer
    question: str = ""
    handed: tuple[str, ...] = ()  # every intermediate value handed between calls (must not be disclosed)
    state_digest: str = ""
    meta: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """The trajectory as JSON-ready data (what ``asdict`` gives), its ``meta`` shared, not copied: ``meta``
        holds each call's records, and a deep copy of them cost more than the rest of writing a corpus."""
        data = {f.name: getattr(self, f.name) for f in fields(self)}
        data["steps"] = [asdict(step) for step in self.steps]
        data["junctions"] = [asdict(junction) for junction in self.junctions]
        data["answer"] = asdict(self.answer)
        return data

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> "Trajectory":
        def reduction(item: Any) -> Reduction | None:
            return Reduction(**item) if item else None

        return cls(
            id=data["id"],
            pattern=data["pattern"],
            steps=[Step(**step) for step in data["steps"]],
            junctions=[
                Junction(**{**j, "values": tuple(j["values"]), "reduction": reduction(j.get("reduction"))})
                for j in data["junctions"]
            ],
            answer=Answer(**data["answer"]),
            question=data.get("question", ""),
            handed=tuple(data.get("handed", ())),
            state_digest=data.get("state_digest", ""),
            meta=dict(data.get("meta", {})),
        )


#: the paper's trajectory families (its ablation trains on sequential only, on parallel + mixed, on all)
SHAPES = ("sequential", "parallel", "mixed")
#: the ablation subsets: which shapes each keeps
SUBSETS: Mapping[str, tuple[str, ...]] = {
    "sequential": ("sequential",),
    "parallel": ("parallel", "mixed"),
    "full": SHAPES,
}


def shape_of(trajectory: Trajectory) -> str:
    """``sequential`` when every junction's calls are one call, ``parallel`` when every junction feeds two or more
    side by side, ``mixed`` otherwise (a trajectory without junctions is sequential)."""
    calls = Counter(step.group for step in trajectory.steps)
    widths = [calls[trajectory.steps[j.target].group] for j in trajectory.junctions if j.target < len(trajectory.steps)]
    if all(w <= 1 for w in widths):
        return "sequential"
    return "parallel" if all(w >= 2 for w in widths) else "mixed"


def in_subset(trajectory: Trajectory, subset: str) -> bool:
    """Whether ``trajectory`` belongs to the ablation ``subset`` (a key of :data:`SUBSETS`)."""
    return shape_of(trajectory) in SUBSETS[subset]
