"""Where calls go: one registry of source kinds behind every way of opening a source.

A source is an httpx client whose *inner* transport decides where requests for
the *real* URLs end up, plus the key to send. Requests always name the real
hosts, so what is recorded from any source replays under any other. The kinds:

* ``sim`` — the in-process simulator (:class:`~kopa_replay.sim.SimTransport` /
  :class:`~kopa_replay.sim.AsyncSimTransport`; seed, as-of date, fault rate);
* a URL — a mirror that takes the real host as the first path segment
  (``kopa-replay sim serve``), via :class:`MirrorTransport` / :class:`AsyncMirrorTransport`;
* ``live`` — the real platforms over HTTPS (``mirrors`` sends chosen hosts to a mirror);
* ``replay`` — nothing at all: answers come only from a snapshot.

:data:`SOURCES` makes the inner transport of each, sync or async, from one
factory per kind (:func:`register_source` adds a kind). :func:`open_source` and
:func:`open_async_source` are one function over it — the same kinds, mirrors and
URLs on both paths — and wrap the inner transport in the recorder
(:class:`~kopa_replay.record.RecordTransport` or its async twin) when a
``snapshot`` is named. ``ToolEnvironment.open`` and ``AsyncToolEnvironment.open``
call them; ``check_source`` asks the same registry.
"""

from __future__ import annotations

import datetime as dt
import difflib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import httpx

from kopa_replay.catalog.model import Catalog, Tool
from kopa_replay.env.call import CallResult, execute, live_key
from kopa_replay.env.limits import HostLimiter, limited, live_limiter
from kopa_replay.errors import UsageError

if TYPE_CHECKING:
    from kopa_replay.record.transport import Replayed

__all__ = [
    "Source",
    "AsyncSource",
    "MirrorTransport",
    "AsyncMirrorTransport",
    "SourceOptions",
    "Inner",
    "SourceRegistry",
    "SOURCES",
    "register_source",
    "inner_transport",
    "open_source",
    "open_async_source",
    "check_source",
    "parse_mirrors",
    "check_mirrors",
    "call_tool",
    "coerce_args",
    "is_sim",
    "sim_world",
    "source_label",
    "recorded_sim_source",
    "snapshot_sim_source",
    "REPLAY_KEY",
]

#: The key sent when answers come from a snapshot: it never leaves the process and never reaches the store.
REPLAY_KEY = "kopa-replay-offline"

_URL_SCHEMES = ("http://", "https://")


# -- mirrors -------------------------------------------------------------------
class _Mirrors:
    """The ``sim serve`` addressing both mirror transports share: ``https://<host>/<path>`` → ``<mirror>/<host>/<path>``."""

    def __init__(self, mirrors: Mapping[str, str]) -> None:
        self.mirrors = {host: url.rstrip("/") for host, url in mirrors.items()}

    def target(self, url: httpx.URL) -> httpx.URL:
        base = self.mirrors.get(url.host) or self.mirrors.get("*")
        if base is None:
            return url
        return httpx.URL(f"{base}/{url.host}{url.raw_path.decode('ascii')}")

    def forwarded(self, request: httpx.Request) -> httpx.Request:
        return httpx.Request(
            request.method,
            self.target(request.url),
            headers=request.headers,
            content=request.content,
            extensions={"timeout": request.extensions.get("timeout")},
        )


class MirrorTransport(_Mirrors, httpx.BaseTransport):
    """Send ``https://<host>/<path>`` to ``<mirror>/<host>/<path>`` (the ``sim serve`` scheme).

    ``mirrors`` maps a host to its mirror base URL; ``"*"`` is the default for
    every other host (hosts without a mirror and no default go to the real host).
    """

    def __init__(self, mirrors: Mapping[str, str], timeout: float = 30.0) -> None:
        super().__init__(mirrors)
        self._inner = httpx.HTTPTransport()
        self._timeout = timeout

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        return self._inner.handle_request(self.forwarded(request))

    def close(self) -> None:
        self._inner.close()


class AsyncMirrorTransport(_Mirrors, httpx.AsyncBaseTransport):
    """The async twin of :class:`MirrorTransport` (same addressing)."""

    def __init__(self, mirrors: Mapping[str, str], timeout: float = 30.0) -> None:
        super().__init__(mirrors)
        self._inner = httpx.AsyncHTTPTransport()
        self._timeout = timeout

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        await request.aread()
        return await self._inner.handle_async_request(self.forwarded(request))

    async def aclose(self) -> None:
        await self._inner.aclose()


