"""The finance sub-world: companies, daily prices, DART filings and what they report.

Everything OpenDART, the 금융위 services on data.go.kr and the KRX Open API
answer comes from here, so the three platforms agree with each other: the
company whose ``corp_code`` corpCode.xml lists has the ``crno`` that
getCorpOutline_V2 knows, the ``stock_code`` whose prices getStockPriceInfo
and KRX return, and the filings list.json shows.

* Companies: ``sizes.listed_companies`` listed (KOSPI/KOSDAQ/KONEX in the real
  31/65/4 mix) and ``sizes.unlisted_companies`` unlisted, with valid check
  digits on ISIN, 법인등록번호 (crno) and 사업자등록번호, head offices in the
  shared region tree.
* Prices: a random walk per listed company on every exchange business day
  from 2025-01-02 to 2026-12-30, on the exchange's tick grid; a price for day
  D is visible only from the next day on (``D < as_of``).
* Filings: periodic reports (with financial statements, largest
  shareholders, employees, dividends), event reports (CB, BW, 유상증자,
  자기주식 취득), 5% and insider ownership reports, exchange disclosures and
  audit reports of unlisted firms, each with a 14-digit ``rcept_no``.

The showcase holds for every seed: 라이트론 (KOSDAQ 069540, corp_code
00439743) decided a convertible bond on 2026-01-15 with conversion price 760
and refixing floor 532, and closed at 1,680 won on 2026-08-31. Two more
companies carry "라이트" in their names, so a name lookup has candidates.
"""

from __future__ import annotations

import bisect
import datetime as dt
import math
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import TYPE_CHECKING, Any, TypeVar

import numpy as np

from kopa_replay.sim.world.calendar import business_days, korean_date, previous_business_day, ymd
from kopa_replay.sim.world.fmt import comma, data, frozen

if TYPE_CHECKING:
    from kopa_replay.sim.world import World

__all__ = [
    "Company",
    "FAMOUS_CORP_CODES",
    "Filing",
    "FinanceWorld",
    "IFRS_ACCOUNTS",
    "Grid",
    "LazyRows",
    "LIGHTRON_CORP_CODE",
    "LIGHTRON_STOCK_CODE",
    "REPORT_CODES",
    "PRICE_START",
    "PRICE_END",
    "isin_for",
    "person_name",
    "tick_size",
]

#: the fact tables (name material, report codes, the fixed and famous companies): data/finance.yaml
_DATA = frozen(data("finance"))

PRICE_START = dt.date(2025, 1, 2)
PRICE_END = dt.date(2026, 12, 30)
#: The close before the first simulated day (vs/fltRt of 2025-01-02 need it).
PRIOR_DAY = dt.date(2024, 12, 30)

LIGHTRON_CORP_CODE = "00439743"
LIGHTRON_STOCK_CODE = "069540"

REPORT_CODES = _DATA["report_codes"]
_PERIODIC = _DATA["periodic"]
#: the IFRS accounts of a full statement set: (sj_div, sj_nm, account_id, account_nm, key in period_values)
IFRS_ACCOUNTS = _DATA["ifrs_accounts"]

# -- name material --------------------------------------------------------
_STEMS = _DATA["stems"]
_MIDS = _DATA["mids"]
_SECTORS = _DATA["sectors"]
_KOSDAQ_SECTIONS = _DATA["kosdaq_sections"]
_SURNAMES = _DATA["surnames"]
_GIVEN = _DATA["given"]
_ROADS = _DATA["roads"]
_AREA = _DATA["area"]
_AUDITORS = _DATA["auditors"]
_BANKS = _DATA["banks"]
_BROKERS = _DATA["brokers"]
_FUNDS = _DATA["funds"]
_CB_INVESTORS = _DATA["cb_investors"]


def _luhn_check(digits: str) -> int:
    """The Luhn check digit for a digit string (the ISIN algorithm after letter expansion)."""
    total = 0
    for i, ch in enumerate(reversed(digits)):
        d = int(ch)
        if i % 2 == 0:
            d *= 2
            if d > 9:
                d -= 9
        total += d
    return (10 - total % 10) % 10


def isin_for(stock_code: str) -> str:
    """The ISIN of a common share: KR7 + short code + 00 + check digit (KR7005930003)."""
    body = f"KR7{stock_code}00"
    return body + str(_luhn_check("".join(str(int(c, 36)) for c in body)))


def _crno(body12: str) -> str:
    """법인등록번호: 12 digits + check digit (weights 1,2,1,2…, sum mod 10)."""
    total = sum(int(d) * (1 if i % 2 == 0 else 2) for i, d in enumerate(body12))
    return body12 + str((10 - total % 10) % 10)


def _bizr_no(body9: str) -> str:
    """사업자등록번호: 9 digits + check digit (weights 1,3,7,1,3,7,1,3,5 and the ninth-digit carry)."""
    weights = (1, 3, 7, 1, 3, 7, 1, 3, 5)
    total = sum(int(d) * w for d, w in zip(body9, weights)) + (int(body9[8]) * 5) // 10
    return body9 + str((10 - total % 10) % 10)


def tick_size(price: float) -> int:
    """The KRX quotation unit for a price (2023 unified table)."""
    for bound, tick in ((2_000, 1), (5_000, 5), (20_000, 10), (50_000, 50), (200_000, 100), (500_000, 500)):
        if price < bound:
            return tick
    return 1_000


def _tick_round(prices: np.ndarray, mode: str = "nearest") -> np.ndarray:
    ticks = np.select(
        [prices < b for b in (2_000, 5_000, 20_000, 50_000, 200_000, 500_000)], [1, 5, 10, 50, 100, 500], 1_000
    )
    scaled = prices / ticks
    op = {"nearest": np.rint, "up": np.ceil, "down": np.floor}[mode]
    return np.maximum(op(scaled) * ticks, 1).astype(np.int64)


@dataclass(frozen=True)
class Company:
    """One company as every finance platform sees it."""

    corp_code: str  # DART 고유번호, 8 digits
    corp_name: str  # 라이트론 (DART name = KRX short name)
    corp_eng_name: str
    stock_code: str  # 6 digits, "" when unlisted
    isin: str  # KR7…, "" when unlisted
    crno: str  # 법인등록번호 = jurir_no, 13 digits
    bizr_no: str  # 사업자등록번호, 10 digits
    market: str  # KOSPI / KOSDAQ / KONEX / "" (unlisted)
    induty_code: str  # KSIC
    sector: str  # 업종명 (sicNm)
    section: str  # KOSDAQ 소속부, else ""
    ceo: str
    sido_code: str
    address: str
    phone: str
    fax: str
    homepage: str
    ir_url: str
    est_dt: str  # YYYYMMDD
    list_dt: str  # YYYYMMDD, "" when unlisted
    acc_mt: str  # MM
    modify_date: str  # YYYYMMDD
    par_value: int
    shares: int  # listed (= issued common) shares, 0 when unlisted
    has_cfs: bool  # files consolidated statements
    registry_name: str  # 법인명 as the 금융위 services spell it: "(주)라이트론", "라이트론 주식회사"
    row: int = -1  # row in the price arrays, -1 when unlisted
    delisted_code: str = ""  # the stock code an unlisted (delisted) company still carries in corpCode.xml

    @property
    def listed(self) -> bool:
        return bool(self.stock_code)

    @property
    def corp_cls(self) -> str:
        """DART 법인구분: Y 유가증권, K 코스닥, N 코넥스, E 기타."""
        return {"KOSPI": "Y", "KOSDAQ": "K", "KONEX": "N"}.get(self.market, "E")


@dataclass(frozen=True)
class Filing:
    """One DART receipt: what list.json shows, plus what its endpoint returns."""

    rcept_no: str
    rcept_dt: dt.date
    company: Company
    kind: str  # periodic / cvbd / bdwt / piic / tsstk / majorstock / elestock / exchange / audit
    report_nm: str
    flr_nm: str
    rm: str
    pblntf_ty: str
    pblntf_detail_ty: str
    detail: Mapping[str, Any] = field(default_factory=dict)


@dataclass
class _Draft:
    """A filing before its receipt number is known."""

    day: dt.date
    company: Company
    kind: str
    report_nm: str
    flr_nm: str
    rm: str
    pblntf_ty: str
    pblntf_detail_ty: str
    exchange: bool
    build: Callable[[], dict[str, Any]]
    rcept_no: str | None = None


_Row = TypeVar("_Row", bound=Mapping[str, Any])


