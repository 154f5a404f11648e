"""Administrative regions: 시도, 시군구 and 법정동 with 10-digit codes, and populations.

The 17 시도 and their 시군구 carry real names and 법정동 codes (every 시군구 of
Seoul, Gyeonggi and the metropolitan cities, a representative subset of each
province's); every 읍면동 is generated from the seed. A 법정동 code is
``sido(2) + sgg(3) + umd(3) + ri(2)``; LAWD_CD is its first five digits.

At the ``full`` size the tree has the real country's shape (행안부 법정동코드, the existing codes): every
시·군·자치구 (229 units; a city's 일반구 are folded into the city, which holds their 읍면동), each with its
real number of 동, 읍 and 면 (5,066 in all) and of 리 under its 읍·면 (15,212), names still drawn from the
seed. The abolished codes of the full list (25,781 of 46,345 rows) are not generated: the code list service
never sends them. The default size keeps the small tree the tests use, unchanged.
"""

from __future__ import annotations

import datetime as dt
from bisect import bisect_right
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING, Union

if TYPE_CHECKING:
    from kopa_replay.sim.world import World

__all__ = ["Sido", "Sigungu", "Dong", "Ri", "RegionWorld", "LegalRegister", "SIDO_TABLE"]

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


#: The full size's 시·군·구: ``code name 동 읍 면 리`` — the existing 읍면동 and 리 under each in 행안부's
#: 법정동코드 list (WooilJeong/PublicDataReader raw/code_bdong.json, 46,345 rows; 강원 42→51 and 전북 45→52 as
#: renumbered in 2023–24; 일반구 folded into their city, 출장소 rows left out).
_FULL_UNITS = """
11110 종로구 87 0 0 0
11140 중구 74 0 0 0
11170 용산구 36 0 0 0
11200 성동구 17 0 0 0
11215 광진구 7 0 0 0
11230 동대문구 10 0 0 0
11260 중랑구 6 0 0 0
11290 성북구 39 0 0 0
11305 강북구 4 0 0 0
11320 도봉구 4 0 0 0
11350 노원구 5 0 0 0
11380 은평구 11 0 0 0
11410 서대문구 20 0 0 0
11440 마포구 26 0 0 0
11470 양천구 3 0 0 0
11500 강서구 13 0 0 0
11530 구로구 10 0 0 0
11545 금천구 3 0 0 0
11560 영등포구 34 0 0 0
11590 동작구 9 0 0 0
11620 관악구 3 0 0 0
11650 서초구 10 0 0 0
11680 강남구 14 0 0 0
11710 송파구 13 0 0 0
11740 강동구 9 0 0 0
26110 중구 41 0 0 0
26140 서구 24 0 0 0
26170 동구 4 0 0 0
26200 영도구 21 0 0 0
26230 부산진구 11 0 0 0
26260 동래구 9 0 0 0
26290 남구 6 0 0 0
26320 북구 5 0 0 0
26350 해운대구 8 0 0 0
26380 사하구 8 0 0 0
26410 금정구 13 0 0 0
26440 강서구 22 0 0 0
26470 연제구 2 0 0 0
26500 수영구 5 0 0 0
26530 사상구 8 0 0 0
26710 기장군 0 4 1 62
27110 중구 57 0 0 0
27140 동구 45 0 0 0
27170 서구 9 0 0 0
27200 남구 3 0 0 0
27230 북구 31 0 0 0
27260 수성구 26 0 0 0
27290 달서구 24 0 0 0
27710 달성군 0 6 3 95
28110 중구 52 0 0 0
28140 동구 7 0 0 0
28177 미추홀구 7 0 0 0
28185 연수구 6 0 0 0
28200 남동구 11 0 0 0
28237 부평구 9 0 0 0
28245 계양구 23 0 0 0
28260 서구 21 0 0 0
28710 강화군 0 1 12 96
28720 옹진군 0 0 7 26
29110 동구 34 0 0 0
29140 서구 18 0 0 0
29155 남구 30 0 0 0
29170 북구 41 0 0 0
29200 광산구 79 0 0 0
30110 동구 45 0 0 0
30140 중구 26 0 0 0
30170 서구 27 0 0 0
30200 유성구 53 0 0 0
30230 대덕구 26 0 0 0
31110 중구 18 0 0 0
31140 남구 19 0 0 0
31170 동구 8 0 0 0
31200 북구 27 0 0 0
31710 울주군 0 6 6 118
36110 세종시 23 1 9 117
41110 수원시 56 0 0 0
41130 성남시 44 0 0 0
41150 의정부시 13 0 0 0
41170 안양시 7 0 0 0
41190 부천시 24 0 0 0
41210 광명시 8 0 0 0
41220 평택시 28 4 5 109
41250 동두천시 12 0 0 0
41270 안산시 30 0 0 0
41280 고양시 53 0 0 0
41290 과천시 10 0 0 0
41310 구리시 7 0 0 0
41360 남양주시 11 6 3 49
41370 오산시 24 0 0 0
41390 시흥시 31 0 0 0
41410 군포시 9 0 0 0
41430 의왕시 11 0 0 0
41450 하남시 24 0 0 0
41460 용인시 35 4 3 72
41480 파주시 22 4 9 106
41500 이천시 15 2 8 117
41550 안성시 33 1 11 158
41570 김포시 9 3 3 57
41590 화성시 25 4 9 169
41610 광주시 20 2 4 62
41630 양주시 17 1 4 37
41650 포천시 6 1 11 82
41670 여주시 23 1 8 123
41800 연천군 0 2 8 103
41820 가평군 0 1 5 61
41830 양평군 0 1 11 110
43110 청주시 82 3 10 243
43130 충주시 26 1 12 136
43150 제천시 28 1 7 113
43720 보은군 0 1 10 174
43730 옥천군 0 1 8 125
43740 영동군 0 1 10 131
43745 증평군 0 1 1 27
43750 진천군 0 2 5 83
43760 괴산군 0 1 10 126
43770 음성군 0 2 7 115
43800 단양군 0 2 6 108
44130 천안시 31 4 8 148
44150 공주시 27 1 9 161
44180 보령시 10 1 10 101
44200 아산시 19 2 9 144
44210 서산시 14 1 9 125
44230 논산시 11 2 11 174
44250 계룡시 1 0 3 14
44270 당진시 11 2 9 138
44710 금산군 0 1 9 106
44760 부여군 0 1 15 191
44770 서천군 0 2 11 172
44790 청양군 0 1 9 115
44800 홍성군 0 3 8 141
44810 예산군 0 2 10 177
44825 태안군 0 2 6 65
46110 목포시 64 0 0 0
46130 여수시 51 1 6 63
46150 순천시 33 1 10 163
46170 나주시 34 1 12 154
46230 광양시 10 1 6 59
46710 담양군 0 1 11 140
46720 곡성군 0 1 10 125
46730 구례군 0 1 7 69
46770 고흥군 0 2 14 131
46780 보성군 0 2 10 126
46790 화순군 0 1 12 188
46800 장흥군 0 3 7 136
46810 강진군 0 1 10 112
46820 해남군 0 1 13 178
46830 영암군 0 2 9 121
46840 무안군 0 3 6 104
46860 함평군 0 1 8 104
46870 영광군 0 3 8 127
46880 장성군 0 1 10 123
46890 완도군 0 3 9 89
46900 진도군 0 1 6 98
46910 신안군 0 2 12 143
47110 포항시 41 4 10 196
47130 경주시 44 4 8 142
47150 김천시 20 1 14 150
47170 안동시 42 1 13 175
47190 구미시 30 3 5 98
47210 영주시 13 1 9 94
47230 영천시 30 1 10 179
47250 상주시 36 1 17 200
47280 문경시 11 2 7 119
47290 경산시 28 3 5 137
47720 군위군 0 1 7 92
47730 의성군 0 1 17 182
47750 청송군 0 1 7 86
47760 영양군 0 1 5 74
47770 영덕군 0 1 8 118
47820 청도군 0 2 7 127
47830 고령군 0 1 7 96
47840 성주군 0 1 9 111
47850 칠곡군 0 3 5 73
47900 예천군 0 1 11 173
47920 봉화군 0 1 9 72
47930 울진군 0 2 8 80
47940 울릉군 0 1 2 10
48120 창원시 196 2 6 113
48170 진주시 33 1 15 124
48220 통영시 17 1 6 50
48240 사천시 27 1 7 90
48250 김해시 34 1 6 67
48270 밀양시 8 2 9 119
48310 거제시 14 0 9 75
48330 양산시 21 1 4 37
48720 의령군 0 1 12 116
48730 함안군 0 2 8 88
48740 창녕군 0 2 12 139
48820 고성군 0 1 13 119
48840 남해군 0 1 9 79
48850 하동군 0 1 12 108
48860 산청군 0 1 10 119
48870 함양군 0 1 10 103
48880 거창군 0 1 11 94
48890 합천군 0 1 16 192
50110 제주시 40 4 3 90
50130 서귀포시 22 3 2 51
51110 춘천시 29 1 9 78
51130 원주시 18 1 8 60
51150 강릉시 39 1 7 65
51170 동해시 36 0 0 0
51190 태백시 17 0 0 0
51210 속초시 13 0 0 0
51230 삼척시 27 2 6 101
51720 홍천군 0 1 9 105
51730 횡성군 0 1 8 110
51750 영월군 0 2 7 57
51760 평창군 0 1 7 89
51770 정선군 0 4 5 59
51780 철원군 0 4 7 80
51790 화천군 0 1 4 40
51800 양구군 0 1 4 60
51810 인제군 0 1 5 44
51820 고성군 0 2 4 88
51830 양양군 0 1 5 120
52110 전주시 83 0 0 0
52130 군산시 52 1 10 76
52140 익산시 36 1 14 114
52180 정읍시 27 1 14 142
52190 남원시 23 1 15 157
52210 김제시 30 1 14 121
52710 완주군 0 3 10 106
52720 진안군 0 1 10 77
52730 무주군 0 1 5 48
52740 장수군 0 1 6 73
52750 임실군 0 1 11 131
52770 순창군 0 1 10 131
52790 고창군 0 1 13 189
52800 부안군 0 1 12 99
"""


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


