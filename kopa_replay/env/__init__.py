"""Executing tools: build the real request, send it through an httpx client, parse and classify."""

from kopa_replay.util import lazy_exports

# loaded on first use: importing the package (the command line does) stays cheap
__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "kopa_replay.env.call": (
            "OUTCOME_CLASSES",
            "CallResult",
            "build_request",
            "execute",
        ),
        "kopa_replay.env.parse": (
            "Parsed",
            "extract",
            "parse_body",
        ),
        "kopa_replay.env.source": (
            "AsyncSource",
            "Source",
            "call_tool",
            "check_source",
            "coerce_args",
            "open_async_source",
            "open_source",
            "parse_mirrors",
            "register_source",
        ),
        "kopa_replay.env.core": (
            "LogEntry",
            "PageRead",
            "ToolResult",
            "validate_args",
        ),
        "kopa_replay.env.sync": ("ToolEnvironment",),
        "kopa_replay.env.async_": ("AsyncToolEnvironment",),
        "kopa_replay.env.normalize": ("normalize_records",),
        "kopa_replay.text.numbers": ("as_number",),
        "kopa_replay.env.retrieval": (
            "ToolRetriever",
            "openai_tools",
        ),
    },
)

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
    "PageRead",
    "AsyncSource",
    "Source",
    "build_request",
    "check_source",
    "call_tool",
    "coerce_args",
    "execute",
    "extract",
    "open_async_source",
    "open_source",
    "parse_body",
    "parse_mirrors",
    "register_source",
]
