"""Stage ``drift`` (of the pipeline): what changed between the pinned snapshot and the newest other one.

``against`` names the other snapshot; by default the newest other sealed snapshot of the store that holds the
pinned one. When there is none and the pinned snapshot was recorded from the simulator, the stage refreshes it
from the simulator at the last date of its drift timeline into a copy of the store inside its own directory
(``store.sqlite``: the user's store and the shipped one are never written), so the report always has a drift
summary to show; a snapshot recorded from elsewhere with no other snapshot gets ``compared: null``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kopa_replay.stages.common import STORE_HELP, CatalogChoice, sealed_digest
from kopa_replay.stages.options import as_dict, setting
from kopa_replay.stages.run_dir import atomic_run_dir, write_manifest

__all__ = ["Config", "Result", "run", "inputs", "STAGE"]

STAGE = "drift"


@dataclass(frozen=True)
class Config(CatalogChoice):
    snapshot: str = setting("2026-09-01", "The pinned snapshot.")
    against: str | None = setting(
        None,
        "The snapshot to compare with [default: the newest other sealed snapshot "
        "of the store; none: a refresh from the simulator at the timeline's last "
        "date].",
    )
    store: str | None = setting(None, STORE_HELP, envvar="KOPA_STORE", path="file")
    out: str = setting("runs/drift", "Where drift.json and drift.md are written.", path="dir")


@dataclass(frozen=True)
class Result:
    out: Path
    compared: dict[str, Any] | None
    report: Any
    manifest: dict[str, Any]


def _plan(config: Config) -> dict[str, Any]:
    """Which comparison the stage makes: the store, the two snapshots, and whether the newer one is made."""
    from kopa_replay.env.source import is_sim, recorded_sim_source
    from kopa_replay.record import Store
    from kopa_replay.record.store import replay_store_path
    from kopa_replay.sim import events_between

    path = replay_store_path(config.snapshot, config.store)
    with Store(path, readonly=True) as store:
        pinned = store.snapshot(config.snapshot)
        if config.against:
            store.snapshot(config.against)
            return {"store": str(path), "before": config.snapshot, "after": config.against, "refreshed": False}
        others = sorted(
            (s for s in store.snapshots() if s.sealed and s.name != config.snapshot),
            key=lambda s: (s.as_of or "", s.name),
        )
    if others:
        return {"store": str(path), "before": config.snapshot, "after": others[-1].name, "refreshed": False}
    if not is_sim(pinned.source):
        return {"store": str(path), "before": config.snapshot, "after": None, "refreshed": False}
    last = max(event.date for event in events_between()).isoformat()
    return {
        "store": str(path),
        "before": config.snapshot,
        "after": last,
        "refreshed": True,
        "as_of": last,
        "seed": pinned.seed or 0,
        "source": recorded_sim_source(pinned.source),  # the world the snapshot was recorded on
    }


def inputs(config: Config, plan: dict[str, Any] | None = None) -> dict[str, Any]:
    """The digests the summary is a function of: both sealed snapshots (a refresh: the date it refreshes to)."""
    plan = plan or _plan(config)
    after = plan["after"] if not plan["refreshed"] else None
    return {
        "before": sealed_digest(config.snapshot, config.store),
        "after": sealed_digest(after, plan["store"]) if after else plan["after"],
        "catalog": config.load_catalog().digest(),
    }


def run(config: Config, *, progress: Any = None) -> Result:
    from kopa_replay.drift import drift_report, render
    from kopa_replay.record import Store
    from kopa_replay.record.snapshots import copy_store
    from kopa_replay.stages.workflows import refresh_snapshot
    from kopa_replay.util import write_atomic

    catalog, plan = config.load_catalog(), _plan(config)
    made_of = inputs(config, plan)
    report = None
    with atomic_run_dir(Path(config.out)) as work:
        if plan["refreshed"]:
            copy = work / "store.sqlite"
            copy_store(plan["store"], copy)  # with its manifests: the refresh pins its base
            summary = refresh_snapshot(
                catalog,
                store_path=copy,
                base=config.snapshot,
                snapshot=plan["after"],
                source=plan["source"],
                as_of=plan["as_of"],
                seed=plan["seed"],
                progress=progress,
            )
            report = summary.report
        elif plan["after"]:
            with Store(plan["store"], readonly=True) as store:
                report = drift_report(store, catalog, config.snapshot, plan["after"])
        compared = {k: plan[k] for k in ("before", "after", "refreshed")} if plan["after"] else None
        if report is not None:
            write_atomic(work / "drift.json", render(report, "json"))
            write_atomic(work / "drift.md", render(report, "markdown"))
        write_atomic(work / "compared.json", json.dumps(compared, sort_keys=True, indent=2) + "\n")
        outputs = ["compared.json"] + (["drift.json", "drift.md"] if report is not None else [])
        manifest = write_manifest(
            work,
            STAGE,
            config=as_dict(config),
            inputs=made_of,
            outputs=outputs,
            compared=compared,
            catalog=catalog.digest(),
        )
    return Result(Path(config.out), compared, report, manifest)
