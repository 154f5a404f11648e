"""EDGE Phase A: candidate links from signatures, binding scores, execution-grounded pruning.

``build_graph`` retrieves candidate targets per tool (:mod:`.candidates`, over
an :mod:`.embed` embedder) and scores each pair (:mod:`.score`, or the optional
:mod:`.score_llm`); ``prune_graph`` runs the Thompson-sampling loop
(:mod:`.prune`) through a :class:`~kopa_replay.env.ToolEnvironment` and reports
the paper's figures and precision/recall against the simulator's truth
(:mod:`.metrics`). Graphs are networkx DiGraphs saved as canonical JSON (:mod:`.store`).
"""

from kopa_replay.util import lazy_exports

# loaded on first use: importing the package (the command line does) stays cheap
__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "kopa_replay.graph.model": (
            "BindingScorer",
            "Candidate",
            "Embedder",
            "Link",
            "Scored",
        ),
        "kopa_replay.graph.pipeline": (
            "BuildConfig",
            "RunDir",
            "build_graph",
            "build_links",
            "prune_graph",
            "stats",
        ),
        "kopa_replay.graph.prune": (
            "PruneConfig",
            "prune",
        ),
        "kopa_replay.graph.score": ("SemanticScorer",),
        "kopa_replay.graph.store": (
            "graph_digest",
            "load_graph",
            "save_graph",
        ),
    },
)

__all__ = [
    "BindingScorer",
    "BuildConfig",
    "Candidate",
    "Embedder",
    "Link",
    "PruneConfig",
    "RunDir",
    "Scored",
    "SemanticScorer",
    "build_graph",
    "build_links",
    "graph_digest",
    "load_graph",
    "prune",
    "prune_graph",
    "save_graph",
    "stats",
]
