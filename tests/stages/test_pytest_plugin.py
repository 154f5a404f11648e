"""The pytest plugin: the kopa_snapshot marker, the kopa_client/kopa_source fixtures, the record-mode options.

Inner test sessions run in-process through ``pytester`` with plugin autoloading
off (fast, and unaffected by whatever else is installed), so they load the
plugin explicitly; the ``pytest11`` entry point is checked on its own.
"""

from __future__ import annotations

from importlib.metadata import entry_points
from pathlib import Path

import pytest

from kopa_replay.errors import CassetteMiss, UsageError
from kopa_replay.record import MODES, Store
from kopa_replay.record.store import shipped_store_path
from kopa_replay.sim import Simulator, running_server
from kopa_replay.stages.pytest_plugin import (
    RECORD_MODES,
    KopaSettings,
    kopa_settings,
    store_path,
    with_pytest_hint,
)

pytest_plugins = ["pytester"]

PLUGIN = "kopa_replay.stages.pytest_plugin"
PRICE = (
    "https://apis.data.go.kr/1160100/service/GetStockSecuritiesInfoService/getStockPriceInfo"
    "?serviceKey=sim-key&resultType=json&srtnCd=069540&basDt={day}"
)

TESTS = f"""
import pytest
from kopa_replay.catalog import builtin_catalog
from kopa_replay.env import call_tool

PRICE = {PRICE!r}

@pytest.mark.kopa_snapshot("2026-09-01", store="cassettes/kopa.sqlite")
def test_client(kopa_client):
    response = kopa_client.get(PRICE.format(day="20260831"))
    assert response.status_code == 200 and b'"clpr":"1680"' in response.content

@pytest.mark.kopa_snapshot("2026-09-01", store="cassettes/kopa.sqlite")
def test_source(kopa_source):
    result = call_tool(builtin_catalog(), "dart_corp_code", {{"corp_name": "라이트론"}}, kopa_source)
    assert result.outcome == "ok" and result.records[0]["corp_code"] == "00439743"
"""

#: the README's test: a marker naming no store, in a project holding nothing but this file
NEW_PROJECT = """
import pytest
from kopa_replay.catalog import builtin_catalog
from kopa_replay.env import call_tool

@pytest.mark.kopa_snapshot("2026-09-01")
def test_premium(kopa_source):
    result = call_tool(builtin_catalog(), "dart_corp_code", {"corp_name": "라이트론"}, kopa_source)
    assert result.records[0]["corp_code"] == "00439743"
    assert kopa_source.details["store"] == SHIPPED

@pytest.mark.kopa_snapshot("2026-09-01")
def test_unrecorded(kopa_client):
    kopa_client.get("https://opendart.fss.or.kr/api/company.json?crtfc_key=k&corp_code=00000001")
"""


def _import_every_module() -> None:
    """Import all of kopa_replay when this file is collected, before any pytester fixture exists.

    pytester restores ``sys.modules`` when its fixture is torn down (and after
    each in-process run), dropping the modules first imported meanwhile; a
    later import would then create a second copy of their classes, and
    ``isinstance`` across the copies fails in other tests. Importing
    everything first keeps one copy.
    """
    import importlib
    import pkgutil

    import kopa_replay

    for module in pkgutil.walk_packages(kopa_replay.__path__, "kopa_replay."):
        importlib.import_module(module.name)


_import_every_module()


@pytest.fixture
def inner(pytester, monkeypatch):
    """A pytester directory whose sessions load only the plugin."""
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
    pytester.makeconftest(f"pytest_plugins = [{PLUGIN!r}]\n")
    pytester.makepyfile(test_recorded=TESTS)
    return pytester


def test_the_entry_point_names_the_plugin():
    points = [ep for ep in entry_points(group="pytest11") if ep.name == "kopa_replay"]
    if not points:
        pytest.skip("the pytest11 entry point is not registered (pyproject.toml, then pip install -e .)")
    assert [ep.value for ep in points] == [PLUGIN]


