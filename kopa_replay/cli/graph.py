"""The ``graph`` group (EDGE Phase A): build a tool-dependency graph and prune it by execution."""

from __future__ import annotations

import sys

import click

from kopa_replay.cli.common import (_Group, _catalog_option, _date, _dump, _load_catalog, _open_env, _progress,
                                    _replay_options, _store_option, _store_path, cli)
from kopa_replay.errors import UsageError


@cli.group(cls=_Group)
def graph() -> None:
    """Build a tool-dependency graph and prune it by executing sampled paths.

    Example: kopa-replay graph prune --iterations 20 --paths 200 --json
    """


def _run_dir_option(func):
    return click.option("--run-dir", default="runs/graph", show_default=True, type=click.Path(file_okay=False),
                        help="Where the graph, report and plots are written.")(func)


def _build_options(func):
    func = click.option("--same-domain", default=15, show_default=True, type=int,
                        help="Candidate targets per tool from its own domain.")(func)
    func = click.option("--cross-domain", default=10, show_default=True, type=int,
                        help="Candidate targets per tool from other domains.")(func)
    func = click.option("--min-score", default=0.3, show_default=True, type=float,
                        help="Drop candidates the scorer rates below this feasibility.")(func)
    func = click.option("--embedder", default="hashed", show_default=True,
                        help="hashed (character n-gram TF-IDF, no download) or the path of a local encoder model.")(func)
    func = click.option("--scorer", type=click.Choice(["semantic", "llm"]), default="semantic", show_default=True,
                        help="semantic (offline synonym groups and formats) or llm (an OpenAI-compatible server).")(func)
    func = click.option("--llm-url", envvar="KOPA_LLM_URL", help="Base URL of the OpenAI-compatible server "
                        "(--scorer llm) [env KOPA_LLM_URL], e.g. http://127.0.0.1:8000/v1.")(func)
    func = click.option("--llm-model", envvar="KOPA_LLM_MODEL", help="Model name for --scorer llm [env KOPA_LLM_MODEL]; "
                        "its answers are recorded in RUN_DIR/llm.sqlite (or --store) and replayed on rebuilds.")(func)
    return func


def _build(cat, run_dir, same_domain, cross_domain, min_score, embedder, scorer, llm_url, llm_model, store, label):
    from contextlib import ExitStack

    from kopa_replay.graph.embed import embedder_for
    from kopa_replay.graph.pipeline import BuildConfig, build_graph

    config = BuildConfig(same_domain, cross_domain, min_score)
    with ExitStack() as stack:
        chosen = None
        if scorer == "llm":
            if not llm_url or not llm_model:
                raise UsageError("--scorer llm needs --llm-url and --llm-model (or KOPA_LLM_URL / KOPA_LLM_MODEL)")
            from kopa_replay.graph.score_llm import LLMScorer
            from kopa_replay.llm import ChatClient

            # the model's answers are recorded (snapshot "llm"; by default in the run directory, never in the
            # shipped cassette), so a rebuild is offline and identical
            from pathlib import Path

            llm_store = store or str(Path(run_dir) / "llm.sqlite")
            client = stack.enter_context(ChatClient(llm_url, llm_model, store=llm_store, snapshot="llm"))
            chosen = LLMScorer(client)
        return build_graph(cat, run_dir, embedder=embedder_for(embedder), scorer=chosen, config=config,
                           catalog_label=label)


@graph.command("build")
@_run_dir_option
@_build_options
@_store_option
@click.option("--json", "as_json", is_flag=True, help="Print the graph's counts as JSON.")
@_catalog_option
def graph_build(run_dir, same_domain, cross_domain, min_score, embedder, scorer, llm_url, llm_model, store,
                as_json, catalog_files, scale) -> None:
    """Retrieve candidate links per tool, score their bindings, save candidates.json.

    Example: kopa-replay graph build --run-dir runs/graph
    """
    from kopa_replay.graph.pipeline import stats

    cat = _load_catalog(catalog_files, scale)
    links, path = _build(cat, run_dir, same_domain, cross_domain, min_score, embedder, scorer, llm_url,
                         llm_model, store, ",".join(catalog_files) or scale)
    counts = {**stats(links), "path": str(path)}
    if as_json:
        click.echo(_dump(counts))
    else:
        click.echo(f"{counts['links']} candidate links over {counts['tools_with_links']} tools "
                   f"({counts['cross_domain']} cross-domain) -> {path}")


@graph.command("prune")
@_run_dir_option
@click.option("--iterations", default=100, show_default=True, type=int, help="Iterations of the loop.")
@click.option("--paths", default=500, show_default=True, type=int, help="Sampled paths per iteration.")
@click.option("--seed", default=0, show_default=True, type=int, help="Seed of the loop's sampling.")
@click.option("--fault-rate", default=0.0, show_default=True, type=float,
              help="Share of simulator calls that fail environmentally (source sim).")
