"""Properties of the request-level diff over generated snapshots of one small JSON API."""

from __future__ import annotations

import json

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from kopa_replay.catalog import load_catalog
from kopa_replay.drift import RecordedResponse, crosses, diff_requests, pair_responses, render

CODES = {"0": "ok", "3": "no_data", "10": "structural", "99": "environmental"}


@pytest.fixture(scope="module")
def catalog(tmp_path_factory):
    document = {
        "platform": {
            "id": "gen",
            "domain": "finance",
            "base_url": "http://gen.example",
            "auth": {"location": "query", "name": "key"},
            "format": "json",
            "envelope": {"records": "data.items", "total": "data.total", "code": "code", "message": "msg"},
            "result_codes": dict(CODES),
        },
        "tools": [
            {
                "name": f"gen_{name}",
                "title": name,
                "description": {"ko": name, "en": name},
                "http": {"path": f"/{name}"},
                "params": {"q": {"type": "string", "description": "q"}},
                "output": {"a": "a", "b": "b"},
                "examples": [{"q": "x"}],
            }
            for name in ("one", "two")
        ],
    }
    path = tmp_path_factory.mktemp("gen") / "gen.yaml"
    path.write_text(yaml.safe_dump(document), encoding="utf-8")
    return load_catalog([str(path)])


values = st.one_of(st.text(max_size=6), st.integers(-5, 5), st.none())
records = st.lists(st.fixed_dictionaries({"a": values}, optional={"b": values, "c": values}), max_size=4)
answers = st.tuples(
    st.sampled_from(sorted(CODES) + ["77"]), records, st.sampled_from([200, 200, 500, 429]), st.booleans()
)


def _response(tool: str, query: str, answer) -> RecordedResponse:
    code, rows, status, xml = answer
    doc = {"code": code, "msg": f"m{code}", "data": {"items": rows, "total": len(rows)}}
    body = json.dumps(doc).encode() if not xml else b"<r><code>" + code.encode() + b"</code></r>"
    url = f"http://gen.example/{tool.removeprefix('gen_')}?key=***&q={query}"
    return RecordedResponse(tool, "GET", url, status, "application/json", body, f"{tool}|{query}", 1)


snapshots = st.dictionaries(
    st.tuples(st.sampled_from(["gen_one", "gen_two"]), st.sampled_from("pqrs")), answers, min_size=1, max_size=8
)


@settings(max_examples=60, deadline=None)
@given(snapshot=snapshots)
def test_a_snapshot_against_itself_shows_nothing(catalog, snapshot):
    responses = [_response(tool, query, answer) for (tool, query), answer in sorted(snapshot.items())]
    report = diff_requests(pair_responses(catalog, responses, responses))
    assert (report.changes, report.noise, report.data) == ((), (), ())
    assert report.requests == len(responses)


@settings(max_examples=80, deadline=None)
@given(before=snapshots, after=snapshots, data=st.data())
def test_every_named_request_is_one_of_the_pairs_and_the_report_ignores_order(catalog, before, after, data):
    old = [_response(tool, query, answer) for (tool, query), answer in sorted(before.items())]
    new = [_response(tool, query, answer) for (tool, query), answer in sorted(after.items())]
    pairs = pair_responses(catalog, old, new)
    report = diff_requests(pairs)
    ids = {p.request for p in pairs}
    for change in (*report.changes, *report.noise, *report.data):
        assert change.requests and set(change.requests) <= ids
    shuffled = diff_requests(pair_responses(catalog, data.draw(st.permutations(old)), data.draw(st.permutations(new))))
    assert render(shuffled, "json") == render(report, "json")
    # noise and data never fail a gate; a pair with an environmental side is never drift
    assert not crosses(report.noise, "warning") and not crosses(report.data, "warning")
    noisy = {p.request for p in pairs if {p.before.outcome, p.after.outcome} & {"environmental", "no_answer"}}
    assert not noisy & {r for c in report.changes for r in c.requests}


@settings(max_examples=60, deadline=None)
@given(snapshot=snapshots)
def test_a_request_the_new_snapshot_lacks_is_noise(catalog, snapshot):
    responses = [_response(tool, query, answer) for (tool, query), answer in sorted(snapshot.items())]
    report = diff_requests(pair_responses(catalog, responses, responses[1:]))
    lost = {r for c in report.noise for r in c.requests}
    assert lost == {pair.request for pair in pair_responses(catalog, responses[:1], [])}
    assert report.changes == () and report.data == ()