def _store(pytester) -> Path:
    return pytester.path / "cassettes" / "kopa.sqlite"


def test_record_then_replay_strictly_offline(inner, no_network):
    inner.runpytest("--kopa-record-mode", "record").assert_outcomes(passed=2)
    assert Store(_store(inner), readonly=True).stats()["snapshots"] == {"2026-09-01": 2}
    result = inner.runpytest("--strict-markers")  # replay is the default; the marker is registered
    result.assert_outcomes(passed=2)
    result.stdout.fnmatch_lines(["kopa-replay: record mode replay, source sim"])
    assert no_network == []


def test_an_unrecorded_request_fails_the_test_with_a_cassette_miss(inner, no_network):
    inner.runpytest("--kopa-record-mode", "record", "-k", "test_client").assert_outcomes(passed=1)
    inner.makepyfile(test_new=TESTS.replace('day="20260831"', 'day="20260828"'))
    result = inner.runpytest("test_new.py")
    result.assert_outcomes(passed=0, failed=2)
    result.stdout.fnmatch_lines(
        [
            (
                "*CassetteMiss: cassette miss: GET https://apis.data.go.kr/*serviceKey=**"
                "*basDt=20260828 was not recorded in snapshot '2026-09-01'*"
            ),
            "*tool 'dart_corp_code'*not recorded*",
        ]
    )
    # the hint names pytest's own option, not the command line's --mode; the project's store needs no copy advice
    misses = [line for line in result.stdout.lines if line.startswith("E ") and "CassetteMiss" in line]
    assert misses and all(
        line.endswith("; record it with pytest --kopa-record-mode record or replay-or-record") for line in misses
    ), misses


def test_replay_or_record_fills_only_the_gaps(inner, no_network):
    inner.runpytest("--kopa-record-mode", "record", "-k", "test_client").assert_outcomes(passed=1)
    inner.runpytest("--kopa-record-mode", "replay-or-record").assert_outcomes(passed=2)
    assert Store(_store(inner), readonly=True).stats()["interactions"] == 2


def test_mode_none_goes_straight_to_the_source(inner, no_network):
    inner.runpytest("--kopa-record-mode", "none").assert_outcomes(passed=2)
    assert not _store(inner).exists()


def test_record_from_a_mirror_then_replay_it(inner):
    with running_server(Simulator(seed=0)) as url:
        inner.runpytest("--kopa-record-mode", "record", "--kopa-source", url).assert_outcomes(passed=2)
    inner.runpytest().assert_outcomes(passed=2)


def test_setup_mistakes_are_one_line_errors(inner):
    inner.makepyfile(test_unmarked="def test_unmarked(kopa_client):\n    pass\n")
    result = inner.runpytest("test_unmarked.py")
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(
        [
            (
                "*kopa-replay: test_unmarked.py::test_unmarked uses kopa_client/kopa_source "
                'without @pytest.mark.kopa_snapshot("SNAPSHOT")*'
            )
        ]
    )
    result = inner.runpytest("test_recorded.py")  # replay before anything was recorded
    result.assert_outcomes(errors=2)
    result.stdout.fnmatch_lines(["*kopa-replay: store */cassettes/kopa.sqlite does not exist*"])


def test_the_options_are_documented(inner):
    inner.runpytest("--help").stdout.fnmatch_lines(
        [
            "kopa-replay recorded snapshots:",
            "*--kopa-record-mode={replay,record,replay-or-record,refresh,none}*",
            "*--kopa-source=SOURCE*",
            "*--kopa-store=PATH*",
        ]
    )
    inner.runpytest("--markers").stdout.fnmatch_lines(["@pytest.mark.kopa_snapshot(name, store=None, seed=0*"])


# -- resolving a marker and the options (pure) ----------------------------------------
def test_the_plugin_offers_every_recorder_mode():
    assert RECORD_MODES == (*MODES, "none")


