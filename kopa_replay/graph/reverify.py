"""Link impact: re-test only the links of a pruned graph that an API drift can have moved.

A full re-prune after every drift repeats the whole Thompson-sampling loop.
Most links cannot have changed: a link reads named fields of its source and
calls its target, so a drift that touches neither leaves its evidence valid.
:func:`reverify` takes the drift between the snapshot the prune ran against
(the *base*) and a later snapshot, and

1. **selects** (:func:`select`, pure) the retained links whose source is
   touched as a whole or in a field the binding reads, or whose target is
   touched as a whole (:func:`kopa_replay.drift.impact.touched` decides what
   a change touches);
2. **re-tests** each selected link by execution, as the prune loop crosses a
   link: call the source with one of its catalog examples, bind the target's
   parameters from one record of the answer (:func:`~.prune.bound_arguments`),
   call the target beside one of its fillers (:func:`~kopa_replay.text.concepts.target_fillers`).
   Each trial updates the link with prune's :func:`~.prune.update`; after each
   trial :func:`~.prune.should_cut` may cut it (as the loop cuts: for good).
   At most ``trials`` trials, fewer once the verdict is settled: cut, or no
   outcome of the trials left could cut it any more;
3. **writes** ``graph.reverified.json`` (the pruned graph with the selected
   links updated; ``graph.json`` is never touched) and ``reverify.json``.

Choices, and why:

* A selected link **restarts from its prior** (the scorer's feasibility, as a
  fresh prune starts it): the drift voids what execution said before it, and
  keeping twenty old successes would need a dozen new failures to outweigh.
  This is also where a full re-prune starts every link. Its counts before are
  kept in the report.
* The posterior's **rules are the prune's own** (``w_s``, ``w_e``,
  ``threshold``, ``min_trials``, ``prior_strength`` from the graph's
  metadata), so a verdict here is the one the loop would reach on the same
  outcomes; a link cut here gets ``pruned_at`` = the prune's iterations + 1.
* Only **retained** links are selected. A link the prune cut stays cut: drift
  of the kinds the timeline knows (renames, removals, envelopes, result codes)
  breaks bindings, it does not mend them.
* A **failed source call counts against the link** (an ``empty`` answer as a
  structural failure, an environmental one lightly). The prune loop instead
  ends the path there and blames no link — right while sampling, but a source
  whose envelope or result code changed then never answers again, and the
  links out of it would stay "retained" untried forever. Per link, the report
  says where each failure happened (``source``, ``binding``, ``target``).
* **Answers are memoized** within one run (every answer but an environmental
  failure, keyed by tool and arguments): every selected link out of one source
  shares that source's answer to an example, and a repeated target request is
  not sent twice. The same request in one world answers the same bytes; the
  evidence is counted per trial as the loop counts it. ``calls`` is what was
  actually sent (or replayed).
* Each link draws from its **own generator**, seeded from ``(seed, source,
  target)``, and links are visited sorted: a link's trials do not depend on
  which other links were selected, and the same inputs give the same bytes.
* A call the answering snapshot lacks under strict replay
  (:class:`~kopa_replay.errors.CassetteMiss`) is **counted as unanswered**,
  not raised: the trial adds no evidence, and a link with no answered trial is
  ``undecided`` and left exactly as the prune left it.
* The cost of a full re-prune is the run's own prune's ``calls`` (same
  configuration), the figure the ``call_ratio`` is taken against.

Where the calls are answered is the caller's choice: :func:`open_reverify_env`
layers the later snapshot (replayed when it holds the request) over a source
(the simulator at the snapshot's as-of date, a mirror, live, or nothing), whose
answers may be recorded into another snapshot so a rerun is offline.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, fields, replace
from pathlib import Path
from typing import Any

import numpy as np

from kopa_replay.catalog.model import Catalog
from kopa_replay.drift.impact import WHOLE_TOOL, touched
from kopa_replay.drift.report import REPORT_FORMATS, Case, check_format, junit_xml, markdown_cell
from kopa_replay.env.call import TRANSIENT_OUTCOMES
from kopa_replay.env.source import is_sim, recorded_sim_source, source_label
from kopa_replay.errors import CassetteMiss, UsageError
from kopa_replay.graph.model import Link
from kopa_replay.graph.pipeline import RunDir
from kopa_replay.graph.prune import PruneConfig, bound_arguments, prior_posterior, should_cut, update
from kopa_replay.graph.store import graph_digest, load_graph, save_graph
from kopa_replay.text.concepts import target_fillers
from kopa_replay.util import write_atomic

__all__ = [
    "FORMAT",
    "GRAPH_FILE",
    "REPORT_FILE",
    "REPORT_FORMATS",
    "FAIL_ON",
    "ReverifyConfig",
    "Answering",
    "Selected",
    "LinkVerdict",
    "ReverifyResult",
    "select",
    "base_snapshot",
    "reverify",
    "open_reverify_env",
    "reverify_snapshot",
    "render",
    "crosses",
]

FORMAT = "kopa-replay/reverify@1"
GRAPH_FILE = "graph.reverified.json"
REPORT_FILE = "reverify.json"
#: ``--fail-on`` levels: the verdicts that make :func:`crosses` true at each.
FAIL_ON = {"broken": ("broken",), "undecided": ("broken", "undecided")}


@dataclass(frozen=True)
class ReverifyConfig:
    """The re-test's own knobs; the posterior's (w_s, w_e, threshold, min_trials, prior) are the prune's."""

    trials: int = 4  # most trials per selected link (it stops once cut, or once no outcome left could cut it)
    seed: int = 0  # seeds every link's generator together with the link's ends

    def __post_init__(self) -> None:
        if self.trials < 1:
            raise UsageError(f"trials must be at least 1, not {self.trials}")

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class Selected:
    """A retained link the drift can have moved (``key``: source, target), and why, one reason per touch."""

    key: tuple[str, str]
    reasons: tuple[str, ...]


