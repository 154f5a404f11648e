"""The world tables of the 열린국회정보 operation table (kopa_replay/sim/tables/assembly.yaml).

A table yields records as lazy mappings: a record knows its entity (a bill, a member, a meeting, a petition, a
budget bill, a committee, a document of a corpus) and answers a field from the entity's facts where the field names
one (``BILL_NM``, ``PPSL_DT``, ``JRCMIT_NM`` … the portal spells the same fact many ways), else from
:func:`synth`, which makes a value of the field's published format from the record's entity and date (a member's
name from the world, a committee from the world, a date near the record's, a title from the corpus's subject).
Only the page asked for is made; ids are looked up by index, not scanned.

The document-like services (reports, news, disclosures …) each read a corpus of their own (``docs:<name>``; count
and timeline in the table file's ``corpora``): its records are dated evenly from 2016 on, as many as the portal
listed on 2025-11-25 (a small world keeps at most 40), and the as-of date hides the later ones.
"""

from __future__ import annotations

import datetime as dt
from bisect import bisect_right
from collections.abc import Callable, Iterator, Mapping, Sequence
from functools import lru_cache
from typing import Any

from kopa_replay.sim.core import NoData, Query
from kopa_replay.sim.tables import load_table
from kopa_replay.sim.world import stable_int
from kopa_replay.sim.world.assembly import (
    AGES,
    PLENARY_CMIT_CD,
    Bill,
    BudgetBill,
    Meeting,
    Petition,
    assembly_of,
    cmit_cd,
)
from kopa_replay.sim.world.calendar import dashed
from kopa_replay.sim.world.finance import LazyRows
from kopa_replay.sim.world.fmt import data, frozen

__all__ = ["TABLES", "synth"]

#: the vocabularies (topics, departments, places, English names, field groups): data/assembly_tables.yaml
_DATA = frozen(data("assembly_tables"))

_LIKMS = "https://likms.assembly.go.kr/bill/billDetail.do?billId={}"
_RECORD = "https://record.assembly.go.kr/assembly/viewer/minutes/download/pdf.do?id={}"
#: corpora's records are dated from here on; `count` of them by this day (the day the fixtures were read)
_SINCE, _REF = dt.date(2016, 1, 1), dt.date(2025, 11, 25)
_SMALL_CORPUS = 40
_MONTHS = _DATA["months"]
_TOPICS = _DATA["topics"]
_DEPARTMENTS = _DATA["departments"]
_PLACES = _DATA["places"]
_KINDS = _DATA["kinds"]
_INSTITUTIONS = _DATA["institutions"]
_VOCABULARY = _DATA["vocabulary"]
_EN_PARTY = _DATA["en_party"]


def _h(*labels: object) -> int:
    return stable_int("assembly.synth", *labels)


def _en_day(day: dt.date) -> str:
    return f"{_MONTHS[day.month - 1]} {day.day:02d}, {day.year}"


def _dot(day: dt.date | None) -> str | None:
    return day.strftime("%Y.%m.%d") if day else None


def _d(day: dt.date | None) -> str | None:
    return dashed(day) if day else None


@lru_cache(maxsize=None)
def field_specs() -> dict[str, dict[str, dict[str, Any]]]:
    """table → field → its spec (type, format, ko) over every operation that reads the table."""
    out: dict[str, dict[str, dict[str, Any]]] = {}
    for op in load_table("assembly").operations:
        for name, spec in op.fields.items():
            out.setdefault(op.table, {}).setdefault(name, dict(spec))
    return out


@lru_cache(maxsize=None)
def _subjects() -> dict[str, str]:
    """table → the Korean name of the (first) service reading it: the subject a corpus's titles carry."""
    out: dict[str, str] = {}
    for op in load_table("assembly").operations:
        out.setdefault(op.table, op.name["ko"])
    return out


class Ctx:
    """What a synthesized value may depend on: the table, the record's key, its date and entities."""

    __slots__ = ("world", "table", "key", "day", "member", "committee")

    def __init__(self, world, table: str, key: object, day: dt.date, member=None, committee=None) -> None:
        self.world, self.table, self.key, self.day = world, table, key, day
        self.member, self.committee = member, committee

    def pick_member(self):
        if self.member is None:
            members = self.world.assembly.members
            self.member = members[_h(self.table, self.key, "member") % len(members)]
        return self.member

    def pick_committee(self):
        if self.committee is None:
            committees = self.world.assembly.committees
            self.committee = committees[_h(self.table, self.key, "committee") % len(committees)]
        return self.committee


_MEMBER_FIELDS = set(_DATA["member_fields"])
_COMMITTEE_FIELDS = set(_DATA["committee_fields"])
_COMMITTEE_CODES = set(_DATA["committee_codes"])


def synth(ctx: Ctx, name: str) -> Any:
    """A value of the field's published type and format, made from the record's context (deterministic)."""
    spec = field_specs().get(ctx.table, {}).get(name, {})
    fmt, typ, ko = spec.get("format"), spec.get("type", "string"), spec.get("ko", name)
    h = _h(ctx.table, ctx.key, name)
    day = ctx.day
    if typ == "integer":
        if name.endswith(("AMT", "BDGAMT")) or "금액" in ko or "예산" in ko:
            return (h % 9_000 + 100) * 1_000_000
        if name.endswith(("_NOP", "NOP")):
            return h % 20 + 1
        return h % 300
    if typ == "number":
        return round((h % 3_000) / 10 + 1, 1)
    if fmt:
        if fmt.startswith("^[0-9]{4}-[0-9]{2}-[0-9]{2}"):
            clock = f"{9 + h % 9:02d}:{(h // 9) % 60:02d}"
            if fmt.endswith(":[0-9]{2}:[0-9]{2}$"):
                return f"{dashed(day)} {clock}:{(h // 540) % 60:02d}"
            return f"{dashed(day)} {clock}" if fmt.endswith(":[0-9]{2}$") else dashed(day)
        if fmt == "ymd":
            return day.strftime("%Y%m%d")
        if fmt == "^[0-9]{8} [0-9]{6}$":
            return day.strftime("%Y%m%d") + f" {9 + h % 9:02d}{(h // 9) % 60:02d}{(h // 540) % 60:02d}"
        if fmt == "^[0-9]{14}$":
            return day.strftime("%Y%m%d") + f"{9 + h % 9:02d}{(h // 9) % 60:02d}{(h // 540) % 60:02d}"
        if fmt.startswith("^[0-9]{4}\\."):
            return day.strftime("%Y.%m.%d")
        if fmt.startswith("^[A-Z]{3}"):
            return _en_day(day)
        if fmt == "^[0-9]{2}:[0-9]{2}$":
            return f"{9 + h % 9:02d}:{(h % 2) * 30:02d}"
        if fmt == "year":
            return str(day.year)
        if fmt == "ym":
            return day.strftime("%Y%m")
        if fmt == "^제[0-9]+대$":
            return f"제{assembly_of(day)}대"
        if fmt == "^1000[0-9]{2}$":
            return f"1000{assembly_of(day)}"
        if fmt == "^제[0-9]+회$":
            return f"제{_session_number(ctx.world, day)}회"
        if fmt.startswith("^https?://"):
            return f"https://open.assembly.go.kr/portal/data/{ctx.table.split(':')[-1]}/{h % 10_000_000:07d}"
    if (
        name in _MEMBER_FIELDS
        or any(w in ko for w in ("의원명", "국회의원", "성명", "후보자"))
        or ko in ("이름", "의원")
    ):
        member = ctx.pick_member()
        return f"{member.name} 의원" if name in ("ASBLM_NM", "USER_NM") else member.name
    if name in ("POLY_NM", "PLPT_NM") or "정당" in ko:
        return ctx.pick_member().party
    if name in ("MONA_CD", "NAAS_CD"):
        return ctx.pick_member().mona_cd
    if name in _COMMITTEE_FIELDS or ko.endswith("위원회") or ko in ("위원회명", "소관위원회", "소관위"):
        return ctx.pick_committee().name
    if name in _COMMITTEE_CODES:
        return ctx.pick_committee().dept_cd
    if name in ("AGE", "DAE_NUM", "DAESU", "REGDAESU", "CT1", "TH", "ERACO_NUM"):
        return str(assembly_of(ctx.day))
    topic = _TOPICS[h % len(_TOPICS)]
    for word, values in _VOCABULARY:
        if word in ko:
            return values[h % len(values)]
    if "면적" in ko or "금액" in ko or "예산" in ko or "액" in ko[-1:]:
        return f"{(h % 90_000 + 1_000) * (1_000 if '면적' not in ko else 1):,}"
    if name in ("BILL_NAME", "BILL_NM") or "의안명" in ko or "법률안명" in ko:
        return f"{topic}에 관한 법률 일부개정법률안"
    if "시간" in ko or "TIME" in name or name.endswith("_TM"):
        return f"{10 + h % 6:02d}:00~{12 + h % 6:02d}:00"
    if "일정" in ko or "기간" in ko:
        end = day + dt.timedelta(days=2 + h % 5)
        return f"{day:%Y.%m.%d}~{end:%m.%d}"
    if any(w in name for w in ("TITLE", "TTL", "SUBJECT", "BOOKNM", "_SJ", "PBLM", "RPT_TITLE")) or "제목" in ko:
        subject = _subjects().get(ctx.table, "")
        return f"[{subject}] {topic} 현황과 과제" if subject else f"{topic} 현황과 과제"
    if any(w in ko for w in ("내용", "요약", "설명", "취지", "사유", "이유")) or name.endswith(
        ("_CN", "CONTENT", "BODY")
    ):
        return f"{topic}에 관한 {ko}입니다."
    if "부서" in ko or "DEPT" in name or "작성자" in ko:
        return _DEPARTMENTS[h % len(_DEPARTMENTS)]
    if "장소" in ko or "PLC" in name or "LOCATION" in name:
        return _PLACES[h % len(_PLACES)]
    if "기관" in ko or "INST" in name:
        return _INSTITUTIONS[h % len(_INSTITUTIONS)]
    if "구분" in ko or "분류" in ko or name.startswith("DIV") or name.endswith(("_DIV", "DIV_NM", "GUBUN")):
        return _KINDS[h % len(_KINDS)]
    if name.endswith(("_ID", "_CD", "_NO", "SN", "SEQ", "NUM")) or "번호" in ko or "코드" in ko:
        return str(100_000 + h % 900_000)
    if "여부" in ko or name.endswith("_YN"):
        return "Y" if h % 3 else "N"
    return f"{topic} {ko}".strip()


