"""ToolEnvironment throughput on strict replay of the shipped snapshot.

Two workloads, round robin, answered from ``cassettes/kopa.sqlite``: every
tool's catalog examples (typical calls: a page of 10–100 records), and the whole
probe workload the snapshot was recorded with (examples plus each tool's
largest page, up to 1,000 records to parse per call). Beside it in the same run: the same calls through
``execute`` alone (no validation, normalization or log), and an httpx client
over a no-op ``MockTransport`` (the floor of any httpx-based call). The corpCode
ZIP (1,000 companies, parsed once) is left out: its first call costs ≈20 ms
and would dominate the cold average.

Warm: repeated calls, the way pruning, synthesis and rollouts replay a snapshot
(the environment parses each recorded body once and hands out copies). Cold:
each distinct call once on a freshly opened environment and store, with the
process's shared parsed documents forgotten first (every body read,
decompressed, parsed, normalized and digested, as in a fresh process: a new
GRPO worker, a ``bench run``). The share of the cold rounds spent in Python's cyclic garbage collector is printed
beside them: the memo, the log and the caches keep objects from every call, and each full collection walks every
container the process holds.

A fresh process: a new interpreter that opens the shipped snapshot and answers one example call, beside one that
imports httpx and makes one call over the no-op transport (median wall time of five each; ``--no-fresh`` skips it).

    python benchmarks/bench_env.py --calls 5000
"""

from __future__ import annotations

import argparse
import gc
import json
import statistics
import subprocess
import sys
import time

import httpx
from _timing import rate

from kopa_replay.catalog import builtin_catalog
from kopa_replay.env import ToolEnvironment, build_request, execute, open_source
from kopa_replay.env.parse import forget_shared
from kopa_replay.stages.probes import probe_requests

#: a new interpreter's first replayed call on the shipped snapshot, and its floor: a first call over a no-op transport
FRESH = {
    "replay_first_call": (
        "from kopa_replay.catalog import builtin_catalog\n"
        "from kopa_replay.env import ToolEnvironment\n"
        "catalog = builtin_catalog()\n"
        "tool = catalog.get('datagokr_get_stock_price_info')\n"
        "with ToolEnvironment.open(catalog) as env:\n"
        "    assert env.call(tool.name, dict(tool.examples[0])).outcome == 'ok'\n"
    ),
    "noop_httpx_first_call": (
        "import httpx\n"
        "fixed = httpx.Response(200, content=b'{\"ok\":true}')\n"
        "httpx.Client(transport=httpx.MockTransport(lambda request: fixed)).get('https://example.org/').content\n"
    ),
}


def fresh_process_seconds(script: str, runs: int = 5) -> float:
    """Median wall time of a new interpreter running ``script``."""
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run([sys.executable, "-c", script], check=True)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


class CollectorTime:
    """Wall time spent in Python's cyclic garbage collector while inside (``gc.callbacks``)."""

    def __init__(self) -> None:
        self.seconds = 0.0
        self._started = 0.0

    def _note(self, phase: str, info: dict) -> None:
        if phase == "start":
            self._started = time.perf_counter()
        else:
            self.seconds += time.perf_counter() - self._started

    def __enter__(self) -> "CollectorTime":
        gc.callbacks.append(self._note)
        return self

    def __exit__(self, *exc: object) -> None:
        gc.callbacks.remove(self._note)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=5000, help="calls per mode")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--no-fresh", action="store_true", help="skip the fresh-process first call")
    options = parser.parse_args()
    catalog = builtin_catalog()
    workloads = {
        "examples": [(t.name, dict(a)) for t in catalog for a in t.examples if t.name != "dart_corp_code"],
        "probe": [(name, args) for name, args in probe_requests(catalog) if name != "dart_corp_code"],
    }
    fixed = httpx.Response(200, content=b'{"ok":true}')
    noop = httpx.Client(transport=httpx.MockTransport(lambda request: fixed))
    result: dict = {
        "calls": options.calls,
        "target_calls_per_second": 5000,
        "workloads": {},
        "cold_gc_share": {},
    }
    with open_source("replay", snapshot="2026-09-01", catalog=catalog) as source:
        env = ToolEnvironment(catalog, source)
        key = source.key_for(catalog.get("datagokr_get_stock_price_info"))
        for label, workload in workloads.items():
            items = [workload[i % len(workload)] for i in range(options.calls)]
            for item in workload:  # warm the transport's per-request cache and the body cache
                env.call(*item)
            env.reset()
            through_env = rate(lambda it: env.call(*it), items)
            env.reset()
            cold_calls, cold_seconds, collector = 0, 0.0, CollectorTime()
            for _ in range(5):
                forget_shared()  # a fresh process has parsed nothing yet
                with ToolEnvironment.open(catalog) as fresh, collector:
                    cold_calls += len(workload)
                    cold_seconds += len(workload) / rate(lambda it: fresh.call(*it), workload)
            result["cold_gc_share"][label] = round(collector.seconds / cold_seconds, 3)
            raw = rate(lambda it: execute(catalog.get(it[0]), it[1], source.client, key), items)
            requests = [build_request(catalog.get(name), args, "k") for name, args in items]
            floor = rate(lambda r: noop.request(r[0], r[1], headers=r[2]).content, requests)
            result["workloads"][label] = {
                "tool_environment_replay": round(through_env),
                "tool_environment_replay_cold": round(cold_calls / cold_seconds),
                "execute_replay": round(raw),
                "noop_httpx_mocktransport": round(floor),
            }
    if not options.no_fresh:
        result["fresh_process_seconds"] = {
            name: round(fresh_process_seconds(script), 3) for name, script in FRESH.items()
        }
    if options.json:
        print(json.dumps(result, indent=2))
        return
    for label, modes in result["workloads"].items():
        floor = modes["noop_httpx_mocktransport"]
        for mode, value in modes.items():
            print(f"{label:<9} {mode:<29} {value:>7} calls/s  {value / floor:>5.2f}x the no-op floor")
        print(
            f"{label:<9} {'cold: in the garbage collector':<29} {result['cold_gc_share'][label]:>7.1%} of the cold time"
        )
    if "fresh_process_seconds" in result:
        fresh = result["fresh_process_seconds"]
        print(
            f"fresh process, first call: replay {fresh['replay_first_call']:.2f} s, no-op httpx "
            f"{fresh['noop_httpx_first_call']:.2f} s"
        )


if __name__ == "__main__":
    main()
