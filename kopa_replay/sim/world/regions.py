"""Administrative regions: 시도, 시군구 and 법정동 with 10-digit codes, and populations.

The 17 시도 and their 시군구 carry real names and 법정동 codes (every 시군구 of
Seoul, Gyeonggi and the metropolitan cities, a representative subset of each
province's); every 읍면동 is generated from the seed. A 법정동 code is
``sido(2) + sgg(3) + umd(3) + ri(2)``; LAWD_CD is its first five digits.

At the ``full`` size the tree has the real country's shape (행안부 법정동코드, the existing codes): every
시·군·자치구 (229 units; a city's 일반구 are folded into the city, which holds their 읍면동), each with its
real number of 동, 읍 and 면 (5,066 in all) and of 리 under its 읍·면 (15,212), names still drawn from the
seed. The abolished codes of the full list (25,781 of 46,345 rows) are not generated: the code list service
never sends them. The default size keeps the small tree the tests use, unchanged.
"""

from __future__ import annotations

import datetime as dt
from bisect import bisect_right
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING, Union

from kopa_replay.sim.world.fmt import data, frozen

if TYPE_CHECKING:
    from kopa_replay.sim.world import World

__all__ = ["Sido", "Sigungu", "Dong", "Ri", "RegionWorld", "LegalRegister", "SIDO_TABLE"]

_DATA = data("regions")  # the real 시도 and 시군구 and their counts (their sources beside them there)

SIDO_TABLE = frozen(_DATA["SIDO_TABLE"])
_REAL_SIGUNGU = frozen(_DATA["_REAL_SIGUNGU"])
_DONG_STEMS = frozen(_DATA["_DONG_STEMS"])
_FULL_UNITS = _DATA["_FULL_UNITS"]


@dataclass(frozen=True)
class Sido:
    code: str  # 2 digits
    name: str  # 서울특별시
    short: str  # 서울
    office: str  # NEIS 시도교육청 code (B10 …)
    english: str

    @property
    def region_cd(self) -> str:
        return self.code + "00000000"


@dataclass(frozen=True)
class Sigungu:
    code: str  # 5 digits = LAWD_CD
    name: str  # 강남구
    sido: Sido

    @property
    def region_cd(self) -> str:
        return self.code + "00000"

    @property
    def full_name(self) -> str:
        return f"{self.sido.name} {self.name}"


@dataclass(frozen=True)
class Dong:
    code: str  # 10 digits (법정동 code)
    name: str  # 역삼동
    sigungu: Sigungu
    adopted: dt.date  # adpt_de: when the code took effect

    @property
    def full_name(self) -> str:
        return f"{self.sigungu.full_name} {self.name}"


@dataclass(frozen=True)
class Ri:
    code: str  # 10 digits: its 읍·면's first 8 and 21, 22 …
    name: str  # 송정리
    dong: Dong  # the 읍 or 면 it lies in
    adopted: dt.date

    @property
    def full_name(self) -> str:
        return f"{self.dong.full_name} {self.name}"


Region = Union[Sido, Sigungu, Dong, Ri]


class LegalRegister:
    """Every existing 법정동 code in code order: its region, parent code and place among its siblings.

    ``find`` looks a part of a full name up in one string of all the names (C-speed, no per-row Python), so a
    search costs one pass over the names and its matches; the rows themselves are made by the caller, per page.
    """

    def __init__(self, regions: dict[str, Region]) -> None:
        self.codes = sorted(regions)
        self.regions = [regions[code] for code in self.codes]
        self.parents: list[str] = []
        self.order: list[int] = []
        seen: dict[str, int] = {}
        for region in self.regions:
            parent = _parent_code(region)
            seen[parent] = seen.get(parent, 0) + 1
            self.parents.append(parent)
            self.order.append(seen[parent])
        names = [_full_name(region) for region in self.regions]
        self._text = "\n".join(names) + "\n"
        self._starts = [0]
        for name in names:
            self._starts.append(self._starts[-1] + len(name) + 1)

    def __len__(self) -> int:
        return len(self.codes)

    def find(self, part: str) -> list[int]:
        """The indices of the codes whose full name contains ``part`` (부분일치), in code order."""
        if "\n" in part:
            return []
        if not part:
            return list(range(len(self.codes)))
        found, pos = [], self._text.find(part)
        while pos >= 0:
            index = bisect_right(self._starts, pos) - 1
            found.append(index)
            pos = self._text.find(part, self._starts[index + 1])
        return found


