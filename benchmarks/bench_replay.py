"""Replay cost per call and bytes per interaction: our store vs a no-op httpx floor vs vcrpy's YAML cassettes.

For each size N (interactions in one snapshot) the benchmark builds a store
of N interactions with distinct request URLs, their bodies cycled from a few
hundred real simulator responses (every built-in tool's examples in three
seeded worlds), and replays a sample of distinct requests through an httpx
client over ``RecordTransport`` (strict replay, a fresh transport per pass so
nothing is answered from its per-request memo). Beside it, in the same run:

* the floor: an httpx client over a no-op ``httpx.MockTransport`` returning
  the same bodies (no lookup at all);
* vcrpy: the same interactions in a vcrpy YAML cassette (vcrpy's own
  serializer and filesystem persister), replayed by an httpx client inside
  ``vcr.use_cassette(..., record_mode="none")``. Loading the YAML is timed
  apart from the calls; vcrpy's matching scans the cassette, so its calls are
  sampled under a time cap, and sizes whose YAML would take longer than
  ``--vcr-budget`` seconds to write and load (estimated from the last size
  measured) are skipped with the reason.

Bytes per interaction are the finalized store file and the YAML file divided
by N. Bodies repeat in this workload and the store keeps each distinct body
once, which flatters it; the ``ours_unshared`` column says what it would take
if no two bodies were equal (rows plus each body compressed on its own).

    python benchmarks/bench_replay.py --sizes 1k,10k,100k
    python benchmarks/bench_replay.py --sizes 1k,10k,100k,1M --json
"""

from __future__ import annotations

import argparse
import itertools
import json
import platform
import random
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterator, Sequence

import httpx
import zstandard

from kopa_replay.catalog import builtin_catalog
from kopa_replay.env import build_request
from kopa_replay.record import RecordTransport, Redactor, Store
from kopa_replay.record.store import RecordedRow
from kopa_replay.record.vcr import recorded_row
from kopa_replay.sim import SimTransport, Simulator

SEEDS = (0, 1, 2)
#: the query parameter that makes every interaction's URL (and so its request key) distinct
SERIAL = "kopa_n"


@dataclass(frozen=True)
class Exchange:
    """One real simulator request and its response: the templates the interactions cycle through."""

    method: str
    url: str
    request_headers: dict[str, str]
    status: int
    response_headers: dict[str, str]  # every header, as vcrpy records them
    body: bytes


def templates() -> list[Exchange]:
    """Every built-in tool's example calls, answered by simulators of several seeds."""
    calls = [build_request(tool, args, "sim-key")[:3] for tool in builtin_catalog() for args in tool.examples]
    out = []
    for seed in SEEDS:
        with httpx.Client(transport=SimTransport(Simulator(seed=seed))) as client:
            for method, url, headers in calls:
                request = client.build_request(method, url, headers=headers)
                response = client.send(request)
                out.append(Exchange(method, str(request.url), dict(request.headers), response.status_code,
                                    dict(response.headers), response.content))
    return out


def url_of(template: Exchange, n: int) -> str:
    return f"{template.url}{'&' if '?' in template.url else '?'}{SERIAL}={n}"


# -- our store ---------------------------------------------------------------------
def rows(exchanges: Sequence[Exchange], size: int, redactor: Redactor) -> Iterator[RecordedRow]:
    """What RecordTransport would record for interaction n (template n mod len(exchanges)), lazily."""
    for n in range(size):
        t = exchanges[n % len(exchanges)]
        yield recorded_row(redactor, method=t.method, url=url_of(t, n), request_body=b"",
                           request_headers=t.request_headers, status=t.status, response_headers=t.response_headers,
                           body=t.body)


def build_store(path: Path, exchanges: Sequence[Exchange], size: int) -> float:
    """Write ``size`` interactions into snapshot "bench" in one transaction; returns seconds."""
    start = time.perf_counter()
    with Store(path) as store:
        store.append_many("bench", rows(exchanges, size, Redactor()))
        store.finalize()  # fold the WAL in: the file size is then the store's size
    return time.perf_counter() - start


def unshared_bytes(path: Path, exchanges: Sequence[Exchange], size: int) -> float:
    """Bytes per interaction if every body were distinct: rows and indexes, plus a compressed body each."""
    with Store(path, readonly=True) as store:
        stats = store.stats()
    compressor = zstandard.ZstdCompressor(level=3)
    # Store._encode's rule: short or incompressible bodies are kept raw.
    per_body = [min(len(e.body), len(compressor.compress(e.body))) if len(e.body) >= 64 else len(e.body)
                for e in exchanges]
    mean_body = sum(per_body[n % len(per_body)] for n in range(min(size, 100 * len(per_body)))) / min(
        size, 100 * len(per_body))
    return (stats["file_bytes"] - stats["body_bytes_stored"]) / size + mean_body


