"""A key echoed back in any spelling — each character in any of its encodings — never survives the masker.

The echo is built here character by character (literal, percent-encoded UTF-8 or CP949 bytes in either hex case,
``+`` for a space, decimal or hex character references with any case and leading zeros, named entities, JSON
``\\uXXXX`` escapes in either case with surrogate pairs, ``\\/``, ``\\"``, ``\\\\``), embedded in a JSON, XML or
HTML body stored as UTF-8 or CP949, and the masked body is read back with decoders written here from the standard
library (percent-decoding in UTF-8 and CP949, ``html.unescape``, JSON unescaping, and a one-pass decoder that
undoes every form at once): none of them may find the key. The masker's own code is not used to decode.
"""

from __future__ import annotations

import functools
import html
import itertools
import json
import os
import re
import string
from typing import Callable
from urllib.parse import unquote, unquote_plus, unquote_to_bytes

import pytest
from hypothesis import HealthCheck, assume, example, given, settings
from hypothesis import strategies as st

from kopa_replay.record.redact import MASK, MIN_SECRET_LENGTH, Redactor

CHARSETS = ("utf-8", "cp949")


#: the properties filter spellings that read back as no key at all, and build a matcher per drawn key
SLOW_OK = [HealthCheck.filter_too_much, HealthCheck.too_slow]


def _examples(default: int) -> int:
    """KOPA_ECHO_EXAMPLES=3000 for a longer search."""
    return int(os.environ.get("KOPA_ECHO_EXAMPLES", default))


# -- keys ---------------------------------------------------------------------------
HEX = "0123456789abcdef"
BASE64 = string.ascii_letters + string.digits + "+/"
#: DART: 40 lower-case hex digits
dart_keys = st.text(alphabet=HEX, min_size=40, max_size=40)
#: data.go.kr: ~100 base64 characters, ``=`` padded
datagokr_keys = st.builds(
    lambda body, pad: body + pad, st.text(alphabet=BASE64, min_size=90, max_size=100), st.sampled_from(["", "=", "=="])
)
#: keys with Hangul (any syllable: all of them are two bytes in CP949)
hangul_keys = st.text(
    alphabet=st.one_of(
        st.sampled_from(string.ascii_letters + string.digits), st.characters(min_codepoint=0xAC00, max_codepoint=0xD7A3)
    ),
    min_size=MIN_SECRET_LENGTH,
    max_size=40,
)
#: keys with the characters every escaping layer treats specially, a space, Hangul and one outside the BMP
special_keys = st.text(
    alphabet=st.sampled_from(list("abcXYZ019") + list(" \"'&<>\\%+/=;#") + list("한글키") + ["😀"]),
    min_size=MIN_SECRET_LENGTH,
    max_size=60,
).filter(lambda k: k.strip())
keys = st.one_of(dart_keys, datagokr_keys, hangul_keys, special_keys)


# -- spelling a key, one character at a time ----------------------------------------------------
def _hex(number: int, width: int, upper: bool) -> str:
    digits = f"{number:0{width}x}"
    return digits.upper() if upper else digits


def _percent(c: str, charset: str, upper: bool) -> str:
    return "".join("%" + _hex(b, 2, upper) for b in c.encode(charset))


def _json_u(c: str, upper: bool) -> str:
    code = ord(c)
    if code <= 0xFFFF:
        return "\\u" + _hex(code, 4, upper)
    code -= 0x10000
    return "\\u" + _hex(0xD800 + (code >> 10), 4, upper) + "\\u" + _hex(0xDC00 + (code & 0x3FF), 4, upper)


NAMED = {
    "&": ["&amp;", "&AMP;"],
    "<": ["&lt;", "&LT;"],
    ">": ["&gt;"],
    '"': ["&quot;"],
    "'": ["&apos;"],
    "/": ["&sol;"],
}
JSON_SHORT = {'"': '\\"', "\\": "\\\\", "/": "\\/"}
FORMS = ("literal", "percent", "plus", "decimal", "hex", "named", "json-u", "json-short")


def spell(c: str, form: str, *, charset: str, body_charset: str, upper: bool, zeros: int) -> str:
    """``c`` in ``form`` (a form that does not apply to ``c`` falls back to a decimal reference)."""
    if form == "literal" and _encodable(c, body_charset):
        return c
    if form == "percent" and _encodable(c, charset):
        return _percent(c, charset, upper)
    if form == "plus" and c == " ":
        return "+"
    if form == "hex":
        return f"&#{'X' if upper else 'x'}{'0' * zeros}{_hex(ord(c), 1, upper)};"
    if form == "named" and c in NAMED:
        return NAMED[c][zeros % len(NAMED[c])]
    if form == "json-u":
        return _json_u(c, upper)
    if form == "json-short" and c in JSON_SHORT:
        return JSON_SHORT[c]
    return f"&#{'0' * zeros}{ord(c)};"


