"""World tables of the 금융위원회 operations kept as data (kopa_replay/sim/tables/fsc.yaml).

The market services (증권상품·채권·파생상품·일반상품·지수 시세, 신주인수권·수익증권 시세) publish, a day later,
what the exchange published: each table is the KRX instrument family of the market sub-world
(kopa_replay/sim/world/market.py) renamed into the data.go.kr spelling — so an ETF's close here is its
close in krx_etf_bydd_trd. A table answers the trading days a query asks for (basDt, or
[beginBasDt, endBasDt) — endBasDt exclusive —, likeBasDt), newest first, and filters by the gateway's
own convention: a parameter named like a field matches it exactly, ``like<Field>`` as a substring,
``begin<Field>`` / ``end<Field>`` as a numeric range [begin, end). Without a filter a result is a lazy
grid of days × instruments; with one, at most every selected day of one fixed-size family is made.

The company services (계열회사, 연결대상 종속기업, 금융회사 개요·지배구조) draw from the companies of
kopa_replay/sim/world/finance.py, keyed by their 법인등록번호. 공시정보 reads the world's filings (one kind per
operation, the DART report's values in the gateway's spelling), 주식발행정보 the listed stocks with their
offerings, 채권기본정보·채권발행정보 the market world's bonds and the world's convertible bonds and bonds with
warrants; the wide operations draw the fields the world does not know from the field's name (``generic_value``).
"""

from __future__ import annotations

import bisect
import datetime as dt
import zlib
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from kopa_replay.sim.core import BadParam, Query
from kopa_replay.sim.world import stable_int
from kopa_replay.sim.world.calendar import is_business_day, parse_ymd, previous_business_day, ymd
from kopa_replay.sim.world.finance import PRIOR_DAY, Company, Filing, Grid, LazyRows, _luhn_check, isin_for
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


def _financial_pool(world) -> list[Company]:
    """The world's financial companies (KSIC 649): 금융회사기본정보 and 금융회사지배구조정보 alike."""
    fin = world.finance
    return world.market.once(
        ("fsc.financial_companies",), lambda: [c for c in fin.companies if c.induty_code == _FINANCE_SECTOR]
    )


def financial_companies(world, q: Query) -> Sequence[Row]:
    """getFnCoOutl: the world's financial companies (KSIC 649), as of the business day before the query."""
    pool = _financial_pool(world)
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


# -- values by the gateway's naming convention --------------------------------------------------------
#
# The 금융위 services name their fields after the public-data standard terms: …Dt a date, …Cnt a count,
# …Amt/…Prc an amount, …Rto/…Rt/…Rat a ratio, …Yn Y or N, …Nm/…Ctt text. The wide operations (공시정보,
# 채권기본정보) take what the world knows about an event from it, and draw every other field from its name:
# a hash of (seed, record, field name), so a field keeps its value whatever other fields the row lists.

_MASK = (1 << 64) - 1
_PERSONS_GIVEN = "민준서현지우도윤재성영훈진수호철희경태동상정석혁기원연은주하예아유건시환규"
_SURNAMES_SHORT = "김이박최정강조윤장임한오서신권황안송류홍"


def _mix(base: int, name: str) -> int:
    """A 64-bit hash of a record's base hash and a field name (splitmix64 over crc32)."""
    x = (base ^ (zlib.crc32(name.encode()) * 0x9E3779B97F4A7C15)) & _MASK
    x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
    x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & _MASK
    return x ^ (x >> 31)


def _person(h: int) -> str:
    return _SURNAMES_SHORT[h % 20] + _PERSONS_GIVEN[(h >> 8) % 37] + _PERSONS_GIVEN[(h >> 16) % 37]


def kind_of(name: str) -> str:
    """The value kind a field name says: date, yn, year, count, amount, ratio or text (the catalog formats agree)."""
    bare = name.rstrip("0123456789")
    if bare.endswith(("Dt", "Dtm")):
        return "date"
    if bare.endswith("Yn"):
        return "yn"
    if bare.endswith(("Cnt", "Dcnt")):
        return "count"
    if bare.endswith("Year"):
        return "year"
    if bare.endswith(("Amt", "Am", "At", "Npf", "Npal", "Pft", "Opr", "Pric", "Prc")):
        return "amount"
    if bare.endswith(("Rto", "Rt", "Rat", "Inrt", "Exrt", "Rtio")):
        return "ratio"
    return "text"


_PAST = ("Occr", "Sggs", "Afrm", "last", "Last", "Prop", "Acq", "Fnaf", "Decs", "Cntr", "Ccl", "bod", "Estb", "Opng")
_ORGS = ("CmpyNm", "CorpNm", "CnptNm", "Cnpt" + "CorpNm", "PrcoNm", "TrgtCorpNm", "ExorNm", "InstNm", "CmpyNm1")
_PEOPLE = ("Fnm", "exutNm", "rprNm", "RprNm", "AplpnNm")


