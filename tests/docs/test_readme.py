"""The README's examples, run as written: every fenced ```python and ```bash block of README.md.

:data:`BLOCKS` is the table. Each block is keyed by its first line and says how it is checked; a block the table
does not know, or a row whose block is gone, fails :func:`test_every_block_is_in_the_table`.

A block that runs runs in a fresh temporary project (an empty working directory), with the virtual environment's
console scripts first on ``PATH``, ``HF_HUB_OFFLINE=1``, every proxy variable pointing at a closed local port (a
request for the internet fails; ``127.0.0.1`` is exempt: the simulator a block serves) and no ``KOPA_*`` setting of
the suite's (the simulator's world is the full-size one, as a user has it) except where a row substitutes one —
each substitution written in the row with why. Shell blocks run line by line (continuations joined), each line's
exit status as the README gives it (``# exit 1``) or 0.

Where a block cannot run here (it needs a GPU, the internet, a fresh virtual environment, or minutes of CPU), the
row says why, and every command line in it is still checked (:func:`test_every_command_line_holds`, for every
block): each ``kopa-replay …`` command is parsed by the real click command line without running it (a renamed
option, an unknown command or a wrong value fails), and other commands name only files, extras and models that
exist.
"""

from __future__ import annotations

import os
import re
import shutil
import socket
import subprocess
import sys
import time
import tomllib
from collections.abc import Iterator, Mapping
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import click
import pytest
from readme_blocks import Block, Command, commands, expected_exit, read_blocks, shell_lines

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
VENV_BIN = Path(sys.executable).parent
#: the small world for the simulator a block serves or runs stages on: same answers for what the blocks ask,
#: seconds instead of tens of seconds (the full world builds each platform at its real size)
SMALL_WORLD = {"KOPA_WORLD_SIZE": "default"}
PORT = "8765"  # the port the README's examples serve the simulator on


@dataclass(frozen=True)
class Row:
    """How one block is checked.

    ``run``: ``pytest`` (written to ``test_premium.py``, run with ``python -m pytest``), ``python`` (written to
    ``example.py``, run with ``python``), ``vcr`` (the vcrpy example, see :func:`_run_vcr`), ``shell`` (line by
    line), or None (its command lines are checked, nothing runs). ``why``: why it runs so, or not at all.
    ``env``: substitutions in the environment, ``port``: the README's port 8765 replaced by a free one — each
    explained in ``why``. ``parse_only``: lines of a shell block that are checked but not run (by how they start)
    and why. ``shows``: what a line's output must contain (by how the line starts), the README's claim about it.
    """

    id: str
    run: str | None
    why: str
    env: Mapping[str, str] = field(default_factory=dict)
    port: bool = False
    parse_only: Mapping[str, str] = field(default_factory=dict)
    shows: Mapping[str, str] = field(default_factory=dict)


