"""What pruning did: the paper's execution figures, and precision/recall against the simulator's truth.

Execution rate of a set of links: the mean over its tried links of
successes / (successes + structural failures). Environmental failures are
left out: a server's bad minute says nothing about a binding (the loop
itself penalizes them lightly for the same reason).

Against the truth (:func:`kopa_replay.sim.truth.link_executes`, which the
scorer and the loop never see), a link is *sound* when its binding executes in
the simulated world (every parameter←field pair, and no required entity
parameter left to an unrelated value), *broken* otherwise. Cutting is
scored like a classifier of broken links: precision = broken among the cut,
recall = cut among the broken; true-link retention = sound links kept.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

from kopa_replay.graph.model import Link

__all__ = ["execution_rate", "paper_metrics", "truth_metrics", "simulator_truth"]


def _rate(link: Link) -> float | None:
    decided = link.successes + link.failures.get("structural", 0)
    return link.successes / decided if decided else None


def execution_rate(links: Iterable[Link]) -> float | None:
    """Mean per-link execution rate over the links that were tried (None when none was)."""
    rates = [r for r in (_rate(link) for link in links) if r is not None]
    return sum(rates) / len(rates) if rates else None


def _share(links: Sequence[Link], test: Callable[[Link], bool]) -> float | None:
    return sum(map(test, links)) / len(links) if links else None


def paper_metrics(links: Sequence[Link]) -> dict[str, Any]:
    """The paper's figures: execution rates before/after/of the pruned, never-succeeded shares, counts."""
    pruned = [link for link in links if link.pruned]
    retained = [link for link in links if not link.pruned]
    tried_retained = [link for link in retained if link.trials]
    return {
        "links_candidate": len(links),
        "links_pruned": len(pruned),
        "links_retained": len(retained),
        "links_untried": sum(1 for link in links if not link.trials),
        "exec_rate_before": _round(execution_rate(links)),
        "exec_rate_after": _round(execution_rate(retained)),
        "exec_rate_pruned": _round(execution_rate(pruned)),
        "never_succeeded_pruned": _round(_share(pruned, lambda link: link.successes == 0)),
        "never_succeeded_retained": _round(_share(tried_retained, lambda link: link.successes == 0)),
        "cut_untried": sum(1 for link in pruned if link.trials == 0),
        # the links a rate counts: tried links that met only environmental failures have none
        "links_rated": sum(1 for link in links if _rate(link) is not None),
        "pruned_rated": sum(1 for link in pruned if _rate(link) is not None),
        "trials": sum(link.trials for link in links),
    }


def simulator_truth(tool_names: Iterable[str]) -> Callable[[Link], bool] | None:
    """The simulator's link oracle, or None when some tool is unknown to it (a catalog of other APIs)."""
    from kopa_replay.sim.registry import registry
    from kopa_replay.sim.truth import link_executes

    reg = registry()
    if any(reg.endpoint_for_tool(name) is None for name in sorted(set(tool_names))):
        return None
    return lambda link: link_executes(link.source, link.binding, link.target, reg)


def truth_metrics(links: Sequence[Link], link_executes: Callable[[Link], bool] | None) -> dict[str, Any]:
    """Precision and recall of cutting broken links, true-link retention, sound shares before and after."""
    if link_executes is None:
        return {
            "precision": None,
            "recall": None,
            "true_link_retention": None,
            "sound_share_before": None,
            "sound_share_after": None,
            "links_sound": None,
        }
    sound = {link.key: link_executes(link) for link in links}
    pruned = [link for link in links if link.pruned]
    retained = [link for link in links if not link.pruned]
    broken = [link for link in links if not sound[link.key]]
    true_links = [link for link in links if sound[link.key]]
    cut_broken = sum(1 for link in pruned if not sound[link.key])
    return {
        "links_sound": len(true_links),
        "precision": _round(cut_broken / len(pruned)) if pruned else None,
        "recall": _round(cut_broken / len(broken)) if broken else None,
        "true_link_retention": _round(sum(not link.pruned for link in true_links) / len(true_links))
        if true_links
        else None,
        "sound_share_before": _round(_share(links, lambda link: sound[link.key])),
        "sound_share_after": _round(_share(retained, lambda link: sound[link.key])),
    }


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 6)
