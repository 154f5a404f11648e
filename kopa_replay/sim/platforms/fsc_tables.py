"""World tables of the 금융위원회 operations kept as data (kopa_replay/sim/tables/fsc.yaml).

The market services (증권상품·채권·파생상품·일반상품·지수 시세, 신주인수권·수익증권 시세) publish, a day later,
what the exchange published: each table is the KRX instrument family of the market sub-world
(kopa_replay/sim/world/market.py) renamed into the data.go.kr spelling — so an ETF's close here is its
close in krx_etf_bydd_trd. A table answers the trading days a query asks for (basDt, or
[beginBasDt, endBasDt) — endBasDt exclusive —, likeBasDt), newest first, and filters by the gateway's
own convention: a parameter named like a field matches it exactly, ``like<Field>`` as a substring,
``begin<Field>`` / ``end<Field>`` as a numeric range [begin, end). Without a filter a result is a lazy
grid of days × instruments; with one, at most every selected day of one fixed-size family is made.

The company services (계열회사, 연결대상 종속기업, 금융회사 개요) draw from the companies of
kopa_replay/sim/world/finance.py, keyed by their 법인등록번호.
"""

from __future__ import annotations

import bisect
import datetime as dt
from collections.abc import Sequence
from typing import Any, Callable, Iterable

from kopa_replay.sim.core import Query
from kopa_replay.sim.world import stable_int
from kopa_replay.sim.world.calendar import previous_business_day, ymd
from kopa_replay.sim.world.finance import PRIOR_DAY, Company, Grid, LazyRows, _luhn_check, isin_for
from kopa_replay.sim.world.fmt import rate

__all__ = ["TABLES", "days"]

Row = dict[str, Any]
#: parameters that choose pages or the format, and those that choose trading days: never field filters
_PAGING = {"pageNo", "numOfRows", "resultType", "serviceKey"}
_DAYS = {"basDt", "beginBasDt", "endBasDt", "likeBasDt"}


def days(world, q: Query) -> list[dt.date]:
    """Trading days the query asks for, newest first: basDt, or [beginBasDt, endBasDt), or all visible."""
    visible = world.finance.visible_days(q.as_of)
    exact = q.date("basDt")
    if exact is not None:
        i = bisect.bisect_left(visible, exact)
        chosen = [exact] if i < len(visible) and visible[i] == exact else []
    else:
        begin, end = q.date("beginBasDt"), q.date("endBasDt")
        lo = bisect.bisect_left(visible, begin) if begin else 0
        hi = bisect.bisect_left(visible, end) if end else len(visible)  # endBasDt is exclusive
        chosen = list(visible[lo:hi])
    like = q.get("likeBasDt")
    if like:
        chosen = [d for d in chosen if like in ymd(d)]
    return chosen[::-1]


def _number(text: Any) -> float | None:
    try:
        return float(str(text).replace(",", ""))
    except ValueError:
        return None


def _filters(q: Query, fields: Iterable[str], skip: set[str]) -> list[Callable[[Row], bool]]:
    """The gateway's filter convention over the fields a table yields (see the module docstring)."""
    names = set(fields)
    out: list[Callable[[Row], bool]] = []
    for param in sorted(q.values):
        value = q.get(param)
        if value is None or param in skip:
            continue
        for prefix in ("like", "begin", "end", ""):
            if not param.startswith(prefix):
                continue
            name = param[len(prefix)].lower() + param[len(prefix) + 1 :] if prefix else param
            if name not in names:
                continue
            if prefix == "like":
                out.append(lambda r, n=name, v=value: v in str(r.get(n) or ""))
            elif prefix == "begin":
                out.append(lambda r, n=name, v=_number(value): v is not None and (_number(r.get(n)) or 0) >= v)
            elif prefix == "end":
                out.append(lambda r, n=name, v=_number(value): v is not None and (_number(r.get(n)) or 0) < v)
            else:
                out.append(lambda r, n=name, v=value: str(r.get(n)) == v)
            break
    return out


