"""The ``snapshot`` group: list, show, seal, delete and verify snapshots."""

from __future__ import annotations

import click

from kopa_replay.cli.common import (
    _catalog_option,
    _dump,
    _emit,
    _Group,
    _load_catalog,
    _note,
    _open_store,
    _output_option,
    _store_option,
    _table,
    cli,
)


@cli.group(cls=_Group)
def snapshot() -> None:
    """List, show, seal and verify snapshots.

    Example: kopa-replay snapshot list
    """


@snapshot.command("list")
@_store_option
@_output_option()
def snapshot_list(store, fmt) -> None:
    """List the snapshots of a store.

    Example: kopa-replay snapshot list --store cassettes/kopa.sqlite
    """
    with _open_store(store) as opened:
        snapshots = opened.snapshots()

    def text() -> str:
        rows = [
            [
                _shown_name(s.name),
                "sealed" if s.sealed else "unfinished" if s.unfinished else "open",
                s.interactions,
                s.as_of,
                s.source,
            ]
            for s in snapshots
        ]
        return _table(["snapshot", "state", "interactions", "as of", "source"], rows, right=("interactions",))

    _emit(fmt, [vars(s) for s in snapshots], text)


def _shown_name(name: str) -> str:
    """A name as printed: as it is when it could be a snapshot's, else escaped (a store from elsewhere may hold
    names with control characters, which a terminal would obey)."""
    from kopa_replay.errors import UsageError
    from kopa_replay.util import check_snapshot_name

    try:
        return check_snapshot_name(name)
    except UsageError:
        return ascii(name)


@snapshot.command("show")
@click.argument("name")
@_store_option
@_output_option()
def snapshot_show(name, store, fmt) -> None:
    """Show a snapshot's manifest (or its store record when unsealed) as JSON (its text too is that JSON).

    Example: kopa-replay snapshot show 2026-09-01
    """
    from kopa_replay.record.snapshots import load_manifest

    with _open_store(store) as opened:
        info = opened.snapshot(name)
        manifest = load_manifest(opened, name)
    shown = manifest if manifest is not None else vars(info)
    _emit(fmt, shown, lambda: _dump(shown))


@snapshot.command("seal")
@click.argument("name")
@click.option(
    "--force",
    is_flag=True,
    help="Seal even though its recording did not finish (freezes a partial recording); on a sealed snapshot, write "
    "its manifest from the store over one that disagrees.",
)
@_store_option
@_catalog_option
@_output_option()
def snapshot_seal(name, force, store, catalog_files, scale, fmt) -> None:
    """Seal a snapshot (immutable from now on) and write its manifest.

    A snapshot whose `record`/`refresh` did not finish is refused unless --force: run the
    same command again to resume it instead.

    Example: kopa-replay snapshot seal 2026-09-01
    """
    from kopa_replay.drift.recorded import tool_schema_digests
    from kopa_replay.record.snapshots import seal_snapshot

    with _open_store(store, readonly=False) as opened:
        manifest = seal_snapshot(
            opened, name, _load_catalog(catalog_files, scale), force=force, tool_digests=tool_schema_digests
        )
        opened.finalize()
    _emit(fmt, manifest, f"sealed {name}: {manifest['interactions']} interactions, digest {manifest['digest']}")


@snapshot.command("delete")
@click.argument("name")
@_store_option
@_output_option()
def snapshot_delete(name, store, fmt) -> None:
    """Remove an open (unsealed) snapshot and its interactions; a sealed one is refused.

    Example: kopa-replay snapshot delete 2026-12-01
    """
    with _open_store(store, readonly=False) as opened:
        count = opened.snapshot(name).interactions
        opened.delete_snapshot(name)
    _emit(fmt, {"deleted": name, "interactions": count}, f"deleted open snapshot {name} ({count} interactions)")


@snapshot.command("verify")
@click.argument("name")
@click.option(
    "--digest",
    "expected",
    metavar="HEX",
    help="The digest you expect, known another way (a paper, a colleague, a release note; all 64 hex characters): "
    "the one check an edit of the store and its manifest together cannot pass.",
)
@_store_option
@_output_option()
def snapshot_verify(name, expected, store, fmt) -> None:
    """Recompute a snapshot's digest and the digest of every body it uses; compare with the seal, every field of the
    manifest and, with --digest, the digest you expect.

    Example: kopa-replay snapshot verify 2026-09-01 --digest "$DIGEST_THE_PAPER_PRINTS"
    """
    from kopa_replay.errors import SnapshotError
    from kopa_replay.record.snapshots import check_snapshot

    with _open_store(store) as opened:
        check = check_snapshot(opened, name, expected_digest=expected)
        sealed = opened.snapshot(name).sealed
    digest, version = check.digest, check.digest_version
    if check.problems:
        raise SnapshotError(f"snapshot {name!r}: " + "; ".join(check.problems))
    if not sealed:
        _note(f"snapshot {name} is open (not sealed): no digest pins it yet")
    elif version < 3:
        _note(
            f"snapshot {name} was sealed with digest version {version}, which covers its answers but not its "
            "requests' URLs, methods and headers nor the manifest's catalog digest, tools and refresh fields; "
            "record it again to seal it in version 3"
        )
    result = {"snapshot": name, "ok": True, "digest": digest, "digest_version": version, "sealed": sealed}
    matched = f" and the digest you expect ({expected})" if expected else ""
    _emit(fmt, result, f"ok: snapshot {name} matches its digest {digest}{matched}")
