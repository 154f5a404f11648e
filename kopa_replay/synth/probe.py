"""Does an intermediate call decide the answer? Re-run the plan with one junction's values replaced, and compare.

An intermediate call constrains the answer when handing other values at its
junction moves the answer. :func:`unmoved_junction` gathers that evidence from
one end of the candidate values (the first or the last, so two readers gather
different evidence) through callbacks — the candidates, a perturbed run, the
unchanged run — and compares with the comparison it is given:
:func:`answers_equal` (tolerance-aware) or :func:`answers_same_text`
(canonical text at six significant digits). The filter's two judges
(:mod:`kopa_replay.filter.perturb`) and the corpus families
(:func:`moves_the_answer`) decide with it alike, so what synthesis keeps the
filter keeps.
"""

from __future__ import annotations

import functools
import json
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from kopa_replay import text as norm
from kopa_replay.synth.model import Answer, Trajectory

__all__ = [
    "PROBES",
    "TRIES",
    "Unmoved",
    "answers_equal",
    "answers_same_text",
    "moves_the_answer",
    "probe_windows",
    "unmoved_junction",
]

#: successful perturbed runs each reader (a judge, a family) gathers per junction before it decides
PROBES = 2
#: replacement value sets each reader tries per junction (runs that break count as no evidence). Eight, not
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


@dataclass(frozen=True)
class Unmoved:
    """What the probes of one end found: ``junction`` (None: every tested junction moved the answer) and the
    value sets tried there, the unchanged ``reference`` figure, how many junctions were ``tested``;
    ``no_reference`` when the unchanged plan gave no figure to compare with."""

    junction: int | None
    evidence: tuple[tuple, ...] = ()
    reference: Answer | None = None
    tested: int = 0
    no_reference: bool = False


def unmoved_junction(
    trajectory: Trajectory,
    candidates: Callable[[int], tuple],
    perturbed: Callable[[int, tuple], Answer | None],
    reference: Callable[[], Answer | None],
    same: Callable[[Answer, Answer | None], bool],
    from_end: bool,
) -> Unmoved:
    """The first junction whose probes all leave the figure where it was (see :class:`Unmoved`).

    A perturbed run that breaks (a later call finds nothing for the other
    value) is no evidence either way: it says the chain needs *a* fitting
    value, not whether the answer depends on which. So up to :data:`TRIES`
    value sets are tried per junction and the first :data:`PROBES` runs that
    complete decide; a junction with none is untested.
    """
    tested = 0
    figure: Answer | None = None
    for index, junction in enumerate(trajectory.junctions):
        windows = probe_windows(tuple(junction.values), candidates(index), TRIES, from_end)
        if not windows:
            continue  # the source offered nothing else: this junction cannot be tested, not convicted
        figure = figure or reference()
        if figure is None:
            return Unmoved(None, no_reference=True, tested=tested)
        evidence: list[tuple] = []
        moved = False
        for window in windows:
            got = perturbed(index, window)
            if got is None:
                continue
            evidence.append(window)
            if not same(figure, got):
                moved = True
                break
            if len(evidence) >= PROBES:
                break
        if not evidence:
            continue
        tested += 1
        if not moved:
            return Unmoved(index, tuple(evidence), figure, tested)
    return Unmoved(None, reference=figure, tested=tested)


def moves_the_answer(trajectory: Trajectory, catalog: Any, env: Any) -> Unmoved | None:
    """None when every hand-off of ``trajectory`` decides its answer as the filter's two judges see it (probes from
    both ends of the candidates; an item goes only when both ends find the figure unmoved); else what the first end
    found."""
    from kopa_replay.errors import KopaError
    from kopa_replay.synth.plan import Perturbation, candidate_values, decided_figure, run_plan

    @functools.cache  # each end asks for the same candidates and the same unchanged run: compute them once
    def candidates(junction: int) -> tuple:
        try:
            return tuple(candidate_values(trajectory, catalog, env, junction))
        except KopaError:
            return ()

    runs: dict[str, Answer | None] = {}  # values may be {param: value} dicts: keyed by their canonical JSON

    def perturbed(junction: int, values: tuple) -> Answer | None:
        key = json.dumps([junction, list(values)], sort_keys=True, ensure_ascii=False, default=str)
        if key not in runs:
            try:
                run = run_plan(trajectory, catalog, env, perturb=Perturbation(junction, tuple(values)))
            except KopaError:
                runs[key] = None
            else:
                runs[key] = decided_figure(trajectory, run) if run.ok else None
        return runs[key]

    @functools.cache
    def reference() -> Answer | None:
        try:
            run = run_plan(trajectory, catalog, env)
        except KopaError:
            return None
        return decided_figure(trajectory, run) if run.ok else None

    front = unmoved_junction(trajectory, candidates, perturbed, reference, answers_equal, from_end=False)
    if front.junction is None:
        return None
    back = unmoved_junction(trajectory, candidates, perturbed, reference, answers_same_text, from_end=True)
    return front if back.junction is not None else None


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
