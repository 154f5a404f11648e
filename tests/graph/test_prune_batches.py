"""The pruning loop as arrays and batches: one batch is the loop as it was; K batches give one graph whoever runs
them; merging batch deltas is applying their updates."""

from __future__ import annotations

import copy
import math
import pickle

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kopa_replay.env import ToolEnvironment
from kopa_replay.errors import UsageError
from kopa_replay.graph import build_links, graph_digest
from kopa_replay.graph.model import Link
from kopa_replay.graph.prune import (
    BatchJob,
    IterationStats,
    PathSampler,
    Posteriors,
    PruneConfig,
    Tally,
    batch_sizes,
    prior_posterior,
    prune,
    update,
)
from kopa_replay.text import target_fillers

FAULTS = 0.2  # faults depend on the attempt: an environment that is not rewound answers otherwise


@pytest.fixture(scope="module")
def candidates(catalog):
    return build_links(catalog)


def sim(catalog) -> ToolEnvironment:
    return ToolEnvironment.open(catalog, source="sim", fault_rate=FAULTS)


# -- the loop as it was: a frozen, independent copy of the one-generator algorithm ---------------------------------
def _reference(links, catalog, env, config):
    """The loop before it kept its state in arrays (Link objects, numpy draws over arrays), written out here."""
    rng = np.random.default_rng(config.seed)
    ordered = sorted(links, key=lambda link: link.key)
    for link in ordered:
        if link.trials == 0 and not link.pruned:
            prior = min(max(link.prior, 0.0), 1.0)
            link.alpha, link.beta = 1.0 + config.prior_strength * prior, 1.0 + config.prior_strength * (1.0 - prior)
    outgoing = {}
    for link in ordered:
        outgoing.setdefault(link.source, []).append(link)
    starts = sorted(name for name in outgoing if name in catalog and catalog.get(name).examples)
    fillers = {name: target_fillers(catalog.get(name)) for name in sorted({link.target for link in ordered})}

    def record(link, outcome):
        link.trials += 1
        if outcome == "ok":
            link.successes += 1
            link.alpha += 1.0
        elif outcome == "environmental_error":
            link.failures["environmental"] = link.failures.get("environmental", 0) + 1
            link.beta += config.w_e
        else:
            link.failures["structural"] = link.failures.get("structural", 0) + 1
            link.beta += config.w_s

    def present(value):
        return (
            value is not None
            and not (isinstance(value, str) and not value.strip())
            and not isinstance(value, (dict, list))
        )

    def walk():
        name = starts[int(rng.integers(len(starts)))]
        tool = catalog.get(name)
        result = env.call(name, dict(tool.examples[int(rng.integers(len(tool.examples)))]))
        steps, steps_ok, visited, crossed = 1, int(result.outcome == "ok"), {name}, 0
        while result.outcome == "ok" and crossed < config.max_depth:
            options = [link for link in outgoing.get(name, ()) if not link.pruned and link.target not in visited]
            if not options:
                break
            draws = rng.beta(np.array([o.alpha for o in options]), np.array([o.beta for o in options]))
            draws += np.array([o.trials < config.min_trials for o in options], dtype=np.float64)
            link = options[int(np.argmax(draws))]
            usable = [r for r in result.records if all(present(r.get(f)) for f in link.binding.values())]
            crossed += 1
            if not usable:
                record(link, "structural_error")
                return False, steps, steps_ok
            chosen = usable[int(rng.integers(len(usable)))]
            values = {param: chosen[field] for param, field in sorted(link.binding.items())}
            beside = fillers[link.target]
            result = env.call(link.target, {**beside[int(rng.integers(len(beside)))], **values})
            steps += 1
            steps_ok += result.outcome == "ok"
            record(link, result.outcome)
            name = link.target
            visited.add(name)
        return crossed > 0 and steps == steps_ok, steps, steps_ok

    history = []
    for iteration in range(1, config.iterations + 1):
        passed = steps = steps_ok = 0
        for _ in range(config.paths):
            ok, made, made_ok = walk()
            passed, steps, steps_ok = passed + ok, steps + made, steps_ok + made_ok
        env.reset()
        cut = 0
        for link in ordered:
            if (
                not link.pruned
                and link.trials >= config.min_trials
                and link.alpha / (link.alpha + link.beta) < config.threshold
            ):
                link.pruned, link.pruned_at = True, iteration
                cut += 1
        retained = sum(not link.pruned for link in ordered)
        history.append(IterationStats(iteration, config.paths, passed, steps, steps_ok, cut, retained))
    return history


def test_one_batch_is_the_loop_as_it_was_and_resumes_as_it_did(catalog, candidates):
    ours, theirs = copy.deepcopy(candidates), copy.deepcopy(candidates)
    # enough paths in the first run that some link earns its trials and is cut among the catalog's 9,000-odd
    # candidates (at 30 paths none was, once the catalog grew past 805 tools)
    for config in (PruneConfig(iterations=2, paths=150, seed=3), PruneConfig(iterations=1, paths=20, seed=4)):
        with sim(catalog) as env:
            got = prune(ours, catalog, env, config)
        with sim(catalog) as env:
            expected = _reference(theirs, catalog, env, config)
        assert got == expected
        assert [link.to_dict() for link in ours] == [link.to_dict() for link in theirs]
    # the second run resumed from what the first left: tried, failed and cut links
    assert any(link.pruned for link in ours) and any(link.failures["environmental"] for link in ours)


