"""국가법령정보 공동활용 DRF (www.law.go.kr/DRF/lawSearch.do, /DRF/lawService.do).

Two paths serve every collection; the ``target`` parameter chooses it, so an
endpoint's route is ``lawSearch.do?target=law`` and so on. The key is ``OC``
(the account's e-mail id). ``type`` is XML unless ``JSON``.

Every operation but the two statute bodies is a row of ``kopa_replay/sim/tables/law.yaml`` answered by one of two
engines: a search (``kind: search``, a page of records under the row's ``root``/``item``) or a service (``kind:
service``, one document under its ``root``). The roots differ by target as the live service sends them (``Expc``,
``Decc``, ``DetcSearch`` with ``Detc`` items, ``PrecService``, ``LawService`` for an ordinance …); the world tables
below make the records, and the decisions of the Constitutional Court, administrative appeals and twelve committees
share one table whose fields are made by name (:func:`_decision_value`).

Shapes, as the real service sends them:

* search: ``{"LawSearch": {"target", "키워드", "section", "totalCnt", "page",
  "numOfRows", "resultCode": "00", "resultMsg": "success", "law": [...]}}`` —
  one hit comes as an object, not a list, and no hit leaves the item key out
  (``totalCnt`` 0). In XML the items carry ``id`` as an attribute
  (``<law id="1">``); ordinance items are ``<law>`` too, inside ``<OrdinSearch>``.
  ``display`` is 20 by default and capped at 100; ``page`` counts from 1.
* detail links echo the caller's ``OC``
  (``/DRF/lawService.do?OC=<oc>&target=law&MST=…&type=HTML``) — so bodies carry
  the key, and recordings must scrub it.
* service: ``{"법령": {"기본정보": {...}, "조문": {"조문단위": [...]}}}``
  (XML ``<법령 법령키="…">``); precedents ``{"PrecService": {...}}``. An unknown
  MST/ID answers ``{"Law": "일치하는 법령이 없습니다. 법령명을 확인하여 주십시오."}`` (for
  precedents ``일치하는 판례가 없습니다.  판례명을 확인하여 주십시오.``, two spaces),
  HTTP 200, which is also what a statute *name* in MST gets.
* an unregistered OC: HTTP 200 ``{"result": "사용자 정보 검증에 실패하였습니다.",
  "msg": "OPEN API 호출 시 …"}``; XML ``<Response><result/><msg/></Response>``.

Not documented by the provider, decided here and spelled in the same
``result``/``msg`` shape: a missing or malformed parameter, an unknown
``target`` and a traffic limit. Maintenance and server errors are the
web server's HTML pages (503 / 500).
"""

from __future__ import annotations

import datetime as dt
from typing import Any, Callable, Mapping, Sequence

from kopa_replay.sim.core import (
    BadParam,
    Context,
    Doc,
    Endpoint,
    ErrorKind,
    MissingParam,
    NoData,
    Protocol,
    Query,
    paged,
)
from kopa_replay.sim.messages import SimRequest
from kopa_replay.sim.tables import endpoints
from kopa_replay.sim.world.calendar import parse_ymd, ymd
from kopa_replay.sim.world.finance import LazyRows
from kopa_replay.sim.world.laws import DECISION_KINDS, ENGLISH_NAMES, KIND_CODES, MINISTRIES

HOST = "www.law.go.kr"

AUTH_FAILED = "사용자 정보 검증에 실패하였습니다."
AUTH_FAILED_MSG = "OPEN API 호출 시 사용자 검증을 위하여 정확한 서버장비의 IP주소 및 도메인주소를 등록해 주세요."
LAW_NOT_FOUND = "일치하는 법령이 없습니다. 법령명을 확인하여 주십시오."
PREC_NOT_FOUND = "일치하는 판례가 없습니다.  판례명을 확인하여 주십시오."
# Invented (the provider documents none of these): the same result/msg shape as the auth failure.
BAD_REQUEST = "요청 파라미터가 올바르지 않습니다."
MISSING = "필수 요청 파라미터가 누락되었습니다."
UNKNOWN_TARGET = "지원하지 않는 target 입니다."
TRAFFIC = "일일 호출 한도를 초과하였습니다."

_HTML_PAGES = {
    ErrorKind.MAINTENANCE: (503, "서비스 점검 중입니다"),
    ErrorKind.SERVER_ERROR: (500, "일시적인 오류가 발생했습니다"),
}


def _jsonify(value: Any) -> Any:
    """XML-form values (``@attr``, ``#text``) as the JSON the service sends (``attr``, ``content``)."""
    if isinstance(value, list):
        return [_jsonify(v) for v in value]
    if isinstance(value, dict):
        return {
            ("content" if k == "#text" else k[1:] if k.startswith("@") else k): _jsonify(v) for k, v in value.items()
        }
    return value


