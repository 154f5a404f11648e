"""The confusion matrix of incidents: every injected incident kind against the class the environment gives it.

Shared by ``tests/env/test_blocked.py`` and ``benchmarks/bench_incidents.py``. Rows are the incident kinds of
:data:`kopa_replay.sim.incidents.INCIDENT_KINDS` (the truth of each is its ``truth``: a retry storm is
environmental on its first attempts), ``retry_storm, retried`` (the same storm met by an environment that retries
three times: the answer, ok) and the natural answers with no incident (an answer, no data, a missing
parameter), which must never land in "blocked". Columns are the classes the environment assigns.

Three sources answer the same rows:

* the simulator in-process (``sim``: a fresh :class:`~kopa_replay.sim.Simulator` per row, the row's incident at
  rate 1);
* the simulator over HTTP (``served``: ``make_server`` on loopback per row, reached as a mirror's URL);
* :class:`IncidentApi`, an API of our own on loopback described by a user-written catalog (:data:`CATALOG_YAML`),
  with every incident kind rendered by its own code — its own HTML pages, bodies and gateway error envelope with
  its own code table — so the classifier is measured on answers it was not written against:

==========================  ===================================================================================
kind                        what :class:`IncidentApi` answers (per platform: harbor JSON, ledger XML, archive
                            HTML pages as data)
==========================  ===================================================================================
bot_wall                    403, an Akamai-style upper-case "Access Denied" page, to a library's User-Agent
referer_required            200, a JSP-style page whose script alerts and goes back, to a request without Referer
empty_body                  200 with nothing / CRLF only / a UTF-8 BOM only
html_page                   200, a notice page (HTML5 with unclosed tags; well-formed for the HTML-data tool)
js_challenge                200, a page whose script sets a cookie and reloads
empty_document              200 ``{}`` / ``<Ledger/>`` / ``<html><body/></html>``
retry_storm                 503 (an nginx page) to the first three attempts of each request, then the answer
key_echo                    the answer, with the key in a ``Link`` header
gateway_key_unregistered    200 ``<Fault>`` XML whatever format was asked: GW-30 (its own code table)
gateway_quota               the same, GW-22
gateway_access_denied       the same, GW-20
==========================  ===================================================================================
"""

from __future__ import annotations

import re
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ContextManager
from urllib.parse import urlencode

from local_http import LocalApi, send

from kopa_replay.catalog import load_catalog
from kopa_replay.catalog.model import Catalog, Tool
from kopa_replay.env import ToolEnvironment, execute
from kopa_replay.sim import Simulator, running_server
from kopa_replay.sim.incidents import GATEWAY_HOST, INCIDENT_KINDS

#: the classes the environment assigns, by outcome
CLASS_OF_OUTCOME = {
    "ok": "ok",
    "empty": "empty",
    "structural_error": "structural",
    "environmental_error": "environmental",
    "blocked_error": "blocked",
}
CLASSES = tuple(CLASS_OF_OUTCOME.values())
#: the natural answers (no incident) and what they are
NATURAL = {"none: answer": "ok", "none: no data": "empty", "none: missing parameter": "structural"}
#: the retry storm met with retries (the environment's own, 3): the answer comes on the fourth attempt
RETRIED = "retry_storm, retried"
ROWS = (*NATURAL, *INCIDENT_KINDS, RETRIED)
#: where the simulator's gateway kinds strike (our own API's strike every tool: ``gateway_hosts=None``)
SIM_GATEWAY_HOSTS = frozenset({GATEWAY_HOST})


def truth(row: str) -> str:
    """What the answers of ``row`` really are."""
    if row in NATURAL:
        return NATURAL[row]
    if row == RETRIED:
        return "ok"
    return INCIDENT_KINDS[row].truth


def incident_of(row: str) -> str:
    """The incident in force for ``row`` ('' for the natural rows)."""
    return "" if row in NATURAL else "retry_storm" if row == RETRIED else row


@dataclass(frozen=True)
class Call:
    tool: Tool
    args: Mapping[str, Any]
    raw: bool = False  # sent as written (a blank required parameter), not validated as an agent's call


def _far_page(tool: Tool) -> dict[str, Any] | None:
    pagination = tool.http.pagination
    if not tool.examples:
        return None
    if pagination.style == "page" and pagination.page_param:
        return {**tool.examples[0], pagination.page_param: 9999}
    if pagination.style == "range" and pagination.start_param and pagination.end_param:
        return {**tool.examples[0], pagination.start_param: 99991, pagination.end_param: 99995}
    return None


