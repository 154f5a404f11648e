"""Statutes, precedents, administrative rules, ordinances and interpretations (국가법령정보).

A :class:`Statute` is one 법령 (one 법령ID) with its promulgated versions, each
with its own 법령일련번호 (MST): the version in force at an as-of date is the
latest one promulgated on or before it, so amendments dated after the as-of
date do not exist yet and an old MST still answers with its old text, as on
the real service. Families keep the real naming: ``도로교통법`` (법률),
``도로교통법 시행령`` (대통령령), ``도로교통법 시행규칙`` (부령 or 총리령).
Precedents cite those statutes in 참조조문 and are named after them
(``도로교통법위반(음주운전)``); ordinances belong to the 시도 and 시군구 of
:mod:`regions`. Article texts are drawn per version on demand.

A few *anchors* (:data:`ANCHOR_STATUTES`, :data:`ANCHOR_PRECEDENTS`) carry the
same codes in every world, whatever the seed and size, because the catalog's
examples name them; everything else is drawn from the seed.
"""

from __future__ import annotations

import bisect
import datetime as dt
from dataclasses import dataclass, replace
from functools import cached_property
from typing import TYPE_CHECKING

from kopa_replay.sim.world import stable_int
from kopa_replay.sim.world.calendar import ymd
from kopa_replay.sim.world.fmt import data, frozen

if TYPE_CHECKING:
    from kopa_replay.sim.world import World

__all__ = [
    "LawWorld",
    "Statute",
    "LawVersion",
    "Precedent",
    "AdminRule",
    "Ordinance",
    "Interpretation",
    "ANCHOR_STATUTES",
    "ANCHOR_PRECEDENTS",
    "MINISTRIES",
    "KIND_CODES",
    "CGM_EXPC",
    "SERIAL_TARGETS",
]

_DATA = data("laws")  # the fact tables: names, codes, counts (their sources beside them there)

MINISTRIES = frozen(_DATA["MINISTRIES"])
#: ministries whose rules are 총리령 (agencies under the Prime Minister), not 부령
_PM_RULES = {"식품의약품안전처", "개인정보보호위원회", "금융위원회", "공정거래위원회", "법제처", "인사혁신처"}
#: 법령구분명 → 법종구분코드
KIND_CODES = {"법률": "A0002", "대통령령": "A0003", "총리령": "A0004", "부령": "A0007"}

_STATUTES = frozen(_DATA["_STATUTES"])
ENGLISH_NAMES = frozen(_DATA["ENGLISH_NAMES"])
_ARTICLE_COUNTS = frozen(_DATA["_ARTICLE_COUNTS"])
_TOPICS = frozen(_DATA["_TOPICS"])
_TEMPLATES = frozen(_DATA["_TEMPLATES"])
_GOALS = frozen(_DATA["_GOALS"])
_MIDDLE_ARTICLES = frozen(_DATA["_MIDDLE_ARTICLES"])
_DECREE_ARTICLES = frozen(_DATA["_DECREE_ARTICLES"])
_CHAPTERS = ("등록 및 허가", "감독", "지원 및 육성", "분쟁의 조정", "손해배상", "권리의 보호", "신고 및 검사")
_RULE_ARTICLES = ("신고서의 서식", "허가신청서 등", "등록증의 발급", "수수료의 납부방법", "서식", "규제의 재검토")
_CIRCLED = "①②③④⑤⑥⑦⑧⑨⑩"

_ORDINARY_COURTS = frozen(_DATA["_ORDINARY_COURTS"])
_ADMIN_COURTS = ("대법원", "대법원", "대법원", "서울고등법원", "부산고등법원", "서울행정법원", "서울행정법원")
_CASE_KINDS = frozen(_DATA["_CASE_KINDS"])
_CIVIL_NAMES = frozen(_DATA["_CIVIL_NAMES"])
_NON_PENAL = {"민법", "민사소송법", "형사소송법"}
_PENAL_CODE_CRIMES = ("사기", "절도", "상해", "업무방해", "횡령", "배임", "명예훼손")
_ADMIN_NAMES = frozen(_DATA["_ADMIN_NAMES"])
_TAX_NAMES = frozen(_DATA["_TAX_NAMES"])
_CRIME_DETAILS = frozen(_DATA["_CRIME_DETAILS"])

_ADMRUL_KINDS = frozen(_DATA["_ADMRUL_KINDS"])
_ORDIN_TITLES = frozen(_DATA["_ORDIN_TITLES"])
_INSTITUTIONS = frozen(_DATA["_INSTITUTIONS"])
_ATTACHMENT_TITLES = frozen(_DATA["_ATTACHMENT_TITLES"])
_ORDIN_LAWS = frozen(_DATA["_ORDIN_LAWS"])
_ORDIN_FIELDS = frozen(_DATA["_ORDIN_FIELDS"])
_NUMBER_ANCHORS = frozen(_DATA["_NUMBER_ANCHORS"])
_REVISIONS = ("일부개정", "일부개정", "일부개정", "타법개정", "전부개정")

# Anchors: what the catalog's examples name (law_get_law MST 106607 and ID 013104, law_get_prec ID 205882,
# law_search_law 개인정보), the same in every world so that an example answers whatever the seed and size.
# Every anchored statute's family exists in every world (a world too small for all real statutes leaves out
# others instead); 도로교통법 also gets its 법령ID and a version promulgated on 2024-05-22 with 법령일련번호
# 106607 (its other versions, and every number and date of the other statutes, stay drawn from the seed).
# The values are those seed 0 drew.
ANCHOR_STATUTES: dict[str, dict] = {
    "도로교통법": dict(law_id="013104", promulgated=dt.date(2024, 5, 22), mst="106607"),
    "개인정보 보호법": dict(),
}
ANCHOR_SERIALS = frozen(_DATA["ANCHOR_SERIALS"])
#: anchored items are dated on or before this day, so that they exist at any as-of date the simulator serves
_ANCHOR_DAY = dt.date(2019, 6, 3)
# The precedent takes the place of one drawn case (the one with its serial, else a case about its statute
# decided near its day), so the number of cases and the others stay as drawn.
ANCHOR_PRECEDENTS = (
    dict(
        serial="205882",
        name="도로교통법위반",
        case_no="2022고단6783",
        decided=dt.date(2023, 5, 22),
        court="대구지방법원",
        court_code="400202",
        case_kind="형사",
        case_kind_code="400102",
        judgment="판결",
        references=(("도로교통법", 3), ("해운법", 20)),
    ),
)


@dataclass(frozen=True)
class LawVersion:
    mst: str  # 법령일련번호, 6 digits
    promulgated: dt.date  # 공포일자
    number: str  # 공포번호
    enforced: dt.date  # 시행일자
    revision: str  # 제개정구분명


