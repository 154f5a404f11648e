"""The ``drift`` group: compare the response schemas of two snapshots."""

from __future__ import annotations

import sys

import click

from kopa_replay.cli.common import (
    _catalog_option,
    _drift_report_options,
    _Group,
    _load_catalog,
    _open_store,
    _store_option,
    cli,
)


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
    from kopa_replay.drift import crosses, drift_report, render

    with _open_store(store) as opened:
        report = drift_report(opened, _load_catalog(catalog_files, scale), before, after)
    click.echo(render(report, fmt, fail_on), nl=False)
    if fail_on and crosses(report, fail_on):
        sys.exit(1)