def calls(row: str, tools: Iterable[Tool], gateway_hosts: frozenset[str] | None) -> list[Call]:
    """The calls of ``row`` over ``tools``: each tool's first example (a gateway kind only on ``gateway_hosts``, all
    hosts when None); a page far past the last (no data); the first required parameter blank, sent raw."""
    out = []
    for tool in tools:
        if not tool.examples:
            continue
        if row == "none: no data":
            far = _far_page(tool)
            if far is not None:
                out.append(Call(tool, far))
        elif row == "none: missing parameter":
            if tool.required:
                out.append(Call(tool, {**tool.examples[0], tool.required[0]: " "}, raw=True))
        else:
            kind = INCIDENT_KINDS.get(incident_of(row))
            if kind is not None and kind.gateway and gateway_hosts is not None and tool.http.host not in gateway_hosts:
                continue
            out.append(Call(tool, dict(tool.examples[0])))
    return out


@dataclass
class Matrix:
    """Row → class → calls, and the calls that missed the diagonal (tool, class, evidence)."""

    counts: dict[str, Counter[str]] = field(default_factory=dict)
    misses: dict[str, list[tuple[str, str, str]]] = field(default_factory=dict)
    seconds: float = 0.0

    def add(self, row: str, tool: str, outcome: str, message: str | None) -> None:
        cls = CLASS_OF_OUTCOME[outcome]
        self.counts.setdefault(row, Counter())[cls] += 1
        if cls != truth(row):
            self.misses.setdefault(row, []).append((tool, cls, str(message)))

    @property
    def total(self) -> int:
        return sum(sum(c.values()) for c in self.counts.values())

    @property
    def diagonal(self) -> int:
        return sum(c[truth(row)] for row, c in self.counts.items())

    def diagonal_share(self) -> float:
        return self.diagonal / self.total if self.total else 0.0

    def to_dict(self) -> dict[str, Any]:
        return {
            "rows": {
                row: {"truth": truth(row), **{cls: self.counts[row][cls] for cls in CLASSES}} for row in self.counts
            },
            "calls": self.total,
            "diagonal": self.diagonal,
            "diagonal_share": round(self.diagonal_share(), 4),
            "misses": {row: [list(m) for m in misses[:5]] for row, misses in sorted(self.misses.items())},
            "seconds": round(self.seconds, 2),
        }

    def render(self) -> str:
        width = max(len(row) for row in ROWS) + 2
        lines = [f"{'row (truth)':<{width + 16}}" + "".join(f"{cls:>15}" for cls in CLASSES)]
        for row in ROWS:
            if row not in self.counts:
                continue
            counts = self.counts[row]
            cells = "".join(f"{(f'[{counts[cls]}]' if cls == truth(row) else counts[cls]):>15}" for cls in CLASSES)
            lines.append(f"{row:<{width}}{'(' + truth(row) + ')':<16}{cells}")
        lines.append(f"diagonal: {self.diagonal}/{self.total} = {self.diagonal_share():.1%}")
        return "\n".join(lines)


Opener = Callable[[str], ContextManager[ToolEnvironment]]


def measure(
    opener: Opener, tools: list[Tool], gateway_hosts: frozenset[str] | None, rows: Iterable[str] = ROWS
) -> Matrix:
    """Every row's calls through the environment ``opener(row)`` opens with the row's incident in force."""
    matrix = Matrix()
    start = time.perf_counter()
    for row in rows:
        with opener(row) as env:
            for call in calls(row, tools, gateway_hosts):
                if call.raw:
                    result: Any = execute(call.tool, call.args, env.source.client, env.source.key_for(call.tool))
                else:
                    result = env.call(call.tool.name, dict(call.args))
                matrix.add(row, call.tool.name, result.outcome, result.message)
    matrix.seconds = time.perf_counter() - start
    return matrix


def _no_sleep(seconds: float) -> None:
    return None


def _retries(row: str) -> int:
    return 3 if row == RETRIED else 0


def sim_opener(catalog: Catalog, seed: int = 0) -> Opener:
    """The simulator in-process, one per row."""

    def opener(row: str) -> ContextManager[ToolEnvironment]:
        spec = f"{incident_of(row)}=1" if incident_of(row) else ""
        return ToolEnvironment.open(
            catalog, source="sim", seed=seed, incidents=spec, retries=_retries(row), sleep=_no_sleep
        )

    return opener


