"""Answer drift: what the API drift between two snapshots does to the benchmark's tasks.

Every task's reference plan is run again (:func:`kopa_replay.synth.plan.run_plan`:
fresh outputs, the recorded junction rules, the recorded answer spec) on the old
snapshot A and the new snapshot B, each replayed strictly. A task is

* ``same`` — the same answer from the same pages;
* ``answer_changed`` — the plan runs on B but computes another answer;
* ``no_longer_executes`` — a call fails on B, a junction finds nothing to hand on
  (a renamed field), or the answer spec no longer evaluates;
* ``paging_changed`` — the same answer, read over more or fewer pages (a lowered page cap);
* ``calls_changed`` — the same answer from other requests (other values handed on): the reference calls and
  state digest a rollout is graded against move;
* ``unrecorded`` — B lacks a request the plan now makes (it hands on other values
  than on A); refresh with the benchmark's requests recorded, or run on a source;
* ``fails_on_before`` — the plan does not even run on A: the task set is not pinned
  to A (compare against the snapshot it was built on);
* ``stale`` / ``restored`` — a task an earlier re-pin tagged ``stale:`` (its plan did not
  run then) is not expected to run on A: it stays ``stale`` (not listed, never failing a
  gate) unless its plan runs on B again — ``restored``, and a re-pin gives it B's answer.

Each listed task is attributed to the drift (:class:`~kopa_replay.drift.requests.DriftReport`)
of the requests its plan made — request-level and schema changes that name one of
those requests, else any change of a tool it calls — and to the data changes on
those requests, so a maintainer sees *why* an answer moved.

:func:`repin` writes the task set re-pinned to B: answers, state digests, reference
calls and required actions recomputed from the B run; tasks that no longer execute
keep their old pin, tagged ``stale:no_longer_executes`` or ``stale:unrecorded`` (never silently dropped); a task
set whose plans do not even run on A is refused (it is not pinned to A).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from kopa_replay.bench.model import STALE_TAG, UNRECORDED_TAG, Task, is_stale
from kopa_replay.catalog.model import Catalog
from kopa_replay.errors import CassetteMiss, KopaError, UsageError
from kopa_replay.synth.model import Trajectory

__all__ = [
    "ANSWER_FAIL_ON",
    "LISTED",
    "STALE_TAG",
    "TASK_STATUSES",
    "AnswerDrift",
    "TaskDrift",
    "answer_drift",
    "render_answer_drift",
    "repin",
    "run_answer_drift",
    "ANSWER_MOVED",
]

TASK_STATUSES = (
    "same",
    "answer_changed",
    "no_longer_executes",
    "paging_changed",
    "calls_changed",
    "unrecorded",
    "fails_on_before",
    "restored",
    "stale",
)
#: The statuses whose answer moved (another value, or none): what ``--fail-on changed`` is about first.
ANSWER_MOVED = ("answer_changed", "no_longer_executes")
#: The statuses a report lists (every one but ``same`` and ``stale``).
LISTED = TASK_STATUSES[1:-1]
#: ``--fail-on`` levels of ``bench drift``: the statuses that fail the gate at each.
ANSWER_FAIL_ON = {"changed": LISTED, "broken": ("no_longer_executes", "unrecorded", "fails_on_before")}


@dataclass(frozen=True)
class TaskDrift:
    """One task on the two snapshots: its status, the answers, and what drift and data changes explain it."""

    task: str
    status: str
    before: Any = None
    after: Any = None
    problem: str = ""
    tools: tuple[str, ...] = ()
    causes: tuple[str, ...] = ()  # drift changes on its requests: "severity check_id tool path: message"
    data: tuple[str, ...] = ()  # data changes on its requests: "tool: message"
    noise: tuple[str, ...] = ()  # environmental failures on its requests: "tool: message"

    def to_dict(self) -> dict[str, Any]:
        return {
            "task": self.task,
            "status": self.status,
            "before": self.before,
            "after": self.after,
            "problem": self.problem,
            "tools": list(self.tools),
            "causes": list(self.causes),
            "data": list(self.data),
            "noise": list(self.noise),
        }


@dataclass(frozen=True)
class AnswerDrift:
    """Every task's verdict between snapshots ``before`` and ``after``, in task order."""

    before: str
    after: str
    tasks: tuple[TaskDrift, ...]

    @property
    def listed(self) -> tuple[TaskDrift, ...]:
        return tuple(t for t in self.tasks if t.status != "same")

    def counts(self) -> dict[str, int]:
        return {status: sum(1 for t in self.tasks if t.status == status) for status in TASK_STATUSES}

    def to_dict(self) -> dict[str, Any]:
        return {
            "before": self.before,
            "after": self.after,
            "tasks": len(self.tasks),
            "counts": self.counts(),
            "listed": [t.to_dict() for t in self.listed],
        }

    def crosses(self, fail_on: str) -> bool:
        return any(t.status in _fail_levels(fail_on) for t in self.tasks)


