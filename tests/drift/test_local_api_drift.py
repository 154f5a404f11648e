"""Drift of an API that is not the simulator: a small HTTP server of our own, in two versions, described by a
user-written catalog. Every change kind the diff knows happens on one tool of its own; the rest stay put.

v1 → v2, tool by tool (records are ten shops per query: id, name, price, date):

==================  ====================================================================================
acme_renamed           name → title                                     field_renamed
acme_removed           name dropped                                     field_removed
acme_added             memo added                                       field_added
acme_type              price "1001" → 1001                              type_changed
acme_optional          name missing from every other record             became_optional
acme_nullable          name null in every other record                  became_nullable
acme_sparse_null       name null in 1 of 10 records of each request     became_nullable (the same record, paired)
acme_shifted           a shop new since, still unnamed (null), heads     data only: no record lost its name
                       each page and pushes the others down one
acme_strfmt            date 20260801 → 2026-08-01                       format_changed (string format)
acme_xml               the same document written as XML                 format_changed (response)
acme_envelope          data.items → data.rows                           envelope_changed
acme_total_type        the total count 10 → "10"                        envelope_type_changed
acme_codes             ok code 0 → 00 (not in the catalog)              result_codes_changed, outcome_changed
acme_paged             page cap 20 → 5, larger pages answer code 10     page_size_changed, outcome_changed
acme_gateway           JSON records → an XML gateway error envelope     outcome_changed + format_changed
acme_status            HTTP 200 → 203, same body                        status_changed
acme_nodata            its no-data document loses data.items/total      envelope_changed (request level)
acme_flaky             503 on every request                             environmental noise, not drift
acme_gone              the connection is dropped                        no answer: noise (+ tool_missing)
acme_values            prices + 100, nothing else                       data only: no change; the answer moves
acme_steady            nothing                                          nothing
acme_new               a tool v1's catalog did not have                 tool_added (v1 vs a v2 recording)
==================  ====================================================================================
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET

import pytest
import yaml
from click.testing import CliRunner
from local_http import LocalApi, send

from kopa_replay.catalog import load_catalog
from kopa_replay.cli import cli
from kopa_replay.drift import CHANGE_KINDS, CHECKS, crosses, drift_report, render
from kopa_replay.record.store import Store
from kopa_replay.stages.workflows import record_snapshot, refresh_snapshot

KEY = "local-drift-key-0123456789"
TOOLS = (
    "acme_renamed",
    "acme_removed",
    "acme_added",
    "acme_type",
    "acme_optional",
    "acme_nullable",
    "acme_sparse_null",
    "acme_shifted",
    "acme_strfmt",
    "acme_xml",
    "acme_envelope",
    "acme_total_type",
    "acme_codes",
    "acme_paged",
    "acme_gateway",
    "acme_status",
    "acme_nodata",
    "acme_errcode",
    "acme_flaky",
    "acme_gone",
    "acme_values",
    "acme_steady",
)
EXPECTED = {  # tool → the change kinds (drift, not noise or data) a maintainer must see
    "acme_renamed": {"field_renamed"},
    "acme_removed": {"field_removed"},
    "acme_added": {"field_added"},
    "acme_type": {"type_changed"},
    "acme_optional": {"became_optional"},
    "acme_nullable": {"became_nullable"},
    "acme_sparse_null": {"became_nullable"},
    "acme_strfmt": {"format_changed"},
    "acme_xml": {"format_changed"},
    "acme_envelope": {"envelope_changed"},
    "acme_total_type": {"envelope_type_changed"},
    "acme_codes": {"result_codes_changed", "outcome_changed"},
    "acme_paged": {"page_size_changed", "outcome_changed"},
    "acme_gateway": {"outcome_changed", "format_changed"},
    "acme_status": {"status_changed"},
    "acme_nodata": {"envelope_changed"},
    "acme_errcode": {"result_codes_changed"},
    "acme_gone": {"tool_missing"},
}


def _shops(tool: str, query: str, version: int, count: int = 10, offset: int = 0) -> list[dict]:
    rows = []
    if version == 2 and tool == "acme_shifted":  # newest first: a shop opened since, with no name yet
        n = 99 if query == "a" else 49
        rows.append({"id": f"S{n:04d}", "name": None, "price": str(1000 + n), "date": "20261101"})
        count -= 1
    for i in range(offset, offset + count):
        n = i + (0 if query == "a" else 50)
        row = {"id": f"S{n:04d}", "name": f"상점 {n}", "price": str(1000 + n), "date": f"202608{i % 28 + 1:02d}"}
        if version == 2:
            if tool == "acme_renamed":
                row["title"] = row.pop("name")
            elif tool == "acme_removed":
                del row["name"]
            elif tool == "acme_added":
                row["memo"] = f"비고 {n}"
            elif tool == "acme_type":
                row["price"] = int(row["price"])
            elif tool == "acme_optional" and i % 2:
                del row["name"]
            elif tool == "acme_nullable" and i % 2:
                row["name"] = None
            elif tool == "acme_sparse_null" and i == 3:
                row["name"] = None
            elif tool == "acme_strfmt":
                row["date"] = f"{row['date'][:4]}-{row['date'][4:6]}-{row['date'][6:]}"
            elif tool == "acme_values":
                row["price"] = str(int(row["price"]) + 100)
        rows.append(row)
    return rows


def _xml(node: object, tag: str) -> str:
    if isinstance(node, dict):
        return f"<{tag}>" + "".join(_xml(v, k) for k, v in node.items()) + f"</{tag}>"
    if isinstance(node, list):
        return f"<{tag}>" + "".join(_xml(item, "item") for item in node) + f"</{tag}>"
    return f"<{tag}>{'' if node is None else node}</{tag}>"


class _Api:
    """The local API; ``version`` switches every tool at once."""

    version = 1

    def respond(self, handler, path: str, query: dict) -> None:
        tool = path.rsplit("/", 1)[-1]
        v2 = self.version == 2
        if query.get("key") != KEY:
            return send(handler, 200, {"code": "401", "msg": "unregistered key"})
        if v2 and tool == "acme_gone":
            handler.close_connection = True  # no status line at all: the client sees the connection drop
            return None
        if v2 and tool == "acme_flaky":
            return send(handler, 503, {"code": "99", "msg": "busy"})
        if v2 and tool == "acme_gateway":
            body = (
                "<OpenAPI_ServiceResponse><cmmMsgHeader><errMsg>SERVICE ERROR</errMsg><returnAuthMsg>"
                "SERVICE_KEY_IS_NOT_REGISTERED_ERROR</returnAuthMsg><returnReasonCode>30</returnReasonCode>"
                "</cmmMsgHeader></OpenAPI_ServiceResponse>"
            )
            return send(handler, 200, body.encode(), "text/xml")
        if tool == "acme_errcode":
            return send(
                handler,
                200,
                {"code": "30", "msg": "unregistered service"} if v2 else {"code": "10", "msg": "invalid query"},
            )
        if tool == "acme_nodata":
            data = None if v2 else {"items": [], "total": 0}
            return send(handler, 200, {"code": "3", "msg": "no data", "data": data})
        page, size = int(query.get("page", 1)), int(query.get("size", 10))
        if tool == "acme_paged" and size > (5 if v2 else 20):
            return send(handler, 200, {"code": "10", "msg": "page size too large"})
        rows = _shops(
            tool,
            query.get("q", "a"),
            self.version,
            count=size if tool == "acme_paged" else 10,
            offset=(page - 1) * size if tool == "acme_paged" else 0,
        )
        data = {
            "rows" if v2 and tool == "acme_envelope" else "items": rows,
            "total": 40 if tool == "acme_paged" else "10" if v2 and tool == "acme_total_type" else 10,
        }
        document = {"code": "00" if v2 and tool == "acme_codes" else "0", "msg": "ok", "data": data}
        if tool == "acme_xml":  # rooted in both versions, as data.go.kr writes {"response": …} and <response>…
            if v2:
                return send(handler, 200, _xml(document, "response").encode(), "application/xml")
            document = {"response": document}
        return send(handler, 203 if v2 and tool == "acme_status" else 200, document)


def _catalog_file(tmp_path, base_url: str, tools=TOOLS) -> str:
    def tool(name: str) -> dict:
        paged = name == "acme_paged"
        return {
            "name": name,
            "title": f"상점 목록 {name}",
            "description": {"ko": "상점 목록", "en": "shops"},
            "http": {
                "path": f"/v1/{name}",
                **(
                    {
                        "pagination": {
                            "style": "page",
                            "page_param": "page",
                            "size_param": "size",
                            "max_size": 20,
                            "default_size": 10,
                        }
                    }
                    if paged
                    else {}
                ),
            },
            "params": {
                "q": {"type": "string", "description": "query"},
                **(
                    {
                        "page": {"type": "integer", "description": "page"},
                        "size": {"type": "integer", "description": "rows per page"},
                    }
                    if paged
                    else {}
                ),
            },
            "output": {"id": "shop id", "name": "shop name", "price": "price", "date": "YYYYMMDD"},
            "examples": [{"q": "a", **({"page": 1, "size": 3} if paged else {})}, {"q": "b"}],
        }

    document = {
        "platform": {
            "id": "acme",
            "domain": "finance",
            "base_url": base_url,
            "auth": {"location": "query", "name": "key", "env": "ACME_DRIFT_KEY"},
            "format": "json",
            "envelope": {
                "records": ["data.items", "response.data.items.item", "response.data.items"],
                "total": ["data.total", "response.data.total"],
                "code": ["code", "response.code", "OpenAPI_ServiceResponse.cmmMsgHeader.returnReasonCode"],
                "message": ["msg", "response.msg", "OpenAPI_ServiceResponse.cmmMsgHeader.returnAuthMsg"],
            },
            "result_codes": {
                "0": "ok",
                "3": "no_data",
                "10": "structural",
                "30": "structural",
                "99": "environmental",
                "401": "environmental",
            },
        },
        "tools": [tool(name) for name in tools],
    }
    path = tmp_path / f"acme-{len(tools)}.yaml"
    path.write_text(yaml.safe_dump(document, allow_unicode=True), encoding="utf-8")
    return str(path)


@pytest.fixture(scope="module")
def drifted(tmp_path_factory):
    """v1 recorded, the API moved to v2, v1 refreshed into v2; plus a v2 recording of a steady tool and a new one."""
    tmp_path = tmp_path_factory.mktemp("local-drift")
    api = _Api()
    mp = pytest.MonkeyPatch()
    mp.setenv("ACME_DRIFT_KEY", KEY)
    with LocalApi(api.respond) as local:
        try:
            catalog_path = _catalog_file(tmp_path, local.url)
            full_path = _catalog_file(tmp_path, local.url, ("acme_steady", "acme_new"))
            catalog = load_catalog([catalog_path])
            store = tmp_path / "acme.sqlite"
            record_snapshot(catalog, store_path=store, snapshot="v1", source="live")
            api.version = 2
            summary = refresh_snapshot(
                catalog, store_path=store, base="v1", snapshot="v2", source="live", retries=1, retry_backoff=0.0
            )
            record_snapshot(load_catalog([full_path]), store_path=store, snapshot="v2-full", source="live")
            yield {
                "catalog": catalog,
                "catalog_path": catalog_path,
                "full_path": full_path,
                "store": store,
                "summary": summary,
                "tmp": tmp_path,
            }
        finally:
            mp.undo()


def _kinds(report, tool):
    return {c.kind for c in report.changes if c.tool == tool}


def test_every_change_kind_is_reported_on_its_tool_and_nothing_else(drifted):
    report = drifted["summary"].report
    for tool in TOOLS:
        assert _kinds(report, tool) == EXPECTED.get(tool, set()), (
            tool,
            [c.to_dict() for c in report.changes if c.tool == tool],
        )


def test_each_change_names_the_requests_that_show_it(drifted):
    report = drifted["summary"].report
    for change in report.changes:
        if change.kind == "page_size_changed":  # the pages larger than the new cap: size 20, and the default 10
            assert [r.split("?")[1] for r in change.requests] == ["key=***&page=1&q=a&size=20", "key=***&q=b"]
        else:
            assert change.requests, change.to_dict()
            assert all(r.startswith("GET http://127.0.0.1") and "key=***" in r for r in change.requests)


def test_ok_to_a_gateway_error_in_xml_is_breaking_with_old_and_new_codes_and_messages(drifted):
    report = drifted["summary"].report
    [outcome] = [c for c in report.changes if c.tool == "acme_gateway" and c.kind == "outcome_changed"]
    assert outcome.severity == "breaking"
    assert outcome.before == {"outcome": "ok", "code": "0", "message": "ok", "status": 200, "format": "json"}
    assert outcome.after == {
        "outcome": "structural",
        "code": "30",
        "message": "SERVICE_KEY_IS_NOT_REGISTERED_ERROR",
        "status": 200,
        "format": "xml",
    }
    assert len(outcome.requests) == 2
    [fmt] = [c for c in report.changes if c.tool == "acme_gateway" and c.kind == "format_changed"]
    assert (fmt.before, fmt.after, fmt.severity) == ("json", "xml", "breaking")


def test_a_field_null_in_one_record_per_request_and_a_total_turned_string_are_breaking(drifted):
    report = drifted["summary"].report
    [nullable] = [c for c in report.changes if c.tool == "acme_sparse_null"]
    # 2 nulls in 20 records is no evidence as a share; the same shop of the same request losing its name is
    assert (nullable.kind, nullable.check_id, nullable.path) == ("became_nullable", CHECKS["request_nullable"], "name")
    assert (nullable.severity, nullable.before, nullable.after) == ("breaking", 0.0, 0.1)
    assert "null in 2 of 20 records of 2 requests" in nullable.message
    assert [r.split("?")[1] for r in nullable.requests] == ["key=***&q=a", "key=***&q=b"]
    [total] = [c for c in report.changes if c.tool == "acme_total_type"]
    assert (total.kind, total.check_id, total.path) == ("envelope_type_changed", CHECKS["envelope_type"], "data.total")
    assert (total.severity, total.before, total.after) == ("breaking", ["number"], ["string"])
    assert [r.split("?")[1] for r in total.requests] == ["key=***&q=a", "key=***&q=b"]
    # the total's value is the same 10, and the shops the same: no data change either
    assert not [c for c in (*report.data, *report.noise) if c.tool in ("acme_sparse_null", "acme_total_type")]
    # as many shops, a null name among them, but in a shop the old answers never held: the data grew
    assert [(c.kind, len(c.requests)) for c in report.data if c.tool == "acme_shifted"] == [("values_changed", 2)]


def test_environmental_failures_are_noise_not_drift(drifted):
    report, summary = drifted["summary"].report, drifted["summary"]
    noisy = {c.tool for c in report.noise}
    assert noisy == {"acme_flaky", "acme_gone"}
    assert not [c for c in report.changes if c.tool == "acme_flaky"]
    assert summary.retries["still_failing"] == 4 and summary.outcomes["no_answer"] == 2  # 503s and dropped
    provenance = summary.manifest["refresh"]  # the snapshot says how it was retried, and what still failed
    assert provenance["retry_policy"] == {"retries": 1, "backoff": 0.0, "max_backoff": 30.0}
    assert provenance["retries"] == summary.retries and provenance["no_answer"] == 2
    flaky = next(c for c in report.noise if c.tool == "acme_flaky")
    assert "503" in flaky.message and len(flaky.requests) == 2


def test_a_values_only_change_is_data_not_drift(drifted):
    report = drifted["summary"].report
    assert _kinds(report, "acme_values") == set()
    assert {(c.tool, c.kind) for c in report.data if c.tool == "acme_values"} == {("acme_values", "values_changed")}
    assert not [c for c in (*report.changes, *report.data, *report.noise) if c.tool == "acme_steady"]


def test_a_tool_only_the_newer_recording_has_is_added(drifted):
    with Store(drifted["store"], readonly=True) as store:
        report = drift_report(store, load_catalog([drifted["full_path"]]), "v1", "v2-full")
    added = [c for c in report.changes if c.kind == "tool_added"]
    assert [(c.tool, c.severity) for c in added] == [("acme_new", "info")]
    # with the refresh, every check the diff knows fired at least once: none is left untested here
    seen = {c.check_id for c in (*drifted["summary"].report.changes, *added)}
    assert seen == set(CHECKS.values())
    assert {c.kind for c in (*drifted["summary"].report.changes, *added)} == set(CHANGE_KINDS)


def test_the_diff_is_the_same_offline_from_the_store(drifted):
    with Store(drifted["store"], readonly=True) as store:
        again = drift_report(store, drifted["catalog"], "v1", "v2")
    assert again == drifted["summary"].report
    assert render(again, "json") == render(drifted["summary"].report, "json")


def test_the_answer_of_a_task_over_the_values_only_tool_is_listed(drifted, tmp_path):
    from kopa_replay.bench.suite import save_task_set
    from kopa_replay.bench.tasks import task_from_trajectory
    from kopa_replay.env import ToolEnvironment, open_source
    from kopa_replay.synth.model import Answer, Step, Trajectory
    from kopa_replay.synth.plan import page_calls, run_plan

    catalog = drifted["catalog"]
    plans, tasks = [], []
    with open_source("replay", snapshot="v1", store=drifted["store"], catalog=catalog) as src:
        env = ToolEnvironment(catalog, src)
        for tool in ("acme_values", "acme_steady"):
            skeleton = Trajectory(
                f"local-{tool}",
                "chain",
                [Step(0, tool, {"q": "a"}, "", 0, None, "", 0)],
                [],
                Answer("number", 0),
                meta={
                    "page_budget": 5,
                    "fan_out_budget": 5,
                    "answer_spec": {"op": "sum", "group": 0, "field": "price"},
                },
            )
            run = run_plan(skeleton, catalog, env)
            assert run.ok, run.problem
            plan = Trajectory(
                skeleton.id,
                "chain",
                run.steps,
                run.junctions,
                run.answer,
                "상점들 가격 합계는?",
                (),
                run.state_digest,
                {**skeleton.meta, "calls": page_calls(run)},
            )
            plans.append(plan)
            tasks.append(task_from_trajectory(plan, catalog))
    save_task_set(tmp_path / "tasks", tasks, plans, {})
    result = CliRunner().invoke(
        cli,
        [
            "bench",
            "drift",
            "v1",
            "v2",
            "--tasks",
            str(tmp_path / "tasks"),
            "--store",
            str(drifted["store"]),
            "--catalog",
            drifted["catalog_path"],
            "--format",
            "json",
            "--fail-on",
            "changed",
        ],
    )
    assert result.exit_code == 1, result.output
    listed = json.loads(result.output)["listed"]
    assert [(t["task"], t["status"], t["before"], t["after"]) for t in listed] == [
        ("local-acme_values", "answer_changed", sum(1000 + n for n in range(10)), sum(1100 + n for n in range(10)))
    ]
    assert listed[0]["causes"] == []  # no drift explains it: the data moved
    assert any("values changed" in d for d in listed[0]["data"])


def test_a_task_set_not_pinned_to_the_old_snapshot_is_not_re_pinned(drifted):
    from kopa_replay.bench.drift import AnswerDrift, TaskDrift, repin
    from kopa_replay.errors import UsageError

    report = AnswerDrift("v1", "v2", (TaskDrift("local-x", "fails_on_before", problem="step ended empty"),))
    with pytest.raises(UsageError, match="not pinned to it"):
        repin([], {}, {}, report, drifted["catalog"])


def test_cli_formats_and_fail_on(drifted):
    runner = CliRunner()
    base = ["drift", "diff", "v1", "v2", "--store", str(drifted["store"]), "--catalog", drifted["catalog_path"]]
    junit = runner.invoke(cli, [*base, "--format", "junit", "--fail-on", "breaking"])
    assert junit.exit_code == 1, junit.output
    root = ET.fromstring(junit.output)
    report = drifted["summary"].report
    breaking = [c for c in report.changes if c.severity == "breaking"]
    failures = [case for case in root.iter("testcase") if case.find("failure") is not None]
    assert len(failures) == len(breaking) == int(root.get("failures"))
    assert {case.get("classname") for case in root.iter("testcase") if case.find("skipped") is not None} == {
        "drift.acme_flaky",
        "drift.acme_gone",
    }
    assert any(
        case.get("classname") == "drift.acme_steady" and case.get("name") == "no drift"
        for case in root.iter("testcase")
    )
    markdown = runner.invoke(cli, [*base, "--format", "markdown"])
    assert markdown.exit_code == 0 and "| breaking | acme_gateway |" in markdown.output
    text = runner.invoke(cli, [*base])
    assert text.exit_code == 0 and "NOISE    acme_flaky" in text.output and "DATA     acme_values" in text.output
    assert crosses(report, "warning") and not crosses(report.noise, "warning")
    assert KEY not in junit.output + markdown.output + text.output
    assert KEY.encode() not in drifted["store"].read_bytes()
