"""Per-host rate limits shared by every worker of a sharded recording."""

from __future__ import annotations

from typing import Any

__all__ = ["shared_limiter"]


def shared_limiter(executor: Any, catalog: Any, source: str) -> Any:
    """The limiter a sharded recording's workers share (None: the source sends nothing over the network)."""
    if source in ("sim", "replay"):
        return None
    return None  # TODO
