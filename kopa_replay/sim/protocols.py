"""Protocol families shared by several platforms.

* :class:`DataGoKrProtocol` — the data.go.kr gateway (금융위 services, TAGO,
  행안부): ``response.header/body`` envelope, ``serviceKey``, pageNo/numOfRows,
  XML by default, gateway errors as XML even when JSON was asked, a single
  item sent as an object and no items sent as ``""``.
* :class:`HeadRowProtocol` — the Korean open-API portal software behind NEIS,
  열린국회정보 and 경기데이터드림: ``{SVC: [{head: [...]}, {row: [...]}]}``,
  ``KEY``, pIndex/pSize, errors as a bare ``{"RESULT": {...}}``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kopa_replay.sim.core import BadParam, Context, Doc, ErrorKind, Protocol, paged
from kopa_replay.sim.messages import SimRequest

__all__ = ["DataGoKrProtocol", "HeadRowProtocol", "DATAGOKR_CODES"]

#: data.go.kr result codes and their messages (reference/korean-public-apis.md §2)
DATAGOKR_CODES = {
    "0": "NORMAL SERVICE.",
    "00": "NORMAL SERVICE.",
    "01": "APPLICATION_ERROR",
    "02": "DB_ERROR",
    "03": "NODATA_ERROR",
    "04": "HTTP_ERROR",
    "05": "SERVICETIME_OUT",
    "10": "INVALID_REQUEST_PARAMETER_ERROR",
    "11": "NO_MANDATORY_REQUEST_PARAMETERS_ERROR",
    "12": "NO_OPENAPI_SERVICE_ERROR",
    "20": "SERVICE_ACCESS_DENIED_ERROR",
    "22": "LIMITED_NUMBER_OF_SERVICE_REQUESTS_EXCEEDS_ERROR",
    "30": "SERVICE_KEY_IS_NOT_REGISTERED_ERROR",
    "99": "UNKNOWN_ERROR",
}


class DataGoKrProtocol(Protocol):
    """The data.go.kr gateway envelope.

    ``format_param`` is how a provider asks for JSON (``resultType`` at 금융위,
    ``_type`` at TAGO, ``type`` at 행안부). ``no_data`` chooses how an empty
    result looks: ``"empty"`` (code 00, totalCount 0, ``items: ""``) or
    ``"code"`` (code 03 NODATA_ERROR in the header).
    """

    name = "datagokr"
    key_params = ("serviceKey",)
    paging_params = ("pageNo", "numOfRows")

    def __init__(
        self,
        *,
        format_param: str = "resultType",
        no_data: str = "empty",
        default_size: int = 10,
        max_size: int | None = 1000,
    ) -> None:
        self.format_param = format_param
        self.no_data = no_data
        self.default_size = default_size
        self.max_size = max_size

    def wants_xml(self, request: SimRequest, endpoint, path_params) -> bool:
        return (request.param_ci(self.format_param) or "xml").lower() != "json"

    def params(self, ctx: Context) -> dict[str, str]:
        values = super().params(ctx)
        values.pop(self.format_param, None)
        return values

    def window(self, ctx: Context, params: Mapping[str, str]) -> tuple[int, int, dict[str, Any]]:
        return paged(params, "pageNo", "numOfRows", self.default_size, ctx.max_size(self.max_size))

    def _envelope(self, ctx: Context, code: str, body: dict[str, Any] | None) -> Doc:
        code = ctx.code(code)
        doc: dict[str, Any] = {"header": {"resultCode": code, "resultMsg": DATAGOKR_CODES.get(code, "")}}
        if body is not None:
            doc["body"] = body
        if ctx.xml:
            return Doc(doc, xml=True, xml_root="response")
        return Doc({"response": doc})

    def ok(self, ctx: Context, records: list[dict[str, Any]], total: int, meta: Mapping[str, Any]) -> Doc:
        if total == 0 and self.no_data == "code":
            return self.error(ctx, ErrorKind.NO_DATA)
        if ctx.xml:
            items: Any = {"item": records} if records else None
            body = {"items": items, "numOfRows": meta["size"], "pageNo": meta["page"], "totalCount": total}
            return self._envelope(ctx, "00", body)
        # JSON quirks of the gateway: one record comes as an object, none as "".
        if not records:
            items = ""
        elif len(records) == 1:
            items = {"item": records[0]}
        else:
            items = {"item": records}
        body = {"items": items, "numOfRows": meta["size"], "pageNo": meta["page"], "totalCount": total}
        return self._envelope(ctx, "00", body)

    def gateway(self, ctx: Context, reason: str, status: int = 200) -> Doc:
        # The gateway answers in XML whatever format was asked for.
        return Doc(
            {
                "cmmMsgHeader": {
                    "errMsg": "SERVICE ERROR",
                    "returnAuthMsg": DATAGOKR_CODES[reason],
                    "returnReasonCode": ctx.code(reason),
                }
            },
            status=status,
            xml=True,
            xml_root="OpenAPI_ServiceResponse",
            content_type="text/xml;charset=UTF-8",
        )

    def error(self, ctx: Context, kind: str, detail: str = "") -> Doc:
        if kind == ErrorKind.NO_DATA and self.no_data == "empty":
            # Providers that never send NODATA_ERROR answer "nothing found" with a normal, empty page.
            try:
                _, _, meta = self.window(ctx, self.params(ctx))
            except BadParam:
                meta = {"page": 1, "size": self.default_size}
            return self.ok(ctx, [], 0, meta)
        if kind == ErrorKind.INVALID_KEY:
            return self.gateway(ctx, "30")
        if kind == ErrorKind.RATE_LIMIT:
            return self.gateway(ctx, "22")
        if kind == ErrorKind.NOT_FOUND:
            return self.gateway(ctx, "12")
        code = {
            ErrorKind.NO_DATA: "03",
            ErrorKind.MISSING_PARAM: "11",
            ErrorKind.BAD_PARAM: "10",
            ErrorKind.MAINTENANCE: "05",
            ErrorKind.SERVER_ERROR: "01",
        }[kind]
        return self._envelope(ctx, code, None)


#: Messages of the open-API portal software (NEIS, 열린국회정보, 경기데이터드림)
HEADROW_MESSAGES = {
    "INFO-000": "정상 처리되었습니다.",
    "INFO-200": "해당하는 데이터가 없습니다.",
    "ERROR-290": "인증키가 유효하지 않습니다. 인증키가 없는 경우, 홈페이지에서 인증키를 신청하십시오.",
    "ERROR-300": "필수 값이 누락되어 있습니다. 요청인자를 참고 하십시오.",
    "ERROR-310": "해당하는 서비스를 찾을 수 없습니다. 요청인자 중 SERVICE를 확인하십시오.",
    "ERROR-333": "요청위치 값의 타입이 유효하지 않습니다.요청위치 값은 정수를 입력하세요.",
    "ERROR-336": "데이터요청은 한번에 최대 1,000건을 넘을 수 없습니다.",
    "ERROR-337": "일별 트래픽 제한을 넘은 호출입니다. 오늘은 더이상 호출할 수 없습니다.",
    "ERROR-500": "서버 오류입니다. 지속적으로 발생시 홈페이지로 문의(Q&A) 바랍니다.",
    "ERROR-600": "데이터베이스 연결 오류입니다. 지속적으로 발생시 홈페이지로 문의(Q&A) 바랍니다.",
}


class HeadRowProtocol(Protocol):
    """The head/row envelope; the route is the last path segment (the service name)."""

    name = "headrow"
    key_params = ("KEY",)
    paging_params = ("pIndex", "pSize")

    def __init__(
        self, *, prefix: str = "/", default_size: int = 100, max_size: int = 1000, keyless_rows: int | None = None
    ) -> None:
        self.prefix = prefix
        self.default_size = default_size
        self.max_size = max_size
        self.keyless_rows = keyless_rows

    def route(self, request: SimRequest) -> tuple[str, dict[str, str]]:
        path = request.path
        if not path.startswith(self.prefix):
            return path, {}
        return path[len(self.prefix) :].strip("/"), {}

    def wants_xml(self, request: SimRequest, endpoint, path_params) -> bool:
        return (request.param_ci("Type") or "xml").lower() != "json"

    def params(self, ctx: Context) -> dict[str, str]:
        values = super().params(ctx)
        values.pop("Type", None)
        return values

    def window(self, ctx: Context, params: Mapping[str, str]) -> tuple[int, int, dict[str, Any]]:
        cap = ctx.max_size(self.max_size)
        size_text = (params.get("pSize") or "").strip()
        if size_text.isdigit() and cap is not None and int(size_text) > cap:
            raise BadParam("pSize", size_text)
        offset, limit, meta = paged(params, "pIndex", "pSize", self.default_size, None)
        if self.keyless(ctx.request, ctx.path_params):
            # a sample: the first rows only, whatever page is asked (a page past them is empty: INFO-200)
            assert self.keyless_rows is not None  # keyless() is only true when keyless_rows is set
            limit = max(0, min(limit, self.keyless_rows - offset))
        return offset, limit, meta

    def _root(self, ctx: Context) -> str:
        if ctx.endpoint is not None:
            return ctx.endpoint.options.get("root", ctx.endpoint.route)
        return self.route(ctx.request)[0] or "RESULT"

    def ok(self, ctx: Context, records: list[dict[str, Any]], total: int, meta: Mapping[str, Any]) -> Doc:
        if not records:
            return self.error(ctx, ErrorKind.NO_DATA)
        code = ctx.code("INFO-000")
        result = {"CODE": code, "MESSAGE": HEADROW_MESSAGES.get(code, "")}
        root = self._root(ctx)
        if ctx.xml:
            return Doc({"head": {"list_total_count": total, "RESULT": result}, "row": records}, xml=True, xml_root=root)
        return Doc({root: [{"head": [{"list_total_count": total}, {"RESULT": result}]}, {"row": records}]})

    def error(self, ctx: Context, kind: str, detail: str = "") -> Doc:
        code = {
            ErrorKind.INVALID_KEY: "ERROR-290",
            ErrorKind.NO_DATA: "INFO-200",
            ErrorKind.MISSING_PARAM: "ERROR-300",
            ErrorKind.BAD_PARAM: "ERROR-336" if detail == "pSize" else "ERROR-333",
            ErrorKind.NOT_FOUND: "ERROR-310",
            ErrorKind.RATE_LIMIT: "ERROR-337",
            ErrorKind.MAINTENANCE: "ERROR-600",
            ErrorKind.SERVER_ERROR: "ERROR-500",
        }[kind]
        code = ctx.code(code)
        result = {"CODE": code, "MESSAGE": HEADROW_MESSAGES.get(code, "")}
        if ctx.xml:
            return Doc(result, xml=True, xml_root="RESULT")
        return Doc({"RESULT": result})
