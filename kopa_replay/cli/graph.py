"""The ``graph`` group (EDGE Phase A): build a tool-dependency graph and prune it by execution."""

from __future__ import annotations

import sys
from typing import Any

import click

from kopa_replay.cli.common import (
    _catalog_option,
    _date,
    _emit,
    _fail_on_option,
    _Group,
    _load_catalog,
    _note,
    _output_option,
    _progress,
    _store_option,
    _store_path,
    cli,
)
from kopa_replay.errors import UsageError
from kopa_replay.stages import graph_build, graph_prune
from kopa_replay.stages.options import click_options


@cli.group(cls=_Group)
def graph() -> None:
    """Build a tool-dependency graph and prune it by executing sampled paths.

    Example: kopa-replay graph prune --iterations 20 --paths 200 --json
    """


def _run_dir_option(func):
    return click.option(
        "--run-dir",
        default="runs/graph",
        show_default=True,
        type=click.Path(file_okay=False),
        help="Where the graph, report and plots are written.",
    )(func)


@graph.command("build")
@click_options(graph_build.Config)
@_output_option()
def graph_build_command(fmt, **settings) -> None:
    """Retrieve candidate links per tool, score their bindings, save candidates.json.

    Example: kopa-replay graph build --run-dir runs/graph
    """
    result = graph_build.run(graph_build.Config(**settings))
    counts = result.to_dict()
    _emit(
        fmt,
        counts,
        f"{counts['links']} candidate links over {counts['tools_with_links']} tools "
        f"({counts['cross_domain']} cross-domain) -> {result.candidates}",
    )


@graph.command("prune")
@click_options(graph_prune.Config)
@_output_option()
def graph_prune_command(fmt, **settings) -> None:
    """Execute sampled paths (Thompson sampling over Beta posteriors) and cut links that do not execute.

    Builds the candidate graph first when the run directory has none.
    Example: kopa-replay graph prune --iterations 20 --paths 200 --fault-rate 0.1 --json
    """
    config = graph_prune.Config(**settings)
    _note(config.idle_workers())
    progress: Any
    with _progress() as bar:
        if bar is not None:  # a terminal: one bar with an ETA

            def progress(h):
                bar("pruning (iterations)", h.iteration, config.iterations)
        else:  # a log: a line per iteration (none unless the text is printed)
            progress = (
                None
                if fmt != "text"
                else (
                    lambda h: click.echo(
                        f"iteration {h.iteration:>3}: paths passed {h.path_pass_rate:6.1%}  steps ok "
                        f"{h.step_success_rate:6.1%}  cut {h.links_cut:>4}  retained {h.links_retained}",
                        err=True,
                    )
                )
            )
        report = graph_prune.run(config, progress=progress).report
    _emit(fmt, report, lambda: _report_text(report))


def _report_text(report: dict) -> str:
    def pct(value):
        return "n/a" if value is None else f"{value:.1%}"

    return "\n".join(
        [
            f"candidate links {report['links_candidate']}, pruned {report['links_pruned']} ({report['calls']} calls)",
            f"execution rate: before {pct(report['exec_rate_before'])}, after {pct(report['exec_rate_after'])}, "
            f"pruned links {pct(report['exec_rate_pruned'])}",
            f"never succeeded: pruned {pct(report['never_succeeded_pruned'])}, "
            f"retained {pct(report['never_succeeded_retained'])}",
            f"against the simulator's truth: precision {pct(report['precision'])}, recall {pct(report['recall'])}, "
            f"true-link retention {pct(report['true_link_retention'])}",
            f"graph {report['graph']} (digest {report['graph_digest'][:16]}…)",
        ]
    )


