"""Scripted generations: a stand-in for ``model.generate`` that emits fixed assistant turns.

A random or small model rarely writes a valid tool call, so exercising the rollout tool path (tests, the
``bench_rollout`` benchmark, checking a new environment before a GPU run) patches generation to return fixed
token ids, as trl's own tool tests do: ``trainer.model.generate = ScriptedGeneration(tokenizer, scripts)``.
Each rollout follows one script — a list of assistant turns, each the text a model would generate
(:func:`call_turn` writes a tool-calling one) — chosen by its row's position in the first generation call and
recognised afterwards by the turns already in its context (trl feeds a rollout's earlier turns back verbatim).
Works with trl's transformers generation path (``use_vllm`` off).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

__all__ = ["ScriptedGeneration", "call_turn", "oracle_scripts"]


def call_turn(*calls: tuple[str, Mapping[str, Any]]) -> str:
    """An assistant turn that calls tools, in the Qwen/Hermes format the chat template's parser reads."""
    return "".join(
        f'<tool_call>\n{{"name": "{name}", "arguments": {json.dumps(dict(args), ensure_ascii=False)}}}\n</tool_call>'
        for name, args in calls
    )


class ScriptedGeneration:
    """``generate(input_ids=..., attention_mask=..., **kw)`` returning each row's next scripted turn."""

    def __init__(self, tokenizer: Any, scripts: Sequence[Sequence[str]]) -> None:
        self.tokenizer = tokenizer
        self.scripts = [list(script) for script in scripts]
        self.calls = 0

    def _script_of(self, text: str, row: int, done: int) -> list[str]:
        if done == 0:
            return self.scripts[row % len(self.scripts)]
        for script in self.scripts:
            if all(turn in text for turn in script[:done]):
                return script
        raise AssertionError(f"no script matches a context with {done} turns: {text[-400:]!r}")

    def __call__(self, input_ids: Any, attention_mask: Any = None, **_: Any) -> Any:
        import torch

        self.calls += 1
        eos, pad = self.tokenizer.eos_token_id, self.tokenizer.pad_token_id
        new: list[list[int]] = []
        for row in range(input_ids.size(0)):
            ids = input_ids[row][attention_mask[row].bool()] if attention_mask is not None else input_ids[row]
            text = self.tokenizer.decode(ids.tolist(), skip_special_tokens=False)
            done = text.count("<|im_start|>assistant") - 1
            script = self._script_of(text, row, done)
            turn = script[min(done, len(script) - 1)]
            new.append(self.tokenizer.encode(turn, add_special_tokens=False) + [eos])
        width = max(len(ids) for ids in new)
        tail = torch.tensor([ids + [pad] * (width - len(ids)) for ids in new], dtype=input_ids.dtype)
        return torch.cat([input_ids, tail.to(input_ids.device)], dim=1)


def oracle_scripts(task: Any) -> tuple[list[str], list[str]]:
    """Two scripts for a benchmark task: its oracle trajectory, and the same without its first call (the lookup),
    each ending with the reference answer."""
    from kopa_replay.synth.export import answer_text

    answer = answer_text(task.answer)
    oracle = [call_turn(call) for call in task.reference_calls] + [answer]
    return oracle, oracle[1:]
