"""Per-host rate limits shared by every worker of a sharded recording.

The catalog's limits (requests per second, requests in flight, a daily quota) are a key's: N workers that each
kept them would send N times what the platform allows. So the workers share one limiter. In this process (threads)
that is one :class:`~kopa_replay.env.limits.InProcessLimiter`; on Ray it lives in one actor and each worker holds a
handle that asks it for a start slot (:meth:`~kopa_replay.env.limits.InProcessLimiter.reserve`), sleeps the time it
says on its own side, and gives the slot back when the request ends.
"""

from __future__ import annotations

import time
from typing import Any, Mapping

__all__ = ["shared_limiter", "RayLimiterHandle"]

#: how long a handle waits before asking again when the host's requests in flight are at the cap
_POLL = 0.02


def shared_limiter(executor: Any, catalog: Any, source: str, mirrors: Mapping[str, str] | None = None) -> Any:
    """The limiter the workers of ``executor`` share for ``source`` (None: it sends nothing to a live platform —
    the simulator, a replay, a mirror of our own)."""
    if source != "live":
        return None
    from kopa_replay.env.limits import live_limiter

    local = live_limiter(catalog, mirrors)
    if executor.spec.kind != "ray" or not local.limits:
        return local
    import ray

    actor = ray.remote(num_cpus=0)(_LimiterActor).remote(local.limits)
    return RayLimiterHandle(actor)


class _LimiterActor:
    """The one holder of the limits on a Ray cluster (an actor: its calls run one at a time)."""

    def __init__(self, limits: Mapping[str, Any]) -> None:
        from kopa_replay.env.limits import InProcessLimiter

        self._limiter = InProcessLimiter(limits)

    def reserve(self, host: str) -> float | None:
        return self._limiter.reserve(host)

    def release(self, host: str) -> None:
        self._limiter.release(host)


class RayLimiterHandle:
    """A :class:`~kopa_replay.env.limits.HostLimiter` whose limits live in a Ray actor (picklable: each worker gets
    the handle, all of them one actor)."""

    def __init__(self, actor: Any) -> None:
        self.actor = actor

    def acquire(self, host: str) -> None:
        import ray

        while (wait := ray.get(self.actor.reserve.remote(host))) is None:
            time.sleep(_POLL)  # at the cap: a slot frees when some worker's request ends
        if wait > 0:
            time.sleep(wait)

    def release(self, host: str) -> None:
        self.actor.release.remote(host)  # not awaited: release must not block (the async transport calls it)
