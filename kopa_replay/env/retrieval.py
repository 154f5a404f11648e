"""Tool retrieval for catalogs too large for one prompt, and OpenAI function schemas for a subset.

:class:`ToolRetriever` indexes each tool as a document — its name (with ``_``
as a space), title, Korean and English descriptions, parameter names and
descriptions, and output field names — as TF-IDF over hashed character
n-grams (2–4, within words, Unicode-aware, so Hangul works without a
tokenizer), L2-normalized; a query is ranked by cosine similarity. Hashing is
crc32 (stable across processes, unlike ``hash``), ties break by catalog order:
results are deterministic. The featurization is :mod:`kopa_replay.text.embed`'s,
shared with the link-candidate retrieval of the dependency graph.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

from kopa_replay.catalog.model import Catalog, Tool
from kopa_replay.errors import UsageError
from kopa_replay.text.embed import HashedNgramEmbedder, sparse_cosine

__all__ = ["ToolRetriever", "tool_text", "openai_tools"]


def tool_text(tool: Tool) -> str:
    """The text a tool is indexed by."""
    props = tool.input_schema.get("properties", {})
    parts = [
        tool.name.replace("_", " "),
        tool.title,
        tool.description_ko,
        tool.description_en,
        tool.platform,
        tool.domain,
    ]
    for name in sorted(props):
        parts.append(name)
        parts.append(str(props[name].get("description", "")))
    parts.extend(tool.output_fields)
    return "\n".join(p for p in parts if p)


class ToolRetriever:
    """Top-k tools for a free-text query (Korean or English) by hashed char n-gram TF-IDF cosine."""

    def __init__(
        self, catalog: Catalog | Iterable[Tool], *, n_features: int = 1 << 18, ngram_range: tuple[int, int] = (2, 4)
    ) -> None:
        self.tools: tuple[Tool, ...] = tuple(catalog)
        self.names: tuple[str, ...] = tuple(t.name for t in self.tools)
        self.n_features = int(n_features)
        self.ngram_range = ngram_range
        texts = [tool_text(t) for t in self.tools]
        # The idf is the catalog's: a query is weighted by how rare its n-grams are among tools.
        self._embedder = HashedNgramEmbedder(n_features=self.n_features, ngram_range=ngram_range).fit(texts)
        self.idf = self._embedder.idf
        self._docs = self._embedder.transform(texts)  # sparse rows, unit norm

    # -- queries
    def scores(self, query: str) -> np.ndarray:
        """Cosine similarity of ``query`` with every tool, in catalog order."""
        return sparse_cosine(self._embedder.transform([query]), self._docs)[0]

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
