"""Link candidates: per-domain top-k retrieval of targets for every source tool."""

from __future__ import annotations

import collections
import time

import numpy as np
import pytest

from kopa_replay.errors import UsageError
from kopa_replay.graph.candidates import cosine_matrix, retrieve_candidates, source_text, target_text
from kopa_replay.graph.model import Candidate
from kopa_replay.text import HashedNgramEmbedder


class FakeEmbedder:
    """An Embedder from a handler: ``handler(text) -> vector``; rows are normalized here."""

    name = "fake"

    def __init__(self, handler):
        self.handler = handler

    def embed(self, texts):
        rows = np.array([self.handler(t) for t in texts], dtype=np.float64).reshape(len(texts), -1)
        norms = np.linalg.norm(rows, axis=1, keepdims=True)
        return rows / np.where(norms == 0, 1.0, norms)


@pytest.fixture(scope="module")
def candidates(catalog):
    return retrieve_candidates(catalog)


def _expected_counts(tools, same_domain, cross_domain):
    sizes = collections.Counter(t.domain for t in tools)
    return {
        t.name: (min(same_domain, sizes[t.domain] - 1), min(cross_domain, len(tools) - sizes[t.domain])) for t in tools
    }


def _counts(cands):
    out = collections.defaultdict(lambda: [0, 0])
    for c in cands:
        out[c.source][c.cross_domain] += 1
    return {name: tuple(pair) for name, pair in out.items()}


def test_source_text_holds_outputs_and_target_text_inputs_required_first(catalog):
    corp = source_text(catalog.get("dart_corp_code"))
    assert "dart corp code" in corp and "corp_code" in corp and "DART 고유번호 8자리" in corp
    plenary = catalog.get("assembly_plenary_schedule")
    text = target_text(plenary)
    assert [line for line in text.splitlines() if line in plenary.params] == [
        "UNIT_CD",
        "MEETINGSESSION",
        "pIndex",
        "pSize",
    ]
    assert plenary.description_ko in text and plenary.title in text
    assert "corp_code" in target_text(catalog.get("dart_cvbd_is_decsn"))


def test_exact_counts_per_domain_no_self_links_and_right_flags(catalog, candidates):
    assert all(isinstance(c, Candidate) for c in candidates)
    assert _counts(candidates) == _expected_counts(list(catalog), 15, 10)
    assert all(c.source != c.target for c in candidates)
    domain = {t.name: t.domain for t in catalog}
    assert all(c.cross_domain == (domain[c.source] != domain[c.target]) for c in candidates)
    assert len({(c.source, c.target) for c in candidates}) == len(candidates)
    assert all(-1e-9 <= c.similarity <= 1.0 + 1e-9 for c in candidates)


def test_sorted_and_deterministic(catalog, candidates):
    assert [(c.source, c.target) for c in candidates] == sorted((c.source, c.target) for c in candidates)
    assert retrieve_candidates(catalog) == candidates
    assert retrieve_candidates(list(catalog), HashedNgramEmbedder()) == candidates


def test_the_lightron_chain_is_retrieved(candidates):
    pairs = {(c.source, c.target) for c in candidates}
    assert ("dart_corp_code", "dart_cvbd_is_decsn") in pairs
    assert ("dart_corp_code", "datagokr_get_stock_price_info") in pairs


def test_matches_a_brute_force_ranking(catalog, candidates):
    tools = list(catalog)
    sim = np.round(
        cosine_matrix(HashedNgramEmbedder(), [source_text(t) for t in tools], [target_text(t) for t in tools]), 9
    )
    expected = []
    for i, source in enumerate(tools):
        ranked = sorted((j for j in range(len(tools)) if j != i), key=lambda j: (-sim[i, j], j))
        same = [j for j in ranked if tools[j].domain == source.domain][:15]
        other = [j for j in ranked if tools[j].domain != source.domain][:10]
        expected += [(source.name, tools[j].name) for j in same + other]
    assert [(c.source, c.target) for c in candidates] == sorted(expected)


def test_ties_go_to_catalog_order(catalog):
    tools = list(catalog)[:40]
    flat = retrieve_candidates(tools, FakeEmbedder(lambda text: [1.0]), same_domain=2, cross_domain=1)
    for source in tools:
        mine = {c.target for c in flat if c.source == source.name}
        same = [t.name for t in tools if t.domain == source.domain and t.name != source.name][:2]
        other = [t.name for t in tools if t.domain != source.domain][:1]
        assert mine == set(same + other)
    assert all(c.similarity == 1.0 for c in flat)


def test_small_and_zero_counts(catalog):
    tools = list(catalog)
    few = retrieve_candidates(tools, same_domain=1, cross_domain=2)
    assert _counts(few) == _expected_counts(tools, 1, 2)
    assert retrieve_candidates(tools, same_domain=0, cross_domain=0) == []
    only_cross = retrieve_candidates(tools, same_domain=0, cross_domain=3)
    assert all(c.cross_domain for c in only_cross) and len(only_cross) == 3 * len(tools)
    assert retrieve_candidates([]) == []
    assert retrieve_candidates(tools[:1]) == []


def test_an_embedder_without_cosine_matrix_gives_the_same_similarities(catalog):
    hashed = HashedNgramEmbedder()
    tools = list(catalog)[:12]
    sources, targets = [source_text(t) for t in tools], [target_text(t) for t in tools]

    class EmbedOnly:  # the bare Embedder protocol: one embed call, dense rows
        name = "hashed, dense"

        def embed(self, texts):
            return hashed.embed(texts)

    np.testing.assert_allclose(
        cosine_matrix(EmbedOnly(), sources, targets), cosine_matrix(hashed, sources, targets), atol=1e-5
    )


@pytest.mark.parametrize(
    "counts", [{"same_domain": -1}, {"cross_domain": -3}, {"same_domain": 1.5}, {"cross_domain": True}]
)
def test_bad_counts_are_usage_errors(catalog, counts):
    with pytest.raises(UsageError, match="at least 0"):
        retrieve_candidates(catalog, **counts)


def test_duplicate_tool_names_are_refused(catalog):
    tool = catalog.get("dart_corp_code")
    with pytest.raises(UsageError, match="dart_corp_code"):
        retrieve_candidates([tool, tool])


@pytest.mark.slow
def test_paper_scale_in_a_few_seconds():
    from kopa_replay.catalog import builtin_catalog

    paper = builtin_catalog("paper")
    started = time.perf_counter()
    cands = retrieve_candidates(paper)
    elapsed = time.perf_counter() - started
    assert _counts(cands) == _expected_counts(list(paper), 15, 10)
    assert elapsed < 15.0, f"{elapsed:.1f} s for {len(paper)} tools"  # ~2 s on 2 cores; slack for CI noise
