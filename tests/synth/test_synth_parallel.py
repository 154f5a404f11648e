"""The ``"attempt"`` random scheme: attempts that run anywhere, in any order, speculated in blocks.

Whatever the width, the hook, the order the hook computes a block in, or the environment each attempt runs on
(the driver's, or a freshly opened one as in another process), the corpus is the width-1 corpus byte for byte.
The environment simulates faults, which depend on how often a request was met: an attempt that did not start from
a rewound environment would see other faults and the comparisons would fail.
"""

from __future__ import annotations

import pickle
import random
from concurrent.futures import ProcessPoolExecutor
from dataclasses import replace

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kopa_replay.env import ToolEnvironment
from kopa_replay.errors import CassetteMiss, UsageError
from kopa_replay.synth import jsonl_text
from kopa_replay.synth.plan import run_plan
from kopa_replay.synth.walk import (
    PATTERNS,
    AttemptJob,
    AttemptOutcome,
    AttemptRunner,
    SynthConfig,
    SynthResult,
    synthesize_report,
)

FAULTS = 0.1  # some calls fail, by (seed, request, attempt): history would show
# seed 1: the constrained-chain check convicts some candidates here (faults in its probes could change that)
CONFIG = SynthConfig(trajectories=10, seed=1, distinct_tool_sets=False, streams="attempt")


class Writer:
    """A question writer that shows the id and the order it was called in."""

    def __init__(self) -> None:
        self.seen: list[str] = []

    def write(self, trajectory, catalog):
        self.seen.append(trajectory.id)
        return f"질문 {trajectory.id} {trajectory.state_digest[:8]}"


def _open(catalog):
    return ToolEnvironment.open(catalog, source="sim", fault_rate=FAULTS)


def _synth(catalog, links, config=CONFIG, **kwargs) -> tuple[SynthResult, list[str]]:
    writer = Writer()
    with _open(catalog) as env:
        return synthesize_report(catalog, links, env, config, writer, **kwargs), writer.seen


def _made(result: SynthResult) -> tuple:
    """Everything a run made (not how the work went: speculated and discarded vary with the width)."""
    return (
        jsonl_text(t.to_dict() for t in result.trajectories),
        result.attempts,
        result.skipped,
        result.by_pattern,
    )


@pytest.fixture(scope="module")
def serial(catalog, hand_link_specs):
    """The reference: the attempt scheme one attempt at a time on one environment."""
    from kopa_replay.graph import Link

    links = [Link(source, target, dict(binding), 0.9) for source, target, binding in hand_link_specs]
    return _synth(catalog, links, width=1)


def test_the_reference_is_a_real_corpus(serial):
    result, seen = serial
    assert [t.id for t in result.trajectories] == [f"t{i:04d}" for i in range(1, 11)]
    assert seen == [t.id for t in result.trajectories]
    assert result.by_pattern == {p: 2 for p in PATTERNS}
    assert result.attempts == 10 + sum(result.skipped.values())
    assert result.skipped["start call failed"] and result.skipped["a step failed"]  # the faults are there
    assert result.skipped["answer not constrained by an intermediate call"]  # and the check convicts
    assert (result.speculated, result.discarded) == (result.attempts, 0)  # width 1 never guesses wrong


@pytest.mark.parametrize("width", [1, 3, 8])
def test_every_width_makes_the_same_corpus(catalog, hand_links, serial, width):
    result, seen = _synth(catalog, hand_links, width=width)
    assert _made(result) == _made(serial[0])
    assert seen == serial[1]  # the writer saw the same candidates, in the same order
    assert result.speculated == result.attempts + result.discarded


def test_attempts_on_fresh_environments_in_reverse_order_make_the_same_corpus(catalog, hand_links, serial):
    runner = AttemptRunner(catalog, hand_links, CONFIG)
    blocks: list[list[int]] = []

    def elsewhere(jobs):
        """What a pool of processes does: each job on an environment of its own, in whatever order."""
        blocks.append([job.n for job in jobs])
        outcomes = []
        for job in reversed(jobs):
            with _open(catalog) as env:
                outcomes.append(runner.run(job, env))
        return outcomes  # in the order computed: the driver lines them up

    elsewhere.width = 3  # type: ignore[attr-defined]
    result, seen = _synth(catalog, hand_links, run_attempts=elsewhere)
    assert _made(result) == _made(serial[0]) and seen == serial[1]
    assert max(len(block) for block in blocks) == 3  # the hook's own width was taken
    assert sum(len(block) for block in blocks) == result.speculated


