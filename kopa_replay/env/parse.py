"""Turn a platform response into records, a total count and a result code.

Pure functions over bytes: sniff the format (ZIP, XML, JSON — the data.go.kr
gateway answers XML even when JSON was asked), convert XML to the same nested
shape as JSON (root element as the top key, repeated elements as lists,
attributes as ``@name``), then read the catalog envelope's paths.
"""

from __future__ import annotations

import codecs
import functools
import io
import json
import re
import threading
import zipfile
from collections import OrderedDict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any
from xml.etree import ElementTree

import orjson

from kopa_replay.catalog.model import Tool

__all__ = [
    "MISSING",
    "Parsed",
    "declared_charset",
    "decode_text",
    "parse_body",
    "parse_body_shared",
    "forget_shared",
    "xml_to_dict",
    "lookup",
    "first_present",
    "extract",
    "ParseError",
]


class ParseError(ValueError):
    """The body is not JSON, XML or a ZIP of XML."""


# A declared charset: the XML declaration, an HTML meta tag, or a Content-Type header's parameter.
_DECLARED = (
    re.compile(rb"""^\s*<\?xml[^>]*?encoding\s*=\s*["']([A-Za-z0-9._-]+)["']"""),
    re.compile(rb"""<meta[^>]+charset\s*=\s*["']?([A-Za-z0-9._-]+)""", re.IGNORECASE),
)
_HEADER_CHARSET = re.compile(r"charset\s*=\s*[\"']?([A-Za-z0-9._-]+)", re.IGNORECASE)
# Korean servers that say EUC-KR send CP949, its superset (똠, 햏 … are CP949 only).
_SUPERSETS = {
    "euc-kr": "cp949",
    "euckr": "cp949",
    "ks_c_5601-1987": "cp949",
    "ksc5601": "cp949",
    "x-windows-949": "cp949",
}


def declared_charset(body: bytes, content_type: str | None = None) -> str | None:
    """The charset a response declares for itself (body declaration first, then the header), as Python names it."""
    found = None
    for pattern in _DECLARED:
        match = pattern.search(body[:1024])
        if match:
            found = match.group(1).decode("ascii")
            break
    if found is None and content_type:
        header_match = _HEADER_CHARSET.search(content_type)
        found = header_match.group(1) if header_match else None
    if found is None:
        return None
    name = _SUPERSETS.get(found.lower(), found.lower())
    try:
        return codecs.lookup(name).name
    except LookupError:
        return None


def decode_text(body: bytes, content_type: str | None = None) -> str:
    """The declared charset when there is one; else UTF-8 (with or without BOM), falling back to CP949 as some
    platforms still send."""
    return _decoded(body, declared_charset(body, content_type))


def _decoded(body: bytes, declared: str | None) -> str:
    for encoding in ((declared,) if declared else ()) + ("utf-8-sig", "cp949"):
        try:
            return body.decode(encoding)
        except UnicodeDecodeError:
            continue
    return body.decode("utf-8", errors="replace")


def _element(node: ElementTree.Element) -> Any:
    # Attributes are read with items(), not .attrib: reading .attrib of an element without any makes it an empty
    # dict (and its extra record) to hand back, for every leaf of a thousand-record page.
    attributes = node.items()
    text = node.text or ""
    if not len(node) and not attributes:
        # Keep a whitespace-only value as sent: " " is how the platforms write "empty".
        return text.strip() or text
    out: dict[str, Any] = {f"@{k}": v for k, v in attributes}
    for child in node:
        if len(child) or child.items():
            value = _element(child)  # a string or a dict, never a list
        else:  # a leaf, as most of a record's fields are: _element's first case without the call (large documents)
            leaf = child.text or ""
            value = leaf.strip() or leaf
        tag = child.tag.strip()
        if tag not in out:
            out[tag] = value
        elif isinstance(out[tag], list):
            out[tag].append(value)
        else:
            out[tag] = [out[tag], value]
    if text.strip():
        out["#text"] = text.strip()
    return out


def xml_to_dict(text: str | bytes) -> dict[str, Any]:
    """XML to ``{root_tag: {...}}``; raises ParseError on malformed XML.

    Bytes are decoded here by their declared charset: expat itself reads no multi-byte encoding but UTF-8/16,
    so an ``encoding="EUC-KR"`` document is parsed as the text it decodes to.
    """
    try:
        root = ElementTree.fromstring(decode_text(text) if isinstance(text, bytes) else text)
    except (ElementTree.ParseError, ValueError) as exc:
        raise ParseError(f"malformed XML: {exc}") from exc
    return {root.tag: _element(root)}


