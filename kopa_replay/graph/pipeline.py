"""Phase A end to end, in a run directory: build the candidate graph, prune it, report.

A run directory holds::

    candidates.json   the candidate graph (retrieval + scoring), every link untried
    graph.json        the pruned graph: posteriors, trials, failures by class, pruned flag and iteration
    prune.json        the report: configuration, the paper's figures, truth metrics, digests
    iterations.jsonl  one line per iteration: path pass rate, step success rate, links cut
    scatter.png       prior feasibility vs posterior mean, retained vs pruned
    curves.png        the per-iteration curves

Everything is a function of (catalog, snapshot or simulator seed, configuration,
seed): no wall clock is written anywhere.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kopa_replay.catalog.model import Catalog
from kopa_replay.errors import UsageError
from kopa_replay.graph.candidates import retrieve_candidates
from kopa_replay.graph.metrics import paper_metrics, simulator_truth, truth_metrics
from kopa_replay.graph.model import BindingScorer, Embedder, Link
from kopa_replay.graph.prune import IterationStats, PruneConfig, prune
from kopa_replay.graph.score import SemanticScorer
from kopa_replay.graph.store import graph_digest, load_graph, save_graph
from kopa_replay.util import write_atomic

__all__ = ["BuildConfig", "build_links", "build_graph", "prune_graph", "RunDir", "stats"]


@dataclass(frozen=True)
class BuildConfig:
    same_domain: int = 15
    cross_domain: int = 10
    min_score: float = 0.3

    def __post_init__(self) -> None:
        if not 0.0 <= self.min_score <= 1.0:
            raise UsageError(f"min_score must lie in [0, 1], not {self.min_score}")


class RunDir:
    """The files of one Phase A run (see the module docstring)."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.candidates = self.path / "candidates.json"
        self.graph = self.path / "graph.json"
        self.report = self.path / "prune.json"
        self.iterations = self.path / "iterations.jsonl"
        self.scatter = self.path / "scatter.png"
        self.curves = self.path / "curves.png"

    def read_report(self) -> dict[str, Any]:
        if not self.report.exists():
            raise UsageError(f"no pruning report in {self.path}: run `kopa-replay graph prune` first")
        return json.loads(self.report.read_text(encoding="utf-8"))


def build_links(
    catalog: Catalog,
    *,
    embedder: Embedder | None = None,
    scorer: BindingScorer | None = None,
    config: BuildConfig = BuildConfig(),
) -> list[Link]:
    """Retrieve candidate targets per tool, score each pair, keep those at ``min_score`` or above."""
    scorer = scorer or SemanticScorer()
    links = []
    for candidate in retrieve_candidates(
        catalog, embedder, same_domain=config.same_domain, cross_domain=config.cross_domain
    ):
        scored = scorer.score(catalog.get(candidate.source), catalog.get(candidate.target))
        if scored.feasibility >= config.min_score and scored.binding:
            links.append(
                Link(
                    candidate.source,
                    candidate.target,
                    dict(scored.binding),
                    float(scored.feasibility),
                    round(candidate.similarity, 6),
                    candidate.cross_domain,
                )
            )
    return links


def build_graph(
    catalog: Catalog,
    run_dir: str | Path,
    *,
    embedder: Embedder | None = None,
    scorer: BindingScorer | None = None,
    config: BuildConfig = BuildConfig(),
    catalog_label: str = "builtin",
) -> tuple[list[Link], Path]:
    """Build the candidate graph and save it as ``candidates.json``."""
    scorer = scorer or SemanticScorer()
    links = build_links(catalog, embedder=embedder, scorer=scorer, config=config)
    meta = {
        "stage": "candidates",
        "catalog": catalog_label,
        "catalog_digest": catalog.digest(),
        "scorer": scorer.name,
        "embedder": getattr(embedder, "name", "hashed"),
        "same_domain": config.same_domain,
        "cross_domain": config.cross_domain,
        "min_score": config.min_score,
    }
    return links, save_graph(RunDir(run_dir).candidates, links, catalog, meta)


