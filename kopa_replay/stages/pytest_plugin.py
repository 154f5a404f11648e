"""pytest plugin: pin a test to a recorded snapshot and hand it a client that replays it.

::

    import pytest

    from kopa_replay.catalog import builtin_catalog
    from kopa_replay.env import call_tool

    @pytest.mark.kopa_snapshot("2026-09-01")
    def test_premium(kopa_source):
        result = call_tool(builtin_catalog(), "dart_corp_code", {"corp_name": "라이트론"}, kopa_source)
        assert result.records[0]["corp_code"] == "00439743"

Fixtures (function scope, one recorder per test):

* ``kopa_source`` — a :class:`kopa_replay.env.Source` (for ``call_tool``) whose
  client goes through a :class:`~kopa_replay.record.RecordTransport` on the
  marker's snapshot;
* ``kopa_client`` — that source's ``httpx.Client``.

Command-line options:

* ``--kopa-record-mode`` — ``replay`` (the default: strict and offline, an
  unrecorded request fails the test with a :class:`CassetteMiss` whose message
  names this option), ``record``, ``replay-or-record``, ``refresh``, or
  ``none`` (no recorder: requests go straight to the source; no store is
  opened);
* ``--kopa-source`` — where record modes send requests: ``sim`` (the
  in-process simulator, the default), ``live`` (the real platforms) or the URL
  of a mirror (``kopa-replay sim serve``);
* ``--kopa-store`` — the store file when the marker names none.

Marker: ``kopa_snapshot(name, store=None, seed=0, as_of=None)``. ``name`` is
the snapshot; a relative ``store`` is relative to the rootdir, so a test finds
its cassettes whatever directory pytest runs from; ``seed`` and ``as_of`` set
the simulator (``as_of`` defaults to ``name`` when that is an ISO date).

With no store named (marker or ``--kopa-store``) the store is the command
line's default, found from the rootdir (:func:`kopa_replay.record.default_store_path`):
``$KOPA_STORE``, else the project's ``cassettes/kopa.sqlite`` when it exists,
else the package's shipped store; a replay of a snapshot that store lacks
reads the shipped store when that holds it (:func:`kopa_replay.record.store.replay_store_path`),
so a new project replays ``2026-09-01`` with nothing copied. The record modes
never write into the shipped store unless it is named.

Registered through the ``pytest11`` entry point ``kopa_replay``; without it,
load it with ``-p kopa_replay.stages.pytest_plugin``. Being an entry point,
it is imported by every pytest session where kopa-replay is installed, so it
imports the recorder only when a test asks for one of its fixtures.
"""

from __future__ import annotations

import datetime as dt
import os
from collections.abc import Generator, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    import httpx

    from kopa_replay.env import Source
    from kopa_replay.errors import CassetteMiss

__all__ = [
    "MARKER",
    "RECORD_MODES",
    "KopaSettings",
    "kopa_client",
    "kopa_settings",
    "kopa_source",
    "open_kopa_source",
    "store_path",
    "with_pytest_hint",
]

MARKER = "kopa_snapshot"
#: the recorder's modes (kopa_replay.record.MODES, spelled out to keep pytest's start-up light; a test
#: checks they agree) plus "none": no recorder at all
RECORD_MODES = ("replay", "record", "replay-or-record", "refresh", "none")
_MARKER_HELP = (
    f"{MARKER}(name, store=None, seed=0, as_of=None): pin the test's kopa_client/kopa_source to "
    "snapshot NAME of the kopa-replay store STORE (relative to the rootdir)"
)


@dataclass(frozen=True)
class KopaSettings:
    """What one test's fixtures open: ``snapshot`` is None in mode ``none``; ``store`` is the store named (marker
    or ``--kopa-store``, made absolute), None for the default resolution (:func:`store_path`) or in mode ``none``."""

    mode: str
    source: str
    snapshot: str | None
    store: Path | None
    seed: int
    as_of: str | None


