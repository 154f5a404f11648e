"""ChatClient against a real loopback OpenAI-compatible server: answers, recording, strict replay, errors, secrets."""

from __future__ import annotations

import json
import socket
from pathlib import Path

import pytest

from kopa_replay.errors import CassetteMiss, SnapshotError, SourceError, UsageError
from kopa_replay.llm import ChatClient, chat_body
from kopa_replay.llm.fake import Reply, running_chat_server
from kopa_replay.record import Store

MODEL = "qwen-test"
KEY = "sk-kopa-test-7f3a9c2e1b0d4c5e8a61"
SNAPSHOT = "llm-2026-09-01"


def _echo(request):
    """Content chosen from the request: the last message, upper-cased, so each prompt has its own answer."""
    return "echo:" + request["messages"][-1]["content"].upper()


def _ask(text: str) -> list[dict[str, str]]:
    return [{"role": "system", "content": "be brief"}, {"role": "user", "content": text}]


@pytest.fixture
def server():
    with running_chat_server(_echo) as running:
        yield running


@pytest.fixture
def store_path(tmp_path) -> Path:
    return tmp_path / "llm.sqlite"


def _store_texts(folder: Path) -> list[bytes]:
    """Every byte the recorder left: the SQLite files (WAL included) and every body, decompressed."""
    texts = [p.read_bytes() for p in folder.iterdir() if p.is_file()]
    with Store(next(folder.glob("*.sqlite")), readonly=True) as store:
        for interaction in store.interactions(SNAPSHOT):
            texts.append(store.body(interaction.body_digest))
            texts.append(json.dumps(dict(interaction.request_headers)).encode())
            texts.append(interaction.url.encode())
    return texts


def test_chat_returns_the_first_choice_and_sends_model_key_and_options(server):
    with ChatClient(server.url, MODEL, api_key=KEY) as client:
        assert client.chat(_ask("hello"), max_tokens=32) == "echo:HELLO"
    assert server.requests == 1
    sent = server.received[0]
    assert sent.path == "/v1/chat/completions"
    assert sent.headers["authorization"] == f"Bearer {KEY}"
    assert sent.json() == {"model": MODEL, "messages": _ask("hello"), "temperature": 0.0, "max_tokens": 32}


