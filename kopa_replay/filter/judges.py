"""Two independent deterministic judges for the second stage, each answering all four checks.

The paper's second stage discards an item only when two independent models
agree. Offline, the two referees are two *different implementations* of each
check, so that one's blind spot is unlikely to be the other's:

==============  =========================================  ==============================================
check           :class:`RegexJudge` (``regex``)            :class:`TokenJudge` (``ngram``)
==============  =========================================  ==============================================
wrong_script    Unicode block ranges (regex)               ``unicodedata.name`` of each character
ungradable      normalized character length, kind rules    whitespace token counts, ``float()`` parsing
disclosed       regex canonical keys, Korean numerals and  tokenize, re-assemble digit windows, read
                units by a regex grammar, roundings        numerals and units with an accumulator,
                (:mod:`~kopa_replay.text.keys`)            roundings by floor/ceil; 3-gram containment
unconstrained   first candidates, tolerance comparison     last candidates, canonical-string comparison
==============  =========================================  ==============================================

Both are pure: the only "I/O" is the :class:`~kopa_replay.filter.model.Case`
probe, which re-runs the plan with a junction's values replaced.

A number is disclosed however it is written — ``1,680``, ``１６８０``, ``1 680``,
``천육백팔십``, ``1.68천``, ``0.168만`` — and so is a rounding or truncation that
keeps three significant digits (``215.8``, ``216`` or ``약 215.79`` for
215.789; ``약 3,660만`` for 36,601,732): each judge reads every number the
question writes with the precision it is written at, the regex judge with a
grammar (:func:`~kopa_replay.text.mentions.number_mentions`), the token
judge with an accumulator over tokens (``_number_phrases``), and compares
exactly or within that precision. Measured against an injector written
without this code: :mod:`kopa_replay.filter.adversary`.
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections.abc import Iterable
from fractions import Fraction
from typing import Any

from kopa_replay import text as norm
from kopa_replay.filter.facts import secret_keys, secret_values
from kopa_replay.filter.model import Case, Verdict
from kopa_replay.filter.perturb import answers_equal, answers_same_text, unconstrained_verdict
from kopa_replay.synth.model import ANSWER_KINDS

__all__ = ["RegexJudge", "TokenJudge", "default_judges", "MAX_TEXT_CHARS", "MAX_TEXT_TOKENS", "MAX_SET"]

#: a text answer longer than this (normalized characters) is free prose, not something a grader can match
MAX_TEXT_CHARS = 60
#: the token judge's version of the same limit
MAX_TEXT_TOKENS = 10
#: a set answer with more members than this is a dump, not an answer
MAX_SET = 20


def _keep(detail: str = "") -> Verdict:
    return Verdict(False, detail)


def _drop(detail: str) -> Verdict:
    return Verdict(True, detail)


# -- the regex judge ------------------------------------------------------------
class _CheckTable:
    """A judge answers each stage-2 check with its own method of the same name (``_script`` for wrong_script …)."""

    _METHODS = {
        "wrong_script": "_script",
        "ungradable": "_gradable",
        "disclosed": "_disclosed",
        "unconstrained": "_unconstrained",
    }

    def judge(self, check: str, case: Case) -> Verdict:
        return getattr(self, self._METHODS[check])(case)


class RegexJudge(_CheckTable):
    """Regular expressions and canonical keys (:mod:`kopa_replay.text`)."""

    name = "regex"

    def _script(self, case: Case) -> Verdict:
        question = case.trajectory.question
        foreign = norm.foreign_script(question)
        if foreign:
            return _drop(f"Han/kana characters {''.join(foreign[:8])!r} in the Korean question")
        if not norm.has_hangul(question):
            return _drop("no Hangul in the question")
        return _keep()

    def _gradable(self, case: Case) -> Verdict:
        answer = case.trajectory.answer
        if answer.kind not in ANSWER_KINDS:
            return _drop(f"answer kind {answer.kind!r} is not one of {', '.join(ANSWER_KINDS)}")
        value = answer.value
        if answer.kind == "number":
            ok = norm.number_key(value) is not None
            return _keep() if ok else _drop(f"number answer {value!r} is not a finite number")
        if answer.kind == "bool":
            return _keep() if isinstance(value, bool) else _drop(f"yes/no answer {value!r} is not a boolean")
        if answer.kind == "text":
            return self._text(value, "text answer")
        if not isinstance(value, (list, tuple, set, frozenset)) or not value:
            return _drop(f"set answer {value!r} is empty or not a collection")
        if len(value) > MAX_SET:
            return _drop(f"set answer has {len(value)} members (more than {MAX_SET})")
        for member in value:
            verdict = self._text(member, "set member")
            if verdict.discard:
                return verdict
        return _keep()

    @staticmethod
    def _text(value: Any, what: str) -> Verdict:
        if not isinstance(value, str) or not norm.text_form(value):
            return _drop(f"{what} {value!r} is empty or not text")
        if "\n" in value.strip() or len(norm.text_form(value)) > MAX_TEXT_CHARS:
            return _drop(f"{what} is free text ({len(value)} characters), not gradable by matching")
        return _keep()

    def _disclosed(self, case: Case) -> Verdict:
        trajectory = case.trajectory
        secrets = secret_values(trajectory, case.catalog)
        keys = secret_keys(secrets)
        mentioned = norm.question_keys(trajectory.question) | norm.comma_codes(trajectory.question)
        numbers = norm.number_mentions(trajectory.question)
        for key, (role, value) in keys.items():
            if key.startswith("T:"):
                hit = norm.mentions_text(trajectory.question, key)
            else:
                hit = key in mentioned or (key.startswith("N:") and norm.discloses_number(key[2:], numbers))
            if hit:
                return _drop(f"{role} value {value!r} appears in the question (as {key})")
        return _keep(f"{len(secrets)} secret value(s) checked")

    def _unconstrained(self, case: Case) -> Verdict:
        return unconstrained_verdict(case, answers_equal, from_end=False)


# -- the token judge ------------------------------------------------------------
_TOKEN = re.compile(r"\d+|[^\W\d_]+|[^\s\w]|_")
_JOINERS = {",", ".", "-", "/"}
_SECRET_GLUE = _JOINERS | {"년", "월", "일"}
_MAX_WINDOW = 5


def _tokens(text: str) -> list[str]:
    return _TOKEN.findall(unicodedata.normalize("NFKC", text))


def _date_spans(tokens: list[str]) -> tuple[set[tuple], set[int]]:
    """Dates written over several tokens (2026-08-31, 2026.8.31, 2026년 8월 31일): their forms and the token
    indexes they use, so that their parts are not read again as numbers ("25일" is not the number 25)."""
    forms: set[tuple] = set()
    used: set[int] = set()
    for i in range(len(tokens) - 4):
        y, s1, m, s2, d = tokens[i : i + 5]
        if not (y.isdigit() and m.isdigit() and d.isdigit()):
            continue
        if not ((s1 == s2 and s1 in {"-", "/", "."}) or (s1, s2) == ("년", "월")):
            continue
        day = _date_of([y, m, d])
        if day:
            forms.add(("date", day))
            used.update(range(i, i + 5))
    return forms, used


def _windows(tokens: list[str], used: set[int]) -> Iterable[tuple[list[str], list[str], bool]]:
    """(digit groups, separators between them, minus sign before) for every run of digit tokens joined by
    number glue, outside the tokens of multi-token dates."""
    for i, token in enumerate(tokens):
        if not token.isdigit() or i in used:
            continue
        if i > 0 and tokens[i - 1].isascii() and tokens[i - 1].isalpha():
            continue  # B10, KR7142390004: digits of an identifier, matched as text, not as a number
        # a "-" right before is a sign unless it joins two digit groups (13-3, 110111-1234567)
        negative = i > 0 and tokens[i - 1] == "-" and not (i > 1 and tokens[i - 2].isdigit())
        groups: list[str] = [token]
        seps: list[str] = []
        j = i + 1
        yield list(groups), list(seps), negative
        while j < len(tokens) and len(groups) < _MAX_WINDOW:
            if tokens[j].isdigit() and j not in used:
                seps.append("")
                groups.append(tokens[j])
                j += 1
            elif tokens[j] in _JOINERS and j + 1 < len(tokens) and tokens[j + 1].isdigit() and j + 1 not in used:
                seps.append(tokens[j])
                groups.append(tokens[j + 1])
                j += 2
            else:
                break
            yield list(groups), list(seps), negative


def _date_of(groups: list[str]) -> tuple[int, int, int] | None:
    if len(groups) == 1 and len(groups[0]) == 8:
        groups = [groups[0][:4], groups[0][4:6], groups[0][6:]]
    if len(groups) != 3 or len(groups[0]) != 4 or not all(1 <= len(g) <= 2 for g in groups[1:]):
        return None
    y, m, d = (int(g) for g in groups)
    if 1900 <= y <= 2100 and 1 <= m <= 12 and 1 <= d <= 31:
        return y, m, d
    return None


def _forms_of_window(groups: list[str], seps: list[str], negative: bool = False) -> set[tuple]:
    forms = _unsigned_forms(groups, seps)
    if negative:
        forms |= {("num", -f[1]) for f in forms if f[0] == "num"}
    return forms


def _unsigned_forms(groups: list[str], seps: list[str]) -> set[tuple]:
    forms: set[tuple] = set()
    digits = "".join(groups)
    forms.add(("code", digits))
    if len(digits.lstrip("0")) >= 4:
        forms.add(("code", digits.lstrip("0")))
    if all(s == "," for s in seps) and all(len(g) == 3 for g in groups[1:]):
        forms.add(("num", Fraction(int(digits))))
    if len(groups) == 1:
        forms.add(("num", Fraction(int(digits))))
    if (
        len(groups) >= 2
        and seps[-1] == "."
        and all(s == "," for s in seps[:-1])
        and all(len(g) == 3 for g in groups[1:-1])
    ):
        whole = "".join(groups[:-1])
        forms.add(("num", Fraction(f"{whole}.{groups[-1]}")))
    if len(groups) == 1:
        day = _date_of(groups)
        if day:
            forms.add(("date", day))
    return forms


def _forms_of_secret(value: Any) -> set[tuple]:
    """The token judge's own reading of a secret value: number, date, code, else text."""
    text = unicodedata.normalize("NFKC", str(value)).strip()
    forms: set[tuple] = set()
    plain = text.replace(",", "")
    for unit in ("원", "%", "건", "명", "개"):
        plain = plain.removesuffix(unit).strip()
    try:
        number = Fraction(plain)
    except (ValueError, ZeroDivisionError):
        number = None
    if number is not None:
        forms.add(("num", number))
    groups = _tokens(text)
    digit_groups = [g for g in groups if g.isdigit()]
    if digit_groups and all(g.isdigit() or g in _SECRET_GLUE for g in groups):
        digits = "".join(digit_groups)
        if number is not None and "." in plain:  # "1680.0" is a number, not the code 16800 — but 1680 it is
            digits = str(number.numerator) if number.denominator == 1 and number >= 0 else ""
        if digits:
            forms.add(("code", digits))
            if len(digits.lstrip("0")) >= 4:
                forms.add(("code", digits.lstrip("0")))
        day = _date_of(digit_groups)
        if day:
            forms.add(("date", day))
    if not forms:
        forms.add(("text", "".join(ch for ch in text.casefold() if ch.isalnum())))
    return forms


