"""The two figures of a Phase A run: prior vs posterior per link, and the curves over iterations.

Figures are built on a bare :class:`matplotlib.figure.Figure` with the Agg
canvas, never through pyplot: no GUI backend is touched, no global figure
registry grows (so nothing is left to close), and plotting works in threads
and on headless machines. PNGs carry no software version in their metadata,
so the same data gives byte-identical files (artifacts can be compared by digest).
Files are written atomically.
"""

from __future__ import annotations

import io
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from kopa_replay.errors import UsageError
from kopa_replay.util import write_atomic

__all__ = ["plot_scatter", "plot_curves"]

_DPI = 100
# "Software" would otherwise name the matplotlib version: the bytes would change with an upgrade.
_PNG_METADATA: dict[str, Any] = {"Software": None}


def _field(item: Mapping[str, Any], key: str, what: str, index: int) -> Any:
    try:
        return item[key]
    except (KeyError, TypeError):
        raise UsageError(f"{what} {index} has no {key!r}") from None


def _posterior_mean(link: Mapping[str, Any], index: int) -> float:
    # Link.to_dict() records alpha and beta rather than their mean; accept either form.
    if isinstance(link, Mapping) and "posterior_mean" not in link and {"alpha", "beta"} <= link.keys():
        return float(link["alpha"]) / (float(link["alpha"]) + float(link["beta"]))
    return float(_field(link, "posterior_mean", "link", index))


def _figure(width: float, height: float) -> Any:
    try:
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure
    except ImportError as exc:
        raise UsageError(f"plotting needs matplotlib (pip install matplotlib): {exc}") from exc

    fig = Figure(figsize=(width, height), dpi=_DPI)
    FigureCanvasAgg(fig)
    return fig


def _save(fig: Any, path: str | Path) -> Path:
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=_DPI, metadata=_PNG_METADATA)
    write_atomic(path, buffer.getvalue())
    return Path(path)


def plot_scatter(links: Iterable[Mapping[str, Any]], path: str | Path) -> Path:
    """Prior feasibility (x) against posterior mean (y) per link, retained and pruned apart; returns ``path``.

    Each link is a mapping with ``prior``, ``posterior_mean`` (or ``alpha`` and ``beta``, as
    :meth:`Link.to_dict` writes) and ``pruned``.
    """
    points: dict[bool, tuple[list[float], list[float]]] = {False: ([], []), True: ([], [])}
    for index, link in enumerate(links):
        xs, ys = points[bool(_field(link, "pruned", "link", index))]
        xs.append(float(_field(link, "prior", "link", index)))
        ys.append(_posterior_mean(link, index))
    fig = _figure(8.0, 5.5)
    ax = fig.add_subplot()
    ax.plot([0, 1], [0, 1], color="0.6", linestyle="--", linewidth=1, label="posterior = prior")
    for pruned, (label, colour, marker) in {
        False: ("retained", "tab:blue", "o"),
        True: ("pruned", "tab:red", "x"),
    }.items():
        xs, ys = points[pruned]
        ax.scatter(xs, ys, c=colour, marker=marker, s=18, alpha=0.7, label=f"{label} ({len(xs)})")
    ax.set(
        xlim=(-0.02, 1.02),
        ylim=(-0.02, 1.02),
        xlabel="prior feasibility (binding scorer)",
        ylabel="posterior mean (after execution)",
        title="Links: prior vs posterior",
    )
    ax.set_aspect("equal")
    ax.legend(loc="upper left", bbox_to_anchor=(1.02, 1.0))  # outside: never hides a point
    fig.tight_layout()
    return _save(fig, path)


def plot_curves(iterations: Iterable[Mapping[str, Any]], path: str | Path) -> Path:
    """Pass rates over iterations (left) and cumulative links cut (right); returns ``path``.

    Each item has ``iteration``, ``path_pass_rate``, ``step_success_rate`` and ``links_cut``,
    the number of links pruned in that iteration; items are plotted in iteration order.
    """
    from matplotlib.ticker import MaxNLocator

    rows = []
    for index, item in enumerate(iterations):
        rows.append(
            tuple(
                float(_field(item, key, "iteration record", index))
                for key in ("iteration", "path_pass_rate", "step_success_rate", "links_cut")
            )
        )
    rows.sort()
    steps = [r[0] for r in rows]
    cut_so_far, total = [], 0.0
    for row in rows:
        total += row[3]
        cut_so_far.append(total)
    fig = _figure(11.0, 4.5)
    rates, cuts = fig.subplots(1, 2)
    rates.plot(steps, [r[1] for r in rows], marker="o", color="tab:blue", label="path pass rate")
    rates.plot(steps, [r[2] for r in rows], marker="s", color="tab:green", label="step success rate")
    rates.set(ylim=(-0.02, 1.02), xlabel="iteration", ylabel="rate", title="Execution success")
    rates.legend(loc="lower right")
    cuts.step(steps, cut_so_far, where="post", marker="o", color="tab:red", label="links cut")
    cuts.set(xlabel="iteration", ylabel="links cut (cumulative)", title="Pruning")
    cuts.set_ylim(bottom=0)
    cuts.legend(loc="upper left")
    for ax in (rates, cuts):
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))  # iterations are whole numbers
    fig.tight_layout()
    return _save(fig, path)
