"""The MCP server through the ``mcp`` SDK's real client over stdio, on the shipped snapshot (offline).

Every answer is checked twice over: its structuredContent is the JSON of its one text block, and it validates
against the outputSchema the server listed for the tool (the client checks that much only for results that are not
``isError``)."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import anyio
import pytest

pytest.importorskip("mcp")
jsonschema = pytest.importorskip("jsonschema")

from hostile import edit_past_triggers  # noqa: E402
from mcp import ClientSession  # noqa: E402
from mcp.client.stdio import StdioServerParameters, stdio_client  # noqa: E402

from kopa_replay.catalog import builtin_catalog  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]


def _params(*extra: str) -> StdioServerParameters:
    return StdioServerParameters(
        command=sys.executable,
        args=["-m", "kopa_replay.serve.mcp", "--snapshot", "2026-09-01", *extra],
        cwd=str(ROOT),
        env={"KOPA_API_KEY": ""},
    )


async def _session(extra: tuple[str, ...], body):
    async with stdio_client(_params(*extra)) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            return await body(session)


def _run(body, *extra: str):
    return anyio.run(_session, extra, body)


def _payload(result, schema: dict | None = None) -> dict:
    """The result's JSON text block, read; checked against its structuredContent (and ``schema``, the tool's
    listed outputSchema)."""
    assert len(result.content) == 1 and result.content[0].type == "text"
    payload = json.loads(result.content[0].text)
    assert result.structured_content == payload
    if schema is not None:
        jsonschema.Draft202012Validator(schema).validate(payload)
    return payload


async def _schemas(session) -> dict[str, dict]:
    return {tool.name: tool.output_schema for tool in (await session.list_tools()).tools}


def test_full_catalog_lists_every_tool_and_answers_the_stock_price(catalog):
    async def body(session):
        tools = (await session.list_tools()).tools
        price = await session.call_tool("datagokr_get_stock_price_info", {"srtnCd": "069540", "basDt": "20260831"})
        return tools, price

    tools, price = _run(body)
    by_name = {t.name: t for t in tools}
    got = _payload(price, by_name["datagokr_get_stock_price_info"].output_schema)
    assert not price.is_error and got["outcome"] == "ok" and got["records"][0]["clpr"] == "1680"
    assert got["error_class"] is None and got["snapshot"] == "2026-09-01" and got["total_count"] >= 1
    assert len(tools) == len(catalog) and {t.name for t in tools} == set(catalog.names)
    # every tool advertises an outputSchema (MCP 2025-06-18): an object whose records name the catalog's fields;
    # the parts that differ between tools (one record field's schema) are each a valid schema
    fields = set()
    for tool in tools:
        schema = tool.output_schema
        assert schema and schema["type"] == "object" and schema["properties"].keys() >= {"outcome", "error_class"}
        records = schema["properties"]["records"]["items"]["properties"]
        assert tuple(sorted(records)) == catalog.get(tool.name).output_fields, tool.name
        fields |= {json.dumps({k: v for k, v in field.items() if k != "description"}) for field in records.values()}
    for field in sorted(fields):
        jsonschema.Draft202012Validator.check_schema(json.loads(field))
    jsonschema.Draft202012Validator.check_schema(by_name["dart_cvbd_is_decsn"].output_schema)
    want = catalog.get("dart_cvbd_is_decsn").to_mcp()
    got = by_name["dart_cvbd_is_decsn"]
    assert got.input_schema == want["inputSchema"]
    assert got.description == want["description"] and got.title == want["title"]
    assert got.annotations.read_only_hint is want["annotations"]["readOnlyHint"]


def test_lightron_chain_and_an_invalid_argument():
    async def body(session):
        schemas = await _schemas(session)
        corp = await session.call_tool("dart_corp_code", {"corp_name": "라이트론"})
        code = _payload(corp)["records"][0]["corp_code"]
        cvbd = await session.call_tool(
            "dart_cvbd_is_decsn", {"corp_code": code, "bgn_de": "20260101", "end_de": "20260131"}
        )
        price = await session.call_tool("datagokr_get_stock_price_info", {"srtnCd": "069540", "basDt": "20260831"})
        bad = await session.call_tool(
            "dart_cvbd_is_decsn", {"corp_code": "라이트론", "bgn_de": "20260101", "end_de": "20260131"}
        )
        return schemas, corp, cvbd, price, bad

    schemas, corp, cvbd, price, bad = _run(body, "--tools", "dart_*")
    assert sorted(schemas) == sorted(builtin_catalog().filter("dart_*").names)
    assert not corp.is_error and _payload(corp, schemas["dart_corp_code"])["records"][0]["corp_code"] == "00439743"
    assert not cvbd.is_error
    got = _payload(cvbd, schemas["dart_cvbd_is_decsn"])
    assert got["outcome"] == "ok" and got["records"][0]["act_mktprcfl_cvprc_lwtrsprc"] == "532"
    # a tool outside the served subset is refused, naming close matches
    outside = _payload(price)
    assert price.is_error and outside["outcome"] == "structural_error" and outside["error_class"] == "structural"
    # an argument the inputSchema refuses: structural, naming the tool and the parameter; nothing was sent
    wrong = _payload(bad, schemas["dart_cvbd_is_decsn"])
    assert bad.is_error and wrong["outcome"] == "structural_error" and wrong["error_class"] == "structural"
    assert "'dart_cvbd_is_decsn'" in wrong["message"] and "'corp_code'" in wrong["message"]
    assert wrong["hint"] and wrong["records"] == [] and wrong["status"] == 0 and wrong["attempts"] == 0


def _corrupt_copy(tmp_path: Path) -> Path:
    """A copy of the shipped store (and its manifest) whose recorded answer to the stock-price call holds other
    bytes than its digest names: valid JSON, written past the store's triggers, so only the digest can tell."""
    from kopa_replay.record.snapshots import manifest_dir_for
    from kopa_replay.record.store import shipped_store_path

    shipped = shipped_store_path()
    path = tmp_path / "cassettes" / "kopa.sqlite"
    path.parent.mkdir()
    shutil.copyfile(shipped, path)
    shutil.copytree(manifest_dir_for(shipped), manifest_dir_for(path))
    changed = edit_past_triggers(
        path,
        "UPDATE blobs SET codec = 'raw', data = ? WHERE digest = (SELECT body FROM interactions "
        "WHERE snapshot = '2026-09-01' AND tool = 'datagokr_get_stock_price_info' AND url LIKE '%&srtnCd=069540')",
        params=(b'{"response": {"body": {"items": {"item": []}}}}',),
    )
    assert changed == 1
    return path


