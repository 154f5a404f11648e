"""The simulator: a deterministic function of (seed, as-of date, request).

:meth:`Simulator.handle` takes a :class:`SimRequest` on a real host and path
and returns the platform's answer. The steps, in order: route to an endpoint;
draw an environmental fault for (seed, request, attempt); check the API key;
check required parameters; ask the endpoint's handler for the full result
from the seeded world; apply dated drift; cut the requested page; let the
protocol spell the envelope; serialize.
"""

from __future__ import annotations

import datetime as dt
import os
import threading
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import replace
from typing import Any
from urllib.parse import urlencode

from kopa_replay.errors import SimError
from kopa_replay.sim.core import (
    BadParam,
    Context,
    Doc,
    ErrorKind,
    MissingParam,
    NoData,
    Query,
    serialize,
)
from kopa_replay.sim.faults import fault_for
from kopa_replay.sim.incidents import Incident, IncidentKind, incident_for, parse_incidents
from kopa_replay.sim.messages import SimRequest, SimResponse
from kopa_replay.sim.registry import Registry, registry
from kopa_replay.sim.timeline import HISTORY, TIMELINE, ActiveDrift, DriftEvent
from kopa_replay.sim.world import World

__all__ = ["Simulator", "DEFAULT_AS_OF", "DEFAULT_KEY", "accepted_key"]

#: The as-of date of the shipped snapshot.
DEFAULT_AS_OF = dt.date(2026, 9, 1)
#: The key the simulator accepts unless KOPA_API_KEY says otherwise.
DEFAULT_KEY = "sim-key"

_HTTP_FAULTS = {
    "http_500": (500, "Internal Server Error"),
    "http_502": (502, "Bad Gateway"),
    "http_504": (504, "Gateway Timeout"),
}


_HTML = "text/html;charset=UTF-8"
#: the HTML an incident answers with: status, title, body text (a person's browser would show them)
_INCIDENT_PAGES = {
    "bot_wall": (
        403,
        "Access Denied",
        "자동화된 요청으로 판단되어 차단되었습니다. (Request blocked: automated client)",
    ),
    "referer_required": (200, "잘못된 접근", "허용되지 않은 경로로 접근하셨습니다. (Referer required)"),
    "html_page": (200, "시스템 점검 안내", "보다 나은 서비스를 위하여 시스템 점검 중입니다."),
    "js_challenge": (
        200,
        "Just a moment...",
        '<script>document.cookie="__chl=1; path=/";location.replace("/challenge?redirect=1")</script>'
        "<noscript>Please enable JavaScript and cookies to continue.</noscript>",
    ),
}
#: data.go.kr's gateway codes for its incidents (sim.protocols.DATAGOKR_CODES)
_GATEWAY_REASONS = {"gateway_key_unregistered": "30", "gateway_quota": "22", "gateway_access_denied": "20"}


def _page(title: str, text: str) -> bytes:
    return (
        f'<!DOCTYPE html><html><head><meta charset="utf-8"><title>{title}</title></head>'
        f"<body><h1>{title}</h1><p>{text}</p></body></html>"
    ).encode()


def _echoed_url(request: SimRequest) -> str:
    """The request's URL as the platform echoes it back, key and all."""
    return f"https://{request.host}{request.path}" + (f"?{urlencode(request.query)}" if request.query else "")


def accepted_key() -> str:
    """The key the simulator accepts: KOPA_API_KEY when set, else ``sim-key``."""
    return os.environ.get("KOPA_API_KEY") or DEFAULT_KEY


def _as_date(value: dt.date | str | None) -> dt.date:
    if value is None:
        return DEFAULT_AS_OF
    if isinstance(value, dt.date):
        return value
    try:
        return dt.date.fromisoformat(str(value))
    except ValueError:
        raise SimError(f"as-of date must be YYYY-MM-DD, not {value!r}") from None


#: full results kept (least recently used out): more than the built-in catalog's examples (≈850), so a workload
#: that cycles through every tool's examples — a recording, a benchmark — answers each from memory after the first
#: round; long results are lazy sequences (a page made on demand), so an entry is small whatever the world's size
_CACHED_ANSWERS = 4096
#: finished answers kept, by bytes (least recently used out), and the largest one kept: a recording, a benchmark or
#: a pruning loop asks the same requests again and again
_ANSWERS_BYTES = 64 * 2**20
_ANSWER_MAX_BYTES = 4 * 2**20
#: requests remembered as they came (each a small tuple beside its answer's key)
_FRONT_KEYS = 65536


