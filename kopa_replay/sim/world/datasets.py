"""District datasets: Seoul Open Data Plaza and 경기데이터드림 rows, 행정동, apartments and their trades.

Dataset services are data, not code: the operation tables (``kopa_replay/sim/tables/seoul.yaml``, ``gg.yaml``)
declare the world tables (``datasets``: a family, its columns each with a generator *kind* and a kind-specific
argument, where the rows spread and their number relative to ``world.sizes.dataset_rows``) and the operations
that read them (service id, parameters, fields, filters). :func:`load_datasets` reads the declarations into
:class:`DatasetSpec`; :func:`dataset_table` is the world table the generic engine filters and cuts. A *family*
says how rows come about:

* ``facility`` — a register of places (animal hospitals, Wi-Fi spots …) spread
  over the 시군구 of one 시도, each row built column by column from a
  generated place (시군구, 법정동, road address, coordinates, zip). A licence
  date column hides rows licensed after the as-of date; a state column and a
  closing-date column follow the as-of date too.
  Dated kinds chain from the licence date: ``after_open`` and ``end_date`` ([min days, max days, strftime
  format]) each add days to the previous dated column (an event's first and last day, a reservation's reception
  window; ``end_date`` also closes the row for its ``state`` columns), ``joined`` writes earlier columns as one
  text (``2025-12-18~2025-12-21``); ``mapped`` names a code drawn in an earlier column; ``now_count`` and
  ``now_stamp`` are readings of the as-of date (cars parked now, out of a capacity column).
* ``gu_daily`` — one row per 시군구 per day of measures (air quality).
* ``subway_month`` — line × station of the ridership dataset per month, one column per hour and direction
  (``on``/``off`` with the hour), the month (``month``) a key and its load day (``job_day``).
* ``subway``, ``bus``, ``spop``, ``bike``, ``rent`` — the few Seoul services
  whose rows have their own structure (line × station per day, route × stop
  per day over the Seoul bus network of ``world.transit``, 행정동 × hour,
  bike stations now, rent contracts per 구 and year).

Adding a dataset of an existing family is a few lines of YAML and no code.

The same module holds what the 행안부/국토부 services need beyond
``world.regions``: 행정동 (administrative dongs, whose 8-digit codes the Seoul
living-population dataset uses and whose 10-digit 행정기관코드 the
population services return) and apartment complexes with their monthly trades.
"""

from __future__ import annotations

import calendar as _calendar
import datetime as dt
import math
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING, Any

from kopa_replay.sim.world import stable_int
from kopa_replay.sim.world.calendar import HOLIDAYS, ymd
from kopa_replay.sim.world.fmt import comma
from kopa_replay.sim.world.regions import Dong, Sigungu

if TYPE_CHECKING:
    import numpy as np

    from kopa_replay.sim.core import Query
    from kopa_replay.sim.world import World, WorldSizes

__all__ = [
    "Column",
    "DatasetSpec",
    "load_datasets",
    "dataset_table",
    "SUBWAY_LINES",
    "AdminDong",
    "Complex",
    "DatasetWorld",
    "month_range",
    "previous_month",
]


# ---------------------------------------------------------------------------
# Dataset tables (declared in the operation tables: kopa_replay/sim/tables/seoul.yaml, gg.yaml)
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Column:
    """One column of a world table: its name, how its values are made (kind) and the kind's argument."""

    name: str
    kind: str = "text"
    arg: Any = None


@dataclass(frozen=True)
class DatasetSpec:
    """A world table of dataset rows: a family, its columns and where and how many rows it spreads.

    ``label`` keys its random draws (the tool it was first drawn for keeps its values); ``area`` is the 2-digit
    시도 code whose 시군구 the rows spread over; ``scale`` multiplies ``world.sizes.dataset_rows`` (facilities).
    """

    name: str
    family: str
    columns: tuple[Column, ...] = ()
    label: str = ""
    area: str = "11"
    scale: float = 1.0

    def column(self, name: str) -> Column | None:
        return next((c for c in self.columns if c.name == name), None)

    def columns_of_kind(self, kind: str) -> list[Column]:
        return [c for c in self.columns if c.kind == kind]

    def size(self, sizes: "WorldSizes") -> int:
        return max(40, int(round(sizes.dataset_rows * self.scale)))


def _arg(value: Any) -> Any:
    # YAML lists become tuples: a column's argument is a constant of the table
    return tuple(_arg(v) for v in value) if isinstance(value, list) else value


def load_datasets(declared: Mapping[str, Mapping[str, Any]]) -> dict[str, DatasetSpec]:
    """The world tables an operation table declares under ``datasets``: name → {family, label, area, scale,
    columns: {NAME: [kind, arg]}}."""
    out = {}
    for name, d in declared.items():
        unknown = set(d) - {"family", "label", "area", "scale", "columns"}
        if unknown or d.get("family") not in _FAMILIES:
            raise ValueError(f"dataset {name}: unknown keys {sorted(unknown)} or family {d.get('family')!r}")
        columns = tuple(
            Column(c, *(_arg(v) for v in (spec or ["text"]))) for c, spec in (d.get("columns") or {}).items()
        )
        out[name] = DatasetSpec(
            name, d["family"], columns, str(d.get("label") or name), str(d.get("area", "11")), float(d.get("scale", 1))
        )
    return out


# ---------------------------------------------------------------------------
# Fixed tables
# ---------------------------------------------------------------------------

