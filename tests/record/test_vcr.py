"""vcrpy interop: the persister over the store (both directions with RecordTransport) and YAML import."""

from __future__ import annotations

import gzip
from pathlib import Path

import httpx
import pytest
import requests
import vcr
import yaml
from vcr.errors import CannotOverwriteExistingCassetteException
from vcr.persisters.filesystem import CassetteNotFoundError, FilesystemPersister
from vcr.request import Request as VcrRequest

from kopa_replay.errors import SnapshotError, StoreError, UsageError
from kopa_replay.record import RecordTransport, Store
from kopa_replay.record.vcr import (
    KopaPersister,
    import_vcr_cassette,
    kopa_cassette_path,
    parse_cassette_path,
    use_kopa_store,
)
from kopa_replay.sim import Simulator, running_server

#: long enough to be masked by value wherever it lands (the simulator accepts $KOPA_API_KEY)
LIVE_KEY = "kopa-test-live-key-0123456789"
PRICE = (
    "/apis.data.go.kr/1160100/service/GetStockSecuritiesInfoService/getStockPriceInfo"
    "?serviceKey={key}&resultType=json&srtnCd=069540&basDt=20260831"
)
#: law.go.kr echoes the caller's OC inside the body: the scrubbing case
LAW = "/www.law.go.kr/DRF/lawSearch.do?OC={key}&target=law&type=XML&query=%EB%AF%BC%EB%B2%95"


@pytest.fixture
def mirror(monkeypatch):
    monkeypatch.setenv("KOPA_API_KEY", LIVE_KEY)
    with running_server(Simulator(seed=0)) as url:
        yield url


@pytest.fixture
def kopa_vcr():
    return use_kopa_store(vcr.VCR(record_mode="once"))


def _assert_no_key(path):
    for file in path.parent.glob(path.name + "*"):  # the store and its WAL
        assert LIVE_KEY.encode() not in file.read_bytes(), file


def test_cassette_paths_name_store_and_snapshot(tmp_path):
    path = kopa_cassette_path(tmp_path / "k.sqlite", "2026-09-01")
    assert parse_cassette_path(path) == (tmp_path / "k.sqlite", "2026-09-01")
    assert parse_cassette_path("C:/x/k.sqlite::s") == (Path("C:/x/k.sqlite"), "s"), "the last :: splits"
    with pytest.raises(UsageError, match="'k.sqlite' does not name a kopa store and snapshot"):
        parse_cassette_path("k.sqlite")


def test_missing_cassettes_raise_vcrpys_own_not_found(tmp_path):
    with pytest.raises(CassetteNotFoundError):
        KopaPersister.load_cassette(kopa_cassette_path(tmp_path / "absent.sqlite", "s"), None)
    Store(tmp_path / "k.sqlite").ensure_snapshot("other")
    with pytest.raises(CassetteNotFoundError):
        KopaPersister.load_cassette(kopa_cassette_path(tmp_path / "k.sqlite", "s"), None)
    foreign = tmp_path / "foreign.sqlite"
    foreign.write_text("not sqlite at all, but not empty either" * 100)
    with pytest.raises(StoreError, match="foreign.sqlite"):
        KopaPersister.load_cassette(kopa_cassette_path(foreign, "s"), None)


@pytest.fixture
def vcr_recorded(tmp_path, mirror, kopa_vcr):
    """Two requests recorded by vcrpy (through ``requests``) into snapshot "v"; (store path, urls, responses)."""
    store_path = tmp_path / "k.sqlite"
    urls = [mirror + PRICE.format(key=LIVE_KEY), mirror + LAW.format(key=LIVE_KEY)]
    with kopa_vcr.use_cassette(kopa_cassette_path(store_path, "v")):
        live = [requests.get(url, timeout=10) for url in urls]
    return store_path, urls, live


