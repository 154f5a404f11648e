"""Training rows from a ``synth`` + ``filter`` corpus: checked clean, tools offered as the benchmark offers them.

:func:`load_corpus` reads a corpus directory (``kopa-replay filter``'s output,
or ``synth``'s: ``trajectories.jsonl`` and ``sft.jsonl``) and refuses it —
a :class:`~kopa_replay.errors.UsageError` naming the rows — when

* a trajectory calls a tool of a held-out platform (the benchmark's
  ``held_out`` split: :data:`~kopa_replay.bench.build.HELD_OUT_PLATFORMS`);
* ``bench audit`` finds a benchmark task in it: a question verbatim or
  near-verbatim, or a plan (the same calls) — the measures the synthesis and
  filter decontaminator removes by default, so a corpus made with the defaults
  passes.

Each row offers the tools a model would be offered at evaluation: the top-k of
:class:`~kopa_replay.env.retrieval.ToolRetriever` for its question (``bench
run``'s retrieval). With ``include_reference`` (the default) a reference tool
the retriever missed takes the place of the lowest-ranked other one, so every
row can be solved (a GRPO group that cannot reach reward 1 teaches nothing); the
run records how often that was needed (``retrieval_recall``). A set is shown
to the model in name order (trl lists an environment's tools by name; SFT and
``train eval`` do the same), so where a reference tool sits tells nothing.

* :func:`grpo_rows` — ``prompt`` (system + question), ``task`` (the
  benchmark :class:`~kopa_replay.bench.model.Task` the trajectory poses, as
  JSON: the grader's input) and ``environment`` (the tool set's name, which
  routes the row to its tools);
* :func:`sft_rows` — the filtered conversation with tool-call arguments as
  objects (chat templates ``tojson`` them) and ``tools`` as the schemas a
  trained model reads (:func:`~kopa_replay.train.tools.tool_schemas`).

:func:`rows_digest` names the rows exactly (the run directory records it).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kopa_replay.catalog.model import Catalog
from kopa_replay.errors import UsageError

__all__ = [
    "Corpus",
    "grpo_rows",
    "load_corpus",
    "offered_tools",
    "rows_digest",
    "sft_rows",
    "task_rows",
    "corpus_tasks",
    "unanswered",
]


@dataclass(frozen=True)
class Corpus:
    """A checked corpus: its trajectories, SFT conversations, where it came from."""

    trajectories: tuple[Any, ...]
    sft: tuple[dict[str, Any], ...]
    source: str


def _jsonl(path: Path) -> list[dict[str, Any]]:
    from kopa_replay.synth.export import read_jsonl

    if not path.exists():
        raise UsageError(f"no {path.name} in {path.parent}: give a `kopa-replay filter` (or `synth`) output directory")
    try:
        return read_jsonl(path)
    except ValueError as exc:
        raise UsageError(f"{path}: not JSONL ({exc})") from None


def _listed(items: Sequence[str], limit: int = 5) -> str:
    return ", ".join(items[:limit]) + (f" and {len(items) - limit} more" if len(items) > limit else "")


def load_corpus(
    directory: str | Path,
    catalog: Catalog,
    *,
    task_set: Any = None,
    held_out: Sequence[str] | None = None,
    subset: str = "full",
) -> Corpus:
    """The corpus in ``directory``, refused if it touches a held-out platform or repeats a benchmark task; ``subset``
    keeps one of the paper's ablation subsets (:data:`kopa_replay.synth.model.SUBSETS`), checked whole first."""
    from kopa_replay.bench.audit import AuditItem, audit, items_from_trajectories
    from kopa_replay.bench.build import HELD_OUT_PLATFORMS
    from kopa_replay.bench.contamination import task_names
    from kopa_replay.bench.overlap import PAGING_PARAMS, plan_signature
    from kopa_replay.bench.suite import load_task_set
    from kopa_replay.synth.model import Trajectory

    root = Path(directory)
    if not root.is_dir():
        raise UsageError(f"no corpus directory {root}: run `kopa-replay synth` and `kopa-replay filter` first")
    rows = _jsonl(root / "trajectories.jsonl")
    if not rows:
        raise UsageError(f"{root / 'trajectories.jsonl'} holds no trajectory")
    try:
        trajectories = tuple(Trajectory.from_dict(row) for row in rows)
    except (KeyError, TypeError, ValueError) as exc:
        raise UsageError(f"{root / 'trajectories.jsonl'}: not a trajectory ({type(exc).__name__}: {exc})") from None
    unknown = sorted({step.tool for t in trajectories for step in t.steps if step.tool not in catalog})
    if unknown:
        raise UsageError(f"{root}: the corpus calls tools this catalog lacks: {_listed(unknown)}")
    held = set(HELD_OUT_PLATFORMS if held_out is None else held_out)
    touching = [
        f"{t.id} ({', '.join(sorted({catalog.get(s.tool).platform for s in t.steps} & held))})"
        for t in trajectories
        if {catalog.get(s.tool).platform for s in t.steps} & held
    ]
    if touching:
        flags = " ".join(f"--exclude-platform {p}" for p in sorted(held))
        raise UsageError(
            f"{root}: {len(touching)} trajectories call held-out platforms, whose tasks the benchmark's "
            f"held_out split keeps unseen: {_listed(touching)}; synthesize with {flags}"
        )
    task_set = task_set or load_task_set()
    # the benchmark side from the tasks themselves (question, reference calls): no plans.jsonl needed
    names = task_names(task_set)
    bench_items = [
        AuditItem(
            task.question_ko,
            tuple(tool for tool, _ in task.reference_calls),
            (),
            task.id,
            plan_signature(task.reference_calls, PAGING_PARAMS),
            tuple(names.get(task.id, ())),
        )
        for task in task_set.tasks
    ]
    found = audit(items_from_trajectories(rows), bench_items)
    verbatim, plans = found["verbatim"], found["plans"]
    bad = [e["id"] for e in verbatim["verbatim_examples"] + verbatim["masked_examples"]]
    bad += [e["id"] for e in verbatim["near_verbatim_examples"]]
    bad += [f"{e['id']} (plan of {e['train_id']})" for e in plans["examples"]]
    if bad:
        raise UsageError(
            f"{root}: `bench audit` finds benchmark tasks in this corpus ({verbatim['verbatim']} verbatim, "
            f"{verbatim['masked']} equal with names and numbers masked, "
            f"{verbatim['near_verbatim']} near-verbatim questions, {plans['shared']} shared plans: "
            f"{_listed(sorted(set(bad)))}); training on it would grade the model on what it was taught. "
            "Re-run synth and filter with --decontaminate (the default)"
        )
    sft_path = root / "sft.jsonl"
    sft = tuple(_jsonl(sft_path)) if sft_path.exists() else ()
    # SFT trains on sft.jsonl: each conversation must be one of the trajectories checked above
    checked = {t.id for t in trajectories}
    unchecked = [str(row.get("id")) for row in sft if row.get("id") not in checked]
    if unchecked:
        raise UsageError(
            f"{sft_path}: {len(unchecked)} conversations are not among the trajectories of "
            f"trajectories.jsonl, so nothing checked them for held-out platforms or benchmark tasks: "
            f"{_listed(unchecked)}"
        )
    if subset != "full":
        from kopa_replay.synth.model import SUBSETS, in_subset

        if subset not in SUBSETS:
            raise UsageError(f"subset must be one of {', '.join(SUBSETS)}, not {subset!r}")
        trajectories = tuple(t for t in trajectories if in_subset(t, subset))
        if not trajectories:
            raise UsageError(f"{root}: no trajectory of the {subset!r} subset (shapes: {', '.join(SUBSETS[subset])})")
        kept = {t.id for t in trajectories}
        sft = tuple(row for row in sft if row.get("id") in kept)
    return Corpus(trajectories, sft, str(root))