def _daily(family: Callable[[Any, dt.date], list[Row]]) -> Callable[[Any, Query], Sequence[Row]]:
    """A table over (trading day × instrument) from a family that makes one day's rows."""

    def table(world, q: Query) -> Sequence[Row]:
        chosen = days(world, q)
        if not chosen:
            return []
        made: dict[dt.date, list[Row]] = {}

        def on(day: dt.date) -> list[Row]:
            if day not in made:
                if len(made) > 64:
                    made.clear()
                made[day] = family(world, day)
            return made[day]

        first = on(chosen[0])
        keep = _filters(q, first[0] if first else (), _PAGING | _DAYS)
        if keep:
            return [r for day in chosen for r in on(day) if all(f(r) for f in keep)]
        return LazyRows(Grid(chosen, range(len(first))), lambda key: on(key[0])[key[1]])

    table.__name__ = f"daily_{family.__name__}"
    return table


# -- identifiers --------------------------------------------------------------------------------------


def _isin(prefix: str, body: str) -> str:
    """An ISIN: prefix + body to 11 characters + the check digit (letters expanded base 36, then Luhn)."""
    core = (prefix + body)[:11].ljust(11, "0")
    return core + str(_luhn_check("".join(str(int(c, 36)) for c in core)))


def _market(world, kind: str, service: str, day: dt.date) -> list[Row]:
    return world.market.rows(kind, service, day)


def _rate(text: str) -> str:
    return rate(float(text))


# -- 주식시세정보: 신주인수권증서·수익증권·신주인수권증권 -------------------------------------------------


def _target(row: Row) -> dict[str, str]:
    return {
        "purRgtScrtItmsCd": isin_for(row["TARSTK_ISU_SRT_CD"]),
        "purRgtScrtItmsNm": row["TARSTK_ISU_NM"],
        "purRgtScrtItmsClpr": row["TARSTK_ISU_PRSNT_PRC"],
    }


def _quote(row: Row, isin: str, **extra: str) -> Row:
    """The fields every 시세 operation shares, from a KRX daily-trade row."""
    return {
        "basDt": row["BAS_DD"],
        "srtnCd": row["ISU_CD"],
        "isinCd": isin,
        "itmsNm": row["ISU_NM"],
        **extra,
        "clpr": row["TDD_CLSPRC"],
        "vs": row["CMPPREVDD_PRC"],
        "fltRt": _rate(row["FLUC_RT"]) if "FLUC_RT" in row else None,
        "mkp": row["TDD_OPNPRC"],
        "hipr": row["TDD_HGPRC"],
        "lopr": row["TDD_LWPRC"],
        "trqu": row["ACC_TRDVOL"],
        "trPrc": row["ACC_TRDVAL"],
        "mrktTotAmt": row.get("MKTCAP"),
    }


def rights_certificates(world, day: dt.date) -> list[Row]:
    return [
        {
            **_quote(r, _isin("KRA", r["ISU_CD"] + "1R"), mrktCtg=r["MKT_NM"]),
            "lstgCtfCnt": r["LIST_SHRS"],
            "nstIssPrc": r["ISU_PRC"],
            "dltDt": r["DELIST_DD"],
            **_target(r),
        }
        for r in _market(world, "warrant", "sr_bydd_trd", day)
    ]


def rights_securities(world, day: dt.date) -> list[Row]:
    return [
        {
            **_quote(r, _isin("KRA", r["ISU_CD"] + "1W"), mrktCtg=r["MKT_NM"]),
            "lstgScrtCnt": r["LIST_SHRS"],
            "exertPric": r["EXER_PRC"],
            "subtPdSttgDt": r["EXST_STRT_DD"],
            "subtPdEdDt": r["EXST_END_DD"],
            **_target(r),
        }
        for r in _market(world, "warrant", "sw_bydd_trd", day)
    ]


def beneficiary_certificates(world, day: dt.date) -> list[Row]:
    return [
        {**_quote(r, _isin("KR5", r["ISU_CD"] + "00")), "stLstgCnt": r["LIST_SHRS"]}
        for r in _market(world, "beneficiary", "securities_price", day)
    ]


# -- 증권상품시세정보: ETF·ETN·ELW ------------------------------------------------------------------------