@dataclass(frozen=True)
class LinkVerdict:
    """What re-testing one selected link found."""

    source: str
    target: str
    binding: Mapping[str, str]
    reasons: tuple[str, ...]
    verdict: str  # broken (cut now), sound (kept), undecided (no answered trial)
    trials: int
    successes: int
    failed_at: Mapping[str, int]  # source / binding / target → failed trials there
    outcomes: tuple[str, ...]  # each answered trial's outcome, in order
    unanswered: int  # trials the answering snapshot could not answer
    posterior_before: float
    posterior_after: float
    trials_before: int
    #: the posterior mean the re-test restarted from: the link's prior alone (the drift voids the prune's trials)
    posterior_restart: float | None = None

    @property
    def name(self) -> str:
        return f"{self.source} -> {self.target}"

    def posterior_change(self) -> str:
        """``posterior_before -> posterior_after`` with what each rests on: the prune's trials, then (a re-test
        restarts from the prior) the prior and the re-tests alone — so two successes can lower a posterior that
        twenty earlier trials had raised higher."""
        before = f"posterior {self.posterior_before:.2f} (prune: {self.trials_before} trials)"
        if self.verdict == "undecided" or self.posterior_restart is None:
            return f"{before}, kept: no re-test answered"
        tests = f"{self.trials} re-test{'s' if self.trials != 1 else ''}"
        return f"{before} -> {self.posterior_after:.2f} (restarted at the prior's {self.posterior_restart:.2f}, then {tests})"

    def to_dict(self) -> dict[str, Any]:
        return {
            "source": self.source,
            "target": self.target,
            "binding": dict(sorted(self.binding.items())),
            "reasons": list(self.reasons),
            "verdict": self.verdict,
            "trials": self.trials,
            "successes": self.successes,
            "failed_at": dict(sorted(self.failed_at.items())),
            "outcomes": list(self.outcomes),
            "unanswered": self.unanswered,
            "posterior_before": round(self.posterior_before, 6),
            "posterior_after": round(self.posterior_after, 6),
            "trials_before": self.trials_before,
            "posterior_restart": None if self.posterior_restart is None else round(self.posterior_restart, 6),
        }


