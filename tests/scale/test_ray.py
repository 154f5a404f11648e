"""Stages on a real local Ray cluster give the same bytes as in this process."""

from __future__ import annotations

import pytest

from kopa_replay.record import Store
from kopa_replay.stages.record import RecordConfig, record

SNAPSHOT = "2026-09-01"


def test_a_recording_sharded_on_ray_seals_the_digest_of_one_recorder(tmp_path, ray_cluster):
    local = record(RecordConfig(snapshot=SNAPSHOT, store=str(tmp_path / "local.sqlite"), bench=False))
    on_ray = record(
        RecordConfig(snapshot=SNAPSHOT, store=str(tmp_path / "ray.sqlite"), bench=False, executor="ray", workers=2)
    )
    assert on_ray.summary.manifest["digest"] == local.summary.manifest["digest"]
    with Store(tmp_path / "ray.sqlite", readonly=True) as store:
        assert store.snapshot(SNAPSHOT).sealed
    assert ray_cluster.is_initialized()  # the stage joined the test's cluster and left it running


def _timed_requests(limiter, host, count):
    """``count`` requests through ``limiter``, each 20 ms long: their (start, end) on this machine's clock."""
    import time

    spans = []
    for _ in range(count):
        limiter.acquire(host)
        start = time.monotonic()
        time.sleep(0.02)
        spans.append((start, time.monotonic()))
        limiter.release(host)
    return spans


def test_workers_on_ray_share_one_host_limit(ray_cluster, catalog):
    """Two Ray workers recording one host with concurrency 1: never two of their requests in flight at once."""
    import sys

    from ray import cloudpickle

    from kopa_replay.catalog.model import RateLimit
    from kopa_replay.scale import ExecutorSpec, open_executor
    from kopa_replay.scale.limits import RayLimiterHandle, _LimiterActor

    cloudpickle.register_pickle_by_value(sys.modules[__name__])  # the workers cannot import a test module
    actor = ray_cluster.remote(num_cpus=0)(_LimiterActor).remote({"opendart.fss.or.kr": RateLimit(1000.0, 1)})
    handle = RayLimiterHandle(actor)
    with open_executor(ExecutorSpec("ray", workers=2)) as executor:
        parts = executor.map(_worker_requests, [(handle, 6), (handle, 6)])
    spans = sorted(span for part in parts for span in part)
    assert len(spans) == 12
    assert all(earlier[1] <= later[0] for earlier, later in zip(spans, spans[1:]))  # one at a time, across both


def _worker_requests(job):
    handle, count = job
    return _timed_requests(handle, "opendart.fss.or.kr", count)


def test_the_limiter_of_a_live_recording_is_shared_and_of_none_for_the_simulator(catalog, ray_cluster):
    from kopa_replay.env.limits import InProcessLimiter
    from kopa_replay.scale import ExecutorSpec, open_executor
    from kopa_replay.scale.limits import RayLimiterHandle, shared_limiter

    with open_executor(ExecutorSpec("local", workers=3)) as local, open_executor(ExecutorSpec("ray", 2)) as on_ray:
        assert shared_limiter(local, catalog, "sim") is None
        assert isinstance(shared_limiter(local, catalog, "live"), InProcessLimiter)
        assert isinstance(shared_limiter(on_ray, catalog, "live"), RayLimiterHandle)
        # hosts sent to a mirror are not the platform's: not limited
        assert shared_limiter(local, catalog, "live", {"*": "http://127.0.0.1:1"}) is None


def test_graph_prune_on_ray_gives_the_graph_of_this_process(tmp_path, ray_cluster):
    from kopa_replay.stages import graph_prune

    common = dict(iterations=4, paths=120, batches=4, plots=False)
    here = graph_prune.run(graph_prune.Config(run_dir=str(tmp_path / "here"), **common))
    # the same batches on two Ray workers, each with its own environment over the simulator
    there = graph_prune.run(graph_prune.Config(run_dir=str(tmp_path / "ray"), executor="ray", workers=2, **common))
    assert there.report["graph_digest"] == here.report["graph_digest"]
    assert (tmp_path / "ray" / "graph.json").read_bytes() == (tmp_path / "here" / "graph.json").read_bytes()
    # the executor is how it ran, not what it computed: the manifests record the same config (but the directory)
    assert "executor" not in there.manifest["config"] and "workers" not in there.manifest["config"]
    assert {**there.manifest["config"], "run_dir": None} == {**here.manifest["config"], "run_dir": None}


def test_bench_run_on_ray_writes_the_report_of_this_process(tmp_path, ray_cluster):
    from kopa_replay.stages import bench_run

    outputs = {}
    for name, scale in (("here", {}), ("ray", {"executor": "ray", "workers": 2})):
        config = bench_run.Config(agent="skip-lookup", out=str(tmp_path / name), domain="traffic", **scale)
        bench_run.run(config)
        outputs[name] = [(tmp_path / name / f).read_bytes() for f in ("rollouts.jsonl", "report.json", "report.md")]
    assert outputs["ray"] == outputs["here"]


def test_synth_on_ray_writes_the_corpus_of_this_process(tmp_path, ray_cluster):
    from kopa_replay.stages import graph_prune, synth

    graph_prune.run(graph_prune.Config(run_dir=str(tmp_path / "graph"), iterations=3, paths=120, plots=False))
    corpora = {}
    for name, scale in (("here", {}), ("ray", {"executor": "ray", "workers": 2})):
        config = synth.Config(
            graph_dir=str(tmp_path / "graph"),
            out=str(tmp_path / name),
            trajectories=12,
            generator="walk",
            streams="attempt",
            **scale,
        )
        synth.run(config)
        corpora[name] = [(tmp_path / name / f).read_bytes() for f in ("trajectories.jsonl", "stats.json")]
    assert corpora["ray"] == corpora["here"]


def _fails(item):
    from kopa_replay.errors import CassetteMiss

    if item == 2:
        raise CassetteMiss(tool="t", method="GET", url="https://x.test/a", snapshot="s", store="k.sqlite")
    return item


def test_a_kopa_error_in_a_ray_worker_arrives_as_itself(ray_cluster):
    import sys

    from ray import cloudpickle

    from kopa_replay.errors import CassetteMiss
    from kopa_replay.scale import ExecutorSpec, open_executor

    cloudpickle.register_pickle_by_value(sys.modules[__name__])
    with open_executor(ExecutorSpec("ray", workers=2)) as executor:
        assert executor.map(_fails, [0, 1]) == [0, 1]
        with pytest.raises(CassetteMiss) as caught:
            executor.map(_fails, [1, 2, 3])
    assert type(caught.value) is CassetteMiss  # not Ray's wrapper: the command line prints its one Error: line
    assert caught.value.url == "https://x.test/a" and "snapshot 's'" in str(caught.value)
    assert "Traceback" not in str(caught.value)
