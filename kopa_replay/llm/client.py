"""An OpenAI-compatible chat-completions client whose calls can go through the recorder.

Model-backed stages (the LLM binding scorer, judges, question writers) talk to
any server that speaks ``POST {base_url}/chat/completions`` — OpenAI, or an
on-prem vLLM server. With ``snapshot`` the client's transport is a
:class:`~kopa_replay.record.RecordTransport`, so a first run records each
completion and later runs replay it offline (``replay-or-record``, the
default), or refuse anything unrecorded (``replay``).

Replay matches requests by method, URL and body digest, so the body is
serialized canonically (sorted keys, no insignificant whitespace): the same
messages and options always give the same request key. The API key travels
only in the ``Authorization`` header, which the recorder masks by name, and is
also passed as a secret value so it is scrubbed should a server echo it.

Two verbs share one request path: :meth:`ChatClient.chat_message` sends
optional ``tools`` (OpenAI function schemas) and returns the whole first-choice
assistant message (``content`` may be null when it holds ``tool_calls``);
:meth:`ChatClient.chat` is that message's text. :class:`AsyncChatClient` is the
same client over ``httpx.AsyncClient`` (awaited verbs, the async recorder), so
many conversations can wait on one server from one thread.

A request may carry a ``tag`` (a benchmark rollout's ``task/index``): it joins
the request's recording identity — as the ``kopa_tag`` query parameter the
recorder keys on — and is stripped before the request leaves the process, so the
server never sees it. Two conversations that send the same prompt (the k
rollouts of one task) then each record, and replay, their own answer, whatever
order the server answered them in.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import httpx

from kopa_replay.errors import SourceError, UsageError
from kopa_replay.record.redact import Redactor, install_log_filter, redactor_for, register_secret
from kopa_replay.record.snapshots import check_pinned
from kopa_replay.record.store import Store, default_store_path
from kopa_replay.record.transport import MODES, AsyncRecordTransport, RecordTransport

__all__ = ["ChatClient", "AsyncChatClient", "API_KEY_ENV", "TAG_PARAM", "chat_body"]

#: where the key comes from when none is passed (the OpenAI SDK's convention, which vLLM also honours)
API_KEY_ENV = "OPENAI_API_KEY"
#: how much of an error body a message quotes: enough to see the server's complaint, not a page of HTML
_EXCERPT = 200
#: the query parameter a request's tag rides in, inside the process only (see the module docstring)
TAG_PARAM = "kopa_tag"


def chat_body(
    model: str,
    messages: Sequence[Mapping[str, Any]],
    *,
    temperature: float = 0.0,
    max_tokens: int | None = None,
    response_format: Mapping[str, Any] | None = None,
    tools: Sequence[Mapping[str, Any]] | None = None,
    seed: int | None = None,
) -> bytes:
    """The canonical request body: equal arguments always give byte-identical bodies (stable request keys).

    ``tools`` (OpenAI function schemas) is sent only when not empty and ``seed`` only when given, so a body
    without them is unchanged.
    """
    body: dict[str, Any] = {"model": model, "messages": [dict(m) for m in messages], "temperature": temperature}
    if max_tokens is not None:
        body["max_tokens"] = max_tokens
    if response_format is not None:
        body["response_format"] = dict(response_format)
    if tools:
        body["tools"] = [dict(tool) for tool in tools]
    if seed is not None:
        body["seed"] = int(seed)
    return json.dumps(body, sort_keys=True, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def _untagged(request: httpx.Request) -> httpx.Request:
    """``request`` as the server gets it: without the tag parameter (the body and headers unchanged)."""
    if TAG_PARAM not in request.url.params:
        return request
    return httpx.Request(
        request.method,
        request.url.copy_remove_param(TAG_PARAM),
        headers=request.headers,
        content=request.content,
        extensions=request.extensions,
    )


class _Untag(httpx.BaseTransport):
    """Sends through ``inner`` without the tag: it sits inside the recorder, which keys on the tagged URL."""

    def __init__(self, inner: httpx.BaseTransport) -> None:
        self.inner = inner

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        return self.inner.handle_request(_untagged(request))

    def close(self) -> None:
        self.inner.close()


class _AsyncUntag(httpx.AsyncBaseTransport):
    """The async twin of :class:`_Untag`."""

    def __init__(self, inner: httpx.AsyncBaseTransport) -> None:
        self.inner = inner

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        await request.aread()
        return await self.inner.handle_async_request(_untagged(request))

    async def aclose(self) -> None:
        await self.inner.aclose()


def _check_messages(messages: Sequence[Mapping[str, Any]]) -> None:
    """Each message has a string role and string content; an assistant message with tool calls may have none."""
    if not messages:
        raise UsageError("chat needs at least one message")
    for i, message in enumerate(messages):
        if not isinstance(message, Mapping) or not isinstance(message.get("role"), str):
            raise UsageError(f"chat message {i} must be a mapping with string 'role' and 'content', not {message!r}")
        content = message.get("content")
        calls = message.get("role") == "assistant" and bool(message.get("tool_calls"))
        if not isinstance(content, str) and not (content is None and calls):
            raise UsageError(
                f"chat message {i} must be a mapping with string 'role' and 'content' "
                f"(null content only beside tool_calls), not {message!r}"
            )


class _ChatBase:
    """What both clients share: checked settings, the endpoint, the key and its redactor, the store, the request
    they build and how they read the answer. A subclass names its httpx flavour (client, transports, recorder)."""

    _asynchronous = False

    def __init__(
        self,
        base_url: str,
        model: str,
        *,
        api_key: str | None = None,
        store: "str | Path | Store | None" = None,
        snapshot: str | None = None,
        mode: str | None = None,
        timeout: float = 60.0,
        transport: httpx.BaseTransport | httpx.AsyncBaseTransport | None = None,
    ) -> None:
        if not isinstance(base_url, str) or not base_url.startswith(("http://", "https://")):
            raise UsageError(
                f"the LLM base URL must start with http:// or https:// (e.g. http://127.0.0.1:8000/v1), "
                f"not {base_url!r}"
            )
        if not model:
            raise UsageError("the LLM client needs a model name")
        if snapshot is None and (mode is not None or store is not None):
            raise UsageError("an LLM store or record mode needs a snapshot to record into or replay from")
        if mode is not None and mode not in MODES:
            raise UsageError(f"unknown record mode {mode!r} (use one of: {', '.join(MODES)})")
        self.model = model
        self.snapshot = snapshot
        self.mode = (mode or "replay-or-record") if snapshot is not None else None
        self.timeout = timeout
        self._base_url = base_url
        self._api_key = api_key if api_key is not None else (os.environ.get(API_KEY_ENV) or None)
        self._endpoint = base_url.rstrip("/") + "/chat/completions"
        secrets = [self._api_key] if self._api_key else []
        # One redactor for error messages and the recorder: it knows our key as well as the environment's.
        self._redactor: Redactor = redactor_for(extra_values=secrets)
        self.url = self._redactor.redact_url(self._endpoint)
        register_secret(self._api_key)
        install_log_filter()
        self._owned_store: Store | None = None
        self.store: Store | None = None
        asynchronous = self._asynchronous
        client_kind: Any = httpx.AsyncClient if asynchronous else httpx.Client
        untag: Any = _AsyncUntag if asynchronous else _Untag
        if snapshot is None:
            http_kind: Any = httpx.AsyncHTTPTransport if asynchronous else httpx.HTTPTransport
            self._http = client_kind(transport=untag(transport or http_kind()), timeout=timeout)
            return
        if isinstance(store, Store):
            self.store = store
        else:
            # Strict replay opens the store read-only: it must already hold the snapshot, and nothing is written.
            self.store = self._owned_store = Store(
                Path(store) if store else default_store_path(), readonly=(self.mode == "replay")
            )
        assert self.mode is not None  # set whenever a snapshot is given
        try:
            # Strict replay never builds a socket-opening transport, so no request can leave the process.
            if transport is None and self.mode != "replay":
                transport = httpx.AsyncHTTPTransport() if asynchronous else httpx.HTTPTransport()
            recorder_kind: Any = AsyncRecordTransport if asynchronous else RecordTransport
            recorder = recorder_kind(
                untag(transport) if transport is not None else None, self.store, snapshot, self.mode, self._redactor
            )
            if self.mode == "replay":
                check_pinned(self.store, snapshot)  # a sealed snapshot must still match its manifest
        except BaseException:
            self._close_store()
            raise
        self._http = client_kind(transport=recorder, timeout=timeout)

    # -- one request --------------------------------------------------------------
    def _request(
        self,
        messages: Sequence[Mapping[str, Any]],
        *,
        tools: Sequence[Mapping[str, Any]] | None,
        temperature: float,
        max_tokens: int | None,
        response_format: Mapping[str, Any] | None,
        seed: int | None,
        tag: str | None,
    ) -> dict[str, Any]:
        """The keyword arguments of the POST: URL (tagged), canonical body, headers, recorder extensions."""
        _check_messages(messages)
        content = chat_body(
            self.model,
            messages,
            temperature=temperature,
            max_tokens=max_tokens,
            response_format=response_format,
            tools=tools,
            seed=seed,
        )
        headers = {"content-type": "application/json", "accept": "application/json"}
        if self._api_key:
            headers["authorization"] = f"Bearer {self._api_key}"
        extensions = {"kopa_tool": f"llm:chat:{self.model}", "kopa_secrets": (self._api_key,) if self._api_key else ()}
        url = httpx.URL(self._endpoint)
        if tag is not None:
            url = url.copy_add_param(TAG_PARAM, str(tag))
        return {"url": url, "content": content, "headers": headers, "extensions": extensions}

    def _failed(self, exc: httpx.HTTPError) -> SourceError:
        return SourceError(
            f"LLM request to {self.url} (model {self.model!r}) failed: "
            f"{type(exc).__name__}: {self._redactor.scrub_text(str(exc))}"
        )

    @property
    def _where(self) -> str:
        return f"LLM endpoint {self.url} (model {self.model!r})"

    def _text(self, message: Mapping[str, Any]) -> str:
        content = message.get("content")
        if not isinstance(content, str):
            raise SourceError(
                f"{self._where} answered tool calls with a non-text message content "
                f"({type(content).__name__}) where text was asked for"
            )
        return content

    def _message(self, response: httpx.Response) -> dict[str, Any]:
        where = self._where
        body = response.content
        if response.status_code >= 400:
            raise SourceError(f"{where} answered HTTP {response.status_code}: {self._excerpt(body)}")
        try:
            doc = json.loads(body)
        except ValueError:
            raise SourceError(
                f"{where} answered HTTP {response.status_code} with a body that is not JSON: {self._excerpt(body)}"
            ) from None
        try:
            message = doc["choices"][0]["message"]
        except (KeyError, IndexError, TypeError):
            message = None
        if not isinstance(message, dict):
            raise SourceError(
                f"{where} answered HTTP {response.status_code} without choices[0].message.content: "
                f"{self._excerpt(body)}"
            )
        content = message.get("content")
        if not isinstance(content, str) and not (content is None and message.get("tool_calls")):
            raise SourceError(
                f"{where} answered HTTP {response.status_code} with a non-text message content "
                f"({type(content).__name__}) and no tool_calls"
            )
        calls = message.get("tool_calls")
        if calls is not None and not isinstance(calls, list):
            raise SourceError(
                f"{where} answered HTTP {response.status_code} with tool_calls that are not a list: "
                f"{self._excerpt(body)}"
            )
        return message

    def _excerpt(self, body: bytes) -> str:
        text = self._redactor.scrub_text(body.decode("utf-8", "replace")).strip()
        return repr(text[:_EXCERPT] + ("…" if len(text) > _EXCERPT else ""))

    def _close_store(self) -> None:
        if self._owned_store is not None:
            self._owned_store.close()
            self._owned_store = None

    def __repr__(self) -> str:
        recorded = f", snapshot={self.snapshot!r}, mode={self.mode!r}" if self.snapshot else ""
        return f"{type(self).__name__}({self.url!r}, model={self.model!r}{recorded})"


class ChatClient(_ChatBase):
    """A chat-completions client for one model at one endpoint (optionally recorded / replayed).

    ``store`` is a cassette path or an open :class:`~kopa_replay.record.Store`
    (default: :func:`~kopa_replay.record.default_store_path`); ``mode`` is one
    of the recorder's modes and defaults to ``replay-or-record``. Both need
    ``snapshot``. ``transport`` replaces the inner HTTP transport (an async one for :class:`AsyncChatClient`).
    """

    _http: httpx.Client

    # -- the verbs --------------------------------------------------------------
    def chat(
        self,
        messages: Sequence[Mapping[str, Any]],
        *,
        temperature: float = 0.0,
        max_tokens: int | None = None,
        response_format: Mapping[str, Any] | None = None,
    ) -> str:
        """The first choice's message content for ``messages``.

        Raises :class:`~kopa_replay.errors.SourceError` when the server fails,
        answers an HTTP error, or answers something that is not a completion;
        :class:`~kopa_replay.errors.CassetteMiss` when strict replay has no record.
        """
        return self._text(
            self.chat_message(messages, temperature=temperature, max_tokens=max_tokens, response_format=response_format)
        )

    def chat_message(
        self,
        messages: Sequence[Mapping[str, Any]],
        *,
        tools: Sequence[Mapping[str, Any]] | None = None,
        temperature: float = 0.0,
        max_tokens: int | None = None,
        response_format: Mapping[str, Any] | None = None,
        seed: int | None = None,
        tag: str | None = None,
    ) -> dict[str, Any]:
        """The first choice's whole assistant message for ``messages``, offering ``tools`` (OpenAI schemas);
        ``seed`` (when given) is the request's sampling seed, which servers such as vLLM honour; ``tag`` (when
        given) joins the request's recording identity without being sent (see the module docstring).

        The message is returned as the server sent it: ``content`` is a string
        or None, ``tool_calls`` (when present) a list of ``{"id", "type",
        "function": {"name", "arguments"}}``. Raises as :meth:`chat` does, and
        :class:`~kopa_replay.errors.SourceError` for a message with neither text nor tool calls.
        """
        request = self._request(
            messages,
            tools=tools,
            temperature=temperature,
            max_tokens=max_tokens,
            response_format=response_format,
            seed=seed,
            tag=tag,
        )
        try:
            response = self._http.post(**request)
        except httpx.HTTPError as exc:
            raise self._failed(exc) from exc
        return self._message(response)

    def async_twin(self) -> "AsyncChatClient":
        """An :class:`AsyncChatClient` to the same endpoint and model, with the same key, recording into (or
        replaying from) the same store and snapshot; it shares this client's open store, so close it first.
        A ``transport`` this client was given is not carried over (it is a blocking one)."""
        return AsyncChatClient(
            self._base_url,
            self.model,
            api_key=self._api_key,
            store=self.store,
            snapshot=self.snapshot,
            mode=self.mode if self.snapshot is not None else None,
            timeout=self.timeout,
        )

    # -- lifetime ---------------------------------------------------------------
    def close(self) -> None:
        """Close the HTTP client and transports, and the store if this client opened it."""
        self._http.close()
        self._close_store()

    def __enter__(self) -> "ChatClient":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class AsyncChatClient(_ChatBase):
    """:class:`ChatClient` over ``httpx.AsyncClient``: the same settings, requests, recording and errors, with
    awaited verbs. It belongs to the event loop that first uses it: close it (:meth:`aclose`) there."""

    _asynchronous = True
    _http: httpx.AsyncClient

    async def chat(
        self,
        messages: Sequence[Mapping[str, Any]],
        *,
        temperature: float = 0.0,
        max_tokens: int | None = None,
        response_format: Mapping[str, Any] | None = None,
    ) -> str:
        """See :meth:`ChatClient.chat`."""
        message = await self.chat_message(
            messages, temperature=temperature, max_tokens=max_tokens, response_format=response_format
        )
        return self._text(message)

    async def chat_message(
        self,
        messages: Sequence[Mapping[str, Any]],
        *,
        tools: Sequence[Mapping[str, Any]] | None = None,
        temperature: float = 0.0,
        max_tokens: int | None = None,
        response_format: Mapping[str, Any] | None = None,
        seed: int | None = None,
        tag: str | None = None,
    ) -> dict[str, Any]:
        """See :meth:`ChatClient.chat_message`."""
        request = self._request(
            messages,
            tools=tools,
            temperature=temperature,
            max_tokens=max_tokens,
            response_format=response_format,
            seed=seed,
            tag=tag,
        )
        try:
            response = await self._http.post(**request)
        except httpx.HTTPError as exc:
            raise self._failed(exc) from exc
        return self._message(response)

    async def aclose(self) -> None:
        """Close the HTTP client and transports (committing what was recorded), and the store if this client
        opened it."""
        await self._http.aclose()
        self._close_store()

    async def __aenter__(self) -> "AsyncChatClient":
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()
