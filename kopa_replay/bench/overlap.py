"""What two items of training data or benchmark share: normalized questions, n-gram similarity, plan signatures.

One implementation of each measure, used by the contamination audit
(:mod:`kopa_replay.bench.audit`) and by the decontaminator that keeps benchmark
tasks out of training data (:mod:`kopa_replay.bench.contamination`), so the two
never disagree on what "the same question" or "the same plan" means.

* :func:`~kopa_replay.text.normalize_question` with ``spaces=True`` — NFKC,
  case-folded, punctuation turned into spaces, whitespace collapsed; two
  questions are *verbatim* when equal after it.
* :func:`masked_question` — the sentence skeleton: normalized, the names it
  states (slot values: a school, a district, a company) and every digit run
  masked; two questions are *masked-equal* when their skeletons are equal (the
  same sentence about another school on another day).
* :func:`char_ngrams` and :func:`jaccard` — two questions are *near-verbatim*
  when the Jaccard of their character 3-grams reaches a threshold (0.8; the
  paper compares verbatim only, and 0.9 let "…9월 1일 점심 급식 인원" beside
  "…9월 2일…" through).
* :class:`QuestionIndex` — normalized questions indexed for both lookups: a set
  for verbatim ones and an inverted 3-gram index, probed with a prefix filter
  (the rarest grams only), for near-verbatim ones; exact, never a scan.
* :func:`plan_signature` — what a plan *does*: the distinct calls it makes,
  each as (tool, arguments with the paging parameters removed and values
  canonicalized), sorted. Pages of one read collapse into one call, the order of
  parallel calls and of arguments does not matter, ``1`` and ``"1"`` are one
  value, and an argument set to ``None`` or ``""`` is an argument left out.

Everything here is pure: no I/O, no catalog needed (the paging parameter names
default to the built-in catalog's, :data:`PAGING_PARAMS`; :func:`paging_params`
reads another catalog's).
"""

from __future__ import annotations

import json
import math
import unicodedata
from collections import Counter
from collections.abc import Iterable, Mapping
from typing import Any

from kopa_replay.catalog.model import PAGING_PARAMS
from kopa_replay.text.normalize import masked_question

__all__ = [
    "PAGING_PARAMS",
    "NEAR_VERBATIM",
    "PlanSignature",
    "QuestionIndex",
    "char_ngrams",
    "masked_question",
    "jaccard",
    "paging_params",
    "plan_signature",
    "canonical_value",
    "arguments_of",
]

#: char 3-gram Jaccard at or above which a non-identical question counts as near-verbatim
NEAR_VERBATIM = 0.8

#: one call of a plan: (tool, ((argument, canonical value), …) sorted by argument)
Call = tuple[str, tuple[tuple[str, Any], ...]]
#: a plan: its distinct calls, sorted
PlanSignature = tuple[Call, ...]


# -- questions ------------------------------------------------------------------------------
def char_ngrams(text: str, n: int = 3) -> frozenset[str]:
    """The character n-grams of ``text`` (a text shorter than ``n`` is its own only gram; ``""`` has none)."""
    if len(text) < n:
        return frozenset([text]) if text else frozenset()
    return frozenset(text[i : i + n] for i in range(len(text) - n + 1))


def jaccard(a: Iterable[Any], b: Iterable[Any]) -> float:
    """``|a ∩ b| / |a ∪ b|``; two empty sets are identical, so 1.0."""
    a, b = set(a), set(b)
    union = len(a | b)
    return len(a & b) / union if union else 1.0


