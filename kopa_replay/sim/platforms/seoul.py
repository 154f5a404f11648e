"""Seoul Open Data Plaza (서울 열린데이터 광장) — platform id ``seoul``, domain district.

``http://openapi.seoul.go.kr:8088/{KEY}/{json|xml}/{SERVICE}/{START}/{END}/{positional…}``:
the key is a path segment, rows are addressed by 1-based inclusive
START/END indexes (at most 1,000 a call; the key ``sample`` is accepted but
serves rows 1–5 only), and optional positional filters follow in a fixed
order per service (an empty segment skips one). Success is
``{"SERVICE":{"list_total_count":N,"RESULT":{"CODE":"INFO-000",…},"row":[…]}}``;
errors and "no data" are a bare ``{"RESULT":{"CODE":…,"MESSAGE":…}}``,
always with HTTP 200.

Every endpoint comes from a :class:`~kopa_replay.sim.world.datasets.DatasetSpec`;
its positional parameters are the spec's keys. :func:`endpoint_for_spec`
is the one place that turns a spec into an endpoint, so generated catalogs of
more Seoul datasets reuse it.
"""

from __future__ import annotations

from typing import Any, Mapping
from urllib.parse import unquote

from kopa_replay.sim.core import BadParam, Context, Doc, Endpoint, ErrorKind, MissingParam, Protocol, Query
from kopa_replay.sim.messages import SimRequest
from kopa_replay.sim.timeline import current_names
from kopa_replay.sim.world.datasets import SEOUL_SPECS, DatasetSpec, spec_handler

__all__ = ["ENDPOINTS", "HOSTS", "SeoulProtocol", "SEOUL_MESSAGES", "SAMPLE_KEY", "endpoint_for_spec"]

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
        start, end = self._index(params, "START"), self._index(params, "END")
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
        service = ctx.endpoint.route if ctx.endpoint is not None else "RESULT"
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


def _check_type(q: Query) -> None:
    # The format segment is part of the path: anything but json/xml is ERROR-301.
    if (q.values.get("TYPE") or "").strip().lower() not in ("json", "xml"):
        raise BadParam("TYPE", q.values.get("TYPE"))


def endpoint_for_spec(spec: DatasetSpec) -> Endpoint:
    """The simulated endpoint of a Seoul dataset spec (route = service id, positional = spec keys).

    A spec names its columns as the dataset was first published; the ground-truth domains are keyed by
    today's names (:data:`~kopa_replay.sim.timeline.HISTORY` renames), as the catalog an agent reads is.
    Positional parameters are matched by position, so the handler keeps the spec's names for them.
    """
    return Endpoint(
        spec.tool,
        "seoul",
        HOST,
        spec.service,
        PROTOCOL,
        spec_handler(spec, _check_type),
        required=spec.required,
        inputs=current_names(spec.tool, spec.inputs),
        outputs=current_names(spec.tool, spec.outputs),
        options={"positional": spec.keys},
    )


PROTOCOL = SeoulProtocol()
ENDPOINTS = [endpoint_for_spec(spec) for spec in SEOUL_SPECS]
HOSTS = {HOST: PROTOCOL}
