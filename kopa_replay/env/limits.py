"""Per-host rate limits for the sources that reach real hosts: one tiny protocol, one in-process limiter.

A :class:`HostLimiter` has two verbs: ``acquire(host)`` blocks until a request to ``host`` may start, and
``release(host)`` says it ended. :class:`LimitedTransport` (and :class:`AsyncLimitedTransport`) wraps the inner
transport of a ``live`` source or a mirror URL with them, one acquire and one release around each request, so
every request that reaches a host (each retry too, as it is wrapped inside a retry transport) counts.

The limits are the catalog's (:meth:`~kopa_replay.catalog.Catalog.rate_limits`, the platforms' published or
conservative figures): per host, starts spaced at least ``1 / requests_per_second`` apart, at most
``concurrency`` requests in flight, at most ``daily`` starts in any day. When to start is a pure function,
:func:`next_start`, of the host's earlier start times, its requests in flight and the time;
:class:`InProcessLimiter` keeps that state for one process behind a lock, with its clock and sleep passed in.

Shared limits across processes (Ray workers recording shards with one key) need one state: a limiter whose
``acquire`` and ``release`` ask a shared holder (an actor keeping an :class:`InProcessLimiter` and answering
:meth:`InProcessLimiter.reserve`). Each process gets a picklable handle; an :class:`InProcessLimiter` itself
refuses to be pickled, as a copy in each process would multiply the limits by the number of processes.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Protocol, runtime_checkable

import httpx

from kopa_replay.catalog.model import Catalog, RateLimit
from kopa_replay.errors import SourceError

__all__ = [
    "DAY",
    "HostLimiter",
    "next_start",
    "InProcessLimiter",
    "LimitedTransport",
    "AsyncLimitedTransport",
    "limited",
    "live_limiter",
]

#: The window of a daily limit, in seconds of the limiter's clock: at most ``daily`` starts in any such window (a
#: sliding day, stricter than a quota that resets at midnight, and needing no calendar from a monotonic clock).
DAY = 86_400.0


@runtime_checkable
class HostLimiter(Protocol):
    """What limits requests per host: ``acquire`` before each request, ``release`` after it (even when it failed).

    ``acquire`` blocks until the request may start (it may raise :class:`~kopa_replay.errors.SourceError` when it
    never may in reasonable time: a used-up daily limit). ``release`` must not block: async transports call it on
    the event loop. A limiter shared by processes is passed to each as a picklable handle.
    """

    def acquire(self, host: str) -> None: ...

    def release(self, host: str) -> None: ...


def next_start(limit: RateLimit, starts: Sequence[float], in_flight: int, now: float) -> float | None:
    """When the next request to a host may start, given the host's earlier start times (ascending; only the last
    ``max(1, daily)`` matter), its requests in flight and the time ``now``: the earliest time ``>= now`` that keeps
    starts at least ``limit.interval`` apart and at most ``limit.daily`` in any :data:`DAY`; None while
    ``limit.concurrency`` requests are in flight (only a release makes room, not time)."""
    if in_flight >= limit.concurrency:
        return None
    at = now
    if starts:
        at = max(at, starts[-1] + limit.interval)
    if limit.daily is not None and len(starts) >= limit.daily:
        # at most `daily` starts in any DAY: the daily-th latest one must lie a full day before this one
        at = max(at, starts[-limit.daily] + DAY)
    return at


class _HostState:
    """One host's limit, its recent start times (reserved ones included: they may lie ahead) and its requests in
    flight (reserved ones included, so the cap holds from the moment a start is promised)."""

    def __init__(self, limit: RateLimit) -> None:
        self.limit = limit
        self.starts: deque[float] = deque(maxlen=max(1, limit.daily or 1))
        self.in_flight = 0


class InProcessLimiter:
    """A thread-safe :class:`HostLimiter` for one process over per-host :class:`RateLimit` (hosts without one are
    not limited).

    ``clock`` and ``sleep`` (``time.monotonic`` and ``time.sleep``) are passed in so the waiting can be driven
    without waiting. A start is *reserved* under the lock (its time and its place in flight), then waited for
    outside it, so threads queue in order without a stampede. ``max_wait`` (seconds): a request that could start
    only later than that raises :class:`~kopa_replay.errors.SourceError` instead of waiting (a used-up daily
    limit: resume the recording later, or with another key).
    """

    def __init__(
        self,
        limits: Mapping[str, RateLimit],
        *,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
        max_wait: float = 600.0,
    ) -> None:
        self._hosts = {host.lower(): _HostState(limit) for host, limit in sorted(limits.items())}
        self._clock = clock
        self._sleep = sleep
        self.max_wait = max_wait
        self._released = threading.Condition()

    @classmethod
    def from_catalog(cls, catalog: Catalog, *, skip: Iterable[str] = (), **options) -> "InProcessLimiter":
        """The limits of ``catalog``'s hosts, less those in ``skip`` (hosts that never reach the platform)."""
        skipped = {host.lower() for host in skip}
        return cls({h: limit for h, limit in catalog.rate_limits().items() if h not in skipped}, **options)

    @property
    def limits(self) -> dict[str, RateLimit]:
        """The limited hosts and their limits."""
        return {host: state.limit for host, state in self._hosts.items()}

    def reserve(self, host: str) -> float | None:
        """Without blocking: reserve the next start of a request to ``host`` and return the seconds to wait
        before it (0 for an unlimited host), or None when the host's requests in flight are at its cap (nothing
        reserved: try again after a release). A reservation is given back with :meth:`release`."""
        state = self._hosts.get(host.lower())
        if state is None:
            return 0.0
        with self._released:
            now = self._clock()
            at = next_start(state.limit, state.starts, state.in_flight, now)
            if at is None:
                return None
            if at - now > self.max_wait:
                raise SourceError(_too_long(host, state, at, now, self.max_wait))
            state.starts.append(at)
            state.in_flight += 1
            return at - now

    def acquire(self, host: str) -> None:
        """Block until a request to ``host`` may start (see :meth:`reserve`)."""
        state = self._hosts.get(host.lower())
        if state is None:
            return
        with self._released:
            wait = self.reserve(host)
            while wait is None:
                self._released.wait()
                wait = self.reserve(host)
        if wait > 0:
            self._sleep(wait)

    def release(self, host: str) -> None:
        """A request to ``host`` ended (or its reservation is given back): make room for the next."""
        state = self._hosts.get(host.lower())
        if state is None:
            return
        with self._released:
            state.in_flight = max(0, state.in_flight - 1)
            self._released.notify_all()

    def __reduce__(self):
        raise TypeError(
            "an InProcessLimiter limits one process; a copy in each process would multiply its limits: "
            "share one through a handle to a single holder (a Ray actor) instead"
        )