#: what :func:`lookup` returns for a path the document does not have (``None`` is a real JSON value)
MISSING = object()
_MISSING = MISSING

#: every digit as "0", everything else as it is: a run of :data:`_LONG_DIGITS` in the translation is a number that
#: may not fit 64 bits (or a string of digits, which costs nothing but the faster parser)
_DIGITS_AS_ZERO = bytes(0x30 if 0x30 <= byte <= 0x39 else byte for byte in range(256))
_LONG_DIGITS = b"0" * 19


def _json_by_orjson(body: bytes, bom: bool) -> Any:
    """The JSON object or array in a UTF-8 ``body``, read by orjson (half the time of ``json.loads``, and no
    decode to ``str`` first); :data:`MISSING` wherever the stdlib's reading might differ or fail, so the caller
    reads the body as before and says why it cannot. ``bom``: a leading byte-order mark is dropped, as the
    ``utf-8-sig`` decode of a body that declares no charset drops it (one declared UTF-8 keeps it, and fails).

    orjson refuses what the stdlib takes outside strict JSON (NaN, Infinity, 1e400, a lone surrogate escape,
    invalid UTF-8 that CP949 may still read) — a refusal here is no verdict. The one value it reads *otherwise*:
    an integer past 64 bits, which it makes a float; a body with 19 digits in a row never comes this way. It reads
    up to 1,024 levels of nesting, where the stdlib stops short of the interpreter's recursion limit (≈990 levels
    at the top of the stack): between the two, a body the stdlib could not read (a RecursionError) reads.
    """
    if body[:3] == codecs.BOM_UTF8:
        if not bom:
            return MISSING
        body = body[3:]
    body = body.lstrip()
    if body[:1] not in (b"{", b"[") or _LONG_DIGITS in body.translate(_DIGITS_AS_ZERO):
        return MISSING
    try:
        return orjson.loads(body)
    except orjson.JSONDecodeError:
        return MISSING


def parse_body(body: bytes, zip_member: str | None = None, content_type: str | None = None) -> Any:
    """The response body as JSON-shaped data, whatever format and charset it came in; :class:`ParseError` for a
    body that is none of them, or nested deeper than this interpreter can read."""
    try:
        return _parsed(body, zip_member, content_type)
    except RecursionError:  # a hostile or broken body, not a crash: said like any other unreadable one
        raise ParseError("nested too deeply to read") from None


def _parsed(body: bytes, zip_member: str | None, content_type: str | None) -> Any:
    if body[:2] == b"PK":
        try:
            with zipfile.ZipFile(io.BytesIO(body)) as archive:
                names = archive.namelist()
                member = zip_member if zip_member in names else (names[0] if names else None)
                if member is None:
                    raise ParseError("empty ZIP archive")
                return xml_to_dict(archive.read(member))
        except zipfile.BadZipFile as exc:
            raise ParseError(f"malformed ZIP: {exc}") from exc
    declared = declared_charset(body, content_type)
    if declared is None or declared == "utf-8":
        doc = _json_by_orjson(body, bom=declared is None)
        if doc is not MISSING:
            return doc
    text = _decoded(body, declared).lstrip()
    if text.startswith("<"):
        return xml_to_dict(text)
    try:
        return json.loads(text) if text else None
    except json.JSONDecodeError as exc:
        raise ParseError(f"malformed JSON at line {exc.lineno} column {exc.colno}") from exc


#: the documents parse_body_shared made last, by their exact bytes, and the body bytes they hold in all
_SHARED: OrderedDict[tuple[bytes, str | None, str | None], Any] = OrderedDict()
_SHARED_BYTES = [0]
_SHARED_LOCK = threading.Lock()
#: how many body bytes of documents are kept (a DART corpCode ZIP is 2.3 MB and parses to ~100k records)
SHARED_BODY_BUDGET = 16 << 20