def etfs(world, day: dt.date) -> list[Row]:
    return [
        {
            **_quote(r, isin_for(r["ISU_CD"])),
            "nav": r["NAV"],
            "nPptTotAmt": r["INVSTASST_NETASST_TOTAMT"],
            "stLstgCnt": r["LIST_SHRS"],
            "bssIdxIdxNm": r["IDX_IND_NM"],
            "bssIdxClpr": r["OBJ_STKPRC_IDX"],
        }
        for r in _market(world, "etf", "etf_bydd_trd", day)
    ]


def etns(world, day: dt.date) -> list[Row]:
    return [
        {
            **_quote(r, _isin("KRG", r["ISU_CD"] + "00")),
            "indcVal": r["PER1SECU_INDIC_VAL"],
            "indcValTotAmt": r["INDIC_VAL_AMT"],
            "lstgScrtCnt": r["LIST_SHRS"],
            "bssIdxIdxNm": r["IDX_IND_NM"],
            "bssIdxClpr": r["OBJ_STKPRC_IDX"],
        }
        for r in _market(world, "etn", "etn_bydd_trd", day)
    ]


def elws(world, day: dt.date) -> list[Row]:
    return [
        {
            **_quote(r, _isin("KRA", r["ISU_CD"] + "01")),
            "lstgScrtCnt": r["LIST_SHRS"],
            "udasAstNm": r["ULY_NM"],
            "udasAstClpr": r["ULY_PRC"],
        }
        for r in _market(world, "elw", "elw_bydd_trd", day)
    ]


# -- 채권시세정보 ----------------------------------------------------------------------------------------

#: KRX bond market service → the 금융위 mrktCtg
_BOND_MARKETS = (("kts_bydd_trd", "KTS"), ("bnd_bydd_trd", "일반채권"), ("smb_bydd_trd", "소액채권"))


def bonds(world, day: dt.date) -> list[Row]:
    """Every listed bond traded on the day; xpYrCnt and itmsCtg are filled on KTS only (a space elsewhere)."""
    out = []
    for service, market in _BOND_MARKETS:
        for r in _market(world, "bond", service, day):
            out.append(
                {
                    "basDt": r["BAS_DD"],
                    "srtnCd": r["ISU_CD"][3:],
                    "isinCd": r["ISU_CD"],
                    "itmsNm": r["ISU_NM"],
                    "mrktCtg": market,
                    "xpYrCnt": r.get("BND_EXP_TP_NM", " "),
                    "itmsCtg": r.get("GOVBND_ISU_TP_NM", " "),
                    "clprPrc": r["CLSPRC"],
                    "clprVs": r["CMPPREVDD_PRC"],
                    "clprBnfRt": r["CLSPRC_YD"],
                    "mkpPrc": r["OPNPRC"],
                    "mkpBnfRt": r["OPNPRC_YD"],
                    "hiprPrc": r["HGPRC"],
                    "hiprBnfRt": r["HGPRC_YD"],
                    "loprPrc": r["LWPRC"],
                    "loprBnfRt": r["LWPRC_YD"],
                    "trqu": r["ACC_TRDVOL"],
                    "trPrc": r["ACC_TRDVAL"],
                }
            )
    return out


# -- 파생상품시세정보 --------------------------------------------------------------------------------------

_FUTURES = (("future", "fut_bydd_trd"), ("stock_future", "eqsfu_stk_bydd_trd"), ("stock_future", "eqkfu_ksq_bydd_trd"))
_OPTIONS = (("option", "opt_bydd_trd"), ("stock_option", "eqsop_bydd_trd"), ("stock_option", "eqkop_bydd_trd"))


def _derivative(r: Row) -> Row:
    return {
        "basDt": r["BAS_DD"],
        "prdCtg": r["PROD_NM"],
        "srtnCd": r["ISU_CD"],
        "isinCd": _isin("KR4", r["ISU_CD"]),
        "itmsNm": r["ISU_NM"],
        "clpr": r["TDD_CLSPRC"],
        "vs": r["CMPPREVDD_PRC"],
        "mkp": r["TDD_OPNPRC"],
        "hipr": r["TDD_HGPRC"],
        "lopr": r["TDD_LWPRC"],
        "trqu": r["ACC_TRDVOL"],
        "trPrc": r["ACC_TRDVAL"],
        "opnint": r["ACC_OPNINT_QTY"],
    }


