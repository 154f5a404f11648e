"""Seoul Open Data Plaza (서울 열린데이터 광장) — platform id ``seoul``, domain district.

``http://openapi.seoul.go.kr:8088/{KEY}/{json|xml}/{SERVICE}/{START}/{END}/{positional…}``:
the key is a path segment, rows are addressed by 1-based inclusive
START/END indexes (at most 1,000 a call; the key ``sample`` is accepted but
serves rows 1–5 only), and optional positional filters follow in a fixed
order per service (an empty segment skips one). Success is
``{"SERVICE":{"list_total_count":N,"RESULT":{"CODE":"INFO-000",…},"row":[…]}}``;
errors and "no data" are a bare ``{"RESULT":{"CODE":…,"MESSAGE":…}}``,
always with HTTP 200.

Every endpoint is a row of the operation table ``kopa_replay/sim/tables/seoul.yaml`` answered by the generic
engine (:func:`~kopa_replay.sim.tables.serve`) over a world table the same file declares (a dataset family
of :mod:`kopa_replay.sim.world.datasets`); its positional parameters are the row's ``in: path`` parameters in
order. :func:`endpoint_for` is the one place that turns a row into an endpoint. A row's ``options.where`` cuts
its table to fixed field values (a service listing part of another's register); ``options.gu_services``
publishes it once more per 구 as ``{SERVICE}_{GU}`` (LOCALDATA_020301_GN), as the portal does.

A window may start at 0: the service counts rows from 1, so ``/0/5`` reads rows 1–5 (ERROR-331 is for a start
below 0).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from dataclasses import replace
from typing import Any
from urllib.parse import unquote, urlsplit

from kopa_replay.sim.core import BadParam, Context, Doc, Endpoint, ErrorKind, MissingParam, Protocol, Query
from kopa_replay.sim.messages import SimRequest
from kopa_replay.sim.tables import Operation, TableRows, load_table, serve
from kopa_replay.sim.timeline import HISTORY
from kopa_replay.sim.world.datasets import dataset_table, load_datasets

__all__ = ["ENDPOINTS", "HOSTS", "TABLES", "SeoulProtocol", "SEOUL_MESSAGES", "SAMPLE_KEY", "endpoint_for"]

HOST = "openapi.seoul.go.kr"
#: The public sample key: accepted everywhere, five rows at most.
SAMPLE_KEY = "sample"
SAMPLE_MAX_ROWS = 5

SEOUL_MESSAGES = {
    "INFO-000": "정상 처리되었습니다",
    "INFO-100": "인증키가 유효하지 않습니다. 인증키가 없는 경우, 열린 데이터 광장 홈페이지에서 인증키를 신청하십시오.",
    "INFO-200": "해당하는 데이터가 없습니다.",
    "INFO-300": "유효 호출건수를 이미 초과하셨습니다.",
    "ERROR-300": "필수 값이 누락되어 있습니다. 요청인자를 참고 하십시오.",
    "ERROR-301": "파일타입 값이 누락 혹은 유효하지 않습니다. 요청인자 중 TYPE을 확인하십시오.",
    "ERROR-310": "해당하는 서비스를 찾을 수 없습니다. 요청인자 중 SERVICE를 확인하십시오.",
    "ERROR-331": "요청시작위치 값을 확인하십시오. 요청인자 중 START_INDEX를 확인하십시오.",
    "ERROR-332": "요청종료위치 값을 확인하십시오. 요청인자 중 END_INDEX를 확인하십시오.",
    "ERROR-333": "요청위치 값의 타입이 유효하지 않습니다.요청위치 값은 정수를 입력하세요.",
    "ERROR-334": "요청종료위치 보다 요청시작위치가 더 큽니다. 요청시작조회건수는 정수를 입력하세요.",
    "ERROR-335": "샘플데이터(샘플키:sample) 는 한번에 최대 5건을 넘을 수 없습니다. 요청시작위치와 요청종료위치 값은 1 ~ 5 사이만 가능합니다.",
    "ERROR-336": "데이터요청은 한번에 최대 1000건을 넘을 수 없습니다. 요청종료위치에서 요청시작위치를 뺀 값이 1000을 넘지 않도록 수정하세요.",
    "ERROR-500": "서버 오류입니다. 지속적으로 발생시 열린 데이터 광장으로 문의(Q&A) 바랍니다.",
    "ERROR-600": "데이터베이스 연결 오류입니다. 지속적으로 발생시 열린 데이터 광장으로 문의(Q&A) 바랍니다.",
    "ERROR-601": "SQL 문장 오류 입니다. 지속적으로 발생시 열린 데이터 광장으로 문의(Q&A) 바랍니다.",
}

# BadParam names the protocol raises itself, and the code each one is.
_BAD_PARAM_CODES = {
    "TYPE": "ERROR-301",
    "START": "ERROR-331",
    "END": "ERROR-332",
    "INDEX_TYPE": "ERROR-333",
    "ORDER": "ERROR-334",
    "SAMPLE": "ERROR-335",
    "RANGE": "ERROR-336",
}


class SeoulProtocol(Protocol):
    """The Seoul path protocol; each endpoint names its positional parameters in ``options["positional"]``."""

    name = "seoul"
    paging_params = ("START", "END")
    max_size = 1000  # rows a call (ERROR-336 above)
    # The sample key opens every service, capped at five rows in window().
    public_keys = (SAMPLE_KEY,)

    def route(self, request: SimRequest) -> tuple[str, dict[str, str]]:
        # /{KEY}/{type}/{SERVICE}/{START}/{END}/{p1}/{p2}… — empty segments are kept (they skip a positional).
        segments = [unquote(s) for s in request.path.split("/")[1:]]
        if len(segments) < 3 or not segments[2]:
            return request.path, {"key": segments[0]} if segments and segments[0] else {}
        key, fmt, service, *rest = segments
        params = {"key": key, "type": fmt}
        for name, value in zip(("START", "END"), rest):
            params[name] = value
        for i, value in enumerate(rest[2:], start=1):
            params[f"_{i}"] = value
        return service, params

    def api_key(self, request: SimRequest, path_params: Mapping[str, str]) -> str | None:
        return path_params.get("key")

    def wants_xml(self, request: SimRequest, endpoint, path_params: Mapping[str, str]) -> bool:
        return path_params.get("type", "").strip().lower() == "xml"

    def params(self, ctx: Context) -> dict[str, str]:
        values: dict[str, str] = {"TYPE": ctx.path_params.get("type", "")}
        for name in ("START", "END"):
            if name in ctx.path_params:
                values[name] = ctx.path_params[name]
        positional = ctx.endpoint.options.get("positional", ()) if ctx.endpoint is not None else ()
        for i, name in enumerate(positional, start=1):
            value = (ctx.path_params.get(f"_{i}") or "").strip()
            if value:
                values[name] = value
        return values

    def window(self, ctx: Context, params: Mapping[str, str]) -> tuple[int, int, dict[str, Any]]:
        # A window may start at 0: the service counts rows from 1, so 0–5 answers rows 1–5 (measured by public
        # clients that send 0 with the sample key; see the tables' sources). Below 0 is ERROR-331.
        start, end = self._index(params, "START"), self._index(params, "END")
        start = 1 if start == 0 else start
        if start < 1:
            raise BadParam("START", str(start))
        if end < 1:
            raise BadParam("END", str(end))
        if start > end:
            raise BadParam("ORDER", f"{start}>{end}")
        if ctx.path_params.get("key") == SAMPLE_KEY and end > SAMPLE_MAX_ROWS:
            raise BadParam("SAMPLE", str(end))
        cap = ctx.max_size(self.max_size)
        if cap is not None and end - start + 1 > cap:
            raise BadParam("RANGE", str(end - start + 1))
        return start - 1, end - start + 1, {"start": start, "end": end}

    @staticmethod
    def _index(params: Mapping[str, str], name: str) -> int:
        text = (params.get(name) or "").strip()
        if not text:
            raise MissingParam(name)
        try:
            return int(text)
        except ValueError:
            raise BadParam("INDEX_TYPE", text) from None

    def _result(self, ctx: Context, code: str) -> dict[str, str]:
        code = ctx.code(code)
        return {"CODE": code, "MESSAGE": SEOUL_MESSAGES.get(code, "")}

    def ok(self, ctx: Context, records: list[dict[str, Any]], total: int, meta: Mapping[str, Any]) -> Doc:
        if not records:
            return self.error(ctx, ErrorKind.NO_DATA)
        # the answer's root is the service id, or the row's options.root where the platform names it otherwise
        service = ctx.endpoint.options.get("root", ctx.endpoint.route) if ctx.endpoint is not None else "RESULT"
        body = {"list_total_count": total, "RESULT": self._result(ctx, "INFO-000"), "row": records}
        if ctx.xml:
            return Doc(body, xml=True, xml_root=service)
        return Doc({service: body})

    def error(self, ctx: Context, kind: str, detail: str = "") -> Doc:
        code = {
            ErrorKind.INVALID_KEY: "INFO-100",
            ErrorKind.NO_DATA: "INFO-200",
            ErrorKind.MISSING_PARAM: "ERROR-300",
            ErrorKind.BAD_PARAM: _BAD_PARAM_CODES.get(detail, "ERROR-333"),
            ErrorKind.NOT_FOUND: "ERROR-310",
            ErrorKind.RATE_LIMIT: "INFO-300",
            ErrorKind.MAINTENANCE: "ERROR-600",
            ErrorKind.SERVER_ERROR: "ERROR-500",
        }[kind]
        result = self._result(ctx, code)
        if ctx.xml:
            return Doc(result, xml=True, xml_root="RESULT")
        return Doc({"RESULT": result})


def _check_type(table: TableRows) -> TableRows:
    """A world table behind the format segment check: anything but json/xml is ERROR-301."""

    def rows(world, q: Query):
        if (q.values.get("TYPE") or "").strip().lower() not in ("json", "xml"):
            raise BadParam("TYPE", q.values.get("TYPE"))
        return table(world, q)

    return rows


def _as_published(tool: str, name: str) -> str:
    """A field's name when its dataset was first published: the renames of HISTORY undone, newest first."""
    for event in reversed(HISTORY):
        if event.tool == tool and event.kind == "field_renamed" and event.detail["to"] == name:
            name = event.field
    return name