@dataclass(frozen=True)
class ReverifyResult:
    """The report: what was selected, what broke, what it cost against a full re-prune."""

    run_dir: str
    graph: str
    base: str | None
    snapshot: str | None
    source: Mapping[str, Any]
    touched: Mapping[str, tuple[str, ...] | None]
    links: int
    retained_before: int
    verdicts: tuple[LinkVerdict, ...]
    calls: int
    unanswered: int
    full_prune_calls: int | None
    config: Mapping[str, Any]
    graph_digest: str

    def count(self, verdict: str) -> int:
        return sum(v.verdict == verdict for v in self.verdicts)

    @property
    def call_ratio(self) -> float | None:
        return round(self.calls / self.full_prune_calls, 6) if self.full_prune_calls else None

    def to_dict(self) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "run_dir": self.run_dir,
            "graph": self.graph,
            "base": self.base,
            "snapshot": self.snapshot,
            "source": dict(self.source),
            "touched": {tool: (None if fields is None else list(fields)) for tool, fields in self.touched.items()},
            "links": self.links,
            "retained_before": self.retained_before,
            "selected": len(self.verdicts),
            "broken": self.count("broken"),
            "still_sound": self.count("sound"),
            "undecided": self.count("undecided"),
            "calls": self.calls,
            "unanswered": self.unanswered,
            "full_prune_calls": self.full_prune_calls,
            "call_ratio": self.call_ratio,
            "config": dict(self.config),
            "graph_digest": self.graph_digest,
            "results": [v.to_dict() for v in self.verdicts],
        }


# -- pure selection ----------------------------------------------------------------
def select(links: Iterable[Link], touched_map: Mapping[str, frozenset[str] | None]) -> list[Selected]:
    """The retained links the drift touches, sorted: source whole or a read field, or target whole."""
    out = []
    for link in sorted(links, key=lambda link: link.key):
        if link.pruned:
            continue
        reasons = []
        if link.source in touched_map:
            moved = touched_map[link.source]
            if moved is WHOLE_TOOL:
                reasons.append(f"source {link.source} changed as a whole")
            else:
                reasons += [
                    f"source field {link.source}.{name} changed" for name in sorted(moved & set(link.binding.values()))
                ]
        if link.target in touched_map and touched_map[link.target] is WHOLE_TOOL:
            reasons.append(f"target {link.target} changed as a whole")
        if reasons:
            out.append(Selected(link.key, tuple(reasons)))
    return out


def _touched_map(changes: Iterable[Any] | Mapping[str, frozenset[str] | None]) -> dict[str, frozenset[str] | None]:
    if isinstance(changes, Mapping):
        return {tool: (None if fields is None else frozenset(fields)) for tool, fields in sorted(changes.items())}
    return touched(changes)


def base_snapshot(run_dir: str | Path) -> str:
    """The snapshot the run's prune was answered from, as its report recorded it; a UsageError when none was."""
    report = _pruned_report(RunDir(run_dir))
    source = report.get("source") or {}
    if source.get("snapshot"):
        return str(source["snapshot"])
    where = source.get("source") or "an unrecorded source"
    as_of = f" at {source['as_of']}" if source.get("as_of") else ""
    raise UsageError(
        f"the prune in {run_dir} ran against {where}{as_of}, not a snapshot: name the snapshot that "
        "stands for what it saw with --base"
    )


def _pruned_report(run: RunDir) -> dict[str, Any]:
    if not run.path.is_dir():
        raise UsageError(f"no run directory {run.path}: run `kopa-replay graph prune --run-dir {run.path}` first")
    if not run.graph.exists():
        raise UsageError(f"{run.path} holds no pruned graph: run `kopa-replay graph prune --run-dir {run.path}` first")
    return run.read_report()


def _pruned_run(run: RunDir, catalog: Catalog) -> tuple[dict[str, Any], list[Link], dict[str, Any], PruneConfig]:
    """The run's prune report, pruned links, graph metadata and prune configuration, checked against ``catalog``."""
    report = _pruned_report(run)
    links, meta = load_graph(run.graph)
    if meta.get("catalog_digest") not in (None, catalog.digest()):
        raise UsageError(
            f"{run.graph} was built from another catalog (digest {str(meta.get('catalog_digest'))[:12]}…, "
            f"this one {catalog.digest()[:12]}…): pass the catalog it was pruned with"
        )
    missing = sorted({name for link in links for name in link.key if name not in catalog})
    if missing:
        raise UsageError(f"{run.graph} names tools the catalog lacks: {', '.join(missing[:5])}")
    recorded = meta.get("prune") or report.get("config") or {}
    config = PruneConfig(**{f.name: recorded[f.name] for f in fields(PruneConfig) if f.name in recorded})
    return report, links, meta, config


