"""금융위원회 services on the data.go.kr gateway — https://apis.data.go.kr/1160100/service/…

Seven hand-written operations of five services here, the rest kept as data (kopa_replay/sim/tables/fsc.yaml,
answered by the world tables of fsc_tables.py); all speak the gateway's envelope
(:class:`~kopa_replay.sim.protocols.DataGoKrProtocol` with ``resultType=json``;
XML otherwise): ``response.header.{resultCode,resultMsg}`` and
``response.body.{items.item, numOfRows, pageNo, totalCount}``, a single item
sent as an object and no items as ``""`` with code 00, gateway errors (unknown
key, unknown service, rate limit) as ``OpenAPI_ServiceResponse`` XML whatever
format was asked. Every value is a string.

Quirks kept: ``endBasDt`` is exclusive while ``beginBasDt`` is inclusive;
a price for day D exists only from the next day on; a query by ``basDt``
alone returns every listed company for that day over many pages;
getCorpOutline_V2 matches ``corpNm`` as a substring of the registered 법인명
("(주)라이트론"), getItemInfo's ``corpNm`` only exactly; the financial
services take the 13-digit 법인등록번호 (``crno``), not DART's corp_code —
a corp_code or a name in its place finds nothing.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import Any

from kopa_replay.sim.core import BadParam, Context, Doc, Endpoint, ErrorKind, Query
from kopa_replay.sim.platforms.fsc_tables import TABLES
from kopa_replay.sim.platforms.fsc_tables import days as _days
from kopa_replay.sim.protocols import DataGoKrProtocol
from kopa_replay.sim.tables import endpoints
from kopa_replay.sim.world.calendar import previous_business_day, ymd
from kopa_replay.sim.world.finance import IFRS_ACCOUNTS, Company, Grid, LazyRows
from kopa_replay.sim.world.fmt import rate

__all__ = ["ENDPOINTS", "HOSTS", "PROTOCOL"]

HOST = "apis.data.go.kr"
PROTOCOL = DataGoKrProtocol(format_param="resultType", no_data="empty")


class TableListProtocol(DataGoKrProtocol):
    """금융통계 (국내은행정보): ``response.body.tableList[]``, one table per ``title`` with its own
    ``totalCount`` and ``items.item`` (a list, ``[]`` when empty), each paged on its own by ``pageNo`` and
    ``numOfRows``, which the header repeats (a measured answer; with a ``title`` there is one table)."""

    name = "fsc_table_list"

    def __init__(self) -> None:
        super().__init__(format_param="resultType", no_data="empty")

    def page(self, ctx: Context, records: Sequence[dict[str, Any]], params: Mapping[str, str]) -> Doc:
        offset, limit, meta = self.window(ctx, params)
        tables: dict[str, list[dict[str, Any]]] = {}
        for record in records:
            tables.setdefault(str(record.get("title") or ""), []).append(record)
        if not tables:
            tables[params.get("title") or ""] = []
        listed = [
            {"title": title, "totalCount": len(rows), "items": {"item": rows[offset : offset + limit]}}
            for title, rows in tables.items()
        ]
        doc = self._envelope(ctx, "00", {"tableList": listed})
        envelope = doc.body if ctx.xml else doc.body["response"]
        envelope["header"].update(pageNo=str(meta["page"]), numOfRows=str(meta["size"]))
        return doc

    def error(self, ctx: Context, kind: str, detail: str = "") -> Doc:
        if kind == ErrorKind.NO_DATA:  # nothing found: the asked table, empty ("items": {"item": []})
            try:
                return self.page(ctx, [], self.params(ctx))
            except BadParam:
                pass
        return super().error(ctx, kind, detail)


TABLE_LIST = TableListProtocol()
_BASE = "/1160100/service"
_MARKETS = ("KOSPI", "KOSDAQ", "KONEX")

# -- selections shared by the market-data services --------------------------------


def _matches(value: str, exact: str | None, like: str | None) -> bool:
    return (exact is None or value == exact) and (like is None or like in value)


#: (Company attribute, exact parameter, substring parameter) of each stock filter
_PRICE_FILTERS = (
    ("stock_code", "srtnCd", "likeSrtnCd"),
    ("isin", "isinCd", None),
    ("corp_name", "itmsNm", "likeItmsNm"),
)
_LISTING_FILTERS = (
    ("stock_code", "srtnCd", "likeSrtnCd"),
    ("isin", "isinCd", "likeIsinCd"),
    ("corp_name", "itmsNm", "likeItmsNm"),
    ("crno", "crno", None),
    ("registry_name", "corpNm", "likeCorpNm"),
)


def _listed(world, q: Query, filters: tuple[tuple[str, str, str | None], ...]) -> list[Company]:
    """Listed companies passing the service's stock filters and mrktCls, by short code."""
    fin = world.finance
    market = q.get("mrktCls")
    if market is not None and market not in _MARKETS:
        return []
    wanted = [(attr, q.get(exact), q.get(like) if like else None) for attr, exact, like in filters]
    wanted = [w for w in wanted if w[1] is not None or w[2] is not None]
    code = q.get("srtnCd")
    pool: Sequence[Company] = ([fin.by_stock_code[code]] if code in fin.by_stock_code else []) if code else fin.listed
    return [
        c
        for c in pool
        if (market is None or c.market == market)
        and all(_matches(getattr(c, attr), exact, like) for attr, exact, like in wanted)
    ]


