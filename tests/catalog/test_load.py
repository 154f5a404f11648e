"""Loading and validating catalog files: every mistake is named by file, tool and field."""

from __future__ import annotations

import copy
import json
import re

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from kopa_replay.catalog import builtin_catalog, load_catalog, load_catalog_file, tool_to_dict
from kopa_replay.catalog.model import RateLimit
from kopa_replay.errors import CatalogError, UnknownTool
from kopa_replay.record.store import shipped_store_path

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


# -- rate limits: validated and named like every field, reachable per host, out of the digest --
LIMIT = {"requests_per_second": 2, "concurrency": 1, "daily": 500}


def limited(limit=LIMIT, **platform):
    document = copy.deepcopy(VALID)
    document["platform"].update(rate_limit=limit, **platform)
    return document


def test_a_platform_limit_reaches_its_host_and_loads_back_from_a_written_tool(tmp_path):
    catalog = load_catalog_file(write(tmp_path, limited()))
    assert catalog.rate_limits() == {"api.acme.example": RateLimit(2.0, 1, 500)}
    entry = tool_to_dict(catalog.get("acme_quotes"))
    assert entry["http"]["rate_limit"] == {"requests_per_second": 2.0, "concurrency": 1, "daily": 500}
    again = load_catalog_file(write(tmp_path, {"platform": {"id": "acme"}, "tools": [entry]}, "again.json"))
    assert again.rate_limits() == catalog.rate_limits()


def test_a_platform_without_a_limit_has_none_and_daily_may_be_null(tmp_path):
    assert load_catalog_file(write(tmp_path, VALID)).rate_limits() == {}
    no_daily = load_catalog_file(write(tmp_path, limited({"requests_per_second": 0.5, "concurrency": 3})))
    assert no_daily.rate_limits() == {"api.acme.example": RateLimit(0.5, 3, None)}
    assert no_daily.rate_limits()["api.acme.example"].interval == 2.0


def test_platforms_sharing_a_host_bind_together_at_the_strictest_figures(tmp_path):
    document = limited({"requests_per_second": 10, "concurrency": 1})
    other = copy.deepcopy(document["tools"][0])
    other.update(name="acme_quotes_slow", http={**other["http"], "rate_limit": {"requests_per_second": 1}})
    document["tools"].append(other)
    catalog = load_catalog_file(write(tmp_path, document))
    # the tool's http block overrides the platform's key by key: 1 a second, the platform's concurrency 1
    assert catalog.get("acme_quotes_slow").http.rate_limit == RateLimit(1.0, 1, None)
    assert catalog.rate_limits() == {"api.acme.example": RateLimit(1.0, 1, None)}
    assert RateLimit(5, 2, 100).stricter(RateLimit(1, 4, None)) == RateLimit(1, 2, 100)


def test_limits_stay_out_of_the_digest(tmp_path):
    plain = load_catalog_file(write(tmp_path, VALID, "plain.yaml"))
    with_limits = load_catalog_file(write(tmp_path, limited(), "limited.yaml"))
    assert with_limits.rate_limits() and not plain.rate_limits()
    assert with_limits.digest() == plain.digest()


def test_the_shipped_manifest_still_names_the_built_in_catalog():
    # a sealed snapshot's manifest records the catalog digest (and re-recording it must reproduce the manifest):
    # the limits added to the built-in platforms leave it as it was
    manifest = json.loads((shipped_store_path().parents[1] / "snapshots" / "2026-09-01.json").read_text())
    assert builtin_catalog().rate_limits()
    assert manifest["catalog_digest"] == builtin_catalog().digest()


def test_every_built_in_host_is_limited_and_the_paper_scale_hosts_alike():
    catalog = builtin_catalog()
    hosts = {tool.http.host for tool in catalog}
    limits = catalog.rate_limits()
    assert set(limits) == hosts
    assert limits["opendart.fss.or.kr"].daily == 10_000
    # datagokr (two files) and tago share apis.data.go.kr: their figures agree, nothing is silently tightened
    assert {t.http.rate_limit for t in catalog if t.http.host == "apis.data.go.kr"} == {limits["apis.data.go.kr"]}
    assert builtin_catalog("paper").rate_limits() == limits


