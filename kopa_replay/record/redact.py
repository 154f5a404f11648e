"""Keep API keys out of everything the recorder writes, logs or raises.

Keys ride in query parameters (crtfc_key, serviceKey, KEY, OC, apiKey …), in
headers (AUTH_KEY, Authorization) and in path segments (Seoul puts the key in
the path); some platforms echo them back inside response bodies (law.go.kr's
detail links carry the caller's OC). A :class:`Redactor` knows the secret
parameter and header names (a default list plus the catalog's) and the secret
*values* in use, and replaces every occurrence with ``***`` — by name where a
name is known, by value everywhere else (paths, bodies, messages).

It also computes a request's identity: method, host, path and sorted query
with secrets and configured noise parameters removed, plus a body digest.
"""

from __future__ import annotations

import functools
import hashlib
import json
import logging
import os
import re
import threading
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Mapping
from urllib.parse import parse_qsl, quote, quote_plus, unquote, urlencode, urlsplit
from xml.sax.saxutils import escape

__all__ = [
    "MASK",
    "DEFAULT_SECRET_PARAMS",
    "DEFAULT_SECRET_HEADERS",
    "Redactor",
    "redactor_for",
    "register_secret",
    "SecretLogFilter",
    "echo_forms",
]

MASK = "***"
_MASK_BYTES = MASK.encode()
#: the shortest value masked wherever it occurs inside text; a shorter one is masked where it is a whole token of
#: a URL: a path segment of an absolute URL (``scheme://host/…``), a parameter value (``=`` … :data:`VALUE_END`)
#: anywhere, a whole header value
MIN_SECRET_LENGTH = 6
#: what ends a parameter value: the next parameter (``&``, ``;``), a fragment, the end of a quoted or tagged value,
#: an escape (JSON ``\u0026``), white space, or the end of the text
VALUE_END = "&#;\"'<>\\ \t\r\n"
DEFAULT_SECRET_PARAMS = frozenset({"crtfc_key", "servicekey", "key", "oc", "auth_key", "apikey"})
DEFAULT_SECRET_HEADERS = frozenset({"auth_key", "authorization", "cookie", "set-cookie", "x-api-key"})
#: environment variables whose values are keys wherever they appear
KEY_ENV_VARS = ("KOPA_API_KEY",)


