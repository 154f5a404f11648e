"""The National Assembly: members of the 22nd Assembly, committees, bills, plenary sittings and votes.

Members hold real-shaped constituencies built from the shared region tree
(``서울 강남구갑``; 시도 short name, 시군구, 갑/을/병 when a 시군구 has several
seats) or a 비례대표 seat. Bills of the 21st and 22nd Assemblies amend the
world's 법률 (``도로교통법 일부개정법률안``) and go to the committee in charge of
the ministry that administers the law. A bill's life is dated — referral,
committee, 법사위, plenary — and an as-of date shows only the stages that
have happened: a bill proposed after it does not exist yet, and one decided
after it is still pending (PROC_RESULT null). 21st-Assembly bills that were
never decided lapsed on 2024-05-29 (임기만료폐기). Bills passed or rejected in
plenary were voted on a plenary sitting; every member of that Assembly has a
vote row (찬성/반대/기권/불참).

One *anchor* bill (:data:`ANCHOR_BILLS`) exists in every world, whatever the
seed and size, because the catalog's examples name it; everything else is drawn
from the seed.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, replace
from functools import cached_property
from typing import TYPE_CHECKING

from kopa_replay.sim.world.calendar import HOLIDAYS
from kopa_replay.sim.world.fmt import data, frozen
from kopa_replay.sim.world.schools import romanize

if TYPE_CHECKING:
    from kopa_replay.sim.world import World

__all__ = [
    "AssemblyWorld",
    "Member",
    "Committee",
    "Bill",
    "Sitting",
    "Session",
    "Meeting",
    "Petition",
    "BudgetBill",
    "AGES",
    "ANCHOR_BILLS",
    "ANCHOR_MEMBER",
]

#: the fact tables (seats, committees, the ministries' committees, names, the anchor bills): data/assembly.yaml
_DATA = frozen(data("assembly"))

#: Assembly number → (first day, last day)
AGES = {21: (dt.date(2020, 5, 30), dt.date(2024, 5, 29)), 22: (dt.date(2024, 5, 30), dt.date(2028, 5, 29))}
#: the first session number of each Assembly (제379회 opened the 21st, 제415회 the 22nd)
_FIRST_SESSION = {21: 379, 22: 415}

_SEATS = _DATA["seats"]
_LIST_SEATS = _DATA["list_seats"]
_MINOR_REGIONAL = ("개혁신당", "진보당", "무소속")

_COMMITTEES = _DATA["committees"]
_CONCURRENT = _DATA["concurrent"]
_SPECIAL = _DATA["special"]
_ORDER = _DATA["order"]
_MINISTRY_COMMITTEE = _DATA["ministry_committee"]
_HOUSE_LAWS = _DATA["house_laws"]
#: the 22nd Assembly's pace: more than 12,600 bills in its first 15 months (reference/world-scale.md)
_BILLS_PER_DAY_22 = 12_600 / 456
_FATES = _DATA["fates"]

ANCHOR_BILLS = _DATA["anchor_bills"]

#: a member code that exists in every world (the first member by name has it): the catalog's examples name it
ANCHOR_MEMBER = "0T076X6D"

_SURNAMES = _DATA["surnames"]
_GIVEN = _DATA["given"]
_ALNUM = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"
_LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"


@dataclass(frozen=True)
class Member:
    mona_cd: str
    name: str
    hanja: str
    english: str
    birth: dt.date
    lunar: bool
    party: str
    district: str  # ORIG_NM
    elected_by: str  # 지역구 / 비례대표
    committee: str  # CMIT_NM
    committees: tuple[str, ...]  # CMITS
    terms: int  # 초선 = 1
    sex: str
    tel: str
    room: str

    @property
    def units(self) -> tuple[int, ...]:
        return tuple(range(22 - self.terms + 1, 23))

    @property
    def reelection(self) -> str:
        return "초선" if self.terms == 1 else "재선" if self.terms == 2 else f"{self.terms}선"

    @property
    def handle(self) -> str:
        """An account name for the member's homepage and social media (``minsu.kim``)."""
        surname = self.english.split(" ", 1)[0].lower()
        return f"{romanize(self.name[1:])}.{surname}"


@dataclass(frozen=True)
class Committee:
    name: str
    dept_cd: str  # HR_DEPT_CD
    division: str  # 상임위원회 / 특별위원회
    limit: int
    members: tuple[str, ...]  # MONA_CDs
    chair: str  # MONA_CD
    secretaries: tuple[str, ...]  # 간사 MONA_CDs
    order: int


@dataclass(frozen=True)
class Sitting:
    age: int
    day: dt.date
    session: int  # 제…회
    kind: str  # 임시회 / 정기회
    number: int  # 제…차