def _too_long(host: str, state: _HostState, at: float, now: float, max_wait: float) -> str:
    limit, starts = state.limit, state.starts
    if limit.daily is not None and len(starts) >= limit.daily and starts[-limit.daily] + DAY >= at:
        return (
            f"{host}: the daily limit of {limit.daily} requests (the catalog's rate_limit) is used up in this "
            f"process; the next may start in {(at - now) / 3600:.1f} h. Resume the recording later or with another key"
        )
    return (
        f"{host}: the next request could start only in {at - now:.0f} s, past the limiter's max_wait of {max_wait:g} s"
    )


class LimitedTransport(httpx.BaseTransport):
    """Acquire a start from ``limiter`` before each request, release it once the response is read whole.

    The body is read inside: a request is in flight until its last byte arrives, not when its headers do."""

    def __init__(self, inner: httpx.BaseTransport, limiter: HostLimiter) -> None:
        self.inner = inner
        self.limiter = limiter

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        host = request.url.host
        self.limiter.acquire(host)
        try:
            response = self.inner.handle_request(request)
            try:
                response.read()
            finally:
                response.close()
        finally:
            self.limiter.release(host)
        return response

    def close(self) -> None:
        self.inner.close()


class AsyncLimitedTransport(httpx.AsyncBaseTransport):
    """The async twin of :class:`LimitedTransport`: the same limiter, its blocking ``acquire`` run on threads of
    this transport's own (so waiting requests never hold the event loop, nor the loop's default executor that
    other code needs)."""

    #: the most requests waiting for a start at once; more wait in line for a thread, in order
    WAITERS = 32

    def __init__(self, inner: httpx.AsyncBaseTransport, limiter: HostLimiter) -> None:
        self.inner = inner
        self.limiter = limiter
        self._waiters = ThreadPoolExecutor(max_workers=self.WAITERS, thread_name_prefix="kopa-limit")

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        host = request.url.host
        acquired = asyncio.get_running_loop().run_in_executor(self._waiters, self.limiter.acquire, host)
        try:
            await asyncio.shield(acquired)
        except asyncio.CancelledError:
            # the thread still gets its start: give it back when it does
            acquired.add_done_callback(lambda done: _release_if_acquired(self.limiter, host, done))
            raise
        try:
            response = await self.inner.handle_async_request(request)
            try:
                await response.aread()
            finally:
                await response.aclose()
        finally:
            self.limiter.release(host)
        return response

    async def aclose(self) -> None:
        self._waiters.shutdown(wait=False, cancel_futures=True)
        await self.inner.aclose()


def _release_if_acquired(limiter: HostLimiter, host: str, done: "asyncio.Future[None]") -> None:
    if not done.cancelled() and done.exception() is None:
        limiter.release(host)


def limited(
    transport: httpx.BaseTransport | httpx.AsyncBaseTransport, limiter: HostLimiter | None
) -> httpx.BaseTransport | httpx.AsyncBaseTransport:
    """``transport`` behind ``limiter`` (the async twin for an async transport); itself without one."""
    if limiter is None:
        return transport
    if isinstance(transport, httpx.AsyncBaseTransport):
        return AsyncLimitedTransport(transport, limiter)
    return LimitedTransport(transport, limiter)


def live_limiter(catalog: Catalog | None = None, mirrors: Mapping[str, str] | None = None) -> InProcessLimiter:
    """The limiter a ``live`` source gets unless it is given one: ``catalog``'s limits (the built-in catalog's
    without one) for the hosts that go to the real platform, not those sent to a mirror (none with ``"*"``)."""
    if catalog is None:
        from kopa_replay.catalog.load import builtin_catalog

        catalog = builtin_catalog()
    mirrored = set(mirrors or ())
    if "*" in mirrored:
        return InProcessLimiter({})
    return InProcessLimiter.from_catalog(catalog, skip=mirrored)
