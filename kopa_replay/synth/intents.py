"""Intents: what a person means by each tool and each link, authored by hand, and the questions they compose.

A benchmark or training question states what a citizen, analyst or journalist
wants — names, places, dates, stop numbers printed on signs — never a tool,
the call order, or a code the person would not know. The table behind it
(``intents.yaml`` beside this module, validated against the catalog on load)
says, in Korean:

* **entities** — the kinds of things people talk about (a company, a bus
  stop, a school …), each with the attributes that identify it (``corp_code``,
  ``ars_id`` …) and how one is counted (곳, 개, 명);
* **tools** — what one record of a tool's output *is* (a route, a trade, a
  disclosure), which output fields give which attribute of that entity or of a
  related one (``via``: "the city a library is in"), the field that names it,
  and the quantities a question may ask about (``measures``, with their unit
  and whether adding them up means something) or the table rows it may read
  (``facts``: the 자산총계 row of a financial statement);
* **relations** — a phrase per meaningful link from an entity to a tool:
  ``"{e}에 서는 노선"`` (the routes that stop at a stop), ``"{e}가 {bgn_de:month}에
  결정한 전환사채 발행"``; the arguments it binds from the entity and the other
  arguments it is called with (each alternative stated in the phrase);
* **named** — the entities a question may start from, as a person names them
  (``라이트론``, ``정류소 번호 19001번 정류소``, ``2026년 8월 25일``).

A link between two tools is *meaningful* exactly when the source's records give
an entity a relation starts from; nothing else is walked, so a chain that only
hands a date across unrelated domains is never built. The question composes the
start's phrase, the relation phrases along the chain (with each junction's
reduction: "그중 노선 길이가 가장 긴 2개 노선"), and the answer program's phrase
("… 모두 몇 개입니까?"): :mod:`kopa_replay.synth.phrasing` composes it and picks answers the
table can phrase, :class:`~kopa_replay.synth.questions.IntentWriter` writes it. :class:`Intents`
enumerates the meaningful links and the starts for the walk
(:func:`kopa_replay.synth.walk.synthesize` with ``intents=``).
"""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date
from functools import cached_property
from pathlib import Path
from typing import Any

from kopa_replay.catalog.model import Catalog
from kopa_replay.errors import KopaError, UsageError
from kopa_replay.util import load_yaml

__all__ = [
    "DEFAULT_INTENTS",
    "MEANINGS",
    "Entity",
    "Measure",
    "Via",
    "ToolIntent",
    "Relation",
    "Named",
    "IntentLink",
    "Entry",
    "IntentError",
    "Intents",
    "load_intents",
    "render",
    "josa",
    "date_text",
    "number_text",
]

#: the authored table shipped with the package
DEFAULT_INTENTS = Path(__file__).resolve().parent / "intents.yaml"
#: what a relation's records are to the entity it starts from (a link carries a meaning, or it is not walked)
MEANINGS = {
    "same": "the entity itself, looked up (its code by its name)",
    "part_of": "parts of it (a statute's articles, a route's stops, a school's classes, a district's 동)",
    "located_in": "things located in it (a city's pharmacies, a 구's libraries)",
    "near": "things near it (stops around a place)",
    "serves": "what serves it or passes through it (the routes at a stop, the buses due there)",
    "issued_by": "documents it issued (a company's filings, bonds, accounts)",
    "member_of": "its members (a party's legislators)",
    "about": "records about it (votes on a bill, a stock's price, a school's lunch on a day)",
    "on_date": "what happened on that date (a day's trades, air quality)",
    "named": "what a name search finds (statutes with the word in their name)",
}


# -- Korean --------------------------------------------------------------------------
_DIGIT_BATCHIM = {
    "0": (True, False),
    "1": (True, True),
    "2": (False, False),
    "3": (True, False),
    "4": (False, False),
    "5": (False, False),
    "6": (True, False),
    "7": (True, True),
    "8": (True, True),
    "9": (False, False),
}
_PAIRS = {
    "이/가": ("이", "가"),
    "을/를": ("을", "를"),
    "은/는": ("은", "는"),
    "과/와": ("과", "와"),
    "으로/로": ("으로", "로"),
    "이다/다": ("이다", "다"),
    "이나/나": ("이나", "나"),
}
#: units read aloud after a number: the particle follows the unit's Korean reading
_UNIT_READING = {
    "km": "킬로미터",
    "㎡": "제곱미터",
    "%": "퍼센트",
    "m": "미터",
    "ppm": "피피엠",
    "㎍/㎥": "마이크로그램 퍼 세제곱미터",
}


