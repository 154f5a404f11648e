"""One training run's settings: a YAML/JSON file, ``key=value`` overrides, every key checked.

A config file (the ones in ``training/configs/`` are examples) holds
:class:`TrainConfig`'s fields; ``lora`` is a :class:`LoraSettings` mapping
(or ``null``: full fine-tuning) and ``trainer`` is handed to trl's
``GRPOConfig`` / ``SFTConfig`` as is (learning rate, batch sizes,
``num_generations``, ``use_vllm``, …: trl's own names, checked by trl). An
override is ``key=value`` with a dotted key (``trainer.learning_rate=1e-6``,
``lora.r=32``) and a YAML value. An unknown key, a bad value or an unreadable
file is a :class:`~kopa_replay.errors.UsageError` naming the file and the key.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kopa_replay.errors import UsageError

__all__ = ["KINDS", "TRAIN_EXTRA", "LoraSettings", "TrainConfig", "apply_overrides", "load_config", "lora_targets"]

#: what a config trains
KINDS = ("sft", "grpo")
#: how to get what training imports (the CPU torch first: an unpinned torch pulls a multi-GB CUDA build)
TRAIN_EXTRA = "pip install torch==2.13.0 && pip install -e '.[train]'"
#: trainer keys whose values are credentials: never written to a run directory
_SECRET_WORDS = ("token", "secret", "password", "api_key")

#: LoRA target modules per model type: every linear projection of attention and MLP (peft's qwen2/qwen3 default
#: is only q_proj, v_proj; qwen3_5 has none). Qwen3.5's linear-attention (Gated DeltaNet) layers add their own.
_QWEN_LINEAR = ("q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj")
_DELTANET = ("in_proj_qkv", "in_proj_z", "in_proj_b", "in_proj_a", "out_proj")
LORA_TARGETS: dict[str, tuple[str, ...]] = {
    "qwen2": _QWEN_LINEAR,
    "qwen3": _QWEN_LINEAR,
    "qwen3_moe": _QWEN_LINEAR,
    "qwen3_5": _QWEN_LINEAR + _DELTANET,
    "qwen3_5_text": _QWEN_LINEAR + _DELTANET,
}


def lora_targets(model_type: str, configured: str | Sequence[str]) -> str | list[str]:
    """The modules LoRA adapts: ``configured`` unless ``"auto"``, then :data:`LORA_TARGETS` or ``all-linear``."""
    if configured != "auto":
        return configured if isinstance(configured, str) else list(configured)
    return list(LORA_TARGETS.get(model_type, ())) or "all-linear"


@dataclass(frozen=True)
class LoraSettings:
    """peft ``LoraConfig`` fields; ``target_modules: auto`` picks them by model type (:func:`lora_targets`)."""

    r: int = 16
    alpha: int = 32
    dropout: float = 0.05
    target_modules: Any = "auto"

    def __post_init__(self) -> None:
        for name in ("r", "alpha"):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool):
                raise UsageError(f"lora.{name} must be an integer, not {value!r}")
        if not isinstance(self.dropout, (int, float)) or isinstance(self.dropout, bool):
            raise UsageError(f"lora.dropout must be a number, not {self.dropout!r}")
        targets = self.target_modules
        if not (
            isinstance(targets, str)
            or (isinstance(targets, (list, tuple)) and targets and all(isinstance(t, str) for t in targets))
        ):
            raise UsageError(
                f"lora.target_modules must be 'auto', 'all-linear' or a list of module names, not {targets!r}"
            )
        if self.r < 1 or self.alpha < 1 or not 0.0 <= self.dropout < 1.0:
            raise UsageError(
                f"lora needs r >= 1, alpha >= 1 and 0 <= dropout < 1, not r={self.r}, "
                f"alpha={self.alpha}, dropout={self.dropout}"
            )


@dataclass(frozen=True)
class TrainConfig:
    """A training run (see the module docstring); paths are as given, relative to the working directory."""

    kind: str
    model: str
    data: str
    output_dir: str
    #: the pinned snapshot rollout tools answer from (GRPO), and the store holding it (None: the default store)
    snapshot: str = "2026-09-01"
    store: str | None = None
    #: ``replay`` (strict, offline: an unrecorded call reads as "no data") or ``sim`` (the snapshot answers what it
    #: holds, the simulator at ``sim_seed`` / ``as_of`` the rest; nothing is recorded)
    source: str = "replay"
    sim_seed: int = 0
    as_of: str = "2026-09-01"
    #: the built-in catalog the tools come from: ``builtin`` (the hand-modelled tools) or ``paper`` (2,318 tools)
    scale: str = "builtin"
    #: tools offered per task (retrieved for the question, as ``bench run``); reference tools always included
    top_k: int = 16
    include_reference_tools: bool = True
    #: the benchmark task set the corpus is checked against (None: the shipped one)
    tasks: str | None = None
    #: the paper's ablation: train on the ``sequential`` trajectories only, on the ``parallel`` ones (parallel and
    #: mixed), or on the ``full`` corpus (kopa_replay.synth.model.SUBSETS)
    subset: str = "full"
    system_prompt: str | None = None
    lora: LoraSettings | None = None
    #: GRPO only: added to the binary reward when the ACTION axis passes
    action_weight: float = 0.0
    #: how much of a tool result the model reads
    max_records: int = 30
    max_chars: int = 6000
    seed: int = 0
    trainer: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise UsageError(f"kind must be one of {', '.join(KINDS)}, not {self.kind!r}")
        for name in ("model", "data", "output_dir"):
            if not isinstance(getattr(self, name), str) or not getattr(self, name):
                raise UsageError(f"{name} must be set (a path or model id)")
        from kopa_replay.env.source import is_sim

        if self.source != "replay" and not is_sim(self.source):
            raise UsageError(f"source must be 'replay' or 'sim' ('sim:<world>' names a world), not {self.source!r}")
        from kopa_replay.synth.model import SUBSETS

        if self.subset not in SUBSETS:
            raise UsageError(f"subset must be one of {', '.join(SUBSETS)}, not {self.subset!r}")
        if self.scale not in ("builtin", "paper"):
            raise UsageError(f"scale must be 'builtin' or 'paper', not {self.scale!r}")
        if self.top_k < 1:
            raise UsageError(f"top_k must be at least 1, not {self.top_k}")
        if self.max_records < 0 or self.max_chars < 1:
            raise UsageError("max_records must be 0 or more and max_chars at least 1")
        if not isinstance(self.trainer, Mapping):
            raise UsageError("trainer must be a mapping of trl config fields")

    def to_dict(self) -> dict[str, Any]:
        out = dataclasses.asdict(self)
        out["trainer"] = dict(self.trainer)
        return out

    def public_dict(self) -> dict[str, Any]:
        """:meth:`to_dict` with credential-like trainer values (``hub_token``, …) replaced: what a run writes."""
        out = self.to_dict()
        out["trainer"] = {
            k: "<redacted>" if any(w in k.lower() for w in _SECRET_WORDS) and v else v
            for k, v in out["trainer"].items()
        }
        return out


#: what YAML 1.1 reads as text although everyone means a number: 1e-6 (YAML wants 1.0e-6)
_EXPONENT = re.compile(r"^[-+]?(\d+\.?\d*|\.\d+)[eE][-+]?\d+$")


def _numbers(value: Any) -> Any:
    """``value`` with every ``1e-6``-style string read as the float it means (mappings and lists walked)."""
    if isinstance(value, str) and _EXPONENT.match(value):
        return float(value)
    if isinstance(value, Mapping):
        return {k: _numbers(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_numbers(v) for v in value]
    return value


_FIELDS = {f.name: f for f in dataclasses.fields(TrainConfig)}
_LORA_FIELDS = {f.name for f in dataclasses.fields(LoraSettings)}
_TYPES = {"int": int, "float": float, "bool": bool, "str": str}


def _checked(key: str, value: Any, annotation: str) -> Any:
    """``value`` for field ``key`` as the annotation asks (ints accepted as floats; ``X | None`` takes null)."""
    if value is None and "None" in annotation:
        return None
    base = annotation.split("|")[0].strip()
    kind = _TYPES.get(base)
    if kind is None:
        return value
    if kind is float and isinstance(value, int) and not isinstance(value, bool):
        return float(value)
    if kind is str and isinstance(value, dt.date):  # YAML reads an unquoted 2026-09-01 as a date
        return value.isoformat()
    if kind is int and isinstance(value, bool) or not isinstance(value, kind):
        raise UsageError(f"{key} must be {base}, not {value!r}")
    return value


def _from_mapping(data: Mapping[str, Any], origin: str, kind: str | None) -> TrainConfig:
    unknown = sorted(set(data) - set(_FIELDS))
    if unknown:
        raise UsageError(f"{origin}: unknown key {', '.join(unknown)} (keys: {', '.join(sorted(_FIELDS))})")
    values = dict(data)
    if kind is not None:
        if values.get("kind", kind) != kind:
            raise UsageError(f"{origin} is a {values['kind']!r} config, not {kind!r}")
        values["kind"] = kind
    lora = values.get("lora")
    if lora is not None:
        if not isinstance(lora, Mapping):
            raise UsageError(f"{origin}: lora must be a mapping ({', '.join(sorted(_LORA_FIELDS))}) or null")
        bad = sorted(set(lora) - _LORA_FIELDS)
        if bad:
            raise UsageError(
                f"{origin}: unknown key lora.{', lora.'.join(bad)} (keys: {', '.join(sorted(_LORA_FIELDS))})"
            )
        values["lora"] = LoraSettings(**lora)
    for key, value in list(values.items()):
        if key not in ("lora", "trainer"):
            values[key] = _checked(key, value, str(_FIELDS[key].type))
    missing = sorted(name for name in ("kind", "model", "data", "output_dir") if name not in values)
    if missing:
        raise UsageError(f"{origin}: missing {', '.join(missing)}")
    try:
        return TrainConfig(**values)
    except UsageError as exc:
        raise UsageError(f"{origin}: {exc}") from None


def apply_overrides(data: Mapping[str, Any], overrides: Sequence[str]) -> dict[str, Any]:
    """``data`` with each ``key=value`` (dotted key, YAML value) set; a malformed one is a UsageError."""
    import yaml

    out = json.loads(json.dumps(dict(data), default=str))
    for item in overrides:
        key, sep, text = item.partition("=")
        if not sep or not key.strip():
            raise UsageError(f"an override is KEY=VALUE (e.g. trainer.learning_rate=1e-6), not {item!r}")
        try:
            value = _numbers(yaml.safe_load(text)) if text.strip() else ""
        except yaml.YAMLError as exc:
            raise UsageError(f"override {key}: the value is not YAML ({exc})") from None
        parts = key.strip().split(".")
        node = out
        for part in parts[:-1]:
            if node.get(part) is None:
                node[part] = {}
            if not isinstance(node[part], dict):
                raise UsageError(f"override {key}: {part} is not a mapping")
            node = node[part]
        node[parts[-1]] = value
    return out


def load_config(path: str | Path | None, overrides: Sequence[str] = (), *, kind: str | None = None) -> TrainConfig:
    """The config in ``path`` (YAML or JSON; None: overrides only) with ``overrides`` applied, checked."""
    import yaml

    data: Any = {}
    origin = "the overrides"
    if path is not None:
        file = Path(path)
        origin = str(file)
        if not file.is_file():
            raise UsageError(f"no config file {file}")
        try:
            data = yaml.safe_load(file.read_text(encoding="utf-8")) or {}
        except (yaml.YAMLError, UnicodeDecodeError) as exc:
            raise UsageError(f"{file}: not YAML or JSON ({exc})") from None
        if not isinstance(data, Mapping):
            raise UsageError(f"{file}: a config is a mapping of keys, not {type(data).__name__}")
        data = _numbers(data)
    for item in overrides:  # an unknown key is the command line's mistake, not the file's
        key, sep, _ = item.partition("=")
        parts = key.strip().split(".")
        if sep and parts[0] and parts[0] not in _FIELDS:
            raise UsageError(f"override {item!r}: unknown key {parts[0]} (keys: {', '.join(sorted(_FIELDS))})")
        if sep and parts[0] == "lora" and len(parts) > 1 and parts[1] not in _LORA_FIELDS:
            raise UsageError(
                f"override {item!r}: unknown key lora.{parts[1]} (keys: {', '.join(sorted(_LORA_FIELDS))})"
            )
    if overrides:
        data = apply_overrides(data, overrides)
    return _from_mapping(data, origin, kind)
