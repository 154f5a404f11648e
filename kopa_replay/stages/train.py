"""Stages ``train sft`` and ``train grpo``: a run config (YAML/JSON) with ``KEY=VALUE`` overrides.

The trainer's own config (:class:`kopa_replay.train.config.TrainConfig`, trl's fields under ``trainer``) is the
one source of its settings; this stage's config only says which file and which overrides. A training run's
directory is written as it trains (checkpoints), not swapped in at the end; its ``run.json`` is the manifest
(config, data digest, snapshot, steps, metrics)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from kopa_replay.errors import UsageError
from kopa_replay.stages.options import setting

__all__ = ["Config", "run"]


@dataclass(frozen=True)
class Config:
    kind: Literal["sft", "grpo"] = setting("sft", "sft or grpo.", cli=False)
    config: str | None = setting(None, "A YAML/JSON run config (see training/configs/).", path="file")
    overrides: tuple[str, ...] = setting((), "KEY=VALUE overrides of the config (dotted keys, YAML values).", cli=False)

    def __post_init__(self) -> None:
        if self.kind not in ("sft", "grpo"):
            raise UsageError(f"kind must be sft or grpo, not {self.kind!r}")


def run(config: Config) -> Any:
    """Train; returns the :class:`kopa_replay.train.run.TrainResult` (its ``output_dir`` and ``run`` record)."""
    from kopa_replay.train.config import load_config
    from kopa_replay.train.run import run_grpo, run_sft

    loaded = load_config(config.config, config.overrides, kind=config.kind)
    return (run_grpo if config.kind == "grpo" else run_sft)(loaded)
