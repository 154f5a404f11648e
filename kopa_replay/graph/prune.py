"""EDGE Phase A, second half: prune candidate links by executing sampled paths (Thompson sampling).

Each iteration samples ``paths`` paths. A path starts from a tool with
catalog example arguments; at each step Thompson sampling picks one of the
current tool's retained outgoing links (a draw from every link's Beta
posterior, the highest wins), fills the target's bound parameters from one
record of the last output (sampled among records that carry the fields), and
runs the call through :class:`~kopa_replay.env.ToolEnvironment`. The link's
posterior is updated by the outcome class the catalog's result-code table
gives: success ``alpha += 1``; structural failure (the binding is wrong: bad
parameter, no data for the bound value) ``beta += w_s``; environmental failure
(a transient 5xx, rate limit, maintenance) ``beta += w_e``, light, so a sound
link survives an unlucky server. At the end of each iteration a link tried at
least ``min_trials`` times whose posterior mean is under ``threshold`` is cut.

The decisions (:func:`update`, :func:`should_cut`, :func:`choose`,
:func:`bound_arguments`) are pure functions over :class:`Link` objects. The
loop makes the same decisions over link ids (the position in the links sorted
by key): :class:`Posteriors` holds every link's state as numpy arrays (the cut
is one vector operation, as are the merge of batches and the jobs handed to
them) and is written back to the links at the end; a walk works on a
:class:`Tally`, plain lists, as a step touches a handful of links.
:class:`PathSampler` walks the paths; it holds only what does not change during
a run (starts, outgoing links, fillers, the bound values each answer offers).
Seeded ``numpy.random.Generator`` s drive every choice, in the order the loop
has always drawn them: the same snapshot, seed and configuration give the same
graph.

Batched Thompson sampling (``batches`` > 1)
--------------------------------------------
With ``batches == 1`` one generator, ``default_rng(seed)``, drives the whole
run and every update is seen by the next draw. That makes the run one
sequence, which only one process can execute. With ``batches == K`` each
iteration's paths are split into K contiguous batches (sizes differ by at most
one, the first ones larger). Batch ``b`` of iteration ``i`` is a
:class:`BatchJob`: it draws from its own ``default_rng([seed, i, b])``, starts
from the posteriors as they were when the iteration began, and applies its own
updates to a private copy as it goes (Thompson sampling within the batch). It
returns a :class:`BatchOutcome`: its per-link deltas (trials, successes,
failures by class, alpha and beta increments) and its path and step counts.
The loop merges the outcomes in batch order, then cuts at the iteration's end
as before. A batch is the unit another process executes (a Ray worker, say,
with :class:`PathSampler` built once per process and an environment of its
own, rewound before each batch so it answers as a freshly opened one): since
a batch's outcome is a function of its job alone and the merge order is
fixed, the graph does not depend on which process ran which batch, or on how
many processes there are. It does depend on K: batches of one iteration do not
see each other's updates, which is the usual price of batched Thompson
sampling (a little more exploration per iteration). On the simulator with
faults the attempt counts start afresh in every batch (the rewind), so a
request's faults are those of its occurrences within its batch.
"""

from __future__ import annotations

import gc
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from kopa_replay.catalog.model import Catalog
from kopa_replay.env.call import TRANSIENT_OUTCOMES
from kopa_replay.errors import UsageError
from kopa_replay.graph.model import Link
from kopa_replay.text.concepts import target_fillers

__all__ = [
    "PruneConfig",
    "IterationStats",
    "update",
    "should_cut",
    "choose",
    "prior_posterior",
    "prune",
    "bound_arguments",
    "batch_sizes",
    "Posteriors",
    "BatchJob",
    "BatchOutcome",
    "PathSampler",
    "RunBatches",
]


