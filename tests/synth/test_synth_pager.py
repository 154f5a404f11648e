"""Reading a step page by page gives what fetch_all merges, with one logged call per page."""

from __future__ import annotations

import pytest

from kopa_replay.synth.pager import read_pages, with_page_size


@pytest.mark.parametrize(
    "name",
    [
        "tago_get_route_accto_thrgh_sttn_list",  # page style, 5 pages of 10
        "seoul_spop_local_resd_dong",  # range style (START/END)
        "gg_general_restaurant",  # the server caps the page size
        "datagokr_get_stock_price_info",  # more pages than the budget
        "seoulbus_get_route_by_station",
    ],
)  # unpaged
def test_pages_add_up_to_fetch_all(catalog, sim_env, name):
    tool = catalog.get(name)
    args = dict(tool.examples[0])
    merged = sim_env.fetch_all(name, args, max_pages=5)
    sim_env.reset()
    read = read_pages(sim_env, tool, args, 5)
    assert read.records == merged.records
    assert read.complete == merged.complete
    assert read.total_count == merged.total_count
    assert len(read.pages) == merged.pages == len(sim_env.log)
    assert read.digest == merged.digest
    assert read.ok


def test_page_budget_and_page_size(catalog, sim_env):
    tool = catalog.get("datagokr_get_stock_price_info")
    args = {"basDt": "20260831"}
    assert with_page_size(tool, args) == {"basDt": "20260831", "numOfRows": tool.http.pagination.max_size}
    assert with_page_size(tool, {**args, "numOfRows": 7})["numOfRows"] == 7
    range_tool = catalog.get("seoul_daily_average_air_quality")
    assert with_page_size(range_tool, {"MSRDT_DE": "20260825"}) == {"MSRDT_DE": "20260825"}
    small = read_pages(sim_env, tool, args, 2)
    assert len(small.pages) == 2 and not small.complete
    sim_env.reset()
    big = read_pages(sim_env, tool, with_page_size(tool, args), 2)
    assert big.complete and len(big.records) == big.total_count


def test_a_failed_call_is_not_ok(catalog, sim_env):
    read = read_pages(sim_env, catalog.get("dart_company"), {"corp_code": "99999999"}, 5)
    assert not read.ok and read.outcome != "ok"
