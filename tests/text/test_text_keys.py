"""Canonical keys: a value and a question that states it share a key, however the value is written."""

from __future__ import annotations

from datetime import date
from decimal import Decimal

from hypothesis import assume, given
from hypothesis import strategies as st

from kopa_replay.text import (
    comma_codes,
    date_key,
    date_spans,
    discloses_number,
    informative,
    number_key,
    number_mentions,
    question_keys,
    value_keys,
)

FULL_WIDTH = str.maketrans("0123456789,.-", "０１２３４５６７８９，．－")
NUMBER_FORMS = (lambda n: f"{n:,}", lambda n: str(n), lambda n: f"{n:,}원", lambda n: f"{n}.0")


@given(st.integers(10, 10**12), st.sampled_from(NUMBER_FORMS))
def test_a_question_stating_a_number_mentions_its_key(n, form):
    question = f"참고로 값은 {form(n)}입니다."
    assert number_key(n) in value_keys(n) & question_keys(question)
    assert question_keys(question.translate(FULL_WIDTH)) == question_keys(question)


@given(st.dates(min_value=date(1950, 1, 1), max_value=date(2099, 12, 31)))
def test_a_date_key_reads_back_and_its_span_hides_its_parts(day):
    written = f"{day.year}년 {day.month}월 {day.day}일"
    assert date_key(written) == date_key(day.strftime("%Y-%m-%d")) == f"D:{day:%Y%m%d}"
    keys, spans = date_spans(f"기준일 {written} 현재")
    assert keys == {f"D:{day:%Y%m%d}"} and len(spans) == 1
    assert f"N:{day.day}" not in question_keys(f"기준일 {written} 현재")


@given(st.integers(1000, 99_999_999), st.integers(0, 3))
def test_a_code_keeps_and_strips_its_zeros(n, zeros):
    code = "0" * zeros + str(n)
    keys = value_keys(code)
    assert f"C:{code}" in keys and f"C:{n}" in keys
    assert f"C:{code}" in question_keys(f"코드 {code[:2]} {code[2:]}로 조회")


@given(st.integers(10**4, 10**12), st.integers(1, 4))
def test_a_rounding_that_keeps_three_digits_discloses(n, places):
    number = Decimal(n).scaleb(-places)
    rounded = round(number, 1)
    assume(len(str(int(rounded * 10)).rstrip("0")) >= 3)  # trailing zeros are not significant (100.0 ≈ 100)
    assert discloses_number(str(number), number_mentions(f"약 {rounded:f} 정도"))
    assert discloses_number(str(number), number_mentions(f"정확히 {number:f}"))


@given(st.integers(-9, 9))
def test_small_numbers_are_not_informative(n):
    assert not informative(n) and value_keys(n) == frozenset()


def test_comma_joined_digits_read_as_one_code():
    assert "C:1680" in comma_codes("코드는 1,6 8 0입니다")
    assert comma_codes("1,680원") == frozenset()


def test_eight_digits_that_read_as_a_date_are_a_number_too():
    """Hypothesis found it: 20640801 is 2064-08-01 and also a number a question can state ("20640801원")."""
    for question in ("참고로 값은 20640801입니다.", "참고로 값은 20640801원입니다."):
        keys = question_keys(question)
        assert {"D:20640801", "N:20640801"} <= keys