@dataclass(frozen=True)
class PruneConfig:
    """Every knob of the loop (the paper's defaults: 100 iterations × 500 paths)."""

    iterations: int = 100
    paths: int = 500
    seed: int = 0
    max_depth: int = 3  # links per path
    w_s: float = 2.0  # beta increment for a structural failure (heavy)
    w_e: float = 0.25  # beta increment for an environmental failure (light)
    threshold: float = 0.4  # viability: cut when the posterior mean falls below it ...
    min_trials: int = 2  # ... and the link was tried at least this often
    prior_strength: float = 2.0  # pseudo-trials the scorer's feasibility is worth in the prior
    batches: int = 1  # batches per iteration (see the module docstring); 1: one sequence over the whole run

    def __post_init__(self) -> None:
        problems = []
        if self.iterations < 1 or self.paths < 1 or self.max_depth < 1:
            problems.append("iterations, paths and max_depth must be at least 1")
        if self.w_s < 0 or self.w_e < 0 or self.prior_strength < 0:
            problems.append("w_s, w_e and prior_strength must not be negative")
        if not 0.0 <= self.threshold <= 1.0:
            problems.append(f"threshold must lie in [0, 1], not {self.threshold}")
        if self.min_trials < 1:
            problems.append(f"min_trials must be at least 1, not {self.min_trials}")
        if not 1 <= self.batches <= max(self.paths, 1):
            problems.append(f"batches must lie between 1 and paths ({self.paths}), not {self.batches}")
        if problems:
            raise UsageError("; ".join(problems))

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class IterationStats:
    """What one iteration of the loop saw."""

    iteration: int
    paths: int
    paths_passed: int
    steps: int
    steps_ok: int
    links_cut: int
    links_retained: int

    @property
    def path_pass_rate(self) -> float:
        return self.paths_passed / self.paths if self.paths else 0.0

    @property
    def step_success_rate(self) -> float:
        return self.steps_ok / self.steps if self.steps else 0.0

    def to_dict(self) -> dict[str, Any]:
        return {
            **asdict(self),
            "path_pass_rate": round(self.path_pass_rate, 6),
            "step_success_rate": round(self.step_success_rate, 6),
        }


# -- pure decisions -------------------------------------------------------------
SUCCESS, STRUCTURAL, ENVIRONMENTAL = 0, 1, 2
_FAILURE_NAMES = {STRUCTURAL: "structural", ENVIRONMENTAL: "environmental"}


def prior_posterior(prior: float, strength: float) -> tuple[float, float]:
    """Beta(1 + s·prior, 1 + s·(1 − prior)): the scorer's belief, worth ``s`` pseudo-trials."""
    prior = min(max(prior, 0.0), 1.0)
    return 1.0 + strength * prior, 1.0 + strength * (1.0 - prior)


def _trial(outcome: str, config: PruneConfig) -> tuple[int, float]:
    """(class, increment) of one trial: success adds 1 to alpha; a failure adds its weight to beta."""
    if outcome == "ok":
        return SUCCESS, 1.0
    if outcome in TRANSIENT_OUTCOMES:  # the platform's bad minute, or a wall in front of it: not the link's fault
        return ENVIRONMENTAL, config.w_e
    return STRUCTURAL, config.w_s  # structural_error, and empty: no data for the bound value


def update(link: Link, outcome: str, config: PruneConfig) -> None:
    """Count one trial of ``link`` ending in ``outcome`` and move its posterior."""
    kind, step = _trial(outcome, config)
    link.trials += 1
    if kind == SUCCESS:
        link.successes += 1
        link.alpha += step
    else:
        name = _FAILURE_NAMES[kind]
        link.failures[name] = link.failures.get(name, 0) + 1
        link.beta += step


def should_cut(link: Link, config: PruneConfig) -> bool:
    """Cut only what was tried often enough and fell below viability."""
    return not link.pruned and link.trials >= config.min_trials and link.posterior_mean < config.threshold


def _pick(
    rng: np.random.Generator,
    ids: Sequence[int],
    alpha: Sequence[float],
    beta: Sequence[float],
    trials: Sequence[int],
    min_trials: int,
) -> int:
    """The position in ``ids`` that :func:`choose` picks: one Beta(alpha[i], beta[i]) draw per id, in order, plus
    1 where trials[i] is short of ``min_trials``; the first highest wins.

    One scalar draw at a time: a generator's draws for arrays of parameters are
    these same draws in this order, and for the handful of links a step weighs
    the scalar calls cost half as much.
    """
    best, top, draw = 0, -1.0, rng.beta
    for position, i in enumerate(ids):
        value = draw(alpha[i], beta[i]) + (trials[i] < min_trials)
        if value > top:
            best, top = position, value
    return best


