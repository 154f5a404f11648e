"""Perturbation evidence for the ``unconstrained`` check, and two ways to compare answers (pure).

An intermediate call constrains the answer when handing other values at its
junction moves the answer. :func:`unconstrained_verdict` asks a
:class:`~kopa_replay.filter.model.Case` for re-runs with the values replaced
(taken from the first or the last candidates, so two judges gather different
evidence) and compares with the comparison it is given:
:func:`answers_equal` (tolerance-aware) or :func:`answers_same_text`
(canonical text at six significant digits).
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable

from kopa_replay import text as norm
from kopa_replay.filter.model import Case, Verdict
from kopa_replay.synth.model import Answer

__all__ = ["PROBES", "TRIES", "probe_windows", "unconstrained_verdict", "answers_equal", "answers_same_text"]

#: successful perturbed runs each judge gathers per junction before it decides
PROBES = 2
#: replacement value sets each judge tries per junction (runs that break count as no evidence). Eight, not
#: four: on real-time chains the values at one end of a list (routes with no bus running now) break four
#: runs in a row, and a judge that gives up there keeps an item the other judge convicts
TRIES = 8


def probe_windows(values: tuple, candidates: tuple, count: int, from_end: bool) -> list[tuple]:
    """Up to ``count`` replacement tuples, each as long as the original (shorter if candidates run out)."""
    pool = [c for c in candidates if c not in values]
    if from_end:
        pool = pool[::-1]
    width = max(1, len(values))
    return [tuple(pool[i : i + width]) for i in range(0, len(pool), width)][:count]


def unconstrained_verdict(case: Case, same: Callable[[Answer, Answer | None], bool], from_end: bool) -> Verdict:
    """Discard when some junction can be given other values, the plan still runs, and the answer stays.

    A perturbed run that breaks (a later call finds nothing for the other
    value) is no evidence either way: it says the chain needs *a* fitting
    value, not whether the answer depends on which. So each judge tries up to
    :data:`TRIES` value sets and decides on the first :data:`PROBES` runs that
    complete; a junction with none is untested, and an untested item is kept.
    """
    if not case.can_probe:
        return Verdict(False, "no probe: cannot test")
    trajectory = case.trajectory
    tested = 0
    reference: Answer | None = None
    for index, junction in enumerate(trajectory.junctions):
        windows = probe_windows(tuple(junction.values), case.candidates(index), TRIES, from_end)
        if not windows:
            continue  # the source offered nothing else: this junction cannot be tested, not convicted
        reference = reference or case.reference()
        if reference is None:
            return Verdict(False, "the unchanged plan gives no answer to compare with")
        evidence: list[tuple] = []
        moved = False
        for window in windows:
            got = case.perturbed(index, window)
            if got is None:
                continue
            evidence.append(window)
            if not same(reference, got):
                moved = True
                break
            if len(evidence) >= PROBES:
                break
        if not evidence:
            continue
        tested += 1
        if not moved:
            shown = ", ".join(repr(w) for w in evidence)
            return Verdict(
                True,
                f"junction {index} (step {junction.source}→{junction.target}) replaced by {shown}: "
                f"answer stays {reference.value!r}",
            )
    return Verdict(False, f"{tested} junction(s) tested, each moves the answer")


# -- answer comparison, two ways ------------------------------------------------
def answers_equal(a: Answer, b: Answer | None) -> bool:
    """Tolerance-aware equality (the regex judge's): numbers within tolerance, texts by normalized form."""
    if b is None or a.kind != b.kind:
        return False
    if a.kind == "number":
        try:
            x, y = float(a.value), float(b.value)
        except (TypeError, ValueError):
            return False
        return math.isclose(x, y, rel_tol=1e-9, abs_tol=max(a.tolerance, 1e-9))
    if a.kind == "set":
        try:
            return {norm.text_form(v) for v in a.value} == {norm.text_form(v) for v in b.value}
        except TypeError:
            return False
    if a.kind == "text":
        return norm.text_form(a.value) == norm.text_form(b.value)
    return a.value == b.value


def _canonical_answer(answer: Answer) -> str:
    value = answer.value
    if answer.kind == "number":
        try:
            value = float(f"{float(value):.6g}")
        except (TypeError, ValueError):
            value = str(value)
    elif answer.kind == "set":
        value = sorted(" ".join(str(v).split()).lower() for v in (value or ()))
    elif answer.kind == "text":
        value = " ".join(str(value).split()).lower()
    return json.dumps([answer.kind, value], ensure_ascii=False, sort_keys=True, default=str)


def answers_same_text(a: Answer, b: Answer | None) -> bool:
    """The token judge's equality: the canonical JSON of (kind, value at 6 significant digits)."""
    return b is not None and _canonical_answer(a) == _canonical_answer(b)