def _final(word: str) -> tuple[bool, bool] | None:
    """(has a final consonant, that consonant is ㄹ) for the last readable character of ``word``."""
    word = word.rstrip(" )」』'\"")
    for unit, reading in sorted(_UNIT_READING.items(), key=lambda item: -len(item[0])):
        if word.endswith(unit):
            word = reading
            break
    for ch in reversed(word):
        if "가" <= ch <= "힣":
            tail = (ord(ch) - 0xAC00) % 28
            return tail != 0, tail == 8
        if ch.isdigit():
            return _DIGIT_BATCHIM[ch]
        if ch.isalpha():
            return ch.lower() in "lmnr", ch.lower() == "l"
    return None


def josa(word: str, pair: str) -> str:
    """``word`` with the particle of ``pair`` (``"이/가"``, ``"을/를"``, ``"은/는"``, ``"과/와"``, ``"으로/로"``)."""
    with_final, without = _PAIRS[pair]
    final = _final(word)
    if final is None:
        return f"{word}{with_final}({without})"
    has, rieul = final
    if pair == "으로/로":
        return word + ("으로" if has and not rieul else "로")
    return word + (with_final if has else without)


def date_text(value: Any, form: str) -> str:
    """A date argument as Korean writes it: ``date`` 20260831 → 2026년 8월 31일, ``month`` 202608 or
    20260801 → 2026년 8월, ``year`` → 2026년."""
    text = str(value).strip()
    try:
        if form == "date" and re.fullmatch(r"\d{8}", text):
            when = date(int(text[:4]), int(text[4:6]), int(text[6:]))
            return f"{when.year}년 {when.month}월 {when.day}일"
        if form == "month" and re.fullmatch(r"\d{6}(\d{2})?", text):
            return f"{text[:4]}년 {int(text[4:6])}월"
        if form == "year" and re.fullmatch(r"\d{4}", text[:4]):
            return f"{text[:4]}년"
    except ValueError:
        pass
    raise UsageError(f"intents: {value!r} is not a {form} (YYYYMMDD, YYYYMM, YYYY)")


_SLOT = re.compile(r"\{([A-Za-z_가-힣][\w가-힣]*)(?::([^{}]+))?\}")


def render(template: str, values: Mapping[str, Any]) -> str:
    """``template`` with each ``{name}`` or ``{name:form}`` filled from ``values``.

    A form is a particle pair (``{e:이/가}``: 라이트론이, 노선이), a date form
    (``{basDt:date}`` 2026년 8월 31일, ``{DEAL_YMD:month}``, ``{bsns_year:year}``),
    a number (``{t:number}`` 1,500) or a fixed particle (``{e:의}``).
    """

    def fill(match: re.Match[str]) -> str:
        name, form = match.group(1), match.group(2)
        if name not in values:
            raise UsageError(f"intents: {template!r} has a slot {{{name}}} nothing fills")
        value = values[name]
        if form is None:
            return str(value)
        if form in _PAIRS:
            return josa(str(value), form)
        if form.startswith("~") and form[1:] in _PAIRS:  # the particle alone, after a quote: '{e}'{e:~이/가}
            return josa(str(value), form[1:])[len(str(value)) :]
        if form in ("date", "month", "year"):
            return date_text(value, form)
        if form == "number":
            return number_text(value)
        return f"{value}{form}"

    return _SLOT.sub(fill, template)


def number_text(x: Any) -> str:
    if isinstance(x, float) and x.is_integer():
        x = int(x)
    return f"{x:,}" if isinstance(x, (int, float)) and not isinstance(x, bool) else str(x)


class IntentError(KopaError):
    """A trajectory the table cannot phrase: a start, link, reduction or answer with no authored words."""


# -- the table -------------------------------------------------------------------------
@dataclass(frozen=True)
class Entity:
    """A kind of thing people talk about: how it is called and counted, the attributes that identify it."""

    kind: str
    noun: str
    counter: str
    attrs: tuple[str, ...]


