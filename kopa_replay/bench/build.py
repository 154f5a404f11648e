"""Building the benchmark's task set: executed walks over links the simulator's ground truth says work.

The shipped task set (:mod:`kopa_replay.bench.data`) is made by :func:`build_tasks`
and nothing else, so it can be rebuilt and reviewed:

1. **Links.** The candidate links of :func:`kopa_replay.graph.pipeline.build_links`
   (the same retrieval and scorer as EDGE Phase A) that the simulator's ground
   truth (:func:`kopa_replay.sim.truth.link_executes`) says execute, plus a few
   curated links the scorer misses (:data:`CURATED_LINKS`; each is checked against
   the same truth). The benchmark does *not* walk the pruned graph: a benchmark
   built from the pipeline it measures would inherit its mistakes.
2. **Walks.** :func:`kopa_replay.synth.synthesize` over those links, several
   seeds, two page policies — asking paged tools for their largest page, and
   leaving the page size at the server's default, which is how tasks come to read
   several pages — plus walks that start in each sparse domain (only links out of
   that domain's tools). Questions are the offline Korean :class:`TemplateWriter`'s.
3. **Selection.** Walks that hand on an entity code or name (not only a date) or
   read over several pages, of at most :data:`MAX_CALLS` HTTP calls, one per set of
   tools across all runs (in a sparse domain one per set of tools and start
   arguments), then per domain in quota order (see :func:`_select`): up to a
   quarter of the quota in multi-page walks (the first-page baseline needs
   them), then parallel walks, then the rest, nearest :data:`TARGET_CALLS` first.
4. **The Lightron task** of the paper's appendix (:func:`lightron_plan`): the
   corp-code lookup, the convertible-bond decision and the prior close, answer
   215.789…% graded with a tolerance of 0.01 (the paper printed 215.78%).

A task is ``held_out`` when it touches a platform of :data:`HELD_OUT_PLATFORMS`
(the paper kept Seoul Open Data and DART/KRX-grounded tasks out of synthesis;
``kopa-replay synth --exclude-platform`` does the same for training data).
The plans (trajectories) ship beside the tasks: the baseline agents run them.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field, replace
from typing import Any, Iterable, Sequence

import numpy as np

from kopa_replay.bench.model import Task
from kopa_replay.bench.tasks import task_from_trajectory, trajectory_calls
from kopa_replay.catalog.model import Catalog
from kopa_replay.errors import UsageError
from kopa_replay.graph.model import Link
from kopa_replay.synth.model import Answer, Junction, Step, Trajectory

__all__ = ["BuildSpec", "CURATED_LINKS", "HELD_OUT_PLATFORMS", "LIGHTRON_ID", "MAX_CALLS", "benchmark_links",
           "build_tasks", "hands_a_code", "has_parallel_calls", "junction_hands_a_code", "lightron_plan",
           "reads_pages", "split_of", "summary"]

#: platforms whose tasks form the held-out split (and that training synthesis should leave out)
HELD_OUT_PLATFORMS = ("dart", "krx", "seoul")
#: no task makes more HTTP calls than this (the paper's longest task had 14)
MAX_CALLS = 14
#: the paper's tasks averaged about five calls; selection prefers walks near it
TARGET_CALLS = 5
LIGHTRON_ID = "kopa-finance-lightron"

#: (source, target, binding) the candidate scorer does not propose, though the catalog says they are the way in:
#: a statute's text needs its serial from the statute search, a decision's text its serial from the case search
CURATED_LINKS: tuple[tuple[str, str, dict[str, str]], ...] = (
    ("law_search_law", "law_get_law", {"MST": "법령일련번호"}),
    ("law_search_prec", "law_get_prec", {"ID": "판례일련번호"}),
)


@dataclass(frozen=True)
class BuildSpec:
    """What the task set is made of: walk seeds, how many walks per run, the domain quotas."""

    seeds: tuple[int, ...] = (0, 1, 2)
    per_run: int = 150
    sparse_per_run: int = 40
    quotas: tuple[tuple[str, int], ...] = (("finance", 40), ("traffic", 34), ("district", 30),
                                           ("education", 18), ("politics", 15), ("law", 12))
    sparse_domains: tuple[str, ...] = ("education", "politics", "law")
    max_calls: int = MAX_CALLS
    lightron: bool = True

    def to_dict(self) -> dict[str, Any]:
        return {"seeds": list(self.seeds), "per_run": self.per_run, "sparse_per_run": self.sparse_per_run,
                "quotas": dict(self.quotas), "sparse_domains": list(self.sparse_domains),
                "max_calls": self.max_calls, "lightron": self.lightron}


def split_of(platforms: Iterable[str]) -> str:
    return "held_out" if set(platforms) & set(HELD_OUT_PLATFORMS) else "main"


def benchmark_links(catalog: Catalog) -> list[Link]:
    """Candidate links the simulator's truth says execute, plus :data:`CURATED_LINKS`, sorted by key."""
    from kopa_replay.graph.pipeline import build_links
    from kopa_replay.sim.truth import link_executes

    links = {link.key: link for link in build_links(catalog) if link_executes(link.source, link.binding, link.target)}
    for source, target, binding in CURATED_LINKS:
        if source not in catalog or target not in catalog:
            continue
        if not link_executes(source, binding, target):
            raise UsageError(f"curated link {source} -> {target} {binding} does not execute in the simulator")
        links.setdefault((source, target), Link(source, target, dict(binding), 0.9))
    return [links[key] for key in sorted(links)]


