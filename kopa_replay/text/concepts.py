"""Field concepts: what a parameter or output field *means*, read from its name and signature alone.

The paper's scoring prompt asks a model to bind fields that mean the same
thing even when their names differ (SIGUN_NM / REGION_NM / rgn are all a
region name). Here every input parameter and output field is read into
*concepts* through synonym groups (:data:`CONCEPTS`) over its name and its
Korean/English description (:func:`concepts_of`), plus a *shape* — digit
count, YYYYMMDD / YYYYMM / YYYY — from its description or pattern
(:func:`shape_of`). The binding scorer (:mod:`kopa_replay.graph.score`) binds a
parameter to a field when they share a concept and their shapes do not
conflict (:func:`shapes_compatible`); the pruning loop and the trajectory walk
call a target beside its examples less the arguments that name an entity
(:func:`target_fillers`); synthesis reads which fields label an entity and which
are quantities.

It sees only what an agent sees (a signature), never the simulator's ground
truth. Deterministic: no randomness, sorted iteration. Pure: no I/O.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

__all__ = [
    "CONCEPTS",
    "IDENTIFIER",
    "NAME",
    "TEMPORAL",
    "STRENGTH",
    "Concept",
    "Signature",
    "concepts_of",
    "description_text",
    "name_key",
    "names_an_entity",
    "shape_of",
    "shapes_compatible",
    "target_fillers",
]


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
    return Concept(
        name, frozenset(name_key(n) for n in names.split()), tuple(w for w in words.split("|") if w), strength
    )


def name_key(name: str) -> str:
    """A name as synonym groups compare it: lower-cased, ``_`` removed (``SIGUN_NM`` = ``sigunNm``)."""
    return name.lower().replace("_", "")


#: Concept strengths: an identifier shared names the entity, a name nearly so, a temporal value only a date.
IDENTIFIER, NAME, TEMPORAL = 0.9, 0.75, 0.6

#: The synonym groups, after the mapping table of the paper's scoring prompt.
CONCEPTS: tuple[Concept, ...] = (
    # finance
    _concept("corp_code", IDENTIFIER, "corp_code fssCorpUnqNo corpCode", "dart 고유번호|corp_code"),
    _concept(
        "stock_code",
        IDENTIFIER,
        "srtnCd ISU_SRT_CD stock_code stockCode shrtIsinCd likeSrtnCd",
        "단축코드|종목코드|short code|stock code",
    ),
    _concept("isin", IDENTIFIER, "isinCd ISU_CD likeIsinCd", "isin"),
    _concept("crno", IDENTIFIER, "crno jurir_no", "법인등록번호|corporate registration"),
    _concept("bizr_no", IDENTIFIER, "bizr_no bzno", "사업자등록번호|business registration"),
    _concept("rcept_no", IDENTIFIER, "rcept_no", "접수번호|receipt number"),
    _concept(
        "corp_name",
        NAME,
        "corp_name corpNm likeCorpNm itmsNm likeItmsNm stckIssuCmpyNm enpPbanCmpyNm ISU_NM ISU_ABBRV stock_name",
        "회사명|법인명|종목명|company name|stock name|issuer",
    ),
    _concept("reprt_code", IDENTIFIER, "reprt_code", "보고서 코드|report code"),
    # regions
    _concept(
        "region_code",
        IDENTIFIER,
        "LAWD_CD sggCd SIGUN_CD CGG_CD stdgCd region_cd signguCode GU_CD locathigh_cd ADSTRD_CODE_SE adstrdCd",
        "시군구코드|시군코드|자치구코드|법정동코드|행정동코드|지역코드|lawd_cd|district code",
    ),
    _concept(
        "region_name",
        NAME,
        "SIGUN_NM REGION_NM rgn sggNm CGG_NM ctpvNm LCTN_SC_NM signguNm GU_NM "
        "CODE_VALUE MSRSTE_NM locatadd_nm X_SWIFI_WRDOFC umdNm stdgNm STDG_NM",
        "시군명|시군구명|자치구명|시도명|지역명|법정동명|자치구|district name|region name",
    ),
    # transit
    _concept("city_code", IDENTIFIER, "cityCode citycode", "도시코드|city code"),
    _concept("route_id", IDENTIFIER, "routeId routeid busRouteId BUS_ROUTE_ID RTE_ID", "노선id|route id"),
    _concept(
        "route_no",
        NAME,
        "routeNo routeno routenm busRouteNm rtNm BUS_ROUTE_NO BUS_ROUTE_NM RTE_NO RTE_NM strSrch busRouteAbrv",
        "노선번호|노선명|route number|route name",
    ),
    _concept(
        "stop_id",
        IDENTIFIER,
        "nodeId nodeid stId STND_BSST_ID STOPS_ID nextStId lastStnId station trnstnid",
        "정류소id|정류장id|stop id|station id",
    ),
    _concept(
        "stop_no",
        IDENTIFIER,
        "nodeNo nodeno arsId BSST_ARS_NO STOPS_ARS_NO stationNo",
        "정류소번호|정류소 고유번호|정류장 ars|number printed",
    ),
    _concept(
        "stop_name",
        NAME,
        "nodeNm nodenm stSrch stNm startnodenm endnodenm nxtStn stBegin stEnd edStationNm",
        "정류소명|정류장명|stop name|station name",
    ),
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
#: Concept name → its strength.
STRENGTH: Mapping[str, float] = {concept.name: concept.strength for concept in CONCEPTS}

_SHAPE_CONCEPT = {"YYYYMMDD": "date", "YYYYMM": "yearmonth", "YYYY": "year"}
_BY_NAME = {name: concept for concept in CONCEPTS for name in concept.names}
_DIGITS = re.compile(r"(\d+)\s*(?:자리|digits?|characters?|-digit|-char)", re.IGNORECASE)
_PATTERN_DIGITS = re.compile(r"^\^?\[0-9\]\{(\d+)\}\$?$")


def description_text(schema: Mapping[str, Any]) -> str:
    """A schema's description as concepts read it: lower-cased, ``YYYY-MM-DD`` written ``yyyymmdd``."""
    # "YYYY-MM-DD" and "YYYYMMDD" are one shape to a reader
    return str(schema.get("description", "")).lower().replace("yyyy-mm-dd", "yyyymmdd").replace("yyyy-mm", "yyyymm")


