"""행정안전부 services (and 국토교통부 apartment trades) on the data.go.kr gateway.

Platform id ``datagokr``, domain district, host ``apis.data.go.kr``. Each
service answers in its own envelope, while key, quota and unknown-service
errors come from the gateway in its XML whatever format was asked for:

* 법정동코드 ``/1741000/StanReginCd/getStanReginCdList`` — the head/row shape
  ``{"StanReginCd":[{"head":[{"totalCount":N},{"numOfRows":"10","pageNo":"1",
  "type":"JSON"},{"RESULT":{"resultCode":"INFO-0","resultMsg":"NOMAL SERVICE"}}]},
  {"row":[…]}]}`` ("NOMAL" as the real service spells it), no data as a bare
  ``{"RESULT":{"resultCode":"INFO-3","resultMsg":"데이터없음 에러"}}``; JSON
  is sent with a text/html content type. ``locatadd_nm`` matches any part of
  the full name (부분일치).
* 주민등록 인구 및 세대현황 ``stdgPpltnHhStus`` (법정동) and ``admmPpltnHhStus``
  (행정동) — ``{"Response":{"head":{"resultCode":"0",…,"totalCount":N},
  "items":{"item":[…]}}}``, ``items: ""`` when nothing matches. A month's
  statistics exist once the month is over.
* 국토교통부 아파트 실거래가 (RTMS, since 2024-07-17 under ``/1613000``): 매매 ``RTMSDataSvcAptTrade``,
  매매 상세 ``RTMSDataSvcAptTradeDev`` (adds lot and road-address codes and ``aptSeq``) and 전월세
  ``RTMSDataSvcAptRent`` — XML only, ``resultCode`` ``000``/``OK``, no data as ``000`` with ``<items/>``,
  ``numOfRows`` uncapped.

The other RTMS families (오피스텔, 연립다세대, 단독/다가구, 상업업무용, 토지, 분양권전매, 공장·창고) and the
성/연령별 population services are rows of ``sim/tables/mois.yaml`` answered by the world tables below (``TABLES``:
``world.rtms`` draws the contracts, the age bands split the population services' rows); a row's
``options.protocol`` picks its envelope. The 법정동 list reads ``world.regions.register`` (with the 리 of the full
world) page by page.

The error codes of the services themselves (not the gateway's) are not
documented publicly; they are modelled on the gateway's numbers:
``ERROR-10``/``ERROR-11`` style for 법정동코드 and the plain numbers for the others.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import Any

from kopa_replay.sim.core import BadParam, Context, Doc, Endpoint, ErrorKind, NoData, Query
from kopa_replay.sim.protocols import DATAGOKR_CODES, DataGoKrProtocol
from kopa_replay.sim.tables import endpoints
from kopa_replay.sim.world import evict_oldest
from kopa_replay.sim.world.calendar import ymd
from kopa_replay.sim.world.datasets import AdminDong, DatasetWorld, month_range, previous_month
from kopa_replay.sim.world.finance import LazyRows
from kopa_replay.sim.world.fmt import data, frozen
from kopa_replay.sim.world.mois_bldg import ARCH_PERMITS, HOUSING_PERMITS, REGISTER, kapt_basis, kapt_code, kapt_detail
from kopa_replay.sim.world.mois_rtms import FAMILIES
from kopa_replay.sim.world.regions import Dong, LegalRegister, Sido, Sigungu

__all__ = ["ENDPOINTS", "HOSTS", "StanReginCdProtocol", "PopulationProtocol", "RtmsProtocol"]

_DATA = data("mois")  # the service codes and field lists (their sources beside them there)

HOST = "apis.data.go.kr"
PLATFORM = "datagokr"

# Kinds of error the gateway itself answers (in its XML), before a service sees the request.
_GATEWAY_KINDS = (ErrorKind.INVALID_KEY, ErrorKind.RATE_LIMIT, ErrorKind.NOT_FOUND)


# ---------------------------------------------------------------------------
# Protocols
# ---------------------------------------------------------------------------

STAN_REGIN_CODES = frozen(_DATA["STAN_REGIN_CODES"])

_SERVICE_CODES = {
    ErrorKind.MISSING_PARAM: "11",
    ErrorKind.BAD_PARAM: "10",
    ErrorKind.MAINTENANCE: "05",
    ErrorKind.SERVER_ERROR: "01",
}


class StanReginCdProtocol(DataGoKrProtocol):
    """The 법정동코드 service: head/row envelope with INFO-0 "NOMAL SERVICE"."""

    name = "stanregincd"

    def __init__(self) -> None:
        super().__init__(format_param="type", default_size=10, max_size=1000)

    def _result(self, ctx: Context, code: str) -> dict[str, str]:
        code = ctx.code(code)
        return {"resultCode": code, "resultMsg": STAN_REGIN_CODES.get(code, "")}

    def ok(self, ctx: Context, records: list[dict[str, Any]], total: int, meta: Mapping[str, Any]) -> Doc:
        if not records:
            return self.error(ctx, ErrorKind.NO_DATA)
        paging = {"numOfRows": str(meta["size"]), "pageNo": str(meta["page"]), "type": "XML" if ctx.xml else "JSON"}
        result = self._result(ctx, "INFO-0")
        if ctx.xml:
            return Doc(
                {"head": {"totalCount": total, **paging, "RESULT": result}, "row": records},
                xml=True,
                xml_root="StanReginCd",
            )
        return Doc(
            {"StanReginCd": [{"head": [{"totalCount": total}, paging, {"RESULT": result}]}, {"row": records}]},
            content_type="text/html;charset=UTF-8",
        )

    def error(self, ctx: Context, kind: str, detail: str = "") -> Doc:
        if kind in _GATEWAY_KINDS:
            return super().error(ctx, kind, detail)
        code = "INFO-3" if kind == ErrorKind.NO_DATA else f"ERROR-{int(_SERVICE_CODES[kind])}"
        result = self._result(ctx, code)
        if ctx.xml:
            return Doc(result, xml=True, xml_root="RESULT")
        return Doc({"RESULT": result}, content_type="text/html;charset=UTF-8")


class PopulationProtocol(DataGoKrProtocol):
    """The 주민등록 population services: ``Response.head`` / ``Response.items.item``, code "0"."""

    name = "ppltn"

    def __init__(self) -> None:
        super().__init__(format_param="type", no_data="empty", default_size=10, max_size=1000)

    def _doc(self, ctx: Context, head: dict[str, Any], items: Any) -> Doc:
        body: dict[str, Any] = {"head": head}
        if items is not None:
            body["items"] = items
        if ctx.xml:
            if body.get("items") == "":
                body["items"] = None  # <items/>
            return Doc(body, xml=True, xml_root="Response")
        return Doc({"Response": body})

    def ok(self, ctx: Context, records: list[dict[str, Any]], total: int, meta: Mapping[str, Any]) -> Doc:
        code = ctx.code("0")
        head = {
            "resultCode": code,
            "resultMsg": "NORMAL SERVICE",
            "totalCount": total,
            "numOfRows": meta["size"],
            "pageNo": meta["page"],
        }
        return self._doc(ctx, head, {"item": records} if records else "")

    def error(self, ctx: Context, kind: str, detail: str = "") -> Doc:
        if kind in _GATEWAY_KINDS or kind == ErrorKind.NO_DATA:
            return super().error(ctx, kind, detail)  # gateway XML, or an empty page for "nothing found"
        code = ctx.code(_SERVICE_CODES[kind])
        return self._doc(ctx, {"resultCode": code, "resultMsg": DATAGOKR_CODES.get(code, "")}, None)


class RtmsProtocol(DataGoKrProtocol):
    """국토교통부 RTMS: XML only, ``000``/``OK``, no data as an empty ``<items/>`` with code 000."""

    name = "rtms"

    def __init__(self) -> None:
        # numOfRows is not capped: the guide sizes it at four digits and clients ask for 99999 in one page
        super().__init__(format_param="_type", no_data="empty", default_size=10, max_size=None)

    def wants_xml(self, request, endpoint, path_params) -> bool:
        return True

    def ok(self, ctx: Context, records: list[dict[str, Any]], total: int, meta: Mapping[str, Any]) -> Doc:
        body = {
            "items": {"item": records} if records else None,
            "numOfRows": meta["size"],
            "pageNo": meta["page"],
            "totalCount": total,
        }
        return Doc(
            {"header": {"resultCode": ctx.code("000"), "resultMsg": "OK"}, "body": body}, xml=True, xml_root="response"
        )

    def error(self, ctx: Context, kind: str, detail: str = "") -> Doc:
        if kind in _GATEWAY_KINDS or kind == ErrorKind.NO_DATA:
            return super().error(ctx, kind, detail)  # gateway XML, or an empty page for "nothing found"
        code = ctx.code(_SERVICE_CODES[kind])
        return Doc(
            {"header": {"resultCode": code, "resultMsg": DATAGOKR_CODES.get(code, "")}}, xml=True, xml_root="response"
        )


# ---------------------------------------------------------------------------
# Parameter helpers
# ---------------------------------------------------------------------------


def _digits(q: Query, name: str, length: int) -> str:
    value = q.require(name)
    if len(value) != length or not value.isdigit():
        raise BadParam(name, value)
    return value


def _month(q: Query, name: str) -> str:
    value = _digits(q, name, 6)
    if not 1 <= int(value[4:]) <= 12:
        raise BadParam(name, value)
    return value


def _published_months(q: Query) -> list[str]:
    """srchFrYm..srchToYm cut to the months whose statistics are out at the as-of date."""
    first, last = _month(q, "srchFrYm"), _month(q, "srchToYm")
    if first > last:
        raise BadParam("srchFrYm", first)
    return month_range(max(first, DatasetWorld.FIRST_MONTH), min(last, previous_month(q.as_of)))


def _level(q: Query) -> int:
    level = q.int("lv", 3)
    if level not in (1, 2, 3, 4):
        raise BadParam("lv", str(level))
    return level


#: regSeCd: 1 전체, 2 거주자, 3 거주불명자, 4 재외국민 — the share of residents each counts.
_REG_SHARE = {"1": 1.0, "2": 0.982, "3": 0.011, "4": 0.007}


def _reg_share(q: Query) -> float:
    value = q.get("regSeCd", "1")
    if value not in _REG_SHARE:
        raise BadParam("regSeCd", value)
    return _REG_SHARE[value]


def _counts(pop: Mapping[str, int], share: float) -> dict[str, str]:
    total = round(pop["total"] * share)
    male = round(pop["male"] * share)
    households = max(1, round(pop["households"] * share)) if total else 0
    female = total - male
    return {
        "totNmprCnt": str(total),
        "hhCnt": str(households),
        "hhNmpr": f"{total / households:.2f}" if households else "0",
        "maleNmprCnt": str(male),
        "femlNmprCnt": str(female),
        "maleFemlRate": f"{male / female:.2f}" if female else "0",
    }


def _tongs(world, code: str, pop: Mapping[str, int]) -> list[tuple[str, dict[str, int]]]:
    """Split a dong's residents over its 통 (lv=4), deterministically per dong."""
    rng = world.rng("mois.tong", code)
    shares = rng.dirichlet([4.0] * int(rng.integers(4, 10)))
    out = []
    for n, share in enumerate(shares, start=1):
        part = {k: round(v * float(share)) for k, v in pop.items()}
        part["female"] = part["total"] - part["male"]
        out.append((str(n), part))
    return out


