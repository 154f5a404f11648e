"""A user-written catalog for an arbitrary HTTP server: recorded, replayed, refreshed and diffed end to end."""

from __future__ import annotations

import json

import pytest
import yaml
from click.testing import CliRunner
from local_http import LocalApi, send

from kopa_replay.cli import cli

KEY = "acme-secret-key-12345"


class _Server:
    """A tiny JSON API whose field names change when ``version`` is bumped."""

    version = 1

    def respond(self, handler, path, query):
        if query.get("apikey") != KEY:
            return send(handler, 200, {"code": "401", "msg": "bad key"})
        page = int(query.get("page", "1"))
        name = "close" if self.version == 1 else "close_price"
        items = [{"date": f"202608{d:02d}", name: str(1000 + d)} for d in range(page, page + 3)]
        return send(handler, 200, {"code": "0", "msg": "ok", "data": {"items": items, "total": 30}})


@pytest.fixture
def api():
    server = _Server()
    with LocalApi(server.respond) as local:
        server.url = local.url
        yield server


def _catalog(tmp_path, base_url):
    document = {
        "platform": {
            "id": "acme",
            "domain": "finance",
            "base_url": base_url,
            "auth": {"location": "query", "name": "apikey", "env": "ACME_KEY"},
            "format": "json",
            "envelope": {"records": "data.items", "total": "data.total", "code": "code", "message": "msg"},
            "pagination": {"style": "page", "page_param": "page", "size_param": "size", "max_size": 3},
            "result_codes": {"0": "ok", "401": "environmental"},
        },
        "tools": [
            {
                "name": "acme_quotes",
                "title": "시세",
                "description": {"ko": "시세", "en": "quotes"},
                "http": {"path": "/v1/quotes"},
                "params": {
                    "page": {"type": "integer", "description": "page"},
                    "size": {"type": "integer", "description": "size"},
                },
                "output": {"date": "YYYYMMDD", "close": "closing price"},
                "examples": [{"page": 1}, {"page": 2}],
            }
        ],
    }
    path = tmp_path / "acme.yaml"
    path.write_text(yaml.safe_dump(document), encoding="utf-8")
    return path


def test_record_replay_refresh_and_diff_a_custom_catalog(tmp_path, api, monkeypatch):
    monkeypatch.setenv("ACME_KEY", KEY)
    catalog = str(_catalog(tmp_path, api.url))
    store = str(tmp_path / "acme.sqlite")
    runner = CliRunner()

    def run(*args):
        return runner.invoke(cli, [*args], catch_exceptions=False)

    recorded = run("record", "--source", "live", "--snapshot", "v1", "--store", store, "--catalog", catalog, "--json")
    assert recorded.exit_code == 0, recorded.output
    assert json.loads(recorded.output)["outcomes"] == {"ok": 3}

    monkeypatch.delenv("ACME_KEY")
    with pytest.MonkeyPatch.context() as blocked:  # replay must not touch the network, the server included
        import socket

        def refuse(*args, **kwargs):
            raise AssertionError("replay opened a socket")

        blocked.setattr(socket.socket, "connect", refuse)
        replayed = run(
            "call",
            "acme_quotes",
            "--arg",
            "page=2",
            "--snapshot",
            "v1",
            "--store",
            store,
            "--catalog",
            catalog,
            "--json",
        )
    assert replayed.exit_code == 0, replayed.output
    assert json.loads(replayed.output)["records"][0] == {"date": "20260802", "close": "1002"}

    api.version = 2  # the API renames a field
    monkeypatch.setenv("ACME_KEY", KEY)
    refreshed = run(
        "refresh",
        "--base",
        "v1",
        "--snapshot",
        "v2",
        "--source",
        "live",
        "--store",
        store,
        "--catalog",
        catalog,
        "--format",
        "json",
        "--fail-on",
        "breaking",
    )
    assert refreshed.exit_code == 1, refreshed.output
    changes = json.loads(refreshed.stdout)["changes"]
    assert [(c["tool"], c["path"], c["kind"]) for c in changes] == [("acme_quotes", "close", "field_renamed")]
    raw = (tmp_path / "acme.sqlite").read_bytes()
    assert KEY.encode() not in raw