def futures(world, day: dt.date) -> list[Row]:
    return [
        {**_derivative(r), "sptPrc": r["SPOT_PRC"], "stmPrc": r["SETL_PRC"]}
        for kind, service in _FUTURES
        for r in _market(world, kind, service, day)
    ]


def options(world, day: dt.date) -> list[Row]:
    return [
        {**_derivative(r), "nxtDdBsPrc": r["NXTDD_BAS_PRC"], "iptVlty": r["IMP_VOLT"]}
        for kind, service in _OPTIONS
        for r in _market(world, kind, service, day)
    ]


# -- 일반상품시세정보 --------------------------------------------------------------------------------------


def oils(world, day: dt.date) -> list[Row]:
    return [
        {
            "basDt": r["BAS_DD"],
            "oilCtg": r["OIL_NM"],
            "wtAvgPrcCptn": r["WT_AVG_PRC"],
            "wtAvgPrcDisc": r["WT_DIS_AVG_PRC"],
            "trqu": r["ACC_TRDVOL"],
            "trPrc": r["ACC_TRDVAL"],
        }
        for r in _market(world, "oil", "oil_bydd_trd", day)
    ]


def golds(world, day: dt.date) -> list[Row]:
    return [_quote(r, _isin("KRD", r["ISU_CD"])) for r in _market(world, "gold", "gold_bydd_trd", day)]


def emissions(world, day: dt.date) -> list[Row]:
    return [_quote(r, _isin("KRD", r["ISU_CD"])) for r in _market(world, "ets", "ets_bydd_trd", day)]


# -- 지수시세정보 ----------------------------------------------------------------------------------------

#: 지수분류명 → (기준시점, 기준지수)
_INDEX_BASE = {
    "KOSPI시리즈": ("19800104", "100"),
    "KOSDAQ시리즈": ("19960701", "1000"),
    "KRX시리즈": ("20010102", "1000"),
}
_KRX_MEMBERS = {"KRX 300": 300, "KRX 100": 100}


def _year_days(world, year: int) -> list[tuple[dt.date, int]]:
    """(day, price column) from the last trading day of the year before through the year's last trading day."""

    def build() -> list[tuple[dt.date, int]]:
        fin = world.finance
        i = bisect.bisect_left(fin.days, dt.date(year, 1, 1))
        j = bisect.bisect_left(fin.days, dt.date(year + 1, 1, 1))
        return [(fin.days[i - 1] if i else PRIOR_DAY, i), *((fin.days[k], k + 1) for k in range(i, j))]

    return world.market.once(("fsc.year_days", year), build)


def _index_row(name: str, csf: str, members: int, day: dt.date, closes: list[tuple[dt.date, float]], bar: Row) -> Row:
    """One 주가지수 row: ``closes`` runs from the last close of the year before to ``day``."""
    year_end = closes[0][1]
    year = closes[1:] or closes
    high = max(year, key=lambda c: c[1])
    low = min(year, key=lambda c: c[1])
    close = closes[-1][1]
    base_day, base_idx = _INDEX_BASE[csf]
    return {
        "lsYrEdVsFltRt": rate((close - year_end) / year_end * 100),
        "basPntm": base_day,
        "basIdx": base_idx,
        "basDt": ymd(day),
        "idxCsf": csf,
        "idxNm": name,
        "epyItmsCnt": str(members),
        "clpr": f"{close:.2f}",
        "vs": f"{bar['vs']:.2f}",
        "fltRt": rate(bar["vs"] / (close - bar["vs"]) * 100),
        "mkp": f"{bar['open']:.2f}",
        "hipr": f"{bar['high']:.2f}",
        "lopr": f"{bar['low']:.2f}",
        "trqu": str(int(bar["volume"])),
        "trPrc": str(int(bar["value"])),
        "lstgMrktTotAmt": str(int(bar["mktcap"])),
        "lsYrEdVsFltRg": f"{close - year_end:.2f}",
        "yrWRcrdHgst": f"{high[1]:.2f}",
        "yrWRcrdHgstDt": ymd(high[0]),
        "yrWRcrdLwst": f"{low[1]:.2f}",
        "yrWRcrdLwstDt": ymd(low[0]),
    }