def _sum_pop(pops: list[Mapping[str, int]]) -> dict[str, int]:
    return {k: sum(p[k] for p in pops) for k in ("total", "male", "female", "households")}


# ---------------------------------------------------------------------------
# Handlers
# ---------------------------------------------------------------------------


def _legal_row(world, register: LegalRegister, index: int) -> dict[str, Any]:
    """One code of the 법정동 register as the code list spells it; the 주민 code follows the 행정동."""
    code, region = register.codes[index], register.regions[index]
    if isinstance(region, (Sido, Sigungu)):
        adopted, jumin = "19880423", code
    else:
        dong = region if isinstance(region, Dong) else region.dong
        admin = world.datasets.admin_of_legal.get(dong.code)
        adopted, jumin = ymd(region.adopted), admin.admm_cd if admin else code
    return {
        "region_cd": code,
        "sido_cd": code[:2],
        "sgg_cd": code[2:5],
        "umd_cd": code[5:8],
        "ri_cd": code[8:],
        "locatjumin_cd": jumin,
        "locatjijuk_cd": code,
        "locatadd_nm": region.name if isinstance(region, Sido) else region.full_name,
        "locat_order": register.order[index],
        "locat_rm": None,
        "locathigh_cd": register.parents[index],
        "locallow_nm": region.name,
        "adpt_de": adopted,
    }