BLOCKS: dict[str, Row] = {
    "python3 -m venv .venv && . .venv/bin/activate && pip install -e . && kopa-replay pipeline run --snapshot "
    "2026-09-01": Row(
        "first-commands",
        None,
        "both make a fresh virtual environment and install into it (the network, minutes); `pipeline run` on the "
        "shipped snapshot 2026-09-01 (the whole pipeline: minutes) is run in an empty folder (as `python -m kopa_replay "
        "pipeline run`) by tests/stages/test_pipeline_run.py; the second line is what .ci/run runs "
        "(test_the_second_command_is_what_ci_runs)",
    ),
    "import pytest": Row(
        "pytest-plugin",
        "pytest",
        "as written: the file alone in a new project, `python -m pytest` there (the plugin by its pytest11 entry "
        "point, the shipped store by default)",
    ),
    "import requests": Row(
        "vcrpy",
        "vcr",
        "run twice, as the text says: with `kopa-replay sim serve --port 8765` up (it records), then with it stopped "
        "(it replays). Substituted: the port, 8765 → a free one (two runs of the suite on one machine, or anything "
        "already on 8765, must not collide); the server on the small world (KOPA_WORLD_SIZE=default: the same answer, "
        "1680, in 1 s instead of 6)",
        env=SMALL_WORLD,
        port=True,
    ),
    "rm -rf /tmp/drift; S=/tmp/drift/cassettes/kopa.sqlite": Row(
        "drift-workflow",
        None,
        "`refresh` of every tool of the full-size snapshot (≈ 46 s), `graph prune` 20 × 200 (≈ 44 s) and `graph "
        "reverify` are past this module's budget, and it writes /tmp/drift, one folder for every run on the machine; "
        "the same refresh, drift report, bench drift and incremental refresh on the shipped snapshot are tested by "
        "tests/drift/test_timeline_drift.py, `graph reverify` by tests/graph/test_reverify.py",
    ),
    "kopa-replay record --source sim --seed 0 --as-of 2026-09-01 --snapshot 2026-09-01 --store /tmp/again.sqlite": Row(
        "re-record-shipped",
        None,
        "re-records the shipped snapshot on the full-size world: ≈ 1 min and 1.9 GB; "
        "tests/record/test_shipped.py records the same workload and checks the digest",
    ),
    "from kopa_replay.stages import bench_run, filter, graph_prune, synth": Row(
        "stages-as-a-library",
        "python",
        "as written, on the small world (KOPA_WORLD_SIZE=default, as the README's sentence before it says): ≈ 19 s "
        "instead of ≈ 44 s on the full-size one",
        env=SMALL_WORLD,
    ),
    "kopa-replay bench run --agent oracle --rollouts 4            # pass@1 = 1.0 on all 153 tasks, offline": Row(
        "running-the-benchmark",
        "shell",
        "the first three lines as written (offline replay of the shipped snapshot)",
        parse_only={
            "kopa-replay bench run --agent openai": "needs an OpenAI-compatible model server "
            "(tests/bench/test_bench_concurrency.py runs the openai agent against a scripted one)",
            "kopa-replay graph prune": "≈ 2.5 min on the full-size world (tests/graph/test_pipeline.py prunes)",
            "kopa-replay synth": "needs the graph above, then minutes (tests/synth synthesizes from a small graph)",
            "kopa-replay bench audit": "needs synth's output (tests/bench audits a small corpus)",
        },
        shows={"kopa-replay bench run --agent oracle": "pass@1 1.000"},
    ),
    "kopa-replay graph prune                                                     # 144 s: the verified graph": Row(
        "corpus-recipe",
        None,
        "≈ 10 minutes of two cores (prune 144 s, synth of 2,400 items 200 s, filter 242 s): measured for the README's "
        "table, not tested; tests/synth, tests/filter and tests/bench run the same stages on small inputs",
    ),
    "pip install torch==2.13.0 && pip install -e '.[train]'": Row(
        "training-tiny",
        None,
        "installs torch and the train extra (the network, minutes), then `graph prune` (≈ 5 min) before any training "
        "step; CI installs the train extra and tests/train runs the tiny model's SFT, GRPO and eval "
        "(tests/train/test_train_cli.py the commands)",
    ),
    "pip install torch==2.13.0 && pip install -e '.[train,gpu]'     # on a CUDA machine: the torch build for its CUDA": Row(
        "training-gpus",
        None,
        "GPUs, vLLM and DeepSpeed, `hf download` (the internet) and the 4B/9B models; checked: every launch script "
        "and config it names exists, each model it downloads is one a config trains",
    ),
    "kopa-replay sim serve --port 8765 &": Row(
        "simulator-over-http",
        "shell",
        "as written, line by line, the server stopped at the end. Substituted: the port, 8765 → a free one (as for "
        "the vcrpy example); the small world (KOPA_WORLD_SIZE=default: the same answers in ≈ 2 s instead of ≈ 9 s)",
        env=SMALL_WORLD,
        port=True,
        shows={"curl": '"resultCode":"00"', "kopa-replay call dart_corp_code": '"corp_code": "00439743"'},
    ),
    "kopa-replay record --snapshot 2026-12-01 --source live --shard 1/2 --no-seal --store part1.sqlite   # machine A": Row(
        "shards-recorded-apart",
        None,
        "`--source live`: the real platforms (the internet, API keys) on two machines; the merge needs their stores; "
        "the last line a Ray cluster of 8 workers. tests/scale/test_sharded_recording.py records shards from the "
        "simulator, merges them and checks the digest; tests/scale/test_ray.py prunes on Ray",
    ),
}


# -- the table against the README ---------------------------------------------------------------------------
def _code_blocks() -> list[Block]:
    return [block for block in read_blocks(README) if block.language in ("python", "bash")]


