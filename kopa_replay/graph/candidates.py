"""Link candidates: for each tool, the tools whose inputs look most like its outputs.

EDGE Phase A cannot score every ordered pair of 2,318 tools with a binding
scorer, so a dense retriever narrows the field first: a source tool is
described by what it produces (:func:`source_text`), a target by what it needs
(:func:`target_text`), and each source keeps its ``same_domain`` nearest
targets of its own domain plus its ``cross_domain`` nearest of all other
domains. The split keeps a large domain (2,250 district tools in the paper
catalog) from crowding out every cross-domain chain.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from kopa_replay.catalog.model import Catalog, Tool
from kopa_replay.errors import UsageError
from kopa_replay.graph.model import Candidate, Embedder
from kopa_replay.text.embed import HashedNgramEmbedder

__all__ = ["source_text", "target_text", "retrieve_candidates", "cosine_matrix"]


def _about(tool: Tool) -> list[str]:
    return [tool.name.replace("_", " "), tool.title, tool.description_ko, tool.description_en]


def source_text(tool: Tool) -> str:
    """What ``tool`` produces: its name words, title, descriptions, output fields and their descriptions."""
    parts = _about(tool)
    for name in tool.output_fields:
        parts += [name, str(tool.output_field_schema(name).get("description", ""))]
    return "\n".join(p for p in parts if p)


def target_text(tool: Tool) -> str:
    """What ``tool`` needs: its name words, title, descriptions, input parameters and their descriptions.

    Required parameters come first: an encoder that truncates long texts should keep what a
    link must fill, not the paging options.
    """
    props = tool.input_schema.get("properties", {})
    required = [p for p in tool.required if p in props]
    parts = _about(tool)
    for name in required + [p for p in tool.params if p not in required]:
        parts += [name, str(props[name].get("description", ""))]
    return "\n".join(p for p in parts if p)


def cosine_matrix(embedder: Embedder, sources: list[str], targets: list[str]) -> np.ndarray:
    """Cosine of every source text with every target text, (len(sources), len(targets)).

    All texts go to the embedder in one call, so an embedder that fits statistics on its input
    (the hashed TF-IDF's idf) weights both sides alike. An embedder offering
    ``cosine_matrix(queries, documents)`` is asked directly: the hashed one then never builds
    dense rows, which at paper scale would take gigabytes.
    """
    direct = getattr(embedder, "cosine_matrix", None)
    if callable(direct):
        return np.asarray(direct(sources, targets), dtype=np.float64)
    vectors = np.asarray(embedder.embed([*sources, *targets]), dtype=np.float64)
    return vectors[: len(sources)] @ vectors[len(sources) :].T


def retrieve_candidates(
    catalog_or_tools: Catalog | Iterable[Tool],
    embedder: Embedder | None = None,
    *,
    same_domain: int = 15,
    cross_domain: int = 10,
) -> list[Candidate]:
    """For each source tool, its top ``same_domain`` targets in its domain and top ``cross_domain`` elsewhere.

    Ranked by cosine(source_text(source), target_text(target)), never the tool itself; a domain
    with fewer tools gives fewer. Ties go to the earlier tool in catalog order; the result is
    sorted by (source, target). ``embedder`` defaults to :class:`HashedNgramEmbedder`.
    """
    for label, count in (("same_domain", same_domain), ("cross_domain", cross_domain)):
        if isinstance(count, bool) or not isinstance(count, (int, np.integer)) or count < 0:
            raise UsageError(f"{label} must be a whole number of at least 0, not {count!r}")
    tools = tuple(catalog_or_tools)
    names = [t.name for t in tools]
    if len(set(names)) != len(names):
        dupes = sorted({n for n in names if names.count(n) > 1})
        raise UsageError(f"tool names must be unique to retrieve candidates; repeated: {', '.join(dupes)}")
    if not tools:
        return []
    embedder = embedder if embedder is not None else HashedNgramEmbedder()
    # Rounded to 9 decimals: equal scores tie exactly, and last-bit differences between BLAS
    # builds almost never change an order.
    similarity = np.round(cosine_matrix(embedder, [source_text(t) for t in tools], [target_text(t) for t in tools]), 9)
    _, domain = np.unique([t.domain for t in tools], return_inverse=True)
    same = domain[:, None] == domain[None, :]
    np.fill_diagonal(same, False)  # never the tool itself
    other = domain[:, None] != domain[None, :]
    keep = _top_k(similarity, same, same_domain) | _top_k(similarity, other, cross_domain)
    # Row-major in (source, target) name order, so the output needs no sort of its own.
    by_name = np.array(sorted(range(len(tools)), key=names.__getitem__))
    keep = keep[np.ix_(by_name, by_name)]
    rows, cols = (by_name[axis] for axis in np.nonzero(keep))
    return [
        Candidate(names[i], names[j], float(similarity[i, j]), bool(other[i, j]))
        for i, j in zip(rows.tolist(), cols.tolist())
    ]


def _top_k(scores: np.ndarray, allowed: np.ndarray, k: int) -> np.ndarray:
    """Per row, a mask of the ``k`` best allowed scores (all allowed, if fewer); equal scores go to
    the earlier column, i.e. catalog order.

    A partition finds each row's k-th best score without sorting whole rows: everything above it
    is kept, and of the entries equal to it only as many as are still needed, leftmost first.
    """
    if k == 0 or scores.shape[1] == 0:
        return np.zeros(scores.shape, dtype=bool)
    masked = np.where(allowed, scores, -np.inf)
    kk = min(k, scores.shape[1])
    kth = -np.partition(-masked, kk - 1, axis=1)[:, kk - 1 : kk]
    above = allowed & (masked > kth)
    tied = allowed & (masked == kth)
    needed = np.minimum(k, allowed.sum(axis=1, keepdims=True)) - above.sum(axis=1, keepdims=True)
    return above | (tied & (np.cumsum(tied, axis=1) <= needed))
