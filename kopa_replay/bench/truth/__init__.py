"""The curated tasks' answers from the simulator's world truth, by code that shares nothing with the plan executor.

Each module here (one per domain) holds functions ``name(world, as_of, slots) -> answer``:
the answer a task asks for, read from :class:`kopa_replay.sim.world.World`'s objects —
the companies, districts, schools, statutes and legislators the simulator serves
from — never through a request, an envelope, a page or the answer-spec language.
A task names its function as ``<module>.<function>`` (``finance.dividend_per_share``).
An import contract (``pyproject.toml``) keeps this package off the executor: no
``synth``, ``env``, ``record``, ``graph`` or ``catalog`` import.

An answer is a number (int or float, in the task's unit), a text (a name), a list of
texts (a set) or a bool, as the task's answer program gives it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from importlib import import_module
from typing import Any

from kopa_replay.errors import UsageError

__all__ = ["TruthFunction", "truth_function", "truth_answer"]

TruthFunction = Callable[[Any, str, Mapping[str, Any]], Any]


def truth_function(name: str) -> TruthFunction:
    """The function ``<module>.<function>`` of this package."""
    module, _, function = name.partition(".")
    if not module or not function or not module.isidentifier() or not function.isidentifier():
        raise UsageError(f"truth function {name!r}: write it as <module>.<function>")
    try:
        found = getattr(import_module(f"{__name__}.{module}"), function)
    except (ImportError, AttributeError):
        raise UsageError(f"truth function {name!r} is not defined in kopa_replay.bench.truth") from None
    return found


def truth_answer(name: str, world: Any, as_of: str, slots: Mapping[str, Any]) -> Any:
    """The answer truth function ``name`` gives for one task's slots."""
    return truth_function(name)(world, as_of, slots)
