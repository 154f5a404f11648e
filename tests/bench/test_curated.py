"""The curated task set: task files read strictly, every shipped task accepted by a reader, its answer computed twice
(the plan on the shipped snapshot, the world truth by separate code) and the two failure modes deciding answers."""

from __future__ import annotations

import textwrap

import pytest

from kopa_replay.bench.curated import CURATED_DIR, curated_digest, load_curated
from kopa_replay.bench.review import objections, truth_agrees
from kopa_replay.bench.suite import load_task_set
from kopa_replay.bench.truth import truth_answer, truth_function
from kopa_replay.env import ToolEnvironment
from kopa_replay.errors import UsageError
from kopa_replay.sim.world import World
from kopa_replay.synth.plan import run_plan

REVIEW = '{by: "a reader", date: "2026-12-07", verdict: accepted}'


def _family(tasks: str, **overrides: str) -> str:
    fields = {
        "family": "f",
        "who": '"주주가 배당을 보려고"',
        "question": '"{corp}의 2025년 직원은 모두 몇 명입니까?"',
        "truth": "paper.lightron_premium",
        "plan": """
      - tool: dart_corp_code
        args: {corp_name: "{corp}"}
      - tool: dart_emp_sttus
        bind: {corp_code: corp_code}
        args: {bsns_year: "2025", reprt_code: "11011"}""",
        "answer": "{op: sum, group: 1, field: sm}",
        **overrides,
    }
    head = "\n".join(f"    {key}: {value}" for key, value in fields.items() if key != "family")
    return f"domain: finance\nfamilies:\n  - family: {fields['family']}\n{head}\n    tasks:\n{tasks}"


def _write(tmp_path, text: str):
    (tmp_path / "finance.yaml").write_text(text, encoding="utf-8")
    return tmp_path


def test_a_task_file_fills_its_slots_and_keeps_the_review(tmp_path):
    text = _family(f"      - slots: {{corp: 삼성전자}}\n        review: {REVIEW}\n")
    (task,) = load_curated(_write(tmp_path, text))
    assert task.id == "kopa-finance-f-1" and task.question == "삼성전자의 2025년 직원은 모두 몇 명입니까?"
    assert task.plan[0].args == {"corp_name": "삼성전자"} and task.plan[1].source == 0
    assert task.review["verdict"] == "accepted" and task.who == "주주가 배당을 보려고"


def test_a_task_not_accepted_is_kept_in_the_file_and_not_shipped(tmp_path):
    rejected = '{by: "a reader", date: "2026-12-07", verdict: rejected}'
    text = _family(
        f"      - slots: {{corp: 삼성전자}}\n        review: {REVIEW}\n"
        f"      - slots: {{corp: 라이트론}}\n        review: {rejected}\n"
    )
    assert [task.slots["corp"] for task in load_curated(_write(tmp_path, text))] == ["삼성전자"]


@pytest.mark.parametrize(
    "tasks, overrides, expected",
    [
        ("      - slots: {corp: 삼성전자}\n", {}, "task 1: the review lacks by, date, verdict"),
        (f"      - slots: {{}}\n        review: {REVIEW}\n", {}, "the slot {corp} has no value"),
        (
            f"      - slots: {{corp: x}}\n        review: {REVIEW}\n",
            {
                "plan": "\n      - tool: dart_corp_code\n        args: {}\n      - tool: dart_company\n        from: 3\n"
                "        bind: {corp_code: corp_code}"
            },
            "plan[1]: 'from' must name an earlier group (0..0), not 3",
        ),
        (
            f"      - slots: {{corp: x}}\n        review: {REVIEW}\n",
            {"plan": "\n      - tool: dart_corp_code\n      - tool: dart_company"},
            "plan[1]: a later call needs 'bind'",
        ),
        (
            f"      - slots: {{corp: x}}\n        review: {REVIEW}\n",
            {"plan": "[]"},
            "'plan' must be a non-empty list of calls",
        ),
        ("      - slots: {corp: [\n", {}, "not valid YAML"),
    ],
)
def test_a_bad_task_file_is_refused_naming_the_file_family_and_task(tmp_path, tasks, overrides, expected):
    with pytest.raises(UsageError) as caught:
        load_curated(_write(tmp_path, _family(tasks, **overrides)))
    assert "finance.yaml" in str(caught.value) and expected in str(caught.value)


