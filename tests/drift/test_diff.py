"""Schema diff and reports: invariants (hypothesis), each check, severities, rendering, the CI gate."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kopa_replay.drift.diff import (
    CHANGE_KINDS,
    CHECKS,
    SEVERITIES,
    Change,
    diff_schemas,
)
from kopa_replay.drift.report import crosses, render, summary
from kopa_replay.drift.schema import (
    STRING_FORMATS,
    VALUE_TYPES,
    FieldStats,
    PageEvidence,
    ToolSchema,
)
from kopa_replay.errors import DriftError, UsageError

# -- strategies ------------------------------------------------------------------

NAMES = st.text(alphabet="abcdeXYZ_", min_size=1, max_size=5)
PATHS = st.lists(
    st.sampled_from(["response", "header", "body", "items", "item", "row", "[]"]), min_size=1, max_size=3
).map(lambda parts: ".".join(parts).replace(".[]", "[]"))


@st.composite
def field_stats(draw, name: str, records: int) -> FieldStats:
    present = draw(st.integers(1, records))
    nulls = draw(st.integers(0, present))
    kind = draw(st.sampled_from([t for t in VALUE_TYPES if t != "null"]))
    types = {"null": nulls, kind: present - nulls}
    formats: dict[str, int] = {}
    if kind == "string" and present > nulls:
        first = draw(st.integers(0, present - nulls))
        picked = draw(st.lists(st.sampled_from(STRING_FORMATS), min_size=2, max_size=2))
        formats = {picked[0]: first}
        formats[picked[1]] = formats.get(picked[1], 0) + present - nulls - first
    return FieldStats.from_dict({"name": name, "present": present, "nulls": nulls, "types": types, "formats": formats})


@st.composite
def tool_schemas(draw, tool: str = "t") -> ToolSchema:
    records = draw(st.integers(0, 40))
    names = draw(st.lists(NAMES, unique=True, max_size=6)) if records else []
    codes = draw(
        st.lists(
            st.tuples(
                st.sampled_from(["resultCode", "CODE"]),
                st.sampled_from(["00", "0", "03", "99"]),
                st.sampled_from(["ok", "no_data", "structural", "environmental", "unknown"]),
                st.integers(1, 5),
            ),
            unique_by=lambda c: c[:2],
            max_size=4,
        )
    )
    pagination = draw(
        st.none()
        | st.builds(
            PageEvidence,
            st.sampled_from(["numOfRows", "END"]),
            st.none() | st.integers(1, 1000),
            st.none() | st.integers(1, 1000),
            st.booleans(),
        )
    )
    answers = draw(st.integers(0, 5))
    return ToolSchema.from_dict(
        {
            "tool": tool,
            "responses": answers + draw(st.integers(0, 3)),
            "answers": answers,
            "records": records,
            "formats": {fmt: 1 for fmt in draw(st.lists(st.sampled_from(["json", "xml"]), max_size=2))},
            "envelope": draw(st.lists(PATHS, max_size=5)),
            "fields": [draw(field_stats(name, records)).to_dict() for name in names],
            "pagination": pagination.to_dict() if pagination else None,
            "result_codes": [{"path": p, "code": c, "outcome": o, "count": n} for p, c, o, n in codes],
        }
    )


SCHEMA_MAPS = st.lists(st.sampled_from(["a_tool", "b_tool", "c_tool"]), unique=True, max_size=3).flatmap(
    lambda names: st.tuples(*(tool_schemas(name) for name in names)).map(lambda ss: {s.tool: s for s in ss})
)


# -- invariants ------------------------------------------------------------------


@given(tool_schemas())
def test_schema_round_trips_through_its_dict_and_json(schema):
    assert ToolSchema.from_dict(schema.to_dict()) == schema
    assert ToolSchema.from_dict(json.loads(schema.canonical_json())).digest() == schema.digest()


@pytest.mark.parametrize(
    "data",
    [
        {},
        {"tool": "t", "records": "many"},
        {"tool": "t", "fields": [{"name": "x"}]},
        {"tool": "t", "pagination": {"max_answered": 3}},
        [],
    ],
)
def test_a_malformed_stored_schema_is_a_drift_error(data):
    with pytest.raises(DriftError, match="not a tool schema"):
        ToolSchema.from_dict(data)


@given(SCHEMA_MAPS)
def test_a_snapshot_never_differs_from_itself(schemas):
    assert diff_schemas(schemas, schemas) == []


def _signature(changes: list[Change]) -> set[tuple[str, str, str]]:
    return {(c.tool, c.kind, c.path) for c in changes}


@given(SCHEMA_MAPS, SCHEMA_MAPS)
def test_diff_is_antisymmetric_in_added_and_removed(before, after):
    forward, backward = diff_schemas(before, after), diff_schemas(after, before)
    flip = {
        "field_added": "field_removed",
        "field_removed": "field_added",
        "tool_added": "tool_missing",
        "tool_missing": "tool_added",
    }
    assert {(t, flip[k], p) for t, k, p in _signature(forward) if k in flip} == {
        s for s in _signature(backward) if s[1] in flip
    }
    assert {(c.tool, c.before, c.after) for c in forward if c.kind == "field_renamed"} == {
        (c.tool, c.after, c.before) for c in backward if c.kind == "field_renamed"
    }


@given(tool_schemas(), st.data())
def test_renaming_a_field_yields_exactly_one_field_renamed(schema, data):
    regular = [f for f in schema.fields if f.present == schema.records]
    if not regular:
        extra = FieldStats("always", schema.records or 1, 0, (("string", schema.records or 1),), (("text", 1),))
        schema = replace(
            schema, records=schema.records or 1, fields=tuple(sorted((*schema.fields, extra), key=lambda f: f.name))
        )
        regular = [extra]
    old = data.draw(st.sampled_from(regular))
    renamed = replace(
        schema,
        fields=tuple(
            sorted(
                (replace(f, name="renamed_" + f.name) if f is old else f for f in schema.fields), key=lambda f: f.name
            )
        ),
    )
    changes = diff_schemas({"t": schema}, {"t": renamed})
    assert [(c.kind, c.path, c.after) for c in changes] == [("field_renamed", old.name, "renamed_" + old.name)]


@given(SCHEMA_MAPS, SCHEMA_MAPS)
def test_changes_are_sorted_and_rendering_ignores_input_order(before, after):
    changes = diff_schemas(before, after)
    assert changes == sorted(changes, key=Change.sort_key)
    assert all(c.kind in CHANGE_KINDS and c.severity in SEVERITIES and c.check_id in CHECKS.values() for c in changes)
    for fmt in ("text", "json", "markdown"):
        assert render(list(reversed(changes)), fmt) == render(changes, fmt)


# -- each check ------------------------------------------------------------------


def schema(records: int = 10, fields: dict[str, dict] | None = None, **overrides) -> ToolSchema:
    """A one-tool schema; ``fields`` maps names to FieldStats dicts (name filled in)."""
    data = {
        "tool": "t",
        "responses": 2,
        "answers": 2,
        "records": records,
        "formats": {"json": 2},
        "envelope": ["response", "response.body", "response.body.items"],
        "pagination": None,
        "result_codes": [{"path": "resultCode", "code": "00", "outcome": "ok", "count": 2}],
        "fields": [{"name": name, **spec} for name, spec in (fields or {}).items()],
    }
    data.update(overrides)
    return ToolSchema.from_dict(data)


def text_field(present: int, nulls: int = 0, fmt: str = "text") -> dict:
    return {
        "present": present,
        "nulls": nulls,
        "types": {"string": present - nulls, "null": nulls},
        "formats": {fmt: present - nulls},
    }


def only(before: ToolSchema, after: ToolSchema) -> list[tuple[str, str, str]]:
    return [(c.kind, c.path, c.severity) for c in diff_schemas({"t": before}, {"t": after})]


def test_removed_added_and_renamed_fields():
    base = {"keep": text_field(10), "gone": text_field(10, fmt="digits8")}
    assert only(schema(fields=base), schema(fields={"keep": text_field(10)})) == [("field_removed", "gone", "breaking")]
    assert only(schema(fields={"keep": text_field(10)}), schema(fields=base)) == [("field_added", "gone", "info")]
    renamed = {"keep": text_field(10), "new_name": text_field(10, fmt="digits8")}
    changes = diff_schemas({"t": schema(fields=base)}, {"t": schema(fields=renamed)})
    assert [(c.kind, c.path, c.before, c.after) for c in changes] == [("field_renamed", "gone", "gone", "new_name")]
    # A different profile is no rename: a digit code did not become free text.
    other = {"keep": text_field(10), "new_name": text_field(10)}
    assert sorted(only(schema(fields=base), schema(fields=other))) == [
        ("field_added", "new_name", "info"),
        ("field_removed", "gone", "breaking"),
    ]


def test_a_rare_field_missing_from_the_next_snapshot_is_not_removed():
    before = schema(records=500, fields={"rare": text_field(2), "all": text_field(500)})
    assert only(before, schema(records=400, fields={"all": text_field(400)})) == []
    assert only(schema(records=2, fields={"x": text_field(2)}), schema(records=2, fields={})) == [
        ("field_removed", "x", "breaking")
    ]


def test_fields_are_not_compared_when_a_snapshot_saw_no_record():
    assert only(schema(fields={"x": text_field(10)}), schema(records=0)) == []


def test_type_and_string_format_changes():
    number = {"present": 10, "nulls": 0, "types": {"integer": 4, "number": 6}, "formats": {}}
    assert only(schema(fields={"rate": text_field(10, fmt="decimal")}), schema(fields={"rate": number})) == [
        ("type_changed", "rate", "breaking")
    ]
    assert only(
        schema(fields={"day": text_field(10, fmt="yyyymmdd")}), schema(fields={"day": text_field(10, fmt="iso_date")})
    ) == [("format_changed", "day", "warning")]
    # Prices written "980" one day and "1,680" the next are one family: no change.
    assert (
        only(
            schema(fields={"price": text_field(10, fmt="digits")}),
            schema(fields={"price": text_field(10, fmt="comma_number")}),
        )
        == []
    )


def test_presence_and_nulls_compare_with_tolerance():
    assert only(
        schema(records=100, fields={"x": text_field(100)}), schema(records=100, fields={"x": text_field(80)})
    ) == [("became_optional", "x", "warning")]
    assert only(schema(records=2, fields={"x": text_field(2)}), schema(records=2, fields={"x": text_field(1)})) == []
    assert only(schema(records=7, fields={"x": text_field(7)}), schema(records=7, fields={"x": text_field(7, 4)})) == [
        ("became_nullable", "x", "breaking")
    ]
    # Two nulls in 89 after none in 83 is what a nullable field shows by chance.
    assert (
        only(schema(records=83, fields={"x": text_field(83)}), schema(records=89, fields={"x": text_field(89, 2)}))
        == []
    )


def test_envelope_rename_removal_and_addition():
    before = schema(envelope=["OutBlock_1"])
    renamed = schema(envelope=["OutBlock_2", "OutBlock_2[].BAS_DD", "OutBlock_2[].ISU_CD"])
    changes = diff_schemas({"t": before}, {"t": renamed})
    assert [(c.kind, c.path, c.before, c.after, c.severity) for c in changes] == [
        ("envelope_changed", "OutBlock_1", "OutBlock_1", "OutBlock_2", "breaking")
    ]
    assert only(schema(envelope=["a", "a.b", "a.c"]), schema(envelope=["a", "a.b"])) == [
        ("envelope_changed", "a.c", "breaking")
    ]
    assert only(schema(envelope=["a"]), schema(envelope=["a", "a.meta"])) == [("envelope_changed", "a.meta", "info")]
    assert only(schema(envelope=["a"]), schema(envelope=[], answers=0)) == []


def test_whole_response_format_change_is_breaking():
    changes = diff_schemas({"t": schema()}, {"t": schema(formats={"xml": 2})})
    assert [(c.kind, c.path, c.before, c.after, c.severity) for c in changes] == [
        ("format_changed", "$", ["json"], ["xml"], "breaking")
    ]


def test_page_cap_lowered_raised_or_not_probed():
    def page(answered, probed, error=False):
        return {"param": "END", "max_answered": answered, "max_probed": probed, "size_error": error}

    assert only(schema(pagination=page(1000, 1000)), schema(pagination=page(100, 1000, True))) == [
        ("page_size_changed", "END", "breaking")
    ]
    assert only(schema(pagination=page(500, 1000)), schema(pagination=page(1000, 1000))) == [
        ("page_size_changed", "END", "info")
    ]
    # The large page was not asked for again (it failed transiently): nothing is known about the cap.
    assert only(schema(pagination=page(1000, 1000)), schema(pagination=page(100, 100))) == []


def test_result_code_changes_and_their_severity():
    def codes(*entries):
        return [{"path": "resultCode", "code": c, "outcome": o, "count": 1} for c, o in entries]

    replaced = diff_schemas(
        {"t": schema(result_codes=codes(("00", "ok")))}, {"t": schema(result_codes=codes(("0", "unknown")))}
    )
    assert [(c.kind, c.path, c.before, c.after, c.severity) for c in replaced] == [
        ("result_codes_changed", "resultCode", ["00"], ["0"], "breaking")
    ]
    assert only(
        schema(result_codes=codes(("00", "ok"))), schema(result_codes=codes(("00", "ok"), ("77", "unknown")))
    ) == [("result_codes_changed", "resultCode", "warning")]
    # No-data, structural and environmental codes come and go with the data; an ok code alone with them.
    assert only(schema(result_codes=codes(("00", "ok"))), schema(result_codes=codes(("03", "no_data")))) == []
    transient = codes(("00", "ok"), ("22", "environmental"))
    assert only(schema(result_codes=codes(("00", "ok"))), schema(result_codes=transient)) == []


def test_tools_missing_and_added():
    changes = diff_schemas({"old": schema(tool="old")}, {"new": schema(tool="new")})
    assert [(c.tool, c.kind, c.severity) for c in changes] == [
        ("new", "tool_added", "info"),
        ("old", "tool_missing", "breaking"),
    ]


# -- reports -----------------------------------------------------------------------

CHANGES = [
    Change(
        "response-field-added",
        "neis_school_info",
        "SCHUL_ABRV_NM",
        "field_added",
        "info",
        None,
        "string<text>",
        "new field SCHUL_ABRV_NM (string<text>)",
    ),
    Change(
        "response-field-removed",
        "dart_company",
        "ir_url",
        "field_removed",
        "breaking",
        "string",
        None,
        "field ir_url (string) is gone",
    ),
    Change(
        "response-result-codes-changed",
        "t",
        "CODE",
        "result_codes_changed",
        "warning",
        ["A|B"],
        ["C"],
        "CODE codes changed from A|B to C",
    ),
]


def test_summary_counts_by_severity():
    assert summary(CHANGES) == {"breaking": 1, "warning": 1, "info": 1, "total": 3}
    assert summary([]) == {"breaking": 0, "warning": 0, "info": 0, "total": 0}


def test_text_report_is_one_line_per_change_in_sorted_order():
    lines = render(CHANGES, "text").splitlines()
    assert lines[0].startswith("BREAKING dart_company ir_url: field ir_url")
    assert lines[0].endswith("[response-field-removed]")
    assert len(lines) == 4 and lines[-1] == "3 change(s): 1 breaking, 1 warning, 1 info"


def test_json_report_lists_changes_and_a_summary():
    document = json.loads(render(CHANGES, "json"))
    assert document["summary"]["total"] == 3
    assert [c["tool"] for c in document["changes"]] == ["dart_company", "neis_school_info", "t"]
    assert document["changes"][0] == CHANGES[1].to_dict()


def test_markdown_report_is_a_table_with_escaped_cells():
    text = render(CHANGES, "markdown")
    rows = [line for line in text.splitlines() if line.startswith("| ")]
    assert rows[0].startswith("| severity | tool | path |") and len(rows) == 4
    assert '["A\\|B"]' in text
    assert "| severity" not in render([], "markdown")


def test_unknown_report_format_and_fail_on_level_are_usage_errors():
    with pytest.raises(UsageError, match="report format"):
        render(CHANGES, "yaml")
    with pytest.raises(UsageError, match="fail-on"):
        crosses(CHANGES, "info")


def test_crosses_gates_on_breaking_or_warning():
    warning_only = [c for c in CHANGES if c.severity != "breaking"]
    info_only = [c for c in CHANGES if c.severity == "info"]
    assert crosses(CHANGES, "breaking") and not crosses(warning_only, "breaking")
    assert crosses(warning_only, "warning") and not crosses(info_only, "warning")
    assert not crosses([], "warning")
