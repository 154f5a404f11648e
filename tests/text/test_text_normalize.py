"""Folded text forms: width and case, the two question forms (one option, no default), scripts."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kopa_replay.text import fold, foreign_script, has_hangul, normalize_question, text_form

WIDE = str.maketrans({chr(c): chr(c + 0xFEE0) for c in range(0x21, 0x7F)} | {" ": "\u3000"})
ASCII_TEXT = st.text(alphabet=st.characters(min_codepoint=0x20, max_codepoint=0x7E), max_size=30)
TEXT = st.text(max_size=40)


@given(ASCII_TEXT)
def test_full_width_is_ascii_in_every_form(text):
    wide = text.translate(WIDE)
    assert fold(wide) == fold(text) == text.casefold()
    assert text_form(wide) == text_form(text)
    for spaces in (False, True):
        assert normalize_question(wide, spaces=spaces) == normalize_question(text, spaces=spaces)


KOREAN_TEXT = st.text(alphabet=st.sampled_from("가나다라 서대문구 라이트론 ABCabc 0123 -_.,'\"·`"), max_size=30)


@given(KOREAN_TEXT)
def test_text_form_is_idempotent_on_hangul_and_ascii(text):
    # (not on every text: casefold after NFKC can leave a text NFKC would change again, "A´" → "a\u0301" → "á")
    assert text_form(text_form(text)) == text_form(text)


@given(TEXT)
def test_the_question_forms_are_idempotent(text):
    for spaces in (False, True):
        once = normalize_question(text, spaces=spaces)
        assert normalize_question(once, spaces=spaces) == once


@given(TEXT)
def test_the_exact_question_form_is_the_spaced_one_without_spaces_and_symbols(text):
    spaced = normalize_question(text, spaces=True)
    assert normalize_question(text, spaces=False) == "".join(ch for ch in spaced if ch.isalnum())
    assert "  " not in spaced and spaced == spaced.strip()


def test_the_question_form_must_be_chosen():
    with pytest.raises(TypeError):
        normalize_question("몇 건입니까?")  # type: ignore[call-arg]
    assert normalize_question("  몇 건입니까?! ", spaces=False) == "몇건입니까"
    assert normalize_question("  몇 건입니까?! ", spaces=True) == "몇 건입니까"
    assert normalize_question("A,B 1+1=2", spaces=True) == "a b 1+1=2"  # symbols kept, punctuation a space


@given(TEXT)
def test_text_form_drops_spacing_case_and_light_punctuation(text):
    assert text_form(f" {text.upper()} - _ ") == text_form(text.upper())
    assert not any(ch.isspace() for ch in text_form(text))


def test_scripts():
    assert foreign_script("결과 結果 データ") == list("結果データ")
    assert foreign_script("한국어 질문 ABC 123") == []
    assert has_hangul("질문") and not has_hangul("question")
