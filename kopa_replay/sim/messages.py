"""The simulator's view of one HTTP exchange, independent of httpx or a socket.

Both the in-process httpx transport and the loopback server turn what they
receive into a :class:`SimRequest` and send back the :class:`SimResponse`, so
the two paths cannot disagree.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from urllib.parse import parse_qsl, quote, urlsplit

__all__ = ["SimRequest", "SimResponse", "DEFAULT_SECRET_PARAMS"]

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
        parts = urlsplit(target)
        segments = parts.path.lstrip("/").split("/", 1)
        # A client rerouted with the host kept as written may keep its port too
        # (Seoul's real base URL is openapi.seoul.go.kr:8088): the host is the name alone.
        host = segments[0].lower().split(":", 1)[0]
        path = "/" + (segments[1] if len(segments) > 1 else "")
        return cls(
            method.upper(),
            host,
            path,
            tuple(parse_qsl(parts.query, keep_blank_values=True)),
            {k.lower(): v for k, v in (headers or {}).items()},
            body,
        )

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
        secrets = {s.lower() for s in secret_params}
        segments = set(secret_segments)
        path = "/".join("{key}" if seg in segments else seg for seg in self.path.split("/"))
        query = sorted((k, v) for k, v in self.query if k.lower() not in secrets)
        text = "\n".join(
            [self.method, self.host, path, *(f"{k}={v}" for k, v in query), hashlib.sha256(self.body).hexdigest()]
        )
        return hashlib.sha256(text.encode()).hexdigest()

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
