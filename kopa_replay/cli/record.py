"""``record`` and ``refresh``: the recorder, into a new snapshot."""

from __future__ import annotations

import sys

import click

from kopa_replay.cli.common import (_bench_requests, _catalog_option, _date, _drift_report_options, _dump,
                                    _load_catalog, _manifest_file, _progress, _source_options, _store_option,
                                    _writable_store, cli)


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
