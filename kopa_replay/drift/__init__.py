"""Schema drift: infer a response schema per tool per snapshot, diff two snapshots, report.

Pure logic over what the recorder hands in::

    responses (RecordedResponse per call) ─► infer_schemas(catalog, responses) ─► {tool: ToolSchema}
    diff_schemas(before, after) ─► [Change]  ─► render(changes, "text" | "json" | "markdown"), crosses(changes, fail_on)

``probe_requests(catalog)`` is the workload a drift check sends (every catalog
example plus one largest page per paginated tool).
"""

from kopa_replay.util import lazy_exports

# loaded on first use: importing the package (the command line does) stays cheap
__getattr__, __dir__ = lazy_exports(__name__, {
    "kopa_replay.drift.diff": ("CHANGE_KINDS", "CHECKS", "SEVERITIES", "Change", "diff_schemas", "diff_tool",),
    "kopa_replay.drift.impact": ("WHOLE_TOOL", "touched", "touches",),
    "kopa_replay.drift.probe": ("max_page_request", "probe_requests",),
    "kopa_replay.drift.report": ("FAIL_ON", "REPORT_FORMATS", "crosses", "render", "summary",),
    "kopa_replay.drift.requests": ("OUTCOMES", "DriftReport", "Reading", "RequestPair", "attach_requests",
        "diff_requests", "pair_responses", "read_response", "request_id",),
    "kopa_replay.drift.schema": ("RESPONSE_FORMATS", "STRING_FORMATS", "VALUE_TYPES", "CodeStat", "FieldStats",
        "PageEvidence", "RecordedResponse", "ToolSchema", "infer_schemas", "infer_tool_schema",),
})

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
