"""The ``catalog`` group: list, show, validate and export tool catalogs."""

from __future__ import annotations

import click

from kopa_replay.cli.common import _catalog_option, _dump, _emit, _Group, _load_catalog, _output_option, _table, cli
from kopa_replay.errors import UsageError


@cli.group(cls=_Group)
def catalog() -> None:
    """List, show, validate and export tool catalogs.

    Example: kopa-replay catalog list --platform dart
    """


@catalog.command("list")
@_catalog_option
@click.option("--platform", help="Only tools of this platform id (dart, krx, seoul …).")
@_output_option()
def catalog_list(catalog_files, scale, platform, fmt) -> None:
    """List tools: name, platform, domain and title.

    Example: kopa-replay catalog list --scale paper --json
    """
    cat = _load_catalog(catalog_files, scale)
    if platform and platform not in cat.platforms:
        raise UsageError(f"no platform {platform!r} in the catalog (platforms: {', '.join(cat.platforms)})")
    tools = list(cat.filter(platform=platform))
    listed = [
        {"name": t.name, "platform": t.platform, "domain": t.domain, "title": t.title, "generated": t.generated}
        for t in tools
    ]

    def text() -> str:
        generated = sum(t.generated for t in tools)
        return (
            _table(["tool", "title", "platform", "domain"], [[t.name, t.title, t.platform, t.domain] for t in tools])
            + f"\n{len(tools)} tools, {len({t.platform for t in tools})} platforms, "
            f"{len({t.domain for t in tools})} domains"
            + (
                f" ({len(tools) - generated} real, {generated} generated: not on the live platforms)"
                if generated
                else ""
            )
        )

    _emit(fmt, listed, text)


@catalog.command("show")
@click.argument("tool")
@_catalog_option
@_output_option()
def catalog_show(tool, catalog_files, scale, fmt) -> None:
    """Show one tool: its MCP definition and HTTP binding, as JSON (its text too is that JSON).

    Example: kopa-replay catalog show dart_cvbd_is_decsn
    """
    from kopa_replay.catalog import tool_to_dict

    shown = tool_to_dict(_load_catalog(catalog_files, scale).get(tool))
    _emit(fmt, shown, lambda: _dump(shown))


@catalog.command("validate")
@click.argument("files", nargs=-1, type=click.Path())
@_output_option()
def catalog_validate(files, fmt) -> None:
    """Validate catalog files (the built-in catalog when none is given).

    Example: kopa-replay catalog validate my-platform.yaml
    """
    from kopa_replay.catalog import builtin_catalog, validate_file

    if not files:
        cat = builtin_catalog("builtin")
        _emit(
            fmt,
            [{"catalog": "builtin", "tools": len(cat), "platforms": len(cat.platforms)}],
            f"ok: built-in catalog, {len(cat)} tools on {len(cat.platforms)} platforms",
        )
        return
    checked = [(file, validate_file(file)) for file in files]
    _emit(
        fmt,
        [{"catalog": file, "tools": len(cat), "platforms": len(cat.platforms)} for file, cat in checked],
        "\n".join(f"ok: {file}, {len(cat)} tools" for file, cat in checked),
    )


@catalog.command("export")
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["mcp", "openai"]),
    required=True,
    help="mcp: tools/list entries; openai: function-calling schemas.",
)
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