def stan_regin_cd(world, q: Query) -> LazyRows:
    """The existing codes whose full name holds ``locatadd_nm`` (all of them without it), made page by page."""
    flag = q.get("flag")
    if flag is not None and flag not in ("Y", "N"):
        raise BadParam("flag", flag)
    register = world.regions.register
    wanted = q.get("locatadd_nm")
    found = register.find(wanted) if wanted is not None else range(len(register))
    if not found:
        raise NoData()
    return LazyRows(found, lambda index: _legal_row(world, register, index))


def _depth(unit) -> int:
    """1 for a 시도, 2 for a 시군구, 3 for a dong (법정동 or 행정동)."""
    return 1 if isinstance(unit, Sido) else 2 if isinstance(unit, Sigungu) else 3


def _descend(unit, depth: int, children: Callable[[Any], list]) -> list:
    """The units at ``depth`` inside ``unit`` (``unit`` itself when it is that deep or deeper)."""
    units = [unit]
    for _ in range(max(0, depth - _depth(unit))):
        units = [child for u in units for child in children(u)]
    return units


def _population_rows(
    world,
    q: Query,
    unit,
    children: Callable[[Any], list],
    leaf_population: Callable[[Any, str], Mapping[str, int]],
    describe: Callable[[Any], dict[str, str]],
) -> list[dict[str, Any]]:
    """Rows of the 주민등록 population services for ``unit`` (a region the code named).

    Both services share the month window, the level (``lv``: 1 시도, 2 시군구,
    3 dong, 4 통) and the registration class; they differ in the dongs below a
    시군구 (법정동 or 행정동) and in how a row names its region (``describe``).
    """
    months, level, share = _published_months(q), _level(q), _reg_share(q)
    if unit is None or not months:
        raise NoData()
    out = []
    for month in months:
        for row_unit in _descend(unit, min(level, 3), children):
            pop = _sum_pop([leaf_population(leaf, month) for leaf in _descend(row_unit, 3, children)])
            base = {"statsYm": month, **describe(row_unit)}
            code = row_unit.code if _depth(row_unit) == 3 else row_unit.region_cd
            parts = _tongs(world, code, pop) if level == 4 and _depth(row_unit) == 3 else [("", pop)]
            for tong, part in parts:
                out.append({**base, "tong": tong, "ban": "", **_counts(part, share)})
    return out


def _names(unit) -> tuple[Sido, Sigungu | None]:
    sgg = unit if isinstance(unit, Sigungu) else getattr(unit, "sigungu", None)
    return (sgg.sido if sgg else unit), sgg


def stdg_population(world, q: Query) -> list[dict[str, Any]]:
    """주민등록 population per 법정동 (stdgCd: a 10-digit 법정동 code at any level)."""
    regions, datasets = world.regions, world.datasets

    def children(unit) -> list:
        if isinstance(unit, Sido):
            return regions.sigungu_of(unit)
        return datasets.dongs_in(unit.code) if isinstance(unit, Sigungu) else []

    def describe(unit) -> dict[str, str]:
        sido, sgg = _names(unit)
        legal = unit if isinstance(unit, Dong) else None
        admin = datasets.admin_of_legal.get(legal.code) if legal else None
        code = legal.code if legal else unit.region_cd
        return {
            "stdgCd": code,
            "admmCd": admin.admm_cd if admin else code,
            "ctpvNm": sido.name,
            "sggNm": sgg.name if sgg else "",
            "stdgNm": legal.name if legal else "",
            "liNm": "",
            "dongNm": admin.name if admin else "",
        }

    unit = regions.by_code.get(_digits(q, "stdgCd", 10))
    return _population_rows(world, q, unit, children, regions.population, describe)


def _admm_children(world) -> Callable[[Any], list]:
    """The units one level below a 시도 (its 시군구) or a 시군구 (its 행정동) in the 행정동 services."""
    regions, datasets = world.regions, world.datasets

    def children(unit) -> list:
        if isinstance(unit, Sido):
            return regions.sigungu_of(unit)
        return datasets.admin_dongs_by_sgg.get(unit.code, []) if isinstance(unit, Sigungu) else []

    return children


def _admm_code(unit) -> str:
    """The 10-digit 행정기관코드 of a 시도, 시군구 (their 법정동 codes) or 행정동."""
    return unit.admm_cd if isinstance(unit, AdminDong) else unit.region_cd


def _admm_describe(unit, prefix: str = "") -> dict[str, str]:
    """A unit's code and names as the 행정동 services spell them (``prefix``: mvin/mvt, capitalised after it)."""
    sido, sgg = _names(unit)
    admin = unit if isinstance(unit, AdminDong) else None
    values = (
        _admm_code(unit),
        sido.name,
        sgg.name if sgg else "",
        admin.name if admin else "",
    )
    names = ("admmCd", "ctpvNm", "sggNm", "dongNm")
    return {(prefix + n[0].upper() + n[1:] if prefix else n): v for n, v in zip(names, values)}