# -- timing ------------------------------------------------------------------------
def per_call_us(clients: dict[str, Callable[[], httpx.Client]], urls: Sequence[str], passes: int,
                rounds: int = 3) -> dict[str, float]:
    """Mean µs per call of each client over ``passes`` passes through ``urls`` (a fresh client per pass).

    The clients take turns, round after round, and each keeps its best round:
    a burst of load from elsewhere on the machine then hits one round of every
    client rather than all the rounds of one, so the ratios stay fair.
    """
    best = dict.fromkeys(clients, float("inf"))
    for _ in range(rounds):
        for name, make_client in clients.items():
            elapsed = 0.0
            for _ in range(passes):
                with make_client() as client:
                    start = time.perf_counter()
                    for url in urls:
                        _ = client.get(url).content
                    elapsed += time.perf_counter() - start
            best[name] = min(best[name], elapsed / (passes * len(urls)) * 1e6)
    return best


def noop_client(exchanges: Sequence[Exchange]) -> Callable[[], httpx.Client]:
    def make() -> httpx.Client:
        answers = itertools.cycle(exchanges)

        def handler(request: httpx.Request) -> httpx.Response:
            e = next(answers)
            return httpx.Response(e.status, headers={"content-type": e.response_headers.get("content-type", "")},
                                  content=e.body)

        return httpx.Client(transport=httpx.MockTransport(handler))

    return make


def replay_client(path: Path) -> Callable[[], httpx.Client]:
    store = Store(path, readonly=True)
    return lambda: httpx.Client(transport=RecordTransport(None, store, "bench", "replay"))


def write_vcr_cassette(path: Path, exchanges: Sequence[Exchange], size: int) -> float:
    """The interactions as vcrpy itself serializes them (all headers, bodies as text or !!binary)."""
    from vcr.persisters.filesystem import FilesystemPersister
    from vcr.request import Request
    from vcr.serializers import yamlserializer

    start = time.perf_counter()
    requests, responses = [], []
    for n in range(size):
        t = exchanges[n % len(exchanges)]
        requests.append(Request(t.method, url_of(t, n), None, t.request_headers))
        responses.append({"status": {"code": t.status, "message": httpx.codes.get_reason_phrase(t.status)},
                          "headers": {k: [v] for k, v in t.response_headers.items()},
                          "body": {"string": t.body}})
    FilesystemPersister.save_cassette(path, {"requests": requests, "responses": responses}, yamlserializer)
    return time.perf_counter() - start


def vcr_replay(path: Path, urls: Sequence[str], cap_s: float) -> tuple[float, float, int]:
    """(YAML load seconds, µs per call, calls measured) replaying through vcrpy with record_mode "none"."""
    import vcr

    start = time.perf_counter()
    with vcr.VCR(record_mode="none").use_cassette(str(path)):
        loaded = time.perf_counter()
        calls = 0
        with httpx.Client() as client:
            for url in urls:
                _ = client.get(url).content
                calls += 1
                if time.perf_counter() - loaded > cap_s:
                    break
        done = time.perf_counter()
    return loaded - start, (done - loaded) / calls * 1e6, calls


# -- the run -----------------------------------------------------------------------
def parse_size(text: str) -> int:
    text = text.strip().lower()
    factor = {"k": 1_000, "m": 1_000_000}.get(text[-1:], 1)
    return int(float(text[:-1] if factor > 1 else text) * factor)


def label(size: int) -> str:
    return f"{size // 1_000_000}M" if size % 1_000_000 == 0 else f"{size // 1000}k" if size % 1000 == 0 else str(size)


