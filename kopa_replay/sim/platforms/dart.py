"""OpenDART (금융감독원 전자공시) — https://opendart.fss.or.kr/api/{name}.json|.xml

What the simulator reproduces:

* The key is the query parameter ``crtfc_key``; the path's extension picks
  JSON or XML; every answer is HTTP 200 with ``status``/``message`` (``000``
  정상, ``010`` unknown key, ``013`` 조회된 데이타가 없습니다 — the real
  spelling —, ``020`` rate limit, ``021`` more than 100 companies, ``100``
  bad or missing field, ``800`` maintenance, ``900`` undefined error). A path
  DART does not serve answers the site's HTML 404 page.
* ``corpCode.xml`` answers a ZIP (``Content-Disposition: attachment;
  filename=CORPCODE.zip``, the name clients save it under) holding ``CORPCODE.xml`` (``<result><list>
  <corp_code/><corp_name/><corp_eng_name/><stock_code/><modify_date/></list>…``,
  ``stock_code`` a single space for unlisted firms); its errors come as a
  plain XML ``<result><status/><message/></result>``.
* ``company.json`` is one flat object; list endpoints answer ``{status,
  message, list}``; ``list.json`` pages with ``page_no``/``page_count``
  (1–100, default 10) and adds ``total_count``/``total_page``; without
  ``corp_code`` its window may not exceed three months (status 100).
* Endpoints keyed by ``corp_code`` answer 013 for a code they do not know —
  a company name in its place included.
"""

from __future__ import annotations

import datetime as dt
import io
import math
import zipfile
from collections import OrderedDict
from collections.abc import Callable, Mapping
from typing import Any

from kopa_replay.sim.core import (
    BadParam,
    Context,
    Doc,
    Endpoint,
    ErrorKind,
    NoData,
    Protocol,
    Query,
    paged,
    xml_bytes,
)
from kopa_replay.sim.messages import SimRequest
from kopa_replay.sim.tables import load_table, serve
from kopa_replay.sim.world.calendar import korean_date, ymd
from kopa_replay.sim.world.finance import (
    FAMOUS_CORP_CODES,
    IFRS_ACCOUNTS,
    PRICE_START,
    REPORT_CODES,
    Company,
    Filing,
    person_name,
)
from kopa_replay.sim.world.fmt import comma, data, frozen

__all__ = ["DartProtocol", "DART_STATUS", "ENDPOINTS", "HOSTS"]

HOST = "opendart.fss.or.kr"
#: status messages, account and indicator lists, report vocabularies: data/dart.yaml
_DATA = frozen(data("dart"))

DART_STATUS = _DATA["status"]
#: BadParam name a handler raises when more companies are asked than DART allows (status 021).
TOO_MANY_COMPANIES = "corp_code[>100]"
_NOT_FOUND_PAGE = (
    "<html><head><title>404 Not Found</title></head><body><h1>페이지를 찾을 수 없습니다.</h1>"
    "<p>요청하신 페이지가 존재하지 않거나, 잘못된 경로입니다.</p></body></html>"
).encode("utf-8")


class DartProtocol(Protocol):
    """OpenDART's envelope: status/message at the top, the extension choosing JSON or XML."""

    name = "dart"
    key_params = ("crtfc_key",)
    paging_params = ("page_no", "page_count")

    def __init__(self, *, xml_only: tuple[str, ...] = (), max_page_count: int = 100) -> None:
        self.xml_only = xml_only
        self.max_page_count = max_page_count

    def route(self, request: SimRequest) -> tuple[str, dict[str, str]]:
        stem, dot, ext = request.path.rpartition(".")
        if not dot or ext not in ("json", "xml") or (stem in self.xml_only and ext != "xml"):
            return request.path, {}
        return stem, {}

    def wants_xml(self, request: SimRequest, endpoint, path_params) -> bool:
        return request.path.endswith(".xml")

    def window(self, ctx: Context, params: Mapping[str, str]) -> tuple[int, int, dict[str, Any]]:
        if ctx.endpoint is None or not ctx.endpoint.options.get("paged"):
            return 0, 10**9, {}
        cap = ctx.max_size(self.max_page_count)
        size = (params.get("page_count") or "").strip()
        if size.isdigit() and cap is not None and int(size) > cap:
            raise BadParam("page_count", size)
        return paged(params, "page_no", "page_count", 10, None)

    def _status(self, ctx: Context, code: str) -> dict[str, str]:
        code = ctx.code(code)
        return {"status": code, "message": DART_STATUS.get(code, "")}

    def ok(self, ctx: Context, records: list[dict[str, Any]], total: int, meta: Mapping[str, Any]) -> Doc:
        options = ctx.endpoint.options if ctx.endpoint is not None else {}
        if options.get("zip") is True:
            # clients read the file name from the header (the download's real one)
            return Doc(
                _corpcode_zip(records),
                content_type="application/x-msdownload",
                headers=(("content-disposition", "attachment; filename=CORPCODE.zip"),),
            )
        if isinstance(options.get("zip"), Mapping) and total:
            return _download(options["zip"], dict(ctx.request.query), records)
        if total == 0:
            return self.error(ctx, ErrorKind.NO_DATA)
        head = self._status(ctx, "000")
        if options.get("groups"):
            # 증권신고서: the rows come in groups, {title, list} each
            body = {**head, "group": records}
        elif options.get("single"):
            body = {**head, **records[0]}
        elif options.get("paged"):
            body = {
                **head,
                "page_no": meta["page"],
                "page_count": meta["size"],
                "total_count": total,
                "total_page": math.ceil(total / meta["size"]),
                "list": records,
            }
        else:
            body = {**head, "list": records}
        return Doc(body, xml=ctx.xml, xml_root="result")

    def error(self, ctx: Context, kind: str, detail: str = "") -> Doc:
        if kind == ErrorKind.NOT_FOUND:
            return Doc(_NOT_FOUND_PAGE, status=404, content_type="text/html;charset=UTF-8")
        download = ctx.endpoint is not None and isinstance(ctx.endpoint.options.get("zip"), Mapping)
        code = {
            ErrorKind.INVALID_KEY: "010",
            ErrorKind.NO_DATA: "014" if download else "013",
            ErrorKind.RATE_LIMIT: "020",
            ErrorKind.MISSING_PARAM: "100",
            ErrorKind.BAD_PARAM: "021" if detail == TOO_MANY_COMPANIES else "100",
            ErrorKind.MAINTENANCE: "800",
            ErrorKind.SERVER_ERROR: "900",
        }[kind]
        return Doc(self._status(ctx, code), xml=ctx.xml, xml_root="result")


