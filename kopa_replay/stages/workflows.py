"""Recording a probe workload into a snapshot, and refreshing a snapshot against a source.

``record_snapshot`` executes every tool's catalog examples (plus one
largest-page request per paginated tool: :func:`kopa_replay.stages.probes.probe_requests`)
through the recorder and seals the result. ``refresh_snapshot`` re-executes
every request of a base snapshot — each recorded occurrence, in a fixed order
— against a source into a new snapshot, then diffs the two snapshots' inferred
schemas (:func:`kopa_replay.drift.recorded.drift_report`).

These workflows drive the whole stack below the stages (sources, the recorder, the tool environment, drift), so
they live on the stages floor; :mod:`kopa_replay.stages.record` and :mod:`kopa_replay.stages.drift` call them.
"""

from __future__ import annotations

import datetime as dt
import fnmatch
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
from kopa_replay.drift.recorded import drift_report, tool_schema_digests
from kopa_replay.env.call import execute
from kopa_replay.env.source import check_source, open_source
from kopa_replay.errors import CassetteMiss, SnapshotError, UsageError
from kopa_replay.record.redact import MASK
from kopa_replay.record.snapshots import seal_snapshot
from kopa_replay.record.store import Store
from kopa_replay.util import Progress, tick

__all__ = ["RecordSummary", "environmental_answer", "record_snapshot", "refresh_snapshot"]


@dataclass
class RecordSummary:
    snapshot: str
    source: str
    as_of: str
    calls: int
    outcomes: dict[str, int] = field(default_factory=dict)
    manifest: dict[str, Any] | None = None
    changes: list[Any] = field(default_factory=list)
    #: refresh: the whole drift report (changes, environmental noise, data changes; see drift.requests)
    report: Any = None
    #: refresh: requests that needed a retry, that a retry answered, still failing (environmental noise, not drift)
    retries: dict[str, int] | None = None

    def to_dict(self) -> dict[str, Any]:
        out = {
            "snapshot": self.snapshot,
            "source": self.source,
            "as_of": self.as_of,
            "calls": self.calls,
            "outcomes": dict(sorted(self.outcomes.items())),
        }
        if self.retries is not None:
            out["retries"] = dict(self.retries)
        if self.manifest:
            out["digest"] = self.manifest["digest"]
        if self.report is not None:
            out["drift"] = self.report.to_dict()
        elif self.changes:
            out["changes"] = [c.to_dict() for c in self.changes]
        return out


def _as_of_text(as_of: dt.date | str | None, fallback: str) -> str:
    if as_of is None:
        return fallback
    return as_of.isoformat() if isinstance(as_of, dt.date) else str(as_of)


def record_snapshot(
    catalog: Catalog,
    *,
    store_path: str | Path,
    snapshot: str,
    source: str = "sim",
    as_of: dt.date | str | None = None,
    seed: int = 0,
    mirrors: Mapping[str, str] | None = None,
    seal: bool = True,
    manifest_dir: str | Path | None = None,
    requests: Iterable[tuple[str, Mapping[str, Any]]] = (),
    commit_every: int | None = None,
    progress: Progress | None = None,
) -> RecordSummary:
    """Record the probe workload of ``catalog`` from ``source`` into ``snapshot`` (and seal it); ``progress``
    hears each call (:data:`kopa_replay.util.Progress`).

    ``commit_every`` sets the recorder's commit batch (smaller: less to redo after a kill, slower).

    ``requests`` are more calls recorded after the probe workload (the benchmark's, see
    :func:`kopa_replay.bench.suite.benchmark_requests`): each goes through a
    :class:`~kopa_replay.env.ToolEnvironment`, validated as an agent's call would be, and
    one that repeats an earlier request is not sent again.
    """
    from kopa_replay.env.environment import ToolEnvironment
    from kopa_replay.stages.probes import probe_requests

    as_of_text = _as_of_text(as_of, snapshot)
    check_source(source)
    store = Store(store_path)
    mode = _open_for_recording(store, snapshot, as_of=as_of_text, source=source, seed=seed, catalog=catalog)
    outcomes: Counter[str] = Counter()
    calls = 0
    with (
        open_source(
            source,
            seed=seed,
            as_of=as_of_text if source == "sim" else None,
            snapshot=snapshot,
            mode=mode,
            store=store_path,
            mirrors=mirrors,
            catalog=catalog,
            commit_every=commit_every,
        ) as src,
        _sealed_misses(snapshot),
    ):
        sent: set[str] = set()
        args: Mapping[str, Any]  # a probe's (a dict), then an extra call's
        probes, extra = probe_requests(catalog), list(requests)
        total = len(probes) + len(extra)
        for done, (tool_name, args) in enumerate(probes, 1):
            tool = catalog.get(tool_name)
            result = execute(tool, args, src.client, src.key_for(tool))
            outcomes[result.outcome] += 1
            calls += 1
            sent.add(_request_key(tool_name, args))
            tick(progress, "recording", done, total)
        env = ToolEnvironment(catalog, src)
        for done, (tool_name, args) in enumerate(extra, len(probes) + 1):
            tick(progress, "recording", done, total)
            if _request_key(tool_name, args) in sent:
                continue
            sent.add(_request_key(tool_name, args))
            outcomes[env.call(tool_name, dict(args)).outcome] += 1
            calls += 1
    store.end_recording(snapshot)
    summary = RecordSummary(snapshot, source, as_of_text, calls, dict(outcomes))
    if seal:
        summary.manifest = seal_snapshot(store, snapshot, catalog, manifest_dir, tool_digests=tool_schema_digests)
    store.finalize()
    store.close()
    return summary


