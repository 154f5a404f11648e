"""The ``kopa-replay`` command line: a thin layer over the library.

Each command parses its options, calls one library function and prints. Any
:class:`~kopa_replay.errors.KopaError` becomes one ``Error: …`` line and exit
code 1 (in :class:`_Group`, in one place); other exceptions are bugs and keep
their traceback.
"""

from __future__ import annotations

import datetime as dt
import json
import sys
from contextlib import contextmanager
from typing import Any

import click

from kopa_replay.errors import KopaError, UsageError

__all__ = ["cli", "main"]


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


# -- catalog ---------------------------------------------------------------
@cli.group(cls=_Group)
def catalog() -> None:
    """List, show, validate and export tool catalogs.

    Example: kopa-replay catalog list --platform dart
    """


@catalog.command("list")
@_catalog_option
@click.option("--platform", help="Only tools of this platform id (dart, krx, seoul …).")
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead of a table.")
def catalog_list(catalog_files, scale, platform, as_json) -> None:
    """List tools: name, platform, domain and title.

    Example: kopa-replay catalog list --scale paper --json
    """
    cat = _load_catalog(catalog_files, scale)
    if platform and platform not in cat.platforms:
        raise UsageError(f"no platform {platform!r} in the catalog (platforms: {', '.join(cat.platforms)})")
    tools = list(cat.filter(platform=platform))
    if as_json:
        click.echo(_dump([{"name": t.name, "platform": t.platform, "domain": t.domain, "title": t.title}
                          for t in tools]))
        return
    width = max((len(t.name) for t in tools), default=10)
    for t in tools:
        click.echo(f"{t.name:<{width}}  {t.platform:<9} {t.domain:<9} {t.title}")
    click.echo(f"{len(tools)} tools, {len({t.platform for t in tools})} platforms, "
               f"{len({t.domain for t in tools})} domains")


@catalog.command("show")
@click.argument("tool")
@_catalog_option
def catalog_show(tool, catalog_files, scale) -> None:
    """Show one tool: its MCP definition and HTTP binding, as JSON.

    Example: kopa-replay catalog show dart_cvbd_is_decsn
    """
    from kopa_replay.catalog import tool_to_dict

    click.echo(_dump(tool_to_dict(_load_catalog(catalog_files, scale).get(tool))))


@catalog.command("validate")
@click.argument("files", nargs=-1, type=click.Path())
def catalog_validate(files) -> None:
    """Validate catalog files (the built-in catalog when none is given).

    Example: kopa-replay catalog validate my-platform.yaml
    """
    from kopa_replay.catalog import builtin_catalog, validate_file

    if not files:
        cat = builtin_catalog("builtin")
        click.echo(f"ok: built-in catalog, {len(cat)} tools on {len(cat.platforms)} platforms")
        return
    for file in files:
        cat = validate_file(file)
        click.echo(f"ok: {file}, {len(cat)} tools")


@catalog.command("export")
@click.option("--format", "fmt", type=click.Choice(["mcp", "openai"]), required=True,
              help="mcp: tools/list entries; openai: function-calling schemas.")
@click.option("--tools", "pattern", help="Only tools whose name matches this glob (dart_*).")
@click.option("--output", "-o", type=click.Path(dir_okay=False), help="Write to this file instead of stdout.")
@_catalog_option
def catalog_export(fmt, pattern, output, catalog_files, scale) -> None:
    """Export tool definitions for agents as JSON.

    Example: kopa-replay catalog export --format openai --tools 'dart_*'
    """
    from kopa_replay.catalog.export import export_catalog

    cat = _load_catalog(catalog_files, scale).filter(pattern)
    if pattern and not len(cat):
        raise UsageError(f"no tool matches {pattern!r}")
    text = _dump(export_catalog(cat, fmt))
    if output:
        from kopa_replay.util import write_atomic

        write_atomic(output, text + "\n")
        click.echo(f"wrote {len(cat)} tools to {output}", err=True)
    else:
        click.echo(text)


# -- sim -------------------------------------------------------------------
@cli.group(cls=_Group)
def sim() -> None:
    """Run the built-in simulator of the ten platforms.

    Example: kopa-replay sim serve --port 8765
    """


@sim.command("serve")
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to bind (loopback by default).")
@click.option("--port", default=8765, show_default=True, type=int, help="Port to listen on (0: any free port).")
@click.option("--seed", default=0, show_default=True, type=int, help="World seed.")
@click.option("--as-of", default="2026-09-01", show_default=True, help="Serve the APIs as they were on this date.")
@click.option("--fault-rate", default=0.0, show_default=True, type=float,
              help="Probability that an attempt fails environmentally (5xx, rate limit, maintenance).")
@click.option("--world-size", type=click.Choice(["default", "full"]), default="default", show_default=True,
              help="World size preset; 'full' reaches the real platforms' sizes.")
