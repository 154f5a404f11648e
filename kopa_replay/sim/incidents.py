"""Incidents: the failures live platforms have beyond a 5xx, as seeded, dated faults per platform.

Each kind is one a client of the real services meets (the change log of a widely used MCP server over law.go.kr
lists most of them; data.go.kr answers its gateway errors in XML to JSON requests):

============================  =====================================================  ===========  ==============
kind                          what the platform answers                              persists?    the truth
============================  =====================================================  ===========  ==============
``bot_wall``                  403 HTML "Access Denied" to a library's default         yes          blocked
                              User-Agent (python-httpx, requests, curl …)
``referer_required``          200 HTML refusal to a request without a Referer         yes          blocked
``empty_body``                200 with no body at all                                 no           blocked
``html_page``                 200 HTML notice page (시스템 점검 안내) instead of data   no           blocked
``js_challenge``              200 HTML whose script sets a cookie and redirects       yes          blocked
                              (an anti-bot wall in front of cloud addresses)
``empty_document``            200 ``{}`` / ``<response/>``: a failure a naive client   no           blocked
                              reads as "0 results"
``retry_storm``               503 to the first three attempts of every call, then     3 attempts   environmental
                              the answer (an upstream change: every call retried 4×)
``key_echo``                  the answer, with the key echoed in a ``Link`` header     yes          ok
``gateway_key_unregistered``  data.go.kr: SERVICE_KEY_IS_NOT_REGISTERED_ERROR (30)     no           environmental
``gateway_quota``             data.go.kr: LIMITED_NUMBER_OF_SERVICE_REQUESTS_… (22)    no           environmental
``gateway_access_denied``     data.go.kr: SERVICE_ACCESS_DENIED_ERROR (20)             no           environmental
============================  =====================================================  ===========  ==============

"persists" says whether a retry can get past it: a persistent incident is drawn per request (every attempt of a
request meets it while its dates last), a passing one per attempt (a retry draws again). The gateway kinds exist
on apis.data.go.kr only. "the truth" is what the simulator knows the answer to be; the environment classifies
responses from the catalog's format and envelope alone (:mod:`kopa_replay.env.call`) and the confusion matrix
(``benchmarks/bench_incidents.py``) compares the two.

A schedule is a tuple of :class:`Incident` (kind, rate, hosts, dates). :func:`parse_incidents` reads one from
a command line: ``dated`` (:data:`DATED`, a year of incidents on the ten platforms), or entries
``KIND=RATE[@HOST][:FROM..TO]`` joined by commas (``all=0.1``: every kind the host has, one kind per request, at
10 %; ``bot_wall=1@www.law.go.kr:2026-10-05..2026-10-12``: a week's wall on one platform).
"""

from __future__ import annotations

import datetime as dt
import hashlib
from collections.abc import Mapping
from dataclasses import dataclass

from kopa_replay.errors import SimError

__all__ = [
    "DATED",
    "GATEWAY_HOST",
    "INCIDENT_KINDS",
    "Incident",
    "IncidentKind",
    "incident_for",
    "parse_incidents",
]

#: where the data.go.kr gateway answers (its own error codes are its own incidents)
GATEWAY_HOST = "apis.data.go.kr"
#: User-Agent prefixes a bot wall takes for a script, not a person (compared lower-case)
_DEFAULT_AGENTS = (
    "python-httpx/",
    "python-requests/",
    "python-urllib/",
    "aiohttp/",
    "curl/",
    "wget/",
    "go-http-client/",
    "okhttp/",
    "java/",
)
#: attempts a retry storm fails before the answer comes
STORM_ATTEMPTS = 3


@dataclass(frozen=True)
class IncidentKind:
    name: str
    truth: str  # the class the answer really is: blocked, environmental or ok
    persistent: bool  # every attempt of a request meets it (a retry cannot get past it)
    gateway: bool = False  # on the data.go.kr gateway only


INCIDENT_KINDS: Mapping[str, IncidentKind] = {
    k.name: k
    for k in (
        IncidentKind("bot_wall", "blocked", True),
        IncidentKind("referer_required", "blocked", True),
        IncidentKind("empty_body", "blocked", False),
        IncidentKind("html_page", "blocked", False),
        IncidentKind("js_challenge", "blocked", True),
        IncidentKind("empty_document", "blocked", False),
        IncidentKind("retry_storm", "environmental", True),
        IncidentKind("key_echo", "ok", True),
        IncidentKind("gateway_key_unregistered", "environmental", False, gateway=True),
        IncidentKind("gateway_quota", "environmental", False, gateway=True),
        IncidentKind("gateway_access_denied", "environmental", False, gateway=True),
    )
}


@dataclass(frozen=True)
class Incident:
    """``kind`` strikes a request to ``hosts`` (all when empty) with probability ``rate`` from ``start`` to
    ``end`` (inclusive; open when None). ``kind`` ``all`` strikes with one kind per request, drawn from those
    its host has."""

    kind: str
    rate: float
    hosts: tuple[str, ...] = ()
    start: dt.date | None = None
    end: dt.date | None = None

    def __post_init__(self) -> None:
        if self.kind != "all" and self.kind not in INCIDENT_KINDS:
            raise SimError(f"unknown incident kind {self.kind!r} (kinds: all, {', '.join(INCIDENT_KINDS)})")
        if not 0.0 <= float(self.rate) <= 1.0:
            raise SimError(f"incident {self.kind}: rate must be between 0 and 1, not {self.rate}")

    def covers(self, host: str, as_of: dt.date) -> bool:
        if self.hosts and host not in self.hosts:
            return False
        return (self.start is None or self.start <= as_of) and (self.end is None or as_of <= self.end)


