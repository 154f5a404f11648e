"""Settings several stages share (which catalog, where tools execute, a model server) and how they open.

Each is a frozen dataclass a stage's config inherits, so its fields, defaults and help are written once.
"""

from __future__ import annotations

import datetime as dt
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from kopa_replay.errors import UsageError
from kopa_replay.stages.options import setting

__all__ = [
    "CatalogChoice",
    "ExecSource",
    "LLMServer",
    "Decontamination",
    "ScaleOut",
    "for_workers",
    "iso_date",
    "SOURCE_HELP",
    "STORE_HELP",
]

SOURCE_HELP = (
    "sim (the in-process simulator of the platforms at their real sizes; sim:default, a small world; env "
    "KOPA_WORLD_SIZE picks the world of a plain sim), replay (a snapshot), live, or a mirror URL."
)
STORE_HELP = (
    "Cassette store file [env KOPA_STORE; default ./cassettes/kopa.sqlite if it exists, else the shipped "
    "store: kopa-replay cassette path]."
)


def iso_date(value: str | None, option: str) -> dt.date | None:
    """A YYYY-MM-DD setting as a date; a clear error naming the option otherwise."""
    if value is None:
        return None
    try:
        return dt.date.fromisoformat(str(value))
    except ValueError:
        raise UsageError(f"{option} must be a date YYYY-MM-DD, not {value!r}") from None


#: how the command line describes --incidents (record, refresh, graph prune)
INCIDENTS_HELP = (
    "Incidents the simulator injects (source sim): 'dated' (a year of them on the ten platforms) or "
    "KIND=RATE[@HOST][:FROM..TO],… with KIND one of all, bot_wall, referer_required, empty_body, html_page, js_challenge, "
    "empty_document, retry_storm, key_echo, gateway_key_unregistered, gateway_quota, gateway_access_denied."
)


def check_incidents(spec: str, source: str | None) -> None:
    """An --incidents spec that parses, on a simulator source; a clear error naming the option otherwise."""
    from kopa_replay.env.source import is_sim
    from kopa_replay.errors import SimError
    from kopa_replay.sim.incidents import parse_incidents

    try:
        schedule = parse_incidents(spec)
    except SimError as exc:
        raise UsageError(f"--incidents: {exc}") from None
    if schedule and not is_sim(source):
        raise UsageError(f"--incidents are injected by the simulator: source {source!r} is not sim")
    from kopa_replay.sim.registry import registry

    hosts = set(registry().hosts)
    for entry in schedule:
        unknown = sorted(set(entry.hosts) - hosts)
        if unknown:  # a typo would inject nothing, silently
            raise UsageError(
                f"--incidents: {entry.kind} names host {unknown[0]!r}, not one the simulator serves "
                f"({', '.join(sorted(hosts))})"
            )


@dataclass(frozen=True)
class CatalogChoice:
    catalog: tuple[str, ...] = setting(
        (), "Catalog file(s) or folder(s) to use instead of the built-in catalog.", path="any"
    )
    scale: Literal["builtin", "paper"] = setting(
        "builtin", "Built-in catalog size: the hand-modelled tools, or the paper's 2,318."
    )

    def load_catalog(self) -> Any:
        from kopa_replay.catalog import builtin_catalog, load_catalog

        return load_catalog(self.catalog) if self.catalog else builtin_catalog(self.scale)

    @property
    def catalog_label(self) -> str:
        return ",".join(self.catalog) or self.scale


