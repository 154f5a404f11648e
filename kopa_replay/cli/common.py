"""The root group ``cli``, ``main`` and the helpers the command modules share: options, stores,
catalogs, sources, progress bars.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import functools
import json
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import click

from kopa_replay.errors import KopaError, UsageError
from kopa_replay.stages.common import STORE_HELP, CatalogChoice, ExecSource
from kopa_replay.util import Progress as ProgressHook


class _PlatformError(click.ClickException):
    """The ``Error:`` line of a request the platform answered with an error (a showcase step): exit 3, as a
    ``call``'s (which prints the answer itself)."""

    exit_code = 3


class _Group(click.Group):
    """A click group that turns KopaError into a clean ``Error:`` line, exit 1 — or 3 for an error that says
    (``exit_code = 3``) the platform answered with an error."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except KopaError as exc:
            kind = _PlatformError if getattr(exc, "exit_code", 1) == 3 else click.ClickException
            raise kind(str(exc)) from None


def _dump(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, indent=2, sort_keys=False)


#: what ``--format`` takes on every command that prints a result (``junit`` too where a command gates CI)
FORMATS = ("text", "json", "markdown")


def _output_option(*, junit: str | None = None):
    """``--format text|json|markdown`` (``junit`` too when ``junit`` is given: its help) and ``--json``, the same
    as ``--format json``; the command gets the chosen format as one argument, ``fmt`` (default ``text``).
    ``--json`` with another ``--format`` is a usage error (exit 2)."""
    choices = [*FORMATS, "junit"] if junit else list(FORMATS)
    shown = "text (default), json (one document), markdown" + (f", junit ({junit})" if junit else "")

    def decorate(func):
        @functools.wraps(func)
        def command(*args, fmt, as_json, **kwargs):
            if as_json and fmt not in (None, "json"):
                raise click.UsageError(f"--json is --format json: it cannot go with --format {fmt}")
            return func(*args, fmt="json" if as_json else fmt or "text", **kwargs)

        command = click.option("--json", "as_json", is_flag=True, help="The same as --format json.")(command)
        return click.option("--format", "fmt", type=click.Choice(choices), default=None, help=shown)(command)

    return decorate


def _fail_on_option(choices, fail_help):
    """--fail-on of a command that reports for CI: exit 1 when the report reaches the chosen level."""
    return click.option("--fail-on", type=click.Choice(choices), help=fail_help)


def _note(text: str | None) -> None:
    """A remark about how the command will run (stderr: --json output stays one document)."""
    if text:
        click.echo(f"note: {text}", err=True)


def _title() -> str:
    """The command as a person types it (``kopa-replay graph stats``), whatever name the program was run by."""
    ctx = click.get_current_context(silent=True)
    path = ctx.command_path.split()[1:] if ctx else []
    return " ".join(["kopa-replay", *path])


def _emit(
    fmt: str,
    result: Any,
    text: str | Callable[[], str],
    *,
    markdown: str | Callable[[], str] | None = None,
    json_text: str | None = None,
) -> None:
    """Print a command's result in the chosen format: ``result`` as JSON (or ``json_text``, a command's own JSON),
    ``markdown`` (a command's own Markdown; else ``result`` as a generic Markdown document), or ``text``. A
    callable is called only when its format is chosen."""
    if fmt == "json":
        out = json_text if json_text is not None else _dump(result)
    elif fmt == "markdown" and markdown is not None:
        out = markdown if isinstance(markdown, str) else markdown()
    elif fmt == "markdown":
        from kopa_replay.text.markdown import markdown_document

        out = markdown_document(result, _title())
    else:
        out = text if isinstance(text, str) else text()
    click.echo(out, nl=not out.endswith("\n"))


def _table(headers: list[str], rows: list[list[Any]], *, right: tuple[str, ...] = ()) -> str:
    """Rows as a table aligned by display width (a Hangul syllable takes two columns, which f-string padding
    does not know); ``right`` names the columns aligned right (numbers). Never wrapped or cut in a pipe."""
    from rich.console import Console
    from rich.table import Table

    table = Table(box=None, pad_edge=False, show_edge=False, header_style="bold", highlight=False)
    for header in headers:
        table.add_column(header, justify="right" if header in right else "left", no_wrap=True)
    for row in rows:
        table.add_row(*("" if cell is None else str(cell) for cell in row))
    tty = sys.stdout.isatty()
    console = Console(
        width=None if tty else 100_000,
        highlight=False,
        no_color=not tty,
        color_system="auto" if tty else None,
        force_terminal=tty,
    )
    with console.capture() as captured:
        console.print(table)
    return "\n".join(line.rstrip() for line in captured.get().splitlines())


def _date(value: str | None, option: str) -> dt.date | None:
    if value is None:
        return None
    try:
        return dt.date.fromisoformat(value)
    except ValueError:
        raise UsageError(f"{option} must be a date YYYY-MM-DD, not {value!r}") from None


def _help(config: type, name: str) -> str:
    """A field's help, where a hand-written option (not a stage's) takes the same setting."""
    return next(f for f in dataclasses.fields(config) if f.name == name).metadata["help"]


def _catalog_option(func):
    func = click.option(
        "--catalog", "catalog_files", multiple=True, type=click.Path(), help=_help(CatalogChoice, "catalog")
    )(func)
    func = click.option(
        "--scale",
        type=click.Choice(["builtin", "paper"]),
        default="builtin",
        show_default=True,
        help=_help(CatalogChoice, "scale"),
    )(func)
    return func


def _store_option(func):
    return click.option("--store", envvar="KOPA_STORE", type=click.Path(dir_okay=False), help=STORE_HELP)(func)


def _replay_options(func):
    func = _store_option(func)
    func = click.option(
        "--mode",
        type=click.Choice(["replay", "record", "replay-or-record"]),
        default=None,
        help=_help(ExecSource, "mode"),
    )(func)
    func = click.option("--snapshot", help=_help(ExecSource, "snapshot"))(func)
    return func


def _drift_report_options(func):
    """--format (junit included) and --fail-on of the commands that print a drift report."""
    func = _fail_on_option(
        ["breaking", "warning"],
        "Exit 1 when a change of this severity is found (environmental noise and data never count).",
    )(func)
    return _output_option(junit="each change at --fail-on's severity a failing test case")(func)


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
def _progress() -> Iterator[ProgressHook | None]:
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
    with Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeRemainingColumn(),
        console=Console(stderr=True),
        transient=True,
    ) as drawn:

        def update(what: str, done: int, total: int | None) -> None:
            if what not in bars:
                bars[what] = drawn.add_task(what, total=total)
            drawn.update(bars[what], completed=done, total=total)

        yield update


def _not_utf8(text: str) -> bytes | None:
    """The bytes of a command-line string that is not UTF-8 text (Python hands undecodable bytes over
    surrogate-escaped, and they would fail only where a request is encoded), or None when it is UTF-8 text."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        try:
            return text.encode("utf-8", "surrogateescape")  # the bytes as given
        except UnicodeEncodeError:  # a surrogate no byte escapes to (a string from elsewhere than argv)
            return text.encode("utf-8", "backslashreplace")
    return None


