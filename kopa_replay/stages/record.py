"""Stages ``record`` and ``refresh``: a snapshot recorded into a cassette store (its run directory is the store,
its manifest the snapshot's sealed manifest beside the store)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kopa_replay.errors import UsageError
from kopa_replay.stages.common import (
    INCIDENTS_HELP,
    STORE_HELP,
    CatalogChoice,
    ScaleOut,
    check_incidents,
    for_workers,
    iso_date,
)
from kopa_replay.stages.options import setting
from kopa_replay.util import check_snapshot_name

__all__ = [
    "RecordConfig",
    "RefreshConfig",
    "MergeConfig",
    "Result",
    "record",
    "refresh",
    "merge",
    "writable_store",
    "manifest_file",
    "shard_dir",
]


@dataclass(frozen=True)
class SourceSettings(CatalogChoice):
    source: str = setting(
        "sim",
        "sim (the in-process simulator of the platforms at their real sizes; sim:default, a small world; env "
        "KOPA_WORLD_SIZE picks the world of a plain sim), live (the real platforms) or a mirror URL.",
    )
    as_of: str | None = setting(
        None, "As-of date of the new snapshot (source sim serves that date) [default: its name]."
    )
    seed: int = setting(0, "Simulator seed (source sim).")
    incidents: str = setting("", INCIDENTS_HELP + " Blocked answers are never recorded.", metavar="SPEC")
    base_url: tuple[str, ...] = setting(
        (),
        "Send one catalog host to a mirror (repeatable), e.g. opendart.fss.or.kr=http://127.0.0.1:8765.",
        metavar="HOST=URL",
    )
    store: str | None = setting(None, STORE_HELP, envvar="KOPA_STORE", path="file")
    bench: bool | None = setting(
        None,
        "Also record the calls of the benchmark's oracle and baseline agents and "
        "its plans on this source [default: with source sim on the world the tasks "
        "are written over].",
    )

    def __post_init__(self) -> None:
        iso_date(self.as_of, "--as-of")
        check_incidents(self.incidents, self.source)

    def bench_requests(self, catalog: Any, snapshot: str, mirrors: dict[str, str]) -> list:
        """The benchmark's calls recorded beside the workload (``bench run`` and ``bench drift`` then run offline on
        the snapshot)."""
        from kopa_replay.env.source import is_sim, sim_world

        if self.bench is False or not (self.bench or is_sim(self.source)):
            return []
        from kopa_replay.bench.suite import benchmark_workload, load_task_set

        if self.bench is None and sim_world(self.source) != load_task_set().world:
            return []  # the tasks' answers are another world's: recorded only when asked for (--bench)

        as_of = self.as_of or snapshot
        return benchmark_workload(
            catalog, source=self.source, seed=self.seed, as_of=as_of if is_sim(self.source) else None, mirrors=mirrors
        )


@dataclass(frozen=True)
class RecordConfig(SourceSettings, ScaleOut):
    snapshot: str | None = setting(
        None,
        "Name of the new snapshot, by convention its as-of date; an open one with "
        "the same settings is resumed (only what it lacks is sent).",
        required=True,
    )
    seal: bool = setting(True, "Seal the snapshot when done (--no-seal leaves it open for more recording).")
    commit_every: int | None = setting(
        None,
        "Commit recorded answers in batches of this many [default: 128, and at "
        "least every 0.5 s]; a kill loses at most the batch not yet committed.",
    )

    shard: str | None = setting(
        None,
        "Record only shard K of N (K/N, 1-based) of the workload, unsealed, into --store: shards recorded "
        "apart (other machines, other keys) are combined by kopa-replay cassette merge.",
        metavar="K/N",
    )

    def __post_init__(self) -> None:
        super().__post_init__()
        if not self.snapshot:
            raise UsageError("record needs --snapshot: the name of the new snapshot")
        check_snapshot_name(self.snapshot)
        if self.commit_every is not None and self.commit_every < 1:
            raise UsageError(f"--commit-every must be at least 1, not {self.commit_every}")
        self.executor_spec()
        if self.shard is not None:
            self.shard_of()
            if self.seal:
                raise UsageError("--shard records one part of a snapshot: add --no-seal (cassette merge seals it)")
            if (self.executor, self.workers) != ("local", 1):
                raise UsageError("--shard records one shard in this process: it cannot go with --executor/--workers")

    def shard_of(self) -> tuple[int, int] | None:
        """``--shard K/N`` as (k, n), 0-based k."""
        if self.shard is None:
            return None
        k, _, n = self.shard.partition("/")
        if not (k.isdigit() and n.isdigit() and 1 <= int(k) <= int(n)):
            raise UsageError(f"--shard must be K/N with 1 <= K <= N, e.g. 2/4, not {self.shard!r}")
        return int(k) - 1, int(n)


@dataclass(frozen=True)
class RefreshConfig(SourceSettings, ScaleOut):
    base: str | None = setting(None, "The snapshot whose requests are re-executed.", required=True)
    snapshot: str | None = setting(None, "Name of the new snapshot.", required=True)
    retries: int = setting(
        3,
        "Retry an environmental failure (429/5xx, a rate-limit or maintenance code) up to N times before recording it.",
    )
    retry_backoff: float = setting(
        0.5, "First wait between retries in seconds (doubling; at least the server's Retry-After; at most 30)."
    )
    tools: str | None = setting(
        None,
        "Incremental: re-execute only the requests of tools matching this glob "
        "(dart_*); carry every other interaction over unchanged.",
    )
    changed_since: str | None = setting(
        None,
        "Incremental: re-execute only the tools whose answers drifted or "
        "failed between this snapshot and --base; carry the rest over "
        "unchanged.",
    )

    def __post_init__(self) -> None:
        super().__post_init__()
        if not self.base or not self.snapshot:
            raise UsageError("refresh needs --base (the snapshot re-executed) and --snapshot (the new one)")
        check_snapshot_name(self.base)
        check_snapshot_name(self.snapshot)
        self.executor_spec()


@dataclass(frozen=True)
class Result:
    store: Path
    summary: Any  # kopa_replay.stages.workflows.RecordSummary
    #: where the seal wrote the snapshot's manifest (None: not sealed)
    manifest_file: Path | None

    def to_dict(self) -> dict[str, Any]:
        return self.summary.to_dict()


def writable_store(store: str | None, command: str) -> Path:
    """The store a recording stage writes; the shipped one only when named: a new snapshot in it would change a
    file of the package."""
    from kopa_replay.record import default_store_path
    from kopa_replay.record.store import shipped_store_path

    path = Path(store or default_store_path())
    if store is None and path.resolve() == shipped_store_path():
        raise UsageError(
            f"{command} would write into the shipped store {path}; name a store with --store (a copy: "
            f"kopa-replay cassette copy --shipped my.sqlite) or KOPA_STORE, or --store {path} to write there on purpose"
        )
    return path


def manifest_file(store_path: str | Path, snapshot: str) -> Path:
    """Where a seal writes a snapshot's manifest: beside the store."""
    from kopa_replay.record.snapshots import manifest_dir_for

    return manifest_dir_for(store_path) / f"{check_snapshot_name(snapshot)}.json"


