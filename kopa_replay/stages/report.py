"""The pipeline's report: every stage's figures in one self-contained HTML file and one Markdown file.

:func:`collect` reads what the stages wrote under ``OUT`` into one plain-JSON dict (every section optional: a
stage that did not run is reported as such); :func:`render_markdown` and :func:`render_html` turn that dict into
text without any I/O; :func:`write_report` does both and writes ``OUT/report.md`` and ``OUT/report.html``
atomically.

Both renderings are drawn from one list of blocks (headings, paragraphs, tables, plots), so they hold the same
tables by construction. The HTML inlines its CSS, the plots (base64 PNG ``data:`` URIs) and its font, and loads
nothing (its Content-Security-Policy forbids it); the Markdown references the plots by their path relative to
``OUT``. The font is NanumGothic (SIL OFL 1.1, from the ``koreanize-matplotlib`` package) cut to the characters the
page uses (:mod:`kopa_replay.graph.fonts`), so Hangul and ㎡ read on a machine without a CJK font; the plots are
drawn in the same font. Every table sits in a box that scrolls sideways, so a wide one never widens the page.
Nothing reads the clock and every mapping is walked in a fixed or sorted order: the same stage outputs give the
same bytes.

Figures are copied from the stage JSON and only formatted, never recomputed. The paper's figures sit beside ours:
:data:`PAPER_PRUNING` here; the corpus and audit tables are the ones ``kopa-replay synth`` and ``bench audit``
print (:func:`kopa_replay.synth.stats.stats_table`, :func:`kopa_replay.bench.audit.markdown`), with their paper
columns. :data:`FIGURES` draws them as bars beside ours (:func:`figures`; ``write_report`` writes the PNGs under
``OUT/figures``), each with sentences made from the same numbers saying where ours differ and what the figures
show about why. Two things are counted here: failure reasons, each grader reason generalized (calls, numbers and
quoted answers masked) so that the same kind of failure on different tasks counts together; and the retained links
that never succeeded, by why the loop kept them.
"""

from __future__ import annotations

import base64
import html
import json
import re
from collections import Counter, defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Union

from kopa_replay.errors import UsageError
from kopa_replay.graph.fonts import FAMILY as FONT_FAMILY
from kopa_replay.graph.fonts import font_face_css
from kopa_replay.graph.plots import Bars  # matplotlib itself is imported only to draw
from kopa_replay.text.markdown import escape as escape_markdown
from kopa_replay.text.markdown import table as markdown_table
from kopa_replay.util import write_atomic

__all__ = [
    "FIGURES",
    "PAPER_PRUNING",
    "ReportResult",
    "collect",
    "failure_reasons",
    "figures",
    "generalize_reason",
    "render_html",
    "render_markdown",
    "write_report",
]

#: The paper's Phase A pruning figures (arXiv:2609.05395, Phase A results; quoted in the README's "Figures"
#: table): execution rate of the candidate links before and after pruning, of the pruned links alone, the share
#: that never succeeded among pruned and retained links, and the in-flight gains over the 100 × 500-path loop.
PAPER_PRUNING: Mapping[str, float | int] = {
    "exec_rate_before": 0.502,
    "exec_rate_after": 0.627,
    "exec_rate_pruned": 0.148,
    "never_succeeded_pruned": 0.705,
    "never_succeeded_retained": 0.277,
    "path_pass_rate_gain": 0.31,
    "step_success_rate_gain": 0.28,
    "iterations": 100,
    "paths": 500,
}

# -- where the stages write, relative to OUT -----------------------------------------------------
PRUNE_FILE = "graph/prune.json"
GRAPH_FILE = "graph/graph.json"
ITERATIONS_FILE = "graph/iterations.jsonl"
PLOTS = (
    ("graph/scatter.png", "Links: prior feasibility against posterior mean after execution"),
    ("graph/curves.png", "Per iteration: path pass rate, step success rate, links cut"),
)
STATS_FILE = "synth/stats.json"
FILTERED_STATS_FILE = "filter/stats.json"
FILTER_FILE = "filter/filter_report.json"
BENCH_DIR = "bench"
AUDIT_FILE = "audit/audit.json"
DRIFT_FILE = "drift/drift.json"
#: the drift stage's note of which snapshots it compared ({"before", "after", "refreshed"}; null: none)
COMPARED_FILE = "drift/compared.json"
#: the benchmark's agents in the order the paper discusses them; any other agent directory follows, sorted
BASELINE_AGENTS = ("oracle", "skip-lookup", "first-page")

#: (key in the data and HTML anchor, heading), in report order
SECTIONS = (
    ("pruning", "Phase A: link pruning"),
    ("corpus", "Phase B: synthesized corpus"),
    ("filter", "Filter"),
    ("bench", "KOPA-Bench: oracle and baselines"),
    ("audit", "Contamination audit"),
    ("drift", "Drift between snapshots"),
)

#: the figures drawn beside the paper's, by section: (path relative to OUT, caption). write_report writes each PNG
#: there; the Markdown links it and the HTML inlines it, with a note under it made from the same numbers.
FIGURES: Mapping[str, tuple[tuple[str, str], ...]] = {
    "pruning": (
        (
            "figures/execution-rate.png",
            "Execution rate of the candidate links before and after pruning, ours and the paper's",
        ),
        (
            "figures/pruned-vs-retained.png",
            "Pruned and retained links: how often they execute, and the share that never succeeded",
        ),
    ),
    "corpus": (("figures/junctions.png", "Junction statistics of the corpus, ours and the paper's"),),
    "bench": (("figures/pass-rates.png", "pass@1 and pass@k of the oracle and the baselines (combined verdict)"),),
}

#: rows shown in long listings (iterations, pruned links, discards; drift changes twice as many) and kinds of
#: failure shown per agent and axis: the report stays readable at the paper's 100 iterations and 2,318 tools
_LISTED = 20
#: pruned links listed per platform (those with the lowest posterior mean): every platform shows, not one alphabet's
_PRUNED_PER_PLATFORM = 3
_REASONS_PER_AXIS = 5
_EXAMPLE_CHARS = 140
_NONE = "—"


@dataclass(frozen=True)
class ReportResult:
    """What :func:`write_report` wrote: the two files, and the data both were rendered from."""

    html: Path
    markdown: Path
    data: dict[str, Any]


# -- reading (the only I/O besides write_report) ------------------------------------------------
def _read_json(path: Path) -> Any | None:
    """A stage file's JSON, None when the stage did not write it; a clear error when it is not JSON."""
    if not path.is_file():
        return None
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise UsageError(f"{path} is not readable as JSON ({exc}): rerun the stage that writes it") from exc


def _read_jsonl(path: Path) -> list[Any] | None:
    if not path.is_file():
        return None
    try:
        return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise UsageError(f"{path} is not readable as JSON lines ({exc}): rerun the stage that writes it") from exc


def _not_run(source: str) -> dict[str, Any]:
    return {"ran": False, "source": source}


#: prune.json's absolute paths of this run's files: left out so the report does not depend on where OUT lies
_PRUNE_PATH_KEYS = ("candidates", "curves", "graph", "scatter")


def _platforms(graph: Mapping[str, Any]) -> dict[str, str]:
    return {str(node.get("id")): str(node.get("platform") or "") for node in graph.get("nodes", ())}


