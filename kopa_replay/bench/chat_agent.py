"""Tool-calling chat agents for the benchmark: one loop over a one-verb backend, an HTTP server or a local model.

:class:`ChatAgent` is an :class:`~kopa_replay.bench.agents.Agent` driven by a
language model. It offers the model the catalog tools that fit the question
(the top-k of :class:`~kopa_replay.env.retrieval.ToolRetriever`: a paper-scale
catalog of 2,318 tools is too large to send whole), in OpenAI function format,
and runs the usual loop: ask the backend for one assistant message; execute its
``tool_calls`` in order through ``env.call`` (so every call lands in
``env.log``) and answer each with a ``tool`` message; stop at the first message
without tool calls (its text is the final answer) or after ``max_turns``
messages (no answer). The loop is written once, as a generator of what it needs
done (a completion, a call); :meth:`ChatAgent.solve` drives it with blocking I/O
and :meth:`ChatAgent.solve_async` with awaited I/O (an
:class:`~kopa_replay.env.AsyncToolEnvironment` and the backend's ``acomplete``),
so many rollouts can wait on one model server from one thread. Everything the
model can get wrong is an observation, not a crash: malformed argument JSON, an
unknown tool, a request the pinned snapshot never recorded
(:class:`~kopa_replay.errors.CassetteMiss`). A tool message is
compact JSON (:func:`tool_message`): outcome, code, message, total count,
whether more pages remain, and the records within a budget, saying when they
were cut.

The backend's one verb is ``complete(messages, tools) -> assistant message``
in the OpenAI chat shape (``{"role": "assistant", "content": ..., "tool_calls":
[{"id", "type": "function", "function": {"name", "arguments"}}]}``):

* :class:`OpenAIBackend` — any OpenAI-compatible server (OpenAI, vLLM with
  tool calling enabled) through :class:`~kopa_replay.llm.ChatClient` (and its
  :class:`~kopa_replay.llm.AsyncChatClient` twin for ``acomplete``), so the
  completions can be recorded and replayed like any other call — each under its
  rollout's tag (:class:`RolloutId`), so the k rollouts of one task record and
  replay their own answers whatever order they ran in;
* :class:`TransformersBackend` — a local checkpoint through transformers (the
  ``.[train]`` extra, imported only when used): the chat template renders the
  tools, greedy decoding generates, and :func:`parse_hermes_tool_calls` reads
  the ``<tool_call>{"name": ..., "arguments": ...}</tool_call>`` blocks
  Hermes/Qwen-style models emit.

Both decode greedily (temperature 0), so a rerun over a pinned snapshot asks the
same questions. :func:`openai_agent` and :func:`transformers_agent` are what the
CLI builds.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Generator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kopa_replay.bench.model import Task
from kopa_replay.catalog.model import Catalog, Tool
from kopa_replay.env.core import step
from kopa_replay.env.environment import ToolResult, next_page_args
from kopa_replay.env.retrieval import ToolRetriever, openai_tools
from kopa_replay.errors import CassetteMiss, UnknownTool, UsageError
from kopa_replay.llm.client import AsyncChatClient, ChatClient

__all__ = [
    "SYSTEM_PROMPT",
    "ChatBackend",
    "ChatAgent",
    "ChatSolver",
    "RolloutId",
    "OpenAIBackend",
    "TransformersBackend",
    "HermesParse",
    "ParsedToolCall",
    "parse_hermes_tool_calls",
    "parse_arguments",
    "template_messages",
    "tool_message",
    "answer_call",
    "answer_call_async",
    "openai_agent",
    "transformers_agent",
]

logger = logging.getLogger(__name__)

SYSTEM_PROMPT = """\
당신은 한국 공공데이터(DART 전자공시, 공공데이터포털, 서울 열린데이터광장, NEIS, TAGO 등)에 관한 질문에 \
주어진 도구만으로 답하는 에이전트입니다.
You answer questions about Korean public data using only the tools you are given.