@dataclass(frozen=True)
class Statute:
    law_id: str  # 법령ID, 6 digits
    name: str
    abbrev: str
    kind: str  # 법률 / 대통령령 / 총리령 / 부령
    ministry: str
    parent: str | None  # the 법률 a decree or rule implements
    versions: tuple[LawVersion, ...]  # ascending by promulgation
    article_count: int = 10  # the last article number (제N조)

    @property
    def ministry_code(self) -> str:
        return MINISTRIES[self.ministry]

    def current(self, as_of: dt.date) -> LawVersion | None:
        """The version in force at ``as_of``: the latest promulgated on or before it."""
        found = None
        for version in self.versions:
            if version.promulgated <= as_of:
                found = version
        return found


@dataclass(frozen=True)
class Precedent:
    serial: str  # 판례일련번호
    name: str  # 사건명
    case_no: str  # 사건번호
    decided: dt.date  # 선고일자
    court: str
    court_code: str
    case_kind: str
    case_kind_code: str
    judgment: str  # 판결 / 결정
    references: tuple[tuple[str, int], ...]  # (law name, article number)
    cited: str  # 참조판례 ("" if none)


@dataclass(frozen=True)
class AdminRule:
    serial: str  # 행정규칙일련번호, 13 digits
    rule_id: str  # 행정규칙ID
    name: str
    kind: str
    kind_code: str
    issued: dt.date  # 발령일자
    number: str  # 발령번호
    ministry: str
    revision: str
    enforced: dt.date


@dataclass(frozen=True)
class Ordinance:
    serial: str  # 자치법규일련번호, 7 digits
    ordin_id: str  # 자치법규ID, 7 digits
    name: str
    kind: str  # 조례 / 규칙
    government: str  # 지자체기관명 (서울특별시 강남구)
    promulgated: dt.date
    number: str
    revision: str
    enforced: dt.date
    field: str  # 자치법규분야명


@dataclass(frozen=True)
class Interpretation:
    serial: str  # 법령해석례일련번호
    title: str  # 안건명
    case_no: str  # 안건번호 (24-0123)
    inquirer: str  # 질의기관명
    inquirer_code: str
    replied: dt.date  # 회신일자
    law: str
    article: int


def _anchor_at(days: list[dt.date], latest: dt.date | None = None) -> int:
    """Which drawn item an anchor serial goes to: the first dated on or before the anchor day (else the first)."""
    return next((i for i, day in enumerate(days) if day <= (latest or _ANCHOR_DAY)), 0)


def _with_version(dates: list[dt.date], day: dt.date) -> list[dt.date]:
    """Version dates with ``day`` among them: it replaces the drawn amendment nearest to it (else is added)."""
    if day in dates:
        return dates
    amendments = dates[1:]
    if amendments and dates[0] < day:
        nearest = min(amendments, key=lambda d: (abs((d - day).days), d))
        dates = [d for d in dates if d != nearest]
    return sorted(set(dates) | {day})


def _subject(law_name: str) -> str:
    """What a 법률 is about, for article texts: 도로교통법 → 도로교통."""
    for tail in (" 등에 관한 법률", "에 관한 법률", "에 관한 특별법", " 기본법", "기본법", "법"):
        if law_name.endswith(tail):
            return law_name[: -len(tail)]
    return law_name