class LazyRows(Sequence[_Row]):
    """A long result made row by row on demand (a day × all companies, all companies × all days).

    The simulator only slices the requested page, so a query that matches a
    million price rows costs one page of dicts (or of records made field by field).
    """

    def __init__(
        self,
        keys: Sequence[Any],
        make: Callable[[Any], _Row],
        keyed: Mapping[str, Callable[[Any], Any]] | None = None,
    ) -> None:
        self._keys = keys
        self._make = make
        #: fields whose value a row's key gives without making the row (exactly the value the row would hold):
        #: a filter on them keeps or drops keys, and only the rows of the page served are ever made
        self.keyed: Mapping[str, Callable[[Any], Any]] = keyed or {}

    def where(self, keep: Callable[[Any], bool]) -> "LazyRows[_Row]":
        """The rows whose keys ``keep`` accepts, still made on demand."""
        return LazyRows([key for key in self._keys if keep(key)], self._make, self.keyed)

    def __len__(self) -> int:
        return len(self._keys)

    def __getitem__(self, index):  # type: ignore[override]
        if isinstance(index, slice):
            return [self._make(k) for k in self._keys[index]]
        return self._make(self._keys[index])

    def __iter__(self) -> Iterator[_Row]:
        return (self._make(k) for k in self._keys)


class Grid(Sequence):
    """The rows × columns product as a flat sequence of (row, column) pairs, row-major, never materialized."""

    def __init__(self, rows: Sequence[Any], columns: Sequence[Any]) -> None:
        self._rows, self._columns = rows, columns

    def __len__(self) -> int:
        return len(self._rows) * len(self._columns)

    def __getitem__(self, index):  # type: ignore[override]
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        if index < 0:
            index += len(self)
        if not 0 <= index < len(self):
            raise IndexError(index)
        row, column = divmod(index, len(self._columns))
        return self._rows[row], self._columns[column]


_PRICE_KEYS = ("close", "open", "high", "low", "volume", "value")


class _Prices:
    """Daily bars as int64 arrays [company row, day column]; column 0 is the prior close (2024-12-30)."""

    def __init__(self, close, open_, high, low, volume, value) -> None:
        self.close, self.open, self.high, self.low, self.volume, self.value = close, open_, high, low, volume, value


_FIXED = _DATA["fixed"]
_FAMOUS = _DATA["famous"]
FAMOUS_CORP_CODES = frozenset(f["corp_code"] for f in _FAMOUS)
#: Samsung Electronics' 2024 annual report: a periodic report every world holds under one receipt number (the
#: XBRL download's example).
_FAMOUS_PERIODIC = {("00126380", 2024, "11011"): ("20250311001085", dt.date(2025, 3, 11))}
#: corpCode.xml: 3,901 of 114,106 entries carry a stock code (reference/world-scale.md).
_WITH_STOCK_CODE = 3_901 / 114_106


def _free_of(codes: list[str], taken: set[str], step: int, width: int) -> list[str]:
    """The codes, each one that is in ``taken`` moved to the next free one (``step`` apart)."""
    if not taken.intersection(codes):
        return codes
    used = set(codes) | taken
    out = []
    for code in codes:
        if code in taken:
            value = int(code)
            while f"{value:0{width}d}" in used:
                value += step
            code = f"{value:0{width}d}"
            used.add(code)
        out.append(code)
    return out


#: Lightron's convertible bond: the showcase record (every seed).
_LIGHTRON_CB_DAY = dt.date(2026, 1, 15)
_LIGHTRON_CB_RCEPT = "20260115000412"
_LIGHTRON_CB_PAY_DAY = dt.date(2026, 1, 20)
_FIXED_EVENTS = _DATA["fixed_events"]
#: Price anchors of the showcase walk: (day, close).
_LIGHTRON_ANCHORS = ((dt.date(2026, 1, 14), 812), (dt.date(2026, 8, 31), 1680))


#: the bond terms a CB or BW decision lists after its own fields (subscription, payment, board and filing facts)
_BOND_TAIL = (
    "sbd",
    "pymd",
    "rpmcmp",
    "grint",
    "bddd",
    "od_a_at_t",
    "od_a_at_b",
    "adt_a_atn",
    "rs_sm_atn",
    "ex_sm_r",
    "ovis_ltdtl",
    "ftc_stt_atn",
)


def _pick(seq: Sequence[Any], u: float) -> Any:
    """The element a uniform draw in [0, 1) lands on."""
    return seq[int(u * len(seq))]


def _day_between(start: dt.date, end: dt.date, u: float) -> dt.date:
    """A business day in [start, end] chosen by a uniform draw (end stretches past a holiday run)."""
    days = business_days(start, end)
    while not days:
        end += dt.timedelta(days=3)
        days = business_days(start, end)
    return days[min(int(u * len(days)), len(days) - 1)]


def _person(u1: float, u2: float, u3: float) -> str:
    return _pick(_SURNAMES, u1) + _pick(_GIVEN, u2) + _pick(_GIVEN, u3)


#: a person's name from three uniform draws (the platforms' report sections name officers and holders)
person_name = _person


