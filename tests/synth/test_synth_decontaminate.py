"""Synthesis keeps benchmark tasks out: the ``exclude`` hook of the walk and of run_synthesis."""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest

from kopa_replay.graph import Link
from kopa_replay.synth import SynthConfig, synthesize_report
from kopa_replay.synth.pipeline import run_synthesis
from kopa_replay.synth.questions import TemplateWriter

CONFIG = SynthConfig(trajectories=6, seed=0, distinct_tool_sets=False)


@pytest.fixture(scope="module")
def links(hand_link_specs):
    return [Link(source, target, dict(binding), 0.9) for source, target, binding in hand_link_specs]


@pytest.fixture(scope="module")
def baseline(catalog, links):
    """Six trajectories over the hand links, nothing excluded."""
    from kopa_replay.env import ToolEnvironment

    with ToolEnvironment.open(catalog, source="sim") as env:
        return synthesize_report(catalog, links, env, CONFIG, TemplateWriter())


def test_an_excluded_candidate_is_dropped_and_the_walk_goes_on(catalog, links, baseline, sim_env):
    banned = {t.question for t in baseline.trajectories[:2]}
    seen = []

    def exclude(trajectory):
        seen.append(trajectory.id)
        assert trajectory.question  # the hook sees the question written
        return "banned question" if trajectory.question in banned else None

    result = synthesize_report(catalog, links, sim_env, CONFIG, TemplateWriter(), exclude=exclude)
    assert len(result.trajectories) == CONFIG.trajectories  # still the requested number
    assert not banned & {t.question for t in result.trajectories}
    assert result.skipped["excluded"] >= 1
    assert len(seen) == len(result.trajectories) + result.skipped["excluded"]
    assert [t.id for t in result.trajectories] == [f"t{i:04d}" for i in range(1, 7)]  # ids stay consecutive


def test_without_a_hook_nothing_changes(catalog, links, baseline, sim_env):
    again = synthesize_report(catalog, links, sim_env, CONFIG, TemplateWriter(), exclude=lambda t: None)
    assert [t.to_dict() for t in again.trajectories] == [t.to_dict() for t in baseline.trajectories]
    assert "excluded" not in again.skipped


def test_run_synthesis_decontaminates_against_a_task_set_and_reports_each_drop(
    catalog, links, baseline, sim_env, tmp_path
):
    from kopa_replay.bench.audit import audit, items_from_trajectories
    from kopa_replay.bench.contamination import Decontaminator
    from kopa_replay.bench.tasks import task_from_trajectory

    tasks = [task_from_trajectory(t, catalog) for t in baseline.trajectories[:2]]
    matcher = Decontaminator(tasks, name="two tasks")
    stats = run_synthesis(catalog, links, sim_env, tmp_path, CONFIG, TemplateWriter(), exclude=matcher)
    assert stats["trajectories"] == CONFIG.trajectories
    assert stats["decontaminated"] == stats["skipped"]["excluded"] >= 1
    on_disk = json.loads((tmp_path / "stats.json").read_text())
    assert on_disk["decontaminated"] == stats["decontaminated"] and on_disk["decontaminated_against"] == "two tasks"
    items = on_disk["decontaminated_items"]
    assert len(items) == stats["decontaminated"] and all({"candidate", "question", "reason"} == set(i) for i in items)
    assert items[0] == {
        "candidate": 1,
        "question": tasks[0].question_ko,
        "reason": f"verbatim question of benchmark task {tasks[0].id}",
    }
    rows = [json.loads(line) for line in (tmp_path / "trajectories.jsonl").read_text().splitlines()]
    assert len(rows) == CONFIG.trajectories
    # every finished candidate is kept or dropped, and each drop says which one it was
    candidates = [i["candidate"] for i in items]
    assert candidates == sorted(set(candidates)) and candidates[-1] <= len(rows) + len(items)
    report = audit(
        items_from_trajectories(rows), items_from_trajectories([t.to_dict() for t in baseline.trajectories[:2]])
    )
    assert (report["verbatim"]["verbatim"], report["verbatim"]["near_verbatim"], report["plans"]["shared"]) == (0, 0, 0)


def test_without_a_hook_stats_say_decontamination_was_off(catalog, links, sim_env, tmp_path):
    stats = run_synthesis(catalog, links, sim_env, tmp_path, SynthConfig(trajectories=2, seed=0), TemplateWriter())
    assert stats["decontaminated"] is None and stats["decontaminated_items"] == []
    assert json.loads((tmp_path / "stats.json").read_text())["decontaminated"] is None


def test_synthesis_and_filtering_never_import_the_benchmark():
    root = Path(__file__).resolve().parents[2] / "kopa_replay"
    for package in ("synth", "filter"):
        for path in sorted((root / package).glob("*.py")):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                names = (
                    [a.name for a in node.names]
                    if isinstance(node, ast.Import)
                    else [node.module or ""]
                    if isinstance(node, ast.ImportFrom)
                    else []
                )
                assert not any(n.startswith("kopa_replay.bench") for n in names), f"{path} imports {names}"
