"""Retrying environmental failures before anything is recorded: a snapshot holds what a retry gets.

:class:`RetryTransport` wraps the transport a recorder (``record``, ``refresh``)
sends through. An answer ``retryable`` calls environmental — by default a 429 or
5xx status or a failed connection; the refresh workflow adds the catalog's own
classification, so a platform's rate-limit or maintenance code inside a 200
body counts too — is tried again, at most ``retries`` times, after
:func:`retry_delay`: exponential backoff from ``backoff`` seconds, at least the
server's ``Retry-After`` (seconds or an HTTP date), at most ``max_backoff``.
Only the last answer goes on to the recorder — unless ``unsealable`` finds it is
no answer of the platform at all (a bot wall, an HTML page or an empty body where
data was expected: :mod:`kopa_replay.env.blocked`); then :class:`BlockedAnswer`
is raised instead, so the recorder writes nothing and the caller reports it with
its evidence (a later recording or refresh can fill it). :class:`RetryStats`
counts what happened, so a report can say how much noise was retried away and
what stayed failing (reported apart from drift).

:func:`retry_after` and :func:`retry_delay` are pure (the clock is passed in).
"""

from __future__ import annotations

import email.utils
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

import httpx

__all__ = [
    "AsyncBlockedGuard",
    "BlockedAnswer",
    "MAX_BACKOFF",
    "RETRY_STATUSES",
    "RetryStats",
    "RetryTransport",
    "retry_after",
    "retry_delay",
    "status_retryable",
]

#: The longest wait between two tries, whatever Retry-After asks (seconds).
MAX_BACKOFF = 30.0

#: statuses that say "try again later" rather than "this request is wrong"
RETRY_STATUSES = frozenset({429, 500, 502, 503, 504})


def retry_after(headers: Mapping[str, str], now: float) -> float | None:
    """Seconds a ``Retry-After`` header asks to wait (delta seconds or an HTTP date, relative to ``now``), or
    None when there is none or it cannot be read; never negative."""
    value = next((v for k, v in headers.items() if k.lower() == "retry-after"), None)
    if value is None:
        return None
    text = value.strip()
    if text.isdigit():
        return float(text)
    try:
        moment = email.utils.parsedate_to_datetime(text)
    except (TypeError, ValueError, IndexError):
        return None
    if moment is None or moment.tzinfo is None:
        return None
    return max(0.0, moment.timestamp() - now)


def retry_delay(attempt: int, asked: float | None, backoff: float, max_backoff: float) -> float:
    """The wait before retry number ``attempt`` (1 = the first retry): ``backoff * 2**(attempt-1)``, at least
    what the server ``asked``, at most ``max_backoff``."""
    exponential = backoff * (2 ** max(0, attempt - 1))
    return min(max_backoff, max(exponential, asked or 0.0))


def status_retryable(request: httpx.Request, response: httpx.Response) -> bool:
    """The default test: a 429 or 5xx answer."""
    return response.status_code in RETRY_STATUSES


class BlockedAnswer(httpx.TransportError):
    """What came back is no answer of the platform (``evidence`` says why, keys masked): it must not be recorded.
    The status, headers and body ride along, so a caller that reads answers (the environment) still classifies it;
    a caller that only sends counts it as a request that got no answer."""

    def __init__(self, evidence: str, status: int, headers: Mapping[str, str], body: bytes) -> None:
        super().__init__(f"no answer of the platform: {evidence}")
        self.evidence = evidence
        self.status = status
        self.headers = dict(headers)
        self.body = body


@dataclass
class RetryStats:
    """Requests that needed a retry, those a retry answered, those still failing after the last retry, and those
    whose last answer was blocked (not recorded)."""

    retried: int = 0
    recovered: int = 0
    still_failing: int = 0
    blocked: int = 0
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def add_blocked(self) -> None:
        with self._lock:
            self.blocked += 1

    def add(self, retried: bool, failing: bool) -> None:
        with self._lock:
            if retried:
                self.retried += 1
                if failing:
                    self.still_failing += 1
                else:
                    self.recovered += 1
            elif failing:  # no retries allowed (retries=0)
                self.still_failing += 1

    def to_dict(self) -> dict[str, int]:
        counts = {"retried": self.retried, "recovered": self.recovered, "still_failing": self.still_failing}
        return {**counts, "blocked": self.blocked} if self.blocked else counts


class RetryTransport(httpx.BaseTransport):
    """Send through ``inner``, trying environmental failures again (see the module docstring)."""

    def __init__(
        self,
        inner: httpx.BaseTransport,
        *,
        retries: int = 3,
        backoff: float = 0.5,
        max_backoff: float = MAX_BACKOFF,
        sleep: Callable[[float], object] = time.sleep,
        clock: Callable[[], float] = time.time,
        retryable: Callable[[httpx.Request, httpx.Response], bool] = status_retryable,
        unsealable: Callable[[httpx.Request, httpx.Response], str | None] | None = None,
    ) -> None:
        if retries < 0 or backoff < 0 or max_backoff < 0:
            raise ValueError("retries, backoff and max_backoff must be 0 or more")
        self.inner = inner
        self.retries = int(retries)
        self.backoff = float(backoff)
        self.max_backoff = float(max_backoff)
        self.sleep = sleep
        self.clock = clock
        self.retryable = retryable
        self.unsealable = unsealable
        self.stats = RetryStats()

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        attempt = 0
        while True:
            try:
                response = self.inner.handle_request(request)
                response.read()
            except httpx.TransportError:
                if attempt >= self.retries:
                    self.stats.add(attempt > 0, True)
                    raise
                attempt += 1
                self.sleep(retry_delay(attempt, None, self.backoff, self.max_backoff))
                continue
            failing = self.retryable(request, response)
            if not failing or attempt >= self.retries:
                self.stats.add(attempt > 0, failing)
                evidence = self.unsealable(request, response) if self.unsealable is not None else None
                if evidence is not None:
                    self.stats.add_blocked()
                    kept = {k: v for k, v in response.headers.items() if k.lower() == "content-type"}
                    raise BlockedAnswer(evidence, response.status_code, kept, response.content)
                return response
            attempt += 1
            asked = retry_after(response.headers, self.clock())
            response.close()
            self.sleep(retry_delay(attempt, asked, self.backoff, self.max_backoff))

    def close(self) -> None:
        self.inner.close()


class AsyncBlockedGuard(httpx.AsyncBaseTransport):
    """What an async recorder sends through: no retries (the async environment retries itself), but an answer
    ``unsealable`` finds blocked raises :class:`BlockedAnswer` instead of reaching the recorder."""

    def __init__(
        self, inner: httpx.AsyncBaseTransport, unsealable: Callable[[httpx.Request, httpx.Response], str | None]
    ) -> None:
        self.inner = inner
        self.unsealable = unsealable

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        response = await self.inner.handle_async_request(request)
        await response.aread()
        evidence = self.unsealable(request, response)
        if evidence is not None:
            kept = {k: v for k, v in response.headers.items() if k.lower() == "content-type"}
            raise BlockedAnswer(evidence, response.status_code, kept, response.content)
        return response

    async def aclose(self) -> None:
        await self.inner.aclose()
