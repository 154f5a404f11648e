"""SFT and GRPO runs through trl's real trainers, offline, into a run directory that says what they trained on.

``run_sft(config)`` trains ``SFTTrainer`` on the corpus's filtered
conversations (assistant-only loss: trl swaps in the training variant of the
chat template, whose ``{% generation %}`` marks what the model says);
``run_grpo(config)`` trains ``GRPOTrainer`` whose rollouts call the catalog's
tools through :mod:`kopa_replay.train.tools` — answered by the pinned
snapshot, strict replay by default — and are rewarded by the benchmark's
grader (:class:`~kopa_replay.train.reward.GraderReward`). LoRA through peft
when ``config.lora`` is set.

Why ``environment_factory`` and not ``rollout_func``: trl's own multi-turn
loop then parses the tool calls with the chat template's response schema,
masks tool-result tokens out of the loss, drops tool results that would
overflow ``max_completion_length``, works the same with transformers and vLLM
generation (colocate and server) and logs ``tools/call_frequency`` and
``tools/failure_frequency``; a ``rollout_func`` would re-implement all of it.
The one thing it does not do — offer each task its own tools — is trl's
multi-environment routing: one environment class per tool set
(:class:`~kopa_replay.train.tools.ToolSets`), chosen by the row's
``environment`` column.

The run directory (``output_dir``) holds ``config.json`` (the resolved
config, credential-like trainer values redacted), ``run.json`` (kind, model,
snapshot name and digest, data directory, rows and their digest, retrieval
recall, library versions; written with ``status: running`` before the first
step, so a crashed run still says what it trained on, and at the end with
``status: finished``, the steps and trl's logged metrics without wall-clock
fields — same seed and data give the same file), ``timings.json`` (those
wall-clock fields), and ``final/`` (the trained model or adapter and its
tokenizer) unless ``trainer.save_final`` is false.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kopa_replay.env.source import is_sim
from kopa_replay.errors import UsageError
from kopa_replay.train.config import TRAIN_EXTRA, TrainConfig, lora_targets

__all__ = [
    "OFFLINE_ENV",
    "TrainResult",
    "grpo_trainer",
    "load_model",
    "offline",
    "run_grpo",
    "run_sft",
    "sft_dataset",
    "sft_trainer",
    "train_grpo_rows",
]

#: set before any hub library is used: nothing is downloaded, nothing is reported
OFFLINE_ENV = {
    "HF_HUB_OFFLINE": "1",
    "HF_DATASETS_OFFLINE": "1",
    "TRANSFORMERS_OFFLINE": "1",
    "HF_HUB_DISABLE_TELEMETRY": "1",
    "TRL_EXPERIMENTAL_SILENCE": "1",
    "TOKENIZERS_PARALLELISM": "false",
}

#: trl log keys that measure wall time: kept out of run.json so equal runs write equal files
_TIMING_WORDS = ("runtime", "per_second", "time", "timing")
#: our own keys inside ``trainer`` (the rest goes to trl's config)
_OWN_TRAINER_KEYS = ("save_final",)


def offline() -> None:
    """Set :data:`OFFLINE_ENV` (values already set by the user are kept)."""
    for key, value in OFFLINE_ENV.items():
        os.environ.setdefault(key, value)


@dataclass
class TrainResult:
    """What a run left: its directory, the run record (``run.json``), the trainer (for callers that look inside)."""

    output_dir: Path
    run: dict[str, Any]
    trainer: Any = field(default=None, repr=False)

    @property
    def metrics(self) -> list[dict[str, Any]]:
        return list(self.run["metrics"])


def _import_training() -> Any:
    offline()
    try:
        import trl
    except ImportError as exc:
        raise UsageError(f"training needs the train extra ({exc}): {TRAIN_EXTRA}") from exc
    return trl


def load_model(name: str) -> tuple[Any, Any]:
    """Tokenizer and causal LM from ``name`` — a local directory, or a hub id already in the local cache."""
    _import_training()
    from transformers import AutoModelForCausalLM, AutoTokenizer

    try:
        tokenizer = AutoTokenizer.from_pretrained(name, local_files_only=True)
        model = AutoModelForCausalLM.from_pretrained(name, local_files_only=True, dtype="auto")
    except (OSError, ValueError) as exc:
        raise UsageError(
            f"cannot load model {name!r} offline: give a local checkpoint directory or a hub id already "
            f"downloaded to the cache ({' '.join(str(exc).split())})"
        ) from None
    if tokenizer.pad_token is None:
        tokenizer.pad_token = tokenizer.eos_token
    return model, tokenizer


def _peft_config(config: TrainConfig, model: Any) -> Any:
    if config.lora is None:
        return None
    from peft import LoraConfig

    lora = config.lora
    return LoraConfig(
        r=lora.r,
        lora_alpha=lora.alpha,
        lora_dropout=lora.dropout,
        task_type="CAUSAL_LM",
        target_modules=lora_targets(getattr(model.config, "model_type", ""), lora.target_modules),
    )


def _trl_args(config: TrainConfig, cls: type, defaults: dict[str, Any]) -> Any:
    import torch

    args = {
        "output_dir": config.output_dir,
        "seed": config.seed,
        "data_seed": config.seed,
        "report_to": "none",
        "save_strategy": "no",
        "logging_steps": 1,
        **defaults,
    }
    cpu = not torch.cuda.is_available()
    if cpu:
        args.update(use_cpu=True, activation_checkpointing=False)
    args.update({k: v for k, v in config.trainer.items() if k not in _OWN_TRAINER_KEYS})
    if cpu:
        args.update(bf16=False, fp16=False)  # a GPU config run on a CPU: half precision would fail
    try:
        return cls(**args)
    except TypeError as exc:
        raise UsageError(f"trainer: {exc} (the trainer mapping takes trl's {cls.__name__} fields)") from None
    except ValueError as exc:
        raise UsageError(f"trainer: trl's {cls.__name__} refuses these settings: {exc}") from None


def _snapshot_info(config: TrainConfig) -> dict[str, Any] | None:
    from kopa_replay.record import Store, default_store_path

    path = Path(config.store) if config.store else default_store_path()
    if not path.exists():
        raise UsageError(f"no cassette store {path} (store) for snapshot {config.snapshot!r}")
    with Store(path, readonly=True) as store:
        snap = store.snapshot(config.snapshot)
    if not snap.sealed:
        raise UsageError(
            f"snapshot {config.snapshot!r} in {path} is not sealed: rollouts answer from a pinned "
            "snapshot only (kopa-replay snapshot seal)"
        )
    info = {"source": config.source, "name": snap.name, "digest": snap.digest, "store": str(path)}
    if is_sim(config.source):  # the calls the snapshot lacks are answered by this world
        info.update(fallback="sim", sim_seed=config.sim_seed, as_of=config.as_of)
    return info


def _versions() -> dict[str, str]:
    import importlib.metadata as md

    out = {}
    for name in ("kopa-replay", "trl", "transformers", "peft", "torch", "datasets"):
        try:
            out[name] = md.version(name)
        except md.PackageNotFoundError:
            pass
    return out


def _is_timing(key: str) -> bool:
    return any(word in key for word in _TIMING_WORDS)


def _dump(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True, indent=2, default=str) + "\n"


def _begin(config: TrainConfig, trainer: Any, info: dict[str, Any]) -> None:
    """Before training: config.json, and run.json saying what is being trained on (``status: running``), so a
    run that crashes or is killed still says what it trained on."""
    from kopa_replay.util import write_atomic

    if not trainer.is_world_process_zero():
        return
    root = Path(config.output_dir)
    root.mkdir(parents=True, exist_ok=True)
    write_atomic(root / "config.json", _dump(config.public_dict()))
    write_atomic(
        root / "run.json",
        _dump(
            {
                **info,
                "kind": config.kind,
                "model": config.model,
                "seed": config.seed,
                "versions": _versions(),
                "status": "running",
            }
        ),
    )


def _record(config: TrainConfig, trainer: Any, info: dict[str, Any]) -> TrainResult:
    """After training: run.json (``status: finished``, steps, metrics), timings.json, final/; the result."""
    from kopa_replay.util import write_atomic

    root = Path(config.output_dir)
    history = list(trainer.state.log_history)
    metrics = [{k: v for k, v in sorted(entry.items()) if not _is_timing(k)} for entry in history]
    timings = [{k: v for k, v in sorted(entry.items()) if _is_timing(k) or k == "step"} for entry in history]
    run = {
        **info,
        "kind": config.kind,
        "model": config.model,
        "seed": config.seed,
        "versions": _versions(),
        "status": "finished",
        "steps": trainer.state.global_step,
        "metrics": metrics,
    }
    if config.trainer.get("save_final", True):
        final = root / "final"
        trainer.save_model(str(final))  # every rank: ZeRO-3 gathers the weights; only the main process writes
        if trainer.is_world_process_zero():
            trainer.processing_class.save_pretrained(str(final))
        run["final"] = "final"
    if trainer.is_world_process_zero():
        write_atomic(root / "run.json", _dump(run))
        write_atomic(root / "timings.json", _dump(timings))
    return TrainResult(root, run, trainer)


def _train(
    config: TrainConfig, trainer: Any, info: dict[str, Any], before_train: Callable[[Any], None] | None = None
) -> TrainResult:
    _begin(config, trainer, info)
    if before_train is not None:
        before_train(trainer)
    trainer.train()
    return _record(config, trainer, info)


# -- GRPO -----------------------------------------------------------------------------
def grpo_trainer(
    config: TrainConfig,
    rows: Sequence[dict[str, Any]],
    tool_sets: Any,
    *,
    reward: Any = None,
    model: Any = None,
    tokenizer: Any = None,
) -> Any:
    """trl's ``GRPOTrainer`` over ``rows`` (``prompt``, ``task``, ``environment``) with ``tool_sets``' environments."""
    trl = _import_training()
    from datasets import Dataset

    from kopa_replay.train.reward import GraderReward

    if not rows:
        raise UsageError("no training rows")
    args = _trl_args(config, trl.GRPOConfig, {"max_tool_calling_iterations": 16, "log_completions": False})
    if model is None or tokenizer is None:
        model, tokenizer = load_model(config.model)
    try:
        return trl.GRPOTrainer(
            model=model,
            reward_funcs=[reward or GraderReward(config.action_weight)],
            args=args,
            train_dataset=Dataset.from_list(list(rows)),
            processing_class=tokenizer,
            peft_config=_peft_config(config, model),
            environment_factory=tool_sets.factories(),
        )
    except ImportError as exc:  # use_vllm without vLLM, DeepSpeed settings without DeepSpeed
        raise UsageError(f"trainer: {exc} (GPU runs need the gpu extra: pip install -e '.[train,gpu]')") from None
    except ValueError as exc:  # e.g. a model whose chat template trl cannot parse tool calls with
        raise UsageError(f"trl's GRPOTrainer refuses model {config.model!r} with these settings: {exc}") from None


def train_grpo_rows(
    config: TrainConfig,
    rows: Sequence[dict[str, Any]],
    tool_sets: Any,
    info: dict[str, Any],
    *,
    before_train: Callable[[Any], None] | None = None,
    reward: Any = None,
) -> TrainResult:
    """Build the trainer over ``rows``, let ``before_train`` see it, train, record."""
    from kopa_replay.train.data import rows_digest

    info = {
        **info,
        "snapshot": _snapshot_info(config),
        "data": {**info.get("data", {}), "rows": len(rows), "digest": rows_digest(rows)},
    }
    try:
        return _train(config, grpo_trainer(config, rows, tool_sets, reward=reward), info, before_train)
    finally:
        tool_sets.close()


def _system(config: TrainConfig) -> str:
    from kopa_replay.synth.export import SYSTEM_PROMPT

    return config.system_prompt or SYSTEM_PROMPT


def run_grpo(config: TrainConfig, *, before_train: Callable[[Any], None] | None = None) -> TrainResult:
    """GRPO on the corpus in ``config.data`` (see the module docstring).

    Under strict replay every task's reference calls must be in the snapshot (a task the snapshot cannot answer
    could never earn the reward): a corpus synthesized without recording is refused, saying how to record it.
    """
    from kopa_replay.bench.suite import load_task_set
    from kopa_replay.catalog import builtin_catalog
    from kopa_replay.train.data import corpus_tasks, load_corpus, task_rows, unanswered
    from kopa_replay.train.tools import SourceSpec, ToolSets

    _import_training()
    catalog = builtin_catalog(config.scale)
    corpus = load_corpus(config.data, catalog, task_set=load_task_set(config.tasks), subset=config.subset)
    spec = SourceSpec(config.source, config.snapshot, config.store, config.sim_seed, config.as_of)
    tool_sets = ToolSets(catalog, spec, max_records=config.max_records, max_chars=config.max_chars)
    tasks = corpus_tasks(corpus, catalog)
    if config.source == "replay":
        missing = unanswered(tasks, catalog, tool_sets.shared.source())
        if missing:
            tool_sets.close()
            raise UsageError(
                f"snapshot {config.snapshot!r} cannot answer the reference calls of {len(missing)} of {len(tasks)} "
                f"training tasks ({', '.join(missing[:5])}{' …' if len(missing) > 5 else ''}): their rollouts could "
                f"never earn the reward. Record the corpus's calls while synthesizing (kopa-replay synth --snapshot "
                f"NAME --mode record --store PATH; kopa-replay snapshot seal NAME --store PATH) and train on that "
                f"snapshot, or set source: sim (the simulator answers what the snapshot lacks)"
            )
    rows, recalled = task_rows(
        tasks,
        catalog,
        top_k=config.top_k,
        system=_system(config),
        include_reference=config.include_reference_tools,
        add_tool_set=tool_sets.add,
    )
    info = {
        "data": {
            "dir": corpus.source,
            "retrieval_recall": round(recalled / len(rows), 4),
            "tool_sets": len(tool_sets.classes),
        }
    }
    return train_grpo_rows(config, rows, tool_sets, info, before_train=before_train)


# -- SFT ------------------------------------------------------------------------------
def sft_dataset(rows: Sequence[dict[str, Any]]) -> Any:
    """``rows`` as a datasets ``Dataset`` whose messages and tools are JSON objects (Arrow would otherwise merge
    every row's argument keys into one struct and render the missing ones as null)."""
    from datasets import Dataset, Features, Json, List

    return Dataset.from_list(list(rows), features=Features({"messages": List(Json()), "tools": List(Json())}))


def sft_trainer(config: TrainConfig) -> tuple[Any, dict[str, Any]]:
    """trl's ``SFTTrainer`` over the corpus's conversations (not yet trained), and what the run record says of it."""
    from kopa_replay.bench.suite import load_task_set
    from kopa_replay.catalog import builtin_catalog
    from kopa_replay.train.data import load_corpus, rows_digest, sft_rows

    trl = _import_training()
    catalog = builtin_catalog(config.scale)
    corpus = load_corpus(config.data, catalog, task_set=load_task_set(config.tasks), subset=config.subset)
    rows, recalled = sft_rows(
        corpus,
        catalog,
        top_k=config.top_k,
        system=config.system_prompt,
        include_reference=config.include_reference_tools,
    )
    args = _trl_args(config, trl.SFTConfig, {"assistant_only_loss": True})  # a config mistake shows before loading
    model, tokenizer = load_model(config.model)
    try:
        trainer = trl.SFTTrainer(
            model=model,
            args=args,
            train_dataset=sft_dataset(rows),
            processing_class=tokenizer,
            peft_config=_peft_config(config, model),
        )
    except ValueError as exc:
        raise UsageError(f"trl's SFTTrainer refuses model {config.model!r} with these settings: {exc}") from None
    # trl drops a conversation whose assistant tokens all lie past max_length: say how many are trained on
    info = {
        "snapshot": None,
        "data": {
            "dir": corpus.source,
            "rows": len(rows),
            "digest": rows_digest(rows),
            "rows_trained": len(trainer.train_dataset),
            "retrieval_recall": round(recalled / len(rows), 4),
        },
    }
    return trainer, info


def run_sft(config: TrainConfig) -> TrainResult:
    """SFT on the corpus's filtered conversations, assistant-only loss (see the module docstring)."""
    trainer, info = sft_trainer(config)
    return _train(config, trainer, info)
