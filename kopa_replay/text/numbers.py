"""One number written whole: the digits grammar every reader shares, and the two ways of reading a value.

A number as the platforms and people write it is Arabic digits — plain
(``1680``) or in comma-joined thousands (``1,680``; ``1,2345`` is malformed) —
with an optional decimal part and sign. :data:`DIGITS` is that grammar, and
every reader in :mod:`kopa_replay.text` builds on it; :func:`read_number` reads
a whole value with it into a :class:`~decimal.Decimal`, and its options are the
only places two callers differ:

* ``bare_fraction`` — ``".11"`` and ``"-.41"`` (a fraction without its leading
  zero, as data.go.kr writes ``fltRt``) are numbers. On for :func:`as_number`
  (the platforms' values, read for arithmetic); off for canonical keys
  (:func:`kopa_replay.text.keys.number_key`), which have always read such a
  value as text — turning it on there would change which values the filter
  counts as disclosed.
* ``units`` — trailing units to take off before reading (``"1,680원"``). None
  for :func:`as_number` (a platform number is exact: ``"1,680원"`` is not one);
  the canonical units of :data:`UNITS` for keys.

Full-width digits (``１６８０``) are digits to ``\\d`` and to ``Decimal``, so
every reader takes them as they are; readers of free text apply NFKC first,
which also turns full-width commas, points and signs into ASCII ones.

Pure: no I/O, no state.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from decimal import Decimal, InvalidOperation
from typing import Any

__all__ = ["DIGITS", "UNITS", "VALUE_UNITS", "read_number", "as_number", "canonical_decimal"]

#: The digits of a number: thousands groups joined by commas (``1,234,567``), or plain digits (``1234567``).
DIGITS = r"(?:\d{1,3}(?:,\d{3})+|\d+)"

#: Units a number may be written with, as written → as meant (an answer spells % out: ``12.5 퍼센트``).
UNITS: dict[str, str] = {"원": "원", "%": "%", "퍼센트": "%", "프로": "%", "건": "건", "명": "명", "개": "개"}
#: The units as meant, in the order they are taken off a value (``"1,680원"``, ``"12%"``, ``"3건"``).
VALUE_UNITS: tuple[str, ...] = tuple(dict.fromkeys(UNITS.values()))

_WHOLE = re.compile(rf"[-+]?{DIGITS}(?:\.\d+)?")
_BARE_FRACTION = re.compile(rf"[-+]?(?:{DIGITS}(?:\.\d+)?|\.\d+)")


def read_number(text: str, *, bare_fraction: bool = False, units: Iterable[str] = ()) -> Decimal | None:
    """The finite Decimal that ``text`` writes whole (surrounding whitespace ignored), else None.

    ``"1,680"`` → 1680, ``"-1.50"`` → -1.50, ``"+3"`` → 3; ``"1,23"``, ``"1."``, ``"12a"`` and ``""`` → None.
    ``bare_fraction`` also reads ``".11"`` and ``"-.41"``; each of ``units`` found at the end, in order, is
    taken off first (``units=VALUE_UNITS``: ``"1,680 원"`` → 1680).
    """
    plain = _plain(text, bare_fraction, units)
    if plain is None:
        return None
    try:
        number = Decimal(plain)
    except InvalidOperation:
        return None
    return number if number.is_finite() else None


def _plain(text: str, bare_fraction: bool, units: Iterable[str]) -> str | None:
    """The number ``text`` writes whole, without surrounding space, unit and commas (``"1680"``), else None."""
    text = text.strip()
    for unit in units:
        if text.endswith(unit):
            text = text[: -len(unit)].strip()
    if not (_BARE_FRACTION if bare_fraction else _WHOLE).fullmatch(text):
        return None
    return text.replace(",", "")


def canonical_decimal(number: Decimal) -> str:
    """The one spelling of a number: an integer without a point (``1680.0`` → ``1680``), else no trailing zeros."""
    if number == number.to_integral_value():
        return str(int(number))
    return format(number.normalize(), "f")


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
    if not value.strip():
        return None
    plain = _plain(value, True, ())  # read_number(value, bare_fraction=True), without a Decimal on the way
    if plain is None:
        raise ValueError(f"not a number: {value!r}")
    return float(plain) if "." in plain else int(plain)