def _session_number(world, day: dt.date) -> int:
    age = assembly_of(day)
    sessions = world.assembly.sessions.get(age) or world.assembly.sessions[min(AGES)]
    starts = [s.start for s in sessions]
    return sessions[max(0, bisect_right(starts, day) - 1)].number


class Record(Mapping):
    """One record, made field by field as it is read: the entity's facts first, else :func:`synth`."""

    __slots__ = ("_facts", "_ctx", "_made")

    def __init__(self, facts: Mapping[str, Callable[[], Any]], ctx: Ctx) -> None:
        self._facts, self._ctx, self._made = facts, ctx, {}

    def __getitem__(self, name: str) -> Any:
        if name not in self._made:
            make = self._facts.get(name)
            self._made[name] = make() if make is not None else synth(self._ctx, name)
        return self._made[name]

    def get(self, name: str, default: Any = None) -> Any:
        return self[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._facts)

    def __len__(self) -> int:
        return len(self._facts)


def _age_filter(q: Query) -> int | None:
    """The Assembly a call names, by AGE, ERACO (제22대), UNIT_CD (100022), DAE_NUM or CT1."""
    for name in ("AGE", "DAE_NUM", "DAESU", "CT1", "TH"):
        text = q.get(name)
        if text is not None:
            return int(text) if text.isdigit() else -1
    text = q.get("ERACO")
    if text is not None:
        digits = text.removeprefix("제").removesuffix("대")
        return int(digits) if digits.isdigit() else -1
    for name in ("UNIT_CD", "PROFILE_UNIT_CD"):
        text = q.get(name)
        if text is not None:
            return int(text[4:]) if text.startswith("1000") and text[4:].isdigit() else -1
    return None


# -- document corpora ------------------------------------------------------------------------------------------
@lru_cache(maxsize=None)
def _corpora() -> dict[str, dict[str, Any]]:
    return dict(load_table("assembly").extra.get("corpora") or {})


def corpus(name: str) -> Callable:
    config = _corpora().get(name, {})

    def table(world, q: Query) -> Sequence[Record]:
        count = int(config.get("count", 60))
        if world.size != "full":
            count = min(count, _SMALL_CORPUS)
        step = (_REF - _SINCE).days / max(count, 1)
        visible = min(int((q.as_of - _SINCE).days / step), count + int((AGES[22][1] - _REF).days / step))
        age = _age_filter(q)

        def make(i: int) -> Record:
            day = _SINCE + dt.timedelta(days=int((i + 0.5) * step))
            return Record({}, Ctx(world, name, i, day))

        keys: Sequence[int] = range(visible - 1, -1, -1)
        if age is not None:  # records dated within that Assembly
            start, end = AGES.get(age, (dt.date(1, 1, 1), dt.date(1, 1, 1)))
            first = max(0, int((start - _SINCE).days / step))
            last = min(visible, int((end - _SINCE).days / step) + 1)
            keys = range(last - 1, first - 1, -1)
        return LazyRows(keys, make)

    return table


# -- bills -----------------------------------------------------------------------------------------------------------
class Facts(dict):
    """A record's facts: thunks set on it (overrides) over static functions of a view of the entity."""

    def __init__(self, static: Mapping[str, Callable[[Any], Any]], view: Any) -> None:
        super().__init__()
        self.static, self.view = static, view

    def get(self, name: str, default: Any = None) -> Any:  # type: ignore[override]
        made = dict.get(self, name)
        if made is not None:
            return made
        make = self.static.get(name)
        return (lambda: make(self.view)) if make is not None else default

    def __iter__(self) -> Iterator[str]:
        return iter({**dict.fromkeys(self.static), **dict.fromkeys(dict.keys(self))})


class BillView:
    """A bill as seen on the as-of date: the stages that have happened, the hand-written services' record."""

    __slots__ = ("world", "bill", "as_of", "_base", "committee", "fate")

    def __init__(self, world, bill: Bill, as_of: dt.date) -> None:
        self.world, self.bill, self.as_of, self._base = world, bill, as_of, None
        self.committee = world.assembly.committee_by_name.get(bill.committee)
        self.fate = bill.fate_at(as_of)

    @property
    def base(self) -> dict[str, Any]:
        if self._base is None:
            from kopa_replay.sim.platforms.assembly import _bill_record

            self._base = _bill_record(self.world, self.bill, self.as_of)
        return self._base

    def on(self, day: dt.date | None) -> str | None:
        return _d(day) if day is not None and day <= self.as_of else None

    @property
    def referred(self) -> bool:
        return self.bill.referred <= self.as_of

    @property
    def passed(self) -> bool:
        return self.fate in ("원안가결", "수정가결")

    @property
    def plenary(self) -> dt.date | None:
        return self.bill.decided if self.bill.voted else None

    def judiciary(self, i: int) -> str | None:
        return self.on(self.bill.judiciary[i]) if self.bill.judiciary else None

    def tally(self, i: int) -> int | None:
        return _tally(self.world, self.bill)[i] if self.bill.voted and self.fate else None

    def book(self, kind: str) -> str:
        return f"https://likms.assembly.go.kr/filegate/servlet/FileGate?bookId={self.bill.bill_id}&type={kind}"


def _committee_id(v: BillView) -> str | None:
    return v.committee.dept_cd if v.committee and v.referred else None


def _promulgated(v: BillView, value: Callable[[], Any]) -> Any:
    return value() if v.passed and v.on(_after(v.bill.decided, 20)) else None


