"""국가법령정보 공동활용 DRF (www.law.go.kr/DRF/lawSearch.do, /DRF/lawService.do).

Two paths serve every collection; the ``target`` parameter chooses it, so an
endpoint's route is ``lawSearch.do?target=law`` and so on. The key is ``OC``
(the account's e-mail id). ``type`` is XML unless ``JSON``.

Every operation but the two statute bodies is a row of ``kopa_replay/sim/tables/law.yaml`` answered by one of two
engines: a search (``kind: search``, a page of records under the row's ``root``/``item``) or a service (``kind:
service``, one document under its ``root``). The roots differ by target as the live service sends them (``Expc``,
``Decc``, ``DetcSearch`` with ``Detc`` items, ``PrecService``, ``LawService`` for an ordinance …); the world tables
below make the records, and the decisions of the Constitutional Court, administrative appeals and twelve committees
share one table whose fields are made by name (:func:`_decision_value`), as do the 39 ministries' own interpretations
(``CgmExpc``/``cgmExpc``, ``CgmExpcService``) and the four special tribunals (``Decc``/``decc``, ``SpecialDeccService``).
The statutes' history (``lsHistory``) and the link statistics (``drlaw``) are HTML pages whatever ``type`` asks, as the
live service sends them; a row with ``html`` names the page and its records are the table's rows.

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
from collections.abc import Callable, Mapping, Sequence
from typing import Any
from xml.sax.saxutils import escape as _escape

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
from kopa_replay.sim.world import stable_int
from kopa_replay.sim.world.calendar import parse_ymd, ymd
from kopa_replay.sim.world.finance import LazyRows
from kopa_replay.sim.world.laws import (
    CGM_EXPC,
    DECISION_KINDS,
    ENGLISH_NAMES,
    KIND_CODES,
    MINISTRIES,
    TERM_KINDS,
    TERM_RELATIONS,
    _subject,
)

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
        route = f"{request.path.rsplit('/', 1)[-1]}?target={request.param_ci('target') or ''}"
        # the custom lists answer their articles with lj=jo: the same target, another operation
        return (f"{route}&lj={request.param_ci('lj')}" if request.param_ci("lj") else route), {}

    def wants_xml(self, request: SimRequest, endpoint, path_params) -> bool:
        return (request.param_ci("type") or "XML").upper() != "JSON"

    def params(self, ctx: Context) -> dict[str, str]:
        values = super().params(ctx)
        return {k: v for k, v in values.items() if k.lower() not in ("type", "target", "lj")}

    def window(self, ctx: Context, params: Mapping[str, str]) -> tuple[int, int, dict[str, Any]]:
        if ctx.endpoint is None or ctx.endpoint.options.get("kind") != "search":
            return 0, 10**9, {}
        return paged(params, "page", "display", self.default_size, ctx.max_size(self.max_size))

    # -- success -------------------------------------------------------------
    def ok(self, ctx: Context, records: list[dict[str, Any]], total: int, meta: Mapping[str, Any]) -> Doc:
        options = ctx.endpoint.options
        if options.get("html"):
            return self._html(ctx, records, total)
        if options.get("kind") != "search":
            if not records:
                return self.error(ctx, ErrorKind.NO_DATA)
            body = records[0]
            if options.get("nested_links"):
                body = _stamp(body, options["nested_links"], ctx.request.param_ci("OC") or "")
            return self._doc(ctx, options["root"], body, options.get("json_root"))
        return self._search(ctx, records, total, meta)

    def _search(self, ctx: Context, records: list[dict[str, Any]], total: int, meta: Mapping[str, Any]) -> Doc:
        options = ctx.endpoint.options
        oc = ctx.request.param_ci("OC") or ""
        first = (meta.get("page", 1) - 1) * meta.get("size", self.default_size) + 1
        items = []
        for index, record in enumerate(records):
            # the result position is the item's id attribute (XML) / "id" (JSON), always first
            item = {"@id": str(first + index), **{k: v for k, v in record.items() if k != "id"}}
            # The service writes the caller's OC into every detail link (on law.go.kr; some lists have none).
            for link in options.get("links", [options["link"]] if options.get("link") else []):
                if str(item.get(link) or "").startswith("/DRF/"):
                    item[link] = item[link].replace("?", f"?OC={oc}&", 1)
            if options.get("nested_links"):
                item = _stamp(item, options["nested_links"], oc)
            items.append(item)
        query = ctx.request.param("query") or ""
        search = ctx.request.param("search") or "1"
        body: dict[str, Any] = {
            "target": ctx.endpoint.route.split("target=", 1)[1].split("&", 1)[0],
            "키워드": query,
            "section": "bdyText" if search == "2" else options["section"],
            "totalCnt": str(total),
            "page": str(meta.get("page", 1)),
            "numOfRows": str(meta.get("size", self.default_size)),
            "resultCode": ctx.code("00"),
            "resultMsg": "success",
        }
        if options.get("head"):
            # the knowledge base's lists count their hits in 검색결과개수 and carry only the head the row names
            body = {key: {"검색결과개수": str(total)}.get(key, body.get(key)) for key in options["head"]}
        if items:
            # JSON quirk: a single hit is an object, not a list (XML repeats the element either way).
            body[options["item"]] = items if (ctx.xml or len(items) > 1) else items[0]
        return self._doc(ctx, options["root"], body)

    @staticmethod
    def _doc(ctx: Context, root: str, body: dict[str, Any], json_root: str | None = None) -> Doc:
        """The document under its root; a few bodies are keyed otherwise in JSON (lsStmd: 법령체계도)."""
        if ctx.xml:
            return Doc(body, xml=True, xml_root=root)
        return Doc({json_root or root: _jsonify(body)})

    @staticmethod
    def _html(ctx: Context, records: Sequence[dict[str, Any]], total: int) -> Doc:
        """A page the service sends as HTML whatever ``type`` asks (lsHistory, drlaw): the total in
        ``<strong>N</strong> 건`` and one table row per record, its cells in order (a cell may hold a link)."""
        oc = ctx.request.param_ci("OC") or ""

        def cell(value: Any) -> str:
            if isinstance(value, dict):  # {"a": {"@href": …, "#text": …}}
                href = value["a"]["@href"].replace("?", f"?OC={oc}&", 1)
                return f'<td><a href="{_escape(href)}">{_escape(value["a"]["#text"])}</a></td>'
            return f"<td>{_escape(str(value))}</td>"

        title = _escape(ctx.endpoint.options["html"])
        rows = "".join("<tr>" + "".join(cell(v) for v in r["td"]) + "</tr>" for r in records)
        page = (
            f"<html><head><title>{title}</title></head><body><h2>{title}</h2>"
            f'<div class="total">총 <strong>{total:,}</strong> 건</div>'
            f"<table><tbody>{rows}</tbody></table></body></html>"
        )
        return Doc(page.encode("utf-8"), content_type="text/html;charset=UTF-8")

    # -- errors ----------------------------------------------------------------
    def error(self, ctx: Context, kind: str, detail: str = "") -> Doc:
        if kind in _HTML_PAGES:
            status, text = _HTML_PAGES[kind]
            page = f"<html><head><title>국가법령정보센터</title></head><body><p>{text}</p></body></html>"
            return Doc(page.encode("utf-8"), status=status, content_type="text/html;charset=UTF-8")
        if kind == ErrorKind.NO_DATA and ctx.endpoint is not None:
            if ctx.endpoint.options.get("html"):
                return self._html(ctx, [], 0)
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


def _stamp(value: Any, names: Sequence[str], oc: str) -> Any:
    """The caller's OC written into every link named ``names`` at any depth (the knowledge base's nested links)."""
    if isinstance(value, list):
        return [_stamp(v, names, oc) for v in value]
    if isinstance(value, dict):
        return {
            k: v.replace("?", f"?OC={oc}&", 1)
            if k in names and isinstance(v, str) and v.startswith("/DRF/")
            else _stamp(v, names, oc)
            for k, v in value.items()
        }
    return value


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
def _admin_rule(world, q: Query):
    """The administrative rule a call names by ID (행정규칙일련번호) or else LID (행정규칙ID), issued by the as-of date."""
    serial, rule_id = q.get("ID"), q.get("LID")
    if serial is None and rule_id is None:
        raise MissingParam("ID")
    rule = (
        world.laws.admin_rule_by_serial.get(serial)
        if serial
        else next((r for r in world.laws.admin_rules if r.rule_id == rule_id), None)
    )
    if rule is None or rule.issued > q.as_of:
        raise NoData()
    return rule


def get_admrul(world, q: Query) -> list[dict[str, Any]]:
    """행정규칙 본문 by ID (행정규칙일련번호) or LID (행정규칙ID)."""
    rule = _admin_rule(world, q)
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
    return _sorted(found, lambda o: (o.name, o.promulgated, int(o.number), o.enforced), _ordin_record, q)


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
_SERIAL = (
    "결정문일련번호",
    "헌재결정례일련번호",
    "행정심판례일련번호",
    "행정심판재결례일련번호",
    "법령해석일련번호",
    "특별행정심판재결례일련번호",
)
_TITLE = ("사건명", "안건명", "제목", "사건")
_NUMBER = ("사건번호", "의안번호", "안건번호", "의결번호", "결정번호", "청구번호")
_DAY = ("의결일", "의결일자", "결정일자", "종국일자", "등록일", "의결연월일", "해석일자")
_OUTCOME = ("결정구분", "재결구분명", "재결례유형명", "결정", "결정유형", "판정결과", "판결유형", "종국결과")
_CITED = ("참조조문", "심판대상조문", "관련규정", "관련법령")
_PARTY = ("청구인", "신청인", "피심인", "피심정보명", "조치대상자의인적사항", "조치대상", "재해근로자", "민원표시명")
_KIND_NAMES = {"detc": "헌법소원", "decc": "행정심판"}
#: who asks a ministry: a citizen (no 기관코드) or a local government
_INQUIRERS = (
    ("민원인", ""),
    ("서울특별시", "6110000"),
    ("민원인", ""),
    ("경기도", "6410000"),
    ("부산광역시", "6260000"),
)


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
    if name in ("기관명", "재결청", "해석기관명"):
        return d.org
    if name == "해석기관코드":
        return DECISION_KINDS[d.kind].get("org_code", "")
    if name in ("질의기관명", "질의기관코드"):  # a citizen (no code) or a local government
        inquirer = _INQUIRERS[int(d.serial) % len(_INQUIRERS)]
        return inquirer[0] if name == "질의기관명" else inquirer[1]
    if name == "업무분야":
        return d.law
    if name == "세목" and d.kind == "ttSpecialDecc":
        return ("종합소득세", "부가가치세", "법인세", "양도소득세")[int(d.serial) % 4]
    if name == "등록일시":
        return ymd(d.decided) + "000000"
    if name == "질의요지":
        return f"「{d.law}」 제{d.article}조에 따른 사항의 범위에 관하여 질의함."
    if name == "이유" and d.kind in CGM_EXPC:
        return (
            f"「{d.law}」 제{d.article}조의 문언과 입법 취지, 관련 규정의 체계를 종합하여 볼 때 위와 같이 회신합니다."
        )
    if name == "회답":
        return f"「{d.law}」 제{d.article}조에 따른 사항은 같은 조의 문언에 따라 한정하여 해석하는 것이 타당합니다."
    if name == "법령해석상세링크":
        if d.kind == "ntsCgmExpc":  # 국세청's answers open on its own portal, not on law.go.kr
            return f"https://taxlaw.nts.go.kr/qt/USEQTA002P.do?ntstDcmId={d.serial}"
        return _link(d.kind, "ID", d.serial)
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
    if name in ("헌재결정례상세링크", "행정심판례상세링크", "행정심판재결례상세링크"):
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


#: a list's filters by a field's value: parameter → the field it compares (the ministries' itmno ignores query)
_DECISION_FILTERS = {"itmno": "안건번호", "inq": "질의기관코드", "rpl": "해석기관코드", "cls": "재결구분코드"}
#: date-range parameters (YYYYMMDD~YYYYMMDD) → the field they bound
_DECISION_RANGES = {"explYd": "해석일자", "rslYd": "의결일자", "dpaYd": "처분일자"}


def _decision_search(kind: str) -> Callable[[Any, Query], Sequence[dict[str, Any]]]:
    def table(world, q: Query) -> Sequence[dict[str, Any]]:
        query = None if q.get("itmno") else q.get("query")
        found = [d for d in world.laws.decisions(kind) if d.decided <= q.as_of and _text_match(query, d.title)]
        for param, name in _DECISION_FILTERS.items():
            if (wanted := q.get(param)) is not None:
                found = [d for d in found if _decision_value(d, name, False) == wanted]
        for param, name in _DECISION_RANGES.items():
            if (bounds := _range(q, param)) is not None:
                found = [d for d in found if ymd(bounds[0]) <= _decision_value(d, name, False) <= ymd(bounds[1])]
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


# -- the knowledge base (법령정보 지식베이스): terms, everyday terms, their links to articles and statutes ----------
def _kb_link(target: str, key: str, value: str, tail: str = "") -> str:
    """A knowledge-base link as the live lists carry it (no type; the caller's OC goes in front)."""
    return f"/DRF/lawService.do?target={target}&{key}={value}{tail}"


def _term_of(world, q: Query):
    """The legal term a service names by query (its name) or MST (its serial)."""
    query, mst = q.get("query"), q.get("MST")
    if query is None and mst is None:
        raise MissingParam("query")
    if query is not None:
        return world.laws.term_by_name.get(_compact(query))
    return next((t for t in world.laws.terms if t.serial == mst), None)


def _relation_filter(q: Query) -> str | None:
    code = q.get("trmRltCd")
    if code is not None and code not in TERM_RELATIONS:
        raise BadParam("trmRltCd", code)
    return code


def search_lstrm_ai(world, q: Query) -> Sequence[dict[str, Any]]:
    """법령용어 (지식베이스): the legal terms by name; the world has no homonyms (동음이의어존재여부 N)."""
    query, homonym = q.get("query"), q.get("homonymYn")
    if homonym not in (None, "Y", "N"):
        raise BadParam("homonymYn", homonym)
    found = [t for t in world.laws.terms if homonym != "Y" and _text_match(query, t.name)]

    def make(t):
        return {
            "법령용어명": t.name,
            "동음이의어존재여부": "N",
            "비고": "",
            "용어간관계링크": _kb_link("lstrmRlt", "MST", t.serial),
            "조문간관계링크": _kb_link("lstrmRltJo", "MST", t.serial),
        }

    return LazyRows(found, make)


def search_dlytrm(world, q: Query) -> Sequence[dict[str, Any]]:
    query = q.get("query")
    found = [d for d in world.laws.daily_terms if _text_match(query, d.name)]
    return LazyRows(
        found, lambda d: {"일상용어명": d.name, "출처": "", "용어간관계링크": _kb_link("dlytrmRlt", "MST", d.serial)}
    )


def get_lstrm_rlt(world, q: Query) -> list[dict[str, Any]]:
    """법령용어 → 일상용어: the everyday words linked to a legal term, with the relation of each to it."""
    code, term = _relation_filter(q), _term_of(world, q)
    links = [(d, c) for d, c in world.laws.term_daily_links.get(term.name if term else "", ()) if code in (None, c)]
    if not links:
        raise NoData()
    related = [
        {
            "@id": str(i),
            "일상용어명": d.name,
            "용어관계코드": c,
            "용어관계": TERM_RELATIONS[c],
            "일상용어조회링크": f"/DRF/lawSearch.do?target=dlytrm&query={d.name}",
            "용어간관계링크": _kb_link("dlytrmRlt", "MST", d.serial),
        }
        for i, (d, c) in enumerate(links, 1)
    ]
    unit = {"@id": "1", "법령용어명": term.name, "비고": "", "연계용어": related}
    return [{"target": "lstrmRlt", "키워드": q.get("query") or q.get("MST"), "검색결과개수": "1", "법령용어": unit}]


def get_dlytrm_rlt(world, q: Query) -> list[dict[str, Any]]:
    """일상용어 → 법령용어: the legal terms an everyday word leads to (query: its name, MST: its serial)."""
    code, query, mst = _relation_filter(q), q.get("query"), q.get("MST")
    if query is None and mst is None:
        raise MissingParam("query")
    daily = world.laws.daily_by_key.get(_compact(query) if query is not None else mst)
    terms = world.laws.term_by_name
    links = [(terms[t], c) for t, c in (daily.links if daily else ()) if code in (None, c)]
    if not links:
        raise NoData()
    related = [
        {
            "@id": str(i),
            "법령용어명": t.name,
            "비고": "",
            "용어관계코드": c,
            "용어관계": TERM_RELATIONS[c],
            "용어간관계링크": _kb_link("lstrmRlt", "MST", t.serial),
            "조문간관계링크": _kb_link("lstrmRltJo", "MST", t.serial),
        }
        for i, (t, c) in enumerate(links, 1)
    ]
    unit = {"@id": "1", "일상용어명": daily.name, "출처": "", "연계용어": related}
    return [{"target": "dlytrmRlt", "키워드": query or mst, "검색결과개수": "1", "일상용어": unit}]


def _article_text(world, statute, number: int, as_of: dt.date) -> str | None:
    version = statute.current(as_of)
    unit = world.laws.article(statute, version, number) if version else None
    return unit["조문내용"] if unit else None


def get_lstrm_rlt_jo(world, q: Query) -> list[dict[str, Any]]:
    """법령용어 → 조문: the articles that use a legal term, as key term (핵심용어) or chosen term (선정용어)."""
    term = _term_of(world, q)
    articles = []
    for statute, number, code in world.laws.term_articles(term) if term else ():
        text = _article_text(world, statute, number, q.as_of)
        if text is None:
            continue
        articles.append(
            {
                "@id": str(len(articles) + 1),
                "법령명": statute.name,
                "조번호": f"{number:04d}",
                "조가지번호": "00",
                "조문내용": text,
                "용어구분코드": code,
                "용어구분": TERM_KINDS[code],
                "조문연계용어링크": _kb_link("joRltLstrm", "ID", statute.law_id, f"&JO={number:04d}00"),
            }
        )
    if not articles:
        raise NoData()
    unit = {
        "@id": "1",
        "법령용어명": term.name,
        "비고": "",
        "용어간관계링크": _kb_link("lstrmRlt", "MST", term.serial),
        "연계법령": articles,
    }
    return [{"target": "lstrmRltJo", "키워드": q.get("query") or q.get("MST"), "검색결과개수": "1", "법령용어": unit}]


def get_jo_rlt_lstrm(world, q: Query) -> list[dict[str, Any]]:
    """조문 → 법령용어: the legal terms one article uses (the statute by ID or by its name in query; JO AAAABB)."""
    query, law_id, jo = q.get("query"), q.get("ID"), q.require("JO")
    if not (len(jo) == 6 and jo.isdigit()):
        raise BadParam("JO", jo)
    if query is None and law_id is None:
        raise MissingParam("query")
    if law_id is not None:
        statute = world.laws.by_id.get(law_id.zfill(6) if law_id.isdigit() else law_id)
    else:
        statute = world.laws.by_name.get(query) or world.laws.by_name.get(
            next((s.name for s in world.laws.acts if _compact(s.name) == _compact(query)), "")
        )
    number = int(jo[:4])
    links = world.laws.article_terms.get((statute.law_id, number), ()) if statute and jo[4:] == "00" else ()
    text = _article_text(world, statute, number, q.as_of) if links else None
    if text is None:
        raise NoData()
    terms = [
        {
            "@id": str(i),
            "법령용어명": t.name,
            "비고": "",
            "용어구분코드": code,
            "용어구분": TERM_KINDS[code],
            "용어간관계링크": _kb_link("lstrmRlt", "MST", t.serial),
            "용어연계조문링크": _kb_link("lstrmRltJo", "MST", t.serial),
        }
        for i, (t, code) in enumerate(links, 1)
    ]
    unit = {"@id": "1", "법령명": statute.name, "조번호": f"{number:04d}", "조가지번호": "00", "조문내용": text}
    unit["연계용어"] = terms
    return [{"target": "joRltLstrm", "키워드": query or law_id, "검색결과개수": "1", "법령조문": unit}]


_LS_RELATIONS = {"140503": "3유형(기본법)", "140506": "6유형(하위법)"}


def _related_statutes(world, statute, as_of: dt.date) -> list[tuple[Any, str]]:
    """관련법령 of a 법률: its 시행령 and 시행규칙 (6유형 하위법) and the 기본법 of its subject (3유형), in force."""
    family = world.laws.family(statute)
    out = [(family[k], "140506") for k in ("시행령", "시행규칙") if k in family]
    basic = world.laws.by_name.get(f"{_subject(statute.name).replace(' ', '')}기본법")
    if basic is not None and basic is not statute:
        out.insert(0, (basic, "140503"))
    return [(s, code) for s, code in out if s.current(as_of) is not None]


def search_ls_rlt(world, q: Query) -> Sequence[dict[str, Any]]:
    """관련법령: each 법률 matching query (its name) or ID with the statutes related to it (lsRltCd filters)."""
    query, law_id, code = q.get("query"), q.get("ID"), q.get("lsRltCd")
    if code is not None and not code.isdigit():
        raise BadParam("lsRltCd", code)
    wanted = law_id.zfill(6) if law_id and law_id.isdigit() else law_id
    found = []
    for act in world.laws.acts:
        if (wanted is None or act.law_id == wanted) and _text_match(query, act.name) and act.current(q.as_of):
            related = [(s, c) for s, c in _related_statutes(world, act, q.as_of) if code in (None, c)]
            if related:
                found.append((act, related))

    def make(pair):
        act, related = pair
        rows = [
            {
                "@id": str(i),
                "관련법령ID": s.law_id,
                "관련법령명": s.name,
                "법령간관계코드": c,
                "법령간관계": _LS_RELATIONS[c],
                "관련법령상세링크": _link("law", "ID", s.law_id),
                "관련법령조회링크": f"/DRF/lawSearch.do?target=lsRlt&ID={s.law_id}",
            }
            for i, (s, c) in enumerate(related, 1)
        ]
        return {
            "기준법령ID": act.law_id,
            "기준법령명": act.name,
            "기준법령상세링크": _link("law", "ID", act.law_id),
            "관련법령": rows,
        }

    return LazyRows(found, make)


def _ai_hits(world, q: Query, kinds: tuple[str, ...]) -> list[tuple[Any, Any, int]]:
    """지능형 검색: the articles a question leads to through the knowledge base — the legal terms it names (two
    letters or more) and the everyday words it contains, each to its linked articles; (statute, version, number)."""
    search = q.get("search") or "0"
    if search not in kinds:
        raise BadParam("search", search)
    text = _compact(q.get("query") or "")
    if search != "0" or not text:
        return []  # the world indexes statute articles alone: 별표·서식 and 행정규칙 answer nothing
    laws = world.laws
    names = [t.name for t in laws.terms if len(t.name) >= 2 and (t.name in text or text in t.name)]
    for d in laws.daily_terms:
        if d.name in text or text in d.name:
            names.extend(t for t, _ in d.links)
    hits, seen = [], set()
    for name in sorted(set(names), key=names.index):
        for statute, number, _ in laws.term_articles(laws.term_by_name[name]):
            version = statute.current(q.as_of)
            if version is not None and (statute.law_id, number) not in seen:
                seen.add((statute.law_id, number))
                hits.append((statute, version, number))
    return hits


def _ai_record(world, statute, version, number: int) -> dict[str, Any]:
    unit = world.laws.article(statute, version, number) or {}
    return {
        "법령조문ID": f"{int(statute.law_id)}{number:04d}",
        "법령ID": statute.law_id,
        "법령일련번호": version.mst,
        "법령명": statute.name,
        "시행일자": ymd(version.enforced),
        "공포일자": ymd(version.promulgated),
        "공포번호": version.number,
        "소관부처코드": statute.ministry_code,
        "소관부처명": statute.ministry,
        "법령종류명": statute.kind,
        "제개정구분명": version.revision,
        "법령편장절관코드": "",
        "조문일련번호": f"{number:04d}001",
        "조문번호": f"{number:04d}",
        "조문가지번호": "00",
        "조문제목": unit.get("조문제목"),
        "조문내용": unit.get("조문내용"),
    }


def search_ai(world, q: Query) -> Sequence[dict[str, Any]]:
    hits = _ai_hits(world, q, ("0", "1", "2", "3"))
    return LazyRows(hits, lambda hit: _ai_record(world, *hit))


def search_ai_related(world, q: Query) -> Sequence[dict[str, Any]]:
    """연관법령: the articles the question leads to and the same-numbered articles of their 시행령·시행규칙."""
    out, seen = [], set()
    for statute, version, number in _ai_hits(world, q, ("0", "1")):
        for member in (statute, *world.laws.family(statute).values()):
            current = member.current(q.as_of)
            if current is not None and number <= member.article_count and (member.law_id, number) not in seen:
                seen.add((member.law_id, number))
                out.append((member, current, number))
    return LazyRows(out, lambda hit: _ai_record(world, *hit))


# -- statutes' further services: history, structure, comparisons, delegation, links ------------------------------
def _entry(statute, version, status: str = "현행") -> dict[str, Any]:
    """A statute version as every list of the law family names it (each row keeps the fields it lists)."""
    mst = version.mst
    record = _statute_record(statute, version, status, _link("law", "MST", mst))
    record.update(
        {
            "법령명": statute.name,
            "본문상세링크": _link("lsStmd", "MST", mst),
            "신구법일련번호": mst,
            "현행연혁구분": status,
            "신구법명": statute.name,
            "신구법ID": statute.law_id,
            "신구법상세링크": _link("oldAndNew", "MST", mst),
            "삼단비교일련번호": mst,
            "위임조문_삼단비교상세링크": _link("thdCmp", "MST", mst, "&knd=2"),
            "인용조문_삼단비교상세링크": _link("thdCmp", "MST", mst, "&knd=1"),
        }
    )
    return record


def _statute_list(pick: Callable[[Any, Any], bool] | None = None) -> Callable[[Any, Query], Sequence[dict[str, Any]]]:
    """The statutes in force named by query (and org, knd, efYd, ancYd), those ``pick`` keeps, ordered by sort."""

    def table(world, q: Query) -> Sequence[dict[str, Any]]:
        kind, ef_range, anc_range = q.get("knd"), _range(q, "efYd"), _range(q, "ancYd")
        found = []
        for statute in _statute_filter(world, q, world.laws.statutes):
            version = statute.current(q.as_of)
            if kind is not None and KIND_CODES.get(statute.kind) != kind:
                continue
            if ef_range and not ef_range[0] <= version.enforced <= ef_range[1]:
                continue
            if anc_range and not anc_range[0] <= version.promulgated <= anc_range[1]:
                continue
            if pick is None or pick(world, statute):
                found.append(statute)
        return _sorted(
            found, lambda s: _statute_keys(s, s.current(q.as_of)), lambda s: _entry(s, s.current(q.as_of)), q
        )

    return table


def _has_decree(world, statute) -> bool:
    return statute.kind == "법률" and "시행령" in world.laws.family(statute)


def _linked_acts(world) -> frozenset[str]:
    return world.laws.linked_acts


def _oneview(world, statute) -> bool:
    """한눈보기: the content 법제처 prepares for some articles of the acts it explains (those with real counts)."""
    return statute.kind == "법률" and statute.name in ENGLISH_NAMES


def search_oneview(world, q: Query) -> Sequence[dict[str, Any]]:
    rows = _statute_list(_oneview)(world, q)

    def make(i):
        record = dict(rows[i])
        rng = world.rng("law.oneview", record["법령ID"])
        record["제공건수"] = str(int(rng.integers(1, 6)))
        record["제공일자"] = ymd(parse_ymd(record["시행일자"]) + dt.timedelta(days=int(rng.integers(10, 200))))
        return record

    return LazyRows(list(range(len(rows))), make)


def _version_for(world, q: Query, ef_day: str | None = None):
    """(statute, version) by MST or ID; with efYd the version in force on that day."""
    statute, version = _statute_for(world, q)
    if ef_day is not None:
        day = parse_ymd(ef_day)
        if day is None:
            raise BadParam("efYd", ef_day)
        if q.get("MST") is None:
            version = max((v for v in statute.versions if v.enforced <= day), key=lambda v: v.enforced, default=None)
            if version is None:
                raise NoData()
    return statute, version


def _basics(statute, version) -> dict[str, Any]:
    return {
        "법령ID": statute.law_id,
        "법령일련번호": version.mst,
        "공포일자": ymd(version.promulgated),
        "공포번호": version.number,
        "법종구분": statute.kind,
        "법령명": statute.name,
        "시행일자": ymd(version.enforced),
        "제개정구분": version.revision,
    }


def get_lsstmd(world, q: Query) -> list[dict[str, Any]]:
    """법령 체계도: the statute's basic facts and its family (법률 → 시행령 → 시행규칙) in force."""
    statute, version = _statute_for(world, q)
    family = {}
    for kind, member in world.laws.family(statute).items():
        current = member.current(q.as_of)
        if current is not None:
            family[kind] = {"기본정보": _basics(member, current), "본문상세링크": _link("law", "MST", current.mst)}
    return [{"기본정보": _basics(statute, version), "상하위법": family}]


def _rows_text(world, statute, version, numbers) -> list[dict[str, Any]]:
    rows = []
    for n in numbers:
        unit = world.laws.article(statute, version, n)
        text = " ".join([unit["조문내용"], *(p["항내용"] for p in unit.get("항", []))])
        rows.append({"@no": str(len(rows) + 1), "#text": text})
    return rows


def get_oldandnew(world, q: Query) -> list[dict[str, Any]]:
    """신구법 비교: a version's changed articles beside the same articles of the version before it."""
    statute, version = _statute_for(world, q)
    index = statute.versions.index(version)
    info = {**_basics(statute, version), "현행여부": "Y" if version is statute.current(q.as_of) else "N"}
    if index == 0:
        return [{"신조문_기본정보": info, "신구법존재여부": "N"}]
    before = statute.versions[index - 1]
    changed = world.laws.changed_articles(statute, version)
    return [
        {
            "구조문_기본정보": {**_basics(statute, before), "현행여부": "N"},
            "신조문_기본정보": info,
            "구조문목록": {"조문": _rows_text(world, statute, before, changed)},
            "신조문목록": {"조문": _rows_text(world, statute, version, changed)},
            "신구법존재여부": "Y",
        }
    ]


def get_thdcmp(world, q: Query) -> list[dict[str, Any]]:
    """3단 비교: an act's articles beside those of its 시행령 and 시행규칙 (knd 2 위임조문, 1 인용조문)."""
    knd = q.get("knd") or "2"
    if knd not in ("1", "2"):
        raise BadParam("knd", knd)
    statute, version = _statute_for(world, q)
    family = world.laws.family(statute)
    act = family.get("법률")
    if act is None or "시행령" not in family:
        raise NoData()
    act_version = act.current(q.as_of) if act is not statute else version
    names = {kind: (s, s.current(q.as_of)) for kind, s in family.items()}

    def article(kind: str, n: int) -> dict[str, Any]:
        member, current = names[kind]
        unit = world.laws.article(member, current, min(n, member.article_count))
        return {
            "조번호": f"{int(unit['조문번호']):04d}",
            "조가지번호": "00",
            "조제목": unit["조문제목"],
            "조내용": unit["조문내용"],
        }

    rows = []
    for n in range(3, min(act.article_count - 3, 9) + 1):
        row = article("법률", n)
        row["시행령조문목록"] = {"시행령조문": article("시행령", n - 1)}
        if "시행규칙" in names:
            row["시행규칙조문목록"] = {"시행규칙조문": article("시행규칙", max(1, n - 2))}
        rows.append(row)
    basics = {
        "법령ID": act.law_id,
        "시행령ID": family["시행령"].law_id,
        "시행규칙ID": family["시행규칙"].law_id if "시행규칙" in family else "",
        "법령명": act.name,
        "시행령명": family["시행령"].name,
        "시행규칙명": family["시행규칙"].name if "시행규칙" in family else "",
        "삼단비교기준": "L",
        "삼단비교존재여부": "Y",
        "시행일자": ymd(act_version.enforced),
    }
    key = "위임조문삼단비교" if knd == "2" else "인용조문삼단비교"
    return [{"기본정보": basics, key: {"법률조문": rows}}]


def get_delegated(world, q: Query) -> list[dict[str, Any]]:
    """위임 법령: the articles of a 법률 that delegate to its 시행령 and 시행규칙, with the articles that take them."""
    statute, version = _statute_for(world, q)
    family = world.laws.family(statute)
    units = []
    for n in range(3, statute.article_count - 2):
        if statute.kind != "법률" or world.laws.article_title(statute, n) in ("벌칙", "양벌규정", "과태료"):
            continue
        if stable_int("law.delegated", statute.law_id, n) % 3:
            continue
        infos = []
        for kind, word in (("시행령", "대통령령"), ("시행규칙", "부령")):
            member = family.get(kind)
            current = member.current(q.as_of) if member else None
            if current is None:
                continue
            target = 1 + stable_int("law.delegated", member.law_id, n) % member.article_count
            infos.append(
                {
                    "위임구분": word if kind == "시행령" else ("총리령" if member.kind == "총리령" else "부령"),
                    "위임법령제목": member.name,
                    "위임법령일련번호": current.mst,
                    "위임법령조문정보": {
                        "위임법령조문번호": f"{target:04d}",
                        "위임법령조문가지번호": "00",
                        "위임법령조문제목": world.laws.article_title(member, target),
                        "링크텍스트": word,
                        "라인텍스트": f"제{n}조제2항에 따른 절차와 방법 등에 필요한 사항은 {word}으로 정한다.",
                        "조항호목": f"제{n}조제2항",
                    },
                }
            )
        if infos:
            units.append(
                {
                    "조정보": {
                        "조문번호": f"{n:04d}",
                        "조문가지번호": "00",
                        "조문제목": world.laws.article_title(statute, n),
                    },
                    "위임정보": infos,
                }
            )
    if not units:
        raise NoData()
    info = {
        "법령일련번호": version.mst,
        "법령명": statute.name,
        "법령ID": statute.law_id,
        "공포일자": ymd(version.promulgated),
        "공포번호": version.number,
        "소관부처": {"@소관부처코드": statute.ministry_code, "#text": statute.ministry},
        "전화번호": "044-200-0000",
        "시행일자": ymd(version.enforced),
    }
    return [{"법령": {"법령정보": info, "위임조문정보": units}}]


def _provision(efyd: bool) -> Callable[[Any, Query], list[dict[str, Any]]]:
    """조항호목: one article (JO), or one paragraph of it (HANG); this world's articles have no 호 or 목."""

    def table(world, q: Query) -> list[dict[str, Any]]:
        statute, version = _version_for(world, q, q.require("efYd") if efyd else None)
        number = _jo(q)
        if number is None:
            raise MissingParam("JO")
        unit = world.laws.article(statute, version, number)
        if unit is None or q.get("HO") or q.get("MOK"):
            raise NoData()
        unit = {k: v for k, v in unit.items() if k != "조문키"}
        hang = q.get("HANG")
        if hang is not None:
            if not (hang.isdigit() and len(hang) == 6):
                raise BadParam("HANG", hang)
            paragraphs = unit.get("항", [])
            k = int(hang[:4]) - 1
            if not 0 <= k < len(paragraphs):
                raise NoData()
            unit["항"] = [paragraphs[k]]
        basics = {
            "법령ID": statute.law_id,
            "공포일자": ymd(version.promulgated),
            "공포번호": version.number,
            "언어": "한글",
            "법종구분": {"@법종구분코드": KIND_CODES[statute.kind], "#text": statute.kind},
            "법령명_한글": statute.name,
            "소관부처": {"@소관부처코드": statute.ministry_code, "#text": statute.ministry},
            "시행일자": ymd(version.enforced),
            "제개정구분": version.revision,
            "공포법령여부": "Y",
        }
        return [{"기본정보": basics, "조문": {"조문단위": unit}}]

    return table


def _reg_days(q: Query, required: bool) -> tuple[dt.date, dt.date] | None:
    """regDt (one day) or fromRegDt~toRegDt (toRegDt the as-of date when left out)."""
    one, low, high = q.date("regDt"), q.date("fromRegDt"), q.date("toRegDt")
    if one is not None:
        return one, one
    if low is not None or high is not None:
        return low or dt.date(1948, 1, 1), min(high or q.as_of, q.as_of)
    if required:
        raise MissingParam("regDt")
    return None


def search_changes(world, q: Query) -> Sequence[dict[str, Any]]:
    """법령 변경이력: the versions registered (promulgated) on regDt, of the ministry org."""
    low, high = _reg_days(q, True)
    org = q.get("org")
    rows = [
        (s, v) for s, v in world.laws.versions_between(low, min(high, q.as_of)) if org is None or s.ministry_code == org
    ]

    def make(pair):
        s, v = pair
        status = "현행" if v is s.current(q.as_of) else "연혁"
        return _statute_record(s, v, status, _link("law", "MST", v.mst))

    return LazyRows(rows, make)


def _jo_info(statute, version, n: int) -> dict[str, Any]:
    first = version is statute.versions[0]
    return {
        "조문번호": f"{n:04d}00",
        "변경사유": "제정" if first else version.revision,
        "조문링크": _link("law", "MST", version.mst, f"&JO={n:04d}00"),
        "조문변경이력상세링크": f"/DRF/lawService.do?target=lsJoHstInf&ID={statute.law_id}&JO={n:04d}00&type=HTML",
        "조문개정일": ymd(version.promulgated),
        "조문시행일": ymd(version.enforced),
    }


def search_article_changes(world, q: Query) -> Sequence[dict[str, Any]]:
    """일자별 조문 개정 이력: versions promulgated in the window (regDt or fromRegDt~toRegDt; none without one),
    each with the articles it changed (jo); ID, JO and org narrow them."""
    window = _reg_days(q, False)
    if window is None:
        raise NoData()
    law_id, org, number = q.get("ID"), q.get("org"), _jo(q)
    rows = []
    for s, v in world.laws.versions_between(window[0], min(window[1], q.as_of)):
        if (law_id is not None and s.law_id != law_id.zfill(6)) or (org is not None and s.ministry_code != org):
            continue
        changed = world.laws.changed_articles(s, v)
        if number is not None and number not in changed:
            continue
        rows.append((s, v, changed if number is None else (number,)))

    def make(row):
        s, v, changed = row
        record = _statute_record(s, v, "", "")
        record["jo"] = [{"@num": str(i), "조문정보": _jo_info(s, v, n)} for i, n in enumerate(changed[:50], 1)]
        return record

    return LazyRows(rows, make)


def get_article_changes(world, q: Query) -> Sequence[dict[str, Any]]:
    """조문별 변경 이력: every version of the statute (ID) that changed the article JO, oldest first."""
    statute = world.laws.by_id.get(q.require("ID").zfill(6))
    number = _jo(q) if q.require("JO") else None
    if statute is None or number is None or number > statute.article_count:
        raise NoData()
    rows = [
        v for v in statute.versions if v.promulgated <= q.as_of and number in world.laws.changed_articles(statute, v)
    ]

    def make(v):
        record = _statute_record(statute, v, "", "")
        info = _jo_info(statute, v, number)
        record.update({"조문번호": info["조문번호"], "변경사유": info["변경사유"], "조문링크": info["조문링크"]})
        record["조문변경일"] = info["조문개정일"]
        return record

    return LazyRows(rows, make)


def search_linked_ordinances(world, q: Query) -> Sequence[dict[str, Any]]:
    """자치법규 기준 법령 연계: the ordinances that implement a 법률 (query: the ordinance's name)."""
    links = world.laws.ordinance_links
    query = q.get("query")
    found = [
        o
        for o in world.laws.ordinances
        if o.serial in links and o.promulgated <= q.as_of and _text_match(query, o.name)
    ]
    return _sorted(found, lambda o: (o.name, o.promulgated, int(o.number), o.enforced), _ordin_record, q)


def _ordin_record(o) -> dict[str, Any]:
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


def link_stats(world, q: Query) -> list[dict[str, Any]]:
    """법령-자치법규 연계현황 (HTML): per ministry, its 법률 and those that ordinances implement."""
    linked = _linked_acts(world)
    counts: dict[str, list[int]] = {}
    for act in world.laws.acts:
        entry = counts.setdefault(act.ministry, [0, 0])
        entry[0] += 1
        entry[1] += act.name in linked
    return [{"td": [ministry, str(n), str(k)]} for ministry, (n, k) in sorted(counts.items())]


def search_history(world, q: Query) -> Sequence[dict[str, Any]]:
    """법령 연혁 (HTML): every promulgated version of the statutes named, as the page's table rows."""
    versions = search_eflaw(world, q)

    def make(i):
        r = versions[i]
        link = _link("lsHistory", "MST", r["법령일련번호"], f"&efYd={r['시행일자']}")
        day = parse_ymd(r["공포일자"])
        enforced = parse_ymd(r["시행일자"])
        return {
            "td": [
                {"a": {"@href": link, "#text": r["법령명한글"]}},
                r["소관부처명"],
                r["제개정구분명"],
                r["법령구분명"],
                f"제 {int(r['공포번호'])} 호",
                f"{day.year}.{day.month}.{day.day}",
                f"{enforced.year}.{enforced.month}.{enforced.day}",
                r["현행연혁코드"],
            ]
        }

    return LazyRows(list(range(len(versions))), make)


def get_history(world, q: Query) -> list[dict[str, Any]]:
    """법령 연혁 본문 (HTML): the version's facts, one row each, and the link to its text."""
    statute, version = _statute_for(world, q)
    rows = [
        ("법령명", statute.name),
        ("법령구분", statute.kind),
        ("소관부처", statute.ministry),
        ("공포일자", ymd(version.promulgated)),
        ("공포번호", version.number),
        ("시행일자", ymd(version.enforced)),
        ("제개정구분", version.revision),
    ]
    out = [{"td": list(row)} for row in rows]
    out.append({"td": ["본문", {"a": {"@href": _link("law", "MST", version.mst), "#text": statute.name}}]})
    return out


def get_oneview(world, q: Query) -> list[dict[str, Any]]:
    """한눈보기 본문: the contents prepared for the articles of one version (JO: one article)."""
    statute, version = _statute_for(world, q)
    if not _oneview(world, statute):
        raise NoData()
    rng = world.rng("law.oneview", statute.law_id)
    count = int(rng.integers(1, 6))
    numbers = sorted({int(n) + 1 for n in rng.choice(statute.article_count, count, replace=False)})
    wanted = _jo(q)
    if wanted is not None:
        numbers = [n for n in numbers if n == wanted]
    if not numbers:
        raise NoData()
    contents = []
    for i, n in enumerate(numbers, 1):
        title = world.laws.article_title(statute, n)
        contents.append(
            {
                "패턴일련번호": f"{stable_int('law.oneview', statute.law_id, n) % 90_000 + 10_000}",
                "조번호": f"{n:04d}",
                "조제목": title,
                "콘텐츠제목": f"{title} 한눈에 보기",
                "링크텍스트": f"제{n}조({title})",
                "링크URL": f"https://www.law.go.kr/LSW/oneViewInfoP.do?lsiSeq={version.mst}&joNo={n:04d}",
            }
        )
    return [
        {
            "법령일련번호": version.mst,
            "법령명": statute.name,
            "공포일자": ymd(version.promulgated),
            "공포번호": version.number,
            "조문시행일자": ymd(version.enforced),
            "최초제공일자": ymd(version.enforced + dt.timedelta(days=30)),
            "조문": contents,
        }
    ]


_DELETED_KINDS = {"1": "법령", "2": "행정규칙", "3": "자치법규", "13": "학칙공단"}


def search_deleted(world, q: Query) -> Sequence[dict[str, Any]]:
    """삭제 데이터: records taken off the service (a few a week), by kind (knd) and day (delDt, frmDt~toDt)."""
    knd = q.get("knd")
    if knd is not None and knd not in _DELETED_KINDS:
        raise BadParam("knd", knd)
    day, low, high = q.date("delDt"), q.date("frmDt"), q.date("toDt")
    start = dt.date(2023, 1, 1)
    days = (q.as_of - start).days
    rows = []
    for i in range(0, max(days, 0), 3):  # one deletion every third day
        deleted = start + dt.timedelta(days=i)
        kind = ("1", "2", "3", "2", "13")[stable_int("law.delhst", i) % 5]
        if (knd and kind != knd) or (day and deleted != day) or (low and deleted < low) or (high and deleted > high):
            continue
        rows.append((i, kind, deleted))

    def make(row):
        i, kind, deleted = row
        return {
            "일련번호": str(100_000 + stable_int("law.delhst.serial", i) % 900_000),
            "구분명": _DELETED_KINDS[kind],
            "삭제일자": ymd(deleted),
        }

    return LazyRows(rows, make)


# -- rules of schools and public bodies, attachments, old-and-new of rules, custom lists ---------------------------
def _rule_record(r, target: str) -> dict[str, Any]:
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
        "행정규칙상세링크": _link(target, "ID", r.serial),
        "시행일자": ymd(r.enforced),
        "생성일자": ymd(r.issued),
        "행정규칙구분명": r.kind,
        "소관부처코드": MINISTRIES.get(r.ministry, ""),
        "신구법일련번호": r.serial,
        "신구법명": r.name,
        "신구법ID": r.rule_id,
        "신구법상세링크": _link("admrulOldAndNew", "ID", r.serial),
    }


