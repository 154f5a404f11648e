"""Loading and validating catalog files: every mistake is named by file, tool and field."""

from __future__ import annotations

import copy
import json

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from kopa_replay.catalog import load_catalog, load_catalog_file, tool_to_dict
from kopa_replay.errors import CatalogError, UnknownTool

VALID = {
    "platform": {
        "id": "acme",
        "domain": "finance",
        "base_url": "https://api.acme.example",
        "auth": {"location": "query", "name": "apikey", "env": "ACME_KEY"},
        "format": "json",
        "envelope": {"records": "data.items", "total": "data.total", "code": "code", "message": "msg"},
        "pagination": {"style": "page", "page_param": "page", "size_param": "size", "default_size": 10},
        "result_codes": {"0": "ok", "404": "no_data", "400": "structural", "429": "environmental"},
    },
    "tools": [
        {
            "name": "acme_quotes",
            "title": "시세 조회",
            "description": {"ko": "종목 시세를 조회합니다", "en": "Daily quotes of one ticker"},
            "http": {"path": "/v1/quotes/{ticker}"},
            "params": {
                "ticker": {
                    "type": "string",
                    "required": True,
                    "in": "path",
                    "pattern": "^[0-9]{6}$",
                    "description": {"ko": "종목코드", "en": "6-digit ticker"},
                },
                "page": {"type": "integer", "description": "page number"},
                "size": {"type": "integer", "description": "page size"},
            },
            "output": {"date": {"type": "string", "description": "YYYYMMDD"}, "close": "closing price"},
            "examples": [{"ticker": "069540"}],
        }
    ],
}


def write(tmp_path, document, name="acme.yaml"):
    path = tmp_path / name
    if name.endswith(".json"):
        path.write_text(json.dumps(document, ensure_ascii=False), encoding="utf-8")
    else:
        path.write_text(yaml.safe_dump(document, allow_unicode=True), encoding="utf-8")
    return path


def broken(mutate):
    document = copy.deepcopy(VALID)
    mutate(document)
    return document


@pytest.mark.parametrize("name", ["acme.yaml", "acme.json"])
def test_a_valid_user_catalog_loads_from_yaml_or_json(tmp_path, name):
    catalog = load_catalog_file(write(tmp_path, VALID, name))
    tool = catalog.get("acme_quotes")
    assert tool.http.host == "api.acme.example"
    assert tool.http.auth.location == "query" and tool.http.auth.env == "ACME_KEY"
    assert tool.required == ("ticker",)
    assert tool.input_schema["properties"]["ticker"]["x-in"] == "path"
    assert tool.output_fields == ("close", "date")
    assert tool.http.classify_code("429") == "environmental"
    assert tool.description == "종목 시세를 조회합니다 | Daily quotes of one ticker"
    assert tool.annotations["readOnlyHint"] is True


def test_a_tool_written_out_loads_back_equal(tmp_path):
    tool = load_catalog_file(write(tmp_path, VALID)).get("acme_quotes")
    entry = tool_to_dict(tool)
    again = load_catalog_file(write(tmp_path, {"platform": {"id": "acme"}, "tools": [entry]}, "again.json"))
    assert tool_to_dict(again.get("acme_quotes")) == entry


CASES = [
    (lambda d: d["tools"][0]["description"].pop("en"), "acme_quotes", "description.en"),
    (lambda d: d["tools"][0].update(name="AcmeQuotes"), None, "name"),
    (lambda d: d["tools"][0].update(name="other_quotes"), "other_quotes", "name"),
    (lambda d: d["platform"]["result_codes"].update({"500": "transient"}), "acme_quotes", "http.result_codes.500"),
    (lambda d: d["platform"].update(result_codes={"1": "no_data"}), "acme_quotes", "http.result_codes"),
    (lambda d: d["platform"]["pagination"].update(page_param="pageNo"), "acme_quotes", "http.pagination.page_param"),
    (lambda d: d["tools"][0]["examples"].append({"page": 1}), "acme_quotes", "examples[1]"),
    (lambda d: d["tools"][0]["examples"].append({"ticker": "AAPL"}), "acme_quotes", "examples[1].ticker"),
    (lambda d: d["tools"][0]["examples"].append({"ticker": "069540", "nope": 1}), "acme_quotes", "examples[1].nope"),
    (lambda d: d["tools"][0]["http"].update(path="/v1/quotes/{symbol}"), "acme_quotes", "http.path"),
    (lambda d: d["tools"][0]["http"].update(format="csv"), "acme_quotes", "http.format"),
    (lambda d: d["platform"]["auth"].update(location="cookie"), "acme_quotes", "http.auth.location"),
    (lambda d: d["tools"][0]["params"]["ticker"].update(type="str"), "acme_quotes", "params.ticker.type"),
    (lambda d: d["tools"][0]["params"]["ticker"].update(pattern="([0-9"), "acme_quotes", "params.ticker.pattern"),
    (lambda d: d["tools"][0].update(output={}), "acme_quotes", "output"),
    (lambda d: d["tools"][0].update(colour="red"), "acme_quotes", "colour"),
    (lambda d: d["tools"].append(copy.deepcopy(d["tools"][0])), "acme_quotes", "name"),
    (lambda d: d["platform"]["pagination"].update(max_size="ten"), "acme_quotes", "http.pagination.max_size"),
    (lambda d: d["platform"]["pagination"].update(default_size=0), "acme_quotes", "http.pagination.default_size"),
    (lambda d: d["tools"][0].update(examples={"ticker": "069540"}), "acme_quotes", "examples"),
    # an unhashable platform id is an unknown platform, not a TypeError
    (lambda d: d["tools"][0].update(platform=["acme"]), "acme_quotes", "platform"),
]