def test_the_constrained_check_does_not_depend_on_what_the_environment_saw(catalog, hand_links, serial):
    """The check runs on the driver's environment: rewound first, it convicts the same candidates however many
    calls that environment served before (here: each block's trajectories re-run on it, bumping exactly the counts
    of the requests the check then makes)."""
    runner = AttemptRunner(catalog, hand_links, CONFIG)
    with _open(catalog) as env:

        def then_dirty(jobs):
            outcomes = [runner.run(job, env) for job in jobs]
            for outcome in outcomes:
                if outcome.trajectory is not None:
                    run_plan(outcome.trajectory, catalog, env)
            return outcomes

        result = synthesize_report(catalog, hand_links, env, CONFIG, Writer(), run_attempts=then_dirty)
    assert _made(result) == _made(serial[0])


def test_a_block_that_crosses_a_quota_fill_is_discarded_from_there(catalog, hand_links, serial):
    reference = serial[0]
    width = reference.attempts + 10  # the first block alone could hold every attempt the run needs
    runner = AttemptRunner(catalog, hand_links, CONFIG)
    blocks: list[list[AttemptJob]] = []
    with _open(catalog) as env:

        def recording(jobs):
            blocks.append(jobs)
            return [runner.run(job, env) for job in jobs]

        result = synthesize_report(catalog, hand_links, env, CONFIG, Writer(), run_attempts=recording, width=width)
    assert _made(result) == _made(reference)
    # so only a guess gone wrong (a quota filled: the rotation changed) can have asked for a second block
    assert len(blocks) > 1 and len(blocks[0]) == width
    assert result.discarded > 0 and result.speculated == sum(map(len, blocks)) == result.attempts + result.discarded
    second = blocks[1][0]  # where the second block starts, the first guessed another pattern
    assert blocks[0][second.n].pattern != second.pattern


@pytest.fixture(scope="module")
def memo(catalog, hand_link_specs):
    """An attempt is a function of its job (the configurations below differ only in what the driver uses), so each
    runs once, on one rewound environment; what comes back has crossed a pickle, as from another process."""
    from kopa_replay.graph import Link

    links = [Link(source, target, dict(binding), 0.9) for source, target, binding in hand_link_specs]
    runner = AttemptRunner(catalog, links, CONFIG)
    done: dict[AttemptJob, bytes] = {}
    with _open(catalog) as env:

        def run(job: AttemptJob) -> AttemptOutcome:
            if job not in done:
                done[job] = pickle.dumps(runner.run(job, env))
            return pickle.loads(done[job])

        yield run


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    width=st.integers(1, 12),
    trajectories=st.integers(1, 9),
    patterns=st.lists(st.sampled_from(PATTERNS), min_size=1, max_size=5, unique=True),
    max_attempts=st.integers(1, 40),
    shuffle=st.integers(0, 2**32 - 1),
)
def test_speculation_equals_the_serial_loop(
    catalog, hand_links, memo, width, trajectories, patterns, max_attempts, shuffle
):
    """Over quotas, patterns, attempt budgets and widths; outcomes cross a pickle as to and from a process, in
    shuffled order."""
    config = replace(
        CONFIG,
        trajectories=trajectories,
        patterns=tuple(patterns),
        max_attempts=max_attempts,
        require_constrained=False,
    )
    order = random.Random(shuffle)

    def pooled(jobs):
        outcomes = [memo(job) for job in jobs]
        order.shuffle(outcomes)
        return outcomes

    wide, _ = _synth(catalog, hand_links, config, run_attempts=pooled, width=width)
    one, _ = _synth(catalog, hand_links, config, run_attempts=pooled, width=1)
    assert _made(wide) == _made(one)
    assert wide.speculated == wide.attempts + wide.discarded


# -- in other processes -------------------------------------------------------------------------------------
_WORKER: tuple[AttemptRunner, ToolEnvironment] | None = None


def _start_worker(links) -> None:
    global _WORKER
    from kopa_replay.catalog import builtin_catalog

    catalog = builtin_catalog()
    _WORKER = (AttemptRunner(catalog, links, CONFIG), _open(catalog))


def _work(job: AttemptJob) -> AttemptOutcome:
    assert _WORKER is not None
    runner, env = _WORKER
    return runner.run(job, env)


def test_worker_processes_make_the_same_corpus(catalog, hand_links, serial):
    with ProcessPoolExecutor(2, initializer=_start_worker, initargs=(hand_links,)) as pool:

        def in_processes(jobs):
            return list(pool.map(_work, jobs))

        result, seen = _synth(catalog, hand_links, run_attempts=in_processes, width=4)
    assert _made(result) == _made(serial[0]) and seen == serial[1]