@dataclass(frozen=True)
class ExecSource:
    """Where a stage's tool calls execute: the simulator by default, or a snapshot."""

    source: str = setting("sim", SOURCE_HELP)
    sim_seed: int = setting(0, "World seed (source sim).")
    as_of: str = setting("2026-09-01", "Simulator as-of date (source sim).")
    snapshot: str | None = setting(None, "Answer from (or record into) this snapshot, e.g. 2026-09-01.")
    mode: Literal["replay", "record", "replay-or-record"] | None = setting(
        None, "With --snapshot: strict offline replay (default), record, or replay-or-record."
    )
    store: str | None = setting(None, STORE_HELP, envvar="KOPA_STORE", path="file")

    def open_env(self, stack: ExitStack, catalog: Any, *, fault_rate: float = 0.0, incidents: str = "") -> Any:
        """A ToolEnvironment over this source (closed with ``stack``)."""
        from kopa_replay.env import ToolEnvironment, open_source
        from kopa_replay.env.source import is_sim, source_label

        src = stack.enter_context(
            open_source(
                source_label(self.source) if is_sim(self.source) else self.source,
                seed=self.sim_seed,
                as_of=iso_date(self.as_of, "--as-of"),
                fault_rate=fault_rate,
                incidents=incidents,
                snapshot=self.snapshot,
                mode=self.mode,
                store=self.store if self.snapshot else None,
                catalog=catalog,
            )
        )
        return ToolEnvironment(catalog, src)

    def described(self) -> dict[str, Any]:
        """The source as a manifest records it."""
        from kopa_replay.env.source import is_sim, source_label

        sim = is_sim(self.source)
        return {
            "source": source_label(self.source) if sim else self.source,
            "snapshot": self.snapshot,
            "mode": self.mode if self.snapshot else None,
            "sim_seed": self.sim_seed if sim else None,
            "as_of": self.as_of if sim else None,
        }

    def records(self) -> bool:
        """Whether calls are recorded into the snapshot (not only replayed from it)."""
        return bool(self.snapshot) and (self.mode or "replay") != "replay"

    def sealed_digest(self) -> str | None:
        """The sealed digest of the snapshot the stage replays (an input: a re-recorded snapshot reruns it)."""
        if not self.snapshot or (self.mode or "replay") != "replay":
            return None
        return sealed_digest(self.snapshot, self.store)


def sealed_digest(name: str, store: str | None) -> str | None:
    """The digest snapshot ``name`` was sealed with, as the store says (read, not recomputed: that is
    :func:`kopa_replay.record.snapshots.snapshot_digest`, which ``snapshot verify`` runs)."""
    from kopa_replay.record import Store
    from kopa_replay.record.store import replay_store_path

    with Store(replay_store_path(name, store), readonly=True) as opened:
        return opened.snapshot(name).digest


@dataclass(frozen=True)
class ScaleOut:
    """Where a stage's shards run. How it runs, not what it computes: the outputs are the same bytes whatever
    these say, so they stay out of manifests and stage keys."""

    executor: Literal["local", "ray"] = setting(
        "local",
        "local: this process (--workers threads where the work waits on the network); ray: a Ray cluster (a local "
        "one with --workers CPUs, or --ray-address). The outputs are the same bytes either way.",
        keyed=False,
    )
    ray_address: str | None = setting(
        None, "Join this Ray cluster (auto, ray://HOST:10001) instead of starting a local one.", keyed=False
    )
    workers: int = setting(
        1,
        "Shards run at once (record and refresh split their work into this many shards: a stopped run resumes "
        "with the same number).",
        keyed=False,
    )

    def executor_spec(self) -> Any:
        """The executor these settings name (a bad one is an error naming the option, before anything runs)."""
        from kopa_replay.scale import ExecutorSpec

        return ExecutorSpec(self.executor, self.workers, self.ray_address)

    def idle_workers(self) -> str | None:
        """What to tell a user whose --workers / --executor cannot help this run (None: they can)."""
        return None


def for_workers(config: Any) -> Any:
    """``config`` as a worker process must get it: every path absolute and the default store resolved here, so a
    worker in another directory (or on another node of a shared filesystem) opens the files the driver means."""
    import dataclasses

    changes: dict[str, Any] = {}
    for f in dataclasses.fields(config):
        value = getattr(config, f.name)
        if f.metadata.get("path") and value:
            changes[f.name] = (
                tuple(str(Path(v).resolve()) for v in value) if isinstance(value, tuple) else str(Path(value).resolve())
            )
    if getattr(config, "store", "") is None and getattr(config, "snapshot", None):
        from kopa_replay.record.store import replay_store_path

        changes["store"] = str(replay_store_path(config.snapshot, None).resolve())
    from kopa_replay.env.source import is_sim, source_label

    source = getattr(config, "source", None)
    if isinstance(source, str) and is_sim(source):  # the world settled here: a worker's environment may differ
        changes["source"] = source_label(source)
    return dataclasses.replace(config, **changes) if changes else config