def parse_mirrors(pairs: tuple[str, ...] | list[str]) -> dict[str, str]:
    """``HOST=URL`` pairs (``--base-url``) to a host → mirror mapping; the hosts are checked against the catalog
    (:func:`check_mirrors`) when a source is opened with them."""
    mirrors: dict[str, str] = {}
    for pair in pairs:
        host, sep, url = pair.partition("=")
        if not sep or not host or not url.startswith(_URL_SCHEMES):
            raise UsageError(f"--base-url takes HOST=URL (e.g. opendart.fss.or.kr=http://127.0.0.1:8765), not {pair!r}")
        mirrors[host.strip().lower()] = url.strip()
    return mirrors


def check_mirrors(mirrors: Mapping[str, str], catalog: Catalog | None = None) -> None:
    """Refuse a mirrored host that no tool of ``catalog`` (the built-in one without it) calls: nothing would go
    to its mirror, and a misspelt host would leave the real one called. ``"*"`` (every host) is always one."""
    if not mirrors:
        return
    if catalog is None:
        from kopa_replay.catalog.load import builtin_catalog

        catalog = builtin_catalog()
    hosts = sorted({tool.http.host.lower() for tool in catalog})
    for host in mirrors:
        if host == "*" or host in hosts:
            continue
        close = difflib.get_close_matches(host, hosts, n=1)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        raise UsageError(
            f"--base-url names host {host!r}, which no tool of the catalog calls{hint}; the catalog's hosts: "
            f"{', '.join(hosts)}, or '*' for every host"
        )


def _no_mirrors(options: "SourceOptions", what: str) -> None:
    """Refuse mirrors given to a kind that sends no request to a platform's host (they would be ignored)."""
    if options.mirrors:
        given = ", ".join(sorted(options.mirrors))
        raise UsageError(
            f"--base-url ({given}) needs --source live or a mirror's URL: source {options.source!r} {what}, "
            "so no request would reach the mirror"
        )


# -- the registry ----------------------------------------------------------------
@dataclass(frozen=True)
class SourceOptions:
    """What a source kind's factory may read: the source as named (a mirror's URL), the simulator's world and
    faults, the hosts sent to mirrors, and what limits requests to real hosts (``limiter``: None for a kind's
    default; ``catalog``: whose rate limits that default honours, None for the built-in one's)."""

    source: str
    seed: int = 0
    as_of: dt.date | str | None = None
    fault_rate: float = 0.0
    mirrors: Mapping[str, str] = field(default_factory=dict)
    limiter: HostLimiter | None = None
    catalog: Catalog | None = None
    #: the incidents the simulator injects (:func:`kopa_replay.sim.incidents.parse_incidents`'s spelling)
    incidents: str = ""


@dataclass(frozen=True)
class Inner:
    """A kind's answer: the transport that reaches it (None: nothing does, answers come from a snapshot only)
    and the key to send (None: each platform's live key, read when a call is made)."""

    transport: httpx.BaseTransport | httpx.AsyncBaseTransport | None
    key: str | None
    #: forgets the per-request state behind the transport that shapes answers (the simulator's attempt counts:
    #: its faults are a function of the attempt); None when there is none
    rewind: Callable[[], None] | None = None


#: A source kind: (options, asynchronous) → its inner transport (an ``httpx.AsyncBaseTransport`` when
#: ``asynchronous``) and key.
InnerFactory = Callable[[SourceOptions, bool], Inner]


def _mirror_transport(mirrors: Mapping[str, str], asynchronous: bool) -> httpx.BaseTransport | httpx.AsyncBaseTransport:
    return AsyncMirrorTransport(mirrors) if asynchronous else MirrorTransport(mirrors)


def is_sim(source: str | None) -> bool:
    """Whether ``source`` names the simulator: ``sim``, or ``sim:<world>`` (a world preset, ``sim:default``)."""
    return source is not None and (source == "sim" or source.startswith("sim:"))


