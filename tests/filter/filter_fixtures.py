"""Helpers for the filter tests: a hand-made trajectory builder and an in-process fake of the planner.

A plain module (not a conftest) so that hypothesis tests can use it without function-scoped fixtures.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any, Callable

from kopa_replay.synth.model import Answer, Junction, Reduction, Step, Trajectory
from kopa_replay.synth.plan import Perturbation

__all__ = ["trajectory", "company_items", "FakeRun", "FakePlanner", "moves_with"]


def trajectory(
    id: str = "t0001",
    *,
    question: str | None = None,
    answer: Answer | None = None,
    handed: tuple = ("00126380",),
    values: tuple = ("00126380",),
    kind: str = "sequential",
    start_args: dict | None = None,
    reduction: Reduction | None = None,
    meta: dict | None = None,
) -> Trajectory:
    """Two steps: a code lookup by company name, then a price lookup by the code it returned."""
    start = start_args if start_args is not None else {"corp_name": "라이트론"}
    steps = [Step(0, "dart_corp_code", start, "ok", 3, 3, "d0", 0)]
    for i, value in enumerate(values):
        steps.append(
            Step(1 + i, "dart_cvbd_is_decsn", {"corp_code": value, "bgn_de": "20260101"}, "ok", 1, 1, f"d{1 + i}", 1)
        )
    junctions = [Junction(0, 1, {"corp_code": "corp_code"}, kind, 3, len(values), tuple(values), reduction)]
    return Trajectory(
        id,
        "chain",
        steps,
        junctions,
        answer or Answer("number", 215.78, 0.01, "pct_change(value(g1[0].a), value(g1[0].b))", "%"),
        question
        if question is not None
        else "회사명 라이트론으로 「공시대상회사 고유번호 검색」을 호출하고, 그 결과의 DART 고유번호로 "
        "「전환사채권 발행결정」을 호출했을 때, 전환가액 대비 종가는 몇 %입니까?",
        tuple(handed),
        "digest-" + id,
        dict(meta or {"page_budget": 5, "fan_out_budget": 5}),
    )


def company_items() -> list[Trajectory]:
    """Three items, one per company, whose questions differ only in the company and the report asked about."""
    return [
        trajectory(
            f"t{i:04d}",
            start_args={"corp_name": name},
            question=f"회사명 {name}으로 「공시대상회사 고유번호 검색」을 호출하고, 그 결과로 "
            f"{topic}을 찾으면 몇 %입니까?",
        )
        for i, (name, topic) in enumerate(
            [("라이트론", "전환사채 발행결정"), ("삼성전자", "자기주식 취득"), ("카카오", "유상증자 결정")]
        )
    ]


@dataclass
class FakeRun:
    """What ``run_plan`` returns, as far as the filter reads it."""

    answer: Answer | None
    state_digest: str
    ok: bool = True
    complete: bool = True
    steps: list = field(default_factory=list)
    junctions: list = field(default_factory=list)
    groups: list = field(default_factory=list)
    problem: str = ""


@dataclass
class FakePlanner:
    """An in-process stand-in for :mod:`kopa_replay.synth.walk`.

    ``answer(trajectory, perturb, complete)`` gives the re-run's answer (None: the run failed);
    ``candidates`` maps a junction number to the other values its source offers; ``digest`` the state digest.
    Every call is logged.
    """

    answer: Callable[[Trajectory, Any, bool], Answer | None] = lambda t, p, c: t.answer
    candidates: dict[int, tuple] = field(default_factory=dict)
    digest: Callable[[Trajectory], str] = lambda t: t.state_digest
    complete: bool = True
    calls: list = field(default_factory=list)
    Perturbation: Any = Perturbation

    def run_plan(self, trajectory, catalog, env, *, perturb=None, complete=False):
        self.calls.append(("run_plan", trajectory.id, perturb, complete))
        answer = self.answer(trajectory, perturb, complete)
        return FakeRun(answer, self.digest(trajectory), answer is not None, complete or self.complete)

    def candidate_values(self, trajectory, catalog, env, junction):
        self.calls.append(("candidate_values", trajectory.id, junction))
        return self.candidates.get(junction, ())


def moves_with(values_to_answer: dict) -> Callable[[Trajectory, Any, bool], Answer | None]:
    """An answer function: unperturbed → the stored answer; perturbed → the mapped value (default: a new one)."""

    def answer(trajectory, perturb, complete):
        if perturb is None:
            return trajectory.answer
        value = values_to_answer.get(tuple(perturb.values), trajectory.answer.value + 1)
        return dataclasses.replace(trajectory.answer, value=value)

    return answer