def _admm_unit(world, q: Query, param: str):
    """The 시도, 시군구 or 행정동 a 10-digit 행정기관코드 names (None: none; 시도/시군구 codes equal their 법정동 codes)."""
    code = _digits(q, param, 10)
    unit = world.regions.by_code.get(code)
    if isinstance(unit, Dong):
        unit = None  # a dong-level 법정동 code is not a 행정기관코드
    if unit is None and code.endswith("00"):
        unit = world.datasets.admin_dong_by_code.get(code[:8])
    return unit


def admm_population(world, q: Query) -> list[dict[str, Any]]:
    """주민등록 population per 행정동 (admmCd: a 10-digit 행정기관코드; 시도/시군구 codes equal their 법정동 codes)."""
    unit = _admm_unit(world, q, "admmCd")
    return _population_rows(world, q, unit, _admm_children(world), world.datasets.admin_population, _admm_describe)


_TRADE_BASIC = frozen(_DATA["_TRADE_BASIC"])


def _as_sent(row: Mapping[str, Any], fields: tuple[str, ...] | None) -> dict[str, Any]:
    """An apartment contract as the RTMS services send it: its fields in case-sensitive alphabetical order
    (``dealYear`` before ``dealingGbn``) and the rent term as ``YY.MM~YY.MM`` (measured responses, 2026)."""
    out = {k: row[k] for k in sorted(fields or row)}
    term = out.get("contractTerm")
    if term and len(term) == 13 and term[6] == "~":  # YYYYMM~YYYYMM as the shared complexes draw it
        out["contractTerm"] = f"{term[2:4]}.{term[4:6]}~{term[9:11]}.{term[11:13]}"
    return out


def _rtms(contracts: Callable[[Any, str, str, Any], list[dict[str, Any]]], fields: tuple[str, ...] | None = None):
    """A handler for one RTMS service: a 시군구's contracts of a month, optionally cut to ``fields``."""

    def handler(world, q: Query) -> list[dict[str, Any]]:
        rows = contracts(world.datasets, _digits(q, "LAWD_CD", 5), _month(q, "DEAL_YMD"), q.as_of)
        if not rows:
            raise NoData()
        return [_as_sent(row, fields) for row in rows]

    return handler


apt_trade = _rtms(DatasetWorld.apt_trades, _TRADE_BASIC)
apt_trade_detail = _rtms(DatasetWorld.apt_trades)
apt_rent = _rtms(DatasetWorld.apt_rents)


# ---------------------------------------------------------------------------
# Endpoints
# ---------------------------------------------------------------------------

STAN_REGIN = StanReginCdProtocol()
POPULATION = PopulationProtocol()
RTMS = RtmsProtocol()

_POPULATION_OUT = {"statsYm": "yearmonth", "ctpvNm": "sido_name", "sggNm": "sigungu_name"}

ENDPOINTS = [
    Endpoint(
        "datagokr_get_stan_regin_cd_list",
        PLATFORM,
        HOST,
        "/1741000/StanReginCd/getStanReginCdList",
        STAN_REGIN,
        stan_regin_cd,
        # locatadd_nm is a substring search over full names; locatjumin_cd is the 주민등록 code (the 행정동's
        # 행정기관코드 below a 시군구); adpt_de is the day a code took effect, years ago.
        inputs={"locatadd_nm": "region_name_part"},
        outputs={
            "region_cd": "region_cd",
            "locatjijuk_cd": "region_cd",
            "locathigh_cd": "region_cd",
            "locatjumin_cd": "admm_cd",
            "adpt_de": "past_date",
        },
    ),
    Endpoint(
        "datagokr_select_stdg_ppltn_hh_stus",
        PLATFORM,
        HOST,
        "/1741000/stdgPpltnHhStus/selectStdgPpltnHhStus",
        POPULATION,
        stdg_population,
        required=("stdgCd", "srchFrYm", "srchToYm"),
        inputs={"stdgCd": "region_cd", "srchFrYm": "yearmonth", "srchToYm": "yearmonth"},
        outputs={**_POPULATION_OUT, "stdgCd": "region_cd", "stdgNm": "dong_name", "admmCd": "admm_cd"},
    ),
    Endpoint(
        "datagokr_select_admm_ppltn_hh_stus",
        PLATFORM,
        HOST,
        "/1741000/admmPpltnHhStus/selectAdmmPpltnHhStus",
        POPULATION,
        admm_population,
        required=("admmCd", "srchFrYm", "srchToYm"),
        inputs={"admmCd": "admm_cd", "srchFrYm": "yearmonth", "srchToYm": "yearmonth"},
        outputs={**_POPULATION_OUT, "admmCd": "admm_cd"},
    ),
    *(
        Endpoint(
            tool,
            PLATFORM,
            HOST,
            f"/1613000/{service}/get{service}",
            RTMS,
            handler,
            required=("LAWD_CD", "DEAL_YMD"),
            inputs={"LAWD_CD": "lawd_cd", "DEAL_YMD": "yearmonth"},
            outputs={"sggCd": "lawd_cd", "umdNm": "dong_name", "dealYear": "year", **outputs},
        )
        for tool, service, handler, outputs in (
            ("datagokr_get_rtms_data_svc_apt_trade", "RTMSDataSvcAptTrade", apt_trade, {}),
            (
                "datagokr_get_rtms_data_svc_apt_trade_dev",
                "RTMSDataSvcAptTradeDev",
                apt_trade_detail,
                # the complex's lot: its 건축물대장 answers sigunguCd=sggCd, bjdongCd=umdCd, bun=bonbun, ji=bubun
                {"roadNmSggCd": "lawd_cd", "umdCd": "bjdong_cd", "bonbun": "lot_bun", "bubun": "lot_ji"},
            ),
            ("datagokr_get_rtms_data_svc_apt_rent", "RTMSDataSvcAptRent", apt_rent, {"roadnmsggcd": "lawd_cd"}),
        )
    ),
]