#: value domains of the simulator's truth that are times, not entities: handing one on is no code lookup
TIME_DOMAINS = frozenset({"date", "past_date", "recent_past_date", "business_date", "since_date", "year",
                          "fiscal_year", "yearmonth"})


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


@dataclass
class _Pool:
    """Walks from every run in the order they were made: one per set of tools, or in a sparse domain (few
    tools, so few sets) one per set of tools and start arguments."""

    walks: list[Trajectory] = field(default_factory=list)
    seen: set[tuple[Any, ...]] = field(default_factory=set)

    def add(self, trajectories: Iterable[Trajectory], max_calls: int, by_start: bool = False) -> None:
        for trajectory in trajectories:
            key: tuple[Any, ...] = tuple(sorted({step.tool for step in trajectory.steps}))
            if by_start:
                key += (json.dumps(dict(trajectory.steps[0].args), sort_keys=True, ensure_ascii=False),)
            if key in self.seen or len(trajectory_calls(trajectory)) > max_calls:
                continue
            if not (hands_a_code(trajectory) or reads_pages(trajectory)):
                continue  # only a date handed on: the task needs neither a code lookup nor pagination
            self.seen.add(key)
            self.walks.append(trajectory)


def _walks(catalog: Catalog, links: Sequence[Link], env: Any, spec: BuildSpec) -> list[Trajectory]:
    from kopa_replay.synth.questions import TemplateWriter
    from kopa_replay.synth.walk import SynthConfig, synthesize

    writer = TemplateWriter()
    pool = _Pool()
    for seed in spec.seeds:
        for largest_page in (True, False):
            config = SynthConfig(trajectories=spec.per_run, seed=seed, max_page_size=largest_page)
            pool.add(synthesize(catalog, links, env, config, writer), spec.max_calls)
    for domain in spec.sparse_domains:
        own = [link for link in links if catalog.get(link.source).domain == domain]
        if not own:
            continue
        for seed in spec.seeds:
            config = SynthConfig(trajectories=spec.sparse_per_run, seed=seed, max_attempts=40 * spec.sparse_per_run,
                                 distinct_tool_sets=False)
            pool.add(synthesize(catalog, own, env, config, writer), spec.max_calls, by_start=True)
    return pool.walks


