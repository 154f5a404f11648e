"""Junction typing and reduction: which values cross a link, and how a large set is cut. Pure, no I/O.

A link binds target parameters to source fields (``{param: field}``). At a
junction the source output offers the *distinct* non-blank values of the bound
field(s), in order of first appearance; their number decides the kind (fan-out
budget B):

* 1 value → ``sequential``;
* 2..B values → ``fan_out`` (one call per value, side by side);
* more than B → ``derived``: a :class:`~kopa_replay.synth.model.Reduction` cuts the
  set to at most B first.

A handed *value* is the field's raw value for a one-parameter binding and a
``{param: value}`` dict for a binding of several parameters (a school is an
office code *and* a school code), so values stay JSON-stable.

Reductions are proposed only where they are well defined: a top-k cut by
``max``/``min`` or ``most_frequent`` must not split a tie, and a threshold
sits strictly between two observed scores. A question built on the reduction
then has one right answer, whatever order the records came in.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from math import floor, log10
from typing import Any

from kopa_replay.synth.model import Reduction
from kopa_replay.text.numbers import as_number

__all__ = [
    "REDUCTION_OPS",
    "JunctionError",
    "value_key",
    "distinct_values",
    "junction_kind",
    "bound_args",
    "value_strings",
    "scores",
    "apply_reduction",
    "propose_reductions",
    "derive_values",
    "nice_threshold",
    "splits_tie",
]

REDUCTION_OPS = ("max", "min", "threshold", "most_frequent", "match")


class JunctionError(ValueError):
    """A junction's rule gives no usable value set (nothing to hand over, or more than the budget)."""


def _usable(value: Any) -> bool:
    return value is not None and not isinstance(value, (dict, list)) and bool(str(value).strip())


def value_key(value: Any) -> tuple[str, ...]:
    """What makes two handed values the same: their text, stripped (``"0100"`` and ``" 0100"`` are one code)."""
    if isinstance(value, Mapping):
        return tuple(f"{k}={str(value[k]).strip()}" for k in sorted(value))
    return (str(value).strip(),)


def _keyed_values(
    records: Iterable[Mapping[str, Any]], binding: Mapping[str, str]
) -> list[tuple[tuple[str, ...] | None, Any | None]]:
    """(value_key, value) of each record's handed value, ``(None, None)`` where the record offers none.

    One loop per binding shape: the scorers read every record of every candidate page (millions per synthesis),
    so the common one-parameter binding reads its one field without building a value per record."""
    params = sorted(binding)
    if len(params) == 1:
        field = binding[params[0]]
        out: list[tuple[tuple[str, ...] | None, Any | None]] = []
        for record in records:
            value = record.get(field)
            if value.__class__ is str:
                text = value.strip()
                out.append(((text,), value) if text else (None, None))
            elif _usable(value):
                out.append((value_key(value), value))
            else:
                out.append((None, None))
        return out
    fields = [binding[p] for p in params]
    out = []
    for record in records:
        raw = [record.get(f) for f in fields]
        if all(_usable(v) for v in raw):
            value = dict(zip(params, raw))
            out.append((value_key(value), value))
        else:
            out.append((None, None))
    return out


def distinct_values(records: Iterable[Mapping[str, Any]], binding: Mapping[str, str]) -> list[Any]:
    """The distinct values the records offer for ``binding``, in order of first appearance.

    Records lacking (or blank in) any bound field offer nothing.
    """
    seen: set[tuple[str, ...]] = set()
    out = []
    for key, value in _keyed_values(records, binding):
        if key is not None and key not in seen:
            seen.add(key)
            out.append(value)
    return out


def junction_kind(distinct: int, budget: int) -> str:
    """``sequential`` (1), ``fan_out`` (2..budget) or ``derived`` (> budget)."""
    if distinct < 1:
        raise JunctionError("a junction needs at least one value to hand over")
    if budget < 1:
        raise JunctionError(f"the fan-out budget must be at least 1, not {budget}")
    return "sequential" if distinct == 1 else "fan_out" if distinct <= budget else "derived"


