"""Numbers in running text: Korean numerals and units, and the two readers built on them.

One grammar reads a number written with Korean numerals or units
(:func:`korean_value`): below 10^4 an Arabic figure
(:data:`~kopa_replay.text.numbers.DIGITS`), optionally times 십/백/천
(``1.68천``, ``2천``), or Hangul numerals (``천육백팔십``); then the big units
만, 억, 조 in falling order, each after its group (``3,660만 1,732``,
``3억 2천만``; an empty group before 만 is one: ``만 이천``). It gives the value
*and its resolution* — the place of the last digit written (``3,660만``: 10^4),
so a reader can tell a restatement from a rounding.

Two readers scan a text with it; they differ on purpose, by what they are for:

* :func:`number_mentions` — *every* reading of every number a question writes,
  for the filter's disclosure check, which must not miss one: overlapping
  readings all count (``1.68천`` is read as 1.68 and as 1680), numbers grouped by
  spaces (``11 394.87``) and eight bare digits that also read as a date count,
  dates themselves do not (``2026년 8월 25일`` does not mention 25), and a malformed
  group still yields its head (``1,2345`` mentions 1). Returns ``(value, resolution)``.
* :func:`parse_numbers` — *one* reading per number an answer states, in order,
  with its unit, for the benchmark's grader, which counts them (more than a few
  is a guess list) and must be lenient about how an answer is typed: a sign may
  be U+2212 (``−12.5``), units may follow a space and be spelled out
  (``12.5 퍼센트``), a multiplier may follow a space (``3 만``), a malformed group
  is no number at all. Returns :class:`NumberMention`.

Pure: no I/O, no state.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass
from decimal import Decimal

from kopa_replay.text.keys import FIGURE, date_spans
from kopa_replay.text.numbers import DIGITS, UNITS

__all__ = ["korean_value", "korean_numbers", "number_mentions", "NumberMention", "parse_numbers"]

_KO_DIGIT = {"일": 1, "이": 2, "삼": 3, "사": 4, "오": 5, "육": 6, "칠": 7, "팔": 8, "구": 9}
_KO_SMALL = {"십": 10, "백": 100, "천": 1000}
_KO_BIG = {"만": 4, "억": 8, "조": 12}  # powers of ten
_KO_CHARS = "".join([*_KO_DIGIT, *_KO_SMALL, *_KO_BIG])
# A run that may hold a Korean number: it starts a word, holds digits, commas, points and numeral syllables,
# and may take one space after a big unit (3660만 1732, 만 이천). It is then read by the grammar below.
_KO_RUN = re.compile(rf"(?<![\w.,])(?=[\d{_KO_CHARS}])(?:[\d,.{_KO_CHARS}]|(?<=[만억조]) (?=[\d{_KO_CHARS}]))+")
# below 10^4: an Arabic figure, optionally times 십/백/천 (1.68천, 2천, 12.5백), or Hangul numerals (천육백팔십)
_KO_ARABIC = re.compile(rf"({DIGITS})(?:\.(\d+))?([십백천]?)")
_D = "([일이삼사오육칠팔구])"
_KO_HANGUL = re.compile(rf"(?:{_D}?(천))?(?:{_D}?(백))?(?:{_D}?(십))?{_D}?")
_SPACED_NUMBER = re.compile(r"(?<![\d.,A-Za-z])[-+]?\d{1,3}(?: \d{3})+(?:\.\d+)?(?![\d])")


def _below_10000(text: str) -> tuple[Decimal, Decimal] | None:
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


def korean_value(run: str) -> tuple[Decimal, Decimal] | None:
    """(value, resolution) of a number written with Korean numerals or units — big units in falling order, each
    after its group (an empty group before 만 is one: 만 이천), spaces ignored — or None when ``run`` is not one
    number. ``"3,660만"`` → (36600000, 10000), ``"천육백팔십"`` → (1680, 10), ``"1,680"`` → (1680, 1)."""
    pieces = re.split(r"([만억조])", run.replace(" ", ""))
    total, resolution, previous = Decimal(0), None, 99
    for i in range(0, len(pieces), 2):
        part, big = pieces[i], (pieces[i + 1] if i + 1 < len(pieces) else None)
        if big is None:
            if part:
                got = _below_10000(part)
                if got is None:
                    return None
                total, resolution = total + got[0], got[1]
            break
        exponent = _KO_BIG[big]
        if exponent >= previous:
            return None
        previous = exponent
        got = _below_10000(part) if part else (Decimal(1), Decimal(1))
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
            got = korean_value(head)
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
    _, taken = date_spans(text)
    out: list[tuple[Decimal, Decimal]] = []
    for pattern in (FIGURE, _SPACED_NUMBER):
        for match in pattern.finditer(text):
            # inside a date it is part of the date; running past one (19270201.1) it is a number that looks
            # like a date at first
            if any(a <= match.start() and match.end() <= b for a, b in taken):
                continue
            written = match.group().replace(",", "").replace(" ", "")
            number = Decimal(written)
            _, _, fraction = written.partition(".")
            out.append((number, Decimal(1).scaleb(-len(fraction))))
    # eight bare digits read as a date (20380401) are a number all the same: a rounding may look like a date
    out += [(Decimal(m.group()), Decimal(1)) for m in re.finditer(r"(?<![\d,.])\d{8}(?![\d,.])", text)]
    return out + korean_numbers(text, taken)


# -- an answer's numbers: one reading each, with its unit ---------------------------------------------
_BIG_LEAD = {ch: 10**exponent for ch, exponent in _KO_BIG.items()}
# A number as an answer writes it: sign, digits (comma groups whole), Korean multipliers, a unit. Digits right
# after a Latin letter or a digit belong to something else.
_ANSWER_NUMBER = re.compile(
    rf"(?<![\dA-Za-z.,])([-+\u2212]?)({DIGITS}(?:\.\d+)?)(?!\d|,\d)\s*([천만억조]*)\s*"
    rf"({'|'.join(sorted(UNITS, key=len, reverse=True))})?"
)


@dataclass(frozen=True)
class NumberMention:
    """One number in an answer: its value (multipliers applied), unit, and the half-unit of its last digit."""

    value: Decimal
    unit: str
    text: str
    half_ulp: Decimal
    significant: int


def _scaled(digits: str, multipliers: str) -> tuple[Decimal, Decimal]:
    """(value, resolution) of digits times their multipliers, by :func:`korean_value`; multipliers that do not
    continue the number (``2천천``, ``5조억``) are left off from the end."""
    for end in range(len(multipliers), -1, -1):
        got = korean_value(digits + multipliers[:end])
        if got is not None:
            return got
    raise AssertionError(f"digits {digits!r} always read")  # pragma: no cover — DIGITS is korean_value's grammar


def _mention(sign: str, digits: str, multipliers: str, unit: str | None, text: str) -> NumberMention:
    value, resolution = _scaled(digits, multipliers)
    significant = len(digits.replace(",", "").replace(".", "").lstrip("0"))
    return NumberMention(
        -value if sign in ("-", "\u2212") else value,
        UNITS.get(unit or "", ""),
        text.strip(),
        resolution / 2,
        significant,
    )


def parse_numbers(text: str | None) -> tuple[NumberMention, ...]:
    """Every number written in ``text``, in order; never raises.

    ``"1,680원"`` → 1680 원; ``"215.79%"`` → 215.79 %; ``"1.68만"`` → 16800; ``"3억 2천만원"`` → 320000000 원
    (a larger Korean unit followed by a smaller one is one number). Malformed comma groups are skipped.
    """
    if not text:
        return ()
    source = unicodedata.normalize("NFKC", str(text))
    found: list[tuple[NumberMention, int, int, int]] = []  # mention, start, end, leading multiplier
    for match in _ANSWER_NUMBER.finditer(source):
        sign, digits, multipliers, unit = match.groups()
        mention = _mention(sign, digits, multipliers, unit, match.group())
        lead = (_BIG_LEAD.get(multipliers[0]) or _KO_SMALL[multipliers[0]]) if multipliers else 1
        if found:
            previous, start, end, previous_lead = found[-1]
            # "3억 2천만원": a bare number with a Korean unit, then a smaller one right after it
            if (
                previous_lead >= 10**4
                and not previous.unit
                and source[end : match.start()].strip() == ""
                and mention.value.copy_abs() < previous_lead
                and not sign
            ):
                merged = NumberMention(
                    previous.value + mention.value,
                    mention.unit,
                    source[start : match.end()].strip(),
                    mention.half_ulp,
                    previous.significant + mention.significant,
                )
                found[-1] = (merged, start, match.end(), lead)
                continue
        found.append((mention, match.start(), match.end(), lead))
    return tuple(item[0] for item in found)
