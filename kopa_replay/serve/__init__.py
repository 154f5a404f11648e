"""Serving catalog tools to outside agents: an MCP server over the tool-execution environment."""

from kopa_replay.serve.mcp import TRANSPORTS, build_server, result_content, serve

__all__ = ["TRANSPORTS", "build_server", "result_content", "serve"]