def choose(rng: np.random.Generator, links: Sequence[Link], min_trials: int = 0) -> Link:
    """Thompson sampling: one draw from each link's Beta posterior; the highest draw wins.

    Links tried fewer than ``min_trials`` times go first (their draws decide
    among them): no link may be cut untried, and a link nobody tries can never
    be cut, so every link earns its ``min_trials`` before the posteriors compete.
    """
    alpha, beta, trials = [link.alpha for link in links], [link.beta for link in links], [link.trials for link in links]
    return links[_pick(rng, range(len(links)), alpha, beta, trials, min_trials)]


def _carrying(records: Sequence[Mapping[str, Any]], fields: Sequence[str]) -> list[Mapping[str, Any]]:
    """The records that carry a usable value in every one of ``fields``."""
    return [r for r in records if all(_present(r.get(field)) for field in fields)]


def bound_arguments(
    binding: Mapping[str, str], records: Sequence[Mapping[str, Any]], rng: np.random.Generator
) -> dict[str, Any] | None:
    """Values for the bound parameters from one record that carries every bound field (sampled), or None."""
    usable = _carrying(records, list(binding.values()))
    if not usable:
        return None
    record = usable[int(rng.integers(len(usable)))]
    return {param: record[field] for param, field in sorted(binding.items())}


def _present(value: Any) -> bool:
    return (
        value is not None and not (isinstance(value, str) and not value.strip()) and not isinstance(value, (dict, list))
    )


def batch_sizes(paths: int, batches: int) -> list[int]:
    """``paths`` split into ``batches`` contiguous batches whose sizes differ by at most one, the first larger."""
    size, extra = divmod(paths, batches)
    return [size + (b < extra) for b in range(batches)]


# -- the state --------------------------------------------------------------------------
@dataclass(eq=False)
class Posteriors:
    """Every link's posterior and counts as arrays indexed by link id (the position in the links sorted by key):
    what the loop cuts, merges into and hands to batches, one vector operation each. ``pruned_at`` is 0 for a
    link this run did not cut."""

    alpha: np.ndarray
    beta: np.ndarray
    trials: np.ndarray
    successes: np.ndarray
    structural: np.ndarray
    environmental: np.ndarray
    pruned: np.ndarray
    pruned_at: np.ndarray

    @classmethod
    def of(cls, links: Sequence[Link], config: PruneConfig) -> "Posteriors":
        """The state of ``links`` (sorted by key); an untried, unpruned link starts from its prior, one that
        already carries trials (a resumed run) from its posterior."""
        n = len(links)
        alpha, beta = np.empty(n), np.empty(n)
        for i, link in enumerate(links):
            fresh = link.trials == 0 and not link.pruned
            alpha[i], beta[i] = prior_posterior(link.prior, config.prior_strength) if fresh else (link.alpha, link.beta)

        def counts(values: Any) -> np.ndarray:
            return np.fromiter(values, dtype=np.int64, count=n)

        return cls(
            alpha,
            beta,
            counts(link.trials for link in links),
            counts(link.successes for link in links),
            counts(link.failures.get("structural", 0) for link in links),
            counts(link.failures.get("environmental", 0) for link in links),
            np.fromiter((link.pruned for link in links), dtype=bool, count=n),
            np.zeros(n, dtype=np.int64),
        )

    def absorb(self, tally: "Tally") -> None:
        """Take over what ``tally`` (made from this state, or kept in step with it) did since it was last
        absorbed: the posteriors of the links it tried, as they are, bit for bit; its ``added`` is emptied.
        Only the links it tried are copied: an iteration tries a few thousand of the 18,000 paper-scale links."""
        for i, (successes, structural, environmental, _, _) in tally.added.items():
            self.alpha[i], self.beta[i], self.trials[i] = tally.alpha[i], tally.beta[i], tally.trials[i]
            self.successes[i] += successes
            self.structural[i] += structural
            self.environmental[i] += environmental
        tally.added.clear()

    def merge(self, outcomes: Sequence["BatchOutcome"]) -> None:
        """Add the batches' deltas in batch order, whatever order they come in."""
        for done in sorted(outcomes, key=lambda o: o.batch):
            ids = done.links
            self.trials[ids] += done.successes + done.structural + done.environmental
            self.successes[ids] += done.successes
            self.structural[ids] += done.structural
            self.environmental[ids] += done.environmental
            self.alpha[ids] += done.alpha
            self.beta[ids] += done.beta

    def cut(self, iteration: int, config: PruneConfig) -> np.ndarray:
        """:func:`should_cut` over every link at once; the ids it cuts, marked pruned at ``iteration``."""
        mean = self.alpha / (self.alpha + self.beta)
        cut = ~self.pruned & (self.trials >= config.min_trials) & (mean < config.threshold)
        self.pruned |= cut
        self.pruned_at[cut] = iteration
        return np.flatnonzero(cut)

    def write_back(self, links: Sequence[Link], start: "Posteriors") -> None:
        """Set each of ``links`` to its state here; ``start`` is the state at the run's start (a failure class
        a link's counts lack is added only when this run saw one, as :func:`update` adds it)."""
        for i, link in enumerate(links):
            link.alpha, link.beta = float(self.alpha[i]), float(self.beta[i])
            link.trials, link.successes = int(self.trials[i]), int(self.successes[i])
            for name, now, before in (
                ("structural", self.structural, start.structural),
                ("environmental", self.environmental, start.environmental),
            ):
                if now[i] != before[i] or name in link.failures:
                    link.failures[name] = int(now[i])
            if self.pruned_at[i]:
                link.pruned, link.pruned_at = True, int(self.pruned_at[i])


