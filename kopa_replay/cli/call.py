"""``call`` and ``showcase``: execute one tool call, walk the paper's Lightron task.

Exit codes (the README's table): a call refused before any request is sent (an unknown tool or parameter, a
value of the wrong type, outside its enum or pattern or range, a required one missing) and a request the snapshot
never recorded are user mistakes, 1; 3 only when a request was made (or replayed) and the platform answered an
error; an ``empty`` answer is a valid one, 0.
"""

from __future__ import annotations

import json
import sys

import click

from kopa_replay.cli.common import (
    _catalog_option,
    _date,
    _emit,
    _load_catalog,
    _note,
    _output_option,
    _parse_kv,
    _replay_options,
    cli,
)
from kopa_replay.errors import CassetteMiss, KopaError, UsageError


def _say_if_unpinned(details: dict) -> None:
    """A replay of an open snapshot: answered from the store, but no digest or manifest vouches for the answers."""
    if details.get("pinned") is False:
        _note(f"snapshot {details['snapshot']} is open (not sealed): replayed as stored, no digest pins its answers")


def _recording_into(store: str | None, mode: str | None, command: str) -> str | None:
    """The store a ``--mode record|replay-or-record`` writes: never the package's shipped one unless named (as
    ``record`` and ``refresh`` refuse it: a new snapshot there would change a file of the package)."""
    if mode not in ("record", "replay-or-record"):
        return store
    from kopa_replay.stages.record import writable_store

    return str(writable_store(store, f"{command} --mode {mode}"))


def _shown(tool: str, args) -> str:
    return f"{tool}({', '.join(f'{k}={v}' for k, v in sorted(args.items()))})"


def _refused(tool, arguments) -> None:
    """Refuse, before any source is opened, arguments the tool's inputSchema refuses (the environment would answer
    them with a ``structural_error`` that no request was sent for): one ``Error:`` naming tool, parameter, rule."""
    from kopa_replay.env import validate_args

    _, problem = validate_args(tool, arguments)
    if problem is not None:
        named = "" if repr(tool.name) in problem else f" (tool {tool.name!r})"
        raise UsageError(f"{problem}{named}; no request was sent")


def _readable_args(tool, urls):
    """The arguments of each recorded URL the tool's binding reads back; a URL recorded under another binding (a
    parameter renamed since: a drift snapshot) is passed over, so the miss is still said as a miss."""
    from kopa_replay.env.call import recorded_args

    for url in urls:
        try:
            yield recorded_args(tool, url)
        except UsageError:
            continue


def _not_recorded(miss: CassetteMiss, tool, arguments) -> KopaError:
    """A strict replay's miss, said as what happened and what to do: the snapshot's answers of this tool (one of
    their argument sets, to call instead) or that it holds none, and how to record this one."""
    from pathlib import Path

    from kopa_replay.record import Store
    from kopa_replay.record.store import shipped_store_path

    with Store(miss.store, readonly=True) as opened:
        sealed = opened.snapshot(miss.snapshot).sealed
        urls = sorted(item.url for item in opened.interactions(miss.snapshot) if item.tool == tool.name)
    given = {(name, str(value)) for name, value in arguments.items()}
    # the recorded call nearest this one: the most argument values in common, then the first in URL order
    nearest = max(_readable_args(tool, urls), key=lambda a: len(given & set(a.items())), default=None)
    held = (
        f"it holds {len(urls)} answer{'s' if len(urls) != 1 else ''} of {tool.name}, e.g. for "
        f"{_shown(tool.name, nearest)}: call it with arguments it recorded"
        if nearest is not None
        else f"it holds no answer of {tool.name} at all"
    )
    elsewhere = " --store MINE.sqlite" if Path(miss.store).resolve() == shipped_store_path() else ""
    record = (
        f"record this one into a new snapshot (--snapshot NEW --mode replay-or-record{elsewhere}; "
        f"{miss.snapshot} is sealed)"
        if sealed
        else "record it into this open snapshot with --mode replay-or-record"
    )
    return KopaError(
        f"cassette miss: tool {tool.name!r}: snapshot {miss.snapshot!r} (store {miss.store}) holds no answer for "
        f"{_shown(tool.name, arguments)} ({miss.method} {miss.url}); {held}, or {record}"
    )


