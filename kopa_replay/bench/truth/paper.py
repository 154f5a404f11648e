"""The paper's showcase task from the finance world: 라이트론's 2026-01 convertible bond and its 2026-08-31 close."""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from typing import Any


def lightron_premium(world: Any, as_of: str, slots: Mapping[str, Any]) -> float:
    """(close on 2026-08-31 − the CB's refixing floor) / floor × 100, the CB decided in January 2026."""
    finance = world.finance
    company = finance.lightron
    decided = [
        filing
        for filing in finance.filings_by_corp[company.corp_code]
        if filing.kind == "cvbd" and dt.date(2026, 1, 1) <= filing.rcept_dt <= dt.date(2026, 1, 31)
    ]
    (bond,) = decided
    floor = int(str(bond.detail["act_mktprcfl_cvprc_lwtrsprc"]).replace(",", ""))
    close = finance.close_on(company, dt.date(2026, 8, 31))
    return (close - floor) / floor * 100
