"""Run configs and overrides, and reading a rollout's final answer."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kopa_replay.errors import UsageError
from kopa_replay.train.config import TrainConfig, apply_overrides, load_config

CONFIGS = Path(__file__).resolve().parents[2] / "training" / "configs"
KEY = st.text(alphabet="abcdefghij_", min_size=1, max_size=6)
SCALAR = st.one_of(
    st.integers(-(10**6), 10**6), st.booleans(), st.text(alphabet="abcxyz가나다", min_size=1, max_size=8)
)


@given(path=st.lists(KEY, min_size=1, max_size=3), value=SCALAR)
def test_an_override_sets_exactly_its_dotted_path(path, value):
    base = {"trainer": {"learning_rate": 1e-6}, "top_k": 16}
    text = value if isinstance(value, str) else str(value).lower() if isinstance(value, bool) else str(value)
    if isinstance(value, str):
        text = f"'{value}'"
    out = apply_overrides(base, [f"{'.'.join(path)}={text}"])
    node = out
    for part in path[:-1]:
        node = node[part]
    assert node[path[-1]] == value
    untouched = {k: v for k, v in base.items() if k != path[0]}
    assert all(out[k] == v for k, v in untouched.items())
    assert base == {"trainer": {"learning_rate": 1e-6}, "top_k": 16}  # the input is not changed


def test_every_shipped_config_loads_and_trl_takes_its_trainer_settings(tmp_path):
    import trl

    from kopa_replay.train.run import _trl_args

    kinds = {}
    for path in sorted(CONFIGS.glob("*.yaml")):
        config = load_config(path, [f"output_dir={tmp_path / path.stem}"])
        kinds[path.stem] = config.kind
        # every trainer key is a field of trl's config class (on this CPU machine half precision is switched off)
        args = _trl_args(config, trl.GRPOConfig if config.kind == "grpo" else trl.SFTConfig, {})
        assert all(hasattr(args, key) for key in config.trainer if key != "save_final")
    assert kinds["qwen3_5_9b_grpo"] == "grpo" and kinds["tiny_sft"] == "sft" and len(kinds) == 6
    big = load_config(CONFIGS / "qwen3_5_9b_grpo.yaml")
    assert big.model == "Qwen/Qwen3.5-9B" and big.snapshot == "corpus" and big.trainer["use_vllm"] is True
    assert big.output_dir.startswith("runs/train/")
    assert load_config(CONFIGS / "qwen3_5_4b_grpo.yaml", ["lora={r: 8}"]).lora.r == 8


def test_config_mistakes_name_the_file_and_key(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("kind: grpo\nmodel: m\ndata: d\noutput_dir: o\nlearning_rate: 1\n", encoding="utf-8")
    with pytest.raises(UsageError, match=r"bad.yaml: unknown key learning_rate"):
        load_config(bad)
    bad.write_text("- a list\n", encoding="utf-8")
    with pytest.raises(UsageError, match="a config is a mapping"):
        load_config(bad)
    bad.write_text("kind: grpo\nmodel: m\n", encoding="utf-8")
    with pytest.raises(UsageError, match="missing data, output_dir"):
        load_config(bad)
    bad.write_text("kind: grpo\nmodel: m\ndata: d\noutput_dir: o\nsource: live\n", encoding="utf-8")
    with pytest.raises(UsageError, match="source must be 'replay' or 'sim'"):
        load_config(bad)
    with pytest.raises(UsageError, match="lora needs r >= 1"):
        load_config(CONFIGS / "tiny_grpo.yaml", ["lora.r=0"])
    with pytest.raises(UsageError, match="max_steps is not a mapping"):
        load_config(CONFIGS / "tiny_grpo.yaml", ["trainer.max_steps.x=1"])
    for override, message in (
        ("lora.r=abc", "lora.r must be an integer"),
        ("lora={r: 4.5}", "lora.r must be an"),
        ("lora.dropout=x", "lora.dropout must be a number"),
        ("lora.target_modules=[]", "lora.target_modules must be"),
    ):
        with pytest.raises(UsageError, match=message):
            load_config(CONFIGS / "tiny_grpo.yaml", [override])


def test_credentials_never_reach_the_written_config():
    config = load_config(
        CONFIGS / "tiny_grpo.yaml", ["trainer.hub_token=hf_secretvalue123", "trainer.learning_rate=1e-6"]
    )
    public = config.public_dict()
    assert public["trainer"]["hub_token"] == "<redacted>" and public["trainer"]["learning_rate"] == 1e-6
    assert "hf_secretvalue123" not in str(public)


def test_unquoted_dates_read_as_text():
    config = load_config(
        None, ["kind=grpo", "model=m", "data=d", "output_dir=o", "snapshot=2026-09-01", "as_of=2026-08-01"]
    )
    assert config.snapshot == "2026-09-01" and config.as_of == "2026-08-01"
    assert TrainConfig(**{**config.to_dict(), "lora": None}).to_dict() == config.to_dict()


@pytest.mark.parametrize(
    ("completion", "expected"),
    [
        ([{"role": "assistant", "content": "632 명"}], "632 명"),
        ([{"role": "assistant", "content": "<think>세어 보면</think>632 명"}], "632 명"),
        (
            [
                {"role": "assistant", "content": "", "tool_calls": [{"function": {"name": "x", "arguments": {}}}]},
                {"role": "tool", "name": "x", "content": "{}"},
            ],
            None,
        ),
        ([{"role": "assistant", "content": '<tool_call>\n{"name": "x", "arguments": {}}\n</tool_call>'}], None),
        ([{"role": "assistant", "content": "   "}], None),
        ("그냥 글 632", "그냥 글 632"),
    ],
)
def test_final_answer_is_the_last_message_that_calls_nothing(completion, expected):
    from kopa_replay.train.reward import final_answer

    assert final_answer(completion) == expected


def test_a_served_model_samples_each_request_with_its_own_seed():
    """k > 1 rollouts through a server must differ and replay: temperature and a per-request seed go out."""
    from kopa_replay.bench.chat_agent import OpenAIBackend
    from kopa_replay.llm.client import chat_body

    class Client:
        def __init__(self):
            self.sent = []

        def chat_message(self, messages, **kwargs):
            self.sent.append(kwargs)
            return {"role": "assistant", "content": "x"}

    greedy, sampled = Client(), Client()
    for backend in (OpenAIBackend(greedy), OpenAIBackend(sampled, temperature=0.7, seed=5)):
        for _ in range(3):
            backend.complete([{"role": "user", "content": "q"}], [])
    assert [(s["temperature"], s["seed"]) for s in greedy.sent] == [(0.0, None)] * 3
    assert [(s["temperature"], s["seed"]) for s in sampled.sent] == [(0.7, 5), (0.7, 6), (0.7, 7)]
    assert b'"seed":6' in chat_body("m", [{"role": "user", "content": "q"}], seed=6)
    assert b"seed" not in chat_body("m", [{"role": "user", "content": "q"}])