_ZIP_CACHE: "OrderedDict[tuple[int, int], tuple[list[dict[str, Any]], bytes]]" = OrderedDict()


def _corpcode_zip(records: list[dict[str, Any]]) -> bytes:
    """CORPCODE.xml in a ZIP with a fixed timestamp, so the same world gives the same bytes.

    Every download of one world and date carries the same (cached) record
    objects; building the ZIP costs tens of milliseconds, so it is kept and
    reused when the records are those very objects (the entry holds them, so
    their ids cannot be reused by others).
    """
    key = (len(records), id(records[0]) if records else 0)
    hit = _ZIP_CACHE.get(key)
    if hit is not None and all(a is b for a, b in zip(hit[0], records)):
        return hit[1]
    data = _build_corpcode_zip(records)
    _ZIP_CACHE[key] = (list(records), data)
    while len(_ZIP_CACHE) > 8:
        _ZIP_CACHE.popitem(last=False)
    return data


def _build_corpcode_zip(records: list[dict[str, Any]]) -> bytes:
    return _zip("CORPCODE.xml", xml_bytes("result", {"list": records}))


def _zip(member: str, document: bytes) -> bytes:
    """One member in a ZIP with a fixed timestamp, so the same world gives the same bytes."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        info = zipfile.ZipInfo(member, date_time=(2026, 1, 1, 0, 0, 0))
        info.compress_type = zipfile.ZIP_DEFLATED
        info.create_system = 0
        archive.writestr(info, document)
    return buffer.getvalue()


def _download(spec: Mapping[str, Any], params: Mapping[str, str], records: list[dict[str, Any]]) -> Doc:
    """A file download as the operation row describes it (document.xml, fnlttXbrl.xml): the records as one
    XML member (``root``, with ``list`` naming a repeated element) in a ZIP whose name the header gives."""
    names = {key: (params.get(key) or "").strip() for key in ("rcept_no", "reprt_code")}
    body = {spec["list"]: records} if spec.get("list") else records[0]
    data = _zip(spec["member"].format(**names), xml_bytes(spec["root"], body))
    return Doc(
        data,
        content_type="application/x-msdownload",
        headers=(("content-disposition", f"attachment; filename={spec['file'].format(**names)}"),),
    )


PROTOCOL = DartProtocol(xml_only=("/api/corpCode",))

# -- parameter helpers ----------------------------------------------------------


def _company(world, q: Query) -> Company:
    """The company a corp_code names; unknown codes (names included) have no data."""
    company = world.finance.by_corp_code.get(q.require("corp_code"))
    if company is None:
        raise NoData()
    return company


def _window(q: Query) -> tuple[dt.date, dt.date]:
    begin, end = q.date("bgn_de", required=True), q.date("end_de", required=True)
    if begin > end:
        raise BadParam("bgn_de", q.get("bgn_de"))
    return begin, end


def _year(q: Query) -> str:
    year = q.require("bsns_year")
    if not (len(year) == 4 and year.isdigit() and 2015 <= int(year) <= 2100):
        raise BadParam("bsns_year", year)
    return year


def _reprt_code(q: Query) -> str:
    code = q.require("reprt_code")
    if code not in REPORT_CODES:
        raise BadParam("reprt_code", code)
    return code


def _choice(q: Query, name: str, allowed: tuple[str, ...], default: str | None = None) -> str | None:
    value = q.get(name, default)
    if value is not None and value not in allowed:
        raise BadParam(name, value)
    return value


def _head(company: Company) -> dict[str, str]:
    return {"corp_cls": company.corp_cls, "corp_code": company.corp_code, "corp_name": company.corp_name}


def _dashed(year: str, code: str) -> str:
    month, day = REPORT_CODES[code][2]
    return f"{year}-{month:02d}-{day:02d}"


# -- handlers -------------------------------------------------------------------


def corp_codes(world, q: Query) -> list[dict[str, Any]]:
    """corpCode.xml: every company, unlisted ones with stock_code " "."""
    return [
        {
            "corp_code": c.corp_code,
            "corp_name": c.corp_name,
            "corp_eng_name": c.corp_eng_name,
            "stock_code": c.stock_code or c.delisted_code or " ",
            "modify_date": c.modify_date,
        }
        for c in world.finance.companies
    ]


def company_outline(world, q: Query) -> list[dict[str, Any]]:
    c = _company(world, q)
    return [
        {
            "corp_code": c.corp_code,
            "corp_name": c.corp_name,
            "corp_name_eng": c.corp_eng_name,
            "stock_name": c.corp_name,
            "stock_code": c.stock_code,
            "ceo_nm": c.ceo,
            "corp_cls": c.corp_cls,
            "jurir_no": c.crno,
            "bizr_no": c.bizr_no,
            "adres": c.address,
            "hm_url": c.homepage,
            "ir_url": c.ir_url,
            "phn_no": c.phone,
            "fax_no": c.fax,
            "induty_code": c.induty_code,
            "est_dt": c.est_dt,
            "acc_mt": c.acc_mt,
        }
    ]


def _months_before(day: dt.date, months: int) -> dt.date:
    month_index = day.year * 12 + day.month - 1 - months
    year, month = divmod(month_index, 12)
    month += 1
    last = (dt.date(year + (month == 12), month % 12 + 1, 1) - dt.timedelta(days=1)).day
    return dt.date(year, month, min(day.day, last))


_SORT_KEYS: dict[str, Callable[[Filing], Any]] = {
    "date": lambda f: f.rcept_no,
    "crp": lambda f: (f.company.corp_name, f.rcept_no),
    "rpt": lambda f: (f.report_nm, f.rcept_no),
}


def disclosures(world, q: Query) -> list[dict[str, Any]]:
    """list.json: receipts in [bgn_de, end_de] (end_de defaults to today, bgn_de to end_de)."""
    fin = world.finance
    end = q.date("end_de", default=q.as_of)
    begin = q.date("bgn_de", default=end)
    if begin > end:
        raise BadParam("bgn_de", q.get("bgn_de"))
    kind = _choice(q, "pblntf_ty", tuple("ABCDEFGHIJ"))
    detail = q.get("pblntf_detail_ty")
    corp_cls = _choice(q, "corp_cls", ("Y", "K", "N", "E"))
    _choice(q, "last_reprt_at", ("Y", "N"))
    sort = _choice(q, "sort", tuple(_SORT_KEYS), "date")
    order = _choice(q, "sort_mth", ("asc", "desc"), "desc")
    corp_code = q.get("corp_code")
    if corp_code:
        pool = [f for f in fin.filings_by_corp.get(corp_code, ()) if begin <= f.rcept_dt <= end]
    else:
        # DART limits a search over all companies to three months.
        if begin < _months_before(end, 3):
            raise BadParam("bgn_de", q.get("bgn_de"))
        pool = fin.filings_between(begin, end)
    rows = [
        f
        for f in pool
        if f.rcept_dt <= q.as_of
        and (kind is None or f.pblntf_ty == kind)
        and (detail is None or f.pblntf_detail_ty == detail)
        and (corp_cls is None or f.company.corp_cls == corp_cls)
    ]
    if not rows:
        raise NoData()
    rows.sort(key=_SORT_KEYS[sort], reverse=order == "desc")
    return [
        {
            **_head(f.company),
            "stock_code": f.company.stock_code,
            "report_nm": f.report_nm,
            "rcept_no": f.rcept_no,
            "flr_nm": f.flr_nm,
            "rcept_dt": ymd(f.rcept_dt),
            "rm": f.rm,
        }
        for f in rows
    ]


def _event_handler(kind: str) -> Callable[[Any, Query], list[dict[str, Any]]]:
    """A 주요사항보고서 endpoint: the company's decisions of one kind received in [bgn_de, end_de]."""

    def handler(world, q: Query) -> list[dict[str, Any]]:
        company = _company(world, q)
        begin, end = _window(q)
        rows = [
            {"rcept_no": f.rcept_no, **_head(company), **f.detail}
            for f in world.finance.filings_by_corp.get(company.corp_code, ())
            if f.kind == kind and begin <= f.rcept_dt <= end and f.rcept_dt <= q.as_of
        ]
        if not rows:
            raise NoData()
        return rows

    handler.__name__ = f"{kind}_decisions"
    return handler


