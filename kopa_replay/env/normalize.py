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

__all__ = ["is_blank", "normalize_value", "normalize_record", "normalize_records", "normalize_read"]


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
    """Every record with blank values as None: :func:`normalize_read`'s records."""
    return normalize_read(records)[0]


#: value classes a record passes on as they are (bool before int: ``True.__class__`` is bool)
_KEPT = frozenset({int, bool, type(None)})


def normalize_read(records: Sequence[Mapping[str, Any]]) -> tuple[list[dict[str, Any]], bool]:
    """:func:`normalize_records`, and whether the records are *plain*: every key a string and every value a string,
    None, bool, int or a float from 1e-4 to 1e16 in size (or zero) — no nesting.

    One pass over every value of a page instead of three (normalize, look for nesting, look for odd types): a
    freshly read answer of a few hundred records spent more here than in its JSON parse. A plain page is shallow
    (a dict copy per record copies it whole) and written alike by every canonical JSON writer: floats outside that
    range are where writers differ (``1e-05`` or ``0.00001``), NaN and infinities are not JSON at all.
    """
    out: list[dict[str, Any]] = []
    plain = True
    for record in records:
        new: dict[str, Any] = {}
        for key, value in record.items():
            kind = value.__class__
            if kind is str:
                new[key] = value if value.strip() else None
            elif kind in _KEPT:
                new[key] = value
            elif kind is float:
                new[key] = value
                if plain and not (value == 0.0 or 1e-4 <= abs(value) < 1e16):
                    plain = False
            else:
                new[key] = normalize_value(value)
                plain = False
            if plain and key.__class__ is not str:
                plain = False
        out.append(new)
    return out, plain
