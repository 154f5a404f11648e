"""The tool-calling chat agent: a scripted model over real HTTP, real environments, the Hermes parser, the client verb."""

from __future__ import annotations

import json
import logging
import sys

import pytest
from hypothesis import assume, example, given
from hypothesis import strategies as st

from kopa_replay.bench.chat_agent import (
    ChatAgent,
    OpenAIBackend,
    TransformersBackend,
    openai_agent,
    parse_arguments,
    parse_hermes_tool_calls,
    template_messages,
    tool_message,
    transformers_agent,
)
from kopa_replay.bench.model import Task
from kopa_replay.env import ToolEnvironment, ToolRetriever, openai_tools
from kopa_replay.errors import SourceError, UsageError
from kopa_replay.llm import ChatClient
from kopa_replay.llm.fake import Reply, running_chat_server, tool_call
from kopa_replay.synth.model import Answer

MODEL = "qwen-tools"
KEY = "sk-kopa-test-0a1b2c3d4e5f60718293"
QUESTION = "라이트론이 발행한 전환사채의 전환가액은 얼마인가?"
TASK = Task("t-lightron", QUESTION, Answer("number", 1000))
CB_ARGS = {"bgn_de": "20250101", "end_de": "20261231"}


@pytest.fixture
def env(catalog):
    with ToolEnvironment.open(catalog, source="sim") as opened:
        yield opened


def _tool_messages(request) -> list[dict]:
    return [json.loads(m["content"]) for m in request["messages"] if m["role"] == "tool"]


def _calls(*calls) -> dict:
    return {"role": "assistant", "content": None, "tool_calls": list(calls)}


def _agent(server, **options) -> ChatAgent:
    return ChatAgent(OpenAIBackend(ChatClient(server.url, MODEL, api_key=KEY)), name="openai", **options)


def _lightron(request):
    """Looks up 라이트론's corp code, asks for its CB decisions with the code it read, answers the conversion price."""
    seen = _tool_messages(request)
    if not seen:
        return _calls(tool_call("dart_corp_code", {"corp_name": "라이트론"}, "lookup"))
    if len(seen) == 1:
        code = seen[0]["records"][0]["corp_code"]
        return _calls(tool_call("dart_cvbd_is_decsn", {"corp_code": code, **CB_ARGS}, "cb"))
    return f"라이트론의 전환가액은 {seen[1]['records'][0]['cv_prc']}원입니다."


def test_the_agent_looks_up_the_code_then_uses_it_and_answers(catalog, env):
    with running_chat_server(_lightron) as server, _agent(server) as agent:
        answer = agent.solve(TASK, catalog, env)
    cv_prc = env.call("dart_cvbd_is_decsn", {"corp_code": "00439743", **CB_ARGS}).records[0]["cv_prc"]
    assert answer == f"라이트론의 전환가액은 {cv_prc}원입니다."
    assert [(e.tool, dict(e.args)) for e in env.log[:2]] == [
        ("dart_corp_code", {"corp_name": "라이트론"}),
        ("dart_cvbd_is_decsn", {"corp_code": "00439743", **CB_ARGS}),
    ]
    assert [e.outcome for e in env.log[:2]] == ["ok", "ok"]
    first, second, third = (sent.json() for sent in server.received)
    offered = openai_tools(catalog, ToolRetriever(catalog).top_k(QUESTION, 24))
    assert first["tools"] == second["tools"] == offered and len(offered) == 24
    assert {"dart_corp_code", "dart_cvbd_is_decsn"} <= {t["function"]["name"] for t in offered}
    assert first["temperature"] == 0.0 and [m["role"] for m in first["messages"]] == ["system", "user"]
    assert first["messages"][1]["content"] == QUESTION
    # the history goes back as sent: the assistant's tool call (no text), then its result under the same id
    assert second["messages"][2] == _calls(tool_call("dart_corp_code", {"corp_name": "라이트론"}, "lookup"))
    assert second["messages"][3]["role"] == "tool" and second["messages"][3]["tool_call_id"] == "lookup"
    assert [m["role"] for m in third["messages"]] == ["system", "user", "assistant", "tool", "assistant", "tool"]
    assert agent.transcript[-1] == {"role": "assistant", "content": answer}


def test_top_k_and_fixed_tools_choose_what_is_offered(catalog, env):
    with running_chat_server(lambda request: "답") as server:
        for options in ({"top_k": 3}, {"tools": ["dart_corp_code"]}, {"top_k": None}):
            with _agent(server, **options) as agent:
                assert agent.solve(TASK, catalog, env) == "답"
    names = [[t["function"]["name"] for t in sent.json()["tools"]] for sent in server.received]
    assert names[0] == [name for name, _ in ToolRetriever(catalog).top_k(QUESTION, 3)]
    assert names[1] == ["dart_corp_code"]
    assert names[2] == [tool.name for tool in catalog]


