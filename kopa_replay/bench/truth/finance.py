"""Truth for the finance tasks (curated/finance.yaml): OpenDART, KRX and the 금융위원회 services on data.go.kr.

Every answer is read from ``world.finance`` (companies, daily bars, filings, statement figures), mirroring what
the platforms filter: a filing counts once received on or before the as-of day, a day's prices exist from the next
day on, a periodic report's sections once the report is filed. Where the DART platform builds a report section's
rows in a pure helper (``dividend_rows``, ``holder_rows``, ``employee_rows`` of kopa_replay/sim/platforms/dart.py),
the truth calls that helper and reads the row a person would read, instead of restating its formulas.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Mapping
from typing import Any

from kopa_replay.sim.platforms.dart import dividend_rows, employee_rows, holder_rows

CB_TITLE = "주요사항보고서(전환사채권발행결정)"
INSIDER_TITLE = "임원ㆍ주요주주특정증권등소유상황보고서"


# -- helpers ---------------------------------------------------------------------------------------------------
def _day(text: Any) -> dt.date:
    s = str(text)
    return dt.date(int(s[:4]), int(s[4:6]), int(s[6:8]))


def _num(text: Any) -> float:
    s = str(text).replace(",", "").strip()
    return float(s) if "." in s else int(s)


def _as_of(as_of: Any) -> dt.date:
    return as_of if isinstance(as_of, dt.date) else dt.date.fromisoformat(str(as_of))


def _listed(world, name: str):
    """The one listed company of this name (listed names are unique)."""
    found = [c for c in world.finance.listed if c.corp_name == name]
    if len(found) != 1:
        raise ValueError(f"{name!r}: {len(found)} listed companies")
    return found[0]


def _named(world, part: str) -> list:
    """Every company whose DART name contains ``part`` (what the name lookup finds)."""
    return [c for c in world.finance.companies if part in c.corp_name]


def _filings(world, company, as_of, begin: str, end: str) -> list:
    """The company's receipts in [begin, end] received by the as-of day (what list.json shows)."""
    lo, hi, cut = _day(begin), _day(end), _as_of(as_of)
    return [
        f
        for f in world.finance.filings_by_corp.get(company.corp_code, ())
        if lo <= f.rcept_dt <= hi and f.rcept_dt <= cut
    ]


def _top(world, market: str, day: str, key, k: int) -> list:
    """The k listed companies of ``market`` ranked by ``key(bar)`` on ``day`` (largest first; ties keep the
    exchange's order, the short-code order KRX lists them in)."""
    fin, d = world.finance, _day(day)
    rows = [(c, fin.bar(c, d)) for c in fin.listed if c.market == market]
    ranked = sorted(rows, key=lambda cb: -key(cb[1]))
    if key(ranked[k - 1][1]) == key(ranked[k][1]):
        raise ValueError(f"a tie at rank {k}: the top {k} is not well defined")
    return [c for c, _ in ranked[:k]]


def _fluc(bar: Mapping[str, int]) -> float:
    return float(f"{bar['vs'] / bar['prev'] * 100:.2f}")  # FLUC_RT as KRX prints it


def _row(rows: Iterable[Mapping[str, Any]], **where: str) -> Mapping[str, Any]:
    found = [r for r in rows if all(str(r.get(k)) == v for k, v in where.items())]
    if len(found) != 1:
        raise ValueError(f"{where}: {len(found)} rows")
    return found[0]


def _winner(scores: Mapping[str, float], largest: bool = True) -> str:
    best = max(scores.values()) if largest else min(scores.values())
    names = [n for n, v in scores.items() if v == best]
    if len(names) != 1:
        raise ValueError(f"tie: {names}")
    return names[0]


def _pct(a: float, b: float) -> float:
    return round((a - b) / b * 100, 2)


# -- OpenDART and KRX ------------------------------------------------------------------------------------------
def cb_premium(world, as_of, slots) -> float:
    """% by which the close on ``day`` sits above the conversion price of the CB decided in [bgn, end]."""
    c = _listed(world, slots["corp"])
    cbs = [f for f in _filings(world, c, as_of, slots["bgn"], slots["end"]) if f.kind == "cvbd"]
    if len(cbs) != 1:
        raise ValueError(f"{len(cbs)} CB decisions")
    close = world.finance.bar(c, _day(slots["day"]))["close"]
    return _pct(close, _num(cbs[0].detail["cv_prc"]))


def _event_days_sum(world, as_of, slots, title: str, field: str) -> int:
    (c,) = _named(world, slots["corp"])
    days = sorted({f.rcept_dt for f in _filings(world, c, as_of, slots["bgn"], slots["end"]) if f.report_nm == title})
    return sum(world.finance.bar(c, d)[field] for d in days)


def cb_day_turnover(world, as_of, slots) -> int:
    """Sum of the company's trading value (원) over the days it disclosed a CB decision in the window."""
    return _event_days_sum(world, as_of, slots, CB_TITLE, "value")


def insider_day_volume(world, as_of, slots) -> int:
    """Sum of the company's traded shares over the days an insider ownership report was filed in the window."""
    return _event_days_sum(world, as_of, slots, INSIDER_TITLE, "volume")


def insider_count(world, as_of, slots) -> int:
    """Insider (임원ㆍ주요주주) ownership reports received in the window."""
    (c,) = _named(world, slots["corp"])
    return sum(f.report_nm == INSIDER_TITLE for f in _filings(world, c, as_of, slots["bgn"], slots["end"]))