def sim_serve(host, port, seed, as_of, fault_rate, world_size) -> None:
    """Serve the simulator over HTTP, the real host as the first path segment.

    Example: kopa-replay sim serve --port 8765 --seed 0 --as-of 2026-09-01
    then GET http://127.0.0.1:8765/opendart.fss.or.kr/api/company.json?crtfc_key=sim-key&corp_code=…
    """
    from kopa_replay.sim import Simulator, make_server

    simulator = Simulator(seed=seed, as_of=_date(as_of, "--as-of"), fault_rate=fault_rate, world_size=world_size)
    try:
        server = make_server(simulator, host, port)
    except OSError as exc:
        raise UsageError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None
    bound = server.server_address[1]
    click.echo(f"serving the simulator (seed {seed}, as of {simulator.as_of}) on http://{host}:{bound}/"
               f"<real host>/<path>; key 'sim-key' or $KOPA_API_KEY. Ctrl-C stops.", err=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()


@sim.command("drift-events")
@click.option("--since", help="Only events after this date (YYYY-MM-DD).")
@click.option("--until", help="Only events on or before this date (YYYY-MM-DD).")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def sim_drift_events(since, until, as_json) -> None:
    """List the simulator's dated API changes.

    Example: kopa-replay sim drift-events --since 2026-09-01 --until 2026-12-01 --json
    """
    from kopa_replay.sim import events_between

    events = events_between(_date(since, "--since"), _date(until, "--until"))
    if as_json:
        click.echo(_dump([e.to_dict() for e in events]))
        return
    for e in events:
        click.echo(f"{e.date}  {e.platform:<9} {e.tool:<44} {e.field:<14} {e.kind}")
    click.echo(f"{len(events)} events")


# -- call ------------------------------------------------------------------
def _parse_kv(pairs: tuple[str, ...]) -> dict[str, str]:
    out: dict[str, str] = {}
    for pair in pairs:
        if "=" not in pair:
            raise UsageError(f"--arg takes NAME=VALUE, not {pair!r}")
        name, value = pair.split("=", 1)
        out[name.strip()] = value
    return out


@cli.command("call")
@click.argument("tool")
@click.option("--arg", "args", multiple=True, metavar="NAME=VALUE", help="A tool argument (repeatable).")
@click.option("--source", default="sim", show_default=True,
              help="sim (in-process simulator), live (real platforms) or a mirror URL (http://127.0.0.1:N).")
@click.option("--seed", default=0, show_default=True, type=int, help="Simulator seed (source sim).")
@click.option("--as-of", default="2026-09-01", show_default=True, help="Simulator as-of date (source sim).")
@click.option("--json", "as_json", is_flag=True, help="Print the parsed result as JSON.")
@click.option("--base-url", "base_urls", multiple=True, metavar="HOST=URL",
              help="Send one catalog host to a mirror (repeatable, with --source live), e.g. "
                   "opendart.fss.or.kr=http://127.0.0.1:8765.")
@_replay_options
@_catalog_option
def call(tool, args, source, seed, as_of, as_json, base_urls, snapshot, mode, store, catalog_files, scale) -> None:
    """Execute one tool call and print the parsed records.

    Example: kopa-replay call datagokr_get_stock_price_info --arg srtnCd=069540 --arg basDt=20260831
    """
    from kopa_replay.env import ToolEnvironment, coerce_args, open_source
    from kopa_replay.env.source import parse_mirrors

    cat = _load_catalog(catalog_files, scale)
    arguments = coerce_args(cat.get(tool), _parse_kv(args))
    with open_source(source, seed=seed, as_of=_date(as_of, "--as-of"), snapshot=snapshot, mode=mode,
                     store=store if snapshot else None, mirrors=parse_mirrors(base_urls),
                     catalog=cat) as src:
        result = ToolEnvironment(cat, src).call(tool, arguments)
    if as_json:
        click.echo(_dump(result.to_dict()))
    else:
        click.echo(f"{result.outcome} (code {result.code}, {result.message or ''}) "
                   f"total_count={result.total_count} records={len(result.records)}")
        for record in result.records:
            click.echo(json.dumps(record, ensure_ascii=False))
    if result.outcome not in ("ok", "empty"):
        sys.exit(3)   # the call ran and answered an error: apart from 1 (a mistake) and 2 (usage)


@cli.command("showcase")
@click.option("--source", default="sim", show_default=True,
              help="sim (in-process simulator), live (real platforms) or a mirror URL (http://127.0.0.1:N).")
@click.option("--seed", default=0, show_default=True, type=int, help="Simulator seed (source sim).")
@click.option("--as-of", default="2026-09-01", show_default=True, help="As-of date: the prior close is the business day before.")
@click.option("--json", "as_json", is_flag=True, help="Print every step and the answer as JSON.")
@_replay_options
def showcase(source, seed, as_of, as_json, snapshot, mode, store) -> None:
    """Walk the paper's Lightron task: corp_code → CB floor price → prior close → premium.

    Example: kopa-replay showcase --json
    """
    from kopa_replay.catalog import builtin_catalog
    from kopa_replay.env import open_source
    from kopa_replay.sim.showcase import walk_lightron

    day = _date(as_of, "--as-of")
    with open_source(source, seed=seed, as_of=day, snapshot=snapshot, mode=mode,
                     store=store if snapshot else None, catalog=builtin_catalog()) as src:
        result = walk_lightron(builtin_catalog(), src, day)
    if as_json:
        click.echo(_dump(result.to_dict()))
        return
    for number, step in enumerate(result.steps, 1):
        args = " ".join(f"{k}={v}" for k, v in step.args.items())
        picked = " ".join(f"{k}={v}" for k, v in step.picked.items())
        click.echo(f"{number}. {step.tool}({args}) -> {picked}")
    click.echo(f"4. ({result.prior_close} - {result.floor_price}) / {result.floor_price} = "
               f"{result.premium_pct:.3f}% above the refixing floor (the paper prints 215.78%)")


# -- recorder ----------------------------------------------------------------
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


@cli.command("record")
@click.option("--snapshot", required=True,
              help="Name of the new snapshot, by convention its as-of date; an open one with the same settings is "
                   "resumed (only what it lacks is sent).")
@click.option("--no-seal", is_flag=True, help="Leave the snapshot open for more recording.")
@click.option("--commit-every", type=click.IntRange(min=1), default=None,
              help="Commit recorded answers in batches of this many [default: 128, and at least every 0.5 s]; "
                   "a kill loses at most the batch not yet committed.")
@click.option("--bench/--no-bench", default=None,
              help="Also record the calls of the benchmark's oracle and baseline agents [default: with source sim, "
                   "whose world the tasks are written over].")
@_source_options
@_store_option
@_catalog_option
@click.option("--json", "as_json", is_flag=True, help="Print the summary as JSON.")
def record(snapshot, no_seal, commit_every, bench, source, as_of, seed, base_urls, store, catalog_files, scale,
           as_json) -> None:
    """Record every tool's probe calls (catalog examples, largest pages) and the benchmark's calls into a new snapshot.

    Example: kopa-replay record --source sim --as-of 2026-09-01 --snapshot 2026-09-01
    """
    from kopa_replay.env.source import parse_mirrors
    from kopa_replay.record.workflows import record_snapshot

    _date(as_of, "--as-of")
    path = _writable_store(store, "record")
    cat = _load_catalog(catalog_files, scale)
    mirrors = parse_mirrors(base_urls)
    requests = _bench_requests(bench, cat, source, seed, as_of or snapshot, mirrors)
    with _progress() as progress:
        summary = record_snapshot(cat, store_path=path, snapshot=snapshot, source=source, as_of=as_of, seed=seed,
                                  mirrors=mirrors, seal=not no_seal, requests=requests, commit_every=commit_every,
                                  progress=progress)
    if as_json:
        click.echo(_dump(summary.to_dict()))
        return
    outcomes = ", ".join(f"{k} {v}" for k, v in sorted(summary.outcomes.items()))
    click.echo(f"recorded {summary.calls} calls into snapshot {snapshot} ({outcomes})")
    if summary.manifest:
        click.echo(f"sealed: digest {summary.manifest['digest']}, manifest {_manifest_file(path, snapshot)}")


@cli.command("refresh")
@click.option("--base", required=True, help="The snapshot whose requests are re-executed.")
@click.option("--snapshot", required=True, help="Name of the new snapshot.")
@_source_options
@_store_option
@_catalog_option
@_drift_report_options
@click.option("--retries", default=3, show_default=True, type=int,
              help="Retry an environmental failure (429/5xx, a rate-limit or maintenance code) up to N times before "
                   "recording it.")
@click.option("--retry-backoff", default=0.5, show_default=True, type=float,
              help="First wait between retries in seconds (doubling; at least the server's Retry-After; at most 30).")
@click.option("--tools", "tools_pattern", help="Incremental: re-execute only the requests of tools matching this "
                                                "glob (dart_*); carry every other interaction over unchanged.")
@click.option("--changed-since", help="Incremental: re-execute only the tools whose answers drifted or failed "
                                      "between this snapshot and --base; carry the rest over unchanged.")
@click.option("--bench/--no-bench", default=None,
              help="Also record the requests the benchmark's plans make on the new source (bench drift re-runs "
                   "them) [default: with source sim].")
def refresh(base, snapshot, source, as_of, seed, base_urls, store, catalog_files, scale, fmt, fail_on, retries,
            retry_backoff, tools_pattern, changed_since, bench) -> None:
    """Re-execute every request of a snapshot against a source into a new one and report drift.

    Example: kopa-replay refresh --base 2026-09-01 --snapshot 2026-12-01 --source sim --as-of 2026-12-01
    """
    from kopa_replay.drift import crosses, render
    from kopa_replay.env.source import parse_mirrors
    from kopa_replay.record.workflows import refresh_snapshot

    _date(as_of, "--as-of")
    path = _writable_store(store, "refresh")
    cat, mirrors = _load_catalog(catalog_files, scale), parse_mirrors(base_urls)
    requests = _bench_requests(bench, cat, source, seed, as_of or snapshot, mirrors)
    with _progress() as progress:
        summary = refresh_snapshot(cat, store_path=path, base=base, snapshot=snapshot, source=source, as_of=as_of,
                                   seed=seed, mirrors=mirrors, retries=retries, retry_backoff=retry_backoff,
                                   tools=tools_pattern, changed_since=changed_since, requests=requests,
                                   progress=progress)
    click.echo(render(summary.report, fmt, fail_on), nl=False)
    tries, unanswered = summary.retries or {}, summary.outcomes.get("no_answer", 0)
    if tries.get("retried") or tries.get("still_failing"):
        # noise, not drift: on stderr, so --format json stays one document
        failing = tries["still_failing"]
        click.echo(f"environmental failures: {tries['retried']} requests retried, {tries['recovered']} answered "
                   f"on a retry, {failing} still failing after {retries} retries: {failing - unanswered} recorded "
                   f"as the failure they got, {unanswered} got no answer at all (left out of {snapshot}); both "
                   "listed apart from the drift", err=True)
    if summary.manifest:
        click.echo(f"sealed {snapshot}: digest {summary.manifest['digest']}, manifest {_manifest_file(path, snapshot)}",
                   err=True)
    made = (summary.manifest or {}).get("refresh", {})
    if tools_pattern or changed_since:
        click.echo(f"incremental: re-executed {made['re_executed']['interactions']} requests of "
                   f"{len(made['re_executed']['tools'])} tools, carried over {made['carried_over']['interactions']} "
                   f"unchanged from {base} ({len(made['carried_over']['tools'])} tools)", err=True)
    if fail_on and crosses(summary.report, fail_on):
        sys.exit(1)


@cli.group(cls=_Group)
def snapshot() -> None:
    """List, show, seal and verify snapshots.

    Example: kopa-replay snapshot list
    """


@snapshot.command("list")
@_store_option
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def snapshot_list(store, as_json) -> None:
    """List the snapshots of a store.

    Example: kopa-replay snapshot list --store cassettes/kopa.sqlite
    """
    with _open_store(store) as opened:
        snapshots = opened.snapshots()
    if as_json:
        click.echo(_dump([vars(s) for s in snapshots]))
        return
    for s in snapshots:
        state = "sealed" if s.sealed else "unfinished" if s.unfinished else "open"
        click.echo(f"{s.name:<14} {state:<10} {s.interactions:>8} interactions  as of {s.as_of}  source {s.source}")


@snapshot.command("show")
@click.argument("name")
@_store_option
def snapshot_show(name, store) -> None:
    """Show a snapshot's manifest (or its store record when unsealed) as JSON.

    Example: kopa-replay snapshot show 2026-09-01
    """
    from kopa_replay.record.snapshots import load_manifest

    with _open_store(store) as opened:
        info = opened.snapshot(name)
        manifest = load_manifest(opened, name)
    click.echo(_dump(manifest if manifest is not None else vars(info)))


@snapshot.command("seal")
@click.argument("name")
@click.option("--force", is_flag=True, help="Seal even though its recording did not finish (freezes a partial recording).")
@_store_option
@_catalog_option
def snapshot_seal(name, force, store, catalog_files, scale) -> None:
    """Seal a snapshot (immutable from now on) and write its manifest.

    A snapshot whose `record`/`refresh` did not finish is refused unless --force: run the
    same command again to resume it instead.

    Example: kopa-replay snapshot seal 2026-09-01
    """
    from kopa_replay.record.snapshots import seal_snapshot

    with _open_store(store, readonly=False) as opened:
        manifest = seal_snapshot(opened, name, _load_catalog(catalog_files, scale), force=force)
        opened.finalize()
    click.echo(f"sealed {name}: {manifest['interactions']} interactions, digest {manifest['digest']}")


@snapshot.command("delete")
@click.argument("name")
@_store_option
def snapshot_delete(name, store) -> None:
    """Remove an open (unsealed) snapshot and its interactions; a sealed one is refused.

    Example: kopa-replay snapshot delete 2026-12-01
    """
    with _open_store(store, readonly=False) as opened:
        count = opened.snapshot(name).interactions
        opened.delete_snapshot(name)
    click.echo(f"deleted open snapshot {name} ({count} interactions)")


@snapshot.command("verify")
@click.argument("name")
@_store_option
def snapshot_verify(name, store) -> None:
    """Recompute a snapshot's digest and the digest of every body it uses; compare with the seal and the manifest.

    Example: kopa-replay snapshot verify 2026-09-01
    """
    from kopa_replay.errors import SnapshotError
    from kopa_replay.record.snapshots import verify_snapshot

    with _open_store(store) as opened:
        problems = verify_snapshot(opened, name)
    if problems:
        raise SnapshotError(f"snapshot {name!r}: " + "; ".join(problems))
    click.echo(f"ok: snapshot {name} matches its digest")


@cli.group(cls=_Group)
def cassette() -> None:
    """Inspect, verify and import cassette stores.

    Example: kopa-replay cassette stats
    """


@cassette.command("path")
@click.option("--shipped", is_flag=True, help="The package's shipped store instead of the default one.")
def cassette_path(shipped) -> None:
    """Print the store commands use without --store ($KOPA_STORE, else ./cassettes/kopa.sqlite, else the shipped one).

    Example: cp "$(kopa-replay cassette path --shipped)" my.sqlite   # a store of your own to refresh into
    """
    from kopa_replay.record.store import shipped_store_path

    click.echo(str(shipped_store_path() if shipped else _store_path(None)))


@cassette.command("verify")
@_store_option
def cassette_verify(store) -> None:
    """Re-hash every stored body and check the database; exit 1 on corruption.

    Example: kopa-replay cassette verify --store cassettes/kopa.sqlite
    """
    from kopa_replay.errors import StoreError

    with _open_store(store) as opened:
        problems = opened.verify()
    if problems:
        raise StoreError(f"store {opened.path} is corrupt: " + "; ".join(problems[:5])
                         + (f" (+{len(problems) - 5} more)" if len(problems) > 5 else ""))
    click.echo(f"ok: every body in {opened.path} matches its digest")


@cassette.command("stats")
@_store_option
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def cassette_stats(store, as_json) -> None:
    """Counts and sizes of a store: interactions per snapshot, bodies, bytes.

    Example: kopa-replay cassette stats --json
    """
    with _open_store(store) as opened:
        stats = opened.stats()
    if as_json:
        click.echo(_dump(stats))
        return
    for key, value in stats.items():
        click.echo(f"{key}: {value}")


@cassette.command("import-vcr")
@click.argument("file", type=click.Path(dir_okay=False))
@click.option("--snapshot", required=True, help="Snapshot to import into (created if absent; not a sealed one).")
@_store_option
@_catalog_option
def cassette_import_vcr(file, snapshot, store, catalog_files, scale) -> None:
    """Import an existing vcrpy YAML cassette into a snapshot (keys redacted on the way in).

    Example: kopa-replay cassette import-vcr tests/cassettes/dart.yaml --snapshot legacy
    """
    from kopa_replay.record import redactor_for
    from kopa_replay.record.vcr import import_vcr_cassette

    with _open_store(store, readonly=False) as opened:
        count = import_vcr_cassette(file, opened, snapshot, redactor=redactor_for(_load_catalog(catalog_files, scale)))
    click.echo(f"imported {count} interactions from {file} into snapshot {snapshot}"
               + (" (nothing new: this file was imported into it before)" if count == 0 else ""))


@cli.group(cls=_Group)
def drift() -> None:
    """Compare the response schemas of two snapshots.

    Example: kopa-replay drift diff 2026-09-01 2026-12-01
    """


@drift.command("diff")
@click.argument("before")
@click.argument("after")
@_store_option
@_catalog_option
@_drift_report_options
def drift_diff(before, after, store, catalog_files, scale, fmt, fail_on) -> None:
    """Schema changes per tool and field, and request by request, between two snapshots, with severities.

    Environmental failures (429/5xx, no answer) and data that moved (values, totals) are listed apart: they are
    not drift and never fail --fail-on.
    Example: kopa-replay drift diff 2026-09-01 2026-12-01 --format markdown --fail-on breaking
    """
    from kopa_replay.drift import crosses, render
    from kopa_replay.record.workflows import drift_report

    with _open_store(store) as opened:
        report = drift_report(opened, _load_catalog(catalog_files, scale), before, after)
    click.echo(render(report, fmt, fail_on), nl=False)
    if fail_on and crosses(report, fail_on):
        sys.exit(1)


@cli.group(cls=_Group)
def mcp() -> None:
    """Serve catalog tools to any MCP client, answered from a snapshot.

    Example: kopa-replay mcp serve --snapshot 2026-09-01 --tools 'dart_*'
    """


@mcp.command("serve")
@click.option("--snapshot", default="2026-09-01", show_default=True, help="The snapshot that answers every call.")
@click.option("--transport", type=click.Choice(["stdio", "http"]), default="stdio", show_default=True,
              help="stdio for a client that launches the server; http serves streamable HTTP at /mcp.")
@click.option("--tools", "tools_pattern", help="Only tools whose name matches this glob (dart_*).")
@click.option("--host", default="127.0.0.1", show_default=True, help="Address for --transport http.")
@click.option("--port", default=8000, show_default=True, type=int, help="Port for --transport http.")
@_store_option
def mcp_serve(snapshot, transport, tools_pattern, host, port, store) -> None:
    """Run an MCP server whose tools replay a snapshot (strict, offline).

    Example: kopa-replay mcp serve --snapshot 2026-09-01 --transport stdio
    """
    from kopa_replay.serve.mcp import serve

    serve(snapshot, transport, tools_pattern, store, host, port)   # no store: the default, or the shipped one


def _open_env(stack, cat, source, sim_seed, as_of, snapshot, mode, store, fault_rate=0.0):
    """A ToolEnvironment over the chosen source (closed with ``stack``): what graph prune, synth and filter run on."""
    from kopa_replay.env import ToolEnvironment, open_source

    src = stack.enter_context(open_source(source, seed=sim_seed, as_of=_date(as_of, "--as-of"), fault_rate=fault_rate,
                                          snapshot=snapshot, mode=mode,
                                          store=store if snapshot else None, catalog=cat))
    return ToolEnvironment(cat, src)

# -- graph (EDGE Phase A) ----------------------------------------------------------
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


# -- synthesis and filtering (EDGE Phase B) ----------------------------------------
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


# -- bench (KOPA-Bench) --------------------------------------------------------------
@cli.group(cls=_Group)
def bench() -> None:
    """Run agents on the benchmark tasks, grade them on three axes, audit training data against them.

    Example: kopa-replay bench run --agent oracle --rollouts 4
    """


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


@bench.command("drift")
@click.argument("before")
@click.argument("after")
@_tasks_option
@_store_option
@click.option("--write", "write_dir", type=click.Path(file_okay=False),
              help="Write the task set re-pinned to AFTER here (answers, digests, required actions recomputed; tasks "
                   "that no longer execute kept and tagged stale:no_longer_executes) with drift.json.")
@_report_options(["changed", "broken"], "Exit 1 when any task is listed (changed: its answer, paging or calls "
                                        "moved, or it does not run), or only when a task does not run on AFTER or "
                                        "AFTER lacks a request it makes (broken).")
@_catalog_option
def bench_drift(before, after, tasks_dir, store, write_dir, fmt, fail_on, catalog_files, scale) -> None:
    """Re-run every task's reference plan on snapshots BEFORE and AFTER and list the tasks the drift moved.

    Each listed task (answer changed, no longer executes, paging changed, request not recorded) names the
    drift changes and data changes of the requests its plan makes.
    Example: kopa-replay bench drift 2026-09-01 2026-12-01 --write runs/tasks-2026-12-01 --fail-on broken
    """
    from kopa_replay.bench.drift import render_answer_drift, run_answer_drift
    from kopa_replay.bench.suite import load_task_set

    report = run_answer_drift(_load_catalog(catalog_files, scale), store_path=_store_path(store), before=before,
                              after=after, task_set=load_task_set(tasks_dir), write=write_dir)
    click.echo(render_answer_drift(report, fmt, fail_on), nl=False)
    if write_dir:
        click.echo(f"re-pinned task set -> {write_dir}", err=True)
    if fail_on and report.crosses(fail_on):
        sys.exit(1)


@bench.command("run")
@click.option("--agent", "agent_name", required=True,
              type=click.Choice(["oracle", "skip-lookup", "first-page", "openai", "transformers"]),
              help="oracle (replays the reference), skip-lookup / first-page (failure-mode baselines), openai "
                   "(an OpenAI-compatible server with tool calling), transformers (a local model).")
@click.option("--snapshot", default="2026-09-01", show_default=True,
              help="The pinned snapshot the tools answer from (source replay).")
@click.option("--source", type=click.Choice(["replay", "sim"]), default="replay", show_default=True,
              help="replay: the snapshot, offline (a call it never recorded is answered as missing); "
                   "sim: the in-process simulator at --sim-seed / --as-of.")
@click.option("--sim-seed", default=0, show_default=True, type=int, help="World seed (source sim).")
@click.option("--as-of", default="2026-09-01", show_default=True, help="Simulator as-of date (source sim).")
@click.option("--rollouts", "k", default=1, show_default=True, type=int, help="Rollouts per task (k of pass@k).")
@_tasks_option
@click.option("--split", type=click.Choice(["main", "held_out"]), help="Only the tasks of this split.")
@click.option("--domain", help="Only the tasks of this domain (finance, traffic, district, education, politics, law).")
@click.option("--task", "task_ids", multiple=True, metavar="ID", help="Only this task (repeatable).")
@click.option("--include-stale", is_flag=True,
              help="Also run tasks `bench drift --write` tagged stale:no_longer_executes (left out by default).")
@click.option("--out", type=click.Path(file_okay=False),
              help="Where rollouts, grades and reports are written [default: runs/bench/AGENT].")
@_llm_options("under test (--agent openai)")
@click.option("--model-path", type=click.Path(), help="Local checkpoint directory (--agent transformers).")
@click.option("--top-k", default=24, show_default=True, type=int,
              help="Tools offered to a model agent per task (retrieved for the question); 0: every tool.")
@click.option("--max-turns", default=16, show_default=True, type=int, help="Assistant turns a model agent gets.")
@_store_option
@_catalog_option
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
def bench_run(agent_name, snapshot, source, sim_seed, as_of, k, tasks_dir, split, domain, task_ids, include_stale, out,
              llm_url, llm_model, model_path, top_k, max_turns, store, catalog_files, scale, as_json) -> None:
    """Run an agent on the tasks (K rollouts each) and grade RESPONSE, ACTION and ENVIRONMENT.

    Example: kopa-replay bench run --agent skip-lookup --split held_out --json
    """
    from contextlib import ExitStack
    from pathlib import Path

    from kopa_replay.bench.report import markdown, report_json
    from kopa_replay.bench.suite import make_agent, run_benchmark
    from kopa_replay.synth.export import write_jsonl
    from kopa_replay.util import write_atomic

    if k < 1:
        raise UsageError(f"--rollouts must be at least 1, not {k}")
    task_set = _task_set(tasks_dir, split, domain, task_ids, include_stale)
    cat = _load_catalog(catalog_files, scale)
    out = Path(out or Path("runs") / "bench" / agent_name)
    options = {}
    if agent_name in ("openai", "transformers"):
        options = {"top_k": top_k or None, "max_turns": max_turns}
        if agent_name == "openai":
            # the model's answers are recorded beside the run (never in the shipped cassette): a rerun is offline
            options.update(base_url=llm_url, model=llm_model, store=str(out / "llm.sqlite"), snapshot="llm")
        else:
            options["model_path"] = model_path
    with ExitStack() as stack:
        agent = make_agent(agent_name, task_set, **options)
        if hasattr(agent, "close"):
            stack.callback(agent.close)
        env = _open_env(stack, cat, "sim" if source == "sim" else "replay", sim_seed, as_of,
                        snapshot if source == "replay" else None, None, store)
        run = run_benchmark(task_set.tasks, agent, cat, env, k)
    out.mkdir(parents=True, exist_ok=True)
    write_jsonl(out / "rollouts.jsonl", [r.to_dict() for r in run.rollouts])
    text = report_json(run.report)
    write_atomic(out / "report.json", text)
    write_atomic(out / "report.md", markdown(run.report))
    if as_json:
        click.echo(text, nl=False)
        return
    p1, pk = run.report["pass_at_1"], run.report["pass_at_k"]
    at_k = f", pass@{k} {pk['combined']:.3f}" if k > 1 else ""
    click.echo(f"{agent_name}: {run.report['n_tasks']} tasks x {k} rollout{'s' if k > 1 else ''}: pass@1 "
               f"{p1['combined']:.3f}{at_k} (response {p1['response']:.3f}, action {p1['action']:.3f}, "
               f"environment {p1['environment']:.3f}) -> {out}")


@bench.command("report")
@click.argument("run_dir", type=click.Path(file_okay=False))
@_tasks_option
@click.option("--format", "fmt", type=click.Choice(["markdown", "json"]), default="markdown", show_default=True)
def bench_report(run_dir, tasks_dir, fmt) -> None:
    """Re-grade a run's rollouts against the tasks and print the report.

    Example: kopa-replay bench report runs/bench/oracle --format markdown
    """
    from pathlib import Path

    from kopa_replay.bench.grade import grade_all
    from kopa_replay.bench.model import Rollout
    from kopa_replay.bench.report import markdown, report, report_json
    from kopa_replay.synth.export import read_jsonl

    path = Path(run_dir) / "rollouts.jsonl"
    if not path.exists():
        raise UsageError(f"no rollouts at {path}: run `kopa-replay bench run --out {run_dir}` first")
    try:
        rollouts = [Rollout.from_dict(row) for row in read_jsonl(path)]
    except (KeyError, TypeError, ValueError) as exc:
        raise UsageError(f"{path}: not a rollouts file ({type(exc).__name__}: {exc})") from None
    if not rollouts:
        raise UsageError(f"{path} holds no rollout")
    task_set = _task_set(tasks_dir, ids=sorted({r.task_id for r in rollouts}))
    data = report(task_set.tasks, grade_all(task_set.tasks, rollouts))
    click.echo(report_json(data) if fmt == "json" else markdown(data), nl=False)


@bench.command("audit")
@click.option("--train", "train_file", required=True, type=click.Path(dir_okay=False),
              help="The training data: trajectories.jsonl (exact links) or sft.jsonl (links inferred) of `synth`.")
@_tasks_option
@click.option("--near", default=0.9, show_default=True, type=float,
              help="Question 3-gram Jaccard at or above which a pair counts as near-verbatim.")
@click.option("--json", "as_json", is_flag=True, help="Print the audit as JSON.")
def bench_audit(train_file, tasks_dir, near, as_json) -> None:
    """Contamination between training data and the benchmark: questions, tools, links, consecutive calls, plans.

    Example: kopa-replay bench audit --train runs/synth/trajectories.jsonl
    """
    from pathlib import Path

    from kopa_replay.bench.audit import audit, items_from_sft_rows, items_from_trajectories, markdown
    from kopa_replay.synth.export import read_jsonl

    path = Path(train_file)
    if not path.exists():
        raise UsageError(f"no training file {path}")
    try:
        rows = read_jsonl(path)
    except ValueError as exc:
        raise UsageError(f"{path}: not JSONL ({exc})") from None
    if not rows:
        raise UsageError(f"{path} holds no row")
    train = items_from_trajectories(rows) if "steps" in rows[0] else items_from_sft_rows(rows)
    task_set = _task_set(tasks_dir, stale=True)   # contamination is checked against every task, stale or not
    if len(task_set.plans) != len(task_set.tasks):
        raise UsageError(f"{task_set.source} has no plan for every task (plans.jsonl): the audit needs the links")
    bench_items = items_from_trajectories([task_set.plans[t.id].to_dict() for t in task_set.tasks])
    result = audit(train, bench_items, near=near)
    click.echo(_dump(result) if as_json else markdown(result), nl=not as_json)


@bench.command("build")
@click.option("--out", required=True, type=click.Path(file_okay=False), help="Where the task set is written.")
@click.option("--seed", "seeds", multiple=True, type=int, help="Walk seed (repeatable) [default: 0 to 5].")
@click.option("--per-run", default=150, show_default=True, type=int, help="Walks kept per synthesis run.")
@click.option("--sim-seed", default=0, show_default=True, type=int, help="World seed of the simulator.")
@click.option("--as-of", default="2026-09-01", show_default=True, help="Simulator as-of date.")
@click.option("--json", "as_json", is_flag=True, help="Print the set's summary as JSON.")
def bench_build(out, seeds, per_run, sim_seed, as_of, as_json) -> None:
    """Rebuild a task set on the simulator (how the shipped one was made; several minutes).

    Example: kopa-replay bench build --out runs/bench-tasks
    """
    from contextlib import ExitStack

    from kopa_replay.bench.build import BuildSpec, build_tasks, summary
    from kopa_replay.bench.suite import save_task_set

    spec = BuildSpec(seeds=tuple(seeds) or BuildSpec.seeds, per_run=per_run)
    cat = _load_catalog((), "builtin")
    with ExitStack() as stack:
        env = _open_env(stack, cat, "sim", sim_seed, as_of, None, None, None)
        tasks, plans = build_tasks(cat, env, spec, progress=stack.enter_context(_progress()))
    info = {**summary(tasks, plans), "spec": spec.to_dict(), "sim_seed": sim_seed, "as_of": as_of}
    save_task_set(out, tasks, plans, info)
    if as_json:
        click.echo(_dump(info))
        return
    click.echo(f"{info['tasks']} tasks ({info['by_split']}) -> {out}")


# -- training ---------------------------------------------------------------------------
@cli.group(cls=_Group)
def train() -> None:
    """Train small models on a synthesized corpus: SFT, GRPO against a pinned snapshot, evaluation.

    Needs the train extra: pip install torch==2.13.0 && pip install -e '.[train]'
    """


def _train(kind: str, config_file: str | None, overrides: tuple[str, ...]) -> None:
    from kopa_replay.train.config import load_config
    from kopa_replay.train.run import run_grpo, run_sft

    config = load_config(config_file, overrides, kind=kind)

    result = (run_grpo if kind == "grpo" else run_sft)(config)
    run = result.run
    last = next((m for m in reversed(run["metrics"]) if "loss" in m), {})
    shown = [f"loss {last['loss']:.4f}"] if "loss" in last else []
    for key, label in (("reward", "reward"), ("tools/call_frequency", "tool calls per rollout")):
        if key in last:
            shown.append(f"{label} {last[key]:.3f}")
    snap = run.get("snapshot") or {}
    where = f", snapshot {snap['name']} ({snap['digest'][:12]}…)" if snap.get("digest") else ""
    data = run["data"]
    dropped = data["rows"] - data.get("rows_trained", data["rows"])
    rows = f"{data['rows']} rows" + (f" ({dropped} dropped: no assistant token within trainer.max_length)"
                                     if dropped else "")
    click.echo(f"{kind}: {run['steps']} step{'s' if run['steps'] != 1 else ''} on {rows} "
               f"(data {run['data']['digest'][:12]}…){where}: {', '.join(shown) or 'no loss logged'} "
               f"-> {result.output_dir}")


def _train_command(kind: str, summary: str, config: str) -> None:
    """``train sft`` and ``train grpo``: one shape, ``--config FILE`` and overrides."""

    def command(config_file, overrides) -> None:
        _train(kind, config_file, overrides)

    command.__doc__ = f"""{summary}

    KEY=VALUE overrides change the config: dotted keys (trainer.learning_rate=1e-6, lora.r=16), YAML values
    (null, true, 1e-6, lora={{r: 16, alpha: 32}}). Keys: kind, model, data, output_dir, snapshot, store, source,
    sim_seed, as_of, scale, top_k, include_reference_tools, tasks, system_prompt, lora (r, alpha, dropout,
    target_modules), action_weight, max_records, max_chars, seed, trainer (trl's {"GRPOConfig" if kind == "grpo"
    else "SFTConfig"} fields, plus save_final).

    Example: kopa-replay train {kind} --config training/configs/{config} trainer.max_steps=1
    """
    command = click.argument("overrides", nargs=-1, metavar="[KEY=VALUE]...")(command)
    command = click.option("--config", "config_file", type=click.Path(dir_okay=False),
                           help="A YAML/JSON run config (see training/configs/).")(command)
    train.command(kind)(command)


_train_command("sft", "Supervised fine-tuning on the filtered conversations (assistant-only loss), LoRA optional.",
               "tiny_sft.yaml")
_train_command("grpo", "GRPO whose rollouts call the tools against a pinned snapshot; reward = the benchmark's grader.",
               "tiny_grpo.yaml")


@train.command("tiny-model")
@click.argument("out", type=click.Path(file_okay=False))
@click.option("--seed", default=0, show_default=True, type=int, help="Seed of the random weights.")
@click.option("--vocab-size", default=4096, show_default=True, type=int, help="Tokenizer vocabulary size.")
def train_tiny_model(out, seed, vocab_size) -> None:
    """Build a tiny random Qwen3 model and a local tokenizer with a tool-calling template (nothing downloaded).

    Example: kopa-replay train tiny-model runs/tiny-model
    """
    from kopa_replay.train.tiny import build_tiny_model

    path = build_tiny_model(out, seed=seed, vocab_size=vocab_size)
    click.echo(f"tiny Qwen3 model and tokenizer (vocab {vocab_size}, seed {seed}) -> {path}")


@train.command("eval")
@click.argument("checkpoint", required=False, type=click.Path())
@click.option("--base", help="The base model to run beside it [default: the run's config model].")
@click.option("--no-base", is_flag=True, help="Run the checkpoint only.")
@click.option("--out", type=click.Path(file_okay=False), help="Where eval.json / eval.md go [default: CHECKPOINT/eval].")
@click.option("--rollouts", "k", default=4, show_default=True, type=int, help="Rollouts per task (k of pass@k).")
@click.option("--temperature", default=0.7, show_default=True, type=float,
              help="Sampling temperature when --rollouts > 1 (one rollout decodes greedily).")
@click.option("--seed", default=0, show_default=True, type=int, help="Seed of the sampling stream.")
@click.option("--split", type=click.Choice(["main", "held_out"]), help="Only the tasks of this split.")
@click.option("--task", "task_ids", multiple=True, metavar="ID", help="Only this task (repeatable).")
@_tasks_option
@click.option("--snapshot", default="2026-09-01", show_default=True, help="The pinned snapshot the tools answer from.")
@click.option("--top-k", type=int, help="Tools offered per task (retrieved) [default: the run's top_k, else 16].")
@click.option("--max-turns", default=16, show_default=True, type=int, help="Assistant turns per rollout.")
@click.option("--max-new-tokens", default=1024, show_default=True, type=int, help="Tokens per assistant turn.")
@click.option("--scale", type=click.Choice(["builtin", "paper"]),
              help="The catalog the tools are retrieved from [default: the run's, else builtin].")
@_llm_options("under test instead of a checkpoint (a vLLM server)")
@_store_option
def train_eval(checkpoint, base, no_base, out, k, temperature, seed, split, task_ids, tasks_dir, snapshot, top_k,
               max_turns, max_new_tokens, scale, llm_url, llm_model, store) -> None:
    """Benchmark a trained checkpoint and its base model: pass@1 and pass@k per split.

    CHECKPOINT is a run directory of `train sft|grpo` (its final/ model, its base model and system prompt) or a
    model directory; leave it out with --llm-url to benchmark a served model (then --out is needed).

    Example: kopa-replay train eval runs/train/grpo-4b --rollouts 4
    """
    from pathlib import Path

    from kopa_replay.train.evaluate import EvalSpec, evaluate, table_markdown

    if out is None:
        if checkpoint is None:
            raise UsageError("give a CHECKPOINT (a run directory or a model directory), or --llm-url with --out "
                             "for a served model")
        out = str(Path(checkpoint) / "eval")
    spec = EvalSpec(snapshot=snapshot, store=store, k=k, temperature=temperature, seed=seed, top_k=top_k,
                    max_turns=max_turns, max_new_tokens=max_new_tokens, split=split, tasks=tasks_dir,
                    task_ids=tuple(task_ids), scale=scale)
    result = evaluate(checkpoint, out, spec, base=base, no_base=no_base, llm_url=llm_url, llm_model=llm_model)
    click.echo(table_markdown(result["table"], k), nl=False)
    click.echo(f"-> {out}/eval.json")


def main() -> None:
    """Console-script entry point."""
    cli(prog_name="kopa-replay")
