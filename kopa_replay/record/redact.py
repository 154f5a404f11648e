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

import hashlib
import json
import logging
import os
import re
import threading
from dataclasses import dataclass, field
from typing import Iterable, Mapping
from urllib.parse import parse_qsl, quote, quote_plus, unquote, urlencode, urlsplit
from xml.sax.saxutils import escape

__all__ = ["MASK", "DEFAULT_SECRET_PARAMS", "DEFAULT_SECRET_HEADERS", "Redactor", "redactor_for", "register_secret",
           "SecretLogFilter", "echo_forms"]

MASK = "***"
_MASK_BYTES = MASK.encode()
#: the shortest value masked wherever it occurs inside text (whole path segments are masked at any length)
MIN_SECRET_LENGTH = 6
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
    _text_forms: tuple[str, ...] = field(init=False, repr=False, default=())
    _byte_forms: tuple[bytes, ...] = field(init=False, repr=False, default=())
    _segments: frozenset[str] = field(init=False, repr=False, default=frozenset())

    def __post_init__(self) -> None:
        # Every echo form of every value, worked out once (bodies are scrubbed on every call of a live or
        # simulated source), longest first so a key that contains another is masked whole. Values shorter than
        # a real key (DART's are 40 characters, data.go.kr's ~100) would mask ordinary data and are ignored.
        forms = {form for v in self.secret_values if v and len(v) >= MIN_SECRET_LENGTH for form in echo_forms(v)}
        text_forms = tuple(sorted(forms, key=lambda f: (-len(f), f)))
        byte_forms = sorted({raw for form in text_forms for raw in _encodings(form)}, key=lambda b: (-len(b), b))
        object.__setattr__(self, "_text_forms", text_forms)
        object.__setattr__(self, "_byte_forms", tuple(byte_forms))
        object.__setattr__(self, "_segments", frozenset(v for v in self.secret_values if v))

    def with_values(self, values: Iterable[str]) -> "Redactor":
        return Redactor(self.secret_params, self.secret_headers, (*self.secret_values, *values), self.noise_params)

    # -- text -----------------------------------------------------------------
    def scrub_text(self, text: str) -> str:
        """Every secret value, in every form an echo may take (:func:`echo_forms`), replaced by ``***``."""
        for form in self._text_forms:
            if form in text:
                text = text.replace(form, MASK)
        return text

    def scrub_bytes(self, body: bytes) -> bytes:
        """A response body with secret values masked in every echo form, in UTF-8 and in CP949 bytes."""
        for raw in self._byte_forms:
            if raw in body:
                body = body.replace(raw, _MASK_BYTES)
        return body

    # -- requests -------------------------------------------------------------
    def is_secret_param(self, name: str) -> bool:
        return name.lower() in self.secret_params

    def redact_url(self, url: str) -> str:
        """The URL with secret query values and secret path segments masked."""
        parts = urlsplit(url)
        path = "/".join(MASK if unquote(seg) in self._segments else seg for seg in parts.path.split("/"))
        query = [(k, MASK if self.is_secret_param(k) else v)
                 for k, v in parse_qsl(parts.query, keep_blank_values=True)]
        rebuilt = f"{parts.scheme}://{parts.netloc}{path}"
        if query:
            rebuilt += "?" + urlencode(query, safe="*")
        return self.scrub_text(rebuilt)

    def redact_headers(self, headers: Mapping[str, str]) -> dict[str, str]:
        return {k.lower(): (MASK if k.lower() in self.secret_headers else self.scrub_text(v))
                for k, v in sorted(headers.items(), key=lambda kv: kv[0].lower())}

    def request_key(self, method: str, url: str, body: bytes = b"") -> str:
        """The identity of a request: digest of method, host, path, sorted query and body, secrets removed."""
        parts = urlsplit(url)
        host = (parts.hostname or "").lower()
        path = "/".join(MASK if unquote(seg) in self._segments else unquote(seg)
                        for seg in parts.path.split("/"))
        query = sorted((k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True)
                       if not self.is_secret_param(k) and k.lower() not in self.noise_params)
        text = "\n".join([method.upper(), host, path, *(f"{k}={v}" for k, v in query),
                          hashlib.sha256(self.scrub_bytes(body)).hexdigest()])
        return hashlib.sha256(text.encode("utf-8")).hexdigest()


