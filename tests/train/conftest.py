"""Fixtures for the training tests: the tiny offline model, a small synth + filter corpus, a copy of the store.

Everything here is real: the tokenizer is trained and the model built by ``kopa-replay train tiny-model``'s code,
the corpus is synthesized on the simulator without the held-out platforms and run through the real filter.
"""

from __future__ import annotations

import pytest

pytest.importorskip("trl", reason="the train extra is not installed")


@pytest.fixture(scope="session", autouse=True)
def _offline():
    from kopa_replay.train.run import offline

    offline()


@pytest.fixture(scope="session")
def tiny_model(tmp_path_factory):
    from kopa_replay.train.tiny import build_tiny_model

    return build_tiny_model(tmp_path_factory.mktemp("tiny") / "model")


@pytest.fixture(scope="session")
def recorded_corpus(catalog, tmp_path_factory):
    """12 trajectories synthesized on the simulator (held-out platforms excluded, decontaminated) with every call
    recorded into snapshot ``corpus`` of a store of its own, sealed; then filtered. (store, corpus directory)."""
    from kopa_replay.bench.build import HELD_OUT_PLATFORMS
    from kopa_replay.bench.contamination import Decontaminator
    from kopa_replay.bench.suite import load_task_set
    from kopa_replay.drift.recorded import tool_schema_digests
    from kopa_replay.env import ToolEnvironment
    from kopa_replay.filter import FilterConfig, default_judges, run_filter
    from kopa_replay.graph.metrics import simulator_truth
    from kopa_replay.graph.pipeline import build_links
    from kopa_replay.record import Store
    from kopa_replay.record.snapshots import seal_snapshot
    from kopa_replay.synth import SynthConfig
    from kopa_replay.synth.intents import load_intents
    from kopa_replay.synth.pipeline import SynthDir, read_trajectories, run_synthesis, write_datasets
    from kopa_replay.synth.questions import IntentWriter

    root = tmp_path_factory.mktemp("corpus")
    store = root / "corpus.sqlite"
    truth = simulator_truth(catalog.names)
    links = [link for link in build_links(catalog) if truth(link)]
    intents = load_intents(catalog=catalog)
    exclude = Decontaminator.from_task_set(load_task_set())
    with ToolEnvironment.open(catalog, source="sim", snapshot="corpus", mode="record", store=str(store)) as env:
        run_synthesis(
            catalog,
            links,
            env,
            root,
            SynthConfig(trajectories=12, seed=0, exclude_platforms=HELD_OUT_PLATFORMS),
            IntentWriter(intents),
            exclude=exclude,
            intents=intents,
        )
    with Store(store) as opened:
        seal_snapshot(opened, "corpus", catalog, tool_digests=tool_schema_digests)
    with ToolEnvironment.open(catalog, source="sim") as env:
        result = run_filter(
            read_trajectories(SynthDir(root).trajectories),
            catalog,
            env,
            default_judges(),
            config=FilterConfig(),
            exclude=exclude,
        )
    write_datasets(root / "filtered", result.kept, catalog)
    return store, root / "filtered"


@pytest.fixture(scope="session")
def corpus(recorded_corpus):
    """The filtered corpus directory (its calls are in snapshot ``corpus`` of ``corpus_store``)."""
    return recorded_corpus[1]


@pytest.fixture(scope="session")
def corpus_store(recorded_corpus):
    return recorded_corpus[0]


@pytest.fixture
def store_copy(tmp_path):
    """A private copy of the shipped cassette store (tests that check nothing is written to it)."""
    from kopa_replay.record import default_store_path
    from kopa_replay.record.snapshots import copy_store

    target = tmp_path / "kopa.sqlite"
    copy_store(default_store_path(), target)
    return target