BAD = [
    ({"requests_per_second": 0, "concurrency": 1}, "requests_per_second"),
    ({"requests_per_second": -1.5, "concurrency": 1}, "requests_per_second"),
    ({"requests_per_second": "fast", "concurrency": 1}, "requests_per_second"),
    ({"requests_per_second": True, "concurrency": 1}, "requests_per_second"),
    ({"requests_per_second": float("nan"), "concurrency": 1}, "requests_per_second"),
    ({"requests_per_second": float("inf"), "concurrency": 1}, "requests_per_second"),
    ({"concurrency": 1}, "requests_per_second"),
    ({"requests_per_second": 1, "concurrency": 0}, "concurrency"),
    ({"requests_per_second": 1, "concurrency": 1.5}, "concurrency"),
    ({"requests_per_second": 1}, "concurrency"),
    ({"requests_per_second": 1, "concurrency": 1, "daily": 0}, "daily"),
    ({"requests_per_second": 1, "concurrency": 1, "daily": "many"}, "daily"),
    ({"requests_per_second": 1, "concurrency": 1, "per_minute": 60}, "per_minute"),
]


@pytest.mark.parametrize("limit, field", BAD)
def test_a_bad_platform_limit_is_named_once_by_file_platform_and_field(tmp_path, limit, field):
    document = limited(limit)
    second = copy.deepcopy(document["tools"][0])
    second["name"] = "acme_quotes_again"
    document["tools"].append(second)
    path = write(tmp_path, document, "acme.json")
    with pytest.raises(CatalogError) as caught:
        load_catalog_file(path)
    error = caught.value
    assert (error.source, error.tool, error.field) == (str(path), None, f"rate_limit.{field}")
    assert str(error).startswith(f"file {path}, platform 'acme', field 'rate_limit.{field}': ")
    assert "problems" not in str(error)  # once for the platform, not again for each of its two tools


def test_a_limit_that_is_not_a_mapping_and_a_bad_tool_override_are_named(tmp_path):
    with pytest.raises(CatalogError, match=r"platform 'acme', field 'rate_limit': must be a mapping"):
        load_catalog_file(write(tmp_path, limited("5/s")))
    document = copy.deepcopy(VALID)
    document["tools"][0]["http"]["rate_limit"] = {"requests_per_second": 1, "concurrency": -1}
    with pytest.raises(CatalogError) as caught:
        load_catalog_file(write(tmp_path, document))
    assert (caught.value.tool, caught.value.field) == ("acme_quotes", "http.rate_limit.concurrency")


# -- unknown keys: a misspelt key is refused where it is written, with the nearest known key --
def problem_lines(error: CatalogError) -> list[str]:
    """Each problem of an error as one line (a file with several problems lists them under 'N problems:')."""
    lines = str(error).splitlines()
    return [line.removeprefix("  - ") for line in lines[1:]] if re.match(r"\d+ problems:$", lines[0]) else lines


def set_key(*where, value="x"):
    """A mutation setting document[where...] = value (where: keys, the last one the new key)."""

    def mutate(document):
        target = document
        for key in where[:-1]:
            target = target[key]
        target[where[-1]] = value

    return mutate