def _d(text: str) -> dt.date:
    return dt.date.fromisoformat(text)


#: A year of incidents on the ten platforms, after the shipped snapshot's 2026-09-01 (a refresh dated inside one
#: meets it; a refresh after it fills what it kept out).
DATED: tuple[Incident, ...] = (
    Incident("html_page", 0.3, ("www.law.go.kr",), _d("2026-09-20"), _d("2026-09-21")),
    Incident("key_echo", 1.0, ("www.law.go.kr",), _d("2026-09-15")),
    Incident("bot_wall", 1.0, ("www.law.go.kr",), _d("2026-10-05"), _d("2026-10-12")),
    Incident("empty_body", 0.3, ("www.law.go.kr",), _d("2026-10-20"), _d("2026-10-22")),
    Incident("referer_required", 1.0, ("www.law.go.kr",), _d("2026-11-02"), _d("2026-11-06")),
    Incident("retry_storm", 1.0, ("www.law.go.kr",), _d("2026-11-20"), _d("2026-11-27")),
    Incident("gateway_key_unregistered", 0.5, (GATEWAY_HOST,), _d("2026-10-01"), _d("2026-10-01")),
    Incident("gateway_quota", 0.1, (GATEWAY_HOST,), _d("2026-10-15"), _d("2026-10-16")),
    Incident("gateway_access_denied", 0.05, (GATEWAY_HOST,), _d("2026-11-10"), _d("2026-11-11")),
    Incident("js_challenge", 1.0, ("opendart.fss.or.kr",), _d("2026-10-26"), _d("2026-10-28")),
    Incident("empty_document", 0.2, ("openapi.seoul.go.kr",), _d("2026-09-25"), _d("2026-09-26")),
    Incident("html_page", 0.2, ("open.neis.go.kr",), _d("2026-12-01"), _d("2026-12-01")),
    Incident("empty_body", 0.1, ("data-dbg.krx.co.kr",), _d("2026-11-16"), _d("2026-11-17")),
)


def parse_incidents(spec: str | None) -> tuple[Incident, ...]:
    """A schedule from its command-line spelling (see the module docstring); ``""``/None/``none``: no incidents."""
    text = (spec or "").strip()
    if text in ("", "none"):
        return ()
    if text == "dated":
        return DATED
    schedule = []
    for entry in text.split(","):
        body, dated, dates = entry.strip().partition(":")
        kind, sep, rest = body.partition("=")
        rate_text, _, host = rest.partition("@")
        if not sep or not kind:
            raise SimError(f"incident {entry.strip()!r}: write KIND=RATE[@HOST][:FROM..TO] (or 'dated')")
        try:
            rate = float(rate_text)
        except ValueError:
            raise SimError(f"incident {entry.strip()!r}: rate {rate_text!r} is not a number") from None
        start, end = _dates(entry.strip(), dates) if dated else (None, None)
        schedule.append(Incident(kind.strip(), rate, (host.strip().lower(),) if host.strip() else (), start, end))
    return tuple(schedule)


def _dates(entry: str, text: str) -> tuple[dt.date | None, dt.date | None]:
    """``FROM..TO`` (either side may be left out: open) as dates, inclusive."""
    first, sep, last = text.partition("..")
    if not sep:
        raise SimError(f"incident {entry!r}: dates are FROM..TO (YYYY-MM-DD, either may be left out)")
    try:
        start = dt.date.fromisoformat(first.strip()) if first.strip() else None
        end = dt.date.fromisoformat(last.strip()) if last.strip() else None
    except ValueError:
        raise SimError(f"incident {entry!r}: dates are FROM..TO, each YYYY-MM-DD") from None
    if start and end and end < start:
        raise SimError(f"incident {entry!r}: it ends ({end}) before it begins ({start})")
    return start, end


def _draw(seed: int, kind: str, identity: str, attempt: int) -> tuple[float, int]:
    digest = hashlib.sha256(f"incident|{seed}|{kind}|{identity}|{attempt}".encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2**64, digest[8]


def _applies(kind: IncidentKind, host: str, headers: Mapping[str, str]) -> bool:
    if kind.gateway and host != GATEWAY_HOST:
        return False
    if kind.name == "bot_wall":
        agent = headers.get("user-agent", "").strip().lower()
        return not agent or agent.startswith(_DEFAULT_AGENTS)
    if kind.name == "referer_required":
        return not headers.get("referer", "").strip()
    return True


def incident_for(
    schedule: tuple[Incident, ...],
    seed: int,
    host: str,
    identity: str,
    attempt: int,
    as_of: dt.date,
    headers: Mapping[str, str],
) -> IncidentKind | None:
    """The incident this attempt of this request meets, or None: the first entry of ``schedule`` in force that
    strikes, a failure before a key echo (an echo rides on an answer, so a failure leaves nothing to echo in). A pure
    function of its arguments."""
    echo = None
    for entry in schedule:
        if entry.rate <= 0 or not entry.covers(host, as_of):
            continue
        if entry.kind == "all":
            kinds = [k for k in INCIDENT_KINDS.values() if _applies(k, host, headers)]
            if not kinds:
                continue
            _, pick = _draw(seed, "all", identity, 0)  # one kind per request, whatever the attempt
            kind = kinds[pick % len(kinds)]
        else:
            kind = INCIDENT_KINDS[entry.kind]
            if not _applies(kind, host, headers):
                continue
        draw, _ = _draw(seed, kind.name, identity, 0 if kind.persistent else attempt)
        if draw >= entry.rate:
            continue
        if kind.name == "retry_storm" and attempt > STORM_ATTEMPTS:
            continue
        if kind.name == "key_echo":
            echo = echo or kind
            continue
        return kind
    return echo
