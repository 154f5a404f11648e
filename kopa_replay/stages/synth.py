"""Stage ``synth``: walk the pruned graph into executed trajectories with typed junctions; write the SFT/GRPO
datasets and the corpus statistics."""

from __future__ import annotations

from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace
from typing import Any, Literal

from kopa_replay.errors import UsageError
from kopa_replay.stages.common import (
    CatalogChoice,
    Decontamination,
    ExecSource,
    LLMServer,
    ScaleOut,
    for_workers,
)
from kopa_replay.stages.options import as_dict, setting
from kopa_replay.stages.run_dir import atomic_run_dir, file_digest, write_manifest

__all__ = ["Config", "Result", "run", "inputs", "STAGE", "OUTPUTS"]

STAGE = "synth"
OUTPUTS = ("trajectories.jsonl", "sft.jsonl", "grpo.jsonl", "stats.json", "stats.md")
#: the walk's defaults (kopa_replay.synth.walk.SynthConfig; that module loads the whole synthesis, which the command
#: line must not at start-up): tests/stages/test_stages.py checks Config().walk() == SynthConfig()
_D = SimpleNamespace(
    trajectories=200, seed=0, fan_out_budget=5, max_links=3, page_budget=5, exclude_platforms=(), streams="one"
)


@dataclass(frozen=True)
class Config(CatalogChoice, ExecSource, LLMServer, Decontamination, ScaleOut):
    graph_dir: str = setting("runs/graph", "The run directory of `graph prune` (its graph.json).", path="dir")
    out: str = setting("runs/synth", "Where trajectories, SFT/GRPO datasets and statistics are written.", path="dir")
    trajectories: int = setting(_D.trajectories, "How many trajectories to keep.")
    seed: int = setting(_D.seed, "Seed of the walk.")
    fan_out_budget: int = setting(
        _D.fan_out_budget, "B: 1 value = sequential, 2..B = fan-out, more = derived (reduced to at most B first)."
    )
    max_links: int = setting(_D.max_links, "Links per trajectory at most.")
    page_budget: int = setting(_D.page_budget, "Pages read per step at most.")
    exclude_platform: tuple[str, ...] = setting(
        _D.exclude_platforms,
        "Never call this platform's tools (repeatable); the benchmark's held-out split is dart, krx and seoul.",
        metavar="PLATFORM",
    )
    streams: Literal["one", "attempt"] = setting(
        _D.streams,
        "The walk's random scheme. one: one stream for the whole walk, attempts strictly in turn; attempt: each "
        "attempt draws its own stream (seed, attempt number) on a rewound environment, so attempts can run in other "
        "processes with the same corpus for any number of them (not the corpus of --streams one).",
    )
    generator: Literal["families", "walk"] = setting(
        "families",
        "families: instances of the corpus families (kopa_replay/synth/families/*.yaml: who asks, several "
        "phrasings, a plan over links the pruned graph retains), slots drawn from what lookups return; walk: "
        "random walks over the retained links (the intent table phrases them).",
    )
    families: str | None = setting(
        None, "A directory of corpus-family files instead of the shipped ones (--generator families).", path="dir"
    )
    realtime: bool = setting(
        False,
        "Keep families over real-time data (bus arrivals and positions: answers change minute to minute, so they "
        "are no stable training label; off by default).",
    )
    writer: Literal["intent", "template", "llm"] = setting(
        "intent",
        "intent: questions a person would ask (the families' phrasings; for the walk, the intent table, which keeps "
        "the walk to the links it gives a meaning); template: the old call-script questions over every retained "
        "link (the walk only, an ablation); llm: a model over an OpenAI-compatible server rewrites each question "
        "(never-expose rule and five-item self-check in its prompt; the family's or intent table's question is "
        "its draft).",
    )
    intents: str | None = setting(
        None,
        "An intent table (YAML, the format of kopa_replay/synth/intents.yaml) "
        "instead of the shipped one; needed for --writer intent|llm over another "
        "catalog.",
        path="file",
    )

    def idle_workers(self) -> str | None:
        if self.generator == "families" and (self.executor, self.workers) != ("local", 1):
            return "--generator families runs in one process (it takes seconds per hundred items)"
        if self.streams == "one" and (self.executor, self.workers) != ("local", 1):
            return "--streams one is the sequential walk, which one process runs: --streams attempt uses --workers"
        return None

    def walk(self) -> Any:
        from kopa_replay.synth.walk import SynthConfig

        return SynthConfig(
            trajectories=self.trajectories,
            seed=self.seed,
            fan_out_budget=self.fan_out_budget,
            max_links=self.max_links,
            page_budget=self.page_budget,
            exclude_platforms=tuple(sorted(self.exclude_platform)),
            streams=self.streams,
        )

    def family_config(self) -> Any:
        from kopa_replay.synth.families import FamilyConfig

        return FamilyConfig(
            trajectories=self.trajectories,
            seed=self.seed,
            exclude_platforms=tuple(sorted(self.exclude_platform)),
            realtime=self.realtime,
        )

    def __post_init__(self) -> None:
        if self.generator == "families" and self.writer == "template":
            raise UsageError("--writer template phrases walks: use it with --generator walk")
        if self.generator == "walk" and (self.families or self.realtime):
            raise UsageError("--families and --realtime choose corpus families: use them with --generator families")
        if self.generator == "families":
            walk_only = {
                "--fan-out-budget": self.fan_out_budget != _D.fan_out_budget,
                "--max-links": self.max_links != _D.max_links,
                "--page-budget": self.page_budget != _D.page_budget,
                "--intents": self.intents is not None,
                "--streams": self.streams != _D.streams,
            }
            given = [flag for flag, set_ in walk_only.items() if set_]
            if given:
                raise UsageError(
                    f"{', '.join(given)} steer the random walk: use them with --generator walk "
                    "(a family's plan says its own cuts and reads every page)"
                )
        self.walk()  # the walk's own checks, before anything runs
        spec = self.executor_spec()
        if self.streams == "attempt" and (spec.kind, spec.workers) != ("local", 1) and self.records():
            raise UsageError(
                "--streams attempt on several workers runs attempts ahead of the walk, and a recording would keep "
                "requests the walk never makes: record with --workers 1, then run on the snapshot with any --workers"
            )


