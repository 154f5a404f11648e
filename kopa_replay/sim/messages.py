"""The simulator's view of one HTTP exchange, independent of httpx or a socket.

Both the in-process httpx transport and the loopback server turn what they
receive into a :class:`SimRequest` and send back the :class:`SimResponse`, so
the two paths cannot disagree.
"""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from urllib.parse import parse_qsl, quote, urlsplit

__all__ = ["SimRequest", "SimResponse", "DEFAULT_SECRET_PARAMS"]

#: how many distinct request targets and identities are remembered: a recording, a benchmark or a pruning loop asks
#: the same requests again and again, and parsing and hashing them again is most of what the simulator adds to a call
_REMEMBERED = 65536


@functools.lru_cache(maxsize=_REMEMBERED)
def _split_target(target: str) -> tuple[str, str, tuple[tuple[str, str], ...]]:
    """(host, path, query) of a loopback request target whose first path segment is the real host name."""
    parts = urlsplit(target)
    segments = parts.path.lstrip("/").split("/", 1)
    # A client rerouted with the host kept as written may keep its port too
    # (Seoul's real base URL is openapi.seoul.go.kr:8088): the host is the name alone.
    host = segments[0].lower().split(":", 1)[0]
    path = "/" + (segments[1] if len(segments) > 1 else "")
    return host, path, tuple(parse_qsl(parts.query, keep_blank_values=True))


@functools.lru_cache(maxsize=_REMEMBERED)
def _identity(
    method: str,
    host: str,
    path: str,
    query: tuple[tuple[str, str], ...],
    body: bytes,
    secret_params: frozenset[str],
    secret_segments: frozenset[str],
) -> str:
    """:meth:`SimRequest.identity`, a pure function of its parts (so remembered)."""
    secrets = {s.lower() for s in secret_params}
    path = "/".join("{key}" if seg in secret_segments else seg for seg in path.split("/"))
    kept = sorted((k, v) for k, v in query if k.lower() not in secrets)
    text = "\n".join([method, host, path, *(f"{k}={v}" for k, v in kept), hashlib.sha256(body).hexdigest()])
    return hashlib.sha256(text.encode()).hexdigest()


#: Parameters that carry API keys on the real platforms; they never take part
#: in a request's identity (faults, attempt counting) and never reach a log.
DEFAULT_SECRET_PARAMS = frozenset(
    {"crtfc_key", "servicekey", "key", "oc", "auth_key", "apikey", "authorization", "cookie"}
)


@dataclass(frozen=True)
class SimRequest:
    """One request as the simulator sees it: the real host and path, decoded query."""

    method: str
    host: str
    path: str
    query: tuple[tuple[str, str], ...] = ()
    headers: Mapping[str, str] = field(default_factory=dict)
    body: bytes = b""

    @classmethod
    def from_url(
        cls, method: str, url: str, headers: Mapping[str, str] | None = None, body: bytes = b""
    ) -> "SimRequest":
        """From an absolute URL on the real host (``https://opendart.fss.or.kr/api/...``)."""
        parts = urlsplit(url)
        host = (parts.hostname or "").lower()
        return cls(
            method.upper(),
            host,
            parts.path or "/",
            tuple(parse_qsl(parts.query, keep_blank_values=True)),
            {k.lower(): v for k, v in (headers or {}).items()},
            body,
        )

    @classmethod
    def from_loopback(
        cls, method: str, target: str, headers: Mapping[str, str] | None = None, body: bytes = b""
    ) -> "SimRequest":
        """From a loopback request target whose first path segment is the real host name."""
        return cls.from_target(method.upper(), target, {k.lower(): v for k, v in (headers or {}).items()}, body)

    @classmethod
    def from_target(cls, method: str, target: str, headers: Mapping[str, str], body: bytes = b"") -> "SimRequest":
        """:meth:`from_loopback` for a caller whose ``headers`` already answer ``get`` of a lower-case name (a dict of
        lower-case names, or ``httpx.Headers``, which compares names case-insensitively): nothing is copied."""
        host, path, query = _split_target(target)
        return cls(method, host, path, query, headers, body)

    def param(self, name: str, default: str | None = None) -> str | None:
        """First query value of ``name`` (exact name)."""
        for key, value in self.query:
            if key == name:
                return value
        return default

    def param_ci(self, *names: str) -> str | None:
        """First query value of any of ``names``, compared case-insensitively."""
        wanted = {n.lower() for n in names}
        for key, value in self.query:
            if key.lower() == wanted or key.lower() in wanted:
                return value
        return None

    def params(self) -> dict[str, str]:
        """Query as a dict (first value of each name wins)."""
        out: dict[str, str] = {}
        for key, value in self.query:
            out.setdefault(key, value)
        return out

    def identity(
        self, secret_params: Iterable[str] = DEFAULT_SECRET_PARAMS, secret_segments: Iterable[str] = ()
    ) -> str:
        """A digest of method, host, path and sorted query without secrets.

        Path segments equal to a known secret (Seoul puts the key in the path)
        are replaced before hashing.
        """
        return _identity(
            self.method,
            self.host,
            self.path,
            self.query,
            self.body,
            frozenset(secret_params),
            frozenset(secret_segments),
        )

    def redacted_url(
        self, secret_params: Iterable[str] = DEFAULT_SECRET_PARAMS, secret_segments: Iterable[str] = ()
    ) -> str:
        """The URL with every secret replaced by ``***`` (safe for messages and logs)."""
        secrets = {s.lower() for s in secret_params}
        segments = set(secret_segments)
        path = "/".join("***" if seg in segments and seg else seg for seg in self.path.split("/"))
        query = "&".join(f"{k}={'***' if k.lower() in secrets else quote(v, safe='')}" for k, v in self.query)
        return f"https://{self.host}{path}" + (f"?{query}" if query else "")


@dataclass(frozen=True)
class SimResponse:
    """Status, headers and body bytes; a pure value."""

    status: int
    body: bytes
    content_type: str = "application/json;charset=UTF-8"
    extra_headers: tuple[tuple[str, str], ...] = ()

    @property
    def headers(self) -> list[tuple[str, str]]:
        return [("content-type", self.content_type), *self.extra_headers]

    @functools.cached_property
    def raw_headers(self) -> tuple[tuple[bytes, bytes], ...]:
        """:attr:`headers` and the content length as Latin-1 bytes, as they go on the wire (what the loopback server
        sends). Made once per answer: a remembered answer is sent again and again."""
        return (
            *((name.encode("latin-1"), value.encode("latin-1")) for name, value in self.headers),
            (b"content-length", str(len(self.body)).encode("ascii")),
        )
