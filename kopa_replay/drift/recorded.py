"""Drift over what a store recorded: a snapshot's responses, its per-tool schema digests, and the drift between
two snapshots of one store.

The recorder (:mod:`kopa_replay.record`) knows no schema: sealing takes :func:`tool_schema_digests` from its
caller for the manifest, and the record and refresh workflows (:mod:`kopa_replay.stages.workflows`) call
:func:`drift_report` after a refresh.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from kopa_replay.catalog.model import Catalog
from kopa_replay.drift.diff import diff_schemas
from kopa_replay.drift.requests import DriftReport, diff_requests, pair_responses, request_id, twin_index
from kopa_replay.drift.schema import RecordedResponse, infer_schemas, infer_tool_schema
from kopa_replay.record.snapshots import left_out_entries
from kopa_replay.record.store import Store

__all__ = ["diff_snapshots", "drift_report", "recorded_responses", "tool_schema_digests"]


def recorded_responses(store: Store, name: str) -> Iterator[RecordedResponse]:
    """The snapshot's responses as the drift module reads them."""
    for item in store.interactions(name):
        if item.tool is None:
            continue
        yield RecordedResponse(
            item.tool,
            item.method,
            item.url,
            item.status,
            item.content_type,
            store.body(item.body_digest),
            item.request_key,
            item.seq,
        )


def tool_schema_digests(store: Store, name: str, catalog: Catalog) -> dict[str, str]:
    """The digest of each tool's inferred response schema in snapshot ``name``, by tool (a seal's manifest holds
    them: :func:`kopa_replay.record.snapshots.seal_snapshot`)."""
    schemas = infer_schemas(catalog, recorded_responses(store, name))
    return {tool: schemas[tool].digest() for tool in sorted(schemas)}


def drift_report(store: Store, catalog: Catalog, before: str, after: str) -> DriftReport:
    """The drift between two snapshots of one store: per-tool schema changes and request-level transitions,
    each naming its requests, with environmental noise and data changes apart
    (:class:`~kopa_replay.drift.requests.DriftReport`)."""
    store.snapshot(before)
    store.snapshot(after)
    old, new = list(recorded_responses(store, before)), list(recorded_responses(store, after))
    old_by_tool, new_by_tool = _by_tool(catalog, old), _by_tool(catalog, new)
    new_twins = twin_index(catalog, new)
    made = store.provenance(after) or {}
    blocked = {e["request"]: e["evidence"] for e in left_out_entries(made)}
    old_schemas, new_schemas = {}, {}
    pairs = []
    # one tool at a time, both snapshots: a body is parsed once (schema.parse_response's cache holds one tool's
    # answers, not a whole snapshot's) and its twin, most often the same bytes, is read from it
    for name in sorted(set(old_by_tool) | set(new_by_tool)):
        tool = catalog.get(name)
        if name in old_by_tool:
            old_schemas[name] = infer_tool_schema(tool, old_by_tool[name])
            pairs += pair_responses(catalog, old_by_tool[name], twins=new_twins, blocked=blocked)
        if name in new_by_tool:
            # the same answers (a carried-over or undrifted tool) are inferred once: infer_tool_schema keeps them
            new_schemas[name] = infer_tool_schema(tool, new_by_tool[name])
    # a tool the new snapshot holds no answer of because every answer it got was blocked is not missing: its
    # schema is unknown now, and the incidents say why (the request pairs carry the evidence)
    walled = {
        name
        for name in old_by_tool
        if name not in new_by_tool and any(request_id(r) in blocked for r in old_by_tool[name])
    }
    schema = diff_schemas({k: v for k, v in old_schemas.items() if k not in walled}, new_schemas)
    # an incremental refresh of `before` copied these tools' answers: the same bytes say nothing about drift
    carried = (made.get("carried_over") or {}).get("tools", ()) if made.get("base") == before else ()
    twins = {(r.request_key, r.seq) for r in old}
    unpaired = sum(1 for r in new if r.tool in catalog and (r.request_key, r.seq) not in twins)
    pairs.sort(key=lambda p: (p.tool, p.request))
    return diff_requests(pairs, schema, carried=carried, unpaired=unpaired)


def _by_tool(catalog: Catalog, responses: list[RecordedResponse]) -> dict[str, list[RecordedResponse]]:
    grouped: dict[str, list[RecordedResponse]] = {}
    for response in responses:
        if response.tool in catalog:
            grouped.setdefault(response.tool, []).append(response)
    return grouped


def diff_snapshots(store: Store, catalog: Catalog, before: str, after: str) -> list[Any]:
    """The drift changes (schema and request level) between two snapshots of one store, sorted."""
    return list(drift_report(store, catalog, before, after).changes)
