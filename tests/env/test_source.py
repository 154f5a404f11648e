"""Sources: mirrors address real hosts under the host-as-first-segment scheme; bad specs are named."""

from __future__ import annotations

import httpx
import pytest

from kopa_replay.env.source import MirrorTransport, open_source, parse_mirrors
from kopa_replay.errors import UsageError


def test_mirrors_route_each_host_or_the_default():
    transport = MirrorTransport({"opendart.fss.or.kr": "http://127.0.0.1:9000/", "*": "http://127.0.0.1:9001"})
    target = transport.target(httpx.URL("https://opendart.fss.or.kr/api/company.json?corp_code=1"))
    assert str(target) == "http://127.0.0.1:9000/opendart.fss.or.kr/api/company.json?corp_code=1"
    other = transport.target(httpx.URL("http://openapi.seoul.go.kr:8088/k/json/bikeList/1/5"))
    assert str(other) == "http://127.0.0.1:9001/openapi.seoul.go.kr/k/json/bikeList/1/5"
    only = MirrorTransport({"opendart.fss.or.kr": "http://127.0.0.1:9000"})
    assert (
        str(only.target(httpx.URL("https://www.law.go.kr/DRF/lawSearch.do")))
        == "https://www.law.go.kr/DRF/lawSearch.do"
    )


def test_mirror_specs_are_checked():
    assert parse_mirrors(["OpenDart.fss.or.kr=http://127.0.0.1:1"]) == {"opendart.fss.or.kr": "http://127.0.0.1:1"}
    for bad in ("opendart.fss.or.kr", "=http://x", "host=ftp://x"):
        with pytest.raises(UsageError, match="HOST=URL"):
            parse_mirrors([bad])


def test_a_mirror_url_source_answers_like_the_simulator(server_url, catalog):
    from kopa_replay.env import call_tool

    with open_source(server_url) as source:
        result = call_tool(catalog, "datagokr_get_stock_price_info", {"srtnCd": "069540", "basDt": "20260831"}, source)
    assert result.records[0]["clpr"] == "1680"


def test_replay_source_needs_a_snapshot():
    with pytest.raises(UsageError, match="needs --snapshot"):
        open_source("replay")


# -- one registry behind every opener ------------------------------------------------
def test_an_unknown_source_is_refused_by_every_opener_with_its_name():
    from kopa_replay.env import check_source, open_async_source
    from kopa_replay.env.source import inner_transport

    expected = r"unknown source 'simm': use 'sim', 'live', 'replay' or the URL of a mirror \(http://127.0.0.1:N\)"
    for opener in (check_source, open_source, open_async_source, inner_transport):
        with pytest.raises(UsageError, match=expected):
            opener("simm")
    with pytest.raises(UsageError, match="unknown source 'ftp://x'"):
        check_source("ftp://x")
    assert check_source("http://127.0.0.1:1") == "http://127.0.0.1:1" and check_source("sim") == "sim"


def test_the_async_replay_source_needs_a_snapshot_too():
    from kopa_replay.env import open_async_source

    with pytest.raises(UsageError, match="source 'replay' needs --snapshot"):
        open_async_source("replay")


@pytest.mark.parametrize(
    "source, mirrors, sync_kind, async_kind, key",
    [
        ("sim", None, "SimTransport", "AsyncSimTransport", "sim-key"),
        ("http://127.0.0.1:9", None, "MirrorTransport", "AsyncMirrorTransport", "sim-key"),
        # live: the platforms' rate limits around the mirror (for the hosts it does not take) or the network
        ("live", {"opendart.fss.or.kr": "http://127.0.0.1:9"}, "LimitedTransport", "AsyncLimitedTransport", None),
        ("live", None, "LimitedTransport", "AsyncLimitedTransport", None),
        ("replay", None, "NoneType", "NoneType", "kopa-replay-offline"),
    ],
)
def test_one_factory_makes_the_sync_and_the_async_inner_transport(source, mirrors, sync_kind, async_kind, key):
    from kopa_replay.env.source import inner_transport

    sync = inner_transport(source, mirrors=mirrors)
    async_ = inner_transport(source, mirrors=mirrors, asynchronous=True)
    assert (type(sync.transport).__name__, type(async_.transport).__name__) == (sync_kind, async_kind)
    assert sync.key == async_.key == key  # None: each platform's live key, read per call
    if sync.transport is not None:
        sync.transport.close()


def test_the_async_mirror_addresses_hosts_as_the_sync_one_does():
    from kopa_replay.env.source import AsyncMirrorTransport

    mirrors = {"opendart.fss.or.kr": "http://127.0.0.1:9000/", "*": "http://127.0.0.1:9001"}
    for url in (
        "https://opendart.fss.or.kr/api/company.json?corp_code=1",
        "http://openapi.seoul.go.kr:8088/k/json/bikeList/1/5",
    ):
        assert AsyncMirrorTransport(mirrors).target(httpx.URL(url)) == MirrorTransport(mirrors).target(httpx.URL(url))


@pytest.fixture
def registered():
    """Register source kinds for one test, removing them after it."""
    from kopa_replay.env.source import SOURCES, register_source

    names: list[str] = []

    def register(name, factory, **kwargs):
        register_source(name, factory, **kwargs)
        names.append(name)

    yield register
    for name in names:
        SOURCES.unregister(name)


