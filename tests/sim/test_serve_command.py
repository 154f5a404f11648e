"""`kopa-replay sim serve` as a real process: it binds, answers on loopback, and refuses bad options."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[2]


def _start(*args):
    return subprocess.Popen(
        [sys.executable, str(ROOT / "cli.py"), "sim", "serve", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def test_serve_answers_real_paths_under_the_host_segment():
    process = _start("--port", "0", "--seed", "0")
    try:
        line = process.stderr.readline()
        port = int(re.search(r"http://127\.0\.0\.1:(\d+)/", line).group(1))
        base = f"http://127.0.0.1:{port}"
        ok = httpx.get(
            f"{base}/apis.data.go.kr/1160100/service/GetStockSecuritiesInfoService/getStockPriceInfo",
            params={"serviceKey": "sim-key", "resultType": "json", "srtnCd": "069540", "basDt": "20260831"},
            timeout=10,
        )
        assert ok.json()["response"]["body"]["items"]["item"]["clpr"] == "1680"
        bad = httpx.get(
            f"{base}/apis.data.go.kr/1160100/service/GetStockSecuritiesInfoService/getStockPriceInfo",
            params={"serviceKey": "wrong", "resultType": "json"},
            timeout=10,
        )
        assert b"SERVICE_KEY_IS_NOT_REGISTERED_ERROR" in bad.content
        # Seoul's real base URL carries its port; a client rerouted with the host as written keeps it.
        seoul = "openapi.seoul.go.kr{}/sample/json/CardSubwayStatsNew/1/5/20260825"
        with_port, without = (httpx.get(f"{base}/{seoul.format(port)}", timeout=10) for port in (":8088", ""))
        assert with_port.status_code == 200 and with_port.json()["CardSubwayStatsNew"]["list_total_count"] > 5
        assert with_port.content == without.content
    finally:
        process.terminate()
        process.communicate(timeout=10)


def test_serve_with_a_bad_date_is_a_clean_error():
    process = _start("--as-of", "2026-02-30")
    _, err = process.communicate(timeout=30)
    assert process.returncode == 1
    assert err.strip().splitlines()[-1].startswith("Error: --as-of must be a date")
    assert "Traceback" not in err


def test_serve_takes_a_latency_and_refuses_a_negative_one():
    process = _start("--port", "0", "--latency", "20")
    try:
        line = process.stderr.readline()
        assert "20 ms latency" in line
        port = int(re.search(r"http://127\.0\.0\.1:(\d+)/", line).group(1))
        answer = httpx.get(
            f"http://127.0.0.1:{port}/opendart.fss.or.kr/api/company.json",
            params={"crtfc_key": "sim-key", "corp_code": "00439743"},
            timeout=10,
        )
        assert answer.json()["corp_name"] == "라이트론"
    finally:
        process.terminate()
        process.communicate(timeout=10)
    refused = _start("--latency", "-5")
    _, err = refused.communicate(timeout=30)
    assert refused.returncode == 2 and "Invalid value for '--latency'" in err
