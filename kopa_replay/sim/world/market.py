"""The market sub-world: what the KRX Open API lists beyond stocks — indices, ETF/ETN/ELW, bonds,
futures and options, oil, gold, emission permits and socially responsible bonds.

Every instrument family is a short fixed list drawn once per (seed, service); a value on a day is a
pure function of (seed, service, instrument, date) — a few seeded sine waves plus hashed daily noise —
so one (service, date) answer costs the same whatever the world's size and whatever day was asked
before. The day before (for 대비/등락률) is the same function at the previous business day.
Stock-linked families (warrants, single-stock futures and options) take their underlying companies
from ``world.finance`` (a fixed number of them, by a stable hash order), and their 목적주권 prices are
that company's own close.
"""

from __future__ import annotations

import datetime as dt
import math
from collections.abc import Callable
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from kopa_replay.sim.world.calendar import previous_business_day, ymd
from kopa_replay.sim.world.fmt import data, frozen

if TYPE_CHECKING:
    from kopa_replay.sim.world import World

__all__ = ["MarketWorld"]

Row = dict[str, str]

#: the instrument families (names as KRX publishes them, base levels): data/market.yaml
_DATA = frozen(data("market"))

_KRX_INDEXES = _DATA["krx_indexes"]
_DRV_INDEXES = _DATA["drv_indexes"]
_BOND_INDEXES = _DATA["bond_indexes"]
_ETFS = _DATA["etfs"]
_ETNS = _DATA["etns"]
_BOND_KINDS = _DATA["bond_kinds"]
_FUTURES = _DATA["futures"]
_OPTIONS = _DATA["options"]
_OILS = _DATA["oils"]
_GOLDS = _DATA["golds"]
_ETS = _DATA["ets"]
_ESG_ETPS = _DATA["esg_etps"]
_ESG_INDEXES = _DATA["esg_indexes"]
_BENEFICIARY = _DATA["beneficiary"]
_SRI_KINDS = _DATA["sri_kinds"]
_SRI_ISSUERS = _DATA["sri_issuers"]
_SRI_TYPES = _DATA["sri_types"]

_STOCK_LINKED = 12  # underlying companies per stock-linked family (fixed: cost does not grow with the world)
_MONTHS = (3, 6, 9, 12)


def _i(x: float) -> str:
    return str(int(round(x)))


def _f(x: float, digits: int = 2) -> str:
    return f"{x:.{digits}f}"


def _point_prices(q: dict) -> Row:
    """A derivative's close, change, open, high and low, in points to two decimals (futures and options alike)."""
    return {
        "TDD_CLSPRC": _f(q["close"]),
        "CMPPREVDD_PRC": _f(q["close"] - q["prev"]),
        "TDD_OPNPRC": _f(q["open"]),
        "TDD_HGPRC": _f(max(q["high"], q["open"], q["close"])),
        "TDD_LWPRC": _f(min(q["low"], q["open"], q["close"])),
    }


