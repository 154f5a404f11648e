"""How much of each defect the filter catches, for either injector, over several seeds; a table of it.

Two injectors make labelled defects from the same clean items:
``seeded`` (:mod:`kopa_replay.filter.defects`, one pool, sources disjoint
across kinds) and ``independent`` (:mod:`kopa_replay.filter.adversary`,
written without the filter's code). :func:`measure_independent` measures the
second one kind by kind — each kind in its own pool, the clean items with that
kind's copies in place of their sources (a paraphrase joins its original) —
because seven kinds of fifteen would leave too few clean items in one pool. A
paraphrase counts as caught when its copy is dropped, or its original is
dropped as a near-duplicate of it: either way the pair is resolved. A clean
item counts as dropped when any pool it was untouched in drops it.

:func:`measure_many` runs both over seeds with one memoizing planner (a leak
changes only the question, so its plan is not executed again);
:func:`defects_table` prints the result.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from kopa_replay.errors import UsageError
from kopa_replay.filter.model import Judge, Planner
from kopa_replay.synth.model import Trajectory

__all__ = ["INJECTORS", "MemoPlanner", "measure_independent", "measure_many", "defects_table"]

INJECTORS = ("seeded", "independent")


class MemoPlanner:
    """A planner that remembers each re-run and each candidate list, keyed by the whole trajectory but its
    question (argument order kept: a copy with shuffled arguments is run, not assumed equal). Safe because every
    run resets the environment first."""

    def __init__(self, planner: Planner) -> None:
        self.planner = planner
        self.Perturbation = getattr(planner, "Perturbation")
        self._runs: dict[tuple, Any] = {}
        self._candidates: dict[tuple, tuple] = {}
        self._keys: dict[int, tuple[Trajectory, str]] = {}  # by object, holding it so its id is not reused

    def _key(self, trajectory: Trajectory) -> str:
        known = self._keys.get(id(trajectory))
        if known is not None and known[0] is trajectory:
            return known[1]
        key = self._plan_key(trajectory)
        self._keys[id(trajectory)] = (trajectory, key)
        return key

    @staticmethod
    def _plan_key(trajectory: Trajectory) -> str:
        t = trajectory
        # meta["calls"] (the records each call returned, for the SFT export) is left out: it is large and no
        # re-run reads it
        return json.dumps(
            [
                t.id,
                t.pattern,
                t.handed,
                t.state_digest,
                [t.answer.kind, t.answer.value, t.answer.tolerance, t.answer.derivation, t.answer.unit],
                [[s.index, s.tool, list(s.args.items()), s.group] for s in t.steps],
                [
                    [
                        j.source,
                        j.target,
                        dict(j.binding),
                        j.kind,
                        j.cardinality,
                        j.distinct,
                        list(j.values),
                        None
                        if j.reduction is None
                        else [j.reduction.op, j.reduction.field, j.reduction.threshold, j.reduction.kept],
                    ]
                    for j in t.junctions
                ],
                {k: v for k, v in t.meta.items() if k != "calls"},
            ],
            ensure_ascii=False,
            sort_keys=True,
            default=str,
        )

    def run_plan(
        self, trajectory: Trajectory, catalog: Any, env: Any, *, perturb: Any = None, complete: bool = False
    ) -> Any:
        changed = (
            None
            if perturb is None
            else json.dumps([perturb.junction, list(perturb.values)], sort_keys=True, ensure_ascii=False, default=str)
        )
        key = (self._key(trajectory), changed, complete)
        if key not in self._runs:
            self._runs[key] = self.planner.run_plan(trajectory, catalog, env, perturb=perturb, complete=complete)
        return self._runs[key]

    def candidate_values(self, trajectory: Trajectory, catalog: Any, env: Any, junction: int) -> tuple:
        key = (self._key(trajectory), junction)
        if key not in self._candidates:
            self._candidates[key] = tuple(self.planner.candidate_values(trajectory, catalog, env, junction))
        return self._candidates[key]


def _counts(ids: Sequence[str], caught: Sequence[str], checks: Mapping[str, str], intended: str) -> dict[str, Any]:
    by_check: dict[str, int] = {}
    for i in caught:
        by_check[checks[i]] = by_check.get(checks[i], 0) + 1
    hit = by_check.get(intended, 0)
    return {
        "injected": len(ids),
        "caught": len(caught),
        "rate": len(caught) / len(ids) if ids else None,
        "intended_rate": hit / len(ids) if ids else None,
        "by_check": dict(sorted(by_check.items())),
        "missed": sorted(set(ids) - set(caught)),
    }


def measure_independent(
    clean: Sequence[Trajectory],
    catalog: Any,
    env: Any,
    *,
    seed: int = 0,
    per_kind: int = 10,
    judges: Sequence[Judge] | None = None,
    planner: Planner | None = None,
    config: Any = None,
) -> dict[str, Any]:
    """Recall per kind of :mod:`~kopa_replay.filter.adversary`'s defects and the clean drop rate (module docstring)."""
    from kopa_replay.filter.adversary import ADVERSARY_KINDS, INTENDED_CHECK, craft_defects
    from kopa_replay.filter.pipeline import default_planner, run_filter

    planner = planner if planner is not None else default_planner()
    if not isinstance(planner, MemoPlanner):
        planner = MemoPlanner(planner)  # seven pools share most of their plans
    crafted = craft_defects(clean, catalog, env, seed=seed, per_kind=per_kind, planner=planner)
    report: dict[str, Any] = {
        "injector": "independent",
        "input": len(clean),
        "seed": seed,
        "defects": {},
        "crafted": [{"kind": c.kind, "id": c.trajectory.id, "source": c.source, "detail": c.detail} for c in crafted],
    }
    untouched: set[str] = set()
    dropped: dict[str, tuple] = {}
    for kind in ADVERSARY_KINDS:
        batch = [c for c in crafted if c.kind == kind]
        if kind == "paraphrase":
            pool = [*clean, *(c.trajectory for c in batch)]
        else:
            copies = {c.source: c.trajectory for c in batch}
            pool = [copies.get(t.id, t) for t in clean]
        touched = {c.source for c in batch}
        reasons = run_filter(pool, catalog, env, judges, config=config, planner=planner).reasons() if batch else {}
        caught: list[str] = []
        checks: dict[str, str] = {}
        for c in batch:
            mine = reasons.get(c.trajectory.id)
            if mine is None and kind == "paraphrase":
                original = reasons.get(c.source)
                mine = original if original is not None and original.check == "near_duplicate" else None
            if mine is not None:
                caught.append(c.trajectory.id)
                checks[c.trajectory.id] = mine.check
        report["defects"][kind] = _counts([c.trajectory.id for c in batch], caught, checks, INTENDED_CHECK[kind])
        report["defects"][kind]["reasons"] = {i: reasons[i].detail for i in caught if i in reasons}
        if not batch:
            continue
        for item in clean:
            if item.id in touched:
                continue
            untouched.add(item.id)
            if item.id in reasons and item.id not in dropped:
                dropped[item.id] = tuple(reasons[item.id])
    report["clean"] = {
        "items": len(untouched),
        "dropped": len(dropped),
        "rate": len(dropped) / len(untouched) if untouched else None,
        "dropped_reasons": [dropped[i] for i in sorted(dropped)],
    }
    return report