def top_cap_insider_count(world, as_of, slots) -> int:
    """Insider ownership reports over the window, summed over the k largest companies by market cap on ``day``."""
    top = _top(world, slots["market"], slots["day"], lambda b: b["mktcap"], int(slots["k"]))
    return sum(f.report_nm == INSIDER_TITLE for c in top for f in _filings(world, c, as_of, slots["bgn"], slots["end"]))


def top_cap_eps(world, as_of, slots) -> str:
    """Of the 3 largest KOSPI companies by market cap on ``day``, the one with the highest 2025 EPS."""
    top = _top(world, "KOSPI", slots["day"], lambda b: b["mktcap"], 3)
    eps = {
        c.corp_name: _num(_row(dividend_rows(world, c, 2025, "11011"), se="(연결)주당순이익(원)")["thstrm"])
        for c in top
    }
    return _winner(eps)


def top_cap_holder(world, as_of, slots) -> str:
    """Of the 3 largest companies of ``market`` by market cap on ``day``, the one whose largest shareholder and
    related parties held the smallest stake at the end of 2025."""
    top = _top(world, slots["market"], slots["day"], lambda b: b["mktcap"], 3)
    stake = {
        c.corp_name: _num(_row(holder_rows(world, c, 2025, "11011"), nm="계")["trmend_posesn_stock_qota_rt"])
        for c in top
    }
    return _winner(stake, largest=False)


def gainers_op_profit(world, as_of, slots) -> str:
    """Of the 3 KOSDAQ stocks that rose most on ``day``, the one with the largest 2025 separate operating profit."""
    top = _top(world, "KOSDAQ", slots["day"], _fluc, 3)
    fin = world.finance
    return _winner({c.corp_name: fin.period_values(c, 2025, 4, False)["op"] for c in top})


def lg_op_profit(world, as_of, slots) -> str:
    fin = world.finance
    return _winner({c.corp_name: fin.period_values(c, int(slots["year"]), 4, True)["op"] for c in _named(world, "LG")})


def lg_op_profit_gap(world, as_of, slots) -> int:
    """LG전자's consolidated operating profit less LG화학's, of the year (won)."""
    fin, year = world.finance, int(slots["year"])
    op = {c.corp_name: fin.period_values(c, year, 4, True)["op"] for c in _named(world, "LG")}
    return op["LG전자"] - op["LG화학"]


def lg_employees(world, as_of, slots) -> int:
    return sum(
        int(_num(r["sm"]))
        for c in _named(world, "LG")
        for r in employee_rows(world, c, int(slots["year"]), slots["reprt_code"])
    )


def lg_revenue_sum(world, as_of, slots) -> int:
    """Sum of the LG companies' consolidated revenue of the year (DART prints whole won)."""
    fin = world.finance
    return sum(int(fin.period_values(c, int(slots["year"]), 4, True)["revenue"]) for c in _named(world, "LG"))


def dps_change(world, as_of, slots) -> float:
    """% change of the cash dividend per share, 2025 against 2024."""
    (c,) = _named(world, slots["corp"])
    fin = world.finance
    return _pct(fin.dividend_per_share(c, 2025), fin.dividend_per_share(c, 2024))


def cb_tally(world, as_of, slots) -> int:
    """Face value (권면총액, 원) of every CB decided in the window by KOSDAQ companies."""
    fin, lo, hi, cut = world.finance, _day(slots["bgn"]), _day(slots["end"]), _as_of(as_of)
    return sum(
        int(_num(f.detail["bd_fta"]))
        for f in fin.filings_between(lo, hi)
        if f.kind == "cvbd" and f.company.market == "KOSDAQ" and f.rcept_dt <= cut
    )


# -- 금융위원회 (data.go.kr) -------------------------------------------------------------------------------------
def _statement_listed(world, as_of, c, year: int) -> bool:
    return world.finance.periodic(c, str(year), "11011", _as_of(as_of)) is not None


def fsc_pair_sales(world, as_of, slots) -> int:
    """Sum of the listed companies' (names containing ``part``) separate revenue of the year."""
    fin, year = world.finance, int(slots["year"])
    found = [c for c in fin.listed if slots["part"] in c.corp_name and _statement_listed(world, as_of, c, year)]
    return sum(fin.period_values(c, year, 4, False)["revenue"] for c in found)


def fsc_pair_op_winner(world, as_of, slots) -> str:
    fin, year = world.finance, int(slots["year"])
    found = [c for c in fin.listed if slots["part"] in c.corp_name]
    return _winner({c.corp_name: fin.period_values(c, year, 4, False)["op"] for c in found})


def fsc_debt_separate(world, as_of, slots) -> int:
    """부채총계 of the separate (별도) balance sheet at the end of the year."""
    return world.finance.period_values(_listed(world, slots["corp"]), int(slots["year"]), 4, False)["debt"]


def fsc_month_volume(world, as_of, slots) -> int:
    """Shares traded over the trading days of [begin, end) whose prices are out by the as-of day."""
    fin, c = world.finance, _listed(world, slots["corp"])
    lo, hi = _day(slots["begin"]), _day(slots["end"])
    return sum(fin.bar(c, d)["volume"] for d in fin.visible_days(_as_of(as_of)) if lo <= d < hi)


def fsc_pair_volume(world, as_of, slots) -> int:
    """Shares traded over [begin, end), summed over the listed companies whose names contain ``part``."""
    fin, lo, hi = world.finance, _day(slots["begin"]), _day(slots["end"])
    found = [c for c in fin.listed if slots["part"] in c.corp_name]
    days = [d for d in fin.visible_days(_as_of(as_of)) if lo <= d < hi]
    return sum(fin.bar(c, d)["volume"] for c in found for d in days)