def endpoint_for(op: Operation, table: TableRows, host: str = HOST, protocol: Protocol | None = None) -> Endpoint:
    """The simulated endpoint of a Seoul table row: the generic handler over its world table.

    The row names parameters and fields as the service spells them today; a dataset renamed on the drift
    timeline is drawn under its first names (the renames apply after the handler), so the handler reads and
    cuts by those. Positional parameters are matched by position (``options["positional"]``).
    """
    published = {name: _as_published(op.tool, name) for name in (*op.params, *op.fields)}
    drawn = replace(
        op,
        params={published[n]: p for n, p in op.params.items()},
        fields={published[n]: f for n, f in op.fields.items()},
        required=tuple(published[n] for n in op.required),
        exact=tuple(published[n] for n in op.exact),
        partial=tuple(published[n] for n in op.partial),
    )
    positional = tuple(published[n] for n, p in op.params.items() if p.get("in") == "path")
    return Endpoint(
        op.tool,
        "seoul",
        host,
        op.route,
        protocol or PROTOCOL,
        serve(drawn, table),
        required=drawn.required,
        inputs=op.inputs,
        outputs=op.outputs,
        options={**op.options, "positional": positional},
    )


PROTOCOL = SeoulProtocol()
TABLE = load_table("seoul")
#: the world tables a row can name: the datasets the table declares, the realtime subway's, the catalog's
TABLES: dict[str, TableRows] = {
    name: _check_type(dataset_table(spec)) for name, spec in load_datasets(TABLE.extra["datasets"]).items()
}

