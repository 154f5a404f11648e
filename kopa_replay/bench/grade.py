"""Three-axis grading of one rollout: RESPONSE, ACTION, ENVIRONMENT — each with the reason.

* **response** — the agent's free-text final answer, read for the task's answer
  kind: a number (``"215.79%"``, ``"1,680원"``, ``"약 215.8"``, ``"1.68만"``,
  ``"3억 2천만원"``) within the tolerance, a text (normalized, contained in the
  answer), a set (every item named, no other bare item listed), or yes/no
  (예/네/아니오/아니요, yes/no).
* **action** — every :class:`~kopa_replay.bench.model.RequiredAction` was made:
  a call to the tool whose arguments include the subset, values compared
  normalized (``"1,680"`` = ``1680``, ``"2026-08-31"`` = ``"20260831"``, codes
  keep their leading zeros). The reason names the first missing one.
* **environment** — the rollout's state digest equals the reference, or its
  calls equal the reference calls as a multiset (so parallel calls in another
  order still pass); otherwise the reason lists the missing and extra calls, so
  a failure is not one opaque hash mismatch (tau-bench's complaint).

Numbers are read with :func:`kopa_replay.text.parse_numbers` and values
normalized with :mod:`kopa_replay.text` (``number_key``, ``date_key``,
``text_form``); nothing here writes a parser or normalizer of its own.
Pure functions: no I/O, no clock, no state.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from decimal import Decimal
from typing import Any

from kopa_replay.bench.model import AxisResult, Grade, RequiredAction, Rollout, Task
from kopa_replay.errors import UsageError
from kopa_replay.text.keys import date_key, number_key
from kopa_replay.text.mentions import parse_numbers
from kopa_replay.text.normalize import fold, text_form

__all__ = [
    "parse_bool",
    "parse_items",
    "same_value",
    "call_window",
    "first_unread",
    "grade_response",
    "grade_action",
    "grade_environment",
    "grade",
    "grade_all",
]

#: a rounded number is accepted (beyond the tolerance) only when it keeps this many significant digits:
#: "215.8" for 215.789… passes, "216" does not
MIN_ROUNDED_DIGITS = 4
#: an answer naming more distinct candidate numbers than this is a guess list, not an answer
MAX_NUMBERS = 4
#: calls with these outcomes never reached the data, so they neither add to nor take from the state
NOT_STATE = ("structural_error", "environmental_error", "blocked_error")
#: outcomes that are the platform's doing, not the agent's: its bad minute, or a wall in front of it
INCIDENT_OUTCOMES = ("environmental_error", "blocked_error")

_TOKEN = re.compile(r"[0-9a-z\uac00-\ud7a3]+")
_YES = frozenset({"예", "네", "yes", "true", "맞습니다", "맞다", "맞아요", "맞음", "그렇습니다", "그렇다", "응"})
_NO = frozenset({"no", "false", "not", "없음", "틀립니다"})
_NO_PREFIXES = ("아니", "아닙", "않")
_ITEM_SPLIT = re.compile(r"[,，、;；\n•·]|\s+(?:및|그리고|and|or|또는)\s+|(?<=[\uac00-\ud7a3])(?:와|과)\s+")


# -- parsing ------------------------------------------------------------------------
def parse_bool(text: str | None) -> bool | None:
    """Yes/no from the first decisive word: 예/네/yes/맞습니다 → True, 아니오/아니요/아닙니다/no → False, else None."""
    if text is None:
        return None
    for token in _TOKEN.findall(fold(str(text))):
        if token in _YES:
            return True
        if token in _NO or token.startswith(_NO_PREFIXES):
            return False
    return None


def parse_items(text: str | None) -> tuple[str, ...]:
    """The items a free-text list names, split on commas, bullets, 및/와/과/and, as written (stripped)."""
    if not text:
        return ()
    items = []
    for part in _ITEM_SPLIT.split(unicodedata.normalize("NFKC", str(text))):
        part = part.strip().strip("-*").strip()
        part = part.rsplit(":", 1)[-1].strip()  # "정답: 강남구" → "강남구"
        if text_form(part):
            items.append(part)
    return tuple(items)


def _form(value: Any) -> Any:
    """The comparison form of an argument value: code, date, number, or normalized text."""
    if value is None:
        return ("Z",)
    if isinstance(value, bool):
        return ("B", value)
    if isinstance(value, (list, tuple)):
        return ("L",) + tuple(_form(item) for item in value)
    text = str(value).strip()
    if text.isdigit() and len(text) > 1 and text.startswith("0"):
        return ("C", text)  # a code: 00126380 is not 126380
    day = date_key(text)
    if day:
        return ("D", day)
    key = number_key(value)
    if key:
        return ("N", key)
    return ("T", text_form(text))


def same_value(a: Any, b: Any) -> bool:
    """Whether two argument values are the same once normalized (``"1,680"`` = ``1680``)."""
    return _form(a) == _form(b)


def _show_args(args: Mapping[str, Any]) -> str:
    return ", ".join(f"{key}={args[key]}" for key in sorted(args))


def _show_call(tool: str, args: Mapping[str, Any]) -> str:
    return f"{tool}({_show_args(args)})"


# -- response -----------------------------------------------------------------------
def _expected_number(task: Task) -> Decimal:
    key = number_key(task.answer.value)
    if key is None:
        raise UsageError(f"task {task.id}: answer value {task.answer.value!r} is not a number")
    return Decimal(key[2:])


_SCALED_UNIT = re.compile(r"([십백천만억조]+)(.+)")


def _unit_scale(unit: str) -> tuple[Decimal, str]:
    """A unit with a Korean multiplier in front (만원, 억원, 천명) as (10,000, 원) …; any other unit as (1, unit).
    An answer's ``3,726,900만원`` reads as 37,269,000,000원: the expected value is scaled to meet it."""
    from kopa_replay.text.mentions import korean_value

    match = _SCALED_UNIT.fullmatch(unit)
    read = korean_value("1" + match.group(1)) if match else None
    return (read[0], match.group(2)) if match and read else (Decimal(1), unit)


