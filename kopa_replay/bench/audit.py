"""Contamination audit between a training set and the benchmark: the paper's four measures.

Training data and benchmark draw on the same pool of public APIs, so the audit
asks how much of the benchmark a model could have seen in training:

1. **verbatim questions** — benchmark questions whose normalized text
   (:func:`normalize_question`: NFKC, case-folded, punctuation stripped,
   whitespace collapsed) equals a training question's; *near-verbatim*, counted
   separately, are the others whose character 3-gram Jaccard with some training
   question is at least ``near`` (0.9);
2. **tool-universe overlap** — ``|train tools ∩ bench tools| / |bench tools|``
   (the paper: 62.2 %, the consequence of a shared API pool, not contamination);
3. **dependency links** — the Jaccard of the distinct ``(source_tool,
   target_tool)`` links the benchmark tasks require and those in the training
   trajectories, and the share of benchmark link *occurrences* unseen in
   training (the paper: Jaccard 0.000, all 178 occurrences unseen);
4. **consecutive calls** — the same for any two consecutive calls, dependent or
   not (the paper: 95.6 % of occurrences unseen).

Each side is a sequence of :class:`AuditItem` (question, tool calls in order,
links), read from SFT rows (:func:`items_from_sft_rows`) or from
``trajectories.jsonl`` rows (:func:`items_from_trajectories`), or built by hand.
:func:`audit` is pure and deterministic (every list sorted); :func:`markdown`
renders its result.

Consecutive calls are counted after collapsing *runs* of the same tool — later
pages of one call and parallel fan-out calls of one tool count as one call — so
pagination does not fill the measure with ``(a, a)`` pairs.
"""

from __future__ import annotations

import bisect
import itertools
import json
import re
import unicodedata
from dataclasses import dataclass
from typing import Any, Iterable, Mapping, Sequence

from kopa_replay.errors import UsageError

__all__ = ["NEAR_VERBATIM", "PAPER", "AuditItem", "normalize_question", "char_ngrams", "jaccard",
           "consecutive_pairs", "items_from_sft_rows", "items_from_trajectories", "audit", "markdown"]

#: char 3-gram Jaccard at or above which a non-identical question counts as near-verbatim
NEAR_VERBATIM = 0.9
#: the paper's figures, shown beside ours in :func:`markdown`
PAPER = {"verbatim": 0, "tool_overlap": 0.622, "link_jaccard": 0.0, "pair_unseen_share": 0.956}

Link = tuple[str, str]


@dataclass(frozen=True)
class AuditItem:
    """One task or training example: its question, the tools it calls in order, its dependency links.

    ``calls`` are tool names in call order (pages and parallel calls included);
    ``links`` are ``(source_tool, target_tool)`` pairs, one per value handed
    from one call to another; ``id`` only labels examples in the report.
    """

    question: str
    calls: tuple[str, ...]
    links: tuple[Link, ...] = ()
    id: str = ""


# -- pure helpers ---------------------------------------------------------------------------
_SPACE = re.compile(r"\s+")


def normalize_question(text: str) -> str:
    """NFKC, case-folded, every punctuation character turned into a space, whitespace collapsed."""
    text = unicodedata.normalize("NFKC", text).casefold()
    text = "".join(" " if unicodedata.category(ch).startswith("P") else ch for ch in text)
    return _SPACE.sub(" ", text).strip()


def char_ngrams(text: str, n: int = 3) -> frozenset[str]:
    """The character n-grams of ``text`` (a text shorter than ``n`` is its own only gram; ``""`` has none)."""
    if len(text) < n:
        return frozenset([text]) if text else frozenset()
    return frozenset(text[i:i + n] for i in range(len(text) - n + 1))


def jaccard(a: Iterable[Any], b: Iterable[Any]) -> float:
    """``|a ∩ b| / |a ∪ b|``; two empty sets are identical, so 1.0."""
    a, b = set(a), set(b)
    union = len(a | b)
    return len(a & b) / union if union else 1.0


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