def prune_graph(
    catalog: Catalog,
    run_dir: str | Path,
    env: Any,
    config: PruneConfig,
    *,
    source: dict[str, Any] | None = None,
    plots: bool = True,
    progress: Callable[[IterationStats], None] | None = None,
    named: str | Path | None = None,
    batch_runner: Callable[[list[Link]], Any] | None = None,
) -> dict[str, Any]:
    """Prune ``candidates.json`` of ``run_dir`` through ``env``; write the graph, report, curves and plots.

    ``named``: the directory the report names as where its files lie, when ``run_dir`` is a partial one that
    will be renamed into place (:func:`kopa_replay.stages.run_dir.atomic_run_dir`). ``batch_runner(links)``
    gives the loop's ``run_batches`` (workers that run the batches of each iteration, built from the candidate
    links: :func:`kopa_replay.graph.prune.prune`)."""
    run, shown = RunDir(run_dir), RunDir(named or run_dir)
    links, meta = load_graph(run.candidates)
    if meta.get("catalog_digest") not in (None, catalog.digest()):
        raise UsageError(
            f"{run.candidates} was built from another catalog (digest "
            f"{str(meta.get('catalog_digest'))[:12]}…, this one {catalog.digest()[:12]}…): "
            "run `kopa-replay graph build` again"
        )
    missing = sorted({name for link in links for name in link.key if name not in catalog})
    if missing:
        raise UsageError(f"{run.candidates} names tools the catalog lacks: {', '.join(missing[:5])}")
    for link in links:  # a fresh run always starts from the candidates as built
        link.trials, link.successes, link.pruned, link.pruned_at = 0, 0, False, None
        link.failures = {"structural": 0, "environmental": 0}
    history = prune(links, catalog, env, config, progress, run_batches=batch_runner(links) if batch_runner else None)
    digest = graph_digest(links)
    save_graph(
        run.graph, links, catalog, {**meta, "stage": "pruned", "prune": config.to_dict(), "source": source or {}}
    )
    write_atomic(run.iterations, "".join(json.dumps(h.to_dict(), sort_keys=True) + "\n" for h in history))
    report = {
        **paper_metrics(links),
        **truth_metrics(links, simulator_truth(catalog.names)),
        "graph_digest": digest,
        "candidates": str(shown.candidates),
        "graph": str(shown.graph),
        "calls": sum(h.steps for h in history),
        "config": config.to_dict(),
        "source": source or {},
        "first_iteration": _curve_point(history[0]),
        "last_iteration": _curve_point(history[-1]),
    }
    if plots:
        from kopa_replay.graph.plots import plot_curves, plot_scatter

        plot_scatter([{**link.to_dict(), "posterior_mean": link.posterior_mean} for link in links], run.scatter)
        plot_curves([h.to_dict() for h in history], run.curves)
        report.update(scatter=str(shown.scatter), curves=str(shown.curves))
    write_atomic(run.report, json.dumps(report, ensure_ascii=False, sort_keys=True, indent=2) + "\n")
    return report


def _curve_point(stats: IterationStats) -> dict[str, float]:
    return {"path_pass_rate": round(stats.path_pass_rate, 6), "step_success_rate": round(stats.step_success_rate, 6)}


def stats(links: Sequence[Link]) -> dict[str, Any]:
    """Counts of a graph file: links, retained, pruned, by domain pairing, per-tool degrees at the extremes."""
    retained = [link for link in links if not link.pruned]
    out_degree: dict[str, int] = {}
    for link in retained:
        out_degree[link.source] = out_degree.get(link.source, 0) + 1
    return {
        "links": len(links),
        "retained": len(retained),
        "pruned": len(links) - len(retained),
        "cross_domain": sum(link.cross_domain for link in links),
        "cross_domain_retained": sum(link.cross_domain for link in retained),
        "tools_with_links": len({link.source for link in links} | {link.target for link in links}),
        "top_sources": sorted(out_degree.items(), key=lambda kv: (-kv[1], kv[0]))[:5],
        "graph_digest": graph_digest(links),
    }
