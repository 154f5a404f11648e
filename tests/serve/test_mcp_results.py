"""What the MCP server answers: structured results against each tool's outputSchema, and the reason class of every
``isError`` result, each produced by a real situation (the ``mcp`` SDK's real client over streamable HTTP, served in
this process; a store recorded from the simulator for the platform's own failures).

The shipped snapshot's cases (not recorded, corrupt store, a refused pattern) are in tests/env/test_mcp.py, over stdio.
"""

from __future__ import annotations

import json

import anyio
import pytest

pytest.importorskip("mcp")
jsonschema = pytest.importorskip("jsonschema")

from mcp import ClientSession  # noqa: E402
from mcp.client.streamable_http import streamable_http_client  # noqa: E402

from kopa_replay.env.call import OUTCOME_CLASSES  # noqa: E402
from kopa_replay.env.environment import ToolEnvironment  # noqa: E402
from kopa_replay.serve.mcp import ERROR_CLASSES, RAISED, output_schema, record_field_schema  # noqa: E402

STOCK = "datagokr_get_stock_price_info"
CVBD = "dart_cvbd_is_decsn"
STOCK_ARGS = {"srtnCd": "069540", "basDt": "20260831"}
# the simulator answers DART's status 100 (a field's value is wrong) to a period that ends before it begins, and
# 013 (no data) for a company that does not exist
SWAPPED_PERIOD = {"corp_code": "00439743", "bgn_de": "20260131", "end_de": "20250101"}
NO_SUCH_COMPANY = {"corp_code": "99999999", "bgn_de": "20260101", "end_de": "20260131"}


@pytest.fixture(scope="module")
def faulty_store(tmp_path_factory, catalog):
    """A store whose snapshot ``faults`` holds a 5xx/429/maintenance answer to the stock-price call (the simulator at
    fault rate 1), DART's status 100 to the swapped period and 013 to a company that does not exist (the simulator
    without faults)."""
    store = tmp_path_factory.mktemp("mcp") / "faults.sqlite"
    record = {"source": "sim", "snapshot": "faults", "mode": "record", "store": store}
    with ToolEnvironment.open(catalog, fault_rate=1.0, **record) as env:
        assert env.call(STOCK, STOCK_ARGS).outcome == "environmental_error"
    with ToolEnvironment.open(catalog, **record) as env:
        assert env.call(CVBD, SWAPPED_PERIOD).code == "100"
        assert env.call(CVBD, NO_SUCH_COMPANY).code == "013"
    return store


async def _calls(url: str, calls: list[tuple[str, dict]]):
    """(the tools/list result, the results of ``calls``) through one session of the SDK's client."""
    async with streamable_http_client(url) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            listed = await session.list_tools()
            return listed, [await session.call_tool(name, args) for name, args in calls]


def _schemas(listed) -> dict[str, dict]:
    return {tool.name: tool.output_schema for tool in listed.tools}


def _structured(result, schema: dict) -> dict:
    """The result's structuredContent, checked: the JSON of its one text block, valid against ``schema``."""
    assert len(result.content) == 1 and result.content[0].type == "text"
    assert result.structured_content == json.loads(result.content[0].text)
    jsonschema.Draft202012Validator(schema).validate(result.structured_content)
    return result.structured_content