PLATFORM, TOOL = ("platform",), ("tools", 0)
MISSPELT = [
    # (mutation, who names it, field, the suggestion)
    (set_key("tool", value=[]), "", "tool", "did you mean 'tools'?"),
    (
        set_key(*PLATFORM, "pagnation", value={"style": "none"}),
        "platform 'acme'",
        "pagnation",
        "did you mean 'pagination'?",
    ),
    (set_key(*PLATFORM, "rate_limt", value=LIMIT), "platform 'acme'", "rate_limt", "did you mean 'rate_limit'?"),
    (set_key(*PLATFORM, "formt", value="xml"), "platform 'acme'", "formt", "did you mean 'format'?"),
    (set_key(*PLATFORM, "auth", "evn"), "platform 'acme'", "auth.evn", "did you mean 'env'?"),
    (set_key(*PLATFORM, "envelope", "totl"), "platform 'acme'", "envelope.totl", "did you mean 'total'?"),
    (
        set_key(*PLATFORM, "pagination", "max_sise"),
        "platform 'acme'",
        "pagination.max_sise",
        "did you mean 'max_size'?",
    ),
    (
        set_key(*PLATFORM, "rate_limit", value={**LIMIT, "dayly": 9}),
        "platform 'acme'",
        "rate_limit.dayly",
        "did you mean 'daily'?",
    ),
    (set_key(*TOOL, "titel"), "tool 'acme_quotes'", "titel", "did you mean 'title'?"),
    (
        set_key(*TOOL, "colour"),
        "tool 'acme_quotes'",
        "colour",
        "known: name, title, description, platform, domain, "
        "params, inputSchema, output, outputSchema, annotations, http, examples, filters, generated",
    ),
    (
        set_key(*TOOL, "http", "pagnation", value={}),
        "tool 'acme_quotes'",
        "http.pagnation",
        "did you mean 'pagination'?",
    ),
    (
        set_key(*TOOL, "http", "rate_limt", value=LIMIT),
        "tool 'acme_quotes'",
        "http.rate_limt",
        "did you mean 'rate_limit'?",
    ),
    (
        set_key(*TOOL, "http", "envelope", value={"recods": "x"}),
        "tool 'acme_quotes'",
        "http.envelope.recods",
        "did you mean 'records'?",
    ),
    (
        set_key(*TOOL, "http", "auth", value={"location": "query", "name": "k", "evn": "K"}),
        "tool 'acme_quotes'",
        "http.auth.evn",
        "did you mean 'env'?",
    ),
    (
        set_key(*TOOL, "http", "pagination", value={"stlye": "none"}),
        "tool 'acme_quotes'",
        "http.pagination.stlye",
        "did you mean 'style'?",
    ),
    (
        set_key(*TOOL, "http", "rate_limit", value={"requests_per_second": 1, "concurency": 1}),
        "tool 'acme_quotes'",
        "http.rate_limit.concurency",
        "did you mean 'concurrency'?",
    ),
    (
        set_key(*TOOL, "params", "ticker", "requried", value=True),
        "tool 'acme_quotes'",
        "params.ticker.requried",
        "did you mean 'required'?",
    ),
    (
        set_key(*TOOL, "output", "date", "nulable", value=True),
        "tool 'acme_quotes'",
        "output.date.nulable",
        "did you mean 'nullable'?",
    ),
    (
        set_key(*TOOL, "filters", value=[{"param": "page", "field": "date", "mach": "exact"}]),
        "tool 'acme_quotes'",
        "filters[0].mach",
        "did you mean 'match'?",
    ),
    (
        set_key(*TOOL, "annotations", value={"readOnlyHnt": False}),
        "tool 'acme_quotes'",
        "annotations.readOnlyHnt",
        "did you mean 'readOnlyHint'?",
    ),
]


@pytest.mark.parametrize("mutate, who, field, hint", MISSPELT)
def test_an_unknown_key_is_named_by_file_platform_or_tool_and_field_with_the_nearest_key(
    tmp_path, mutate, who, field, hint
):
    path = write(tmp_path, broken(mutate))
    with pytest.raises(CatalogError) as caught:
        load_catalog_file(path)
    where = ", ".join(part for part in (f"file {path}", who, f"field {field!r}") if part)
    assert f"{where}: unknown key ({hint})" in problem_lines(caught.value)


def test_a_platform_mistake_is_named_once_not_by_each_of_its_tools(tmp_path):
    document = broken(set_key(*PLATFORM, "pagnation", value={"style": "none"}))
    second = copy.deepcopy(document["tools"][0])
    second["name"] = "acme_quotes_again"
    document["tools"].append(second)
    path = write(tmp_path, document)
    with pytest.raises(CatalogError) as caught:
        load_catalog_file(path)
    assert str(caught.value) == (
        f"file {path}, platform 'acme', field 'pagnation': unknown key (did you mean 'pagination'?)"
    )
    assert (caught.value.source, caught.value.tool, caught.value.field) == (str(path), None, "pagnation")


def test_unknown_keys_are_collected_with_the_files_other_problems(tmp_path):
    def mutate(document):
        document["platform"]["pagnation"] = {"style": "none"}
        document["tools"][0]["params"]["ticker"]["requried"] = True
        document["tools"][0]["http"]["format"] = "csv"

    path = write(tmp_path, broken(mutate))
    with pytest.raises(CatalogError) as caught:
        load_catalog_file(path)
    assert str(caught.value).splitlines()[0] == "3 problems:"
    assert problem_lines(caught.value) == [
        f"file {path}, platform 'acme', field 'pagnation': unknown key (did you mean 'pagination'?)",
        f"file {path}, tool 'acme_quotes', field 'params.ticker.requried': unknown key (did you mean 'required'?)",
        f"file {path}, tool 'acme_quotes', field 'http.format': format must be one of ['json', 'xml', 'zip-xml']",
    ]


