"""The intent table and the questions it composes: loading and checking, links and starts, phrases, the walk."""

from __future__ import annotations

import dataclasses
import re
import textwrap

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kopa_replay.errors import KopaError, UsageError
from kopa_replay.graph import Link
from kopa_replay.synth import SynthConfig
from kopa_replay.synth.intents import IntentError, josa, load_intents, render
from kopa_replay.synth.model import Answer, Junction, Reduction, Step, Trajectory
from kopa_replay.synth.phrasing import Phrasing
from kopa_replay.synth.questions import IntentWriter
from kopa_replay.synth.walk import synthesize


@pytest.fixture(scope="module")
def intents(catalog):
    return load_intents(catalog=catalog)


# -- Korean ------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "word, pair, expected",
    [
        ("라이트론", "이/가", "라이트론이"),
        ("노선", "을/를", "노선을"),
        ("버스", "을/를", "버스를"),
        ("정류소", "은/는", "정류소는"),
        ("서울", "으로/로", "서울로"),
        ("강남구", "으로/로", "강남구로"),
        ("학교", "으로/로", "학교로"),
        ("19001", "이/가", "19001이"),
        ("4882", "이/가", "4882가"),
        ("0.023ppm", "을/를", "0.023ppm을"),
        ("50km", "을/를", "50km를"),
        ("46㎍/㎥", "을/를", "46㎍/㎥를"),  # 마이크로그램 퍼 세제곱미터를
        ("N", "이/가", "N이"),
    ],
)
def test_particles_follow_the_last_sound(word, pair, expected):
    assert josa(word, pair) == expected


def test_render_fills_slots_dates_and_particles():
    template = "{e:이/가} {basDt:date}에 {DEAL_YMD:month} 거래를, '{q}'{q:~이/가} 든 {bsns_year:year}"
    assert (
        render(template, {"e": "라이트론", "basDt": "20260831", "DEAL_YMD": "202606", "q": "N", "bsns_year": "2025"})
        == "라이트론이 2026년 8월 31일에 2026년 6월 거래를, 'N'이 든 2025년"
    )
    with pytest.raises(UsageError, match=r"\{missing\}"):
        render("{missing}의 노선", {})


@given(st.text(alphabet=st.characters(blacklist_characters="{}"), max_size=30))
def test_text_without_slots_renders_as_itself(text):
    assert render(text, {}) == text


@given(
    st.text(alphabet="가나다라마바사아자차카타파하각난닫랄맘밥삿앙잦", min_size=1, max_size=6),
    st.sampled_from(["이/가", "을/를", "은/는", "과/와"]),
)
def test_a_particle_is_one_of_its_pair_and_only_appended(word, pair):
    out = josa(word, pair)
    assert out.startswith(word) and out[len(word) :] in pair.split("/")


# -- the shipped table ---------------------------------------------------------------------------------
def test_the_shipped_table_loads_against_the_catalog(intents, catalog):
    assert intents.links and intents.entries
    for link in intents.links:
        tool = catalog.get(link.target)
        assert set(link.binding) <= set(tool.params)
        assert set(link.binding.values()) <= set(catalog.get(link.source).output_fields)
    # every start binds only values a person holds: the named entity's attributes and stated arguments
    for entry in intents.entries:
        assert set(entry.args) <= set(catalog.get(entry.tool).params)


def test_no_link_hands_on_only_a_date(intents):
    from kopa_replay.bench.build import TIME_DOMAINS
    from kopa_replay.sim.truth import param_domain

    for link in intents.links:
        assert any(param_domain(link.target, p) not in TIME_DOMAINS for p in link.binding), link.key


def test_a_lookup_is_taken_only_where_it_adds_something(intents):
    # dart_company already gives the corp_code: looking it up again by name would be a detour
    assert intents.link_for("dart_company", "dart_corp_code", {"corp_name": "corp_name"}) is None
    # a KOSDAQ trading list gives stock codes, not DART codes: the lookup by stock code is the way in
    assert intents.link_for("krx_ksq_bydd_trd", "dart_corp_code", {"stock_code": "ISU_CD"}) is not None


