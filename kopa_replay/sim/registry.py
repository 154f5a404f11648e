"""Where the simulator finds endpoints: every platform module's ``ENDPOINTS``.

A platform module (``kopa_replay.sim.platforms.<name>``) exports
``ENDPOINTS`` (a list of :class:`~kopa_replay.sim.core.Endpoint`),
``HOSTS`` (host → the protocol that routes requests on that host and answers
for unknown routes) and optionally ``RESOLVERS`` (host → a function from a
route to an Endpoint, for families of generated dataset services).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cached_property
from importlib import import_module

from kopa_replay.sim.core import Endpoint, Protocol, endpoints_by_route

__all__ = ["PLATFORM_MODULES", "Registry", "registry"]

PLATFORM_MODULES = (
    "dart",
    "fsc",
    "krx",
    "tago",
    "seoulbus",
    "neis",
    "law",
    "assembly",
    "mois",
    "seoul",
    "gg",
    "generated",
)


class Registry:
    """All simulated endpoints, indexed by (host, route) and by tool name."""

    def __init__(self, modules: tuple[str, ...] = PLATFORM_MODULES) -> None:
        self._modules = modules

    @cached_property
    def _loaded(self) -> list:
        return [import_module(f"kopa_replay.sim.platforms.{name}") for name in self._modules]

    @cached_property
    def endpoints(self) -> tuple[Endpoint, ...]:
        return tuple(ep for module in self._loaded for ep in module.ENDPOINTS)

    @cached_property
    def by_route(self) -> dict[tuple[str, str], Endpoint]:
        return endpoints_by_route(self.endpoints)

    @cached_property
    def by_tool(self) -> dict[str, Endpoint]:
        return {ep.tool: ep for ep in self.endpoints}

    @cached_property
    def hosts(self) -> dict[str, Protocol]:
        table: dict[str, Protocol] = {}
        for module in self._loaded:
            for host, protocol in module.HOSTS.items():
                table.setdefault(host, protocol)
        return table

    @cached_property
    def resolvers(self) -> dict[str, list[Callable[[str], Endpoint | None]]]:
        table: dict[str, list[Callable[[str], Endpoint | None]]] = {}
        for module in self._loaded:
            for host, resolver in getattr(module, "RESOLVERS", {}).items():
                table.setdefault(host, []).append(resolver)
        return table

    def find(self, host: str, route: str) -> Endpoint | None:
        endpoint = self.by_route.get((host, route))
        if endpoint is None:
            for resolver in self.resolvers.get(host, ()):
                endpoint = resolver(route)
                if endpoint is not None:
                    break
        return endpoint

    def endpoint_for_tool(self, tool: str) -> Endpoint | None:
        endpoint = self.by_tool.get(tool)
        if endpoint is None:
            for module in self._loaded:
                resolve = getattr(module, "RESOLVE_TOOL", None)
                endpoint = resolve(tool) if resolve else None
                if endpoint is not None:
                    break
        return endpoint


_REGISTRY: Registry | None = None


def registry() -> Registry:
    """The process-wide registry of the built-in platforms."""
    global _REGISTRY
    if _REGISTRY is None:
        _REGISTRY = Registry()
    return _REGISTRY