def test_a_registered_kind_opens_everywhere_sync_and_async(catalog, registered):
    import asyncio

    from kopa_replay.env import AsyncToolEnvironment, ToolEnvironment, check_source
    from kopa_replay.env.source import Inner
    from kopa_replay.sim import AsyncSimTransport, SimTransport, Simulator

    seen = []

    def other_world(options, asynchronous):
        seen.append((options.source, options.seed, asynchronous))
        simulator = Simulator(seed=options.seed + 1)
        return Inner(AsyncSimTransport(simulator) if asynchronous else SimTransport(simulator), "sim-key")

    registered("sim-next-seed", other_world)
    assert check_source("sim-next-seed") == "sim-next-seed"
    with pytest.raises(UsageError, match="'sim', 'live', 'replay', 'sim-next-seed' or the URL"):
        check_source("nope")
    call = ("neis_school_info", {"LCTN_SC_NM": "서울특별시", "pSize": 5})
    with (
        ToolEnvironment.open(catalog, source="sim-next-seed") as env,
        ToolEnvironment.open(catalog, source="sim", seed=1) as reference,
    ):
        expected = reference.call(*call)
        assert env.call(*call) == expected and expected.ok

    async def on_async():
        async with AsyncToolEnvironment.open(catalog, source="sim-next-seed") as env:
            return await env.call(*call)

    assert asyncio.run(on_async()) == expected
    assert seen == [("sim-next-seed", 0, False), ("sim-next-seed", 0, True)]


def test_kinds_are_plain_names_registered_once(registered):
    from kopa_replay.env.source import Inner, register_source

    def nothing(options, asynchronous):
        return Inner(None, None)

    for bad in ("", "http://x", "x://y"):
        with pytest.raises(UsageError, match="plain name"):
            register_source(bad, nothing)
    with pytest.raises(UsageError, match="source kind 'sim' is already registered"):
        register_source("sim", nothing)
    registered("offline-only", nothing)
    with pytest.raises(UsageError, match="source 'offline-only' needs --snapshot"):
        open_source("offline-only")


# -- mirrors are checked where a source is opened: a host the catalog lacks, a kind that sends nothing ------------
BUILT_IN_HOSTS = (
    "apis.data.go.kr, data-dbg.krx.co.kr, open.assembly.go.kr, open.neis.go.kr, openapi.gg.go.kr, "
    "openapi.seoul.go.kr, opendart.fss.or.kr, swopenapi.seoul.go.kr, ws.bus.go.kr, www.law.go.kr"
)


def test_a_mirrored_host_the_catalog_lacks_is_refused_with_the_nearest_and_all_hosts(no_network):
    from kopa_replay.env import open_async_source

    expected = (
        "--base-url names host 'opendart.fss.or.k', which no tool of the catalog calls (did you mean "
        f"'opendart.fss.or.kr'?); the catalog's hosts: {BUILT_IN_HOSTS}, or '*' for every host"
    )
    for source in ("live", "http://127.0.0.1:9"):
        for opener in (open_source, open_async_source):
            with pytest.raises(UsageError) as caught:
                opener(source, mirrors={"opendart.fss.or.k": "http://127.0.0.1:9"})
            assert str(caught.value) == expected
    with pytest.raises(UsageError, match=r"host 'nope\.example', which no tool of the catalog calls; the catalog's"):
        open_source("live", mirrors={"nope.example": "http://127.0.0.1:9"})
    assert no_network == []


def test_the_hosts_are_those_of_the_catalog_the_source_is_opened_with(catalog):
    from kopa_replay.env.source import inner_transport

    dart = catalog.filter(platform="dart")
    with pytest.raises(UsageError, match=r"host 'www\.law\.go\.kr'.*; the catalog's hosts: opendart\.fss\.or\.kr, or"):
        inner_transport("live", mirrors={"www.law.go.kr": "http://127.0.0.1:9"}, catalog=dart)
    for mirrors in ({"opendart.fss.or.kr": "http://127.0.0.1:9"}, {"*": "http://127.0.0.1:9"}):
        inner_transport("live", mirrors=mirrors, catalog=dart).transport.close()


@pytest.mark.parametrize(
    "source, snapshot, does",
    [("sim", None, "answers every call in-process"), ("replay", "2026-09-01", "answers every call from a snapshot")],
)
def test_mirrors_for_a_source_that_sends_nothing_are_refused(no_network, source, snapshot, does):
    with pytest.raises(UsageError) as caught:
        open_source(source, snapshot=snapshot, mirrors={"opendart.fss.or.kr": "http://127.0.0.1:9"})
    assert str(caught.value) == (
        f"--base-url (opendart.fss.or.kr) needs --source live or a mirror's URL: source {source!r} {does}, "
        "so no request would reach the mirror"
    )


def test_a_default_mirror_beside_a_mirror_url_source_is_refused():
    with pytest.raises(UsageError, match=r"'\*=http://127\.0\.0\.1:8' names the mirror of every host, as --source"):
        open_source("http://127.0.0.1:9", mirrors={"*": "http://127.0.0.1:8"})
