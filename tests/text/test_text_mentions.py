"""Numbers in running text: the Korean numeral and unit grammar, and its two readers (every reading; one per number)."""

from __future__ import annotations

from decimal import Decimal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kopa_replay.text import korean_numbers, korean_value, number_mentions, parse_numbers

FULL_WIDTH = str.maketrans("0123456789,.", "０１２３４５６７８９，．")
DIGIT = "일이삼사오육칠팔구"


def hangul_below_10000(n: int) -> str:
    """1680 → 천육백팔십 (1 before 십/백/천 left out, as Korean writes it)."""
    out = ""
    for unit, place in (("천", 1000), ("백", 100), ("십", 10)):
        count, n = divmod(n, place)
        if count:
            out += ("" if count == 1 else DIGIT[count - 1]) + unit
    return out + (DIGIT[n - 1] if n else "")


def grouped(n: int, below: str = "arabic", spaced: bool = True) -> str:
    """n in 조/억/만 groups, each group Arabic with commas (``3,660만 1,732``) or in Hangul numerals."""
    parts = []
    for unit, place in (("조", 10**12), ("억", 10**8), ("만", 10**4), ("", 1)):
        count, n = divmod(n, place)
        if count:
            parts.append((f"{count:,}" if below == "arabic" else hangul_below_10000(count)) + unit)
    return (" " if spaced else "").join(parts)


@settings(max_examples=300)
@given(st.integers(1, 10**16 - 1), st.sampled_from(["arabic", "hangul"]), st.booleans())
def test_a_number_in_korean_groups_reads_back(n, below, spaced):
    written = grouped(n, below, spaced)
    value, resolution = korean_value(written)
    assert value == n
    # the resolution is the place of the last digit written: 3,660만 → 10^4, 천육백팔십 → 10
    assert n % resolution == 0 and resolution <= n


@given(st.integers(0, 10**9), st.integers(0, 4), st.sampled_from([("천", 3), ("만", 4), ("억", 8), ("조", 12)]))
def test_a_unit_scales_a_decimal_figure(units, places, unit):
    name, exponent = unit
    figure = Decimal(units).scaleb(-places)
    value, resolution = korean_value(f"{figure:,f}{name}")
    assert value == figure.scaleb(exponent)
    assert resolution == Decimal(1).scaleb(exponent - places)


@given(st.integers(1, 10**12), st.booleans())
def test_full_width_digits_are_the_ascii_digits_in_text(n, commas):
    text = f"정답은 {n:,}원입니다" if commas else f"정답은 {n}원입니다"
    wide = text.translate(FULL_WIDTH)
    assert parse_numbers(wide) == tuple(m for m in parse_numbers(text))
    assert sorted(number_mentions(wide)) == sorted(number_mentions(text))


@settings(max_examples=200)
@given(st.integers(-(10**12), 10**12), st.integers(0, 3), st.sampled_from(["", "원", "%", "건", "명", "개"]))
def test_the_two_readers_agree_on_an_arabic_number(units, places, unit):
    number = Decimal(units).scaleb(-places)
    text = f"확인해 보니 {number:,f}{unit} 입니다"
    (mention,) = parse_numbers(text)
    assert mention.value == number and mention.unit == unit
    assert (number, Decimal(1).scaleb(-places)) in number_mentions(text)
    assert mention.half_ulp * 2 == Decimal(1).scaleb(-places)


@given(st.integers(1, 10**7), st.integers(0, 3), st.sampled_from("천만억조"))
def test_an_answer_unit_is_the_grammar_s(units, places, unit):
    figure = Decimal(units).scaleb(-places)
    (mention,) = parse_numbers(f"{figure:f}{unit}")
    value, resolution = korean_value(f"{figure:f}{unit}")
    assert (mention.value, mention.half_ulp * 2) == (value, resolution)


@pytest.mark.parametrize(
    "text, value, unit",
    [
        ("12.5 퍼센트", Decimal("12.5"), "%"),
        ("12.5프로", Decimal("12.5"), "%"),
        ("−3만 원", Decimal(-30000), "원"),
        ("3 만", Decimal(30000), ""),
        ("1조 4,000억원", Decimal(1_400_000_000_000), "원"),
    ],
)
def test_an_answer_is_read_leniently(text, value, unit):
    (mention,) = parse_numbers(text)
    assert (mention.value, mention.unit) == (value, unit)


def test_the_readers_differ_where_their_purposes_do():
    # every reading, for disclosure: 1.68천 is 1.68 and 1680; a malformed group still has its head;
    # a date is not its parts, but eight bare digits are a number too
    assert {value for value, _ in number_mentions("약 1.68천")} == {Decimal("1.68"), Decimal(1680)}
    assert Decimal(1) in {value for value, _ in number_mentions("1,2345")}
    assert Decimal(25) not in {value for value, _ in number_mentions("2026년 8월 25일")}
    assert Decimal(20380401) in {value for value, _ in number_mentions("20380401")}
    # one reading per number, for grading
    assert [m.value for m in parse_numbers("약 1.68천")] == [Decimal(1680)]
    assert parse_numbers("1,2345") == ()


def test_a_lone_unit_is_a_word():
    assert korean_numbers("조회 결과 동작구") == []
    assert [value for value, _ in korean_numbers("만 이천 명")] == [Decimal(12000)]
    assert korean_value("만억") is None and korean_value("") is None


def test_multipliers_that_do_not_continue_a_number_are_left_off():
    # 2천천 is not 2×10^6 (the grammar has one 천 per group): the reader keeps 2천
    assert [m.value for m in parse_numbers("2천천")] == [Decimal(2000)]
    assert [m.value for m in parse_numbers("9조천")] == [Decimal(9_000_000_001_000)]  # 9조 and a group of 천


@settings(max_examples=300)
@given(st.text())
def test_garbage_never_raises(text):
    parse_numbers(text)
    number_mentions(text)
    korean_numbers(text)
    korean_value(text)