def _replay_env(catalog):
    return ToolEnvironment.open(catalog)  # strict replay of the shipped snapshot, read-only


@pytest.mark.parametrize(
    "call, expected, replay",
    [
        (tool_call("dart_corp_code", '{"corp_name": 라이트론', "bad"), "arguments are not valid JSON", False),
        (tool_call("dart_corp_code", "[1, 2]", "list"), "arguments must be a JSON object, not list", False),
        (tool_call("dart_corp_kode", {"corp_name": "라이트론"}, "typo"), "no tool named 'dart_corp_kode'", False),
        (
            tool_call(
                "dart_cvbd_is_decsn", {"corp_code": "00439743", "bgn_de": "20150101", "end_de": "20150102"}, "miss"
            ),
            "no data: the pinned snapshot '2026-09-01' holds no recording",
            True,
        ),
    ],
)
def test_mistakes_become_tool_messages_and_the_loop_goes_on(call, expected, replay, catalog, env):
    def model(request):
        seen = _tool_messages(request)
        return f"오류: {seen[0]['error']}" if seen else _calls(call)

    with running_chat_server(model) as server, _agent(server) as agent:
        if replay:
            with _replay_env(catalog) as replay_env:
                answer = agent.solve(TASK, catalog, replay_env)
                assert replay_env.log == ()
        else:
            answer = agent.solve(TASK, catalog, env)
            assert env.log == ()
    assert server.requests == 2
    assert answer.startswith("오류: ") and expected in answer
    assert agent.transcript[3]["tool_call_id"] == call["id"]


def test_a_structural_error_is_reported_with_its_message(catalog, env):
    bad = tool_call("dart_cvbd_is_decsn", {"corp_code": "00439743", "bgn_de": "2025-01-01", "end_de": "20261231"})
    with (
        running_chat_server(lambda r: json.dumps(_tool_messages(r)[0]) if _tool_messages(r) else _calls(bad)) as server,
        _agent(server) as agent,
    ):
        seen = json.loads(agent.solve(TASK, catalog, env))
    assert seen["outcome"] == "structural_error" and "bgn_de" in seen["message"] and seen["records"] == []
    assert [(e.tool, e.outcome) for e in env.log] == [("dart_cvbd_is_decsn", "structural_error")]


def test_parallel_tool_calls_run_in_order_and_answer_under_their_ids(catalog, env):
    names = ["라이트론", "삼성", "카카오"]
    group = _calls(*(tool_call("dart_corp_code", {"corp_name": name}, f"c{i}") for i, name in enumerate(names)))
    with running_chat_server(lambda r: "끝" if _tool_messages(r) else group) as server, _agent(server) as agent:
        assert agent.solve(TASK, catalog, env) == "끝"
    assert [dict(e.args)["corp_name"] for e in env.log] == names
    tools = [m for m in agent.transcript if m["role"] == "tool"]
    assert [m["tool_call_id"] for m in tools] == ["c0", "c1", "c2"]
    assert json.loads(tools[0]["content"])["records"][0]["corp_name"] == "라이트론"


def test_max_turns_without_an_answer_gives_none(catalog, env):
    again = _calls(tool_call("dart_corp_code", {"corp_name": "라이트론"}))
    with running_chat_server(lambda request: again) as server, _agent(server, max_turns=3) as agent:
        assert agent.solve(TASK, catalog, env) is None
    assert server.requests == 3 and len(env.log) == 3


def test_tool_messages_cut_records_to_the_budgets_and_say_so(catalog, env):
    stops = env.call("tago_get_sttn_no_list", {"cityCode": "12", "numOfRows": 100})
    tool = catalog.get("tago_get_sttn_no_list")
    full = json.loads(tool_message(stops, tool, max_records=1000, max_chars=10**6))
    assert len(full["records"]) == 100 and "truncated" not in full
    assert full["total_count"] == 200 and full["more_pages"] is True and full["page"] == {"page": 1, "size": 100}
    by_count = json.loads(tool_message(stops, tool))
    assert by_count["records"] == stops.records[:30]
    assert by_count["truncated"] == "showing the first 30 of the 100 records this call returned"
    text = tool_message(stops, tool, max_chars=2000)
    kept = json.loads(text)["records"]
    assert len(text) <= 2000 and 0 < len(kept) < 30 and kept == stops.records[: len(kept)]
    last = env.call("tago_get_sttn_no_list", {"cityCode": "12", "numOfRows": 100, "pageNo": 2})
    assert json.loads(tool_message(last, tool))["more_pages"] is False
    unpaged = json.loads(
        tool_message(env.call("dart_corp_code", {"corp_name": "라이트론"}), catalog.get("dart_corp_code"))
    )
    assert "more_pages" not in unpaged and "page" not in unpaged