def _market_rows(make: Callable[[Any, Company, dt.date], dict[str, Any]], filters):
    """A handler over (day, company): newest day first, companies by short code within a day."""

    def handler(world, q: Query) -> Sequence[dict[str, Any]]:
        days = _days(world, q)
        companies = _listed(world, q, filters) if days else []
        return LazyRows(Grid(days, companies), lambda key: make(world, key[1], key[0]))

    handler.__name__ = make.__name__
    return handler


def price_item(world, company: Company, day: dt.date) -> dict[str, Any]:
    bar = world.finance.bar(company, day)
    return {
        "basDt": ymd(day),
        "srtnCd": company.stock_code,
        "isinCd": company.isin,
        "itmsNm": company.corp_name,
        "mrktCtg": company.market,
        "clpr": str(bar["close"]),
        "vs": str(bar["vs"]),
        "fltRt": rate(bar["vs"] / bar["prev"] * 100),
        "mkp": str(bar["open"]),
        "hipr": str(bar["high"]),
        "lopr": str(bar["low"]),
        "trqu": str(bar["volume"]),
        "trPrc": str(bar["value"]),
        "lstgStCnt": str(bar["shares"]),
        "mrktTotAmt": str(bar["mktcap"]),
    }


def listing_item(world, company: Company, day: dt.date) -> dict[str, Any]:
    return {
        "basDt": ymd(day),
        "srtnCd": company.stock_code,
        "isinCd": company.isin,
        "mrktCtg": company.market,
        "itmsNm": company.corp_name,
        "crno": company.crno,
        "corpNm": company.registry_name,
    }


# -- company outline ----------------------------------------------------------------

_MARKET_CODES = {"Y": ("P", "유가"), "K": ("A", "코스닥"), "N": ("K", "코넥스"), "E": ("E", "기타")}


def outline_item(world, company: Company) -> dict[str, Any]:
    """getCorpOutline_V2 fields; DART's corp_code rides along as fssCorpUnqNo."""
    fin = world.finance
    market_code, market_name = _MARKET_CODES[company.corp_cls]
    seed = int(company.corp_code)
    if company.listed:
        prof = fin.profile(company)
        employees, tenure, salary = prof["employees"], prof["tenure"], prof["salary"]
    else:
        employees, tenure, salary = 5 + seed % 240, 2.0 + seed % 90 / 10, 3.2e7 + seed % 41 * 1e6
    changed = f"{company.modify_date[:4]}/{company.modify_date[4:6]}/{company.modify_date[6:]}"
    listing = {"KOSPI": "enpXchgLstgDt", "KOSDAQ": "enpKosdaqLstgDt", "KONEX": "enpKrxLstgDt"}.get(company.market)
    item = {
        "crno": company.crno,
        "corpNm": company.registry_name,
        "corpEnsnNm": company.corp_eng_name,
        "enpPbanCmpyNm": company.corp_name,
        "enpRprFnm": company.ceo,
        "corpRegMrktDcd": market_code,
        "corpRegMrktDcdNm": market_name,
        "corpDcd": "31",
        "corpDcdNm": "주식회사",
        "bzno": company.bizr_no,
        "enpOzpno": f"{(seed * 7) % 63000 + 1000:05d}",
        "enpBsadr": company.address,
        "enpDtadr": f"{2 + seed % 14}층",
        "enpHmpgUrl": company.homepage,
        "enpTlno": company.phone,
        "enpFxno": company.fax,
        "sicNm": company.sector,
        "enpEstbDt": company.est_dt,
        "enpStacMm": company.acc_mt,
        "enpXchgLstgDt": "",
        "enpXchgLstgAbolDt": "",
        "enpKosdaqLstgDt": "",
        "enpKosdaqLstgAbolDt": "",
        "enpKrxLstgDt": "",
        "enpKrxLstgAbolDt": "",
        "smenpYn": "N" if company.market == "KOSPI" or employees > 300 else "Y",
        "enpMntrBnkNm": ("산업은행", "기업은행", "우리은행", "신한은행", "하나은행", "국민은행")[seed % 6],
        "enpEmpeCnt": str(employees),
        "empeAvgCnwkTermCtt": f"{tenure:.1f}",
        "enpPn1AvgSlryAmt": str(int(salary)),
        "actnAudpnNm": ("삼정회계법인", "삼일회계법인", "안진회계법인", "한영회계법인", "대주회계법인")[seed % 5],
        "audtRptOpnnCtt": "적정",
        "enpMainBizNm": company.sector,
        "fssCorpUnqNo": company.corp_code,
        "fssCorpChgDtm": changed,
        "fstOpegDt": "2019/07/01",
        "lastOpegDt": changed,
    }
    if listing:
        item[listing] = company.list_dt
    return item


