"""The simulator's platform-independent machinery: XML, windows, faults, drift, identity, transports."""

from __future__ import annotations

import datetime as dt

import httpx
import pytest
from hypothesis import given
from hypothesis import strategies as st

from kopa_replay.env.parse import lookup, parse_body, xml_to_dict
from kopa_replay.errors import SimError
from kopa_replay.sim import SimRequest, SimTransport, Simulator
from kopa_replay.sim.core import BadParam, Doc, paged, xml_bytes
from kopa_replay.sim.faults import FAULT_KINDS, fault_for
from kopa_replay.sim.timeline import ActiveDrift, DriftEvent, events_between

_tag = st.from_regex(r"[A-Za-z][A-Za-z0-9_]{0,8}", fullmatch=True)
_text = (
    st.text(
        alphabet=st.characters(blacklist_categories=("Cs", "Cc"), blacklist_characters="\ufffe\uffff"),
        min_size=1,
        max_size=12,
    )
    .map(str.strip)
    .filter(bool)
)


@given(
    st.dictionaries(
        _tag,
        st.one_of(_text, st.lists(st.dictionaries(_tag, _text, min_size=1, max_size=3), min_size=2, max_size=4)),
        min_size=1,
        max_size=5,
    )
)
def test_xml_written_by_the_simulator_reads_back_as_the_same_shape(doc):
    assert xml_to_dict(xml_bytes("root", doc)) == {"root": doc}