def sim_world(source: str) -> str:
    """The world preset a simulator source names: its ``:<world>`` part, else the default one
    (:func:`~kopa_replay.sim.world.world_size`: ``full`` unless ``KOPA_WORLD_SIZE`` says otherwise)."""
    from kopa_replay.errors import SimError
    from kopa_replay.sim.world import world_size

    _, _, named = source.partition(":")
    try:
        return world_size(named or None)
    except SimError as exc:
        raise UsageError(f"source {source!r}: {exc}") from None


def source_label(source: str) -> str:
    """How a snapshot records where its answers came from: ``sim:<world>`` with the world resolved (a re-run,
    a refresh or a resume gets the same world whatever the environment says), ``live``, or ``mirror``."""
    if is_sim(source):
        return f"sim:{sim_world(source)}"
    return source if source == "live" else "mirror"


def recorded_sim_source(label: str) -> str:
    """The simulator source that re-makes a snapshot whose recorded source is ``label`` (``sim:<world>``); a bare
    ``sim`` was recorded before worlds were named, on the small world then the only one."""
    return "sim:default" if label == "sim" else label


def snapshot_sim_source(store: "str | Path", snapshot: str) -> str | None:
    """The simulator source (``sim:<world>``) a snapshot of ``store`` was recorded from, None when another source
    recorded it."""
    from kopa_replay.record import Store

    with Store(store, readonly=True) as opened:
        label = opened.snapshot(snapshot).source
    return recorded_sim_source(label) if label is not None and is_sim(label) else None


def _sim(options: SourceOptions, asynchronous: bool) -> Inner:
    from kopa_replay.sim import AsyncSimTransport, SimTransport, Simulator, accepted_key

    _no_mirrors(options, "answers every call in-process")

    simulator = Simulator(
        seed=options.seed,
        as_of=options.as_of,
        fault_rate=options.fault_rate,
        world_size=sim_world(options.source),
        incidents=options.incidents,
    )
    transport = AsyncSimTransport(simulator) if asynchronous else SimTransport(simulator)
    return Inner(transport, accepted_key(), simulator.reset_attempts)


def _live(options: SourceOptions, asynchronous: bool) -> Inner:
    # the platforms limit each key: by default the catalog's limits, for the hosts not sent to a mirror
    check_mirrors(options.mirrors, options.catalog)
    limiter = options.limiter if options.limiter is not None else live_limiter(options.catalog, options.mirrors)
    if options.mirrors:
        return Inner(limited(_mirror_transport(options.mirrors, asynchronous), limiter), None)
    return Inner(limited(httpx.AsyncHTTPTransport() if asynchronous else httpx.HTTPTransport(), limiter), None)


def _replay(options: SourceOptions, asynchronous: bool) -> Inner:
    _no_mirrors(options, "answers every call from a snapshot")
    return Inner(None, REPLAY_KEY)


def _mirror_url(options: SourceOptions, asynchronous: bool) -> Inner:
    from kopa_replay.sim import accepted_key

    check_mirrors(options.mirrors, options.catalog)
    if "*" in options.mirrors:
        raise UsageError(
            f"--base-url '*={options.mirrors['*']}' names the mirror of every host, as --source {options.source} "
            "does: give one of them"
        )
    # a mirror is ours, not the platform's: its requests are limited only when a limiter is given (a benchmark's)
    transport = _mirror_transport({**options.mirrors, "*": options.source}, asynchronous)
    return Inner(limited(transport, options.limiter), accepted_key())


class SourceRegistry:
    """Source kinds by name, each a factory of its sync and async inner transports; a URL names a mirror."""

    def __init__(self) -> None:
        self._kinds: dict[str, InnerFactory] = {}

    def register(self, name: str, factory: InnerFactory, *, replace: bool = False) -> None:
        """Add the kind ``name`` (``replace``: over one of that name)."""
        if not name or name.startswith(_URL_SCHEMES) or "://" in name:
            raise UsageError(f"a source kind needs a plain name, not {name!r} (a URL names a mirror)")
        if name in self._kinds and not replace:
            raise UsageError(f"source kind {name!r} is already registered")
        self._kinds[name] = factory

    def unregister(self, name: str) -> None:
        self._kinds.pop(name, None)

    @property
    def kinds(self) -> tuple[str, ...]:
        """The registered names, in registration order."""
        return tuple(self._kinds)

    def factory(self, source: str) -> InnerFactory:
        """The factory ``source`` names (``sim:<world>`` names the simulator's, which reads the world from
        ``options.source``); :class:`UsageError` naming it when none does."""
        if source.startswith(_URL_SCHEMES):
            return _mirror_url
        found = self._kinds.get(source) or (self._kinds.get("sim") if is_sim(source) else None)
        if found is not None:
            return found
        names = ", ".join(repr(name) for name in self._kinds)
        raise UsageError(f"unknown source {source!r}: use {names} or the URL of a mirror (http://127.0.0.1:N)")

    def check(self, source: str) -> str:
        self.factory(source)
        if is_sim(source):
            sim_world(source)  # an unknown world preset: named now, before anything is created
        return source

    def inner(self, options: SourceOptions, *, asynchronous: bool = False) -> Inner:
        """The inner transport (sync, or async when ``asynchronous``) and key of ``options.source``."""
        return self.factory(options.source)(options, asynchronous)


