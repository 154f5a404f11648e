"""The simulator's incidents: their schedule's spelling, and who they strike, when, where and how often."""

from __future__ import annotations

import datetime as dt

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from kopa_replay.cli import cli
from kopa_replay.env import build_request
from kopa_replay.errors import SimError
from kopa_replay.sim import SimRequest, Simulator
from kopa_replay.sim.incidents import DATED, GATEWAY_HOST, INCIDENT_KINDS, Incident, incident_for, parse_incidents

LAW = "www.law.go.kr"
DAY = dt.date(2026, 10, 1)
BROWSER = {"user-agent": "Mozilla/5.0 (Windows NT 10.0; Win64; x64) Chrome/126.0", "referer": "https://www.law.go.kr/"}
PERSISTENT = sorted(k for k, kind in INCIDENT_KINDS.items() if kind.persistent and k != "retry_storm")
PASSING = sorted(k for k, kind in INCIDENT_KINDS.items() if not kind.persistent)
NOT_GATEWAY = sorted(k for k, kind in INCIDENT_KINDS.items() if not kind.gateway)


def _strikes(
    kind: str,
    rate: float = 1.0,
    *,
    host: str = LAW,
    identity: str = "GET law?q=1",
    attempt: int = 1,
    as_of: dt.date = DAY,
    headers=None,
    seed: int = 0,
    schedule=None,
):
    schedule = schedule if schedule is not None else (Incident(kind, rate),)
    found = incident_for(schedule, seed, host, identity, attempt, as_of, {} if headers is None else headers)
    return None if found is None else found.name


# -- the spelling ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("bot_wall", "incident 'bot_wall': write KIND=RATE[@HOST]"),
        ("html_page=0.1, =0.2", "incident '=0.2': write KIND=RATE[@HOST]"),
        ("empty_body=lots", "incident 'empty_body=lots': rate 'lots' is not a number"),
        ("html_page=0.1,bot_wal=0.5", "unknown incident kind 'bot_wal'"),
        ("gateway_quota=1.5@apis.data.go.kr", "incident gateway_quota: rate must be between 0 and 1, not 1.5"),
        ("key_echo=-0.1", "incident key_echo: rate must be between 0 and 1, not -0.1"),
    ],
)
def test_a_bad_schedule_names_the_entry(spec, message):
    with pytest.raises(SimError) as raised:
        parse_incidents(spec)
    assert message in str(raised.value)


def test_the_spellings_of_a_schedule():
    assert parse_incidents("") == parse_incidents(None) == parse_incidents(" none ") == ()
    assert parse_incidents("dated") == DATED
    assert parse_incidents("bot_wall=0.5@WWW.LAW.GO.KR, all = 0.1") == (
        Incident("bot_wall", 0.5, (LAW,)),
        Incident("all", 0.1),
    )


def test_sim_serve_refuses_a_bad_schedule_in_one_line():
    result = CliRunner().invoke(cli, ["sim", "serve", "--port", "0", "--incidents", "html_page=2"])
    assert result.exit_code == 1
    assert result.output.strip().splitlines() == [
        "Error: --incidents: incident html_page: rate must be between 0 and 1, not 2.0"
    ]


# -- who is struck -------------------------------------------------------------------------------------------------


def test_the_same_seed_request_and_attempt_meet_the_same_incident():
    schedule = parse_incidents("all=0.5")
    identities = [f"GET {GATEWAY_HOST}/svc?page={i}" for i in range(200)]

    def draws(seed):
        return [
            _strikes("", schedule=schedule, host=GATEWAY_HOST, identity=i, seed=seed, attempt=2) for i in identities
        ]

    assert draws(7) == draws(7)
    assert draws(7) != draws(8)  # the seed is part of the draw
    assert {name for name in draws(7) if name} == set(INCIDENT_KINDS)  # every kind, gateway ones included