# ---------------------------------------------------------------------------
# Operations kept as table rows (kopa_replay/sim/tables/mois.yaml) and the world tables answering them
# ---------------------------------------------------------------------------


def _rtms_table(family: str):
    """The world table of one RTMS family: a 시군구's contracts of a month (world.rtms)."""

    def table(world, q: Query) -> list[dict[str, Any]]:
        return world.rtms.contracts(family, _digits(q, "LAWD_CD", 5), _month(q, "DEAL_YMD"), q.as_of)

    table.__name__ = f"rtms_{family}"
    return table


#: Shares of the residents in each ten-year band (0–9 … 100+), men and women: the 2025 pyramid, roughly.
_AGE_SHARES = {
    "male": (6.7, 9.4, 13.0, 13.3, 15.2, 16.6, 14.1, 7.6, 3.4, 0.6, 0.01),
    "feml": (6.2, 8.7, 11.8, 11.9, 14.3, 16.1, 14.6, 8.7, 6.0, 1.6, 0.03),
}
AGE_BANDS = tuple(range(0, 101, 10))


def _age_counts(world, key: tuple[str, ...], total: int, sex: str) -> dict[str, str]:
    """``total`` residents of one sex split over the ten-year bands, stable per region (largest remainder)."""
    shares = world.rng("mois.ages", sex, *key).dirichlet([s * 4 + 0.05 for s in _AGE_SHARES[sex]])
    raw = [total * float(s) for s in shares]
    counts = [int(r) for r in raw]
    for i in sorted(range(len(raw)), key=lambda i: counts[i] - raw[i])[: total - sum(counts)]:
        counts[i] += 1
    return {f"{sex}{band}AgeNmprCnt": str(n) for band, n in zip(AGE_BANDS, counts)}


def _by_age(base: Callable[[Any, Query], list[dict[str, Any]]], code: str):
    """The 성/연령별 variant of a population service: its rows with each sex split into ten-year bands."""

    def table(world, q: Query) -> list[dict[str, Any]]:
        out = []
        for row in base(world, q):
            key = (row[code], row["tong"])
            out.append(
                {
                    **row,
                    **_age_counts(world, key, int(row["maleNmprCnt"]), "male"),
                    **_age_counts(world, key, int(row["femlNmprCnt"]), "feml"),
                }
            )
        return out

    table.__name__ = f"{base.__name__}_by_age"
    return table


#: Births a month per registered resident (≈ 0.23 million births a year over ≈ 51 million: 2024–2025).
_BIRTHS_PER_RESIDENT_MONTH = 0.23 / 51 / 12
#: Deaths a month per registered resident (≈ 0.36 million a year over ≈ 51 million: 2024–2025).
_DEATHS_PER_RESIDENT_MONTH = 0.36 / 51 / 12
#: Residents who move across a 행정동's boundary in a month (≈ 6.3 million moves a year over ≈ 51 million), and
#: where they go: within their 시군구, to another 시군구 of their 시도, to another 시도 (KOSIS 국내인구이동, roughly).
_MOVERS_PER_RESIDENT_MONTH = 6.3 / 51 / 12
_MOVE_SHARES = {"sigungu": 0.55, "sido": 0.25, "country": 0.20}
#: Shares of households by members, 1 … 10 (10: ten or more): the 2025 주민등록 세대원수별 세대, roughly.
_HOUSEHOLD_SHARES = (41.8, 25.0, 16.3, 12.6, 3.2, 0.8, 0.2, 0.06, 0.03, 0.01)
_SINGLE_AGES = range(111)  # 만0세 … 만110세 이상


def _age_curve(*bumps: tuple[float, float, float], floor: float = 0.0, infants: float = 0.0) -> tuple[float, ...]:
    """Shares over single years of age 0 … 110: a floor, a weight falling off from birth, and (weight, peak,
    width) bumps, normalised."""
    weights = [
        floor + infants / (1 + age) + sum(w * math.exp(-(((age - peak) / width) ** 2) / 2) for w, peak, width in bumps)
        for age in _SINGLE_AGES
    ]
    return tuple(w / sum(weights) for w in weights)


#: Deaths fall mostly on the old, men younger than women; movers are young adults and their small children.
_DEATH_AGES = {"male": _age_curve((100, 80, 11), infants=0.3), "feml": _age_curve((100, 87, 11), infants=0.3)}
_MOVER_AGES = {
    "male": _age_curve((1, 31, 9), (0.35, 4, 5), floor=0.05),
    "feml": _age_curve((1, 29, 9), (0.35, 4, 5), floor=0.05),
}


def _by_sex_and_age(rng, total: int, male_share: float, ages: Mapping[str, tuple[float, ...]] | None) -> list[int]:
    """``total`` people drawn into [male, female] and, with ``ages``, then by single year: male 0 … 110, female 0 … 110."""
    male = int(rng.binomial(total, male_share))
    if ages is None:
        return [male, total - male]
    return [
        int(n) for sex, count in (("male", male), ("feml", total - male)) for n in rng.multinomial(count, ages[sex])
    ]


def _count_fields(vector: Sequence[int], ages: bool) -> dict[str, str]:
    """totNmprCnt, maleNmprCnt, femlNmprCnt (and the single-year fields) of a [male, female] or by-age vector."""
    if ages:
        male, feml = sum(vector[:111]), sum(vector[111:])
        by_age = {
            f"{sex}{age}AgeNmprCnt": str(vector[offset + age])
            for sex, offset in (("male", 0), ("feml", 111))
            for age in _SINGLE_AGES
        }
    else:
        (male, feml), by_age = vector, {}
    return {"totNmprCnt": str(male + feml), "maleNmprCnt": str(male), "femlNmprCnt": str(feml), **by_age}


