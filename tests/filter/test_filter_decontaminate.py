"""run_filter's ``exclude`` hook: a stage of its own, before the rules, every drop with the task it repeats."""

from __future__ import annotations

from filter_fixtures import FakePlanner, company_items, moves_with

from kopa_replay.filter import DECONTAMINATION_CHECK, STAGES, Discard, run_filter


class Named:
    """An exclude hook with a name, as the benchmark's matcher has."""

    name = "a hand-made list"

    def __init__(self, reasons):
        self.reasons = reasons

    def __call__(self, item):
        return self.reasons.get(item.id)


def test_an_excluded_item_is_discarded_first_with_its_reason(catalog):
    planner = FakePlanner(answer=moves_with({}), candidates={0: ("00999999",)})
    hook = Named({"t0001": "same plan as benchmark task kopa-finance-007"})
    result = run_filter(company_items(), catalog, None, planner=planner, exclude=hook)
    assert [t.id for t in result.kept] == ["t0000", "t0002"]
    assert result.discarded == [
        Discard("t0001", "decontaminate", DECONTAMINATION_CHECK, "same plan as benchmark task kopa-finance-007")
    ]
    report = result.report
    assert report["decontaminated"] == 1 and report["decontaminated_against"] == "a hand-made list"
    assert report["discarded"] == 1 and report["kept"] == 2
    assert report["stages"]["decontaminate"] == {
        "in": 3,
        "out": 2,
        "applied": True,
        "discarded": 1,
        "items": [{"id": "t0001", "reason": "same plan as benchmark task kopa-finance-007"}],
    }
    assert report["stages"]["rules"]["in"] == 2
    assert list(report["stages"]) == list(STAGES)
    assert "t0001" not in {call[1] for call in planner.calls}  # never replayed nor probed


def test_without_a_hook_the_stage_passes_everything(catalog):
    planner = FakePlanner(answer=moves_with({}), candidates={0: ("00999999",)})
    result = run_filter(company_items(), catalog, None, planner=planner)
    assert len(result.kept) == 3 and result.report["decontaminated"] is None
    assert result.report["stages"]["decontaminate"] == {
        "in": 3,
        "out": 3,
        "applied": False,
        "discarded": 0,
        "items": [],
    }


def test_the_benchmark_matcher_as_the_hook(catalog):
    from kopa_replay.bench.contamination import Decontaminator
    from kopa_replay.bench.model import Task
    from kopa_replay.synth.model import Answer

    items = company_items()
    same_question = Task("kopa-a", items[0].question + "  ", Answer("number", 1))
    same_plan = Task(
        "kopa-b",
        "전혀 다른 질문",
        Answer("number", 1),
        reference_calls=tuple((s.tool, {**s.args, "page_no": 2}) for s in reversed(items[2].steps)),
    )
    planner = FakePlanner(answer=moves_with({}), candidates={0: ("00999999",)})
    result = run_filter(items, catalog, None, planner=planner, exclude=Decontaminator([same_question, same_plan]))
    assert [t.id for t in result.kept] == ["t0001"]
    assert {d.trajectory_id: d.detail for d in result.discarded} == {
        "t0000": "verbatim question of benchmark task kopa-a",
        "t0002": "same plan as benchmark task kopa-b",
    }
    assert result.report["decontaminated_against"] == "2 benchmark tasks"
