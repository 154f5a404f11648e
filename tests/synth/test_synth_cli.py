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
    result = _run("graph", "prune", "--run-dir", str(run), "--iterations", "4", "--paths", "100", "--no-plots",
                  "--json")
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
    for key in ("multi_record_call_share", "one_to_many_share", "median_cardinality", "max_cardinality",
                "junctions", "output_digest"):
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
    assert "graph build" in cli_error(_run("synth", "--graph-dir", str(tmp_path / "none"), "--out", str(tmp_path / "o")))
    candidates_only = tmp_path / "cand"
    candidates_only.mkdir()
    (candidates_only / "graph.json").write_bytes((graph_dir / "candidates.json").read_bytes())
    assert "not a pruned graph" in cli_error(_run("synth", "--graph-dir", str(candidates_only), "--out",
                                                str(tmp_path / "o")))
    assert "--llm-url" in cli_error(_run("synth", "--graph-dir", str(graph_dir), "--out", str(tmp_path / "o"),
                                      "--writer", "llm"))
    assert "fan_out_budget" in cli_error(_run("synth", "--graph-dir", str(graph_dir), "--out", str(tmp_path / "o"),
                                           "--fan-out-budget", "1"))


def test_filter_needs_trajectories(tmp_path, cli_error):
    assert "kopa-replay synth" in cli_error(_run("filter", "--in", str(tmp_path / "nothing")))
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "trajectories.jsonl").write_text('{"id": "t1"}\n')
    assert "not a trajectories file" in cli_error(_run("filter", "--in", str(broken)))


def test_synth_keeps_excluded_platforms_out_of_every_trajectory(graph_dir, tmp_path, catalog, cli_error):
    held_out = ("dart", "krx", "seoul")
    options = [item for platform in held_out for item in ("--exclude-platform", platform)]
    result = _run("synth", "--graph-dir", str(graph_dir), "--out", str(tmp_path / "x"), "--trajectories", "8",
                  *options, "--json")
    assert result.exit_code == 0, result.output
    rows = [json.loads(line) for line in (tmp_path / "x" / "trajectories.jsonl").read_text().splitlines()]
    assert rows
    touched = {catalog.get(step["tool"]).platform for row in rows for step in row["steps"]}
    assert not touched & set(held_out)
    line = cli_error(_run("synth", "--graph-dir", str(graph_dir), "--out", str(tmp_path / "y"),
                          "--exclude-platform", "nasdaq"))
    assert "no platform nasdaq" in line