def test_every_block_is_in_the_table():
    blocks = read_blocks(README)
    odd = [(b.line, b.language) for b in blocks if b.language not in ("python", "bash", "")]
    assert not odd, f"README blocks in a language this test does not run (use ```python or ```bash): {odd}"
    keys = [block.key for block in _code_blocks()]
    assert len(keys) == len(set(keys)), f"two README blocks share a first line: {sorted(keys)}"
    unknown = [f"line {b.line}: {b.key!r}" for b in _code_blocks() if b.key not in BLOCKS]
    assert not unknown, f"README blocks tests/docs/test_readme.py does not know (add each to BLOCKS): {unknown}"
    assert not BLOCKS.keys() - set(keys), f"rows of BLOCKS whose block is gone: {sorted(BLOCKS.keys() - set(keys))}"
    ids = [row.id for row in BLOCKS.values()]
    assert len(ids) == len(set(ids))
    for key, row in BLOCKS.items():
        assert row.why and row.run in (None, "pytest", "python", "vcr", "shell"), key
        lines = shell_lines(_block(key).text) if _block(key).language == "bash" else []
        for start in (*row.parse_only, *row.shows):
            assert any(line.startswith(start) for line in lines), f"{row.id}: no line starts with {start!r}"
        assert row.port == (PORT in _block(key).text), f"{row.id}: port substitution for a block without {PORT}"


def _block(key: str) -> Block:
    [block] = [b for b in _code_blocks() if b.key == key]
    return block


def _rows(run: bool | None = None) -> list:
    return [
        pytest.param(key, row, id=row.id) for key, row in BLOCKS.items() if run is None or (row.run is not None) == run
    ]


# -- every command line, parsed without running it -----------------------------------------------------------
def _parse_kopa(words: tuple[str, ...]) -> click.Context:
    """``kopa-replay WORDS`` parsed by the real command line down to its command (options converted and
    checked, nothing invoked)."""
    from kopa_replay.cli import cli

    command: click.Command = cli
    name, args = "kopa-replay", list(words)
    parent = None
    while True:
        ctx = command.make_context(name, list(args), parent=parent, resilient_parsing=False)
        if not isinstance(command, click.Group):
            return ctx
        rest = ctx.args  # what follows the subcommand's name
        assert len(args) > len(rest), f"kopa-replay {' '.join(words)}: no command named"
        sub, resolved, _ = command.resolve_command(ctx, [args[len(args) - len(rest) - 1], *rest])
        assert resolved is not None and sub is not None
        name, command, args, parent = sub, resolved, rest, ctx


def _pyproject() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def _ci_torch() -> str:
    [pin] = re.findall(r"torch==([\w.]+)", (ROOT / ".ci" / "run").read_text(encoding="utf-8"))
    return pin


_QUIET = {"-q", "--quiet", "--disable-pip-version-check"}  # pip's output, not what it installs


def _check_command(command: Command) -> None:
    """One command of a block: known, and naming what exists."""
    words = command.words
    head = words[0]
    if head == "kopa-replay":
        try:
            _parse_kopa(words[1:])
        except click.ClickException as exc:
            pytest.fail(f"`{' '.join(words)}` does not parse: {exc.format_message()}")
    elif head == "pip":
        assert words[1] == "install", words
        for spec in [w for w in words[2:] if w not in _QUIET and w != "-e"]:
            if spec.startswith("."):
                extras = re.fullmatch(r"\.(?:\[([\w,-]+)\])?", spec)
                assert extras, f"`{' '.join(words)}`: installs {spec!r}, not this project"
                unknown = (
                    set((extras.group(1) or "").split(","))
                    - {""}
                    - set(_pyproject()["project"]["optional-dependencies"])
                )
                assert not unknown, f"`{' '.join(words)}`: no extra {sorted(unknown)} in pyproject.toml"
            else:
                assert spec == f"torch=={_ci_torch()}", f"`{' '.join(words)}`: .ci/run pins torch=={_ci_torch()}"
    elif head == "bash":
        assert (ROOT / words[1]).is_file(), f"`{' '.join(words)}`: no script {words[1]}"
    elif head == "hf":
        assert words[1] == "download", words
        configs = "".join(p.read_text(encoding="utf-8") for p in (ROOT / "training" / "configs").glob("*.yaml"))
        assert f"model: {words[2]}" in configs, f"`{' '.join(words)}`: no config in training/configs trains it"
    elif words[:4] in (("python3", "-m", "venv", ".venv"), ("python", "-m", "venv", ".venv")):
        pass
    elif words == (".", ".venv/bin/activate"):
        pass
    elif head in ("lint-imports", "ruff", "mypy") or words[:3] == ("python", "-m", "pytest"):
        tool = "pytest" if head == "python" else head
        assert shutil.which(tool, path=str(VENV_BIN)), f"`{' '.join(words)}`: {tool} is not in the environment"
    elif head in ("rm", "curl"):
        pass
    else:
        pytest.fail(f"no check for `{' '.join(words)}`: teach tests/docs/test_readme.py what it needs")
    for word in words[1:]:
        if re.match(r"(training|kopa_replay|benchmarks|scripts|tests|\.ci)/", word):
            assert (ROOT / word).exists(), f"`{' '.join(words)}` names {word}, which does not exist"