def _pruned_links(graph: Mapping[str, Any]) -> list[dict[str, Any]]:
    from kopa_replay.graph.model import Link

    platforms = _platforms(graph)
    links = sorted(
        (Link.from_dict(item) for item in graph.get("links", ()) if item.get("pruned")), key=lambda link: link.key
    )
    return [
        {
            "platform": platforms.get(link.target, ""),  # the API the bound value was sent to
            "source": link.source,
            "target": link.target,
            "binding": dict(sorted(link.binding.items())),
            "prior": link.prior,
            "posterior_mean": round(link.posterior_mean, 6),
            "trials": link.trials,
            "successes": link.successes,
            "structural_failures": link.failures.get("structural", 0),
            "pruned_at": link.pruned_at,
        }
        for link in links
    ]


def _never_succeeded_retained(graph: Mapping[str, Any], config: Mapping[str, Any]) -> dict[str, Any] | None:
    """The retained links tried without a success, counted by why the loop kept them: too few trials to be cut, or a
    posterior mean still at the cut threshold or above (its rule: cut when tried ``min_trials`` times and under it)."""
    from kopa_replay.graph.model import Link

    min_trials, threshold = config.get("min_trials"), config.get("threshold")
    if min_trials is None or threshold is None:
        return None
    links = [Link.from_dict(item) for item in graph.get("links", ()) if not item.get("pruned") and item.get("trials")]
    never = [link for link in links if link.successes == 0]
    return {
        "tried": len(links),
        "never_succeeded": len(never),
        "under_min_trials": sum(link.trials < min_trials for link in never),
        "at_or_above_threshold": sum(link.trials >= min_trials and link.posterior_mean >= threshold for link in never),
    }


def _collect_pruning(out: Path) -> dict[str, Any]:
    prune = _read_json(out / PRUNE_FILE)
    if prune is None:
        return _not_run(PRUNE_FILE)
    graph = _read_json(out / GRAPH_FILE)
    return {
        "ran": True,
        "source": PRUNE_FILE,
        "figures": {key: prune[key] for key in sorted(prune) if key not in _PRUNE_PATH_KEYS},
        "paper": dict(PAPER_PRUNING),
        "iterations": _read_jsonl(out / ITERATIONS_FILE),
        "tools": None if graph is None else len(graph.get("nodes", ())),
        "pruned_links": None if graph is None else _pruned_links(graph),
        "retained_never_succeeded": None
        if graph is None
        else _never_succeeded_retained(graph, prune.get("config") or {}),
        "plots": [path for path, _ in PLOTS if (out / path).is_file()],
    }


def _collect_corpus(out: Path) -> dict[str, Any]:
    from kopa_replay.synth.stats import PAPER

    stats = _read_json(out / STATS_FILE)
    if stats is None:
        return _not_run(STATS_FILE)
    return {
        "ran": True,
        "source": STATS_FILE,
        "stats": stats,
        "filtered_stats": _read_json(out / FILTERED_STATS_FILE),
        "paper": dict(PAPER),
    }


def _collect_filter(out: Path) -> dict[str, Any]:
    report = _read_json(out / FILTER_FILE)
    if report is None:
        return _not_run(FILTER_FILE)
    discards = sorted(
        report.get("discards", ()), key=lambda d: (str(d.get("trajectory_id")), d.get("stage", ""), d.get("check", ""))
    )
    by_check = Counter((d.get("stage", ""), d.get("check", "")) for d in discards)
    return {
        "ran": True,
        "source": FILTER_FILE,
        **{
            key: report.get(key)
            for key in ("input", "kept", "discarded", "decontaminated", "replaced", "decontaminated_against", "judges")
        },
        "discards_by_check": [
            {"stage": stage, "check": check, "discarded": by_check[stage, check]} for stage, check in sorted(by_check)
        ],
        "discards": discards,
    }


def _agents(bench_dir: Path) -> list[str]:
    found = {path.parent.name for path in bench_dir.glob("*/report.json")} if bench_dir.is_dir() else set()
    return [a for a in BASELINE_AGENTS if a in found] + sorted(found - set(BASELINE_AGENTS))


def _collect_bench(out: Path) -> dict[str, Any]:
    agents = _agents(out / BENCH_DIR)
    if not agents:
        return _not_run(f"{BENCH_DIR}/AGENT/report.json")
    reports = {}
    for agent in agents:
        report = _read_json(out / BENCH_DIR / agent / "report.json") or {}
        reports[agent] = {
            **{
                key: report.get(key)
                for key in (
                    "agent",
                    "n_tasks",
                    "n_rollouts",
                    "k",
                    "k_min",
                    "pass_at_1",
                    "pass_at_k",
                    "by_domain",
                    "by_split",
                )
            },
            "failures": failure_reasons(report),
        }
    return {"ran": True, "source": f"{BENCH_DIR}/AGENT/report.json", "agents": agents, "reports": reports}


def _collect_audit(out: Path) -> dict[str, Any]:
    from kopa_replay.bench.audit import PAPER

    audit = _read_json(out / AUDIT_FILE)
    if audit is None:
        return _not_run(AUDIT_FILE)
    return {"ran": True, "source": AUDIT_FILE, "audit": audit, "paper": dict(PAPER)}


def _change_row(change: Mapping[str, Any]) -> dict[str, Any]:
    # the requests themselves are left out: they are URLs of the live APIs, and their count says enough here
    return {
        **{key: change.get(key) for key in ("severity", "tool", "path", "kind", "check_id", "message")},
        "requests": len(change.get("requests", ())),
    }


def _collect_drift(out: Path) -> dict[str, Any]:
    drift = _read_json(out / DRIFT_FILE)
    if drift is None:
        return _not_run(DRIFT_FILE)
    changes = [_change_row(c) for c in drift.get("changes", ())]
    compared = _read_json(out / COMPARED_FILE) or {}  # a DriftReport's JSON does not name its two snapshots
    return {
        "ran": True,
        "source": DRIFT_FILE,
        "before": compared.get("before"),
        "after": compared.get("after"),
        "refreshed": compared.get("refreshed"),
        "summary": drift.get("summary", {}),
        "changes": changes,
        "tools_compared": len(drift.get("tools", ())),
        "tools_affected": sorted({c["tool"] for c in changes}),
        "requests": drift.get("requests"),
        "unpaired": drift.get("unpaired"),
        "carried_over": list(drift.get("carried_over", ())),
        "noise": [_change_row(c) for c in drift.get("noise", ())],
        "data": [_change_row(c) for c in drift.get("data", ())],
    }


_COLLECTORS = {
    "pruning": _collect_pruning,
    "corpus": _collect_corpus,
    "filter": _collect_filter,
    "bench": _collect_bench,
    "audit": _collect_audit,
    "drift": _collect_drift,
}


def collect(out_dir: str | Path) -> dict[str, Any]:
    """Everything the report shows, read from the stage outputs under ``out_dir``, as one plain-JSON dict.

    One key per section of :data:`SECTIONS`; each holds ``ran`` (False when its stage wrote nothing) and
    ``source`` (the file it reads, relative to ``out_dir``), then its figures as the stage wrote them.
    """
    out = Path(out_dir)
    return {key: _COLLECTORS[key](out) for key, _ in SECTIONS}