def generic_value(world, name: str, h: int, day: dt.date, company: Company) -> str:
    """A field's value drawn from its name (see the module notes above) for an event of ``company`` on ``day``."""
    kind, bare = kind_of(name), name.rstrip("0123456789")
    if kind == "date":
        stem = bare.replace("Sttg", "").replace("EdDt", "Dt").replace("Xpry", "").replace("Expr", "")
        s = _mix(h, stem)
        if any(p in bare for p in _PAST):
            return ymd(day - dt.timedelta(days=s % 9))
        offset = 3 + s % 60
        if bare != stem or "Dln" in bare or "Expr" in bare or "Xpry" in bare:
            offset += 30 + s % 700 if ("Expr" in bare or "Xpry" in bare) else 30 + s % 90
        return ymd(day + dt.timedelta(days=offset))
    if kind == "yn":
        return "Y" if h % 4 == 0 else "N"
    if kind == "year":
        return str(day.year - 1)
    if kind == "count":
        if bare.endswith("Dcnt"):
            return str(1 + h % 30)
        if "Nope" in bare:
            return str((h % 4) + (1 if "Atnd" in bare else 0)) if "Atnd" in bare else "0"
        if "Mnth" in bare:
            return str(1 + h % 24)
        if "Otsh" in bare or "Pfst" in bare or "Clsh" in bare:
            return "0"
        if any(t in bare for t in ("Stck", "Onsk", "Nst", "Issu", "Lstg", "Tisu")):
            return str(max(company.shares, 1_000_000) * (1 + h % 300) // 10_000)
        return str(1 + h % 500)
    if kind == "amount":
        if "ovse" in bare or "Ovse" in bare:
            return "0"
        if "Par" in bare:
            return str(company.par_value)
        if bare.endswith(("Pric", "Prc")):
            return (
                str(max(world.finance.close_before(company, day), 1) * (80 + h % 40) // 100)
                if company.listed
                else str(1000 + h % 50_000)
            )
        return str((1 + h % 9_000) * 10_000_000)
    if kind == "ratio":
        if bare.endswith("Inrt"):
            return f"{(h % 60) / 10:.1f}"
        if bare.endswith("Exrt"):
            return f"{1300 + (h % 20_000) / 100:.2f}"
        return f"{(h % 10_000) / 100:.2f}"
    if any(bare.endswith(o) for o in _ORGS):
        pool = world.finance.companies
        return pool[h % len(pool)].registry_name
    if any(bare.endswith(p) for p in _PEOPLE) or bare.startswith(("ceo", "rpr")) and bare.endswith("Nm"):
        return _person(h)
    if "Audpn" in bare:
        return ("삼정회계법인", "삼일회계법인", "안진회계법인", "한영회계법인")[h % 4]
    if "Ntnl" in bare or "Ntnt" in bare:
        return "대한민국"
    if "Curt" in bare:
        return ("서울회생법원", "수원지방법원", "대전지방법원", "부산지방법원")[h % 4]
    if "Bnk" in bare:
        return ("산업은행", "기업은행", "우리은행", "신한은행", "하나은행", "국민은행")[h % 6]
    if "KindNm" in bare or "StckKindNm" in bare:
        return "기명식 보통주"
    if "MainBiz" in bare:
        pool = world.finance.companies
        return pool[h % len(pool)].sector
    if "Adr" in bare:
        pool = world.finance.companies
        return pool[h % len(pool)].address
    return ""


def _next_business_day(day: dt.date) -> dt.date:
    while not is_business_day(day):
        day += dt.timedelta(days=1)
    return day


def _dart_value(name: str, value: str) -> str:
    """A DART event-report value in the 금융위 spelling of the field: dates YYYYMMDD, bare digits, Y/N."""
    kind = kind_of(name)
    if value in ("", "-"):
        return {"count": "0", "amount": "0", "yn": "N"}.get(kind, "")
    if kind == "date":
        digits = "".join(ch for ch in value if ch.isdigit())
        return digits if len(digits) == 8 else ""
    if kind in ("count", "amount"):
        return value.replace(",", "")
    if kind == "yn":
        return "Y" if value in ("참석", "예", "분리", "Y") else "N"
    return value


# -- 공시정보 (GetDiscInfoService_V2): the finance world's filings, one kind per operation --------------

#: exchange-channel filings an operation reads by report name; operations the world derives from a
#: shareholders' meeting notice: (one notice in n, days after it)
_EXCHANGE_REPORTS = {"현금ㆍ현물배당결정": "dividend", "주주총회소집결의": "agm"}
_AFTER_MEETING = {"stockoption": (4, 30), "outsidedirector": (2, 31)}


def _disclosure_events(world) -> dict[str, list[tuple[dt.date, Filing]]]:
    """(day, filing) of every kind, by day: one pass over the filings, kept for the world."""

    def build() -> dict[str, list[tuple[dt.date, Filing]]]:
        out: dict[str, list[tuple[dt.date, Filing]]] = {}
        for f in world.finance.filings:
            key = _EXCHANGE_REPORTS.get(f.report_nm) if f.kind == "exchange" else f.kind
            if key is None:
                continue
            out.setdefault(key, []).append((f.rcept_dt, f))
            if key == "agm":
                for kind, (n, after) in _AFTER_MEETING.items():
                    if stable_int(world.seed, "fsc.disc", kind, f.rcept_no) % n == 0:
                        out.setdefault(kind, []).append((_next_business_day(f.rcept_dt + dt.timedelta(days=after)), f))
        for events in out.values():
            events.sort(key=lambda e: (e[0], e[1].rcept_no))
        return out

    return world.market.once(("fsc.disclosures",), build)


def _dividend_values(world, day: dt.date, filing: Filing) -> Row:
    """배당공시: this, last and the year before's par value, EPS, dividends and yields of the paying company."""
    fin, c = world.finance, filing.company
    year = int(filing.detail.get("dividend_year") or day.year - 1)
    shares = max(c.shares, 1)
    close = fin.close_before(c, day)
    out: Row = {"enpCrtmNpf": str(fin.period_values(c, year, 4, c.has_cfs)["net"])}
    out["fnclCrtmNpf"] = out["enpCrtmNpf"]
    for prefix, y in (("crtm", year), ("pvtr", year - 1), ("bpvtr", year - 2)):
        dps = fin.dividend_per_share(c, y)
        net = fin.period_values(c, y, 4, c.has_cfs)["net"]
        separate = fin.period_values(c, y, 4, False)["net"]
        out.update(
            {
                f"{prefix}ParPrc": str(c.par_value),
                f"{prefix}PstcNpf": str(net // shares),
                f"{prefix}IdvCrtmNpf": str(separate),
                f"{prefix}CashTdvdAmt": str(dps * shares),
                f"{prefix}StckTdvdAmt": "0",
                f"{prefix}CashDvdnTndnCtt": f"{dps * shares / net * 100:.2f}" if net > 0 and dps else "-",
                f"{prefix}OnskCashDvdnBnfRt": f"{dps / close * 100:.2f}" if close else "0",
                f"{prefix}OnskCashDvdnAmt": str(dps),
                **{f"{prefix}{k}": "0" for k in ("PfstCashDvdnBnfRt", "OnskStckDvdnBnfRt", "PfstStckDvdnBnfRt")},
                **{f"{prefix}{k}": "0" for k in ("PfstCashDvdnAmt", "OnskStckDvdnAmt", "PfstStckDvdnAmt")},
            }
        )
    out["pvtrCrtmNpf"] = str(fin.period_values(c, year - 1, 4, c.has_cfs)["net"])
    return out


_DISCLOSURE_EXTRA: dict[str, Callable[[Any, dt.date, Filing], Row]] = {"dividend": _dividend_values}
_NAMES = ("corpNm", "enpCorpNm", "fncoCorpNm")


def disclosures(kind: str, fields: Iterable[str], dart: dict[str, str]) -> Callable[[Any, Query], Sequence[Row]]:
    """One 공시정보 operation: the filings of ``kind`` published by the query's day (the day after), newest first.

    A record carries what the filing reports (``dart``: field → the DART report's key) and draws the rest of
    its fields from their names. basDt and crno choose by index; any other field parameter matches exactly.
    """
    names = tuple(fields)
    extra = _DISCLOSURE_EXTRA.get(kind)

    def record(world, day: dt.date, filing: Filing) -> Row:
        c = filing.company
        base = stable_int(world.seed, "fsc.disc", kind, filing.rcept_no)
        row = {n: generic_value(world, n, _mix(base, n), day, c) for n in names}
        row.update({n: c.registry_name for n in _NAMES if n in row}, basDt=ymd(day), crno=c.crno)
        if "bodRsolDt" in row:
            row["bodRsolDt"] = ymd(filing.rcept_dt)
        for n, key in dart.items():
            value = filing.detail.get(key)
            if value is not None and (value not in ("", "-") or kind_of(n) != "date"):
                row[n] = _dart_value(n, str(value))
        if extra is not None:
            row.update(extra(world, day, filing))
        return row

    def table(world, q: Query) -> Sequence[Row]:
        events = _disclosure_events(world).get(kind, [])
        days = [e[0] for e in events]
        lo, hi = 0, bisect.bisect_left(days, q.as_of)  # published the day after
        day = q.date("basDt")
        if day is not None:
            lo, hi = bisect.bisect_left(days, day, 0, hi), bisect.bisect_right(days, day, 0, hi)
        chosen = events[lo:hi][::-1]
        crno = q.get("crno")
        if crno is not None:
            chosen = [e for e in chosen if e[1].company.crno == crno]
        rows = LazyRows(chosen, lambda e: record(world, e[0], e[1]))
        keep = _filters(q, names, _PAGING | {"basDt", "crno"})
        return [r for r in rows if all(f(r) for f in keep)] if keep else rows

    table.__name__ = f"disclosures_{kind}"
    return table


# -- 주식발행정보 (GetStocIssuInfoService_V2/_V3): listed stocks as the depository registers them ----------

_ISSUE_REASONS = (("01", "설립"), ("02", "공모"), ("03", "유상증자"))
_LISTING_KINDS = {"KOSPI": ("1", "유가증권시장"), "KOSDAQ": ("2", "코스닥시장"), "KONEX": ("6", "코넥스시장")}


def _snapshot(
    make: Callable[[Any, Company, dt.date], list[Row]], count: Callable[[Any, Company, dt.date], int] | None = None
) -> Callable[[Any, Query], Sequence[Row]]:
    """A per-company snapshot on basDt (a published trading day; the latest when not given), lazily.

    ``count`` says cheaply how many rows ``make`` gives a company that day; without it a company has one.
    """

    def table(world, q: Query) -> Sequence[Row]:
        fin = world.finance
        visible = fin.visible_days(q.as_of)
        day = q.date("basDt") or (visible[-1] if visible else None)
        if day is None or day >= q.as_of or fin.day_column(day) is None:
            return []
        crno, isin, name = q.get("crno"), q.get("isinCd"), q.get("stckIssuCmpyNm")
        if crno is not None or isin is not None:
            found = fin.by_crno.get(crno or "") if crno is not None else fin.by_isin.get(isin or "")
            pool: Sequence[Company] = [found] if found is not None and found.listed else []
            if crno is not None and isin is not None:
                pool = [c for c in pool if c.isin == isin]
        else:
            pool = fin.listed
        if name is not None:
            pool = [c for c in pool if name in c.corp_name]
        if len(pool) <= 64:
            return [r for c in pool for r in make(world, c, day)]
        if count is None:
            return LazyRows(pool, lambda c: make(world, c, day)[0])
        index = [(c, i) for c in pool for i in range(count(world, c, day))]
        return LazyRows(index, lambda key: make(world, key[0], day)[key[1]])

    table.__name__ = make.__name__
    return table


def _stock_head(c: Company, day: dt.date) -> Row:
    return {
        "basDt": ymd(day),
        "crno": c.crno,
        "isinCd": c.isin,
        "isinCdNm": f"{c.corp_name}보통주",
        "itmsShrtnCd": c.stock_code,
        "stckIssuCmpyNm": c.corp_name,
        "scrsItmsKcd": "0101",
        "scrsItmsKcdNm": "보통주",
    }


def _listed_on(c: Company) -> dt.date:
    return dt.date(int(c.list_dt[:4]), int(c.list_dt[4:6]), int(c.list_dt[6:]))


def item_basics(world, c: Company, day: dt.date) -> list[Row]:
    listed = _listed_on(c)
    return [
        {
            **_stock_head(c, day),
            "stckParPrc": str(c.par_value),
            "issuStckCnt": str(c.shares),
            "lstgDt": c.list_dt,
            "lstgAbolDt": "",
            "dpsgRegDt": ymd(listed - dt.timedelta(days=7)),
            "dpsgCanDt": "",
            "issuFrmtClsfNm": "전자등록",
        }
    ]


def _issuances(world, c: Company, day: dt.date) -> list[tuple[dt.date, str, str, int]]:
    """(day, reason code, reason, shares) of every issuance by ``day``: founding, IPO, rights offerings."""

    def build() -> dict[str, list[tuple[dt.date, str, str, int]]]:
        offerings: dict[str, list[tuple[dt.date, str, str, int]]] = {}
        for when, f in _disclosure_events(world).get("piic", []):
            pay = _next_business_day(when + dt.timedelta(days=30))
            count = int(f.detail["nstk_ostk_cnt"].replace(",", ""))
            offerings.setdefault(f.company.crno, []).append((pay, *_ISSUE_REASONS[2], count))
        return offerings

    est = dt.date(int(c.est_dt[:4]), int(c.est_dt[4:6]), int(c.est_dt[6:]))
    founders = c.shares * (40 + stable_int(world.seed, "fsc.issue", c.crno) % 40) // 100
    out = [(est, *_ISSUE_REASONS[0], founders), (_listed_on(c), *_ISSUE_REASONS[1], c.shares - founders)]
    out += world.market.once(("fsc.offerings",), build).get(c.crno, [])
    return [e for e in sorted(out) if e[0] <= day]


def stock_issues(world, c: Company, day: dt.date) -> list[Row]:
    return [
        {
            **_stock_head(c, day),
            "scrsDcd": "1",
            "stckIssuSqno": str(n),
            "stckIssuDt": ymd(when),
            "stckIssuDcnt": str(n),
            "stckIssuRcd": code,
            "stckIssuRcdNm": reason,
            "issuStckCnt": str(count),
            "lstgDt": ymd(_next_business_day(when + dt.timedelta(days=14))) if code != "01" else c.list_dt,
        }
        for n, (when, code, reason, count) in enumerate(_issuances(world, c, day), 1)
    ]


def lockups(world, c: Company, day: dt.date) -> list[Row]:
    """의무보호예수: the largest holder's shares after an IPO (6 months), new shares of a rights offering (1 year)."""
    code, name = _LISTING_KINDS.get(c.market, ("", ""))
    out = []
    for when, reason, _, count in _issuances(world, c, day):
        if reason == "01":
            continue
        months = 6 if reason == "02" else 12
        back = _next_business_day(when + dt.timedelta(days=30 * months))
        registered = count if reason != "02" else c.shares * 30 // 100
        out.append(
            {
                **_stock_head(c, day),
                "lstgDcd": code,
                "lstgDcdNm": name,
                "lkupRegDt": ymd(when),
                "lkupRegStckCnt": str(registered),
                "rsrnDt": ymd(back),
                "rsrnStckCnt": str(registered if back <= day else 0),
                "afrsRsqtCnt": str(0 if back <= day else registered),
                "stckLblHoldRcd": "01" if reason == "02" else "03",
                "stckLblHoldRcdNm": "상장(최대주주)" if reason == "02" else "모집(전매제한)",
                "lblProtTsumIssuStckCnt": str(c.shares),
            }
        )
    return out


def issue_stats(world, c: Company, day: dt.date) -> list[Row]:
    preferred = c.shares // 20 if c.market == "KOSPI" and stable_int(world.seed, "fsc.pref", c.crno) % 5 == 0 else 0
    return [
        {
            "basDt": ymd(day),
            "crno": c.crno,
            "stckIssuCmpyNm": c.corp_name,
            "onskTisuCnt": str(c.shares),
            "pfstTisuCnt": str(preferred),
        }
    ]


# -- 채권기본정보 (GetBondIssuInfoService_V2): listed government bonds, SRI bonds, the world's CB and BW --------

_BOND_CODES = {
    "국고채": ("1111", "국고채권", "11", "국채"),
    "지방채": ("1211", "지방채권", "12", "지방채"),
    "특수채": ("1311", "특수채권", "13", "특수채"),
    "회사채": ("1411", "일반회사채", "14", "회사채"),
    "cvbd": ("1421", "전환사채", "14", "회사채"),
    "bdwt": ("1431", "신주인수권부사채", "14", "회사채"),
}


def _bond_index(world) -> list[Row]:
    """Every bond's terms, by ISIN: the market world's listed bonds and SRI bonds, and the world's CB and BW."""

    def build() -> list[Row]:
        from kopa_replay.sim.world.market import _sri_bonds

        out: list[Row] = []
        day = world.finance.days[-1]
        for service in ("kts_bydd_trd", "bnd_bydd_trd", "smb_bydd_trd"):
            for r in world.market.rows("bond", service, day):
                name = r["ISU_NM"]
                if name.startswith("국고"):
                    coupon, expiry = int(name[2:7]) / 100, name[8:12]
                    issued = 2000 + int(name[name.index("(") + 1 : name.index("-", name.index("("))])
                    kind, issuer = "국고채", "대한민국정부"
                    start, end = f"{issued}{expiry[2:]}10", f"20{expiry[:2]}{expiry[2:]}10"
                else:
                    issued = 2000 + int(name.split()[-1][:2])
                    coupon, kind = 1.3, "지방채" if "지역" in name or "도시" in name else "국고채"
                    issuer = "서울특별시" if "서울" in name else ("대한민국정부" if kind == "국고채" else "경기도")
                    start, end = f"{issued}0131", f"{issued + 5}0131"
                out.append(
                    {
                        "isinCd": r["ISU_CD"],
                        "isinCdNm": name,
                        "bondIsurNm": issuer,
                        "crno": "",
                        "kind": kind,
                        "bondIssuDt": start,
                        "bondExprDt": end,
                        "bondSrfcInrt": f"{coupon:.3f}",
                        "bondIssuAmt": str((stable_int(world.seed, "fsc.bond", r["ISU_CD"]) % 90 + 10) * 10**11),
                        "lstgDt": start,
                        "bondOffrMcdNm": "공모",
                        "sicNm": "정부기관",
                    }
                )
        for r in _sri_bonds(world.seed):
            out.append(
                {
                    "isinCd": r["ISU_CD"],
                    "isinCdNm": r["ISU_NM"],
                    "bondIsurNm": r["ISUR_NM"],
                    "crno": "",
                    "kind": "특수채" if "공사" in r["ISUR_NM"] or "공단" in r["ISUR_NM"] else "회사채",
                    "bondIssuDt": r["ISU_DD"],
                    "bondExprDt": r["REDMPT_DD"],
                    "bondSrfcInrt": r["ISU_RT"],
                    "bondIssuAmt": r["ISU_AMT"],
                    "lstgDt": r["LIST_DD"],
                    "bondOffrMcdNm": "공모",
                    "sicNm": "금융업",
                }
            )
        for kind in ("cvbd", "bdwt"):
            for day_, f in _disclosure_events(world).get(kind, []):
                c, d = f.company, f.detail
                series = int(d["bd_tm"])
                body = (
                    f"{series % 100:02d}" if kind == "cvbd" else f"W{series % 10}"
                )  # a CB and a BW of one series differ
                out.append(
                    {
                        "isinCd": _isin("KR6", c.stock_code + body),
                        "isinCdNm": f"{c.corp_name}{series}{'CB' if kind == 'cvbd' else 'BW'}",
                        "bondIsurNm": c.registry_name,
                        "crno": c.crno,
                        "kind": kind,
                        "bondIssuDt": _dart_value("bondIssuDt", d["pymd"]),
                        "bondExprDt": _dart_value("bondExprDt", d["bd_mtd"]),
                        "bondSrfcInrt": f"{float(d['bd_intr_ex']):.3f}",
                        "bondIssuAmt": d["bd_fta"].replace(",", ""),
                        "lstgDt": "",
                        "bondOffrMcdNm": d["bdis_mthn"],
                        "sicNm": c.sector,
                    }
                )
        out.sort(key=lambda r: r["isinCd"])
        return out

    return world.market.once(("fsc.bonds",), build)


def _bond_record(world, bond: Row, day: dt.date, fields: tuple[str, ...]) -> Row:
    kcd, knm, ucd, unm = _BOND_CODES[bond["kind"]]
    issued = parse_ymd(bond["bondIssuDt"]) or day
    base = stable_int(world.seed, "fsc.bond", bond["isinCd"])
    company = world.finance.by_crno.get(bond["crno"]) or world.finance.lightron
    row = {n: generic_value(world, n, _mix(base, n), issued, company) for n in fields}
    amount = int(bond["bondIssuAmt"])
    row.update({k: v for k, v in bond.items() if k != "kind"})
    months = 3 if bond["kind"] in ("cvbd", "bdwt") else 6
    expiry = parse_ymd(bond["bondExprDt"]) or day
    coupon, previous = issued, issued
    while coupon <= min(day, expiry) and coupon < expiry:
        previous, coupon = coupon, _add_months(coupon, months)
    corporate = bond["kind"] not in ("국고채", "지방채")
    broker = ("미래에셋증권", "NH투자증권", "한국투자증권", "삼성증권", "KB증권", "신한투자증권")[base % 6]
    rating = ("AAA", "AA+", "AA", "AA-", "A+", "A", "A-", "BBB+", "BBB", "BBB-")[
        base % 10 if bond["kind"] == "회사채" else 0
    ]
    rated = bond["kind"] in ("회사채", "특수채")
    row.update(
        bondIssuFrmtNm="전자등록"
        if issued >= dt.date(2019, 9, 16)
        else ("국채등록" if bond["kind"] == "국고채" else "공사채등록"),
        nxtmCopnDt=ymd(coupon) if coupon <= expiry and previous < expiry else "",
        rbfCopnDt=ymd(previous) if previous > issued else "",
        bondUndtInstNm=broker if corporate else "",
        bondGrnInstNm="",
        cpbdMngCmpyNm=broker if bond["kind"] in ("회사채", "cvbd", "bdwt") else "",
        **{f"{agency}ScrsItmsKcdNm": rating if rated else "" for agency in ("kis", "kbp", "nice", "fn")},
    )
    row.update(
        basDt=ymd(day),
        scrsItmsKcd=kcd,
        scrsItmsKcdNm=knm,
        bondIssuCurCd="KRW",
        bondIssuCurCdNm="KRW",
        irtChngDcd="1",
        irtChngDcdNm="고정",
        grnDcd="3",
        grnDcdNm="무보증",
        bondRnknDcd="1",
        bondRnknDcdNm="선순위",
        optnTcd="0" if bond["kind"] not in ("cvbd", "bdwt") else "4",
        optnTcdNm="해당없음" if bond["kind"] not in ("cvbd", "bdwt") else "주식관련옵션",
        pclrBondKcd=ucd,
        pclrBondKcdNm=unm,
        bondPymtAmt=str(amount),
        bondBal=str(amount if bond["bondExprDt"] > ymd(day) else 0),
        bondOffrMcd="1" if bond["bondOffrMcdNm"] == "공모" else "2",
        txtnDcd="1",
        txtnDcdNm="과세",
        pamtRdptMcd="1",
        pamtRdptMcdNm="만기일시상환",
        stripsPsblYn="Y" if bond["kind"] == "국고채" else "N",
        stripsNm="",
        prisLnkgBondYn="N",
        piamPayInstNm="한국예탁결제원",
        cptUsgeDcd="2",
        cptUsgeDcdNm="운영자금",
        bondRegInstDcd="1",
        bondRegInstDcdNm="한국예탁결제원",
        crfndYn="N",
        prmncBondYn="N",
        qibTrgtScrtYn="N",
        prmncBondTmnDt="",
        qibTmnDt="",
        intCmpuMcd="1",
        intCmpuMcdNm="이표채",
        bondIntTcd="1",
        bondIntTcdNm="이표채",
        intPayCyclCtt="3개월" if bond["kind"] in ("cvbd", "bdwt") else "6개월",
    )
    return row


def _add_months(day: dt.date, months: int) -> dt.date:
    month = day.month - 1 + months
    return dt.date(day.year + month // 12, month % 12 + 1, min(day.day, 28))


def bond_basics(fields: Iterable[str]) -> Callable[[Any, Query], Sequence[Row]]:
    """getBondBasiInfo_V2: the bonds issued by basDt (a published day, the latest when not given)."""
    names = tuple(fields)

    def table(world, q: Query) -> Sequence[Row]:
        visible = world.finance.visible_days(q.as_of)
        day = q.date("basDt") or (visible[-1] if visible else None)
        if day is None or day >= q.as_of:
            return []
        bonds = [b for b in _bond_index(world) if b["bondIssuDt"] <= ymd(day)]
        isin, crno = q.get("isinCd"), q.get("crno")
        bonds = [b for b in bonds if (isin is None or b["isinCd"] == isin) and (crno is None or b["crno"] == crno)]
        rows = LazyRows(bonds, lambda b: _bond_record(world, b, day, names))
        keep = _filters(q, names, _PAGING | {"basDt", "crno", "isinCd"})
        return [r for r in rows if all(f(r) for f in keep)] if keep else rows

    table.__name__ = "bond_basics"
    return table


# -- 금융회사지배구조정보 (GetFnCoGoveInfoService): every financial company (KSIC 649) ------------------------


def _governance(make: Callable[[Any, Company, str], list[Row]]) -> Callable[[Any, Query], Sequence[Row]]:
    def table(world, q: Query) -> Sequence[Row]:
        day = ymd(q.date("basDt") or previous_business_day(q.as_of))
        crno = q.get("crno")
        if crno is not None:
            company = world.finance.by_crno.get(crno)
            return make(world, company, day) if company is not None and company.induty_code == _FINANCE_SECTOR else []
        pool = _financial_pool(world)
        index = world.market.once(
            (f"fsc.{make.__name__}",), lambda: [(c, i) for c in pool for i in range(len(make(world, c, day)))]
        )
        return LazyRows(index, lambda key: make(world, key[0], day)[key[1]])

    table.__name__ = make.__name__
    return table


def _fnco_shares(world, c: Company) -> int:
    return c.shares or (stable_int(world.seed, "fsc.fnco.shares", c.crno) % 90 + 10) * 100_000


def fnco_holders(world, c: Company, day: str) -> list[Row]:
    shares = _fnco_shares(world, c)
    if c.listed:
        year = int(day[:4]) - 1
        held = [(h["nm"], h["relate"], h["end"]) for h in world.finance.holders(c, year, 4)]
    else:
        parent = _financial_pool(world)[stable_int(world.seed, "fsc.fnco.parent", c.crno) % len(_financial_pool(world))]
        held = [(parent.registry_name, "최대주주", shares)]
    return [
        {
            "basDt": day,
            "crno": c.crno,
            "sthdSqno": str(n),
            "sthdFnm": name,
            "maxSthdRltNm": "본인" if n == 1 else relation,
            "stckCsfNm": "보통주",
            "fncoEoteStckCnt": str(count),
            "fncoEoteShrRatCtt": f"{count / shares * 100:.2f}",
        }
        for n, (name, relation, count) in enumerate(held, 1)
    ]


def _executives(world, c: Company) -> list[tuple[str, str, int]]:
    """(name, title, hash) of a company's officers: the CEO first."""
    h = stable_int(world.seed, "fsc.fnco.execs", c.crno)
    titles = ("대표이사", "사내이사", "사외이사", "사외이사", "감사", "상무", "전무", "사외이사")
    return [(c.ceo, "대표이사", h)] + [
        (_person(_mix(h, str(n))), titles[1 + n], _mix(h, f"t{n}")) for n in range(2 + h % 6)
    ]


def fnco_ceos(world, c: Company, day: str) -> list[Row]:
    _, _, h = _executives(world, c)[0]
    start = dt.date(2015 + h % 10, 3, 20 + h % 8)
    return [
        {
            "basDt": day,
            "crno": c.crno,
            "fncoNm": c.registry_name,
            "ceoFnm": c.ceo,
            "ceoJbttNm": "대표이사",
            "rgstExutYn": "Y",
            "ceoFltmsvYn": "Y",
            "ceoChrgBzwrCtt": "경영총괄",
            "ceoMainCrrCtt": f"{c.registry_name} 부사장",
            "ownOnskCnt": str(_fnco_shares(world, c) * (h % 50) // 1000),
            "ownPfstCnt": "0",
            "maxSthdRltNm": "임원",
            "ceoHdfTermCtt": f"{2026 - start.year}년",
            "ceoTrmXpryDt": ymd(start.replace(year=start.year + 3 * (1 + (2026 - start.year) // 3))),
        }
    ]


def fnco_pay(world, c: Company, day: str) -> list[Row]:
    execs = _executives(world, c)
    h = execs[0][2]
    board = sum(1 for _, t, _ in execs if t in ("대표이사", "사내이사"))
    outside = sum(1 for _, t, _ in execs if t == "사외이사")
    audit = sum(1 for _, t, _ in execs if t == "감사")
    avg = (300 + h % 1200) * 1_000_000
    return [
        {
            "basDt": day,
            "crno": c.crno,
            "rgstDrtrCnt": str(board),
            "rgstDrtrTrmrAmt": str(board * avg),
            "rgstDrtrAvgRmrAmt": str(avg),
            "rgstDrtrRmkCtt": "",
            "otdrCnt": str(outside),
            "otdrTrmrAmt": str(outside * 60_000_000),
            "otdrAvgRmrAmt": str(60_000_000 if outside else 0),
            "otdrRmkCtt": "",
            "audpnCnt": str(audit),
            "audpnTrmrAmt": str(audit * 90_000_000),
            "audpnAvgRmrAmt": str(90_000_000 if audit else 0),
            "audtRmkCtt": "",
        }
    ]


def fnco_officers(world, c: Company, day: str) -> list[Row]:
    out = []
    for n, (name, title, h) in enumerate(_executives(world, c), 1):
        registered = title in ("대표이사", "사내이사", "사외이사", "감사")
        full_time = title not in ("사외이사",)
        own = _fnco_shares(world, c) * (h % 20) // 10_000 if full_time else 0
        out.append(
            {
                "basDt": day,
                "crno": c.crno,
                "dataSqno": str(n),
                "exutFnm": name,
                "exutBornYm": f"{1955 + h % 30}{1 + (h >> 8) % 12:02d}",
                "exutJbttNm": title,
                "rgstExutYn": "Y" if registered else "N",
                "rgstExutCtt": "등기임원" if registered else "미등기",
                "fltmsvYn": "Y" if full_time else "N",
                "fltmsvCtt": "상근" if full_time else "비상근",
                "chrgBzwrCtt": "경영총괄" if n == 1 else ("이사회 운영" if title == "사외이사" else "경영지원"),
                "mainCrrCtt": f"{_financial_pool(world)[h % len(_financial_pool(world))].registry_name} 임원",
                "onskOwnStckCnt": str(own),
                "pfstOwnStckCnt": "0",
                "exutHdfTermCtt": f"{1 + h % 12}년",
                "exutTrmXpryDt": ymd(dt.date(2026 + h % 3, 3, 31)),
                "sexCd": "1" if h % 5 else "2",
                "sexCdNm": "남" if h % 5 else "여",
                "exutOwnOnskCnt": str(own),
                "exutOwnPfstCnt": "0",
            }
        )
    return out


# -- statistics and listings declared by their rows (options.stats): 금융투자협회 종합통계, ISA, 실손보험, ---------
# -- 펀드표준코드, 주식권리일정, 개인사업자 -------------------------------------------------------------------------
#
# One table for every such row. Its records are the periods the row's ``period`` publishes by the as-of day
# (``day``: the finance world's visible business days; ``month``: YYYYMM, a month published on the first day of
# the month ``lag`` months later; ``month_end``: the same months as their last day; ``none``: no period field),
# newest first, × its categories: the product of its ``axes`` (field → vocabulary; the fields of one mapping
# move together), or ``draw.count`` records per period whose fields are drawn from the ``pick`` vocabularies
# (``stable``: the same records with the same values every period, so declare their dates absolute) × the axes.
# Every other field is drawn from its ``values`` declaration (a range, a case by a category, a date, a code, a
# template, a sum) or from its name (``kind_of``), by a hash of (seed, operation or ``population``, period,
# category): the same call answers the same bytes in every process. The gateway's filters apply (exact,
# like…, begin…/end… as [begin, end); ``contains`` fields match their own parameter as a substring, ``bounds``
# fields take …Min/…Max as open bounds); filters on the period and the categories choose keys, so only the page
# served is made unless a value field is filtered.

_WORLD_VOCABULARIES: dict[str, Callable[[Any], list[Any]]] = {
    "sigungu": lambda world: [s.full_name for s in world.regions.sigungu],
    "sido": lambda world: [s.name for s in world.regions.sido],
    "listed": lambda world: list(world.finance.listed),
}


def _vocabulary(world, values: Any) -> list[str]:
    """A declared vocabulary: a list, ``{range: [lo, hi]}`` or ``world:<name>[.<attribute>]``."""
    if isinstance(values, str) and values.startswith("world:"):
        source, _, attribute = values[len("world:") :].partition(".")
        items = world.market.once(("fsc.stats.vocabulary", source), lambda: _WORLD_VOCABULARIES[source](world))
        return [str(getattr(item, attribute)) for item in items] if attribute else [str(i) for i in items]
    if isinstance(values, dict):
        lo, hi = values["range"]
        return [str(n) for n in range(lo, hi + 1)]
    return [str(v) for v in values]


def _choices(world, group: dict[str, Any]) -> list[Row]:
    """The entries of one axis or pick: fields moving together, one dict per position."""
    columns = {name: _vocabulary(world, values) for name, values in group.items()}
    return [dict(zip(columns, entry)) for entry in zip(*columns.values(), strict=True)]


def _month_text(year: int, month: int) -> str:
    return f"{year:04d}{month:02d}"


def _month_end(text: str) -> str:
    year, month = int(text[:4]), int(text[4:6])
    following = dt.date(year + month // 12, month % 12 + 1, 1)
    return ymd(following - dt.timedelta(days=1))


def _valid_period(kind: str, text: str) -> bool:
    if kind == "month":
        return len(text) == 6 and text.isdigit() and 1 <= int(text[4:]) <= 12
    return parse_ymd(text) is not None


def _published(world, spec: dict[str, Any], as_of: dt.date) -> list[str]:
    """The period texts published by ``as_of``, oldest first: a business day the next business day (the finance
    world's visible days), a month on the first day of the month ``lag`` months later."""
    kind = spec.get("kind", "day")
    if kind == "none":
        return [""]
    if kind == "day":
        return [ymd(d) for d in world.finance.visible_days(as_of)]
    first, lag = str(spec["since"]), int(spec.get("lag", 1))
    months = set(spec.get("months") or range(1, 13))
    last = as_of.year * 12 + as_of.month - 1 - lag
    out = []
    for n in range(int(first[:4]) * 12 + int(first[4:6]) - 1, last + 1):
        if n % 12 + 1 in months:
            text = _month_text(n // 12, n % 12 + 1)
            out.append(_month_end(text) if kind == "month_end" else text)
    return out


def _period_filters(q: Query, field: str, kind: str) -> tuple[set[str], list[Callable[[str], bool]]]:
    """The parameters on the period field and what they keep: exact, like, begin (inclusive), end (exclusive);
    an exact, begin or end value that is not a period of the field's kind is refused by name."""
    stem = field[0].upper() + field[1:]
    params = {field: "", f"like{stem}": "like", f"begin{stem}": "begin", f"end{stem}": "end"}
    keep: list[Callable[[str], bool]] = []
    for param, how in params.items():
        value = q.get(param)
        if value is None:
            continue
        if how != "like" and not _valid_period("month" if kind == "month" else "day", value):
            raise BadParam(param, value)
        if how == "like":
            keep.append(lambda t, v=value: v in t)
        elif how == "begin":
            keep.append(lambda t, v=value: t >= v)
        elif how == "end":
            keep.append(lambda t, v=value: t < v)
        else:
            keep.append(lambda t, v=value: t == v)
    return set(params), keep


def _bound_filters(q: Query, fields: Iterable[str]) -> list[Callable[[Row], bool]]:
    """``<field>Min`` / ``<field>Max``: the value greater / less than the bound (개인사업자 재무정보's convention)."""
    out: list[Callable[[Row], bool]] = []
    for name in fields:
        for suffix, above in (("Min", True), ("Max", False)):
            bound = _number(q.get(f"{name}{suffix}") or "x")
            if bound is not None:
                out.append(
                    lambda r, n=name, b=bound, a=above: (
                        (value := _number(r.get(n) or "x")) is not None and (value > b if a else value < b)
                    )
                )
    return out


def _period_day(kind: str, text: str, as_of: dt.date) -> dt.date:
    if kind == "none":
        return previous_business_day(as_of)
    if kind == "month":
        return dt.date(int(text[:4]), int(text[4:6]), 1)
    return parse_ymd(text) or as_of


#: how far a ranged value strays from its category's level in any period (±3 %, so neighbouring periods differ by at
#: most ≈6 %): a series around a level, not a fresh draw across the whole range each period
_PERIOD_JITTER = 0.03


def _value(world, name: str, how: Any, h: int, day: dt.date, row: Row, level: int | None = None) -> str:
    """A field's value by its declaration (see the notes above), or from its name when it declares none.

    ``level``: a hash of the category alone (no period); a ranged value then stays within a few per cent of the
    category's own level from period to period, as a published series does, instead of jumping across its range.
    """
    if how is None:
        kind = kind_of(name)
        if kind == "date":
            return ymd(day)
        if kind == "yn":
            return "Y" if h % 4 == 0 else "N"
        if kind == "year":
            return str(day.year - 1)
        if kind == "count":
            return str(1 + h % 100_000)
        if kind == "amount":
            return str((1 + h % 1_000_000) * 1_000_000)
        if kind == "ratio":
            return f"{(h % 10_000) / 100:.2f}"
        return ""
    if not isinstance(how, dict):
        return str(how)
    if "by" in how:  # the declaration of the case the row's category names: {by: field, cases: {value: …}}
        return _value(world, name, how["cases"].get(row.get(how["by"])), h, day, row, level)
    if "min" in how:
        decimals = int(how.get("decimals", 0))
        scale = 10**decimals
        lo, hi = round(how["min"] * scale), round(how["max"] * scale)
        value = lo + h % (hi - lo + 1)
        if level is not None:
            jitter = 1 + _PERIOD_JITTER * ((h % 2001) - 1000) / 1000
            value = min(hi, max(lo, round((lo + level % (hi - lo + 1)) * jitter)))
        step = int(how.get("step", 1))
        value -= value % step
        return f"{value / scale:.{decimals}f}" if decimals else str(value)
    if "days" in how:
        lo, hi = how["days"]
        return ymd(day + dt.timedelta(days=lo + h % (hi - lo + 1)))
    if "dates" in how:
        lo, hi = (parse_ymd(str(d)) for d in how["dates"])
        assert lo is not None and hi is not None
        return ymd(lo + dt.timedelta(days=h % ((hi - lo).days + 1)))
    if "years" in how:
        lo, hi = how["years"]
        return str(day.year + lo + h % (hi - lo + 1))
    if "digits" in how:
        n = int(how["digits"])
        return f"{how.get('prefix', '')}{h % 10**n:0{n}d}"
    if "pick" in how:
        choices = _vocabulary(world, how["pick"])
        return choices[h % len(choices)]
    if "text" in how:
        return str(how["text"]).format(**row)
    if "sum" in how:
        return str(sum(int(row[n]) for n in how["sum"]))
    raise ValueError(f"unknown value declaration {how!r} of {name}")


def stats(op) -> Callable[[Any, Query], Sequence[Row]]:
    """The table of one row declaring ``options.stats`` (see the notes above)."""
    spec = dict(op.options["stats"])
    period = dict(spec.get("period") or {"kind": "none"})
    kind, period_field = period.get("kind", "day"), period.get("field", "")
    axes, picks = list(spec.get("axes") or []), list(spec.get("pick") or [])
    draw = dict(spec.get("draw") or {})
    count, stable = int(draw.get("count", 0)), bool(draw.get("stable", False))
    values = dict(spec.get("values") or {})
    contains = set(spec.get("contains") or ())
    bounds = tuple(spec.get("bounds") or ())
    names = tuple(op.fields)
    category_names = {n for group in (*axes, *picks) for n in group}
    #: rows of one population (the 개인사업자 재무정보 operations) draw the same records and the same values
    namespace = ("fsc.stats", str(spec.get("population", op.tool)))

    def combos(world) -> list[Row]:
        def build() -> list[Row]:
            out: list[Row] = [{}]
            for group in axes:
                out = [{**made, **entry} for made in out for entry in _choices(world, group)]
            return out

        return world.market.once(("fsc.stats", op.tool, "axes"), build)

    def drawn(world, text: str) -> list[Row]:
        """The categories of a period: the axes' product, or ``count`` drawn records × the axes' product."""
        if not count:
            return combos(world)

        def build() -> list[Row]:
            groups = [_choices(world, group) for group in picks]
            out = []
            for i in range(count):
                base = stable_int(world.seed, *namespace, "" if stable else text, i)
                record: Row = {"#": str(i)}
                for j, entries in enumerate(groups):
                    record.update(entries[_mix(base, f"pick{j}") % len(entries)])
                out += [{**record, **combo} for combo in combos(world)]
            return out

        return world.market.once(("fsc.stats", op.tool, "drawn", "" if stable else text), build)

    def record(world, as_of: dt.date, text: str, category: Row) -> Row:
        key = "\x1f".join(str(category.get(n, "")) for n in sorted(category))
        base = stable_int(world.seed, *namespace, "" if stable else text, key)  # a stable record keeps its values
        day = _period_day(kind, text, as_of)
        row: Row = {**category}
        if period_field:
            row[period_field] = text
        templates = []
        for name in names:
            if name in row:
                continue
            how = values.get(name)
            if isinstance(how, dict) and ("text" in how or "sum" in how):
                templates.append((name, how))  # made from the row's other fields, once they are all made
                continue
            h = _mix(base, name)
            if isinstance(how, dict) and "per" in how:  # the same value wherever these categories are the same
                h = _mix(stable_int(world.seed, *namespace, *(category.get(n, "") for n in how["per"])), name)
            per = isinstance(how, dict) and "per" in how  # already the same in every period
            level = _mix(stable_int(world.seed, *namespace, "level", key), name) if period_field and not per else None
            row[name] = _value(world, name, how, h, day, row, level)
        for name, how in templates:
            row[name] = _value(world, name, how, 0, day, row)
        return row

    def table(world, q: Query) -> Sequence[Row]:
        skip = set(_PAGING)
        texts = _published(world, period, q.as_of)[::-1]  # newest first
        if period_field:
            params, keep_period = _period_filters(q, period_field, kind)
            skip |= params
            texts = [t for t in texts if all(f(t) for f in keep_period)]
        # a field in ``contains`` matches its own parameter as a substring (개인사업자: bizAreaNm, bizBzcCdNm)
        inside = {n: v for n in contains if (v := q.get(n)) is not None}
        skip |= contains | {f"{n}{s}" for n in bounds for s in ("Min", "Max")}
        on_category = _filters(q, category_names, skip)
        on_value = _filters(q, [n for n in names if n not in category_names and n != period_field], skip)
        on_value += _bound_filters(q, bounds)
        for n, v in inside.items():
            (on_category if n in category_names else on_value).append(lambda r, n=n, v=v: v in str(r.get(n) or ""))
        if not texts:
            return []

        def chosen(text: str) -> list[Row]:
            found = drawn(world, text)
            return [c for c in found if all(f(c) for f in on_category)] if on_category else found

        if count and not stable:
            keys: Sequence[Any] = [(t, c) for t in texts for c in chosen(t)]
        else:
            population = chosen(texts[0])
            if stable and on_value:  # a stable record's values are the same every period: filtered once
                population = [c for c in population if all(f(record(world, q.as_of, texts[0], c)) for f in on_value)]
                on_value = []
            keys = Grid(texts, population)
        rows = LazyRows(keys, lambda key: record(world, q.as_of, key[0], key[1]))
        return [r for r in rows if all(f(r) for f in on_value)] if on_value else rows

    table.__name__ = f"stats_{op.tool}"
    return table


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
    "item_basics": _snapshot(item_basics),
    "stock_issues": _snapshot(stock_issues, lambda world, c, day: len(_issuances(world, c, day))),
    "lockups": _snapshot(lockups, lambda world, c, day: len(_issuances(world, c, day)) - 1),
    "issue_stats": _snapshot(issue_stats),
    "fnco_holders": _governance(fnco_holders),
    "fnco_ceos": _governance(fnco_ceos),
    "fnco_pay": _governance(fnco_pay),
    "fnco_officers": _governance(fnco_officers),
}


def _row_tables() -> dict[str, Callable[[Any, Query], Sequence[Row]]]:
    """The tables a row shapes (its fields, the DART keys it reads): 공시정보 ``disclosure:<kind>``, 채권기본정보,
    and every ``stats:<name>`` row (options.stats: periods × categories, see :func:`stats`)."""
    from kopa_replay.sim.tables import load_table

    out: dict[str, Callable[[Any, Query], Sequence[Row]]] = {}
    for op in load_table("fsc").operations:
        if op.table.startswith("disclosure:"):
            out[op.table] = disclosures(op.table.split(":", 1)[1], op.fields, dict(op.options.get("dart") or {}))
        elif op.table in ("bond_basics", "bond_issues"):
            out[op.table] = bond_basics(op.fields)
        elif op.table.startswith("stats:"):
            out[op.table] = stats(op)
    return out


TABLES.update(_row_tables())