def _rule_search(pool: Callable[[Any], Sequence], target: str) -> Callable[[Any, Query], Sequence[dict[str, Any]]]:
    def table(world, q: Query) -> Sequence[dict[str, Any]]:
        query, kind, org = q.get("query"), q.get("knd"), q.get("org")
        found = [
            r
            for r in pool(world)
            if r.issued <= q.as_of
            and _text_match(query, r.name)
            and (kind is None or r.kind_code == kind)
            and (org is None or MINISTRIES.get(r.ministry) == org)
        ]
        return _sorted(found, lambda r: (r.name, r.issued, r.number, r.enforced), lambda r: _rule_record(r, target), q)

    return table


def _rule_body(target: str) -> Callable[[Any, Query], list[dict[str, Any]]]:
    """학칙ㆍ공단ㆍ공공기관 규정 본문 by ID or LID, in the administrative rules' shape (AdmRulService)."""

    def table(world, q: Query) -> list[dict[str, Any]]:
        rules = world.laws.institution_rules(target)
        serial, rule_id = q.get("ID"), q.get("LID")
        if serial is None and rule_id is None:
            raise MissingParam("ID")
        rule = next((r for r in rules if r.serial == serial or r.rule_id == rule_id), None)
        if rule is None or rule.issued > q.as_of:
            raise NoData()
        titles = ("목적", "적용범위", "정의", "운영", "시행")
        return [
            {
                "행정규칙기본정보": {k: v for k, v in _rule_record(rule, target).items() if k in _ADMRUL_BASICS},
                "조문내용": [
                    f"제{n}조({t}) 이 {_topic(rule.kind)} {rule.ministry}의 {t}에 관하여 정한다."
                    for n, t in enumerate(titles, 1)
                ],
                "부칙": {
                    "부칙공포일자": ymd(rule.issued),
                    "부칙공포번호": rule.number,
                    "부칙내용": f"부칙 이 {_topic(rule.kind)} 공포한 날부터 시행한다.",
                },
            }
        ]

    return table