@dataclass(frozen=True)
class Redactor:
    """Names and values to mask; ``noise_params`` are left out of request identities only."""

    secret_params: frozenset[str] = DEFAULT_SECRET_PARAMS
    secret_headers: frozenset[str] = DEFAULT_SECRET_HEADERS
    secret_values: tuple[str, ...] = ()
    noise_params: frozenset[str] = frozenset()
    #: where catalogs put a key in the path: (host, path template segments with None for a placeholder,
    #: index of the key's segment) — see :func:`key_paths`
    key_paths: tuple[tuple[str, tuple[str | None, ...], int], ...] = ()
    _text_forms: tuple[str, ...] = field(init=False, repr=False, default=())
    _byte_forms: tuple[bytes, ...] = field(init=False, repr=False, default=())
    _text_tokens: "_Tokens | None" = field(init=False, repr=False, default=None)
    _byte_tokens: "_Tokens | None" = field(init=False, repr=False, default=None)
    _segments: frozenset[str] = field(init=False, repr=False, default=frozenset())
    _key_index: dict = field(init=False, repr=False, compare=False, default_factory=dict)

    def __post_init__(self) -> None:
        # Every echo form of every value, worked out once (bodies are scrubbed on every call of a live or
        # simulated source), longest first so a key that contains another is masked whole. A value shorter than
        # a real key (DART's are 40 characters, data.go.kr's ~100) would mask ordinary data inside words: it is
        # masked where it is a whole token (a path segment, a parameter value), in every echo form too.
        values = [v for v in dict.fromkeys(self.secret_values) if v]
        forms = {form for v in values if len(v) >= MIN_SECRET_LENGTH for form in echo_forms(v)}
        text_forms = tuple(sorted(forms, key=lambda f: (-len(f), f)))
        byte_forms = sorted({raw for form in text_forms for raw in _encodings(form)}, key=lambda b: (-len(b), b))
        object.__setattr__(self, "_text_forms", text_forms)
        object.__setattr__(self, "_byte_forms", tuple(byte_forms))
        short = sorted(
            {form for v in values if len(v) < MIN_SECRET_LENGTH for form in echo_forms(v)}, key=lambda f: (-len(f), f)
        )
        if short:
            object.__setattr__(self, "_text_tokens", _Tokens.of(short))
            object.__setattr__(
                self,
                "_byte_tokens",
                _Tokens.of(sorted({raw for form in short for raw in _encodings(form)}, key=lambda b: (-len(b), b))),
            )
        object.__setattr__(self, "_segments", frozenset(values))
        object.__setattr__(self, "_key_index", _key_index(self.key_paths))

    def with_values(self, values: Iterable[str]) -> "Redactor":
        return Redactor(
            self.secret_params, self.secret_headers, (*self.secret_values, *values), self.noise_params, self.key_paths
        )

    # -- text -----------------------------------------------------------------
    def scrub_text(self, text: str) -> str:
        """Every secret value, in every form an echo may take (:func:`echo_forms`), replaced by ``***``; a value
        shorter than :data:`MIN_SECRET_LENGTH` where it is a whole token of a URL (see :class:`_Tokens`)."""
        for form in self._text_forms:
            if form in text:
                text = text.replace(form, MASK)
        if self._text_tokens is not None:
            text = self._text_tokens.mask(text)
        return text

    def scrub_bytes(self, body: bytes) -> bytes:
        """A response body with secret values masked in every echo form, in UTF-8 and in CP949 bytes (a short
        value where it is a whole token, as :meth:`scrub_text`)."""
        for raw in self._byte_forms:
            if raw in body:
                body = body.replace(raw, _MASK_BYTES)
        if self._byte_tokens is not None:
            body = self._byte_tokens.mask(body)
        return body

    # -- requests -------------------------------------------------------------
    def is_secret_param(self, name: str) -> bool:
        return name.lower() in self.secret_params

    def redact_url(self, url: str) -> str:
        """The URL with secret query values, the path key and every path segment or parameter value that is a
        secret value masked (and any longer secret value wherever it stands)."""
        parts = urlsplit(url)
        segments = parts.path.split("/")
        at = self._key_segment((parts.hostname or "").lower(), segments)
        path = "/".join(MASK if i == at or unquote(seg) in self._segments else seg for i, seg in enumerate(segments))
        query = [
            (k, MASK if self.is_secret_param(k) or v in self._segments else v)
            for k, v in parse_qsl(parts.query, keep_blank_values=True)
        ]
        rebuilt = f"{parts.scheme}://{parts.netloc}{path}"
        if query:
            rebuilt += "?" + urlencode(query, safe="*")
        return self.scrub_text(rebuilt)

    def redact_headers(self, headers: Mapping[str, str]) -> dict[str, str]:
        return {
            k.lower(): (MASK if k.lower() in self.secret_headers or v in self._segments else self.scrub_text(v))
            for k, v in sorted(headers.items(), key=lambda kv: kv[0].lower())
        }

    def _key_segment(self, host: str, segments: list[str]) -> int | None:
        """The index of the segment a catalog puts the key in, for a URL of one of its path-key tools."""
        for literals, index in self._key_index.get((host, len(segments)), ()):
            if all(segments[i] == text or unquote(segments[i]) == text for i, text in literals):
                return index
        return None

    def request_key(self, method: str, url: str, body: bytes = b"") -> str:
        """The identity of a request: digest of method, host, path, sorted query and body, secrets removed.

        A path key is removed where its tool's path template puts it, so the identity does not depend on which
        key was sent — a short key that equals another segment (Seoul's ``START=1`` beside a key ``1``) masks
        that segment only in what is stored, not in the identity. A URL no template matches has every segment
        that is a secret value removed.
        """
        parts = urlsplit(url)
        host = (parts.hostname or "").lower()
        segments = parts.path.split("/")
        at = self._key_segment(host, segments)
        if at is not None:
            path = "/".join(MASK if i == at else unquote(seg) for i, seg in enumerate(segments))
        else:
            path = "/".join(MASK if unquote(seg) in self._segments else unquote(seg) for seg in segments)
        query = sorted(
            (k, v)
            for k, v in parse_qsl(parts.query, keep_blank_values=True)
            if not self.is_secret_param(k) and k.lower() not in self.noise_params
        )
        text = "\n".join(
            [
                method.upper(),
                host,
                path,
                *(f"{k}={v}" for k, v in query),
                hashlib.sha256(self.scrub_bytes(body)).hexdigest(),
            ]
        )
        return hashlib.sha256(text.encode("utf-8")).hexdigest()


