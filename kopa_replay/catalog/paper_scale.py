"""The paper-scale catalog: the built-in tools plus generated dataset tools, exactly 2,318 in all.

The paper's 2,318 tools are mostly the long tail of dataset APIs that local
governments publish on the three dataset platforms: 서울 열린데이터광장 (one
dataset per 구 and theme), 경기데이터드림 (one per 시군 and theme) and the
data.go.kr 표준데이터 APIs of each 시도. This module generates that tail
deterministically — the same tools in the same order on every machine, whatever
the world seed — from theme tables and the real region lists. The catalog defines
them here; the simulator serves every one (:mod:`kopa_replay.sim.platforms.generated`),
so every generated tool executes.

Each generated dataset is a :class:`DatasetSpec`: a family (seoul, gg,
datagokr), a region, a theme, a kind (``facility``: a list keyed by region and
filterable by a status code; ``stats``: daily figures keyed by a date
parameter), its service id and its columns (their value domains are the
simulator's: :mod:`kopa_replay.sim.platforms.generated`).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any

__all__ = [
    "PAPER_TOOL_COUNT",
    "DatasetSpec",
    "STATUSES",
    "THEMES",
    "columns",
    "dataset_specs",
    "date_param",
    "paper_specs",
    "paper_tool_dicts",
    "specs_by_tool",
    "status_param",
]

PAPER_TOOL_COUNT = 2318

# (slug, Korean name, kind, measure column (Korean), measure range)
THEMES: tuple[tuple[str, str, str, str, tuple[int, int]], ...] = (
    ("public_parking", "공영주차장", "facility", "주차면수", (10, 900)),
    ("public_wifi", "공공와이파이", "facility", "AP수", (1, 40)),
    ("library", "공공도서관", "facility", "장서수", (3000, 400000)),
    ("sports_facility", "공공체육시설", "facility", "수용인원", (20, 5000)),
    ("cctv", "방범CCTV", "facility", "카메라대수", (1, 12)),
    ("daycare", "어린이집", "facility", "정원", (10, 300)),
    ("senior_center", "경로당", "facility", "회원수", (10, 200)),
    ("pharmacy", "약국", "facility", "약사수", (1, 8)),
    ("clinic", "의원", "facility", "병상수", (0, 60)),
    ("model_restaurant", "모범음식점", "facility", "좌석수", (10, 300)),
    ("traditional_market", "전통시장", "facility", "점포수", (20, 900)),
    ("urban_park", "도시공원", "facility", "면적", (300, 900000)),
    ("ev_charger", "전기차충전소", "facility", "충전기수", (1, 30)),
    ("gas_station", "주유소", "facility", "주유기수", (2, 16)),
    ("public_toilet", "공중화장실", "facility", "변기수", (2, 40)),
    ("heat_shelter", "무더위쉼터", "facility", "이용가능인원", (10, 300)),
    ("cold_shelter", "한파쉼터", "facility", "이용가능인원", (10, 300)),
    ("street_light", "보안등", "facility", "등기구수", (1, 6)),
    ("smoking_area", "흡연구역", "facility", "면적", (4, 200)),
    ("bike_rack", "자전거보관소", "facility", "거치대수", (5, 200)),
    ("culture_center", "문화시설", "facility", "객석수", (30, 2000)),
    ("youth_center", "청소년시설", "facility", "정원", (20, 600)),
    ("welfare_center", "사회복지시설", "facility", "정원", (10, 500)),
    ("karaoke", "노래연습장", "facility", "방수", (4, 40)),
    ("lodging", "숙박업소", "facility", "객실수", (5, 400)),
    ("laundry", "세탁업소", "facility", "세탁기수", (1, 20)),
    ("hair_salon", "미용업소", "facility", "의자수", (1, 20)),
    ("animal_pharmacy", "동물약국", "facility", "약사수", (1, 4)),
    ("recycling_center", "재활용센터", "facility", "처리용량", (1, 300)),
    ("emergency_bell", "안심비상벨", "facility", "설치수", (1, 10)),
    ("noise_level", "소음측정", "stats", "측정값(dB)", (35, 85)),
    ("air_quality", "대기질측정", "stats", "미세먼지(㎍/㎥)", (3, 160)),
    ("illegal_parking", "불법주정차단속", "stats", "단속건수", (0, 400)),
    ("traffic_volume", "교통량", "stats", "통행량", (1000, 90000)),
    ("water_usage", "상수도사용량", "stats", "사용량(㎥)", (100, 90000)),
    ("waste_disposal", "생활폐기물배출", "stats", "배출량(t)", (1, 400)),
    ("civil_complaint", "민원접수", "stats", "접수건수", (0, 600)),
    ("bike_rental", "공공자전거이용", "stats", "대여건수", (0, 9000)),
    ("library_visits", "도서관이용", "stats", "이용자수", (0, 6000)),
    ("fire_dispatch", "화재출동", "stats", "출동건수", (0, 40)),
    ("ambulance_dispatch", "구급출동", "stats", "출동건수", (0, 200)),
    ("power_usage", "전력사용량", "stats", "사용량(MWh)", (10, 9000)),
    ("temperature", "기온관측", "stats", "기온(℃)", (-15, 36)),
    ("visitor_count", "관광객수", "stats", "방문객수", (0, 50000)),
    ("population_flow", "유동인구", "stats", "유동인구수", (100, 200000)),
)

# Real region lists the generated catalog is keyed by (seed-independent).
_SEOUL_GU = (
    ("11110", "종로구", "Jongno"),
    ("11140", "중구", "Jung"),
    ("11170", "용산구", "Yongsan"),
    ("11200", "성동구", "Seongdong"),
    ("11215", "광진구", "Gwangjin"),
    ("11230", "동대문구", "Dongdaemun"),
    ("11260", "중랑구", "Jungnang"),
    ("11290", "성북구", "Seongbuk"),
    ("11305", "강북구", "Gangbuk"),
    ("11320", "도봉구", "Dobong"),
    ("11350", "노원구", "Nowon"),
    ("11380", "은평구", "Eunpyeong"),
    ("11410", "서대문구", "Seodaemun"),
    ("11440", "마포구", "Mapo"),
    ("11470", "양천구", "Yangcheon"),
    ("11500", "강서구", "Gangseo"),
    ("11530", "구로구", "Guro"),
    ("11545", "금천구", "Geumcheon"),
    ("11560", "영등포구", "Yeongdeungpo"),
    ("11590", "동작구", "Dongjak"),
    ("11620", "관악구", "Gwanak"),
    ("11650", "서초구", "Seocho"),
    ("11680", "강남구", "Gangnam"),
    ("11710", "송파구", "Songpa"),
    ("11740", "강동구", "Gangdong"),
)
_GG_SIGUN = (
    ("41110", "수원시", "Suwon"),
    ("41130", "성남시", "Seongnam"),
    ("41150", "의정부시", "Uijeongbu"),
    ("41170", "안양시", "Anyang"),
    ("41190", "부천시", "Bucheon"),
    ("41210", "광명시", "Gwangmyeong"),
    ("41220", "평택시", "Pyeongtaek"),
    ("41250", "동두천시", "Dongducheon"),
    ("41270", "안산시", "Ansan"),
    ("41280", "고양시", "Goyang"),
    ("41290", "과천시", "Gwacheon"),
    ("41310", "구리시", "Guri"),
    ("41360", "남양주시", "Namyangju"),
    ("41370", "오산시", "Osan"),
    ("41390", "시흥시", "Siheung"),
    ("41410", "군포시", "Gunpo"),
    ("41430", "의왕시", "Uiwang"),
    ("41450", "하남시", "Hanam"),
    ("41460", "용인시", "Yongin"),
    ("41480", "파주시", "Paju"),
    ("41500", "이천시", "Icheon"),
    ("41550", "안성시", "Anseong"),
    ("41570", "김포시", "Gimpo"),
    ("41590", "화성시", "Hwaseong"),
    ("41610", "광주시", "Gwangju"),
    ("41630", "양주시", "Yangju"),
    ("41650", "포천시", "Pocheon"),
    ("41670", "여주시", "Yeoju"),
    ("41800", "연천군", "Yeoncheon"),
    ("41820", "가평군", "Gapyeong"),
    ("41830", "양평군", "Yangpyeong"),
)
# 시도 with their data.go.kr institution codes (the path prefix of their APIs).
_SIDO_ORGS = (
    ("11", "서울특별시", "Seoul", "6110000"),
    ("26", "부산광역시", "Busan", "6260000"),
    ("27", "대구광역시", "Daegu", "6270000"),
    ("28", "인천광역시", "Incheon", "6280000"),
    ("29", "광주광역시", "Gwangju", "6290000"),
    ("30", "대전광역시", "Daejeon", "6300000"),
    ("31", "울산광역시", "Ulsan", "6310000"),
    ("36", "세종특별자치시", "Sejong", "5690000"),
    ("41", "경기도", "Gyeonggi", "6410000"),
    ("51", "강원특별자치도", "Gangwon", "6530000"),
    ("43", "충청북도", "Chungbuk", "6430000"),
    ("44", "충청남도", "Chungnam", "6440000"),
    ("52", "전북특별자치도", "Jeonbuk", "6540000"),
    ("46", "전라남도", "Jeonnam", "6460000"),
    ("47", "경상북도", "Gyeongbuk", "6470000"),
    ("48", "경상남도", "Gyeongnam", "6480000"),
    ("50", "제주특별자치도", "Jeju", "6500000"),
)


def _camel(slug: str) -> str:
    return "".join(part.capitalize() for part in slug.split("_"))


@dataclass(frozen=True)
class DatasetSpec:
    """One generated dataset API."""

    family: str  # seoul | gg | datagokr
    tool: str  # catalog tool name
    route: str  # what the host's protocol routes on
    region_code: str  # 5-digit 시군구 code, or 2-digit 시도 code (datagokr)
    region_name: str
    region_english: str
    theme: str  # slug
    theme_ko: str
    kind: str  # facility | stats
    measure_ko: str
    measure_range: tuple[int, int]
    org: str = ""  # data.go.kr institution code

    @property
    def title(self) -> str:
        return f"{self.region_name} {self.theme_ko} {'현황' if self.kind == 'facility' else '통계'}"


def _specs_for(family: str) -> list[DatasetSpec]:
    specs: list[DatasetSpec] = []
    for slug, ko, kind, measure, span in THEMES:
        if family == "seoul":
            for code, name, english in _SEOUL_GU:
                service = f"{english}{_camel(slug)}{'Info' if kind == 'facility' else 'Stats'}"
                specs.append(
                    DatasetSpec(
                        "seoul",
                        f"seoul_{english.lower()}_{slug}",
                        service,
                        code,
                        name,
                        english,
                        slug,
                        ko,
                        kind,
                        measure,
                        span,
                    )
                )
        elif family == "gg":
            for code, name, english in _GG_SIGUN:
                service = f"{english.upper()}{_camel(slug).upper()}"
                specs.append(
                    DatasetSpec(
                        "gg",
                        f"gg_{english.lower()}_{slug}",
                        service,
                        code,
                        name,
                        english,
                        slug,
                        ko,
                        kind,
                        measure,
                        span,
                    )
                )
        else:
            for code, name, english, org in _SIDO_ORGS:
                service = f"/{org}/{english}{_camel(slug)}Service/get{_camel(slug)}List"
                specs.append(
                    DatasetSpec(
                        "datagokr",
                        f"datagokr_{english.lower()}_{slug}",
                        service,
                        code,
                        name,
                        english,
                        slug,
                        ko,
                        kind,
                        measure,
                        span,
                        org,
                    )
                )
    return specs


@lru_cache(maxsize=1)
def dataset_specs() -> tuple[DatasetSpec, ...]:
    """Every generated dataset, in one fixed order (3,285 of them).

    Each family's datasets are put in a fixed pseudo-random order (a generator
    seeded with 2318, not the world seed) and the families are interleaved, so
    any prefix mixes families, themes, regions and kinds. The paper-scale
    catalog takes the prefix it needs; the simulator serves them all.
    """
    import numpy as np

    families: list[list[DatasetSpec]] = []
    for number, family in enumerate(("seoul", "gg", "datagokr")):
        specs = _specs_for(family)
        order = np.random.default_rng([PAPER_TOOL_COUNT, number]).permutation(len(specs))
        families.append([specs[int(i)] for i in order])
    merged: list[DatasetSpec] = []
    for index in range(max(len(f) for f in families)):
        for family_specs in families:
            if index < len(family_specs):
                merged.append(family_specs[index])
    return tuple(merged)


def paper_specs(builtin_count: int) -> tuple[DatasetSpec, ...]:
    """The generated datasets that bring ``builtin_count`` hand-modelled tools to exactly 2,318."""
    needed = PAPER_TOOL_COUNT - builtin_count
    specs = dataset_specs()
    if not 0 <= needed <= len(specs):
        raise ValueError(f"cannot reach {PAPER_TOOL_COUNT} tools from {builtin_count} built-in ones")
    return specs[:needed]


# -- columns ---------------------------------------------------------------
#: Column names per family: (name, region name, region code, address, lat, lon, phone, date, status, measure)
_COLUMNS = {
    "seoul": ("FCLTY_NM", "GU_NM", "GU_CD", "ADRES", "LAT", "LNG", "TELNO", "STDR_DE", "STTUS_NM", "MESURE_VALUE"),
    "gg": (
        "FACLT_NM",
        "SIGUN_NM",
        "SIGUN_CD",
        "REFINE_ROADNM_ADDR",
        "REFINE_WGS84_LAT",
        "REFINE_WGS84_LOGT",
        "TELNO",
        "DATA_STD_DE",
        "BSN_STATE_NM",
        "MESURE_VAL",
    ),
    "datagokr": (
        "fcltyNm",
        "signguNm",
        "signguCode",
        "rdnmadr",
        "latitude",
        "longitude",
        "phoneNumber",
        "referenceDate",
        "sttusNm",
        "measureValue",
    ),
}
STATUSES = ("운영", "휴업", "폐업")


def columns(spec: DatasetSpec) -> tuple[str, ...]:
    return _COLUMNS[spec.family]


def date_param(spec: DatasetSpec) -> str:
    return {"seoul": "STDR_DE", "gg": "DATA_STD_DE", "datagokr": "referenceDate"}[spec.family]


def status_param(spec: DatasetSpec) -> str:
    return _COLUMNS[spec.family][8]


# -- catalog entries ---------------------------------------------------------
def _describe(spec: DatasetSpec) -> dict[str, str]:
    what_ko = f"{spec.region_name}의 {spec.theme_ko} {'목록' if spec.kind == 'facility' else '일별 통계'}"
    what_en = (
        f"{spec.theme.replace('_', ' ')} {'facilities' if spec.kind == 'facility' else 'daily statistics'}"
        f" of {spec.region_english}"
    )
    if spec.kind == "stats":
        what_ko += f"을 기준일자({date_param(spec)}, YYYYMMDD)로 조회합니다. 기준일 이후 자료는 없습니다."
        what_en += f" for one reference date ({date_param(spec)}, YYYYMMDD); no data after the as-of date."
    else:
        what_ko += f"을 조회합니다. 운영상태({status_param(spec)})로 거를 수 있습니다."
        what_en += f"; filter by operating status ({status_param(spec)})."
    paging = {
        "seoul": ("START/END(1부터, 최대 1000건)", "START/END indexes (1-based, at most 1000 rows)"),
        "gg": ("pIndex/pSize(최대 1000)", "pIndex/pSize (at most 1000)"),
        "datagokr": ("pageNo/numOfRows", "pageNo/numOfRows"),
    }[spec.family]
    return {
        "ko": f"{what_ko} 전체 건수는 total_count, 페이지는 {paging[0]}.",
        "en": f"{what_en}. Total in total_count; pages by {paging[1]}.",
    }


def _output(spec: DatasetSpec) -> dict[str, Any]:
    names = _COLUMNS[spec.family]
    texts = (
        "시설명 | facility name",
        "시군구명 | district name",
        "시군구코드 5자리 | 5-digit district code",
        "도로명주소 | road address",
        "위도 | latitude",
        "경도 | longitude",
        "전화번호 | phone",
        "기준일자 YYYYMMDD | reference date",
        "운영상태 | operating status",
        f"{spec.measure_ko} | measure",
    )
    return {name: {"type": "string", "description": text} for name, text in zip(names, texts)}


def _tool_dict(spec: DatasetSpec) -> dict[str, Any]:
    status = status_param(spec)
    params: dict[str, Any] = {}
    example: dict[str, Any] = {}
    if spec.kind == "stats":
        params[date_param(spec)] = {
            "type": "string",
            "required": True,
            "pattern": "^[0-9]{8}$",
            "description": {"ko": "기준일자 YYYYMMDD", "en": "reference date YYYYMMDD"},
        }
        example[date_param(spec)] = "20260831"
    else:
        params[status] = {
            "type": "string",
            "enum": list(STATUSES),
            "description": {"ko": "운영상태", "en": "operating status"},
        }
    if spec.family == "seoul":
        path = f"/{{key}}/json/{spec.route}/{{START}}/{{END}}"
        if spec.kind == "stats":
            path += f"/{{{date_param(spec)}}}"
            params[date_param(spec)]["in"] = "path"
        else:
            params[status]["in"] = "query"
        params["START"] = {
            "type": "integer",
            "required": True,
            "in": "path",
            "minimum": 1,
            "description": {"ko": "시작 위치(1부터)", "en": "first row, 1-based"},
        }
        params["END"] = {
            "type": "integer",
            "required": True,
            "in": "path",
            "minimum": 1,
            "description": {"ko": "끝 위치(포함)", "en": "last row, inclusive"},
        }
        example.update(START=1, END=5)
        http = {"path": path}
    elif spec.family == "gg":
        params["pIndex"] = {"type": "integer", "minimum": 1, "description": {"ko": "페이지 번호", "en": "page"}}
        params["pSize"] = {
            "type": "integer",
            "minimum": 1,
            "maximum": 1000,
            "description": {"ko": "페이지 크기", "en": "page size"},
        }
        http = {"path": f"/{spec.route}"}
    else:
        params["pageNo"] = {"type": "integer", "minimum": 1, "description": {"ko": "페이지 번호", "en": "page"}}
        params["numOfRows"] = {
            "type": "integer",
            "minimum": 1,
            "description": {"ko": "한 페이지 결과 수", "en": "rows per page"},
        }
        http = {"path": spec.route}
    return {
        "name": spec.tool,
        "title": spec.title,
        "platform": spec.family,
        "description": _describe(spec),
        "params": params,
        "output": _output(spec),
        "http": http,
        "examples": [example],
        "generated": True,
    }


def paper_tool_dicts(builtin_count: int) -> list[dict[str, Any]]:
    """Catalog entries (the loader's compact form) of the generated tools."""
    return [_tool_dict(spec) for spec in paper_specs(builtin_count)]


@lru_cache(maxsize=1)
def specs_by_tool() -> dict[str, DatasetSpec]:
    return {spec.tool: spec for spec in dataset_specs()}
