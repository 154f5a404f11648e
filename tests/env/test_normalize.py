"""The value quirks: blanks become None, numbers stay strings, as_number reads them."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kopa_replay.env.normalize import as_number, is_blank, normalize_record, normalize_records, normalize_value

PADDING = st.text(alphabet=" ", max_size=4)


@pytest.mark.parametrize("text, number", [
    ("1,234", 1234), (".11", 0.11), ("-1.50", -1.5), ("   72,000", 72000), ("-.41", -0.41), ("1680", 1680),
    ("+3", 3), ("1,234,567.5", 1234567.5), ("0", 0),
])
def test_as_number_reads_the_platforms_spellings(text, number):
    got = as_number(text)
    assert got == number and type(got) is type(number)


@pytest.mark.parametrize("text", ["N/A", "1,23", "12a", "-", ".", "1.", "1,2345", "--1", "1 234"])
def test_as_number_refuses_what_is_not_a_number(text):
    with pytest.raises(ValueError):
        as_number(text)


def test_as_number_passes_blanks_and_numbers():
    assert as_number(None) is None and as_number(" ") is None and as_number("") is None
    assert as_number(7) == 7 and as_number(2.5) == 2.5
    with pytest.raises(ValueError):
        as_number(True)


@given(n=st.integers(-10**12, 10**12), left=PADDING, right=PADDING, commas=st.booleans())
def test_as_number_round_trips_integers(n, left, right, commas):
    text = f"{n:,}" if commas else str(n)
    assert as_number(left + text + right) == n


@given(cents=st.integers(-10**9, 10**9), commas=st.booleans(), drop_zero=st.booleans())
def test_as_number_round_trips_decimals(cents, commas, drop_zero):
    value = cents / 100
    text = f"{abs(value):,.2f}" if commas else f"{abs(value):.2f}"
    if drop_zero and text.startswith("0."):
        text = text[1:]  # ".11" as data.go.kr writes fltRt
    text = ("-" if cents < 0 else "") + text
    assert as_number(text) == pytest.approx(value)


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
    assert normalize_records(records) == [{"a": None, "b": {"c": None, "d": "1,234"}, "e": [None, "x"]},
                                          {"clpr": "   72,000"}]
