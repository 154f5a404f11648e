"""One output flag on every command that prints a result; one exit-code table (the README's), row by row; what
``call``, ``showcase`` and ``refresh`` say about where their answers come from and go."""

from __future__ import annotations

import json
import re
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from kopa_replay.cli import cli
from kopa_replay.record.store import shipped_store_path

ROOT = Path(__file__).resolve().parents[1]
SHIPPED = str(shipped_store_path())
#: commands that print no result: an export with a schema of its own, one path, two servers
NO_RESULT = {"catalog export", "cassette path", "sim serve", "mcp serve"}
#: the commands that gate CI and also write JUnit
JUNIT = {"drift diff", "refresh", "bench drift", "graph reverify"}


@pytest.fixture
def run():
    runner = CliRunner()
    return lambda *args: runner.invoke(cli, list(args), catch_exceptions=False)


def _error_line(result) -> str:
    assert result.exit_code == 1, result.output
    lines = [line for line in result.output.splitlines() if line.startswith("Error:")]
    assert len(lines) == 1 and "Traceback" not in result.output, result.output
    return lines[0]


def _commands(group: click.Group, prefix: tuple[str, ...] = ()):
    for name, command in sorted(group.commands.items()):
        if isinstance(command, click.Group):
            yield from _commands(command, (*prefix, name))
        else:
            yield " ".join((*prefix, name)), command


# -- one output flag -----------------------------------------------------------------------------------------------
def test_every_command_that_prints_a_result_takes_format_and_json():
    for path, command in _commands(cli):
        params = {param.name: param for param in command.params}
        if path in NO_RESULT:
            assert "as_json" not in params, path
            continue
        fmt, alias = params.get("fmt"), params.get("as_json")
        assert fmt is not None and fmt.opts == ["--format"], path
        assert isinstance(fmt.type, click.Choice), path
        expected = ["text", "json", "markdown", *(["junit"] if path in JUNIT else [])]
        assert list(fmt.type.choices) == expected, path
        assert alias is not None and alias.opts == ["--json"] and alias.is_flag, path


def test_json_is_format_json_and_with_another_format_a_usage_error(run):
    args = ("catalog", "list", "--platform", "dart")
    as_json = run(*args, "--json")
    assert as_json.exit_code == 0 and json.loads(as_json.output)
    assert run(*args, "--format", "json").output == as_json.output == run(*args, "--json", "--format", "json").output
    both = run(*args, "--json", "--format", "markdown")
    assert both.exit_code == 2
    assert "Usage:" in both.output and "--json is --format json: it cannot go with --format markdown" in both.output


def test_markdown_without_a_report_of_its_own_is_the_json_result_as_a_document(run):
    tools = json.loads(run("catalog", "list", "--platform", "dart", "--json").output)
    lines = run("catalog", "list", "--platform", "dart", "--format", "markdown").output.splitlines()
    assert lines[0] == "# kopa-replay catalog list"
    header = lines.index("| name | platform | domain | title | generated |")
    assert lines[header + 1] == "|---|---|---|---|---|"
    rows = lines[header + 2 :]
    assert [row.split(" | ")[0].removeprefix("| ") for row in rows] == [tool["name"] for tool in tools]
    assert all(row.endswith(" | false |") for row in rows)  # the builtin DART tools are real ones
    # an object: a bullet per scalar, a heading per object or list
    stats = run("bench", "stats", "--format", "markdown").output
    assert stats.startswith("# kopa-replay bench stats\n") and "## by_domain" in stats


# -- exit codes: the README's table, row by row ----------------------------------------------------------------
EXIT_ROWS = {
    0: [
        ("catalog", "validate"),
        ("call", "dart_corp_code", "--arg", "corp_name=없는회사", "--snapshot", "2026-09-01", "--store", SHIPPED),
    ],
    1: [
        ("call", "no_such_tool"),
        ("call", "dart_cvbd_is_decsn", "--arg", "corp_code=00439743"),  # required bgn_de missing: nothing sent
        ("call", "law_search_law", "--arg", "query=x", "--snapshot", "2026-09-01", "--store", SHIPPED),  # a miss
        ("snapshot", "verify", "2026-09-01", "--store", SHIPPED, "--digest", "0" * 64),  # a check finds a mismatch
    ],
    2: [
        ("call", "dart_corp_code", "--no-such-option"),
        ("catalog", "list", "--json", "--format", "markdown"),
        ("bench", "run", "--task", "x"),  # --agent, a required option, left out
    ],
    3: [
        ("call", "seoul_card_subway_stats_new", "--source", "sim:default")
        + ("--arg", "USE_YMD=20260831", "--arg", "START=1", "--arg", "END=2000"),  # the platform's ERROR-336
    ],
}


