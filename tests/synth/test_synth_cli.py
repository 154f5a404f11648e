"""kopa-replay synth and filter: datasets and reports on disk, byte-identical reruns, clear errors."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from kopa_replay.cli import cli


def _run(*args):
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


@pytest.fixture(scope="module")
def graph_dir(tmp_path_factory):
    run = tmp_path_factory.mktemp("graph")
    result = _run(
        "graph", "prune", "--run-dir", str(run), "--iterations", "4", "--paths", "100", "--no-plots", "--json"
    )
    assert result.exit_code == 0, result.output
    return run


@pytest.mark.slow
def test_synth_then_filter_write_datasets_and_rerun_byte_identically(graph_dir, tmp_path):
    outs = []
    for name in ("a", "b"):
        out = tmp_path / name
        result = _run("synth", "--graph-dir", str(graph_dir), "--out", str(out), "--trajectories", "12", "--json")
        assert result.exit_code == 0, result.output
        outs.append((out, json.loads(result.output)))
    (a, stats), (b, again) = outs
    for key in (
        "multi_record_call_share",
        "one_to_many_share",
        "median_cardinality",
        "max_cardinality",
        "junctions",
        "output_digest",
    ):
        assert key in stats
    assert set(stats["junctions"]) == {"sequential", "fan_out", "derived"}
    for name in ("trajectories.jsonl", "sft.jsonl", "grpo.jsonl", "stats.json", "stats.md"):
        assert (a / name).read_bytes() == (b / name).read_bytes(), name
    assert stats["output_digest"] == again["output_digest"]
    rows = [json.loads(line) for line in (a / "trajectories.jsonl").read_text().splitlines()]
    assert len(rows) == 12 and all(row["question"] for row in rows)

    filtered = _run("filter", "--in", str(a), "--json")
    assert filtered.exit_code == 0, filtered.output
    report = json.loads(filtered.output)
    assert report["input"] == 12 and report["kept"] + report["discarded"] == 12
    assert all({"trajectory_id", "stage", "check", "detail"} <= set(d) for d in report["discards"])
    kept = (a / "filtered" / "trajectories.jsonl").read_text().splitlines()
    assert len(kept) == report["kept"] and (a / "filtered" / "filter_report.json").exists()
    assert "kept" in _run("filter", "--in", str(a), "--out", str(tmp_path / "f2")).output
    for name in ("trajectories.jsonl", "sft.jsonl", "grpo.jsonl"):  # the same input filters to the same bytes
        assert (a / "filtered" / name).read_bytes() == (tmp_path / "f2" / name).read_bytes(), name


def test_synth_needs_a_pruned_graph(graph_dir, tmp_path, cli_error):
    assert "graph prune" in cli_error(
        _run("synth", "--graph-dir", str(tmp_path / "none"), "--out", str(tmp_path / "o"))
    )
    candidates_only = tmp_path / "cand"
    candidates_only.mkdir()
    (candidates_only / "graph.json").write_bytes((graph_dir / "candidates.json").read_bytes())
    assert "not a pruned graph" in cli_error(
        _run("synth", "--graph-dir", str(candidates_only), "--out", str(tmp_path / "o"))
    )
    assert "--llm-url" in cli_error(
        _run("synth", "--graph-dir", str(graph_dir), "--out", str(tmp_path / "o"), "--writer", "llm")
    )
    assert "fan_out_budget" in cli_error(
        _run(
            "synth",
            "--graph-dir",
            str(graph_dir),
            "--out",
            str(tmp_path / "o"),
            "--generator",
            "walk",
            "--fan-out-budget",
            "1",
        )  # fmt: skip
    )


def test_synth_after_graph_build_alone_asks_for_the_prune_not_the_build(tmp_path, cli_error):
    built = tmp_path / "built"
    assert _run("graph", "build", "--run-dir", str(built)).exit_code == 0
    said = cli_error(_run("synth", "--graph-dir", str(built), "--out", str(tmp_path / "o")))
    assert "graph prune" in said and "graph build" not in said


def test_filter_needs_trajectories(tmp_path, cli_error):
    assert "kopa-replay synth" in cli_error(_run("filter", "--in", str(tmp_path / "nothing")))
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "trajectories.jsonl").write_text('{"id": "t1"}\n')
    assert "not a trajectories file" in cli_error(_run("filter", "--in", str(broken)))


def test_synth_keeps_excluded_platforms_out_of_every_trajectory(graph_dir, tmp_path, catalog, cli_error):
    held_out = ("dart", "krx", "seoul")
    options = [item for platform in held_out for item in ("--exclude-platform", platform)]
    result = _run(
        "synth", "--graph-dir", str(graph_dir), "--out", str(tmp_path / "x"), "--trajectories", "8", *options, "--json"
    )
    assert result.exit_code == 0, result.output
    rows = [json.loads(line) for line in (tmp_path / "x" / "trajectories.jsonl").read_text().splitlines()]
    assert rows
    touched = {catalog.get(step["tool"]).platform for row in rows for step in row["steps"]}
    assert not touched & set(held_out)
    line = cli_error(
        _run("synth", "--graph-dir", str(graph_dir), "--out", str(tmp_path / "y"), "--exclude-platform", "nasdaq")
    )
    assert "no platform nasdaq" in line


# -- decontamination: synth and filter keep benchmark tasks out ------------------------------------
def _rows(path):
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def _audit(train, tasks_dir=None):
    """(verbatim, near-verbatim, shared plans) of ``bench audit`` on a trajectories file."""
    tasks = ["--tasks", str(tasks_dir)] if tasks_dir else []
    result = _run("bench", "audit", "--train", str(train), "--json", *tasks)
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    return report["verbatim"]["verbatim"], report["verbatim"]["near_verbatim"], report["plans"]["shared"]


@pytest.mark.slow
def test_synth_and_filter_decontaminate_and_the_audit_finds_nothing(graph_dir, tmp_path, catalog):
    from kopa_replay.bench.suite import save_task_set
    from kopa_replay.bench.tasks import task_from_trajectory
    from kopa_replay.synth.model import Trajectory

    synth = ("synth", "--graph-dir", str(graph_dir), "--trajectories", "10", "--json")
    # --no-decontaminate keeps whatever the walk makes; three of its items become a task set
    raw = tmp_path / "raw"
    stats = json.loads(_run(*synth, "--out", str(raw), "--no-decontaminate").output)
    assert stats["decontaminated"] is None and stats["trajectories"] == 10
    plans = [Trajectory.from_dict(row) for row in _rows(raw / "trajectories.jsonl")[:3]]
    tasks_dir = save_task_set(tmp_path / "tasks", [task_from_trajectory(t, catalog) for t in plans], plans, {})
    verbatim, near, shared = _audit(raw / "trajectories.jsonl", tasks_dir)
    assert verbatim == 3 and shared == 3

    # against that set: the first walk repeats a task and is dropped (the walk then goes another way),
    # and ten clean items still come out
    clean = tmp_path / "clean"
    stats = json.loads(_run(*synth, "--out", str(clean), "--bench-tasks", str(tasks_dir)).output)
    assert stats["trajectories"] == 10 and stats["decontaminated"] >= 1
    on_disk = json.loads((clean / "stats.json").read_text())
    assert on_disk["decontaminated"] == stats["decontaminated"] == len(on_disk["decontaminated_items"])
    assert on_disk["decontaminated_items"][0]["reason"] == f"verbatim question of benchmark task {plans[0].id}"
    assert _audit(clean / "trajectories.jsonl", tasks_dir) == (0, 0, 0)

    # by default against the shipped task set, said in the summary line
    shipped = tmp_path / "shipped"
    result = _run(*synth[:-1], "--out", str(shipped))
    assert result.exit_code == 0, result.output
    assert " decontaminated -> " in result.output.splitlines()[-1]
    assert _audit(shipped / "trajectories.jsonl") == (0, 0, 0)

    # filter: a stage of its own in filter_report.json, the count in the summary line
    result = _run("filter", "--in", str(raw), "--bench-tasks", str(tasks_dir), "--no-reproduce", "--no-resolve")
    assert result.exit_code == 0, result.output
    report = json.loads((raw / "filtered" / "filter_report.json").read_text())
    assert f"discarded {report['discarded']} ({report['decontaminated']} decontaminated)" in result.output
    stage = report["stages"]["decontaminate"]
    assert stage["applied"] and stage["discarded"] == report["decontaminated"] >= 3
    assert (
        {d["trajectory_id"] for d in report["discards"] if d["stage"] == "decontaminate"}
        == {item["id"] for item in stage["items"]}
        >= {t.id for t in plans}
    )
    assert _audit(raw / "filtered" / "trajectories.jsonl", tasks_dir) == (0, 0, 0)
    off = _run(
        "filter",
        "--in",
        str(raw),
        "--out",
        str(tmp_path / "f-off"),
        "--no-decontaminate",
        "--no-reproduce",
        "--no-resolve",
        "--json",
    )
    assert json.loads(off.output)["decontaminated"] is None


def test_decontamination_needs_a_task_set(graph_dir, tmp_path, cli_error):
    missing = tmp_path / "no-such-tasks"
    line = cli_error(
        _run("synth", "--graph-dir", str(graph_dir), "--out", str(tmp_path / "o"), "--bench-tasks", str(missing))
    )
    assert line == f"Error: no task set directory {missing}"
    assert not (tmp_path / "o").exists()  # nothing ran
    line = cli_error(
        _run(
            "synth",
            "--graph-dir",
            str(graph_dir),
            "--out",
            str(tmp_path / "o"),
            "--bench-tasks",
            str(missing),
            "--no-decontaminate",
        )
    )
    assert "--bench-tasks" in line and "--no-decontaminate" in line
    synthesized = tmp_path / "in"
    synthesized.mkdir()
    (synthesized / "trajectories.jsonl").write_text("")
    assert (
        cli_error(_run("filter", "--in", str(synthesized), "--bench-tasks", str(missing)))
        == f"Error: no task set directory {missing}"
    )
    empty = tmp_path / "empty-tasks"
    empty.mkdir()
    assert "no task file" in cli_error(_run("filter", "--in", str(synthesized), "--bench-tasks", str(empty)))
