"""The ``cassette`` group: inspect, verify and import cassette stores."""

from __future__ import annotations

import click

from kopa_replay.cli.common import (
    _catalog_option,
    _emit,
    _Group,
    _load_catalog,
    _open_store,
    _output_option,
    _store_option,
    _store_path,
    cli,
)
from kopa_replay.stages import record as record_stage
from kopa_replay.stages.options import click_options


@cli.group(cls=_Group)
def cassette() -> None:
    """Inspect, verify and import cassette stores.

    Example: kopa-replay cassette stats
    """


@cassette.command("path")
@click.option("--shipped", is_flag=True, help="The package's shipped store instead of the default one.")
def cassette_path(shipped) -> None:
    """Print the store commands use without --store ($KOPA_STORE, else ./cassettes/kopa.sqlite, else the shipped one).

    Example: kopa-replay cassette path --shipped
    """
    from kopa_replay.record.store import shipped_store_path

    click.echo(str(shipped_store_path() if shipped else _store_path(None)))


@cassette.command("copy")
@click.argument("paths", nargs=-1, metavar="[SOURCE] TARGET", type=click.Path(dir_okay=False))
@click.option("--shipped", is_flag=True, help="Copy the package's shipped store (then give TARGET only).")
@_output_option()
def cassette_copy(paths, shipped, fmt) -> None:
    """Copy a store into a new file, with the manifests of its sealed snapshots (a pinned replay needs them).

    The manifests go where TARGET's are looked for: snapshots/ beside its cassettes/ folder, else beside it.

    Example: kopa-replay cassette copy --shipped /tmp/drift.sqlite   # a store of your own to refresh into
    """
    from kopa_replay.errors import UsageError
    from kopa_replay.record.snapshots import copy_store, manifest_dir_for
    from kopa_replay.record.store import shipped_store_path

    if len(paths) != (1 if shipped else 2):
        raise UsageError("cassette copy takes SOURCE TARGET, or --shipped TARGET")
    origin, target = (shipped_store_path(), paths[0]) if shipped else paths
    brought = copy_store(origin, target)
    where = manifest_dir_for(target)
    _emit(
        fmt,
        {"store": str(target), "from": str(origin), "manifests": brought, "manifest_dir": str(where)},
        f"copied {origin} to {target} with {len(brought)} manifest(s) in {where}",
    )


@cassette.command("verify")
@_store_option
@_output_option()
def cassette_verify(store, fmt) -> None:
    """Re-hash every stored body and check the database; exit 1 on corruption.

    A store found whole is remembered on this machine (in the cache folder, bound to the file's identity):
    replays that open it read-only later skip the per-body check until the file changes.

    Example: kopa-replay cassette verify --store cassettes/kopa.sqlite
    """
    from kopa_replay.errors import StoreError
    from kopa_replay.record.store import verify_store

    path = _store_path(store)
    problems, not_remembered = verify_store(path)
    if problems:
        raise StoreError(
            f"store {path} is corrupt: "
            + "; ".join(problems[:5])
            + (f" (+{len(problems) - 5} more)" if len(problems) > 5 else "")
        )
    said = (
        "remembered on this machine: read-only replays skip the per-body check until the file changes"
        if not_remembered is None
        else f"not remembered on this machine: {not_remembered}"
    )
    _emit(
        fmt,
        {"store": str(path), "ok": True, "remembered": not_remembered is None, "not_remembered": not_remembered},
        f"ok: every body in {path} matches its digest; {said}",
    )


@cassette.command("stats")
@_store_option
@_output_option()
def cassette_stats(store, fmt) -> None:
    """Counts and sizes of a store: interactions per snapshot, bodies, bytes.

    Example: kopa-replay cassette stats --json
    """
    with _open_store(store) as opened:
        stats = opened.stats()
    _emit(fmt, stats, "\n".join(f"{key}: {value}" for key, value in stats.items()))


@cassette.command("import-vcr")
@click.argument("file", type=click.Path(dir_okay=False))
@click.option("--snapshot", required=True, help="Snapshot to import into (created if absent; not a sealed one).")
@_store_option
@_catalog_option
@_output_option()
def cassette_import_vcr(file, snapshot, store, catalog_files, scale, fmt) -> None:
    """Import an existing vcrpy YAML cassette into a snapshot (keys redacted on the way in).

    Example: kopa-replay cassette import-vcr tests/cassettes/dart.yaml --snapshot legacy
    """
    from kopa_replay.record import redactor_for
    from kopa_replay.record.vcr import import_vcr_cassette

    with _open_store(store, readonly=False) as opened:
        count = import_vcr_cassette(file, opened, snapshot, redactor=redactor_for(_load_catalog(catalog_files, scale)))
    _emit(
        fmt,
        {"file": file, "snapshot": snapshot, "imported": count},
        f"imported {count} interactions from {file} into snapshot {snapshot}"
        + (" (nothing new: this file was imported into it before)" if count == 0 else ""),
    )


@cassette.command("merge")
@click.argument("shards", nargs=-1, required=True, type=click.Path(dir_okay=False))
@click_options(record_stage.MergeConfig)
@_output_option()
def cassette_merge(shards, fmt, **settings) -> None:
    """Combine recording shards into one sealed snapshot (the digest one recorder would give).

    Each SHARD is a store holding the snapshot as `record --shard K/N --no-seal --store SHARD` left it; every part
    K of one N is needed, once. (A stopped `record --workers N` needs no merge: run it again, it resumes.)

    Example: kopa-replay cassette merge s1.sqlite s2.sqlite --snapshot 2026-12-01 --store cassettes/kopa.sqlite
    """
    merged = record_stage.merge(record_stage.MergeConfig(shards=tuple(shards), **settings))
    count = len(merged.shards)
    text = (
        f"merged {merged.merged} interactions from {count} shard{'s' if count != 1 else ''} into snapshot "
        f"{merged.snapshot}"
        + (
            f" ({merged.conflicts} requests answered differently by two shards: the first shard's kept)"
            if merged.conflicts
            else ""
        )
        + (f" ({merged.overlaps} requests held by two shards alike, written once)" if merged.overlaps else "")
        + (f"; sealed: digest {merged.manifest['digest']}" if merged.manifest else "")
    )
    _emit(fmt, merged.to_dict(), text)
