"""Canonical forms of the values a question could disclose: numbers, dates, codes, text.

A question leaks a value whatever way it is written: ``1,680``, ``1680`` and
``1680.0`` are one number; ``2026-08-31``, ``20260831`` and ``2026년 8월 31일``
are one date; ``00126380`` and ``00 126 380`` are one code. This module turns a
*value* (something handed between calls, or the answer) into a set of
canonical keys, and :func:`question_keys` turns a *question* into the keys it
mentions, so that disclosure is a set intersection. It is the regex-based half
of the two disclosure judges (:mod:`kopa_replay.filter.judges` has a separate
token-based one); the template question writer uses it as its guard.

Keys are strings with a prefix: ``N:`` a number (``Decimal`` normalized, so
``N:1680``), ``D:`` a date (``D:20260831``), ``C:`` a digit code (leading zeros
kept, and stripped when enough digits remain), ``T:`` a text (case-folded,
without spaces, hyphens, underscores or quotes).

Numbers are also read as *mentions* with the precision they are written at
(:func:`number_mentions`): Arabic figures (``215.8`` to a tenth, ``11 394.87``
grouped by spaces), Korean numerals and unit rescaling (:func:`korean_numbers`:
``천육백팔십``, ``3,660만 1,732``, ``만 이천``, ``1.68천``, ``0.125억``), so that
:func:`discloses_number` sees an exact restatement and a rounding or
truncation that keeps three significant digits (``215.8``, ``216`` for
215.789; ``약 3,660만`` for 36,601,732). Digit groups joined by commas without
spaces read as one code (:func:`comma_codes`: ``1,6 8 0``).

Pure: no I/O, no state.
"""

from __future__ import annotations

import math
import re
import unicodedata
from datetime import date
from decimal import Decimal, InvalidOperation
from typing import Any, Iterable

