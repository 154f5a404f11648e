"""Corpus statistics of synthesized trajectories, beside the paper's (arXiv:2609.05395, §3 and Table 11).

Definitions (the paper's, read literally; nothing here is tuned to the numbers):

* ``multi_record_call_share`` — steps (tool invocations, all pages read counted
  together) that returned at least two records, over all steps;
* ``one_to_many_share`` — multi-step trajectories with at least one junction
  whose source output held at least two records, over multi-step trajectories;
* ``median_cardinality`` / ``max_cardinality`` — records of the source output at
  those one-to-many junctions;
* ``fan_out_derived_share_single`` — among trajectories with exactly one
  junction, those whose junction is a fan-out or derived;
* ``calls_per_trajectory`` — mean steps per trajectory (``http_calls_per_trajectory``
  counts every page);
* ``parallel_share`` — trajectories with at least one group of two or more
  parallel calls (the benchmark's "involve parallel execution").

With the catalog (:func:`corpus_shape`), what the corpus teaches and how varied it is:

* ``shapes`` — the paper's ablation families (:func:`shape_of`): ``sequential``
  (no junction hands on more than one value), ``parallel`` (every junction feeds
  two or more parallel calls), ``mixed`` (both);
* ``paged_share`` — items with a call past page 1 at the platform's usual page
  size (the size parameter left unset or at the tool's default): paging taught;
* ``platform_shares`` / ``max_platform_share`` — items calling each platform;
  ``domains`` — items per domain; ``realtime`` — items over real-time data;
* ``skeletons`` / ``max_skeleton_share`` — distinct question skeletons
  (:func:`~kopa_replay.text.masked_question`: the item's slot values and every
  digit run masked) and the largest share any one holds.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Mapping, Sequence
from statistics import median
from typing import Any

from kopa_replay.catalog.model import Catalog
from kopa_replay.synth.export import jsonl_text
from kopa_replay.synth.model import JUNCTION_KINDS, SHAPES, SUBSETS, Trajectory, in_subset, shape_of  # noqa: F401
from kopa_replay.text.normalize import masked_question

__all__ = [
    "PAPER",
    "SHAPES",
    "SUBSETS",
    "corpus_stats",
    "corpus_shape",
    "shape_of",
    "in_subset",
    "stats_table",
    "output_digest",
]


#: The paper's figures (EDGE corpus §3; the 59% and 5 calls are KOPA-Bench's tasks, §1).
PAPER: Mapping[str, float | int] = {
    "multi_record_call_share": 0.741,
    "one_to_many_share": 0.812,
    "median_cardinality": 27,
    "max_cardinality": 224_958,
    "fan_out_derived_share_single": 0.649,
    "single_junction_trajectories": 613,
    "calls_per_trajectory": 5.0,
    "parallel_share": 0.59,
}


def output_digest(trajectories: Sequence[Trajectory]) -> str:
    """sha256 of the canonical JSONL of the trajectories (what :func:`~kopa_replay.synth.export.write_jsonl` writes)."""
    return hashlib.sha256(jsonl_text(t.to_dict() for t in trajectories).encode("utf-8")).hexdigest()


def _paged_at_usual_size(trajectory: Trajectory, catalog: Catalog) -> bool:
    for call in trajectory.meta.get("calls", ()):
        if call.get("tool") not in catalog:
            continue
        paging = catalog.get(call["tool"]).http.pagination
        args = call.get("args") or {}
        if paging.style != "page" or not paging.page_param or not paging.size_param:
            continue
        try:
            page = int(args.get(paging.page_param, 1))
            size = args.get(paging.size_param)
            usual = size is None or paging.default_size is None or int(size) <= paging.default_size
        except (TypeError, ValueError):
            continue
        if page >= 2 and usual:
            return True
    return False


def corpus_shape(trajectories: Sequence[Trajectory], catalog: Catalog) -> dict[str, Any]:
    """What the corpus teaches and how varied its questions are (see the module docstring)."""
    n = len(trajectories)
    platforms: Counter[str] = Counter()
    domains: Counter[str] = Counter()
    for t in trajectories:
        tools = [catalog.get(s.tool) for s in t.steps if s.tool in catalog]
        platforms.update({tool.platform for tool in tools})
        domains[str(t.meta.get("domain") or (tools[0].domain if tools else ""))] += 1
    skeletons = Counter(
        masked_question(t.question, [str(v) for v in (t.meta.get("slots") or {}).values()]) for t in trajectories
    )
    top = skeletons.most_common(1)
    shares = {p: _share(c, n) for p, c in sorted(platforms.items())}
    return {
        "shapes": {shape: sum(shape_of(t) == shape for t in trajectories) for shape in SHAPES},
        "paged_share": _share(sum(_paged_at_usual_size(t, catalog) for t in trajectories), n),
        "platform_shares": shares,
        "max_platform_share": max(shares.values(), default=0.0),
        "domains": dict(sorted(domains.items())),
        "realtime": sum(bool(t.meta.get("realtime")) for t in trajectories),
        "skeletons": len(skeletons),
        "max_skeleton_share": _share(top[0][1], n) if top else 0.0,
        "max_skeleton": top[0][0] if top else "",
        "families": len({t.meta["family"] for t in trajectories if t.meta.get("family")}),
    }


def _share(part: int, whole: int) -> float:
    return round(part / whole, 6) if whole else 0.0


def corpus_stats(trajectories: Sequence[Trajectory]) -> dict[str, Any]:
    """The corpus figures (see the module docstring), plus counts by pattern, answer kind and junction kind."""
    steps = [step for t in trajectories for step in t.steps]
    multi_step = [t for t in trajectories if len(t.steps) >= 2]
    one_to_many = [t for t in multi_step if any(j.cardinality >= 2 for j in t.junctions)]
    cardinalities = sorted(j.cardinality for t in multi_step for j in t.junctions if j.cardinality >= 2)
    single = [t for t in trajectories if len(t.junctions) == 1]
    kinds = Counter(j.kind for t in trajectories for j in t.junctions)
    parallel = [t for t in trajectories if max(Counter(s.group for s in t.steps).values(), default=0) >= 2]
    http_calls = [len(t.meta.get("calls", ())) or len(t.steps) for t in trajectories]
    n = len(trajectories)
    return {
        "trajectories": n,
        "steps": len(steps),
        "multi_record_call_share": _share(sum(s.records >= 2 for s in steps), len(steps)),
        "multi_step_trajectories": len(multi_step),
        "one_to_many_share": _share(len(one_to_many), len(multi_step)),
        "median_cardinality": float(median(cardinalities)) if cardinalities else 0.0,
        "max_cardinality": cardinalities[-1] if cardinalities else 0,
        "junctions": {kind: kinds.get(kind, 0) for kind in JUNCTION_KINDS},
        "single_junction_trajectories": len(single),
        "fan_out_derived_share_single": _share(sum(t.junctions[0].kind != "sequential" for t in single), len(single)),
        "calls_per_trajectory": round(len(steps) / n, 4) if n else 0.0,
        "max_calls": max((len(t.steps) for t in trajectories), default=0),
        "http_calls_per_trajectory": round(sum(http_calls) / n, 4) if n else 0.0,
        "parallel_share": _share(len(parallel), n),
        "patterns": dict(sorted(Counter(t.pattern for t in trajectories).items())),
        "answer_kinds": dict(sorted(Counter(t.answer.kind for t in trajectories).items())),
        "reductions": dict(
            sorted(
                Counter(j.reduction.op for t in trajectories for j in t.junctions if j.reduction is not None).items()
            )
        ),
        "output_digest": output_digest(trajectories),
    }


_ROWS = (
    ("multi_record_call_share", "calls returning ≥ 2 records", "pct"),
    ("one_to_many_share", "multi-step trajectories with a one-to-many junction", "pct"),
    ("median_cardinality", "median records consumed at such junctions", "num"),
    ("max_cardinality", "max records consumed at such junctions", "num"),
    ("fan_out_derived_share_single", "fan-out + derived among single-junction trajectories", "pct"),
    ("single_junction_trajectories", "single-junction trajectories", "num"),
    ("calls_per_trajectory", "calls per trajectory (mean; paper: benchmark tasks)", "num"),
    ("parallel_share", "trajectories with parallel calls (paper: benchmark tasks)", "pct"),
    ("paged_share", "items reading past page 1 at the usual page size (bar: ≥ 15 %)", "pct"),
    ("max_platform_share", "largest share of items on one platform (bar: ≤ 25 %)", "pct"),
    ("max_skeleton_share", "largest share of one question skeleton (bar: ≤ 2 %)", "pct"),
)


def _fmt(value: Any, how: str) -> str:
    if value is None:
        return "—"
    if how == "pct":
        return f"{100 * float(value):.1f}%"
    if isinstance(value, float) and not value.is_integer():
        return f"{value:,.2f}"
    return f"{int(value):,}"


def _fmt3(value: Any) -> str:
    return "—" if value is None else f"{float(value):.3f}"


def stats_table(stats: Mapping[str, Any]) -> str:
    """A Markdown table: each figure, ours beside the paper's; junction counts below."""
    lines = ["| figure | ours | paper |", "|---|---:|---:|"]
    for key, label, how in _ROWS:
        lines.append(f"| {label} | {_fmt(stats.get(key), how)} | {_fmt(PAPER.get(key), how)} |")
    junctions = stats.get("junctions", {})
    lines.append(
        f"| junctions (sequential / fan-out / derived) | "
        f"{' / '.join(str(junctions.get(k, 0)) for k in JUNCTION_KINDS)} | — |"
    )
    shapes = stats.get("shapes")
    if shapes:
        lines.append(
            f"| sequential / parallel / mixed (the ablation's families) | "
            f"{' / '.join(str(shapes.get(k, 0)) for k in SHAPES)} | present, all three |"
        )
    if stats.get("domains"):
        lines.append("| items per domain | " + ", ".join(f"{d} {c}" for d, c in stats["domains"].items()) + " | — |")
    lines.append(f"| trajectories | {_fmt(stats.get('trajectories', 0), 'num')} | 1,781 (after filtering) |")
    found = stats.get("contamination")
    if found:
        n = found["against"]
        lines += [
            f"| benchmark questions repeated: verbatim / names and numbers masked / 3-gram Jaccard ≥ "
            f"{found['near_threshold']} (of {n}) | {found['verbatim']} / {found['masked']} / {found['near_verbatim']} "
            "| 0 verbatim of 145 |",
            f"| benchmark plans repeated (same calls, paging aside) | {found['shared_plans']} of {n} | 0 |",
            f"| tool-universe overlap | {_fmt(found['tool_overlap'], 'pct')} | 62.2% |",
            f"| dependency-link Jaccard | {_fmt3(found['link_jaccard'])} | 0.000 |",
            f"| benchmark link occurrences unseen in training | {_fmt(found['link_unseen_share'], 'pct')} | 100.0% |",
            f"| consecutive-call occurrences unseen in training | {_fmt(found['pair_unseen_share'], 'pct')} | 95.6% |",
        ]
    return "\n".join(lines) + "\n"