def echo_forms(value: str) -> tuple[str, ...]:
    """The ways a platform may echo a key back: as sent, percent-encoded (``%2B`` or ``+`` for a space, upper or
    lower hex), JSON-escaped (``\\"``, ``\\\\``, ``\\uXXXX``) and XML/HTML-escaped (``&amp;`` …, numeric
    entities). Longest first, so no form is left half masked by a shorter one."""
    json_forms = {json.dumps(value, ensure_ascii=flag)[1:-1] for flag in (False, True)}
    xml_forms = {
        escape(value),
        escape(value, {'"': "&quot;", "'": "&#39;"}),
        escape(value, {'"': "&#34;", "'": "&apos;"}),
        "".join(f"&#{ord(c)};" if not c.isalnum() else c for c in value),
    }
    percent = {quote(value, safe=""), quote_plus(value, safe="")}
    percent |= {re.sub(r"%[0-9A-F]{2}", lambda m: m.group(0).lower(), form) for form in percent}
    forms = {value} | json_forms | xml_forms | percent
    return tuple(sorted(forms, key=lambda f: (-len(f), f)))


@dataclass(frozen=True)
class _Tokens:
    """Where a short key is masked: as a whole parameter value (``=KEY`` up to :data:`VALUE_END`), anywhere in
    the text, and as a whole path segment of an absolute URL (``scheme://host/…/KEY/…``). Not in a relative
    path: ``application/json`` is no URL, and a key ``json`` must not mangle it. Works on str or bytes."""

    values: "re.Pattern"
    urls: "re.Pattern"
    segments: frozenset
    slash: str | bytes
    mask_: str | bytes

    @classmethod
    def of(cls, forms) -> "_Tokens":
        """For ``forms`` (all str or all bytes, longest first)."""
        # the same code builds str or bytes patterns, the helpers' types following ``forms``: join is Any, as
        # mypy would otherwise add the str branch's pieces to the bytes branch's
        wrap: Callable[[str], Any]
        join: Any
        slash: str | bytes
        mask: str | bytes
        if isinstance(forms[0], bytes):
            wrap, join, slash, mask = (lambda text: text.encode()), b"|".join, b"/", _MASK_BYTES
        else:
            wrap, join, slash, mask = (lambda text: text), "|".join, "/", MASK
        values = re.compile(
            wrap("(?<==)(?:") + join(re.escape(f) for f in forms) + wrap(f")(?=[{re.escape(VALUE_END)}]|\\Z)")
        )
        urls = re.compile(wrap(r"[A-Za-z][A-Za-z0-9+.\-]*://[^\s\"'<>\\]+"))
        # a form with a slash in it would be two segments: the key went percent-encoded in a path
        return cls(values, urls, frozenset(f for f in forms if slash not in f), slash, mask)

    def mask(self, text):
        text = self.values.sub(self.mask_, text)
        if self.segments and self.slash * 2 in text:
            text = self.urls.sub(self._mask_segments, text)
        return text

    def _mask_segments(self, match: "re.Match"):
        url = match.group(0)
        slash: Any = self.slash  # str or bytes, as url is: mypy cannot tie the two together
        start = url.find(slash * 2) + 2
        path_at = url.find(slash, start)
        if path_at < 0:
            return url
        end = len(url)
        for stop in (b"?", b"#") if isinstance(url, bytes) else ("?", "#"):
            found = url.find(stop, path_at)
            if found >= 0:
                end = min(end, found)
        segments = url[path_at:end].split(slash)
        masked = slash.join(self.mask_ if seg in self.segments else seg for seg in segments)
        return url[:path_at] + masked + url[end:]


def key_paths(catalog) -> tuple[tuple[str, tuple[str | None, ...], int], ...]:
    """(host, path template segments with None for a placeholder, index of the key's segment) of every tool of
    ``catalog`` that puts its key in the path (Seoul: ``/{key}/json/SERVICE/{START}/{END}``)."""
    out = []
    for tool in catalog or ():
        auth = tool.http.auth
        if auth.location != "path":
            continue
        base = urlsplit(tool.http.base_url)
        template = (base.path.rstrip("/") + tool.http.path).split("/")
        marker = "{" + auth.name + "}"
        if template.count(marker) != 1:
            continue
        segments = tuple(None if "{" in seg else seg for seg in template)
        out.append(((base.hostname or "").lower(), segments, template.index(marker)))
    return tuple(sorted(set(out), key=lambda t: (t[0], len(t[1]), t[2], [s or "" for s in t[1]])))


def _key_index(paths) -> dict[tuple[str, int], tuple[tuple[tuple[tuple[int, str], ...], int], ...]]:
    """(host, segment count) → (literal segments, key index) per template: looked up on every request."""
    index: dict[tuple[str, int], list] = {}
    for host, segments, at in paths:
        literals = tuple((i, seg) for i, seg in enumerate(segments) if seg is not None and seg != "")
        index.setdefault((host, len(segments)), []).append((literals, at))
    # templates with more literal segments first: the most specific match wins
    return {k: tuple(sorted(v, key=lambda t: -len(t[0]))) for k, v in index.items()}