def _full_name(region: Region) -> str:
    return region.name if isinstance(region, Sido) else region.full_name


def _parent_code(region: Region) -> str:
    if isinstance(region, Sido):
        return "0000000000"
    if isinstance(region, Sigungu):
        return region.sido.region_cd
    if isinstance(region, Dong):
        return region.sigungu.region_cd
    return region.dong.code


def _umd_numbers(dongs: int, eups: int, myeons: int) -> list[int]:
    """The 3-digit 읍면동 parts of a 시군구's codes as 행안부 numbers them: 동 from 101, 읍 from 250, 면 from 310."""
    numbers = [101 + i for i in range(dongs)]
    start = max(250, numbers[-1] + 1 if numbers else 250)
    step = 3 if start + 3 * eups <= 310 else 1
    numbers += [start + step * i for i in range(eups)]
    start = max(310, numbers[-1] + 1 if numbers else 310)
    step = 10 if start + 10 * myeons <= 1000 else 1
    return numbers + [start + step * i for i in range(myeons)]


class RegionWorld:
    """The seeded region tree and its monthly resident populations."""

    def __init__(self, world: "World") -> None:
        self._world = world

    @cached_property
    def _full(self) -> bool:
        """Whether the tree has the real country's shape (the ``full`` world)."""
        return self._world.size == "full"

    @cached_property
    def _units(self) -> dict[tuple[str, str], tuple[str, int, int, int, int]]:
        """(시도 code, name) → (code, 동, 읍, 면, 리) of every real 시·군·구 (``_FULL_UNITS``)."""
        out = {}
        for line in _FULL_UNITS.strip().splitlines():
            code, name, dong, eup, myeon, ri = line.split()
            out[(code[:2], name)] = (code, int(dong), int(eup), int(myeon), int(ri))
        return out

    @cached_property
    def sido(self) -> tuple[Sido, ...]:
        return tuple(Sido(*row) for row in SIDO_TABLE)

    @cached_property
    def sigungu(self) -> tuple[Sigungu, ...]:
        # Real names and codes everywhere; outside Seoul, Gyeonggi and the metropolitan cities only a
        # representative subset of each province's 시군, enough for every platform to bind across.
        listed = tuple(
            Sigungu(sido.code + suffix, name, sido) for sido in self.sido for suffix, name in _REAL_SIGUNGU[sido.code]
        )
        if not self._full:
            return listed
        # the full world adds every other real 시·군·구, after its province's listed ones
        known = {(s.sido.code, s.name) for s in listed}
        out: list[Sigungu] = []
        for sido in self.sido:
            out += [s for s in listed if s.sido is sido]
            more = sorted((code, name) for (sd, name), (code, *_) in self._units.items() if sd == sido.code)
            out += [Sigungu(code, name, sido) for code, name in more if (sido.code, name) not in known]
        return tuple(out)

    @cached_property
    def dongs(self) -> tuple[Dong, ...]:
        if self._full:
            return self._full_tree[0]
        rng = self._world.rng("regions.dongs")
        per = self._world.sizes.dongs_per_sigungu
        out: list[Dong] = []
        for sgg in self.sigungu:
            count = int(rng.integers(max(2, per // 2), per + 1))
            stems = rng.choice(len(_DONG_STEMS), size=min(count, len(_DONG_STEMS)), replace=False)
            for i, stem in enumerate(stems):
                suffix = "동" if sgg.name.endswith("구") else ("읍" if i == 0 else "면")
                adopted = dt.date(1988, 4, 23) + dt.timedelta(days=int(rng.integers(0, 12000)))
                out.append(Dong(f"{sgg.code}{101 + i:03d}00", _DONG_STEMS[int(stem)] + suffix, sgg, adopted))
        return tuple(out)

    @cached_property
    def ris(self) -> tuple[Ri, ...]:
        """The 리 under the 읍·면 (the full world only; the default tree has none)."""
        return self._full_tree[1] if self._full else ()

    @staticmethod
    def _name(stems: list[int], i: int, suffix: str) -> str:
        """The i-th name of a drawn order of stems: 청운동 …, then 청운1가 … once the stems run out."""
        stem = _DONG_STEMS[stems[i % len(stems)]]
        turn = i // len(stems)
        return stem + suffix if not turn else f"{stem}{turn}{'가' if suffix == '동' else suffix}"

    @cached_property
    def _full_tree(self) -> tuple[tuple[Dong, ...], tuple[Ri, ...]]:
        """Every 시·군·구's real number of 동, 읍, 면 and 리, named and dated from the seed."""
        rng = self._world.rng("regions.full_tree")
        dongs: list[Dong] = []
        ris: list[Ri] = []
        for sgg in self.sigungu:
            _, n_dong, n_eup, n_myeon, n_ri = self._units[(sgg.sido.code, sgg.name)]
            stems = [int(i) for i in rng.permutation(len(_DONG_STEMS))]
            kinds = ["동"] * n_dong + ["읍"] * n_eup + ["면"] * n_myeon
            mine: list[Dong] = []
            for i, (number, kind) in enumerate(zip(_umd_numbers(n_dong, n_eup, n_myeon), kinds)):
                adopted = dt.date(1988, 4, 23) + dt.timedelta(days=int(rng.integers(0, 12000)))
                mine.append(Dong(f"{sgg.code}{number:03d}00", self._name(stems, i, kind), sgg, adopted))
            dongs += mine
            rural = [d for d in mine if d.name[-1] in "읍면"]
            if not rural or not n_ri:
                continue
            # every 읍·면 has a 리 or more; the rest spread unevenly, at most 79 to one (codes 21 … 99)
            counts = [1] * len(rural)
            for i in rng.choice(len(rural), size=max(0, n_ri - len(rural)), p=rng.dirichlet([1.5] * len(rural))):
                counts[int(i) if counts[int(i)] < 79 else counts.index(min(counts))] += 1
            for dong, count in zip(rural, counts[:n_ri]):
                ri_stems = [int(i) for i in rng.permutation(len(_DONG_STEMS))]
                for k in range(count):
                    adopted = dt.date(1988, 4, 23) + dt.timedelta(days=int(rng.integers(0, 12000)))
                    ris.append(Ri(f"{dong.code[:8]}{21 + k:02d}", self._name(ri_stems, k, "리"), dong, adopted))
        return tuple(dongs), tuple(ris)

    @cached_property
    def register(self) -> LegalRegister:
        """Every existing 법정동 code (시도, 시군구, 읍면동 and, in the full world, 리) as the code list holds it."""
        return LegalRegister({**self.by_code, **{ri.code: ri for ri in self.ris}})

    @cached_property
    def by_code(self) -> dict[str, Sido | Sigungu | Dong]:
        """Every region by its 10-digit code (시도 and 시군구 padded with zeros)."""
        table: dict[str, Sido | Sigungu | Dong] = {}
        for sido in self.sido:
            table[sido.region_cd] = sido
        for sgg in self.sigungu:
            table[sgg.region_cd] = sgg
        for dong in self.dongs:
            table[dong.code] = dong
        return table

    def sigungu_of(self, sido: Sido) -> list[Sigungu]:
        return [s for s in self.sigungu if s.sido is sido]

    def dongs_of(self, sgg: Sigungu) -> list[Dong]:
        return [d for d in self.dongs if d.sigungu is sgg]

    def population(self, dong: Dong, month: str) -> dict[str, int]:
        """Residents and households of a 법정동 in a month (``YYYYMM``); stable per (seed, dong, month)."""
        rng = self._world.rng("regions.population", dong.code)
        # the full tree's many small 법정동 share the real 51 million (≈10,000 a dong)
        base = int(rng.integers(500, 19_700)) if self._full else int(rng.integers(2_000, 60_000))
        start = dt.date(2024, 1, 1)
        months = (int(month[:4]) - start.year) * 12 + int(month[4:6]) - 1
        drift = rng.normal(0, 0.004, size=max(months + 1, 1)).cumsum()
        total = int(base * (1 + drift[months])) if months >= 0 else base
        male = int(total * (0.47 + 0.06 * float(rng.random())))
        households = int(total / (1.9 + 0.8 * float(rng.random())))
        return {"total": total, "male": male, "female": total - male, "households": households}
