"""Pure functions for the platforms' value quirks.

The parser (:mod:`kopa_replay.env.parse`) already turns the envelope quirks
(one record sent as an object, ``items: ""``, EUC-KR bodies) into plain lists
of records. What is left are the *values*:

* ``" "`` and ``""`` mean "no value" → :func:`normalize_value` makes them ``None``;
* comma numbers (``"1,234"``), leading-dot decimals (``".11"``, ``"-.41"``) and
  padded numbers (``"   72,000"``) stay the strings the platform sent — graders
  compare them — and :func:`kopa_replay.text.as_number` reads them when
  arithmetic is wanted.

Nothing else is touched: other strings keep their exact spelling, padding included.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

__all__ = ["is_blank", "normalize_value", "normalize_record", "normalize_records"]


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


def normalize_records(records: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    return [normalize_record(r) for r in records]
