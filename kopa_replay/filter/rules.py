"""Stage 1, the rule-based stage: malformed structures, non-reproducible items, near-duplicates.

:func:`malformed` and :func:`near_duplicates` are pure; :func:`reproduce`
re-runs the plan through the planner it is given (the only I/O here).
"""

from __future__ import annotations

import json
import math
from collections import Counter
from collections.abc import Sequence
from typing import Any

from kopa_replay.errors import KopaError
from kopa_replay.filter.model import DUPLICATE_THRESHOLD, NGRAM, Planner
from kopa_replay.filter.perturb import answers_equal
from kopa_replay.synth.facts import given_args
from kopa_replay.synth.model import ANSWER_KINDS, JUNCTION_KINDS, Trajectory
from kopa_replay.text.normalize import normalize_question

__all__ = ["malformed", "reproduce", "near_duplicates", "plan_key", "ngrams", "jaccard", "DUPLICATE_THRESHOLD", "NGRAM"]


def _non_finite(value: Any) -> bool:
    if isinstance(value, float):
        return not math.isfinite(value)
    if isinstance(value, (list, tuple, set, frozenset)):
        return any(_non_finite(v) for v in value)
    if isinstance(value, dict):
        return any(_non_finite(v) for v in value.values())
    return False


def malformed(trajectory: Trajectory, catalog: Any = None) -> str | None:
    """What is structurally wrong with ``trajectory`` (the first problem found), or None."""
    if not str(trajectory.id or "").strip():
        return "empty id"
    if not str(trajectory.question or "").strip():
        return "no question"
    answer = trajectory.answer
    if answer is None or answer.value is None:
        return "no answer"
    if answer.kind not in ANSWER_KINDS:
        return f"answer kind {answer.kind!r} is not one of {', '.join(ANSWER_KINDS)}"
    if _non_finite(answer.value) or _non_finite(answer.tolerance):
        return f"non-finite number in the answer ({answer.value!r}, tolerance {answer.tolerance!r})"
    if answer.kind == "number" and (isinstance(answer.value, bool) or not isinstance(answer.value, (int, float))):
        return f"number answer holds {type(answer.value).__name__} {answer.value!r}"
    if not trajectory.steps:
        return "no steps"
    indexes = [step.index for step in trajectory.steps]
    if indexes != list(range(len(indexes))):
        return f"step indexes {indexes} are not 0..{len(indexes) - 1} in order"
    for step in trajectory.steps:
        if catalog is not None and step.tool not in catalog:
            return f"step {step.index} calls {step.tool!r}, which the catalog does not hold"
        if _non_finite(dict(step.args)):
            return f"non-finite number in the arguments of step {step.index}"
    for number, junction in enumerate(trajectory.junctions):
        if not (0 <= junction.source < len(indexes) and 0 <= junction.target < len(indexes)):
            return (
                f"junction {number} joins step {junction.source} to step {junction.target}, "
                f"outside steps 0..{len(indexes) - 1}"
            )
        if junction.source >= junction.target:
            return f"junction {number} runs backwards (step {junction.source} → step {junction.target})"
        if junction.kind not in JUNCTION_KINDS:
            return f"junction {number} has kind {junction.kind!r}"
        if _non_finite(junction.values):
            return f"non-finite number among the values of junction {number}"
    if not trajectory.state_digest:
        return "no state digest recorded"
    return None


def reproduce(trajectory: Trajectory, catalog: Any, env: Any, planner: Planner) -> str | None:
    """Why re-running the plan does not give back the stored state and answer, or None when it does.

    A :class:`~kopa_replay.errors.KopaError` during the re-run (a cassette miss
    on the replay snapshot, an unknown tool) means the item cannot be
    reproduced there; anything else is a bug and propagates.
    """
    try:
        run = planner.run_plan(trajectory, catalog, env)
    except KopaError as exc:
        return f"re-run raised {type(exc).__name__}: {exc}"
    if not run.ok:
        return "re-run did not complete its plan"
    if run.state_digest != trajectory.state_digest:
        return f"state digest {run.state_digest[:12]} differs from the stored {trajectory.state_digest[:12]}"
    if not answers_equal(trajectory.answer, run.answer):
        got = None if run.answer is None else run.answer.value
        return f"re-run answers {got!r}, stored {trajectory.answer.value!r}"
    return None