def served_opener(catalog: Catalog, seed: int = 0) -> Opener:
    """The simulator over HTTP on loopback (``sim serve``'s server), one per row, reached as a mirror's URL."""

    @contextmanager
    def opener(row: str) -> Iterator[ToolEnvironment]:
        spec = f"{incident_of(row)}=1" if incident_of(row) else ""
        with (
            running_server(Simulator(seed=seed, incidents=spec)) as url,
            ToolEnvironment.open(catalog, source=url, retries=_retries(row), sleep=_no_sleep) as env,
        ):
            yield env

    return opener


def sample_tools(catalog: Iterable[Tool], per_platform: int) -> list[Tool]:
    """Up to ``per_platform`` tools of each platform (0: all): one of each shape the platform has (format, HTML
    pages as data, paging, required parameters), the rarest format and shape first, then the rest in catalog
    order."""

    def shape(tool: Tool) -> tuple[Any, ...]:
        html = any(p.split(".")[0] == "html" for p in tool.http.envelope.records)
        return tool.http.format, html, tool.http.pagination.style, bool(tool.required)

    by_platform: dict[str, list[Tool]] = {}
    for tool in catalog:
        by_platform.setdefault(tool.platform, []).append(tool)
    chosen: list[Tool] = []
    for tools in by_platform.values():
        if per_platform <= 0:
            chosen.extend(tools)
            continue
        shapes = Counter(shape(tool) for tool in tools)
        formats = Counter(tool.http.format for tool in tools)
        first: dict[tuple[Any, ...], Tool] = {}
        for tool in tools:
            first.setdefault(shape(tool), tool)
        # the rarest format first, then the rarest shape (stable: catalog order on ties)
        ordered = sorted(first.values(), key=lambda tool: (formats[tool.http.format], shapes[shape(tool)]))
        ordered += [tool for tool in tools if tool not in ordered]
        chosen.extend(ordered[:per_platform])
    return chosen


# -- an API of our own ---------------------------------------------------------------------------------------------

#: the environment variable the local API's catalog reads its key from
KEY_ENV = "HARBOR_INCIDENT_KEY"

#: A user-written catalog of the local API: three platforms, one per format (JSON, XML, HTML pages read as data),
#: each with its own envelope and code table; the gateway's fault envelope is listed by each (it answers them all).
CATALOG_YAML = """\
platforms:
  - id: harbor
    domain: transport
    base_url: {base}/harbor
    auth: {{location: query, name: apikey, env: HARBOR_INCIDENT_KEY}}
    format: json
    pagination: {{style: page, page_param: pageNo, size_param: numRows, default_size: 10, max_size: 50}}
    envelope:
      records: [result.vessels]
      total: [result.count]
      code: [status.code, Fault.Header.FaultCode]
      message: [status.text, Fault.Header.FaultString]
    result_codes: {{"0": ok, NODATA: no_data, E-PARAM: structural, E-KEY: environmental, GW-30: environmental,
                    GW-22: environmental, GW-20: environmental}}
  - id: ledger
    domain: finance
    base_url: {base}/ledger
    auth: {{location: query, name: key, env: HARBOR_INCIDENT_KEY}}
    format: xml
    pagination: {{style: page, page_param: page, size_param: rows, default_size: 10, max_size: 100}}
    envelope:
      records: [Ledger.Body.Entries.Entry]
      total: [Ledger.Body.Count]
      code: [Ledger.Head.Status, Fault.Header.FaultCode]
      message: [Ledger.Head.Note, Fault.Header.FaultString]
    result_codes: {{S00: ok, S03: no_data, E10: structural, E40: environmental, GW-30: environmental,
                    GW-22: environmental, GW-20: environmental}}
  - id: archive
    domain: law
    base_url: {base}/archive
    auth: {{location: query, name: key, env: HARBOR_INCIDENT_KEY}}
    format: xml
    pagination: {{style: page, page_param: page, size_param: rows, default_size: 10, max_size: 50}}
    envelope:
      records: [html.body.table.tbody.tr]
      total: [html.body.p.b]
      code: [Fault.Header.FaultCode]
      message: [Fault.Header.FaultString]
    result_codes: {{OK: ok, GW-30: environmental, GW-22: environmental, GW-20: environmental}}
tools:
  - name: harbor_vessels
    platform: harbor
    title: 입항 선박
    description: {{ko: 항구에 입항한 선박 목록, en: vessels in port}}
    http: {{path: /v1/vessels}}
    params:
      port: {{type: string, required: true, description: port code}}
      pageNo: {{type: integer, description: page}}
      numRows: {{type: integer, description: rows per page}}
    output: {{imo: IMO number, name: vessel name, berth: berth}}
    examples: [{{port: BUSAN}}, {{port: INCHEON, pageNo: 2, numRows: 5}}]
  - name: harbor_tides
    platform: harbor
    title: 조위
    description: {{ko: 관측소 조위, en: tide levels}}
    http: {{path: /v1/tides}}
    params:
      pageNo: {{type: integer, description: page}}
      numRows: {{type: integer, description: rows per page}}
    output: {{station: station, level: level in cm}}
    examples: [{{}}]
  - name: ledger_entries
    platform: ledger
    title: 원장 거래
    description: {{ko: 계좌의 거래 내역, en: an account's entries}}
    http: {{path: /entries.xml}}
    params:
      account: {{type: string, required: true, description: account number}}
      page: {{type: integer, description: page}}
      rows: {{type: integer, description: rows per page}}
    output: {{id: entry id, amount: amount, date: YYYYMMDD}}
    examples: [{{account: "1002"}}]
  - name: ledger_accounts
    platform: ledger
    title: 계좌 목록
    description: {{ko: 계좌 목록, en: accounts}}
    http: {{path: /accounts.xml}}
    params:
      page: {{type: integer, description: page}}
      rows: {{type: integer, description: rows per page}}
    output: {{account: account number, owner: owner}}
    examples: [{{}}]
  - name: archive_notices
    platform: archive
    title: 고시 목록
    description: {{ko: 고시 목록 (HTML 페이지), en: notices (an HTML page)}}
    http: {{path: /notices.do}}
    params:
      q: {{type: string, required: true, description: words to look for}}
      page: {{type: integer, description: page}}
      rows: {{type: integer, description: rows per page}}
    output: {{td: the row's cells}}
    examples: [{{q: 항만}}]
"""


