"""`kopa-replay bench run|report|audit|build` through click, on the shipped snapshot and task set."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from kopa_replay.bench.build import LIGHTRON_ID
from kopa_replay.cli import cli
from kopa_replay.llm.fake import running_chat_server, tool_call

LAW, TRAFFIC = "kopa-law-family-articles-1", "kopa-traffic-seoul-longest-1"
FEW = ["--task", LIGHTRON_ID, "--task", LAW, "--task", TRAFFIC]


def run(*args):
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


def test_bench_run_json_has_the_report_keys_and_is_repeatable(tmp_path, no_network):
    first = run("bench", "run", "--agent", "oracle", "--rollouts", "2", "--out", str(tmp_path / "a"), "--json", *FEW)
    assert first.exit_code == 0, first.output
    data = json.loads(first.output)
    assert data["pass_at_1"]["combined"] == 1.0 and data["pass_at_k"]["combined"] == 1.0 and data["k"] == 2
    assert [row["id"] for row in data["tasks"]] == sorted([LIGHTRON_ID, LAW, TRAFFIC])
    for row in data["tasks"]:
        for rollout in row["rollouts"]:
            assert {axis: rollout[axis]["passed"] for axis in ("response", "action", "environment")} == {
                "response": True,
                "action": True,
                "environment": True,
            }
    second = run("bench", "run", "--agent", "oracle", "--rollouts", "2", "--out", str(tmp_path / "b"), "--json", *FEW)
    assert second.output == first.output
    for name in ("rollouts.jsonl", "report.json", "report.md"):
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes()
    assert no_network == []


def test_bench_report_regrades_a_run_and_names_the_failing_axis(tmp_path):
    out = tmp_path / "skip"
    result = run("bench", "run", "--agent", "skip-lookup", "--out", str(out), *FEW)
    assert result.exit_code == 0 and "pass@1 0.000" in result.output, result.output
    markdown = run("bench", "report", str(out))
    assert markdown.exit_code == 0
    assert "# KOPA-Bench grading report" in markdown.output
    assert (
        f"| {LIGHTRON_ID} | skip-lookup | 0 | action | no call to dart_corp_code(corp_name=라이트론): "
        "the code lookup was skipped" in markdown.output
    )
    as_json = json.loads(run("bench", "report", str(out), "--format", "json").output)
    assert as_json == json.loads((out / "report.json").read_text(encoding="utf-8"))


def test_bench_audit_of_the_plans_against_themselves_is_total_overlap(tmp_path):
    from kopa_replay.bench.suite import BUILTIN_DIR

    result = run("bench", "audit", "--train", str(BUILTIN_DIR / "plans.jsonl"), "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    from kopa_replay.bench.suite import load_task_set

    assert data["verbatim"]["verbatim_ratio"] == 1.0 and data["bench"]["items"] == len(load_task_set().tasks)
    assert data["tools"]["overlap"] == 1.0 and data["links"]["jaccard"] == 1.0
    text = run("bench", "audit", "--train", str(BUILTIN_DIR / "plans.jsonl"))
    assert text.exit_code == 0 and text.output.startswith("#")


def test_openai_agent_solves_the_lightron_task_over_a_real_server(tmp_path):
    """A scripted model behind a real HTTP chat server: lookup, decision, prior close, then the answer."""

    def model(request):
        messages = request["messages"]
        tools = [m for m in messages if m["role"] == "tool"]
        if not tools:
            return {
                "role": "assistant",
                "content": None,
                "tool_calls": [tool_call("dart_corp_code", {"corp_name": "라이트론"})],
            }
        if len(tools) == 1:
            corp = json.loads(tools[0]["content"])["records"][0]
            return {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    tool_call(
                        "dart_cvbd_is_decsn",
                        {"corp_code": corp["corp_code"], "bgn_de": "20260101", "end_de": "20260131"},
                        "call_1",
                    ),
                    tool_call(
                        "datagokr_get_stock_price_info",
                        {"srtnCd": corp["stock_code"], "basDt": "20260831", "numOfRows": 1000},
                        "call_2",
                    ),
                ],
            }
        floor = int(json.loads(tools[1]["content"])["records"][0]["act_mktprcfl_cvprc_lwtrsprc"])
        close = int(json.loads(tools[2]["content"])["records"][0]["clpr"])
        return f"종가가 최저 조정가액보다 {(close - floor) / floor * 100:.2f}% 높습니다."

    with running_chat_server(model) as server:
        result = run(
            "bench",
            "run",
            "--agent",
            "openai",
            "--llm-url",
            server.url,
            "--llm-model",
            "scripted",
            "--task",
            LIGHTRON_ID,
            "--out",
            str(tmp_path / "llm"),
            "--json",
        )
    assert result.exit_code == 0, result.output
    rollout = json.loads(result.output)["tasks"][0]["rollouts"][0]
    assert rollout["passed"], rollout
    (saved,) = [json.loads(line) for line in (tmp_path / "llm" / "rollouts.jsonl").read_text().splitlines()]
    assert saved["final_answer"].endswith("215.79% 높습니다.")
    assert [call[0] for call in saved["calls"]] == [
        "dart_corp_code",
        "dart_cvbd_is_decsn",
        "datagokr_get_stock_price_info",
    ]
    # the model's answers were recorded beside the run: a rerun needs no server
    again = run(
        "bench",
        "run",
        "--agent",
        "openai",
        "--llm-url",
        server.url,
        "--llm-model",
        "scripted",
        "--task",
        LIGHTRON_ID,
        "--out",
        str(tmp_path / "llm"),
        "--json",
    )
    assert again.exit_code == 0 and again.output == result.output


@pytest.mark.parametrize(
    "args, message",
    [
        (["run", "--agent", "oracle", "--task", "nope"], "no task nope in the shipped task set"),
        (["run", "--agent", "oracle", "--rollouts", "0"], "--rollouts must be at least 1"),
        (["run", "--agent", "openai"], "needs --llm-url and --llm-model"),
        (["run", "--agent", "transformers"], "needs --model-path"),
        (["run", "--agent", "oracle", "--snapshot", "1999-01-01", "--task", LIGHTRON_ID], "1999-01-01"),
        (["report", "RUN"], "no rollouts at"),
        (["audit", "--train", "ABSENT.jsonl"], "no training file"),
        (["run", "--agent", "oracle", "--tasks", "NOWHERE"], "no task set directory"),
    ],
)
def test_bench_errors_are_one_clean_line(tmp_path, monkeypatch, cli_error, args, message):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("KOPA_LLM_URL", raising=False)
    monkeypatch.delenv("KOPA_LLM_MODEL", raising=False)
    line = cli_error(CliRunner().invoke(cli, ["bench", *args]))
    assert message in line


def test_a_rollouts_file_that_is_not_one_is_named(tmp_path, cli_error):
    (tmp_path / "rollouts.jsonl").write_text('{"task_id": 1}\n', encoding="utf-8")
    line = cli_error(CliRunner().invoke(cli, ["bench", "report", str(tmp_path)]))
    assert "rollouts.jsonl: not a rollouts file" in line


@pytest.mark.slow
def test_record_takes_the_benchmark_calls_along_unless_told_not_to(tmp_path, cli_error):
    # each store in its own folder: a sealed snapshot's manifest is written beside its store
    # the suite's simulator is the small world (KOPA_WORLD_SIZE=default) and the shipped tasks are the full
    # world's: a plain record takes their calls along only on the tasks' world, --bench on any
    with_bench, without = tmp_path / "with" / "kopa.sqlite", tmp_path / "without" / "kopa.sqlite"
    plain = tmp_path / "plain" / "kopa.sqlite"
    counts = {}
    for store, extra in ((with_bench, ["--bench"]), (without, ["--no-bench"]), (plain, [])):
        result = run("record", "--snapshot", "s1", "--as-of", "2026-09-01", "--store", str(store), "--json", *extra)
        assert result.exit_code == 0, result.output
        counts[store] = json.loads(result.output)["calls"]
    assert counts[with_bench] > counts[without] == counts[plain]
    ok = run(
        "bench",
        "run",
        "--agent",
        "first-page",
        "--snapshot",
        "s1",
        "--store",
        str(with_bench),
        "--out",
        str(tmp_path / "fp"),
        "--json",
        *FEW,
    )
    assert ok.exit_code == 0, ok.output
    assert json.loads(ok.output)["n_tasks"] == 3
    line = cli_error(
        CliRunner().invoke(
            cli,
            [
                "bench",
                "run",
                "--agent",
                "oracle",
                "--snapshot",
                "s1",
                "--store",
                str(without),
                "--out",
                str(tmp_path / "o"),
                *FEW,
            ],
        )
    )
    assert "was not recorded in snapshot 's1'" in line


def test_bench_stats_prints_the_shape_and_the_failure_modes_of_the_shipped_set(tmp_path):
    from kopa_replay.bench.suite import load_task_set

    info = load_task_set().build
    text = run("bench", "stats")
    assert text.exit_code == 0, text.output
    lines = text.output.splitlines()
    assert lines[0].startswith(f"{info['tasks']} tasks (curated): calls mean {info['calls_mean']}")
    assert f"parallel calls in {info['parallel']} (" in lines[1]
    assert any(line.startswith("by domain: ") and "law" in line for line in lines)
    assert any(line.startswith("by split: ") and "held out by platform: dart" in line for line in lines)
    broken = info["answer_broken_by"]
    assert lines[-1] == (
        f"answers wrong when the code lookup is skipped: {broken['skip_lookup']}; "
        f"when only first pages are read: {broken['first_page']}"
    )
    assert json.loads(run("bench", "stats", "--json").output) == info
    (tmp_path / "tasks.jsonl").write_text("", encoding="utf-8")
    missing = CliRunner().invoke(cli, ["bench", "stats", "--tasks", str(tmp_path)])
    assert missing.exit_code != 0 and "has no build.json summary" in missing.output


def test_an_agent_behind_the_platforms_bot_wall_is_graded_fairly(tmp_path, no_network):
    """The oracle on the simulator while law.go.kr walls off scripts: every law call is blocked. The grade fails on
    the calls it could not make count, and says — per rollout and in the report — that the platform did it."""
    task = "kopa-law-abbrev-versions-1"
    common = ("bench", "run", "--agent", "oracle", "--task", task, "--out", str(tmp_path / "out"))
    walled = run(*common, "--source", "sim", "--incidents", "bot_wall=1@www.law.go.kr", "--format", "json")
    assert walled.exit_code == 0, walled.output
    data = json.loads(walled.output)
    (rollout,) = data["tasks"][0]["rollouts"]
    assert not rollout["passed"] and rollout["incidents"] > 0
    assert data["incidents"] == {"rollouts": 1, "failed": 1}
    assert "the platform's (an incident: blocked or failed environmentally)" in rollout["environment"]["reason"]
    clean = json.loads(run(*common, "--source", "sim", "--format", "json").output)
    assert clean["tasks"][0]["rollouts"][0]["passed"] and "incidents" not in clean
    refused = run(*common, "--incidents", "bot_wall=1")  # the pinned snapshot injects nothing
    assert refused.exit_code == 1 and "--incidents are injected by the simulator" in refused.output