@pytest.mark.parametrize(
    "raw, expected",
    [
        (None, ({}, None)),
        ("  ", ({}, None)),
        ('{"a": 1}', ({"a": 1}, None)),
        ({"a": 1}, ({"a": 1}, None)),
    ],
)
def test_parse_arguments_accepts_objects(raw, expected):
    assert parse_arguments(raw) == expected


# -- the Hermes / Qwen tool-call parser ----------------------------------------------
_json = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(),
    lambda children: st.lists(children, max_size=3) | st.dictionaries(st.text(), children, max_size=3),
    max_leaves=8,
)
_names = st.from_regex(r"[a-z][a-z0-9_]{0,30}", fullmatch=True)
_calls_st = st.lists(st.tuples(_names, st.dictionaries(st.text(), _json, max_size=4)), max_size=4)
_plain = st.text(st.characters(blacklist_characters="<"), max_size=40)


def _block(name, arguments, ascii_only=False) -> str:
    return f"<tool_call>\n{json.dumps({'name': name, 'arguments': arguments}, ensure_ascii=ascii_only)}\n</tool_call>"


@given(_plain, _calls_st, st.booleans())
def test_hermes_blocks_round_trip_name_and_arguments(prefix, calls, ascii_only):
    text = prefix + "".join(_block(name, arguments, ascii_only) for name, arguments in calls)
    parsed = parse_hermes_tool_calls(text)
    assert [(c.name, c.arguments) for c in parsed.calls] == calls
    assert parsed.content == prefix.strip() and parsed.problems == ()


@given(_calls_st, st.lists(_plain, min_size=1, max_size=3))
@example([], ['"', '"'])  # an unclosed string in each block once read as one string across both
@example([("a", {"x": 1})], ['{"name": "b", "c": "', '"}'])
def test_malformed_blocks_are_dropped_with_a_reason_and_the_rest_still_parse(calls, garbage):
    for junk in garbage:
        try:
            value = json.loads(junk)
        except ValueError:
            continue
        assume(not (isinstance(value, dict) and isinstance(value.get("name"), str)))
    text = "".join(f"<tool_call>{junk}</tool_call>" for junk in garbage) + "".join(_block(*c) for c in calls)
    parsed = parse_hermes_tool_calls(text)
    assert [(c.name, c.arguments) for c in parsed.calls] == calls
    assert len(parsed.problems) == len(garbage)
    assert all(problem.startswith("tool call block ") for problem in parsed.problems)


@pytest.mark.parametrize(
    "text, calls, content, problem",
    [
        (
            '<think>먼저 코드를 찾자</think>\n<tool_call>\n{"name": "a", "arguments": {"x": 1}}\n</tool_call>',
            [("a", {"x": 1})],
            "",
            None,
        ),
        (
            '<tool_call>{"name": "a", "parameters": {"x": "</tool_call>"}}</tool_call>',
            [("a", {"x": "</tool_call>"})],
            "",
            None,
        ),
        ('<tool_call>{"name": "a", "arguments": "{\\"x\\": 2}"}', [("a", {"x": 2})], "", None),
        ('<tool_call>{"arguments": {}}</tool_call>답', [], "답", "has no string 'name'"),
        ('<tool_call>{"name": "a", "arguments": [1]}</tool_call>', [], "", "arguments are a JSON list"),
        ('<tool_call>{"name": "a"} extra</tool_call>', [], "", "text after its JSON object"),
        ('<tool_call>{"name": </tool_call>', [], "", "is not JSON"),
    ],
)
def test_hermes_parser_cases(text, calls, content, problem):
    parsed = parse_hermes_tool_calls(text)
    assert [(c.name, c.arguments) for c in parsed.calls] == calls and parsed.content == content
    assert (problem is None and parsed.problems == ()) or problem in parsed.problems[0]