# -- failure reasons (pure) ----------------------------------------------------------------------
_QUOTED = re.compile(r"'[^']*'|\"[^\"]*\"")
# an aside in parentheses after a space: "(records 1–100 were)", "(±2.8)", "(x was called 2 times, first with …)"
_ASIDE = re.compile(r"\s+\((?:[^()]|\([^()]*\))*\)")
_CALL = re.compile(r"\b\w+\((?:[^()]|\([^()]*\))*\)")
_CALL_MASK = "TOOL(…)"
_CALL_LIST = re.compile(re.escape(_CALL_MASK) + r"(?: ×\d+)?(?:; " + re.escape(_CALL_MASK) + r"(?: ×\d+)?)*")
# a number with the unit glued to it: 2,052,000.1 · 2814910.8㎡ · 20260825. A lone 1 counting a noun stays:
# "1 extra call" is grammatical where "N extra call" is not, and "record 1 of" (nothing read) is another failure
# than "record 101 of" (only the first page read).
_NUMBER = re.compile(r"(?!1 [^\W\d_])[+-]?\d+(?:[.,]\d+)*[^\s,;:()]*")


def generalize_reason(reason: str) -> list[str]:
    """The kinds of failure one grader reason states: quoted answers, asides, calls and numbers masked.

    ``no call to dart_corp_code(corp_name=X): the code lookup was skipped; no call to …`` gives one kind,
    ``no call to TOOL(…): the code lookup was skipped``; distinct kinds are returned in order of first mention.
    """
    text = _QUOTED.sub("'…'", reason)
    text = _ASIDE.sub("", text)
    text = _CALL_LIST.sub(_CALL_MASK, _CALL.sub(_CALL_MASK, text))
    text = _NUMBER.sub("N", text)
    kinds = [part.strip() for part in text.split("; ") if part.strip()]
    return list(dict.fromkeys(kinds))


def failure_reasons(report: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """Per axis of a bench report: failing rollouts, and each kind of reason with the rollouts it failed.

    ``{axis: {"failed": n, "kinds": [{"reason", "rollouts", "task", "example"}, …]}}``, the kinds most common
    first (ties by reason); ``example`` is the first such reason in task order, verbatim.
    """
    from kopa_replay.bench.model import AXES

    out = {}
    for axis in AXES:
        counts: Counter[str] = Counter()
        examples: dict[str, tuple[str, str]] = {}
        failed = 0
        for task in sorted(report.get("tasks", ()), key=lambda t: t["id"]):
            for rollout in task.get("rollouts", ()):
                result = rollout.get(axis) or {}
                if result.get("passed", True):
                    continue
                failed += 1
                for kind in generalize_reason(str(result.get("reason", ""))):
                    counts[kind] += 1
                    examples.setdefault(kind, (task["id"], str(result.get("reason", ""))))
        kinds = sorted(counts, key=lambda kind: (-counts[kind], kind))
        out[axis] = {
            "failed": failed,
            "kinds": [
                {"reason": kind, "rollouts": counts[kind], "task": examples[kind][0], "example": examples[kind][1]}
                for kind in kinds
            ],
        }
    return out


# -- the document: blocks both renderers draw ------------------------------------------------------
@dataclass(frozen=True)
class Heading:
    text: str
    level: int = 2
    anchor: str = ""


@dataclass(frozen=True)
class Paragraph:
    text: str


@dataclass(frozen=True)
class Table:
    """A table of plain-text cells; ``align`` has one letter per column, ``l`` or ``r`` (numbers)."""

    header: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]
    align: str = ""

    def alignment(self) -> str:
        return self.align or "l" + "r" * (len(self.header) - 1)


@dataclass(frozen=True)
class Plot:
    path: str  # relative to OUT: the Markdown links it, the HTML inlines its bytes
    caption: str


Block = Union[Heading, Paragraph, Table, Plot]


def _pct(value: Any) -> str:
    return _NONE if value is None else f"{100 * float(value):.1f}%"


def _score(value: Any) -> str:
    return _NONE if value is None else f"{float(value):.3f}"


def _count(value: Any) -> str:
    return _NONE if value is None else f"{int(value):,}"


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _counts(mapping: Mapping[str, Any] | None) -> str:
    return ", ".join(f"{key} {mapping[key]}" for key in sorted(mapping)) if mapping else _NONE


def _shown_of(shown: int, total: int, what: str) -> list[Block]:
    """A note under a listing cut short."""
    return [Paragraph(f"{shown} of {total} {what} shown.")] if total > shown else []


def _evenly(rows: Sequence[Any], limit: int) -> list[Any]:
    """At most ``limit`` rows spread evenly, the first and the last included (a 100-iteration run stays short)."""
    if len(rows) <= limit:
        return list(rows)
    picks = sorted({round(i * (len(rows) - 1) / (limit - 1)) for i in range(limit)})
    return [rows[i] for i in picks]


def _parse_markdown_table(text: str) -> Table:
    """The first table of a stage's own Markdown, so its rows (labels, formats, paper column) are reused as is."""
    lines = [line.strip() for line in text.splitlines()]
    start = next(i for i, line in enumerate(lines) if line.startswith("|"))
    block = []
    for line in lines[start:]:
        if not line.startswith("|"):
            break
        block.append([cell.strip().replace("\\|", "|") for cell in re.split(r"(?<!\\)\|", line.strip("|"))])
    header, separator, *rows = block
    align = "".join("r" if cell.endswith(":") else "l" for cell in separator)
    return Table(tuple(header), tuple(tuple(row) for row in rows), align)


def _source_text(source: Mapping[str, Any] | None) -> str:
    if not source:
        return "unknown source"
    parts = [str(source.get("source"))]
    if source.get("snapshot"):
        parts.append(f"snapshot {source['snapshot']}")
    if source.get("as_of"):
        parts.append(f"as of {source['as_of']}")
    if source.get("fault_rate"):
        parts.append(f"fault rate {source['fault_rate']}")
    return " ".join(parts)


#: the pruning rates the paper gives: (label, key in prune.json and in PAPER_PRUNING)
_PRUNING_RATES = (
    ("execution rate before pruning", "exec_rate_before"),
    ("execution rate after pruning", "exec_rate_after"),
    ("execution rate of the pruned links", "exec_rate_pruned"),
    ("never succeeded, among pruned", "never_succeeded_pruned"),
    ("never succeeded, among retained (tried)", "never_succeeded_retained"),
)
#: the in-flight rates, first iteration → last: (label, key in first/last_iteration, the paper's gain)
_PRUNING_TRENDS = (
    ("path pass rate, first → last iteration", "path_pass_rate", "path_pass_rate_gain"),
    ("step success rate, first → last iteration", "step_success_rate", "step_success_rate_gain"),
)
#: cutting scored against the simulator's truth (no paper figure: the live APIs have no oracle)
_PRUNING_TRUTH = (
    ("precision of the cut (simulator truth)", "precision"),
    ("recall of the cut (simulator truth)", "recall"),
    ("true-link retention (simulator truth)", "true_link_retention"),
)


def _pruning_figures(f: Mapping[str, Any], paper: Mapping[str, Any]) -> Table:
    first, last = f.get("first_iteration") or {}, f.get("last_iteration") or {}
    return Table(
        ("figure", "ours", "paper"),
        (
            ("candidate links", _count(f.get("links_candidate")), _NONE),
            ("links pruned / retained", f"{_count(f.get('links_pruned'))} / {_count(f.get('links_retained'))}", _NONE),
            ("links never tried", _count(f.get("links_untried")), _NONE),
            *((label, _pct(f.get(key)), _pct(paper[key])) for label, key in _PRUNING_RATES),
            *(
                (
                    label,
                    f"{_pct(first.get(key))} → {_pct(last.get(key))}",
                    f"+{100 * paper[gain]:.0f} points over {paper['iterations']} iterations",
                )
                for label, key, gain in _PRUNING_TRENDS
            ),
            *((label, _score(f.get(key)), _NONE) for label, key in _PRUNING_TRUTH),
        ),
    )


