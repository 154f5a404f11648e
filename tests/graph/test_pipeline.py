"""Phase A on the built-in catalog over the simulator: the issue's bars, determinism, replay."""

from __future__ import annotations

import json

import pytest

from kopa_replay.env import ToolEnvironment, open_source
from kopa_replay.graph import PruneConfig, build_graph, load_graph, prune_graph
from kopa_replay.graph.metrics import simulator_truth


@pytest.fixture(scope="module")
def candidates(catalog, tmp_path_factory):
    run = tmp_path_factory.mktemp("phase-a")
    build_graph(catalog, run)
    return run


def _prune(catalog, candidates, tmp_path, config, fault_rate=0.0, name="run", incidents=""):
    run = tmp_path / name
    run.mkdir()
    (run / "candidates.json").write_bytes((candidates / "candidates.json").read_bytes())
    with ToolEnvironment.open(catalog, source="sim", fault_rate=fault_rate, incidents=incidents) as env:
        return prune_graph(catalog, run, env, config, plots=False), run


#: the 44 tools, from all ten platforms, the generated benchmark's reference calls used (before the curated set)
EXACT_TRUTH_TOOLS = frozenset(
    {
        "assembly_bill_search",
        "assembly_committee_info",
        "assembly_member_info",
        "dart_alot_matter",
        "dart_company",
        "dart_corp_code",
        "dart_cvbd_is_decsn",
        "dart_elestock",
        "dart_emp_sttus",
        "dart_fnltt_single_acnt",
        "dart_hyslr_sttus",
        "dart_list",
        "dart_majorstock",
        "datagokr_get_corp_outline_v2",
        "datagokr_get_rtms_data_svc_apt_trade",
        "datagokr_get_stan_regin_cd_list",
        "datagokr_get_stock_price_info",
        "datagokr_select_stdg_ppltn_hh_stus",
        "gg_city_park",
        "gg_ev_charging_station",
        "gg_gen_anmal_hosptl",
        "gg_pharmacy",
        "gg_public_library",
        "krx_ksq_bydd_trd",
        "krx_stk_bydd_trd",
        "law_get_law",
        "law_search_law",
        "neis_class_info",
        "neis_els_timetable",
        "neis_his_timetable",
        "neis_meal_service_diet_info",
        "neis_mis_timetable",
        "neis_school_info",
        "neis_school_schedule",
        "seoul_card_bus_statistics_service_new",
        "seoul_daily_average_air_quality",
        "seoul_public_library_info",
        "seoul_tb_ln_opendata_rent_v",
        "seoulbus_get_bus_route_list",
        "seoulbus_get_route_by_station",
        "seoulbus_get_staion_by_route",
        "seoulbus_get_station_by_name",
        "tago_get_crdnt_prxmt_sttn_list",
        "tago_get_sttn_thrgh_route_list",
    }
)


@pytest.fixture(scope="module")
def benchmark_tools(catalog):
    """44 tools from all ten platforms: those the generated benchmark's reference calls used.

    The bars are held on them because the simulator's link truth is exact there: among the tools added with every
    documented operation it still calls some links broken that execute whenever the entity fits (an identifier
    into a service that answers only some entities, a NEIS school of the kind a timetable wants), and the whole
    catalog's 8,844 candidates need more than 20 × 200 paths (README: pruning against the truth). The list is kept
    as it was: the curated benchmark's 55 tools take in such services (FSC statistics, 주민등록 통계, ridership),
    where the truth's recall at this budget is 0.77 (precision 0.95), so its tools would measure the truth's gaps.
    """
    from kopa_replay.catalog.model import Catalog

    return Catalog([tool for tool in catalog if tool.name in EXACT_TRUTH_TOOLS], source=catalog.source)


