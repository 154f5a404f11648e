"""Stage ``bench build``: the curated task set executed on the simulator and checked (how the shipped one is made),
or with ``--propose`` candidate tasks from walks for a person to read."""

from __future__ import annotations

from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kopa_replay.bench.model import BuildSpec
from kopa_replay.errors import UsageError
from kopa_replay.stages.common import ExecSource
from kopa_replay.stages.options import as_dict, setting
from kopa_replay.stages.run_dir import atomic_run_dir, write_manifest

__all__ = ["Config", "Result", "run", "STAGE"]

STAGE = "bench-build"


@dataclass(frozen=True)
class Config:
    out: str | None = setting(None, "Where the task set is written.", path="dir", required=True)
    propose: bool = setting(
        False,
        "Write candidate tasks from walks over the intent table instead of the curated set (for a person to read).",
    )
    seed: tuple[int, ...] = setting((), "Walk seed of --propose (repeatable) [default: 0 to 5].")
    per_run: int = setting(BuildSpec.per_run, "Walks kept per synthesis run of --propose.")
    sim_seed: int = setting(0, "World seed of the simulator.")
    as_of: str = setting("2026-09-01", "Simulator as-of date.")
    world: str | None = setting(
        None,
        "Simulator world: full (the platforms' real sizes) or default (small) [curated: full; --propose: env "
        "KOPA_WORLD_SIZE, default full].",
    )

    def __post_init__(self) -> None:
        if not self.out:
            raise UsageError("bench build needs --out: where the task set is written")

    def spec(self) -> BuildSpec:
        return BuildSpec(seeds=tuple(self.seed) or BuildSpec.seeds, per_run=self.per_run)


@dataclass(frozen=True)
class Result:
    out: Path
    info: dict[str, Any]
    manifest: dict[str, Any]

    def to_dict(self) -> dict[str, Any]:
        return self.info


def run(config: Config, *, progress: Any = None) -> Result:
    from kopa_replay.bench.build import build_tasks, propose_tasks, summary
    from kopa_replay.bench.curated import curated_digest
    from kopa_replay.bench.suite import save_task_set
    from kopa_replay.catalog import builtin_catalog
    from kopa_replay.env.source import sim_world
    from kopa_replay.sim.world import World

    catalog, spec = builtin_catalog("builtin"), config.spec()
    final = Path(str(config.out))
    # the task files name the full-size world's entities: a curated build runs there unless told otherwise
    world_name = config.world or (None if config.propose else "full")
    where = ExecSource(
        source=f"sim:{world_name}" if world_name else "sim", sim_seed=config.sim_seed, as_of=config.as_of
    )
    world = sim_world(where.described()["source"])
    made_from = {} if config.propose else {"curated": curated_digest()}
    with atomic_run_dir(final) as work:
        modes = None
        with ExitStack() as stack:
            env = where.open_env(stack, catalog)
            if config.propose:
                tasks, plans = propose_tasks(catalog, env, spec, progress=progress)
            else:
                tasks, plans, modes = build_tasks(
                    catalog, env, World(config.sim_seed, world), config.as_of, progress=progress
                )
        info = {
            **summary(tasks, plans, modes),
            "source": "proposed" if config.propose else "curated",
            **made_from,
            **({"spec": spec.to_dict()} if config.propose else {}),
            "sim_seed": config.sim_seed,
            "as_of": config.as_of,
            "world": world,
        }
        save_task_set(work, tasks, plans, info)
        manifest = write_manifest(
            work,
            STAGE,
            config=as_dict(config),
            inputs={"catalog": catalog.digest(), **made_from},
            catalog=catalog.digest(),
            seed=list(spec.seeds),
            source=where.described(),
        )
    return Result(final, info, manifest)