BILL_FACTS: dict[str, Callable[[BillView], Any]] = {
    "BILL_ID": lambda v: v.bill.bill_id,
    "BILL_NO": lambda v: v.bill.bill_no,
    "AGE": lambda v: str(v.bill.age),
    "ERACO": lambda v: f"제{v.bill.age}대",
    "BILL_NAME": lambda v: v.bill.name,
    "BILL_NM": lambda v: v.bill.name,
    "BILL_KIND": lambda v: "법률안",
    "BILL_KND": lambda v: "법률안",
    "BILL_KIND_CD": lambda v: "법률안",
    "PROPOSER": lambda v: v.base["PROPOSER"],
    "PPSR": lambda v: v.base["PROPOSER"],
    "PPSR_NM": lambda v: v.base["PROPOSER"],
    "PROPOSER_KIND": lambda v: "의원",
    "PROPOSER_KIND_CD": lambda v: "의원",
    "PPSR_KIND": lambda v: "의원",
    "PPSR_KND": lambda v: "의원",
    "PPSR_KIND_NM": lambda v: "Member",
    "PROPOSE_DT": lambda v: _d(v.bill.proposed),
    "PPSL_DT": lambda v: _d(v.bill.proposed),
    "PPSL_SESS": lambda v: f"제{_session_number(v.world, v.bill.proposed)}회",
    **dict.fromkeys(
        ("CURR_COMMITTEE", "COMMITTEE", "COMMITTEE_NM", "JRCMIT_NM", "CMIT_NM"),
        lambda v: v.bill.committee if v.referred else None,
    ),
    "CURR_COMMITTEE_ID": _committee_id,
    "COMMITTEE_ID": _committee_id,
    **dict.fromkeys(
        ("COMMITTEE_DT", "COMMITTEE_SUBMIT_DT", "JRCMIT_CMMT_DT", "BDG_CMMT_DT"), lambda v: v.on(v.bill.referred)
    ),
    **dict.fromkeys(("CMT_PRESENT_DT", "COMMITTEE_PRESENT_DT", "JRCMIT_PRSNT_DT"), lambda v: v.on(v.bill.presented)),
    **dict.fromkeys(("CMT_PROC_DT", "COMMITTEE_PROC_DT", "JRCMIT_PROC_DT"), lambda v: v.base["CMT_PROC_DT"]),
    **dict.fromkeys(
        ("CMT_PROC_RESULT_CD", "JRCMIT_PROC_RSLT", "COMMITTEE_RESULT"), lambda v: v.base["CMT_PROC_RESULT_CD"]
    ),
    **dict.fromkeys(("LAW_SUBMIT_DT", "LAW_CMMT_DT"), lambda v: v.judiciary(0)),
    **dict.fromkeys(("LAW_PRESENT_DT", "LAW_PRSNT_DT"), lambda v: v.judiciary(1)),
    "LAW_PROC_DT": lambda v: v.judiciary(2),
    **dict.fromkeys(("LAW_PROC_RESULT_CD", "LAW_PROC_RSLT"), lambda v: "원안가결" if v.judiciary(2) else None),
    **dict.fromkeys(("RGS_PRESENT_DT", "RGS_PRSNT_DT", "RGS_PROC_DT", "RGS_RSLN_DT"), lambda v: v.on(v.plenary)),
    "MSESS_RSLN_DT": lambda v: _en_day(v.bill.decided) if v.fate else None,
    "RGS_CONF_NM": lambda v: _plenary_name(v.world, v.plenary) if v.on(v.plenary) else None,
    "RGS_CONF_RSLT": lambda v: v.fate if v.bill.voted else None,
    **dict.fromkeys(("PROC_RESULT_CD", "PROC_RESULT", "PROC_RSLT"), lambda v: v.fate),
    "PROC_DT": lambda v: v.base["PROC_DT"],
    **dict.fromkeys(("CURR_TRANS_DT", "GVRN_TRSF_DT"), lambda v: v.on(_after(v.bill.decided, 5)) if v.passed else None),
    **dict.fromkeys(("ANNOUNCE_DT", "PROM_DT"), lambda v: v.on(_after(v.bill.decided, 20)) if v.passed else None),
    "PROM_LAW_NM": lambda v: _promulgated(v, lambda: v.bill.law),
    "PROM_NO": lambda v: _promulgated(v, lambda: str(20_000 + _h("prom", v.bill.bill_id) % 9_000)),
    "RST_PROPOSER": lambda v: v.base["RST_PROPOSER"],
    "RST_MONA_CD": lambda v: v.base["RST_MONA_CD"],
    "PUBL_PROPOSER": lambda v: v.base["PUBL_PROPOSER"],
    "PUBL_MONA_CD": lambda v: ",".join(v.bill.co_proposers),
    **dict.fromkeys(("LINK_URL", "URL", "DETAIL_LINK"), lambda v: _LIKMS.format(v.bill.bill_id)),
    "MEMBER_TCNT": lambda v: v.tally(0),
    "VOTE_TCNT": lambda v: v.tally(1),
    "YES_TCNT": lambda v: v.tally(2),
    "NO_TCNT": lambda v: v.tally(3),
    "BLANK_TCNT": lambda v: v.tally(4),
    "SUMMARY": lambda v: _summary(v.bill),
    "PASSGUBN": lambda v: "처리의안" if v.fate else "계류의안",
    "PROC_STAGE_CD": lambda v: _stage(v.bill, v.as_of),
    "NOTI_ED_DT": lambda v: _d(v.bill.referred + dt.timedelta(days=10)),
    **dict.fromkeys(("HWP_URL1", "BOOK_HWPURL"), lambda v: v.book("0")),
    **dict.fromkeys(("PDF_URL1", "BOOK_PDFURL"), lambda v: v.book("1")),
    **dict.fromkeys(("HWP_URL2", "PDF_URL2", "COST_HWPURL", "COST_PDFURL"), lambda v: None),
}
#: the English pages write dates as "JUL 02, 2026" and committees in English
EN_BILL_FACTS = {
    **BILL_FACTS,
    "PPSL_DT": lambda v: _en_day(v.bill.proposed),
    "CMIT_NM": lambda v: _EN_COMMITTEE.get(v.bill.committee, v.bill.committee),
}


def _bill_facts(world, bill: Bill, as_of: dt.date, en: bool = False) -> Facts:
    return Facts(EN_BILL_FACTS if en else BILL_FACTS, BillView(world, bill, as_of))


def _after(day: dt.date | None, days: int) -> dt.date | None:
    return day + dt.timedelta(days=days) if day else None


def _stage(bill: Bill, as_of: dt.date) -> str:
    if bill.fate_at(as_of):
        return "처리완료"
    if bill.judiciary and bill.judiciary[0] <= as_of:
        return "체계자구심사"
    return "소관위심사" if bill.referred <= as_of else "접수"


def _summary(bill: Bill) -> str:
    return (
        f"제안이유 및 주요내용\n현행 「{bill.law}」의 운영 과정에서 드러난 미비점을 보완하려는 것임."
        f"\n가. 관련 절차를 명확히 함.\n나. 관계 기관의 책임을 강화함."
    )


def _plenary_name(world, day: dt.date | None) -> str | None:
    if day is None:
        return None
    meeting = world.assembly.meeting_on("본회의", day)
    return meeting.title if meeting else None


def _cached(world, name: str, make: Callable[[], Any]) -> Any:
    """A value kept on the world's Assembly (an index built once per world)."""
    store = world.assembly.__dict__.setdefault("_table_cache", {})
    if name not in store:
        store[name] = make()
    return store[name]


def _tally(world, bill: Bill) -> tuple[int, int, int, int, int]:
    """(재적, 투표, 찬성, 반대, 기권) of a bill voted in plenary."""

    def make() -> tuple[int, int, int, int, int]:
        votes = [r for _, r, _ in world.assembly.votes(bill)]
        yes, no, blank = votes.count("찬성"), votes.count("반대"), votes.count("기권")
        return len(votes), yes + no + blank, yes, no, blank

    return _cached(world, f"tally:{bill.bill_id}", make)


def _bills(select: Callable[[Bill, dt.date], bool], en: bool = False) -> Callable:
    def table(world, q: Query) -> Sequence[Record]:
        assembly = world.assembly
        wanted = q.get("BILL_ID")
        number = q.get("BILL_NO")
        if wanted is not None:
            bills = [b for b in (assembly.bill_by_id.get(wanted),) if b]
        elif number is not None:
            bills = [b for b in (_bill_by_no(world).get(number),) if b]
        else:
            bills = list(reversed(assembly.bills))
        age = _age_filter(q)
        rows = [b for b in bills if b.proposed <= q.as_of and (age is None or b.age == age) and select(b, q.as_of)]

        def make(b: Bill) -> Record:
            return Record(_bill_facts(world, b, q.as_of, en), Ctx(world, "bills", b.bill_id, b.proposed))

        return LazyRows(rows, make, _BILL_KEYED)

    return table


#: a bill's fields that are its own attributes, exactly as its record gives them (BILL_FACTS, EN_BILL_FACTS): the
#: generic engine filters the full world's tens of thousands of bills on them without making a record of each
_BILL_KEYED: dict[str, Callable[[Bill], Any]] = {
    "BILL_ID": lambda b: b.bill_id,
    "BILL_NO": lambda b: b.bill_no,
    "AGE": lambda b: str(b.age),
    "ERACO": lambda b: f"제{b.age}대",
    "BILL_NAME": lambda b: b.name,
    "BILL_NM": lambda b: b.name,
}


def _bill_by_no(world) -> dict[str, Bill]:
    return _cached(world, "bill_by_no", lambda: {b.bill_no: b for b in world.assembly.bills})


def _decided(b: Bill, as_of: dt.date) -> bool:
    return b.fate_at(as_of) is not None


def _plenary(b: Bill, as_of: dt.date) -> bool:
    return b.voted and b.fate_at(as_of) is not None


def _pending(b: Bill, as_of: dt.date) -> bool:
    return b.fate_at(as_of) is None


def _on_agenda(b: Bill, as_of: dt.date) -> bool:
    # a bill goes to the plenary once the judiciary committee has reviewed its wording (체계·자구 심사), not when
    # its own committee is done: every bill listed has its LAW_PROC_DT; a decided one stays, with its PROC_DT
    return b.voted and b.judiciary is not None and b.judiciary[2] <= as_of


def _notice_closed(b: Bill, as_of: dt.date) -> bool:
    return b.referred + dt.timedelta(days=10) < as_of


def bill_activity(world, q: Query) -> Sequence[Record]:
    """Every stage a bill passed on the day DT names (날짜별 의정활동)."""
    day_text = q.require("DT")
    try:
        day = dt.date.fromisoformat(day_text)
    except ValueError:
        raise NoData() from None
    if day > q.as_of:
        raise NoData()
    rows = []
    for bill in _bills_by_stage_day(world).get(day, ()):
        stage = _stage_on(bill, day)
        rows.append((bill, stage))

    def make(item) -> Record:
        bill, (stage, detail, status) = item
        facts = _bill_facts(world, bill, q.as_of)
        facts.update(
            SEQ=lambda: str(rows.index(item) + 1),
            DT=lambda: dashed(day),
            BILL_KIND=lambda: "법률안",
            STAGE=lambda: stage,
            DTL_STAGE=lambda: detail,
            ACT_STATUS=lambda: status,
        )
        return Record(facts, Ctx(world, "bill_activity", bill.bill_id, day))

    return LazyRows(rows, make)