def _open_for_recording(
    store: Store, snapshot: str, *, as_of: str, source: str, seed: int, catalog: Catalog, refresh: bool = False
) -> str:
    """Create ``snapshot``, or resume it when it holds answers recorded with the same settings; returns the
    recorder's mode.

    Recording is resumable: the transport serves every answer the snapshot already holds and sends only
    the rest, so a recording stopped at any point (kill -9 included) finishes by running it again — or
    several recorders run it at once — and the snapshot ends as one uninterrupted run would have left it.
    A sealed snapshot is only replayed: running its recording again succeeds when it holds every answer
    (the run that sealed it finished), and is refused at the first it lacks.
    """
    origin = source if source in ("sim", "live") else "mirror"
    wanted: dict[str, Any] = {
        "as_of": as_of,
        "source": origin,
        "seed": seed if source == "sim" else None,
        "catalog_digest": catalog.digest(),
    }
    # checked and claimed in one transaction: two recorders with other settings starting at once cannot both pass
    with store.transaction(snapshot, create=False):
        if snapshot in store.snapshot_names():
            existing = store.snapshot(snapshot)
            settled = existing.interactions or existing.sealed or existing.as_of is not None
            differs = [
                f"{field} {getattr(existing, field)!r} (asked: {value!r})"
                for field, value in wanted.items()
                if settled and getattr(existing, field) != value
            ]
            if differs and existing.sealed:
                raise SnapshotError(f"snapshot {snapshot!r} is sealed in {store.path}; record into a new snapshot name")
            if differs:
                raise SnapshotError(
                    f"snapshot {snapshot!r} in {store.path} is open with other settings: "
                    f"{'; '.join(differs)}; resume it with its own settings, record into a new "
                    f"name, or remove it (kopa-replay snapshot delete {snapshot})"
                )
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
        raise SnapshotError(
            f"snapshot {snapshot!r} is sealed and lacks a request this recording makes "
            f"({miss.method} {miss.url}); record into a new snapshot name"
        ) from None


def _request_key(tool: str, args: Mapping[str, Any]) -> str:
    return json.dumps([tool, dict(args)], sort_keys=True, ensure_ascii=False, default=str)


def _restore_url(url: str, key: str | None, secret_params: set[str]) -> str:
    """A recorded (redacted) URL with the key put back where the mask stands."""
    if not key:
        return url
    parts = urlsplit(url)
    path = "/".join(quote(key, safe="") if seg == MASK else seg for seg in parts.path.split("/"))
    query = [
        (k, key if (v == MASK or k.lower() in secret_params) else v)
        for k, v in parse_qsl(parts.query, keep_blank_values=True)
    ]
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
        return (
            interpret(catalog.get(tool), {}, response.status_code, response.content, "").outcome
            == "environmental_error"
        )

    return retryable