@dataclass(frozen=True)
class Measure:
    """A quantity (or, with ``where``, one row's quantity) a question may ask about.

    ``add``: adding it over records means something — ``"across"`` also over
    several entities (boardings, won, ㎡ of different cities), ``"within"`` only
    over one entity's records (a company's largest holders' stakes add up to its
    float held by them; two companies' stakes do not); ``""`` never (prices,
    rates). ``rank_only``: only ever ranked by ("가장 최근에 설립된"), never stated
    or added (a date). ``more`` / ``less``: the adjective of the largest /
    smallest ("긴" / "짧은").
    """

    field: str
    says: str
    unit: str = ""
    add: str = ""
    rank_only: bool = False
    more: str = "큰"
    less: str = "작은"
    # qualified: the ``field`` attribute above shadows ``dataclasses.field`` in this class body
    where: Mapping[str, str] = dataclasses.field(default_factory=dict)

    @property
    def key(self) -> tuple[str, str]:
        return self.field, json.dumps(dict(self.where), sort_keys=True, ensure_ascii=False)


@dataclass(frozen=True)
class Via:
    """An entity related to a record other than itself: ``fields`` give its attributes, ``says`` turns the
    records' phrase into its own ("{e}가 있는 시군")."""

    entity: str
    fields: Mapping[str, str]
    says: str


@dataclass(frozen=True)
class ToolIntent:
    """What one record of ``tool`` is and what a question may read from it."""

    tool: str
    entity: str | None
    noun: str
    counter: str | None
    fields: Mapping[str, str]
    via: tuple[Via, ...]
    name: str | None
    measures: tuple[Measure, ...]
    of: str
    count_where: Mapping[str, str] = field(default_factory=dict)
    distinct: str | None = None  # the field that tells two records of one thing apart (counted once)
    realtime: bool = False  # answers change minute to minute (arrivals, positions): no benchmark task

    def measure(self, field_name: str, where: Mapping[str, Any] | None = None) -> Measure | None:
        key = (field_name, json.dumps(dict(where or {}), sort_keys=True, ensure_ascii=False))
        return next((m for m in self.measures if m.key == key), None)


@dataclass(frozen=True)
class Relation:
    """A meaningful link from an entity to a tool: the parameters it binds from the entity's attributes, the
    other arguments it is called with (alternatives, each stated in ``says``), and the phrase for the records.

    ``select`` (``{field, attr}``), used when the relation starts from a named entity: the junction out of
    it picks the record whose ``field`` reads the named attribute (a lookup of the code by the name)."""

    id: str
    entity: str
    tool: str
    bind: Mapping[str, str]
    with_: tuple[Mapping[str, Any], ...]
    says: str
    select: Mapping[str, str] | None = None
    not_from: tuple[str, ...] = ()
    words: tuple[Mapping[str, str], ...] = ()  # per alternative of ``with_``: the phrase slots it fills ({_when})
    lookup: bool = False  # taken mid-chain only where it adds an attribute
    means: str = "about"  # one of MEANINGS: what the records are to the entity

    @property
    def is_lookup(self) -> bool:
        return self.lookup or self.select is not None

    def words_for(self, beside: Mapping[str, Any]) -> Mapping[str, str]:
        """The phrase slots of the alternative ``beside`` is (``{}`` when none)."""
        for args, words in zip(self.with_, self.words):
            if dict(args) == dict(beside):
                return words
        return {}


@dataclass(frozen=True)
class Named:
    """An entity a question starts from, as a person names it."""

    id: str
    entity: str
    attrs: Mapping[str, Any]
    says: str


@dataclass(frozen=True)
class IntentLink:
    """A meaningful link: ``source``'s records give the entity ``relation`` starts from (through ``via`` or
    as the records themselves), with the resulting ``binding`` {target param: source field}."""

    source: str
    target: str
    binding: Mapping[str, str]
    relation: Relation
    via: Via | None = None

    @property
    def key(self) -> tuple[str, str, str]:
        return self.source, self.target, json.dumps(dict(self.binding), sort_keys=True)


@dataclass(frozen=True)
class Entry:
    """A start: a named entity, the relation applied to it, the arguments of that first call."""

    named: Named
    relation: Relation
    args: Mapping[str, Any]

    @property
    def tool(self) -> str:
        return self.relation.tool