def _stage_on(bill: Bill, day: dt.date) -> tuple[str, str, str]:
    if day == bill.proposed:
        return "접수", "접수", "발의"
    if day == bill.referred:
        return "소관위원회 심사", "회부", "회부"
    if day == bill.presented:
        return "소관위원회 심사", "상정", "상정"
    if day == bill.committee_done:
        return "소관위원회 심사", "의결", bill.fate or "의결"
    if bill.judiciary and day in bill.judiciary:
        return "체계자구 심사", ("회부", "상정", "의결")[bill.judiciary.index(day)], "심사"
    return "본회의 심의", "의결", bill.fate or "의결"


def _bills_by_stage_day(world) -> dict[dt.date, list[Bill]]:
    """Bills by each day one of their stages fell on (proposal, referral, committee, 법사위, plenary)."""

    def make() -> dict[dt.date, list[Bill]]:
        out: dict[dt.date, list[Bill]] = {}
        for bill in world.assembly.bills:
            days = {
                bill.proposed,
                bill.referred,
                bill.presented,
                bill.committee_done,
                bill.decided,
                *(bill.judiciary or ()),
            }
            for day in days:
                if day is not None:
                    out.setdefault(day, []).append(bill)
        return out

    return _cached(world, "stage_days", make)


def _bill_meeting_rows(kind: str) -> Callable:
    """The meetings a bill was taken up in: its committee's (상정, 의결), the judiciary committee's, the plenary's."""

    def table(world, q: Query) -> Sequence[Record]:
        bill = world.assembly.bill_by_id.get(q.require("BILL_ID"))
        if bill is None or bill.proposed > q.as_of:
            raise NoData()
        assembly = world.assembly
        steps: list[tuple[Meeting | None, str]] = []
        if kind in ("committee", "all"):
            steps += [(assembly.meeting_on(bill.committee, bill.presented), "상정")]
            steps += [(assembly.meeting_on(bill.committee, bill.committee_done), bill.fate or "의결")]
        if kind in ("judiciary", "all") and bill.judiciary:
            steps += [(assembly.meeting_on("법제사법위원회", bill.judiciary[1]), "상정")]
            steps += [(assembly.meeting_on("법제사법위원회", bill.judiciary[2]), "원안가결")]
        if kind == "all" and bill.voted and bill.decided:
            steps += [(assembly.meeting_on("본회의", bill.decided), bill.fate or "의결")]
        rows = [(m, result) for m, result in steps if m is not None and m.day <= q.as_of]
        if not rows:
            raise NoData()

        def make(item) -> Record:
            meeting, result = item
            facts = _bill_facts(world, bill, q.as_of)
            view = MeetingView(world, meeting)
            facts.update({n: (lambda f: lambda: f(view))(f) for n, f in MEETING_FACTS.items()})
            for prefix in ("JRCMIT", "LWCMIT"):
                facts[f"{prefix}_CONF_NM"] = (lambda m: lambda: m.title)(meeting)
                facts[f"{prefix}_CONF_DT"] = (lambda m: lambda: dashed(m.day))(meeting)
                facts[f"{prefix}_CONF_RSLT"] = (lambda r: lambda: r)(result)
            facts["BILL_NM"] = lambda: bill.name
            return Record(facts, Ctx(world, "bill_meetings", meeting.conf_id, meeting.day))

        return LazyRows(rows, make)

    return table


# -- budget bills -------------------------------------------------------------------------------------------------
def _budget_facts(world, bill: BudgetBill, as_of: dt.date) -> dict[str, Callable[[], Any]]:
    done = bill.decided <= as_of
    on = lambda day: _d(day) if day <= as_of else None  # noqa: E731
    budget_committee = world.assembly.committee_by_name.get("예산결산특별위원회")
    tally = lambda i: lambda: bill.tally[i] if done else None  # noqa: E731
    prelim = world.assembly.committees[_h("budget", bill.bill_id) % 14 + 1]
    return {
        "AGE": lambda: str(bill.age),
        "ERACO": lambda: f"제{bill.age}대",
        "BILL_ID": lambda: bill.bill_id,
        "BILL_NO": lambda: bill.bill_no,
        "BILL_NAME": lambda: bill.name,
        "BILL_NM": lambda: bill.name,
        "BILL_KIND": lambda: bill.kind,
        "PROC_RESULT_CD": lambda: bill.result if done else None,
        "VOTE_TCNT": lambda: sum(bill.tally) if done else None,
        "YES_TCNT": tally(0),
        "NO_TCNT": tally(1),
        "BLANK_TCNT": tally(2),
        "PROPOSE_DT": lambda: _d(bill.proposed),
        "PPSL_DT": lambda: _d(bill.proposed),
        "PPSR_KIND": lambda: "정부",
        "PPSR": lambda: "정부",
        "BDG_SUBMIT_DT": lambda: on(bill.referred),
        "BDG_CMMT_DT": lambda: on(bill.referred),
        "BDG_PRESENT_DT": lambda: on(bill.presented),
        "BDG_PRSNT_DT": lambda: on(bill.presented),
        "BDG_PROC_DT": lambda: on(bill.decided),
        "BDG_RSLN_DT": lambda: on(bill.decided),
        "BDG_PROC_RSLT": lambda: bill.result if done else None,
        "BDG_CMIT_NM": lambda: "예산결산특별위원회",
        "RGS_PRESENT_DT": lambda: on(bill.decided),
        "RGS_PROC_DT": lambda: on(bill.decided),
        "CURR_TRANS_DT": lambda: on(bill.decided + dt.timedelta(days=3)),
        "LINK_URL": lambda: _LIKMS.format(bill.bill_id),
        "CURR_COMMITTEE_ID": lambda: budget_committee.dept_cd if budget_committee else None,
        "COMMITTEE_NM": lambda: "예산결산특별위원회",
        "ADCMIT_NM": lambda: prelim.name,
        "ADCMIT_CMMT_DT": lambda: on(bill.referred),
        "ADCMIT_PRSNT_DT": lambda: on(bill.referred + dt.timedelta(days=7)),
        "ADCMIT_PROC_DT": lambda: on(bill.presented),
        "ADCMIT_PROC_RSLT": lambda: "수정의결" if bill.presented <= as_of else None,
        "BDG_CONF_NM": lambda: "예산결산특별위원회 전체회의",
        "BDG_CONF_DT": lambda: on(bill.decided),
        "BDG_CONF_RSLT": lambda: bill.result if done else None,
    }


def _budget(kinds: tuple[str, ...], done: bool = False, by_id: bool = False) -> Callable:
    def table(world, q: Query) -> Sequence[Record]:
        wanted = q.get("BILL_ID")
        age = _age_filter(q)
        rows = [
            b
            for b in reversed(world.assembly.budget_bills)
            if b.kind in kinds
            and b.proposed <= q.as_of
            and (not done or b.decided <= q.as_of)
            and (age is None or b.age == age)
            and (wanted is None or b.bill_id == wanted)
        ]
        if by_id and wanted is None:
            raise NoData()
        return LazyRows(
            rows, lambda b: Record(_budget_facts(world, b, q.as_of), Ctx(world, "budget", b.bill_id, b.proposed))
        )

    return table


# -- members ------------------------------------------------------------------------------------------------------
def _member_facts(world, m) -> dict[str, Callable[[], Any]]:
    assembly = world.assembly
    staff, secretary, secretary2 = assembly.staff[m.mona_cd]
    units = ", ".join(f"제{u}대" for u in m.units)
    facts: dict[str, Callable[[], Any]] = {
        "MONA_CD": lambda: m.mona_cd,
        "NAAS_CD": lambda: m.mona_cd,
        "HG_NM": lambda: m.name,
        "NAAS_NM": lambda: m.name,
        "NAME": lambda: m.name,
        "HJ_NM": lambda: m.hanja,
        "NAAS_CH_NM": lambda: m.hanja,
        "NAME_HAN": lambda: m.hanja,
        "ENG_NM": lambda: m.english.upper(),
        "NAAS_EN_NM": lambda: m.english.upper(),
        "BTH_GBN_NM": lambda: "음" if m.lunar else "양",
        "BIRDY_DIV_CD": lambda: "음" if m.lunar else "양",
        "BTH_DATE": lambda: dashed(m.birth),
        "BIRDY_DT": lambda: dashed(m.birth),
        "BIRTH": lambda: dashed(m.birth),
        "SEX_GBN_NM": lambda: m.sex,
        "NTR_DIV": lambda: m.sex,
        "REELE_GBN_NM": lambda: m.reelection,
        "RLCT_DIV_NM": lambda: m.reelection,
        "UNITS": lambda: units,
        "GTELT_ERACO": lambda: units,
        "UNIT_CD": lambda: "100022",
        "UNIT_NM": lambda: "제22대",
        "DAESU": lambda: "22",
        "DAE_NM": lambda: "제22대",
        "DAE": lambda: f"제22대 {m.party}",
        "POLY_NM": lambda: m.party,
        "PLPT_NM": lambda: m.party,
        "ORIG_NM": lambda: m.district,
        "ELECD_NM": lambda: m.district,
        "ELECT_GBN_NM": lambda: m.elected_by,
        "ELECD_DIV_NM": lambda: m.elected_by,
        "CMIT_NM": lambda: m.committee,
        "BLNG_CMIT_NM": lambda: ", ".join(m.committees),
        "DTY_NM": lambda: assembly.role(m),
        "CMIT_DTY_NM": lambda: assembly.role(m),
        "NAAS_TEL_NO": lambda: m.tel,
        "NAAS_EMAIL_ADDR": lambda: f"{m.handle}@assembly.go.kr",
        "NAAS_HP_URL": lambda: f"https://blog.naver.com/{m.handle}",
        "AIDE_NM": lambda: staff,
        "CHF_SCRT_NM": lambda: secretary,
        "SCRT_NM": lambda: secretary2,
        "OFFM_RNUM_NO": lambda: m.room,
        "NAAS_PIC": lambda: f"https://www.assembly.go.kr/static/portal/img/openassm/{m.mona_cd}.jpg",
        "BRF_HST": lambda: f"현) 제22대 국회의원({m.party})",
        "GTELT_TMS": lambda: m.reelection,
        "URL": lambda: f"https://www.assembly.go.kr/members/22nd/{m.mona_cd}",
    }
    return facts