def refresh_snapshot(
    catalog: Catalog,
    *,
    store_path: str | Path,
    base: str,
    snapshot: str,
    source: str = "sim",
    as_of: dt.date | str | None = None,
    seed: int = 0,
    mirrors: Mapping[str, str] | None = None,
    seal: bool = True,
    manifest_dir: str | Path | None = None,
    retries: int = 3,
    retry_backoff: float = 0.5,
    sleep: Callable[[float], object] = time.sleep,
    tools: str | None = None,
    changed_since: str | None = None,
    requests: Iterable[tuple[str, Mapping[str, Any]]] = (),
    progress: Progress | None = None,
) -> RecordSummary:
    """Re-execute every request of ``base`` against ``source`` into ``snapshot``; diff the two.

    An environmental failure (see :func:`environmental_answer`) is retried up to ``retries`` times with
    backoff from ``retry_backoff`` seconds, honouring Retry-After, before anything is recorded: the new snapshot
    holds what a retry gets, and ``summary.retries`` says how many needed one and how many still fail. A request
    that gets no answer at all (timed out, refused) is counted as ``no_answer`` and left out of the new snapshot.

    Incremental refresh: with ``tools`` (a glob over tool names) and/or ``changed_since`` (a snapshot: the tools
    whose answers drifted or failed between it and ``base``), only those tools' requests are re-executed; every
    other interaction of ``base`` is carried over unchanged, and the manifest's ``refresh`` entry says which.

    ``requests`` are more calls recorded after the base's (the benchmark's plans as they run on the new source,
    see :func:`kopa_replay.bench.suite.benchmark_requests`), each unless the base already holds it. ``progress``
    hears each request (:data:`kopa_replay.util.Progress`).
    """
    from kopa_replay.env.environment import ToolEnvironment
    from kopa_replay.record.redact import redactor_for
    from kopa_replay.record.retry import MAX_BACKOFF, RetryTransport

    if retries < 0 or retry_backoff < 0:
        raise UsageError(f"--retries and --retry-backoff must be 0 or more, not {retries} and {retry_backoff}")

    if base == snapshot:
        raise UsageError("refresh writes a new snapshot: --snapshot must differ from --base")
    check_source(source)
    store = Store(store_path, create=False)  # the base lives there: a missing store is a mistake, not a new one
    base_info = store.snapshot(base)
    as_of_text = _as_of_text(as_of, snapshot)
    extra = list(requests)
    base_requests = list(store.interactions(base))  # the base's interactions (``requests`` are the extra calls)
    chosen = _refreshed_tools(store, catalog, base, base_requests, tools, changed_since)  # checked before creating
    mode = _open_for_recording(
        store, snapshot, as_of=as_of_text, source=source, seed=seed, catalog=catalog, refresh=True
    )
    settings = {"base": base, "tools_glob": tools, "changed_since": changed_since}
    earlier = store.provenance(snapshot)
    sealed = mode == "replay"  # a finished refresh run again: everything is replayed, nothing is written
    if earlier is not None and {k: earlier.get(k) for k in settings} != settings:
        made = ", ".join(f"{k}={earlier.get(k)!r}" for k in settings)
        raise SnapshotError(
            f"snapshot {snapshot!r} in {store.path} was made by a refresh with {made}; "
            + (
                "it is sealed: refresh into a new snapshot name"
                if sealed
                else "run that refresh again to resume it, or refresh into a new snapshot name"
            )
        )
    if not sealed and earlier is None:
        store.set_provenance(snapshot, settings)  # claimed before anything is copied: a resume must match it
    secret_params = set(redactor_for(catalog).secret_params)
    carried = []
    if chosen is not None:
        carried = [item for item in base_requests if item.tool not in chosen]
        base_requests = [item for item in base_requests if item.tool in chosen]
        if not sealed:
            _carry_over(store, snapshot, carried)
    outcomes: Counter[str] = Counter()
    added = 0
    retrying: list[RetryTransport] = []

    def wrap(inner: httpx.BaseTransport) -> httpx.BaseTransport:
        retrying.append(
            RetryTransport(
                inner, retries=retries, backoff=retry_backoff, sleep=sleep, retryable=environmental_answer(catalog)
            )
        )
        return retrying[0]

    with (
        open_source(
            source,
            seed=seed,
            as_of=as_of_text if source == "sim" else None,
            snapshot=snapshot,
            mode=mode,
            store=store_path,
            mirrors=mirrors,
            catalog=catalog,
            wrap=wrap,
        ) as src,
        _sealed_misses(snapshot),
    ):
        total = len(base_requests) + len(extra)
        for done, item in enumerate(base_requests, 1):
            tick(progress, "re-executing", done, total)
            tool = catalog.get(item.tool) if item.tool and item.tool in catalog else None
            key = src.key_for(tool) if tool else src.sim_key
            headers = {
                k: (key or "") if v == MASK else v
                for k, v in item.request_headers.items()
                if k not in ("host", "content-length")
            }
            request = httpx.Request(
                item.method,
                _restore_url(item.url, key, secret_params),
                headers=headers,
                extensions={"kopa_tool": item.tool, "kopa_secrets": (key,) if key else ()},
            )
            try:
                response = src.client.send(request)
            except httpx.TransportError:
                outcomes["no_answer"] += 1  # after the retries: nothing to record; the diff reports it apart
                continue
            outcomes[str(response.status_code)] += 1
        held = {f"{item.method} {item.url}" for item in store.interactions(base)}
        env = ToolEnvironment(catalog, src)
        for done, (tool_name, args) in enumerate(extra, len(base_requests) + 1):
            tick(progress, "re-executing", done, total)
            # every tool's: a plan's new request to a carried-over tool is new, not a re-execution
            if _request_id(catalog, tool_name, args) in held:
                continue
            held.add(_request_id(catalog, tool_name, args))
            outcomes[env.call(tool_name, dict(args)).outcome] += 1
            added += 1
    # what the extra calls recorded: a call the environment refuses (bad arguments) sends nothing
    recorded_extra = (
        store.snapshot(snapshot).interactions - len(carried) - len(base_requests) + outcomes.get("no_answer", 0)
    )
    summary = RecordSummary(snapshot, source, as_of_text, len(base_requests) + added, dict(outcomes))
    if retrying:
        summary.retries = retrying[0].stats.to_dict()
    if not sealed:
        # how the snapshot was made beyond its settings, written into its manifest at every seal; the counts add
        # up over the runs that made it (a refresh stopped and resumed is one refresh)
        before = earlier or {}
        tries = {k: (before.get("retries") or {}).get(k, 0) + v for k, v in (summary.retries or {}).items()}
        store.set_provenance(
            snapshot,
            {
                **settings,
                "retry_policy": {"retries": retries, "backoff": retry_backoff, "max_backoff": MAX_BACKOFF},
                "retries": tries,
                "no_answer": before.get("no_answer", 0) + outcomes.get("no_answer", 0),
                "re_executed": {
                    "tools": sorted({str(i.tool) for i in base_requests if i.tool}),
                    "interactions": len(base_requests),
                },
                "carried_over": {
                    "tools": sorted({str(i.tool) for i in carried if i.tool}),
                    "interactions": len(carried),
                },
                "added": recorded_extra,
            },
        )
    store.end_recording(snapshot)
    summary.report = drift_report(store, catalog, base_info.name, snapshot)
    summary.changes = list(summary.report.changes)
    if seal:
        summary.manifest = seal_snapshot(store, snapshot, catalog, manifest_dir, tool_digests=tool_schema_digests)
    store.finalize()
    store.close()
    return summary