def _select(walks: Sequence[Trajectory], catalog: Catalog, spec: BuildSpec) -> list[Trajectory]:
    """Per domain: up to a quarter of its quota in walks read over several pages (fewest calls first: the
    first-page baseline needs them, and long reads would crowd out the rest), then parallel walks and then the
    others, each closest to :data:`TARGET_CALLS` calls first. Quota a domain cannot fill goes to the domains
    with walks to spare, in quota order."""
    by_domain: dict[str, list[Trajectory]] = {}
    for walk in walks:
        by_domain.setdefault(catalog.get(walk.steps[0].tool).domain, []).append(walk)
    quotas = dict(spec.quotas)
    ranked: dict[str, list[Trajectory]] = {}
    for domain in quotas:
        items = by_domain.get(domain, [])
        calls = {id(t): len(trajectory_calls(t)) for t in items}
        paged = sorted((t for t in items if reads_pages(t)), key=lambda t: calls[id(t)])
        paged = paged[:-(-quotas[domain] // 4)]
        rest = sorted((t for t in items if t not in paged),
                      key=lambda t: (not has_parallel_calls(t), abs(calls[id(t)] - TARGET_CALLS), calls[id(t)]))
        ranked[domain] = paged + rest
    chosen = {domain: ranked[domain][:quota] for domain, quota in quotas.items()}
    short = sum(quota - len(chosen[domain]) for domain, quota in quotas.items())
    for domain in quotas:
        if short <= 0:
            break
        spare = ranked[domain][len(chosen[domain]):len(chosen[domain]) + short]
        chosen[domain] += spare
        short -= len(spare)
    return [walk for domain in quotas for walk in chosen[domain]]


def lightron_plan(catalog: Catalog, env: Any, as_of: str = "2026-09-01") -> tuple[Trajectory, Task]:
    """The paper's appendix task as a plan, executed through ``env``, and the task it poses.

    Two calls need the one corp-code lookup: the CB decision (by corp_code) and the
    prior close (by the stock code the lookup also gives). The answer is computed
    from the executed records at full precision; the tolerance admits the
    paper's printed 215.78% and a 215.79% rounding.
    """
    import datetime as dt

    from kopa_replay.sim.world.calendar import previous_business_day, ymd
    from kopa_replay.synth.answer import AnswerError, evaluate
    from kopa_replay.synth.plan import branches_of, run_plan

    prior = ymd(previous_business_day(dt.date.fromisoformat(as_of)))
    steps = [
        Step(0, "dart_corp_code", {"corp_name": "라이트론"}, "", 0, None, "", 0),
        Step(1, "dart_cvbd_is_decsn", {"corp_code": "", "bgn_de": "20260101", "end_de": "20260131"}, "", 0, None,
             "", 1),
        Step(2, "datagokr_get_stock_price_info", {"srtnCd": "", "basDt": prior, "numOfRows": 1000}, "", 0, None,
             "", 2),
    ]
    junctions = [Junction(0, 1, {"corp_code": "corp_code"}, "sequential", 0, 0, ()),
                 Junction(0, 2, {"srtnCd": "stock_code"}, "sequential", 0, 0, ())]
    close = {"op": "value", "group": 2, "branch": 0, "field": "clpr"}
    floor = {"op": "value", "group": 1, "branch": 0, "field": "act_mktprcfl_cvprc_lwtrsprc"}
    spec = {"op": "pct_change", "a": close, "b": floor}
    skeleton = Trajectory(LIGHTRON_ID, "chain", steps, junctions, Answer("number", 0, unit="%"),
                          meta={"page_budget": 5, "fan_out_budget": 5, "answer_spec": spec})
    run = run_plan(skeleton, catalog, env)
    if not run.ok:
        raise UsageError(f"the Lightron task does not execute on this source: {run.problem}")
    handed = [[None], *[list(j.values) for j in run.junctions]]
    try:
        a, b = (evaluate(part, branches_of(run.groups, handed)) for part in (close, floor))
    except AnswerError as exc:
        raise UsageError(f"the Lightron task's answer is not determined: {exc}") from None
    answer = Answer("number", round((a - b) / b * 100, 6), 0.01,
                    f"({a} - {b}) / {b} x 100: prior close over the CB refixing floor", "%")
    handed_text = tuple(dict.fromkeys(str(v) for j in run.junctions for v in j.values))
    calls = [{"step": index, "group": step.group, "tool": read.tool, "args": dict(sorted(page.args.items()))}
             for index, (step, read) in enumerate(zip(run.steps, (r for reads in run.groups for r in reads)))
             for page in read.pages]
    plan = Trajectory(LIGHTRON_ID, "chain", run.steps, run.junctions, answer,
                      f"라이트론이 2026년 1월에 발행을 결정한 전환사채의 리픽싱 최저 조정가액과 비교해, "
                      f"{int(prior[4:6])}월 {int(prior[6:])}일 종가는 몇 % 높습니까? 소수점 둘째 자리까지 답하세요.",
                      handed_text, run.state_digest, {**skeleton.meta, "calls": calls, "complete": run.complete})
    task = task_from_trajectory(plan, catalog, split=split_of(catalog.get(s.tool).platform for s in run.steps),
                                hands_code=junction_hands_a_code)
    return plan, replace(task, tags=("chain", "paper-appendix"))


def build_tasks(catalog: Catalog, env: Any, spec: BuildSpec = BuildSpec()) -> tuple[list[Task], list[Trajectory]]:
    """The task set and the plans behind it (same order, same ids), deterministic for one source."""
    links = benchmark_links(catalog)
    if not links:
        raise UsageError("no candidate link executes in the simulator: nothing to build tasks from")
    selected = _select(_walks(catalog, links, env, spec), catalog, spec)
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
        tags = task.tags + (("paged",) if reads_pages(walk) else ()) + (("parallel",) if has_parallel_calls(walk) else ())
        plans.append(walk)
        tasks.append(replace(task, tags=tags))
    if spec.lightron:
        plan, task = lightron_plan(catalog, env)
        plans.append(plan)
        tasks.append(task)
    order = np.argsort([task.id for task in tasks], kind="stable")
    return [tasks[i] for i in order], [plans[i] for i in order]


def summary(tasks: Sequence[Task], plans: Sequence[Trajectory]) -> dict[str, Any]:
    """What a task set is made of: sizes, calls per task, parallel and paged shares, domains, splits, platforms."""
    calls = [len(task.reference_calls) for task in tasks]
    return {
        "tasks": len(tasks),
        "calls_mean": round(float(np.mean(calls)), 3) if calls else 0.0,
        "calls_max": max(calls, default=0),
        "parallel": sum(has_parallel_calls(plan) for plan in plans),
        "paged": sum(reads_pages(plan) for plan in plans),
        "with_code_lookup": sum(hands_a_code(plan) for plan in plans),
        "by_domain": dict(sorted(Counter(task.domain for task in tasks).items())),
        "by_split": dict(sorted(Counter(task.split for task in tasks).items())),
        "by_platform": dict(sorted(Counter(p for task in tasks for p in task.platforms).items())),
        "by_answer": dict(sorted(Counter(task.answer.kind for task in tasks).items())),
    }