def test_the_key_defaults_to_openai_api_key_and_none_sends_no_header(server, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    with ChatClient(server.url, MODEL) as client:
        client.chat(_ask("a"))
    monkeypatch.delenv("OPENAI_API_KEY")
    with ChatClient(server.url, MODEL) as client:
        client.chat(_ask("b"))
    assert server.received[0].headers["authorization"] == f"Bearer {KEY}"
    assert "authorization" not in server.received[1].headers


def test_request_bodies_are_canonical_so_request_keys_are_stable():
    one = chat_body(MODEL, [{"role": "user", "content": "지역명"}], response_format={"type": "json_object"})
    two = chat_body(MODEL, [{"content": "지역명", "role": "user"}], response_format={"type": "json_object"})
    assert one == two
    assert (
        one
        == (
            '{"messages":[{"content":"지역명","role":"user"}],"model":"qwen-test",'
            '"response_format":{"type":"json_object"},"temperature":0.0}'
        ).encode()
    )


def test_record_then_strict_replay_is_offline_and_gives_the_same_answers(server, store_path, request):
    with ChatClient(server.url, MODEL, api_key=KEY, store=store_path, snapshot=SNAPSHOT) as client:
        assert client.mode == "replay-or-record"
        recorded = [client.chat(_ask("first")), client.chat(_ask("second"))]
    assert server.requests == 2
    # From here on every socket connect raises: a strict replay needs no key and opens no socket.
    attempts = request.getfixturevalue("no_network")
    with ChatClient(server.url, MODEL, api_key=None, store=store_path, snapshot=SNAPSHOT, mode="replay") as client:
        replayed = [client.chat(_ask("first")), client.chat(_ask("second"))]
    assert replayed == recorded == ["echo:FIRST", "echo:SECOND"]
    assert server.requests == 2
    assert attempts == []


def test_replay_or_record_answers_a_second_run_from_the_store(server, store_path):
    for _ in range(2):
        with ChatClient(server.url, MODEL, api_key=KEY, store=store_path, snapshot=SNAPSHOT) as client:
            assert client.chat(_ask("same")) == "echo:SAME"
    assert server.requests == 1
    with Store(store_path, readonly=True) as store:
        [interaction] = store.interactions(SNAPSHOT)
    assert interaction.tool == f"llm:chat:{MODEL}"


def test_strict_replay_miss_raises_cassette_miss_without_reaching_the_server(server, store_path):
    with ChatClient(server.url, MODEL, api_key=KEY, store=store_path, snapshot=SNAPSHOT) as client:
        client.chat(_ask("recorded"))
    with ChatClient(server.url, MODEL, api_key=KEY, store=store_path, snapshot=SNAPSHOT, mode="replay") as client:
        with pytest.raises(CassetteMiss) as caught:
            client.chat(_ask("never recorded"))
    assert server.requests == 1
    message = str(caught.value)
    assert f"llm:chat:{MODEL}" in message and "/v1/chat/completions" in message and SNAPSHOT in message
    assert KEY not in message


def test_the_key_never_reaches_the_store_even_when_the_server_echoes_it(store_path):
    def echo_authorization(request):
        return f"you sent {request['messages'][-1]['content']} with Authorization: Bearer {KEY}"

    with running_chat_server(echo_authorization) as server:
        with ChatClient(server.url, MODEL, api_key=KEY, store=store_path, snapshot=SNAPSHOT, mode="record") as client:
            answer = client.chat(_ask("x" * 200))  # long enough that the stored body is compressed
    assert server.received[0].headers["authorization"] == f"Bearer {KEY}"  # it was sent ...
    assert KEY not in answer and answer.endswith("Bearer ***")  # ... and masked in what the caller and store got
    for text in _store_texts(store_path.parent):
        assert KEY.encode() not in text


@pytest.mark.parametrize(
    "reply, expected",
    [
        (Reply(500, json.dumps({"error": f"upstream crashed for Bearer {KEY}"}).encode()), "HTTP 500"),
        (Reply(200, b"<html>surely not json</html>", "text/html"), "not JSON"),
        (Reply(200, b'{"object": "chat.completion", "choices": []}'), "without choices[0].message.content"),
        (Reply(200, b'{"choices": [{"message": {"role": "assistant", "content": null}}]}'), "non-text message content"),
    ],
)
def test_remote_failures_raise_source_error_naming_the_url_never_the_key(reply, expected):
    with running_chat_server(lambda request: reply) as server:
        with ChatClient(server.url, MODEL, api_key=KEY) as client:
            with pytest.raises(SourceError) as caught:
                client.chat(_ask("hi"))
    message = str(caught.value)
    assert expected in message
    assert f"{server.url}/chat/completions" in message and repr(MODEL) in message
    assert KEY not in message


def test_an_unreachable_server_raises_source_error_naming_the_url():
    with socket.socket() as probe:  # a port that was free a moment ago: nothing listens there
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with ChatClient(f"http://127.0.0.1:{port}/v1", MODEL, api_key=KEY, timeout=5) as client:
        with pytest.raises(SourceError) as caught:
            client.chat(_ask("hi"))
    assert f"http://127.0.0.1:{port}/v1/chat/completions" in str(caught.value)
    assert KEY not in str(caught.value)


def test_a_recorded_failure_replays_as_the_same_error(store_path):
    with running_chat_server(lambda request: Reply(503, b'{"error": "overloaded"}')) as server:
        with ChatClient(server.url, MODEL, api_key=KEY, store=store_path, snapshot=SNAPSHOT) as client:
            with pytest.raises(SourceError, match="HTTP 503"):
                client.chat(_ask("hi"))
        with ChatClient(server.url, MODEL, store=store_path, snapshot=SNAPSHOT, mode="replay") as client:
            with pytest.raises(SourceError, match="HTTP 503"):
                client.chat(_ask("hi"))
    assert server.requests == 1


@pytest.mark.parametrize(
    "kwargs, expected",
    [
        ({"base_url": "127.0.0.1:8000/v1"}, "must start with http"),
        ({"model": ""}, "needs a model"),
        ({"mode": "replay"}, "needs a snapshot"),
        ({"snapshot": "s", "mode": "rewind"}, "unknown record mode 'rewind'"),
    ],
)
def test_bad_arguments_are_usage_errors(kwargs, expected, tmp_path):
    arguments = {
        "base_url": "http://127.0.0.1:9/v1",
        "model": MODEL,
        "store": tmp_path / "s.sqlite" if "snapshot" in kwargs else None,
        **kwargs,
    }
    with pytest.raises(UsageError, match=expected):
        ChatClient(arguments.pop("base_url"), arguments.pop("model"), **arguments)


def test_bad_messages_are_usage_errors_before_any_request(server):
    with ChatClient(server.url, MODEL, api_key=KEY) as client:
        with pytest.raises(UsageError, match="at least one message"):
            client.chat([])
        with pytest.raises(UsageError, match="message 0"):
            client.chat([{"role": "user", "content": 3}])
    assert server.requests == 0


def test_strict_replay_of_a_snapshot_the_store_lacks_fails_up_front(store_path):
    with ChatClient("http://127.0.0.1:9/v1", MODEL, store=store_path, snapshot="other", mode="record"):
        pass
    with pytest.raises(SnapshotError, match=f"no snapshot {SNAPSHOT!r}"):
        ChatClient("http://127.0.0.1:9/v1", MODEL, store=store_path, snapshot=SNAPSHOT, mode="replay")
