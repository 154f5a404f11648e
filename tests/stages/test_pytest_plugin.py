"""The pytest plugin: the kopa_snapshot marker, the kopa_client/kopa_source fixtures, the record-mode options.

Inner test sessions run in-process through ``pytester`` with plugin autoloading
off (fast, and unaffected by whatever else is installed), so they load the
plugin explicitly; the ``pytest11`` entry point is checked on its own.
"""

from __future__ import annotations

from importlib.metadata import entry_points
from pathlib import Path

import pytest

from kopa_replay.errors import UsageError
from kopa_replay.record import MODES, Store
from kopa_replay.sim import Simulator, running_server
from kopa_replay.stages.pytest_plugin import RECORD_MODES, KopaSettings, kopa_settings

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
