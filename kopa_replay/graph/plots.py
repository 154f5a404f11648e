"""The two figures of a Phase A run (prior vs posterior per link, the curves over iterations), and grouped bars of
figures beside the paper's (:func:`bar_chart`, which the pipeline report draws).

Every figure is drawn in NanumGothic (:func:`kopa_replay.graph.fonts.korean_font`), so Hangul never turns into boxes
on a machine without a CJK font; that font is set through :func:`matplotlib.rc_context` while a figure is built and
saved (rcParams are the process's, so two threads should not draw at once). Figures are built on a bare
:class:`matplotlib.figure.Figure` with the Agg canvas, never through pyplot: no GUI backend is touched, no global
figure registry grows (so nothing is left to close), and plotting works on headless machines. PNGs carry no
software version in their metadata,
so the same data gives byte-identical files (artifacts can be compared by digest).
Files are written atomically.
"""

from __future__ import annotations

import io
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kopa_replay.errors import UsageError
from kopa_replay.graph.fonts import korean_font
from kopa_replay.util import write_atomic

__all__ = ["Bars", "bar_chart", "plot_scatter", "plot_curves"]

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


def _png(fig: Any) -> bytes:
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=_DPI, metadata=_PNG_METADATA)
    return buffer.getvalue()


def _save(fig: Any, path: str | Path) -> Path:
    write_atomic(path, _png(fig))
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
    with korean_font():
        return _save(_scatter_figure(points), path)


def _scatter_figure(points: Mapping[bool, tuple[list[float], list[float]]]) -> Any:
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
    return fig


def plot_curves(iterations: Iterable[Mapping[str, Any]], path: str | Path) -> Path:
    """Pass rates over iterations (left) and cumulative links cut (right); returns ``path``.

    Each item has ``iteration``, ``path_pass_rate``, ``step_success_rate`` and ``links_cut``,
    the number of links pruned in that iteration; items are plotted in iteration order.
    """
    rows = []
    for index, item in enumerate(iterations):
        rows.append(
            tuple(
                float(_field(item, key, "iteration record", index))
                for key in ("iteration", "path_pass_rate", "step_success_rate", "links_cut")
            )
        )
    rows.sort()
    with korean_font():
        return _save(_curves_figure(rows), path)


def _curves_figure(rows: Sequence[tuple[float, ...]]) -> Any:
    from matplotlib.ticker import MaxNLocator

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
    return fig


@dataclass(frozen=True)
class Bars:
    """One panel of grouped bars: per category, one bar per series (``None``: no such figure, marked "n/a").

    ``percent``: the values are shares in [0, 1], drawn as percentages; otherwise plain numbers.
    """

    title: str
    categories: tuple[str, ...]
    series: tuple[tuple[str, tuple[float | None, ...]], ...]
    percent: bool = True
    ylabel: str = ""


#: series colours in order; a series named "paper" is always grey, so the paper's bars read alike in every figure
_SERIES_COLOURS = ("tab:blue", "tab:cyan", "tab:green", "tab:purple", "tab:olive")
_PAPER_COLOUR = "0.62"


def _bar_label(value: float | None, percent: bool) -> str:
    if value is None:
        return "n/a"
    if percent:
        return f"{100 * value:.1f}%"
    return f"{value:,.0f}" if float(value).is_integer() else f"{value:,.2f}"


def _bar_panel(ax: Any, panel: Bars) -> None:
    width = 0.8 / max(1, len(panel.series))
    top = max((v for _, values in panel.series for v in values if v is not None), default=0.0)
    ceiling = 1.0 if panel.percent else (top or 1.0)
    ours = 0
    for index, (name, values) in enumerate(panel.series):
        if len(values) != len(panel.categories):
            raise UsageError(
                f"series {name!r} of {panel.title!r} has {len(values)} values for {len(panel.categories)} categories"
            )
        if name == "paper":
            colour = _PAPER_COLOUR
        else:
            colour, ours = _SERIES_COLOURS[ours % len(_SERIES_COLOURS)], ours + 1
        xs = [i + (index - (len(panel.series) - 1) / 2) * width for i in range(len(values))]
        heights = [0.0 if v is None else float(v) for v in values]
        ax.bar(xs, heights, width=width * 0.95, color=colour, label=name)
        for x, value, height in zip(xs, values, heights):
            ax.text(x, height + 0.015 * ceiling, _bar_label(value, panel.percent), ha="center", va="bottom", fontsize=8)
    ax.set_xticks(range(len(panel.categories)), panel.categories, fontsize=9)
    ax.set_ylim(0, ceiling * 1.3)  # headroom for the value labels and the legend above the bars
    if panel.percent:
        from matplotlib.ticker import PercentFormatter

        ax.yaxis.set_major_formatter(PercentFormatter(xmax=1.0))
    ax.set_title(panel.title, fontsize=11)
    ax.set_ylabel(panel.ylabel)
    ax.legend(loc="upper left", fontsize=8, ncol=len(panel.series), frameon=False)


def bar_chart(panels: Sequence[Bars], *, width: float = 11.0, height: float = 4.2) -> bytes:
    """Panels of grouped bars side by side, each bar labelled with its value, as PNG bytes (the same panels give the
    same bytes). Category labels may hold a line break (``"\\n"``) to stay short."""
    if not panels:
        raise UsageError("a bar chart needs at least one panel")
    with korean_font():
        fig = _figure(width, height)
        axes = fig.subplots(1, len(panels), squeeze=False, width_ratios=[max(2, len(p.categories)) for p in panels])
        for ax, panel in zip(axes[0], panels):
            _bar_panel(ax, panel)
        fig.tight_layout()
        return _png(fig)