규칙 | Rules:
1. 기억이나 추측으로 답하지 말고 도구를 불러 확인하세요. | Never answer from memory: call the tools.
2. 코드(DART corp_code, 교육청·학교 코드, 정류소·노선 ID, 지역 코드 등)는 추측하지 말고 먼저 조회 도구로 찾은 뒤 \
결과의 값을 그대로 쓰세요. | Look up every code (corp_code, school and office codes, stop and route ids, region \
codes) with a lookup tool before using it, and copy the value from its result.
3. 결과가 여러 페이지이면(more_pages가 true) 모든 페이지를 읽은 뒤 답하세요. | When a result has more pages \
(more_pages is true: total_count exceeds what was read), read every page before answering.
4. 도구 결과는 JSON입니다(outcome, code, message, total_count, records). outcome이 ok가 아니면 message를 읽고 \
인자를 고쳐 다시 부르세요. | Tool results are JSON; when outcome is not "ok", read the message and fix the arguments.
5. 다 찾았으면 도구를 부르지 말고 최종 답만 한국어로 간결하게 쓰세요(숫자는 단위와 함께). | When you are done, \
reply without tool calls: the final answer only, in Korean, concise, numbers with their unit."""


# -- the backend verb ----------------------------------------------------------
@dataclass(frozen=True)
class RolloutId:
    """Which conversation a completion belongs to: rollout ``index`` of task ``task``."""

    task: str
    index: int

    @property
    def tag(self) -> str:
        """The request tag that keeps this rollout's recorded completions apart from every other's."""
        return f"{self.task}/{self.index}"


class ChatBackend:
    """Answers a conversation with one assistant message; :class:`ChatAgent` calls it once a turn.

    ``complete(messages, tools, rollout=None)`` gets the conversation so far
    (OpenAI chat messages), the offered tools (OpenAI function schemas) and which
    rollout asks (a :class:`RolloutId`, None outside a benchmark), and returns one
    assistant message ``{"role": "assistant", "content": str | None,
    "tool_calls": [...]}`` (``tool_calls`` absent or empty: a final answer).
    A backend with ``asynchronous = True`` also has the awaited ``acomplete`` (same
    arguments), which many conversations may await at once, and ``aclose``.
    """

    #: whether ``acomplete`` exists (the concurrent benchmark runner needs it)
    asynchronous = False

    def complete(
        self,
        messages: Sequence[Mapping[str, Any]],
        tools: Sequence[Mapping[str, Any]],
        rollout: RolloutId | None = None,
    ) -> dict[str, Any]:
        raise NotImplementedError

    async def acomplete(
        self,
        messages: Sequence[Mapping[str, Any]],
        tools: Sequence[Mapping[str, Any]],
        rollout: RolloutId | None = None,
    ) -> dict[str, Any]:
        raise NotImplementedError(f"{type(self).__name__} answers one conversation at a time (no acomplete)")

    async def aclose(self) -> None:
        """Release what ``acomplete`` opened in the running event loop; the base opened nothing."""

    def close(self) -> None:
        """Release what the backend holds (a client, a model); the base holds nothing."""

    def __enter__(self) -> "ChatBackend":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


# -- pure helpers: arguments, tool messages, assistant messages ------------------
#: how much of malformed arguments an error message quotes
_QUOTE = 200


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str)


def parse_arguments(raw: Any) -> tuple[dict[str, Any], str | None]:
    """A tool call's arguments as a dict, or ``({}, why not)``: JSON text, or a mapping some servers send as is.

    None and blank text are no arguments (``{}``).
    """
    if raw is None or (isinstance(raw, str) and not raw.strip()):
        return {}, None
    if isinstance(raw, Mapping):
        return dict(raw), None
    if not isinstance(raw, str):
        return {}, f"arguments must be a JSON object, not {type(raw).__name__}"
    try:
        value = json.loads(raw)
    except ValueError as exc:
        quoted = raw[:_QUOTE] + ("…" if len(raw) > _QUOTE else "")
        return {}, f"arguments are not valid JSON ({exc}): {quoted!r}; send one JSON object"
    if not isinstance(value, dict):
        return {}, f"arguments must be a JSON object, not {type(value).__name__}"
    return value, None


def _more_pages(tool: Tool | None, result: ToolResult) -> bool | None:
    """Whether a paged read continues after ``result`` (None: the tool is not paged)."""
    if tool is None or result.page is None:
        return None
    return next_page_args(tool, result) is not None


def tool_message(result: ToolResult, tool: Tool | None = None, *, max_records: int = 30, max_chars: int = 6000) -> str:
    """What the model reads of one call: compact JSON of the outcome and at most ``max_records`` records.

    The records kept are a prefix that also fits ``max_chars`` characters
    (the whole message stays near that budget); ``truncated`` says how many of
    how many were kept. With ``tool``, a paged result says whether more pages remain.
    """
    doc: dict[str, Any] = {
        "outcome": result.outcome,
        "code": result.code,
        "message": result.message,
        "total_count": result.total_count,
    }
    if result.page is not None:
        doc["page"] = dict(result.page)
    more = _more_pages(tool, result)
    if more is not None:
        doc["more_pages"] = more
    records = result.records
    room = max_chars - len(_dumps({**doc, "records": [], "truncated": _cut_note(len(records), len(records))}))
    kept = 0
    for record in records[:max_records]:
        room -= len(_dumps(record)) + 1
        if room < 0:
            break
        kept += 1
    doc["records"] = records[:kept]
    if kept < len(records):
        doc["truncated"] = _cut_note(kept, len(records))
    return _dumps(doc)


def _cut_note(kept: int, returned: int) -> str:
    return f"showing the first {kept} of the {returned} records this call returned"


def _assistant(message: Mapping[str, Any], call_prefix: str) -> dict[str, Any]:
    """The backend's message as the history keeps it: role, content and normalized tool calls only.

    Vendor fields (``refusal``, ``reasoning_content``) are dropped, a call
    without an id gets ``{call_prefix}_{i}``, arguments given as a mapping are
    JSON-encoded; argument text is kept verbatim (malformed or not).
    """
    content = message.get("content")
    out: dict[str, Any] = {"role": "assistant", "content": content if isinstance(content, str) else None}
    calls = []
    for i, call in enumerate(message.get("tool_calls") or ()):
        call = call if isinstance(call, Mapping) else {}
        raw_function = call.get("function")
        function: Mapping[str, Any] = raw_function if isinstance(raw_function, Mapping) else {}
        arguments = function.get("arguments")
        if isinstance(arguments, Mapping):
            arguments = _dumps(dict(arguments))
        calls.append(
            {
                "id": str(call.get("id") or f"{call_prefix}_{i}"),
                "type": "function",
                "function": {
                    "name": str(function.get("name") or ""),
                    "arguments": arguments if isinstance(arguments, str) else "{}",
                },
            }
        )
    if calls:
        out["tool_calls"] = calls
    elif out["content"] is None:
        out["content"] = ""
    return out


def answer_call(
    env: Any, catalog: Catalog, name: str, args: Mapping[str, Any], *, max_records: int = 30, max_chars: int = 6000
) -> str:
    """Execute one model-made call through ``env`` and return what the model reads back.

    The one path every model-driven caller shares (the benchmark's :class:`ChatAgent`, the GRPO rollout tools of
    :mod:`kopa_replay.train`): an unknown tool or a request the pinned snapshot never recorded is an ``error``
    message the model can act on, never an exception; a result is :func:`tool_message`.
    """
    try:
        result = env.call(name, dict(args))
    except (UnknownTool, CassetteMiss) as exc:
        return _call_error(name, exc)
    return _read_back(catalog, name, result, max_records, max_chars)


async def answer_call_async(
    env: Any, catalog: Catalog, name: str, args: Mapping[str, Any], *, max_records: int = 30, max_chars: int = 6000
) -> str:
    """:func:`answer_call` through an :class:`~kopa_replay.env.AsyncToolEnvironment` (``await env.call``)."""
    try:
        result = await env.call(name, dict(args))
    except (UnknownTool, CassetteMiss) as exc:
        return _call_error(name, exc)
    return _read_back(catalog, name, result, max_records, max_chars)


def _call_error(name: str, exc: UnknownTool | CassetteMiss) -> str:
    """The error message the model reads for a call that could not be made."""
    if isinstance(exc, UnknownTool):
        return _dumps({"error": f"{exc}; call only the tools you were given"})
    return _dumps(
        {
            "error": f"no data: the pinned snapshot {exc.snapshot!r} holds no recording of this "
            f"request to {name!r} with these arguments"
        }
    )


def _read_back(catalog: Catalog, name: str, result: ToolResult, max_records: int, max_chars: int) -> str:
    tool = catalog.get(name) if name in catalog else None
    return tool_message(result, tool, max_records=max_records, max_chars=max_chars)


# -- the agent ------------------------------------------------------------------
class ChatAgent:
    """A model-driven agent: the tool-calling loop over ``backend`` (see the module docstring).

    ``top_k`` tools are offered per question by retrieval (None: every tool of
    the catalog); ``tools`` fixes the offered tool names instead. A call's
    records are cut to ``max_records`` and ``max_chars`` (:func:`tool_message`).
    After :meth:`solve`, ``transcript`` holds the conversation it had (with
    :meth:`solve_async` running several at once: the latest one started).
    """

    def __init__(
        self,
        backend: ChatBackend,
        *,
        name: str,
        max_turns: int = 16,
        top_k: int | None = 24,
        tools: Sequence[str] | None = None,
        max_records: int = 30,
        max_chars: int = 6000,
        system_prompt: str = SYSTEM_PROMPT,
        schemas: Callable[[Catalog, Sequence[Any]], list[dict[str, Any]]] = openai_tools,
    ) -> None:
        _check_limits(name=name, max_turns=max_turns, top_k=top_k)
        if max_records < 0 or max_chars < 1:
            raise UsageError(f"max_records must be 0 or more and max_chars at least 1, not {max_records}, {max_chars}")
        self.backend = backend
        self.name = name
        self.max_turns = int(max_turns)
        self.top_k = top_k
        self.tools = tuple(tools) if tools is not None else None
        self.max_records = int(max_records)
        self.max_chars = int(max_chars)
        self.system_prompt = system_prompt
        self.schemas = schemas
        self.transcript: list[dict[str, Any]] = []
        self._retriever: tuple[Catalog, ToolRetriever] | None = None

    def tool_schemas(self, task: Task, catalog: Catalog) -> list[dict[str, Any]]:
        """The function schemas offered for ``task`` (rendered by ``schemas``, OpenAI's by default): fixed,
        retrieved top-k, or the whole catalog."""
        if self.tools is not None:
            return self.schemas(catalog, self.tools)
        if self.top_k is None or self.top_k >= len(catalog):
            return self.schemas(catalog, [tool.name for tool in catalog])
        if self._retriever is None or self._retriever[0] is not catalog:
            self._retriever = (catalog, ToolRetriever(catalog))
        return self.schemas(catalog, self._retriever[1].top_k(task.question_ko, self.top_k))

    @property
    def asynchronous(self) -> bool:
        """Whether :meth:`solve_async` can run (the backend has ``acomplete``)."""
        return bool(self.backend.asynchronous)

    def solve(self, task: Task, catalog: Catalog, env: Any, rollout: int = 0) -> str | None:
        """The model's final answer to ``task`` (None: no answer within ``max_turns``); calls go through ``env``.

        ``rollout`` is which attempt at ``task`` this is: the backend keys the recording by it.
        """
        asked = RolloutId(task.id, rollout)
        flow = self._conversation(task, catalog)
        op, answer = step(flow)
        while op is not None:
            reply: Any
            if op[0] == "complete":
                reply = self.backend.complete(op[1], op[2], asked)
            else:
                reply = answer_call(env, catalog, op[1], op[2], max_records=self.max_records, max_chars=self.max_chars)
            op, answer = step(flow, reply)
        return answer

    async def solve_async(self, task: Task, catalog: Catalog, env: Any, rollout: int = 0) -> str | None:
        """:meth:`solve` with awaited I/O: ``env`` is an :class:`~kopa_replay.env.AsyncToolEnvironment` and the
        backend's ``acomplete`` answers; several may run at once (each with its own ``env``)."""
        asked = RolloutId(task.id, rollout)
        flow = self._conversation(task, catalog)
        op, answer = step(flow)
        while op is not None:
            reply: Any
            if op[0] == "complete":
                reply = await self.backend.acomplete(op[1], op[2], asked)
            else:
                reply = await answer_call_async(
                    env, catalog, op[1], op[2], max_records=self.max_records, max_chars=self.max_chars
                )
            op, answer = step(flow, reply)
        return answer

    def _conversation(self, task: Task, catalog: Catalog) -> Generator[tuple, Any, str | None]:
        """The loop, without I/O: yields ``("complete", messages, tools)`` (sent back: the backend's message) and
        ``("call", name, args)`` (sent back: what the model reads of the call); returns the final answer."""
        tools = self.tool_schemas(task, catalog)
        messages: list[dict[str, Any]] = [
            {"role": "system", "content": self.system_prompt},
            {"role": "user", "content": task.question_ko},
        ]
        self.transcript = messages
        for turn in range(self.max_turns):
            reply = _assistant((yield ("complete", messages, tools)), f"call_{turn}")
            messages.append(reply)
            if "tool_calls" not in reply:
                return reply["content"].strip() or None
            for call in reply["tool_calls"]:  # a parallel group runs in the order given
                function = call["function"]
                args, problem = parse_arguments(function["arguments"])
                if problem is not None:  # the model's mistake is what it reads back: no call is made
                    content = _dumps({"error": f"tool {function['name']!r} was not called: {problem}"})
                else:
                    content = yield ("call", function["name"], args)
                messages.append({"role": "tool", "tool_call_id": call["id"], "content": content})
        return None

    async def aclose(self) -> None:
        """Release what :meth:`solve_async` opened in the running event loop (the agent stays usable)."""
        await self.backend.aclose()

    def close(self) -> None:
        self.backend.close()

    def __enter__(self) -> "ChatAgent":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        offered = f"tools={list(self.tools)!r}" if self.tools is not None else f"top_k={self.top_k}"
        return f"ChatAgent({self.backend!r}, name={self.name!r}, max_turns={self.max_turns}, {offered})"


def _check_limits(*, name: str, max_turns: int, top_k: int | None) -> None:
    if not name:
        raise UsageError("a chat agent needs a name")
    if max_turns < 1:
        raise UsageError(f"max_turns must be at least 1, not {max_turns}")
    if top_k is not None and top_k < 1:
        raise UsageError(f"top_k must be at least 1 (or None for every tool), not {top_k}")


# -- OpenAI-compatible servers ---------------------------------------------------------
class OpenAIBackend(ChatBackend):
    """``complete`` through :meth:`ChatClient.chat_message <kopa_replay.llm.ChatClient.chat_message>`, ``acomplete``
    through the client's :class:`~kopa_replay.llm.AsyncChatClient` twin (opened on first use in the running event
    loop, closed by :meth:`aclose`).

    A request of a rollout (a :class:`RolloutId`) carries the rollout's tag: it is part of the recording's request
    key and never sent, so the k rollouts of a task — identical prompts at temperature 0 — each record and replay
    their own answers, and a run's recording replays the same whatever order its rollouts ran or were answered in.
    Greedy (temperature 0) by default. With ``temperature`` > 0 a request carries a seed: ``seed`` + the rollout's
    index for a rollout's requests (the k rollouts of a task differ, whatever order they run in), ``seed`` + the
    number of requests made before it for a request outside a rollout.
    The client's errors pass through: :class:`~kopa_replay.errors.SourceError`
    for a failing server, :class:`~kopa_replay.errors.CassetteMiss` for an
    unrecorded completion under strict replay. The backend closes the client.
    """

    asynchronous = True

    def __init__(
        self, client: ChatClient, *, max_tokens: int | None = None, temperature: float = 0.0, seed: int = 0
    ) -> None:
        if temperature < 0:
            raise UsageError(f"temperature must be 0 (greedy) or more, not {temperature}")
        self.client = client
        self.max_tokens = max_tokens
        self.temperature = float(temperature)
        self.seed = int(seed)
        self._requests = 0
        self._async: AsyncChatClient | None = None

    def _options(self, rollout: RolloutId | None) -> dict[str, Any]:
        """The sampling options and tag of one request (see the class docstring)."""
        seed = None
        if self.temperature > 0:
            if rollout is not None:
                seed = self.seed + rollout.index
            else:
                seed, self._requests = self.seed + self._requests, self._requests + 1
        return {
            "temperature": self.temperature,
            "max_tokens": self.max_tokens,
            "seed": seed,
            "tag": rollout.tag if rollout is not None else None,
        }

    def complete(
        self,
        messages: Sequence[Mapping[str, Any]],
        tools: Sequence[Mapping[str, Any]],
        rollout: RolloutId | None = None,
    ) -> dict[str, Any]:
        return self.client.chat_message(messages, tools=tools, **self._options(rollout))

    async def acomplete(
        self,
        messages: Sequence[Mapping[str, Any]],
        tools: Sequence[Mapping[str, Any]],
        rollout: RolloutId | None = None,
    ) -> dict[str, Any]:
        if self._async is None:
            self._async = self.client.async_twin()
        return await self._async.chat_message(messages, tools=tools, **self._options(rollout))

    async def aclose(self) -> None:
        if self._async is not None:
            twin, self._async = self._async, None
            await twin.aclose()

    def close(self) -> None:
        self.client.close()

    def __repr__(self) -> str:
        return f"OpenAIBackend({self.client!r})"


# -- local models: Hermes/Qwen tool-call blocks ---------------------------------------------
_OPEN, _CLOSE = "<tool_call>", "</tool_call>"
_THINK_OPEN, _THINK_CLOSE = "<think>", "</think>"
_DECODER = json.JSONDecoder()


@dataclass(frozen=True)
class ParsedToolCall:
    """One well-formed tool-call block: the tool name and its arguments."""

    name: str
    arguments: dict[str, Any]


@dataclass(frozen=True)
class HermesParse:
    """Generated text read for tool calls: the text outside the blocks, the calls, and why blocks were dropped."""

    content: str
    calls: tuple[ParsedToolCall, ...]
    problems: tuple[str, ...] = ()

    def message(self, call_prefix: str = "call") -> dict[str, Any]:
        """The assistant message in OpenAI chat shape (call ids ``{call_prefix}_{i}``)."""
        if not self.calls:
            return {"role": "assistant", "content": self.content}
        return {
            "role": "assistant",
            "content": self.content or None,
            "tool_calls": [
                {
                    "id": f"{call_prefix}_{i}",
                    "type": "function",
                    "function": {"name": call.name, "arguments": _dumps(call.arguments)},
                }
                for i, call in enumerate(self.calls)
            ],
        }


def _skip_space(text: str, at: int) -> int:
    while at < len(text) and text[at].isspace():
        at += 1
    return at


def _block_limit(text: str, body: int) -> int:
    """Where the block whose JSON starts at ``body`` ends: its closing tag, the next opening tag, or the text's end.

    An opening tag counts too, so a block whose closing tag the model left out
    still ends where the next block begins.
    """
    ends = [found for tag in (_CLOSE, _OPEN) if (found := text.find(tag, body)) >= 0]
    return min(ends, default=len(text))


def _tag_holding_value(text: str, body: int, limit: int) -> tuple[Any, int] | None:
    """The JSON value at ``body`` if it runs past ``limit`` only because its strings hold the tags, and where it ends.

    It must be followed by a closing tag (or nothing), and may not hold a
    closing tag followed by an opening one: that is one block ending and the
    next beginning, and reading across it would merge two malformed blocks (an
    unclosed string in each) into one value.
    """
    try:
        value, end = _DECODER.raw_decode(text, body)
    except ValueError:
        return None
    after = _skip_space(text, end)
    if after < len(text) and not text.startswith(_CLOSE, after):
        return None
    close = text.find(_CLOSE, limit, end)
    if close >= 0 and text.find(_OPEN, close, end) >= 0:
        return None
    return value, after + len(_CLOSE) if after < len(text) else after


def _block_call(value: Any) -> tuple[ParsedToolCall | None, str | None]:
    if not isinstance(value, dict):
        return None, f"holds a JSON {type(value).__name__}, not an object"
    name = value.get("name")
    if not isinstance(name, str) or not name:
        return None, "has no string 'name'"
    arguments = value.get("arguments", value.get("parameters", {}))
    if isinstance(arguments, str):  # some models encode the arguments twice
        arguments, problem = parse_arguments(arguments)
        if problem is not None:
            return None, f"tool {name!r}: {problem}"
    if arguments is None:
        arguments = {}
    if not isinstance(arguments, dict):
        return None, f"tool {name!r}: arguments are a JSON {type(arguments).__name__}, not an object"
    return ParsedToolCall(name, arguments), None


def _strip_thinking(text: str) -> str:
    """``text`` without ``<think>…</think>`` spans (an unclosed one runs to the end)."""
    parts, at = [], 0
    while (start := text.find(_THINK_OPEN, at)) >= 0:
        parts.append(text[at:start])
        end = text.find(_THINK_CLOSE, start)
        at = len(text) if end < 0 else end + len(_THINK_CLOSE)
    parts.append(text[at:])
    return "".join(parts)


def parse_hermes_tool_calls(text: str) -> HermesParse:
    """The ``<tool_call>{"name": …, "arguments": {…}}</tool_call>`` blocks of generated ``text``, in order.

    Each block is read within its own tags: it ends at its closing tag, or at
    the next opening tag or the end of the text where the model left the
    closing tag out. Its JSON may run past those tags only when its strings
    hold them (``{"x": "</tool_call>"}``) and it ends right before a closing
    tag or the text's end; a value that would hold ``</tool_call>`` and then
    ``<tool_call>`` is read as two blocks instead, so one malformed block
    never swallows the next. ``arguments`` may also be spelled
    ``parameters`` or be a JSON string. A block that is not a JSON object with
    a string ``name`` and object arguments is dropped, with the reason in
    ``problems``. ``content`` is the text outside every block, without
    ``<think>`` spans, stripped.
    """
    outside: list[str] = []
    calls: list[ParsedToolCall] = []
    problems: list[str] = []
    at = 0
    while (start := text.find(_OPEN, at)) >= 0:
        outside.append(text[at:start])
        number = len(calls) + len(problems) + 1
        body = _skip_space(text, start + len(_OPEN))
        limit = _block_limit(text, body)
        at = limit + len(_CLOSE) if text.startswith(_CLOSE, limit) else limit
        try:
            # decoded within the block first (the slice keeps error positions those of ``text``)
            value, end = _DECODER.raw_decode(text[:limit], body)
        except ValueError as exc:
            held = _tag_holding_value(text, body, limit)
            if held is None:
                problems.append(f"tool call block {number} is not JSON ({exc})")
                continue
            value, at = held
        else:
            if _skip_space(text, end) != limit:
                problems.append(f"tool call block {number} has text after its JSON object")
                continue
        call, problem = _block_call(value)
        if call is None:
            problems.append(f"tool call block {number} {problem}")
        else:
            calls.append(call)
    outside.append(text[at:])
    return HermesParse(_strip_thinking("".join(outside)).strip(), tuple(calls), tuple(problems))


def template_messages(messages: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """``messages`` for a chat template: tool-call arguments as objects (templates ``tojson`` them), not JSON text."""
    out = []
    for message in messages:
        message = dict(message)
        if message.get("tool_calls"):
            calls = []
            for call in message["tool_calls"]:
                function = dict(call.get("function") or {})
                arguments, problem = parse_arguments(function.get("arguments"))
                if problem is None:
                    function["arguments"] = arguments
                calls.append({**call, "function": function})
            message["tool_calls"] = calls
        out.append(message)
    return out


_TRAIN_EXTRA = "pip install -e '.[train]'"


def _import_transformers() -> Any:
    try:
        import transformers  # optional dependency (the train extra): imported only when a local model is used
    except ImportError as exc:
        raise UsageError(
            f"the transformers agent needs the transformers package, which is not installed "
            f"({exc}); install the train extra: {_TRAIN_EXTRA}"
        ) from exc
    return transformers


class TransformersBackend(ChatBackend):
    """A local causal LM through transformers: chat template with tools, greedy generation, Hermes parsing.

    Loads tokenizer and model from ``model_path`` only (``local_files_only``:
    no hub access), ``dtype="auto"``, on ``device`` (default: CUDA when
    available, else CPU). Blocks the parser drops are logged as warnings; the
    text outside them stays the message content.
    """

    def __init__(
        self,
        model_path: str | Path,
        *,
        max_new_tokens: int = 1024,
        device: str | None = None,
        temperature: float = 0.0,
        seed: int = 0,
    ) -> None:
        name = str(model_path)
        # a local directory, or a hub id ("Qwen/Qwen3.5-9B") already in the local cache: nothing is downloaded
        if not Path(name).exists() and (name.count("/") != 1 or name.startswith((".", "/"))):
            raise UsageError(f"model path {name!r} does not exist")
        transformers = _import_transformers()
        try:
            tokenizer = transformers.AutoTokenizer.from_pretrained(name, local_files_only=True)
            model = transformers.AutoModelForCausalLM.from_pretrained(name, local_files_only=True, dtype="auto")
        except (OSError, ValueError) as exc:
            where = "" if Path(name).exists() else " (not a directory, nor a model in the local Hugging Face cache)"
            raise UsageError(
                f"cannot load a causal language model from {name!r}{where}: {' '.join(str(exc).split())}"
            ) from exc
        if device is None:
            import torch  # present whenever transformers can load a model

            device = "cuda" if torch.cuda.is_available() else "cpu"
        model.to(device)
        model.eval()
        self._setup(tokenizer, model, max_new_tokens, name, temperature, seed)

    @classmethod
    def from_loaded(
        cls, tokenizer: Any, model: Any, *, max_new_tokens: int = 1024, label: str = "<loaded>"
    ) -> "TransformersBackend":
        """A backend over an already loaded tokenizer and model (e.g. a policy being trained)."""
        backend = cls.__new__(cls)
        backend._setup(tokenizer, model, max_new_tokens, label)
        return backend

    def _setup(
        self, tokenizer: Any, model: Any, max_new_tokens: int, label: str, temperature: float = 0.0, seed: int = 0
    ) -> None:
        if max_new_tokens < 1:
            raise UsageError(f"max_new_tokens must be at least 1, not {max_new_tokens}")
        if temperature < 0:
            raise UsageError(f"temperature must be 0 (greedy) or more, not {temperature}")
        self.temperature = float(temperature)
        if self.temperature > 0:
            import torch

            # one seeded stream for the whole run: the k rollouts of a task differ, a rerun repeats them
            self._generator_seed = int(seed)
            torch.manual_seed(self._generator_seed)
        self.tokenizer, self.model, self.max_new_tokens, self.label = tokenizer, model, int(max_new_tokens), label
        # Tags the parser needs survive decoding even where a tokenizer marks them special.
        self._strip = [
            token
            for token in getattr(tokenizer, "all_special_tokens", ())
            if token and token not in (_OPEN, _CLOSE, _THINK_OPEN, _THINK_CLOSE)
        ]

    def complete(
        self,
        messages: Sequence[Mapping[str, Any]],
        tools: Sequence[Mapping[str, Any]],
        rollout: RolloutId | None = None,
    ) -> dict[str, Any]:
        # one seeded generator for the whole run (see _setup): the rollout does not enter the decoding
        inputs = self.tokenizer.apply_chat_template(
            template_messages(messages),
            tools=list(tools) or None,
            add_generation_prompt=True,
            return_dict=True,
            return_tensors="pt",
        )
        inputs = inputs.to(self.model.device)
        sampling = (
            {"do_sample": True, "temperature": self.temperature} if self.temperature > 0 else {"do_sample": False}
        )
        output = self.model.generate(**inputs, max_new_tokens=self.max_new_tokens, **sampling)
        text = self.tokenizer.decode(output[0][len(inputs["input_ids"][0]) :], skip_special_tokens=False)
        for token in self._strip:
            text = text.replace(token, "")
        parsed = parse_hermes_tool_calls(text)
        for problem in parsed.problems:
            logger.warning("%s: %s", self.label, problem)
        return parsed.message(f"call_{len(messages)}")

    def close(self) -> None:
        """Drop the references to the model and tokenizer, so their memory can be freed."""
        self.model = self.tokenizer = None

    def __repr__(self) -> str:
        return f"TransformersBackend({self.label!r})"


# -- what the CLI builds ----------------------------------------------------------------
def openai_agent(
    base_url: str,
    model: str,
    *,
    api_key: str | None = None,
    store: Any = None,
    snapshot: str | None = None,
    mode: str | None = None,
    top_k: int | None = 24,
    max_turns: int = 16,
    system_prompt: str = SYSTEM_PROMPT,
    schemas: Callable[[Catalog, Sequence[Any]], list[dict[str, Any]]] = openai_tools,
    temperature: float = 0.0,
    seed: int = 0,
    max_records: int = 30,
    max_chars: int = 6000,
) -> ChatAgent:
    """The ``openai`` agent: a model at an OpenAI-compatible ``base_url``, recorded into ``snapshot`` when named.

    ``api_key`` defaults to ``$OPENAI_API_KEY``; ``store``, ``snapshot`` and
    ``mode`` are :class:`~kopa_replay.llm.ChatClient`'s.
    """
    if not base_url:
        raise UsageError(
            "the openai agent needs the base URL of an OpenAI-compatible server (e.g. http://127.0.0.1:8000/v1)"
        )
    if not model:
        raise UsageError("the openai agent needs a model name")
    _check_limits(name="openai", max_turns=max_turns, top_k=top_k)
    client = ChatClient(base_url, model, api_key=api_key, store=store, snapshot=snapshot, mode=mode)
    return ChatAgent(
        OpenAIBackend(client, temperature=temperature, seed=seed),
        name="openai",
        top_k=top_k,
        max_turns=max_turns,
        system_prompt=system_prompt,
        schemas=schemas,
        max_records=max_records,
        max_chars=max_chars,
    )


def transformers_agent(
    model_path: str | Path | None,
    *,
    top_k: int | None = 24,
    max_turns: int = 16,
    max_new_tokens: int = 1024,
    system_prompt: str = SYSTEM_PROMPT,
    schemas: Callable[[Catalog, Sequence[Any]], list[dict[str, Any]]] = openai_tools,
    temperature: float = 0.0,
    seed: int = 0,
    max_records: int = 30,
    max_chars: int = 6000,
) -> ChatAgent:
    """The ``transformers`` agent: a local checkpoint directory (transformers from the ``.[train]`` extra).

    ``system_prompt`` and ``schemas`` let a trained model be asked the way it was trained (``train eval``).
    """
    if not model_path:
        raise UsageError("the transformers agent needs a model path (a local checkpoint directory)")
    _check_limits(name="transformers", max_turns=max_turns, top_k=top_k)
    backend = TransformersBackend(model_path, max_new_tokens=max_new_tokens, temperature=temperature, seed=seed)
    return ChatAgent(
        backend,
        name="transformers",
        top_k=top_k,
        max_turns=max_turns,
        system_prompt=system_prompt,
        schemas=schemas,
        max_records=max_records,
        max_chars=max_chars,
    )


class ChatSolver:
    """The filter's third-stage re-solver (:class:`~kopa_replay.filter.model.Solver`): ``agent`` solves a corpus
    item as a benchmark task, with the tools, on ``env``; its final answer is read as ``bench run`` reads one
    (:func:`~kopa_replay.bench.grade.grade_response`), so the filter can ask whether it gives a given answer."""

    def __init__(self, agent: ChatAgent, catalog: Catalog, env: Any) -> None:
        self.agent, self.catalog, self.env = agent, catalog, env
        self.name = f"re-solver {agent.name}"

    def solve(self, trajectory: Any) -> Callable[[Any], bool] | None:
        from dataclasses import replace

        from kopa_replay.bench.grade import grade_response
        from kopa_replay.bench.model import Rollout
        from kopa_replay.bench.tasks import task_from_trajectory

        task = task_from_trajectory(trajectory, self.catalog)
        self.env.reset()
        final = self.agent.solve(task, self.catalog, self.env)
        if final is None or not final.strip():
            return None
        rollout = Rollout(task.id, self.agent.name, 0, final)

        def says(answer: Any) -> bool:
            return grade_response(replace(task, answer=answer), rollout).passed

        return says