def shape_of(schema: Mapping[str, Any]) -> str | None:
    """The value's written shape, when the signature says: ``"YYYYMMDD"``, ``"YYYYMM"``, ``"YYYY"`` or ``"N digits"``."""
    text = description_text(schema)
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


def shapes_compatible(a: str | None, b: str | None) -> bool:
    """Whether two shapes can hold one value: unknown fits anything, YYYYMMDD is 8 digits, and so on."""
    if a is None or b is None or a == b:
        return True
    as_digits = {"YYYYMMDD": "8 digits", "YYYYMM": "6 digits", "YYYY": "4 digits"}
    return as_digits.get(a, a) == as_digits.get(b, b)


def concepts_of(name: str, schema: Mapping[str, Any]) -> dict[str, float]:
    """Concept → how surely this parameter or field carries it (its name says so: sure; its description: less)."""
    found: dict[str, float] = {}
    by_name = _BY_NAME.get(name_key(name))
    if by_name is not None:
        found[by_name.name] = 1.0
    text = description_text(schema)
    # the first sentence of a description says what the value *is*; later ones say where it comes from
    head = re.split(r"[.;|]|\(예", text, maxsplit=1)[0]
    for concept in CONCEPTS:
        if concept.name not in found and any(word.lower() in head for word in concept.words):
            found[concept.name] = 0.85
    temporal = _SHAPE_CONCEPT.get(shape_of(schema) or "")
    if temporal is not None and temporal not in found:
        found[temporal] = 0.85
    return found


def names_an_entity(name: str, schema: Mapping[str, Any]) -> bool:
    """Whether the parameter or field carries a concept stronger than a date (an identifier or a name)."""
    return any(STRENGTH[concept] > TEMPORAL for concept in concepts_of(name, schema))


class Signature(Protocol):
    """What :func:`target_fillers` reads of a tool (a :class:`~kopa_replay.catalog.model.Tool` has it)."""

    @property
    def input_schema(self) -> Mapping[str, Any]: ...

    @property
    def required(self) -> Sequence[str]: ...

    @property
    def examples(self) -> Sequence[Mapping[str, Any]]: ...


def target_fillers(tool: Signature) -> list[dict[str, Any]]:
    """What a link's bound values are called beside: each catalog example, less its optional entity arguments.

    Optional example arguments that name an entity (a crno, a company name) are
    left out: they pin the example's own entity and would contradict the value
    handed over. Required arguments, optional dates and settings stay (a filing
    search needs its window).
    """
    properties = tool.input_schema.get("properties", {})
    return [
        {
            name: value
            for name, value in example.items()
            if name in tool.required or not names_an_entity(name, properties.get(name, {}))
        }
        for example in tool.examples
    ] or [{}]
