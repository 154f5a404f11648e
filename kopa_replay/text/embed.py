"""Hashed character n-gram TF-IDF: text retrieval that needs no model, for tools and link candidates alike.

A text is split into words (:func:`words`: Unicode-aware, so Hangul works
without a tokenizer; ``snake_case`` and ``camelCase`` split), each word padded
with spaces and cut into character n-grams (2–4), each n-gram hashed with
crc32 (stable across processes, unlike ``hash``) into ``n_features`` buckets.
Weights are sublinear tf times smoothed idf (as scikit-learn), rows
L2-normalized. :class:`HashedNgramEmbedder` fits the idf with :meth:`~HashedNgramEmbedder.fit`;
an unfitted embedder fits it on the texts of each call, so one call that holds
every text to compare gives comparable vectors.

Rows stay sparse (:class:`SparseRows`), and :func:`sparse_cosine` multiplies
them without a dense detour: at paper scale (2,318 tools) a dense matrix of
hashed features would be gigabytes. Tool retrieval
(:class:`~kopa_replay.env.retrieval.ToolRetriever`) and the dependency graph's
link candidates (:mod:`kopa_replay.graph.candidates`, which can also use a
local encoder: :mod:`kopa_replay.graph.embed`) share this featurization.
"""

from __future__ import annotations

import functools
import re
import zlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from kopa_replay.errors import UsageError

__all__ = ["SparseRows", "HashedNgramEmbedder", "sparse_cosine", "text_list", "words"]

_WORD = re.compile(r"[^\W_]+", re.UNICODE)  # letters and digits of any script; "_" separates
_CAMEL = re.compile(r"(?<=[a-z])(?=[A-Z])")


def words(text: str) -> list[str]:
    """Lower-cased words of ``text``: ``fcltyNm_code 시군구코드`` → ``fclty``, ``nm``, ``code``, ``시군구코드``."""
    return [w.lower() for w in _WORD.findall(_CAMEL.sub(" ", text))]


@functools.lru_cache(maxsize=1 << 17)
def _word_gram_hashes(word: str, lo: int, hi: int) -> bytes:
    # Catalog text repeats the same words thousands of times (field names, boilerplate):
    # hashing each distinct word once, kept as packed uint32 so a document is one bytes join,
    # is what keeps paper-scale featurization fast.
    padded = f" {word} "
    grams = [padded[i : i + n] for n in range(lo, hi + 1) for i in range(len(padded) - n + 1)]
    # Only a 1-gram can be all padding.
    return np.array([zlib.crc32(g.encode("utf-8")) for g in grams if g.strip()], dtype="<u4").tobytes()


@dataclass(frozen=True)
class SparseRows:
    """Rows in compressed sparse row form: row ``i`` holds ``values[indptr[i]:indptr[i+1]]`` at
    feature ids ``indices[...]`` (sorted, unique within a row)."""

    indptr: np.ndarray
    indices: np.ndarray
    values: np.ndarray
    n_features: int

    def __len__(self) -> int:
        return len(self.indptr) - 1

    def row_ids(self) -> np.ndarray:
        """The row of every stored entry."""
        return np.repeat(np.arange(len(self)), np.diff(self.indptr))

    def rows(self, start: int, stop: int) -> "SparseRows":
        """Rows ``start:stop`` as their own :class:`SparseRows`."""
        lo, hi = self.indptr[start], self.indptr[stop]
        return SparseRows(self.indptr[start : stop + 1] - lo, self.indices[lo:hi], self.values[lo:hi], self.n_features)

    def to_dense(self, dtype: Any = np.float32) -> np.ndarray:
        out = np.zeros((len(self), self.n_features), dtype=dtype)
        out[self.row_ids(), self.indices] = self.values
        return out