# Korean numerals, read token by token with an accumulator (the regex judge reads the same texts with a
# grammar of regular expressions, :func:`kopa_replay.text.mentions.korean_numbers`).
_HANGUL_DIGITS = {ch: n for n, ch in enumerate("일이삼사오육칠팔구", start=1)}
_HANGUL_SMALL = {"십": 10, "백": 100, "천": 1000}
_HANGUL_BIG = {"만": 10**4, "억": 10**8, "조": 10**12}


class _Reading:
    """A number being read, atom by atom (an Arabic figure or one numeral syllable). Each ``take_*`` returns
    False, leaving the reading as it was, when the atom cannot continue the number."""

    def __init__(self) -> None:
        self.total = Fraction(0)  # closed groups (… 만, … 억)
        self.section = Fraction(0)  # the open group below 10^4
        self.section_res: Fraction | None = None
        self.pending: Fraction | None = None
        self.pending_res = Fraction(1)
        self.resolution: Fraction | None = None
        self.smallest = 10**5  # units must fall within a group and across groups
        self.biggest = 10**17
        self.syllables = 0
        self.arabic = False

    def take_number(self, value: Fraction, resolution: Fraction) -> bool:
        if self.pending is not None or self.section:
            return False  # 2 after 20, or 500 after 2천
        self.pending, self.pending_res, self.arabic = value, resolution, True
        return True

    def take_syllable(self, ch: str) -> bool:
        if ch in _HANGUL_DIGITS:
            if self.pending is not None:
                return False
            self.pending, self.pending_res = Fraction(_HANGUL_DIGITS[ch]), Fraction(1)
        elif ch in _HANGUL_SMALL:
            unit = _HANGUL_SMALL[ch]
            if unit >= self.smallest:
                return False
            count = self.pending if self.pending is not None else Fraction(1)
            self.section += count * unit
            self.section_res = (self.pending_res if self.pending is not None else Fraction(1)) * unit
            self.pending, self.smallest = None, unit
        elif ch in _HANGUL_BIG:
            unit = _HANGUL_BIG[ch]
            if unit >= self.biggest:
                return False
            group = self.section + (self.pending or 0)
            if self.pending is not None:
                res = self.pending_res
            elif self.section:
                assert self.section_res is not None  # set whenever the section grows (above)
                res = self.section_res
            else:
                res = Fraction(1)
            if not group:
                group = Fraction(1)  # 만 이천: one 만
            self.total += group * unit
            self.resolution = res * unit
            self.section, self.section_res, self.pending = Fraction(0), None, None
            self.smallest, self.biggest = 10**5, unit
        else:
            return False
        self.syllables += 1
        return True

    def result(self) -> tuple[Fraction, Fraction, bool] | None:
        """(value, resolution, written with Hangul) or None when too little was read to be a number."""
        if self.syllables == 1 and not self.arabic or (not self.syllables and not self.arabic):
            return None  # a lone 만, 구 or 조 is a word (조회, 동작구)
        value = self.total + self.section + (self.pending or 0)
        if self.pending is not None:
            res = self.pending_res
        elif self.section:
            res = self.section_res or Fraction(1)
        else:
            res = self.resolution or Fraction(1)
        return value, res, bool(self.syllables)


