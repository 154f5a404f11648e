"""Scale-out on Ray: 1 vs 2 workers for latency-bound recording and for pruning, and a projection of the paper's
live recording across N workers under the platforms' rate limits.

1. **Recording** from ``kopa-replay sim serve --latency 50`` (a real HTTP server in this process that waits 50 ms
   before each answer, as a network would), used as a mirror of every host: ``record --executor ray --workers W``
   for W = 1, 2. The work waits on the network, so 2 workers should come near 2x. Both must seal one digest.
2. **Pruning** on strict replay of a snapshot the loop recorded first: ``graph prune --batches B --executor ray
   --workers W`` for W = 1, 2 (same B: the same graph, which is checked). Replay is CPU-bound: 2 workers on the
   2-core machine share it with the driver.
3. **Projection**: recording the paper's pruning live on N workers, priced at ``--live-ms`` per call and bounded
   by each host's rate limit in the catalog (requests per second, requests in flight, daily quota) — sending every
   one of its ``--paper-calls`` calls (as the paper's live loop did) or only its distinct requests (what
   ``replay-or-record`` sends), split over hosts as the snapshot of step 2 holds them (``--prune-scale paper``:
   the paper-scale loop's own).

The Ray cluster is started once (``ray.init(num_cpus=2)``) before anything is timed; each stage joins it.

    python benchmarks/bench_scale.py                       # 50 ms latency, built-in pruning 20 x 500, 4 batches
    python benchmarks/bench_scale.py --prune-scale paper   # the paper's 100 x 500 over 2,318 tools (minutes)
"""

from __future__ import annotations

import argparse
import json
import math
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

from kopa_replay.catalog import builtin_catalog
from kopa_replay.record import Store
from kopa_replay.sim import Simulator
from kopa_replay.sim.server import serving
from kopa_replay.stages import graph_prune
from kopa_replay.stages.record import RecordConfig, record

SNAPSHOT = "2026-09-01"


def _timed(func: Any) -> tuple[float, Any]:
    start = time.perf_counter()
    result = func()
    return time.perf_counter() - start, result


def bench_recording(scratch: Path, latency_ms: float, workers: list[int]) -> dict[str, Any]:
    catalog = builtin_catalog()
    out: dict[str, Any] = {"latency_ms": latency_ms}
    with serving(Simulator(seed=0), "127.0.0.1", 0, latency_ms=latency_ms) as server:

        def config(count: int, name: str) -> RecordConfig:
            store = str(scratch / f"{name}-{count}.sqlite")
            return RecordConfig(
                snapshot=SNAPSHOT, source=server.url, bench=False, store=store, executor="ray", workers=count
            )

        record(config(max(workers), "warm-up"))  # Ray's worker processes started and their imports done, untimed
        for count in workers:
            seconds, result = _timed(lambda: record(config(count, "record")))
            out[f"workers_{count}"] = {
                "seconds": round(seconds, 2),
                "calls": result.summary.calls,
                "digest": result.summary.manifest["digest"],
            }
    first = out[f"workers_{workers[0]}"]
    out["same_digest"] = all(out[f"workers_{c}"]["digest"] == first["digest"] for c in workers)
    out["speedup"] = round(first["seconds"] / out[f"workers_{workers[-1]}"]["seconds"], 2)
    out["tools"] = len(catalog)
    return out


def bench_pruning(scratch: Path, scale: str, iterations: int, paths: int, batches: int, workers: list[int]) -> dict:
    store = scratch / "prune.sqlite"
    common = dict(scale=scale, iterations=iterations, paths=paths, batches=batches, plots=False, store=str(store))
    # recorded once (the loop's calls, from the in-process simulator), then replayed strictly for every timing
    graph_prune.run(
        graph_prune.Config(
            run_dir=str(scratch / "record"), snapshot="prune", mode="replay-or-record", source="sim", **common
        )
    )
    with Store(store) as opened:
        opened.end_recording("prune", everyone=True)
    out: dict[str, Any] = {"scale": scale, "iterations": iterations, "paths": paths, "batches": batches}
    for count in workers:
        config = graph_prune.Config(
            run_dir=str(scratch / f"prune-{count}"),
            snapshot="prune",
            mode="replay",
            source="replay",
            executor="ray",
            workers=count,
            **common,
        )
        graph_prune.run(graph_prune.Config(**{**config.__dict__, "run_dir": str(scratch / f"warm-{count}")}))
        seconds, result = _timed(lambda: graph_prune.run(config))
        out[f"workers_{count}"] = {
            "seconds": round(seconds, 2),
            "calls": result.report["calls"],
            "graph_digest": result.report["graph_digest"],
        }
    first = out[f"workers_{workers[0]}"]
    out["same_graph"] = all(out[f"workers_{c}"]["graph_digest"] == first["graph_digest"] for c in workers)
    out["speedup"] = round(first["seconds"] / out[f"workers_{workers[-1]}"]["seconds"], 2)
    out["requests_by_host"] = _requests_by_host(store, "prune")
    return out