def test_recorded_via_vcrpy_replays_through_record_transport(vcr_recorded, no_network):
    store_path, urls, live = vcr_recorded
    store = Store(store_path, readonly=True)
    assert [(i.method, i.status, i.tool) for i in store.interactions("v")] == [("GET", 200, None)] * 2
    assert all("serviceKey=***" in i.url or "OC=***" in i.url for i in store.interactions("v"))
    _assert_no_key(store_path)
    with httpx.Client(transport=RecordTransport(None, store, "v", "replay")) as client:
        replayed = [client.get(url) for url in urls]
    assert [r.status_code for r in replayed] == [r.status_code for r in live] == [200, 200]
    assert replayed[0].content == live[0].content
    assert LIVE_KEY.encode() in live[1].content, "law.go.kr echoes the OC: the case redaction must cover"
    assert replayed[1].content == live[1].content.replace(LIVE_KEY.encode(), b"***")
    assert replayed[0].headers["content-type"] == live[0].headers["content-type"]
    assert no_network == []


def test_recorded_via_record_transport_replays_through_vcrpy(tmp_path, mirror, kopa_vcr):
    store_path = tmp_path / "k.sqlite"
    urls = [mirror + PRICE.format(key=LIVE_KEY), mirror + LAW.format(key=LIVE_KEY)]
    with httpx.Client(transport=RecordTransport(httpx.HTTPTransport(), Store(store_path), "t", "record")) as client:
        recorded = [client.get(url).content for url in urls]
    with kopa_vcr.use_cassette(kopa_cassette_path(store_path, "t"), record_mode="none"):
        replayed = [requests.get(url, timeout=10) for url in urls]
        with pytest.raises(CannotOverwriteExistingCassetteException):
            requests.get(urls[0].replace("069540", "000660"), timeout=10)
    assert [r.content for r in replayed] == recorded
    assert replayed[0].json()["response"]["header"]["resultCode"] == "00"


def test_saving_is_a_minimal_change(tmp_path, mirror, kopa_vcr):
    """new_episodes appends only the new request; "all" replaces only answers that changed; tools survive."""
    store_path = tmp_path / "k.sqlite"
    first, second = mirror + PRICE.format(key=LIVE_KEY), mirror + LAW.format(key=LIVE_KEY)
    with httpx.Client(transport=RecordTransport(httpx.HTTPTransport(), Store(store_path), "s", "record")) as client:
        client.get(first, extensions={"kopa_tool": "datagokr_get_stock_price_info"})
    with kopa_vcr.use_cassette(kopa_cassette_path(store_path, "s"), record_mode="new_episodes"):
        requests.get(first, timeout=10)  # replayed, unchanged
        requests.get(second, timeout=10)  # new
    store = Store(store_path)
    assert [(i.tool, i.seq) for i in store.interactions("s") if "getStockPriceInfo" in i.url] == [
        ("datagokr_get_stock_price_info", 1)
    ]
    assert store.stats()["interactions"] == 2
    before = {i.request_key: i.body_digest for i in store.interactions("s")}
    with kopa_vcr.use_cassette(kopa_cassette_path(store_path, "s"), record_mode="all"):
        requests.get(first, timeout=10)  # the same answer again: the row stays as it was
    assert [i.tool for i in store.interactions("s") if "getStockPriceInfo" in i.url] == [
        "datagokr_get_stock_price_info"
    ]
    # Another world gives another answer to the same key.
    with (
        running_server(Simulator(seed=1)) as other_world,
        kopa_vcr.use_cassette(kopa_cassette_path(store_path, "s"), record_mode="all"),
    ):
        requests.get(other_world + PRICE.format(key=LIVE_KEY), timeout=10)
    after = {i.request_key: (i.tool, i.seq, i.body_digest) for i in store.interactions("s")}
    assert len(after) == 2
    changed = [key for key in after if after[key][2] != before[key]]
    assert len(changed) == 1 and after[changed[0]][:2] == (None, 1)


