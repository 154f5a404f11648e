"""Text as compared: Unicode-folded forms of values and questions, and the scripts a text is written in.

Every form starts from :func:`fold` (NFKC, then case-folded: ``ＡＢＣ１２３`` is ``abc123``):

* :func:`text_form` — a value's text without spaces, hyphens, underscores, quotes and light punctuation
  (``SJB-8000016`` = ``sjb 8000016``): what disclosure and grading match;
* :func:`normalize_question` — a question as compared for duplicates. One function, one option that every
  caller states (it has no default), because its two callers measure different things: the filter's near-duplicate rule compares questions exactly, so
  only letters and digits count (``spaces=False``: ``"몇 건입니까?!"`` → ``몇건입니까``); the benchmark's
  contamination measures compare character 3-grams of questions, which need the word boundaries
  (``spaces=True``: punctuation becomes a space, whitespace is collapsed, ``"A,B"`` → ``a b``). Dropping the
  spaces and symbols of the second gives the first.

Pure: no I/O, no state.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from typing import Any

__all__ = ["fold", "text_form", "normalize_question", "masked_question", "foreign_script", "has_hangul"]

_TEXT_STRIP = re.compile(r"[\s\-_'\"“”‘’`·.,]+")
_SPACE = re.compile(r"\s+")
# Han ideographs (unified, extension A, compatibility) and kana (hiragana, katakana, half-width katakana).
_FOREIGN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\u3040-\u309f\u30a0-\u30ff\uff66-\uff9f]")
_HANGUL = re.compile(r"[\uac00-\ud7a3]")


def fold(text: str) -> str:
    """NFKC, then case-folded: full-width letters, digits and signs become ASCII, ``ABC`` becomes ``abc``."""
    return unicodedata.normalize("NFKC", text).casefold()


def text_form(value: Any) -> str:
    """Case-folded NFKC text without spaces, hyphens, underscores, quotes and light punctuation."""
    return _TEXT_STRIP.sub("", fold(str(value)))


def normalize_question(question: str, *, spaces: bool) -> str:
    """The question as compared for duplicates: folded, letters and digits only; with ``spaces``, every
    punctuation character a space instead and whitespace collapsed (symbols and word boundaries kept)."""
    text = fold(question)
    if not spaces:
        return "".join(ch for ch in text if ch.isalnum())
    text = "".join(" " if unicodedata.category(ch).startswith("P") else ch for ch in text)
    return _SPACE.sub(" ", text).strip()


def foreign_script(text: str) -> list[str]:
    """The Han and kana characters in ``text``, in order (regex over Unicode blocks)."""
    return _FOREIGN.findall(text)


def has_hangul(text: str) -> bool:
    """Whether ``text`` holds a Hangul syllable."""
    return bool(_HANGUL.search(text))


_DIGITS = re.compile(r"\d+")
#: what a masked name becomes (a word normalization keeps, so masking twice changes nothing; Korean questions hold no "name")
NAME_MASK = "name"


def masked_question(question: str, names: Iterable[str] = (), then: Iterable[str] = ()) -> str:
    """``question`` normalized (:func:`normalize_question`, spaces kept), each of ``names`` and then each of ``then``
    (normalized alike; the longest first, two characters or more) replaced by ``name`` and every digit run by ``0``.

    A name holding a digit is left to the digit mask (a date slot, "2026년 9월 1일", must read as "0년 0월 0일" on
    both sides, whether or not one side knows it as a name). Two questions compared should be masked with the same
    ``names`` first (the names both sides know) and each with its own ``then``, so a name inside another ("서울",
    "서울특별시") is cut the same way on both."""
    text = normalize_question(question or "", spaces=True)
    for group in (names, then):
        forms = {normalize_question(str(name), spaces=True) for name in group}
        for form in sorted((f for f in forms if len(f) >= 2 and not _DIGITS.search(f)), key=lambda f: (-len(f), f)):
            text = text.replace(form, NAME_MASK)
    return " ".join(_DIGITS.sub("0", text).split())