def _index_members(world) -> list[int]:
    fin = world.finance

    def build() -> list[int]:
        counts = {m: sum(1 for c in fin.listed if c.market == m) for m in ("KOSPI", "KOSDAQ")}
        return [
            max(0, min(hi if hi is not None else counts[market], counts[market]) - lo) or counts[market]
            for _, _, market, (lo, hi), _ in fin.INDEXES
        ]

    return world.market.once(("fsc.index_members",), build)


def stock_indexes(world, day: dt.date) -> list[Row]:
    """KOSPI and KOSDAQ series (the finance world's indexes) and the KRX series (the market sub-world's)."""
    from kopa_replay.sim.world.market import _KRX_INDEXES

    fin, market = world.finance, world.market
    year = _year_days(world, day.year)
    col = fin.day_column(day)
    span = year[: col - year[0][1] + 1]
    out = []
    for series, members in zip(fin.index_series, _index_members(world)):
        close = series["close"]
        bar = {
            "vs": float(close[col] - close[col - 1]),
            "open": float(series["open"][col]),
            "high": float(series["high"][col]),
            "low": float(series["low"][col]),
            "volume": series["volume"][col],
            "value": series["value"][col],
            "mktcap": series["mktcap"][col],
        }
        closes = [(d, float(close[c])) for d, c in span]
        out.append(_index_row(series["name"], f"{series['clss']}시리즈", members, day, closes, bar))
    for (name, base), r in zip(_KRX_INDEXES, market.rows("index", "krx_dd_trd", day)):
        key = f"krx_dd_trd:{name}"
        levels = market.once(
            ("fsc.krx_year", key, day.year), lambda: [market.level(key, base, 0.08, d) for d, _ in year]
        )
        bar = {
            "vs": float(r["CMPPREVDD_IDX"]),
            "open": float(r["OPNPRC_IDX"]),
            "high": float(r["HGPRC_IDX"]),
            "low": float(r["LWPRC_IDX"]),
            "volume": int(r["ACC_TRDVOL"]),
            "value": int(r["ACC_TRDVAL"]),
            "mktcap": int(r["MKTCAP"]),
        }
        closes = [(d, levels[k]) for k, (d, _) in enumerate(span)]
        out.append(_index_row(name, "KRX시리즈", _KRX_MEMBERS.get(name, 30), day, closes, bar))
    return out


def bond_indexes(world, day: dt.date) -> list[Row]:
    return [
        {
            "basDt": r["BAS_DD"],
            "idxNm": r["BND_IDX_GRP_NM"],
            "totBnfIdxClpr": r["TOT_EARNG_IDX"],
            "totBnfIdxVs": r["TOT_EARNG_IDX_CMPPREVDD"],
            "nPrcIdxClpr": r["NETPRC_IDX"],
            "nPrcIdxVs": r["NETPRC_IDX_CMPPREVDD"],
            "zrRinvIdxClpr": r["ZERO_REINVST_IDX"],
            "zrRinvIdxVs": r["ZERO_REINVST_IDX_CMPPREVDD"],
            "clRinvIdxClpr": r["CALL_REINVST_IDX"],
            "clRinvIdxVs": r["CALL_REINVST_IDX_CMPPREVDD"],
            "mrktPrcIdxClpr": r["MKT_PRC_IDX"],
            "mrktPrcIdxVs": r["MKT_PRC_IDX_CMPPREVDD"],
            "durt": r["AVG_DURATION"],
            "cnvt": r["AVG_CONVEXITY_PRC"],
            "ytm": r["BND_IDX_AVG_YD"],
        }
        for r in _market(world, "bond_index", "bon_dd_trd", day)
    ]


def derivative_indexes(world, day: dt.date) -> list[Row]:
    from kopa_replay.sim.world.market import _DRV_INDEXES

    market, out = world.market, []
    for (name, base), r in zip(_DRV_INDEXES, market.rows("index", "drvprod_dd_trd", day)):
        volume = market.quote(f"drvprod_dd_trd:{name}", base, 0.08, day, 8e7)["volume"]
        out.append(
            {
                "basDt": r["BAS_DD"],
                "idxNm": name,
                "clpr": r["CLSPRC_IDX"],
                "vs": r["CMPPREVDD_IDX"],
                "fltRt": _rate(r["FLUC_RT"]),
                "mkp": r["OPNPRC_IDX"],
                "hipr": r["HGPRC_IDX"],
                "lopr": r["LWPRC_IDX"],
                "trqu": str(int(round(volume))),
                "trPrc": str(int(round(volume * base * 9))),
            }
        )
    return out


