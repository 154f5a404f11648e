"""Ground truth: does a binding between two tools execute in this world?

A binding is (source tool, output field) → (target tool, input parameter).
It executes when the field holds values of the kind the parameter accepts —
the same *domain* — because every endpoint answers a value of its input
domain that exists in the world. Domains are declared on the simulator's
endpoints (never in the catalog an agent or a pruner sees), so pruning can be
scored for precision and recall against them.
"""

from __future__ import annotations

from typing import Iterable

from kopa_replay.sim.registry import Registry, registry

__all__ = ["COMPATIBLE", "DOMAINS", "accepts", "binding_executes", "field_domain", "param_domain", "true_bindings"]

#: The value domains of this world. A field or parameter without a domain
#: (free text, measures, flags) binds to nothing.
DOMAINS = {
    # finance
    "corp_code": "DART 고유번호, 8 digits",
    "corp_name": "company name as registered (라이트론)",
    "stock_code": "6-digit short stock code (srtnCd, stock_code, ISU_SRT_CD)",
    "isin": "12-char ISIN (isinCd, KRX base-info ISU_CD)",
    "crno": "13-digit corporate registration number (법인등록번호, jurir_no)",
    "bizr_no": "10-digit business registration number",
    "rcept_no": "14-digit DART receipt number",
    "date": "a calendar date YYYYMMDD",
    "past_date": "a historical date YYYYMMDD (founding, promulgation, ruling): no daily data exists for it",
    "business_date": "an exchange business day YYYYMMDD (prices exist)",
    "year": "a year YYYY",
    "yearmonth": "a month YYYYMM",
    "reprt_code": "DART report code 11011/11012/11013/11014",
    # regions
    "region_cd": "10-digit 법정동 code",
    "lawd_cd": "5-digit 시군구 code (LAWD_CD)",
    "sido_name": "시도 name (서울특별시)",
    "sigungu_name": "시군구 name (강남구, 수원시)",
    "dong_name": "읍면동 name",
    "adstrd_cd": "8-digit 행정동 code (Seoul datasets)",
    # transit
    "tago_city_code": "TAGO city code (25 Daejeon)",
    "tago_route_id": "TAGO route id (DJB30300004)",
    "tago_route_no": "bus route number as shown (102, 급행2)",
    "tago_node_id": "TAGO stop id (DJB8001793)",
    "tago_node_no": "TAGO stop number shown at the stop",
    "stop_name": "bus stop name",
    "seoul_route_id": "Seoul busRouteId, 9 digits",
    "seoul_route_no": "Seoul bus route name (rtNm, 143)",
    "seoul_station_id": "Seoul stId, 9 digits",
    "seoul_ars_id": "Seoul arsId, 5 digits",
    "seoul_stop_name": "Seoul bus stop name (stNm)",
    "subway_station": "subway station name",
    "subway_line": "subway line name (2호선)",
    # education
    "neis_office_code": "시도교육청 code (B10)",
    "school_code": "7-digit NEIS school code (SD_SCHUL_CODE)",
    "school_name": "school name",
    # law
    "law_mst": "법령일련번호 (MST)",
    "law_id": "6-digit 법령ID",
    "law_name": "법령명",
    # politics
    "mona_cd": "8-char member code (MONA_CD)",
    "member_name": "legislator name (HG_NM)",
    "bill_id": "bill id (PRC_…)",
    "bill_no": "7-digit bill number",
    "assembly_age": "Assembly number (22)",
    "party_name": "party name",
    "committee_name": "committee name",
    # Gyeonggi
    "sigun_name": "경기 시군 name (SIGUN_NM)",
    "sigun_cd": "경기 시군 code (SIGUN_CD, = LAWD_CD)",
}


def param_domain(tool: str, param: str, reg: Registry | None = None) -> str | None:
    endpoint = (reg or registry()).endpoint_for_tool(tool)
    return endpoint.inputs.get(param) if endpoint else None


def field_domain(tool: str, field: str, reg: Registry | None = None) -> str | None:
    endpoint = (reg or registry()).endpoint_for_tool(tool)
    return endpoint.outputs.get(field) if endpoint else None


#: (field domain, parameter domain) pairs that execute although the domains differ. One way only:
#: a trading day is a calendar date, and a 경기 시군 code is a 시군구 code (LAWD_CD) — not the reverse.
COMPATIBLE = frozenset({("business_date", "date"), ("sigun_cd", "lawd_cd")})


def accepts(param_domain_: str, field_domain_: str) -> bool:
    """Whether a parameter of one domain accepts values of a field of another."""
    return param_domain_ == field_domain_ or (field_domain_, param_domain_) in COMPATIBLE


def binding_executes(source_tool: str, field: str, target_tool: str, param: str,
                     reg: Registry | None = None) -> bool:
    """True when values of ``source_tool.field`` are accepted by ``target_tool(param=...)``."""
    if source_tool == target_tool:
        return False
    source = field_domain(source_tool, field, reg)
    target = param_domain(target_tool, param, reg)
    if source is None or target is None:
        return False
    return accepts(target, source)


def true_bindings(tools: Iterable[str], reg: Registry | None = None) -> set[tuple[str, str, str, str]]:
    """Every executing (source, field, target, param) among ``tools``."""
    reg = reg or registry()
    names = sorted(set(tools))
    produced: dict[str, list[tuple[str, str]]] = {}
    for name in names:
        endpoint = reg.endpoint_for_tool(name)
        for fname, domain in (endpoint.outputs.items() if endpoint else ()):
            produced.setdefault(domain, []).append((name, fname))
    out: set[tuple[str, str, str, str]] = set()
    for target in names:
        endpoint = reg.endpoint_for_tool(target)
        for pname, domain in (endpoint.inputs.items() if endpoint else ()):
            sources = [pair for field_domain_, pairs in produced.items() if accepts(domain, field_domain_)
                       for pair in pairs]
            for source, fname in sources:
                if source != target:
                    out.add((source, fname, target, pname))
    return out
