"""Pure functions for the platforms' value quirks.

The parser (:mod:`kopa_replay.env.parse`) already turns the envelope quirks
(one record sent as an object, ``items: ""``, EUC-KR bodies) into plain lists
of records. What is left are the *values*:

* ``" "`` and ``""`` mean "no value" → :func:`normalize_value` makes them ``None``;
* comma numbers (``"1,234"``), leading-dot decimals (``".11"``, ``"-.41"``) and
  padded numbers (``"   72,000"``) stay the strings the platform sent — graders
  compare them — and :func:`as_number` reads them when arithmetic is wanted.

Nothing else is touched: other strings keep their exact spelling, padding included.
"""

from __future__ import annotations

import re
from typing import Any, Mapping

__all__ = ["is_blank", "normalize_value", "normalize_record", "normalize_records", "as_number"]

_NUMBER = re.compile(r"^[+-]?(?:\d{1,3}(?:,\d{3})+|\d+)?(?:\.\d+)?$")


def is_blank(value: Any) -> bool:
    """True for the platforms' ways of writing "empty": ``""`` and whitespace-only strings."""
    return isinstance(value, str) and not value.strip()


def normalize_value(value: Any) -> Any:
    """``" "`` / ``""`` → None; nested dicts and lists are normalized; everything else unchanged."""
    # Exact type checks first: this runs on every value of every replayed record, and an
    # isinstance against the Mapping ABC costs several times more than one against dict.
    kind = type(value)
    if kind is str:
        return value if value.strip() else None
    if kind is dict or (kind is not list and isinstance(value, Mapping)):
        return {k: normalize_value(v) for k, v in value.items()}
    if kind is list:
        return [normalize_value(v) for v in value]
    if isinstance(value, str):
        return value if value.strip() else None
    return value


def normalize_record(record: Mapping[str, Any]) -> dict[str, Any]:
    """One record with blank values as None (keys and order kept)."""
    return {k: normalize_value(v) for k, v in record.items()}


def normalize_records(records: list[Mapping[str, Any]]) -> list[dict[str, Any]]:
    return [normalize_record(r) for r in records]


def as_number(value: Any) -> int | float | None:
    """A platform number as int or float: ``"1,234"`` → 1234, ``".11"`` → 0.11, ``"-1.50"`` → -1.5.

    Surrounding whitespace is ignored; blanks and None give None; anything that is
    not a number (``"N/A"``, ``"1,23"``, ``"12a"``) raises ValueError. Numbers pass through.
    """
    if value is None:
        return None
    if isinstance(value, bool):
        raise ValueError(f"not a number: {value!r}")
    if isinstance(value, (int, float)):
        return value
    if not isinstance(value, str):
        raise ValueError(f"not a number: {value!r}")
    text = value.strip()
    if not text:
        return None
    if not _NUMBER.match(text) or text in ("+", "-", ".", "+.", "-.") or text.endswith("."):
        raise ValueError(f"not a number: {value!r}")
    plain = text.replace(",", "")
    if "." in plain:
        return float(plain)
    return int(plain)
