"""Memory of `kopa-replay mcp serve --transport http` under clients that vanish without ending their session.

Each round opens SESSIONS sessions with the mcp SDK's real client (50 held at a time) and drops them without the
DELETE that ends a session, then waits; the server's RSS is read after each round. Two servers in the same run:
one whose idle sessions close after --timeout seconds, the baseline one after 1,800 s (the SDK's own default,
what the server used before it had the option) — the growth per round of each, and their ratio.

    python benchmarks/bench_mcp_sessions.py [--rounds 2] [--sessions 1500] [--timeout 10] [--json]

Slow (a few minutes: ~50 s a round per server on two cores); needs psutil (Ray brings it).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import subprocess
import sys
import time

import anyio
import psutil
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client


def _rounds(timeout: float, rounds: int, sessions: int) -> list[float]:
    """RSS (MiB) of a fresh server after one ended session, then after each round (and the wait that follows)."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "kopa_replay", "mcp", "serve", "--transport", "http", "--port", "0"]
        + ["--session-idle-timeout", f"{timeout:g}"],
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "KOPA_API_KEY": ""},
    )
    assert proc.stderr is not None
    line = proc.stderr.readline()
    url = line.split(" at ")[1].split()[0]
    server = psutil.Process(proc.pid)

    async def abandon(n: int) -> None:
        async with contextlib.AsyncExitStack() as stack:
            for _ in range(n):
                read, write = await stack.enter_async_context(streamable_http_client(url, terminate_on_close=False))
                session = await stack.enter_async_context(ClientSession(read, write))
                await session.initialize()

    async def warm() -> None:  # imports and first-call caches are not counted
        async with streamable_http_client(url) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                await session.list_tools()

    try:
        anyio.run(warm)
        time.sleep(1)
        readings = [server.memory_info().rss / 2**20]
        for _ in range(rounds):
            for start in range(0, sessions, 50):
                anyio.run(abandon, min(50, sessions - start))
            time.sleep(timeout + 5 if timeout < 60 else 5)
            readings.append(server.memory_info().rss / 2**20)
        return readings
    finally:
        proc.terminate()
        proc.wait(30)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--sessions", type=int, default=1500)
    parser.add_argument("--timeout", type=float, default=10.0)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    result = {}
    for name, timeout in (("expiring", args.timeout), ("baseline", 1800.0)):
        readings = _rounds(timeout, args.rounds, args.sessions)
        result[name] = {
            "timeout_s": timeout,
            "rss_mib": [round(r, 1) for r in readings],
            # growth after the first round: what abandoned sessions keep once the server has warmed up
            "growth_last_round_mib": round(readings[-1] - readings[-2], 1),
            "growth_total_mib": round(readings[-1] - readings[0], 1),
        }
    if args.json:
        print(json.dumps(result, indent=2))
        return
    for name, row in result.items():
        print(
            f"{name:9} idle timeout {row['timeout_s']:g} s: RSS {row['rss_mib']} MiB, last round +{row['growth_last_round_mib']} MiB"
        )
    base, ours = result["baseline"]["growth_total_mib"], result["expiring"]["growth_total_mib"]
    print(
        f"growth over {args.rounds} rounds of {args.sessions}: {ours} MiB vs {base} MiB ({ours / base:.2f}x the baseline)"
    )


if __name__ == "__main__":
    main()
