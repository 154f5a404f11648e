"""Named, sealable snapshots and their manifests.

A snapshot is named by its as-of date (``2026-09-01``). Sealing computes its
digest — sha256 over every interaction's (request key, seq, tool, status,
response headers, body digest; one JSON array per row), sorted, so the same interactions give the
same digest whatever order or process recorded them, and everything replay
serves is covered — stores it, makes the snapshot immutable, and writes
``snapshots/NAME.json``: the digest, the per-tool schema digests, the catalog
digest, the source, the as-of date.

Digest version 2 (the current one) covers every stored response header;
version 1, which snapshots sealed before it keep, covered the content type
only. A sealed snapshot is checked in the version it was sealed in (the two
can never give the same digest, so an edit cannot pass by switching).

Pinning (``--snapshot NAME``) rehashes the interactions and checks them against
the sealed digest and the manifest; ``verify`` does that and rehashes every
body the snapshot uses.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any, Callable, Mapping

from kopa_replay import __version__
from kopa_replay.catalog.model import Catalog
from kopa_replay.errors import SnapshotError
from kopa_replay.record.store import Store
from kopa_replay.util import write_atomic

__all__ = [
    "DIGEST_VERSIONS",
    "snapshot_digest",
    "recomputed_digest",
    "manifest_dir_for",
    "manifest_path",
    "load_manifest",
    "seal_snapshot",
    "verify_snapshot",
    "check_pinned",
    "ToolDigests",
]


#: ``(store, snapshot name, catalog) -> {tool: schema digest}``: what a seal's manifest lists per tool
ToolDigests = Callable[[Store, str, Catalog], Mapping[str, str]]

#: the digest versions this kopa-replay checks, newest (the one it seals with) first
DIGEST_VERSIONS = (2, 1)


def snapshot_digest(store: Store, name: str, version: int = DIGEST_VERSIONS[0]) -> str:
    """The content digest of a snapshot, independent of recording order."""
    if version not in DIGEST_VERSIONS:
        raise SnapshotError(f"unknown snapshot digest version {version} (known: {DIGEST_VERSIONS})")
    store.snapshot(name)
    digest = hashlib.sha256()
    if version >= 2:
        digest.update(f"kopa-replay snapshot digest v{version}\n".encode())
    for item in store.interactions(name):  # ordered by request key, then seq
        if version == 1:
            fields = [
                item.request_key,
                str(item.seq),
                item.tool or "",
                str(item.status),
                item.content_type,
                item.body_digest,
            ]
            if any("\t" in f or "\n" in f for f in fields):
                # a separator inside a field could shift one row's text into the next: never what v1 sealed
                return "v1 digest impossible: a field holds a tab or a newline"
            digest.update("\t".join(fields).encode("utf-8") + b"\n")
        else:  # one JSON array per row: no field can pass for another
            digest.update(
                json.dumps(
                    [
                        item.request_key,
                        item.seq,
                        item.tool,
                        item.status,
                        dict(sorted(item.response_headers.items())),
                        item.body_digest,
                    ],
                    ensure_ascii=False,
                    separators=(",", ":"),
                ).encode("utf-8")
                + b"\n"
            )
    return digest.hexdigest()


def recomputed_digest(store: Store, name: str) -> tuple[str, int]:
    """(digest, version): the snapshot rehashed in the version its seal used (the newest when unsealed or
    when no version reproduces the seal, i.e. it was edited)."""
    sealed = store.snapshot(name).digest
    newest = snapshot_digest(store, name)
    if sealed is None or sealed == newest:
        return newest, DIGEST_VERSIONS[0]
    for version in DIGEST_VERSIONS[1:]:
        if snapshot_digest(store, name, version) == sealed:
            return sealed, version
    return newest, DIGEST_VERSIONS[0]


def manifest_dir_for(store_path: str | Path) -> Path:
    """Manifests live in ``snapshots/`` beside the ``cassettes/`` folder (or beside the store file)."""
    folder = Path(store_path).resolve().parent
    return (folder.parent if folder.name == "cassettes" else folder) / "snapshots"


def manifest_path(store: Store, name: str, manifest_dir: str | Path | None = None) -> Path:
    return Path(manifest_dir or manifest_dir_for(store.path)) / f"{name}.json"


def load_manifest(store: Store, name: str, manifest_dir: str | Path | None = None) -> dict[str, Any] | None:
    path = manifest_path(store, name, manifest_dir)
    if not path.exists():
        return None
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise SnapshotError(f"manifest {path} is unreadable: {exc}") from exc


def seal_snapshot(
    store: Store,
    name: str,
    catalog: Catalog,
    manifest_dir: str | Path | None = None,
    force: bool = False,
    *,
    tool_digests: ToolDigests,
) -> dict[str, Any]:
    """Seal ``name`` (idempotent for a sealed snapshot with the same digest) and write its manifest.

    ``tool_digests(store, name, catalog)`` gives the manifest's per-tool schema digests (the recorder infers no
    schemas: callers pass :func:`kopa_replay.drift.recorded.tool_schema_digests`); it is called once the
    snapshot is sealed, so the digests describe exactly the sealed interactions.

    A snapshot whose recording workflow did not finish (stopped, killed, or still running elsewhere) is
    sealed only with ``force``: sealing would freeze a partial recording.
    """
    snapshot = store.snapshot(name)
    if snapshot.unfinished and not snapshot.sealed and not force:
        raise SnapshotError(
            f"snapshot {name!r} in {store.path}: its recording did not finish "
            f"({snapshot.interactions} interactions so far; a recorder was stopped or is still "
            "running). Run the same record command again to resume it, or seal what it holds "
            "with --force"
        )
    if snapshot.sealed:
        digest, version = recomputed_digest(store, name)
        if snapshot.digest != digest:
            raise SnapshotError(
                f"snapshot {name!r} is sealed with digest {str(snapshot.digest)[:12]}… but its "
                f"interactions hash to {digest[:12]}…: the store is corrupt"
            )
    else:
        with store.transaction(name, create=False):  # hashed and sealed at once: no recorder writes between
            digest, version = snapshot_digest(store, name), DIGEST_VERSIONS[0]
            snapshot = store.snapshot(name)
            store.seal(name, digest)
    manifest = {
        "name": name,
        "as_of": snapshot.as_of,
        "created": snapshot.as_of,  # the as-of date, not the wall clock: re-recording gives the same file
        "source": snapshot.source,
        "seed": snapshot.seed,
        "catalog_digest": catalog.digest(),
        "interactions": snapshot.interactions,
        "digest": digest,
        "digest_version": version,
        "tools": dict(tool_digests(store, name, catalog)),
        "kopa_replay": __version__,
    }
    provenance = store.provenance(name)
    if provenance is not None:
        manifest["refresh"] = provenance
    store.end_recording(name, everyone=True)
    write_atomic(
        manifest_path(store, name, manifest_dir),
        json.dumps(manifest, ensure_ascii=False, indent=2, sort_keys=True) + "\n",
    )
    return manifest


def check_pinned(store: Store, name: str, manifest_dir: str | Path | None = None) -> None:
    """A pinned replay's guard: the interactions, rehashed, must give the sealed digest and the manifest's.

    Rows are rehashed here (an edit made past the store's triggers is caught before anything is served);
    bodies are checked against their digests as replay reads them.
    """
    snapshot = store.snapshot(name)
    manifest = load_manifest(store, name, manifest_dir)
    if not snapshot.sealed:
        return
    digest, _ = recomputed_digest(store, name)
    if digest != snapshot.digest:
        raise SnapshotError(
            f"snapshot {name!r}: its interactions hash to {digest[:12]}… but it was sealed as "
            f"{str(snapshot.digest)[:12]}…: the store was edited (kopa-replay snapshot verify {name})"
        )
    if manifest is not None and manifest.get("digest") != snapshot.digest:
        raise SnapshotError(
            f"snapshot {name!r}: store digest {str(snapshot.digest)[:12]}… does not match the "
            f"manifest {manifest_path(store, name, manifest_dir)} ({str(manifest.get('digest'))[:12]}…)"
        )


def verify_snapshot(store: Store, name: str, manifest_dir: str | Path | None = None) -> list[str]:
    """Problems with a snapshot: recomputed digest vs stored digest vs manifest."""
    problems: list[str] = []
    snapshot = store.snapshot(name)
    digest, _ = recomputed_digest(store, name)
    if snapshot.sealed and snapshot.digest != digest:
        problems.append(
            f"interactions hash to {digest[:12]}… but the snapshot was sealed as {str(snapshot.digest)[:12]}…"
        )
    manifest = load_manifest(store, name, manifest_dir)
    if manifest is not None and manifest.get("digest") != digest:
        problems.append(
            f"manifest digest {str(manifest.get('digest'))[:12]}… differs from the interactions' {digest[:12]}…"
        )
    if manifest is None and snapshot.sealed:
        problems.append(f"sealed but no manifest at {manifest_path(store, name, manifest_dir)}")
    bodies = sorted({item.body_digest for item in store.interactions(name)})
    problems += [problem for problem in map(store.body_problem, bodies) if problem]
    return problems
