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

import datetime as dt
from dataclasses import dataclass, replace
from functools import cached_property
from typing import TYPE_CHECKING

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
]

#: 소관부처 → 7-digit 소관부처코드
MINISTRIES = {
    "법무부": "1270000",
    "경찰청": "1320000",
    "국토교통부": "1613000",
    "고용노동부": "1492000",
    "보건복지부": "1352000",
    "식품의약품안전처": "1471000",
    "개인정보보호위원회": "1790387",
    "과학기술정보통신부": "1721000",
    "재정경제부": "1053000",
    "행정안전부": "1741000",
    "교육부": "1342000",
    "기후에너지환경부": "1480000",
    "금융위원회": "1160100",
    "공정거래위원회": "1130000",
    "문화체육관광부": "1371000",
    "농림축산식품부": "1543000",
    "해양수산부": "1192000",
    "산업통상부": "1450000",
    "중소벤처기업부": "1421000",
    "병무청": "1300000",
    "국방부": "1290000",
    "인사혁신처": "1760000",
    "중앙선거관리위원회": "1310000",
    "소방청": "1661000",
    "질병관리청": "1790000",
    "성평등가족부": "1383000",
    "국가유산청": "1550000",
    "법제처": "1170000",
}
#: ministries whose rules are 총리령 (agencies under the Prime Minister), not 부령
_PM_RULES = {"식품의약품안전처", "개인정보보호위원회", "금융위원회", "공정거래위원회", "법제처", "인사혁신처"}
#: 법령구분명 → 법종구분코드
KIND_CODES = {"법률": "A0002", "대통령령": "A0003", "총리령": "A0004", "부령": "A0007"}

