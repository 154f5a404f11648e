"""Record and replay through the transport: identical answers offline, fast clear misses, recorded order."""

from __future__ import annotations

import asyncio
import hashlib

import httpx
import pytest
from hypothesis import given
from hypothesis import strategies as st

from kopa_replay.catalog import builtin_catalog
from kopa_replay.env import call_tool, open_source
from kopa_replay.errors import CassetteMiss, SnapshotError, UsageError
from kopa_replay.record import AsyncRecordTransport, RecordTransport, Redactor, Store, decide
from kopa_replay.record.redact import redactor_for
from kopa_replay.record.store import shipped_store_path
from kopa_replay.sim import AsyncSimTransport, SimTransport, Simulator

CALLS = [
    ("dart_corp_code", {"corp_name": "라이트론"}),
    ("dart_cvbd_is_decsn", {"corp_code": "00439743", "bgn_de": "20260101", "end_de": "20260131"}),
    ("datagokr_get_stock_price_info", {"srtnCd": "069540", "basDt": "20260831"}),
    ("krx_stk_bydd_trd", {"basDd": "20260831"}),
    ("seoul_card_subway_stats_new", {"USE_YMD": "20260825", "START": 1, "END": 5}),
    ("law_search_law", {"query": "도로교통법"}),
    ("neis_school_info", {"ATPT_OFCDC_SC_CODE": "B10", "pSize": 20}),
]


@given(
    mode=st.sampled_from(["replay", "replay-or-record"]),
    recorded=st.sets(st.integers(1, 6), min_size=1),
    seen=st.integers(0, 10),
)
def test_replay_serves_recorded_answers_in_order_then_repeats_the_last(mode, recorded, seen):
    assert decide(mode, recorded, seen) == "replay"


@given(mode=st.sampled_from(["record", "refresh"]), recorded=st.sets(st.integers(1, 6)), seen=st.integers(0, 10))
def test_recording_sends_only_the_occurrences_the_snapshot_lacks(mode, recorded, seen):
    # the n-th occurrence is served when an answer with seq n exists (a resumed or shared recording), else
    # sent — a gap in the seqs (a send that failed, a recorder killed mid-batch) is filled, not skipped
    assert decide(mode, recorded, seen) == ("replay" if seen + 1 in recorded else "send")


def test_decisions_without_a_recording():
    assert decide("replay", set(), 0) == "miss"
    assert decide("replay-or-record", set(), 0) == "send"
    assert decide("record", set(), 0) == decide("refresh", {1, 2}, 2) == decide("record", {1, 3}, 1) == "send"


@pytest.fixture
def recorded(tmp_path, catalog):
    path = tmp_path / "store.sqlite"
    with open_source("sim", snapshot="t", mode="record", store=path, catalog=catalog) as source:
        results = [call_tool(catalog, name, args, source) for name, args in CALLS]
    return path, results


def test_replay_offline_returns_identical_results(recorded, catalog, no_network):
    path, live = recorded
    with open_source("replay", snapshot="t", store=path, catalog=catalog) as source:
        replayed = [call_tool(catalog, name, args, source) for name, args in CALLS]
    assert [r.to_dict() for r in replayed] == [r.to_dict() for r in live]
    assert no_network == []


def test_an_unrecorded_request_fails_fast_naming_tool_url_and_snapshot(recorded, catalog, no_network):
    path, _ = recorded
    with open_source("replay", snapshot="t", store=path, catalog=catalog) as source:
        with pytest.raises(CassetteMiss) as info:
            call_tool(catalog, "dart_company", {"corp_code": "00439743"}, source)
    message = str(info.value)
    assert "tool 'dart_company'" in message and "snapshot 't'" in message
    assert "GET https://opendart.fss.or.kr/api/company.json?crtfc_key=***&corp_code=00439743" in message
    assert no_network == []


def test_replay_of_a_missing_snapshot_is_a_clear_error(recorded, catalog):
    path, _ = recorded
    with pytest.raises(SnapshotError, match="no snapshot 'nope'"):
        open_source("replay", snapshot="nope", store=path, catalog=catalog)
    with pytest.raises(UsageError, match="unknown record mode"):
        RecordTransport(None, Store(path), "t", "rewind")


