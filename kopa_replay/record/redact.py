"""Keep API keys out of everything the recorder writes, logs or raises.

Keys ride in query parameters (crtfc_key, serviceKey, KEY, OC, apiKey …), in
headers (AUTH_KEY, Authorization) and in path segments (Seoul puts the key in
the path); some platforms echo them back inside response bodies (law.go.kr's
detail links carry the caller's OC). A :class:`Redactor` knows the secret
parameter and header names (a default list plus the catalog's) and the secret
*values* in use, and replaces every occurrence with ``***`` — by name where a
name is known, by value everywhere else (paths, bodies, messages).

A body is untrusted input (a platform, a mirror or a shared snapshot may echo
the key in any spelling), so a value is recognised character by character: each
character in any of its encodings (:func:`_char_spellings`), whatever the
encoding of its neighbours.

It also computes a request's identity: method, host, path and sorted query
with secrets and configured noise parameters removed, plus a body digest.
"""

from __future__ import annotations

import functools
import hashlib
import html.entities
import json
import logging
import os
import re
import threading
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any
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
    _echoes: "_Echoes | None" = field(init=False, repr=False, default=None)
    _text_tokens: "_Tokens | None" = field(init=False, repr=False, default=None)
    _byte_tokens: "_Tokens | None" = field(init=False, repr=False, default=None)
    _segments: frozenset[str] = field(init=False, repr=False, default=frozenset())
    _key_index: dict = field(init=False, repr=False, compare=False, default_factory=dict)

    def __post_init__(self) -> None:
        # A value as long as a real key (DART's are 40 characters, data.go.kr's ~100) is masked wherever it is
        # spelled, longest first so a key that contains another is masked whole; its matchers are built once per
        # value (bodies are scrubbed on every call of a live or simulated source). A shorter value would mask
        # ordinary data inside words: it is masked where it is a whole token (a path segment, a parameter value),
        # in every spelling too.
        values = [v for v in dict.fromkeys(self.secret_values) if v]
        long = sorted((v for v in values if len(v) >= MIN_SECRET_LENGTH), key=lambda v: (-len(v), v))
        if long:
            object.__setattr__(self, "_echoes", _echoes(tuple(long)))
        short = sorted((v for v in values if len(v) < MIN_SECRET_LENGTH), key=lambda v: (-len(v), v))
        if short:
            object.__setattr__(self, "_text_tokens", _Tokens.of([_value_source(v, raw=False) for v in short]))
            object.__setattr__(self, "_byte_tokens", _Tokens.of([_value_source(v, raw=True) for v in short]))
        object.__setattr__(self, "_segments", frozenset(values))
        object.__setattr__(self, "_key_index", _key_index(self.key_paths))

    def with_values(self, values: Iterable[str]) -> "Redactor":
        return Redactor(
            self.secret_params, self.secret_headers, (*self.secret_values, *values), self.noise_params, self.key_paths
        )

    # -- text -----------------------------------------------------------------
    def scrub_text(self, text: str) -> str:
        """Every secret value, in any spelling (:func:`_char_spellings`, character by character), replaced by ``***``;
        a value shorter than :data:`MIN_SECRET_LENGTH` where it is a whole token of a URL (see :class:`_Tokens`)."""
        if self._echoes is not None:
            text = self._echoes.mask(text, raw=False)
        if self._text_tokens is not None:
            text = self._text_tokens.mask(text)
        return text

    def scrub_bytes(self, body: bytes) -> bytes:
        """A response body with secret values masked in any spelling, each character's literal bytes in UTF-8 or
        CP949 included (a short value where it is a whole token, as :meth:`scrub_text`)."""
        if self._echoes is not None:
            body = self._echoes.mask(body, raw=True)
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

    def path_key(self, url: str) -> str | None:
        """The key ``url`` carries where a catalog's path template puts it (Seoul: ``/KEY/json/…``), decoded."""
        parts = urlsplit(url)
        segments = parts.path.split("/")
        at = self._key_segment((parts.hostname or "").lower(), segments)
        return unquote(segments[at]) if at is not None and segments[at] else None

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
        that is a secret value removed. The body counts with the secret values masked in the fixed spellings of
        :func:`echo_forms`, as it always has (identities are sealed into snapshots), not in every spelling the
        masker knows.
        """
        host, raw_path, raw_query = _split_url(url)
        segments = raw_path.split("/")
        at = self._key_segment(host, segments)
        if "%" in raw_path:
            if at is not None:
                path = "/".join(MASK if i == at else unquote(seg) for i, seg in enumerate(segments))
            else:
                path = "/".join(MASK if unquote(seg) in self._segments else unquote(seg) for seg in segments)
        # nothing to unquote: each segment stands as it is (what unquote gives back)
        elif at is not None:
            path = "/".join(MASK if i == at else seg for i, seg in enumerate(segments))
        elif self._segments and not self._segments.isdisjoint(segments):
            path = "/".join(MASK if seg in self._segments else seg for seg in segments)
        else:
            path = raw_path
        secret, noise = self.secret_params, self.noise_params
        query = sorted(
            (k, v) for k, v in _query_pairs(raw_query) if (lower := k.lower()) not in secret and lower not in noise
        )
        text = "\n".join(
            [
                method.upper(),
                host,
                path,
                *[f"{k}={v}" for k, v in query],
                hashlib.sha256(_identity_body(self.secret_values, body)).hexdigest() if body else _EMPTY_BODY,
            ]
        )
        return hashlib.sha256(text.encode("utf-8")).hexdigest()


#: the body digest an identity carries for a request without a body
_EMPTY_BODY = hashlib.sha256(b"").hexdigest()
#: an absolute http(s) URL that :func:`urllib.parse.urlsplit` takes apart as plainly as a split at its first ``/``
#: and ``?`` does (nothing it strips, no fragment, user info, IPv6 literal, backslash in the host or non-ASCII host to
#: normalize)
_PLAIN_URL = re.compile(r"https?://([^/?#@\[\]\\]*)((?:/[^?#]*)?)(?:\?([^#]*))?", re.ASCII)


def _split_url(url: str) -> tuple[str, str, str]:
    """(lower-case host, path, query) of ``url``, exactly as ``urlsplit`` (its ``hostname`` or "", ``path``,
    ``query``) gives them: a request identity is sealed into snapshots. A plain URL (every one the catalog builds)
    is split by one regex, every other goes through ``urlsplit``; the two agree (tests/record/test_transport.py)."""
    # urlsplit strips leading blanks and drops tabs and line breaks: only printable ASCII is plain
    plain = _PLAIN_URL.fullmatch(url) if url.isascii() and url.isprintable() else None
    if plain is None:
        parts = urlsplit(url)
        return (parts.hostname or "").lower(), parts.path, parts.query
    netloc, path, query = plain.groups()
    return netloc.partition(":")[0].lower(), path, query or ""


def _query_pairs(query: str) -> list[tuple[str, str]]:
    """``parse_qsl(query, keep_blank_values=True)``: the same steps, with nothing decoded where nothing is encoded
    (then ``unquote`` and the ``+`` replacement give each part back as it is)."""
    pairs = []
    for pair in query.split("&"):
        if not pair:
            continue
        name, _, value = pair.partition("=")
        if "%" in pair or "+" in pair:
            name, value = unquote(name.replace("+", " ")), unquote(value.replace("+", " "))
        pairs.append((name, value))
    return pairs


def echo_forms(value: str) -> tuple[str, ...]:
    """A fixed set of whole-value spellings of a key: as sent, percent-encoded (``%2B`` or ``+`` for a space, upper
    or lower hex), JSON-escaped (``\\"``, ``\\\\``, ``\\uXXXX``) and XML/HTML-escaped (``&amp;`` …, numeric
    entities). Longest first, so no form is left half masked by a shorter one.

    Request identities mask request bodies in these (see :meth:`Redactor.request_key`); the masker of bodies and
    texts knows far more, character by character (:func:`_char_spellings`)."""
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


# -- spelling a value, character by character ---------------------------------------------
#: the characters JSON escapes with a backslash and a letter (or itself): ``\"`` ``\\`` ``\/`` (PHP) ``\n`` …
_JSON_SHORT = {'"': '"', "\\": "\\", "/": "/", "\b": "b", "\f": "f", "\n": "n", "\r": "r", "\t": "t"}
#: what every spelling but the literal one starts with: a percent escape, a character reference, a JSON escape
_INTRODUCERS = ("%", "&", "\\")
#: how many characters of a value a scan looks for (the rest is matched only where these are found)
_HEAD = 3


def _hex_source(number: int, width: int) -> str:
    """A regex source for ``number`` in hex (``width`` digits at least), each letter digit in either case."""
    return "".join(f"[{d}{d.upper()}]" if d.isalpha() else d for d in f"{number:0{width}x}")


@functools.lru_cache(maxsize=1)
def _entity_sources() -> dict[str, tuple[str, ...]]:
    """character → regex sources, ``&`` left out, of the HTML named references html.unescape reads as it:
    ``amp;`` ``AMP;`` ``sol;`` ``plus;`` … and a legacy name without ``;`` (``amp``, ``lt``) only where no longer
    name goes on from it (``&ltri;`` is ◃, not ``<`` and ``ri;``)."""
    table = html.entities.html5
    out: dict[str, list[str]] = {}
    for name, value in table.items():
        if len(value) != 1:
            continue
        source = re.escape(name)
        if not name.endswith(";"):
            longer = sorted(
                {re.escape(other[len(name) :]) for other in table if other != name and other.startswith(name)}
            )
            if longer:
                source += "(?!" + "|".join(longer) + ")"
        out.setdefault(value, []).append(source)
    return {c: tuple(sources) for c, sources in out.items()}


def _escapes(c: str) -> list[tuple[str, str]]:
    """(introducer, the rest as a regex source) of every escaped spelling of ``c`` that is ASCII whatever the
    charset: decimal and hex character references (``&#53412;`` ``&#xD0A4;`` ``&#X0d0a4``; html.unescape reads
    every digit and the ``;``, so ``&#65`` is ``A`` only where no digit or ``;`` follows), named references, JSON
    ``\\uXXXX`` in either case (a surrogate pair outside the BMP), JSON's short escapes, ``+`` for a space."""
    code = ord(c)
    out = [("&", f"#0*{code}(?:;|(?![0-9;]))"), ("&", f"#[xX]0*{_hex_source(code, 1)}(?:;|(?![0-9a-fA-F;]))")]
    out += [("&", source) for source in _entity_sources().get(c, ())]
    if code > 0xFFFF:
        high, low = 0xD800 + ((code - 0x10000) >> 10), 0xDC00 + ((code - 0x10000) & 0x3FF)
        out.append(("\\", f"u{_hex_source(high, 4)}\\\\u{_hex_source(low, 4)}"))
    else:
        out.append(("\\", "u" + _hex_source(code, 4)))
    if c in _JSON_SHORT:
        out.append(("\\", re.escape(_JSON_SHORT[c])))
    if c == " ":
        out.append(("+", ""))
    return out


def _char_spellings(c: str, raw: bool) -> dict[Any, list[Any]]:
    """lead → the rest of each spelling of ``c`` beginning with it, as regex sources (str, or bytes for ``raw``).

    A spelling is ``c`` itself (for ``raw``: its UTF-8 or CP949 bytes, any of them percent-encoded), its UTF-8
    or CP949 bytes percent-encoded in either hex case, or one of :func:`_escapes`. Each lead is one character
    (byte), so a scan can look for it fast; the literal lead comes first.
    """
    out: dict[Any, list[Any]] = {}
    if raw:
        for data in _encodings(c):
            # any byte of a multi-byte character may be percent-encoded alone: ``\xed%82%A4`` is 키 too
            tail = b"".join(
                b"(?:" + re.escape(data[i : i + 1]) + b"|%" + _hex_source(data[i], 2).encode() + b")"
                for i in range(1, len(data))
            )
            out.setdefault(data[:1], []).append(tail)
            out.setdefault(b"%", []).append(_hex_source(data[0], 2).encode() + tail)
        for lead, rest in _escapes(c):
            out.setdefault(lead.encode(), []).append(rest.encode())
    else:
        out[c] = [""]
        for data in _encodings(c):
            out.setdefault("%", []).append("%".join(_hex_source(b, 2) for b in data))
        for lead, rest in _escapes(c):
            out.setdefault(lead, []).append(rest)
    return out


def _alternation(tails: list[Any]) -> Any:
    """One regex source for ``tails`` (str or bytes), longest first so an echo is masked to its end; the empty
    one last."""
    ordered = sorted(set(tails), key=lambda t: (-len(t), t))
    if len(ordered) == 1:
        return ordered[0]
    if isinstance(ordered[0], str):
        return "(?:" + "|".join(ordered) + ")"
    return b"(?:" + b"|".join(ordered) + b")"


def _group(spellings: dict[Any, list[Any]]) -> Any:
    """The regex source of one character in every spelling (:func:`_char_spellings`)."""
    parts = [re.escape(lead) + _alternation(tails) for lead, tails in spellings.items()]
    if isinstance(parts[0], str):
        return "(?:" + "|".join(parts) + ")"
    return b"(?:" + b"|".join(parts) + b")"


@functools.lru_cache(maxsize=512)
def _value_source(value: str, raw: bool) -> Any:
    """The regex source (str, or bytes for ``raw``) of ``value`` spelled character by character, each character
    in any of its spellings whatever its neighbours' (a key partly percent-encoded, mixed with references …)."""
    groups = [_group(_char_spellings(c, raw)) for c in value]
    return "".join(groups) if not raw else b"".join(groups)


class _Spelling:
    """Finds one value in str (or, ``raw``, bytes) in every spelling, and masks it.

    Python's ``re`` scans fast only for a pattern that begins with a literal character, so the search is split
    by the first character's lead (its literal, ``%``, ``&``, ``\\``, ``+``): a short pattern per lead, tried only
    where the lead occurs at all and matching the value's first :data:`_HEAD` characters, finds where an echo may
    begin; the whole value's pattern (compiled on first need) is matched there only. A value with one literal
    spelling (any in text, an ASCII one in bytes) in a text with none of the introducers is masked by a replace.
    """

    __slots__ = ("_value", "_raw", "_heads", "_full", "plain", "_introducers", "mask_")

    def __init__(self, value: str, raw: bool) -> None:
        self._value, self._raw = value, raw
        first = _char_spellings(value[0], raw)
        rest = b"".join if raw else "".join
        after = rest(_group(_char_spellings(c, raw)) for c in value[1:_HEAD])
        self._heads = tuple(
            (lead, re.compile(re.escape(lead) + _alternation(tails) + after)) for lead, tails in first.items()
        )
        self._full: re.Pattern | None = None
        introducers = (*_INTRODUCERS, "+") if " " in value else _INTRODUCERS
        #: the value's only literal spelling (None in bytes for a value outside ASCII: UTF-8 or CP949 bytes)
        self.plain: Any
        self.mask_: Any
        if raw:
            self.plain = value.encode() if value.isascii() else None
            self._introducers: tuple[Any, ...] = tuple(i.encode() for i in introducers)
            self.mask_ = _MASK_BYTES
        else:
            self.plain, self._introducers, self.mask_ = value, introducers, MASK

    def mask(self, text: Any) -> Any:
        """``text`` (str, or bytes for a raw spelling) with every echo of the value replaced by ``***``."""
        if self.plain is not None and not any(i in text for i in self._introducers):
            return text.replace(self.plain, self.mask_)
        starts = []
        for lead, head in self._heads:
            if lead in text:
                found = head.search(text)
                while found is not None:
                    starts.append(found.start())
                    found = head.search(text, found.start() + 1)
        if not starts:
            return text
        if self._full is None:
            self._full = re.compile(_value_source(self._value, self._raw))
        pieces, last = [], 0
        for start in sorted(starts):
            if start < last:
                continue
            match = self._full.match(text, start)
            if match is not None:
                pieces += [text[last:start], self.mask_]
                last = match.end()
        if not pieces:
            return text
        pieces.append(text[last:])
        return text[:0].join(pieces)


class _Echo:
    """A secret value's spellings in str and in bytes, each built on first use."""

    __slots__ = ("value", "_text", "_raw")

    def __init__(self, value: str) -> None:
        self.value = value
        self._text: _Spelling | None = None
        self._raw: _Spelling | None = None

    @property
    def text(self) -> _Spelling:
        if self._text is None:
            self._text = _Spelling(self.value, raw=False)
        return self._text

    @property
    def raw(self) -> _Spelling:
        if self._raw is None:
            self._raw = _Spelling(self.value, raw=True)
        return self._raw


_echo = functools.lru_cache(maxsize=256)(_Echo)


class _Echoes:
    """A redactor's long secret values, longest first, and the check that spares most bodies the search.

    A value can only be spelled other than as itself where some character of it is escaped, and every escape
    starts with an introducer (``%`` ``&`` ``\\`` ``+``). So where no escape of any of the values' characters
    occurs (one fast scan per introducer the body holds at all: ``&amp;`` or Korean ``\\uXXXX`` escapes are no
    escapes of an ASCII key's characters), a value is masked with a plain replace. That holds for every value in
    text, and for an ASCII value in bytes (a Hangul character has two literal spellings there, UTF-8 and CP949).
    """

    __slots__ = ("echoes", "_checks")

    def __init__(self, values: tuple[str, ...]) -> None:
        self.echoes = tuple(_echo(v) for v in values)
        self._checks: dict[bool, tuple[tuple[Any, re.Pattern], ...]] = {}

    def mask(self, text: Any, raw: bool) -> Any:
        escaped: bool | None = None
        for echo in self.echoes:
            spelling = echo.raw if raw else echo.text
            if spelling.plain is None:
                text = spelling.mask(text)
                continue
            if escaped is None:
                escaped = self._escaped(text, raw)
            text = spelling.mask(text) if escaped else text.replace(spelling.plain, spelling.mask_)
        return text

    def _escaped(self, text: Any, raw: bool) -> bool:
        checks = self._checks.get(raw)
        if checks is None:
            checks = self._checks[raw] = _escape_checks(self.echoes, raw)
        return any(lead in text and check.search(text) is not None for lead, check in checks)


def _trie(words: Iterable[str], fold: bool = False) -> str:
    """A regex source matching any of ``words`` (hex letters in either case where ``fold``), common prefixes
    shared so a scan fails at the first character that rules every word out."""
    branches: dict[str, list[str]] = {}
    ends = False
    for word in sorted(set(words)):
        if word:
            branches.setdefault(word[0], []).append(word[1:])
        else:
            ends = True
    if not branches:
        return ""
    if not ends and all(rests == [""] for rests in branches.values()):
        chars = "".join(c + c.upper() if fold and c.isalpha() else c for c in branches)
        return re.escape(chars) if len(chars) == 1 else "[" + "".join(re.escape(c) for c in chars) + "]"
    parts = [_trie([first], fold) + _trie(rests, fold) for first, rests in branches.items()]
    if ends:
        parts.append("")
    return parts[0] if len(parts) == 1 else "(?:" + "|".join(parts) + ")"


def _escape_checks(echoes: tuple[_Echo, ...], raw: bool) -> tuple[tuple[Any, re.Pattern], ...]:
    """(introducer, pattern) finding an escape of any character of ``echoes``' values that a plain replace masks
    (every value in text; an ASCII one in bytes), or the start of one: a percent escape of its first byte, a
    character reference, a named reference, a JSON escape (of its high surrogate outside the BMP), a ``+``. Each
    pattern begins with its introducer and is a trie, so ``re`` scans fast and fails fast on other escapes."""
    chars = sorted({c for echo in echoes for c in echo.value if not raw or echo.value.isascii()})
    if not chars:
        return ()
    first_bytes = {f"{data[0]:02x}" for c in chars for data in _encodings(c)}
    codes = [ord(c) for c in chars]
    units = {f"{code:04x}" if code <= 0xFFFF else f"{0xD800 + ((code - 0x10000) >> 10):04x}" for code in codes}
    named = sorted({source for c in chars for source in _entity_sources().get(c, ())}, key=lambda n: (-len(n), n))
    short = sorted({re.escape(_JSON_SHORT[c]) for c in chars if c in _JSON_SHORT})
    references = (
        f"\\#(?:0*{_trie(str(code) for code in codes)}(?:;|(?![0-9;]))"
        f"|[xX]0*{_trie((f'{code:x}' for code in codes), fold=True)}(?:;|(?![0-9a-fA-F;])))"
    )
    sources = {
        "%": "%" + _trie(first_bytes, fold=True),
        "&": "&(?:" + "|".join([references, *named]) + ")",
        "\\": "\\\\(?:" + "|".join(["u" + _trie(units, fold=True), *short]) + ")",
    }
    if " " in chars:
        sources["+"] = "\\+"
    if raw:
        return tuple((lead.encode(), re.compile(source.encode())) for lead, source in sources.items())
    return tuple((lead, re.compile(source)) for lead, source in sources.items())


_echoes = functools.lru_cache(maxsize=256)(_Echoes)


@dataclass(frozen=True)
class _Tokens:
    """Where a short key is masked: as a whole parameter value (``=KEY`` up to :data:`VALUE_END`), anywhere in
    the text, and as a whole path segment of an absolute URL (``scheme://host/…/KEY/…``). Not in a relative
    path: ``application/json`` is no URL, and a key ``json`` must not mangle it. Works on str or bytes."""

    values: "re.Pattern"
    urls: "re.Pattern"
    segment: "re.Pattern | None"
    slash: str | bytes
    mask_: str | bytes

    @classmethod
    def of(cls, sources, segment_sources=None) -> "_Tokens":
        """For values spelled by the regex ``sources`` (all str or all bytes, longest first); a path segment is
        masked where it is wholly one of ``segment_sources`` (default: ``sources``)."""
        # the same code builds str or bytes patterns, the helpers' types following ``sources``: join is Any, as
        # mypy would otherwise add the str branch's pieces to the bytes branch's
        wrap: Callable[[str], Any]
        join: Any
        slash: str | bytes
        mask: str | bytes
        if isinstance(sources[0], bytes):
            wrap, join, slash, mask = (lambda text: text.encode()), b"|".join, b"/", _MASK_BYTES
        else:
            wrap, join, slash, mask = (lambda text: text), "|".join, "/", MASK
        values = re.compile(wrap("(?<==)(?:") + join(sources) + wrap(f")(?=[{re.escape(VALUE_END)}]|\\Z)"))
        urls = re.compile(wrap(r"[A-Za-z][A-Za-z0-9+.\-]*://[^\s\"'<>\\]+"))
        segments = sources if segment_sources is None else segment_sources
        segment = re.compile(wrap("(?:") + join(segments) + wrap(")")) if segments else None
        return cls(values, urls, segment, slash, mask)

    def mask(self, text):
        text = self.values.sub(self.mask_, text)
        if self.segment is not None and self.slash * 2 in text:
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
        segment: Any = self.segment  # not None: mask() calls this only then
        masked = slash.join(self.mask_ if segment.fullmatch(seg) else seg for seg in segments)
        return url[:path_at] + masked + url[end:]


# -- request identities -----------------------------------------------------------------
@functools.lru_cache(maxsize=256)
def _identity_scrubber(values: tuple[str, ...]) -> tuple[tuple[bytes, ...], "_Tokens | None"]:
    """How request identities mask a request body, as they always have: the fixed spellings of
    :func:`echo_forms` in UTF-8 and CP949 (a short value where it is a whole token). Identities are sealed into
    snapshots, so this must not follow the masker's growing knowledge of spellings."""
    distinct = [v for v in dict.fromkeys(values) if v]
    text_forms = sorted(
        {form for v in distinct if len(v) >= MIN_SECRET_LENGTH for form in echo_forms(v)}, key=lambda f: (-len(f), f)
    )
    byte_forms = sorted({raw for form in text_forms for raw in _encodings(form)}, key=lambda b: (-len(b), b))
    short = sorted(
        {form for v in distinct if len(v) < MIN_SECRET_LENGTH for form in echo_forms(v)}, key=lambda f: (-len(f), f)
    )
    tokens = None
    if short:
        raw = sorted({data for form in short for data in _encodings(form)}, key=lambda b: (-len(b), b))
        tokens = _Tokens.of([re.escape(f) for f in raw], [re.escape(f) for f in raw if b"/" not in f])
    return tuple(byte_forms), tokens


def _identity_body(values: tuple[str, ...], body: bytes) -> bytes:
    """``body`` as a request identity counts it (:func:`_identity_scrubber`)."""
    if not body:
        return body
    forms, tokens = _identity_scrubber(values)
    for raw in forms:
        if raw in body:
            body = body.replace(raw, _MASK_BYTES)
    if tokens is not None:
        body = tokens.mask(body)
    return body


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