class _Vital:
    """A 행정동 statistic counted where it happens and summed upward: a 행정동's counts are drawn, a 시군구's or a
    시도's are the sum of its dongs', and a dong's 통 (lv=4) split its counts by their residents — so every level
    of one query, and every query, adds up. ``draw(rng, admin, residents, households)`` gives a dong's vector."""

    def __init__(self, label: str, draw: Callable[..., list[int]], keep_empty: bool) -> None:
        self.label, self.draw, self.keep_empty = label, draw, keep_empty

    def rows(self, world, q: Query, fields: Callable[[list[int]], dict[str, str]]) -> LazyRows:
        unit = _admm_unit(world, q, "admmCd")
        months, level = _published_months(q), _level(q)
        if unit is None or not months:
            raise NoData()
        children, datasets = _admm_children(world), world.datasets
        dongs: dict[tuple[str, str], list[int]] = {}

        def dong(admin, month: str) -> list[int]:
            key = (_admm_code(admin), month)
            if key not in dongs:
                pop = datasets.admin_population(admin, month)
                rng = world.rng("mois", self.label, key[0], month)
                dongs[key] = self.draw(rng, pop["total"], pop["households"])
            return dongs[key]

        def summed(row_unit, month: str) -> list[int]:
            parts = [dong(leaf, month) for leaf in _descend(row_unit, 3, children)]
            return [sum(column) for column in zip(*parts)] if parts else []

        def tongs(admin, month: str) -> list[tuple[str, list[int]]]:
            pop = datasets.admin_population(admin, month)
            weights = [part["total"] for _, part in _tongs(world, admin.code, pop)]
            shares = [w / sum(weights) for w in weights] if sum(weights) else [1 / len(weights)] * len(weights)
            rng = world.rng("mois", self.label, "tong", _admm_code(admin), month)
            columns = [rng.multinomial(n, shares) for n in dong(admin, month)]
            return [(str(t), [int(column[t - 1]) for column in columns]) for t in range(1, len(weights) + 1)]

        keys = []
        for month in months:
            for row_unit in _descend(unit, min(level, 3), children):
                if level == 4 and _depth(row_unit) == 3:
                    keys += [(month, row_unit, tong, vector) for tong, vector in tongs(row_unit, month)]
                else:
                    keys.append((month, row_unit, "", summed(row_unit, month)))
        keys = [key for key in keys if self.keep_empty or sum(key[3])]

        def make(key) -> dict[str, Any]:
            month, row_unit, tong, vector = key
            place = _admm_describe(row_unit)
            return {
                **{k: place[k] for k in ("ctpvNm", "sggNm", "dongNm", "admmCd")},
                "tong": tong,
                "ban": "",
                "statsYm": month,
                **fields(vector),
            }

        return LazyRows(keys, make)


_BIRTHS = _Vital(
    "births",
    lambda rng, residents, _: _by_sex_and_age(
        rng, int(rng.poisson(residents * _BIRTHS_PER_RESIDENT_MONTH)), 0.512, None
    ),
    False,
)
_DEATHS = _Vital(
    "deaths",
    lambda rng, residents, _: _by_sex_and_age(
        rng, int(rng.poisson(residents * _DEATHS_PER_RESIDENT_MONTH)), 0.53, _DEATH_AGES
    ),
    False,
)


def _members(rng, _residents: int, households: int) -> list[int]:
    shares = rng.dirichlet([s * 4 + 0.05 for s in _HOUSEHOLD_SHARES])
    return [int(n) for n in rng.multinomial(households, shares / shares.sum())]


_HOUSEHOLDS = _Vital("members", _members, True)


def admm_births(world, q: Query) -> LazyRows:
    """출생등록자수 per 행정동 (or 통, or summed per 시군구/시도) and month: only the rows where a birth was registered."""
    return _BIRTHS.rows(world, q, lambda v: _count_fields(v, ages=False))


def admm_deaths(world, q: Query) -> LazyRows:
    """사망말소자수 per 행정동 (or 통, or summed) and month by sex and single year of age: only the rows with a death."""
    return _DEATHS.rows(world, q, lambda v: _count_fields(v, ages=True))


def admm_households_by_members(world, q: Query) -> LazyRows:
    """세대원수별 세대수 per 행정동 (or 통, or summed) and month: households by members (1 … 10 or more)."""
    return _HOUSEHOLDS.rows(
        world, q, lambda v: {"totHhCnt": str(sum(v)), **{f"hhNmprCnt{n}": str(c) for n, c in enumerate(v, start=1)}}
    )


_COUNTRY: dict[tuple[int, str, str], int] = {}


def _country(world, month: str, residents: Callable[[Any], int]) -> int:
    """The country's residents in a month (every 행정동 summed once per world and month, not per query)."""
    key = (world.seed, world.size, month)
    if key not in _COUNTRY:
        _COUNTRY[key] = sum(residents(sido) for sido in world.regions.sido)
        evict_oldest(_COUNTRY, 64)
    return _COUNTRY[key]


