"""Fixtures for the synthesis tests: a simulator environment, a few hand-picked links, a pruned graph (slow)."""

from __future__ import annotations

import pytest

from kopa_replay.env import ToolEnvironment
from kopa_replay.graph import Link

SCHOOL = {"ATPT_OFCDC_SC_CODE": "ATPT_OFCDC_SC_CODE", "SD_SCHUL_CODE": "SD_SCHUL_CODE"}

#: Links known to execute on the simulator, chosen so a short walk meets every junction kind:
#: a code lookup (sequential), three routes at a stop (fan-out), 50 stations by name and 200 stops (derived).
HAND_LINKS = (
    ("dart_corp_code", "dart_cvbd_is_decsn", {"corp_code": "corp_code"}),
    ("dart_cvbd_is_decsn", "datagokr_get_stock_price_info", {"itmsNm": "corp_name"}),
    ("tago_get_sttn_no_list", "tago_get_sttn_accto_arvl_prearnge_info_list", {"nodeId": "nodeid"}),
    ("tago_get_sttn_accto_arvl_prearnge_info_list", "tago_get_route_info_iem", {"routeId": "routeid"}),
    ("neis_school_info", "neis_school_schedule", SCHOOL),
    ("neis_school_schedule", "neis_meal_service_diet_info", SCHOOL),
    ("seoulbus_get_station_by_name", "seoulbus_get_station_by_uid", {"arsId": "arsId"}),
    ("seoulbus_get_station_by_uid", "seoulbus_get_route_info", {"busRouteId": "busRouteId"}),
)


@pytest.fixture
def hand_links():
    return [Link(source, target, dict(binding), 0.9) for source, target, binding in HAND_LINKS]


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
def hand_corpus(catalog):
    """25 trajectories over the hand-picked links (5 per pattern), made once."""
    from kopa_replay.synth import SynthConfig, synthesize_report

    links = [Link(source, target, dict(binding), 0.9) for source, target, binding in HAND_LINKS]
    with ToolEnvironment.open(catalog, source="sim") as env:
        return synthesize_report(catalog, links, env, SynthConfig(trajectories=25, seed=0, distinct_tool_sets=False))