def test_saving_into_a_sealed_snapshot_names_it(tmp_path):
    # Called directly: vcrpy leaves its patches installed when a persister raises in use_cassette's __exit__.
    store = Store(tmp_path / "k.sqlite")
    store.ensure_snapshot("sealed")
    store.seal("sealed", "digest")
    cassette = {
        "requests": [VcrRequest("GET", "https://apis.data.go.kr/x?serviceKey=abc", None, {})],
        "responses": [{"status": {"code": 200, "message": "OK"}, "headers": {}, "body": {"string": b"{}"}}],
    }
    with pytest.raises(SnapshotError, match="snapshot 'sealed' in store .*k.sqlite is sealed"):
        KopaPersister.save_cassette(kopa_cassette_path(store.path, "sealed"), cassette, None)
    assert store.snapshot("sealed").interactions == 0


# -- importing YAML cassettes ------------------------------------------------------------
@pytest.fixture
def vcrpy_yaml(tmp_path, mirror):
    """A YAML cassette written by vcrpy itself (its filesystem persister): a request repeated, and law.go.kr."""
    yaml_path = tmp_path / "cassettes" / "prices.yaml"
    urls = [mirror + PRICE.format(key=LIVE_KEY), mirror + LAW.format(key=LIVE_KEY)]
    plain = vcr.VCR(record_mode="all")
    assert plain.persister is FilesystemPersister
    with plain.use_cassette(str(yaml_path)):
        live = [requests.get(url, timeout=10) for url in (urls[0], urls[1], urls[0])]
    return yaml_path, urls, live


def test_import_a_cassette_written_by_vcrpy(tmp_path, vcrpy_yaml, no_network):
    yaml_path, urls, live = vcrpy_yaml
    assert LIVE_KEY in yaml_path.read_text(), "vcrpy itself keeps the key: the import must not"
    store = Store(tmp_path / "k.sqlite")
    assert import_vcr_cassette(yaml_path, store, "imported") == 3
    assert [i.seq for i in store.interactions("imported")].count(2) == 1, "the repeated request keeps its order"
    assert import_vcr_cassette(yaml_path, store, "imported") == 0, "the same file twice is stored once"
    assert len(list(store.interactions("imported"))) == 3
    _assert_no_key(store.path)
    with httpx.Client(transport=RecordTransport(None, store, "imported", "replay")) as client:
        replayed = [client.get(url) for url in (urls[0], urls[1])]
    assert replayed[0].content == live[0].content
    assert replayed[1].content == live[1].content.replace(LIVE_KEY.encode(), b"***")
    assert no_network == []


def _write_cassette(path, interactions, version=1):
    path.write_text(yaml.safe_dump({"interactions": interactions, "version": version}), encoding="utf-8")
    return path


def _interaction(uri="https://apis.data.go.kr/x?serviceKey=abc&a=1", code=200, body="{}", headers=None):
    return {
        "request": {"method": "GET", "uri": uri, "body": None, "headers": {"Accept": ["*/*"]}},
        "response": {
            "status": {"code": code, "message": "OK"},
            "headers": headers or {"Content-Type": ["application/json"]},
            "body": {"string": body},
        },
    }


def test_import_decodes_content_encoding_and_keeps_bytes(tmp_path):
    """A gzip body (binary in the YAML) is stored decoded, as RecordTransport stores bodies."""
    raw = '가나다 {"a": 1}'.encode() * 50
    cassette = tmp_path / "gz.yaml"
    cassette.write_text(
        yaml.dump(
            {
                "version": 1,
                "interactions": [
                    _interaction(
                        body=gzip.compress(raw),
                        headers={"Content-Encoding": ["gzip"], "Content-Type": ["application/json"]},
                    )
                ],
            }
        )
    )
    store = Store(tmp_path / "k.sqlite")
    assert import_vcr_cassette(cassette, store, "s") == 1
    (item,) = store.interactions("s")
    assert store.body(item.body_digest) == raw
    assert item.response_headers == {"content-type": "application/json"}
    assert item.url == "https://apis.data.go.kr/x?serviceKey=***&a=1"