def _encodable(c: str, charset: str) -> bool:
    try:
        c.encode(charset)
    except UnicodeEncodeError:
        return False
    return True


@st.composite
def echoes(draw, key_strategy=keys):
    """(key, its echo, the body charset): one form for the whole key, or a form per character."""
    key = draw(key_strategy)
    charset = draw(st.sampled_from(CHARSETS))  # the bytes percent-escapes stand for
    body_charset = draw(st.sampled_from(CHARSETS))
    n = len(key)
    if draw(st.booleans()):
        forms = [draw(st.sampled_from(FORMS))] * n
    else:
        forms = draw(st.lists(st.sampled_from(FORMS), min_size=n, max_size=n))
    uppers = draw(st.lists(st.booleans(), min_size=n, max_size=n))
    zeros = draw(st.lists(st.integers(0, 3), min_size=n, max_size=n))
    spelled = [
        spell(c, f, charset=charset, body_charset=body_charset, upper=u, zeros=z)
        for c, f, u, z in zip(key, forms, uppers, zeros, strict=True)
    ]
    if "+" in spelled and "+" in key:
        # a '+' standing for a space: a literal '+' of the key must then be escaped, as quote_plus does
        spelled = [_percent("+", "utf-8", True) if s == "+" and c == "+" else s for c, s in zip(key, spelled)]
    return key, "".join(spelled), body_charset


# -- bodies ---------------------------------------------------------------------------
CARRIERS = {
    "json": '{{"status": "000", "message": "정상", "link": "https://h/api?crtfc_key={e}&n=1", "echo": "{e}", '
    '"list": [{{"corp_name": "삼성전자", "amount": 1234}}]}}',
    "xml": '<?xml version="1.0"?><r><link>https://x/DRF/lawService.do?OC={e}&amp;target=law</link><v>{e}</v>'
    "<name>삼성전자</name></r>",
    "html": '<html><body><a href="/detail?OC={e}&amp;n=1">상세</a><p>key: {e}</p><b>삼성전자</b></body></html>',
}
#: text of every carrier that must survive masking
KEPT = "삼성전자"


# -- reading a body back: decoders independent of the masker ----------------------------------------
_JSON_RUN = re.compile(r'(?:\\u[0-9A-Fa-f]{4}|\\["\\/bfnrt])+')
_TOKEN = re.compile(
    r"(?P<pct>(?:%[0-9A-Fa-f]{2})+)"
    r"|(?P<ent>&(?:#[0-9]+;?|#[xX][0-9A-Fa-f]+;?|[A-Za-z][A-Za-z0-9]*;?))"
    r'|(?P<json>(?:\\u[0-9A-Fa-f]{4}|\\["\\/bfnrt])+)'
    r"|(?P<plus>\+)"
)


def json_unescape(text: str) -> str:
    return _JSON_RUN.sub(lambda m: json.loads('"' + m.group(0) + '"'), text)


def one_pass(text: str, charset: str, plus: bool) -> str:
    """Every escape undone once, left to right, whatever its kind: a key spelled with a form per character."""

    def undo(m: re.Match[str]) -> str:
        if m["pct"]:
            return unquote(m["pct"], encoding=charset, errors="replace")
        if m["ent"]:
            return html.unescape(m["ent"])
        if m["json"]:
            return json.loads('"' + m["json"] + '"')
        return " " if plus else "+"

    return _TOKEN.sub(undo, text)


def _layers(charset: str) -> list[Callable[[str], str]]:
    return [
        lambda t: unquote(t, encoding=charset, errors="replace"),
        lambda t: unquote_plus(t, encoding=charset, errors="replace"),
        html.unescape,
        json_unescape,
    ]


def decodings(text: str) -> set[str]:
    """``text`` read every way: as is, each layer undone, layers undone in every order, all at once."""
    out = {text}
    for charset in CHARSETS:
        layers = _layers(charset)
        for count in (1, 2, 3):
            for chain in itertools.permutations(layers, count):
                decoded = text
                for layer in chain:
                    decoded = layer(decoded)
                out.add(decoded)
        out |= {one_pass(text, charset, plus) for plus in (False, True)}
    return out


