"""httpx transports that record to and replay from a cassette store.

``RecordTransport(inner, store, snapshot, mode)`` wraps any inner httpx
transport (live HTTP, the in-process simulator, a mirror) and is set per
client — no process-wide patching. Modes:

* ``replay`` — strict and offline: a recorded request is answered from the
  store; anything else raises :class:`~kopa_replay.errors.CassetteMiss`. The
  inner transport is never called (it may be ``None``).
* ``record`` — the n-th occurrence of a request goes to the inner transport
  and is recorded as its n-th answer, unless the snapshot already holds an
  n-th answer (then that is served): an interrupted recording resumes where
  it stopped, and any number of recorders — threads or processes — running
  into one open snapshot write each answer exactly once, as one recorder
  would have (the first to write it wins; the others serve its answer).
* ``replay-or-record`` — answered from the store when recorded, else sent and
  recorded (racing workers record a request once, as above).
* ``refresh`` — like ``record``, used to re-execute a base snapshot into a new one.

The decision of what to do with a request is the pure function
:func:`decide`; the transports only do the I/O it asks for. The tool name and
the key the caller inserted ride in the request's extensions (``kopa_tool``,
``kopa_secrets``), set by :func:`kopa_replay.env.execute`.
"""

from __future__ import annotations

import functools
import logging
import threading
import weakref
from collections.abc import Callable, Collection, Iterable
from dataclasses import dataclass, field

import httpx

from kopa_replay.errors import CassetteMiss, KopaError, StoreError, UsageError
from kopa_replay.record.redact import Redactor
from kopa_replay.record.store import RecordedRow, Store, StoredBody, blob_digest

__all__ = ["MODES", "KEPT_RESPONSE_HEADERS", "decide", "Replayed", "RecordTransport", "AsyncRecordTransport"]

MODES = ("replay", "record", "replay-or-record", "refresh")
#: response headers worth keeping (a Link header names the next page — and may echo the key: scrubbed like the
#: rest); the rest (dates, cookies, server names) is noise or secret. Bodies are stored decoded (httpx undoes
#: gzip), so content-encoding must not be kept: replay would decode twice.
KEPT_RESPONSE_HEADERS = ("content-type", "content-disposition", "link")


def decide(mode: str, recorded: Collection[int], occurrence: int) -> str:
    """What to do with a request: ``"replay"``, ``"send"``, or ``"miss"``.

    ``recorded`` holds the seq numbers of the snapshot's answers to this
    request, ``occurrence`` how many times this transport has met it before.
    Replay walks the recorded answers in order and then repeats the last.
    Recording sends the n-th occurrence only when the snapshot lacks an n-th
    answer (seq n): an interrupted recording resumes, and several recorders
    running the same workload into one snapshot write each answer once.
    """
    if mode in ("record", "refresh"):
        return "replay" if occurrence + 1 in recorded else "send"
    if recorded:
        return "replay"
    return "miss" if mode == "replay" else "send"


@dataclass(frozen=True)
class Replayed:
    """A recorded answer served without httpx: status, the body's content digest, and the body, read from the
    store by ``load`` when asked for (a caller that has read what the body says before, by its digest, need
    not read it again)."""

    status: int
    body_digest: str
    load: Callable[[], bytes] = field(repr=False, compare=False)

    @property
    def content(self) -> bytes:
        return self.load()


#: recorded answers are committed in batches of this many, and at the latest this many seconds after the
#: first of a batch was recorded (by a timer, so an idle recorder holds nothing back): a commit costs far more
#: than an interaction, and a killed recorder loses at most what it had not committed (resuming the
#: recording sends those again)
COMMIT_EVERY = 128
COMMIT_WITHIN = 0.5
#: request identities kept per transport (the memo is emptied when full: refilling costs little)
KEYS_KEPT = 100_000
#: what :meth:`_Core.plan` decides: action, request key, redactor, the answer to replay (status, headers, body
#: digest), the request's occurrence number, and the replayed body as stored when the same query read it
_Plan = tuple[str, str, Redactor, "tuple[int, dict[str, str], str] | None", int, "StoredBody | None"]


