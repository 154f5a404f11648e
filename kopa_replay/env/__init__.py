"""Executing tools: build the real request, send it through an httpx client, parse and classify."""

from kopa_replay.env.call import OUTCOME_CLASSES, CallResult, build_request, execute
from kopa_replay.env.parse import Parsed, extract, parse_body
from kopa_replay.env.source import Source, call_tool, coerce_args, open_source
from kopa_replay.env.environment import AsyncToolEnvironment, LogEntry, ToolEnvironment, ToolResult, validate_args
from kopa_replay.env.normalize import as_number, normalize_records
from kopa_replay.env.retrieval import ToolRetriever, openai_tools

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
