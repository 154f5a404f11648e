"""Blocked answers: a wall, a page or nothing where the catalog expects data — told apart from every real answer.

The confusion matrix of every incident kind against the class the environment assigns (tests/incident_matrix.py)
on the simulator and on an API of our own that renders every kind with its own code; what a real document, an
empty body and an HTML page are; and every answer of the shipped snapshot still read as it was.
"""

from __future__ import annotations

import json
from xml.sax.saxutils import escape

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from incident_matrix import (
    KEY_ENV,
    ROWS,
    SIM_GATEWAY_HOSTS,
    IncidentApi,
    local_opener,
    measure,
    sample_tools,
    sim_opener,
    write_catalog,
)

from kopa_replay.catalog import builtin_catalog
from kopa_replay.env.blocked import blocked_body, hollow_document
from kopa_replay.env.call import interpret
from kopa_replay.env.parse import ParseError, parse_body_shared
from kopa_replay.record.store import Store, shipped_store_path

CATALOG = builtin_catalog()
HTML_DATA = CATALOG.get("law_search_ls_history")  # law.go.kr's history search answers an HTML page: its data
LOCAL_KEY = "harbor-test-key-0123456789"


def _html_data(tool) -> bool:
    return any(p.split(".")[0] == "html" for p in tool.http.envelope.records)


def _one_per_platform_and_format():
    chosen = {}
    for tool in CATALOG:
        if tool.http.format in ("json", "xml") and tool.http.envelope.records != (".",) and not _html_data(tool):
            chosen.setdefault((tool.platform, tool.http.format), tool)
    return [chosen[key] for key in sorted(chosen)]


DATA_TOOLS = _one_per_platform_and_format()


# -- the confusion matrix ------------------------------------------------------------------------------------------


def _assert_diagonal(matrix) -> None:
    assert list(matrix.counts) == list(ROWS)
    assert all(sum(counts.values()) > 0 for counts in matrix.counts.values()), matrix.render()
    assert matrix.diagonal_share() == 1.0, (matrix.render(), matrix.misses)


def test_every_incident_on_the_simulator_lands_in_its_class():
    tools = sample_tools(CATALOG, 2)
    assert HTML_DATA in tools and {t.http.format for t in tools} == {"json", "xml", "zip-xml"}
    matrix = measure(sim_opener(CATALOG), tools, SIM_GATEWAY_HOSTS)
    _assert_diagonal(matrix)
    assert matrix.counts["gateway_quota"]["environmental"] == sum(t.http.host in SIM_GATEWAY_HOSTS for t in tools)


@pytest.fixture(scope="module")
def local(tmp_path_factory):
    mp = pytest.MonkeyPatch()
    mp.setenv(KEY_ENV, LOCAL_KEY)
    try:
        with IncidentApi(LOCAL_KEY) as api:
            yield api, write_catalog(tmp_path_factory.mktemp("incident-api"), api.url)
    finally:
        mp.undo()


def test_every_incident_on_an_api_of_our_own_lands_in_its_class(local):
    api, catalog = local
    matrix = measure(local_opener(api, catalog), list(catalog), None)
    _assert_diagonal(matrix)
    assert {t.http.format for t in catalog} == {"json", "xml"} and any(_html_data(t) for t in catalog)


# -- what is blocked and what is not -------------------------------------------------------------------------------

_KEYS = st.from_regex(r"[a-z][a-zA-Z0-9]{0,7}", fullmatch=True)
_TEXT = st.text(st.characters(blacklist_categories=("Cs", "Cc")), max_size=12)
_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | _TEXT,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_KEYS, inner, max_size=3),
    max_leaves=8,
)
_XML = st.recursive(_TEXT, lambda inner: st.dictionaries(_KEYS, inner, min_size=1, max_size=3), max_leaves=6)


def _placed(path: str, value, extra: dict):
    """A document holding ``value`` at the dot path (integer segments index lists), beside ``extra``'s keys."""
    head, _, rest = path.partition(".")
    inner = _placed(rest, value, {}) if rest else value
    if head.lstrip("-").isdigit():
        return [{} for _ in range(int(head))] + [inner]
    return {**extra, head: inner}


def _xml(node, tag: str) -> str:
    if isinstance(node, list):
        return "".join(_xml(item, tag) for item in node)
    if isinstance(node, dict):
        return f"<{tag}>" + "".join(_xml(v, k) for k, v in node.items()) + f"</{tag}>"
    return f"<{tag}>{escape(node)}</{tag}>"


@settings(max_examples=80, deadline=None)
@given(data=st.data(), tool=st.sampled_from(DATA_TOOLS))
def test_a_document_holding_an_envelope_path_is_never_blocked(data, tool):
    envelope = tool.http.envelope
    path = data.draw(st.sampled_from(envelope.records + envelope.total + envelope.code), label="path")
    if tool.http.format == "json":
        document = _placed(path, data.draw(_JSON), data.draw(st.dictionaries(_KEYS, _JSON, max_size=3)))
        body = json.dumps(document, ensure_ascii=data.draw(st.booleans())).encode()
    else:
        root, _, rest = path.partition(".")
        inside = _placed(rest, data.draw(_XML), data.draw(st.dictionaries(_KEYS, _XML, max_size=3))) if rest else {}
        body = ('<?xml version="1.0" encoding="UTF-8"?>' + _xml(inside or "", root)).encode()
    result = interpret(tool, {}, 200, body, "")
    assert result.outcome != "blocked_error", (path, body[:300], result.message)


_WALL_STATUSES = st.sampled_from([200, 202, 203, 302, 401, 403, 407])
_PAD = st.sampled_from(["", "\ufeff", "  \r\n", "\ufeff\n\t"])


