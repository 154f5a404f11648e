"""No API key reaches a cassette, a log or an error message — wherever the platform puts or echoes it."""

from __future__ import annotations

import base64
import logging
import tempfile
from pathlib import Path
from urllib.parse import quote

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kopa_replay.env import call_tool, open_source
from kopa_replay.errors import CassetteMiss

# query key (DART), header key (KRX), path-segment key (Seoul), key echoed in the body (law.go.kr OC)
CALLS = [
    ("dart_company", {"corp_code": "00439743"}),
    ("krx_stk_bydd_trd", {"basDd": "20260831"}),
    ("seoul_card_subway_stats_new", {"USE_YMD": "20260825", "START": 1, "END": 3}),
    ("law_search_law", {"query": "도로교통법"}),
]

# Real keys are long random strings (DART 40 hex characters, data.go.kr ~100 base64 characters); a key made of
# one repeated character would also be a substring of ordinary data, which masking by value must not mangle.
# Drawn as base64 of random bytes (how data.go.kr keys look), not as text: Hypothesis seeds text strategies with
# string literals of the code base, and a "key" such as 'application/json' is ordinary data, not a secret.
keys = (
    st.binary(min_size=12, max_size=45)
    .map(lambda raw: base64.b64encode(raw).decode())
    .filter(lambda k: len(set(k)) >= 6 and not k.startswith("/"))
)


def _forms(key: str) -> list[bytes]:
    return [form.encode() for form in {key, quote(key, safe=""), quote(key)}]


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(key=keys)
def test_a_random_key_never_reaches_store_log_or_message(key, catalog, monkeypatch, caplog):
    monkeypatch.setenv("KOPA_API_KEY", key)  # the simulator accepts it and the source sends it
    caplog.set_level(logging.DEBUG)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "store.sqlite"
        with open_source("sim", snapshot="s", mode="record", store=path, catalog=catalog) as source:
            results = [call_tool(catalog, name, args, source) for name, args in CALLS]
        assert all(r.outcome == "ok" for r in results), [(r.tool, r.outcome, r.code) for r in results]
        with open_source("replay", snapshot="s", store=path, catalog=catalog) as source:
            try:
                call_tool(catalog, "dart_company", {"corp_code": "99999999"}, source)
                message = ""
            except CassetteMiss as exc:
                message = str(exc)
        stored = b"".join(p.read_bytes() for p in Path(folder).iterdir())
    texts = [stored, message.encode(), caplog.text.encode(), *(r.url.encode() for r in results)]
    for form in _forms(key):
        for text in texts:
            assert form not in text


def test_the_law_oc_echo_is_scrubbed_but_the_rest_of_the_body_kept(tmp_path, catalog, monkeypatch):
    monkeypatch.setenv("KOPA_API_KEY", "my-secret-oc-value")
    with open_source("sim", snapshot="s", mode="record", store=tmp_path / "s.sqlite", catalog=catalog) as source:
        result = call_tool(catalog, "law_search_law", {"query": "도로교통법"}, source)
    links = [r.get("법령상세링크", "") for r in result.records]
    assert links and all("OC=***" in link for link in links)
    assert all("my-secret-oc-value" not in link for link in links)


def test_a_short_seoul_path_key_never_reaches_the_log_or_the_store(catalog, monkeypatch, caplog, tmp_path):
    key = "Zq7"  # shorter than a real key: masked where it stands alone (a path segment), not inside words
    monkeypatch.setenv("KOPA_API_KEY", key)
    caplog.set_level(logging.DEBUG)
    path = tmp_path / "store.sqlite"
    with open_source("sim", snapshot="s", mode="record", store=path, catalog=catalog) as source:
        result = call_tool(
            catalog, "seoul_card_subway_stats_new", {"USE_YMD": "20260825", "START": 1, "END": 3}, source
        )
    assert result.outcome == "ok"
    assert "openapi.seoul.go.kr" in caplog.text and f"/{key}/" not in caplog.text and "/***/" in caplog.text
    stored = b"".join(p.read_bytes() for p in tmp_path.iterdir())
    assert f"/{key}/".encode() not in stored and f"/{key}/" not in result.url
