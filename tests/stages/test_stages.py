"""Every stage runs from Python with no command line, writes its run directory atomically with a manifest, and
the command line's options come from the stages' config dataclasses."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import typing
from pathlib import Path

import click
import pytest

from kopa_replay.errors import KopaError, UsageError
from kopa_replay.stages import (
    bench_audit,
    bench_build,
    bench_run,
    drift,
    filter,
    graph_build,
    graph_prune,
    record,
    synth,
    train,
)
from kopa_replay.stages.options import option_name
from kopa_replay.stages.run_dir import is_current, stage_key


def sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def manifest(directory: Path, stage: str) -> dict:
    return json.loads((directory / f"manifest-{stage}.json").read_text(encoding="utf-8"))


def no_leftovers(parent: Path) -> None:
    """No partial or moved-aside directory survives a stage."""
    assert not [p.name for p in parent.iterdir() if ".partial-" in p.name or ".old-" in p.name]


# -- the chain, each stage called as a library -------------------------------------------------------------------
@pytest.fixture(scope="module")
def work(tmp_path_factory):
    return tmp_path_factory.mktemp("stages")


@pytest.fixture(scope="module")
def graph_dir(work):
    built = graph_build.run(graph_build.Config(run_dir=str(work / "graph")))
    assert built.counts["links"] > 500 and built.candidates == work / "graph" / "candidates.json"
    pruned = graph_prune.run(graph_prune.Config(run_dir=str(work / "graph"), iterations=4, paths=60))
    return pruned


@pytest.fixture(scope="module")
def synth_dir(work, graph_dir):
    return synth.run(synth.Config(graph_dir=str(graph_dir.run_dir), out=str(work / "synth"), trajectories=12))


@pytest.fixture(scope="module")
def filter_dir(work, synth_dir):
    return filter.run(filter.Config(in_dir=str(synth_dir.out), out=str(work / "filter")))


def test_graph_build_and_prune_write_their_manifests_beside_each_other(graph_dir, work):
    run_dir = work / "graph"
    build, prune = manifest(run_dir, "graph-build"), manifest(run_dir, "graph-prune")
    assert build["outputs"] == {"candidates.json": sha(run_dir / "candidates.json")}
    # the prune kept the candidates it was given and says so
    assert prune["inputs"]["candidates"] == sha(run_dir / "candidates.json")
    assert prune["outputs"]["graph.json"] == sha(run_dir / "graph.json")
    assert set(prune["outputs"]) >= {"graph.json", "prune.json", "iterations.jsonl", "scatter.png", "curves.png"}
    assert prune["config"]["iterations"] == 4 and prune["seed"] == 0
    # the report names where the files lie now, not the partial directory they were written in
    report = json.loads((run_dir / "prune.json").read_text(encoding="utf-8"))
    assert report["graph"] == str(run_dir / "graph.json") and graph_dir.report == report
    no_leftovers(work)


def test_a_stage_run_twice_gives_the_same_bytes_and_the_same_manifest(graph_dir, work, tmp_path):
    again = graph_prune.run(graph_prune.Config(run_dir=str(work / "graph"), iterations=4, paths=60))
    assert again.manifest == graph_dir.manifest
    assert again.report["graph_digest"] == graph_dir.report["graph_digest"]
    key = stage_key("graph-prune", again.manifest["config"], again.manifest["inputs"])
    assert is_current(work / "graph", "graph-prune", key) == again.manifest
    # an output edited afterwards is no longer current
    (work / "graph" / "iterations.jsonl").write_text("{}\n", encoding="utf-8")
    assert is_current(work / "graph", "graph-prune", key) is None
    graph_prune.run(graph_prune.Config(run_dir=str(work / "graph"), iterations=4, paths=60))
    assert is_current(work / "graph", "graph-prune", key) is not None


def test_synth_and_filter_run_as_a_library(synth_dir, filter_dir, work, graph_dir):
    assert 0 < synth_dir.stats["trajectories"] <= 12
    made = manifest(work / "synth", "synth")
    assert made["inputs"]["graph"] == sha(work / "graph" / "graph.json")
    assert made["outputs"]["trajectories.jsonl"] == sha(work / "synth" / "trajectories.jsonl")
    assert filter_dir.report["input"] == synth_dir.stats["trajectories"]
    written = json.loads((work / "filter" / "filter_report.json").read_text(encoding="utf-8"))
    assert written["kept"] == filter_dir.report["kept"] and written["out"] == str(work / "filter")
    assert manifest(work / "filter", "filter")["inputs"]["trajectories"] == sha(work / "synth" / "trajectories.jsonl")


def test_bench_run_and_audit_run_as_a_library(filter_dir, work):
    ran = bench_run.run(bench_run.Config(agent="oracle", domain="law", out=str(work / "bench")))
    assert ran.report["pass_at_1"]["combined"] == 1.0 and ran.left_out_stale == 0
    assert json.loads((work / "bench" / "report.json").read_text(encoding="utf-8")) == ran.report
    audited = bench_audit.run(
        bench_audit.Config(train=str(work / "filter" / "trajectories.jsonl"), out=str(work / "audit"))
    )
    assert json.loads((work / "audit" / "audit.json").read_text(encoding="utf-8")) == audited.audit
    # the filter decontaminated the corpus against the shipped tasks: nothing it kept repeats one
    assert audited.audit["train"]["items"] == filter_dir.report["kept"]
    assert (audited.audit["verbatim"]["verbatim"], audited.audit["plans"]["shared"]) == (0, 0)
    assert manifest(work / "audit", "bench-audit")["inputs"]["train"] == sha(work / "filter" / "trajectories.jsonl")


def test_bench_build_proposes_candidates_as_a_library(tmp_path):
    built = bench_build.run(bench_build.Config(out=str(tmp_path / "tasks"), propose=True, seed=(0,), per_run=8))
    rows = (tmp_path / "tasks" / "tasks.jsonl").read_text(encoding="utf-8").splitlines()
    assert built.info["tasks"] == len(rows) > 0 and built.info["source"] == "proposed"
    assert manifest(tmp_path / "tasks", "bench-build")["seed"] == [0]


@pytest.mark.slow
def test_bench_build_makes_the_shipped_set_byte_for_byte(tmp_path):
    """The curated set on the full-size world (its task files name that world's entities), whatever world the
    environment names: the same bytes as the shipped task set."""
    from kopa_replay.bench.suite import BUILTIN_DIR

    built = bench_build.run(bench_build.Config(out=str(tmp_path / "tasks")))
    assert built.info["source"] == "curated" and built.info["world"] == "full"
    for name in ("tasks.jsonl", "plans.jsonl", "build.json"):
        assert (tmp_path / "tasks" / name).read_bytes() == (BUILTIN_DIR / name).read_bytes(), name
    assert manifest(tmp_path / "tasks", "bench-build")["inputs"]["curated"] == built.info["curated"]


def test_record_refresh_and_drift_run_as_a_library(tmp_path):
    store = str(tmp_path / "cassettes" / "kopa.sqlite")
    made = record.record(record.RecordConfig(snapshot="2026-09-01", store=store, bench=False))
    assert made.summary.calls > 100 and made.manifest_file == tmp_path / "snapshots" / "2026-09-01.json"
    assert json.loads(made.manifest_file.read_text(encoding="utf-8"))["digest"] == made.summary.manifest["digest"]
    again = record.refresh(record.RefreshConfig(base="2026-09-01", snapshot="2026-12-01", store=store, bench=False))
    assert again.summary.report.changes, "the simulator's timeline changes APIs between the two dates"
    compared = drift.run(drift.Config(snapshot="2026-09-01", store=store, out=str(tmp_path / "drift")))
    assert compared.compared == {"before": "2026-09-01", "after": "2026-12-01", "refreshed": False}
    listed = json.loads((tmp_path / "drift" / "drift.json").read_text(encoding="utf-8"))
    assert len(listed["changes"]) == len(again.summary.report.changes)


def test_recording_into_the_shipped_store_needs_it_named(monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)  # no ./cassettes/kopa.sqlite: the default store is the shipped one
    monkeypatch.delenv("KOPA_STORE", raising=False)
    with pytest.raises(UsageError, match="shipped store"):
        record.record(record.RecordConfig(snapshot="2026-09-02", bench=False))


def test_train_config_names_its_kind():
    with pytest.raises(UsageError, match="sft or grpo"):
        train.Config(kind="dpo")  # type: ignore[arg-type]


def test_a_failed_stage_leaves_the_previous_run_as_it_was(synth_dir, work, monkeypatch):
    before = {p.name: sha(p) for p in (work / "synth").iterdir() if p.is_file()}

    def broken(*args, **kwargs):
        Path(args[3], "trajectories.jsonl").write_text("half\n", encoding="utf-8")  # args: catalog, links, env, out
        raise KopaError("the source went away mid-run")

    monkeypatch.setattr("kopa_replay.synth.pipeline.run_synthesis", broken)  # the walk
    monkeypatch.setattr("kopa_replay.synth.pipeline.run_family_synthesis", broken)  # the families (the default)
    with pytest.raises(KopaError, match="went away"):
        synth.run(synth.Config(graph_dir=str(work / "graph"), out=str(work / "synth"), trajectories=12))
    assert {p.name: sha(p) for p in (work / "synth").iterdir() if p.is_file()} == before
    no_leftovers(work)


@pytest.mark.parametrize(
    "make",
    [
        lambda: graph_prune.Config(fault_rate=1.5),
        lambda: graph_prune.Config(iterations=0),
        lambda: synth.Config(fan_out_budget=1),
        lambda: bench_run.Config(agent="oracle", k=0),
        lambda: bench_run.Config(),
        lambda: bench_build.Config(),
        lambda: record.RecordConfig(),
        lambda: record.RecordConfig(snapshot="x", as_of="yesterday"),
        lambda: record.RefreshConfig(base="2026-09-01"),
    ],
)
def test_a_bad_config_is_refused_before_anything_runs(make):
    with pytest.raises(UsageError):
        make()


# -- the command line derives its options from the configs --------------------------------------------------------
def _command(path: str) -> click.Command:
    from kopa_replay.cli import cli

    command: click.Command = cli
    for part in path.split():
        command = command.commands[part]  # type: ignore[attr-defined]
    return command


STAGE_COMMANDS = [
    ("graph build", graph_build.Config),
    ("graph prune", graph_prune.Config),
    ("synth", synth.Config),
    ("filter", filter.Config),
    ("bench run", bench_run.Config),
    ("bench build", bench_build.Config),
    ("bench audit", bench_audit.Config),
    ("record", record.RecordConfig),
    ("refresh", record.RefreshConfig),
    ("train sft", train.Config),
    ("train grpo", train.Config),
]
#: options of a command that say how to print, not what the stage does
PRINTING = {"as_json", "fmt", "fail_on", "help"}


@pytest.mark.parametrize("path,config", STAGE_COMMANDS, ids=[p for p, _ in STAGE_COMMANDS])
def test_every_stage_option_comes_from_its_config_dataclass(path, config):
    options = {p.name: p for p in _command(path).params if isinstance(p, click.Option)}
    fields = {f.name: f for f in dataclasses.fields(config) if f.metadata.get("cli", True)}
    assert set(options) - PRINTING == set(fields), path
    for name, field in fields.items():
        option = options[name]
        assert option.help == field.metadata["help"], (path, name)
        assert option_name(field).split("/")[0] in option.opts, (path, name)
        if not field.metadata.get("required"):
            default = field.default
            assert option.default == default or (option.multiple and tuple(option.default or ()) == default), (
                path,
                name,
            )
        kind = typing.get_type_hints(config)[name]
        if typing.get_origin(kind) is typing.Literal:
            assert list(option.type.choices) == list(typing.get_args(kind))


def test_stage_defaults_are_the_library_defaults():
    from kopa_replay.filter.pipeline import FilterConfig
    from kopa_replay.graph.prune import PruneConfig
    from kopa_replay.synth.walk import SynthConfig

    assert graph_prune.Config().loop() == PruneConfig()
    assert synth.Config().walk() == SynthConfig()
    assert (filter.Config().reproduce, filter.Config().resolve) == (FilterConfig().reproduce, FilterConfig().resolve)


def test_the_filter_reports_progress_through_each_of_its_stages(synth_dir, work):
    heard: list[tuple[str, int, int | None]] = []
    result = filter.run(
        filter.Config(in_dir=str(synth_dir.out), out=str(work / "filter-progress")),
        progress=lambda what, done, total: heard.append((what, done, total)),
    )
    stages = result.report["stages"]
    for what, key in (("filter: rules", "rules"), ("filter: judges", "judges"), ("filter: re-solve", "resolve")):
        ticks = [(done, total) for w, done, total in heard if w == what]
        assert [done for done, _ in ticks] == list(range(stages[key]["in"])), what
        assert {total for _, total in ticks} <= {stages[key]["in"]}


def test_the_same_stage_in_two_projects_writes_the_same_bytes(tmp_path, monkeypatch):
    """Relative paths, no clock: a run directory and its manifest do not depend on where the project lies."""
    written = []
    for project in ("one", "two"):
        (tmp_path / project).mkdir()
        monkeypatch.chdir(tmp_path / project)
        graph_prune.run(graph_prune.Config(run_dir="runs/graph", iterations=3, paths=40))
        written.append({p.name: p.read_bytes() for p in sorted(Path("runs/graph").iterdir())})
    assert written[0] == written[1]
    assert set(written[0]) >= {"manifest-graph-prune.json", "graph.json", "prune.json", "scatter.png"}


def test_a_run_directory_that_is_a_file_is_named_and_left_alone(filter_dir, work, tmp_path):
    occupied = tmp_path / "audit"
    occupied.write_text("mine\n", encoding="utf-8")
    with pytest.raises(UsageError, match=f"{occupied} is a file"):
        bench_audit.run(bench_audit.Config(train=str(work / "filter" / "trajectories.jsonl"), out=str(occupied)))
    assert occupied.read_text(encoding="utf-8") == "mine\n"
    no_leftovers(tmp_path)
