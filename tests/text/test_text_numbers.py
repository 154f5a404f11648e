"""One number written whole: the shared digits grammar, its two named options, as_number and canonical spellings."""

from __future__ import annotations

from decimal import Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kopa_replay.text import as_number, canonical_decimal, number_key, read_number
from kopa_replay.text.numbers import VALUE_UNITS

PADDING = st.text(alphabet=" ", max_size=4)
FULL_WIDTH = str.maketrans("0123456789", "０１２３４５６７８９")
DECIMALS = st.builds(
    lambda units, places: Decimal(units).scaleb(-places), st.integers(-(10**15), 10**15), st.integers(0, 6)
)


# -- as_number: the platforms' spellings, read for arithmetic (moved from tests/env/test_normalize.py) --------
@pytest.mark.parametrize(
    "text, number",
    [
        ("1,234", 1234),
        (".11", 0.11),
        ("-1.50", -1.5),
        ("   72,000", 72000),
        ("-.41", -0.41),
        ("1680", 1680),
        ("+3", 3),
        ("1,234,567.5", 1234567.5),
        ("0", 0),
    ],
)
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


@given(n=st.integers(-(10**12), 10**12), left=PADDING, right=PADDING, commas=st.booleans())
def test_as_number_round_trips_integers(n, left, right, commas):
    text = f"{n:,}" if commas else str(n)
    assert as_number(left + text + right) == n


@given(cents=st.integers(-(10**9), 10**9), commas=st.booleans(), drop_zero=st.booleans())
def test_as_number_round_trips_decimals(cents, commas, drop_zero):
    value = cents / 100
    text = f"{abs(value):,.2f}" if commas else f"{abs(value):.2f}"
    if drop_zero and text.startswith("0."):
        text = text[1:]  # ".11" as data.go.kr writes fltRt
    text = ("-" if cents < 0 else "") + text
    assert as_number(text) == pytest.approx(value)


# -- read_number: the core every reader shares ------------------------------------------------------------
@given(DECIMALS, st.booleans(), st.booleans(), PADDING, PADDING)
def test_a_formatted_number_reads_back(number, commas, plus, left, right):
    text = f"{number:,f}" if commas else f"{number:f}"
    if plus and number >= 0:
        text = "+" + text
    assert read_number(left + text + right) == number


@given(DECIMALS, st.booleans())
def test_full_width_digits_are_the_ascii_digits(number, commas):
    text = f"{number:,f}" if commas else f"{number:f}"
    wide = text.translate(FULL_WIDTH)
    assert read_number(wide) == read_number(text) == number
    assert number_key(wide) == number_key(text)
    assert as_number(wide) == as_number(text)


@given(st.integers(0, 10**9), st.integers(1, 6))
def test_bare_fraction_is_a_named_option(units, places):
    text = f"{Decimal(units).scaleb(-places):f}".removeprefix("0")  # ".11": a fraction without its leading zero
    if not text.startswith("."):
        return
    assert read_number(text) is None and number_key(text) is None  # keys: text, as always
    assert read_number(text, bare_fraction=True) == Decimal(text)  # the platforms' values: a number
    assert read_number("-" + text, bare_fraction=True) == -Decimal(text)


@given(DECIMALS, st.sampled_from(VALUE_UNITS), PADDING)
def test_units_are_taken_off_only_when_named(number, unit, space):
    text = f"{number:,f}{space}{unit}"
    assert read_number(text) is None
    assert read_number(text, units=VALUE_UNITS) == number
    assert number_key(text) == number_key(number) == f"N:{canonical_decimal(number)}"


@given(st.text(max_size=12))
def test_as_number_is_read_number_with_bare_fractions(text):
    """The platforms' reader and the core agree on every string: the same number, or both refuse it."""
    core = read_number(text, bare_fraction=True)
    try:
        got = as_number(text)
    except ValueError:
        assert core is None
        return
    assert (got is None and not text.strip()) or Decimal(str(got)) == core


@given(DECIMALS)
def test_canonical_decimal_is_one_spelling_that_reads_back(number):
    spelled = canonical_decimal(number)
    assert read_number(spelled) == number
    assert canonical_decimal(read_number(spelled)) == spelled
    assert canonical_decimal(number * 1) == canonical_decimal(number.normalize()) == spelled
    assert not spelled.endswith(".") and ("." not in spelled or not spelled.endswith("0"))


@pytest.mark.parametrize(
    "text", ["", " ", "+", "-", ".", "1.", "1,23", "1,2345", "12a", "1 234", "--1", "NaN", "inf", "1e5", "1_000"]
)
def test_what_is_not_a_number_is_none_with_every_option(text):
    assert read_number(text) is None
    assert read_number(text, bare_fraction=True, units=VALUE_UNITS) is None
