"""Administrative regions: 시도, 시군구 and 법정동 with 10-digit codes, and populations.

The 17 시도 and their 시군구 carry real names and 법정동 codes (every 시군구 of
Seoul, Gyeonggi and the metropolitan cities, a representative subset of each
province's); every 읍면동 is generated from the seed. A 법정동 code is
``sido(2) + sgg(3) + umd(3) + ri(2)``; LAWD_CD is its first five digits.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from kopa_replay.sim.world import World

__all__ = ["Sido", "Sigungu", "Dong", "RegionWorld", "SIDO_TABLE"]

#: (2-digit code, full name, short name, NEIS office code, english)
SIDO_TABLE = (
    ("11", "서울특별시", "서울", "B10", "Seoul"),
    ("26", "부산광역시", "부산", "C10", "Busan"),
    ("27", "대구광역시", "대구", "D10", "Daegu"),
    ("28", "인천광역시", "인천", "E10", "Incheon"),
    ("29", "광주광역시", "광주", "F10", "Gwangju"),
    ("30", "대전광역시", "대전", "G10", "Daejeon"),
    ("31", "울산광역시", "울산", "H10", "Ulsan"),
    ("36", "세종특별자치시", "세종", "I10", "Sejong"),
    ("41", "경기도", "경기", "J10", "Gyeonggi"),
    ("51", "강원특별자치도", "강원", "K10", "Gangwon"),
    ("43", "충청북도", "충북", "M10", "Chungbuk"),
    ("44", "충청남도", "충남", "N10", "Chungnam"),
    ("52", "전북특별자치도", "전북", "P10", "Jeonbuk"),
    ("46", "전라남도", "전남", "Q10", "Jeonnam"),
    ("47", "경상북도", "경북", "R10", "Gyeongbuk"),
    ("48", "경상남도", "경남", "S10", "Gyeongnam"),
    ("50", "제주특별자치도", "제주", "T10", "Jeju"),
)

_REAL_SIGUNGU = {
    "11": [
        ("110", "종로구"),
        ("140", "중구"),
        ("170", "용산구"),
        ("200", "성동구"),
        ("215", "광진구"),
        ("230", "동대문구"),
        ("260", "중랑구"),
        ("290", "성북구"),
        ("305", "강북구"),
        ("320", "도봉구"),
        ("350", "노원구"),
        ("380", "은평구"),
        ("410", "서대문구"),
        ("440", "마포구"),
        ("470", "양천구"),
        ("500", "강서구"),
        ("530", "구로구"),
        ("545", "금천구"),
        ("560", "영등포구"),
        ("590", "동작구"),
        ("620", "관악구"),
        ("650", "서초구"),
        ("680", "강남구"),
        ("710", "송파구"),
        ("740", "강동구"),
    ],
    "41": [
        ("110", "수원시"),
        ("130", "성남시"),
        ("150", "의정부시"),
        ("170", "안양시"),
        ("190", "부천시"),
        ("210", "광명시"),
        ("220", "평택시"),
        ("250", "동두천시"),
        ("270", "안산시"),
        ("280", "고양시"),
        ("290", "과천시"),
        ("310", "구리시"),
        ("360", "남양주시"),
        ("370", "오산시"),
        ("390", "시흥시"),
        ("410", "군포시"),
        ("430", "의왕시"),
        ("450", "하남시"),
        ("460", "용인시"),
        ("480", "파주시"),
        ("500", "이천시"),
        ("550", "안성시"),
        ("570", "김포시"),
        ("590", "화성시"),
        ("610", "광주시"),
        ("630", "양주시"),
        ("650", "포천시"),
        ("670", "여주시"),
        ("800", "연천군"),
        ("820", "가평군"),
        ("830", "양평군"),
    ],
    "36": [("110", "세종시")],
    "26": [
        ("110", "중구"),
        ("140", "서구"),
        ("170", "동구"),
        ("200", "영도구"),
        ("230", "부산진구"),
        ("260", "동래구"),
        ("290", "남구"),
        ("320", "북구"),
        ("350", "해운대구"),
        ("380", "사하구"),
        ("410", "금정구"),
        ("440", "강서구"),
        ("470", "연제구"),
        ("500", "수영구"),
        ("530", "사상구"),
        ("710", "기장군"),
    ],
    "27": [
        ("110", "중구"),
        ("140", "동구"),
        ("170", "서구"),
        ("200", "남구"),
        ("230", "북구"),
        ("260", "수성구"),
        ("290", "달서구"),
        ("710", "달성군"),
    ],
    "28": [
        ("110", "중구"),
        ("140", "동구"),
        ("177", "미추홀구"),
        ("185", "연수구"),
        ("200", "남동구"),
        ("237", "부평구"),
        ("245", "계양구"),
        ("260", "서구"),
        ("710", "강화군"),
        ("720", "옹진군"),
    ],
    "29": [("110", "동구"), ("140", "서구"), ("155", "남구"), ("170", "북구"), ("200", "광산구")],
    "30": [("110", "동구"), ("140", "중구"), ("170", "서구"), ("200", "유성구"), ("230", "대덕구")],
    "31": [("110", "중구"), ("140", "남구"), ("170", "동구"), ("200", "북구"), ("710", "울주군")],
    "51": [
        ("110", "춘천시"),
        ("130", "원주시"),
        ("150", "강릉시"),
        ("170", "동해시"),
        ("190", "태백시"),
        ("210", "속초시"),
        ("230", "삼척시"),
        ("720", "홍천군"),
    ],
    "43": [
        ("111", "청주시"),
        ("130", "충주시"),
        ("150", "제천시"),
        ("720", "보은군"),
        ("730", "옥천군"),
        ("740", "영동군"),
    ],
    "44": [
        ("131", "천안시"),
        ("150", "공주시"),
        ("180", "보령시"),
        ("200", "아산시"),
        ("210", "서산시"),
        ("230", "논산시"),
        ("760", "부여군"),
    ],
    "52": [
        ("111", "전주시"),
        ("130", "군산시"),
        ("140", "익산시"),
        ("180", "정읍시"),
        ("190", "남원시"),
        ("210", "김제시"),
        ("790", "고창군"),
    ],
    "46": [
        ("110", "목포시"),
        ("130", "여수시"),
        ("150", "순천시"),
        ("170", "나주시"),
        ("230", "광양시"),
        ("820", "해남군"),
    ],
    "47": [
        ("111", "포항시"),
        ("130", "경주시"),
        ("150", "김천시"),
        ("170", "안동시"),
        ("190", "구미시"),
        ("210", "영주시"),
        ("930", "울진군"),
    ],
    "48": [
        ("121", "창원시"),
        ("170", "진주시"),
        ("220", "통영시"),
        ("240", "사천시"),
        ("250", "김해시"),
        ("270", "밀양시"),
        ("880", "거창군"),
    ],
    "50": [("110", "제주시"), ("130", "서귀포시")],
}
_DONG_STEMS = (
    "청운",
    "신교",
    "궁정",
    "효자",
    "창성",
    "통의",
    "적선",
    "사직",
    "내수",
    "세종",
    "신문",
    "명륜",
    "혜화",
    "연지",
    "효제",
    "충신",
    "이화",
    "원남",
    "인의",
    "예지",
    "봉익",
    "신설",
    "용두",
    "제기",
    "전농",
    "답십리",
    "장안",
    "회기",
    "휘경",
    "이문",
    "상도",
    "흑석",
    "노량진",
    "대방",
    "신대방",
    "사당",
    "봉천",
    "신림",
    "남현",
    "서초",
    "방배",
    "양재",
    "우면",
    "원지",
    "반포",
    "잠원",
    "역삼",
    "개포",
    "청담",
    "삼성",
    "대치",
    "신사",
    "논현",
    "압구정",
    "세곡",
    "일원",
    "수서",
    "도곡",
    "매봉",
    "송정",
    "금곡",
    "정자",
    "구미",
    "서현",
    "이매",
    "야탑",
)


@dataclass(frozen=True)
class Sido:
    code: str  # 2 digits
    name: str  # 서울특별시
    short: str  # 서울
    office: str  # NEIS 시도교육청 code (B10 …)
    english: str

    @property
    def region_cd(self) -> str:
        return self.code + "00000000"


@dataclass(frozen=True)
class Sigungu:
    code: str  # 5 digits = LAWD_CD
    name: str  # 강남구
    sido: Sido

    @property
    def region_cd(self) -> str:
        return self.code + "00000"

    @property
    def full_name(self) -> str:
        return f"{self.sido.name} {self.name}"


@dataclass(frozen=True)
class Dong:
    code: str  # 10 digits (법정동 code)
    name: str  # 역삼동
    sigungu: Sigungu
    adopted: dt.date  # adpt_de: when the code took effect

    @property
    def full_name(self) -> str:
        return f"{self.sigungu.full_name} {self.name}"


class RegionWorld:
    """The seeded region tree and its monthly resident populations."""

    def __init__(self, world: "World") -> None:
        self._world = world

    @cached_property
    def sido(self) -> tuple[Sido, ...]:
        return tuple(Sido(*row) for row in SIDO_TABLE)

    @cached_property
    def sigungu(self) -> tuple[Sigungu, ...]:
        # Real names and codes everywhere; outside Seoul, Gyeonggi and the metropolitan cities only a
        # representative subset of each province's 시군, enough for every platform to bind across.
        return tuple(
            Sigungu(sido.code + suffix, name, sido) for sido in self.sido for suffix, name in _REAL_SIGUNGU[sido.code]
        )

    @cached_property
    def dongs(self) -> tuple[Dong, ...]:
        rng = self._world.rng("regions.dongs")
        per = self._world.sizes.dongs_per_sigungu
        out: list[Dong] = []
        for sgg in self.sigungu:
            count = int(rng.integers(max(2, per // 2), per + 1))
            stems = rng.choice(len(_DONG_STEMS), size=min(count, len(_DONG_STEMS)), replace=False)
            for i, stem in enumerate(stems):
                suffix = "동" if sgg.name.endswith("구") else ("읍" if i == 0 else "면")
                adopted = dt.date(1988, 4, 23) + dt.timedelta(days=int(rng.integers(0, 12000)))
                out.append(Dong(f"{sgg.code}{101 + i:03d}00", _DONG_STEMS[int(stem)] + suffix, sgg, adopted))
        return tuple(out)

    @cached_property
    def by_code(self) -> dict[str, Sido | Sigungu | Dong]:
        """Every region by its 10-digit code (시도 and 시군구 padded with zeros)."""
        table: dict[str, Sido | Sigungu | Dong] = {}
        for sido in self.sido:
            table[sido.region_cd] = sido
        for sgg in self.sigungu:
            table[sgg.region_cd] = sgg
        for dong in self.dongs:
            table[dong.code] = dong
        return table

    def sido_by_short(self, short: str) -> Sido | None:
        return next((s for s in self.sido if short in (s.short, s.name)), None)

    def sigungu_by_name(self, name: str) -> list[Sigungu]:
        return [s for s in self.sigungu if s.name == name or s.full_name == name]

    def sigungu_of(self, sido: Sido) -> list[Sigungu]:
        return [s for s in self.sigungu if s.sido is sido]

    def dongs_of(self, sgg: Sigungu) -> list[Dong]:
        return [d for d in self.dongs if d.sigungu is sgg]

    def population(self, dong: Dong, month: str) -> dict[str, int]:
        """Residents and households of a 법정동 in a month (``YYYYMM``); stable per (seed, dong, month)."""
        rng = self._world.rng("regions.population", dong.code)
        base = int(rng.integers(2_000, 60_000))
        start = dt.date(2024, 1, 1)
        months = (int(month[:4]) - start.year) * 12 + int(month[4:6]) - 1
        drift = rng.normal(0, 0.004, size=max(months + 1, 1)).cumsum()
        total = int(base * (1 + drift[months])) if months >= 0 else base
        male = int(total * (0.47 + 0.06 * float(rng.random())))
        households = int(total / (1.9 + 0.8 * float(rng.random())))
        return {"total": total, "male": male, "female": total - male, "households": households}
