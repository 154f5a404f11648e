"""Corpus families: the ways people ask over the retained links, instantiated from what the tools return.

A *family* (``families/<domain>.yaml`` beside this module) is one way of asking:
who asks and why, several phrasings of the question, a declared plan
(:mod:`kopa_replay.synth.declared`) and an answer program (:mod:`kopa_replay.synth.answer`)
— and where its slots come from::

    family: school-meal-days
    who: "{school}에 아이를 보내는 학부모가 급식 일수를 확인하려고"
    questions:                                   # phrasings, taken in turn (no one wording dominates)
      - "{school}에서 {month_says} 점심 급식이 나오는 날은 며칠인가요?"
      - "{month_says}에 {school} 점심 급식 일수 좀 알려 주세요."
    slots:
      from: {tool: neis_school_info, args: {LCTN_SC_NM: 서울특별시}}   # a call; each record is a candidate
      take: {school: SCHUL_NM}                    # slot <- record field
      where: {SCHUL_KND_SC_NM: 초등학교}           # optional: records holding these values only
      vary:                                       # optional: one drawn per instance (a mapping sets several)
        - {month: "202609", month_says: 9월}
        - {month: "202610", month_says: 10월}
    instances: 30                                 # at most this many kept
    plan: [...]                                   # as the curated benchmark writes it
    answer: {op: count, group: 1}
    unit: 일

Instances come from *executed* lookups (the world as the tools show it, never its
internals), each run through :func:`~kopa_replay.synth.plan.run_plan` — junctions
typed by the values that crossed them (1 sequential, 2..B fan-out, a rank or
threshold cut derived), the answer computed from the outputs. An instance is
skipped (and counted by reason) when its plan does not run, its answer is not
determined or is zero, or it repeats a question or a plan.

The pruned graph decides which families may run at all: every hand-off of a plan
must be vouched for by a retained link between the same two tools that binds
one of the same parameters from the same field (:func:`uncovered_links`); a
family whose link was pruned, or never proposed, is left out and reported.

Generation is a pure function of (families, links, environment, seed): families
in (domain, name) order take turns, one instance each per round, until the
requested number is kept — so a small corpus still spans every family.
"""

from __future__ import annotations

import functools
import json
import math
import zlib
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from kopa_replay.catalog.model import Catalog
from kopa_replay.errors import UsageError
from kopa_replay.graph.model import Link
from kopa_replay.synth.declared import (
    FAN_OUT_BUDGET,
    PAGE_BUDGET,
    PlanStep,
    family_items,
    files_digest,
    fill_slots,
    need,
    parse_plan,
    plan_pattern,
    plan_skeleton,
    refuse_repeats,
    slot_names,
    typed_junction,
)
from kopa_replay.synth.exposure import question_problems
from kopa_replay.synth.junction import splits_tie, value_strings
from kopa_replay.synth.model import Trajectory
from kopa_replay.synth.pager import read_pages
from kopa_replay.synth.plan import call_log, run_plan
from kopa_replay.synth.probe import moves_the_answer
from kopa_replay.util import Progress, tick

__all__ = [
    "FAMILIES_DIR",
    "Family",
    "FamilyDraft",
    "FamilyResult",
    "FamilyConfig",
    "families_digest",
    "load_families",
    "synthesize_families",
    "uncovered_links",
    "vouched_bindings",
]

FAMILIES_DIR = Path(__file__).resolve().parent / "families"


@dataclass(frozen=True)
class Family:
    """One way of asking, with where its slots come from (see the module docstring)."""

    name: str
    domain: str
    who: str
    questions: tuple[str, ...]
    plan_data: Any  # the plan as written, slots unfilled
    plan: tuple[PlanStep, ...]  # parsed once with placeholder slots, for the tools and links
    answer: Mapping[str, Any]
    unit: str
    source: Mapping[str, Any] | None  # the lookup call: {tool, args}
    take: Mapping[str, str]
    where_: Mapping[str, Any]
    vary: tuple[Mapping[str, Any], ...]
    instances: int
    realtime: bool
    where: str  # file and family, for messages

    @property
    def tools(self) -> tuple[str, ...]:
        tools = [step.tool for step in self.plan]
        if self.source is not None:
            tools.append(str(self.source["tool"]))
        return tuple(sorted(set(tools)))


