"""Phase B in a run directory: synthesize from a pruned graph, write the datasets and the statistics.

A synthesis directory holds::

    trajectories.jsonl   every executed trajectory (plan, junctions, answer, question, state digest)
    sft.jsonl            SFT rows: messages with assistant tool calls and tool turns, the tools used
    grpo.jsonl           GRPO prompt rows with the grading columns
    stats.json           the corpus statistics (output_digest names trajectories.jsonl)
    stats.md             the statistics beside the paper's

Everything is a function of (graph, snapshot or simulator seed, configuration, seed).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Sequence

from kopa_replay.catalog.model import Catalog
from kopa_replay.errors import UsageError
from kopa_replay.graph.model import Link
from kopa_replay.synth.export import grpo_rows, read_jsonl, sft_rows, write_jsonl
from kopa_replay.synth.model import Trajectory
from kopa_replay.synth.stats import corpus_stats, stats_table
from kopa_replay.synth.walk import QuestionWriter, SynthConfig, synthesize_report
from kopa_replay.util import write_atomic

__all__ = ["SynthDir", "retained_links", "run_synthesis", "write_datasets", "read_trajectories"]


class SynthDir:
    """The files of one synthesis (or filter) output directory."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.trajectories = self.path / "trajectories.jsonl"
        self.sft = self.path / "sft.jsonl"
        self.grpo = self.path / "grpo.jsonl"
        self.stats = self.path / "stats.json"
        self.table = self.path / "stats.md"


def retained_links(graph_path: str | Path, catalog: Catalog) -> list[Link]:
    """The links a pruned graph kept; a candidate graph (never pruned) or another catalog is refused."""
    from kopa_replay.graph.store import load_graph

    links, meta = load_graph(graph_path)
    if meta.get("stage") != "pruned":
        raise UsageError(f"{graph_path} is not a pruned graph: run `kopa-replay graph prune` first")
    if meta.get("catalog_digest") not in (None, catalog.digest()):
        raise UsageError(f"{graph_path} was pruned over another catalog: use the same --catalog/--scale")
    kept = [link for link in links if not link.pruned]
    if not kept:
        raise UsageError(f"{graph_path} retains no link: nothing to walk")
    return kept


def write_datasets(out: str | Path, trajectories: Sequence[Trajectory], catalog: Catalog) -> dict[str, Any]:
    """Write trajectories, SFT and GRPO rows, statistics; returns the statistics."""
    target = SynthDir(out)
    write_jsonl(target.trajectories, [t.to_dict() for t in trajectories])
    write_jsonl(target.sft, sft_rows(trajectories, catalog))
    write_jsonl(target.grpo, grpo_rows(trajectories, catalog))
    stats = corpus_stats(trajectories)
    write_atomic(target.stats, json.dumps(stats, ensure_ascii=False, sort_keys=True, indent=2) + "\n")
    write_atomic(target.table, stats_table(stats) + "\n")
    return stats


def run_synthesis(catalog: Catalog, links: Sequence[Link], env: Any, out: str | Path, config: SynthConfig,
                  writer: QuestionWriter | None = None) -> dict[str, Any]:
    """Synthesize, write the directory; the statistics plus attempts and skip reasons."""
    if writer is None:
        from kopa_replay.synth.questions import TemplateWriter

        writer = TemplateWriter()
    result = synthesize_report(catalog, links, env, config, writer)
    stats = write_datasets(out, result.trajectories, catalog)
    return {**stats, "attempts": result.attempts, "skipped": dict(sorted(result.skipped.items())),
            "writer": getattr(writer, "name", type(writer).__name__), "config": _config(config)}


def read_trajectories(path: str | Path) -> list[Trajectory]:
    path = Path(path)
    if not path.exists():
        raise UsageError(f"no trajectories at {path}: run `kopa-replay synth` first")
    try:
        return [Trajectory.from_dict(row) for row in read_jsonl(path)]
    except (KeyError, TypeError, ValueError) as exc:
        raise UsageError(f"{path}: not a trajectories file ({exc})") from None


def _config(config: SynthConfig) -> dict[str, Any]:
    from dataclasses import asdict

    return {k: list(v) if isinstance(v, tuple) else v for k, v in asdict(config).items()}
