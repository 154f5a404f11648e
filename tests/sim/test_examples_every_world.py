"""Every catalog example answers data in every world, not only seed 0's.

The examples name entities by code (a school, a bill, a law version, bus stops and routes); the worlds keep
those as anchors whatever the seed and size, while everything else is drawn from the seed. The full-size world
is checked by the slow test in test_full_world.py.
"""

from __future__ import annotations

import httpx

from kopa_replay.catalog import builtin_catalog
from kopa_replay.env import execute
from kopa_replay.sim import SimTransport, Simulator

SEEDS = range(5)


def unanswered(simulator: Simulator) -> list[tuple]:
    """(tool, args, outcome, code) of every catalog example that does not answer records in the simulator."""
    out = []
    with httpx.Client(transport=SimTransport(simulator)) as client:
        for tool in builtin_catalog():
            for args in tool.examples:
                result = execute(tool, args, client, "sim-key")
                if result.outcome != "ok" or not result.records:
                    out.append((tool.name, dict(args), result.outcome, result.code))
    return out


def test_every_example_answers_in_every_seed_and_the_anchors_are_the_same():
    simulators = {seed: Simulator(seed=seed) for seed in SEEDS}
    assert {seed: unanswered(sim) for seed, sim in simulators.items()} == {seed: [] for seed in SEEDS}
    for sim in simulators.values():
        world = sim.world
        school = world.schools.by_code["7005449"]
        assert (school.name, school.kind, school.office) == ("서현고등학교", "고등학교", "B10")
        assert [s.code for s in world.schools.by_office["B10"] if s.name == "서현고등학교"] == ["7005449"]
        statute, version = world.laws.by_mst["106607"]
        assert statute.name == "도로교통법" and world.laws.by_id["013104"] is statute
        transit = world.transit
        route = transit.seoul_route_by_id["100100110"]
        assert route.stations[12].st_id == "118000001" == transit.seoul_station_by_ars["19001"].st_id
        routes_143 = [r for r in transit.seoul_routes if r.name == "143"]
        assert [(r.kind, r.route_type) for r in routes_143] == [("간선", "3")]
        assert len({r.name for r in transit.seoul_routes}) == len(transit.seoul_routes)
        sejong = transit.tago_network("12")
        assert sejong.stop_by_id["SJB8000016"].name == "세종종합운동장"
        assert len({s.node_id for s in sejong.stops}) == len(sejong.stops)
        assert len({s.st_id for s in transit.seoul_stations}) == len(transit.seoul_stations)