# (법률 name, 소관부처, 약칭, has 시행령, has 시행규칙) — real statutes.
_STATUTES = (
    ("도로교통법", "경찰청", "", True, True),
    ("자동차관리법", "국토교통부", "", True, True),
    ("건축법", "국토교통부", "", True, True),
    ("주택법", "국토교통부", "", True, True),
    ("주택임대차보호법", "법무부", "주택임대차법", True, False),
    ("민법", "법무부", "", False, False),
    ("형법", "법무부", "", False, False),
    ("상법", "법무부", "", True, False),
    ("민사소송법", "법무부", "", False, False),
    ("형사소송법", "법무부", "", False, False),
    ("근로기준법", "고용노동부", "", True, True),
    ("최저임금법", "고용노동부", "", True, True),
    ("산업안전보건법", "고용노동부", "", True, True),
    ("고용보험법", "고용노동부", "", True, True),
    ("국민건강보험법", "보건복지부", "건강보험법", True, True),
    ("의료법", "보건복지부", "", True, True),
    ("약사법", "식품의약품안전처", "", True, True),
    ("식품위생법", "식품의약품안전처", "", True, True),
    ("개인정보 보호법", "개인정보보호위원회", "개인정보보호법", True, False),
    ("정보통신망 이용촉진 및 정보보호 등에 관한 법률", "과학기술정보통신부", "정보통신망법", True, True),
    ("전기통신사업법", "과학기술정보통신부", "", True, True),
    ("소득세법", "재정경제부", "", True, True),
    ("법인세법", "재정경제부", "", True, True),
    ("부가가치세법", "재정경제부", "", True, True),
    ("관세법", "재정경제부", "", True, True),
    ("국세기본법", "재정경제부", "", True, True),
    ("지방세법", "행정안전부", "", True, True),
    ("지방자치법", "행정안전부", "", True, True),
    ("공직선거법", "중앙선거관리위원회", "", False, False),
    ("정당법", "중앙선거관리위원회", "", False, False),
    ("국가공무원법", "인사혁신처", "", False, False),
    ("초ㆍ중등교육법", "교육부", "초중등교육법", True, True),
    ("고등교육법", "교육부", "", True, True),
    ("유아교육법", "교육부", "", True, True),
    ("학교급식법", "교육부", "", True, True),
    ("학교폭력예방 및 대책에 관한 법률", "교육부", "학교폭력예방법", True, False),
    ("환경정책기본법", "기후에너지환경부", "", True, True),
    ("대기환경보전법", "기후에너지환경부", "", True, True),
    ("물환경보전법", "기후에너지환경부", "", True, True),
    ("폐기물관리법", "기후에너지환경부", "", True, True),
    ("자본시장과 금융투자업에 관한 법률", "금융위원회", "자본시장법", True, True),
    ("은행법", "금융위원회", "", True, False),
    ("여신전문금융업법", "금융위원회", "", True, True),
    ("독점규제 및 공정거래에 관한 법률", "공정거래위원회", "공정거래법", True, False),
    ("전자상거래 등에서의 소비자보호에 관한 법률", "공정거래위원회", "전자상거래법", True, True),
    ("하도급거래 공정화에 관한 법률", "공정거래위원회", "하도급법", True, False),
    ("저작권법", "문화체육관광부", "", True, True),
    ("관광진흥법", "문화체육관광부", "", True, True),
    ("농지법", "농림축산식품부", "", True, True),
    ("축산법", "농림축산식품부", "", True, True),
    ("수산업법", "해양수산부", "", True, True),
    ("해운법", "해양수산부", "", True, True),
    ("전기사업법", "산업통상부", "", True, True),
    ("중소기업기본법", "중소벤처기업부", "", True, False),
    ("병역법", "병무청", "", True, True),
    ("군인사법", "국방부", "", True, False),
    ("출입국관리법", "법무부", "", True, True),
    ("국적법", "법무부", "", True, True),
    ("부동산 거래신고 등에 관한 법률", "국토교통부", "부동산거래신고법", True, True),
    ("공인중개사법", "국토교통부", "", True, True),
    ("국토의 계획 및 이용에 관한 법률", "국토교통부", "국토계획법", True, True),
    ("도시 및 주거환경정비법", "국토교통부", "도시정비법", True, True),
    ("여객자동차 운수사업법", "국토교통부", "여객자동차법", True, True),
    ("항공안전법", "국토교통부", "", True, True),
    ("소방기본법", "소방청", "", True, True),
    ("재난 및 안전관리 기본법", "행정안전부", "재난안전법", True, True),
    ("주민등록법", "행정안전부", "", True, True),
    ("청소년 보호법", "성평등가족부", "청소년보호법", True, True),
    ("아동복지법", "보건복지부", "", True, True),
    ("국민연금법", "보건복지부", "", True, True),
    ("장애인복지법", "보건복지부", "", True, True),
    ("감염병의 예방 및 관리에 관한 법률", "질병관리청", "감염병예방법", True, True),
    ("공공데이터의 제공 및 이용 활성화에 관한 법률", "행정안전부", "공공데이터법", True, False),
    ("전자정부법", "행정안전부", "", True, True),
    ("행정기본법", "법제처", "", True, False),
    ("국가유산기본법", "국가유산청", "", True, True),
)
# For worlds bigger than the real table: synthetic statutes named like real ones.
_TOPICS = (
    "청년",
    "스마트도시",
    "수소경제",
    "인공지능",
    "데이터산업",
    "반려동물",
    "전통시장",
    "문화예술",
    "해양관광",
    "우주개발",
    "바이오헬스",
    "전기자동차",
    "탄소중립",
    "국가첨단전략산업",
    "지역균형발전",
    "농어촌",
    "산림",
    "재생에너지",
    "소상공인",
    "사회적기업",
    "평생교육",
    "디지털포용",
    "정보보호산업",
    "물류",
    "항만",
    "철도",
    "도시농업",
    "치매관리",
    "자살예방",
    "건강기능식품",
    "의료기기",
    "화장품",
    "게임산업",
    "콘텐츠산업",
    "영화",
    "체육시설",
    "국제개발협력",
    "재외동포",
    "섬",
    "공간정보",
    "빈집",
    "마을기업",
    "어린이놀이시설",
    "해양공간",
    "반도체",
    "이차전지",
    "조선해양",
    "원자력안전",
    "지하수",
    "산악관광",
    "온천",
    "전통주",
    "김치산업",
    "인삼산업",
    "수목원",
    "동물원",
    "박물관",
    "도서관",
    "기록물관리",
    "공연예술",
    "웹툰",
    "방송통신발전",
    "전자문서",
    "클라우드컴퓨팅",
    "드론",
    "자율주행자동차",
    "스마트농업",
    "수산물유통",
    "가축전염병",
    "노인일자리",
    "장애인고용",
    "다문화가족",
    "한부모가족",
    "학교체육",
    "교육환경",
    "독서문화",
)
_TEMPLATES = (
    "{} 진흥법",
    "{} 육성 및 지원에 관한 법률",
    "{} 기본법",
    "{} 관리법",
    "{} 촉진법",
    "{} 지원에 관한 특별법",
    "{} 안전관리법",
    "{} 보호법",
    "{} 이용 활성화에 관한 법률",
    "{} 산업 진흥에 관한 법률",
)
_GOALS = (
    "국민의 안전과 복리 증진",
    "공공복리의 증진",
    "국민경제의 건전한 발전",
    "국민의 권익 보호",
    "국민의 삶의 질 향상",
)
_MIDDLE_ARTICLES = (
    "국가 등의 책무",
    "다른 법률과의 관계",
    "기본계획의 수립",
    "실태조사",
    "신고",
    "허가",
    "등록",
    "등록의 취소",
    "보고 및 검사",
    "청문",
    "권한의 위임ㆍ위탁",
    "수수료",
    "비밀 유지 의무",
    "손실보상",
    "업무의 위탁",
    "자료의 제출 요청",
)
_DECREE_ARTICLES = (
    "기본계획의 내용",
    "신고의 절차",
    "허가의 기준",
    "등록의 요건",
    "권한의 위임",
    "수수료",
    "고유식별정보의 처리",
    "과태료의 부과기준",
)
_RULE_ARTICLES = ("신고서의 서식", "허가신청서 등", "등록증의 발급", "수수료의 납부방법", "서식", "규제의 재검토")
_CIRCLED = "①②③④⑤⑥⑦⑧⑨⑩"