@dataclass
class _Core:
    """The shared, I/O-free-as-possible part of the sync and async transports."""

    store: Store
    snapshot: str
    mode: str
    redactor: Redactor
    commit_every: int = COMMIT_EVERY

    def __post_init__(self) -> None:
        if self.mode not in MODES:
            raise UsageError(f"unknown record mode {self.mode!r} (use one of: {', '.join(MODES)})")
        if self.commit_every < 1:
            raise UsageError(f"commit_every must be at least 1, not {self.commit_every}")
        if self.mode != "replay":
            self.store.ensure_snapshot(self.snapshot)
        else:
            self.store.snapshot(self.snapshot)  # a missing snapshot is a clear error up front
        self._occurrences: dict[str, int] = {}  # request key -> how many times this transport met it
        # request key -> recorded (status, headers, body digest) answers, read once per key when replaying;
        # recording reads them afresh each time, since other recorders may be writing the same snapshot
        self._recorded: dict[str, dict[int, tuple[int, dict[str, str], str]]] = {}
        # the redactor that also masks a call's own key, built once per key (a handful per run)
        self._redactors: dict[tuple[str, ...], Redactor] = {}
        # (method, url, secrets) of a body-less request → its identity and redactor: a pure function of them,
        # and a replayed walk asks a few thousand requests a hundred thousand times (parsing and unquoting the
        # URL cost most of a replayed call)
        self._keys: dict[tuple[str, str, tuple[str, ...]], tuple[str, Redactor]] = {}
        self._lock = threading.RLock()
        # answers recorded but not yet committed, and the timer that commits them if no batch fills first
        self._pending: list[RecordedRow] = []
        self._timer: threading.Timer | None = None
        # committed at exit (or when the transport is collected) if nobody closed the transport
        self._finalizer = weakref.finalize(self, _commit_left_over, self.store, self.snapshot, self._pending)

    @property
    def records(self) -> bool:
        return self.mode in ("record", "refresh")

    def plan(self, request: httpx.Request) -> _Plan:
        """(action, request key, redactor, interaction to replay, this request's occurrence number, the replayed
        body as stored when the same query read it)."""
        secrets: Iterable[str] = request.extensions.get("kopa_secrets") or ()
        return self.plan_raw(request.method, str(request.url), request.content, secrets)

    def plan_raw(self, method: str, url: str, content: bytes, secrets: Iterable[str] = ()) -> _Plan:
        """:meth:`plan` for a request that was never built as an ``httpx.Request`` (the replay fast path)."""
        secrets = tuple(s for s in secrets if s) if secrets else ()
        known = self._keys.get((method, url, secrets)) if not content else None
        if known is None:
            redactor = self._redactors.get(secrets) if secrets else self.redactor
            if redactor is None:
                redactor = self._redactors.setdefault(secrets, self.redactor.with_values(secrets))
            known = (redactor.request_key(method, url, content), redactor)
            if not content:
                if len(self._keys) >= KEYS_KEPT:
                    self._keys.clear()
                self._keys[(method, url, secrets)] = known
        key, redactor = known
        stored: dict[str, StoredBody] = {}
        with self._lock:
            if self.records:
                recorded, _ = self._answers(key)  # afresh: other recorders may have written it
            else:
                known_answers = self._recorded.get(key)
                if known_answers is None:
                    # the first time: the bodies come with the answers (one query), as most are read only now;
                    # only answers are kept (a body read again comes from the store's cache or the file)
                    known_answers, stored = self._answers(key, bodies=True)
                    self._recorded[key] = known_answers
                recorded = known_answers
            occurrence = self._occurrences.get(key, 0)
            self._occurrences[key] = occurrence + 1
        action = decide(self.mode, recorded, occurrence)
        if action == "replay":
            # recording serves the answer of its own occurrence; replay walks the answers, then repeats the last
            if self.records:
                answer = recorded[occurrence + 1]
            elif len(recorded) == 1:
                (answer,) = recorded.values()
            else:
                answer = list(recorded.values())[min(occurrence, len(recorded) - 1)]
            return action, key, redactor, answer, occurrence + 1, stored.get(answer[2])
        # a recorder writes its n-th occurrence as seq n; replay-or-record writes the first answer (seq 1)
        return action, key, redactor, None, occurrence + 1 if self.records else max(recorded, default=0) + 1, None

    def _answers(
        self, key: str, bodies: bool = False
    ) -> tuple[dict[int, tuple[int, dict[str, str], str]], dict[str, StoredBody]]:
        """The snapshot's answers to ``key`` by seq, with this transport's not yet committed ones; and with
        ``bodies``, the stored bodies the same query read (:meth:`Store.answers_and_bodies`)."""
        if bodies:
            answers, stored = self.store.answers_and_bodies(self.snapshot, key)
        else:
            answers, stored = self.store.answers(self.snapshot, key), {}
        pending = False
        for row in self._pending:
            if row.request_key == key and row.seq is not None and row.seq not in answers:
                answers[row.seq], pending = row.answer, True
        # the store's come in seq order; only answers still pending need a place among them
        return (dict(sorted(answers.items())) if pending else answers), stored

    def rewind(self) -> None:
        """Forget how often each request was met: the next one is its first occurrence again, as in a freshly
        opened transport (replay walks the recorded answers from the first; recording serves what is recorded)."""
        with self._lock:
            self._occurrences.clear()

    def release(self, key: str) -> None:
        """A send that failed: its occurrence is not spent (a retry is the same occurrence, not the next)."""
        with self._lock:
            if self._occurrences.get(key, 0) > 0:
                self._occurrences[key] -= 1

    def replay_answer(
        self, method: str, url: str, secrets: Iterable[str] = (), tool: str | None = None
    ) -> Replayed | None:
        """The recorded answer to a body-less request, or None when it must go through the transport.

        This is the replay fast path: no ``httpx.Request``/``Response`` is built. It
        serves exactly what :meth:`plan` would (the same request key, the same
        walk through repeated answers); a request it does not answer — not
        recorded, or a mode that sends — is left to the client, which records it
        or raises :class:`~kopa_replay.errors.CassetteMiss`. ``tool`` (the calling tool's name, what the httpx
        path reads from the ``kopa_tool`` extension) is named by the error a corrupt body raises.
        """
        if self.records:
            return None
        action, _key, _redactor, answer, _seq, stored = self.plan_raw(method, url, b"", secrets)
        if action != "replay" or answer is None:
            return None
        status, _headers, digest = answer
        return Replayed(status, digest, functools.partial(self._body, digest, tool, method, url, _redactor, stored))

    def replayed(
        self,
        request: httpx.Request,
        redactor: Redactor,
        answer: tuple[int, dict[str, str], str],
        stored: StoredBody | None = None,
    ) -> httpx.Response:
        status, headers, digest = answer
        body = self._body(digest, request.extensions.get("kopa_tool"), request.method, request.url, redactor, stored)
        return httpx.Response(
            status, headers=headers, content=body, request=request, extensions={"kopa_replayed": True}
        )

    def _body(
        self,
        digest: str,
        tool: str | None,
        method: str,
        url: str | httpx.URL,
        redactor: Redactor,
        stored: StoredBody | None = None,
    ) -> bytes:
        """A recorded body (``stored``: as the planning query read it); a corrupt one is an error naming the
        snapshot, tool and (redacted) request (``url`` is made a string only then)."""
        try:
            return self.store.body(digest, stored)
        except StoreError as exc:
            with self._lock:
                waiting = next((row.body for row in self._pending if blob_digest(row.body) == digest), None)
                if waiting is None:
                    # the commit timer may have written (and dropped from _pending) this body between the read
                    # above and the lock: no commit runs while the lock is held, so a second read settles it
                    try:
                        waiting = self.store.body(digest)
                    except StoreError:
                        pass
            if waiting is not None:
                return waiting
            where = f"tool {tool}, " if tool else ""
            raise StoreError(
                f"snapshot {self.snapshot!r}, {where}{method} {redactor.redact_url(str(url))}: {exc}"
            ) from None

    def miss(self, request: httpx.Request, redactor: Redactor) -> CassetteMiss:
        return CassetteMiss(
            tool=request.extensions.get("kopa_tool"),
            method=request.method,
            url=redactor.redact_url(str(request.url)),
            snapshot=self.snapshot,
            store=str(self.store.path),
        )

    def record(
        self, request: httpx.Request, key: str, seq: int, redactor: Redactor, response: httpx.Response, body: bytes
    ) -> httpx.Response:
        """Record ``response`` as the ``seq``-th answer to ``key`` (committed with its batch)."""
        headers = {
            k: redactor.scrub_text(v) for k, v in ((h, response.headers.get(h)) for h in KEPT_RESPONSE_HEADERS) if v
        }
        scrubbed = redactor.scrub_bytes(body)
        row = RecordedRow(
            key,
            request.extensions.get("kopa_tool"),
            request.method,
            redactor.redact_url(str(request.url)),
            redactor.redact_headers(dict(request.headers)),
            response.status_code,
            headers,
            scrubbed,
            seq,
        )
        with self._lock:
            self._recorded.pop(key, None)  # the next identical request re-reads what is now recorded
            self._pending.append(row)
            if len(self._pending) >= self.commit_every:
                self.commit()
            elif self._timer is None:
                self._timer = threading.Timer(COMMIT_WITHIN, self._commit_later)
                self._timer.daemon = True
                self._timer.start()
        # The caller gets what is stored, so a recorded run and its replay see the same bytes. (Where another
        # recorder wrote this answer first, the snapshot keeps that one: from a deterministic source, the same.)
        return httpx.Response(response.status_code, headers=headers, content=scrubbed, request=request)

    def commit(self) -> None:
        """Write the answers recorded so far (each where no other recorder already put one)."""
        with self._lock:
            if self._timer is not None:
                self._timer.cancel()
                self._timer = None
            _commit_rows(self.store, self.snapshot, self._pending)

    def _commit_later(self) -> None:
        """The timer's commit. A failure (a snapshot sealed meanwhile) is left to the next commit in the
        recording thread, which raises it where the caller sees it."""
        try:
            self.commit()
        except KopaError:
            pass
        finally:
            self.store.close()  # this thread's connection


