"""KRX Open API (한국거래소 정보데이터시스템) — https://data-dbg.krx.co.kr/svc/apis/{group}/{svc}?basDd=YYYYMMDD

The key travels in the HTTP header ``AUTH_KEY``; several public clients send it as the
query parameter ``AUTH_KEY`` instead, which is taken as well (the header wins). ``basDd`` comes in the query of
a GET or in a POST's JSON body (``{"basDd": "20260828"}``, as the krxon clients send it). There is no pagination: one
business date comes whole in ``{"OutBlock_1": [...]}``, every value a string
of plain digits ("4905", "-80", "-1.60"); weekends, holidays and dates whose
data is not out yet (the day itself: KRX publishes the next morning) give
``{"OutBlock_1": []}``. ``ISU_CD`` is the 6-digit short code in the daily
trade services but the 12-character ISIN in the base-info services — the
real binding trap (``ISU_SRT_CD`` holds the short code there).

Responses are JSON; a path ending in ``.xml`` gets the same document as XML
(``<response><OutBlock_1>…</OutBlock_1>…</response>``, one element per row).

Errors — only the invalid-key answer is documented by users of the real
API; the other shapes are this simulator's choice, kept in the same style:

=================  ======  ===========================================================
kind               HTTP    body (always JSON)
=================  ======  ===========================================================
invalid key        401     ``{"respCode":"401","respMsg":"Unauthorized Key"}``
missing/bad basDd  400     ``{"respCode":"400","respMsg":"Bad Request: basDd"}``
unknown service    404     ``{"respCode":"404","respMsg":"Not Found"}``
rate limit         429     ``{"respCode":"429","respMsg":"Too Many Requests"}``
maintenance        503     ``{"respCode":"503","respMsg":"Service Unavailable"}``
server error       500     ``{"respCode":"500","respMsg":"Internal Server Error"}``
no data            200     ``{"OutBlock_1":[]}``
=================  ======  ===========================================================
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any

from kopa_replay.sim.core import Context, Doc, Endpoint, ErrorKind, NoData, Protocol, Query
from kopa_replay.sim.messages import SimRequest
from kopa_replay.sim.world.calendar import ymd
from kopa_replay.sim.world.finance import Company

__all__ = ["KrxProtocol", "ENDPOINTS", "HOSTS"]

HOST = "data-dbg.krx.co.kr"

_ERRORS = {
    ErrorKind.INVALID_KEY: (401, "Unauthorized Key"),
    ErrorKind.MISSING_PARAM: (400, "Bad Request"),
    ErrorKind.BAD_PARAM: (400, "Bad Request"),
    ErrorKind.NOT_FOUND: (404, "Not Found"),
    ErrorKind.RATE_LIMIT: (429, "Too Many Requests"),
    ErrorKind.MAINTENANCE: (503, "Service Unavailable"),
    ErrorKind.SERVER_ERROR: (500, "Internal Server Error"),
}


class KrxProtocol(Protocol):
    """One whole business date per response under ``OutBlock_1``; errors as respCode/respMsg."""

    name = "krx"
    key_header = "AUTH_KEY"
    key_params = ("AUTH_KEY",)  # what some clients send instead of the header

    def route(self, request: SimRequest) -> tuple[str, dict[str, str]]:
        path = request.path
        for ext in (".json", ".xml"):
            if path.endswith(ext):
                return path[: -len(ext)], {}
        return path, {}

    def wants_xml(self, request: SimRequest, endpoint, path_params) -> bool:
        return request.path.endswith(".xml")

    def params(self, ctx: Context) -> dict[str, str]:
        # The arguments may come as a POST's JSON object body ({"basDd": "20260828"}) instead of the query, as the
        # krxon clients send them (krxon docs/endpoints.md: POST, Content-Type application/json); the query wins.
        values = super().params(ctx)
        if ctx.request.method == "POST" and ctx.request.body:
            try:
                body = json.loads(ctx.request.body)
            except ValueError:
                body = None
            if isinstance(body, dict):
                for name, value in body.items():
                    if isinstance(value, (str, int)) and name.lower() != "auth_key":
                        values.setdefault(name, str(value))
        return values

    def ok(self, ctx: Context, records: list[dict[str, Any]], total: int, meta: Mapping[str, Any]) -> Doc:
        return Doc({"OutBlock_1": records}, xml=ctx.xml, xml_root="response")

    def error(self, ctx: Context, kind: str, detail: str = "") -> Doc:
        if kind == ErrorKind.NO_DATA:
            return self.ok(ctx, [], 0, {})
        status, message = _ERRORS[kind]
        if detail and status == 400:
            message = f"{message}: {detail}"
        return Doc({"respCode": ctx.code(str(status)), "respMsg": message}, status=status)


PROTOCOL = KrxProtocol()


def _trading_day(world, q: Query):
    """basDd as a date whose data is out (a business day before the as-of date), else no data."""
    day = q.date("basDd", required=True)
    if not world.finance.is_visible(day, q.as_of):
        raise NoData()
    return day


def _market(world, market: str) -> list[Company]:
    return [c for c in world.finance.listed if c.market == market]


def _daily_trades(market: str) -> Callable[[Any, Query], list[dict[str, Any]]]:
    """sto/{stk,ksq,knx}_bydd_trd: every stock of the market on one day, by short code."""

    def handler(world, q: Query) -> list[dict[str, Any]]:
        day = _trading_day(world, q)
        rows = []
        for c in _market(world, market):
            bar = world.finance.bar(c, day)
            rows.append(
                {
                    "BAS_DD": ymd(day),
                    "ISU_CD": c.stock_code,
                    "ISU_NM": c.corp_name,
                    "MKT_NM": market,
                    "SECT_TP_NM": c.section,
                    "TDD_CLSPRC": str(bar["close"]),
                    "CMPPREVDD_PRC": str(bar["vs"]),
                    "FLUC_RT": f"{bar['vs'] / bar['prev'] * 100:.2f}",
                    "TDD_OPNPRC": str(bar["open"]),
                    "TDD_HGPRC": str(bar["high"]),
                    "TDD_LWPRC": str(bar["low"]),
                    "ACC_TRDVOL": str(bar["volume"]),
                    "ACC_TRDVAL": str(bar["value"]),
                    "MKTCAP": str(bar["mktcap"]),
                    "LIST_SHRS": str(bar["shares"]),
                }
            )
        return rows

    handler.__name__ = f"{market.lower()}_daily_trades"
    return handler


def _base_info(market: str) -> Callable[[Any, Query], list[dict[str, Any]]]:
    """sto/{stk,ksq}_isu_base_info: listed issues with ISIN (ISU_CD) and short code (ISU_SRT_CD)."""

    def handler(world, q: Query) -> list[dict[str, Any]]:
        day = ymd(_trading_day(world, q))
        return [
            {
                "ISU_CD": c.isin,
                "ISU_SRT_CD": c.stock_code,
                "ISU_NM": f"{c.corp_name}보통주",
                "ISU_ABBRV": c.corp_name,
                "ISU_ENG_NM": c.corp_eng_name,
                "LIST_DD": c.list_dt,
                "MKT_TP_NM": market,
                "SECUGRP_NM": "주권",
                "SECT_TP_NM": c.section,
                "KIND_STKCERT_TP_NM": "보통주",
                "PARVAL": str(c.par_value),
                "LIST_SHRS": str(c.shares),
            }
            for c in _market(world, market)
            if c.list_dt <= day
        ]

    handler.__name__ = f"{market.lower()}_base_info"
    return handler


def _index_trades(clss: str) -> Callable[[Any, Query], list[dict[str, Any]]]:
    """idx/{kospi,kosdaq}_dd_trd: the market's index family on one day."""

    def handler(world, q: Query) -> list[dict[str, Any]]:
        fin = world.finance
        day = _trading_day(world, q)
        col = fin.day_column(day)
        rows = []
        for series in fin.index_series:
            if series["clss"] != clss:
                continue
            close, prev = float(series["close"][col]), float(series["close"][col - 1])
            rows.append(
                {
                    "BAS_DD": ymd(day),
                    "IDX_CLSS": clss,
                    "IDX_NM": series["name"],
                    "CLSPRC_IDX": f"{close:.2f}",
                    "CMPPREVDD_IDX": f"{close - prev:.2f}",
                    "FLUC_RT": f"{(close - prev) / prev * 100:.2f}",
                    "OPNPRC_IDX": f"{float(series['open'][col]):.2f}",
                    "HGPRC_IDX": f"{float(series['high'][col]):.2f}",
                    "LWPRC_IDX": f"{float(series['low'][col]):.2f}",
                    "ACC_TRDVOL": str(int(series["volume"][col])),
                    "ACC_TRDVAL": str(int(series["value"][col])),
                    "MKTCAP": str(int(series["mktcap"][col])),
                }
            )
        return rows

    handler.__name__ = f"{clss.lower()}_index_trades"
    return handler