class LawProtocol(Protocol):
    """The DRF envelope: route by (path, target), key ``OC``, search pages of ``display`` ≤ 100."""

    name = "law"
    key_params = ("OC",)
    paging_params = ("page", "display")
    default_size = 20
    max_size = 100

    def route(self, request: SimRequest) -> tuple[str, dict[str, str]]:
        if not request.path.startswith("/DRF/"):
            return request.path, {}
        return f"{request.path.rsplit('/', 1)[-1]}?target={request.param_ci('target') or ''}", {}

    def wants_xml(self, request: SimRequest, endpoint, path_params) -> bool:
        return (request.param_ci("type") or "XML").upper() != "JSON"

    def params(self, ctx: Context) -> dict[str, str]:
        values = super().params(ctx)
        return {k: v for k, v in values.items() if k.lower() not in ("type", "target")}

    def window(self, ctx: Context, params: Mapping[str, str]) -> tuple[int, int, dict[str, Any]]:
        if ctx.endpoint is None or ctx.endpoint.options.get("kind") != "search":
            return 0, 10**9, {}
        return paged(params, "page", "display", self.default_size, ctx.max_size(self.max_size))

    # -- success -------------------------------------------------------------
    def ok(self, ctx: Context, records: list[dict[str, Any]], total: int, meta: Mapping[str, Any]) -> Doc:
        options = ctx.endpoint.options
        if options.get("kind") != "search":
            if not records:
                return self.error(ctx, ErrorKind.NO_DATA)
            body = records[0]
            return self._doc(ctx, options["root"], body)
        return self._search(ctx, records, total, meta)

    def _search(self, ctx: Context, records: list[dict[str, Any]], total: int, meta: Mapping[str, Any]) -> Doc:
        options = ctx.endpoint.options
        oc = ctx.request.param_ci("OC") or ""
        first = (meta.get("page", 1) - 1) * meta.get("size", self.default_size) + 1
        items = []
        for index, record in enumerate(records):
            # the result position is the item's id attribute (XML) / "id" (JSON), always first
            item = {"@id": str(first + index), **{k: v for k, v in record.items() if k != "id"}}
            link = options["link"]
            # The service writes the caller's OC into every detail link.
            item[link] = item[link].replace("?", f"?OC={oc}&", 1)
            items.append(item)
        query = ctx.request.param("query") or ""
        search = ctx.request.param("search") or "1"
        body: dict[str, Any] = {
            "target": ctx.endpoint.route.split("target=", 1)[1],
            "키워드": query,
            "section": "bdyText" if search == "2" else options["section"],
            "totalCnt": str(total),
            "page": str(meta.get("page", 1)),
            "numOfRows": str(meta.get("size", self.default_size)),
            "resultCode": ctx.code("00"),
            "resultMsg": "success",
        }
        if items:
            # JSON quirk: a single hit is an object, not a list (XML repeats the element either way).
            body[options["item"]] = items if (ctx.xml or len(items) > 1) else items[0]
        return self._doc(ctx, options["root"], body)

    @staticmethod
    def _doc(ctx: Context, root: str, body: dict[str, Any]) -> Doc:
        if ctx.xml:
            return Doc(body, xml=True, xml_root=root)
        return Doc({root: _jsonify(body)})

    # -- errors ----------------------------------------------------------------
    def error(self, ctx: Context, kind: str, detail: str = "") -> Doc:
        if kind in _HTML_PAGES:
            status, text = _HTML_PAGES[kind]
            page = f"<html><head><title>국가법령정보센터</title></head><body><p>{text}</p></body></html>"
            return Doc(page.encode("utf-8"), status=status, content_type="text/html;charset=UTF-8")
        if kind == ErrorKind.NO_DATA and ctx.endpoint is not None:
            if ctx.endpoint.options.get("kind") == "search":
                size = min(
                    _int(ctx.request.param("display"), self.default_size), ctx.max_size(self.max_size) or self.max_size
                )
                return self._search(ctx, [], 0, {"page": _int(ctx.request.param("page"), 1), "size": size})
            text = ctx.code(ctx.endpoint.options["not_found"])
            # the not-found answer is a bare string under "Law" (XML: <Law>…</Law>)
            return Doc({"#text": text}, xml=True, xml_root="Law") if ctx.xml else Doc({"Law": text})
        result, msg = {
            ErrorKind.INVALID_KEY: (AUTH_FAILED, AUTH_FAILED_MSG),
            ErrorKind.MISSING_PARAM: (MISSING, f"{detail or '필수'} 값을 확인해 주세요."),
            ErrorKind.BAD_PARAM: (BAD_REQUEST, f"{detail or '요청'} 값을 확인해 주세요."),
            ErrorKind.NOT_FOUND: (UNKNOWN_TARGET, "target 값을 확인해 주세요."),
            ErrorKind.RATE_LIMIT: (TRAFFIC, "잠시 후 다시 시도해 주세요."),
            ErrorKind.NO_DATA: (LAW_NOT_FOUND, ""),
        }[kind]
        body = {"result": ctx.code(result), "msg": msg}
        if ctx.xml:
            return Doc(body, xml=True, xml_root="Response")
        return Doc(body)


def _int(text: str | None, default: int) -> int:
    return int(text) if text and text.isdigit() and int(text) > 0 else default


PROTOCOL = LawProtocol()


# -- helpers -------------------------------------------------------------------
def _compact(text: str) -> str:
    return text.replace(" ", "")


def _dotted(day: dt.date) -> str:
    """``2023.05.18``: how search lists write 선고일자, 회신일자 and the decisions' dates."""
    return day.strftime("%Y.%m.%d")