@dataclass(frozen=True)
class Ri:
    code: str  # 10 digits: its 읍·면's first 8 and 21, 22 …
    name: str  # 송정리
    dong: Dong  # the 읍 or 면 it lies in
    adopted: dt.date

    @property
    def full_name(self) -> str:
        return f"{self.dong.full_name} {self.name}"


Region = Union[Sido, Sigungu, Dong, Ri]


class LegalRegister:
    """Every existing 법정동 code in code order: its region, parent code and place among its siblings.

    ``find`` looks a part of a full name up in one string of all the names (C-speed, no per-row Python), so a
    search costs one pass over the names and its matches; the rows themselves are made by the caller, per page.
    """

    def __init__(self, regions: dict[str, Region]) -> None:
        self.codes = sorted(regions)
        self.regions = [regions[code] for code in self.codes]
        self.parents: list[str] = []
        self.order: list[int] = []
        seen: dict[str, int] = {}
        for region in self.regions:
            parent = _parent_code(region)
            seen[parent] = seen.get(parent, 0) + 1
            self.parents.append(parent)
            self.order.append(seen[parent])
        names = [_full_name(region) for region in self.regions]
        self._text = "\n".join(names) + "\n"
        self._starts = [0]
        for name in names:
            self._starts.append(self._starts[-1] + len(name) + 1)

    def __len__(self) -> int:
        return len(self.codes)

    def find(self, part: str) -> list[int]:
        """The indices of the codes whose full name contains ``part`` (부분일치), in code order."""
        if "\n" in part:
            return []
        if not part:
            return list(range(len(self.codes)))
        found, pos = [], self._text.find(part)
        while pos >= 0:
            index = bisect_right(self._starts, pos) - 1
            found.append(index)
            pos = self._text.find(part, self._starts[index + 1])
        return found