def _answer_text(result, tool, where: str) -> str:
    """The result as lines: its outcome, code and message, counts, then one JSON line per record. An ``empty``
    answer says what answered and why nothing came (a filter the tool applies to its list, or the platform)."""
    if result.outcome == "empty":
        filters = [f.param for f in tool.client_filters if f.param in result.args]
        why = (
            f"no record of the list {tool.name} reads matches "
            + ", ".join(f"{name}={result.args[name]}" for name in filters)
            + f" (the tool filters that list by {', '.join(filters)} itself)"
            if filters
            else "the platform answered no record"
            + (f" (code {result.code}, {result.message or 'no message'})" if result.code is not None else "")
        )
        head = f"empty: {_shown(result.tool, result.args)}: {why}; {where}"
    else:
        head = (
            f"{result.outcome} (code {result.code}, {result.message or ''}) "
            f"total_count={result.total_count} records={len(result.records)}"
        )
    return "\n".join([head, *(json.dumps(record, ensure_ascii=False) for record in result.records)])


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
@_output_option()
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
def call(tool, args, source, seed, as_of, fmt, base_urls, snapshot, mode, store, catalog_files, scale) -> None:
    """Execute one tool call and print the parsed records.

    Exit 1 when the tool refuses the arguments (nothing is sent) or the snapshot never recorded the call; exit 3
    when the platform answered an error.
    Example: kopa-replay call datagokr_get_stock_price_info --arg srtnCd=069540 --arg basDt=20260831
    """
    from kopa_replay.env import ToolEnvironment, coerce_args, open_source
    from kopa_replay.env.source import parse_mirrors
    from kopa_replay.stages.showcase import answered_by, describe_answered_by

    cat = _load_catalog(catalog_files, scale)
    chosen = cat.get(tool)
    arguments = coerce_args(chosen, _parse_kv(args))
    _refused(chosen, arguments)
    day = _date(as_of, "--as-of")
    with open_source(
        source,
        seed=seed,
        as_of=day,
        snapshot=snapshot,
        mode=mode,
        store=_recording_into(store, mode, "call") if snapshot else None,
        mirrors=parse_mirrors(base_urls),
        catalog=cat,
    ) as src:
        _say_if_unpinned(src.details)
        try:
            result = ToolEnvironment(cat, src).call(tool, arguments)
        except CassetteMiss as miss:
            raise _not_recorded(miss, chosen, arguments) from None
        where = describe_answered_by(answered_by(src.details, seed=seed, as_of=day))
    _emit(fmt, result.to_dict(), lambda: _answer_text(result, chosen, where))
    if result.outcome not in ("ok", "empty"):
        sys.exit(3)  # a request was made and the platform answered an error: apart from 1 (a mistake), 2 (usage)


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
@_output_option()
@_replay_options
def showcase(source, seed, as_of, fmt, snapshot, mode, store) -> None:
    """Walk the paper's Lightron task: corp_code → CB floor price → prior close → premium.

    The first line (and "source" in JSON) says what answered: a snapshot replayed, or the simulator (seed, as-of).
    Exit 3 when a step's call answered an error.
    Example: kopa-replay showcase --json
    """
    from kopa_replay.catalog import builtin_catalog
    from kopa_replay.env import open_source
    from kopa_replay.stages.showcase import describe_answered_by, walk_lightron

    day = _date(as_of, "--as-of")
    assert day is not None  # --as-of has a default: click never passes None
    with open_source(
        source,
        seed=seed,
        as_of=day,
        snapshot=snapshot,
        mode=mode,
        store=_recording_into(store, mode, "showcase") if snapshot else None,
        catalog=builtin_catalog(),
    ) as src:
        _say_if_unpinned(src.details)
        result = walk_lightron(builtin_catalog(), src, day, seed=seed)

    def text() -> str:
        lines = [f"source: {describe_answered_by(result.source)}"]
        for number, step in enumerate(result.steps, 1):
            args = " ".join(f"{k}={v}" for k, v in step.args.items())
            picked = " ".join(f"{k}={v}" for k, v in step.picked.items())
            lines.append(f"{number}. {step.tool}({args}) -> {picked}")
        lines.append(
            f"4. ({result.prior_close} - {result.floor_price}) / {result.floor_price} = "
            f"{result.premium_pct:.3f}% above the refixing floor (the paper prints 215.78%)"
        )
        return "\n".join(lines)

    _emit(fmt, result.to_dict(), text)
