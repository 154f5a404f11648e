"""Where calls go: the simulator, a mirror, the live platforms — optionally through the recorder.

``open_source(...)`` returns a :class:`Source`: an httpx client whose
transport decides where requests for the *real* URLs end up, plus the key to
send. Requests always name the real hosts, so what is recorded from any
source replays under any other:

* ``sim`` — the in-process simulator (:class:`~kopa_replay.sim.SimTransport`);
* a URL — a mirror that takes the real host as the first path segment
  (``kopa-replay sim serve``), via :class:`MirrorTransport`;
* ``live`` — the real platforms over HTTPS;
* ``replay`` — nothing at all: answers come only from a snapshot.

With ``snapshot`` and ``mode`` the inner transport is wrapped in a
:class:`~kopa_replay.record.RecordTransport`.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Mapping

import httpx

from kopa_replay.catalog.model import Catalog, Tool
from kopa_replay.env.call import CallResult, execute, live_key
from kopa_replay.errors import UsageError

if TYPE_CHECKING:
    from kopa_replay.record.transport import Replayed

__all__ = ["Source", "MirrorTransport", "open_source", "call_tool", "coerce_args", "REPLAY_KEY"]

#: The key sent when answers come from a snapshot: it never leaves the process and never reaches the store.
REPLAY_KEY = "kopa-replay-offline"


class MirrorTransport(httpx.BaseTransport):
    """Send ``https://<host>/<path>`` to ``<mirror>/<host>/<path>`` (the ``sim serve`` scheme).

    ``mirrors`` maps a host to its mirror base URL; ``"*"`` is the default for
    every other host (hosts without a mirror and no default go to the real host).
    """

    def __init__(self, mirrors: Mapping[str, str], timeout: float = 30.0) -> None:
        self.mirrors = {host: url.rstrip("/") for host, url in mirrors.items()}
        self._inner = httpx.HTTPTransport()
        self._timeout = timeout

    def target(self, url: httpx.URL) -> httpx.URL:
        base = self.mirrors.get(url.host) or self.mirrors.get("*")
        if base is None:
            return url
        return httpx.URL(f"{base}/{url.host}{url.raw_path.decode('ascii')}")

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        forwarded = httpx.Request(request.method, self.target(request.url), headers=request.headers,
                                  content=request.content, extensions={"timeout": request.extensions.get("timeout")})
        return self._inner.handle_request(forwarded)

    def close(self) -> None:
        self._inner.close()


@dataclass
class Source:
    """An httpx client plus the key to send (None: each platform's live key from the environment)."""

    name: str
    client: httpx.Client
    sim_key: str | None
    details: dict[str, Any] = field(default_factory=dict)
    closers: list[Callable[[], None]] = field(default_factory=list)
    #: the recorder's fast path (``RecordTransport.replay_answer``) when answers can come from a snapshot:
    #: (method, url, secrets) → the recorded answer, or None to send through ``client``
    replayer: "Callable[[str, str, tuple[str, ...]], Replayed | None] | None" = None

    def key_for(self, tool: Tool) -> str | None:
        return self.sim_key if self.sim_key is not None else live_key(tool)

    def close(self) -> None:
        self.client.close()
        for close in self.closers:
            close()

    def __enter__(self) -> "Source":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def parse_mirrors(pairs: tuple[str, ...] | list[str]) -> dict[str, str]:
    """``HOST=URL`` pairs (``--base-url``) to a host → mirror mapping."""
    mirrors: dict[str, str] = {}
    for pair in pairs:
        host, sep, url = pair.partition("=")
        if not sep or not host or not url.startswith(("http://", "https://")):
            raise UsageError(f"--base-url takes HOST=URL (e.g. opendart.fss.or.kr=http://127.0.0.1:8765), not {pair!r}")
        mirrors[host.strip().lower()] = url.strip()
    return mirrors


def _inner_transport(source: str, *, seed: int, as_of: dt.date | str | None, fault_rate: float,
                     mirrors: Mapping[str, str]) -> tuple[httpx.BaseTransport | None, str | None]:
    from kopa_replay.sim import SimTransport, Simulator, accepted_key

    if source == "sim":
        return SimTransport(Simulator(seed=seed, as_of=as_of, fault_rate=fault_rate)), accepted_key()
    if source == "live":
        return (MirrorTransport(mirrors) if mirrors else httpx.HTTPTransport()), None
    if source == "replay":
        return None, REPLAY_KEY
    check_source(source)
    return MirrorTransport({**mirrors, "*": source}), accepted_key()


def check_source(source: str) -> str:
    """``source`` when it names one (sim, live, replay, or a mirror's URL); a clean error otherwise — checked by
    recorders before they create a snapshot, so a typo leaves nothing behind."""
    if source in ("sim", "live", "replay") or source.startswith(("http://", "https://")):
        return source
    raise UsageError(f"unknown source {source!r}: use 'sim', 'live', 'replay' or the URL of a mirror "
                     "(http://127.0.0.1:N)")


def open_source(source: str = "sim", *, seed: int = 0, as_of: dt.date | str | None = None,
                fault_rate: float = 0.0, timeout: float = 30.0, snapshot: str | None = None,
                mode: str | None = None, store: "str | Path | None" = None,
                mirrors: Mapping[str, str] | None = None, catalog: Catalog | None = None,
                commit_every: int | None = None,
                wrap: Callable[[httpx.BaseTransport], httpx.BaseTransport] | None = None) -> Source:
    """A client for ``source``; with ``snapshot`` (and ``mode``, default replay) through the recorder
    (``commit_every``: its commit batch, see :class:`~kopa_replay.record.RecordTransport`). ``wrap`` wraps the
    transport that reaches the source, inside the recorder (e.g. a
    :class:`~kopa_replay.record.retry.RetryTransport`, so only a retry's answer is recorded)."""
    inner, key = _inner_transport(source, seed=seed, as_of=as_of, fault_rate=fault_rate, mirrors=mirrors or {})
    if wrap is not None and inner is not None:
        inner = wrap(inner)
    details: dict[str, Any] = {"source": source}
    if snapshot is None:
        if inner is None:
            raise UsageError("source 'replay' needs --snapshot")
        return Source(source, httpx.Client(transport=inner, timeout=timeout), key, details)
    from kopa_replay.record import RecordTransport, Store, default_store_path, redactor_for
    from kopa_replay.record.store import replay_store_path

    mode = mode or "replay"
    path = replay_store_path(snapshot, store) if mode == "replay" else Path(store) if store else default_store_path()
    opened = Store(path, readonly=(mode == "replay"))
    from kopa_replay.record.transport import COMMIT_EVERY

    transport = RecordTransport(None if mode == "replay" else inner, opened, snapshot, mode,
                                redactor_for(catalog, extra_values=[key] if key else []),
                                commit_every=commit_every or COMMIT_EVERY)
    if mode == "replay":
        from kopa_replay.record.snapshots import check_pinned

        check_pinned(opened, snapshot)
    details.update(snapshot=snapshot, mode=mode, store=str(path))
    return Source(f"{source}+{mode}", httpx.Client(transport=transport, timeout=timeout),
                  key if mode != "replay" else (key or REPLAY_KEY), details, [opened.close],
                  transport.replay_answer)


def coerce_args(tool: Tool, raw: Mapping[str, str]) -> dict[str, Any]:
    """Command-line ``k=v`` strings to the types the tool's inputSchema asks for."""
    properties = tool.input_schema.get("properties", {})
    out: dict[str, Any] = {}
    for name, text in raw.items():
        if name not in properties:
            raise UsageError(f"tool {tool.name!r} has no parameter {name!r} "
                             f"(parameters: {', '.join(tool.params) or 'none'})")
        kind = properties[name].get("type")
        if kind in ("integer", "number"):
            try:
                out[name] = int(text) if kind == "integer" else float(text)
            except ValueError:
                raise UsageError(f"argument {name!r} of tool {tool.name!r} must be {'an integer' if kind == 'integer' else 'a number'}, not {text!r}") from None
        elif kind == "boolean":
            out[name] = text.lower() in ("1", "true", "y", "yes")
        else:
            out[name] = text
    return out


def call_tool(catalog: Catalog, name: str, args: Mapping[str, Any], source: Source) -> CallResult:
    """Execute one tool of ``catalog`` against ``source``."""
    tool = catalog.get(name)
    return execute(tool, args, source.client, source.key_for(tool))