def write_catalog(folder: Path, base_url: str) -> Catalog:
    """The local API's catalog, written as a user would (YAML) into ``folder`` and loaded."""
    path = Path(folder) / "harbor-incidents.yaml"
    path.write_text(CATALOG_YAML.format(base=base_url), encoding="utf-8")
    return load_catalog([path])


#: library User-Agents the local API's wall refuses (its own list: it knows nothing of the simulator's)
_SCRIPTS = re.compile(r"python|httpx|requests|urllib|curl|wget|java|okhttp|go-http|libwww|aiohttp", re.I)
_HTML = "text/html; charset=utf-8"
_AKAMAI = (
    b"<HTML><HEAD>\n<TITLE>Access Denied</TITLE>\n</HEAD><BODY>\n<H1>Access Denied</H1>\n \n"
    b'You don\'t have permission to access "http&#58;&#47;&#47;harbor&#47;" on this server.<P>\n'
    b"Reference&#32;&#35;18&#46;6f1d2017&#46;1767225600&#46;2b5e1a\n</BODY>\n</HTML>\n"
)
_REFERER = (
    '<!DOCTYPE html>\n<html lang="ko">\n<head>\n<meta charset="UTF-8">\n<title>비정상적인 접근</title>\n</head>\n'
    '<body>\n<script type="text/javascript">\nalert("정상적인 경로로 접근하여 주십시오.");\nhistory.back();\n'
    "</script>\n</body>\n</html>\n"
).encode()
_NOTICE = (
    '\ufeff<!doctype html>\n<html><head><meta http-equiv="Content-Type" content="text/html; charset=utf-8">'
    "<title>서비스 점검 안내</title><link rel=stylesheet href=/css/notice.css></head>\n<body><div class=notice>"
    "<h2>서비스 점검 안내</h2><p>안정적인 서비스를 위해 점검 중입니다.<br>점검 시간: 02:00 ~ 06:00&nbsp;(KST)</p>"
    "</div></body></html>"
).encode()
#: the notice as well-formed markup: parses as the HTML-data tool's own pages do
_NOTICE_WELL_FORMED = (
    "<html><head><title>점검 중</title></head><body><div><h2>점검 중</h2><p>잠시 후 다시 이용해 주십시오.</p>"
    "</div></body></html>"
).encode()
_CHALLENGE = (
    "<html><head><title>보안 확인 중</title><script>var t=Math.random().toString(36).slice(2);"
    'document.cookie="waf_tk="+t+"; path=/";window.location.reload();</script></head>'
    "<body><noscript>JavaScript를 켜 주십시오.</noscript></body></html>"
).encode()
_NGINX_503 = (
    b"<html>\r\n<head><title>503 Service Temporarily Unavailable</title></head>\r\n<body>\r\n"
    b"<center><h1>503 Service Temporarily Unavailable</h1></center>\r\n<hr><center>nginx</center>\r\n"
    b"</body>\r\n</html>\r\n"
)
_GATEWAY = {
    "gateway_key_unregistered": ("GW-30", "APPLICATION KEY IS NOT REGISTERED"),
    "gateway_quota": ("GW-22", "DAILY REQUEST QUOTA EXCEEDED"),
    "gateway_access_denied": ("GW-20", "ACCESS TO THIS SERVICE IS DENIED"),
}
#: how many attempts of each request the retry storm fails
STORM = 3