class Tally:
    """A walk's working copy of the posteriors and what it added to each link it tried (a batch's, or the whole
    run's when it is one sequence: :meth:`Posteriors.absorb` and :meth:`prune` keep it in step with the state).

    Plain lists, not arrays: a step reads and updates a handful of links, where
    numpy's cost per call exceeds the work. ``added`` maps a link id to its
    [successes, structural failures, environmental failures, alpha increments,
    beta increments] — the increments summed on their own (exactly: they are
    1, ``w_s`` and ``w_e``), so a batch hands over what it added rather than a
    difference of rounded sums.
    """

    def __init__(self, alpha: np.ndarray, beta: np.ndarray, trials: np.ndarray, pruned: np.ndarray) -> None:
        self.alpha: list[float] = alpha.tolist()
        self.beta: list[float] = beta.tolist()
        self.trials: list[int] = trials.tolist()
        self.pruned: list[bool] = pruned.tolist()
        self.added: dict[int, list[Any]] = {}

    @classmethod
    def of(cls, state: "Posteriors | BatchJob") -> "Tally":
        return cls(state.alpha, state.beta, state.trials, state.pruned)

    def prune(self, ids: Sequence[int]) -> None:
        """Mark ``ids`` pruned, as the state they were cut from."""
        for i in ids:
            self.pruned[i] = True

    def record(self, i: int, outcome: str, config: PruneConfig) -> None:
        """:func:`update` of link ``i``."""
        kind, step = _trial(outcome, config)
        self.trials[i] += 1
        added = self.added.get(i)
        if added is None:
            added = self.added[i] = [0, 0, 0, 0.0, 0.0]
        added[kind] += 1
        if kind == SUCCESS:
            self.alpha[i] += step
            added[3] += step
        else:
            self.beta[i] += step
            added[4] += step

    def outcome(self, job: "BatchJob", passed: int, steps: int, steps_ok: int) -> "BatchOutcome":
        """What this tally, made from ``job``, added: the job's :class:`BatchOutcome`."""
        ids = sorted(self.added)
        columns = list(zip(*(self.added[i] for i in ids))) or [()] * 5

        def counts(column: tuple) -> np.ndarray:
            return np.array(column, dtype=np.int64)

        return BatchOutcome(
            job.iteration,
            job.batch,
            job.paths,
            passed,
            steps,
            steps_ok,
            np.array(ids, dtype=np.intp),
            counts(columns[0]),
            counts(columns[1]),
            counts(columns[2]),
            np.array(columns[3], dtype=np.float64),
            np.array(columns[4], dtype=np.float64),
        )


