"""``synth``, ``filter`` and ``filter-defects`` (EDGE Phase B): synthesis and filtering."""

from __future__ import annotations

import json

import click

from kopa_replay.cli.common import (_catalog_option, _chat_client, _decontaminate_options, _decontaminated,
                                    _decontaminator, _dump, _env_options, _llm_options, _load_catalog, _open_env,
                                    _progress, cli)
from kopa_replay.errors import UsageError


@cli.command("synth")
@click.option("--graph-dir", default="runs/graph", show_default=True, type=click.Path(file_okay=False),
              help="The run directory of `graph prune` (its graph.json).")
@click.option("--out", default="runs/synth", show_default=True, type=click.Path(file_okay=False),
              help="Where trajectories, SFT/GRPO datasets and statistics are written.")
@click.option("--trajectories", default=200, show_default=True, type=int, help="How many trajectories to keep.")
@click.option("--seed", default=0, show_default=True, type=int, help="Seed of the walk.")
@click.option("--fan-out-budget", default=5, show_default=True, type=int,
              help="B: 1 value = sequential, 2..B = fan-out, more = derived (reduced to at most B first).")
@click.option("--max-links", default=3, show_default=True, type=int, help="Links per trajectory at most.")
@click.option("--page-budget", default=5, show_default=True, type=int, help="Pages read per step at most.")
@click.option("--writer", type=click.Choice(["intent", "template", "llm"]), default="intent", show_default=True,
              help="intent: questions a person would ask, from the intent table (offline; the walk keeps to the "
                   "links the table gives a meaning); template: the old call-script questions over every retained "
                   "link (an ablation); llm: a model over an OpenAI-compatible server, walking as intent does.")
@click.option("--intents", "intents_file", type=click.Path(dir_okay=False),
              help="An intent table (YAML, the format of kopa_replay/synth/intents.yaml) instead of the shipped one; "
                   "needed for --writer intent|llm over another catalog.")
@click.option("--exclude-platform", "excluded", multiple=True, metavar="PLATFORM",
              help="Never call this platform's tools (repeatable); the benchmark's held-out split is "
                   "dart, krx and seoul.")
@_llm_options("that writes questions")
@_env_options
@click.option("--json", "as_json", is_flag=True, help="Print the statistics as one JSON object.")
@_decontaminate_options
@_catalog_option
def synth(graph_dir, out, trajectories, seed, fan_out_budget, max_links, page_budget, excluded, writer, intents_file,
          llm_url, llm_model, source, sim_seed, as_of, snapshot, mode, store, as_json, catalog_files, scale,
          decontaminate, bench_tasks) -> None:
    """Walk the pruned graph into executed trajectories with typed junctions; write datasets and statistics.

    Example: kopa-replay synth --graph-dir runs/graph --out runs/synth --trajectories 200 --json
    """
    from contextlib import ExitStack
    from pathlib import Path

    from kopa_replay.synth import SynthConfig
    from kopa_replay.synth.pipeline import retained_links, run_synthesis

    cat = _load_catalog(catalog_files, scale)
    unknown = sorted(set(excluded) - {tool.platform for tool in cat})
    if unknown:
        raise UsageError(f"--exclude-platform: no platform {', '.join(unknown)} in the catalog "
                         f"(platforms: {', '.join(sorted({tool.platform for tool in cat}))})")
    config = SynthConfig(trajectories=trajectories, seed=seed, fan_out_budget=fan_out_budget, max_links=max_links,
                         page_budget=page_budget, exclude_platforms=tuple(sorted(excluded)))
    links = retained_links(Path(graph_dir) / "graph.json", cat)
    exclude = _decontaminator(decontaminate, bench_tasks)
    intents = None
    if writer != "template":
        from kopa_replay.synth.intents import load_intents

        intents = load_intents(intents_file, catalog=cat)
    with ExitStack() as stack:
        from kopa_replay.synth.questions import IntentWriter, LLMWriter, TemplateWriter

        chosen = {"intent": lambda: IntentWriter(intents), "template": TemplateWriter,
                  "llm": lambda: LLMWriter(_chat_client(stack, llm_url, llm_model, out, "--writer"),
                                           draft=IntentWriter(intents))}[writer]()
        env = _open_env(stack, cat, source, sim_seed, as_of, snapshot, mode, store)
        progress = stack.enter_context(_progress())
        stats = run_synthesis(cat, links, env, out, config, chosen, exclude=exclude, intents=intents,
                              progress=progress)
    if as_json:
        click.echo(_dump(stats))
        return
    from kopa_replay.synth.stats import stats_table

    click.echo(stats_table(stats))
    click.echo(f"{stats['trajectories']} trajectories in {stats['attempts']} attempts, "
               f"{_decontaminated(stats['decontaminated'])} -> {out} (output digest {stats['output_digest'][:16]}…)")


@cli.command("filter")
@click.option("--in", "in_dir", default="runs/synth", show_default=True, type=click.Path(file_okay=False),
              help="A `synth` output directory (its trajectories.jsonl).")
@click.option("--out", default=None, type=click.Path(file_okay=False),
              help="Where the kept datasets and filter_report.json go [default: IN/filtered].")