def _fault(code: str, text: str) -> bytes:
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n<Fault><Header><FaultCode>'
        f"{code}</FaultCode><FaultString>{text}</FaultString></Header></Fault>"
    ).encode()


class IncidentApi:
    """Three platforms on one loopback server; ``incident`` (a kind of INCIDENT_KINDS, or '') strikes every
    request, rendered here (see the module docstring). Each request's attempts are counted for the retry storm;
    :meth:`switch` sets the incident and forgets the counts."""

    def __init__(self, key: str) -> None:
        self.key = key
        self.incident = ""
        self._attempts: Counter[str] = Counter()
        self._lock = threading.Lock()
        self.server = LocalApi(self.respond)

    @property
    def url(self) -> str:
        return self.server.url

    def switch(self, incident: str) -> None:
        with self._lock:
            self.incident = incident
            self._attempts.clear()

    def __enter__(self) -> "IncidentApi":
        self.server.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.close()

    # -- answers --------------------------------------------------------------------------------------------------
    def respond(self, handler: Any, path: str, query: dict[str, str]) -> None:
        platform = path.strip("/").split("/", 1)[0]
        with self._lock:
            incident = self.incident
            self._attempts[handler.path] += 1
            attempt = self._attempts[handler.path]
        if incident and self._strikes(incident, handler, attempt):
            return self._incident(handler, incident, platform)
        extra = {}
        if incident == "key_echo":
            extra["link"] = f'<{self.url}{path}?{_echo_query(query)}>; rel="self"'
        status, body, content_type = self._answer(platform, path, query)
        send(handler, status, body, content_type, extra)
        return None

    def _strikes(self, incident: str, handler: Any, attempt: int) -> bool:
        if incident == "bot_wall":
            return not handler.headers.get("user-agent") or bool(_SCRIPTS.search(handler.headers["user-agent"]))
        if incident == "referer_required":
            return not handler.headers.get("referer")
        if incident == "retry_storm":
            return attempt <= STORM
        return incident != "key_echo"

    def _incident(self, handler: Any, incident: str, platform: str) -> None:
        html_data = platform == "archive"
        if incident == "bot_wall":
            return send(handler, 403, _AKAMAI, "text/html")
        if incident == "referer_required":
            return send(handler, 200, _REFERER, _HTML)
        if incident == "empty_body":
            body = {"harbor": b"", "ledger": b"\r\n"}.get(platform, b"\xef\xbb\xbf")
            return send(handler, 200, body, "application/json" if platform == "harbor" else "text/xml")
        if incident == "html_page":
            return send(handler, 200, _NOTICE_WELL_FORMED if html_data else _NOTICE, _HTML)
        if incident == "js_challenge":
            return send(handler, 200, _CHALLENGE, _HTML)
        if incident == "empty_document":
            body = {"harbor": b"{}", "ledger": b"<Ledger/>"}.get(platform, b"<html><body/></html>")
            return send(handler, 200, body, "application/json" if platform == "harbor" else "text/xml")
        if incident == "retry_storm":
            return send(handler, 503, _NGINX_503, "text/html", {"retry-after": "0"})
        code, text = _GATEWAY[incident]
        return send(handler, 200, _fault(code, text), "text/xml;charset=UTF-8")

    def _answer(self, platform: str, path: str, query: dict[str, str]) -> tuple[int, bytes | Any, str]:
        key = query.get("apikey" if platform == "harbor" else "key")
        if platform == "harbor":
            return (200, *_harbor(path, query, key == self.key))
        if platform == "ledger":
            return (200, *_ledger(path, query, key == self.key))
        if platform == "archive":
            return _archive(query, key == self.key)
        return 404, {"status": {"code": "E-PATH", "text": f"no such path {path}"}}, "application/json"


def _echo_query(query: Mapping[str, str]) -> str:
    return urlencode(sorted(query.items()))


