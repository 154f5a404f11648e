"""Fixtures for the synthesis tests: a simulator environment, a few hand-picked links, a pruned graph (slow)."""

from __future__ import annotations

import pytest

from kopa_replay.env import ToolEnvironment
from kopa_replay.graph import Link


@pytest.fixture
def sim_env(catalog):
    with ToolEnvironment.open(catalog, source="sim") as env:
        yield env


@pytest.fixture(scope="session")
def pruned_links(catalog, tmp_path_factory):
    """The built-in catalog's graph, pruned on the simulator (≈ 10 s, once per session)."""
    from kopa_replay.graph import PruneConfig, build_graph, load_graph, prune_graph

    run_dir = tmp_path_factory.mktemp("graph")
    build_graph(catalog, run_dir)
    with ToolEnvironment.open(catalog, source="sim") as env:
        prune_graph(catalog, run_dir, env, PruneConfig(iterations=10, paths=150), plots=False)
    links, _ = load_graph(run_dir / "graph.json")
    return links


@pytest.fixture(scope="session")
def hand_corpus(catalog, hand_link_specs):
    """25 trajectories over the hand-picked links (5 per pattern), made once."""
    from kopa_replay.synth import SynthConfig, synthesize_report

    links = [Link(source, target, dict(binding), 0.9) for source, target, binding in hand_link_specs]
    with ToolEnvironment.open(catalog, source="sim") as env:
        return synthesize_report(catalog, links, env, SynthConfig(trajectories=25, seed=0, distinct_tool_sets=False))