def _ownership_handler(kind: str) -> Callable[[Any, Query], list[dict[str, Any]]]:
    """majorstock / elestock: every ownership report on the company so far."""

    def handler(world, q: Query) -> list[dict[str, Any]]:
        company = _company(world, q)
        rows = [
            {
                "rcept_no": f.rcept_no,
                "rcept_dt": ymd(f.rcept_dt),
                "corp_code": company.corp_code,
                "corp_name": company.corp_name,
                **f.detail,
            }
            for f in world.finance.filings_by_corp.get(company.corp_code, ())
            if f.kind == kind and f.rcept_dt <= q.as_of
        ]
        if not rows:
            raise NoData()
        return rows

    handler.__name__ = f"{kind}_reports"
    return handler


# -- financial statements -------------------------------------------------------

_ACCOUNTS = _DATA["accounts"]


def _term(company: Company, year: int) -> int:
    return year - int(company.est_dt[:4]) + 1


def _account_rows(world, company: Company, filing: Filing, year: int, code: str) -> list[dict[str, Any]]:
    """fnlttSinglAcnt rows of one report: 13 accounts for CFS (when consolidated) and OFS."""
    fin = world.finance
    quarter, _, (month, day) = REPORT_CODES[code]
    annual = quarter == 4
    label = {1: " 1분기", 2: " 반기", 3: " 3분기", 4: ""}[quarter]
    q_start = dt.date(year, month - 2, 1)
    rows = []
    for fs_div in ("CFS", "OFS") if company.has_cfs else ("OFS",):
        consolidated = fs_div == "CFS"
        now = fin.period_values(company, year, quarter, consolidated)
        prior_q = fin.period_values(company, year - 1, quarter, consolidated)
        prior_end = fin.period_values(company, year - 1, 4, consolidated)
        before_end = fin.period_values(company, year - 2, 4, consolidated)
        for order, (name, sj_div, key) in enumerate(_ACCOUNTS, start=1):
            row: dict[str, Any] = {
                "rcept_no": filing.rcept_no,
                "bsns_year": str(year),
                "corp_code": company.corp_code,
                "stock_code": company.stock_code,
                "reprt_code": code,
                "account_nm": name,
                "fs_div": fs_div,
                "fs_nm": "연결재무제표" if consolidated else "재무제표",
                "sj_div": sj_div,
                "sj_nm": "재무상태표" if sj_div == "BS" else "손익계산서",
                "thstrm_nm": f"제 {_term(company, year)} 기{label}",
            }
            if sj_div == "BS":
                row.update(
                    thstrm_dt=f"{year}.{month:02d}.{day:02d} 현재",
                    thstrm_amount=comma(now[key]),
                    frmtrm_nm=f"제 {_term(company, year - 1)} 기" + ("" if annual else "말"),
                    frmtrm_dt=f"{year - 1}.12.31 현재",
                    frmtrm_amount=comma(prior_end[key]),
                )
            elif annual:
                row.update(
                    thstrm_dt=f"{year}.01.01 ~ {year}.12.31",
                    thstrm_amount=comma(now[key]),
                    frmtrm_nm=f"제 {_term(company, year - 1)} 기",
                    frmtrm_dt=f"{year - 1}.01.01 ~ {year - 1}.12.31",
                    frmtrm_amount=comma(prior_end[key]),
                )
            else:
                row.update(
                    thstrm_dt=f"{q_start:%Y.%m.%d} ~ {year}.{month:02d}.{day:02d}",
                    thstrm_amount=comma(now[key + "_q"]),
                    thstrm_add_amount=comma(now[key]),
                    frmtrm_nm=f"제 {_term(company, year - 1)} 기{label}",
                    frmtrm_dt=f"{q_start.replace(year=year - 1):%Y.%m.%d} ~ {year - 1}.{month:02d}.{day:02d}",
                    frmtrm_amount=comma(prior_q[key + "_q"]),
                    frmtrm_add_amount=comma(prior_q[key]),
                )
            if annual:
                row.update(
                    bfefrmtrm_nm=f"제 {_term(company, year - 2)} 기",
                    bfefrmtrm_dt=(
                        f"{year - 2}.12.31 현재" if sj_div == "BS" else f"{year - 2}.01.01 ~ {year - 2}.12.31"
                    ),
                    bfefrmtrm_amount=comma(before_end[key]),
                )
            row.update(ord=str(order), currency="KRW")
            rows.append(row)
    return rows


def single_accounts(world, q: Query) -> list[dict[str, Any]]:
    company, year, code = _company(world, q), _year(q), _reprt_code(q)
    filing = world.finance.periodic(company, year, code, q.as_of)
    if filing is None:
        raise NoData()
    return _account_rows(world, company, filing, int(year), code)