__all__ = [
    "number_key",
    "date_key",
    "value_keys",
    "question_keys",
    "mentions_text",
    "informative",
    "text_form",
    "normalize_question",
    "foreign_script",
    "has_hangul",
    "decimal_places",
    "korean_numbers",
    "number_mentions",
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
# A number: thousands groups with commas, or plain digits, with an optional decimal part. Digits right
# after a Latin letter belong to an identifier (B10, KR7142390004), not to a number of their own.
_NUMBER = re.compile(r"(?<![\d.,A-Za-z])[-+]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?![\d])")
# A digit code, possibly spaced or hyphenated into groups: 00126380, 00 126 380, 110111-1234567.
_CODE = re.compile(r"(?<![\dA-Za-z])\d+(?:[ \-]\d+)*(?![\d])")
_TEXT_STRIP = re.compile(r"[\s\-_'\"“”‘’`·.,]+")


def _as_decimal(text: str) -> Decimal | None:
    try:
        number = Decimal(text.replace(",", ""))
    except InvalidOperation:
        return None
    return number if number.is_finite() else None


def _canonical_decimal(number: Decimal) -> str:
    if number == number.to_integral_value():
        return str(int(number))
    return format(number.normalize(), "f")


def number_key(value: Any) -> str | None:
    """``N:<canonical>`` for a number or numeric text (``"1,680"``, ``"1680.0"``, ``1680``), else None."""
    if isinstance(value, bool):
        return None
    if isinstance(value, float):
        if not math.isfinite(value):
            return None
        value = repr(value)
    text = str(value).strip()
    for unit in ("원", "%", "건", "명", "개"):
        if text.endswith(unit):
            text = text[: -len(unit)].strip()
    if not _NUMBER.fullmatch(text):
        return None
    number = _as_decimal(text)
    return None if number is None else f"N:{_canonical_decimal(number)}"


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


def text_form(value: Any) -> str:
    """Case-folded NFKC text without spaces, hyphens, underscores, quotes and light punctuation."""
    return _TEXT_STRIP.sub("", unicodedata.normalize("NFKC", str(value)).casefold())


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
    for match in _NUMBER.finditer(question):
        if any(a <= match.start() < b for a, b in taken):
            continue
        number = _as_decimal(match.group())
        if number is not None:
            yield f"N:{_canonical_decimal(number)}"


def _dates_in(text: str) -> tuple[set[str], list[tuple[int, int]]]:
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


def question_keys(question: str) -> frozenset[str]:
    """The number, date and code keys a question mentions (texts are matched by :func:`mentions_text`)."""
    text = unicodedata.normalize("NFKC", question)
    keys, taken = _dates_in(text)
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


# -- numbers as written: Korean numerals, unit rescaling, precision -------------------------------------
_KO_DIGIT = {"일": 1, "이": 2, "삼": 3, "사": 4, "오": 5, "육": 6, "칠": 7, "팔": 8, "구": 9}
_KO_SMALL = {"십": 10, "백": 100, "천": 1000}
_KO_BIG = {"만": 4, "억": 8, "조": 12}
_KO_CHARS = "".join([*_KO_DIGIT, *_KO_SMALL, *_KO_BIG])
# A run that may hold a Korean number: it starts a word, holds digits, commas, points and numeral syllables,
# and may take one space after a big unit (3660만 1732, 만 이천). It is then read by the grammar below.
_KO_RUN = re.compile(rf"(?<![\w.,])(?=[\d{_KO_CHARS}])(?:[\d,.{_KO_CHARS}]|(?<=[만억조]) (?=[\d{_KO_CHARS}]))+")
# below 10^4: an Arabic figure, optionally times 십/백/천 (1.68천, 2천, 12.5백), or Hangul numerals (천육백팔십)
_KO_ARABIC = re.compile(r"(\d{1,3}(?:,\d{3})+|\d+)(?:\.(\d+))?([십백천]?)")
_D = "([일이삼사오육칠팔구])"
_KO_HANGUL = re.compile(rf"(?:{_D}?(천))?(?:{_D}?(백))?(?:{_D}?(십))?{_D}?")
_SPACED_NUMBER = re.compile(r"(?<![\d.,A-Za-z])[-+]?\d{1,3}(?: \d{3})+(?:\.\d+)?(?![\d])")
_COMMA_CODE = re.compile(r"(?<![\dA-Za-z])\d+(?:,\d+)+(?:[ \-]\d+)*(?![\d])")


def _ko_below_10000(text: str) -> tuple[Decimal, Decimal] | None:
    """(value, resolution) of a group below 10^4, or None."""
    match = _KO_ARABIC.fullmatch(text)
    if match:
        whole, fraction, unit = match.groups()
        scale = Decimal(_KO_SMALL[unit]) if unit else Decimal(1)
        number = Decimal(whole.replace(",", "") + (f".{fraction}" if fraction else ""))
        return number * scale, Decimal(1).scaleb(-len(fraction or "")) * scale
    match = _KO_HANGUL.fullmatch(text)
    if not text or not match:
        return None
    value, resolution = 0, 1
    for digit, unit in ((match[1], match[2]), (match[3], match[4]), (match[5], match[6])):
        if unit:
            value += (_KO_DIGIT[digit] if digit else 1) * _KO_SMALL[unit]
            resolution = _KO_SMALL[unit]
    if match[7]:
        value, resolution = value + _KO_DIGIT[match[7]], 1
    return Decimal(value), Decimal(resolution)


def _ko_value(run: str) -> tuple[Decimal, Decimal] | None:
    """(value, resolution) of a whole run — big units in falling order, each after its group (an empty group
    before 만 is one: 만 이천) — or None when the run is not one number."""
    pieces = re.split(r"([만억조])", run.replace(" ", ""))
    total, resolution, previous = Decimal(0), None, 99
    for i in range(0, len(pieces), 2):
        part, big = pieces[i], (pieces[i + 1] if i + 1 < len(pieces) else None)
        if big is None:
            if part:
                got = _ko_below_10000(part)
                if got is None:
                    return None
                total, resolution = total + got[0], got[1]
            break
        exponent = _KO_BIG[big]
        if exponent >= previous:
            return None
        previous = exponent
        got = _ko_below_10000(part) if part else (Decimal(1), Decimal(1))
        if got is None:
            return None
        total, resolution = total + got[0].scaleb(exponent), got[1].scaleb(exponent)
    return None if resolution is None else (total, resolution)


def korean_numbers(text: str, taken: Iterable[tuple[int, int]] = ()) -> list[tuple[Decimal, Decimal]]:
    """(value, resolution) of each number written with Korean numerals or units in an NFKC ``text``.

    The longest prefix of each run that reads as one number counts; it must hold two numeral syllables, or
    digits and a unit (a lone 만, 조 or 구 is a word, not a number: 조회, 동작구).
    """
    taken = list(taken)
    out: list[tuple[Decimal, Decimal]] = []
    for match in _KO_RUN.finditer(text):
        if any(a <= match.start() < b for a, b in taken):
            continue
        run = match.group()
        for end in range(len(run), 0, -1):
            head = run[:end]
            if head[-1] in ", .":
                continue
            got = _ko_value(head)
            if got is None:
                continue
            syllables = sum(ch in _KO_CHARS for ch in head)
            if syllables >= 2 or (syllables and any(ch.isdigit() for ch in head)):
                out.append(got)
            break
    return out


def number_mentions(question: str) -> list[tuple[Decimal, Decimal]]:
    """(value, resolution) of every number the question writes, outside dates: ``215.8`` → (215.8, 0.1),
    ``11 394.87`` → (11394.87, 0.01), ``3,660만`` → (36600000, 10000), ``천육백팔십`` → (1680, 10)."""
    text = unicodedata.normalize("NFKC", question)
    _, taken = _dates_in(text)
    out: list[tuple[Decimal, Decimal]] = []
    for pattern in (_NUMBER, _SPACED_NUMBER):
        for match in pattern.finditer(text):
            # inside a date it is part of the date; running past one (19270201.1) it is a number that looks
            # like a date at first
            if any(a <= match.start() and match.end() <= b for a, b in taken):
                continue
            written = match.group().replace(",", "").replace(" ", "")
            number = _as_decimal(written)
            if number is not None:
                _, _, fraction = written.partition(".")
                out.append((number, Decimal(1).scaleb(-len(fraction))))
    # eight bare digits read as a date (20380401) are a number all the same: a rounding may look like a date
    out += [(Decimal(m.group()), Decimal(1)) for m in re.finditer(r"(?<![\d,.])\d{8}(?![\d,.])", text)]
    return out + korean_numbers(text, taken)


def _significant(value: Decimal, resolution: Decimal) -> int:
    """Significant digits a mention shows: its digits down to its resolution, without trailing zeros."""
    return len(str(abs(int((value / resolution).to_integral_value()))).rstrip("0"))


def discloses_number(secret: Any, mentions: Iterable[tuple[Decimal, Decimal]]) -> bool:
    """Whether a mention states ``secret`` exactly, or rounded or cut to its resolution with at least three
    significant digits (215.8 or 216 for 215.789; not 200, not 2.2백)."""
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


def normalize_question(question: str) -> str:
    """The question as compared for near-duplicates: NFKC, case-folded, letters and digits only."""
    text = unicodedata.normalize("NFKC", question).casefold()
    return "".join(ch for ch in text if ch.isalnum())


# Han ideographs (unified, extension A, compatibility) and kana (hiragana, katakana, half-width katakana).
_FOREIGN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\u3040-\u309f\u30a0-\u30ff\uff66-\uff9f]")
_HANGUL = re.compile(r"[\uac00-\ud7a3]")


def foreign_script(text: str) -> list[str]:
    """The Han and kana characters in ``text``, in order (regex over Unicode blocks)."""
    return _FOREIGN.findall(text)


def has_hangul(text: str) -> bool:
    return bool(_HANGUL.search(text))
