"""graph reverify on the simulator's drift timeline (2026-09-01 → 2026-12-01): real snapshots, prunes and calls.

One module-scoped world: snapshot A recorded at 09-01, B refreshed from it at
12-01, a graph pruned at 09-01, and a full re-prune of the same candidates at
12-01 to compare against. The catalog is the built-in one limited to the seven
platforms of the drifted tools and their link partners, and among them to the
tools the shipped benchmark calls and the tools the timeline drifts, written to
catalog files of the run's own: a 10 x 100 loop decides most of its links, as a
full re-prune must for the comparison to mean something (over all 520 of the
platforms' documented operations it leaves nearly every link untried).
"""

from __future__ import annotations

import datetime as dt
import json
import shutil
from pathlib import Path
from types import SimpleNamespace
from xml.etree import ElementTree

import httpx
import pytest
import yaml
from click.testing import CliRunner

import kopa_replay
from kopa_replay.catalog import load_catalog
from kopa_replay.cli import cli
from kopa_replay.env import Source, ToolEnvironment
from kopa_replay.errors import UsageError
from kopa_replay.graph import Link, PruneConfig, build_graph, load_graph, prune_graph
from kopa_replay.graph.reverify import (
    GRAPH_FILE,
    REPORT_FILE,
    Answering,
    LinkVerdict,
    ReverifyConfig,
    ReverifyResult,
    crosses,
    render,
    reverify,
    reverify_snapshot,
    select,
)
from kopa_replay.sim import SimTransport, Simulator, accepted_key
from kopa_replay.sim.timeline import TIMELINE, DriftEvent, events_between
from kopa_replay.sim.truth import link_executes, true_bindings
from kopa_replay.stages.workflows import record_snapshot, refresh_snapshot
from kopa_replay.text import target_fillers

BUILTIN = Path(kopa_replay.__file__).parent / "catalog" / "builtin"
PLATFORMS = ("assembly", "dart", "datagokr_fsc", "gg", "krx", "seoul", "tago")
CONFIG = PruneConfig(iterations=10, paths=200)
BEFORE, AFTER = dt.date(2026, 9, 1), dt.date(2026, 12, 1)


def _catalog_files(root: Path) -> list[str]:
    """The seven platforms' catalog files, each keeping the tools the benchmark calls, the tools the timeline
    drifts, and every tool that truly links with one the drift changes as a whole (its envelope or codes)."""
    from kopa_replay.bench.suite import load_task_set

    documents = {name: yaml.safe_load((BUILTIN / f"{name}.yaml").read_text(encoding="utf-8")) for name in PLATFORMS}
    events = events_between(BEFORE, AFTER)
    whole = {e.tool for e in events if e.kind in ("envelope_changed", "result_code_changed")}
    kept = {name for task in load_task_set().tasks for name, _ in task.reference_calls}
    kept |= {event.tool for event in events}
    every = sorted(tool["name"] for document in documents.values() for tool in document["tools"])
    kept |= {
        end for source, _, target, _ in true_bindings(every) if {source, target} & whole for end in (source, target)
    }
    files = []
    for name, document in documents.items():
        document["tools"] = [tool for tool in document["tools"] if tool["name"] in kept]
        path = root / f"{name}.yaml"
        path.write_text(yaml.safe_dump(document, allow_unicode=True, sort_keys=False), encoding="utf-8")
        files.append(str(path))
    return files