@settings(max_examples=60, deadline=None)
@given(tool=st.sampled_from(DATA_TOOLS), status=_WALL_STATUSES, pad=_PAD, blank=st.text(" \t\r\n", max_size=6))
def test_an_empty_whitespace_or_bom_body_is_blocked_where_data_is_expected(tool, status, pad, blank):
    result = interpret(tool, {}, status, (pad + blank).encode(), "")
    assert result.outcome == "blocked_error", result
    assert result.message.startswith(f"an empty body (HTTP {status})")


@settings(max_examples=60, deadline=None)
@given(
    tool=st.sampled_from([*DATA_TOOLS, HTML_DATA]),
    status=_WALL_STATUSES,
    pad=_PAD,
    opener=st.sampled_from(["<!DOCTYPE html>", "<!doctype HTML>\n<html>", "<html>", '<HTML lang="ko">']),
    title=_TEXT,
    text=_TEXT,
    closed=st.booleans(),
)
def test_an_html_page_is_blocked_where_json_or_xml_is_expected(tool, status, pad, opener, title, text, closed):
    tail = "</html>" if "<html" in opener.lower() else ""
    meta = '<meta charset="utf-8"/>' if closed else '<meta charset="utf-8">'  # well-formed or not
    body = f"{pad}{opener}<head>{meta}<title>{escape(title)}</title></head><body><p>{escape(text)}</p></body>{tail}"
    result = interpret(tool, {}, status, body.encode(), "")
    assert result.outcome == "blocked_error", (body, result)


@pytest.mark.parametrize(
    "page",
    [
        b"<html><head><title>Notice</title></head><body><div><h1>Maintenance</h1><p>back at 6</p></div></body></html>",
        b'<html><head><title>Wait</title><script>document.cookie="t=1";location.reload()</script></head><body/></html>',
        b"<html><body/></html>",
    ],
)
def test_a_well_formed_page_that_is_not_its_own_is_blocked_for_an_html_data_tool(page):
    # it parses as the tool's pages do, and has their html.body: still none of the table, the total or a code
    result = interpret(HTML_DATA, {}, 200, page, "")
    assert result.outcome == "blocked_error", result


@settings(max_examples=40, deadline=None)
@given(
    rows=st.lists(st.lists(_TEXT, min_size=1, max_size=4), max_size=4),
    title=_TEXT,
)
def test_an_html_data_tool_reads_its_own_page_as_data(rows, title):
    table = "".join("<tr>" + "".join(f"<td>{escape(cell)}</td>" for cell in row) + "</tr>" for row in rows)
    page = (
        f"<html><head><title>{escape(title)}</title></head><body><h2>법령 연혁</h2>"
        f'<div class="total">총 <strong>{len(rows)}</strong> 건</div><table><tbody>{table}</tbody></table></body></html>'
    )
    result = interpret(HTML_DATA, {}, 200, page.encode(), "")
    assert result.outcome == ("ok" if rows else "empty"), (page, result)


def test_every_answer_of_the_shipped_snapshot_reads_as_it_did():
    """No stored answer meets a blocked check, so each takes the reading it had before the checks existed."""
    with Store(shipped_store_path(), readonly=True) as store:
        [snapshot] = store.snapshot_names()
        answers = sorted({(i.tool, i.status, i.body_digest, i.content_type) for i in store.interactions(snapshot)})
        assert len(answers) > 2000
        for name, status, digest, content_type in answers:
            tool, body = CATALOG.get(name), store.body(digest)
            assert blocked_body(tool, status, body) is None, name
            try:
                doc = parse_body_shared(body, tool.http.zip_member, content_type)
            except ParseError:
                assert blocked_body(tool, status, body, unparsed=True) is None, name
                continue
            assert hollow_document(tool, status, doc) is None, name


WALLS = [
    ("law_get_law", 200, b'<script>document.cookie="a=1";location.replace("/x")</script>', "blocked"),
    ("law_get_law", 200, b'<meta http-equiv="refresh" content="0;url=/challenge">', "blocked"),
    ("law_get_law", 200, b'<?xml version="1.0"?><html><body>x</body></html>', "blocked"),
    ("law_get_law", 200, b"<!-- waf --><html><body>x</body></html>", "blocked"),
    ("law_get_law", 403, b"Forbidden", "blocked"),
    (
        "law_get_ls_history",
        403,
        b"<html><head><title>Access Denied</title></head><body><h1>No</h1></body></html>",
        "blocked",
    ),
    ("assembly_bill_search", 200, b"[]", "blocked"),
    # the platform's word on the key or its pace, not a wall: environmental, as the catalog's statuses say
    ("law_get_law", 401, b"Unauthorized", "environmental"),
    ("law_get_law", 429, b"Too Many Requests", "environmental"),
]


@pytest.mark.parametrize(
    ("tool", "status", "body", "truth"), WALLS, ids=[f"{w[0]}-{w[1]}-{i}" for i, w in enumerate(WALLS)]
)
def test_the_environment_and_drift_read_a_wall_alike(tool, status, body, truth):
    """Pages a wall may start with (a bare script, a meta refresh, a prolog or a comment before <html>), a refusal in
    plain text, a refusal page on the tool whose data is a page, an empty list: blocked to the environment and to the
    drift reader both — never "0 results", never a broken binding, never a change of format."""
    from kopa_replay.drift.requests import read_response
    from kopa_replay.drift.schema import RecordedResponse

    catalog = builtin_catalog()
    read = interpret(catalog.get(tool), {}, status, body, "")
    assert read.outcome == f"{truth}_error", read.message
    response = RecordedResponse(tool, "GET", "https://example.invalid/x", status, "text/html", body)
    assert read_response(catalog.get(tool), response).outcome == truth