_ADMRUL_BASICS = (
    "행정규칙일련번호",
    "행정규칙명",
    "행정규칙종류",
    "발령일자",
    "발령번호",
    "제개정구분명",
    "제개정구분코드",
    "행정규칙ID",
    "소관부처명",
    "소관부처코드",
    "시행일자",
    "생성일자",
)


def get_admrul_old_and_new(world, q: Query) -> list[dict[str, Any]]:
    """행정규칙 신구법 비교: an amended rule's changed articles before and after (ID or LID)."""
    rule = _admin_rule(world, q)
    info = {
        k: v
        for k, v in _rule_record(rule, "admrul").items()
        if k
        in (
            "행정규칙일련번호",
            "행정규칙ID",
            "시행일자",
            "발령일자",
            "발령번호",
            "제개정구분명",
            "행정규칙명",
            "행정규칙종류",
        )
    }
    if rule.revision == "제정":  # a first issue has nothing to compare
        return [{"신조문_기본정보": {**info, "현행여부": "Y"}, "신구법존재여부": "N"}]
    rng = world.rng("law.admrul.oldandnew", rule.serial)
    before = rule.issued - dt.timedelta(days=int(rng.integers(200, 1_500)))
    old = {
        **info,
        "행정규칙일련번호": str(int(rule.serial) - int(rng.integers(1, 9_000))),
        "발령일자": ymd(before),
        "시행일자": ymd(before),
        "현행여부": "N",
    }
    count = int(rng.integers(1, 4))
    return [
        {
            "구조문_기본정보": old,
            "신조문_기본정보": {**info, "현행여부": "Y"},
            "구조문목록": {
                "조문": [
                    {"@no": str(n), "#text": f"제{n + 1}조 {rule.ministry}장관은 필요한 사항을 정할 수 있다."}
                    for n in range(1, count + 1)
                ]
            },
            "신조문목록": {
                "조문": [
                    {"@no": str(n), "#text": f"제{n + 1}조 {rule.ministry}장관은 필요한 사항을 정하여 고시한다."}
                    for n in range(1, count + 1)
                ]
            },
            "신구법존재여부": "Y",
        }
    ]


