"""The paper's showcase task, walked tool by tool: Lightron's convertible-bond premium.

"Find the convertible bond 라이트론 issued in January 2026 and compute how far
the previous day's close sits above the refixing floor price." Four steps,
none skippable: the corp_code lookup (a name gets no data from the event
endpoint), the CB decision (floor price 532), the prior close (1,680), the
arithmetic ((1680 − 532) / 532 = 215.789…%, printed 215.78% in the paper).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from kopa_replay.catalog.model import Catalog
from kopa_replay.env.source import Source, call_tool, is_sim, sim_world
from kopa_replay.errors import SourceError
from kopa_replay.sim.world.calendar import previous_business_day, ymd
from kopa_replay.text import as_number

__all__ = ["ShowcaseStep", "ShowcaseResult", "StepFailed", "answered_by", "describe_answered_by", "walk_lightron"]


class StepFailed(SourceError):
    """A step's call ran and the platform answered an error: exit 3 on the command line, as a ``call``'s."""

    exit_code = 3


def answered_by(
    details: Mapping[str, Any], *, seed: int | None = None, as_of: dt.date | str | None = None
) -> dict[str, Any]:
    """Where a source's answers come from (``details``: :attr:`Source.details`): ``answered_by`` is ``replay``
    (the snapshot, its store and whether a seal pins it), ``simulator`` (its world, ``seed`` and ``as_of``),
    ``live``, ``mirror`` (its URL), or ``record`` / ``replay-or-record`` (the snapshot recorded into, and the
    source behind it)."""
    source = str(details.get("source"))
    behind: dict[str, Any]
    if is_sim(source):
        behind = {"answered_by": "simulator", "world": sim_world(source), "seed": seed, "as_of": _day(as_of)}
    elif source in ("live", "replay"):
        behind = {"answered_by": source}
    else:
        behind = {"answered_by": "mirror", "url": _shown_url(source)}
    snapshot = details.get("snapshot")
    if snapshot is None:
        return behind
    where = {"snapshot": snapshot, "store": details.get("store")}
    mode = details.get("mode") or "replay"
    if mode == "replay":
        return {"answered_by": "replay", **where, "pinned": details.get("pinned")}
    return {"answered_by": mode, **where, "source": behind}


def _shown_url(url: str) -> str:
    """A mirror's URL as printed: scheme, host, port and path only — a user name, password, query or fragment may
    hold a key, and nothing printed may."""
    from urllib.parse import urlsplit, urlunsplit

    parts = urlsplit(url)
    host = parts.hostname or ""
    netloc = f"[{host}]" if ":" in host else host
    try:
        port = parts.port
    except ValueError:  # not a port: leave it out rather than echo what it was
        port = None
    return urlunsplit((parts.scheme, netloc + (f":{port}" if port is not None else ""), parts.path, "", ""))


def _day(value: dt.date | str | None) -> str | None:
    return None if value is None else str(value)


def describe_answered_by(info: Mapping[str, Any]) -> str:
    """:func:`answered_by` as a phrase: ``replayed from snapshot 2026-09-01 (store …)``, ``simulated (world full,
    seed 0, as of 2026-09-01)`` …"""
    kind = info.get("answered_by")
    if kind == "replay":
        unpinned = ", open: no seal pins its answers" if info.get("pinned") is False else ""
        return f"replayed from snapshot {info['snapshot']} (store {info['store']}{unpinned})"
    if kind == "simulator":
        return f"simulated (world {info['world']}, seed {info['seed']}, as of {info['as_of']})"
    if kind == "live":
        return "the live platforms"
    if kind == "mirror":
        return f"the mirror at {info['url']}"
    behind = describe_answered_by(info["source"])
    into = f"snapshot {info['snapshot']} (store {info['store']})"
    if kind == "record":
        return f"{behind}, recorded into {into}"
    return f"replayed from {into} where it holds the answer, else {behind} and recorded into it"


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
    #: where the answers came from (:func:`answered_by`)
    source: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "source": dict(self.source),
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


def walk_lightron(
    catalog: Catalog, source: Source, as_of: dt.date, company: str = "라이트론", *, seed: int | None = None
) -> ShowcaseResult:
    """Run the four-step chain against ``source`` and return every step and the answer (and where the answers
    came from: ``seed`` is the simulator's, when it answers). A step the platform answers with an error raises
    :class:`StepFailed`; one it answers with no record, :class:`~kopa_replay.errors.SourceError`."""
    result = ShowcaseResult(source=answered_by(source.details, seed=seed, as_of=as_of))

    def step(tool: str, args: dict[str, Any]):
        answer = call_tool(catalog, tool, args, source)
        if answer.outcome == "empty":
            shown = ", ".join(f"{k}={v}" for k, v in sorted(args.items()))
            raise SourceError(
                f"showcase step {tool}({shown}) answered no record ({describe_answered_by(result.source)})"
            )
        if answer.outcome != "ok":
            raise StepFailed(f"showcase step {tool} answered {answer.outcome} (code {answer.code}: {answer.message})")
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