def test_two_tasks_with_one_id_and_an_unknown_truth_function_are_refused(tmp_path):
    item = f"      - id: same\n        slots: {{corp: x}}\n        review: {REVIEW}\n"
    with pytest.raises(UsageError, match="task ids used twice: same"):
        load_curated(_write(tmp_path, _family(item + item)))
    with pytest.raises(UsageError, match="truth function 'paper.nothing' is not defined"):
        truth_function("paper.nothing")
    with pytest.raises(UsageError, match="write it as <module>.<function>"):
        truth_function("paper")


def test_the_digest_follows_the_files(tmp_path):
    text = _family(f"      - slots: {{corp: 삼성전자}}\n        review: {REVIEW}\n")
    before = curated_digest(_write(tmp_path, text))
    assert curated_digest(tmp_path) == before
    _write(tmp_path, text.replace("2025", "2024"))
    assert curated_digest(tmp_path) != before


# -- the shipped set --------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def shipped():
    return load_task_set()


@pytest.fixture(scope="module")
def curated():
    return {task.id: task for task in load_curated()}


def test_every_shipped_task_is_a_curated_task_a_reader_accepted(shipped, curated):
    assert [task.id for task in shipped.tasks] == sorted(curated)
    assert shipped.build["source"] == "curated" and shipped.build["curated"] == curated_digest(CURATED_DIR)
    for task in shipped.tasks:
        item = curated[task.id]
        assert task.question_ko == item.question and task.who == item.who and task.who.strip(), task.id
        assert task.review["verdict"] == "accepted" and task.review["by"] and task.review["date"], task.id


def test_no_shipped_task_draws_an_objection(shipped, catalog):
    found = {t.id: objections(t, shipped.plans[t.id], catalog) for t in shipped.tasks}
    assert {task_id: problems for task_id, problems in found.items() if problems} == {}


@pytest.mark.slow
def test_every_answer_is_computed_twice_and_the_two_agree(shipped, curated, catalog, no_network):
    """The plan executed on the shipped snapshot (strict replay) and the world truth (separate code) give the
    shipped answer, task by task."""
    world = World(shipped.build["sim_seed"], shipped.world)
    as_of = shipped.build["as_of"]
    disagree = {}
    with ToolEnvironment.open(catalog) as replay:
        for task in shipped.tasks:
            run = run_plan(shipped.plans[task.id], catalog, replay)
            item = curated[task.id]
            truth = truth_answer(item.truth, world, as_of, item.slots)
            if not (run.ok and run.answer is not None and run.answer.value == task.answer.value):
                disagree[task.id] = ("plan", run.problem, run.answer and run.answer.value, task.answer.value)
            elif not truth_agrees(task, truth):
                disagree[task.id] = ("truth", truth, task.answer.value)
    assert disagree == {}
    assert no_network == []


def test_a_wrong_truth_is_caught_by_the_agreement_check(shipped):
    number = next(t for t in shipped.tasks if t.answer.kind == "number")
    assert truth_agrees(number, number.answer.value)
    assert not truth_agrees(number, number.answer.value + max(1, abs(number.answer.value)) * 0.5)
    boolean = next((t for t in shipped.tasks if t.answer.kind == "bool"), None)
    if boolean is not None:
        assert not truth_agrees(boolean, not boolean.answer.value) and not truth_agrees(boolean, "예")


