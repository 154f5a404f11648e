"""``pipeline run``: the whole EDGE pipeline on a pinned snapshot, resumable stage by stage, with one report.

graph build → prune → synth → filter → bench (the oracle and the two failure-mode baselines) → audit → drift →
report, each into its own directory under OUT. A stage whose key (its config and its inputs' digests) and
outputs are unchanged since its manifest was written is skipped, so a second run with nothing changed skips
every stage and writes the same ``OUT/manifest.json``.

Where the stages execute tools: against the source the snapshot was recorded from when that is the simulator
(the same world, seed and date: new requests are answered as the snapshot's would have been), else by strict
replay of the snapshot (a request it never recorded fails). The benchmark runs by strict replay of the
snapshot in either case.

Presets: ``quick`` (the default; a couple of minutes on two cores) prunes 20 iterations × 200 paths and
synthesizes 100 trajectories; ``paper`` uses the paper's 100 × 500 pruning, 200 trajectories and pass@4.
"""

from __future__ import annotations

import inspect
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from kopa_replay.errors import UsageError
from kopa_replay.stages.common import STORE_HELP, ExecSource, ScaleOut
from kopa_replay.stages.options import as_dict, setting
from kopa_replay.stages.run_dir import digest_of, is_current, stage_key, tree_digests
from kopa_replay.util import write_atomic

__all__ = ["Config", "Result", "StageRun", "run", "PRESETS", "BASELINES"]

#: per preset: prune iterations and paths, trajectories, rollouts per task
PRESETS: dict[str, dict[str, int]] = {
    "quick": {"iterations": 20, "paths": 200, "trajectories": 100, "rollouts": 1},
    "paper": {"iterations": 100, "paths": 500, "trajectories": 200, "rollouts": 4},
}
BASELINES: tuple[Literal["oracle", "skip-lookup", "first-page"], ...] = ("oracle", "skip-lookup", "first-page")


@dataclass(frozen=True)
class Config(ScaleOut):
    snapshot: str = setting("2026-09-01", "The pinned snapshot the pipeline runs on (the embedded default).")
    preset: Literal["quick", "paper"] = setting(
        "quick",
        "quick: 20 x 200 pruning, 100 trajectories, pass@1 (a "
        "couple of minutes); paper: the paper's 100 x 500, 200 "
        "trajectories, pass@4.",
    )
    out: str = setting("runs/pipeline", "Where every stage's directory, report.html and report.md go.", path="dir")
    seed: int = setting(0, "Seed of the pruning loop and of the walk.")
    store: str | None = setting(None, STORE_HELP, envvar="KOPA_STORE", path="file")
    drift_against: str | None = setting(
        None,
        "The snapshot the drift summary compares with [default: the newest "
        "other one; none: a refresh from the simulator].",
    )

    batches: int = setting(
        1, "Pruning batches per iteration (graph prune --batches: the unit --workers run in parallel; 1: sequential)."
    )
    generator: Literal["families", "walk"] = setting(
        "families", "How synth makes the corpus (synth --generator): the corpus families, or random walks."
    )
    streams: Literal["one", "attempt"] = setting(
        "one",
        "The walk's random streams (synth --streams, with --generator walk: attempt lets --workers run attempts in "
        "parallel).",
    )

    def __post_init__(self) -> None:
        if self.preset not in PRESETS:
            raise UsageError(f"--preset must be one of {', '.join(PRESETS)}, not {self.preset!r}")
        self.executor_spec()

    @property
    def scale_out(self) -> dict[str, Any]:
        """The executor settings every stage that runs shards gets (how it runs, never what it computes)."""
        return {"executor": self.executor, "workers": self.workers, "ray_address": self.ray_address}


@dataclass(frozen=True)
class StageRun:
    name: str
    #: the stage module's name for it (its manifest is DIRECTORY/manifest-STAGE.json)
    stage: str
    directory: Path
    skipped: bool
    manifest: dict[str, Any]


@dataclass(frozen=True)
class Result:
    out: Path
    stages: list[StageRun]
    manifest: dict[str, Any]
    digest: str
    report_html: Path
    report_md: Path
    #: what each stage returned (the stage's Result), for the stages that ran
    results: dict[str, Any] = field(default_factory=dict)


def _execution(config: Config) -> ExecSource:
    """Where the stages that make new requests execute (see the module docstring)."""
    from kopa_replay.env.source import is_sim, recorded_sim_source
    from kopa_replay.record import Store
    from kopa_replay.record.store import replay_store_path

    with Store(replay_store_path(config.snapshot, config.store), readonly=True) as store:
        pinned = store.snapshot(config.snapshot)
    if not pinned.sealed:
        raise UsageError(
            f"snapshot {config.snapshot} is not sealed: seal it (kopa-replay snapshot seal "
            f"{config.snapshot}) before a pipeline pins it"
        )
    if is_sim(pinned.source):  # the world it was recorded on
        source = recorded_sim_source(pinned.source)
        return ExecSource(source=source, sim_seed=pinned.seed or 0, as_of=pinned.as_of or config.snapshot)
    return ExecSource(source="replay", snapshot=config.snapshot, store=config.store)