def measure(size: int, exchanges: Sequence[Exchange], folder: Path, options: argparse.Namespace,
            vcr_estimate: Callable[[int], float | None]) -> dict:
    rng = random.Random(size)
    sample = rng.sample(range(size), min(size, options.calls))
    urls = [url_of(exchanges[n % len(exchanges)], n) for n in sample]
    passes = max(1, options.calls // len(urls))
    store_path = folder / f"kopa-{label(size)}.sqlite"
    build_s = build_store(store_path, exchanges, size)
    ours_bytes = store_path.stat().st_size / size
    replay = replay_client(store_path)
    with replay() as client:  # warm the page cache and every lazy import
        for url in urls[:1000]:
            client.get(url)
    clients = {"noop": noop_client(exchanges), "ours": replay}
    timings = per_call_us(clients, urls, passes)
    noop_us, ours_us = timings["noop"], timings["ours"]
    row = {"size": size, "ours_us": round(ours_us, 1), "noop_us": round(noop_us, 1),
           "ratio_to_noop": round(ours_us / noop_us, 2), "ours_bytes": round(ours_bytes, 1),
           "ours_unshared_bytes": round(unshared_bytes(store_path, exchanges, size), 1),
           "store_build_s": round(build_s, 1), "vcr_us": None, "vcr_bytes": None, "vcr_skipped": None}
    store_path.unlink()
    estimate = vcr_estimate(size)
    if options.no_vcr:
        row["vcr_skipped"] = "--no-vcr"
    elif estimate is not None and estimate > options.vcr_budget:
        row["vcr_skipped"] = f"estimated {estimate:.0f} s to write and load the YAML > budget {options.vcr_budget:.0f} s"
    else:
        yaml_path = folder / f"vcr-{label(size)}.yaml"
        write_s = write_vcr_cassette(yaml_path, exchanges, size)
        load_s, vcr_us, vcr_calls = vcr_replay(yaml_path, urls, options.vcr_call_cap)
        row.update(vcr_us=round(vcr_us, 1), vcr_bytes=round(yaml_path.stat().st_size / size, 1),
                   vcr_write_s=round(write_s, 1), vcr_load_s=round(load_s, 1), vcr_calls=vcr_calls,
                   vcr_ratio_to_ours=round(vcr_us / ours_us, 1))
        yaml_path.unlink()
    if row["vcr_bytes"]:
        row["size_ratio"] = round(row["vcr_bytes"] / ours_bytes, 1)
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1k,10k,100k", help="interactions per snapshot, comma-separated (1k, 1M …)")
    parser.add_argument("--calls", type=int, default=20_000,
                        help="distinct requests replayed per pass (fewer at sizes below it: then several passes)")
    parser.add_argument("--vcr-budget", type=float, default=120.0,
                        help="skip vcrpy at sizes whose YAML write+load is estimated above this many seconds")
    parser.add_argument("--vcr-call-cap", type=float, default=20.0, help="seconds of vcrpy calls timed per size")
    parser.add_argument("--no-vcr", action="store_true", help="measure our store and the floor only")
    parser.add_argument("--dir", type=Path, default=None, help="where to write the store and YAML files (temp dir)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    options = parser.parse_args()
    sizes = [parse_size(s) for s in options.sizes.split(",") if s.strip()]

    exchanges = templates()
    measured: list[tuple[int, float]] = []  # (size, vcrpy write+load seconds)

    def vcr_estimate(size: int) -> float | None:
        if not measured:
            return None
        last_size, seconds = measured[-1]
        return seconds * size / last_size  # both the dump and the parse are linear in the file

    results = []
    with tempfile.TemporaryDirectory(dir=options.dir) as tmp:
        for size in sizes:
            row = measure(size, exchanges, Path(tmp), options, vcr_estimate)
            if row["vcr_us"] is not None:
                measured.append((size, row["vcr_write_s"] + row["vcr_load_s"]))
            results.append(row)
            if not options.json:
                print(f"measured {label(size)}: {row}", file=sys.stderr)
    summary = {"python": platform.python_version(), "templates": len(exchanges), "calls": options.calls,
               "results": results}
    if options.json:
        print(json.dumps(summary, indent=2))
        return
    largest_vcr = next((r["vcr_bytes"] for r in reversed(results) if r["vcr_bytes"]), None)
    print(f"{len(exchanges)} distinct response bodies; {options.calls} calls per size and client")
    print(f"{'size':>6} {'ours µs':>8} {'no-op µs':>9} {'ratio':>6} {'vcrpy µs':>10} {'ours B':>8} "
          f"{'unshared B':>11} {'vcrpy B':>9} {'size ratio':>11}")
    for r in results:
        vcr_bytes, mark = (r["vcr_bytes"], "") if r["vcr_bytes"] else (largest_vcr, "~")
        vcr_us = f"{r['vcr_us']:,.0f}" if r["vcr_us"] is not None else "skipped"
        ratio = f"{mark}{vcr_bytes / r['ours_bytes']:.1f}x" if vcr_bytes else "-"
        print(f"{label(r['size']):>6} {r['ours_us']:>8.1f} {r['noop_us']:>9.1f} {r['ratio_to_noop']:>5.2f}x "
              f"{vcr_us:>10} {r['ours_bytes']:>8.0f} {r['ours_unshared_bytes']:>11.0f} "
              f"{(mark + format(vcr_bytes, '.0f')) if vcr_bytes else '-':>9} {ratio:>11}")
    for r in results:
        if r["vcr_skipped"]:
            print(f"vcrpy at {label(r['size'])}: skipped ({r['vcr_skipped']})")
        elif r["vcr_us"] is not None:
            print(f"vcrpy at {label(r['size'])}: YAML written in {r['vcr_write_s']} s, loaded in {r['vcr_load_s']} s, "
                  f"{r['vcr_calls']} calls timed")
    if any(not r["vcr_bytes"] for r in results) and largest_vcr:
        print("~ : vcrpy bytes per interaction taken from the largest size measured (it is linear in the file)")


if __name__ == "__main__":
    main()