#: courts that hear ordinary (민사·형사) and administrative (행정·세무) cases; 대법원 code 400201, others 400202
_ORDINARY_COURTS = (
    "대법원",
    "대법원",
    "대법원",
    "서울고등법원",
    "부산고등법원",
    "대전고등법원",
    "서울중앙지방법원",
    "수원지방법원",
    "대구지방법원",
    "광주지방법원",
)
_ADMIN_COURTS = ("대법원", "대법원", "대법원", "서울고등법원", "부산고등법원", "서울행정법원", "서울행정법원")
# 사건종류 → (사건종류코드, case letters at 대법원 / 고등법원 / 지방·행정법원)
_CASE_KINDS = {
    "민사": ("400101", "다", "나", "가합"),
    "형사": ("400102", "도", "노", "고단"),
    "일반행정": ("400107", "두", "누", "구합"),
    "세무": ("400103", "두", "누", "구합"),
}
_CIVIL_NAMES = (
    "손해배상(기)",
    "부당이득금",
    "소유권이전등기",
    "임대차보증금",
    "해고무효확인",
    "구상금",
    "임금",
    "건물명도(인도)",
    "채무부존재확인",
)
_NON_PENAL = {"민법", "민사소송법", "형사소송법"}
_PENAL_CODE_CRIMES = ("사기", "절도", "상해", "업무방해", "횡령", "배임", "명예훼손")
_ADMIN_NAMES = (
    "영업정지처분취소",
    "자동차운전면허취소처분취소",
    "건축허가취소처분취소",
    "과징금부과처분취소",
    "요양급여비용환수처분취소",
    "시정명령취소",
    "개발행위허가신청불허가처분취소",
)
_TAX_NAMES = (
    "법인세부과처분취소",
    "부가가치세부과처분취소",
    "종합소득세부과처분취소",
    "양도소득세부과처분취소",
    "관세등부과처분취소",
)
#: what a criminal case name adds after "…위반" for some statutes
_CRIME_DETAILS = {
    "도로교통법": ("(음주운전)", "(무면허운전)", "(사고후미조치)", ""),
    "정보통신망 이용촉진 및 정보보호 등에 관한 법률": ("(명예훼손)", "(음란물유포)", ""),
}