_EN = _DATA["en"]


def members_table(world, q: Query) -> Sequence[Record]:
    wanted = q.get("NAAS_CD") or q.get("MONA_CD")
    members = world.assembly.members
    if wanted is not None:
        members = tuple(m for m in (world.assembly.by_code.get(wanted),) if m)
    age = _age_filter(q)
    if age is not None:
        members = tuple(m for m in members if age in m.units)

    def make(m) -> Record:
        facts = _member_facts(world, m)
        if age is not None:
            facts.update(
                UNIT_CD=lambda: f"1000{age}",
                UNIT_NM=lambda: f"제{age}대",
                DAESU=lambda: str(age),
                DAE_NM=lambda: f"제{age}대",
                DAE=lambda: f"제{age}대 {m.party}",
            )
        return Record(facts, Ctx(world, "members", m.mona_cd, AGES[22][0], member=m))

    return LazyRows(members, make)


def en_members(world, q: Query) -> Sequence[Record]:
    """The English member list: names, parties and committees as the portal's English pages write them."""
    base = members_table(world, q)

    def make(m) -> Record:
        assembly = world.assembly
        facts = _member_facts(world, m)
        facts.update(
            BTH_GBN_NM=lambda: _EN["음" if m.lunar else "양"],
            BIRDY_DT=lambda: _en_day(m.birth),
            NTR_DIV=lambda: _EN[m.sex],
            PLPT_NM=lambda: _EN_PARTY.get(m.party, m.party),
            ELECD_NM=lambda: m.district if m.elected_by == "지역구" else "Proportional Representation",
            ELECD_DIV_NM=lambda: _EN[m.elected_by],
            CMIT_NM=lambda: _EN_COMMITTEE.get(m.committee, m.committee),
            CMIT_DTY_NM=lambda: {"위원장": "Chairperson", "간사": "Secretary"}.get(assembly.role(m), "Member"),
            BLNG_CMIT_NM=lambda: ", ".join(_EN_COMMITTEE.get(c, c) for c in m.committees),
            RLCT_DIV_NM=lambda: _EN.get(m.reelection, m.reelection.replace("선", "th")),
            GTELT_TMS=lambda: str(m.terms),
        )
        return Record(facts, Ctx(world, "members_en", m.mona_cd, AGES[22][0], member=m))

    return LazyRows(base._keys, make)  # type: ignore[attr-defined]


_EN_COMMITTEE = _DATA["en_committee"]


def member_history(kind: str) -> Callable:
    """A member's career rows: each Assembly sat in (의원이력) or each committee sat on (위원회 경력)."""

    def table(world, q: Query) -> Sequence[Record]:
        wanted = q.get("MONA_CD")
        members = world.assembly.members if wanted is None else [m for m in (world.assembly.by_code.get(wanted),) if m]
        age = _age_filter(q)
        rows = []
        for m in members:
            if kind == "history":
                rows += [(m, u, f"제{u}대 {m.party} {m.district}") for u in reversed(m.units)]
            else:
                rows += [(m, 22, f"제22대 {c}") for c in m.committees]
                rows += [(m, u, f"제{u}대 {m.committee}") for u in reversed(m.units[:-1])]
        rows = [r for r in rows if age is None or r[1] == age]

        def make(item) -> Record:
            m, unit, subject = item
            start, end = AGES.get(
                unit, (dt.date(2000 + (unit - 16) * 4, 5, 30), dt.date(2004 + (unit - 16) * 4, 5, 29))
            )
            if kind != "history":
                start += dt.timedelta(days=11)
            span = f"{start:%Y.%m.%d} ~ " + ("" if unit == 22 else f"{end:%Y.%m.%d}")
            facts = _member_facts(world, m)
            facts.update(
                FRTO_DATE=lambda: span,
                PROFILE_SJ=lambda: subject,
                PROFILE_UNIT_CD=lambda: f"1000{unit}",
                PROFILE_UNIT_NM=lambda: f"제{unit}대",
                UNIT_CD=lambda: f"1000{unit}",
                UNIT_NM=lambda: f"제{unit}대",
                PROFILE_CD=lambda: "1" if kind == "history" else "2",
                PROFILE_NM=lambda: "의원이력" if kind == "history" else "위원회 경력",
            )
            return Record(facts, Ctx(world, f"member_{kind}", (m.mona_cd, subject), start, member=m))

        return LazyRows(rows, make)

    return table


# -- meetings -----------------------------------------------------------------------------------------------------
class MeetingView:
    __slots__ = ("world", "m")

    def __init__(self, world, m: Meeting) -> None:
        self.world, self.m = world, m

    @property
    def name(self) -> str:
        m = self.m
        return m.committee.name if m.committee else "국회본회의" if m.kind == "본회의" else m.kind

    @property
    def kind_name(self) -> str:
        return {"본회의": "국회본회의 회의록", "전체회의": "상임위원회 회의록", "소위원회": "상임위원회 회의록"}.get(
            self.m.kind, f"{self.m.kind} 회의록"
        )

    @property
    def vod(self) -> str:
        m = self.m
        mc = m.committee.order if m.committee else 10
        return f"https://w3.assembly.go.kr/vod/main/player.do?menu=1&mc={mc}&ct1={m.age}&ct2={m.session.number}&ct3={m.degree:02d}"

    def yn(self, test: bool) -> str:
        return "Y" if test else "N"


MEETING_FACTS: dict[str, Callable[[MeetingView], Any]] = {
    "CONF_ID": lambda v: v.m.conf_id,
    "CONFER_NUM": lambda v: v.m.conf_id[1:],
    "ERACO": lambda v: f"제{v.m.age}대",
    "DAE_NUM": lambda v: str(v.m.age),
    "TH": lambda v: v.m.age,
    "UNIT_CD": lambda v: f"1000{v.m.age}",
    "UNIT_NM": lambda v: f"제{v.m.age}대",
    "SESS": lambda v: f"제{v.m.session.number}회",
    "DGR": lambda v: f"제{v.m.degree}차",
    "SES_NUM": lambda v: str(v.m.session.number),
    "DEGREE_NUM": lambda v: str(v.m.degree),
    "DEGREE": lambda v: v.m.degree,
    "MEETINGSESSION": lambda v: f"제{v.m.session.number}회국회({v.m.session.kind})",
    "CHA": lambda v: f"제{v.m.degree}차 ",
    **dict.fromkeys(("CONF_DT", "CONF_DATE", "MEETING_DATE", "MEETTING_DATE", "SCH_DT"), lambda v: dashed(v.m.day)),
    **dict.fromkeys(("MEETING_TIME", "MEETTING_TIME", "BG_PTM", "CONF_PTM", "SCH_TM"), lambda v: v.m.time),
    "ED_PTM": lambda v: f"{int(v.m.time[:2]) + 2:02d}:{v.m.time[3:]}",
    "CONF_KND": lambda v: v.kind_name,
    "CLASS_NAME": lambda v: v.kind_name.removesuffix(" 회의록"),
    "TITLE": lambda v: v.m.sub if v.m.kind == "소위원회" else v.m.title,
    **dict.fromkeys(("CONF_NM", "SCH_CN"), lambda v: v.m.title),
    **dict.fromkeys(("CMIT_NM", "COMM_NAME", "COMMITTEE_NAME"), lambda v: v.name),
    "CMIT_CD": lambda v: cmit_cd(v.m.committee) if v.m.committee else PLENARY_CMIT_CD,
    **dict.fromkeys(("DEPT_CD", "HR_DEPT_CD"), lambda v: v.m.committee.dept_cd if v.m.committee else "1000000"),
    "SB_CMIT_NM": lambda v: v.m.sub,
    "SB_CMIT_CD": lambda v: "A" if v.m.sub else None,
    "SUB_NAME": lambda v: _agenda_text(v.world, v.m),
    "ANGUN": lambda v: _agenda_text(v.world, v.m, html=True),
    **dict.fromkeys(("VOD_LINK_URL", "LINK_URL", "LINK_URL2", "BILL_URL"), lambda v: v.vod),
    "CONF_LINK_URL": lambda v: f"https://record.assembly.go.kr/assembly/viewer/minutes/xml.do?id={v.m.conf_id[1:]}",
    **dict.fromkeys(("PDF_LINK_URL", "DOWN_URL"), lambda v: _RECORD.format(v.m.conf_id[1:])),
    "PDF_FILE_ID": lambda v: v.m.conf_id[1:],
    "VODCOMM_CODE": lambda v: str(v.m.committee.order if v.m.committee else 10),
    **dict.fromkeys(("CONF_PLC", "EV_PLC"), lambda v: v.m.place),
    "HR_HRG_YN": lambda v: v.yn(v.m.kind == "인사청문회"),
    "PBHRG_YN": lambda v: v.yn(v.m.kind == "공청회"),
    "HRG_YN": lambda v: v.yn(v.m.kind == "청문회"),
    "SITG_YN": lambda v: v.yn(v.m.kind == "연석회의"),
    "RMND_SPH_YN": lambda v: v.yn(v.m.speech == "대통령시정연설"),
    "RDJM_SPH_YN": lambda v: v.yn(v.m.speech == "대통령취임연설"),
    "FRNGUS_SPH_YN": lambda v: v.yn(v.m.speech == "외빈연설"),
    "SCH_KIND": lambda v: "본회의" if v.m.kind == "본회의" else "위원회",
    "CONF_DIV": lambda v: v.m.kind,
    "CONF_SESS": lambda v: f"제{v.m.session.number}회",
    "CONF_DGR": lambda v: f"제{v.m.degree}차",
    "EV_INST_NM": lambda v: None,
}


