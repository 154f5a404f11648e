"""Stage ``graph prune``: execute sampled paths (Thompson sampling over Beta posteriors), cut the links that do
not execute; builds the candidate graph first when the run directory has none."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kopa_replay.errors import UsageError
from kopa_replay.graph.prune import PruneConfig
from kopa_replay.stages import graph_build
from kopa_replay.stages.common import INCIDENTS_HELP, ExecSource, ScaleOut, check_incidents, for_workers
from kopa_replay.stages.options import as_dict, setting
from kopa_replay.stages.run_dir import atomic_run_dir, file_digest, write_manifest

__all__ = ["Config", "Result", "run", "inputs", "STAGE"]

STAGE = "graph-prune"
_D = PruneConfig  # the loop's own defaults: one source


@dataclass(frozen=True)
class Config(graph_build.BuildSettings, ExecSource, ScaleOut):
    iterations: int = setting(_D.iterations, "Iterations of the loop.")
    paths: int = setting(_D.paths, "Sampled paths per iteration.")
    seed: int = setting(_D.seed, "Seed of the loop's sampling.")
    fault_rate: float = setting(0.0, "Share of simulator calls that fail environmentally (source sim).")
    incidents: str = setting("", INCIDENTS_HELP, metavar="SPEC")
    max_depth: int = setting(_D.max_depth, "Links per sampled path.")
    w_s: float = setting(_D.w_s, "Beta increment of a structural failure.")
    w_e: float = setting(_D.w_e, "Beta increment of an environmental failure.")
    threshold: float = setting(_D.threshold, "Viability: cut below this posterior mean.")
    min_trials: int = setting(_D.min_trials, "Trials before a link may be cut.")
    prior_strength: float = setting(
        _D.prior_strength, "Pseudo-trials the scorer's feasibility is worth in each link's prior."
    )
    batches: int = setting(
        _D.batches,
        "Split each iteration's paths into this many batches run against the posteriors of the iteration's start "
        "(batched Thompson sampling; 1: the paper's sequential loop). Batches are what --workers run in parallel; "
        "the graph depends on --batches, never on --workers or --executor.",
    )
    plots: bool = setting(True, "Draw scatter.png and curves.png.")

    def __post_init__(self) -> None:
        if not 0.0 <= self.fault_rate <= 1.0:
            raise UsageError(f"--fault-rate must lie in [0, 1], not {self.fault_rate}")
        check_incidents(self.incidents, self.source)
        self.loop()  # the loop's own checks, before anything runs
        self.executor_spec()

    def loop(self) -> PruneConfig:
        return PruneConfig(
            iterations=self.iterations,
            paths=self.paths,
            seed=self.seed,
            max_depth=self.max_depth,
            w_s=self.w_s,
            w_e=self.w_e,
            threshold=self.threshold,
            min_trials=self.min_trials,
            prior_strength=self.prior_strength,
            batches=self.batches,
        )

    def idle_workers(self) -> str | None:
        if self.batches == 1 and (self.executor, self.workers) != ("local", 1):
            return "--batches 1 is the sequential loop, which one process runs: set --batches B > 1 to use --workers"
        return None

    def described(self) -> dict[str, Any]:
        described = {**super().described(), "fault_rate": self.fault_rate}
        return {**described, "incidents": self.incidents} if self.incidents else described


@dataclass(frozen=True)
class Result:
    run_dir: Path
    report: dict[str, Any]
    manifest: dict[str, Any]

    def to_dict(self) -> dict[str, Any]:
        return self.report


def inputs(config: Config) -> dict[str, Any]:
    """The digests the pruned graph is a function of (with the config): the candidates (None: built by the
    stage from the config), the catalog, the replayed snapshot."""
    candidates = Path(config.run_dir) / "candidates.json"
    return {
        "candidates": file_digest(candidates) if candidates.exists() else None,
        "catalog": config.load_catalog().digest(),
        "snapshot": config.sealed_digest(),
    }


def run(config: Config, *, progress: Callable[[Any], None] | None = None) -> Result:
    """Prune ``RUN_DIR/candidates.json`` (built first when missing); ``progress`` is called with each iteration's
    :class:`~kopa_replay.graph.prune.IterationStats`."""
    from kopa_replay.graph.pipeline import prune_graph
    from kopa_replay.scale import open_executor

    catalog = config.load_catalog()
    final = Path(config.run_dir)
    with atomic_run_dir(final, keep=("candidates.json", "llm.sqlite", f"manifest-{graph_build.STAGE}.json")) as work:
        if not (work / "candidates.json").exists():
            config.build_into(catalog, work)
        made_of = {**inputs(config), "candidates": file_digest(work / "candidates.json")}
        with ExitStack() as stack:
            env = config.open_env(stack, catalog, fault_rate=config.fault_rate, incidents=config.incidents)
            spec = config.executor_spec()
            runner = None
            if config.batches > 1 and (spec.kind, spec.workers) != ("local", 1):
                executor = stack.enter_context(open_executor(spec))

                def runner(links: list) -> Any:
                    pool = executor.pool(PruneWorker, for_workers(config), catalog, links)
                    stack.callback(pool.close)  # before the executor: the workers' recorders commit
                    return lambda jobs: pool.run("run", jobs)

            report = prune_graph(
                catalog,
                work,
                env,
                config.loop(),
                source=config.described(),
                plots=config.plots,
                progress=progress,
                named=final,
                batch_runner=runner,
            )
        outputs = ["candidates.json", "graph.json", "prune.json", "iterations.jsonl"]
        manifest = write_manifest(
            work,
            STAGE,
            config=as_dict(config),
            inputs=made_of,
            outputs=outputs + (["scatter.png", "curves.png"] if config.plots else []),
            catalog=catalog.digest(),
            seed=config.seed,
            source=config.described(),
            graph_digest=report["graph_digest"],
        )
    return Result(final, report, manifest)


class PruneWorker:
    """Runs pruning batches in a worker process: the sampler and an environment over the stage's source, built once;
    each batch on the environment rewound (as if freshly opened), so a batch's outcome never depends on which worker
    ran it or what it ran before."""

    def __init__(self, config: Config, catalog: Any, links: list) -> None:
        from kopa_replay.graph.prune import PathSampler

        self.sampler = PathSampler(links, catalog)
        self._stack = ExitStack()
        self.env = config.open_env(self._stack, catalog, fault_rate=config.fault_rate, incidents=config.incidents)

    def run(self, job: Any) -> Any:
        self.env.rewind()
        return self.sampler.run_batch(job, self.env)

    def close(self) -> None:
        self._stack.close()