def corp_outlines(world, q: Query) -> Sequence[dict[str, Any]]:
    """By crno (exact) or corpNm (a substring of the registered name); both optional."""
    fin = world.finance
    crno, name = q.get("crno"), q.get("corpNm")
    if crno is not None:
        pool: Sequence[Company] = [fin.by_crno[crno]] if crno in fin.by_crno else []
    else:
        pool = fin.companies
    if name is not None:
        pool = [c for c in pool if name in c.registry_name]
    return LazyRows(pool, lambda company: outline_item(world, company))


# -- financial statements ---------------------------------------------------------

_STATEMENT_KINDS = (("110", "연결", True), ("120", "별도", False))
_FINANCIAL = "649"  # KSIC 기타 금융업: the financial companies


def _bizyear(q: Query) -> str | None:
    year = q.get("bizYear")
    if year is not None and not (len(year) == 4 and year.isdigit()):
        raise BadParam("bizYear", year)
    return year


def _statements(world, q: Query, financial: bool = False) -> list[tuple[Company, int, str, str, bool]]:
    """(company, year, fnclDcd, fnclDcdNm, consolidated) of every annual statement the query covers.

    A statement exists once the company's 사업보고서 for that year is filed. ``financial`` keeps the
    financial companies (KSIC 649) only: 금융회사재무신용정보.
    """
    fin = world.finance
    crno, year = q.get("crno"), _bizyear(q)
    companies = ([fin.by_crno[crno]] if crno in fin.by_crno else []) if crno is not None else fin.listed
    out = []
    for company in companies:
        if not company.listed or (financial and company.induty_code != _FINANCIAL):
            continue
        for y in ("2025", "2024") if year is None else (year,):
            if fin.periodic(company, y, "11011", q.as_of) is None:
                continue
            for code, name, consolidated in _STATEMENT_KINDS:
                if consolidated and not company.has_cfs:
                    continue
                out.append((company, int(y), code, name, consolidated))
    return out


def summary_statements(world, q: Query, financial: bool = False) -> Sequence[dict[str, Any]]:
    fin = world.finance

    def item(key: tuple[Company, int, str, str, bool]) -> dict[str, Any]:
        company, year, code, name, consolidated = key
        v = fin.period_values(company, year, 4, consolidated)
        return {
            "basDt": f"{year}1231",
            "crno": company.crno,
            "curCd": "KRW",
            "bizYear": str(year),
            "fnclDcd": code,
            "fnclDcdNm": name,
            "enpSaleAmt": str(v["revenue"]),
            "enpBzopPft": str(v["op"]),
            "iclsPalClcAmt": str(v["pretax"]),
            "enpCrtmNpf": str(v["net"]),
            "enpTastAmt": str(v["assets"]),
            "enpTdbtAmt": str(v["debt"]),
            "enpTcptAmt": str(v["equity"]),
            "enpCptlAmt": str(v["capital"]),
            "fnclDebtRto": f"{v['debt'] / v['equity'] * 100:.2f}" if v["equity"] > 0 else "",
        }

    return LazyRows(_statements(world, q, financial), item)


#: getFnCoSummFinaStat_V2 spells the summary's amounts as a financial company's (fnco…) where it differs
_FNCO_SUMMARY = {
    "fncoSaleAmt": "enpSaleAmt",
    "fncoBzopPft": "enpBzopPft",
    "fncoCrtmNpf": "enpCrtmNpf",
    "fncoTastAmt": "enpTastAmt",
    "fncoTcptAmt": "enpTcptAmt",
    "fncoCptlAmt": "enpCptlAmt",
    "fncoDebtRto": "fnclDebtRto",
}