def _prune(catalog, run, as_of):
    with ToolEnvironment.open(catalog, source="sim", as_of=as_of) as env:
        return prune_graph(
            catalog, run, env, CONFIG, plots=False, source={"source": "sim", "snapshot": None, "as_of": as_of}
        )


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    root = tmp_path_factory.mktemp("reverify")
    catalog_files = _catalog_files(root)
    catalog = load_catalog(catalog_files)
    store = root / "store.sqlite"
    record_snapshot(catalog, store_path=store, snapshot="A", as_of=BEFORE)
    changes = refresh_snapshot(catalog, store_path=store, base="A", snapshot="B", as_of=AFTER).changes
    run, full = root / "run", root / "full"
    build_graph(catalog, run)
    shutil.copytree(run, full)
    base_report = _prune(catalog, run, BEFORE.isoformat())
    full_report = _prune(catalog, full, AFTER.isoformat())  # what reverify saves: the whole loop again
    graph_before = (run / "graph.json").read_bytes()
    result = reverify_snapshot(catalog, run, snapshot="B", store=store, base="A", changes=changes)
    return SimpleNamespace(
        root=root,
        catalog=catalog,
        catalog_args=[arg for path in catalog_files for arg in ("--catalog", path)],
        store=store,
        run=run,
        changes=changes,
        base_report=base_report,
        full_report=full_report,
        result=result,
        graph_before=graph_before,
        base_links=load_graph(run / "graph.json")[0],
        full_links={link.key: link for link in load_graph(full / "graph.json")[0]},
    )


# -- the ground truth, from the timeline and the simulator's link oracle alone ------------------------------
def _drift():
    events = events_between(BEFORE, AFTER)
    gone = {(e.tool, e.field) for e in events if e.kind in ("field_renamed", "field_removed")}
    whole = {e.tool for e in events if e.kind in ("envelope_changed", "result_code_changed")}
    return gone, whole


def _broke(link: Link) -> bool:
    """Sound at 09-01 and, by 12-01, a bound source field renamed or removed or an end's envelope/code changed."""
    gone, whole = _drift()
    moved = link.source in whole or link.target in whole or any((link.source, f) in gone for f in link.binding.values())
    return link_executes(link.source, link.binding, link.target) and moved


def _copy_run(world, tmp_path):
    copy = tmp_path / "run"
    shutil.copytree(world.run, copy)
    return copy


def _verdicts(result):
    return {(v.source, v.target): v for v in result.verdicts}


def test_the_drift_breaks_links_the_prune_kept(world):
    broke = [link for link in world.base_links if not link.pruned and _broke(link)]
    assert len(broke) >= 20
    # both tool-wide breaks are among them, at either end of a link; no link reads a field the timeline renames
    # or removes (ENG_NM, ir_url, BIZPLC_NM carry no value domain), so the field path is tested on a timeline
    # of its own below
    _, whole = _drift()
    assert {"krx_stk_bydd_trd", "tago_get_route_no_list"} <= {link.source for link in broke} & whole
    assert {"krx_stk_bydd_trd", "tago_get_route_no_list"} <= {link.target for link in broke} & whole


def test_reverify_cuts_every_link_the_drift_broke(world):
    broken = {key for key, v in _verdicts(world.result).items() if v.verdict == "broken"}
    truth = {link.key for link in world.base_links if not link.pruned and _broke(link)}
    assert truth <= broken, sorted(truth - broken)
    # what else it cut had failed already at 09-01, or was never sound: the 09-01 prune had not cut it yet; or
    # it executes for too few of its values for a few trials to keep it (see _plausible)
    others = [link for link in world.base_links if link.key in broken - truth]
    with ToolEnvironment.open(world.catalog, source="sim", as_of=AFTER) as env:
        for link in others:
            if not link.failures["structural"] and link_executes(link.source, link.binding, link.target):
                assert _plausible(True, _execution_rate(world.catalog, env, link)), link.key
    assert len(others) <= 0.2 * len(broken)
    links, meta = load_graph(world.run / GRAPH_FILE)
    assert meta["stage"] == "reverified"
    assert {link.key for link in links if link.pruned} == {
        link.key for link in world.base_links if link.pruned
    } | broken
    assert (world.run / "graph.json").read_bytes() == world.graph_before  # the pruned graph is left as it was


def test_calls_spent_are_at_most_a_quarter_of_a_full_re_prune(world):
    result = world.result
    assert result.full_prune_calls == world.base_report["calls"]
    assert 0 < result.calls <= 0.25 * world.full_report["calls"]
    assert result.calls <= 0.25 * result.full_prune_calls and result.call_ratio <= 0.25
    assert result.unanswered == 0 and result.count("undecided") == 0


