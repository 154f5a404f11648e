"""Question writers: the Korean template never states a handed value or the answer; the model writer's prompt."""

from __future__ import annotations

import dataclasses
import unicodedata

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from kopa_replay.catalog import builtin_catalog
from kopa_replay.errors import KopaError, SourceError
from kopa_replay.filter.judges import RegexJudge, TokenJudge
from kopa_replay.filter.model import Case
from kopa_replay.llm import ChatClient
from kopa_replay.llm.fake import running_chat_server
from kopa_replay.synth.model import Answer, Junction, Reduction, Step, Trajectory
from kopa_replay.synth.questions import (
    SELF_CHECK,
    IntentWriter,
    LLMWriter,
    TemplateWriter,
    clean_question,
    josa,
    param_label,
    write_all,
)
from kopa_replay.text import foreign_script, has_hangul

CATALOG = builtin_catalog()
WRITER = TemplateWriter()


def lightron(
    handed: tuple = ("00439743",),
    spec: dict | None = None,
    answer: Answer | None = None,
    reduction: Reduction | None = None,
    kind: str = "sequential",
) -> Trajectory:
    """The paper's example: company name → corp code → convertible bond → prior close; the code is handed."""
    steps = [Step(0, "dart_corp_code", {"corp_name": "라이트론"}, "ok", 2, 2, "a", 0)]
    for i, code in enumerate(handed):
        steps.append(
            Step(
                1 + i,
                "dart_cvbd_is_decsn",
                {"corp_code": code, "bgn_de": "20260101", "end_de": "20260131"},
                "ok",
                1,
                1,
                "b",
                1,
            )
        )
    last = len(steps)
    steps.append(
        Step(last, "datagokr_get_stock_price_info", {"itmsNm": "라이트론", "basDt": "20260831"}, "ok", 1, 1, "c", 2)
    )
    junctions = [
        Junction(0, 1, {"corp_code": "corp_code"}, kind, 2, len(handed), tuple(handed), reduction),
        Junction(1, last, {"itmsNm": "corp_name"}, "sequential", 1, 1, ("라이트론",)),
    ]
    spec = spec or {
        "op": "pct_change",
        "a": {"op": "value", "group": 2, "branch": 0, "field": "clpr"},
        "b": {"op": "value", "group": 1, "branch": 0, "field": "act_mktprcfl_cvprc_lwtrsprc"},
    }
    return Trajectory(
        "t0001",
        "chain",
        steps,
        junctions,
        answer or Answer("number", 215.79, 0.01, "", "%"),
        "",
        tuple(handed) + ("라이트론",),
        "digest",
        {"answer_spec": spec},
    )


def disclosed(item: Trajectory, question: str) -> list[bool]:
    case = Case(dataclasses.replace(item, question=question), CATALOG)
    return [judge.judge("disclosed", case).discard for judge in (RegexJudge(), TokenJudge())]


def test_the_template_reads_like_the_papers_example():
    item = lightron()
    question = WRITER.write(item, CATALOG)
    assert question.startswith("회사명 라이트론으로 「공시대상회사 고유번호 검색")
    assert "「주요사항보고서 전환사채권 발행결정」" in question and "「금융위원회 주식시세정보 조회」" in question
    assert "2026년 1월 1일" in question and "2026년 8월 31일" in question  # dates as Korean writes them
    assert "보다 몇 % 높습니까?" in question
    assert "00439743" not in question and "215.79" not in question
    assert disclosed(item, question) == [False, False]
    assert has_hangul(question) and not foreign_script(question)
    assert WRITER.write(item, CATALOG) == question  # deterministic


