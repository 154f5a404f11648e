"""``call`` and ``showcase``: execute one tool call, walk the paper's Lightron task."""

from __future__ import annotations

import json
import sys

import click

from kopa_replay.cli.common import (
    _catalog_option,
    _date,
    _dump,
    _load_catalog,
    _note,
    _parse_kv,
    _replay_options,
    cli,
)


def _say_if_unpinned(details: dict) -> None:
    """A replay of an open snapshot: answered from the store, but no digest or manifest vouches for the answers."""
    if details.get("pinned") is False:
        _note(f"snapshot {details['snapshot']} is open (not sealed): replayed as stored, no digest pins its answers")


@cli.command("call")
@click.argument("tool")
@click.option("--arg", "args", multiple=True, metavar="NAME=VALUE", help="A tool argument (repeatable).")
@click.option(
    "--source",
    default="sim",
    show_default=True,
    help="sim (in-process simulator of the platforms at their real sizes; sim:default, a small world; env "
    "KOPA_WORLD_SIZE picks the world of a plain sim), live (real platforms) or a mirror URL (http://127.0.0.1:N).",
)
@click.option("--seed", default=0, show_default=True, type=int, help="Simulator seed (source sim).")
@click.option("--as-of", default="2026-09-01", show_default=True, help="Simulator as-of date (source sim).")
@click.option("--json", "as_json", is_flag=True, help="Print the parsed result as JSON.")
@click.option(
    "--base-url",
    "base_urls",
    multiple=True,
    metavar="HOST=URL",
    help="Send one catalog host ('*': every host) to a mirror (repeatable; needs --source live or a mirror "
    "URL), e.g. opendart.fss.or.kr=http://127.0.0.1:8765.",
)
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
    with open_source(
        source,
        seed=seed,
        as_of=_date(as_of, "--as-of"),
        snapshot=snapshot,
        mode=mode,
        store=store if snapshot else None,
        mirrors=parse_mirrors(base_urls),
        catalog=cat,
    ) as src:
        _say_if_unpinned(src.details)
        result = ToolEnvironment(cat, src).call(tool, arguments)
    if as_json:
        click.echo(_dump(result.to_dict()))
    else:
        click.echo(
            f"{result.outcome} (code {result.code}, {result.message or ''}) "
            f"total_count={result.total_count} records={len(result.records)}"
        )
        for record in result.records:
            click.echo(json.dumps(record, ensure_ascii=False))
    if result.outcome not in ("ok", "empty"):
        sys.exit(3)  # the call ran and answered an error: apart from 1 (a mistake) and 2 (usage)


@cli.command("showcase")
@click.option(
    "--source",
    default="sim",
    show_default=True,
    help="sim (in-process simulator of the platforms at their real sizes; sim:default, a small world; env "
    "KOPA_WORLD_SIZE picks the world of a plain sim), live (real platforms) or a mirror URL (http://127.0.0.1:N).",
)
@click.option("--seed", default=0, show_default=True, type=int, help="Simulator seed (source sim).")
@click.option(
    "--as-of", default="2026-09-01", show_default=True, help="As-of date: the prior close is the business day before."
)
@click.option("--json", "as_json", is_flag=True, help="Print every step and the answer as JSON.")
@_replay_options
def showcase(source, seed, as_of, as_json, snapshot, mode, store) -> None:
    """Walk the paper's Lightron task: corp_code → CB floor price → prior close → premium.

    Example: kopa-replay showcase --json
    """
    from kopa_replay.catalog import builtin_catalog
    from kopa_replay.env import open_source
    from kopa_replay.stages.showcase import walk_lightron

    day = _date(as_of, "--as-of")
    assert day is not None  # --as-of has a default: click never passes None
    with open_source(
        source,
        seed=seed,
        as_of=day,
        snapshot=snapshot,
        mode=mode,
        store=store if snapshot else None,
        catalog=builtin_catalog(),
    ) as src:
        _say_if_unpinned(src.details)
        result = walk_lightron(builtin_catalog(), src, day)
    if as_json:
        click.echo(_dump(result.to_dict()))
        return
    for number, step in enumerate(result.steps, 1):
        args = " ".join(f"{k}={v}" for k, v in step.args.items())
        picked = " ".join(f"{k}={v}" for k, v in step.picked.items())
        click.echo(f"{number}. {step.tool}({args}) -> {picked}")
    click.echo(
        f"4. ({result.prior_close} - {result.floor_price}) / {result.floor_price} = "
        f"{result.premium_pct:.3f}% above the refixing floor (the paper prints 215.78%)"
    )