def _fail_levels(fail_on: str) -> tuple[str, ...]:
    levels = ANSWER_FAIL_ON.get(fail_on)
    if levels is None:
        raise UsageError(f"unknown fail-on level {fail_on!r} (choose from {', '.join(ANSWER_FAIL_ON)})")
    return levels


# -- running the plans -------------------------------------------------------------------------------------------


def _request_ids(catalog: Catalog, calls: Iterable[tuple[str, Mapping[str, Any]]]) -> set[str]:
    """The report names of the requests a run made (method and redacted URL, as the recorder wrote them)."""
    from kopa_replay.env.call import request_label

    out = set()
    for tool, args in calls:
        try:
            out.add(request_label(catalog.get(tool), args))
        except KopaError:
            continue
    return out


def _base_request(request: str) -> str:
    head, _, tail = request.rpartition(" #")
    return head if head and tail.isdigit() else request


_READ_KEYS = ("field", "label", "match", "distinct")


def fields_read(plan: Trajectory) -> frozenset[str]:
    """The record fields a plan reads: what its junctions hand on (and reduce by), what its answer spec reads.

    Names only, over all its tools (a slight over-count where two tools share a field name): enough to tell a
    renamed field the plan reads from one it never looks at.
    """
    out: set[str] = set()
    for junction in plan.junctions:
        out.update(str(field) for field in junction.binding.values())
        if junction.reduction is not None:
            out.add(junction.reduction.field)

    def walk(node: Any) -> None:
        if isinstance(node, Mapping):
            for key, value in node.items():
                if key in _READ_KEYS and isinstance(value, str):
                    out.add(value)
                elif key == "where" and isinstance(value, Mapping):
                    out.update(str(k) for k in value)
                walk(value)
        elif isinstance(node, (list, tuple)):
            for item in node:
                walk(item)

    walk(plan.meta.get("answer_spec"))
    return frozenset(out)


def _attribution(drift: Any, tools: set[str], requests: set[str], reads: frozenset[str]) -> tuple[tuple[str, ...], ...]:
    """(drift causes, data changes, noise) of a task: the drift that touches what its plan reads (a tool as a
    whole, or a field it reads) on one of its requests, else on one of its tools; data and noise on its
    requests."""
    from kopa_replay.drift.impact import touched, touches

    def mine(change: Any) -> bool:
        return bool(requests & {_base_request(r) for r in change.requests})

    def cause(change: Any) -> str:
        return f"{change.severity} {change.check_id} {change.tool} {change.path}: {change.message}"

    relevant = [c for c in drift.changes if touches(touched([c]), c.tool, reads)]
    on_requests = [c for c in relevant if mine(c)]
    on_tools = on_requests or [c for c in relevant if c.tool in tools]
    data = tuple(f"{c.tool}: {c.message}" for c in drift.data if mine(c))
    noise = tuple(f"{c.tool}: {c.message}" for c in drift.noise if mine(c))
    return tuple(cause(c) for c in on_tools), data, noise


def _pages(run: Any) -> list[tuple[str, dict[str, Any]]]:
    from kopa_replay.synth.plan import page_calls

    return [(c["tool"], c["args"]) for c in page_calls(run)]


def _page_counts(run: Any) -> list[int]:
    return [len(read.pages) for group in run.groups for read in group]


def _run(plan: Trajectory, catalog: Catalog, env: Any) -> tuple[Any, str]:
    """(PlanRun or None, problem): a snapshot miss is a problem of its own, not an exception."""
    from kopa_replay.synth.plan import run_plan

    try:
        run = run_plan(plan, catalog, env)
    except CassetteMiss as miss:
        return None, f"the snapshot lacks {miss.method} {miss.url}"
    return run, run.problem


