"""A key echoed back in any form a platform may use never reaches a stored body or a redacted text."""

from __future__ import annotations

import json
import re
from urllib.parse import quote, quote_plus
from xml.sax.saxutils import escape

from hypothesis import given, settings
from hypothesis import strategies as st

from kopa_replay.record.redact import MIN_SECRET_LENGTH, Redactor

KEY_ALPHABET = st.sampled_from(list("abcXYZ0189&\"\\<>%+/= '한글키"))
KEYS = st.text(alphabet=KEY_ALPHABET, min_size=MIN_SECRET_LENGTH, max_size=200).filter(lambda k: k.strip())

ECHOES = {
    "plain": lambda k: k,
    "percent": lambda k: quote(k, safe=""),
    "percent-plus": lambda k: quote_plus(k, safe=""),
    "percent-lower": lambda k: re.sub(r"%[0-9A-F]{2}", lambda m: m.group(0).lower(), quote(k, safe="")),
    "json": lambda k: json.dumps(k, ensure_ascii=False)[1:-1],
    "json-ascii": lambda k: json.dumps(k)[1:-1],
    "xml": lambda k: escape(k, {'"': "&quot;", "'": "&#39;"}),
    "xml-text": lambda k: escape(k),
}


@settings(max_examples=150, deadline=None)
@given(KEYS, st.sampled_from(sorted(ECHOES)), st.sampled_from(["utf-8", "cp949"]))
def test_an_echoed_key_in_any_form_is_masked_in_bodies(key, form, encoding):
    echoed = ECHOES[form](key)
    try:
        body = f"<r><link>https://x/?OC={echoed}&amp;q=1</link><v>{echoed}</v></r>".encode(encoding)
    except UnicodeEncodeError:
        return
    scrubbed = Redactor(secret_values=(key,)).scrub_bytes(body)
    assert echoed.encode(encoding) not in scrubbed
    assert key.encode("utf-8") not in scrubbed
    assert scrubbed.count(b"***") >= 2


@settings(max_examples=100, deadline=None)
@given(KEYS, st.sampled_from(sorted(ECHOES)))
def test_an_echoed_key_in_any_form_is_masked_in_text(key, form):
    text = f"Error: upstream said {ECHOES[form](key)!s} for request https://h/p?serviceKey={quote(key, safe='')}"
    scrubbed = Redactor(secret_values=(key,)).redact_url("https://h/p?x=1") + Redactor(secret_values=(key,)).scrub_text(
        text
    )
    assert ECHOES[form](key) not in scrubbed and key not in scrubbed
