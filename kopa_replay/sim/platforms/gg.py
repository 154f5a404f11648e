"""경기데이터드림 (Gyeonggi open data) — platform id ``gg``, domain district.

``https://openapi.gg.go.kr/{SERVICE}?KEY=&Type=json&pIndex=1&pSize=100&SIGUN_NM=&SIGUN_CD=``
on the open-API portal software shared with NEIS and 열린국회정보: the
head/row envelope ``{SERVICE:[{"head":[{"list_total_count":N},{"RESULT":…}]},
{"row":[…]}]}``, XML unless ``Type=json``, errors as a bare ``{"RESULT":…}``.
Rows are registers of places across the 31 시군, filtered by ``SIGUN_NM``
(수원시 …) or ``SIGUN_CD`` (the 5-digit 시군구 code, 41110 …).

The animal-hospital service id is ``Animalhosptl`` (the real one); its tool
keeps the name ``gg_gen_anmal_hosptl`` that the drift timeline uses.
Every endpoint is a row of ``kopa_replay/sim/tables/gg.yaml`` answered by the generic engine over a
dataset world table the same file declares.
"""

from __future__ import annotations

from kopa_replay.sim.protocols import HeadRowProtocol
from kopa_replay.sim.tables import endpoints, load_table
from kopa_replay.sim.world.datasets import dataset_table, load_datasets

__all__ = ["ENDPOINTS", "HOSTS", "GG", "TABLES"]

HOST = "openapi.gg.go.kr"
GG = HeadRowProtocol(prefix="/", default_size=100, max_size=1000)
#: the world tables a row can name: the datasets kopa_replay/sim/tables/gg.yaml declares
TABLES = {name: dataset_table(spec) for name, spec in load_datasets(load_table("gg").extra["datasets"]).items()}
ENDPOINTS = endpoints("gg", HOST, GG, TABLES)
HOSTS = {HOST: GG}