def test_the_readme_table_has_one_row_per_exit_code_tested_here():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme[readme.index("## Command line") :]
    section = section[: section.index("\n## ", 1)]
    assert sorted(int(code) for code in re.findall(r"^\| (\d) \| ", section, flags=re.M)) == sorted(EXIT_ROWS)


@pytest.mark.parametrize("code", sorted(EXIT_ROWS))
def test_exit_code_row(run, code):
    for args in EXIT_ROWS[code]:
        result = run(*args)
        assert result.exit_code == code, (args, result.output)
        if code == 1:
            _error_line(result)
        elif code == 2:
            assert "Usage:" in result.output and "Traceback" not in result.output
        elif code == 3:  # the answer itself, on stdout
            assert "ERROR-336" in result.stdout and "Error:" not in result.output


# -- call: a refused argument, an empty answer, a miss ---------------------------------------------------------
@pytest.mark.parametrize(
    "tool, arg, named",
    [
        ("datagokr_get_stock_price_info", "srtnCd=abc", ("'srtnCd'", "pattern")),
        ("law_search_law", "display=abc", ("'display'", "must be an integer")),
        ("assembly_bill_search", "AGE=23", ("'AGE'", "must be one of ['21', '22']")),
        ("datagokr_get_stock_price_info", "numOfRows=5000", ("'numOfRows'", "at most 1000")),
        ("dart_cvbd_is_decsn", "corp_code=00439743", ("'bgn_de'", "missing required")),
        ("datagokr_get_stock_price_info", "ticker=1", ("'ticker'", "no parameter")),
    ],
)
def test_an_argument_the_tool_refuses_is_a_user_mistake_and_nothing_is_sent(run, no_network, tool, arg, named):
    result = run("call", tool, "--arg", arg, "--source", "live")  # live: a request would leave the machine
    line = _error_line(result)
    assert tool in line and all(part in line for part in named), line
    assert result.stdout == "" and no_network == []


def test_an_empty_answer_says_what_answered_and_why_nothing_came(run):
    replayed = run(
        "call", "dart_corp_code", "--arg", "corp_name=없는회사", "--snapshot", "2026-09-01", "--store", SHIPPED
    )
    assert replayed.exit_code == 0
    assert replayed.stdout.splitlines() == [
        "empty: dart_corp_code(corp_name=없는회사): no record of the list dart_corp_code reads matches "
        "corp_name=없는회사 (the tool filters that list by corp_name itself); replayed from snapshot 2026-09-01 "
        f"(store {SHIPPED})"
    ]
    args = ("--arg", "srtnCd=999999", "--arg", "basDt=20260831", "--source", "sim:default", "--seed", "3")
    simulated = run("call", "datagokr_get_stock_price_info", *args)
    assert simulated.exit_code == 0
    assert simulated.stdout.startswith(
        "empty: datagokr_get_stock_price_info(basDt=20260831, srtnCd=999999): the platform answered no record (code "
    )
    assert simulated.stdout.rstrip().endswith("; simulated (world default, seed 3, as of 2026-09-01)")
    assert json.loads(run("call", "datagokr_get_stock_price_info", *args, "--json").output)["outcome"] == "empty"


def test_a_call_the_snapshot_never_recorded_names_arguments_it_did(run):
    replay = ("--snapshot", "2026-09-01", "--store", SHIPPED)
    line = _error_line(
        run("call", "datagokr_get_stock_price_info", "--arg", "srtnCd=069540", "--arg", "basDt=20200101", *replay)
    )
    assert line.startswith(
        "Error: cassette miss: tool 'datagokr_get_stock_price_info': snapshot '2026-09-01' (store "
        f"{SHIPPED}) holds no answer for datagokr_get_stock_price_info(basDt=20200101, srtnCd=069540) (GET "
    )
    assert "2026-09-01 is sealed" in line and "--mode replay-or-record --store MINE.sqlite" in line
    suggested = re.search(
        r"answers of datagokr_get_stock_price_info, e\.g\. for datagokr_get_stock_price_info\(([^)]*)\)", line
    )
    assert suggested and "srtnCd=069540" in suggested.group(1)  # the nearest: the same stock, another date
    again = run(
        "call", "datagokr_get_stock_price_info", *(f"--arg={a}" for a in suggested.group(1).split(", ")), *replay
    )
    assert again.exit_code == 0, again.output  # the arguments it names are recorded indeed