def fnco_summaries(world, q: Query) -> Sequence[dict[str, Any]]:
    """금융회사요약재무제표: the summary statements of the listed financial companies, from the 사업보고서."""
    base = summary_statements(world, q, financial=True)

    def item(i: int) -> dict[str, Any]:
        row = base[i]
        return {**row, **{k: row[v] for k, v in _FNCO_SUMMARY.items()}, "rptCd": "11011", "rptCdNm": "사업보고서"}

    return LazyRows(range(len(base)), item)


#: getBs_V2 / getIncoStat_V2: (account_id, account_nm, key) of DART's balance-sheet and income-statement accounts
_BS_ACCOUNTS, _IS_ACCOUNTS = (tuple(row[2:] for row in IFRS_ACCOUNTS if row[0] == kind) for kind in ("BS", "IS"))


def _statement_lines(accounts: tuple[tuple[str, str, str], ...], financial: bool = False):
    """getBs_V2 / getIncoStat_V2 (and getFnCoBs_V2 / getFnCoIs_V2): one row per account of each annual statement."""

    def handler(world, q: Query) -> Sequence[dict[str, Any]]:
        fin = world.finance

        def item(key) -> dict[str, Any]:
            (company, year, code, name, consolidated), (acit_id, acit_name, field) = key
            amounts = [fin.period_values(company, y, 4, consolidated)[field] for y in (year, year - 1, year - 2)]
            return {
                "basDt": f"{year}1231",
                "crno": company.crno,
                "bizYear": str(year),
                "fnclDcd": code,
                "fnclDcdNm": name,
                "acitId": acit_id,
                "acitNm": acit_name,
                "thqrAcitAmt": "",
                "crtmAcitAmt": str(amounts[0]),
                "lsqtAcitAmt": "",
                "pvtrAcitAmt": str(amounts[1]),
                "bpvtrAcitAmt": str(amounts[2]),
                "curCd": "KRW",
            }

        return LazyRows(Grid(_statements(world, q, financial), accounts), item)

    return handler


# -- dividends ----------------------------------------------------------------------


def dividends(world, q: Query) -> list[dict[str, Any]]:
    """getDiviInfo: cash dividends by decision day (basDt), crno or issuer name (substring)."""
    fin = world.finance
    day, crno, name = q.date("basDt"), q.get("crno"), q.get("stckIssuCmpyNm")
    rows = []
    for event in fin.dividend_events:
        company = event["company"]
        if (
            event["decided"] > q.as_of
            or (day is not None and event["decided"] != day)
            or (crno is not None and company.crno != crno)
            or (name is not None and name not in company.corp_name)
        ):
            continue
        close = fin.close_on(company, previous_business_day(event["record_day"] + dt.timedelta(days=1))) or 0
        rows.append(
            {
                "basDt": ymd(event["decided"]),
                "crno": company.crno,
                "stckIssuCmpyNm": company.corp_name,
                "isinCd": company.isin,
                "isinCdNm": f"{company.corp_name}보통주",
                "scrsItmsKcd": "0101",
                "scrsItmsKcdNm": "보통주",
                "stckStacMd": "1231",
                "dvdnBasDt": ymd(event["record_day"]),
                "cashDvdnPayDt": ymd(event["pay_day"]),
                "stckHndvDt": "",
                "stckDvdnRcd": "02",
                "stckDvdnRcdNm": "현금배당",
                "stckGenrDvdnAmt": str(event["dps"]),
                "stckGrdnDvdnAmt": "0",
                "stckGenrCashDvdnRt": f"{event['dps'] / close * 100:.2f}" if close else "",
                "stckGenrDvdnRt": f"{event['dps'] / company.par_value * 100:.2f}",
                "stckParPrc": str(company.par_value),
                "trsnmDptyDcd": "1",
                "trsnmDptyDcdNm": "한국예탁결제원",
            }
        )
    rows.sort(key=lambda r: (r["basDt"], r["crno"]), reverse=True)
    return rows


# -- endpoints ----------------------------------------------------------------------

# beginBasDt opens a range of trading days that runs on to today: any earlier date will do (the catalog's
# pattern refuses years before 2000). What endBasDt and likeBasDt find depends on the days the rest of the
# query selects: no domain.
_STOCK_IN = {
    "basDt": "business_date",
    "beginBasDt": "since_date",
    "srtnCd": "stock_code",
    "likeSrtnCd": "stock_code",
    "isinCd": "isin",
    "itmsNm": "corp_name",
    "likeItmsNm": "corp_name",
}
_STOCK_OUT = {"basDt": "business_date", "srtnCd": "stock_code", "isinCd": "isin", "itmsNm": "corp_name"}
# A statement is dated at its year end (a calendar date, not a trading day) and exists once the annual
# report is filed.
_FIN_IN = {"crno": "crno", "bizYear": "fiscal_year"}
_FIN_OUT = {"crno": "crno", "bizYear": "fiscal_year", "basDt": "date"}


