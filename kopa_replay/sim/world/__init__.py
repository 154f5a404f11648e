"""The seeded world the simulator serves: one object per domain, built lazily.

``World(seed)`` is a pure function of its seed (and size preset): every
sub-world draws from its own ``numpy.random.Generator`` keyed by
``(seed, label)``, so adding a new sub-world never shifts the values of
another. The as-of date is not part of the world; endpoints filter by it
(prices exist up to the business day before the as-of date, and so on).
"""

from __future__ import annotations

import hashlib
import os
import threading
from collections import OrderedDict
from dataclasses import dataclass
from functools import cached_property
from importlib import import_module
from typing import Any

import numpy as np

from kopa_replay.errors import SimError

__all__ = ["World", "WorldSizes", "WORLD_SIZES", "WORLD_SIZE_ENV", "evict_oldest", "stable_int", "world_size"]


def stable_int(*parts: object) -> int:
    """A 64-bit integer from the sha256 of the parts: stable across processes and runs."""
    text = "\x1f".join(str(p) for p in parts)
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big")


@dataclass(frozen=True)
class WorldSizes:
    """How many entities each sub-world holds.

    ``full`` (what the simulator serves unless told otherwise, see
    :func:`world_size`) reaches the real sizes of ``reference/world-scale.md``;
    ``default`` is a small world that keeps unit tests fast.
    """

    listed_companies: int
    unlisted_companies: int
    dongs_per_sigungu: int
    tago_cities: int
    routes_per_city: int
    seoul_routes: int
    schools_per_office: int
    laws: int
    legislators: int
    bills: int
    dataset_rows: int


WORLD_SIZES = {
    "default": WorldSizes(
        listed_companies=300,
        unlisted_companies=700,
        dongs_per_sigungu=12,
        tago_cities=12,
        routes_per_city=25,
        seoul_routes=60,
        schools_per_office=40,
        laws=160,
        legislators=300,
        bills=1200,
        dataset_rows=600,
    ),
    "full": WorldSizes(
        listed_companies=2685,
        unlisted_companies=111_421,
        dongs_per_sigungu=40,
        tago_cities=132,
        routes_per_city=120,
        seoul_routes=378,
        schools_per_office=700,
        laws=1600,
        legislators=300,
        bills=25_855,
        dataset_rows=5000,
    ),
}

#: the environment variable that picks the world when none is named (the test suite sets ``default``)
WORLD_SIZE_ENV = "KOPA_WORLD_SIZE"


def evict_oldest(cache: dict[Any, Any], keep: int) -> None:
    """Drop a cache's oldest entries (insertion order; an OrderedDict's move_to_end makes it least recently used)
    until ``keep`` remain. Best effort: the simulator's threads share one world, and a process's simulators share
    built worlds, so another thread may have dropped them first."""
    while len(cache) > keep:
        try:
            cache.pop(next(iter(cache)))
        except (KeyError, RuntimeError, StopIteration):
            return


def world_size(size: str | None = None) -> str:
    """The world preset ``size`` names, or when None the one :data:`WORLD_SIZE_ENV` names, else ``full``: the
    platforms at their real sizes are what the simulator serves unless a smaller world is asked for."""
    chosen = size if size is not None else (os.environ.get(WORLD_SIZE_ENV) or "full")
    if chosen not in WORLD_SIZES:
        named = f"{WORLD_SIZE_ENV}={chosen!r}" if size is None else repr(chosen)
        raise SimError(f"unknown world size {named} (known: {', '.join(WORLD_SIZES)})")
    return chosen


# sub-world attribute -> "module:Class"; each module lives beside this file.
_SUBWORLDS = {
    "regions": "regions:RegionWorld",
    "finance": "finance:FinanceWorld",
    "market": "market:MarketWorld",
    "transit": "transit:TransitWorld",
    "schools": "schools:SchoolWorld",
    "laws": "laws:LawWorld",
    "assembly": "assembly:AssemblyWorld",
    "datasets": "datasets:DatasetWorld",
    "rtms": "mois_rtms:RtmsWorld",
    "buildings": "mois_bldg:BuildingWorld",
}


#: the sub-worlds built in this process, by (seed, size), the most recent few: a world is a pure function of its
#: seed and size and never changes once built, and a process that opens one source after another (a benchmark's
#: workload, then the refresh it feeds) would otherwise build the full-size world again each time (≈30 s)
_BUILT: OrderedDict[tuple[int, str], dict[str, Any]] = OrderedDict()
_BUILT_WORLDS = 2
_BUILT_LOCK = threading.Lock()
_BUILD_LOCK = threading.RLock()


def _built_subworlds(seed: int, size: str) -> dict[str, Any]:
    with _BUILT_LOCK:
        key = (seed, size)
        if key not in _BUILT:
            _BUILT[key] = {}
            while len(_BUILT) > _BUILT_WORLDS:
                _BUILT.popitem(last=False)
        _BUILT.move_to_end(key)
        return _BUILT[key]


class World:
    """All entities of one seeded universe."""

    def __init__(self, seed: int = 0, size: str | None = None) -> None:
        if not isinstance(seed, int) or isinstance(seed, bool) or seed < 0:
            raise SimError(f"seed must be a non-negative integer, not {seed!r}")
        size = world_size(size)
        self.seed = seed
        self.size = size
        self.sizes = WORLD_SIZES[size]
        self._subworlds = _built_subworlds(seed, size)

    def rng(self, *labels: object) -> np.random.Generator:
        """An independent generator for one purpose, keyed by (seed, labels)."""
        return np.random.default_rng([self.seed, stable_int(*labels)])

    def __getattr__(self, name: str) -> Any:
        # Sub-worlds are imported and built on first use, so a test of one
        # platform never pays for the others.
        spec = _SUBWORLDS.get(name)
        if spec is None:
            raise AttributeError(name)
        built = self._subworlds.get(name)
        if built is None:
            # one builder at a time (re-entrant: a sub-world asks for the ones it rests on): the threads of a
            # server, and simulators sharing this world, would otherwise build the full-size one twice at once
            with _BUILD_LOCK:
                built = self._subworlds.get(name)
                if built is None:
                    module, cls = spec.split(":")
                    built = self._subworlds[name] = getattr(import_module(f"{__name__}.{module}"), cls)(self)
        return built

    @cached_property
    def fingerprint(self) -> str:
        return f"seed={self.seed},size={self.size}"
