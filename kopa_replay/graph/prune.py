"""EDGE Phase A, second half: prune candidate links by executing sampled paths (Thompson sampling).

Each iteration samples ``paths`` paths. A path starts from a tool with
catalog example arguments; at each step Thompson sampling picks one of the
current tool's retained outgoing links (a draw from every link's Beta
posterior, the highest wins), fills the target's bound parameters from one
record of the last output (sampled among records that carry the fields), and
runs the call through :class:`~kopa_replay.env.ToolEnvironment`. The link's
posterior is updated by the outcome class the catalog's result-code table
gives: success ``alpha += 1``; structural failure (the binding is wrong: bad
parameter, no data for the bound value) ``beta += w_s``; environmental failure
(a transient 5xx, rate limit, maintenance) ``beta += w_e``, light, so a sound
link survives an unlucky server. At the end of each iteration a link tried at
least ``min_trials`` times whose posterior mean is under ``threshold`` is cut.

The decisions (:func:`update`, :func:`should_cut`, :func:`choose`) are pure
functions; :func:`prune` does the I/O through the environment. One seeded
``numpy.random.Generator`` drives every choice, and links are visited in
sorted order: the same snapshot and seed give the same graph.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, Callable, Mapping, Sequence

import numpy as np

from kopa_replay.catalog.model import Catalog
from kopa_replay.errors import UsageError
from kopa_replay.graph.model import Link
from kopa_replay.text.concepts import target_fillers

__all__ = [
    "PruneConfig",
    "IterationStats",
    "update",
    "should_cut",
    "choose",
    "prior_posterior",
    "prune",
    "bound_arguments",
]


@dataclass(frozen=True)
class PruneConfig:
    """Every knob of the loop (the paper's defaults: 100 iterations × 500 paths)."""

    iterations: int = 100
    paths: int = 500
    seed: int = 0
    max_depth: int = 3  # links per path
    w_s: float = 2.0  # beta increment for a structural failure (heavy)
    w_e: float = 0.25  # beta increment for an environmental failure (light)
    threshold: float = 0.4  # viability: cut when the posterior mean falls below it ...
    min_trials: int = 2  # ... and the link was tried at least this often
    prior_strength: float = 2.0  # pseudo-trials the scorer's feasibility is worth in the prior

    def __post_init__(self) -> None:
        problems = []
        if self.iterations < 1 or self.paths < 1 or self.max_depth < 1:
            problems.append("iterations, paths and max_depth must be at least 1")
        if self.w_s < 0 or self.w_e < 0 or self.prior_strength < 0:
            problems.append("w_s, w_e and prior_strength must not be negative")
        if not 0.0 <= self.threshold <= 1.0:
            problems.append(f"threshold must lie in [0, 1], not {self.threshold}")
        if self.min_trials < 1:
            problems.append(f"min_trials must be at least 1, not {self.min_trials}")
        if problems:
            raise UsageError("; ".join(problems))

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class IterationStats:
    """What one iteration of the loop saw."""

    iteration: int
    paths: int
    paths_passed: int
    steps: int
    steps_ok: int
    links_cut: int
    links_retained: int

    @property
    def path_pass_rate(self) -> float:
        return self.paths_passed / self.paths if self.paths else 0.0

    @property
    def step_success_rate(self) -> float:
        return self.steps_ok / self.steps if self.steps else 0.0

    def to_dict(self) -> dict[str, Any]:
        return {
            **asdict(self),
            "path_pass_rate": round(self.path_pass_rate, 6),
            "step_success_rate": round(self.step_success_rate, 6),
        }


# -- pure decisions -------------------------------------------------------------
def prior_posterior(prior: float, strength: float) -> tuple[float, float]:
    """Beta(1 + s·prior, 1 + s·(1 − prior)): the scorer's belief, worth ``s`` pseudo-trials."""
    prior = min(max(prior, 0.0), 1.0)
    return 1.0 + strength * prior, 1.0 + strength * (1.0 - prior)


def update(link: Link, outcome: str, config: PruneConfig) -> None:
    """Count one trial of ``link`` ending in ``outcome`` and move its posterior."""
    link.trials += 1
    if outcome == "ok":
        link.successes += 1
        link.alpha += 1.0
    elif outcome == "environmental_error":
        link.failures["environmental"] = link.failures.get("environmental", 0) + 1
        link.beta += config.w_e
    else:  # structural_error, and empty: no data for the bound value
        link.failures["structural"] = link.failures.get("structural", 0) + 1
        link.beta += config.w_s


def should_cut(link: Link, config: PruneConfig) -> bool:
    """Cut only what was tried often enough and fell below viability."""
    return not link.pruned and link.trials >= config.min_trials and link.posterior_mean < config.threshold


def choose(rng: np.random.Generator, links: Sequence[Link], min_trials: int = 0) -> Link:
    """Thompson sampling: one draw from each link's Beta posterior; the highest draw wins.

    Links tried fewer than ``min_trials`` times go first (their draws decide
    among them): no link may be cut untried, and a link nobody tries can never
    be cut, so every link earns its ``min_trials`` before the posteriors compete.
    """
    draws = rng.beta(np.array([link.alpha for link in links]), np.array([link.beta for link in links]))
    draws += np.array([link.trials < min_trials for link in links], dtype=np.float64)
    return links[int(np.argmax(draws))]


def bound_arguments(
    binding: Mapping[str, str], records: Sequence[Mapping[str, Any]], rng: np.random.Generator
) -> dict[str, Any] | None:
    """Values for the bound parameters from one record that carries every bound field (sampled), or None."""
    usable = [r for r in records if all(_present(r.get(field)) for field in binding.values())]
    if not usable:
        return None
    record = usable[int(rng.integers(len(usable)))]
    return {param: record[field] for param, field in sorted(binding.items())}


def _present(value: Any) -> bool:
    return (
        value is not None and not (isinstance(value, str) and not value.strip()) and not isinstance(value, (dict, list))
    )


# -- the loop ---------------------------------------------------------------------
def prune(
    links: Sequence[Link],
    catalog: Catalog,
    env: Any,
    config: PruneConfig,
    progress: Callable[[IterationStats], None] | None = None,
) -> list[IterationStats]:
    """Run the loop over ``links`` (updated in place) with ``env`` (a ToolEnvironment); per-iteration stats.

    Links start from the prior their feasibility gives unless they already
    carry trials (a resumed run).
    """
    rng = np.random.default_rng(config.seed)
    ordered = sorted(links, key=lambda link: link.key)
    for link in ordered:
        if link.trials == 0 and not link.pruned:
            link.alpha, link.beta = prior_posterior(link.prior, config.prior_strength)
    outgoing: dict[str, list[Link]] = {}
    for link in ordered:
        outgoing.setdefault(link.source, []).append(link)
    starts = sorted(name for name in outgoing if name in catalog and catalog.get(name).examples)
    if not starts:
        raise UsageError("no candidate link starts at a tool with example arguments: nothing to execute")
    fillers = {name: target_fillers(catalog.get(name)) for name in sorted({link.target for link in ordered})}
    history: list[IterationStats] = []
    for iteration in range(1, config.iterations + 1):
        passed = steps = steps_ok = 0
        for _ in range(config.paths):
            ok, made, made_ok = _walk(rng, starts, outgoing, fillers, catalog, env, config)
            passed += ok
            steps += made
            steps_ok += made_ok
        env.reset()  # the log is not needed here, and would grow by every call of the run
        cut = 0
        for link in ordered:
            if should_cut(link, config):
                link.pruned, link.pruned_at = True, iteration
                cut += 1
        stats = IterationStats(
            iteration, config.paths, passed, steps, steps_ok, cut, sum(not link.pruned for link in ordered)
        )
        history.append(stats)
        if progress is not None:
            progress(stats)
    return history


def _walk(
    rng: np.random.Generator,
    starts: Sequence[str],
    outgoing: Mapping[str, list[Link]],
    fillers: Mapping[str, list[dict[str, Any]]],
    catalog: Catalog,
    env: Any,
    config: PruneConfig,
) -> tuple[bool, int, int]:
    """One sampled path: (passed, calls made, calls ok).

    A path passes when it crossed at least one link and every call succeeded.
    """
    name = starts[int(rng.integers(len(starts)))]
    tool = catalog.get(name)
    args = dict(tool.examples[int(rng.integers(len(tool.examples)))])
    result = env.call(name, args)
    steps, steps_ok = 1, int(result.outcome == "ok")
    visited = {name}
    crossed = 0
    while result.outcome == "ok" and crossed < config.max_depth:
        options = [link for link in outgoing.get(name, ()) if not link.pruned and link.target not in visited]
        if not options:
            break
        link = choose(rng, options, config.min_trials)
        values = bound_arguments(link.binding, result.records, rng)
        crossed += 1
        if values is None:  # the output never carries what the binding reads: the binding is wrong
            update(link, "structural_error", config)
            return False, steps, steps_ok
        beside = fillers[link.target]
        result = env.call(link.target, {**beside[int(rng.integers(len(beside)))], **values})
        steps += 1
        steps_ok += result.outcome == "ok"
        update(link, result.outcome, config)
        name = link.target
        visited.add(name)
    return crossed > 0 and steps == steps_ok, steps, steps_ok
