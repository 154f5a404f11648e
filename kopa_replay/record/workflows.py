"""Recording a probe workload into a snapshot, and refreshing a snapshot against a source.

``record_snapshot`` executes every tool's catalog examples (plus one
largest-page request per paginated tool: :func:`kopa_replay.drift.probe.probe_requests`)
through the recorder and seals the result. ``refresh_snapshot`` re-executes
every request of a base snapshot — each recorded occurrence, in a fixed order
— against a source into a new snapshot, then diffs the two snapshots' inferred
schemas.
"""

from __future__ import annotations

import datetime as dt
import json
import time
from collections import Counter
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator, Mapping
from urllib.parse import parse_qsl, quote, urlencode, urlsplit

import httpx

from kopa_replay.catalog.model import Catalog
from kopa_replay.env.call import execute
from kopa_replay.env.source import open_source
from kopa_replay.errors import CassetteMiss, SnapshotError, UsageError
from kopa_replay.record.redact import MASK
from kopa_replay.record.snapshots import recorded_responses, seal_snapshot
from kopa_replay.record.store import Store

__all__ = ["RecordSummary", "record_snapshot", "refresh_snapshot", "diff_snapshots"]


@dataclass
class RecordSummary:
    snapshot: str
    source: str
    as_of: str
    calls: int
    outcomes: dict[str, int] = field(default_factory=dict)
    manifest: dict[str, Any] | None = None
    changes: list[Any] = field(default_factory=list)
    #: refresh: requests that needed a retry, that a retry answered, still failing (environmental noise, not drift)
    retries: dict[str, int] | None = None

    def to_dict(self) -> dict[str, Any]:
        out = {"snapshot": self.snapshot, "source": self.source, "as_of": self.as_of, "calls": self.calls,
               "outcomes": dict(sorted(self.outcomes.items()))}
        if self.retries is not None:
            out["retries"] = dict(self.retries)
        if self.manifest:
            out["digest"] = self.manifest["digest"]
        if self.changes:
            out["changes"] = [c.to_dict() for c in self.changes]
        return out


def _as_of_text(as_of: dt.date | str | None, fallback: str) -> str:
    if as_of is None:
        return fallback
    return as_of.isoformat() if isinstance(as_of, dt.date) else str(as_of)


def record_snapshot(catalog: Catalog, *, store_path: str | Path, snapshot: str, source: str = "sim",
                    as_of: dt.date | str | None = None, seed: int = 0, mirrors: Mapping[str, str] | None = None,
                    seal: bool = True, manifest_dir: str | Path | None = None,
                    requests: Iterable[tuple[str, Mapping[str, Any]]] = (),
                    commit_every: int | None = None) -> RecordSummary:
    """Record the probe workload of ``catalog`` from ``source`` into ``snapshot`` (and seal it).

    ``commit_every`` sets the recorder's commit batch (smaller: less to redo after a kill, slower).

    ``requests`` are more calls recorded after the probe workload (the benchmark's, see
    :func:`kopa_replay.bench.suite.benchmark_requests`): each goes through a
    :class:`~kopa_replay.env.ToolEnvironment`, validated as an agent's call would be, and
    one that repeats an earlier request is not sent again.
    """
    from kopa_replay.drift.probe import probe_requests
    from kopa_replay.env.environment import ToolEnvironment

    as_of_text = _as_of_text(as_of, snapshot)
    store = Store(store_path)
    mode = _open_for_recording(store, snapshot, as_of=as_of_text, source=source, seed=seed, catalog=catalog)
    outcomes: Counter[str] = Counter()
    calls = 0
    with open_source(source, seed=seed, as_of=as_of_text if source == "sim" else None, snapshot=snapshot,
                     mode=mode, store=store_path, mirrors=mirrors, catalog=catalog,
                     commit_every=commit_every) as src, _sealed_misses(snapshot):
        sent: set[str] = set()
        for tool_name, args in probe_requests(catalog):
            tool = catalog.get(tool_name)
            result = execute(tool, args, src.client, src.key_for(tool))
            outcomes[result.outcome] += 1
            calls += 1
            sent.add(_request_key(tool_name, args))
        env = ToolEnvironment(catalog, src)
        for tool_name, args in requests:
            if _request_key(tool_name, args) in sent:
                continue
            sent.add(_request_key(tool_name, args))
            outcomes[env.call(tool_name, dict(args)).outcome] += 1
            calls += 1
    store.end_recording(snapshot)
    summary = RecordSummary(snapshot, source, as_of_text, calls, dict(outcomes))
    if seal:
        summary.manifest = seal_snapshot(store, snapshot, catalog, manifest_dir)
    store.finalize()
    store.close()
    return summary


