"""Graphs on disk: canonical JSON, a digest that names the links, clear errors for bad files."""

from __future__ import annotations

import json

import networkx as nx
import pytest
from hypothesis import given
from hypothesis import strategies as st

from kopa_replay.errors import UsageError
from kopa_replay.graph.model import Link
from kopa_replay.graph.store import FORMAT, _dumps, graph_bytes, graph_digest, load_graph, save_graph, to_networkx

NAMES = st.sampled_from(["a", "b", "c", "d"])
LINK = st.builds(
    lambda s, t, p, trials: Link(s, t, {"x": "y"}, p, trials=trials, successes=trials // 2),
    NAMES,
    NAMES,
    st.floats(0, 1),
    st.integers(0, 9),
)
LINKS = st.lists(LINK, max_size=8, unique_by=lambda link: link.key)


@given(LINKS, st.randoms())
def test_the_digest_ignores_order_and_follows_content(links, random):
    shuffled = list(links)
    random.shuffle(shuffled)
    assert graph_digest(links) == graph_digest(shuffled)
    if links:
        changed = [Link.from_dict({**links[0].to_dict(), "trials": links[0].trials + 1}), *links[1:]]
        assert graph_digest(changed) != graph_digest(links)


def test_round_trip_keeps_every_attribute(tmp_path, catalog):
    links = [
        Link(
            "dart_corp_code",
            "dart_cvbd_is_decsn",
            {"corp_code": "corp_code"},
            0.98,
            0.4,
            False,
            5.0,
            1.5,
            4,
            4,
            {"structural": 0, "environmental": 1},
        ),
        Link("dart_corp_code", "law_search_law", {"query": "corp_name"}, 0.4, pruned=True, pruned_at=3, trials=2),
    ]
    path = save_graph(tmp_path / "g.json", links, catalog, {"stage": "pruned"})
    loaded, meta = load_graph(path)
    assert [link.to_dict() for link in loaded] == [link.to_dict() for link in sorted(links, key=lambda link: link.key)]
    assert meta == {"stage": "pruned"}
    graph = to_networkx(loaded, catalog)
    assert isinstance(graph, nx.DiGraph) and graph.number_of_nodes() == len(catalog)
    assert graph.edges["dart_corp_code", "dart_cvbd_is_decsn"]["alpha"] == 5.0
    assert graph.nodes["dart_corp_code"]["platform"] == "dart"


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True) | st.text(),
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.tuples(inner, inner)
        | st.dictionaries(st.text(), inner, max_size=4)
        | st.dictionaries(st.integers(), inner, max_size=2)
    ),
    max_leaves=12,
)


@given(JSON)
def test_the_graph_writer_writes_what_json_writes(value):
    # the writer's own path for plain values; json's for the rest (int keys, NaN): the same text either way
    assert _dumps(value) == json.dumps(value, ensure_ascii=False, sort_keys=True, indent=1)


@given(st.lists(LINK, max_size=8), st.booleans())
def test_graph_bytes_are_the_networkx_graphs_file(links, with_catalog):
    """The file written without building the DiGraph is the DiGraph's: one edge per pair (the last link given),
    nodes sorted, a catalog's tools among them."""
    from kopa_replay.catalog import builtin_catalog

    catalog = builtin_catalog() if with_catalog else None
    links = [*links, Link("dart_corp_code", "a", {"x": "y"}, 0.5)]
    graph = to_networkx(links, catalog)
    document = {
        "format": FORMAT,
        "meta": {"stage": "pruned", "prune": {"seed": 0}},
        "nodes": [{"id": n, **graph.nodes[n]} for n in sorted(graph.nodes)],
        "links": [{"source": u, "target": v, **d} for u, v, d in sorted(graph.edges(data=True))],
    }
    expected = json.dumps(document, ensure_ascii=False, sort_keys=True, indent=1) + "\n"
    assert graph_bytes(links, catalog, document["meta"]) == expected.encode()


@pytest.mark.parametrize(
    "content, needle",
    [
        (None, "graph build"),
        ("not json", "not a graph file"),
        (json.dumps({"format": "other"}), "not a kopa-replay graph"),
        (json.dumps({"format": "kopa-replay/graph@1", "links": [{"source": "a"}]}), "malformed link"),
    ],
)
def test_bad_graph_files_are_named_in_the_error(tmp_path, content, needle):
    path = tmp_path / "graph.json"
    if content is not None:
        path.write_text(content)
    with pytest.raises(UsageError, match=needle) as info:
        load_graph(path)
    assert str(path) in str(info.value)
