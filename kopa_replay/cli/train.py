"""The ``train`` group: SFT, GRPO against a pinned snapshot, evaluation."""

from __future__ import annotations

from typing import Any

import click

from kopa_replay.cli.common import _emit, _Group, _llm_options, _output_option, _store_option, _tasks_option, cli
from kopa_replay.errors import UsageError
from kopa_replay.stages import train as train_stage
from kopa_replay.stages.options import click_options


@cli.group(cls=_Group)
def train() -> None:
    """Train small models on a synthesized corpus: SFT, GRPO against a pinned snapshot, evaluation.

    Needs the train extra: pip install torch==2.13.0 && pip install -e '.[train]'
    """


def _train(kind: str, config_file: str | None, overrides: tuple[str, ...], fmt: str) -> None:
    result = train_stage.run(train_stage.Config(kind=kind, config=config_file, overrides=overrides))  # type: ignore[arg-type]
    run = result.run
    # JSON: the run record (run.json): config, data and snapshot digests, steps, metrics
    _emit(fmt, {**run, "output_dir": str(result.output_dir)}, lambda: _run_text(kind, result))


def _run_text(kind: str, result: Any) -> str:
    run = result.run
    last: dict[str, Any] = next((m for m in reversed(run["metrics"]) if "loss" in m), {})
    shown = [f"loss {last['loss']:.4f}"] if "loss" in last else []
    for key, label in (("reward", "reward"), ("tools/call_frequency", "tool calls per rollout")):
        if key in last:
            shown.append(f"{label} {last[key]:.3f}")
    snap = run.get("snapshot") or {}
    where = f", snapshot {snap['name']} ({snap['digest'][:12]}…)" if snap.get("digest") else ""
    data = run["data"]
    dropped = data["rows"] - data.get("rows_trained", data["rows"])
    rows = f"{data['rows']} rows" + (
        f" ({dropped} dropped: no assistant token within trainer.max_length)" if dropped else ""
    )
    return (
        f"{kind}: {run['steps']} step{'s' if run['steps'] != 1 else ''} on {rows} "
        f"(data {run['data']['digest'][:12]}…){where}: {', '.join(shown) or 'no loss logged'} "
        f"-> {result.output_dir}"
    )


def _train_command(kind: str, summary: str, config: str) -> None:
    """``train sft`` and ``train grpo``: one shape, ``--config FILE`` and overrides."""

    def command(config, overrides, fmt) -> None:
        _train(kind, config, overrides, fmt)

    command.__doc__ = f"""{summary}

    KEY=VALUE overrides change the config: dotted keys (trainer.learning_rate=1e-6, lora.r=16), YAML values
    (null, true, 1e-6, lora={{r: 16, alpha: 32}}). Keys: kind, model, data, output_dir, snapshot, store, source,
    sim_seed, as_of, scale, top_k, include_reference_tools, tasks, system_prompt, lora (r, alpha, dropout,
    target_modules), action_weight, max_records, max_chars, seed, trainer (trl's {
        "GRPOConfig" if kind == "grpo" else "SFTConfig"
    } fields, plus save_final).

    Example: kopa-replay train {kind} --config training/configs/{config} trainer.max_steps=1
    """
    command = click.argument("overrides", nargs=-1, metavar="[KEY=VALUE]...")(command)
    command = _output_option()(click_options(train_stage.Config)(command))
    train.command(kind)(command)


_train_command(
    "sft", "Supervised fine-tuning on the filtered conversations (assistant-only loss), LoRA optional.", "tiny_sft.yaml"
)
_train_command(
    "grpo",
    "GRPO whose rollouts call the tools against a pinned snapshot; reward = the benchmark's grader.",
    "tiny_grpo.yaml",
)