def _plain(value: object) -> str:
    """A number as a person writes it in a reason: 77660 for 77660.0, 0.07766 for 0.07765999999999999 (a float's
    binary noise is no part of the task's answer)."""
    if isinstance(value, float):
        # twelve significant digits: beyond them a float's digits are binary noise, not the task's answer
        return format(Decimal(f"{value:.12g}").normalize(), "f")
    return str(value)


def _grade_number(task: Task, answer: str) -> AxisResult:
    expected = _expected_number(task)
    tolerance = Decimal(str(task.answer.tolerance))
    unit = task.answer.unit
    scale, base = _unit_scale(unit)
    shown = f"{_plain(task.answer.value)}{unit}" + (
        f" (±{_plain(task.answer.tolerance)})" if task.answer.tolerance else ""
    )
    mentions = parse_numbers(answer)
    if not mentions:
        return AxisResult(False, f"expected {shown}, found no number in {answer!r}")
    units = {unit, base}
    candidates = (
        [m for m in mentions if m.unit in units] if unit and any(m.unit in units for m in mentions) else list(mentions)
    )
    found = ", ".join(m.text for m in candidates)
    if len({m.value for m in candidates}) > MAX_NUMBERS:
        return AxisResult(
            False,
            f"expected {shown}, found {len(candidates)} numbers ({found}): "
            f"more than {MAX_NUMBERS} is a guess list, not an answer",
        )
    for mention in candidates:
        factor = scale if mention.unit == base else Decimal(1)  # a 만원 answer written out in 원
        error = abs(mention.value - expected * factor)
        if error <= tolerance * factor:
            return AxisResult(True, f"expected {shown}, found {mention.text}")
        if mention.significant >= MIN_ROUNDED_DIGITS and error <= mention.half_ulp:
            return AxisResult(True, f"expected {shown}, found {mention.text} (rounded)")
    return AxisResult(False, f"expected {shown}, found {found}")


