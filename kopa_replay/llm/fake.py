"""A real loopback server that speaks just enough of the OpenAI chat API for tests and demos.

``running_chat_server(answer)`` serves ``POST /v1/chat/completions`` on
127.0.0.1 from a background thread. ``answer(request)`` gets the decoded JSON
body and returns the assistant's content (a ``str``, wrapped in a completion),
a whole assistant message (a ``dict``, e.g. ``{"role": "assistant", "content":
None, "tool_calls": [tool_call(...)]}``, wrapped likewise), or a :class:`Reply`
(a raw status and body, to play a failing or garbled server). The server counts
requests and keeps what it received, so a test can prove that a replay never
reached it.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

__all__ = ["Reply", "Received", "FakeChatServer", "running_chat_server", "completion", "tool_call"]


@dataclass(frozen=True)
class Reply:
    """A raw answer: ``status`` and ``body`` exactly as sent."""

    status: int
    body: bytes
    content_type: str = "application/json"


@dataclass(frozen=True)
class Received:
    """One request the server got: path, headers (lower-case names) and the raw body."""

    path: str
    headers: dict[str, str]
    body: bytes

    def json(self) -> Any:
        return json.loads(self.body)


def completion(model: str, content: "str | dict[str, Any]") -> bytes:
    """A minimal chat-completion response body holding ``content`` (text, or a whole assistant message)."""
    message = {"role": "assistant", "content": content} if isinstance(content, str) else dict(content)
    return json.dumps(
        {
            "id": "chatcmpl-fake",
            "object": "chat.completion",
            "model": model,
            "choices": [
                {"index": 0, "message": message, "finish_reason": "tool_calls" if message.get("tool_calls") else "stop"}
            ],
            "usage": {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0},
        },
        ensure_ascii=False,
    ).encode("utf-8")


def tool_call(name: str, arguments: "Mapping[str, Any] | str", call_id: str = "call_0") -> dict[str, Any]:
    """One OpenAI ``tool_calls`` entry; ``arguments`` as a mapping is JSON-encoded, as a ``str`` sent verbatim."""
    text = arguments if isinstance(arguments, str) else json.dumps(dict(arguments), ensure_ascii=False)
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": text}}


@dataclass
class FakeChatServer:
    """What a running fake has seen; ``url`` is the base URL to give a client (``http://127.0.0.1:N/v1``)."""

    url: str
    received: list[Received] = field(default_factory=list)

    @property
    def requests(self) -> int:
        return len(self.received)


def _handler_class(
    state: FakeChatServer, answer: Callable[[Any], "str | dict[str, Any] | Reply"], lock: threading.Lock
) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        disable_nagle_algorithm = True

        def _send(self, reply: Reply) -> None:
            self.send_response(reply.status)
            self.send_header("content-type", reply.content_type)
            self.send_header("content-length", str(len(reply.body)))
            self.end_headers()
            self.wfile.write(reply.body)

        def do_POST(self) -> None:  # noqa: N802 - stdlib name
            length = int(self.headers.get("content-length") or 0)
            body = self.rfile.read(length) if length else b""
            with lock:
                state.received.append(Received(self.path, {k.lower(): v for k, v in self.headers.items()}, body))
            if self.path.rstrip("/") != "/v1/chat/completions":
                self._send(Reply(404, b'{"error": {"message": "not found"}}'))
                return
            try:
                request = json.loads(body)
            except ValueError:
                self._send(Reply(400, b'{"error": {"message": "body is not JSON"}}'))
                return
            result = answer(request)
            self._send(
                result if isinstance(result, Reply) else Reply(200, completion(request.get("model", ""), result))
            )

        def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - stdlib signature
            return  # silent: tests read ``received`` instead

    return Handler


@contextmanager
def running_chat_server(answer: Callable[[Any], "str | dict[str, Any] | Reply"]) -> Iterator[FakeChatServer]:
    """Serve ``answer`` on a free loopback port until the block ends (then shut down and join)."""
    lock = threading.Lock()
    state = FakeChatServer("")
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler_class(state, answer, lock))
    server.daemon_threads = True
    state.url = f"http://127.0.0.1:{server.server_address[1]}/v1"
    # A short poll interval: shutdown() waits for the next poll, and the default 0.5 s would dominate a test.
    thread = threading.Thread(
        target=server.serve_forever, kwargs={"poll_interval": 0.01}, name="kopa-fake-llm", daemon=True
    )
    thread.start()
    try:
        yield state
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)