def _open_for_recording(store: Store, snapshot: str, *, as_of: str, source: str, seed: int, catalog: Catalog,
                        refresh: bool = False) -> str:
    """Create ``snapshot``, or resume it when it holds answers recorded with the same settings; returns the
    recorder's mode.

    Recording is resumable: the transport serves every answer the snapshot already holds and sends only
    the rest, so a recording stopped at any point (kill -9 included) finishes by running it again — or
    several recorders run it at once — and the snapshot ends as one uninterrupted run would have left it.
    A sealed snapshot is only replayed: running its recording again succeeds when it holds every answer
    (the run that sealed it finished), and is refused at the first it lacks.
    """
    origin = source if source in ("sim", "live") else "mirror"
    wanted = {"as_of": as_of, "source": origin, "seed": seed if source == "sim" else None,
              "catalog_digest": catalog.digest()}
    # checked and claimed in one transaction: two recorders with other settings starting at once cannot both pass
    with store.transaction(snapshot, create=False):
        if snapshot in store.snapshot_names():
            existing = store.snapshot(snapshot)
            settled = existing.interactions or existing.sealed or existing.as_of is not None
            differs = [f"{field} {getattr(existing, field)!r} (asked: {value!r})" for field, value in wanted.items()
                       if settled and getattr(existing, field) != value]
            if differs and existing.sealed:
                raise SnapshotError(f"snapshot {snapshot!r} is sealed in {store.path}; record into a new snapshot "
                                    "name")
            if differs:
                raise SnapshotError(f"snapshot {snapshot!r} in {store.path} is open with other settings: "
                                    f"{'; '.join(differs)}; resume it with its own settings, record into a new "
                                    f"name, or remove it (kopa-replay snapshot delete {snapshot})")
            if existing.sealed:
                return "replay"
        store.ensure_snapshot(snapshot, **wanted)
        store.begin_recording(snapshot)
    return "refresh" if refresh else "record"


@contextmanager
def _sealed_misses(snapshot: str) -> Iterator[None]:
    """A request a sealed snapshot lacks (met when its recording is run again) as the error it is."""
    try:
        yield
    except CassetteMiss as miss:
        raise SnapshotError(f"snapshot {snapshot!r} is sealed and lacks a request this recording makes "
                            f"({miss.method} {miss.url}); record into a new snapshot name") from None


def _request_key(tool: str, args: Mapping[str, Any]) -> str:
    return json.dumps([tool, dict(args)], sort_keys=True, ensure_ascii=False, default=str)


def _restore_url(url: str, key: str | None, secret_params: set[str]) -> str:
    """A recorded (redacted) URL with the key put back where the mask stands."""
    if not key:
        return url
    parts = urlsplit(url)
    path = "/".join(quote(key, safe="") if seg == MASK else seg for seg in parts.path.split("/"))
    query = [(k, key if (v == MASK or k.lower() in secret_params) else v)
             for k, v in parse_qsl(parts.query, keep_blank_values=True)]
    return f"{parts.scheme}://{parts.netloc}{path}" + (f"?{urlencode(query)}" if query else "")


