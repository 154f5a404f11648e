"""Declared plans: a task written as data — calls, hand-offs, cuts — with ``{slot}`` texts, run by :func:`run_plan`.

The curated benchmark (:mod:`kopa_replay.bench.curated`) and the corpus families
(:mod:`kopa_replay.synth.families`) write their plans alike::

    plan:                                          # one entry per group of calls
      - tool: neis_school_info                     # group 0: the start, called as written
        args: {LCTN_SC_NM: "{sido}"}
      - tool: neis_meal                            # group 1: one call per value handed on
        from: 0                                    # the group that hands the values (default: the one before)
        bind: {SD_SCHUL_CODE: SD_SCHUL_CODE}       # target parameter <- source field
        reduce: {op: match, field: SCHUL_NM, value: "{school}"}  # max / min / threshold / most_frequent / match
        args: {MLSV_YMD: "202609"}

This module parses such a plan (every problem named by file, family and call),
fills its slots, turns it into a trajectory skeleton to run, and types what ran
the way the walk types its own junctions.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from kopa_replay.errors import UsageError
from kopa_replay.synth.junction import junction_kind
from kopa_replay.synth.model import Answer, Junction, Reduction, Step, Trajectory

__all__ = [
    "FAN_OUT_BUDGET",
    "PAGE_BUDGET",
    "PlanStep",
    "family_items",
    "files_digest",
    "fill_slots",
    "need",
    "parse_plan",
    "plan_pattern",
    "plan_skeleton",
    "refuse_repeats",
    "typed_junction",
]

_SLOT = re.compile(r"\{(\w+)\}")
#: values one junction of a declared plan may hand on (the paper's B)
FAN_OUT_BUDGET = 5
#: pages one step of a declared plan may read: it reads every page of what it asks for, at the platform's page size
PAGE_BUDGET = 60


@dataclass(frozen=True)
class PlanStep:
    """One group of calls: ``tool`` with ``args``; after the start, one call per value group ``source`` hands on
    through ``bind`` (target parameter <- source field), cut by ``reduce`` first when given."""

    tool: str
    args: Mapping[str, Any]
    source: int | None = None
    bind: Mapping[str, str] = field(default_factory=dict)
    reduce: Reduction | None = None


def fill_slots(value: Any, slots: Mapping[str, Any], where: str) -> Any:
    """``value`` with every ``{slot}`` replaced (a whole-text ``{slot}`` keeps the slot's type)."""
    if isinstance(value, str):
        whole = _SLOT.fullmatch(value)
        if whole:
            return _slot(slots, whole.group(1), where)
        return _SLOT.sub(lambda m: str(_slot(slots, m.group(1), where)), value)
    if isinstance(value, Mapping):
        return {k: fill_slots(v, slots, where) for k, v in value.items()}
    if isinstance(value, list):
        return [fill_slots(v, slots, where) for v in value]
    return value


def slot_names(value: Any) -> set[str]:
    """The ``{slot}`` names ``value`` (text, mapping or list) uses."""
    if isinstance(value, str):
        return set(_SLOT.findall(value))
    if isinstance(value, Mapping):
        return set().union(*(slot_names(v) for v in value.values())) if value else set()
    if isinstance(value, list):
        return set().union(*(slot_names(v) for v in value)) if value else set()
    return set()


def _slot(slots: Mapping[str, Any], name: str, where: str) -> Any:
    if name not in slots:
        raise UsageError(f"{where}: the slot {{{name}}} has no value (slots: {', '.join(sorted(slots)) or 'none'})")
    return slots[name]


def need(data: Mapping[str, Any], key: str, where: str) -> Any:
    """``data[key]``, or an error naming ``where`` when it is missing or empty."""
    if key not in data or data[key] in (None, ""):
        raise UsageError(f"{where}: missing {key!r}")
    return data[key]


def parse_plan(items: Any, where: str) -> tuple[PlanStep, ...]:
    """The plan's groups, checked: a start called as written, then calls bound to an earlier group."""
    if not isinstance(items, list) or not items:
        raise UsageError(f"{where}: 'plan' must be a non-empty list of calls")
    steps = []
    for k, item in enumerate(items):
        at = f"{where} plan[{k}]"
        if not isinstance(item, Mapping):
            raise UsageError(f"{at}: a call is a mapping with 'tool' and 'args'")
        reduce = item.get("reduce")
        reduction = None
        if reduce:
            try:
                reduction = Reduction(**reduce)
            except TypeError as exc:
                raise UsageError(f"{at}: reduce {reduce!r}: {exc}") from None
        if not isinstance(item.get("args") or {}, Mapping):
            raise UsageError(f"{at}: 'args' must be a mapping of parameter: value")
        if k == 0:
            if item.get("bind") or reduction:
                raise UsageError(f"{at}: the start is called as written (no bind, no reduce)")
            steps.append(PlanStep(need(item, "tool", at), dict(item.get("args") or {})))
            continue
        source = item.get("from", k - 1)
        if not isinstance(source, int) or not 0 <= source < k:
            raise UsageError(f"{at}: 'from' must name an earlier group (0..{k - 1}), not {source!r}")
        bind = item.get("bind")
        if not isinstance(bind, Mapping) or not bind:
            raise UsageError(f"{at}: a later call needs 'bind' (target parameter: source field)")
        steps.append(PlanStep(need(item, "tool", at), dict(item.get("args") or {}), source, dict(bind), reduction))
    return tuple(steps)


def plan_skeleton(
    id: str,
    plan: tuple[PlanStep, ...],
    answer: Mapping[str, Any],
    unit: str,
    question: str,
    *,
    fan_out_budget: int,
    page_budget: int,
) -> Trajectory:
    """The plan as a trajectory to run (one step per group; what :func:`~kopa_replay.synth.plan.run_plan` reads)."""
    steps = [Step(k, step.tool, dict(step.args), "", 0, None, "", k) for k, step in enumerate(plan)]
    junctions = [
        Junction(int(step.source), k, dict(step.bind), "sequential", 0, 0, (), step.reduce)
        for k, step in enumerate(plan)
        if k and step.source is not None
    ]
    return Trajectory(
        id=id,
        pattern="chain",
        steps=steps,
        junctions=junctions,
        answer=Answer("number", None, unit=unit),
        question=question,
        meta={"answer_spec": dict(answer), "fan_out_budget": fan_out_budget, "page_budget": page_budget},
    )


def typed_junction(junction: Junction, fan_out_budget: int) -> Junction:
    """A junction typed as the walk types its own: a cut by rank or threshold is a reduction node (derived); a
    lookup's match, or no cut, by the number of values handed on (1 sequential, 2..B fan-out)."""
    if junction.reduction is not None and junction.reduction.op != "match":
        return replace(junction, kind="derived")
    return replace(junction, kind=junction_kind(len(junction.values), fan_out_budget))


def plan_pattern(answer_spec: Mapping[str, Any], junctions: list[Junction]) -> str:
    """The pattern an executed plan is: comparison (argmax/argmin), condition (threshold), else by its junctions."""
    op = answer_spec.get("op")
    if op in ("argmax", "argmin"):
        return "comparison"
    if op == "threshold":
        return "condition"
    kinds = {junction.kind for junction in junctions}
    return "derived" if "derived" in kinds else "fan_out" if "fan_out" in kinds else "chain"


def family_items(root: Path, domains: Sequence[str], what: str) -> Iterator[tuple[str, str, Any]]:
    """``(file name, domain, family as written)`` of each ``*.yaml`` in ``root`` (a file's stem is its domain unless
    it says ``domain``), by file then order; ``domains`` keeps those files only. ``what`` names the files in
    messages ("curated task", "family")."""
    from kopa_replay.util import load_yaml

    files = sorted(root.glob("*.yaml"))
    if not files:
        raise UsageError(f"{root}: no {what} file (*.yaml)")
    unknown = sorted(set(domains) - {path.stem for path in files})
    if unknown:
        raise UsageError(f"{root}: no {what} file for {', '.join(unknown)} (files: {', '.join(p.stem for p in files)})")
    for path in files:
        if domains and path.stem not in domains:
            continue
        try:
            data = load_yaml(path.read_text(encoding="utf-8"))
        except Exception as exc:  # a YAML error names its line
            raise UsageError(f"{path}: not valid YAML: {exc}") from None
        if not isinstance(data, Mapping) or not isinstance(data.get("families"), list):
            raise UsageError(f"{path}: a {what} file has 'domain' and a list of 'families'")
        domain = str(data.get("domain") or path.stem)
        for family in data["families"]:
            yield path.name, domain, family


def refuse_repeats(root: Path, names: Sequence[str], what: str) -> None:
    """A :class:`UsageError` naming the ``names`` given twice (``what``: "task ids", "family names")."""
    repeated = sorted({name for name in names if names.count(name) > 1})
    if repeated:
        raise UsageError(f"{root}: {what} used twice: {', '.join(repeated)}")


def files_digest(root: Path) -> str:
    """sha256 over the ``*.yaml`` files' names and bytes in ``root`` (a manifest records what it was made from)."""
    import hashlib

    digest = hashlib.sha256()
    for path in sorted(root.glob("*.yaml")):
        digest.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()
