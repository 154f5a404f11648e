"""A recorded body that no longer matches its digest is an error naming the snapshot, the tool and the redacted
request — on the replay fast path (``source.replayer``) as on the httpx path, sync and async, and on the CLI."""

from __future__ import annotations

import asyncio
import shutil
import sqlite3

import pytest
from click.testing import CliRunner

from kopa_replay.catalog import builtin_catalog
from kopa_replay.cli import cli
from kopa_replay.env import AsyncToolEnvironment, ToolEnvironment
from kopa_replay.errors import StoreError
from kopa_replay.record.store import shipped_store_path

SNAPSHOT = "2026-09-01"
TOOL, ARGS = "dart_company", {"corp_code": "00439743"}
URL = "https://opendart.fss.or.kr/api/company.json?crtfc_key=***&corp_code=00439743"


@pytest.fixture
def corrupt(tmp_path):
    """A copy of the shipped store, with its manifest, whose body of TOOL's call no longer matches its digest;
    yields (store, the prefix every error about that body starts with)."""
    store = tmp_path / "kopa.sqlite"
    shutil.copy(shipped_store_path(), store)
    (tmp_path / "snapshots").mkdir()
    shutil.copy(shipped_store_path().parents[1] / "snapshots" / f"{SNAPSHOT}.json", tmp_path / "snapshots")
    db = sqlite3.connect(store)
    try:
        (digest,) = db.execute(
            "SELECT body FROM interactions WHERE snapshot = ? AND url = ?", (SNAPSHOT, URL)
        ).fetchone()
        (trigger,) = db.execute("SELECT sql FROM sqlite_master WHERE name = 'blobs_are_immutable'").fetchone()
        with db:
            db.execute("DROP TRIGGER blobs_are_immutable")
            db.execute("UPDATE blobs SET codec = 'raw', size = 3, data = ? WHERE digest = ?", (b"bad", digest))
            db.execute(trigger)  # the schema as the store checks it, the bytes not
    finally:
        db.close()
    return store, f"snapshot '{SNAPSHOT}', tool {TOOL}, GET {URL}: store {store}: body {digest[:12]}… "


def _refused(call) -> str:
    with pytest.raises(StoreError) as caught:
        call()
    return str(caught.value)


@pytest.mark.parametrize("fast", [True, False], ids=["fast path", "httpx path"])
def test_every_call_of_a_corrupt_body_names_the_tool(corrupt, no_network, fast):
    store, prefix = corrupt
    with ToolEnvironment.open(builtin_catalog(), source="replay", snapshot=SNAPSHOT, store=store) as env:
        assert env.source.replayer is not None
        if not fast:
            env.source.replayer = None
        for _ in range(3):  # a corrupt body is never cached: each call is refused alike
            message = _refused(lambda: env.call(TOOL, dict(ARGS)))
            assert message.startswith(prefix) and "does not match its digest" in message
    assert no_network == []


def test_the_async_environment_names_the_tool_too(corrupt, no_network):
    store, prefix = corrupt

    async def call() -> None:
        async with AsyncToolEnvironment.open(builtin_catalog(), source="replay", snapshot=SNAPSHOT, store=store) as env:
            assert env.source.replayer is not None
            await env.call(TOOL, dict(ARGS))

    assert _refused(lambda: asyncio.run(call())).startswith(prefix)


def test_a_live_key_stays_out_of_the_message(corrupt, no_network, monkeypatch):
    store, prefix = corrupt
    monkeypatch.setenv("OPENDART_API_KEY", "very-secret-key-0123456789")
    with ToolEnvironment.open(builtin_catalog(), source="live", snapshot=SNAPSHOT, mode="replay", store=store) as env:
        message = _refused(lambda: env.call(TOOL, dict(ARGS)))
    assert message.startswith(prefix) and "very-secret" not in message


def test_call_prints_one_error_line_naming_the_tool(corrupt, no_network):
    store, prefix = corrupt
    args = ["call", TOOL, "--arg", "corp_code=00439743", "--source", "replay", "--snapshot", SNAPSHOT]
    result = CliRunner().invoke(cli, [*args, "--store", str(store)], catch_exceptions=False)
    assert result.exit_code == 1
    lines = [line for line in result.output.splitlines() if line.startswith("Error:")]
    assert len(lines) == 1 and "Traceback" not in result.output, result.output
    assert lines[0].startswith(f"Error: {prefix}")
