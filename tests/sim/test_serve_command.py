"""`kopa-replay sim serve` as a real process: it binds, answers on loopback, and refuses bad options."""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
from pathlib import Path

import httpx
import pytest
from click.testing import CliRunner

from kopa_replay.cli import cli
from kopa_replay.errors import UsageError
from kopa_replay.sim import Simulator, make_server

ROOT = Path(__file__).resolve().parents[2]


def _start(*args, env=None):
    return subprocess.Popen(
        [sys.executable, str(ROOT / "cli.py"), "sim", "serve", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )


def test_serve_answers_real_paths_under_the_host_segment():
    # without KOPA_WORLD_SIZE (the suite sets it to the small world): the real platforms' sizes
    process = _start("--port", "0", "--seed", "0", env={k: v for k, v in os.environ.items() if k != "KOPA_WORLD_SIZE"})
    try:
        line = process.stderr.readline()
        assert "world full" in line
        port = int(re.search(r"http://127\.0\.0\.1:(\d+)/", line).group(1))
        base = f"http://127.0.0.1:{port}"
        ok = httpx.get(
            f"{base}/apis.data.go.kr/1160100/service/GetStockSecuritiesInfoService/getStockPriceInfo",
            params={"serviceKey": "sim-key", "resultType": "json", "srtnCd": "069540", "basDt": "20260831"},
            timeout=120,
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
    process = _start("--port", "0", "--latency", "20", "--world-size", "default")
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


def _serve_error(*args):
    """(exit code, the one Error: line) of ``sim serve`` refusing its options before it serves."""
    result = CliRunner().invoke(cli, ["sim", "serve", *args], catch_exceptions=False)
    lines = [line for line in result.output.splitlines() if line.startswith("Error:")]
    assert len(lines) == 1 and "Traceback" not in result.output, result.output
    return result.exit_code, lines[0]


def test_serve_refuses_a_port_out_of_range_as_usage():
    assert _serve_error("--port", "99999") == (
        2,
        "Error: Invalid value for '--port': 99999 is not in the range 0<=x<=65535.",
    )
    assert _serve_error("--port", "-1")[0] == 2


def test_serve_on_a_port_in_use_names_the_address():
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        assert _serve_error("--port", str(port)) == (
            1,
            f"Error: cannot listen on 127.0.0.1:{port}: Address already in use",
        )


def test_make_server_names_what_it_cannot_bind():
    for port in (99999, -1, True, "8765"):
        with pytest.raises(UsageError, match=r"port must be 0-65535 \(0: any free port\), not "):
            make_server(Simulator(seed=0), port=port)
    with pytest.raises(UsageError, match=r"cannot listen on 192\.0\.2\.1:0: Cannot assign requested address"):
        make_server(Simulator(seed=0), "192.0.2.1", 0)  # an address of no interface here (TEST-NET-1)
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        with pytest.raises(UsageError, match=f"cannot listen on 127.0.0.1:{port}: Address already in use"):
            make_server(Simulator(seed=0), port=port)
