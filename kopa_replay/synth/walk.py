"""EDGE Phase B, first half: walk verified links into executed trajectories with typed junctions.

An attempt starts at a tool with retained outgoing links, called with one of
its catalog examples. At each junction over a retained link, the distinct
values of the bound field(s) in the source output (every page read, up to
the page budget) type it — 1 sequential, 2..B fan-out, more derived, where a
reduction (max, min, threshold, most frequent) first cuts the set to at most
B — and the target is called once per value, the calls of one junction
forming one parallel group. The answer is then computed from the executed
outputs (:mod:`kopa_replay.synth.answer`); nothing is written by hand.

Patterns steer the walk and the answer, in turns, until each has its share:

* ``chain`` — every junction hands over one value (the one-to-one family);
* ``fan_out`` — the last junction fans out; the answer aggregates the branches;
* ``derived`` — at least one junction needs a reduction;
* ``comparison`` — the last junction fans out; the answer names the branch that
  maximizes / minimizes a figure;
* ``condition`` — a yes/no: does a computed figure pass a threshold.

Junctions are typed only over outputs that were read to the end: a set cut
off by the page budget has an unknown number of distinct values. An attempt
is skipped, and counted by reason, when a call fails, the walk finds no
usable link, the pattern cannot be met, or no answer is determined.
Determinism: links in sorted order and one of two random schemes
(:attr:`SynthConfig.streams`):

* ``"one"`` (the default) — one seeded ``numpy.random.Generator`` for the whole
  walk, the environment reset before each attempt. Attempt n draws where
  attempt n-1 stopped, so attempts can only run one after another.
* ``"attempt"`` — attempt n (counting from 0) draws from its own
  ``default_rng([seed, n])`` on a rewound environment (``env.rewind()``: as if
  freshly opened, per-request counters forgotten). An attempt is then a pure
  function of (n, pattern) for a given snapshot and seed, which other processes
  can compute (:class:`AttemptJob`, :class:`AttemptRunner`,
  :class:`AttemptOutcome`). The driver guesses the patterns of the next
  ``width`` attempts, has them run (the ``run_attempts`` hook), and takes the
  outcomes in order exactly as the one-at-a-time loop would; where a quota
  filled on the way changes the rotation, the rest of the guess is dropped and
  guessed again. The corpus is the same for every width and every hook — but
  not the ``"one"`` corpus: the draws differ. A recording environment fills
  its snapshot as attempts run, the speculated ones too: record at width 1,
  then replay the snapshot at any width (an attempt it never recorded only
  fails the run if the walk takes that attempt).
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field, replace
from typing import Any, Literal, Protocol

import numpy as np

from kopa_replay.catalog.model import Catalog, Tool
from kopa_replay.errors import KopaError, UsageError
from kopa_replay.graph.model import Link
from kopa_replay.synth.answer import PATTERN_FAMILIES, answer_for, propose
from kopa_replay.synth.fields import measure_fields
from kopa_replay.synth.intents import Entry, IntentLink, Intents
from kopa_replay.synth.junction import (
    apply_reduction,
    bound_args,
    distinct_values,
    junction_kind,
    propose_reductions,
    value_strings,
)
from kopa_replay.synth.model import Junction, Reduction, Trajectory
from kopa_replay.synth.pager import read_pages, with_page_size
from kopa_replay.synth.phrasing import propose as propose_intent
from kopa_replay.synth.plan import (
    Execution,
    Perturbation,
    PlanRun,
    branches_of,
    call_log,
    candidate_values,
    run_plan,
    unconstrained_junction,  # noqa: F401
)
from kopa_replay.text.concepts import target_fillers
from kopa_replay.util import Progress, tick

__all__ = [
    "PATTERNS",
    "STREAMS",
    "AttemptJob",
    "AttemptOutcome",
    "AttemptRunner",
    "RunAttempts",
    "SynthConfig",
    "SynthResult",
    "QuestionWriter",
    "synthesize",
    "synthesize_report",
    "Perturbation",
    "PlanRun",
    "run_plan",
    "candidate_values",
]

PATTERNS = tuple(PATTERN_FAMILIES)
#: the random schemes of :attr:`SynthConfig.streams` (see the module docstring)
STREAMS = ("one", "attempt")


class QuestionWriter(Protocol):
    """Writes the question a trajectory answers (Korean, never disclosing the handed values)."""

    def write(self, trajectory: Trajectory, catalog: Catalog) -> str: ...


@dataclass(frozen=True)
class SynthConfig:
    """The walk's knobs."""

    trajectories: int = 200  # how many trajectories to keep
    seed: int = 0  # the one numpy Generator's seed
    fan_out_budget: int = 5  # B: at most this many values cross a junction (parallel calls)
    max_links: int = 3  # links per trajectory (drawn in 1..max_links per attempt)
    page_budget: int = 5  # pages read per step at most
    patterns: tuple[str, ...] = PATTERNS  # the patterns to produce, in equal shares
    max_attempts: int = 0  # give up after this many attempts (0: 40 per trajectory)
    keep_records: int = 20  # records kept per call in meta["calls"] (what the SFT export shows)
    max_page_size: bool = True  # ask paged tools for their largest page when the arguments leave it unset
    require_constrained: bool = True  # keep only chains whose every intermediate call moves the answer
    distinct_tool_sets: bool = True  # one task per set of tools (else: one per calls and question)
    exclude_platforms: tuple[str, ...] = ()  # never call these platforms' tools (a benchmark's held-out split)
    # "one": one Generator(seed) for the whole walk (attempts strictly in turn); "attempt": attempt n draws from
    # default_rng([seed, n]) on a rewound environment, so attempts can run anywhere, in any order (module docstring)
    streams: Literal["one", "attempt"] = "one"

    def __post_init__(self) -> None:
        problems = []
        if self.trajectories < 0:
            problems.append(f"trajectories must not be negative, not {self.trajectories}")
        if self.fan_out_budget < 2:
            problems.append(f"fan_out_budget must be at least 2, not {self.fan_out_budget}")
        if self.max_links < 1 or self.page_budget < 1:
            problems.append("max_links and page_budget must be at least 1")
        unknown = [p for p in self.patterns if p not in PATTERN_FAMILIES]
        if unknown or not self.patterns:
            problems.append(f"patterns must be some of {', '.join(PATTERNS)}, not {list(self.patterns)}")
        if self.max_attempts < 0 or self.keep_records < 0:
            problems.append("max_attempts and keep_records must not be negative")
        if self.streams not in STREAMS:
            problems.append(f"streams must be one of {', '.join(STREAMS)}, not {self.streams!r}")
        if problems:
            raise UsageError("; ".join(problems))

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "patterns": list(self.patterns), "exclude_platforms": list(self.exclude_platforms)}