@pytest.mark.parametrize(
    "text, calls, content, problems",
    [
        # each block's unclosed string stays in its block
        ('<tool_call>"</tool_call><tool_call>"</tool_call>', [], "", ["1 is not JSON", "2 is not JSON"]),
        # ... and does not reach through prose into a later, well-formed block
        (
            '<tool_call>"</tool_call> 그가 "네" 했다 <tool_call>{"name": "a", "arguments": {}}</tool_call>',
            [("a", {})],
            '그가 "네" 했다',
            ["1 is not JSON"],
        ),
        # a closing tag left out between blocks: the next opening tag ends the block
        (
            '<tool_call>{"name": "a", "arguments": {}}\n<tool_call>{"name": "b", "arguments": {}}</tool_call>',
            [("a", {}), ("b", {})],
            "",
            [],
        ),
        (
            '<tool_call>{"name": "a"} 음\n<tool_call>{"name": "b", "arguments": {}}</tool_call>',
            [("b", {})],
            "",
            ["1 has text after its JSON object"],
        ),
        # strings may hold either tag, or both in that order
        (
            '<tool_call>{"name": "a", "arguments": {"q": "<tool_call>x</tool_call>"}}</tool_call>',
            [("a", {"q": "<tool_call>x</tool_call>"})],
            "",
            [],
        ),
        ('<tool_call>{"name": "a", "arguments": {"q": "<tool_call>"}}', [("a", {"q": "<tool_call>"})], "", []),
        # but not a closing tag then an opening one: that reads as one block ending and the next beginning
        (
            '<tool_call>{"name": "a", "arguments": {"q": "</tool_call><tool_call>"}}</tool_call>',
            [],
            "",
            ["1 is not JSON", "2 is not JSON"],
        ),
    ],
)
def test_hermes_blocks_end_at_their_own_tags(text, calls, content, problems):
    parsed = parse_hermes_tool_calls(text)
    assert [(c.name, c.arguments) for c in parsed.calls] == calls and parsed.content == content
    assert len(parsed.problems) == len(problems)
    assert all(f"tool call block {want}" in got for want, got in zip(problems, parsed.problems))


# -- the transformers backend, over a stand-in tokenizer and model --------------------------
class _Batch(dict):
    def to(self, device):
        return self


class _Tokenizer:
    """Renders nothing; ``decode`` answers with what ``script(messages)`` says the model generates."""

    all_special_tokens = ("<|im_end|>", "<|endoftext|>")

    def __init__(self, script):
        self.script, self.rendered = script, []

    def apply_chat_template(self, messages, *, tools, add_generation_prompt, return_dict, return_tensors):
        assert add_generation_prompt and return_dict
        self.rendered.append((messages, tools))
        return _Batch(input_ids=[[1, 2, 3]])

    def decode(self, ids, skip_special_tokens):
        assert list(ids) == [9] and not skip_special_tokens
        return self.script(self.rendered[-1][0]) + "<|im_end|>"


class _Model:
    device = "cpu"

    def generate(self, input_ids, max_new_tokens, do_sample):
        assert do_sample is False
        return [input_ids[0] + [9]]


def test_the_transformers_backend_renders_tools_and_parses_hermes_calls(catalog, env):
    def script(messages):
        seen = [json.loads(m["content"]) for m in messages if m["role"] == "tool"]
        if not seen:
            return '<tool_call>\n{"name": "dart_corp_code", "arguments": {"corp_name": "라이트론"}}\n</tool_call>'
        return (
            f"<think>코드는 {seen[0]['records'][0]['corp_code']}</think>고유번호는 {seen[0]['records'][0]['corp_code']}"
        )

    tokenizer = _Tokenizer(script)
    agent = ChatAgent(TransformersBackend.from_loaded(tokenizer, _Model()), name="transformers", top_k=5)
    assert agent.solve(TASK, catalog, env) == "고유번호는 00439743"
    assert [e.tool for e in env.log] == ["dart_corp_code"]
    (_, tools), (second, _) = tokenizer.rendered
    assert [t["function"]["name"] for t in tools] == [n for n, _ in ToolRetriever(catalog).top_k(QUESTION, 5)]
    # the template gets arguments as objects; the history keeps the JSON text with a generated id
    assert second[2]["tool_calls"][0]["function"] == {"name": "dart_corp_code", "arguments": {"corp_name": "라이트론"}}
    assert agent.transcript[2]["tool_calls"][0]["function"]["arguments"] == '{"corp_name":"라이트론"}'
    assert agent.transcript[3]["tool_call_id"] == agent.transcript[2]["tool_calls"][0]["id"] == "call_2_0"