def _settings(args=("2026-09-01",), kwargs=None, mode="replay", store_option=None):
    return kopa_settings(
        args, kwargs, mode=mode, source="sim", store_option=store_option, rootpath=Path("/root"), test="t.py::t"
    )


def test_settings_resolve_store_and_date():
    assert _settings(kwargs={"store": "c/k.sqlite"}) == KopaSettings(
        "replay", "sim", "2026-09-01", Path("/root/c/k.sqlite"), 0, "2026-09-01"
    )
    assert _settings().store is None  # no store named: the default, found when the fixture opens it (store_path)
    assert _settings(
        args=("baseline",), kwargs={"seed": 3, "as_of": "2026-10-01"}, store_option="/s.sqlite"
    ) == KopaSettings("replay", "sim", "baseline", Path("/s.sqlite"), 3, "2026-10-01")
    assert _settings(args=("baseline",), store_option="/s.sqlite").as_of is None
    assert _settings(mode="none").store is None
    assert kopa_settings(
        None, None, mode="none", source="live", store_option=None, rootpath=Path("/"), test="t"
    ) == KopaSettings("none", "live", None, None, 0, None)


@pytest.mark.parametrize(
    "args, kwargs, mode, message",
    [
        (None, None, "replay", "t.py::t uses kopa_client/kopa_source without"),
        ((), {}, "record", "use @pytest.mark.kopa_snapshot"),
        (("a", "b"), {}, "replay", "not kopa_snapshot('a', 'b')"),
        (("a",), {"stroe": "x"}, "replay", "with stroe"),
        (("a",), {}, "rewind", "--kopa-record-mode 'rewind' is not one of"),
    ],
)
def test_settings_refuse_mistakes(args, kwargs, mode, message):
    with pytest.raises(UsageError, match=message.replace("(", r"\(").replace(")", r"\)")):
        kopa_settings(args, kwargs, mode=mode, source="sim", store_option=None, rootpath=Path("/"), test="t.py::t")


# -- a new project: no store named, nothing copied -------------------------------------
@pytest.fixture
def new_project(pytester, monkeypatch):
    """A pytester directory holding only the README's test (the plugin loaded, nothing else)."""
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
    monkeypatch.delenv("KOPA_STORE", raising=False)
    pytester.makeconftest(f"pytest_plugins = [{PLUGIN!r}]\n")
    pytester.makepyfile(test_new=f"SHIPPED = {str(shipped_store_path())!r}\n" + NEW_PROJECT)
    return pytester


def test_a_new_project_replays_the_shipped_snapshot_with_no_store_named(new_project, no_network):
    result = new_project.runpytest()
    result.assert_outcomes(passed=1, failed=1)
    # the miss names pytest's option and says the shipped store is not where a recording goes
    result.stdout.fnmatch_lines(
        [
            "E * cassette miss: GET https://opendart.fss.or.kr/api/company.json?crtfc_key=***&corp_code=00000001 "
            "was not recorded in snapshot '2026-09-01' (store */kopa_replay/data/cassettes/kopa.sqlite); "
            "record it with pytest --kopa-record-mode record or replay-or-record into a store of your own "
            "(kopa-replay cassette copy --shipped cassettes/kopa.sqlite, or store=... on the marker)*"
        ]
    )
    assert "--mode record" not in result.stdout.str()
    assert not (new_project.path / "cassettes").exists() and no_network == []


def test_recording_with_no_store_named_never_writes_the_shipped_store(new_project, no_network):
    result = new_project.runpytest("--kopa-record-mode", "replay-or-record", "-k", "test_unrecorded")
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(
        [
            "kopa-replay: --kopa-record-mode replay-or-record would write into the shipped store *; copy it into the "
            "project first (kopa-replay cassette copy --shipped cassettes/kopa.sqlite) or name a store: "
            '@pytest.mark.kopa_snapshot("2026-09-01", store="cassettes/kopa.sqlite"), --kopa-store or KOPA_STORE'
        ]
    )
    assert "During handling" not in result.stdout.str()  # one line, said once
    assert not (new_project.path / "cassettes").exists()


