"""Model-backed helpers over the OpenAI-compatible chat API, recorded and replayed like any other call.

``ChatClient`` is the client (``AsyncChatClient`` its awaited twin); ``kopa_replay.llm.fake`` is a loopback server
that speaks the same API, for tests and offline demos.
"""

from kopa_replay.llm.client import API_KEY_ENV, TAG_PARAM, AsyncChatClient, ChatClient, chat_body

__all__ = ["API_KEY_ENV", "TAG_PARAM", "AsyncChatClient", "ChatClient", "chat_body"]