def _text_match(query: str | None, *texts: str) -> bool:
    """The service's name search: a substring match that ignores spaces."""
    if query is None:
        return True
    wanted = _compact(query)
    return any(wanted in _compact(text) for text in texts)


_SORTS = ("lasc", "ldes", "dasc", "ddes", "nasc", "ndes", "efasc", "efdes")


def _sorted(items: list, keys: Callable[[Any], tuple], make: Callable[[Any], dict[str, Any]], q: Query) -> LazyRows:
    """Order items by ``sort``: name (l), date (d), number (n) or effective date (ef), asc/desc; name asc by
    default. ``keys`` gives an item's ``(name, date, number, effective)``; records are made for the page alone."""
    sort = (q.get("sort") or "lasc").lower()
    if sort not in _SORTS:
        raise BadParam("sort", sort)
    field = {"l": 0, "d": 1, "n": 2, "e": 3}[sort[0]]
    keyed = [(keys(item), item) for item in items]
    keyed.sort(key=lambda pair: (pair[0][field], pair[0][0]), reverse=sort.endswith("des"))
    return LazyRows([item for _, item in keyed], make)


def _link(target: str, key: str, value: str, tail: str = "") -> str:
    return f"/DRF/lawService.do?target={target}&{key}={value}&type=HTML{tail}"


def _topic(word: str) -> str:
    """The word with its topic particle: 은 after a final consonant, 는 after a vowel (훈령은, 고시는)."""
    code = ord(word[-1]) - 0xAC00
    return word + ("은" if 0 <= code < 11172 and code % 28 else "는")


def _range(q: Query, name: str) -> tuple[dt.date, dt.date] | None:
    """A ``YYYYMMDD~YYYYMMDD`` range parameter (efYd, ancYd …)."""
    text = q.get(name)
    if text is None:
        return None
    low, _, high = text.partition("~")
    days = [parse_ymd(low.strip()), parse_ymd((high or low).strip())]
    if None in days:
        raise BadParam(name, text)
    return days[0], days[1]  # type: ignore[return-value]


# -- statutes --------------------------------------------------------------------
def _statute_record(statute, version, status: str, link: str) -> dict[str, Any]:
    return {
        "법령일련번호": version.mst,
        "현행연혁코드": status,
        "법령명한글": statute.name,
        "법령약칭명": statute.abbrev,
        "법령명영문": ENGLISH_NAMES.get(statute.name, ""),
        "법령ID": statute.law_id,
        "공포일자": ymd(version.promulgated),
        "공포번호": version.number,
        "제개정구분명": version.revision,
        "소관부처코드": statute.ministry_code,
        "소관부처명": statute.ministry,
        "법령구분명": statute.kind,
        "공동부령정보": "",
        "공동부령구분": "",
        "시행일자": ymd(version.enforced),
        "자법타법여부": "",
        "등록일": ymd(version.promulgated),
        "법령상세링크": link,
    }


def _statute_filter(world, q: Query, pool) -> list:
    query, org = q.get("query"), q.get("org")
    by_body = q.get("search") == "2"
    out = []
    for statute in pool:
        if org is not None and statute.ministry_code != org:
            continue
        version = statute.current(q.as_of)
        if version is None:
            continue
        if by_body:
            if query is not None and not any(
                _text_match(query, unit.get("조문내용", "")) for unit in world.laws.articles(statute, version)
            ):
                continue
        elif not _text_match(query, statute.name, statute.abbrev, ENGLISH_NAMES.get(statute.name, "")):
            continue
        out.append(statute)
    return out


def _statute_keys(statute, version) -> tuple:
    return (statute.name, version.promulgated, int(version.number), version.enforced)


def search_law(world, q: Query) -> Sequence[dict[str, Any]]:
    """현행법령: each statute's version in force at the as-of date."""

    def make(statute):
        version = statute.current(q.as_of)
        status = "시행예정" if version.enforced > q.as_of else "현행"
        return _statute_record(statute, version, status, _link("law", "MST", version.mst))

    found = _statute_filter(world, q, world.laws.statutes)
    return _sorted(found, lambda s: _statute_keys(s, s.current(q.as_of)), make, q)


def search_eflaw(world, q: Query) -> Sequence[dict[str, Any]]:
    """시행일 법령: one row per promulgated version (연혁, 현행, 시행예정), filtered by nw, efYd and ancYd."""
    nw, ef_range, anc_range = q.get("nw"), _range(q, "efYd"), _range(q, "ancYd")
    if nw not in (None, "1", "2", "3"):
        raise BadParam("nw", nw)
    law_id = q.get("LID")
    pool = world.laws.statutes
    if law_id is not None:
        found = world.laws.by_id.get(law_id.zfill(6) if law_id.isdigit() else law_id)
        pool = (found,) if found else ()
    rows = []
    for statute in _statute_filter(world, q, pool):
        current = statute.current(q.as_of)
        in_force = max((v for v in statute.versions if v.enforced <= q.as_of), key=lambda v: v.enforced, default=None)
        for version in statute.versions:
            if version.promulgated > q.as_of:
                continue
            status = (
                "시행예정" if version.enforced > q.as_of else "현행" if version is (in_force or current) else "연혁"
            )
            if nw is not None and status != {"1": "연혁", "2": "시행예정", "3": "현행"}[nw]:
                continue
            if ef_range and not ef_range[0] <= version.enforced <= ef_range[1]:
                continue
            if anc_range and not anc_range[0] <= version.promulgated <= anc_range[1]:
                continue
            rows.append((statute, version, status))

    def make(row):
        statute, version, status = row
        link = _link("eflaw", "MST", version.mst, f"&efYd={ymd(version.enforced)}")
        return _statute_record(statute, version, status, link)

    return _sorted(rows, lambda r: _statute_keys(r[0], r[1]), make, q)


