"""국가법령정보 공동활용 DRF (www.law.go.kr/DRF/lawSearch.do, /DRF/lawService.do).

Two paths serve every collection; the ``target`` parameter chooses it, so an
endpoint's route is ``lawSearch.do?target=law`` and so on. The key is ``OC``
(the account's e-mail id). ``type`` is XML unless ``JSON``.

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
from typing import Any, Callable, Iterable, Mapping

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
from kopa_replay.sim.world.calendar import ymd
from kopa_replay.sim.world.laws import KIND_CODES, MINISTRIES

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
            item = {"@id": str(first + index), **record}
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
    """``2023.05.18``: how search lists write 선고일자 and 회신일자."""
    return day.strftime("%Y.%m.%d")


def _text_match(query: str | None, *texts: str) -> bool:
    """The service's name search: a substring match that ignores spaces."""
    if query is None:
        return True
    wanted = _compact(query)
    return any(wanted in _compact(text) for text in texts)


_SORTS = ("lasc", "ldes", "dasc", "ddes", "nasc", "ndes", "efasc", "efdes")


def _sorted(rows: list[tuple[dict[str, Any], tuple]], q: Query) -> list[dict[str, Any]]:
    """Order rows by ``sort``: name (l), date (d), number (n) or effective date (ef), asc/desc; name asc by default.

    Each row comes with its keys ``(name, date, number, effective)``.
    """
    sort = (q.get("sort") or "lasc").lower()
    if sort not in _SORTS:
        raise BadParam("sort", sort)
    field = {"l": 0, "d": 1, "n": 2, "e": 3}[sort[0]]
    descending = sort.endswith("des")
    rows = sorted(rows, key=lambda row: (row[1][field], row[1][0]), reverse=descending)
    return [record for record, _ in rows]


def _link(target: str, key: str, value: str, tail: str = "") -> str:
    return f"/DRF/lawService.do?target={target}&{key}={value}&type=HTML{tail}"


# -- statutes --------------------------------------------------------------------
def search_law(world, q: Query) -> list[dict[str, Any]]:
    query, org = q.get("query"), q.get("org")
    by_body = q.get("search") == "2"
    rows = []
    for statute in world.laws.statutes:
        version = statute.current(q.as_of)
        if version is None or (org is not None and statute.ministry_code != org):
            continue
        if by_body:
            if query is not None and not any(
                _text_match(query, unit.get("조문내용", "")) for unit in world.laws.articles(statute, version)
            ):
                continue
        elif not _text_match(query, statute.name, statute.abbrev):
            continue
        record = {
            "법령일련번호": version.mst,
            "현행연혁코드": "시행예정" if version.enforced > q.as_of else "현행",
            "법령명한글": statute.name,
            "법령약칭명": statute.abbrev,
            "법령ID": statute.law_id,
            "공포일자": ymd(version.promulgated),
            "공포번호": version.number,
            "제개정구분명": version.revision,
            "소관부처코드": statute.ministry_code,
            "소관부처명": statute.ministry,
            "법령구분명": statute.kind,
            "공동부령정보": "",
            "시행일자": ymd(version.enforced),
            "자법타법여부": "",
            "법령상세링크": _link("law", "MST", version.mst),
        }
        rows.append((record, (statute.name, version.promulgated, int(version.number), version.enforced)))
    return _sorted(rows, q)


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


def get_law(world, q: Query) -> list[dict[str, Any]]:
    statute, version = _statute_for(world, q)
    units = []
    for unit in world.laws.articles(statute, version):
        unit = dict(unit)
        units.append({"@조문키": unit.pop("조문키"), **unit})
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


# -- precedents ------------------------------------------------------------------
def _references(precedent) -> str:
    return ", ".join(f"{law} 제{article}조" for law, article in precedent.references)