def byte_decodings(body: bytes) -> set[str]:
    """A body's bytes read in either charset (and percent-decoded at the byte level first), then every way."""
    texts = set()
    for raw in (body, unquote_to_bytes(body)):
        for charset in CHARSETS:
            texts.add(raw.decode(charset, errors="replace"))
    return {decoded for text in texts for decoded in decodings(text)}


_PERCENT = re.compile(r"(?:%[0-9A-Fa-f]{2}){1,4}")
#: what html.unescape reads as a reference (its own pattern)
_REFERENCE = re.compile(r"&(#[0-9]+;?|#[xX][0-9a-fA-F]+;?|[^\t\n\f <&#;]{1,32};?)")
_JSON_ESCAPE = re.compile(r'\\u[dD][89abAB][0-9a-fA-F]{2}\\u[0-9a-fA-F]{4}|\\u[0-9a-fA-F]{4}|\\["\\/bfnrt]')


def _spelled_chars(text: str, at: int) -> list[tuple[str, int]]:
    """(character, where its spelling ends) for every way a single character may be spelled at ``at``."""
    out = [(text[at], at + 1)]
    if text[at] == "+":
        out.append((" ", at + 1))
    run = _PERCENT.match(text, at)
    if run:
        data = unquote_to_bytes(run.group(0))
        for n in range(1, len(data) + 1):
            for charset in CHARSETS:
                try:
                    decoded = data[:n].decode(charset)
                except UnicodeDecodeError:
                    continue
                if len(decoded) == 1:
                    out.append((decoded, at + 3 * n))
    reference = _REFERENCE.match(text, at)
    if reference:
        token = reference.group(0)
        decoded = html.unescape(token)
        # a legacy name reads as the longest known prefix, the rest as text: "&ampx" is "&" then "x"
        for length in range(len(token), 1, -1):
            rest = token[length:]
            if decoded.endswith(rest) and len(decoded) - len(rest) == 1 and decoded != token:
                out.append((decoded[0], at + length))
                break
    escape = _JSON_ESCAPE.match(text, at)
    if escape:
        decoded = json.loads('"' + escape.group(0) + '"')
        if len(decoded) == 1:
            out.append((decoded, escape.end()))
    return out


def spelled(key: str, text: str) -> bool:
    """Whether ``text`` spells ``key`` anywhere, each character of it in any one spelling (the threat model: a
    per-character mix, which no whole-text decoder undoes when the spellings clash, as ``%78`` then ``%30``)."""

    @functools.lru_cache(maxsize=None)
    def from_(at: int, index: int) -> bool:
        if index == len(key):
            return True
        if at >= len(text):
            return False
        return any(c == key[index] and from_(end, index + 1) for c, end in _spelled_chars(text, at))

    return any(from_(at, 0) for at in range(len(text)))


def leaked(key: str, body: bytes | str) -> bool:
    if isinstance(body, bytes):
        if any(key.encode(c) in body for c in CHARSETS if _encodable(key, c)):
            return True
        texts = {raw.decode(c, errors="replace") for raw in (body, unquote_to_bytes(body)) for c in CHARSETS}
        return any(key in text for text in byte_decodings(body)) or any(spelled(key, text) for text in texts)
    return any(key in text for text in decodings(body)) or spelled(key, body)


def test_the_decoders_find_every_form_of_the_issue():
    """The checker itself: each spelling the issue lists reads back as the key."""
    key = "키값/+=A&1"
    for echo in [
        "&#53412;&#44050;/+=A&amp;1",
        "&#xD0A4;&#XAC12;&#x2F;+=&#0065;&1",
        "\\uD0A4\\uac12\\/+=A&1",
        "%ED%82%A4%ea%b0%92%2F%2B%3DA%261",
        "%C5%B0%B0%AA/%2B=A&1",
        "키&#xac12;\\/%2b&#61;\\u0041&amp;1",
    ]:
        charset = "cp949" if "%C5" in echo else "utf-8"
        assert any(key in one_pass(echo, charset, plus) for plus in (False, True)), echo
    assert "😀" in json_unescape("\\uD83D\\uDE00")
    assert leaked("abcdef", "abcde&#102x;") and not leaked("abcdef", "abcde&#1020;")
    assert spelled("8000000", "%78%30%30%30%30%30%30") and not leaked("8000000", "%78%30%30%30%30%30%31")
    assert spelled("a&b😀", "%61&amp\\u0062\\uD83D\\uDE00") and spelled("a&b", "a&ampb")
    assert not spelled("a<ri;b", "a&ltri;b") and spelled("a<rib", "a&ltrib")


