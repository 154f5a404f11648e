"""``kopa-replay pipeline run``: the README's first command, run as a user runs it (the console script, offline,
on the shipped snapshot), resumed, and run again elsewhere."""

from __future__ import annotations

import hashlib
import json

import pytest
from pipeline_project import STAGES, pipeline, said, shipped_digest

pytestmark = pytest.mark.slow


def test_the_first_run_runs_every_stage_and_writes_the_report(first):
    cwd, result = first
    out = cwd / "runs" / "pipeline"
    printed = json.loads(result.stdout)
    assert [s["name"] for s in printed["stages"]] == STAGES and not any(s["skipped"] for s in printed["stages"])
    assert said(result) == {name: "done" for name in STAGES}
    html = (out / "report.html").read_text(encoding="utf-8")
    assert "<img" in html and "data:image/png;base64," in html and "https://" not in html
    manifest = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["digest"] == printed["digest"]
    assert [s["name"] for s in manifest["stages"]] == STAGES
    # the pipeline's manifest lists each stage's key and outputs as the stage's own manifest has them
    for stage in manifest["stages"]:
        own = json.loads((out / stage["directory"] / f"manifest-{stage['stage']}.json").read_text(encoding="utf-8"))
        assert (own["key"], own["outputs"]) == (stage["key"], stage["outputs"]), stage["name"]
        for name, digest in own["outputs"].items():
            assert hashlib.sha256((out / stage["directory"] / name).read_bytes()).hexdigest() == digest
    oracle = json.loads((out / "bench" / "oracle" / "report.json").read_text(encoding="utf-8"))
    from kopa_replay.bench.suite import load_task_set

    assert oracle["pass_at_1"]["combined"] == 1.0 and oracle["n_tasks"] == len(load_task_set().tasks)


def test_a_second_run_with_nothing_changed_skips_every_stage_and_gives_the_same_manifest(first):
    cwd, result = first
    manifest = (cwd / "runs" / "pipeline" / "manifest.json").read_bytes()
    again = pipeline(cwd, "--json")
    assert again.returncode == 0, again.stderr
    assert said(again) == {name: "skipped" for name in STAGES}
    assert json.loads(again.stdout)["digest"] == json.loads(result.stdout)["digest"]
    assert (cwd / "runs" / "pipeline" / "manifest.json").read_bytes() == manifest


def test_a_stage_whose_output_was_damaged_runs_again_and_what_follows_it_is_skipped(first):
    cwd, result = first
    out = cwd / "runs" / "pipeline"
    (out / "filter" / "stats.md").write_text("edited by hand\n", encoding="utf-8")
    again = pipeline(cwd)
    assert again.returncode == 0, again.stderr
    events = said(again)
    # the filter runs again and writes the same corpus, so the audit's inputs are unchanged: it is skipped
    assert events["filter"] == "done" and events["synth"] == "skipped" and events["audit"] == "skipped"
    assert (out / "filter" / "stats.md").read_text(encoding="utf-8") != "edited by hand\n"
    assert (
        json.loads((out / "manifest.json").read_text(encoding="utf-8"))["digest"] == json.loads(result.stdout)["digest"]
    )


def test_a_bad_preset_or_snapshot_is_one_error_line(tmp_path):
    bad = pipeline(tmp_path, "--preset", "huge")
    assert bad.returncode == 2 and "huge" in bad.stderr
    missing = pipeline(tmp_path, "--snapshot", "2031-01-01")
    assert missing.returncode == 1 and missing.stderr.startswith("Error:") and "2031-01-01" in missing.stderr
    assert "Traceback" not in missing.stderr
    assert not (tmp_path / "runs").exists() or not any((tmp_path / "runs").rglob("manifest.json"))


def test_the_pipeline_never_writes_the_shipped_store(first, shipped_before):
    cwd, _ = first
    # the drift stage refreshed a copy of it inside its own directory
    assert (cwd / "runs" / "pipeline" / "drift" / "store.sqlite").exists()
    assert shipped_digest() == shipped_before