def multi_accounts(world, q: Query) -> list[dict[str, Any]]:
    """fnlttMultiAcnt: the same accounts for up to 100 comma-separated corp_codes."""
    codes = [c.strip() for c in q.require("corp_code").split(",") if c.strip()]
    if len(codes) > 100:
        raise BadParam(TOO_MANY_COMPANIES)
    year, code = _year(q), _reprt_code(q)
    fin = world.finance
    rows: list[dict[str, Any]] = []
    for corp_code in codes:
        company = fin.by_corp_code.get(corp_code)
        filing = fin.periodic(company, year, code, q.as_of) if company else None
        if filing is not None:
            rows.extend(_account_rows(world, company, filing, int(year), code))
    if not rows:
        raise NoData()
    return rows


# -- sections of periodic reports (배당, 최대주주, 직원) -------------------------


def _report_section(build: Callable[[Any, Company, int, str], list[dict[str, Any]]]):
    """An endpoint that reads one section of the company's periodic report for (bsns_year, reprt_code)."""

    def handler(world, q: Query) -> list[dict[str, Any]]:
        company, year, code = _company(world, q), _year(q), _reprt_code(q)
        filing = world.finance.periodic(company, year, code, q.as_of)
        if filing is None:
            raise NoData()
        rows = build(world, company, int(year), code)
        if not rows:
            raise NoData()
        return [{"rcept_no": filing.rcept_no, **_head(company), **row, "stlm_dt": _dashed(year, code)} for row in rows]

    handler.__name__ = build.__name__
    return handler


def _pct(value: float) -> str:
    return f"{value:.1f}"


def dividend_rows(world, company: Company, year: int, code: str) -> list[dict[str, Any]]:
    """alotMatter: the dividend table (this year, last year, the year before).

    Interim reports carry the year-to-date profit and no dividend (no interim
    dividends in this world); the annual report adds the year's cash dividend.
    """
    fin = world.finance
    quarter = REPORT_CODES[code][0]
    figures = []
    for y in (year, year - 1, year - 2):
        cfs = fin.period_values(company, y, quarter, True)["net"] if company.has_cfs else None
        ofs = fin.period_values(company, y, quarter, False)["net"]
        dps = fin.dividend_per_share(company, y) if quarter == 4 else 0
        close = fin.close_on(company, dt.date(y, 12, 30))  # the last trading day of the year
        figures.append(
            {
                "cfs": cfs,
                "ofs": ofs,
                "dps": dps,
                "total": dps * company.shares,
                "close": close,
                "eps": (cfs if cfs is not None else ofs) / company.shares,
            }
        )

    def row(se: str, kind: str, fn: Callable[[dict], str]) -> dict[str, Any]:
        out = {"se": se}
        if kind:
            out["stock_knd"] = kind
        out.update(thstrm=fn(figures[0]), frmtrm=fn(figures[1]), lwfr=fn(figures[2]))
        return out

    def millions(value: float | None) -> str:
        return comma(value / 1_000_000) if value is not None else "-"

    return [
        row("주당액면가액(원)", "", lambda f: comma(company.par_value)),
        row("(연결)당기순이익(백만원)", "", lambda f: millions(f["cfs"])),
        row("(별도)당기순이익(백만원)", "", lambda f: millions(f["ofs"])),
        row("(연결)주당순이익(원)", "보통주", lambda f: comma(f["eps"])),
        row("현금배당금총액(백만원)", "", lambda f: millions(f["total"]) if f["dps"] else "-"),
        row("주식배당금총액(백만원)", "", lambda f: "-"),
        row(
            "(연결)현금배당성향(%)",
            "",
            lambda f: (
                _pct(f["total"] / (f["cfs"] or f["ofs"]) * 100) if f["dps"] and (f["cfs"] or f["ofs"]) > 0 else "-"
            ),
        ),
        row(
            "현금배당수익률(%)",
            "보통주",
            lambda f: _pct(f["dps"] / f["close"] * 100) if f["dps"] and f["close"] else "-",
        ),
        row("주식배당수익률(%)", "보통주", lambda f: "-"),
        row("주당 현금배당금(원)", "보통주", lambda f: comma(f["dps"]) if f["dps"] else "-"),
        row("주당 주식배당(주)", "보통주", lambda f: "-"),
    ]


def holder_rows(world, company: Company, year: int, code: str) -> list[dict[str, Any]]:
    """hyslrSttus: the largest shareholder and related parties, with a 계 (total) row."""
    quarter = REPORT_CODES[code][0]
    holders = world.finance.holders(company, year, quarter)

    def rate(count: int) -> str:
        return f"{count / company.shares * 100:.2f}"

    rows = [
        {
            "nm": h["nm"],
            "relate": h["relate"],
            "stock_knd": "보통주",
            "bsis_posesn_stock_co": comma(h["start"]),
            "bsis_posesn_stock_qota_rt": rate(h["start"]),
            "trmend_posesn_stock_co": comma(h["end"]),
            "trmend_posesn_stock_qota_rt": rate(h["end"]),
            "rm": "-",
        }
        for h in holders
    ]
    start, end = sum(h["start"] for h in holders), sum(h["end"] for h in holders)
    rows.append(
        {
            "nm": "계",
            "relate": "-",
            "stock_knd": "보통주",
            "bsis_posesn_stock_co": comma(start),
            "bsis_posesn_stock_qota_rt": rate(start),
            "trmend_posesn_stock_co": comma(end),
            "trmend_posesn_stock_qota_rt": rate(end),
            "rm": "-",
        }
    )
    return rows


def employee_rows(world, company: Company, year: int, code: str) -> list[dict[str, Any]]:
    """empSttus: headcount, tenure and pay by sex for the whole company (전사)."""
    prof = world.finance.profile(company)
    quarter = REPORT_CODES[code][0]
    total = int(prof["employees"] * (1 + 0.03 * (year - 2025) + 0.005 * quarter))
    female = int(total * prof["female_share"])
    rows = []
    for sex, count, pay_factor in (("남", total - female, 1.08), ("여", female, 0.82)):
        contract = count // 12
        pay = prof["salary"] * pay_factor * quarter / 4
        rows.append(
            {
                "fo_bbm": "전사",
                "sexdstn": sex,
                "reform_bfe_emp_co_rgllbr": "-",
                "reform_bfe_emp_co_cnttk": "-",
                "reform_bfe_emp_co_etc": "-",
                "rgllbr_co": comma(count - contract),
                "rgllbr_abacpt_labrr_co": "-",
                "cnttk_co": comma(contract),
                "cnttk_abacpt_labrr_co": "-",
                "sm": comma(count),
                "avrg_cnwk_sdytrn": f"{prof['tenure'] * (1.05 if sex == '남' else 0.85):.1f}",
                "fyer_salary_totamt": comma(pay * count),
                "jan_salary_am": comma(pay),
                "rm": "-",
            }
        )
    return rows


