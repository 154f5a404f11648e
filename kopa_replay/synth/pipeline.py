"""Phase B in a run directory: synthesize from a pruned graph, write the datasets and the statistics.

A synthesis directory holds::

    trajectories.jsonl   every executed trajectory (plan, junctions, answer, question, state digest)
    sft.jsonl            SFT rows: messages with assistant tool calls and tool turns, the tools used
    grpo.jsonl           GRPO prompt rows with the grading columns
    stats.json           the corpus statistics (output_digest names trajectories.jsonl), and what was
                         decontaminated: ``decontaminated`` (how many candidates an ``exclude`` hook
                         dropped; null without one), ``decontaminated_against`` (the hook's ``name``),
                         ``decontaminated_items`` (each: candidate, question, reason)
    stats.md             the statistics beside the paper's

Everything is a function of (graph, snapshot or simulator seed, configuration, seed).

Decontamination is a hook, not a dependency: ``run_synthesis(..., exclude=f)``
calls ``f(trajectory)`` on every finished candidate; a reason (not None) drops
it and the walk goes on until the requested number is kept. The benchmark's
matcher (:class:`kopa_replay.bench.contamination.Decontaminator`) is one such
``f``; this module never imports the benchmark.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from kopa_replay.catalog.model import Catalog
from kopa_replay.errors import UsageError
from kopa_replay.graph.model import Link
from kopa_replay.synth.export import grpo_rows, read_jsonl, sft_rows, write_jsonl
from kopa_replay.synth.model import Trajectory
from kopa_replay.synth.stats import corpus_shape, corpus_stats, stats_table
from kopa_replay.synth.walk import QuestionWriter, RunAttempts, SynthConfig, synthesize_report
from kopa_replay.util import write_atomic

__all__ = [
    "Exclude",
    "SynthDir",
    "retained_links",
    "run_family_synthesis",
    "run_synthesis",
    "extend_stats",
    "write_datasets",
    "read_trajectories",
]

#: the decontamination hook: the reason a candidate must not be kept (the benchmark task it repeats), or None
Exclude = Callable[[Trajectory], "str | None"]


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

    if not Path(graph_path).exists():  # synthesis walks a *pruned* graph: building candidates is not enough
        raise UsageError(f"no pruned graph at {graph_path}: run `kopa-replay graph prune` first")
    links, meta = load_graph(graph_path)
    if meta.get("stage") != "pruned":
        raise UsageError(f"{graph_path} is not a pruned graph: run `kopa-replay graph prune` first")
    if meta.get("catalog_digest") not in (None, catalog.digest()):
        raise UsageError(f"{graph_path} was pruned over another catalog: use the same --catalog/--scale")
    kept = [link for link in links if not link.pruned]
    if not kept:
        raise UsageError(f"{graph_path} retains no link: nothing to walk")
    return kept


def write_datasets(
    out: str | Path, trajectories: Sequence[Trajectory], catalog: Catalog, extra: Mapping[str, Any] | None = None
) -> dict[str, Any]:
    """Write trajectories, SFT and GRPO rows, statistics (with ``extra`` keys); returns the statistics."""
    target = SynthDir(out)
    write_jsonl(target.trajectories, [t.to_dict() for t in trajectories])
    write_jsonl(target.sft, sft_rows(trajectories, catalog))
    write_jsonl(target.grpo, grpo_rows(trajectories, catalog))
    stats = {**corpus_stats(trajectories), **corpus_shape(trajectories, catalog), **(extra or {})}
    write_atomic(target.stats, json.dumps(stats, ensure_ascii=False, sort_keys=True, indent=2) + "\n")
    write_atomic(target.table, stats_table(stats) + "\n")
    return stats


def extend_stats(out: str | Path, extra: Mapping[str, Any]) -> dict[str, Any]:
    """Add ``extra`` to a directory's ``stats.json`` and re-write ``stats.md``; returns the statistics."""
    target = SynthDir(out)
    stats = {**json.loads(target.stats.read_text(encoding="utf-8")), **extra}
    write_atomic(target.stats, json.dumps(stats, ensure_ascii=False, sort_keys=True, indent=2) + "\n")
    write_atomic(target.table, stats_table(stats) + "\n")
    return stats