def search_elaw(world, q: Query) -> Sequence[dict[str, Any]]:
    """영문법령: the acts 법제처 translates, in force at the as-of date."""

    def make(statute):
        version = statute.current(q.as_of)
        return _statute_record(statute, version, "현행", _link("elaw", "MST", version.mst))

    pool = [s for s in world.laws.acts if s.name in ENGLISH_NAMES]
    found = _statute_filter(world, q, pool)
    return _sorted(found, lambda s: _statute_keys(s, s.current(q.as_of)), make, q)


def search_abbrev(world, q: Query) -> Sequence[dict[str, Any]]:
    """법률명 약칭: the statutes with a short name, registered (등록일) within stdDt–endDt."""
    start, end = q.date("stdDt"), q.date("endDt")

    def make(statute):
        version = statute.current(q.as_of)
        return _statute_record(statute, version, "현행", _link("law", "MST", version.mst))

    found = []
    for statute in world.laws.statutes:
        version = statute.current(q.as_of)
        if not statute.abbrev or version is None:
            continue
        if (start and version.promulgated < start) or (end and version.promulgated > end):
            continue
        found.append(statute)
    return _sorted(found, lambda s: _statute_keys(s, s.current(q.as_of)), make, q)


def _statute_for(world, q: Query):
    mst, law_id = q.get("MST"), q.get("ID")
    if mst is not None:
        found = world.laws.by_mst.get(mst)
        if found is None or found[1].promulgated > q.as_of:
            raise NoData()
        return found
    if law_id is not None:
        statute = world.laws.by_id.get(law_id.zfill(6) if law_id.isdigit() else law_id)
        version = statute.current(q.as_of) if statute else None
        if version is None:
            raise NoData()
        return statute, version
    raise MissingParam("MST")


def _jo(q: Query) -> int | None:
    """JO: one article, as six digits AAAABB (article, branch); none → every article."""
    jo = q.get("JO")
    if jo is None:
        return None
    if not (jo.isdigit() and len(jo) == 6):
        raise BadParam("JO", jo)
    return int(jo[:4])


def get_law(world, q: Query) -> list[dict[str, Any]]:
    """법령 본문 (target law and eflaw): the basic facts and every article, or the one JO names."""
    statute, version = _statute_for(world, q)
    number = _jo(q)
    units = []
    for unit in world.laws.articles(statute, version, number):
        unit = dict(unit)
        units.append({"@조문키": unit.pop("조문키"), **unit})
    if not units:
        raise NoData()
    basics = {
        "법령ID": statute.law_id,
        "공포일자": ymd(version.promulgated),
        "공포번호": version.number,
        "언어": "한글",
        "법종구분": {"@법종구분코드": KIND_CODES[statute.kind], "#text": statute.kind},
        "법령명_한글": statute.name,
        "법령명약칭": statute.abbrev,
        "제개정구분": version.revision,
        "소관부처": {"@소관부처코드": MINISTRIES[statute.ministry], "#text": statute.ministry},
        "시행일자": ymd(version.enforced),
        "공포법령여부": "Y",
    }
    return [
        {
            "@법령키": f"{statute.law_id}{ymd(version.promulgated)}{version.number}",
            "기본정보": basics,
            "조문": {"조문단위": units},
        }
    ]


def get_elaw(world, q: Query) -> list[dict[str, Any]]:
    """영문법령 본문: Law → InfSection (the basic facts) and JoSection.Jo (the articles)."""
    statute, version = _statute_for(world, q)
    english = ENGLISH_NAMES.get(statute.name)
    if english is None:
        raise NoData()
    articles = [
        {
            "joNo": unit["조문번호"],
            "joYn": "Y" if unit["조문여부"] == "조문" else "N",
            "joCts": f"Article {unit['조문번호']}" if unit["조문여부"] == "조문" else unit["조문내용"],
        }
        for unit in world.laws.articles(statute, version, _jo(q))
    ]
    info = {
        "lsId": statute.law_id,
        "lsNmKor": statute.name,
        "lsNmEng": english,
        "ancYd": ymd(version.promulgated),
        "ancNo": version.number,
        "efYd": ymd(version.enforced),
        "lsClsNm": statute.kind,
        "ministry": statute.ministry,
    }
    return [{"InfSection": info, "JoSection": {"Jo": articles}}]


# -- precedents and interpretations ----------------------------------------------------
def _references(precedent) -> str:
    return ", ".join(f"{law} 제{article}조" for law, article in precedent.references)