# -- 기업기본정보: 계열회사·연결대상 종속기업 -------------------------------------------------------------


def _report_day(as_of: dt.date) -> str:
    """The 기준일자 of the latest 사업보고서 due by ``as_of`` (filed by the end of March): its fiscal year end."""
    return f"{as_of.year - (1 if as_of >= dt.date(as_of.year, 4, 1) else 2)}1231"


def _related(world, company: Company, purpose: str, most: int) -> list[Company]:
    """1 … ``most`` other companies tied to ``company`` (drawn by hash from every company: O(1) each)."""
    pool = world.finance.companies
    h = stable_int(world.seed, "fsc", purpose, company.crno)
    out: list[Company] = []
    for n in range(1 + h % most):
        other = pool[stable_int(world.seed, "fsc", purpose, company.crno, n) % len(pool)]
        if other.crno != company.crno and other not in out:
            out.append(other)
    return out


def _company_rows(make: Callable[[Any, Company, str], list[Row]]) -> Callable[[Any, Query], Sequence[Row]]:
    """A per-company table: one company by crno, else every listed company (lazily, a page at a time)."""

    def table(world, q: Query) -> Sequence[Row]:
        fin = world.finance
        crno = q.get("crno")
        pool: Sequence[Company] = ([fin.by_crno[crno]] if crno in fin.by_crno else []) if crno else fin.listed

        day = _report_day(q.as_of)

        def rows(company: Company) -> list[Row]:
            return make(world, company, day) if company.listed else []

        if crno is not None or any(q.get(p) is not None for p in q.values.keys() - _PAGING):
            found = [r for c in pool for r in rows(c)]
            keep = _filters(q, found[0] if found else (), _PAGING)
            return [r for r in found if all(f(r) for f in keep)]
        index = world.market.once(
            (f"fsc.{make.__name__}", day), lambda: [(c, i) for c in pool for i in range(len(rows(c)))]
        )
        return LazyRows(index, lambda key: rows(key[0])[key[1]])

    table.__name__ = make.__name__
    return table


def affiliates(world, company: Company, day: str) -> list[Row]:
    return [
        {
            "basDt": day,
            "crno": company.crno,
            "afilCmpyNm": other.registry_name,
            "afilCmpyCrno": other.crno,
            "lstgYn": "Y" if other.listed else "N",
        }
        for other in _related(world, company, "affiliate", 5)
    ]


def subsidiaries(world, company: Company, day: str) -> list[Row]:
    if not company.has_cfs:
        return []
    out = []
    for n, other in enumerate(_related(world, company, "subsidiary", 4)):
        assets = (stable_int(world.seed, "fsc.subsidiary.assets", other.crno) % 9_000 + 50) * 100_000_000
        out.append(
            {
                "basDt": day,
                "crno": company.crno,
                "sbrdEnpNm": other.registry_name,
                "sbrdEnpEstbDt": other.est_dt,
                "sbrdEnpAdr": other.address,
                "sbrdEnpMainBizCtt": other.sector,
                "sbrdEnpLtstEbzyrTastAmt": str(assets),
                "dntRltBsisCtt": "의결권의 과반수 소유" if n % 3 else "실질지배력 보유",
                "mainSbrdEnpYnCtt": "Y" if assets >= 75_000_000_000 else "N",
            }
        )
    return out


# -- 금융회사기본정보 ------------------------------------------------------------------------------------

_FINANCE_SECTOR = "649"  # KSIC 기타 금융업


