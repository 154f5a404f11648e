"""``train eval``: the benchmark for a trained checkpoint beside its base model, pass@1 and pass@k per split.

Each model runs as ``bench run --agent transformers`` runs it (the same
:class:`~kopa_replay.bench.chat_agent.ChatAgent` loop, retrieval, tool
messages, grader and report) against the pinned snapshot, asked the way it was
trained: the run's system prompt and the tool schemas of
:func:`~kopa_replay.train.tools.tool_schemas`. A served model (vLLM's
OpenAI-compatible server) can stand in for the checkpoint (``llm_url``).
With k > 1 rollouts the models sample at ``temperature`` from one seeded
stream (the paper: pass@1 is the mean over four rollouts, pass@4 the share
of tasks solved at least once).

A run directory (``kopa-replay train sft|grpo`` output) resolves to its
``final/`` model, its base model (``config.json``'s ``model``) and its system
prompt. The result is ``eval.json`` (both reports and the table) and
``eval.md`` (the table) in ``out``; the rollouts of each model go to
``out/<label>/rollouts.jsonl``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kopa_replay.errors import UsageError

__all__ = ["EvalSpec", "evaluate", "resolve_checkpoint", "table_markdown"]


@dataclass(frozen=True)
class EvalSpec:
    """How the benchmark is run for each model."""

    snapshot: str = "2026-09-01"
    store: str | None = None
    k: int = 4
    temperature: float = 0.7
    seed: int = 0
    #: tools offered per task; None: the run's ``top_k``, else 16
    top_k: int | None = None
    max_turns: int = 16
    max_new_tokens: int = 1024
    split: str | None = None
    tasks: str | None = None
    task_ids: tuple[str, ...] = ()
    #: the catalog (``builtin`` or ``paper``); None: the run's, else builtin
    scale: str | None = None

    def __post_init__(self) -> None:
        if self.k < 1:
            raise UsageError(f"rollouts must be at least 1, not {self.k}")


def resolve_checkpoint(path: str | Path) -> tuple[str, dict[str, Any]]:
    """``(model path, the run's config)`` for a run directory, ``(path, {})`` for a plain checkpoint directory."""
    root = Path(path)
    if not root.exists():
        raise UsageError(f"no checkpoint {root}")
    config_file = root / "config.json"
    if (root / "run.json").exists() and config_file.exists():
        config = json.loads(config_file.read_text(encoding="utf-8"))
        final = root / "final"
        if not final.is_dir():
            raise UsageError(f"run {root} saved no model (trainer.save_final was false): nothing to evaluate")
        return str(final), config
    if not (root / "config.json").exists():
        raise UsageError(
            f"{root} is neither a run directory of `train sft|grpo` (run.json, config.json and final/) "
            "nor a model directory (config.json and weights)"
        )
    return str(root), {}


def _check_available(name: str) -> None:
    """``name`` is a directory, or a hub id whose config is in the local cache (nothing is downloaded)."""
    if Path(name).exists():
        return
    from huggingface_hub import try_to_load_from_cache

    cached = try_to_load_from_cache(name, "config.json") if name.count("/") == 1 else None
    if not isinstance(cached, str):
        raise UsageError(
            f"cannot load model {name!r}: not a directory, nor a model in the local Hugging Face cache "
            f"(download it once online: hf download {name})"
        )


def _split_table(report: Mapping[str, Any]) -> dict[str, dict[str, float]]:
    rows = {
        "all": {
            "tasks": report["n_tasks"],
            "pass_at_1": report["pass_at_1"]["combined"],
            "pass_at_k": report["pass_at_k"]["combined"],
        }
    }
    for split, scores in report["by_split"].items():
        rows[split] = {
            "tasks": scores["tasks"],
            "pass_at_1": scores["pass_at_1"]["combined"],
            "pass_at_k": scores["pass_at_k"]["combined"],
        }
    return rows


def table_markdown(table: Mapping[str, Mapping[str, Mapping[str, float]]], k: int) -> str:
    """``| split | model | tasks | pass@1 | pass@k |`` rows, splits in order, each model beside the others."""
    lines = [f"| split | model | tasks | pass@1 | pass@k (k={k}) |", "|---|---|---:|---:|---:|"]
    splits = sorted({split for rows in table.values() for split in rows}, key=lambda s: (s != "all", s))
    for split in splits:
        for label, rows in table.items():
            if split in rows:
                row = rows[split]
                lines.append(
                    f"| {split} | {label} | {row['tasks']} | {row['pass_at_1']:.4f} | {row['pass_at_k']:.4f} |"
                )
    return "\n".join(lines) + "\n"


def evaluate(
    checkpoint: str | Path | None,
    out: str | Path,
    spec: EvalSpec = EvalSpec(),
    *,
    base: str | None = None,
    no_base: bool = False,
    llm_url: str | None = None,
    llm_model: str | None = None,
    system_prompt: str | None = None,
) -> dict[str, Any]:
    """Run the benchmark for the checkpoint (or the served model) and its base; write and return the table."""
    from contextlib import ExitStack

    from kopa_replay.bench.chat_agent import SYSTEM_PROMPT as AGENT_PROMPT
    from kopa_replay.bench.chat_agent import openai_agent, transformers_agent
    from kopa_replay.bench.report import report_json
    from kopa_replay.bench.suite import load_task_set, run_benchmark
    from kopa_replay.catalog import builtin_catalog
    from kopa_replay.env import ToolEnvironment, open_source
    from kopa_replay.synth.export import write_jsonl
    from kopa_replay.train.run import offline
    from kopa_replay.train.tools import tool_schemas
    from kopa_replay.util import write_atomic

    offline()
    models: list[tuple[str, str | None]] = []
    trained: dict[str, Any] = {}
    if checkpoint is not None:
        model_path, trained = resolve_checkpoint(checkpoint)
        models.append(("checkpoint", model_path))
        base = base or trained.get("model")
    elif not llm_url:
        raise UsageError("give a checkpoint (a run directory or a model directory) or --llm-url of a served model")
    else:
        models.append(("served", None))
    if base and not no_base:
        models.append(("base", base))
    from kopa_replay.synth.export import SYSTEM_PROMPT as TRAIN_PROMPT

    prompt = system_prompt or trained.get("system_prompt") or (TRAIN_PROMPT if checkpoint is not None else AGENT_PROMPT)
    task_set = load_task_set(spec.tasks).select(split=spec.split, ids=spec.task_ids)
    catalog = builtin_catalog(spec.scale or trained.get("scale") or "builtin")
    # asked as trained: the run's tool budget and tool-message limits
    asked = {
        "top_k": spec.top_k or trained.get("top_k") or 16,
        "max_turns": spec.max_turns,
        "system_prompt": prompt,
        "schemas": tool_schemas,
        "max_records": trained.get("max_records", 30),
        "max_chars": trained.get("max_chars", 6000),
    }
    sampling: dict[str, Any] = {"temperature": spec.temperature if spec.k > 1 else 0.0, "seed": spec.seed}
    root = Path(out)
    reports: dict[str, Any] = {}
    table: dict[str, Any] = {}
    for _, path in models:
        if path is not None:
            _check_available(path)
    with ExitStack() as stack:
        agents = []  # every model is loaded before any is run: a base that cannot load fails in seconds, not hours
        for label, path in models:
            if path is None:
                agent = openai_agent(
                    llm_url or "", llm_model or "", store=str(root / "llm.sqlite"), snapshot="llm", **asked, **sampling
                )
            else:
                agent = transformers_agent(path, max_new_tokens=spec.max_new_tokens, **asked, **sampling)
            stack.callback(agent.close)
            agents.append((label, path, agent))
        for label, path, agent in agents:
            with open_source(
                "replay", snapshot=spec.snapshot, mode="replay", store=spec.store, catalog=catalog
            ) as source:
                run = run_benchmark(task_set.tasks, agent, catalog, ToolEnvironment(catalog, source), spec.k)
            write_jsonl(root / label / "rollouts.jsonl", [r.to_dict() for r in run.rollouts])
            write_atomic(root / label / "report.json", report_json(run.report))
            reports[label] = {"model": path or llm_model, "report": run.report}
            table[label] = _split_table(run.report)
    result = {
        "k": spec.k,
        "snapshot": spec.snapshot,
        **sampling,
        "top_k": asked["top_k"],
        "table": table,
        "models": {label: reports[label]["model"] for label in reports},
    }
    write_atomic(root / "eval.json", json.dumps(result, ensure_ascii=False, sort_keys=True, indent=2) + "\n")
    write_atomic(root / "eval.md", table_markdown(table, spec.k))
    return result
