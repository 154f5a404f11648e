"""The built-in simulator of the ten platforms.

``Simulator(seed, as_of)`` answers real requests (real hosts, paths,
parameters, envelopes, codes and quirks) from a seeded world;
``SimTransport`` plugs it into httpx in-process and ``running_server`` serves it
on loopback with the real host as the first path segment.
"""

from kopa_replay.util import lazy_exports

# loaded on first use: importing the package (the command line does) stays cheap
__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "kopa_replay.sim.messages": (
            "SimRequest",
            "SimResponse",
        ),
        "kopa_replay.sim.server": (
            "make_server",
            "running_server",
        ),
        "kopa_replay.sim.simulator": (
            "DEFAULT_AS_OF",
            "DEFAULT_KEY",
            "Simulator",
            "accepted_key",
        ),
        "kopa_replay.sim.timeline": (
            "TIMELINE",
            "DriftEvent",
            "events_between",
        ),
        "kopa_replay.sim.transport": (
            "AsyncSimTransport",
            "SimTransport",
        ),
        "kopa_replay.sim.truth": (
            "binding_executes",
            "true_bindings",
        ),
    },
)

__all__ = [
    "DEFAULT_AS_OF",
    "DEFAULT_KEY",
    "TIMELINE",
    "AsyncSimTransport",
    "DriftEvent",
    "SimRequest",
    "SimResponse",
    "SimTransport",
    "Simulator",
    "accepted_key",
    "binding_executes",
    "events_between",
    "make_server",
    "running_server",
    "true_bindings",
]