def search_prec(world, q: Query) -> list[dict[str, Any]]:
    query, law, court, org, number = q.get("query"), q.get("JO"), q.get("curt"), q.get("org"), q.get("nb")
    by_body = q.get("search") == "2"
    rows = []
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
        record = {
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
        rows.append((record, (p.name, p.decided, p.case_no, p.decided)))
    return _sorted(rows, q)


def get_prec(world, q: Query) -> list[dict[str, Any]]:
    p = world.laws.precedent_by_serial.get(q.require("ID"))
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


# -- administrative rules, ordinances, interpretations -----------------------------
def search_admrul(world, q: Query) -> list[dict[str, Any]]:
    query, kind, org = q.get("query"), q.get("knd"), q.get("org")
    rows = []
    for r in world.laws.admin_rules:
        if r.issued > q.as_of or not _text_match(query, r.name):
            continue
        if (kind is not None and r.kind_code != kind) or (org is not None and MINISTRIES[r.ministry] != org):
            continue
        record = {
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
        rows.append((record, (r.name, r.issued, r.number, r.enforced)))
    return _sorted(rows, q)


def search_ordin(world, q: Query) -> list[dict[str, Any]]:
    query, kind = q.get("query"), q.get("knd")
    rows = []
    for o in world.laws.ordinances:
        if o.promulgated > q.as_of or not _text_match(query, o.name):
            continue
        if kind is not None and o.kind != kind:
            continue
        record = {
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
        rows.append((record, (o.name, o.promulgated, int(o.number), o.enforced)))
    return _sorted(rows, q)


def search_expc(world, q: Query) -> list[dict[str, Any]]:
    query, inquirer = q.get("query"), q.get("inq")
    rows = []
    for e in world.laws.interpretations:
        if e.replied > q.as_of or not _text_match(query, e.title):
            continue
        if inquirer is not None and e.inquirer != inquirer:
            continue
        record = {
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
        rows.append((record, (e.title, e.replied, e.case_no, e.replied)))
    return _sorted(rows, q)


# -- endpoints -----------------------------------------------------------------------
def _search(
    tool: str,
    target: str,
    handler: Callable,
    root: str,
    item: str,
    section: str,
    link: str,
    inputs: Mapping[str, str] | None = None,
    outputs: Mapping[str, str] | None = None,
) -> Endpoint:
    return Endpoint(
        tool=tool,
        platform="law",
        host=HOST,
        route=f"lawSearch.do?target={target}",
        protocol=PROTOCOL,
        handler=handler,
        inputs=dict(inputs or {}),
        outputs=dict(outputs or {}),
        options={"kind": "search", "root": root, "item": item, "section": section, "link": link},
    )


def _service(
    tool: str,
    target: str,
    handler: Callable,
    root: str,
    not_found: str,
    required: Iterable[str] = (),
    inputs: Mapping[str, str] | None = None,
    outputs: Mapping[str, str] | None = None,
) -> Endpoint:
    return Endpoint(
        tool=tool,
        platform="law",
        host=HOST,
        route=f"lawService.do?target={target}",
        protocol=PROTOCOL,
        handler=handler,
        required=tuple(required),
        inputs=dict(inputs or {}),
        outputs=dict(outputs or {}),
        options={"kind": "service", "root": root, "not_found": not_found},
    )


# Dates of legal acts fall mostly in the last decade (current versions are amended from 2016 on,
# precedents and rules from 2012–2015 on): recent_past_date.
_DAY = "recent_past_date"

ENDPOINTS = [
    _search(
        "law_search_law",
        "law",
        search_law,
        "LawSearch",
        "law",
        "lawNm",
        "법령상세링크",
        inputs={"query": "law_name"},
        outputs={
            "법령일련번호": "law_mst",
            "법령ID": "law_id",
            "법령명한글": "law_name",
            "공포일자": _DAY,
            "시행일자": _DAY,
        },
    ),
    _service(
        "law_get_law",
        "law",
        get_law,
        "법령",
        LAW_NOT_FOUND,
        inputs={"MST": "law_mst", "ID": "law_id"},
        outputs={"조문시행일자": _DAY},
    ),
    # The search writes 선고일자 dotted (2015.04.19), which no date parameter reads; the service plainly.
    _search(
        "law_search_prec",
        "prec",
        search_prec,
        "PrecSearch",
        "prec",
        "evtNm",
        "판례상세링크",
        inputs={"JO": "law_name"},
        outputs={"판례일련번호": "prec_serial"},
    ),
    _service(
        "law_get_prec",
        "prec",
        get_prec,
        "PrecService",
        PREC_NOT_FOUND,
        required=("ID",),
        inputs={"ID": "prec_serial"},
        outputs={"선고일자": _DAY, "판례정보일련번호": "prec_serial"},
    ),
    _search(
        "law_search_admrul",
        "admrul",
        search_admrul,
        "AdmRulSearch",
        "admrul",
        "admRulNm",
        "행정규칙상세링크",
        outputs={"발령일자": _DAY, "시행일자": _DAY, "생성일자": _DAY},
    ),
    _search(
        "law_search_ordin",
        "ordin",
        search_ordin,
        "OrdinSearch",
        "law",
        "ordinNm",
        "자치법규상세링크",
        outputs={"공포일자": _DAY, "시행일자": _DAY},
    ),
    _search("law_search_expc", "expc", search_expc, "ExpcSearch", "expc", "expcNm", "법령해석례상세링크"),
]

HOSTS = {HOST: PROTOCOL}