# -- re-testing ---------------------------------------------------------------------
def _rng(seed: int, key: tuple[str, str]) -> np.random.Generator:
    """A generator for one link: its draws depend on the seed and the link alone, never on Python's hash()."""
    digest = hashlib.sha256(f"{key[0]}\x00{key[1]}".encode()).digest()
    return np.random.default_rng([seed, *(int.from_bytes(digest[i : i + 4], "big") for i in range(0, 16, 4))])


class _Asker:
    """Calls through the environment, memoizing every answer but an environmental failure; counts what it sent."""

    def __init__(self, env: Any) -> None:
        self.env = env
        self.calls = 0
        self.unanswered = 0
        self._memo: dict[str, Any] = {}

    def __call__(self, tool: str, args: Mapping[str, Any]) -> Any | None:
        key = json.dumps([tool, dict(args)], sort_keys=True, ensure_ascii=False, default=str)
        if key in self._memo:
            return self._memo[key]
        try:
            result = self.env.call(tool, dict(args))
        except CassetteMiss:  # strict replay without this request: no evidence, and no socket was opened
            self.unanswered += 1
            return None
        self.calls += 1
        if result.outcome not in TRANSIENT_OUTCOMES:
            self._memo[key] = result
        return result


def _retest(
    link: Link,
    catalog: Catalog,
    ask: _Asker,
    fillers: Sequence[Mapping[str, Any]],
    prune_config: PruneConfig,
    config: ReverifyConfig,
) -> tuple[dict[str, int], list[str], int]:
    """Up to ``config.trials`` trials of ``link`` (updated in place): failures by place, outcomes, unanswered."""
    rng = _rng(config.seed, link.key)
    examples = catalog.get(link.source).examples
    failed_at = {"source": 0, "binding": 0, "target": 0}
    outcomes: list[str] = []
    unanswered = 0
    for _ in range(config.trials):
        if not examples:
            break
        first = ask(link.source, examples[int(rng.integers(len(examples)))])
        if first is None:
            unanswered += 1
            continue
        if first.outcome != "ok":
            outcome, place = first.outcome, "source"
        else:
            values = bound_arguments(link.binding, first.records, rng)
            if values is None:  # the answer no longer carries what the binding reads
                outcome, place = "structural_error", "binding"
            else:
                answer = ask(link.target, {**fillers[int(rng.integers(len(fillers)))], **values})
                if answer is None:
                    unanswered += 1
                    continue
                outcome, place = answer.outcome, "target"
        update(link, outcome, prune_config)
        outcomes.append(outcome)
        if outcome != "ok":
            failed_at[place] += 1
        if should_cut(link, prune_config) or _settled(link, config.trials - len(outcomes), prune_config):
            break
    return failed_at, outcomes, unanswered


def _settled(link: Link, left: int, config: PruneConfig) -> bool:
    """Whether no outcome of the ``left`` trials still to come could cut ``link``: were every one a structural
    failure, it would still stand at the threshold (the posterior falls fastest that way, so the end is its
    lowest point). Stopping then gives the verdict all the trials would, for fewer calls."""
    trials = link.trials + left
    beta = link.beta + left * config.w_s
    return trials < config.min_trials or link.alpha / (link.alpha + beta) >= config.threshold