class Simulator:
    """The ten simulated platforms over one seeded world.

    ``fault_rate`` is the probability that an attempt fails environmentally;
    ``drift=False`` serves every tool as it was at 2026-09-01 whatever the
    as-of date. Thread-safe: the loopback server shares one instance.
    """

    def __init__(
        self,
        seed: int = 0,
        as_of: dt.date | str | None = None,
        *,
        fault_rate: float = 0.0,
        api_key: str | None = None,
        world_size: str | None = None,
        drift: bool = True,
        timeline: tuple[DriftEvent, ...] = TIMELINE,
        registry_: Registry | None = None,
        incidents: tuple[Incident, ...] | str = (),
    ) -> None:
        if not 0.0 <= float(fault_rate) <= 1.0:
            raise SimError(f"fault rate must be between 0 and 1, not {fault_rate}")
        self.seed = seed
        self.as_of = _as_date(as_of)
        self.fault_rate = float(fault_rate)
        self.incidents = parse_incidents(incidents) if isinstance(incidents, str) else tuple(incidents)
        self.api_key = api_key or accepted_key()
        self.world = World(seed, world_size)
        # The renames from before 2026-09-01 are how the platforms came to be as the catalog describes them: they
        # hold under any timeline, and without drift (the platforms as they were at 2026-09-01).
        self.timeline = HISTORY + tuple(e for e in timeline if e not in HISTORY) if drift else HISTORY
        self.registry = registry_ or registry()
        self._attempts: dict[str, int] = {}
        self._cache: OrderedDict[tuple, Sequence[dict[str, Any]]] = OrderedDict()
        self._answers: OrderedDict[tuple[str, str], SimResponse] = OrderedDict()
        #: a request as it came (key included) → its answer's key in ``_answers``, when nothing is drawn
        self._front: dict[tuple, tuple[str, str]] = {}
        self._key_headers: tuple[str, ...] | None = None
        self._answer_bytes = 0
        self._lock = threading.Lock()

    # -- attempts ---------------------------------------------------------
    def _next_attempt(self, identity: str) -> int:
        with self._lock:
            attempt = self._attempts.get(identity, 0) + 1
            self._attempts[identity] = attempt
            return attempt

    def reset_attempts(self) -> None:
        """Forget attempt counts (a fresh run sees the same faults again)."""
        with self._lock:
            self._attempts.clear()

    # -- the request path -------------------------------------------------
    def handle(self, request: SimRequest) -> SimResponse:
        # Without faults or incidents the answer to a request is a pure function of it (the attempt does not count):
        # a request met before goes straight to its finished answer, past routing, drift and hashing
        front = self._front_key(request) if not self.fault_rate and not self.incidents else None
        if front is not None:
            answered = self._remembered(front)
            if answered is not None:
                return answered
        protocol = self.registry.hosts.get(request.host)
        if protocol is None:
            return SimResponse(404, f"unknown host {request.host}".encode(), "text/plain;charset=UTF-8")
        route, path_params = protocol.route(request)
        endpoint = self.registry.find(request.host, route)
        proto = endpoint.protocol if endpoint is not None else protocol
        xml = proto.wants_xml(request, endpoint, path_params)
        drift = ActiveDrift.at(endpoint.tool if endpoint else None, self.as_of, self.timeline)
        ctx = Context(request, endpoint, path_params, xml, drift)

        secret_segments = [path_params["key"]] if "key" in path_params else []
        identity = request.identity(secret_segments=secret_segments)
        header_attempt = request.headers.get("x-kopa-attempt", "")
        attempt = int(header_attempt) if header_attempt.isdigit() else self._next_attempt(identity)
        incident = (
            incident_for(self.incidents, self.seed, request.host, identity, attempt, self.as_of, request.headers)
            if self.incidents
            else None
        )
        if incident is not None and incident.name != "key_echo":
            return self._incident(ctx, proto, incident)
        fault = fault_for(self.seed, identity, attempt, self.fault_rate)
        if fault in _HTTP_FAULTS:
            status, text = _HTTP_FAULTS[fault]
            return SimResponse(
                status, f"<html><body><h1>{status} {text}</h1></body></html>".encode(), "text/html;charset=UTF-8"
            )

        key = proto.api_key(request, path_params)
        if key != self.api_key and key not in proto.public_keys and not proto.keyless(request, path_params):
            return self._finish(ctx, proto.error(ctx, ErrorKind.INVALID_KEY))
        if fault is not None:
            return self._finish(ctx, proto.error(ctx, fault))
        # past the key and the faults the answer is a pure function of the request (its identity leaves the key
        # out, so the kind of key that opened it is part of what it is: a sample key gets five rows)
        kind = "key" if key == self.api_key else key if key in proto.public_keys else "keyless"
        response = self._cached_answer(ctx, proto, endpoint, route, drift, (identity, kind))
        if front is not None:
            with self._lock:
                self._front[front] = (identity, kind)
                if len(self._front) > _FRONT_KEYS:
                    self._front.clear()  # refilled as requests come again: cheaper than keeping an order
        if incident is not None:  # key_echo: the answer, and the key in a link beside it
            link = f'<{_echoed_url(request)}>; rel="self"'
            return replace(response, extra_headers=(*response.extra_headers, ("link", link)))
        return response

    def remembered(self, request: SimRequest) -> SimResponse | None:
        """:meth:`handle`'s answer when it is a request met before and nothing is drawn (no faults, no incidents),
        without making anything; None when the answer must be made (call :meth:`handle`). Cheap: a server answers
        what is remembered in its loop and sends the rest to a worker thread."""
        if self.fault_rate or self.incidents:
            return None
        return self._remembered(self._front_key(request))

    def _remembered(self, front: tuple) -> SimResponse | None:
        with self._lock:
            answer_key = self._front.get(front)
            answered = self._answers.get(answer_key) if answer_key is not None else None
            if answered is not None:
                self._answers.move_to_end(answer_key)  # type: ignore[arg-type]
            return answered

    def _front_key(self, request: SimRequest) -> tuple:
        """Everything of a request its answer depends on when nothing is drawn: method, host, path, query (the key
        included), body, and the headers a platform reads a key from."""
        if self._key_headers is None:
            names = {p.key_header for p in self.registry.hosts.values() if getattr(p, "key_header", None)}
            names |= {e.protocol.key_header for e in self.registry.endpoints if getattr(e.protocol, "key_header", None)}
            self._key_headers = tuple(sorted(str(n).lower() for n in names))
        headers = tuple(request.headers.get(name) for name in self._key_headers)
        return (request.method, request.host, request.path, request.query, request.body, headers)

    def _cached_answer(
        self, ctx: Context, proto: Any, endpoint: Any, route: str, drift: ActiveDrift, answer_key: tuple[str, str]
    ) -> SimResponse:
        with self._lock:
            answered = self._answers.get(answer_key)
            if answered is not None:
                self._answers.move_to_end(answer_key)
                return answered
        response = self._answer(ctx, proto, endpoint, route, drift)
        if len(response.body) <= _ANSWER_MAX_BYTES:
            with self._lock:
                if answer_key not in self._answers:  # another thread may have answered it meanwhile
                    self._answers[answer_key] = response
                    self._answer_bytes += len(response.body)
                while self._answer_bytes > _ANSWERS_BYTES and self._answers:
                    _, dropped = self._answers.popitem(last=False)
                    self._answer_bytes -= len(dropped.body)
        return response

    def _incident(self, ctx: Context, proto: Any, incident: IncidentKind) -> SimResponse:
        """What the platform answers a request an incident struck (see :mod:`kopa_replay.sim.incidents`)."""
        name = incident.name
        if incident.gateway:
            return serialize(proto.gateway(ctx, _GATEWAY_REASONS[name]))
        if name == "empty_body":
            return SimResponse(200, b"", "text/xml;charset=UTF-8" if ctx.xml else "application/json;charset=UTF-8")
        if name == "empty_document":
            if ctx.xml:
                return SimResponse(200, b'<?xml version="1.0" encoding="UTF-8"?><response/>', "text/xml;charset=UTF-8")
            return SimResponse(200, b"{}", "application/json;charset=UTF-8")
        if name == "retry_storm":
            return SimResponse(503, _page("503 Service Unavailable", "upstream busy"), _HTML, (("retry-after", "0"),))
        status, title, text = _INCIDENT_PAGES[name]
        return SimResponse(status, _page(title, text), _HTML)

    def _answer(self, ctx: Context, proto: Any, endpoint: Any, route: str, drift: ActiveDrift) -> SimResponse:
        """The answer to a request that passed the key and drew no fault."""
        if endpoint is None:
            return self._finish(ctx, proto.error(ctx, ErrorKind.NOT_FOUND, route))
        params = proto.params(ctx)
        try:
            for name in endpoint.required:
                if not (params.get(name) or "").strip():
                    raise MissingParam(name)
            doc = proto.page(ctx, self._records(endpoint, params, drift), params)
        except NoData:
            doc = proto.error(ctx, ErrorKind.NO_DATA)
        except MissingParam as exc:
            doc = proto.error(ctx, ErrorKind.MISSING_PARAM, exc.name)
        except BadParam as exc:
            doc = proto.error(ctx, ErrorKind.BAD_PARAM, exc.name)
        return self._finish(ctx, doc)

    def _finish(self, ctx: Context, doc: Doc) -> SimResponse:
        return serialize(ctx.drift.apply_doc(doc))

    def _records(self, endpoint, params: dict[str, str], drift: ActiveDrift) -> Sequence[dict[str, Any]]:
        """The handler's full result as the drift in force shapes it; cached because pages of one list share it
        (the drift of a tool is fixed for this simulator: its as-of date and timeline)."""
        paging = set(getattr(endpoint.protocol, "paging_params", ()))
        key = (endpoint.tool, tuple(sorted((k, v) for k, v in params.items() if k not in paging)))
        with self._lock:
            if key in self._cache:
                self._cache.move_to_end(key)
                return self._cache[key]
        records = drift.apply_records(endpoint.handler(self.world, Query(params, self.as_of)))
        with self._lock:
            self._cache[key] = records
            if len(self._cache) > _CACHED_ANSWERS:
                self._cache.popitem(last=False)
        return records

    # -- conveniences -----------------------------------------------------
    def get(self, url: str, headers: dict[str, str] | None = None) -> SimResponse:
        """Handle a GET of an absolute URL on a real host."""
        return self.handle(SimRequest.from_url("GET", url, headers))

    def drift_events(self, since: dt.date | None = None, until: dt.date | None = None) -> list[DriftEvent]:
        from kopa_replay.sim.timeline import events_between

        return events_between(since, until, self.timeline)