def test_verdicts_agree_with_a_full_re_prune(world):
    _, whole = _drift()
    min_trials = CONFIG.min_trials
    verdicts = _verdicts(world.result)
    truth = [link for link in world.base_links if not link.pruned and _broke(link)]
    never_tried = []
    for link in truth:
        full = world.full_links[link.key]
        if full.trials == 0:
            # the loop ends a path at a failed call, so it never crosses a link out of a source that no longer
            # answers: it leaves such a link untried (kept); reverify counts the failed source call against it.
            # Any other untried link is one the loop's budget did not reach
            if not (link.source in whole and verdicts[link.key].failed_at["source"] > 0):
                never_tried.append(link.key)
        else:
            assert full.pruned or full.trials < min_trials, link.key
    decided = [link for link in truth if world.full_links[link.key].pruned]
    assert len(decided) >= 20 and all(verdicts[link.key].verdict == "broken" for link in decided)
    assert len(never_tried) <= 0.05 * len(truth), never_tried
    # every selected link the full re-prune tried enough: the same verdict, unless the link executes for only
    # part of its values, so the few trials of either loop land on either side of the cut whatever the drift
    compared, differ = 0, []
    for key, verdict in verdicts.items():
        full = world.full_links[key]
        if full.pruned or full.trials >= min_trials:
            compared += 1
            if (verdict.verdict == "broken") != full.pruned:
                differ.append(key)
    with ToolEnvironment.open(world.catalog, source="sim", as_of=AFTER) as env:
        rates = {
            key: _execution_rate(world.catalog, env, next(k for k in world.base_links if k.key == key))
            for key in differ
        }
    assert all(_plausible(verdicts[key].verdict == "broken", rate) for key, rate in rates.items()), rates
    assert compared >= 20 and len(differ) <= 0.2 * compared and world.result.count("sound") >= 5


def _plausible(cut: bool, rate: float) -> bool:
    """Whether a verdict on a link that executes for only part of its values is one the loop's own rule may give.

    The type-level truth calls such a link sound or broken as a whole (a date of the last decades bound to a daily
    series that starts in 2015 executes only when it falls inside), and a loop that tries it two or three times
    keeps or cuts it by which values it drew. Its long-run verdict turns at the cut's break-even rate
    (w_s·θ / (1 − θ + w_s·θ) = 0.57: successes add 1, structural failures w_s = 2): a cut is plausible below
    break-even + 0.2, keeping it above break-even − 0.2 — never a cut of a link that nearly always executes."""
    break_even = CONFIG.w_s * CONFIG.threshold / (1 - CONFIG.threshold + CONFIG.w_s * CONFIG.threshold)
    return rate < break_even + 0.2 if cut else rate > break_even - 0.2


def _execution_rate(catalog, env, link):
    """The share of ok target calls over every source-example record that carries the bound fields × filler."""
    ok = total = 0
    for example in catalog.get(link.source).examples:
        for record in env.call(link.source, example).records:
            if all(record.get(f) not in (None, "") for f in link.binding.values()):
                for filler in target_fillers(catalog.get(link.target)):
                    args = {**filler, **{p: record[f] for p, f in link.binding.items()}}
                    ok += env.call(link.target, args).outcome == "ok"
                    total += 1
    return ok / total if total else 0.0


def test_same_inputs_same_bytes(world):
    report = (world.run / REPORT_FILE).read_bytes()
    graph = (world.run / GRAPH_FILE).read_bytes()
    again = reverify_snapshot(
        world.catalog, world.run, snapshot="B", store=world.store, base="A", changes=world.changes
    )
    assert (world.run / REPORT_FILE).read_bytes() == report and (world.run / GRAPH_FILE).read_bytes() == graph
    assert render(again, "junit") == render(world.result, "junit")
    other = reverify_snapshot(
        world.catalog,
        world.run,
        snapshot="B",
        store=world.store,
        base="A",
        config=ReverifyConfig(seed=1),
        changes=world.changes,
    )
    assert {v.source for v in other.verdicts} == {v.source for v in world.result.verdicts}
    (world.run / REPORT_FILE).write_bytes(report)  # leave the run as the module's result wrote it
    (world.run / GRAPH_FILE).write_bytes(graph)


