"""The simulator's timeline, seen end to end: probe 2026-09-01 and 2026-12-01, infer, diff.

Every dated event between the two snapshots must surface as a change on its
tool naming its field, and no other tool may change at all — although prices,
counts, bus arrivals and bills differ between the two dates.
"""

from __future__ import annotations

import datetime as dt

import httpx
import pytest

from kopa_replay.drift import (
    RecordedResponse,
    crosses,
    diff_schemas,
    infer_schemas,
    render,
)
from kopa_replay.env import build_request
from kopa_replay.sim import DEFAULT_KEY, SimTransport, Simulator, events_between
from kopa_replay.stages.probes import max_page_request, probe_requests

BASE, REFRESH = dt.date(2026, 9, 1), dt.date(2026, 12, 1)

#: The change kind each timeline kind must show up as.
EXPECTED_KIND = {
    "field_renamed": "field_renamed",
    "field_removed": "field_removed",
    "field_added": "field_added",
    "type_changed": "type_changed",
    "became_nullable": "became_nullable",
    "envelope_changed": "envelope_changed",
    "page_size_cap_changed": "page_size_changed",
    "result_code_changed": "result_codes_changed",
}


def record_probe(catalog, as_of: dt.date) -> list[RecordedResponse]:
    """The probe workload answered by a fresh simulator at ``as_of``, as the recorder would store it."""
    simulator = Simulator(seed=0, as_of=as_of, api_key=DEFAULT_KEY)
    out = []
    with httpx.Client(transport=SimTransport(simulator)) as client:
        for name, args in probe_requests(catalog):
            method, url, headers, redacted = build_request(catalog.get(name), args, DEFAULT_KEY)
            response = client.request(method, url, headers=headers)
            out.append(
                RecordedResponse(
                    name,
                    method,
                    redacted,
                    response.status_code,
                    response.headers.get("content-type", ""),
                    response.content,
                )
            )
    return out


@pytest.fixture(scope="module")
def snapshots(catalog):
    """Schemas of two independent runs at the base date and one at the refresh date."""
    return {
        "base": infer_schemas(catalog, record_probe(catalog, BASE)),
        "base_again": infer_schemas(catalog, record_probe(catalog, BASE)),
        "refresh": infer_schemas(catalog, record_probe(catalog, REFRESH)),
    }


@pytest.fixture(scope="module")
def changes(snapshots):
    return diff_schemas(snapshots["base"], snapshots["refresh"])


def test_probe_covers_every_example_and_one_largest_page_per_paginated_tool(catalog):
    requests = probe_requests(catalog)
    assert {name for name, _ in requests} == set(catalog.names)
    for tool in catalog:
        largest = max_page_request(tool)
        mine = [args for name, args in requests if name == tool.name]
        assert mine[: len(tool.examples)] == [dict(e) for e in tool.examples]
        if tool.http.pagination.max_size is None:  # an uncapped page has no largest size to ask for
            assert largest is None
        elif tool.http.pagination.style == "range":
            assert largest[tool.http.pagination.start_param] == 1
            assert largest[tool.http.pagination.end_param] == tool.http.pagination.max_size
        elif tool.http.pagination.style == "page":
            assert largest[tool.http.pagination.size_param] == tool.http.pagination.max_size
        else:
            assert largest is None
        assert len(mine) == len(tool.examples) + (largest is not None and largest not in mine[: len(tool.examples)])


def _names_field(change, field: str) -> bool:
    return field in (change.path, change.before, change.after) or any(
        isinstance(v, list) and field in v for v in (change.before, change.after)
    )


def _explains(event, change) -> bool:
    """Whether ``change`` is what ``event`` should look like in the diff."""
    if change.tool != event.tool or change.kind != EXPECTED_KIND[event.kind]:
        return False
    detail = event.detail
    if event.kind in ("field_renamed", "envelope_changed"):
        return (change.path, change.after) == (event.field, detail["to"])
    if event.kind == "page_size_cap_changed":
        return change.path == event.field and change.after <= detail["max_size"] and change.severity == "breaking"
    if event.kind == "result_code_changed":
        return change.path == event.field and detail["from"] in change.before and detail["to"] in change.after
    return _names_field(change, event.field)


def test_every_timeline_event_shows_as_a_change_naming_its_field(changes):
    events = events_between(BASE, REFRESH)
    assert len(events) == 9
    for event in events:
        assert any(_explains(event, c) for c in changes), (event, [c for c in changes if c.tool == event.tool])


def test_no_change_beyond_the_timeline(changes):
    events = events_between(BASE, REFRESH)
    unexplained = [c for c in changes if not any(_explains(e, c) for e in events)]
    assert unexplained == []
    assert {c.tool for c in changes} == {e.tool for e in events}


def test_severities_follow_the_rules(changes):
    by_tool = {c.tool: c for c in changes}
    assert by_tool["neis_school_info"].severity == "info"  # a field added breaks no client
    assert all(c.severity == "breaking" for c in changes if c.tool != "neis_school_info")
    assert crosses(changes, "breaking")


def test_a_snapshot_rerun_is_identical(snapshots, changes):
    assert diff_schemas(snapshots["base"], snapshots["base_again"]) == []
    assert {n: s.digest() for n, s in snapshots["base"].items()} == {
        n: s.digest() for n, s in snapshots["base_again"].items()
    }
    rerun = diff_schemas(snapshots["base_again"], snapshots["refresh"])
    for fmt in ("text", "json", "markdown"):
        assert render(rerun, fmt).encode() == render(changes, fmt).encode()
