"""Stage ``filter``: decontamination and three stages over synthesized trajectories (rules, two agreeing judges,
re-solve); every discard with a reason."""

from __future__ import annotations

import json
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from kopa_replay.filter.model import FilterConfig
from kopa_replay.stages.common import CatalogChoice, Decontamination, ExecSource, LLMServer
from kopa_replay.stages.options import as_dict, setting
from kopa_replay.stages.run_dir import atomic_run_dir, file_digest, write_manifest
from kopa_replay.stages.synth import OUTPUTS as DATASETS

__all__ = ["Config", "Result", "run", "inputs", "STAGE"]

STAGE = "filter"
_D = FilterConfig


@dataclass(frozen=True)
class Config(CatalogChoice, ExecSource, LLMServer, Decontamination):
    in_dir: str = setting("runs/synth", "A `synth` output directory (its trajectories.jsonl).", flag="--in", path="dir")
    out: str | None = setting(
        None, "Where the kept datasets and filter_report.json go [default: IN/filtered].", path="dir"
    )
    judges: Literal["deterministic", "llm"] = setting(
        "deterministic", "Stage 2's two judges: the offline pair, or the offline regex judge beside a model."
    )
    reproduce: bool = setting(
        _D.reproduce,
        "Stage 1 re-runs every plan and drops items whose state digest or answer differs (--no-reproduce skips it).",
    )
    resolve: bool = setting(
        _D.resolve,
        "Stage 3 re-solves every kept item reading all pages and replaces answers "
        "it judges worse (--no-resolve skips it).",
    )

    @property
    def out_dir(self) -> Path:
        return Path(self.out) if self.out else Path(self.in_dir) / "filtered"


@dataclass(frozen=True)
class Result:
    out: Path
    report: dict[str, Any]
    discarded: list[Any]
    manifest: dict[str, Any]

    def to_dict(self) -> dict[str, Any]:
        return self.report


def inputs(config: Config) -> dict[str, Any]:
    """The digests the kept corpus is a function of (with the config)."""
    from kopa_replay.synth.pipeline import SynthDir

    source = SynthDir(config.in_dir).trajectories
    return {
        "trajectories": file_digest(source) if source.exists() else None,
        "catalog": config.load_catalog().digest(),
        "snapshot": config.sealed_digest(),
        "bench_tasks": config.task_set_digest(),
    }


def run(config: Config, *, progress: Any = None) -> Result:
    """Filter ``IN/trajectories.jsonl`` into ``config.out_dir`` (atomically) with ``filter_report.json``."""
    from kopa_replay.filter import LLMJudge, default_judges, run_filter
    from kopa_replay.synth.pipeline import SynthDir, read_trajectories, write_datasets
    from kopa_replay.util import write_atomic

    catalog = config.load_catalog()
    source = SynthDir(config.in_dir).trajectories
    trajectories = read_trajectories(source)
    exclude = config.decontaminator()
    final = config.out_dir
    made_of = inputs(config)
    with atomic_run_dir(final, keep=("llm.sqlite",)) as work:
        with ExitStack() as stack:
            chosen = default_judges()
            if config.judges == "llm":
                chosen = (chosen[0], LLMJudge(config.chat_client(stack, work, "--judges")))
            env = config.open_env(stack, catalog)
            result = run_filter(
                trajectories,
                catalog,
                env,
                chosen,
                config=FilterConfig(reproduce=config.reproduce, resolve=config.resolve),
                exclude=exclude,
                progress=progress,
            )
        stats = write_datasets(work, result.kept, catalog)
        report = {
            **result.report,
            "output_digest": stats["output_digest"],
            "out": str(final),
            "discards": [d._asdict() for d in result.discarded],
            "replacements": [
                {"trajectory_id": r.trajectory_id, "old": r.old.value, "new": r.new.value, "reason": r.reason}
                for r in result.replaced
            ],
        }
        write_atomic(
            work / "filter_report.json",
            json.dumps(report, ensure_ascii=False, sort_keys=True, indent=2, default=str) + "\n",
        )
        manifest = write_manifest(
            work,
            STAGE,
            config=as_dict(config),
            inputs=made_of,
            outputs=[*DATASETS, "filter_report.json"],
            catalog=catalog.digest(),
            source=config.described(),
            output_digest=stats["output_digest"],
        )
    return Result(final, report, list(result.discarded), manifest)
