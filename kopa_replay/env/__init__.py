"""Executing tools: build the real request, send it through an httpx client, parse and classify."""

from kopa_replay.util import lazy_exports

# loaded on first use: importing the package (the command line does) stays cheap
__getattr__, __dir__ = lazy_exports(__name__, {
    "kopa_replay.env.call": ("OUTCOME_CLASSES", "CallResult", "build_request", "execute",),
    "kopa_replay.env.parse": ("Parsed", "extract", "parse_body",),
    "kopa_replay.env.source": ("Source", "call_tool", "coerce_args", "open_source",),
    "kopa_replay.env.environment": ("AsyncToolEnvironment", "LogEntry", "ToolEnvironment", "ToolResult",
        "validate_args",),
    "kopa_replay.env.normalize": ("as_number", "normalize_records",),
    "kopa_replay.env.retrieval": ("ToolRetriever", "openai_tools",),
})

__all__ = [
    "OUTCOME_CLASSES",
    "AsyncToolEnvironment",
    "LogEntry",
    "ToolEnvironment",
    "ToolResult",
    "ToolRetriever",
    "openai_tools",
    "as_number",
    "normalize_records",
    "validate_args",
    "CallResult",
    "Parsed",
    "Source",
    "build_request",
    "call_tool",
    "coerce_args",
    "execute",
    "extract",
    "open_source",
    "parse_body",
]
