"""vcrpy interop: a vcrpy persister over the cassette store, and importing vcrpy YAML cassettes.

SDKs built on requests, urllib3 or aiohttp cannot take an httpx transport, but
vcrpy patches them. :class:`KopaPersister` makes vcrpy read and write our
store instead of YAML files, with the request keys and redaction of
:class:`~kopa_replay.record.RecordTransport`, so an interaction recorded
through vcrpy replays through ``RecordTransport`` and the other way round::

    import vcr
    from kopa_replay.record.vcr import kopa_cassette_path, use_kopa_store

    my_vcr = use_kopa_store(vcr.VCR(record_mode="once"))
    with my_vcr.use_cassette(kopa_cassette_path("cassettes/kopa.sqlite", "2026-09-01")):
        requests.get("https://opendart.fss.or.kr/api/company.json?crtfc_key=...&corp_code=00439743")

**Cassette path convention.** A vcrpy cassette path names the store file and
the snapshot, joined by ``::`` — ``"cassettes/kopa.sqlite::2026-09-01"``
(:func:`kopa_cassette_path` builds one). The last ``::`` splits, so the file
part may contain colons; a path without ``::`` is a :class:`UsageError`.

**Semantics.** Loading a snapshot that does not exist (or a store file that
does not exist) raises vcrpy's own ``CassetteNotFoundError``, so vcrpy's
record modes behave as with YAML files. Saving makes the snapshot hold exactly
the cassette's interactions, as vcrpy's filesystem persister rewrites the
whole file, but as a minimal change in one transaction: requests whose
recorded answers are unchanged are left alone (their tool names and row ids
survive), new answers are appended, and re-recorded or dropped requests are
replaced or removed. ``use_kopa_store`` also sets vcrpy's matching to our
request key, because stored URLs carry ``***`` where the live request carries
a key. Saving into a sealed snapshot raises :class:`SnapshotError`; note that
vcrpy's ``use_cassette`` then leaves its patches installed (its ``__exit__``
does not unpatch after a persister error), so record into unsealed snapshots.

Bodies are stored as ``RecordTransport`` stores them: decoded (a
``content-encoding`` is undone, so secrets inside can be masked and httpx does
not decode twice), secret values masked, only a few response headers kept.
Request bodies are not stored; they count only through the request key.
"""

from __future__ import annotations

import functools
import hashlib
import http
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, ClassVar
from urllib.parse import parse_qsl, urlsplit

import httpx
import yaml
from vcr.persisters.filesystem import CassetteNotFoundError
from vcr.request import Request as VcrRequest
from vcr.serializers import yamlserializer

from kopa_replay.errors import StoreError, UsageError
from kopa_replay.record.redact import Redactor, redactor_for
from kopa_replay.record.store import RecordedRow, Store
from kopa_replay.record.transport import KEPT_RESPONSE_HEADERS

__all__ = [
    "CASSETTE_SEPARATOR",
    "KOPA_MATCHER",
    "KopaPersister",
    "RecordedRow",
    "import_vcr_cassette",
    "kopa_cassette_path",
    "parse_cassette_path",
    "recorded_row",
    "use_kopa_store",
]

CASSETTE_SEPARATOR = "::"
#: the name under which :func:`use_kopa_store` registers the request-key matcher
KOPA_MATCHER = "kopa_request_key"
#: the attribute on loaded vcrpy requests holding their stored key (their bodies are not stored)
_KEY_ATTR = "_kopa_request_key"
# Bodies are stored decoded, so a content-encoding header would make httpx decode them twice on replay.
_KEPT = KEPT_RESPONSE_HEADERS


# -- cassette paths -------------------------------------------------------------
def kopa_cassette_path(store: str | Path, snapshot: str) -> str:
    """The vcrpy cassette path for ``snapshot`` in the store file ``store``."""
    return f"{Path(store)}{CASSETTE_SEPARATOR}{snapshot}"


def parse_cassette_path(cassette_path: str | Path) -> tuple[Path, str]:
    """``"path/to/kopa.sqlite::SNAPSHOT"`` → (store path, snapshot name)."""
    text = str(cassette_path)
    store, sep, snapshot = text.rpartition(CASSETTE_SEPARATOR)
    if not sep or not store or not snapshot:
        raise UsageError(
            f"vcrpy cassette path {text!r} does not name a kopa store and snapshot: "
            f"use 'path/to/kopa.sqlite{CASSETTE_SEPARATOR}SNAPSHOT' (see kopa_cassette_path)"
        )
    return Path(store), snapshot