def test_round_trips_and_unused_lookups_are_recognised(intents):
    into_pharmacies = next(r for r in intents.relations if r.id == "gg_city.pharmacies")
    back_to_city = intents.link_for("gg_pharmacy", "gg_public_library", {"SIGUN_CD": "SIGUN_CD"})
    assert intents.round_trip(into_pharmacies, back_to_city)  # 성남시's pharmacies are in 성남시
    into_libraries = next(r for r in intents.relations if r.id == "province.libraries")
    assert not intents.round_trip(
        into_libraries, intents.link_for("gg_public_library", "gg_pharmacy", {"SIGUN_CD": "SIGUN_CD"})
    )
    profile = intents.link_for("dart_corp_code", "dart_company", {"corp_code": "corp_code"})
    cb = intents.link_for("dart_company", "dart_cvbd_is_decsn", {"corp_code": "corp_code"})
    outline = intents.link_for("dart_company", "datagokr_get_corp_outline_v2", {"crno": "jurir_no"})
    assert intents.detour(profile, cb)  # the profile adds a crno, and the CB search uses the corp_code
    assert not intents.detour(profile, outline)  # the crno is what the profile was for


# -- loading errors name the thing -----------------------------------------------------------------------
def _table(tmp_path, text):
    path = tmp_path / "intents.yaml"
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


BASE = """
entities:
  seoul_stop: {noun: 정류소, counter: 곳, attrs: [ars_id]}
tools:
  seoulbus_get_route_by_station: {entity: null, noun: 버스 노선, counter: 개}
relations:
  - {id: stop.routes, means: serves, from: seoul_stop, to: seoulbus_get_route_by_station, bind: {arsId: ars_id}, says: "{e}에 서는 버스 노선"}
named:
  - {entity: seoul_stop, ars_id: "19001", says: 19001번 정류소}
"""


def test_a_small_table_loads_and_starts_where_named(tmp_path, catalog):
    intents = load_intents(_table(tmp_path, BASE), catalog)
    [entry] = intents.entries
    assert entry.tool == "seoulbus_get_route_by_station" and dict(entry.args) == {"arsId": "19001"}


@pytest.mark.parametrize(
    "change, message",
    [
        (("from: seoul_stop, to", "from: seoul_bus, to"), "relation stop.routes: unknown entity 'seoul_bus'"),
        (
            ("bind: {arsId: ars_id}", "bind: {stSrch: ars_id}"),
            "relation stop.routes: tool seoulbus_get_route_by_station has no parameter 'stSrch'",
        ),
        (
            ("bind: {arsId: ars_id}", "bind: {arsId: name}"),
            "relation stop.routes: entity seoul_stop has no attribute name",
        ),
        (
            ('says: "{e}에 서는 버스 노선"}', "says: \"{e}에 서는 버스 노선\", with: {busRouteId: '1'}}"),
            "relation stop.routes: the phrase '{e}에 서는 버스 노선' does not state busRouteId",
        ),
        (
            ("{entity: null, noun", "{entity: null, name: routeName, noun"),
            "tool seoulbus_get_route_by_station: no output field 'routeName'",
        ),
        (("named:\n", "named:\n  - {entity: seoul_stop, arsid: '1', says: x}\n"), "no attribute arsid"),
        (("means: serves", "means: near_by"), "relation stop.routes: means 'near_by' is not one of"),
        (("means: serves, ", ""), "relation stop.routes lacks 'means'"),
    ],
)
def test_a_broken_table_is_refused_with_what_is_wrong(tmp_path, catalog, change, message):
    with pytest.raises(UsageError, match=re.escape(message)):
        load_intents(_table(tmp_path, BASE.replace(*change)), catalog)


def test_a_missing_or_malformed_file_is_a_usage_error(tmp_path, catalog):
    with pytest.raises(UsageError, match="cannot read"):
        load_intents(tmp_path / "absent.yaml", catalog)
    with pytest.raises(UsageError, match="not YAML"):
        load_intents(_table(tmp_path, "entities: [unclosed"), catalog)


# -- phrasing -------------------------------------------------------------------------------------------
def _walk(answer_spec, *, reduction=None, values=("100100110", "100100486")):
    """정류소 19001 → the routes that stop there → the buses on each (hand-made; records are not needed)."""
    steps = [Step(0, "seoulbus_get_route_by_station", {"arsId": "19001"}, "ok", 3, None, "d0", 0)]
    steps += [
        Step(1 + i, "seoulbus_get_bus_pos_by_rtid", {"busRouteId": v}, "ok", 5, None, f"d{i}", 1)
        for i, v in enumerate(values)
    ]
    kind = "derived" if reduction else ("fan_out" if len(values) > 1 else "sequential")
    junction = Junction(0, 1, {"busRouteId": "busRouteId"}, kind, 3, 3, tuple(values), reduction)
    return Trajectory(
        "t",
        "fan_out",
        steps,
        [junction],
        Answer("number", 21),
        "",
        tuple(values),
        "digest",
        {"answer_spec": answer_spec, "fan_out_budget": 5, "page_budget": 5},
    )