@dataclass(frozen=True)
class FamilyConfig:
    """What to make: how many, from which seed, leaving out which platforms; real-time families only on request."""

    trajectories: int = 200
    seed: int = 0
    exclude_platforms: tuple[str, ...] = ()
    realtime: bool = False  # answers that change minute to minute (bus arrivals) are no training label by default
    keep_records: int = 20  # records kept per call in meta["calls"] (what the SFT export shows)
    # keep only instances whose every hand-off moves the answer (other values handed on give another answer), as the
    # filter's two judges probe it (kopa_replay.synth.probe): a family whose figure is the same everywhere shows here
    require_constrained: bool = True
    # no platform in more than this share of the items asked for while families of other platforms can still fill
    # them: families take turns, and the platforms with many families (data.go.kr serves finance and districts)
    # would otherwise fill a small corpus
    max_platform_share: float = 0.25

    def __post_init__(self) -> None:
        if self.trajectories < 0 or self.keep_records < 0:
            raise UsageError("trajectories and keep_records must not be negative")
        if not 0 < self.max_platform_share <= 1:
            raise UsageError(f"max_platform_share must be in (0, 1], not {self.max_platform_share}")


def _mapping_of(value: Any, field: str, at: str, *, required: bool = False) -> Mapping[str, Any]:
    """``value`` when it is a mapping (absent: empty, unless ``required``), else an error naming the field."""
    if value is None and not required:
        return {}
    if not isinstance(value, Mapping):
        raise UsageError(f"{at}: '{field}' must be a mapping, not {type(value).__name__}")
    return value


def _vary(value: Any, at: str) -> list[dict[str, Any]]:
    """The ``vary`` items: a list of mappings that set the same slots, or ``{slot: [values], ...}`` (every
    combination of the values)."""
    if value is None:
        return []
    if isinstance(value, Mapping):
        if not all(isinstance(v, list) and v for v in value.values()):
            raise UsageError(f"{at}: slots.vary as a mapping gives each slot a non-empty list of values")
        keys = sorted(value)
        combos: list[dict[str, Any]] = [{}]
        for key in keys:
            combos = [{**combo, key: v} for combo in combos for v in value[key]]
        return combos
    if not isinstance(value, list) or not all(isinstance(v, Mapping) for v in value):
        raise UsageError(f"{at}: slots.vary lists mappings of slot values (or maps each slot to a list)")
    if len({tuple(sorted(v)) for v in value}) > 1:
        raise UsageError(f"{at}: every slots.vary item sets the same slots ({', '.join(sorted(value[0]))})")
    return [dict(v) for v in value]


def _family(data: Any, domain: str, where: str) -> Family:
    if not isinstance(data, Mapping):
        raise UsageError(f"{where}: a family is a mapping, not {type(data).__name__}")
    name = str(need(data, "family", where))
    at = f"{where} family {name!r}"
    questions = data.get("questions")
    if not isinstance(questions, list) or not questions or not all(isinstance(q, str) and q for q in questions):
        raise UsageError(f"{at}: 'questions' must list at least one phrasing")
    slots = _mapping_of(data.get("slots"), "slots", at)
    source = slots.get("from")
    if source is not None and (not isinstance(source, Mapping) or not source.get("tool")):
        raise UsageError(f"{at}: slots.from is a call: {{tool: ..., args: {{...}}}}")
    if source is not None:
        _mapping_of(source.get("args"), "slots.from.args", at)
    take = {str(k): str(v) for k, v in _mapping_of(slots.get("take"), "slots.take", at).items()}
    if (source is None) != (not take):
        raise UsageError(f"{at}: slots.from and slots.take go together (the call, and the fields its records give)")
    vary_items = _vary(slots.get("vary"), at)
    if source is None and not vary_items:
        raise UsageError(f"{at}: a family needs slots.from (a lookup) or slots.vary (values) to draw instances from")
    realtime = data.get("realtime", False)
    if not isinstance(realtime, bool):
        raise UsageError(f"{at}: 'realtime' is true or false, not {realtime!r}")
    _mapping_of(data.get("answer"), "answer", at, required=True)
    given = set(take) | {k for item in vary_items for k in item}
    used = slot_names([data.get("who", ""), *questions, data.get("plan"), data.get("answer"), data.get("unit", "")])
    missing = sorted(used - given)
    if missing:
        raise UsageError(f"{at}: slots {', '.join(missing)} are used but neither taken nor varied")
    placeholder = {name: f"<{name}>" for name in given}
    plan = parse_plan(fill_slots(need(data, "plan", at), placeholder, at), at)
    instances = data.get("instances", 30)
    if isinstance(instances, bool) or not isinstance(instances, int) or instances < 1:
        raise UsageError(f"{at}: 'instances' must be a whole number of at least 1, not {instances!r}")
    return Family(
        name=name,
        domain=domain,
        who=str(need(data, "who", at)),
        questions=tuple(questions),
        plan_data=data["plan"],
        plan=plan,
        answer=dict(need(data, "answer", at)),
        unit=str(data.get("unit", "")),
        source=dict(source) if source is not None else None,
        take=take,
        where_=dict(_mapping_of(slots.get("where"), "slots.where", at)),
        vary=tuple(vary_items),
        instances=instances,
        realtime=realtime,
        where=at,
    )


