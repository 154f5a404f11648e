"""Perturbation evidence for the filter's ``unconstrained`` check (pure; the probing itself is
:mod:`kopa_replay.synth.probe`, which the corpus families decide with too).

:func:`unconstrained_verdict` asks a :class:`~kopa_replay.filter.model.Case`
for re-runs with a junction's values replaced (taken from the first or the last
candidates, so two judges gather different evidence) and turns what
:func:`~kopa_replay.synth.probe.unmoved_junction` found into a verdict.
"""

from __future__ import annotations

from collections.abc import Callable

from kopa_replay.filter.model import Case, Verdict
from kopa_replay.synth.model import Answer
from kopa_replay.synth.probe import (
    PROBES,
    TRIES,
    answers_equal,
    answers_same_text,
    probe_windows,
    unmoved_junction,
)

__all__ = ["PROBES", "TRIES", "probe_windows", "unconstrained_verdict", "answers_equal", "answers_same_text"]


def unconstrained_verdict(case: Case, same: Callable[[Answer, Answer | None], bool], from_end: bool) -> Verdict:
    """Discard when some junction can be given other values, the plan still runs, and the answer stays
    (:func:`~kopa_replay.synth.probe.unmoved_junction`); a junction with no completed probe is untested, and an
    untested item is kept."""
    if not case.can_probe:
        return Verdict(False, "no probe: cannot test")
    found = unmoved_junction(case.trajectory, case.candidates, case.perturbed, case.reference, same, from_end)
    if found.no_reference:
        return Verdict(False, "the unchanged plan gives no answer to compare with")
    if found.junction is not None:
        junction = case.trajectory.junctions[found.junction]
        assert found.reference is not None  # set whenever a junction was tested
        shown = ", ".join(repr(w) for w in found.evidence)
        return Verdict(
            True,
            f"junction {found.junction} (step {junction.source}→{junction.target}) replaced by {shown}: "
            f"answer stays {found.reference.value!r}",
        )
    return Verdict(False, f"{found.tested} junction(s) tested, each moves the answer")
