"""The local executor, the deterministic deal of shards, and errors that cross process boundaries."""

from __future__ import annotations

import pickle
import threading

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kopa_replay import errors
from kopa_replay.errors import CassetteMiss, KopaError, UnknownTool, UsageError
from kopa_replay.scale import ExecutorSpec, open_executor, shards_of


@given(sizes=st.lists(st.integers(1, 50), max_size=40), count=st.integers(1, 8))
def test_shards_keep_every_group_once_in_the_given_order_and_balance_them(sizes, count):
    groups = [[f"g{i}"] * size for i, size in enumerate(sizes)]
    shards = shards_of(groups, count, weight=len)
    assert len(shards) == count
    dealt = [group for shard in shards for group in shard]
    assert sorted(map(id, dealt)) == sorted(map(id, groups))
    for shard in shards:
        positions = [groups.index(group) for group in shard]
        assert positions == sorted(positions)
    loads = sorted(sum(map(len, shard)) for shard in shards)
    # greedy by size: the heaviest and the lightest shard differ by at most the largest group
    assert not sizes or loads[-1] - loads[0] <= max(sizes)
    assert shards_of(groups, count, weight=len) == shards  # a function of its input only


def test_the_local_executor_keeps_the_order_of_its_items_on_any_number_of_threads():
    seen = set()

    def square(x):
        seen.add(threading.current_thread().name)
        return x * x

    for workers in (1, 4):
        with open_executor(ExecutorSpec("local", workers=workers)) as executor:
            assert executor.map(square, list(range(50))) == [x * x for x in range(50)]
    assert any(name.startswith("kopa-shard") for name in seen)


@pytest.mark.parametrize(
    "spec, named",
    [
        (dict(kind="slurm"), "--executor"),
        (dict(workers=0), "--workers"),
        (dict(kind="local", address="auto"), "--ray-address"),
    ],
)
def test_bad_executor_settings_are_named(spec, named):
    with pytest.raises(UsageError, match=named):
        ExecutorSpec(**spec)


def _every_error() -> list[KopaError]:
    made = [
        CassetteMiss(tool="dart_company", method="GET", url="https://x.test/a?k=***", snapshot="s", store="k.sqlite"),
        UnknownTool("dart_cmpany", ["dart_company"]),
    ]
    for cls in vars(errors).values():
        if isinstance(cls, type) and issubclass(cls, KopaError) and cls not in (CassetteMiss, UnknownTool):
            try:
                made.append(cls("a message naming the thing"))
            except TypeError:
                continue
    return made


@pytest.mark.parametrize("error", _every_error(), ids=lambda e: type(e).__name__)
def test_every_kopa_error_survives_a_trip_to_another_process(error):
    back = pickle.loads(pickle.dumps(error))
    assert type(back) is type(error) and str(back) == str(error) and vars(back) == vars(error)


def test_the_pipeline_hands_its_executor_to_every_stage_that_runs_shards(tmp_path):
    from kopa_replay.stages import pipeline

    config = pipeline.Config(
        out=str(tmp_path), executor="ray", workers=3, batches=4, generator="walk", streams="attempt"
    )
    steps = {name: stage_config for name, _, stage_config in pipeline._steps(config)}
    sharded = [name for name, stage_config in steps.items() if hasattr(stage_config, "executor")]
    assert sharded == ["graph-prune", "synth", "bench-oracle", "bench-skip-lookup", "bench-first-page"]
    for name in sharded:
        assert (steps[name].executor, steps[name].workers) == ("ray", 3)
    assert steps["graph-prune"].batches == 4 and steps["synth"].streams == "attempt"
    with pytest.raises(UsageError, match="--workers"):
        pipeline.Config(out=str(tmp_path), workers=0)