def _result(path: Path, summary: Any) -> Result:
    return Result(path, summary, manifest_file(path, summary.snapshot) if summary.manifest else None)


def record(config: RecordConfig, *, progress: Any = None) -> Result:
    """Record every tool's probe calls (catalog examples, largest pages) and the benchmark's calls.

    With ``--executor ray`` or ``--workers N`` the workload is split by endpoint into N shards, each recorded by
    its own worker into a store of its own (``STORE.shards/SNAPSHOT-KEY/``, kept until the merge succeeds: a
    stopped run resumes every shard), then merged and sealed: the snapshot's digest is the one a single recorder
    gives. The catalog's per-host rate limits hold across all workers (one limiter they share)."""
    from kopa_replay.env.source import parse_mirrors

    path = writable_store(config.store, "record")
    catalog, mirrors, snapshot = config.load_catalog(), parse_mirrors(config.base_url), str(config.snapshot)
    requests = config.bench_requests(catalog, snapshot, mirrors)
    spec = config.executor_spec()
    if (spec.kind, spec.workers) == ("local", 1) or _sealed_in(path, snapshot):
        # one recorder; a sealed snapshot is only checked to hold every answer, which one process does
        return _result(
            path, _record_part(config, path, requests, config.shard_of(), progress=progress, catalog=catalog)
        )
    return _record_sharded(config, catalog, path, requests, spec, progress)