def search_prec(world, q: Query) -> Sequence[dict[str, Any]]:
    query, law, court, org, number = q.get("query"), q.get("JO"), q.get("curt"), q.get("org"), q.get("nb")
    by_body = q.get("search") == "2"
    found = []
    for p in world.laws.precedents:
        if p.decided > q.as_of:
            continue
        if by_body:
            if not _text_match(query, p.name, _references(p)):
                continue
        elif not _text_match(query, p.name):
            continue
        if law is not None and not any(_compact(name) == _compact(law) for name, _ in p.references):
            continue
        if (
            (court is not None and p.court != court)
            or (org is not None and p.court_code != org)
            or (number is not None and p.case_no != number)
        ):
            continue
        found.append(p)

    def make(p):
        return {
            "판례일련번호": p.serial,
            "사건명": p.name,
            "사건번호": p.case_no,
            "선고일자": _dotted(p.decided),
            "법원명": p.court,
            "법원종류코드": p.court_code,
            "사건종류명": p.case_kind,
            "사건종류코드": p.case_kind_code,
            "판결유형": p.judgment,
            "선고": "선고",
            "데이터출처명": "대법원",
            "판례상세링크": _link("prec", "ID", p.serial),
        }

    return _sorted(found, lambda p: (p.name, p.decided, p.case_no, p.decided), make, q)


def get_prec(world, q: Query) -> list[dict[str, Any]]:
    """판례 본문 by ID (판례일련번호); the serial given as MST is taken too, as public clients send it."""
    serial = q.get("ID") or q.get("MST")
    if serial is None:
        raise MissingParam("ID")
    p = world.laws.precedent_by_serial.get(serial)
    if p is None or p.decided > q.as_of:
        raise NoData()
    law, article = p.references[0]
    parties = (
        "【피 고 인】 피고인\n【상 고 인】 검사"
        if p.case_kind == "형사"
        else "【원고, 피상고인】 원고\n【피고, 상고인】 피고"
    )
    disposition = "상고를 기각한다." if p.court == "대법원" else "원고의 청구를 기각한다."
    return [
        {
            "판례정보일련번호": p.serial,
            "사건명": p.name,
            "사건번호": p.case_no,
            "선고일자": ymd(p.decided),
            "선고": "선고",
            "법원명": p.court,
            "법원종류코드": p.court_code,
            "사건종류명": p.case_kind,
            "사건종류코드": p.case_kind_code,
            "판결유형": p.judgment,
            "판시사항": f"[1] {law} 제{article}조의 규정 취지 및 그 적용 범위 [2] 원심판단에 법리오해의 잘못이 없다고 한 사례",
            "판결요지": f"[1] {law} 제{article}조는 그 규정의 문언과 입법 취지에 비추어 엄격하게 해석하여야 한다. "
            "[2] 원심이 같은 취지에서 판단한 것은 정당하다.",
            "참조조문": _references(p),
            "참조판례": p.cited,
            "판례내용": f"{parties}\n【원심판결】 \n【주 문】 {disposition}\n【이 유】 {law} 제{article}조에 관한 "
            "법리를 오해한 잘못이 없다. 그러므로 주문과 같이 판결한다.",
        }
    ]


def search_expc(world, q: Query) -> Sequence[dict[str, Any]]:
    query, inquirer = q.get("query"), q.get("inq")
    found = [
        e
        for e in world.laws.interpretations
        if e.replied <= q.as_of and _text_match(query, e.title) and (inquirer is None or e.inquirer == inquirer)
    ]

    def make(e):
        return {
            "법령해석례일련번호": e.serial,
            "안건명": e.title,
            "안건번호": e.case_no,
            "질의기관코드": e.inquirer_code,
            "질의기관명": e.inquirer,
            "회신기관코드": MINISTRIES["법제처"],
            "회신기관명": "법제처",
            "회신일자": _dotted(e.replied),
            "법령해석례상세링크": _link("expc", "ID", e.serial),
        }

    return _sorted(found, lambda e: (e.title, e.replied, e.case_no, e.replied), make, q)


def get_expc(world, q: Query) -> list[dict[str, Any]]:
    e = world.laws.interpretation_by_serial.get(q.require("ID"))
    if e is None or e.replied > q.as_of:
        raise NoData()
    cited = f"「{e.law}」 제{e.article}조"
    return [
        {
            "법령해석례일련번호": e.serial,
            "안건명": e.title,
            "안건번호": e.case_no,
            "해석일자": ymd(e.replied),
            "해석기관코드": MINISTRIES["법제처"],
            "해석기관명": "법제처",
            "질의기관코드": e.inquirer_code,
            "질의기관명": e.inquirer,
            "관리기관코드": MINISTRIES["법제처"],
            "등록일시": ymd(e.replied) + "000000",
            "질의요지": f"{cited}에 따른 사항의 범위에 관하여 질의함.",
            "회답": f"{cited}에 따른 사항의 범위는 같은 조의 문언에 따라 한정하여 해석하여야 합니다.",
            "이유": f"{cited}의 문언과 입법 취지, 관련 규정의 체계를 종합하여 볼 때 위와 같이 해석됩니다.",
        }
    ]