def load_families(directory: str | Path | None = None, domains: Sequence[str] = ()) -> list[Family]:
    """Every family of the files in ``directory`` (default: the shipped ones), by file then order."""
    root = Path(directory) if directory is not None else FAMILIES_DIR
    out = [_family(item, domain, name) for name, domain, item in family_items(root, domains, "family")]
    refuse_repeats(root, [f.name for f in out], "family names")
    return out


def families_digest(directory: str | Path | None = None) -> str:
    """sha256 over the family files' names and bytes (a corpus's manifest records what it was made from)."""
    return files_digest(Path(directory) if directory is not None else FAMILIES_DIR)


Vouched = dict[tuple[str, str], set[tuple[str, str]]]


def vouched_bindings(links: Sequence[Link]) -> Vouched:
    """(source, target) -> the (parameter, field) bindings the retained links between them carry."""
    vouched: Vouched = {}
    for link in links:
        if not link.pruned:
            vouched.setdefault((link.source, link.target), set()).update(link.binding.items())
    return vouched


def uncovered_links(family: Family, vouched: Vouched) -> list[str]:
    """The hand-offs of ``family``'s plan no retained link vouches for (see the module docstring), as text;
    ``vouched`` is :func:`vouched_bindings` of the links, made once for every family (a graph has thousands)."""
    out = []
    for step in family.plan:
        if step.source is None:
            continue
        source = family.plan[step.source].tool
        if not vouched.get((source, step.tool), set()) & set(step.bind.items()):
            out.append(f"{source} -> {step.tool} {dict(step.bind)}")
    return out


@dataclass
class FamilyResult:
    """The kept trajectories, how many instances were tried, why the others were skipped, the families left out."""

    trajectories: list[Trajectory]
    attempts: int
    skipped: dict[str, int] = field(default_factory=dict)
    by_family: dict[str, int] = field(default_factory=dict)
    left_out: dict[str, str] = field(default_factory=dict)  # family -> why it did not run
    examples: dict[str, list[str]] = field(default_factory=dict)  # skip reason -> the first few cases, for authors


class _Instances:
    """One family's candidate slot sets, drawn lazily in a seeded order."""

    def __init__(self, family: Family, catalog: Catalog, env: Any, seed: int) -> None:
        self.family = family
        self.rng = np.random.default_rng([seed, zlib.crc32(family.name.encode("utf-8"))])
        self._candidates: Iterator[dict[str, Any]] | None = None
        self.catalog, self.env = catalog, env
        self.kept = 0
        self.tried = 0
        self.exhausted = False

    def _draw(self) -> Iterator[dict[str, Any]]:
        family = self.family
        rows: list[dict[str, Any]] = [{}]
        if family.source is not None:
            tool = self.catalog.get(str(family.source["tool"]))
            read = read_pages(self.env, tool, dict(family.source.get("args") or {}), PAGE_BUDGET)
            if not read.ok:
                raise _Skip(f"slot lookup {tool.name} ended {read.outcome}")
            seen: set[str] = set()
            rows = []
            for record in read.records:
                if any(str(record.get(k, "")).strip() != str(v) for k, v in family.where_.items()):
                    continue
                row = {slot: record.get(f) for slot, f in family.take.items()}
                if any(v in (None, "") for v in row.values()):
                    continue
                row = {k: str(v).strip() if isinstance(v, str) else v for k, v in row.items()}
                key = json.dumps(row, sort_keys=True, ensure_ascii=False, default=str)
                if key not in seen:
                    seen.add(key)
                    rows.append(row)
            rows.sort(key=lambda r: json.dumps(r, sort_keys=True, ensure_ascii=False, default=str))
        order: list[int] = [int(k) for k in self.rng.permutation(len(rows))] if rows else []
        if family.source is None:  # the values themselves are the candidates
            for k in self.rng.permutation(len(family.vary)):
                yield dict(family.vary[int(k)])
            return
        for k in order:
            vary = family.vary[int(self.rng.integers(len(family.vary)))] if family.vary else {}
            yield {**rows[int(k)], **vary}

    def next(self) -> dict[str, Any] | None:
        if self._candidates is None:
            self._candidates = self._draw()
        try:
            return next(self._candidates)
        except StopIteration:
            self.exhausted = True
            return None


