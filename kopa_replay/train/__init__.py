"""Training small models on a synthesized corpus: SFT and GRPO whose every tool call a pinned snapshot answers.

:mod:`.config` reads a run's settings (YAML + ``key=value`` overrides);
:mod:`.data` turns a ``synth`` + ``filter`` corpus into training rows, refusing
one that touches the held-out platforms or repeats a benchmark task;
:mod:`.tools` makes the catalog's tools into the callables and environments
trl's ``GRPOTrainer`` runs (one environment class per retrieved tool set);
:mod:`.reward` is the benchmark's grader as a reward; :mod:`.run` drives trl's
``SFTTrainer`` / ``GRPOTrainer`` into a run directory; :mod:`.evaluate` runs
the benchmark for a checkpoint beside its base; :mod:`.tiny` builds the tiny
offline model CI trains.

Everything here imports trl, transformers, peft and torch lazily: the package
imports without the ``train`` extra, and says how to install it when used.
"""

from kopa_replay.train.config import KINDS, LoraSettings, TrainConfig, load_config, lora_targets

__all__ = ["KINDS", "LoraSettings", "TrainConfig", "load_config", "lora_targets"]
