"""pass@1 and pass@k over graded rollouts — combined and per axis, per domain and per split.

* ``pass@1`` = mean over tasks of (mean over that task's rollouts of passed): with k
  rollouts per task it is the expected single-try success, not the first try's.
* ``pass@k`` = share of tasks with at least one passed rollout.

Both are computed for the combined verdict (all three axes) and for each axis
alone (``response``, ``action``, ``environment``). :func:`report` builds a
JSON-ready dict (sorted keys, tasks sorted by id, rollouts by agent and index,
every axis result with its reason); :func:`markdown` renders it. Deterministic:
sorted iteration, rounded means, no clock.
"""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from kopa_replay.bench.model import AXES, Grade, Task
from kopa_replay.errors import UsageError

__all__ = ["COLUMNS", "pass_at_1", "pass_at_k", "axis_scores", "breakdown", "report", "report_json", "markdown"]

#: the verdicts reported: the combined one, then each axis
COLUMNS = ("combined",) + AXES
_DIGITS = 6


def _by_task(grades: Iterable[Grade]) -> dict[str, list[Grade]]:
    tasks: dict[str, list[Grade]] = defaultdict(list)
    for grade in grades:
        tasks[grade.task_id].append(grade)
    return {task_id: sorted(tasks[task_id], key=lambda g: (g.agent, g.index)) for task_id in sorted(tasks)}


def _axis(column: str | None) -> str | None:
    if column in (None, "combined"):
        return None
    if column not in AXES:
        raise UsageError(f"unknown axis {column!r} (one of {', '.join(COLUMNS)})")
    return column


def _mean(values: Sequence[float]) -> float:
    return round(sum(values) / len(values), _DIGITS) if values else 0.0


def pass_at_1(grades: Iterable[Grade], axis: str | None = None) -> float:
    """Mean over tasks of the share of that task's rollouts that passed (``axis``: one axis, None: all three)."""
    name = _axis(axis)
    return _mean([sum(g.axis(name) for g in rollouts) / len(rollouts) for rollouts in _by_task(grades).values()])


def pass_at_k(grades: Iterable[Grade], axis: str | None = None) -> float:
    """Share of tasks with at least one passed rollout (``axis``: one axis, None: all three)."""
    name = _axis(axis)
    return _mean([float(any(g.axis(name) for g in rollouts)) for rollouts in _by_task(grades).values()])


def axis_scores(grades: Sequence[Grade]) -> dict[str, dict[str, float]]:
    """``{"pass_at_1": {column: score}, "pass_at_k": {...}}`` for every column of COLUMNS."""
    return {
        "pass_at_1": {column: pass_at_1(grades, column) for column in sorted(COLUMNS)},
        "pass_at_k": {column: pass_at_k(grades, column) for column in sorted(COLUMNS)},
    }


def breakdown(tasks: Sequence[Task], grades: Sequence[Grade], key: Callable[[Task], str]) -> dict[str, dict[str, Any]]:
    """Scores per group of tasks (``key``: e.g. the domain or the split), groups sorted."""
    groups: dict[str, set[str]] = defaultdict(set)
    for task in tasks:
        groups[key(task)].add(task.id)
    out: dict[str, dict[str, Any]] = {}
    for group in sorted(groups):
        members = [g for g in grades if g.task_id in groups[group]]
        out[group] = {"tasks": len(groups[group]), **axis_scores(members)}
    return out


def _check(tasks: Sequence[Task], grades: Sequence[Grade]) -> None:
    ids = [task.id for task in tasks]
    duplicates = sorted(i for i, n in Counter(ids).items() if n > 1)
    if duplicates:
        raise UsageError(f"duplicate task ids: {', '.join(duplicates)}")
    known = set(ids)
    unknown = sorted({g.task_id for g in grades} - known)
    if unknown:
        raise UsageError(f"grades for unknown tasks: {', '.join(unknown)}")
    ungraded = sorted(known - {g.task_id for g in grades})
    if ungraded:
        raise UsageError(f"tasks without a graded rollout: {', '.join(ungraded)}")
    agents = sorted({g.agent for g in grades})
    if len(agents) > 1:
        raise UsageError(f"grades from several agents ({', '.join(agents)}): report one agent at a time")
    seen: set[tuple[str, str, int]] = set()
    for g in grades:
        if (g.task_id, g.agent, g.index) in seen:
            raise UsageError(f"task {g.task_id}: rollout {g.index} of {g.agent!r} graded twice")
        seen.add((g.task_id, g.agent, g.index))


