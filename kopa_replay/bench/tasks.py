"""Benchmark tasks from executed trajectories: the question, the answer, the calls a solution must make.

:func:`task_from_trajectory` turns one :class:`~kopa_replay.synth.model.Trajectory`
(made by :func:`kopa_replay.synth.synthesize`) into a :class:`~kopa_replay.bench.model.Task`
with the trajectory's id, question, answer and state digest. The reference calls
are the trajectory's HTTP calls in order, one per page read (``meta["calls"]``, as
the environment logs them; one call per step for a trajectory made without them).

The required actions — what ACTION checks — follow one rule, in this order:

1. **the prerequisite lookup**: every step of a group whose output hands values
   to a junction (the codes a later call needs are read from it) must be called
   with its arguments (its first page). Skipping it means guessing the code:
   ``why = "the code lookup was skipped"``.
2. **the whole read**: a step whose output was read over several pages must be
   read through its last page — a *read* action (``through``: the first record of
   the reference's last page) over the step's arguments without the paging
   ones, met by any page sizes that cover those records (from where the
   reference started: an example may start past page 1) — so an answer read
   from the first page only fails: ``why = "only the first page was read"``.

Duplicates (the same tool and arguments) are listed once.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from kopa_replay.bench.model import PAGING_STYLES, RequiredAction, Task
from kopa_replay.catalog.model import Catalog, Tool
from kopa_replay.errors import UsageError
from kopa_replay.synth.model import Junction, Trajectory

__all__ = [
    "DATE_SKIPPED",
    "FIRST_PAGE_ONLY",
    "LOOKUP_SKIPPED",
    "paging_of",
    "required_actions",
    "task_from_trajectory",
    "trajectory_calls",
]

#: ``why`` of a required prerequisite lookup
LOOKUP_SKIPPED = "the code lookup was skipped"
#: ``why`` of a required prerequisite call whose output hands on only a date (no entity code)
DATE_SKIPPED = "the call that gives the date was skipped"
#: ``why`` of a required last page
FIRST_PAGE_ONLY = "only the first page was read"


def trajectory_calls(trajectory: Trajectory) -> list[tuple[int, str, dict[str, Any]]]:
    """Every HTTP call of ``trajectory`` in order as (step index, tool, args): one per page read."""
    calls = trajectory.meta.get("calls")
    if calls:
        return [(int(call["step"]), call["tool"], dict(call["args"])) for call in calls]
    return [(step.index, step.tool, dict(step.args)) for step in trajectory.steps]


def paging_of(tool: Tool) -> dict[str, Any]:
    """How ``tool``'s arguments name a window of records (the ``paging`` of a read action); {} if unpaged."""
    pagination = tool.http.pagination
    if pagination.style not in PAGING_STYLES:
        return {}
    names = {
        "page": pagination.page_param,
        "size": pagination.size_param,
        "start": pagination.start_param,
        "end": pagination.end_param,
    }
    return {
        "style": pagination.style,
        **{k: v for k, v in names.items() if v},
        "default_size": pagination.default_size,
        "max_size": pagination.max_size,
    }


def _read_action(tool: Tool, args: Sequence[Mapping[str, Any]]) -> RequiredAction | None:
    """The read action over a step read in pages ``args`` (first to last); None when the window is unknown."""
    from kopa_replay.bench.grade import call_window

    paging = paging_of(tool)
    first, last = (call_window(args[0], paging), call_window(args[-1], paging)) if paging else (None, None)
    if first is None or last is None or last[0] < first[0]:
        return None
    params = {paging.get(name) for name in ("page", "size", "start", "end")}
    subset = {key: value for key, value in args[0].items() if key not in params}
    return RequiredAction(tool.name, subset, FIRST_PAGE_ONLY, last[0] + 1, paging, since=first[0])


def required_actions(
    trajectory: Trajectory,
    catalog: Catalog | None = None,
    hands_code: Callable[[Trajectory, Junction], bool] | None = None,
) -> tuple[RequiredAction, ...]:
    """The calls a solution must make (see the module docstring): prerequisite lookups, then whole reads.

    Without ``catalog`` (which says how each tool pages) a multi-page read requires its last page's exact call.
    ``hands_code`` says whether a junction hands on an entity code (not only a date): a prerequisite all of
    whose junctions do not is required ``why = DATE_SKIPPED``; without it every prerequisite is a code lookup.
    """
    calls = trajectory_calls(trajectory)
    pages: dict[int, list[Mapping[str, Any]]] = {}
    tools: dict[int, str] = {}
    for index, tool, args in calls:
        pages.setdefault(index, []).append(args)
        tools[index] = tool
    groups = {step.index: step.group for step in trajectory.steps}
    source_groups = {groups[junction.source] for junction in trajectory.junctions}
    code_groups = {groups[j.source] for j in trajectory.junctions if hands_code is None or hands_code(trajectory, j)}
    actions: list[RequiredAction] = []
    seen: set[tuple[str, tuple[tuple[str, str], ...]]] = set()

    def add(step: int, args: Mapping[str, Any], why: str) -> None:
        key = (tools[step], tuple(sorted((k, repr(v)) for k, v in args.items())))
        if key not in seen:
            seen.add(key)
            actions.append(RequiredAction(tools[step], dict(args), why))

    for step in trajectory.steps:
        if step.group in source_groups and step.index in pages:
            add(step.index, pages[step.index][0], LOOKUP_SKIPPED if step.group in code_groups else DATE_SKIPPED)
    for step in trajectory.steps:
        read = pages.get(step.index, ())
        if len(read) <= 1:
            continue
        action = _read_action(catalog.get(tools[step.index]), read) if catalog is not None else None
        if action is None:
            add(step.index, read[-1], FIRST_PAGE_ONLY)
        elif action not in actions:
            actions.append(action)
    return tuple(actions)


def task_from_trajectory(
    trajectory: Trajectory,
    catalog: Catalog,
    *,
    split: str = "main",
    hands_code: Callable[[Trajectory, Junction], bool] | None = None,
) -> Task:
    """The benchmark task ``trajectory`` poses; the task id is the trajectory id.

    Platforms are those of the tools called (sorted); the domain is the first step's tool's;
    ``hands_code`` as in :func:`required_actions`.
    """
    if not trajectory.steps:
        raise UsageError(f"trajectory {trajectory.id} has no steps")
    if not trajectory.question:
        raise UsageError(f"trajectory {trajectory.id} has no question: synthesize it with a question writer")
    tools = [catalog.get(step.tool) for step in trajectory.steps]
    return Task(
        id=trajectory.id,
        question_ko=trajectory.question,
        answer=trajectory.answer,
        required_actions=required_actions(trajectory, catalog, hands_code),
        reference_calls=tuple((tool, args) for _, tool, args in trajectory_calls(trajectory)),
        reference_state_digest=trajectory.state_digest,
        platforms=tuple(sorted({tool.platform for tool in tools})),
        domain=tools[0].domain,
        split=split,
        tags=(trajectory.pattern,),
    )