def test_each_reason_class_is_the_one_the_call_met(catalog, faulty_store, mcp_serving):
    served = catalog.filter("d*")  # dart_* and datagokr_*: both tools and their neighbours
    calls = [
        (STOCK, STOCK_ARGS),  # recorded: a 5xx, 429 or maintenance answer
        (CVBD, SWAPPED_PERIOD),  # recorded: the platform's error code 100
        (CVBD, NO_SUCH_COMPANY),  # recorded: the platform's "no data"
        (STOCK, {**STOCK_ARGS, "numOfRows": "many"}),  # a type the inputSchema refuses
        (STOCK, {**STOCK_ARGS, "pageNo": [1]}),  # an array where an integer belongs
        (CVBD, {**SWAPPED_PERIOD, "end_de": "20260228"}),  # never recorded
        ("dart_cvbd_is_decsn_v2", {}),  # no such tool
    ]

    async def body():
        async with mcp_serving(served, snapshot="faults", store=faulty_store) as (_server, url):
            return await _calls(url, calls)

    listed, results = anyio.run(body)
    schemas = _schemas(listed)
    assert set(schemas) == set(served.names)
    got = [_structured(result, schemas.get(name) or schemas[CVBD]) for (name, _), result in zip(calls, results)]
    # every outcome but empty (a valid answer holding no records) is an error result
    assert [result.is_error for result in results] == [True, True, False, True, True, True, True]
    assert [(g["outcome"], g["error_class"]) for g in got] == [
        ("environmental_error", "environmental"),
        ("structural_error", "structural"),
        ("empty", None),
        ("structural_error", "structural"),
        ("structural_error", "structural"),
        ("not_recorded", "not_recorded"),
        ("structural_error", "structural"),
    ]
    fault, platform, empty, wrong_type, array, missed, unknown = got
    assert fault["status"] >= 500 or fault["status"] == 429 or fault["code"] is not None
    assert fault["hint"].endswith("the same call may succeed later.")
    assert platform["status"] == 200 and platform["code"] == "100" and platform["snapshot"] == "faults"
    assert empty["code"] == "013" and empty["records"] == [] and "matched no records" in empty["hint"]
    # a refused argument names the tool and the parameter, and nothing was sent
    for refused, param in ((wrong_type, "numOfRows"), (array, "pageNo")):
        assert f"tool {STOCK!r}" in refused["message"] and f"parameter {param!r}" in refused["message"]
        assert refused["status"] == 0 and refused["attempts"] == 0 and refused["records"] == []
    assert missed["code"] == "CassetteMiss" and "'faults'" in missed["message"]
    assert unknown["hint"].startswith("did you mean dart_cvbd_is_decsn")


def test_every_outcome_has_a_reason_class_and_only_answers_have_none():
    raised = {entry.outcome for entry in RAISED}
    assert set(ERROR_CLASSES) == set(OUTCOME_CLASSES) | raised
    assert sorted(outcome for outcome, cls in ERROR_CLASSES.items() if cls is None) == ["empty", "ok"]
    assert sorted(ERROR_CLASSES.values(), key=str) == sorted(
        [None, None, "structural", "environmental", "blocked", "not_recorded", "corrupt_store"], key=str
    )


def test_record_fields_are_typed_loosely_enough_to_be_true_and_no_looser(catalog):
    schema = output_schema(catalog.get(STOCK))
    validator = jsonschema.Draft202012Validator(schema)
    base = {"tool": STOCK, "args": {}, "snapshot": None, "outcome": "ok", "error_class": None, "code": None}
    base |= {"message": None, "total_count": None}
    # a blank value normalized to null, a field the catalog does not list, a field left out: all true answers
    assert validator.is_valid({**base, "records": [{"clpr": None, "basDt": "20260831", "unlisted": 1}]})
    assert not validator.is_valid({**base, "records": [{"clpr": 1680}]})  # the catalog says text
    assert not validator.is_valid({**base, "records": [{"clpr": "1680"}], "error_class": "transient"})
    assert not validator.is_valid({k: v for k, v in base.items() if k != "error_class"} | {"records": []})
    # numbers may come as text (XML, comma numbers), a one-element list as an object; never a boolean
    integer = record_field_schema({"type": "integer", "description": "count"})
    assert integer == {"description": "count", "type": ["string", "integer", "null"]}
    assert record_field_schema({"type": ["array", "null"]}) == {"type": ["array", "object", "null"]}
    assert record_field_schema({"type": "string", "pattern": "^[0-9]+$"}) == {"type": ["string", "null"]}


def test_a_large_tools_list_and_a_thousand_record_page_reach_the_default_client_over_http(catalog, mcp_serving):
    # each more than the SDK client's 1 MiB cap on one server-sent event: answered as JSON bodies, they arrive whole
    bond = "datagokr_get_bond_basi_info_v2"
    served = catalog.filter("datagokr_*")

    async def body():
        async with mcp_serving(served) as (_server, url):
            return await _calls(url, [(bond, {"numOfRows": 1000, "pageNo": 1})])

    listed, [page] = anyio.run(body)
    schemas = _schemas(listed)
    assert set(schemas) == set(served.names) and all(schemas.values())
    assert len(listed.model_dump_json(by_alias=True, exclude_none=True).encode()) > 1 << 20
    got = _structured(page, schemas[bond])
    assert not page.is_error and got["outcome"] == "ok" and len(got["records"]) == 1000
    assert len(page.content[0].text.encode()) > 1 << 20