def _pruning_blocks(section: Mapping[str, Any]) -> list[Block]:
    f, paper = section["figures"], section["paper"]
    config = f.get("config", {})
    blocks: list[Block] = [
        Paragraph(
            f"{config.get('iterations')} iterations × {config.get('paths')} paths "
            f"(paper: {paper['iterations']} × {paper['paths']}), seed {config.get('seed')}, "
            f"cut threshold {config.get('threshold')}; tools executed on {_source_text(f.get('source'))}; "
            f"{_count(f.get('calls'))} calls over {_count(section.get('tools'))} tools; "
            f"graph digest {str(f.get('graph_digest'))[:16]}."
        ),
        _pruning_figures(f, paper),
        *_figure_blocks("pruning", section),
    ]
    plots = set(section.get("plots", ()))
    blocks += [Plot(path, caption) if path in plots else Paragraph(f"{path} not found.") for path, caption in PLOTS]
    return blocks + _iteration_blocks(section.get("iterations")) + _pruned_link_blocks(section.get("pruned_links"))


def _iteration_blocks(iterations: Sequence[Mapping[str, Any]] | None) -> list[Block]:
    blocks: list[Block] = [Heading("Iterations", 3)]
    if iterations is None:
        return blocks + [Paragraph(f"{ITERATIONS_FILE} not found.")]
    shown = _evenly(iterations, _LISTED)
    blocks.append(
        Table(
            ("iteration", "paths", "path pass rate", "step success rate", "links cut", "links retained"),
            tuple(
                (
                    str(it.get("iteration")),
                    _count(it.get("paths")),
                    _pct(it.get("path_pass_rate")),
                    _pct(it.get("step_success_rate")),
                    _count(it.get("links_cut")),
                    _count(it.get("links_retained")),
                )
                for it in shown
            ),
        )
    )
    return blocks + _shown_of(len(shown), len(iterations), "iterations")


def _pruned_link_blocks(links: Sequence[Mapping[str, Any]] | None) -> list[Block]:
    blocks: list[Block] = [Heading("Pruned links", 3)]
    if links is None:
        return blocks + [Paragraph(f"{GRAPH_FILE} not found.")]
    if not links:
        return blocks + [Paragraph("No link was pruned.")]
    by_platform: dict[str, list[Mapping[str, Any]]] = defaultdict(list)
    for link in links:
        by_platform[str(link.get("platform") or "")].append(link)
    shown = [
        link
        for platform in sorted(by_platform)
        for link in sorted(by_platform[platform], key=_posterior_order)[:_PRUNED_PER_PLATFORM]
    ]
    blocks.append(
        Paragraph(
            f"Per platform of the called tool (the link's target), the {_PRUNED_PER_PLATFORM} pruned links with the "
            "lowest posterior mean (ties by link). Pruned per platform: "
            + ", ".join(f"{platform or '(unknown)'} {len(by_platform[platform]):,}" for platform in sorted(by_platform))
            + "."
        )
    )
    blocks.append(
        Table(
            (
                "platform",
                "link",
                "binding (parameter ← field)",
                "prior",
                "posterior mean",
                "trials",
                "successes",
                "structural failures",
                "cut at iteration",
            ),
            tuple(
                (
                    str(link.get("platform") or _NONE),
                    f"{link['source']} → {link['target']}",
                    ", ".join(f"{param} ← {field}" for param, field in link["binding"].items()),
                    _score(link["prior"]),
                    _score(link["posterior_mean"]),
                    _count(link["trials"]),
                    _count(link["successes"]),
                    _count(link["structural_failures"]),
                    str(link["pruned_at"]),
                )
                for link in shown
            ),
            "lllrrrrrr",
        )
    )
    return blocks + _shown_of(len(shown), len(links), "pruned links")


def _posterior_order(link: Mapping[str, Any]) -> tuple[Any, ...]:
    return (link["posterior_mean"], link["source"], link["target"], sorted(link["binding"].items()))


def _corpus_table(section: Mapping[str, Any]) -> Table:
    """``kopa-replay synth``'s own table (ours beside the paper's), with the filtered corpus as a column when the
    filter ran: the paper's figures are of its corpus after filtering."""
    from kopa_replay.synth.stats import stats_table

    synthesized = _parse_markdown_table(stats_table(section["stats"]))
    if section.get("filtered_stats") is None:
        return synthesized
    filtered = _parse_markdown_table(stats_table(section["filtered_stats"]))
    header = ("figure", "synthesized", "after filter", "paper")
    rows = tuple((label, ours, kept[1], paper) for (label, ours, paper), kept in zip(synthesized.rows, filtered.rows))
    return Table(header, rows, synthesized.align[:2] + "r" + synthesized.align[2:])


def _corpus_blocks(section: Mapping[str, Any]) -> list[Block]:
    stats = section["stats"]
    decontaminated = stats.get("decontaminated")
    return [
        _corpus_table(section),
        *_figure_blocks("corpus", section),
        *(Paragraph(text) for text in _corpus_contamination_notes(section)),
        Paragraph(
            f"Patterns: {_counts(stats.get('patterns'))}. Answers: {_counts(stats.get('answer_kinds'))}. "
            f"Reductions: {_counts(stats.get('reductions'))}."
        ),
        Paragraph(
            f"Candidates dropped as repeats of benchmark tasks: {_count(decontaminated)} "
            f"(against {stats.get('decontaminated_against') or _NONE})."
        )
        if decontaminated is not None
        else Paragraph("The synthesis was not decontaminated against the benchmark."),
    ]


def _filter_blocks(section: Mapping[str, Any]) -> list[Block]:
    blocks: list[Block] = [
        Table(
            ("input", "kept", "discarded", "decontaminated", "replaced"),
            (
                (
                    _count(section.get("input")),
                    _count(section.get("kept")),
                    _count(section.get("discarded")),
                    _count(section.get("decontaminated")),
                    _count(section.get("replaced")),
                ),
            ),
            "rrrrr",
        ),
        Paragraph(
            f"Judges: {', '.join(section.get('judges') or ()) or _NONE}; decontaminated against "
            f"{section.get('decontaminated_against') or _NONE}."
        ),
    ]
    by_check = section["discards_by_check"]
    if not by_check:
        return blocks + [Paragraph("No item was discarded.")]
    blocks.append(
        Table(
            ("stage", "check", "discarded"),
            tuple((row["stage"], row["check"], _count(row["discarded"])) for row in by_check),
            "llr",
        )
    )
    discards = section["discards"]
    shown = discards[:_LISTED]
    blocks.append(
        Table(
            ("trajectory", "stage", "check", "detail"),
            tuple(
                (
                    str(d.get("trajectory_id")),
                    str(d.get("stage")),
                    str(d.get("check")),
                    _clip(str(d.get("detail", "")), 2 * _EXAMPLE_CHARS),
                )
                for d in shown
            ),
            "llll",
        )
    )
    return blocks + _shown_of(len(shown), len(discards), "discards")


def _k_text(report: Mapping[str, Any]) -> str:
    k, k_min = report.get("k"), report.get("k_min")
    return str(k) if k == k_min else f"{k_min}–{k}"