_BYL_KINDS = {"1": "별표", "2": "서식", "3": "별지"}


def _attachments(target: str) -> Callable[[Any, Query], Sequence[dict[str, Any]]]:
    """별표ㆍ서식 of statutes (licbyl), administrative rules (admbyl) and ordinances (ordinbyl): search 1 by the
    attachment's title, 2 by its owner's name; knd the kind (1 별표, 2 서식, 3 별지); org the ministry."""

    def table(world, q: Query) -> Sequence[dict[str, Any]]:
        query, kind, org = q.get("query"), q.get("knd"), q.get("org")
        by_owner = q.get("search") == "2"
        found = []
        for a in world.laws.attachments[target]:
            serial, owner, number, code, title = a
            name = owner.name
            day = getattr(owner, "promulgated", None) or getattr(owner, "issued", None)
            if target == "licbyl":
                version = owner.current(q.as_of)
                if version is None:
                    continue
                day = version.promulgated
            if day > q.as_of or (kind is not None and code != kind):
                continue
            ministry = getattr(owner, "ministry", None) or getattr(owner, "government", "")
            if org is not None and MINISTRIES.get(ministry) != org:
                continue
            if not _text_match(query, name if by_owner else title):
                continue
            found.append(a)

        def make(a):
            serial, owner, number, code, title = a
            base = {
                "별표일련번호": serial,
                "별표명": title,
                "별표번호": f"{number:04d}",
                "별표종류": _BYL_KINDS[code],
                "별표서식파일링크": f"/LSW/flDownload.do?flSeq={serial}",
                "별표서식PDF파일링크": f"/LSW/flDownload.do?flSeq={serial}&type=pdf",
            }
            if target == "licbyl":
                version = owner.current(q.as_of)
                base.update(
                    {
                        "관련법령일련번호": version.mst,
                        "관련법령ID": owner.law_id,
                        "관련법령명": owner.name,
                        "소관부처명": owner.ministry,
                        "공포일자": ymd(version.promulgated),
                        "공포번호": version.number,
                        "제개정구분명": version.revision,
                        "법령종류": owner.kind,
                        "별표법령상세링크": f"/LSW/lsBylInfoPLinkR.do?lsiSeq={version.mst}&bylNo={number:04d}&bylBrNo=00",
                    }
                )
            elif target == "admbyl":
                base.update(
                    {
                        "관련행정규칙일련번호": owner.serial,
                        "관련행정규칙명": owner.name,
                        "소관부처명": owner.ministry,
                        "발령일자": ymd(owner.issued),
                        "발령번호": owner.number,
                        "관련법령ID": owner.rule_id,
                        "행정규칙종류": owner.kind,
                        "별표행정규칙상세링크": f"/LSW/admRulBylInfoPLinkR.do?admRulSeq={owner.serial}&bylNo={number:04d}",
                    }
                )
            else:
                base.update(
                    {
                        "관련자치법규일련번호": owner.serial,
                        "관련자치법규명": owner.name,
                        "지자체기관명": owner.government.split(" ")[-1],
                        "전체기관명": owner.government,
                        "자치법규시행일자": ymd(owner.enforced),
                        "공포일자": ymd(owner.promulgated),
                        "공포번호": owner.number,
                        "제개정구분명": owner.revision,
                        "별표자치법규상세링크": f"/LSW/ordinBylInfoPLinkR.do?ordinSeq={owner.serial}&bylNo={number:04d}",
                    }
                )
            return base

        return _sorted(found, lambda a: (a[4], a[1].name, a[0], a[1].name), make, q)

    return table