def bound_args(binding: Mapping[str, str], value: Any) -> dict[str, Any]:
    """The target arguments one handed value fills."""
    params = sorted(binding)
    if isinstance(value, Mapping):
        return {p: value[p] for p in params}
    if len(params) != 1:
        raise JunctionError(f"a binding of {len(params)} parameters needs a {{param: value}} value, not {value!r}")
    return {params[0]: value}


def value_strings(value: Any) -> list[str]:
    """The strings a handed value discloses (each component of a several-parameter value)."""
    if isinstance(value, Mapping):
        return [str(value[k]).strip() for k in sorted(value)]
    return [str(value).strip()]


# -- scores and reductions ------------------------------------------------------
def scores(
    records: Sequence[Mapping[str, Any]], binding: Mapping[str, str], field: str, op: str = "max"
) -> list[tuple[Any, float]]:
    """Per distinct value, its score over ``field``: the largest (``op`` max/threshold) or smallest (min)
    number among the records carrying it. Values whose records hold no number are left out. First-appearance order.
    """
    return _scores(records, _keyed_values(records, binding), field, op)


def _scores(
    records: Sequence[Mapping[str, Any]],
    keyed: list[tuple[tuple[str, ...] | None, Any | None]],
    field: str,
    op: str,
) -> list[tuple[Any, float]]:
    best: dict[tuple[str, ...], list[Any]] = {}
    for record, (key, value) in zip(records, keyed):
        if key is None:
            continue
        raw = record.get(field)
        try:
            number = as_number(raw) if not isinstance(raw, (dict, list)) else None
        except ValueError:
            number = None
        if number is None:
            continue
        if key not in best:
            best[key] = [value, float(number)]
        elif (op == "min" and number < best[key][1]) or (op != "min" and number > best[key][1]):
            best[key][1] = float(number)
    return [(value, score) for value, score in best.values()]


def _ranked(pairs: list[tuple[Any, float]], descending: bool) -> list[tuple[Any, float]]:
    # sorted() is stable: equal scores keep first-appearance order
    return sorted(pairs, key=lambda pair: -pair[1] if descending else pair[1])


def _frequencies(records: Sequence[Mapping[str, Any]], binding: Mapping[str, str]) -> list[tuple[Any, float]]:
    counts: Counter[tuple[str, ...]] = Counter()
    first: dict[tuple[str, ...], Any] = {}
    for key, value in _keyed_values(records, binding):
        if key is None:
            continue
        counts[key] += 1
        first.setdefault(key, value)
    return [(first[key], float(counts[key])) for key in first]


def apply_reduction(
    records: Sequence[Mapping[str, Any]], binding: Mapping[str, str], reduction: Reduction
) -> list[Any]:
    """The values ``reduction`` keeps (best first for max/min/most_frequent; record order for threshold)."""
    if reduction.op in ("max", "min"):
        ranked = _ranked(scores(records, binding, reduction.field, reduction.op), reduction.op == "max")
        return [value for value, _ in ranked[: reduction.kept]]
    if reduction.op == "most_frequent":
        ranked = _ranked(_frequencies(records, binding), True)
        return [value for value, _ in ranked[: reduction.kept]]
    if reduction.op == "threshold":
        if reduction.threshold is None:
            raise JunctionError("a threshold reduction needs a threshold")
        return [
            value for value, score in scores(records, binding, reduction.field, "max") if score > reduction.threshold
        ]
    if reduction.op == "match":
        if reduction.value is None:
            raise JunctionError("a match reduction needs the value to match")
        wanted = value_key(reduction.value)
        return distinct_values(
            [
                record
                for record in records
                if not isinstance(record.get(reduction.field), (dict, list))
                and value_key(record.get(reduction.field)) == wanted
            ],
            binding,
        )
    raise JunctionError(f"unknown reduction {reduction.op!r} (known: {', '.join(REDUCTION_OPS)})")


