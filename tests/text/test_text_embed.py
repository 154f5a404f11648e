"""Hashed char n-gram TF-IDF, dense and sparse rows, and their cosine (kopa_replay.text.embed)."""

from __future__ import annotations

import zlib

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kopa_replay.errors import UsageError
from kopa_replay.text import embed as embed_module
from kopa_replay.text.embed import HashedNgramEmbedder, sparse_cosine, words

TEXTS = [
    "시군구코드",
    "시군구 코드 5자리",
    "학교명",
    "corp_code 고유번호",
    "corpCode DART 고유번호 8자리",
    "stock price 주가",
    "",
    "!!! ---",
]


def test_words_split_snake_and_camel_case_and_keep_hangul():
    assert words("fcltyNm_code 시군구코드, referenceDate") == ["fclty", "nm", "code", "시군구코드", "reference", "date"]


def test_korean_code_is_closer_to_its_description_than_to_a_school_name():
    vectors = HashedNgramEmbedder().embed(["시군구코드", "시군구 코드 5자리", "학교명"])
    assert vectors[0] @ vectors[1] > vectors[0] @ vectors[2]
    assert vectors[0] @ vectors[1] > 0.2


def test_rows_are_unit_norm_float32_and_empty_text_is_a_zero_row():
    vectors = HashedNgramEmbedder(n_features=1 << 12).embed(TEXTS)
    assert vectors.shape == (len(TEXTS), 1 << 12) and vectors.dtype == np.float32
    norms = np.linalg.norm(vectors, axis=1)
    np.testing.assert_allclose(norms[:6], 1.0, atol=1e-6)
    assert norms[6] == 0.0 and norms[7] == 0.0
    assert HashedNgramEmbedder().embed([]).shape == (0, 1 << 16)


def test_same_input_gives_identical_arrays_across_instances():
    first = HashedNgramEmbedder().embed(TEXTS)
    assert np.array_equal(first, HashedNgramEmbedder().embed(TEXTS))
    assert np.array_equal(first, HashedNgramEmbedder().embed(list(TEXTS)))


def test_features_are_crc32_of_padded_word_ngrams():
    # crc32, not hash(): the same buckets in every process, whatever PYTHONHASHSEED is.
    rows = HashedNgramEmbedder(n_features=1 << 20).transform(["Ab 가"])
    grams = [" a", "ab", "b ", " ab", "ab ", " ab ", " 가", "가 ", " 가 "]
    expected = sorted({zlib.crc32(g.encode("utf-8")) % (1 << 20) for g in grams})
    assert rows.indices.tolist() == expected


def test_idf_is_fitted_per_call_unless_fit_pins_it():
    batch = ["bus station", "bus route", "bus stop"]
    loose = HashedNgramEmbedder()
    # Unfitted, "bus" is rarer alone than among three bus texts, so the vector moves with the batch.
    assert not np.array_equal(loose.embed(batch[:1])[0], loose.embed(batch)[0])
    fitted = HashedNgramEmbedder().fit(batch + ["school 학교"])
    assert fitted.idf is not None and fitted.idf.shape == (1 << 16,)
    assert np.array_equal(fitted.embed(batch[:1])[0], fitted.embed(batch)[0])


@pytest.mark.parametrize("advantage", [0, 1, 4096, 10**12])
def test_sparse_cosine_equals_the_dense_product_on_both_paths(monkeypatch, advantage):
    # 0 sends every shared feature down the pair path, 10**12 every one into the dense block;
    # a tiny chunk makes the pair path take many steps.
    monkeypatch.setattr(embed_module, "_BLAS_ADVANTAGE", advantage)
    monkeypatch.setattr(embed_module, "_PAIR_CHUNK", 7)
    embedder = HashedNgramEmbedder(n_features=1 << 10)
    rows = embedder.transform(TEXTS * 3)
    a, b = rows.rows(0, 10), rows.rows(10, len(rows))
    dense = rows.to_dense(np.float64)
    np.testing.assert_allclose(sparse_cosine(a, b), dense[:10] @ dense[10:].T, atol=1e-12)


def test_cosine_matrix_matches_embedding_everything_at_once():
    embedder = HashedNgramEmbedder()
    queries, documents = TEXTS[:3], TEXTS[3:]
    vectors = embedder.embed([*queries, *documents]).astype(np.float64)
    np.testing.assert_allclose(embedder.cosine_matrix(queries, documents), vectors[:3] @ vectors[3:].T, atol=1e-6)
    assert embedder.cosine_matrix([], documents).shape == (0, len(documents))


def test_bad_arguments_are_usage_errors():
    with pytest.raises(UsageError, match="list of texts"):
        HashedNgramEmbedder().embed("시군구코드")
    with pytest.raises(UsageError):
        HashedNgramEmbedder(n_features=0)
    with pytest.raises(UsageError):
        HashedNgramEmbedder(ngram_range=(3, 2))
    small, large = HashedNgramEmbedder(n_features=8), HashedNgramEmbedder(n_features=16)
    with pytest.raises(UsageError, match="cannot be compared"):
        sparse_cosine(small.transform(["a"]), large.transform(["a"]))


@settings(max_examples=150, deadline=None)
@given(st.lists(st.text(max_size=40), max_size=6))
def test_any_texts_embed_without_nan_to_unit_or_zero_rows(texts):
    vectors = HashedNgramEmbedder(n_features=1 << 10).embed(texts)
    assert vectors.shape == (len(texts), 1 << 10)
    assert not np.isnan(vectors).any()
    for text, norm in zip(texts, np.linalg.norm(vectors, axis=1)):
        # A text has features exactly when it has a letter or digit (of any script).
        if any(ch.isalnum() for ch in text):
            assert norm == pytest.approx(1.0, abs=1e-5)
        else:
            assert norm == 0.0
