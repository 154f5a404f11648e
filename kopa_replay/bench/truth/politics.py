"""Politics (열린국회정보): the curated tasks' answers from the world's Assembly (members, committees, bills, votes).

Every function reads :class:`kopa_replay.sim.world.assembly.AssemblyWorld` as the portal's services do: a bill
exists once proposed on or before the as-of date, its result (PROC_RESULT) is the one decided by then, a plenary
vote row exists for every member of the bill's Assembly (``AssemblyWorld.votes``), and a member's committee
schedule holds the full and subcommittee meetings of every committee the member sits on.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from typing import Any

PASSED = ("원안가결", "수정가결")


def _day(as_of: str) -> dt.date:
    return dt.date.fromisoformat(as_of)


def _bills(world, as_of: str, age: int = 22) -> list:
    day = _day(as_of)
    return [b for b in world.assembly.bills if b.age == age and b.proposed <= day]


def _member(world, name: str):
    return next(m for m in world.assembly.members if m.name == name)


def _decided_in(world, as_of: str, committees: set[str], result: str) -> int:
    """22nd-Assembly bills decided by as_of with ``result``, in the committees named (처리의안 by CURR_COMMITTEE_ID)."""
    day = _day(as_of)
    return sum(1 for b in _bills(world, as_of) if b.committee in committees and b.fate_at(day) == result)


def _tally(world, bill) -> dict[str, int]:
    counts: dict[str, int] = {}
    for _, vote, _ in world.assembly.votes(bill):
        counts[vote] = counts.get(vote, 0) + 1
    return counts


# -- committees ---------------------------------------------------------------------------------------
def committee_decided(world, as_of: str, slots: Mapping[str, Any]) -> int:
    """Bills of one committee decided in the 22nd Assembly with the result asked (원안가결, 대안반영폐기 …)."""
    return _decided_in(world, as_of, {slots["committee"]}, slots["result"])


def small_committees_decided(world, as_of: str, slots: Mapping[str, Any]) -> int:
    """The same count summed over the standing committees (상임위원회) with at most ``limit`` seats (위원 정수)."""
    names = {c.name for c in world.assembly.committees if c.division == "상임위원회" and c.limit <= int(slots["limit"])}
    return _decided_in(world, as_of, names, slots["result"])


def large_committees_decided(world, as_of: str, slots: Mapping[str, Any]) -> int:
    """The same count summed over the standing committees with the largest number of seats (all tied first)."""
    standing = [c for c in world.assembly.committees if c.division == "상임위원회"]
    top = max(c.limit for c in standing)
    return _decided_in(world, as_of, {c.name for c in standing if c.limit == top}, slots["result"])


# -- members ------------------------------------------------------------------------------------------
def member_committees_decided(world, as_of: str, slots: Mapping[str, Any]) -> int:
    """Summed over every committee the member sits on (위원회 위원 명단: primary, concurrent and special)."""
    member = _member(world, slots["member"])
    return _decided_in(world, as_of, set(member.committees), slots["result"])


def district_member_subcommittee_meetings(world, as_of: str, slots: Mapping[str, Any]) -> int:
    """Subcommittee meetings (22nd Assembly, up to as_of) of every committee the district's member sits on."""
    member = next(m for m in world.assembly.members if m.district == slots["district"])
    day = _day(as_of)
    return sum(
        1
        for m in world.assembly.meetings
        if m.age == 22
        and m.day <= day
        and m.kind == "소위원회"
        and m.committee is not None
        and m.committee.name in member.committees
    )


def party_bills_passed(world, as_of: str, slots: Mapping[str, Any]) -> int:
    """Bills the party's members proposed (대표발의) in the 22nd Assembly that the plenary passed as ``result``."""
    codes = {m.mona_cd for m in world.assembly.members if m.party == slots["party"]}
    day = _day(as_of)
    return sum(1 for b in _bills(world, as_of) if b.proposer in codes and b.fate_at(day) == slots["result"])


def party_top_proposer(world, as_of: str, slots: Mapping[str, Any]) -> str:
    """The party member who proposed the most 22nd-Assembly bills."""
    members = [m for m in world.assembly.members if m.party == slots["party"]]
    bills = _bills(world, as_of)
    counts = {m.name: sum(1 for b in bills if b.proposer == m.mona_cd) for m in members}
    return max(counts, key=counts.get)


def secretary_most_passed(world, as_of: str, slots: Mapping[str, Any]) -> str:
    """Of the committee's 간사 (the chair excluded), the one with more 22nd-Assembly bills passed as ``result``."""
    assembly = world.assembly
    committee = assembly.committee_by_name[slots["committee"]]
    day = _day(as_of)
    bills = _bills(world, as_of)
    counts = {
        assembly.by_code[code].name: sum(1 for b in bills if b.proposer == code and b.fate_at(day) == slots["result"])
        for code in committee.secretaries
        if code != committee.chair
    }
    return max(counts, key=counts.get)


def _member_bills(world, as_of: str, name: str, result: str) -> list:
    member = _member(world, name)
    day = _day(as_of)
    return [b for b in _bills(world, as_of) if b.proposer == member.mona_cd and b.fate_at(day) == result]


def member_bills_votes_against(world, as_of: str, slots: Mapping[str, Any]) -> int:
    """반대 votes summed over the plenary votes on the member's bills that passed as ``result``."""
    return sum(_tally(world, b).get("반대", 0) for b in _member_bills(world, as_of, slots["member"], slots["result"]))


def member_bills_party_votes(world, as_of: str, slots: Mapping[str, Any]) -> int:
    """Votes of ``vote`` cast by members of ``party`` on the member's bills that passed as ``result``."""
    total = 0
    for bill in _member_bills(world, as_of, slots["member"], slots["result"]):
        total += sum(
            1 for m, vote, _ in world.assembly.votes(bill) if m.party == slots["party"] and vote == slots["vote"]
        )
    return total


# -- plenary sittings ------------------------------------------------------------------------------------
def plenary_contested_party_votes(world, as_of: str, slots: Mapping[str, Any]) -> int:
    """On the plenary day, the bills with more than ``over`` 반대 votes: ``party``'s votes of ``vote`` on them."""
    day = _day(as_of)
    sitting = dt.date.fromisoformat(slots["day"])
    total = 0
    for bill in _bills(world, as_of):
        if not (bill.voted and bill.fate_at(day) and bill.decided == sitting):
            continue
        if _tally(world, bill).get("반대", 0) <= int(slots["over"]):
            continue
        total += sum(
            1 for m, vote, _ in world.assembly.votes(bill) if m.party == slots["party"] and vote == slots["vote"]
        )
    return total