@click.option("--max-depth", default=3, show_default=True, type=int, help="Links per sampled path.")
@click.option("--w-s", "w_s", default=2.0, show_default=True, type=float, help="Beta increment of a structural failure.")
@click.option("--w-e", "w_e", default=0.25, show_default=True, type=float, help="Beta increment of an environmental failure.")
@click.option("--threshold", default=0.4, show_default=True, type=float, help="Viability: cut below this posterior mean.")
@click.option("--min-trials", default=2, show_default=True, type=int, help="Trials before a link may be cut.")
@click.option("--prior-strength", default=2.0, show_default=True, type=float,
              help="Pseudo-trials the scorer's feasibility is worth in each link's prior.")
@click.option("--source", default="sim", show_default=True,
              help="sim (in-process simulator), replay (a snapshot), live, or a mirror URL.")
@click.option("--sim-seed", default=0, show_default=True, type=int, help="World seed of the simulator (source sim).")
@click.option("--as-of", default="2026-09-01", show_default=True, help="Simulator as-of date (source sim).")
@_replay_options
@click.option("--no-plots", is_flag=True, help="Skip scatter.png and curves.png.")
@click.option("--json", "as_json", is_flag=True, help="Print the report as one JSON object.")
@_build_options
@_catalog_option
def graph_prune(run_dir, iterations, paths, seed, fault_rate, max_depth, w_s, w_e, threshold, min_trials,
                prior_strength, source, sim_seed, as_of, snapshot, mode, store, no_plots, as_json, same_domain,
                cross_domain, min_score, embedder, scorer, llm_url, llm_model, catalog_files, scale) -> None:
    """Execute sampled paths (Thompson sampling over Beta posteriors) and cut links that do not execute.

    Builds the candidate graph first when the run directory has none.
    Example: kopa-replay graph prune --iterations 20 --paths 200 --fault-rate 0.1 --json
    """
    from contextlib import ExitStack

    from kopa_replay.graph.pipeline import RunDir, prune_graph
    from kopa_replay.graph.prune import PruneConfig

    cat = _load_catalog(catalog_files, scale)
    config = PruneConfig(iterations=iterations, paths=paths, seed=seed, max_depth=max_depth, w_s=w_s, w_e=w_e,
                         threshold=threshold, min_trials=min_trials, prior_strength=prior_strength)
    if not 0.0 <= fault_rate <= 1.0:
        raise UsageError(f"--fault-rate must lie in [0, 1], not {fault_rate}")
    if not RunDir(run_dir).candidates.exists():
        _build(cat, run_dir, same_domain, cross_domain, min_score, embedder, scorer, llm_url, llm_model, store,
               ",".join(catalog_files) or scale)
    described = {"source": source, "snapshot": snapshot, "mode": mode if snapshot else None,
                 "sim_seed": sim_seed if source == "sim" else None, "as_of": as_of if source == "sim" else None,
                 "fault_rate": fault_rate}
    with ExitStack() as stack:
        env = _open_env(stack, cat, source, sim_seed, as_of, snapshot, mode, store, fault_rate)
        bar = stack.enter_context(_progress())
        if bar is not None:   # a terminal: one bar with an ETA
            def progress(h):
                bar("pruning (iterations)", h.iteration, config.iterations)
        else:                 # a log: a line per iteration (none with --json)
            progress = None if as_json else (lambda h: click.echo(
                f"iteration {h.iteration:>3}: paths passed {h.path_pass_rate:6.1%}  steps ok "
                f"{h.step_success_rate:6.1%}  cut {h.links_cut:>4}  retained {h.links_retained}", err=True))
        report = prune_graph(cat, run_dir, env, config, source=described, plots=not no_plots, progress=progress)
    if as_json:
        click.echo(_dump(report))
        return
    _print_report(report)


def _print_report(report: dict) -> None:
    def pct(value):
        return "n/a" if value is None else f"{value:.1%}"

    click.echo(f"candidate links {report['links_candidate']}, pruned {report['links_pruned']} "
               f"({report['calls']} calls)")
    click.echo(f"execution rate: before {pct(report['exec_rate_before'])}, after {pct(report['exec_rate_after'])}, "
               f"pruned links {pct(report['exec_rate_pruned'])}")
    click.echo(f"never succeeded: pruned {pct(report['never_succeeded_pruned'])}, "
               f"retained {pct(report['never_succeeded_retained'])}")
    click.echo(f"against the simulator's truth: precision {pct(report['precision'])}, recall {pct(report['recall'])}, "
               f"true-link retention {pct(report['true_link_retention'])}")
    click.echo(f"graph {report['graph']} (digest {report['graph_digest'][:16]}…)")


@graph.command("reverify")
@_run_dir_option
@click.option("--snapshot", required=True,
              help="The later snapshot (as `kopa-replay refresh` writes it): the drift is diffed against it, and "
                   "re-test calls are answered from it when it holds them.")