def offered_tools(
    question: str, reference: Sequence[str], retriever: Any, k: int, *, include_reference: bool = True
) -> tuple[list[str], bool]:
    """The ``k`` tools offered for ``question`` in retrieval order, and whether retrieval alone held every
    reference tool (with ``include_reference`` a missing one replaces the lowest-ranked other tool)."""
    if k < 1:
        raise UsageError(f"top_k must be at least 1, not {k}")
    ranked = [name for name, _ in retriever.top_k(question, len(retriever.names))]
    chosen = ranked[:k]
    missing = [name for name in dict.fromkeys(reference) if name not in chosen]
    if missing and include_reference:
        if len(set(reference)) > k:
            raise UsageError(f"top_k {k} is smaller than the {len(set(reference))} tools a task needs")
        keep = [name for name in chosen if name in reference]
        others = [name for name in chosen if name not in reference][: k - len(keep) - len(missing)]
        wanted = set(keep) | set(others) | set(missing)
        chosen = [name for name in ranked if name in wanted]
    return chosen, not missing


def task_rows(
    tasks: Sequence[Any],
    catalog: Catalog,
    *,
    top_k: int,
    system: str,
    include_reference: bool = True,
    retriever: Any = None,
    add_tool_set: Callable[[Sequence[str]], str] | None = None,
) -> tuple[list[dict[str, Any]], int]:
    """GRPO rows for benchmark-shaped ``tasks``; also how many rows retrieval alone served completely."""
    from kopa_replay.env.retrieval import ToolRetriever
    from kopa_replay.train.tools import tool_set_name

    retriever = retriever or ToolRetriever(catalog)
    rows, recalled = [], 0
    for task in tasks:
        reference = [tool for tool, _ in task.reference_calls]
        names, complete = offered_tools(
            task.question_ko, reference, retriever, top_k, include_reference=include_reference
        )
        recalled += complete
        rows.append(
            {
                "prompt": [{"role": "system", "content": system}, {"role": "user", "content": task.question_ko}],
                "task": json.dumps(task.to_dict(), ensure_ascii=False, sort_keys=True),
                "environment": (add_tool_set or tool_set_name)(names),
            }
        )
    return rows, recalled