def _expected_items(value: Any) -> tuple[str, ...]:
    if isinstance(value, str):
        return parse_items(value)
    if isinstance(value, Iterable):
        return tuple(str(item) for item in value)
    return (str(value),)


def _grade_set(task: Task, answer: str) -> AxisResult:
    expected = sorted(set(_expected_items(task.answer.value)), key=text_form)
    forms = {text_form(item): item for item in expected}
    whole = text_form(answer)
    missing = [item for item in expected if text_form(item) not in whole]
    # an extra is a bare item (one word) that names none of the expected ones
    extra = [
        item
        for item in parse_items(answer)
        if not re.search(r"\s", item) and not any(form in text_form(item) for form in forms)
    ]
    shown = "{" + ", ".join(expected) + "}"
    if not missing and not extra:
        return AxisResult(True, f"expected {shown}, found all {len(expected)}")
    parts = []
    if missing:
        parts.append(f"missing {', '.join(missing)}")
    if extra:
        parts.append(f"extra {', '.join(extra)}")
    return AxisResult(False, f"expected {shown}, {'; '.join(parts)} in {answer!r}")


def _grade_bool(task: Task, answer: str) -> AxisResult:
    value = task.answer.value
    expected = value if isinstance(value, bool) else parse_bool(str(value))
    if expected is None:
        raise UsageError(f"task {task.id}: answer value {value!r} is not yes or no")
    found = parse_bool(answer)
    word = {True: "yes (예)", False: "no (아니오)"}
    if found is None:
        return AxisResult(False, f"expected {word[expected]}, found neither yes nor no in {answer!r}")
    return AxisResult(found == expected, f"expected {word[expected]}, found {word[found]}")


def grade_response(task: Task, rollout: Rollout) -> AxisResult:
    """RESPONSE: the final answer read for the task's answer kind, within tolerance or normalized."""
    answer = rollout.final_answer
    if answer is None or not answer.strip():
        return AxisResult(False, f"expected {task.answer.value!r}, found no final answer")
    kind = task.answer.kind
    if kind == "number":
        return _grade_number(task, answer)
    if kind == "set":
        return _grade_set(task, answer)
    if kind == "bool":
        return _grade_bool(task, answer)
    expected = str(task.answer.value)
    if text_form(expected) and text_form(expected) in text_form(answer):
        return AxisResult(True, f"expected {expected!r}, found it in the answer")
    return AxisResult(False, f"expected {expected!r}, found {answer.strip()!r}")


# -- action -------------------------------------------------------------------------
def _satisfies(args: Mapping[str, Any], action: RequiredAction) -> bool:
    return all(key in args and same_value(args[key], value) for key, value in action.args_subset.items())


def _int(value: Any) -> int | None:
    try:
        return int(str(value).strip())
    except (TypeError, ValueError):
        return None


def call_window(args: Mapping[str, Any], paging: Mapping[str, Any]) -> tuple[int, int] | None:
    """The records a call asks for, as a 0-based half-open window; None when its paging arguments are invalid.

    ``page`` style: page p of size s is ``[(p-1)s, ps)``; ``range`` style: START..END (1-based, inclusive) is
    ``[START-1, END)``. A size above the server's ``max_size`` counts as ``max_size`` (the server cuts it).
    """
    default = paging.get("default_size") or 0
    cap = paging.get("max_size") or 0

    def arg(name: str | None, fallback: Any) -> int | None:
        return _int(args[name]) if name and args.get(name) is not None else _int(fallback)

    if paging.get("style") == "page":
        page, size = arg(paging.get("page"), 1), arg(paging.get("size"), default)
        if page is None or size is None or page < 1 or size < 1:
            return None
        size = min(size, cap) if cap else size
        return (page - 1) * size, page * size
    if paging.get("style") == "range":
        start = arg(paging.get("start"), 1)
        end = arg(paging.get("end"), (start or 1) + default - 1)
        if start is None or end is None or start < 1 or end < start:
            return None
        end = min(end, start + cap - 1) if cap else end
        return start - 1, end
    return None


