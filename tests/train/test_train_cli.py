"""`kopa-replay train`: one SFT and one GRPO step of the tiny model through the shipped configs, LoRA, eval, errors.

The corpus is synthesized and filtered for real (conftest); the trainers are trl's; nothing is downloaded.
"""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from kopa_replay.cli import cli

CONFIGS = Path(__file__).resolve().parents[2] / "training" / "configs"


def _run(*args: str):
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


def _train(kind: str, tiny_model, corpus, out, *overrides: str):
    """``kopa-replay train KIND`` with the shipped tiny config, on this session's model and corpus (whose calls
    are in snapshot ``corpus`` of the store beside it)."""
    return _run(
        "train",
        kind,
        "--config",
        str(CONFIGS / f"tiny_{kind}.yaml"),
        f"model={tiny_model}",
        f"data={corpus}",
        f"output_dir={out}",
        f"store={corpus.parent / 'corpus.sqlite'}",
        *overrides,
    )


def test_tiny_model_command_builds_a_tool_calling_model(tmp_path):
    from transformers import AutoModelForCausalLM, AutoTokenizer
    from trl.chat_template_utils import is_chat_template_prefix_preserving, supports_tool_calling

    out = tmp_path / "tiny"
    result = _run("train", "tiny-model", str(out), "--vocab-size", "1024")
    assert result.exit_code == 0, result.output
    tokenizer = AutoTokenizer.from_pretrained(out, local_files_only=True)
    model = AutoModelForCausalLM.from_pretrained(out, local_files_only=True)
    assert model.config.model_type == "qwen3" and len(tokenizer) == 1024
    assert supports_tool_calling(tokenizer) and is_chat_template_prefix_preserving(tokenizer)
    assert tokenizer.eos_token == "<|im_end|>" and tokenizer.padding_side == "left"
    again = _run("train", "tiny-model", str(out))
    assert again.exit_code == 1 and "not empty" in again.output and str(out) in again.output


def test_sft_step_through_the_cli_with_assistant_only_loss(tiny_model, corpus, tmp_path):
    from kopa_replay.train.config import load_config
    from kopa_replay.train.run import sft_trainer

    out = tmp_path / "sft"
    result = _train("sft", tiny_model, corpus, out)
    assert result.exit_code == 0, result.output
    assert "sft: 1 step on" in result.output and "loss" in result.output
    run = json.loads((out / "run.json").read_text())
    assert run["kind"] == "sft" and run["steps"] == 1 and run["snapshot"] is None
    assert (
        run["data"]["rows"] == len((corpus / "sft.jsonl").read_text().splitlines()) and len(run["data"]["digest"]) == 64
    )
    assert run["metrics"][0]["loss"] > 0 and not any("runtime" in key for m in run["metrics"] for key in m)
    assert json.loads((out / "config.json").read_text())["data"] == str(corpus)
    assert (out / "final" / "model.safetensors").exists() and (out / "final" / "tokenizer.json").exists()

    # assistant-only loss: the tokens trained on are what the assistant says, never the question or a tool result
    config = load_config(
        CONFIGS / "tiny_sft.yaml",
        [f"model={tiny_model}", f"data={corpus}", f"output_dir={tmp_path / 'mask'}", "trainer.max_length=100000"],
    )
    trainer, _ = sft_trainer(config)
    tokenizer = trainer.processing_class
    row = trainer.train_dataset[0]
    said = tokenizer.decode([t for t, label in zip(row["input_ids"], row["labels"]) if label != -100])
    unsaid = tokenizer.decode([t for t, label in zip(row["input_ids"], row["labels"]) if label == -100])
    assert "<tool_call>" in said and "<tool_response>" not in said
    assert "<tool_response>" in unsaid
    first = json.loads((corpus / "sft.jsonl").read_text().splitlines()[0])["messages"]
    assert first[1]["content"] in unsaid and first[1]["content"] not in said
    assert first[-1]["content"] in said  # the final answer is trained on


def test_grpo_step_through_the_cli_records_snapshot_and_data(tiny_model, corpus, tmp_path):
    out = tmp_path / "grpo"
    result = _train("grpo", tiny_model, corpus, out)
    assert result.exit_code == 0, result.output
    assert "grpo: 1 step on" in result.output and "snapshot corpus" in result.output
    run = json.loads((out / "run.json").read_text())
    assert run["snapshot"]["name"] == "corpus" and len(run["snapshot"]["digest"]) == 64
    assert run["data"]["tool_sets"] >= 1 and 0 <= run["data"]["retrieval_recall"] <= 1
    assert run["metrics"][0]["tools/call_frequency"] == 0.0  # the random model calls nothing: scripted in test_grpo
    assert json.loads((out / "timings.json").read_text())[0]["step_time"] > 0


def test_lora_grpo_saves_an_adapter_over_the_configured_modules(tiny_model, corpus, tmp_path):
    out = tmp_path / "lora"
    result = _train("grpo", tiny_model, corpus, out, "lora={r: 4, alpha: 8}")
    assert result.exit_code == 0, result.output
    adapter = json.loads((out / "final" / "adapter_config.json").read_text())
    assert sorted(adapter["target_modules"]) == sorted(
        ["q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"]
    )
    assert adapter["r"] == 4 and adapter["lora_alpha"] == 8