# -- administrative rules and ordinances -----------------------------------------------------
def search_admrul(world, q: Query) -> Sequence[dict[str, Any]]:
    query, kind, org = q.get("query"), q.get("knd"), q.get("org")
    found = [
        r
        for r in world.laws.admin_rules
        if r.issued <= q.as_of
        and _text_match(query, r.name)
        and (kind is None or r.kind_code == kind)
        and (org is None or MINISTRIES[r.ministry] == org)
    ]

    def make(r):
        return {
            "행정규칙일련번호": r.serial,
            "행정규칙명": r.name,
            "행정규칙종류": r.kind,
            "발령일자": ymd(r.issued),
            "발령번호": r.number,
            "소관부처명": r.ministry,
            "현행연혁구분": "현행",
            "제개정구분코드": "300201" if r.revision == "제정" else "300202",
            "제개정구분명": r.revision,
            "행정규칙ID": r.rule_id,
            "행정규칙상세링크": _link("admrul", "ID", r.serial),
            "시행일자": ymd(r.enforced),
            "생성일자": ymd(r.issued),
        }

    return _sorted(found, lambda r: (r.name, r.issued, r.number, r.enforced), make, q)


def get_admrul(world, q: Query) -> list[dict[str, Any]]:
    """행정규칙 본문 by ID (행정규칙일련번호) or LID (행정규칙ID)."""
    serial, rule_id = q.get("ID"), q.get("LID")
    if serial is not None:
        rule = world.laws.admin_rule_by_serial.get(serial)
    elif rule_id is not None:
        rule = next((r for r in world.laws.admin_rules if r.rule_id == rule_id), None)
    else:
        raise MissingParam("ID")
    if rule is None or rule.issued > q.as_of:
        raise NoData()
    rng = world.rng("law.admrul.body", rule.serial)
    articles = [
        f"제{n}조({title}) 이 {_topic(rule.kind)} {rule.ministry} 소관 업무의 {title}에 관하여 필요한 사항을 정한다."
        for n, title in enumerate(
            ("목적", "적용범위", "정의", "업무의 처리", "재검토기한")[: int(rng.integers(3, 6))], 1
        )
    ]
    return [
        {
            "행정규칙기본정보": {
                "행정규칙일련번호": rule.serial,
                "행정규칙명": rule.name,
                "행정규칙종류": rule.kind,
                "행정규칙종류코드": rule.kind_code,
                "발령일자": ymd(rule.issued),
                "발령번호": rule.number,
                "제개정구분명": rule.revision,
                "제개정구분코드": "300201" if rule.revision == "제정" else "300202",
                "조문형식여부": "Y",
                "행정규칙ID": rule.rule_id,
                "소관부처명": rule.ministry,
                "소관부처코드": MINISTRIES[rule.ministry],
                "현행여부": "Y",
                "시행일자": ymd(rule.enforced),
                "생성일자": ymd(rule.issued),
            },
            "조문내용": articles,
            "부칙": {
                "부칙공포일자": ymd(rule.issued),
                "부칙공포번호": rule.number,
                "부칙내용": f"부칙 이 {_topic(rule.kind)} 발령한 날부터 시행한다.",
            },
        }
    ]


def search_ordin(world, q: Query) -> Sequence[dict[str, Any]]:
    query, kind = q.get("query"), q.get("knd")
    found = [
        o
        for o in world.laws.ordinances
        if o.promulgated <= q.as_of and _text_match(query, o.name) and (kind is None or o.kind == kind)
    ]

    def make(o):
        return {
            "자치법규일련번호": o.serial,
            "자치법규명": o.name,
            "자치법규ID": o.ordin_id,
            "공포일자": ymd(o.promulgated),
            "공포번호": o.number,
            "제개정구분명": o.revision,
            "지자체기관명": o.government,
            "자치법규종류": o.kind,
            "시행일자": ymd(o.enforced),
            "자치법규상세링크": _link("ordin", "MST", o.serial, "&mobileYn="),
            "자치법규분야명": o.field,
            "참조데이터구분": "0",
        }

    return _sorted(found, lambda o: (o.name, o.promulgated, int(o.number), o.enforced), make, q)


def get_ordin(world, q: Query) -> list[dict[str, Any]]:
    """자치법규 본문 by MST (자치법규일련번호) or ID (자치법규ID): LawService → 자치법규기본정보, 조문.조, 부칙."""
    serial, ordin_id = q.get("MST"), q.get("ID")
    if serial is not None:
        o = world.laws.ordinance_by_serial.get(serial)
    elif ordin_id is not None:
        o = next((x for x in world.laws.ordinances if x.ordin_id == ordin_id), None)
    else:
        raise MissingParam("MST")
    if o is None or o.promulgated > q.as_of:
        raise NoData()
    subject = o.name.removeprefix(o.government).strip()
    titles = ("목적", "정의", "적용 범위", "위원회의 설치", "시행규칙")
    articles = [
        {
            "조문번호": f"{n:02d}0000",
            "조문여부": "Y",
            "조제목": title,
            "조내용": f"제{n}조({title}) 이 {_topic(o.kind)} {subject}의 {title}에 관하여 필요한 사항을 정한다.",
        }
        for n, title in enumerate(titles, 1)
    ]
    return [
        {
            "자치법규기본정보": {
                "자치법규ID": o.ordin_id,
                "자치법규일련번호": o.serial,
                "공포일자": ymd(o.promulgated),
                "공포번호": o.number,
                "자치법규명": o.name,
                "시행일자": ymd(o.enforced),
                "자치법규종류": o.kind,
                "지자체기관명": o.government,
                "제개정정보": o.revision,
            },
            "조문": {"조": articles},
            "부칙": {
                "부칙공포일자": ymd(o.promulgated),
                "부칙공포번호": o.number,
                "부칙내용": f"부칙 이 {_topic(o.kind)} 공포한 날부터 시행한다.",
            },
        }
    ]