class FinanceWorld:
    """Companies, prices and filings of one seed; every table is built on first use.

    The tables are a pure function of (seed, size preset), so the few most
    recently used instances are shared between World objects of the same seed:
    a test suite or a server that makes a fresh Simulator per request does
    not rebuild them.
    """

    _shared: "OrderedDict[tuple[int, str], FinanceWorld]" = OrderedDict()
    _shared_lock = threading.Lock()
    _SHARED_MAX = 4

    def __new__(cls, world: "World") -> "FinanceWorld":
        key = (world.seed, world.size)
        with cls._shared_lock:
            instance = cls._shared.get(key)
            if instance is None:
                instance = super().__new__(cls)
                instance._world = world
                instance._memo = {}
                cls._shared[key] = instance
                while len(cls._shared) > cls._SHARED_MAX:
                    cls._shared.popitem(last=False)
            cls._shared.move_to_end(key)
        return instance

    def __init__(self, world: "World") -> None:
        # State is set once in __new__; a shared instance keeps its built tables.
        pass

    # -- companies ----------------------------------------------------------
    @cached_property
    def companies(self) -> tuple[Company, ...]:
        """Every company, ordered by corp_code (the order corpCode.xml lists them in)."""
        return tuple(sorted(self.listed + self.unlisted, key=lambda c: c.corp_code))

    @cached_property
    def _identities(self) -> tuple[list[str], list[str]]:
        """Unique corp_codes for all generated companies and stock codes for the listed ones."""
        sizes = self._world.sizes
        rng = self._world.rng("finance.codes")
        fixed_codes = {f["corp_code"] for f in _FIXED}
        fixed_stocks = {f["stock_code"] for f in _FIXED if f["stock_code"]}
        n_listed = max(sizes.listed_companies - sum(1 for f in _FIXED if f["stock_code"]), 0)
        n_unlisted = max(sizes.unlisted_companies - sum(1 for f in _FIXED if not f["stock_code"]), 0)
        need = n_listed + n_unlisted
        raw = rng.choice(1_900_000, size=need + len(fixed_codes), replace=False) + 100_000
        corp_codes = [f"{int(v):08d}" for v in raw if f"{int(v):08d}" not in fixed_codes][:need]
        raw_stock = (rng.choice(49_000, size=n_listed + len(fixed_stocks), replace=False) + 500) * 10
        stocks = [f"{int(v):06d}" for v in raw_stock if f"{int(v):06d}" not in fixed_stocks][:n_listed]
        # The well-known companies came later: a generated company that drew one of their codes moves to the
        # next free one (only that company changes).
        return _free_of(corp_codes, {f["corp_code"] for f in _FAMOUS}, 1, 8), _free_of(
            stocks, {f["stock_code"] for f in _FAMOUS}, 10, 6
        )

    def _draw_company(
        self,
        u: np.ndarray,
        corp_code: str,
        name: tuple[str, str],
        sector: tuple,
        market: str,
        stock_code: str,
        serial: int,
        fixed: Mapping[str, Any] | None = None,
    ) -> dict:
        """The fields of one company from a row of uniforms (fixed companies override identities)."""
        regions = self._sigungu_by_sido
        u = u.tolist()  # Python floats: indexing a numpy row 29 times per company is the slow part
        fixed = fixed or {}
        if fixed:
            name = (fixed["corp_name"], fixed["corp_eng_name"])
        sido = fixed.get("sido") or ("11" if u[0] < 0.45 else "41" if u[0] < 0.75 else _pick(self._sido_codes, u[1]))
        sgg = _pick(regions[sido], u[2])
        area, registry_office = _AREA[sido]
        est_year = int(1955 + u[3] * 65) if market else int(1975 + u[3] * 50)
        est = dt.date(min(est_year, 2024), 1 + int(u[4] * 12) % 12, 1 + int(u[5] * 28))
        listed = bool(stock_code)
        if listed:
            span = max((dt.date(2024, 12, 1) - est).days, 400)
            list_dt = est + dt.timedelta(days=int(365 + u[6] * (span - 365)))
        ko, en = name
        slug = "".join(ch for ch in en.lower() if ch.isalnum())[:18] or "corp"
        phone_mid = 100 + int(u[7] * 8900)
        registry_name = f"(주){ko}" if u[8] < 0.6 else f"{ko} 주식회사"
        shares_range = {"KOSPI": (8e6, 6e8), "KOSDAQ": (5e6, 1.5e8), "KONEX": (2e6, 3e7)}.get(market, (1, 1))
        shares = int(math.exp(math.log(shares_range[0]) + u[9] * math.log(shares_range[1] / shares_range[0])))
        shares = shares // 1000 * 1000 if listed else 0
        modify = (
            dt.date(2024, 1, 1) + dt.timedelta(days=int(u[10] * 700))
            if listed
            else dt.date(2017, 1, 1) + dt.timedelta(days=int(u[10] * 3200))
        )
        fields = dict(
            corp_code=corp_code,
            corp_name=ko,
            corp_eng_name=f"{en} Co., Ltd.".upper() if u[11] < 0.5 else f"{en} Co., Ltd.",
            stock_code=stock_code,
            isin=isin_for(stock_code) if listed else "",
            crno=_crno(f"{registry_office}11{serial:06d}"),
            bizr_no=_bizr_no(
                f"{101 + int(u[12] * 798):03d}{_pick(('81', '86', '87', '88'), u[13])}{int(u[14] * 10000):04d}"
            ),
            market=market,
            induty_code=sector[0],
            sector=sector[1],
            section=_pick(_KOSDAQ_SECTIONS, u[15]) if market == "KOSDAQ" else "",
            ceo=_person(u[16], u[17], u[18]),
            sido_code=sido,
            address=f"{sgg.full_name} {_pick(_ROADS, u[19])} {1 + int(u[20] * 320)}",
            phone=f"{area}-{phone_mid}-{int(u[21] * 9000) + 1000}",
            fax=f"{area}-{phone_mid}-{int(u[22] * 9000) + 1000}",
            homepage=f"www.{slug}.co.kr" if listed or u[23] < 0.5 else "",
            ir_url=f"www.{slug}.co.kr/ir" if listed and u[24] < 0.35 else "",
            est_dt=ymd(est),
            list_dt=ymd(list_dt) if listed else "",
            acc_mt="12" if listed or u[25] < 0.92 else _pick(("03", "06", "09"), u[26]),
            modify_date=ymd(modify),
            par_value=_pick((100, 500, 500, 500, 1000, 5000), u[27]) if listed else 5000,
            shares=shares,
            has_cfs=bool(listed and u[28] < 0.6),
            registry_name=registry_name,
        )
        if fixed:
            fields.update(
                corp_code=fixed["corp_code"],
                corp_name=fixed["corp_name"],
                corp_eng_name=fixed["corp_eng_name"],
                stock_code=fixed["stock_code"],
                isin=isin_for(fixed["stock_code"]) if fixed["stock_code"] else "",
                crno=_crno(fixed["crno_body"]),
                bizr_no=_bizr_no(fixed["bizr_body"]),
                market=fixed["market"],
                section=fixed["section"],
                est_dt=fixed["est_dt"],
                list_dt=fixed["list_dt"],
                par_value=fixed["par_value"],
                shares=fixed["shares"],
                registry_name=fixed["registry_name"],
                homepage=fixed["homepage"],
                acc_mt="12",
                has_cfs=bool(fixed["stock_code"]),
            )
            sector_row = next((s for s in _SECTORS if s[0] == fixed["induty"]), None)
            fields.update(induty_code=fixed["induty"], sector=sector_row[1] if sector_row else fixed.get("sector", ""))
            fields.update(fixed.get("override", {}))
        return fields

    @cached_property
    def _sido_codes(self) -> list[str]:
        return sorted(self._sigungu_by_sido)

    @cached_property
    def _sigungu_by_sido(self) -> dict[str, list]:
        table: dict[str, list] = {}
        for sgg in self._world.regions.sigungu:
            table.setdefault(sgg.sido.code, []).append(sgg)
        return table

    def _names(self, rng: np.random.Generator, n: int, unique: bool, taken: set[str]) -> list[tuple]:
        """(name_ko, name_en, sector) triples; listed names are unique like KRX short names."""
        out = []
        draws = rng.random((n * 3 + 30, 4)).tolist()
        i = 0
        while len(out) < n:
            if i >= len(draws):
                draws = rng.random((n + 30, 4)).tolist()
                i = 0
            u = draws[i]
            i += 1
            sector = _pick(_SECTORS, u[0])
            stem = _pick(_STEMS, u[1])
            mid = _pick(_MIDS, u[2]) if u[3] < 0.25 else ("", "")
            suffix = _pick(sector[2], (u[3] * 7.3) % 1.0)
            ko = stem[0] + mid[0] + suffix[0]
            en = f"{stem[1]}{mid[1]} {suffix[1]}"
            if unique and ko in taken:
                continue
            taken.add(ko)
            out.append((ko, en, sector))
        return out

    @cached_property
    def listed(self) -> tuple[Company, ...]:
        """Listed companies ordered by stock_code; ``Company.row`` indexes the price arrays."""
        corp_codes, stocks = self._identities
        rng = self._world.rng("finance.listed")
        n = len(stocks)
        markets = rng.choice(np.array(["KOSPI", "KOSDAQ", "KONEX"]), size=n, p=[0.31, 0.65, 0.04])
        taken = {f["corp_name"] for f in _FIXED}
        names = self._names(rng, n, unique=True, taken=taken)
        uniforms = rng.random((n, 29))
        drafts = [
            self._draw_company(
                uniforms[i], corp_codes[i], names[i][:2], names[i][2], str(markets[i]), stocks[i], 10_000 + i * 37
            )
            for i in range(n)
        ]
        fixed_rng = self._world.rng("finance.fixed")
        for spec in _FIXED:
            if spec["stock_code"]:
                drafts.append(
                    self._draw_company(
                        fixed_rng.random(29),
                        spec["corp_code"],
                        ("", ""),
                        _SECTORS[0],
                        spec["market"],
                        spec["stock_code"],
                        0,
                        fixed=spec,
                    )
                )
        drafts.sort(key=lambda d: d["stock_code"])
        famous_rng = self._world.rng("finance.famous")
        famous = [
            self._draw_company(
                famous_rng.random(29), f["corp_code"], ("", ""), _SECTORS[0], f["market"], f["stock_code"], 0, fixed=f
            )
            for f in _FAMOUS
        ]
        # rows: the generated and fixed companies keep the rows (and price draws) they had before the well-known
        # ones came; those take the rows after them
        rows = [Company(**d, row=i) for i, d in enumerate(drafts)]
        rows += [Company(**d, row=len(drafts) + i) for i, d in enumerate(famous)]
        return tuple(sorted(rows, key=lambda c: c.stock_code))

    @cached_property
    def by_row(self) -> tuple[Company, ...]:
        """Listed companies in price-array row order."""
        return tuple(sorted(self.listed, key=lambda c: c.row))

    @cached_property
    def unlisted(self) -> tuple[Company, ...]:
        """The unlisted companies, less as many as there are well-known listed ones (the last generated firms
        that file no audit report), so the world keeps its size (114,106 corpCode entries at full size)."""
        every, draws = self._unlisted_all, self._audit_draws
        fixed = {f["corp_code"] for f in _FIXED}
        dropped: set[int] = set()
        for i in range(len(every) - 1, -1, -1):
            if len(dropped) == len(_FAMOUS):
                break
            if draws[i][0] >= 0.3 and every[i].corp_code not in fixed:
                dropped.add(i)
        return self._with_delisted_codes([c for i, c in enumerate(every) if i not in dropped])

    @cached_property
    def _audit_draws(self) -> list[list[float]]:
        return self._world.rng("finance.audit").random((len(self._unlisted_all), 4)).tolist()

    @cached_property
    def _unlisted_all(self) -> list[Company]:
        corp_codes, stocks = self._identities
        rng = self._world.rng("finance.unlisted")
        codes = corp_codes[len(stocks) :]
        n = len(codes)
        names = self._names(rng, n, unique=False, taken=set())
        uniforms = rng.random((n, 29))
        # 법인등록번호 serials: listed companies use 10,000–110,000, unlisted 200,000–980,000.
        out = [
            Company(**self._draw_company(uniforms[i], codes[i], names[i][:2], names[i][2], "", "", 200_000 + i * 7))
            for i in range(n)
        ]
        fixed_rng = self._world.rng("finance.fixed.unlisted")
        for spec in _FIXED:
            if not spec["stock_code"]:
                out.append(
                    Company(
                        **self._draw_company(
                            fixed_rng.random(29), spec["corp_code"], ("", ""), _SECTORS[0], "", "", 0, fixed=spec
                        )
                    )
                )
        return out

    def _with_delisted_codes(self, unlisted: list[Company]) -> tuple[Company, ...]:
        """Delisted companies keep their old stock code in corpCode.xml: 3,901 of DART's 114,106 entries carry
        one while ≈2,700 are listed (reference/world-scale.md), so that share of all companies, less the listed."""
        total = len(unlisted) + len(self.listed)
        count = max(round(total * _WITH_STOCK_CODE) - len(self.listed), 0)
        if not count or not unlisted:
            return tuple(unlisted)
        rng = self._world.rng("finance.delisted")
        taken = set(self._identities[1]) | {f["stock_code"] for f in _FIXED + _FAMOUS if f["stock_code"]}
        picks = sorted(rng.choice(len(unlisted), size=min(count, len(unlisted)), replace=False).tolist())
        codes = [f"{int(v):06d}" for v in (rng.choice(99_000, size=len(picks) * 2, replace=False) + 500) * 10 + 5]
        free = iter(c for c in codes if c not in taken)
        out = list(unlisted)
        for i in picks:
            out[i] = replace(out[i], delisted_code=next(free))
        return tuple(out)

    @cached_property
    def by_corp_code(self) -> dict[str, Company]:
        return {c.corp_code: c for c in self.companies}

    @cached_property
    def by_stock_code(self) -> dict[str, Company]:
        return {c.stock_code: c for c in self.listed}

    @cached_property
    def by_isin(self) -> dict[str, Company]:
        return {c.isin: c for c in self.listed}

    @cached_property
    def by_crno(self) -> dict[str, Company]:
        return {c.crno: c for c in self.companies}

    @property
    def lightron(self) -> Company:
        return self.by_corp_code[LIGHTRON_CORP_CODE]

    # -- prices -------------------------------------------------------------
    @cached_property
    def days(self) -> tuple[dt.date, ...]:
        """Exchange business days with prices, ascending."""
        return business_days(PRICE_START, PRICE_END)

    @cached_property
    def _day_col(self) -> dict[dt.date, int]:
        table = {day: i + 1 for i, day in enumerate(self.days)}
        table[PRIOR_DAY] = 0
        return table

    def visible_days(self, as_of: dt.date) -> tuple[dt.date, ...]:
        """Days whose prices exist at ``as_of``: strictly before it (prices appear the next day)."""
        return self.days[: bisect.bisect_left(self.days, as_of)]

    def is_visible(self, day: dt.date, as_of: dt.date) -> bool:
        return day in self._day_col and day != PRIOR_DAY and day < as_of

    @cached_property
    def prices(self) -> _Prices:
        """The generated and fixed companies' walks (drawn as before the well-known companies came), then the
        well-known ones' from their own generator and their own starting closes."""
        famous = {f["corp_code"]: f for f in _FAMOUS}
        rows = self.by_row
        first = [c for c in rows if c.corp_code not in famous]
        parts = [self._walks(first, self._world.rng("finance.prices"), anchored=True)]
        later = rows[len(first) :]
        if later:
            start = [float(famous[c.corp_code]["close"]) for c in later]
            parts.append(self._walks(later, self._world.rng("finance.prices.famous"), start=start))
        return _Prices(*(np.concatenate([getattr(p, k) for p in parts]) for k in _PRICE_KEYS))

    def _walks(
        self, listed: Sequence[Company], rng: np.random.Generator, anchored: bool = False, start=None
    ) -> _Prices:
        n, cols = len(listed), len(self.days) + 1
        bounds = {"KOSPI": (2_000, 400_000), "KOSDAQ": (800, 120_000), "KONEX": (400, 25_000)}
        drawn = rng.random(n)
        start = np.array(
            start
            if start is not None
            else [bounds[c.market][0] * (bounds[c.market][1] / bounds[c.market][0]) ** u for c, u in zip(listed, drawn)]
        )
        vol = rng.uniform(0.012, 0.035, n)
        drift = rng.normal(0.0002, 0.0006, n)
        shocks = rng.standard_normal((n, cols - 1))
        log_close = np.empty((n, cols))
        log_close[:, 0] = np.log(start)
        log_close[:, 1:] = np.log(start)[:, None] + np.cumsum(drift[:, None] + vol[:, None] * shocks, axis=1)
        if anchored:
            lightron = self.lightron.row
            log_close[lightron] = self._anchored(
                log_close[lightron], [(self._day_col[d], p) for d, p in _LIGHTRON_ANCHORS]
            )
        close = _tick_round(np.exp(log_close))
        prev = np.concatenate([close[:, :1], close[:, :-1]], axis=1).astype(float)
        open_ = _tick_round(prev * np.exp(0.35 * vol[:, None] * rng.standard_normal((n, cols))))
        top = np.maximum(open_, close) * np.exp(np.abs(0.5 * vol[:, None] * rng.standard_normal((n, cols))))
        bottom = np.minimum(open_, close) * np.exp(-np.abs(0.5 * vol[:, None] * rng.standard_normal((n, cols))))
        high = np.maximum(_tick_round(top, "up"), np.maximum(open_, close))
        low = np.minimum(_tick_round(bottom, "down"), np.minimum(open_, close))
        shares = np.array([c.shares for c in listed], dtype=float)
        turnover = np.exp(rng.normal(np.log(0.004), 0.7, n))
        moves = np.abs(np.diff(log_close, axis=1, prepend=log_close[:, :1]))
        volume = (
            shares[:, None] * turnover[:, None] * np.exp(0.6 * rng.standard_normal((n, cols))) * (1 + 8 * moves)
        ).astype(np.int64)
        value = (volume * (open_ + high + low + close) / 4).astype(np.int64)
        return _Prices(close, open_, high, low, volume, value)

    @staticmethod
    def _anchored(log_path: np.ndarray, anchors: list[tuple[int, int]]) -> np.ndarray:
        """The walk bent (piecewise linearly, in log space) so it passes exactly through the anchors.

        Before the first anchor and after the last one the walk is only
        shifted, so its day-to-day moves stay those of a random walk.
        """
        columns = np.arange(len(log_path))
        xs = [col for col, _ in anchors]
        offsets = [math.log(price) - log_path[col] for col, price in anchors]
        return log_path + np.interp(columns, xs, offsets)

    def bar(self, company: Company, day: dt.date) -> dict[str, int] | None:
        """One day's bar (won and shares as ints), or None when the day has no prices."""
        col = self._day_col.get(day)
        if col is None or col == 0 or company.row < 0:
            return None
        p, r = self.prices, company.row
        close, prev = int(p.close[r, col]), int(p.close[r, col - 1])
        return {
            "open": int(p.open[r, col]),
            "high": int(p.high[r, col]),
            "low": int(p.low[r, col]),
            "close": close,
            "prev": prev,
            "vs": close - prev,
            "volume": int(p.volume[r, col]),
            "value": int(p.value[r, col]),
            "shares": company.shares,
            "mktcap": close * company.shares,
        }

    def close_on(self, company: Company, day: dt.date) -> int | None:
        """The close of ``day`` (2024-12-30, the prior close, included); None when there is none."""
        col = self._day_col.get(day)
        return None if col is None or company.row < 0 else int(self.prices.close[company.row, col])

    def close_before(self, company: Company, day: dt.date) -> int:
        """The last close strictly before ``day`` (the reference price of a decision taken that day)."""
        before = previous_business_day(day)
        col = self._day_col.get(before, 0)
        return int(self.prices.close[company.row, col])

    # -- indices ------------------------------------------------------------
    #: (IDX_CLSS, IDX_NM, market, rank window by starting market cap, base level)
    INDEXES = (
        ("KOSPI", "코스피", "KOSPI", (0, None), 2399.49),
        ("KOSPI", "코스피 200", "KOSPI", (0, 200), 318.22),
        ("KOSPI", "코스피 100", "KOSPI", (0, 100), 2431.75),
        ("KOSPI", "코스피 50", "KOSPI", (0, 50), 2201.03),
        ("KOSPI", "코스피 대형주", "KOSPI", (0, 100), 2412.64),
        ("KOSPI", "코스피 중형주", "KOSPI", (100, 300), 2705.18),
        ("KOSPI", "코스피 소형주", "KOSPI", (300, None), 1988.37),
        ("KOSDAQ", "코스닥", "KOSDAQ", (0, None), 678.19),
        ("KOSDAQ", "코스닥 150", "KOSDAQ", (0, 150), 1132.40),
        ("KOSDAQ", "코스닥 대형주", "KOSDAQ", (0, 100), 1571.06),
        ("KOSDAQ", "코스닥 중형주", "KOSDAQ", (100, 400), 687.93),
        ("KOSDAQ", "코스닥 소형주", "KOSDAQ", (400, None), 2514.62),
    )

    @cached_property
    def index_series(self) -> list[dict[str, Any]]:
        """Per index: level arrays (close/open/high/low) and summed volume, value and market cap."""
        p = self.prices
        out = []
        for clss, name, market, (lo, hi), base in self.INDEXES:
            rows = [c.row for c in self.by_row if c.market == market]
            shares = np.array([self.by_row[r].shares for r in rows], dtype=float)
            rows_arr = np.array(rows, dtype=int)
            order = np.argsort(-(p.close[rows_arr, 0] * shares), kind="stable")
            members = order[lo:hi] if hi is not None else order[lo:]
            if len(members) == 0:
                members = order
            sel, w = rows_arr[members], shares[members][:, None]
            cap = (p.close[sel] * w).sum(axis=0)
            divisor = cap[0] / base
            out.append(
                {
                    "clss": clss,
                    "name": name,
                    "close": cap / divisor,
                    "open": (p.open[sel] * w).sum(axis=0) / divisor,
                    "high": (p.high[sel] * w).sum(axis=0) / divisor,
                    "low": (p.low[sel] * w).sum(axis=0) / divisor,
                    "volume": p.volume[sel].sum(axis=0),
                    "value": p.value[sel].sum(axis=0),
                    "mktcap": cap,
                }
            )
        for series in out:
            series["high"] = np.maximum(series["high"], np.maximum(series["open"], series["close"]))
            series["low"] = np.minimum(series["low"], np.minimum(series["open"], series["close"]))
        return out

    def day_column(self, day: dt.date) -> int | None:
        col = self._day_col.get(day)
        return None if col in (None, 0) else col

    # -- per-company fundamentals (lazy, keyed by corp_code) -----------------
    def _once(self, key: tuple, build: Callable[[], Any]) -> Any:
        if key not in self._memo:
            self._memo[key] = build()
        return self._memo[key]

    def profile(self, company: Company) -> dict[str, Any]:
        """Yearly revenue/margins and balance-sheet ratios of a listed company, 2022–2026."""
        return self._once(("profile", company.corp_code), lambda: self._build_profile(company))

    def _build_profile(self, company: Company) -> dict[str, Any]:
        rng = self._world.rng("finance.profile", company.corp_code)
        cap0 = self.prices.close[company.row, 0] * company.shares
        revenue = {2022: float(cap0 * math.exp(rng.normal(-0.2, 0.7)))}
        for year in range(2023, 2027):
            revenue[year] = revenue[year - 1] * math.exp(rng.normal(0.05, 0.15))
        op_margin = {y: float(rng.normal(0.06, 0.07)) for y in revenue}
        quarter_weights = {y: rng.dirichlet([12, 12, 12, 13]) for y in revenue}
        assets_ratio = float(rng.uniform(0.8, 2.0))
        debt_ratio = float(rng.uniform(0.2, 0.7))
        pays = company.corp_code == LIGHTRON_CORP_CODE or rng.random() < {
            "KOSPI": 0.65,
            "KOSDAQ": 0.4,
            "KONEX": 0.1,
        }.get(company.market, 0)
        return {
            "revenue": revenue,
            "op_margin": op_margin,
            "weights": quarter_weights,
            "assets_ratio": assets_ratio,
            "debt_ratio": debt_ratio,
            "current_assets": float(rng.uniform(0.3, 0.65)),
            "current_debt": float(rng.uniform(0.4, 0.85)),
            "surplus_share": float(rng.uniform(0.1, 0.4)),
            "tax": float(rng.uniform(0.18, 0.26)),
            "nonop": {y: float(rng.normal(0.0, 0.01)) for y in revenue},
            "cfs_scale": float(rng.uniform(1.05, 1.5)),
            "pays_dividend": pays,
            "payout": float(rng.uniform(0.15, 0.4)),
            "employees": max(12, int(revenue[2025] / rng.uniform(3e8, 1.5e9))),
            "female_share": float(rng.uniform(0.12, 0.45)),
            "tenure": float(rng.uniform(3.5, 16.0)),
            "salary": float(rng.uniform(4.2e7, 1.1e8)),
        }

    def period_values(self, company: Company, year: int, quarter: int, consolidated: bool) -> dict[str, int]:
        """Statement amounts (won) for a period: balance sheet at its end, income for the quarter/year to date.

        ``quarter`` 4 means the full year. Income keys ending in ``_q`` are the
        three months of the quarter; the plain keys are cumulative to date.
        """
        prof = self.profile(company)
        scale = prof["cfs_scale"] if consolidated else 1.0
        weights = prof["weights"][year]
        to_date = float(sum(weights[:quarter]))
        revenue_year = prof["revenue"][year] * scale
        margin = prof["op_margin"][year]
        out: dict[str, int] = {}
        for suffix, share in (("", to_date), ("_q", float(weights[quarter - 1]))):
            sales = revenue_year * share
            op = sales * margin
            pretax = op + sales * prof["nonop"][year]
            out["revenue" + suffix] = int(sales)
            out["op" + suffix] = int(op)
            out["pretax" + suffix] = int(pretax)
            out["net" + suffix] = int(pretax * (1 - prof["tax"]) if pretax > 0 else pretax)
        growth = (prof["revenue"][year] / prof["revenue"][2022]) ** 0.5
        assets = prof["revenue"][2022] * prof["assets_ratio"] * scale * growth * (1 + 0.02 * quarter)
        debt = assets * prof["debt_ratio"]
        capital = company.par_value * company.shares
        equity = assets - debt
        out.update(
            assets=int(assets),
            current_assets=int(assets * prof["current_assets"]),
            debt=int(debt),
            current_debt=int(debt * prof["current_debt"]),
            equity=int(equity),
            capital=int(capital),
            retained=int(equity - capital - equity * prof["surplus_share"]),
        )
        out["noncurrent_assets"] = out["assets"] - out["current_assets"]
        out["noncurrent_debt"] = out["debt"] - out["current_debt"]
        return out

    def dividend_per_share(self, company: Company, year: int) -> int:
        """Annual cash dividend per common share (won); 0 for non-payers and loss years."""
        prof = self.profile(company)
        if not prof["pays_dividend"]:
            return 0
        if company.corp_code == LIGHTRON_CORP_CODE:
            return 25
        eps = self.period_values(company, year, 4, company.has_cfs)["net"] / max(company.shares, 1)
        return int(max(eps * prof["payout"], 0) // 5 * 5)

    def holders(self, company: Company, year: int, quarter: int) -> list[dict[str, Any]]:
        """The largest shareholder and related parties at a period end (shares, with the start of year)."""

        def build() -> list[tuple[str, str, float]]:
            rng = self._world.rng("finance.holders", company.corp_code)
            largest = _person(*rng.random(3)) if rng.random() < 0.7 else _pick(_STEMS, rng.random())[0] + "홀딩스"
            people = [(largest, "본인", float(rng.uniform(0.12, 0.42)))]
            for _ in range(int(rng.integers(1, 5))):
                people.append(
                    (
                        _person(*rng.random(3)),
                        _pick(("특수관계인", "임원", "친인척"), rng.random()),
                        float(rng.uniform(0.001, 0.05)),
                    )
                )
            return people

        base = self._once(("holders", company.corp_code), build)
        rng = self._world.rng("finance.holders.drift", company.corp_code, year, quarter)
        rows = []
        for name, relation, share in base:
            start = share * (1 + 0.02 * (year - 2025))
            end = start * (1 + float(rng.normal(0, 0.01)) * quarter / 4)
            rows.append(
                {"nm": name, "relate": relation, "start": int(start * company.shares), "end": int(end * company.shares)}
            )
        return rows

    # -- filings ------------------------------------------------------------
    @cached_property
    def filings(self) -> tuple[Filing, ...]:
        """Every receipt in the world, ordered by rcept_no (date first)."""
        famous = {f["corp_code"] for f in _FAMOUS}
        drafts: list[_Draft] = []
        for company in self.listed:
            if company.corp_code not in famous:
                drafts.extend(self._company_drafts(company))
        drafts.extend(self._audit_drafts())
        first = self._numbered(drafts)
        # Filings that came later (the well-known companies', the other 주요사항보고서 and 증권신고서 kinds) are
        # numbered after each day's earlier ones, so the earlier receipt numbers stay what they were.
        later: list[_Draft] = []
        for company in self.listed:
            if company.corp_code in famous:
                later.extend(self._company_drafts(company))
            later.extend(self._generic_event_drafts(company))
        return tuple(sorted(first + self._numbered_after(later, first), key=lambda f: f.rcept_no))

    def _company_drafts(self, company: Company) -> list[_Draft]:
        return [
            *self._periodic_drafts(company),
            *self._event_drafts(company),
            *self._ownership_drafts(company),
            *self._exchange_drafts(company),
        ]

    @cached_property
    def event_kinds(self) -> tuple[tuple[str, Mapping[str, Any]], ...]:
        """(kind, settings) of the 주요사항보고서 and 증권신고서 kinds kept as data in OpenDART's operation table
        (options.event: report title, the share of listed companies filing one, the one every world holds)."""
        from kopa_replay.sim.tables import load_table

        return tuple(
            (op.route.rsplit("/", 1)[-1], op.options["event"])
            for op in load_table("dart").operations
            if "event" in op.options
        )

    def _generic_event_drafts(self, company: Company) -> list[_Draft]:
        kinds = self.event_kinds
        draws = self._world.rng("finance.events.more", company.corp_code).random((len(kinds), 2)).tolist()
        out = []
        for (kind, event), (u, v) in zip(kinds, draws):
            fixed = event.get("fixed")
            if fixed and fixed[0] == company.corp_code:
                first = dt.date(int(fixed[1][:4]), int(fixed[1][4:6]), int(fixed[1][6:]))
                day = _day_between(first, first + dt.timedelta(days=10), 0.0)
            elif u < float(event["rate"]):
                day = _day_between(PRICE_START, PRICE_END, v)
            else:
                continue
            out.append(
                _Draft(
                    day,
                    company,
                    kind,
                    event["title"],
                    company.corp_name,
                    self._market_rm(company),
                    event.get("pblntf_ty", "B"),
                    event.get("pblntf_detail_ty", "B001"),
                    False,
                    dict,
                )
            )
        return out

    def _numbered_after(self, drafts: list[_Draft], earlier: tuple[Filing, ...]) -> tuple[Filing, ...]:
        """Receipt numbers for later drafts: each day's serials go on after that day's earlier filings."""
        last: dict[tuple[dt.date, bool], int] = {}
        for f in earlier:
            serial = int(f.rcept_no[8:])
            key = (f.rcept_dt, serial >= 800_000)
            last[key] = max(last.get(key, 0), serial)
        reserved = {f.rcept_no for f in earlier} | {d.rcept_no for d in drafts if d.rcept_no}
        rng = self._world.rng("finance.rcept.later")
        by_day: dict[tuple[dt.date, bool], list[_Draft]] = {}
        for draft in drafts:
            by_day.setdefault((draft.day, draft.exchange), []).append(draft)
        for (day, exchange), group in sorted(by_day.items(), key=lambda kv: (kv[0][0], kv[0][1])):
            group.sort(key=lambda d: (d.company.corp_code, d.kind, d.report_nm))
            serial = last.get((day, exchange), 800_000 if exchange else 0)
            for draft, step in zip(group, rng.integers(1, 40, size=len(group)).tolist()):
                if draft.rcept_no:
                    continue
                serial += int(step)
                while f"{ymd(day)}{serial:06d}" in reserved:
                    serial += 1
                draft.rcept_no = f"{ymd(day)}{serial:06d}"
        return self._filings_of(drafts)

    def _numbered(self, drafts: list[_Draft]) -> tuple[Filing, ...]:
        """Receipt numbers: YYYYMMDD + 6-digit serial, 00xxxx for DART filings, 80xxxx for exchange ones."""
        rng = self._world.rng("finance.rcept")
        reserved = {d.rcept_no for d in drafts if d.rcept_no}
        by_day: dict[tuple[dt.date, bool], list[_Draft]] = {}
        for draft in drafts:
            by_day.setdefault((draft.day, draft.exchange), []).append(draft)
        for (day, exchange), group in sorted(by_day.items(), key=lambda kv: (kv[0][0], kv[0][1])):
            group.sort(key=lambda d: (d.company.corp_code, d.kind, d.report_nm))
            serial = 800_000 if exchange else 0
            steps = rng.integers(1, 40, size=len(group))
            for draft, step in zip(group, steps):
                if draft.rcept_no:
                    continue
                serial += int(step)
                while f"{ymd(day)}{serial:06d}" in reserved:
                    serial += 1
                draft.rcept_no = f"{ymd(day)}{serial:06d}"
        return tuple(sorted(self._filings_of(drafts), key=lambda f: f.rcept_no))

    @staticmethod
    def _filings_of(drafts: list[_Draft]) -> tuple[Filing, ...]:
        filings = []
        for d in drafts:
            filings.append(
                Filing(
                    d.rcept_no or "",
                    d.day,
                    d.company,
                    d.kind,
                    d.report_nm,
                    d.flr_nm,
                    d.rm,
                    d.pblntf_ty,
                    d.pblntf_detail_ty,
                    d.build(),
                )
            )
        return tuple(filings)

    @staticmethod
    def _market_rm(company: Company) -> str:
        return {"KOSPI": "유", "KOSDAQ": "코", "KONEX": "넥"}.get(company.market, "")

    def _periodic_drafts(self, company: Company) -> list[_Draft]:
        rng = self._world.rng("finance.periodic", company.corp_code)
        out = []
        for year, code, start, end in _PERIODIC:
            day = _day_between(dt.date(*start), dt.date(*end), float(rng.random()))
            quarter, kind, (month, _) = REPORT_CODES[code]
            period = f"{year if code != '11011' else year}.{month:02d}"
            fixed_no, fixed_day = _FAMOUS_PERIODIC.get((company.corp_code, year, code), (None, day))
            out.append(
                _Draft(
                    fixed_day,
                    company,
                    "periodic",
                    f"{kind} ({period})",
                    company.corp_name,
                    "연" if company.has_cfs else "",
                    "A",
                    {"11011": "A001", "11012": "A002"}.get(code, "A003"),
                    False,
                    lambda y=year, c=code: {"bsns_year": str(y), "reprt_code": c},
                    fixed_no,
                )
            )
        return out

    def _audit_drafts(self) -> list[_Draft]:
        """Unlisted firms under external audit (about 30%, and the fixed one) file a 감사보고서 each spring.

        One generator for all unlisted firms: a per-firm generator costs more
        than the draft itself at the full world's 111k firms.
        """
        # the companies left out of ``unlisted`` file none (see there), so the draws run over them all
        unlisted, draws = self._unlisted_all, self._audit_draws
        fixed = {f["corp_code"] for f in _FIXED}
        windows = {year: (dt.date(year + 1, 3, 15), dt.date(year + 1, 4, 14)) for year in (2024, 2025)}
        out = []
        for company, u in zip(unlisted, draws):
            if u[0] >= 0.3 and company.corp_code not in fixed:
                continue
            auditor = _pick(_AUDITORS, u[1])
            for year, draw in ((2024, u[2]), (2025, u[3])):
                out.append(
                    _Draft(
                        _day_between(*windows[year], draw),
                        company,
                        "audit",
                        f"감사보고서 ({year}.12)",
                        auditor,
                        "",
                        "F",
                        "F001",
                        False,
                        lambda y=year: {"bsns_year": str(y)},
                    )
                )
        return out

    def _exchange_drafts(self, company: Company) -> list[_Draft]:
        """KRX-channel disclosures (80xxxx receipts): supply contracts, dividend decisions, IR."""
        rng = self._world.rng("finance.exchange", company.corp_code)
        rm = self._market_rm(company)
        out = []
        for _ in range(int(rng.integers(1, 6))):
            day = _day_between(PRICE_START, PRICE_END, float(rng.random()))
            name = _pick(
                (
                    "단일판매ㆍ공급계약체결",
                    "주주총회소집결의",
                    "기업설명회(IR)개최(안내공시)",
                    "타법인주식및출자증권취득결정",
                    "최대주주등소유주식변동신고서",
                ),
                float(rng.random()),
            )
            detail_ty = "I002" if "IR" in name else "I001"
            out.append(_Draft(day, company, "exchange", name, company.corp_name, rm, "I", detail_ty, True, dict))
        for year in (2024, 2025):
            if self.dividend_per_share(company, year) > 0:
                day = _day_between(dt.date(year + 1, 2, 5), dt.date(year + 1, 2, 27), float(rng.random()))
                out.append(
                    _Draft(
                        day,
                        company,
                        "exchange",
                        "현금ㆍ현물배당결정",
                        company.corp_name,
                        rm,
                        "I",
                        "I001",
                        True,
                        lambda y=year: {"dividend_year": str(y)},
                    )
                )
        return out

    # -- event reports (주요사항보고서) ---------------------------------------
    def _event_drafts(self, company: Company) -> list[_Draft]:
        rng = self._world.rng("finance.events", company.corp_code)
        if company.corp_code == LIGHTRON_CORP_CODE:
            out = [self._cb_draft(company, _LIGHTRON_CB_DAY, 5, rng, showcase=True)]
        elif rng.random() < {"KOSPI": 0.08, "KOSDAQ": 0.3, "KONEX": 0.15}[company.market]:
            count = 1 + int(rng.poisson(1.2))
            days = sorted(_day_between(PRICE_START, PRICE_END, float(u)) for u in rng.random(count))
            first_series = int(rng.integers(1, 9))
            out = [self._cb_draft(company, day, first_series + i, rng) for i, day in enumerate(days)]
        else:
            out = []
        makers = {"bdwt": self._bw_draft, "piic": self._piic_draft, "tsstk": self._tsstk_draft}
        if company.corp_code in _FIXED_EVENTS:
            return out + [makers[kind](company, day, rng) for kind, day in _FIXED_EVENTS[company.corp_code]]
        planned = []
        if company.market == "KOSDAQ" and rng.random() < 0.07:
            planned.append("bdwt")
        if rng.random() < 0.1:
            planned.append("piic")
        if rng.random() < {"KOSPI": 0.15, "KOSDAQ": 0.07, "KONEX": 0.0}[company.market]:
            planned.extend(["tsstk"] * int(rng.integers(1, 3)))
        for kind in planned:
            out.append(makers[kind](company, _day_between(PRICE_START, PRICE_END, float(rng.random())), rng))
        return out

    def _event(self, company: Company, day: dt.date, kind: str, title: str, build) -> _Draft:
        return _Draft(
            day,
            company,
            kind,
            f"주요사항보고서({title})",
            company.corp_name,
            self._market_rm(company),
            "B",
            "B001",
            False,
            build,
        )

    def _bond_terms(
        self,
        company: Company,
        day: dt.date,
        rng: np.random.Generator,
        series: int,
        private: bool,
        amount: int,
        coupon: float,
        maturity_coupon: float,
        pay_day: dt.date | None = None,
    ) -> dict[str, Any]:
        """The fields CB and BW decisions share: series, amounts, use of funds, dates, board attendance.

        Keys starting with ``_`` are dates the caller needs, not report fields.
        """
        if pay_day is None:
            pay_day = _day_between(day + dt.timedelta(days=3), day + dt.timedelta(days=14), float(rng.random()))
        maturity = pay_day.replace(year=pay_day.year + 3)
        # Split the money between 운영자금 and one of 채무상환/타법인 증권 취득, in 100-million steps.
        operating = int(amount * rng.uniform(0.3, 1.0)) // 100_000_000 * 100_000_000
        rest = amount - operating
        repay, acquire = (rest, 0) if rng.random() < 0.6 else (0, rest)
        return {
            "bd_tm": str(series),
            "bd_knd": f"무기명식 이권부 무보증 {'사모' if private else '공모'} 전환사채",
            "bd_fta": comma(amount),
            "atcsc_rmislmt": comma(amount * int(rng.integers(3, 12))),
            "ovis_fta": "-",
            "ovis_fta_crn": "-",
            "ovis_ster": "-",
            "ovis_isar": "-",
            "ovis_mktnm": "-",
            "fdpp_fclt": "-",
            "fdpp_bsninh": "-",
            "fdpp_op": comma(operating) if operating else "-",
            "fdpp_dtrp": comma(repay) if repay else "-",
            "fdpp_ocsa": comma(acquire) if acquire else "-",
            "fdpp_etc": "-",
            "bd_intr_ex": f"{coupon:.1f}",
            "bd_intr_sf": f"{maturity_coupon:.1f}",
            "bd_mtd": korean_date(maturity),
            "bdis_mthn": "사모" if private else "공모",
            "_pay_day": pay_day,
            "_maturity": maturity,
            "sbd": korean_date(pay_day),
            "pymd": korean_date(pay_day),
            "rpmcmp": "-" if private else _pick(_BROKERS, float(rng.random())),
            "grint": "-",
            "bddd": korean_date(day),
            "od_a_at_t": str(int(rng.integers(1, 4))),
            "od_a_at_b": "0",
            "adt_a_atn": "참석" if rng.random() < 0.8 else "-",
            "rs_sm_atn": "아니오" if private else "예",
            "ex_sm_r": "사모 발행으로 증권신고서 제출 면제" if private else "-",
            "ovis_ltdtl": "-",
            "ftc_stt_atn": "미해당",
        }

    def _cb_draft(
        self, company: Company, day: dt.date, series: int, rng: np.random.Generator, showcase: bool = False
    ) -> _Draft:
        if showcase:
            amount, price, coupon, maturity_coupon, private = 5_000_000_000, 760, 0.0, 3.0, True
        else:
            amount = int(rng.integers(10, 300)) * 100_000_000
            reference = self.close_before(company, day)
            price = max(int(_tick_round(np.array([reference * rng.uniform(0.93, 1.07)]))[0]), 1)
            coupon = float(_pick((0.0, 0.0, 1.0, 2.0), float(rng.random())))
            maturity_coupon = coupon + float(_pick((1.0, 2.0, 3.0, 4.0), float(rng.random())))
            private = rng.random() < 0.85
        terms = self._bond_terms(
            company,
            day,
            rng,
            series,
            private,
            amount,
            coupon,
            maturity_coupon,
            pay_day=_LIGHTRON_CB_PAY_DAY if showcase else None,
        )
        pay_day, maturity = terms.pop("_pay_day"), terms.pop("_maturity")
        floor = int(math.ceil(price * 0.7))
        count = amount // price
        fields = {
            **{k: v for k, v in terms.items() if k not in _BOND_TAIL},
            "cv_rt": "100",
            "cv_prc": comma(price),
            "cvisstk_knd": f"{company.registry_name} 기명식 보통주",
            "cvisstk_cnt": comma(count),
            "cvisstk_tisstk_vs": f"{count / company.shares * 100:.2f}",
            "cvrqpd_bgd": korean_date(pay_day.replace(year=pay_day.year + 1)),
            "cvrqpd_edd": korean_date(maturity - dt.timedelta(days=31)),
            "act_mktprcfl_cvprc_lwtrsprc": comma(floor),
            "act_mktprcfl_cvprc_lwtrsprc_bs": "발행당시 전환가액의 70%",
            "rmislmt_lt70p": "-",
            "abmg": "-",
            **{k: terms[k] for k in _BOND_TAIL},
        }
        if showcase:
            fields.update(
                atcsc_rmislmt="45,000,000,000",
                fdpp_op="3,000,000,000",
                fdpp_dtrp="2,000,000,000",
                fdpp_ocsa="-",
                od_a_at_t="1",
                adt_a_atn="참석",
            )
        draft = self._event(company, day, "cvbd", "전환사채권발행결정", lambda: dict(fields))
        if showcase:
            draft.rcept_no = _LIGHTRON_CB_RCEPT
        return draft

    def _bw_draft(self, company: Company, day: dt.date, rng: np.random.Generator) -> _Draft:
        amount = int(rng.integers(10, 200)) * 100_000_000
        price = self.close_before(company, day)
        terms = self._bond_terms(
            company,
            day,
            rng,
            int(rng.integers(1, 6)),
            rng.random() < 0.8,
            amount,
            0.0,
            float(_pick((2.0, 3.0, 4.0), float(rng.random()))),
        )
        pay_day, maturity = terms.pop("_pay_day"), terms.pop("_maturity")
        terms["bd_knd"] = terms["bd_knd"].replace("전환사채", "분리형 신주인수권부사채")
        count = amount // max(price, 1)
        fields = {
            **{k: v for k, v in terms.items() if k not in _BOND_TAIL},
            "ex_rt": "100",
            "ex_prc": comma(price),
            "ex_prc_dmth": "「증권의 발행 및 공시 등에 관한 규정」 제5-24조에 의거",
            "bdwt_div_atn": "분리",
            "nstk_pymm": "현금납입 또는 사채대용납입",
            "nstk_isstk_knd": f"{company.registry_name} 기명식 보통주",
            "nstk_isstk_cnt": comma(count),
            "nstk_isstk_tisstk_vs": f"{count / company.shares * 100:.2f}",
            "expd_bgd": korean_date(pay_day.replace(year=pay_day.year + 1)),
            "expd_edd": korean_date(maturity - dt.timedelta(days=31)),
            "act_mktprcfl_cvprc_lwtrsprc": comma(int(math.ceil(price * 0.7))),
            "act_mktprcfl_cvprc_lwtrsprc_bs": "발행당시 행사가액의 70%",
            "rmislmt_lt70p": "-",
            "abmg": "-",
            **{k: terms[k] for k in _BOND_TAIL},
        }
        return self._event(company, day, "bdwt", "신주인수권부사채권발행결정", lambda: dict(fields))

    def _piic_draft(self, company: Company, day: dt.date, rng: np.random.Generator) -> _Draft:
        count = int(company.shares * rng.uniform(0.05, 0.3)) // 100 * 100
        price = int(self.close_before(company, day) * rng.uniform(0.75, 0.95))
        total = count * price
        method = _pick(("제3자배정증자", "주주배정후 실권주 일반공모", "일반공모증자"), float(rng.random()))
        fields = {
            "nstk_ostk_cnt": comma(count),
            "nstk_estk_cnt": "-",
            "fv_ps": comma(company.par_value),
            "bfic_tisstk_ostk": comma(company.shares),
            "bfic_tisstk_estk": "-",
            "fdpp_fclt": comma(total // 3) if total > 0 else "-",
            "fdpp_bsninh": "-",
            "fdpp_op": comma(total - total // 3),
            "fdpp_dtrp": "-",
            "fdpp_ocsa": "-",
            "fdpp_etc": "-",
            "ic_mthn": method,
        }
        return self._event(company, day, "piic", "유상증자결정", lambda: dict(fields))

    def _tsstk_draft(self, company: Company, day: dt.date, rng: np.random.Generator) -> _Draft:
        count = int(company.shares * rng.uniform(0.005, 0.03))
        price = self.close_before(company, day)
        start = _day_between(day + dt.timedelta(days=1), day + dt.timedelta(days=5), float(rng.random()))
        end = start + dt.timedelta(days=90)
        held = int(company.shares * rng.uniform(0.0, 0.05))
        venue = "유가증권시장" if company.market == "KOSPI" else "코스닥시장"
        fields = {
            "aqpln_stk_ostk": comma(count),
            "aqpln_stk_estk": "-",
            "aqpln_prc_ostk": comma(count * price),
            "aqpln_prc_estk": "-",
            "aqexpd_bgd": korean_date(start),
            "aqexpd_edd": korean_date(end),
            "hdexpd_bgd": "-",
            "hdexpd_edd": "-",
            "aq_pp": "주주가치 제고 및 주가안정",
            "aq_mth": f"{venue}을 통한 장내 직접 취득",
            "cs_iv_bk": _pick(_BROKERS, float(rng.random())),
            "aq_wtn_div_ostk": comma(held),
            "aq_wtn_div_ostk_rt": f"{held / company.shares * 100:.2f}",
            "aq_wtn_div_estk": "-",
            "aq_wtn_div_estk_rt": "-",
            "eaq_ostk": "-",
            "eaq_ostk_rt": "-",
            "eaq_estk": "-",
            "eaq_estk_rt": "-",
            "aq_dd": korean_date(day),
            "od_a_at_t": str(int(rng.integers(1, 4))),
            "od_a_at_b": "0",
            "adt_a_atn": "참석",
            "d1_prodlm_ostk": comma(max(count // 10, 1)),
            "d1_prodlm_estk": "-",
        }
        return self._event(company, day, "tsstk", "자기주식취득결정", lambda: dict(fields))

    # -- ownership reports ----------------------------------------------------
    def _ownership_drafts(self, company: Company) -> list[_Draft]:
        """5% (대량보유) reports by funds and insider (임원ㆍ주요주주) reports by executives."""
        rng = self._world.rng("finance.ownership", company.corp_code)
        out: list[_Draft] = []
        reporters = list(_FUNDS) + ([_pick(_CB_INVESTORS, float(rng.random()))] if company.market != "KOSPI" else [])
        stake = float(rng.uniform(0.05, 0.08))
        reporter = _pick(reporters, float(rng.random()))
        for i, day in enumerate(
            sorted(
                _day_between(PRICE_START, dt.date(2026, 12, 30), float(u)) for u in rng.random(int(rng.integers(1, 4)))
            )
        ):
            change = 0.0 if i == 0 else float(rng.normal(0, 0.01))
            stake = max(stake + change, 0.001)
            qty = int(stake * company.shares)
            delta = int(change * company.shares) if i else qty
            fields = {
                "report_tp": "일반" if rng.random() < 0.6 else "약식",
                "repror": reporter,
                "stkqy": comma(qty),
                "stkqy_irds": comma(delta),
                "stkrt": f"{stake * 100:.2f}",
                "stkrt_irds": f"{(change if i else stake) * 100:.2f}",
                "ctr_stkqy": comma(qty),
                "ctr_stkrt": f"{stake * 100:.2f}",
                "report_resn": "신규보고"
                if i == 0
                else _pick(
                    (
                        "보유주식등의 수 변동(장내매수)",
                        "보유주식등의 수 변동(장내매도)",
                        "보유목적 변경",
                        "특별관계자 변동",
                    ),
                    float(rng.random()),
                ),
            }
            out.append(
                _Draft(
                    day,
                    company,
                    "majorstock",
                    f"주식등의대량보유상황보고서({fields['report_tp']})",
                    reporter,
                    "",
                    "D",
                    "D001",
                    False,
                    lambda f=fields: dict(f),
                )
            )
        officers = [
            (
                _person(*rng.random(3)),
                _pick(("대표이사", "사내이사", "전무", "상무", "이사", "감사"), float(rng.random())),
                float(rng.uniform(0.0005, 0.08)),
            )
            for _ in range(int(rng.integers(1, 4)))
        ]
        for _ in range(int(rng.integers(1, 5))):
            name, position, share = _pick(officers, float(rng.random()))
            day = _day_between(PRICE_START, dt.date(2026, 12, 30), float(rng.random()))
            change = int(company.shares * float(rng.normal(0, 0.002)))
            held = max(int(share * company.shares) + change, 0)
            fields = {
                "repror": name,
                "isu_exctv_rgist_at": "등기임원" if position in ("대표이사", "사내이사", "감사") else "비등기임원",
                "isu_exctv_ofcps": position,
                "isu_main_shrholdr": "주요주주" if share >= 0.1 else "-",
                "sp_stock_lmp_cnt": comma(held),
                "sp_stock_lmp_irds_cnt": comma(change),
                "sp_stock_lmp_rate": f"{held / company.shares * 100:.2f}",
                "sp_stock_lmp_irds_rate": f"{change / company.shares * 100:.2f}",
            }
            out.append(
                _Draft(
                    day,
                    company,
                    "elestock",
                    "임원ㆍ주요주주특정증권등소유상황보고서",
                    name,
                    "",
                    "D",
                    "D002",
                    False,
                    lambda f=fields: dict(f),
                )
            )
        return out

    # -- indexes over filings -------------------------------------------------
    @cached_property
    def filings_by_corp(self) -> dict[str, list[Filing]]:
        table: dict[str, list[Filing]] = {}
        for filing in self.filings:
            table.setdefault(filing.company.corp_code, []).append(filing)
        return table

    @cached_property
    def by_rcept_no(self) -> dict[str, Filing]:
        return {f.rcept_no: f for f in self.filings}

    @cached_property
    def filing_days(self) -> list[dt.date]:
        return [f.rcept_dt for f in self.filings]

    def filings_between(self, start: dt.date, end: dt.date) -> list[Filing]:
        """All filings with start <= rcept_dt <= end (rcept_no order)."""
        lo = bisect.bisect_left(self.filing_days, start)
        hi = bisect.bisect_right(self.filing_days, end)
        return list(self.filings[lo:hi])

    @cached_property
    def periodic_index(self) -> dict[tuple[str, str, str], Filing]:
        """(corp_code, bsns_year, reprt_code) → the periodic report."""
        return {
            (f.company.corp_code, f.detail["bsns_year"], f.detail["reprt_code"]): f
            for f in self.filings
            if f.kind == "periodic"
        }

    def periodic(self, company: Company, year: str, code: str, as_of: dt.date) -> Filing | None:
        """The periodic report for (year, code) if it was filed on or before ``as_of``."""
        filing = self.periodic_index.get((company.corp_code, year, code))
        return filing if filing is not None and filing.rcept_dt <= as_of else None

    @cached_property
    def dividend_events(self) -> list[dict[str, Any]]:
        """Annual cash dividends as the 예탁원 records them: one per payer and fiscal year, by decision day."""
        out = []
        for filing in self.filings:
            if filing.report_nm != "현금ㆍ현물배당결정":
                continue
            company, year = filing.company, int(filing.detail["dividend_year"])
            dps = self.dividend_per_share(company, year)
            if dps <= 0:
                continue
            record_day = dt.date(year, 12, 31)
            pay_day = _day_between(
                dt.date(year + 1, 4, 10), dt.date(year + 1, 4, 25), (int(company.corp_code) % 97) / 97
            )
            out.append(
                {
                    "company": company,
                    "year": year,
                    "dps": dps,
                    "decided": filing.rcept_dt,
                    "record_day": record_day,
                    "pay_day": pay_day,
                }
            )
        return out