def _judge(
    task: Task,
    plan: Trajectory,
    catalog: Catalog,
    env_before: Any,
    env_after: Any,
    drift: Any,
    same: Callable[[Any, Any], bool],
) -> tuple[TaskDrift, Any]:
    tools = tuple(sorted({step.tool for step in plan.steps}))
    if is_stale(task):
        new, problem = _run(plan, catalog, env_after)
        if new is not None and new.ok:
            return TaskDrift(task.id, "restored", task.answer.value, new.answer.value, "", tools), new
        return TaskDrift(task.id, "stale", task.answer.value, None, problem, tools), None
    old, old_problem = _run(plan, catalog, env_before)
    new, new_problem = _run(plan, catalog, env_after)
    old_pages, new_pages = (_pages(run) if run is not None else [] for run in (old, new))
    made = _request_ids(catalog, [*old_pages, *new_pages])
    causes, data, noise = _attribution(drift, set(tools), made, fields_read(plan))
    before = old.answer.value if old is not None and old.ok else None
    after = new.answer.value if new is not None and new.ok else None
    if old is None or not old.ok:
        status, problem = "fails_on_before", old_problem
    elif new is None:
        status, problem = "unrecorded", new_problem
    elif not new.ok:
        status, problem = "no_longer_executes", new_problem
    elif not same(old.answer, new.answer):
        status, problem = "answer_changed", ""
    elif _page_counts(old) != _page_counts(new):
        status, problem = "paging_changed", f"{len(old_pages)} → {len(new_pages)} page reads"
    elif old_pages != new_pages:
        status, problem = "calls_changed", "other requests, same answer"
    else:
        status, problem = "same", ""
    listed = status != "same"
    verdict = TaskDrift(
        task.id,
        status,
        before,
        after,
        problem,
        tools,
        causes if listed else (),
        data if listed else (),
        noise if listed else (),
    )
    return verdict, new


def answer_drift(
    tasks: Sequence[Task],
    plans: Mapping[str, Trajectory],
    catalog: Catalog,
    env_before: Any,
    env_after: Any,
    drift: Any,
    *,
    before: str = "before",
    after: str = "after",
) -> tuple[AnswerDrift, dict[str, Any]]:
    """Every task's verdict between the snapshots behind ``env_before`` and ``env_after`` (both replayed), with
    ``drift`` (their :class:`~kopa_replay.drift.requests.DriftReport`) attributed; and the new runs by task id
    (for :func:`repin`). A task without a plan is refused: there is nothing to re-run."""
    from kopa_replay.filter.perturb import answers_equal

    missing = [task.id for task in tasks if task.id not in plans]
    if missing:
        raise UsageError(
            f"no plan for task(s) {', '.join(missing[:5])}: answer drift re-runs each task's plan "
            "(plans.jsonl beside tasks.jsonl)"
        )
    verdicts, runs = [], {}
    for task in tasks:
        verdict, run = _judge(task, plans[task.id], catalog, env_before, env_after, drift, answers_equal)
        verdicts.append(verdict)
        runs[task.id] = run
    return AnswerDrift(before, after, tuple(verdicts)), runs


def run_answer_drift(
    catalog: Catalog, *, store_path: Any, before: str, after: str, task_set: Any, write: Any = None
) -> AnswerDrift:
    """``bench drift``: the drift report of the two snapshots (one store), every task's plan re-run on both
    (strict replay, both pinned), and with ``write`` the task set re-pinned to ``after`` written there (with
    ``drift.json``, this report)."""
    import json
    from contextlib import ExitStack
    from pathlib import Path

    from kopa_replay.bench.suite import save_task_set
    from kopa_replay.drift.recorded import drift_report
    from kopa_replay.env import ToolEnvironment, open_source
    from kopa_replay.record.store import Store
    from kopa_replay.util import write_atomic

    with Store(store_path, readonly=True, create=False) as store:
        drift = drift_report(store, catalog, before, after)
    with ExitStack() as stack:
        envs = [
            ToolEnvironment(
                catalog, stack.enter_context(open_source("replay", snapshot=name, store=store_path, catalog=catalog))
            )
            for name in (before, after)
        ]
        report, runs = answer_drift(
            task_set.tasks, task_set.plans, catalog, envs[0], envs[1], drift, before=before, after=after
        )
    if write is not None:
        tasks, plans = repin(task_set.tasks, task_set.plans, runs, report, catalog)
        build = {**task_set.build, "repinned": {"from": before, "to": after, "counts": report.counts()}}
        root = save_task_set(write, tasks, plans, build)
        write_atomic(
            Path(root) / "drift.json", json.dumps(report.to_dict(), ensure_ascii=False, sort_keys=True, indent=2) + "\n"
        )
    return report


# -- re-pinning ------------------------------------------------------------------------------------------------