from kopa_replay.sim.platforms import seoul_subway  # noqa: E402  (it builds on SeoulProtocol above)

TABLES.update({name: _check_type(table) for name, table in seoul_subway.TABLES.items()})

from kopa_replay.sim.platforms import seoul_citydata  # noqa: E402  (its protocol builds on SeoulProtocol too)

TABLES.update({name: _check_type(table) for name, table in seoul_citydata.TABLES.items()})

#: how often a world table's dataset is refreshed, as the catalog says it (갱신주기)
_CYCLES = {
    "facility": "수시",
    "bike": "실시간",
    "gu_now": "실시간",
    "subway_arrivals": "실시간",
    "subway_positions": "실시간",
}


def _catalog(world, q: Query) -> list[dict[str, Any]]:
    """SearchCatalogService: a catalog row for every dataset of this table with a data.seoul.go.kr id (INF_ID)."""
    families = {name: d.get("family") for name, d in TABLE.extra["datasets"].items()}
    updated = (q.as_of - dt.timedelta(days=1)).isoformat()
    out = []
    for op in sorted((op for op in TABLE.operations if op.options.get("inf_id")), key=lambda op: op.options["inf_id"]):
        cycle = op.options.get("cycle") or _CYCLES.get(op.table) or _CYCLES.get(families.get(op.table) or "", "일간")
        out.append(
            {
                "INF_ID": op.options["inf_id"],
                "INF_NM": op.name["ko"],
                "CATE_NM": "공공데이터",
                "DITC_NM": "서울시(본청)",
                "MAP_CATE_NM": op.category or "",
                "MNG_ORGAN_NAME": "서울특별시",
                "MNG_STATION_NAME": "",
                "LINK_DESC": "서울 열린데이터 광장",
                "LINK_INFO": "https://data.seoul.go.kr",
                "MANAGER_NAME": "",
                "MANAGER_PHONE": "",
                "CHNG_LOAD_NM": cycle,
                "DATA_LT_NM": updated,
                "SRV_TYPE": "Api" if cycle == "실시간" else "Sheet,Api",
                "SHORT_URL": f"https://data.seoul.go.kr/dataList/{op.options['inf_id']}/"
                f"{'A' if cycle == '실시간' else 'S'}/1/datasetView.do",
            }
        )
    return out


