"""Progress: stages report it through a hook; the command line draws bars on a terminal only, and -q silences them."""

from __future__ import annotations

import os
import pty
import subprocess
import sys

from click.testing import CliRunner

from kopa_replay.cli import cli
from kopa_replay.stages.workflows import record_snapshot, refresh_snapshot


def test_record_and_refresh_report_every_request_up_to_the_total(tmp_path, catalog):
    heard: list[tuple[str, int, int | None]] = []
    store = tmp_path / "s.sqlite"
    summary = record_snapshot(
        catalog, store_path=store, snapshot="a", as_of="2026-09-01", progress=lambda *args: heard.append(args)
    )
    done = [d for what, d, _ in heard if what == "recording"]
    assert done == sorted(done) and done[-1] == heard[-1][2] == summary.calls
    heard.clear()
    again = refresh_snapshot(
        catalog, store_path=store, base="a", snapshot="b", as_of="2026-12-01", progress=lambda *args: heard.append(args)
    )
    assert [d for _, d, _ in heard] == list(range(1, again.calls + 1)) and heard[-1][2] == again.calls


def _stderr_on_a_terminal(*args: str, cwd) -> str:
    """Run the CLI with its stderr on a pseudo-terminal; what it drew there."""
    master, slave = pty.openpty()
    try:
        process = subprocess.Popen(
            [sys.executable, "-m", "kopa_replay", *args],
            cwd=cwd,
            stdout=subprocess.DEVNULL,
            stderr=slave,
            env={**os.environ, "COLUMNS": "100"},
        )
        os.close(slave)
        chunks = []
        while True:
            try:
                chunk = os.read(master, 65536)
            except OSError:  # the child closed the terminal
                break
            if not chunk:
                break
            chunks.append(chunk)
        assert process.wait(timeout=300) == 0, b"".join(chunks).decode(errors="replace")
        return b"".join(chunks).decode(errors="replace")
    finally:
        os.close(master)


def test_bars_on_a_terminal_none_when_quiet_or_piped(tmp_path):
    record = ["record", "--snapshot", "s", "--as-of", "2026-09-01", "--no-bench"]
    drawn = _stderr_on_a_terminal(*record, "--store", str(tmp_path / "a.sqlite"), cwd=tmp_path)
    assert "recording" in drawn and "━" in drawn
    quiet = _stderr_on_a_terminal("-q", *record, "--store", str(tmp_path / "b.sqlite"), cwd=tmp_path)
    assert "recording" not in quiet
    piped = CliRunner().invoke(cli, [*record, "--store", str(tmp_path / "c.sqlite")])
    assert piped.exit_code == 0 and "recording" not in piped.output and "━" not in piped.output
