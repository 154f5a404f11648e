"""The recorder's commands end to end on a temporary store: record, snapshot, cassette, drift, refresh, replay."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from kopa_replay.cli import cli
from kopa_replay.record import Store


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    path = tmp_path_factory.mktemp("cli") / "cassettes" / "kopa.sqlite"
    runner = CliRunner()
    result = runner.invoke(
        cli,
        ["record", "--source", "sim", "--snapshot", "2026-09-01", "--store", str(path), "--json"],
        catch_exceptions=False,
    )
    assert result.exit_code == 0, result.output
    result = runner.invoke(
        cli,
        [
            "refresh",
            "--base",
            "2026-09-01",
            "--snapshot",
            "2026-12-01",
            "--source",
            "sim",
            "--store",
            str(path),
            "--format",
            "json",
        ],
        catch_exceptions=False,
    )
    assert result.exit_code == 0, result.output
    return path


@pytest.fixture
def run():
    runner = CliRunner()
    return lambda *args: runner.invoke(cli, list(args), catch_exceptions=False)


def _error(result):
    lines = [line for line in result.output.splitlines() if line.startswith("Error:")]
    assert result.exit_code == 1 and len(lines) == 1 and "Traceback" not in result.output, result.output
    return lines[0]


def test_snapshot_list_show_verify(store, run):
    listed = json.loads(run("snapshot", "list", "--store", str(store), "--json").output)
    assert [s["name"] for s in listed] == ["2026-09-01", "2026-12-01"]
    assert all(s["sealed"] for s in listed)
    shown = json.loads(run("snapshot", "show", "2026-09-01", "--store", str(store)).output)
    assert shown["as_of"] == "2026-09-01" and len(shown["digest"]) == 64
    assert run("snapshot", "verify", "2026-12-01", "--store", str(store)).exit_code == 0
    assert "no snapshot '2027-01-01'" in _error(run("snapshot", "verify", "2027-01-01", "--store", str(store)))


def test_cassette_stats_and_verify(store, run):
    stats = json.loads(run("cassette", "stats", "--store", str(store), "--json").output)
    assert set(stats["snapshots"]) == {"2026-09-01", "2026-12-01"}
    assert stats["blobs"] <= stats["interactions"]
    assert run("cassette", "verify", "--store", str(store)).exit_code == 0


def test_drift_diff_reports_breaking_changes_and_gates_ci(store, run):
    result = run("drift", "diff", "2026-09-01", "2026-12-01", "--store", str(store), "--format", "json")
    assert result.exit_code == 0
    assert (
        run("drift", "diff", "2026-09-01", "2026-12-01", "--store", str(store), "--fail-on", "breaking").exit_code == 1
    )
    same = run("drift", "diff", "2026-09-01", "2026-09-01", "--store", str(store), "--fail-on", "warning")
    assert same.exit_code == 0


def test_replay_from_the_cli_is_offline_and_misses_are_clean(store, run, no_network):
    result = run(
        "call",
        "dart_cvbd_is_decsn",
        "--arg",
        "corp_code=00439743",
        "--arg",
        "bgn_de=20260101",
        "--arg",
        "end_de=20260131",
        "--snapshot",
        "2026-09-01",
        "--store",
        str(store),
        "--json",
    )
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["records"][0]["act_mktprcfl_cvprc_lwtrsprc"] == "532"
    miss = run("call", "dart_company", "--arg", "corp_code=12345678", "--snapshot", "2026-09-01", "--store", str(store))
    assert "cassette miss: tool 'dart_company'" in _error(miss)
    showcase = run("showcase", "--snapshot", "2026-09-01", "--store", str(store), "--json")
    assert json.loads(showcase.output)["prior_close"] == 1680


def test_recording_into_the_shipped_store_needs_naming_it(run, tmp_path, monkeypatch):
    from kopa_replay.record.store import shipped_store_path

    before = shipped_store_path().read_bytes()
    monkeypatch.delenv("KOPA_STORE", raising=False)
    for where in (tmp_path, shipped_store_path().parents[1]):  # no ./cassettes; the checkout's own
        monkeypatch.chdir(where)
        for args in (
            ["refresh", "--base", "2026-09-01", "--snapshot", "2026-12-01", "--no-bench"],
            ["record", "--snapshot", "extra", "--no-bench"],
        ):
            message = _error(run(*args))
            assert "would write into the shipped store" in message and "--store" in message
    assert shipped_store_path().read_bytes() == before


def test_recorder_user_mistakes(store, run, tmp_path):
    assert "sealed" in _error(run("record", "--snapshot", "2026-09-01", "--seed", "3", "--store", str(store)))
    assert "must differ" in _error(
        run("refresh", "--base", "2026-09-01", "--snapshot", "2026-09-01", "--store", str(store))
    )
    assert "HOST=URL" in _error(
        run("record", "--snapshot", "x", "--store", str(tmp_path / "n.sqlite"), "--base-url", "nonsense")
    )
    bad = tmp_path / "bad.sqlite"
    bad.write_text("hello " * 200)
    assert "not a SQLite cassette store" in _error(run("cassette", "stats", "--store", str(bad)))
    assert "does not exist" in _error(run("snapshot", "list", "--store", str(tmp_path / "missing.sqlite")))


def test_import_vcr_from_the_cli(tmp_path, run):
    import yaml

    cassette = tmp_path / "legacy.yaml"
    cassette.write_text(
        yaml.safe_dump(
            {
                "version": 1,
                "interactions": [
                    {
                        "request": {
                            "method": "GET",
                            "uri": "https://data-dbg.krx.co.kr/svc/apis/sto/stk_bydd_trd?basDd=20260831",
                            "body": None,
                            "headers": {"AUTH_KEY": ["legacy-secret-key"]},
                        },
                        "response": {
                            "status": {"code": 200, "message": "OK"},
                            "headers": {"Content-Type": ["application/json"]},
                            "body": {"string": '{"OutBlock_1": []}'},
                        },
                    }
                ],
            }
        ),
        encoding="utf-8",
    )
    store = tmp_path / "v.sqlite"
    result = run("cassette", "import-vcr", str(cassette), "--snapshot", "legacy", "--store", str(store))
    assert result.exit_code == 0, result.output
    assert "imported 1 interactions" in result.output
    again = run("cassette", "import-vcr", str(cassette), "--snapshot", "legacy", "--store", str(store))
    assert again.exit_code == 0 and "imported 0 interactions" in again.output and "before" in again.output
    assert b"legacy-secret-key" not in store.read_bytes()
    broken = tmp_path / "broken.yaml"
    broken.write_text("interactions: [", encoding="utf-8")
    assert "broken.yaml" in _error(run("cassette", "import-vcr", str(broken), "--snapshot", "x", "--store", str(store)))


def test_recording_a_sealed_snapshot_again_replays_it_and_refuses_what_it_lacks(store, run, tmp_path, no_network):
    """The same record command on the snapshot it sealed succeeds from the store alone; one that needs a request the
    snapshot lacks (here: the benchmark's calls on a snapshot sealed with only the probe calls) is refused."""
    again = run("record", "--snapshot", "2026-09-01", "--store", str(store), "--json")
    assert again.exit_code == 0, again.output
    assert json.loads(again.output)["digest"] == Store(store, readonly=True).snapshot("2026-09-01").digest
    small = tmp_path / "small.sqlite"
    assert run("record", "--snapshot", "p", "--as-of", "2026-09-01", "--no-bench", "--store", str(small)).exit_code == 0
    lacking = _error(run("record", "--snapshot", "p", "--as-of", "2026-09-01", "--bench", "--store", str(small)))
    assert "is sealed and lacks a request" in lacking and "record into a new snapshot name" in lacking
    assert no_network == []


def test_sealing_an_unfinished_recording_needs_force(tmp_path, run):
    store = tmp_path / "u.sqlite"
    assert (
        run(
            "record", "--snapshot", "u", "--as-of", "2026-09-01", "--no-bench", "--no-seal", "--store", str(store)
        ).exit_code
        == 0
    )
    Store(store).begin_recording("u")  # as a killed recorder leaves it
    listed = run("snapshot", "list", "--store", str(store))
    assert "unfinished" in listed.output
    refused = _error(run("snapshot", "seal", "u", "--store", str(store)))
    assert "recording did not finish" in refused and "--force" in refused
    assert not Store(store, readonly=True).snapshot("u").sealed
    forced = run("snapshot", "seal", "u", "--force", "--store", str(store))
    assert forced.exit_code == 0 and Store(store, readonly=True).snapshot("u").sealed


def test_record_says_where_it_wrote_the_manifest(run, tmp_path):
    store = tmp_path / "elsewhere" / "mine.sqlite"
    result = run("record", "--snapshot", "m", "--as-of", "2026-09-01", "--no-bench", "--store", str(store))
    assert result.exit_code == 0, result.output
    manifest = tmp_path / "elsewhere" / "snapshots" / "m.json"
    assert f"manifest {manifest}" in result.output and manifest.exists()