# -- batches ----------------------------------------------------------------------------
@dataclass(frozen=True, eq=False)
class BatchJob:
    """One batch of one iteration: what :meth:`PathSampler.run_batch` needs besides the links and catalog.

    The arrays are the posteriors (indexed by link id) when the iteration began; they are shared by the jobs of
    one iteration and never written (a batch copies them).
    """

    iteration: int
    batch: int
    paths: int
    config: PruneConfig
    alpha: np.ndarray
    beta: np.ndarray
    trials: np.ndarray
    pruned: np.ndarray

    @property
    def seed(self) -> list[int]:
        """The seed of this batch's generator: ``[config.seed, iteration, batch]``."""
        return [self.config.seed, self.iteration, self.batch]


@dataclass(frozen=True, eq=False)
class BatchOutcome:
    """What one batch did: its path and step counts, and per link it tried (``links``, ids ascending) the
    trials it added by class and the alpha and beta increments (a link's trials are the sum of its classes)."""

    iteration: int
    batch: int
    paths: int
    passed: int
    steps: int
    steps_ok: int
    links: np.ndarray
    successes: np.ndarray
    structural: np.ndarray
    environmental: np.ndarray
    alpha: np.ndarray
    beta: np.ndarray


#: how a loop runs one iteration's batches: jobs → their outcomes (in any order, one per job)
RunBatches = Callable[[list[BatchJob]], list[BatchOutcome]]

#: (result digest, bound fields) → the values of those fields in each record that carries them all
_USABLE_KEPT = 100_000