@dataclass
class SynthResult:
    """The kept trajectories, how many attempts it took, and why the others were skipped.

    ``speculated`` and ``discarded`` (the ``"attempt"`` scheme only; 0 otherwise) say how the work went, not what
    was made, and vary with the width: how many attempts were handed to the hook, and how many of those were run
    for nothing (a quota filled before them changed the rotation, or enough were kept)."""

    trajectories: list[Trajectory]
    attempts: int
    skipped: dict[str, int] = field(default_factory=dict)
    by_pattern: dict[str, int] = field(default_factory=dict)
    speculated: int = 0
    discarded: int = 0


@dataclass(frozen=True)
class AttemptJob:
    """Attempt number ``n`` (counting from 0) of a walk, for ``pattern``: under the ``"attempt"`` scheme all an
    attempt depends on besides what every worker shares (catalog, links, configuration, intents, snapshot)."""

    n: int
    pattern: str


@dataclass(frozen=True)
class AttemptOutcome:
    """What an attempt gave: a trajectory — its id left empty, for the driver numbers the kept ones in order —, the
    reason it was skipped, or the error that stopped it (a strict snapshot's miss). The error is raised only if the
    driver takes this outcome: a speculated attempt the serial walk never makes may meet a request its recording
    never saw, and that must not end the run."""

    job: AttemptJob
    trajectory: Trajectory | None = None
    skip: str | None = None
    error: KopaError | None = None

    def __post_init__(self) -> None:
        if sum(part is not None for part in (self.trajectory, self.skip, self.error)) != 1:
            raise UsageError(f"an attempt outcome has one of a trajectory, a skip reason or an error ({self.job})")


#: runs a block of attempts (in this process or others, in any order) and returns one outcome per job
RunAttempts = Callable[[list[AttemptJob]], list[AttemptOutcome]]


class _Skip(Exception):
    """An attempt that ends without a trajectory; the message is the reason counted."""


