"""Per-host rate limits shared by every worker of a sharded recording.

The catalog's limits (requests per second, requests in flight, a daily quota) are a key's: N workers that each
kept them would send N times what the platform allows. So the workers share one limiter. In this process (threads)
that is one :class:`~kopa_replay.env.limits.InProcessLimiter`; on Ray it lives in one actor and each worker holds a
handle that asks it for a start slot (:meth:`~kopa_replay.env.limits.InProcessLimiter.reserve`), sleeps the time it
says on its own side, and gives the slot back when the request ends.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any

from kopa_replay.errors import SourceError

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
    if not local.limits:
        return None  # no host of this catalog is limited (or every one goes to a mirror)
    if executor.spec.kind != "ray":
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

    def __init__(self, actor: Any, max_wait: float = 600.0) -> None:
        self.actor = actor
        self.max_wait = max_wait

    def acquire(self, host: str) -> None:
        waited = 0.0
        while (wait := self._reserve(host)) is None:
            if waited > self.max_wait:  # a worker that died holding a slot never gives it back
                raise SourceError(
                    f"{host}: no request slot came free in {self.max_wait:g} s (the catalog's rate_limit allows "
                    "few in flight and a worker holding one stopped); run the recording again to resume it"
                )
            time.sleep(_POLL)  # at the cap: a slot frees when some worker's request ends
            waited += _POLL
        if wait > 0:
            time.sleep(wait)

    def _reserve(self, host: str) -> float | None:
        import ray

        from kopa_replay.scale.executor import gather_in_order

        # a used-up daily quota raised in the actor arrives as its own SourceError (one Error: line)
        return gather_in_order(ray, [self.actor.reserve.remote(host)])[0]

    def release(self, host: str) -> None:
        self.actor.release.remote(host)  # not awaited: release must not block (the async transport calls it)