class LawWorld:
    """The seeded body of law."""

    def __init__(self, world: "World") -> None:
        self._world = world

    # -- statutes ----------------------------------------------------------------
    @cached_property
    def statutes(self) -> tuple[Statute, ...]:
        """Every statute, ordered by name (the real default sort)."""
        rng = self._world.rng("laws.statutes")
        size = self._world.sizes.laws
        families = list(_STATUTES)
        order = [0] + [int(i) + 1 for i in rng.permutation(len(families) - 1)]  # 도로교통법 always exists
        families = [families[i] for i in order]
        # synthetic families draw from their own generator, so the real statutes do not depend on them
        extra = self._world.rng("laws.synthetic")
        for index in extra.permutation(len(_TOPICS) * len(_TEMPLATES)):
            topic, template = _TOPICS[int(index) // len(_TEMPLATES)], _TEMPLATES[int(index) % len(_TEMPLATES)]
            ministry = list(MINISTRIES)[int(extra.integers(len(MINISTRIES)))]
            families.append(
                (template.format(topic), ministry, "", bool(extra.random() < 0.85), bool(extra.random() < 0.6))
            )
        chosen = self._choose(families, size)
        # An anchored family the size leaves out takes the place of the last family that made it.
        present = {name for name, *_ in chosen}
        missing = [i for i, (name, *_) in enumerate(families) if name in ANCHOR_STATUTES and name not in present]
        if missing:
            slots = [i for i, (name, *_) in enumerate(families) if name in present and name not in ANCHOR_STATUTES]
            for at, slot in zip(missing, reversed(slots)):
                families[slot], families[at] = families[at], families[slot]
            chosen = self._choose(families, size)
        # Version dates first, then serial numbers that grow with the date, as real MSTs do.
        enacted_of: dict[str, dt.date] = {}
        drafts = []
        drawn: list[list[dt.date]] = []  # the version dates as drawn, before an anchor adds its own
        for name, kind, ministry, parent, abbrev in chosen:
            if parent is None:
                enacted = dt.date(1953, 1, 1) + dt.timedelta(days=int(rng.integers(0, 23_000)))
            else:  # decrees and rules follow their 법률 by a few months
                enacted = enacted_of[parent] + dt.timedelta(days=int(rng.integers(30, 400)))
            enacted_of[name] = enacted
            dates = [enacted]
            for _ in range(int(rng.integers(1, 5))):
                dates.append(dt.date(2016, 1, 1) + dt.timedelta(days=int(rng.integers(0, 4_200))))
            dates = sorted(set(d for d in dates if d >= enacted))
            drawn.append(dates)
            if "promulgated" in ANCHOR_STATUTES.get(name, {}):
                dates = _with_version(dates, ANCHOR_STATUTES[name]["promulgated"])
            drafts.append((name, kind, ministry, parent, abbrev, dates))
        # every version gets its own serial; serials grow with the promulgation date (of the drawn versions:
        # an anchored version takes the place of the one it replaced, then the anchored serial from whoever
        # drew it, so the other statutes keep theirs)
        mst_of: dict[tuple[int, dt.date], str] = {}
        serial = 100_000
        for day, index in sorted((d, i) for i, dates in enumerate(drawn) for d in dates):
            serial += int(rng.integers(1, 30))
            mst_of[(index, day)] = f"{serial:06d}"
        for index, draft in enumerate(drafts):
            anchor = ANCHOR_STATUTES.get(draft[0], {})
            if "mst" not in anchor:
                continue
            for old, new in zip(sorted(set(drawn[index]) - set(draft[5])), sorted(set(draft[5]) - set(drawn[index]))):
                mst_of[(index, new)] = mst_of.pop((index, old))
            key = (index, anchor["promulgated"])
            holder = next((k for k, v in mst_of.items() if v == anchor["mst"]), None)
            if holder is not None and holder != key:
                mst_of[holder] = mst_of.get(key) or f"{serial + 1:06d}"
            mst_of[key] = anchor["mst"]
        used_ids: set[int] = set()
        out = []
        for index, (name, kind, ministry, parent, abbrev, dates) in enumerate(drafts):
            while True:
                law_id = int(rng.integers(1, 14_000))
                if law_id not in used_ids:
                    used_ids.add(law_id)
                    break
            versions = []
            for i, day in enumerate(dates):
                delay = 0 if kind == "부령" and i else int(rng.choice((0, 0, 90, 180, 365)))
                versions.append(
                    LawVersion(
                        mst_of[(index, day)],
                        day,
                        self._promulgation_number(kind, day, rng),
                        day + dt.timedelta(days=delay),
                        "제정" if i == 0 else _REVISIONS[int(rng.integers(len(_REVISIONS)))],
                    )
                )
            count = self._article_count(name, kind, parent)
            out.append(Statute(f"{law_id:06d}", name, abbrev, kind, ministry, parent, tuple(versions), count))
        for i, statute in enumerate(out):  # an anchored 법령ID, swapped with the statute that drew it
            anchor = ANCHOR_STATUTES.get(statute.name, {})
            if "law_id" in anchor and statute.law_id != anchor["law_id"]:
                holder = next((j for j, other in enumerate(out) if other.law_id == anchor["law_id"]), None)
                if holder is not None:
                    out[holder] = replace(out[holder], law_id=statute.law_id)
                out[i] = replace(statute, law_id=anchor["law_id"])
        return tuple(sorted(out, key=lambda s: s.name))

    @staticmethod
    def _choose(families: list[tuple], size: int) -> list[tuple[str, str, str, str | None, str]]:
        """(name, kind, ministry, parent, abbrev) of the first ``size`` families: each family's 법률, 시행령 and
        시행규칙 (the world's size counts 법률, as reference/world-scale.md does: ≈1,600 of them, ≈5,000 with
        their decrees and rules)."""
        chosen: list[tuple[str, str, str, str | None, str]] = []
        for name, ministry, abbrev, decree, rule in families[:size]:
            chosen.append((name, "법률", ministry, None, abbrev))
            if decree:
                chosen.append((f"{name} 시행령", "대통령령", ministry, name, ""))
            if rule:
                chosen.append((f"{name} 시행규칙", "총리령" if ministry in _PM_RULES else "부령", ministry, name, ""))
        return chosen

    def _article_count(self, name: str, kind: str, parent: str | None) -> int:
        """The last article number: the real one for the real 법률, drawn for the others (a decree about half
        its act's, a rule a quarter; an act of the synthetic families 20–80)."""
        if name in _ARTICLE_COUNTS:
            return _ARTICLE_COUNTS[name]
        rng = self._world.rng("laws.article_count", name)
        if parent is None:
            return int(rng.integers(20, 81))
        base = self._article_count(parent, "법률", None)
        share = rng.uniform(0.35, 0.75) if kind == "대통령령" else rng.uniform(0.12, 0.35)
        return max(5 if kind == "대통령령" else 3, min(int(base * share), 400))

    @staticmethod
    def _promulgation_number(kind: str, day: dt.date, rng) -> str:
        """공포번호 growing with the date (법률 제21858호 and 대통령령 제35900호 are 2026 numbers)."""
        anchors = _NUMBER_ANCHORS.get(kind)
        if anchors is None:  # 부령: each ministry counts on its own
            return str(int(rng.integers(1, 1_900)))
        year = day.year + (day.timetuple().tm_yday - 1) / 365.0
        for (y0, n0), (y1, n1) in zip(anchors, anchors[1:]):
            if year <= y1:
                value = n0 + (n1 - n0) * max(0.0, year - y0) / (y1 - y0)
                break
        else:
            value = anchors[-1][1] + (year - anchors[-1][0]) * 700
        return str(max(1, int(value) + int(rng.integers(-20, 20))))

    @cached_property
    def by_mst(self) -> dict[str, tuple[Statute, LawVersion]]:
        return {v.mst: (s, v) for s in self.statutes for v in s.versions}

    @cached_property
    def by_id(self) -> dict[str, Statute]:
        return {s.law_id: s for s in self.statutes}

    @cached_property
    def by_name(self) -> dict[str, Statute]:
        return {s.name: s for s in self.statutes}

    @cached_property
    def versions_by_day(self) -> tuple[list[dt.date], list[tuple[Statute, LawVersion]]]:
        """Every version ordered by promulgation day (the change histories' index: one bisect per call)."""
        pairs = sorted(((v.promulgated, s.name, v.mst), s, v) for s in self.statutes for v in s.versions)
        return [key[0] for key, _, _ in pairs], [(s, v) for _, s, v in pairs]

    def versions_between(self, low: dt.date, high: dt.date) -> list[tuple[Statute, LawVersion]]:
        days, pairs = self.versions_by_day
        return pairs[bisect.bisect_left(days, low) : bisect.bisect_right(days, high)]

    def changed_articles(self, statute: Statute, version: LawVersion) -> tuple[int, ...]:
        """The articles a version changed: every article for the first (제정), one to four drawn for the rest."""
        if version is statute.versions[0]:
            return tuple(range(1, statute.article_count + 1))
        rng = self._world.rng("laws.changed", version.mst)
        count = min(statute.article_count, int(rng.integers(1, 5)))
        return tuple(sorted(int(n) + 1 for n in rng.choice(statute.article_count, count, replace=False)))

    def family(self, statute: Statute) -> dict[str, Statute]:
        """법률, 시행령 and 시행규칙 of the statute's family (those the world holds)."""
        base = statute.parent or statute.name
        found = {
            kind: self.by_name.get(name)
            for kind, name in (("법률", base), ("시행령", f"{base} 시행령"), ("시행규칙", f"{base} 시행규칙"))
        }
        return {kind: s for kind, s in found.items() if s is not None}

    @cached_property
    def ordinance_links(self) -> dict[str, tuple[str, ...]]:
        """자치법규일련번호 → the 법률 it implements (법령-자치법규 연계), by the subject its title names."""
        out = {}
        for o in self.ordinances:
            laws = tuple(law for word, law in _ORDIN_LAWS if word in o.name and law in self.by_name)
            if laws:
                out[o.serial] = laws
        return out

    @cached_property
    def linked_acts(self) -> frozenset[str]:
        """The 법률 some ordinance implements."""
        return frozenset(law for laws in self.ordinance_links.values() for law in laws)

    @cached_property
    def acts(self) -> tuple[Statute, ...]:
        """The 법률 only (what precedents, bills and interpretations are about)."""
        return tuple(s for s in self.statutes if s.kind == "법률")

    @staticmethod
    def chapters(statute: Statute) -> dict[int, str]:
        """Chapter headings (전문) by the article number they open: 제1장 총칙 first; a 법률 ends with 보칙 and
        벌칙 and has a chapter about every 25 articles between."""
        count = statute.article_count
        at = {1: "총칙"}
        if statute.kind == "법률" and count >= 8:
            middle = max(1, (count - 6) // 25)
            names = [f"{_subject(statute.name)}의 관리"] + [_CHAPTERS[i % len(_CHAPTERS)] for i in range(middle - 1)]
            for i, name in enumerate(names):
                at[3 + i * (count - 8) // middle] = name
            at[count - 3] = "보칙"
            at[count - 2] = "벌칙"
        return {n: f"제{k}장 {name}" for k, (n, name) in enumerate(sorted(at.items()), start=1)}

    def article_title(self, statute: Statute, number: int) -> str:
        """조문제목: 목적 and 정의 first, 벌칙·양벌규정·과태료 last in a 법률; the rest from the kind's pool."""
        count = statute.article_count
        if number == 1:
            return "목적"
        if statute.kind == "법률":
            if number == 2:
                return "정의"
            tail = {count - 2: "벌칙", count - 1: "양벌규정", count: "과태료"}
            if count >= 6 and number in tail:
                return tail[number]
            pool = _MIDDLE_ARTICLES
        elif statute.kind == "대통령령":
            pool = _DECREE_ARTICLES
        else:
            pool = _RULE_ARTICLES
        return pool[stable_int(statute.law_id, number) % len(pool)]

    def article(self, statute: Statute, version: LawVersion, number: int) -> dict | None:
        """One 조문단위 (제``number``조) of a version, made on its own; None past the last article."""
        if not 1 <= number <= statute.article_count:
            return None
        rng = self._world.rng("laws.article", version.mst, number)
        subject = _subject(statute.parent or statute.name)
        parent = statute.parent
        title = self.article_title(statute, number)
        unit = {
            "조문키": f"{number:04d}001",
            "조문번호": str(number),
            "조문여부": "조문",
            "조문제목": title,
            "조문시행일자": ymd(version.enforced),
        }
        head = f"제{number}조({title})"
        if title == "목적":
            if statute.kind == "법률":
                goal = _GOALS[int(rng.integers(len(_GOALS)))]
                unit["조문내용"] = (
                    f"{head} 이 법은 {subject}에 관한 사항을 규정함으로써 {goal}에 이바지함을 목적으로 한다."
                )
            elif statute.kind == "대통령령":
                unit["조문내용"] = (
                    f"{head} 이 영은 「{parent}」에서 위임된 사항과 그 시행에 필요한 사항을 규정함을 목적으로 한다."
                )
            else:
                unit["조문내용"] = (
                    f"{head} 이 규칙은 「{parent}」 및 같은 법 시행령에서 위임된 사항과 그 시행에 "
                    "필요한 사항을 규정함을 목적으로 한다."
                )
        elif title == "정의":
            unit["조문내용"] = f"{head} 이 법에서 사용하는 용어의 뜻은 다음과 같다."
        elif title == "벌칙":
            years, fine = int(rng.integers(1, 6)), int(rng.choice((1000, 2000, 3000, 5000)))
            unit["조문내용"] = (
                f"{head} 다음 각 호의 어느 하나에 해당하는 자는 {years}년 이하의 징역 또는 "
                f"{fine // 1000}천만원 이하의 벌금에 처한다."
            )
        else:
            count = int(rng.integers(2, 5))
            unit["조문내용"] = head
            unit["항"] = [
                {
                    "항번호": _CIRCLED[k],
                    "항내용": f"{_CIRCLED[k]} " + self._paragraph(rng, title, subject, statute, k),
                }
                for k in range(count)
            ]
        return unit

    def articles(self, statute: Statute, version: LawVersion, number: int | None = None) -> list[dict]:
        """조문단위 of one version: each chapter heading before the article it opens, then the article; with
        ``number`` that article alone (the JO parameter). Every article is made on its own, on demand."""
        numbers = range(1, statute.article_count + 1) if number is None else [number]
        chapters = self.chapters(statute) if number is None else {}
        enforced = ymd(version.enforced)
        units: list[dict] = []
        for n in numbers:
            if n in chapters:
                units.append(
                    {
                        "조문키": f"{n:04d}000",
                        "조문번호": str(n),
                        "조문여부": "전문",
                        "조문제목": None,
                        "조문시행일자": enforced,
                        "조문내용": chapters[n],
                    }
                )
            unit = self.article(statute, version, n)
            if unit is not None:
                units.append(unit)
        return units

    @staticmethod
    def _paragraph(rng, title: str, subject: str, statute: Statute, index: int) -> str:
        who = {"법률": "이 법", "대통령령": "법", "총리령": "법", "부령": "법"}[statute.kind]
        if index == 0:
            return (
                f"{subject}에 관한 {title}은 {who}에서 정하는 바에 따른다."
                if statute.kind != "법률"
                else f"{statute.ministry}장관은 {subject}에 관한 {title}에 관하여 필요한 조치를 하여야 한다."
            )
        if index == 1:
            return (
                f"제1항에 따른 {title}의 절차와 방법 등에 필요한 사항은 대통령령으로 정한다."
                if statute.kind == "법률"
                else "제1항에 따른 서류는 전자문서로 제출할 수 있다."
            )
        amount = int(rng.choice((100, 200, 300, 500)))
        return (
            f"제1항을 위반한 자에게는 {amount}만원 이하의 과태료를 부과한다."
            if title == "과태료"
            else f"{statute.ministry}장관은 제{index}항에 따른 업무를 관계 기관에 위탁할 수 있다."
        )

    # -- precedents -----------------------------------------------------------------
    @cached_property
    def precedents(self) -> tuple[Precedent, ...]:
        """Court decisions citing the world's 법률, ordered by 판례일련번호."""
        rng = self._world.rng("laws.precedents")
        acts = self.acts
        count = max(60, 2 * self._world.sizes.laws)
        used: set[int] = set()
        drafts = []
        road = next(s for s in acts if s.name == "도로교통법")
        for i in range(count):
            kind = ("형사", "민사", "일반행정", "세무")[int(rng.choice(4, p=(0.4, 0.3, 0.2, 0.1)))]
            # every fifth case is about 도로교통법, so the most asked-about law has case law
            law = road if i % 5 == 0 else acts[int(rng.integers(len(acts)))]
            if kind == "세무":
                taxes = [s for s in acts if s.ministry == "재정경제부"] or [law]
                law = taxes[int(rng.integers(len(taxes)))]
            elif kind == "형사" and law.name in _NON_PENAL:
                law = road
            decided = dt.date(2015, 1, 1) + dt.timedelta(days=int(rng.integers(0, 4_550)))
            courts = _ORDINARY_COURTS if kind in ("민사", "형사") else _ADMIN_COURTS
            court = courts[int(rng.integers(len(courts)))]
            court_code = "400201" if court == "대법원" else "400202"
            if kind == "형사" and law.name == "형법":
                name = _PENAL_CODE_CRIMES[int(rng.integers(len(_PENAL_CODE_CRIMES)))]
            elif kind == "형사":
                details = _CRIME_DETAILS.get(law.name, ("",))
                name = law.name.replace(" ", "") + "위반" + details[int(rng.integers(len(details)))]
            elif kind == "민사":
                name = _CIVIL_NAMES[int(rng.integers(len(_CIVIL_NAMES)))]
            elif kind == "일반행정":
                name = _ADMIN_NAMES[int(rng.integers(len(_ADMIN_NAMES)))]
            else:
                name = _TAX_NAMES[int(rng.integers(len(_TAX_NAMES)))]
            code, supreme, high, district = _CASE_KINDS[kind]
            letters = supreme if court == "대법원" else high if "고등" in court else district
            year = decided.year - int(rng.integers(0, 2))
            case_no = f"{year}{letters}{int(rng.integers(1_000, 99_999 if court == '대법원' else 9_999))}"
            # every cited article exists in the cited act (its real last article for the real acts)
            references = [(law.name, int(rng.integers(1, law.article_count + 1)))]
            if rng.random() < 0.5:
                other = acts[int(rng.integers(len(acts)))]
                references.append((other.name, int(rng.integers(1, other.article_count + 1))))
            while True:
                serial = int(rng.integers(150_000, 999_999))
                if serial not in used:
                    used.add(serial)
                    break
            judgment = "판결" if rng.random() < 0.9 else "결정"
            drafts.append([serial, name, case_no, decided, court, court_code, kind, code, judgment, tuple(references)])
        taken: set[int] = set()
        for spec in ANCHOR_PRECEDENTS:
            serial = int(spec["serial"])
            statute = spec["references"][0][0]
            target = next((i for i, d in enumerate(drafts) if d[0] == serial), None)
            if target is None:
                # the case about the same statute in the same kind of court decided nearest the anchor's day,
                # so that the order of decisions (and what later cases cite) moves as little as possible
                free = [i for i in range(len(drafts)) if i not in taken]
                alike = [
                    i
                    for i in free
                    if drafts[i][9][0][0] == statute and (drafts[i][4] == "대법원") == (spec["court"] == "대법원")
                ] or free
                target = min(alike, key=lambda i: (abs((drafts[i][3] - spec["decided"]).days), i))
            taken.add(target)
            drafts[target] = [
                serial,
                spec["name"],
                spec["case_no"],
                spec["decided"],
                spec["court"],
                spec["court_code"],
                spec["case_kind"],
                spec["case_kind_code"],
                spec["judgment"],
                tuple(spec["references"]),
            ]
        drafts.sort(key=lambda d: d[3])
        out: list[Precedent] = []
        supreme: list[Precedent] = []  # the Supreme Court's decisions so far, by decision day
        days: list[dt.date] = []
        for draft in drafts:
            earlier = supreme[: bisect.bisect_left(days, draft[3])]
            cited = ""
            if earlier and rng.random() < 0.4:
                prior = earlier[int(rng.integers(len(earlier)))]
                cited = f"대법원 {prior.decided.year}. {prior.decided.month}. {prior.decided.day}. 선고 {prior.case_no} {prior.judgment}"
            out.append(Precedent(f"{draft[0]:06d}", *draft[1:], cited))
            if draft[4] == "대법원":
                supreme.append(out[-1])
                days.append(draft[3])
        return tuple(sorted(out, key=lambda p: p.serial))

    @cached_property
    def precedent_by_serial(self) -> dict[str, Precedent]:
        return {p.serial: p for p in self.precedents}

    # -- administrative rules ---------------------------------------------------------
    @cached_property
    def admin_rules(self) -> tuple[AdminRule, ...]:
        rng = self._world.rng("laws.admrul")
        acts = self.acts
        out = []
        used: set[str] = set()
        # > 10,000 at the real size (reference/world-scale.md): seven rules for every 법률
        for _ in range(7 * self._world.sizes.laws):
            law = acts[int(rng.integers(len(acts)))]
            kind, kind_code, template = _ADMRUL_KINDS[int(rng.integers(len(_ADMRUL_KINDS)))]
            name = template.format(_subject(law.name).replace(" 등에 관한", ""))
            if name in used:
                name = f"{law.ministry} {name}"
            if name in used:
                continue
            used.add(name)
            issued = dt.date(2012, 1, 1) + dt.timedelta(days=int(rng.integers(0, 5_600)))
            number = (
                f"{issued.year}-{int(rng.integers(1, 250))}"
                if kind in ("고시", "공고")
                else str(int(rng.integers(100, 2_500)))
            )
            out.append(
                AdminRule(
                    f"2100000{int(rng.integers(100_000, 999_999)):06d}",
                    str(int(rng.integers(10_000, 99_999))),
                    name,
                    kind,
                    kind_code,
                    issued,
                    number,
                    law.ministry,
                    "제정" if rng.random() < 0.2 else "일부개정",
                    issued + dt.timedelta(days=int(rng.choice((0, 0, 30, 90)))),
                )
            )
        out = [r for r in out if r.serial != ANCHOR_SERIALS["admrul"]]
        at = _anchor_at([r.enforced for r in out])
        issued = min(out[at].issued, _ANCHOR_DAY)
        out[at] = replace(
            out[at], serial=ANCHOR_SERIALS["admrul"], issued=issued, enforced=min(out[at].enforced, _ANCHOR_DAY)
        )
        return tuple(sorted(out, key=lambda r: r.name))

    # -- rules of universities, local public corporations and public institutions (학칙ㆍ공단ㆍ공공기관) -----
    def institution_rules(self, target: str) -> tuple[AdminRule, ...]:
        """The rules of one collection (school, public, pi), drawn on first use, ordered by name; the kind code
        is the guide's knd (1 학칙, 2 학교규정, 3 학교지침, 4 학교시행세칙, 5 공단규정·공공기관규정)."""
        found = self._institution_rules.get(target)
        if found is None:
            rng = self._world.rng("laws.institution_rules", target)
            bodies, titles = _INSTITUTIONS[target]
            out = []
            for i, body in enumerate(bodies):
                for kind, code, title in titles:
                    if rng.random() < 0.35:
                        continue
                    issued = dt.date(2010, 1, 1) + dt.timedelta(days=int(rng.integers(0, 5_600)))
                    out.append(
                        AdminRule(
                            f"22000000{int(rng.integers(10_000, 99_999)):05d}",
                            str(2_000_000 + 1_000 * i + int(rng.integers(0, 999))),
                            f"{body} {title}",
                            kind,
                            code,
                            issued,
                            str(int(rng.integers(1, 300))),
                            body,
                            "제정" if rng.random() < 0.2 else "일부개정",
                            issued,
                        )
                    )
            # the first carries the serial the examples name (the guide's sample for school), in every world
            anchor = ANCHOR_SERIALS[target]
            out = [r for r in out if r.serial != anchor]
            out[0] = replace(
                out[0],
                serial=anchor,
                issued=min(out[0].issued, _ANCHOR_DAY),
                enforced=min(out[0].enforced, _ANCHOR_DAY),
            )
            found = self._institution_rules[target] = tuple(sorted(out, key=lambda r: r.name))
        return found

    @cached_property
    def _institution_rules(self) -> dict[str, tuple[AdminRule, ...]]:
        return {}

    # -- attachments (별표ㆍ서식) of statutes, administrative rules and ordinances ---------------------------
    @cached_property
    def attachments(self) -> dict[str, tuple[tuple, ...]]:
        """별표ㆍ서식 by collection (licbyl, admbyl, ordinbyl): (serial, owner, number, kind code, title), ordered
        by title. Decrees carry 별표, rules 서식 and 별지, acts none; one rule or ordinance in three has some."""
        out: dict[str, list[tuple]] = {"licbyl": [], "admbyl": [], "ordinbyl": []}
        owners = (
            ("licbyl", [s for s in self.statutes if s.kind != "법률"]),
            ("admbyl", [r for i, r in enumerate(self.admin_rules) if i % 3 == 0]),
            ("ordinbyl", [o for i, o in enumerate(self.ordinances) if i % 3 == 0]),
        )
        for target, items in owners:
            rng = self._world.rng("laws.attachments", target)
            for owner in items:
                for number in range(1, int(rng.integers(1, 4)) + 1):
                    code, title = _ATTACHMENT_TITLES[int(rng.integers(len(_ATTACHMENT_TITLES)))]
                    if target == "licbyl" and owner.kind == "대통령령":
                        code, title = "1", _ATTACHMENT_TITLES[number % 3][1]
                    serial = str(int(rng.integers(1_000_000, 99_999_999)))
                    out[target].append((serial, owner, number, code, title))
        return {k: tuple(sorted(v, key=lambda a: (a[4], a[0]))) for k, v in out.items()}

    # -- ordinances -------------------------------------------------------------------
    @cached_property
    def ordinances(self) -> tuple[Ordinance, ...]:
        """Ordinances and rules of every 시도 and 시군구 of the region tree."""
        rng = self._world.rng("laws.ordin")
        regions = self._world.regions
        per_region = 2 + self._world.sizes.laws // 400
        governments = [s.name for s in regions.sido] + [s.full_name for s in regions.sigungu]
        out = []
        used_serials: set[int] = set()
        for government in governments:
            picks = rng.choice(len(_ORDIN_TITLES), size=min(per_region, len(_ORDIN_TITLES)), replace=False)
            for pick in sorted(int(p) for p in picks):
                kind, title = _ORDIN_TITLES[pick]
                while True:
                    serial = int(rng.integers(1_000_000, 2_000_000))
                    if serial not in used_serials:
                        used_serials.add(serial)
                        break
                promulgated = dt.date(2005, 1, 1) + dt.timedelta(days=int(rng.integers(0, 8_000)))
                out.append(
                    Ordinance(
                        str(serial),
                        str(int(rng.integers(2_000_000, 2_200_000))),
                        f"{government} {title}",
                        kind,
                        government,
                        promulgated,
                        str(int(rng.integers(100, 5_000))),
                        "제정" if rng.random() < 0.25 else "일부개정",
                        promulgated,
                        _ORDIN_FIELDS[int(rng.integers(len(_ORDIN_FIELDS)))],
                    )
                )
        serial, ordin_id = ANCHOR_SERIALS["ordin"]
        out = [o for o in out if o.serial != serial and o.ordin_id != ordin_id]
        at = _anchor_at([o.promulgated for o in out])
        day = min(out[at].promulgated, _ANCHOR_DAY)
        out[at] = replace(out[at], serial=serial, ordin_id=ordin_id, promulgated=day, enforced=day)
        return tuple(sorted(out, key=lambda o: o.name))

    # -- interpretations ----------------------------------------------------------------
    @cached_property
    def interpretations(self) -> tuple[Interpretation, ...]:
        """법제처 법령해석례 about the world's 법률."""
        rng = self._world.rng("laws.expc")
        acts = self.acts
        ministries = list(MINISTRIES)
        out = []
        road = next(s for s in acts if s.name == "도로교통법")
        for i in range(max(40, self._world.sizes.laws // 2)):
            law = road if i % 6 == 0 else acts[int(rng.integers(len(acts)))]
            article = int(rng.integers(2, min(60, law.article_count) + 1))
            inquirer = "민원인" if rng.random() < 0.4 else ministries[int(rng.integers(len(ministries)))]
            replied = dt.date(2016, 1, 1) + dt.timedelta(days=int(rng.integers(0, 4_200)))
            topic = _MIDDLE_ARTICLES[int(rng.integers(len(_MIDDLE_ARTICLES)))]
            title = (
                f"{inquirer} - 「{law.name}」 제{article}조에 따른 {topic}의 범위(「{law.name}」 제{article}조 등 관련)"
            )
            out.append(
                Interpretation(
                    f"{int(rng.integers(300_000, 399_999)):06d}",
                    title,
                    f"{replied.year % 100:02d}-{int(rng.integers(1, 999)):04d}",
                    inquirer,
                    MINISTRIES.get(inquirer, "0000000"),
                    replied,
                    law.name,
                    article,
                )
            )
        out = [e for e in out if e.serial != ANCHOR_SERIALS["expc"]]
        at = _anchor_at([e.replied for e in out])
        out[at] = replace(out[at], serial=ANCHOR_SERIALS["expc"], replied=min(out[at].replied, _ANCHOR_DAY))
        return tuple(sorted(out, key=lambda x: x.title))

    @cached_property
    def interpretation_by_serial(self) -> dict[str, Interpretation]:
        return {e.serial: e for e in self.interpretations}

    @cached_property
    def admin_rule_by_serial(self) -> dict[str, AdminRule]:
        return {r.serial: r for r in self.admin_rules}

    @cached_property
    def ordinance_by_serial(self) -> dict[str, Ordinance]:
        return {o.serial: o for o in self.ordinances}

    # -- decisions: the Constitutional Court, administrative appeals, the committees ------------------
    def decisions(self, kind: str) -> tuple[Decision, ...]:
        """One collection's decisions (``detc``, ``decc`` or a committee's target), ordered by serial; built on
        first use of that collection only."""
        found = self._decisions.get(kind)
        if found is None:
            found = self._decisions[kind] = self._draw_decisions(kind)
        return found

    def decision(self, kind: str, serial: str) -> Decision | None:
        index = self._decision_index.get(kind)
        if index is None:
            index = self._decision_index[kind] = {d.serial: d for d in self.decisions(kind)}
        return index.get(serial)

    @cached_property
    def _decisions(self) -> dict[str, tuple[Decision, ...]]:
        return {}

    @cached_property
    def _decision_index(self) -> dict[str, dict[str, Decision]]:
        return {}

    def _draw_decisions(self, kind: str) -> tuple[Decision, ...]:
        spec = DECISION_KINDS[kind]
        rng = self._world.rng("laws.decisions", kind)
        # a ministry answers about its own acts (every act where it has none in this world)
        acts = tuple(a for a in self.acts if a.ministry == spec.get("ministry")) or self.acts
        count = max(24, self._world.sizes.laws * spec["per_100_acts"] // 100)
        start = spec["first_day"]
        span = (dt.date(2025, 12, 31) - start).days
        serials = sorted(int(x) for x in rng.choice(spec["serials"][1] - spec["serials"][0], count, replace=False))
        out = []
        for serial in serials:
            law = acts[int(rng.integers(len(acts)))]
            decided = start + dt.timedelta(days=int(rng.integers(0, span)))
            party = _PARTIES[int(rng.integers(len(_PARTIES)))]
            subject = spec["subjects"][int(rng.integers(len(spec["subjects"])))]
            article = int(rng.integers(1, law.article_count + 1))
            title = subject.format(law=law.name, subject=_subject(law.name), party=party, a=article)
            letters = spec["letters"][int(rng.integers(len(spec["letters"])))]
            number = spec["number"].format(
                year=decided.year,
                yy=decided.year % 100,
                letters=letters,
                n=int(rng.integers(1, 9_999)),
                m=int(rng.integers(1, 40)),
            )
            outcome = spec["outcomes"][int(rng.integers(len(spec["outcomes"])))]
            out.append(
                Decision(
                    kind,
                    str(spec["serials"][0] + serial),
                    title,
                    number,
                    decided,
                    spec["org"],
                    outcome,
                    party,
                    law.name,
                    article,
                    MINISTRIES.get(law.ministry, "0000000"),
                    law.ministry,
                )
            )
        anchor = ANCHOR_SERIALS[kind]
        out = [d for d in out if d.serial != anchor]
        latest = max(_ANCHOR_DAY, spec["first_day"] + dt.timedelta(days=365))
        at = _anchor_at([d.decided for d in out], latest)
        out[at] = replace(out[at], serial=anchor, decided=min(out[at].decided, latest))
        return tuple(sorted(out, key=lambda d: int(d.serial)))

    # -- treaties and legal terms -------------------------------------------------------------------
    @cached_property
    def treaties(self) -> tuple[Treaty, ...]:
        """조약: bilateral agreements with the world's partner states and multilateral conventions, by serial."""
        rng = self._world.rng("laws.treaties")
        out = []
        for i in range(max(40, self._world.sizes.laws // 4)):
            bilateral = rng.random() < 0.75
            topic = _TREATY_TOPICS[int(rng.integers(len(_TREATY_TOPICS)))]
            country = _COUNTRIES[int(rng.integers(len(_COUNTRIES)))]
            signed = dt.date(1965, 1, 1) + dt.timedelta(days=int(rng.integers(0, 22_000)))
            name = (
                f"대한민국 정부와 {country[0]} 정부 간의 {topic} 협정"
                if bilateral
                else f"{topic}에 관한 {('협약', '의정서', '협정')[int(rng.integers(3))]}"
            )
            out.append(
                Treaty(
                    str(1000 + i * 7 + int(rng.integers(0, 7))),
                    name,
                    bilateral,
                    country if bilateral else ("", "", ""),
                    signed,
                    signed + dt.timedelta(days=int(rng.integers(30, 700))),
                    str(int(rng.integers(100, 2_700))),
                    topic,
                )
            )
        out = [t for t in out if t.serial != ANCHOR_SERIALS["trty"]]
        at = _anchor_at([t.effective for t in out])
        signed = min(out[at].signed, _ANCHOR_DAY)
        effective = min(out[at].effective, _ANCHOR_DAY)
        out[at] = replace(out[at], serial=ANCHOR_SERIALS["trty"], signed=signed, effective=effective)
        return tuple(sorted(out, key=lambda t: int(t.serial)))

    @cached_property
    def treaty_by_serial(self) -> dict[str, Treaty]:
        return {t.serial: t for t in self.treaties}

    @cached_property
    def terms(self) -> tuple[Term, ...]:
        """법령용어: the civil-law terms of 민법 and the word each 법률's 정의 article defines, ordered by name."""
        out: dict[str, Term] = {}
        for name, hanja, definition in _TERMS:
            out[name] = Term("", name, hanja, definition, "민법")
        for act in self.acts:
            word = _subject(act.name).replace(" ", "")
            if act.name in _ARTICLE_COUNTS and word not in out:
                out[word] = Term("", word, "", f"「{act.name}」 제2조에서 정하는 {word}을(를) 말한다.", act.name)
        rng = self._world.rng("laws.terms")
        serials = rng.choice(900_000, len(out), replace=False)
        return tuple(
            replace(term, serial=str(100_000 + int(serials[i])))
            for i, term in enumerate(sorted(out.values(), key=lambda t: t.name))
        )

    @cached_property
    def term_by_name(self) -> dict[str, Term]:
        return {t.name: t for t in self.terms}

    # -- the knowledge base: everyday terms and the links between terms, articles and statutes ----------------
    @cached_property
    def daily_terms(self) -> tuple[DailyTerm, ...]:
        """일상용어 with the legal terms they lead to (those the world holds), ordered by name; serials drawn."""
        known = self.term_by_name
        rows = [(name, tuple((t, c) for t, c in links if t in known)) for name, links in _DAILY_TERMS]
        rows = sorted((name, links) for name, links in rows if links)
        serials = self._world.rng("laws.daily_terms").choice(900_000, len(rows), replace=False)
        return tuple(DailyTerm(str(3_000_000 + int(serials[i])), n, links) for i, (n, links) in enumerate(rows))

    @cached_property
    def daily_by_key(self) -> dict[str, DailyTerm]:
        """By name and by serial (the services take either: query or MST)."""
        return {key: d for d in self.daily_terms for key in (d.name, d.serial)}

    @cached_property
    def term_daily_links(self) -> dict[str, tuple[tuple[DailyTerm, str], ...]]:
        """법령용어 → its 일상용어 with the relation seen from the legal term (상위어 and 하위어 swapped)."""
        out: dict[str, list[tuple[DailyTerm, str]]] = {}
        for d in self.daily_terms:
            for term, code in d.links:
                out.setdefault(term, []).append((d, _SWAPPED.get(code, code)))
        return {term: tuple(links) for term, links in out.items()}

    def term_articles(self, term: Term) -> tuple[tuple[Statute, int, str], ...]:
        """The articles a legal term is linked to, (statute, article, 용어구분코드): a word an act defines is the
        key term (핵심용어) of its 제2조 and a chosen term (선정용어) of its 제1조; a 민법 term of two drawn articles."""
        statute = self.by_name.get(term.source)
        if statute is None:
            return ()
        if term.source != "민법":
            return ((statute, 2, "140101"), (statute, 1, "140102"))
        rng = self._world.rng("laws.term_articles", term.name)
        first, second = (int(n) + 1 for n in rng.choice(statute.article_count, 2, replace=False))
        return ((statute, first, "140101"), (statute, second, "140102"))

    @cached_property
    def article_terms(self) -> dict[tuple[str, int], tuple[tuple[Term, str], ...]]:
        """(법령ID, article) → the legal terms linked to it with their 용어구분코드 (the index of term_articles)."""
        out: dict[tuple[str, int], list[tuple[Term, str]]] = {}
        for term in self.terms:
            for statute, number, code in self.term_articles(term):
                out.setdefault((statute.law_id, number), []).append((term, code))
        return {key: tuple(links) for key, links in out.items()}


@dataclass(frozen=True)
class Decision:
    """A decision of the Constitutional Court (detc), an administrative appeal (decc) or a committee."""

    kind: str  # the DRF target of its collection
    serial: str  # 헌재결정례일련번호 / 행정심판례일련번호 / 결정문일련번호
    title: str  # 사건명 / 안건명 / 제목
    number: str  # 사건번호 / 의안번호 / 의결번호
    decided: dt.date  # 종국일자 / 의결일자
    org: str  # 기관명 (재결청)
    outcome: str  # 결정구분 / 재결구분 / 종국결과
    party: str  # 청구인, 피심인, 신청인 …
    law: str  # the 법률 it applies
    article: int  # the article of it (within the act)
    agency_code: str  # 처분청 (the act's ministry) code
    agency: str


@dataclass(frozen=True)
class Treaty:
    serial: str  # 조약일련번호
    name: str
    bilateral: bool
    country: tuple[str, str, str]  # (Korean name, English name, 국가코드)
    signed: dt.date  # 서명일자
    effective: dt.date  # 발효일자
    number: str  # 조약번호
    topic: str


@dataclass(frozen=True)
class Term:
    serial: str  # 법령용어 일련번호 (법령용어ID)
    name: str
    hanja: str
    definition: str
    source: str  # 출처 (the act)


@dataclass(frozen=True)
class DailyTerm:
    serial: str  # 일상용어 일련번호 (the MST of dlytrmRlt)
    name: str
    links: tuple[tuple[str, str], ...]  # (법령용어명, 용어관계코드 of the legal term seen from this one)


_PARTIES = frozen(_DATA["_PARTIES"])
DECISION_KINDS: dict[str, dict] = frozen(_DATA["DECISION_KINDS"])
CGM_EXPC: dict[str, tuple[str, str, bool]] = frozen(_DATA["CGM_EXPC"])
_CGM_SUBJECTS = frozen(_DATA["_CGM_SUBJECTS"])
for _i, (_target, (_org, _code, _body)) in enumerate(CGM_EXPC.items()):
    DECISION_KINDS[_target] = dict(
        org=_org,
        org_code=_code,
        ministry=_org,
        body=_body,
        per_100_acts=60 if _target == "ntsCgmExpc" else 6,
        serials=(1_000 + 100_000 * _i, 90_000 + 100_000 * _i),
        first_day=dt.date(2012, 1, 1),
        subjects=_CGM_SUBJECTS,
        letters=("정책과", "제도과", "운영지원과", "법무담당관"),
        number="{letters}-{n}",
        outcomes=("회신",),
    )
DECISION_KINDS.update(frozen(_DATA["_SPECIAL_KINDS"]))
_SPECIAL_DECC = tuple(_DATA["_SPECIAL_KINDS"])
# every collection's first drawn item carries a fixed serial (the examples name it): the guide's sample for
# 고용노동부 (ID=21822), a serial inside each range for the rest
ANCHOR_SERIALS.update(
    {
        kind: "21822" if kind == "moelCgmExpc" else str(DECISION_KINDS[kind]["serials"][0] + 777)
        for kind in (*CGM_EXPC, *_SPECIAL_DECC)
    }
)
ANCHOR_SERIALS.update(school="2200000075994", public="2200000080012", pi="2200000090017")
#: the newer DRF targets whose documents a list names by serial (the truth's ``<target>_serial``; the committees'
#: and courts' are written out there)
SERIAL_TARGETS = (*CGM_EXPC, *_SPECIAL_DECC, "school", "public", "pi")

_TREATY_TOPICS = frozen(_DATA["_TREATY_TOPICS"])
_COUNTRIES = frozen(_DATA["_COUNTRIES"])
_TERMS = frozen(_DATA["_TERMS"])
TERM_RELATIONS: dict[str, str] = frozen(_DATA["TERM_RELATIONS"])
TERM_KINDS: dict[str, str] = frozen(_DATA["TERM_KINDS"])
_DAILY_TERMS = frozen(_DATA["_DAILY_TERMS"])
_SWAPPED = {"140303": "140304", "140304": "140303"}
