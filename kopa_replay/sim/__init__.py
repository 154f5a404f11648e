"""The built-in simulator of the ten platforms.

``Simulator(seed, as_of)`` answers real requests (real hosts, paths,
parameters, envelopes, codes and quirks) from a seeded world;
``SimTransport`` plugs it into httpx in-process and ``running_server`` serves it
on loopback with the real host as the first path segment.
"""

from kopa_replay.sim.drift import TIMELINE, DriftEvent, events_between
from kopa_replay.sim.messages import SimRequest, SimResponse
from kopa_replay.sim.server import make_server, running_server
from kopa_replay.sim.simulator import DEFAULT_AS_OF, DEFAULT_KEY, Simulator, accepted_key
from kopa_replay.sim.transport import AsyncSimTransport, SimTransport
from kopa_replay.sim.truth import binding_executes, true_bindings

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