def _key(source: str, target: str, binding: Mapping[str, str]) -> tuple[str, str, str]:
    return source, target, json.dumps(dict(binding), sort_keys=True)


class Intents:
    """The validated table (see the module docstring): meaningful links, starts, phrases."""

    def __init__(
        self,
        entities: Mapping[str, Entity],
        tools: Mapping[str, ToolIntent],
        relations: Sequence[Relation],
        named: Sequence[Named],
        source: str = "<intents>",
    ) -> None:
        self.entities = dict(entities)
        self.tools = dict(tools)
        self.relations = tuple(relations)
        self.named = tuple(named)
        self.source = source

    # -- links and starts
    @cached_property
    def links(self) -> tuple[IntentLink, ...]:
        """Every meaningful link, sorted: a source whose records give all the attributes a relation binds."""
        out: dict[tuple[str, str, str], IntentLink] = {}
        for source in sorted(self.tools):
            intent = self.tools[source]
            givers: list[tuple[str | None, Mapping[str, str], Via | None]] = [(intent.entity, intent.fields, None)]
            givers += [(via.entity, via.fields, via) for via in intent.via]
            for entity, fields, via in givers:
                by_attr: dict[str, str] = {}
                for output, attr in sorted(fields.items()):
                    by_attr.setdefault(attr, output)
                for relation in self.relations:
                    if (
                        relation.entity != entity
                        or relation.tool == source
                        or source in relation.not_from
                        or relation.select is not None
                    ):  # a lookup by a name the person gave: starts only
                        continue
                    if not relation.bind or not all(attr in by_attr for attr in relation.bind.values()):
                        continue
                    if relation.is_lookup and not self._adds(relation, set(fields.values())):
                        continue  # a lookup of what the source already gives: a detour, not a step
                    binding = {param: by_attr[attr] for param, attr in sorted(relation.bind.items())}
                    link = IntentLink(source, relation.tool, binding, relation, via)
                    out.setdefault(link.key, link)
        return tuple(out[key] for key in sorted(out))

    def _adds(self, relation: Relation, known: set[str]) -> bool:
        """Whether the target says more than the source's attributes: another attribute, a related entity,
        a quantity."""
        target = self.tools.get(relation.tool)
        if target is None or target.entity != relation.entity or target.via or target.measures:
            return True
        return bool(set(target.fields.values()) - known)

    @cached_property
    def _by_key(self) -> dict[tuple[str, str, str], IntentLink]:
        return {link.key: link for link in self.links}

    def link_for(self, source: str, target: str, binding: Mapping[str, str]) -> IntentLink | None:
        """The meaningful link with exactly this binding, or None (a link no phrase was written for)."""
        return self._by_key.get(_key(source, target, binding))

    @cached_property
    def entries(self) -> tuple[Entry, ...]:
        """Every start: each named entity with each relation that binds only attributes it has."""
        out = []
        for named in self.named:
            for relation in self.relations:
                if relation.entity != named.entity or not all(a in named.attrs for a in relation.bind.values()):
                    continue
                bound = {param: named.attrs[attr] for param, attr in relation.bind.items()}
                for beside in relation.with_:
                    out.append(Entry(named, relation, {**beside, **bound}))
        return tuple(out)

    def entry_for(
        self,
        tool: str,
        args: Mapping[str, Any],
        relation: str | None = None,
        picked: bool | None = None,
        name: str | None = None,
    ) -> Entry | None:
        """The start a first call came from: its tool, every argument of the entry among ``args`` — and, where
        two starts call a tool alike (a statute by its name, or every statute with the name in it; a city list
        asked for no city at all), the relation ``relation`` names, one that picks a record by name exactly
        when ``picked``, and the one whose named attribute is ``name`` (the record picked)."""
        for entry in self.entries:
            select = entry.relation.select
            if (
                entry.tool == tool
                and all(_same(args.get(k), v) for k, v in entry.args.items())
                and all(k in entry.args or k in self._paging(tool) for k in args)
                and (relation is None or entry.relation.id == relation)
                and (picked is None or (select is not None) == picked)
                and (name is None or select is None or _same(entry.named.attrs.get(select["attr"]), name))
            ):
                return entry
        return None

    def beside_for(self, relation: Relation, args: Mapping[str, Any]) -> Mapping[str, Any] | None:
        """The alternative of ``relation.with_`` a call was made with (its other arguments), or None."""
        for beside in relation.with_:
            if all(_same(args.get(k), v) for k, v in beside.items()) and all(
                k in beside or k in relation.bind or k in self._paging(relation.tool) for k in args
            ):
                return beside
        return None

    def _paging(self, tool: str) -> frozenset[str]:
        return self._paging_params.get(tool, frozenset())

    _paging_params: Mapping[str, frozenset[str]] = {}

    def bind_catalog(self, catalog: Catalog) -> "Intents":
        """Check every name against ``catalog`` (tools, parameters, output fields); remember paging parameters."""
        problems: list[str] = []
        for name, intent in sorted(self.tools.items()):
            if name not in catalog:
                problems.append(f"tool {name}: not in the catalog")
                continue
            tool = catalog.get(name)
            outputs = set(tool.output_fields)
            for output in [
                *intent.fields,
                *(f for via in intent.via for f in via.fields),
                *(m.field for m in intent.measures),
                *([intent.name] if intent.name else []),
                *(k for m in intent.measures for k in m.where),
                *intent.count_where,
                *([intent.distinct] if intent.distinct else []),
            ]:
                if output not in outputs:
                    problems.append(f"tool {name}: no output field {output!r}")
        for relation in self.relations:
            if relation.tool not in catalog:
                problems.append(f"relation {relation.id}: tool {relation.tool} is not in the catalog")
                continue
            params = set(catalog.get(relation.tool).params)
            for param in [*relation.bind, *(k for beside in relation.with_ for k in beside)]:
                if param not in params:
                    problems.append(f"relation {relation.id}: tool {relation.tool} has no parameter {param!r}")
            if relation.select and relation.select["field"] not in catalog.get(relation.tool).output_fields:
                problems.append(
                    f"relation {relation.id}: tool {relation.tool} has no output field "
                    f"{relation.select['field']!r} to select by"
                )
        if problems:
            more = f"; … and {len(problems) - 5} more" if len(problems) > 5 else ""
            raise UsageError(
                f"{self.source} does not fit this catalog ({len(problems)} problem"
                f"{'s' if len(problems) > 1 else ''}): "
                + "; ".join(problems[:5])
                + more
                + " — for another catalog write a table of its own (synth --intents FILE) or use "
                "synth --writer template"
            )
        self._paging_params = {
            name: catalog.get(name).http.pagination.params
            for name in {*self.tools, *(relation.tool for relation in self.relations)}
        }
        return self

    @staticmethod
    def round_trip(into: Relation | None, link: IntentLink) -> bool:
        """Whether ``link`` hands back the entity whose records it reads: "the city the pharmacies of
        성남시 are in" is 성남시 again — a detour no question motivates."""
        return into is not None and link.via is not None and link.via.entity == into.entity

    def detour(self, into: IntentLink | Entry | None, link: IntentLink) -> bool:
        """Whether ``into`` was a lookup ("{e}": the same entity again) whose records ``link`` does not use
        for anything new: it hands on only attributes known before it (the source's, or the ones the person
        named) — a call a solver rightly skips."""
        if (
            into is None
            or into.relation.says.strip() != "{e}"
            or link.via is not None
            or link.relation.entity != into.relation.entity
        ):
            return False
        if isinstance(into, Entry):
            before = set(into.named.attrs)
        else:
            source = self.tools.get(into.source)
            if source is None:
                return False
            before = set((into.via.fields if into.via is not None else source.fields).values())
        return set(link.relation.bind.values()) <= before

    def entity(self, kind: str) -> Entity:
        return self.entities[kind]

    def tool(self, name: str) -> ToolIntent | None:
        return self.tools.get(name)