def _group_table(label: str, agents: Sequence[str], reports: Mapping[str, Any], key: str) -> Table:
    """One row per group (domain or split), the combined verdict's pass@1 and pass@k per agent."""
    groups = sorted({group for agent in agents for group in reports[agent].get(key) or {}})
    rows = []
    for group in groups:
        scores = [(reports[agent].get(key) or {}).get(group) for agent in agents]
        tasks = sorted({s["tasks"] for s in scores if s is not None})
        cells = [
            cell
            for s in scores
            for cell in (
                (_score(s["pass_at_1"]["combined"]), _score(s["pass_at_k"]["combined"])) if s else (_NONE, _NONE)
            )
        ]
        rows.append((group or "(none)", " / ".join(map(_count, tasks)), *cells))
    header = (label, "tasks", *(f"{agent} {metric}" for agent in agents for metric in ("pass@1", "pass@k")))
    return Table(header, tuple(rows))


def _bench_blocks(section: Mapping[str, Any]) -> list[Block]:
    from kopa_replay.bench.model import AXES
    from kopa_replay.bench.report import COLUMNS

    agents, reports = section["agents"], section["reports"]
    overall = Table(
        ("agent", "tasks", "rollouts", "k", *(f"{c} {m}" for c in COLUMNS for m in ("pass@1", "pass@k"))),
        tuple(
            (
                agent,
                _count(r.get("n_tasks")),
                _count(r.get("n_rollouts")),
                _k_text(r),
                *(cell for c in COLUMNS for cell in (_score(r["pass_at_1"][c]), _score(r["pass_at_k"][c]))),
            )
            for agent, r in ((agent, reports[agent]) for agent in agents)
        ),
    )
    missing = [agent for agent in BASELINE_AGENTS if agent not in agents]
    blocks: list[Block] = [overall, *_figure_blocks("bench", section)]
    if missing:
        blocks.append(Paragraph(f"Not run: {', '.join(missing)}."))
    blocks += [
        Heading("By domain (combined verdict)", 3),
        _group_table("domain", agents, reports, "by_domain"),
        Heading("By split (combined verdict)", 3),
        _group_table("split", agents, reports, "by_split"),
        Heading("Why rollouts failed", 3),
        Paragraph(
            f"Each grader reason generalized (calls shown as {_CALL_MASK}, numbers as N, quoted "
            f"answers as '…'); the {_REASONS_PER_AXIS} most common kinds per agent and axis, counted "
            "in failing rollouts, with the first task that failed so."
        ),
    ]
    rows = []
    for agent in agents:
        failures = reports[agent]["failures"]
        for axis in AXES:
            for kind in failures[axis]["kinds"][:_REASONS_PER_AXIS]:
                rows.append(
                    (
                        agent,
                        axis,
                        _count(failures[axis]["failed"]),
                        kind["reason"],
                        _count(kind["rollouts"]),
                        kind["task"],
                        _clip(kind["example"], _EXAMPLE_CHARS),
                    )
                )
    blocks.append(
        Table(
            ("agent", "axis", "failing rollouts", "reason", "rollouts", "first task", "its reason"),
            tuple(rows),
            "llrlrll",
        )
        if rows
        else Paragraph("No failing rollout.")
    )
    return blocks


def _audit_blocks(section: Mapping[str, Any]) -> list[Block]:
    from kopa_replay.bench.audit import markdown

    audit = section["audit"]
    return [
        Paragraph(
            f"{_count(audit['train']['items'])} training items against {_count(audit['bench']['items'])} "
            "benchmark items."
        ),
        _parse_markdown_table(markdown(audit)),
        *(Paragraph(text) for text in _contamination_notes(audit, section["paper"])),
    ]


def _drift_blocks(section: Mapping[str, Any]) -> list[Block]:
    from kopa_replay.drift.diff import SEVERITIES

    summary = section["summary"]
    if section.get("before") and section.get("after"):
        how = " (the second recorded by refreshing the first on the simulator)" if section.get("refreshed") else ""
        compared = f"Snapshots compared: {section['before']} → {section['after']}{how}."
    else:
        compared = f"Snapshots compared: not named ({COMPARED_FILE} not found)."
    noise, data = section["noise"], section["data"]
    blocks: list[Block] = [
        Paragraph(compared),
        Table(
            (*SEVERITIES, "total"),
            (tuple(_count(summary.get(s, 0)) for s in (*SEVERITIES, "total")),),
            "r" * (len(SEVERITIES) + 1),
        ),
        Table(
            ("measure", "value"),
            (
                ("tools compared", _count(section["tools_compared"])),
                ("tools with a change", _count(len(section["tools_affected"]))),
                ("requests paired", _count(section["requests"])),
                ("requests only the new snapshot holds", _count(section["unpaired"])),
                ("tools carried over unchecked", _count(len(section["carried_over"]))),
                (
                    "environmental noise (not drift)",
                    f"{_count(len(noise))} group(s) on {_count(len({c['tool'] for c in noise}))} tool(s)",
                ),
                (
                    "data changes (not drift)",
                    f"{_count(len(data))} on {_count(len({c['tool'] for c in data}))} tool(s)",
                ),
            ),
        ),
    ]
    rank = {severity: i for i, severity in enumerate(SEVERITIES)}
    changes = sorted(section["changes"], key=lambda c: rank.get(c["severity"], len(rank)))  # stable: JSON order within
    if not changes:
        return blocks + [Paragraph("No drift.")]
    shown = changes[: 2 * _LISTED]
    blocks.append(
        Table(
            ("severity", "tool", "path", "kind", "message", "requests"),
            tuple((c["severity"], c["tool"], c["path"], c["kind"], c["message"], _count(c["requests"])) for c in shown),
            "lllllr",
        )
    )
    return blocks + _shown_of(len(shown), len(changes), "changes")


# -- the paper's figures drawn beside ours: bars and the sentences under them (pure) ---------------------
def _move(before: Any, after: Any) -> str:
    """``rises from 50.2% to 62.7% (+12.5 points)``, ``falls …`` or ``stays at …``."""
    change = round(100 * (float(after) - float(before)), 1)
    if change == 0:
        return f"stays at {_pct(before)}"
    verb = "rises" if change > 0 else "falls"
    return f"{verb} from {_pct(before)} to {_pct(after)} ({change:+.1f} points)"


def _number(value: Any) -> str:
    """A count or a median: 63, 63.5, 224,958."""
    if value is None:
        return _NONE
    return f"{float(value):,.0f}" if float(value).is_integer() else f"{float(value):,.1f}"


def _share_of(part: Any, whole: Any) -> str:
    return _pct(int(part) / int(whole)) if part is not None and whole else _NONE


def _execution_bars(section: Mapping[str, Any]) -> list[Bars]:
    f, paper = section["figures"], section["paper"]
    keys = ("exec_rate_before", "exec_rate_after")
    return [
        Bars(
            "Execution rate of the links",
            ("before pruning", "after pruning"),
            (("ours", tuple(f.get(key) for key in keys)), ("paper", tuple(paper[key] for key in keys))),
            ylabel="execution rate (tried links)",
        )
    ]