class PathSampler:
    """Walks sampled paths over candidate links: built once per process from the links and catalog.

    Holds only what does not change during a run (link ids, bindings, start tools
    and their examples, outgoing links, fillers); the posteriors come with each
    call. ``links`` may carry any state: only their keys and bindings are read.
    """

    def __init__(self, links: Sequence[Link], catalog: Catalog) -> None:
        ordered = sorted(links, key=lambda link: link.key)
        self.size = len(ordered)
        tool_ids: dict[str, int] = {}
        for link in ordered:
            for name in link.key:
                tool_ids.setdefault(name, len(tool_ids))
        self.sources = [link.source for link in ordered]
        self.targets = [link.target for link in ordered]
        # bound parameters in sorted order, and the fields that feed them (what bound_arguments reads)
        self.params = [tuple(sorted(link.binding)) for link in ordered]
        self.fields = [tuple(link.binding[p] for p in params) for link, params in zip(ordered, self.params)]
        self.tool_ids = tool_ids
        #: source → (link id, target's tool id) of each link out of it, in link order
        self.outgoing: dict[str, list[tuple[int, int]]] = {}
        for i, link in enumerate(ordered):
            self.outgoing.setdefault(link.source, []).append((i, tool_ids[link.target]))
        self.starts = sorted(name for name in self.outgoing if name in catalog and catalog.get(name).examples)
        if not self.starts:
            raise UsageError("no candidate link starts at a tool with example arguments: nothing to execute")
        self.examples = {name: catalog.get(name).examples for name in self.starts}
        self.fillers = {name: target_fillers(catalog.get(name)) for name in sorted(set(self.targets))}
        self._usable: dict[tuple[str, tuple[str, ...]], list[tuple[Any, ...]]] = {}

    def run_batch(self, job: BatchJob, env: Any) -> BatchOutcome:
        """Walk ``job.paths`` paths through ``env`` from the job's posteriors (a private copy, updated as the
        batch goes) with the generator ``default_rng(job.seed)``; what the batch added."""
        if len(job.alpha) != self.size:
            raise UsageError(f"a batch job over {len(job.alpha)} links given to a sampler of {self.size} links")
        tally = Tally.of(job)
        with _collecting_less():
            passed, steps, steps_ok = self.walk(np.random.default_rng(job.seed), env, tally, job.paths, job.config)
        return tally.outcome(job, passed, steps, steps_ok)

    def walk(
        self,
        rng: np.random.Generator,
        env: Any,
        tally: Tally,
        paths: int,
        config: PruneConfig,
        retained: dict[str, list[tuple[int, int]]] | None = None,
    ) -> tuple[int, int, int]:
        """Walk ``paths`` paths, updating ``tally`` as they go: (paths passed, calls made, calls ok).

        ``retained`` caches each source's links not pruned in ``tally`` (a caller that keeps it between walks
        drops the sources of the links it cuts)."""
        retained = {} if retained is None else retained
        passed = steps = steps_ok = 0
        for _ in range(paths):
            ok, made, made_ok = self._path(rng, env, tally, config, retained)
            passed += ok
            steps += made
            steps_ok += made_ok
        return passed, steps, steps_ok

    def _path(
        self,
        rng: np.random.Generator,
        env: Any,
        tally: Tally,
        config: PruneConfig,
        retained: dict[str, list[tuple[int, int]]],
    ) -> tuple[bool, int, int]:
        """One sampled path: (passed, calls made, calls ok); the draws are :func:`choose` and
        :func:`bound_arguments`'s, in the same order.

        A path passes when it crossed at least one link and every call succeeded.
        """
        integers, call = rng.integers, env.call  # looked up once: a run makes 300,000 draws and 150,000 calls
        name = self.starts[int(integers(len(self.starts)))]
        examples = self.examples[name]
        # the records are only read here: shared with the environment's memo, not copied
        result = call(name, dict(examples[int(integers(len(examples)))]), copy_records=False)
        outcome = result.outcome
        steps, steps_ok = 1, int(outcome == "ok")
        visited = [self.tool_ids[name]]
        crossed = 0
        alpha, beta, trials, min_trials = tally.alpha, tally.beta, tally.trials, config.min_trials
        while outcome == "ok" and crossed < config.max_depth:
            out = retained.get(name)
            if out is None:
                pruned = tally.pruned
                out = retained[name] = [pair for pair in self.outgoing.get(name, ()) if not pruned[pair[0]]]
            options = [i for i, target in out if target not in visited]
            if not options:
                break
            i = options[_pick(rng, options, alpha, beta, trials, min_trials)]
            rows = self._rows(result, i)
            crossed += 1
            if not rows:  # the output never carries what the binding reads: the binding is wrong
                tally.record(i, "structural_error", config)
                return False, steps, steps_ok
            row = rows[int(integers(len(rows)))]  # drawn before the filler, as ever
            name = self.targets[i]
            beside = self.fillers[name]
            # {**filler, **bound values}: the filler's keys first, a bound value over a filler's of the same name
            args = dict(beside[int(integers(len(beside)))])
            args.update(zip(self.params[i], row))
            result = call(name, args, copy_records=False)
            outcome = result.outcome
            steps += 1
            steps_ok += outcome == "ok"
            tally.record(i, outcome, config)
            visited.append(self.tool_ids[name])
        return crossed > 0 and steps == steps_ok, steps, steps_ok

    def _rows(self, result: Any, i: int) -> list[tuple[Any, ...]]:
        """The bound values of link ``i`` in each record of ``result`` that carries them all (what
        :func:`bound_arguments` samples from), memoized by the result's digest: equal digests, equal records."""
        fields = self.fields[i]
        key = (result.digest, fields)
        rows = self._usable.get(key)
        if rows is None:
            rows = [tuple(record[f] for f in fields) for record in _carrying(result.records, fields)]
            if len(self._usable) >= _USABLE_KEPT:
                self._usable.clear()
            self._usable[key] = rows
        return rows


#: the youngest generation's collection threshold during a run or batch (Python's default: 700 allocations)
_WALK_GC_THRESHOLD = 100_000


@contextmanager
def _collecting_less() -> Iterator[None]:
    """Collect cyclic garbage in fewer, larger passes during a run (or a batch).

    Walks parse thousands of answers (millions of small dicts and lists, which
    the environment's memo keeps). At the default threshold the collector runs
    thousands of times and its older passes traverse everything kept: a fifth
    of a paper-scale replayed run. Parsed answers hold no cycles; the few a run
    makes are still collected, later. The previous thresholds are restored.
    """
    before = gc.get_threshold()
    gc.set_threshold(max(before[0], _WALK_GC_THRESHOLD), *before[1:])
    try:
        yield
    finally:
        gc.set_threshold(*before)


def _serial(sampler: PathSampler, env: Any) -> RunBatches:
    """Run each job in this process on ``env``, rewound first: as a worker on a freshly opened one would."""

    def run(jobs: list[BatchJob]) -> list[BatchOutcome]:
        outcomes = []
        for job in jobs:
            env.rewind()
            outcomes.append(sampler.run_batch(job, env))
        return outcomes

    return run