def _record_part(
    config: RecordConfig,
    path: Path,
    requests: list,
    shard: tuple[int, int] | None,
    limiter: Any = None,
    progress: Any = None,
    catalog: Any = None,
) -> Any:
    """Record ``config``'s workload (or one shard of it) into the store at ``path`` (``catalog``: the config's,
    when the caller has loaded it; a worker loads its own)."""
    from kopa_replay.env.source import parse_mirrors
    from kopa_replay.stages.workflows import record_snapshot

    return record_snapshot(
        catalog if catalog is not None else config.load_catalog(),
        store_path=path,
        snapshot=str(config.snapshot),
        source=config.source,
        as_of=config.as_of,
        seed=config.seed,
        mirrors=parse_mirrors(config.base_url),
        seal=config.seal and shard is None,
        requests=requests,
        commit_every=config.commit_every,
        progress=progress,
        shard=shard,
        limiter=limiter,
        incidents=config.incidents,
    )


@dataclass(frozen=True)
class _ShardJob:
    config: RecordConfig
    path: Path
    requests: list
    shard: tuple[int, int]
    limiter: Any


def _record_shard(job: _ShardJob) -> Any:
    """One worker's part: its shard into its own store (runs in a Ray worker or a thread)."""
    return _record_part(job.config, job.path, job.requests, job.shard, job.limiter)


def _record_sharded(config: RecordConfig, catalog: Any, path: Path, requests: list, spec: Any, progress: Any) -> Result:
    from collections import Counter

    from kopa_replay.env.source import parse_mirrors
    from kopa_replay.record import Store
    from kopa_replay.scale import open_executor
    from kopa_replay.scale.limits import shared_limiter
    from kopa_replay.stages.workflows import RecordSummary, claim_snapshot, merge_snapshots, plan_digest, recording_plan
    from kopa_replay.util import tick

    snapshot, path = str(config.snapshot), path.resolve()
    as_of = config.as_of or snapshot
    count = spec.workers
    made_by = {
        "source": config.source,
        "as_of": as_of,
        "seed": config.seed,
        "mirrors": sorted(config.base_url),
        "catalog": catalog.digest(),
        "plan": plan_digest(recording_plan(catalog, requests)),
        "shards": count,
    }
    folder = shard_dir(path, snapshot, made_by)
    with open_executor(spec) as executor:  # first: a cluster that cannot be reached leaves nothing behind
        # the target's settings checked (and the snapshot claimed: unfinished until the merge) before anything is sent
        with Store(path) as store:
            claim_snapshot(store, snapshot, as_of=as_of, source=config.source, seed=config.seed, catalog=catalog)
        folder.mkdir(parents=True, exist_ok=True)
        limiter = shared_limiter(executor, catalog, config.source, parse_mirrors(config.base_url))
        shipped = for_workers(config)
        jobs = [
            _ShardJob(shipped, folder / f"shard-{k + 1}-of-{count}.sqlite", requests, (k, count), limiter)
            for k in range(count)
        ]
        parts = executor.map(_record_shard, jobs)
    tick(progress, "merging shards", 0, 1)
    merged = merge_snapshots(
        [job.path for job in jobs], store_path=path, snapshot=snapshot, catalog=catalog, seal=config.seal
    )
    tick(progress, "merging shards", 1, 1)
    outcomes: Counter[str] = Counter()
    for part in parts:
        outcomes.update(part.outcomes)
    first = parts[0]
    summary = RecordSummary(first.snapshot, first.source, first.as_of, sum(p.calls for p in parts), dict(outcomes))
    summary.manifest = merged.manifest
    _remove_shards(folder)
    if config.seal:  # sealed: the shards of any earlier run of it (other settings, another N) can never be used
        for earlier in _shard_folders(path, snapshot):
            _remove_shards(earlier)
    return _result(path, summary)


def _shard_folders(store_path: Path, snapshot: str) -> list[Path]:
    """The shard folders of any run recording ``snapshot`` into the store (those whose stores hold it)."""
    from kopa_replay.record import Store

    root = store_path.with_name(store_path.name + ".shards")
    found = []
    for folder in sorted(root.glob(f"{_safe_name(snapshot)}-*")) if root.is_dir() else []:
        stores = sorted(folder.glob("shard-*-of-*.sqlite"))
        held = True
        for shard in stores:
            with Store(shard, readonly=True) as opened:
                held = held and snapshot in opened.snapshot_names()
        if held:
            found.append(folder)
    return found


def _safe_name(snapshot: str) -> str:
    import re

    return re.sub(r"[^0-9A-Za-z_-]+", "_", snapshot).strip("_")[:60] or "snapshot"


