"""Parsed documents shared by their bytes: one parse per body, within a budget, never a wrong document."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import kopa_replay.env.parse as parse
from kopa_replay.env.parse import ParseError, forget_shared, parse_body, parse_body_shared


def test_the_same_bytes_are_parsed_once_and_other_bytes_anew(monkeypatch):
    body = json.dumps({"a": [1, 2, 3]}).encode()
    first = parse_body_shared(body)
    monkeypatch.setattr(parse, "parse_body", lambda *a: pytest.fail("parsed again"))
    assert parse_body_shared(bytes(body)) is first  # equal bytes, another object: the same document
    monkeypatch.undo()
    assert parse_body_shared(body, None, "application/xml") == first  # another key, parsed anew, equal
    assert parse_body_shared(b'{"a": 1}') == {"a": 1}
    forget_shared()  # as in a fresh process: parsed anew, the budget's count back to nothing
    assert parse._SHARED_BYTES[0] == 0 and parse_body_shared(body) is not first and parse_body_shared(body) == first


def test_the_budget_holds_and_a_bad_body_is_never_kept(monkeypatch):
    monkeypatch.setattr(parse, "SHARED_BODY_BUDGET", 100)
    for i in range(20):
        parse_body_shared(json.dumps({"i": i, "pad": "x" * 30}).encode())
    assert parse._SHARED_BYTES[0] <= 100 and sum(len(k[0]) for k in parse._SHARED) == parse._SHARED_BYTES[0]
    for _ in range(2):
        with pytest.raises(ParseError):
            parse_body_shared(b"{not json")


@settings(max_examples=100, deadline=None)
@given(st.lists(st.sampled_from([b'{"a": 1}', b'{"a": 2}', b"<r><a>1</a></r>", b"[1, 2]", b""]), max_size=20))
def test_a_shared_document_is_always_the_one_its_bytes_parse_to(bodies):
    for body in bodies:
        assert parse_body_shared(body) == parse_body(body)