@dataclass(frozen=True)
class Bill:
    bill_id: str
    bill_no: str
    age: int
    name: str
    law: str
    committee: str
    proposed: dt.date
    proposer: str  # MONA_CD of the 대표발의 member
    co_proposers: tuple[str, ...]
    fate: str | None  # final PROC_RESULT when decided, else None (pending)
    decided: dt.date | None
    referred: dt.date
    presented: dt.date | None  # 위원회 상정
    committee_done: dt.date | None
    judiciary: tuple[dt.date, dt.date, dt.date] | None  # 법사위 회부, 상정, 처리
    voted: bool

    def fate_at(self, as_of: dt.date) -> str | None:
        return self.fate if self.decided is not None and self.decided <= as_of else None


# -- meetings, sessions, petitions, budget bills (the operation table's services) ---------------------------------------
#: the minutes' two-letter committee codes (CMIT_CD): 법제사법위원회 is AB, as the portal writes it; the plenary is ZA
PLENARY_CMIT_CD = "ZA"
_COMMITTEE_KINDS = _DATA["committee_kinds"]
#: meeting kinds without a committee → their slot
_HOUSE_KINDS = {"청문회": 96, "국정조사": 97, "연석회의": 98, "전원위원회": 99}
#: presidents' inaugurations: the first plenary sitting after one carries the inaugural address
_INAUGURATIONS = (dt.date(2022, 5, 10), dt.date(2025, 6, 4))
_SUBCOMMITTEES = _DATA["subcommittees"]


def cmit_cd(committee: Committee) -> str:
    return "A" + _LETTERS[committee.order - 1]


def assembly_of(day: dt.date) -> int:
    """The Assembly sitting on a day (20 before the 21st)."""
    return next((age for age, (start, end) in AGES.items() if start <= day <= end), 20 if day < AGES[21][0] else 22)


def stable_id(*labels: object) -> str:
    """A ``PRC_``-style id made from labels alone (not the seed): ids the catalog's examples may name."""
    from kopa_replay.sim.world import stable_int

    value = stable_int(*labels)
    out = []
    for _ in range(15):
        value, letter = divmod(value, 26)
        value, digit = divmod(value, 10)
        out.append(_LETTERS[letter] + str(digit))
        if value < 260:
            value = stable_int(value, *labels)
    return "PRC_" + "".join(out)


@dataclass(frozen=True)
class Session:
    age: int
    number: int  # 제…회
    kind: str  # 임시회 / 정기회
    start: dt.date
    end: dt.date


@dataclass(frozen=True)
class Meeting:
    conf_id: str
    age: int
    kind: str  # 본회의, 전체회의, 소위원회, 공청회, 국정감사, 인사청문회, 청문회, 국정조사, 연석회의, 전원위원회
    committee: Committee | None
    sub: str | None  # the subcommittee of a 소위원회 meeting
    day: dt.date
    time: str  # HH:MM
    session: Session
    degree: int  # 제…차
    speech: str | None = None  # 대통령시정연설 / 대통령취임연설 / 외빈연설 on a plenary

    @property
    def place(self) -> str:
        return "본회의장" if self.committee is None else f"{self.committee.name} 회의실"

    @property
    def title(self) -> str:
        where = self.committee.name if self.committee else "국회본회의" if self.kind == "본회의" else self.kind
        return f"제{self.session.number}회 국회({self.session.kind}) 제{self.degree}차 {where}"


@dataclass(frozen=True)
class Petition:
    ptt_id: str
    ptt_no: str
    age: int
    title: str
    petitioner: str
    kind: str  # 의원소개 / 국민동의청원
    introducers: tuple[str, ...]  # MONA_CDs
    citizens: int | None  # 국민동의 건수
    received: dt.date
    committee: str
    referred: dt.date
    presented: dt.date | None
    decided: dt.date | None
    result: str | None  # 본회의불부의 / 채택 / 철회 / 임기만료폐기


@dataclass(frozen=True)
class BudgetBill:
    bill_id: str
    bill_no: str
    age: int
    kind: str  # 예산안 / 결산 / 추가경정예산안
    name: str
    proposed: dt.date
    referred: dt.date  # to 예산결산특별위원회
    presented: dt.date
    decided: dt.date
    result: str  # 원안가결 / 수정가결
    tally: tuple[int, int, int]  # 찬성, 반대, 기권


_PETITION_TOPICS = _DATA["petition_topics"]