def financial_companies(world, q: Query) -> Sequence[Row]:
    """getFnCoOutl: the world's financial companies (KSIC 649), as of the business day before the query."""
    fin = world.finance
    pool = world.market.once(
        ("fsc.financial_companies",), lambda: [c for c in fin.companies if c.induty_code == _FINANCE_SECTOR]
    )
    crno, name = q.get("crno"), q.get("fncoNm")
    if crno is not None:
        pool = [c for c in pool if c.crno == crno]
    if name is not None:
        pool = [c for c in pool if name in c.registry_name]
    day = ymd(previous_business_day(q.as_of))
    return LazyRows(pool, lambda c: _financial_company(world, c, day))


_MARKET_CODES = {"KOSPI": ("Y", "유가"), "KOSDAQ": ("K", "코스닥"), "KONEX": ("N", "코넥스"), "": ("E", "기타")}
_LISTING_FIELDS = {"KOSPI": "fncoXchgLstgDt", "KOSDAQ": "fncoKosdaqLstgDt", "KONEX": "fncoKrxLstgDt"}


def _financial_company(world, c: Company, day: str) -> Row:
    h = stable_int(world.seed, "fsc.fnco", c.crno)
    code, market = _MARKET_CODES[c.market]
    row = {
        "basDt": day,
        "crno": c.crno,
        "fncoNm": c.registry_name,
        "fncoEnsnNm": c.corp_eng_name,
        "isinCd": c.isin,
        "isinCdNm": f"{c.corp_name}보통주" if c.listed else "",
        "fncoRprNm": c.ceo,
        "corpRegMrktDcd": code,
        "corpRegMrktDcdNm": market,
        "bzno": c.bizr_no,
        "fncoAdr": c.address,
        "fncoZpcd": f"{h % 63000 + 1000:05d}",
        "fncoHmpgUrl": c.homepage,
        "fncoTlno": c.phone,
        "fncoFxno": c.fax,
        "sicCd": c.induty_code,
        "sicNm": c.sector,
        "fncoEstbDt": c.est_dt,
        "fncoStacMm": c.acc_mt,
        "fncoXchgLstgDt": "",
        "fncoXchgLstgAbolDt": "",
        "fncoKosdaqLstgDt": "",
        "fncoKosdaqLstgAbolDt": "",
        "fncoKrxLstgDt": "",
        "fncoKrxLstgAbolDt": "",
        "fncoSmenpYn": "N" if c.market == "KOSPI" else "Y",
        "mntrFcnFncoCd": f"{(h >> 8) % 90 + 2:03d}",
        "mntrFcnFncoCdNm": ("산업은행", "기업은행", "국민은행", "우리은행", "신한은행", "하나은행")[(h >> 16) % 6],
        "fncoEmpeCnt": str((h >> 20) % 900 + 20),
        "empeAvgCnwkTermCtt": f"{(h >> 30) % 150 / 10 + 2:.1f}",
        "fncoEmpeAvgSlryAmt": str(((h >> 40) % 60 + 50) * 1_000_000),
        "actnAudpnNm": ("삼정회계법인", "삼일회계법인", "안진회계법인", "한영회계법인")[(h >> 48) % 4],
        "audtRptOpnnCtt": "적정",
        "fncoMainBizNm": "투자 및 금융업",
        "fssCorpUnqNo": c.corp_code,
        "fssCorpChgDtm": f"{c.modify_date[:4]}/{c.modify_date[4:6]}/{c.modify_date[6:]}",
    }
    if c.market in _LISTING_FIELDS:
        row[_LISTING_FIELDS[c.market]] = c.list_dt
    return row


#: the world tables the rows of kopa_replay/sim/tables/fsc.yaml name
TABLES = {
    "rights_certificates": _daily(rights_certificates),
    "rights_securities": _daily(rights_securities),
    "beneficiary_certificates": _daily(beneficiary_certificates),
    "etfs": _daily(etfs),
    "etns": _daily(etns),
    "elws": _daily(elws),
    "bonds": _daily(bonds),
    "futures": _daily(futures),
    "options": _daily(options),
    "oils": _daily(oils),
    "golds": _daily(golds),
    "emissions": _daily(emissions),
    "stock_indexes": _daily(stock_indexes),
    "bond_indexes": _daily(bond_indexes),
    "derivative_indexes": _daily(derivative_indexes),
    "affiliates": _company_rows(affiliates),
    "subsidiaries": _company_rows(subsidiaries),
    "financial_companies": financial_companies,
}
