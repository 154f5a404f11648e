"""Composing a question from the intent table, and the answers it can phrase.

:class:`Phrasing` reads one trajectory against :class:`~kopa_replay.synth.intents.Intents`:
the named start, every link's relation phrase with its junction's reduction
("그중 노선 길이가 가장 짧은 4개의 버스 노선"), and the answer program's phrase
("모두 합쳐 몇 대입니까?", "…가 가장 많은 것은 어느 시군입니까?", "…보다 큽니까? (예/아니오)");
anything without authored words raises :class:`~kopa_replay.synth.intents.IntentError`.
It also checks a trajectory the way the benchmark build does (:meth:`Phrasing.unstated`,
:meth:`Phrasing.incoherent`). :func:`propose` picks an answer spec the table can phrase
(the walk's answer step with ``intents=``). Pure: no I/O.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from kopa_replay.errors import UsageError
from kopa_replay.synth.answer import PATTERN_FAMILIES, AnswerError, Branch, evaluate
from kopa_replay.synth.intents import (
    Entry,
    IntentError,
    IntentLink,
    Intents,
    Measure,
    Relation,
    ToolIntent,
    date_text,
    josa,
    number_text,
    render,
)
from kopa_replay.synth.model import Junction, Trajectory

__all__ = ["Phrasing", "propose"]


def _amount(x: Any, unit: str) -> str:
    """A round number as people write it: 500,000,000,000원 → 5,000억원, 73,000,000,000,000원 → 73조원;
    other numbers with thousands separators."""
    if isinstance(x, float) and x.is_integer():
        x = int(x)
    if isinstance(x, int) and not isinstance(x, bool):
        if abs(x) >= 10**12 and x % 10**8 == 0:  # 1,400,000,000,000 → 1조 4,000억
            jo, eok = divmod(x, 10**12)
            return f"{jo:,}조{f' {eok // 10**8:,}억' if eok else ''}{unit}"
        if abs(x) >= 10**8 and x % 10**8 == 0:
            return f"{x // 10**8:,}억{unit}"
        if abs(x) >= 10**5 and x % 10**4 == 0:
            return f"{x // 10**4:,}만{unit}"
    return f"{number_text(x)}{unit}"


# -- composing a question ----------------------------------------------------------------
_SIDO_SUFFIX = re.compile(r"(특별자치시|특별자치도|특별시|광역시|도)$")


def _names(flat_question: str, value: Any) -> bool:
    """Whether a question (spaces removed) names ``value``: a date as Korean writes it, one of its words,
    that word without the 시도 suffix people drop (서울특별시 → 서울), or a one-letter search quoted ('N')."""
    text = str(value).strip()
    if re.fullmatch(r"\d{6}(\d{2})?", text):  # a date or month: written out, or its year and month ("2026년 7~8월")
        if len(text) == 8 and date_text(text, "date").replace(" ", "") in flat_question:
            return True
        month = int(text[4:6])
        return bool(re.search(rf"{text[:4]}년([0-9~,]*~)?{month}(월|~)", flat_question))
    if len(text) == 1:
        return f"'{text}'" in flat_question
    for word in text.split():
        short = _SIDO_SUFFIX.sub("", word)
        if len(word) >= 2 and (word in flat_question or (len(short) >= 2 and short in flat_question)):
            return True
    return False


def _ends_in_hangul(text: str) -> bool:
    text = text.rstrip()
    return bool(text) and "가" <= text[-1] <= "힣"


def _plural(np_: str) -> str:
    """A set of entities handed on one by one (a fan-out): "버스 노선" → "버스 노선들"."""
    return np_ + "들" if _ends_in_hangul(np_) and not np_.endswith("들") else np_


def _ask_amount(unit: str) -> str:
    if unit in ("", "원", "만원", "백만원"):
        return "얼마입니까?"
    return f"몇 {unit}입니까?"


def _join(np_: str, of: str, says: str) -> str:
    return f"{np_}{of} {says}" if of == "의" else f"{np_}{of}{says}".replace("  ", " ")


@dataclass
class _Hop:
    """What the question knows about one step group: the phrase of its records, the tool's intent, and the
    phrase and noun of the entity handed *into* it (None for the start)."""

    records: str
    intent: ToolIntent
    handed: str | None = None
    handed_noun: str = ""
    relation: Relation | None = None
    args: Mapping[str, Any] = field(default_factory=dict)
    link: IntentLink | None = None


class Phrasing:
    """Composes the question of one trajectory from the table (see the module docstring); every part it
    cannot find an authored phrase for raises :class:`IntentError` naming it."""

    def __init__(self, intents: Intents, trajectory: Trajectory) -> None:
        self.intents, self.t = intents, trajectory
        self.group_of = {step.index: step.group for step in trajectory.steps}
        first: dict[int, Any] = {}
        for step in trajectory.steps:
            first.setdefault(step.group, step)
        self.first = first
        self.hops = self._hops()

    def _tool(self, name: str) -> ToolIntent:
        intent = self.intents.tool(name)
        if intent is None:
            raise IntentError(f"intents: no record phrase for tool {name} (trajectory {self.t.id})")
        return intent

    def _values(self, relation: Relation, args: Mapping[str, Any], e: str) -> dict[str, Any]:
        beside = {k: v for k, v in args.items() if k not in relation.bind}
        chosen = self.intents.beside_for(relation, beside)
        if chosen is None:
            raise IntentError(
                f"intents: relation {relation.id} was not made for the arguments "
                f"{dict(sorted(beside.items()))} (trajectory {self.t.id})"
            )
        return {**{k: v for k, v in args.items()}, **relation.words_for(chosen), "e": e}

    def _hops(self) -> list[_Hop]:
        start = self.first[0]
        first = self.t.junctions[0].reduction if self.t.junctions else None
        picked = bool(first and first.op == "match")
        entry = self.intents.entry_for(
            start.tool,
            start.args,
            self.t.meta.get("entry"),
            None if not self.t.junctions else picked,
            first.value if first is not None and picked else None,
        ) or self.intents.entry_for(start.tool, start.args, self.t.meta.get("entry"))
        if entry is None:
            raise IntentError(f"intents: no named start for {start.tool} {dict(start.args)} (trajectory {self.t.id})")
        self.entry = entry
        named = render(entry.named.says, entry.named.attrs)
        self.named = named
        hops = [
            _Hop(
                render(entry.relation.says, self._values(entry.relation, start.args, named)),
                self._tool(start.tool),
                relation=entry.relation,
                args=start.args,
            )
        ]
        for k, junction in enumerate(self.t.junctions):
            source_group = self.group_of[junction.source]
            source = hops[source_group]
            target = self.first[self.group_of[junction.target]]
            source_tool = self.t.steps[junction.source].tool
            link = self.intents.link_for(source_tool, target.tool, junction.binding)
            if link is None and source_group == 0 and entry.relation.select is not None:
                link = self._entry_link(source_tool, target.tool, junction.binding)
            if link is None:
                raise IntentError(
                    f"intents: no relation phrase for the link {source_tool} -> {target.tool} "
                    f"{dict(junction.binding)} (trajectory {self.t.id})"
                )
            handed, noun = self._handed(k, junction, source, link)
            # a threshold may keep one value or five: the phrase must not tell which (the plural says "those")
            several = (
                junction.kind == "fan_out"
                or len(junction.values) > 1
                or (junction.reduction is not None and junction.reduction.op == "threshold")
            )
            e = _plural(handed) if several else handed
            hops.append(
                _Hop(
                    render(link.relation.says, self._values(link.relation, target.args, e)),
                    self._tool(target.tool),
                    handed,
                    noun,
                    link.relation,
                    target.args,
                    link,
                )
            )
        return hops

    # -- checks (the benchmark build runs them on every task)
    def unstated(self, question: str) -> list[str]:
        """Arguments the question does not state: a value taken from the named entity that its words do not
        name (loosely: "서울" states 서울특별시), or an argument no relation of the table makes."""
        problems = []
        flat = re.sub(r"\s+", "", question)
        named = self.entry.named
        for param, attr in self.entry.relation.bind.items():
            if not _names(flat, named.attrs[attr]):
                problems.append(f"the question does not state {param}={named.attrs[attr]!r} (named {named.says!r})")
        for index, hop in enumerate(self.hops):
            relation = hop.relation
            if relation is None:
                continue
            paging = self.intents._paging(relation.tool)
            allowed = set(relation.bind) | {k for beside in relation.with_ for k in beside} | set(paging)
            extra = sorted(set(hop.args) - allowed)
            if extra:
                problems.append(
                    f"group {index} calls {relation.tool} with {', '.join(extra)}, which "
                    f"relation {relation.id} neither binds nor states"
                )
        return problems

    def incoherent(self) -> list[str]:
        """Links no question motivates: one that hands back the entity it read, or a lookup left unused."""
        problems = []
        into: IntentLink | Entry | None = self.entry
        for k, hop in enumerate(self.hops[1:]):
            link = hop.link
            if link is None:
                continue
            previous = into.relation if isinstance(into, (IntentLink, Entry)) else None
            if self.intents.round_trip(previous, link):
                problems.append(
                    f"junction {k} hands back the {link.via.entity if link.via else ''} its records "
                    f"belong to ({link.source} -> {link.target})"
                )
            if self.intents.detour(into, link):
                problems.append(f"junction {k} follows a lookup it does not use ({link.source} -> {link.target})")
            into = link
        return problems

    def _entry_link(self, source: str, target: str, binding: Mapping[str, str]) -> IntentLink | None:
        """A start whose records were picked by name gives the named entity's attributes like any source."""
        intent = self.intents.tool(source)
        if intent is None:
            return None
        for relation in self.intents.relations:
            if relation.tool == target and relation.entity == intent.entity and relation.select is None:
                by_attr = {attr: out for out, attr in sorted(intent.fields.items())}
                wanted = {p: by_attr.get(a) for p, a in relation.bind.items()}
                if wanted == dict(binding):
                    return IntentLink(source, target, dict(binding), relation)
        return None

    def _handed(self, k: int, junction: Junction, source: _Hop, link: IntentLink) -> tuple[str, str]:
        """The phrase and noun of the entity handed at junction ``k``: the source records, reduced, then related."""
        reduction = junction.reduction
        entity = self.intents.entity(link.relation.entity)
        if reduction is not None and reduction.op == "match":
            return self.named, entity.noun
        own_noun = source.intent.noun if link.via is None else entity.noun
        counter = (source.intent.counter or entity.counter) if link.via is None else entity.counter
        records = source.records
        if reduction is None:
            reduced = records
        elif reduction.op == "most_frequent":
            if link.via is None:
                raise IntentError(
                    f"intents: 'most frequent' over {source.intent.tool}'s own records says nothing "
                    f"(trajectory {self.t.id})"
                )
            many = f"{reduction.kept}{entity.counter}의 " if reduction.kept > 1 else ""
            return f"{josa(records, '이/가')} 가장 많은 {many}{entity.noun}", entity.noun
        else:
            measure = source.intent.measure(reduction.field)
            if measure is None:
                raise IntentError(
                    f"intents: no phrase for {source.intent.tool}.{reduction.field} to rank by (trajectory {self.t.id})"
                )
            noun = source.intent.noun
            if reduction.op in ("max", "min"):
                adjective = measure.more if reduction.op == "max" else measure.less
                if link.via is not None:
                    # the related entities are ranked by their best record: "the 2 cities of the libraries with
                    # the most books" — the count belongs to the cities, not to the libraries
                    reduced = f"{records} 중 {josa(measure.says, '이/가')} 가장 {adjective} {noun}"
                    related = render(link.via.says, {"e": reduced})
                    if reduction.kept > 1:
                        related = f"{related[: -len(entity.noun)]}{reduction.kept}{entity.counter}의 {entity.noun}"
                    return related, entity.noun
                many = f" {reduction.kept}{source.intent.counter or entity.counter}의" if reduction.kept > 1 else ""
                reduced = f"{records} 중 {josa(measure.says, '이/가')} 가장 {adjective}{many} {noun}"
            elif reduction.op == "threshold":
                if measure.rank_only:
                    raise IntentError(
                        f"intents: {source.intent.tool}.{reduction.field} is only ranked by (trajectory {self.t.id})"
                    )
                limit = _amount(reduction.threshold, measure.unit)
                reduced = f"{records} 중 {josa(measure.says, '이/가')} {josa(limit, '을/를')} 넘는 {noun}"
            else:
                raise IntentError(f"intents: no phrase for the reduction {reduction.op!r} (trajectory {self.t.id})")
        if link.via is not None:
            return render(link.via.says, {"e": reduced}), entity.noun
        return reduced, own_noun if counter else own_noun

    # -- the ask
    def ask(self, spec: Mapping[str, Any]) -> str:
        op = spec.get("op")
        if op in ("argmax", "argmin"):
            return self._ask_compare(spec)
        if op == "threshold":
            return self._ask_threshold(spec)
        figure, verb = self._figure(spec)
        return f"{figure} {verb}"

    def _last(self, spec: Mapping[str, Any]) -> _Hop:
        group = int(spec.get("group", -1))
        if group != len(self.hops) - 1:
            raise IntentError(f"intents: an answer over group {group}, not the last one (trajectory {self.t.id})")
        return self.hops[group]

    def _measure(self, hop: _Hop, spec: Mapping[str, Any]) -> Measure:
        measure = hop.intent.measure(spec["field"], spec.get("where"))
        if measure is None or measure.rank_only:
            raise IntentError(
                f"intents: no phrase for {hop.intent.tool}.{spec['field']} "
                f"{dict(spec.get('where') or {})} (trajectory {self.t.id})"
            )
        return measure

    def _figure(self, spec: Mapping[str, Any]) -> tuple[str, str]:
        """(the noun phrase of a numeric spec with its particle, the question verb)."""
        op = spec.get("op")
        hop = self._last(spec)
        if op == "count":
            if not hop.intent.counter:
                raise IntentError(f"intents: {hop.intent.tool}'s records are not counted (trajectory {self.t.id})")
            if hop.intent.distinct and spec.get("distinct") != hop.intent.distinct:
                raise IntentError(
                    f"intents: {hop.intent.tool}'s records are counted once each by "
                    f"{hop.intent.distinct} (trajectory {self.t.id})"
                )
            several = self._branches(spec) > 1 and not spec.get("distinct")
            return josa(hop.records, "은/는"), f"{'모두 합쳐' if several else '모두'} 몇 {hop.intent.counter}입니까?"
        if op == "sum":
            measure = self._measure(hop, spec)
            several = self._branches(spec) > 1
            if not measure.add or (several and measure.add != "across"):
                raise IntentError(
                    f"intents: {hop.intent.tool}.{spec['field']} does not add up "
                    f"{'across entities' if several else ''} (trajectory {self.t.id})"
                )
            figure = _join(hop.records, hop.intent.of, measure.says)
            if not several:  # one thing's records: its total, not a sum someone asks to add up
                return josa(figure, "은/는"), f"모두 {_ask_amount(measure.unit)}"
            return josa(figure, "을/를"), f"모두 더하면 {_ask_amount(measure.unit)}"
        if op == "value":
            measure = self._measure(hop, spec)
            return josa(_join(hop.records, hop.intent.of, measure.says), "은/는"), _ask_amount(measure.unit)
        raise IntentError(f"intents: no phrase for the answer {op!r} (trajectory {self.t.id})")

    def _branches(self, spec: Mapping[str, Any]) -> int:
        group = int(spec.get("group", 0))
        return sum(1 for step in self.t.steps if step.group == group)

    def _unit(self, spec: Mapping[str, Any]) -> str:
        hop = self._last(spec)
        if spec.get("op") == "count":
            return hop.intent.counter or ""
        return self._measure(hop, spec).unit

    def _ask_threshold(self, spec: Mapping[str, Any]) -> str:
        of = spec["of"]
        figure, _ = self._figure(of)
        limit = _amount(spec["threshold"], self._unit(of))
        more = spec["cmp"] == ">"
        if of.get("op") == "count":
            return f"{figure} {limit}보다 {'많습니까' if more else '적습니까'}? (예/아니오)"
        if of.get("op") == "sum":  # "…는 20만명보다 작습니까" of many records would ask about each of them
            hop = self._last(of)
            figure = josa(_join(hop.records, hop.intent.of, self._measure(hop, of).says), "을/를")
            return f"{figure} 모두 더하면 {limit}보다 {'큽니까' if more else '작습니까'}? (예/아니오)"
        return f"{figure} {limit}보다 {'큽니까' if more else '작습니까'}? (예/아니오)"

    def _ask_compare(self, spec: Mapping[str, Any]) -> str:
        hop = self._last(spec)
        if hop.handed is None or hop.relation is None:
            raise IntentError(
                f"intents: a comparison needs the entities handed to the last step (trajectory {self.t.id})"
            )
        noun = hop.handed_noun or self.intents.entity(hop.relation.entity).noun
        each = render(hop.relation.says, {**self._values(hop.relation, hop.args, f"그 {noun}")})
        metric = spec["metric"]
        most = spec["op"] == "argmax"
        if metric["agg"] == "count":
            if not hop.intent.counter:
                raise IntentError(f"intents: {hop.intent.tool}'s records are not counted (trajectory {self.t.id})")
            what = f"{josa(each, '이/가')} 가장 {'많은' if most else '적은'}"
        else:
            measure = hop.intent.measure(metric["field"], metric.get("where"))
            if measure is None or measure.rank_only or (metric["agg"] == "sum" and not measure.add):
                raise IntentError(
                    f"intents: no phrase to compare by {hop.intent.tool}.{metric['field']} (trajectory {self.t.id})"
                )
            figure = _join(each, hop.intent.of, measure.says)
            if metric["agg"] == "sum":
                what = f"{figure} 합계가 가장 {'큰' if most else '작은'}"
            else:
                what = f"{josa(figure, '이/가')} 가장 {measure.more if most else measure.less}"
        return f"{hop.handed} 중 {what} 것은 어느 {noun}입니까?"

    def question(self) -> str:
        spec = self.t.meta.get("answer_spec")
        if not spec:
            raise IntentError(f"intents: trajectory {self.t.id} has no answer spec to phrase")
        return self.ask(spec)