# -- decisions: one engine over every collection of decisions ----------------------------------
#: a decision's facts by the names the collections give their fields (the same fact has several names)
_SERIAL = ("결정문일련번호", "헌재결정례일련번호", "행정심판례일련번호", "행정심판재결례일련번호")
_TITLE = ("사건명", "안건명", "제목", "사건")
_NUMBER = ("사건번호", "의안번호", "안건번호", "의결번호", "결정번호")
_DAY = ("의결일", "의결일자", "결정일자", "종국일자", "등록일", "의결연월일")
_OUTCOME = ("결정구분", "재결구분명", "재결례유형명", "결정", "결정유형", "판정결과", "판결유형", "종국결과")
_CITED = ("참조조문", "심판대상조문", "관련규정")
_PARTY = ("청구인", "신청인", "피심인", "피심정보명", "조치대상자의인적사항", "조치대상", "재해근로자", "민원표시명")
_KIND_NAMES = {"detc": "헌법소원", "decc": "행정심판"}


def _decision_value(d, name: str, listed: bool) -> Any:
    """The value a field of that name has for decision ``d`` (lists write dates dotted, bodies YYYYMMDD);
    fields about matters the world does not hold are empty."""
    cited = f"「{d.law}」 제{d.article}조"
    if name in _SERIAL:
        return d.serial
    if name in _TITLE:
        return d.title
    if name in _NUMBER:
        return d.number
    if name in _DAY:
        return _dotted(d.decided) if listed else ymd(d.decided)
    if name in ("기관명", "재결청"):
        return d.org
    if name == "처분청":
        return d.agency
    if name == "처분일자":
        day = d.decided - dt.timedelta(days=90 + int(d.serial) % 200)
        return _dotted(day) if listed else ymd(day)
    if name in _OUTCOME:
        return d.outcome
    if name in ("재결구분코드", "재결례유형코드", "사건종류코드"):
        return f"4401{DECISION_KINDS[d.kind]['outcomes'].index(d.outcome) + 1:02d}"
    if name == "사건종류명":
        return _KIND_NAMES.get(d.kind, "일반")
    if name == "재판부구분코드":
        return "430201"
    if name in ("회의종류", "문서유형", "의결서종류", "의결서유형", "자료구분"):
        return {"회의종류": "전체회의", "문서유형": "의결서", "자료구분": "판정"}.get(name, "의결서")
    if name in _CITED:
        return f"{d.law} 제{d.article}조"
    if name in _PARTY:
        return d.party
    if name in ("피청구인", "피신청인"):
        return f"{d.agency}장관" if d.agency else "피청구인"
    if name == "주문":
        return (
            f"이 사건 청구를 {d.outcome}한다."
            if d.outcome in ("기각", "각하", "인용")
            else f"{d.outcome}(으)로 의결한다."
        )
    if name in ("결정요지", "판정요지", "재결요지", "판시사항", "요지", "판단요지", "주문요지"):
        return f"{cited}의 적용 범위에 관한 {d.org}의 판단"
    if name in ("이유", "판단", "전문", "내용", "결정례전문", "의결문", "주요내용", "조치이유", "판정사항"):
        return f"{d.title}에 관하여 {cited}의 요건을 검토한 결과 {d.outcome}(으)로 결정한다."
    if name in ("청구취지", "신청취지"):
        return f"{d.agency or d.org}의 처분을 취소한다는 결정을 구함."
    if name == "조치내용":
        return d.outcome
    if name == "결정문상세링크":
        return _link(d.kind, "ID", d.serial)
    if name in ("헌재결정례상세링크", "행정심판례상세링크"):
        return _link(d.kind, "ID", d.serial)
    return ""


class _Decision(dict):
    """A decision as a record whose fields are made when asked for (``get``), so that one table answers every
    collection's list and body whatever fields each names."""

    def __init__(self, d, listed: bool) -> None:
        super().__init__()
        self._d, self._listed = d, listed

    def get(self, name, default=None):  # type: ignore[override]
        return _decision_value(self._d, name, self._listed)


def _decision_search(kind: str) -> Callable[[Any, Query], Sequence[dict[str, Any]]]:
    def table(world, q: Query) -> Sequence[dict[str, Any]]:
        query = q.get("query")
        found = [d for d in world.laws.decisions(kind) if d.decided <= q.as_of and _text_match(query, d.title)]
        return _sorted(found, lambda d: (d.title, d.decided, d.number, d.decided), lambda d: _Decision(d, True), q)

    return table


def _decision_body(kind: str) -> Callable[[Any, Query], Sequence[dict[str, Any]]]:
    def table(world, q: Query) -> Sequence[dict[str, Any]]:
        d = world.laws.decision(kind, q.require("ID"))
        if d is None or d.decided > q.as_of:
            raise NoData()
        return [_Decision(d, False)]

    return table