#: The registry every way of opening a source asks.
SOURCES = SourceRegistry()
SOURCES.register("sim", _sim)
SOURCES.register("live", _live)
SOURCES.register("replay", _replay)


def register_source(name: str, factory: InnerFactory, *, replace: bool = False) -> None:
    """Make ``name`` a source every opener takes (``open_source``, ``open_async_source``, both environments'
    ``open``, the command line's ``--source``): ``factory(options, asynchronous)`` returns its :class:`Inner`."""
    SOURCES.register(name, factory, replace=replace)


def inner_transport(
    source: str,
    *,
    asynchronous: bool = False,
    seed: int = 0,
    as_of: dt.date | str | None = None,
    fault_rate: float = 0.0,
    incidents: str = "",
    mirrors: Mapping[str, str] | None = None,
    limiter: HostLimiter | None = None,
    catalog: Catalog | None = None,
) -> Inner:
    """The inner transport and key of ``source`` from :data:`SOURCES` (sync, or async when ``asynchronous``)."""
    if incidents and not is_sim(source):
        raise UsageError(f"incidents are injected by the simulator: source {source!r} is not sim")
    options = SourceOptions(source, seed, as_of, fault_rate, dict(mirrors or {}), limiter, catalog, incidents)
    return SOURCES.inner(options, asynchronous=asynchronous)


def check_source(source: str, mirrors: Mapping[str, str] | None = None, catalog: Catalog | None = None) -> str:
    """``source`` when it names one (a registered kind — sim, live, replay — or a mirror's URL) and takes
    ``mirrors`` (``--base-url``); a clean error otherwise — checked by recorders before they create a snapshot,
    so a typo leaves nothing behind."""
    SOURCES.check(source)
    generated = [tool.name for tool in catalog if tool.generated] if source == "live" and catalog else []
    if generated:
        raise UsageError(
            f"the catalog has {len(generated)} generated paper-scale tools ({generated[0]} …) that do not exist on "
            "the live platforms: a live run takes the real ones (the built-in catalog, or Catalog.real())"
        )
    if mirrors:  # the kind itself says whether it takes them (its transport, if any, is closed unused)
        transport = SOURCES.inner(SourceOptions(source, mirrors=dict(mirrors), catalog=catalog)).transport
        if isinstance(transport, httpx.BaseTransport):
            transport.close()
    return source


# -- opened sources ----------------------------------------------------------------
@dataclass
class _Opened:
    """What both opened sources carry: the client, the key to send (None: each platform's live key from the
    environment), a description, what to close with the client, and the recorder's fast path."""

    name: str
    client: Any
    sim_key: str | None
    details: dict[str, Any] = field(default_factory=dict)
    closers: list[Callable[[], None]] = field(default_factory=list)
    #: the recorder's fast path (``RecordTransport.replay_answer``) when answers can come from a snapshot:
    #: (method, url, secrets, tool) → the recorded answer, or None to send through ``client`` (``tool``: the
    #: calling tool's name, which an error reading its recorded body names)
    replayer: "Callable[[str, str, tuple[str, ...], str | None], Replayed | None] | None" = None
    #: what forgets the per-request counters of the parts opened with the client (the recorder's occurrences,
    #: the simulator's attempts): see :meth:`rewind`
    rewinders: list[Callable[[], None]] = field(default_factory=list)

    def key_for(self, tool: Tool) -> str | None:
        return self.sim_key if self.sim_key is not None else live_key(tool)

    def rewind(self) -> None:
        """Answer as if freshly opened: each request is met for the first time again (replay walks its recorded
        answers from the first, the simulator draws its faults for attempt 1). What a remote server counts (a
        ``sim serve`` mirror) is its own, as it is for a freshly opened source."""
        for rewind in self.rewinders:
            rewind()

    def _close_rest(self) -> None:
        for close in self.closers:
            close()


