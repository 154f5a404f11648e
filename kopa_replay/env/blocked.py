"""Answers that are not the platform's answer: a wall, a page or nothing where the catalog expects data.

A bot wall (403 HTML to a script's User-Agent), a refusal for a missing Referer, a JavaScript challenge, a
notice page, an empty 200 or a document with none of the envelope's fields: none of them says anything about the
request or the API. They are ``blocked``, told apart from the catalog's own description of the tool — the format
it answers in and the envelope paths where its records, total and code live — never from the platform's wording.
A reader that took one for data would report "0 results" (an empty body reads as an empty list), or a broken
binding (an HTML page does not parse as JSON); the pruner would cut a sound link for it and a refresh would seal
it as the tool's answer.

Pure functions of (tool, status, body): :func:`blocked_body` before the body is parsed, :func:`hollow_document`
after.
"""

from __future__ import annotations

import html
import re
from typing import Any

from kopa_replay.catalog.model import Tool
from kopa_replay.env.parse import MISSING, lookup

__all__ = ["blocked_body", "hollow_document", "html_page", "is_html", "may_be_blocked"]

_TITLE = re.compile(rb"<title[^>]*>(.*?)</title", re.IGNORECASE | re.DOTALL)
_CHALLENGE = re.compile(rb"<script\b[^>]*>[^<]*(location\s*\.\s*(replace|href|assign)|document\s*\.\s*cookie)", re.I)
#: an HTML page's start, after an XML prolog and comments a proxy may put first: a document, or the bare tags a
#: wall's page may start with (a script challenge, a meta refresh)
_HTML_START = re.compile(
    rb"^\s*(<\?xml[^>]*>\s*)?(<!--.*?-->\s*)*"
    rb"(<!doctype\s+html|<html[\s>/]|<head[\s>]|<body[\s>]|<script[\s>]|<noscript[\s>]|<meta[\s>]|<title[\s>])",
    re.IGNORECASE | re.DOTALL,
)
#: statuses a wall refuses with: whatever their body, it is not the platform's answer when it is not data
_REFUSALS = (401, 403, 407)
#: refusals whose plain-text body is a wall's; a plain-text 401 is the platform's word on the key (data.go.kr
#: answers an unregistered key "Unauthorized"): environmental, as the catalog's statuses say
_TEXT_REFUSALS = (403, 407)
_SNIPPET_CHARS = 40
_TITLE_CHARS = 60


def may_be_blocked(status: int) -> bool:
    """Statuses a wall answers with: a 2xx/3xx where data was expected, or 401/403/407 (a bot wall's refusal).
    A 5xx or 429 is the platform saying it failed (environmental); any other 4xx is about the request."""
    return status < 400 or status in _REFUSALS


def _expected(tool: Tool) -> str:
    return tool.http.format.upper()


def _html_is_data(tool: Tool) -> bool:
    """Whether the tool's answer is an HTML page (its envelope reads an ``html`` root: law.go.kr's history pages)."""
    envelope = tool.http.envelope
    return any(path.split(".")[0].lower() == "html" for path in envelope.records + envelope.total)


def _title(body: bytes) -> str:
    found = _TITLE.search(body[:4096])
    if not found:
        return ""
    text = " ".join(html.unescape(found.group(1).decode("utf-8", "replace")).split())
    return text if len(text) <= _TITLE_CHARS else text[: _TITLE_CHARS - 1] + "…"


def is_html(body: bytes) -> bool:
    """Whether a body is an HTML page (a doctype, an ``<html>``, ``<head>`` or ``<body>`` start, after an XML
    prolog or comments)."""
    return _HTML_START.match(body[:2048].lstrip(b"\xef\xbb\xbf")) is not None


def html_page(body: bytes, status: int) -> str:
    """How evidence names an HTML page: its status and title."""
    title = _title(body)
    return f"an HTML page (HTTP {status}{f', title {title!r}' if title else ''})"