def test_lora_targets_exist_in_qwen3_5():
    """Every module named for Qwen3.5 is a linear layer of a (tiny) Qwen3.5 text model, attention and DeltaNet."""
    import torch
    from transformers import AutoModelForCausalLM
    from transformers.models.qwen3_5 import Qwen3_5TextConfig

    from kopa_replay.train.config import lora_targets

    config = Qwen3_5TextConfig(
        vocab_size=128,
        hidden_size=64,
        intermediate_size=128,
        num_hidden_layers=4,
        num_attention_heads=4,
        num_key_value_heads=2,
        head_dim=16,
        linear_num_key_heads=2,
        linear_num_value_heads=4,
        linear_key_head_dim=16,
        linear_value_head_dim=16,
    )
    model = AutoModelForCausalLM.from_config(config)
    linear = {name.rsplit(".", 1)[-1] for name, module in model.named_modules() if isinstance(module, torch.nn.Linear)}
    targets = lora_targets(model.config.model_type, "auto")
    assert set(targets) <= linear and {"in_proj_qkv", "q_proj", "down_proj"} <= set(targets)
    assert lora_targets("qwen3", ["q_proj"]) == ["q_proj"] and lora_targets("unknown", "auto") == "all-linear"


def test_eval_writes_pass_at_k_per_split_beside_the_base(tiny_model, corpus, tmp_path):
    out = tmp_path / "sft"
    assert _train("sft", tiny_model, corpus, out).exit_code == 0
    result = _run(
        "train",
        "eval",
        str(out),
        "--rollouts",
        "1",
        "--task",
        "kopa-education-school-dinners-1",
        "--task",
        "kopa-finance-lightron",
        "--max-new-tokens",
        "4",
        "--max-turns",
        "1",
        "--top-k",
        "2",
    )
    assert result.exit_code == 0, result.output
    table = json.loads((out / "eval" / "eval.json").read_text())["table"]
    assert set(table) == {"checkpoint", "base"}
    for rows in table.values():
        assert rows["all"]["tasks"] == 2 and rows["all"]["pass_at_1"] == 0.0  # a random model solves nothing
        assert set(rows) >= {"all", "main"}
    assert "| all | checkpoint | 2 |" in result.output and "| all | base | 2 |" in result.output
    assert (out / "eval" / "checkpoint" / "rollouts.jsonl").exists()


def test_user_mistakes_are_one_error_line(tiny_model, corpus, tmp_path, catalog):
    tiny = CONFIGS / "tiny_sft.yaml"
    cases = [
        (["train", "sft", "--config", str(tmp_path / "none.yaml")], "no config file"),
        (["train", "sft", "--config", str(tiny), "learning_rate=1"], "override 'learning_rate=1': unknown key"),
        (["train", "sft", "--config", str(tiny), "lora.rank=4"], "unknown key lora.rank"),
        (["train", "sft", "--config", str(tiny), "top_k=many"], "top_k must be int"),
        (["train", "sft", "--config", str(tiny), "oops"], "KEY=VALUE"),
        (["train", "grpo", "--config", str(tiny)], "is a 'sft' config, not 'grpo'"),
        (
            ["train", "sft", "--config", str(tiny), f"model={tmp_path / 'nomodel'}", f"data={corpus}"],
            "cannot load model",
        ),
        (
            ["train", "sft", "--config", str(tiny), f"model={tiny_model}", f"data={tmp_path / 'nodata'}"],
            "no corpus directory",
        ),
        (
            ["train", "sft", "--config", str(tiny), f"model={tiny_model}", f"data={corpus}", "trainer.no_such_field=1"],
            "SFTConfig",
        ),
        (["train", "eval", str(tmp_path / "nothing")], "no checkpoint"),
        (["train", "eval", str(corpus)], "neither a run directory"),
        (["train", "eval"], "give a CHECKPOINT"),
        # a base model neither on disk nor in the cache fails before the checkpoint is run, not after
        (
            ["train", "eval", str(tiny_model), "--base", "Qwen/Not-In-Any-Cache", "--rollouts", "1"],
            "nor a model in the local Hugging Face cache",
        ),
    ]
    for args, expected in cases:
        result = CliRunner().invoke(cli, args)
        assert result.exit_code == 1, (args, result.output)
        assert result.output.startswith("Error: ") and expected in result.output, (args, result.output)
        assert "Traceback" not in result.output


def test_grpo_refuses_a_corpus_the_snapshot_cannot_answer(tiny_model, corpus, tmp_path):
    """Strict replay of the shipped snapshot lacks the corpus's calls: no reward could ever be earned."""
    result = CliRunner().invoke(
        cli,
        [
            "train",
            "grpo",
            "--config",
            str(CONFIGS / "tiny_grpo.yaml"),
            f"model={tiny_model}",
            f"data={corpus}",
            f"output_dir={tmp_path / 'x'}",
            "snapshot=2026-09-01",
            "store=null",
        ],
    )
    assert result.exit_code == 1 and result.output.startswith("Error: snapshot '2026-09-01' cannot answer")
    assert "--mode record" in result.output and not (tmp_path / "x").exists()
    # with source sim the simulator answers what the snapshot lacks
    assert (
        _train(
            "grpo", tiny_model, corpus, tmp_path / "sim", "snapshot=2026-09-01", "store=null", "source=sim"
        ).exit_code
        == 0
    )