def test_examples_that_are_not_a_list_are_one_problem(tmp_path):
    with pytest.raises(CatalogError) as info:
        load_catalog_file(write(tmp_path, broken(lambda d: d["tools"][0].update(examples="069540"))))
    message = str(info.value)
    assert "examples must be a list" in message and "2 problems" not in message and "Traceback" not in message


@pytest.mark.parametrize("mutate, tool, field", CASES)
def test_each_mistake_names_file_tool_and_field(tmp_path, mutate, tool, field):
    path = write(tmp_path, broken(mutate))
    with pytest.raises(CatalogError) as info:
        load_catalog_file(path)
    message = str(info.value)
    assert str(path) in message
    assert f"field {field!r}" in message
    if tool:
        assert f"tool {tool!r}" in message


def test_all_problems_of_a_file_are_reported_at_once(tmp_path):
    def mutate(d):
        d["tools"][0]["description"].pop("ko")
        d["tools"][0]["http"]["format"] = "csv"

    with pytest.raises(CatalogError) as info:
        load_catalog_file(write(tmp_path, broken(mutate)))
    assert "2 problems" in str(info.value)
    assert "description.ko" in str(info.value) and "http.format" in str(info.value)


def test_unparseable_files_name_the_line(tmp_path):
    path = tmp_path / "bad.yaml"
    path.write_text("platform:\n  id: acme\n tools: [\n", encoding="utf-8")
    with pytest.raises(CatalogError, match=r"bad\.yaml.*invalid YAML at line \d+"):
        load_catalog_file(path)
    path = tmp_path / "bad.json"
    path.write_text('{"tools": [}', encoding="utf-8")
    with pytest.raises(CatalogError, match=r"bad\.json.*invalid JSON at line 1"):
        load_catalog_file(path)
    with pytest.raises(CatalogError, match="file not found"):
        load_catalog_file(tmp_path / "missing.yaml")


def test_duplicate_names_across_files_are_refused(tmp_path):
    write(tmp_path, VALID, "a.yaml")
    write(tmp_path, VALID, "b.yaml")
    with pytest.raises(CatalogError, match=r"b\.yaml.*duplicate tool name \(also in .*a\.yaml\)"):
        load_catalog([tmp_path])


def test_unknown_tool_suggests_close_names(tmp_path):
    catalog = load_catalog_file(write(tmp_path, VALID))
    with pytest.raises(UnknownTool, match="did you mean acme_quotes"):
        catalog.get("acme_quote")


@settings(max_examples=40, deadline=None)
@given(
    st.dictionaries(
        st.from_regex(r"[a-z][a-z0-9]{0,6}", fullmatch=True),
        st.sampled_from(["ok", "no_data", "structural", "environmental"]),
        max_size=6,
    )
)
def test_result_code_tables_classify_exactly_what_they_list(tmp_path_factory, codes):
    document = copy.deepcopy(VALID)
    document["platform"]["result_codes"] = {**codes, "0": "ok"}
    tool = load_catalog_file(write(tmp_path_factory.mktemp("c"), document)).get("acme_quotes")
    for code, outcome in {**codes, "0": "ok"}.items():
        assert tool.http.classify_code(code) == outcome
    assert tool.http.classify_code("not-a-code") is None


def test_required_parameters_are_listed_in_a_canonical_order(tmp_path):
    """The catalog digest must not depend on how a YAML library orders merged keys."""
    document = copy.deepcopy(VALID)
    params = document["tools"][0]["params"]
    params["zeta"] = {"type": "string", "required": True, "description": "z"}
    params["alpha"] = {"type": "string", "required": True, "description": "a"}
    document["tools"][0]["examples"] = [{"ticker": "069540", "zeta": "z", "alpha": "a"}]
    first = load_catalog_file(write(tmp_path, document, "one.yaml"))
    assert first.get("acme_quotes").required == ("alpha", "ticker", "zeta")
    reordered = copy.deepcopy(document)
    reordered["tools"][0]["params"] = dict(reversed(list(params.items())))
    second = load_catalog_file(write(tmp_path, reordered, "two.yaml"))
    assert first.digest() == second.digest()