def test_an_outcome_pickles_with_its_trajectory_or_its_error(serial):
    trajectory = serial[0].trajectories[0]
    outcome = AttemptOutcome(AttemptJob(3, trajectory.pattern), trajectory)
    again = pickle.loads(pickle.dumps(outcome))
    assert again == outcome and again.trajectory.to_dict() == trajectory.to_dict()
    miss = CassetteMiss(tool="t", method="GET", url="https://x/y?KEY=***", snapshot="s", store="kopa.sqlite")
    back = pickle.loads(pickle.dumps(AttemptOutcome(AttemptJob(4, "chain"), error=miss))).error
    assert type(back) is CassetteMiss and str(back) == str(miss) and vars(back) == vars(miss)


@pytest.mark.parametrize("trajectories", [1, 5])
def test_a_snapshot_recorded_one_attempt_at_a_time_replays_at_any_width(
    catalog, hand_links, serial, tmp_path, trajectories
):
    """Speculated attempts the serial walk never made may meet requests its recording never saw: the misses stay
    in the outcomes thrown away, and strict replay gives the recorded corpus at any width. (Not quite the
    simulator's own corpus: recording a faulting simulator answers a request's first occurrence from the store
    once it is there, so the simulator counts its tries differently — as it would for a freshly opened recorder.)

    One trajectory is four attempts recorded: a block of 40 speculates far past them, into requests never
    recorded. By the fifth the small world's walks have met (today) every request the block asks: the same
    corpus with or without misses."""
    store = tmp_path / "cassettes.sqlite"
    config = replace(CONFIG, trajectories=trajectories)

    def opened(mode):
        return ToolEnvironment.open(catalog, source="sim", fault_rate=FAULTS, snapshot="serial", mode=mode, store=store)

    with opened("record") as env:
        recorded = synthesize_report(catalog, hand_links, env, config, Writer())
    assert len(recorded.trajectories) == config.trajectories
    runner = AttemptRunner(catalog, hand_links, config)
    errors: list = []
    with opened("replay") as env:

        def noting_errors(jobs):
            outcomes = [runner.run(job, env) for job in jobs]
            errors.extend(outcome.error for outcome in outcomes if outcome.error is not None)
            return outcomes

        replayed = synthesize_report(catalog, hand_links, env, config, Writer(), run_attempts=noting_errors, width=40)
    assert _made(replayed) == _made(recorded)
    assert all(isinstance(error, CassetteMiss) for error in errors)
    assert errors or trajectories > 1  # one trajectory: the block must have met unrecorded requests
    # and a miss the walk does take ends it, as it ends the one-at-a-time walk
    with opened("replay") as env, pytest.raises(CassetteMiss):
        synthesize_report(catalog, hand_links, env, replace(config, trajectories=40, max_attempts=400), width=4)


# -- the two schemes and misuse -----------------------------------------------------------------------------
def test_the_schemes_draw_differently(catalog, hand_links, serial):
    one, _ = _synth(catalog, hand_links, replace(CONFIG, streams="one"))
    assert _made(one) != _made(serial[0])
    assert (one.speculated, one.discarded) == (0, 0)


def test_misuse_is_named(catalog, hand_links, sim_env):
    with pytest.raises(UsageError, match="streams"):
        SynthConfig(streams="many")  # type: ignore[arg-type]
    with pytest.raises(UsageError, match="streams='attempt'"):
        synthesize_report(catalog, hand_links, sim_env, replace(CONFIG, streams="one"), run_attempts=lambda jobs: [])
    with pytest.raises(UsageError, match="streams='attempt'"):
        AttemptRunner(catalog, hand_links, replace(CONFIG, streams="one"))
    with pytest.raises(UsageError, match="width"):
        synthesize_report(catalog, hand_links, sim_env, CONFIG, width=0)
    with pytest.raises(UsageError, match="one outcome per job"):
        synthesize_report(catalog, hand_links, sim_env, CONFIG, run_attempts=lambda jobs: [], width=2)
    with pytest.raises(UsageError, match="one outcome per job"):
        synthesize_report(
            catalog,
            hand_links,
            sim_env,
            CONFIG,
            run_attempts=lambda jobs: [AttemptOutcome(AttemptJob(job.n, "chain"), skip="x") for job in jobs],
            width=5,
        )
    with pytest.raises(UsageError, match="one of a trajectory, a skip reason or an error"):
        AttemptOutcome(AttemptJob(0, "chain"))
    with pytest.raises(UsageError, match="one of a trajectory, a skip reason or an error"):
        AttemptOutcome(AttemptJob(0, "chain"), skip="x", error=UsageError("y"))


def test_the_stage_passes_the_scheme_on():
    from kopa_replay.stages import synth

    assert synth.Config().walk().streams == "one"
    assert synth.Config(generator="walk", streams="attempt").walk() == SynthConfig(streams="attempt")