def test_extension_keys_at_the_top_level_hold_yaml_anchors(tmp_path):
    path = tmp_path / "anchored.yaml"
    text = yaml.safe_dump(VALID, allow_unicode=True)
    path.write_text("x-codes: &codes {'0': ok}\n" + text, encoding="utf-8")
    assert "acme_quotes" in load_catalog_file(path)


SHAPES = [
    (set_key(*TOOL, "http", value=["/v1/quotes"]), "tool 'acme_quotes'", "http", "http must be a mapping"),
    (
        set_key(*PLATFORM, "result_codes", value=["0"]),
        "tool 'acme_quotes'",
        "http.result_codes",
        "result_codes must be a mapping of result code to outcome, not list",
    ),
    (
        set_key(*PLATFORM, "fixed_query", value=["a=1"]),
        "tool 'acme_quotes'",
        "http.fixed_query",
        "fixed_query must be a mapping of query parameter to value, not list",
    ),
    (
        set_key(*TOOL, "filters", value={"param": "page"}),
        "tool 'acme_quotes'",
        "filters",
        "filters must be a list of filters, not dict",
    ),
    (
        set_key(*TOOL, "filters", value=[{"param": "page", "field": "date", "limit": "many"}]),
        "tool 'acme_quotes'",
        "filters[0].limit",
        "limit must be a positive integer, not 'many'",
    ),
    (
        set_key(*TOOL, "annotations", value=["readOnlyHint"]),
        "tool 'acme_quotes'",
        "annotations",
        "annotations must be a mapping",
    ),
    (set_key("platforms", value={"id": "acme"}), "", "platform", "give either platform (one) or platforms"),
]


@pytest.mark.parametrize("mutate, who, field, message", SHAPES)
def test_a_block_of_the_wrong_shape_is_named_not_a_traceback(tmp_path, mutate, who, field, message):
    path = write(tmp_path, broken(mutate))
    with pytest.raises(CatalogError) as caught:
        load_catalog_file(path)
    where = ", ".join(part for part in (f"file {path}", who, f"field {field!r}") if part)
    assert any(line.startswith(f"{where}: {message}") for line in problem_lines(caught.value)), str(caught.value)


def test_a_description_cut_at_an_unquoted_comma_is_named_not_loaded_short(tmp_path):
    path = tmp_path / "cut.yaml"
    text = yaml.safe_dump(VALID, allow_unicode=True, sort_keys=False)
    text = text.replace("tools:\n", "x-cut: &cut {ko: 시, 군, 구 이름, en: city, county or district}\ntools:\n", 1)
    document = yaml.safe_load(text)
    document["tools"][0]["params"]["ticker"]["description"] = document["x-cut"]
    path.write_text(yaml.safe_dump(document, allow_unicode=True), encoding="utf-8")
    with pytest.raises(CatalogError) as caught:
        load_catalog_file(path)
    lines = problem_lines(caught.value)
    assert [line.split(": a description holds")[0] for line in lines] == [
        f"file {path}, tool 'acme_quotes', field 'params.ticker.description.{key}'"
        for key in ("county or district", "구 이름", "군")  # both texts cut: ko after 시, en after city
    ]
    assert all("quote the text" in line for line in lines)


def test_every_shipped_catalog_reads_no_unknown_key():
    # the built-in files, and the paper-scale tools generated from them, load as before: every documented
    # operation counted in the README's platform table, and the paper's 2,318 with generated ones filling the rest
    counts: dict[str, int] = {}
    for tool in builtin_catalog():
        counts[tool.platform] = counts.get(tool.platform, 0) + 1
    assert counts == {
        "assembly": 276,
        "dart": 83,
        "datagokr": 172,
        "gg": 9,
        "krx": 31,
        "law": 177,
        "neis": 16,
        "seoul": 30,
        "seoulbus": 25,
        "tago": 14,
    }
    assert len(builtin_catalog("paper")) == 2318