def test_transient_failures_replay_in_their_recorded_order(tmp_path):
    """A run that saw an environmental failure and then a success replays exactly that."""
    simulator = Simulator(seed=0, fault_rate=0.5)
    store = Store(tmp_path / "s.sqlite")
    url = (
        "https://apis.data.go.kr/1160100/service/GetStockSecuritiesInfoService/getStockPriceInfo"
        "?serviceKey=sim-key&resultType=json&basDt=20260831&pageNo={}"
    )
    pages = range(1, 15)
    with httpx.Client(transport=RecordTransport(SimTransport(simulator), store, "f", "record")) as client:
        live = [[client.get(url.format(p)).status_code for _ in range(3)] for p in pages]
    assert any(len(set(statuses)) > 1 for statuses in live), "the fault rate should make some attempts differ"
    with httpx.Client(transport=RecordTransport(None, store, "f", "replay")) as client:
        replayed = [[client.get(url.format(p)).status_code for _ in range(4)] for p in pages]
    assert [r[:3] for r in replayed] == live
    assert [r[3] for r in replayed] == [r[2] for r in live], "after the recording, the last answer repeats"


def test_replay_or_record_fills_only_the_gaps(tmp_path):
    store = Store(tmp_path / "s.sqlite")
    simulator = Simulator(seed=0)
    url = "https://www.law.go.kr/DRF/lawSearch.do?OC=sim-key&target=law&type=JSON&query={}"
    with httpx.Client(transport=RecordTransport(SimTransport(simulator), store, "g", "replay-or-record")) as client:
        client.get(url.format("민법"))
        client.get(url.format("민법"))
        client.get(url.format("형법"))
    assert store.stats()["interactions"] == 2


def test_async_transport_shares_the_core(tmp_path):
    store = Store(tmp_path / "s.sqlite")
    url = "https://data-dbg.krx.co.kr/svc/apis/sto/stk_bydd_trd?basDd=20260831"

    async def run(transport):
        async with httpx.AsyncClient(transport=transport) as client:
            return (await client.get(url, headers={"AUTH_KEY": "sim-key"})).content

    live = asyncio.run(
        run(
            AsyncRecordTransport(
                AsyncSimTransport(Simulator(seed=0)), store, "a", "record", Redactor(secret_values=("sim-key",))
            )
        )
    )
    replayed = asyncio.run(run(AsyncRecordTransport(None, store, "a", "replay")))
    assert live == replayed
    store.ensure_snapshot("empty")
    with pytest.raises(CassetteMiss, match="snapshot 'empty'"):
        asyncio.run(run(AsyncRecordTransport(None, store, "empty", "replay")))


_TEXT = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"), max_size=12)


@given(corp_name=_TEXT, bgn_de=_TEXT, page=st.integers(1, 10**6), key=st.sampled_from(["sim-key", "a+b/c=d&e%20"]))
def test_the_fast_path_and_httpx_give_one_request_key(catalog, corp_name, bgn_de, page, key):
    """The replay fast path keys the URL string it built; httpx re-encodes it. Both must name one request."""
    from kopa_replay.env.call import build_request

    tool = catalog.get("dart_list")
    args = {"corp_code": corp_name, "bgn_de": bgn_de, "page_no": page}
    method, url, headers, _ = build_request(tool, {k: v for k, v in args.items() if v != ""}, key)
    request = httpx.Request(method, url, headers=headers, extensions={"kopa_secrets": (key,)})
    redactor = Redactor().with_values([key])
    assert redactor.request_key(method, url) == redactor.request_key(request.method, str(request.url))


def test_replay_or_record_serves_an_answer_it_has_not_committed_yet(tmp_path):
    """A request met again before its recorded answer is committed is answered from the pending batch, with
    the bodies of committed answers read by the query that finds them."""
    sent = []

    def inner(request):
        sent.append(str(request.url))
        return httpx.Response(200, content=f"answer {len(sent)}".encode() * 20)

    store = Store(tmp_path / "p.sqlite")
    transport = RecordTransport(httpx.MockTransport(inner), store, "p", "replay-or-record", commit_every=1000)
    with httpx.Client(transport=transport) as client:
        first = [client.get(f"https://h.test/x?n={n}").content for n in (1, 2, 1, 2)]
    assert sent == ["https://h.test/x?n=1", "https://h.test/x?n=2"]
    assert first == [b"answer 1" * 20, b"answer 2" * 20] * 2
    with httpx.Client(transport=RecordTransport(None, store, "p", "replay")) as client:
        assert [client.get(f"https://h.test/x?n={n}").content for n in (1, 2)] == first[:2]