@pytest.mark.parametrize(
    "spec, answer, words",
    [
        ({"op": "count", "group": 2}, Answer("number", 12), ("결과는 모두 몇 건입니까?",)),
        ({"op": "sum", "group": 2, "field": "trqu"}, Answer("number", 123456), ("거래량 합계는 얼마입니까?",)),
        (
            {"op": "value", "group": 2, "branch": 0, "field": "clpr"},
            Answer("number", 1680, unit="원"),
            ("종가는 몇 원입니까?",),
        ),
        (
            {"op": "argmax", "group": 1, "metric": {"agg": "count"}, "label": None},
            Answer("text", "00439743"),
            ("결과 건수가 가장 많은 것은 어느 DART 고유번호입니까?",),
        ),
        (
            {"op": "argmin", "group": 2, "metric": {"agg": "value", "field": "clpr"}, "label": "itmsNm"},
            Answer("text", "라이트론"),
            ("종가가 가장 작은 것은 어느 종목명입니까?",),
        ),
        (
            {"op": "threshold", "of": {"op": "count", "group": 2}, "cmp": ">", "threshold": 30},
            Answer("bool", True),
            ("결과 건수가 30보다 큽니까? (예/아니오)",),
        ),
    ],
)
def test_the_final_ask_follows_the_answer_spec(spec, answer, words):
    question = WRITER.write(lightron(spec=spec, answer=answer), CATALOG)
    for word in words:
        assert word in question, question


@pytest.mark.parametrize(
    "reduction, words",
    [
        (Reduction("max", "bd_tm", None, 2), "가장 큰 2개"),
        (Reduction("min", "bd_tm", None, 1), "가장 작은 DART 고유번호로"),
        (Reduction("threshold", "bd_tm", 1500.0, 2), "1,500 초과인"),
        (Reduction("most_frequent", "corp_code", None, 2), "가장 많이 나온 2개"),
    ],
)
def test_reductions_are_phrased(reduction, words):
    handed = ("00439743", "01358622") if reduction.kept == 2 else ("00439743",)
    question = WRITER.write(lightron(handed=handed, reduction=reduction, kind="derived"), CATALOG)
    assert words in question, question


def test_a_fan_out_says_each():
    question = WRITER.write(lightron(handed=("00439743", "01358622"), kind="fan_out"), CATALOG)
    assert "그 결과에 나오는 DART 고유번호 각각에 대해" in question


_CODES = st.from_regex(r"0[0-9]{7}", fullmatch=True)
_NUMBERS = st.integers(min_value=10, max_value=10**12).map(str)
_DATES = st.dates().map(lambda d: d.strftime("%Y%m%d"))
_NAMES = st.text(alphabet=st.characters(min_codepoint=0xAC00, max_codepoint=0xD7A3), min_size=2, max_size=6)
_IDS = st.from_regex(r"[A-Z]{3}[0-9]{7}", fullmatch=True)


@settings(max_examples=150, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.one_of(_CODES, _NUMBERS, _DATES, _NAMES, _IDS), min_size=1, max_size=5, unique=True))
def test_the_template_never_states_a_handed_value(values):
    handed = tuple(values)
    kind = "fan_out" if len(handed) > 1 else "sequential"
    # the same trajectory with other handed values: its text is the template's fixed vocabulary
    other = WRITER.write(lightron(handed=tuple(f"0{i:07d}" for i in range(len(handed))), kind=kind), CATALOG)
    assume(not any(value in other for value in handed))  # "일자" or "라이트" are words of the fixed text
    # … nor across its word boundaries once spaces go ("이사회 기준" holds "회기"): the judge reads the question so,
    # and Hypothesis seeds its text with the code base's literals (station and dong names such as 회기)
    flat = "".join(ch for ch in unicodedata.normalize("NFKC", other).casefold() if ch.isalnum())
    assume(not any(len(value) < 3 and value.casefold() in flat for value in handed))
    assume("라이트론" not in handed and not {"20260101", "20260131", "20260831"} & set(handed))
    item = lightron(handed=handed, kind=kind)
    question = WRITER.write(item, CATALOG)
    assert question == other  # the template never reads a handed value …
    for value in handed:
        assert value not in question  # … so none appears
    assert disclosed(item, question) == [False, False]  # in any normalization either