def _execution_notes(section: Mapping[str, Any]) -> list[str]:
    f, paper = section["figures"], section["paper"]
    config = f.get("config") or {}
    before, after = f.get("exec_rate_before"), f.get("exec_rate_after")
    if before is None or after is None:
        return ["No link was tried, so there is no execution rate to set beside the paper's."]
    candidates, untried, pruned = f.get("links_candidate"), f.get("links_untried"), f.get("links_pruned")
    untried_text = (
        "every candidate was tried"
        if not untried
        else f"{_count(untried)} ({_share_of(untried, candidates)}) were never tried and count in neither rate"
    )
    notes = [
        f"Ours {_move(before, after)}; the paper's {_move(paper['exec_rate_before'], paper['exec_rate_after'])}.",
        f"This run cut {_count(pruned)} of {_count(candidates)} candidate links ({_share_of(pruned, candidates)}) "
        f"in {config.get('iterations')} iterations × {config.get('paths')} paths (the paper: {paper['iterations']} "
        f"× {paper['paths']}); {untried_text}.",
    ]
    if None not in (candidates, untried, pruned, f.get("exec_rate_pruned")):
        # before = (rated retained × after + rated cut × cut rate) / rated, each link counting once: the rise is
        # the cut links' share of the rated ones times the gap between the two rates. A rated link is one tried
        # with a success or a structural failure (one that met only environmental failures has no rate); a
        # prune.json from before the counts were kept falls back on the tried links.
        tried = f.get("links_rated", int(candidates) - int(untried))
        cut = f.get("pruned_rated", int(pruned) - int(f.get("cut_untried") or 0))
        notes.append(
            "Each tried link counts once in a rate (its successes against its structural failures; one that met "
            "only environmental failures counts in none), so the rise is "
            f"the cut links' share of the rated links ({_count(cut)} of {_count(tried)}, {_share_of(cut, tried)}) "
            f"times the gap between the retained and the cut links' rates ({_pct(after)} against "
            f"{_pct(f.get('exec_rate_pruned'))}): a run that cuts few of the links it tried moves it little."
        )
    return notes


def _pruned_bars(section: Mapping[str, Any]) -> list[Bars]:
    f, paper = section["figures"], section["paper"]

    def pair(title: str, pruned: str, retained: str, retained_label: str) -> Bars:
        return Bars(
            title,
            ("pruned", retained_label),
            (("ours", (f.get(pruned), f.get(retained))), ("paper", (paper[pruned], paper[retained]))),
        )

    return [
        pair("Execution rate", "exec_rate_pruned", "exec_rate_after", "retained"),
        pair("Never succeeded", "never_succeeded_pruned", "never_succeeded_retained", "retained (tried)"),
    ]


def _pruned_notes(section: Mapping[str, Any]) -> list[str]:
    f, paper = section["figures"], section["paper"]
    config = f.get("config") or {}
    notes = [
        f"Pruned links execute {_pct(f.get('exec_rate_pruned'))} of the time (the paper: "
        f"{_pct(paper['exec_rate_pruned'])}) and {_pct(f.get('never_succeeded_pruned'))} of them never succeeded "
        f"({_pct(paper['never_succeeded_pruned'])}); of the retained links that were tried, "
        f"{_pct(f.get('never_succeeded_retained'))} never succeeded ({_pct(paper['never_succeeded_retained'])})."
    ]
    cut = section.get("pruned_links")
    if cut:
        notes.append(
            f"The {_count(len(cut))} cut links were tried {_count(sum(link['trials'] for link in cut))} times: "
            f"{_count(sum(link['successes'] for link in cut))} successes, "
            f"{_count(sum(link['structural_failures'] for link in cut))} structural failures."
        )
    kept = section.get("retained_never_succeeded")
    if kept and kept["never_succeeded"]:
        notes.append(
            f"The loop cuts a link tried at least {config.get('min_trials')} times whose posterior mean is under "
            f"{config.get('threshold')}: of the {_count(kept['never_succeeded'])} retained links tried without a "
            f"success, {_count(kept['under_min_trials'])} were tried fewer than {config.get('min_trials')} times and "
            f"{_count(kept['at_or_above_threshold'])} kept a posterior mean of {config.get('threshold')} or more."
        )
    source = f.get("source") or {}
    if "fault_rate" in source:
        notes.append(
            "Environmental failures count in neither rate; this run's source injected them at rate "
            f"{source.get('fault_rate') or 0}."
        )
    return notes


#: the corpus shares the paper gives, as the junction figure draws them: (key in stats and PAPER, label)
_JUNCTION_SHARES = (
    ("multi_record_call_share", "calls returning\n2 or more records"),
    ("one_to_many_share", "one-to-many\njunction"),
    ("fan_out_derived_share_single", "fan-out + derived\n(single junction)"),
)


def _corpus_series(section: Mapping[str, Any], keys: Sequence[str]) -> tuple[tuple[str, tuple[Any, ...]], ...]:
    series = [("synthesized", section["stats"])]
    if section.get("filtered_stats") is not None:
        series.append(("after filter", section["filtered_stats"]))
    series.append(("paper", section["paper"]))
    return tuple((name, tuple(stats.get(key) for key in keys)) for name, stats in series)


def _junction_bars(section: Mapping[str, Any]) -> list[Bars]:
    keys = [key for key, _ in _JUNCTION_SHARES]
    return [
        Bars("Shares", tuple(label for _, label in _JUNCTION_SHARES), _corpus_series(section, keys)),
        Bars(
            "Median records consumed\nat a one-to-many junction",
            ("median",),
            _corpus_series(section, ["median_cardinality"]),
            percent=False,
        ),
    ]


def _junction_notes(section: Mapping[str, Any]) -> list[str]:
    paper = section["paper"]
    filtered = section.get("filtered_stats")
    stats, which = (filtered, "after the filter") if filtered is not None else (section["stats"], "as synthesized")
    gaps = sorted(
        (abs(float(stats[key]) - float(paper[key])), label.replace("\n", " "), key)
        for key, label in _JUNCTION_SHARES
        if stats.get(key) is not None
    )
    notes = []
    if gaps:
        (_, near, near_key), (_, far, far_key) = gaps[0], gaps[-1]
        notes.append(
            f"Ours {which}: the largest difference from the paper is {far}, {_pct(stats[far_key])} against "
            f"{_pct(paper[far_key])} ({100 * (float(stats[far_key]) - float(paper[far_key])):+.1f} points); the "
            f"closest is {near}, {_pct(stats[near_key])} against {_pct(paper[near_key])}."
        )
    single = stats.get("single_junction_trajectories")
    if single:
        notes.append(
            f"Ours are shares of {_count(stats.get('steps'))} calls, {_count(stats.get('multi_step_trajectories'))} "
            f"multi-step and {_count(single)} single-junction trajectories (the paper: "
            f"{_count(paper['single_junction_trajectories'])} single-junction)"
            + (f" from {_count(stats['families'])} families" if stats.get("families") else "")
            + f", so one single-junction trajectory moves the fan-out + derived share by {100 / int(single):.1f} "
            "points."
        )
    if stats.get("median_cardinality") is not None:
        notes.append(
            f"Median records consumed at a one-to-many junction: {_number(stats['median_cardinality'])} against the "
            f"paper's {_number(paper['median_cardinality'])} (largest {_number(stats.get('max_cardinality'))} "
            f"against {_number(paper['max_cardinality'])})."
        )
    return notes