def run_synthesis(
    catalog: Catalog,
    links: Sequence[Link],
    env: Any,
    out: str | Path,
    config: SynthConfig,
    writer: QuestionWriter | None = None,
    *,
    exclude: Exclude | None = None,
    intents: Any = None,
    progress: Any = None,
    run_attempts: RunAttempts | None = None,
    width: int | None = None,
) -> dict[str, Any]:
    """Synthesize, write the directory; the statistics plus attempts and skip reasons.

    ``exclude`` (see the module docstring) drops candidates that repeat a benchmark task; each drop is in
    ``decontaminated_items`` (which finished candidate it was, counting from 1 over kept and dropped alike —
    a dropped candidate's id is given again to the next one —, its question, the reason). ``intents``
    (:mod:`kopa_replay.synth.intents`) keeps the walk to the links a person would follow; without a writer
    the questions are then the :class:`~kopa_replay.synth.questions.IntentWriter`'s, and with neither the
    shipped table is used (the catalog must hold its tools). ``run_attempts`` and ``width`` (``streams="attempt"``
    only) go to :func:`~kopa_replay.synth.walk.synthesize_report`: where the attempts run, never what is written.
    """
    if writer is None:
        from kopa_replay.synth.intents import load_intents
        from kopa_replay.synth.questions import IntentWriter

        intents = intents if intents is not None else load_intents(catalog=catalog)
        writer = IntentWriter(intents)
    recording, dropped = _recording(exclude)
    result = synthesize_report(
        catalog,
        links,
        env,
        config,
        writer,
        exclude=recording if exclude is not None else None,
        intents=intents,
        progress=progress,
        run_attempts=run_attempts,
        width=width,
    )
    stats = write_datasets(out, result.trajectories, catalog, _decontaminated(exclude, dropped))
    return {
        **stats,
        "attempts": result.attempts,
        "skipped": dict(sorted(result.skipped.items())),
        "writer": getattr(writer, "name", type(writer).__name__),
        "config": _config(config),
        "intents": None if intents is None else str(getattr(intents, "source", "intents")),
    }


def run_family_synthesis(
    catalog: Catalog,
    links: Sequence[Link],
    env: Any,
    out: str | Path,
    config: Any,
    families: Sequence[Any],
    writer: QuestionWriter | None = None,
    *,
    exclude: Exclude | None = None,
    progress: Any = None,
) -> dict[str, Any]:
    """:func:`run_synthesis` for the corpus families (:mod:`kopa_replay.synth.families`): instances of ``families``
    whose links ``links`` retain; the statistics plus instances tried, skip reasons, families left out and why."""
    from dataclasses import asdict

    from kopa_replay.synth.families import synthesize_families

    recording, dropped = _recording(exclude)
    result = synthesize_families(
        catalog,
        links,
        env,
        config,
        families,
        writer=writer,
        exclude=recording if exclude is not None else None,
        progress=progress,
    )
    stats = write_datasets(
        out,
        result.trajectories,
        catalog,
        {
            **_decontaminated(exclude, dropped),
            "families_left_out": result.left_out,
            "by_family": result.by_family,
        },
    )
    return {
        **stats,
        "attempts": result.attempts,
        "skipped": result.skipped,
        "writer": getattr(writer, "name", "family") if writer is not None else "family",
        "config": {k: list(v) if isinstance(v, tuple) else v for k, v in asdict(config).items()},
    }


def _recording(exclude: Exclude | None) -> tuple[Exclude, list[dict[str, Any]]]:
    """``exclude`` wrapped to keep each drop (which finished candidate, its question, the reason)."""
    dropped: list[dict[str, Any]] = []
    finished = 0

    def recording(trajectory: Trajectory) -> str | None:
        nonlocal finished
        finished += 1
        reason = exclude(trajectory) if exclude is not None else None
        if reason is not None:
            dropped.append({"candidate": finished, "question": trajectory.question, "reason": str(reason)})
        return reason

    return recording, dropped


def _decontaminated(exclude: Exclude | None, dropped: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "decontaminated": len(dropped) if exclude is not None else None,
        "decontaminated_against": getattr(exclude, "name", None),
        "decontaminated_items": dropped,
    }


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