def test_every_shipped_request_key_is_computed_again_from_its_stored_url():
    """Identities are sealed into snapshots: the key of each shipped interaction, computed when it was recorded,
    comes back from its stored URL (the key it sent masked, which identities leave out anyway)."""
    redactor = redactor_for(builtin_catalog())
    with Store(shipped_store_path(), readonly=True) as store:
        items = list(store.interactions("2026-09-01"))
    assert items and all(redactor.request_key(item.method, item.url) == item.request_key for item in items)


_URL_PART = st.text(st.sampled_from("aZ09-_.~/?#@[]:=&%+;\\ \t\n한%2B%ED%95%9C"), max_size=14)


@given(
    scheme=st.sampled_from(["https://", "http://", "HTTPS://", " https://", "", "ftp://"]),
    host=st.sampled_from(["apis.data.go.kr", "OpenAPI.Seoul.go.kr:8088", "h", "", "[::1]:8", "u@h", "한.kr", "a\\b"]),
    path=_URL_PART,
    query=_URL_PART,
    key=st.sampled_from(["", "sim-key", "1", "a b"]),
)
def test_a_urls_parts_and_identity_are_those_urlsplit_and_parse_qsl_give(scheme, host, path, query, key):
    """The identity's own URL splitter (a regex for plain URLs) against the standard library's, on URLs plain and
    not; and the identity against its definition written with the standard library, as it was sealed."""
    from urllib.parse import parse_qsl, unquote, urlsplit

    from kopa_replay.record.redact import MASK, _query_pairs, _split_url

    url = f"{scheme}{host}/{path}?{query}"
    try:
        parts = urlsplit(url)
    except ValueError:  # an unbalanced IPv6 bracket: the identity refuses it as urlsplit does
        with pytest.raises(ValueError):
            _split_url(url)
        return
    assert _split_url(url) == ((parts.hostname or "").lower(), parts.path, parts.query)
    assert _query_pairs(query) == parse_qsl(query, keep_blank_values=True)

    redactor = redactor_for(builtin_catalog(), extra_values=[key] if key else [])
    segments = parts.path.split("/")
    at = redactor._key_segment((parts.hostname or "").lower(), segments)
    secret = redactor._segments
    sealed_path = "/".join(
        MASK if i == at or (at is None and unquote(seg) in secret) else unquote(seg) for i, seg in enumerate(segments)
    )
    pairs = parse_qsl(parts.query, keep_blank_values=True)
    text = "\n".join(
        ["GET", (parts.hostname or "").lower(), sealed_path]
        + [f"{k}={v}" for k, v in sorted(pairs) if not redactor.is_secret_param(k)]
        + [hashlib.sha256(b"").hexdigest()]
    )
    assert redactor.request_key("get", url) == hashlib.sha256(text.encode()).hexdigest()


def test_the_fast_path_walks_repeated_answers_with_the_transport(tmp_path):
    simulator = Simulator(seed=0, fault_rate=0.5)
    store = Store(tmp_path / "s.sqlite")
    url = (
        "https://apis.data.go.kr/1160100/service/GetStockSecuritiesInfoService/getStockPriceInfo"
        "?serviceKey=sim-key&resultType=json&basDt=20260831&pageNo={}"
    )
    with httpx.Client(transport=RecordTransport(SimTransport(simulator), store, "f", "record")) as client:
        live = [[client.get(url.format(p)).status_code for _ in range(3)] for p in range(1, 15)]
    transport = RecordTransport(None, store, "f", "replay")
    with httpx.Client(transport=transport) as client:
        # alternate the two paths: one count of answers served per request, whichever path served it
        replayed = [
            [
                transport.replay_answer("GET", url.format(p)).status
                if i % 2 == 0
                else client.get(url.format(p)).status_code
                for i in range(3)
            ]
            for p in range(1, 15)
        ]
    assert replayed == live
    assert transport.replay_answer("GET", url.format(99)) is None  # not recorded: left to the client
