"""Snapshots: sealing, manifests, pinned replay, verification, and reproducible recording."""

from __future__ import annotations

import json

import pytest
from hostile import edit_past_triggers

from kopa_replay.env import call_tool, open_source
from kopa_replay.errors import SnapshotError
from kopa_replay.record import Store
from kopa_replay.record.snapshots import check_pinned, manifest_path, snapshot_digest, verify_snapshot
from kopa_replay.stages.workflows import record_snapshot


@pytest.fixture(scope="module")
def recorded(tmp_path_factory):
    from kopa_replay.catalog import builtin_catalog

    folder = tmp_path_factory.mktemp("rec")
    path = folder / "cassettes" / "kopa.sqlite"
    summary = record_snapshot(
        builtin_catalog(), store_path=path, snapshot="2026-09-01", source="sim", as_of="2026-09-01", seed=0
    )
    return path, summary


def test_recording_seals_and_writes_a_manifest_beside_the_cassettes(recorded, catalog):
    path, summary = recorded
    manifest_file = path.parent.parent / "snapshots" / "2026-09-01.json"
    manifest = json.loads(manifest_file.read_text(encoding="utf-8"))
    assert manifest["digest"] == summary.manifest["digest"]
    assert manifest["as_of"] == manifest["created"] == "2026-09-01"
    assert manifest["catalog_digest"] == catalog.digest()
    assert set(manifest["tools"]) == set(catalog.names)
    assert manifest["interactions"] == summary.calls
    store = Store(path, readonly=True)
    assert store.snapshot("2026-09-01").sealed
    assert verify_snapshot(store, "2026-09-01") == []


def test_re_recording_with_the_same_seed_reproduces_the_digest(recorded, tmp_path, catalog):
    path, summary = recorded
    again = record_snapshot(
        catalog, store_path=tmp_path / "again.sqlite", snapshot="2026-09-01", source="sim", as_of="2026-09-01", seed=0
    )
    assert again.manifest["digest"] == summary.manifest["digest"]
    other = record_snapshot(
        catalog, store_path=tmp_path / "other.sqlite", snapshot="2026-09-01", source="sim", as_of="2026-09-01", seed=1
    )
    assert other.manifest["digest"] != summary.manifest["digest"]


def test_a_sealed_snapshot_cannot_be_recorded_into_again(recorded, catalog):
    path, summary = recorded
    with pytest.raises(SnapshotError, match="is sealed"):
        record_snapshot(catalog, store_path=path, snapshot="2026-09-01", source="sim", seed=1)
    with pytest.raises(SnapshotError, match="is sealed and lacks a request"):
        record_snapshot(
            catalog,
            store_path=path,
            snapshot="2026-09-01",
            source="sim",
            seed=0,
            requests=[("dart_company", {"corp_code": "00126380"})],
        )
    # the run that sealed it, run again: every answer from the store, nothing written
    again = record_snapshot(catalog, store_path=path, snapshot="2026-09-01", source="sim", seed=0)
    assert again.manifest["digest"] == summary.manifest["digest"] and again.outcomes == summary.outcomes


def test_a_manifest_that_disagrees_with_the_store_stops_pinned_replay(recorded, catalog, tmp_path):
    path, _ = recorded
    store = Store(path, readonly=True)
    manifest = json.loads(manifest_path(store, "2026-09-01").read_text(encoding="utf-8"))
    folder = tmp_path / "manifests"
    folder.mkdir()
    (folder / "2026-09-01.json").write_text(json.dumps({**manifest, "digest": "0" * 64}), encoding="utf-8")
    with pytest.raises(SnapshotError, match="does not match the manifest"):
        check_pinned(store, "2026-09-01", folder)
    problems = verify_snapshot(store, "2026-09-01", folder)
    assert len(problems) == 1 and "manifest digest" in problems[0]


def test_tampering_with_an_interaction_is_caught_by_verify(recorded, catalog, tmp_path):
    import shutil

    copy = tmp_path / "cassettes" / "kopa.sqlite"
    copy.parent.mkdir()
    shutil.copy(recorded[0], copy)
    edit_past_triggers(copy, "DELETE FROM interactions WHERE id = (SELECT MIN(id) FROM interactions)")
    store = Store(copy)
    problems = verify_snapshot(store, "2026-09-01")
    assert any("sealed as" in p for p in problems)


def test_digest_is_independent_of_recording_order(tmp_path):
    a, b = Store(tmp_path / "a.sqlite"), Store(tmp_path / "b.sqlite")
    items = [("k1", b"one"), ("k2", b"two"), ("k1", b"again")]
    for store, order in ((a, items), (b, [items[1], items[0], items[2]])):
        store.ensure_snapshot("s")
        for key, body in order:
            store.append(
                snapshot="s",
                request_key=key,
                tool="t",
                method="GET",
                url="u",
                request_headers={},
                status=200,
                response_headers={},
                body=body,
            )
    assert snapshot_digest(a, "s") == snapshot_digest(b, "s")


def test_pinned_replay_of_the_recorded_snapshot_answers_offline(recorded, catalog, no_network):
    path, _ = recorded
    with open_source("replay", snapshot="2026-09-01", store=path, catalog=catalog) as source:
        result = call_tool(catalog, "datagokr_get_stock_price_info", {"srtnCd": "069540", "basDt": "20260831"}, source)
    assert result.records[0]["clpr"] == "1680"


def test_an_open_snapshot_claimed_with_other_settings_is_not_taken_over(tmp_path, catalog):
    """A recorder that claimed a snapshot (settings written, nothing committed yet — or still starting) keeps it: a
    recorder with another seed is refused rather than recording into it with mixed settings."""
    path = tmp_path / "cassettes" / "kopa.sqlite"
    # the label a recording on the small world writes (the test suite's: KOPA_WORLD_SIZE=default)
    Store(path).ensure_snapshot("x", as_of="2026-09-01", source="sim:default", seed=0, catalog_digest=catalog.digest())
    with pytest.raises(SnapshotError, match="open with other settings: seed 0 \\(asked: 1\\)"):
        record_snapshot(catalog, store_path=path, snapshot="x", source="sim", as_of="2026-09-01", seed=1)
    assert Store(path, readonly=True).snapshot("x").seed == 0