def test_a_template_that_reads_a_secret_raises_naming_the_item(monkeypatch):
    from kopa_replay.synth import questions

    monkeypatch.setattr(
        questions._Template, "ask", lambda self: f"고유번호 {self.t.junctions[0].values[0]}은 몇 %입니까?"
    )
    with pytest.raises(KopaError, match="trajectory t0001 depends on a value handed between calls"):
        WRITER.write(lightron(), CATALOG)
    monkeypatch.setattr(questions._Template, "ask", lambda self: f"정답 {self.t.answer.value}입니까?")
    with pytest.raises(KopaError, match="or on the answer"):
        WRITER.write(lightron(), CATALOG)


def test_blinded_keeps_shapes_and_hides_values():
    from kopa_replay.synth.questions import blinded

    item = blinded(lightron(handed=("00439743", "01358622"), kind="fan_out"))
    assert item.handed == () and item.answer.value == "⟨answer⟩" and len(item.junctions[0].values) == 2
    assert item.steps[1].args["corp_code"].startswith("⟨") and item.steps[1].args["bgn_de"] == "20260101"
    assert item.steps[0].args == {"corp_name": "라이트론"}


def test_synthesized_trajectories_get_clean_korean_questions(catalog, hand_corpus):
    written = write_all(WRITER, hand_corpus.trajectories, catalog)
    assert len(written) == len(hand_corpus.trajectories) > 0
    for item in written:
        assert has_hangul(item.question) and not foreign_script(item.question), item.question
        assert disclosed(item, item.question) == [False, False], item.question
        assert item.question.rstrip().endswith(("?", ")")), item.question
    assert all(not t.question for t in hand_corpus.trajectories)  # write_all copies


def test_josa_and_labels():
    assert josa("라이트론", "으로/로") == "라이트론으로" and josa("노선", "으로/로") == "노선으로"
    assert josa("서울", "으로/로") == "서울로" and josa("00439743", "으로/로") == "00439743으로"
    assert josa("정류소", "이/가") == "정류소가" and josa("「조회」", "을/를") == "「조회」를"
    assert josa("ppm", "이/가") == "ppm이" and josa("", "은/는") == "은(는)"  # 피피엠이
    assert param_label(CATALOG, "dart_cvbd_is_decsn", "corp_code") == "DART 고유번호"
    assert param_label(CATALOG, "no_such_tool", "x") == "x"


# -- the model-backed writer ----------------------------------------------------------
def test_the_llm_writer_prompts_with_the_papers_rules_and_cleans_the_answer():
    item = lightron()
    with (
        running_chat_server(
            lambda r: '```\n질문: "라이트론의 전환사채 하한가 대비 전일 종가는 몇 % 높습니까?"\n```'
        ) as server,
        ChatClient(server.url, "writer-model") as client,
    ):
        writer = LLMWriter(client, draft=TemplateWriter())
        question = writer.write(item, CATALOG)
    assert isinstance(LLMWriter(client).draft, IntentWriter)  # by default the draft is the person's question
    assert question == "라이트론의 전환사채 하한가 대비 전일 종가는 몇 % 높습니까?"
    assert writer.name == "llm:writer-model"
    system, user = (m["content"] for m in server.received[0].json()["messages"])
    assert "절대 쓰지 마세요" in system and "건너뛸 수 있게" in system  # never expose: it lets the step be skipped
    assert SELF_CHECK in user and all(mark in user for mark in "①②③④⑤")
    assert "노출 금지 값" in user and "00439743" in user and "215.79" in user
    assert "회사명=라이트론" in user and "참고 초안" in user


def test_an_empty_model_answer_is_an_error():
    with running_chat_server(lambda r: "```\n\n```") as server, ChatClient(server.url, "writer-model") as client:
        with pytest.raises(SourceError, match="no question for trajectory t0001"):
            LLMWriter(client).write(lightron(), CATALOG)


@pytest.mark.parametrize(
    "raw, clean",
    [
        ("  “몇 건입니까?”  ", "몇 건입니까?"),
        ("Question: 몇 건입니까?", "몇 건입니까?"),
        ("```text\n몇 건\n입니까?\n```", "몇 건 입니까?"),
        ("", ""),
    ],
)
def test_clean_question(raw, clean):
    assert clean_question(raw) == clean