def _arabic_at(tokens: list[str], i: int, used: set[int]) -> tuple[Fraction, Fraction, int]:
    """The figure starting at digit token ``i`` — thousands grouped by commas or by spaces (which tokens drop),
    then a decimal part — as (value, resolution, next index)."""
    groups, j, mode = [tokens[i]], i + 1, ""
    while len(groups[0]) <= 3:
        if (
            mode in ("", ",")
            and j + 1 < len(tokens)
            and tokens[j] == ","
            and len(tokens[j + 1]) == 3
            and tokens[j + 1].isdigit()
            and j + 1 not in used
        ):
            groups.append(tokens[j + 1])
            j, mode = j + 2, ","
        elif mode in ("", " ") and j < len(tokens) and len(tokens[j]) == 3 and tokens[j].isdigit() and j not in used:
            groups.append(tokens[j])
            j, mode = j + 1, " "
        else:
            break
    value, resolution = Fraction(int("".join(groups))), Fraction(1)
    if j + 1 < len(tokens) and tokens[j] == "." and tokens[j + 1].isdigit() and j + 1 not in used:
        resolution = Fraction(1, 10 ** len(tokens[j + 1]))
        value += int(tokens[j + 1]) * resolution
        j += 2
    return value, resolution, j


def _number_phrases(tokens: list[str], used: set[int]) -> list[tuple[Fraction, Fraction, bool]]:
    """Every number the tokens write, as (value, resolution, with Hangul): figures at the precision written,
    Korean numerals and figures times Korean units (1.68천, 3,660만 1,732, 천육백팔십)."""
    out = []
    read_to = 0  # a number read from an earlier token ends here: its tail (만 1,732) is not a number of its own
    for start, token in enumerate(tokens):
        if start in used or start < read_to:
            continue
        before = tokens[start - 1] if start else ""
        if token.isdigit():
            if (
                (before.isascii() and before.isalpha())
                or before.isdigit()
                or (before in _JOINERS and start > 1 and tokens[start - 2].isdigit())
            ):
                continue  # an identifier's digits, or the middle of a figure read from its start
        elif token[0] not in _HANGUL_DIGITS and token[0] not in _HANGUL_SMALL and token[0] not in _HANGUL_BIG:
            continue
        reading, j = _Reading(), start
        while j < len(tokens) and j not in used:
            if tokens[j].isdigit():
                value, resolution, after = _arabic_at(tokens, j, used)
                if not reading.take_number(value, resolution):
                    break
                j = after
                continue
            taken = 0
            for ch in tokens[j]:
                if not reading.take_syllable(ch):
                    break
                taken += 1
            if taken < len(tokens[j]):
                break  # the token goes on as a word: the number ends inside it
            j += 1
        got = reading.result()
        if got is not None:
            read_to = j
            negative = before == "-" and not (start > 1 and tokens[start - 2].isdigit())
            out.append((-got[0], got[1], got[2]) if negative else got)
    return out