def _endpoint(tool: str, service: str, operation: str, handler, inputs, outputs) -> Endpoint:
    return Endpoint(
        tool, "datagokr", HOST, f"{_BASE}/{service}/{operation}", PROTOCOL, handler, (), dict(inputs), dict(outputs)
    )


ENDPOINTS = [
    _endpoint(
        "datagokr_get_stock_price_info",
        "GetStockSecuritiesInfoService",
        "getStockPriceInfo",
        _market_rows(price_item, _PRICE_FILTERS),
        _STOCK_IN,
        _STOCK_OUT,
    ),
    # corpNm is the registry's 법인명 ("(주)라이트론"): getItemInfo matches it exactly, likeCorpNm and
    # getCorpOutline_V2's corpNm as a substring (a company name finds it too). likeIsinCd finds the short
    # code inside an ISIN (KR7069540007) as well.
    _endpoint(
        "datagokr_get_item_info",
        "GetKrxListedInfoService",
        "getItemInfo",
        _market_rows(listing_item, _LISTING_FILTERS),
        {
            **_STOCK_IN,
            "likeIsinCd": "isin_part",
            "crno": "crno",
            "corpNm": "corp_registry_name",
            "likeCorpNm": "corp_name_part",
        },
        {**_STOCK_OUT, "crno": "crno", "corpNm": "corp_registry_name"},
    ),
    _endpoint(
        "datagokr_get_corp_outline_v2",
        "GetCorpBasicInfoService_V2",
        "getCorpOutline_V2",
        corp_outlines,
        {"crno": "crno", "corpNm": "corp_name_part"},
        {
            "crno": "crno",
            "enpPbanCmpyNm": "corp_name",
            "corpNm": "corp_registry_name",
            "bzno": "bizr_no",
            "fssCorpUnqNo": "corp_code",
            "enpEstbDt": "past_date",
            "enpXchgLstgDt": "past_date",
            "enpKosdaqLstgDt": "past_date",
            "enpKrxLstgDt": "past_date",
        },
    ),
    _endpoint(
        "datagokr_get_summ_fina_stat_v2",
        "GetFinaStatInfoService_V2",
        "getSummFinaStat_V2",
        summary_statements,
        _FIN_IN,
        _FIN_OUT,
    ),
    _endpoint(
        "datagokr_get_bs_v2", "GetFinaStatInfoService_V2", "getBs_V2", _statement_lines(_BS_ACCOUNTS), _FIN_IN, _FIN_OUT
    ),
    _endpoint(
        "datagokr_get_inco_stat_v2",
        "GetFinaStatInfoService_V2",
        "getIncoStat_V2",
        _statement_lines(_IS_ACCOUNTS),
        _FIN_IN,
        _FIN_OUT,
    ),
    _endpoint(
        "datagokr_get_divi_info",
        "GetStocDiviInfoService",
        "getDiviInfo",
        dividends,
        # basDt is the day a dividend decision was disclosed: an exact match on it is not a join key.
        # As a value it is a trading day, as is the payment day; the record day is a year end.
        {"crno": "crno", "stckIssuCmpyNm": "corp_name"},
        {
            "crno": "crno",
            "stckIssuCmpyNm": "corp_name",
            "isinCd": "isin",
            "basDt": "business_date",
            "cashDvdnPayDt": "business_date",
            "dvdnBasDt": "date",
        },
    ),
]

# the operations kept as data: kopa_replay/sim/tables/fsc.yaml over the world tables of fsc_tables.py, and
# the tables this module's handlers make: the _V2 path of the stock prices, the financial companies' statements
#: the envelopes a row may name (options.protocol); an unknown name fails at import, never falls back
_PROTOCOLS = {"datagokr": PROTOCOL, "table_list": TABLE_LIST}
ENDPOINTS += [
    replace(ep, protocol=_PROTOCOLS[ep.options.get("protocol", "datagokr")])
    for ep in endpoints(
        "fsc",
        HOST,
        PROTOCOL,
        {
            **TABLES,
            "stock_prices": _market_rows(price_item, _PRICE_FILTERS),
            "fnco_summaries": fnco_summaries,
            "fnco_balance_sheets": _statement_lines(_BS_ACCOUNTS, financial=True),
            "fnco_income_statements": _statement_lines(_IS_ACCOUNTS, financial=True),
        },
    )
]

HOSTS = {HOST: PROTOCOL}
