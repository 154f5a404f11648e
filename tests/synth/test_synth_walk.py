"""Walking links into executed trajectories (simulator, hand-picked links: fast)."""

from __future__ import annotations

import pytest

from kopa_replay.errors import UsageError
from kopa_replay.graph import Link
from kopa_replay.synth import (
    JUNCTION_KINDS,
    PATTERNS,
    SynthConfig,
    Trajectory,
    jsonl_text,
    synthesize,
    synthesize_report,
)
from kopa_replay.synth.junction import junction_kind, value_strings
from kopa_replay.synth.plan import run_plan

CONFIG = SynthConfig(trajectories=25, seed=0, distinct_tool_sets=False)


@pytest.fixture
def corpus(hand_corpus):
    return hand_corpus


def test_every_pattern_and_junction_kind_is_made(corpus):
    trajectories = corpus.trajectories
    assert len(trajectories) == CONFIG.trajectories
    assert corpus.by_pattern == {p: 5 for p in PATTERNS}
    assert {j.kind for t in trajectories for j in t.junctions} == set(JUNCTION_KINDS)
    assert {t.answer.kind for t in trajectories} == {"number", "text", "bool"}
    assert corpus.attempts == len(trajectories) + sum(corpus.skipped.values())
    assert [t.id for t in trajectories] == [f"t{i:04d}" for i in range(1, 26)]


def test_trajectories_are_consistent(corpus):
    budget = CONFIG.fan_out_budget
    for t in corpus.trajectories:
        assert [s.index for s in t.steps] == list(range(len(t.steps)))
        groups = sorted({s.group for s in t.steps})
        assert groups == list(range(len(t.junctions) + 1))
        for k, j in enumerate(t.junctions):
            source = [s for s in t.steps if s.group == k]
            target = [s for s in t.steps if s.group == k + 1]
            assert (j.source, j.target) == (source[0].index, target[0].index)
            assert len(target) == len(j.values) <= budget
            assert j.cardinality == sum(s.records for s in source)
            assert j.kind == junction_kind(j.distinct, budget)
            assert (j.reduction is not None) == (j.kind == "derived")
            for value, step in zip(j.values, target):  # each call got its value
                for param in j.binding:
                    got = value[param] if isinstance(value, dict) else value
                    assert str(step.args[param]) == str(got)
            for value in j.values:
                assert set(value_strings(value)) <= set(t.handed)
        assert all(s.outcome == "ok" for s in t.steps)
        assert len(t.meta["calls"]) >= len(t.steps)
        assert t.question == ""
        if t.pattern == "chain":
            assert all(j.kind == "sequential" for j in t.junctions)
        if t.pattern in ("fan_out", "comparison"):
            assert len([s for s in t.steps if s.group == len(t.junctions)]) >= 2


def test_answers_are_recomputable_from_the_recorded_spec(corpus):
    for t in corpus.trajectories:
        assert t.answer.derivation
        assert t.meta["answer_spec"]["op"] in (
            "count",
            "sum",
            "value",
            "pct_change",
            "difference",
            "argmax",
            "argmin",
            "threshold",
        )


def test_same_seed_same_bytes_other_seed_other_corpus(catalog, hand_links, sim_env):
    first = jsonl_text(t.to_dict() for t in synthesize(catalog, hand_links, sim_env, CONFIG))
    second = jsonl_text(t.to_dict() for t in synthesize(catalog, hand_links, sim_env, CONFIG))
    assert first == second
    other = jsonl_text(
        t.to_dict()
        for t in synthesize(
            catalog, hand_links, sim_env, SynthConfig(trajectories=25, seed=1, distinct_tool_sets=False)
        )
    )
    assert other != first


def test_round_trip_through_dicts(corpus):
    for t in corpus.trajectories:
        again = Trajectory.from_dict(t.to_dict())
        assert again.to_dict() == t.to_dict()


def test_writer_sets_the_question(catalog, hand_links, sim_env):
    seen = []

    class Writer:
        def write(self, trajectory, catalog_):
            seen.append(trajectory.id)
            return f"질문 {trajectory.id}"

    out = synthesize(
        catalog, hand_links, sim_env, SynthConfig(trajectories=3, distinct_tool_sets=False), writer=Writer()
    )
    assert [t.question for t in out] == ["질문 t0001", "질문 t0002", "질문 t0003"]
    assert seen == ["t0001", "t0002", "t0003"]


def test_state_digest_is_the_trajectory_calls_only(catalog, hand_links, sim_env):
    out = synthesize(catalog, hand_links, sim_env, SynthConfig(trajectories=2, distinct_tool_sets=False))
    # each trajectory's digest is its own calls: re-running exactly them gives it back
    for trajectory in out:
        assert run_plan(trajectory, catalog, sim_env).state_digest == trajectory.state_digest
    assert len(sim_env.log) == len(out[-1].meta["calls"])


def test_pruned_links_are_not_walked(catalog, hand_links, sim_env):
    for link in hand_links:
        if link.source.startswith("tago"):
            link.pruned = True
    out = synthesize(
        catalog, hand_links, sim_env, SynthConfig(trajectories=10, patterns=("condition",), distinct_tool_sets=False)
    )
    assert not any(s.tool.startswith("tago") for t in out for s in t.steps)


def test_patterns_can_be_chosen(catalog, hand_links, sim_env):
    out = synthesize(
        catalog, hand_links, sim_env, SynthConfig(trajectories=4, patterns=("comparison",), distinct_tool_sets=False)
    )
    assert {t.pattern for t in out} == {"comparison"}
    for t in out:
        assert t.answer.kind == "text"
        assert t.meta["answer_spec"]["op"] in ("argmax", "argmin")


def test_impossible_requests_stop_at_the_attempt_budget(catalog, sim_env):
    links = [Link("dart_company", "dart_corp_code", {"stock_code": "stock_code"}, 0.9)]
    result = synthesize_report(
        catalog, links, sim_env, SynthConfig(trajectories=3, patterns=("comparison",), max_attempts=20)
    )
    assert result.trajectories == [] and result.attempts == 20
    assert sum(result.skipped.values()) == 20


@pytest.mark.parametrize(
    "kwargs",
    [
        {"fan_out_budget": 1},
        {"max_links": 0},
        {"page_budget": 0},
        {"patterns": ("poem",)},
        {"patterns": ()},
        {"trajectories": -1},
    ],
)
def test_config_is_validated(kwargs):
    with pytest.raises(UsageError):
        SynthConfig(**kwargs)


def test_no_startable_link_is_an_error(catalog, sim_env):
    with pytest.raises(UsageError, match="nothing to walk"):
        synthesize(catalog, [], sim_env, SynthConfig(trajectories=1))


def test_a_writer_that_refuses_skips_the_task(catalog, hand_links, sim_env):
    from kopa_replay.errors import KopaError

    class Refuses:
        calls = 0

        def write(self, trajectory, catalog_):
            Refuses.calls += 1
            if Refuses.calls == 1:
                raise KopaError("would disclose a handed value")
            return "질문"

    result = synthesize_report(catalog, hand_links, sim_env, SynthConfig(trajectories=3), writer=Refuses())
    assert len(result.trajectories) == 3 and result.skipped["question writer refused"] == 1
    assert [t.id for t in result.trajectories] == ["t0001", "t0002", "t0003"]
