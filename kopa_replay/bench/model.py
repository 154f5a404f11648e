"""The vocabulary of the benchmark's grading: tasks, rollouts, axis results, grades.

A :class:`Task` is what the benchmark asks and how it is checked: the Korean
question, the :class:`~kopa_replay.synth.model.Answer` (number with tolerance,
normalized text, set, or yes/no), the calls a solution must make
(:class:`RequiredAction`), and the reference trajectory with its state digest.
A :class:`Rollout` is one agent's attempt at one task: its free-text final
answer and the calls it made, with their outcomes. :mod:`kopa_replay.bench.grade`
turns a (task, rollout) pair into a :class:`Grade` of three :class:`AxisResult`.

Everything here is plain data with ``to_dict``/``from_dict`` (JSON-ready).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any, Protocol

from kopa_replay.errors import UsageError
from kopa_replay.synth.model import ANSWER_KINDS, Answer

__all__ = [
    "SPLITS",
    "AXES",
    "RequiredAction",
    "Task",
    "Call",
    "Rollout",
    "AxisResult",
    "Grade",
    "BuildSpec",
    "MAX_CALLS",
]

#: ``main`` tasks are over platforms synthesis may use; ``held_out`` ones over platforms it never saw
SPLITS = ("main", "held_out")
#: Tags ``bench drift --write`` puts on a task whose plan does not run on the snapshot it re-pins to (it no longer
#: executes there, or the snapshot lacks a request it now makes): the task keeps its old answer, and selections
#: leave out every ``stale:`` task unless asked for (``bench run --include-stale``).
STALE_PREFIX = "stale:"
STALE_TAG = STALE_PREFIX + "no_longer_executes"
UNRECORDED_TAG = STALE_PREFIX + "unrecorded"


def is_stale(task: "Task") -> bool:
    return any(tag.startswith(STALE_PREFIX) for tag in task.tags)


#: the three grading axes, in the order they are reported
AXES = ("response", "action", "environment")

#: how a read's calls name their window of records (see :class:`RequiredAction`)
PAGING_STYLES = ("page", "range")

#: one call: (tool, arguments, outcome)
Call = tuple[str, Mapping[str, Any], str]


@dataclass(frozen=True)
class RequiredAction:
    """A call to ``tool`` whose arguments include ``args_subset`` (values compared normalized).

    With ``through`` > 0 the action is a *read*: the calls to ``tool`` matching
    ``args_subset`` (which then leaves the paging parameters out) must together
    cover records ``since`` + 1 .. ``through`` (1-based; ``since`` is how many
    records the reference skipped, when it started past page 1), whatever page
    size they asked for. ``paging``
    says how a call's arguments name its window: ``style`` (``page`` or ``range``),
    the parameter names (``page``, ``size`` / ``start``, ``end``), the page size a
    call that names none gets (``default_size``) and the most a server returns
    (``max_size``). ``why`` says what skipping it means ("the code lookup was
    skipped"); it ends the failure reason.
    """

    tool: str
    args_subset: Mapping[str, Any]
    why: str = ""
    through: int = 0
    paging: Mapping[str, Any] = field(default_factory=dict)
    since: int = 0

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"tool": self.tool, "args_subset": dict(self.args_subset), "why": self.why}
        if self.through:
            out.update(through=self.through, paging=dict(self.paging), since=self.since)
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> "RequiredAction":
        through, since = int(data.get("through", 0)), int(data.get("since", 0))
        if through < 0 or (
            through and (data.get("paging", {}).get("style") not in PAGING_STYLES or not 0 <= since < through)
        ):
            raise UsageError(
                f"required action on {data.get('tool')!r}: a read needs 0 <= since < through and a "
                f"paging style, one of {', '.join(PAGING_STYLES)}"
            )
        return cls(
            data["tool"],
            dict(data.get("args_subset", {})),
            data.get("why", ""),
            through,
            dict(data.get("paging", {})),
            since,
        )


@dataclass(frozen=True)
class Task:
    """One benchmark task. ``reference_calls`` is the reference trajectory as (tool, args) pairs."""

    id: str
    question_ko: str
    answer: Answer
    required_actions: tuple[RequiredAction, ...] = ()
    reference_calls: tuple[tuple[str, Mapping[str, Any]], ...] = ()
    reference_state_digest: str = ""
    platforms: tuple[str, ...] = ()
    domain: str = ""
    split: str = "main"
    tags: tuple[str, ...] = ()
    #: who asks and why, in one line (a curated task says it; a generated one may not)
    who: str = ""
    #: the person's reading of the task: who accepted it, when, what they edited
    review: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.split not in SPLITS:
            raise UsageError(f"task {self.id}: split {self.split!r} is not one of {', '.join(SPLITS)}")
        if self.answer.kind not in ANSWER_KINDS:
            raise UsageError(
                f"task {self.id}: answer kind {self.answer.kind!r} is not one of {', '.join(ANSWER_KINDS)}"
            )

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "question_ko": self.question_ko,
            "answer": asdict(self.answer),
            "required_actions": [action.to_dict() for action in self.required_actions],
            "reference_calls": [[tool, dict(args)] for tool, args in self.reference_calls],
            "reference_state_digest": self.reference_state_digest,
            "platforms": list(self.platforms),
            "domain": self.domain,
            "split": self.split,
            "tags": list(self.tags),
            **({"who": self.who} if self.who else {}),
            **({"review": dict(self.review)} if self.review else {}),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> "Task":
        return cls(
            id=data["id"],
            question_ko=data["question_ko"],
            answer=Answer(**data["answer"]),
            required_actions=tuple(RequiredAction.from_dict(item) for item in data.get("required_actions", ())),
            reference_calls=tuple((tool, dict(args)) for tool, args in data.get("reference_calls", ())),
            reference_state_digest=data.get("reference_state_digest", ""),
            platforms=tuple(data.get("platforms", ())),
            domain=data.get("domain", ""),
            split=data.get("split", "main"),
            tags=tuple(data.get("tags", ())),
            who=data.get("who", ""),
            review=dict(data.get("review", {})),
        )


class _Logged(Protocol):
    tool: str
    args: Any
    outcome: str


class _Environment(Protocol):
    @property
    def log(self) -> Sequence[_Logged]: ...

    def state_digest(self) -> str: ...


@dataclass(frozen=True)
class Rollout:
    """Agent ``agent``'s ``index``-th attempt at task ``task_id``: final answer (None: gave none) and calls."""

    task_id: str
    agent: str
    index: int
    final_answer: str | None
    calls: tuple[Call, ...] = ()
    state_digest: str = ""

    @classmethod
    def from_environment(
        cls, task_id: str, agent: str, index: int, final_answer: str | None, env: _Environment
    ) -> "Rollout":
        """The rollout an agent left in a :class:`~kopa_replay.env.ToolEnvironment` (its log and state digest)."""
        calls = tuple((entry.tool, dict(entry.args), entry.outcome) for entry in env.log)
        return cls(task_id, agent, index, final_answer, calls, env.state_digest())

    def to_dict(self) -> dict[str, Any]:
        return {
            "task_id": self.task_id,
            "agent": self.agent,
            "index": self.index,
            "final_answer": self.final_answer,
            "calls": [[tool, dict(args), outcome] for tool, args, outcome in self.calls],
            "state_digest": self.state_digest,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> "Rollout":
        return cls(
            task_id=data["task_id"],
            agent=data["agent"],
            index=int(data["index"]),
            final_answer=data.get("final_answer"),
            calls=tuple((tool, dict(args), outcome) for tool, args, outcome in data.get("calls", ())),
            state_digest=data.get("state_digest", ""),
        )


@dataclass(frozen=True)
class AxisResult:
    """One axis's verdict and why: the reason names what was expected and what was found."""

    passed: bool
    reason: str

    def to_dict(self) -> dict[str, Any]:
        return {"passed": self.passed, "reason": self.reason}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> "AxisResult":
        return cls(bool(data["passed"]), data["reason"])


@dataclass(frozen=True)
class Grade:
    """The three axes for rollout ``index`` of task ``task_id``; ``passed`` when all three pass."""

    task_id: str
    index: int
    response: AxisResult
    action: AxisResult
    environment: AxisResult
    agent: str = ""
    #: calls of the rollout the platform answered with no data through no fault of the agent (an environmental
    #: failure, or a blocked answer: a wall, a page or nothing); a failed grade with incidents is not all the agent's
    incidents: int = 0

    @property
    def passed(self) -> bool:
        return self.response.passed and self.action.passed and self.environment.passed

    def axis(self, name: str | None) -> bool:
        """Whether axis ``name`` passed (``None``: all three)."""
        if name is None:
            return self.passed
        if name not in AXES:
            raise UsageError(f"unknown axis {name!r} (one of {', '.join(AXES)})")
        result: AxisResult = getattr(self, name)
        return result.passed

    def failing_axes(self) -> tuple[str, ...]:
        return tuple(name for name in AXES if not getattr(self, name).passed)

    def to_dict(self) -> dict[str, Any]:
        return {
            "task_id": self.task_id,
            "index": self.index,
            "agent": self.agent,
            "passed": self.passed,
            **{name: getattr(self, name).to_dict() for name in AXES},
            **({"incidents": self.incidents} if self.incidents else {}),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> "Grade":
        return cls(
            data["task_id"],
            int(data["index"]),
            response=AxisResult.from_dict(data["response"]),
            action=AxisResult.from_dict(data["action"]),
            environment=AxisResult.from_dict(data["environment"]),
            agent=data.get("agent", ""),
            incidents=int(data.get("incidents") or 0),
        )


#: no task makes more HTTP calls than this: the paper's longest task had 14, and a curated task that reads every page of
#: a list at the platform's usual page size may run a few past it
MAX_CALLS = 20


@dataclass(frozen=True)
class BuildSpec:
    """What the task set is made of: walk seeds, how many walks per run, the domain quotas."""

    seeds: tuple[int, ...] = (0, 1, 2, 3, 4, 5)
    per_run: int = 150
    quotas: tuple[tuple[str, int], ...] = (
        ("finance", 40),
        ("traffic", 34),
        ("district", 30),
        ("education", 18),
        ("politics", 15),
        ("law", 12),
    )
    max_calls: int = MAX_CALLS

    def to_dict(self) -> dict[str, Any]:
        return {
            "seeds": list(self.seeds),
            "per_run": self.per_run,
            "quotas": dict(self.quotas),
            "max_calls": self.max_calls,
        }
