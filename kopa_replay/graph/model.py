"""The tool-dependency graph's vocabulary: candidates, scored bindings, links with their posteriors.

A *link* says "an output field of ``source`` can fill input parameters of
``target``": its ``binding`` maps each bound target parameter to the source
field that feeds it. Phase A of EDGE proposes links from signatures (retrieval,
then a binding scorer) and then tests them by execution, keeping per link a
Beta posterior and the trial counts the paper reports.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np

from kopa_replay.catalog.model import Tool

__all__ = ["Candidate", "Scored", "BindingScorer", "Embedder", "Link"]


@dataclass(frozen=True)
class Candidate:
    """A target retrieved for a source tool: cosine similarity of their signatures, same domain or not."""

    source: str
    target: str
    similarity: float
    cross_domain: bool


@dataclass(frozen=True)
class Scored:
    """A binding scorer's verdict: feasibility in [0, 1] and ``{target_param: source_field}``."""

    feasibility: float
    binding: Mapping[str, str]
    reason: str = ""


class BindingScorer(Protocol):
    """Judges whether ``source``'s output can feed ``target``'s input, and how."""

    name: str

    def score(self, source: Tool, target: Tool) -> Scored: ...


class Embedder(Protocol):
    """Texts → an (n, d) float array with L2-normalized rows (cosine = dot product)."""

    name: str

    def embed(self, texts: Sequence[str]) -> np.ndarray: ...


@dataclass
class Link:
    """One candidate link and what execution has said about it so far."""

    source: str
    target: str
    binding: dict[str, str]
    prior: float
    similarity: float = 0.0
    cross_domain: bool = False
    alpha: float = 1.0
    beta: float = 1.0
    trials: int = 0
    successes: int = 0
    failures: dict[str, int] = field(default_factory=lambda: {"structural": 0, "environmental": 0})
    pruned: bool = False
    pruned_at: int | None = None

    @property
    def key(self) -> tuple[str, str]:
        return (self.source, self.target)

    @property
    def posterior_mean(self) -> float:
        return self.alpha / (self.alpha + self.beta)

    def to_dict(self) -> dict[str, Any]:
        return {
            "source": self.source,
            "target": self.target,
            "binding": dict(sorted(self.binding.items())),
            "prior": self.prior,
            "similarity": self.similarity,
            "cross_domain": self.cross_domain,
            "alpha": self.alpha,
            "beta": self.beta,
            "trials": self.trials,
            "successes": self.successes,
            "failures": dict(sorted(self.failures.items())),
            "pruned": self.pruned,
            "pruned_at": self.pruned_at,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> "Link":
        return cls(
            data["source"],
            data["target"],
            dict(data["binding"]),
            float(data["prior"]),
            float(data.get("similarity", 0.0)),
            bool(data.get("cross_domain", False)),
            float(data.get("alpha", 1.0)),
            float(data.get("beta", 1.0)),
            int(data.get("trials", 0)),
            int(data.get("successes", 0)),
            dict(data.get("failures") or {"structural": 0, "environmental": 0}),
            bool(data.get("pruned", False)),
            data.get("pruned_at"),
        )
