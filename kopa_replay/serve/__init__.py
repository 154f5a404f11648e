"""Serving catalog tools to outside agents: an MCP server over the tool-execution environment.

Names are loaded lazily so ``python -m kopa_replay.serve.mcp`` runs without a
runpy warning (and without importing the ``mcp`` SDK until it is used).
"""

from __future__ import annotations

from typing import Any

__all__ = [
    "TRANSPORTS",
    "DEFAULT_SESSION_IDLE_TIMEOUT",
    "ERROR_CLASSES",
    "build_server",
    "http_app",
    "listen",
    "output_schema",
    "raised_content",
    "result_content",
    "serve",
]


def __getattr__(name: str) -> Any:
    if name in __all__:
        from kopa_replay.serve import mcp

        return getattr(mcp, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
