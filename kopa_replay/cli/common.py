"""The root group ``cli``, ``main`` and the helpers the command modules share: options, stores,
catalogs, sources, progress bars.
"""

from __future__ import annotations

import datetime as dt
import json
import sys
from contextlib import contextmanager
from typing import Any

import click

from kopa_replay.errors import KopaError, UsageError


class _Group(click.Group):
    """A click group that turns KopaError into a clean ``Error:`` line."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except KopaError as exc:
            raise click.ClickException(str(exc)) from None


def _dump(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, indent=2, sort_keys=False)


def _date(value: str | None, option: str) -> dt.date | None:
    if value is None:
        return None
    try:
        return dt.date.fromisoformat(value)
    except ValueError:
        raise UsageError(f"{option} must be a date YYYY-MM-DD, not {value!r}") from None


def _catalog_option(func):
    func = click.option("--catalog", "catalog_files", multiple=True, type=click.Path(),
                        help="Catalog file(s) or folder(s) to use instead of the built-in catalog.")(func)
    func = click.option("--scale", type=click.Choice(["builtin", "paper"]), default="builtin", show_default=True,
                        help="Built-in catalog size: the hand-modelled tools, or the paper's 2,318.")(func)
    return func


def _store_option(func):
    return click.option("--store", envvar="KOPA_STORE", type=click.Path(dir_okay=False),
                        help="Cassette store file [env KOPA_STORE; default ./cassettes/kopa.sqlite if it exists, else "
                             "the shipped store: kopa-replay cassette path].")(func)


def _replay_options(func):
    func = _store_option(func)
    func = click.option("--mode", type=click.Choice(["replay", "record", "replay-or-record"]), default=None,
                        help="With --snapshot: strict offline replay (default), record, or replay-or-record.")(func)
    func = click.option("--snapshot", help="Answer from (or record into) this snapshot, e.g. 2026-09-01.")(func)
    return func


def _report_options(choices, fail_help):
    """--format and --fail-on of a command that reports for CI."""
    def decorate(func):
        func = click.option("--fail-on", type=click.Choice(choices), help=fail_help)(func)
        return click.option("--format", "fmt", type=click.Choice(["text", "json", "markdown", "junit"]),
                            default="text", show_default=True,
                            help="junit: JUnit XML, each failing finding a failing test case.")(func)
    return decorate


_drift_report_options = _report_options(["breaking", "warning"], "Exit 1 when a change of this severity is found "
                                                                 "(environmental noise and data never count).")


def _writable_store(store: str | None, command: str):
    """The store a recording command writes; the shipped one only when named (--store / KOPA_STORE): a new
    snapshot in it would change a file the checkout tracks."""
    from pathlib import Path

    from kopa_replay.record.store import shipped_store_path

    path = _store_path(store)
    if store is None and Path(path).resolve() == shipped_store_path():
        raise UsageError(f"{command} would write into the shipped store {path}; name a store with --store (a copy: "
                         f"cp {path} my.sqlite) or KOPA_STORE, or --store {path} to write there on purpose")
    return path


def _manifest_file(store_path, snapshot: str):
    """Where a seal wrote a snapshot's manifest (the commands say it: it lands beside the store)."""
    from kopa_replay.record.snapshots import manifest_dir_for

    return manifest_dir_for(store_path) / f"{snapshot}.json"


def _store_path(store: str | None):
    from kopa_replay.record import default_store_path

    return store or str(default_store_path())


def _open_store(store: str | None, readonly: bool = True):
    from kopa_replay.record import Store

    return Store(_store_path(store), readonly=readonly)


def _load_catalog(catalog_files: tuple[str, ...], scale: str):
    from kopa_replay.catalog import builtin_catalog, load_catalog

    return load_catalog(catalog_files) if catalog_files else builtin_catalog(scale)


@click.group(cls=_Group)
@click.version_option(package_name="kopa-replay")
@click.option("--quiet", "-q", is_flag=True, help="No progress bars (they are drawn on a terminal only, on stderr).")
@click.pass_context
def cli(ctx, quiet) -> None:
    """Record, replay and simulate Korean open public APIs for tool-calling research.

    Example: kopa-replay call dart_corp_code --arg corp_name=라이트론
    """
    ctx.meta["kopa_quiet"] = quiet


@contextmanager
def _progress():
    """A :data:`kopa_replay.util.Progress` hook drawing bars with an ETA on stderr when it is a terminal (one bar
    per kind of work), or None: quiet with --quiet, in a pipe, in CI logs."""
    ctx = click.get_current_context(silent=True)
    quiet = bool(ctx and ctx.find_root().meta.get("kopa_quiet"))
    if quiet or not sys.stderr.isatty():
        yield None
        return
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    bars: dict[str, Any] = {}
    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(),
                  console=Console(stderr=True), transient=True) as drawn:
        def update(what: str, done: int, total: int | None) -> None:
            if what not in bars:
                bars[what] = drawn.add_task(what, total=total)
            drawn.update(bars[what], completed=done, total=total)

        yield update


def _parse_kv(pairs: tuple[str, ...]) -> dict[str, str]:
    out: dict[str, str] = {}
    for pair in pairs:
        if "=" not in pair:
            raise UsageError(f"--arg takes NAME=VALUE, not {pair!r}")
        name, value = pair.split("=", 1)
        out[name.strip()] = value
    return out


