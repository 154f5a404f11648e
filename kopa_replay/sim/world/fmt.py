"""How the platforms spell values: comma numbers, " " for empty, fixed decimals; the world's fact tables."""

from __future__ import annotations

from functools import cache
from typing import Any

__all__ = ["comma", "blank", "rate", "data", "frozen"]


@cache
def data(name: str) -> dict[str, Any]:
    """The fact tables of ``kopa_replay/sim/world/data/<name>.yaml`` (names, codes, counts), loaded once."""
    from importlib.resources import files

    from kopa_replay.util import load_yaml

    return load_yaml(files("kopa_replay.sim.world").joinpath("data", f"{name}.yaml").read_text("utf-8"))


def frozen(value: Any) -> Any:
    """YAML lists as tuples, all the way down (dicts stay dicts): the tables as the code reads them."""
    if isinstance(value, list):
        return tuple(frozen(item) for item in value)
    if isinstance(value, dict):
        return {key: frozen(item) for key, item in value.items()}
    return value


def comma(value: int | float) -> str:
    """``1234567`` → ``"1,234,567"`` (DART amounts, apartment prices)."""
    return f"{int(round(value)):,}"


def blank(value: str | None) -> str:
    """A missing value as the single space the real APIs send."""
    return value if value else " "


def rate(value: float) -> str:
    """A percentage like data.go.kr writes it: ``".11"``, ``"-1.50"``, ``"0"``."""
    text = f"{value:.2f}"
    if text in ("0.00", "-0.00"):
        return "0"
    if text.startswith("0."):
        return text[1:]
    if text.startswith("-0."):
        return "-" + text[2:]
    return text