def test_the_projects_own_store_is_found_from_the_rootdir_and_the_shipped_one_fills_in(new_project, monkeypatch):
    # a store of the project's own holding another snapshot, recorded through the plugin
    new_project.makepyfile(
        test_mine=f"""
import pytest
PRICE = {PRICE!r}

@pytest.mark.kopa_snapshot("mine", as_of="2026-09-01")
def test_mine(kopa_client, kopa_source):
    assert kopa_client.get(PRICE.format(day="20260831")).status_code == 200
    assert kopa_source.details["store"].endswith("cassettes/kopa.sqlite")
"""
    )
    new_project.mkdir("cassettes")
    Store(new_project.path / "cassettes" / "kopa.sqlite").close()
    new_project.runpytest("--kopa-record-mode", "record", "test_mine.py").assert_outcomes(passed=1)
    assert Store(_store(new_project), readonly=True).stats()["snapshots"] == {"mine": 1}
    # run from a subdirectory: the rootdir's store (pytest.ini marks the rootdir), not one of the working directory
    new_project.makeini("[pytest]\n")
    sub = new_project.mkdir("sub")
    monkeypatch.chdir(sub)
    result = new_project.runpytest(str(new_project.path), "-k", "test_mine or test_premium")
    result.assert_outcomes(passed=2)  # "mine" from the project's store, 2026-09-01 from the shipped one


# -- resolving a store (no test session) ------------------------------------------------
def test_store_path_names_the_store_a_setting_opens(tmp_path, monkeypatch):
    monkeypatch.delenv("KOPA_STORE", raising=False)
    named = KopaSettings("record", "sim", "s", tmp_path / "k.sqlite", 0, None)
    assert store_path(named, tmp_path) == tmp_path / "k.sqlite"
    replay = KopaSettings("replay", "sim", "2026-09-01", None, 0, None)
    assert store_path(replay, tmp_path) == shipped_store_path()
    own = tmp_path / "cassettes" / "kopa.sqlite"
    Store(own).close()  # the project's store, without 2026-09-01: the shipped store still answers that one
    assert store_path(replay, tmp_path) == shipped_store_path()
    assert store_path(KopaSettings("replay", "sim", "other", None, 0, None), tmp_path) == own
    assert store_path(KopaSettings("record", "sim", "other", None, 0, None), tmp_path) == own
    monkeypatch.setenv("KOPA_STORE", "elsewhere/k.sqlite")  # relative: to the rootdir, as a named store is
    assert store_path(KopaSettings("refresh", "sim", "x", None, 0, None), tmp_path) == tmp_path / "elsewhere/k.sqlite"
    monkeypatch.setenv("KOPA_STORE", str(shipped_store_path()))  # the shipped store named: written on purpose
    assert store_path(KopaSettings("record", "sim", "x", None, 0, None), tmp_path) == shipped_store_path()
    monkeypatch.delenv("KOPA_STORE")
    own.unlink()
    with pytest.raises(UsageError, match="would write into the shipped store"):
        store_path(KopaSettings("record", "sim", "x", None, 0, None), tmp_path)


def test_a_miss_names_the_pytest_option_and_the_command_line_keeps_its_own():
    miss = CassetteMiss(tool="t", method="GET", url="https://h/p?k=***", snapshot="s", store="/own/kopa.sqlite")
    assert "record it with --mode record or replay-or-record" in str(miss)  # the command line's wording, unchanged
    assert with_pytest_hint(miss) == (
        "cassette miss: tool 't': GET https://h/p?k=*** was not recorded in snapshot 's' (store /own/kopa.sqlite); "
        "record it with pytest --kopa-record-mode record or replay-or-record"
    )
