"""Benchmark synthesis: attempts per second and kept items per second, beside the calls the run made.

One run prunes the built-in graph on the in-process simulator (or reads ``--graph-dir``, e.g. the corpus recipe's
``runs/graph``), then synthesizes with each generator, timed:

* **families** (the default generator: corpus families over the retained links) and
* **walk** (random walks, ``--generator walk``),

each decontaminated against the shipped benchmark as ``kopa-replay synth`` does, after an untimed run of the same
(the world's tables are built once per process, by whatever asks first: built for both timed runs alike). Every tool call a generator makes
(kept, skipped and dropped attempts alike, each page its own call) is noted on the way. The floor, in the same run:
the same calls, in the same order, sent bare through ``ToolEnvironment.call`` on a fresh environment over the same
source — what the calls alone cost. *x calls* = synthesis wall time / the floor's: how much synthesis (planning,
answers, questions, decontamination, writing) adds to the calls it has to make anyway.

    python benchmarks/bench_synth.py                              # 100 items a generator, graph pruned 20 x 200
    python benchmarks/bench_synth.py --graph-dir runs/graph --trajectories 600 --json
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from kopa_replay.catalog import builtin_catalog
from kopa_replay.env import ToolEnvironment
from kopa_replay.graph import PruneConfig, build_graph, prune_graph
from kopa_replay.stages.synth import Config
from kopa_replay.synth.pipeline import retained_links, run_family_synthesis, run_synthesis


def _noting(env: ToolEnvironment, calls: list[tuple[str, dict[str, Any]]]) -> ToolEnvironment:
    """``env`` noting each request it sends (tool name, validated arguments): every page of every read, the
    generators' own lookups too (they read pages through ``fetch_pages``, not ``call``)."""
    send = env._send

    def noted(tool: Any, args: Any, *rest: Any) -> Any:
        calls.append((tool.name, dict(args)))
        return send(tool, args, *rest)

    env._send = noted  # type: ignore[method-assign]
    return env


def _synthesize(generator: str, catalog: Any, links: Any, out: Path, trajectories: int, seed: int) -> tuple[float, Any]:
    """Seconds to synthesize on a fresh simulator; the stats, and every (tool, args) sent."""
    config = Config(out=str(out), trajectories=trajectories, seed=seed, generator=generator)  # type: ignore[arg-type]
    exclude = config.decontaminator()
    calls: list[tuple[str, dict[str, Any]]] = []
    with ToolEnvironment.open(catalog, source="sim") as env:
        _noting(env, calls)
        start = time.perf_counter()
        if generator == "families":
            from kopa_replay.synth.families import load_families

            stats = run_family_synthesis(
                catalog, links, env, out, config.family_config(), load_families(), exclude=exclude
            )
        else:
            stats = run_synthesis(catalog, links, env, out, config.walk(), exclude=exclude)
        return time.perf_counter() - start, (stats, calls)


def _bare(catalog: Any, calls: list[tuple[str, dict[str, Any]]]) -> float:
    """Seconds to send ``calls`` through ``ToolEnvironment.call`` on a fresh simulator."""
    with ToolEnvironment.open(catalog, source="sim") as env:
        start = time.perf_counter()
        for tool, args in calls:
            env.call(tool, args)
        return time.perf_counter() - start


def _row(generator: str, catalog: Any, links: Any, scratch: Path, trajectories: int, seed: int) -> dict[str, Any]:
    # An untimed run first: the world's tables (built once per process, whatever asks first) are then built for
    # both timed runs alike; each timed run has a fresh simulator, so both pay for composing every answer.
    _synthesize(generator, catalog, links, scratch / f"{generator}-warm", trajectories, seed)
    seconds, (stats, calls) = _synthesize(generator, catalog, links, scratch / generator, trajectories, seed)
    floor = _bare(catalog, calls)
    kept, attempts = stats["trajectories"], stats["attempts"]
    return {
        "generator": generator,
        "attempts": attempts,
        "kept": kept,
        "calls": len(calls),
        "seconds": round(seconds, 2),
        "attempts_per_s": round(attempts / seconds, 1),
        "kept_per_s": round(kept / seconds, 2),
        "calls_per_kept": round(len(calls) / max(kept, 1), 1),
        "floor_seconds": round(floor, 2),
        "x_calls": round(seconds / floor, 2),
    }


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--graph-dir", help="a pruned graph's run directory (default: prune one, 20 x 200)")
    parser.add_argument("--trajectories", type=int, default=100, help="items each generator is asked for")
    parser.add_argument("--generators", default="families,walk", help="comma-separated: families, walk")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args(argv)

    catalog = builtin_catalog()
    with tempfile.TemporaryDirectory() as scratch:
        graph_dir = Path(args.graph_dir) if args.graph_dir else Path(scratch, "graph")
        prune_seconds = None
        if not args.graph_dir:
            start = time.perf_counter()
            build_graph(catalog, graph_dir)
            with ToolEnvironment.open(catalog, source="sim") as env:
                prune_graph(catalog, graph_dir, env, PruneConfig(iterations=20, paths=200), plots=False)
            prune_seconds = round(time.perf_counter() - start, 1)
        links = retained_links(graph_dir / "graph.json", catalog)
        rows = [
            _row(generator, catalog, links, Path(scratch), args.trajectories, args.seed)
            for generator in args.generators.split(",")
        ]
    figures = {
        "python": platform.python_version(),
        "trajectories": args.trajectories,
        "links": len(links),
        "prune_seconds": prune_seconds,
        "rows": rows,
    }
    if args.json:
        print(json.dumps(figures, ensure_ascii=False, indent=2))
        return figures
    print(f"{len(links)} retained links" + (f" (pruned 20 x 200 in {prune_seconds} s)" if prune_seconds else ""))
    print(
        f"{'generator':<10} {'attempts':>8} {'kept':>6} {'calls':>7} {'s':>7} {'attempts/s':>10} {'kept/s':>7} "
        f"{'calls/kept':>10} {'floor s':>8} {'x calls':>7}"
    )
    for r in rows:
        print(
            f"{r['generator']:<10} {r['attempts']:>8} {r['kept']:>6} {r['calls']:>7} {r['seconds']:>7} "
            f"{r['attempts_per_s']:>10} {r['kept_per_s']:>7} {r['calls_per_kept']:>10} {r['floor_seconds']:>8} "
            f"{r['x_calls']:>7}"
        )
    return figures


if __name__ == "__main__":
    main(sys.argv[1:])
