"""Schema drift: infer a response schema per tool per snapshot, diff two snapshots, report.

Pure logic over what the recorder hands in::

    responses (RecordedResponse per call) ─► infer_schemas(catalog, responses) ─► {tool: ToolSchema}
    diff_schemas(before, after) ─► [Change]  ─► render(changes, "text" | "json" | "markdown"), crosses(changes, fail_on)

``drift_report(store, catalog, before, after)`` reads two snapshots of one store and does all of that. The
workload a recording sends (every catalog example plus one largest page per paginated tool) is
:func:`kopa_replay.stages.probes.probe_requests`.
"""

from kopa_replay.util import lazy_exports

# loaded on first use: importing the package (the command line does) stays cheap
__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "kopa_replay.drift.diff": (
            "CHANGE_KINDS",
            "CHECKS",
            "SEVERITIES",
            "Change",
            "diff_schemas",
            "diff_tool",
        ),
        "kopa_replay.drift.impact": (
            "WHOLE_TOOL",
            "touched",
            "touches",
        ),
        "kopa_replay.drift.recorded": (
            "diff_snapshots",
            "drift_report",
            "recorded_responses",
            "tool_schema_digests",
        ),
        "kopa_replay.drift.report": (
            "FAIL_ON",
            "REPORT_FORMATS",
            "crosses",
            "render",
            "summary",
        ),
        "kopa_replay.drift.requests": (
            "OUTCOMES",
            "DriftReport",
            "Reading",
            "RequestPair",
            "attach_requests",
            "diff_requests",
            "pair_responses",
            "read_response",
            "request_id",
        ),
        "kopa_replay.drift.schema": (
            "RESPONSE_FORMATS",
            "STRING_FORMATS",
            "VALUE_TYPES",
            "CodeStat",
            "FieldStats",
            "PageEvidence",
            "RecordedResponse",
            "ToolSchema",
            "infer_schemas",
            "infer_tool_schema",
        ),
    },
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
    "diff_snapshots",
    "diff_tool",
    "drift_report",
    "infer_schemas",
    "infer_tool_schema",
    "pair_responses",
    "read_response",
    "recorded_responses",
    "render",
    "request_id",
    "summary",
    "tool_schema_digests",
    "touched",
    "touches",
]