class _AssemblyEvents:
    """Mixin of :class:`AssemblyWorld`: sessions, meetings, petitions and budget bills, drawn from the seed."""

    _world: "World"

    @cached_property
    def sessions(self) -> dict[int, tuple[Session, ...]]:
        """Each Assembly's sessions, spanned from its plenary sittings (the 정기회 runs September 1 – December 9)."""
        out: dict[int, tuple[Session, ...]] = {}
        for age, sittings in self.sittings.items():  # type: ignore[attr-defined]
            grouped: dict[int, list[Sitting]] = {}
            for s in sittings:
                grouped.setdefault(s.session, []).append(s)
            rows, last_end = [], AGES[age][0] - dt.timedelta(days=1)
            for number in sorted(grouped):
                days = [s.day for s in grouped[number]]
                kind = grouped[number][0].kind
                if kind == "정기회":
                    start, end = days[0].replace(month=9, day=1), days[0].replace(month=12, day=9)
                else:
                    start, end = (
                        max(last_end + dt.timedelta(days=1), days[0] - dt.timedelta(days=7)),
                        days[-1] + dt.timedelta(days=2),
                    )
                end = max(end, days[-1])
                rows.append(Session(age, number, kind, start, min(end, AGES[age][1])))
                last_end = rows[-1].end
            out[age] = tuple(rows)
        return out

    def session_of(self, age: int, number: int) -> Session:
        return next(s for s in self.sessions[age] if s.number == number)

    @cached_property
    def meetings(self) -> tuple[Meeting, ...]:
        """Every meeting with minutes, in date order: the plenary sittings, and in each session every committee's
        full meetings, a subcommittee, now and then a public or confirmation hearing, the October audits."""
        out: list[Meeting] = []
        for age in sorted(AGES):
            rng = self._world.rng("assembly.meetings", age)
            first = _FIRST_SESSION[age]
            for s in self.sittings[age]:  # type: ignore[attr-defined]
                session = self.session_of(age, s.session)
                speech = None
                if any(
                    s.day >= day and not any(p.day >= day for p in out if p.kind == "본회의" and p.age == age)
                    for day in _INAUGURATIONS
                ):
                    speech = "대통령취임연설"
                elif s.number == 1 and session.kind == "정기회" and rng.random() < 0.9:
                    speech = "대통령시정연설"
                elif rng.random() < 0.02:
                    speech = "외빈연설"
                conf_id = f"N{age}{s.session - first:02d}00{s.number:02d}"
                out.append(Meeting(conf_id, age, "본회의", None, None, s.day, "14:00", session, s.number, speech))
            for session in self.sessions[age]:
                days = [
                    session.start + dt.timedelta(days=d)
                    for d in range((session.end - session.start).days + 1)
                    if (session.start + dt.timedelta(days=d)).weekday() < 5
                    and session.start + dt.timedelta(days=d) not in HOLIDAYS
                ]
                if not days:
                    continue
                audit = session.kind == "정기회" and any(d.month == 10 for d in days)
                for committee in self.committees:  # type: ignore[attr-defined]
                    plan = [("전체회의", int(rng.integers(1, 4))), ("소위원회", int(rng.integers(0, 3)))]
                    plan += [("공청회", 1)] if rng.random() < 0.12 else []
                    plan += [("인사청문회", 1)] if rng.random() < 0.06 else []
                    plan += (
                        [("국정감사", int(rng.integers(2, 5)))] if audit and committee.division == "상임위원회" else []
                    )
                    for kind, count in plan:
                        pool = [d for d in days if d.month == 10] if kind == "국정감사" else days
                        picks = sorted(
                            pool[int(i)] for i in rng.choice(len(pool), size=min(count, len(pool)), replace=False)
                        )
                        slot = dict(_COMMITTEE_KINDS)[kind] + committee.order
                        for degree, day in enumerate(picks, start=1):
                            sub = _SUBCOMMITTEES[int(rng.integers(len(_SUBCOMMITTEES)))] if kind == "소위원회" else None
                            conf_id = f"N{age}{session.number - first:02d}{slot:02d}{degree:02d}"
                            time = ("10:00", "14:00")[int(rng.integers(2))]
                            out.append(Meeting(conf_id, age, kind, committee, sub, day, time, session, degree))
                for kind, slot in _HOUSE_KINDS.items():
                    # the Committee of the Whole sits once an Assembly, in its third April (2023-04 in the 21st)
                    whole = kind == "전원위원회" and any(d.year == AGES[age][0].year + 3 and d.month == 4 for d in days)
                    whole = whole and not any(m.kind == kind and m.age == age for m in out)
                    # hearings, investigations and joint meetings: now and then, and once in the Assembly's first
                    # session after its first half-year
                    first_late = session == next(
                        x for x in self.sessions[age] if x.start >= AGES[age][0] + dt.timedelta(days=180)
                    )
                    if whole or (kind != "전원위원회" and (first_late or rng.random() < 0.04)):
                        day = days[int(rng.integers(len(days)))]
                        if whole:
                            day = min(days, key=lambda d: abs((d - dt.date(d.year, 4, 13)).days))
                        conf_id = f"N{age}{session.number - first:02d}{slot:02d}01"
                        out.append(Meeting(conf_id, age, kind, None, None, day, "10:00", session, 1))
        return tuple(sorted(out, key=lambda m: (m.day, m.conf_id)))

    @cached_property
    def meeting_by_id(self) -> dict[str, Meeting]:
        return {m.conf_id: m for m in self.meetings}

    @cached_property
    def meetings_by_committee(self) -> dict[str, list[Meeting]]:
        """Each committee's full meetings in date order (a bill's stage falls on the next one)."""
        out: dict[str, list[Meeting]] = {}
        for m in self.meetings:
            if m.kind == "전체회의" and m.committee is not None:
                out.setdefault(m.committee.name, []).append(m)
        return out

    def meeting_on(self, committee: str, day: dt.date | None) -> Meeting | None:
        """The committee's first full meeting on or after a day (the plenary's sitting when the committee is None)."""
        if day is None:
            return None
        from bisect import bisect_left

        rows = self.meetings_by_committee.get(committee) if committee != "본회의" else self.plenary_meetings
        if not rows:
            return None
        at = bisect_left([m.day for m in rows], day)
        return rows[at] if at < len(rows) else None

    @cached_property
    def plenary_meetings(self) -> list[Meeting]:
        return [m for m in self.meetings if m.kind == "본회의"]

    @cached_property
    def petitions(self) -> tuple[Petition, ...]:
        """Petitions of the 21st and 22nd Assemblies in receipt order; about one in forty is decided in committee."""
        out: list[Petition] = []
        size = 1_000 if self._world.size == "full" else 60
        members = self.members  # type: ignore[attr-defined]
        committees = [c.name for c in self.committees if c.division == "상임위원회"]  # type: ignore[attr-defined]
        for age, share in ((21, 0.55), (22, 0.45)):
            rng = self._world.rng("assembly.petitions", age)
            start, end = AGES[age]
            count = round(size * share)
            days = sorted(
                start + dt.timedelta(days=int(d)) for d in rng.integers(3, min((end - start).days, 1400), size=count)
            )
            for serial, received in enumerate(days, start=1):
                citizen = rng.random() < 0.45 and serial > 1  # the first is introduced by members (examples name it)
                introducers = (
                    ()
                    if citizen
                    else tuple(
                        members[int(i)].mona_cd
                        for i in rng.choice(len(members), size=int(rng.integers(1, 4)), replace=False)
                    )
                )
                if serial == 1:  # the anchor member introduces the first petition of each Assembly
                    introducers = (ANCHOR_MEMBER, *(c for c in introducers if c != ANCHOR_MEMBER))
                topic = _PETITION_TOPICS[int(rng.integers(len(_PETITION_TOPICS)))]
                surname, given = _SURNAMES[int(rng.integers(len(_SURNAMES)))][0], list(_GIVEN)
                person = surname + given[int(rng.integers(len(given)))] + given[int(rng.integers(len(given)))]
                crowd = int(rng.integers(50_000, 120_000)) if citizen else int(rng.integers(1, 300))
                committee = committees[int(rng.integers(len(committees)))]
                referred = received + dt.timedelta(days=int(rng.integers(0, 5)))
                presented = referred + dt.timedelta(days=int(rng.integers(30, 400)))
                roll = rng.random()
                decided = presented + dt.timedelta(days=int(rng.integers(0, 60)))
                result = "본회의불부의" if roll < 0.3 else "채택" if roll < 0.34 else "철회" if roll < 0.37 else None
                if age == 21 and (result is None or decided > end):
                    result, decided = "임기만료폐기", end
                out.append(
                    Petition(
                        stable_id("assembly.petition", age, serial),
                        f"{age}{serial:05d}",
                        age,
                        f"{topic}에 관한 청원",
                        f"{person}외 {crowd:,}인",
                        "국민동의청원" if citizen else "의원소개",
                        introducers,
                        crowd if citizen else None,
                        received,
                        committee,
                        referred,
                        presented if result else None,
                        decided if result else None,
                        result,
                    )
                )
        return tuple(out)

    @cached_property
    def petition_by_id(self) -> dict[str, Petition]:
        return {p.ptt_id: p for p in self.petitions}

    @cached_property
    def budget_bills(self) -> tuple[BudgetBill, ...]:
        """The government's budget bills (September, decided in December), settlements (May 31, decided by the
        autumn) and now and then a supplementary budget, fiscal years 2020–2027."""
        rng = self._world.rng("assembly.budget_bills")
        out: list[BudgetBill] = []
        for year in range(2020, 2028):
            plans = [("예산안", f"{year + 1}년도 예산안(정부)", dt.date(year, 9, 1), dt.date(year, 12, 2))]
            plans.append(("결산", f"{year - 1}회계연도 결산(정부)", dt.date(year, 5, 31), dt.date(year, 8, 31)))
            if rng.random() < 0.5:
                plans.append(
                    (
                        "추가경정예산안",
                        f"{year}년도 제1회 추가경정예산안(정부)",
                        dt.date(year, 4, 3),
                        dt.date(year, 5, 1),
                    )
                )
            for kind, name, proposed, due in plans:
                age = assembly_of(proposed)
                if age not in AGES:
                    continue
                decided = due + dt.timedelta(days=int(rng.integers(0, 20)))
                present = proposed + dt.timedelta(days=int(rng.integers(20, 60)))
                yes = int(rng.integers(160, 250))
                out.append(
                    BudgetBill(
                        stable_id("assembly.budget", kind, year),
                        f"{age}{int(rng.integers(10_000, 30_000)):05d}",
                        age,
                        kind,
                        name,
                        proposed,
                        proposed + dt.timedelta(days=int(rng.integers(1, 5))),
                        min(present, decided),
                        decided,
                        "수정가결" if kind == "예산안" else "원안가결",
                        (yes, int(rng.integers(0, 40)), int(rng.integers(0, 15))),
                    )
                )
        return tuple(sorted(out, key=lambda b: b.proposed))