def test_the_simulator_answers_an_incident_the_same_way_every_time():
    tool = _law_tool()
    requests = [
        SimRequest.from_url(*build_request(tool, {"query": f"법 {i}"}, "sim-key")[:2], {"x-kopa-attempt": "1"})
        for i in range(20)
    ]

    def answers(incidents):
        simulator = Simulator(seed=0, incidents=incidents)
        return [(r.status, r.body, r.extra_headers) for r in map(simulator.handle, requests)]

    struck = answers("all=0.6")
    assert struck == answers("all=0.6")
    clean = answers("")
    assert 5 < sum(a != b for a, b in zip(struck, clean)) < 20  # some struck, some not


@pytest.mark.parametrize("kind", PERSISTENT)
def test_a_persistent_incident_strikes_every_attempt_of_the_requests_it_strikes(kind):
    for i in range(60):
        seen = {_strikes(kind, 0.5, identity=f"GET law?q={i}", attempt=a) for a in range(1, 7)}
        assert len(seen) == 1, (kind, i, seen)


@pytest.mark.parametrize("kind", PASSING)
def test_a_passing_incident_is_drawn_again_at_every_attempt(kind):
    host = GATEWAY_HOST  # every kind strikes there
    changed = 0
    for i in range(60):
        seen = {_strikes(kind, 0.5, host=host, identity=f"GET svc?q={i}", attempt=a) for a in range(1, 7)}
        changed += len(seen) == 2
    assert changed > 40  # six fair coins agree with chance 1/32


def test_a_retry_storm_fails_three_attempts_then_lets_the_answer_through():
    assert [_strikes("retry_storm", attempt=a) for a in range(1, 7)] == ["retry_storm"] * 3 + [None] * 3


def test_a_key_echo_gives_way_to_a_failure_and_rides_on_an_answer():
    both = parse_incidents("key_echo=1,html_page=1")
    assert _strikes("", schedule=both) == "html_page"
    assert _strikes("", schedule=parse_incidents("key_echo=1")) == "key_echo"


def test_dates_and_hosts_are_respected():
    window = (Incident("html_page", 1.0, (LAW,), dt.date(2026, 9, 20), dt.date(2026, 9, 21)),)
    assert [_strikes("", schedule=window, as_of=dt.date(2026, 9, d)) for d in (19, 20, 21, 22)] == [
        None,
        "html_page",
        "html_page",
        None,
    ]
    assert _strikes("", schedule=window, as_of=dt.date(2026, 9, 20), host="opendart.fss.or.kr") is None
    open_ended = (Incident("key_echo", 1.0, (LAW,), dt.date(2026, 9, 15)),)
    assert _strikes("", schedule=open_ended, as_of=dt.date(2031, 1, 1)) == "key_echo"
    assert _strikes("", schedule=open_ended, as_of=dt.date(2026, 9, 14)) is None


def test_the_dated_schedule_walls_law_go_kr_for_a_week_in_october():
    tool = _law_tool()
    method, url, _, _ = build_request(tool, dict(tool.examples[0]), "sim-key")

    def status(as_of):
        return Simulator(as_of=as_of, incidents="dated").handle(SimRequest.from_url(method, url, {})).status

    assert [status(day) for day in ("2026-10-04", "2026-10-05", "2026-10-12", "2026-10-13")] == [200, 403, 403, 200]


@pytest.mark.parametrize("kind", ["gateway_key_unregistered", "gateway_quota", "gateway_access_denied"])
def test_the_gateway_kinds_strike_only_on_the_data_go_kr_gateway(kind):
    assert _strikes(kind, host=GATEWAY_HOST) == kind
    for host in (LAW, "opendart.fss.or.kr", "open.assembly.go.kr", "openapi.seoul.go.kr"):
        assert _strikes(kind, host=host) is None
    # "all" never picks a gateway kind off the gateway
    kinds = {_strikes("", schedule=parse_incidents("all=1"), identity=f"GET x?{i}") for i in range(300)}
    assert kinds == set(NOT_GATEWAY)


@pytest.mark.parametrize(
    ("agent", "walled"),
    [
        ("python-httpx/0.28.1", True),
        ("python-requests/2.32.3", True),
        ("curl/8.5.0", True),
        ("Go-http-client/1.1", True),
        ("", True),
        ("Mozilla/5.0 (Windows NT 10.0; Win64; x64) Chrome/126.0", False),
        ("kopa-agent/1.0 (+https://example.org)", False),
    ],
)
def test_the_bot_wall_strikes_only_a_library_default_user_agent(agent, walled):
    headers = {"user-agent": agent} if agent else {}
    assert _strikes("bot_wall", headers=headers) == ("bot_wall" if walled else None)


