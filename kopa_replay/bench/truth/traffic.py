"""Traffic answers from the seeded transit world (Seoul bus network and TAGO city networks).

The Seoul functions read ``world.transit``'s stations and routes as the seoulbus platform serves them
(``seoul_routes_at`` gives the routes at a station; a route's ``stations`` its stops in order). The TAGO
functions read one city's network (``tago_network``), found by the city's name in ``tago_cities``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

# getBustimeByStation writes a route's first/last departure plus its running time to the station through this
# pure helper of the platform module (HHMMSS, wrapping past midnight); the answer needs the same clock.
from kopa_replay.sim.platforms.seoulbus import _clock_after


def _routes_at(world: Any, ars: str) -> list[tuple[Any, int]]:
    transit = world.transit
    station = transit.seoul_station_by_ars[str(ars)]
    return list(transit.seoul_routes_at.get(station.st_id, []))


def _unique_best(scores: Mapping[str, Any], highest: bool) -> str:
    best = max(scores.values()) if highest else min(scores.values())
    winners = [name for name, score in scores.items() if score == best]
    if len(winners) != 1:
        raise ValueError(f"tied: {winners}")
    return winners[0]


def seoul_stop_longest_route(world: Any, as_of: str, slots: Mapping[str, Any]) -> str:
    """The route at the stop with the most stops over its whole run."""
    return _unique_best({route.name: len(route.stations) for route, _ in _routes_at(world, slots["ars"])}, True)


def _stop_times(world: Any, ars: str, departure: str) -> dict[str, int]:
    """Per route at the stop: the first or last bus's clock at the stop (HHMMSS as a number)."""
    transit = world.transit
    out = {}
    for route, index in _routes_at(world, ars):
        running = transit.seoul_running_seconds(route)
        start = route.first_time if departure == "first" else route.last_time
        out[route.name] = int(_clock_after(start, running[index]))
    return out


def seoul_stop_first_bus(world: Any, as_of: str, slots: Mapping[str, Any]) -> str:
    return _unique_best(_stop_times(world, slots["ars"], "first"), False)


def seoul_stop_last_bus(world: Any, as_of: str, slots: Mapping[str, Any]) -> str:
    return _unique_best(_stop_times(world, slots["ars"], "last"), True)


def seoul_stop_reach(world: Any, as_of: str, slots: Mapping[str, Any]) -> int:
    """Distinct stops (by ARS number) on the routes through the stop, the stop itself included."""
    return len({station.ars_id for route, _ in _routes_at(world, slots["ars"]) for station in route.stations})


def seoul_stop_shared_destination(world: Any, as_of: str, slots: Mapping[str, Any]) -> int:
    """Routes through the stop that also stop at a station named exactly ``dest``."""
    return sum(
        any(station.name == slots["dest"] for station in route.stations) for route, _ in _routes_at(world, slots["ars"])
    )


def _tago_routes(world: Any, city_name: str) -> tuple[Any, ...]:
    transit = world.transit
    codes = [city.code for city in transit.tago_cities if city.name == city_name]
    if len(codes) != 1:
        raise ValueError(f"{city_name}: {len(codes)} TAGO cities")
    return transit.tago_network(codes[0]).routes


def tago_city_village_routes(world: Any, as_of: str, slots: Mapping[str, Any]) -> int:
    return sum(route.route_type == "마을버스" for route in _tago_routes(world, slots["city"]))


def tago_city_origin_routes(world: Any, as_of: str, slots: Mapping[str, Any]) -> int:
    """Routes whose first stop (startnodenm) is named ``origin``."""
    return sum(route.start_name == slots["origin"] for route in _tago_routes(world, slots["city"]))