@dataclass(frozen=True)
class Result:
    out: Path
    stats: dict[str, Any]
    manifest: dict[str, Any]

    def to_dict(self) -> dict[str, Any]:
        return self.stats


def inputs(config: Config) -> dict[str, Any]:
    """The digests the corpus is a function of (with the config)."""
    graph = Path(config.graph_dir) / "graph.json"
    return {
        "graph": file_digest(graph) if graph.exists() else None,
        "catalog": config.load_catalog().digest(),
        "snapshot": config.sealed_digest(),
        "bench_tasks": config.task_set_digest(),
        "intents": file_digest(config.intents) if config.intents else None,
        "families": _families_digest(config) if config.generator == "families" else None,
    }


def _families_digest(config: Config) -> str:
    from kopa_replay.synth.families import families_digest

    return families_digest(config.families)


def run(config: Config, *, progress: Any = None) -> Result:
    """Synthesize into ``config.out`` (atomically; recorded model answers there are kept)."""
    from kopa_replay.synth.pipeline import retained_links, run_synthesis

    catalog = config.load_catalog()
    unknown = sorted(set(config.exclude_platform) - {tool.platform for tool in catalog})
    if unknown:
        raise UsageError(
            f"--exclude-platform: no platform {', '.join(unknown)} in the catalog "
            f"(platforms: {', '.join(sorted({tool.platform for tool in catalog}))})"
        )
    graph = Path(config.graph_dir) / "graph.json"
    links = retained_links(graph, catalog)
    exclude = config.decontaminator()
    intents = None
    if config.writer != "template" and config.generator == "walk":
        from kopa_replay.synth.intents import load_intents

        intents = load_intents(config.intents, catalog=catalog)
    made_of = inputs(config)
    final = Path(config.out)
    # the model's recording (an ExitStack inside the run directory's block) is closed before the rename
    with atomic_run_dir(final, keep=("llm.sqlite",)) as work, ExitStack() as stack:
        from kopa_replay.synth.questions import IntentWriter, LLMWriter, TemplateWriter

        if config.generator == "families":
            from kopa_replay.synth.families import FamilyDraft, load_families
            from kopa_replay.synth.pipeline import run_family_synthesis

            families = load_families(config.families)
            rewriter = (
                LLMWriter(config.chat_client(stack, work, "--writer"), draft=FamilyDraft())
                if config.writer == "llm"
                else None
            )
            stats = run_family_synthesis(
                catalog,
                links,
                config.open_env(stack, catalog),
                work,
                config.family_config(),
                families,
                rewriter,
                exclude=exclude,
                progress=progress,
            )
            stats = _with_contamination(config, work, stats)
            manifest = _manifest(work, config, catalog, made_of, stats)
            return Result(final, stats, manifest)
        chosen: Any = {
            "intent": lambda: IntentWriter(intents),
            "template": TemplateWriter,
            "llm": lambda: LLMWriter(config.chat_client(stack, work, "--writer"), draft=IntentWriter(intents)),
        }[config.writer]()
        env = config.open_env(stack, catalog)
        spec = config.executor_spec()
        run_attempts, width = None, None
        if config.streams == "attempt" and (spec.kind, spec.workers) != ("local", 1):
            from kopa_replay.scale import open_executor

            pool = stack.enter_context(open_executor(spec)).pool(
                SynthWorker, for_workers(config), catalog, links, intents
            )
            stack.callback(pool.close)

            def run_attempts(jobs: list) -> list:
                return pool.run("run", jobs)

            # attempts guessed ahead per block: enough to keep every worker busy; the corpus never depends on it
            width = 2 * spec.workers
        stats = run_synthesis(
            catalog,
            links,
            env,
            work,
            config.walk(),
            chosen,
            exclude=exclude,
            intents=intents,
            progress=progress,
            run_attempts=run_attempts,
            width=width,
        )
        stats = _with_contamination(config, work, stats)
        manifest = _manifest(work, config, catalog, made_of, stats)
    return Result(final, stats, manifest)


