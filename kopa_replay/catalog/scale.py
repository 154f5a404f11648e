"""Expand the built-in catalog to the paper's scale: exactly 2,318 tools.

The generated tools are the dataset long tail of the Seoul, Gyeonggi and
data.go.kr platforms, defined in :mod:`kopa_replay.catalog.paper_scale` (the
simulator serves them). Their bindings reuse the platform defaults of the
hand-modelled tools of the same platform (host, key placement, envelope,
result codes), and they go through the same loader and validation as any
catalog file.
"""

from __future__ import annotations

from typing import Any

from kopa_replay.catalog.load import _tools_of_document, tool_to_dict
from kopa_replay.catalog.model import Catalog
from kopa_replay.catalog.paper_scale import PAPER_TOOL_COUNT, paper_specs, paper_tool_dicts
from kopa_replay.errors import CatalogError

__all__ = ["expand_to_paper_scale", "PAPER_TOOL_COUNT"]

#: Which hand-modelled tool lends its platform defaults to each generated family.
_TEMPLATES = {
    "seoul": "seoul_card_subway_stats_new",
    "gg": "gg_gen_anmal_hosptl",
    "datagokr": "datagokr_get_stan_regin_cd_list",
}


def _platform_defaults(catalog: Catalog, family: str) -> dict[str, Any]:
    template = tool_to_dict(catalog.get(_TEMPLATES[family]))
    http = {k: v for k, v in template["http"].items() if k not in ("path", "fixed_query", "zip_member")}
    if family == "datagokr":
        # 표준데이터 APIs: the standard data.go.kr envelope and JSON via type=json.
        http["envelope"] = {
            "records": ["response.body.items.item"],
            "total": ["response.body.totalCount"],
            "code": ["response.header.resultCode", "OpenAPI_ServiceResponse.cmmMsgHeader.returnReasonCode"],
            "message": ["response.header.resultMsg", "OpenAPI_ServiceResponse.cmmMsgHeader.returnAuthMsg"],
        }
        http["fixed_query"] = {"type": "json"}
        http["pagination"] = {
            "style": "page",
            "page_param": "pageNo",
            "size_param": "numOfRows",
            "default_size": 10,
            "max_size": 1000,
        }
    return {"id": family, "domain": "district", **http}


def _named_envelope(family: str, service: str) -> dict[str, Any] | None:
    """Seoul and Gyeonggi envelopes are rooted at the service name, so each tool carries its own paths."""
    if family == "seoul":
        return {
            "records": [f"{service}.row"],
            "total": [f"{service}.list_total_count"],
            "code": [f"{service}.RESULT.CODE", "RESULT.CODE"],
            "message": [f"{service}.RESULT.MESSAGE", "RESULT.MESSAGE"],
        }
    if family == "gg":
        return {
            "records": [f"{service}.1.row", f"{service}.row"],
            "total": [f"{service}.0.head.0.list_total_count", f"{service}.head.list_total_count"],
            "code": [f"{service}.0.head.1.RESULT.CODE", f"{service}.head.RESULT.CODE", "RESULT.CODE"],
            "message": [f"{service}.0.head.1.RESULT.MESSAGE", f"{service}.head.RESULT.MESSAGE", "RESULT.MESSAGE"],
        }
    return None


def expand_to_paper_scale(builtin: Catalog) -> Catalog:
    """The built-in tools followed by generated ones, exactly 2,318 in a fixed order."""
    entries = paper_tool_dicts(len(builtin))
    for entry, spec in zip(entries, paper_specs(len(builtin))):
        envelope = _named_envelope(spec.family, spec.route)
        if envelope is not None:
            entry["http"]["envelope"] = envelope
    document = {"platforms": [_platform_defaults(builtin, f) for f in ("seoul", "gg", "datagokr")], "tools": entries}
    generated = _tools_of_document(document, "<paper-scale>")
    catalog = Catalog([*builtin, *generated], source="<built-in, paper scale>")
    if len(catalog) != PAPER_TOOL_COUNT:
        raise CatalogError(
            f"paper scale produced {len(catalog)} tools, not {PAPER_TOOL_COUNT} "
            "(a generated name collides with a built-in one)",
            source="<paper-scale>",
        )
    return catalog
