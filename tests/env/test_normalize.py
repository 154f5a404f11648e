"""The value quirks: blanks become None, numbers stay strings (kopa_replay.text.as_number reads them)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from kopa_replay.env.normalize import is_blank, normalize_record, normalize_records, normalize_value


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