class AttemptRunner:
    """Runs attempts of the ``"attempt"`` scheme: what a worker process builds once, then runs jobs with.

    :meth:`run` rewinds ``env`` first (a replayed request's n-th recorded answer, a simulated fault's n-th try: the
    counters behind them start over) and draws from ``default_rng([seed, job.n])``, so its outcome is the same for
    a job wherever, and after whatever else, it runs over the same snapshot.
    """

    def __init__(
        self, catalog: Catalog, links: Sequence[Link], config: SynthConfig, intents: Intents | None = None
    ) -> None:
        if config.streams != "attempt":
            raise UsageError(
                f"AttemptRunner runs attempts of SynthConfig(streams='attempt'), not streams={config.streams!r}"
            )
        self.config = config
        self._walker = _Walker(catalog, links, config, intents)

    def run(self, job: AttemptJob, env: Any) -> AttemptOutcome:
        env.rewind()
        return _attempt(self._walker, job, env, np.random.default_rng([self.config.seed, job.n]))


def _attempt(walker: _Walker, job: AttemptJob, env: Any, rng: np.random.Generator) -> AttemptOutcome:
    try:
        return AttemptOutcome(job, walker.attempt(job.pattern, "", env, rng))
    except _Skip as skip:
        return AttemptOutcome(job, skip=str(skip))
    except KopaError as error:  # raised where the driver takes the attempt, if it does (AttemptOutcome)
        return AttemptOutcome(job, error=error)


def synthesize(
    catalog: Catalog,
    links: Sequence[Link],
    env: Any,
    config: SynthConfig = SynthConfig(),
    writer: QuestionWriter | None = None,
    *,
    intents: Intents | None = None,
) -> list[Trajectory]:
    """Executed trajectories over the retained ``links`` (see the module docstring)."""
    return synthesize_report(catalog, links, env, config, writer, intents=intents).trajectories


def synthesize_report(
    catalog: Catalog,
    links: Sequence[Link],
    env: Any,
    config: SynthConfig = SynthConfig(),
    writer: QuestionWriter | None = None,
    *,
    exclude: Callable[[Trajectory], str | None] | None = None,
    intents: Intents | None = None,
    progress: Progress | None = None,
    run_attempts: RunAttempts | None = None,
    width: int | None = None,
) -> SynthResult:
    """:func:`synthesize`, also saying how many attempts were made and why the skipped ones were skipped.

    ``exclude`` sees each finished candidate (its question written) and returns the reason it must not be
    kept (a benchmark task it repeats), or None; an excluded candidate does not count toward
    ``config.trajectories`` (the walk goes on), frees its set of tools for another walk, and is counted
    under the skip reason ``"excluded"``. ``progress`` hears each trajectory kept.

    With ``intents`` (:mod:`kopa_replay.synth.intents`) the walk keeps to what a person would ask: it
    starts from the named entities, takes only the links the table gives a meaning (and ``links``
    retains), calls each target with the arguments its relation states, ranks only by the quantities the
    table names, and answers only what the table can phrase.

    Under ``config.streams == "attempt"``, ``run_attempts`` runs each block of ``width`` guessed attempts
    (default: one after another here, on ``env``; a pool of processes, each with its own
    :class:`AttemptRunner` and environment, returns the same outcomes, in any order). ``width`` defaults to
    the hook's ``width`` attribute, else 1. Dedup, the constrained-chain check (on ``env``, rewound), the
    writer, ``exclude`` and the quotas run here, in attempt order: the result does not depend on either.
    """
    keeper = _Keeper(catalog, env, config, writer, exclude, intents, progress)
    if config.streams == "one":
        if run_attempts is not None or width is not None:
            raise UsageError(
                "run_attempts and width need SynthConfig(streams='attempt'): "
                "under streams='one' every attempt draws from the one shared random stream, in turn"
            )
        walker = _Walker(catalog, links, config, intents)
        rng = np.random.default_rng(config.seed)
        while keeper.wants_more():
            job = AttemptJob(keeper.attempts, keeper.next_pattern())
            env.reset()
            keeper.take(_attempt(walker, job, env, rng))
        return keeper.result()
    runner = AttemptRunner(catalog, links, config, intents)  # its checks, even when the hook runs elsewhere
    hook: RunAttempts = run_attempts or (lambda jobs: [runner.run(job, env) for job in jobs])
    width = width if width is not None else int(getattr(run_attempts, "width", 1))
    if isinstance(width, bool) or not isinstance(width, int) or width < 1:
        raise UsageError(f"width (attempts run at once) must be a whole number of at least 1, not {width!r}")
    while keeper.wants_more():
        # guess: the rotation as it stands goes on for the whole block (no quota fills in it)
        jobs = [
            AttemptJob(keeper.attempts + k, keeper.next_pattern(k))
            for k in range(min(width, keeper.max_attempts - keeper.attempts))
        ]
        outcomes = _in_job_order(jobs, hook(list(jobs)))
        keeper.speculated += len(jobs)
        taken = 0
        for job, outcome in zip(jobs, outcomes):
            # where the one-at-a-time loop would stop, or pick another pattern, the guess is wrong from here on
            if not keeper.wants_more() or keeper.next_pattern() != job.pattern:
                break
            keeper.take(outcome)
            taken += 1
        keeper.discarded += len(jobs) - taken
    return keeper.result()