def reverify(
    catalog: Catalog,
    run_dir: str | Path,
    env: Any,
    changes: Iterable[Any] | Mapping[str, frozenset[str] | None],
    config: ReverifyConfig = ReverifyConfig(),
    *,
    base: str | None = None,
    snapshot: str | None = None,
    source: Mapping[str, Any] | None = None,
) -> ReverifyResult:
    """Re-test the links of ``run_dir``'s pruned graph that ``changes`` touch, through ``env``; write the results.

    ``changes`` are drift :class:`~kopa_replay.drift.diff.Change` objects (or what
    :func:`~kopa_replay.drift.impact.touched` made of them); ``base``, ``snapshot`` and ``source`` are only
    recorded. Writes ``graph.reverified.json`` and ``reverify.json`` into the run directory.
    """
    run = RunDir(run_dir)
    report, links, meta, prune_config = _pruned_run(run, catalog)
    if config.trials < prune_config.min_trials:
        raise UsageError(
            f"trials ({config.trials}) must be at least the prune's min_trials "
            f"({prune_config.min_trials}): fewer could never cut a link"
        )
    touched_map = _touched_map(changes)
    by_key = {link.key: link for link in links}
    ask = _Asker(env)
    fillers: dict[str, list[dict[str, Any]]] = {}
    verdicts = []
    cut_at = prune_config.iterations + 1  # cut after the prune's last iteration
    for chosen in select(links, touched_map):
        old = by_key[chosen.key]
        link = replace(
            old, binding=dict(old.binding), failures={"structural": 0, "environmental": 0}, trials=0, successes=0
        )
        link.alpha, link.beta = prior_posterior(link.prior, prune_config.prior_strength)
        restart = link.posterior_mean
        if link.target not in fillers:
            fillers[link.target] = target_fillers(catalog.get(link.target))
        failed_at, outcomes, unanswered = _retest(link, catalog, ask, fillers[link.target], prune_config, config)
        if not outcomes:
            verdict, link = "undecided", old  # nothing answered: the prune's word stands
        elif should_cut(link, prune_config):
            verdict = "broken"
            link.pruned, link.pruned_at = True, cut_at
        else:
            verdict = "sound"
        by_key[link.key] = link
        one = LinkVerdict(
            link.source,
            link.target,
            dict(link.binding),
            chosen.reasons,
            verdict,
            len(outcomes),
            outcomes.count("ok"),
            failed_at,
            tuple(outcomes),
            unanswered,
            old.posterior_mean,
            link.posterior_mean,
            old.trials,
            restart,
        )
        verdicts.append(one)
        env.reset()  # the log is not needed, and would grow with every call
    updated = [by_key[key] for key in sorted(by_key)]
    recorded = {"base": base, "snapshot": snapshot, "source": dict(source or {})}
    graph_path = save_graph(
        run.path / GRAPH_FILE,
        updated,
        catalog,
        {**meta, "stage": "reverified", "reverify": {**config.to_dict(), **recorded}},
    )
    result = ReverifyResult(
        str(run.path),
        str(graph_path),
        base,
        snapshot,
        dict(source or {}),
        {tool: (None if f is None else tuple(sorted(f))) for tool, f in touched_map.items()},
        len(links),
        sum(not link.pruned for link in links),
        tuple(verdicts),
        ask.calls,
        ask.unanswered,
        report.get("calls"),
        {**config.to_dict(), "prune": prune_config.to_dict()},
        graph_digest(updated),
    )
    write_atomic(run.path / REPORT_FILE, render(result, "json"))
    return result


