"""The defect injector, and the filter measured against it on trajectories synthesized from the built-in catalog."""

from __future__ import annotations

import dataclasses
import json

import pytest
from filter_fixtures import FakePlanner, trajectory

from kopa_replay.errors import UsageError
from kopa_replay.filter.defects import DEFECT_KINDS, defect_pool, inject_defects, leak_forms, measure
from kopa_replay.synth.model import Answer
from kopa_replay.text import foreign_script

COMPANIES = (
    "라이트론",
    "삼성전자",
    "카카오",
    "네이버",
    "현대차",
    "기아",
    "엘지",
    "한화",
    "롯데",
    "두산",
    "에스케이",
    "포스코",
)


def _clean() -> list:
    items = []
    for i, name in enumerate(COMPANIES):
        code = f"00{i + 1:02d}6380"
        items.append(
            trajectory(
                f"t{i:04d}",
                start_args={"corp_name": name},
                handed=(code,),
                values=(code,),
                answer=Answer("number", 100 + i * 7.5, 0.01, "pct_change(...)", "%"),
                meta={"page_budget": 5, "fan_out_budget": 5, "answer_spec": {"op": "pct_change"}},
                question=f"회사명 {name}으로 「공시대상회사 고유번호 검색」을 호출하고, 그 결과의 DART 고유번호로 "
                f"「전환사채권 발행결정」을 호출했을 때, 전환가액 대비 종가는 몇 %입니까?",
            )
        )
    return items


def _planner() -> FakePlanner:
    """Answers move with the handed value unless the answer spec counts the start step's records."""

    def answer(t, perturb, complete):
        if t.meta.get("answer_spec", {}).get("op") == "count":
            return Answer("number", 2, 0.0, "count(g0)")
        if perturb is None:
            return t.answer
        return dataclasses.replace(t.answer, value=t.answer.value + 1)

    return FakePlanner(answer=answer, candidates={0: ("00999999", "00888888")})


class _Writer:
    name = "stub"

    def write(self, trajectory, catalog):
        return "회사명으로 고유번호를 찾은 뒤 첫 조회 결과는 몇 건입니까?"


def _inject(seed=0, per_kind=2, **kw):
    return inject_defects(
        _clean(), None, None, seed=seed, per_kind=per_kind, planner=_planner(), writer=_Writer(), **kw
    )


@pytest.mark.parametrize(
    "value, forms",
    [
        ("20260831", ["2026-08-31", "20260831", "2026년 8월 31일", "2026.08.31"]),
        ("00126380", ["00126380", "126380", "0012 6380"]),
        (1680, ["1,680", "1680.0", "1,680원", "1680"]),
        (215.78, ["215.78", "215.780", "215.78원"]),
        (7619.48, ["7,619.48", "7619.480", "7,619.48원"]),
        ("SJB8000016", ["SJB8000016", "SJB80 00016"]),
        ("구", ["구"]),
    ],
)
def test_leak_forms(value, forms):
    assert leak_forms(value) == forms


def test_each_kind_is_injected_and_labelled():
    injected = _inject()
    assert sorted(i.kind for i in injected) == sorted(DEFECT_KINDS * 2)
    assert len({i.source for i in injected}) == len(injected)  # one defect per source item
    clean = {t.id: t for t in _clean()}
    for item in injected:
        source = clean[item.source]
        if item.kind == "leak":
            assert item.trajectory.question != source.question and item.trajectory.id == source.id
        elif item.kind == "wrong_script":
            assert foreign_script(item.trajectory.question)
        elif item.kind == "duplicate":
            assert item.trajectory.id == f"{source.id}-dup" and item.trajectory.steps == source.steps
        else:
            assert item.trajectory.meta["answer_spec"] == {"op": "count", "group": 0}
            assert item.trajectory.answer.value == 2 and source.answer.value != 2
        assert item.detail


def test_injection_is_deterministic_for_a_seed():
    def view(injected):
        return [(i.kind, i.source, i.trajectory.question) for i in injected]

    assert view(_inject(seed=3)) == view(_inject(seed=3))
    assert view(_inject(seed=3)) != view(_inject(seed=4))


def test_items_without_a_perturbable_junction_are_not_made_unconstrained():
    planner = _planner()
    planner.candidates = {}
    injected = inject_defects(
        _clean(), None, None, seed=0, per_kind=2, kinds=("unconstrained",), planner=planner, writer=_Writer()
    )
    assert injected == []


def test_bad_arguments_are_refused():
    with pytest.raises(UsageError, match="unknown defect kind"):
        _inject(kinds=("typo",))
    with pytest.raises(UsageError, match="per_kind"):
        _inject(per_kind=-1)


def test_the_pool_replaces_sources_and_adds_duplicates():
    clean = _clean()
    injected = _inject(per_kind=1)
    pool, labels = defect_pool(clean, injected)
    assert len(pool) == len(clean) + 1
    assert sorted(label for label in labels.values() if label != "clean") == sorted(DEFECT_KINDS)
    dup = next(i for i in injected if i.kind == "duplicate")
    assert labels[dup.source] == "clean"  # the original stays beside its copy


def test_measure_with_the_fake_planner(catalog):
    report = measure(_clean(), catalog, None, seed=0, per_kind=2, planner=_planner())
    assert report["input"] == 12
    for kind in DEFECT_KINDS:
        assert report["defects"][kind]["injected"] == 2
        assert report["defects"][kind]["rate"] == 1.0, report["defects"][kind]
        assert report["defects"][kind]["intended_rate"] == 1.0
    assert report["clean"] == {"items": 6, "dropped": 0, "rate": 0.0, "dropped_reasons": []}


@pytest.mark.slow
def test_the_filter_catches_injected_defects_on_synthesized_trajectories(catalog, synthesized):
    """≥ 95% of each defect kind caught, < 2% of clean items dropped (rates printed; run with -s to see)."""
    from kopa_replay.env import ToolEnvironment

    assert 150 <= len(synthesized) <= 200  # the walk stops where the table's coherent walks run out
    with ToolEnvironment.open(catalog, source="sim") as env:
        report = measure(synthesized, catalog, env, seed=0, per_kind=15)
    summary = {
        kind: {k: v for k, v in entry.items() if k in ("injected", "caught", "rate", "intended_rate")}
        for kind, entry in report["defects"].items()
    }
    print(
        "\nfilter defect measurement:",
        json.dumps(
            {
                "input": report["input"],
                "defects": summary,
                "clean": {k: report["clean"][k] for k in ("items", "dropped", "rate")},
            },
            ensure_ascii=False,
        ),
    )
    for kind, entry in report["defects"].items():
        assert entry["injected"] >= 10, kind
        assert entry["rate"] >= 0.95, (kind, entry)
        assert entry["intended_rate"] >= 0.95, (kind, entry)
    assert report["clean"]["items"] >= 30
    assert report["clean"]["rate"] < 0.02, report["clean"]