def _refreshed_tools(
    store: Store, catalog: Catalog, base: str, requests: list[Any], tools: str | None, changed_since: str | None
) -> set[str] | None:
    """The tools an incremental refresh re-executes (None: a full refresh)."""
    if tools is None and changed_since is None:
        return None
    recorded = {str(item.tool) for item in requests if item.tool}
    chosen: set[str] = set()
    if tools is not None:
        named = {name for name in recorded if fnmatch.fnmatchcase(name, tools)}
        if not named:
            raise UsageError(f"--tools {tools!r} matches no tool with requests in snapshot {base!r}")
        chosen |= named
    if changed_since is not None:
        if changed_since == base:
            raise UsageError("--changed-since must name an earlier snapshot than --base")
        report = drift_report(store, catalog, changed_since, base)
        chosen |= {c.tool for c in (*report.changes, *report.noise)} & recorded
    return chosen


def _request_id(catalog: Catalog, tool: str, args: Mapping[str, Any]) -> str:
    from kopa_replay.env.call import request_label

    try:
        return request_label(catalog.get(tool), args) if tool in catalog else f"? {tool}"
    except UsageError:
        return f"? {_request_key(tool, args)}"  # refused by the tool: the environment reports it when called


def _carry_over(store: Store, snapshot: str, items: list[Any]) -> None:
    """Copy interactions into ``snapshot`` unchanged (same request key and seq; already there: left alone)."""
    from kopa_replay.record.store import RecordedRow

    rows = [
        RecordedRow(
            i.request_key,
            i.tool,
            i.method,
            i.url,
            i.request_headers,
            i.status,
            i.response_headers,
            store.body(i.body_digest),
            i.seq,
        )
        for i in items
    ]
    if rows:
        store.put_many(snapshot, rows)
