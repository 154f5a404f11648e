"""Schema diff and reports: invariants (hypothesis), each check, severities, rendering, the CI gate."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from kopa_replay.catalog import load_catalog
from kopa_replay.drift.diff import (
    CHANGE_KINDS,
    CHECKS,
    SEVERITIES,
    Change,
    diff_schemas,
    values_turned_null,
)
from kopa_replay.drift.report import crosses, render, summary
from kopa_replay.drift.requests import Reading, RequestPair, diff_requests, pair_responses
from kopa_replay.drift.schema import (
    STRING_FORMATS,
    VALUE_TYPES,
    FieldStats,
    PageEvidence,
    RecordedResponse,
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


# -- the same request in both snapshots: records that lost a value, envelope values of another kind ---------------

SHOPS = st.lists(
    st.fixed_dictionaries(
        {
            "id": st.integers(0, 10**6).map(lambda n: f"S{n}"),
            "name": st.text(min_size=1, max_size=4),
            "price": st.integers(),
        }
    ),
    unique_by=lambda shop: shop["id"],
    max_size=12,
)


@settings(max_examples=150, deadline=None)
@given(SHOPS, st.data())
def test_values_that_turned_null_are_counted_in_the_same_records_wherever_they_moved(shops, data):
    name = data.draw(st.sampled_from(["name", "price"]))
    nulled = data.draw(st.sets(st.sampled_from(range(len(shops))), max_size=len(shops)) if shops else st.just(set()))
    dropped = data.draw(st.sets(st.sampled_from(range(len(shops))), max_size=3) if shops else st.just(set()))
    kept = [
        {**shop, name: None} if i in nulled else shop for i, shop in enumerate(shops) if i in nulled or i not in dropped
    ]
    # shops new since, some without the value yet: they head the page and push the others down (or out)
    added = [
        {"id": f"N{i}", "name": "x", "price": 1, name: None if i % 2 else 1}
        for i in range(data.draw(st.integers(0, 3)))
    ]
    after = added + data.draw(st.permutations(kept))
    assert values_turned_null(shops, after) == ({name: len(nulled)} if nulled else {})
    # the page size held: as many records as before, at other positions, some pushed out by the new ones
    window = after[: len(shops)]
    lost = sum(1 for record in window if record["id"].startswith("S") and record[name] is None)
    assert values_turned_null(shops, window) == ({name: lost} if lost else {})


@given(st.lists(st.fixed_dictionaries({"a": st.none() | st.integers(0, 2)}, optional={"b": st.none() | st.booleans()})))
def test_an_answer_never_lost_a_value_against_itself(records):
    assert values_turned_null(records, records) == {}
    assert values_turned_null(records, list(reversed(records))) == {}


def test_a_null_is_no_evidence_where_the_rest_of_the_record_names_no_single_record_that_held_a_value():
    before = [{"kind": "bus", "plate": "A1"}, {"kind": "bus", "plate": "B2"}]
    # what is left, kind=bus, names two buses: which one lost its plate?
    assert values_turned_null(before, [{"kind": "bus", "plate": None}]) == {}
    # the bus is still there as it was: a record with no plate was added, none lost one
    assert values_turned_null(before[:1], [*before[:1], {"kind": "bus", "plate": None}]) == {}
    assert values_turned_null(before[:1], [{"kind": "bus", "plate": None}]) == {"plate": 1}
    # nothing is left to know a record by
    assert values_turned_null([{"plate": "A1"}], [{"plate": None}]) == {}
    # another key set is another record
    assert values_turned_null([{"id": 1, "plate": "A1"}], [{"id": 1, "plate": None, "memo": "m"}]) == {}
    assert values_turned_null([{"id": 1, "plate": "A1", "seats": 3}], [{"id": 1, "plate": None, "seats": None}]) == {
        "plate": 1,
        "seats": 1,
    }


def _reading(null: bool = False) -> Reading:
    """An ok answer of ten records (id, name), the name null in some of them or in none."""
    kinds = {"id": frozenset({"string"}), "name": frozenset({"string"} | ({"null"} if null else set()))}
    return Reading("ok", 200, "json", "0", records=10, kinds=kinds, everywhere=frozenset(kinds))


def _pair(i: int, before: Reading, after: Reading, nulled: dict[str, int] | None = None) -> RequestPair:
    return RequestPair("t", f"GET /t?q={i}", before, after, nulled or {})


def test_records_that_lost_a_value_make_a_field_nullable_where_shares_cannot_tell():
    pairs = [
        _pair(0, _reading(), _reading(null=True), {"name": 1}),
        _pair(1, _reading(), _reading(null=True), {"name": 2}),
        _pair(2, _reading(), _reading()),
    ]
    [change] = diff_requests(pairs).changes
    assert (change.kind, change.check_id, change.path, change.severity) == (
        "became_nullable",
        CHECKS["request_nullable"],
        "name",
        "breaking",
    )
    assert (change.before, change.after, change.requests) == (0.0, 0.15, ("GET /t?q=0", "GET /t?q=1"))
    assert "null in 3 of 20 records of 2 requests" in change.message


def test_a_field_already_null_in_the_old_snapshot_or_reported_per_tool_is_not_reported_again():
    lost = _pair(0, _reading(), _reading(null=True), {"name": 1})
    # null in another request of the old snapshot already: the data says when it is null
    assert diff_requests([lost, _pair(1, _reading(null=True), _reading(null=True))]).changes == ()
    per_tool = Change(CHECKS["became_nullable"], "t", "name", "became_nullable", "breaking", 0.0, 0.5, "name is null")
    [change] = diff_requests([lost], [per_tool]).changes
    assert (change.check_id, change.requests) == (CHECKS["became_nullable"], ("GET /t?q=0",))


@pytest.fixture(scope="module")
def envelope_catalog(tmp_path_factory):
    document = {
        "platform": {
            "id": "env",
            "domain": "finance",
            "base_url": "http://env.example",
            "auth": {"location": "query", "name": "key"},
            "format": "json",
            "envelope": {"records": "data.items", "total": "data.total", "code": "code", "message": "msg"},
            "result_codes": {"0": "ok", "3": "no_data"},
        },
        "tools": [
            {
                "name": "env_shops",
                "title": "shops",
                "description": {"ko": "상점", "en": "shops"},
                "http": {"path": "/shops"},
                "params": {"q": {"type": "string", "description": "q"}},
                "output": {"id": "id"},
                "examples": [{"q": "x"}],
            }
        ],
    }
    path = tmp_path_factory.mktemp("env") / "env.yaml"
    path.write_text(yaml.safe_dump(document), encoding="utf-8")
    return load_catalog([str(path)])


#: a scalar of each JSON kind, as the envelope of an answer holds it
SCALARS = {
    "number": st.integers(0, 10**6) | st.floats(0, 10**6, allow_nan=False),
    "string": st.text(max_size=4),
    "boolean": st.booleans(),
}
ENVELOPE_KEYS = st.sampled_from(["total", "pageNo", "numOfRows", "updated", "more"])


def _answer(
    query: str, meta: dict, total, body_format: str = "json", code: str = "0", items: list | None = None
) -> RecordedResponse:
    items = ([{"id": "S1"}] if code == "0" else []) if items is None else items
    doc = {"code": code, "msg": "ok", "meta": meta, "data": {"items": items, "total": total}}
    body = json.dumps(doc).encode()
    if body_format == "xml":
        body = b"<r><code>0</code><msg>ok</msg><data><total>1</total><items><id>S1</id></items></data></r>"
    url = f"http://env.example/shops?key=***&q={query}"
    return RecordedResponse("env_shops", "GET", url, 200, "application/json", body, f"env_shops|{query}", 1)


@settings(max_examples=60, deadline=None)
@given(st.dictionaries(ENVELOPE_KEYS, st.sampled_from(sorted(SCALARS)), min_size=1), st.data())
def test_an_envelope_value_of_another_kind_is_breaking_and_other_values_of_its_kind_are_not(
    envelope_catalog, kinds, data
):
    def draw(kinds: dict[str, str]) -> dict:
        return {key: data.draw(SCALARS[kind]) for key, kind in kinds.items()}

    old = [_answer(q, draw(kinds), 1) for q in "ab"]
    same_kinds = diff_requests(pair_responses(envelope_catalog, old, [_answer(q, draw(kinds), 1) for q in "ab"]))
    assert [c for c in same_kinds.changes if c.kind == "envelope_type_changed"] == []
    key = data.draw(st.sampled_from(sorted(kinds)))
    other = data.draw(st.sampled_from(sorted(set(SCALARS) - {kinds[key]})))
    moved = {**kinds, key: other}
    report = diff_requests(pair_responses(envelope_catalog, old, [_answer("a", draw(moved), 1), old[1]]))
    assert [(c.kind, c.check_id, c.path, c.severity, c.before, c.after, c.requests) for c in report.changes] == [
        (
            "envelope_type_changed",
            CHECKS["envelope_type"],
            f"meta.{key}",
            "breaking",
            [kinds[key]],
            [other],
            ("GET http://env.example/shops?key=***&q=a",),
        )
    ]


def test_envelope_kinds_are_compared_only_between_answers_of_one_format_and_outcome(envelope_catalog):
    old = [_answer("a", {}, 1)]
    assert [c.kind for c in diff_requests(pair_responses(envelope_catalog, old, [_answer("a", {}, "1")])).changes] == [
        "envelope_type_changed"
    ]
    # the same answer in XML: every value is text there, and the change is the format's
    xml = diff_requests(pair_responses(envelope_catalog, old, [_answer("a", {}, 1, "xml")])).changes
    assert [(c.kind, c.path) for c in xml] == [("format_changed", "$")]
    # records that went: a no-data document may write its count another way
    gone = pair_responses(envelope_catalog, old, [_answer("a", {}, "", code="3")])
    assert diff_requests(gone).changes == ()


@settings(max_examples=60, deadline=None)
@given(SHOPS, st.data())
def test_a_refreshed_request_reports_a_nullable_field_exactly_when_one_of_its_records_lost_a_value(
    envelope_catalog, shops, data
):
    nulled = data.draw(st.sets(st.sampled_from(range(len(shops))), max_size=2) if shops else st.just(set()))
    kept = [{**shop, "name": None} if i in nulled else shop for i, shop in enumerate(shops)]
    added = [{"id": f"N{i}", "name": None, "price": i} for i in range(data.draw(st.integers(0, 2)))]
    after = (added + data.draw(st.permutations(kept)))[: max(len(shops), 1)]
    old, new = _answer("a", {}, len(shops), items=shops), _answer("a", {}, len(shops), items=after)
    report = diff_requests(pair_responses(envelope_catalog, [old], [new]))
    lost = sum(1 for record in after if record["id"].startswith("S") and record["name"] is None)
    assert [(c.kind, c.path, c.requests) for c in report.changes] == (
        [("became_nullable", "name", ("GET http://env.example/shops?key=***&q=a",))] if lost else []
    )