def blocked_body(tool: Tool, status: int, body: bytes, *, unparsed: bool = False) -> str | None:
    """The evidence that ``body`` is no answer of ``tool`` (an empty body, an HTML page or a script challenge
    where the catalog expects JSON/XML), or None. Only for statuses :func:`may_be_blocked` admits.

    A tool whose answer is an HTML page is read first (its page is data); ``unparsed`` says the page did not
    parse, so it is not the tool's page either."""
    if not may_be_blocked(status):
        return None
    expected = _expected(tool)
    if not body.lstrip(b"\xef\xbb\xbf \t\r\n"):
        return f"an empty body (HTTP {status}) where {expected} was expected"
    head = body[:2048].lstrip(b"\xef\xbb\xbf")
    if not is_html(head):
        if unparsed and status in _TEXT_REFUSALS:  # a refusal in plain text ("Forbidden"): a wall, not the API's
            snippet = " ".join(head[:200].decode("utf-8", "replace").split())[:_SNIPPET_CHARS]
            return f"a refusal that is not {expected} (HTTP {status}: {snippet!r})"
        return None
    title = _title(body)
    named = f", title {title!r}" if title else ""
    if _CHALLENGE.search(body[:8192]):
        return f"a JavaScript challenge page (HTTP {status}{named}) where {expected} was expected"
    if _html_is_data(tool) and not unparsed and status not in _REFUSALS:
        return None  # the tool's own page is read first (a refusal never is its page)
    return f"an HTML page (HTTP {status}{named}) where {expected} was expected"


def _present_depth(doc: Any, path: str) -> int:
    """How many leading segments of ``path`` the document has."""
    parts = path.split(".")
    return next((n for n in range(len(parts), 0, -1) if lookup(doc, ".".join(parts[:n])) is not MISSING), 0)


def _holds_anything(doc: Any) -> bool:
    """Whether the document holds a value anywhere: a scalar other than null and blank. ``{}``, ``[]``,
    ``{"response": null}`` and ``<response/>`` hold nothing."""
    if isinstance(doc, dict):
        return any(_holds_anything(value) for value in doc.values())
    if isinstance(doc, list):
        return any(_holds_anything(value) for value in doc)
    return doc is not None and str(doc).strip() != ""


def hollow_document(tool: Tool, status: int, doc: Any) -> str | None:
    """The evidence that a parsed document is hollow — none of what the envelope names (records, total or code
    where the catalog says they live) and nothing else either — or None. Such a document (``{}``,
    ``<response/>``) is a failure that a client reading the records path would show as "0 results"; a real empty
    answer still carries its code or its total (data.go.kr's ``totalCount`` 0, NEIS's INFO-200), and an envelope
    that moved under the catalog still holds its data (drift, read as it always was). A tool whose answer is an
    HTML page has its page when the records' container is there."""
    if status >= 400:
        return None
    envelope = tool.http.envelope
    if envelope.records == (".",):
        if doc in (None, {}, [], ""):
            return f"an empty document (HTTP {status}) where a {_expected(tool)} record was expected"
        return None
    paths = envelope.records + envelope.total + envelope.code
    if any(lookup(doc, path) is not MISSING for path in paths):
        return None
    if _html_is_data(tool):
        if any(_present_depth(doc, path) >= max(2, path.count(".")) for path in envelope.records):
            # the records' container (their parent, not just html.body) is there, empty: law.go.kr's history page
            # with an empty table; any other page (a wall's) is not the tool's
            return None
    elif _holds_anything(doc):
        return None  # an envelope renamed under the catalog (KRX's OutBlock_1 → OutBlock_2) still holds its data
    shown = ", ".join(paths[:3]) + (" …" if len(paths) > 3 else "")
    return (
        f"a document with none of the envelope's fields ({shown}) (HTTP {status}) where {_expected(tool)} was expected"
    )