def parse_body_shared(body: bytes, zip_member: str | None = None, content_type: str | None = None) -> Any:
    """:func:`parse_body`, the document shared with every caller that parses the same bytes: read it, never edit it.

    A recording asks some requests many times (every task that names a company fetches DART's corpCode ZIP), and
    the recorder's retry check, the environment and the drift all read each answer; the bytes are parsed once."""
    key = (body, zip_member, content_type)
    with _SHARED_LOCK:
        doc = _SHARED.get(key, MISSING)
        if doc is not MISSING:
            _SHARED.move_to_end(key)
            return doc
    doc = parse_body(body, zip_member, content_type)
    with _SHARED_LOCK:
        if key not in _SHARED:
            _SHARED[key] = doc
            _SHARED_BYTES[0] += len(body)
        while _SHARED_BYTES[0] > SHARED_BODY_BUDGET and len(_SHARED) > 1:
            (dropped, _, _), _ = _SHARED.popitem(last=False)
            _SHARED_BYTES[0] -= len(dropped)
    return doc


def forget_shared() -> None:
    """Empty the documents :func:`parse_body_shared` keeps: the next read of any body parses it, as in a fresh
    process (what a cold benchmark must pay)."""
    with _SHARED_LOCK:
        _SHARED.clear()
        _SHARED_BYTES[0] = 0


@functools.lru_cache(maxsize=4096)
def _path_parts(path: str) -> tuple[str, ...]:
    """A dot path's segments: an envelope's few paths are read on every answer, split once."""
    return tuple(path.split("."))


def lookup(doc: Any, path: str) -> Any:
    """The value at a dot path (integers index lists); ``_MISSING`` when absent."""
    if path in (".", ""):
        return doc
    node, parts = doc, _path_parts(path)
    at, end = 0, len(parts)
    while at < end:
        part = parts[at]
        at += 1
        if node.__class__ is dict or isinstance(node, Mapping):
            # a key with dots in it: Seoul's "SeoulRtd.citydata_ppltn", "RESULT.CODE"
            while part not in node and at < end:
                part += "." + parts[at]
                at += 1
            if part not in node:
                return _MISSING
            node = node[part]
        elif isinstance(node, list) and part.lstrip("-").isdigit():
            index = int(part)
            if not -len(node) <= index < len(node):
                return _MISSING
            node = node[index]
        else:
            return _MISSING
    return node


def first_present(doc: Any, paths: Iterable[str]) -> tuple[str | None, Any]:
    """(path, value) of the first of ``paths`` present in ``doc``; ``(None, MISSING)`` when none is."""
    for path in paths:
        value = lookup(doc, path)
        if value is not MISSING:
            return path, value
    return None, MISSING


def _first(doc: Any, paths: Iterable[str]) -> Any:
    return first_present(doc, paths)[1]


def _records(value: Any) -> list[dict[str, Any]]:
    """Normalize the envelope quirks: one record as an object, none as "" or null."""
    if value is _MISSING or value is None or value == "":
        return []
    if isinstance(value, Mapping):
        return [dict(value)]
    if isinstance(value, list):
        # dict.copy for the plain dicts parsers make: a page of thousands of records is copied on every read
        return [v.copy() if v.__class__ is dict else dict(v) if isinstance(v, Mapping) else {"value": v} for v in value]
    return [{"value": value}]


@dataclass(frozen=True)
class Parsed:
    records: list[dict[str, Any]]
    total: int | None
    code: str | None
    message: str | None


def _scalar(value: Any) -> str | None:
    if value is _MISSING or value is None:
        return None
    if isinstance(value, Mapping):
        return str(value.get("#text")) if "#text" in value else None
    return str(value).strip()


def extract(tool: Tool, doc: Any) -> Parsed:
    """Records, total count, code and message of a parsed response, per the tool's envelope."""
    envelope = tool.http.envelope
    code = _scalar(_first(doc, envelope.code))
    message = _scalar(_first(doc, envelope.message))
    records = _records(_first(doc, envelope.records))
    if envelope.records == (".",) and records:
        # A one-object response (DART company.json): the status fields are not part of the record.
        status_keys = {p.split(".")[-1] for p in envelope.code + envelope.message}
        records = (
            [{k: v for k, v in records[0].items() if k not in status_keys}]
            if code is None or tool.http.classify_code(code) == "ok"
            else []
        )
    total_text = _scalar(_first(doc, envelope.total))
    try:
        total = int(str(total_text).replace(",", "")) if total_text not in (None, "") else None
    except ValueError:
        total = None
    return Parsed(records, total, code, message)