def test_a_task_file_written_wrong_here_fails_the_build_on_the_small_world(tmp_path, catalog):
    """A truth that disagrees with the plan's answer fails the build, naming the task and both answers."""
    from kopa_replay.bench.build import build_tasks

    text = textwrap.dedent(
        """\
        domain: finance
        families:
          - family: lightron-wrong
            who: "라이트론 주주가 차익 여지를 보려고"
            question: "라이트론이 2026년 1월에 발행을 결정한 전환사채의 전환가액은 몇 원입니까?"
            plan:
              - tool: dart_corp_code
                args: {corp_name: 라이트론}
              - tool: dart_cvbd_is_decsn
                bind: {corp_code: corp_code}
                args: {bgn_de: "20260101", end_de: "20260131"}
            answer: {op: value, group: 1, branch: 0, field: cv_prc}
            unit: 원
            truth: paper.lightron_premium
            tasks:
              - slots: {}
                review: {by: "a reader", date: "2026-12-07", verdict: accepted}
        """
    )
    _write(tmp_path, text)
    with ToolEnvironment.open(catalog, source="sim:default") as env:
        with pytest.raises(UsageError) as caught:
            build_tasks(catalog, env, World(0, "default"), "2026-09-01", curated=load_curated(tmp_path))
    assert "kopa-finance-lightron-wrong-1: the plan answers 760" in str(caught.value)


def test_the_readme_sample_questions_are_shipped_tasks_with_who_asks_and_why(shipped):
    """The README's ten sample rows say what the shipped set says: the task's who line, question and answer."""
    from pathlib import Path

    from kopa_replay.synth.export import answer_text

    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    section = readme.split("### Ten sample questions from the shipped task set", 1)[1].split("\n### ", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("| `kopa-")]
    by_id = {task.id: task for task in shipped.tasks}
    assert len(rows) == 10
    domains = set()
    for row in rows:
        cells = [cell.strip() for cell in row.strip("|").split(" | ")]
        task = by_id[cells[0].strip("`")]
        assert cells[1] == task.who and cells[2] == task.question_ko and cells[-1] == answer_text(task.answer)
        domains.add(task.domain)
    assert domains == {"finance", "district", "traffic", "education", "politics", "law"}


def test_the_review_tool_prints_a_line_per_task_and_the_summary(capsys):
    from kopa_replay.bench.review import main

    assert main(["paper"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split()[:3] == ["kopa-finance-lightron", "3", "..S."]  # 3 calls; only skipping the lookup breaks it
    assert lines[0].endswith("answer=215.79 ok")
    assert "'tasks': 1" in lines[-1] and "'disagree': 0" in lines[-1]


def test_a_family_or_task_that_is_not_a_mapping_is_refused_naming_it(tmp_path):
    _write(tmp_path, "domain: finance\nfamilies:\n  - just a string\n")
    with pytest.raises(UsageError, match="finance.yaml: a family must be a mapping, not str"):
        load_curated(tmp_path)
    _write(tmp_path, _family("      - 7\n"))
    with pytest.raises(UsageError, match="family 'f' task 1: a task must be a mapping, not int"):
        load_curated(tmp_path)
    _write(tmp_path, _family(f"      - slots: [삼성전자]\n        review: {REVIEW}\n"))
    with pytest.raises(UsageError, match="task 1: 'slots' must be a mapping, not list"):
        load_curated(tmp_path)


def test_a_truth_function_that_fails_on_its_slots_is_the_task_files_error(tmp_path):
    """Slots the truth function cannot read (a task file's mistake) name the task and the function, no traceback."""
    from kopa_replay.bench.review import _truth

    text = _family(f"      - slots: {{corp: 삼성전자}}\n        review: {REVIEW}\n", truth="politics.committee_decided")
    (item,) = load_curated(_write(tmp_path, text))
    with pytest.raises(UsageError) as caught:
        _truth(item, World(0, "default"), "2026-09-01")
    message = str(caught.value)
    assert "kopa-finance-f-1" in message and "truth function politics.committee_decided fails on slots" in message
    assert "KeyError" in message