def _parse_kv(pairs: tuple[str, ...]) -> dict[str, str]:
    out: dict[str, str] = {}
    for pair in pairs:
        if "=" not in pair:
            raise UsageError(f"--arg takes NAME=VALUE, not {pair!r}")
        name, value = pair.split("=", 1)
        raw = _not_utf8(pair)
        if raw is not None and _not_utf8(name) is not None:
            raise UsageError(f"--arg takes NAME=VALUE in UTF-8 text, not {raw!r}")
        if raw is not None:
            raise UsageError(
                f"--arg {name.strip()}: the value is not UTF-8 text ({_not_utf8(value)!r}); give arguments in UTF-8"
            )
        out[name.strip()] = value
    return out


def _llm_options(what: str):
    def decorate(func):
        func = click.option(
            "--llm-url",
            envvar="KOPA_LLM_URL",
            help=f"OpenAI-compatible server for the model {what} [env KOPA_LLM_URL].",
        )(func)
        func = click.option(
            "--llm-model",
            envvar="KOPA_LLM_MODEL",
            help="Model name [env KOPA_LLM_MODEL]; its answers are recorded in OUT/llm.sqlite and replayed on reruns.",
        )(func)
        return func

    return decorate


def _decontaminated(count: int | None) -> str:
    return "decontamination off" if count is None else f"{count} decontaminated"


def _tasks_option(func):
    return click.option(
        "--tasks",
        "tasks_dir",
        type=click.Path(file_okay=False),
        help="A task-set directory (tasks.jsonl, plans.jsonl) instead of the shipped one.",
    )(func)


def main() -> None:
    """Console-script entry point."""
    cli(prog_name="kopa-replay")