# -- where the calls are answered --------------------------------------------------------
@dataclass(frozen=True)
class Answering:
    """Where re-test calls go when the later snapshot lacks them (see :func:`open_reverify_env`)."""

    source: str | None = None  # sim, replay, live or a mirror URL; None: sim when the snapshot came from it
    as_of: str | None = None  # the simulator's date; None: the snapshot's own as-of date
    seed: int | None = None  # the simulator's world seed; None: the snapshot's own
    record_into: str | None = None  # another snapshot of the store that records (and then replays) those answers
    fault_rate: float = 0.0  # environmental failures the simulator injects

    def resolved(self, info: Any) -> "Answering":
        """Defaults filled from the snapshot's record (``info``: a :class:`~kopa_replay.record.store.Snapshot`)."""
        # by default the world the snapshot was recorded on
        source = self.source or (recorded_sim_source(info.source) if is_sim(info.source) else "replay")
        if not is_sim(source):
            return replace(self, source=source, as_of=None, seed=None)
        as_of = self.as_of or info.as_of
        if as_of is None:
            raise UsageError(f"snapshot {info.name!r} records no as-of date: pass the simulator's date with --as-of")
        seed = self.seed if self.seed is not None else (info.seed or 0)
        return replace(self, source=source, as_of=str(as_of), seed=seed)

    def check(self, snapshot: str) -> None:
        if self.record_into is not None and self.record_into == snapshot:
            raise UsageError(f"--record-into must name another snapshot than {snapshot!r}, which is only read")

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def open_reverify_env(catalog: Catalog, *, snapshot: str, store: str | Path, answering: Answering = Answering()) -> Any:
    """A ToolEnvironment (a context manager) answering from ``snapshot`` when it holds a request, else elsewhere.

    ``answering.source`` ``replay`` answers from the snapshots alone (a miss is counted, see :func:`reverify`);
    ``sim`` runs the simulator (by default at the snapshot's as-of date and world seed); ``live`` or a mirror
    URL send. With ``record_into``, what the snapshot lacks is answered from (and, by a source that sends,
    recorded into) that other snapshot of the same store, so the same command runs again offline.
    """
    from kopa_replay.env import ToolEnvironment, open_source
    from kopa_replay.record import Store

    answering.check(snapshot)
    with Store(store, readonly=True) as opened:
        info = opened.snapshot(snapshot)  # an unknown snapshot: a clear SnapshotError before anything opens
    how = answering.resolved(info)
    sends = how.source != "replay"
    if how.record_into is not None and sends:
        with Store(store) as opened:  # the new snapshot says what answered it, as a recording would
            opened.ensure_snapshot(
                how.record_into,
                as_of=how.as_of,
                seed=how.seed,
                source=source_label(str(how.source)),
                catalog_digest=catalog.digest(),
            )
    primary = open_source("replay", snapshot=snapshot, mode="replay", store=store, catalog=catalog)
    try:
        if how.record_into is not None:
            fallback = open_source(
                how.source or "replay",
                seed=how.seed or 0,
                as_of=how.as_of,
                fault_rate=how.fault_rate,
                snapshot=how.record_into,
                mode="replay-or-record" if sends else "replay",
                store=store,
                catalog=catalog,
            )
        elif sends:
            fallback = open_source(
                how.source or "sim", seed=how.seed or 0, as_of=how.as_of, fault_rate=how.fault_rate, catalog=catalog
            )
        else:
            return ToolEnvironment(catalog, primary, owns_source=True)
    except BaseException:
        primary.close()
        raise
    # the snapshot's answers come through its replayer (asked first); whatever it lacks goes out through the
    # fallback's client with the fallback's key (the replayer masks any key, so stored requests still match)
    layered = replace(
        fallback,
        name=f"{snapshot}+{fallback.name}",
        replayer=primary.replayer,
        details={**fallback.details, "over": primary.details},
        closers=[*fallback.closers, primary.close],
        rewinders=[*fallback.rewinders, primary.rewind],  # both parts count per request: both start over
    )
    return ToolEnvironment(catalog, layered, owns_source=True)


def reverify_snapshot(
    catalog: Catalog,
    run_dir: str | Path,
    *,
    snapshot: str,
    store: str | Path,
    base: str | None = None,
    answering: Answering = Answering(),
    config: ReverifyConfig = ReverifyConfig(),
    changes: Iterable[Any] | None = None,
) -> ReverifyResult:
    """The whole command: check the run, diff ``base`` (default: the prune's own snapshot) against ``snapshot``,
    re-test the touched links answered as ``answering`` says, write and return the report.

    ``changes``: the drift between the two, when the caller has it already (``refresh`` returns it), so it is
    not diffed again.
    """
    from kopa_replay.drift.recorded import diff_snapshots
    from kopa_replay.record import Store

    _pruned_run(RunDir(run_dir), catalog)  # a missing, unpruned or foreign run is the first thing to hear about
    answering.check(snapshot)
    base = base or base_snapshot(run_dir)
    if base == snapshot:
        raise UsageError(f"--base and --snapshot are both {snapshot!r}: there is no drift to re-verify")
    with Store(store, readonly=True) as opened:
        opened.snapshot(base)
        how = answering.resolved(opened.snapshot(snapshot))
        if changes is None:
            changes = diff_snapshots(opened, catalog, base, snapshot)
    with open_reverify_env(catalog, snapshot=snapshot, store=store, answering=how) as env:
        return reverify(catalog, run_dir, env, changes, config, base=base, snapshot=snapshot, source=how.to_dict())


# -- rendering -------------------------------------------------------------------------
def _summary_line(result: ReverifyResult) -> str:
    ratio = result.call_ratio
    full = f" vs {result.full_prune_calls} for a full re-prune ({ratio:.1%})" if ratio is not None else ""
    return (
        f"{len(result.verdicts)} of {result.retained_before} retained links selected: {result.count('broken')} "
        f"broken, {result.count('sound')} still sound, {result.count('undecided')} undecided; "
        f"{result.calls} calls{full}"
    )


#: why a re-tested link's posterior can fall after successes: said once above the links
_RESTART = (
    "a re-tested link restarts from its prior (the drift voids what the prune's trials said), so its new "
    "posterior rests on the prior and the re-tests alone"
)


