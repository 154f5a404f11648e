"""Fixtures for the filter tests: verified links and a corpus synthesized from the built-in catalog (slow).

Hand-made trajectories and the fake planner live in ``filter_fixtures.py``.
"""

from __future__ import annotations

import pytest


@pytest.fixture(scope="session")
def verified_links(catalog):
    """Candidate links that really execute on the simulator (its ground truth stands in for pruning)."""
    from kopa_replay.graph.metrics import simulator_truth
    from kopa_replay.graph.pipeline import build_links

    truth = simulator_truth(catalog.names)
    return [link for link in build_links(catalog) if truth(link)]


@pytest.fixture(scope="session")
def synthesized(catalog, verified_links):
    """Up to 200 trajectories (the `synth` default; the table's links and named starts give ≈ 190) over the
    built-in catalog as synthesis makes them by default: walks the intent table gives a meaning, questions a person
    would ask (≈ 50 s, once per session; fewer leave too few large or decimal figures to round)."""
    from kopa_replay.env import ToolEnvironment
    from kopa_replay.synth import SynthConfig, synthesize
    from kopa_replay.synth.intents import load_intents
    from kopa_replay.synth.questions import IntentWriter

    intents = load_intents(catalog=catalog)
    with ToolEnvironment.open(catalog, source="sim") as env:
        return synthesize(
            catalog, verified_links, env, SynthConfig(trajectories=200, seed=0), IntentWriter(intents), intents=intents
        )
