"""Endpoints for the generated dataset tools of the paper-scale catalog.

The catalog defines them (:mod:`kopa_replay.catalog.paper_scale`); every
:class:`~kopa_replay.catalog.paper_scale.DatasetSpec` is served here on its
family's real host with that host's protocol (Seoul's path-key START/END
envelope, Gyeonggi's head/row, the data.go.kr gateway), so a generated tool is
called, paged, failed and drifted exactly like a hand-modelled one. Rows are a
pure function of (seed, tool, as-of date): facility lists are fixed per tool;
daily statistics exist for dates before the as-of date.
"""

from __future__ import annotations

import datetime as dt
from functools import lru_cache
from importlib import import_module
from typing import Any

from kopa_replay.catalog import paper_scale as ps
from kopa_replay.sim.core import Endpoint, NoData, Protocol, Query
from kopa_replay.sim.protocols import DataGoKrProtocol
from kopa_replay.sim.world import World
from kopa_replay.sim.world.calendar import ymd

__all__ = ["ENDPOINTS", "HOSTS", "RESOLVERS", "RESOLVE_TOOL"]

_HOSTS = {"seoul": "openapi.seoul.go.kr", "gg": "openapi.gg.go.kr", "datagokr": "apis.data.go.kr"}
_FIRST_DAY = dt.date(2025, 1, 1)
_DATAGOKR = DataGoKrProtocol(format_param="type", no_data="code")
#: The value domains of a dataset's columns (ps.columns order; None: free text or measure), what the simulator's
#: truth checks bindings against.
_COLUMN_DOMAINS = (None, "sigungu_name", "lawd_cd", None, None, None, None, "date", None, None)


def _output_domains(spec: ps.DatasetSpec) -> dict[str, str]:
    names = ps.columns(spec)
    domains = {name: domain for name, domain in zip(names, _COLUMN_DOMAINS) if domain}
    if spec.family == "gg":
        domains[names[1]], domains[names[2]] = "sigun_name", "sigun_cd"
    return domains


def _input_domains(spec: ps.DatasetSpec) -> dict[str, str]:
    return {ps.date_param(spec): "date"} if spec.kind == "stats" else {}


@lru_cache(maxsize=1)
def _specs_by_route() -> dict[tuple[str, str], ps.DatasetSpec]:
    """Each dataset by (family, route): what the host's protocol routes on."""
    return {(spec.family, spec.route): spec for spec in ps.dataset_specs()}


def _protocol(family: str) -> Protocol:
    # Seoul and Gyeonggi datasets speak exactly like the hand-modelled ones: reuse their host protocol.
    if family == "datagokr":
        return _DATAGOKR
    module = import_module(f"kopa_replay.sim.platforms.{family}")
    return module.HOSTS[_HOSTS[family]]


def _places(world: World, spec: ps.DatasetSpec) -> list[tuple[str, str, str]]:
    """(district name, 5-digit code, 동 name) the dataset's rows are spread over."""
    regions = world.regions
    if spec.family == "datagokr":
        sido = next(s for s in regions.sido if s.code == spec.region_code)
        districts = regions.sigungu_of(sido)
    else:
        districts = [s for s in regions.sigungu if s.code == spec.region_code]
    places = []
    for district in districts:
        dongs = regions.dongs_of(district) or []
        for dong in dongs or [None]:
            places.append((district.name, district.code, dong.name if dong else district.name))
    return places


