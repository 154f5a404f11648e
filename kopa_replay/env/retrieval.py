"""Tool retrieval for catalogs too large for one prompt, and OpenAI function schemas for a subset.

:class:`ToolRetriever` indexes each tool as a document — its name (with ``_``
as a space), title, Korean and English descriptions, parameter names and
descriptions, and output field names — as TF-IDF over hashed character
n-grams (2–4, within words, Unicode-aware, so Hangul works without a
tokenizer), L2-normalized; a query is ranked by cosine similarity. Hashing is
crc32 (stable across processes, unlike ``hash``), ties break by catalog order:
results are deterministic.
"""

from __future__ import annotations

import re
import zlib
from typing import Any, Iterable, Sequence

import numpy as np

from kopa_replay.catalog.model import Catalog, Tool
from kopa_replay.errors import UsageError

__all__ = ["ToolRetriever", "tool_text", "openai_tools"]

_WORD = re.compile(r"[^\W_]+", re.UNICODE)
_CAMEL = re.compile(r"(?<=[a-z])(?=[A-Z])")


def tool_text(tool: Tool) -> str:
    """The text a tool is indexed by."""
    props = tool.input_schema.get("properties", {})
    parts = [tool.name.replace("_", " "), tool.title, tool.description_ko, tool.description_en,
             tool.platform, tool.domain]
    for name in sorted(props):
        parts.append(name)
        parts.append(str(props[name].get("description", "")))
    parts.extend(tool.output_fields)
    return "\n".join(p for p in parts if p)


def _words(text: str) -> list[str]:
    return [w.lower() for w in _WORD.findall(_CAMEL.sub(" ", text))]


class ToolRetriever:
    """Top-k tools for a free-text query (Korean or English) by hashed char n-gram TF-IDF cosine."""

    def __init__(self, catalog: Catalog | Iterable[Tool], *, n_features: int = 1 << 18,
                 ngram_range: tuple[int, int] = (2, 4)) -> None:
        self.tools: tuple[Tool, ...] = tuple(catalog)
        self.names: tuple[str, ...] = tuple(t.name for t in self.tools)
        self.n_features = int(n_features)
        self.ngram_range = ngram_range
        counts = [self._counts(tool_text(t)) for t in self.tools]
        df = np.zeros(self.n_features, dtype=np.float64)
        for doc in counts:
            df[list(doc)] += 1.0
        n = max(len(self.tools), 1)
        self.idf = np.log((1.0 + n) / (1.0 + df)) + 1.0  # smoothed, as scikit-learn
        rows = [self._vector(doc) for doc in counts]
        self._docs = rows  # sparse rows: (indices, weights), unit norm

    # -- featurization
    def _counts(self, text: str) -> dict[int, float]:
        lo, hi = self.ngram_range
        out: dict[int, float] = {}
        for word in _words(text):
            padded = f" {word} "
            for n in range(lo, hi + 1):
                for i in range(len(padded) - n + 1):
                    gram = padded[i:i + n]
                    if gram.strip() == "":
                        continue
                    h = zlib.crc32(gram.encode("utf-8")) % self.n_features
                    out[h] = out.get(h, 0.0) + 1.0
        return out

    def _vector(self, counts: dict[int, float]) -> tuple[np.ndarray, np.ndarray]:
        if not counts:
            return np.zeros(0, dtype=np.int64), np.zeros(0)
        idx = np.fromiter(sorted(counts), dtype=np.int64)
        tf = np.array([counts[i] for i in idx], dtype=np.float64)
        weights = (1.0 + np.log(tf)) * self.idf[idx]  # sublinear tf
        norm = float(np.linalg.norm(weights))
        return idx, (weights / norm if norm else weights)

    # -- queries
    def scores(self, query: str) -> np.ndarray:
        """Cosine similarity of ``query`` with every tool, in catalog order."""
        q_idx, q_w = self._vector(self._counts(query))
        dense = np.zeros(self.n_features)
        dense[q_idx] = q_w
        return np.array([float(dense[idx] @ w) if len(idx) else 0.0 for idx, w in self._docs])

    def top_k(self, query: str, k: int = 10) -> list[tuple[str, float]]:
        """The ``k`` best ``(tool_name, score)`` pairs, best first; ties keep catalog order."""
        if k < 0:
            raise UsageError(f"k must be at least 0, not {k}")
        scores = self.scores(query)
        order = np.lexsort((np.arange(len(scores)), -np.round(scores, 12)))
        return [(self.names[i], float(scores[i])) for i in order[:k]]


def openai_tools(catalog: Catalog, names: Sequence[str] | Iterable[tuple[str, float]]) -> list[dict[str, Any]]:
    """OpenAI function schemas for ``names`` (or ``top_k`` pairs), in the order given, duplicates dropped."""
    out: list[dict[str, Any]] = []
    seen: set[str] = set()
    for item in names:
        name = item[0] if isinstance(item, tuple) else item
        if name in seen:
            continue
        seen.add(name)
        out.append(catalog.get(name).to_openai())
    return out