@graph.command("reverify")
@_run_dir_option
@click.option(
    "--snapshot",
    required=True,
    help="The later snapshot (as `kopa-replay refresh` writes it): the drift is diffed against it, and "
    "re-test calls are answered from it when it holds them.",
)
@click.option("--base", help="The snapshot the prune ran against [default: the one the prune's report records].")
@click.option(
    "--source",
    default=None,
    help="Where calls the snapshot lacks go: sim, replay (nowhere: counted unanswered), live or a mirror "
    "URL [default: the simulator on the world the snapshot was recorded on (sim:full …) when it was recorded from "
    "the simulator, else replay].",
)
@click.option("--as-of", help="Simulator date for --source sim [default: the snapshot's as-of date].")
@click.option("--sim-seed", type=int, default=None, help="Simulator world seed [default: the snapshot's].")
@click.option(
    "--record-into",
    metavar="SNAPSHOT",
    help="Record the answers the snapshot lacks into this other snapshot (and replay them from it on the "
    "next run: with --source replay the rerun is offline).",
)
@click.option(
    "--trials",
    default=4,
    show_default=True,
    type=int,
    help="Most trials per re-tested link (fewer once it is cut, or once no outcome left could cut it).",
)
@click.option("--seed", default=0, show_default=True, type=int, help="Seed of the trials' sampling.")
@_store_option
@_output_option(junit="one testcase per re-tested link, a failing one per broken link")
@_fail_on_option(["broken", "undecided"], "Exit 1 when a link broke (undecided: or could not be re-tested).")
@_catalog_option
def graph_reverify(
    run_dir,
    snapshot,
    base,
    source,
    as_of,
    sim_seed,
    record_into,
    trials,
    seed,
    store,
    fmt,
    fail_on,
    catalog_files,
    scale,
) -> None:
    """Re-test only the pruned graph's links that the drift between two snapshots touches; report what broke.

    Writes graph.reverified.json and reverify.json into the run directory (graph.json stays as pruned).
    Example: kopa-replay graph reverify --run-dir runs/graph --base 2026-09-01 --snapshot 2026-12-01 --fail-on broken
    """
    from kopa_replay.graph.reverify import Answering, ReverifyConfig, crosses, render, reverify_snapshot

    _date(as_of, "--as-of")
    result = reverify_snapshot(
        _load_catalog(catalog_files, scale),
        run_dir,
        snapshot=snapshot,
        store=_store_path(store),
        base=base,
        answering=Answering(source, as_of, sim_seed, record_into),
        config=ReverifyConfig(trials=trials, seed=seed),
    )
    click.echo(render(result, fmt), nl=False)
    if fail_on and crosses(result, fail_on):
        sys.exit(1)


def _graph_links(run_dir):
    from kopa_replay.graph.pipeline import RunDir
    from kopa_replay.graph.store import load_graph

    run = RunDir(run_dir)
    return load_graph(run.graph if run.graph.exists() else run.candidates)


@graph.command("stats")
@_run_dir_option
@_output_option()
def graph_stats(run_dir, fmt) -> None:
    """Counts of the run's graph (pruned if pruned, else the candidates) and the pruning report.

    Example: kopa-replay graph stats --run-dir runs/graph
    """
    from kopa_replay.graph.pipeline import RunDir, stats

    links, meta = _graph_links(run_dir)
    out = {**stats(links), "stage": meta.get("stage")}
    run = RunDir(run_dir)
    if run.report.exists():
        report = run.read_report()
        out["report"] = {
            k: report.get(k)
            for k in (
                "exec_rate_before",
                "exec_rate_after",
                "exec_rate_pruned",
                "precision",
                "recall",
                "true_link_retention",
                "calls",
            )
        }

    def text() -> str:
        lines = [
            f"{out['stage']}: {out['links']} links, {out['retained']} retained, {out['pruned']} pruned, "
            f"{out['cross_domain']} cross-domain, {out['tools_with_links']} tools",
            *(f"  {name}: {degree} outgoing" for name, degree in out["top_sources"]),
        ]
        if "report" in out:
            lines.append("  " + ", ".join(f"{k}={v}" for k, v in out["report"].items()))
        return "\n".join(lines)

    _emit(fmt, out, text)


@graph.command("show")
@click.argument("tool")
@_run_dir_option
@_output_option()
def graph_show(tool, run_dir, fmt) -> None:
    """The links into and out of TOOL: binding, prior, posterior, trials, pruned.

    Example: kopa-replay graph show dart_corp_code
    """
    links, _ = _graph_links(run_dir)
    known = {name for link in links for name in link.key}
    if tool not in known:
        raise UsageError(f"tool {tool!r} has no link in the graph of {run_dir}")
    rows = {
        "outgoing": [link for link in links if link.source == tool],
        "incoming": [link for link in links if link.target == tool],
    }
    shown = {
        side: [{**link.to_dict(), "posterior_mean": round(link.posterior_mean, 6)} for link in items]
        for side, items in rows.items()
    }

    def text() -> str:
        lines = []
        for side, items in rows.items():
            lines.append(f"{side} ({len(items)}):")
            for link in items:
                other = link.target if side == "outgoing" else link.source
                binding = ", ".join(f"{p}<-{f}" for p, f in sorted(link.binding.items()))
                state = f"pruned@{link.pruned_at}" if link.pruned else "kept"
                lines.append(
                    f"  {other:<40} {binding:<40} prior {link.prior:.2f} posterior {link.posterior_mean:.2f} "
                    f"trials {link.trials} ok {link.successes} {state}"
                )
        return "\n".join(lines)

    _emit(fmt, shown, text)
