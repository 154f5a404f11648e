"""Schema drift: infer a response schema per tool per snapshot, diff two snapshots, report.

Pure logic over what the recorder hands in::

    responses (RecordedResponse per call) ─► infer_schemas(catalog, responses) ─► {tool: ToolSchema}
    diff_schemas(before, after) ─► [Change]  ─► render(changes, "text" | "json" | "markdown"), crosses(changes, fail_on)

``probe_requests(catalog)`` is the workload a drift check sends (every catalog
example plus one largest page per paginated tool).
"""

from kopa_replay.drift.diff import (
    CHANGE_KINDS,
    CHECKS,
    SEVERITIES,
    Change,
    diff_schemas,
    diff_tool,
)
from kopa_replay.drift.impact import WHOLE_TOOL, touched, touches
from kopa_replay.drift.probe import max_page_request, probe_requests
from kopa_replay.drift.report import FAIL_ON, REPORT_FORMATS, crosses, render, summary
from kopa_replay.drift.requests import (
    OUTCOMES,
    DriftReport,
    Reading,
    RequestPair,
    attach_requests,
    diff_requests,
    pair_responses,
    read_response,
    request_id,
)
from kopa_replay.drift.schema import (
    RESPONSE_FORMATS,
    STRING_FORMATS,
    VALUE_TYPES,
    CodeStat,
    FieldStats,
    PageEvidence,
    RecordedResponse,
    ToolSchema,
    infer_schemas,
    infer_tool_schema,
)

__all__ = [
    "CHANGE_KINDS",
    "CHECKS",
    "FAIL_ON",
    "OUTCOMES",
    "REPORT_FORMATS",
    "RESPONSE_FORMATS",
    "SEVERITIES",
    "STRING_FORMATS",
    "VALUE_TYPES",
    "WHOLE_TOOL",
    "Change",
    "CodeStat",
    "DriftReport",
    "FieldStats",
    "PageEvidence",
    "Reading",
    "RecordedResponse",
    "RequestPair",
    "ToolSchema",
    "attach_requests",
    "crosses",
    "diff_requests",
    "diff_schemas",
    "diff_tool",
    "infer_schemas",
    "infer_tool_schema",
    "max_page_request",
    "pair_responses",
    "probe_requests",
    "read_response",
    "render",
    "request_id",
    "summary",
    "touched",
    "touches",
]
