"""Simulator throughput: calls per second in-process through httpx and through the loopback server.

Every figure is a ratio against a floor measured in the same run. In process: an
httpx client over a no-op ``MockTransport`` that returns a fixed body (the floor of
any httpx-based call). Over loopback: a hello-world ASGI app (a fixed small body)
under the same server as the simulator's (uvicorn, ``kopa_replay.sim.server``),
reached by the same keep-alive httpx client. The workload is every built-in tool's
example calls, round robin, so all ten platforms and all response formats take part;
after the warm-up pass every call repeats a request, which the simulator answers from
its cache of finished answers. Each mode and its floor are timed in alternation,
``--rounds`` times, and the median of each is reported (the ratio of the medians),
so a burst of load elsewhere on the machine weighs on both alike.
``…_each_answer_made`` asks each example once of a simulator with no answer kept
(its world already built): every answer made.

The world's build is measured apart, once per world size, each in a fresh interpreter (so
one size's memory does not count for the other): seconds and peak RSS from a cold start to
every built-in tool answering its examples once (the sub-worlds are built lazily, on the
first call that needs them), beside the same for a bare interpreter that imports the
simulator and answers nothing.

    python benchmarks/bench_sim.py --calls 3000 --no-build --world full
    python benchmarks/bench_sim.py --calls 3000 --world full --json
"""

from __future__ import annotations

import argparse
import contextlib
import json
import platform
import statistics
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator, MutableMapping
from typing import Any

import httpx
from _timing import rate

from kopa_replay.catalog import builtin_catalog
from kopa_replay.env import build_request
from kopa_replay.sim import SimRequest, SimTransport, Simulator
from kopa_replay.sim.server import AsgiServer, listen, serving


def examples(base_url: str | None = None) -> list[tuple[str, str, dict[str, str]]]:
    """(method, url, headers) of every tool's example calls, once each; URLs on ``base_url`` when given."""
    requests = []
    for tool in builtin_catalog():
        for args in tool.examples:
            method, url, headers, _ = build_request(tool, args, "sim-key", base_url)
            requests.append((method, url, headers))
    return requests


def workload(calls: int, base_url: str | None = None) -> list[tuple[str, str, dict[str, str]]]:
    """``calls`` requests: every tool's example calls, round robin."""
    requests = examples(base_url)
    return [requests[i % len(requests)] for i in range(calls)]


#: what a fresh interpreter runs to measure one world size's build (``answer`` 0: import only)
_BUILD_PROBE = """
import json, sys, time
start = time.perf_counter()
from kopa_replay.catalog import builtin_catalog
from kopa_replay.env import build_request
from kopa_replay.sim import SimRequest, Simulator
size, answer = sys.argv[1], sys.argv[2] == "1"
simulator = Simulator(seed=0, world_size=size)
calls = 0
if answer:
    for tool in builtin_catalog():
        for args in tool.examples:
            method, url, headers, _ = build_request(tool, args, "sim-key")
            simulator.handle(SimRequest.from_url(method, url, headers))
            calls += 1
seconds = time.perf_counter() - start
# VmHWM, not ru_maxrss: Linux carries ru_maxrss over from the parent across fork and exec
with open("/proc/self/status") as status:
    peak_kib = next(int(line.split()[1]) for line in status if line.startswith("VmHWM:"))
print(json.dumps({"seconds": seconds, "peak_rss_mib": peak_kib / 1024, "calls": calls}))
"""


HELLO = b'{"ok":true}'
_HELLO_HEAD = [(b"content-type", b"application/json"), (b"content-length", str(len(HELLO)).encode())]


async def hello(scope: MutableMapping[str, Any], receive: Callable, send: Callable) -> None:
    """The loopback floor: a hello-world ASGI app, a fixed small body whatever the request."""
    await send({"type": "http.response.start", "status": 200, "headers": _HELLO_HEAD})
    await send({"type": "http.response.body", "body": HELLO})


@contextlib.contextmanager
def serving_hello() -> Iterator[str]:
    """The hello-world app served on loopback as the simulator is (same server, same settings); its base URL."""
    server = AsgiServer(hello, listen("127.0.0.1", 0))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server.url
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


def alternating(rounds: int, modes: dict[str, Callable[[], float]]) -> dict[str, float]:
    """The median rate of each mode, the modes timed in turn ``rounds`` times."""
    seen: dict[str, list[float]] = {name: [] for name in modes}
    for _ in range(rounds):
        for name, measure in modes.items():
            seen[name].append(measure())
    return {name: statistics.median(rates) for name, rates in seen.items()}


