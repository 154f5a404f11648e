"""The built-in catalog end to end: pruned graph → trajectories → statistics, re-runs, exports (slow)."""

from __future__ import annotations

import pytest

from kopa_replay.env import ToolEnvironment
from kopa_replay.synth import (
    JUNCTION_KINDS,
    PATTERNS,
    SynthConfig,
    corpus_stats,
    jsonl_text,
    run_plan,
    sft_rows,
    synthesize_report,
)

pytestmark = pytest.mark.slow

CONFIG = SynthConfig(trajectories=60, seed=0)


@pytest.fixture(scope="module")
def corpus(catalog, pruned_links):
    with ToolEnvironment.open(catalog, source="sim") as env:
        return synthesize_report(catalog, pruned_links, env, CONFIG)


def test_the_pruned_graph_yields_every_kind_and_pattern(corpus):
    trajectories = corpus.trajectories
    assert len(trajectories) == CONFIG.trajectories
    assert {t.pattern for t in trajectories} == set(PATTERNS)
    assert {j.kind for t in trajectories for j in t.junctions} == set(JUNCTION_KINDS)
    assert {j.reduction.op for t in trajectories for j in t.junctions if j.reduction} >= {"max", "min", "threshold"}


def test_statistics_are_in_the_papers_spirit(corpus):
    stats = corpus_stats(corpus.trajectories)
    for key in ("multi_record_call_share", "one_to_many_share", "fan_out_derived_share_single", "parallel_share"):
        assert 0.0 <= stats[key] <= 1.0
    # most calls return several records; most multi-step trajectories consume a multi-record output
    assert stats["multi_record_call_share"] > 0.5
    assert stats["one_to_many_share"] > 0.5
    assert stats["max_cardinality"] > 100


def test_every_trajectory_reruns_to_the_same_digest_and_answer(catalog, corpus):
    with ToolEnvironment.open(catalog, source="sim") as env:
        for t in corpus.trajectories:
            run = run_plan(t, catalog, env)
            assert run.ok and run.state_digest == t.state_digest and run.answer == t.answer, t.id


def test_a_second_run_is_byte_identical(catalog, pruned_links, corpus):
    with ToolEnvironment.open(catalog, source="sim") as env:
        again = synthesize_report(catalog, pruned_links, env, CONFIG).trajectories
    assert jsonl_text(t.to_dict() for t in again) == jsonl_text(t.to_dict() for t in corpus.trajectories)


def test_exports_build_for_the_whole_corpus(catalog, corpus):
    rows = sft_rows(corpus.trajectories, catalog)
    assert all(row["messages"][-1]["role"] == "assistant" for row in rows)
