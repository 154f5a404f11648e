"""A second defect injector, written independently of the filter it measures.

:mod:`kopa_replay.filter.defects` builds its leaks with the filter's own
normalizers and its duplicates with identical plans, so the filter catches
them by construction. This module makes the same classes of defect from
outside: it imports nothing from :mod:`kopa_replay.filter` — not ``normalize``,
``rules``, ``judges``, ``facts`` or ``perturb``, nor the facts they share with
synth (:mod:`kopa_replay.synth.facts`), nor anything that imports them
(``tests/filter/test_filter_adversary.py`` parses this file and checks) — and
uses only the synthesized trajectory's own model and re-runner
(:mod:`kopa_replay.synth.model`, :mod:`kopa_replay.synth.plan`) and its own
rules:

* **what is secret** — every value handed between calls (``trajectory.handed``
  and each junction's values, each component of a ``{param: value}``
  binding) and the answer (its number or text, each member of a set) — minus
  what the user states anyway: the first step's arguments and any later
  argument no junction binds, paging parameters aside;
* **how a number is written** — its own Korean numeral writer (천육백팔십,
  3,660만 1,732, 만 이천), unit rescaler (1.68천원, 0.125억), digit styles and
  rounding.

Kinds (each labelled; ``INTENDED_CHECK`` names the filter check meant to catch it):

* ``numeral`` — an answer or handed number in Korean numerals, pure or mixed;
* ``unit`` — a number rescaled by a Korean unit (천, 만, 백만, 천만, 억, 조);
* ``digits`` — full-width, space-grouped or broken digits, codes split in groups;
* ``rounded`` — a decimal rounded or truncated as people write it, keeping at
  least three significant digits (so it still discloses);
* ``embedded`` — a handed or answer text glued into other words or inflected
  (라이트론측, 서현고등학교에서, 국토교통 위원회의);
* ``paraphrase`` — a near-copy: the same plan, the question reworded and the
  arguments' key order shuffled, under an id that sorts after the original's;
* ``unconstrained`` — the answer spec rewritten to read only the start group,
  the answer recomputed by re-running the plan (state digest re-taken), kept
  only where some junction can take another value and still run.

Leaks go into the question at a word boundary inside it, preferring clause
boundaries, never only as a prefix or suffix. Deterministic for a seed: one
``numpy.random.Generator``, items in id order. Sources are distinct within a
kind; kinds may reuse a source (measure each kind in its own pool).
"""

from __future__ import annotations

import copy
import dataclasses
import json
import re
import unicodedata
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from decimal import ROUND_DOWN, ROUND_HALF_UP, Decimal, InvalidOperation
from typing import Any

import numpy as np

from kopa_replay.catalog.model import PAGING_PARAMS
from kopa_replay.errors import KopaError, UsageError
from kopa_replay.synth.model import Trajectory

__all__ = [
    "ADVERSARY_KINDS",
    "LEAK_KINDS",
    "INTENDED_CHECK",
    "Crafted",
    "Secret",
    "craft_defects",
    "secrets_of",
    "hangul_numeral",
    "mixed_numeral",
    "rescaled_forms",
    "digit_forms",
    "rounded_forms",
    "embedded_forms",
    "paraphrase_question",
]

LEAK_KINDS = ("numeral", "unit", "digits", "rounded", "embedded")
ADVERSARY_KINDS = (*LEAK_KINDS, "paraphrase", "unconstrained")
#: the filter check meant to catch each kind
INTENDED_CHECK = {
    **{kind: "disclosed" for kind in LEAK_KINDS},
    "paraphrase": "near_duplicate",
    "unconstrained": "unconstrained",
}

#: paging parameters of the built-in platforms, for when no catalog says which they are


@dataclass(frozen=True)
class Crafted:
    """One defective item: the trajectory, its kind, the clean item it came from, what was done."""

    trajectory: Trajectory
    kind: str
    source: str
    detail: str


@dataclass(frozen=True)
class Secret:
    """A value the question must not state: ``role`` handed or answer; ``shape`` quantity, code, date or text."""

    role: str
    value: Any
    shape: str


# -- what is secret (this module's own rules) ----------------------------------------------
def _text(value: Any) -> str:
    return unicodedata.normalize("NFKC", str(value)).strip()


def _flat(value: Any) -> str:
    """Case-folded text with only letters and digits (how a reader compares two mentions of one thing)."""
    return "".join(ch for ch in _text(value).casefold() if ch.isalnum())