#: Seoul-area railway lines as CardSubwayStatsNew names them (LINE_NUM) with their stations (SUB_STA_NM).
SUBWAY_LINES: tuple[tuple[str, tuple[str, ...]], ...] = tuple(
    (line, tuple(stations.split()))
    for line, stations in (
        ("1호선", "서울역 시청 종각 종로3가 종로5가 동대문 동묘앞 신설동 제기동 청량리(서울시립대입구)"),
        (
            "2호선",
            "시청 을지로입구 을지로3가 을지로4가 동대문역사문화공원(DDP) 신당 상왕십리 왕십리(성동구청) 한양대 뚝섬 성수 "
            "건대입구 구의(광진구청) 강변(동서울터미널) 잠실나루 잠실(송파구청) 잠실새내 종합운동장 삼성(무역센터) 선릉 역삼 "
            "강남 교대(법원.검찰청) 서초 방배 사당 낙성대(강감찬) 서울대입구(관악구청) 봉천 신림 신대방 구로디지털단지 "
            "대림(구로구청) 신도림 문래 영등포구청 당산 합정 홍대입구 신촌 이대 아현 충정로(경기대입구) 용답 신답 "
            "용두(동대문구청) 신설동 도림천 양천구청 신정네거리 까치산",
        ),
        (
            "3호선",
            "지축 구파발 연신내 불광 녹번 홍제 무악재 독립문 경복궁(정부서울청사) 안국 종로3가 을지로3가 충무로 동대입구 "
            "약수 금호 옥수 압구정 신사 잠원 고속터미널 교대(법원.검찰청) 남부터미널(예술의전당) 양재(서초구청) 매봉 도곡 "
            "대치 학여울 대청 일원 수서 가락시장 경찰병원 오금",
        ),
        (
            "4호선",
            "당고개 상계 노원 창동 쌍문 수유(강북구청) 미아(서울사이버대학) 미아사거리 길음 성신여대입구(돈암) "
            "한성대입구(삼선교) 혜화 동대문 동대문역사문화공원(DDP) 충무로 명동 회현(남대문시장) 서울역 숙대입구(갈월) "
            "삼각지 신용산 이촌(국립중앙박물관) 동작(현충원) 총신대입구(이수) 사당 남태령",
        ),
        (
            "5호선",
            "방화 개화산 김포공항 송정 마곡 발산 우장산 화곡 까치산 신정(은행정) 목동 오목교(목동운동장앞) 양평 영등포구청 "
            "영등포시장 신길 여의도 여의나루 마포 공덕 애오개 충정로(경기대입구) 서대문 광화문(세종문화회관) "
            "종로3가(탑골공원) 을지로4가 동대문역사문화공원(DDP) 청구 신금호 행당 왕십리(성동구청) 마장 답십리 장한평 "
            "군자(능동) 아차산(어린이대공원후문) 광나루(장신대) 천호(풍납토성) 강동 길동 굽은다리(강동구민회관앞) 명일 고덕 "
            "상일동 강일 둔촌동 올림픽공원(한국체대) 방이 오금 개롱 거여 마천",
        ),
        (
            "6호선",
            "응암 역촌 불광 독바위 연신내 구산 새절(신사) 증산(명지대앞) 디지털미디어시티 월드컵경기장(성산) 마포구청 망원 "
            "합정 상수 광흥창(서강) 대흥(서강대앞) 공덕 효창공원앞 삼각지 녹사평(용산구청) 이태원 한강진 버티고개 약수 "
            "청구 신당 동묘앞 창신 보문 안암(고대병원앞) 고려대(종암) 월곡(동덕여대) 상월곡(한국과학기술연구원) 돌곶이 석계 "
            "태릉입구 화랑대(서울여대입구) 봉화산 신내",
        ),
        (
            "7호선",
            "장암 도봉산 수락산 마들 노원 중계 하계 공릉(서울과학기술대) 태릉입구 먹골 중화 상봉(시외버스터미널) 면목 사가정 "
            "용마산 중곡 군자(능동) 어린이대공원(세종대) 건대입구 뚝섬유원지 청담 강남구청 학동 논현 반포 고속터미널 내방 "
            "이수 남성 숭실대입구(살피재) 상도 장승배기 신대방삼거리 보라매 신풍 대림(구로구청) 남구로 가산디지털단지 철산 "
            "광명사거리 천왕 온수(성공회대입구) 까치울 부천종합운동장 춘의 신중동 부천시청 상동 삼산체육관 굴포천 부평구청",
        ),
        (
            "8호선",
            "암사 천호(풍납토성) 강동구청 몽촌토성(평화의문) 잠실(송파구청) 석촌 송파 가락시장 문정 장지 복정 산성 "
            "남한산성입구(성남법원.검찰청) 단대오거리 신흥 수진 모란",
        ),
        (
            "9호선",
            "개화 김포공항 공항시장 신방화 마곡나루 양천향교 가양 증미 등촌 염창 신목동 선유도 당산 국회의사당 여의도 샛강 "
            "노량진 노들 흑석 동작 구반포 신반포 고속터미널 사평 신논현",
        ),
        (
            "9호선2~3단계",
            "언주 선정릉 삼성중앙 봉은사 종합운동장 삼전 석촌고분 석촌 송파나루 한성백제 올림픽공원 둔촌오륜 "
            "중앙보훈병원",
        ),
        (
            "경부선",
            "남영 용산 노량진 대방 신길 영등포 신도림 구로 가산디지털단지 독산 금천구청 석수 관악 안양 명학 금정 군포 당정 "
            "의왕 성균관대 화서 수원 세류 병점 세마 오산대 오산 진위 송탄 서정리 지제 평택 성환 직산 두정 천안",
        ),
        (
            "경인선",
            "구일 개봉 오류동 온수 역곡 소사 부천 중동 송내 부개 부평 백운 동암 간석 주안 도화 제물포 도원 동인천 인천",
        ),
        (
            "경원선",
            "회기 외대앞 신이문 석계 광운대 월계 녹천 창동 방학 도봉 도봉산 망월사 회룡 의정부 가능 녹양 양주 덕계 덕정 "
            "지행 동두천중앙 보산 동두천 소요산",
        ),
        (
            "경의선",
            "서울역 신촌 가좌 디지털미디어시티 수색 화전 강매 행신 능곡 대곡 곡산 백마 풍산 일산 탄현 야당 운정 금릉 금촌 "
            "월롱 파주 문산 효창공원앞 공덕 서강대 홍대입구",
        ),
        (
            "중앙선",
            "용산 이촌 서빙고 한남 옥수 응봉 왕십리 청량리 회기 중랑 상봉 망우 양원 구리 도농 양정 덕소 도심 팔당 운길산 "
            "양수 신원 국수 아신 오빈 양평 원덕 용문 지평",
        ),
        (
            "분당선",
            "왕십리 서울숲 압구정로데오 강남구청 선정릉 선릉 한티 도곡 구룡 개포동 대모산입구 수서 복정 가천대 태평 모란 "
            "야탑 이매 서현 수내 정자 미금 오리 죽전 보정 구성 신갈 기흥 상갈 청명 영통 망포 매탄권선 수원시청 매교 수원",
        ),
        (
            "공항철도 1호선",
            "서울역 공덕 홍대입구 디지털미디어시티 마곡나루 김포공항 계양 검암 청라국제도시 영종 운서 공항화물청사 "
            "인천공항1터미널 인천공항2터미널",
        ),
        (
            "경춘선",
            "상봉 망우 신내 갈매 별내 퇴계원 사릉 금곡 평내호평 천마산 마석 대성리 청평 상천 가평 굴봉산 백양리 강촌 "
            "김유정 남춘천 춘천",
        ),
        ("일산선", "지축 삼송 원흥 원당 화정 대곡 백석 마두 정발산 주엽 대화"),
        ("과천선", "선바위 경마공원 대공원 과천 정부과천청사 인덕원 평촌 범계"),
        ("안산선", "산본 수리산 대야미 반월 상록수 한대앞 중앙 고잔 초지 안산 신길온천 정왕 오이도"),
        (
            "우이신설선",
            "북한산우이 솔밭공원 4.19민주묘지 가오리 화계 삼양 삼양사거리 솔샘 북한산보국문 정릉 성신여대입구 보문 신설동",
        ),
        ("신림선", "샛강 대방 서울지방병무청 보라매 보라매공원 보라매병원 당곡 신림 서원 서울대벤처타운 관악산"),
    )
)

#: Stations whose daily ridership is far above the rest (boosts the lognormal base).
_BUSY_STATIONS = frozenset(
    (
        "강남",
        "잠실(송파구청)",
        "홍대입구",
        "서울역",
        "신림",
        "구로디지털단지",
        "고속터미널",
        "삼성(무역센터)",
        "선릉",
        "역삼",
        "신도림",
        "건대입구",
        "사당",
        "영등포",
        "수원",
        "종각",
        "을지로입구",
        "가산디지털단지",
        "서울대입구(관악구청)",
        "교대(법원.검찰청)",
    )
)

_BIZ_STEMS = (
    "행복",
    "사랑",
    "우리",
    "미소",
    "튼튼",
    "하나",
    "온누리",
    "365",
    "중앙",
    "제일",
    "새봄",
    "푸른",
    "바른",
    "늘푸른",
    "한빛",
    "참좋은",
    "해맑은",
    "다온",
    "가온",
    "누리",
    "별빛",
    "한마음",
    "대성",
    "동신",
    "현대",
    "청솔",
    "소나무",
    "햇살",
    "열린",
    "으뜸",
    "백세",
    "나무",
    "봄날",
    "정성",
    "명품",
    "오복",
    "태양",
    "은행나무",
    "큰길",
    "맑은",
)
_ROAD_STEMS = (
    "중앙",
    "시청",
    "평화",
    "경수대",
    "동탄대",
    "원천",
    "장안",
    "매봉",
    "문화",
    "시민",
    "정자",
    "탄천",
    "은행",
    "서부",
    "동부",
    "역전",
    "공원",
    "학교",
    "대학",
    "산업",
    "세종",
    "충렬",
    "푸른",
    "새말",
    "버들",
)
_APT_BRANDS = (
    "래미안",
    "자이",
    "e편한세상",
    "힐스테이트",
    "아이파크",
    "푸르지오",
    "롯데캐슬",
    "더샵",
    "SK뷰",
    "한신",
    "현대",
    "삼성",
    "주공",
    "대림",
    "우성",
    "한양",
    "쌍용",
    "벽산",
    "두산위브",
    "금호어울림",
    "센트레빌",
    "호반베르디움",
    "꿈에그린",
    "극동",
    "신동아",
    "럭키",
    "미성",
    "동아",
    "청구",
    "경남",
)
_BUILDING_TYPES = ("아파트", "아파트", "아파트", "오피스텔", "연립다세대", "단독다가구")

#: Approximate centres (lat, lon) and zip prefixes (first two digits) of the 시도.
_SIDO_GEO = {
    "11": (37.5665, 126.9780, 0.09, (1, 8)),
    "26": (35.1796, 129.0756, 0.08, (46, 49)),
    "27": (35.8714, 128.6014, 0.08, (41, 43)),
    "28": (37.4563, 126.7052, 0.08, (21, 23)),
    "29": (35.1595, 126.8526, 0.06, (61, 62)),
    "30": (36.3504, 127.3845, 0.06, (34, 35)),
    "31": (35.5384, 129.3114, 0.07, (44, 45)),
    "36": (36.4800, 127.2890, 0.05, (30, 30)),
    "41": (37.4138, 127.5183, 0.35, (10, 18)),
    "51": (37.8228, 128.1555, 0.4, (24, 26)),
    "43": (36.6357, 127.4917, 0.3, (27, 29)),
    "44": (36.5184, 126.8000, 0.3, (31, 33)),
    "52": (35.7175, 127.1530, 0.3, (54, 56)),
    "46": (34.8679, 126.9910, 0.35, (57, 59)),
    "47": (36.4919, 128.8889, 0.4, (36, 40)),
    "48": (35.4606, 128.2132, 0.35, (50, 53)),
    "50": (33.4996, 126.5312, 0.12, (63, 63)),
}
_AREA_CODES = {
    "11": "02",
    "26": "051",
    "27": "053",
    "28": "032",
    "29": "062",
    "30": "042",
    "31": "052",
    "36": "044",
    "41": "031",
    "51": "033",
    "43": "043",
    "44": "041",
    "52": "063",
    "46": "061",
    "47": "054",
    "48": "055",
    "50": "064",
}
#: 만원 per ㎡ of apartment floor area around 2024 for the costliest Seoul 구; the rest are drawn.
_SEOUL_PRICE = {
    "강남구": 2600,
    "서초구": 2500,
    "송파구": 2000,
    "용산구": 2000,
    "성동구": 1650,
    "마포구": 1500,
    "양천구": 1450,
    "광진구": 1450,
    "영등포구": 1400,
    "동작구": 1350,
}


