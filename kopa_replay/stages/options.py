"""One source for a stage's settings: a frozen dataclass whose fields carry their help, from which click options
are derived.

A field is declared with :func:`setting` (default, help and, where the command line spells it otherwise, the
flag); :func:`click_options` turns every field of a config class into a click option whose parameter name is
the field name, so a command does ``Config(**kwargs)``. Types map as a reader expects: ``int``/``float``/``str``
(optional when ``| None``), ``bool`` (a ``--x/--no-x`` pair; ``bool | None`` leaves the choice to the stage),
``Literal[...]`` (a choice), ``tuple[str, ...]`` / ``tuple[int, ...]`` (a repeatable option).
"""

from __future__ import annotations

import dataclasses
import types
import typing
from collections.abc import Callable
from typing import Any, Literal, Union

import click

__all__ = ["setting", "click_options", "option_name", "as_dict"]


def setting(
    default: Any,
    help: str,
    *,
    flag: str | None = None,
    envvar: str | None = None,
    metavar: str | None = None,
    path: Literal["file", "dir", "any"] | None = None,
    required: bool = False,
    cli: bool = True,
    keyed: bool = True,
) -> Any:
    """A config field: its default, the help the command line shows, and how it is spelled there.

    ``flag`` overrides the option name derived from the field (``--rollouts`` for ``k``); ``path`` makes it a
    ``click.Path``; ``required`` makes the option required on the command line (the stage checks it too);
    ``cli=False`` keeps a field out of the command line (set by the pipeline or by Python callers only);
    ``keyed=False`` marks a setting that says how a stage runs, not what it computes (the executor, the number of
    workers): it stays out of manifests and stage keys, so changing it neither reruns a stage nor changes a byte."""
    return dataclasses.field(
        default=default,
        metadata={
            "help": help,
            "flag": flag,
            "envvar": envvar,
            "metavar": metavar,
            "path": path,
            "required": required,
            "cli": cli,
            "keyed": keyed,
        },
    )


def option_name(field: dataclasses.Field) -> str:
    """The command-line spelling of a field: its ``flag``, else ``--`` and the name with dashes."""
    return field.metadata.get("flag") or "--" + field.name.replace("_", "-")


def _unwrap_optional(kind: Any) -> tuple[Any, bool]:
    if typing.get_origin(kind) in (Union, types.UnionType):
        args = [a for a in typing.get_args(kind) if a is not type(None)]
        if len(args) == 1:
            return args[0], True
    return kind, False


def _click_type(kind: Any, path: str | None) -> Any:
    if path:
        return click.Path(file_okay=path != "dir", dir_okay=path != "file")
    if typing.get_origin(kind) is Literal:
        return click.Choice([str(a) for a in typing.get_args(kind)])
    return kind if kind in (int, float) else str


def _option(field: dataclasses.Field, kind: Any) -> Callable:
    meta, name = field.metadata, option_name(field)
    kind, optional = _unwrap_optional(kind)
    common: dict[str, Any] = {
        "help": meta["help"],
        "envvar": meta.get("envvar"),
        "metavar": meta.get("metavar"),
        "required": meta.get("required", False),
    }
    if kind is bool:
        # a pair, so a default of True can be turned off; None (bool | None) leaves the choice to the stage
        flags = name if "/" in name else f"{name}/--no-{name[2:]}"
        return click.option(flags, field.name, default=field.default, show_default=field.default is not None, **common)
    if typing.get_origin(kind) is tuple:
        item = typing.get_args(kind)[0]
        return click.option(
            name, field.name, multiple=True, type=_click_type(item, meta.get("path")), default=field.default, **common
        )
    shown = field.default is not None and not meta.get("required")
    # a required option gets no default at all: click (8.3 on) takes an explicit default=None as a value given,
    # and would let the option be left out (the stage's own check then answered exit 1, not click's usage error 2)
    default: dict[str, Any] = {} if meta.get("required") else {"default": field.default}
    return click.option(
        name,
        field.name,
        type=_click_type(kind, meta.get("path")),
        show_default=shown,
        **default,
        **common,
    )


def click_options(config: type, *, skip: tuple[str, ...] = ()) -> Callable:
    """A decorator adding one click option per command-line field of ``config`` (in declaration order)."""
    hints = typing.get_type_hints(config)
    by_name = {f.name: f for f in dataclasses.fields(config)}
    # the stage's own settings first, then what it shares (catalog, source …), each in declaration order
    order = list(
        dict.fromkeys(
            name for cls in config.__mro__ for name in vars(cls).get("__annotations__", {}) if name in by_name
        )
    )
    fields = [
        by_name[name]
        for name in order
        if by_name[name].metadata.get("cli", True) and "help" in by_name[name].metadata and name not in skip
    ]

    def decorate(func: Callable) -> Callable:
        for field in reversed(fields):  # click lists options in the order the decorators are read
            func = _option(field, hints[field.name])(func)
        return func

    return decorate


def as_dict(config: Any) -> dict[str, Any]:
    """A config as plain JSON (tuples as lists), the way manifests record it (``keyed=False`` settings left out)."""
    return {
        f.name: (list(v) if isinstance(v := getattr(config, f.name), tuple) else v)
        for f in dataclasses.fields(config)
        if f.metadata.get("keyed", True)
    }