@click.option("--base", help="The snapshot the prune ran against [default: the one the prune's report records].")
@click.option("--source", default=None,
              help="Where calls the snapshot lacks go: sim, replay (nowhere: counted unanswered), live or a mirror "
                   "URL [default: sim when the snapshot was recorded from the simulator, else replay].")
@click.option("--as-of", help="Simulator date for --source sim [default: the snapshot's as-of date].")
@click.option("--sim-seed", type=int, default=None, help="Simulator world seed [default: the snapshot's].")
@click.option("--record-into", metavar="SNAPSHOT",
              help="Record the answers the snapshot lacks into this other snapshot (and replay them from it on the "
                   "next run: with --source replay the rerun is offline).")
@click.option("--trials", default=4, show_default=True, type=int,
              help="Most trials per re-tested link (fewer once it is cut, or once no outcome left could cut it).")
@click.option("--seed", default=0, show_default=True, type=int, help="Seed of the trials' sampling.")
@_store_option
@click.option("--format", "fmt", type=click.Choice(["text", "json", "markdown", "junit"]), default="text",
              show_default=True, help="junit: one testcase per re-tested link, a failing one per broken link.")
@click.option("--fail-on", type=click.Choice(["broken", "undecided"]),
              help="Exit 1 when a link broke (undecided: or could not be re-tested).")
@_catalog_option
def graph_reverify(run_dir, snapshot, base, source, as_of, sim_seed, record_into, trials, seed, store, fmt, fail_on,
                   catalog_files, scale) -> None:
    """Re-test only the pruned graph's links that the drift between two snapshots touches; report what broke.

    Writes graph.reverified.json and reverify.json into the run directory (graph.json stays as pruned).
    Example: kopa-replay graph reverify --run-dir runs/graph --base 2026-09-01 --snapshot 2026-12-01 --fail-on broken
    """
    from kopa_replay.graph.reverify import Answering, ReverifyConfig, crosses, render, reverify_snapshot

    _date(as_of, "--as-of")
    result = reverify_snapshot(_load_catalog(catalog_files, scale), run_dir, snapshot=snapshot,
                               store=_store_path(store), base=base,
                               answering=Answering(source, as_of, sim_seed, record_into),
                               config=ReverifyConfig(trials=trials, seed=seed))
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
@click.option("--json", "as_json", is_flag=True, help="Print as JSON.")
def graph_stats(run_dir, as_json) -> None:
    """Counts of the run's graph (pruned if pruned, else the candidates) and the pruning report.

    Example: kopa-replay graph stats --run-dir runs/graph
    """
    from kopa_replay.graph.pipeline import RunDir, stats

    links, meta = _graph_links(run_dir)
    out = {**stats(links), "stage": meta.get("stage")}
    run = RunDir(run_dir)
    if run.report.exists():
        report = run.read_report()
        out["report"] = {k: report.get(k) for k in ("exec_rate_before", "exec_rate_after", "exec_rate_pruned",
                                                   "precision", "recall", "true_link_retention", "calls")}
    if as_json:
        click.echo(_dump(out))
        return
    click.echo(f"{out['stage']}: {out['links']} links, {out['retained']} retained, {out['pruned']} pruned, "
               f"{out['cross_domain']} cross-domain, {out['tools_with_links']} tools")
    for name, degree in out["top_sources"]:
        click.echo(f"  {name}: {degree} outgoing")
    if "report" in out:
        click.echo("  " + ", ".join(f"{k}={v}" for k, v in out["report"].items()))


@graph.command("show")
@click.argument("tool")
@_run_dir_option
@click.option("--json", "as_json", is_flag=True, help="Print as JSON.")
def graph_show(tool, run_dir, as_json) -> None:
    """The links into and out of TOOL: binding, prior, posterior, trials, pruned.

    Example: kopa-replay graph show dart_corp_code
    """
    links, _ = _graph_links(run_dir)
    known = {name for link in links for name in link.key}
    if tool not in known:
        raise UsageError(f"tool {tool!r} has no link in the graph of {run_dir}")
    rows = {"outgoing": [link for link in links if link.source == tool],
            "incoming": [link for link in links if link.target == tool]}
    if as_json:
        click.echo(_dump({side: [{**link.to_dict(), "posterior_mean": round(link.posterior_mean, 6)} for link in items]
                          for side, items in rows.items()}))
        return
    for side, items in rows.items():
        click.echo(f"{side} ({len(items)}):")
        for link in items:
            other = link.target if side == "outgoing" else link.source
            binding = ", ".join(f"{p}<-{f}" for p, f in sorted(link.binding.items()))
            state = f"pruned@{link.pruned_at}" if link.pruned else "kept"
            click.echo(f"  {other:<40} {binding:<40} prior {link.prior:.2f} posterior {link.posterior_mean:.2f} "
                       f"trials {link.trials} ok {link.successes} {state}")
