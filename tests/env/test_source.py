"""Sources: mirrors address real hosts under the host-as-first-segment scheme; bad specs are named."""

from __future__ import annotations

import httpx
import pytest

from kopa_replay.env.source import MirrorTransport, open_source, parse_mirrors
from kopa_replay.errors import UsageError


def test_mirrors_route_each_host_or_the_default():
    transport = MirrorTransport({"opendart.fss.or.kr": "http://127.0.0.1:9000/", "*": "http://127.0.0.1:9001"})
    target = transport.target(httpx.URL("https://opendart.fss.or.kr/api/company.json?corp_code=1"))
    assert str(target) == "http://127.0.0.1:9000/opendart.fss.or.kr/api/company.json?corp_code=1"
    other = transport.target(httpx.URL("http://openapi.seoul.go.kr:8088/k/json/bikeList/1/5"))
    assert str(other) == "http://127.0.0.1:9001/openapi.seoul.go.kr/k/json/bikeList/1/5"
    only = MirrorTransport({"opendart.fss.or.kr": "http://127.0.0.1:9000"})
    assert str(only.target(httpx.URL("https://www.law.go.kr/DRF/lawSearch.do"))) == \
        "https://www.law.go.kr/DRF/lawSearch.do"


def test_mirror_specs_are_checked():
    assert parse_mirrors(["OpenDart.fss.or.kr=http://127.0.0.1:1"]) == {"opendart.fss.or.kr": "http://127.0.0.1:1"}
    for bad in ("opendart.fss.or.kr", "=http://x", "host=ftp://x"):
        with pytest.raises(UsageError, match="HOST=URL"):
            parse_mirrors([bad])


def test_a_mirror_url_source_answers_like_the_simulator(server_url, catalog):
    from kopa_replay.env import call_tool

    with open_source(server_url) as source:
        result = call_tool(catalog, "datagokr_get_stock_price_info", {"srtnCd": "069540", "basDt": "20260831"},
                           source)
    assert result.records[0]["clpr"] == "1680"


def test_replay_source_needs_a_snapshot():
    with pytest.raises(UsageError, match="needs --snapshot"):
        open_source("replay")