def test_a_renamed_field_breaks_exactly_the_links_that_read_it(world, tmp_path):
    # a timeline of our own: dart_corp_code's corp_code renamed after 09-01, as assembly's ENG_NM was
    renamed = DriftEvent(dt.date(2026, 10, 5), "dart", "dart_corp_code", "corp_code", "field_renamed", {"to": "CORP"})
    simulator = Simulator(as_of=AFTER, timeline=TIMELINE + (renamed,))
    source = Source("sim", httpx.Client(transport=SimTransport(simulator)), accepted_key())
    copy = _copy_run(world, tmp_path)
    with ToolEnvironment(world.catalog, source, owns_source=True) as env:
        result = reverify(world.catalog, copy, env, {"dart_corp_code": frozenset({"corp_code"})})
    reading = {
        link.key
        for link in world.base_links
        if not link.pruned and link.source == "dart_corp_code" and "corp_code" in link.binding.values()
    }
    assert len(reading) >= 3 and {(v.source, v.target) for v in result.verdicts} == reading
    for v in result.verdicts:  # the source answers; its records no longer carry what the binding reads
        assert v.verdict == "broken" and v.failed_at == {"source": 0, "binding": v.trials, "target": 0}, v
    others = [link for link in world.base_links if not link.pruned and link.source == "dart_corp_code"]
    assert len(others) > len(reading)  # links reading corp_name etc. were not re-tested


def test_selection_reads_the_binding_and_skips_cut_links():
    links = [
        Link("a", "b", {"p": "F"}, 0.9),
        Link("a", "c", {"q": "G"}, 0.9),
        Link("d", "e", {"r": "H"}, 0.9),
        Link("x", "e", {"s": "I"}, 0.9, pruned=True),
        Link("e", "y", {"t": "J"}, 0.9),
    ]
    chosen = select(links, {"a": frozenset({"F"}), "e": None, "b": frozenset({"Z"})})
    assert [(s.key, s.reasons) for s in chosen] == [
        (("a", "b"), ("source field a.F changed",)),
        (("d", "e"), ("target e changed as a whole",)),
        (("e", "y"), ("source e changed as a whole",)),
    ]
    assert select(links, {}) == []


# -- the command line ---------------------------------------------------------------------------------------
@pytest.fixture
def run(world):
    runner = CliRunner()

    def _run(*args):
        return runner.invoke(cli, ["graph", "reverify", *map(str, args), *world.catalog_args], catch_exceptions=False)

    return _run


def _error_line(result):
    lines = [line for line in result.output.splitlines() if line.startswith("Error:")]
    assert result.exit_code == 1 and len(lines) == 1, result.output
    assert "Traceback" not in result.output
    return lines[0]


def test_reports_in_every_format(world, run):
    result = world.result
    broken, sound = result.count("broken"), result.count("sound")
    summary = f"{broken} broken, {sound} still sound, 0 undecided; {result.calls} calls"
    assert summary in render(result, "text") and f"**{len(result.verdicts)} of " in render(result, "markdown")
    markdown = render(result, "markdown")
    assert markdown.count("\n| broken |") == broken and "| verdict | source | target |" in markdown
    common = ("--run-dir", world.run, "--snapshot", "B", "--base", "A", "--store", world.store)
    junit = run(*common, "--format", "junit", "--fail-on", "broken")
    assert junit.exit_code == 1, junit.output
    suite = ElementTree.fromstring(junit.stdout.encode()).find("testsuite")
    cases = suite.findall("testcase")
    failing = {case.get("name") for case in cases if case.find("failure") is not None}
    assert len(cases) == len(result.verdicts) and suite.get("failures") == str(broken)
    assert failing == {v.name for v in result.verdicts if v.verdict == "broken"}
    as_json = run(*common, "--format", "json", "--fail-on", "undecided")
    assert as_json.exit_code == 1, as_json.output
    data = json.loads(as_json.stdout)
    assert data == json.loads((world.run / REPORT_FILE).read_text()) == json.loads(render(result, "json"))
    assert (data["broken"], data["still_sound"], data["calls"]) == (broken, sound, result.calls)
    assert data["touched"]["krx_stk_bydd_trd"] is None and data["touched"]["gg_gen_anmal_hosptl"] == ["BIZPLC_NM"]


