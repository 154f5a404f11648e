"""A tiny random Qwen3-architecture model and a locally trained tokenizer: real trainers on CPU, offline.

trl's own tiny test models live on the hub, which CI never reaches, so
:func:`build_tiny_model` makes one from nothing: a byte-level BPE tokenizer
trained on text this package already holds (the built-in catalog's tool texts,
the shipped benchmark questions, the system prompts, JSON punctuation), with
the special tokens a Qwen tool-calling template needs, and trl's own
``qwen2_5.jinja`` as its chat template byte for byte — the template trl
recognises for response parsing (``add_response_schema``), prefix preservation
and its training variant (``{% generation %}`` masks for assistant-only loss).
The model is ``Qwen3ForCausalLM`` from a config (hidden 64, 2 layers,
head_dim 16 set explicitly), initialised under ``torch.manual_seed(seed)``.

Same seed → the same weights and tokenizer files (the tokenizer corpus is
sorted; BPE training is deterministic over one input order).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from kopa_replay.errors import UsageError
from kopa_replay.train.config import TRAIN_EXTRA

__all__ = ["SPECIAL_TOKENS", "TinySpec", "build_tiny_model", "chat_template", "tokenizer_corpus"]

#: the special tokens of the Qwen tool-calling chat template (end of turn ``<|im_end|>`` is the EOS)
SPECIAL_TOKENS = (
    "<|endoftext|>",
    "<|im_start|>",
    "<|im_end|>",
    "<tool_call>",
    "</tool_call>",
    "<tool_response>",
    "</tool_response>",
    "<think>",
    "</think>",
)


class TinySpec:
    """The tiny model's size: small enough for a GRPO step in about a second on a CPU."""

    hidden_size = 64
    intermediate_size = 128
    num_hidden_layers = 2
    num_attention_heads = 4
    num_key_value_heads = 2
    head_dim = 16
    max_position_embeddings = 32768


def chat_template() -> str:
    """trl's ``qwen2_5.jinja``, byte for byte (what trl's response parsing recognises)."""
    import trl

    path = Path(trl.__file__).resolve().parent / "chat_templates" / "qwen2_5.jinja"
    if not path.exists():
        raise UsageError(f"trl {trl.__version__} ships no {path.name}; install the train extra's trl range")
    return path.read_text(encoding="utf-8")


def tokenizer_corpus() -> list[str]:
    """The text the tokenizer is trained on, sorted: catalog tool texts, benchmark questions, prompts."""
    from kopa_replay.bench.chat_agent import SYSTEM_PROMPT as AGENT_PROMPT
    from kopa_replay.bench.suite import load_task_set
    from kopa_replay.catalog import builtin_catalog
    from kopa_replay.env.retrieval import tool_text
    from kopa_replay.synth.export import SYSTEM_PROMPT as SYNTH_PROMPT

    catalog = builtin_catalog()
    texts = {tool_text(tool) for tool in catalog}
    texts |= {json.dumps(tool.to_openai(), ensure_ascii=False) for tool in catalog}
    texts |= {task.question_ko for task in load_task_set().tasks}
    texts |= {
        AGENT_PROMPT,
        SYNTH_PROMPT,
        '{"outcome":"ok","code":"000","message":"정상","total_count":12,"more_pages":false,"records":[]}',
        "0123456789 ,.:;-+%()[]{}\"'<>/?!=_ \n",
    }
    return sorted(texts)


def build_tiny_model(out: str | Path, *, seed: int = 0, vocab_size: int = 4096) -> Path:
    """Write a tiny Qwen3 model and its tokenizer to ``out`` (``save_pretrained`` layout); returns ``out``."""
    if vocab_size < 512:
        raise UsageError(
            f"vocab_size must be at least 512 (the byte alphabet and the special tokens), not {vocab_size}"
        )
    from kopa_replay.train.run import offline

    offline()  # before any hub library is imported: nothing is downloaded
    try:
        import torch
        from tokenizers import Tokenizer, decoders, models, pre_tokenizers, processors, trainers
        from transformers import AutoModelForCausalLM, PreTrainedTokenizerFast, Qwen3Config
    except ImportError as exc:
        raise UsageError(f"building the tiny model needs the train extra ({exc}): {TRAIN_EXTRA}") from exc
    root = Path(out)
    if root.exists() and any(root.iterdir()):
        raise UsageError(f"{root} exists and is not empty: choose a new directory for the tiny model")

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    tok.post_processor = processors.ByteLevel(trim_offsets=False)
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size,
        special_tokens=list(SPECIAL_TOKENS),
        show_progress=False,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
    )
    tok.train_from_iterator(tokenizer_corpus(), trainer=trainer)
    tokenizer = PreTrainedTokenizerFast(
        tokenizer_object=tok, eos_token="<|im_end|>", pad_token="<|endoftext|>", padding_side="left"
    )
    tokenizer.chat_template = chat_template()

    spec = TinySpec
    config = Qwen3Config(
        vocab_size=len(tokenizer),
        hidden_size=spec.hidden_size,
        intermediate_size=spec.intermediate_size,
        num_hidden_layers=spec.num_hidden_layers,
        num_attention_heads=spec.num_attention_heads,
        num_key_value_heads=spec.num_key_value_heads,
        head_dim=spec.head_dim,
        max_position_embeddings=spec.max_position_embeddings,
        tie_word_embeddings=True,
        eos_token_id=tokenizer.eos_token_id,
        pad_token_id=tokenizer.pad_token_id,
        bos_token_id=None,
    )
    torch.manual_seed(seed)
    model: Any = AutoModelForCausalLM.from_config(config)
    model.generation_config.eos_token_id = tokenizer.eos_token_id
    model.generation_config.pad_token_id = tokenizer.pad_token_id
    root.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(root)
    tokenizer.save_pretrained(root)
    return root
