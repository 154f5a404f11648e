"""kopa-replay graph build | prune | stats | show, and their user-mistake paths."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from kopa_replay.catalog import builtin_catalog
from kopa_replay.cli import cli

SMALL = ["--iterations", "2", "--paths", "30"]


@pytest.fixture
def run():
    runner = CliRunner()

    def _run(*args):
        return runner.invoke(cli, list(args), catch_exceptions=False)

    return _run


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    run_dir = tmp_path_factory.mktemp("graph") / "run"
    result = CliRunner().invoke(cli, ["graph", "build", "--run-dir", str(run_dir), "--json"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return run_dir, json.loads(result.output)


def test_build_writes_candidates_with_retrieval_limits(built):
    run_dir, counts = built
    assert (run_dir / "candidates.json").exists()
    # at most 15 same-domain + 10 cross-domain targets per tool of the built-in catalog
    assert 0 < counts["links"] <= len(builtin_catalog()) * 25 and 0 < counts["cross_domain"] < counts["links"]
    assert counts["retained"] == counts["links"]


def test_prune_json_report_has_the_issue_keys_and_writes_artifacts(run, built, tmp_path):
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    (run_dir / "candidates.json").write_bytes((built[0] / "candidates.json").read_bytes())
    result = run("graph", "prune", "--run-dir", str(run_dir), *SMALL, "--json")
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    for key in (
        "exec_rate_before",
        "exec_rate_after",
        "exec_rate_pruned",
        "never_succeeded_pruned",
        "never_succeeded_retained",
        "links_candidate",
        "links_pruned",
        "precision",
        "recall",
        "true_link_retention",
        "graph_digest",
    ):
        assert key in report
    assert report["links_candidate"] == built[1]["links"] and report["calls"] > 60
    for name in ("graph.json", "prune.json", "iterations.jsonl", "scatter.png", "curves.png"):
        assert (run_dir / name).exists(), name
    assert len((run_dir / "iterations.jsonl").read_text().splitlines()) == 2

    stats = run("graph", "stats", "--run-dir", str(run_dir), "--json")
    assert json.loads(stats.output)["graph_digest"] == report["graph_digest"]
    text = run("graph", "stats", "--run-dir", str(run_dir))
    assert "pruned" in text.output and text.exit_code == 0
    shown = run("graph", "show", "dart_corp_code", "--run-dir", str(run_dir), "--json")
    links = json.loads(shown.output)
    assert any(
        link["target"] == "dart_cvbd_is_decsn" and link["binding"] == {"corp_code": "corp_code"}
        for link in links["outgoing"]
    )
    assert "outgoing" in run("graph", "show", "dart_corp_code", "--run-dir", str(run_dir)).output


def test_prune_builds_the_candidates_when_missing_and_prints_a_summary(run, tmp_path):
    result = run("graph", "prune", "--run-dir", str(tmp_path / "fresh"), *SMALL, "--no-plots")
    assert result.exit_code == 0, result.output
    assert "execution rate" in result.output and "precision" in result.output
    assert (tmp_path / "fresh" / "candidates.json").exists() and not (tmp_path / "fresh" / "scatter.png").exists()


@pytest.mark.parametrize(
    "args, needle",
    [
        (["graph", "stats", "--run-dir", "{tmp}/nothing"], "graph build"),
        (["graph", "show", "no_such_tool", "--run-dir", "{built}"], "no_such_tool"),
        (["graph", "prune", "--run-dir", "{tmp}/x", "--threshold", "2"], "threshold"),
        (["graph", "prune", "--run-dir", "{tmp}/x", "--fault-rate", "1.5"], "fault-rate"),
        (["graph", "build", "--run-dir", "{tmp}/x", "--scorer", "llm"], "--llm-url"),
        (["graph", "build", "--run-dir", "{tmp}/x", "--embedder", "{tmp}/no-model"], "no-model"),
        (["graph", "build", "--run-dir", "{tmp}/x", "--same-domain", "-1"], "same_domain"),
    ],
)
def test_user_mistakes_are_one_error_line(run, built, tmp_path, args, needle, cli_error):
    args = [a.replace("{tmp}", str(tmp_path)).replace("{built}", str(built[0])) for a in args]
    assert needle in cli_error(run(*args))


def test_a_graph_built_from_another_catalog_is_refused(run, built, tmp_path, cli_error):
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    (run_dir / "candidates.json").write_bytes((built[0] / "candidates.json").read_bytes())
    before = (run_dir / "candidates.json").read_bytes()
    line = cli_error(run("graph", "prune", "--run-dir", str(run_dir), "--scale", "paper", *SMALL))
    assert "another catalog" in line
    assert (run_dir / "candidates.json").read_bytes() == before


def test_build_with_the_llm_scorer_records_and_rebuilds_offline(run, tmp_path):
    from kopa_replay.llm.fake import running_chat_server

    def answer(request):
        prompt = json.dumps(request, ensure_ascii=False)
        if prompt.count("corp_code") >= 2:
            return '```json\n{"feasibility": 0.9, "bindings": {"corp_code": "corp_code"}, "reason": "same code"}\n```'
        return '{"feasibility": 0.1, "bindings": {}, "reason": "nothing to hand over"}'

    args = [
        "graph",
        "build",
        "--run-dir",
        str(tmp_path / "run"),
        "--scorer",
        "llm",
        "--llm-model",
        "judge",
        "--same-domain",
        "2",
        "--cross-domain",
        "1",
        "--json",
    ]
    with running_chat_server(answer) as server:
        first = run(*args, "--llm-url", server.url)
        asked = server.requests
    assert first.exit_code == 0, first.output
    assert asked > 0
    built = (tmp_path / "run" / "candidates.json").read_bytes()
    assert json.loads(first.output)["links"] > 0 and b'"scorer": "llm:judge"' in built
    again = run(*args, "--llm-url", server.url)  # the server is gone: every answer comes from llm.sqlite
    assert again.exit_code == 0, again.output
    assert (tmp_path / "run" / "candidates.json").read_bytes() == built