class QuestionIndex:
    """Normalized questions, indexed for verbatim and near-verbatim lookups.

    ``QuestionIndex(texts)`` takes texts already normalized (empty ones are
    left out). :meth:`nearest` finds the indexed text whose 3-gram Jaccard with
    a query is highest, among those at or above a threshold ``t``: a text
    ``B`` with ``J(A, B) >= t`` shares at least ``ceil(t·|A|)`` grams with the
    query ``A``, so it holds one of any ``|A| - ceil(t·|A|) + 1`` grams of
    ``A`` — the query probes the postings of its rarest grams only, then
    checks sizes (``t·|A| <= |B| <= |A|/t``) and the exact Jaccard. Ties go to
    the text with fewer grams, then the smaller text.
    """

    def __init__(self, texts: Iterable[str] = ()) -> None:
        self.texts: set[str] = set()
        self._grams: dict[str, frozenset[str]] = {}
        self._postings: dict[str, list[str]] = {}
        for text in sorted(set(texts)):
            self.add(text)

    def add(self, text: str) -> None:
        """Index one more normalized text (an empty or known one changes nothing)."""
        if not text or text in self.texts:
            return
        self.texts.add(text)
        self._grams[text] = grams = char_ngrams(text)
        for gram in grams:
            self._postings.setdefault(gram, []).append(text)

    def __len__(self) -> int:
        return len(self.texts)

    def __contains__(self, text: object) -> bool:
        return text in self.texts

    def nearest(self, text: str, threshold: float = NEAR_VERBATIM) -> tuple[float, str] | None:
        """``(similarity, indexed text)`` of the most similar indexed text at or above ``threshold``, else None.

        ``text`` is normalized already; an identical indexed text scores 1.0.
        """
        if not 0.0 < threshold <= 1.0:
            raise ValueError(f"threshold must be in (0, 1], got {threshold}")
        mine = char_ngrams(text)
        if not mine:
            return None
        need = max(math.ceil(threshold * len(mine) - 1e-9), 1)  # shared grams any match has, at least
        probe = sorted(mine, key=lambda g: (len(self._postings.get(g, ())), g))[: len(mine) - need + 1]
        shared: Counter[str] = Counter()
        for gram in probe:
            shared.update(self._postings.get(gram, ()))
        lo, hi = threshold * len(mine) - 1e-9, len(mine) / threshold + 1e-9
        best: tuple[float, int, str] | None = None
        for other in shared:
            grams = self._grams[other]
            if not lo <= len(grams) <= hi:
                continue
            score = jaccard(mine, grams)
            if score >= threshold and (best is None or (-score, len(grams), other) < (-best[0], best[1], best[2])):
                best = (score, len(grams), other)
        return None if best is None else (best[0], best[2])


# -- plans ----------------------------------------------------------------------------------
def canonical_value(value: Any) -> Any:
    """A value as plans compare it: text for scalars (NFKC, stripped; integral numbers without ``.0``;
    booleans ``true``/``false``), lists as tuples, mappings as sorted ``(key, value)`` tuples."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, (int, float)):
        return str(value)
    if isinstance(value, Mapping):
        return tuple(sorted((str(k), canonical_value(v)) for k, v in value.items()))
    if isinstance(value, (list, tuple)):
        return tuple(canonical_value(v) for v in value)
    return unicodedata.normalize("NFKC", str(value)).strip()


def arguments_of(arguments: Any) -> Mapping[str, Any]:
    """A call's arguments as a mapping: JSON text (OpenAI tool calls) is parsed; anything that is not an object
    becomes one opaque argument, so it never matches a real call's arguments."""
    if isinstance(arguments, str):
        try:
            arguments = json.loads(arguments) if arguments.strip() else {}
        except ValueError:
            return {"\0raw": arguments}
    if arguments is None:
        return {}
    return arguments if isinstance(arguments, Mapping) else {"\0raw": json.dumps(arguments, sort_keys=True)}


def plan_signature(
    calls: Iterable[tuple[str, Mapping[str, Any]]], paging: Iterable[str] = PAGING_PARAMS
) -> PlanSignature:
    """The distinct ``(tool, sorted canonical arguments)`` of ``calls``, sorted: see the module docstring.

    ``calls`` are ``(tool, arguments)`` pairs in any order, one per page read or
    once per call; ``paging`` names the arguments left out. Arguments whose value
    is ``None`` or blank text count as absent.
    """
    drop = frozenset(paging)
    out = set()
    for tool, args in calls:
        canon = (
            (str(key), canonical_value(value))
            for key, value in arguments_of(args).items()
            if key not in drop and value is not None
        )
        out.add((str(tool), tuple(sorted((key, value) for key, value in canon if value != ""))))
    return tuple(sorted(out, key=repr))


def paging_params(catalog: Iterable[Any]) -> frozenset[str]:
    """The names of every paging parameter (page, size, start, end) of a catalog's tools."""
    return frozenset().union(*(tool.http.pagination.params for tool in catalog))