# ---------------------------------------------------------------------------
# Small helpers
# ---------------------------------------------------------------------------


def _pick(rng: "np.random.Generator", items: tuple | list) -> Any:
    return items[int(rng.integers(len(items)))]


def _stem(name: str) -> str:
    """역삼동 → 역삼, 수원시 → 수원, 가평읍 → 가평."""
    return name[:-1] if len(name) > 2 and name[-1] in "동읍면리시군구" else name


def previous_month(day: dt.date) -> str:
    """The month before ``day`` as YYYYMM (the latest month whose statistics are out on ``day``)."""
    first = day.replace(day=1) - dt.timedelta(days=1)
    return f"{first.year:04d}{first.month:02d}"


def month_range(first: str, last: str) -> list[str]:
    """Months from ``first`` to ``last`` (YYYYMM, both inclusive)."""
    year, month = int(first[:4]), int(first[4:6])
    out: list[str] = []
    while f"{year:04d}{month:02d}" <= last:
        out.append(f"{year:04d}{month:02d}")
        year, month = (year + 1, 1) if month == 12 else (year, month + 1)
    return out


#: Seoul's five air-quality zones (권역) as RealtimeCityAir names them, by 구.
_SEOUL_ZONES = {
    **dict.fromkeys(("종로구", "중구", "용산구"), "도심권"),
    **dict.fromkeys(("은평구", "서대문구", "마포구"), "서북권"),
    **dict.fromkeys(("성동구", "광진구", "동대문구", "중랑구", "성북구", "강북구", "도봉구", "노원구"), "동북권"),
    **dict.fromkeys(("양천구", "강서구", "구로구", "금천구", "영등포구", "동작구", "관악구"), "서남권"),
    **dict.fromkeys(("서초구", "강남구", "송파구", "강동구"), "동남권"),
}

#: 통합대기환경지수 (CAI) grades: upper bound of the index → grade name.
_CAI_GRADES = ((50, "좋음"), (100, "보통"), (250, "나쁨"))


def _air_index(names: tuple[str, ...], row: Mapping[str, Any]) -> dict[str, Any]:
    """The integrated index (CAI) of a reading: the worse of the PM10 and PM2.5 sub-indices, its grade and the
    pollutant that decided it (the real index also weighs O3, NO2, CO and SO2; particles decide it most hours).

    ``names``: the value, grade and pollutant columns, then optionally the PM10 and PM2.5 columns read (PM10,
    PM25 by default) and whether the value is sent as text."""
    value_name, grade_name, main_name = names[:3]
    pm10_name, pm25_name, as_text = tuple(names[3:6]) + ("PM10", "PM25", False)[len(names[3:6]) :]
    pm10, pm25 = float(row.get(pm10_name) or 0), float(row.get(pm25_name) or 0)
    by_pm10, by_pm25 = pm10 * (100 / 80), pm25 * (100 / 35)  # 80 and 35 ㎍/㎥ are the 보통 upper bounds (index 100)
    value = round(max(by_pm10, by_pm25))
    grade = next((name for bound, name in _CAI_GRADES if value <= bound), "매우나쁨")
    main = "PM-2.5" if by_pm25 >= by_pm10 else "PM-10"
    return {value_name: str(value) if as_text else value, grade_name: grade, main_name: main}


def _season(day: dt.date, amplitude: float) -> float:
    """1 ± amplitude over the year, highest in mid-January (fine dust, NO2) when positive."""
    return 1.0 + amplitude * math.cos(2 * math.pi * (day.timetuple().tm_yday - 15) / 365.25)


def _day_factor(day: dt.date) -> float:
    """How busy transport is on a day: weekdays 1, Saturdays and holidays less, Sundays least."""
    if day in HOLIDAYS or day.weekday() == 6:
        return 0.52
    if day.weekday() == 5:
        return 0.68
    return 1.0


@dataclass(frozen=True)
class AdminDong:
    """A 행정동: an administrative dong made of (parts of) 법정동."""

    code: str  # 8 digits (ADSTRD_CODE_SE)
    name: str  # 역삼1동, 청운효자동
    sigungu: Sigungu
    parts: tuple[tuple[Dong, float], ...]  # (법정동, share of its residents)

    @property
    def admm_cd(self) -> str:
        """The 10-digit 행정기관코드 the 행안부 population services use."""
        return self.code + "00"


#: The road of 강남구's first complex in every world (seed and size): the road-name list's example finds it
_ROAD_ANCHOR = ("11680", "테헤란로")


@dataclass(frozen=True)
class Complex:
    """An apartment complex (단지) that trades in the RTMS data."""

    seq: str  # aptSeq 11680-3456
    name: str  # 역삼래미안
    dong: Dong
    build_year: int
    areas: tuple[float, ...]
    floors: int
    price_m2: float  # 만원 per ㎡ in January 2024
    bonbun: int
    bubun: int
    road: str

    @property
    def road_code(self) -> str:
        """The 12-digit 도로명코드 of the complex's road: its 시군구 code and a 7-digit road number.

        Derived from the road's name alone (no draw), so it shifts no other value.
        """
        return self.dong.sigungu.code + f"{stable_int('rtms.road', self.dong.sigungu.code, self.road) % 10**7:07d}"


@dataclass(frozen=True)
class _Place:
    sgg: Sigungu
    dong: Dong
    road: str
    building: int
    bunji: str
    lat: float
    lon: float
    zip: str


# ---------------------------------------------------------------------------
# The sub-world
# ---------------------------------------------------------------------------