def _pass_bars(section: Mapping[str, Any]) -> list[Bars]:
    agents, reports = section["agents"], section["reports"]
    ks = sorted({_k_text(reports[agent]) for agent in agents})
    return [
        Bars(
            "pass@1 and pass@k (combined verdict)",
            tuple(agents),
            (
                ("pass@1", tuple(reports[agent]["pass_at_1"]["combined"] for agent in agents)),
                (f"pass@k (k = {', '.join(ks)})", tuple(reports[agent]["pass_at_k"]["combined"] for agent in agents)),
            ),
            ylabel="tasks passed",
        )
    ]


def _pass_notes(section: Mapping[str, Any]) -> list[str]:
    from kopa_replay.bench.model import AXES

    agents, reports = section["agents"], section["reports"]
    scores = ", ".join(f"{agent} {_score(reports[agent]['pass_at_1']['combined'])}" for agent in agents)
    notes = [f"pass@1 (combined verdict): {scores}."]
    if all(reports[agent].get("k") == reports[agent].get("k_min") == 1 for agent in agents):
        notes.append("With one rollout per task (k = 1), pass@k equals pass@1.")
    else:
        at_k = ", ".join(f"{agent} {_score(reports[agent]['pass_at_k']['combined'])}" for agent in agents)
        notes.append(f"pass@k: {at_k}.")
    failing = []
    for agent in agents:
        failures = reports[agent]["failures"]
        # the axis of the agent's commonest kind of failure (the first such axis on a tie)
        axis = max(AXES, key=lambda a: failures[a]["kinds"][0]["rollouts"] if failures[a]["kinds"] else 0)
        if failures[axis]["kinds"]:
            kind = failures[axis]["kinds"][0]
            failing.append(
                f"{agent} fails {_count(failures[axis]['failed'])} of {_count(reports[agent].get('n_rollouts'))} "
                f"rollouts on {axis.upper()}, most often “{kind['reason']}” ({_count(kind['rollouts'])})"
            )
    if failing:
        notes.append("; ".join(failing) + ".")
    notes.append("The report holds no paper figure for these scripted agents: their bars stand alone.")
    return notes


#: each figure of :data:`FIGURES`: its bars and the sentences under it, from its section's data
_FIGURE_PARTS: Mapping[
    str, tuple[Callable[[Mapping[str, Any]], list[Bars]], Callable[[Mapping[str, Any]], list[str]]]
] = {
    "figures/execution-rate.png": (_execution_bars, _execution_notes),
    "figures/pruned-vs-retained.png": (_pruned_bars, _pruned_notes),
    "figures/junctions.png": (_junction_bars, _junction_notes),
    "figures/pass-rates.png": (_pass_bars, _pass_notes),
}


def _figure_blocks(key: str, section: Mapping[str, Any]) -> list[Block]:
    blocks: list[Block] = []
    for path, caption in FIGURES.get(key, ()):
        blocks.append(Plot(path, caption))
        blocks += [Paragraph(text) for text in _FIGURE_PARTS[path][1](section)]
    return blocks


def figures(data: Mapping[str, Any]) -> dict[str, bytes]:
    """The PNG bytes of :data:`FIGURES` for the sections that ran, by path relative to OUT (the same data, the same
    bytes): ours beside the paper's, drawn in the report's font."""
    from kopa_replay.graph.plots import bar_chart

    return {
        path: bar_chart(_FIGURE_PARTS[path][0](data[key]))
        for key, drawn in FIGURES.items()
        if data[key]["ran"]
        for path, _ in drawn
    }


def _corpus_contamination_notes(section: Mapping[str, Any]) -> list[str]:
    """A word on the corpus table's contamination rows (the audit section says where the overlap lies)."""
    from kopa_replay.bench.audit import PAPER

    stats = section.get("filtered_stats") or section["stats"]
    c = stats.get("contamination")
    if not c or c.get("link_jaccard") is None:
        return []
    shares = (
        f"dependency-link Jaccard {_score(c['link_jaccard'])} (the paper: {_score(PAPER['link_jaccard'])}) and "
        f"{_pct(c.get('pair_unseen_share'))} of the benchmark's consecutive calls unseen in training (the paper: "
        f"{_pct(PAPER['pair_unseen_share'])})"
    )
    if not c["link_jaccard"]:
        return [f"Contamination rows: {shares}; no dependency link of the benchmark occurs in training."]
    copied = sum(c.get(kind) or 0 for kind in ("shared_plans", "verbatim", "masked", "near_verbatim"))
    where = (
        "the overlap lies in links between tools both sets call, not in plans or questions a model could copy"
        if not copied
        else "plans or questions a model could copy do repeat: see the audit below"
    )
    return [
        f"Contamination rows: {shares}, with {_count(c.get('shared_plans'))} shared plans and "
        f"{_count(c.get('verbatim'))} verbatim questions ({_pct(c.get('tool_overlap'))} of the benchmark's tools "
        f"occur in training): {where}."
    ]


def _links_text(links: Sequence[Sequence[str]], limit: int = 8) -> str:
    shown = [f"{a} → {b}" for a, b in links[:limit]]
    return ", ".join(shown) + (f" and {len(links) - limit} more" if len(links) > limit else "")


def _contamination_notes(audit: Mapping[str, Any], paper: Mapping[str, Any]) -> list[str]:
    """What the contamination figures say beside the paper's, and where the overlap lies."""
    links, pairs, tools = audit["links"], audit["pairs"], audit["tools"]
    plans, verbatim = audit.get("plans") or {}, audit["verbatim"]
    shared = [tuple(link) for link in links.get("shared_examples", ())]
    if not links["shared"]:
        notes = [
            f"No dependency link of the benchmark occurs in training (Jaccard {_score(links['jaccard'])}; the paper: "
            f"{_score(paper['link_jaccard'])})."
        ]
    else:
        sources = sorted({a for a, _ in shared})
        notes = [
            f"Dependency-link Jaccard {_score(links['jaccard'])} against the paper's {_score(paper['link_jaccard'])}: "
            f"{_count(links['shared'])} of the benchmark's {_count(links['bench_distinct'])} distinct links also "
            f"occur in training ({_links_text(shared)}), and {_pct(links['unseen_share'])} of its "
            f"{_count(links['bench_occurrences'])} link occurrences are unseen there; "
            f"{_pct(pairs['unseen_share'])} of its consecutive calls are unseen (the paper: "
            f"{_pct(paper['pair_unseen_share'])}), {_count(pairs['shared'])} distinct pairs shared.",
            f"Both sets call one catalog ({_count(tools['shared'])} of the benchmark's {_count(tools['bench'])} tools "
            f"occur in training, {_pct(tools['overlap'])}; the paper: {_pct(paper['tool_overlap'])}), and the shared "
            f"links start from {len(sources)} tool(s) ({', '.join(sources)}).",
        ]
    if plans:
        copied = (plans.get("shared") or 0) + sum(
            verbatim.get(kind) or 0 for kind in ("verbatim", "masked", "near_verbatim")
        )
        notes.append(
            ("What a model could copy does not repeat: " if not copied else "What a model could copy repeats: ")
            + f"{_count(plans.get('shared'))} of {_count(plans.get('bench'))} "
            f"benchmark plans, {_count(verbatim.get('verbatim'))} verbatim, {_count(verbatim.get('masked', 0))} "
            f"masked-equal and {_count(verbatim.get('near_verbatim'))} near-verbatim questions occur in training "
            f"(the paper: {paper['shared_plans']} plans, {paper['verbatim']} verbatim)."
        )
    return notes