class _Skip(Exception):
    """An instance (or a family's lookup) that gives no item: the reason counted, and what happened (for authors)."""

    def __init__(self, reason: str, detail: str = "") -> None:
        super().__init__(reason)
        self.detail = detail


def _instance(
    family: Family, slots: Mapping[str, Any], phrasing: int, catalog: Catalog, env: Any, config: FamilyConfig
) -> Trajectory:
    where = f"{family.where} slots {dict(slots)}"
    plan = parse_plan(fill_slots(family.plan_data, slots, where), where)
    question = str(fill_slots(family.questions[phrasing], slots, where))
    answer = fill_slots(dict(family.answer), slots, where)
    unit = str(fill_slots(family.unit, slots, where))
    skeleton = plan_skeleton("", plan, answer, unit, question, fan_out_budget=FAN_OUT_BUDGET, page_budget=PAGE_BUDGET)
    run = run_plan(skeleton, catalog, env)
    if not run.ok or run.answer is None:
        reason = "no answer determined" if run.problem.startswith("answer") else "plan did not run"
        raise _Skip(reason, f"{question}: {run.problem}")
    if run.answer.kind == "number" and run.answer.value == 0:
        raise _Skip("answer is zero")  # a count or sum of nothing teaches no hand-off
    for k, junction in enumerate(run.junctions):
        source = [r for read in run.groups[run.steps[junction.source].group] for r in read.records]
        if junction.reduction is not None and splits_tie(source, junction.binding, junction.reduction):
            raise _Skip("a cut splits a tie", f"{question}: junction {k} {junction.reduction.op} ties at the cut")
    junctions = [typed_junction(junction, FAN_OUT_BUDGET) for junction in run.junctions]
    handed: list[str] = []
    for junction in junctions:
        for value in junction.values:
            for text in value_strings(value):
                if text not in handed:
                    handed.append(text)
    trajectory = Trajectory(
        id="",
        pattern=plan_pattern(answer, junctions),
        steps=run.steps,
        junctions=junctions,
        answer=run.answer,
        question=question,
        handed=tuple(handed),
        state_digest=run.state_digest,
        meta={
            "answer_spec": dict(answer),
            "fan_out_budget": FAN_OUT_BUDGET,
            "page_budget": PAGE_BUDGET,
            "calls": call_log(run.steps, run.groups, config.keep_records),
            "complete": run.complete,
            "family": family.name,
            "domain": family.domain,
            "who": str(fill_slots(family.who, slots, where)),
            "phrasing": phrasing,
            "slots": {k: slots[k] for k in sorted(slots)},
            "links": [[plan[step.source].tool, step.tool] for step in plan if step.source is not None],
            "realtime": family.realtime,
            "seed": config.seed,
        },
    )
    return trajectory


@functools.cache  # the table is read once a process, not once a run (the review tool runs each family alone)
def _realtime_tools() -> frozenset[str]:
    """The tools the intent table marks real-time (arrivals, positions): a family calling one is real-time whether
    or not its file says so."""
    from kopa_replay.synth.intents import load_intents

    intents = load_intents()
    return frozenset(name for name, intent in intents.tools.items() if intent.realtime)


def _rewritten(writer: Any, trajectory: Trajectory, catalog: Catalog) -> str:
    from kopa_replay.errors import KopaError

    try:
        return str(writer.write(trajectory, catalog))
    except KopaError as exc:  # a writer that cannot phrase it without leaking: the item goes, the run goes on
        raise _Skip("question writer refused", f"{trajectory.question}: {exc}") from None


class FamilyDraft:
    """The family's own question: the draft a model's rewrite starts from (``LLMWriter(client, draft=FamilyDraft())``)."""

    name = "family"

    def write(self, trajectory: Trajectory, catalog: Catalog) -> str:
        return trajectory.question