def _near(secret: Fraction, value: Fraction, resolution: Fraction) -> bool:
    """``value`` is ``secret`` cut or rounded to ``resolution``, showing three significant digits or more."""
    steps = secret / resolution
    if value not in (math.floor(steps) * resolution, math.ceil(steps) * resolution) or not value:
        return False
    shown = abs(value / resolution)
    return len(str(shown.numerator // shown.denominator).rstrip("0")) >= 3


def _trigrams(text: str) -> set[str]:
    return {text[i : i + 3] for i in range(len(text) - 2)}


class TokenJudge(_CheckTable):
    """Tokens and character n-grams: an implementation that shares no parsing code with :class:`RegexJudge`."""

    name = "ngram"
    #: share of a text secret's character 3-grams that must appear in the question
    containment = 0.9

    def _script(self, case: Case) -> Verdict:
        foreign, hangul = [], 0
        for ch in case.trajectory.question:
            name = unicodedata.name(ch, "")
            if name.startswith(
                ("CJK UNIFIED IDEOGRAPH", "CJK COMPATIBILITY IDEOGRAPH", "HIRAGANA", "KATAKANA", "HALFWIDTH KATAKANA")
            ):
                foreign.append(ch)
            elif name.startswith("HANGUL SYLLABLE"):
                hangul += 1
        if foreign:
            return _drop(f"{len(foreign)} Han/kana character(s) by Unicode name, first {foreign[0]!r}")
        if not hangul:
            return _drop("no Hangul syllables")
        return _keep()

    def _gradable(self, case: Case) -> Verdict:
        answer = case.trajectory.answer
        value = answer.value
        if answer.kind == "number":
            try:
                ok = not isinstance(value, bool) and math.isfinite(float(value))
            except (TypeError, ValueError):
                ok = False
            return _keep() if ok else _drop(f"float({value!r}) fails or is not finite")
        if answer.kind == "bool":
            return _keep() if value in (True, False) and type(value) is bool else _drop(f"{value!r} is not yes/no")
        if answer.kind == "text":
            return self._short(value)
        if answer.kind == "set":
            members = list(value) if isinstance(value, (list, tuple, set, frozenset)) else []
            if not members or len(members) > MAX_SET:
                return _drop(f"set of {len(members)} member(s) cannot be graded")
            for member in members:
                verdict = self._short(member)
                if verdict.discard:
                    return verdict
            return _keep()
        return _drop(f"unknown answer kind {answer.kind!r}")

    @staticmethod
    def _short(value: Any) -> Verdict:
        tokens = str(value).split() if isinstance(value, str) else []
        if not tokens:
            return _drop(f"{value!r} has no tokens")
        if len(tokens) > MAX_TEXT_TOKENS:
            return _drop(f"{len(tokens)} tokens: free text")
        return _keep()

    def _disclosed(self, case: Case) -> Verdict:
        trajectory = case.trajectory
        tokens = _tokens(trajectory.question)
        mentioned, used = _date_spans(tokens)
        for groups, seps, negative in _windows(tokens, used):
            mentioned |= _forms_of_window(groups, seps, negative)
        phrases = _number_phrases(tokens, used)
        mentioned |= {("num", value) for value, _, _ in phrases}
        flat = "".join(ch for ch in unicodedata.normalize("NFKC", trajectory.question).casefold() if ch.isalnum())
        grams = _trigrams(flat)
        for role, value in secret_values(trajectory, case.catalog):
            # in a fixed order: the reason names the first form found, and a set's order differs between processes
            for form in sorted(_forms_of_secret(value), key=lambda f: (f[0], str(f[1]))):
                if form[0] == "text":
                    hit = self._text_in(form[1], flat, grams)
                elif form[0] == "num":
                    hit = form in mentioned or any(_near(form[1], shown, res) for shown, res, _ in phrases)
                else:
                    hit = form in mentioned
                if hit:
                    return _drop(f"{role} value {value!r} found among the question's tokens ({form[0]})")
        return _keep()

    def _text_in(self, secret: str, flat: str, grams: set[str]) -> bool:
        if len(secret) < 3:
            return bool(secret) and secret in flat
        mine = _trigrams(secret)
        return len(mine & grams) / len(mine) >= self.containment

    def _unconstrained(self, case: Case) -> Verdict:
        return unconstrained_verdict(case, answers_same_text, from_end=True)


def default_judges() -> tuple[RegexJudge, TokenJudge]:
    """The two offline referees: independent implementations, both must agree to discard."""
    return RegexJudge(), TokenJudge()