class AssemblyWorld(_AssemblyEvents):
    """The seeded Assembly."""

    def __init__(self, world: "World") -> None:
        self._world = world

    # -- members ---------------------------------------------------------------
    @cached_property
    def members(self) -> tuple[Member, ...]:
        """The members of the 22nd Assembly, ordered by name (the portal's order)."""
        rng = self._world.rng("assembly.members")
        total = self._world.sizes.legislators
        seats = self._seats(rng, total)
        used_names: set[str] = set()
        used_codes: set[str] = set()
        weights = [w for *_, w in _SURNAMES]
        share = [w / sum(weights) for w in weights]
        given = list(_GIVEN)
        drafts = []
        for district, elected_by, party in seats:
            while True:
                surname = _SURNAMES[int(rng.choice(len(_SURNAMES), p=share))]
                first, second = given[int(rng.integers(len(given)))], given[int(rng.integers(len(given)))]
                name = surname[0] + first + second
                if name not in used_names and first != second:
                    used_names.add(name)
                    break
            while True:
                code = "".join(_ALNUM[int(i)] for i in rng.integers(0, len(_ALNUM), size=8))
                if code not in used_codes:
                    used_codes.add(code)
                    break
            terms = int(rng.choice(6, p=(0.45, 0.25, 0.15, 0.08, 0.05, 0.02))) + 1
            if elected_by == "비례대표":
                terms = 1 if rng.random() < 0.85 else 2
            birth = dt.date(1955, 1, 1) + dt.timedelta(days=int(rng.integers(0, 14_600)))
            drafts.append(
                dict(
                    mona_cd=code,
                    name=name,
                    hanja=surname[1] + _GIVEN[first] + _GIVEN[second],
                    english=f"{surname[2]} {romanize(first).capitalize()} {romanize(second).capitalize()}",
                    birth=birth,
                    lunar=bool(rng.random() < 0.1),
                    party=party,
                    district=district,
                    elected_by=elected_by,
                    terms=terms,
                    sex="여" if rng.random() < 0.2 else "남",
                    tel=f"02-6788-{int(rng.integers(0, 10_000)):04d}",
                    room=f"의원회관 {int(rng.integers(3, 11))}층 {int(rng.integers(1, 50)):02d}호",
                )
            )
        # Primary committees fill to their size; concurrent ones draw from everyone.
        order = rng.permutation(len(drafts))
        capacity = [max(1, round(size * total / 300)) for _, size in _COMMITTEES]
        slots = [name for (name, _), cap in zip(_COMMITTEES, capacity) for _ in range(cap)]
        for position, index in enumerate(order):
            drafts[int(index)]["committee"] = slots[position % len(slots)]
            drafts[int(index)]["committees"] = [slots[position % len(slots)]]
        for name, size in _CONCURRENT + _SPECIAL:
            for index in rng.choice(
                len(drafts), size=min(len(drafts), max(1, round(size * total / 300))), replace=False
            ):
                drafts[int(index)]["committees"].append(name)
        members = sorted((Member(**{**d, "committees": tuple(d["committees"])}) for d in drafts), key=lambda m: m.name)
        if members and ANCHOR_MEMBER not in {m.mona_cd for m in members}:
            members[0] = replace(members[0], mona_cd=ANCHOR_MEMBER)
        return tuple(members)

    def _seats(self, rng, total: int) -> list[tuple[str, str, str]]:
        """(ORIG_NM, ELECT_GBN_NM, POLY_NM) of every seat: 지역구 from the region tree, then 비례대표."""
        regions = self._world.regions
        regional = round(total * 254 / 300)
        scale = regional / 254
        out: list[tuple[str, str, str]] = []
        for sido in regions.sido:
            count, right_share = _SEATS[sido.short]
            count = max(1, round(count * scale))
            sigungus = regions.sigungu_of(sido)
            if count <= len(sigungus):
                picks = sorted(int(i) for i in rng.choice(len(sigungus), size=count, replace=False))
                per = {i: 1 for i in picks}
            else:
                per = {i: 1 for i in range(len(sigungus))}
                for i in rng.choice(len(sigungus), size=count - len(sigungus)):
                    per[int(i)] += 1
            for i in sorted(per):
                sgg = sigungus[i]
                base = "세종특별자치시" if sido.short == "세종" else f"{sido.short} {sgg.name}"
                suffixes = [""] if per[i] == 1 else ["갑", "을", "병", "정", "무", "기", "경"][: per[i]]
                for suffix in suffixes:
                    roll = rng.random()
                    party = "국민의힘" if roll < right_share else "더불어민주당"
                    if rng.random() < 0.03:
                        party = _MINOR_REGIONAL[int(rng.integers(len(_MINOR_REGIONAL)))]
                    out.append((base + suffix, "지역구", party))
        out = out[:regional]
        list_total = total - len(out)
        for party, seats in _LIST_SEATS:
            out.extend(("비례대표", "비례대표", party) for _ in range(round(seats * list_total / 46)))
        return out[:total]

    @cached_property
    def by_code(self) -> dict[str, Member]:
        return {m.mona_cd: m for m in self.members}

    @cached_property
    def staff(self) -> dict[str, tuple[str, str, str]]:
        """(보좌관, 비서관, 비서) names of each member, by MONA_CD."""
        rng = self._world.rng("assembly.staff")
        given = list(_GIVEN)

        def person() -> str:
            surname = _SURNAMES[int(rng.integers(len(_SURNAMES)))][0]
            return surname + given[int(rng.integers(len(given)))] + given[int(rng.integers(len(given)))]

        return {
            m.mona_cd: (f"{person()}, {person()}", f"{person()}, {person()}", f"{person()}, {person()}, {person()}")
            for m in self.members
        }

    @cached_property
    def _sns(self) -> dict[str, tuple[bool, bool, bool, bool]]:
        rng = self._world.rng("assembly.sns")
        return {m.mona_cd: tuple(bool(rng.random() < p) for p in (0.5, 0.8, 0.4, 0.5)) for m in self.members}

    def sns_flags(self, member: Member) -> tuple[bool, bool, bool, bool]:
        """Whether the member lists (X, Facebook, YouTube, blog) accounts."""
        return self._sns[member.mona_cd]

    def members_of(self, age: int) -> tuple[Member, ...]:
        """The members who sat in Assembly ``age`` (the 21st: the re-elected among today's members)."""
        return tuple(m for m in self.members if age in m.units)

    # -- committees --------------------------------------------------------------
    @cached_property
    def committees(self) -> tuple[Committee, ...]:
        rng = self._world.rng("assembly.committees")
        out = []
        for order, name in enumerate(_ORDER, start=1):
            sitting = tuple(m for m in self.members if name in m.committees)
            size = dict(_COMMITTEES + _CONCURRENT + _SPECIAL)[name]
            majority = [m for m in sitting if m.party == "더불어민주당"] or list(sitting)
            minority = [m for m in sitting if m.party == "국민의힘"] or list(sitting)
            chair_pool = majority if rng.random() < 0.6 else minority
            chair = chair_pool[int(rng.integers(len(chair_pool)))] if chair_pool else None
            secretaries = tuple(pool[int(rng.integers(len(pool)))].mona_cd for pool in (majority, minority) if pool)
            out.append(
                Committee(
                    name,
                    str(9_700_005 + order * 3),
                    "특별위원회" if "특별" in name else "상임위원회",
                    size,
                    tuple(m.mona_cd for m in sitting),
                    chair.mona_cd if chair else "",
                    tuple(s for s in secretaries if not chair or s != chair.mona_cd),
                    order,
                )
            )
        return tuple(out)

    @cached_property
    def committee_by_name(self) -> dict[str, Committee]:
        return {c.name: c for c in self.committees}

    def role(self, member: Member) -> str:
        """JOB_RES_NM in the member's primary committee."""
        committee = self.committee_by_name[member.committee]
        if committee.chair == member.mona_cd:
            return "위원장"
        return "간사" if member.mona_cd in committee.secretaries else "위원"

    # -- plenary sittings ------------------------------------------------------------
    @cached_property
    def sittings(self) -> dict[int, tuple[Sitting, ...]]:
        """Plenary sittings of each Assembly: two to four a month; September–December is the 정기회."""
        rng = self._world.rng("assembly.sittings")
        out: dict[int, tuple[Sitting, ...]] = {}
        for age, (start, end) in AGES.items():
            rows: list[Sitting] = []
            session = _FIRST_SESSION[age] - 1
            month = start.replace(day=1)
            last_kind = None
            while month <= end:
                kind = "정기회" if month.month in (9, 10, 11, 12) else "임시회"
                days = [month + dt.timedelta(days=d) for d in range(28)]
                days = [
                    d
                    for d in days
                    if start + dt.timedelta(days=6) <= d <= end and d.weekday() in (1, 3) and d not in HOLIDAYS
                ]
                count = min(len(days), int(rng.integers(2, 5)))
                if count:
                    # a new session each month, except that the 정기회 runs from September to December
                    if kind == "임시회" or last_kind != "정기회":
                        session, number = session + 1, 0
                    last_kind = kind
                    for day in sorted(days[int(i)] for i in rng.choice(len(days), size=count, replace=False)):
                        number += 1
                        rows.append(Sitting(age, day, session, kind, number))
                month = (month + dt.timedelta(days=32)).replace(day=1)
            out[age] = tuple(rows)
        return out

    # -- bills ---------------------------------------------------------------------------
    @cached_property
    def bills(self) -> tuple[Bill, ...]:
        """Every member bill of the 21st and 22nd Assemblies, ordered by BILL_NO."""
        rng = self._world.rng("assembly.bills")
        acts = self._world.laws.acts
        targets = [(s.name, _MINISTRY_COMMITTEE.get(s.ministry, "행정안전위원회")) for s in acts] + list(_HOUSE_LAWS)
        total = self._world.sizes.bills
        out: list[Bill] = []
        used_ids: set[str] = set()
        for age, share in ((21, 0.4), (22, 0.6)):
            start, _ = AGES[age]
            span_end = dt.date(2024, 5, 20) if age == 21 else dt.date(2027, 2, 26)
            members = self.members_of(age)
            count = round(total * share)
            if self._world.size == "full":  # the real counts: all 25,855 of the 21st, the 22nd at its real pace
                count = total if age == 21 else round(_BILLS_PER_DAY_22 * (span_end - start).days)
            dates = sorted(
                start + dt.timedelta(days=int(d)) for d in rng.integers(5, (span_end - start).days, size=count)
            )
            sittings = self.sittings[age]
            by_party: dict[str, list[Member]] = {}
            for member in members:
                by_party.setdefault(member.party, []).append(member)
            # numbers run to about 25,000 over an Assembly, whatever the number of bills simulated
            gap = max(2, 50_000 // max(count, 1))
            serial = 0
            for proposed in dates:
                serial += int(rng.integers(1, gap))
                law, committee = targets[int(rng.integers(len(targets)))]
                roll = rng.random()
                name = (
                    f"{law} 일부개정법률안"
                    if roll < 0.9
                    else f"{law} 전부개정법률안"
                    if roll < 0.95
                    else f"{law} 폐지법률안"
                    if roll < 0.97
                    else f"{law} 일부개정법률안(대안)"
                )
                proposer = members[int(rng.integers(len(members)))]
                mates = [m for m in by_party[proposer.party] if m is not proposer]
                others = members
                size = int(rng.integers(9, 15))
                picks = list(rng.choice(len(mates), size=min(size, len(mates)), replace=False)) if mates else []
                co = [mates[int(i)] for i in picks]
                while len(co) < size:  # small parties borrow co-sponsors from anyone
                    co.append(others[int(rng.integers(len(others)))])
                co_codes = tuple(dict.fromkeys(m.mona_cd for m in co if m is not proposer))
                referred = proposed + dt.timedelta(days=int(rng.integers(1, 10)))
                presented = referred + dt.timedelta(days=int(rng.integers(20, 200)))
                fate, decided, voted, judiciary, committee_done = None, None, False, None, None
                draw = rng.random()
                cumulative = 0.0
                for result, probability, in_plenary in _FATES:
                    cumulative += probability
                    if draw < cumulative:
                        fate, voted = result, in_plenary
                        break
                if fate is not None:
                    earliest = presented + dt.timedelta(days=int(rng.integers(10, 250)))
                    if voted:
                        later = [s.day for s in sittings if s.day >= earliest + dt.timedelta(days=14)]
                        if later:
                            decided = later[0]
                            committee_done = earliest
                            judiciary = (
                                earliest + dt.timedelta(days=2),
                                earliest + dt.timedelta(days=7),
                                decided - dt.timedelta(days=int(rng.integers(1, 6))),
                            )
                        else:
                            fate, voted = None, False
                    else:
                        decided = committee_done = earliest
                if age == 21 and (fate is None or decided is None or decided > AGES[21][1]):
                    fate, decided, voted, judiciary = "임기만료폐기", AGES[21][1], False, None
                    committee_done = committee_done if committee_done and committee_done <= AGES[21][1] else None
                while True:
                    bill_id = "PRC_" + "".join(
                        _LETTERS[int(rng.integers(26))] + str(int(rng.integers(10))) for _ in range(15)
                    )
                    if bill_id not in used_ids:
                        used_ids.add(bill_id)
                        break
                out.append(
                    Bill(
                        bill_id,
                        f"{age}{serial:05d}",
                        age,
                        name,
                        law,
                        committee,
                        proposed,
                        proposer.mona_cd,
                        co_codes,
                        fate,
                        decided,
                        referred,
                        presented,
                        committee_done,
                        judiciary,
                        voted,
                    )
                )
        return self._place_anchors(out)

    def _place_anchors(self, bills: list[Bill]) -> tuple[Bill, ...]:
        """The drawn bills with each anchor bill in place of one of them (see ANCHOR_BILLS)."""
        out = list(bills)
        taken: set[int] = set()
        for spec in ANCHOR_BILLS:
            target = next((i for i, b in enumerate(out) if b.bill_id == spec["bill_id"]), None)
            if target is None:
                alike = [i for i, b in enumerate(out) if b.age == spec["age"] and i not in taken]
                if not alike:
                    continue
                target = min(alike, key=lambda i: (abs((out[i].proposed - spec["proposed"]).days), i))
            taken.add(target)
            # the anchor's number is the same in every world: a drawn bill holding it trades numbers with the target
            holder = next((i for i, b in enumerate(out) if b.bill_no == spec["bill_no"] and i != target), None)
            if holder is not None:
                out[holder] = replace(out[holder], bill_no=out[target].bill_no)
            voted = any(spec["fate"] == fate and plenary for fate, _, plenary in _FATES)
            done = spec["committee_done"]
            decided, judiciary = done, None
            if voted:
                decided = next((s.day for s in self.sittings[spec["age"]] if s.day >= done + dt.timedelta(days=14)))
                judiciary = (done + dt.timedelta(days=2), done + dt.timedelta(days=7), decided - dt.timedelta(days=5))
            out[target] = replace(
                out[target],
                bill_id=spec["bill_id"],
                bill_no=spec["bill_no"],
                name=spec["name"],
                law=spec["law"],
                committee=spec["committee"],
                proposed=spec["proposed"],
                referred=spec["referred"],
                presented=spec["presented"],
                committee_done=done,
                fate=spec["fate"],
                decided=decided,
                judiciary=judiciary,
                voted=voted,
            )
        return tuple(out)

    @cached_property
    def bill_by_id(self) -> dict[str, Bill]:
        return {b.bill_id: b for b in self.bills}

    def votes(self, bill: Bill) -> list[tuple[Member, str, int]]:
        """(member, RESULT_VOTE_MOD, seconds after 14:00) of every member of the bill's Assembly."""
        rng = self._world.rng("assembly.votes", bill.bill_id)
        proposer_party = self.by_code[bill.proposer].party if bill.proposer in self.by_code else "더불어민주당"
        passed = bill.fate in ("원안가결", "수정가결")
        parties = sorted({m.party for m in self.members})
        # the chance each party's members vote yes: a passed bill carries every party along; a rejected one
        # keeps even its proposer's party below half, so the tally always matches the result
        stance = {
            p: float(rng.uniform(0.75, 0.99))
            if passed
            else float(rng.uniform(0.2, 0.4))
            if p == proposer_party
            else float(rng.uniform(0.0, 0.2))
            for p in parties
        }
        clock = int(rng.integers(0, 10_000))
        out = []
        for member in self.members_of(bill.age):
            if rng.random() < 0.08:
                out.append((member, "불참", clock))
                continue
            roll = rng.random()
            choice = "찬성" if roll < stance[member.party] else "반대" if rng.random() < 0.6 else "기권"
            out.append((member, choice, clock))
        return out