_ADMRUL_KINDS = (
    ("훈령", "1", "{} 업무처리규정"),
    ("예규", "2", "{} 사무처리 예규"),
    ("고시", "3", "{}에 관한 고시"),
    ("고시", "3", "{} 기준"),
    ("공고", "4", "{} 시행계획 공고"),
    ("지침", "5", "{} 운영지침"),
)
_ORDIN_TITLES = (
    ("조례", "주차장 설치 및 관리 조례"),
    ("조례", "공유재산 관리 조례"),
    ("조례", "청년 기본 조례"),
    ("조례", "도시계획 조례"),
    ("조례", "주민자치회 설치ㆍ운영에 관한 조례"),
    ("조례", "출산장려금 지원 조례"),
    ("규칙", "공영주차장 관리 규칙"),
    ("조례", "건축 조례"),
    ("조례", "노인복지관 설치 및 운영 조례"),
    ("규칙", "재난안전대책본부 운영 규칙"),
    ("조례", "학교급식 지원에 관한 조례"),
    ("규칙", "민영주차장 설치자금 융자 및 보조금 시행규칙"),
)
_ORDIN_FIELDS = (
    "제1장 일반행정",
    "제2장 재무",
    "제3장 복지",
    "제4장 교육ㆍ문화",
    "제5장 맑은도시",
    "제6장 산업ㆍ경제",
    "제7장 보건ㆍ환경",
)
#: (year, 공포번호) anchors of the real numbering of 법률 and 대통령령
_NUMBER_ANCHORS = {
    "법률": (
        (1948, 1),
        (1960, 500),
        (1980, 3300),
        (1990, 4200),
        (2000, 6300),
        (2010, 10000),
        (2020, 17000),
        (2026, 21300),
    ),
    "대통령령": ((1948, 1), (1980, 10000), (1990, 13000), (2000, 17000), (2010, 22000), (2020, 30000), (2026, 35900)),
}
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
            out.append(Statute(f"{law_id:06d}", name, abbrev, kind, ministry, parent, tuple(versions)))
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
        """(name, kind, ministry, parent, abbrev) of the first ``size`` statutes: each family's 법률, 시행령, 시행규칙."""
        chosen: list[tuple[str, str, str, str | None, str]] = []
        for name, ministry, abbrev, decree, rule in families:
            if len(chosen) >= size:
                break
            chosen.append((name, "법률", ministry, None, abbrev))
            if decree and len(chosen) < size:
                chosen.append((f"{name} 시행령", "대통령령", ministry, name, ""))
            if rule and len(chosen) < size:
                chosen.append((f"{name} 시행규칙", "총리령" if ministry in _PM_RULES else "부령", ministry, name, ""))
        return chosen

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
    def acts(self) -> tuple[Statute, ...]:
        """The 법률 only (what precedents, bills and interpretations are about)."""
        return tuple(s for s in self.statutes if s.kind == "법률")

    def articles(self, statute: Statute, version: LawVersion) -> list[dict]:
        """조문단위 of one version: chapter headings and articles with their 항."""
        rng = self._world.rng("laws.articles", version.mst)
        subject = _subject(statute.parent or statute.name)
        parent = statute.parent
        if statute.kind == "법률":
            titles = ["목적", "정의"] + [
                _MIDDLE_ARTICLES[int(i)]
                for i in sorted(rng.choice(len(_MIDDLE_ARTICLES), int(rng.integers(4, 10)), replace=False))
            ]
            titles += ["벌칙", "양벌규정", "과태료"]
        elif statute.kind == "대통령령":
            titles = ["목적"] + [
                _DECREE_ARTICLES[int(i)]
                for i in sorted(rng.choice(len(_DECREE_ARTICLES), int(rng.integers(3, 7)), replace=False))
            ]
        else:
            titles = ["목적"] + [
                _RULE_ARTICLES[int(i)]
                for i in sorted(rng.choice(len(_RULE_ARTICLES), int(rng.integers(2, 5)), replace=False))
            ]
        enforced = version.enforced.strftime("%Y%m%d")
        units: list[dict] = []
        chapter_at = {0: "제1장 총칙"}
        if statute.kind == "법률":
            chapter_at[2] = f"제2장 {subject}의 관리"
            chapter_at[len(titles) - 3] = "제3장 벌칙"
        for index, title in enumerate(titles):
            number = index + 1
            if index in chapter_at:
                units.append(
                    {
                        "조문키": f"{number:04d}000",
                        "조문번호": str(number),
                        "조문여부": "전문",
                        "조문제목": None,
                        "조문시행일자": enforced,
                        "조문내용": chapter_at[index],
                    }
                )
            unit = {
                "조문키": f"{number:04d}001",
                "조문번호": str(number),
                "조문여부": "조문",
                "조문제목": title,
                "조문시행일자": enforced,
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
            references = [(law.name, int(rng.integers(1, 160)))]
            if rng.random() < 0.5:
                other = acts[int(rng.integers(len(acts)))]
                references.append((other.name, int(rng.integers(1, 120))))
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
        for draft in drafts:
            earlier = [p for p in out if p.court == "대법원" and p.decided < draft[3]]
            cited = ""
            if earlier and rng.random() < 0.4:
                prior = earlier[int(rng.integers(len(earlier)))]
                cited = f"대법원 {prior.decided.year}. {prior.decided.month}. {prior.decided.day}. 선고 {prior.case_no} {prior.judgment}"
            out.append(Precedent(f"{draft[0]:06d}", *draft[1:], cited))
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
        for _ in range(self._world.sizes.laws):
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
        return tuple(sorted(out, key=lambda r: r.name))

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
            article = int(rng.integers(2, 60))
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
        return tuple(sorted(out, key=lambda x: x.title))
