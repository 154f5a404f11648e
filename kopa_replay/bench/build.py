"""Building the benchmark's task set: the curated tasks executed and checked, or walks proposed as candidates.

The shipped task set (:mod:`kopa_replay.bench.data`) is made by :func:`build_tasks`
and nothing else, so it can be rebuilt and reviewed: every curated task
(:mod:`kopa_replay.bench.curated` — questions people wrote and accepted, each with a
declarative plan) executed through the environment, its answer computed again from
the simulator's world truth (:mod:`kopa_replay.bench.truth`), both failure modes tried
(:mod:`kopa_replay.bench.review`); a task whose two answers disagree, or that a
reader's check objects to, fails the build.

:func:`propose_tasks` is the generator that proposes candidates a person may take
into the curated files (it made the earlier, generated task set):

1. **Links.** The meaningful links of the intent table (:mod:`kopa_replay.synth.intents`:
   a company's convertible bonds, the routes that stop at a stop, the city a library
   is in …) — not the pruned graph (a benchmark built from the pipeline it measures
   would inherit its mistakes) and not every link that merely executes (a chain that
   hands a date from a dividend report to a school lunch means nothing to anyone).
2. **Walks.** :func:`kopa_replay.synth.synthesize` with the table, from the named
   entities (a company name, a stop number on a sign, a school), over several seeds
   and two page policies — asking paged tools for their largest page, and leaving the
   page size at the server's default, which is how tasks come to read several pages.
   Questions are the :class:`~kopa_replay.synth.questions.IntentWriter`'s: the start,
   the relation phrase of every link, each reduction, the answer's phrase.
3. **Selection** per domain (:func:`_select`): up to a third of the quota in walks read
   over several pages (the first-page baseline needs them), then the patterns in
   turn (chain, fan-out, derived, comparison, condition), one walk per set of tools
   first, a second one (another start) only when a domain has no other, nearest
   :data:`TARGET_CALLS` calls first.
4. **Checks** (:func:`task_problems`) that fail the build: a tool name or title, or
   호출, in a question; a value handed between calls (or the answer) in it; a yes/no
   threshold stated to more than two significant digits (2 × the figure gives it away);
   a code the person would not know given to the first call (a corp_code, a stId, a
   법정동코드 — only names, places, dates and numbers on signs); an argument the
   question does not state; a link without an authored relation phrase; a chain that
   hands back what it just read, takes a lookup it does not use, or hands on only a date.

Walks through real-time tools (arrivals, bus positions: their answers change minute to
minute; the paper filtered such tasks out) are not taken, nor two walks with the same
plan (tools and arguments) or with near-verbatim questions.

A task is ``held_out`` when it touches a platform of :data:`HELD_OUT_PLATFORMS`
(the paper kept Seoul Open Data and DART/KRX-grounded tasks out of synthesis;
``kopa-replay synth --exclude-platform`` does the same for training data).
The plans (trajectories) ship beside the tasks: the baseline agents run them.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from typing import Any

import numpy as np

from kopa_replay.bench.model import MAX_CALLS, BuildSpec, Task
from kopa_replay.bench.overlap import NEAR_VERBATIM, QuestionIndex, plan_signature
from kopa_replay.bench.tasks import task_from_trajectory, trajectory_calls
from kopa_replay.catalog.model import Catalog
from kopa_replay.errors import UsageError
from kopa_replay.graph.model import Link
from kopa_replay.synth.exposure import CODE_DOMAINS  # noqa: F401 - re-exported: tests and callers read it here
from kopa_replay.synth.exposure import question_problems as exposure_problems
from kopa_replay.synth.model import Junction, Trajectory
from kopa_replay.text.normalize import normalize_question
from kopa_replay.util import Progress, tick

__all__ = [
    "BuildSpec",
    "CODE_DOMAINS",
    "HELD_OUT_PLATFORMS",
    "LIGHTRON_ID",
    "MAX_CALLS",
    "benchmark_links",
    "build_tasks",
    "propose_tasks",
    "question_problems",
    "hands_a_code",
    "has_parallel_calls",
    "junction_hands_a_code",
    "reads_pages",
    "split_of",
    "summary",
    "task_problems",
]

#: platforms whose tasks form the held-out split (and that training synthesis should leave out)
HELD_OUT_PLATFORMS = ("dart", "krx", "seoul")
#: the paper's tasks averaged about five calls; selection prefers walks near it
TARGET_CALLS = 5
#: the paper's showcase task (``curated/paper.yaml``)
LIGHTRON_ID = "kopa-finance-lightron"
#: the patterns selection takes in turn
PATTERN_ORDER = ("chain", "fan_out", "derived", "comparison", "condition")


def split_of(platforms: Iterable[str]) -> str:
    return "held_out" if set(platforms) & set(HELD_OUT_PLATFORMS) else "main"


def benchmark_links(catalog: Catalog, intents: Any = None) -> list[Link]:
    """The meaningful links of the intent table between tools of ``catalog``, sorted (what the walks take)."""
    from kopa_replay.synth.intents import load_intents

    intents = intents if intents is not None else load_intents(catalog=catalog)
    return [
        Link(link.source, link.target, dict(link.binding), 0.9)
        for link in intents.links
        if link.source in catalog and link.target in catalog
    ]


#: value domains of the simulator's truth that are times, not entities: handing one on is no code lookup
TIME_DOMAINS = frozenset(
    {
        "date",
        "past_date",
        "recent_past_date",
        "business_date",
        "since_date",
        "until_date",
        "year",
        "any_year",
        "fiscal_year",
        "yearmonth",
    }
)


def junction_hands_a_code(trajectory: Trajectory, junction: Junction) -> bool:
    """Whether ``junction`` hands on an entity code or name (a parameter outside :data:`TIME_DOMAINS`)."""
    from kopa_replay.sim.truth import param_domain

    target = trajectory.steps[junction.target].tool
    return any(param_domain(target, param) not in TIME_DOMAINS for param in junction.binding)


def hands_a_code(trajectory: Trajectory) -> bool:
    """Whether some junction hands on an entity code or name, not only a date."""
    return any(junction_hands_a_code(trajectory, junction) for junction in trajectory.junctions)


def reads_pages(trajectory: Trajectory) -> bool:
    """Whether some step was read over several pages."""
    steps = [step for step, _, _ in trajectory_calls(trajectory)]
    return len(steps) > len(set(steps))


def has_parallel_calls(trajectory: Trajectory) -> bool:
    """Whether some group holds several calls (made side by side)."""
    groups = Counter(step.group for step in trajectory.steps)
    return any(count > 1 for count in groups.values())


def _shape(trajectory: Trajectory) -> tuple[str, ...]:
    return tuple(sorted({step.tool for step in trajectory.steps}))


def _walks(
    catalog: Catalog, links: Sequence[Link], env: Any, spec: BuildSpec, intents: Any, progress: Progress | None = None
) -> list[Trajectory]:
    """Every walk of every run, in the order made, one per plan (state digest and answer program) and per
    question; those over :data:`MAX_CALLS` calls and those that hand on only a date and read one page left out."""
    from kopa_replay.synth.questions import IntentWriter
    from kopa_replay.synth.walk import SynthConfig, synthesize

    writer = IntentWriter(intents)
    plans: set[Any] = set()
    questions: set[str] = set()
    out: list[Trajectory] = []
    runs = [(seed, largest_page) for seed in spec.seeds for largest_page in (True, False)]
    for run, (seed, largest_page) in enumerate(runs, 1):
        config = SynthConfig(trajectories=spec.per_run, seed=seed, max_page_size=largest_page, distinct_tool_sets=False)
        for walk in synthesize(catalog, links, env, config, writer, intents=intents):
            # one task per plan: the same calls asked another way (a threshold of 26 or of 71) test nothing new
            plan = plan_signature((tool, args) for _, tool, args in trajectory_calls(walk))
            if plan in plans or walk.question in questions or len(trajectory_calls(walk)) > spec.max_calls:
                continue
            if not (hands_a_code(walk) or reads_pages(walk)):
                continue  # only a date handed on: the task needs neither a code lookup nor pagination
            if any(getattr(intents.tool(step.tool), "realtime", False) for step in walk.steps):
                continue  # arrivals and bus positions change minute to minute: the paper kept such tasks out
            plans.add(plan)
            questions.add(walk.question)
            out.append(walk)
        tick(progress, "synthesis runs", run, len(runs))
    return out


def _select(walks: Sequence[Trajectory], catalog: Catalog, spec: BuildSpec) -> list[Trajectory]:
    """Per domain (see the module docstring); quota a domain cannot fill goes to the domains with walks to spare,
    in quota order."""
    by_domain: dict[str, list[Trajectory]] = {}
    for walk in walks:
        by_domain.setdefault(catalog.get(walk.steps[0].tool).domain, []).append(walk)
    quotas = dict(spec.quotas)
    ranked = {domain: _ranked(by_domain.get(domain, []), quota) for domain, quota in quotas.items()}
    chosen = {domain: ranked[domain][:quota] for domain, quota in quotas.items()}
    short = sum(quota - len(chosen[domain]) for domain, quota in quotas.items())
    for domain in quotas:
        if short <= 0:
            break
        spare = ranked[domain][len(chosen[domain]) : len(chosen[domain]) + short]
        chosen[domain] += spare
        short -= len(spare)
    return [walk for domain in quotas for walk in chosen[domain]]


def _ranked(items: Sequence[Trajectory], quota: int) -> list[Trajectory]:
    """One domain's walks in the order selection takes them: a third of the quota in paged reads, then the
    patterns in turn; within each pass a set of tools once before it comes again, calls nearest 5 first."""
    calls = {id(t): len(trajectory_calls(t)) for t in items}
    order = sorted(
        items, key=lambda t: (abs(calls[id(t)] - TARGET_CALLS), -calls[id(t)], not has_parallel_calls(t), t.question)
    )
    taken: list[Trajectory] = []
    used: set[int] = set()
    shapes: Counter[tuple[str, ...]] = Counter()
    starts: Counter[str] = Counter()
    asked = QuestionIndex()

    def take(candidates: Iterable[Trajectory], limit: int, per_shape: int) -> None:
        for walk in candidates:
            if len(taken) >= limit:
                return
            start = json.dumps([walk.steps[0].tool, dict(walk.steps[0].args)], sort_keys=True, ensure_ascii=False)
            # one start asked about everything it leads to reads as one question told many ways
            if id(walk) in used or shapes[_shape(walk)] >= per_shape or starts[start] >= per_shape + 1:
                continue
            question = normalize_question(walk.question, spaces=True)
            if asked.nearest(question, NEAR_VERBATIM) is not None:
                continue  # a question this close to one taken is the same task to a reader
            used.add(id(walk))
            shapes[_shape(walk)] += 1
            starts[start] += 1
            taken.append(walk)
            asked.add(question)

    paged = [t for t in order if reads_pages(t)]
    for per_shape in (1, 2, 3, 4):  # paged reads come from few tools: let them repeat with other starts
        take(paged, -(-quota // 3), per_shape)
    for per_shape in (1, 2, 3, 4, 6, 8):  # a sparse domain (few tools, so few sets) takes more starts per set
        while True:
            before = len(taken)
            for pattern in PATTERN_ORDER:
                take((t for t in order if t.pattern == pattern), len(taken) + 1, per_shape)
            if len(taken) == before:
                break
    return taken


def propose_tasks(
    catalog: Catalog, env: Any, spec: BuildSpec = BuildSpec(), intents: Any = None, progress: Progress | None = None
) -> tuple[list[Task], list[Trajectory]]:
    """Candidate tasks from walks and the plans behind them (same order, same ids), deterministic for one source;
    ``progress`` hears each synthesis run.

    Raises :class:`UsageError` listing every task that fails a check of :func:`task_problems`.
    """
    from kopa_replay.synth.intents import load_intents

    intents = intents if intents is not None else load_intents(catalog=catalog)
    links = benchmark_links(catalog, intents)
    if not links:
        raise UsageError("the intent table has no link between tools of this catalog: nothing to build tasks from")
    selected = _select(_walks(catalog, links, env, spec, intents, progress), catalog, spec)
    plans: list[Trajectory] = []
    tasks: list[Task] = []
    counters: Counter[str] = Counter()
    for walk in selected:
        # the records each page showed are the SFT export's business; a plan keeps the calls
        walk.meta["calls"] = [{k: v for k, v in call.items() if k != "records"} for call in walk.meta["calls"]]
        domain = catalog.get(walk.steps[0].tool).domain
        counters[domain] += 1
        walk.id = f"kopa-{domain}-{counters[domain]:03d}"
        platforms = {catalog.get(step.tool).platform for step in walk.steps}
        task = task_from_trajectory(walk, catalog, split=split_of(platforms), hands_code=junction_hands_a_code)
        tags = (
            task.tags + (("paged",) if reads_pages(walk) else ()) + (("parallel",) if has_parallel_calls(walk) else ())
        )
        plans.append(walk)
        tasks.append(replace(task, tags=tags))
    order = np.argsort([task.id for task in tasks], kind="stable")
    tasks, plans = [tasks[i] for i in order], [plans[i] for i in order]
    problems = [
        f"{task.id}: {problem}"
        for task, plan in zip(tasks, plans)
        for problem in task_problems(task, plan, catalog, intents)
    ]
    if problems:
        raise UsageError(f"{len(problems)} problem(s) in the built task set: " + "; ".join(problems[:20]))
    return tasks, plans


def build_tasks(
    catalog: Catalog,
    env: Any,
    world: Any,
    as_of: str,
    *,
    curated: Sequence[Any] | None = None,
    progress: Progress | None = None,
) -> tuple[list[Task], list[Trajectory], dict[str, Any]]:
    """The curated task set executed through ``env`` (a simulator over ``world`` at ``as_of``): tasks, plans and
    what the review found (failure modes per task).

    Raises :class:`UsageError` listing every task whose plan answer and world-truth answer disagree, or that a
    check objects to (:func:`kopa_replay.bench.review.objections`).
    """
    from kopa_replay.bench.curated import load_curated
    from kopa_replay.bench.review import review

    items = list(curated if curated is not None else load_curated())
    reviews = sorted(review(catalog, env, world, as_of, items, progress), key=lambda item: item.task.id)
    problems = [
        f"{item.task.id}: the plan answers {item.task.answer.value!r}, the world truth {item.truth!r}"
        for item in reviews
        if not item.agrees
    ] + [f"{item.task.id}: {text}" for item in reviews for text in item.objections]
    if problems:
        raise UsageError(f"{len(problems)} problem(s) in the curated task set: " + "; ".join(problems[:20]))
    modes = {item.task.id: item.modes for item in reviews}
    return [item.task for item in reviews], [item.plan for item in reviews], modes


def question_problems(task: Task, plan: Trajectory, catalog: Catalog) -> list[str]:
    """:func:`kopa_replay.synth.exposure.question_problems` of a task (the corpus families meet the same checks)."""
    return exposure_problems(task.question_ko, task.answer, plan, catalog)


def task_problems(task: Task, plan: Trajectory, catalog: Catalog, intents: Any) -> list[str]:
    """What makes a proposed ``task`` not a question a person would ask (see the module docstring): the
    :func:`question_problems`, and its phrasing against the intent table; [] when nothing does."""
    from kopa_replay.synth.intents import IntentError
    from kopa_replay.synth.phrasing import Phrasing

    problems = question_problems(task, plan, catalog)
    try:
        phrasing = Phrasing(intents, plan)
    except IntentError as exc:
        return problems + [str(exc)]
    problems += phrasing.unstated(task.question_ko)
    problems += phrasing.incoherent()
    for junction in plan.junctions:
        if not junction_hands_a_code(plan, junction):
            problems.append(f"junction {junction.source}->{junction.target} hands on only a date")
    return problems


def summary(
    tasks: Sequence[Task], plans: Sequence[Trajectory], modes: Mapping[str, Mapping[str, bool]] | None = None
) -> dict[str, Any]:
    """What a task set is made of: sizes, calls per task, parallel and paged shares, domains, splits, platforms,
    and with ``modes`` (:func:`kopa_replay.bench.review.failure_modes`) how many answers each failure mode breaks."""
    calls = [len(task.reference_calls) for task in tasks]
    parallel = sum(has_parallel_calls(plan) for plan in plans)
    return {
        "tasks": len(tasks),
        "calls_mean": round(float(np.mean(calls)), 3) if calls else 0.0,
        "calls_max": max(calls, default=0),
        "calls_at_least_14": sum(c >= 14 for c in calls),
        "parallel": parallel,
        "parallel_share": round(parallel / len(tasks), 3) if tasks else 0.0,
        **(
            {
                "answer_broken_by": {
                    mode: sum(row[mode] for row in modes.values()) for mode in ("skip_lookup", "first_page")
                }
            }
            if modes is not None
            else {}
        ),
        "paged": sum(reads_pages(plan) for plan in plans),
        "with_code_lookup": sum(hands_a_code(plan) for plan in plans),
        "by_domain": dict(sorted(Counter(task.domain for task in tasks).items())),
        "by_split": dict(sorted(Counter(task.split for task in tasks).items())),
        "held_out_by_platform": dict(
            sorted(Counter(p for task in tasks if task.split == "held_out" for p in task.platforms).items())
        ),
        "by_platform": dict(sorted(Counter(p for task in tasks for p in task.platforms).items())),
        "by_answer": dict(sorted(Counter(task.answer.kind for task in tasks).items())),
        "by_pattern": dict(sorted(Counter(plan.pattern for plan in plans).items())),
        "junctions": dict(sorted(Counter(j.kind for plan in plans for j in plan.junctions).items())),
    }