def test_cli_drift_that_touches_no_link_fails_nothing(world, run, tmp_path):
    # by 10-01 dart_company lost ir_url and fltRt became a number: no retained link reads either
    refresh_snapshot(world.catalog, store_path=world.store, base="A", snapshot="2026-10-01", as_of=dt.date(2026, 10, 1))
    result = run(
        "--run-dir",
        _copy_run(world, tmp_path),
        "--snapshot",
        "2026-10-01",
        "--base",
        "A",
        "--store",
        world.store,
        "--fail-on",
        "broken",
    )
    assert result.exit_code == 0, result.output
    assert f"0 of {world.result.retained_before} retained links selected: 0 broken" in result.stdout
    assert (
        result.stdout.rstrip()
        .splitlines()[-2]
        .endswith(f"0 calls vs {world.base_report['calls']} for a full re-prune (0.0%)")
    )


def test_a_recording_of_what_the_snapshot_lacked_answers_the_rerun_offline(world, run, tmp_path, no_network):
    copy = _copy_run(world, tmp_path)
    recorded = run(
        "--run-dir",
        copy,
        "--snapshot",
        "B",
        "--base",
        "A",
        "--store",
        world.store,
        "--format",
        "json",
        "--record-into",
        "B-reverify",
    )
    assert json.loads(recorded.stdout)["graph_digest"] == world.result.graph_digest

    def again(**answering):
        return reverify_snapshot(
            world.catalog,
            copy,
            snapshot="B",
            store=world.store,
            base="A",
            answering=Answering(source="replay", **answering),
            changes=world.changes,
        )

    offline = again(record_into="B-reverify")
    assert offline.unanswered == 0 and offline.graph_digest == world.result.graph_digest
    # the snapshot alone lacks most target calls: counted as unanswered, never raised
    strict = again()
    assert strict.unanswered > 0 and strict.count("undecided") > 0 and crosses(strict, "undecided")
    undecided = {(v.source, v.target) for v in strict.verdicts if v.verdict == "undecided"}
    before = {link.key: link for link in world.base_links}
    after = {link.key: link for link in load_graph(copy / GRAPH_FILE)[0]}
    assert all(after[key].to_dict() == before[key].to_dict() for key in undecided)  # left as the prune left them
    assert no_network == []


