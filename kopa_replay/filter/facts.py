"""What a trajectory must keep secret (pure, no I/O).

* **given**: the arguments nobody handed over (:func:`kopa_replay.synth.facts.given_args`: every argument of
  the first step, and any argument of a later step that no junction binds, minus paging parameters). The
  question has to state these, or the task cannot be solved.
* **secret**: every value handed between calls (:func:`kopa_replay.synth.facts.handed_values`) and the
  answer (:func:`kopa_replay.synth.facts.answer_values`). Writing one of these into the question lets the
  solver skip a step (or the whole task).

A secret that is also given (a date the user typed that a later step receives
again) is not a secret: the user said it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from kopa_replay.synth.facts import answer_values, given_args, handed_values
from kopa_replay.synth.model import Trajectory
from kopa_replay.text.keys import informative, value_keys

__all__ = ["given_values", "secret_values", "secret_keys", "given_keys"]


def given_values(trajectory: Trajectory, catalog: Any = None) -> list[Any]:
    seen: list[Any] = []
    for _, _, value in given_args(trajectory, catalog):
        if value not in seen:
            seen.append(value)
    return seen


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
        for key in sorted(value_keys(value)):  # a set's order differs between processes; the reason names the key
            out.setdefault(key, (role, value))
    return out
