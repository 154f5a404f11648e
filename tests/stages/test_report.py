"""The pipeline report over real stage outputs: those of the README's first command, run once for these tests and
the pipeline's (tests/stages/conftest.py).

The tests read the numbers back out of report.md and report.html (as tables) and compare them with the stage JSON
files themselves, formatted the way a reader sees them: percentages with one decimal, scores with three, counts
with thousands separators.
"""

from __future__ import annotations

import base64
import io
import json
import re
import shutil
from collections import defaultdict
from html.parser import HTMLParser
from pathlib import Path

import pytest

from kopa_replay.errors import UsageError
from kopa_replay.stages.report import (
    collect,
    failure_reasons,
    figures,
    generalize_reason,
    render_html,
    render_markdown,
    write_report,
)

AGENTS = ("oracle", "skip-lookup", "first-page")
PLOTS = ("graph/scatter.png", "graph/curves.png")
FIGURES = (
    "figures/execution-rate.png",
    "figures/pruned-vs-retained.png",
    "figures/junctions.png",
    "figures/pass-rates.png",
)


def pct(x: float) -> str:
    return f"{100 * x:.1f}%"


def fixed(x: float) -> str:
    return f"{x:.3f}"


@pytest.fixture(scope="module")
def out(first) -> Path:
    """The README's first command's output directory (tests/stages/conftest.py runs it once): every stage the
    report reads, at the pipeline's own settings."""
    cwd, _ = first
    return cwd / "runs" / "pipeline"


def load(out: Path, name: str):
    return json.loads((out / name).read_text(encoding="utf-8"))


# -- reading the report back as tables ------------------------------------------------------------
def md_tables(text: str) -> list[list[list[str]]]:
    """Every Markdown table: rows of unescaped cells, the separator row left out."""
    tables, current = [], None
    for line in text.splitlines():
        if not line.startswith("|"):
            current = None
            continue
        cells = [re.sub(r"\\(.)", r"\1", cell.strip()) for cell in re.split(r"(?<!\\)\|", line.strip()[1:-1])]
        if all(re.fullmatch(r"-+:?", cell) for cell in cells):
            continue
        if current is None:
            current = []
            tables.append(current)
        current.append(cells)
    return tables