def test_a_corrupt_stored_body_is_a_corrupt_store_error_naming_tool_snapshot_and_verify(tmp_path):
    store = _corrupt_copy(tmp_path)

    async def body(session):
        schemas = await _schemas(session)
        price = await session.call_tool("datagokr_get_stock_price_info", {"srtnCd": "069540", "basDt": "20260831"})
        corp = await session.call_tool("dart_corp_code", {"corp_name": "라이트론"})
        return schemas, price, corp

    schemas, price, corp = _run(body, "--store", str(store), "--tools", "d*")
    got = _payload(price, schemas["datagokr_get_stock_price_info"])
    assert price.is_error and got["outcome"] == "store_error" and got["code"] == "StoreError"
    assert got["error_class"] == "corrupt_store" and got["records"] == []
    assert "datagokr_get_stock_price_info" in got["message"] and "'2026-09-01'" in got["message"]
    assert "corrupt" in got["message"] and "does not match its digest" in got["message"]
    assert f"kopa-replay snapshot verify 2026-09-01 --store {store}" in got["hint"]
    assert "no recording" not in got["hint"] and "may succeed later" not in got["hint"]
    # the rest of the snapshot still answers
    assert not corp.is_error and _payload(corp, schemas["dart_corp_code"])["records"][0]["corp_code"] == "00439743"


def test_a_call_the_snapshot_never_recorded_is_not_recorded_not_environmental():
    async def body(session):
        schemas = await _schemas(session)
        miss = await session.call_tool("datagokr_get_stock_price_info", {"srtnCd": "069541", "basDt": "20260831"})
        return schemas["datagokr_get_stock_price_info"], miss

    schema, miss = _run(body, "--tools", "datagokr_get_stock_*")
    got = _payload(miss, schema)
    assert miss.is_error and got["outcome"] == "not_recorded" and got["code"] == "CassetteMiss"
    assert got["error_class"] == "not_recorded" and got["snapshot"] == "2026-09-01"
    assert got["args"] == {"srtnCd": "069541", "basDt": "20260831"}
    assert "was not recorded in snapshot '2026-09-01'" in got["message"]
    assert got["hint"].startswith("The snapshot holds no recording of this exact call")
    assert "may succeed later" not in got["hint"]


def test_http_transport_says_where_it_serves_and_answers_the_sdk_client():
    import subprocess

    from mcp.client.streamable_http import streamable_http_client

    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "kopa_replay",
            "mcp",
            "serve",
            "--transport",
            "http",
            "--port",
            "0",
            "--tools",
            "dart_*",
        ],
        cwd=str(ROOT),
        stderr=subprocess.PIPE,
        text=True,
        env={**__import__("os").environ, "KOPA_API_KEY": ""},
    )
    try:
        line = process.stderr.readline()
        assert "over MCP at http://127.0.0.1:" in line, line
        url = line.split(" at ")[1].split()[0]

        async def listed():
            async with streamable_http_client(url) as (read, write):
                async with ClientSession(read, write) as session:
                    await session.initialize()
                    return [tool.name for tool in (await session.list_tools()).tools]

        names = anyio.run(listed)
        assert names and all(name.startswith("dart_") for name in names)

        # the same port again: a clean error naming it, not uvicorn's traceback and exit 3
        port = url.rsplit(":", 1)[1].split("/")[0]
        busy = subprocess.run(
            [sys.executable, "-m", "kopa_replay", "mcp", "serve", "--transport", "http", "--port", port],
            cwd=str(ROOT),
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert busy.returncode == 1 and busy.stderr.startswith(f"Error: cannot serve MCP on 127.0.0.1:{port}"), (
            busy.stderr
        )
        assert "Traceback" not in busy.stderr
    finally:
        process.terminate()
        process.wait(timeout=30)
        process.stderr.close()
