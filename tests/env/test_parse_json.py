"""A JSON body reads the same through the orjson fast path as through the stdlib: the same values of the same types
(an int stays an int, -0.0 stays -0.0, a 30-digit integer is not rounded to a float), the same refusals.

The reference is ``json.loads`` of the body as decoded and stripped before the fast path existed, and the bodies
are written token by token here, with the edges where the two parsers part: long integers, exponents past a float's
range, NaN and Infinity, lone surrogate escapes, a BOM (which a body declared UTF-8 keeps, and fails on), a charset
declared by the header or by a ``<meta>`` inside a string, whitespace JSON does not allow, duplicate keys, bytes that
are not UTF-8. Nesting deeper than the stdlib reads (a RecursionError before, a traceback) is the one place they
may part: it reads or is a ParseError (the last tests)."""

from __future__ import annotations

import json

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from kopa_replay.env.parse import ParseError, decode_text, parse_body

# short, or around where 64 bits end (19-20 digits)
_DIGITS = st.one_of(st.text("0123456789", min_size=1, max_size=5), st.text("0123456789", min_size=17, max_size=30))
NUMBERS = st.one_of(
    st.builds(lambda sign, digits: sign + digits.lstrip("0") or "0", st.sampled_from(["", "-"]), _DIGITS),
    st.builds(
        lambda sign, whole, frac, exp: f"{sign}{whole.lstrip('0') or '0'}{frac}{exp}",
        st.sampled_from(["", "-"]),
        _DIGITS,
        st.one_of(st.just(""), _DIGITS.map(lambda d: "." + d)),
        st.one_of(
            st.just(""),
            st.builds("{}{}{}".format, st.sampled_from("eE"), st.sampled_from(["", "+", "-"]), st.integers(0, 500)),
        ),
    ),
    st.floats(allow_nan=False, allow_infinity=False).map(repr),
    # outside strict JSON: the stdlib reads some of these, orjson none
    st.sampled_from(["NaN", "Infinity", "-Infinity", "01", "1.", ".5", "+1", "-", "1e", "0x10", "1_000"]),
)
STRINGS = st.one_of(
    st.builds(json.dumps, st.text(max_size=12), ensure_ascii=st.booleans()),
    st.sampled_from(
        [
            '"\\ud800"',
            '"\\udc00x"',
            '"\\ud83d\\ude00"',
            '"\\u0000"',
            '"tab\there"',
            '"\\x41"',
            '"<meta charset=euc-kr>"',
            '"<meta charset=utf-8>"',
        ]
    ),
)
#: between tokens: JSON's whitespace (a spoiled body gets what it does not allow at its ends, see bodies)
SPACE = st.sampled_from(["", "", "", " ", "\n", "\r\n", "\t"])
#: before the document: also what str.lstrip takes and JSON does not (the stdlib path strips the decoded text)
LEAD = st.sampled_from(["", "", " ", "\n", "\x0c", "\x0b", "\u3000", "\x1f"])
TRAIL = st.sampled_from(["", "", "", " ", "\n", "x", ",", "\x0c"])


@st.composite
def values(draw, depth: int = 0) -> str:
    kinds = ["number", "string", "literal"] + (["array", "object"] if depth < 4 else [])
    kind = draw(st.sampled_from(kinds))
    if kind == "number":
        return draw(NUMBERS)
    if kind == "string":
        return draw(STRINGS)
    if kind == "literal":
        return draw(st.sampled_from(["true", "false", "null"]))
    items = draw(st.lists(values(depth + 1), max_size=4))
    if kind == "array":
        return "[" + ",".join(items) + "]"
    keys = draw(st.lists(st.sampled_from(['"a"', '"b"', '"가"', '"a"']), min_size=len(items), max_size=len(items)))
    return "{" + ",".join(f"{k}{draw(SPACE)}:{draw(SPACE)}{v}" for k, v in zip(keys, items)) + "}"