# -- what gets stored -----------------------------------------------------------
def _request_redactor(redactor: Redactor, url: str, headers: Mapping[str, str]) -> Redactor:
    """``redactor`` plus the key values this request carries under secret names: what its identity is computed
    with (as it always has been: identities are sealed into snapshots; see :func:`_masking_redactor`)."""
    values = [v for k, v in parse_qsl(urlsplit(url).query, keep_blank_values=True) if redactor.is_secret_param(k)]
    values += [v for k, v in headers.items() if k.lower() in redactor.secret_headers]
    return redactor.with_values(values) if values else redactor


def _masking_redactor(redactor: Redactor, url: str, headers: Mapping[str, str]) -> Redactor:
    """``redactor`` plus every key value the request carries, to mask what is stored as recording masks it.

    ``RecordTransport`` learns the key the caller inserted from the request's
    extensions; a vcrpy request has none, so the keys found in the request
    stand in: secret query parameters and headers (an ``Authorization``
    header's credentials without their scheme too), and the path segment a
    catalog's path template puts the key in (Seoul's ``/KEY/json/…``). A key
    echoed in the body, the URL or a kept header is then masked in any spelling.
    """
    values = [v for k, v in parse_qsl(urlsplit(url).query, keep_blank_values=True) if redactor.is_secret_param(k)]
    for name, value in headers.items():
        if name.lower() in redactor.secret_headers:
            values.append(value)
            scheme, _, credentials = value.strip().partition(" ")
            if name.lower() == "authorization" and scheme and credentials.strip():
                values.append(credentials.strip())
    path_key = redactor.path_key(url)
    if path_key:
        values.append(path_key)
    return redactor.with_values(values) if values else redactor


def _decoded(body: bytes, encoding: str) -> bytes:
    """The body with its content-encoding undone (httpx's decoders: gzip, deflate, br, zstd when installed)."""
    return httpx.Response(200, headers={"content-encoding": encoding}, content=body).content


def recorded_row(
    redactor: Redactor,
    *,
    method: str,
    url: str,
    request_body: bytes,
    request_headers: Mapping[str, str],
    status: int,
    response_headers: Mapping[str, str],
    body: bytes,
    tool: str | None = None,
    request_key: str | None = None,
) -> RecordedRow:
    """What ``RecordTransport`` would store for this exchange (``request_key`` when already known): every key the
    request carries masked in the URL, the headers and the body (:func:`_masking_redactor`)."""
    masker = _masking_redactor(redactor, url, request_headers)
    lowered = {k.lower(): v for k, v in response_headers.items()}
    if lowered.get("content-encoding", "identity").lower() != "identity":
        body = _decoded(body, lowered["content-encoding"])
    return RecordedRow(
        request_key=request_key
        or _request_redactor(redactor, url, request_headers).request_key(method, url, request_body),
        tool=tool,
        method=method.upper(),
        url=masker.redact_url(url),
        request_headers=masker.redact_headers(request_headers),
        status=status,
        response_headers={h: masker.scrub_text(lowered[h]) for h in _KEPT if lowered.get(h)},
        body=masker.scrub_bytes(body),
    )


# -- writing --------------------------------------------------------------------
def _sync_snapshot(store: Store, snapshot: str, rows: Sequence[RecordedRow]) -> None:
    """Make ``snapshot`` hold exactly ``rows`` (grouped by request key, in order) with the fewest writes."""
    wanted: dict[str, list[RecordedRow]] = {}
    for row in rows:
        wanted.setdefault(row.request_key, []).append(row)
    with store.transaction(snapshot) as conn:
        held: dict[str, list[tuple[int, dict[str, str], str]]] = {}
        for item in store.interactions(snapshot):
            held.setdefault(item.request_key, []).append((item.status, dict(item.response_headers), item.body_digest))
        appended: list[RecordedRow] = []
        for key in sorted(held.keys() - wanted.keys()):
            conn.execute("DELETE FROM interactions WHERE snapshot = ? AND request_key = ?", (snapshot, key))
        for key, new in wanted.items():
            old = held.get(key, [])
            if [row.answer for row in new[: len(old)]] == old:
                appended += new[len(old) :]  # recorded answers unchanged: only add the new ones
            else:
                conn.execute("DELETE FROM interactions WHERE snapshot = ? AND request_key = ?", (snapshot, key))
                appended += new
        store.insert_rows(conn, snapshot, appended)


# -- vcrpy objects ----------------------------------------------------------------
def _body_bytes(request: VcrRequest) -> bytes:
    # vcrpy keeps file and iterator bodies materialized in ``_body`` (bytes, or a list of chunks).
    raw = getattr(request, "_body", None)
    if isinstance(raw, list):
        return b"".join(part.encode("utf-8") if isinstance(part, str) else bytes(part) for part in raw)
    if isinstance(raw, str):
        return raw.encode("utf-8")
    return bytes(raw) if raw else b""