@given(page=st.integers(1, 50), size=st.integers(1, 40), total=st.integers(0, 500))
def test_page_windows_tile_the_list_without_overlap_or_loss(page, size, total):
    records = list(range(total))
    seen = []
    for p in range(1, total // size + 2):
        offset, limit, meta = paged({"pageNo": str(p), "numOfRows": str(size)}, "pageNo", "numOfRows", 10, None)
        assert meta == {"page": p, "size": size}
        seen.extend(records[offset : offset + limit])
    assert seen == records


@pytest.mark.parametrize("bad", ["0", "-1", "x", "1.5"])
def test_page_numbers_below_one_or_not_integers_are_rejected(bad):
    with pytest.raises(BadParam) as info:
        paged({"pageNo": bad}, "pageNo", "numOfRows", 10, None)
    assert info.value.name == "pageNo"


def test_page_size_is_capped():
    assert paged({"numOfRows": "5000"}, "pageNo", "numOfRows", 10, 1000)[1] == 1000


@given(st.integers(0, 2**31), st.text(min_size=1, max_size=20), st.integers(1, 20))
def test_faults_are_a_function_of_seed_request_and_attempt(seed, identity, attempt):
    assert fault_for(seed, identity, attempt, 0.3) == fault_for(seed, identity, attempt, 0.3)
    assert fault_for(seed, identity, attempt, 0.0) is None
    assert fault_for(seed, identity, attempt, 1.0) in FAULT_KINDS


def test_fault_rate_is_honoured_and_a_retry_can_succeed():
    draws = [fault_for(0, f"req-{i}", 1, 0.3) for i in range(4000)]
    share = sum(d is not None for d in draws) / len(draws)
    assert 0.27 < share < 0.33
    failed_first = [i for i, d in enumerate(draws) if d is not None]
    assert any(fault_for(0, f"req-{i}", 2, 0.3) is None for i in failed_first)
    assert {d for d in draws if d} == set(FAULT_KINDS)


@given(key=st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789", min_size=8, max_size=40))
def test_request_identity_ignores_keys_in_query_and_path(key):
    a = SimRequest("GET", "apis.data.go.kr", "/x/y", (("serviceKey", key), ("pageNo", "1")))
    b = SimRequest("GET", "apis.data.go.kr", "/x/y", (("pageNo", "1"), ("serviceKey", "other")))
    assert a.identity() == b.identity()
    seoul = SimRequest("GET", "openapi.seoul.go.kr", f"/{key}/json/bikeList/1/5")
    other = SimRequest("GET", "openapi.seoul.go.kr", "/sim-key/json/bikeList/1/5")
    assert seoul.identity(secret_segments=[key]) == other.identity(secret_segments=["sim-key"])
    assert key not in a.redacted_url() and key not in seoul.redacted_url(secret_segments=[key])


def _event(kind, field="f", **detail):
    return DriftEvent(dt.date(2026, 10, 1), "p", "t", field, kind, detail)


def test_record_drift_kinds_edit_records_as_described():
    records = [{"f": "1,234", "g": "x"}, {"f": "5", "g": "y"}]
    assert ActiveDrift("t", [_event("field_renamed", to="h")]).apply_records(records)[0] == {"h": "1,234", "g": "x"}
    assert ActiveDrift("t", [_event("field_removed")]).apply_records(records)[1] == {"g": "y"}
    assert ActiveDrift("t", [_event("field_added", field="n", copy="g")]).apply_records(records)[0]["n"] == "x"
    assert [r["f"] for r in ActiveDrift("t", [_event("type_changed")]).apply_records(records)] == [1234, 5]
    many = [{"f": str(i)} for i in range(200)]
    nulls = sum(r["f"] is None for r in ActiveDrift("t", [_event("became_nullable", share=0.4)]).apply_records(many))
    assert 40 < nulls < 120
    assert records == [{"f": "1,234", "g": "x"}, {"f": "5", "g": "y"}], "drift must not mutate cached records"


def test_runs_of_renames_give_what_one_rename_after_another_gives():
    record = {"a": 1, "b": 2, "c": 3}
    events = [
        _event("field_renamed", field="a", to="x"),
        _event("field_renamed", field="x", to="y"),
        _event("field_renamed", field="b", to="z"),
        _event("type_changed", field="y"),
        _event("field_renamed", field="y", to="a"),
    ]
    one_by_one = dict(record)
    for event in events:
        one_by_one = ActiveDrift("t", [event]).apply_records([one_by_one])[0]
    together = ActiveDrift("t", events).apply_records([record])[0]
    assert together == one_by_one == {"a": 1, "z": 2, "c": 3}
    assert list(together) == list(one_by_one) == ["a", "z", "c"]


def test_doc_level_drift_kinds():
    drift = ActiveDrift(
        "t",
        [
            _event("envelope_changed", field="OutBlock_1", to="OutBlock_2"),
            _event("result_code_changed", **{"from": "00", "to": "0"}),
            _event("page_size_cap_changed", max_size=500),
        ],
    )
    assert drift.apply_doc(Doc({"OutBlock_1": []})).body == {"OutBlock_2": []}
    assert drift.result_code("00") == "0" and drift.result_code("03") == "03"
    assert drift.page_cap(1000) == 500


def test_drift_is_in_force_from_its_date_on():
    event = events_between(dt.date(2026, 9, 1))[0]  # a single event on its tool and day
    assert not ActiveDrift.at(event.tool, event.date - dt.timedelta(days=1))
    assert ActiveDrift.at(event.tool, event.date).events == (event,)


def test_timeline_covers_the_required_window():
    window = events_between(dt.date(2026, 9, 1), dt.date(2026, 12, 1))
    assert len(window) >= 8
    assert len({e.platform for e in window}) >= 5
    from kopa_replay.sim.timeline import DRIFT_KINDS

    assert {e.kind for e in window} == set(DRIFT_KINDS)


def test_bad_simulator_settings_are_clear_errors():
    with pytest.raises(SimError, match="fault rate"):
        Simulator(fault_rate=1.5)
    with pytest.raises(SimError, match="as-of date"):
        Simulator(as_of="2026-13-01")
    with pytest.raises(SimError, match="seed"):
        Simulator(seed=-1)


def test_unknown_host_is_a_404_not_a_crash(sim):
    response = sim.handle(SimRequest("GET", "example.com", "/"))
    assert response.status == 404


def test_parse_body_handles_zip_xml_json_and_euc_kr():
    import io
    import zipfile

    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("CORPCODE.xml", xml_bytes("result", {"list": [{"a": "1"}, {"a": "2"}]}))
    assert lookup(parse_body(buffer.getvalue(), "CORPCODE.xml"), "result.list") == [{"a": "1"}, {"a": "2"}]
    assert parse_body('{"가": "나"}'.encode("cp949")) == {"가": "나"}
    assert parse_body(b"<a><b>1</b></a>") == {"a": {"b": "1"}}


def test_in_process_and_loopback_answers_are_byte_identical(sim, server_url):
    url_path = "/apis.data.go.kr/1741000/StanReginCd/getStanReginCdList?ServiceKey=sim-key&type=json&pageNo=2"
    in_process = httpx.Client(transport=SimTransport(Simulator(seed=0)))
    a = in_process.get("http://127.0.0.1:1" + url_path)
    b = httpx.get(server_url + url_path)
    assert a.status_code == b.status_code
    assert a.content == b.content


def test_a_world_is_built_once_per_seed_and_size_in_a_process():
    """Two simulators of one seed and size share the built world (it never changes once built); another seed or
    size is its own."""
    from kopa_replay.sim.world import World

    first, again, other = World(3, "default"), World(3, "default"), World(4, "default")
    assert again.regions is first.regions and other.regions is not first.regions
    assert [d.code for d in again.regions.dongs[:5]] == [d.code for d in first.regions.dongs[:5]]
    assert [d.code for d in other.regions.dongs] != [d.code for d in first.regions.dongs]