def _remove_shards(folder: Path) -> None:
    """The shard stores of a merged recording (nothing left in them to resume): only the files a sharded run
    names (``shard-K-of-N.sqlite`` and its -wal/-shm), then the folders if that left them empty."""
    if not folder.is_dir():
        return
    for shard in folder.glob("shard-*-of-*.sqlite*"):
        shard.unlink()
    for empty in (folder, folder.parent):
        if empty.is_dir() and not any(empty.iterdir()):
            empty.rmdir()


def shard_dir(store_path: str | Path, snapshot: str, made_by: Any) -> Path:
    """Where a sharded run keeps its shard stores until they are merged: beside the store, one folder per run
    (the snapshot's name made safe for a file name, and a digest of how its shards are made), so a rerun with the
    same settings resumes its shards and one with other settings never reuses them."""
    from kopa_replay.stages.run_dir import digest_of

    store_path = Path(store_path)
    key = digest_of({"snapshot": snapshot, "made_by": made_by})[:12]
    return store_path.with_name(store_path.name + ".shards") / f"{_safe_name(snapshot)}-{key}"


def _sealed_in(path: Path, snapshot: str) -> bool:
    from kopa_replay.record import Store

    if not path.exists():
        return False
    with Store(path, readonly=True) as store:
        return snapshot in store.snapshot_names() and store.snapshot(snapshot).sealed


@dataclass(frozen=True)
class MergeConfig(CatalogChoice):
    shards: tuple[str, ...] = setting((), "Shard stores, each holding the snapshot.", cli=False)  # the arguments
    snapshot: str | None = setting(None, "The snapshot the shards recorded, merged under that name.", required=True)
    store: str | None = setting(None, STORE_HELP, envvar="KOPA_STORE", path="file")
    seal: bool = setting(True, "Seal the merged snapshot (--no-seal leaves it open).")

    def __post_init__(self) -> None:
        if not self.snapshot:
            raise UsageError("cassette merge needs --snapshot: the snapshot the shards recorded")
        check_snapshot_name(self.snapshot)
        if not self.shards:
            raise UsageError("cassette merge needs at least one shard store")


def merge(config: MergeConfig) -> Any:
    """Merge recording shards into one snapshot (:func:`kopa_replay.stages.workflows.merge_snapshots`)."""
    from kopa_replay.stages.workflows import merge_snapshots

    path = writable_store(config.store, "cassette merge")
    return merge_snapshots(
        config.shards, store_path=path, snapshot=str(config.snapshot), catalog=config.load_catalog(), seal=config.seal
    )


def refresh(config: RefreshConfig, *, progress: Any = None) -> Result:
    """Re-execute every request of ``base`` (or of the chosen tools) into a new snapshot and report drift."""
    from kopa_replay.env.source import parse_mirrors
    from kopa_replay.scale import open_executor

    path = writable_store(config.store, "refresh")
    catalog, mirrors, snapshot = config.load_catalog(), parse_mirrors(config.base_url), str(config.snapshot)
    requests = config.bench_requests(catalog, snapshot, mirrors)
    with open_executor(config.executor_spec()) as executor:
        summary = _refresh(config, catalog, path, mirrors, requests, executor, progress)
    _remove_shards(_refresh_shards(config, path.resolve(), catalog))
    return _result(path, summary)


def _refresh_shards(config: RefreshConfig, path: Path, catalog: Any) -> Path:
    made_by = {
        "base": config.base,
        "source": config.source,
        "as_of": config.as_of or config.snapshot,
        "seed": config.seed,
        "mirrors": sorted(config.base_url),
        "tools": config.tools,
        "changed_since": config.changed_since,
        "catalog": catalog.digest(),
        "shards": config.workers,
    }
    return shard_dir(path, str(config.snapshot), made_by)


def _refresh(
    config: RefreshConfig, catalog: Any, path: Path, mirrors: Any, requests: list, executor: Any, progress: Any
) -> Any:
    from kopa_replay.stages.workflows import refresh_snapshot

    snapshot = str(config.snapshot)
    return refresh_snapshot(
        catalog,
        store_path=path,
        base=str(config.base),
        snapshot=snapshot,
        source=config.source,
        as_of=config.as_of,
        seed=config.seed,
        mirrors=mirrors,
        retries=config.retries,
        retry_backoff=config.retry_backoff,
        tools=config.tools,
        changed_since=config.changed_since,
        requests=requests,
        progress=progress,
        executor=executor,
        shard_folder=_refresh_shards(config, path.resolve(), catalog),
        incidents=config.incidents,
    )