def test_a_fan_out_count_reads_as_a_person_asks(intents):
    question = Phrasing(intents, _walk({"op": "count", "group": 1})).question()
    assert question == "정류소 번호 19001번 정류소에 서는 버스 노선들에서 지금 운행 중인 버스는 모두 합쳐 몇 대입니까?"


def test_a_reduction_and_a_comparison_read_as_a_person_asks(intents):
    reduction = Reduction("max", "term", None, 2)
    spec = {
        "op": "argmax",
        "group": 1,
        "metric": {"agg": "count"},
        "label": {"group": 0, "match": "busRouteId", "field": "busRouteNm"},
    }
    question = Phrasing(intents, _walk(spec, reduction=reduction)).question()
    assert question == (
        "정류소 번호 19001번 정류소에 서는 버스 노선 중 배차간격이 가장 긴 2개의 버스 노선 중 "
        "그 버스 노선에서 지금 운행 중인 버스가 가장 많은 것은 어느 버스 노선입니까?"
    )


def test_what_the_table_cannot_phrase_is_refused(intents, catalog):
    writer = IntentWriter(intents)
    with pytest.raises(IntentError, match="not counted|no phrase"):
        writer.write(_walk({"op": "sum", "group": 1, "field": "sectDist"}), catalog)
    with pytest.raises(IntentError, match="not the last one"):
        writer.write(_walk({"op": "count", "group": 0}), catalog)
    unknown = _walk({"op": "count", "group": 1})
    unknown = dataclasses.replace(
        unknown, junctions=[dataclasses.replace(unknown.junctions[0], binding={"busRouteId": "busRouteAbrv"})]
    )
    with pytest.raises(IntentError, match="no relation phrase for the link"):
        writer.write(unknown, catalog)
    unnamed = dataclasses.replace(
        unknown, steps=[dataclasses.replace(unknown.steps[0], args={"arsId": "99999"}), *unknown.steps[1:]]
    )
    with pytest.raises(IntentError, match="no named start"):
        writer.write(unnamed, catalog)
    assert issubclass(IntentError, KopaError)


# -- the walk with the table --------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def intent_walks(catalog, intents):
    from kopa_replay.env import ToolEnvironment

    links = [Link(link.source, link.target, dict(link.binding), 0.9) for link in intents.links]
    with ToolEnvironment.open(catalog, source="sim") as env:
        first = synthesize(
            catalog, links, env, SynthConfig(trajectories=25, seed=3), IntentWriter(intents), intents=intents
        )
        again = synthesize(
            catalog, links, env, SynthConfig(trajectories=25, seed=3), IntentWriter(intents), intents=intents
        )
    return first, again


def test_the_walk_with_intents_is_deterministic(intent_walks):
    first, again = intent_walks
    assert len(first) == 25
    assert [t.to_dict() for t in first] == [t.to_dict() for t in again]


def test_intent_walks_take_only_meaningful_links_and_ask_without_tools_or_codes(intent_walks, intents, catalog):
    from kopa_replay.synth.facts import handed_values

    titles = [tool.title for tool in catalog] + [tool.name for tool in catalog]
    for walk in intent_walks[0]:
        assert not any(title in walk.question for title in titles) and "호출" not in walk.question
        for junction in walk.junctions:
            source, target = walk.steps[junction.source].tool, walk.steps[junction.target].tool
            assert intents.link_for(source, target, junction.binding) is not None or junction.reduction.op == "match"
        for value in handed_values(walk):
            if len(str(value)) >= 4:
                assert str(value) not in walk.question, (walk.id, value)
        assert Phrasing(intents, walk).incoherent() == [], walk.question


def test_starts_that_call_a_tool_alike_are_told_apart_by_the_record_picked(intents):
    # every TAGO city start calls the city list with no argument: only the name picked tells them apart
    alike = [e for e in intents.entries if e.tool == "tago_get_cty_code_list"]
    names = sorted(e.named.attrs["name"] for e in alike)
    assert len(names) >= 2 and len(set(names)) == len(names)
    for name in names:
        entry = intents.entry_for("tago_get_cty_code_list", {}, name=name)
        assert entry is not None and entry.named.attrs["name"] == name
    assert intents.entry_for("tago_get_cty_code_list", {}, name="평양직할시") is None