# -- endpoints --------------------------------------------------------------------

_CORP = {"corp_code": "corp_code"}
_EVENT_OUT = {"rcept_no": "rcept_no", "corp_code": "corp_code", "corp_name": "corp_name"}
# Every year of the filing history (2024 on) has a filed report of some kind, this year's half-year
# report by September: which one is the report code's business, so bsns_year takes a plain year.
_PERIODIC_IN = {"corp_code": "corp_code", "bsns_year": "year", "reprt_code": "reprt_code"}
# A decision window must open before the company's decisions: a historical date does, a recent day
# mostly misses them. What an end date finds depends on the start it comes with (a day before it is
# refused): no domain; nor for the list search's window, whose ends depend on each other the same way.
_WINDOW_IN = {**_CORP, "bgn_de": "past_date"}


def _endpoint(
    tool: str, path: str, handler, required: tuple[str, ...] = (), inputs=None, outputs=None, **options: Any
) -> Endpoint:
    return Endpoint(
        tool, "dart", HOST, path, PROTOCOL, handler, required, dict(inputs or {}), dict(outputs or {}), options
    )


ENDPOINTS = [
    # modify_date is the day the record last changed (recent); est_dt is the founding day.
    _endpoint(
        "dart_corp_code",
        "/api/corpCode",
        corp_codes,
        inputs={"corp_name": "corp_name", "stock_code": "stock_code"},
        outputs={"corp_code": "corp_code", "corp_name": "corp_name", "stock_code": "stock_code", "modify_date": "date"},
        zip=True,
    ),
    _endpoint(
        "dart_company",
        "/api/company",
        company_outline,
        ("corp_code",),
        _CORP,
        {
            "corp_code": "corp_code",
            "corp_name": "corp_name",
            "stock_name": "corp_name",
            "stock_code": "stock_code",
            "jurir_no": "crno",
            "bizr_no": "bizr_no",
            "est_dt": "past_date",
        },
        single=True,
    ),
    # flr_nm is the filer: the company itself but for audit and ownership reports.
    _endpoint(
        "dart_list",
        "/api/list",
        disclosures,
        (),
        _CORP,
        {
            "corp_code": "corp_code",
            "corp_name": "corp_name",
            "stock_code": "stock_code",
            "rcept_no": "rcept_no",
            "rcept_dt": "business_date",
            "flr_nm": "corp_name",
        },
        paged=True,
    ),
    *(
        _endpoint(tool, path, _event_handler(kind), ("corp_code", "bgn_de", "end_de"), _WINDOW_IN, _EVENT_OUT)
        for tool, path, kind in (
            ("dart_cvbd_is_decsn", "/api/cvbdIsDecsn", "cvbd"),
            ("dart_bdwt_is_decsn", "/api/bdwtIsDecsn", "bdwt"),
            ("dart_piic_decsn", "/api/piicDecsn", "piic"),
            ("dart_tsstk_aq_decsn", "/api/tsstkAqDecsn", "tsstk"),
        )
    ),
    *(
        _endpoint(
            tool,
            path,
            handler,
            ("corp_code", "bsns_year", "reprt_code"),
            _PERIODIC_IN,
            {
                "rcept_no": "rcept_no",
                "bsns_year": "year",
                "corp_code": "corp_code",
                "stock_code": "stock_code",
                "reprt_code": "reprt_code",
            },
        )
        for tool, path, handler in (
            ("dart_fnltt_single_acnt", "/api/fnlttSinglAcnt", single_accounts),
            ("dart_fnltt_multi_acnt", "/api/fnlttMultiAcnt", multi_accounts),
        )
    ),
    *(
        _endpoint(
            tool, path, _ownership_handler(kind), ("corp_code",), _CORP, {**_EVENT_OUT, "rcept_dt": "business_date"}
        )
        for tool, path, kind in (
            ("dart_majorstock", "/api/majorstock", "majorstock"),
            ("dart_elestock", "/api/elestock", "elestock"),
        )
    ),
    *(
        _endpoint(tool, path, _report_section(rows), ("corp_code", "bsns_year", "reprt_code"), _PERIODIC_IN, _EVENT_OUT)
        for tool, path, rows in (
            ("dart_alot_matter", "/api/alotMatter", dividend_rows),
            ("dart_hyslr_sttus", "/api/hyslrSttus", holder_rows),
            ("dart_emp_sttus", "/api/empSttus", employee_rows),
        )
    ),
]

# -- operations kept as data (kopa_replay/sim/tables/dart.yaml) -------------------------------------------
#
# Most of OpenDART's operations share two shapes: a section of a periodic report (corp_code + bsns_year +
# reprt_code → rows) and the decisions a company filed in a window (corp_code + bgn_de + end_de → one row per
# 주요사항보고서 or 증권신고서). Their rows name each field's value kind (options.values); the tables below draw
# every value from that small vocabulary, keyed by the filing, so per-operation Python is none.
#
# Besides the drawn kinds (VALUE_KINDS) a field's kind may be
#   "row"          the label the row's entry in options.layout gives it (or the options.by value);
#   "= a + b - c"  figures of the same row combined left to right (+, -, *, /; "-" counts as 0, 0 is written "-");
#   "~ a + b"      a random part (5–40%) of such a sum ("-" when it is 0).
# Derived kinds are worked out after the drawn ones, in the order options.values lists them. A report section
# with options.layout has one row per entry (times each options.by value, the inner order) instead of
# options.rows; an entry with sum_of is a total: its figures are the sums of the plain entries' rows whose
# labels match sum_of (and share its options.by value), so 합계/소계/총계 rows add up.

_PURPOSES = _DATA["purposes"]
_REASONS = _DATA["reasons"]
_METHODS = _DATA["methods"]
_KINDS = _DATA["kinds"]
_TEXTS = _DATA["texts"]
_POSITIONS = _DATA["positions"]


def _org(world, rng) -> str:
    from kopa_replay.sim.world import finance as fin

    pool = fin._AUDITORS + fin._BANKS + fin._BROKERS + fin._FUNDS
    return pool[int(rng.integers(len(pool)))]