def _meeting_facts(world, m: Meeting) -> Facts:
    return Facts(MEETING_FACTS, MeetingView(world, m))


def _agenda_text(world, m: Meeting, html: bool = False) -> str:
    bills = _meeting_bills(world, m)[:5]
    if not bills:
        return "1. 의사일정 보고"
    sep = "<br>" if html else "\n"
    return sep.join(f"{i}. [{b.bill_no}] {b.name}" for i, b in enumerate(bills, start=1)) + (sep if html else "")


def _meeting_bills(world, m: Meeting) -> list[Bill]:
    """The bills a meeting took up: a full committee meeting the bills presented or decided since its previous one,
    a plenary sitting the bills it decided."""
    assembly = world.assembly
    index = _bills_by_stage_day(world)
    if m.kind == "본회의":
        return [b for b in index.get(m.day, ()) if b.voted and b.decided == m.day]
    if m.kind != "전체회의" or m.committee is None:
        return []
    rows = assembly.meetings_by_committee.get(m.committee.name, [])
    at = rows.index(m) if m in rows else 0
    since = rows[at - 1].day if at else m.day - dt.timedelta(days=30)
    out = []
    day = since + dt.timedelta(days=1)
    while day <= m.day:
        out += [
            b for b in index.get(day, ()) if b.committee == m.committee.name and day in (b.presented, b.committee_done)
        ]
        day += dt.timedelta(days=1)
    return out


_MEETING_KINDS = _DATA["meeting_kinds"]
_SPEECHES = _DATA["speeches"]


def meetings_table(name: str) -> Callable:
    kinds = _MEETING_KINDS.get(name)
    speech = _SPEECHES.get(name)

    def table(world, q: Query) -> Sequence[Record]:
        assembly = world.assembly
        wanted = q.get("CONF_ID")
        if wanted is not None:
            found = assembly.meeting_by_id.get(wanted)
            pool: Sequence[Meeting] = [found] if found else []
        else:
            pool = assembly.meetings
        age = _age_filter(q)
        rows = [
            m
            for m in reversed(pool)
            if m.day <= q.as_of
            and (age is None or m.age == age)
            and (kinds is None or m.kind in kinds)
            and (speech is None or m.speech == speech)
            and (name != "meetings_budget" or (m.committee is not None and m.committee.name == "예산결산특별위원회"))
            and (name != "meetings_special" or (m.committee is not None and m.committee.division == "특별위원회"))
        ]
        code = q.get("CMIT_CD")
        if code is not None:
            rows = [m for m in rows if (cmit_cd(m.committee) if m.committee else PLENARY_CMIT_CD) == code]
        return LazyRows(
            rows, lambda m: Record(_meeting_facts(world, m), Ctx(world, name, m.conf_id, m.day, committee=m.committee))
        )

    return table


def meeting_files(kind: str) -> Callable:
    """The files attached to the minutes (부록, 서면질의답변서, 제안설명서 …): one or two per plenary or committee meeting."""
    labels = {
        "av": ("시청각자료", "[시청각자료]"),
        "explain": ("제안설명서", "[제안설명서.취지설명서]"),
        "corrective": ("시정조치 결과보고서", "[시정조치 결과보고서]"),
        "appendix": ("보존부록", "부록"),
        "qna": ("보존부록", "서면질문 답변서"),
    }
    file_kind, label = labels[kind]

    def table(world, q: Query) -> Sequence[Record]:
        base = meetings_table("meetings")(world, q)
        rows = [m for m in base._keys if m.kind in ("본회의", "전체회의")]  # type: ignore[attr-defined]

        def make(m: Meeting) -> Record:
            facts = _meeting_facts(world, m)
            number = _h("file", kind, m.conf_id) % 1_000_000 + 1_000_000
            facts.update(
                FILE_KND=lambda: file_kind,
                FILE_CN=lambda: f"{label} {m.title}",
                DOWN_URL=lambda: f"https://record.assembly.go.kr/assembly/mnts/apdix/apdixDownload.do?fileId={number}",
            )
            return Record(facts, Ctx(world, f"files_{kind}", m.conf_id, m.day, committee=m.committee))

        return LazyRows(rows, make)

    return table


def meeting_agenda(bills_only: bool) -> Callable:
    def table(world, q: Query) -> Sequence[Record]:
        meetings = meetings_table("meetings")(world, q)._keys  # type: ignore[attr-defined]
        if q.get("CONF_ID") is None and q.get("BILL_ID") is not None:
            bill = world.assembly.bill_by_id.get(q.get("BILL_ID"))
            meetings = [m for m, _ in _bill_steps(world, bill, q.as_of)] if bill else []
        rows = []
        for m in meetings[:200]:
            bills = _meeting_bills(world, m)
            if bills_only:
                rows += [(m, i, b) for i, b in enumerate(bills, start=1)]
            else:
                rows += [(m, 1, None)] + [(m, i, b) for i, b in enumerate(bills, start=2)]

        def make(item) -> Record:
            m, number, bill = item
            facts = _meeting_facts(world, m)
            text = "의사일정 보고" if bill is None else f"{bill.name}({bill.bill_no})"
            facts.update(
                BLL_NO=lambda: str(number),
                BLL_NM=lambda: f"{number}. {text}",
                BLL_LV=lambda: "1",
                BILL_ID=lambda: bill.bill_id if bill else None,
                BILL_NM=lambda: f"{number}. {bill.name}(의안번호 {bill.bill_no})" if bill else None,
                LINK_URL=lambda: _LIKMS.format(bill.bill_id) if bill else None,
            )
            return Record(facts, Ctx(world, "meeting_agenda", (m.conf_id, number), m.day, committee=m.committee))

        return LazyRows(rows, make)

    return table


def _bill_steps(world, bill: Bill, as_of: dt.date) -> list[tuple[Meeting, str]]:
    assembly = world.assembly
    steps = [
        (assembly.meeting_on(bill.committee, bill.presented), "상정"),
        (assembly.meeting_on(bill.committee, bill.committee_done), "의결"),
    ]
    if bill.voted and bill.decided:
        steps.append((assembly.meeting_on("본회의", bill.decided), "의결"))
    return [(m, r) for m, r in steps if m is not None and m.day <= as_of]


def bill_meetings(world, q: Query) -> Sequence[Record]:
    """The minutes of the meetings that took a bill up (의안별 회의록 목록)."""
    bill = world.assembly.bill_by_id.get(q.require("BILL_ID"))
    if bill is None or bill.proposed > q.as_of:
        raise NoData()
    rows = _bill_steps(world, bill, q.as_of)

    def make(item) -> Record:
        m, _ = item
        facts = _meeting_facts(world, m)
        facts.update(BILL_ID=lambda: bill.bill_id, BILL_NM=lambda: bill.name)
        return Record(facts, Ctx(world, "bill_minutes", m.conf_id, m.day, committee=m.committee))

    return LazyRows(rows, make)


def schedule_all(world, q: Query) -> Sequence[Record]:
    """The integrated schedule: every meeting, newest first (국회행사 events come from the seminar corpus)."""
    return meetings_table("meetings_video")(world, q)