def _source_options(func):
    func = click.option("--base-url", "base_urls", multiple=True, metavar="HOST=URL",
                        help="Send one catalog host to a mirror (repeatable), e.g. opendart.fss.or.kr=http://127.0.0.1:8765.")(func)
    func = click.option("--seed", default=0, show_default=True, type=int, help="Simulator seed (source sim).")(func)
    func = click.option("--as-of", help="As-of date of the new snapshot (source sim serves that date) [default: its name].")(func)
    func = click.option("--source", default="sim", show_default=True,
                        help="sim (in-process simulator), live (the real platforms) or a mirror URL.")(func)
    return func


def _bench_requests(bench, cat, source, seed, as_of, mirrors):
    """The benchmark's calls to record beside a workload (--bench; by default with source sim, whose world the
    tasks are written over): the oracle's and the baselines' calls, and the plans' as they run on this source, so
    `bench run` and `bench drift` are offline on the snapshot."""
    if not (bench if bench is not None else source == "sim"):
        return []
    from kopa_replay.bench.suite import benchmark_workload

    return benchmark_workload(cat, source=source, seed=seed, as_of=as_of if source == "sim" else None, mirrors=mirrors)


def _open_env(stack, cat, source, sim_seed, as_of, snapshot, mode, store, fault_rate=0.0):
    """A ToolEnvironment over the chosen source (closed with ``stack``): what graph prune, synth and filter run on."""
    from kopa_replay.env import ToolEnvironment, open_source

    src = stack.enter_context(open_source(source, seed=sim_seed, as_of=_date(as_of, "--as-of"), fault_rate=fault_rate,
                                          snapshot=snapshot, mode=mode,
                                          store=store if snapshot else None, catalog=cat))
    return ToolEnvironment(cat, src)


def _env_options(func):
    """Where synthesis and filtering execute: the simulator by default, or a snapshot."""
    func = _replay_options(func)
    func = click.option("--as-of", default="2026-09-01", show_default=True, help="Simulator as-of date (source sim).")(func)
    func = click.option("--sim-seed", default=0, show_default=True, type=int, help="World seed (source sim).")(func)
    func = click.option("--source", default="sim", show_default=True,
                        help="sim (in-process simulator), replay (a snapshot), live, or a mirror URL.")(func)
    return func


def _llm_options(what: str):
    def decorate(func):
        func = click.option("--llm-url", envvar="KOPA_LLM_URL",
                            help=f"OpenAI-compatible server for the model {what} [env KOPA_LLM_URL].")(func)
        func = click.option("--llm-model", envvar="KOPA_LLM_MODEL", help="Model name [env KOPA_LLM_MODEL]; its "
                            "answers are recorded in OUT/llm.sqlite and replayed on reruns.")(func)
        return func
    return decorate


def _chat_client(stack, llm_url, llm_model, out, option):
    if not llm_url or not llm_model:
        raise UsageError(f"{option} llm needs --llm-url and --llm-model (or KOPA_LLM_URL / KOPA_LLM_MODEL)")
    from pathlib import Path

    from kopa_replay.llm import ChatClient

    return stack.enter_context(ChatClient(llm_url, llm_model, store=str(Path(out) / "llm.sqlite"), snapshot="llm"))


def _decontaminate_options(func):
    """Keep benchmark tasks out of the training data: on by default, against the shipped task set."""
    func = click.option("--bench-tasks", type=click.Path(),
                        help="Decontaminate against this task-set directory (tasks.jsonl, plans.jsonl) instead "
                             "of the shipped one.")(func)
    func = click.option("--decontaminate/--no-decontaminate", default=True, show_default=True,
                        help="Drop every item that repeats a benchmark task: its question verbatim or "
                             "near-verbatim (3-gram Jaccard >= 0.9), or its plan (the same calls, paging "
                             "aside).")(func)
    return func


def _decontaminator(decontaminate: bool, bench_tasks: str | None):
    """The exclude hook the options ask for (None: off); a bad task set fails before anything runs."""
    if not decontaminate:
        if bench_tasks:
            raise UsageError("--bench-tasks names the task set to decontaminate against: "
                             "it cannot go with --no-decontaminate")
        return None
    from kopa_replay.bench.contamination import Decontaminator
    from kopa_replay.bench.suite import load_task_set

    return Decontaminator.from_task_set(load_task_set(bench_tasks))


def _decontaminated(count: int | None) -> str:
    return "decontamination off" if count is None else f"{count} decontaminated"


def _task_set(tasks_dir, split=None, domain=None, ids=(), stale=False):
    from kopa_replay.bench.suite import load_task_set

    loaded = load_task_set(tasks_dir)
    chosen = loaded.select(split=split, domain=domain, ids=ids, stale=stale)
    left_out = len(loaded.select(split=split, domain=domain, ids=ids, stale=True).tasks) - len(chosen.tasks)
    if left_out:
        click.echo(f"{left_out} task(s) tagged stale: left out (their plans no longer run on the snapshot the set "
                   "is pinned to; --include-stale runs them)", err=True)
    return chosen


def _tasks_option(func):
    return click.option("--tasks", "tasks_dir", type=click.Path(file_okay=False),
                        help="A task-set directory (tasks.jsonl, plans.jsonl) instead of the shipped one.")(func)


def main() -> None:
    """Console-script entry point."""
    cli(prog_name="kopa-replay")
