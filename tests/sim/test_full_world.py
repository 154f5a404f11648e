"""The full-size world reaches the real platforms' sizes, keeps the showcase and answers every catalog example
(slow: builds 114k companies)."""

from __future__ import annotations

import httpx
import pytest
from test_examples_every_world import unanswered

from kopa_replay.catalog import builtin_catalog
from kopa_replay.env import open_source
from kopa_replay.env.source import Source
from kopa_replay.sim import SimTransport, Simulator
from kopa_replay.sim.simulator import DEFAULT_AS_OF
from kopa_replay.stages.showcase import walk_lightron


@pytest.mark.slow
def test_full_world_has_the_real_corpcode_size_the_showcase_and_every_example():
    simulator = Simulator(seed=0, world_size="full")
    assert len(simulator.world.finance.companies) == 114_106
    source = Source("sim-full", httpx.Client(transport=SimTransport(simulator)), "sim-key")
    result = walk_lightron(builtin_catalog(), source, DEFAULT_AS_OF)
    assert (result.floor_price, result.prior_close) == (532, 1680)
    assert unanswered(simulator) == []


def test_open_source_rejects_unknown_world_sizes():
    from kopa_replay.errors import SimError

    with pytest.raises(SimError, match="unknown world size"):
        Simulator(world_size="huge")
    with open_source("sim") as source:
        assert source.sim_key == "sim-key"