def repin(
    tasks: Sequence[Task],
    plans: Mapping[str, Trajectory],
    runs: Mapping[str, Any],
    report: AnswerDrift,
    catalog: Catalog,
) -> tuple[list[Task], list[Trajectory]]:
    """The tasks and plans pinned to the new snapshot: a task whose plan ran there gets the new answer, state
    digest, reference calls and required actions; any other keeps its old pin, tagged :data:`STALE_TAG`."""
    from kopa_replay.bench.build import junction_hands_a_code
    from kopa_replay.bench.tasks import task_from_trajectory
    from kopa_replay.synth.model import Answer
    from kopa_replay.synth.plan import page_calls

    status = {t.task: t.status for t in report.tasks}
    unpinned = [t.task for t in report.tasks if t.status == "fails_on_before"]
    if unpinned:
        raise UsageError(
            f"{len(unpinned)} task(s) do not run on {report.before} ({', '.join(unpinned[:5])}): the "
            f"task set is not pinned to it; compare against the snapshot it was built on"
        )
    stale_tags = {"no_longer_executes": STALE_TAG, "unrecorded": UNRECORDED_TAG}
    new_tasks, new_plans = [], []
    for task in tasks:
        plan, run = plans[task.id], runs.get(task.id)
        kept = [t for t in task.tags if t not in stale_tags.values()]
        if status[task.id] == "stale":  # tagged before, still not running: as it was
            new_tasks.append(task)
            new_plans.append(plan)
            continue
        if status[task.id] in stale_tags:  # (a plan with no run on B is one of these)
            new_tasks.append(replace(task, tags=tuple(dict.fromkeys((*kept, stale_tags[status[task.id]])))))
            new_plans.append(plan)
            continue
        # answer_drift leaves a task without a new run only when it is stale, unrecorded or fails on A (above)
        assert run is not None
        answer = Answer(
            task.answer.kind,
            run.answer.value,
            task.answer.tolerance,
            run.answer.derivation or task.answer.derivation,
            task.answer.unit,
        )
        handed = tuple(dict.fromkeys(str(v) for j in run.junctions for v in j.values))
        pinned = replace(
            plan,
            steps=run.steps,
            junctions=run.junctions,
            answer=answer,
            handed=handed,
            state_digest=run.state_digest,
            meta={**plan.meta, "calls": page_calls(run), "complete": run.complete},
        )
        fresh = task_from_trajectory(pinned, catalog, split=task.split, hands_code=junction_hands_a_code)
        new_tasks.append(replace(fresh, tags=tuple(kept), domain=task.domain, question_ko=task.question_ko))
        new_plans.append(pinned)
    return new_tasks, new_plans


# -- rendering -------------------------------------------------------------------------------------------------


def _show(value: Any) -> str:
    import json

    return "-" if value is None else value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def render_answer_drift(report: AnswerDrift, fmt: str = "text", fail_on: str | None = None) -> str:
    """The report as ``text``, ``json``, ``markdown`` or ``junit`` (one test case per task; a listed task whose
    status reaches ``fail_on``, default ``changed``, fails)."""
    import json

    from kopa_replay.drift.report import Case, check_format, junit_xml, markdown_cell

    counts = report.counts()
    line = f"{len(report.tasks)} task(s) {report.before} → {report.after}: " + ", ".join(
        f"{counts[s]} {s}" for s in TASK_STATUSES
    )
    if check_format(fmt) == "json":
        return json.dumps(report.to_dict(), ensure_ascii=False, sort_keys=True, indent=2) + "\n"
    if fmt == "junit":
        levels = _fail_levels(fail_on or "changed")
        cases = [
            Case(
                f"bench.{t.task}",
                "answer",
                f"{t.status}: {_show(t.before)} → {_show(t.after)}" + (f" ({t.problem})" if t.problem else "")
                if t.status in levels
                else None,
                "\n".join((*t.causes, *t.data, *t.noise)),
            )
            for t in report.tasks
        ]
        return junit_xml("kopa-replay bench drift", cases)
    if fmt == "markdown":
        lines = [f"**{line}**", ""]
        if report.listed:
            lines += ["| task | status | before | after | problem | caused by |", "|---|---|---|---|---|---|"]
            lines += [
                "| "
                + " | ".join(
                    markdown_cell(v)
                    for v in (t.task, t.status, _show(t.before), _show(t.after), t.problem, "; ".join(t.causes) or "-")
                )
                + " |"
                for t in report.listed
            ]
        return "\n".join(lines) + "\n"
    lines = []
    for t in report.listed:
        lines.append(
            f"{t.status.upper():<19} {t.task}: {_show(t.before)} → {_show(t.after)}"
            + (f" ({t.problem})" if t.problem else "")
        )
        lines += (
            [f"    caused by {c}" for c in t.causes]
            + [f"    data: {d}" for d in t.data]
            + [f"    environmental: {n}" for n in t.noise]
        )
    return "\n".join(lines + [line]) + "\n"