def world_build(size: str) -> dict[str, float]:
    """Cold start to every example answered once, in a fresh interpreter, beside an import-only one."""

    def probe(answer: bool) -> dict[str, float]:
        out = subprocess.run(
            [sys.executable, "-c", _BUILD_PROBE, size, "1" if answer else "0"],
            check=True,
            capture_output=True,
            text=True,
        )
        return json.loads(out.stdout)

    bare, built = probe(False), probe(True)
    return {
        "seconds_to_every_example": round(built["seconds"], 2),
        "seconds_import_only": round(bare["seconds"], 2),
        "peak_rss_mib": round(built["peak_rss_mib"], 1),
        "peak_rss_mib_import_only": round(bare["peak_rss_mib"], 1),
        "example_calls": int(built["calls"]),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=3000, help="calls per mode and round")
    parser.add_argument("--rounds", type=int, default=3, help="alternating rounds of each mode and its floor")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument(
        "--world", default="default", help="world size of the throughput runs (default, full) [default: default]"
    )
    parser.add_argument("--no-build", action="store_true", help="skip the world build measurement")
    options = parser.parse_args()
    items = workload(options.calls)

    fixed = httpx.Response(200, content=HELLO)
    noop = httpx.Client(transport=httpx.MockTransport(lambda request: fixed))
    simulator = Simulator(seed=0, world_size=options.world)
    rate(lambda it: simulator.handle(SimRequest.from_url(it[0], it[1], it[2])), items)  # warm the world
    in_process = httpx.Client(transport=SimTransport(simulator))
    local = alternating(
        options.rounds,
        {
            "noop_httpx_mocktransport": lambda: rate(
                lambda it: noop.request(it[0], it[1], headers=it[2]).content, items
            ),
            "simulator_direct": lambda: rate(
                lambda it: simulator.handle(SimRequest.from_url(it[0], it[1], it[2])), items
            ),
            "simulator_in_process_httpx": lambda: rate(
                lambda it: in_process.request(it[0], it[1], headers=it[2]).content, items
            ),
        },
    )
    # every timed call above after the warm-up is a repeat, answered from the simulator's cache of finished
    # answers; a simulator of its own (the world already built, no answer kept) asked each example once makes
    # every answer anew
    fresh = httpx.Client(transport=SimTransport(Simulator(seed=0, world_size=options.world)))
    made_anew = rate(lambda it: fresh.request(it[0], it[1], headers=it[2]).content, examples())

    # the same client for both: one keep-alive connection to each server, opened by an untimed first pass
    with serving_hello() as hello_base, serving(simulator) as server, httpx.Client() as loop_client:
        on_hello, on_sim = workload(options.calls, hello_base), workload(options.calls, server.url)
        loop_modes = {
            "asgi_hello_world_loopback": lambda: rate(
                lambda it: loop_client.request(*it[:2], headers=it[2]).content, on_hello
            ),
            "simulator_loopback_http": lambda: rate(
                lambda it: loop_client.request(*it[:2], headers=it[2]).content, on_sim
            ),
        }
        for measure in loop_modes.values():
            measure()
        loop = alternating(options.rounds, loop_modes)

    baseline, hello_floor = local["noop_httpx_mocktransport"], loop["asgi_hello_world_loopback"]
    result: dict = {
        "calls_per_mode": options.calls,
        "rounds": options.rounds,
        "world": options.world,
        "python": platform.python_version(),
        "calls_per_second": {
            **{name: round(value) for name, value in local.items()},
            "simulator_in_process_httpx_each_answer_made": round(made_anew),
            **{name: round(value) for name, value in loop.items()},
        },
        "ratio_to_noop_httpx": {
            "simulator_in_process_httpx": round(local["simulator_in_process_httpx"] / baseline, 3),
            "simulator_in_process_httpx_each_answer_made": round(made_anew / baseline, 3),
            "simulator_loopback_http": round(loop["simulator_loopback_http"] / baseline, 3),
        },
        "ratio_to_asgi_hello_world_loopback": {
            "simulator_loopback_http": round(loop["simulator_loopback_http"] / hello_floor, 3),
        },
    }
    if not options.no_build:
        result["world_build"] = {size: world_build(size) for size in ("default", "full")}
    if options.json:
        print(json.dumps(result, indent=2))
        return
    print(
        f"{'mode':<44} {'calls/s':>8} {'vs no-op httpx':>15} {'vs hello ASGI':>14}   "
        f"(world {options.world}, median of {options.rounds} alternating rounds)"
    )
    for mode, value in result["calls_per_second"].items():
        beside_hello = f"{value / hello_floor:>13.2f}x" if mode in loop else ""
        print(f"{mode:<44} {value:>8} {value / baseline:>14.2f}x {beside_hello}")
    for size, build in result.get("world_build", {}).items():
        print(
            f"world {size}: {build['seconds_to_every_example']} s and {build['peak_rss_mib']} MiB peak from a cold "
            f"start to all {build['example_calls']} example calls answered (import alone: "
            f"{build['seconds_import_only']} s, {build['peak_rss_mib_import_only']} MiB)"
        )


if __name__ == "__main__":
    main()
