"""httpx transports that record to and replay from a cassette store.

``RecordTransport(inner, store, snapshot, mode)`` wraps any inner httpx
transport (live HTTP, the in-process simulator, a mirror) and is set per
client — no process-wide patching. Modes:

* ``replay`` — strict and offline: a recorded request is answered from the
  store; anything else raises :class:`~kopa_replay.errors.CassetteMiss`. The
  inner transport is never called (it may be ``None``).
* ``record`` — every request goes to the inner transport and is appended.
* ``replay-or-record`` — answered from the store when recorded, else sent and recorded.
* ``refresh`` — like ``record``, used to re-execute a base snapshot into a new one.

The decision of what to do with a request is the pure function
:func:`decide`; the transports only do the I/O it asks for. The tool name and
the key the caller inserted ride in the request's extensions (``kopa_tool``,
``kopa_secrets``), set by :func:`kopa_replay.env.execute`.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Iterable

import httpx

from kopa_replay.errors import CassetteMiss, StoreError, UsageError
from kopa_replay.record.redact import Redactor
from kopa_replay.record.store import Store

__all__ = ["MODES", "KEPT_RESPONSE_HEADERS", "decide", "Replayed", "RecordTransport", "AsyncRecordTransport"]

MODES = ("replay", "record", "replay-or-record", "refresh")
#: response headers worth keeping; the rest (dates, cookies, server names) is noise or secret. Bodies are
#: stored decoded (httpx undoes gzip), so content-encoding must not be kept: replay would decode twice.
KEPT_RESPONSE_HEADERS = ("content-type", "content-disposition")


def decide(mode: str, recorded: int, served: int) -> str:
    """What to do with a request: ``"replay"`` (the served-th recorded answer), ``"send"``, or ``"miss"``.

    ``recorded`` is how many answers the snapshot holds for this request,
    ``served`` how many this transport has already served. Replay walks the
    recorded answers in order and then repeats the last.
    """
    if mode in ("record", "refresh"):
        return "send"
    if recorded:
        return "replay"
    return "miss" if mode == "replay" else "send"


@dataclass(frozen=True)
class Replayed:
    """A recorded answer served without httpx: status, body, and the body's content digest."""

    status: int
    content: bytes
    body_digest: str


@dataclass
class _Core:
    """The shared, I/O-free-as-possible part of the sync and async transports."""

    store: Store
    snapshot: str
    mode: str
    redactor: Redactor

    def __post_init__(self) -> None:
        if self.mode not in MODES:
            raise UsageError(f"unknown record mode {self.mode!r} (use one of: {', '.join(MODES)})")
        if self.mode != "replay":
            self.store.ensure_snapshot(self.snapshot)
        else:
            self.store.snapshot(self.snapshot)  # a missing snapshot is a clear error up front
        self._served: dict[str, int] = {}
        # request key -> recorded (status, headers, body digest) answers, read once per key
        self._recorded: dict[str, list[tuple[int, dict[str, str], str]]] = {}
        # the redactor that also masks a call's own key, built once per key (a handful per run)
        self._redactors: dict[tuple[str, ...], Redactor] = {}
        self._lock = threading.Lock()

    def plan(self, request: httpx.Request) -> tuple[str, str, Redactor, tuple[int, dict[str, str], str] | None]:
        """(action, request key, redactor, interaction to replay)."""
        secrets: Iterable[str] = request.extensions.get("kopa_secrets") or ()
        return self.plan_raw(request.method, str(request.url), request.content, secrets)

    def plan_raw(self, method: str, url: str, content: bytes,
                 secrets: Iterable[str] = ()) -> tuple[str, str, Redactor, tuple[int, dict[str, str], str] | None]:
        """:meth:`plan` for a request that was never built as an ``httpx.Request`` (the replay fast path)."""
        secrets = tuple(s for s in secrets if s)
        redactor = self._redactors.get(secrets) if secrets else self.redactor
        if redactor is None:
            redactor = self._redactors.setdefault(secrets, self.redactor.with_values(secrets))
        key = redactor.request_key(method, url, content)
        with self._lock:
            if key not in self._recorded:
                self._recorded[key] = self.store.answers(self.snapshot, key) if self.mode != "record" else []
            recorded = self._recorded[key]
            served = self._served.get(key, 0)
            action = decide(self.mode, len(recorded), served)
            if action == "replay":
                self._served[key] = served + 1
                return action, key, redactor, recorded[min(served, len(recorded) - 1)]
        return action, key, redactor, None

    def replay_answer(self, method: str, url: str, secrets: Iterable[str] = ()) -> Replayed | None:
        """The recorded answer to a body-less request, or None when it must go through the transport.

        This is the replay fast path: no ``httpx.Request``/``Response`` is built. It
        serves exactly what :meth:`plan` would (the same request key, the same
        walk through repeated answers); a request it does not answer — not
        recorded, or a mode that sends — is left to the client, which records it
        or raises :class:`~kopa_replay.errors.CassetteMiss`.
        """
        if self.mode in ("record", "refresh"):
            return None
        action, _key, _redactor, answer = self.plan_raw(method, url, b"", secrets)
        if action != "replay" or answer is None:
            return None
        status, _headers, digest = answer
        return Replayed(status, self._body(digest, None, method, url, _redactor), digest)

    def replayed(self, request: httpx.Request, redactor: Redactor,
                 answer: tuple[int, dict[str, str], str]) -> httpx.Response:
        status, headers, digest = answer
        body = self._body(digest, request.extensions.get("kopa_tool"), request.method, str(request.url), redactor)
        return httpx.Response(status, headers=headers, content=body, request=request,
                              extensions={"kopa_replayed": True})

    def _body(self, digest: str, tool: str | None, method: str, url: str, redactor: Redactor) -> bytes:
        """A recorded body; a corrupt one is an error naming the snapshot, tool and (redacted) request."""
        try:
            return self.store.body(digest)
        except StoreError as exc:
            where = f"tool {tool}, " if tool else ""
            raise StoreError(f"snapshot {self.snapshot!r}, {where}{method} {redactor.redact_url(url)}: {exc}") from None

    def miss(self, request: httpx.Request, redactor: Redactor) -> CassetteMiss:
        return CassetteMiss(tool=request.extensions.get("kopa_tool"), method=request.method,
                            url=redactor.redact_url(str(request.url)), snapshot=self.snapshot,
                            store=str(self.store.path))

    def record(self, request: httpx.Request, key: str, redactor: Redactor, response: httpx.Response,
               body: bytes) -> httpx.Response:
        headers = {k: v for k, v in ((h, response.headers.get(h)) for h in KEPT_RESPONSE_HEADERS) if v}
        scrubbed = redactor.scrub_bytes(body)
        with self._lock:
            self._recorded.pop(key, None)  # the next identical request re-reads what is now recorded
        self.store.append(snapshot=self.snapshot, request_key=key, tool=request.extensions.get("kopa_tool"),
                          method=request.method, url=redactor.redact_url(str(request.url)),
                          request_headers=redactor.redact_headers(dict(request.headers)),
                          status=response.status_code, response_headers=headers, body=scrubbed)
        # The caller gets what was stored, so a recorded run and its replay see the same bytes.
        return httpx.Response(response.status_code, headers=headers, content=scrubbed, request=request)