def environmental_answer(catalog: Catalog) -> Callable[[httpx.Request, httpx.Response], bool]:
    """Whether an answer is an environmental failure: a 429/5xx status, or what the catalog's result-code table
    of the request's tool calls environmental (a rate-limit or maintenance code inside a 200 body)."""
    from kopa_replay.env.call import interpret
    from kopa_replay.record.retry import status_retryable

    def retryable(request: httpx.Request, response: httpx.Response) -> bool:
        if status_retryable(request, response):
            return True
        tool = request.extensions.get("kopa_tool")
        if not tool or tool not in catalog:
            return False
        return interpret(catalog.get(tool), {}, response.status_code, response.content, "").outcome == \
            "environmental_error"

    return retryable


def refresh_snapshot(catalog: Catalog, *, store_path: str | Path, base: str, snapshot: str, source: str = "sim",
                     as_of: dt.date | str | None = None, seed: int = 0, mirrors: Mapping[str, str] | None = None,
                     seal: bool = True, manifest_dir: str | Path | None = None, retries: int = 3,
                     retry_backoff: float = 0.5, sleep: Callable[[float], object] = time.sleep) -> RecordSummary:
    """Re-execute every request of ``base`` against ``source`` into ``snapshot``; diff the two.

    An environmental failure (see :func:`environmental_answer`) is retried up to ``retries`` times with
    backoff from ``retry_backoff`` seconds, honouring Retry-After, before anything is recorded: the new snapshot
    holds what a retry gets, and ``summary.retries`` says how many needed one and how many still fail.
    """
    from kopa_replay.record.redact import redactor_for
    from kopa_replay.record.retry import RetryTransport

    if retries < 0 or retry_backoff < 0:
        raise UsageError(f"--retries and --retry-backoff must be 0 or more, not {retries} and {retry_backoff}")

    if base == snapshot:
        raise UsageError("refresh writes a new snapshot: --snapshot must differ from --base")
    store = Store(store_path)
    base_info = store.snapshot(base)
    as_of_text = _as_of_text(as_of, snapshot)
    mode = _open_for_recording(store, snapshot, as_of=as_of_text, source=source, seed=seed, catalog=catalog,
                               refresh=True)
    secret_params = set(redactor_for(catalog).secret_params)
    requests = list(store.interactions(base))
    outcomes: Counter[str] = Counter()
    retrying: list[RetryTransport] = []

    def wrap(inner: httpx.BaseTransport) -> httpx.BaseTransport:
        retrying.append(RetryTransport(inner, retries=retries, backoff=retry_backoff, sleep=sleep,
                                       retryable=environmental_answer(catalog)))
        return retrying[0]

    with open_source(source, seed=seed, as_of=as_of_text if source == "sim" else None, snapshot=snapshot,
                     mode=mode, store=store_path, mirrors=mirrors, catalog=catalog, wrap=wrap) as src, \
            _sealed_misses(snapshot):
        for item in requests:
            tool = catalog.get(item.tool) if item.tool and item.tool in catalog else None
            key = src.key_for(tool) if tool else src.sim_key
            headers = {k: (key or "") if v == MASK else v for k, v in item.request_headers.items()
                       if k not in ("host", "content-length")}
            request = httpx.Request(item.method, _restore_url(item.url, key, secret_params), headers=headers,
                                    extensions={"kopa_tool": item.tool, "kopa_secrets": (key,) if key else ()})
            response = src.client.send(request)
            outcomes[str(response.status_code)] += 1
    store.end_recording(snapshot)
    summary = RecordSummary(snapshot, source, as_of_text, len(requests), dict(outcomes))
    if retrying:
        summary.retries = retrying[0].stats.to_dict()
    summary.changes = diff_snapshots(store, catalog, base_info.name, snapshot)
    if seal:
        summary.manifest = seal_snapshot(store, snapshot, catalog, manifest_dir)
    store.finalize()
    store.close()
    return summary


def diff_snapshots(store: Store, catalog: Catalog, before: str, after: str) -> list[Any]:
    """Schema changes per tool between two snapshots of one store."""
    from kopa_replay.drift import diff_schemas, infer_schemas

    store.snapshot(before)
    store.snapshot(after)
    return diff_schemas(infer_schemas(catalog, recorded_responses(store, before)),
                        infer_schemas(catalog, recorded_responses(store, after)))
