"""``record`` and ``refresh``: the recorder, into a new snapshot."""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

import click

from kopa_replay.cli.common import _drift_report_options, _emit, _note, _output_option, _progress, cli
from kopa_replay.stages import record as record_stage
from kopa_replay.stages.options import click_options


@cli.command("record")
@click_options(record_stage.RecordConfig)
@_output_option()
def record(fmt, **settings) -> None:
    """Record every tool's probe calls (catalog examples, largest pages) and the benchmark's calls into a new snapshot.

    Example: kopa-replay record --source sim --as-of 2026-09-01 --snapshot 2026-09-01
    """
    with _progress() as progress:
        result = record_stage.record(record_stage.RecordConfig(**settings), progress=progress)
    summary = result.summary
    outcomes = ", ".join(f"{k} {v}" for k, v in sorted(summary.outcomes.items()))
    text = f"recorded {summary.calls} calls into snapshot {summary.snapshot} ({outcomes})"
    text += _left_out_text(summary.left_out, summary.snapshot)
    if summary.manifest:
        text += f"\nsealed: digest {summary.manifest['digest']}, manifest {result.manifest_file}"
    _emit(fmt, summary.to_dict(), text)


def _left_out_text(left_out: list[dict[str, Any]], snapshot: str) -> str:
    """The requests left out because their answers were blocked, one line each with its evidence (a few shown)."""
    if not left_out:
        return ""
    shown = 5
    lines = [
        f"\nleft out of {snapshot}: {len(left_out)} request(s) whose answer was blocked (not recorded; in the "
        "manifest's refresh.left_out, sent again by a refresh of it):"
    ]
    lines += [f"  {entry['request']}: {entry['evidence']}" for entry in left_out[:shown]]
    if len(left_out) > shown:
        lines.append(f"  … and {len(left_out) - shown} more (--format json lists them all)")
    return "\n".join(lines)


def _noting_first(progress: Any, note: str) -> tuple[Any, Callable[[], None]]:
    """A progress hook that prints ``note`` once, when the stage reports its first work (so after the stage has
    checked its settings: a mistake still comes out as the one ``Error:`` line), then draws ``progress``'s bars;
    and a function that prints the note if no work was reported."""
    said: list[bool] = []

    def say() -> None:
        if not said:
            said.append(True)
            _note(note)

    def hook(what: str, done: int, total: int | None) -> None:
        say()
        if progress is not None:
            progress(what, done, total)

    return hook, say


@cli.command("refresh")
@click_options(record_stage.RefreshConfig)
@_drift_report_options
def refresh(fmt, fail_on, **settings) -> None:
    """Re-execute every request of a snapshot against a source into a new one and report drift.

    Example: kopa-replay refresh --base 2026-09-01 --snapshot 2026-12-01 --source sim --as-of 2026-12-01
    """
    from kopa_replay.drift import crosses, render

    config = record_stage.RefreshConfig(**settings)
    manifest = record_stage.manifest_file(record_stage.writable_store(config.store, "refresh"), str(config.snapshot))
    with _progress() as bars:
        progress, noted = _noting_first(
            bars,
            f"{config.snapshot} is sealed when done, its manifest written to {manifest} (where pinned replays "
            "look for it: snapshots/ beside the store, or beside its cassettes/ folder)",
        )
        result = record_stage.refresh(config, progress=progress)
    noted()
    summary, snapshot = result.summary, config.snapshot
    click.echo(render(summary.report, fmt, fail_on), nl=False)
    tries, unanswered = summary.retries or {}, summary.outcomes.get("no_answer", 0)
    if tries.get("retried") or tries.get("still_failing"):
        # noise, not drift: on stderr, so --format json stays one document
        failing, blocked = tries["still_failing"], tries.get("blocked", 0)
        click.echo(
            f"environmental failures: {tries['retried']} requests retried, {tries['recovered']} answered "
            f"on a retry, {failing} still failing after {config.retries} retries: {failing - unanswered - blocked} "
            f"recorded as the failure they got, {blocked} blocked and {unanswered} got no answer at all (both "
            f"left out of {snapshot}); listed apart from the drift",
            err=True,
        )
    if summary.left_out:
        click.echo(_left_out_text(summary.left_out, str(snapshot)).lstrip("\n"), err=True)
    if summary.manifest:
        click.echo(f"sealed {snapshot}: digest {summary.manifest['digest']}, manifest {result.manifest_file}", err=True)
    made = (summary.manifest or {}).get("refresh", {})
    if config.tools or config.changed_since:
        click.echo(
            f"incremental: re-executed {made['re_executed']['interactions']} requests of "
            f"{len(made['re_executed']['tools'])} tools, carried over {made['carried_over']['interactions']} "
            f"unchanged from {config.base} ({len(made['carried_over']['tools'])} tools)",
            err=True,
        )
    if fail_on and crosses(summary.report, fail_on):
        sys.exit(1)