def test_a_tool_a_snapshot_never_recorded_and_one_the_catalog_lacks(run, tmp_path):
    from kopa_replay.record import Store

    store = tmp_path / "open.sqlite"
    with Store(store) as opened:
        opened.ensure_snapshot("open")
    line = _error_line(
        run("call", "dart_company", "--arg", "corp_code=00126380", "--snapshot", "open", "--store", str(store))
    )
    assert "holds no answer of dart_company at all" in line
    assert line.endswith("or record it into this open snapshot with --mode replay-or-record")
    unknown = _error_line(run("call", "dart_companyy", "--snapshot", "open", "--store", str(store)))
    assert "no tool named 'dart_companyy'" in unknown and "dart_company" in unknown


def test_recording_a_call_never_writes_the_shipped_store_unless_named(run, monkeypatch, tmp_path):
    monkeypatch.delenv("KOPA_STORE", raising=False)
    monkeypatch.chdir(tmp_path)  # no ./cassettes: the default store is the shipped one
    before = shipped_store_path().read_bytes()
    line = _error_line(
        run("call", "law_search_law", "--arg", "query=x", "--snapshot", "s", "--mode", "replay-or-record")
    )
    assert "call --mode replay-or-record would write into the shipped store" in line
    assert shipped_store_path().read_bytes() == before


# -- showcase: what answered ------------------------------------------------------------------------------------
def test_showcase_says_whether_it_replayed_or_simulated(run):
    replayed = run("showcase", "--snapshot", "2026-09-01", "--store", SHIPPED, "--json")
    assert replayed.exit_code == 0, replayed.output
    assert json.loads(replayed.output)["source"] == {
        "answered_by": "replay",
        "snapshot": "2026-09-01",
        "store": SHIPPED,
        "pinned": True,
    }
    text = run("showcase", "--snapshot", "2026-09-01", "--store", SHIPPED).output.splitlines()
    assert text[0] == f"source: replayed from snapshot 2026-09-01 (store {SHIPPED})"
    simulated = run("showcase", "--source", "sim:default", "--seed", "0", "--as-of", "2026-09-01")
    assert simulated.output.splitlines()[0] == "source: simulated (world default, seed 0, as of 2026-09-01)"
    assert "215.789%" in simulated.output


# -- refresh: where the manifest goes, said first ----------------------------------------------------------------
@pytest.mark.parametrize("where", ["s.sqlite", "cassettes/kopa.sqlite"])
def test_refresh_says_where_the_manifest_goes_before_any_work(run, monkeypatch, tmp_path, where):
    from kopa_replay.errors import UsageError
    from kopa_replay.stages import record as record_stage

    def working(config, progress=None):  # the stage's first work, then a stop (the note is what is tested)
        progress("re-executing", 1, 10)
        click.echo("working", err=True)
        raise UsageError("stopped")

    monkeypatch.setattr(record_stage, "refresh", working)
    result = run("refresh", "--base", "2026-09-01", "--snapshot", "new", "--store", str(tmp_path / where))
    manifest = tmp_path / "snapshots" / "new.json"  # beside the store, or beside its cassettes/ folder
    assert result.stderr.splitlines() == [
        f"note: new is sealed when done, its manifest written to {manifest} (where pinned replays look for it: "
        "snapshots/ beside the store, or beside its cassettes/ folder)",
        "working",
        "Error: stopped",
    ]

    def refused(config, progress=None):  # a setting the stage refuses before any work: that one line only
        raise UsageError("refused")

    monkeypatch.setattr(record_stage, "refresh", refused)
    result = run("refresh", "--base", "2026-09-01", "--snapshot", "new", "--store", str(tmp_path / where))
    assert result.output == "Error: refused\n"


def test_a_mirror_is_named_without_the_user_password_or_query_its_url_may_carry():
    """What answered is printed (call, showcase); a key in the mirror's URL never is."""
    from kopa_replay.stages.showcase import answered_by, describe_answered_by

    info = answered_by({"source": "https://me:hunter2@mirror.example:8443/base?serviceKey=K3Y#frag"})
    assert info == {"answered_by": "mirror", "url": "https://mirror.example:8443/base"}
    said = describe_answered_by(info)
    assert "mirror.example:8443/base" in said and not any(s in said for s in ("hunter2", "K3Y", "me:", "frag"))
