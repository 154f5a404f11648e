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


# -- what the corpus teaches: shapes, paging, platforms, skeletons -------------------------------------
def test_shapes_by_the_calls_each_junction_feeds():
    from kopa_replay.synth.model import in_subset, shape_of

    sequential = trajectory("s", [[40], [1], [3]], ["sequential", "sequential"], [40, 1])
    parallel = trajectory("p", [[40], [5, 6, 7]], ["fan_out"], [40])
    mixed = trajectory("m", [[40], [1], [2, 2]], ["sequential", "derived"], [40, 1])
    lone = trajectory("l", [[9]], [], [])
    assert [shape_of(t) for t in (sequential, parallel, mixed, lone)] == [
        "sequential",
        "parallel",
        "mixed",
        "sequential",
    ]
    assert [in_subset(t, "parallel") for t in (sequential, parallel, mixed)] == [False, True, True]
    assert [in_subset(t, "sequential") for t in (sequential, parallel, mixed)] == [True, False, False]
    assert all(in_subset(t, "full") for t in (sequential, parallel, mixed))


def _calls(tool, pages, **extra):
    return [{"tool": tool, "args": {**extra, **({"pageNo": p} if p > 1 else {})}} for p in range(1, pages + 1)]


def test_paging_platforms_domains_and_skeletons_from_the_catalog(catalog):
    from kopa_replay.synth.stats import corpus_shape

    def item(tid, question, calls, slots, tool="datagokr_get_stan_regin_cd_list", domain="district"):
        t = trajectory(tid, [[12], [3]], ["sequential"], [12])
        t.steps = [Step(0, tool, {}, "ok", 12, 12, "d", 0), Step(1, "neis_school_info", {}, "ok", 3, 3, "d", 1)]
        t.question, t.meta = question, {"calls": calls, "slots": slots, "domain": domain}
        return t

    size = catalog.get("datagokr_get_stan_regin_cd_list").http.pagination
    usual = _calls("datagokr_get_stan_regin_cd_list", 2)  # the size left unset: the usual page size
    big = [{"tool": c["tool"], "args": {**c["args"], size.size_param: size.max_size}} for c in usual]
    corpus = [
        item("a", "서울 강남구 인구는 2026년 6월에 몇 명입니까?", usual, {"gu": "강남구"}),
        item("b", "서울 마포구 인구는 2025년 3월에 몇 명입니까?", big, {"gu": "마포구"}),
        item("c", "부산 학교는 몇 곳인가요?", _calls("datagokr_get_stan_regin_cd_list", 1), {}, domain="education"),
        item("d", "서울 강서구 인구는 2026년 1월에 몇 명입니까?", _calls("unknown_tool", 3), {"gu": "강서구"}),
    ]
    shape = corpus_shape(corpus, catalog)
    assert shape["paged_share"] == 0.25  # only a's second page was read at the usual size
    assert shape["platform_shares"] == {"datagokr": 1.0, "neis": 1.0} and shape["max_platform_share"] == 1.0
    assert shape["domains"] == {"district": 3, "education": 1}
    # a, b and d are one sentence once the district (a slot) and the digits are masked
    assert shape["skeletons"] == 2 and shape["max_skeleton_share"] == 0.75
    assert "name" in shape["max_skeleton"] and "0년 0월" in shape["max_skeleton"]
