"""Canonical forms of numbers, dates and codes — and both disclosure judges seeing through every form."""

from __future__ import annotations

import dataclasses
from datetime import date

import pytest
from filter_fixtures import trajectory
from hypothesis import assume, given
from hypothesis import strategies as st

from kopa_replay.filter.judges import RegexJudge, TokenJudge
from kopa_replay.filter.model import Case
from kopa_replay.text import (
    date_key,
    foreign_script,
    has_hangul,
    informative,
    normalize_question,
    number_key,
    question_keys,
    value_keys,
)

JUDGES = (RegexJudge(), TokenJudge())
BASE = "회사명 라이트론으로 「공시대상회사 고유번호 검색」을 호출했을 때, 결과는 몇 건입니까?"


def votes(question: str, handed: tuple = (), answer_value=None) -> list[bool]:
    """Each judge's disclosure vote on a question mentioning (or not) a handed value."""
    item = trajectory(question=question, handed=handed, values=handed or ("x",))
    if answer_value is not None:
        item = dataclasses.replace(item, answer=dataclasses.replace(item.answer, value=answer_value))
    return [judge.judge("disclosed", Case(item)).discard for judge in JUDGES]


NUMBER_FORMS = (lambda n: f"{n:,}", lambda n: f"{n}.0", lambda n: f"{n:,}원", lambda n: str(n), lambda n: f"{float(n)}")


@given(st.integers(min_value=10, max_value=10**12), st.sampled_from(NUMBER_FORMS))
def test_an_integer_is_one_number_however_written(n, form):
    assert number_key(form(n)) == number_key(n) == number_key(str(n)) == f"N:{n}"


@given(
    st.integers(min_value=10, max_value=10**12),
    st.sampled_from(NUMBER_FORMS),
    st.sampled_from(("참고로 {}입니다. ", "({}) ", "중간 값 {}을 이용해 ")),
)
def test_both_judges_see_an_integer_through_its_format(n, form, phrase):
    assume(n != 20260101)  # the hand-made item's own start date: a value the user gave is no secret
    question = phrase.format(form(n)) + BASE
    assert votes(question, handed=(str(n),)) == [True, True]


@given(st.integers(min_value=-(10**9), max_value=-10))
def test_a_negative_number_is_seen_with_its_sign(n):
    assert votes(f"{n:,}원 기준으로 " + BASE, handed=(str(n),)) == [True, True]


DATE_FORMS = (
    lambda d: d.strftime("%Y-%m-%d"),
    lambda d: d.strftime("%Y%m%d"),
    lambda d: f"{d.year}년 {d.month}월 {d.day}일",
    lambda d: d.strftime("%Y.%m.%d"),
    lambda d: f"{d.year}/{d.month}/{d.day}",
)


@given(st.dates(min_value=date(1950, 1, 1), max_value=date(2099, 12, 31)), st.sampled_from(DATE_FORMS))
def test_a_date_is_one_date_in_every_format(day, form):
    assert date_key(form(day)) == date_key(day.strftime("%Y%m%d")) == f"D:{day:%Y%m%d}"


@given(
    st.dates(min_value=date(1950, 1, 1), max_value=date(2099, 12, 31)),
    st.sampled_from(DATE_FORMS),
    st.sampled_from(DATE_FORMS),
)
def test_both_judges_match_a_handed_date_in_another_format(day, handed_form, question_form):
    assume(day != date(2026, 1, 1))  # the hand-made item's own start date
    question = f"{question_form(day)} 기준으로 " + BASE
    assert votes(question, handed=(handed_form(day),)) == [True, True]


@given(st.integers(min_value=1000, max_value=99_999_999), st.integers(min_value=1, max_value=4))
def test_a_code_is_seen_without_its_leading_zeros_and_split_by_a_space(n, zeros):
    assume(n != 20260101)
    code = "0" * zeros + str(n)
    half = len(code) // 2
    for shown in (code, code.lstrip("0"), f"{code[:half]} {code[half:]}"):
        assert votes(f"코드 {shown}로 " + BASE, handed=(code,)) == [True, True], shown


def test_date_parts_are_not_numbers():
    # "2026년 8월 25일" mentions the date, not the number 25
    assert votes("2026년 8월 25일 기준으로 " + BASE, answer_value=25) == [False, False]
    assert "N:25" not in question_keys("2026년 8월 25일 기준")


def test_digits_of_an_identifier_are_not_a_number():
    # 시도교육청코드 B10 names an office, it does not state the answer 10; "10건" does
    assert votes("시도교육청코드 B10의 " + BASE, answer_value=10) == [False, False]
    assert votes("이미 10건이 나온 " + BASE, answer_value=10) == [True, True]
    assert votes("ISIN KR7142390004의 " + BASE, handed=("KR7142390004",)) == [True, True]


def test_a_rounded_decimal_answer_is_still_disclosed():
    assert votes("정답은 약 215.78%입니다. " + BASE, answer_value=215.7834) == [True, True]
    assert votes("정답은 215.7%쯤입니다. " + BASE, answer_value=215.7834) == [True, True]  # cut, not rounded
    # a rounding to an integer still discloses when it keeps three significant digits (216 for 215.78) …
    assert votes("참고로 216 " + BASE, answer_value=215.7834) == [True, True]
    # … not with fewer (22 for 21.78), and not an integer the value does not round or cut to
    assert votes("참고로 22 " + BASE, answer_value=21.7834) == [False, False]
    assert votes("참고로 214 " + BASE, answer_value=215.7834) == [False, False]


def test_text_values_match_across_spacing_and_case():
    assert votes("정류소 sjb 8000016 근처에서 " + BASE, handed=("SJB8000016",)) == [True, True]
    assert votes("서대문 구의 " + BASE, handed=("서대문구",)) == [True, True]


@pytest.mark.parametrize(
    "value, expected",
    [
        (7, False),
        ("3", False),
        (True, False),
        (None, False),
        ("가", False),
        (10, True),
        ("0042", True),
        (2.5, True),
        ("서대문구", True),
        ("SJB8000016", True),
    ],
)
def test_small_values_are_not_informative(value, expected):
    assert informative(value) is expected


def test_value_keys_of_a_code_keep_and_strip_zeros():
    assert value_keys("00126380") >= {"C:00126380", "C:126380", "N:126380"}
    assert value_keys("00000012") == frozenset({"C:00000012", "N:12"})  # 12 is too short to strip to


def test_question_normalization_and_scripts():
    assert normalize_question("  몇 건입니까?! ", spaces=False) == "몇건입니까"
    assert foreign_script("결과 結果 データ") == list("結果データ")
    assert foreign_script("한국어 질문 ABC 123") == []
    assert has_hangul("질문") and not has_hangul("question")