class RecordTransport(httpx.BaseTransport):
    """Record to / replay from ``store`` around ``inner`` (sync)."""

    def __init__(self, inner: httpx.BaseTransport | None, store: Store, snapshot: str, mode: str = "replay",
                 redactor: Redactor | None = None) -> None:
        self.inner = inner
        self._core = _Core(store, snapshot, mode, redactor or Redactor())

    @property
    def mode(self) -> str:
        return self._core.mode

    def replay_answer(self, method: str, url: str, secrets: Iterable[str] = ()) -> Replayed | None:
        """See :meth:`_Core.replay_answer`: a recorded answer without building httpx objects."""
        return self._core.replay_answer(method, url, secrets)

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        action, key, redactor, interaction = self._core.plan(request)
        if action == "replay":
            return self._core.replayed(request, redactor, interaction)
        if action == "miss" or self.inner is None:
            raise self._core.miss(request, redactor)
        response = self.inner.handle_request(request)
        body = response.read()
        response.close()
        return self._core.record(request, key, redactor, response, body)

    def close(self) -> None:
        if self.inner is not None:
            self.inner.close()


class AsyncRecordTransport(httpx.AsyncBaseTransport):
    """The async twin of :class:`RecordTransport` (same core)."""

    def __init__(self, inner: httpx.AsyncBaseTransport | None, store: Store, snapshot: str, mode: str = "replay",
                 redactor: Redactor | None = None) -> None:
        self.inner = inner
        self._core = _Core(store, snapshot, mode, redactor or Redactor())

    def replay_answer(self, method: str, url: str, secrets: Iterable[str] = ()) -> Replayed | None:
        """See :meth:`_Core.replay_answer` (no I/O besides the store, so it need not be awaited)."""
        return self._core.replay_answer(method, url, secrets)

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        await request.aread()
        action, key, redactor, interaction = self._core.plan(request)
        if action == "replay":
            return self._core.replayed(request, redactor, interaction)
        if action == "miss" or self.inner is None:
            raise self._core.miss(request, redactor)
        response = await self.inner.handle_async_request(request)
        body = await response.aread()
        await response.aclose()
        return self._core.record(request, key, redactor, response, body)

    async def aclose(self) -> None:
        if self.inner is not None:
            await self.inner.aclose()
