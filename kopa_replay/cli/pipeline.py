"""The ``pipeline`` group: the whole EDGE pipeline on a pinned snapshot, with one report."""

from __future__ import annotations

import time

import click

from kopa_replay.cli.common import _emit, _Group, _output_option, _progress, cli
from kopa_replay.stages import pipeline as pipeline_stage
from kopa_replay.stages.options import click_options


@cli.group(cls=_Group)
def pipeline() -> None:
    """Run every stage (graph, prune, synth, filter, bench, audit, drift) and write one report.

    Example: kopa-replay pipeline run --out runs/pipeline
    """


@pipeline.command("run")
@click_options(pipeline_stage.Config)
@_output_option()
def pipeline_run(fmt, **settings) -> None:
    """graph build → prune → synth → filter → bench (oracle and baselines) → audit → drift → report.

    Resumable: a stage whose config and inputs are unchanged since it last ran is skipped. Writes
    OUT/report.html (self-contained), OUT/report.md and OUT/manifest.json.
    Example: kopa-replay pipeline run --snapshot 2026-09-01 --preset quick --out runs/pipeline
    """
    started: dict[str, float] = {}

    def on_stage(name: str, event: str) -> None:
        # what runs and how long it took: on stderr, so --json stays one document
        if event == "start":
            started[name] = time.monotonic()
            click.echo(f"{name}: running", err=True)
        elif event == "done":
            click.echo(f"{name}: done in {time.monotonic() - started[name]:.1f} s", err=True)
        else:
            click.echo(f"{name}: unchanged, skipped", err=True)

    config = pipeline_stage.Config(**settings)
    with _progress() as progress:
        result = pipeline_stage.run(config, progress=progress, on_stage=on_stage)
    summary = {
        "out": str(result.out),
        "digest": result.digest,
        "stages": [{"name": s.name, "skipped": s.skipped, "directory": str(s.directory)} for s in result.stages],
        "report": {"html": str(result.report_html), "markdown": str(result.report_md)},
    }
    ran = sum(not s.skipped for s in result.stages)
    _emit(
        fmt,
        summary,
        f"{ran} of {len(result.stages)} stages ran ({len(result.stages) - ran} unchanged) -> {result.out}\n"
        f"report: {result.report_html} (and {result.report_md.name}); manifest digest {result.digest[:16]}…",
    )
