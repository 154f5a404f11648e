"""Replay and recording cost, and bytes per interaction: our store beside a no-op httpx floor, hishel 2 and vcrpy.

What the columns mean (N = interactions already in the store, one snapshot, each with its own URL):

* replay µs/call — mean wall time of one ``client.get(url).content`` replaying a
  recorded interaction, for: ``floor`` (an httpx client over a no-op
  ``httpx.MockTransport``: no lookup at all, the least any replay can cost),
  ``ours`` (strict replay through ``RecordTransport``: request key, index
  lookup, body read, decompressed and checked against its digest — the store
  keeps the last 1,024 bodies decompressed, so with the cycled bodies below
  the timed passes are served from that cache), ``hishel`` (hishel 2's
  ``CacheTransport`` over its ``SqliteStorage``, whose next transport raises if
  called, so every answer comes from the cache) and ``vcrpy`` (its YAML
  cassette, ``record_mode="none"``); ``x floor`` is each divided by the floor.
* record µs/interaction — recording a fixed batch of new distinct requests
  (``--record``, 2,000) into a store that already holds N: ``floor`` (the same
  requests through a plain ``MockTransport`` client), ``ours``
  (``RecordTransport(MockTransport, store, "bench", "record")``, batched commits,
  committed when the client closes) and ``hishel`` (``CacheTransport`` over the
  same ``MockTransport``, storage pre-filled with N). ``flat`` = ours at the
  largest size / ours at the smallest: 1.0 means the cost of recording does not
  grow with the store.
* bytes/interaction, cycled bodies — store file / N for the replay workload,
  whose bodies cycle through a few hundred responses: our store keeps each
  distinct body once, so this flatters it.
* bytes/interaction, unique bodies — the same for a workload where every
  interaction has a different real simulator response (as real traffic has):
  every built-in tool's examples, plus up to 8 next pages or earlier dates
  of each, in ``--unique-seeds`` (6) seeded worlds, bodies deduplicated
  (≈2,400 bodies, ≈30 s to generate). Ours is the finalized
  store file / N, vcrpy the YAML / N, hishel its database / N; ``vcrpy/ours``
  is the ratio. Bytes per interaction do not depend on N, so this is measured
  once, at a few thousand interactions. The same workload is replayed once per
  round with a fresh ``Store`` per pass (every body read, decompressed and
  verified: the cold case the cycled workload never reaches); beside it, the
  µs per body that verifying alone costs (sha256 of each body, the check
  hishel does not make); and a copy of that store verified once
  (``Store.verify``, what ``kopa-replay cassette verify`` runs, remembered in a
  ledger in a temporary cache folder), replayed the same way: its bodies are
  served unhashed while the file is the one verified (kopa_replay.record.ledger).
  ``--only cold`` measures this line alone (about a minute with
  ``--unique-seeds 1``).

How: the replay workload has N interactions whose bodies cycle through every
built-in tool's examples answered in three seeded worlds. Our store is written
with ``Store.append_many`` (one transaction) and finalized; hishel's storage is
filled by sending the N requests once through a ``CacheTransport`` over a
``MockTransport`` answering the same bodies. A sample of ``--calls`` distinct
requests replays through a fresh client per pass (a fresh ``RecordTransport``,
so nothing comes from its per-request memo; a fresh ``SqliteStorage``, since
closing a client closes its storage). The clients take turns over three rounds
and each keeps its best round; the recording clients likewise, each round on a
fresh copy of the pre-filled store. vcrpy's YAML load is timed apart from its
calls; its matching scans the cassette, so its calls run under a time cap, and
sizes whose YAML would take longer than ``--vcr-budget`` seconds to write and
load (estimated from the last size measured) are skipped with the reason;
hishel is skipped the same way past ``--hishel-budget`` seconds of filling.
Before timing, a sample of each replaying client's answers is checked against
the recorded bodies, and one untimed recording checks that everything sent was
recorded. Nothing here is asserted on time; the figures are ratios to
baselines of the same run. 1k-100k takes about 6 minutes on two cores; at 1M,
hishel needs ≈13 GB of disk twice over and ≈12 minutes to fill (hence the
budget), and vcrpy is skipped.

    pip install -e '.[bench]'      # hishel 2, the peer measured beside us
    python benchmarks/bench_replay.py --only cold --unique-seeds 1
    python benchmarks/bench_replay.py --sizes 1k,10k
    python benchmarks/bench_replay.py --sizes 1k,10k,100k
    python benchmarks/bench_replay.py --sizes 1k,10k,100k,1M --hishel-budget 1800 --json
"""

from __future__ import annotations

import argparse
import contextlib
import datetime
import hashlib
import importlib.util
import itertools
import json
import os
import platform
import random
import shutil
import sqlite3
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, ContextManager, Iterator, Sequence

import httpx