def _same(a: Any, b: Any) -> bool:
    return a is not None and str(a).strip() == str(b).strip()


# -- loading ---------------------------------------------------------------------------
def _kind(entities: Mapping[str, Entity], item: Mapping[str, Any], key: str, where: str) -> str:
    """The entity kind ``item[key]`` names; an unknown one is an error naming ``where``."""
    kind = str(_require(item, key, where))
    if kind not in entities:
        raise UsageError(f"intents: {where}: unknown entity {kind!r}")
    return kind


def _require(data: Mapping[str, Any], key: str, where: str) -> Any:
    if key not in data:
        raise UsageError(f"intents: {where} lacks {key!r}")
    return data[key]


def _mapping(value: Any, where: str) -> dict[str, Any]:
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise UsageError(f"intents: {where} must be a mapping, not {type(value).__name__}")
    return {str(k): v for k, v in value.items()}


def load_intents(path: str | Path | None = None, catalog: Catalog | None = None) -> Intents:
    """The table at ``path`` (default: the shipped one), validated; against ``catalog`` when one is given."""
    import yaml

    path = Path(path) if path is not None else DEFAULT_INTENTS
    try:
        data = load_yaml(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise UsageError(f"intents: cannot read {path}: {exc}") from None
    except yaml.YAMLError as exc:
        raise UsageError(f"intents: {path} is not YAML: {' '.join(str(exc).split())}") from None
    if not isinstance(data, Mapping):
        raise UsageError(f"intents: {path} must hold a mapping")
    unknown = sorted(set(data) - {"entities", "tools", "relations", "named"})
    if unknown:
        raise UsageError(
            f"intents: {path}: unknown section(s) {', '.join(map(str, unknown))} "
            "(known: entities, tools, relations, named)"
        )
    entities = {}
    for kind, item in _mapping(data.get("entities"), "entities").items():
        item = _mapping(item, f"entity {kind}")
        entities[kind] = Entity(
            kind,
            str(_require(item, "noun", f"entity {kind}")),
            str(_require(item, "counter", f"entity {kind}")),
            tuple(str(a) for a in item.get("attrs", ())),
        )
    tools = {}
    for name, item in _mapping(data.get("tools"), "tools").items():
        where = f"tool {name}"
        item = _mapping(item, where)
        entity = item.get("entity")
        if entity is not None and entity not in entities:
            raise UsageError(f"intents: {where}: unknown entity {entity!r}")
        fields = {str(k): str(v) for k, v in _mapping(item.get("fields"), f"{where} fields").items()}
        if entity is not None:
            unknown = sorted(set(fields.values()) - set(entities[entity].attrs))
            if unknown:
                raise UsageError(f"intents: {where}: entity {entity} has no attribute {', '.join(unknown)}")
        vias = []
        for n, via in enumerate(item.get("via", ()) or ()):
            via = _mapping(via, f"{where} via {n}")
            kind = _kind(entities, via, "entity", f"{where} via {n}")
            says = str(_require(via, "says", f"{where} via {n}"))
            if not says.endswith(entities[kind].noun):  # a reduction's count goes before the noun: "2곳의 시군"
                raise UsageError(
                    f"intents: {where} via {n}: the phrase {says!r} must end with the noun of "
                    f"{kind}, {entities[kind].noun!r}"
                )
            vias.append(Via(kind, {str(k): str(v) for k, v in _mapping(via.get("fields"), where).items()}, says))
        measures = []
        for field_name, spec in _mapping(item.get("measures"), f"{where} measures").items():
            spec = _mapping(spec if not isinstance(spec, str) else {"says": spec}, f"{where} measure {field_name}")
            measures.append(_measure(str(spec.get("field", field_name)), spec, f"{where} measure {field_name}"))
        for n, spec in enumerate(item.get("facts", ()) or ()):
            spec = _mapping(spec, f"{where} fact {n}")
            measures.append(_measure(str(_require(spec, "field", f"{where} fact {n}")), spec, f"{where} fact {n}"))
        tools[name] = ToolIntent(
            name,
            entity,
            str(_require(item, "noun", where)),
            item.get("counter"),
            fields,
            tuple(vias),
            item.get("name"),
            tuple(measures),
            str(item.get("of", "의")),
            {str(k): str(v) for k, v in _mapping(item.get("count_where"), where).items()},
            item.get("distinct"),
            bool(item.get("realtime", False)),
        )
    relations = []
    seen: set[str] = set()
    for n, item in enumerate(data.get("relations", ()) or ()):
        item = _mapping(item, f"relation {n}")
        rid = str(_require(item, "id", f"relation {n}"))
        if rid in seen:
            raise UsageError(f"intents: relation id {rid!r} is used twice")
        seen.add(rid)
        kind = _kind(entities, item, "from", f"relation {rid}")
        bind = {str(k): str(v) for k, v in _mapping(item.get("bind"), f"relation {rid} bind").items()}
        unknown = sorted(set(bind.values()) - set(entities[kind].attrs))
        if unknown:
            raise UsageError(f"intents: relation {rid}: entity {kind} has no attribute {', '.join(unknown)}")
        with_ = item.get("with") or [{}]
        if isinstance(with_, Mapping):
            with_ = [with_]
        says = str(_require(item, "says", f"relation {rid}"))
        slots = set(_SLOT_NAMES(says))
        alternatives, words = [], []
        for raw in with_:
            raw = _mapping(raw, f"relation {rid} with")
            said = {str(p) for p in raw.get("_said", ())}
            args = {k: v for k, v in raw.items() if not k.startswith("_")}
            phrase = {k: str(v) for k, v in raw.items() if k.startswith("_") and k != "_said"}
            # every argument the call is made with is stated: a {param} slot fills it, or the words say it
            unstated = sorted(set(args) - slots - said)
            if unstated:
                raise UsageError(
                    f"intents: relation {rid}: the phrase {says!r} does not state "
                    f"{', '.join(unstated)} (write {{{unstated[0]}}} where it goes, or list it in _said)"
                )
            missing = sorted({s for s in slots if s.startswith("_")} - set(phrase))
            if missing:
                raise UsageError(f"intents: relation {rid}: an alternative of 'with' gives no {', '.join(missing)}")
            alternatives.append(args)
            words.append(phrase)
        meaning = str(_require(item, "means", f"relation {rid}"))
        if meaning not in MEANINGS:
            raise UsageError(f"intents: relation {rid}: means {meaning!r} is not one of {', '.join(MEANINGS)}")
        select = _mapping(item.get("select"), f"relation {rid} select") or None
        if select is not None and (set(select) != {"field", "attr"} or select["attr"] not in entities[kind].attrs):
            raise UsageError(
                f"intents: relation {rid}: select needs 'field' (of the records) and 'attr' (of entity {kind})"
            )
        relations.append(
            Relation(
                rid,
                kind,
                str(_require(item, "to", f"relation {rid}")),
                bind,
                tuple(alternatives),
                says,
                select,
                tuple(str(t) for t in item.get("not_from", ()) or ()),
                tuple(words),
                bool(item.get("lookup", False)),
                meaning,
            )
        )
    named = []
    for n, item in enumerate(data.get("named", ()) or ()):
        item = _mapping(item, f"named {n}")
        kind = _kind(entities, item, "entity", f"named {n}")
        attrs = {str(k): v for k, v in item.items() if k not in ("entity", "says", "id")}
        unknown = sorted(set(attrs) - set(entities[kind].attrs))
        if unknown:
            raise UsageError(f"intents: named {n} ({kind}): no attribute {', '.join(unknown)}")
        named.append(Named(str(item.get("id", f"{kind}:{n}")), kind, attrs, str(_require(item, "says", f"named {n}"))))
    # the shipped table is named, not located: a path would make outputs differ from machine to machine
    intents = Intents(
        entities, tools, relations, named, "the shipped intent table" if path == DEFAULT_INTENTS else str(path)
    )
    return intents.bind_catalog(catalog) if catalog is not None else intents


def _SLOT_NAMES(template: str) -> list[str]:  # noqa: N802 - reads as a set of names
    return [m.group(1) for m in _SLOT.finditer(template)]


def _measure(field_name: str, spec: Mapping[str, Any], where: str) -> Measure:
    add = spec.get("add", False)
    adds = {True: "across", False: "", "across": "across", "within": "within"}.get(add)
    if adds is None:
        raise UsageError(f"intents: {where}: add must be true, false or within, not {add!r}")
    return Measure(
        field_name,
        str(_require(spec, "says", where)),
        str(spec.get("unit", "")),
        adds,
        bool(spec.get("rank_only", False)),
        str(spec.get("more", "큰")),
        str(spec.get("less", "작은")),
        {str(k): str(v) for k, v in _mapping(spec.get("where"), where).items()},
    )
