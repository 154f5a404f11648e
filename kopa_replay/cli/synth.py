"""``synth``, ``filter`` and ``filter-defects`` (EDGE Phase B): synthesis and filtering."""

from __future__ import annotations

import json

import click

from kopa_replay.cli.common import _decontaminated, _emit, _note, _output_option, _progress, cli
from kopa_replay.stages import filter as filter_stage
from kopa_replay.stages import synth as synth_stage
from kopa_replay.stages.common import CatalogChoice, ExecSource
from kopa_replay.stages.options import click_options


@cli.command("synth")
@click_options(synth_stage.Config)
@_output_option()
def synth(fmt, **settings) -> None:
    """Walk the pruned graph into executed trajectories with typed junctions; write datasets and statistics.

    Example: kopa-replay synth --graph-dir runs/graph --out runs/synth --trajectories 200 --json
    """
    config = synth_stage.Config(**settings)
    _note(config.idle_workers())
    with _progress() as progress:
        result = synth_stage.run(config, progress=progress)
    stats = result.stats
    from kopa_replay.synth.stats import stats_table

    _emit(
        fmt,
        stats,
        lambda: (
            f"{stats_table(stats)}\n{stats['trajectories']} trajectories in {stats['attempts']} attempts, "
            f"{_decontaminated(stats['decontaminated'])} -> {result.out} (output digest "
            f"{stats['output_digest'][:16]}…)"
        ),
        markdown=lambda: stats_table(stats),
    )


@cli.command("filter")
@click_options(filter_stage.Config)
@_output_option()
def filter_(fmt, **settings) -> None:
    """Three stages over synthesized trajectories: rules, two agreeing judges, re-solve; every discard with a reason.

    Example: kopa-replay filter --in runs/synth --json
    """
    with _progress() as progress:
        result = filter_stage.run(filter_stage.Config(**settings), progress=progress)
    report, out = result.report, result.out

    def text() -> str:
        lines = [
            f"kept {report['kept']} of {report['input']}, discarded {report['discarded']} "
            f"({_decontaminated(report['decontaminated'])}), answers replaced {report['replaced']} -> {out}",
            *(f"  {d.trajectory_id}: {d.stage}/{d.check}: {d.detail}" for d in result.discarded[:20]),
        ]
        if len(result.discarded) > 20:
            lines.append(f"  … {len(result.discarded) - 20} more in {out / 'filter_report.json'}")
        return "\n".join(lines)

    _emit(fmt, report, text)


@cli.command("filter-defects")
@click.option(
    "--in",
    "in_dir",
    default="runs/synth",
    show_default=True,
    type=click.Path(file_okay=False),
    help="A `synth` output directory (its trajectories.jsonl): the clean items defects are made from.",
)
@click.option(
    "--injector",
    type=click.Choice(["seeded", "independent", "both"]),
    default="both",
    show_default=True,
    help="Who makes the defects: the seeded injector (kopa_replay.filter.defects), the independent one "
    "written without the filter's code (kopa_replay.filter.adversary), or both on the same items.",
)
@click.option("--per-kind", default=15, show_default=True, type=int, help="Defects per kind and seed at most.")
@click.option("--seed", "seeds", multiple=True, type=int, help="Injection seed (repeatable) [default: 0 1 2].")
@click_options(ExecSource)
@_output_option()
@click_options(CatalogChoice)
def filter_defects(in_dir, injector, per_kind, seeds, fmt, catalog, scale, **where) -> None:
    """Inject labelled defects into synthesized items and report how many the filter catches, per kind.

    Example: kopa-replay filter-defects --in runs/synth --injector both --per-kind 15 --seed 0 --seed 1 --seed 2
    """
    from contextlib import ExitStack

    from kopa_replay.filter.recall import INJECTORS, defects_table, measure_many
    from kopa_replay.synth.pipeline import SynthDir, read_trajectories

    cat = CatalogChoice(catalog, scale).load_catalog()
    trajectories = read_trajectories(SynthDir(in_dir).trajectories)
    with ExitStack() as stack:
        env = ExecSource(**where).open_env(stack, cat)
        summary = measure_many(
            trajectories,
            cat,
            env,
            injectors=INJECTORS if injector == "both" else (injector,),
            seeds=seeds or (0, 1, 2),
            per_kind=per_kind,
        )
    # default=str: the summary holds the injected items' non-JSON values (dates) as the filter saw them
    _emit(
        fmt,
        summary,
        lambda: defects_table(summary),
        json_text=json.dumps(summary, ensure_ascii=False, indent=2, default=str),
    )
