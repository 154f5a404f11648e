"""Stages ``record`` and ``refresh``: a snapshot recorded into a cassette store (its run directory is the store,
its manifest the snapshot's sealed manifest beside the store)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kopa_replay.errors import UsageError
from kopa_replay.stages.common import STORE_HELP, CatalogChoice, iso_date
from kopa_replay.stages.options import setting

__all__ = ["RecordConfig", "RefreshConfig", "Result", "record", "refresh", "writable_store", "manifest_file"]


@dataclass(frozen=True)
class SourceSettings(CatalogChoice):
    source: str = setting("sim", "sim (in-process simulator), live (the real platforms) or a mirror URL.")
    as_of: str | None = setting(
        None, "As-of date of the new snapshot (source sim serves that date) [default: its name]."
    )
    seed: int = setting(0, "Simulator seed (source sim).")
    base_url: tuple[str, ...] = setting(
        (),
        "Send one catalog host to a mirror (repeatable), e.g. opendart.fss.or.kr=http://127.0.0.1:8765.",
        metavar="HOST=URL",
    )
    store: str | None = setting(None, STORE_HELP, envvar="KOPA_STORE", path="file")
    bench: bool | None = setting(
        None,
        "Also record the calls of the benchmark's oracle and baseline agents and "
        "its plans on this source [default: with source sim, whose world the tasks "
        "are written over].",
    )

    def __post_init__(self) -> None:
        iso_date(self.as_of, "--as-of")

    def bench_requests(self, catalog: Any, snapshot: str, mirrors: dict[str, str]) -> list:
        """The benchmark's calls recorded beside the workload (``bench run`` and ``bench drift`` then run offline on
        the snapshot)."""
        if not (self.bench if self.bench is not None else self.source == "sim"):
            return []
        from kopa_replay.bench.suite import benchmark_workload

        as_of = self.as_of or snapshot
        return benchmark_workload(
            catalog, source=self.source, seed=self.seed, as_of=as_of if self.source == "sim" else None, mirrors=mirrors
        )


@dataclass(frozen=True)
class RecordConfig(SourceSettings):
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

    def __post_init__(self) -> None:
        super().__post_init__()
        if not self.snapshot:
            raise UsageError("record needs --snapshot: the name of the new snapshot")
        if self.commit_every is not None and self.commit_every < 1:
            raise UsageError(f"--commit-every must be at least 1, not {self.commit_every}")


@dataclass(frozen=True)
class RefreshConfig(SourceSettings):
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
            f"cp {path} my.sqlite) or KOPA_STORE, or --store {path} to write there on purpose"
        )
    return path


def manifest_file(store_path: str | Path, snapshot: str) -> Path:
    """Where a seal writes a snapshot's manifest: beside the store."""
    from kopa_replay.record.snapshots import manifest_dir_for

    return manifest_dir_for(store_path) / f"{snapshot}.json"


def _result(path: Path, summary: Any) -> Result:
    return Result(path, summary, manifest_file(path, summary.snapshot) if summary.manifest else None)


def record(config: RecordConfig, *, progress: Any = None) -> Result:
    """Record every tool's probe calls (catalog examples, largest pages) and the benchmark's calls."""
    from kopa_replay.env.source import parse_mirrors
    from kopa_replay.stages.workflows import record_snapshot

    path = writable_store(config.store, "record")
    catalog, mirrors, snapshot = config.load_catalog(), parse_mirrors(config.base_url), str(config.snapshot)
    requests = config.bench_requests(catalog, snapshot, mirrors)
    summary = record_snapshot(
        catalog,
        store_path=path,
        snapshot=snapshot,
        source=config.source,
        as_of=config.as_of,
        seed=config.seed,
        mirrors=mirrors,
        seal=config.seal,
        requests=requests,
        commit_every=config.commit_every,
        progress=progress,
    )
    return _result(path, summary)


def refresh(config: RefreshConfig, *, progress: Any = None) -> Result:
    """Re-execute every request of ``base`` (or of the chosen tools) into a new snapshot and report drift."""
    from kopa_replay.env.source import parse_mirrors
    from kopa_replay.stages.workflows import refresh_snapshot

    path = writable_store(config.store, "refresh")
    catalog, mirrors, snapshot = config.load_catalog(), parse_mirrors(config.base_url), str(config.snapshot)
    requests = config.bench_requests(catalog, snapshot, mirrors)
    summary = refresh_snapshot(
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
    )
    return _result(path, summary)