def _in_job_order(jobs: Sequence[AttemptJob], outcomes: Sequence[AttemptOutcome]) -> list[AttemptOutcome]:
    """The hook's outcomes lined up with ``jobs`` (a pool returns them as they finish); exactly one per job."""
    by_n = {outcome.job.n: outcome for outcome in outcomes}
    if len(outcomes) != len(jobs) or any(job.n not in by_n or by_n[job.n].job != job for job in jobs):
        raise UsageError(
            f"run_attempts must return one outcome per job: asked for {[(j.n, j.pattern) for j in jobs]}, "
            f"got {[(o.job.n, o.job.pattern) for o in outcomes]}"
        )
    return [by_n[job.n] for job in jobs]


class _Keeper:
    """The in-order half of the walk: takes each attempt's outcome as the sequential loop would — dedup, the
    constrained-chain check, the writer, ``exclude``, quotas — and numbers the kept trajectories."""

    def __init__(
        self,
        catalog: Catalog,
        env: Any,
        config: SynthConfig,
        writer: QuestionWriter | None,
        exclude: Callable[[Trajectory], str | None] | None,
        intents: Intents | None,
        progress: Progress | None,
    ) -> None:
        self.catalog, self.env, self.config, self.writer = catalog, env, config, writer
        self.exclude, self.intents, self.progress = exclude, intents, progress
        self.quotas = _quotas(config.trajectories, config.patterns)
        self.made: Counter[str] = Counter()
        self.skipped: Counter[str] = Counter()
        self.out: list[Trajectory] = []
        self.max_attempts = config.max_attempts or 40 * max(config.trajectories, 1)
        self.attempts = 0
        self.seen: set[tuple[str, str]] = set()
        self.shapes: set[tuple[str, ...]] = set()
        self.speculated = self.discarded = 0

    def wants_more(self) -> bool:
        return len(self.out) < self.config.trajectories and self.attempts < self.max_attempts

    def next_pattern(self, ahead: int = 0) -> str:
        """The pattern of attempt ``attempts + ahead`` if no quota fills before it: the open ones in turn."""
        open_patterns = [p for p in self.config.patterns if self.made[p] < self.quotas[p]]
        return open_patterns[(self.attempts + ahead) % len(open_patterns)]

    def take(self, outcome: AttemptOutcome) -> None:
        config, skipped = self.config, self.skipped
        assert outcome.job.n == self.attempts, (outcome.job, self.attempts)
        if outcome.error is not None:  # where the one-at-a-time walk would have stopped
            raise outcome.error
        self.attempts += 1
        trajectory = outcome.trajectory
        if trajectory is None:
            skipped[str(outcome.skip)] += 1
            return
        # numbered when taken (before the writer and exclude see it): an attempt does not know how many went before
        trajectory.id = f"t{len(self.out) + 1:04d}"
        # one task per set of tools: the same tools over another start value, in another order, reduced
        # another way or asked about another way make questions the filter rightly calls near-duplicates
        identity = (trajectory.state_digest, trajectory.answer.derivation)
        shape: tuple[str, ...] = tuple(sorted({step.tool for step in trajectory.steps}))
        if self.intents is not None:  # a named start is a question of its own: 19001번 정류소 is not 16010번
            shape += (json.dumps(dict(trajectory.steps[0].args), sort_keys=True, ensure_ascii=False, default=str),)
        if identity in self.seen or (config.distinct_tool_sets and shape in self.shapes):
            skipped["duplicate"] += 1
            return
        self.seen.add(identity)
        self.shapes.add(shape)
        if config.require_constrained:
            if config.streams == "attempt":  # the check's calls, too, must not depend on what ran before
                self.env.rewind()
            if unconstrained_junction(trajectory, self.catalog, self.env) is not None:
                # another value at some junction leaves the answer where it was: that call is not needed
                skipped["answer not constrained by an intermediate call"] += 1
                return
        if self.writer is not None:
            try:
                trajectory.question = self.writer.write(trajectory, self.catalog)
            except KopaError:  # a writer that cannot phrase it without leaking: the task goes, the run goes on
                skipped["question writer refused"] += 1
                return
        if self.exclude is not None and self.exclude(trajectory) is not None:
            skipped["excluded"] += 1
            self.shapes.discard(shape)
            return
        self.made[outcome.job.pattern] += 1
        self.out.append(trajectory)
        tick(self.progress, "trajectories", len(self.out), config.trajectories)

    def result(self) -> SynthResult:
        return SynthResult(
            self.out,
            self.attempts,
            dict(sorted(self.skipped.items())),
            dict(sorted(self.made.items())),
            self.speculated,
            self.discarded,
        )