# -- batches ------------------------------------------------------------------------------------------------------
def _batched(catalog, candidates, config, run_batches=None):
    links = copy.deepcopy(candidates)
    with sim(catalog) as env:
        history = prune(links, catalog, env, config, run_batches=run_batches)
    return graph_digest(links), history


def test_batches_give_one_graph_whoever_runs_them_and_in_whatever_order(catalog, candidates):
    config = PruneConfig(iterations=2, paths=24, seed=5, batches=3)
    served = []

    def reversed_order(jobs):
        env = sim(catalog)
        sampler = PathSampler(candidates, catalog)
        outcomes = []
        for job in reversed(jobs):
            env.rewind()
            outcomes.append(sampler.run_batch(job, env))
        env.close()
        return outcomes  # in reverse: the loop merges in batch order

    def fresh_workers(jobs):
        # what a worker process gets and gives: pickled jobs and outcomes, its own sampler and environment
        sampler = PathSampler(pickle.loads(pickle.dumps(candidates)), pickle.loads(pickle.dumps(catalog)))
        outcomes = []
        for job in jobs:
            with sim(catalog) as env:
                outcomes.append(pickle.loads(pickle.dumps(sampler.run_batch(pickle.loads(pickle.dumps(job)), env))))
        served.extend((job.iteration, job.batch, job.paths) for job in jobs)
        return outcomes

    serial = _batched(catalog, candidates, config)
    assert _batched(catalog, candidates, config, reversed_order) == serial
    assert _batched(catalog, candidates, config, fresh_workers) == serial
    assert served == [(i, b, 8) for i in (1, 2) for b in range(3)]
    digest, history = serial
    assert [h.paths for h in history] == [24, 24] and sum(h.steps for h in history) > 48
    assert digest != _batched(catalog, candidates, PruneConfig(iterations=2, paths=24, seed=5, batches=2))[0]


def test_a_runner_that_answers_for_other_batches_is_refused(catalog, candidates):
    config = PruneConfig(iterations=1, paths=4, batches=2)
    sampler = PathSampler(candidates, catalog)
    with sim(catalog) as env:

        def twice_the_first(jobs):
            return [sampler.run_batch(jobs[0], env)] * 2

        with pytest.raises(UsageError, match="run_batches"):
            prune(copy.deepcopy(candidates), catalog, env, config, run_batches=twice_the_first)
        job = BatchJob(1, 0, 1, config, *(np.zeros(3) for _ in range(3)), np.zeros(3, dtype=bool))
        with pytest.raises(UsageError, match="3 links"):
            sampler.run_batch(job, env)


@pytest.mark.parametrize("batches", [0, -1, 5])
def test_batches_lie_between_one_and_paths(batches):
    with pytest.raises(UsageError, match="batches"):
        PruneConfig(paths=4, batches=batches)


@given(st.integers(1, 500), st.data())
def test_batch_sizes_split_the_paths_evenly_the_first_larger(paths, data):
    batches = data.draw(st.integers(1, paths))
    sizes = batch_sizes(paths, batches)
    assert len(sizes) == batches and sum(sizes) == paths
    assert sizes == sorted(sizes, reverse=True) and sizes[0] - sizes[-1] <= 1


# -- merging deltas ------------------------------------------------------------------------------------------------
OUTCOMES = st.sampled_from(["ok", "empty", "structural_error", "environmental_error"])
N_LINKS = 4


@settings(max_examples=60, deadline=None)
@given(
    priors=st.lists(st.floats(0, 1), min_size=N_LINKS, max_size=N_LINKS),
    batches=st.lists(st.lists(st.tuples(st.integers(0, N_LINKS - 1), OUTCOMES), max_size=12), min_size=1, max_size=5),
    order=st.randoms(use_true_random=False),
)
def test_merged_batch_deltas_are_the_batches_updates_applied_in_turn(priors, batches, order):
    config = PruneConfig()
    links = [Link(f"s{i}", f"t{i}", {"p": "f"}, prior) for i, prior in enumerate(priors)]
    state = Posteriors.of(links, config)
    outcomes = []
    for b, updates in enumerate(batches):
        job = BatchJob(1, b, 1, config, state.alpha, state.beta, state.trials, state.pruned)
        tally = Tally.of(job)
        for i, outcome in updates:
            tally.record(i, outcome, config)
        outcomes.append(tally.outcome(job, 0, 0, 0))
    merged, shuffled = copy.deepcopy(state), copy.deepcopy(state)
    merged.merge(outcomes)
    order.shuffle(outcomes)
    shuffled.merge(outcomes)  # the order the outcomes arrive in does not matter, to the bit
    for name in ("alpha", "beta", "trials", "successes", "structural", "environmental"):
        assert getattr(merged, name).tolist() == getattr(shuffled, name).tolist()
    # the same updates made one after another on the links themselves, from the same priors
    sequential = copy.deepcopy(links)
    for link in sequential:
        link.alpha, link.beta = prior_posterior(link.prior, config.prior_strength)
    for updates in batches:
        for i, outcome in updates:
            update(sequential[i], outcome, config)
    written = copy.deepcopy(links)
    merged.write_back(written, state)
    for one_by_one, got in zip(sequential, written):
        assert (got.trials, got.successes, got.failures) == (
            one_by_one.trials,
            one_by_one.successes,
            one_by_one.failures,
        )
        assert math.isclose(got.alpha, one_by_one.alpha, rel_tol=1e-12)
        assert math.isclose(got.beta, one_by_one.beta, rel_tol=1e-12)