def schedule_en(world, q: Query) -> Sequence[Record]:
    base = meetings_table("meetings_video")(world, q)

    def make(m: Meeting) -> Record:
        facts = _meeting_facts(world, m)
        suffix = {1: "st", 2: "nd", 3: "rd"}.get(m.degree % 10 if m.degree not in (11, 12, 13) else 0, "th")
        facts.update(
            CONF_SCH_DIV=lambda: "Plenary Session" if m.kind == "본회의" else "Committee",
            SESS=lambda: (
                f"{m.session.number}th session ({'regular' if m.session.kind == '정기회' else 'extraordinary'})"
            ),
            DGR=lambda: f"{m.degree}{suffix}",
            SCH_DT=lambda: _en_day(m.day),
            CMIT_NM=lambda: _EN_COMMITTEE.get(m.committee.name, m.committee.name) if m.committee else "Plenary Session",
        )
        return Record(facts, Ctx(world, "schedule_en", m.conf_id, m.day, committee=m.committee))

    rows = base._keys  # type: ignore[attr-defined]
    wanted = q.get("SCH_DT")
    if wanted is not None:
        rows = [m for m in rows if _en_day(m.day) == wanted]
    return LazyRows(rows, make)


def member_schedule(kinds: tuple[str, ...]) -> Callable:
    """A member's schedule (NAAS_CD): the plenary sittings, or the meetings of the committees the member sits on."""

    def table(world, q: Query) -> Sequence[Record]:
        member = world.assembly.by_code.get(q.require("NAAS_CD"))
        if member is None:
            raise NoData()
        rows = [
            m
            for m in reversed(world.assembly.meetings)
            if m.day <= q.as_of
            and m.age == 22
            and m.kind in kinds
            and (m.committee is None or m.committee.name in member.committees)
        ]
        return LazyRows(
            rows, lambda m: Record(_meeting_facts(world, m), Ctx(world, "member_schedule", m.conf_id, m.day))
        )

    return table


def sessions_table(world, q: Query) -> Sequence[Record]:
    age = _age_filter(q)
    rows = [s for a in sorted(world.assembly.sessions, reverse=True) for s in reversed(world.assembly.sessions[a])]
    rows = [s for s in rows if s.start <= q.as_of and (age is None or s.age == age)]
    return LazyRows(
        rows,
        lambda s: Record(
            {
                "ERACO": lambda: f"제{s.age}대",
                "SESS": lambda: f"제{s.number}회",
                "SESS_BG_DT": lambda: _dot(s.start),
                "SESS_ED_DT": lambda: _dot(s.end),
            },
            Ctx(world, "sessions", s.number, s.start),
        ),
    )


# -- committees -----------------------------------------------------------------------------------------------------
def committees_table(name: str) -> Callable:
    def table(world, q: Query) -> Sequence[Record]:
        assembly = world.assembly
        ages = [a for a in (22, 21) if _age_filter(q) in (None, a)]
        rows = (
            [(a, c) for a in ages for c in assembly.committees]
            if name == "minutes_committees"
            else [(22, c) for c in assembly.committees]
        )

        def make(item) -> Record:
            age, c = item
            chair = assembly.by_code.get(c.chair)
            facts: dict[str, Callable[[], Any]] = {
                "CMIT_DIV_CD": lambda: (
                    "Permanent Committees" if c.division == "상임위원회" else "Permanent Special Committees"
                ),
                "CMIT_NM": lambda: _EN_COMMITTEE.get(c.name, c.name) if name == "committees" else c.name,
                "CRMN_NM": lambda: (
                    f"{chair.english.upper()} ({_EN_PARTY.get(chair.party, chair.party)})" if chair else None
                ),
                "CMTM_PSNUM": lambda: c.limit,
                "CMTM_CNT": lambda: len(c.members),
                "LINK_URL": lambda: f"https://{'budget' if '예산' in c.name else 'committee'}.na.go.kr",
                "TH": lambda: age,
                "CLASS_ID": lambda: 2 if c.division == "상임위원회" else 3,
                "CLASS_NM": lambda: c.division,
                "CMIT_CD": lambda: cmit_cd(c),
                "SUB_CMIT_CD": lambda: "0",
                "SUB_CMIT_NM": lambda: None,
                "CONF_NM": lambda: f"{c.name} 전체회의",
                "LBRD_STAT": lambda: "생중계 예정" if _h("live", c.name, q.as_of) % 3 else "생중계 중",
                "UNCS_CNT": lambda: _h("claw", c.name) % 3,
                "CLAW_MIS_CNT": lambda: _h("claw2", c.name) % 4,
                "OVER_CLAW_MIS_CNT": lambda: _h("claw3", c.name) % 2,
            }
            return Record(facts, Ctx(world, name, (age, c.name), AGES[age][0], committee=c))

        return LazyRows(rows, make)

    return table


def party_seats(world, q: Query) -> Sequence[Record]:
    members = world.assembly.members
    parties = sorted({m.party for m in members}, key=lambda p: (-sum(1 for m in members if m.party == p), p))

    def make(party: str) -> Record:
        regional = sum(1 for m in members if m.party == party and m.elected_by == "지역구")
        listed = sum(1 for m in members if m.party == party and m.elected_by == "비례대표")
        group = party if party in ("더불어민주당", "국민의힘") else "비교섭단체"
        facts = {
            "POLY_GROUP_NM": lambda: group,
            "POLY_NM": lambda: party,
            "N1": lambda: regional,
            "N2": lambda: listed,
            "N3": lambda: regional + listed,
            "N4": lambda: round(100 * (regional + listed) / len(members), 1),
        }
        return Record(facts, Ctx(world, "party_seats", party, AGES[22][0]))

    return LazyRows(parties, make)


# -- statistics over the bills ----------------------------------------------------------------------------------------
_RESULT_COUNTS = _DATA["result_counts"]


def bill_stats(by: str) -> Callable:
    """Counts over the bills of an Assembly (ERACO): by committee, by bill kind, by proposer kind, or per Assembly."""

    def table(world, q: Query) -> Sequence[Record]:
        age = _age_filter(q)
        ages = [a for a in (22, 21) if age in (None, a)] if by == "era" else [age if age is not None else 22]
        if any(a not in AGES for a in ages):
            raise NoData()
        groups: dict[tuple[int, str], list[Bill]] = {}
        for bill in world.assembly.bills:
            if bill.age not in ages or bill.proposed > q.as_of:
                continue
            key = {
                "committee": bill.committee,
                "kind": "법률안",
                "proposer": "의원",
                "era": f"{bill.age}대 국회",
                "pending": bill.committee,
            }[by]
            if by == "pending" and bill.fate_at(q.as_of) is not None:
                continue
            groups.setdefault((bill.age, key), []).append(bill)
        rows = sorted(groups, key=lambda k: (-k[0], k[1]))

        def make(key) -> Record:
            bills = groups[key]
            fates = [b.fate_at(q.as_of) for b in bills]
            count = lambda *names: sum(1 for f in fates if f in names)  # noqa: E731
            decided = sum(1 for f in fates if f)
            facts: dict[str, Callable[[], Any]] = {
                "CMIT_NM": lambda: key[1],
                "BIL_DIV_NM": lambda: key[1],
                "BIL_DIV_NM2": lambda: "의원발의",
                "PRPSR_DIV_NM": lambda: key[1],
                "ERACO": lambda: key[1],
                "RCP_CNT": lambda: len(bills),
                "SBM": lambda: len(bills),
                "PROC_CNT": lambda: decided,
                "RSVT_CNT": lambda: len(bills) - decided,
                "DEAL_CN_RSVT": lambda: len(bills) - decided,
                "REFT_SUBT": lambda: count("원안가결", "수정가결", "대안반영폐기"),
                "UN_REFT_SUBT": lambda: count("부결", "임기만료폐기", "철회"),
                "DEAL_CN_PSSG": lambda: count("원안가결", "수정가결"),
                "DEAL_CN_RJCTN": lambda: count("부결"),
                "DEAL_CN_DSU": lambda: count("대안반영폐기"),
                "DEAL_CN_WTHD": lambda: count("철회"),
                "TERM_EXPR_DSU": lambda: count("임기만료폐기"),
                "DEAL_CN_GVB": lambda: 0,
                "LGSLB_ASBLM_PRPSR_CNT": lambda: len(bills),
                "LGSLB_GVRN_PRPSR_CNT": lambda: 0,
                "LGSLB_SUM": lambda: len(bills),
                "CMIT_BY_SUM": lambda: len(bills),
            }
            for name, names in _RESULT_COUNTS.items():
                facts[name] = (lambda ns: lambda: count(*ns))(names)
            for name in field_specs().get(f"bill_stats_{by}", {}):
                if name not in facts and name.endswith(("_CNT", "_SUBT")):
                    facts[name] = lambda: 0
            return Record(facts, Ctx(world, f"bill_stats_{by}", key, AGES[key[0]][0]))

        return LazyRows(rows, make)

    return table