def _tick_trade(day: dt.date, code: str, name: str, q: dict, tick: int) -> Row:
    """A KRX daily-trade row whose prices are whole ticks of ``tick`` won (금·배출권 10, 수익증권 5)."""
    c, p = int(q["close"] // tick * tick), int(q["prev"] // tick * tick)
    return {
        "BAS_DD": ymd(day),
        "ISU_CD": code,
        "ISU_NM": name,
        "TDD_CLSPRC": str(c),
        "CMPPREVDD_PRC": str(c - p),
        "FLUC_RT": _f((c - p) / p * 100),
        "TDD_OPNPRC": _i(q["open"] // tick * tick),
        "TDD_HGPRC": _i(max(q["high"], q["open"], q["close"]) // tick * tick),
        "TDD_LWPRC": _i(min(q["low"], q["open"], q["close"]) // tick * tick),
        "ACC_TRDVOL": _i(q["volume"]),
        "ACC_TRDVAL": _i(q["volume"] * c),
    }


class MarketWorld:
    """Instrument families of the KRX Open API beyond listed stocks; rows built per (service, date)."""

    def __init__(self, world: World) -> None:
        self.world = world
        self.seed = world.seed
        self._picked: dict[tuple[str, str | None], list[Any]] = {}
        self._memo: dict[tuple, Any] = {}
        self._kinds: dict[str, Callable[[str, dt.date], list[Row]]] = {
            "index": self._index_rows,
            "bond_index": self._bond_index_rows,
            "etf": self._etf_rows,
            "etn": self._etn_rows,
            "elw": self._elw_rows,
            "bond": self._bond_rows,
            "future": self._future_rows,
            "stock_future": self._stock_future_rows,
            "option": self._option_rows,
            "stock_option": self._stock_option_rows,
            "warrant": self._warrant_rows,
            "oil": self._oil_rows,
            "gold": self._simple_rows,
            "ets": self._simple_rows,
            "sri_bond": self._sri_rows,
            "esg_etp": self._esg_etp_rows,
            "esg_index": self._esg_index_rows,
            "beneficiary": self._beneficiary_rows,
        }

    def once(self, key: tuple, build: Callable[[], Any]) -> Any:
        """``build()`` computed once per world (indexes over the world, built on first use)."""
        if key not in self._memo:
            self._memo[key] = build()
        return self._memo[key]

    # -- deterministic primitives ----------------------------------------------
    def _u(self, *parts: object) -> float:
        """A uniform in [0, 1) from (seed, parts)."""
        from kopa_replay.sim.world import stable_int

        return stable_int(self.seed, "market", *parts) / 2.0**64

    def level(self, key: str, base: float, vol: float, day: dt.date) -> float:
        """The instrument's close on ``day``: seeded waves plus hashed daily noise around ``base``."""
        o = day.toordinal()
        p1, p2 = self._u(key, "p1") * 2 * math.pi, self._u(key, "p2") * 2 * math.pi
        z = 0.6 * math.sin(o / 41 + p1) + 0.3 * math.sin(o / 9 + p2) + 0.2 * (self._u(key, o) - 0.5)
        return base * (1 + vol * z)

    def quote(self, key: str, base: float, vol: float, day: dt.date, volume: float) -> dict[str, float]:
        close = self.level(key, base, vol, day)
        prev = self.level(key, base, vol, previous_business_day(day))
        opn = prev + (close - prev) * self._u(key, day, "o")
        high = max(opn, close) * (1 + vol * 0.1 * self._u(key, day, "h"))
        low = min(opn, close) * (1 - vol * 0.1 * self._u(key, day, "l"))
        vol_ = volume * (0.4 + 1.2 * self._u(key, day, "v"))
        return {"close": close, "prev": prev, "open": opn, "high": high, "low": low, "volume": vol_}

    def rows(self, kind: str, service: str, day: dt.date) -> list[Row]:
        """Every row the service lists on ``day`` (a business day)."""
        return self._kinds[kind](service, day)

    # -- families ----------------------------------------------------------------
    def _index_rows(self, service: str, day: dt.date) -> list[Row]:
        family, clss = (_KRX_INDEXES, "KRX") if service == "krx_dd_trd" else (_DRV_INDEXES, "선물지수")
        rows = []
        for name, base in family:
            q = self.quote(f"{service}:{name}", base, 0.08, day, 8e7)
            row = {
                "BAS_DD": ymd(day),
                "IDX_CLSS": clss if clss == "KRX" or "변동성" not in name else "옵션지수",
                "IDX_NM": name,
                "CLSPRC_IDX": _f(q["close"]),
                "CMPPREVDD_IDX": _f(q["close"] - q["prev"]),
                "FLUC_RT": _f((q["close"] - q["prev"]) / q["prev"] * 100),
                "OPNPRC_IDX": _f(q["open"]),
                "HGPRC_IDX": _f(q["high"]),
                "LWPRC_IDX": _f(q["low"]),
            }
            if service == "krx_dd_trd":
                row["ACC_TRDVOL"] = _i(q["volume"])
                row["ACC_TRDVAL"] = _i(q["volume"] * base * 9)
                row["MKTCAP"] = _i(base * 1.1e9 * q["close"] / base * 100)
            rows.append(row)
        return rows

    def _bond_index_rows(self, service: str, day: dt.date) -> list[Row]:
        rows = []
        for name, base in _BOND_INDEXES:
            key = f"{service}:{name}"
            tot, tot_prev = (self.level(key, base, 0.01, d) for d in (day, previous_business_day(day)))
            net, net_prev = (self.level(key + ":net", base * 0.55, 0.01, d) for d in (day, previous_business_day(day)))
            mkt, mkt_prev = (self.level(key + ":mkt", base * 0.6, 0.01, d) for d in (day, previous_business_day(day)))
            zero, zero_prev = (
                self.level(key + ":zero", base * 0.98, 0.01, d) for d in (day, previous_business_day(day))
            )
            call, call_prev = (
                self.level(key + ":call", base * 0.99, 0.01, d) for d in (day, previous_business_day(day))
            )
            rows.append(
                {
                    "BAS_DD": ymd(day),
                    "BND_IDX_GRP_NM": name,
                    "TOT_EARNG_IDX": _f(tot),
                    "TOT_EARNG_IDX_CMPPREVDD": _f(tot - tot_prev),
                    "NETPRC_IDX": _f(net),
                    "NETPRC_IDX_CMPPREVDD": _f(net - net_prev),
                    "ZERO_REINVST_IDX": _f(zero),
                    "ZERO_REINVST_IDX_CMPPREVDD": _f(zero - zero_prev),
                    "CALL_REINVST_IDX": _f(call),
                    "CALL_REINVST_IDX_CMPPREVDD": _f(call - call_prev),
                    "MKT_PRC_IDX": _f(mkt),
                    "MKT_PRC_IDX_CMPPREVDD": _f(mkt - mkt_prev),
                    "AVG_DURATION": _f(1 + 8 * self._u(key, "dur"), 3),
                    "AVG_CONVEXITY_PRC": _f(10 + 120 * self._u(key, "cvx"), 3),
                    "BND_IDX_AVG_YD": _f(self.level(key + ":yd", 3.2, 0.05, day), 3),
                }
            )
        return rows

    def _product_rows(self, service: str, day: dt.date, family, extra: Callable[[str, dict], Row]) -> list[Row]:
        rows = []
        for code, name, index, base in family:
            key = f"{service}:{code}"
            q = self.quote(key, base, 0.1, day, 4e6)
            idx = self.quote(key + ":idx", base / 10, 0.1, day, 1)
            rows.append(
                {
                    "BAS_DD": ymd(day),
                    "ISU_CD": code,
                    "ISU_NM": name,
                    "TDD_CLSPRC": _i(q["close"] // 5 * 5),
                    "CMPPREVDD_PRC": _i(q["close"] // 5 * 5 - q["prev"] // 5 * 5),
                    "FLUC_RT": _f((q["close"] // 5 * 5 - q["prev"] // 5 * 5) / (q["prev"] // 5 * 5) * 100),
                    **extra(key, q),
                    "TDD_OPNPRC": _i(q["open"] // 5 * 5),
                    "TDD_HGPRC": _i(max(q["high"], q["close"], q["open"]) // 5 * 5),
                    "TDD_LWPRC": _i(min(q["low"], q["close"], q["open"]) // 5 * 5),
                    "ACC_TRDVOL": _i(q["volume"]),
                    "ACC_TRDVAL": _i(q["volume"] * q["close"]),
                    "MKTCAP": _i(q["close"] * self._shares(key)),
                    **extra(key + ":tail", q),
                    "LIST_SHRS": str(self._shares(key)),
                    "IDX_IND_NM": index,
                    "OBJ_STKPRC_IDX": _f(idx["close"]),
                    "CMPPREVDD_IDX": _f(idx["close"] - idx["prev"]),
                    "FLUC_RT_IDX": _f((idx["close"] - idx["prev"]) / idx["prev"] * 100),
                }
            )
        return rows

    def _shares(self, key: str) -> int:
        return int(1_000_000 + self._u(key, "shares") * 90_000_000) // 10_000 * 10_000

    def _etf_rows(self, service: str, day: dt.date) -> list[Row]:
        def extra(key: str, q: dict) -> Row:
            if key.endswith(":tail"):
                return {"INVSTASST_NETASST_TOTAMT": _i(q["close"] * self._shares(key[:-5]) * 1.001)}
            return {"NAV": _f(q["close"] * (1 + 0.002 * (self._u(key, "nav") - 0.5)))}

        return self._product_rows(service, day, _ETFS, extra)

    def _etn_rows(self, service: str, day: dt.date) -> list[Row]:
        def extra(key: str, q: dict) -> Row:
            if key.endswith(":tail"):
                return {"INDIC_VAL_AMT": _i(q["close"] * self._shares(key[:-5]))}
            return {"PER1SECU_INDIC_VAL": _f(q["close"] * (1 + 0.004 * (self._u(key, "iv") - 0.5)))}

        return self._product_rows(service, day, _ETNS, extra)

    def _underlyings(self, family: str, market: str | None = None) -> list[Any]:
        """A fixed number of listed companies (stable hash order), chosen once per family."""
        key = (family, market)
        if key not in self._picked:
            pool = [c for c in self.world.finance.listed if market is None or c.market == market]
            pool.sort(key=lambda c: self._u(family, c.stock_code))
            self._picked[key] = pool[:_STOCK_LINKED]
        return self._picked[key]

    def _stock_close(self, company: Any, day: dt.date) -> tuple[int, int]:
        bar = self.world.finance.bar(company, day)
        if bar is None:
            return 0, 0
        return int(bar["close"]), int(bar["vs"])

    def _elw_rows(self, service: str, day: dt.date) -> list[Row]:
        rows = []
        for n, c in enumerate(self._underlyings(service, "KOSPI")):
            close, vs = self._stock_close(c, day)
            key = f"{service}:{c.stock_code}"
            q = self.quote(key, 50 + 900 * self._u(key, "base"), 0.3, day, 2e5)
            side = "콜" if n % 2 == 0 else "풋"
            rows.append(
                {
                    "BAS_DD": ymd(day),
                    "ISU_CD": f"5{(stable(self, key) % 100000):05d}",
                    "ISU_NM": f"{c.corp_name} {side} {5001 + n}",
                    "TDD_CLSPRC": _i(q["close"]),
                    "CMPPREVDD_PRC": str(int(round(q["close"])) - int(round(q["prev"]))),
                    "TDD_OPNPRC": _i(q["open"]),
                    "TDD_HGPRC": _i(max(q["high"], q["open"], q["close"])),
                    "TDD_LWPRC": _i(min(q["low"], q["open"], q["close"])),
                    "ACC_TRDVOL": _i(q["volume"]),
                    "ACC_TRDVAL": _i(q["volume"] * q["close"]),
                    "MKTCAP": _i(q["close"] * 4_000_000),
                    "LIST_SHRS": "4000000",
                    "ULY_NM": c.corp_name,
                    "ULY_PRC": str(close),
                    "CMPPREVDD_PRC_ULY": str(vs),
                    "FLUC_RT_ULY": _f(vs / (close - vs) * 100) if close - vs else "0.00",
                }
            )
        return rows

    def _bond_rows(self, service: str, day: dt.date) -> list[Row]:
        market, tenors = _BOND_KINDS[service]
        rows = []
        for n, (years, yd) in enumerate(tenors):
            key = f"{service}:{n}"
            issue_year = 2019 + int(self._u(key, "y") * 6)
            coupon = int(round(yd * 100 / 25)) * 25
            name = (
                f"국고{coupon:05d}-{(issue_year + int(years)) % 100:02d}{3 + 3 * (n % 4):02d}({issue_year % 100}-{n + 1})"
                if service != "smb_bydd_trd"
                else f"{['제1종국민주택채권', '서울도시철도채권', '지역개발채권', '제1종국민주택채권'][n]} {issue_year % 100}-{n + 1:02d}"
            )
            y, y_prev = (self.level(key + ":yd", yd, 0.04, d) for d in (day, previous_business_day(day)))
            price = lambda v: 10000 - (v - coupon / 100) * 100 * min(float(years), 10)  # noqa: E731
            y_open = y_prev + (y - y_prev) * self._u(key, day, "o")
            y_hi, y_lo = max(y, y_open) + 0.01 * self._u(key, day, "h"), min(y, y_open) - 0.01 * self._u(key, day, "l")
            vol = int(1e8 + self._u(key, day, "v") * 5e10) // 1_000_000 * 1_000_000
            row = {
                "BAS_DD": ymd(day),
                "MKT_NM": market,
                "ISU_CD": f"KR{1035 + n:04d}{(stable(self, key) % 10**5):05d}{n % 10}",
                "ISU_NM": name,
            }
            if service == "kts_bydd_trd":
                row["BND_EXP_TP_NM"] = years
                row["GOVBND_ISU_TP_NM"] = "지표" if n % 2 == 0 else "경과"
            row.update(
                {
                    "CLSPRC": _f(price(y)),
                    "CMPPREVDD_PRC": _f(price(y) - price(y_prev)),
                    "CLSPRC_YD": _f(y, 3),
                    "OPNPRC": _f(price(y_open)),
                    "OPNPRC_YD": _f(y_open, 3),
                    "HGPRC": _f(price(y_lo)),
                    "HGPRC_YD": _f(y_lo, 3),
                    "LWPRC": _f(price(y_hi)),
                    "LWPRC_YD": _f(y_hi, 3),
                    "ACC_TRDVOL": str(vol),
                    "ACC_TRDVAL": _i(vol * price(y) / 10000),
                }
            )
            rows.append(row)
        return rows

    def _expiries(self, day: dt.date) -> list[str]:
        out, y, m = [], day.year, day.month
        while len(out) < 2:
            m2 = next((mm for mm in _MONTHS if mm >= m), None)
            if m2 is None:
                y, m = y + 1, 1
                continue
            out.append(f"{y}{m2:02d}")
            m = m2 + 1
        return out

    def _deriv_row(self, service: str, day: dt.date, prod: str, code: str, name: str, q: dict, spot: float) -> Row:
        return {
            "BAS_DD": ymd(day),
            "PROD_NM": prod,
            "MKT_NM": "정규",
            "ISU_CD": code,
            "ISU_NM": name,
            **_point_prices(q),
            "SPOT_PRC": _f(spot),
            "SETL_PRC": _f(q["close"]),
            "ACC_TRDVOL": _i(q["volume"]),
            "ACC_TRDVAL": _i(q["volume"] * q["close"] * 1000),
            "ACC_OPNINT_QTY": _i(q["volume"] * (2 + 3 * self._u(code, "oi"))),
        }

    def _future_rows(self, service: str, day: dt.date) -> list[Row]:
        rows = []
        for p, (prod, base) in enumerate(_FUTURES):
            spot = self.level(f"{service}:{prod}:spot", base, 0.08, day)
            for e, exp in enumerate(self._expiries(day)):
                code = f"1{p + 1:02d}{exp[2:4]}{exp[4:]}0"[:8]
                q = self.quote(f"{service}:{prod}:{exp}", base, 0.08, day, 5e4 / (e + 1))
                rows.append(self._deriv_row(service, day, prod, code, f"{prod[:-3]} F {exp}", q, spot))
        return rows

    def _stock_future_rows(self, service: str, day: dt.date) -> list[Row]:
        market = "KOSPI" if service.startswith("eqsfu") else "KOSDAQ"
        rows = []
        for c in self._underlyings(service, market):
            close, _ = self._stock_close(c, day)
            if not close:
                continue
            exp = self._expiries(day)[0]
            key = f"{service}:{c.stock_code}:{exp}"
            q = self.quote(key, close, 0.02, day, 2e3)
            q = {k: (v if k == "volume" else close * v / q["close"]) for k, v in q.items()}
            code = f"1{c.stock_code[:3]}{exp[3]}{exp[4:]}0"[:8]
            rows.append(self._deriv_row(service, day, f"{c.corp_name} 선물", code, f"{c.corp_name} F {exp}", q, close))
        return rows

    def _option_row(self, day: dt.date, prod: str, right: str, code: str, name: str, q: dict) -> Row:
        return {
            "BAS_DD": ymd(day),
            "PROD_NM": prod,
            "RGHT_TP_NM": right,
            "ISU_CD": code,
            "ISU_NM": name,
            **_point_prices(q),
            "IMP_VOLT": _f(12 + 30 * self._u(code, day, "iv")),
            "NXTDD_BAS_PRC": _f(q["close"]),
            "ACC_TRDVOL": _i(q["volume"]),
            "ACC_TRDVAL": _i(q["volume"] * q["close"] * 250),
            "ACC_OPNINT_QTY": _i(q["volume"] * (1 + 4 * self._u(code, "oi"))),
        }

    def _option_rows(self, service: str, day: dt.date) -> list[Row]:
        rows = []
        exp = self._expiries(day)[0]
        for p, (prod, base) in enumerate(_OPTIONS):
            atm = round(self.level(f"{service}:{prod}:spot", base, 0.08, day) / 2.5) * 2.5
            for right in ("CALL", "PUT"):
                for k in (-2, -1, 0, 1, 2):
                    strike = atm + k * 2.5 * (4 if base > 1000 else 1)
                    code = f"{2 if right == 'CALL' else 3}{p + 1:02d}{exp[3]}{exp[4:]}{int(strike) % 1000:03d}"
                    q = self.quote(f"{service}:{code}", base * 0.012 * (1 + abs(k)) ** -0.8, 0.4, day, 3e4)
                    cp = "C" if right == "CALL" else "P"
                    rows.append(self._option_row(day, prod, right, code, f"{prod[:-3]} {cp} {exp} {strike:.1f}", q))
        return rows

    def _stock_option_rows(self, service: str, day: dt.date) -> list[Row]:
        market = "KOSPI" if service.startswith("eqsop") else "KOSDAQ"
        exp = self._expiries(day)[0]
        rows = []
        for c in self._underlyings(service, market)[:6]:
            close, _ = self._stock_close(c, day)
            if not close:
                continue
            for right in ("CALL", "PUT"):
                code = f"{2 if right == 'CALL' else 3}{c.stock_code[:3]}{exp[3]}{exp[4:]}0"[:8]
                q = self.quote(f"{service}:{code}", close * 0.04, 0.4, day, 500)
                name = f"{c.corp_name} {'C' if right == 'CALL' else 'P'} {exp} {close:,}"
                rows.append(self._option_row(day, f"{c.corp_name} 옵션", right, code, name, q))
        return rows

    def _warrant_rows(self, service: str, day: dt.date) -> list[Row]:
        rows = []
        for n, c in enumerate(self._underlyings(service)):
            close, _ = self._stock_close(c, day)
            if not close:
                continue
            key = f"{service}:{c.stock_code}"
            q = self.quote(key, max(close * 0.2, 10), 0.3, day, 3e4)
            row = {
                "BAS_DD": ymd(day),
                "MKT_NM": c.market,
                "ISU_CD": f"{c.stock_code[:5]}{(n % 9) + 1}",
                "ISU_NM": f"{c.corp_name} {n % 5 + 1}{'WR' if service == 'sw_bydd_trd' else 'R'}",
                "TDD_CLSPRC": _i(q["close"]),
                "CMPPREVDD_PRC": str(int(round(q["close"])) - int(round(q["prev"]))),
                "FLUC_RT": _f((round(q["close"]) - round(q["prev"])) / max(round(q["prev"]), 1) * 100),
                "TDD_OPNPRC": _i(q["open"]),
                "TDD_HGPRC": _i(max(q["high"], q["open"], q["close"])),
                "TDD_LWPRC": _i(min(q["low"], q["open"], q["close"])),
                "ACC_TRDVOL": _i(q["volume"]),
                "ACC_TRDVAL": _i(q["volume"] * q["close"]),
                "MKTCAP": _i(q["close"] * self._shares(key) / 10),
                "LIST_SHRS": str(self._shares(key) // 10),
            }
            if service == "sw_bydd_trd":
                start = dt.date(day.year - 1, 1 + n % 12, 10)
                row.update(
                    {
                        "EXER_PRC": str(int(close * (0.8 + 0.4 * self._u(key, "exer")))),
                        "EXST_STRT_DD": ymd(start),
                        "EXST_END_DD": ymd(start.replace(year=start.year + 5)),
                    }
                )
            else:
                delist = day + dt.timedelta(days=5 + n)
                row.update({"ISU_PRC": str(int(close * 0.8)), "DELIST_DD": ymd(delist)})
            row.update(
                {"TARSTK_ISU_SRT_CD": c.stock_code, "TARSTK_ISU_NM": c.corp_name, "TARSTK_ISU_PRSNT_PRC": str(close)}
            )
            rows.append(row)
        return rows

    def _oil_rows(self, service: str, day: dt.date) -> list[Row]:
        rows = []
        for name, base in _OILS:
            key = f"{service}:{name}"
            q = self.quote(key, base, 0.05, day, 8e6)
            rows.append(
                {
                    "BAS_DD": ymd(day),
                    "OIL_NM": name,
                    "WT_AVG_PRC": _f(q["close"]),
                    "WT_DIS_AVG_PRC": _f(q["close"] * (1 + 0.02 * self._u(key, day, "dis"))),
                    "ACC_TRDVOL": _i(q["volume"]),
                    "ACC_TRDVAL": _i(q["volume"] * q["close"]),
                }
            )
        return rows

    def _simple_rows(self, service: str, day: dt.date) -> list[Row]:
        family = _GOLDS if service == "gold_bydd_trd" else _ETS
        volume = 3e4 if service == "gold_bydd_trd" else 2e4
        return [
            _tick_trade(day, code, name, self.quote(f"{service}:{code}", base, 0.08, day, volume), 10)
            for code, name, base in family
        ]

    def _esg_etp_rows(self, service: str, day: dt.date) -> list[Row]:
        rows = []
        for name, base in _ESG_ETPS:
            key = f"{service}:{name}"
            q = self.quote(key, base, 0.08, day, 6e4)
            c, p = int(q["close"] // 5 * 5), int(q["prev"] // 5 * 5)
            rows.append(
                {
                    "BAS_DD": ymd(day),
                    "ISU_ABBRV": name,
                    "TDD_CLSPRC": str(c),
                    "CMPPREVDD_PRC": str(c - p),
                    "FLUC_RT": _f((c - p) / p * 100),
                    "LIST_SHRS": str(self._shares(key)),
                    "ACC_TRDVOL": _i(q["volume"]),
                    "ACC_TRDVAL": _i(q["volume"] * c),
                }
            )
        return rows

    def _esg_index_rows(self, service: str, day: dt.date) -> list[Row]:
        """ESG 지수: volume in thousands of shares, value in millions of won (as the service states them)."""
        rows = []
        for name, base, members in _ESG_INDEXES:
            q = self.quote(f"{service}:{name}", base, 0.08, day, 9e4)
            rows.append(
                {
                    "BAS_DD": ymd(day),
                    "IDX_NM": name,
                    "CLSPRC_IDX": _f(q["close"]),
                    "PRV_DD_CMPR": _f(q["close"] - q["prev"]),
                    "UPDN_RATE": _f((q["close"] - q["prev"]) / q["prev"] * 100),
                    "TRD_ISU_CNT": str(members),
                    "ACC_TRDVOL": _i(q["volume"]),
                    "ACC_TRDVAL": _i(q["volume"] * base / 90),
                }
            )
        return rows

    def _beneficiary_rows(self, service: str, day: dt.date) -> list[Row]:
        """수익증권 (listed funds), in the KRX daily-trade shape: the 금융위 service renames the fields."""
        rows = []
        for code, name, base in _BENEFICIARY:
            key = f"{service}:{code}"
            row = _tick_trade(day, code, name, self.quote(key, base, 0.06, day, 5e4), 5)
            shares = self._shares(key)
            rows.append({**row, "MKTCAP": _i(int(row["TDD_CLSPRC"]) * shares), "LIST_SHRS": str(shares)})
        return rows

    def _sri_rows(self, service: str, day: dt.date) -> list[Row]:
        """Socially responsible bonds listed by ``day``: a fixed set issued 2019-2026, those listed so far."""
        return [{"BAS_DD": ymd(day), **row} for row in _sri_bonds(self.seed) if row["LIST_DD"] <= ymd(day)]


def stable(market: MarketWorld, key: str) -> int:
    return int(market._u(key, "code") * 2**40)


@lru_cache(maxsize=8)
def _sri_bonds(seed: int) -> tuple[dict[str, str], ...]:
    from kopa_replay.sim.world import stable_int

    out = []
    for n in range(40):
        h = stable_int(seed, "sri", n)
        issuer = _SRI_ISSUERS[h % len(_SRI_ISSUERS)]
        issued = dt.date(2019, 1, 15) + dt.timedelta(days=(h >> 8) % 2700)
        years = (2, 3, 5, 10)[(h >> 20) % 4]
        out.append(
            {
                "ISUR_NM": issuer,
                "ISU_CD": f"KR{3 + (h >> 24) % 4}{(h >> 28) % 10**8:08d}{n % 10}",
                "SRI_BND_TP_NM": _SRI_KINDS[(h >> 40) % 3],
                "ISU_NM": f"{issuer[:4]}{(h >> 44) % 900 + 100}",
                "LIST_DD": ymd(issued + dt.timedelta(days=1)),
                "ISU_DD": ymd(issued),
                "REDMPT_DD": ymd(issued.replace(year=issued.year + years)),
                "ISU_RT": f"{1.2 + ((h >> 48) % 300) / 100:.3f}",
                "ISU_AMT": str(((h >> 12) % 40 + 1) * 10_000_000_000),
                "LIST_AMT": str(((h >> 12) % 40 + 1) * 10_000_000_000),
                "BND_TP_NM": _SRI_TYPES[(h >> 52) % 3],
            }
        )
    out.sort(key=lambda r: (r["LIST_DD"], r["ISU_CD"]))
    return tuple(out)
