"""Corpus statistics: definitions on a hand-made corpus, sanity on a synthesized one."""

from __future__ import annotations

from kopa_replay.synth import PAPER, Answer, Junction, Step, Trajectory, corpus_stats, stats_table
from kopa_replay.synth.stats import output_digest

KEYS = {
    "multi_record_call_share",
    "one_to_many_share",
    "median_cardinality",
    "max_cardinality",
    "junctions",
    "fan_out_derived_share_single",
    "calls_per_trajectory",
    "parallel_share",
    "trajectories",
    "output_digest",
}


def step(index, group, records):
    return Step(index, "tool", {}, "ok", records, records, "d", group)


def trajectory(tid, groups, kinds, cardinalities):
    """``groups``: records per step, grouped; junction k joins group k to k + 1."""
    steps, index = [], 0
    for g, group in enumerate(groups):
        for records in group:
            steps.append(step(index, g, records))
            index += 1
    starts = [min(s.index for s in steps if s.group == g) for g in range(len(groups))]
    junctions = [
        Junction(
            starts[k],
            starts[k + 1],
            {"p": "f"},
            kind,
            cardinality,
            len(groups[k + 1]),
            tuple(str(i) for i in range(len(groups[k + 1]))),
        )
        for k, (kind, cardinality) in enumerate(zip(kinds, cardinalities))
    ]
    return Trajectory(tid, "chain", steps, junctions, Answer("number", 1))


def test_definitions_on_a_hand_made_corpus():
    corpus = [
        trajectory("a", [[1], [30]], ["sequential"], [1]),  # one-to-one
        trajectory("b", [[12], [3, 0, 5]], ["fan_out"], [12]),  # one-to-many, parallel
        trajectory("c", [[400], [2], [9]], ["derived", "sequential"], [400, 2]),
        trajectory("d", [[7]], [], []),  # a single step
    ]
    stats = corpus_stats(corpus)
    assert KEYS <= set(stats)
    assert stats["trajectories"] == 4 and stats["steps"] == 10
    assert stats["multi_record_call_share"] == 0.8  # 30, 12, 3, 5, 400, 2, 9, 7 of 10 steps
    assert stats["multi_step_trajectories"] == 3
    assert stats["one_to_many_share"] == round(2 / 3, 6)  # b and c
    assert stats["median_cardinality"] == 12 and stats["max_cardinality"] == 400  # 12, 400, 2
    assert stats["junctions"] == {"sequential": 2, "fan_out": 1, "derived": 1}
    assert stats["single_junction_trajectories"] == 2
    assert stats["fan_out_derived_share_single"] == 0.5
    assert stats["calls_per_trajectory"] == 2.5
    assert stats["parallel_share"] == 0.25
    assert stats["output_digest"] == output_digest(corpus) != output_digest(corpus[:3])


def test_empty_corpus():
    stats = corpus_stats([])
    assert stats["trajectories"] == 0 and stats["one_to_many_share"] == 0.0 and stats["max_cardinality"] == 0


def test_shares_are_shares_on_a_synthesized_corpus(hand_corpus):
    stats = corpus_stats(hand_corpus.trajectories)
    for key in ("multi_record_call_share", "one_to_many_share", "fan_out_derived_share_single", "parallel_share"):
        assert 0.0 <= stats[key] <= 1.0
    assert sum(stats["junctions"].values()) == sum(len(t.junctions) for t in hand_corpus.trajectories)
    assert stats["max_cardinality"] >= stats["median_cardinality"] >= 2
    assert stats["calls_per_trajectory"] >= 2


def test_table_sets_ours_beside_the_paper():
    table = stats_table({**corpus_stats([]), "multi_record_call_share": 0.5, "max_cardinality": 1234})
    lines = table.splitlines()
    assert lines[0] == "| figure | ours | paper |"
    row = next(line for line in lines if line.startswith("| calls returning"))
    assert row == "| calls returning ≥ 2 records | 50.0% | 74.1% |"
    assert "| 1,234 | 224,958 |" in table
    assert PAPER["one_to_many_share"] == 0.812 and PAPER["median_cardinality"] == 27
