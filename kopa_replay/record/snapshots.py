"""Named, sealable snapshots and their manifests.

A snapshot is named by its as-of date (``2026-09-01``). Sealing writes down
what the snapshot is — its settings (as-of date, source, seed), the catalog
digest, the interaction count, the per-tool schema digests, the refresh
provenance, the kopa-replay version: every field of its manifest but the
digest — as the snapshot's *seal record* in the store, then computes its
digest over that record (its name aside: a label, checked against the
row and the manifest's file name), the snapshot row's own settings and every
interaction (request key, seq, tool, method, URL, request headers, status,
response headers, body digest; one JSON array per row, sorted, so the same
interactions give the same digest whatever order or process recorded them),
stores it, makes the snapshot immutable, and writes ``snapshots/NAME.json``:
the seal record plus the digest. So the digest covers everything a replay or
a refresh reads, and the manifest must equal the seal record exactly.

Digest versions: 3 (the current one) as above; 2, which snapshots sealed
before it keep, covered the answers only (request key, seq, tool, status,
every response header, body digest), not the request's method, URL and
headers, the snapshot's settings or the manifest's other fields; 1 covered
the content type of the headers only. A sealed snapshot is checked in the
version it was sealed in (a seal record means version 3 and nothing else; the
versions can never give the same digest, so an edit cannot pass by switching).

Pinning (``--snapshot NAME`` in replay) needs the manifest of a sealed
snapshot, never takes the store's word that a snapshot is open when a manifest
says it was sealed, rehashes the interactions and checks them against the
sealed digest, the manifest and (when given) a digest known out of band;
``verify`` does that and rehashes every body the snapshot uses.

What no check without a key can catch: someone who rewrites the rows, the
seal record, the store's digest and the manifest together has made another
snapshot, consistent in itself. Compare the digest with one you got another
way (a paper, a colleague, a signed release): ``snapshot verify NAME --digest
HEX``, or ``expected_digest=`` here.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kopa_replay import __version__
from kopa_replay.catalog.model import Catalog
from kopa_replay.errors import SnapshotError, StoreError, UsageError
from kopa_replay.record.store import Snapshot, Store
from kopa_replay.util import check_snapshot_name, write_atomic

__all__ = [
    "DIGEST_VERSIONS",
    "snapshot_digest",
    "recomputed_digest",
    "manifest_dir_for",
    "manifest_path",
    "load_manifest",
    "left_out_entries",
    "seal_snapshot",
    "snapshot_provenance",
    "verify_snapshot",
    "check_pinned",
    "check_snapshot",
    "SnapshotCheck",
    "copy_store",
    "ToolDigests",
]


#: ``(store, snapshot name, catalog) -> {tool: schema digest}``: what a seal's manifest lists per tool
ToolDigests = Callable[[Store, str, Catalog], Mapping[str, str]]

#: the digest versions this kopa-replay checks, newest (the one it seals with) first
DIGEST_VERSIONS = (3, 2, 1)
_UNSET: Any = object()


def _canonical(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True, separators=(",", ":"))


def snapshot_digest(store: Store, name: str, version: int = DIGEST_VERSIONS[0], *, record: Any = _UNSET) -> str:
    """The content digest of a snapshot, independent of recording order. Version 3 hashes ``record`` (the seal
    record as JSON text, or None) — by default the one the store keeps for the snapshot."""
    if version not in DIGEST_VERSIONS:
        raise SnapshotError(f"unknown snapshot digest version {version} (known: {DIGEST_VERSIONS})")
    info = store.snapshot(name)
    digest = hashlib.sha256()
    if version >= 2:
        digest.update(f"kopa-replay snapshot digest v{version}\n".encode())
    if version >= 3:
        # the name is a label, not content: the same recording under two names has one digest (the name is
        # checked against the row and the manifest's file name instead)
        text = info.seal if record is _UNSET else record
        sealed = {k: v for k, v in _parse_record(text, name).items() if k != "name"} if text is not None else None
        header = {
            "snapshot": {k: getattr(info, k) for k in ("as_of", "source", "seed", "catalog_digest")},
            "seal": sealed,
        }
        digest.update(_canonical(header).encode("utf-8") + b"\n")
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
            continue
        row: list[Any] = [item.request_key, item.seq, item.tool]
        if version >= 3:  # what a refresh reads of the request, besides its identity
            row += [item.method, item.url, dict(sorted(item.request_headers.items()))]
        row += [item.status, dict(sorted(item.response_headers.items())), item.body_digest]
        # one JSON array per row: no field can pass for another
        digest.update(json.dumps(row, ensure_ascii=False, separators=(",", ":")).encode("utf-8") + b"\n")
    return digest.hexdigest()


def _parse_record(text: str, name: str) -> dict[str, Any]:
    try:
        record = json.loads(text)
    except (TypeError, json.JSONDecodeError):
        record = None
    if not isinstance(record, dict):
        raise SnapshotError(
            f"snapshot {name!r}: its seal record in the store is not a JSON object: the store was edited"
        )
    return record


def recomputed_digest(store: Store, name: str) -> tuple[str, int]:
    """(digest, version): the snapshot rehashed in the version its seal used (the newest when unsealed or
    when no version reproduces the seal, i.e. it was edited). A seal record means version 3, never an older one."""
    info = store.snapshot(name)
    newest = snapshot_digest(store, name)
    if info.seal is not None or info.digest is None or info.digest == newest:
        return newest, DIGEST_VERSIONS[0]
    for version in DIGEST_VERSIONS[1:]:
        if snapshot_digest(store, name, version) == info.digest:
            return info.digest, version
    return newest, DIGEST_VERSIONS[0]


def manifest_dir_for(store_path: str | Path) -> Path:
    """Manifests live in ``snapshots/`` beside the ``cassettes/`` folder (or beside the store file)."""
    folder = Path(store_path).resolve().parent
    return (folder.parent if folder.name == "cassettes" else folder) / "snapshots"


def manifest_path(store: Store, name: str, manifest_dir: str | Path | None = None) -> Path:
    """``snapshots/NAME.json``; a name that is no safe file name is refused (:func:`check_snapshot_name`)."""
    return Path(manifest_dir or manifest_dir_for(store.path)) / f"{check_snapshot_name(name)}.json"


def load_manifest(store: Store, name: str, manifest_dir: str | Path | None = None) -> dict[str, Any] | None:
    path = manifest_path(store, name, manifest_dir)
    if not path.exists():
        return None
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise SnapshotError(f"manifest {path} is unreadable: {exc}") from exc
    if not isinstance(manifest, dict):
        raise SnapshotError(f"manifest {path} is not a JSON object")
    return manifest


def snapshot_provenance(store: Store, name: str, manifest_dir: str | Path | None = None) -> Mapping[str, Any] | None:
    """How a snapshot was made, read from where it is trusted: a sealed one's manifest (``refresh``, which
    :func:`check_pinned` holds to the seal: the store's own copy could be edited past it), an open one's store (as
    trusted as its interactions)."""
    if store.snapshot(name).sealed:
        made = (load_manifest(store, name, manifest_dir) or {}).get("refresh")
        return made if isinstance(made, Mapping) else None
    return store.provenance(name)


#: the fields of a request a recording left out because its answer was blocked, and their types
#: (:func:`kopa_replay.stages.workflows.left_out_entry` writes them)
_LEFT_OUT_FIELDS = (("tool", str), ("args", dict), ("request", str), ("class", str), ("evidence", str))


def left_out_entries(made: Any) -> list[dict[str, Any]]:
    """The well-formed left-out requests of a provenance (:func:`snapshot_provenance`, or a shard store's); any other
    entry is skipped — a store from elsewhere says what it likes. Whoever sends them again validates them further."""
    entries = made.get("left_out") if isinstance(made, Mapping) else None
    if not isinstance(entries, list):
        return []
    return [
        dict(e) for e in entries if isinstance(e, Mapping) and all(isinstance(e.get(k), t) for k, t in _LEFT_OUT_FIELDS)
    ]


def _row_fields(info: Snapshot) -> dict[str, Any]:
    """The manifest fields the snapshot's row holds (every seal version can be checked on them)."""
    return {
        "name": info.name,
        "as_of": info.as_of,
        "created": info.as_of,  # the as-of date, not the wall clock: re-recording gives the same file
        "source": info.source,
        "seed": info.seed,
        "interactions": info.interactions,
    }


def _manifest_of(store: Store, info: Snapshot, catalog: Catalog, tools: Mapping[str, str], version: int) -> dict:
    """Every manifest field but the digest: a version 3 seal record, or what a version 1 or 2 seal wrote."""
    fields = {
        **_row_fields(info),
        "catalog_digest": catalog.digest(),
        "digest_version": version,
        "tools": dict(tools),
        "kopa_replay": __version__,
    }
    provenance = store.provenance(info.name)
    if provenance is not None:
        fields["refresh"] = provenance
    return fields


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
    schemas: callers pass :func:`kopa_replay.drift.recorded.tool_schema_digests`); it runs in the transaction
    that seals, so the digests describe exactly the sealed interactions.

    Sealing a sealed snapshot (a recording or merge run again) writes its manifest only where there is none —
    from the store's seal record: what to do when a copy of a store came without its manifests, if you trust the
    store. A manifest that is there and disagrees with the store is evidence, never overwritten: an error, unless
    ``force`` (then the store's word replaces it).

    A snapshot whose recording workflow did not finish (stopped, killed, or still running elsewhere) is
    sealed only with ``force``: sealing would freeze a partial recording.
    """
    snapshot = store.snapshot(name)
    path = manifest_path(store, name, manifest_dir)
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
        existing = load_manifest(store, name, manifest_dir)
        if existing is not None:
            problems = _manifest_problems(snapshot, existing, digest, version)
            if not problems:
                store.end_recording(name, everyone=True)
                return existing  # it says what the store sealed: left as it is
            if not force:
                raise SnapshotError(
                    f"snapshot {name!r} is sealed, and its manifest {path} disagrees with the store: {problems[0]}; "
                    f"one of them was edited (kopa-replay snapshot verify {name}). --force writes the manifest "
                    "again from the store"
                )
        if snapshot.seal is not None:
            manifest = {**_parse_record(snapshot.seal, name), "digest": digest}
        else:
            tools = tool_digests(store, name, catalog)
            manifest = {**_manifest_of(store, snapshot, catalog, tools, version), "digest": digest}
    else:
        with store.transaction(name, create=False):  # hashed and sealed at once: no recorder writes between
            snapshot = store.snapshot(name)
            record = _manifest_of(store, snapshot, catalog, tool_digests(store, name, catalog), DIGEST_VERSIONS[0])
            text = _canonical(record)
            digest = snapshot_digest(store, name, record=text)
            store.seal(name, digest, text)
        manifest = {**record, "digest": digest}
    store.end_recording(name, everyone=True)
    write_atomic(path, json.dumps(manifest, ensure_ascii=False, indent=2, sort_keys=True) + "\n")
    return manifest


def _shown(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False, sort_keys=True)
    return text if len(text) <= 40 else text[:39] + "…"


def _manifest_problems(info: Snapshot, manifest: Mapping[str, Any], digest: str, version: int) -> list[str]:
    """How ``manifest`` disagrees with what the store sealed (``digest``: the interactions rehashed)."""
    if manifest.get("digest") != info.digest:
        return [
            f"manifest digest {str(manifest.get('digest'))[:12]}… differs from the store's {str(info.digest)[:12]}…"
        ]
    if info.seal is not None:
        expected = {**_parse_record(info.seal, info.name), "digest": digest}
        fields = sorted(set(manifest) | set(expected))
    else:  # sealed before version 3: only the fields the row holds can be checked
        expected = {**_row_fields(info), "digest": digest, "digest_version": version}
        fields = sorted(expected)
    problems = [
        f"manifest field {field!r} is {_shown(manifest.get(field))} but the snapshot was sealed with "
        f"{_shown(expected.get(field))}"
        for field in fields
        if manifest.get(field, _UNSET) != expected.get(field, _UNSET)
    ]
    if info.seal is not None:
        sealed = expected
        row = {"name": info.name, "as_of": info.as_of, "source": info.source, "seed": info.seed}
        problems += [
            f"seal record's {field!r} is {_shown(sealed.get(field))} but the snapshot's is {_shown(value)}"
            for field, value in (*row.items(), ("interactions", info.interactions))
            if sealed.get(field) != value
        ]
    return problems


def _digest_problems(info: Snapshot, digest: str) -> list[str]:
    if info.sealed and info.digest != digest:
        return [f"interactions hash to {digest[:12]}… but the snapshot was sealed as {str(info.digest)[:12]}…"]
    return []


def _expected_problem(digest: str, expected: str | None) -> list[str]:
    if expected is None:
        return []
    wanted = expected.strip().lower()
    # all 64 characters: whoever forges a snapshot can try seal records until a short prefix matches
    if len(wanted) != 64 or any(c not in "0123456789abcdef" for c in wanted):
        raise UsageError(f"--digest must be the snapshot's whole digest (64 hex characters), not {expected[:80]!r}")
    if digest != wanted:
        return [f"its digest {digest[:12]}… is not the {wanted[:12]}… you expect"]
    return []


def check_pinned(
    store: Store, name: str, manifest_dir: str | Path | None = None, *, expected_digest: str | None = None
) -> bool:
    """A pinned replay's guard, before anything is served; True when ``name`` is pinned (sealed, checked), False
    for an open snapshot without a manifest (a working cassette: nothing pins its answers).

    A sealed snapshot needs its manifest; a manifest for a snapshot the store holds open means the store was
    edited; the interactions, rehashed (an edit made past the store's triggers is caught here), must give the
    sealed digest, and the manifest must be what was sealed; ``expected_digest`` (the whole hex digest) is one
    known out of band. Bodies are checked against their digests as replay reads them.
    """
    snapshot = store.snapshot(name)
    path = manifest_path(store, name, manifest_dir)
    manifest = load_manifest(store, name, manifest_dir)
    if manifest is None:
        if snapshot.sealed:
            raise SnapshotError(
                f"snapshot {name!r} is sealed in {store.path} but has no manifest at {path}: a pinned replay needs "
                "it (copy a store with `kopa-replay cassette copy`, which brings its manifests; or, if you trust "
                f"this store, write it again from the store: kopa-replay snapshot seal {name} --store {store.path})"
            )
        if expected_digest is not None:
            raise SnapshotError(f"snapshot {name!r} is open (not sealed): it has no digest to compare")
        return False
    if not snapshot.sealed:
        raise SnapshotError(
            f"snapshot {name!r}: its manifest {path} says it was sealed with digest "
            f"{str(manifest.get('digest'))[:12]}…, but the store holds it open: the store was edited "
            f"(kopa-replay snapshot verify {name})"
        )
    digest, version = recomputed_digest(store, name)
    if digest != snapshot.digest:
        raise SnapshotError(
            f"snapshot {name!r}: its interactions hash to {digest[:12]}… but it was sealed as "
            f"{str(snapshot.digest)[:12]}…: the store was edited (kopa-replay snapshot verify {name})"
        )
    problems = _manifest_problems(snapshot, manifest, digest, version) + _expected_problem(digest, expected_digest)
    if problems:
        raise SnapshotError(
            f"snapshot {name!r} does not match the manifest {path}: {problems[0]}"
            + (f" (+{len(problems) - 1} more: kopa-replay snapshot verify {name})" if len(problems) > 1 else "")
        )
    return True


@dataclass(frozen=True)
class SnapshotCheck:
    """What :func:`check_snapshot` found: the problems (none: it verifies), the interactions' digest and the
    version it was computed in."""

    problems: list[str]
    digest: str
    digest_version: int


def check_snapshot(
    store: Store, name: str, manifest_dir: str | Path | None = None, *, expected_digest: str | None = None
) -> SnapshotCheck:
    """Everything ``snapshot verify`` checks: recomputed digest vs stored digest vs manifest (every field) vs
    ``expected_digest`` (known out of band), and every body the snapshot uses rehashed."""
    problems: list[str] = []
    snapshot = store.snapshot(name)
    digest, version = recomputed_digest(store, name)
    problems += _digest_problems(snapshot, digest)
    manifest = load_manifest(store, name, manifest_dir)
    if manifest is not None and not snapshot.sealed:
        problems.append(
            f"the manifest says it was sealed with digest {str(manifest.get('digest'))[:12]}…, but the store holds "
            "it open"
        )
    elif manifest is not None:
        problems += _manifest_problems(snapshot, manifest, digest, version)
    if manifest is None and snapshot.sealed:
        problems.append(f"sealed but no manifest at {manifest_path(store, name, manifest_dir)}")
    problems += _expected_problem(digest, expected_digest)
    bodies = sorted({item.body_digest for item in store.interactions(name)})
    problems += [problem for problem in map(store.body_problem, bodies) if problem]
    return SnapshotCheck(problems, digest, version)


def verify_snapshot(
    store: Store, name: str, manifest_dir: str | Path | None = None, *, expected_digest: str | None = None
) -> list[str]:
    """The problems :func:`check_snapshot` finds (an empty list: the snapshot verifies)."""
    return check_snapshot(store, name, manifest_dir, expected_digest=expected_digest).problems


def copy_store(source: str | Path, target: str | Path) -> list[str]:
    """Copy the store at ``source`` to ``target`` (a new file) with the manifests of its sealed snapshots (into
    ``target``'s manifest folder); returns the snapshots whose manifests came along. The copy is made with
    SQLite's backup (consistent while others write) and opened once to check it is a store. A manifest already in
    the target's folder (another store's, beside it) is never overwritten with a different one."""
    source, target = Path(source), Path(target)
    if target.exists():
        raise UsageError(f"{target} exists: copy a store into a new file")
    with Store(source, readonly=True) as original:
        manifests = {}
        for info in original.snapshots():
            here = manifest_path(original, info.name)
            if info.sealed and here.exists():
                there = manifest_dir_for(target) / here.name
                text = here.read_text(encoding="utf-8")
                if there.exists() and there.read_text(encoding="utf-8") != text:
                    raise UsageError(
                        f"{there} exists and is not the manifest of {source}'s snapshot {info.name!r} (another "
                        "store's, in the same folder): copy the store into a folder of its own"
                    )
                manifests[info.name] = text
        target.parent.mkdir(parents=True, exist_ok=True)
        try:
            with sqlite3.connect(target) as copy:
                original.conn.backup(copy)
            copy.close()
        except (OSError, sqlite3.Error) as exc:
            target.unlink(missing_ok=True)
            raise StoreError(f"cannot copy store {source} to {target}: {exc}") from exc
    with Store(target, readonly=True) as copied:
        for name, text in sorted(manifests.items()):
            write_atomic(manifest_path(copied, name), text)
    return sorted(manifests)
