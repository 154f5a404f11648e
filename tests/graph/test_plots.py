"""Phase A figures: valid PNGs, byte-identical for equal data, no pyplot state left behind."""

from __future__ import annotations

import random
import sys

import pytest

from kopa_replay.errors import UsageError
from kopa_replay.graph.model import Link
from kopa_replay.graph.plots import plot_curves, plot_scatter

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def _links(seed: int, n: int = 60) -> list[dict]:
    rng = random.Random(seed)
    return [{"prior": rng.random(), "posterior_mean": rng.random(), "pruned": rng.random() < 0.3} for _ in range(n)]


def _iterations(cuts=(12, 7, 3, 1)) -> list[dict]:
    return [
        {"iteration": i, "path_pass_rate": 0.4 + 0.1 * i, "step_success_rate": 0.6 + 0.05 * i, "links_cut": c}
        for i, c in enumerate(cuts)
    ]


def test_scatter_is_a_png_identical_for_equal_links_and_different_otherwise(tmp_path):
    first = plot_scatter(_links(0), tmp_path / "a.png")
    second = plot_scatter(_links(0), tmp_path / "b.png")
    other = plot_scatter(_links(1), tmp_path / "c.png")
    assert first == tmp_path / "a.png"
    assert first.read_bytes().startswith(PNG_MAGIC)
    assert first.read_bytes() == second.read_bytes()
    assert first.read_bytes() != other.read_bytes()
    assert b"Matplotlib" not in first.read_bytes()  # no version in the metadata


def test_curves_are_a_png_identical_for_equal_data_and_different_otherwise(tmp_path):
    first = plot_curves(_iterations(), tmp_path / "nested" / "a.png")  # parent directories are made
    second = plot_curves(list(reversed(_iterations())), tmp_path / "b.png")  # plotted in iteration order
    other = plot_curves(_iterations((12, 7, 3, 2)), tmp_path / "c.png")
    assert first.read_bytes().startswith(PNG_MAGIC)
    assert first.read_bytes() == second.read_bytes()
    assert first.read_bytes() != other.read_bytes()


def test_link_records_and_empty_inputs_plot(tmp_path):
    link = Link("dart_corp_code", "dart_cvbd_is_decsn", {"corp_code": "corp_code"}, prior=0.9, alpha=5.0, beta=1.0)
    from_record = plot_scatter([link.to_dict()], tmp_path / "record.png")  # mean from alpha and beta
    explicit = plot_scatter(
        [{"prior": 0.9, "posterior_mean": link.posterior_mean, "pruned": False}], tmp_path / "explicit.png"
    )
    assert from_record.read_bytes() == explicit.read_bytes()
    assert plot_scatter([], tmp_path / "empty.png").read_bytes().startswith(PNG_MAGIC)
    assert plot_curves([], tmp_path / "empty_curves.png").read_bytes().startswith(PNG_MAGIC)


def test_missing_fields_are_usage_errors(tmp_path):
    with pytest.raises(UsageError, match="link 1 has no 'prior'"):
        plot_scatter([{"prior": 0.5, "posterior_mean": 0.5, "pruned": False}, {"pruned": True}], tmp_path / "x.png")
    with pytest.raises(UsageError, match="links_cut"):
        plot_curves([{"iteration": 0, "path_pass_rate": 1.0, "step_success_rate": 1.0}], tmp_path / "y.png")
    assert not (tmp_path / "x.png").exists() and not (tmp_path / "y.png").exists()


def test_no_pyplot_figures_are_left_open(tmp_path):
    plot_scatter(_links(2), tmp_path / "a.png")
    plot_curves(_iterations(), tmp_path / "b.png")
    pyplot = sys.modules.get("matplotlib.pyplot")
    assert pyplot is None or pyplot.get_fignums() == []