def _decimal(value: Any) -> Decimal | None:
    """The number a value is (``1680``, ``"1,680"``, ``215.78``), or None; booleans and codes with leading zeros
    are not numbers."""
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        try:
            number = Decimal(repr(value)) if isinstance(value, float) else Decimal(value)
        except InvalidOperation:
            return None
        return number if number.is_finite() else None
    text = _text(value)
    if not re.fullmatch(r"-?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?", text):
        return None
    if re.match(r"-?0\d", text):
        return None  # 00439743 is a code
    try:
        return Decimal(text.replace(",", ""))
    except InvalidOperation:  # pragma: no cover - the pattern admits only numbers
        return None


def _is_date(digits: str) -> bool:
    if len(digits) != 8:
        return False
    year, month, day = int(digits[:4]), int(digits[4:6]), int(digits[6:])
    return 1900 <= year <= 2100 and 1 <= month <= 12 and 1 <= day <= 31


def _shape(value: Any, role: str) -> str | None:
    """How a secret is written: a quantity, a digit code, a date, or a text (None: nothing worth hiding)."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, (int, float)):
        number = _decimal(value)
        return (
            "quantity" if number is not None and (abs(number) >= 10 or number != number.to_integral_value()) else None
        )
    text = _text(value)
    if re.fullmatch(r"\d+", text):  # digits as text: a code (a route number, a region code) or a date
        if _is_date(text):
            return "date"
        return "code" if len(text) >= 3 else None
    if _decimal(text) is not None:
        return "quantity" if abs(_decimal(text)) >= 10 or "." in text else None  # type: ignore[arg-type]
    return "text" if len(_flat(text)) >= 2 and any(ch.isalpha() for ch in text) else None


def _paging(catalog: Any, tool: str) -> frozenset[str]:
    if catalog is None:
        return PAGING_PARAMS
    try:
        pagination = catalog.get(tool).http.pagination
    except (KopaError, AttributeError):
        return PAGING_PARAMS
    return pagination.params


def _stated(trajectory: Trajectory, catalog: Any) -> list[Any]:
    """The arguments the user gives: all of the first step's, and any later one no junction binds."""
    group_of = {step.index: step.group for step in trajectory.steps}
    bound: dict[int, set[str]] = {}
    for junction in trajectory.junctions:
        bound.setdefault(group_of.get(junction.target, -1), set()).update(junction.binding)
    out: list[Any] = []
    for step in trajectory.steps:
        skip = _paging(catalog, step.tool) | (bound.get(step.group, set()) if step.index else set())
        out.extend(value for name, value in step.args.items() if name not in skip and value not in (None, ""))
    return out


def _forms(value: Any) -> set[str]:
    """What makes two values one for this module: flat text, the number, the bare digits."""
    out = {_flat(value)}
    number = _decimal(value)
    if number is not None:
        out.add(f"#{number.normalize():f}")
    digits = re.sub(r"[\s\-./]", "", _text(value))
    if digits.isdigit():
        out.add(f"d{digits}")
    return out - {""}


def secrets_of(trajectory: Trajectory, catalog: Any = None) -> list[Secret]:
    """Every handed value and answer part worth hiding that the user does not state, in a stable order."""
    stated: set[str] = set()
    for value in _stated(trajectory, catalog):
        stated |= _forms(value)
        if isinstance(value, str):
            for part in re.split(r"[,;/|\s]+", value):
                stated |= _forms(part)
    handed: list[Any] = list(trajectory.handed)
    for junction in trajectory.junctions:
        for value in junction.values:
            handed.extend(value.values() if isinstance(value, Mapping) else [value])
    answer = trajectory.answer
    answers: list[Any] = []
    if answer.kind == "set" and isinstance(answer.value, (list, tuple, set, frozenset)):
        answers = sorted(answer.value, key=str)
    elif answer.kind != "bool" and answer.value is not None:
        answers = [answer.value]
    out: list[Secret] = []
    seen: set[str] = set()
    for role, values in (("handed", handed), ("answer", answers)):
        for value in values:
            shape = _shape(value, role)
            forms = _forms(value)
            if shape is None or forms & stated or forms & seen:
                continue
            seen |= forms
            out.append(Secret(role, value, shape))
    return out


