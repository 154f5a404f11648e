"""Shared fixtures: a seeded simulator, an httpx client on it, the built-in catalog.

Tests run offline: HF/hub variables are set so nothing reaches for the network. The simulator's world is the
small one (KOPA_WORLD_SIZE=default) unless a test names another.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import httpx
import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("HF_DATASETS_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
# the small world, unless a run asks for another: the platforms at their real sizes (the default everywhere else)
# take seconds to build per platform; tests of the full world name it (sim:full, world_size="full")
os.environ.setdefault("KOPA_WORLD_SIZE", "default")
# parsed catalogs and operation tables kept apart from the user's own cache (content-addressed, so shared safely
# by the workers and by runs)
_USER = getattr(os, "getuid", lambda: "user")()
os.environ.setdefault("KOPA_CACHE_DIR", os.path.join(tempfile.gettempdir(), f"kopa-replay-test-cache-{_USER}"))

from kopa_replay.catalog import builtin_catalog  # noqa: E402
from kopa_replay.env import execute  # noqa: E402
from kopa_replay.sim import SimTransport, Simulator, running_server  # noqa: E402

KEY = "sim-key"

TESTS = Path(__file__).resolve().parent

#: directories whose conftest builds a costly session fixture (a pruned graph, a synthesized corpus, a tiny model
#: and a recorded corpus, a Ray cluster): their tests share one worker, so each is built once per run
_SHARED_SESSION = ("filter", "scale", "synth", "train")
#: modules that read one session fixture of their directory's conftest (the README's first command, run once)
_SHARED_MODULES = {
    "stages/test_pipeline_run.py": "stages/pipeline",
    "stages/test_report.py": "stages/pipeline",
    "stages/test_report_browser.py": "stages/pipeline",
}


@pytest.hookimpl(tryfirst=True)  # before xdist's own hook reads the groups into the test ids
def pytest_collection_modifyitems(config, items):
    """Groups for pytest-xdist's ``--dist loadgroup`` (the suite runs on every core, pyproject's addopts).

    A module's tests stay on one worker, so a module fixture (a simulator world, a recorded store) is built once,
    and so do the directories of :data:`_SHARED_SESSION`.
    """
    for item in items:
        parts = Path(str(item.path)).resolve().relative_to(TESTS).parts
        group = parts[0] if parts[0] in _SHARED_SESSION else _SHARED_MODULES.get("/".join(parts), "/".join(parts))
        item.add_marker(pytest.mark.xdist_group(group))


def _shipped_store_digest() -> str:
    import hashlib

    from kopa_replay.record.store import shipped_store_path

    return hashlib.sha256(shipped_store_path().read_bytes()).hexdigest()


def pytest_sessionstart(session):
    if not hasattr(session.config, "workerinput"):  # the controller (or a run without xdist) keeps watch
        session.config.stash[_SHIPPED_DIGEST] = _shipped_store_digest()


def pytest_sessionfinish(session, exitstatus):
    """The shipped store is package data, read-only to every command unless a user names it: a run that changed
    one byte of it (a header switched to WAL by a writable open counts) fails, whichever test did it."""
    before = session.config.stash.get(_SHIPPED_DIGEST, None)
    if before is not None and _shipped_store_digest() != before:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED
        session.config.get_terminal_writer().line(
            "the shipped store kopa_replay/data/cassettes/kopa.sqlite changed during the run: a test opened it "
            "writable (restore it with git checkout)",
            red=True,
        )


_SHIPPED_DIGEST = pytest.StashKey[str]()


@pytest.fixture(autouse=True)
def _no_live_key(monkeypatch):
    # The simulator accepts KOPA_API_KEY when set; tests use the default key.
    monkeypatch.delenv("KOPA_API_KEY", raising=False)


@pytest.fixture
def unbuilt_worlds(monkeypatch):
    """No world built yet in this process: for tests of what a sub-world draws lazily (a process shares its built
    worlds by seed and size, so an earlier test on the same worker would have drawn it)."""
    from collections import OrderedDict

    import kopa_replay.sim.world as world_module

    monkeypatch.setattr(world_module, "_BUILT", OrderedDict())


@pytest.fixture(scope="session")
def catalog():
    return builtin_catalog()


@pytest.fixture
def sim():
    return Simulator(seed=0)


@pytest.fixture
def client(sim):
    with httpx.Client(transport=SimTransport(sim)) as c:
        yield c


@pytest.fixture
def call(catalog, client):
    """``call(tool_name, **args)`` → CallResult, in-process against the simulator (seed 0, 2026-09-01)."""

    def _call(tool_name: str, key: str = KEY, **args):
        return execute(catalog.get(tool_name), args, client, key)

    return _call


class NetworkBlocked(RuntimeError):
    """A test tried to open a socket while the network was blocked."""


@pytest.fixture
def no_network(monkeypatch):
    """Block every outgoing socket connection (loopback included) for the test's duration."""
    import socket

    attempts: list[object] = []

    def refuse(self, address, *args, **kwargs):
        attempts.append(address)
        raise NetworkBlocked(f"network blocked in this test: connect to {address!r}")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket.socket, "connect_ex", refuse)
    monkeypatch.setattr(socket, "create_connection", lambda address, *a, **k: refuse(None, address))
    return attempts


@pytest.fixture
def server_url(sim):
    """A real loopback server over the same simulator; yields http://127.0.0.1:N."""
    with running_server(sim) as url:
        yield url


@pytest.fixture
def cli_error():
    """``cli_error(result)`` → the one ``Error:`` line of a failed CLI run (exit 1, no traceback)."""

    def check(result) -> str:
        assert result.exit_code == 1, result.output
        lines = [line for line in result.output.splitlines() if line.startswith("Error:")]
        assert len(lines) == 1 and "Traceback" not in result.output, result.output
        return lines[0]

    return check


#: Links known to execute on the simulator, chosen so a short walk meets every junction kind: a code lookup
#: (sequential), three routes at a stop (fan-out), 50 stations by name and 200 stops (derived).
_SCHOOL = {"ATPT_OFCDC_SC_CODE": "ATPT_OFCDC_SC_CODE", "SD_SCHUL_CODE": "SD_SCHUL_CODE"}
HAND_LINKS = (
    ("dart_corp_code", "dart_cvbd_is_decsn", {"corp_code": "corp_code"}),
    ("dart_cvbd_is_decsn", "datagokr_get_stock_price_info", {"itmsNm": "corp_name"}),
    ("tago_get_sttn_no_list", "tago_get_sttn_accto_arvl_prearnge_info_list", {"nodeId": "nodeid"}),
    ("tago_get_sttn_accto_arvl_prearnge_info_list", "tago_get_route_info_iem", {"routeId": "routeid"}),
    ("neis_school_info", "neis_school_schedule", _SCHOOL),
    ("neis_school_schedule", "neis_meal_service_diet_info", _SCHOOL),
    ("seoulbus_get_station_by_name", "seoulbus_get_station_by_uid", {"arsId": "arsId"}),
    ("seoulbus_get_station_by_uid", "seoulbus_get_route_info", {"busRouteId": "busRouteId"}),
)


@pytest.fixture(scope="session")
def hand_link_specs():
    """(source, target, binding) of the hand-picked links the synthesis and benchmark tests walk."""
    return HAND_LINKS


@pytest.fixture
def hand_links(hand_link_specs):
    """Fresh :class:`~kopa_replay.graph.Link` objects for the hand-picked links."""
    from kopa_replay.graph import Link

    return [Link(source, target, dict(binding), 0.9) for source, target, binding in hand_link_specs]