def _commit_left_over(store: Store, snapshot: str, rows: list[RecordedRow]) -> None:
    """What a transport nobody closed still holds, committed when it is collected (or at exit). Nobody is there
    to hear an error then (a full disk the recording already reported when it stopped): it is logged, not raised."""
    try:
        _commit_rows(store, snapshot, rows)
    except KopaError as exc:
        logging.getLogger(__name__).warning(
            "%d recorded answers of snapshot %r not committed: %s", len(rows), snapshot, exc
        )


def _commit_rows(store: Store, snapshot: str, rows: list[RecordedRow]) -> None:
    """Commit ``rows`` in one transaction and empty the list (kept as one object: the finalizer holds it)."""
    if rows:
        store.put_many(snapshot, rows)
        rows.clear()


class RecordTransport(httpx.BaseTransport):
    """Record to / replay from ``store`` around ``inner`` (sync)."""

    def __init__(
        self,
        inner: httpx.BaseTransport | None,
        store: Store,
        snapshot: str,
        mode: str = "replay",
        redactor: Redactor | None = None,
        *,
        commit_every: int = COMMIT_EVERY,
    ) -> None:
        self.inner = inner
        self._core = _Core(store, snapshot, mode, redactor or Redactor(), commit_every)

    @property
    def mode(self) -> str:
        return self._core.mode

    def replay_answer(
        self, method: str, url: str, secrets: Iterable[str] = (), tool: str | None = None
    ) -> Replayed | None:
        """See :meth:`_Core.replay_answer`: a recorded answer without building httpx objects."""
        return self._core.replay_answer(method, url, secrets, tool)

    def rewind(self) -> None:
        """See :meth:`_Core.rewind`: every request is met for the first time again."""
        self._core.rewind()

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        action, key, redactor, interaction, seq, stored = self._core.plan(request)
        if action == "replay":
            assert interaction is not None  # plan() hands an answer with every "replay"
            return self._core.replayed(request, redactor, interaction, stored)
        if action == "miss" or self.inner is None:
            raise self._core.miss(request, redactor)
        try:
            response = self.inner.handle_request(request)
            body = response.read()
            response.close()
        except BaseException:
            self._core.release(key)
            raise
        return self._core.record(request, key, seq, redactor, response, body)

    def commit(self) -> None:
        """Commit the recorded answers now (closing the transport does)."""
        self._core.commit()

    def close(self) -> None:
        self._core.commit()
        if self.inner is not None:
            self.inner.close()


