"""What a trajectory says the user knows and what it hands between calls (pure, no I/O).

* **given**: the arguments nobody handed over — every argument of the first
  step, and any argument of a later step that no junction binds (a date, a
  region code fixed by the walk) — minus paging parameters. The question has
  to state these, or the task cannot be solved.
* **handed**: every value handed between calls (``trajectory.handed``, plus the
  junctions' own values); with the answer's parts, what the question must not
  state (the filter's secrets: :mod:`kopa_replay.filter.facts`).

The question writers (:mod:`kopa_replay.synth.questions`) and the filter read the same facts, so they live here,
below both.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kopa_replay.catalog.model import PAGING_PARAMS
from kopa_replay.errors import KopaError
from kopa_replay.synth.model import Trajectory

__all__ = ["answer_values", "given_args", "handed_values"]


def _paging(catalog: Any, tool_name: str) -> frozenset[str]:
    if catalog is None:
        return PAGING_PARAMS
    try:
        pagination = catalog.get(tool_name).http.pagination
    except KopaError:  # an unknown tool is the malformed check's business, not ours
        return PAGING_PARAMS
    return pagination.params


def given_args(trajectory: Trajectory, catalog: Any = None) -> list[tuple[int, str, Any]]:
    """``(step index, parameter, value)`` for every argument the user must supply, in step order."""
    # A junction feeds a whole parallel group (one call per value), so its binding fills the bound
    # parameters of every step of the target's group, not only the first one.
    group_of = {step.index: step.group for step in trajectory.steps}
    bound: dict[int, set[str]] = {}
    for junction in trajectory.junctions:
        bound.setdefault(group_of.get(junction.target, -1), set()).update(junction.binding)
    out: list[tuple[int, str, Any]] = []
    for step in trajectory.steps:
        paging = _paging(catalog, step.tool)
        for name in sorted(step.args):
            if name in bound.get(step.group, ()) or name in paging:
                continue
            value = step.args[name]
            if value is None or value == "":
                continue
            out.append((step.index, name, value))
    return out


def handed_values(trajectory: Trajectory) -> list[Any]:
    """Everything handed between calls: the recorded strings and the junctions' values, deduplicated."""
    out: list[Any] = []
    for value in [*trajectory.handed, *(v for j in trajectory.junctions for v in j.values)]:
        # a several-parameter value ({param: value}) discloses each of its components
        for part in value.values() if isinstance(value, Mapping) else (value,):
            if part not in out:
                out.append(part)
    return out


def answer_values(trajectory: Trajectory) -> list[Any]:
    """The answer's disclosable parts: the number or text, each member of a set; nothing for yes/no."""
    answer = trajectory.answer
    if answer.kind == "bool" or answer.value is None:
        return []
    if answer.kind == "set" and isinstance(answer.value, (list, tuple, set, frozenset)):
        return sorted(answer.value, key=str)
    return [answer.value]
