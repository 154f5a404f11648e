"""The graph on disk: a networkx DiGraph as canonical node-link JSON, and its digest.

Nodes are tools (platform, domain); edges are links with every attribute of
:class:`~kopa_replay.graph.model.Link`. Nodes and edges are written in sorted
order with sorted keys, so the same graph is the same bytes and the digest
(sha256 of those bytes) names it.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Callable, Iterable, Sequence
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
    """The canonical file of :func:`to_networkx`'s graph, written without building it (a pruning run writes
    two: the digest's and the file's): one edge per pair of tools, the last link given for it, as a DiGraph
    keeps it; nodes and edges sorted."""
    edges = {link.key: link for link in links}
    names = sorted({name for key in edges for name in key} | set(catalog.names if catalog else ()))
    data = {
        "format": FORMAT,
        "meta": meta or {},
        "nodes": [_node(name, catalog) for name in names],
        "links": [edges[key].to_dict() for key in sorted(edges)],
    }
    return (_dumps(data) + "\n").encode("utf-8")


def _node(name: str, catalog: Catalog | None) -> dict[str, Any]:
    if catalog is None or name not in catalog:
        return {"id": name}
    tool = catalog.get(name)
    return {"id": name, "platform": tool.platform, "domain": tool.domain}


def _dumps(data: Any) -> str:
    """``json.dumps(data, ensure_ascii=False, sort_keys=True, indent=1)``, character for character.

    With an indent, json encodes in pure Python, one generator per container: a paper-scale graph (18,000
    links) took half a second, twice per pruning run (the digest, then the file). :func:`_text` writes the
    same text for what a graph holds; anything else (a key that is not a string, a number that is not finite,
    a subclass of a JSON type) is left to json itself."""
    try:
        return _text(data, "\n")
    except _Unusual:
        return json.dumps(data, ensure_ascii=False, sort_keys=True, indent=1)


class _Unusual(Exception):
    """A value :func:`_text` leaves to json."""


def _finite(value: float) -> str:
    if not math.isfinite(value):
        raise _Unusual  # json writes NaN, Infinity: its words, not repr's
    return float.__repr__(value)


_string = json.encoder.encode_basestring  # json's own (C) escaper, ensure_ascii=False
#: how json writes each plain scalar type
_SCALARS: dict[type, Callable[[Any], str]] = {
    str: _string,
    int: int.__repr__,
    float: _finite,
    bool: lambda value: "true" if value else "false",
    type(None): lambda value: "null",
}


def _text(value: Any, newline: str) -> str:
    """json's indent=1 text of ``value`` written at the depth whose line break is ``newline``."""
    scalar = _SCALARS.get(type(value))
    if scalar is not None:
        return scalar(value)
    kind, inner, plain = type(value), newline + " ", _SCALARS.get
    if kind is dict:
        if not value:
            return "{}"
        if any(type(key) is not str for key in value):
            raise _Unusual  # json turns such keys into strings, and sort_keys may not order them alike
        # scalars written in place: a call per value cost more than the writing
        items = [
            f"{inner}{_string(key)}: {write(item) if (write := plain(type(item))) else _text(item, inner)}"
            for key, item in sorted(value.items())  # keys differ: the values are never compared
        ]
        return "{" + ",".join(items) + newline + "}"
    if kind is list or kind is tuple:
        if not value:
            return "[]"
        items = [inner + (write(item) if (write := plain(type(item))) else _text(item, inner)) for item in value]
        return "[" + ",".join(items) + newline + "]"
    raise _Unusual


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
