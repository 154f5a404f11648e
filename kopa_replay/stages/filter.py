"""Stage ``filter``: decontamination and three stages over synthesized trajectories (rules, two agreeing judges,
re-solve); every discard with a reason."""

from __future__ import annotations

import json
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from kopa_replay.errors import UsageError
from kopa_replay.filter.model import FilterConfig
from kopa_replay.stages.common import CatalogChoice, Decontamination, ExecSource, LLMServer
from kopa_replay.stages.options import as_dict, setting
from kopa_replay.stages.run_dir import atomic_run_dir, file_digest, write_manifest
from kopa_replay.stages.synth import OUTPUTS as DATASETS

__all__ = ["Config", "Result", "run", "inputs", "STAGE"]

STAGE = "filter"
_D = FilterConfig


@dataclass(frozen=True)
class Config(CatalogChoice, ExecSource, LLMServer, Decontamination):
    in_dir: str = setting("runs/synth", "A `synth` output directory (its trajectories.jsonl).", flag="--in", path="dir")
    out: str | None = setting(
        None, "Where the kept datasets and filter_report.json go [default: IN/filtered].", path="dir"
    )
    judges: Literal["deterministic", "llm", "llm-pair"] = setting(
        "deterministic",
        "Stage 2's two judges, which must agree to discard: the offline pair; llm: the offline regex judge beside "
        "a model (--llm-url/--llm-model); llm-pair: two models, as the paper's (--llm-model and --second-llm-model, "
        "on --second-llm-url or the same server).",
    )
    second_llm_model: str | None = setting(None, "The second judge's model (--judges llm-pair).")
    second_llm_url: str | None = setting(
        None, "The second judge's OpenAI-compatible server [default: --llm-url] (--judges llm-pair)."
    )
    resolve_with: Literal["rerun", "llm"] = setting(
        "rerun",
        "Stage 3's re-solution: rerun (the plan re-run reading every page) or llm (the model solves each item again "
        "with the tools, as a benchmark task; a complete re-run judges which answer is better).",
    )
    reproduce: bool = setting(
        _D.reproduce,
        "Stage 1 re-runs every plan and drops items whose state digest or answer differs (--no-reproduce skips it).",
    )
    resolve: bool = setting(
        _D.resolve,
        "Stage 3 re-solves every kept item reading all pages and replaces answers "
        "it judges worse (--no-resolve skips it).",
    )

    def __post_init__(self) -> None:
        if self.judges == "llm-pair" and not self.second_llm_model:
            raise UsageError("--judges llm-pair needs --second-llm-model (the second judge's model)")
        if self.resolve_with == "llm" and not self.resolve:
            raise UsageError("--resolve-with llm is how stage 3 re-solves: it cannot go with --no-resolve")
        if self.judges != "llm-pair" and (self.second_llm_model or self.second_llm_url):
            raise UsageError("--second-llm-model and --second-llm-url name the second judge of --judges llm-pair")

    def second_judge(self, stack: ExitStack, out: Path) -> Any:
        """The second model judge, recorded beside the first (its own snapshot in OUT/llm.sqlite)."""
        from kopa_replay.filter import LLMJudge
        from kopa_replay.llm import ChatClient

        url = self.second_llm_url or self.llm_url
        if not url:
            raise UsageError("--judges llm-pair needs --llm-url (or --second-llm-url) for the second judge")
        client = ChatClient(url, str(self.second_llm_model), store=str(Path(out) / "llm.sqlite"), snapshot="llm-2")
        return LLMJudge(stack.enter_context(client))

    @property
    def out_dir(self) -> Path:
        return Path(self.out) if self.out else Path(self.in_dir) / "filtered"


@dataclass(frozen=True)
class Result:
    out: Path
    report: dict[str, Any]
    discarded: list[Any]
    manifest: dict[str, Any]

    def to_dict(self) -> dict[str, Any]:
        return self.report


def inputs(config: Config) -> dict[str, Any]:
    """The digests the kept corpus is a function of (with the config)."""
    from kopa_replay.synth.pipeline import SynthDir

    source = SynthDir(config.in_dir).trajectories
    return {
        "trajectories": file_digest(source) if source.exists() else None,
        "catalog": config.load_catalog().digest(),
        "snapshot": config.sealed_digest(),
        "bench_tasks": config.task_set_digest(),
    }


def run(config: Config, *, progress: Any = None) -> Result:
    """Filter ``IN/trajectories.jsonl`` into ``config.out_dir`` (atomically) with ``filter_report.json``."""
    from kopa_replay.filter import LLMJudge, default_judges, run_filter
    from kopa_replay.synth.export import read_jsonl
    from kopa_replay.synth.pipeline import SynthDir, extend_stats, read_trajectories, write_datasets
    from kopa_replay.util import write_atomic

    catalog = config.load_catalog()
    source = SynthDir(config.in_dir).trajectories
    trajectories = read_trajectories(source)
    exclude = config.decontaminator()
    final = config.out_dir
    made_of = inputs(config)
    with atomic_run_dir(final, keep=("llm.sqlite",)) as work:
        with ExitStack() as stack:
            chosen = default_judges()
            if config.judges == "llm":
                chosen = (chosen[0], LLMJudge(config.chat_client(stack, work, "--judges")))
            elif config.judges == "llm-pair":
                chosen = (LLMJudge(config.chat_client(stack, work, "--judges")), config.second_judge(stack, work))
            env = config.open_env(stack, catalog)
            solver = None
            if config.resolve_with == "llm":
                from kopa_replay.bench.chat_agent import ChatAgent, ChatSolver, OpenAIBackend

                agent = ChatAgent(OpenAIBackend(config.chat_client(stack, work, "--resolve-with")), name="openai")
                solver = ChatSolver(agent, catalog, env)
            result = run_filter(
                trajectories,
                catalog,
                env,
                chosen,
                config=FilterConfig(reproduce=config.reproduce, resolve=config.resolve),
                exclude=exclude,
                progress=progress,
                solver=solver,
            )
        stats = write_datasets(work, result.kept, catalog)
        found = config.contamination(read_jsonl(work / "trajectories.jsonl")) if result.kept else None
        if found is not None:
            extend_stats(work, {"contamination": found})
        report = {
            **result.report,
            "output_digest": stats["output_digest"],
            "contamination": found,
            "out": str(final),
            "discards": [d._asdict() for d in result.discarded],
            "replacements": [
                {"trajectory_id": r.trajectory_id, "old": r.old.value, "new": r.new.value, "reason": r.reason}
                for r in result.replaced
            ],
        }
        write_atomic(
            work / "filter_report.json",
            json.dumps(report, ensure_ascii=False, sort_keys=True, indent=2, default=str) + "\n",
        )
        manifest = write_manifest(
            work,
            STAGE,
            config=as_dict(config),
            inputs=made_of,
            outputs=[*DATASETS, "filter_report.json"],
            catalog=catalog.digest(),
            source=config.described(),
            output_digest=stats["output_digest"],
        )
    return Result(final, report, list(result.discarded), manifest)