@click.option("--judges", type=click.Choice(["deterministic", "llm"]), default="deterministic", show_default=True,
              help="Stage 2's two judges: the offline pair, or the offline regex judge beside a model.")
@_llm_options("that judges")
@_env_options
@click.option("--no-reproduce", is_flag=True, help="Skip stage 1's re-execution check.")
@click.option("--no-resolve", is_flag=True, help="Skip stage 3 (re-solve and replace answers).")
@click.option("--json", "as_json", is_flag=True, help="Print the filter report as one JSON object.")
@_decontaminate_options
@_catalog_option
def filter_(in_dir, out, judges, llm_url, llm_model, source, sim_seed, as_of, snapshot, mode, store, no_reproduce,
            no_resolve, as_json, catalog_files, scale, decontaminate, bench_tasks) -> None:
    """Three stages over synthesized trajectories: rules, two agreeing judges, re-solve; every discard with a reason.

    Example: kopa-replay filter --in runs/synth --json
    """
    from contextlib import ExitStack
    from pathlib import Path

    from kopa_replay.filter import FilterConfig, default_judges, run_filter
    from kopa_replay.synth.pipeline import SynthDir, read_trajectories, write_datasets
    from kopa_replay.util import write_atomic

    cat = _load_catalog(catalog_files, scale)
    out = Path(out) if out else Path(in_dir) / "filtered"
    trajectories = read_trajectories(SynthDir(in_dir).trajectories)
    exclude = _decontaminator(decontaminate, bench_tasks)
    with ExitStack() as stack:
        chosen = default_judges()
        if judges == "llm":
            from kopa_replay.filter import LLMJudge

            chosen = (chosen[0], LLMJudge(_chat_client(stack, llm_url, llm_model, out, "--judges")))
        env = _open_env(stack, cat, source, sim_seed, as_of, snapshot, mode, store)
        result = run_filter(trajectories, cat, env, chosen,
                            config=FilterConfig(reproduce=not no_reproduce, resolve=not no_resolve), exclude=exclude)
    stats = write_datasets(out, result.kept, cat)
    report = {**result.report, "output_digest": stats["output_digest"], "out": str(out),
              "discards": [d._asdict() for d in result.discarded],
              "replacements": [{"trajectory_id": r.trajectory_id, "old": r.old.value, "new": r.new.value,
                                "reason": r.reason} for r in result.replaced]}
    write_atomic(out / "filter_report.json", json.dumps(report, ensure_ascii=False, sort_keys=True, indent=2,
                                                        default=str) + "\n")
    if as_json:
        click.echo(_dump(report))
        return
    click.echo(f"kept {report['kept']} of {report['input']}, discarded {report['discarded']} "
               f"({_decontaminated(report['decontaminated'])}), answers replaced {report['replaced']} -> {out}")
    for discard in result.discarded[:20]:
        click.echo(f"  {discard.trajectory_id}: {discard.stage}/{discard.check}: {discard.detail}")
    if len(result.discarded) > 20:
        click.echo(f"  … {len(result.discarded) - 20} more in {out / 'filter_report.json'}")


@cli.command("filter-defects")
@click.option("--in", "in_dir", default="runs/synth", show_default=True, type=click.Path(file_okay=False),
              help="A `synth` output directory (its trajectories.jsonl): the clean items defects are made from.")
@click.option("--injector", type=click.Choice(["seeded", "independent", "both"]), default="both", show_default=True,
              help="Who makes the defects: the seeded injector (kopa_replay.filter.defects), the independent one "
                   "written without the filter's code (kopa_replay.filter.adversary), or both on the same items.")
@click.option("--per-kind", default=15, show_default=True, type=int, help="Defects per kind and seed at most.")
@click.option("--seed", "seeds", multiple=True, type=int, help="Injection seed (repeatable) [default: 0 1 2].")
@_env_options
@click.option("--json", "as_json", is_flag=True, help="Print the measurement (per seed, with every miss) as JSON.")
@_catalog_option
def filter_defects(in_dir, injector, per_kind, seeds, source, sim_seed, as_of, snapshot, mode, store, as_json,
                   catalog_files, scale) -> None:
    """Inject labelled defects into synthesized items and report how many the filter catches, per kind.

    Example: kopa-replay filter-defects --in runs/synth --injector both --per-kind 15 --seed 0 --seed 1 --seed 2
    """
    from contextlib import ExitStack

    from kopa_replay.filter.recall import INJECTORS, defects_table, measure_many
    from kopa_replay.synth.pipeline import SynthDir, read_trajectories

    cat = _load_catalog(catalog_files, scale)
    trajectories = read_trajectories(SynthDir(in_dir).trajectories)
    with ExitStack() as stack:
        env = _open_env(stack, cat, source, sim_seed, as_of, snapshot, mode, store)
        summary = measure_many(trajectories, cat, env, injectors=INJECTORS if injector == "both" else (injector,),
                               seeds=seeds or (0, 1, 2), per_kind=per_kind)
    if as_json:
        click.echo(json.dumps(summary, ensure_ascii=False, indent=2, default=str))
        return
    click.echo(defects_table(summary))
