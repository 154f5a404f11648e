"""The model-backed judge through the loopback fake chat server."""

from __future__ import annotations

import json

import pytest
from filter_fixtures import FakePlanner, moves_with, trajectory

from kopa_replay.errors import SourceError
from kopa_replay.filter import LLMJudge, RegexJudge, run_filter
from kopa_replay.filter.llm import CHECK_PROMPTS, parse_verdict
from kopa_replay.filter.model import Case, Verdict
from kopa_replay.llm import ChatClient
from kopa_replay.llm.fake import Reply, running_chat_server
from kopa_replay.synth.model import Answer


def _user(request) -> str:
    return request["messages"][-1]["content"]


def test_the_judge_sends_one_check_and_reads_a_fenced_verdict():
    def answer(request):
        assert request["messages"][0]["role"] == "system"
        return '```json\n{"discard": true, "reason": "질문에 고유번호가 있습니다"}\n```'

    item = trajectory(question="고유번호 00126380인 회사의 전환사채는 몇 %입니까?")
    with running_chat_server(answer) as server, ChatClient(server.url, "judge-model") as client:
        judge = LLMJudge(client)
        verdict = judge.judge("disclosed", Case(item))
    assert verdict == Verdict(True, "질문에 고유번호가 있습니다")
    assert judge.name == "llm:judge-model"
    prompt = _user(server.received[0].json())
    assert CHECK_PROMPTS["disclosed"] in prompt
    assert item.question in prompt and "00126380" in prompt  # the model is shown what must stay secret
    assert "라이트론" in prompt  # and what the user gave


def test_the_unconstrained_prompt_carries_the_execution_evidence():
    item = trajectory(answer=Answer("number", 3))
    case = Case(item, None, lambda j: ("00999999", "00888888"), lambda j, values: Answer("number", 3))
    with (
        running_chat_server(lambda r: '{"discard": true, "reason": "답이 그대로"}') as server,
        ChatClient(server.url, "judge-model") as client,
    ):
        assert LLMJudge(client).judge("unconstrained", case).discard
    prompt = _user(server.received[0].json())
    assert "실행 증거" in prompt and "['00999999']로 바꾸면 정답: 3" in prompt


def test_an_unreadable_verdict_is_an_error_naming_the_item_and_check():
    with (
        running_chat_server(lambda r: "글쎄요, 잘 모르겠습니다.") as server,
        ChatClient(server.url, "judge-model") as client,
    ):
        with pytest.raises(SourceError, match=r"item 't0001', check 'wrong_script'.*boolean 'discard'"):
            LLMJudge(client).judge("wrong_script", Case(trajectory()))


def test_a_failing_server_is_an_error_too():
    with (
        running_chat_server(lambda r: Reply(500, b'{"error": "down"}')) as server,
        ChatClient(server.url, "judge-model") as client,
    ):
        with pytest.raises(SourceError, match="HTTP 500"):
            LLMJudge(client).judge("ungradable", Case(trajectory()))


@pytest.mark.parametrize(
    "text, verdict",
    [
        ('{"discard": false, "reason": "ok"}', Verdict(False, "ok")),
        ('판정: {"discard": true}', Verdict(True, "")),
        ('{"discard": "yes"}', None),
        ("[true]", None),
        ("", None),
    ],
)
def test_parse_verdict(text, verdict):
    assert parse_verdict(text) == verdict


def test_a_model_judge_stands_beside_an_offline_one(catalog):
    """The model agrees with the regex judge on the leak (discarded) and disagrees elsewhere (kept)."""

    def answer(request):
        prompt = _user(request)
        leak = CHECK_PROMPTS["disclosed"] in prompt and "00126380인" in prompt
        return json.dumps({"discard": leak or CHECK_PROMPTS["ungradable"] in prompt, "reason": "모델 판단"})

    items = [
        trajectory("t0001", question="고유번호 00126380인 회사의 전환사채는 몇 %입니까?"),
        trajectory("t0002", start_args={"corp_name": "삼성전자"}),
    ]
    with running_chat_server(answer) as server, ChatClient(server.url, "judge-model") as client:
        result = run_filter(
            items, catalog, None, [RegexJudge(), LLMJudge(client)], planner=FakePlanner(answer=moves_with({}))
        )
    (discard,) = result.discarded
    assert discard.trajectory_id == "t0001" and discard.check == "disclosed"
    assert "llm:judge-model: 모델 판단" in discard.detail
    assert [t.id for t in result.kept] == ["t0002"]
    assert result.report["stages"]["judges"]["disagreed"]["ungradable"] == ["t0001", "t0002"]
    assert server.requests >= 6