# -- Korean numerals (this module's writer; the judges have their own readers) -------------
_KO_DIGITS = "영일이삼사오육칠팔구"
_SMALL_UNITS = ((1000, "천"), (100, "백"), (10, "십"))
_BIG_UNITS = ((10**12, "조"), (10**8, "억"), (10**4, "만"))


def _hangul_below_10000(n: int) -> str:
    out = ""
    for size, name in _SMALL_UNITS:
        digit, n = divmod(n, size)
        if digit:
            out += ("" if digit == 1 else _KO_DIGITS[digit]) + name
    return out + (_KO_DIGITS[n] if n else "")


def hangul_numeral(n: int, *, spaced: bool = True, one_man: bool = False) -> str:
    """``n`` (0 < n < 10^16) in Hangul numerals: 1680 → 천육백팔십, 120000 → 십이만, 12000 → 만 이천
    (일만 이천 with ``one_man``); groups of 만 separated by a space when ``spaced``."""
    if not 0 < n < 10**16:
        raise ValueError(f"no Hangul numeral for {n}")
    parts = []
    for size, name in _BIG_UNITS:
        head, n = divmod(n, size)
        if head:
            words = _hangul_below_10000(head)
            if head == 1 and (name != "만" or one_man):
                words = "일"
            parts.append(words + name)
    if n:
        parts.append(_hangul_below_10000(n))
    return (" " if spaced else "").join(parts)


def mixed_numeral(n: int, *, commas: bool = False, spaced: bool = True) -> str | None:
    """``n`` in digits with Korean big units, as Korean writes large figures: 36601732 → 3660만 1732
    (3,660만 1,732 with ``commas``), 12000 → 1만 2천, 2000 → 2천; None where no unit applies."""
    if n <= 0:
        return None
    parts = []
    for size, name in _BIG_UNITS:
        head, n = divmod(n, size)
        if head:
            parts.append(f"{head:,}{name}" if commas else f"{head}{name}")
    if n:
        if n % 1000 == 0 and (parts or n >= 2000):
            parts.append(f"{n // 1000}천")
        else:
            parts.append(f"{n:,}" if commas else str(n))
    if len(parts) == 1 and not re.search(r"[천만억조]", parts[0]):
        return None
    return (" " if spaced else "").join(parts)


# -- rescaling, digit styles, rounding -----------------------------------------------------
#: (unit, power of ten, largest natural figure before it): 1.68천 but not 6,676.696천
_SCALES = (("천", 3, 10), ("만", 4, 100000), ("백만", 6, 1000), ("천만", 7, 100), ("억", 8, 100000), ("조", 12, 1000))


def _plain(number: Decimal, commas: bool) -> str:
    text = format(number.normalize(), "f")
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    if not commas:
        return text
    whole, dot, fraction = text.partition(".")
    sign = "-" if whole.startswith("-") else ""
    return f"{sign}{int(whole.lstrip('-')):,}{dot}{fraction}"


def rescaled_forms(number: Decimal, unit: str = "") -> list[str]:
    """``number`` (at least 1,000 in magnitude) restated in a Korean unit, exactly:
    1680 → 1.68천, 0.168만; 12500000 → 1,250만, 12.5백만, 0.125억 (the answer's unit after it)."""
    if abs(number) < 1000:
        return []
    out = []
    for name, exponent, largest in _SCALES:
        scaled = number.scaleb(-exponent)
        places = -scaled.normalize().as_tuple().exponent  # type: ignore[operator]
        if not Decimal("0.01") <= abs(scaled) < largest or places > 4:
            continue  # 0.3614495388백만 is no way to write a number
        commas = abs(scaled) >= 1000
        tail = "" if not unit else (unit if unit == "원" and exponent % 4 == 0 else f" {unit}")
        out.append(f"{_plain(scaled, commas)}{name}{tail}")
    return out


_FULL_WIDTH = str.maketrans("0123456789,.-", "０１２３４５６７８９，．－")


