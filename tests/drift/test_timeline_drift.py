"""The simulator's drift timeline, 2026-09-01 → 2026-12-01, followed request by request and into the benchmark.

The truths here are computed without the diff's code:

* the requests an event affects: each recorded request is sent to two in-process simulators at 2026-12-01, one
  with the whole timeline and one with that event left out; the requests whose bytes differ are its requests;
* the tasks whose answers change: every task's plan is run on the simulator at both dates (no snapshot, no
  recorder) and the new answer is graded against the task with the benchmark's own grader.
"""

from __future__ import annotations

import datetime as dt
import json

import httpx
import pytest

from kopa_replay.catalog import builtin_catalog
from kopa_replay.record.snapshots import copy_store
from kopa_replay.record.store import Store, shipped_store_path
from kopa_replay.sim import TIMELINE, events_between
from kopa_replay.stages.workflows import refresh_snapshot

SHIPPED = shipped_store_path()
BEFORE, AFTER = "2026-09-01", "2026-12-01"
EVENTS = events_between(dt.date(2026, 9, 1), dt.date(2026, 12, 1))


@pytest.fixture(scope="module")
def refreshed(tmp_path_factory):
    from kopa_replay.bench.suite import benchmark_workload, load_task_set

    store = tmp_path_factory.mktemp("timeline") / "kopa.sqlite"
    copy_store(SHIPPED, store)
    catalog = builtin_catalog()
    summary = refresh_snapshot(
        catalog,
        store_path=store,
        base=BEFORE,
        snapshot=AFTER,
        source="sim",
        as_of=AFTER,
        requests=benchmark_workload(catalog, source=f"sim:{load_task_set().world}", as_of=AFTER),
    )
    return {"store": store, "summary": summary, "catalog": catalog}


TRUTH_KEY = "drift-truth-key-0123456789"


def _sim_client(timeline):
    from kopa_replay.sim.simulator import Simulator
    from kopa_replay.sim.transport import SimTransport

    return httpx.Client(transport=SimTransport(Simulator(0, AFTER, api_key=TRUTH_KEY, timeline=tuple(timeline))))


def _affected_requests(store_path, event) -> set[str]:
    """The base snapshot's requests of the event's tool whose answer at 2026-12-01 differs without the event."""
    with Store(store_path, readonly=True) as store:
        items = [i for i in store.interactions(BEFORE) if i.tool == event.tool]
    out = set()
    with _sim_client(TIMELINE) as full, _sim_client(e for e in TIMELINE if e != event) as without:
        for item in items:
            url = item.url.replace("***", TRUTH_KEY)  # the key goes back where the recorder masked it
            headers = {
                k: TRUTH_KEY if v == "***" else v
                for k, v in item.request_headers.items()
                if k not in ("host", "content-length")
            }
            if full.get(url, headers=headers).content != without.get(url, headers=headers).content:
                out.add(f"{item.method} {item.url}" + (f" #{item.seq}" if item.seq > 1 else ""))
    return out


def test_there_are_events_of_every_kind_to_follow():
    assert {e.kind for e in EVENTS} >= {
        "field_renamed",
        "field_removed",
        "field_added",
        "type_changed",
        "became_nullable",
        "envelope_changed",
        "page_size_cap_changed",
        "result_code_changed",
    }


@pytest.mark.parametrize("event", EVENTS, ids=lambda e: f"{e.tool}.{e.field}")
def test_every_request_an_event_affects_is_named_by_a_change_of_its_tool(refreshed, event):
    truth = _affected_requests(refreshed["store"], event)
    assert truth, f"no recorded request of {event.tool} shows {event.kind}: the probe misses it"
    named = {r for c in refreshed["summary"].report.changes if c.tool == event.tool for r in c.requests}
    missed = sorted(truth - named)
    assert not missed, f"{len(missed)} of {len(truth)} affected requests not named, e.g. {missed[0]}"


def test_untouched_tools_show_no_drift_and_no_noise(refreshed):
    report = refreshed["summary"].report
    drifted = {e.tool for e in EVENTS}
    assert [c.to_dict() for c in report.changes if c.tool not in drifted] == []
    assert report.noise == ()
    # what the drift explains is not listed again as data (KRX's records went with its envelope)
    assert not [c for c in report.data if c.tool == "krx_stk_bydd_trd"]