@dataclass
class Source(_Opened):
    """An httpx client plus the key to send (None: each platform's live key from the environment)."""

    client: httpx.Client

    def close(self) -> None:
        self.client.close()
        self._close_rest()

    def __enter__(self) -> "Source":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


@dataclass
class AsyncSource(_Opened):
    """An async httpx client plus the key to send (None: each platform's live key)."""

    client: httpx.AsyncClient

    async def aclose(self) -> None:
        await self.client.aclose()
        self._close_rest()

    async def __aenter__(self) -> "AsyncSource":
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()


def _open(
    source: str,
    asynchronous: bool,
    *,
    seed: int,
    as_of: dt.date | str | None,
    fault_rate: float,
    incidents: str,
    timeout: float,
    snapshot: str | None,
    mode: str | None,
    store: "str | Path | None",
    mirrors: Mapping[str, str] | None,
    catalog: Catalog | None,
    commit_every: int | None,
    wrap: Callable[[Any], Any] | None,
    limiter: HostLimiter | None = None,
) -> Any:
    """What :func:`open_source` and :func:`open_async_source` do, for one flavour."""
    inner = inner_transport(
        source,
        asynchronous=asynchronous,
        seed=seed,
        as_of=as_of,
        fault_rate=fault_rate,
        incidents=incidents,
        mirrors=mirrors,
        limiter=limiter,
        catalog=catalog,
    )
    transport, key = inner.transport, inner.key
    rewinders = [inner.rewind] if inner.rewind is not None else []
    if wrap is None and snapshot is not None and mode not in (None, "replay") and transport is not None:
        # a recording source never records a blocked answer, whoever opened it (call --mode record, the pytest
        # plugin): no retries unless the caller wraps its own (record and refresh do)
        from kopa_replay.catalog import builtin_catalog
        from kopa_replay.env.recording import guarded

        wrap = guarded(catalog if catalog is not None else builtin_catalog(), asynchronous)
    if wrap is not None and transport is not None:
        transport = wrap(transport)
    # one flavour's pair, chosen at run time (open_source and open_async_source type what comes back): Any, as
    # mypy would pair either client with either source and transport
    opened_kind: Any
    client_kind: Any
    opened_kind, client_kind = (AsyncSource, httpx.AsyncClient) if asynchronous else (Source, httpx.Client)
    details: dict[str, Any] = {"source": source}
    if snapshot is None:
        if transport is None:
            raise UsageError(f"source {source!r} needs --snapshot")
        return opened_kind(source, client_kind(transport=transport, timeout=timeout), key, details, rewinders=rewinders)
    from kopa_replay.record import AsyncRecordTransport, RecordTransport, Store, default_store_path, redactor_for
    from kopa_replay.record.snapshots import check_pinned
    from kopa_replay.record.store import replay_store_path
    from kopa_replay.record.transport import COMMIT_EVERY

    mode = mode or "replay"
    path = replay_store_path(snapshot, store) if mode == "replay" else Path(store) if store else default_store_path()
    opened = Store(path, readonly=(mode == "replay"))
    try:
        recorder_kind = AsyncRecordTransport if asynchronous else RecordTransport
        recorder = recorder_kind(
            None if mode == "replay" else transport,
            opened,
            snapshot,
            mode,
            redactor_for(catalog, extra_values=[key] if key else []),
            commit_every=commit_every or COMMIT_EVERY,
        )
        # an open snapshot without a manifest is a working cassette: replayed, but nothing pins its answers
        pinned = check_pinned(opened, snapshot) if mode == "replay" else None
    except BaseException:
        opened.close()
        raise
    details.update(snapshot=snapshot, mode=mode, store=str(path), pinned=pinned)
    return opened_kind(
        f"{source}+{mode}",
        client_kind(transport=recorder, timeout=timeout),
        key if mode != "replay" else (key or REPLAY_KEY),
        details,
        [opened.close],
        recorder.replay_answer,
        [*rewinders, recorder.rewind],
    )