class _Moves:
    """Movers between two units of the same level in a month, one level's flows the sum of the next's.

    Between two 시도 the flow is drawn; a flow between 시도 is split over their 시군구 pairs (by residents), and a
    flow between 시군구 over their 행정동 pairs, so a 시군구 pair's movers are the sum of its dong pairs'. Moves
    inside a 시도 (between its 시군구) and inside a 시군구 (between its dongs) are drawn at that level. Each draw is
    keyed by the pair and the month, so any query answers the same numbers.
    """

    def __init__(self, world, month: str) -> None:
        self.world, self.month = world, month
        self.children = _admm_children(world)
        self._residents: dict[str, int] = {}
        self._splits: dict[tuple[str, str], dict[tuple[str, str], int]] = {}
        self.country = _country(world, month, self.residents)

    def residents(self, unit) -> int:
        code = _admm_code(unit)
        if code not in self._residents:
            leaves = _descend(unit, 3, self.children)
            self._residents[code] = sum(
                self.world.datasets.admin_population(leaf, self.month)["total"] for leaf in leaves
            )
        return self._residents[code]

    def _drawn(self, origin, dest, scope: str, pool: int) -> int:
        if pool <= 0:
            return 0
        rate = _MOVERS_PER_RESIDENT_MONTH * _MOVE_SHARES[scope] * self.residents(dest) / pool
        codes = (_admm_code(origin), _admm_code(dest), self.month)
        return int(self.world.rng("mois.moves", *codes).poisson(self.residents(origin) * rate))

    def _split(self, origin, dest) -> dict[tuple[str, str], int]:
        """The flow origin → dest split over the pairs of their children (by residents)."""
        key = (_admm_code(origin), _admm_code(dest))
        if key not in self._splits:
            pairs = [(o, d) for o in self.children(origin) for d in self.children(dest)]
            weights = [self.residents(o) * self.residents(d) for o, d in pairs]
            total, flow = sum(weights), self.flow(origin, dest)
            drawn = (
                self.world.rng("mois.moves.split", *key, self.month).multinomial(flow, [w / total for w in weights])
                if total and flow
                else [0] * len(pairs)
            )
            codes = [(_admm_code(o), _admm_code(d)) for o, d in pairs]
            self._splits[key] = dict(zip(codes, (int(n) for n in drawn)))
        return self._splits[key]

    def flow(self, origin, dest) -> int:
        """Movers from ``origin`` to ``dest`` (two units of one level, not the same) this month."""
        (o_sido, o_sgg), (d_sido, d_sgg) = _names(origin), _names(dest)
        if isinstance(origin, Sido):
            return self._drawn(origin, dest, "country", self.country - self.residents(origin))
        parent_o, parent_d = (o_sido, d_sido) if isinstance(origin, Sigungu) else (o_sgg, d_sgg)
        if parent_o is not parent_d:
            codes = (_admm_code(origin), _admm_code(dest))
            return self._split(parent_o, parent_d)[codes]
        scope = "sido" if isinstance(origin, Sigungu) else "sigungu"
        return self._drawn(origin, dest, scope, self.residents(parent_o) - self.residents(origin))


def _lifted(unit, level: int):
    """``unit``, or the 시도 / 시군구 it lies in when it is deeper than ``level``."""
    sido, sgg = _names(unit)
    if _depth(unit) > level:
        return sido if level == 1 else sgg
    return unit


#: the longest window the 인구이동 service answers (a measured client: more months fail the call)
_MOVES_MONTHS = 3


def admm_moves(world, q: Query) -> LazyRows:
    """인구이동: movers from each unit under ``mvtAdmmCd`` to each unit under ``mvinAdmmCd`` at level ``lv`` (1 시도,
    2 시군구, 3 행정동) per month, by sex and single year of age (drawn per row); only the pairs someone moved between.
    The flows are counted for the whole answer; a row's ages are drawn when its page is served."""
    into, out_of = _admm_unit(world, q, "mvinAdmmCd"), _admm_unit(world, q, "mvtAdmmCd")
    level = _level(q)
    if level == 4:
        raise BadParam("lv", "4")  # moves are counted between 행정동, not 통
    months = _published_months(q)
    if len(month_range(_month(q, "srchFrYm"), _month(q, "srchToYm"))) > _MOVES_MONTHS:
        raise BadParam("srchToYm", q.get("srchToYm") or "")
    if into is None or out_of is None or not months:
        raise NoData()
    # a code below the level stands for its region at that level (the service matches codes by prefix)
    into, out_of = (_lifted(unit, level) for unit in (into, out_of))
    keys = []
    for month in months:
        moves = _Moves(world, month)
        destinations = _descend(into, level, moves.children)
        for origin in _descend(out_of, level, moves.children):
            for dest in destinations:
                total = moves.flow(origin, dest) if dest is not origin else 0
                if total:
                    keys.append((month, origin, dest, total))

    def make(key) -> dict[str, Any]:
        month, origin, dest, total = key
        rng = world.rng("mois.movers", _admm_code(origin), _admm_code(dest), month)
        return {
            "statsYm": month,
            **_admm_describe(dest, "mvin"),
            **_admm_describe(origin, "mvt"),
            **_count_fields(_by_sex_and_age(rng, total, 0.51, _MOVER_AGES), ages=True),
        }

    return LazyRows(keys, make)


# -- 건축HUB: 건축물대장, 건축인허가, 주택인허가 (world.buildings) ------------------------------------------


def _lot_part(q: Query, name: str) -> str | None:
    """``bun`` / ``ji``: up to four digits (clients zero-fill them, ``0012``)."""
    value = q.get(name)
    if value is None or value == "":
        return None
    if not value.isdigit() or len(value) > 4:
        raise BadParam(name, value)
    return value


def _day(q: Query, name: str) -> str:
    value = q.get(name) or ""
    if value and (len(value) != 8 or not value.isdigit() or not 1 <= int(value[4:6]) <= 12):
        raise BadParam(name, value)
    return value


def _bldg_table(ops: Mapping[str, tuple[Callable, Callable]], name: str, label: str):
    """The world table of one 건축HUB operation: a 법정동's rows (or one lot's), made page by page."""
    count, make = ops[name]

    def table(world, q: Query):
        place = world.buildings.place(_digits(q, "sigunguCd", 5), _digits(q, "bjdongCd", 5))
        plat = q.get("platGbCd") or None
        if plat is not None and plat not in ("0", "1", "2"):
            raise BadParam("platGbCd", plat)
        bun, ji, since, until = _lot_part(q, "bun"), _lot_part(q, "ji"), _day(q, "startDate"), _day(q, "endDate")
        if place is None:
            raise NoData()
        summary, lots = world.buildings.select(place, plat, bun, ji, since, until)
        return world.buildings.rows(place, lots, count(summary), make)

    table.__name__ = f"{label}_{name}"
    return table


# -- 공동주택 단지 목록 (AptListService3) and 기본·상세 정보 (AptBasisInfoServiceV4): the traded complexes ----------