def test_the_simulator_walls_a_script_and_answers_a_browser():
    tool = _law_tool()
    method, url, _, _ = build_request(tool, dict(tool.examples[0]), "sim-key")
    simulator = Simulator(incidents="bot_wall=1")
    walled = simulator.handle(SimRequest.from_url(method, url, {"User-Agent": "python-httpx/0.28.1"}))
    answered = simulator.handle(SimRequest.from_url(method, url, {"User-Agent": BROWSER["user-agent"]}))
    assert (walled.status, walled.content_type.split(";")[0]) == (403, "text/html")
    assert b"Access Denied" in walled.body
    assert answered.status == 200 and answered.body.lstrip().startswith(b"{")


def test_the_referer_wall_strikes_only_a_request_without_a_referer():
    assert _strikes("referer_required", headers={"user-agent": "python-httpx/0.28.1"}) == "referer_required"
    assert _strikes("referer_required", headers={"referer": "  "}) == "referer_required"
    assert _strikes("referer_required", headers={"referer": "https://www.law.go.kr/"}) is None
    tool = _law_tool()
    method, url, _, _ = build_request(tool, dict(tool.examples[0]), "sim-key")
    simulator = Simulator(incidents="referer_required=1")
    refused = simulator.handle(SimRequest.from_url(method, url, {}))
    answered = simulator.handle(SimRequest.from_url(method, url, {"Referer": BROWSER["referer"]}))
    assert refused.status == 200 and refused.body.startswith(b"<!DOCTYPE html>")
    assert answered.status == 200 and answered.body.lstrip().startswith(b"{")


@settings(max_examples=30, deadline=None)
@given(
    kind=st.sampled_from(sorted(INCIDENT_KINDS)),
    rate=st.floats(min_value=0.05, max_value=0.95),
    seed=st.integers(min_value=0, max_value=2**31),
)
def test_the_share_of_requests_struck_is_near_the_rate(kind, rate, seed):
    n = 2000
    struck = sum(
        _strikes(kind, rate, host=GATEWAY_HOST, identity=f"GET {GATEWAY_HOST}/svc?id={i}", seed=seed) == kind
        for i in range(n)
    )
    # the binomial's standard deviation is at most 0.0112 here: 0.05 is over four of them
    assert abs(struck / n - rate) < 0.05, (kind, rate, struck)


def _law_tool():
    from kopa_replay.catalog import builtin_catalog

    return builtin_catalog().get("law_search_law")


def test_a_spec_gives_each_entry_its_own_dates_and_refuses_what_would_inject_nothing():
    import re

    from kopa_replay.errors import UsageError
    from kopa_replay.sim.incidents import Incident, parse_incidents
    from kopa_replay.stages.common import check_incidents

    week, until = parse_incidents("bot_wall=1@www.law.go.kr:2026-10-05..2026-10-12,html_page=0.2:..2026-09-30")
    assert week == Incident("bot_wall", 1.0, ("www.law.go.kr",), dt.date(2026, 10, 5), dt.date(2026, 10, 12))
    assert (until.start, until.end) == (None, dt.date(2026, 9, 30))
    assert week.covers("www.law.go.kr", dt.date(2026, 10, 12)) and not week.covers(
        "www.law.go.kr", dt.date(2026, 10, 13)
    )
    for spec, said in (
        ("bot_wall=1:2026-10-05", "FROM..TO"),
        ("bot_wall=1:2026-10-05..10-12", "YYYY-MM-DD"),
        ("bot_wall=1:2026-10-12..2026-10-05", "ends (2026-10-05) before it begins"),
    ):
        with pytest.raises(SimError, match=re.escape(said)):
            parse_incidents(spec)
    with pytest.raises(UsageError, match="names host 'law.go.kr', not one the simulator serves"):
        check_incidents("bot_wall=1@law.go.kr", "sim")  # www. forgotten: it would wall off nothing
    with pytest.raises(UsageError, match="not sim"):
        check_incidents("bot_wall=1", "replay")
