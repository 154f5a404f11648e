"""Refresh 2026-09-01 → 2026-12-01 on the simulator: every listed drift event is found, nothing else."""

from __future__ import annotations

import datetime as dt

import pytest

from kopa_replay.sim import events_between
from kopa_replay.stages.workflows import record_snapshot, refresh_snapshot


@pytest.fixture(scope="module")
def refreshed(tmp_path_factory):
    from kopa_replay.catalog import builtin_catalog

    path = tmp_path_factory.mktemp("refresh") / "kopa.sqlite"
    record_snapshot(builtin_catalog(), store_path=path, snapshot="2026-09-01", source="sim", as_of="2026-09-01")
    return refresh_snapshot(
        builtin_catalog(), store_path=path, base="2026-09-01", snapshot="2026-12-01", source="sim", as_of="2026-12-01"
    )


def _names(change) -> set[str]:
    return {str(change.path).split(".")[-1], str(change.before), str(change.after)}


def test_every_drift_event_is_reported_on_its_tool_and_field(refreshed):
    events = events_between(dt.date(2026, 9, 1), dt.date(2026, 12, 1))
    assert len(events) >= 8
    for event in events:
        matching = [c for c in refreshed.changes if c.tool == event.tool and event.field in _names(c)]
        assert matching, f"{event.date} {event.tool}.{event.field} ({event.kind}) not reported"


def test_tools_without_events_report_nothing(refreshed):
    drifted = {e.tool for e in events_between(dt.date(2026, 9, 1), dt.date(2026, 12, 1))}
    spurious = [c.to_dict() for c in refreshed.changes if c.tool not in drifted]
    assert spurious == []
    # and no drift is taken for an incident: nothing in the incidents, nothing left out
    assert refreshed.report.noise == () and refreshed.left_out == []


def test_the_refresh_re_executed_every_base_request(refreshed):
    assert refreshed.calls > 100
    assert refreshed.manifest["interactions"] == refreshed.calls