def synthesize_families(
    catalog: Catalog,
    links: Sequence[Link],
    env: Any,
    config: FamilyConfig,
    families: Sequence[Family],
    *,
    writer: Any = None,
    exclude: Callable[[Trajectory], str | None] | None = None,
    progress: Progress | None = None,
) -> FamilyResult:
    """Instances of ``families`` (see the module docstring); ``exclude`` as in :func:`~.walk.synthesize_report`.

    ``writer`` (a :class:`~.walk.QuestionWriter`, e.g. a model's) rewrites each family question — the family's own
    wording is its draft; the rewritten question meets the same never-expose checks, dedup and ``exclude``."""
    excluded = set(config.exclude_platforms)
    live = _realtime_tools()
    left_out: dict[str, str] = {}
    runnable: list[_Instances] = []
    vouched = vouched_bindings(links)
    for family in sorted(families, key=lambda f: (f.domain, f.name)):
        unknown = [tool for tool in family.tools if tool not in catalog]
        if unknown:
            raise UsageError(f"{family.where}: unknown tool {unknown[0]!r}")
        platforms = {catalog.get(tool).platform for tool in family.tools}
        if platforms & excluded:
            left_out[family.name] = f"calls an excluded platform ({', '.join(sorted(platforms & excluded))})"
        elif (family.realtime or set(family.tools) & live) and not config.realtime:
            left_out[family.name] = "real-time (answers change minute to minute)"
        elif uncovered := uncovered_links(family, vouched):
            left_out[family.name] = f"no retained link vouches for {uncovered[0]}"
        else:
            runnable.append(_Instances(family, catalog, env, config.seed))
    out: list[Trajectory] = []
    skipped: Counter[str] = Counter()
    by_family: Counter[str] = Counter()
    seen_questions: set[str] = set()
    seen_plans: set[tuple[str, str]] = set()
    per_platform: Counter[str] = Counter()
    platform_cap = max(1, math.floor(config.max_platform_share * config.trajectories + 1e-9))
    examples: dict[str, list[str]] = {}
    attempts = 0
    # the platforms an item calls (its plan's; the slot lookup is not part of the item)
    platforms_of = {id(i): {catalog.get(step.tool).platform for step in i.family.plan} for i in runnable}
    held: set[int] = set()  # families whose platform holds its share, while others can still fill
    while len(out) < config.trajectories:
        active = [i for i in runnable if not i.exhausted and i.kept < i.family.instances]
        for source in active:
            if id(source) not in held and any(per_platform[p] >= platform_cap for p in platforms_of[id(source)]):
                held.add(id(source))
                skipped["platform holds its share"] += 1
        free = [i for i in active if id(i) not in held]
        active = free or active  # nothing else can fill: the share gives way to the number asked for
        if not active:
            break
        for source in active:
            if len(out) >= config.trajectories:
                break
            platforms = platforms_of[id(source)]
            if free and any(per_platform[p] >= platform_cap for p in platforms):
                continue  # filled its share earlier in this round
            while not source.exhausted:  # this family's next kept instance, or none left
                try:
                    slots = source.next()
                except _Skip as skip:
                    skipped[str(skip)] += 1
                    source.exhausted = True
                    break
                if slots is None:
                    if source.kept == 0 and source.tried == 0:  # nothing to draw: a lookup that gave no record to take
                        left_out[source.family.name] = "its slot lookup gave no candidate (check slots.take and where)"
                    break
                source.tried += 1
                attempts += 1
                family = source.family
                try:
                    trajectory = _instance(family, slots, source.kept % len(family.questions), catalog, env, config)
                    if config.require_constrained:
                        stays = moves_the_answer(trajectory, catalog, env)
                        if stays is not None:
                            raise _Skip(
                                "answer not moved by a hand-off",
                                f"{trajectory.question}: other values at junction {stays.junction} give "
                                f"{trajectory.answer.value} too",
                            )
                    if writer is not None:
                        trajectory.question = _rewritten(writer, trajectory, catalog)
                    exposed = question_problems(trajectory.question, trajectory.answer, trajectory, catalog)
                    if exposed:
                        raise _Skip("question breaks the never-expose rule", f"{trajectory.question}: {exposed[0]}")
                except _Skip as skip:
                    skipped[str(skip)] += 1
                    cases = examples.setdefault(str(skip), [])
                    if len(cases) < 3:
                        cases.append(skip.detail)
                    continue
                identity = (trajectory.state_digest, json.dumps(trajectory.meta["answer_spec"], sort_keys=True))
                if trajectory.question in seen_questions or identity in seen_plans:
                    skipped["duplicate"] += 1
                    continue
                trajectory.id = f"t{len(out) + 1:04d}"
                if exclude is not None and exclude(trajectory) is not None:
                    skipped["excluded"] += 1
                    continue
                seen_questions.add(trajectory.question)
                seen_plans.add(identity)
                source.kept += 1
                per_platform.update(platforms)
                by_family[family.name] += 1
                out.append(trajectory)
                tick(progress, "trajectories", len(out), config.trajectories)
                break
    return FamilyResult(
        out, attempts, dict(sorted(skipped.items())), dict(sorted(by_family.items())), left_out, examples
    )