def items_from_sft_rows(rows: Iterable[Mapping[str, Any]]) -> list[AuditItem]:
    """Audit items from SFT conversations (OpenAI tool-calling format, as ``kopa-replay synth`` writes).

    The question is the first user message; the calls are the assistant
    ``tool_calls`` in order. Links are inferred, as the rows do not record them.
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
    items = []
    for n, row in enumerate(rows):
        messages = row.get("messages")
        if not isinstance(messages, list):
            raise UsageError(f"SFT row {n}: no 'messages' list")
        question = next((str(m.get("content") or "") for m in messages if m.get("role") == "user"), "")
        calls: list[tuple[str, str]] = []          # (tool, call id)
        args: dict[str, set[str]] = {}
        results: dict[str, set[str]] = {}
        given: set[str] = set()                    # values the calls were made with before any result had them
        handed: set[str] = set()
        for m in messages:
            if m.get("role") == "assistant":
                for k, call in enumerate(m.get("tool_calls") or []):
                    function = call.get("function") or {}
                    if "name" not in function:
                        raise UsageError(f"SFT row {n}: a tool call without a function name")
                    call_id = str(call.get("id") or f"#{len(calls)}.{k}")
                    calls.append((str(function["name"]), call_id))
                    args[call_id] = _json_leaves(function.get("arguments") or {})
                    given |= args[call_id] - handed
            elif m.get("role") == "tool":
                values = _json_leaves(m.get("content") or "")
                results.setdefault(str(m.get("tool_call_id") or ""), set()).update(values)
                handed |= {v for v in values - given if v not in question}
        runs: list[tuple[str, set[str], set[str]]] = []   # (tool, argument values, result values)
        for tool, call_id in calls:
            if not runs or runs[-1][0] != tool:
                runs.append((tool, set(), set()))
            runs[-1][1].update(args.get(call_id, ()))
            runs[-1][2].update(results.get(call_id, ()))
        links = tuple((a[0], b[0]) for a, b in itertools.pairwise(runs) if b[1] & a[2] & handed)
        items.append(AuditItem(question, tuple(tool for tool, _ in calls), links, str(row.get("id", ""))))
    return items


def items_from_trajectories(rows: Iterable[Mapping[str, Any]]) -> list[AuditItem]:
    """Audit items from ``trajectories.jsonl`` rows (``Trajectory.to_dict``).

    Calls are the steps' tools in index order; each junction is one link,
    ``(tool of source step, tool of target step)`` — exact, unlike the SFT reader.
    """
    items = []
    for n, row in enumerate(rows):
        try:
            steps = sorted(row["steps"], key=lambda s: s["index"])
            tool_of = {s["index"]: str(s["tool"]) for s in steps}
            links = tuple((tool_of[j["source"]], tool_of[j["target"]]) for j in row.get("junctions", ()))
        except (KeyError, TypeError) as exc:
            raise UsageError(f"trajectory row {n}: not a trajectory ({exc!r})") from exc
        items.append(AuditItem(str(row.get("question") or ""), tuple(tool_of[s["index"]] for s in steps), links,
                               str(row.get("id", ""))))
    return items


# -- the audit ------------------------------------------------------------------------------
def _ratio(part: int, whole: int) -> float | None:
    return part / whole if whole else None


def _verbatim(train: Sequence[AuditItem], bench: Sequence[AuditItem], near: float) -> dict[str, Any]:
    train_texts = sorted({q for q in (normalize_question(t.question) for t in train) if q})
    train_set = set(train_texts)
    # near-verbatim candidates by gram count: J(A, B) >= t needs t*|A| <= |B| <= |A|/t
    grams = sorted((len(g), text, g) for text in train_texts for g in [char_ngrams(text)])
    sizes = [size for size, _, _ in grams]
    originals: dict[str, str] = {}
    for t in train:
        originals.setdefault(normalize_question(t.question), t.question)
    exact, close = [], []
    asked = 0
    for item in bench:
        text = normalize_question(item.question)
        if not text:
            continue
        asked += 1
        if text in train_set:
            exact.append({"id": item.id, "question": item.question})
            continue
        mine = char_ngrams(text)
        best, best_text = 0.0, ""
        lo, hi = bisect.bisect_left(sizes, near * len(mine)), bisect.bisect_right(sizes, len(mine) / near)
        for _, other_text, other in grams[lo:hi]:
            score = jaccard(mine, other)
            if score > best:
                best, best_text = score, other_text
        if best >= near:
            close.append({"id": item.id, "question": item.question, "train_question": originals[best_text],
                          "similarity": round(best, 4)})
    exact.sort(key=lambda e: (e["question"], e["id"]))
    close.sort(key=lambda e: (-e["similarity"], e["question"], e["id"]))
    return {"questions": asked, "threshold": near,
            "verbatim": len(exact), "verbatim_ratio": _ratio(len(exact), asked),
            "near_verbatim": len(close), "near_verbatim_ratio": _ratio(len(close), asked),
            "verbatim_examples": exact, "near_verbatim_examples": close}


def _occurrences(train: Sequence[Sequence[Link]], bench: Sequence[Sequence[Link]]) -> dict[str, Any]:
    train_set = {link for links in train for link in links}
    bench_set = {link for links in bench for link in links}
    occurrences = [link for links in bench for link in links]
    unseen = sum(link not in train_set for link in occurrences)
    shared = sorted(train_set & bench_set)
    union = len(train_set | bench_set)
    return {"bench_distinct": len(bench_set), "train_distinct": len(train_set), "shared": len(shared),
            "jaccard": len(shared) / union if union else None,
            "bench_occurrences": len(occurrences), "unseen_occurrences": unseen,
            "unseen_share": _ratio(unseen, len(occurrences)),
            "shared_examples": [list(link) for link in shared]}


def audit(train_items: Iterable[AuditItem], bench_items: Iterable[AuditItem], *,
          near: float = NEAR_VERBATIM) -> dict[str, Any]:
    """The four contamination measures of ``bench_items`` against ``train_items``, as a JSON-ready dict.

    Keys: ``train`` and ``bench`` (sizes), ``verbatim``, ``tools``, ``links``,
    ``pairs``. Ratios whose denominator is zero (no questions, no links) are
    ``None``. Every list is sorted, so equal inputs give equal reports.
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
        "tools": {"bench": len(bench_tools), "train": len(train_tools), "shared": len(shared_tools),
                  "overlap": _ratio(len(shared_tools), len(bench_tools)),
                  "shared_tools": shared_tools, "bench_only_tools": sorted(bench_tools - train_tools)},
        "links": _occurrences([item.links for item in train], [item.links for item in bench]),
        "pairs": _occurrences([consecutive_pairs(item.calls) for item in train],
                              [consecutive_pairs(item.calls) for item in bench]),
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
    """The audit as Markdown: one table of the four measures (with the paper's figures), then the overlaps."""
    v, t, li, p = report["verbatim"], report["tools"], report["links"], report["pairs"]
    lines = [
        "## Contamination audit", "",
        f"{report['train']['items']} training items against {report['bench']['items']} benchmark items.", "",
        "| measure | value | detail | paper |",
        "|---|---|---|---|",
        f"| verbatim questions | {v['verbatim']} / {v['questions']} ({_pct(v['verbatim_ratio'])}) "
        f"| near-verbatim (3-gram Jaccard ≥ {v['threshold']}): {v['near_verbatim']} | {PAPER['verbatim']} / 145 |",
        f"| tool-universe overlap | {_pct(t['overlap'])} | {t['shared']} of {t['bench']} benchmark tools "
        f"in training | {_pct(PAPER['tool_overlap'])} |",
        f"| dependency-link Jaccard | {_fixed(li['jaccard'])} | {li['unseen_occurrences']} of "
        f"{li['bench_occurrences']} link occurrences unseen ({_pct(li['unseen_share'])}) "
        f"| {_fixed(PAPER['link_jaccard'])} |",
        f"| consecutive-call overlap | {_pct(p['unseen_share'])} unseen | {p['unseen_occurrences']} of "
        f"{p['bench_occurrences']} occurrences unseen; Jaccard {_fixed(p['jaccard'])} "
        f"| {_pct(PAPER['pair_unseen_share'])} unseen |",
    ]
    lines += _listing("Verbatim questions", [e["question"] for e in v["verbatim_examples"]], limit)
    lines += _listing("Near-verbatim questions", [f"{e['question']} ≈ {e['train_question']} ({e['similarity']:.3f})"
                                                  for e in v["near_verbatim_examples"]], limit)
    lines += _listing("Shared dependency links", [f"`{a}` → `{b}`" for a, b in li["shared_examples"]], limit)
    lines += _listing("Shared consecutive calls", [f"`{a}` → `{b}`" for a, b in p["shared_examples"]], limit)
    lines += _listing("Benchmark tools unseen in training", [f"`{x}`" for x in t["bench_only_tools"]], limit)
    return "\n".join(lines) + "\n"
