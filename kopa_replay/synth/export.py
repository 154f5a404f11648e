"""Trajectories as training data: canonical JSONL, SFT conversations and GRPO prompts (trl formats).

* :func:`sft_rows` — one conversation per trajectory in the OpenAI / trl
  tool-calling format: system (tool-use instructions), user (the question),
  assistant turns whose ``tool_calls`` are the executed calls — the calls of
  one parallel group in **one** assistant turn, a step's later pages in later
  turns (the agent learns the total from page one) — each followed by a ``tool``
  turn per call with its result (first ``max_records`` records), and the
  final assistant answer; a ``tools`` column with the OpenAI schemas of the
  tools used.
* :func:`grpo_rows` — the prompt (system + user) and ``tools`` for trl's
  ``GRPOTrainer``, plus the grading columns a reward function reads: answer
  kind, value (as text), tolerance and unit, the required calls, the
  reference state digest, the trajectory id.

Columns hold one type across rows (values that vary in type — an answer that
is a number in one row and a name in the next, call arguments — are JSON
text), so ``datasets.load_dataset("json", data_files=...)`` can read them.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from kopa_replay.catalog.model import Catalog
from kopa_replay.env.retrieval import openai_tools
from kopa_replay.synth.model import Answer, Trajectory, shape_of
from kopa_replay.util import write_atomic

__all__ = [
    "SYSTEM_PROMPT",
    "jsonl_line",
    "jsonl_text",
    "write_jsonl",
    "read_jsonl",
    "answer_text",
    "answer_field",
    "sft_rows",
    "grpo_rows",
]

SYSTEM_PROMPT = (
    "당신은 한국 공공데이터 API 도구를 호출해 질문에 답하는 어시스턴트입니다. "
    "You answer questions about Korean public data by calling the tools provided.\n"
    "- 도구가 코드(고유번호, 지역코드, 노선ID 등)를 요구하면 그 코드를 돌려주는 도구로 먼저 조회하고, 추측하지 마세요. "
    "When a tool needs a code, look it up with the tool that returns it; never guess.\n"
    "- 결과가 여러 페이지로 나뉘면 답에 필요한 페이지를 모두 읽으세요. "
    "When a result is split into pages, read every page the answer needs.\n"
    "- 서로 의존하지 않는 호출은 한 번에 함께 하세요. Calls that do not depend on each other may be made together.\n"
    "- 답을 얻으면 답만 간결하게 말하세요. When you have the answer, state it briefly."
)


# -- JSONL ------------------------------------------------------------------------------
def jsonl_line(row: Mapping[str, Any]) -> str:
    """One row as canonical JSON (sorted keys, UTF-8 text kept) and a newline."""
    return json.dumps(row, sort_keys=True, ensure_ascii=False) + "\n"


def jsonl_text(rows: Iterable[Mapping[str, Any]]) -> str:
    return "".join(jsonl_line(row) for row in rows)


def write_jsonl(path: str | Path, rows: Iterable[Mapping[str, Any] | Trajectory]) -> Path:
    """Write ``rows`` (a trajectory as its ``to_dict``) as JSONL, atomically (a reader never sees half a file).
    Returns the path."""
    path = Path(path)
    write_atomic(path, jsonl_text(row.to_dict() if isinstance(row, Trajectory) else row for row in rows))
    return path


def read_jsonl(path: str | Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in Path(path).read_text(encoding="utf-8").splitlines() if line.strip()]


# -- answers as text ----------------------------------------------------------------------
_UNIT_TEXT = {"s": "초"}


def answer_field(answer: Answer) -> str:
    """The answer value as one text column: numbers as written by Python, ``true``/``false``, names as is."""
    if answer.kind == "bool":
        return "true" if answer.value else "false"
    if answer.kind == "set":
        return json.dumps(sorted(str(v) for v in answer.value), ensure_ascii=False)
    return str(answer.value)


def answer_text(answer: Answer) -> str:
    """The final assistant message: ``215.79%``, ``580``, ``예`` / ``아니요``, a name."""
    if answer.kind == "bool":
        return "예" if answer.value else "아니요"
    if answer.kind == "number":
        value = answer.value
        number = f"{value:,}" if isinstance(value, int) else f"{value:,.4f}".rstrip("0").rstrip(".")
        unit = _UNIT_TEXT.get(answer.unit, answer.unit)
        return f"{number}{unit}" if unit in ("%", "") else f"{number} {unit}"
    if answer.kind == "set":
        return ", ".join(sorted(str(v) for v in answer.value))
    return str(answer.value)


# -- rows --------------------------------------------------------------------------------
def _calls(trajectory: Trajectory) -> list[dict[str, Any]]:
    calls = trajectory.meta.get("calls")
    if calls:
        return list(calls)
    # a trajectory made without page records: one call per step, results unknown
    return [
        {
            "step": s.index,
            "group": s.group,
            "tool": s.tool,
            "args": dict(s.args),
            "outcome": s.outcome,
            "total_count": s.total_count,
            "record_count": s.records,
            "records": [],
        }
        for s in trajectory.steps
    ]


def _rounds(trajectory: Trajectory) -> list[list[dict[str, Any]]]:
    """Assistant turns: per group, round r holds page r of every step of the group that has one."""
    by_group: dict[int, dict[int, list[dict[str, Any]]]] = defaultdict(lambda: defaultdict(list))
    for call in _calls(trajectory):
        by_group[call["group"]][call["step"]].append(call)
    rounds = []
    for group in sorted(by_group):
        steps = by_group[group]
        for r in range(max(len(pages) for pages in steps.values())):
            rounds.append([steps[step][r] for step in sorted(steps) if len(steps[step]) > r])
    return rounds


def _tool_names(trajectory: Trajectory) -> list[str]:
    names: list[str] = []
    for step in trajectory.steps:
        if step.tool not in names:
            names.append(step.tool)
    return names


def _prompt(trajectory: Trajectory, system: str) -> list[dict[str, Any]]:
    return [{"role": "system", "content": system}, {"role": "user", "content": trajectory.question}]


def sft_rows(
    trajectories: Sequence[Trajectory], catalog: Catalog, *, max_records: int = 20, system: str = SYSTEM_PROMPT
) -> list[dict[str, Any]]:
    """One trl/OpenAI tool-calling conversation per trajectory (see the module docstring)."""
    rows = []
    for trajectory in trajectories:
        messages = _prompt(trajectory, system)
        n = 0
        for batch in _rounds(trajectory):
            ids = [f"call_{n + i + 1:03d}" for i in range(len(batch))]
            n += len(batch)
            messages.append(
                {
                    "role": "assistant",
                    "content": "",
                    "tool_calls": [
                        {
                            "id": call_id,
                            "type": "function",
                            "function": {
                                "name": call["tool"],
                                "arguments": json.dumps(call["args"], sort_keys=True, ensure_ascii=False),
                            },
                        }
                        for call_id, call in zip(ids, batch)
                    ],
                }
            )
            for call_id, call in zip(ids, batch):
                shown = call["records"][:max_records]
                result = {
                    "outcome": call["outcome"],
                    "total_count": call["total_count"],
                    "returned": call["record_count"],
                    "records": shown,
                }
                messages.append(
                    {
                        "role": "tool",
                        "tool_call_id": call_id,
                        "name": call["tool"],
                        "content": json.dumps(result, sort_keys=True, ensure_ascii=False),
                    }
                )
        messages.append({"role": "assistant", "content": answer_text(trajectory.answer)})
        rows.append(
            {
                "id": trajectory.id,
                "pattern": trajectory.pattern,
                "shape": shape_of(trajectory),
                "messages": messages,
                "tools": openai_tools(catalog, _tool_names(trajectory)),
            }
        )
    return rows


def grpo_rows(
    trajectories: Sequence[Trajectory], catalog: Catalog, *, system: str = SYSTEM_PROMPT
) -> list[dict[str, Any]]:
    """Prompts for trl's ``GRPOTrainer`` with the grading columns (see the module docstring)."""
    rows = []
    for trajectory in trajectories:
        answer = trajectory.answer
        required = [
            {"name": step.tool, "arguments": json.dumps(dict(step.args), sort_keys=True, ensure_ascii=False)}
            for step in trajectory.steps
        ]
        rows.append(
            {
                "prompt": _prompt(trajectory, system),
                "tools": openai_tools(catalog, _tool_names(trajectory)),
                "answer_kind": answer.kind,
                "answer": answer_field(answer),
                "answer_tolerance": float(answer.tolerance),
                "answer_unit": answer.unit,
                "required_calls": required,
                "required_tools": _tool_names(trajectory),
                "state_digest": trajectory.state_digest,
                "trajectory_id": trajectory.id,
                "pattern": trajectory.pattern,
                "shape": shape_of(trajectory),
            }
        )
    return rows