# -- the properties -------------------------------------------------------------------
@settings(max_examples=_examples(300), deadline=None, suppress_health_check=SLOW_OK)
@given(echoes(), st.sampled_from(sorted(CARRIERS)))
@example(("0123456789abcdef0123456789abcdef01234567", "&#x30;123456789abcdef0123456789abcdef01234567", "utf-8"), "json")
@example(("키값키값키값", "\\uD0A4\\uAC12\\uD0A4\\uAC12\\uD0A4\\uAC12", "utf-8"), "json")
@example(("키값키값키값", "%C5%B0%B0%AA%C5%B0%B0%AA%c5%b0%b0%aa", "utf-8"), "xml")
@example(("ab/cd+ef==", "ab\\/cd+ef==", "utf-8"), "json")
@example(("a b😀c d", "a+b\\uD83D\\uDE00c%20d", "cp949"), "html")
def test_an_echo_in_any_spelling_is_masked_in_bodies(echo, carrier):
    key, spelled, body_charset = echo
    assume(any(key in text for text in decodings(spelled)))  # a spelling that reads back as the key at all
    body = CARRIERS[carrier].format(e=spelled).encode(body_charset)
    assert leaked(key, body)
    scrubbed = Redactor(secret_values=(key,)).scrub_bytes(body)
    assert not leaked(key, scrubbed), scrubbed
    assert MASK.encode() in scrubbed and KEPT.encode(body_charset) in scrubbed


@settings(max_examples=_examples(200), deadline=None, suppress_health_check=SLOW_OK)
@given(echoes(), st.sampled_from(sorted(CARRIERS)))
def test_an_echo_in_any_spelling_is_masked_in_text(echo, carrier):
    key, spelled, _ = echo
    assume(any(key in text for text in decodings(spelled)))
    text = "Error: upstream said " + CARRIERS[carrier].format(e=spelled)
    scrubbed = Redactor(secret_values=(key,)).scrub_text(text)
    assert not leaked(key, scrubbed), scrubbed
    assert MASK in scrubbed and KEPT in scrubbed


@st.composite
def near_misses(draw):
    """(key, a body echoing something that is not the key: one character changed, or one dropped at an end)."""
    key = draw(keys)
    how = draw(st.sampled_from(["changed", "head", "tail"]))
    if how == "changed":
        at = draw(st.integers(0, len(key) - 1))
        other = draw(st.sampled_from([c for c in "xQ7한 &%" if c != key[at]]))
        damaged = key[:at] + other + key[at + 1 :]
    else:
        damaged = key[1:] if how == "head" else key[:-1]
    _, spelled, body_charset = draw(echoes(st.just(damaged)))
    carrier = draw(st.sampled_from(sorted(CARRIERS)))
    return key, CARRIERS[carrier].format(e=spelled), body_charset


@settings(max_examples=_examples(300), deadline=None, suppress_health_check=SLOW_OK)
@given(near_misses())
def test_text_without_the_key_is_left_as_it_is(case):
    key, text, body_charset = case
    assume(not leaked(key, text))
    redactor = Redactor(secret_values=(key,))
    assert redactor.scrub_text(text) == text
    body = text.encode(body_charset)
    assert redactor.scrub_bytes(body) == body


@settings(max_examples=_examples(100), deadline=None)
@given(keys, st.text(alphabet=st.sampled_from(list("%&#;\\u0123456789abcdefABCDEFxX+/= 한글<>\"'")), max_size=300))
def test_escape_heavy_text_without_the_key_is_left_as_it_is(key, text):
    assume(not leaked(key, text))
    assert Redactor(secret_values=(key,)).scrub_text(text) == text
    body = text.encode("utf-8")
    assert Redactor(secret_values=(key,)).scrub_bytes(body) == body


# -- the issue's forms, one by one ---------------------------------------------------------
KEY = "키A/+=b 1"


