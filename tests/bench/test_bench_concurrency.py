"""`bench run --agent openai --concurrency N`: rollouts in flight at once against a real HTTP chat server, the same
bytes whatever N and whatever order the server answers in, each rollout recorded (and replayed) under its own tag;
and a run split into shards and merged equals one run."""

from __future__ import annotations

import asyncio
import hashlib
import json
import random
import re
import threading
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from kopa_replay.bench.agents import run_rollouts_async
from kopa_replay.bench.chat_agent import OpenAIBackend, RolloutId, openai_agent
from kopa_replay.bench.model import Rollout
from kopa_replay.bench.report import markdown, report_json
from kopa_replay.bench.suite import load_task_set, make_agent, merge_benchmark, run_benchmark, run_task_rollouts
from kopa_replay.cli import cli
from kopa_replay.env import AsyncToolEnvironment, ToolEnvironment
from kopa_replay.errors import SourceError, UsageError
from kopa_replay.llm import ChatClient
from kopa_replay.llm.fake import running_chat_server, tool_call
from kopa_replay.synth.export import answer_text

OUTPUTS = ("rollouts.jsonl", "report.json", "report.md")
TASK_SET = load_task_set()
#: one task of each of four domains, in the set's order: their reference calls are all in the shipped snapshot
TASKS = [
    t
    for t in TASK_SET.tasks
    if t.id
    in {
        "kopa-finance-lightron",
        "kopa-traffic-seoul-longest-1",
        "kopa-education-school-dinners-1",
        "kopa-law-family-articles-1",
    }
]
BY_QUESTION = {task.question_ko: task for task in TASK_SET.tasks}


def _scripted(request, final=None):
    """A model that makes its task's reference calls (one parallel group), then states the reference answer
    (or ``final(task)``): every rollout passes all three axes only if its calls and state are its own."""
    task = BY_QUESTION[request["messages"][1]["content"]]
    if not any(m["role"] == "tool" for m in request["messages"]):
        calls = [tool_call(tool, args, f"c{i}") for i, (tool, args) in enumerate(task.reference_calls)]
        return {"role": "assistant", "content": None, "tool_calls": calls}
    return final(task) if final else answer_text(task.answer)


class Gauge:
    """Wraps a model: each request waits ``delay(request)`` seconds inside the server's handler thread, and the
    most requests the server held at once is ``peak``."""

    def __init__(self, model, delay):
        self.model, self.delay = model, delay
        self.lock = threading.Lock()
        self.now = self.peak = 0

    def __call__(self, request):
        with self.lock:
            self.now += 1
            self.peak = max(self.peak, self.now)
        try:
            time.sleep(self.delay(request))
            return self.model(request)
        finally:
            with self.lock:
                self.now -= 1


def _scrambled(request) -> float:
    """0–40 ms by a digest of the request: answers come back in an order unrelated to the order asked."""
    digest = hashlib.sha256(json.dumps(request, sort_keys=True).encode()).digest()
    return digest[0] % 5 * 0.01