# -- the loop ---------------------------------------------------------------------
def prune(
    links: Sequence[Link],
    catalog: Catalog,
    env: Any,
    config: PruneConfig,
    progress: Callable[[IterationStats], None] | None = None,
    *,
    run_batches: RunBatches | None = None,
) -> list[IterationStats]:
    """Run the loop over ``links`` (updated in place) with ``env`` (a ToolEnvironment); per-iteration stats.

    Links start from the prior their feasibility gives unless they already
    carry trials (a resumed run). The state lives in :class:`Posteriors` during
    the run and is written back to the links at its end (also when a call
    raises). With ``config.batches`` > 1, ``run_batches`` runs each
    iteration's :class:`BatchJob` s (default: one after another in this process
    on ``env``, rewound before each); it is not used otherwise.
    """
    ordered = sorted(links, key=lambda link: link.key)
    sampler = PathSampler(ordered, catalog)
    start = Posteriors.of(ordered, config)
    state = Posteriors.of(ordered, config)
    rng = np.random.default_rng(config.seed) if config.batches == 1 else None
    # one sequence: one working copy for the whole run, kept in step with the state (absorbed and cut alike)
    # rather than made afresh from its arrays every iteration
    tally = Tally.of(state) if rng is not None else None
    runner = run_batches or _serial(sampler, env)
    retained: dict[str, list[tuple[int, int]]] = {}  # kept between iterations, less the sources of cut links
    history: list[IterationStats] = []
    try:
        with _collecting_less():
            for iteration in range(1, config.iterations + 1):
                history.append(_iteration(iteration, sampler, state, tally, rng, runner, env, config, retained))
                if progress is not None:
                    progress(history[-1])
    finally:
        state.write_back(ordered, start)  # what was done so far, should a call fail
    return history


def _iteration(
    iteration: int,
    sampler: PathSampler,
    state: Posteriors,
    tally: Tally | None,
    rng: np.random.Generator | None,
    runner: RunBatches,
    env: Any,
    config: PruneConfig,
    retained: dict[str, list[tuple[int, int]]],
) -> IterationStats:
    """One iteration: the paths (one walk on ``rng`` updating ``tally``, or the batches through ``runner``),
    then the cuts."""
    if rng is not None:
        assert tally is not None  # prune() makes one with the generator
        try:
            passed, steps, steps_ok = sampler.walk(rng, env, tally, config.paths, config, retained)
        finally:
            state.absorb(tally)
    else:
        outcomes = _run(runner, _jobs(iteration, state, config))
        state.merge(outcomes)
        passed, steps, steps_ok = (sum(getattr(o, f) for o in outcomes) for f in ("passed", "steps", "steps_ok"))
    env.reset()  # the log is not needed here, and would grow by every call of the run
    cut = state.cut(iteration, config).tolist()
    if tally is not None:
        tally.prune(cut)
    for i in cut:
        retained.pop(sampler.sources[i], None)  # their retained links are fewer now
    return IterationStats(
        iteration, config.paths, passed, steps, steps_ok, len(cut), int(np.count_nonzero(~state.pruned))
    )


def _jobs(iteration: int, state: Posteriors, config: PruneConfig) -> list[BatchJob]:
    frozen = []
    for array in (state.alpha, state.beta, state.trials, state.pruned):
        copy = array.copy()
        copy.flags.writeable = False  # one copy for every job of the iteration
        frozen.append(copy)
    alpha, beta, trials, pruned = frozen
    return [
        BatchJob(iteration, b, size, config, alpha, beta, trials, pruned)
        for b, size in enumerate(batch_sizes(config.paths, config.batches))
    ]


def _run(runner: RunBatches, jobs: list[BatchJob]) -> list[BatchOutcome]:
    """The outcomes of ``jobs``, checked to be one per job."""
    outcomes = list(runner(jobs))
    asked = sorted((job.iteration, job.batch) for job in jobs)
    got = sorted((o.iteration, o.batch) for o in outcomes)
    if got != asked:
        raise UsageError(f"run_batches answered batches {got} for jobs {asked}: one outcome per job is needed")
    return outcomes
