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
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Mapping, Sequence
from statistics import median
from typing import Any

from kopa_replay.synth.export import jsonl_text
from kopa_replay.synth.model import JUNCTION_KINDS, Trajectory

__all__ = ["PAPER", "corpus_stats", "stats_table", "output_digest"]

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
)


def _fmt(value: Any, how: str) -> str:
    if value is None:
        return "—"
    if how == "pct":
        return f"{100 * float(value):.1f}%"
    if isinstance(value, float) and not value.is_integer():
        return f"{value:,.2f}"
    return f"{int(value):,}"


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
    lines.append(f"| trajectories | {_fmt(stats.get('trajectories', 0), 'num')} | 1,781 (after filtering) |")
    return "\n".join(lines) + "\n"