_DAY_IN = {"basDd": "business_date"}
_TRADE_OUT = {"BAS_DD": "business_date", "ISU_CD": "stock_code", "ISU_NM": "corp_name"}
_BASE_OUT = {"ISU_CD": "isin", "ISU_SRT_CD": "stock_code", "ISU_ABBRV": "corp_name", "LIST_DD": "past_date"}


def _endpoint(tool: str, group: str, service: str, handler, outputs) -> Endpoint:
    return Endpoint(
        tool, "krx", HOST, f"/svc/apis/{group}/{service}", PROTOCOL, handler, ("basDd",), dict(_DAY_IN), dict(outputs)
    )


def _market_rows(kind: str, service: str) -> Callable[[Any, Query], list[dict[str, Any]]]:
    """Every other service: the market sub-world's rows of one family on one day (kopa_replay/sim/world/market.py)."""

    def handler(world, q: Query) -> list[dict[str, Any]]:
        return world.market.rows(kind, service, _trading_day(world, q))

    handler.__name__ = f"{service}_rows"
    return handler


_DAY_OUT = {"BAS_DD": "business_date"}
_WARRANT_OUT = {**_DAY_OUT, "TARSTK_ISU_SRT_CD": "stock_code", "TARSTK_ISU_NM": "corp_name"}