def _headers(headers: Any, what: str) -> dict[str, str]:
    """vcrpy headers (``{name: [values]}`` in files, ``{name: value}`` in memory) as ``{name: value}``."""
    if headers is None:
        return {}
    if not isinstance(headers, Mapping):
        raise ValueError(f"{what} headers must be a mapping, not {type(headers).__name__}")
    out: dict[str, str] = {}
    for name, value in headers.items():
        values = value if isinstance(value, (list, tuple)) else [value]
        out[str(name)] = ", ".join(str(v) for v in values)
    return out


def _response_parts(response: Any) -> tuple[int, dict[str, str], bytes]:
    """(status, headers, body bytes) of a vcrpy response dict; ValueError says what is wrong."""
    if not isinstance(response, Mapping):
        raise ValueError("response must be a mapping")
    status = response.get("status")
    code = status.get("code") if isinstance(status, Mapping) else None
    if not isinstance(code, int) or isinstance(code, bool) or not 100 <= code <= 599:
        raise ValueError(f"response status code must be an HTTP status (100-599), not {code!r}")
    body = response.get("body")
    string = body.get("string") if isinstance(body, Mapping) else body
    if string is None:
        string = b""
    if not isinstance(string, (str, bytes)):
        raise ValueError(f"response body string must be text or bytes, not {type(string).__name__}")
    return (
        code,
        _headers(response.get("headers"), "response"),
        (string.encode("utf-8") if isinstance(string, str) else string),
    )


def _row_from_vcr(redactor: Redactor, request: VcrRequest, response: Any) -> RecordedRow:
    status, headers, body = _response_parts(response)
    try:
        return recorded_row(
            redactor,
            method=request.method,
            url=request.uri,
            request_body=_body_bytes(request),
            request_headers=_headers(dict(request.headers), "request"),
            status=status,
            response_headers=headers,
            body=body,
            request_key=getattr(request, _KEY_ATTR, None),
        )
    except httpx.DecodingError as exc:
        raise ValueError(f"response body does not decode as its content-encoding says: {exc}") from None


def _status_message(status: int) -> str:
    try:
        return http.HTTPStatus(status).phrase
    except ValueError:
        return ""


class KopaPersister:
    """vcrpy persister over a kopa cassette store; cassette paths are ``"STORE::SNAPSHOT"``.

    Register it with :func:`use_kopa_store`, which binds the redactor and the
    matcher. ``redactor`` (a class attribute, set on the subclass that
    ``use_kopa_store`` makes) is ``None`` for :func:`redactor_for`'s default.
    """

    redactor: ClassVar[Redactor | None] = None

    @classmethod
    def _redactor(cls) -> Redactor:
        return cls.redactor if cls.redactor is not None else redactor_for()

    @classmethod
    def load_cassette(cls, cassette_path: str | Path, serializer: Any = None) -> tuple[list[VcrRequest], list[dict]]:
        """The snapshot's interactions as vcrpy (requests, responses); ``CassetteNotFoundError`` when absent.

        ``serializer`` is vcrpy's and unused: the store is the format.
        """
        path, snapshot = parse_cassette_path(cassette_path)
        if not path.is_file() or path.stat().st_size == 0:  # vcrpy records an empty file afresh too
            raise CassetteNotFoundError()
        with Store(path, readonly=True) as store:
            if snapshot not in store.snapshot_names():
                raise CassetteNotFoundError()
            requests: list[VcrRequest] = []
            responses: list[dict] = []
            for item in store.interactions(snapshot):
                request = VcrRequest(item.method, item.url, None, dict(item.request_headers))
                setattr(request, _KEY_ATTR, item.request_key)
                requests.append(request)
                responses.append(
                    {
                        "status": {"code": item.status, "message": _status_message(item.status)},
                        "headers": {name: [value] for name, value in item.response_headers.items()},
                        "body": {"string": store.body(item.body_digest)},
                    }
                )
        return requests, responses

    @classmethod
    def save_cassette(cls, cassette_path: str | Path, cassette_dict: Mapping[str, Any], serializer: Any = None) -> None:
        """Make the snapshot hold the cassette's interactions (see the module docstring)."""
        path, snapshot = parse_cassette_path(cassette_path)
        if cassette_dict.get("metadata"):
            # Dropping it silently would fail later, on replay (vcrpy's MissingMetadataError).
            raise UsageError(
                f"cannot save vcrpy cassette metadata into {path}{CASSETTE_SEPARATOR}{snapshot}: "
                "kopa stores keep interactions only"
            )
        redactor = cls._redactor()
        rows = []
        for index, (request, response) in enumerate(
            zip(cassette_dict["requests"], cassette_dict["responses"], strict=True)
        ):
            try:
                rows.append(_row_from_vcr(redactor, request, response))
            except ValueError as exc:
                raise StoreError(
                    f"cannot save vcrpy cassette {path}{CASSETTE_SEPARATOR}{snapshot}: interaction {index}: {exc}"
                ) from None
        with Store(path) as store:
            _sync_snapshot(store, snapshot, rows)


