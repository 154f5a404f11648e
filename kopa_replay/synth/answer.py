"""Answers computed from executed results: a small spec language, its evaluation, and proposals. Pure.

A trajectory's answer is recorded as a *spec* (a JSON-able dict, kept in
``trajectory.meta["answer_spec"]``) over the outputs of its step groups —
group ``g`` is the start (g = 0) or the calls junction ``g - 1`` fed — so the
same spec recomputes the answer when the plan is re-run (perturbed or not):

====================  ==========================================================
``count``             records of group g (reported totals; all branches)
``sum``               sum of a numeric field over every record of group g
``value``             the one value a field takes in branch b of group g
``pct_change``        (a − b) / b × 100 of two numeric specs (the Lightron premium)
``difference``        a − b of two numeric specs
``argmax``/``argmin`` the label of the branch of group g with the largest /
                      smallest metric (value, sum or count of that branch)
``threshold``         whether a numeric spec is above (``>``) / below (``<``) t
====================  ==========================================================

``sum``, ``value`` and a comparison's metric may carry ``where`` (``{field: text}``):
only the records reading those texts count — one row of a table-like answer
(the 자산총계 row of a financial statement, the 주당 현금배당금 row of a
dividend table). A comparison names its winner by ``label``: a field of the
winning branch's own records, or ``{"group": g, "match": …, "field": name}`` —
the name an earlier group's records give the value handed to that branch (the
routes at a stop carry their names; the bus positions of one route do not).

Evaluation refuses what has no single right answer: a sum over a partly read
output, a "value" a field does not hold constant, a comparison with a tie.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from kopa_replay.catalog.model import Tool
from kopa_replay.synth.fields import ADDITIVE, label_fields, measure_fields, numbers_of, quantity_class, unit_of
from kopa_replay.synth.junction import value_strings
from kopa_replay.synth.model import Answer

__all__ = [
    "AnswerError",
    "Branch",
    "evaluate",
    "render",
    "answer_for",
    "propose",
    "draw",
    "condition_specs",
    "pct_change",
    "difference",
    "total",
    "finish",
    "PATTERN_FAMILIES",
]

#: which spec families answer which pattern
PATTERN_FAMILIES: Mapping[str, tuple[str, ...]] = {
    "chain": ("value", "count", "sum", "cross"),
    "fan_out": ("count", "sum", "between"),
    "derived": ("value", "count", "sum", "cross", "between"),
    "comparison": ("compare",),
    "condition": ("condition",),
}


class AnswerError(ValueError):
    """The results do not determine an answer under this spec."""


@dataclass(frozen=True)
class Branch:
    """One executed call as an answer sees it: records read, the reported total, whether every page was read,
    and the value handed to it (None for the start)."""

    records: Sequence[Mapping[str, Any]]
    total_count: int | None
    complete: bool
    value: Any = None


# -- arithmetic -----------------------------------------------------------------
def finish(x: float | int, places: int = 4) -> float | int:
    """Integers stay integers; other numbers are rounded to ``places`` decimals (−0.0 becomes 0.0)."""
    if isinstance(x, (int, np.integer)) and not isinstance(x, bool):
        return int(x)
    x = float(x)
    if not np.isfinite(x):
        raise AnswerError(f"not a finite number: {x}")
    rounded = round(x, places)
    return rounded + 0.0


def pct_change(a: float, b: float) -> float:
    """(a − b) / b × 100, rounded to 2 decimals: how far ``a`` sits above ``b`` in percent."""
    if b == 0:
        raise AnswerError("a percentage change from 0 is undefined")
    return float(finish((a - b) / b * 100, 2))


def difference(a: float | int, b: float | int) -> float | int:
    return finish(a - b)


def total(numbers: Sequence[float | int]) -> float | int:
    """A sum that stays an integer over integers (``math.fsum`` for floats: order does not matter)."""
    if all(isinstance(n, int) for n in numbers):
        return int(sum(numbers))
    return finish(math.fsum(numbers))


# -- evaluation -------------------------------------------------------------------
def _group(groups: Sequence[Sequence[Branch]], g: int) -> Sequence[Branch]:
    if not 0 <= g < len(groups) or not groups[g]:
        raise AnswerError(f"no step group {g}")
    return groups[g]


def _count(branch: Branch) -> int:
    if branch.total_count is not None:
        return int(branch.total_count)
    if branch.complete:
        return len(branch.records)
    raise AnswerError("a count over a partly read output with no reported total")


def _where(records: Sequence[Mapping[str, Any]], where: Mapping[str, Any] | None) -> Sequence[Mapping[str, Any]]:
    """The records whose fields read the texts of ``where`` (all of them when there is none)."""
    if not where:
        return records
    return [r for r in records if all(str(r.get(k, "")).strip() == str(v).strip() for k, v in where.items())]


def _sum(branches: Sequence[Branch], field: str, where: Mapping[str, Any] | None = None) -> float | int:
    if not all(b.complete for b in branches):
        raise AnswerError("a sum over a partly read output")
    numbers = numbers_of(_where([r for b in branches for r in b.records], where), field)
    if not numbers:
        raise AnswerError(f"no number in field {field!r}")
    return total(numbers)


def _value(branch: Branch, field: str, where: Mapping[str, Any] | None = None) -> float | int:
    numbers = numbers_of(_where(branch.records, where), field)
    if not numbers:
        raise AnswerError(f"no number in field {field!r}")
    if len(set(numbers)) != 1:
        raise AnswerError(f"field {field!r} takes {len(set(numbers))} values, not one")
    return numbers[0]


def _metric(branch: Branch, metric: Mapping[str, Any]) -> float | int:
    agg = metric["agg"]
    if agg == "count":
        return _counted([branch], metric.get("where"), metric.get("distinct"))
    if agg == "sum":
        return _sum([branch], metric["field"], metric.get("where"))
    if agg == "value":
        return _value(branch, metric["field"], metric.get("where"))
    raise AnswerError(f"unknown metric {agg!r}")


def _label(branch: Branch, label: str | Mapping[str, Any] | None, groups: Sequence[Sequence[Branch]] = ()) -> str:
    if label is None:
        return " / ".join(value_strings(branch.value)) if branch.value is not None else ""
    if isinstance(label, Mapping):  # the name an earlier group gives the value handed to this branch
        if branch.value is None:
            raise AnswerError("a branch named from its source needs the value handed to it")
        match, field = label["match"], label["field"]
        keys = dict(match) if isinstance(match, Mapping) else None
        source = [r for b in _group(groups, label["group"]) for r in b.records]
        if keys is None:
            wanted = value_strings(branch.value)
            rows = [r for r in source if [str(r.get(match)).strip()] == wanted]
        else:
            handed = dict(branch.value) if isinstance(branch.value, Mapping) else {}
            rows = [
                r
                for r in source
                if handed and all(str(r.get(f)).strip() == str(handed.get(p)).strip() for p, f in keys.items())
            ]
        texts = {str(r.get(field)).strip() for r in rows if r.get(field) is not None}
    else:
        texts = {str(r.get(label)).strip() for r in branch.records if r.get(label) is not None}
    if len(texts) != 1:
        raise AnswerError(f"label {label!r} does not name the branch once")
    return texts.pop()


def _compare(spec: Mapping[str, Any], groups: Sequence[Sequence[Branch]]) -> str:
    branches = _group(groups, spec["group"])
    if len(branches) < 2:
        raise AnswerError("a comparison needs at least two branches")
    metrics = [_metric(b, spec["metric"]) for b in branches]
    best = max(metrics) if spec["op"] == "argmax" else min(metrics)
    if metrics.count(best) != 1:
        raise AnswerError("the comparison is tied")
    labels = [_label(b, spec.get("label"), groups) for b in branches]
    if len(set(labels)) != len(labels) or not all(labels):
        raise AnswerError("branch labels do not tell the branches apart")
    return labels[metrics.index(best)]


def _threshold(spec: Mapping[str, Any], groups: Sequence[Sequence[Branch]]) -> bool:
    x = evaluate(spec["of"], groups)
    if spec["cmp"] == ">":
        return bool(x > spec["threshold"])
    if spec["cmp"] == "<":
        return bool(x < spec["threshold"])
    raise AnswerError(f"unknown comparison {spec['cmp']!r}")


def _counted(branches: Sequence[Branch], where: Mapping[str, Any] | None = None, distinct: str | None = None) -> int:
    """How many records the branches hold (their reported totals), or only those reading ``where``, or how
    many distinct values of ``distinct`` they hold (the same route at two stops is one route)."""
    if not where and not distinct:
        return sum(_count(b) for b in branches)
    if not all(b.complete for b in branches):  # only the records read can be sorted by their fields
        raise AnswerError("a count of some records over a partly read output")
    records = [r for b in branches for r in _where(b.records, where)]
    if distinct:
        return len({str(r.get(distinct)).strip() for r in records if r.get(distinct) is not None})
    return len(records)


_OPS: Mapping[str, Callable[[Mapping[str, Any], Sequence[Sequence[Branch]]], Any]] = {
    "count": lambda s, gs: _counted(_group(gs, s["group"]), s.get("where"), s.get("distinct")),
    "sum": lambda s, gs: _sum(_group(gs, s["group"]), s["field"], s.get("where")),
    "value": lambda s, gs: _value(_branch(gs, s), s["field"], s.get("where")),
    "pct_change": lambda s, gs: pct_change(evaluate(s["a"], gs), evaluate(s["b"], gs)),
    "difference": lambda s, gs: difference(evaluate(s["a"], gs), evaluate(s["b"], gs)),
    "argmax": _compare,
    "argmin": _compare,
    "threshold": _threshold,
}


def _branch(groups: Sequence[Sequence[Branch]], spec: Mapping[str, Any]) -> Branch:
    branches = _group(groups, spec["group"])
    b = spec.get("branch", 0)
    if not 0 <= b < len(branches):
        raise AnswerError(f"group {spec['group']} has no branch {b}")
    return branches[b]


def evaluate(spec: Mapping[str, Any], groups: Sequence[Sequence[Branch]]) -> Any:
    """The answer ``spec`` gives over ``groups`` (per group, its branches); :class:`AnswerError` if none."""
    op = _OPS.get(spec.get("op", ""))
    if op is None:
        raise AnswerError(f"unknown answer op {spec.get('op')!r} (known: {', '.join(sorted(_OPS))})")
    value = op(spec, groups)
    return finish(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else value


def render(spec: Mapping[str, Any]) -> str:
    """The spec as a short formula (the Answer's ``derivation``), e.g.
    ``pct_change(value(g2[0].clpr), value(g1[0].act_mktprcfl_cvprc_lwtrsprc))``."""
    op = spec["op"]
    if op == "count":
        distinct = f" distinct {spec['distinct']}" if spec.get("distinct") else ""
        return f"count(g{spec['group']}{distinct}{_where_text(spec)})"
    if op == "sum":
        return f"sum(g{spec['group']}.{spec['field']}{_where_text(spec)})"
    if op == "value":
        return f"value(g{spec['group']}[{spec.get('branch', 0)}].{spec['field']}{_where_text(spec)})"
    if op in ("pct_change", "difference"):
        return f"{op}({render(spec['a'])}, {render(spec['b'])})"
    if op in ("argmax", "argmin"):
        metric = spec["metric"]
        inner = (
            f"{metric['agg']}({metric['field']}{_where_text(metric)})"
            if metric.get("field")
            else f"{metric['agg']}{_where_text(metric)}"
        )
        label = spec.get("label") or "handed value"
        if isinstance(label, Mapping):
            label = f"g{label['group']}.{label['field']}"
        return f"{op}(g{spec['group']} branches by {inner}) -> {label}"
    if op == "threshold":
        return f"{render(spec['of'])} {spec['cmp']} {spec['threshold']}"
    raise AnswerError(f"unknown answer op {op!r}")


def _where_text(spec: Mapping[str, Any]) -> str:
    where = spec.get("where")
    return f" where {', '.join(f'{k}={v}' for k, v in sorted(where.items()))}" if where else ""


def answer_for(spec: Mapping[str, Any], value: Any, unit: str = "") -> Answer:
    """The :class:`Answer` for an evaluated spec: kind, tolerance (absolute) and derivation."""
    op = spec["op"]
    if op in ("argmax", "argmin"):
        return Answer("text", value, 0.0, render(spec), "")
    if op == "threshold":
        return Answer("bool", bool(value), 0.0, render(spec), "")
    if op == "pct_change":
        return Answer("number", value, 0.01, render(spec), "%")
    tolerance = 0.0 if isinstance(value, int) else max(1e-4, abs(value) * 1e-6)
    return Answer("number", value, tolerance, render(spec), unit)


# -- proposals ----------------------------------------------------------------------
def _numeric_specs(groups: Sequence[Sequence[Branch]], tools: Sequence[Tool]) -> dict[str, list[tuple[dict, str]]]:
    """Numeric specs that evaluate over these groups, by family, each with its unit."""
    last = len(groups) - 1
    final, tool = groups[last], tools[last]
    records = [r for b in final for r in b.records]
    measures = measure_fields(tool, records)
    found: dict[str, list[tuple[dict, str]]] = defaultdict(list)

    def add(family: str, spec: dict, unit: str) -> None:
        try:
            evaluate(spec, groups)
        except AnswerError:
            return
        found[family].append((spec, unit))

    add("count", {"op": "count", "group": last}, "")
    for field in measures:
        unit, kind = unit_of(tool, field), quantity_class(tool, field)
        if len(records) >= 2 and kind in ADDITIVE:  # boardings add up; prices, rates and headways do not
            add("sum", {"op": "sum", "group": last, "field": field}, unit)
        if len(final) == 1:
            add("value", {"op": "value", "group": last, "branch": 0, "field": field}, unit)
        else:  # two branches of a fan-out side by side: how far apart are they?
            a = {"op": "value", "group": last, "branch": 0, "field": field}
            b = {"op": "value", "group": last, "branch": 1, "field": field}
            add("between", {"op": "difference", "a": a, "b": b}, unit)
            if kind not in ("rate", "change"):  # a percentage of a percentage reads as nonsense
                add("between", {"op": "pct_change", "a": a, "b": b}, "%")
    if len(final) == 1:  # an earlier step's price against the last one's, in the same unit (the Lightron premium)
        for g in range(last):
            if len(groups[g]) != 1:
                continue
            for field_a in measures:
                kind, unit = quantity_class(tool, field_a), unit_of(tool, field_a)
                if kind != "price" or not unit:  # two amounts of money need not be about the same thing
                    continue
                for field_b in measure_fields(tools[g], groups[g][0].records):
                    if (quantity_class(tools[g], field_b), unit_of(tools[g], field_b)) != (kind, unit):
                        continue
                    a = {"op": "value", "group": last, "branch": 0, "field": field_a}
                    b = {"op": "value", "group": g, "branch": 0, "field": field_b}
                    add("cross", {"op": "pct_change", "a": a, "b": b}, "%")
                    add("cross", {"op": "difference", "a": a, "b": b}, unit)
    return found


def _comparison_specs(groups: Sequence[Sequence[Branch]], tools: Sequence[Tool]) -> list[tuple[dict, str]]:
    last = len(groups) - 1
    final, tool = groups[last], tools[last]
    if len(final) < 2:
        return []
    records = [r for b in final for r in b.records]
    metrics: list[dict[str, Any]] = [{"agg": "count"}]
    several = any(len(b.records) >= 2 for b in final)  # else a branch's sum is its value
    for field in measure_fields(tool, records):
        metrics.append({"agg": "value", "field": field})
        if several and quantity_class(tool, field) in ADDITIVE:
            metrics.append({"agg": "sum", "field": field})
    labels: list[str | None] = [f for f in label_fields(tool, records)] + [None]
    out = []
    for metric in metrics:
        for op in ("argmax", "argmin"):
            for label in labels:  # the first label that tells the branches apart
                spec = {"op": op, "group": last, "metric": metric, "label": label}
                try:
                    evaluate(spec, groups)
                except AnswerError:
                    continue
                out.append((spec, ""))
                break
    return out


def condition_specs(
    numeric: list[tuple[dict, str]], groups: Sequence[Sequence[Branch]], rng: np.random.Generator
) -> list[tuple[dict, str]]:
    """One threshold over one of the numeric specs (drawn), well away from the computed value (a factor of
    0.5–2) and stated with few digits; [] when every draw lands too close to call."""
    from kopa_replay.synth.junction import nice_threshold

    for index in rng.permutation(len(numeric)):
        spec, unit = numeric[int(index)]
        value = evaluate(spec, groups)
        x = float(value)
        factor = float(rng.choice([0.5, 0.7, 1.4, 2.0]))
        target = x * factor if x != 0 else float(rng.choice([-1.0, 1.0]))
        threshold: float | int
        # the roundest number within a quarter of the gap around the target — never the target itself:
        # 224 = 2 × 112 or 100,836,569,412 = 0.7 × 144,052,242,017 would state the figure being tested
        reach = 0.25 * abs(target - x)
        if isinstance(value, int):  # a count or a sum of counts: "more than 2.8 records" is no question
            low, high = math.ceil(target - reach), math.floor(target + max(1.0, reach))
            if low > high:
                continue
            threshold = int(nice_threshold(low, high + 1))
            if threshold == value:
                continue
        else:
            threshold = nice_threshold(target - reach, target + reach)
            if abs(threshold - x) < 0.05 * max(abs(x), 1e-9):
                continue  # too close to call: a rounding would flip it
        cmp = str(rng.choice([">", "<"]))
        return [({"op": "threshold", "of": spec, "cmp": cmp, "threshold": threshold}, unit)]
    return []


def propose(
    pattern: str, groups: Sequence[Sequence[Branch]], tools: Sequence[Tool], rng: np.random.Generator
) -> tuple[dict, Any, str] | None:
    """Pick an answer spec for ``pattern`` over the executed groups: (spec, value, unit), or None.

    A family is drawn first (uniformly among those that have a candidate),
    then a candidate within it, so one tool with many numeric fields does not
    crowd out counts and comparisons.
    """
    families = PATTERN_FAMILIES.get(pattern)
    if families is None:
        raise AnswerError(f"unknown pattern {pattern!r} (known: {', '.join(PATTERN_FAMILIES)})")
    candidates: dict[str, list[tuple[dict, str]]] = {}
    if "compare" in families:
        candidates["compare"] = _comparison_specs(groups, tools)
    numeric = _numeric_specs(groups, tools)
    for family in families:
        if family in numeric:
            candidates[family] = numeric[family]
    if "condition" in families:
        pool = [item for family in ("value", "count", "sum", "cross", "between") for item in numeric.get(family, [])]
        candidates["condition"] = condition_specs(pool, groups, rng)
    return draw(candidates, families, groups, rng)


def draw(
    candidates: Mapping[str, Sequence[tuple[dict, str]]],
    families: Sequence[str],
    groups: Sequence[Sequence[Branch]],
    rng: np.random.Generator,
) -> tuple[dict, Any, str] | None:
    """A family drawn first (uniformly among those with a candidate), then a candidate within it — so one tool
    with many numeric fields does not crowd out counts and comparisons: (spec, value, unit), or None."""
    usable = [family for family in families if candidates.get(family)]
    if not usable:
        return None
    family = usable[int(rng.integers(len(usable)))]
    spec, unit = candidates[family][int(rng.integers(len(candidates[family])))]
    return spec, evaluate(spec, groups), unit