#: (group, service, world family, ground-truth outputs) of the services the market sub-world answers;
#: fields per service: kopa_replay/sim/spec/krx.yaml
_MARKET_SERVICES = (
    ("idx", "krx_dd_trd", "index", _DAY_OUT),
    ("idx", "bon_dd_trd", "bond_index", _DAY_OUT),
    ("idx", "drvprod_dd_trd", "index", _DAY_OUT),
    ("sto", "sw_bydd_trd", "warrant", _WARRANT_OUT),
    ("sto", "sr_bydd_trd", "warrant", _WARRANT_OUT),
    ("etp", "etf_bydd_trd", "etf", _DAY_OUT),
    ("etp", "etn_bydd_trd", "etn", _DAY_OUT),
    ("etp", "elw_bydd_trd", "elw", {**_DAY_OUT, "ULY_NM": "corp_name"}),
    ("bon", "kts_bydd_trd", "bond", _DAY_OUT),
    ("bon", "bnd_bydd_trd", "bond", _DAY_OUT),
    ("bon", "smb_bydd_trd", "bond", _DAY_OUT),
    ("drv", "fut_bydd_trd", "future", _DAY_OUT),
    ("drv", "eqsfu_stk_bydd_trd", "stock_future", _DAY_OUT),
    ("drv", "eqkfu_ksq_bydd_trd", "stock_future", _DAY_OUT),
    ("drv", "opt_bydd_trd", "option", _DAY_OUT),
    ("drv", "eqsop_bydd_trd", "stock_option", _DAY_OUT),
    ("drv", "eqkop_bydd_trd", "stock_option", _DAY_OUT),
    ("gen", "oil_bydd_trd", "oil", _DAY_OUT),
    ("gen", "gold_bydd_trd", "gold", _DAY_OUT),
    ("gen", "ets_bydd_trd", "ets", _DAY_OUT),
    ("esg", "sri_bond_info", "sri_bond", _DAY_OUT),
    ("esg", "esg_etp_info", "esg_etp", _DAY_OUT),
    ("esg", "esg_index_info", "esg_index", _DAY_OUT),
)

ENDPOINTS = [
    _endpoint("krx_stk_bydd_trd", "sto", "stk_bydd_trd", _daily_trades("KOSPI"), _TRADE_OUT),
    _endpoint("krx_ksq_bydd_trd", "sto", "ksq_bydd_trd", _daily_trades("KOSDAQ"), _TRADE_OUT),
    _endpoint("krx_knx_bydd_trd", "sto", "knx_bydd_trd", _daily_trades("KONEX"), _TRADE_OUT),
    _endpoint("krx_stk_isu_base_info", "sto", "stk_isu_base_info", _base_info("KOSPI"), _BASE_OUT),
    _endpoint("krx_ksq_isu_base_info", "sto", "ksq_isu_base_info", _base_info("KOSDAQ"), _BASE_OUT),
    _endpoint("krx_kospi_dd_trd", "idx", "kospi_dd_trd", _index_trades("KOSPI"), {"BAS_DD": "business_date"}),
    _endpoint("krx_kosdaq_dd_trd", "idx", "kosdaq_dd_trd", _index_trades("KOSDAQ"), {"BAS_DD": "business_date"}),
    _endpoint("krx_knx_isu_base_info", "sto", "knx_isu_base_info", _base_info("KONEX"), _BASE_OUT),
    *(_endpoint(f"krx_{svc}", grp, svc, _market_rows(kind, svc), out) for grp, svc, kind, out in _MARKET_SERVICES),
]

HOSTS = {HOST: PROTOCOL}
