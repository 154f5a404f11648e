"""Sharded recording: shards by endpoint, each into its own store, merged into the snapshot one recorder makes."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from kopa_replay.cli import cli
from kopa_replay.record import Store
from kopa_replay.record.store import RecordedRow
from kopa_replay.stages.record import RecordConfig, RefreshConfig, record, refresh
from kopa_replay.stages.workflows import PlannedCall, merge_snapshots, recording_plan, recording_shards

SNAPSHOT = "2026-09-01"


def _record(path, **settings):
    config = RecordConfig(snapshot=SNAPSHOT, store=str(path), bench=False, **settings)
    return record(config).summary


@pytest.fixture(scope="module")
def single(tmp_path_factory):
    """One recorder, one process: the snapshot every sharded recording must equal."""
    path = tmp_path_factory.mktemp("single") / "one.sqlite"
    return path, _record(path)


def _endpoint(catalog, call):
    http = catalog.get(call.tool).http
    return http.method, http.base_url, http.path


@settings(max_examples=40, deadline=None)
@given(count=st.integers(1, 9), picks=st.lists(st.integers(0, 10_000), max_size=60))
def test_shards_partition_the_plan_keeping_each_endpoint_whole_and_in_order(catalog, count, picks):
    probes = recording_plan(catalog)
    # extra calls drawn from the probes' tools with arguments of their own, some repeated
    extra = [(probes[p % len(probes)].tool, {"n": p % 7}) for p in picks]
    plan = recording_plan(catalog, extra)
    shards = recording_shards(catalog, plan, count)
    assert len(shards) == count
    flat = [call for shard in shards for call in shard]
    assert sorted(map(id, flat)) == sorted(map(id, plan))  # every call once
    where = {}
    for index, shard in enumerate(shards):
        positions = [plan.index(call) for call in shard]
        assert positions == sorted(positions)  # the plan's order within a shard
        for call in shard:
            assert where.setdefault(_endpoint(catalog, call), index) == index  # an endpoint in one shard only


def test_the_plan_sends_an_extra_request_once_and_never_one_a_probe_sent(catalog):
    probes = recording_plan(catalog)
    first = probes[0]
    plan = recording_plan(catalog, [(first.tool, dict(first.args)), ("x_tool", {"a": 1}), ("x_tool", {"a": 1})])
    assert plan[: len(probes)] == probes
    assert plan[len(probes) :] == [PlannedCall("x_tool", {"a": 1}, True)]


@pytest.mark.parametrize("workers", [2, 3])
def test_a_recording_on_several_workers_seals_the_digest_of_one_recorder(tmp_path, single, workers):
    one_path, one = single
    summary = _record(tmp_path / "many.sqlite", workers=workers)
    assert summary.manifest["digest"] == one.manifest["digest"]
    assert summary.calls == one.calls and summary.outcomes == one.outcomes
    assert not (tmp_path / "many.sqlite.shards").exists()  # merged: the shard stores are gone
    with Store(tmp_path / "many.sqlite", readonly=True) as many, Store(one_path, readonly=True) as base:
        assert list(many.interactions(SNAPSHOT)) == list(base.interactions(SNAPSHOT))


def test_shards_recorded_apart_and_merged_on_the_command_line_equal_one_recorder(tmp_path, single, cli_error):
    runner = CliRunner()
    shards = [tmp_path / f"part{k}.sqlite" for k in (1, 2, 3)]
    for k, shard in enumerate(shards, 1):
        args = ["record", "--snapshot", SNAPSHOT, "--no-bench", "--store", str(shard), "--shard", f"{k}/3"]
        result = runner.invoke(cli, [*args, "--no-seal", "--json"])
        assert result.exit_code == 0, result.output
        # a shard holds its part only
        assert 0 < json.loads(result.output)["calls"] < single[1].calls
    target = tmp_path / "merged.sqlite"
    result = runner.invoke(
        cli, ["cassette", "merge", *map(str, shards), "--snapshot", SNAPSHOT, "--store", str(target), "--json"]
    )
    assert result.exit_code == 0, result.output
    merged = json.loads(result.output)
    assert merged["digest"] == single[1].manifest["digest"]
    assert merged["conflicts"] == 0 and merged["merged"] == sum(merged["interactions"])
    # the merged snapshot is a sealed one like any other: pinned replay and verify accept it
    verify = runner.invoke(cli, ["snapshot", "verify", SNAPSHOT, "--store", str(target)])
    assert verify.exit_code == 0, verify.output
    # the same merge run again, as a recording run again: nothing to write, the same sealed snapshot
    again = runner.invoke(
        cli, ["cassette", "merge", *map(str, shards), "--snapshot", SNAPSHOT, "--store", str(target), "--json"]
    )
    assert again.exit_code == 0, again.output
    rerun = json.loads(again.output)
    assert (
        rerun["merged"] == 0 and rerun["digest"] == merged["digest"] and rerun["interactions"] == merged["interactions"]
    )
    # a shard holding what the sealed snapshot lacks is refused, naming it
    extra = tmp_path / "extra.sqlite"
    args = ["record", "--snapshot", SNAPSHOT, "--no-bench", "--no-seal", "--store", str(extra), "--seed", "1"]
    assert runner.invoke(cli, [*args, "--shard", "1/1"]).exit_code == 0
    refused = runner.invoke(cli, ["cassette", "merge", str(extra), "--snapshot", SNAPSHOT, "--store", str(target)])
    assert "sealed" in cli_error(refused) and SNAPSHOT in cli_error(refused)


def test_merge_refuses_shards_that_do_not_belong_together(tmp_path, cli_error):
    runner = CliRunner()

    def shard(name, *extra):
        path = tmp_path / name
        args = ["record", "--snapshot", SNAPSHOT, "--no-bench", "--no-seal", "--store", str(path), *extra]
        assert runner.invoke(cli, [*args, "--shard", "1/4"]).exit_code == 0
        return str(path)

    def merge(*shards, snapshot=SNAPSHOT):
        target = str(tmp_path / "target.sqlite")
        return runner.invoke(cli, ["cassette", "merge", *shards, "--snapshot", snapshot, "--store", target])

    a, other_seed = shard("a.sqlite"), shard("b.sqlite", "--seed", "7")
    message = cli_error(merge(a, other_seed))
    assert "b.sqlite" in message and "seed" in message
    message = cli_error(merge(a, snapshot="2026-12-01"))
    assert "a.sqlite" in message and "2026-12-01" in message
    message = cli_error(merge(a, str(tmp_path / "missing.sqlite")))
    assert "missing.sqlite" in message
    # a shard whose recorder did not finish
    with Store(tmp_path / "a.sqlite") as store:
        store.begin_recording(SNAPSHOT)
    assert "did not finish" in cli_error(merge(a))
    assert (
        not (tmp_path / "target.sqlite").exists() or SNAPSHOT not in Store(tmp_path / "target.sqlite").snapshot_names()
    )


@pytest.mark.parametrize(
    "args, named",
    [
        (["--shard", "3/2", "--no-seal"], "--shard"),
        (["--shard", "x", "--no-seal"], "--shard"),
        (["--shard", "1/2"], "--no-seal"),
        (["--shard", "1/2", "--no-seal", "--workers", "2"], "--shard"),
        (["--workers", "0"], "--workers"),
        (["--ray-address", "auto"], "--ray-address"),
    ],
)
def test_bad_shard_and_executor_settings_are_named(tmp_path, cli_error, args, named):
    runner = CliRunner()
    result = runner.invoke(cli, ["record", "--snapshot", SNAPSHOT, "--store", str(tmp_path / "s.sqlite"), *args])
    assert named in cli_error(result)
    assert not (tmp_path / "s.sqlite").exists()  # refused before anything was written


def _row(body: bytes) -> RecordedRow:
    return RecordedRow("GET https://example.test/a", "x_tool", "GET", "https://example.test/a", {}, 200, {}, body, 1)


def test_two_shards_answering_one_request_differently_keep_the_first_and_count_it(tmp_path, catalog):
    shards = []
    for k, (name, body) in enumerate((("first.sqlite", b"one"), ("second.sqlite", b"two")), 1):
        with Store(tmp_path / name) as store:
            store.ensure_snapshot(SNAPSHOT, as_of=SNAPSHOT, source="live", catalog_digest=catalog.digest())
            store.put_many(SNAPSHOT, [_row(body)])
            store.set_provenance(SNAPSHOT, {"shard": [k, 2], "plan": "one plan"})
        shards.append(tmp_path / name)
    merged = merge_snapshots(shards, store_path=tmp_path / "t.sqlite", snapshot=SNAPSHOT, catalog=catalog, seal=False)
    assert (merged.merged, merged.conflicts) == (1, 1)
    with Store(tmp_path / "t.sqlite", readonly=True) as store:
        (item,) = store.interactions(SNAPSHOT)
        assert store.body(item.body_digest) == b"one"


def test_a_refresh_on_two_workers_reports_and_seals_what_one_process_does(tmp_path, single):
    from kopa_replay.record.snapshots import copy_store

    reports, digests = [], []
    for workers in (1, 2):
        path = tmp_path / f"w{workers}" / "kopa.sqlite"
        copy_store(single[0], path)  # with its manifest: a refresh pins its base
        config = RefreshConfig(
            base=SNAPSHOT, snapshot="2026-12-01", as_of="2026-12-01", store=str(path), bench=False, workers=workers
        )
        result = refresh(config)
        reports.append(json.dumps(result.summary.report.to_dict(), sort_keys=True))
        digests.append(result.summary.manifest["digest"])
        assert result.summary.calls == single[1].calls
    assert reports[0] == reports[1] and digests[0] == digests[1]
    assert json.loads(reports[0])["changes"]  # the simulator's dated API changes: a refresh that saw drift


def test_merge_wants_every_part_of_one_recording_once(tmp_path, cli_error):
    runner = CliRunner()

    def part(name, shard):
        path = tmp_path / name
        args = ["record", "--snapshot", SNAPSHOT, "--no-bench", "--no-seal", "--store", str(path), "--shard", shard]
        assert runner.invoke(cli, args).exit_code == 0
        return str(path)

    def merge(*shards):
        target = str(tmp_path / "target.sqlite")
        return runner.invoke(cli, ["cassette", "merge", *shards, "--snapshot", SNAPSHOT, "--store", target])

    one, two = part("one.sqlite", "1/3"), part("two.sqlite", "2/3")
    assert "3/3" in cli_error(merge(one, two))  # a forgotten part would seal a snapshot missing its requests
    assert "both part 1/3" in cli_error(merge(one, two, one))
    other_split = part("half.sqlite", "2/2")
    assert "half.sqlite" in cli_error(merge(one, other_split))
    whole = tmp_path / "whole.sqlite"  # a store that is no part of a sharded recording
    assert runner.invoke(cli, ["record", "--snapshot", SNAPSHOT, "--no-bench", "--store", str(whole)]).exit_code == 0
    assert "whole.sqlite" in cli_error(merge(str(whole)))
    assert (
        not (tmp_path / "target.sqlite").exists() or SNAPSHOT not in Store(tmp_path / "target.sqlite").snapshot_names()
    )


@pytest.mark.parametrize("name", ["..", "../..", "a/b", "/etc", "2026-09-01", ""])
def test_the_shard_folder_of_any_snapshot_name_stays_beside_the_store(tmp_path, name):
    from kopa_replay.stages.record import shard_dir

    folder = shard_dir(tmp_path / "kopa.sqlite", name, {"shards": 2})
    assert folder.parent == tmp_path / "kopa.sqlite.shards"
    assert folder.resolve().parent == (tmp_path / "kopa.sqlite.shards").resolve()
    assert shard_dir(tmp_path / "kopa.sqlite", name, {"shards": 3}) != folder  # another split: another folder
