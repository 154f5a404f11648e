"""Bodies in the charset they declare: EUC-KR/CP949 XML and JSON from a real HTTP server parse the same live,
when recorded and when replayed."""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import httpx
import pytest
from hypothesis import given
from hypothesis import strategies as st

from kopa_replay.env.parse import declared_charset, parse_body
from kopa_replay.record import Store
from kopa_replay.record.transport import RecordTransport

NAME = "똠방각하 서울역 햏"  # 똠 and 햏 exist in CP949 only, not in strict EUC-KR
EXPECTED_XML = {"response": {"header": {"resultCode": "00"}, "body": {"items": {"item": {"nm": NAME}}}}}
# path -> (content type, body bytes)
PAGES = {
    "/xml-euc-kr": (
        "text/xml;charset=EUC-KR",
        (
            '<?xml version="1.0" encoding="EUC-KR"?><response><header><resultCode>00</resultCode></header>'
            f"<body><items><item><nm>{NAME}</nm></item></items></body></response>"
        ).encode("cp949"),
    ),
    "/xml-cp949-no-header": (
        "text/xml",
        (
            '<?xml version="1.0" encoding="CP949"?><response><header><resultCode>00</resultCode></header>'
            f"<body><items><item><nm>{NAME}</nm></item></items></body></response>"
        ).encode("cp949"),
    ),
    "/json-euc-kr": ("application/json; charset=EUC-KR", f'{{"nm": "{NAME}"}}'.encode("cp949")),
    "/json-utf8": ("application/json", f'{{"nm": "{NAME}"}}'.encode("utf-8")),
}


@pytest.fixture(scope="module")
def server():
    class Handler(BaseHTTPRequestHandler):
        def do_GET(self):  # noqa: N802 - http.server's name
            content_type, body = PAGES[self.path]
            self.send_response(200)
            self.send_header("content-type", content_type)
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            return

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


def _parsed(response: httpx.Response):
    return parse_body(response.content, None, response.headers.get("content-type"))


def test_korean_charsets_parse_the_same_live_recorded_and_replayed(server, tmp_path):
    store = Store(tmp_path / "kopa.sqlite")
    with httpx.HTTPTransport() as inner, httpx.Client(transport=RecordTransport(inner, store, "s", "record")) as client:
        live = {path: _parsed(client.get(server + path)) for path in PAGES}
    with httpx.Client(transport=RecordTransport(None, Store(store.path, readonly=True), "s", "replay")) as client:
        replayed = {path: _parsed(client.get(server + path)) for path in PAGES}
    assert live == replayed
    assert live["/xml-euc-kr"] == live["/xml-cp949-no-header"] == EXPECTED_XML
    assert live["/json-euc-kr"] == live["/json-utf8"] == {"nm": NAME}


def test_the_declared_charset_is_found_where_it_is_declared():
    assert declared_charset(b'<?xml version="1.0" encoding="EUC-KR"?><a/>') == "cp949"
    assert declared_charset(b"<?xml version='1.0' encoding='utf-8'?><a/>") == "utf-8"
    assert declared_charset(b'<html><meta http-equiv="Content-Type" content="text/html; charset=euc-kr">') == "cp949"
    assert declared_charset(b"{}", "application/json;charset=UTF-8") == "utf-8"
    assert declared_charset(b"{}", "application/json") is None
    assert declared_charset(b'<?xml version="1.0" encoding="no-such-codec"?><a/>') is None


@given(
    st.text(
        alphabet=st.characters(codec="cp949", exclude_categories=("Cc", "Cs"), exclude_characters="<>&"), max_size=40
    ),
    st.sampled_from(["EUC-KR", "CP949", "UTF-8"]),
)
def test_any_cp949_text_round_trips_through_a_declared_xml_body(text, declared):
    encoding = "utf-8" if declared == "UTF-8" else "cp949"
    body = f'<?xml version="1.0" encoding="{declared}"?><r><v>{text}</v></r>'.encode(encoding)
    value = parse_body(body)["r"]["v"]
    assert value.strip() == text.strip() or (not text.strip() and not value.strip())
