"""How the platforms spell values: comma numbers, " " for empty, fixed decimals."""

from __future__ import annotations

__all__ = ["comma", "blank", "rate"]


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