def test_ray_missing_is_one_error_line_naming_the_extra(monkeypatch, tmp_path, cli_error):
    import sys

    from click.testing import CliRunner

    from kopa_replay.cli import cli

    monkeypatch.setitem(sys.modules, "ray", None)  # what an install without the ray extra sees
    result = CliRunner().invoke(
        cli, ["bench", "run", "--agent", "oracle", "--executor", "ray", "--out", str(tmp_path / "b")]
    )
    assert "kopa-replay[ray]" in cli_error(result)
    assert not (tmp_path / "b").exists()


def test_the_command_line_starts_a_ray_cluster_of_its_own_and_stops_it(tmp_path):
    """The executor's own ``ray.init`` and ``shutdown`` (the other Ray tests join the test session's cluster)."""
    import os
    import subprocess
    import sys

    pytest.importorskip("ray", reason="the ray extra is not installed: pip install -e '.[ray]'")
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "NO_PROXY": "*"}
    env.pop("RAY_ADDRESS", None)
    runs = {}
    for name, scale in (("here", []), ("ray", ["--executor", "ray", "--workers", "2"])):
        args = ["bench", "run", "--agent", "first-page", "--domain", "law", "--out", str(tmp_path / name), *scale]
        result = subprocess.run(
            [sys.executable, "-m", "kopa_replay", "-q", *args], capture_output=True, text=True, timeout=300, env=env
        )
        assert result.returncode == 0, result.stderr
        runs[name] = [(tmp_path / name / f).read_bytes() for f in ("rollouts.jsonl", "report.json", "report.md")]
    assert runs["ray"] == runs["here"]


def test_an_unreachable_cluster_is_one_error_line_and_leaves_nothing_behind(tmp_path, cli_error):
    from click.testing import CliRunner

    from kopa_replay.cli import cli

    pytest.importorskip("ray", reason="the ray extra is not installed: pip install -e '.[ray]'")
    store = tmp_path / "s.sqlite"
    args = ["record", "--snapshot", "2026-09-01", "--no-bench", "--store", str(store), "--executor", "ray"]
    message = cli_error(CliRunner().invoke(cli, [*args, "--ray-address", "127.0.0.1:1"]))  # nothing listens there
    assert "127.0.0.1:1" in message
    assert not store.exists() and not (tmp_path / "s.sqlite.shards").exists()
    assert "--ray-address" in cli_error(CliRunner().invoke(cli, [*args, "--ray-address", "nowhere"]))


def test_a_sealed_recording_clears_the_shards_of_its_earlier_runs(tmp_path):
    from click.testing import CliRunner

    from kopa_replay.cli import cli

    runner = CliRunner()
    store = tmp_path / "s.sqlite"
    # what a killed `record --workers 2` with other settings left: a shard folder holding part of the snapshot
    stale = tmp_path / "s.sqlite.shards" / "2026-09-01-0123456789ab" / "shard-1-of-2.sqlite"
    stale.parent.mkdir(parents=True)
    args = ["record", "--snapshot", "2026-09-01", "--no-bench"]
    assert runner.invoke(cli, [*args, "--store", str(stale), "--shard", "1/2", "--no-seal"]).exit_code == 0
    other = tmp_path / "s.sqlite.shards" / "other-0123456789ab" / "shard-1-of-2.sqlite"  # another snapshot's
    other.parent.mkdir(parents=True)
    other.write_bytes(stale.read_bytes())
    result = runner.invoke(cli, [*args, "--store", str(store), "--workers", "3"])
    assert result.exit_code == 0, result.output
    assert not stale.parent.exists()
    assert other.exists()  # its folder's name does not match: left alone


def test_workers_that_cannot_help_are_said_on_stderr(tmp_path):
    from click.testing import CliRunner

    from kopa_replay.cli import cli

    result = CliRunner().invoke(
        cli,
        ["graph", "prune", "--run-dir", str(tmp_path), "--iterations", "1", "--paths", "20", "--workers", "2"],
        catch_exceptions=False,
    )
    assert result.exit_code == 0
    assert "note: --batches 1" in result.stderr and "note:" not in result.stdout