def first_unread(windows: Iterable[tuple[int, int]], through: int, since: int = 0) -> int | None:
    """The first 0-based record position in ``[since, through)`` that no window covers; None when all are."""
    position = since
    for low, high in sorted(windows):
        if position >= through or low > position:
            break
        position = max(position, high)
    return position if position < through else None


def _missing_read(action: RequiredAction, rollout: Rollout) -> str | None:
    """Why a read action is not met (None: the calls cover records 1..through)."""
    windows = [
        window
        for tool, args, outcome in rollout.calls
        if tool == action.tool
        and outcome not in NOT_STATE
        and _satisfies(args, action)
        and (window := call_window(args, action.paging)) is not None
    ]
    gap = first_unread(windows, action.through, action.since)
    if gap is None:
        return None
    shown = _show_call(action.tool, action.args_subset)
    met = Counter(
        outcome
        for tool, args, outcome in rollout.calls
        if tool == action.tool and outcome in INCIDENT_OUTCOMES and _satisfies(args, action)
    )
    if met:
        # the agent made the call and the platform did not answer it: say so, apart from the agent's own misses
        how = " and ".join(
            f"{'blocked' if outcome == 'blocked_error' else 'failed environmentally'} {count}×"
            for outcome, count in sorted(met.items(), reverse=True)
        )
        return (
            f"record {gap + 1} of {shown} was never read: the platform {how} on the calls made for it "
            "(an incident, not the agent's choice)"
        )
    if gap > action.since:
        # the first records were read, the later ones not: the paging the task warns of is the cause
        reason = f"record {gap + 1} of {shown} was never read"
        return reason + (f": {action.why}" if action.why else "") + f" (records {action.since + 1}–{gap} were)"
    if windows:  # calls with these arguments were made, but none reached the records the read starts at
        return f"record {gap + 1} of {shown} was never read (no call read the records it starts at)"
    # nothing of it was read: no call with these arguments at all (a skipped lookup gives the tool other values),
    # so the task's paging remark would name a cause that is not this one
    return f"no call read records {action.since + 1}–{action.through} of {shown}{_near_calls(action, rollout)}"


def _near_calls(action: RequiredAction, rollout: Rollout) -> str:
    """`` (TOOL was called N times, first with …)`` when the tool was called with other arguments, else ``""``."""
    near = [args for tool, args, _ in rollout.calls if tool == action.tool]
    if not near:
        return ""
    return (
        f" ({action.tool} was called {len(near)} time{'s' if len(near) > 1 else ''}, "
        f"first with {_show_args(near[0]) or 'no arguments'})"
    )


def _missing_call(action: RequiredAction, rollout: Rollout) -> str | None:
    """Why a call action is not met (None: some call made it)."""
    if any(tool == action.tool and _satisfies(args, action) for tool, args, _ in rollout.calls):
        return None
    reason = f"no call to {_show_call(action.tool, action.args_subset)}"
    if action.why:
        reason += f": {action.why}"
    return reason + _near_calls(action, rollout)


def grade_action(task: Task, rollout: Rollout) -> AxisResult:
    """ACTION: every required action made; the reason names each one missing, in task order, and why it matters.

    A read action (``through`` > 0) is met by any page sizes that together cover its records.
    """
    missing = [
        reason
        for action in task.required_actions
        if (reason := (_missing_read if action.through else _missing_call)(action, rollout)) is not None
    ]
    if missing:
        return AxisResult(False, "; ".join(missing))
    count = len(task.required_actions)
    return AxisResult(True, f"all {count} required action{'s' if count != 1 else ''} made")