@dataclass(frozen=True)
class LLMServer:
    llm_url: str | None = setting(
        None,
        "OpenAI-compatible server of the model [env KOPA_LLM_URL], e.g. http://127.0.0.1:8000/v1.",
        envvar="KOPA_LLM_URL",
    )
    llm_model: str | None = setting(
        None,
        "Model name [env KOPA_LLM_MODEL]; its answers are recorded in OUT/llm.sqlite and replayed on reruns.",
        envvar="KOPA_LLM_MODEL",
    )

    def chat_client(self, stack: ExitStack, out: str | Path, option: str) -> Any:
        """A recording chat client (snapshot ``llm`` in OUT/llm.sqlite, never the shipped store)."""
        if not self.llm_url or not self.llm_model:
            raise UsageError(f"{option} llm needs --llm-url and --llm-model (or KOPA_LLM_URL / KOPA_LLM_MODEL)")
        from kopa_replay.llm import ChatClient

        return stack.enter_context(
            ChatClient(self.llm_url, self.llm_model, store=str(Path(out) / "llm.sqlite"), snapshot="llm")
        )


@dataclass(frozen=True)
class Decontamination:
    """Keep benchmark tasks out of the training data: on by default, against the shipped task set."""

    decontaminate: bool = setting(
        True,
        "Drop every item that repeats a benchmark task: its question verbatim, with names and numbers masked, or "
        "near-verbatim (3-gram Jaccard >= 0.8), or its plan (the same calls, paging aside).",
    )
    bench_tasks: str | None = setting(
        None,
        "Decontaminate against this task-set directory (tasks.jsonl, plans.jsonl) instead of the shipped one.",
        path="any",
    )

    def decontaminator(self) -> Any:
        """The exclude hook (None: off); a bad task set fails before anything runs."""
        if not self.decontaminate:
            if self.bench_tasks:
                raise UsageError(
                    "--bench-tasks names the task set to decontaminate against: it cannot go with --no-decontaminate"
                )
            return None
        from kopa_replay.bench.contamination import Decontaminator
        from kopa_replay.bench.suite import load_task_set

        return Decontaminator.from_task_set(load_task_set(self.bench_tasks))

    def task_set_digest(self) -> str | None:
        return task_set_digest(self.bench_tasks) if self.decontaminate else None

    def contamination(self, trajectories: Any) -> dict[str, Any] | None:
        """The audit's measures of ``trajectories`` (rows of ``trajectories.jsonl``) against the task set it was
        decontaminated against, in short (None when decontamination is off): what ``stats.md`` sets beside the
        paper's."""
        if not self.decontaminate:
            return None
        from kopa_replay.bench.audit import audit, items_from_trajectories
        from kopa_replay.bench.suite import load_task_set

        task_set = load_task_set(self.bench_tasks)
        bench = items_from_trajectories(
            [task_set.plans[t.id].to_dict() for t in task_set.tasks if t.id in task_set.plans]
        )
        found = audit(items_from_trajectories(trajectories), bench)
        verbatim = found["verbatim"]
        return {
            "against": len(task_set.tasks),
            "verbatim": verbatim["verbatim"],
            "masked": verbatim["masked"],
            "near_verbatim": verbatim["near_verbatim"],
            "near_threshold": verbatim["threshold"],
            "shared_plans": found["plans"]["shared"],
            "tool_overlap": found["tools"]["overlap"],
            "link_jaccard": found["links"]["jaccard"],
            "link_unseen_share": found["links"]["unseen_share"],
            "pair_unseen_share": found["pairs"]["unseen_share"],
        }


def task_set_digest(directory: str | None) -> str:
    """A task set's identity: the digests of its files (the shipped one when ``directory`` is None)."""
    import hashlib

    from kopa_replay.bench.suite import BUILTIN_DIR

    root = Path(directory) if directory is not None else BUILTIN_DIR
    if not root.is_dir():
        raise UsageError(f"no task set directory {root}")
    digest = hashlib.sha256()
    for name in ("tasks.jsonl", "plans.jsonl"):
        if (root / name).exists():
            digest.update(name.encode() + b"\0" + (root / name).read_bytes())
    return digest.hexdigest()