def splits_tie(records: Sequence[Mapping[str, Any]], binding: Mapping[str, str], reduction: Reduction) -> bool:
    """Whether a top-k cut (``max``/``min``/``most_frequent``) keeps one of two values that score the same: the
    record order, not the data, would then decide what is handed on (a declared plan checks this on every run)."""
    if reduction.op in ("max", "min"):
        ranked = _ranked(scores(records, binding, reduction.field, reduction.op), reduction.op == "max")
    elif reduction.op == "most_frequent":
        ranked = _ranked(_frequencies(records, binding), True)
    else:
        return False
    kept = reduction.kept
    return 0 < kept < len(ranked) and ranked[kept - 1][1] == ranked[kept][1]


def nice_threshold(low: float, high: float) -> float:
    """A short number ``t`` with ``low <= t < high`` (the fewest significant digits that fit), for a
    threshold a question can state: between 0.031 and 0.047 → 0.04; between 1,180 and 1,523 → 1,500."""
    if not low < high:
        raise JunctionError(f"no threshold fits between {low} and {high}")
    for digits in range(1, 16):
        for candidate in _round_candidates((low + high) / 2, digits):
            if low <= candidate < high:
                return candidate
    return low


def _round_candidates(x: float, digits: int) -> list[float | int]:
    """``x`` to ``digits`` significant digits, rounded and floored (round() keeps the float short)."""
    if x == 0:
        return [0]
    places = digits - 1 - floor(log10(abs(x)))
    rounded = round(x, places)
    down = round(floor(x * 10**places) / 10**places, max(places, 0))
    return [int(c) if float(c).is_integer() else float(c) for c in (rounded, down)]


def propose_reductions(
    records: Sequence[Mapping[str, Any]], binding: Mapping[str, str], measures: Sequence[str], budget: int
) -> list[Reduction]:
    """Every well-defined reduction of the records' value set to 1..budget values.

    ``measures`` are the numeric fields a max/min/threshold may rank by
    (see :func:`kopa_replay.synth.fields.measure_fields`). A cut at k is kept
    only when the k-th and (k+1)-th scores differ. Deterministic order: by op,
    field, kept.
    """
    out: list[Reduction] = []
    keyed = _keyed_values(records, binding)  # once for every measure and op
    for field in sorted(measures):
        pairs = _scores(records, keyed, field, "max")
        for op in ("max", "min"):
            ranked = _ranked(pairs if op == "max" else _scores(records, keyed, field, op), op == "max")
            for kept in range(1, min(budget, len(ranked) - 1) + 1):
                if ranked[kept - 1][1] != ranked[kept][1]:
                    out.append(Reduction(op, field, None, kept))
        distinct_scores = sorted({score for _, score in pairs}, reverse=True)
        # a threshold below the k-th highest distinct score keeps at least k values: k <= budget suffices
        for above in range(1, min(budget, len(distinct_scores) - 1) + 1):
            threshold = nice_threshold(distinct_scores[above], distinct_scores[above - 1])
            kept = sum(1 for _, score in pairs if score > threshold)
            if 1 <= kept <= budget:
                out.append(Reduction("threshold", field, threshold, kept))
    ranked = _ranked(_frequencies(records, binding), True)
    for kept in range(1, min(budget, len(ranked) - 1) + 1):
        if ranked[kept - 1][1] != ranked[kept][1]:
            out.append(Reduction("most_frequent", binding[sorted(binding)[0]], None, kept))
    return out


def derive_values(
    records: Sequence[Mapping[str, Any]], binding: Mapping[str, str], reduction: Reduction | None, budget: int
) -> list[Any]:
    """A junction's rule applied to fresh records: every distinct value, or what the reduction keeps.

    Raises :class:`JunctionError` when the rule yields nothing, or more than
    ``budget`` values (the plan no longer fits the data it meets).
    """
    values = apply_reduction(records, binding, reduction) if reduction else distinct_values(records, binding)
    if not values:
        raise JunctionError("the source output offers no value for the binding")
    if len(values) > budget:
        raise JunctionError(f"{len(values)} values exceed the fan-out budget {budget}")
    return values