def test_bench_drift_lists_exactly_the_tasks_whose_answers_truly_change(refreshed, tmp_path):
    from click.testing import CliRunner

    from kopa_replay.bench.drift import ANSWER_MOVED
    from kopa_replay.bench.grade import grade_response
    from kopa_replay.bench.model import Rollout
    from kopa_replay.bench.suite import load_task_set
    from kopa_replay.cli import cli
    from kopa_replay.env import ToolEnvironment, open_source
    from kopa_replay.synth.export import answer_text
    from kopa_replay.synth.plan import run_plan

    catalog, task_set = refreshed["catalog"], load_task_set()
    truth = set()
    # the tasks' own world (the suite's plain sim is the small one): the truth is their plans run where they were built
    with open_source(f"sim:{task_set.world}", as_of=AFTER, catalog=catalog) as src:
        env = ToolEnvironment(catalog, src)
        for task in task_set.tasks:
            run = run_plan(task_set.plans[task.id], catalog, env)
            if not run.ok or not grade_response(task, Rollout(task.id, "truth", 0, answer_text(run.answer))).passed:
                truth.add(task.id)
    assert 5 <= len(truth) < len(task_set.tasks) // 2

    out = tmp_path / "repinned"
    result = CliRunner().invoke(
        cli,
        ["bench", "drift", BEFORE, AFTER, "--store", str(refreshed["store"]), "--format", "json", "--write", str(out)],
    )
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    moved = {t["task"] for t in report["listed"] if t["status"] in ANSWER_MOVED}
    assert moved == truth
    assert report["counts"]["unrecorded"] == 0 and report["counts"]["fails_on_before"] == 0
    # each listed task is explained by the drift or the data of the requests its plan makes, and a field-level
    # change is a cause only when the plan reads that field (no plan reads ENG_NM, renamed under politics tasks)
    from kopa_replay.bench.drift import fields_read

    assert all(t["causes"] or t["data"] for t in report["listed"])
    field_checks = (
        "response-field-renamed",
        "response-field-removed",
        "response-field-type-changed",
        "response-field-became-nullable",
        "response-field-became-optional",
    )
    for verdict in report["listed"]:
        for cause in verdict["causes"]:
            _, check, _, path = cause.split(":")[0].split(" ")[:4]
            if check in field_checks:
                assert path in fields_read(task_set.plans[verdict["task"]]), (verdict["task"], cause)
    assert not any("ENG_NM" in c for t in report["listed"] for c in t["causes"])
    krx = [t for t in report["listed"] if "krx_stk_bydd_trd" in t["tools"]]
    assert krx and all(any("krx_stk_bydd_trd OutBlock_1" in c for c in t["causes"]) for t in krx)

    # the re-pinned set: new answers where the plan runs on AFTER, the rest kept and marked
    repinned = load_task_set(out)
    by_id = {t.id: t for t in repinned.tasks}
    assert [t.id for t in repinned.tasks] == [t.id for t in task_set.tasks]
    for verdict in report["listed"]:
        task = by_id[verdict["task"]]
        if verdict["status"] == "no_longer_executes":
            assert "stale:no_longer_executes" in task.tags
        elif verdict["status"] == "answer_changed":
            assert task.answer.value == verdict["after"] and "stale:no_longer_executes" not in task.tags
    assert json.loads((out / "drift.json").read_text()) == report
    # compared again from the re-pinned set, the stale tasks are expected not to run: "stale", never failing
    again = CliRunner().invoke(
        cli,
        [
            "bench",
            "drift",
            AFTER,
            AFTER,
            "--tasks",
            str(out),
            "--store",
            str(refreshed["store"]),
            "--format",
            "json",
            "--fail-on",
            "broken",
        ],
    )
    assert again.exit_code == 0, again.output
    counts = json.loads(again.stdout)["counts"]
    assert (
        counts["stale"] == report["counts"]["no_longer_executes"]
        and counts["same"] == len(task_set.tasks) - counts["stale"]
    )
    stale = {t["task"] for t in report["listed"] if t["status"] == "no_longer_executes"}
    oracle = CliRunner().invoke(
        cli,
        [
            "bench",
            "run",
            "--agent",
            "oracle",
            "--tasks",
            str(out),
            "--snapshot",
            AFTER,
            "--store",
            str(refreshed["store"]),
            "--out",
            str(tmp_path / "run"),
            "--json",
        ],
    )
    assert oracle.exit_code == 0, oracle.output
    ran = {row["id"] for row in json.loads(oracle.stdout)["tasks"]}
    assert ran == {t.id for t in task_set.tasks} - stale  # stale tasks are left out, and it says so
    assert f"{len(stale)} task(s) tagged stale: left out" in oracle.stderr