@pytest.mark.parametrize(
    "content, message",
    [
        ("interactions: [\n  - {request: ", "is not valid YAML"),
        ("- just\n- a list\n", "has no 'interactions' list"),
        (yaml.safe_dump({"version": 2, "interactions": []}), "format version 2"),
        (
            yaml.safe_dump({"version": 1, "interactions": [_interaction(), {"request": {}}]}),
            "interaction 1: must be a mapping with 'request' and 'response'",
        ),
        (
            yaml.safe_dump({"version": 1, "interactions": [_interaction(code="OK")]}),
            "interaction 0: response status code must be an HTTP status",
        ),
        (
            yaml.safe_dump({"version": 1, "interactions": [_interaction(), _interaction(uri="/relative")]}),
            "interaction 1: request uri must be an http",
        ),
        (
            yaml.safe_dump({"version": 1, "interactions": [_interaction(headers={"Content-Encoding": ["gzip"]})]}),
            "interaction 0: response body does not decode",
        ),
    ],
)
def test_broken_cassettes_name_the_file_and_the_interaction(tmp_path, content, message):
    cassette = tmp_path / "broken.yaml"
    cassette.write_text(content, encoding="utf-8")
    store = Store(tmp_path / "k.sqlite")
    with pytest.raises(StoreError, match="broken.yaml") as info:
        import_vcr_cassette(cassette, store, "s")
    assert message in str(info.value)
    assert store.snapshot_names() == [], "nothing is written from a broken file"


def test_import_of_a_missing_file(tmp_path):
    with pytest.raises(StoreError, match="cannot read vcrpy cassette .*absent.yaml"):
        import_vcr_cassette(tmp_path / "absent.yaml", Store(tmp_path / "k.sqlite"), "s")


def test_import_masks_a_seoul_path_key_echoed_in_the_body(tmp_path):
    """Seoul puts the key in the path: import masks it in bodies as recording does (it knows it from the URL)."""
    key = "4f6b706152656c61793132333435"
    uri = f"http://openapi.seoul.go.kr:8088/{key}/json/TbPublicWifiInfo/1/5"
    echoed = "\\u0034" + key[1:]  # the first character as a JSON escape
    body = (
        f'{{"TbPublicWifiInfo": {{"list_total_count": 1, "link": "http://openapi.seoul.go.kr:8088/{key}/json/x", '
        f'"RESULT": {{"CODE": "INFO-000", "MESSAGE": "인증키 {key} 정상", "KEY": "{echoed}"}}}}}}'
    )
    cassette = _write_cassette(tmp_path / "seoul.yaml", [_interaction(uri=uri, body=body)])
    store = Store(tmp_path / "k.sqlite")
    assert import_vcr_cassette(cassette, store, "s") == 1
    (item,) = store.interactions("s")
    assert item.url == "http://openapi.seoul.go.kr:8088/***/json/TbPublicWifiInfo/1/5"
    assert (
        store.body(item.body_digest)
        == (
            '{"TbPublicWifiInfo": {"list_total_count": 1, "link": "http://openapi.seoul.go.kr:8088/***/json/x", '
            '"RESULT": {"CODE": "INFO-000", "MESSAGE": "인증키 *** 정상", "KEY": "***"}}}'
        ).encode()
    )
    store.finalize()
    _assert_no_key_in(store.path, key)
    # the identity is the recorder's: the same request replays through RecordTransport with another key in the path
    other = "another-key-entirely"
    with httpx.Client(transport=RecordTransport(None, store, "s", "replay")) as client:
        replayed = client.get(uri.replace(key, other), extensions={"kopa_secrets": (other,)})
    assert replayed.status_code == 200 and b"***" in replayed.content


def _assert_no_key_in(path, key):
    for file in path.parent.glob(path.name + "*"):
        assert key.encode() not in file.read_bytes(), file
