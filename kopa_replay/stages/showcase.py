"""The paper's showcase task, walked tool by tool: Lightron's convertible-bond premium.

"Find the convertible bond 라이트론 issued in January 2026 and compute how far
the previous day's close sits above the refixing floor price." Four steps,
none skippable: the corp_code lookup (a name gets no data from the event
endpoint), the CB decision (floor price 532), the prior close (1,680), the
arithmetic ((1680 − 532) / 532 = 215.789…%, printed 215.78% in the paper).
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from typing import Any

from kopa_replay.catalog.model import Catalog
from kopa_replay.env.source import Source, call_tool
from kopa_replay.errors import SourceError
from kopa_replay.sim.world.calendar import previous_business_day, ymd
from kopa_replay.text import as_number

__all__ = ["ShowcaseStep", "ShowcaseResult", "walk_lightron"]


@dataclass(frozen=True)
class ShowcaseStep:
    tool: str
    args: dict[str, Any]
    outcome: str
    picked: dict[str, Any]


@dataclass
class ShowcaseResult:
    steps: list[ShowcaseStep] = field(default_factory=list)
    floor_price: int | None = None
    prior_close: int | None = None
    premium_pct: float | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "steps": [vars(s) for s in self.steps],
            "floor_price": self.floor_price,
            "prior_close": self.prior_close,
            "premium_pct": None if self.premium_pct is None else round(self.premium_pct, 6),
        }


def _number(value: Any, field: str) -> int:
    """A figure of the showcase's answer (``"1,680"`` → 1680), read by the one number parser."""
    number = as_number(value)
    if number is None:
        raise SourceError(f"showcase: {field} is not a number: {value!r}")
    return int(number)


def walk_lightron(catalog: Catalog, source: Source, as_of: dt.date, company: str = "라이트론") -> ShowcaseResult:
    """Run the four-step chain against ``source`` and return every step and the answer."""
    result = ShowcaseResult()

    def step(tool: str, args: dict[str, Any]):
        answer = call_tool(catalog, tool, args, source)
        if answer.outcome != "ok":
            raise SourceError(f"showcase step {tool} answered {answer.outcome} (code {answer.code}: {answer.message})")
        return answer

    found = step("dart_corp_code", {"corp_name": company})
    exact = [r for r in found.records if r.get("corp_name") == company]
    if not exact:
        raise SourceError(f"no company named {company!r} among {len(found.records)} candidates")
    corp = exact[0]
    result.steps.append(
        ShowcaseStep(
            "dart_corp_code",
            {"corp_name": company},
            found.outcome,
            {"corp_code": corp["corp_code"], "stock_code": corp["stock_code"]},
        )
    )

    args = {"corp_code": corp["corp_code"], "bgn_de": "20260101", "end_de": "20260131"}
    bonds = step("dart_cvbd_is_decsn", args)
    floor = _number(bonds.records[0]["act_mktprcfl_cvprc_lwtrsprc"], "act_mktprcfl_cvprc_lwtrsprc")
    result.steps.append(
        ShowcaseStep(
            "dart_cvbd_is_decsn",
            args,
            bonds.outcome,
            {
                "act_mktprcfl_cvprc_lwtrsprc": bonds.records[0]["act_mktprcfl_cvprc_lwtrsprc"],
                "rcept_no": bonds.records[0].get("rcept_no"),
            },
        )
    )

    args = {"srtnCd": corp["stock_code"].strip(), "basDt": ymd(previous_business_day(as_of))}
    prices = step("datagokr_get_stock_price_info", args)
    close = _number(prices.records[0]["clpr"], "clpr")
    result.steps.append(
        ShowcaseStep(
            "datagokr_get_stock_price_info",
            args,
            prices.outcome,
            {"clpr": prices.records[0]["clpr"], "basDt": prices.records[0].get("basDt")},
        )
    )

    result.floor_price, result.prior_close = floor, close
    result.premium_pct = (close - floor) / floor * 100
    return result