def _complex_row(world, sgg: Sigungu, index: int) -> dict[str, Any]:
    apt = world.datasets.complexes(sgg.code)[index]
    return {
        "kaptCode": kapt_code(sgg.code, index),
        "kaptName": apt.name,
        "bjdCode": apt.dong.code,
        "as1": sgg.sido.name,
        "as2": sgg.name,
        "as3": apt.dong.name,
        "as4": "",
    }


def apt_list(world, q: Query) -> LazyRows:
    """단지 목록: every complex (getTotalAptList3) or those of a 시도, 시군구, 법정동 or road (12-digit 도로명코드)."""
    sido, sgg_code, bjd, road = q.get("sidoCode"), q.get("sigunguCode"), q.get("bjdCode"), q.get("roadCode")
    code = sgg_code or (bjd or road or "")[:5]
    units = [s for s in world.regions.sigungu if (s.code == code if code else sido in (None, s.sido.code))]
    keys = [
        (sgg, i)
        for sgg in units
        for i, apt in enumerate(world.datasets.complexes(sgg.code))
        if (bjd is None or apt.dong.code == bjd) and (road is None or apt.road_code == road)
    ]
    if not keys:
        raise NoData()
    return LazyRows(keys, lambda key: _complex_row(world, *key))


def _kapt(world, q: Query):
    """The complex a ``kaptCode`` names and its lot in the building register."""
    code = q.require("kaptCode")
    sgg = next((s for s in world.regions.sigungu if s.code == code[1:6]), None)
    if sgg is None or len(code) != 9 or not code[6:].isdigit():
        raise NoData()
    complexes = world.datasets.complexes(sgg.code)
    index = int(code[6:])
    if index >= len(complexes):
        raise NoData()
    apt = complexes[index]
    place = world.buildings.place(sgg.code, apt.dong.code[5:])
    lot = world.buildings.lot_of(place, apt.bonbun, apt.bubun) if place else None
    if lot is None:
        raise NoData()
    return sgg, index, apt, lot


def apt_basis(world, q: Query) -> list[dict[str, Any]]:
    return [kapt_basis(*_kapt(world, q))]


def apt_detail(world, q: Query) -> list[dict[str, Any]]:
    return [kapt_detail(*_kapt(world, q))]


TABLES: dict[str, Callable[[Any, Query], Any]] = {
    **{f"rtms_{key}": _rtms_table(key) for key in FAMILIES},
    "stdg_population_by_age": _by_age(stdg_population, "stdgCd"),
    "admm_population_by_age": _by_age(admm_population, "admmCd"),
    "admm_births": admm_births,
    "admm_deaths": admm_deaths,
    "admm_moves": admm_moves,
    "admm_households_by_members": admm_households_by_members,
    **{f"bldg_{name}": _bldg_table(REGISTER, name, "bldg") for name in REGISTER},
    **{f"arch_pms_{name}": _bldg_table(ARCH_PERMITS, name, "arch_pms") for name in ARCH_PERMITS},
    **{f"hs_pms_{name}": _bldg_table(HOUSING_PERMITS, name, "hs_pms") for name in HOUSING_PERMITS},
    "apt_list": apt_list,
    "apt_basis": apt_basis,
    "apt_detail": apt_detail,
}


class KaptProtocol(DataGoKrProtocol):
    """공동주택 단지 services: JSON unless ``_type``/``type`` asks for XML; the 기본·상세 정보 answer one
    ``body.item`` (no list, no paging), the lists the gateway's ``body.items.item``."""

    name = "kapt"

    def __init__(self) -> None:
        super().__init__(format_param="_type", no_data="empty", default_size=10, max_size=None)

    def wants_xml(self, request, endpoint, path_params) -> bool:
        return (request.param_ci("_type") or request.param_ci("type") or "json").lower() == "xml"

    def params(self, ctx: Context) -> dict[str, str]:
        values = super().params(ctx)
        values.pop("type", None)
        return values

    def ok(self, ctx: Context, records: list[dict[str, Any]], total: int, meta: Mapping[str, Any]) -> Doc:
        if ctx.endpoint is not None and ctx.endpoint.options.get("single") and records:
            return self._envelope(ctx, "00", {"item": records[0]})
        return super().ok(ctx, records, total, meta)


#: 건축HUB services: ``_type=json`` for JSON (XML by default), code 00, "nothing found" as an empty page;
#: ``numOfRows`` at most 100 (the 건축물대장 guide's limit, as clients that read it page).
HUB = DataGoKrProtocol(format_param="_type", no_data="empty", default_size=10, max_size=100)
KAPT = KaptProtocol()
_PROTOCOLS = {"rtms": RTMS, "ppltn": POPULATION, "hub": HUB, "kapt": KAPT}
ENDPOINTS += [
    replace(ep, protocol=_PROTOCOLS[ep.options.get("protocol", "rtms")]) for ep in endpoints("mois", HOST, RTMS, TABLES)
]

#: The services before 건축HUB (retired in 2024–2025, still called by clients such as PublicDataReader 1.1.0):
#: ``BldRgstService_v2``, ``ArchPmsService_v2`` and 주택인허가 ``/1611000/HsPmsService`` — the same operations and
#: items under the old paths, answered by the HUB endpoints.
_RETIRED = {
    "/1613000/BldRgstService_v2/": "/1613000/BldRgstHubService/",
    "/1613000/ArchPmsService_v2/": "/1613000/ArchPmsHubService/",
    "/1611000/HsPmsService/": "/1613000/HsPmsHubService/",
}
_BY_ROUTE = {ep.route: ep for ep in ENDPOINTS}


def _retired(route: str) -> Endpoint | None:
    for old, new in _RETIRED.items():
        if route.startswith(old):
            return _BY_ROUTE.get(new + route[len(old) :])
    return None


RESOLVERS = {HOST: _retired}

#: Requests to unknown paths on the gateway get its XML answer; other platforms may own the host entry.
HOSTS = {HOST: DataGoKrProtocol(format_param="type")}