@pytest.mark.slow
def test_pruning_meets_the_issue_bars_at_fault_rate_0_1(benchmark_tools, tmp_path):
    candidates = tmp_path / "candidates"
    build_graph(benchmark_tools, candidates)
    assert len({tool.platform for tool in benchmark_tools}) == 10
    report, run = _prune(benchmark_tools, candidates, tmp_path, PruneConfig(iterations=20, paths=200), fault_rate=0.1)
    # the paper's figures: the executable share rises; pruned links execute far less often than retained ones
    assert report["exec_rate_after"] > report["exec_rate_before"] + 0.2
    assert report["exec_rate_pruned"] < 0.2 * report["exec_rate_after"]
    assert report["never_succeeded_pruned"] > report["never_succeeded_retained"]
    assert report["sound_share_after"] > report["sound_share_before"]
    # against the simulator's truth, which neither the scorer nor the loop sees
    assert report["precision"] >= 0.9 and report["recall"] >= 0.8
    assert report["true_link_retention"] >= 0.95  # environmental failures do not kill sound links
    links, _ = load_graph(run / "graph.json")
    assert all(link.trials >= 2 for link in links if link.pruned)  # nothing is cut untried
    assert report["last_iteration"]["path_pass_rate"] > report["first_iteration"]["path_pass_rate"]
    rows = [json.loads(line) for line in (run / "iterations.jsonl").read_text().splitlines()]
    assert len(rows) == 20 and sum(r["links_cut"] for r in rows) == report["links_pruned"]


@pytest.mark.slow
def test_a_sound_link_survives_the_platforms_incidents(benchmark_tools, tmp_path):
    """10 % of requests meet an incident — a bot wall, an HTML page, an empty 200, a retry storm, a gateway error…
    (one kind per request, those its platform has) — and the loop still keeps the true links: a blocked answer
    weighs as an environmental failure, never as a broken binding."""
    candidates = tmp_path / "candidates"
    build_graph(benchmark_tools, candidates)
    report, run = _prune(
        benchmark_tools, candidates, tmp_path, PruneConfig(iterations=20, paths=200), incidents="all=0.1"
    )
    assert report["true_link_retention"] >= 0.95
    assert report["precision"] >= 0.9 and report["recall"] >= 0.8
    links, _ = load_graph(run / "graph.json")
    assert sum(link.failures["environmental"] for link in links) > 0  # the incidents did strike
    # at 30 % the weighing decides: as environmental the loop keeps 0.949 of the true links; weighed as broken
    # bindings (structural, as before blocked answers were told apart) it kept 0.865 (README: figures)
    heavy, _ = _prune(
        benchmark_tools, candidates, tmp_path, PruneConfig(iterations=20, paths=200), name="heavy", incidents="all=0.3"
    )
    assert heavy["true_link_retention"] >= 0.9 and heavy["precision"] >= 0.88


def test_one_seed_one_graph_another_seed_another(catalog, candidates, tmp_path):
    config = PruneConfig(iterations=3, paths=60, seed=7)
    first, run_a = _prune(catalog, candidates, tmp_path, config, name="a")
    again, run_b = _prune(catalog, candidates, tmp_path, config, name="b")
    assert first["graph_digest"] == again["graph_digest"]
    assert (run_a / "graph.json").read_bytes() == (run_b / "graph.json").read_bytes()
    assert (run_a / "prune.json").read_text().replace(str(run_a), "") == (run_b / "prune.json").read_text().replace(
        str(run_b), ""
    )
    other, _ = _prune(catalog, candidates, tmp_path, PruneConfig(iterations=3, paths=60, seed=8), name="c")
    assert other["graph_digest"] != first["graph_digest"]


def test_a_recorded_run_replays_offline_to_the_same_graph(catalog, candidates, tmp_path, no_network):
    config = PruneConfig(iterations=2, paths=40)
    store = tmp_path / "prune.sqlite"
    reports = []
    for name, source, mode in (("recorded", "sim", "replay-or-record"), ("replayed", "replay", "replay")):
        run = tmp_path / name
        run.mkdir()
        (run / "candidates.json").write_bytes((candidates / "candidates.json").read_bytes())
        with open_source(source, snapshot="phase-a", mode=mode, store=store, catalog=catalog) as src:
            reports.append(prune_graph(catalog, run, ToolEnvironment(catalog, src), config, plots=False))
    assert reports[0]["graph_digest"] == reports[1]["graph_digest"] and reports[1]["calls"] > 0
    assert no_network == []


def test_truth_scores_are_absent_for_a_catalog_the_simulator_does_not_know(catalog):
    assert simulator_truth(["dart_corp_code", "not_a_simulated_tool"]) is None
    assert simulator_truth(["dart_corp_code"]) is not None