def _steps(config: Config) -> list[tuple[str, Any, Any]]:
    """(name, stage module, stage config) in order."""
    from kopa_replay.stages import bench_audit, bench_run, drift, filter, graph_build, graph_prune, synth

    out, preset, where = Path(config.out), PRESETS[config.preset], _execution(config)
    source: dict[str, Any] = {
        "source": where.source,
        "sim_seed": where.sim_seed,
        "as_of": where.as_of,
        "snapshot": where.snapshot,
        "store": where.store,
    }
    graph_dir = str(out / "graph")
    steps: list[tuple[str, Any, Any]] = [
        ("graph-build", graph_build, graph_build.Config(run_dir=graph_dir)),
        (
            "graph-prune",
            graph_prune,
            graph_prune.Config(
                run_dir=graph_dir,
                iterations=preset["iterations"],
                paths=preset["paths"],
                seed=config.seed,
                plots=True,
                batches=config.batches,
                **source,
                **config.scale_out,
            ),
        ),
        (
            "synth",
            synth,
            synth.Config(
                graph_dir=graph_dir,
                out=str(out / "synth"),
                trajectories=preset["trajectories"],
                seed=config.seed,
                generator=config.generator,
                streams=config.streams,
                **source,
                **config.scale_out,
            ),
        ),
        ("filter", filter, filter.Config(in_dir=str(out / "synth"), out=str(out / "filter"), **source)),
    ]
    for agent in BASELINES:
        steps.append(
            (
                f"bench-{agent}",
                bench_run,
                bench_run.Config(
                    agent=agent,
                    snapshot=config.snapshot,
                    k=preset["rollouts"],
                    out=str(out / "bench" / agent),
                    store=config.store,
                    **config.scale_out,
                ),
            )
        )
    steps.append(
        (
            "audit",
            bench_audit,
            bench_audit.Config(train=str(out / "filter" / "trajectories.jsonl"), out=str(out / "audit")),
        )
    )
    steps.append(
        (
            "drift",
            drift,
            drift.Config(
                snapshot=config.snapshot, against=config.drift_against, store=config.store, out=str(out / "drift")
            ),
        )
    )
    return steps


def run(config: Config, *, progress: Any = None, on_stage: Callable[[str, str], None] | None = None) -> Result:
    """Run (or skip) every stage, then write the report and ``OUT/manifest.json``.

    ``on_stage(name, event)`` hears ``start``, ``done`` or ``skipped`` for each stage (the CLI prints it);
    ``progress`` is the stages' progress hook (:data:`kopa_replay.util.Progress`)."""
    from kopa_replay.stages.report import write_report
    from kopa_replay.stages.run_dir import read_manifest

    def tell(name: str, event: str) -> None:
        if on_stage is not None:
            on_stage(name, event)

    out = Path(config.out)
    runs: list[StageRun] = []
    results: dict[str, Any] = {}
    for name, module, stage_config in _steps(config):
        # the key is computed when the stage comes up: its inputs are the outputs of the stages before it
        key = stage_key(module.STAGE, as_dict(stage_config), module.inputs(stage_config))
        directory = _directory(stage_config)
        current = is_current(directory, module.STAGE, key)
        if current is not None:
            runs.append(StageRun(name, module.STAGE, directory, True, current))
            tell(name, "skipped")
            continue
        tell(name, "start")
        results[name] = module.run(stage_config, **_progress_argument(module, stage_config, progress))
        manifest = read_manifest(directory, module.STAGE) or {}
        runs.append(StageRun(name, module.STAGE, directory, False, manifest))
        tell(name, "done")
    report = write_report(out)
    manifest = {
        "pipeline": as_dict(config),
        "stages": [
            {
                "name": r.name,
                "stage": r.stage,
                "directory": r.directory.relative_to(out).as_posix(),
                "key": r.manifest.get("key"),
                "outputs": r.manifest.get("outputs", {}),
            }
            for r in runs
        ],
        "report": tree_digests(out, only=["report.html", "report.md"]),
    }
    digest = digest_of(manifest)
    write_atomic(
        out / "manifest.json",
        json.dumps({**manifest, "digest": digest}, ensure_ascii=False, sort_keys=True, indent=2) + "\n",
    )
    return Result(out, runs, manifest, digest, report.html, report.markdown, results)


def _directory(stage_config: Any) -> Path:
    for name in ("run_dir", "out"):
        if getattr(stage_config, name, None):
            return Path(getattr(stage_config, name))
    raise AssertionError(f"a pipeline stage without a directory: {stage_config!r}")


def _progress_argument(module: Any, stage_config: Any, progress: Any) -> dict[str, Any]:
    """The progress hook a stage's ``run`` takes, if any: the prune loop reports iterations (counted against the
    configured total), the other stages items done (:data:`kopa_replay.util.Progress`)."""
    if progress is None or "progress" not in inspect.signature(module.run).parameters:
        return {}
    if module.STAGE == "graph-prune":
        return {"progress": lambda stats: progress("pruning (iterations)", stats.iteration, stage_config.iterations)}
    return {"progress": progress}
