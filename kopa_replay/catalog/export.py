"""Catalog exports for agents: MCP ``tools/list`` entries or OpenAI function schemas."""

from __future__ import annotations

from typing import Any

from kopa_replay.catalog.model import Catalog
from kopa_replay.errors import UsageError

__all__ = ["EXPORT_FORMATS", "export_catalog"]

EXPORT_FORMATS = ("mcp", "openai")


def export_catalog(catalog: Catalog, fmt: str) -> list[dict[str, Any]]:
    """Every tool of ``catalog`` in ``fmt`` (``mcp`` or ``openai``), in catalog order."""
    if fmt == "mcp":
        return [tool.to_mcp() for tool in catalog]
    if fmt == "openai":
        return [tool.to_openai() for tool in catalog]
    raise UsageError(f"unknown export format {fmt!r} (use one of: {', '.join(EXPORT_FORMATS)})")