def digit_forms(secret: Secret, rng: np.random.Generator) -> list[str]:
    """Ways a reader still reads as the number or code: full-width, space-grouped, split codes."""
    text = _text(secret.value)
    out: list[str] = []
    if secret.shape == "quantity":
        number = _decimal(secret.value)
        if number is None or abs(number) < 1000:
            return []
        grouped = _plain(number, True)
        out += [
            grouped.translate(_FULL_WIDTH),
            _plain(number, False).translate(_FULL_WIDTH),
            grouped.replace(",", " "),
            grouped.replace(",", "\u202f"),
        ]
        if number == number.to_integral_value() and 1000 <= abs(number) < 10000:
            digits = str(abs(int(number)))
            out.append(f"{digits[0]},{' '.join(digits[1:])}")  # 1,6 8 0
    elif secret.shape in ("code", "date"):
        digits = text
        if secret.shape == "date":
            out += [
                f"{digits[:4]}. {int(digits[4:6])}. {int(digits[6:])}.",
                f"{digits[:4]}-{digits[4:6]}-{digits[6:]}".translate(_FULL_WIDTH),
            ]
        else:
            out.append(digits.translate(_FULL_WIDTH))
            if len(digits) >= 5:
                cuts = sorted(rng.choice(np.arange(2, len(digits) - 1), size=2, replace=False).tolist())
                a, b = cuts
                out += [f"{digits[:a]} {digits[a:b]} {digits[b:]}", f"{digits[:a]}-{digits[a:]}"]
    elif secret.shape == "text" and re.search(r"\d{3,}", text) and re.fullmatch(r"[A-Za-z0-9]+", text):
        match = re.search(r"\d{3,}", text)
        assert match is not None
        cut = match.start() + max(1, (match.end() - match.start()) // 2)
        out += [
            f"{text[:cut]} {text[cut:]}",
            f"{text[: match.start()]}-{text[match.start() :]}",
            text.translate(_FULL_WIDTH),
        ]
    return out


def rounded_forms(number: Decimal) -> list[str]:
    """``number`` as people round or cut it, keeping at least three significant digits and changing it:
    215.789 → 215.79, 215.78, 215.8, 215.7, 216; 36,601,732 → 약 3,660만, 3,660만여; 156,521,682 → 약 1.57억."""
    if number != number.to_integral_value():
        places = -number.normalize().as_tuple().exponent  # type: ignore[operator]
        return _rounded_at(number, [(Decimal(1).scaleb(-keep), "", "") for keep in range(places - 1, -1, -1)])
    if abs(number) < 10**5:
        return []
    steps = [
        (Decimal(1).scaleb(exponent - keep), name, str(exponent))
        for name, exponent, places in (("만", 4, 1), ("억", 8, 3))
        for keep in range(places)
    ]
    return _rounded_at(number, steps)


def _rounded_at(number: Decimal, steps: Sequence[tuple[Decimal, str, str]]) -> list[str]:
    out: list[str] = []
    for quantum, unit, exponent in steps:
        for mode in (ROUND_HALF_UP, ROUND_DOWN):
            shown = number.quantize(quantum, rounding=mode)
            scaled = shown.scaleb(-int(exponent)) if unit else shown
            digits = format(abs(scaled), "f").replace(".", "").strip("0")
            if shown == number or not shown or len(digits) < 3 or (unit and len(digits) > 6):
                continue
            text = format(scaled.normalize() if unit else scaled, "f")
            if "." in text and text.endswith("0"):
                continue  # 646.0: nobody writes a trailing zero they cut to
            if unit:
                text = _plain(scaled, abs(scaled) >= 1000)
                if mode == ROUND_DOWN and scaled != scaled.to_integral_value():
                    continue  # 3,660.1만여 is not how anyone hedges
                text = f"약 {text}{unit}" if mode == ROUND_HALF_UP else f"{text}{unit}여"
            if text not in out:
                out.append(text)
    return out


# -- Korean particles and glue -------------------------------------------------------------
def _final(word: str) -> int | None:
    """The final consonant index of the last Hangul syllable of ``word`` (0: none, 8: ㄹ), None when it does not
    end in Hangul."""
    last = word.rstrip()[-1:]
    if "가" <= last <= "힣":
        return (ord(last) - 0xAC00) % 28
    return None


def _particle(word: str, with_final: str, without: str) -> str:
    """``word`` and the particle its last sound takes (을/를, 이/가, 으로/로 — 로 after ㄹ too)."""
    final = _final(word)
    if final is None:
        return word + with_final
    if with_final == "으로" and final == 8:
        return word + without
    return word + (with_final if final else without)


def _split_name(text: str, rng: np.random.Generator) -> str:
    """A long Hangul name with a space where Korean often puts one (국토교통 위원회, 세종 종합운동장)."""
    if len(text) >= 5 and " " not in text and all("가" <= ch <= "힣" for ch in text) and rng.random() < 0.5:
        cut = int(rng.integers(2, len(text) - 2))
        return f"{text[:cut]} {text[cut:]}"
    return text


_GLUE: tuple[Callable[[str], str], ...] = (
    lambda x: f"{x}의 경우,",
    lambda x: f"{x}측 자료로 보면",
    lambda x: f"{x}에서 확인해 보니",
    lambda x: f"{x}쪽 기록을 보면",
    lambda x: f"{_particle(x, '을', '를')} 거쳐서",
    lambda x: f"{_particle(x, '이', '가')} 포함된 경우로,",
    lambda x: f"{x} 인근 기준으로",
    lambda x: f"{_particle(x, '으로', '로')} 이어지는데,",
    lambda x: f"{x}까지 따라가면",
)


def embedded_forms(text: str, rng: np.random.Generator) -> list[str]:
    """``text`` glued into a clause or inflected: 라이트론측 자료로 보면, 서현고등학교에서 확인해 보니."""
    name = _split_name(_text(text), rng)
    return [glue(name) for glue in _GLUE]


# -- where a leak goes ---------------------------------------------------------------------
_CLAUSE_END = re.compile(r"(?:[,，]|(?:고|며|면|서|때|데|니|는데|지만))$")
_OPEN, _CLOSE, _QUOTES = "「『(（[“", "」』)）]”", "'\""
#: words that cannot stand apart from the next one (몇 | km, 그 | 회사)
_BOUND_WORDS = frozenset(
    {"몇", "그", "이", "저", "각", "약", "총", "제", "두", "세", "네", "한", "모든", "어느", "가장"}
)


def _boundaries(question: str) -> list[int]:
    """Spaces a phrase may go after: inside the question, outside brackets and quotes, not within a figure or
    a date (2026년 8월 | 28일, 반경 | 500m) and not after a word that leans on the next (몇 | km)."""
    depth, quoted, out = 0, False, []
    for i, ch in enumerate(question):
        if ch in _OPEN:
            depth += 1
        elif ch in _CLOSE:
            depth = max(0, depth - 1)
        elif ch in _QUOTES:
            quoted = not quoted
        elif ch == " " and not depth and not quoted and 0 < i < len(question) - 1:
            before, after = question[i - 1], question[i + 1]
            word = question[:i].rsplit(" ", 1)[-1]
            if not (before.isdigit() or after.isdigit() or word in _BOUND_WORDS):
                out.append(i)
    return out


def _insert(question: str, phrase: str, rng: np.random.Generator) -> str:
    """``phrase`` inside ``question`` at a word boundary (:func:`_boundaries`), after a clause ending (a comma,
    -고, -면, -는데 …) when there is one."""
    inner = _boundaries(question)
    if not inner:
        return f"{phrase} {question}"
    preferred = [i for i in inner if _CLAUSE_END.search(question[:i])]
    pool = preferred or inner
    at = pool[int(rng.integers(len(pool)))]
    return f"{question[: at + 1]}{phrase} {question[at + 1 :]}"


_NUMBER_PHRASES: tuple[Callable[[str, str], str], ...] = (
    lambda v, role: f"{'답이' if role == 'answer' else '중간에 나오는 값이'} {v} 정도일 텐데,",
    lambda v, role: f"({'결과는' if role == 'answer' else '중간 값은'} {v})",
    lambda v, role: f"{v} 기준으로",
    lambda v, role: f"제가 알기로는 {v}인데,",
    lambda v, role: f"{'최종 값이' if role == 'answer' else '넘겨받는 값이'} {v}인지 보려고",
)


def _number_leak(item: Trajectory, secret: Secret, shown: str, rng: np.random.Generator) -> str:
    phrase = _NUMBER_PHRASES[int(rng.integers(len(_NUMBER_PHRASES)))](shown, secret.role)
    return _insert(item.question, phrase, rng)


def _already_said(question: str, secret: Secret) -> bool:
    """The clean question already names it (then writing it again is no new defect)."""
    flat = _flat(question)
    value = _flat(secret.value)
    return bool(value) and value in flat


# -- the leak kinds ------------------------------------------------------------------------
Leak = tuple[Trajectory, str]


def _pick(pool: Sequence[Any], rng: np.random.Generator) -> Any:
    return pool[int(rng.integers(len(pool)))]


def _unit_of(item: Trajectory, secret: Secret) -> str:
    unit = item.answer.unit if secret.role == "answer" else ""
    return "" if unit in ("%", "s") else unit


def _numeral(item: Trajectory, secrets: list[Secret], rng: np.random.Generator) -> Leak | None:
    candidates = []
    for secret in secrets:
        number = _decimal(secret.value) if secret.shape == "quantity" else None
        if number is None or number != number.to_integral_value() or not 10 <= number < 10**16:
            continue
        n = int(number)
        forms = []
        if len(hangul_numeral(n, spaced=False)) >= 2:
            forms += [hangul_numeral(n, spaced=True), hangul_numeral(n, spaced=False)]
            if 10**4 <= n < 2 * 10**4:
                forms.append(hangul_numeral(n, one_man=True))
        forms += [m for m in (mixed_numeral(n), mixed_numeral(n, commas=True), mixed_numeral(n, spaced=False)) if m]
        if forms:
            candidates.append((secret, sorted(set(forms))))
    if not candidates:
        return None
    secret, forms = _pick(candidates, rng)
    shown = _pick(forms, rng)
    unit = _unit_of(item, secret)
    shown_with_unit = f"{shown}{' ' if unit and unit != '원' else ''}{unit}"
    return dataclasses.replace(
        item, question=_number_leak(item, secret, shown_with_unit, rng)
    ), f"{secret.role} value {secret.value!r} written as {shown_with_unit!r}"


def _unit(item: Trajectory, secrets: list[Secret], rng: np.random.Generator) -> Leak | None:
    candidates = []
    for secret in secrets:
        number = _decimal(secret.value) if secret.shape == "quantity" else None
        forms = rescaled_forms(number, _unit_of(item, secret)) if number is not None else []
        if forms:
            candidates.append((secret, forms))
    if not candidates:
        return None
    secret, forms = _pick(candidates, rng)
    shown = _pick(forms, rng)
    return dataclasses.replace(
        item, question=_number_leak(item, secret, shown, rng)
    ), f"{secret.role} value {secret.value!r} rescaled as {shown!r}"


def _digits(item: Trajectory, secrets: list[Secret], rng: np.random.Generator) -> Leak | None:
    candidates = [(s, forms) for s in secrets if (forms := digit_forms(s, rng))]
    if not candidates:
        return None
    secret, forms = _pick(candidates, rng)
    shown = _pick(forms, rng)
    return dataclasses.replace(
        item, question=_number_leak(item, secret, shown, rng)
    ), f"{secret.role} value {secret.value!r} written as {shown!r}"


_ROUNDING_MARKS = ("약 ", "대략 ", "", "")


def _rounded(item: Trajectory, secrets: list[Secret], rng: np.random.Generator) -> Leak | None:
    candidates = []
    for secret in secrets:
        number = _decimal(secret.value) if secret.shape == "quantity" else None
        forms = rounded_forms(number) if number is not None else []
        if forms:
            candidates.append((secret, forms))
    if not candidates:
        return None
    secret, forms = _pick(candidates, rng)
    shown = _pick(forms, rng)
    unit = item.answer.unit if secret.role == "answer" else ""
    mark = "" if re.search(r"[만억]", shown) else _pick(_ROUNDING_MARKS, rng)
    written = f"{mark}{shown}{'' if unit == '%' or not re.search(r'[만억]', shown) else ' '}{unit}"
    return dataclasses.replace(
        item, question=_number_leak(item, secret, written, rng)
    ), f"{secret.role} value {secret.value!r} rounded to {written!r}"


def _embedded(item: Trajectory, secrets: list[Secret], rng: np.random.Generator) -> Leak | None:
    candidates = [s for s in secrets if s.shape == "text"]
    if not candidates:
        return None
    secret = _pick(candidates, rng)
    phrase = _pick(embedded_forms(str(secret.value), rng), rng)
    return dataclasses.replace(
        item, question=_insert(item.question, phrase, rng)
    ), f"{secret.role} text {secret.value!r} embedded as {phrase!r}"


_LEAKS: Mapping[str, Callable[[Trajectory, list[Secret], np.random.Generator], Leak | None]] = {
    "numeral": _numeral,
    "unit": _unit,
    "digits": _digits,
    "rounded": _rounded,
    "embedded": _embedded,
}


# -- paraphrase ----------------------------------------------------------------------------
_SWAPS: tuple[tuple[str, str, str], ...] = (
    # (pattern, replacement, name): synonyms, endings and particles a person would vary
    (r"몇 건입니까\?", "몇 건이나 되나요?", "몇 건입니까→몇 건이나 되나요"),
    (r"입니까\?", "인가요?", "입니까→인가요"),
    (r"높습니까\?", "높은가요?", "높습니까→높은가요"),
    (r"얼마입니까\?", "얼마나 되나요?", "얼마입니까→얼마나 되나요"),
    (r"모두", "전부", "모두→전부"),
    (r"몇 개", "몇 곳", "몇 개→몇 곳"),
    (r" 각각에 대해", "마다", "각각에 대해→마다"),
    (r"했을 때,", "하면,", "했을 때→하면"),
    (r"하고,", "한 다음,", "하고→한 다음"),
    (r"가장 ", "제일 ", "가장→제일"),
    (r"에서 ", "에서는 ", "에서→에서는"),
    (r"에 대해", "에 관해", "에 대해→에 관해"),
    (r"알려 주세요", "알려 줄 수 있나요", "알려 주세요→알려 줄 수 있나요"),
)


def _reorder(question: str, rng: np.random.Generator) -> str | None:
    """Two comma-separated items of a short list swapped (``A 1, B 2로`` → ``B 2, A 1로``), or None."""
    body = question.rstrip("?.!")
    pieces = body.split(", ")
    if len(pieces) < 3:
        return None
    # the inner items of a list are short (a label and a value); swap two neighbours among them
    inner = [
        i for i in range(len(pieces) - 1) if 0 < i and len(pieces[i].split()) <= 3 and len(pieces[i + 1].split()) <= 3
    ]
    if not inner:
        return None
    i = _pick(inner, rng)
    pieces[i], pieces[i + 1] = pieces[i + 1], pieces[i]
    return ", ".join(pieces) + question[len(body) :]


def paraphrase_question(question: str, rng: np.random.Generator) -> tuple[str, list[str]]:
    """``question`` reworded: two or three synonym, ending or particle swaps and a clause reorder where a list
    allows it; (new question, names of the edits). Always differs from the input."""
    edits: list[str] = []
    applicable = [s for s in _SWAPS if re.search(s[0], question)]
    order = rng.permutation(len(applicable)).tolist()
    for index in order[: int(rng.integers(2, 4))]:
        pattern, replacement, name = applicable[index]
        spots = [m.start() for m in re.finditer(pattern, question)]
        if not spots:  # an earlier edit took it away
            continue
        at = _pick(spots, rng)
        question = question[:at] + re.sub(pattern, replacement, question[at:], count=1)
        edits.append(name)
    reordered = _reorder(question, rng) if rng.random() < 0.6 else None
    if reordered and reordered != question:
        question, edits = reordered, [*edits, "clauses reordered"]
    if not edits:
        question, edits = f"혹시 {question}", ["혹시 prefix"]
    return question, edits


def _shuffled(args: Mapping[str, Any], rng: np.random.Generator) -> dict[str, Any]:
    keys = list(args)
    if len(keys) < 2:
        return dict(args)
    order = rng.permutation(len(keys)).tolist()
    if order == sorted(order):
        order = order[::-1]
    return {keys[i]: args[keys[i]] for i in order}


def _paraphrase(item: Trajectory, rng: np.random.Generator) -> Leak:
    question, edits = paraphrase_question(item.question, rng)
    steps = [dataclasses.replace(step, args=_shuffled(step.args, rng)) for step in item.steps]
    twin = dataclasses.replace(item, id=f"{item.id}-re", question=question, steps=steps, meta=copy.deepcopy(item.meta))
    return twin, f"near-copy of {item.id}: {', '.join(edits)}; argument order shuffled"


# -- unconstrained -------------------------------------------------------------------------
def _numeric_fields(run: Any) -> list[str]:
    groups = getattr(run, "groups", None) or []
    if not groups:
        return []
    fields: list[str] = []
    for read in groups[0]:
        for record in list(getattr(read, "records", []))[:5]:
            for name, value in record.items():
                if name not in fields and (_decimal(value) is not None):
                    fields.append(name)
    return sorted(fields)


def _start_specs(run: Any, rng: np.random.Generator) -> list[dict[str, Any]]:
    """Answer specs over the start group only: its count, or a sum or the value of one of its numeric fields."""
    specs: list[dict[str, Any]] = [{"op": "count", "group": 0}]
    fields = _numeric_fields(run)
    for index in rng.permutation(len(fields)).tolist()[:3]:
        name = fields[index]
        specs += [{"op": "sum", "group": 0, "field": name}, {"op": "value", "group": 0, "branch": 0, "field": name}]
    head = specs[:1] if rng.random() < 0.5 else []
    rest = [specs[i] for i in rng.permutation(len(specs)).tolist() if specs[i] not in head]
    return head + rest


def _runs_perturbed(item: Trajectory, catalog: Any, env: Any, planner: Any, tries: int = 8) -> bool:
    """Some junction takes other values and the plan still runs: only then can anyone tell."""
    for k, junction in enumerate(item.junctions):
        width = max(1, len(junction.values))
        try:
            offered = list(planner.candidate_values(item, catalog, env, k))
        except KopaError:
            continue
        windows = [tuple(offered[i : i + width]) for i in range(0, len(offered), width)][:tries]
        for window in windows:
            try:
                run = planner.run_plan(item, catalog, env, perturb=planner.Perturbation(k, window))
            except KopaError:
                continue
            if run.ok:
                return True
    return False


def _unconstrained(
    item: Trajectory, catalog: Any, env: Any, planner: Any, writer: Any, rng: np.random.Generator
) -> Leak | None:
    if not item.junctions:
        return None
    old = item.meta.get("answer_spec") or {}
    try:
        first = planner.run_plan(item, catalog, env)
    except KopaError:
        return None
    for spec in _start_specs(first, rng):
        if old.get("op") == "threshold" and isinstance(old.get("of"), dict):
            spec = {**old, "of": spec}  # still a yes/no, now about the start group's figure
        if spec == old:
            continue
        draft = dataclasses.replace(item, meta={**copy.deepcopy(item.meta), "answer_spec": spec})
        try:
            run = planner.run_plan(draft, catalog, env)
        except KopaError:
            continue
        if not run.ok or run.answer is None:
            continue
        rewritten = dataclasses.replace(draft, answer=run.answer, state_digest=run.state_digest)
        if not _runs_perturbed(rewritten, catalog, env, planner):
            return None  # no junction can change and still run: nobody could tell, so it is no test
        if writer is not None:
            rewritten = dataclasses.replace(rewritten, question=writer.write(rewritten, catalog))
        return rewritten, (
            f"answer spec now {json.dumps(spec, ensure_ascii=False, sort_keys=True)} = "
            f"{run.answer.value!r}; the calls after the start no longer decide it"
        )
    return None


# -- injection -----------------------------------------------------------------------------
def craft_defects(
    clean: Sequence[Trajectory],
    catalog: Any,
    env: Any,
    *,
    seed: int = 0,
    per_kind: int = 10,
    kinds: Sequence[str] = ADVERSARY_KINDS,
    planner: Any = None,
    writer: Any = None,
) -> list[Crafted]:
    """Up to ``per_kind`` defective copies per kind, each kind from distinct clean items.

    ``planner`` re-runs plans for ``unconstrained`` (default :mod:`kopa_replay.synth.plan`: ``run_plan``,
    ``candidate_values``, ``Perturbation``); ``writer`` (optional, ``write(trajectory, catalog)``) rewrites the
    question of an unconstrained item — without one its question stays. Items a kind cannot use are passed
    over, so a kind may get fewer.
    """
    unknown = [k for k in kinds if k not in ADVERSARY_KINDS]
    if unknown:
        raise UsageError(f"unknown defect kind(s) {unknown} (known: {', '.join(ADVERSARY_KINDS)})")
    if per_kind < 0:
        raise UsageError(f"per_kind must not be negative, not {per_kind}")
    if planner is None and "unconstrained" in kinds:
        import kopa_replay.synth.plan as planner
    rng = np.random.default_rng(seed)
    items = sorted(clean, key=lambda t: t.id)
    secrets = {item.id: secrets_of(item, catalog) for item in items}
    out: list[Crafted] = []
    for kind in kinds:
        made = 0
        for index in rng.permutation(len(items)).tolist():
            if made >= per_kind:
                break
            item = items[index]
            got: Leak | None
            if kind in _LEAKS:
                fresh = [s for s in secrets[item.id] if not _already_said(item.question, s)]
                got = _LEAKS[kind](item, fresh, rng)
            elif kind == "paraphrase":
                got = _paraphrase(item, rng)
            else:
                got = _unconstrained(item, catalog, env, planner, writer, rng)
            if got is None:
                continue
            trajectory, detail = got
            out.append(Crafted(trajectory, kind, item.id, detail))
            made += 1
    return out
