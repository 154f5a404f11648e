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
:meth:`ChatClient.chat` is that message's text.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Mapping, Sequence

import httpx

from kopa_replay.errors import SourceError, UsageError
from kopa_replay.record.redact import Redactor, install_log_filter, redactor_for, register_secret
from kopa_replay.record.snapshots import check_pinned
from kopa_replay.record.store import Store, default_store_path
from kopa_replay.record.transport import MODES, RecordTransport

__all__ = ["ChatClient", "API_KEY_ENV", "chat_body"]

#: where the key comes from when none is passed (the OpenAI SDK's convention, which vLLM also honours)
API_KEY_ENV = "OPENAI_API_KEY"
#: how much of an error body a message quotes: enough to see the server's complaint, not a page of HTML
_EXCERPT = 200


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


class ChatClient:
    """A chat-completions client for one model at one endpoint (optionally recorded / replayed).

    ``store`` is a cassette path or an open :class:`~kopa_replay.record.Store`
    (default: :func:`~kopa_replay.record.default_store_path`); ``mode`` is one
    of the recorder's modes and defaults to ``replay-or-record``. Both need
    ``snapshot``. ``transport`` replaces the inner HTTP transport.
    """

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
        transport: httpx.BaseTransport | None = None,
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
        if snapshot is None:
            self._http = httpx.Client(transport=transport or httpx.HTTPTransport(), timeout=timeout)
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
            inner = transport if transport is not None or self.mode == "replay" else httpx.HTTPTransport()
            recorder = RecordTransport(inner, self.store, snapshot, self.mode, self._redactor)
            if self.mode == "replay":
                check_pinned(self.store, snapshot)  # a sealed snapshot must still match its manifest
        except BaseException:
            self._close_store()
            raise
        self._http = httpx.Client(transport=recorder, timeout=timeout)

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
        message = self.chat_message(
            messages, temperature=temperature, max_tokens=max_tokens, response_format=response_format
        )
        content = message.get("content")
        if not isinstance(content, str):
            raise SourceError(
                f"{self._where} answered tool calls with a non-text message content "
                f"({type(content).__name__}) where text was asked for"
            )
        return content

    def chat_message(
        self,
        messages: Sequence[Mapping[str, Any]],
        *,
        tools: Sequence[Mapping[str, Any]] | None = None,
        temperature: float = 0.0,
        max_tokens: int | None = None,
        response_format: Mapping[str, Any] | None = None,
        seed: int | None = None,
    ) -> dict[str, Any]:
        """The first choice's whole assistant message for ``messages``, offering ``tools`` (OpenAI schemas);
        ``seed`` (when given) is the request's sampling seed, which servers such as vLLM honour.

        The message is returned as the server sent it: ``content`` is a string
        or None, ``tool_calls`` (when present) a list of ``{"id", "type",
        "function": {"name", "arguments"}}``. Raises as :meth:`chat` does, and
        :class:`~kopa_replay.errors.SourceError` for a message with neither text nor tool calls.
        """
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
        try:
            response = self._http.post(self._endpoint, content=content, headers=headers, extensions=extensions)
        except httpx.HTTPError as exc:
            raise SourceError(
                f"LLM request to {self.url} (model {self.model!r}) failed: "
                f"{type(exc).__name__}: {self._redactor.scrub_text(str(exc))}"
            ) from exc
        return self._message(response)

    @property
    def _where(self) -> str:
        return f"LLM endpoint {self.url} (model {self.model!r})"

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

    # -- lifetime ---------------------------------------------------------------
    def _close_store(self) -> None:
        if self._owned_store is not None:
            self._owned_store.close()
            self._owned_store = None

    def close(self) -> None:
        """Close the HTTP client and transports, and the store if this client opened it."""
        self._http.close()
        self._close_store()

    def __enter__(self) -> "ChatClient":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        recorded = f", snapshot={self.snapshot!r}, mode={self.mode!r}" if self.snapshot else ""
        return f"ChatClient({self.url!r}, model={self.model!r}{recorded})"