def plan_key(trajectory: Trajectory, catalog: Any = None) -> str:
    """The plan as a string: tools in order, the user's arguments, the reductions, the answer's derivation.

    Two items with equal keys ask the same thing of the same data, whatever their wording.
    """
    reductions = [
        [
            j.source,
            j.target,
            # a match's value is what the person named (a school picked out of a city's list), a top-k cut's k how many
            # they asked for: both part of the question
            None
            if j.reduction is None
            else [j.reduction.op, j.reduction.field, j.reduction.threshold, j.reduction.value, j.reduction.kept],
        ]
        for j in trajectory.junctions
    ]
    return json.dumps(
        [
            [s.tool for s in trajectory.steps],
            [list(a) for a in given_args(trajectory, catalog)],
            reductions,
            trajectory.answer.derivation,
        ],
        ensure_ascii=False,
        sort_keys=True,
        default=str,
    )


def ngrams(text: str, n: int = NGRAM) -> frozenset[str]:
    """Character n-grams of the normalized text (the whole text when shorter than n)."""
    flat = normalize_question(text, spaces=False)
    if len(flat) <= n:
        return frozenset([flat]) if flat else frozenset()
    return frozenset(flat[i : i + n] for i in range(len(flat) - n + 1))


def jaccard(a: frozenset[str], b: frozenset[str]) -> float:
    if not a and not b:
        return 1.0
    return len(a & b) / len(a | b)


def near_duplicates(
    trajectories: Sequence[Trajectory], catalog: Any = None, *, threshold: float = DUPLICATE_THRESHOLD, n: int = NGRAM
) -> dict[str, str]:
    """``{duplicate id: detail}``; of each group the item first by id is kept.

    A near-duplicate repeats a kept item's plan (:func:`plan_key`), or asks a
    question at least ``threshold`` similar over the same set of tools.

    Candidates come from an inverted n-gram index, so the cost follows the
    number of shared n-grams, not the square of the item count.
    """
    kept_plans: dict[str, str] = {}
    kept_grams: dict[str, frozenset[str]] = {}
    tools = {t.id: frozenset(step.tool for step in t.steps) for t in trajectories}
    index: dict[str, list[str]] = {}
    out: dict[str, str] = {}
    for trajectory in sorted(trajectories, key=lambda t: t.id):
        key = plan_key(trajectory, catalog)
        if key in kept_plans:
            out[trajectory.id] = f"same tools and arguments as {kept_plans[key]}"
            continue
        grams = ngrams(trajectory.question, n)
        shared: Counter[str] = Counter(other for g in grams for other in index.get(g, ()))
        # templated questions share long stretches of wording ("…를 호출하고, 그 결과의 …"): only a question
        # over the same tools can repeat a task (two tasks over one prefix of calls measured 0.90–0.93)
        shared = Counter({other: common for other, common in shared.items() if tools[other] == tools[trajectory.id]})
        best, score = _best(shared, grams, kept_grams)
        if best is not None and score >= threshold:
            out[trajectory.id] = f"question {score:.2f} similar to {best} ({n}-gram Jaccard)"
            continue
        kept_plans[key] = trajectory.id
        kept_grams[trajectory.id] = grams
        for g in grams:
            index.setdefault(g, []).append(trajectory.id)
    return out


def _best(shared: Counter[str], grams: frozenset[str], kept: dict[str, frozenset[str]]) -> tuple[str | None, float]:
    best, score = None, 0.0
    for other, common in sorted(shared.items()):
        value = common / (len(grams) + len(kept[other]) - common)
        if value > score:
            best, score = other, value
    return best, score