def _full_name(region: Region) -> str:
    return region.name if isinstance(region, Sido) else region.full_name


def _parent_code(region: Region) -> str:
    if isinstance(region, Sido):
        return "0000000000"
    if isinstance(region, Sigungu):
        return region.sido.region_cd
    if isinstance(region, Dong):
        return region.sigungu.region_cd
    return region.dong.code


def _umd_numbers(dongs: int, eups: int, myeons: int) -> list[int]:
    """The 3-digit 읍면동 parts of a 시군구's codes as 행안부 numbers them: 동 from 101, 읍 from 250, 면 from 310."""
    numbers = [101 + i for i in range(dongs)]
    start = max(250, numbers[-1] + 1 if numbers else 250)
    step = 3 if start + 3 * eups <= 310 else 1
    numbers += [start + step * i for i in range(eups)]
    start = max(310, numbers[-1] + 1 if numbers else 310)
    step = 10 if start + 10 * myeons <= 1000 else 1
    return numbers + [start + step * i for i in range(myeons)]


class RegionWorld:
    """The seeded region tree and its monthly resident populations."""

    def __init__(self, world: "World") -> None:
        self._world = world

    @cached_property
    def _full(self) -> bool:
        """Whether the tree has the real country's shape (the ``full`` world)."""
        return self._world.size == "full"

    @cached_property
    def _units(self) -> dict[tuple[str, str], tuple[str, int, int, int, int]]:
        """(시도 code, name) → (code, 동, 읍, 면, 리) of every real 시·군·구 (``_FULL_UNITS``)."""
        out = {}
        for line in _FULL_UNITS.strip().splitlines():
            code, name, dong, eup, myeon, ri = line.split()
            out[(code[:2], name)] = (code, int(dong), int(eup), int(myeon), int(ri))
        return out

    @cached_property
    def sido(self) -> tuple[Sido, ...]:
        return tuple(Sido(*row) for row in SIDO_TABLE)

    @cached_property
    def sigungu(self) -> tuple[Sigungu, ...]:
        # Real names and codes everywhere; outside Seoul, Gyeonggi and the metropolitan cities only a
        # representative subset of each province's 시군, enough for every platform to bind across.
        listed = tuple(
            Sigungu(sido.code + suffix, name, sido) for sido in self.sido for suffix, name in _REAL_SIGUNGU[sido.code]
        )
        if not self._full:
            return listed
        # the full world adds every other real 시·군·구, after its province's listed ones
        known = {(s.sido.code, s.name) for s in listed}
        out: list[Sigungu] = []
        for sido in self.sido:
            out += [s for s in listed if s.sido is sido]
            more = sorted((code, name) for (sd, name), (code, *_) in self._units.items() if sd == sido.code)
            out += [Sigungu(code, name, sido) for code, name in more if (sido.code, name) not in known]
        return tuple(out)

    @cached_property
    def dongs(self) -> tuple[Dong, ...]:
        if self._full:
            return self._full_tree[0]
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
    def ris(self) -> tuple[Ri, ...]:
        """The 리 under the 읍·면 (the full world only; the default tree has none)."""
        return self._full_tree[1] if self._full else ()

    @staticmethod
    def _name(stems: list[int], i: int, suffix: str) -> str:
        """The i-th name of a drawn order of stems: 청운동 …, then 청운1가 … once the stems run out."""
        stem = _DONG_STEMS[stems[i % len(stems)]]
        turn = i // len(stems)
        return stem + suffix if not turn else f"{stem}{turn}{'가' if suffix == '동' else suffix}"

    @cached_property
    def _full_tree(self) -> tuple[tuple[Dong, ...], tuple[Ri, ...]]:
        """Every 시·군·구's real number of 동, 읍, 면 and 리, named and dated from the seed."""
        rng = self._world.rng("regions.full_tree")
        dongs: list[Dong] = []
        ris: list[Ri] = []
        for sgg in self.sigungu:
            _, n_dong, n_eup, n_myeon, n_ri = self._units[(sgg.sido.code, sgg.name)]
            stems = [int(i) for i in rng.permutation(len(_DONG_STEMS))]
            kinds = ["동"] * n_dong + ["읍"] * n_eup + ["면"] * n_myeon
            mine: list[Dong] = []
            for i, (number, kind) in enumerate(zip(_umd_numbers(n_dong, n_eup, n_myeon), kinds)):
                adopted = dt.date(1988, 4, 23) + dt.timedelta(days=int(rng.integers(0, 12000)))
                mine.append(Dong(f"{sgg.code}{number:03d}00", self._name(stems, i, kind), sgg, adopted))
            dongs += mine
            rural = [d for d in mine if d.name[-1] in "읍면"]
            if not rural or not n_ri:
                continue
            # every 읍·면 has a 리 or more; the rest spread unevenly, at most 79 to one (codes 21 … 99)
            counts = [1] * len(rural)
            for i in rng.choice(len(rural), size=max(0, n_ri - len(rural)), p=rng.dirichlet([1.5] * len(rural))):
                counts[int(i) if counts[int(i)] < 79 else counts.index(min(counts))] += 1
            for dong, count in zip(rural, counts[:n_ri]):
                ri_stems = [int(i) for i in rng.permutation(len(_DONG_STEMS))]
                for k in range(count):
                    adopted = dt.date(1988, 4, 23) + dt.timedelta(days=int(rng.integers(0, 12000)))
                    ris.append(Ri(f"{dong.code[:8]}{21 + k:02d}", self._name(ri_stems, k, "리"), dong, adopted))
        return tuple(dongs), tuple(ris)

    @cached_property
    def register(self) -> LegalRegister:
        """Every existing 법정동 code (시도, 시군구, 읍면동 and, in the full world, 리) as the code list holds it."""
        return LegalRegister({**self.by_code, **{ri.code: ri for ri in self.ris}})

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
        # the full tree's many small 법정동 share the real 51 million (≈10,000 a dong)
        base = int(rng.integers(500, 19_700)) if self._full else int(rng.integers(2_000, 60_000))
        start = dt.date(2024, 1, 1)
        months = (int(month[:4]) - start.year) * 12 + int(month[4:6]) - 1
        drift = rng.normal(0, 0.004, size=max(months + 1, 1)).cumsum()
        total = int(base * (1 + drift[months])) if months >= 0 else base
        male = int(total * (0.47 + 0.06 * float(rng.random())))
        households = int(total / (1.9 + 0.8 * float(rng.random())))
        return {"total": total, "male": male, "female": total - male, "households": households}