def _hashed_counts(texts: Sequence[str], n_features: int, ngram_range: tuple[int, int] = (2, 4)) -> SparseRows:
    """Raw n-gram counts of each text, hashed into ``n_features`` buckets."""
    lo, hi = ngram_range
    docs = [b"".join([_word_gram_hashes(w, lo, hi) for w in words(text)]) for text in texts]
    lengths = np.array([len(d) // 4 for d in docs], dtype=np.int64)
    buckets = np.frombuffer(b"".join(docs), dtype="<u4").astype(np.int64) % n_features
    doc = np.repeat(np.arange(len(texts), dtype=np.int64), lengths)
    # One sort over (document, bucket) keys yields every row's sorted unique features and their counts.
    keys, counts = np.unique(doc * n_features + buckets, return_counts=True)
    indptr = np.concatenate(([0], np.cumsum(np.bincount(keys // n_features, minlength=len(texts)))))
    return SparseRows(indptr, keys % n_features, counts.astype(np.float64), n_features)


def _smoothed_idf(counts: SparseRows) -> np.ndarray:
    df = np.bincount(counts.indices, minlength=counts.n_features).astype(np.float64)
    n = max(len(counts), 1)
    return np.log((1.0 + n) / (1.0 + df)) + 1.0  # smoothed, as scikit-learn


def _tfidf(counts: SparseRows, idf: np.ndarray) -> SparseRows:
    weights = (1.0 + np.log(counts.values)) * idf[counts.indices]  # sublinear tf
    row = counts.row_ids()
    norms = np.sqrt(np.bincount(row, weights=weights * weights, minlength=len(counts)))
    # A row with entries has a positive norm (tf >= 1, idf >= 1); an empty row stays all zero.
    return SparseRows(counts.indptr, counts.indices, weights / norms[row], counts.n_features)


class HashedNgramEmbedder:
    """TF-IDF over hashed character n-grams; ``embed`` gives dense float32 rows, ``transform`` sparse ones."""

    def __init__(self, *, n_features: int = 1 << 16, ngram_range: tuple[int, int] = (2, 4)) -> None:
        lo, hi = ngram_range
        if n_features < 1 or not 1 <= lo <= hi:
            raise UsageError(f"need n_features >= 1 and 1 <= min n <= max n, not {n_features}, {ngram_range}")
        self.n_features = int(n_features)
        self.ngram_range = (int(lo), int(hi))
        self.name = f"hashed-ngram-{lo}-{hi}-{self.n_features}"
        self.idf: np.ndarray | None = None

    def fit(self, texts: Sequence[str]) -> "HashedNgramEmbedder":
        """Fix the idf to that of ``texts``; later calls weight every text by it. Returns self."""
        self.idf = _smoothed_idf(self._counts(texts))
        return self

    def _counts(self, texts: Sequence[str]) -> SparseRows:
        return _hashed_counts(text_list(texts), self.n_features, self.ngram_range)

    def transform(self, texts: Sequence[str]) -> SparseRows:
        """Unit-norm TF-IDF rows (all-zero for a text without letters or digits)."""
        counts = self._counts(texts)
        return _tfidf(counts, self.idf if self.idf is not None else _smoothed_idf(counts))

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """An (n, n_features) float32 array; fine for small n (a row is ``4 * n_features`` bytes)."""
        return self.transform(texts).to_dense(np.float32)

    def cosine_matrix(self, queries: Sequence[str], documents: Sequence[str]) -> np.ndarray:
        """Cosine of every query with every document, (len(queries), len(documents)), without dense rows.

        Unfitted, the idf is fitted on queries and documents together, as one ``embed`` call would.
        """
        queries, documents = text_list(queries), text_list(documents)
        rows = self.transform([*queries, *documents])
        return sparse_cosine(rows.rows(0, len(queries)), rows.rows(len(queries), len(rows)))


def text_list(texts: Sequence[str]) -> list[str]:
    """``texts`` as a list; a lone string is refused (it would be embedded character by character)."""
    if isinstance(texts, str):  # a lone string would be embedded character by character
        raise UsageError("embed a list of texts, not one string")
    return list(texts)


# A column shared by ca query rows and cb document rows costs ca*cb scattered products when
# multiplied sparsely, or n_q*n_d multiply-adds inside a dense BLAS product, which does roughly this
# many of them in the time of one scattered product (measured on 2 cores at paper scale, 2,318
# sources x 2,318 targets: 0.4-0.6 s at 4096, 1.1 s at 32, 3.5 s all dense). Columns dearer go dense.
_BLAS_ADVANTAGE = 4096
_PAIR_CHUNK = 1 << 22  # scattered products per step, to bound memory


def sparse_cosine(a: SparseRows, b: SparseRows) -> np.ndarray:
    """``a @ b.T`` as a dense float64 array: the cosine matrix when rows are unit norm.

    Common n-grams (in many rows of both) are multiplied as a small dense block; the long tail
    of rare n-grams as explicit row pairs. Neither needs scipy, and the result is deterministic.
    """
    if a.n_features != b.n_features:
        raise UsageError(f"rows hashed into {a.n_features} and {b.n_features} features cannot be compared")
    n_a, n_b = len(a), len(b)
    out = np.zeros((n_a, n_b))
    if not n_a or not n_b:
        return out
    count_a = np.bincount(a.indices, minlength=a.n_features)
    count_b = np.bincount(b.indices, minlength=b.n_features)
    shared = (count_a > 0) & (count_b > 0)
    dense = shared & (count_a.astype(np.float64) * count_b * _BLAS_ADVANTAGE > float(n_a) * n_b)
    if dense.any():
        column = np.full(a.n_features, -1, dtype=np.int64)
        column[dense] = np.arange(int(dense.sum()))
        out += _dense_block(a, column) @ _dense_block(b, column).T
    _add_rare_pairs(out, a, b, shared & ~dense)
    return out


def _dense_block(rows: SparseRows, column: np.ndarray) -> np.ndarray:
    keep = column[rows.indices] >= 0
    block = np.zeros((len(rows), int(column.max()) + 1))
    block[rows.row_ids()[keep], column[rows.indices[keep]]] = rows.values[keep]
    return block


def _add_rare_pairs(out: np.ndarray, a: SparseRows, b: SparseRows, sparse: np.ndarray) -> None:
    """Add, for every feature in ``sparse``, the product of each ``a`` entry with each ``b`` entry."""
    take_a, take_b = sparse[a.indices], sparse[b.indices]
    a_row, a_col, a_val = a.row_ids()[take_a], a.indices[take_a], a.values[take_a]
    order_b = np.argsort(b.indices[take_b], kind="stable")
    b_row, b_col, b_val = b.row_ids()[take_b][order_b], b.indices[take_b][order_b], b.values[take_b][order_b]
    if not len(a_row) or not len(b_row):
        return
    # Each a entry meets the run of b entries that share its feature: [start, start + partners).
    start = np.searchsorted(b_col, a_col, side="left")
    partners = np.searchsorted(b_col, a_col, side="right") - start
    ends = np.cumsum(partners)
    n_b = out.shape[1]
    flat = out.reshape(-1)
    first = 0
    while first < len(a_row):
        # Whole a entries per step, about _PAIR_CHUNK pairs each (at least one entry).
        last = max(int(np.searchsorted(ends, (ends[first - 1] if first else 0) + _PAIR_CHUNK, "right")), first + 1)
        reps = partners[first:last]
        offsets = np.arange(int(reps.sum())) - np.repeat(np.cumsum(reps) - reps, reps)
        j = np.repeat(start[first:last], reps) + offsets
        i = np.repeat(np.arange(first, last), reps)
        flat += np.bincount(a_row[i] * n_b + b_row[j], weights=a_val[i] * b_val[j], minlength=flat.size)
        first = last