CONTENT_TYPES = st.sampled_from(
    [
        None,
        None,
        "application/json",
        "application/json;charset=UTF-8",
        "application/json; charset=utf8",
        "text/plain; charset=EUC-KR",
    ]
)


@st.composite
def bodies(draw) -> bytes:
    top = draw(values())
    if draw(st.booleans()):  # mostly documents, as the platforms send
        top = "{" + f'"items":{top}' + "}"
    text = draw(LEAD) + top + draw(TRAIL)
    body = text.encode("utf-8", errors="surrogatepass")
    prefix = draw(st.sampled_from([b"", b"", b"", b"", b"\xef\xbb\xbf", b"\xef\xbb\xbf\xef\xbb\xbf", b"\xff"]))
    return prefix + body


def _stdlib(body: bytes, content_type: str | None = None) -> str:
    """What the body read as before orjson: the decoded text's ``json.loads``; a refusal as ``"refused"``."""
    try:
        return repr(json.loads(decode_text(body, content_type).lstrip()))
    except json.JSONDecodeError:
        return "refused"


def _ours(body: bytes, content_type: str | None = None) -> str:
    try:
        return repr(parse_body(body, content_type=content_type))
    except ParseError:
        return "refused"


@settings(max_examples=600, deadline=None)
@given(bodies(), CONTENT_TYPES)
@example('{"n": 123456789012345678901234567890}'.encode(), None)  # past 64 bits: orjson would make it a float
@example(b"[-9223372036854775809, 18446744073709551615]", None)
@example(b'{"x": 1e400, "y": -1e400}', None)  # the stdlib reads inf, orjson refuses
@example(b'{"s": "\\ud800"}', None)  # a lone surrogate: the stdlib keeps it, orjson refuses
@example('\ufeff {"a": 1, "a": 2}'.encode(), None)  # a BOM, then duplicate keys: the last wins in both
@example('{"nm": "똠방각하"}'.encode("cp949"), None)  # not UTF-8: read as CP949, as before
@example(b"\x0b[1, 2.0, -0.0, -0]", None)
# a BOM on a body declared UTF-8 (by its header, or by a <meta> in a string): the stdlib's decode keeps it, and fails
@example(b'\xef\xbb\xbf{"a": 1}', "application/json;charset=UTF-8")
@example(b'\xef\xbb\xbf{"html": "<meta charset=utf-8>"}', None)
def test_json_bodies_read_as_the_stdlib_reads_them(body: bytes, content_type: str | None) -> None:
    assert _ours(body, content_type) == _stdlib(body, content_type)


def test_a_long_integer_stays_an_integer() -> None:
    # the check above compares with the stdlib; this one says what the stdlib's reading is
    doc = parse_body(b'{"id": 123456789012345678901234567890, "small": 7, "f": 7.0}')
    assert doc == {"id": 123456789012345678901234567890, "small": 7, "f": 7.0}
    assert type(doc["id"]) is int and type(doc["small"]) is int and type(doc["f"]) is float


def _depth(doc: list) -> int:
    depth = 0
    while isinstance(doc, list) and doc:
        doc, depth = doc[0], depth + 1
    return depth + isinstance(doc, list)


def test_nesting_the_stdlib_cannot_read_reads_or_is_refused_never_a_recursion_error() -> None:
    # 1,000 levels: past the stdlib's reach from a test's stack (a RecursionError escaped before), within orjson's
    assert _depth(parse_body(b"[" * 1000 + b"]" * 1000)) == 1000
    for deep in (
        b"[" * 5000 + b"]" * 5000,  # past orjson's 1,024 too: the stdlib's path, its RecursionError a refusal
        b'{"a":' * 3000 + b"1" + b"}" * 3000,
        b"<a>" * 5000 + b"</a>" * 5000,  # XML, whose elements are read by recursion
    ):
        with pytest.raises(ParseError, match="nested too deeply"):
            parse_body(deep)