TABLES["catalog"] = _check_type(_catalog)
#: a row whose binding names another base_url is served on that host (options.http.base_url)
_HOSTS = {HOST: PROTOCOL, seoul_subway.HOST: seoul_subway.PROTOCOL}


def _host(op: Operation) -> str:
    base = (op.options.get("http") or {}).get("base_url", "")
    return urlsplit(base).hostname or HOST


def _where(table: TableRows, fixed: Mapping[str, str]) -> TableRows:
    """A world table cut to the records whose fields hold the given values (options.where: a service that lists
    part of another's register, as GetParkingInfo lists the car parks of GetParkInfo that report occupancy)."""

    def rows(world, q: Query):
        return [r for r in table(world, q) if all(str(r.get(k)) == v for k, v in fixed.items())]

    return rows


#: the per-구 copies of a LOCALDATA service (LOCALDATA_020301_GN …): the 구 code of each 구 in 시군구-code order,
#: whose rows carry the 개방자치단체코드 3000000 + 10000 × that order
_GU_SERVICES = ("JN JG YS SD GJ DD JR SB GB DB NW EP SM MP YC GS GR GC YD DJ GA SC GN SP GD").split()


def _endpoints(op: Operation) -> list[Endpoint]:
    table = TABLES[op.table]
    if op.options.get("where"):
        table = _where(table, op.options["where"])
    # options.citydata: the realtime city-data services answer one nested area in their own envelope
    protocol = seoul_citydata.PROTOCOL if op.options.get("citydata") else _HOSTS[_host(op)]
    out = [endpoint_for(op, table, _host(op), protocol)]
    if op.options.get("gu_services"):  # options.gu_services: the service is also published once per 구
        for n, gu in enumerate(_GU_SERVICES):
            one = replace(op, tool=f"{op.tool}_{gu.lower()}", route=f"{op.route}_{gu}")
            out.append(endpoint_for(one, _where(table, {"OPNSFTEAMCODE": str(3000000 + 10000 * n)}), HOST, PROTOCOL))
    return out


ENDPOINTS = [endpoint for op in TABLE.operations for endpoint in _endpoints(op)]
HOSTS = dict(_HOSTS)
