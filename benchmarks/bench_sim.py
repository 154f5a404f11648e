"""Simulator throughput: calls per second in-process through httpx and through the loopback server.

Every figure is a ratio against a baseline measured in the same run: an httpx
client over a no-op ``MockTransport`` that returns a fixed body (the floor of
any httpx-based call). The workload is every built-in tool's example calls,
round robin, so all ten platforms and all response formats take part.

    python benchmarks/bench_sim.py --calls 3000
    python benchmarks/bench_sim.py --calls 3000 --json
"""

from __future__ import annotations

import argparse
import json
import platform

import httpx
from _timing import rate

from kopa_replay.catalog import builtin_catalog
from kopa_replay.env import build_request
from kopa_replay.sim import SimRequest, SimTransport, Simulator, running_server


def workload(calls: int, base_url: str | None = None) -> list[tuple[str, str, dict[str, str]]]:
    """(method, url, headers) of every tool's examples, round robin; URLs on ``base_url`` when given."""
    requests = []
    for tool in builtin_catalog():
        for args in tool.examples:
            method, url, headers, _ = build_request(tool, args, "sim-key", base_url)
            requests.append((method, url, headers))
    return [requests[i % len(requests)] for i in range(calls)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=3000, help="calls per mode")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    options = parser.parse_args()
    items = workload(options.calls)

    fixed = httpx.Response(200, content=b'{"ok":true}')
    noop = httpx.Client(transport=httpx.MockTransport(lambda request: fixed))
    baseline = rate(lambda it: noop.request(it[0], it[1], headers=it[2]).content, items)

    simulator = Simulator(seed=0)
    rate(lambda it: simulator.handle(SimRequest.from_url(it[0], it[1], it[2])), items)  # warm the world
    direct = rate(lambda it: simulator.handle(SimRequest.from_url(it[0], it[1], it[2])), items)

    in_process = httpx.Client(transport=SimTransport(simulator))
    through_httpx = rate(lambda it: in_process.request(it[0], it[1], headers=it[2]).content, items)

    with running_server(simulator) as base, httpx.Client() as loop_client:
        loopback = rate(
            lambda it: loop_client.request(it[0], it[1], headers=it[2]).content, workload(options.calls, base)
        )

    result = {
        "calls_per_mode": options.calls,
        "python": platform.python_version(),
        "calls_per_second": {
            "noop_httpx_mocktransport": round(baseline),
            "simulator_direct": round(direct),
            "simulator_in_process_httpx": round(through_httpx),
            "simulator_loopback_http": round(loopback),
        },
        "ratio_to_noop_httpx": {
            "simulator_in_process_httpx": round(through_httpx / baseline, 3),
            "simulator_loopback_http": round(loopback / baseline, 3),
        },
    }
    if options.json:
        print(json.dumps(result, indent=2))
        return
    print(f"{'mode':<32} {'calls/s':>10} {'vs no-op httpx':>15}")
    for mode, value in result["calls_per_second"].items():
        print(f"{mode:<32} {value:>10} {value / baseline:>14.2f}x")


if __name__ == "__main__":
    main()
