"""경기데이터드림 (Gyeonggi open data) — platform id ``gg``, domain district.

``https://openapi.gg.go.kr/{SERVICE}?KEY=&Type=json&pIndex=1&pSize=100&SIGUN_NM=&SIGUN_CD=``
on the open-API portal software shared with NEIS and 열린국회정보: the
head/row envelope ``{SERVICE:[{"head":[{"list_total_count":N},{"RESULT":…}]},
{"row":[…]}]}``, XML unless ``Type=json``, errors as a bare ``{"RESULT":…}``.
Rows are registers of places across the 31 시군, filtered by ``SIGUN_NM``
(수원시 …) or ``SIGUN_CD`` (the 5-digit 시군구 code, 41110 …).

The animal-hospital service id is ``Animalhosptl`` (the real one); its tool
keeps the name ``gg_gen_anmal_hosptl`` that the drift timeline uses.
Every endpoint comes from a :class:`~kopa_replay.sim.world.datasets.DatasetSpec`
through :func:`endpoint_for_spec`.
"""

from __future__ import annotations

from kopa_replay.sim.core import Endpoint
from kopa_replay.sim.protocols import HeadRowProtocol
from kopa_replay.sim.world.datasets import GG_SPECS, DatasetSpec, spec_handler

__all__ = ["ENDPOINTS", "HOSTS", "GG", "endpoint_for_spec"]

HOST = "openapi.gg.go.kr"
GG = HeadRowProtocol(prefix="/", default_size=100, max_size=1000)


def endpoint_for_spec(spec: DatasetSpec) -> Endpoint:
    """The simulated endpoint of a Gyeonggi dataset spec (route = service id, query keys = spec keys)."""
    return Endpoint(
        spec.tool,
        "gg",
        HOST,
        spec.service,
        GG,
        spec_handler(spec),
        required=spec.required,
        inputs=spec.inputs,
        outputs=spec.outputs,
        options={"root": spec.service},
    )


ENDPOINTS = [endpoint_for_spec(spec) for spec in GG_SPECS]
HOSTS = {HOST: GG}
