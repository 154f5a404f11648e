"""Re-running trajectories as programs: reproduction, perturbation, all pages."""

from __future__ import annotations

import pytest

from kopa_replay.errors import UsageError
from kopa_replay.synth import Perturbation, candidate_values, run_plan
from kopa_replay.synth.junction import value_key


def test_an_unperturbed_rerun_reproduces_digest_and_answer(catalog, hand_corpus, sim_env):
    for t in hand_corpus.trajectories:
        run = run_plan(t, catalog, sim_env)
        assert run.ok, (t.id, run.problem)
        assert run.state_digest == t.state_digest
        assert run.answer == t.answer
        assert run.steps == t.steps
        assert run.junctions == t.junctions


def test_reading_every_page_is_reported(catalog, hand_corpus, sim_env):
    for t in hand_corpus.trajectories[:8]:
        run = run_plan(t, catalog, sim_env, complete=True)
        assert run.complete
        assert run.answer == t.answer  # these outputs fit the page budget


def test_candidates_are_the_other_values_of_the_source(catalog, hand_corpus, sim_env):
    found = 0
    for t in hand_corpus.trajectories:
        for k, junction in enumerate(t.junctions):
            others = candidate_values(t, catalog, sim_env, k, beyond_source=False)
            handed = {value_key(v) for v in junction.values}
            assert not handed & {value_key(v) for v in others}
            assert len(others) == junction.distinct - len(junction.values)  # only a reduction leaves some over
            found += bool(others)
            wider = candidate_values(t, catalog, sim_env, k)
            assert wider[: len(others)] == others
            assert not handed & {value_key(v) for v in wider}
    assert found
    with pytest.raises(UsageError):
        candidate_values(hand_corpus.trajectories[0], catalog, sim_env, 99)


def test_perturbing_an_intermediate_that_matters_changes_the_answer(catalog, hand_corpus, sim_env):
    changed = tried = 0
    for t in hand_corpus.trajectories:
        for k, junction in enumerate(t.junctions):
            others = candidate_values(t, catalog, sim_env, k)
            if not others:
                continue
            values = (others[0],) + tuple(junction.values[1:])  # one value swapped
            run = run_plan(t, catalog, sim_env, perturb=Perturbation(k, values))
            tried += 1
            assert run.state_digest != t.state_digest  # other calls were made
            assert run.junctions[k].values == values
            changed += (not run.ok) or run.answer.value != t.answer.value
    assert tried and changed


def test_the_lightron_chain(catalog, sim_env):
    """Floor price from the CB decision, close from the stock price: the company handed over matters."""
    from kopa_replay.graph import Link
    from kopa_replay.synth import SynthConfig, synthesize

    links = [Link("dart_cvbd_is_decsn", "datagokr_get_stock_price_info", {"itmsNm": "corp_name"}, 0.9)]
    out = synthesize(
        catalog, links, sim_env, SynthConfig(trajectories=12, patterns=("chain",), seed=3, distinct_tool_sets=False)
    )
    cross = [t for t in out if "g0[0].act_mktprcfl_cvprc_lwtrsprc" in t.answer.derivation]
    assert cross, [t.answer.derivation for t in out]
    t = cross[0]
    assert t.junctions[0].values == ("라이트론",)
    rows = sim_env.call("datagokr_get_stock_price_info", {"basDt": "20260831", "numOfRows": 1000}).records
    other = next(r["itmsNm"] for r in rows if r["itmsNm"] != "라이트론")
    run = run_plan(t, catalog, sim_env, perturb=Perturbation(0, (other,)))
    assert run.ok and run.answer.value != t.answer.value


def test_a_value_the_target_cannot_use_fails_cleanly(catalog, hand_corpus, sim_env):
    t = next(t for t in hand_corpus.trajectories if len(t.junctions[0].values) == 1)
    run = run_plan(t, catalog, sim_env, perturb=Perturbation(0, ("NO-SUCH-VALUE",)))
    assert not run.ok and run.answer is None and run.problem
    assert run.state_digest != t.state_digest


def test_bad_perturbations_and_foreign_trajectories_are_usage_errors(catalog, hand_corpus, sim_env):
    t = hand_corpus.trajectories[0]
    with pytest.raises(UsageError):
        run_plan(t, catalog, sim_env, perturb=Perturbation(len(t.junctions), ("x",)))
    stripped = type(t).from_dict({**t.to_dict(), "meta": {}})
    with pytest.raises(UsageError, match="synthesize"):
        run_plan(stripped, catalog, sim_env)