def echo_forms(value: str) -> tuple[str, ...]:
    """The ways a platform may echo a key back: as sent, percent-encoded (``%2B`` or ``+`` for a space, upper or
    lower hex), JSON-escaped (``\\"``, ``\\\\``, ``\\uXXXX``) and XML/HTML-escaped (``&amp;`` …, numeric
    entities). Longest first, so no form is left half masked by a shorter one."""
    json_forms = {json.dumps(value, ensure_ascii=flag)[1:-1] for flag in (False, True)}
    xml_forms = {escape(value), escape(value, {'"': "&quot;", "'": "&#39;"}),
                 escape(value, {'"': "&#34;", "'": "&apos;"}),
                 "".join(f"&#{ord(c)};" if not c.isalnum() else c for c in value)}
    percent = {quote(value, safe=""), quote_plus(value, safe="")}
    percent |= {re.sub(r"%[0-9A-F]{2}", lambda m: m.group(0).lower(), form) for form in percent}
    forms = {value} | json_forms | xml_forms | percent
    return tuple(sorted(forms, key=lambda f: (-len(f), f)))


def _encodings(form: str) -> tuple[bytes, ...]:
    out = [form.encode("utf-8")]
    try:
        out.append(form.encode("cp949"))
    except UnicodeEncodeError:
        pass
    return tuple(dict.fromkeys(out))


def redactor_for(catalog=None, extra_values: Iterable[str] = (), noise_params: Iterable[str] = ()) -> Redactor:
    """A redactor knowing the catalog's key names and the keys in the environment.

    Secret values are the live keys this process could send: KOPA_API_KEY and
    every per-platform variable the catalog names, plus ``extra_values``.
    """
    params = set(DEFAULT_SECRET_PARAMS)
    headers = set(DEFAULT_SECRET_HEADERS)
    env_vars = set(KEY_ENV_VARS)
    for tool in (catalog or ()):
        auth = tool.http.auth
        if auth.location == "query":
            params.add(auth.name.lower())
        elif auth.location == "header":
            headers.add(auth.name.lower())
        if auth.env:
            env_vars.add(auth.env)
    values = [os.environ[name] for name in sorted(env_vars) if os.environ.get(name)]
    return Redactor(frozenset(params), frozenset(headers), (*values, *extra_values),
                    frozenset(n.lower() for n in noise_params))


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


def _mask_tokens(text: str, values: Iterable[str]) -> str:
    """Short keys masked where they stand alone in a URL: a whole path segment or a whole parameter value."""
    for value in sorted(values, key=lambda v: (-len(v), v)):
        for form in {value, quote(value, safe="")}:
            text = re.sub(r"(?<=[/=])" + re.escape(form) + r"(?=[/?&#\s\"']|$)", MASK, text)
    return text


class SecretLogFilter(logging.Filter):
    """Masks keys in log records: known key parameters by name, registered and environment keys by value.

    httpx logs every request URL at INFO, keys included; this filter sits on
    the ``httpx`` and ``httpcore`` loggers so no handler ever sees them.
    """

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        scrubbed = _QUERY_SECRET.sub(lambda m: f"{m.group(1)}={MASK}", message)
        with _REGISTERED_LOCK:
            values = tuple(_REGISTERED)
        env_values = tuple(os.environ[name] for name in KEY_ENV_VARS if os.environ.get(name))
        scrubbed = Redactor(secret_values=values + env_values).scrub_text(scrubbed)
        scrubbed = _mask_tokens(scrubbed, [v for v in values + env_values if len(v) < MIN_SECRET_LENGTH])
        if scrubbed != message:
            record.msg, record.args = scrubbed, ()
        return True


def install_log_filter() -> None:
    """Attach :class:`SecretLogFilter` to the HTTP client loggers (once)."""
    for name in ("httpx", "httpcore"):
        logger = logging.getLogger(name)
        if not any(isinstance(f, SecretLogFilter) for f in logger.filters):
            logger.addFilter(SecretLogFilter())