def _requests_by_host(store_path: Path, snapshot: str) -> dict[str, int]:
    """The distinct requests the loop sent, per host (what its recording holds)."""
    from urllib.parse import urlsplit

    hosts: Counter[str] = Counter()
    with Store(store_path, readonly=True) as store:
        for item in store.interactions(snapshot):
            hosts[urlsplit(item.url).hostname or "?"] += 1
    return dict(sorted(hosts.items()))


def projection(requests_by_host: dict[str, int], calls: int, live_ms: float, workers: list[int]) -> list[dict]:
    """Hours to record the loop live on N workers, two ways: sending every one of its ``calls`` (what the paper's
    live pruning did), split over hosts as its distinct requests are, and sending each distinct request once
    (``requests_by_host``: what ``replay-or-record`` sends; a repeat is answered from the snapshot). Each is the
    slowest of (the calls at ``live_ms`` spread over N workers) and (each host at the most its rate limit lets
    through: min(requests per second, min(in flight, N) / latency)); ``extra_days`` is what a daily quota adds."""
    limits = builtin_catalog("paper").rate_limits()
    distinct = sum(requests_by_host.values())
    latency = live_ms / 1000

    def hours(total: int, count: int) -> tuple[float, str, int]:
        bound, slowest, days = total * latency / count, "workers", 0
        for host, requests in requests_by_host.items():
            share, limit = total * requests / distinct, limits.get(host)
            if limit is None:
                continue
            through = min(limit.requests_per_second, min(limit.concurrency, count) / latency)
            if share / through > bound:
                bound, slowest = share / through, host
            if limit.daily:
                days = max(days, math.ceil(share / limit.daily) - 1)
        return round(bound / 3600, 2), slowest, days

    rows = []
    for count in workers:
        every, every_host, every_days = hours(calls, count)
        once, once_host, once_days = hours(distinct, count)
        rows.append(
            {
                "workers": count,
                "every_call_hours": every,
                "every_call_bound_by": every_host,
                "every_call_extra_days": every_days,
                "distinct_requests_hours": once,
                "distinct_bound_by": once_host,
                "distinct_extra_days": once_days,
            }
        )
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--latency-ms", type=float, default=50.0)
    parser.add_argument("--prune-scale", choices=["builtin", "paper"], default="builtin")
    parser.add_argument("--iterations", type=int, default=20)
    parser.add_argument("--paths", type=int, default=500)
    parser.add_argument("--batches", type=int, default=4)
    parser.add_argument("--live-ms", type=float, default=300.0, help="a live round trip, for the projection")
    parser.add_argument("--paper-calls", type=int, default=172_662, help="calls of the paper-scale loop")
    parser.add_argument("--skip-recording", action="store_true")
    parser.add_argument("--skip-pruning", action="store_true")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    options = parser.parse_args()
    import ray

    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, logging_level="ERROR")
    result: dict[str, Any] = {}
    try:
        with tempfile.TemporaryDirectory() as scratch:
            if not options.skip_recording:
                result["recording"] = bench_recording(Path(scratch), options.latency_ms, [1, 2])
            if not options.skip_pruning:
                result["pruning"] = bench_pruning(
                    Path(scratch), options.prune_scale, options.iterations, options.paths, options.batches, [1, 2]
                )
                by_host = result["pruning"]["requests_by_host"]
                result["projection"] = {
                    "calls": options.paper_calls,
                    "distinct_requests": sum(by_host.values()),
                    "live_ms": options.live_ms,
                    "hosts_from": f"the {options.prune_scale} pruning loop's snapshot",
                    "rows": projection(by_host, options.paper_calls, options.live_ms, [1, 2, 4, 8, 16, 64]),
                }
    finally:
        ray.shutdown()
    if options.json:
        print(json.dumps(result, indent=2))
        return
    for part, figures in result.items():
        print(f"== {part}")
        for key, value in figures.items():
            if key == "rows":
                for row in value:
                    print(f"  {row}")
            elif key != "requests_by_host":
                print(f"  {key:<16} {value}")


if __name__ == "__main__":
    main()
