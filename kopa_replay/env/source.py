"""Where calls go: the in-process simulator, a simulator mirror at a URL, or the live platforms.

``open_source(...)`` returns a :class:`Source` (an httpx client, the base URL
to rewrite real hosts to, and how to find the key), so the CLI and later
stages pick a source by name and call tools the same way.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any, Mapping

import httpx

from kopa_replay.catalog.model import Catalog, Tool
from kopa_replay.env.call import CallResult, execute, live_key
from kopa_replay.errors import UsageError

__all__ = ["Source", "open_source", "call_tool", "coerce_args"]


@dataclass
class Source:
    """An httpx client plus how to address and authenticate against it."""

    name: str
    client: httpx.Client
    base_url: str | None
    sim_key: str | None

    def key_for(self, tool: Tool) -> str | None:
        return self.sim_key if self.sim_key is not None else live_key(tool)

    def close(self) -> None:
        self.client.close()

    def __enter__(self) -> "Source":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def open_source(source: str = "sim", *, seed: int = 0, as_of: dt.date | str | None = None,
                fault_rate: float = 0.0, timeout: float = 30.0) -> Source:
    """``sim`` (in-process), ``live`` (the real platforms) or a URL of a ``sim serve`` mirror."""
    from kopa_replay.sim import SimTransport, Simulator, accepted_key

    if source == "sim":
        simulator = Simulator(seed=seed, as_of=as_of, fault_rate=fault_rate)
        return Source("sim", httpx.Client(transport=SimTransport(simulator)), None, accepted_key())
    if source == "live":
        return Source("live", httpx.Client(timeout=timeout, follow_redirects=True), None, None)
    if source.startswith(("http://", "https://")):
        return Source(source, httpx.Client(timeout=timeout), source.rstrip("/"), accepted_key())
    raise UsageError(f"unknown source {source!r}: use 'sim', 'live' or the URL of a mirror (http://127.0.0.1:N)")


def coerce_args(tool: Tool, raw: Mapping[str, str]) -> dict[str, Any]:
    """Command-line ``k=v`` strings to the types the tool's inputSchema asks for."""
    properties = tool.input_schema.get("properties", {})
    out: dict[str, Any] = {}
    for name, text in raw.items():
        if name not in properties:
            raise UsageError(f"tool {tool.name!r} has no parameter {name!r} "
                             f"(parameters: {', '.join(tool.params) or 'none'})")
        kind = properties[name].get("type")
        if kind == "integer":
            try:
                out[name] = int(text)
            except ValueError:
                raise UsageError(f"argument {name!r} of tool {tool.name!r} must be an integer, not {text!r}") from None
        elif kind == "number":
            try:
                out[name] = float(text)
            except ValueError:
                raise UsageError(f"argument {name!r} of tool {tool.name!r} must be a number, not {text!r}") from None
        elif kind == "boolean":
            out[name] = text.lower() in ("1", "true", "y", "yes")
        else:
            out[name] = text
    return out


def call_tool(catalog: Catalog, name: str, args: Mapping[str, Any], source: Source) -> CallResult:
    """Execute one tool of ``catalog`` against ``source``."""
    tool = catalog.get(name)
    return execute(tool, args, source.client, source.key_for(tool), source.base_url)
