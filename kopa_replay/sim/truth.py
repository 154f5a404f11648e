"""Ground truth: does a binding between two tools execute in this world?

A binding is (source tool, output field) → (target tool, input parameter).
It executes when the field holds values of the kind the parameter accepts —
the same *domain* — because every endpoint answers a value of its input
domain that exists in the world. Domains are declared on the simulator's
endpoints (never in the catalog an agent or a pruner sees), so pruning can be
scored for precision and recall against them.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from kopa_replay.sim.registry import Registry, registry
from kopa_replay.sim.world.laws import SERIAL_TARGETS as LAW_SERIAL_TARGETS

__all__ = [
    "COMPATIBLE",
    "DOMAINS",
    "SCOPED_BY",
    "accepts",
    "binding_executes",
    "field_domain",
    "link_executes",
    "param_domain",
    "true_bindings",
]

#: The value domains of this world. A field or parameter without a domain
#: (free text, measures, flags) binds to nothing. The ``…_part`` domains and
#: ``since_date`` belong to parameters only: searches and range starts that accept
#: values of several field domains (see COMPATIBLE).
DOMAINS = {
    # finance
    "corp_code": "DART 고유번호, 8 digits",
    "corp_name": "company name as listed and filed (라이트론)",
    "corp_registry_name": "법인명 as in the corporate registry, with its form ((주)라이트론)",
    "corp_name_part": "a substring search over registered 법인명: a company name or the 법인명 itself",
    "stock_code": "6-digit short stock code (srtnCd, stock_code, ISU_SRT_CD)",
    "isin": "12-char ISIN (isinCd, KRX base-info ISU_CD)",
    "isin_part": "a substring search over ISINs: an ISIN or the 6-digit short code inside it",
    "crno": "13-digit corporate registration number (법인등록번호, jurir_no)",
    "bizr_no": "10-digit business registration number",
    "rcept_no": "14-digit DART receipt number",
    "date": "a recent calendar date YYYYMMDD (daily records of the services exist for it)",
    "past_date": "a historical date YYYYMMDD (founding, listing, licence, code adoption): no daily data "
    "exists for it, but a window opened on it reaches today",
    "recent_past_date": "a date of the last decade or two YYYYMMDD (a law's promulgation or enforcement, a "
    "ruling, a closure): mostly inside the daily series (2015 on) and before the latest "
    "events, so a daily date parameter and a window start both take it",
    "business_date": "an exchange business day YYYYMMDD (prices exist; schools teach on it in term)",
    "since_date": "the first day YYYYMMDD of a range that runs on to today: any earlier date, historical "
    "or recent, opens it",
    "until_date": "the last day YYYYMMDD of a range (the registers' endDate): a recent date closes it with "
    "records before it; a historical one leaves it empty",
    "year": "a recent year YYYY (what the yearly histories hold: DART reports from 2024, classes from 2015)",
    "any_year": "a year YYYY of a table that spans decades (the Assembly's yearly records): every recent year "
    "is in it, not every year of it in the recent histories",
    "fiscal_year": "a business year YYYY whose annual report is filed (reports exist only then)",
    "yearmonth": "a month YYYYMM",
    "reprt_code": "DART report code 11011/11012/11013/11014",
    # regions
    "region_cd": "10-digit 법정동 code",
    "lawd_cd": "5-digit 시군구 code (LAWD_CD)",
    "seoul_gu_cd": "5-digit 시군구 code of a Seoul 구 (CGG_CD of Seoul-only datasets)",
    "sido_name": "시도 name (서울특별시)",
    "sigungu_name": "시군구 name (강남구, 수원시)",
    "dong_name": "읍면동 name",
    "region_name_part": "a substring search over full 법정동 names: a 시도, 시군구 or 읍면동 name",
    "sigungu_name_part": "a substring search over '시도 시군구' names (개인사업자 bizAreaNm): a 시도 or 시군구 name",
    "adstrd_cd": "8-digit 행정동 code (Seoul datasets)",
    "admm_cd": "10-digit 행정기관코드 (주민등록 population by 행정동)",
    "bjdong_cd": "5-digit 법정동 part of a 법정동 code (its last five digits; bjdongCd beside sigunguCd)",
    "lot_bun": "a lot's 번 (main number), four digits zero-filled (bun 0012), within its 법정동",
    "lot_ji": "a lot's 지 (sub-number), four digits zero-filled (ji 0000), within its 번",
    "kapt_code": "공동주택 단지코드 (kaptCode, A and eight digits)",
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
    "seoul_station_ord": "the order of a stop on one Seoul route (ord)",
    "seoul_station_ord_bound": "a stop order bounding a stretch of one Seoul route (startOrd, endOrd): not one "
    "stop, so it scopes no route (the stretch 1–200 holds any route's buses)",
    "seoul_ars_id": "Seoul arsId, 5 digits",
    "seoul_veh_id": "Seoul bus vehicle id (vehId, 9 digits)",
    "seoul_stop_name": "Seoul bus stop name (stNm)",
    "subway_station": "subway station name",
    "subway_line": "subway line name (2호선)",
    "subway_station_rt": "subway station as the realtime service names it (잠실, 서울; no bracketed name)",
    "subway_line_rt": "subway line as the realtime service names it (2호선, 경의중앙선)",
    "subway_line_id": "realtime subway line id (1002)",
    "subway_train_no": "realtime subway train number (btrainNo = trainNo)",
    "seoul_inf_id": "data.seoul.go.kr dataset id (OA-12914)",
    "seoul_hotspot": "hot-spot area of Seoul's realtime city data, by AREA_NM (강남역) or AREA_CD (POI014)",
    # education
    "neis_office_code": "시도교육청 code (B10)",
    "school_code": "7-digit NEIS school code (SD_SCHUL_CODE)",
    "elementary_school_code": "a school code of an elementary school (the elsTimetable answers only those)",
    "middle_school_code": "a school code of a middle school (misTimetable)",
    "high_school_code": "a school code of a high school (hisTimetable)",
    "special_school_code": "a school code of a special school (spsTimetable)",
    "school_name": "school name",
    # law
    "law_mst": "법령일련번호 (MST)",
    "law_id": "6-digit 법령ID",
    "law_name": "법령명",
    "prec_serial": "판례일련번호 (the ID of a precedent)",
    "expc_serial": "법령해석례일련번호 (the ID of a statutory interpretation)",
    "admrul_serial": "행정규칙일련번호, 13 digits (the ID of an administrative rule)",
    "ordin_serial": "자치법규일련번호 (the MST of a local ordinance)",
    "treaty_serial": "조약일련번호 (the ID of a treaty)",
    "legal_term": "법령용어명 (the query of a legal term's body)",
    **{
        f"{t}_serial": f"the ID of a decision of law.go.kr's target {t}" for t in ("detc", "decc", "ppc", "eiac", "ftc")
    },
    **{
        f"{t}_serial": f"the ID of a decision of law.go.kr's target {t}"
        for t in ("acr", "fsc", "nlrc", "kcc", "iaciac")
    },
    **{f"{t}_serial": f"the ID of a decision of law.go.kr's target {t}" for t in ("oclt", "ecc", "sfc", "nhrck")},
    **{f"{t}_serial": f"the ID of a document of law.go.kr's target {t}" for t in LAW_SERIAL_TARGETS},
    # politics
    "mona_cd": "8-char member code (MONA_CD)",
    "member_name": "legislator name (HG_NM)",
    "bill_id": "bill id (PRC_…)",
    "bill_no": "7-digit bill number",
    "assembly_age": "Assembly number (22)",
    "party_name": "party name",
    "committee_name": "committee name",
    "committee_code": "7-digit committee code (HR_DEPT_CD, CURR_COMMITTEE_ID)",
    "assembly_era": "Assembly as the portal writes it in ERACO (제22대)",
    "assembly_unit_cd": "Assembly code (UNIT_CD 100022)",
    "conf_id": "meeting (minutes) id (CONF_ID)",
    "petition_id": "petition id (PTT_ID)",
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
#: a trading day is a calendar date, a 경기 시군 or Seoul 구 code is a 시군구 code (LAWD_CD), a filed
#: business year is a year — not the reverse. A range start accepts any date up to today, a range end a
#: recent one (a date of "the last decades" may be of the 1970s: an empty window); a date of recent years
#: is recent enough for a daily series and old enough to open a window; a recent year is a year of every
#: table that spans decades; a substring search accepts every name it can find inside the longer names it
#: searches.
COMPATIBLE = frozenset(
    {
        ("elementary_school_code", "school_code"),
        ("middle_school_code", "school_code"),
        ("high_school_code", "school_code"),
        ("special_school_code", "school_code"),
        ("business_date", "date"),
        ("sigun_cd", "lawd_cd"),
        ("seoul_gu_cd", "lawd_cd"),
        ("fiscal_year", "year"),
        ("date", "since_date"),
        ("business_date", "since_date"),
        ("past_date", "since_date"),
        ("recent_past_date", "since_date"),
        ("recent_past_date", "past_date"),
        ("recent_past_date", "date"),
        ("date", "until_date"),
        ("business_date", "until_date"),
        ("year", "any_year"),
        ("fiscal_year", "any_year"),
        ("corp_name", "corp_name_part"),
        ("corp_registry_name", "corp_name_part"),
        ("isin", "isin_part"),
        ("stock_code", "isin_part"),
        ("sido_name", "region_name_part"),
        ("sigungu_name", "region_name_part"),
        ("sigun_name", "region_name_part"),
        ("dong_name", "region_name_part"),
        ("sido_name", "sigungu_name_part"),
        ("sigungu_name", "sigungu_name_part"),
        ("sigun_name", "sigungu_name_part"),
    }
)


def accepts(param_domain_: str, field_domain_: str) -> bool:
    """Whether a parameter of one domain accepts values of a field of another."""
    return param_domain_ == field_domain_ or (field_domain_, param_domain_) in COMPATIBLE


def binding_executes(source_tool: str, field: str, target_tool: str, param: str, reg: Registry | None = None) -> bool:
    """True when values of ``source_tool.field`` are accepted by ``target_tool(param=...)``."""
    if source_tool == target_tool:
        return False
    source = field_domain(source_tool, field, reg)
    target = param_domain(target_tool, param, reg)
    if source is None or target is None:
        return False
    return accepts(target, source)


#: A value of the key domain is only meaningful together with a value of these domains: a school code
#: within its education office, a Seoul stop within a route together with the stop's order on it, a TAGO
#: city together with one of its routes or stops.
SCOPED_BY: Mapping[str, frozenset[str]] = {
    "school_code": frozenset({"neis_office_code"}),
    "elementary_school_code": frozenset({"neis_office_code"}),
    "middle_school_code": frozenset({"neis_office_code"}),
    "high_school_code": frozenset({"neis_office_code"}),
    "special_school_code": frozenset({"neis_office_code"}),
    "seoul_station_id": frozenset({"seoul_station_ord"}),
    "seoul_route_id": frozenset({"seoul_station_ord", "seoul_ars_id"}),
    # a Seoul stop number only finds a route's first and last bus together with a route through it
    "seoul_ars_id": frozenset({"seoul_route_id"}),
    # a 법정동 part only names a 법정동 with its 시군구, a lot number only a lot with its 법정동
    "bjdong_cd": frozenset({"lawd_cd"}),
    "lot_bun": frozenset({"bjdong_cd"}),
    "lot_ji": frozenset({"lot_bun", "bjdong_cd"}),
    # a TAGO city code only finds a route or a stop of that city
    "tago_city_code": frozenset({"tago_route_id", "tago_node_id"}),
}


def link_executes(source_tool: str, binding: Mapping[str, str], target_tool: str, reg: Registry | None = None) -> bool:
    """Whether calling ``target_tool`` with ``{param: value of source_tool.field}`` executes.

    Every pair of the binding must execute, and a value handed over must not
    be left beside a required parameter that scopes it (:data:`SCOPED_BY`):
    filled some other way — a catalog example's education office beside
    another office's school code — it names a different entity and the call
    finds nothing.
    """
    reg = reg or registry()
    if not binding or not all(
        binding_executes(source_tool, field, target_tool, param, reg) for param, field in binding.items()
    ):
        return False
    endpoint = reg.endpoint_for_tool(target_tool)
    inputs = endpoint.inputs if endpoint else {}
    scopes = set().union(*(SCOPED_BY.get(inputs.get(param, ""), frozenset()) for param in binding))
    return not any(
        inputs.get(param) in scopes for param in (endpoint.required if endpoint else ()) if param not in binding
    )


def true_bindings(tools: Iterable[str], reg: Registry | None = None) -> set[tuple[str, str, str, str]]:
    """Every executing (source, field, target, param) among ``tools``."""
    reg = reg or registry()
    names = sorted(set(tools))
    produced: dict[str, list[tuple[str, str]]] = {}
    for name in names:
        endpoint = reg.endpoint_for_tool(name)
        for fname, domain in endpoint.outputs.items() if endpoint else ():
            produced.setdefault(domain, []).append((name, fname))
    out: set[tuple[str, str, str, str]] = set()
    for target in names:
        endpoint = reg.endpoint_for_tool(target)
        for pname, domain in endpoint.inputs.items() if endpoint else ():
            sources = [
                pair for field_domain_, pairs in produced.items() if accepts(domain, field_domain_) for pair in pairs
            ]
            for source, fname in sources:
                if source != target:
                    out.add((source, fname, target, pname))
    return out
