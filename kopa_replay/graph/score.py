"""The default binding scorer: meaning over names, from signatures alone.

The paper's scoring prompt asks a model to bind fields that *mean* the same
thing even when their names differ (SIGUN_NM / REGION_NM / rgn are all a
region name). :class:`SemanticScorer` does that without a model: every input
parameter and output field is read into *concepts* through synonym groups
over its name and its Korean/English description, plus a *shape* (digit
count, YYYYMMDD / YYYYMM / YYYY) from its description or pattern. A parameter
and a field bind when they share a concept and their shapes do not conflict.

It sees only what an agent sees (the catalog), never the simulator's ground
truth, so it makes the mistakes a reader of signatures makes — a founding
date is "a date", a Seoul district name is "a region name" — which execution
then has to correct. Deterministic: no randomness, sorted iteration.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Mapping

from kopa_replay.catalog.model import Tool
from kopa_replay.graph.model import Scored

__all__ = ["CONCEPTS", "Concept", "SemanticScorer", "Slot", "concepts_of", "shape_of"]


@dataclass(frozen=True)
class Concept:
    """A synonym group: names (lower-cased, ``_`` removed) and description words that signal it.

    ``strength`` is how much a shared concept says about a binding: an
    identifier shared is strong evidence, a shared "it is a date" is weak.
    """

    name: str
    names: frozenset[str]
    words: tuple[str, ...]
    strength: float


def _concept(name: str, strength: float, names: str, words: str = "") -> Concept:
    return Concept(name, frozenset(n.lower().replace("_", "") for n in names.split()),
                   tuple(w for w in words.split("|") if w), strength)


IDENTIFIER, NAME, TEMPORAL = 0.9, 0.75, 0.6

#: The synonym groups, after the mapping table of the paper's scoring prompt.
CONCEPTS: tuple[Concept, ...] = (
    # finance
    _concept("corp_code", IDENTIFIER, "corp_code fssCorpUnqNo corpCode", "dart 고유번호|corp_code"),
    _concept("stock_code", IDENTIFIER, "srtnCd ISU_SRT_CD stock_code stockCode shrtIsinCd likeSrtnCd",
             "단축코드|종목코드|short code|stock code"),
    _concept("isin", IDENTIFIER, "isinCd ISU_CD likeIsinCd", "isin"),
    _concept("crno", IDENTIFIER, "crno jurir_no", "법인등록번호|corporate registration"),
    _concept("bizr_no", IDENTIFIER, "bizr_no bzno", "사업자등록번호|business registration"),
    _concept("rcept_no", IDENTIFIER, "rcept_no", "접수번호|receipt number"),
    _concept("corp_name", NAME, "corp_name corpNm likeCorpNm itmsNm likeItmsNm stckIssuCmpyNm enpPbanCmpyNm "
             "ISU_NM ISU_ABBRV stock_name", "회사명|법인명|종목명|company name|stock name|issuer"),
    _concept("reprt_code", IDENTIFIER, "reprt_code", "보고서 코드|report code"),
    # regions
    _concept("region_code", IDENTIFIER, "LAWD_CD sggCd SIGUN_CD CGG_CD stdgCd region_cd signguCode GU_CD "
             "locathigh_cd ADSTRD_CODE_SE adstrdCd",
             "시군구코드|시군코드|자치구코드|법정동코드|행정동코드|지역코드|lawd_cd|district code"),
    _concept("region_name", NAME, "SIGUN_NM REGION_NM rgn sggNm CGG_NM ctpvNm LCTN_SC_NM signguNm GU_NM "
             "CODE_VALUE MSRSTE_NM locatadd_nm X_SWIFI_WRDOFC umdNm stdgNm STDG_NM",
             "시군명|시군구명|자치구명|시도명|지역명|법정동명|자치구|district name|region name"),
    # transit
    _concept("city_code", IDENTIFIER, "cityCode citycode", "도시코드|city code"),
    _concept("route_id", IDENTIFIER, "routeId routeid busRouteId BUS_ROUTE_ID RTE_ID", "노선id|route id"),
    _concept("route_no", NAME, "routeNo routeno routenm busRouteNm rtNm BUS_ROUTE_NO BUS_ROUTE_NM RTE_NO RTE_NM strSrch "
             "busRouteAbrv", "노선번호|노선명|route number|route name"),
    _concept("stop_id", IDENTIFIER, "nodeId nodeid stId STND_BSST_ID STOPS_ID nextStId lastStnId station trnstnid",
             "정류소id|정류장id|stop id|station id"),
    _concept("stop_no", IDENTIFIER, "nodeNo nodeno arsId BSST_ARS_NO STOPS_ARS_NO stationNo",
             "정류소번호|정류소 고유번호|정류장 ars|number printed"),
    _concept("stop_name", NAME, "nodeNm nodenm stSrch stNm startnodenm endnodenm nxtStn stBegin stEnd "
             "edStationNm", "정류소명|정류장명|stop name|station name"),
    _concept("subway_station", NAME, "SUB_STA_NM SBWY_STNS_NM", "역명"),
    _concept("subway_line", NAME, "LINE_NUM SBWY_ROUT_LN_NM", "호선"),
    # education
    _concept("office_code", IDENTIFIER, "ATPT_OFCDC_SC_CODE", "교육청코드|education office"),
    _concept("school_code", IDENTIFIER, "SD_SCHUL_CODE", "행정표준코드|school code"),
    _concept("school_name", NAME, "SCHUL_NM", "학교명|school name"),
    # law
    _concept("law_mst", IDENTIFIER, "MST 법령일련번호", "법령일련번호"),
    _concept("law_id", IDENTIFIER, "ID 법령ID", "법령id|statute id"),
    _concept("law_name", NAME, "법령명한글 JO query", "법령명|statute name"),
    # politics
    _concept("member_code", IDENTIFIER, "MONA_CD RST_MONA_CD", "국회의원코드|member code"),
    _concept("member_name", NAME, "HG_NM PPSR_NM RST_PROPOSER", "의원 이름|발의자|member name|proposer"),
    _concept("bill_id", IDENTIFIER, "BILL_ID", "의안id|bill id"),
    _concept("bill_no", IDENTIFIER, "BILL_NO", "의안번호|bill number"),
    _concept("assembly_age", IDENTIFIER, "AGE", "국회 대수|assembly number"),
    _concept("party", NAME, "POLY_NM PPSR_POLY_NM", "정당|party"),
    _concept("committee", NAME, "COMMITTEE COMMITTEE_NAME CMIT_NM CURR_COMMITTEE", "위원회|committee"),
    # time: the paper's basDt / basDd / bas_dd / MLSV_YMD group
    # (a written shape — YYYYMMDD, YYYYMM, YYYY — also signals these three: see concepts_of)
    _concept("date", TEMPORAL, "basDt basDd bas_dd BAS_DD MLSV_YMD referenceDate", "일자"),
    _concept("yearmonth", TEMPORAL, "DEAL_YMD statsYm srchFrYm srchToYm", "년월 "),
    _concept("year", TEMPORAL, "AY bsns_year bizYear RCPT_YR dealYear", "년도|연도"),
)
_SHAPE_CONCEPT = {"YYYYMMDD": "date", "YYYYMM": "yearmonth", "YYYY": "year"}

_BY_NAME = {name: concept for concept in CONCEPTS for name in concept.names}
_DIGITS = re.compile(r"(\d+)\s*(?:자리|digits?|characters?|-digit|-char)", re.IGNORECASE)
_PATTERN_DIGITS = re.compile(r"^\^?\[0-9\]\{(\d+)\}\$?$")


def _key(name: str) -> str:
    return name.lower().replace("_", "")


def _text(schema: Mapping[str, Any]) -> str:
    # "YYYY-MM-DD" and "YYYYMMDD" are one shape to a reader
    return str(schema.get("description", "")).lower().replace("yyyy-mm-dd", "yyyymmdd").replace("yyyy-mm", "yyyymm")


def shape_of(schema: Mapping[str, Any]) -> str | None:
    """The value's written shape, when the signature says: ``"YYYYMMDD"``, ``"YYYYMM"``, ``"YYYY"`` or ``"N digits"``."""
    text = _text(schema)
    pattern = str(schema.get("pattern", ""))
    for shape in ("yyyymmdd", "yyyymm", "yyyy"):  # longest first: "yyyy" is inside the others
        if shape in text:
            return shape.upper()
    if "(0[1-9]|[12][0-9]|3[01])" in pattern:
        return "YYYYMMDD"
    if pattern.endswith("(0[1-9]|1[0-2])$"):
        return "YYYYMM"
    match = _PATTERN_DIGITS.match(pattern) or _DIGITS.search(text)
    return f"{int(match.group(1))} digits" if match else None