def test_cli_takes_the_base_from_the_prune_report(world, run, tmp_path):
    copy = _copy_run(world, tmp_path)
    report = json.loads((copy / "prune.json").read_text())
    report["source"] = {**report["source"], "source": "replay", "snapshot": "A"}
    (copy / "prune.json").write_text(json.dumps(report))
    result = run("--run-dir", copy, "--snapshot", "B", "--store", world.store, "--format", "json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["base"] == "A" and data["graph_digest"] == world.result.graph_digest


def test_cli_errors_are_one_clean_line(world, run, tmp_path):
    store = ("--store", world.store)
    assert "no run directory" in _error_line(run("--run-dir", tmp_path / "nowhere", "--snapshot", "B", *store))
    unpruned = tmp_path / "unpruned"
    unpruned.mkdir()
    shutil.copy(world.run / "candidates.json", unpruned / "candidates.json")
    assert "holds no pruned graph" in _error_line(run("--run-dir", unpruned, "--snapshot", "B", *store))
    line = _error_line(run("--run-dir", world.run, "--snapshot", "2027-01-01", "--base", "A", *store))
    assert "no snapshot '2027-01-01'" in line
    assert "--base" in _error_line(run("--run-dir", world.run, "--snapshot", "B", *store))
    assert "no drift" in _error_line(run("--run-dir", world.run, "--snapshot", "B", "--base", "B", *store))
    assert "--as-of" in _error_line(
        run("--run-dir", world.run, "--snapshot", "B", "--base", "A", "--as-of", "soon", *store)
    )
    assert "another snapshot" in _error_line(
        run("--run-dir", world.run, "--snapshot", "B", "--base", "A", "--record-into", "B", *store)
    )
    result = CliRunner().invoke(
        cli,
        [
            "graph",
            "reverify",
            "--run-dir",
            str(world.run),
            "--snapshot",
            "B",
            "--base",
            "A",
            "--store",
            str(world.store),
        ],
        catch_exceptions=False,
    )
    assert "another catalog" in _error_line(result)  # the built-in catalog is not the one it was pruned with


def test_library_level_checks(world):
    assert crosses(world.result, "broken") and crosses(world.result, "undecided")
    with pytest.raises(UsageError):
        render(world.result, "yaml")
    with pytest.raises(UsageError):
        ReverifyConfig(trials=0)
    with pytest.raises(UsageError, match="--as-of"):
        Answering().resolved(SimpleNamespace(name="x", source="sim", as_of=None, seed=None))


# -- what a posterior rests on ---------------------------------------------------------------------------------
def test_a_re_tested_link_restarts_from_its_prior_and_the_report_says_so(world):
    from kopa_replay.graph.prune import prior_posterior, update

    strength = world.result.config["prune"]["prior_strength"]
    before = {link.key: link for link in world.base_links}
    answered = [v for v in world.result.verdicts if v.verdict != "undecided"]
    assert answered
    for v in answered:
        # the posterior after = the prior's Beta with the re-tests' outcomes only (the prune's trials voided)
        fresh = Link(v.source, v.target, dict(v.binding), before[(v.source, v.target)].prior)
        fresh.alpha, fresh.beta = prior_posterior(fresh.prior, strength)
        assert v.posterior_restart == pytest.approx(fresh.posterior_mean)
        for outcome in v.outcomes:
            update(fresh, outcome, PruneConfig(**world.result.config["prune"]))
        assert v.posterior_after == pytest.approx(fresh.posterior_mean)
    text = render(world.result, "text")
    assert "(a re-tested link restarts from its prior (the drift voids what the prune's trials said)" in text
    for v in answered:
        assert (
            f"posterior {v.posterior_before:.2f} (prune: {v.trials_before} trials) -> {v.posterior_after:.2f} "
            f"(restarted at the prior's {v.posterior_restart:.2f}, then {v.trials} re-test" in text
        )


def test_a_posterior_that_falls_after_two_successes_is_explained():
    # twenty trials had it at 0.83; restarted at its prior 0.5 (Beta(2, 2)), two successes give Beta(4, 2): 0.67
    sound = LinkVerdict(
        "a", "b", {"p": "F"}, ("source field a.F changed",), "sound", 2, 2, {}, ("ok", "ok"), 0, 0.83, 4 / 6, 20, 0.5
    )
    undecided = LinkVerdict(
        "a", "c", {"q": "G"}, ("target c changed as a whole",), "undecided", 0, 0, {}, (), 2, 0.9, 0.9, 12, 0.5
    )
    result = ReverifyResult("run", "graph", "A", "B", {}, {}, 2, 2, (sound, undecided), 2, 2, 100, {}, "0" * 64)
    lines = render(result, "text").splitlines()
    assert lines[2] == (
        "SOUND     a -> b [p<-F] 2/2 ok; posterior 0.83 (prune: 20 trials) -> 0.67 (restarted at the prior's 0.50, "
        "then 2 re-tests); source field a.F changed"
    )
    assert lines[3] == (
        "UNDECIDED a -> c [q<-G] 0/0 ok (failed 2 unanswered); posterior 0.90 (prune: 12 trials), kept: no re-test "
        "answered; target c changed as a whole"
    )
    markdown = render(result, "markdown")
    assert "| sound | a | b | p←F | 0.83 | 20 | 0.50 | 0.67 | 2/2 |" in markdown
    junit = ElementTree.fromstring(render(result, "junit").encode())
    shown = " ".join(part for element in junit.iter() for part in (element.text or "", *element.attrib.values()))
    assert "posterior 0.83 (prune: 20 trials) -> 0.67 (restarted at the prior's 0.50, then 2 re-tests)" in shown