class DatasetWorld:
    """Rows of the Seoul/Gyeonggi dataset services, 행정동, apartment complexes and trades."""

    #: The first day the daily Seoul datasets hold (CardSubwayStatsNew starts in 2015).
    FIRST_DAY = dt.date(2015, 1, 1)
    #: The first month of the 행안부 population statistics served.
    FIRST_MONTH = "200801"

    def __init__(self, world: "World") -> None:
        self._world = world
        self._facility_cache: dict[str, list[tuple[dt.date | None, dt.date | None, dict[str, Any]]]] = {}
        self._rent_cache: dict[tuple[str, int], list[dict[str, Any]]] = {}

    # -- dispatch -----------------------------------------------------------
    def rows(self, spec: DatasetSpec, as_of: dt.date, keys: Mapping[str, str]) -> list[dict[str, Any]]:
        """Every row of ``spec`` at ``as_of`` for the key values its family consumes (a day, a year …), in order.

        ``keys`` holds the request's non-empty parameters; filtering by the others is the operation's (its
        ``exact`` parameters). Returns [] when nothing exists (the platform's no-data answer).
        """
        return _FAMILIES[spec.family](self, spec, as_of, keys)[0]

    # -- geography ------------------------------------------------------------
    @cached_property
    def _sgg_geo(self) -> dict[str, tuple[float, float, str]]:
        """Per 시군구: centre latitude, longitude and a 3-digit zip prefix."""
        rng = self._world.rng("datasets.geo")
        out: dict[str, tuple[float, float, str]] = {}
        for sgg in self._world.regions.sigungu:
            lat, lon, spread, (zlo, zhi) = _SIDO_GEO[sgg.sido.code]
            zip3 = f"{int(rng.integers(zlo, zhi + 1)):02d}{int(rng.integers(0, 10))}"
            out[sgg.code] = (lat + float(rng.normal(0, spread / 2)), lon + float(rng.normal(0, spread / 2)), zip3)
        return out

    def _place(self, rng: "np.random.Generator", sgg: Sigungu) -> _Place:
        dongs = self.dongs_in(sgg.code)
        dong = _pick(rng, dongs)
        lat, lon, zip3 = self._sgg_geo[sgg.code]
        stem = _pick(rng, (_stem(dong.name), _stem(dong.name), _pick(rng, _ROAD_STEMS)))
        road = stem + _pick(rng, ("로", "로", "길", "대로"))
        if rng.random() < 0.4:
            road += f" {int(rng.integers(1, 120))}번길"
        main = int(rng.integers(1, 1200))
        bunji = f"{main}-{int(rng.integers(1, 40))}" if rng.random() < 0.6 else str(main)
        return _Place(
            sgg,
            dong,
            road,
            int(rng.integers(1, 300)),
            bunji,
            lat + float(rng.normal(0, 0.018)),
            lon + float(rng.normal(0, 0.022)),
            f"{zip3}{int(rng.integers(0, 100)):02d}",
        )

    def dongs_in(self, sgg_code: str) -> list[Dong]:
        """The 법정동 of a 시군구 by its 5-digit code, in code order."""
        return self._dongs_by_sgg.get(sgg_code, [])

    @cached_property
    def _dongs_by_sgg(self) -> dict[str, list[Dong]]:
        table: dict[str, list[Dong]] = {}
        for dong in self._world.regions.dongs:
            table.setdefault(dong.sigungu.code, []).append(dong)
        return table

    def sigungu_in(self, sido_code: str) -> list[Sigungu]:
        return [s for s in self._world.regions.sigungu if s.sido.code == sido_code]

    # -- facility registers -----------------------------------------------------
    def _facility_rows(self, spec: DatasetSpec) -> list[tuple[dt.date | None, dt.date | None, dict[str, Any]]]:
        """(licensed, closed, record) per row, independent of the as-of date; built once per spec."""
        cached = self._facility_cache.get(spec.label)
        if cached is not None:
            return cached
        rng = self._world.rng("datasets.facility", spec.label)
        sggs = self.sigungu_in(spec.area)
        total = spec.size(self._world.sizes)
        weights = rng.gamma(2.0, 1.0, len(sggs)) * [len(self.dongs_in(s.code)) for s in sggs]
        floor = 2 if total >= 4 * len(sggs) else 1
        counts = rng.multinomial(max(0, total - floor * len(sggs)), weights / weights.sum()) + floor
        out = []
        for sgg, count in zip(sggs, counts):
            for _ in range(int(count)):
                out.append(self._facility_row(spec, rng, sgg, len(out) + 1))
        self._facility_cache[spec.label] = out
        return out

    def _facility_row(
        self, spec: DatasetSpec, rng: "np.random.Generator", sgg: Sigungu, serial: int
    ) -> tuple[dt.date | None, dt.date | None, dict[str, Any]]:
        place = self._place(rng, sgg)
        opened: dt.date | None = None
        closed: dt.date | None = None
        for column in spec.columns_of_kind("open_date"):
            first, last = column.arg[:2]
            start = dt.date(first, 1, 1)
            opened = start + dt.timedelta(days=int(rng.integers(0, (dt.date(last, 12, 31) - start).days)))
        for column in spec.columns_of_kind("close_date"):
            if opened is not None and rng.random() < float(column.arg):
                closed = opened + dt.timedelta(days=int(rng.integers(200, 9000)))
        record: dict[str, Any] = {}
        anchor = opened
        for column in spec.columns:
            if column.kind in ("after_open", "end_date") and anchor is not None:
                # days after the previous dated column (the licence date first): start, then end of a period
                anchor = anchor + dt.timedelta(days=int(rng.integers(column.arg[0], column.arg[1] + 1)))
                record[column.name] = anchor.strftime(column.arg[2])
                if column.kind == "end_date" and closed is None:
                    closed = anchor
                continue
            maker = _COLUMN_MAKERS.get(column.kind)
            if maker is not None:
                record[column.name] = maker(self, rng, column, place, serial)
            elif column.kind in _ROW_MAKERS:
                record[column.name] = _ROW_MAKERS[column.kind](self, rng, column, place, serial, opened, record)
            else:
                record[column.name] = ""
        return opened, closed, record

    def _facility(self, spec: DatasetSpec, as_of: dt.date, keys: Mapping[str, str]):
        states = spec.columns_of_kind("state")
        close = next(iter(spec.columns_of_kind("close_date")), None)
        opened_col = next(iter(spec.columns_of_kind("open_date")), None)
        opened_fmt = opened_col.arg[2] if opened_col is not None and len(opened_col.arg) > 2 else None
        now = [c for c in spec.columns if c.kind in ("now_count", "now_stamp")]
        rng = self._world.rng("datasets.facility.now", spec.label, as_of.isoformat()) if now else None
        out = []
        for opened, closed, record in self._facility_rows(spec):
            if opened is not None and opened >= as_of:
                continue  # licensed after the snapshot: not in the register yet
            row = dict(record)
            if opened_col is not None and opened is not None:
                row[opened_col.name] = opened.strftime(opened_fmt) if opened_fmt else ymd(opened)
            is_closed = closed is not None and closed < as_of
            for state in states:
                row[state.name] = state.arg[1] if is_closed else state.arg[0]
            if close is not None:
                row[close.name] = ymd(closed) if is_closed else ""
            for column in now:  # a reading "now": drawn per as-of date, the same for every call that day
                if column.kind == "now_count":
                    row[column.name] = float(int(float(row[column.arg]) * float(rng.uniform(0.05, 1.0))))
                else:
                    seconds = int(rng.integers(0, 3600))
                    stamp = dt.datetime.combine(as_of, dt.time(7, 30)) + dt.timedelta(seconds=seconds)
                    row[column.name] = stamp.strftime(column.arg)
            out.append(row)
        return out, ()

    # -- per-구 daily measures ----------------------------------------------------
    def _gu_daily(self, spec: DatasetSpec, as_of: dt.date, keys: Mapping[str, str]):
        day_col = spec.columns_of_kind("day")[0]
        day = self._served_day(keys.get(day_col.name), as_of)
        if day is None:
            return [], (day_col.name,)
        return self._gu_measures(spec, day, ""), (day_col.name,)

    def _gu_now(self, spec: DatasetSpec, as_of: dt.date, keys: Mapping[str, str]):
        # Real-time readings are those of the hour before the world's snapshot time (08:30, see world.transit).
        return self._gu_measures(spec, as_of, ymd(as_of) + "0800"), ()

    def _gu_measures(self, spec: DatasetSpec, day: dt.date, stamp: str) -> list[dict[str, Any]]:
        """One row per 시군구 of measures drawn for ``day`` (the ``stamp`` is the hour of a real-time reading)."""
        rng = self._world.rng("datasets.daily", spec.label, stamp or ymd(day))
        out = []
        for sgg in self.sigungu_in(spec.area):
            row: dict[str, Any] = {}
            for column in spec.columns:
                if column.kind == "day":
                    row[column.name] = ymd(day)
                elif column.kind == "hour":
                    row[column.name] = stamp
                elif column.kind == "sigungu_name":
                    row[column.name] = sgg.name
                elif column.kind == "lawd_cd":
                    row[column.name] = sgg.code
                elif column.kind == "seoul_zone":
                    row[column.name] = _SEOUL_ZONES.get(sgg.name, "")
                elif column.kind in ("air_grade", "air_index", "air_main"):
                    row[column.name] = None  # filled from the measures below, in the published field order
                elif column.kind == "gu_map":
                    row[column.name] = column.arg.get(sgg.name, "")
                elif column.kind in ("measure", "measure_text"):
                    mean, sd, decimals, amplitude = column.arg
                    value = mean * _season(day, amplitude) * float(rng.lognormal(0, sd))
                    value = round(value, decimals) if decimals else float(round(value))
                    row[column.name] = f"{value:.{decimals}f}" if column.kind == "measure_text" else value
            for column in spec.columns_of_kind("air_index"):
                row.update(_air_index(column.arg, row))
            out.append(row)
        return out

    def _served_day(self, text: str | None, as_of: dt.date) -> dt.date | None:
        """A YYYYMMDD key as a day that has data: from FIRST_DAY up to the as-of date (later days do not exist yet)."""
        if not text or len(text) != 8 or not text.isdigit():
            return None
        try:
            day = dt.date(int(text[:4]), int(text[4:6]), int(text[6:]))
        except ValueError:
            return None
        return day if self.FIRST_DAY <= day <= as_of else None

    # -- subway ridership -------------------------------------------------------------
    @cached_property
    def _station_base(self) -> list[tuple[str, str, float]]:
        """(line, station, weekday boardings) for every line × station."""
        rng = self._world.rng("datasets.subway.base")
        out = []
        for line, stations in SUBWAY_LINES:
            line_scale = (
                1.6 if line == "2호선" else (0.45 if line in ("우이신설선", "신림선", "경춘선", "일산선") else 1.0)
            )
            for station in stations:
                base = float(rng.lognormal(math.log(9000), 0.7)) * line_scale
                if station in _BUSY_STATIONS:
                    base *= 3.5
                out.append((line, station, base))
        return out

    def _subway(self, spec: DatasetSpec, as_of: dt.date, keys: Mapping[str, str]):
        day = self._served_day(keys.get("USE_DT"), as_of)
        if day is None:
            return [], ("USE_DT",)
        rng = self._world.rng("datasets.subway.day", ymd(day))
        factor = _day_factor(day)
        bases = self._station_base
        ride = rng.lognormal(0, 0.08, len(bases))
        alight = rng.normal(1.0, 0.07, len(bases))
        work = ymd(min(day + dt.timedelta(days=1), as_of))  # loaded the next morning
        out = []
        for (line, station, base), r, a in zip(bases, ride, alight):
            boarded = round(base * factor * float(r))
            out.append(
                {
                    "USE_DT": ymd(day),
                    "LINE_NUM": line,
                    "SUB_STA_NM": station,
                    "RIDE_PASGR_NUM": float(boarded),
                    "ALIGHT_PASGR_NUM": float(round(boarded * float(a))),
                    "WORK_DT": work,
                }
            )
        return out, ("USE_DT",)

    def _subway_month(self, spec: DatasetSpec, as_of: dt.date, keys: Mapping[str, str]):
        """Riders per line × station and hour of a month (CardSubwayTime): the month's boardings of the daily
        dataset's stations spread over the hours, commuter peaks in the morning where people live and in the
        evening where they work. A month is out once it is over (loaded a few days later)."""
        month_col = spec.columns_of_kind("month")[0]
        month = keys.get(month_col.name) or ""
        if len(month) != 6 or not month.isdigit() or not ("201501" <= month and 1 <= int(month[4:]) <= 12):
            return [], (month_col.name,)
        year, mon = int(month[:4]), int(month[4:])
        days = _calendar.monthrange(year, mon)[1]
        loaded = dt.date(year, mon, days) + dt.timedelta(days=3)
        if loaded >= as_of:
            return [], (month_col.name,)
        factor = sum(_day_factor(dt.date(year, mon, d)) for d in range(1, days + 1))
        rng = self._world.rng("datasets.subway.month", month)
        out = []
        for line, station, base in self._station_base:
            mix = float(self._world.rng("datasets.subway.mix", line, station).uniform(-1, 1))  # + lives, - works
            noise = rng.lognormal(0, 0.1, 48)
            row: dict[str, Any] = {}
            for column in spec.columns:
                kind = column.kind
                if kind == "month":
                    row[column.name] = month
                elif kind == "line":
                    row[column.name] = line
                elif kind == "station":
                    row[column.name] = station
                elif kind == "job_day":
                    row[column.name] = ymd(loaded)
                elif kind in ("on", "off"):
                    hour = int(column.arg)
                    morning = math.exp(-((hour - 8) ** 2) / 2.0)
                    evening = math.exp(-((hour - 18) ** 2) / 3.0)
                    lean = mix if kind == "on" else -mix
                    share = 0.012 + 0.09 * (1 + lean) * morning + 0.09 * (1 - lean) * evening
                    if hour in (1, 2, 3, 4):
                        share *= 0.02
                    index = hour * 2 + (kind == "off")
                    row[column.name] = round(base * factor * share * float(noise[index]) / 1.5)
            out.append(row)
        return out, (month_col.name,)

    # -- bus ridership --------------------------------------------------------------
    @cached_property
    def _bus_stop_base(self) -> list[tuple[Any, Any, float]]:
        """(route, station, weekday boardings) for every stop of every Seoul route of ``world.transit``.

        The ridership dataset counts the same routes and stations the bus
        information service (ws.bus.go.kr) serves, so its ids bind to that service.
        """
        rng = self._world.rng("datasets.bus.base")
        out = []
        for route in self._world.transit.seoul_routes:
            scale = 0.35 if route.night else (0.6 if route.kind == "마을" else 1.0)
            for station in route.stations:
                out.append((route, station, float(rng.lognormal(math.log(160), 0.8)) * scale))
        return out

    def _bus(self, spec: DatasetSpec, as_of: dt.date, keys: Mapping[str, str]):
        day = self._served_day(keys.get("USE_DT"), as_of)
        if day is None:
            return [], ("USE_DT",)
        bases = self._bus_stop_base
        rng = self._world.rng("datasets.bus.day", ymd(day))
        ride = rng.lognormal(0, 0.15, len(bases))
        alight = rng.normal(0.98, 0.12, len(bases))
        factor = _day_factor(day)
        registered = ymd(min(day + dt.timedelta(days=1), as_of))
        out = []
        for (route, station, base), r, a in zip(bases, ride, alight):
            boarded = round(base * factor * float(r))
            out.append(
                {
                    "USE_DT": ymd(day),
                    "BUS_ROUTE_ID": route.route_id,
                    "BUS_ROUTE_NO": route.name,
                    "BUS_ROUTE_NM": route.name,
                    "STND_BSST_ID": station.st_id,
                    "BSST_ARS_NO": station.ars_id,
                    "BUS_STA_NM": station.name,
                    "RIDE_PASGR_NUM": boarded,
                    "ALIGHT_PASGR_NUM": max(0, round(boarded * float(a))),
                    "WORK_DT": registered,
                }
            )
        return out, ("USE_DT",)

    # -- 행정동 and living population ---------------------------------------------------
    @cached_property
    def admin_dongs(self) -> tuple[AdminDong, ...]:
        """행정동 of every 시군구: a 법정동 as it is, split in two (역삼1동/역삼2동), or two merged (청운효자동)."""
        rng = self._world.rng("datasets.admin_dongs")
        out: list[AdminDong] = []
        for sgg in self._world.regions.sigungu:
            legal = self.dongs_in(sgg.code)
            urban = sgg.name.endswith("구") or sgg.sido.code in ("11", "26", "27", "28", "29", "30", "31")
            made: list[tuple[str, tuple[tuple[Dong, float], ...]]] = []
            i = 0
            while i < len(legal):
                dong = legal[i]
                draw = rng.random()
                if urban and draw < 0.3:
                    share = float(rng.uniform(0.35, 0.65))
                    made.append((f"{_stem(dong.name)}1{dong.name[-1]}", ((dong, share),)))
                    made.append((f"{_stem(dong.name)}2{dong.name[-1]}", ((dong, 1.0 - share),)))
                elif urban and draw < 0.45 and i + 1 < len(legal):
                    other = legal[i + 1]
                    made.append((_stem(dong.name) + other.name, ((dong, 1.0), (other, 1.0))))
                    i += 1
                else:
                    made.append((dong.name, ((dong, 1.0),)))
                i += 1
            # Real 행정동 codes: 5xx for 동, 25x for the 읍, 3xx on for 면; steps stay small enough for 3 digits.
            code_no = 510 if urban else 250
            steps = (5, 10, 10, 11, 15) if len(made) <= 30 else (5,)
            for n, (name, parts) in enumerate(made):
                if not urban and n == 1:
                    code_no = 310
                out.append(AdminDong(f"{sgg.code}{code_no:03d}", name, sgg, parts))
                code_no += int(rng.choice(steps)) if urban else 10
        return tuple(out)

    @cached_property
    def admin_dong_by_code(self) -> dict[str, AdminDong]:
        return {a.code: a for a in self.admin_dongs}

    @cached_property
    def admin_dongs_by_sgg(self) -> dict[str, list[AdminDong]]:
        table: dict[str, list[AdminDong]] = {}
        for admin in self.admin_dongs:
            table.setdefault(admin.sigungu.code, []).append(admin)
        return table

    @cached_property
    def admin_of_legal(self) -> dict[str, AdminDong]:
        """The (first) 행정동 each 법정동 belongs to."""
        table: dict[str, AdminDong] = {}
        for admin in self.admin_dongs:
            for dong, _ in admin.parts:
                table.setdefault(dong.code, admin)
        return table

    def admin_population(self, admin: AdminDong, month: str) -> dict[str, int]:
        """Residents of a 행정동 in a month: its shares of its 법정동."""
        total = male = households = 0
        for dong, share in admin.parts:
            pop = self._world.regions.population(dong, month)
            total += round(pop["total"] * share)
            male += round(pop["male"] * share)
            households += round(pop["households"] * share)
        return {"total": total, "male": male, "female": total - male, "households": households}

    def _spop(self, spec: DatasetSpec, as_of: dt.date, keys: Mapping[str, str]):
        day = self._served_day(keys.get("STDR_DE_ID"), as_of)
        if day is None:
            return [], ("STDR_DE_ID",)
        hour_key = keys.get("TMZON_PD_SE")
        code_key = keys.get("ADSTRD_CODE_SE")
        admins = [a for a in self.admin_dongs if a.sigungu.sido.code == "11"]
        if code_key is not None:
            admins = [a for a in admins if a.code == code_key]
        hours = [f"{h:02d}" for h in range(24)]
        if hour_key is not None:
            hours = [h for h in hours if h == hour_key]
        if not admins or not hours:
            return [], ("STDR_DE_ID", "TMZON_PD_SE", "ADSTRD_CODE_SE")
        month = previous_month(day)
        age_cols = [c.name for c in spec.columns if c.name.endswith("_LVPOP_CO") and c.name != "TOT_LVPOP_CO"]
        out = []
        for admin in admins:
            # Commercial dongs fill by day, residential ones by night; the mix is fixed per 행정동.
            mix = float(self._world.rng("datasets.spop.mix", admin.code).uniform(-0.5, 0.9))
            residents = self.admin_population(admin, month)["total"]
            rng = self._world.rng("datasets.spop.day", admin.code, ymd(day))
            noise = rng.lognormal(0, 0.04, 24)
            shares = rng.dirichlet([6.0] * len(age_cols))
            for hour in hours:
                h = int(hour)
                daytime = math.exp(-((h - 14) ** 2) / 30.0)
                level = residents * (1.0 + mix * daytime) * _day_factor(day) ** (0.3 * max(mix, 0)) * float(noise[h])
                row: dict[str, Any] = {
                    "STDR_DE_ID": ymd(day),
                    "TMZON_PD_SE": hour,
                    "ADSTRD_CODE_SE": admin.code,
                    "TOT_LVPOP_CO": f"{level:.4f}",
                }
                for name, share in zip(age_cols, shares):
                    row[name] = f"{level * float(share) * 0.42:.4f}"
                out.append(row)
        return out, ("STDR_DE_ID", "TMZON_PD_SE", "ADSTRD_CODE_SE")

    # -- bike stations ------------------------------------------------------------------
    @cached_property
    def bike_stations(self) -> list[dict[str, Any]]:
        rng = self._world.rng("datasets.bike.stations")
        gus = self.sigungu_in("11")
        count = self._world.sizes.dataset_rows
        numbers = sorted(int(n) for n in rng.choice(max(5000, 2 * count), size=count, replace=False) + 100)
        out = []
        for number in numbers:
            place = self._place(rng, _pick(rng, gus))
            landmark = _stem(place.dong.name) + _pick(
                rng,
                (
                    "역 1번출구 앞",
                    "역 2번출구",
                    "주민센터 앞",
                    "사거리",
                    "초등학교 앞",
                    "공원 입구",
                    "아파트 정문",
                    "버스정류장 옆",
                ),
            )
            out.append(
                {
                    "stationId": f"ST-{number}",
                    "stationName": f"{number}. {landmark}",
                    "rackTotCnt": int(rng.choice((5, 8, 10, 10, 12, 15, 20, 25))),
                    "stationLatitude": f"{place.lat:.8f}",
                    "stationLongitude": f"{place.lon:.8f}",
                }
            )
        return out

    def _bike(self, spec: DatasetSpec, as_of: dt.date, keys: Mapping[str, str]):
        # A snapshot "now": bikes parked at the as-of date (stable per seed and date).
        rng = self._world.rng("datasets.bike.now", as_of.isoformat())
        out = []
        for station in self.bike_stations:
            racks = station["rackTotCnt"]
            parked = int(rng.integers(0, racks * 2 + 1))
            out.append(
                {
                    "rackTotCnt": str(racks),
                    "stationName": station["stationName"],
                    "parkingBikeTotCnt": str(parked),
                    "shared": str(round(100 * parked / racks)),
                    "stationLatitude": station["stationLatitude"],
                    "stationLongitude": station["stationLongitude"],
                    "stationId": station["stationId"],
                }
            )
        return out, ()

    # -- apartments and their trades ----------------------------------------------------------
    @cached_property
    def _price_level(self) -> dict[str, float]:
        """만원 per ㎡ of apartments in each 시군구 (January 2024)."""
        rng = self._world.rng("datasets.apt.price")
        out = {}
        for sgg in self._world.regions.sigungu:
            if sgg.sido.code == "11":
                out[sgg.code] = float(_SEOUL_PRICE.get(sgg.name, rng.uniform(850, 1300)))
            elif sgg.sido.code == "41":
                out[sgg.code] = float(rng.uniform(380, 1150))
            else:
                out[sgg.code] = float(rng.uniform(220, 620))
        return out

    def complexes(self, lawd_cd: str) -> list[Complex]:
        """The apartment complexes of a 시군구 (LAWD_CD); [] for a code the world does not know."""
        return self._complexes.get(lawd_cd, [])

    @cached_property
    def _complexes(self) -> dict[str, list[Complex]]:
        table: dict[str, list[Complex]] = {}
        for sgg in self._world.regions.sigungu:
            rng = self._world.rng("datasets.apt.complexes", sgg.code)
            count = int(rng.integers(18, 45)) if sgg.sido.code in ("11", "41") else int(rng.integers(8, 25))
            names: set[str] = set()
            out = []
            for n in range(count):
                dong = _pick(rng, self.dongs_in(sgg.code))
                brand = _pick(rng, _APT_BRANDS)
                name = _pick(
                    rng,
                    (
                        _stem(dong.name) + brand,
                        brand + _stem(dong.name),
                        f"{_stem(dong.name)}{brand}{int(rng.integers(1, 9))}단지",
                    ),
                )
                if name in names:
                    name += f"{len(names) % 7 + 2}차"
                names.add(name)
                build = int(rng.integers(1978, 2025))
                areas = tuple(
                    sorted(
                        {
                            float(
                                _pick(rng, (39.6, 49.94, 59.97, 59.99, 74.93, 84.96, 84.99, 101.9, 114.8, 134.9, 164.5))
                            )
                            for _ in range(int(rng.integers(1, 4)))
                        }
                    )
                )
                age = 1.0 - 0.004 * max(0, 2024 - build) + (0.25 if build < 1990 and sgg.sido.code == "11" else 0)
                seq = f"{sgg.code}-{int(rng.integers(10, 9000))}"
                floors = int(rng.integers(5, 36))
                price = self._price_level[sgg.code] * age * float(rng.lognormal(0, 0.15))
                bonbun = int(rng.integers(1, 1500))
                bubun = int(rng.integers(0, 30)) if rng.random() < 0.3 else 0
                road = _stem(dong.name) + _pick(rng, ("로", "길", "대로"))
                if n == 0 and sgg.code == _ROAD_ANCHOR[0]:
                    road = _ROAD_ANCHOR[1]  # after the draw: the other complexes keep every value
                out.append(Complex(seq, name, dong, build, areas, floors, price, bonbun, bubun, road))
            table[sgg.code] = out
        return table

    @staticmethod
    def _lot_fields(apt: Complex) -> dict[str, str]:
        """The lot and road-address codes of a complex, as the RTMS 상세 services give them.

        Derived from the complex alone (no draw), so adding them shifts no other value.
        """
        return {
            "umdCd": apt.dong.code[5:],
            "landCd": "1",
            "bonbun": f"{apt.bonbun:04d}",
            "bubun": f"{apt.bubun:04d}",
            "roadNm": apt.road,
            "roadNmSggCd": apt.road_code[:5],
            "roadNmCd": apt.road_code[5:],
            "roadNmSeq": "01",
            "roadNmbCd": "0",
            "roadNmBonbun": f"{apt.bonbun % 300 + 1:05d}",
            "roadNmBubun": "00000",
            "aptSeq": apt.seq,
        }

    def apt_trades(self, lawd_cd: str, deal_ym: str, as_of: dt.date) -> list[dict[str, Any]]:
        """Apartment sales of a 시군구 in a month, as reported by the day before ``as_of``.

        Buyers report within 30 days, so the latest month is incomplete and
        the current one almost empty. Every field of the 상세 (Dev) service, in
        its alphabetical order, as the RTMS XML spells them: all strings,
        dealAmount in 만원 with thousands commas and leading spaces, " " for an
        empty value. The 일반 service shows a subset.
        """
        complexes = self.complexes(lawd_cd)
        if not complexes:
            return []
        year, month = int(deal_ym[:4]), int(deal_ym[4:6])
        first = dt.date(year, month, 1)
        if first >= as_of:
            return []
        sgg = complexes[0].dong.sigungu
        rng = self._world.rng("datasets.apt.trades", lawd_cd, deal_ym)
        base = float(
            self._world.rng("datasets.apt.volume", lawd_cd).uniform(
                *((80, 500) if sgg.sido.code == "11" else (60, 600) if sgg.sido.code == "41" else (30, 220))
            )
        )
        count = max(1, int(base * float(rng.lognormal(0, 0.25)) * (0.85 if month in (1, 2, 8) else 1.0)))
        months_since = (year - 2024) * 12 + month - 1
        trend = 1.0 + 0.004 * months_since
        days = _calendar.monthrange(year, month)[1]
        region = f"{sgg.sido.short} {sgg.name}"
        trades = []
        for _ in range(count):
            apt = _pick(rng, complexes)
            day = int(rng.integers(1, days + 1))
            dealt = dt.date(year, month, day)
            # Every trade draws all its values whatever the as-of date, so that a later
            # snapshot holds the same trades plus the ones reported since.
            reported = dealt + dt.timedelta(days=int(rng.integers(0, 30)))
            area = _pick(rng, apt.areas)
            floor = int(rng.integers(1, apt.floors + 1))
            amount = apt.price_m2 * area * trend * (0.92 + 0.004 * min(floor, 20)) * float(rng.lognormal(0, 0.06))
            amount = max(3000, int(round(amount / 100.0)) * 100)
            brokered = rng.random() < 0.86
            cancelled = rng.random() < 0.03
            registered = dealt + dt.timedelta(days=int(rng.integers(25, 90)))
            cancel_day = (dealt + dt.timedelta(days=int(rng.integers(5, 40)))).strftime("%y.%m.%d")
            trades.append(
                {
                    "aptDong": _pick(rng, (" ", f"{int(rng.integers(101, 130))}")),
                    "aptNm": apt.name,
                    "buildYear": str(apt.build_year),
                    "buyerGbn": _pick(rng, ("개인",) * 12 + ("법인", "기타")),
                    "cdealDay": cancel_day if cancelled else " ",
                    "cdealType": "O" if cancelled else " ",
                    "dealAmount": f"{comma(amount):>10}",
                    "dealDay": str(day),
                    "dealMonth": str(month),
                    "dealYear": str(year),
                    "dealingGbn": "중개거래" if brokered else "직거래",
                    "estateAgentSggNm": region if brokered else " ",
                    "excluUseAr": f"{area:g}",
                    "floor": str(floor),
                    "jibun": f"{apt.bonbun}" + (f"-{apt.bubun}" if apt.bubun else ""),
                    "landLeaseholdGbn": "N",
                    "rgstDate": registered.strftime("%y.%m.%d") if registered < as_of else " ",
                    "sggCd": lawd_cd,
                    "slerGbn": _pick(rng, ("개인",) * 10 + ("법인", "공공기관")),
                    "umdNm": apt.dong.name,
                    **self._lot_fields(apt),
                    "_day": day,
                    "_reported": reported,
                }
            )
        return _reported_in_order(trades, as_of)

    def apt_rents(self, lawd_cd: str, deal_ym: str, as_of: dt.date) -> list[dict[str, Any]]:
        """Apartment 전월세 contracts of a 시군구 in a month, as reported by the day before ``as_of``.

        Landlords report within 30 days, like sales. Fields of the RTMS rent
        service (the official guide's list, with its lower-case road fields and
        the complex serial added in 2024), alphabetical, all strings: deposit and
        monthlyRent in 만원 with commas, monthlyRent "0" for 전세, contractTerm
        ``YYYYMM~YYYYMM``; renewal fields a space unless a contract is renewed.
        """
        complexes = self.complexes(lawd_cd)
        year, month = int(deal_ym[:4]), int(deal_ym[4:6])
        if not complexes or dt.date(year, month, 1) >= as_of:
            return []
        sgg = complexes[0].dong.sigungu
        rng = self._world.rng("datasets.apt.rents", lawd_cd, deal_ym)
        # 전월세 reports outnumber sales several times (서울 ≈ 15,000–20,000 a month over 25 구)
        base = float(
            self._world.rng("datasets.apt.rent_volume", lawd_cd).uniform(
                *((400, 1800) if sgg.sido.code == "11" else (300, 1500) if sgg.sido.code == "41" else (60, 400))
            )
        )
        count = max(1, int(base * float(rng.lognormal(0, 0.2))))
        trend = 1.0 + 0.003 * ((year - 2024) * 12 + month - 1)
        days = _calendar.monthrange(year, month)[1]
        rents = []
        for _ in range(count):
            apt = _pick(rng, complexes)
            day = int(rng.integers(1, days + 1))
            reported = dt.date(year, month, day) + dt.timedelta(days=int(rng.integers(0, 30)))
            area = _pick(rng, apt.areas)
            # 전세 deposits run at about 55% of the sale price; 월세 trades deposit for rent at ~5% a year
            full = apt.price_m2 * area * trend * 0.55 * float(rng.lognormal(0, 0.08))
            monthly = 0 if rng.random() < 0.55 else int(round(full * float(rng.uniform(0.2, 0.8)) * 0.05 / 12))
            deposit = (
                max(500, int(round((full - monthly * 12 / 0.05) / 500.0)) * 500)
                if monthly
                else max(1000, int(round(full / 500.0)) * 500)
            )
            renewed = rng.random() < 0.3
            start = dt.date(year, month, 1) + dt.timedelta(days=int(rng.integers(0, 60)))
            term = f"{start:%Y%m}~{start.year + 2}{start.month:02d}" if rng.random() < 0.8 else " "
            renewed = renewed and term != " "  # a contract reported without its term says nothing of renewal
            lot = self._lot_fields(apt)
            rents.append(
                {
                    "aptNm": apt.name,
                    "aptSeq": apt.seq,
                    "buildYear": str(apt.build_year),
                    "contractTerm": term,
                    "contractType": ("갱신" if renewed else "신규") if term != " " else " ",
                    "dealDay": str(day),
                    "dealMonth": str(month),
                    "dealYear": str(year),
                    "deposit": comma(deposit),
                    "excluUseAr": f"{area:g}",
                    "floor": str(int(rng.integers(1, apt.floors + 1))),
                    "jibun": f"{apt.bonbun}" + (f"-{apt.bubun}" if apt.bubun else ""),
                    "monthlyRent": comma(monthly),
                    "preDeposit": comma(int(round(deposit * 0.95 / 500.0)) * 500) if renewed else " ",
                    "preMonthlyRent": comma(monthly) if renewed else " ",
                    "roadnm": lot["roadNm"],
                    "roadnmbcd": lot["roadNmbCd"],
                    "roadnmbonbun": lot["roadNmBonbun"],
                    "roadnmbubun": lot["roadNmBubun"],
                    "roadnmcd": lot["roadNmCd"],
                    "roadnmseq": lot["roadNmSeq"],
                    "roadnmsggcd": lot["roadNmSggCd"],
                    "sggCd": lawd_cd,
                    "umdNm": apt.dong.name,
                    "useRRRight": "사용" if renewed and rng.random() < 0.6 else " ",
                    "_day": day,
                    "_reported": reported,
                }
            )
        return _reported_in_order(rents, as_of)

    # -- Seoul rent contracts -------------------------------------------------------------------
    def _rent_year(self, sgg: Sigungu, year: int) -> list[dict[str, Any]]:
        key = (sgg.code, year)
        if key in self._rent_cache:
            return self._rent_cache[key]
        rng = self._world.rng("datasets.rent", sgg.code, year)
        complexes = self.complexes(sgg.code)
        count = max(8, self._world.sizes.dataset_rows // 12)
        price = self._price_level[sgg.code] * (1.0 + 0.004 * ((year - 2024) * 12))
        rows = []
        for _ in range(count):
            usage = _pick(rng, _BUILDING_TYPES)
            if usage == "아파트" and complexes:
                apt = _pick(rng, complexes)
                dong, name, built, area = apt.dong, apt.name, apt.build_year, _pick(rng, apt.areas)
                mno, sno = apt.bonbun, apt.bubun
            else:
                dong = _pick(rng, self.dongs_in(sgg.code))
                name = (
                    (_stem(dong.name) + _pick(rng, ("하이츠", "빌라", "오피스텔", "타워", "팰리스", "맨션")))
                    if usage != "단독다가구"
                    else ""
                )
                built = int(rng.integers(1985, 2025))
                area = round(float(rng.uniform(16.0, 85.0)), 2)
                mno, sno = int(rng.integers(1, 1500)), int(rng.integers(0, 60))
            day = dt.date(year, 1, 1) + dt.timedelta(days=int(rng.integers(0, 365 if year % 4 else 366)))
            jeonse = rng.random() < 0.55
            deposit = price * area * (0.55 if jeonse else 0.08) * float(rng.lognormal(0, 0.15))
            deposit = max(500, int(round(deposit / 500.0)) * 500)
            rent = 0 if jeonse else max(20, int(round(area * price * 0.0012 * float(rng.lognormal(0, 0.2)))))
            renewal = rng.random() < 0.3
            used_right = rng.random() < 0.5
            end_year = day.year + 2
            end = dt.date(end_year, day.month, min(day.day, _calendar.monthrange(end_year, day.month)[1]))
            rows.append(
                {
                    "RCPT_YR": str(year),
                    "CGG_CD": sgg.code,
                    "CGG_NM": sgg.name,
                    "STDG_CD": dong.code[5:],
                    "STDG_NM": dong.name,
                    "LOTNO_SE": "1",
                    "LOTNO_SE_NM": "대지",
                    "MNO": f"{mno:04d}",
                    "SNO": f"{sno:04d}",
                    "FLR": int(rng.integers(1, 25)) if usage != "단독다가구" else None,
                    "CTRT_DAY": ymd(day),
                    "RENT_SE": "전세" if jeonse else "월세",
                    "RENT_AREA": area,
                    "GRFE": deposit,
                    "RTFE": rent,
                    "BLDG_NM": name,
                    "ARCH_YR": str(built),
                    "BLDG_USG": usage,
                    "CTRT_PRD": f"{day.strftime('%y.%m')}~{end.strftime('%y.%m')}",
                    "NEW_UPDT_YN": "갱신" if renewal else "신규",
                    "CTRT_UPDT_USE_YN": "사용" if renewal and used_right else "",
                    "BFR_GRFE": int(deposit * 0.95) if renewal else None,
                    "BFR_RTFE": int(rent * 0.95) if renewal else None,
                }
            )
        rows.sort(key=lambda r: r["CTRT_DAY"], reverse=True)
        self._rent_cache[key] = rows
        return rows

    def _rent(self, spec: DatasetSpec, as_of: dt.date, keys: Mapping[str, str]):
        first_year = max(2019, as_of.year - 7)
        years = list(range(as_of.year, first_year - 1, -1))
        year_key = keys.get("RCPT_YR")
        if year_key is not None:
            years = [y for y in years if str(y) == year_key]
        gus = self.sigungu_in("11")
        for name in ("CGG_CD", "CGG_NM"):
            wanted = keys.get(name)
            if wanted is not None:
                gus = [g for g in gus if (g.code if name == "CGG_CD" else g.name) == wanted]
        cutoff = ymd(as_of)
        out: list[dict[str, Any]] = []
        for year in years:
            for gu in gus:
                out.extend(r for r in self._rent_year(gu, year) if r["CTRT_DAY"] < cutoff)
        out.sort(key=lambda r: (r["CTRT_DAY"], r["CGG_CD"]), reverse=True)
        return out, ("RCPT_YR", "CGG_CD", "CGG_NM")


# ---------------------------------------------------------------------------
# Column makers of the facility family: (world, rng, column, place, serial) -> value
# ---------------------------------------------------------------------------


def _name(ds: DatasetWorld, rng, column: Column, place: _Place, serial: int) -> str:
    suffix = _pick(rng, column.arg)
    stem = _pick(rng, (_pick(rng, _BIZ_STEMS), _pick(rng, _BIZ_STEMS), _stem(place.dong.name), _stem(place.sgg.name)))
    return f"{stem}{suffix}"


def _road_addr(ds: DatasetWorld, rng, column: Column, place: _Place, serial: int) -> str:
    suffix = _pick(rng, ("", "", f", {int(rng.integers(1, 6))}층", f", {int(rng.integers(101, 110))}호"))
    return f"{place.sgg.sido.name} {place.sgg.name} {place.road} {place.building}{suffix} ({place.dong.name})"


def _road_addr_short(ds: DatasetWorld, rng, column: Column, place: _Place, serial: int) -> str:
    return f"{place.road} {place.building}"


def _lotno_addr(ds: DatasetWorld, rng, column: Column, place: _Place, serial: int) -> str:
    # The Gyeonggi portal leaves a trailing space after 번지 on some rows.
    tail = "번지 " if rng.random() < 0.2 else "번지"
    return f"{place.sgg.sido.name} {place.sgg.name} {place.dong.name} {place.bunji}{tail}"


def _phone(ds: DatasetWorld, rng, column: Column, place: _Place, serial: int) -> str:
    area = _AREA_CODES[place.sgg.sido.code]
    middle = int(rng.integers(200, 9999)) if area == "02" else int(rng.integers(200, 999))
    return f"{area}-{middle}-{int(rng.integers(0, 10000)):04d}"


def _decimal(ds: DatasetWorld, rng, column: Column, place: _Place, serial: int) -> str:
    low, high, decimals = column.arg
    return f"{math.exp(rng.uniform(math.log(low), math.log(high))):.{decimals}f}"


def _serial(ds: DatasetWorld, rng, column: Column, place: _Place, serial: int) -> str:
    return column.arg.format(n=serial)


def _gu_code(ds: DatasetWorld, rng, column: Column, place: _Place, serial: int) -> str:
    # The library register's own 4-digit 구 code: not the 5-digit LAWD_CD (a binding trap).
    return f"{ds.sigungu_in(place.sgg.sido.code).index(place.sgg) + 1:04d}"


def _stamp(ds: DatasetWorld, rng, column: Column, place: _Place, serial: int) -> str:
    day = dt.date(2024, 1, 1) + dt.timedelta(days=int(rng.integers(0, 600)))
    hour, minute, second = (int(rng.integers(0, n)) for n in (24, 60, 60))
    return f"{day.isoformat()} {hour:02d}:{minute:02d}:{second:02d}.0"


def _opnsf(ds: DatasetWorld, place: _Place) -> str:
    # LOCALDATA's 개방자치단체코드 of a Seoul 구: 3000000 종로구 … 3240000 강동구, in 시군구-code order
    return str(3000000 + 10000 * ds.sigungu_in(place.sgg.sido.code).index(place.sgg))


def _tm(place: _Place, axis: str, false_origin: Any) -> str:
    """중부원점 TM of a place, approximately: x from false easting 200000, y from a false northing of 500000
    (Bessel, EPSG:2097, as LOCALDATA sends it: 16 characters padded to 20) or 600000 (GRS80, EPSG:5186; the
    column's argument)."""
    if axis == "x":
        value = 200000.0 + (place.lon - 127.0) * 111320.0 * math.cos(math.radians(place.lat))
        return f"{value:.9f}"[:16].ljust(20) if false_origin is None else f"{value:.6f}"
    value = float(false_origin or 500000) + (place.lat - 38.0) * 110950.0
    return f"{value:.9f}"[:16].ljust(20) if false_origin is None else f"{value:.6f}"


def _mgtno(ds: DatasetWorld, rng, column: Column, place: _Place, serial: int, opened, record) -> str:
    year = opened.year if opened is not None else 2000
    return f"{_opnsf(ds, place)}-{column.arg}-{year}-{serial:05d}"


def _stamp14(ds: DatasetWorld, rng, column: Column, place: _Place, serial: int, opened, record) -> str:
    base = dt.datetime.combine(opened or dt.date(2020, 1, 1), dt.time(9))
    return (base + dt.timedelta(seconds=int(rng.integers(0, 400 * 86400)))).strftime("%Y%m%d%H%M%S")


def _joined(ds: DatasetWorld, rng, column: Column, place: _Place, serial: int, opened, record) -> str:
    sep, names, width = column.arg
    return sep.join(str(record.get(name, ""))[:width] for name in names)


def _mapped(ds: DatasetWorld, rng, column: Column, place: _Place, serial: int, opened, record) -> str:
    # the name of a code drawn in an earlier column (PKLT_KND NW → 노외 주차장)
    source, names = column.arg
    return names.get(str(record.get(source, "")), "")


#: column kinds whose value depends on the row's licence date or on columns made before it
_ROW_MAKERS: dict[str, Callable[..., Any]] = {
    "mgtno": _mgtno,
    "stamp14": _stamp14,
    "joined": _joined,
    "mapped": _mapped,
}


_COLUMN_MAKERS: dict[str, Callable[..., Any]] = {
    "sigungu_name": lambda ds, rng, c, p, n: p.sgg.name,
    "lawd_cd": lambda ds, rng, c, p, n: p.sgg.code,
    "sido_name": lambda ds, rng, c, p, n: p.sgg.sido.name,
    "dong_name": lambda ds, rng, c, p, n: p.dong.name,
    "sigun_office": lambda ds, rng, c, p, n: f"{p.sgg.name}청",
    "name": _name,
    "road_addr": _road_addr,
    "road_addr_short": _road_addr_short,
    "lotno_addr": _lotno_addr,
    "zip": lambda ds, rng, c, p, n: p.zip,
    "lat": lambda ds, rng, c, p, n: f"{p.lat:.{c.arg or 10}f}",
    "lon": lambda ds, rng, c, p, n: f"{p.lon:.{c.arg or 10}f}",
    "phone": _phone,
    "choice": lambda ds, rng, c, p, n: _pick(rng, c.arg),
    "int": lambda ds, rng, c, p, n: str(int(rng.integers(c.arg[0], c.arg[1] + 1))),
    "decimal": _decimal,
    "year": lambda ds, rng, c, p, n: str(int(rng.integers(c.arg[0], c.arg[1] + 1))),
    "serial": _serial,
    "gu_code": _gu_code,
    "stamp": _stamp,
    "const": lambda ds, rng, c, p, n: c.arg,
    "opnsf_code": lambda ds, rng, c, p, n: _opnsf(ds, p),
    "tm_x": lambda ds, rng, c, p, n: _tm(p, "x", c.arg),
    "tm_y": lambda ds, rng, c, p, n: _tm(p, "y", c.arg),
    "lotno_short": lambda ds, rng, c, p, n: f"{p.sgg.name} {p.dong.name} {p.bunji}",
    "phone_spaced": lambda ds, rng, c, p, n: _phone(ds, rng, c, p, n).replace("-", " ", 1).replace("-", ""),
    "zip6": lambda ds, rng, c, p, n: f"1{p.zip[1:3]}{int(rng.integers(0, 1000)):03d}",
    "float": lambda ds, rng, c, p, n: float(
        c.arg[2] * int(rng.integers(c.arg[0] // c.arg[2], c.arg[1] // c.arg[2] + 1))
    ),
    "int_num": lambda ds, rng, c, p, n: int(rng.integers(c.arg[0], c.arg[1] + 1)),
    "zip_num": lambda ds, rng, c, p, n: int(p.zip),
    "lat_num": lambda ds, rng, c, p, n: round(p.lat, 7),
    "lon_num": lambda ds, rng, c, p, n: round(p.lon, 7),
    # Filled per as-of date by DatasetWorld._facility.
    "open_date": lambda ds, rng, c, p, n: "",
    "close_date": lambda ds, rng, c, p, n: "",
    "state": lambda ds, rng, c, p, n: "",
    "now_count": lambda ds, rng, c, p, n: 0.0,
    "now_stamp": lambda ds, rng, c, p, n: "",
}

_FAMILIES: dict[
    str, Callable[[DatasetWorld, DatasetSpec, dt.date, Mapping[str, str]], tuple[list[dict[str, Any]], Iterable[str]]]
] = {
    "facility": DatasetWorld._facility,
    "gu_daily": DatasetWorld._gu_daily,
    "gu_now": DatasetWorld._gu_now,
    "subway": DatasetWorld._subway,
    "bus": DatasetWorld._bus,
    "spop": DatasetWorld._spop,
    "bike": DatasetWorld._bike,
    "rent": DatasetWorld._rent,
    "subway_month": DatasetWorld._subway_month,
}


def _reported_in_order(contracts: list[dict[str, Any]], as_of: dt.date) -> list[dict[str, Any]]:
    """The RTMS contracts reported before ``as_of``, by contract day, dong and complex, in the
    services' alphabetical field order, without the drawing's private ``_day``/``_reported``."""
    kept = sorted((c for c in contracts if c["_reported"] < as_of), key=lambda c: (c["_day"], c["umdNm"], c["aptNm"]))
    return [{k: c[k] for k in sorted(c, key=str.lower) if not k.startswith("_")} for c in kept]


def dataset_table(spec: DatasetSpec) -> "Callable[[World, Query], list[dict[str, Any]]]":
    """The world table of a dataset: its rows at the query's as-of date for the keys its family consumes."""

    def rows(world: "World", q: "Query") -> list[dict[str, Any]]:
        keys = {name: value for name in q.values if (value := q.get(name)) is not None}
        return world.datasets.rows(spec, q.as_of, keys)

    rows.__name__ = f"dataset_{spec.name}"
    return rows