def _compatible(a: str | None, b: str | None) -> bool:
    if a is None or b is None or a == b:
        return True
    as_digits = {"YYYYMMDD": "8 digits", "YYYYMM": "6 digits", "YYYY": "4 digits"}
    return as_digits.get(a, a) == as_digits.get(b, b)


def concepts_of(name: str, schema: Mapping[str, Any]) -> dict[str, float]:
    """Concept → how surely this parameter or field carries it (its name says so: sure; its description: less)."""
    found: dict[str, float] = {}
    by_name = _BY_NAME.get(_key(name))
    if by_name is not None:
        found[by_name.name] = 1.0
    text = _text(schema)
    # the first sentence of a description says what the value *is*; later ones say where it comes from
    head = re.split(r"[.;|]|\(예", text, maxsplit=1)[0]
    for concept in CONCEPTS:
        if concept.name not in found and any(word.lower() in head for word in concept.words):
            found[concept.name] = 0.85
    temporal = _SHAPE_CONCEPT.get(shape_of(schema) or "")
    if temporal is not None and temporal not in found:
        found[temporal] = 0.85
    return found


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
    return [Slot(name, concepts_of(name, properties[name]), shape_of(properties[name]),
                 any(word in _text(properties[name]) for word in _TRADING_DAY),
                 any(word in _text(properties[name]) for word in _PARTIAL))
            for name in sorted(properties) if name not in skip]


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
            skip |= {name for name, prop in props.items() if prop.get("type") == "boolean"
                     or ("enum" in prop and not concepts_of(name, prop))}
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
            best = max(best, _STRENGTH[concept] * min(sure, other))
        if best == 0.0:
            return 0.0
        if not _compatible(param.shape, field.shape):
            return best * 0.3
        if param.trading_day and not field.trading_day:
            best *= 0.7  # any calendar day for a trading day: a reader of the docs would hesitate
        if _key(param.name) == _key(field.name):
            best += 0.08
        return min(best, 1.0)

    def score(self, source: Tool, target: Tool) -> Scored:
        if source.name == target.name:
            return Scored(0.0, {}, "a tool does not feed itself")
        outputs = self._outputs_of(source)
        bound: dict[str, tuple[float, str, str]] = {}  # param -> (score, field, concept kind)
        for param in self._inputs_of(target):
            scored = [(self.pair_score(param, field), field.name) for field in outputs]
            score, field_name = max(scored, key=lambda pair: (pair[0], _key(pair[1]) == _key(param.name)),
                                    default=(0.0, ""))
            if param.partial:
                score *= 0.9  # a substring filter takes the value, but the exact parameter is the binding
            if score >= self.bind_at:
                strongest = max(_STRENGTH[c] for c in param.concepts)
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
        for param, (score, field_name, _) in sorted(bound.items()):
            rank = (score, _key(param) == _key(field_name), param in required)
            held = best_for.get(field_name)
            if held is None or rank > (bound[held][0], _key(held) == _key(field_name), held in required):
                best_for[field_name] = param
        bound = {param: bound[param] for param in best_for.values()}
        if not bound:
            return Scored(0.0, {}, "no output field means what an input parameter needs")
        best = max(score * (1.0 if param in required else 0.85) for param, (score, _, _) in bound.items())
        binding = {param: field for param, (_, field, _) in sorted(bound.items())}
        shown = ", ".join(f"{p}←{f}" for p, f in binding.items())
        return Scored(round(best, 4), binding, f"binds {shown}")


_STRENGTH = {concept.name: concept.strength for concept in CONCEPTS}