@pytest.mark.parametrize("key, row", _rows())
def test_every_command_line_holds(key, row):
    block = _block(key)
    if block.language == "python":
        compile(block.text, f"README.md:{block.line}", "exec")
        return
    variables: dict[str, str] = {}
    checked = 0
    for line in shell_lines(block.text):
        for command in commands(line, variables):
            _check_command(command)
            checked += 1
    assert checked


def test_the_second_command_is_what_ci_runs():
    """The README's second command and .ci/run: one virtual environment, then the same commands in order (pip's
    quiet flags aside)."""
    [key] = [key for key, row in BLOCKS.items() if row.id == "first-commands"]
    [first_line, second_line] = shell_lines(_block(key).text)

    def after_activation(line_commands: list[Command]) -> list[tuple[str, ...]]:
        words = [c.words for c in line_commands if c.words[0] not in ("set", "cd")]
        at = words.index((".", ".venv/bin/activate"))
        assert any(w[1:] == ("-m", "venv", ".venv") for w in words[:at]), "no .venv made before it is activated"
        return [tuple(x for x in w if x not in _QUIET) if w[0] == "pip" else w for w in words[at:]]

    ci = [c for line in shell_lines((ROOT / ".ci" / "run").read_text(encoding="utf-8")) for c in commands(line)]
    assert after_activation(commands(second_line)) == after_activation(ci)
    assert after_activation(commands(first_line))[1] == ("pip", "install", "-e", ".")


# -- the blocks that run --------------------------------------------------------------------------------------
def _environment(row: Row) -> dict[str, str]:
    closed = "http://127.0.0.1:9"  # the discard port: nothing listens, so a request for the internet fails at once
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("PYTEST_", "KOPA_")) and k.lower() not in ("http_proxy", "https_proxy", "all_proxy")
    }
    if "KOPA_CACHE_DIR" in os.environ:  # parsed catalogs and tables, content-addressed: only faster
        env["KOPA_CACHE_DIR"] = os.environ["KOPA_CACHE_DIR"]
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"):
        env[name] = closed
    env.update(
        NO_PROXY="127.0.0.1,localhost",
        no_proxy="127.0.0.1,localhost",
        HF_HUB_OFFLINE="1",
        PATH=f"{VENV_BIN}{os.pathsep}{os.environ.get('PATH', '')}",
    )
    return {**env, **row.env}


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _text(text: str, row: Row, port: int | None) -> str:
    return text.replace(PORT, str(port)) if row.port else text