_SECTION_BLOCKS = {
    "pruning": _pruning_blocks,
    "corpus": _corpus_blocks,
    "filter": _filter_blocks,
    "bench": _bench_blocks,
    "audit": _audit_blocks,
    "drift": _drift_blocks,
}

#: what a section says when its stage wrote nothing
_NOT_RUN_TEXT = {"drift": "Did not run: no other snapshot was compared ({source} not found)."}


def _document(data: Mapping[str, Any]) -> list[Block]:
    blocks: list[Block] = [
        Heading("EDGE pipeline report", 1),
        Paragraph(
            "Phase A (link pruning), Phase B (synthesis), the filter, KOPA-Bench, the contamination audit "
            "and drift, read from this directory's stage outputs; the paper's figures beside ours "
            "(Kim et al., arXiv:2609.05395)."
        ),
        Table(
            ("section", "status", "reads"),
            tuple(
                (title, "ran" if data[key]["ran"] else "did not run", data[key]["source"]) for key, title in SECTIONS
            ),
            "lll",
        ),
    ]
    for key, title in SECTIONS:
        section = data[key]
        blocks.append(Heading(title, 2, key))
        if section["ran"]:
            blocks += _SECTION_BLOCKS[key](section)
        else:
            text = _NOT_RUN_TEXT.get(key, "Did not run: {source} not found.")
            blocks.append(Paragraph(text.format(source=section["source"])))
    return blocks


# -- Markdown --------------------------------------------------------------------------------------
_md_text = escape_markdown


def _md_block(block: Block) -> list[str]:
    if isinstance(block, Heading):
        return ["#" * block.level + " " + _md_text(block.text)]
    if isinstance(block, Paragraph):
        return [_md_text(block.text)]
    if isinstance(block, Table):
        return markdown_table(block.header, block.rows, block.alignment())
    return [f"![{_md_text(block.caption)}]({block.path})", "", f"*{_md_text(block.caption)}*"]


def render_markdown(data: Mapping[str, Any]) -> str:
    """The report as Markdown: the same tables as the HTML; plots linked by their path relative to OUT."""
    return "\n\n".join("\n".join(_md_block(block)) for block in _document(data)) + "\n"


# -- HTML ------------------------------------------------------------------------------------------
# The embedded face first: it holds every Hangul syllable and symbol the page uses, whatever fonts the machine has.
_CSS = f"""
body {{ font-family: "{FONT_FAMILY}", system-ui, -apple-system, "Segoe UI", sans-serif; margin: 2rem auto;
       max-width: 72rem; padding: 0 1rem; color: #1b1f24; line-height: 1.45; }}
h1 {{ font-size: 1.7rem; }} h2 {{ margin-top: 2.5rem; border-bottom: 1px solid #d0d7de; }} h3 {{ margin-top: 1.5rem; }}
.table-wrap {{ max-width: 100%; overflow-x: auto; margin: 0.8rem 0; }}
table {{ border-collapse: collapse; font-size: 0.88rem; }}
th, td {{ border: 1px solid #d0d7de; padding: 0.25rem 0.55rem; vertical-align: top; text-align: left;
          overflow-wrap: break-word; }}
th {{ background: #f6f8fa; }}
td.num, th.num {{ text-align: right; font-variant-numeric: tabular-nums; }}
td.num {{ white-space: nowrap; }} td.num.long {{ white-space: normal; }}
figure {{ margin: 1rem 0; }} figure img {{ max-width: 100%; border: 1px solid #d0d7de; }}
figcaption {{ font-size: 0.85rem; color: #57606a; }}
nav a {{ margin-right: 0.8rem; }}
""".strip()

#: longer cells of a number column may wrap
_ONE_LINE = 24

# Nothing may be fetched: images and the font only from data: URIs, styles only inline, no scripts.
_CSP = "default-src 'none'; img-src data:; font-src data:; style-src 'unsafe-inline'"


def _html_table(table: Table) -> str:
    def cell(tag: str, text: str, align: str) -> str:
        # a figure stays on one line; a list in a number column ("district 24, education 16, …") may wrap
        classes = "num long" if len(text) > _ONE_LINE else "num"
        attributes = f' class="{classes}"' if align == "r" else ""
        return f"<{tag}{attributes}>{html.escape(text)}</{tag}>"

    align = table.alignment()
    head = "".join(cell("th", text, a) for text, a in zip(table.header, align))
    body = "\n".join(
        "<tr>" + "".join(cell("td", text, a) for text, a in zip(row, align)) + "</tr>" for row in table.rows
    )
    # the box scrolls sideways when the table is wider than the page, so the page itself never does
    return (
        f'<div class="table-wrap">\n<table>\n<thead><tr>{head}</tr></thead>\n<tbody>\n{body}\n</tbody>\n</table>\n'
        "</div>"
    )


def _html_block(block: Block, images: Mapping[str, bytes]) -> str:
    if isinstance(block, Heading):
        anchor = f' id="{html.escape(block.anchor)}"' if block.anchor else ""
        return f"<h{block.level}{anchor}>{html.escape(block.text)}</h{block.level}>"
    if isinstance(block, Paragraph):
        return f"<p>{html.escape(block.text)}</p>"
    if isinstance(block, Table):
        return _html_table(block)
    png = images.get(block.path)
    if png is None:
        return f"<p>{html.escape(block.path)}: plot not available.</p>"
    uri = "data:image/png;base64," + base64.b64encode(png).decode("ascii")
    return (
        f'<figure><img src="{uri}" alt="{html.escape(block.caption)}">'
        f"<figcaption>{html.escape(block.caption)} ({html.escape(block.path)})</figcaption></figure>"
    )


def render_html(data: Mapping[str, Any], images: Mapping[str, bytes]) -> str:
    """The report as one self-contained HTML page; ``images``: PNG bytes by path relative to OUT (the stage plots
    and :func:`figures`). Its font is embedded, cut to the characters the page holds."""
    nav = " ".join(f'<a href="#{key}">{html.escape(title)}</a>' for key, title in SECTIONS)
    body = "\n".join(_html_block(block, images) for block in _document(data))
    title = "<title>EDGE pipeline report</title>\n"
    text = f"{title}{_CSS}{nav}{body}"
    font = font_face_css("".join(sorted(set(text))))
    return (
        '<!DOCTYPE html>\n<html lang="ko">\n<head>\n<meta charset="utf-8">\n'
        f'<meta http-equiv="Content-Security-Policy" content="{_CSP}">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"{title}"
        f"<style>\n{font}\n{_CSS}\n</style>\n</head>\n<body>\n<nav>{nav}</nav>\n{body}\n</body>\n</html>\n"
    )


# -- writing ---------------------------------------------------------------------------------------
def write_report(out_dir: str | Path) -> ReportResult:
    """Collect ``out_dir``'s stage outputs and write ``report.md``, ``report.html`` and the PNGs of :func:`figures`
    (under ``figures/``, for the Markdown to link) there, each atomically."""
    out = Path(out_dir)
    data = collect(out)
    images = {path: (out / path).read_bytes() for path in data["pruning"].get("plots", ())}
    drawn = figures(data)
    for path, png in sorted(drawn.items()):
        write_atomic(out / path, png)
    images.update(drawn)
    markdown_path, html_path = out / "report.md", out / "report.html"
    write_atomic(markdown_path, render_markdown(data))
    write_atomic(html_path, render_html(data, images))
    return ReportResult(html=html_path, markdown=markdown_path, data=data)
