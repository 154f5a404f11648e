"""The paper's model path end to end against a scripted OpenAI-compatible server: a model rewrites each family
question (never-expose rule and five-item self-check in its prompt), two model judges must agree to discard, and a
model re-solves every kept item with the tools while execution judges which answer is better."""

from __future__ import annotations

import json

from click.testing import CliRunner

from kopa_replay.catalog import builtin_catalog
from kopa_replay.cli import cli
from kopa_replay.graph import Link
from kopa_replay.graph.store import save_graph
from kopa_replay.llm.fake import running_chat_server
from kopa_replay.synth.questions import SELF_CHECK

FAMILY = """\
domain: education
families:
- family: grade-classes
  who: '{school} 입학을 앞둔 학생의 학부모가 학년 규모를 알아보려고'
  questions:
  - '{school}의 2026학년도 {grade}학년은 몇 개 반입니까?'
  - '2026학년도에 {school} {grade}학년 학급이 몇 개인지 궁금해요.'
  - '{school} {grade}학년 반 수를 알려 주세요. 2026학년도 기준입니다.'
  slots:
    from: {tool: neis_school_info, args: {LCTN_SC_NM: 서울특별시, SCHUL_KND_SC_NM: 고등학교}}
    take: {school: SCHUL_NM}
    vary: {grade: ['1', '2', '3']}
  instances: 4
  plan:
  - tool: neis_school_info
    args: {LCTN_SC_NM: 서울특별시, SCHUL_KND_SC_NM: 고등학교}
  - tool: neis_class_info
    bind: {ATPT_OFCDC_SC_CODE: ATPT_OFCDC_SC_CODE, SD_SCHUL_CODE: SD_SCHUL_CODE}
    reduce: {op: match, field: SCHUL_NM, value: '{school}'}
    args: {AY: '2026', GRADE: '{grade}'}
  answer: {op: count, group: 1}
  unit: 개
"""

PREFIX = "학부모입니다. "


def _run(*args):
    return CliRunner().invoke(cli, [str(a) for a in args], catch_exceptions=False)


def _graph(tmp_path):
    catalog = builtin_catalog()
    link = Link(
        "neis_school_info",
        "neis_class_info",
        {"ATPT_OFCDC_SC_CODE": "ATPT_OFCDC_SC_CODE", "SD_SCHUL_CODE": "SD_SCHUL_CODE"},
        0.9,
    )
    save_graph(tmp_path / "graph" / "graph.json", [link], catalog, {"stage": "pruned"})
    return tmp_path / "graph"


def test_a_model_writes_two_models_judge_and_a_model_re_solves(tmp_path):
    families = tmp_path / "families"
    families.mkdir()
    (families / "education.yaml").write_text(FAMILY, encoding="utf-8")
    answers: dict[str, str] = {}  # question -> the answer the scripted solver gives

    def answer(request):
        system = request["messages"][0]["content"]
        user = request["messages"][-1]["content"] if request["messages"][-1]["role"] == "user" else ""
        if "tools" in request:  # the re-solver: an agent offered tools; it states the answer it was scripted
            question = next(m["content"] for m in request["messages"] if m["role"] == "user")
            return answers.get(question, "모르겠습니다")
        if "질문을 작성합니다" in system:  # the question writer: the family's question is its draft
            draft = user.split("참고 초안(더 자연스럽게 고쳐 쓰세요): ", 1)[1].split("\n", 1)[0]
            return f"질문: {PREFIX}{draft}"
        return json.dumps({"discard": False, "reason": f"{request['model']}: 문제없음"}, ensure_ascii=False)

    with running_chat_server(answer) as server:
        out = tmp_path / "synth"
        made = _run(
            "synth", "--graph-dir", _graph(tmp_path), "--families", families, "--out", out, "--trajectories", 4,
            "--writer", "llm", "--llm-url", server.url, "--llm-model", "writer-model", "--json",
        )  # fmt: skip
        assert made.exit_code == 0, made.output
        rows = [json.loads(line) for line in (out / "trajectories.jsonl").read_text(encoding="utf-8").splitlines()]
        assert len(rows) == 4 and all(r["question"].startswith(PREFIX) for r in rows)
        writes = [r.json() for r in server.received if "질문을 작성합니다" in r.json()["messages"][0]["content"]]
        assert len(writes) == 4 and all(SELF_CHECK in w["messages"][-1]["content"] for w in writes)
        # the handed school code is named in the prompt as what must never be written
        assert all("노출 금지 값" in w["messages"][-1]["content"] for w in writes)
        for row in rows:  # the solver is scripted to give each stored answer
            answers[row["question"]] = f"{row['answer']['value']}{row['answer']['unit']}"

        filtered = _run(
            "filter", "--in", out, "--judges", "llm-pair", "--llm-url", server.url, "--llm-model", "judge-a",
            "--second-llm-model", "judge-b", "--resolve-with", "llm", "--json",
        )  # fmt: skip
        assert filtered.exit_code == 0, filtered.output
        report = json.loads(filtered.output)
    assert report["judges"] == ["llm:judge-a", "llm:judge-b"] and report["solver"] == "re-solver openai"
    assert report["kept"] == 4 and report["stages"]["resolve"]["agrees"] == 4
    models = {r.json()["model"] for r in server.received}
    assert {"writer-model", "judge-a", "judge-b"} <= models
    solving = [r.json() for r in server.received if "tools" in r.json()]
    assert len(solving) == 4 and all(r["tools"] for r in solving)  # each item solved once, with tools offered


def test_two_judges_need_a_second_model_and_only_they_take_one(tmp_path, cli_error):
    line = cli_error(CliRunner().invoke(cli, ["filter", "--in", str(tmp_path), "--judges", "llm-pair"]))
    assert "--judges llm-pair needs --second-llm-model" in line
    line = cli_error(CliRunner().invoke(cli, ["filter", "--in", str(tmp_path), "--second-llm-model", "b"]))
    assert "name the second judge of --judges llm-pair" in line


def test_a_model_re_solver_needs_stage_three(tmp_path, cli_error):
    line = cli_error(
        CliRunner().invoke(cli, ["filter", "--in", str(tmp_path), "--resolve-with", "llm", "--no-resolve"])
    )
    assert "cannot go with --no-resolve" in line