def main(argv: Sequence[str]) -> int:
    """``python -m kopa_replay.synth.families [--graph GRAPH.json] [--family NAME] [DOMAIN ...]``: each family run
    alone on the simulator's full world — what it keeps, why it skips, a few of its questions with their answers.
    For authors; exit 1 when a family keeps fewer than half its instances or no retained link vouches for it."""
    import argparse
    from contextlib import ExitStack

    from kopa_replay.catalog import builtin_catalog
    from kopa_replay.env import ToolEnvironment, open_source

    parser = argparse.ArgumentParser(prog="python -m kopa_replay.synth.families")
    parser.add_argument("domains", nargs="*")
    parser.add_argument("--graph", help="a pruned graph.json: check that its retained links vouch for each plan")
    parser.add_argument("--family", action="append", default=[])
    parser.add_argument("--show", type=int, default=3, help="questions shown per family")
    args = parser.parse_args(list(argv))
    catalog = builtin_catalog("builtin")
    links: list[Link] | None = None
    if args.graph:
        from kopa_replay.graph.store import load_graph

        links, _ = load_graph(args.graph)
    loaded = load_families(domains=tuple(args.domains))
    unknown = sorted(set(args.family) - {f.name for f in loaded})
    if unknown:
        parser.error(f"no family {', '.join(unknown)} in {', '.join(args.domains) or 'the shipped files'}")
    chosen = [f for f in loaded if not args.family or f.name in args.family]
    bad = 0
    with ExitStack() as stack:
        env = ToolEnvironment(catalog, stack.enter_context(open_source("sim:full", seed=0, as_of="2026-09-01")))
        vouched = vouched_bindings(links) if links is not None else {}
        for family in chosen:
            vouch = uncovered_links(family, vouched) if links is not None else []
            result = synthesize_families(
                catalog,
                links if links is not None else _all_vouched(family),
                env,
                FamilyConfig(trajectories=family.instances, realtime=True),
                [family],
            )
            made = result.trajectories
            kinds = Counter(j.kind for t in made for j in t.junctions)
            pages = sum(
                any(c["args"].get(p, 1) not in (1, "1") for c in t.meta["calls"] for p in _PAGE_ARGS) for t in made
            )
            ok = len(made) * 2 >= family.instances and not vouch
            bad += not ok
            print(
                f"{'ok ' if ok else 'BAD'} {family.domain}/{family.name}: kept {len(made)}/{family.instances} of "
                f"{result.attempts} tried; skipped {result.skipped}; junctions {dict(sorted(kinds.items()))}; "
                f"paged {pages}; calls/item {sum(len(t.meta['calls']) for t in made) / max(len(made), 1):.1f}"
                + (f"; left out: {result.left_out[family.name]}" if family.name in result.left_out else "")
                + (f"; NOT VOUCHED: {vouch}" if vouch else "")
            )
            for t in made[: args.show]:
                print(f"    {t.question}  => {t.answer.value}{t.answer.unit}")
            for reason, cases in result.examples.items():
                for case in cases[:2]:
                    print(f"    skipped ({reason}): {case[:300]}")
    print(f"{len(chosen)} families, {bad} need work")
    return 1 if bad else 0


_PAGE_ARGS = ("pageNo", "pIndex", "page", "page_no", "START")


def _all_vouched(family: Family) -> list[Link]:
    """Links that vouch for every hand-off of ``family`` (the review without a graph)."""
    return [
        Link(family.plan[step.source].tool, step.tool, dict(step.bind), prior=1.0)
        for step in family.plan
        if step.source is not None
    ]


if __name__ == "__main__":
    import sys

    sys.exit(main(sys.argv[1:]))