def test_dropped_blocks_are_logged(caplog):
    tokenizer = _Tokenizer(lambda messages: "<tool_call>{oops}</tool_call>모름")
    backend = TransformersBackend.from_loaded(tokenizer, _Model(), label="tiny")
    with caplog.at_level(logging.WARNING, logger="kopa_replay.bench.chat_agent"):
        assert backend.complete([{"role": "user", "content": "?"}], []) == {"role": "assistant", "content": "모름"}
    assert "tiny: tool call block 1 is not JSON" in caplog.text


def test_template_messages_leaves_malformed_arguments_as_text():
    history = [{"role": "assistant", "content": None, "tool_calls": [tool_call("a", "{oops")]}]
    assert template_messages(history) == history


def test_without_transformers_the_agent_is_a_usage_error(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "transformers", None)  # as if the train extra were not installed
    with pytest.raises(UsageError, match=r"needs the transformers package.*\.\[train\]"):
        transformers_agent(tmp_path)


@pytest.mark.parametrize(
    "build, expected",
    [
        (lambda tmp: transformers_agent(tmp / "no-such-model"), "model path '.*no-such-model' does not exist"),
        (lambda tmp: transformers_agent(""), "needs a model path"),
        (lambda tmp: openai_agent("", MODEL), "needs the base URL"),
        (lambda tmp: openai_agent("http://127.0.0.1:9/v1", ""), "needs a model name"),
        (lambda tmp: openai_agent("http://127.0.0.1:9/v1", MODEL, max_turns=0), "max_turns must be at least 1"),
        (lambda tmp: openai_agent("http://127.0.0.1:9/v1", MODEL, top_k=0), "top_k must be at least 1"),
    ],
)
def test_factories_refuse_bad_input(build, expected, tmp_path):
    with pytest.raises(UsageError, match=expected):
        build(tmp_path)


def test_openai_agent_is_named_and_records_its_completions(catalog, env, tmp_path):
    store = tmp_path / "llm.sqlite"
    with running_chat_server(_lightron) as server:
        with openai_agent(server.url, MODEL, api_key=KEY, store=store, snapshot="llm", top_k=8) as agent:
            assert agent.name == "openai" and agent.top_k == 8
            recorded = agent.solve(TASK, catalog, env)
        env.reset()
        with openai_agent(server.url, MODEL, store=store, snapshot="llm", mode="replay", top_k=8) as agent:
            assert agent.solve(TASK, catalog, env) == recorded
    assert server.requests == 3
    assert [e.tool for e in env.log] == ["dart_corp_code", "dart_cvbd_is_decsn"]


# -- ChatClient.chat_message --------------------------------------------------------
def test_chat_message_sends_tools_and_returns_the_whole_message():
    tools = [{"type": "function", "function": {"name": "f", "parameters": {"type": "object", "properties": {}}}}]
    message = _calls(tool_call("f", {"x": "값"}, "id1"))
    with running_chat_server(lambda request: message) as server, ChatClient(server.url, MODEL, api_key=KEY) as client:
        assert client.chat_message([{"role": "user", "content": "?"}], tools=tools) == message
        history = [{"role": "user", "content": "?"}, message, {"role": "tool", "tool_call_id": "id1", "content": "{}"}]
        client.chat_message(history, tools=tools)
        with pytest.raises(SourceError, match="non-text message content .NoneType. where text was asked for"):
            client.chat([{"role": "user", "content": "?"}])
    first, second, _ = (sent.json() for sent in server.received)
    assert first["tools"] == tools and second["messages"] == history
    assert "tools" not in server.received[2].json()


@pytest.mark.parametrize(
    "reply, expected",
    [
        (Reply(500, json.dumps({"error": f"no tools for Bearer {KEY}"}).encode()), "HTTP 500"),
        (Reply(200, b'{"choices": [{"message": {"role": "assistant", "content": null}}]}'), "and no tool_calls"),
        (Reply(200, b'{"choices": [{"message": {"content": null, "tool_calls": {"id": 1}}}]}'), "not a list"),
    ],
)
def test_chat_message_failures_are_source_errors_naming_the_endpoint(reply, expected):
    with (
        running_chat_server(lambda request: reply) as server,
        ChatClient(server.url, MODEL, api_key=KEY) as client,
        pytest.raises(SourceError, match=expected) as caught,
    ):
        client.chat_message([{"role": "user", "content": "?"}], tools=[])
    assert f"{server.url}/chat/completions" in str(caught.value) and KEY not in str(caught.value)


def test_chat_message_refuses_null_content_except_beside_tool_calls():
    with ChatClient("http://127.0.0.1:9/v1", MODEL) as client, pytest.raises(UsageError, match="message 0"):
        client.chat_message([{"role": "assistant", "content": None}])
