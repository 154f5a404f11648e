"""The tool-execution environment: validated, recorded, parsed, classified calls with a state log.

Every consumer that executes tools (graph pruning, trajectory synthesis,
benchmark agents, RL rollouts) goes through :class:`ToolEnvironment` (or its
async twin :class:`AsyncToolEnvironment`), so calls happen one way:

1. the arguments are validated against the tool's ``inputSchema`` (types, with
   integer/number coercion from strings, enum, pattern, minimum/maximum,
   required, unknown names) — a violation is a ``structural_error`` result and
   **no request is sent**;
2. the real request is built from the catalog binding and sent through the
   source's httpx client (simulator, mirror, live — through the recorder when a
   snapshot is named; strict replay raises :class:`~kopa_replay.errors.CassetteMiss`);
3. the body is parsed (JSON, XML, ZIP of XML, EUC-KR) with the request's key
   masked as the recorder masks stored bodies (so every source gives the same
   records and digests), the records are normalized (``" "`` → None, see
   :mod:`kopa_replay.env.normalize`) and the outcome classified from the
   catalog's result-code table;
4. the call is appended to the environment's ordered log.

This module is the documented home of those names; the code lives in three:

* :mod:`kopa_replay.env.core` — every decision, no I/O: validation, the result and
  log types, interpretation, retry and pagination decisions, and the operations as
  generators that yield what they need done (``send`` a request, ``sleep``);
* :mod:`kopa_replay.env.sync` — :class:`ToolEnvironment`, which drives them with
  blocking I/O;
* :mod:`kopa_replay.env.async_` — :class:`AsyncToolEnvironment`, which drives the
  same generators with awaited I/O.

Sources (simulator, mirror, live, replay; sync and async) come from one registry,
:mod:`kopa_replay.env.source`.
"""

from kopa_replay.env.async_ import AsyncToolEnvironment
from kopa_replay.env.core import (
    DEFAULT_SNAPSHOT,
    LogEntry,
    PageRead,
    ToolResult,
    next_page_args,
    result_digest,
    validate_args,
)
from kopa_replay.env.source import AsyncSource, open_async_source
from kopa_replay.env.sync import ToolEnvironment

__all__ = [
    "DEFAULT_SNAPSHOT",
    "next_page_args",
    "ToolResult",
    "PageRead",
    "LogEntry",
    "validate_args",
    "result_digest",
    "ToolEnvironment",
    "AsyncToolEnvironment",
    "AsyncSource",
    "open_async_source",
]
