"""Stage ``bench audit``: contamination between training data and the benchmark — questions, tools, links,
consecutive calls, plans."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kopa_replay.errors import UsageError
from kopa_replay.stages.bench_run import TASKS_HELP, select_tasks
from kopa_replay.stages.common import task_set_digest
from kopa_replay.stages.options import as_dict, setting
from kopa_replay.stages.run_dir import atomic_run_dir, file_digest, write_manifest

__all__ = ["Config", "Result", "run", "inputs", "STAGE"]

STAGE = "bench-audit"


@dataclass(frozen=True)
class Config:
    train: str | None = setting(
        None,
        "The training data: trajectories.jsonl (exact links) or sft.jsonl (links inferred) of `synth`.",
        path="file",
        required=True,
    )
    tasks: str | None = setting(None, TASKS_HELP, path="dir")
    near: float = setting(0.8, "Question 3-gram Jaccard at or above which a pair counts as near-verbatim.")
    out: str | None = setting(None, "Also write audit.json and audit.md into this directory.", path="dir")


@dataclass(frozen=True)
class Result:
    audit: dict[str, Any]
    markdown: str
    out: Path | None
    manifest: dict[str, Any] | None

    def to_dict(self) -> dict[str, Any]:
        return self.audit


def inputs(config: Config) -> dict[str, Any]:
    """The digests the audit is a function of (with the config)."""
    train = Path(config.train or "")
    return {"train": file_digest(train) if train.is_file() else None, "tasks": task_set_digest(config.tasks)}


def run(config: Config) -> Result:
    from kopa_replay.bench.audit import audit, items_from_sft_rows, items_from_trajectories, markdown
    from kopa_replay.synth.export import read_jsonl
    from kopa_replay.util import write_atomic

    if not config.train:
        raise UsageError("bench audit needs --train: the training data to audit")
    path = Path(config.train)
    if not path.exists():
        raise UsageError(f"no training file {path}")
    try:
        rows = read_jsonl(path)
    except ValueError as exc:
        raise UsageError(f"{path}: not JSONL ({exc})") from None
    if not rows:
        raise UsageError(f"{path} holds no row")
    train = items_from_trajectories(rows) if "steps" in rows[0] else items_from_sft_rows(rows)
    task_set, _ = select_tasks(config.tasks, stale=True)  # contamination is checked against every task, stale or not
    if len(task_set.plans) != len(task_set.tasks):
        raise UsageError(f"{task_set.source} has no plan for every task (plans.jsonl): the audit needs the links")
    bench_items = items_from_trajectories([task_set.plans[t.id].to_dict() for t in task_set.tasks])
    result = audit(train, bench_items, near=config.near)
    text = markdown(result)
    if not config.out:
        return Result(result, text, None, None)
    final = Path(config.out)
    with atomic_run_dir(final) as work:
        write_atomic(work / "audit.json", json.dumps(result, ensure_ascii=False, indent=2, sort_keys=True) + "\n")
        write_atomic(work / "audit.md", text)
        manifest = write_manifest(work, STAGE, config=as_dict(config), inputs=inputs(config))
    return Result(result, text, final, manifest)
