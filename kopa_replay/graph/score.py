"""The default binding scorer: meaning over names, from signatures alone.

The paper's scoring prompt asks a model to bind fields that *mean* the same
thing even when their names differ (SIGUN_NM / REGION_NM / rgn are all a
region name). :class:`SemanticScorer` does that without a model: every input
parameter and output field is read into *concepts* through synonym groups
over its name and its Korean/English description, plus a *shape* (digit
count, YYYYMMDD / YYYYMM / YYYY) from its description or pattern — both read
by :mod:`kopa_replay.text.concepts`. A parameter and a field bind when they
share a concept and their shapes do not conflict.

It sees only what an agent sees (the catalog), never the simulator's ground
truth, so it makes the mistakes a reader of signatures makes — a founding
date is "a date", a Seoul district name is "a region name" — which execution
then has to correct. Deterministic: no randomness, sorted iteration.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from kopa_replay.catalog.model import Tool
from kopa_replay.graph.model import Scored
from kopa_replay.text.concepts import (
    IDENTIFIER,
    NAME,
    STRENGTH,
    concepts_of,
    description_text,
    name_key,
    shape_of,
    shapes_compatible,
)

__all__ = ["SemanticScorer", "Slot"]


@dataclass(frozen=True)
class Slot:
    """A parameter or field as the scorer reads it (``trading_day``: a day the exchange was open)."""

    name: str
    concepts: Mapping[str, float]
    shape: str | None
    trading_day: bool = False
    partial: bool = False  # a substring / "like" filter


_TRADING_DAY = ("거래일", "trading day", "영업일", "business day")
_PARTIAL = ("부분일치", "부분 일치", "substring", "part of")


def _slots(properties: Mapping[str, Mapping[str, Any]], skip: set[str]) -> list[Slot]:
    return [
        Slot(
            name,
            concepts_of(name, properties[name]),
            shape_of(properties[name]),
            any(word in description_text(properties[name]) for word in _TRADING_DAY),
            any(word in description_text(properties[name]) for word in _PARTIAL),
        )
        for name in sorted(properties)
        if name not in skip
    ]


class SemanticScorer:
    """Type, format and synonym-group compatibility between one tool's outputs and another's inputs.

    A parameter binds to the field it shares the strongest concept with
    (ties: an equal name, then field order), when the pair scores at least
    ``bind_at``; substring filters ("like" parameters) give way to exact ones.
    Only the strongest kind that binds is kept — identifiers, else names, else
    temporal values: an identifier handed over names the entity (its name
    beside it only risks a spelling mismatch), and a date beside an entity is
    the question's to choose. One field feeds one parameter. Feasibility is
    the best binding's score, lowered when the bound parameter is optional
    (the call would run without it).
    """

    name = "semantic"

    def __init__(self, bind_at: float = 0.5) -> None:
        self.bind_at = bind_at
        self._inputs: dict[str, list[Slot]] = {}
        self._outputs: dict[str, list[Slot]] = {}

    def _inputs_of(self, tool: Tool) -> list[Slot]:
        if tool.name not in self._inputs:
            skip = set(tool.http.pagination.params)
            props = tool.input_schema.get("properties", {})
            # choices from a fixed list (report types, result formats) are settings, not handed-over values —
            # unless the list is of entities (the 17 education offices)
            skip |= {
                name
                for name, prop in props.items()
                if prop.get("type") == "boolean" or ("enum" in prop and not concepts_of(name, prop))
            }
            self._inputs[tool.name] = _slots(props, skip)
        return self._inputs[tool.name]

    def _outputs_of(self, tool: Tool) -> list[Slot]:
        if tool.name not in self._outputs:
            fields = {name: tool.output_field_schema(name) for name in tool.output_fields}
            self._outputs[tool.name] = _slots(fields, set())
        return self._outputs[tool.name]

    @staticmethod
    def pair_score(param: Slot, field: Slot) -> float:
        """How well ``field``'s values fit ``param``: 0 when they share no concept or their shapes conflict."""
        best = 0.0
        for concept, sure in param.concepts.items():
            other = field.concepts.get(concept)
            if other is None:
                continue
            best = max(best, STRENGTH[concept] * min(sure, other))
        if best == 0.0:
            return 0.0
        if not shapes_compatible(param.shape, field.shape):
            return best * 0.3
        if param.trading_day and not field.trading_day:
            best *= 0.7  # any calendar day for a trading day: a reader of the docs would hesitate
        if name_key(param.name) == name_key(field.name):
            best += 0.08
        return min(best, 1.0)

    def score(self, source: Tool, target: Tool) -> Scored:
        if source.name == target.name:
            return Scored(0.0, {}, "a tool does not feed itself")
        outputs = self._outputs_of(source)
        bound: dict[str, tuple[float, str, str]] = {}  # param -> (score, field, concept kind)
        for param in self._inputs_of(target):
            scored = [(self.pair_score(param, field), field.name) for field in outputs]
            score, field_name = max(
                scored, key=lambda pair: (pair[0], name_key(pair[1]) == name_key(param.name)), default=(0.0, "")
            )
            if param.partial:
                score *= 0.9  # a substring filter takes the value, but the exact parameter is the binding
            if score >= self.bind_at:
                strongest = max(STRENGTH[c] for c in param.concepts)
                kind = "identifier" if strongest >= IDENTIFIER else "name" if strongest >= NAME else "temporal"
                bound[param.name] = (score, field_name, kind)
        # An identifier handed over names the entity; its name beside it only risks a spelling mismatch,
        # and a date beside an entity is the question's to choose.
        for kind in ("identifier", "name"):
            if any(k == kind for _, _, k in bound.values()):
                bound = {p: v for p, v in bound.items() if v[2] == kind}
                break
        # one field feeds one parameter (the best fit): a date handed over is one day, not a whole range
        required = set(target.required)
        best_for: dict[str, str] = {}
        for name, (score, field_name, _) in sorted(bound.items()):
            rank = (score, name_key(name) == name_key(field_name), name in required)
            held = best_for.get(field_name)
            if held is None or rank > (bound[held][0], name_key(held) == name_key(field_name), held in required):
                best_for[field_name] = name
        bound = {param: bound[param] for param in best_for.values()}
        if not bound:
            return Scored(0.0, {}, "no output field means what an input parameter needs")
        best = max(score * (1.0 if param in required else 0.85) for param, (score, _, _) in bound.items())
        binding = {param: field for param, (_, field, _) in sorted(bound.items())}
        shown = ", ".join(f"{p}←{f}" for p, f in binding.items())
        return Scored(round(best, 4), binding, f"binds {shown}")