@train.command("tiny-model")
@click.argument("out", type=click.Path(file_okay=False))
@click.option("--seed", default=0, show_default=True, type=int, help="Seed of the random weights.")
@click.option("--vocab-size", default=4096, show_default=True, type=int, help="Tokenizer vocabulary size.")
@_output_option()
def train_tiny_model(out, seed, vocab_size, fmt) -> None:
    """Build a tiny random Qwen3 model and a local tokenizer with a tool-calling template (nothing downloaded).

    Example: kopa-replay train tiny-model runs/tiny-model
    """
    from kopa_replay.train.tiny import build_tiny_model

    path = build_tiny_model(out, seed=seed, vocab_size=vocab_size)
    _emit(
        fmt,
        {"path": str(path), "vocab_size": vocab_size, "seed": seed},
        f"tiny Qwen3 model and tokenizer (vocab {vocab_size}, seed {seed}) -> {path}",
    )


@train.command("eval")
@click.argument("checkpoint", required=False, type=click.Path())
@click.option("--base", help="The base model to run beside it [default: the run's config model].")
@click.option("--no-base", is_flag=True, help="Run the checkpoint only.")
@click.option(
    "--out", type=click.Path(file_okay=False), help="Where eval.json / eval.md go [default: CHECKPOINT/eval]."
)
@click.option("--rollouts", "k", default=4, show_default=True, type=int, help="Rollouts per task (k of pass@k).")
@click.option(
    "--temperature",
    default=0.7,
    show_default=True,
    type=float,
    help="Sampling temperature when --rollouts > 1 (one rollout decodes greedily).",
)
@click.option("--seed", default=0, show_default=True, type=int, help="Seed of the sampling stream.")
@click.option("--split", type=click.Choice(["main", "held_out"]), help="Only the tasks of this split.")
@click.option("--task", "task_ids", multiple=True, metavar="ID", help="Only this task (repeatable).")
@_tasks_option
@click.option("--snapshot", default="2026-09-01", show_default=True, help="The pinned snapshot the tools answer from.")
@click.option("--top-k", type=int, help="Tools offered per task (retrieved) [default: the run's top_k, else 16].")
@click.option("--max-turns", default=16, show_default=True, type=int, help="Assistant turns per rollout.")
@click.option("--max-new-tokens", default=1024, show_default=True, type=int, help="Tokens per assistant turn.")
@click.option(
    "--scale",
    type=click.Choice(["builtin", "paper"]),
    help="The catalog the tools are retrieved from [default: the run's, else builtin].",
)
@_llm_options("under test instead of a checkpoint (a vLLM server)")
@_store_option
@_output_option()
def train_eval(
    checkpoint,
    base,
    no_base,
    out,
    k,
    temperature,
    seed,
    split,
    task_ids,
    tasks_dir,
    snapshot,
    top_k,
    max_turns,
    max_new_tokens,
    scale,
    llm_url,
    llm_model,
    store,
    fmt,
) -> None:
    """Benchmark a trained checkpoint and its base model: pass@1 and pass@k per split.

    CHECKPOINT is a run directory of `train sft|grpo` (its final/ model, its base model and system prompt) or a
    model directory; leave it out with --llm-url to benchmark a served model (then --out is needed).

    Example: kopa-replay train eval runs/train/grpo-4b --rollouts 4
    """
    from pathlib import Path

    from kopa_replay.train.evaluate import EvalSpec, evaluate, table_markdown

    if out is None:
        if checkpoint is None:
            raise UsageError(
                "give a CHECKPOINT (a run directory or a model directory), or --llm-url with --out for a served model"
            )
        out = str(Path(checkpoint) / "eval")
    spec = EvalSpec(
        snapshot=snapshot,
        store=store,
        k=k,
        temperature=temperature,
        seed=seed,
        top_k=top_k,
        max_turns=max_turns,
        max_new_tokens=max_new_tokens,
        split=split,
        tasks=tasks_dir,
        task_ids=tuple(task_ids),
        scale=scale,
    )
    result = evaluate(checkpoint, out, spec, base=base, no_base=no_base, llm_url=llm_url, llm_model=llm_model)
    # the text is the Markdown table and where eval.json went
    _emit(
        fmt,
        result,
        lambda: f"{table_markdown(result['table'], k)}-> {out}/eval.json",
        markdown=lambda: table_markdown(result["table"], k),
    )
