"""Environmental failures as a deterministic function of (seed, request, attempt).

The same request at the same attempt number always fails or succeeds the same
way, and a later attempt draws again: a retry can succeed, as against the
live platforms.
"""

from __future__ import annotations

import hashlib

__all__ = ["FAULT_KINDS", "fault_for"]

#: HTTP-level failures and platform-level ones (rendered by the protocol).
FAULT_KINDS = ("http_500", "http_502", "http_504", "rate_limit", "maintenance")


def fault_for(seed: int, identity: str, attempt: int, rate: float) -> str | None:
    """The fault this attempt of this request suffers, or None (probability ``rate``)."""
    if rate <= 0:
        return None
    digest = hashlib.sha256(f"fault|{seed}|{identity}|{attempt}".encode()).digest()
    draw = int.from_bytes(digest[:8], "big") / 2**64
    if draw >= rate:
        return None
    return FAULT_KINDS[digest[8] % len(FAULT_KINDS)]