from kopa_replay.catalog import builtin_catalog
from kopa_replay.env import build_request
from kopa_replay.record import RecordTransport, Redactor, Store, ledger
from kopa_replay.record.store import RecordedRow, verify_store
from kopa_replay.record.vcr import recorded_row
from kopa_replay.sim import SimTransport, Simulator

SEEDS = (0, 1, 2)
#: the query parameter that makes every interaction's URL (and so its request key) distinct
SERIAL = "kopa_n"
SHIPPED_SNAPSHOT = "2026-09-01"
ROUNDS = 3
#: what the replay, recording and check timings read: wall time, or this process's CPU time (``--cpu-time``: on a
#: machine other jobs share, the CPU a call costs, without the waits another job's load puts in)
CLOCK: Callable[[], float] = time.perf_counter
#: next pages / earlier dates asked per example call in the unique-body workload
STEPS = 8


@dataclass(frozen=True)
class Exchange:
    """One real simulator request and its response."""

    method: str
    url: str
    request_headers: dict[str, str]
    status: int
    response_headers: dict[str, str]  # every header, as vcrpy records them
    body: bytes


# -- workloads ---------------------------------------------------------------------
def variants(args: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """Pages 2-4 of an example call where it pages, and earlier dates (days or months) where it has any."""
    for k in range(2, STEPS + 2):
        out = dict(args)
        paged = False
        if "START" in out and "END" in out:
            width = int(out["END"]) - int(out["START"]) + 1
            out["START"], out["END"] = int(out["START"]) + width * (k - 1), int(out["END"]) + width * (k - 1)
            paged = True
        elif "pIndex" in out or "pSize" in out:
            out["pIndex"], paged = k, True
        elif "pageNo" in out or "numOfRows" in out:
            out["pageNo"], paged = k, True
        dated = False
        for name, value in args.items():
            text = str(value)
            if not (text.isdigit() and text[:2] in ("19", "20") and len(text) in (6, 8) and 1 <= int(text[4:6]) <= 12):
                continue
            if len(text) == 8:  # a day: a week earlier per step
                try:
                    day = datetime.date(int(text[:4]), int(text[4:6]), int(text[6:]))
                except ValueError:
                    continue
                out[name], dated = (day - datetime.timedelta(days=7 * (k - 1))).strftime("%Y%m%d"), True
            elif len(text) == 6:  # a month
                months = int(text[:4]) * 12 + int(text[4:]) - 1 - (k - 1)
                out[name], dated = f"{months // 12:04d}{months % 12 + 1:02d}", True
        if paged or dated:
            yield out


def simulate(unique_seeds: int, templates_too: bool = True) -> tuple[list[Exchange], list[Exchange]]:
    """(templates, unique) from one pass of simulators.

    templates: every built-in tool's example calls answered in the worlds of SEEDS (what the cycled
    interactions repeat; none without ``templates_too``). unique: every distinct body among the examples and
    their :func:`variants` in ``unique_seeds`` worlds, each once.
    """
    calls = [(tool, args) for tool in builtin_catalog() for args in tool.examples]
    templates: list[Exchange] = []
    unique: dict[str, Exchange] = {}

    for seed in range(max(len(SEEDS) if templates_too else 0, unique_seeds)):
        with httpx.Client(transport=SimTransport(Simulator(seed=seed))) as client:

            def send(tool: Any, args: dict[str, Any]) -> Exchange:
                method, url, headers = build_request(tool, args, "sim-key")[:3]
                request = client.build_request(method, url, headers=headers)
                response = client.send(request)
                return Exchange(
                    method,
                    str(request.url),
                    dict(request.headers),
                    response.status_code,
                    dict(response.headers),
                    response.content,
                )

            for tool, args in calls:
                exchange = send(tool, args)
                if templates_too and seed in SEEDS:
                    templates.append(exchange)
                if seed < unique_seeds:
                    unique.setdefault(hashlib.sha256(exchange.body).hexdigest(), exchange)
                    for changed in variants(args):
                        exchange = send(tool, changed)
                        unique.setdefault(hashlib.sha256(exchange.body).hexdigest(), exchange)
    return templates, list(unique.values())


def url_of(template: Exchange, n: int) -> str:
    return f"{template.url}{'&' if '?' in template.url else '?'}{SERIAL}={n}"


def mock_transport(exchanges: Sequence[Exchange], start: int = 0) -> httpx.MockTransport:
    """A no-op transport answering exchanges[start], exchanges[start + 1], … in turn (cycling)."""
    answers = itertools.islice(itertools.cycle(exchanges), start % len(exchanges), None)

    def handler(request: httpx.Request) -> httpx.Response:
        e = next(answers)
        return httpx.Response(
            e.status, headers={"content-type": e.response_headers.get("content-type", "")}, content=e.body
        )

    return httpx.MockTransport(handler)


def offline() -> httpx.MockTransport:
    """The transport behind a replaying cache: any request reaching it is a miss, and fails the benchmark."""

    def handler(request: httpx.Request) -> httpx.Response:
        raise AssertionError(f"not answered from the cache: {request.url}")

    return httpx.MockTransport(handler)


def files_bytes(path: Path) -> int:
    """A SQLite database's size with its WAL, if any is left."""
    return sum(p.stat().st_size for p in (path, path.with_name(path.name + "-wal")) if p.exists())


def remove_db(path: Path) -> None:
    for suffix in ("", "-wal", "-shm", "-journal"):
        path.with_name(path.name + suffix).unlink(missing_ok=True)


def copy_db(source: Path, target: Path) -> None:
    remove_db(target)
    for suffix in ("", "-wal"):
        if source.with_name(source.name + suffix).exists():
            shutil.copyfile(source.with_name(source.name + suffix), target.with_name(target.name + suffix))


# -- our store ---------------------------------------------------------------------
def rows(exchanges: Sequence[Exchange], size: int, redactor: Redactor) -> Iterator[RecordedRow]:
    """What RecordTransport would record for interaction n (template n mod len(exchanges)), lazily."""
    for n in range(size):
        t = exchanges[n % len(exchanges)]
        yield recorded_row(
            redactor,
            method=t.method,
            url=url_of(t, n),
            request_body=b"",
            request_headers=t.request_headers,
            status=t.status,
            response_headers=t.response_headers,
            body=t.body,
        )


def stored_bodies(exchanges: Sequence[Exchange], ns: Sequence[int]) -> list[bytes]:
    """The bodies our store serves for interactions ``ns``: as recorded, scrubbed of the API key."""
    redactor = Redactor()
    out = []
    for n in ns:
        t = exchanges[n % len(exchanges)]
        out.append(
            recorded_row(
                redactor,
                method=t.method,
                url=url_of(t, n),
                request_body=b"",
                request_headers=t.request_headers,
                status=t.status,
                response_headers=t.response_headers,
                body=t.body,
            ).body
        )
    return out


def build_store(path: Path, exchanges: Sequence[Exchange], size: int) -> float:
    """Write ``size`` interactions into snapshot "bench" in one transaction; returns seconds."""
    start = time.perf_counter()
    with Store(path) as store:
        store.append_many("bench", rows(exchanges, size, Redactor()))
        store.finalize()  # fold the WAL in: the file size is then the store's size
    return time.perf_counter() - start


def replay_client(path: Path) -> Callable[[], httpx.Client]:
    store = Store(path, readonly=True)
    return lambda: httpx.Client(transport=RecordTransport(None, store, "bench", "replay"))


@contextlib.contextmanager
def cold_replay_client(path: Path, ledger_folder: str | None = None) -> Iterator[Callable[[], httpx.Client]]:
    """A fresh read-only Store per client: no body comes from the store's cache or is taken as checked by this
    process. ``ledger_folder``: the cache folder whose ledger remembers the file as verified whole (its bodies are
    then served unhashed); without it, the file must not be remembered (every body is hashed)."""
    opened: list[Store] = []

    def make() -> httpx.Client:
        while opened:
            done = opened.pop()
            if done.trusted != (ledger_folder is not None):  # a store that let go mid-pass measured the other path
                raise AssertionError(f"{path} stopped being taken as verified whole during a pass")
            done.close()
        with ledger_in_use(ledger_folder):
            opened.append(Store(path, readonly=True))
        if opened[-1].trusted != (ledger_folder is not None):
            raise AssertionError(f"{path} is {'' if opened[-1].trusted else 'not '}taken as verified whole")
        return httpx.Client(transport=RecordTransport(None, opened[-1], "bench", "replay"))

    try:
        yield make
    finally:
        for store in opened:
            store.close()


@contextlib.contextmanager
def ours_recorder(
    store_path: Path, work: Path, exchanges: Sequence[Exchange], size: int
) -> Iterator[Callable[[], httpx.Client]]:
    """A fresh copy of the pre-filled store, and what opens a recording client on it."""
    copy_db(store_path, work)
    try:
        with Store(work) as store:
            yield lambda: httpx.Client(
                transport=RecordTransport(mock_transport(exchanges, size), store, "bench", "record")
            )
    finally:
        remove_db(work)


# -- hishel ------------------------------------------------------------------------
def hishel_client(path: Path, inner: httpx.BaseTransport) -> httpx.Client:
    """A client over hishel 2's CacheTransport and a SqliteStorage of its own (closing the client closes it)."""
    import hishel
    from hishel.httpx import CacheTransport

    storage = hishel.SqliteStorage(database_path=path, max_size=None)
    return httpx.Client(transport=CacheTransport(inner, storage=storage))


def fill_hishel(path: Path, exchanges: Sequence[Exchange], size: int) -> float:
    """Send interactions 0..size-1 once through hishel over a MockTransport answering their bodies; seconds."""
    start = time.perf_counter()
    with hishel_client(path, mock_transport(exchanges)) as client:
        for n in range(size):
            t = exchanges[n % len(exchanges)]
            _ = client.get(url_of(t, n), headers=t.request_headers).content  # read: hishel saves as it streams
    return time.perf_counter() - start


def hishel_entries(path: Path) -> int:
    with contextlib.closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as conn:
        return conn.execute("SELECT COUNT(*) FROM entries WHERE chunk_count IS NOT NULL").fetchone()[0]


@contextlib.contextmanager
def hishel_recorder(
    db_path: Path, work: Path, exchanges: Sequence[Exchange], size: int
) -> Iterator[Callable[[], httpx.Client]]:
    copy_db(db_path, work)
    try:
        yield lambda: hishel_client(work, mock_transport(exchanges, size))
    finally:
        remove_db(work)


# -- vcrpy -------------------------------------------------------------------------
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
        responses.append(
            {
                "status": {"code": t.status, "message": httpx.codes.get_reason_phrase(t.status)},
                "headers": {k: [v] for k, v in t.response_headers.items()},
                "body": {"string": t.body},
            }
        )
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


# -- timing ------------------------------------------------------------------------
def per_call_us(
    clients: dict[str, Callable[[], httpx.Client]], urls: Sequence[str], passes: int, rounds: int = ROUNDS
) -> dict[str, float]:
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
                    start = CLOCK()
                    for url in urls:
                        _ = client.get(url).content
                    elapsed += CLOCK() - start
            best[name] = min(best[name], elapsed / (passes * len(urls)) * 1e6)
    return best


def record_us(
    recorders: dict[str, Callable[[], ContextManager[Callable[[], httpx.Client]]]],
    urls: Sequence[str],
    rounds: int = ROUNDS,
) -> dict[str, float]:
    """Mean µs per recorded interaction: opening a recording client, sending ``urls``, closing it (which commits).

    Each recorder readies a fresh copy of its pre-filled store per round (untimed); turns and best round as
    in :func:`per_call_us`.
    """
    best = dict.fromkeys(recorders, float("inf"))
    for _ in range(rounds):
        for name, recorder in recorders.items():
            with recorder() as make_client:
                start = CLOCK()
                with make_client() as client:
                    for url in urls:
                        _ = client.get(url).content
                elapsed = CLOCK() - start
            best[name] = min(best[name], elapsed / len(urls) * 1e6)
    return best


def check_us(bodies: Sequence[bytes], rounds: int = ROUNDS) -> float:
    """µs per body of the check ours makes on each body's first read and hishel does not (sha256 of the body
    against its digest): the part of ours' cold replay that is the check, not the lookup."""
    best = float("inf")
    for _ in range(rounds):
        start = CLOCK()
        for body in bodies:
            hashlib.sha256(body).hexdigest()
        best = min(best, (CLOCK() - start) / len(bodies) * 1e6)
    return best


@contextlib.contextmanager
def ledger_in_use(folder: str | None) -> Iterator[None]:
    """KOPA_CACHE_DIR set to ``folder`` (the ledger of verified stores lives there) while inside; None: as it is."""
    before = os.environ.get("KOPA_CACHE_DIR")
    if folder is not None:
        os.environ["KOPA_CACHE_DIR"] = folder
    try:
        yield
    finally:
        if folder is not None:
            if before is None:
                del os.environ["KOPA_CACHE_DIR"]
            else:
                os.environ["KOPA_CACHE_DIR"] = before


@contextlib.contextmanager
def verified_once(store_path: Path, verified_path: Path) -> Iterator[str | None]:
    """A copy of the store verified whole once (what ``kopa-replay cassette verify`` does), remembered in a ledger
    of its own (a temporary cache folder, so the user's is left alone); yields that folder, or None when this
    machine cannot remember the file (see kopa_replay.record.ledger)."""
    shutil.copyfile(store_path, verified_path)
    with tempfile.TemporaryDirectory() as folder:
        # the ledger remembers a file only once its last change is SETTLED_NS old (a later write must show)
        waited = ledger.SETTLED_NS - (time.time_ns() - verified_path.stat().st_ctime_ns)
        time.sleep(max(0.0, waited / 1e9 + 0.05))
        with ledger_in_use(folder):
            remembered = verify_store(verified_path) == ([], None)
        try:
            yield folder if remembered else None
        finally:
            verified_path.unlink(missing_ok=True)


def check_answers(
    make_client: Callable[[], httpx.Client], urls: Sequence[str], expected: Sequence[bytes], who: str
) -> None:
    """Replay ``urls`` once (warming the page cache and every lazy import) and check every body."""
    with make_client() as client:
        for url, body in zip(urls, expected):
            if client.get(url).content != body:
                raise AssertionError(f"{who} replayed a wrong body for {url}")


# -- the run -----------------------------------------------------------------------
def parse_size(text: str) -> int:
    text = text.strip().lower()
    factor = {"k": 1_000, "m": 1_000_000}.get(text[-1:], 1)
    return int(float(text[:-1] if factor > 1 else text) * factor)


def label(size: int) -> str:
    return f"{size // 1_000_000}M" if size % 1_000_000 == 0 else f"{size // 1000}k" if size % 1000 == 0 else str(size)


def linear_estimate(measured: list[tuple[int, float]], size: int) -> float | None:
    """Seconds at ``size`` from the last (size, seconds) measured, for work linear in the size."""
    if not measured:
        return None
    last_size, seconds = measured[-1]
    return seconds * size / last_size


def measure(
    size: int,
    exchanges: Sequence[Exchange],
    folder: Path,
    options: argparse.Namespace,
    vcr_measured: list[tuple[int, float]],
    hishel_measured: list[tuple[int, float]],
) -> dict:
    rng = random.Random(size)
    sample = rng.sample(range(size), min(size, options.calls))
    urls = [url_of(exchanges[n % len(exchanges)], n) for n in sample]
    passes = max(1, options.calls // len(urls))
    new_urls = [url_of(exchanges[n % len(exchanges)], n) for n in range(size, size + options.record)]

    store_path = folder / f"kopa-{label(size)}.sqlite"
    build_s = build_store(store_path, exchanges, size)
    row: dict[str, Any] = {
        "size": size,
        "store_build_s": round(build_s, 1),
        "ours_bytes_cycled": round(store_path.stat().st_size / size, 1),
    }

    hishel_path = folder / f"hishel-{label(size)}.db"
    estimate = linear_estimate(hishel_measured, size)
    if options.no_hishel:
        row["hishel_skipped"] = "--no-hishel"
    elif estimate is not None and estimate > options.hishel_budget:
        row["hishel_skipped"] = f"estimated {estimate:.0f} s to fill its storage > budget {options.hishel_budget:.0f} s"
    else:
        fill_s = fill_hishel(hishel_path, exchanges, size)
        hishel_measured.append((size, fill_s))
        if hishel_entries(hishel_path) != size:
            raise AssertionError(f"hishel stored {hishel_entries(hishel_path)} entries of {size}")
        row.update(hishel_fill_s=round(fill_s, 1), hishel_bytes_cycled=round(files_bytes(hishel_path) / size, 1))
    with_hishel = "hishel_fill_s" in row

    replay = replay_client(store_path)
    clients = {"floor": lambda: httpx.Client(transport=mock_transport(exchanges)), "ours": replay}
    check_answers(replay, urls, stored_bodies(exchanges, sample[:1000]), "ours")
    if with_hishel:
        clients["hishel"] = lambda: hishel_client(hishel_path, offline())
        check_answers(clients["hishel"], urls, [exchanges[n % len(exchanges)].body for n in sample[:1000]], "hishel")
    replayed = per_call_us(clients, urls, passes)
    row.update({f"replay_{name}_us": round(us, 1) for name, us in replayed.items()})

    recorders: dict[str, Callable[[], ContextManager[Callable[[], httpx.Client]]]] = {
        "floor": lambda: contextlib.nullcontext(lambda: httpx.Client(transport=mock_transport(exchanges, size))),
        "ours": lambda: ours_recorder(store_path, folder / "ours-recording.sqlite", exchanges, size),
    }
    if with_hishel:
        recorders["hishel"] = lambda: hishel_recorder(hishel_path, folder / "hishel-recording.db", exchanges, size)
    with ours_recorder(store_path, folder / "ours-check.sqlite", exchanges, size) as make_client:
        checked = new_urls[:300]
        with make_client() as client:  # once untimed: everything is recorded, and committed on close
            for url in checked:
                _ = client.get(url).content
        with Store(folder / "ours-check.sqlite", readonly=True) as recorded:
            if recorded.snapshot("bench").interactions != size + len(checked):
                raise AssertionError(
                    f"ours recorded {recorded.snapshot('bench').interactions - size} of {len(checked)}"
                )
    recording = record_us(recorders, new_urls)
    row.update({f"record_{name}_us": round(us, 1) for name, us in recording.items()})
    store_path.unlink()
    remove_db(hishel_path)

    estimate = linear_estimate(vcr_measured, size)
    if options.no_vcr:
        row["vcr_skipped"] = "--no-vcr"
    elif estimate is not None and estimate > options.vcr_budget:
        row["vcr_skipped"] = (
            f"estimated {estimate:.0f} s to write and load the YAML > budget {options.vcr_budget:.0f} s"
        )
    else:
        yaml_path = folder / f"vcr-{label(size)}.yaml"
        write_s = write_vcr_cassette(yaml_path, exchanges, size)
        load_s, vcr_us, vcr_calls = vcr_replay(yaml_path, urls, options.vcr_call_cap)
        vcr_measured.append((size, write_s + load_s))
        row.update(
            replay_vcr_us=round(vcr_us, 1),
            vcr_bytes_cycled=round(yaml_path.stat().st_size / size, 1),
            vcr_write_s=round(write_s, 1),
            vcr_load_s=round(load_s, 1),
            vcr_calls=vcr_calls,
        )
        yaml_path.unlink()
    floor = row["replay_floor_us"]
    for name in ("ours", "hishel", "vcr"):
        if row.get(f"replay_{name}_us") is not None:
            row[f"replay_{name}_x_floor"] = round(row[f"replay_{name}_us"] / floor, 2)
    for name in ("ours", "hishel"):
        if row.get(f"record_{name}_us") is not None:
            row[f"record_{name}_x_floor"] = round(row[f"record_{name}_us"] / row["record_floor_us"], 2)
    return row


def measure_unique(unique: Sequence[Exchange], folder: Path, options: argparse.Namespace) -> dict:
    """Bytes per interaction where every body differs, and cold replay of that store."""
    size = len(unique)
    out: dict[str, Any] = {"interactions": size, "mean_body_bytes": round(sum(len(e.body) for e in unique) / size, 1)}
    store_path = folder / "kopa-unique.sqlite"
    build_store(store_path, unique, size)
    out["ours_bytes"] = round(store_path.stat().st_size / size, 1)
    urls = [url_of(e, n) for n, e in enumerate(unique)]
    hishel_path = folder / "hishel-unique.db"
    if not options.no_hishel:
        fill_hishel(hishel_path, unique, size)
        out["hishel_bytes"] = round(files_bytes(hishel_path) / size, 1)
    if not options.no_vcr and options.only != "cold":  # bytes only: the cold line does not need them
        yaml_path = folder / "vcr-unique.yaml"
        write_vcr_cassette(yaml_path, unique, size)
        out["vcr_bytes"] = round(yaml_path.stat().st_size / size, 1)
        yaml_path.unlink()
    for name in ("vcr", "hishel"):
        if f"{name}_bytes" in out:
            out[f"{name}_over_ours"] = round(out[f"{name}_bytes"] / out["ours_bytes"], 1)
    verified_path = folder / "kopa-unique-verified.sqlite"
    with contextlib.ExitStack() as stack:
        cold = stack.enter_context(cold_replay_client(store_path))
        clients = {"floor": lambda: httpx.Client(transport=mock_transport(unique)), "ours": cold}
        bodies = stored_bodies(unique, range(size))
        check_answers(cold, urls, bodies, "ours")
        ledger_folder = stack.enter_context(verified_once(store_path, verified_path))
        if ledger_folder is not None:
            clients["ours_verified"] = stack.enter_context(cold_replay_client(verified_path, ledger_folder))
            check_answers(clients["ours_verified"], urls, bodies, "ours (verified store)")
        if not options.no_hishel:
            clients["hishel"] = lambda: hishel_client(hishel_path, offline())
            check_answers(clients["hishel"], urls, [e.body for e in unique], "hishel")
        replayed = per_call_us(clients, urls, 1)
    out.update({f"replay_{name}_us": round(us, 1) for name, us in replayed.items()})
    for name in ("ours", "ours_verified", "hishel"):
        if f"replay_{name}_us" in out:
            out[f"replay_{name}_x_floor"] = round(out[f"replay_{name}_us"] / out["replay_floor_us"], 2)
    out["ours_check_us"] = round(check_us(stored_bodies(unique, range(size))), 1)
    store_path.unlink()
    remove_db(hishel_path)
    return out


def measure_shipped(folder: Path) -> dict:
    """Bytes per interaction of the shipped snapshot: the store file beside the same interactions written by
    vcrpy's own serializer (with only the headers we keep, which flatters vcrpy: it records every header)."""
    from vcr.persisters.filesystem import FilesystemPersister
    from vcr.serializers import yamlserializer

    from kopa_replay.record.store import default_store_path
    from kopa_replay.record.vcr import KopaPersister, kopa_cassette_path

    shipped = default_store_path()
    requests, responses = KopaPersister.load_cassette(kopa_cassette_path(shipped, SHIPPED_SNAPSHOT))
    yaml_path = folder / "vcr-shipped.yaml"
    FilesystemPersister.save_cassette(yaml_path, {"requests": requests, "responses": responses}, yamlserializer)
    size = len(requests)
    out = {
        "interactions": size,
        "ours_bytes": round(shipped.stat().st_size / size, 1),
        "vcr_bytes": round(yaml_path.stat().st_size / size, 1),
    }
    out["vcr_over_ours"] = round(out["vcr_bytes"] / out["ours_bytes"], 1)
    yaml_path.unlink()
    return out


def cell(value: float | None, fmt: str = ",.1f", width: int = 9) -> str:
    return f"{'-' if value is None else format(value, fmt):>{width}}"


def times(ratio: float | None) -> str:
    return "-" if ratio is None else f"{ratio:.1f}x"


def report_sizes(summary: dict) -> None:
    """The tables per size: replay, recording, bytes per interaction of the cycled workload."""
    results = summary["results"]
    print("\nreplay, µs per call (x floor)")
    print(f"{'size':>6} {'floor':>9} {'ours':>16} {'hishel':>16} {'vcrpy':>18}")
    for r in results:

        def us(name: str) -> str:
            value = r.get(f"replay_{name}_us")
            if value is None:
                return "skipped"
            ratio = r[f"replay_{name}_x_floor"]
            return f"{value:,.1f} ({ratio:.2f}x)" if value < 1000 else f"{value:,.0f} ({ratio:,.0f}x)"

        print(f"{label(r['size']):>6} {r['replay_floor_us']:>9.1f} {us('ours'):>16} {us('hishel'):>16} {us('vcr'):>18}")

    print(f"\nrecording {summary['record']:,} new interactions into a store of N, µs per interaction (x floor)")
    print(f"{'size':>6} {'floor':>9} {'ours':>16} {'hishel':>16}")
    for r in results:

        def rec(name: str) -> str:
            value = r.get(f"record_{name}_us")
            return "skipped" if value is None else f"{value:,.1f} ({r[f'record_{name}_x_floor']:.2f}x)"

        print(f"{label(r['size']):>6} {r['record_floor_us']:>9.1f} {rec('ours'):>16} {rec('hishel'):>16}")
    if len(results) > 1:
        print(
            f"flat: ours at {label(results[-1]['size'])} / ours at {label(results[0]['size'])} = "
            f"{summary['record_flat']:.2f}"
        )

    print("\nbytes per interaction, cycled bodies (the replay workload above)")
    print(f"{'size':>6} {'ours':>9} {'hishel':>9} {'vcrpy':>9} {'vcrpy/ours':>11}")
    largest_vcr = next((r["vcr_bytes_cycled"] for r in reversed(results) if r.get("vcr_bytes_cycled")), None)
    for r in results:
        vcr, mark = (r["vcr_bytes_cycled"], "") if r.get("vcr_bytes_cycled") else (largest_vcr, "~")
        vcr_cell = f"{mark}{vcr:,.0f}" if vcr else "-"
        ratio = f"{mark}{vcr / r['ours_bytes_cycled']:.1f}x" if vcr else "-"
        print(
            f"{label(r['size']):>6} {cell(r['ours_bytes_cycled'], ',.0f')} "
            f"{cell(r.get('hishel_bytes_cycled'), ',.0f')} {vcr_cell:>9} {ratio:>11}"
        )
    if any(not r.get("vcr_bytes_cycled") for r in results) and largest_vcr:
        print("~ : vcrpy bytes per interaction taken from the largest size measured (it is linear in the file)")


def report(summary: dict) -> None:
    results, unique = summary["results"], summary["unique"]
    if not results:  # --only cold
        print(f"cold replay of the unique-body store only (--only cold); best of {ROUNDS} rounds{summary['clock']}")
    else:
        print(
            f"{summary['templates']} template exchanges cycled; {summary['calls']} replayed calls per size and "
            f"client; {summary['record']} interactions recorded per size and client; best of {ROUNDS} rounds"
            f"{summary['clock']}"
        )
    if results:
        report_sizes(summary)
    if unique:
        print(
            f"\nunique bodies: {unique['interactions']:,} interactions, every body a different simulator response "
            f"(mean {unique['mean_body_bytes']:,.0f} B raw)"
        )
        print(f"{'':>6} {'ours':>9} {'hishel':>9} {'vcrpy':>9} {'vcrpy/ours':>11} {'hishel/ours':>12}")
        print(
            f"{'bytes':>6} {cell(unique['ours_bytes'], ',.0f')} {cell(unique.get('hishel_bytes'), ',.0f')} "
            f"{cell(unique.get('vcr_bytes'), ',.0f')} "
            f"{times(unique.get('vcr_over_ours')):>11} {times(unique.get('hishel_over_ours')):>12}"
        )
        hishel = (
            f"{unique['replay_hishel_us']:,.1f} ({unique['replay_hishel_x_floor']:.2f}x)"
            if "replay_hishel_us" in unique
            else "skipped"
        )
        print(
            f"cold replay of it, µs per call: floor {unique['replay_floor_us']:,.1f}, "
            f"ours {unique['replay_ours_us']:,.1f} ({unique['replay_ours_x_floor']:.2f}x), hishel {hishel}"
        )
        print(
            f"  (ours checks every body against its sha256 digest on its first read, {unique['ours_check_us']:,.1f} µs "
            "of each call here; hishel serves its stored bodies unchecked)"
        )
        if "replay_ours_verified_us" in unique:
            print(
                f"  ours on a store verified once (cassette verify; remembered by the file's identity): "
                f"{unique['replay_ours_verified_us']:,.1f} ({unique['replay_ours_verified_x_floor']:.2f}x), "
                f"{unique['replay_ours_verified_us'] / unique['replay_hishel_us']:.2f}x hishel's"
                if "replay_hishel_us" in unique
                else f"  ours on a store verified once: {unique['replay_ours_verified_us']:,.1f} "
                f"({unique['replay_ours_verified_x_floor']:.2f}x)"
            )
        else:
            print("  ours on a store verified once: skipped (this machine cannot remember the file: record.ledger)")
    shipped = summary["shipped"]
    if shipped:
        print(
            f"\nshipped snapshot {SHIPPED_SNAPSHOT}: {shipped['interactions']} interactions, "
            f"{shipped['ours_bytes']:,.0f} B each in the store vs {shipped['vcr_bytes']:,.0f} B in vcrpy's YAML "
            f"({times(shipped['vcr_over_ours'])})"
        )

    for r in results:
        for name, shown in (("hishel", "hishel"), ("vcr", "vcrpy")):
            if r.get(f"{name}_skipped"):
                print(f"{shown} at {label(r['size'])}: skipped ({r[f'{name}_skipped']})")
        if r.get("replay_vcr_us") is not None:
            print(
                f"vcrpy at {label(r['size'])}: YAML written in {r['vcr_write_s']} s, loaded in {r['vcr_load_s']} s, "
                f"{r['vcr_calls']} calls timed"
            )
    print(f"generating the workloads took {summary['generate_s']} s; the whole run {summary['total_s']} s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1k,10k,100k", help="interactions per snapshot, comma-separated (1k, 1M …)")
    parser.add_argument(
        "--calls",
        type=int,
        default=20_000,
        help="distinct requests replayed per pass (fewer at sizes below it: then several passes)",
    )
    parser.add_argument("--record", type=int, default=2_000, help="new distinct requests recorded per size and client")
    parser.add_argument(
        "--unique-seeds", type=int, default=6, help="seeded worlds answering the unique-body workload (0: skip it)"
    )
    parser.add_argument(
        "--vcr-budget",
        type=float,
        default=120.0,
        help="skip vcrpy at sizes whose YAML write+load is estimated above this many seconds",
    )
    parser.add_argument("--vcr-call-cap", type=float, default=20.0, help="seconds of vcrpy calls timed per size")
    parser.add_argument(
        "--hishel-budget",
        type=float,
        default=300.0,
        help="skip hishel at sizes whose storage fill is estimated above this many seconds",
    )
    parser.add_argument(
        "--only",
        choices=("cold",),
        default=None,
        help="measure one line: cold = the cold replay of the unique-body store (with its bytes), nothing per size",
    )
    parser.add_argument(
        "--cpu-time",
        action="store_true",
        help="time replay, recording and the check in this process's CPU time, not wall time (a busy machine)",
    )
    parser.add_argument("--no-vcr", action="store_true", help="leave vcrpy out")
    parser.add_argument("--no-hishel", action="store_true", help="leave hishel out")
    parser.add_argument("--dir", type=Path, default=None, help="where to write the stores and YAML files (temp dir)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    options = parser.parse_args()
    sizes = [parse_size(s) for s in options.sizes.split(",") if s.strip()]
    if options.cpu_time:
        global CLOCK
        CLOCK = time.process_time
    if not options.no_hishel and importlib.util.find_spec("hishel") is None:
        parser.error("hishel is not installed: pip install -e '.[bench]', or pass --no-hishel")

    started = time.perf_counter()
    if options.only == "cold" and options.unique_seeds < 1:
        parser.error("--only cold replays the unique-body workload: give --unique-seeds 1 or more")
    exchanges, unique = simulate(options.unique_seeds, templates_too=options.only is None)
    generate_s = time.perf_counter() - started
    if not options.json:
        print(
            f"generated {len(exchanges)} templates and {len(unique)} unique bodies in {generate_s:.1f} s",
            file=sys.stderr,
        )
    vcr_measured: list[tuple[int, float]] = []  # (size, vcrpy write+load seconds)
    hishel_measured: list[tuple[int, float]] = []  # (size, hishel fill seconds)

    results = []
    unique_row: dict | None = None
    with tempfile.TemporaryDirectory(dir=options.dir) as tmp:
        for size in sizes if options.only is None else ():
            row = measure(size, exchanges, Path(tmp), options, vcr_measured, hishel_measured)
            results.append(row)
            if not options.json:
                print(f"measured {label(size)} at {time.perf_counter() - started:.0f} s: {row}", file=sys.stderr)
        if unique:
            unique_row = measure_unique(unique, Path(tmp), options)
            if not options.json:
                print(f"measured unique bodies: {unique_row}", file=sys.stderr)
        shipped = measure_shipped(Path(tmp)) if options.only is None else None
    summary = {
        "python": platform.python_version(),
        "templates": len(exchanges),
        "calls": options.calls,
        "record": options.record,
        "record_flat": round(results[-1]["record_ours_us"] / results[0]["record_ours_us"], 2) if results else None,
        "results": results,
        "unique": unique_row,
        "shipped": shipped,
        "generate_s": round(generate_s, 1),
        "clock": "; CPU time (--cpu-time)" if options.cpu_time else "",
        "total_s": round(time.perf_counter() - started, 1),
    }
    if options.json:
        print(json.dumps(summary, indent=2, ensure_ascii=False))
    else:
        report(summary)


if __name__ == "__main__":
    main()