def report(tasks: Sequence[Task], grades: Sequence[Grade]) -> dict[str, Any]:
    """The JSON-ready report: overall, per domain, per split, and per task with every axis reason.

    One agent's grades; every task needs at least one grade and every grade a task (else :class:`UsageError`).
    """
    _check(tasks, grades)
    per_task = _by_task(grades)
    counts = sorted({len(rollouts) for rollouts in per_task.values()})
    rows = []
    for task in sorted(tasks, key=lambda t: t.id):
        rollouts = per_task[task.id]
        rows.append(
            {
                "id": task.id,
                "domain": task.domain,
                "split": task.split,
                "platforms": sorted(task.platforms),
                **axis_scores(rollouts),
                "rollouts": [g.to_dict() for g in rollouts],
            }
        )
    data = {
        "tasks": rows,
        "agent": grades[0].agent if grades else "",
        "n_tasks": len(tasks),
        "n_rollouts": len(grades),
        "k": counts[-1] if counts else 0,
        "k_min": counts[0] if counts else 0,
        **axis_scores(grades),
        "by_domain": breakdown(tasks, grades, lambda t: t.domain),
        "by_split": breakdown(tasks, grades, lambda t: t.split),
    }
    met = [g for g in grades if g.incidents]
    if met:  # the platform failed or blocked some calls: which grades that touches, so none is blamed on the agent
        data["incidents"] = {"rollouts": len(met), "failed": sum(1 for g in met if not g.passed)}
    return _sorted(data)


def _sorted(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {key: _sorted(value[key]) for key in sorted(value)}
    if isinstance(value, list):
        return [_sorted(item) for item in value]
    return value


def report_json(data: Mapping[str, Any]) -> str:
    """The report as JSON text: sorted keys, two-space indent, non-ASCII kept (Korean stays readable)."""
    return json.dumps(data, sort_keys=True, indent=2, ensure_ascii=False) + "\n"


def _table(title: str, groups: Mapping[str, Mapping[str, Any]], label: str) -> list[str]:
    lines = [
        f"## {title}",
        "",
        f"| {label} | tasks | " + " | ".join(f"{c} pass@1 | {c} pass@k" for c in COLUMNS) + " |",
        "|---|---:|" + "---:|---:|" * len(COLUMNS),
    ]
    for name, scores in groups.items():
        cells = " | ".join(f"{scores['pass_at_1'][c]:.3f} | {scores['pass_at_k'][c]:.3f}" for c in COLUMNS)
        lines.append(f"| {name or '(none)'} | {scores['tasks']} | {cells} |")
    return lines + [""]


def markdown(data: Mapping[str, Any]) -> str:
    """The report as Markdown: overall axes, per domain, per split, then every failing rollout's reasons."""
    k = data["k"] if data["k"] == data["k_min"] else f"{data['k_min']}–{data['k']}"
    lines = [
        "# KOPA-Bench grading report",
        "",
        f"Agent `{data['agent']}`: {data['n_tasks']} tasks, {data['n_rollouts']} rollouts (k = {k}).",
        "",
        "| axis | pass@1 | pass@k |",
        "|---|---:|---:|",
    ]
    for column in COLUMNS:
        lines.append(f"| {column} | {data['pass_at_1'][column]:.3f} | {data['pass_at_k'][column]:.3f} |")
    lines.append("")
    if data.get("incidents"):
        met = data["incidents"]
        lines += [
            f"{met['rollouts']} rollout(s) met an incident — the platform failed or blocked a call, no fault of the "
            f"agent — and {met['failed']} of them failed: their reasons say which call.",
            "",
        ]
    lines += _table("By domain", data["by_domain"], "domain")
    lines += _table("By split", data["by_split"], "split")
    failures = []
    for task in data["tasks"]:
        for rollout in task["rollouts"]:
            for axis in AXES:
                if not rollout[axis]["passed"]:
                    reason = str(rollout[axis]["reason"]).replace("|", "\\|").replace("\n", " ")
                    failures.append(f"| {task['id']} | {rollout['agent']} | {rollout['index']} | {axis} | {reason} |")
    lines += ["## Failures", ""]
    if failures:
        lines += ["| task | agent | rollout | axis | reason |", "|---|---|---:|---|---|", *failures]
    else:
        lines.append("No failing rollout.")
    return "\n".join(lines) + "\n"
