"""The graph on disk: a networkx DiGraph as canonical node-link JSON, and its digest.

Nodes are tools (platform, domain); edges are links with every attribute of
:class:`~kopa_replay.graph.model.Link`. Nodes and edges are written in sorted
order with sorted keys, so the same graph is the same bytes and the digest
(sha256 of those bytes) names it.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import networkx as nx

from kopa_replay.catalog.model import Catalog
from kopa_replay.errors import UsageError
from kopa_replay.graph.model import Link
from kopa_replay.util import write_atomic

__all__ = ["to_networkx", "from_networkx", "graph_bytes", "graph_digest", "save_graph", "load_graph"]

FORMAT = "kopa-replay/graph@1"


def to_networkx(links: Iterable[Link], catalog: Catalog | None = None) -> nx.DiGraph:
    """A DiGraph of the links (and, with a catalog, every tool as a node even without links)."""
    graph = nx.DiGraph()
    ordered = sorted(links, key=lambda link: link.key)
    names = sorted({name for link in ordered for name in link.key} | set(catalog.names if catalog else ()))
    for name in names:
        attrs: dict[str, Any] = {}
        if catalog is not None and name in catalog:
            tool = catalog.get(name)
            attrs = {"platform": tool.platform, "domain": tool.domain}
        graph.add_node(name, **attrs)
    for link in ordered:
        data = link.to_dict()
        graph.add_edge(data.pop("source"), data.pop("target"), **data)
    return graph


def from_networkx(graph: nx.DiGraph) -> list[Link]:
    return [
        Link.from_dict({"source": u, "target": v, **data})
        for u, v, data in sorted(graph.edges(data=True), key=lambda e: (e[0], e[1]))
    ]


def graph_bytes(links: Sequence[Link], catalog: Catalog | None = None, meta: dict[str, Any] | None = None) -> bytes:
    graph = to_networkx(links, catalog)
    data = {
        "format": FORMAT,
        "meta": meta or {},
        "nodes": [{"id": n, **graph.nodes[n]} for n in sorted(graph.nodes)],
        "links": [
            {"source": u, "target": v, **d} for u, v, d in sorted(graph.edges(data=True), key=lambda e: (e[0], e[1]))
        ],
    }
    return (json.dumps(data, ensure_ascii=False, sort_keys=True, indent=1) + "\n").encode("utf-8")


def graph_digest(links: Sequence[Link]) -> str:
    """sha256 over the links alone (not the metadata): equal graphs, equal digests."""
    return hashlib.sha256(graph_bytes(links)).hexdigest()


def save_graph(
    path: str | Path, links: Sequence[Link], catalog: Catalog | None = None, meta: dict[str, Any] | None = None
) -> Path:
    write_atomic(path, graph_bytes(links, catalog, meta))  # never a half-written graph where a good one was
    return Path(path)


def load_graph(path: str | Path) -> tuple[list[Link], dict[str, Any]]:
    """(links, meta) from a saved graph; a missing or foreign file is a UsageError naming it."""
    path = Path(path)
    if not path.exists():
        raise UsageError(f"no graph at {path}: run `kopa-replay graph build` first")
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise UsageError(f"{path} is not a graph file: {exc}") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise UsageError(f"{path} is not a kopa-replay graph (format {FORMAT})")
    try:
        links = [Link.from_dict(item) for item in data["links"]]
    except (KeyError, TypeError, ValueError) as exc:
        raise UsageError(f"{path}: malformed link ({exc})") from None
    return links, dict(data.get("meta") or {})