def _text(result: ReverifyResult) -> str:
    lines = [f"reverify {result.run_dir}: {result.base or '?'} -> {result.snapshot or '?'}"]
    if result.verdicts:
        lines.append(f"({_RESTART})")
    for v in result.verdicts:
        binding = ", ".join(f"{p}<-{f}" for p, f in sorted(v.binding.items()))
        lines.append(
            f"{v.verdict.upper():<9} {v.name} [{binding}] {v.successes}/{v.trials} ok{_failures(v)}; "
            f"{v.posterior_change()}; {'; '.join(v.reasons)}"
        )
    lines += [_summary_line(result), f"graph {result.graph} (digest {result.graph_digest[:16]}…)"]
    return "\n".join(lines) + "\n"


def _failures(v: LinkVerdict) -> str:
    parts = [f"{n} at {place}" for place, n in sorted(v.failed_at.items()) if n]
    if v.unanswered:
        parts.append(f"{v.unanswered} unanswered")
    return f" (failed {', '.join(parts)})" if parts else ""


def _json(result: ReverifyResult) -> str:
    return json.dumps(result.to_dict(), ensure_ascii=False, sort_keys=True, indent=2) + "\n"


def _markdown(result: ReverifyResult) -> str:
    lines = [f"**{_summary_line(result)}**", ""]
    if result.verdicts:
        lines += [
            f"*Before*: the posterior after the prune's trials; *after*: {_RESTART}.",
            "",
            "| verdict | source | target | binding | posterior before | trials before | prior | after | trials ok "
            "| failed at | why |",
            "|---|---|---|---|---|---|---|---|---|---|---|",
        ]
        for v in result.verdicts:
            binding = ", ".join(f"{p}←{f}" for p, f in sorted(v.binding.items()))
            failed = ", ".join(f"{place} {n}" for place, n in sorted(v.failed_at.items()) if n) or "-"
            cells = (
                v.verdict,
                v.source,
                v.target,
                binding,
                f"{v.posterior_before:.2f}",
                str(v.trials_before),
                "-" if v.posterior_restart is None else f"{v.posterior_restart:.2f}",
                f"{v.posterior_after:.2f}",
                f"{v.successes}/{v.trials}",
                failed,
                "; ".join(v.reasons),
            )
            lines.append("| " + " | ".join(markdown_cell(c) for c in cells) + " |")
    return "\n".join(lines) + "\n"


def _junit(result: ReverifyResult) -> str:
    """One testcase per selected link: a broken link fails, an undecided one is skipped."""
    cases = []
    for v in result.verdicts:
        detail = (
            f"binding {json.dumps(dict(sorted(v.binding.items())), ensure_ascii=False)}; "
            f"{v.successes}/{v.trials} trials ok{_failures(v)}; {v.posterior_change()}; {'; '.join(v.reasons)}"
        )
        cases.append(
            Case(
                f"graph.{v.source}",
                v.name,
                f"link broken: {v.name}" if v.verdict == "broken" else None,
                detail,
                f"undecided: {detail}" if v.verdict == "undecided" else None,
            )
        )
    return junit_xml(
        "kopa-replay graph reverify",
        cases,
        (
            ("base", result.base),
            ("snapshot", result.snapshot),
            ("calls", result.calls),
            ("full_prune_calls", result.full_prune_calls),
            ("graph_digest", result.graph_digest),
        ),
    )


_RENDERERS: dict[str, Callable[[ReverifyResult], str]] = {
    "text": _text,
    "json": _json,
    "markdown": _markdown,
    "junit": _junit,
}


def render(result: ReverifyResult, fmt: str = "text") -> str:
    """The report as ``text``, ``json``, ``markdown`` (a table) or ``junit`` (XML, a failing case per broken link)."""
    return _RENDERERS[check_format(fmt)](result)


def crosses(result: ReverifyResult, fail_on: str) -> bool:
    """Whether a link reached ``fail_on``: ``broken``, or ``undecided`` (broken or undecided)."""
    levels = FAIL_ON.get(fail_on)
    if levels is None:
        raise UsageError(f"unknown fail-on level {fail_on!r} (choose from {', '.join(FAIL_ON)})")
    return any(v.verdict in levels for v in result.verdicts)