def _page(query: Mapping[str, str], page_param: str, size_param: str, default: int) -> tuple[int, int]:
    def number(name: str, fallback: int) -> int:
        text = query.get(name, "")
        return int(text) if text.isdigit() and int(text) > 0 else fallback

    return number(page_param, 1), number(size_param, default)


def _harbor(path: str, query: dict[str, str], authorized: bool) -> tuple[Any, str]:
    json_type = "application/json; charset=utf-8"
    if not authorized:
        return {"status": {"code": "E-KEY", "text": "invalid apikey"}}, json_type
    page, size = _page(query, "pageNo", "numRows", 10)
    if path.endswith("/vessels"):
        port = query.get("port", "").strip()
        if not port:
            return {"status": {"code": "E-PARAM", "text": "port is required"}}, json_type
        rows = [{"imo": f"9{n:06d}", "name": f"{port} VESSEL {n}", "berth": f"B{n % 7}"} for n in range(23)]
    else:
        rows = [{"station": f"ST{n:02d}", "level": 120 + n * 3} for n in range(14)]
    chosen = rows[(page - 1) * size : page * size]
    if not chosen:
        return {"status": {"code": "NODATA", "text": "no data"}, "result": {"vessels": [], "count": 0}}, json_type
    return {"status": {"code": "0", "text": "normal"}, "result": {"vessels": chosen, "count": len(rows)}}, json_type


def _ledger(path: str, query: dict[str, str], authorized: bool) -> tuple[bytes, str]:
    xml_type = "application/xml; charset=utf-8"

    def head(status: str, note: str) -> str:
        return f"<Head><Status>{status}</Status><Note>{note}</Note></Head>"

    if not authorized:
        return f"<Ledger>{head('E40', 'KEY REJECTED')}</Ledger>".encode(), xml_type
    page, size = _page(query, "page", "rows", 10)
    if path.endswith("/entries.xml"):
        account = query.get("account", "").strip()
        if not account:
            return f"<Ledger>{head('E10', 'ACCOUNT IS REQUIRED')}</Ledger>".encode(), xml_type
        rows = [
            f"<Entry><id>{account}-{n}</id><amount>{n * 1500}</amount><date>202608{n % 28 + 1:02d}</date></Entry>"
            for n in range(31)
        ]
    else:
        rows = [f"<Entry><account>{1000 + n}</account><owner>예금주 {n}</owner></Entry>" for n in range(12)]
    chosen = rows[(page - 1) * size : page * size]
    if not chosen:
        body = f"<Ledger>{head('S03', 'NO DATA')}<Body><Count>0</Count><Entries/></Body></Ledger>"
    else:
        body = f"<Ledger>{head('S00', 'OK')}<Body><Count>{len(rows)}</Count><Entries>{''.join(chosen)}</Entries></Body></Ledger>"
    return ('<?xml version="1.0" encoding="UTF-8"?>\n' + body).encode(), xml_type


def _archive(query: dict[str, str], authorized: bool) -> tuple[int, bytes, str]:
    if not authorized:
        return 401, b"<html><head><title>401 Unauthorized</title></head><body><h1>401</h1></body></html>", _HTML
    words = query.get("q", "").strip()
    if not words:
        page = "<html><head><title>400 Bad Request</title></head><body><h1>HTTP Status 400 - q is required</h1></body></html>"
        return 400, page.encode(), _HTML
    page_no, size = _page(query, "page", "rows", 10)
    rows = [f"<tr><td>제{n}호</td><td>{words} 고시 {n}</td><td>2026.08.{n % 28 + 1}</td></tr>" for n in range(17)]
    chosen = rows[(page_no - 1) * size : page_no * size]
    body = (
        f"<html><head><title>고시 목록</title></head><body><h3>고시 목록</h3><p>전체 <b>{len(rows) if chosen else 0}</b> 건</p>"
        f"<table><thead><tr><th>번호</th><th>제목</th><th>일자</th></tr></thead><tbody>{''.join(chosen)}</tbody></table>"
        "</body></html>"
    )
    return 200, body.encode(), _HTML


def local_opener(api: IncidentApi, catalog: Catalog) -> Opener:
    """The local API with the row's incident in force, through a ``live`` environment on the catalog that names it."""

    @contextmanager
    def opener(row: str) -> Iterator[ToolEnvironment]:
        api.switch(incident_of(row))
        with ToolEnvironment.open(catalog, source="live", retries=_retries(row), sleep=_no_sleep) as env:
            yield env

    return opener