_VCODE = {"couseLs": "L", "couseAdmrul": "A", "couseOrdin": "O"}


def _custom(target: str, articles: bool) -> Callable[[Any, Query], Sequence[dict[str, Any]]]:
    """맞춤형 목록: the documents a user filed under a classification code (vcode: L, A or O and 13 digits), drawn
    for the code; with lj=jo their articles, one record each."""

    def table(world, q: Query) -> Sequence[dict[str, Any]]:
        vcode = q.require("vcode")
        if len(vcode) != 14 or vcode[0] != _VCODE[target] or not vcode[1:].isdigit():
            raise BadParam("vcode", vcode)
        pool = {
            "couseLs": world.laws.statutes,
            "couseAdmrul": world.laws.admin_rules,
            "couseOrdin": world.laws.ordinances,
        }[target]
        rng = world.rng("law.custom", vcode)
        picks = sorted(int(i) for i in rng.choice(len(pool), min(len(pool), int(rng.integers(4, 13))), replace=False))
        members = [pool[i] for i in picks]
        if target == "couseLs":
            members = [s for s in members if s.current(q.as_of) is not None]
            records = [_entry(s, s.current(q.as_of)) for s in members]
        elif target == "couseAdmrul":
            records = [_rule_record(r, "admrul") for r in members if r.issued <= q.as_of]
        else:
            records = [_ordin_record(o) for o in members if o.promulgated <= q.as_of]
        if not articles:
            return records
        out = []
        for record in records:
            key = record.get("법령일련번호") or record.get("행정규칙일련번호") or record.get("자치법규일련번호")
            for n in range(1, 4):
                row = dict(record)
                row.update(
                    {
                        "법령키": f"{record.get('법령ID', '')}{record.get('공포일자', '')}{record.get('공포번호', '')}",
                        "조문키": f"{n:04d}001",
                        "조문번호": f"{n:04d}",
                        "조문가지번호": "00",
                        "조문제목": ("목적", "정의", "적용 범위")[n - 1],
                        "조문내용": f"제{n}조({('목적', '정의', '적용 범위')[n - 1]})",
                        "조문시행일자": record.get("시행일자", ""),
                        "조문제개정유형": record.get("제개정구분명", ""),
                        "조문제개정일자문자열": record.get("공포일자", record.get("발령일자", "")),
                        "조문상세링크": f"/LSW/joInfoP.do?key={key}&joNo={n:04d}",
                        "담당부서기관코드": MINISTRIES.get(record.get("소관부처명", ""), ""),
                        "담당부서기관명": record.get("소관부처명", ""),
                        "담당자명": "",
                        "전화번호": "",
                    }
                )
                out.append(row)
        return out

    return table


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
    "admin_rules": _rule_search(lambda world: world.laws.admin_rules, "admrul"),
    "admin_rule": get_admrul,
    "ordinances": search_ordin,
    "ordinance": get_ordin,
    "treaties": search_trty,
    "treaty": get_trty,
    "terms": search_lstrm,
    "term": get_lstrm,
    "kb_terms": search_lstrm_ai,
    "daily_terms": search_dlytrm,
    "term_daily_links": get_lstrm_rlt,
    "daily_term_links": get_dlytrm_rlt,
    "term_articles": get_lstrm_rlt_jo,
    "article_terms": get_jo_rlt_lstrm,
    "related_statutes": search_ls_rlt,
    "ai_articles": search_ai,
    "ai_related_articles": search_ai_related,
    "statute_tree": get_lsstmd,
    "statute_trees": _statute_list(),
    "old_and_new": get_oldandnew,
    "old_and_new_list": _statute_list(lambda world, s: len(s.versions) > 1),
    "three_tier": get_thdcmp,
    "three_tier_list": _statute_list(_has_decree),
    "delegations": get_delegated,
    "provision": _provision(False),
    "provision_by_day": _provision(True),
    "changes": search_changes,
    "article_changes_by_day": search_article_changes,
    "article_changes": get_article_changes,
    "linked_statutes": _statute_list(lambda world, s: s.name in _linked_acts(world)),
    "linked_ordinances": search_linked_ordinances,
    "link_stats": link_stats,
    "history": search_history,
    "history_body": get_history,
    "oneview_list": search_oneview,
    "oneview": get_oneview,
    "deleted": search_deleted,
    **{
        f"{t}_rules": _rule_search(lambda world, t=t: world.laws.institution_rules(t), t)
        for t in ("school", "public", "pi")
    },
    **{f"{t}_rule": _rule_body(t) for t in ("school", "public", "pi")},
    "admin_rules_amended": _rule_search(
        lambda world: [r for r in world.laws.admin_rules if r.revision != "제정"], "admrul"
    ),
    "admin_rule_old_and_new": get_admrul_old_and_new,
    **{f"{t}_attachments": _attachments(t) for t in ("licbyl", "admbyl", "ordinbyl")},
    **{f"{t}_list": _custom(t, False) for t in _VCODE},
    **{f"{t}_articles": _custom(t, True) for t in _VCODE},
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
