"""The GRPO reward: the benchmark's grader on each finished rollout.

A rollout's calls are its environment's log (every call the model made,
through the pinned snapshot) and its answer is the last assistant message
without tool calls; :meth:`Rollout.from_environment
<kopa_replay.bench.model.Rollout.from_environment>` and
:func:`~kopa_replay.bench.grade.grade` — the calls ``bench run`` makes — turn
them into the three axes. The reward is the paper's binary one, 1 when the
RESPONSE and the ENVIRONMENT axes pass, else 0, plus ``action_weight`` when
ACTION passes (a shaped term, 0 by default). A rollout that ran out of
turns (its last message still asks for tools) has no answer.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from kopa_replay.bench.grade import grade
from kopa_replay.bench.model import Grade, Rollout, Task

__all__ = ["GraderReward", "final_answer"]


def final_answer(completion: Any) -> str | None:
    """The rollout's answer: the text of its last assistant message when that message calls no tool."""
    from kopa_replay.bench.chat_agent import parse_hermes_tool_calls

    if isinstance(completion, str):
        text = completion
    else:
        last = next((m for m in reversed(list(completion)) if m.get("role") == "assistant"), None)
        if last is None or last.get("tool_calls") or completion[-1].get("role") != "assistant":
            return None
        content = last.get("content")
        if isinstance(content, list):  # content blocks
            content = "".join(str(part.get("text", "")) for part in content if isinstance(part, Mapping))
        text = str(content or "")
    parsed = parse_hermes_tool_calls(text)  # drops <think> spans; a block left in the text is an unparsed call
    if parsed.calls:
        return None
    return parsed.content or None


class GraderReward:
    """``reward(prompts, completions, environments, task, **kw)`` for trl: one float per completion.

    ``task`` is the dataset column (a :class:`~kopa_replay.bench.model.Task` as
    JSON per row); ``environments`` the rollouts' :class:`~kopa_replay.train.tools.RolloutEnvironment`
    instances. :attr:`last_grades` keeps the latest batch's grades.
    """

    __name__ = "grader"

    def __init__(self, action_weight: float = 0.0) -> None:
        self.action_weight = float(action_weight)
        self.last_grades: list[Grade] = []

    def grade(self, task: Task, completion: Any, environment: Any, index: int = 0) -> Grade:
        rollout = Rollout.from_environment(task.id, "policy", index, final_answer(completion), environment._env)
        return grade(task, rollout)

    def value(self, result: Grade) -> float:
        binary = 1.0 if result.response.passed and result.environment.passed else 0.0
        return binary + (self.action_weight if result.action.passed else 0.0)

    def __call__(
        self,
        prompts: Sequence[Any],
        completions: Sequence[Any],
        *,
        environments: Sequence[Any],
        task: Sequence[str],
        **_: Any,
    ) -> list[float]:
        grades = [
            self.grade(Task.from_dict(json.loads(text)), completion, environment, i)
            for i, (completion, environment, text) in enumerate(zip(completions, environments, task, strict=True))
        ]
        self.last_grades = grades
        return [self.value(g) for g in grades]