def _matcher(redactor: Redactor | None):
    """A vcrpy matcher comparing request keys (a loaded request carries its stored key)."""

    @functools.lru_cache(maxsize=4096)
    def key(method: str, uri: str, body: bytes, headers: tuple[tuple[str, str], ...]) -> str:
        active = redactor if redactor is not None else redactor_for()
        return _request_redactor(active, uri, dict(headers)).request_key(method, uri, body)

    def request_key(request: VcrRequest) -> str:
        stored = getattr(request, _KEY_ATTR, None)
        if stored:
            return stored
        # vcrpy compares each incoming request with every stored one: compute its key once.
        return key(request.method, request.uri, _body_bytes(request), tuple(sorted(request.headers.items())))

    def match(r1: VcrRequest, r2: VcrRequest) -> None:
        if request_key(r1) != request_key(r2):
            raise AssertionError(f"{r1.method} {r1.uri} and {r2.method} {r2.uri} have different kopa request keys")

    return match


def use_kopa_store(vcr_instance: Any, redactor: Redactor | None = None) -> Any:
    """Make ``vcr_instance`` persist to kopa stores and match on kopa request keys; returns it.

    ``redactor`` defaults to :func:`redactor_for` (the default key names and
    the keys in the environment); pass ``redactor_for(catalog)`` for a
    catalog with other key names. Cassette paths become ``"STORE::SNAPSHOT"``.
    """
    persister = type("KopaPersister", (KopaPersister,), {"redactor": redactor})
    vcr_instance.register_persister(persister)
    vcr_instance.register_matcher(KOPA_MATCHER, _matcher(redactor))
    vcr_instance.match_on = (KOPA_MATCHER,)
    return vcr_instance


# -- importing YAML cassettes ---------------------------------------------------------
def _yaml_interaction(item: Any) -> tuple[VcrRequest, Any]:
    if not isinstance(item, Mapping) or "request" not in item or "response" not in item:
        raise ValueError("must be a mapping with 'request' and 'response'")
    request = item["request"]
    if not isinstance(request, Mapping):
        raise ValueError("request must be a mapping")
    method, uri = request.get("method"), request.get("uri")
    if not isinstance(method, str) or not method:
        raise ValueError(f"request method must be text, not {method!r}")
    if not isinstance(uri, str) or not uri.startswith(("http://", "https://")):
        raise ValueError(f"request uri must be an http(s) URL, not {uri!r}")
    return VcrRequest(method, uri, request.get("body"), _headers(request.get("headers"), "request")), item["response"]


def import_vcr_cassette(yaml_path: str | Path, store: Store, snapshot: str, *, redactor: Redactor | None = None) -> int:
    """Import a vcrpy YAML cassette (format version 1) into ``snapshot``; returns the interaction count.

    Every interaction is checked before anything is written, and all are
    written in one transaction; a bad file raises :class:`StoreError` naming
    the file and the interaction index. Repeated requests keep their order.
    Importing the same file (the same bytes) into the same snapshot again stores nothing and returns 0.
    """
    path = Path(yaml_path)
    try:
        digest = hashlib.sha256(path.read_bytes()).hexdigest()
        data = yamlserializer.deserialize(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise StoreError(f"cannot read vcrpy cassette {path}: {exc}") from exc
    except yaml.YAMLError as exc:
        raise StoreError(f"vcrpy cassette {path} is not valid YAML: {exc}") from None
    if not isinstance(data, Mapping) or not isinstance(data.get("interactions"), list):
        raise StoreError(f"vcrpy cassette {path} has no 'interactions' list (is it a vcrpy cassette?)")
    if data.get("version", 1) != 1:
        raise StoreError(
            f"vcrpy cassette {path} has format version {data.get('version')!r}; only version 1 is understood"
        )
    active = redactor if redactor is not None else redactor_for()
    rows = []
    for index, item in enumerate(data["interactions"]):
        try:
            rows.append(_row_from_vcr(active, *_yaml_interaction(item)))
        except ValueError as exc:
            raise StoreError(f"vcrpy cassette {path}: interaction {index}: {exc}") from None
    return store.append_once(snapshot, f"vcr-import:{digest}", rows)
