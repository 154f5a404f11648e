"""What a trajectory says the user knows and what it must keep secret (pure, no I/O).

* **given**: the arguments nobody handed over — every argument of the first
  step, and any argument of a later step that no junction binds (a date, a
  region code fixed by the walk) — minus paging parameters. The question has
  to state these, or the task cannot be solved.
* **secret**: every value handed between calls (``trajectory.handed``, plus the
  junctions' own values) and the answer. Writing one of these into the
  question lets the solver skip a step (or the whole task).

A secret that is also given (a date the user typed that a later step receives
again) is not a secret: the user said it.
"""

from __future__ import annotations

import re
from typing import Any, Iterable, Mapping

from kopa_replay.catalog.model import PAGING_PARAMS
from kopa_replay.errors import KopaError
from kopa_replay.filter.normalize import informative, value_keys
from kopa_replay.synth.model import Trajectory

__all__ = ["PAGING_PARAMS", "given_args", "given_values", "handed_values", "answer_values", "secret_values",
           "secret_keys", "given_keys"]



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


def given_values(trajectory: Trajectory, catalog: Any = None) -> list[Any]:
    seen: list[Any] = []
    for _, _, value in given_args(trajectory, catalog):
        if value not in seen:
            seen.append(value)
    return seen


def handed_values(trajectory: Trajectory) -> list[Any]:
    """Everything handed between calls: the recorded strings and the junctions' values, deduplicated."""
    out: list[Any] = []
    for value in [*trajectory.handed, *(v for j in trajectory.junctions for v in j.values)]:
        # a several-parameter value ({param: value}) discloses each of its components
        for part in (value.values() if isinstance(value, Mapping) else (value,)):
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


_LIST_SEPARATORS = re.compile(r"[,;/|\s]+")


def given_keys(trajectory: Trajectory, catalog: Any = None) -> frozenset[str]:
    """Keys of every given value and of each item of a list-valued one (``"00439743,01358622"`` names two codes)."""
    keys: set[str] = set()
    for value in given_values(trajectory, catalog):
        keys |= value_keys(value)
        if isinstance(value, str):
            for part in _LIST_SEPARATORS.split(value):
                keys |= value_keys(part)
    return frozenset(keys)


def secret_values(trajectory: Trajectory, catalog: Any = None) -> list[tuple[str, Any]]:
    """``(role, value)`` for each informative secret that the user did not state: role is handed or answer."""
    given = given_keys(trajectory, catalog)
    out: list[tuple[str, Any]] = []
    for role, values in (("handed", handed_values(trajectory)), ("answer", answer_values(trajectory))):
        for value in values:
            keys = value_keys(value)
            if informative(value) and keys and not (keys & given):
                out.append((role, value))
    return out


def secret_keys(values: Iterable[tuple[str, Any]]) -> dict[str, tuple[str, Any]]:
    """Canonical key → (role, value) for a list of secrets."""
    out: dict[str, tuple[str, Any]] = {}
    for role, value in values:
        for key in value_keys(value):
            out.setdefault(key, (role, value))
    return out
