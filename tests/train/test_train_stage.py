"""``kopa_replay.stages.train``: one SFT step of the tiny model from Python, no command line."""

from __future__ import annotations

import json
from pathlib import Path

from kopa_replay.stages import train

CONFIGS = Path(__file__).resolve().parents[2] / "training" / "configs"


def test_an_sft_step_runs_from_python_and_leaves_its_run_record(tiny_model, corpus, tmp_path):
    out = tmp_path / "sft"
    result = train.run(
        train.Config(
            kind="sft",
            config=str(CONFIGS / "tiny_sft.yaml"),
            overrides=(f"model={tiny_model}", f"data={corpus}", f"output_dir={out}"),
        )
    )
    assert result.output_dir == out and result.run["steps"] == 1 and result.run["kind"] == "sft"
    assert json.loads((out / "run.json").read_text(encoding="utf-8"))["data"] == result.run["data"]