def _quotas(total: int, patterns: Sequence[str]) -> dict[str, int]:
    """Equal shares; the first patterns take the remainder."""
    base, extra = divmod(total, len(patterns))
    return {p: base + (i < extra) for i, p in enumerate(patterns)}


class _Walker:
    """One attempt at a time: the links it may take are set once; the environment and the random stream are
    the attempt's (:meth:`attempt`), so one walker serves either scheme."""

    env: Any
    rng: np.random.Generator

    def __init__(
        self, catalog: Catalog, links: Sequence[Link], config: SynthConfig, intents: Intents | None = None
    ) -> None:
        self.catalog, self.config, self.intents = catalog, config, intents
        excluded = set(config.exclude_platforms)
        retained = sorted(
            (
                link
                for link in links
                if not link.pruned
                and link.binding
                and link.source in catalog
                and link.target in catalog
                and not {catalog.get(link.source).platform, catalog.get(link.target).platform} & excluded
            ),
            key=lambda link: (link.key, sorted(link.binding.items())),
        )
        self.meaning: dict[int, IntentLink] = {}
        if intents is not None:
            retained = self._meaningful(retained, intents)
        self.outgoing: dict[str, list[Link]] = {}
        for link in retained:
            self.outgoing.setdefault(link.source, []).append(link)
        self.entries: dict[str, list[Entry]] = {}
        if intents is not None:
            for entry in intents.entries:
                if entry.tool in self.outgoing and catalog.get(entry.tool).platform not in excluded:
                    self.entries.setdefault(entry.tool, []).append(entry)
            self.starts = sorted(self.entries)
        else:
            self.starts = sorted(name for name in self.outgoing if catalog.get(name).examples)
        if not self.starts:
            raise UsageError("no retained link starts at a tool with example arguments: nothing to walk")
        self.fillers = {link.target: target_fillers(catalog.get(link.target)) for link in retained}

    def _meaningful(self, retained: Sequence[Link], intents: Intents) -> list[Link]:
        """The links the table gives a meaning, among those retained: execution said the source can feed the
        target (the link's posterior weighs the draw), the table says which of its fields a person would hand
        on — the scorer's binding where the table has it, else the table's own for the same two tools."""
        by_pair: dict[tuple[str, str], list[IntentLink]] = {}
        for meaning in intents.links:
            by_pair.setdefault((meaning.source, meaning.target), []).append(meaning)
        out: list[Link] = []
        for link in retained:
            exact = intents.link_for(link.source, link.target, link.binding)
            for meaning in [exact] if exact is not None else by_pair.get((link.source, link.target), []):
                walked = link if exact is not None else replace(link, binding=dict(meaning.binding))
                self.meaning[id(walked)] = meaning
                out.append(walked)
        return out

    def _pick(self, items: Sequence[Any]) -> Any:
        return items[int(self.rng.integers(len(items)))]

    def _weighted(self, options: Sequence[tuple[Link, list[Any], str]]) -> tuple[Link, list[Any], str]:
        """A link drawn in proportion to prior × posterior mean: how sure the scorer was that the binding means
        something, times how well it executed — a date handed to any date parameter runs, but says little."""
        weights = np.array([max(o[0].prior * o[0].posterior_mean, 1e-6) for o in options], dtype=np.float64)
        return options[int(self.rng.choice(len(options), p=weights / weights.sum()))]

    def _args(self, tool: Tool, args: dict[str, Any]) -> dict[str, Any]:
        return with_page_size(tool, args) if self.config.max_page_size else dict(args)

    def attempt(self, pattern: str, trajectory_id: str, env: Any, rng: np.random.Generator) -> Trajectory:
        """One walk for ``pattern`` on ``env`` (reset or rewound by the caller), drawing from ``rng``."""
        self.env, self.rng = env, rng
        config = self.config
        budget = config.fan_out_budget
        n_links = int(self.rng.integers(1, config.max_links + 1))
        start = self.catalog.get(self._pick(self.starts))
        entry: Entry | None = None
        if self.intents is not None:
            entries = self.entries[start.name]
            example = int(self.rng.integers(len(entries)))
            entry = entries[example]
            start_args = dict(entry.args)
        else:
            example = int(self.rng.integers(len(start.examples)))
            start_args = dict(start.examples[example])
        run = Execution()
        if not run.add([read_pages(env, start, self._args(start, start_args), config.page_budget)], [None]):
            raise _Skip("start call failed")
        tools, links_taken, visited = [start], [], {start.name}
        meanings: list[IntentLink] = []
        for depth in range(n_links):
            last = depth == n_links - 1
            source = tools[-1]
            reads = run.groups[-1]
            if not all(read.complete for read in reads):
                break  # a partly read output has an unknown number of distinct values: stop here
            records = [record for read in reads for record in read.records]
            match = self._match(entry, depth)
            into = (meanings[-1].relation if meanings else entry.relation) if entry is not None else None
            options = []
            for link in self.outgoing.get(source.name, ()):
                if link.target in visited:
                    continue
                if self.intents is not None and (
                    self.intents.round_trip(into, self.meaning[id(link)])
                    or self.intents.detour(meanings[-1] if meanings else entry, self.meaning[id(link)])
                ):
                    continue
                values = distinct_values(records, link.binding)
                if match is not None:  # the record the person named: a lookup, one value handed on
                    if len(apply_reduction(records, link.binding, match)) == 1:
                        options.append((link, values, "sequential"))
                elif values:
                    options.append((link, values, junction_kind(len(values), budget)))
            options = [o for o in options if _allowed(pattern, o[2], last, run.junctions)]
            chosen = self._choose(options, pattern, last, records, source, match)
            if chosen is None:
                break
            link, values, kind, reduction = chosen
            distinct = len(values)
            if reduction is not None:
                values = apply_reduction(records, link.binding, reduction)
            target = self.catalog.get(link.target)
            if self.intents is not None:
                meaning = self.meaning[id(link)]
                meanings.append(meaning)
                beside = {
                    p: v
                    for p, v in self._args(target, dict(self._pick(meaning.relation.with_))).items()
                    if p not in link.binding
                }
            else:
                beside = {
                    p: v
                    for p, v in self._args(target, dict(self._pick(self.fillers[link.target]))).items()
                    if p not in link.binding
                }
            run.junctions.append(
                Junction(
                    run.starts[-1],
                    len(run.steps),
                    dict(link.binding),
                    kind,
                    len(records),
                    distinct,
                    tuple(values),
                    reduction,
                )
            )
            calls = [
                read_pages(env, target, {**beside, **bound_args(link.binding, v)}, config.page_budget) for v in values
            ]
            if not run.add(calls, list(values)):
                raise _Skip("a step failed")
            tools.append(target)
            links_taken.append([link.source, link.target])
            visited.add(target.name)
        if not run.junctions:
            raise _Skip("no usable link from the start")
        if not _met(pattern, run):
            raise _Skip(f"pattern {pattern} not met")
        if self.intents is not None:
            proposal = propose_intent(
                self.intents, pattern, branches_of(run.groups, run.handed), tools, meanings, run.junctions, self.rng
            )
        else:
            proposal = propose(pattern, branches_of(run.groups, run.handed), tools, self.rng)
        if proposal is None:
            raise _Skip("no answer determined")
        spec, value, unit = proposal
        trajectory = self._trajectory(
            trajectory_id, pattern, run, spec, answer_for(spec, value, unit), example, links_taken
        )
        if entry is not None:  # two starts may call the same tool alike (a statute by name, or a name search)
            trajectory.meta["entry"] = entry.relation.id
        return trajectory

    def _match(self, entry: Entry | None, depth: int) -> Reduction | None:
        """At a start the person named by a name (a city, a statute), the reduction that picks it out."""
        if entry is None or depth != 0 or entry.relation.select is None:
            return None
        select = entry.relation.select
        return Reduction("match", select["field"], None, 1, str(entry.named.attrs[select["attr"]]))

    def _choose(
        self,
        options: list[tuple[Link, list[Any], str]],
        pattern: str,
        last: bool,
        records: list[dict[str, Any]],
        source: Tool,
        match: Reduction | None = None,
    ) -> tuple[Link, list[Any], str, Reduction | None] | None:
        """The next link (weighted draw); a derived one only if its value set has a well-defined reduction."""
        options = list(options)
        while options:
            link, values, kind = chosen = self._weighted(options)
            if match is not None:
                return link, values, kind, match
            if kind != "derived":
                return link, values, kind, None
            reduction = self._reduction(pattern, last, records, link, source)
            if reduction is not None:
                return link, values, kind, reduction
            options.remove(chosen)
        return None

    def _reduction(
        self, pattern: str, last: bool, records: list[dict[str, Any]], link: Link, source: Tool
    ) -> Reduction | None:
        """A reduction drawn op first (so a tool with many numeric fields does not crowd out the others)."""
        if self.intents is not None:
            options = self._intent_reductions(records, link, source)
        else:
            options = propose_reductions(
                records, link.binding, measure_fields(source, records), self.config.fan_out_budget
            )
        if pattern == "comparison" and last:
            options = [r for r in options if r.kept >= 2]  # the branches are the point
        ops = sorted({r.op for r in options})
        if not ops:
            return None
        op = self._pick(ops)
        return self._pick([r for r in options if r.op == op])

    def _intent_reductions(self, records: list[dict[str, Any]], link: Link, source: Tool) -> list[Reduction]:
        """Reductions the table can phrase: by a named quantity of the source (a date-like one only by rank),
        or — for an entity the records are related to, not the records themselves — the most frequent."""
        assert self.intents is not None
        intent = self.intents.tool(source.name)
        if intent is None:
            return []
        rankable = sorted({m.field for m in intent.measures if not m.where})
        options = propose_reductions(records, link.binding, rankable, self.config.fan_out_budget)
        rank_only = {m.field for m in intent.measures if m.rank_only}
        via = self.meaning[id(link)].via is not None
        return [
            r for r in options if (r.op != "threshold" or r.field not in rank_only) and (r.op != "most_frequent" or via)
        ]

    def _trajectory(
        self,
        trajectory_id: str,
        pattern: str,
        run: Execution,
        spec: dict[str, Any],
        answer: Any,
        example: int,
        links_taken: list[list[str]],
    ) -> Trajectory:
        config = self.config
        handed: list[str] = []
        for junction in run.junctions:
            for value in junction.values:
                for text in value_strings(value):
                    if text not in handed:
                        handed.append(text)
        calls = call_log(run.steps, run.groups, config.keep_records)
        meta = {
            "page_budget": config.page_budget,
            "fan_out_budget": config.fan_out_budget,
            "answer_spec": spec,
            "start_example": example,
            "links": links_taken,
            "calls": calls,
            "complete": all(read.complete for reads in run.groups for read in reads),
            "seed": config.seed,
        }
        return Trajectory(
            trajectory_id,
            pattern,
            list(run.steps),
            list(run.junctions),
            answer,
            "",
            tuple(handed),
            self.env.state_digest(),
            meta,
        )


def _allowed(pattern: str, kind: str, last: bool, taken: Sequence[Junction]) -> bool:
    """May a junction of ``kind`` come next in a walk for ``pattern``?"""
    if pattern == "chain":
        return kind == "sequential"
    if pattern == "fan_out" and last:
        return kind == "fan_out"
    if pattern == "derived" and last and not any(j.kind == "derived" for j in taken):
        return kind == "derived"
    if pattern == "comparison" and last:
        return kind in ("fan_out", "derived")
    return True


def _met(pattern: str, run: Execution) -> bool:
    """Does the walk, as it ended, have what ``pattern`` needs?"""
    kinds = [j.kind for j in run.junctions]
    if pattern == "chain":
        return all(k == "sequential" for k in kinds)
    if pattern == "fan_out":
        return kinds[-1] == "fan_out"
    if pattern == "derived":
        return "derived" in kinds
    if pattern == "comparison":
        return len(run.groups[-1]) >= 2
    return True