def test_incremental_refresh_re_executes_only_the_named_tools_and_carries_the_rest(refreshed, tmp_path):
    store = tmp_path / "kopa.sqlite"
    copy_store(SHIPPED, store)
    catalog = refreshed["catalog"]
    summary = refresh_snapshot(
        catalog, store_path=store, base=BEFORE, snapshot="partial", source="sim", as_of=AFTER, tools="tago_*"
    )
    carried = summary.manifest["refresh"]["carried_over"]
    assert summary.manifest["refresh"]["re_executed"]["tools"] == sorted(
        {i.tool for i in Store(store, readonly=True).interactions(BEFORE) if i.tool.startswith("tago_")}
    )
    assert carried["interactions"] + summary.calls == summary.manifest["interactions"]
    with Store(store, readonly=True) as opened:
        old = {(i.request_key, i.seq): i for i in opened.interactions(BEFORE)}
        new = {(i.request_key, i.seq): i for i in opened.interactions("partial")}
    assert set(old) == set(new)
    for key, item in old.items():
        if not item.tool.startswith("tago_"):
            assert (new[key].status, new[key].body_digest, new[key].url) == (item.status, item.body_digest, item.url)
    full = {(c.tool, c.kind, c.path) for c in refreshed["summary"].report.changes if c.tool.startswith("tago_")}
    assert {(c.tool, c.kind, c.path) for c in summary.report.changes} == full
    # the tools carried over are reported as not checked, never as "no drift"
    assert set(summary.report.carried) == set(carried["tools"]) and "seoul_bike_list" in carried["tools"]
    from kopa_replay.drift import render

    junit = render(summary.report, "junit")
    assert 'classname="drift.seoul_bike_list" name="not checked"' in junit
    assert 'classname="drift.seoul_bike_list" name="no drift"' not in junit

    # run again: the sealed snapshot is replayed and left as it is; other settings are refused
    again = refresh_snapshot(
        catalog, store_path=store, base=BEFORE, snapshot="partial", source="sim", as_of=AFTER, tools="tago_*"
    )
    assert again.manifest == summary.manifest
    from kopa_replay.errors import SnapshotError

    with pytest.raises(SnapshotError, match="made by a refresh with"):
        refresh_snapshot(catalog, store_path=store, base=BEFORE, snapshot="partial", source="sim", as_of=AFTER)

    # --changed-since: the tools that drifted (or failed) between two snapshots, re-executed against a third date
    since = refresh_snapshot(
        catalog, store_path=store, base="partial", snapshot="again", source="sim", as_of=AFTER, changed_since=BEFORE
    )
    assert since.manifest["refresh"]["re_executed"]["tools"] == [
        "tago_get_route_no_list",
        "tago_get_sttn_accto_arvl_prearnge_info_list",
    ]
    assert since.report.changes == ()


def test_incremental_refresh_mistakes_are_clean_errors_and_create_nothing(refreshed, tmp_path):
    from click.testing import CliRunner

    from kopa_replay.cli import cli

    store = tmp_path / "kopa.sqlite"
    copy_store(SHIPPED, store)
    runner = CliRunner()
    for args, message in (
        (["--tools", "nothing_*"], "matches no tool"),
        (["--changed-since", "no-such-snapshot"], "no-such-snapshot"),
        (["--source", "simm"], "unknown source 'simm'"),
        (["--store", str(tmp_path / "missing.sqlite")], "missing.sqlite does not exist"),
    ):
        result = runner.invoke(
            cli, ["refresh", "--base", BEFORE, "--snapshot", "new", "--store", str(store), "--no-bench", *args]
        )
        assert result.exit_code != 0 and result.output.startswith("Error:") and message in result.output, result.output
        assert "Traceback" not in result.output
    with Store(store, readonly=True) as opened:
        assert opened.snapshot_names() == [BEFORE]
    assert not (tmp_path / "missing.sqlite").exists()
