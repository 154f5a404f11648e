"""pytest plugin: pin a test to a recorded snapshot and hand it a client that replays it.

::

    @pytest.mark.kopa_snapshot("2026-09-01", store="cassettes/kopa.sqlite")
    def test_premium(kopa_client, kopa_source):
        kopa_client.get("https://opendart.fss.or.kr/api/company.json?crtfc_key=k&corp_code=00439743")
        call_tool(builtin_catalog(), "dart_corp_code", {"corp_name": "라이트론"}, kopa_source)

Fixtures (function scope, one recorder per test):

* ``kopa_source`` — a :class:`kopa_replay.env.Source` (for ``call_tool``) whose
  client goes through a :class:`~kopa_replay.record.RecordTransport` on the
  marker's snapshot;
* ``kopa_client`` — that source's ``httpx.Client``.

Command-line options:

* ``--kopa-record-mode`` — ``replay`` (the default: strict and offline, an
  unrecorded request fails the test with a :class:`CassetteMiss`), ``record``,
  ``replay-or-record``, ``refresh``, or ``none`` (no recorder: requests go
  straight to the source; no store is opened);
* ``--kopa-source`` — where record modes send requests: ``sim`` (the
  in-process simulator, the default), ``live`` (the real platforms) or the URL
  of a mirror (``kopa-replay sim serve``);
* ``--kopa-store`` — the store file when the marker names none (default:
  :func:`kopa_replay.record.default_store_path`).

Marker: ``kopa_snapshot(name, store=None, seed=0, as_of=None)``. ``name`` is
the snapshot; a relative ``store`` is relative to the rootdir, so a test finds
its cassettes whatever directory pytest runs from; ``seed`` and ``as_of`` set
the simulator (``as_of`` defaults to ``name`` when that is an ISO date).

Registered through the ``pytest11`` entry point ``kopa_replay``; without it,
load it with ``-p kopa_replay.stages.pytest_plugin``. Being an entry point,
it is imported by every pytest session where kopa-replay is installed, so it
imports the recorder only when a test asks for one of its fixtures.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    import httpx

    from kopa_replay.env import Source

__all__ = ["MARKER", "RECORD_MODES", "KopaSettings", "kopa_client", "kopa_settings", "kopa_source", "open_kopa_source"]

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
    """What one test's fixtures open: ``snapshot`` and ``store`` are None in mode ``none``."""

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
    from kopa_replay.record.store import default_store_path

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
    path = Path(store) if store else default_store_path()
    if not path.is_absolute():
        path = rootpath / path
    as_of = kwargs.get("as_of") or _iso_date(name)
    return KopaSettings(
        mode,
        source,
        None if mode == "none" else name,
        None if mode == "none" else path,
        int(kwargs.get("seed", 0)),
        as_of,
    )


def open_kopa_source(settings: KopaSettings) -> Source:
    """The Source the fixtures hand out for ``settings``."""
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
        store=settings.store,
        catalog=builtin_catalog(),
    )


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
        help="the store file for markers that name none (default: $KOPA_STORE or cassettes/kopa.sqlite)",
    )


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", _MARKER_HELP)


def pytest_report_header(config: pytest.Config) -> str:
    return f"kopa-replay: record mode {config.getoption('kopa_record_mode')}, source {config.getoption('kopa_source')}"


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
        source = open_kopa_source(settings)
    except KopaError as exc:
        # A user mistake (no marker, a missing snapshot or store): one line, not a traceback.
        pytest.fail(f"kopa-replay: {exc}", pytrace=False)
    try:
        yield source
    finally:
        source.close()


@pytest.fixture
def kopa_client(kopa_source: Source) -> httpx.Client:
    """An httpx.Client over the recorder on the test's snapshot (the kopa_source's client)."""
    return kopa_source.client
