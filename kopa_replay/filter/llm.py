"""A model-backed judge for the second stage, over any OpenAI-compatible server (recorded like every call).

:class:`LLMJudge` speaks the same :class:`~kopa_replay.filter.model.Judge`
protocol as the offline judges, so it can stand beside one of them (or beside
another model, as the paper's two referees do). It sends one chat request per
check and expects a JSON object ``{"discard": true|false, "reason": "..."}``.
For the ``unconstrained`` check the model cannot execute anything, so the
prompt carries the evidence: the answer the plan gives when one junction's
values are replaced (the same probe the offline judges use).

An answer that is not such an object raises
:class:`~kopa_replay.errors.SourceError` naming the item and the check: a
judge that cannot be read is a failure, not a silent "keep".
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

from kopa_replay.errors import SourceError
from kopa_replay.filter.model import Case, Verdict
from kopa_replay.filter.perturb import probe_windows
from kopa_replay.synth.facts import answer_values, given_args, handed_values

__all__ = ["LLMJudge", "CHECK_PROMPTS", "parse_verdict"]

SYSTEM = (
    "당신은 한국어 공공 API 도구 사용 과제의 품질을 심사하는 엄격한 심사위원입니다. "
    "요청된 한 가지 기준만 판단하고, JSON 객체 하나만 출력하세요: "
    '{"discard": true 또는 false, "reason": "한 문장 이유"}'
)

#: what each check asks the model (Korean, as the questions are)
CHECK_PROMPTS: dict[str, str] = {
    "wrong_script": "기준: 한국어 질문에 한자(중국어)나 일본어 가나 문자가 섞여 있으면 discard=true.",
    "ungradable": (
        "기준: 정답이 숫자, 짧은 텍스트, 짧은 목록, 예/아니오처럼 자동 채점이 가능한 형태가 아니면 "
        "(비어 있거나 긴 서술형이면) discard=true."
    ),
    "disclosed": (
        "기준: 질문 문장에 정답 값이나 호출 사이에 넘겨지는 중간 값이 (쉼표, 소수점, 날짜 형식, "
        "앞자리 0, 띄어쓰기가 달라도) 드러나 있으면 discard=true. 사용자가 알려 준 시작 정보는 노출이 아닙니다."
    ),
    "unconstrained": (
        "기준: 중간 호출에 넘기는 값을 다른 값으로 바꿔 다시 실행해도 정답이 그대로라면 그 중간 호출은 "
        "정답을 제약하지 않으므로 discard=true. 아래 실행 증거를 보고 판단하세요."
    ),
}

_OBJECT = re.compile(r"\{.*\}", re.DOTALL)


def parse_verdict(text: str) -> Verdict | None:
    """The verdict in a model's answer (fenced or bare JSON object with a boolean ``discard``), or None."""
    match = _OBJECT.search(text or "")
    if not match:
        return None
    try:
        doc = json.loads(match.group())
    except ValueError:
        return None
    if not isinstance(doc, dict) or not isinstance(doc.get("discard"), bool):
        return None
    return Verdict(doc["discard"], str(doc.get("reason", "")).strip())


def _evidence(case: Case) -> str:
    if not case.can_probe:
        return "실행 증거 없음."
    lines = []
    for index, junction in enumerate(case.trajectory.junctions):
        windows = probe_windows(tuple(junction.values), case.candidates(index), 1, from_end=False)
        for window in windows:
            answer = case.perturbed(index, window)
            got = "실행 실패(답 없음)" if answer is None else repr(answer.value)
            lines.append(
                f"- 연결 {index} (단계 {junction.source}→{junction.target}) 값 {list(junction.values)!r}를 "
                f"{list(window)!r}로 바꾸면 정답: {got}"
            )
        if not windows:
            lines.append(f"- 연결 {index}: 바꿔 볼 다른 값 없음")
    return "\n".join(lines) or "연결 없음."


class LLMJudge:
    """One model as a judge. ``client`` has ``chat(messages) -> str`` (a :class:`~kopa_replay.llm.ChatClient`)."""

    def __init__(self, client: Any, *, name: str | None = None) -> None:
        self.client = client
        self.name = name or f"llm:{getattr(client, 'model', 'model')}"
        self._facts: dict[str, Callable[[Case], str]] = {"unconstrained": _evidence}

    def messages(self, check: str, case: Case) -> list[dict[str, str]]:
        """The chat messages for one check of one item (public, so tests and logs can see the prompt)."""
        t = case.trajectory
        tools = []
        for step in t.steps:
            title = step.tool
            if case.catalog is not None and step.tool in case.catalog:
                title = f"{case.catalog.get(step.tool).title} ({step.tool})"
            tools.append(f"{step.index}. {title}")
        body = [
            CHECK_PROMPTS[check],
            f"질문: {t.question}",
            f"정답 형식: {t.answer.kind}, 정답: {json.dumps(answer_values(t) or t.answer.value, ensure_ascii=False)}",
            f"사용자가 준 시작 정보: {json.dumps([[p, v] for _, p, v in given_args(t, case.catalog)], ensure_ascii=False)}",
            f"호출 사이에 넘겨지는 값: {json.dumps([str(v) for v in handed_values(t)], ensure_ascii=False)}",
            "도구 순서:\n" + "\n".join(tools),
        ]
        if check in self._facts:
            body.append("실행 증거:\n" + self._facts[check](case))
        return [{"role": "system", "content": SYSTEM}, {"role": "user", "content": "\n".join(body)}]

    def judge(self, check: str, case: Case) -> Verdict:
        if check not in CHECK_PROMPTS:
            raise SourceError(f"judge {self.name!r} has no prompt for check {check!r}")
        text = self.client.chat(self.messages(check, case))
        verdict = parse_verdict(text)
        if verdict is None:
            shown = (text or "").strip()[:120]
            raise SourceError(
                f"judge {self.name!r} on item {case.trajectory.id!r}, check {check!r}: the model did "
                f"not answer a JSON object with a boolean 'discard' (got {shown!r})"
            )
        return verdict
