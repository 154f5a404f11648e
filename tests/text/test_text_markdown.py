"""A JSON value as a Markdown document: headings, tables of flat records, bullets, escaping, one output per value."""

from __future__ import annotations

import datetime as dt

from hypothesis import given
from hypothesis import strategies as st

from kopa_replay.text.markdown import markdown_document


def test_a_result_with_scalars_records_and_an_object():
    value = {
        "snapshot": "2026-09-01",
        "ok": True,
        "missing": None,
        "tools": [{"name": "dart_corp_code", "calls": 3}, {"name": "krx|odd", "calls": 12.5, "note": "a\nb"}],
        "by_domain": {"finance": 2, "law": 1},
    }
    assert markdown_document(value, "kopa-replay x").splitlines() == [
        "# kopa-replay x",
        "",
        "- **snapshot**: 2026-09-01",
        "- **ok**: true",
        "- **missing**: null",
        "",
        "## tools",
        "",
        "| name | calls | note |",
        "|---|---:|---|",  # numbers aligned right
        "| dart_corp_code | 3 |  |",  # a key a record lacks: an empty cell
        "| krx\\|odd | 12.5 | a b |",  # a pipe escaped, a newline folded: still one row
        "",
        "## by_domain",
        "",
        "- **finance**: 2",
        "- **law**: 1",
    ]


def test_lists_of_scalars_nested_values_and_empty_ones():
    value = {"seeds": [0, 1], "plans": [{"tool": "a", "args": {"x": 1}}], "none": [], "empty": {}}
    assert markdown_document(value).splitlines() == [
        "# seeds",
        "",
        "- 0",
        "- 1",
        "",
        "# plans",
        "",
        "- [1]",  # a record with a nested value: a bullet list, not a table
        "  - **tool**: a",
        "  - **args**:",
        "    - **x**: 1",
        "",
        "# none",
        "",
        "(none)",
        "",
        "# empty",
        "",
        "(none)",
    ]
    assert markdown_document([{"a": 1}, {"a": 2}]) == "| a |\n|---:|\n| 1 |\n| 2 |\n"  # a top-level list: a table
    assert markdown_document("a *word*") == "a \\*word\\*\n"


def test_deeper_than_six_headings_goes_on_as_bullets():
    deep: dict = {"leaf": 1}
    for level in range(8, 0, -1):
        deep = {f"k{level}": deep}
    lines = markdown_document(deep).splitlines()
    assert [line for line in lines if line.startswith("#")] == [f"{'#' * n} k{n}" for n in range(1, 7)]
    assert lines[-3:] == ["- **k7**:", "  - **k8**:", "    - **leaf**: 1"]


def test_values_json_cannot_write_are_their_text():
    assert markdown_document({"day": dt.date(2026, 9, 1), "pair": (1, 2)}) == (
        "- **day**: 2026-09-01\n\n# pair\n\n- 1\n- 2\n"
    )


_json = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=12,
)


@given(_json)
def test_any_json_value_renders_the_same_every_time_without_blank_runs(value):
    first = markdown_document(value, "t")
    assert first == markdown_document(value, "t") and first.endswith("\n") and "\n\n\n" not in first