@contextmanager
def _serving(words: tuple[str, ...], port: int, cwd: Path, env: Mapping[str, str]) -> Iterator[None]:
    """A background command (the simulator's server) until the block is done, once ``port`` accepts."""
    log = cwd.parent / f"{cwd.name}-server.log"
    with open(log, "wb") as out:
        server = subprocess.Popen(list(words), cwd=cwd, env=dict(env), stdout=out, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 120
        while True:
            if server.poll() is not None:
                pytest.fail(f"`{' '.join(words)}` exited {server.returncode}: {log.read_text(errors='replace')}")
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                assert time.monotonic() < deadline, f"`{' '.join(words)}` did not listen on {port} within 120 s"
                time.sleep(0.1)
        yield
    finally:
        server.terminate()
        try:
            server.wait(timeout=15)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()


def _run(args: list[str], cwd: Path, env: Mapping[str, str], expect: int = 0) -> subprocess.CompletedProcess:
    done = subprocess.run(args, cwd=cwd, env=dict(env), capture_output=True, text=True, timeout=300)
    assert done.returncode == expect, (
        f"`{args[-1] if args[0] == 'bash' else ' '.join(args)}` exited {done.returncode}, not {expect}:\n"
        f"{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    )
    return done


def _run_shell(block: Block, row: Row, project: Path, env: Mapping[str, str]) -> None:
    port = _free_port() if row.port else None
    with ExitStack() as servers:  # a background line's server, stopped when the block is done
        for original in shell_lines(block.text):
            if any(original.startswith(start) for start in row.parse_only):
                continue
            line = _text(original, row, port)
            line_commands = commands(line)
            for command in line_commands:  # a tool the README assumes (curl) that this machine lacks
                if not shutil.which(command.words[0], path=env["PATH"]):
                    pytest.skip(f"`{command.words[0]}` is not installed here (README.md line {block.line}: {original})")
            if line_commands and line_commands[-1].background:
                assert len(line_commands) == 1 and port, f"{row.id}: a background line other than a server on the port"
                servers.enter_context(_serving(line_commands[0].words, port, project, {**env, **line_commands[0].env}))
                continue
            done = _run(["bash", "-c", line], project, env, expected_exit(line))
            for start, shown in row.shows.items():
                if original.startswith(start):
                    assert shown in done.stdout, f"`{original}` does not show {shown!r}:\n{done.stdout[-3000:]}"


def _run_vcr(block: Block, row: Row, project: Path, env: Mapping[str, str]) -> None:
    """The vcrpy example records through the simulator's server, then replays with the server gone; what it
    recorded has its key masked and replays through RecordTransport too (the example's comment)."""
    from kopa_replay.catalog import builtin_catalog
    from kopa_replay.env import open_source
    from kopa_replay.record import Store

    port = _free_port()
    (project / "example.py").write_text(_text(block.text, row, port), encoding="utf-8")
    with _serving(("kopa-replay", "sim", "serve", "--port", str(port)), port, project, env):
        recorded = _run(["python", "example.py"], project, env)
    replayed = _run(["python", "example.py"], project, env)
    assert recorded.stdout.strip() == replayed.stdout.strip() == "1680"  # the example's comment
    store = project / "cassettes" / "kopa.sqlite"
    with Store(store, readonly=True) as opened:
        [item] = list(opened.interactions("sdk-2026-09-01"))
    assert "serviceKey=***" in item.url and "sim-key" not in item.url
    url = item.url.replace("***", "another-key")  # the recorder matches a request whatever its key
    with open_source("replay", snapshot="sdk-2026-09-01", store=store, catalog=builtin_catalog()) as source:
        assert '"clpr":"1680"' in source.client.get(url).text


def _run_python(block: Block, row: Row, project: Path, env: Mapping[str, str]) -> None:
    (project / "example.py").write_text(block.text, encoding="utf-8")
    done = _run(["python", "example.py"], project, env)
    # the example prints precision, trajectories, kept items and the oracle's pass@1 (combined): the last is 1.0
    assert done.stdout.split()[-1] == "1.0", done.stdout
    for path in ("runs/graph/graph.json", "runs/synth", "runs/filter", "runs/bench/oracle/report.json"):
        assert (project / path).exists(), path


def _run_pytest(block: Block, row: Row, project: Path, env: Mapping[str, str]) -> None:
    (project / "test_premium.py").write_text(block.text, encoding="utf-8")
    done = _run(["python", "-m", "pytest", "-q"], project, env)
    assert re.search(r"\b1 passed\b", done.stdout), done.stdout
    assert not (project / "cassettes").exists()  # nothing copied, nothing written: the shipped store replayed


_RUNNERS = {"shell": _run_shell, "vcr": _run_vcr, "python": _run_python, "pytest": _run_pytest}


@pytest.mark.parametrize("key, row", _rows(run=True))
def test_the_block_runs_as_written(key, row, tmp_path):
    project = tmp_path / "project"
    project.mkdir()
    _RUNNERS[str(row.run)](_block(key), row, project, _environment(row))