def _iso_date(text: str) -> str | None:
    try:
        return dt.date.fromisoformat(text).isoformat()
    except ValueError:
        return None


def kopa_settings(
    marker_args: Sequence[Any] | None,
    marker_kwargs: Mapping[str, Any] | None,
    *,
    mode: str,
    source: str,
    store_option: str | None,
    rootpath: Path,
    test: str,
) -> KopaSettings:
    """Resolve a test's marker and the command-line options (pure: no file is touched).

    ``marker_args``/``marker_kwargs`` are None when the test has no marker,
    which only mode ``none`` allows.
    """
    from kopa_replay.errors import UsageError

    if mode not in RECORD_MODES:
        raise UsageError(f"--kopa-record-mode {mode!r} is not one of: {', '.join(RECORD_MODES)}")
    if marker_args is None:
        if mode != "none":
            raise UsageError(
                f'{test} uses kopa_client/kopa_source without @pytest.mark.{MARKER}("SNAPSHOT") '
                f"(needed in --kopa-record-mode {mode})"
            )
        return KopaSettings(mode, source, None, None, 0, None)
    kwargs = dict(marker_kwargs or {})
    unknown = sorted(kwargs.keys() - {"store", "seed", "as_of"})
    if len(marker_args) != 1 or not isinstance(marker_args[0], str) or not marker_args[0] or unknown:
        raise UsageError(
            f'{test}: use @pytest.mark.{MARKER}("SNAPSHOT", store=..., seed=..., as_of=...), '
            f"not {MARKER}{tuple(marker_args)!r}" + (f" with {', '.join(unknown)}" if unknown else "")
        )
    name = marker_args[0]
    store = kwargs.get("store") or store_option
    as_of = kwargs.get("as_of") or _iso_date(name)
    return KopaSettings(
        mode,
        source,
        None if mode == "none" else name,
        None if mode == "none" or not store else rootpath / store,  # an absolute store stays as it is
        int(kwargs.get("seed", 0)),
        as_of,
    )


def store_path(settings: KopaSettings, rootpath: Path) -> Path:
    """The store file the fixtures open (not in mode ``none``): the named one, else the command line's default
    found from ``rootpath`` — for a replay the shipped store when that default lacks the snapshot and the shipped
    one holds it. The record modes refuse to write into the shipped store unless it is named."""
    from kopa_replay.errors import UsageError
    from kopa_replay.record.store import default_store_path, replay_store_path, shipped_store_path

    if settings.store is not None:
        return settings.store
    assert settings.snapshot is not None  # mode none opens no store
    if settings.mode == "replay":
        path = replay_store_path(settings.snapshot, root=rootpath)
    else:
        path = default_store_path(rootpath)
        if path.resolve() == shipped_store_path() and not os.environ.get("KOPA_STORE"):  # named there: on purpose
            raise UsageError(
                f"--kopa-record-mode {settings.mode} would write into the shipped store {path}; copy it into the "
                "project first (kopa-replay cassette copy --shipped cassettes/kopa.sqlite) or name a store: "
                f'@pytest.mark.{MARKER}("{settings.snapshot}", store="cassettes/kopa.sqlite"), --kopa-store or '
                "KOPA_STORE"
            )
    return path if path.is_absolute() else rootpath / path  # a relative $KOPA_STORE, like a named store


def open_kopa_source(settings: KopaSettings, rootpath: Path) -> Source:
    """The Source the fixtures hand out for ``settings`` (a default store is found from ``rootpath``)."""
    from kopa_replay.catalog import builtin_catalog
    from kopa_replay.env import open_source

    if settings.mode == "none":
        return open_source(settings.source, seed=settings.seed, as_of=settings.as_of)
    # Replay never sends anything, so it needs no source; the catalog teaches the redactor the key names.
    return open_source(
        "replay" if settings.mode == "replay" else settings.source,
        seed=settings.seed,
        as_of=settings.as_of,
        snapshot=settings.snapshot,
        mode=settings.mode,
        store=store_path(settings, rootpath),
        catalog=builtin_catalog(),
    )