def _encodings(form: str) -> tuple[bytes, ...]:
    out = [form.encode("utf-8")]
    try:
        out.append(form.encode("cp949"))
    except UnicodeEncodeError:
        pass
    return tuple(dict.fromkeys(out))


def redactor_for(catalog=None, extra_values: Iterable[str] = (), noise_params: Iterable[str] = ()) -> Redactor:
    """A redactor knowing the catalog's key names, where it puts path keys, and the keys in the environment.

    Secret values are the live keys this process could send: KOPA_API_KEY and
    every per-platform variable the catalog names, plus ``extra_values``.
    Without a catalog, the default key names and the shipped catalog's path keys.
    """
    params = set(DEFAULT_SECRET_PARAMS)
    headers = set(DEFAULT_SECRET_HEADERS)
    env_vars = set(KEY_ENV_VARS)
    for tool in catalog or ():
        auth = tool.http.auth
        if auth.location == "query":
            params.add(auth.name.lower())
        elif auth.location == "header":
            headers.add(auth.name.lower())
        if auth.env:
            env_vars.add(auth.env)
    values = [os.environ[name] for name in sorted(env_vars) if os.environ.get(name)]
    return Redactor(
        frozenset(params),
        frozenset(headers),
        (*values, *extra_values),
        frozenset(n.lower() for n in noise_params),
        key_paths(catalog) if catalog is not None else _builtin_key_paths(),
    )


@functools.lru_cache(maxsize=1)
def _builtin_key_paths() -> tuple[tuple[str, tuple[str | None, ...], int], ...]:
    """Where the shipped catalog puts path keys (Seoul): the default, as the default key names are."""
    from kopa_replay.catalog import builtin_catalog

    return key_paths(builtin_catalog())


# -- logs ---------------------------------------------------------------------
_REGISTERED: set[str] = set()
_REGISTERED_LOCK = threading.Lock()
_QUERY_SECRET = re.compile(r"(?i)\b(" + "|".join(sorted(DEFAULT_SECRET_PARAMS)) + r")=([^&\s\"']+)")


def register_secret(value: str | None) -> None:
    """Remember a key this process sends, so log lines that carry it (in a path, say) are masked; a key shorter
    than :data:`MIN_SECRET_LENGTH` is masked where it is a whole token (a path segment, a parameter value)."""
    if value:
        with _REGISTERED_LOCK:
            _REGISTERED.add(value)


@functools.lru_cache(maxsize=64)
def _log_redactor(values: frozenset[str]) -> Redactor:
    # httpcore's DEBUG lines print headers as Python bytes (``(b'Location', b'…%ED%82%A4…')``, ``b'\\xed\\x82'``):
    # the key's repr, as bytes and as text, is one more form to mask there
    reprs = {form for v in values for form in (repr(v)[1:-1], repr(v.encode("utf-8"))[2:-1])}
    return Redactor(secret_values=tuple(sorted(set(values) | reprs)))


class SecretLogFilter(logging.Filter):
    """Masks keys in log records: known key parameters by name, registered and environment keys by value.

    httpx logs every request URL at INFO, keys included, and httpcore every
    response's headers at DEBUG (a redirect or a cookie may carry the key); this
    filter sits on the ``httpx`` logger and every ``httpcore`` logger (a filter
    on a parent does not see its children's records) so no handler ever sees them.
    """

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        scrubbed = _QUERY_SECRET.sub(lambda m: f"{m.group(1)}={MASK}", message)
        with _REGISTERED_LOCK:
            values = tuple(_REGISTERED)
        env_values = tuple(os.environ[name] for name in KEY_ENV_VARS if os.environ.get(name))
        scrubbed = _log_redactor(frozenset(values + env_values)).scrub_text(scrubbed)
        if scrubbed != message:
            record.msg, record.args = scrubbed, ()
        return True


#: the loggers of httpx and httpcore (httpcore logs on its modules' loggers, not on ``httpcore``)
HTTP_LOGGERS = (
    "httpx",
    "httpcore",
    "httpcore.connection",
    "httpcore.connection_pool",
    "httpcore.http11",
    "httpcore.http2",
    "httpcore.proxy",
    "httpcore.socks",
)


def install_log_filter() -> None:
    """Attach :class:`SecretLogFilter` to the HTTP client loggers (once)."""
    known = [name for name in logging.root.manager.loggerDict if name.split(".")[0] in ("httpx", "httpcore")]
    for name in sorted(set(HTTP_LOGGERS) | set(known)):
        logger = logging.getLogger(name)
        if not any(isinstance(f, SecretLogFilter) for f in logger.filters):
            logger.addFilter(SecretLogFilter())
