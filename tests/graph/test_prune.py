"""The pruning loop's decisions (pure) and the loop itself on the simulator."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from kopa_replay.errors import UsageError
from kopa_replay.graph.model import Link
from kopa_replay.graph.prune import PruneConfig, bound_arguments, choose, prior_posterior, should_cut, update

OUTCOMES = st.sampled_from(["ok", "empty", "structural_error", "environmental_error"])


def link(**kw) -> Link:
    return Link("a", "b", {"p": "f"}, kw.pop("prior", 0.8), **kw)


@given(st.lists(OUTCOMES, max_size=30))
def test_trials_add_up_and_the_posterior_moves_the_right_way(outcomes):
    config = PruneConfig()
    item = link()
    item.alpha, item.beta = prior_posterior(item.prior, config.prior_strength)
    for outcome in outcomes:
        before = item.posterior_mean
        update(item, outcome, config)
        after = item.posterior_mean
        assert after > before if outcome == "ok" else after < before
    assert item.trials == len(outcomes) == item.successes + sum(item.failures.values())
    assert item.successes == outcomes.count("ok")
    assert item.failures["environmental"] == outcomes.count("environmental_error")


def test_structural_failures_weigh_more_than_environmental_ones():
    config = PruneConfig()
    structural, environmental = link(), link()
    for item in (structural, environmental):
        item.alpha, item.beta = prior_posterior(item.prior, config.prior_strength)
    for _ in range(3):
        update(structural, "structural_error", config)
        update(environmental, "environmental_error", config)
    assert structural.posterior_mean < environmental.posterior_mean
    assert should_cut(structural, config) and not should_cut(environmental, config)


@given(prior=st.floats(0, 1), failures=st.integers(0, 1))
def test_nothing_is_cut_before_min_trials(prior, failures):
    config = PruneConfig(min_trials=2)
    item = link(prior=prior)
    item.alpha, item.beta = prior_posterior(prior, config.prior_strength)
    for _ in range(failures):
        update(item, "structural_error", config)
    assert not should_cut(item, config)


def test_thompson_sampling_is_seeded_and_prefers_the_better_link():
    good, bad = link(alpha=30.0, beta=2.0, trials=30), link(alpha=2.0, beta=30.0, trials=30)
    picks = [choose(np.random.default_rng(seed), [bad, good]) for seed in range(200)]
    assert picks.count(good) > 190
    again = [choose(np.random.default_rng(seed), [bad, good]) for seed in range(200)]
    assert [p is good for p in picks] == [p is good for p in again]


def test_links_short_of_min_trials_go_first():
    tried, fresh = link(alpha=50.0, beta=1.0, trials=50), link(alpha=1.0, beta=50.0, trials=1)
    assert all(choose(np.random.default_rng(s), [tried, fresh], min_trials=2) is fresh for s in range(50))


def test_bound_values_come_from_one_record_that_carries_every_field():
    records = [{"f": "1", "g": None}, {"f": " ", "g": "x"}, {"f": "2", "g": "y"}]
    rng = np.random.default_rng(0)
    for _ in range(20):
        assert bound_arguments({"p": "f", "q": "g"}, records, rng) == {"p": "2", "q": "y"}
    assert bound_arguments({"p": "missing"}, records, rng) is None
    assert {bound_arguments({"p": "f"}, records, np.random.default_rng(s))["p"] for s in range(40)} == {"1", "2"}


@pytest.mark.parametrize(
    "kwargs", [{"iterations": 0}, {"paths": -1}, {"threshold": 1.5}, {"min_trials": 0}, {"w_s": -1.0}]
)
def test_bad_configuration_is_a_usage_error(kwargs):
    with pytest.raises(UsageError):
        PruneConfig(**kwargs)


def test_examples_keep_required_and_date_arguments_and_drop_optional_entities(catalog):
    from kopa_replay.text import target_fillers

    divi = catalog.get("datagokr_get_divi_info")
    assert divi.examples[0].get("crno") and "crno" not in divi.required
    assert all("crno" not in filler for filler in target_fillers(divi))  # would pin the example's company
    listing = catalog.get("dart_list")
    kept = target_fillers(listing)
    assert len(kept) == len(listing.examples) and any("bgn_de" in e for e in listing.examples)
    for example, filler in zip(listing.examples, kept):
        assert ("bgn_de" in filler) == ("bgn_de" in example)  # a filing search keeps its window