# -- treaties and legal terms ---------------------------------------------------------------------
def _treaty_record(t) -> dict[str, Any]:
    return {
        "조약일련번호": t.serial,
        "조약명": t.name,
        "조약구분코드": "440101" if t.bilateral else "440102",
        "조약구분명": "양자조약" if t.bilateral else "다자조약",
        "발효일자": _dotted(t.effective),
        "서명일자": _dotted(t.signed),
        "관보게제일자": _dotted(t.effective - dt.timedelta(days=3)),
        "조약번호": t.number,
        "국가번호": t.country[2],
        "조약상세링크": _link("trty", "ID", t.serial),
    }


def search_trty(world, q: Query) -> Sequence[dict[str, Any]]:
    query, cls, country = q.get("query"), q.get("cls"), q.get("natCd")
    if cls not in (None, "1", "2"):
        raise BadParam("cls", cls)
    found = [
        t
        for t in world.laws.treaties
        if t.signed <= q.as_of
        and _text_match(query, t.name)
        and (cls is None or t.bilateral == (cls == "1"))
        and (country is None or t.country[2] == country)
    ]
    return _sorted(found, lambda t: (t.name, t.signed, int(t.number), t.effective), _treaty_record, q)


def get_trty(world, q: Query) -> list[dict[str, Any]]:
    t = world.laws.treaty_by_serial.get(q.require("ID"))
    if t is None or t.signed > q.as_of:
        raise NoData()
    return [
        {
            "조약일련번호": t.serial,
            "조약명_한글": t.name,
            "조약명_영문": f"Agreement on {t.topic}" if t.bilateral else f"Convention on {t.topic}",
            "조약구분코드": "440101" if t.bilateral else "440102",
            "발효일자": ymd(t.effective),
            "조약번호": t.number,
            "서명일자": ymd(t.signed),
            "서명장소": t.country[0] or "뉴욕",
            "체결대상국가": t.country[1],
            "체결대상국가한글": t.country[0],
            "국가코드": t.country[2],
            "조약내용": f"{t.name}의 당사자는 {t.topic}에 관하여 다음과 같이 합의하였다.",
        }
    ]


def search_lstrm(world, q: Query) -> Sequence[dict[str, Any]]:
    query = q.get("query")
    found = [t for t in world.laws.terms if _text_match(query, t.name)]

    def make(t):
        return {
            "법령용어ID": t.serial,
            "법령용어명": t.name,
            "법령용어상세검색": f"/LSW/lsTrmInfoR.do?trmSeqs={t.serial}",
            "법령용어상세링크": f"/DRF/lawService.do?target=lstrm&query={t.name}&type=HTML",
        }

    return _sorted(found, lambda t: (t.name, t.name, int(t.serial), t.name), make, q)


def get_lstrm(world, q: Query) -> list[dict[str, Any]]:
    """법령용어 본문 by the term's name (query), as the guide has it."""
    t = world.laws.term_by_name.get(_compact(q.require("query")))
    if t is None:
        raise NoData()
    return [
        {
            "법령용어 일련번호": t.serial,
            "법령용어명_한글": t.name,
            "법령용어명_한자": t.hanja,
            "법령용어코드": "011401",
            "법령용어코드명": "법령정의사전",
            "출처": f"{t.source}",
            "법령용어정의": t.definition,
        }
    ]


TABLES: dict[str, Callable[[Any, Query], Sequence[dict[str, Any]]]] = {
    "statutes": search_law,
    "statute_versions": search_eflaw,
    "english_statutes": search_elaw,
    "english_statute": get_elaw,
    "abbreviations": search_abbrev,
    "precedents": search_prec,
    "precedent": get_prec,
    "interpretations": search_expc,
    "interpretation": get_expc,
    "admin_rules": search_admrul,
    "admin_rule": get_admrul,
    "ordinances": search_ordin,
    "ordinance": get_ordin,
    "treaties": search_trty,
    "treaty": get_trty,
    "terms": search_lstrm,
    "term": get_lstrm,
    **{f"{kind}_decisions": _decision_search(kind) for kind in DECISION_KINDS},
    **{f"{kind}_decision": _decision_body(kind) for kind in DECISION_KINDS},
}


# -- endpoints -----------------------------------------------------------------------
# The statute bodies (target law, eflaw) stay written here: their records are the articles nested under 법령.조문,
# which a table row does not describe. Every other operation is a row of kopa_replay/sim/tables/law.yaml.
# Dates of legal acts fall mostly in the last decade: recent_past_date.
_DAY_DOMAIN = "recent_past_date"


def _statute_body(tool: str, target: str) -> Endpoint:
    return Endpoint(
        tool=tool,
        platform="law",
        host=HOST,
        route=f"lawService.do?target={target}",
        protocol=PROTOCOL,
        handler=get_law,
        inputs={"MST": "law_mst", "ID": "law_id"},
        outputs={"조문시행일자": _DAY_DOMAIN},
        options={"kind": "service", "root": "법령", "not_found": LAW_NOT_FOUND},
    )


ENDPOINTS = [
    _statute_body("law_get_law", "law"),
    _statute_body("law_get_eflaw", "eflaw"),
    *endpoints("law", HOST, PROTOCOL, TABLES),
]

HOSTS = {HOST: PROTOCOL}