@pytest.mark.parametrize(
    "echo",
    [
        "&#53412;A/+=b 1",  # decimal reference
        "&#xD0A4;A/+=b 1",  # hex reference, upper-case digits
        "&#XD0A4;A/+=b 1",  # upper-case X
        "&#xd0a4;&#0065;/+=b 1",  # lower-case digits, leading zeros
        "\\uD0A4\\u0041\\/+=b 1",  # upper-case JSON escape, PHP's escaped slash
        "%ED%82%A4A/%2b=b+1",  # partly percent-encoded, lower-case hex, + for a space
        "%C5%B0A%2F%2B%3Db%201",  # CP949 bytes percent-encoded
        "%C5%B0A/+=b%201",  # CP949 percent and literal characters
        "키&#x41;\\/%2B&#61;\\u0062+1",  # every kind at once
        "&#53412;A&sol;&plus;&equals;b&#32;1",  # named references
    ],
)
@pytest.mark.parametrize("charset", CHARSETS)
def test_each_form_of_the_issue_is_masked(echo, charset):
    body = f'{{"link": "https://h/?OC={echo}&n=1", "v": "{echo}"}}'.encode(charset)
    assert Redactor(secret_values=(KEY,)).scrub_bytes(body) == b'{"link": "https://h/?OC=***&n=1", "v": "***"}'
    assert Redactor(secret_values=(KEY,)).scrub_text(body.decode(charset)) == (
        '{"link": "https://h/?OC=***&n=1", "v": "***"}'
    )


def test_a_key_outside_the_bmp_as_a_surrogate_pair():
    key = "key-😀-value"
    for echo in ("key-\\uD83D\\uDE00-value", "key-\\ud83d\\ude00-value", "key-&#x1F600;-value", "key-&#128512;-value"):
        assert Redactor(secret_values=(key,)).scrub_text(f'"{echo}"') == '"***"', echo


def test_utf8_and_cp949_percent_bytes_mixed_in_one_key_are_masked():
    key = "한글키값서울"
    echo = "%ED%95%9C%B1%DB" + "키%b0%aa서%EC%9A%B8"  # 한 in UTF-8, 글 in CP949, 키 as is, 값 in CP949, ...
    assert Redactor(secret_values=(key,)).scrub_text(f"?OC={echo}&n=1") == "?OC=***&n=1"
    body = f"?OC={echo}&n=1".encode("cp949")
    assert Redactor(secret_values=(key,)).scrub_bytes(body) == b"?OC=***&n=1"


# -- request identities do not move ---------------------------------------------------------
IDENTITY_KEY = "0123456789abcdef0123456789abcdef01234567"


@pytest.mark.parametrize(
    "values, method, url, body, identity",
    [
        (
            (IDENTITY_KEY,),
            "GET",
            f"https://opendart.fss.or.kr/api/company.json?crtfc_key={IDENTITY_KEY}&corp_code=00439743",
            b"",
            "182a12baa96bc308e2bcfb762205d3d1ffc5814ea1a077dd34426e92ff5c71c4",
        ),
        (
            (IDENTITY_KEY,),
            "GET",
            f"http://openapi.seoul.go.kr:8088/{IDENTITY_KEY}/json/TbPublicWifiInfo/1/5",
            b"",
            "ab4a0c00d1ff906f7f1a6e7847a84ca03cec5f263b806c39527a1c530dea0a65",
        ),
        (
            (IDENTITY_KEY,),
            "POST",
            "https://data-dbg.krx.co.kr/svc/apis/sto/stk_bydd_trd",
            f'{{"basDd": "20260831", "k": "{IDENTITY_KEY}"}}'.encode(),
            "6c9a7e872b8957e8ef88d3375944bc171e1fd659f3e4e228c799a9aa80164137",
        ),
        (  # spellings the masker now knows, which identities never counted
            (IDENTITY_KEY,),
            "POST",
            "https://h.example/x",
            ('{"k": "\\u0030' + IDENTITY_KEY[1:] + '", "p": "%30' + IDENTITY_KEY[1:] + '"}').encode(),
            "1a32e82b96c57b33d2808d0dbdff667fdc61d022a5b467e80e8780781df01762",
        ),
        (
            ("k&1",),
            "POST",
            "https://h.example/x?OC=k%261",
            b"OC=k%261&n=1&m=k&amp;1",
            "241479bb40389bb5f3446a50f085cb1aa01b3ba23c6c640db2478fdc5029123a",
        ),
    ],
)
def test_request_identities_are_what_they_were(values, method, url, body, identity):
    """Identities are sealed into snapshots: the masker learning spellings must not move them (the digests are the
    ones the masker of whole-value forms computed)."""
    from kopa_replay.record.redact import redactor_for

    redactor = redactor_for(None, values)
    assert redactor.request_key(method, url, body) == identity
    if b"\\u0030" in body:
        assert redactor.scrub_bytes(body) == b'{"k": "***", "p": "***"}'
