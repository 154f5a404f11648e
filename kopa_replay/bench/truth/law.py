"""Law (국가법령정보 DRF): the curated tasks' answers from the world's body of law (statutes, versions, rules).

The functions read :class:`kopa_replay.sim.world.laws.LawWorld` as the DRF lists do: a statute is listed while
some version of it was promulgated on or before the as-of date (현행법령), a name search matches the name, the
short name or the English name ignoring spaces, a ministry is known by its 소관부처코드 (``MINISTRIES``), and an
administrative rule exists once issued.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from typing import Any

from kopa_replay.sim.world.laws import ENGLISH_NAMES


def _day(text: str) -> dt.date:
    text = text.replace("-", "")
    return dt.date(int(text[:4]), int(text[4:6]), int(text[6:8]))


def _compact(text: str) -> str:
    return text.replace(" ", "")


def _in_force(world, as_of: str) -> list:
    day = _day(as_of)
    return [s for s in world.laws.statutes if s.current(day) is not None]


def _named(world, as_of: str, query: str) -> list:
    """The statutes in force a name search for ``query`` finds (name, short name or English name)."""
    wanted = _compact(query)
    return [
        s
        for s in _in_force(world, as_of)
        if any(wanted in _compact(t) for t in (s.name, s.abbrev, ENGLISH_NAMES.get(s.name, "")))
    ]


def _family(world, as_of: str, name: str) -> list:
    """법률, 시행령 and 시행규칙 of the statute ``name`` (those in force)."""
    day = _day(as_of)
    return [s for s in world.laws.family(world.laws.by_name[name]).values() if s.current(day) is not None]


def _keyword_ministries(world, as_of: str, keyword: str) -> set[str]:
    """The ministries in charge of the 법률 in force whose names contain ``keyword``."""
    return {s.ministry for s in _named(world, as_of, keyword) if s.kind == "법률"}


def _rules(world, as_of: str, ministries: set[str], kind: str) -> int:
    day = _day(as_of)
    return sum(1 for r in world.laws.admin_rules if r.issued <= day and r.ministry in ministries and r.kind == kind)


def _statutes_of(world, as_of: str, ministries: set[str], kind: str) -> int:
    return sum(1 for s in _in_force(world, as_of) if s.ministry in ministries and s.kind == kind)


# -- one statute and its family -----------------------------------------------------------------------------
def family_articles(world, as_of: str, slots: Mapping[str, Any]) -> int:
    """Articles (조문, chapter headings left out) of a 법률, its 시행령 and 시행규칙 together."""
    return sum(s.article_count for s in _family(world, as_of, slots["law"]))


def abbrev_family_versions(world, as_of: str, slots: Mapping[str, Any]) -> int:
    """Versions promulgated from ``since`` to as_of of the family of the 법률 known by the short name ``abbrev``."""
    act = next(s for s in world.laws.statutes if s.abbrev == slots["abbrev"])
    low, high = _day(slots["since"]), _day(as_of)
    return sum(1 for s in _family(world, as_of, act.name) for v in s.versions if low <= v.promulgated <= high)


def family_most_versions(world, as_of: str, slots: Mapping[str, Any]) -> str:
    """The member of the family with the most versions (제정 and every 개정) promulgated by as_of."""
    day = _day(as_of)
    counts = {s.name: sum(1 for v in s.versions if v.promulgated <= day) for s in _family(world, as_of, slots["law"])}
    return max(counts, key=counts.get)


# -- the ministry in charge ------------------------------------------------------------------------------
def ministry_statutes_of_kind(world, as_of: str, slots: Mapping[str, Any]) -> int:
    """Statutes in force of the kind asked (대통령령, 부령 …) that the ministry in charge of ``law`` holds."""
    ministry = world.laws.by_name[slots["law"]].ministry
    return _statutes_of(world, as_of, {ministry}, slots["kind"])


def ministry_rules_of_kind(world, as_of: str, slots: Mapping[str, Any]) -> int:
    """Administrative rules of the kind asked (고시, 훈령 …) issued by the ministry in charge of ``law``."""
    ministry = world.laws.by_name[slots["law"]].ministry
    return _rules(world, as_of, {ministry}, slots["kind"])


def ministry_statutes_amended(world, as_of: str, slots: Mapping[str, Any]) -> int:
    """Statutes of the ministry in charge of ``law`` with a version promulgated between ``start`` and ``end``."""
    ministry = world.laws.by_name[slots["law"]].ministry
    low, high = _day(slots["start"]), min(_day(slots["end"]), _day(as_of))
    return len({s.law_id for s, _ in world.laws.versions_between(low, high) if s.ministry == ministry})


def keyword_ministries_rules(world, as_of: str, slots: Mapping[str, Any]) -> int:
    """Administrative rules of the kind asked of every ministry in charge of a 법률 named with ``keyword``."""
    return _rules(world, as_of, _keyword_ministries(world, as_of, slots["keyword"]), slots["kind"])


def keyword_ministries_statutes(world, as_of: str, slots: Mapping[str, Any]) -> int:
    """Statutes in force of the kind asked of every ministry in charge of a 법률 named with ``keyword``."""
    return _statutes_of(world, as_of, _keyword_ministries(world, as_of, slots["keyword"]), slots["kind"])


# -- precedents ---------------------------------------------------------------------------------------------
def keyword_acts_precedents(world, as_of: str, slots: Mapping[str, Any]) -> int:
    """Precedents (decided by as_of) of the court asked that cite in 참조조문 at least one 법률 in force named with
    ``keyword``; a case citing several of them counts once."""
    acts = {_compact(s.name) for s in _named(world, as_of, slots["keyword"]) if s.kind == "법률"}
    day = _day(as_of)
    return sum(
        1
        for p in world.laws.precedents
        if p.decided <= day and p.court == slots["court"] and any(_compact(n) in acts for n, _ in p.references)
    )
