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
Determinism: one seeded ``numpy.random.Generator``, links in sorted order,
the environment reset before each attempt.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import asdict, dataclass, field, replace
from typing import Any, Callable, Protocol, Sequence

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
    candidate_values,
    run_plan,
    unconstrained_junction,  # noqa: F401
)
from kopa_replay.text.concepts import target_fillers
from kopa_replay.util import Progress, tick

__all__ = [
    "PATTERNS",
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
        if problems:
            raise UsageError("; ".join(problems))

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "patterns": list(self.patterns), "exclude_platforms": list(self.exclude_platforms)}


@dataclass
class SynthResult:
    """The kept trajectories, how many attempts it took, and why the others were skipped."""

    trajectories: list[Trajectory]
    attempts: int
    skipped: dict[str, int] = field(default_factory=dict)
    by_pattern: dict[str, int] = field(default_factory=dict)


class _Skip(Exception):
    """An attempt that ends without a trajectory; the message is the reason counted."""


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
    """
    walker = _Walker(catalog, links, env, config, intents)
    quotas = _quotas(config.trajectories, config.patterns)
    made: Counter[str] = Counter()
    skipped: Counter[str] = Counter()
    out: list[Trajectory] = []
    max_attempts = config.max_attempts or 40 * max(config.trajectories, 1)
    attempts = 0
    seen: set[tuple[str, str]] = set()
    shapes: set[tuple[str, ...]] = set()
    while len(out) < config.trajectories and attempts < max_attempts:
        open_patterns = [p for p in config.patterns if made[p] < quotas[p]]
        pattern = open_patterns[attempts % len(open_patterns)]
        attempts += 1
        try:
            trajectory = walker.attempt(pattern, f"t{len(out) + 1:04d}")
        except _Skip as skip:
            skipped[str(skip)] += 1
            continue
        # one task per set of tools: the same tools over another start value, in another order, reduced
        # another way or asked about another way make questions the filter rightly calls near-duplicates
        identity = (trajectory.state_digest, trajectory.answer.derivation)
        shape: tuple[str, ...] = tuple(sorted({step.tool for step in trajectory.steps}))
        if intents is not None:  # a named start is a question of its own: 19001번 정류소 is not 16010번
            shape += (json.dumps(dict(trajectory.steps[0].args), sort_keys=True, ensure_ascii=False, default=str),)
        if identity in seen or (config.distinct_tool_sets and shape in shapes):
            skipped["duplicate"] += 1
            continue
        seen.add(identity)
        shapes.add(shape)
        if config.require_constrained and unconstrained_junction(trajectory, catalog, env) is not None:
            # another value at some junction leaves the answer where it was: that call is not needed
            skipped["answer not constrained by an intermediate call"] += 1
            continue
        if writer is not None:
            try:
                trajectory.question = writer.write(trajectory, catalog)
            except KopaError:  # a writer that cannot phrase it without leaking: the task goes, the run goes on
                skipped["question writer refused"] += 1
                continue
        if exclude is not None and exclude(trajectory) is not None:
            skipped["excluded"] += 1
            shapes.discard(shape)
            continue
        made[pattern] += 1
        out.append(trajectory)
        tick(progress, "trajectories", len(out), config.trajectories)
    return SynthResult(out, attempts, dict(sorted(skipped.items())), dict(sorted(made.items())))


def _quotas(total: int, patterns: Sequence[str]) -> dict[str, int]:
    """Equal shares; the first patterns take the remainder."""
    base, extra = divmod(total, len(patterns))
    return {p: base + (i < extra) for i, p in enumerate(patterns)}


class _Walker:
    def __init__(
        self, catalog: Catalog, links: Sequence[Link], env: Any, config: SynthConfig, intents: Intents | None = None
    ) -> None:
        self.catalog, self.env, self.config, self.intents = catalog, env, config, intents
        self.rng = np.random.default_rng(config.seed)
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

    def attempt(self, pattern: str, trajectory_id: str) -> Trajectory:
        config, env = self.config, self.env
        budget = config.fan_out_budget
        env.reset()
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
        calls = []
        for step, read in zip(run.steps, (read for reads in run.groups for read in reads)):
            for page in read.pages:
                calls.append(
                    {
                        "step": step.index,
                        "group": step.group,
                        "tool": page.tool,
                        "args": dict(sorted(page.args.items())),
                        "outcome": page.outcome,
                        "total_count": page.total_count,
                        "record_count": len(page.records),
                        "records": page.records[: config.keep_records],
                    }
                )
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
