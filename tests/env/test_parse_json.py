"""A JSON body reads the same through the orjson fast path as through the stdlib: the same values of the same types
(an int stays an int, -0.0 stays -0.0, a 30-digit integer is not rounded to a float), the same refusals.

The reference is ``json.loads`` of the body as decoded and stripped before the fast path existed, and the bodies
are written token by token here, with the edges where the two parsers part: long integers, exponents past a float's
range, NaN and Infinity, lone surrogate escapes, a BOM, whitespace JSON does not allow, duplicate keys, bytes that
are not UTF-8."""

from __future__ import annotations

import json

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


@st.composite
def bodies(draw) -> bytes:
    top = draw(values())
    if draw(st.booleans()):  # mostly documents, as the platforms send
        top = "{" + f'"items":{top}' + "}"
    text = draw(LEAD) + top + draw(TRAIL)
    body = text.encode("utf-8", errors="surrogatepass")
    prefix = draw(st.sampled_from([b"", b"", b"", b"", b"\xef\xbb\xbf", b"\xef\xbb\xbf\xef\xbb\xbf", b"\xff"]))
    return prefix + body


def _stdlib(body: bytes) -> str:
    """What the body read as before orjson: the decoded text's ``json.loads``; a refusal as ``"refused"``."""
    try:
        return repr(json.loads(decode_text(body).lstrip()))
    except json.JSONDecodeError:
        return "refused"


def _ours(body: bytes) -> str:
    try:
        return repr(parse_body(body))
    except ParseError:
        return "refused"


@settings(max_examples=600, deadline=None)
@given(bodies())
@example('{"n": 123456789012345678901234567890}'.encode())  # past 64 bits: orjson would make it a float
@example(b"[-9223372036854775809, 18446744073709551615]")
@example(b'{"x": 1e400, "y": -1e400}')  # the stdlib reads inf, orjson refuses
@example(b'{"s": "\\ud800"}')  # a lone surrogate: the stdlib keeps it, orjson refuses
@example('\ufeff {"a": 1, "a": 2}'.encode())  # a BOM, then duplicate keys: the last wins in both
@example('{"nm": "똠방각하"}'.encode("cp949"))  # not UTF-8: read as CP949, as before
@example(b"\x0b[1, 2.0, -0.0, -0]")
def test_json_bodies_read_as_the_stdlib_reads_them(body: bytes) -> None:
    assert _ours(body) == _stdlib(body)


def test_a_long_integer_stays_an_integer() -> None:
    # the check above compares with the stdlib; this one says what the stdlib's reading is
    doc = parse_body(b'{"id": 123456789012345678901234567890, "small": 7, "f": 7.0}')
    assert doc == {"id": 123456789012345678901234567890, "small": 7, "f": 7.0}
    assert type(doc["id"]) is int and type(doc["small"]) is int and type(doc["f"]) is float
