"""Canonical keys of the values a question could disclose: numbers, dates, codes, text.

A question leaks a value whatever way it is written: ``1,680``, ``1680`` and
``1680.0`` are one number; ``2026-08-31``, ``20260831`` and ``2026년 8월 31일``
are one date; ``00126380`` and ``00 126 380`` are one code. This module turns a
*value* (something handed between calls, or the answer) into a set of
canonical keys, and :func:`question_keys` turns a *question* into the keys it
mentions, so that disclosure is a set intersection. It is the regex-based half
of the filter's two disclosure judges (:mod:`kopa_replay.filter.judges` has a
separate token-based one); the template question writer uses it as its guard,
the benchmark's grader and task builder compare values with it.

Keys are strings with a prefix: ``N:`` a number (:func:`number_key`: ``N:1680``),
``D:`` a date (``D:20260831``), ``C:`` a digit code (leading zeros kept, and
stripped when enough digits remain), ``T:`` a text
(:func:`~kopa_replay.text.normalize.text_form`). Numbers as a question writes
them, with their precision and in Korean numerals, are read by
:func:`kopa_replay.text.mentions.number_mentions`; :func:`discloses_number`
compares a secret with them.

Pure: no I/O, no state.
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections.abc import Iterable
from datetime import date
from decimal import Decimal
from typing import Any

from kopa_replay.text.normalize import text_form
from kopa_replay.text.numbers import DIGITS, VALUE_UNITS, canonical_decimal, read_number

__all__ = [
    "FIGURE",
    "number_key",
    "date_key",
    "date_spans",
    "value_keys",
    "question_keys",
    "mentions_text",
    "informative",
    "decimal_places",
    "discloses_number",
    "comma_codes",
]

#: a code whose zeros are stripped must keep this many digits: "00000012" must not match "12건"
_MIN_STRIPPED_CODE = 4
#: a text value shorter than this (after normalization) carries too little to count as disclosed
_MIN_TEXT = 2
#: a number smaller than this in magnitude (and without decimals) is too common to count as disclosed
_MIN_NUMBER = 10

# Dates first, so that their digits are not read again as numbers: 2026-08-31, 2026.08.31, 2026/8/31,
# 2026. 8. 31., 2026년 8월 31일, and bare 20260831 (only when it is a valid calendar date).
_DATE_PATTERNS = (
    re.compile(r"(?<!\d)(\d{4})\s*년\s*(\d{1,2})\s*월\s*(\d{1,2})\s*일"),
    re.compile(r"(?<![\d.])(\d{4})\s*[-./]\s*(\d{1,2})\s*[-./]\s*(\d{1,2})(?![\d])\.?"),
    re.compile(r"(?<![\d,.])(\d{4})(\d{2})(\d{2})(?![\d])"),
)
#: A number standing in a question: :data:`~kopa_replay.text.numbers.DIGITS` with an optional decimal part
#: and sign. Digits right after a Latin letter belong to an identifier (B10, KR7142390004), not to a number.
FIGURE = re.compile(rf"(?<![\d.,A-Za-z])[-+]?{DIGITS}(?:\.\d+)?(?![\d])")
# A digit code, possibly spaced or hyphenated into groups: 00126380, 00 126 380, 110111-1234567.
_CODE = re.compile(r"(?<![\dA-Za-z])\d+(?:[ \-]\d+)*(?![\d])")
_COMMA_CODE = re.compile(r"(?<![\dA-Za-z])\d+(?:,\d+)+(?:[ \-]\d+)*(?![\d])")


def number_key(value: Any) -> str | None:
    """``N:<canonical>`` for a number or numeric text (``"1,680"``, ``"1680.0"``, ``"1,680원"``, ``1680``), else None.

    A value may carry one of :data:`~kopa_replay.text.numbers.VALUE_UNITS`; a fraction without its leading
    zero (``".11"``) is not read (see :mod:`kopa_replay.text.numbers`).
    """
    if isinstance(value, bool):
        return None
    if isinstance(value, float):
        if not math.isfinite(value):
            return None
        value = repr(value)
    number = read_number(str(value), units=VALUE_UNITS)
    return None if number is None else f"N:{canonical_decimal(number)}"


def _valid_date(year: str, month: str, day: str) -> str | None:
    try:
        when = date(int(year), int(month), int(day))
    except ValueError:
        return None
    return when.strftime("%Y%m%d") if 1900 <= when.year <= 2100 else None


def date_key(value: Any) -> str | None:
    """``D:YYYYMMDD`` when ``value`` is one date in any of the usual formats, else None."""
    text = str(value).strip()
    for pattern in _DATE_PATTERNS:
        match = pattern.fullmatch(text)
        if match:
            day = _valid_date(*match.groups())
            return f"D:{day}" if day else None
    return None


def date_spans(text: str) -> tuple[set[str], list[tuple[int, int]]]:
    """The date keys of an NFKC text and the spans they take (so their digits are not read again)."""
    keys: set[str] = set()
    taken: list[tuple[int, int]] = []
    for pattern in _DATE_PATTERNS:
        for match in pattern.finditer(text):
            if any(a <= match.start() < b for a, b in taken):
                continue
            day = _valid_date(*match.groups())
            if day:
                keys.add(f"D:{day}")
                taken.append(match.span())
    return keys, taken


def decimal_places(key: str) -> int:
    """Decimal places of an ``N:`` key (0 for integers)."""
    _, _, fraction = key.partition(".")
    return len(fraction)


def informative(value: Any) -> bool:
    """Whether disclosing ``value`` would tell the solver something (so that it is worth checking).

    Single digits, tiny counts, yes/no and one-letter texts appear in questions for innocent reasons
    ("3개 시군", "1월"), so they are not treated as disclosed values.
    """
    if value is None or isinstance(value, bool):
        return False
    if isinstance(value, (int, float)) or number_key(value):
        key = number_key(value)
        if key is None:
            return False
        number = Decimal(key[2:])
        digits = re.sub(r"\D", "", str(value))
        # a zero-padded code ("0042") is informative by its length, a plain number by its size
        return abs(number) >= _MIN_NUMBER or decimal_places(key) > 0 or (digits.startswith("0") and len(digits) >= 4)
    return len(text_form(value)) >= _MIN_TEXT


def value_keys(value: Any) -> frozenset[str]:
    """Every canonical key a mention of ``value`` could produce (empty when it is not informative)."""
    if not informative(value):
        return frozenset()
    keys: set[str] = set()
    text = str(value).strip()
    day = date_key(text)
    if day:
        keys.add(day)
    number = number_key(value)
    if number:
        keys.add(number)
    # a whole number stored as a float (1987.0) is written with its digits (1,9 8 7 reads as a code of them)
    digits = re.sub(r"[ \-]", "", str(int(value)) if isinstance(value, float) and value.is_integer() else text)
    if digits.isdigit():
        keys.add(f"C:{digits}")
        stripped = digits.lstrip("0")
        if len(stripped) >= _MIN_STRIPPED_CODE:
            keys.add(f"C:{stripped}")
    if not keys:
        keys.add(f"T:{text_form(text)}")
    return frozenset(keys)


def _number_spans(question: str, taken: list[tuple[int, int]]) -> Iterable[str]:
    for match in FIGURE.finditer(question):
        if any(a <= match.start() < b for a, b in taken):
            continue
        number = read_number(match.group())
        if number is not None:
            yield f"N:{canonical_decimal(number)}"


def question_keys(question: str) -> frozenset[str]:
    """The number, date and code keys a question mentions (texts are matched by :func:`mentions_text`)."""
    text = unicodedata.normalize("NFKC", question)
    keys, taken = date_spans(text)
    for a, b in taken:  # eight bare digits read as a date are a number too ("20640801원")
        if text[a:b].isdigit():
            keys.update((f"N:{int(text[a:b])}", f"C:{text[a:b]}"))
    keys.update(_number_spans(text, taken))
    for match in _CODE.finditer(text):
        if any(a <= match.start() < b for a, b in taken):
            continue
        groups = re.split(r"[ \-]", match.group())
        # every contiguous run of groups: "코드 00 126380 3건" must yield 00126380 without the 3
        for i in range(len(groups)):
            for j in range(i + 1, len(groups) + 1):
                digits = "".join(groups[i:j])
                keys.add(f"C:{digits}")
                stripped = digits.lstrip("0")
                if len(stripped) >= _MIN_STRIPPED_CODE:
                    keys.add(f"C:{stripped}")
    return frozenset(keys)


def _significant(value: Decimal, resolution: Decimal) -> int:
    """Significant digits a mention shows: its digits down to its resolution, without trailing zeros."""
    return len(str(abs(int((value / resolution).to_integral_value()))).rstrip("0"))


def discloses_number(secret: Any, mentions: Iterable[tuple[Decimal, Decimal]]) -> bool:
    """Whether a mention (:func:`~kopa_replay.text.mentions.number_mentions`) states ``secret`` exactly, or
    rounded or cut to its resolution with at least three significant digits (215.8 or 216 for 215.789; not 200,
    not 2.2백)."""
    key = number_key(secret)
    if key is None:
        return False
    number = Decimal(key[2:])
    for value, resolution in mentions:
        if value == number:
            return True
        if value and abs(number - value) < resolution and _significant(value, resolution) >= 3:
            return True
    return False


def comma_codes(question: str) -> frozenset[str]:
    """``C:`` keys of digit groups joined by commas without spaces, then possibly by spaces (``1,6 8 0`` is
    the code 1680) — the whole run only, not its parts."""
    text = unicodedata.normalize("NFKC", question)
    keys: set[str] = set()
    for match in _COMMA_CODE.finditer(text):
        if re.fullmatch(r"\d{1,3}(?:,\d{3})+", match.group()):
            continue  # 1,680 is a number, already read as one
        digits = re.sub(r"\D", "", match.group())
        keys.add(f"C:{digits}")
        if len(digits.lstrip("0")) >= _MIN_STRIPPED_CODE:
            keys.add(f"C:{digits.lstrip('0')}")
    return frozenset(keys)


def mentions_text(question: str, key: str) -> bool:
    """Whether a ``T:`` key occurs in the question (spacing, case and hyphenation ignored)."""
    return key[2:] in text_form(question)