def _amount(company: Company, rng) -> str:
    scale = max(company.shares * company.par_value, 10**9)
    return comma(int(scale * rng.uniform(0.005, 0.3)) // 1_000_000 * 1_000_000)


def _kdate(day: dt.date) -> str:
    from kopa_replay.sim.world.calendar import korean_date

    return korean_date(day)


#: value kind → value(world, company, day, rng); ``day`` is the filing's day (a decision) or the period end
VALUE_KINDS: dict[str, Callable[..., str]] = {
    "amount": lambda w, c, day, rng: _amount(c, rng),
    "shares": lambda w, c, day, rng: comma(int(max(c.shares, 10**6) * rng.uniform(0.001, 0.08))),
    "price": lambda w, c, day, rng: comma(
        int((w.finance.close_before(c, day) if c.listed and day > PRICE_START else 10_000) * rng.uniform(0.8, 1.2))
        // 10
        * 10
    ),
    "count": lambda w, c, day, rng: comma(int(rng.integers(1, 12))),
    "ratio": lambda w, c, day, rng: f"{rng.uniform(0.1, 60):.2f}",
    "decided": lambda w, c, day, rng: _kdate(day),
    "kdate": lambda w, c, day, rng: _kdate(day + dt.timedelta(days=int(rng.integers(0, 90)))),
    "dotdate": lambda w, c, day, rng: f"{day - dt.timedelta(days=int(rng.integers(0, 300))):%Y.%m.%d}",
    "ym": lambda w, c, day, rng: f"{int(rng.integers(1955, 1990))}년 {int(rng.integers(1, 13)):02d}월",
    "period": lambda w, c, day, rng: (
        f"{_kdate(day + dt.timedelta(days=1))} ~ {_kdate(day + dt.timedelta(days=int(rng.integers(30, 365))))}"
    ),
    "person": lambda w, c, day, rng: person_name(*rng.random(3)),
    "org": lambda w, c, day, rng: _org(w, rng),
    "position": lambda w, c, day, rng: _POSITIONS[int(rng.integers(len(_POSITIONS)))],
    "sex": lambda w, c, day, rng: "남" if rng.random() < 0.8 else "여",
    "yesno": lambda w, c, day, rng: "예" if rng.random() < 0.5 else "아니오",
    "attend": lambda w, c, day, rng: "참석" if rng.random() < 0.85 else "불참",
    "applies": lambda w, c, day, rng: "해당" if rng.random() < 0.3 else "미해당",
    "purpose": lambda w, c, day, rng: _PURPOSES[int(rng.integers(len(_PURPOSES)))],
    "reason": lambda w, c, day, rng: _REASONS[int(rng.integers(len(_REASONS)))],
    "method": lambda w, c, day, rng: _METHODS[int(rng.integers(len(_METHODS)))],
    "kind": lambda w, c, day, rng: _KINDS[int(rng.integers(len(_KINDS)))],
    "opinion": lambda w, c, day, rng: "적정" if rng.random() < 0.95 else "한정",
    "currency": lambda w, c, day, rng: ("USD", "EUR", "JPY")[int(rng.integers(3))],
    "country": lambda w, c, day, rng: ("미국", "싱가포르", "일본", "홍콩")[int(rng.integers(4))],
    "text": lambda w, c, day, rng: _TEXTS[int(rng.integers(len(_TEXTS)))],
    "dash": lambda w, c, day, rng: "-",
    # a balance of one maturity bucket (미상환 잔액): an amount or none
    "bucket": lambda w, c, day, rng: _amount(c, rng) if rng.random() < 0.5 else "-",
    # a treasury-share quantity of one acquisition route: mostly none
    "held": lambda w, c, day, rng: (
        comma(int(max(c.shares, 10**6) * rng.uniform(0.001, 0.03))) if rng.random() < 0.25 else "-"
    ),
    # one person's pay for the year (이사·감사 보수), whole millions of won
    "pay": lambda w, c, day, rng: comma(int(rng.uniform(30, 2000)) * 1_000_000),
    # 향후 6월이내 제3자배정 증자 등 계획
    "plan": lambda w, c, day, rng: ("해당사항없음", "해당사항없음", "없음", "-")[int(rng.integers(4))],
    # a yes/no that is mostly no (최근 6월 이내 제3자 배정에 의한 신주취득 여부)
    "seldom": lambda w, c, day, rng: "예" if rng.random() < 0.1 else "아니오",
}

#: kinds whose figures a total row (options.layout sum_of) adds up, besides the "~" parts
_SUMMED = frozenset({"amount", "shares", "count", "bucket", "held"})


def _figure(text: str | None) -> int:
    """A comma figure as a number ("-" or nothing is 0)."""
    text = (text or "").replace(",", "").strip()
    return int(text) if text.lstrip("-").isdigit() else 0


def _written(value: int) -> str:
    return comma(value) if value else "-"


def _derived(kind: str, row: Mapping[str, str], rng) -> str:
    """A "=" or "~" kind worked out over the row's figures (left to right)."""
    tokens = kind[1:].split()
    value = _figure(row.get(tokens[0]))
    for op, name in zip(tokens[1::2], tokens[2::2]):
        other = _figure(row.get(name))
        if op == "+":
            value += other
        elif op == "-":
            value -= other
        elif op == "*":
            value *= other
        else:
            value = value // other if other else 0
    if kind[0] == "~":
        return _written(int(value * rng.uniform(0.05, 0.4))) if value > 0 else "-"
    return _written(value)


def _check_kinds(op) -> None:
    """Every kind a row names is known and its formulas name the row's fields (at import, not per call)."""
    values = op.options.get("values", {})
    for name, kind in values.items():
        if kind[:1] in ("=", "~"):
            tokens = kind[1:].split()
            if (
                len(tokens) % 2 == 0
                or any(t not in values for t in tokens[::2])
                or set(tokens[1::2]) - {"+", "-", "*", "/"}
            ):
                raise ValueError(f"dart.yaml {op.tool}: bad formula for {name}: {kind!r}")
        elif kind != "row" and kind not in VALUE_KINDS:
            raise ValueError(f"dart.yaml {op.tool}: unknown value kind {kind!r} for {name}")


def _draw(
    world, company: Company, day: dt.date, values: Mapping[str, str], rng, labels: Mapping[str, str] | None = None
) -> dict[str, str]:
    """One row's values: the drawn kinds in order, then the derived ones; "row" kinds from ``labels``."""
    row: dict[str, str] = {}
    for name, kind in values.items():
        if kind == "row":
            row[name] = (labels or {}).get(name, "-")
        elif kind[:1] not in ("=", "~"):
            row[name] = VALUE_KINDS[kind](world, company, day, rng)
    for name, kind in values.items():
        if kind[:1] in ("=", "~"):
            row[name] = _derived(kind, row, rng)
    return row


def _laid_out(world, company: Company, day: dt.date, options: Mapping[str, Any], rng) -> list[dict[str, str]]:
    """A report section of fixed rows (options.layout × options.by); total entries add up their plain rows."""
    values = options["values"]
    by_name, by_values = next(iter(options["by"].items())) if options.get("by") else (None, [None])
    rows: list[tuple[Mapping[str, str] | None, Any, dict[str, str]]] = []
    for entry in options["layout"]:
        labels = {k: v for k, v in entry.items() if k != "sum_of"}
        for value in by_values:
            fixed = {**labels, by_name: value} if by_name else labels
            rows.append((entry.get("sum_of"), value, _draw(world, company, day, values, rng, fixed)))
    summed = [n for n, k in values.items() if k in _SUMMED or k[:1] == "~"]
    for sum_of, value, total in rows:
        if sum_of is None:
            continue
        parts = [
            r for s, v, r in rows if s is None and v == value and all(r.get(k) == want for k, want in sum_of.items())
        ]
        for name in summed:
            total[name] = _written(sum(_figure(r[name]) for r in parts))
        for name, kind in values.items():
            if kind[:1] == "=":
                total[name] = _derived(kind, total, rng)
    return [row for _, _, row in rows]


def _report_item(op) -> Callable[[Any, Query], list[dict[str, Any]]]:
    """A section of the company's periodic report for (bsns_year, reprt_code): rows drawn per the row's kinds."""
    route = op.route.rsplit("/", 1)[-1]
    low, high = op.options.get("rows", (1, 4))
    share, values = float(op.options.get("share", 1.0)), op.options["values"]

    def rows(world, q: Query) -> list[dict[str, Any]]:
        company, year, code = _company(world, q), _year(q), _reprt_code(q)
        filing = world.finance.periodic(company, year, code, q.as_of)
        # the well-known companies report every section (their examples answer in every world)
        if filing is None or (
            company.corp_code not in FAMOUS_CORP_CODES
            and world.rng("dart.item.share", route, company.corp_code).random() >= share
        ):
            raise NoData()
        rng = world.rng("dart.item", route, company.corp_code, year, code)
        month, day = REPORT_CODES[code][2]
        end = dt.date(int(year), month, day)
        head = {"rcept_no": filing.rcept_no, **_head(company), "stlm_dt": _dashed(year, code)}
        if op.options.get("layout"):
            return [{**head, **row} for row in _laid_out(world, company, end, op.options, rng)]
        return [{**head, **_draw(world, company, end, values, rng)} for _ in range(int(rng.integers(low, high + 1)))]

    return rows


def _filed(world, q: Query, kind: str) -> tuple[Company, list[Filing]]:
    """The company's filings of one kind received in [bgn_de, end_de] (and by the as-of day)."""
    company = _company(world, q)
    begin, end = _window(q)
    filings = [
        f
        for f in world.finance.filings_by_corp.get(company.corp_code, ())
        if f.kind == kind and begin <= f.rcept_dt <= end and f.rcept_dt <= q.as_of
    ]
    if not filings:
        raise NoData()
    return company, filings


def _decision(op) -> Callable[[Any, Query], list[dict[str, Any]]]:
    """A 주요사항보고서 kind: one row per report the company filed in the window."""
    kind, values = op.route.rsplit("/", 1)[-1], op.options["values"]

    def rows(world, q: Query) -> list[dict[str, Any]]:
        company, filings = _filed(world, q, kind)
        return [
            {
                "rcept_no": f.rcept_no,
                **_head(company),
                **_draw(world, company, f.rcept_dt, values, world.rng("dart.event", f.rcept_no)),
            }
            for f in filings
        ]

    return rows


def _registration(op) -> Callable[[Any, Query], list[dict[str, Any]]]:
    """A 증권신고서 kind: its groups ({title, list}), each listing the rows of every statement in the window."""
    kind, groups = op.route.rsplit("/", 1)[-1], op.options["groups"]

    def rows(world, q: Query) -> list[dict[str, Any]]:
        company, filings = _filed(world, q, kind)
        out = []
        for i, group in enumerate(groups):
            values = {n: op.options["values"][n] for n in group["fields"] if n in op.options["values"]}
            listed = []
            for f in filings:
                rng = world.rng("dart.registration", f.rcept_no, i)
                head = {"rcept_no": f.rcept_no, **_head(company)}
                for _ in range(1 if i == 0 else int(rng.integers(1, 3))):
                    row = {**head, **_draw(world, company, f.rcept_dt, values, rng)}
                    listed.append({n: row.get(n) for n in group["fields"]})
            out.append({"title": group["title"], "list": listed})
        return out

    return rows


def _accounts_all(op) -> Callable[[Any, Query], list[dict[str, Any]]]:
    """fnlttSinglAcntAll: every account of one statement set (fs_div), from the same figures as fnlttSinglAcnt."""

    def rows(world, q: Query) -> list[dict[str, Any]]:
        company, year, code = _company(world, q), _year(q), _reprt_code(q)
        fs_div = _choice(q, "fs_div", ("OFS", "CFS"))
        filing = world.finance.periodic(company, year, code, q.as_of)
        if filing is None or (fs_div == "CFS" and not company.has_cfs):
            raise NoData()
        fin, y, quarter = world.finance, int(year), REPORT_CODES[code][0]
        consolidated = fs_div == "CFS"
        now = fin.period_values(company, y, quarter, consolidated)
        prior = fin.period_values(company, y - 1, quarter, consolidated)
        prior_end = fin.period_values(company, y - 1, 4, consolidated)
        before = fin.period_values(company, y - 2, 4, consolidated)
        annual, label = quarter == 4, {1: " 1분기", 2: " 반기", 3: " 3분기", 4: ""}[quarter]
        out = []
        for order, (sj_div, sj_nm, account_id, name, key) in enumerate(IFRS_ACCOUNTS, start=1):
            flow = sj_div != "BS"
            row: dict[str, Any] = {
                "rcept_no": filing.rcept_no,
                "reprt_code": code,
                "bsns_year": year,
                "corp_code": company.corp_code,
                "sj_div": sj_div,
                "sj_nm": sj_nm,
                "account_id": account_id,
                "account_nm": name,
                "account_detail": "-",
                "thstrm_nm": f"제 {_term(company, y)} 기{label}",
                "thstrm_amount": comma(now[key + "_q"] if flow and not annual and key + "_q" in now else now[key]),
                "frmtrm_nm": f"제 {_term(company, y - 1)} 기" + ("" if annual or flow else "말"),
                "frmtrm_amount": comma(prior_end[key] if annual or not flow else prior[key]),
                "ord": str(order),
                "currency": "KRW",
            }
            if flow and not annual:
                row.update(
                    thstrm_add_amount=comma(now[key]),
                    frmtrm_q_nm=f"제 {_term(company, y - 1)} 기{label}",
                    frmtrm_q_amount=comma(prior.get(key + "_q", prior[key])),
                    frmtrm_add_amount=comma(prior[key]),
                )
            if annual:
                row.update(bfefrmtrm_nm=f"제 {_term(company, y - 2)} 기", bfefrmtrm_amount=comma(before[key]))
            out.append(row)
        return out

    return rows


def _indicator(a: str, b: str | None, guard: str) -> Callable[[Mapping[str, float], Mapping[str, float]], Any]:
    """now[a] / now[b], or without b the growth now[a] / prior[a] - 1, where the divisor passes ``guard`` (nz: not
    zero, pos: above zero), else None."""

    def value(n: Mapping[str, float], p: Mapping[str, float]) -> float | None:
        base = n[b] if b else p[a]
        if not (base > 0 if guard == "pos" else base):
            return None
        return n[a] / base if b else n[a] / base - 1

    return value


#: fnlttSinglIndx: indicator class → (idx_cl_nm, ((idx_code, idx_nm, value(now, prior)) …)); codes are ours
_INDICATORS = {
    cls: (name, tuple((code, nm, _indicator(a, b, guard)) for code, nm, a, b, guard in rows))
    for cls, (name, rows) in _DATA["indicators"].items()
}


def _indicators(op) -> Callable[[Any, Query], list[dict[str, Any]]]:
    """fnlttSinglIndx / fnlttCmpnyIndx: ratios of the report's statements (consolidated where filed)."""

    def rows(world, q: Query) -> list[dict[str, Any]]:
        codes = [c.strip() for c in q.require("corp_code").split(",") if c.strip()]
        if not op.options.get("many") and len(codes) != 1:
            raise BadParam("corp_code", q.get("corp_code"))
        if len(codes) > 100:
            raise BadParam(TOO_MANY_COMPANIES)
        year, code = _year(q), _reprt_code(q)
        cls = _choice(q, "idx_cl_code", tuple(_INDICATORS))
        name, indicators = _INDICATORS[cls]
        fin, out = world.finance, []
        for corp_code in codes:
            company = fin.by_corp_code.get(corp_code)
            if company is None or fin.periodic(company, year, code, q.as_of) is None:
                continue
            quarter = REPORT_CODES[code][0]
            now = fin.period_values(company, int(year), quarter, company.has_cfs)
            prior = fin.period_values(company, int(year) - 1, quarter, company.has_cfs)
            for idx_code, idx_nm, value in indicators:
                v = value(now, prior)
                out.append(
                    {
                        "reprt_code": code,
                        "bsns_year": year,
                        "corp_code": corp_code,
                        "stock_code": company.stock_code,
                        "stlm_dt": _dashed(year, code),
                        "idx_cl_code": cls,
                        "idx_cl_nm": name,
                        "idx_code": idx_code,
                        "idx_nm": idx_nm,
                        "idx_val": f"{v:.3f}" if v is not None else "-",
                    }
                )
        if not out:
            raise NoData()
        return out

    return rows


def _taxonomy(op) -> Callable[[Any, Query], list[dict[str, Any]]]:
    """xbrlTaxonomy: the standard accounts of a statement template (kept as data in the table file)."""
    rows_by_kind = load_table("dart").extra["taxonomy"]

    def rows(world, q: Query) -> list[dict[str, Any]]:
        sj_div = q.require("sj_div")
        kind = sj_div.rstrip("0123456789").removeprefix("D")
        allowed = op.params["sj_div"]["enum"]
        if sj_div not in allowed:
            raise BadParam("sj_div", sj_div)
        return [
            dict(zip(("account_id", "account_nm", "label_kor", "label_eng", "data_tp", "ifrs_ref"), row))
            | {"sj_div": sj_div, "bsns_de": "20180701"}
            for row in rows_by_kind["CIS" if kind == "CIS" else kind]
        ]

    return rows


def _receipt(world, q: Query) -> Filing:
    filing = world.finance.by_rcept_no.get(q.require("rcept_no"))
    if filing is None or filing.rcept_dt > q.as_of:
        raise NoData()
    return filing


def _document(op) -> Callable[[Any, Query], list[dict[str, Any]]]:
    """document.xml: the filing's original document (its head and a short body)."""

    def rows(world, q: Query) -> list[dict[str, Any]]:
        f = _receipt(world, q)
        return [
            {
                "DOCUMENT-NAME": f.report_nm,
                "FORMULA-VERSION": ymd(f.rcept_dt),
                "COMPANY-NAME": f.company.corp_name,
                "CORP-CODE": f.company.corp_code,
                "RCEPT-NO": f.rcept_no,
                "SUMMARY": f"{f.company.corp_name} {f.report_nm}",
                "BODY": f"{f.company.registry_name}는 {korean_date(f.rcept_dt)} {f.report_nm}를 제출합니다. 제출인: {f.flr_nm}",
            }
        ]

    return rows


def _xbrl(op) -> Callable[[Any, Query], list[dict[str, Any]]]:
    """fnlttXbrl.xml: a periodic report's statements as XBRL facts (account id, context, unit, value)."""

    def rows(world, q: Query) -> list[dict[str, Any]]:
        f, code = _receipt(world, q), _reprt_code(q)
        if f.kind != "periodic" or f.detail.get("reprt_code") != code:
            raise NoData()
        year, quarter = int(f.detail["bsns_year"]), REPORT_CODES[code][0]
        out = []
        for consolidated in (True, False) if f.company.has_cfs else (False,):
            values = world.finance.period_values(f.company, year, quarter, consolidated)
            context = f"{'C' if consolidated else 'S'}FY{year}Q{quarter}"
            for _, _, account_id, _, key in IFRS_ACCOUNTS[:13]:
                out.append({"account_id": account_id, "context": context, "unit": "KRW", "value": str(values[key])})
        return out

    return rows


_WORLD_TABLES = {
    "report_item": _report_item,
    "decision": _decision,
    "registration": _registration,
    "accounts_all": _accounts_all,
    "indicators": _indicators,
    "taxonomy": _taxonomy,
    "document": _document,
    "xbrl": _xbrl,
}

for _op in load_table("dart").operations:
    _check_kinds(_op)
    # each world table is made for its row (the route and value kinds it answers); the generic handler serves it
    ENDPOINTS.append(
        _endpoint(
            _op.tool,
            _op.route,
            serve(_op, _WORLD_TABLES[_op.table](_op)),
            _op.required,
            _op.inputs,
            _op.outputs,
            **_op.options,
        )
    )

HOSTS = {HOST: PROTOCOL}