# -- answers the table can phrase ---------------------------------------------------------------
def propose(
    intents: Intents,
    pattern: str,
    groups: Sequence[Sequence[Branch]],
    tools: Sequence[Any],
    links: Sequence[IntentLink],
    junctions: Sequence[Junction],
    rng: np.random.Generator,
) -> tuple[dict, Any, str] | None:
    """An answer spec for ``pattern`` that the table can phrase, over the executed groups: (spec, value, unit).

    Like :func:`kopa_replay.synth.answer.propose` (a family drawn first, then a candidate) but every
    candidate reads only what the last tool's intent lists: counts of counted records (``count_where``
    applied), sums of additive measures, values of measures and table rows, comparisons of the branches
    named by a name field, thresholds over those.
    """
    from kopa_replay.synth.answer import condition_specs, draw

    families = PATTERN_FAMILIES.get(pattern)
    if families is None:
        raise UsageError(f"unknown pattern {pattern!r} (known: {', '.join(PATTERN_FAMILIES)})")
    last = len(groups) - 1
    intent = intents.tool(tools[last].name)
    if intent is None:
        return None
    final = groups[last]
    found: dict[str, list[tuple[dict, str]]] = {}

    def add(family: str, spec: dict, unit: str) -> None:
        try:
            evaluate(spec, groups)
        except (AnswerError, KeyError, TypeError, ValueError):
            return
        found.setdefault(family, []).append((spec, unit))

    if intent.counter:
        spec: dict[str, Any] = {"op": "count", "group": last}
        if intent.count_where:
            spec["where"] = dict(intent.count_where)
        if intent.distinct:
            spec["distinct"] = intent.distinct
        add("count", spec, "")
    records = sum(len(b.records) for b in final)
    for measure in intent.measures:
        if measure.rank_only:
            continue
        where = {"where": dict(measure.where)} if measure.where else {}
        if (measure.add == "across" or (measure.add and len(final) == 1)) and records >= 2:
            add("sum", {"op": "sum", "group": last, "field": measure.field, **where}, measure.unit)
        if len(final) == 1:
            add("value", {"op": "value", "group": last, "branch": 0, "field": measure.field, **where}, measure.unit)
    if "compare" in families and len(final) >= 2 and junctions:
        label = _branch_label(intents, tools, links, junctions, last)
        if label is not None:
            counted = {"agg": "count", **({"where": dict(intent.count_where)} if intent.count_where else {})}
            metrics: list[dict[str, Any]] = [counted] if intent.counter else []
            several = any(len(b.records) >= 2 for b in final)
            for measure in intent.measures:
                if measure.rank_only:
                    continue
                where = {"where": dict(measure.where)} if measure.where else {}
                metrics.append({"agg": "value", "field": measure.field, **where})
                if several and measure.add:
                    metrics.append({"agg": "sum", "field": measure.field, **where})
            for metric in metrics:
                for op in ("argmax", "argmin"):
                    add("compare", {"op": op, "group": last, "metric": metric, "label": label}, "")
    if "condition" in families:
        pool = [item for family in ("value", "count", "sum") for item in found.get(family, [])]
        found["condition"] = condition_specs(pool, groups, rng)
    return draw(found, families, groups, rng)


def _branch_label(
    intents: Intents, tools: Sequence[Any], links: Sequence[IntentLink], junctions: Sequence[Junction], last: int
) -> Any:
    """How the branches of the last group are named: the last tool's own name field when its records are the
    entity handed to them, else the name the source records give the handed value; None if neither."""
    link, junction = links[-1], junctions[-1]
    target = intents.tool(tools[last].name)
    if target is not None and target.entity == link.relation.entity and target.name:
        return target.name
    source = intents.tool(link.source)
    if source is None or len(junction.binding) != 1:
        return None
    ((param, field_name),) = junction.binding.items()
    fields = link.via.fields if link.via is not None else source.fields
    name = next((out for out, attr in sorted(fields.items()) if attr == "name"), None)
    if link.via is None and source.name:
        name = source.name
    if name is None:
        return None
    return {"group": _source_group(junctions, junction), "match": field_name, "field": name}


def _source_group(junctions: Sequence[Junction], junction: Junction) -> int:
    """The group a junction reads from (walks are chains: junction k reads group k)."""
    return junctions.index(junction)
