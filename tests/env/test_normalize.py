"""The value quirks: blanks become None, numbers stay strings (kopa_replay.text.as_number reads them)."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from kopa_replay.env.normalize import is_blank, normalize_read, normalize_record, normalize_records, normalize_value


@given(st.text(alphabet=" \t\n", max_size=5))
def test_blanks_become_none(text):
    assert is_blank(text) and normalize_value(text) is None


@given(st.text().filter(lambda t: t.strip() != ""))
def test_other_strings_are_kept_exactly(text):
    assert normalize_value(text) == text


@given(st.dictionaries(st.text(max_size=5), st.one_of(st.text(max_size=6), st.integers(), st.none()), max_size=8))
def test_records_keep_keys_order_and_non_blank_values(record):
    out = normalize_record(record)
    assert list(out) == list(record)
    for key, value in record.items():
        if isinstance(value, str) and not value.strip():
            assert out[key] is None
        else:
            assert out[key] == value


def test_nested_values_and_lists_of_records():
    records = [{"a": " ", "b": {"c": "", "d": "1,234"}, "e": [" ", "x"]}, {"clpr": "   72,000"}]
    assert normalize_records(records) == [
        {"a": None, "b": {"c": None, "d": "1,234"}, "e": [None, "x"]},
        {"clpr": "   72,000"},
    ]


_JSON_SCALARS = st.one_of(
    st.text(max_size=6), st.integers(), st.booleans(), st.none(), st.floats(allow_nan=True, allow_infinity=True)
)
_JSON_VALUES = st.recursive(
    _JSON_SCALARS,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner, max_size=3),
    max_leaves=6,
)


@settings(max_examples=40)  # cheap: CI is near its cap
@given(st.lists(st.dictionaries(st.text(max_size=5), _JSON_VALUES, max_size=6), max_size=3))
def test_the_one_pass_read_normalizes_alike_and_its_plain_pages_digest_alike(records):
    """normalize_read gives normalize_records's records; a page it calls plain is flat and gets the same digest through
    the digest's fast writer (orjson) as through json — NaN, 1e-05, nesting and huge ints included."""
    import math

    from kopa_replay.env.core import _reading_digest, result_digest

    out, plain = normalize_read(records)
    expected = [normalize_record(r) for r in records]  # the per-value rule, apart from the one-pass reader
    assert json.dumps(out, default=repr) == json.dumps(expected, default=repr)  # NaN-safe, and key order kept
    if plain:
        assert all(type(v) not in (dict, list) for record in out for v in record.values())
        assert all(v == 0 or 1e-4 <= abs(v) < 1e16 for record in out for v in record.values() if isinstance(v, float))
        assert not any(isinstance(v, float) and not math.isfinite(v) for record in out for v in record.values())
    try:
        wanted = result_digest("t", "ok", "00", out)
    except (UnicodeEncodeError, ValueError):  # a lone surrogate: not text either way
        return
    assert _reading_digest("t", "ok", "00", out, plain) == wanted