def corpus_tasks(corpus: Corpus, catalog: Catalog) -> list[Any]:
    """The benchmark-shaped task each trajectory of the corpus poses (what the grader checks a rollout against)."""
    from kopa_replay.bench.tasks import task_from_trajectory

    return [task_from_trajectory(t, catalog) for t in corpus.trajectories]


def grpo_rows(
    corpus: Corpus,
    catalog: Catalog,
    *,
    top_k: int,
    system: str,
    include_reference: bool = True,
    add_tool_set: Callable[[Sequence[str]], str] | None = None,
) -> tuple[list[dict[str, Any]], int]:
    """GRPO rows for the corpus's trajectories (each as the task it poses); rows retrieval alone served."""
    return task_rows(
        corpus_tasks(corpus, catalog),
        catalog,
        top_k=top_k,
        system=system,
        include_reference=include_reference,
        add_tool_set=add_tool_set,
    )


def sft_rows(
    corpus: Corpus, catalog: Catalog, *, top_k: int, system: str | None = None, include_reference: bool = True
) -> tuple[list[dict[str, Any]], int]:
    """SFT conversations of the corpus with retrieved tools and object arguments; rows retrieval alone served.

    ``system`` replaces each conversation's system message (None keeps it).
    """
    from kopa_replay.bench.chat_agent import template_messages
    from kopa_replay.env.retrieval import ToolRetriever
    from kopa_replay.train.tools import tool_schemas

    if not corpus.sft:
        raise UsageError(f"no sft.jsonl rows in {corpus.source}: SFT trains on the filtered conversations")
    retriever = ToolRetriever(catalog)
    rows, recalled = [], 0
    for n, row in enumerate(corpus.sft):
        messages = row.get("messages")
        if not isinstance(messages, list) or not messages:
            raise UsageError(f"{corpus.source}/sft.jsonl row {n + 1}: no 'messages' list")
        messages = template_messages(messages)
        if system is not None and messages[0].get("role") == "system":
            messages[0] = {**messages[0], "content": system}
        question = next((str(m.get("content") or "") for m in messages if m.get("role") == "user"), "")
        used = [call["function"]["name"] for m in messages for call in (m.get("tool_calls") or ())]
        names, complete = offered_tools(question, used, retriever, top_k, include_reference=include_reference)
        recalled += complete
        rows.append({"messages": messages, "tools": tool_schemas(catalog, names)})
    return rows, recalled


def rows_digest(rows: Sequence[Mapping[str, Any]]) -> str:
    """sha256 of the rows as canonical JSON lines: the data a run trained on, exactly."""
    digest = hashlib.sha256()
    for row in rows:
        digest.update(json.dumps(row, ensure_ascii=False, sort_keys=True, separators=(",", ":")).encode("utf-8"))
        digest.update(b"\n")
    return digest.hexdigest()


def unanswered(tasks: Sequence[Any], catalog: Catalog, source: Any) -> list[str]:
    """Ids of the ``tasks`` whose reference calls ``source`` (strict replay of the pinned snapshot) cannot all
    answer: rollouts of those tasks could never earn the reward, whatever the model does."""
    from kopa_replay.env import ToolEnvironment
    from kopa_replay.errors import CassetteMiss

    env = ToolEnvironment(catalog, source)
    missing = []
    for task in tasks:
        try:
            for tool, args in task.reference_calls:
                env.call(tool, dict(args))
        except CassetteMiss:
            missing.append(task.id)
        env.reset()
    return missing