def _bench(url: str, out: Path, concurrency: int, k: int = 2):
    args = ["bench", "run", "--agent", "openai", "--llm-url", url, "--llm-model", "scripted", "--rollouts", str(k)]
    args += ["--concurrency", str(concurrency), "--out", str(out)]
    for task in TASKS:
        args += ["--task", task.id]
    result = CliRunner().invoke(cli, args, catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return {name: (out / name).read_bytes() for name in OUTPUTS}


def _rollouts(outputs) -> list[dict]:
    return [json.loads(line) for line in outputs["rollouts.jsonl"].decode().splitlines()]


@pytest.mark.parametrize("concurrency", [2, 4])
def test_up_to_n_rollouts_are_in_flight_at_once(tmp_path, concurrency):
    gauge = Gauge(_scripted, lambda request: 0.05)
    with running_chat_server(gauge) as server:
        _bench(server.url, tmp_path / "run", concurrency)
    assert server.requests == len(TASKS) * 2 * 2  # two rollouts a task, two turns a rollout
    assert 2 <= gauge.peak <= concurrency


def test_the_outputs_are_the_same_bytes_for_one_and_four_in_flight_whatever_the_answer_order(tmp_path):
    with running_chat_server(Gauge(_scripted, _scrambled)) as server:
        runs = {n: _bench(server.url, tmp_path / f"n{n}", n) for n in (1, 4)}  # each run records in its own OUT
    # the server never sees the rollout tag: it keys the recording only
    assert {sent.path for sent in server.received} == {"/v1/chat/completions"}
    assert runs[1] == runs[4]
    # how many were in flight is how the run went, not what it computed: the manifests say the same
    one, four = (json.loads((tmp_path / f"n{n}" / "manifest-bench-run.json").read_text()) for n in (1, 4))
    assert "concurrency" not in one["config"] and one["outputs"] == four["outputs"]
    assert {**one, "config": None, "key": None} == {**four, "config": None, "key": None}
    assert {**one["config"], "out": None} == {**four["config"], "out": None}
    rollouts = _rollouts(runs[4])
    assert [(r["task_id"], r["index"]) for r in rollouts] == [(t.id, i) for t in TASKS for i in (0, 1)]
    # each rollout has its own log and state: exactly its task's reference calls, graded like the oracle's
    by_id = {task.id: task for task in TASKS}
    for rollout in rollouts:
        assert [(tool, args) for tool, args, _ in rollout["calls"]] == [
            (tool, dict(args)) for tool, args in by_id[rollout["task_id"]].reference_calls
        ]
    report = json.loads(runs[4]["report.json"])
    assert report["pass_at_1"]["combined"] == 1.0 and report["n_rollouts"] == 2 * len(TASKS)


def test_each_rollout_replays_its_own_answer_offline_at_any_concurrency(tmp_path):
    """Answers differ per call (a counter): two rollouts of one task, asked the same at once, get different
    answers in arrival order; each is recorded under its rollout, so a rerun with the server down replays them."""
    count = {"n": 0}
    lock = threading.Lock()

    def numbered(task):
        with lock:
            count["n"] += 1
            return f"{answer_text(task.answer)} (답변 {count['n']})"

    out = tmp_path / "run"
    with running_chat_server(Gauge(lambda r: _scripted(r, numbered), _scrambled)) as server:
        recorded = _bench(server.url, out, 4)
    finals: dict[str, set[str]] = {}
    for rollout in _rollouts(recorded):
        finals.setdefault(rollout["task_id"], set()).add(rollout["final_answer"])
    assert len(finals) == len(TASKS) and all(len(answers) == 2 for answers in finals.values())  # tells them apart
    for concurrency in (1, 3):  # the server is down: a request that left would fail the run
        assert _bench(server.url, out, concurrency) == recorded
    assert count["n"] == len(TASKS) * 2


def test_a_concurrency_below_one_is_a_clean_cli_error(tmp_path, cli_error):
    args = ["bench", "run", "--agent", "openai", "--llm-url", "http://127.0.0.1:9/v1", "--llm-model", "m"]
    result = CliRunner().invoke(cli, [*args, "--concurrency", "0", "--out", str(tmp_path / "x")])
    assert "--concurrency must be at least 1, not 0" in cli_error(result)
    assert not (tmp_path / "x").exists()


def test_a_failing_server_is_a_source_error_and_closes_every_environment(catalog, tmp_path):
    opened: list[AsyncToolEnvironment] = []

    def open_env():
        opened.append(AsyncToolEnvironment.open(catalog))
        return opened[-1]

    agent = openai_agent("http://127.0.0.1:9/v1", "m", store=tmp_path / "llm.sqlite", snapshot="llm")
    with agent, pytest.raises(SourceError, match="LLM request to http://127.0.0.1:9/v1/chat/completions"):
        asyncio.run(run_rollouts_async(TASKS, agent, catalog, open_env, k=2, concurrency=3))
    assert len(opened) == 3 and all(env.source.client.is_closed for env in opened)


# -- the rollout tag and seed ---------------------------------------------------------------
def test_a_tag_keys_the_recording_but_is_never_sent(tmp_path):
    asked = [{"role": "user", "content": "같은 질문"}]
    count = iter(range(100))
    store = tmp_path / "llm.sqlite"
    with running_chat_server(lambda request: f"답 {next(count)}") as server:
        with ChatClient(server.url, "m", store=store, snapshot="llm") as client:
            first = [client.chat_message(asked, tag=tag)["content"] for tag in ("t/0", "t/1", "t/0")]
    assert first == ["답 0", "답 1", "답 0"]  # t/0 asked again: replayed
    assert server.requests == 2 and {sent.path for sent in server.received} == {"/v1/chat/completions"}
    assert server.received[0].body == server.received[1].body  # the same request on the wire

    async def replay():
        with ChatClient("http://127.0.0.1:9/v1", "m", store=store, snapshot="llm", mode="replay") as client:
            twin = client.async_twin()
            try:
                return [(await twin.chat_message(asked, tag=tag))["content"] for tag in ("t/1", "t/0")]
            finally:
                await twin.aclose()

    assert asyncio.run(replay()) == ["답 1", "답 0"]


def test_a_rollout_samples_with_its_own_seed_whatever_order_it_runs_in():
    class Client:
        def __init__(self):
            self.sent = []

        def chat_message(self, messages, **options):
            self.sent.append(options)
            return {"role": "assistant", "content": "x"}

    client = Client()
    backend = OpenAIBackend(client, temperature=0.7, seed=5)  # type: ignore[arg-type]
    for rollout in (RolloutId("b", 2), RolloutId("a", 0), RolloutId("b", 2)):
        backend.complete([{"role": "user", "content": "q"}], [], rollout)
    assert [(s["seed"], s["tag"]) for s in client.sent] == [(7, "b/2"), (5, "a/0"), (7, "b/2")]
    greedy = OpenAIBackend(client)  # type: ignore[arg-type]
    greedy.complete([{"role": "user", "content": "q"}], [], RolloutId("a", 1))
    assert (client.sent[-1]["seed"], client.sent[-1]["tag"]) == (None, "a/1")


# -- shards: the rollouts of a subset of tasks each, merged ------------------------------------
def _outputs(run) -> tuple[list[dict], str, str]:
    return [r.to_dict() for r in run.rollouts], report_json(run.report), markdown(run.report)


@pytest.mark.parametrize(
    "opened, tasks, k",
    [
        (lambda catalog: ToolEnvironment.open(catalog), TASK_SET.tasks, 1),  # the shipped snapshot, every task
        # a faulty simulator: its faults depend on each request's attempt count, which a rewind starts afresh
        # (with a mere reset, the log only, the shards' rollouts differ from the whole run's here)
        (lambda catalog: ToolEnvironment.open(catalog, source="sim", fault_rate=0.2), TASK_SET.tasks[:12], 2),
    ],
    ids=["replay", "faulty-sim"],
)
def test_three_shards_merged_give_the_report_of_one_run(catalog, opened, tasks, k):
    agent = make_agent("oracle", TASK_SET)
    with opened(catalog) as env:
        whole = run_benchmark(tasks, agent, catalog, env, k)
    shards: list[Rollout] = []
    for i in range(3):  # interleaved shards, each in its own environment, as separate processes would be
        with opened(catalog) as env:
            shards += run_task_rollouts(tasks[i::3], agent, catalog, env, k)
    random.Random(0).shuffle(shards)
    assert _outputs(merge_benchmark(tasks, shards)) == _outputs(whole)


def test_merging_refuses_overlapping_missing_and_foreign_rollouts(catalog):
    tasks = TASK_SET.tasks[:3]
    with ToolEnvironment.open(catalog) as env:
        rollouts = run_task_rollouts(tasks, make_agent("oracle", TASK_SET), catalog, env, 1)
    with pytest.raises(UsageError, match=re.escape(f"more than once (shards overlap?): {tasks[0].id} #0")):
        merge_benchmark(tasks, [*rollouts, rollouts[0]])
    with pytest.raises(UsageError, match=f"no rollout of task {tasks[2].id}"):
        merge_benchmark(tasks, rollouts[:2])
    with pytest.raises(UsageError, match=f"not in the run: {tasks[2].id}"):
        merge_benchmark(tasks[:2], rollouts)