def test_a_bot_wall_is_a_blocked_result_with_its_evidence_not_a_broken_call(catalog, mcp_serving):
    """The simulator's law.go.kr behind a bot wall (a 403 HTML page to a library's User-Agent): the agent hears that
    nothing is wrong with its call, and the evidence the page gave."""
    served = catalog.filter("law_search_law")
    args = {"query": "도로교통법"}

    async def body():
        async with mcp_serving(served, source="sim", snapshot=None, incidents="bot_wall=1") as (_server, url):
            return await _calls(url, [("law_search_law", args)])

    listed, (result,) = anyio.run(body)
    got = _structured(result, _schemas(listed)["law_search_law"])
    assert result.is_error and (got["outcome"], got["error_class"]) == ("blocked_error", "blocked")
    assert got["status"] == 403 and "HTML page" in got["message"] and "Access Denied" in got["message"]
    assert "Nothing is wrong with the call" in got["hint"] and got["records"] == []


def test_answers_are_the_same_call_after_call_and_the_server_keeps_no_call_log(catalog):
    import mcp_types as types

    from kopa_replay.serve.mcp import build_server

    tool = catalog.get(STOCK)
    args = dict(tool.examples[0])
    with ToolEnvironment.open(catalog.filter(STOCK)) as env:
        handler = build_server(env).get_request_handler("tools/call").handler
        mine = env.call(STOCK, args)  # the caller's own call stays in its log; the server's are never added

        async def call():
            return await handler(None, types.CallToolRequestParams(name=STOCK, arguments=args))

        first, second = anyio.run(call), anyio.run(call)
        assert [entry.digest for entry in env.log] == [mine.digest]
    assert first == second and not first["isError"]
    # the records served are the environment's own: serializing them twice must leave them as they were
    assert first["structuredContent"] == json.loads(first["content"][0]["text"])
    assert first["structuredContent"]["outcome"] == "ok" and first["structuredContent"]["records"]
    # the text written in parts (the envelope, then the records' text kept from the first call) is, call after
    # call, the whole payload as json.dumps writes it
    for answer in (first, second):
        assert answer["content"][0]["text"] == json.dumps(answer["structuredContent"], ensure_ascii=False)


def test_a_value_json_has_no_type_for_is_written_as_text_in_both_blocks(catalog, monkeypatch):
    import datetime

    import mcp_types as types

    from kopa_replay.env.core import ToolResult
    from kopa_replay.serve.mcp import build_server

    day = datetime.date(2026, 8, 31)
    result = ToolResult(STOCK, {"basDt": day}, [{"basDt": day}], 1, None, "ok", "00", None, "d")
    with ToolEnvironment.open(catalog.filter(STOCK)) as env:
        monkeypatch.setattr(env, "call", lambda name, args, **options: result)
        handler = build_server(env).get_request_handler("tools/call").handler
        answer = anyio.run(handler, None, types.CallToolRequestParams(name=STOCK, arguments={}))
    assert answer["structuredContent"] == json.loads(answer["content"][0]["text"])
    assert answer["structuredContent"]["records"] == [{"basDt": "2026-08-31"}]
    assert answer["structuredContent"]["args"] == {"basDt": "2026-08-31"}


def test_the_records_text_kept_is_bounded_and_evicts_the_least_recently_served():
    from kopa_replay.serve.mcp import _RecordsText

    texts = _RecordsText(budget=50)
    pages = [[{"n": i, "s": "가나다"}] for i in range(4)]  # 22 characters of JSON each: two fit
    assert texts.text(pages[0]) == json.dumps(pages[0], ensure_ascii=False)
    texts.text(pages[1])
    assert texts.text(pages[0]) is texts.text(pages[0])  # kept (the same string), and now served last
    texts.text(pages[2])  # over the budget: page 1, served least recently, goes
    assert texts.size == 44 and [id(page) in texts._entries for page in pages[:3]] == [True, False, True]
    assert texts.text(pages[1]) == json.dumps(pages[1], ensure_ascii=False)  # written again, the same text
    assert texts.text([]) == "[]" and id(pages[3]) not in texts._entries
