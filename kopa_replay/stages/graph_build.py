"""Stage ``graph build``: retrieve candidate links per tool, score their bindings, save ``candidates.json``."""

from __future__ import annotations

from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from kopa_replay.errors import UsageError
from kopa_replay.stages.common import STORE_HELP, CatalogChoice
from kopa_replay.stages.options import as_dict, setting
from kopa_replay.stages.run_dir import atomic_run_dir, write_manifest

__all__ = ["Config", "Result", "run", "inputs", "STAGE"]

STAGE = "graph-build"
#: what a rebuild keeps of the run directory: the model's recorded answers (a rebuild is then offline)
KEEP = ("llm.sqlite",)


@dataclass(frozen=True)
class BuildSettings(CatalogChoice):
    """How the candidate graph is built (``graph prune`` builds it with these when the run directory has none)."""

    run_dir: str = setting("runs/graph", "Where the graph, report and plots are written.", path="dir")
    same_domain: int = setting(15, "Candidate targets per tool from its own domain.")
    cross_domain: int = setting(10, "Candidate targets per tool from other domains.")
    min_score: float = setting(0.3, "Drop candidates the scorer rates below this feasibility.")
    embedder: str = setting(
        "hashed", "hashed (character n-gram TF-IDF, no download) or the path of a local encoder model."
    )
    scorer: Literal["semantic", "llm"] = setting(
        "semantic", "semantic (offline synonym groups and formats) or llm (an OpenAI-compatible server)."
    )
    llm_url: str | None = setting(
        None,
        "Base URL of the OpenAI-compatible server (--scorer llm) [env KOPA_LLM_URL], e.g. http://127.0.0.1:8000/v1.",
        envvar="KOPA_LLM_URL",
    )
    llm_model: str | None = setting(
        None,
        "Model name for --scorer llm [env KOPA_LLM_MODEL]; its answers are "
        "recorded in RUN_DIR/llm.sqlite (or --store) and replayed on rebuilds.",
        envvar="KOPA_LLM_MODEL",
    )
    store: str | None = setting(None, STORE_HELP, envvar="KOPA_STORE", path="file")

    def build_settings(self) -> dict[str, Any]:
        return {
            name: getattr(self, name)
            for name in (
                "catalog",
                "scale",
                "same_domain",
                "cross_domain",
                "min_score",
                "embedder",
                "scorer",
                "llm_model",
            )
        }

    def build_into(self, catalog: Any, work: Path) -> tuple[list, Path]:
        """Build ``candidates.json`` into ``work`` (the scorer's answers recorded beside it, or in --store)."""
        from kopa_replay.graph.embed import embedder_for
        from kopa_replay.graph.pipeline import BuildConfig, build_graph

        built = BuildConfig(self.same_domain, self.cross_domain, self.min_score)
        with ExitStack() as stack:
            chosen = None
            if self.scorer == "llm":
                if not self.llm_url or not self.llm_model:
                    raise UsageError("--scorer llm needs --llm-url and --llm-model (or KOPA_LLM_URL / KOPA_LLM_MODEL)")
                from kopa_replay.graph.score_llm import LLMScorer
                from kopa_replay.llm import ChatClient

                # recorded (snapshot "llm"; by default in the run directory, never in the shipped cassette),
                # so a rebuild is offline and identical
                client = stack.enter_context(
                    ChatClient(
                        self.llm_url, self.llm_model, store=self.store or str(work / "llm.sqlite"), snapshot="llm"
                    )
                )
                chosen = LLMScorer(client)
            return build_graph(
                catalog,
                work,
                embedder=embedder_for(self.embedder),
                scorer=chosen,
                config=built,
                catalog_label=self.catalog_label,
            )


@dataclass(frozen=True)
class Config(BuildSettings):
    pass


@dataclass(frozen=True)
class Result:
    run_dir: Path
    candidates: Path
    counts: dict[str, Any]
    manifest: dict[str, Any]

    def to_dict(self) -> dict[str, Any]:
        return {**self.counts, "path": str(self.candidates)}


def inputs(config: Config) -> dict[str, Any]:
    """The digests the candidate graph is a function of (with the config)."""
    return {"catalog": config.load_catalog().digest()}


def run(config: Config) -> Result:
    """Build the candidate graph into ``config.run_dir`` (atomically; a pruned graph there is replaced)."""
    from kopa_replay.graph.pipeline import stats

    catalog = config.load_catalog()
    final = Path(config.run_dir)
    with atomic_run_dir(final, keep=KEEP) as work:
        links, _ = config.build_into(catalog, work)
        manifest = write_manifest(
            work,
            STAGE,
            config=as_dict(config),
            inputs=inputs(config),
            outputs=["candidates.json"],
            catalog=catalog.digest(),
        )
    return Result(final, final / "candidates.json", stats(links), manifest)