class AsyncRecordTransport(httpx.AsyncBaseTransport):
    """The async twin of :class:`RecordTransport` (same core)."""

    def __init__(
        self,
        inner: httpx.AsyncBaseTransport | None,
        store: Store,
        snapshot: str,
        mode: str = "replay",
        redactor: Redactor | None = None,
        *,
        commit_every: int = COMMIT_EVERY,
    ) -> None:
        self.inner = inner
        self._core = _Core(store, snapshot, mode, redactor or Redactor(), commit_every)

    def replay_answer(
        self, method: str, url: str, secrets: Iterable[str] = (), tool: str | None = None
    ) -> Replayed | None:
        """See :meth:`_Core.replay_answer` (no I/O besides the store, so it need not be awaited)."""
        return self._core.replay_answer(method, url, secrets, tool)

    def rewind(self) -> None:
        """See :meth:`_Core.rewind` (no I/O, so it need not be awaited)."""
        self._core.rewind()

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        await request.aread()
        action, key, redactor, interaction, seq, stored = self._core.plan(request)
        if action == "replay":
            assert interaction is not None  # plan() hands an answer with every "replay"
            return self._core.replayed(request, redactor, interaction, stored)
        if action == "miss" or self.inner is None:
            raise self._core.miss(request, redactor)
        try:
            response = await self.inner.handle_async_request(request)
            body = await response.aread()
            await response.aclose()
        except BaseException:
            self._core.release(key)
            raise
        return self._core.record(request, key, seq, redactor, response, body)

    def commit(self) -> None:
        """Commit the recorded answers now (closing the transport does)."""
        self._core.commit()

    async def aclose(self) -> None:
        self._core.commit()
        if self.inner is not None:
            await self.inner.aclose()
