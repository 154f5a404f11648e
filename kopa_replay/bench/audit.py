"""Contamination audit between a training set and the benchmark: the paper's four measures, and shared plans.

Training data and benchmark draw on the same pool of public APIs, so the audit
asks how much of the benchmark a model could have seen in training:

1. **verbatim questions** — benchmark questions whose normalized text
   (:func:`~kopa_replay.text.normalize_question`: NFKC, case-folded, punctuation stripped,
   whitespace collapsed) equals a training question's; *near-verbatim*, counted
   separately, are the others whose character 3-gram Jaccard with some training
   question is at least ``near`` (0.8); *masked-equal*, the others equal to a
   training question once names (each side's slots, and every benchmark name)
   and digits are masked (:func:`~kopa_replay.bench.overlap.masked_question`);
2. **tool-universe overlap** — ``|train tools ∩ bench tools| / |bench tools|``
   (the paper: 62.2 %, the consequence of a shared API pool, not contamination);
3. **dependency links** — the Jaccard of the distinct ``(source_tool,
   target_tool)`` links the benchmark tasks require and those in the training
   trajectories, and the share of benchmark link *occurrences* unseen in
   training (the paper: Jaccard 0.000, all 178 occurrences unseen);
4. **consecutive calls** — the same for any two consecutive calls, dependent or
   not (the paper: 95.6 % of occurrences unseen);
5. **shared plans** — benchmark tasks whose plan signature
   (:func:`~kopa_replay.bench.overlap.plan_signature`: the distinct calls, tools
   and arguments with paging parameters left out) equals some training item's:
   the same calls under another wording (the paper: 0).

Questions and plans are compared with :mod:`kopa_replay.bench.overlap`, the
helpers the decontaminator (:mod:`kopa_replay.bench.contamination`) uses too, so
a corpus decontaminated against a task set audits at 0 verbatim, 0
masked-equal, 0 near-verbatim and 0 shared plans against it.

Each side is a sequence of :class:`AuditItem` (question, tool calls in order,
links, plan signature), read from SFT rows (:func:`items_from_sft_rows`) or from
``trajectories.jsonl`` rows (:func:`items_from_trajectories`), or built by hand.
:func:`audit` is pure and deterministic (every list sorted); :func:`markdown`
renders its result.

Consecutive calls are counted after collapsing *runs* of the same tool — later
pages of one call and parallel fan-out calls of one tool count as one call — so
pagination does not fill the measure with ``(a, a)`` pairs.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from kopa_replay.bench.overlap import (
    NEAR_VERBATIM,
    PAGING_PARAMS,
    PlanSignature,
    QuestionIndex,
    arguments_of,
    char_ngrams,
    jaccard,
    masked_question,
    plan_signature,
)
from kopa_replay.errors import UsageError
from kopa_replay.text.normalize import normalize_question

__all__ = [
    "NEAR_VERBATIM",
    "PAPER",
    "AuditItem",
    "char_ngrams",
    "jaccard",
    "consecutive_pairs",
    "items_from_sft_rows",
    "items_from_trajectories",
    "audit",
    "markdown",
]

#: the paper's figures, shown beside ours in :func:`markdown`
PAPER = {"verbatim": 0, "tool_overlap": 0.622, "link_jaccard": 0.0, "pair_unseen_share": 0.956, "shared_plans": 0}

Link = tuple[str, str]


@dataclass(frozen=True)
class AuditItem:
    """One task or training example: its question, the tools it calls in order, its dependency links, its plan.

    ``calls`` are tool names in call order (pages and parallel calls included);
    ``links`` are ``(source_tool, target_tool)`` pairs, one per value handed
    from one call to another; ``id`` only labels examples in the report;
    ``plan`` is the :func:`~kopa_replay.bench.overlap.plan_signature` of its
    calls with their arguments (``()``: unknown, never shared); ``names`` the
    names its question states (slot values), masked for the masked comparison.
    """

    question: str
    calls: tuple[str, ...]
    links: tuple[Link, ...] = ()
    id: str = ""
    plan: PlanSignature = ()
    names: tuple[str, ...] = ()


# -- pure helpers (char_ngrams, jaccard: kopa_replay.bench.overlap; normalize_question: kopa_replay.text) ---
def consecutive_pairs(calls: Sequence[str]) -> list[Link]:
    """``(a, b)`` for each two consecutive calls, after collapsing runs of one tool into one call."""
    runs = [tool for i, tool in enumerate(calls) if i == 0 or calls[i - 1] != tool]
    return list(itertools.pairwise(runs))


# -- readers --------------------------------------------------------------------------------
def _leaves(value: Any) -> set[str]:
    """The scalar values inside a JSON value, as text: booleans, nulls and texts under 2 characters left out.

    Short values (``1``, ``Y``) are page numbers and flags far more often than
    handed codes, and would link unrelated calls.
    """
    if isinstance(value, Mapping):
        return set().union(*(_leaves(v) for v in value.values())) if value else set()
    if isinstance(value, (list, tuple)):
        return set().union(*(_leaves(v) for v in value)) if value else set()
    if value is None or isinstance(value, bool):
        return set()
    text = str(value).strip()
    return {text} if len(text) >= 2 else set()


def _json_leaves(text: Any) -> set[str]:
    if not isinstance(text, str):
        return _leaves(text)
    try:
        return _leaves(json.loads(text))
    except ValueError:
        return _leaves(text)


def items_from_sft_rows(rows: Iterable[Mapping[str, Any]], *, paging: Iterable[str] = PAGING_PARAMS) -> list[AuditItem]:
    """Audit items from SFT conversations (OpenAI tool-calling format, as ``kopa-replay synth`` writes).

    The question is the first user message; the calls are the assistant
    ``tool_calls`` in order, and the plan is their signature (function names and
    arguments, ``paging`` parameters left out). Links are inferred, as the rows do not record them.
    A value is *handed* when it first shows up in a tool result: the question
    does not contain it and no earlier call was made with it (so defaults such
    as ``numOfRows`` and values the user gave are not). Calls are grouped into
    runs of one tool (pages, parallel calls); two consecutive runs ``A``, ``B``
    are linked ``(A, B)`` when an argument of ``B`` is a handed value found in
    ``A``'s results. Values are compared as whole JSON scalars of 2 characters
    or more.

    The inference is conservative: on 80 trajectories synthesized over the
    pruned built-in graph, the inferred links were a subset of the junctions in
    every one and equal in 41. The misses are junctions that only pass on a
    value the user gave or the first call was made with (a school code, a
    date); the conversation cannot tell them from reuse. Read
    ``trajectories.jsonl`` (:func:`items_from_trajectories`) when you have it:
    links inferred from SFT rows tend to understate the link overlap.
    """
    paging = frozenset(paging)
    items = []
    for n, row in enumerate(rows):
        messages = row.get("messages")
        if not isinstance(messages, list):
            raise UsageError(f"SFT row {n}: no 'messages' list")
        question = next((str(m.get("content") or "") for m in messages if m.get("role") == "user"), "")
        calls: list[tuple[str, str]] = []  # (tool, call id)
        made: list[tuple[str, Mapping[str, Any]]] = []  # (tool, arguments)
        args: dict[str, set[str]] = {}
        results: dict[str, set[str]] = {}
        given: set[str] = set()  # values the calls were made with before any result had them
        handed: set[str] = set()
        for m in messages:
            if m.get("role") == "assistant":
                for k, call in enumerate(m.get("tool_calls") or []):
                    function = call.get("function") or {}
                    if "name" not in function:
                        raise UsageError(f"SFT row {n}: a tool call without a function name")
                    call_id = str(call.get("id") or f"#{len(calls)}.{k}")
                    calls.append((str(function["name"]), call_id))
                    made.append((str(function["name"]), arguments_of(function.get("arguments"))))
                    args[call_id] = _json_leaves(function.get("arguments") or {})
                    given |= args[call_id] - handed
            elif m.get("role") == "tool":
                values = _json_leaves(m.get("content") or "")
                results.setdefault(str(m.get("tool_call_id") or ""), set()).update(values)
                handed |= {v for v in values - given if v not in question}
        runs: list[tuple[str, set[str], set[str]]] = []  # (tool, argument values, result values)
        for tool, call_id in calls:
            if not runs or runs[-1][0] != tool:
                runs.append((tool, set(), set()))
            runs[-1][1].update(args.get(call_id, ()))
            runs[-1][2].update(results.get(call_id, ()))
        links = tuple((a[0], b[0]) for a, b in itertools.pairwise(runs) if b[1] & a[2] & handed)
        items.append(
            AuditItem(
                question, tuple(tool for tool, _ in calls), links, str(row.get("id", "")), plan_signature(made, paging)
            )
        )
    return items


def items_from_trajectories(
    rows: Iterable[Mapping[str, Any]], *, paging: Iterable[str] = PAGING_PARAMS
) -> list[AuditItem]:
    """Audit items from ``trajectories.jsonl`` rows (``Trajectory.to_dict``).

    Calls are the steps' tools in index order; each junction is one link,
    ``(tool of source step, tool of target step)`` — exact, unlike the SFT reader.
    The plan is the signature of every HTTP call (``meta["calls"]``, one per page
    read; the steps' calls for a row without them), ``paging`` parameters left out.
    """
    paging = frozenset(paging)
    items = []
    for n, row in enumerate(rows):
        try:
            steps = sorted(row["steps"], key=lambda s: s["index"])
            tool_of = {s["index"]: str(s["tool"]) for s in steps}
            links = tuple((tool_of[j["source"]], tool_of[j["target"]]) for j in row.get("junctions", ()))
            made = (row.get("meta") or {}).get("calls") or steps
            plan = plan_signature([(call["tool"], call.get("args") or {}) for call in made], paging)
            slots = (row.get("meta") or {}).get("slots") or {}
            names = tuple(sorted(str(v) for v in slots.values()))
        except (KeyError, TypeError, AttributeError) as exc:
            raise UsageError(f"trajectory row {n}: not a trajectory ({exc!r})") from exc
        items.append(
            AuditItem(
                str(row.get("question") or ""),
                tuple(tool_of[s["index"]] for s in steps),
                links,
                str(row.get("id", "")),
                plan,
                names,
            )
        )
    return items


# -- the audit ------------------------------------------------------------------------------
def _ratio(part: int, whole: int) -> float | None:
    return part / whole if whole else None


def _verbatim(train: Sequence[AuditItem], bench: Sequence[AuditItem], near: float) -> dict[str, Any]:
    originals: dict[str, str] = {}
    for t in sorted(train, key=lambda t: (t.question, t.id)):  # the same example whatever the training order
        originals.setdefault(normalize_question(t.question, spaces=True), t.question)
    index = QuestionIndex(originals)
    bench_names = sorted({name for item in bench for name in item.names})
    skeletons: dict[str, str] = {}
    for t in sorted(train, key=lambda t: (t.question, t.id)):
        skeletons.setdefault(masked_question(t.question, bench_names, then=t.names), t.question)
    exact: list[dict[str, Any]] = []
    masked: list[dict[str, Any]] = []
    close: list[dict[str, Any]] = []
    asked = 0
    for item in bench:
        text = normalize_question(item.question, spaces=True)
        if not text:
            continue
        asked += 1
        if text in index:
            exact.append({"id": item.id, "question": item.question})
            continue
        skeleton = masked_question(item.question, bench_names)
        if skeleton in skeletons:
            masked.append({"id": item.id, "question": item.question, "train_question": skeletons[skeleton]})
            continue
        found = index.nearest(text, near)
        if found is not None:
            best, best_text = found
            close.append(
                {
                    "id": item.id,
                    "question": item.question,
                    "train_question": originals[best_text],
                    "similarity": round(best, 4),
                }
            )
    exact.sort(key=lambda e: (e["question"], e["id"]))
    masked.sort(key=lambda e: (e["question"], e["id"]))
    close.sort(key=lambda e: (-e["similarity"], e["question"], e["id"]))
    return {
        "questions": asked,
        "threshold": near,
        "verbatim": len(exact),
        "verbatim_ratio": _ratio(len(exact), asked),
        "masked": len(masked),
        "masked_examples": masked,
        "near_verbatim": len(close),
        "near_verbatim_ratio": _ratio(len(close), asked),
        "verbatim_examples": exact,
        "near_verbatim_examples": close,
    }


def _occurrences(train: Sequence[Sequence[Link]], bench: Sequence[Sequence[Link]]) -> dict[str, Any]:
    train_set = {link for links in train for link in links}
    bench_set = {link for links in bench for link in links}
    occurrences = [link for links in bench for link in links]
    unseen = sum(link not in train_set for link in occurrences)
    shared = sorted(train_set & bench_set)
    union = len(train_set | bench_set)
    return {
        "bench_distinct": len(bench_set),
        "train_distinct": len(train_set),
        "shared": len(shared),
        "jaccard": len(shared) / union if union else None,
        "bench_occurrences": len(occurrences),
        "unseen_occurrences": unseen,
        "unseen_share": _ratio(unseen, len(occurrences)),
        "shared_examples": [list(link) for link in shared],
    }


def _plans(train: Sequence[AuditItem], bench: Sequence[AuditItem]) -> dict[str, Any]:
    owners: dict[PlanSignature, str] = {}
    for item in sorted(train, key=lambda t: t.id):
        if item.plan:
            owners.setdefault(item.plan, item.id)
    examples = []
    planned = 0
    for item in bench:
        if not item.plan:
            continue
        planned += 1
        if item.plan in owners:
            examples.append(
                {"id": item.id, "train_id": owners[item.plan], "tools": sorted({tool for tool, _ in item.plan})}
            )
    examples.sort(key=lambda e: (e["id"], e["train_id"]))
    return {
        "bench": planned,
        "train": len({t.plan for t in train if t.plan}),
        "shared": len(examples),
        "shared_ratio": _ratio(len(examples), planned),
        "examples": examples,
    }


def audit(
    train_items: Iterable[AuditItem], bench_items: Iterable[AuditItem], *, near: float = NEAR_VERBATIM
) -> dict[str, Any]:
    """The five contamination measures of ``bench_items`` against ``train_items``, as a JSON-ready dict.

    Keys: ``train`` and ``bench`` (sizes), ``verbatim``, ``tools``, ``links``,
    ``pairs``, ``plans`` (``bench``: items with a known plan, ``train``: distinct
    training plans, ``shared``: benchmark items whose plan some training item
    makes, ``examples``: each with the first such training id). Ratios whose
    denominator is zero (no questions, no links) are ``None``. Every list is
    sorted, so equal inputs give equal reports.
    """
    if not 0.0 < near <= 1.0:
        raise UsageError(f"near-verbatim threshold must be in (0, 1], got {near}")
    train, bench = list(train_items), list(bench_items)
    train_tools = {tool for item in train for tool in item.calls}
    bench_tools = {tool for item in bench for tool in item.calls}
    shared_tools = sorted(train_tools & bench_tools)
    return {
        "train": {"items": len(train), "tools": len(train_tools)},
        "bench": {"items": len(bench), "tools": len(bench_tools)},
        "verbatim": _verbatim(train, bench, near),
        "tools": {
            "bench": len(bench_tools),
            "train": len(train_tools),
            "shared": len(shared_tools),
            "overlap": _ratio(len(shared_tools), len(bench_tools)),
            "shared_tools": shared_tools,
            "bench_only_tools": sorted(bench_tools - train_tools),
        },
        "links": _occurrences([item.links for item in train], [item.links for item in bench]),
        "pairs": _occurrences(
            [consecutive_pairs(item.calls) for item in train], [consecutive_pairs(item.calls) for item in bench]
        ),
        "plans": _plans(train, bench),
    }


# -- Markdown -------------------------------------------------------------------------------
def _pct(x: float | None) -> str:
    return "—" if x is None else f"{100 * x:.1f}%"


def _fixed(x: float | None) -> str:
    return "—" if x is None else f"{x:.3f}"


def _listing(title: str, lines: list[str], limit: int) -> list[str]:
    if not lines:
        return []
    out = ["", f"### {title} ({len(lines)})", ""] + [f"- {line}" for line in lines[:limit]]
    if len(lines) > limit:
        out.append(f"- … and {len(lines) - limit} more")
    return out


def markdown(report: Mapping[str, Any], *, limit: int = 20) -> str:
    """The audit as Markdown: one table of the five measures (with the paper's figures), then the overlaps."""
    v, t, li, p = report["verbatim"], report["tools"], report["links"], report["pairs"]
    plans = report.get("plans")
    lines = [
        "## Contamination audit",
        "",
        f"{report['train']['items']} training items against {report['bench']['items']} benchmark items.",
        "",
        "| measure | value | detail | paper |",
        "|---|---|---|---|",
        f"| verbatim questions | {v['verbatim']} / {v['questions']} ({_pct(v['verbatim_ratio'])}) "
        f"| equal with names and numbers masked: {v.get('masked', 0)}; near-verbatim (3-gram Jaccard ≥ "
        f"{v['threshold']}): {v['near_verbatim']} | {PAPER['verbatim']} / 145 |",
        f"| tool-universe overlap | {_pct(t['overlap'])} | {t['shared']} of {t['bench']} benchmark tools "
        f"in training | {_pct(PAPER['tool_overlap'])} |",
        f"| dependency-link Jaccard | {_fixed(li['jaccard'])} | {li['unseen_occurrences']} of "
        f"{li['bench_occurrences']} link occurrences unseen ({_pct(li['unseen_share'])}) "
        f"| {_fixed(PAPER['link_jaccard'])} |",
        f"| consecutive-call overlap | {_pct(p['unseen_share'])} unseen | {p['unseen_occurrences']} of "
        f"{p['bench_occurrences']} occurrences unseen; Jaccard {_fixed(p['jaccard'])} "
        f"| {_pct(PAPER['pair_unseen_share'])} unseen |",
    ]
    if plans is not None:
        lines.append(
            f"| shared plans | {plans['shared']} / {plans['bench']} ({_pct(plans['shared_ratio'])}) "
            f"| benchmark tasks whose calls (tools and arguments, paging aside) a training item makes "
            f"| {PAPER['shared_plans']} |"
        )
    lines += _listing("Verbatim questions", [e["question"] for e in v["verbatim_examples"]], limit)
    lines += _listing(
        "Questions equal with names and numbers masked",
        [f"{e['question']} ≈ {e['train_question']}" for e in v.get("masked_examples", ())],
        limit,
    )
    lines += _listing(
        "Near-verbatim questions",
        [f"{e['question']} ≈ {e['train_question']} ({e['similarity']:.3f})" for e in v["near_verbatim_examples"]],
        limit,
    )
    if plans is not None:
        lines += _listing(
            "Shared plans",
            [
                f"{e['id']} = training {e['train_id']}: " + ", ".join(f"`{x}`" for x in e["tools"])
                for e in plans["examples"]
            ],
            limit,
        )
    lines += _listing("Shared dependency links", [f"`{a}` → `{b}`" for a, b in li["shared_examples"]], limit)
    lines += _listing("Shared consecutive calls", [f"`{a}` → `{b}`" for a, b in p["shared_examples"]], limit)
    lines += _listing("Benchmark tools unseen in training", [f"`{x}`" for x in t["bench_only_tools"]], limit)
    return "\n".join(lines) + "\n"
