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
    # evenly: the generated fill (2,318 less the real tools) shared by the three families, none short of a third
    assert max(families.values()) - min(families.values()) <= 2 and min(families.values()) > 450
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


# -- real operations first; the generated fill says so ---------------------------------------------------


def test_the_paper_scale_starts_with_every_real_tool_and_marks_only_the_fill_generated(paper):
    real = builtin_catalog()
    assert [t.name for t in paper][: len(real)] == [t.name for t in real]
    assert not any(t.generated for t in real)
    assert all(t.generated for t in list(paper)[len(real) :])
    assert [t.name for t in paper.real()] == [t.name for t in real]


def test_a_generated_tool_says_so_in_its_mcp_definition_and_in_catalog_list_json(paper):
    import json

    from click.testing import CliRunner

    from kopa_replay.catalog.model import GENERATED_META
    from kopa_replay.cli import cli

    fill = next(t for t in paper if t.generated)
    assert fill.to_mcp()["_meta"] == {GENERATED_META: True}
    assert "_meta" not in builtin_catalog().get("dart_company").to_mcp()
    result = CliRunner().invoke(cli, ["catalog", "list", "--scale", "paper", "--json"])
    assert result.exit_code == 0, result.output
    rows = json.loads(result.output)
    assert sum(row["generated"] for row in rows) == len(paper) - len(builtin_catalog())
    assert {row["generated"] for row in rows if row["platform"] == "dart"} == {False}
    table = CliRunner().invoke(cli, ["catalog", "list", "--scale", "paper"])
    assert f"({len(builtin_catalog())} real, {len(paper) - len(builtin_catalog())} generated" in table.output


def test_generated_survives_a_round_trip_and_the_builtin_digest_does_not_see_the_flag(paper, tmp_path):
    import json

    from kopa_replay.catalog import load_catalog, tool_to_dict

    fill = next(t for t in paper if t.generated)
    path = tmp_path / "one.json"
    platforms = [{"id": fill.platform, "domain": fill.domain}]
    path.write_text(json.dumps({"platforms": platforms, "tools": [tool_to_dict(fill)]}), encoding="utf-8")
    assert load_catalog([str(path)]).get(fill.name).generated is True
    assert "generated" not in tool_to_dict(builtin_catalog().get("dart_company"))


def test_a_live_run_refuses_generated_tools_before_anything_is_sent(paper):
    from kopa_replay.env.call import live_key
    from kopa_replay.env.source import check_source
    from kopa_replay.errors import UsageError

    fill = next(t for t in paper if t.generated)
    with pytest.raises(UsageError, match=f"tool {fill.name} is a generated paper-scale tool"):
        live_key(fill)
    with pytest.raises(UsageError, match="generated paper-scale tools"):
        check_source("live", None, paper)
    assert check_source("live", None, paper.real()) == "live"
    assert check_source("sim", None, paper) == "sim"  # the simulator serves the fill


def test_a_catalog_file_with_a_non_boolean_generated_is_refused_by_name(tmp_path):
    import json

    from kopa_replay.catalog import load_catalog, tool_to_dict
    from kopa_replay.errors import CatalogError

    entry = tool_to_dict(builtin_catalog().get("dart_company"))
    entry["generated"] = "yes"
    path = tmp_path / "bad.json"
    path.write_text(
        json.dumps({"platforms": [{"id": "dart", "domain": "finance"}], "tools": [entry]}), encoding="utf-8"
    )
    with pytest.raises(CatalogError, match="dart_company.*generated.*true or false"):
        load_catalog([str(path)])
