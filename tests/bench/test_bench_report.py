"""pass@1 / pass@k over hand-made grades, per axis, per domain and split; deterministic JSON and Markdown."""

from __future__ import annotations

import json

import pytest

from kopa_replay.bench import AxisResult, Grade, Task, breakdown, markdown, pass_at_1, pass_at_k, report, report_json
from kopa_replay.errors import UsageError
from kopa_replay.synth.model import Answer

OK = AxisResult(True, "fine")


def task(task_id: str, domain: str, split: str = "main") -> Task:
    return Task(task_id, "질문?", Answer("number", 1), domain=domain, split=split, platforms=("krx",))


def graded(task_id: str, index: int, response: bool = True, action: bool = True, environment: bool = True) -> Grade:
    def axis(ok: bool, what: str) -> AxisResult:
        return OK if ok else AxisResult(False, f"{what} failed on {task_id}#{index}")

    return Grade(
        task_id,
        index,
        axis(response, "response"),
        axis(action, "no call to dart_corp_code"),
        axis(environment, "environment"),
        agent="skip-lookup",
    )


TASKS = [task("b-task", "finance", "held_out"), task("a-task", "transport")]
# a-task: 1 of 4 rollouts passes (the others fail ACTION); b-task: none passes (RESPONSE always fails,
# ENVIRONMENT fails twice)
GRADES = [
    graded("a-task", 0),
    graded("a-task", 1, action=False),
    graded("a-task", 2, action=False),
    graded("a-task", 3, action=False),
    graded("b-task", 0, response=False),
    graded("b-task", 1, response=False, environment=False),
    graded("b-task", 2, response=False),
    graded("b-task", 3, response=False, environment=False),
]


def test_pass_at_1_is_the_mean_over_tasks_of_the_mean_over_rollouts() -> None:
    assert pass_at_1(GRADES) == pytest.approx((1 / 4 + 0) / 2)


def test_pass_at_k_is_the_share_of_tasks_with_a_passing_rollout() -> None:
    assert pass_at_k(GRADES) == 0.5


def test_per_axis_scores() -> None:
    assert pass_at_1(GRADES, "response") == 0.5
    assert pass_at_1(GRADES, "action") == pytest.approx((1 / 4 + 1) / 2)
    assert pass_at_1(GRADES, "environment") == pytest.approx((1 + 2 / 4) / 2)
    assert pass_at_k(GRADES, "response") == 0.5
    assert pass_at_k(GRADES, "action") == 1.0
    assert pass_at_1(GRADES, "combined") == pass_at_1(GRADES)


def test_unequal_rollout_counts_weigh_tasks_equally() -> None:
    grades = [
        graded("a", 0),
        graded("b", 0, response=False),
        graded("b", 1, response=False),
        graded("b", 2, response=False),
    ]
    assert pass_at_1(grades) == 0.5


def test_unknown_axis_is_refused() -> None:
    with pytest.raises(UsageError, match="unknown axis 'speed'"):
        pass_at_1(GRADES, "speed")


def test_empty_grades_score_zero() -> None:
    assert pass_at_1([]) == 0.0 and pass_at_k([]) == 0.0


def test_breakdown_per_domain_and_split() -> None:
    domains = breakdown(TASKS, GRADES, lambda t: t.domain)
    assert list(domains) == ["finance", "transport"]
    assert domains["finance"]["tasks"] == 1
    assert domains["finance"]["pass_at_k"]["combined"] == 0.0
    assert domains["transport"]["pass_at_1"]["combined"] == 0.25
    assert domains["transport"]["pass_at_1"]["action"] == 0.25
    splits = report(TASKS, GRADES)["by_split"]
    assert splits["held_out"]["pass_at_1"]["environment"] == 0.5
    assert splits["main"]["pass_at_k"]["combined"] == 1.0


def test_report_holds_scores_and_per_task_axis_reasons() -> None:
    data = report(TASKS, GRADES)
    assert data["pass_at_1"]["combined"] == 0.125 and data["pass_at_k"]["combined"] == 0.5
    assert (data["agent"], data["n_tasks"], data["n_rollouts"], data["k"]) == ("skip-lookup", 2, 8, 4)
    assert [row["id"] for row in data["tasks"]] == ["a-task", "b-task"]
    first_fail = data["tasks"][0]["rollouts"][1]
    assert first_fail["passed"] is False
    assert first_fail["action"] == {"passed": False, "reason": "no call to dart_corp_code failed on a-task#1"}
    assert json.loads(report_json(data)) == data


def test_identical_input_gives_identical_reports() -> None:
    one = report_json(report(TASKS, GRADES))
    two = report_json(report(list(reversed(TASKS)), list(reversed(GRADES))))
    assert one == two
    assert markdown(report(TASKS, GRADES)) == markdown(report(list(reversed(TASKS)), list(reversed(GRADES))))


def test_report_keys_are_sorted() -> None:
    def check(value: object) -> None:
        if isinstance(value, dict):
            assert list(value) == sorted(value)
            for item in value.values():
                check(item)
        elif isinstance(value, list):
            for item in value:
                check(item)

    check(report(TASKS, GRADES))


def test_markdown_names_the_axes_and_the_failures() -> None:
    text = markdown(report(TASKS, GRADES))
    for axis in ("combined", "response", "action", "environment"):
        assert f"| {axis} |" in text
    assert "## By domain" in text and "| finance |" in text and "## By split" in text and "| held_out |" in text
    assert "| a-task | skip-lookup | 1 | action | no call to dart_corp_code failed on a-task#1 |" in text
    assert "| 0.125 | 0.500 |" in text


def test_markdown_without_failures() -> None:
    text = markdown(report([task("a", "x")], [graded("a", 0)]))
    assert "No failing rollout." in text


@pytest.mark.parametrize(
    "tasks, grades, message",
    [
        ([task("a", "x")], [graded("a", 0), graded("z", 0)], "unknown tasks: z"),
        ([task("a", "x"), task("b", "x")], [graded("a", 0)], "without a graded rollout: b"),
        ([task("a", "x"), task("a", "y")], [graded("a", 0)], "duplicate task ids: a"),
        ([task("a", "x")], [graded("a", 0), graded("a", 0)], "graded twice"),
        ([task("a", "x")], [graded("a", 0), Grade("a", 1, OK, OK, OK, agent="oracle")], "several agents"),
    ],
)
def test_report_refuses_inconsistent_input(tasks: list[Task], grades: list[Grade], message: str) -> None:
    with pytest.raises(UsageError, match=message):
        report(tasks, grades)