def with_pytest_hint(miss: CassetteMiss) -> str:
    """A cassette miss's message with the pytest option to record it, in place of the command line's ``--mode``
    (the message is the recorder's, shared with the command line)."""
    from kopa_replay.record.store import shipped_store_path

    text, cut, _ = str(miss).rpartition("; record it with ")
    hint = "; record it with pytest --kopa-record-mode record or replay-or-record"
    if Path(miss.store).resolve() == shipped_store_path():
        hint += (
            " into a store of your own (kopa-replay cassette copy --shipped cassettes/kopa.sqlite, or store=... on the "
            "marker): the shipped store is never written unless named"
        )
    return (text if cut else str(miss)) + hint


# -- hooks ------------------------------------------------------------------------
def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("kopa-replay", "kopa-replay recorded snapshots")
    group.addoption(
        "--kopa-record-mode",
        choices=RECORD_MODES,
        default="replay",
        help="replay (default; strict, offline), record, replay-or-record, refresh, or none (no recorder)",
    )
    group.addoption(
        "--kopa-source",
        default="sim",
        metavar="SOURCE",
        help="where record modes send requests: sim (in-process simulator, default), live, or a mirror URL",
    )
    group.addoption(
        "--kopa-store",
        default=None,
        metavar="PATH",
        help="the store file for markers that name none (default: $KOPA_STORE, else the rootdir's "
        "cassettes/kopa.sqlite if present, else the shipped store; a replay falls back to the shipped store for "
        "a snapshot the default lacks)",
    )


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", _MARKER_HELP)


def pytest_report_header(config: pytest.Config) -> str:
    return f"kopa-replay: record mode {config.getoption('kopa_record_mode')}, source {config.getoption('kopa_source')}"


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    """A cassette miss in a test on the fixtures (setup, call or teardown) names pytest's option to record it."""
    import sys

    # only where the fixtures ran: then the errors module is loaded and the miss can only be ours
    errors = sys.modules.get("kopa_replay.errors")
    if call.excinfo is not None and errors is not None and "kopa_source" in getattr(item, "fixturenames", ()):
        seen: set[int] = set()
        error: BaseException | None = call.excinfo.value
        while error is not None and id(error) not in seen:  # the miss itself, or what a test raised from it
            seen.add(id(error))
            if isinstance(error, errors.CassetteMiss) and "--kopa-record-mode" not in str(error):
                error.args = (with_pytest_hint(error),)  # the report is drawn from the exception: same traceback
            error = error.__cause__ or error.__context__
    return (yield)


# -- fixtures ---------------------------------------------------------------------
@pytest.fixture
def kopa_source(request: pytest.FixtureRequest) -> Iterator[Source]:
    """A kopa_replay Source on the test's snapshot (see the module docstring for mode and source)."""
    from kopa_replay.errors import KopaError

    marker = request.node.get_closest_marker(MARKER)
    config = request.config
    try:
        settings = kopa_settings(
            marker.args if marker else None,
            marker.kwargs if marker else None,
            mode=config.getoption("kopa_record_mode"),
            source=config.getoption("kopa_source"),
            store_option=config.getoption("kopa_store"),
            rootpath=config.rootpath,
            test=request.node.nodeid,
        )
        source = open_kopa_source(settings, config.rootpath)
    except KopaError as exc:
        mistake: KopaError | None = exc
    else:
        mistake = None
    if mistake is not None:
        # A user mistake (no marker, a missing snapshot or store): one line, not a traceback, and failed outside the
        # except block so that pytest does not print it twice ("During handling of the above exception …")
        pytest.fail(f"kopa-replay: {mistake}", pytrace=False)
    try:
        yield source
    finally:
        source.close()


@pytest.fixture
def kopa_client(kopa_source: Source) -> httpx.Client:
    """An httpx.Client over the recorder on the test's snapshot (the kopa_source's client)."""
    return kopa_source.client