def _with_contamination(config: Config, work: Path, stats: dict[str, Any]) -> dict[str, Any]:
    """The statistics with the audit's measures against the benchmark (``stats.json`` and ``stats.md`` too)."""
    from kopa_replay.synth.export import read_jsonl
    from kopa_replay.synth.pipeline import SynthDir, extend_stats

    found = config.contamination(read_jsonl(SynthDir(work).trajectories))
    if found is None or not stats.get("trajectories"):
        return stats
    extend_stats(work, {"contamination": found})
    return {**stats, "contamination": found}


def _manifest(work: Path, config: Config, catalog: Any, made_of: dict[str, Any], stats: dict[str, Any]) -> Any:
    return write_manifest(
        work,
        STAGE,
        config=as_dict(config),
        inputs=made_of,
        outputs=list(OUTPUTS),
        catalog=catalog.digest(),
        seed=config.seed,
        source=config.described(),
        output_digest=stats["output_digest"],
    )


class SynthWorker:
    """Runs walk attempts in a worker process (``--streams attempt``): the walker and an environment over the stage's
    source, built once; each attempt on the environment rewound, from its own random stream, so its outcome is the
    same whichever worker runs it."""

    def __init__(self, config: Config, catalog: Any, links: Any, intents: Any) -> None:
        from kopa_replay.synth.walk import AttemptRunner

        self.runner = AttemptRunner(catalog, links, config.walk(), intents)
        self._stack = ExitStack()
        self.env = config.open_env(self._stack, catalog)

    def run(self, job: Any) -> Any:
        return self.runner.run(job, self.env)

    def close(self) -> None:
        self._stack.close()
