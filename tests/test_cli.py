"""The command line: every command's happy path and its user-mistake path (one ``Error:`` line, exit 1)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from kopa_replay.cli import cli

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def run():
    runner = CliRunner()

    def _run(*args):
        return runner.invoke(cli, list(args), catch_exceptions=False)

    return _run


def _error_line(result):
    lines = [line for line in result.output.splitlines() if line.startswith("Error:")]
    assert len(lines) == 1, result.output
    assert "Traceback" not in result.output
    return lines[0]


def test_catalog_validate_passes_on_the_builtin_catalog(run):
    result = run("catalog", "validate")
    assert result.exit_code == 0, result.output
    match = re.search(r"built-in catalog, (\d+) tools on (\d+) platforms", result.output)
    assert match and int(match.group(1)) >= 80 and int(match.group(2)) == 10


def test_catalog_validate_fails_clearly_on_a_broken_file(run, tmp_path):
    path = tmp_path / "broken.yaml"
    path.write_text(
        "platform: {id: x, base_url: 'https://x.example'}\ntools:\n  - name: x_ping\n    title: ping\n"
        "    description: {ko: 핑}\n    output: {a: b}\n    http: {path: /ping, envelope: {records: .},"
        " result_codes: {'0': ok}}\n",
        encoding="utf-8",
    )
    result = run("catalog", "validate", str(path))
    assert result.exit_code == 1
    line = _error_line(result)
    assert str(path) in line and "tool 'x_ping'" in line and "field 'description.en'" in line


def test_catalog_validate_refuses_a_misspelt_key_naming_the_nearest_one(run, tmp_path):
    path = tmp_path / "dart.yaml"
    path.write_text(
        "platform: {id: dart, base_url: 'https://opendart.fss.or.kr', result_codes: {'000': ok},"
        " pagnation: {style: page, page_param: page_no, size_param: page_count}}\n"
        "tools:\n  - name: dart_ping\n    title: ping\n    description: {ko: 핑, en: ping}\n    output: {a: b}\n"
        "    http: {path: /ping, envelope: {records: .}}\n",
        encoding="utf-8",
    )
    result = run("catalog", "validate", str(path))
    assert result.exit_code == 1
    assert _error_line(result) == (
        f"Error: file {path}, platform 'dart', field 'pagnation': unknown key (did you mean 'pagination'?)"
    )


def test_catalog_validate_on_a_missing_file(run, tmp_path):
    result = run("catalog", "validate", str(tmp_path / "nope.yaml"))
    assert result.exit_code == 1
    assert "file not found" in _error_line(result)


def test_catalog_list_and_show(run):
    result = run("catalog", "list", "--json")
    assert result.exit_code == 0
    tools = json.loads(result.output)
    assert len({t["platform"] for t in tools}) == 10
    assert len({t["domain"] for t in tools}) == 6
    shown = json.loads(run("catalog", "show", "dart_cvbd_is_decsn").output)
    assert shown["http"]["base_url"] == "https://opendart.fss.or.kr"
    assert "corp_code" in shown["inputSchema"]["required"]


def _display_width(text: str) -> int:
    """Terminal columns: a wide (Hangul, CJK) character takes two — written here, not taken from rich."""
    import unicodedata

    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


def test_tables_align_hangul_by_display_width(run):
    result = run("catalog", "list", "--platform", "dart")
    lines = result.output.splitlines()[:-1]  # the last line is the summary
    tools = {t["name"]: t for t in json.loads(run("catalog", "list", "--platform", "dart", "--json").output)}
    starts = set()
    for line in lines[1:]:
        name = line.split()[0]
        assert any("\uac00" <= ch <= "\ud7a3" for ch in tools[name]["title"]), name  # a Hangul title
        at = line.index(f"  {tools[name]['platform']}  ") + 2  # where the platform column starts
        starts.add(_display_width(line[:at]))
    assert len(lines) > 5 and len(starts) == 1, starts
    assert _display_width(lines[0][: lines[0].index("platform")]) in starts
    for line in lines:
        assert line == line.rstrip()


def test_unknown_tool_and_platform_are_named(run):
    result = run("catalog", "show", "dart_cvbd_is_decsm")
    assert result.exit_code == 1
    assert "no tool named 'dart_cvbd_is_decsm'" in _error_line(result)
    assert "dart_cvbd_is_decsn" in _error_line(result)
    result = run("catalog", "list", "--platform", "nasdaq")
    assert result.exit_code == 1 and "no platform 'nasdaq'" in _error_line(result)


@pytest.mark.parametrize("fmt, key", [("mcp", "inputSchema"), ("openai", "function")])
def test_catalog_export(run, fmt, key, tmp_path):
    result = run("catalog", "export", "--format", fmt, "--tools", "krx_*")
    assert result.exit_code == 0
    exported = json.loads(result.output)
    assert exported and all(key in entry for entry in exported)
    out = tmp_path / "tools.json"
    assert run("catalog", "export", "--format", fmt, "-o", str(out)).exit_code == 0
    assert len(json.loads(out.read_text(encoding="utf-8"))) >= 80
    result = run("catalog", "export", "--format", fmt, "--tools", "zzz_*")
    assert result.exit_code == 1 and "no tool matches" in _error_line(result)


def test_call_prints_parsed_records(run):
    result = run("call", "datagokr_get_stock_price_info", "--arg", "srtnCd=069540", "--arg", "basDt=20260831", "--json")
    assert result.exit_code == 0, result.output
    answer = json.loads(result.output)
    assert answer["outcome"] == "ok"
    assert answer["records"][0]["clpr"] == "1680"


def test_call_user_mistakes(run):
    result = run("call", "datagokr_get_stock_price_info", "--arg", "srtnCd")
    assert result.exit_code == 1 and "NAME=VALUE" in _error_line(result)
    result = run("call", "datagokr_get_stock_price_info", "--arg", "ticker=1")
    assert result.exit_code == 1 and "has no parameter 'ticker'" in _error_line(result)
    result = run("call", "datagokr_get_stock_price_info", "--arg", "numOfRows=ten")
    assert result.exit_code == 1 and "must be an integer" in _error_line(result)
    result = run("call", "datagokr_get_stock_price_info", "--source", "ftp://x")
    assert result.exit_code == 1 and "unknown source" in _error_line(result)
    result = run("call", "datagokr_get_stock_price_info", "--as-of", "yesterday")
    assert result.exit_code == 1 and "--as-of" in _error_line(result)


def test_drift_events_json(run):
    result = run("sim", "drift-events", "--since", "2026-09-01", "--until", "2026-12-01", "--json")
    events = json.loads(result.output)
    assert len(events) >= 8 and len({e["platform"] for e in events}) >= 5
    assert set(events[0]) >= {"date", "platform", "tool", "field", "kind"}
    assert [e["date"] for e in events] == sorted(e["date"] for e in events)


def _commands(group: click.Group, prefix: tuple[str, ...] = ()):
    for name, command in sorted(group.commands.items()):
        path = prefix + (name,)
        if isinstance(command, click.Group):
            yield from _commands(command, path)
        else:
            yield " ".join(path), command


def test_every_command_has_help_with_an_example_and_is_in_the_readme():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    for path, command in _commands(cli):
        assert command.help and "Example:" in command.help, path
        assert f"kopa-replay {path}" in readme, f"README lacks 'kopa-replay {path}'"


def test_showcase_walks_the_lightron_chain(run):
    result = run("showcase", "--json")
    assert result.exit_code == 0, result.output
    answer = json.loads(result.output)
    assert [s["tool"] for s in answer["steps"]] == [
        "dart_corp_code",
        "dart_cvbd_is_decsn",
        "datagokr_get_stock_price_info",
    ]
    assert answer["floor_price"] == 532 and answer["prior_close"] == 1680
    assert abs(answer["premium_pct"] - (1680 - 532) / 532 * 100) < 1e-6
    assert run("showcase", "--json").output == result.output
    text = run("showcase").output
    assert "215.789%" in text


def test_showcase_over_a_mirror_url(run, server_url):
    result = run("showcase", "--json", "--source", server_url)
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["prior_close"] == 1680


def test_showcase_against_a_mirror_that_refuses_the_key_is_a_clean_error(run):
    from kopa_replay.sim import Simulator, running_server

    with running_server(Simulator(seed=0, api_key="another-key")) as url:
        result = run("showcase", "--source", url)
    assert result.exit_code == 3  # the platform answered an error: as a call's, not a user mistake
    line = _error_line(result)
    assert "dart_corp_code" in line and "environmental_error" in line
    assert "sim-key" not in result.output


def test_mcp_serve_with_no_matching_tool_is_a_clean_error(run):
    result = run("mcp", "serve", "--tools", "zzz_*")
    assert result.exit_code == 1
    assert "no tool matches 'zzz_*'" in _error_line(result)


def test_call_sends_one_host_to_a_mirror(run, server_url, monkeypatch):
    from kopa_replay.sim import accepted_key

    monkeypatch.setenv("KOPA_API_KEY", accepted_key())
    result = run(
        "call",
        "dart_corp_code",
        "--arg",
        "corp_name=라이트론",
        "--source",
        "live",
        "--json",
        "--base-url",
        f"opendart.fss.or.kr={server_url}",
    )
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["records"][0]["corp_name"] == "라이트론"
    assert "HOST=URL" in _error_line(
        run("call", "dart_corp_code", "--arg", "corp_name=x", "--source", "live", "--base-url", "nonsense")
    )


def test_call_refuses_a_base_url_for_a_host_the_catalog_lacks_or_a_source_that_sends_nothing(run, no_network):
    mirror = "opendart.fss.or.k=http://127.0.0.1:9"
    args = ("call", "dart_corp_code", "--arg", "corp_name=x")
    result = run(*args, "--source", "live", "--base-url", mirror)
    assert result.exit_code == 1
    assert _error_line(result) == (
        "Error: --base-url names host 'opendart.fss.or.k', which no tool of the catalog calls (did you mean "
        "'opendart.fss.or.kr'?); the catalog's hosts: apis.data.go.kr, data-dbg.krx.co.kr, open.assembly.go.kr, "
        "open.neis.go.kr, openapi.gg.go.kr, openapi.seoul.go.kr, opendart.fss.or.kr, swopenapi.seoul.go.kr, ws.bus.go.kr, www.law.go.kr, "
        "or '*' for every host"
    )
    result = run(*args, "--base-url", "opendart.fss.or.kr=http://127.0.0.1:9")  # --source sim, the default
    assert result.exit_code == 1
    assert _error_line(result) == (
        "Error: --base-url (opendart.fss.or.kr) needs --source live or a mirror's URL: source 'sim' answers every "
        "call in-process, so no request would reach the mirror"
    )
    assert no_network == []


def test_record_refuses_a_base_url_with_source_sim(run, tmp_path):
    store = tmp_path / "n.sqlite"
    result = run("record", "--snapshot", "x", "--store", str(store), "--base-url", "opendart.fss.or.kr=http://x:1")
    assert result.exit_code == 1
    assert "--base-url (opendart.fss.or.kr) needs --source live or a mirror's URL: source 'sim'" in _error_line(result)


def test_an_argument_that_is_not_utf8_is_refused_naming_it():
    # argv bytes that are not UTF-8 reach Python surrogate-escaped; sent on, they would fail as a request is encoded
    done = subprocess.run(
        [sys.executable, str(ROOT / "cli.py"), "call", "law_search_law", "--arg", b"query=\xff"],
        capture_output=True,
        timeout=120,
    )
    assert done.returncode == 1, done.stderr
    assert done.stderr.decode().strip().splitlines() == [
        "Error: --arg query: the value is not UTF-8 text (b'\\xff'); give arguments in UTF-8"
    ]


def test_an_argument_name_that_is_not_utf8_is_refused(run):
    result = run("call", "law_search_law", "--arg", "qu\udcffery=x")  # what Python makes of argv b"qu\xffery=x"
    assert result.exit_code == 1
    assert _error_line(result) == "Error: --arg takes NAME=VALUE in UTF-8 text, not b'qu\\xffery=x'"
    result = run("call", "law_search_law", "--arg", "query=\udcff\udcfe", "--source", "replay")
    assert (
        _error_line(result)
        == "Error: --arg query: the value is not UTF-8 text (b'\\xff\\xfe'); give arguments in UTF-8"
    )


def test_exit_codes_are_the_documented_ones(run):
    answered_error = run(
        "call", "seoul_card_subway_stats_new", "--arg", "USE_YMD=20260831", "--arg", "START=1", "--arg", "END=2000"
    )
    assert answered_error.exit_code == 3 and "ERROR-336" in answered_error.output
    assert run("call", "no_such_tool").exit_code == 1  # a user mistake: one Error: line
    assert run("call", "seoul_card_subway_stats_new", "--no-such-option").exit_code == 2  # usage, caught by click
    assert run("drift", "diff", "a", "b", "--format", "yaml").exit_code == 2


def test_cassette_path_names_the_shipped_store_in_the_package(run, tmp_path, monkeypatch):
    import kopa_replay

    shipped = run("cassette", "path", "--shipped")
    assert shipped.exit_code == 0
    path = Path(shipped.output.strip())
    assert path.is_file() and path.is_relative_to(Path(kopa_replay.__file__).parent)
    monkeypatch.delenv("KOPA_STORE", raising=False)
    monkeypatch.chdir(tmp_path)  # a project without ./cassettes: the shipped one
    assert run("cassette", "path").output.strip() == str(path)
    (tmp_path / "cassettes").mkdir()
    (tmp_path / "cassettes" / "kopa.sqlite").write_bytes(b"")  # its own store once it has one
    assert run("cassette", "path").output.strip() == str(Path("cassettes") / "kopa.sqlite")


def test_a_project_store_replays_its_own_snapshots_and_falls_back_to_the_shipped_one(run, tmp_path, monkeypatch):
    monkeypatch.delenv("KOPA_STORE", raising=False)
    monkeypatch.chdir(tmp_path)
    own = run("record", "--snapshot", "mine", "--as-of", "2026-09-01", "--no-bench", "--store", "cassettes/kopa.sqlite")
    assert own.exit_code == 0, own.output
    shipped = run("showcase", "--snapshot", "2026-09-01", "--json")  # not in ./cassettes: the shipped one
    assert shipped.exit_code == 0, shipped.output
    assert json.loads(shipped.output)["prior_close"] == 1680
    mine = run("call", "dart_corp_code", "--arg", "corp_name=라이트론", "--snapshot", "mine", "--json")
    assert mine.exit_code == 0, mine.output
    missing = run("call", "dart_corp_code", "--arg", "corp_name=라이트론", "--snapshot", "nowhere")
    assert missing.exit_code == 1 and "nowhere" in _error_line(missing) and "cassettes/kopa.sqlite" in missing.output


def test_a_package_re_export_stays_the_function_when_its_submodule_loads():
    """bench re-exports ``grade`` (a function in bench/grade.py) without importing it up front."""
    import subprocess
    import sys

    code = (
        "import kopa_replay.bench.report, kopa_replay.graph.prune\n"  # both load the submodules first
        "from kopa_replay.bench import audit, grade, report\nfrom kopa_replay.graph import prune\n"
        "print(all(callable(f) and f.__name__ == n for f, n in "
        "((audit, 'audit'), (grade, 'grade'), (report, 'report'), (prune, 'prune'))))"
    )
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True).stdout.strip() == "True"
