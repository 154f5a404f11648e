"""What the benchmark scripts share: throughput of a callable over a list of items."""

from __future__ import annotations

import time
from typing import Any, Callable, Sequence


def rate(func: Callable[[Any], Any], items: Sequence[Any]) -> float:
    """Calls per second of ``func`` over ``items`` (wall clock, one pass)."""
    start = time.perf_counter()
    for item in items:
        func(item)
    return len(items) / (time.perf_counter() - start)