def _row(spec: ps.DatasetSpec, index: int, place: tuple[str, str, str], rng, date: str) -> dict[str, Any]:
    name_col, district_col, code_col, addr_col, lat_col, lon_col, tel_col, date_col, status_col, measure_col = (
        ps.columns(spec)
    )
    district, code, dong = place
    low, high = spec.measure_range
    lat = 37.2 + float(rng.random()) * 0.6 if spec.family != "datagokr" else 34.5 + float(rng.random()) * 3.5
    lon = 126.7 + float(rng.random()) * 0.6 if spec.family != "datagokr" else 126.3 + float(rng.random()) * 3.0
    status = ps.STATUSES[0] if rng.random() < 0.85 else ps.STATUSES[1 + int(rng.integers(0, 2))]
    suffix = "측정소" if spec.kind == "stats" else ""
    return {
        name_col: f"{dong} {spec.theme_ko}{suffix} {index + 1}",
        district_col: district,
        code_col: code,
        addr_col: f"{spec.region_name if spec.family == 'datagokr' else ''} {district} {dong}로 {int(rng.integers(1, 300))}".strip(),
        lat_col: f"{lat:.6f}",
        lon_col: f"{lon:.6f}",
        tel_col: f"0{int(rng.integers(2, 70))}-{int(rng.integers(200, 999))}-{int(rng.integers(1000, 9999))}",
        date_col: date,
        status_col: status,
        measure_col: str(int(rng.integers(low, high + 1))),
    }


@lru_cache(maxsize=256)
def _facilities(seed: int, size: str, tool: str) -> tuple[dict[str, Any], ...]:
    world = World(seed, size)
    spec = ps.specs_by_tool()[tool]
    rng = world.rng("paper.facility", tool)
    places = _places(world, spec)
    count = int(rng.integers(12, max(13, world.sizes.dataset_rows // 2)))
    return tuple(
        _row(
            spec,
            i,
            places[int(rng.integers(0, len(places)))],
            rng,
            ymd(dt.date(2024, 1, 1) + dt.timedelta(days=int(rng.integers(0, 600)))),
        )
        for i in range(count)
    )


def _handler(spec: ps.DatasetSpec):
    def handle(world: World, q: Query) -> list[dict[str, Any]]:
        if spec.kind == "stats":
            day = q.date(ps.date_param(spec), required=True)
            if day >= q.as_of or day < _FIRST_DAY:
                raise NoData()
            rng = world.rng("paper.stats", spec.tool, ymd(day))
            places = _places(world, spec)
            stations = int(world.rng("paper.stations", spec.tool).integers(5, 60))
            return [_row(spec, i, places[i % len(places)], rng, ymd(day)) for i in range(stations)]
        rows = [r for r in _facilities(world.seed, world.size, spec.tool) if r[ps.columns(spec)[7]] < ymd(q.as_of)]
        status = q.get(ps.status_param(spec))
        if status is not None:
            rows = [r for r in rows if r[ps.status_param(spec)] == status]
        if not rows:
            raise NoData()
        return [dict(r) for r in rows]

    return handle


@lru_cache(maxsize=None)
def _endpoint(tool: str) -> Endpoint:
    spec = ps.specs_by_tool()[tool]
    options: dict[str, Any] = {"root": spec.route}
    if spec.family == "seoul" and spec.kind == "stats":
        options["positional"] = (ps.date_param(spec),)
    return Endpoint(
        tool=spec.tool,
        platform=spec.family,
        host=_HOSTS[spec.family],
        route=spec.route,
        protocol=_protocol(spec.family),
        handler=_handler(spec),
        required=(ps.date_param(spec),) if spec.kind == "stats" else (),
        inputs=_input_domains(spec),
        outputs=_output_domains(spec),
        options=options,
    )


def RESOLVE_TOOL(tool: str) -> Endpoint | None:  # noqa: N802 - registry hook name
    return _endpoint(tool) if tool in ps.specs_by_tool() else None


def _resolver(family: str):
    def resolve(route: str) -> Endpoint | None:
        spec = _specs_by_route().get((family, route))
        return _endpoint(spec.tool) if spec else None

    return resolve


ENDPOINTS: list[Endpoint] = []  # generated endpoints are resolved on demand, not listed up front
HOSTS: dict[str, Protocol] = {}
RESOLVERS = {host: _resolver(family) for family, host in _HOSTS.items()}
