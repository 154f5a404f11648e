"""What a recorder lets through: retry what a retry may fix, and never record an answer that is no answer.

Every recorder of a source — ``record``, ``refresh``, and any source opened in a recording mode (``call --mode
record``, the pytest plugin, ``replay-or-record`` runs, sync or async) — sends through a
:class:`~kopa_replay.record.retry.RetryTransport` built by :func:`retrying` (async: the retry-less
:class:`~kopa_replay.record.retry.AsyncBlockedGuard`, :func:`guarded`): an environmental or blocked answer
(:mod:`kopa_replay.env.blocked`) is tried again, and one still blocked after the retries raises
:class:`~kopa_replay.record.retry.BlockedAnswer` instead of reaching the recorder, so a bot wall's page or an empty
200 is never sealed as a tool's answer. (The vcrpy bridge, :mod:`kopa_replay.record.vcr`, stores what the SDK
under test saw, as vcrpy does: it is not guarded.)
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable
from typing import Any

import httpx

from kopa_replay.catalog.model import Catalog

__all__ = ["blocked_answer", "environmental_answer", "guarded", "retrying"]


@functools.lru_cache(maxsize=16)
def _scrubber(secrets: tuple[str, ...]) -> Any:
    """The masker of a request's keys: one per key (a recording sends thousands of requests with the same one)."""
    from kopa_replay.record.redact import Redactor

    return Redactor(secret_values=secrets)


def _read_answer(catalog: Catalog, request: httpx.Request, response: httpx.Response) -> Any:
    """How the request's tool reads ``response`` (None for a request no catalog tool made), the request's keys
    masked first — as the recorder masks what it stores — so nothing read from the body (a wall page's title in
    the evidence) can carry one."""
    from kopa_replay.env.call import interpret

    tool = request.extensions.get("kopa_tool")
    if not tool or tool not in catalog:
        return None
    secrets = tuple(s for s in request.extensions.get("kopa_secrets", ()) if s)
    content = _scrubber(secrets).scrub_bytes(response.content) if secrets else response.content
    return interpret(catalog.get(tool), {}, response.status_code, content, "", response.headers.get("content-type"))


def environmental_answer(catalog: Catalog) -> Callable[[httpx.Request, httpx.Response], bool]:
    """Whether a retry may get past an answer: a 429/5xx status, what the catalog's result-code table of the
    request's tool calls environmental (a rate-limit or maintenance code inside a 200 body), or a blocked answer
    (a wall, a page or nothing where data was expected: :mod:`kopa_replay.env.blocked`)."""
    from kopa_replay.env.call import TRANSIENT_OUTCOMES
    from kopa_replay.record.retry import status_retryable

    def retryable(request: httpx.Request, response: httpx.Response) -> bool:
        if status_retryable(request, response):
            return True
        read = _read_answer(catalog, request, response)
        return read is not None and read.outcome in TRANSIENT_OUTCOMES

    return retryable


def blocked_answer(catalog: Catalog) -> Callable[[httpx.Request, httpx.Response], str | None]:
    """The evidence that an answer is blocked — never to be recorded as the tool's answer — with the request's
    keys masked (a wall's page may echo what it was sent), or None."""

    def unsealable(request: httpx.Request, response: httpx.Response) -> str | None:
        read = _read_answer(catalog, request, response)
        if read is None or read.outcome != "blocked_error":
            return None
        return str(read.message)

    return unsealable


def retrying(
    catalog: Catalog,
    retries: int,
    backoff: float,
    sleep: Callable[[float], object] = time.sleep,
    made: list[Any] | None = None,
) -> Callable[[httpx.BaseTransport], httpx.BaseTransport]:
    """A ``wrap`` for :func:`~kopa_replay.env.source.open_source` that retries what a retry may fix and keeps a
    blocked answer from the recorder (:class:`~kopa_replay.record.retry.RetryTransport`); ``made`` gets it."""
    from kopa_replay.record.retry import RetryTransport

    def wrap(inner: httpx.BaseTransport) -> httpx.BaseTransport:
        transport = RetryTransport(
            inner,
            retries=retries,
            backoff=backoff,
            sleep=sleep,
            retryable=environmental_answer(catalog),
            unsealable=blocked_answer(catalog),
        )
        if made is not None:
            made.append(transport)
        return transport

    return wrap


def guarded(catalog: Catalog, asynchronous: bool) -> Callable[[Any], Any]:
    """The ``wrap`` a source opened in a recording mode gets when its opener chose none: no retries, but no blocked
    answer reaches the recorder (sync: :func:`retrying` with 0 retries; async:
    :class:`~kopa_replay.record.retry.AsyncBlockedGuard`)."""
    if not asynchronous:
        return retrying(catalog, 0, 0.0)
    from kopa_replay.record.retry import AsyncBlockedGuard

    unsealable = blocked_answer(catalog)
    return lambda inner: AsyncBlockedGuard(inner, unsealable)