class _Page(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tables: list[list[list[str]]] = []
        self.attributes: list[tuple[str, str, str]] = []
        self.tags: list[str] = []
        self._cell: list[str] | None = None

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        self.attributes += [(tag, name, value or "") for name, value in attrs]
        if tag == "table":
            self.tables.append([])
        elif tag == "tr":
            self.tables[-1].append([])
        elif tag in ("td", "th"):
            self._cell = []

    def handle_endtag(self, tag):
        if tag in ("td", "th"):
            self.tables[-1][-1].append("".join(self._cell))
            self._cell = None

    def handle_data(self, data):
        if self._cell is not None:
            self._cell.append(data)


def page(text: str) -> _Page:
    parsed = _Page()
    parsed.feed(text)
    return parsed


def table_with(tables, header: tuple[str, ...], *, exact: bool = False) -> list[list[str]]:
    """The table whose header starts with (``exact``: is) ``header``, as a list of rows (header first)."""
    found = [t for t in tables if tuple(t[0] if exact else t[0][: len(header)]) == header]
    assert len(found) == 1, f"{len(found)} tables with header {header}"
    return found[0]


def row(table, first: str, *more: str) -> dict[str, str]:
    """The row whose first cells are ``first, *more``, as {column header: cell}."""
    rows = [r for r in table[1:] if tuple(r[: 1 + len(more)]) == (first, *more)]
    assert len(rows) == 1, f"{len(rows)} rows {(first, *more)} in {table[0]}"
    return dict(zip(table[0], rows[0]))


@pytest.fixture(scope="module")
def markdown(out) -> str:
    return (out / "report.md").read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def html_text(out) -> str:
    return (out / "report.html").read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def tables(markdown):
    return md_tables(markdown)


@pytest.fixture(scope="module")
def drawn(out) -> dict[str, bytes]:
    """The figures beside the paper's, drawn again here from the stage outputs."""
    return figures(collect(out))


# -- the figures -----------------------------------------------------------------------------------
def test_markdown_and_html_hold_the_same_tables(tables, html_text):
    assert len(tables) >= 10
    assert page(html_text).tables == tables


def test_pruning_figures_are_prune_json_beside_the_papers(out, tables):
    prune = load(out, "graph/prune.json")
    figures = table_with(tables, ("figure", "ours", "paper"))
    paper = {
        "execution rate before pruning": ("exec_rate_before", "50.2%"),
        "execution rate after pruning": ("exec_rate_after", "62.7%"),
        "execution rate of the pruned links": ("exec_rate_pruned", "14.8%"),
        "never succeeded, among pruned": ("never_succeeded_pruned", "70.5%"),
        "never succeeded, among retained (tried)": ("never_succeeded_retained", "27.7%"),
    }
    for label, (key, theirs) in paper.items():
        assert row(figures, label) == {"figure": label, "ours": pct(prune[key]), "paper": theirs}
    assert row(figures, "candidate links")["ours"] == f"{prune['links_candidate']:,}"
    assert row(figures, "links pruned / retained")["ours"] == f"{prune['links_pruned']:,} / {prune['links_retained']:,}"
    assert row(figures, "recall of the cut (simulator truth)")["ours"] == fixed(prune["recall"])
    assert row(figures, "true-link retention (simulator truth)")["ours"] == fixed(prune["true_link_retention"])
    path = row(figures, "path pass rate, first → last iteration")
    assert (
        path["ours"] == f"{pct(prune['first_iteration']['path_pass_rate'])} → "
        f"{pct(prune['last_iteration']['path_pass_rate'])}"
    )
    assert path["paper"].startswith("+31 points")

    iterations = [json.loads(line) for line in (out / "graph/iterations.jsonl").read_text().splitlines()]
    shown = table_with(tables, ("iteration", "paths", "path pass rate"))
    assert [r[:4] for r in shown[1:]] == [
        [str(it["iteration"]), str(it["paths"]), pct(it["path_pass_rate"]), pct(it["step_success_rate"])]
        for it in iterations
    ]


def test_the_pruned_links_shown_are_each_platforms_lowest_posteriors(out, tables):
    graph = load(out, "graph/graph.json")
    platform = {node["id"]: node["platform"] for node in graph["nodes"]}
    by_platform = defaultdict(list)
    for link in graph["links"]:
        if link["pruned"]:
            mean = link["alpha"] / (link["alpha"] + link["beta"])
            by_platform[platform[link["target"]]].append((mean, link["source"], link["target"]))
    assert len(by_platform) >= 3  # the shipped snapshot's cut reaches several platforms
    expected = [
        [name, f"{source} → {target}", fixed(mean)]
        for name in sorted(by_platform)
        for mean, source, target in sorted(by_platform[name])[:3]
    ]
    shown = table_with(tables, ("platform", "link", "binding (parameter ← field)"))
    assert [[r[0], r[1], r[4]] for r in shown[1:]] == expected


def test_corpus_figures_are_the_synth_and_filter_stats(out, tables):
    from kopa_replay.synth.stats import PAPER

    synthesized, filtered = load(out, "synth/stats.json"), load(out, "filter/stats.json")
    corpus = table_with(tables, ("figure", "synthesized", "after filter", "paper"))
    share = row(corpus, "calls returning ≥ 2 records")
    assert share["synthesized"] == pct(synthesized["multi_record_call_share"])
    assert share["after filter"] == pct(filtered["multi_record_call_share"])
    assert share["paper"] == pct(PAPER["multi_record_call_share"])
    assert row(corpus, "trajectories")["synthesized"] == str(synthesized["trajectories"])
    assert row(corpus, "trajectories")["after filter"] == str(filtered["trajectories"])
    junctions = row(corpus, "junctions (sequential / fan-out / derived)")["synthesized"]
    assert junctions == " / ".join(str(synthesized["junctions"][k]) for k in ("sequential", "fan_out", "derived"))


def test_filter_counts_are_the_filter_report(out, tables):
    report = load(out, "filter/filter_report.json")
    counts = table_with(tables, ("input", "kept", "discarded"))
    assert counts[1] == [str(report[k]) for k in ("input", "kept", "discarded", "decontaminated", "replaced")]
    if report["discards"]:
        listed = table_with(tables, ("trajectory", "stage", "check", "detail"))
        assert sorted(r[0] for r in listed[1:]) == sorted(d["trajectory_id"] for d in report["discards"])[:20]
        by_check = table_with(tables, ("stage", "check", "discarded"))
        assert sum(int(r[2]) for r in by_check[1:]) == report["discarded"]


def test_bench_pass_rates_are_each_agents_report(out, tables):
    overall = table_with(tables, ("agent", "tasks", "rollouts", "k"))
    by_domain = table_with(tables, ("domain", "tasks"))
    by_split = table_with(tables, ("split", "tasks"))
    assert [r[0] for r in overall[1:]] == list(AGENTS)
    for agent in AGENTS:
        report = load(out, f"bench/{agent}/report.json")
        line = row(overall, agent)
        assert line["tasks"] == str(report["n_tasks"])
        for column in ("combined", "response", "action", "environment"):
            assert line[f"{column} pass@1"] == fixed(report["pass_at_1"][column])
            assert line[f"{column} pass@k"] == fixed(report["pass_at_k"][column])
        for table, key in ((by_domain, "by_domain"), (by_split, "by_split")):
            assert sorted(r[0] for r in table[1:]) == sorted(report[key])
            for group, scores in report[key].items():
                assert row(table, group)[f"{agent} pass@1"] == fixed(scores["pass_at_1"]["combined"])
                assert row(table, group)[f"{agent} pass@k"] == fixed(scores["pass_at_k"]["combined"])
    # the baselines fail as the paper's two failure modes say, and the report shows it
    first_page = load(out, "bench/first-page/report.json")
    assert row(overall, "oracle")["combined pass@1"] == "1.000"
    assert row(overall, "first-page")["combined pass@1"] == fixed(first_page["pass_at_1"]["combined"]) != "1.000"


def test_failure_reasons_count_failing_rollouts_per_axis(out, tables):
    failures = table_with(tables, ("agent", "axis", "failing rollouts", "reason"))
    assert not [r for r in failures[1:] if r[0] == "oracle"]
    for agent, axis, phrase in (
        ("first-page", "action", "only the first page was read"),
        ("skip-lookup", "action", "the code lookup was skipped"),
    ):
        report = load(out, f"bench/{agent}/report.json")
        results = [rollout[axis] for task in report["tasks"] for rollout in task["rollouts"]]
        failing = [r for r in results if not r["passed"]]
        matching = sum(phrase in r["reason"] for r in failing)
        rows = [r for r in failures[1:] if r[:2] == [agent, axis] and phrase in r[3]]
        assert rows and matching > 0
        # one kind, or several with the phrase ("record N of …" read past the first page, "record 1 of …" nothing
        # read at all): each counts the rollouts it names, and every matching rollout is named by one at least
        assert all(r[2] == str(len(failing)) for r in rows)
        counts = [int(r[4]) for r in rows]
        assert max(counts) <= matching <= sum(counts)


def test_audit_figures_are_audit_json(out, tables):
    audit = load(out, "audit/audit.json")
    measures = table_with(tables, ("measure", "value", "detail", "paper"))
    assert row(measures, "tool-universe overlap")["value"] == pct(audit["tools"]["overlap"])
    assert row(measures, "tool-universe overlap")["paper"] == "62.2%"
    assert row(measures, "dependency-link Jaccard")["value"] == fixed(audit["links"]["jaccard"])
    verbatim = audit["verbatim"]
    assert row(measures, "verbatim questions")["value"].startswith(f"{verbatim['verbatim']} / {verbatim['questions']}")
    assert row(measures, "shared plans")["value"].startswith(f"{audit['plans']['shared']} / {audit['plans']['bench']}")


def test_drift_summary_is_drift_json(out, tables, markdown):
    drift = load(out, "drift/drift.json")
    severities = table_with(tables, ("breaking", "warning", "info", "total"))
    assert severities[1] == [str(drift["summary"][k]) for k in ("breaking", "warning", "info", "total")]
    compared = load(out, "drift/compared.json")
    assert compared["refreshed"] is True
    assert (
        f"Snapshots compared: {compared['before']} → {compared['after']} (the second recorded by refreshing the first"
        in markdown
    )
    measures = table_with(tables, ("measure", "value"), exact=True)
    assert row(measures, "tools compared")["value"] == str(len(drift["tools"]))
    assert row(measures, "requests paired")["value"] == f"{drift['requests']:,}"  # the report groups thousands
    assert row(measures, "tools with a change")["value"] == str(len({c["tool"] for c in drift["changes"]}))
    changes = table_with(tables, ("severity", "tool", "path", "kind", "message", "requests"))
    assert len(changes) - 1 == len(drift["changes"])
    breaking = [c for c in drift["changes"] if c["severity"] == "breaking"]
    assert breaking
    for change in breaking:
        assert row(changes, "breaking", change["tool"], change["path"], change["kind"])["requests"] == str(
            len(change.get("requests", ()))
        )


# -- the files -------------------------------------------------------------------------------------
def test_html_needs_no_network_and_inlines_the_plots_and_the_font(out, html_text):
    parsed = page(html_text)
    assert "http://" not in html_text and "https://" not in html_text
    assert "script" not in parsed.tags and "link" not in parsed.tags
    assert "@import" not in html_text
    # one url(): the font, inline; the policy lets the page load fonts and images from data: URLs and nothing else
    urls = re.findall(r"url\(([^)]*)\)", html_text)
    assert len(urls) == 1 and urls[0].startswith("data:font/woff;base64,d09G")  # base64 of WOFF's signature, wOF
    policy = [v for tag, name, v in parsed.attributes if tag == "meta" and name == "content" and "default-src" in v]
    assert policy == ["default-src 'none'; img-src data:; font-src data:; style-src 'unsafe-inline'"]
    hrefs = [value for tag, name, value in parsed.attributes if name == "href"]
    assert hrefs and all(value.startswith("#") for value in hrefs)
    sources = [value for tag, name, value in parsed.attributes if name == "src"]
    prefix = "data:image/png;base64,"
    assert all(value.startswith(prefix) for value in sources)
    assert sorted(base64.b64decode(value[len(prefix) :]) for value in sources) == sorted(
        (out / name).read_bytes() for name in PLOTS + FIGURES
    )


def embedded_font(html_text: str):
    from fontTools.ttLib import TTFont

    found = re.search(r"url\(data:font/woff;base64,([A-Za-z0-9+/=]+)\)", html_text)
    assert found
    return TTFont(io.BytesIO(base64.b64decode(found.group(1))))


def test_the_embedded_font_holds_every_character_of_the_page_and_no_other(html_text):
    from fontTools.ttLib import TTFont

    from kopa_replay.graph.fonts import FAMILY, font_path

    text = re.sub(r"data:[^\"')]+", "", html_text)
    font = embedded_font(html_text)
    has = set(map(chr, font.getBestCmap()))
    with TTFont(str(font_path()), lazy=True) as nanum:
        full = set(map(chr, nanum.getBestCmap()))
    hangul = {ch for ch in text if "가" <= ch <= "힣"}
    assert len(hangul) >= 10 and hangul <= has  # the failure reasons, drift messages and field names
    assert {"㎡", "→", "←", "≥", "—", "…"} & set(text) <= has
    ascii_ = {chr(code) for code in range(0x20, 0x7F)}
    assert has == (set(text) | ascii_) & full  # exactly what the page uses (and ASCII), where NanumGothic has it
    assert font["name"].getBestFamilyName() == FAMILY
    assert f'font-family: "{FAMILY}", ' in html_text


def test_markdown_links_the_plots_by_relative_path(out, markdown):
    linked = re.findall(r"!\[[^\]]*\]\(([^)]+)\)", markdown)
    assert sorted(linked) == sorted(PLOTS + FIGURES)
    assert all((out / path).is_file() for path in linked)
    assert str(out) not in markdown


def test_the_figures_beside_the_papers_are_drawn_and_said(out, markdown, drawn):
    prune, audit = load(out, "graph/prune.json"), load(out, "audit/audit.json")
    data = collect(out)
    assert sorted(drawn) == sorted(FIGURES)
    for path, png in drawn.items():  # the pipeline's process drew the same bytes
        assert png.startswith(b"\x89PNG") and (out / path).read_bytes() == png
    paragraphs = markdown.split("\n\n")

    def said_after(path: str) -> str:
        """The paragraphs between a figure's caption and the next heading, table or figure."""
        start = next(i for i, text in enumerate(paragraphs) if f"]({path})" in text) + 2
        end = next(i for i in range(start, len(paragraphs)) if paragraphs[i][:1] in ("#", "|", "!"))
        return " ".join(paragraphs[start:end])

    before, after = prune["exec_rate_before"], prune["exec_rate_after"]
    text = said_after("figures/execution-rate.png")
    assert f"from {pct(before)} to {pct(after)} ({100 * (after - before):+.1f} points)" in text
    assert "the paper's rises from 50.2% to 62.7% (+12.5 points)" in text
    assert f"{prune['links_pruned']:,} of {prune['links_candidate']:,} candidate links" in text
    # the rated links counted from the graph itself: tried with a success or a structural failure
    rated = [
        link
        for link in load(out, "graph/graph.json")["links"]
        if link["successes"] + link["failures"].get("structural", 0)
    ]
    tried, cut = len(rated), sum(1 for link in rated if link["pruned"])
    assert f"the cut links' share of the rated links ({cut:,} of {tried:,}, {pct(cut / tried)})" in text
    # the arithmetic the sentence states: before = after - share × (after - cut rate), each rated link once
    assert abs(before - (after - cut / tried * (after - prune["exec_rate_pruned"]))) < 1e-4

    graph = load(out, "graph/graph.json")
    cut = [link for link in graph["links"] if link["pruned"]]
    text = said_after("figures/pruned-vs-retained.png")
    assert f"Pruned links execute {pct(prune['exec_rate_pruned'])} of the time (the paper: 14.8%)" in text
    assert f"The {len(cut):,} cut links were tried {sum(link['trials'] for link in cut):,} times" in text
    kept = [link for link in graph["links"] if not link["pruned"] and link["trials"] and not link["successes"]]
    assert f"of the {len(kept):,} retained links tried without a success" in text

    stats, paper = load(out, "filter/stats.json"), data["corpus"]["paper"]
    keys = {
        "calls returning 2 or more records": "multi_record_call_share",
        "one-to-many junction": "one_to_many_share",
        "fan-out + derived (single junction)": "fan_out_derived_share_single",
    }
    far = max(keys, key=lambda label: abs(stats[keys[label]] - paper[keys[label]]))
    text = said_after("figures/junctions.png")
    assert f"the largest difference from the paper is {far}, {pct(stats[keys[far]])} against" in text
    assert f"{100 / stats['single_junction_trajectories']:.1f} points" in text

    reports = {agent: load(out, f"bench/{agent}/report.json") for agent in AGENTS}
    text = said_after("figures/pass-rates.png")
    assert (
        "pass@1 (combined verdict): "
        + ", ".join(f"{agent} {fixed(reports[agent]['pass_at_1']['combined'])}" for agent in AGENTS)
        in text
    )
    assert "the code lookup was skipped" in text and "only the first page was read" in text

    # the contamination rows, explained: where the shared links lie, and that no plan or question repeats
    links = audit["links"]
    notes = markdown.split("## Contamination audit", 1)[1]
    assert f"{links['shared']} of the benchmark's {links['bench_distinct']} distinct links also occur" in notes
    assert links["shared"] and all(f"{a} → {b}" in notes for a, b in links["shared_examples"])
    assert f"{audit['plans']['shared']} of {audit['plans']['bench']} benchmark plans" in notes
    assert "Contamination rows: dependency-link Jaccard " + fixed(links["jaccard"]) in markdown


def test_same_inputs_give_byte_identical_files(out, markdown, html_text, drawn):
    data = collect(out)
    assert json.loads(json.dumps(data)) == data  # plain JSON
    images = {name: (out / name).read_bytes() for name in PLOTS} | drawn
    assert render_markdown(data) == render_markdown(collect(out)) == markdown
    assert render_html(data, images) == render_html(collect(out), dict(reversed(images.items()))) == html_text
    result = write_report(out)
    assert result.markdown.read_bytes() == markdown.encode("utf-8")
    assert result.html.read_bytes() == html_text.encode("utf-8")


def test_text_is_escaped_in_html_and_markdown(out):
    data = collect(out)
    data["filter"]["discards"] = [
        {
            "trajectory_id": "t<b>1</b>",
            "stage": "judges",
            "check": "disclosed",
            "detail": "<script>alert('x')</script> 서울 | 구로구 & co",
        }
    ]
    # the counts by check go with the listing (an empty one says "No item was discarded." and lists nothing)
    data["filter"]["discards_by_check"] = [{"stage": "judges", "check": "disclosed", "discarded": 1}]
    html_text = render_html(data, {})
    assert "<script>" not in html_text and "<b>1" not in html_text
    assert "&lt;script&gt;" in html_text and "서울 | 구로구 &amp; co" in html_text
    listed = table_with(page(html_text).tables, ("trajectory", "stage", "check", "detail"))
    assert listed[1] == ["t<b>1</b>", "judges", "disclosed", "<script>alert('x')</script> 서울 | 구로구 & co"]
    assert table_with(md_tables(render_markdown(data)), ("trajectory", "stage", "check", "detail")) == listed
    assert "plot not available" in html_text  # no image bytes given: said, not linked


def test_a_partial_run_says_which_sections_did_not_run(out, tmp_path):
    shutil.copytree(out / "graph", tmp_path / "graph")
    shutil.copytree(out / "bench" / "oracle", tmp_path / "bench" / "oracle")
    (tmp_path / "drift").mkdir()
    shutil.copyfile(out / "drift" / "drift.json", tmp_path / "drift" / "drift.json")  # without compared.json
    result = write_report(tmp_path)
    markdown = result.markdown.read_text(encoding="utf-8")
    stages = table_with(md_tables(markdown), ("section", "status", "reads"))
    assert {r[0]: r[1] for r in stages[1:]} == {
        "Phase A: link pruning": "ran",
        "Phase B: synthesized corpus": "did not run",
        "Filter": "did not run",
        "KOPA-Bench: oracle and baselines": "ran",
        "Contamination audit": "did not run",
        "Drift between snapshots": "ran",
    }
    assert "Did not run: synth/stats.json not found." in markdown
    assert "Snapshots compared: not named (drift/compared.json not found)." in markdown
    assert "Not run: skip-lookup, first-page." in markdown
    assert page(result.html.read_text(encoding="utf-8")).tables == md_tables(markdown)

    empty = write_report(tmp_path / "nothing").markdown.read_text(encoding="utf-8")
    assert {r[1] for r in table_with(md_tables(empty), ("section",))[1:]} == {"did not run"}
    assert "Did not run: no other snapshot was compared (drift/drift.json not found)." in empty


def test_an_unreadable_stage_output_is_an_error_naming_it(tmp_path):
    (tmp_path / "graph").mkdir()
    (tmp_path / "graph" / "prune.json").write_text("{", encoding="utf-8")
    with pytest.raises(UsageError, match="prune.json"):
        collect(tmp_path)


# -- failure reasons (pure) ------------------------------------------------------------------------
@pytest.mark.parametrize(
    "reason, kinds",
    [
        (
            "no call to dart_corp_code(corp_name=삼성전자): the code lookup was skipped; "
            "no call to dart_company(corp_code=00126380): the code lookup was skipped",
            ["no call to TOOL(…): the code lookup was skipped"],
        ),
        (
            "record 101 of gg_public_library() was never read: only the first page was read (records 1–100 were)",
            ["record N of TOOL(…) was never read: only the first page was read"],
        ),
        (
            "3 reference calls missing: a(x=1); b(y=2) ×2; 1 extra call: c(z=(주)한국) (1 failed call not counted)",
            ["N reference calls missing: TOOL(…)", "1 extra call: TOOL(…)"],
        ),
        ("expected 2814910.8㎡ (±2.8149108), found 2,052,000.1", ["expected N, found N"]),
        (
            "expected yes (예), found neither yes nor no in '알 수 없습니다'",
            ["expected yes, found neither yes nor no in '…'"],
        ),
    ],
    ids=["skipped-lookups", "first-page-only", "call-lists", "numbers-with-units", "yes-no"],
)
def test_generalize_reason_masks_what_differs_between_tasks(reason, kinds):
    assert generalize_reason(reason) == kinds


def test_failure_reasons_count_each_rollout_once_per_kind():
    report = {
        "tasks": [
            {
                "id": "b",
                "rollouts": [
                    {
                        "response": {"passed": False, "reason": "expected 3, found 4"},
                        "action": {"passed": True, "reason": "all"},
                        "environment": {"passed": False, "reason": "no call to x(a=1); no call to y()"},
                    }
                ],
            },
            {
                "id": "a",
                "rollouts": [
                    {
                        "response": {"passed": False, "reason": "expected 7, found 1"},
                        "action": {"passed": True, "reason": "all"},
                        "environment": {"passed": True, "reason": "ok"},
                    }
                ],
            },
        ]
    }
    reasons = failure_reasons(report)
    assert reasons["response"] == {
        "failed": 2,
        "kinds": [{"reason": "expected N, found N", "rollouts": 2, "task": "a", "example": "expected 7, found 1"}],
    }
    assert reasons["action"] == {"failed": 0, "kinds": []}
    assert reasons["environment"]["kinds"][0]["rollouts"] == 1


@pytest.mark.parametrize("copied", [0, 1])
def test_the_contamination_sentences_follow_the_counts(copied):
    """ "Does not repeat" is said only when nothing a model could copy repeats; one shared plan turns it round."""
    from kopa_replay.bench.audit import PAPER as AUDIT_PAPER
    from kopa_replay.stages.report import _contamination_notes, _corpus_contamination_notes
    from kopa_replay.synth.stats import PAPER as CORPUS_PAPER

    audit = {
        "links": {
            "shared": 1,
            "shared_examples": [["a_list", "b_detail"]],
            "jaccard": 0.05,
            "bench_distinct": 20,
            "unseen_share": 0.9,
            "bench_occurrences": 30,
        },
        "pairs": {"unseen_share": 0.8, "shared": 2},
        "tools": {"shared": 5, "bench": 10, "overlap": 0.5},
        "plans": {"shared": copied, "bench": 153},
        "verbatim": {"verbatim": 0, "masked": 0, "near_verbatim": 0},
    }
    notes = " ".join(_contamination_notes(audit, AUDIT_PAPER))
    assert ("does not repeat" in notes) is (copied == 0) and ("copy repeats" in notes) is (copied == 1)
    assert "lookups" not in notes  # the tools a shared link starts from are named, not characterized
    stats = {
        "contamination": {
            "link_jaccard": 0.05,
            "pair_unseen_share": 0.8,
            "shared_plans": copied,
            "verbatim": 0,
            "masked": 0,
            "near_verbatim": 0,
            "tool_overlap": 0.5,
        }
    }
    corpus = " ".join(_corpus_contamination_notes({"stats": stats, "paper": dict(CORPUS_PAPER)}))
    assert ("not in plans or questions" in corpus) is (copied == 0) and ("do repeat" in corpus) is (copied == 1)