def open_source(
    source: str = "sim",
    *,
    seed: int = 0,
    as_of: dt.date | str | None = None,
    fault_rate: float = 0.0,
    incidents: str = "",
    timeout: float = 30.0,
    snapshot: str | None = None,
    mode: str | None = None,
    store: "str | Path | None" = None,
    mirrors: Mapping[str, str] | None = None,
    catalog: Catalog | None = None,
    commit_every: int | None = None,
    wrap: Callable[[httpx.BaseTransport], httpx.BaseTransport] | None = None,
    limiter: HostLimiter | None = None,
) -> Source:
    """A client for ``source`` (any kind in :data:`SOURCES`, or a mirror's URL); with ``snapshot`` (and
    ``mode``, default replay) through the recorder (``commit_every``: its commit batch, see
    :class:`~kopa_replay.record.RecordTransport`). ``wrap`` wraps the transport that reaches the source, inside
    the recorder (e.g. a :class:`~kopa_replay.record.retry.RetryTransport`, so only a retry's answer is
    recorded). ``limiter`` (a :class:`~kopa_replay.env.limits.HostLimiter`) paces each request that reaches a
    host, inside ``wrap`` (each retry counts); without one, ``live`` gets the catalog's rate limits
    (:func:`~kopa_replay.env.limits.live_limiter`), a mirror none, ``sim`` and ``replay`` never send any."""
    return _open(
        source,
        False,
        seed=seed,
        as_of=as_of,
        fault_rate=fault_rate,
        incidents=incidents,
        timeout=timeout,
        snapshot=snapshot,
        mode=mode,
        store=store,
        mirrors=mirrors,
        catalog=catalog,
        commit_every=commit_every,
        wrap=wrap,
        limiter=limiter,
    )


def open_async_source(
    source: str = "sim",
    *,
    seed: int = 0,
    as_of: dt.date | str | None = None,
    fault_rate: float = 0.0,
    incidents: str = "",
    timeout: float = 30.0,
    snapshot: str | None = None,
    mode: str | None = None,
    store: "str | Path | None" = None,
    mirrors: Mapping[str, str] | None = None,
    catalog: Catalog | None = None,
    commit_every: int | None = None,
    wrap: Callable[[httpx.AsyncBaseTransport], httpx.AsyncBaseTransport] | None = None,
    limiter: HostLimiter | None = None,
) -> AsyncSource:
    """The async counterpart of :func:`open_source`: the same kinds, mirrors and URLs, and the same recorder
    (:class:`~kopa_replay.record.AsyncRecordTransport`); ``wrap`` takes and gives an async transport."""
    return _open(
        source,
        True,
        seed=seed,
        as_of=as_of,
        fault_rate=fault_rate,
        incidents=incidents,
        timeout=timeout,
        snapshot=snapshot,
        mode=mode,
        store=store,
        mirrors=mirrors,
        catalog=catalog,
        commit_every=commit_every,
        wrap=wrap,
        limiter=limiter,
    )


def coerce_args(tool: Tool, raw: Mapping[str, str]) -> dict[str, Any]:
    """Command-line ``k=v`` strings to the types the tool's inputSchema asks for."""
    properties = tool.input_schema.get("properties", {})
    out: dict[str, Any] = {}
    for name, text in raw.items():
        if name not in properties:
            raise UsageError(
                f"tool {tool.name!r} has no parameter {name!r} (parameters: {', '.join(tool.params) or 'none'})"
            )
        kind = properties[name].get("type")
        if kind in ("integer", "number"):
            try:
                out[name] = int(text) if kind == "integer" else float(text)
            except ValueError:
                raise UsageError(
                    f"argument {name!r} of tool {tool.name!r} must be {'an integer' if kind == 'integer' else 'a number'}, not {text!r}"
                ) from None
        elif kind == "boolean":
            out[name] = text.lower() in ("1", "true", "y", "yes")
        else:
            out[name] = text
    return out


def call_tool(catalog: Catalog, name: str, args: Mapping[str, Any], source: Source) -> CallResult:
    """Execute one tool of ``catalog`` against ``source``."""
    tool = catalog.get(name)
    return execute(tool, args, source.client, source.key_for(tool))