# -- petitions ------------------------------------------------------------------------------------------------------
def _petition_facts(world, p: Petition, as_of: dt.date) -> dict[str, Callable[[], Any]]:
    assembly = world.assembly
    committee = assembly.committee_by_name.get(p.committee)
    done = p.decided is not None and p.decided <= as_of
    intro = [assembly.by_code[c].name for c in p.introducers if c in assembly.by_code]
    introducers = (
        f"{intro[0]}의원외 {len(intro) - 1}인" if len(intro) > 1 else f"{intro[0]}의원" if intro else "국민동의청원"
    )
    on = lambda day: _d(day) if day is not None and day <= as_of else None  # noqa: E731
    link = _LIKMS.format(p.ptt_id)
    return {
        "PTT_ID": lambda: p.ptt_id,
        "BILL_ID": lambda: p.ptt_id,
        "PTT_NO": lambda: p.ptt_no,
        "BILL_NO": lambda: p.ptt_no,
        "AGE": lambda: str(p.age),
        "ERACO": lambda: f"제{p.age}대",
        "PTT_NM": lambda: p.title,
        "BILL_NAME": lambda: p.title,
        "PTT_TTL": lambda: p.title,
        "PTTR_NM": lambda: p.petitioner,
        "PROPOSER": lambda: p.petitioner,
        "PTT_KIND": lambda: p.kind,
        "INTD_ASBLM_NM": lambda: introducers,
        "APPROVER": lambda: introducers,
        "CITZN_AGM_CNT": lambda: p.citizens,
        "RCP_DT": lambda: _d(p.received),
        "PROPOSE_DT": lambda: _d(p.received),
        "JRCMIT_NM": lambda: p.committee,
        "CURR_COMMITTEE": lambda: p.committee,
        "CURR_COMMITTEE_ID": lambda: committee.dept_cd if committee else None,
        "JRCMIT_CMMT_DT": lambda: on(p.referred),
        "COMMITTEE_DT": lambda: on(p.referred),
        "JRCMIT_PRSNT_DT": lambda: on(p.presented),
        "JRCMIT_PROC_DT": lambda: on(p.decided),
        "JRCMIT_PROC_RSLT": lambda: p.result if done else None,
        "PROC_RESULT_CD": lambda: p.result if done else None,
        "RSLN_DT": lambda: on(p.decided),
        "RSLN_RSLT": lambda: p.result if done else None,
        "RGS_PRSNT_DT": lambda: on(p.decided) if p.result == "채택" else None,
        "RGS_RSLN_DT": lambda: on(p.decided) if p.result == "채택" else None,
        "RGS_CONF_NM": lambda: None,
        "RGS_CONF_RSLT": lambda: "채택" if done and p.result == "채택" else None,
        "GVRN_TRSF_DT": lambda: on(_after(p.decided, 7)) if p.result == "채택" else None,
        "GVRN_OC_NM": lambda: None,
        "GVRN_RSLT_DT": lambda: None,
        "PROC_NTC_DT": lambda: on(_after(p.decided, 3)),
        "ACHV_RATIO": lambda: None,
        "LINK_URL": lambda: link,
    }


def petitions_table(select: Callable[[Petition, dt.date], bool]) -> Callable:
    def table(world, q: Query) -> Sequence[Record]:
        assembly = world.assembly
        wanted = q.get("PTT_ID") or q.get("BILL_ID")
        pool = (
            [p for p in (assembly.petition_by_id.get(wanted),) if p] if wanted else list(reversed(assembly.petitions))
        )
        age = _age_filter(q)
        rows = [p for p in pool if p.received <= q.as_of and (age is None or p.age == age) and select(p, q.as_of)]
        return LazyRows(
            rows, lambda p: Record(_petition_facts(world, p, q.as_of), Ctx(world, "petitions", p.ptt_id, p.received))
        )

    return table


def petition_introducers(world, q: Query) -> Sequence[Record]:
    p = world.assembly.petition_by_id.get(q.require("PTT_ID"))
    if p is None or p.received > q.as_of or not p.introducers:
        raise NoData()
    rows = [(i, world.assembly.by_code[c]) for i, c in enumerate(p.introducers) if c in world.assembly.by_code]

    def make(item) -> Record:
        i, m = item
        facts = _petition_facts(world, p, q.as_of)
        facts.update(REP_DIV=lambda: "대표" if i == 0 else "공동", INTD_ASBLM_NM=lambda: m.name)
        return Record(facts, Ctx(world, "petition_introducers", (p.ptt_id, i), p.received, member=m))

    return LazyRows(rows, make)


def member_petitions(world, q: Query) -> Sequence[Record]:
    member = world.assembly.by_code.get(q.require("NAAS_CD"))
    if member is None:
        raise NoData()
    rows = [p for p in reversed(world.assembly.petitions) if member.mona_cd in p.introducers and p.received <= q.as_of]
    return LazyRows(
        rows, lambda p: Record(_petition_facts(world, p, q.as_of), Ctx(world, "member_petitions", p.ptt_id, p.received))
    )


def petition_stats(world, q: Query) -> Sequence[Record]:
    age = _age_filter(q)
    if age not in AGES:
        raise NoData()
    groups: dict[str, list[Petition]] = {}
    for p in world.assembly.petitions:
        if p.age == age and p.received <= q.as_of:
            groups.setdefault(p.committee, []).append(p)

    def make(name: str) -> Record:
        rows = groups[name]
        results = [p.result if p.decided and p.decided <= q.as_of else None for p in rows]
        count = lambda r: results.count(r)  # noqa: E731
        done = sum(1 for r in results if r)
        facts = {
            "ERACO": lambda: f"제{age}대",
            "CMIT_NM": lambda: name,
            "RCP_CNT": lambda: len(rows),
            "ACP_CNT": lambda: count("채택"),
            "NOT_SUBMIT_CNT": lambda: count("본회의불부의"),
            "WTHD_CNT": lambda: count("철회"),
            "DSU_CNT": lambda: count("임기만료폐기"),
            "REFT_SUBT": lambda: done,
            "NOT_FINISH_CNT": lambda: len(rows) - done,
        }
        return Record(facts, Ctx(world, "petition_stats", name, AGES[age][0]))

    return LazyRows(sorted(groups), make)


class Tables(dict):
    """The world tables by name; ``docs:<name>`` names a corpus of its own (made on first use)."""

    def __contains__(self, name: object) -> bool:
        return super().__contains__(name) or (isinstance(name, str) and name.startswith("docs:"))

    def __missing__(self, name: str) -> Callable:
        if not name.startswith("docs:"):
            raise KeyError(name)
        self[name] = table = corpus(name)
        return table


TABLES = Tables(
    bills=_bills(lambda b, d: True),
    bills_decided=_bills(_decided),
    bills_pending=_bills(_pending),
    bills_plenary=_bills(_plenary),
    bills_tally=_bills(_plenary),
    bills_plenary_en=_bills(_plenary, en=True),
    bills_agenda=_bills(_on_agenda),
    bills_alternative=_bills(lambda b, d: "(대안)" in b.name),
    notices_closed=_bills(_notice_closed),
    bill_activity=bill_activity,
    bill_meetings=bill_meetings,
    bill_committee_meetings=_bill_meeting_rows("committee"),
    bill_judiciary_meetings=_bill_meeting_rows("judiciary"),
    budget_bills=_budget(("예산안", "결산", "추가경정예산안")),
    budget_bills_budget=_budget(("예산안", "추가경정예산안"), done=True),
    budget_bills_settlement=_budget(("결산",), done=True),
    budget_prelim=_budget(("예산안", "결산", "추가경정예산안"), by_id=True),
    budget_bills_final=_budget(("예산안", "결산", "추가경정예산안"), by_id=True),
    bill_stats_kind=bill_stats("kind"),
    bill_stats_committee=bill_stats("committee"),
    bill_stats_proposer=bill_stats("proposer"),
    bill_stats_pending=bill_stats("pending"),
    bill_stats_era=bill_stats("era"),
    sessions=sessions_table,
    members=members_table,
    members_units=members_table,
    members_en=en_members,
    member_history=member_history("history"),
    member_committees=member_history("committees"),
    party_seats=party_seats,
    member_plenary_schedule=member_schedule(("본회의",)),
    member_committee_schedule=member_schedule(("전체회의", "소위원회")),
    member_petitions=member_petitions,
    committees=committees_table("committees"),
    minutes_committees=committees_table("minutes_committees"),
    committee_laws_to_amend=committees_table("committee_laws_to_amend"),
    live_broadcasts=committees_table("live_broadcasts"),
    meeting_agenda=meeting_agenda(False),
    meeting_bills=meeting_agenda(True),
    schedule_all=schedule_all,
    schedule_en=schedule_en,
    petitions=petitions_table(lambda p, d: True),
    petitions_pending=petitions_table(lambda p, d: not (p.decided and p.decided <= d)),
    petitions_decided=petitions_table(lambda p, d: bool(p.decided and p.decided <= d)),
    petition_introducers=petition_introducers,
    petition_stats=petition_stats,
    **{name: meetings_table(name) for name in (*_MEETING_KINDS, *_SPEECHES)},
    **{f"meeting_files_{kind}": meeting_files(kind) for kind in ("av", "explain", "corrective", "appendix", "qna")},
)
