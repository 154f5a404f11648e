"""The paper-scale catalog: exactly 2,318 tools, deterministic, every one executable by the simulator."""

from __future__ import annotations

import collections

import pytest

from kopa_replay.catalog import builtin_catalog
from kopa_replay.catalog.paper_scale import specs_by_tool
from kopa_replay.catalog.scale import expand_to_paper_scale
from kopa_replay.env import execute
from kopa_replay.sim.registry import registry


@pytest.fixture(scope="module")
def paper():
    return builtin_catalog("paper")


def test_exactly_2318_tools_with_unique_names(paper):
    assert len(paper) == 2318
    assert len(set(paper.names)) == 2318
    assert set(builtin_catalog().names) <= set(paper.names)


def test_the_expansion_is_deterministic(paper):
    again = expand_to_paper_scale(builtin_catalog())
    assert again.names == paper.names
    assert again.digest() == paper.digest()


def test_generated_tools_spread_over_the_dataset_families(paper):
    generated = [t for t in paper if t.name not in builtin_catalog()]
    families = collections.Counter(t.platform for t in generated)
    assert set(families) == {"seoul", "gg", "datagokr"}
    assert min(families.values()) > 500
    kinds = collections.Counter(specs_by_tool()[t.name].kind for t in generated)
    assert kinds["stats"] > 300 and kinds["facility"] > 300


def test_every_generated_tool_executes_its_example(paper, client):
    failures = []
    for tool in paper:
        if tool.name in builtin_catalog():
            continue
        assert registry().endpoint_for_tool(tool.name) is not None, tool.name
        result = execute(tool, tool.examples[0], client, "sim-key")
        if result.outcome != "ok" or not result.records:
            failures.append((tool.name, result.outcome, result.code, result.message))
    assert not failures, failures[:5]


@pytest.mark.parametrize("family", ["seoul", "gg", "datagokr"])
def test_generated_lists_paginate_with_true_totals(paper, client, family):
    tool = next(
        t
        for t in paper
        if t.platform == family and t.name in specs_by_tool() and specs_by_tool()[t.name].kind == "facility"
    )
    pag = tool.http.pagination
    if pag.style == "range":
        pages = [{pag.start_param: 1, pag.end_param: 5}, {pag.start_param: 6, pag.end_param: 10}]
    else:
        pages = [{pag.size_param: 5}, {pag.size_param: 5, pag.page_param: 2}]
    first, second = (execute(tool, {**tool.examples[0], **p}, client, "sim-key") for p in pages)
    assert first.outcome == second.outcome == "ok"
    assert first.records != second.records
    assert first.total_count == second.total_count and first.total_count > 10
