"""Secrets as one property over every output (issue 14, part 3).

A key of any length and alphabet — ``& " \\ < > % + / =`` and Hangul included — sent in the query (DART's
crtfc_key, law.go.kr's OC), a header (KRX's AUTH_KEY) or a path segment (Seoul), or echoed back in a body in
plain, percent-encoded, JSON-escaped or XML/HTML-entity form, never reaches the store file (nor its -wal),
a snapshot manifest, a log record at DEBUG, an error message, CLI output, or any file ``record``, ``graph``,
``synth``, ``filter`` and ``bench`` write. A key shorter than ``MIN_SECRET_LENGTH`` cannot be masked inside
arbitrary text (a one-letter key is in every word); it is masked wherever it is a whole token — a path segment
or a parameter value — and that is what is checked for it.

The redactor-level properties (every echo form, in UTF-8 and CP949) live in test_redact_echoes.py and
test_secrets.py; here the key goes through the real recorder, the simulator and the CLI.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import re
import sqlite3
import tempfile
from pathlib import Path
from urllib.parse import quote, urlencode

import httpx
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from kopa_replay.drift.recorded import tool_schema_digests
from kopa_replay.env import call_tool, open_source
from kopa_replay.errors import CassetteMiss
from kopa_replay.record import RecordTransport, Store
from kopa_replay.record.redact import MIN_SECRET_LENGTH, echo_forms, redactor_for
from kopa_replay.record.snapshots import manifest_dir_for, seal_snapshot

#: A key to break every escaping layer: URL syntax, JSON and XML specials, a backslash, Hangul (not in ASCII,
#: two bytes in CP949), and a percent sign that looks like the start of an escape.
NASTY_KEY = 'K&"\\<>%+/=키값%41zq'

#: the alphabet the property draws keys from (the issue's specials, Hangul, a few letters and digits)
KEY_ALPHABET = list("aZk09") + list('&"\\<>%+/=') + list("한글키") + list(" ?#;'")

# query key (DART), header key (KRX), path-segment key (Seoul), key echoed in the body (law.go.kr OC)
CALLS = [
    ("dart_company", {"corp_code": "00439743"}),
    ("krx_stk_bydd_trd", {"basDd": "20260831"}),
    ("seoul_card_subway_stats_new", {"USE_YMD": "20260825", "START": 1, "END": 3}),
    ("law_search_law", {"query": "도로교통법"}),
]

#: what ends a parameter value: the next parameter, a fragment, the end of a quoted or tagged value, an escape,
#: white space, or the end of the text
_VALUE_END = r"""(?=[&#;"'<>\\\s]|$)"""
_ABSOLUTE_URL = re.compile(rb"""[A-Za-z][A-Za-z0-9+.-]*://[^\s"'<>\\]+""")


@pytest.fixture(autouse=True)
def _forget_registered_keys():
    """The log filter remembers every key a call sent, for the process; these tests send hundreds of odd ones."""
    from kopa_replay.record import redact

    with redact._REGISTERED_LOCK:
        before = set(redact._REGISTERED)
    yield
    with redact._REGISTERED_LOCK:
        redact._REGISTERED.intersection_update(before)


# -- what a leak looks like ------------------------------------------------------
def _encoded_forms(key: str) -> list[bytes]:
    """Every echo form of ``key`` (raw, percent upper/lower/plus, JSON, XML/HTML entities) in UTF-8 and CP949."""
    forms = set(echo_forms(key)) | {
        key,
        quote(key, safe=""),
        quote(key),
        json.dumps(key)[1:-1],
        repr(key)[1:-1],
        repr(key.encode())[2:-1],
    }  # as Python prints it in a log
    out: set[bytes] = set()
    for form in forms:
        for encoding in ("utf-8", "cp949"):
            with contextlib.suppress(UnicodeEncodeError):
                out.add(form.encode(encoding))
    return sorted(out, key=lambda b: (-len(b), b))


def _token_hit(key: str, data: bytes) -> re.Match[bytes] | None:
    """``key`` in any echo form as a whole token of a URL: a parameter value (``=KEY`` up to a delimiter), or a
    path segment of an absolute URL (a form with a ``/`` in it would be two segments, so only as a value).
    Not inside words, and not in a relative path (``application/json`` holds no key ``json``)."""
    forms = _encoded_forms(key)
    hit = re.search(rb"(?<==)(?:" + b"|".join(re.escape(f) for f in forms) + rb")" + _VALUE_END.encode(), data)
    if hit:
        return hit
    segments = {form for form in forms if b"/" not in form}
    for url in _ABSOLUTE_URL.finditer(data):
        path = re.split(rb"[?#]", url.group(0).split(b"://", 1)[1], maxsplit=1)[0]
        if any(segment in segments for segment in path.split(b"/")[1:]):
            return url
    return None


def leaks(key: str, named: dict[str, bytes], *, anywhere: dict[str, bytes] | None = None) -> list[str]:
    """Where ``key`` shows: any echo form anywhere (a key of MIN_SECRET_LENGTH or more), else as a whole token.

    ``anywhere`` holds texts where only a long key is looked for (raw store pages: compressed bytes would match a
    short token by chance; their content is checked decompressed in ``named``).
    """
    found = []
    if len(key) >= MIN_SECRET_LENGTH:
        forms = _encoded_forms(key)
        for where, data in {**named, **(anywhere or {})}.items():
            for form in forms:
                at = data.find(form)
                if at >= 0:
                    found.append(f"{where}: {data[max(0, at - 60) : at + len(form) + 20]!r}")
                    break
    else:
        for where, data in named.items():
            hit = _token_hit(key, data)
            if hit:
                found.append(f"{where}: {data[max(0, hit.start() - 60) : hit.end() + 20]!r}")
    return found


def store_texts(path: Path) -> dict[str, bytes]:
    """A store's content as it would be read: every cell of every table, and every body decompressed."""
    texts: dict[str, bytes] = {}
    with contextlib.closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as conn:
        tables = [row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
        for table in tables:
            cells = []
            for row in conn.execute(f'SELECT * FROM "{table}"'):
                for cell in row:
                    if isinstance(cell, str):
                        cells.append(cell.encode("utf-8"))
                    elif cell is not None and not isinstance(cell, bytes):
                        cells.append(str(cell).encode())
            texts[f"{path.name}:{table}"] = b"\n".join(cells)
    with Store(path, readonly=True) as store:
        bodies = []
        for name in store.snapshot_names():
            for item in store.interactions(name):
                bodies.append(store.body(item.body_digest))
        texts[f"{path.name}:bodies"] = b"\n".join(bodies)
    return texts


def files_under(folder: Path) -> tuple[dict[str, bytes], dict[str, bytes]]:
    """(files read as they are, raw SQLite files and their -wal): every byte written under ``folder``."""
    plain, raw = {}, {}
    for file in sorted(p for p in folder.rglob("*") if p.is_file()):
        data = file.read_bytes()
        name = str(file.relative_to(folder))
        if data.startswith(b"SQLite format 3") or file.name.endswith(("-wal", "-shm", "-journal")):
            raw[name] = data
        else:
            plain[name] = data
    return plain, raw


# -- the property over keys, through the real recorder -------------------------------
keys = st.text(alphabet=st.sampled_from(KEY_ALPHABET), min_size=1, max_size=200)


def _echo_transport(key: str) -> httpx.MockTransport:
    """An API that echoes the caller's key back in every form, in a JSON body and an XML body (UTF-8 and CP949)."""
    forms = echo_forms(key)

    def handler(request: httpx.Request) -> httpx.Response:
        if request.url.path.endswith(".xml"):
            items = "".join(f"<link>/detail?OC={form}&amp;n={i}</link><v>{form}</v>" for i, form in enumerate(forms))
            encoding = "cp949" if "cp949" in request.url.path else "utf-8"
            text = f'<?xml version="1.0" encoding="{encoding}"?><r>{items}</r>'
            try:
                body = text.encode(encoding)
            except UnicodeEncodeError:
                body, encoding = text.replace(encoding, "utf-8", 1).encode(), "utf-8"
            return httpx.Response(200, content=body, headers={"content-type": f"application/xml;charset={encoding}"})
        # the forms as the platform would write them (already escaped for JSON), not re-escaped here
        items = ", ".join(f'{{"link": "/detail?OC={form}&n={i}", "v": "{form}"}}' for i, form in enumerate(forms))
        return httpx.Response(
            200, content=f'{{"items": [{items}]}}'.encode(), headers={"content-type": "application/json"}
        )

    return httpx.MockTransport(handler)


def record_everywhere(key: str, folder: Path, catalog) -> tuple[dict[str, bytes], dict[str, bytes], list]:
    """Record the CALLS with ``key`` (and an echoing API), seal, replay a miss; (texts, raw files, results)."""
    store_path = folder / "cassettes" / "kopa.sqlite"
    with open_source("sim", snapshot="2026-09-01", mode="record", store=store_path, catalog=catalog) as source:
        results = [call_tool(catalog, name, args, source) for name, args in CALLS]
    # a platform echoing the key in every form, recorded by the real recorder
    with Store(store_path) as store:
        transport = RecordTransport(_echo_transport(key), store, "echo", "record", redactor_for(catalog, [key]))
        with httpx.Client(transport=transport) as client:
            for path in ("/a.json", "/a.xml", "/a-cp949.xml"):
                client.get(f"https://echo.example{path}?" + urlencode({"OC": key}), extensions={"kopa_secrets": (key,)})
                client.get(f"https://echo.example/{quote(key, safe='')}{path}", extensions={"kopa_secrets": (key,)})
        manifest = seal_snapshot(store, "2026-09-01", catalog, tool_digests=tool_schema_digests)
        store.finalize()
    messages = [json.dumps(manifest, ensure_ascii=False)]
    # strict replay with the key in hand: each call that misses names its request — redacted
    with open_source("sim", snapshot="2026-09-01", mode="replay", store=store_path, catalog=catalog) as source:
        for name, args in [
            ("dart_company", {"corp_code": "99999999"}),
            ("seoul_card_subway_stats_new", {"USE_YMD": "20260826", "START": 1, "END": 3}),
            ("law_search_law", {"query": "자동차관리법"}),
            ("krx_stk_bydd_trd", {"basDd": "20260828"}),
        ]:
            with pytest.raises(CassetteMiss) as miss:
                call_tool(catalog, name, args, source)
            messages.append(str(miss.value))
    texts = {"messages": "\n".join(messages).encode()}
    texts.update({f"result {r.tool}": json.dumps([r.url, r.to_dict()], ensure_ascii=False).encode() for r in results})
    texts.update(store_texts(store_path))
    plain, raw = files_under(folder)
    texts.update(plain)
    return texts, raw, results


#: KOPA_SECRET_EXAMPLES=400 for a longer search (≈ 60 s)
@settings(
    max_examples=int(os.environ.get("KOPA_SECRET_EXAMPLES", 40)),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(key=keys)
# a key that is also a path segment (Seoul's START=1, its format segment json), a lone slash, ampersand or equals
# sign, a Hangul key (two bytes in CP949), and the nasty key of the pipeline run
@example(key="1")
@example(key="json")
@example(key="/")
@example(key="&")
@example(key="=")
@example(key="키")
@example(key=NASTY_KEY)
def test_any_key_never_reaches_store_manifest_log_or_message(key, catalog, monkeypatch, caplog):
    monkeypatch.setenv("KOPA_API_KEY", key)  # the simulator accepts it and the source sends it
    caplog.clear()
    caplog.set_level(logging.DEBUG)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        texts, raw, results = record_everywhere(key, folder, catalog)
        assert [r.outcome for r in results] == ["ok"] * len(CALLS), [(r.tool, r.code, r.message) for r in results]
        assert (manifest_dir_for(folder / "cassettes" / "kopa.sqlite") / "2026-09-01.json").exists()
        texts["log"] = "\n".join(f"{r.name} {r.getMessage()}" for r in caplog.records).encode()
        assert not leaks(key, texts, anywhere=raw)
        # usable: the snapshot replays offline, with no key in the environment, to the very same results
        monkeypatch.delenv("KOPA_API_KEY")
        with open_source(
            "replay", snapshot="2026-09-01", store=folder / "cassettes" / "kopa.sqlite", catalog=catalog
        ) as source:
            replayed = [call_tool(catalog, name, args, source) for name, args in CALLS]
        assert [r.to_dict() for r in replayed] == [r.to_dict() for r in results]


@pytest.mark.parametrize("key", ["a-long-law-oc", "o&/"], ids=["long", "short"])
def test_a_call_without_a_recorder_returns_no_echoed_key(key, catalog, monkeypatch):
    """call_tool on a bare source (what `showcase` and the pytest plugin use): law.go.kr's links come back masked."""
    monkeypatch.setenv("KOPA_API_KEY", key)
    with open_source("sim") as source:
        result = call_tool(catalog, "law_search_law", {"query": "도로교통법"}, source)
    links = [record["법령상세링크"] for record in result.records]
    assert links and all(link.startswith("/DRF/lawService.do?OC=***&target=law") for link in links), links
    assert not leaks(key, {"records": json.dumps(result.to_dict(), ensure_ascii=False).encode()})


def test_a_key_outside_ascii_travels_in_a_header_over_http(catalog, monkeypatch):
    """KRX's AUTH_KEY header with Hangul in it: sent as UTF-8 bytes, read back as such by `sim serve`."""
    from kopa_replay.sim import Simulator, running_server

    monkeypatch.setenv("KOPA_API_KEY", "키-인증&값")
    with running_server(Simulator(seed=0)) as url, open_source(url) as source:
        result = call_tool(catalog, "krx_stk_bydd_trd", {"basDd": "20260831"}, source)
    assert result.outcome == "ok" and result.records, (result.code, result.message)


@pytest.mark.parametrize("key", [NASTY_KEY, "o&/"], ids=["nasty", "short"])
def test_a_key_a_server_echoes_in_response_headers_never_reaches_a_debug_log(key, caplog):
    """httpcore logs response headers at DEBUG on its own module loggers: a redirect or a cookie with the key."""
    import threading
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    from kopa_replay.record.redact import install_log_filter, register_secret

    class Echo(BaseHTTPRequestHandler):
        def do_GET(self):  # noqa: N802 - stdlib name
            self.send_response(200)
            self.send_header("x-echo", key.encode().decode("latin-1"))  # the raw UTF-8 bytes
            self.send_header("location", "https://h/next?OC=" + quote(key, safe="") + "&n=1")
            self.send_header("content-length", "2")
            self.end_headers()
            self.wfile.write(b"{}")

        def log_message(self, *args):
            return

    server = ThreadingHTTPServer(("127.0.0.1", 0), Echo)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    install_log_filter()
    register_secret(key)
    caplog.set_level(logging.DEBUG)
    try:
        with httpx.Client() as client:
            client.get(f"http://127.0.0.1:{server.server_address[1]}/{quote(key, safe='')}/x?key={quote(key)}")
    finally:
        server.shutdown()
        server.server_close()
    log = "\n".join(f"{r.name} {r.getMessage()}" for r in caplog.records)
    assert "httpcore.http11" in log and "receive_response_headers" in log
    assert not leaks(key, {"log": log.encode()})


def test_a_key_in_a_kept_response_header_never_reaches_the_store(tmp_path):
    key = "secret-key-123"

    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(
            200,
            content=b"{}",
            headers={"content-type": "application/json", "content-disposition": f'attachment; filename="{key}.json"'},
        )

    with Store(tmp_path / "s.sqlite") as store:
        transport = RecordTransport(httpx.MockTransport(handler), store, "x", "record", redactor_for(None, [key]))
        with httpx.Client(transport=transport) as client:
            answer = client.get(f"https://a.example/x?serviceKey={key}", extensions={"kopa_secrets": (key,)})
        store.finalize()
    assert not leaks(key, {"answer": str(answer.headers).encode(), **store_texts(tmp_path / "s.sqlite")})


def test_a_short_key_is_masked_as_a_whole_token_only():
    from kopa_replay.record.redact import Redactor

    redactor = Redactor(secret_values=("abc",))
    body = (
        '{"link": "/DRF/lawService.do?OC=abc&target=law", "x": "OC=abcd", "y": "xabc the abc", '
        '"t": "application/abc", "u": "https://h/p/abc/q?n=abc#f"}'
    ).encode()
    assert (
        redactor.scrub_bytes(body)
        == (
            '{"link": "/DRF/lawService.do?OC=***&target=law", "x": "OC=abcd", '
            '"y": "xabc the abc", "t": "application/abc", '
            '"u": "https://h/p/***/q?n=***#f"}'
        ).encode()
    )
    assert Redactor(secret_values=("a&b",)).scrub_text("x?OC=a&amp;b&amp;n=1") == "x?OC=***&amp;n=1"


def test_a_short_path_key_equal_to_another_segment_keeps_the_request_identity(catalog):
    """Seoul with a key "1" and START=1: the stored URL masks both, the identity only the key's segment — so the
    snapshot replays with any other key (the one replay sends) in the key's place."""
    from kopa_replay.record.redact import redactor_for

    recorded = "http://openapi.seoul.go.kr:8088/1/json/CardSubwayStatsNew/1/3/20260825//"
    replayed = recorded.replace("/1/json/", "/kopa-replay-offline/json/")
    short, offline = redactor_for(catalog, ["1"]), redactor_for(catalog, ["kopa-replay-offline"])
    assert short.redact_url(recorded) == "http://openapi.seoul.go.kr:8088/***/json/CardSubwayStatsNew/***/3/20260825//"
    assert short.request_key("GET", recorded) == offline.request_key("GET", replayed)
    assert offline.request_key("GET", replayed) != offline.request_key("GET", replayed.replace("/1/3/", "/2/3/"))


def test_the_property_sees_a_leak_when_there_is_one():
    """The checker itself: an echo form anywhere (long key), a whole token (short key); not a short key in a word."""
    long_key = 'a&"b/=한글'
    assert leaks(long_key, {"x": b'{"link": "?OC=a&\\"b/=\xed\x95\x9c\xea\xb8\x80"}'})
    assert leaks(long_key, {"x": "a&amp;&quot;b/=한글".encode("cp949")})
    assert leaks(long_key, {"x": quote(long_key, safe="").lower().encode()})
    assert not leaks(long_key, {"x": b"OC=***&n=1"})
    assert leaks("k9", {"x": b"/DRF/lawService.do?OC=k9&target=law"})
    assert leaks("k9", {"x": b"GET https://openapi.seoul.go.kr:8088/k9/json/X/1/3"})
    assert leaks("/", {"x": b"https://h/p/%2F/json"})
    assert leaks("/", {"x": b'"/DRF/lawService.do?OC=/&target=law"'})
    assert not leaks("k9", {"x": b"speak9 k9x abk9 /k9/ (a relative path)"})
    assert not leaks("json", {"x": b'{"content-type": "application/json"}'})
    assert not leaks("/", {"x": b"https://h/p//q"})


# -- the whole pipeline, through the CLI ---------------------------------------------
#: a few benchmark tasks whose calls carry every kind of key: query (DART, law.go.kr, whose answers echo OC),
#: header (KRX), path (Seoul)
BENCH_TASKS = [
    "--task",
    "kopa-law-family-articles-1",
    "--task",
    "kopa-finance-cbprem-1",
    "--task",
    "kopa-district-subway-day-1",
]


def _cli(outputs: list[bytes], *args: str, exit_codes=(0,)):
    from click.testing import CliRunner

    from kopa_replay.cli import cli

    result = CliRunner().invoke(cli, list(args), catch_exceptions=False)
    outputs.append(result.output.encode())
    with contextlib.suppress(ValueError, AttributeError):
        outputs.append(result.stderr.encode())
    assert result.exit_code in exit_codes, (args, result.output[-2000:])
    return result


@pytest.mark.slow
@pytest.mark.parametrize("key", [NASTY_KEY, "o&/"], ids=["nasty", "short"])
def test_no_key_escapes_record_graph_synth_filter_bench_or_call(key, tmp_path, monkeypatch, caplog):
    """record → graph prune → synth → filter → bench run, and call --json, with a key in KOPA_API_KEY: every
    byte written under the run's folder, everything printed and every log record at DEBUG is free of it."""
    from kopa_replay.sim import Simulator, running_server

    monkeypatch.setenv("KOPA_API_KEY", key)
    monkeypatch.chdir(tmp_path)  # anything written to the working directory is scanned too
    caplog.set_level(logging.DEBUG)
    store = tmp_path / "cassettes" / "kopa.sqlite"
    out: list[bytes] = []
    record = json.loads(
        # --bench: the suite's simulator is the small world, where a plain record leaves the full world's tasks out
        _cli(
            out, "record", "--source", "sim", "--snapshot", "2026-09-01", "--store", str(store), "--bench", "--json"
        ).output
    )
    # the key works on every platform: a refused key would be an environmental error. (On this small world many of
    # the full-size world's benchmark calls find no such entity: "empty" answers, each one the key got through.)
    answered = record["outcomes"]["ok"] + record["outcomes"].get("empty", 0)
    assert "environmental_error" not in record["outcomes"] and answered > 0.9 * record["calls"]
    _cli(
        out,
        "graph",
        "prune",
        "--run-dir",
        str(tmp_path / "graph"),
        "--iterations",
        "4",
        "--paths",
        "100",
        "--no-plots",
        "--json",
    )
    synth = json.loads(
        _cli(
            out,
            "synth",
            "--graph-dir",
            str(tmp_path / "graph"),
            "--out",
            str(tmp_path / "synth"),
            "--trajectories",
            "12",
            "--json",
        ).output
    )
    assert synth["trajectories"] > 0
    _cli(out, "filter", "--in", str(tmp_path / "synth"), "--json")
    for source in ("sim", "replay"):  # the simulator answers with the key; the snapshot with none at all
        report = json.loads(
            _cli(
                out,
                "bench",
                "run",
                "--agent",
                "oracle",
                "--source",
                source,
                "--store",
                str(store),
                "--out",
                str(tmp_path / "bench" / source),
                "--json",
                *BENCH_TASKS,
            ).output
        )
        # on the simulator the tasks' own world answers; the snapshot holds the small world's answers to the
        # same plans: it runs every call, but the numbers are another world's
        assert report["pass_at_1"]["combined"] == 1.0 or source == "replay", report
    law = ("call", "law_search_law", "--arg", "query=도로교통법", "--json")
    seoul = (
        "call",
        "seoul_card_subway_stats_new",
        "--arg",
        "USE_YMD=20260825",
        "--arg",
        "START=1",
        "--arg",
        "END=3",
        "--json",
    )
    krx = ("call", "krx_stk_bydd_trd", "--arg", "basDd=20260831", "--json")
    for command in (law, seoul, krx):
        assert json.loads(_cli(out, *command).output)["outcome"] == "ok"
    # over a real loopback server too (httpcore logs at DEBUG; the header key goes as UTF-8 bytes on the wire)
    with running_server(Simulator(seed=0)) as url:
        for command in (law, seoul, krx):
            assert json.loads(_cli(out, *command, "--source", url).output)["outcome"] == "ok"
    # strict replay with the key in hand: the miss is an error message naming the (redacted) request
    miss = _cli(
        out,
        "call",
        "seoul_card_subway_stats_new",
        "--arg",
        "USE_YMD=20260826",
        "--arg",
        "START=1",
        "--arg",
        "END=3",
        "--snapshot",
        "2026-09-01",
        "--store",
        str(store),
        "--mode",
        "replay",
        exit_codes=(1,),
    )
    assert "cassette miss" in miss.output and "/***/" in miss.output

    plain, raw = files_under(tmp_path)
    assert any(name.startswith("synth") for name in plain) and any(name.startswith("bench") for name in plain)
    texts = {
        **plain,
        **store_texts(store),
        "cli output": b"\n".join(out),
        "log": "\n".join(f"{r.name} {r.getMessage()}" for r in caplog.records).encode(),
    }
    assert caplog.records and any("openapi.seoul.go.kr" in r.getMessage() for r in caplog.records)
    assert not leaks(key, texts, anywhere=raw)