# -- environment --------------------------------------------------------------------
def _call_key(tool: str, args: Mapping[str, Any]) -> tuple[Any, ...]:
    return (tool, tuple(sorted((key, _form(value)) for key, value in args.items())))


def _multiset(calls: Iterable[tuple[str, Mapping[str, Any]]]) -> tuple[Counter[Any], dict[Any, str]]:
    counts: Counter[Any] = Counter()
    shown: dict[Any, str] = {}
    for tool, args in calls:
        key = _call_key(tool, args)
        counts[key] += 1
        shown.setdefault(key, _show_call(tool, args))
    return counts, shown


def _listing(counter: Counter[Any], shown: Mapping[Any, str]) -> str:
    items = sorted((shown[key], count) for key, count in counter.items())
    return "; ".join(text if count == 1 else f"{text} ×{count}" for text, count in items)


def grade_environment(task: Task, rollout: Rollout) -> AxisResult:
    """ENVIRONMENT: the state digest equals the reference, or the calls equal the reference calls as a multiset.

    Calls that failed before reaching the data (``NOT_STATE`` outcomes) are not counted. A failure lists
    the reference calls missing and the extra calls made.
    """
    if task.reference_state_digest and rollout.state_digest == task.reference_state_digest:
        return AxisResult(True, "state digest matches the reference")
    reference, shown_ref = _multiset(task.reference_calls)
    made, shown_made = _multiset((tool, args) for tool, args, outcome in rollout.calls if outcome not in NOT_STATE)
    skipped = sum(1 for *_, outcome in rollout.calls if outcome in NOT_STATE)
    met = sum(1 for *_, outcome in rollout.calls if outcome in INCIDENT_OUTCOMES)
    # the platform's failures are said apart: a reference call missing for them is not the agent's choice
    theirs = f", {met} of them the platform's (an incident: blocked or failed environmentally)" if met else ""
    note = f" ({skipped} failed call{'s' if skipped != 1 else ''} not counted{theirs})" if skipped else ""
    missing, extra = reference - made, made - reference
    if not missing and not extra:
        return AxisResult(
            True,
            f"the {sum(reference.values())} reference calls were all made, none extra "
            f"(state digest differs only by call order){note}",
        )
    parts = []
    if missing:
        parts.append(
            f"{sum(missing.values())} reference call{'s' if sum(missing.values()) != 1 else ''} "
            f"missing: {_listing(missing, shown_ref)}"
        )
    if extra:
        parts.append(
            f"{sum(extra.values())} extra call{'s' if sum(extra.values()) != 1 else ''}: {_listing(extra, shown_made)}"
        )
    return AxisResult(False, "; ".join(parts) + note)


def grade(task: Task, rollout: Rollout) -> Grade:
    """The three axes for one rollout; ``Grade.passed`` when all three pass."""
    if rollout.task_id != task.id:
        raise UsageError(f"rollout {rollout.index} of {rollout.agent!r} is for task {rollout.task_id}, not {task.id}")
    return Grade(
        task.id,
        rollout.index,
        grade_response(task, rollout),
        grade_action(task, rollout),
        grade_environment(task, rollout),
        agent=rollout.agent,
        incidents=sum(1 for *_, outcome in rollout.calls if outcome in INCIDENT_OUTCOMES),
    )


def grade_all(tasks: Sequence[Task], rollouts: Sequence[Rollout]) -> tuple[Grade, ...]:
    """Every rollout graded against its task, sorted by (task id, agent, index)."""
    by_id = {task.id: task for task in tasks}
    grades = []
    for rollout in sorted(rollouts, key=lambda r: (r.task_id, r.agent, r.index)):
        if rollout.task_id not in by_id:
            raise UsageError(f"rollout {rollout.index} of {rollout.agent!r} is for unknown task {rollout.task_id}")
        grades.append(grade(by_id[rollout.task_id], rollout))
    return tuple(grades)