def measure_many(
    clean: Sequence[Trajectory],
    catalog: Any,
    env: Any,
    *,
    injectors: Sequence[str] = INJECTORS,
    seeds: Sequence[int] = (0, 1, 2),
    per_kind: int = 15,
    judges: Sequence[Judge] | None = None,
    planner: Planner | None = None,
    config: Any = None,
) -> dict[str, Any]:
    """:func:`kopa_replay.filter.defects.measure` per injector and seed on the same clean items, summed per kind
    over the seeds (``injectors.<name>.defects``, ``.clean``; each seed's report under ``.runs``)."""
    from kopa_replay.filter.defects import measure
    from kopa_replay.filter.pipeline import default_planner

    unknown = [i for i in injectors if i not in INJECTORS]
    if unknown or not injectors:
        raise UsageError(f"injectors must be some of {', '.join(INJECTORS)}, not {list(injectors)}")
    if not seeds:
        raise UsageError("give at least one seed")
    if per_kind < 1:
        raise UsageError(f"per_kind must be at least 1, not {per_kind}")
    memo = MemoPlanner(planner if planner is not None else default_planner())
    out: dict[str, Any] = {"input": len(clean), "seeds": list(seeds), "per_kind": per_kind, "injectors": {}}
    for injector in injectors:
        runs = [
            measure(
                clean,
                catalog,
                env,
                seed=seed,
                per_kind=per_kind,
                judges=judges,
                planner=memo,
                config=config,
                injector=injector,
            )
            for seed in seeds
        ]
        kinds: dict[str, dict[str, Any]] = {}
        for run in runs:
            for kind, entry in run["defects"].items():
                total = kinds.setdefault(kind, {"injected": 0, "caught": 0, "intended": 0, "missed": []})
                total["injected"] += entry["injected"]
                total["caught"] += entry["caught"]
                total["intended"] += round((entry["intended_rate"] or 0) * entry["injected"])
                total["missed"] += [f"seed {run['seed']}: {i}" for i in entry["missed"]]
        for total in kinds.values():
            n = total["injected"]
            total["rate"] = total["caught"] / n if n else None
            total["intended_rate"] = total["intended"] / n if n else None
        items = sum(run["clean"]["items"] for run in runs)
        dropped = sum(run["clean"]["dropped"] for run in runs)
        out["injectors"][injector] = {
            "defects": kinds,
            "clean": {
                "items": items,
                "dropped": dropped,
                "rate": dropped / items if items else None,
                "dropped_reasons": [r for run in runs for r in run["clean"]["dropped_reasons"]],
            },
            "runs": runs,
        }
    return out


def _pct(x: float | None) -> str:
    return "—" if x is None else f"{x:.1%}"


def defects_table(summary: Mapping[str, Any]) -> str:
    """A :func:`measure_many` summary as text: per injector and kind, injected, caught, recall and the recall of
    the intended check; then per injector the clean items, how many the filter dropped, and the rate."""
    lines = [f"{'injector':<12} {'kind':<14} {'injected':>8} {'caught':>7} {'recall':>7} {'intended':>9}"]
    for injector, entry in summary["injectors"].items():
        for kind, row in entry["defects"].items():
            lines.append(
                f"{injector:<12} {kind:<14} {row['injected']:>8} {row['caught']:>7} "
                f"{_pct(row['rate']):>7} {_pct(row['intended_rate']):>9}"
            )
    lines += ["", f"{'injector':<12} {'clean items':>11} {'dropped':>8} {'rate':>7}"]
    for injector, entry in summary["injectors"].items():
        clean = entry["clean"]
        lines.append(f"{injector:<12} {clean['items']:>11} {clean['dropped']:>8} {_pct(clean['rate']):>7}")
    seeds = ", ".join(str(s) for s in summary["seeds"])
    lines += [
        "",
        f"{summary['input']} items in; seeds {seeds}; at most {summary['per_kind']} defects per kind and "
        "seed; clean items are those a pool left untouched, summed over the seeds",
    ]
    return "\n".join(lines)
