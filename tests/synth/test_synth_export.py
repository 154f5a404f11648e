"""Export: canonical JSONL, SFT conversations and GRPO prompts in the trl formats."""

from __future__ import annotations

import json

import pytest

from kopa_replay.synth import Trajectory, grpo_rows, read_jsonl, sft_rows, write_jsonl
from kopa_replay.synth.export import answer_field, answer_text, jsonl_text
from kopa_replay.synth.model import Answer


@pytest.fixture
def trajectories(hand_corpus):
    out = []
    for t in hand_corpus.trajectories:
        copy = Trajectory.from_dict(t.to_dict())
        copy.question = f"{t.id}에 대한 질문"
        out.append(copy)
    return out


def test_jsonl_is_canonical_and_atomic(tmp_path, trajectories):
    path = write_jsonl(tmp_path / "out" / "trajectories.jsonl", trajectories)
    text = path.read_text(encoding="utf-8")
    assert text == jsonl_text(t.to_dict() for t in trajectories)
    lines = text.splitlines()
    assert len(lines) == len(trajectories)
    first = json.loads(lines[0])
    assert list(first) == sorted(first)
    assert "\\u" not in text  # Korean stays Korean
    assert [Trajectory.from_dict(row).to_dict() for row in read_jsonl(path)] == [t.to_dict() for t in trajectories]
    assert not [p for p in path.parent.iterdir() if p.name.endswith(".tmp")]


def test_sft_rows_follow_the_tool_calling_format(catalog, trajectories):
    rows = sft_rows(trajectories, catalog)
    assert len(rows) == len(trajectories)
    for row, t in zip(rows, trajectories):
        messages = row["messages"]
        assert [m["role"] for m in messages[:2]] == ["system", "user"]
        assert messages[1]["content"] == t.question
        assert messages[-1] == {"role": "assistant", "content": answer_text(t.answer)}
        pending: list[str] = []
        calls = 0
        for message in messages[2:-1]:
            if message["role"] == "assistant":
                assert not pending  # every call answered before the next turn
                for call in message["tool_calls"]:
                    assert call["type"] == "function"
                    assert isinstance(json.loads(call["function"]["arguments"]), dict)
                    pending.append(call["id"])
                calls += len(message["tool_calls"])
            else:
                assert message["role"] == "tool"
                assert message["tool_call_id"] == pending.pop(0)  # tool turns answer in call order
                result = json.loads(message["content"])
                assert result["outcome"] == "ok" and len(result["records"]) <= 20
        assert not pending
        assert calls == len(t.meta["calls"])
        ids = [c["id"] for m in messages if m["role"] == "assistant" for c in m.get("tool_calls", [])]
        assert len(ids) == len(set(ids))
        assert [tool["function"]["name"] for tool in row["tools"]] == list(dict.fromkeys(s.tool for s in t.steps))


def test_parallel_calls_share_one_assistant_turn(catalog, trajectories):
    fanned = [t for t in trajectories if len(t.steps) > len(t.junctions) + 1]
    assert fanned
    for t, row in zip(fanned, sft_rows(fanned, catalog)):
        turns = [
            [(c["function"]["name"], c["function"]["arguments"]) for c in m["tool_calls"]]
            for m in row["messages"]
            if m["role"] == "assistant" and m.get("tool_calls")
        ]
        first_page: dict[int, dict] = {}
        for call in t.meta["calls"]:
            first_page.setdefault(call["step"], call)
        for group in range(len(t.junctions) + 1):
            # the group's steps, each with its first page, are called together in one turn
            wanted = [
                (
                    first_page[s.index]["tool"],
                    json.dumps(first_page[s.index]["args"], sort_keys=True, ensure_ascii=False),
                )
                for s in t.steps
                if s.group == group
            ]
            assert wanted in turns
        assert max(len(turn) for turn in turns) >= 2


def test_grpo_rows_carry_the_grading_columns(catalog, trajectories):
    rows = grpo_rows(trajectories, catalog)
    for row, t in zip(rows, trajectories):
        assert [m["role"] for m in row["prompt"]] == ["system", "user"]
        assert row["trajectory_id"] == t.id and row["state_digest"] == t.state_digest
        assert row["answer_kind"] == t.answer.kind and isinstance(row["answer"], str)
        assert isinstance(row["answer_tolerance"], float)
        assert [c["name"] for c in row["required_calls"]] == [s.tool for s in t.steps]
        assert all(isinstance(c["arguments"], str) for c in row["required_calls"])
    # one type per column across rows, so a JSON loader can build one schema
    for key in rows[0]:
        assert len({type(row[key]) for row in rows}) == 1, key


def test_answers_as_text():
    assert answer_text(Answer("number", 215.79, 0.01, "", "%")) == "215.79%"
    assert answer_text(Answer("number", 1234567, 0, "", "원")) == "1,234,567 원"
    assert answer_text(Answer("number", 12.5, 0, "", "s")) == "12.5 초"
    assert answer_text(Answer("bool", True)) == "예" and answer_text(Answer("bool", False)) == "아니요"
    assert answer_text(Answer("text", "라이트론")) == "라이트론"
    assert answer_field(Answer("bool", False)) == "false" and answer_field(Answer("number", 3)) == "3"


def test_datasets_loads_the_exports(tmp_path, catalog, trajectories):
    datasets = pytest.importorskip("datasets")
    write_jsonl(tmp_path / "sft.jsonl", sft_rows(trajectories, catalog))
    write_jsonl(tmp_path / "grpo.jsonl", grpo_rows(trajectories, catalog))
    sft = datasets.load_dataset("json", data_files=str(tmp_path / "sft.jsonl"), split="train")
    grpo = datasets.load_dataset("json", data_files=str(tmp_path / "grpo.jsonl"), split="train")
    assert len(sft) == len(grpo) == len(trajectories)
    assert sft[0]["messages"][1]["content"] == trajectories[0].question
    assert grpo[0]["trajectory_id"] == trajectories[0].id
