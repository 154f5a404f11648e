"""LLMScorer: the judging prompt, the answer parser, and scoring through a real loopback chat server."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kopa_replay.catalog import builtin_catalog
from kopa_replay.errors import SourceError, UsageError
from kopa_replay.graph.model import BindingScorer, Scored
from kopa_replay.graph.score_llm import LLMScorer, build_messages, parse_answer, verdict
from kopa_replay.llm import ChatClient
from kopa_replay.llm.fake import Reply, running_chat_server

MODEL = "qwen-test"
CATALOG = builtin_catalog()
CORP_CODE = CATALOG.get("dart_corp_code")
CB_DECISION = CATALOG.get("dart_cvbd_is_decsn")
CORP_OUTLINE = CATALOG.get("datagokr_get_corp_outline_v2")
KRX_BASE = CATALOG.get("krx_stk_isu_base_info")
STOCK_PRICE = CATALOG.get("datagokr_get_stock_price_info")


def _score(answer, source=CORP_CODE, target=CB_DECISION, **kwargs) -> tuple[Scored, list]:
    """Score one pair against a loopback server whose answer is ``answer`` (a string or a function of the request)."""
    reply = answer if callable(answer) else (lambda request: answer)
    with running_chat_server(reply) as server:
        with ChatClient(server.url, MODEL, api_key=None, **kwargs) as client:
            scored = LLMScorer(client).score(source, target)
    return scored, server.received


# -- the prompt -----------------------------------------------------------------------------
@pytest.mark.parametrize(
    "language, instruction",
    [
        ("ko", "이름이 달라 보인다는 이유만으로 바인딩을 거부하지 마세요"),
        ("en", "Never reject a binding merely because the names look different"),
    ],
)
def test_the_prompt_asks_for_meaning_over_names_with_the_mapping_table(language, instruction):
    system, user = build_messages(CORP_CODE, CB_DECISION, language)
    assert system["role"] == "system" and user["role"] == "user"
    assert "judge by meaning, not by name" in system["content"].lower()
    assert instruction in system["content"]
    for name in (
        "SIGUN_NM",
        "REGION_NM",
        "rgn",
        "fssCorpUnqNo",
        "srtnCd",
        "ISU_SRT_CD",
        "basDt",
        "basDd",
        "bas_dd",
        "MLSV_YMD",
        "YYYYMM",
        '"feasibility"',
        '"bindings"',
        '"reason"',
    ):
        assert name in system["content"]


def test_the_prompt_shows_both_tools_names_descriptions_parameters_and_fields():
    _system, user = build_messages(CORP_CODE, CB_DECISION, "ko")
    text = user["content"]
    assert text.index("dart_corp_code") < text.index("dart_cvbd_is_decsn")  # source first, then target
    assert CORP_CODE.description_ko in text and CB_DECISION.description_ko in text
    for tool in (CORP_CODE, CB_DECISION):
        for param in tool.params:
            assert f"- {param} (" in text
        for field in tool.output_fields:
            assert f"- {field} (" in text
    # the target's required parameter with its type, requiredness, Korean description and format
    assert "- corp_code (string, 필수): DART 고유번호 8자리" in text and "[pattern ^[0-9]{8}$]" in text
    assert "- corp_name (string, 선택): 회사명 일부" in text
    english = build_messages(CORP_CODE, CB_DECISION, "en")[1]["content"]
    assert "- corp_code (string, required): 8-digit DART corp_code" in english
    assert CB_DECISION.description_en in english


def test_the_prompt_is_deterministic_and_the_language_checked():
    assert build_messages(CORP_CODE, CB_DECISION) == build_messages(CORP_CODE, CB_DECISION)
    with pytest.raises(UsageError, match="unknown scorer language 'fr'"):
        build_messages(CORP_CODE, CB_DECISION, "fr")


# -- scoring through a real server -------------------------------------------------------------
def test_a_fenced_answer_scores_the_dart_pair_and_is_asked_at_temperature_zero():
    def answer(request):
        prompt = request["messages"][-1]["content"]
        if "dart_corp_code" in prompt and "dart_cvbd_is_decsn" in prompt:
            return (
                '판정 결과입니다.\n```json\n{"feasibility": 0.92, "bindings": {"corp_code": "corp_code"}, '
                '"reason": "8자리 corp_code를 그대로 넘깁니다"}\n```\n이상입니다.'
            )
        return '{"feasibility": 0.0, "bindings": {}, "reason": "unrelated"}'

    scored, received = _score(answer)
    assert scored == Scored(0.92, {"corp_code": "corp_code"}, "8자리 corp_code를 그대로 넘깁니다")
    [request] = received
    assert request.json()["temperature"] == 0.0 and request.json()["model"] == MODEL


def test_the_scorer_is_a_binding_scorer_named_after_the_model():
    with ChatClient("http://127.0.0.1:9/v1", MODEL, api_key=None) as client:
        scorer: BindingScorer = LLMScorer(client, language="en")
        assert scorer.name == "llm:qwen-test"
        with pytest.raises(UsageError, match="language"):
            LLMScorer(client, language="jp")


def test_bindings_across_different_names_are_kept_when_both_exist():
    scored, _ = _score(
        '{"feasibility": 0.8, "bindings": {"srtnCd": "ISU_SRT_CD"}, "reason": "same 6-digit code"}',
        source=KRX_BASE,
        target=STOCK_PRICE,
    )
    assert scored.binding == {"srtnCd": "ISU_SRT_CD"} and scored.feasibility == 0.8


@pytest.mark.parametrize("written, clamped", [(1.7, 1.0), (-0.4, 0.0), ("0.55", 0.55), (1, 1.0)])
def test_feasibility_is_clamped_to_the_unit_interval(written, clamped):
    answer = json.dumps({"feasibility": written, "bindings": {"corp_code": "fssCorpUnqNo"}, "reason": "r"})
    scored, _ = _score(answer, source=CORP_OUTLINE)
    assert scored.feasibility == clamped


def test_bindings_naming_missing_parameters_or_fields_are_dropped_and_reported():
    answer = json.dumps(
        {
            "feasibility": 0.7,
            "reason": "ok",
            "bindings": {"corp_code": "corp_code", "company": "corp_name", "bgn_de": "rcept_dt"},
        }
    )
    scored, _ = _score(answer)
    assert scored.binding == {"corp_code": "corp_code"} and scored.feasibility == 0.7
    assert "dart_cvbd_is_decsn has no input parameter 'company'" in scored.reason
    assert "dart_corp_code has no output field 'rcept_dt'" in scored.reason
    assert scored.reason.startswith("ok; ")


def test_a_verdict_left_without_any_valid_binding_scores_zero():
    scored, _ = _score('{"feasibility": 0.9, "bindings": {"corp_code": "stock_code_8"}, "reason": "guess"}')
    assert scored.feasibility == 0.0 and scored.binding == {}
    assert "no usable binding" in scored.reason and "stock_code_8" in scored.reason


@pytest.mark.parametrize(
    "answer, problem",
    [
        ("이 연결은 가능해 보입니다. corp_code를 넘기면 됩니다.", "no JSON object"),
        ('```json\n{"feasibility": "high", "bindings": {"corp_code": "corp_code"}}\n```', "not a number"),
        ('{"bindings": {"corp_code": "corp_code"}}', "'feasibility' missing"),
        ('{"feasibility": NaN, "bindings": {"corp_code": "corp_code"}}', "not a number"),
        ("", "no JSON object"),
    ],
)
def test_an_unparseable_answer_scores_zero_with_a_reason_instead_of_raising(answer, problem):
    scored, _ = _score(answer)
    assert scored.feasibility == 0.0 and scored.binding == {}
    assert "unparseable LLM answer" in scored.reason and problem in scored.reason


def test_a_server_failure_is_a_source_error_naming_the_pair_and_the_url():
    with pytest.raises(SourceError) as caught:
        _score(lambda request: Reply(500, b'{"error": "boom"}'))
    message = str(caught.value)
    assert "dart_corp_code → dart_cvbd_is_decsn" in message and "llm:qwen-test" in message
    assert "/v1/chat/completions" in message and "HTTP 500" in message


def test_scores_recorded_once_replay_offline_with_no_requests(tmp_path):
    answer = '{"feasibility": 0.9, "bindings": {"corp_code": "corp_code"}, "reason": "r"}'
    store = tmp_path / "llm.sqlite"
    recorded, first = _score(answer, store=store, snapshot="s")
    with running_chat_server(lambda request: "the server must not be asked again") as server:
        with ChatClient(server.url, MODEL, store=store, snapshot="s", mode="replay") as client:
            replayed = LLMScorer(client).score(CORP_CODE, CB_DECISION)
    assert replayed == recorded and len(first) == 1 and server.requests == 0


# -- the parser, property-tested ---------------------------------------------------------------
answers = st.fixed_dictionaries(
    {
        "feasibility": st.floats(min_value=0.0, max_value=1.0),
        "bindings": st.dictionaries(st.text(max_size=12), st.text(max_size=12), max_size=4),
        "reason": st.text(max_size=40),
    }
)


@settings(max_examples=300, deadline=None)
@given(text=st.text(max_size=300))
def test_garbage_never_raises_and_always_scores_in_range(text):
    scored = verdict(text, CORP_CODE, CB_DECISION)
    assert 0.0 <= scored.feasibility <= 1.0
    assert all(
        param in CB_DECISION.params and field in CORP_CODE.output_fields for param, field in scored.binding.items()
    )


@settings(max_examples=300, deadline=None)
@given(text=st.text(alphabet='{}[]":,0123456789.-eE truefalsnNI\n`', max_size=120))
def test_json_like_garbage_never_raises(text):
    verdict(text, CORP_CODE, CB_DECISION)


@settings(max_examples=300, deadline=None)
@given(
    answer=answers,
    before=st.text(max_size=80),
    after=st.text(max_size=80),
    fenced=st.booleans(),
    ascii_only=st.booleans(),
)
def test_an_answer_embedded_in_any_text_is_recovered(answer, before, after, fenced, ascii_only):
    body = json.dumps(answer, ensure_ascii=ascii_only, indent=2 if fenced else None)
    if fenced:
        body = f"```json\n{body}\n```"
    assert parse_answer(before + body + after) == answer
