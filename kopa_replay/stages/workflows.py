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
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import httpx

from kopa_replay.catalog.model import Catalog
from kopa_replay.drift.recorded import drift_report, tool_schema_digests
from kopa_replay.env.call import build_request, execute, recorded_args, request_label
from kopa_replay.env.recording import environmental_answer, retrying
from kopa_replay.env.source import check_source, is_sim, open_source, recorded_sim_source, source_label
from kopa_replay.errors import CassetteMiss, SnapshotError, UsageError
from kopa_replay.record.redact import MASK, MIN_SECRET_LENGTH, Redactor, redactor_for, register_secret
from kopa_replay.record.snapshots import check_pinned, seal_snapshot
from kopa_replay.record.store import Store
from kopa_replay.util import Progress, check_snapshot_name, tick

__all__ = [
    "RecordSummary",
    "MergeSummary",
    "PlannedCall",
    "environmental_answer",
    "record_snapshot",
    "recording_plan",
    "recording_shards",
    "merge_snapshots",
    "claim_snapshot",
    "plan_digest",
    "refresh_snapshot",
    "rebuild_requests",
    "Resend",
]


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
    #: requests whose answer was blocked (a wall, a page or nothing where data was expected): never recorded, each
    #: with its evidence (:func:`left_out_entry`); the manifest keeps them, and a refresh of this snapshot tries them
    left_out: list[dict[str, Any]] = field(default_factory=list)

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
        if self.left_out:
            out["left_out"] = [dict(entry) for entry in self.left_out]
        if self.manifest:
            out["digest"] = self.manifest["digest"]
        if self.report is not None:
            out["drift"] = self.report.to_dict()
        elif self.changes:
            out["changes"] = [c.to_dict() for c in self.changes]
        return out


def _waiting(sleep: Callable[[float], object], source: str) -> Callable[[float], object]:
    """How a recorder waits between retries: not at all on the simulator when nobody chose the wait (its faults are
    a function of the attempt, not of time, so waiting would only cost), else as ``sleep`` does."""
    return (lambda seconds: None) if sleep is time.sleep and is_sim(source) else sleep


def left_out_entry(tool: Any, args: Mapping[str, Any], evidence: str) -> dict[str, Any]:
    """How a snapshot remembers a request it holds no answer to because the answer was blocked: the tool, its
    arguments (what a later refresh sends again, validated as an agent's call), the redacted request and why."""
    return {
        "tool": tool.name,
        "args": {k: args[k] for k in sorted(args)},
        "request": request_label(tool, args),
        "class": "blocked",
        "evidence": evidence,
    }


def _label(tool: Any, args: Mapping[str, Any]) -> str | None:
    """The request label of a call (:func:`request_label`), None for arguments the tool refuses."""
    try:
        return request_label(tool, args)
    except UsageError:
        return None


def _sealed_left_out(store: Store, snapshot: str, manifest_dir: str | Path | None) -> dict[str, dict[str, Any]]:
    """A sealed snapshot's left-out requests by request label, as its manifest lists them."""
    from kopa_replay.record.snapshots import left_out_entries, snapshot_provenance

    return {e["request"]: e for e in left_out_entries(snapshot_provenance(store, snapshot, manifest_dir))}


def _sorted_left_out(entries: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    unique = {(e["request"], e["tool"]): dict(e) for e in entries}
    return [unique[key] for key in sorted(unique)]


def left_out_requests(
    catalog: Catalog, store: Store, snapshot: str, manifest_dir: str | Path | None = None
) -> list[tuple[str, dict[str, Any]]]:
    """The requests ``snapshot`` left out because their answers were blocked, as (tool, args) to send again.

    A sealed snapshot's list is read from its manifest, checked against the seal (:func:`check_pinned`: the store's
    own copy could be edited past it); an open one's from the store, as trusted as its interactions. Either is
    untrusted input: an entry must name a tool of the catalog and give arguments as a mapping of names to scalars;
    the environment then validates them as it does an agent's call, and the request is built from the catalog's
    binding (a stored URL is never sent)."""
    from kopa_replay.record.snapshots import snapshot_provenance

    made = snapshot_provenance(store, snapshot, manifest_dir)
    entries = made.get("left_out") if made is not None else None
    entries = entries if entries is not None else []
    where = f"snapshot {snapshot!r} in {store.path}"
    if not isinstance(entries, list):
        raise SnapshotError(f"{where}: its left-out requests are not a list (the store was edited)")
    out = []
    for index, entry in enumerate(entries, 1):
        tool = entry.get("tool") if isinstance(entry, Mapping) else None
        args = entry.get("args") if isinstance(entry, Mapping) else None
        if not isinstance(tool, str) or tool not in catalog:
            raise SnapshotError(f"{where}: left-out request {index} names no tool of the catalog ({tool!r})")
        if not isinstance(args, Mapping) or not all(
            isinstance(k, str) and (v is None or isinstance(v, (str, int, float, bool))) for k, v in args.items()
        ):
            raise SnapshotError(f"{where}: left-out request {index} ({tool}) has arguments that are not name=value")
        out.append((tool, dict(args)))
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
    shard: tuple[int, int] | None = None,
    limiter: Any = None,
    retries: int = 3,
    retry_backoff: float = 0.5,
    sleep: Callable[[float], object] = time.sleep,
    incidents: str = "",
) -> RecordSummary:
    """Record the probe workload of ``catalog`` from ``source`` into ``snapshot`` (and seal it); ``progress``
    hears each call (:data:`kopa_replay.util.Progress`).

    What a retry may fix is retried before anything is recorded, as :func:`refresh_snapshot` does (``retries``,
    ``retry_backoff``, ``sleep``); an answer still blocked after them — a wall, a page or nothing where the
    catalog expects data — is never recorded: ``summary.left_out`` and the manifest name it with its evidence, and
    a refresh of the snapshot sends it again.

    ``commit_every`` sets the recorder's commit batch (smaller: less to redo after a kill, slower).

    ``requests`` are more calls recorded after the probe workload (the benchmark's, see
    :func:`kopa_replay.bench.suite.benchmark_requests`): each goes through a
    :class:`~kopa_replay.env.ToolEnvironment`, validated as an agent's call would be, and
    one that repeats an earlier request is not sent again.

    ``shard=(k, n)`` records only shard ``k`` of ``n`` of the workload (:func:`recording_shards`) — into a store
    of its own, unsealed: :func:`merge_snapshots` combines the shards into the snapshot one process would have
    recorded. ``limiter`` (:class:`kopa_replay.env.limits.HostLimiter`) paces requests to the live hosts; many
    recorders share one to keep the catalog's per-host limits between them.
    """
    from kopa_replay.env.environment import ToolEnvironment

    if shard is not None and seal:
        raise UsageError("a recording shard is merged before it is sealed: record it with seal=False")
    check_snapshot_name(snapshot)  # before a store is made: a name becomes its manifest's file name
    as_of_text = _as_of_text(as_of, snapshot)
    check_source(source, mirrors, catalog)
    source = source_label(source) if is_sim(source) else source  # the world settled once: sim → sim:full
    store = Store(store_path)
    mode = _open_for_recording(store, snapshot, as_of=as_of_text, source=source, seed=seed, catalog=catalog)
    outcomes: Counter[str] = Counter()
    calls = 0
    left_out: list[dict[str, Any]] = []
    with (
        open_source(
            source,
            seed=seed,
            as_of=as_of_text if is_sim(source) else None,
            snapshot=snapshot,
            mode=mode,
            store=store_path,
            mirrors=mirrors,
            catalog=catalog,
            commit_every=commit_every,
            limiter=limiter,
            wrap=retrying(catalog, retries, retry_backoff, _waiting(sleep, source)),
            incidents=incidents,
        ) as src,
        _sealed_misses(snapshot),
    ):
        plan = recording_plan(catalog, requests)
        if shard is not None:
            # which part of which recording this store holds: a merge checks every part is there, once
            store.set_provenance(snapshot, {"shard": [shard[0] + 1, shard[1]], "plan": plan_digest(plan)})
            plan = recording_shards(catalog, plan, shard[1])[shard[0]]
        env = ToolEnvironment(catalog, src)
        # a finished recording run again replays: what it left out was never recorded, so it is left out again
        sealed_out = _sealed_left_out(store, snapshot, manifest_dir) if mode == "replay" else {}
        for done, call in enumerate(plan, 1):
            tool = catalog.get(call.tool)
            if (entry := sealed_out.get(_label(tool, call.args) or "")) is not None:
                outcomes["blocked_error"] += 1
                left_out.append(entry)
                calls += 1
                continue
            if call.validated:  # an extra call: validated as an agent's would be
                result: Any = env.call(call.tool, dict(call.args))
            else:  # a probe: sent as the catalog writes it
                result = execute(tool, call.args, src.client, src.key_for(tool))
            outcomes[result.outcome] += 1
            if result.outcome == "blocked_error":  # not recorded (see retrying): remembered with its evidence
                left_out.append(left_out_entry(tool, call.args, str(result.message)))
            calls += 1
            tick(progress, "recording", done, len(plan))
    summary = RecordSummary(snapshot, source, as_of_text, calls, dict(outcomes))
    summary.left_out = _sorted_left_out(left_out)
    earlier = store.provenance(snapshot) or {}
    if mode != "replay" and (summary.left_out or "left_out" in earlier):
        # this run's list (a resume sends again every request not recorded): none left when all were filled
        store.set_provenance(snapshot, {**earlier, "left_out": summary.left_out})
    store.end_recording(snapshot)
    if seal:
        summary.manifest = seal_snapshot(store, snapshot, catalog, manifest_dir, tool_digests=tool_schema_digests)
    store.finalize()
    store.close()
    return summary


@dataclass(frozen=True)
class PlannedCall:
    """One call of a recording workload: a probe (sent as written) or an extra call (validated by the environment)."""

    tool: str
    args: Mapping[str, Any]
    validated: bool


def recording_plan(catalog: Catalog, requests: Iterable[tuple[str, Mapping[str, Any]]] = ()) -> list[PlannedCall]:
    """The calls a recording makes, in order: every probe (:func:`kopa_replay.stages.probes.probe_requests`), then
    each extra request that repeats none before it."""
    from kopa_replay.stages.probes import probe_requests

    plan = [PlannedCall(tool, args, False) for tool, args in probe_requests(catalog)]
    sent = {_request_key(call.tool, call.args) for call in plan}
    for tool, args in requests:
        if _request_key(tool, args) not in sent:
            sent.add(_request_key(tool, args))
            plan.append(PlannedCall(tool, dict(args), True))
    return plan


def recording_shards(
    catalog: Catalog,
    plan: list[PlannedCall],
    count: int,
    endpoint: Callable[[PlannedCall], tuple[str, ...]] | None = None,
) -> list[list[PlannedCall]]:
    """``plan`` split into ``count`` shards by endpoint (default: the tool's method, base URL and path): calls that
    can send the same request stay in one shard, in their order, so each request's n-th occurrence is numbered as
    one recorder would number it and the merged snapshot holds the same interactions (the same digest)."""
    from kopa_replay.scale import shards_of

    if count < 1:
        raise UsageError(f"a recording is split into at least 1 shard, not {count}")

    def of_tool(call: PlannedCall) -> tuple[str, ...]:
        http = catalog.get(call.tool).http
        return http.method, http.base_url, http.path

    groups: dict[tuple[str, ...], list[PlannedCall]] = {}
    for call in plan:
        groups.setdefault((endpoint or of_tool)(call), []).append(call)
    order = {id(call): index for index, call in enumerate(plan)}
    shards = shards_of([groups[key] for key in sorted(groups)], count, weight=len)
    return [sorted((call for group in shard for call in group), key=lambda call: order[id(call)]) for shard in shards]


def plan_digest(plan: list[PlannedCall]) -> str:
    """What a recording sends, as one digest: shards of one recording carry it, so a merge can tell them apart."""
    from kopa_replay.stages.run_dir import digest_of

    return digest_of([[call.tool, dict(call.args), call.validated] for call in plan])


def claim_snapshot(store: Store, snapshot: str, *, as_of: str, source: str, seed: int, catalog: Catalog) -> str:
    """Create ``snapshot`` for a recording, or check an existing one has these settings (see
    :func:`_open_for_recording`); returns the recorder's mode (``replay``: it is sealed)."""
    return _open_for_recording(store, snapshot, as_of=as_of, source=source, seed=seed, catalog=catalog)


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
    wanted: dict[str, Any] = {
        "as_of": as_of,
        "source": source_label(source),
        "seed": seed if is_sim(source) else None,
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


@dataclass(frozen=True)
class Resend:
    """A recorded request as a refresh sends it again: the tool and the arguments its catalog binding turns into
    the request (never the stored URL or headers, which a store from elsewhere may have edited)."""

    tool: str
    args: Mapping[str, str]


def rebuild_requests(catalog: Catalog, base: str, items: Iterable[Any]) -> list[Resend]:
    """Each recorded interaction of ``base`` as the request its tool's binding makes (:class:`Resend`), checked
    against the request identity it was recorded under (the request key, which the snapshot digest covers): a
    stored URL whose host, path or parameters were edited is a :class:`SnapshotError` naming the interaction, and
    nothing is sent. The rebuilt request goes to the host the catalog names for the tool (where it has moved since
    the recording, too), so a live key goes nowhere else."""
    plain = redactor_for(catalog)
    # the identity as the recorder computes it, without this machine's key values (a path key is removed where
    # the tool's template puts it, whatever its value)
    identity = Redactor(plain.secret_params, plain.secret_headers, (), plain.noise_params, plain.key_paths)
    out = []
    for item in items:
        where = (
            f"snapshot {base!r}, interaction {item.tool or '(no tool)'} #{item.seq} "
            f"(request {item.request_key[:12]}…, recorded as {item.method} {item.url[:120]!r})"
        )
        if not item.tool or item.tool not in catalog:
            raise SnapshotError(
                f"{where}: no tool of the catalog made it, so no binding can rebuild it; refresh the catalog's tools "
                "only (--tools GLOB carries the rest over unchanged)"
            )
        tool = catalog.get(item.tool)
        try:
            if item.method.upper() != tool.http.method.upper():
                raise UsageError(f"method {item.method!r} is not the tool's {tool.http.method}")
            args = recorded_args(tool, item.url)
            method, url, _, _ = build_request(tool, args, MASK)
        except UsageError as exc:
            raise SnapshotError(f"{where}: {exc}; a refresh sends keys only as the catalog binds them") from None
        # the identity is checked where it was recorded: the catalog may have moved the tool since
        recorded = urlsplit(item.url)
        if (
            identity.request_key(
                method, urlunsplit(urlsplit(url)._replace(scheme=recorded.scheme, netloc=recorded.netloc))
            )
            != item.request_key
        ):
            hint = (
                " (a value stored as *** where no key goes: masked because it equalled a key shorter than "
                f"{MIN_SECRET_LENGTH} characters, which cannot be told from data — or edited)"
                if MASK in args.values()
                else " (the store was edited)"
            )
            raise SnapshotError(
                f"{where}: its stored URL does not rebuild the request it was recorded as{hint}; nothing was sent"
            )
        out.append(Resend(tool.name, args))
    return out


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
    executor: Any = None,
    shard_folder: str | Path | None = None,
    incidents: str = "",
) -> RecordSummary:
    """Re-execute every request of ``base`` against ``source`` into ``snapshot``; diff the two.

    An environmental failure (see :func:`~kopa_replay.env.recording.environmental_answer`) is retried up to ``retries`` times with
    backoff from ``retry_backoff`` seconds, honouring Retry-After, before anything is recorded: the new snapshot
    holds what a retry gets, and ``summary.retries`` says how many needed one and how many still fail. A request
    that gets no answer at all (timed out, refused) is counted as ``no_answer`` and left out of the new snapshot.

    Incremental refresh: with ``tools`` (a glob over tool names) and/or ``changed_since`` (a snapshot: the tools
    whose answers drifted or failed between it and ``base``), only those tools' requests are re-executed; every
    other interaction of ``base`` is carried over unchanged, and the manifest's ``refresh`` entry says which.

    ``requests`` are more calls recorded after the base's (the benchmark's plans as they run on the new source,
    see :func:`kopa_replay.bench.suite.benchmark_requests`), each unless the base already holds it. ``progress``
    hears each request (:data:`kopa_replay.util.Progress`).

    ``executor`` (:mod:`kopa_replay.scale`) with more than one worker splits the re-execution by endpoint into
    shards, each recorded by a worker into a store of its own in ``shard_folder`` and merged in shard order
    (:func:`recording_shards`): the new snapshot holds what one process would have recorded.
    """
    from kopa_replay.record.retry import MAX_BACKOFF

    if retries < 0 or retry_backoff < 0:
        raise UsageError(f"--retries and --retry-backoff must be 0 or more, not {retries} and {retry_backoff}")

    if base == snapshot:
        raise UsageError("refresh writes a new snapshot: --snapshot must differ from --base")
    check_snapshot_name(snapshot)
    check_source(source, mirrors, catalog)
    store = Store(store_path, create=False)  # the base lives there: a missing store is a mistake, not a new one
    base_info = store.snapshot(base)
    check_pinned(store, base, manifest_dir)  # what is re-executed is what was sealed (and its manifest says)
    if source == "sim" and is_sim(base_info.source):  # a plain sim: the world the base was recorded on
        source = recorded_sim_source(str(base_info.source))
    elif is_sim(source):
        source = source_label(source)
    as_of_text = _as_of_text(as_of, snapshot)
    # the base's left-out requests first (their answers were blocked when it was made: a refresh fills them)
    extra = left_out_requests(catalog, store, base, manifest_dir) + list(requests)
    base_requests = list(store.interactions(base))  # the base's interactions (``requests`` are the extra calls)
    chosen = _refreshed_tools(store, catalog, base, base_requests, tools, changed_since)  # checked before creating
    resent = rebuild_requests(  # every request checked before anything is created or sent
        catalog, base, base_requests if chosen is None else [i for i in base_requests if i.tool in chosen]
    )
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
    carried = []
    if chosen is not None:
        carried = [item for item in base_requests if item.tool not in chosen]
        base_requests = [item for item in base_requests if item.tool in chosen]
        if not sealed:
            _carry_over(store, snapshot, carried)
    held = {f"{item.method} {item.url}" for item in carried}
    held |= {request_label(catalog.get(r.tool), r.args) for r in resent}
    todo = []  # every tool's: a plan's new request to a carried-over tool is new, not a re-execution
    for tool_name, args in extra:
        if _request_id(catalog, tool_name, args) not in held:
            held.add(_request_id(catalog, tool_name, args))
            todo.append((tool_name, dict(args)))
    part = _RefreshPart(
        snapshot=snapshot,
        source=source,
        as_of=as_of_text,
        seed=seed,
        mirrors=dict(mirrors or {}),
        mode=mode,
        retries=retries,
        retry_backoff=retry_backoff,
        base_requests=resent,
        extra=todo,
        incidents=incidents,
        sealed_left_out=_sealed_left_out(store, snapshot, manifest_dir) if sealed else {},
    )
    sharded = executor is not None and (executor.spec.kind == "ray" or executor.spec.workers > 1)
    if sharded and not sealed:
        done = _refresh_sharded(store, catalog, part, executor, Path(shard_folder or "."), progress)
    else:
        done = _refresh_part(part, catalog, store_path, sleep=sleep, progress=progress)
    outcomes: Counter[str] = Counter(done.outcomes)
    added = done.added
    # what the extra calls recorded: a call the environment refuses (bad arguments) sends nothing
    recorded_extra = (
        store.snapshot(snapshot).interactions
        - len(carried)
        - len(base_requests)
        + outcomes.get("no_answer", 0)
        + done.base_blocked
    )
    summary = RecordSummary(snapshot, source, as_of_text, len(base_requests) + added, dict(outcomes))
    summary.retries = done.retries
    summary.left_out = _sorted_left_out(done.left_out)
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
                # this run's alone: a resume sends again every request not recorded, the blocked ones included
                "left_out": summary.left_out,
                "re_executed": {
                    "tools": sorted({r.tool for r in resent}),
                    "interactions": len(resent),
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


@dataclass(frozen=True)
class _RefreshPart:
    """What a refresh re-executes (all of it, or one shard's part), picklable for a worker."""

    snapshot: str
    source: str
    as_of: str
    seed: int
    mirrors: Mapping[str, str]
    mode: str
    retries: int
    retry_backoff: float
    base_requests: list[Resend]
    extra: list[tuple[str, dict[str, Any]]]
    incidents: str = ""
    #: a sealed refresh run again replays: what it left out (by request label) is left out again, not a miss
    sealed_left_out: Mapping[str, dict[str, Any]] = field(default_factory=dict)


@dataclass
class _RefreshDone:
    outcomes: dict[str, int]
    added: int
    retries: dict[str, int] | None
    left_out: list[dict[str, Any]] = field(default_factory=list)
    #: requests of the base whose answers were blocked (not recorded)
    base_blocked: int = 0


def _refresh_part(
    part: _RefreshPart,
    catalog: Catalog,
    store_path: str | Path,
    *,
    sleep: Callable[[float], object] = time.sleep,
    progress: Progress | None = None,
    limiter: Any = None,
) -> _RefreshDone:
    """Re-execute ``part`` against its source, recording into ``part.snapshot`` of the store at ``store_path``."""
    from kopa_replay.env.environment import ToolEnvironment
    from kopa_replay.record.retry import BlockedAnswer, RetryTransport

    outcomes: Counter[str] = Counter()
    added = 0
    made: list[RetryTransport] = []
    left_out: list[dict[str, Any]] = []
    base_blocked = 0
    wrap = retrying(catalog, part.retries, part.retry_backoff, _waiting(sleep, part.source), made)

    with (
        open_source(
            part.source,
            seed=part.seed,
            as_of=part.as_of if is_sim(part.source) else None,
            snapshot=part.snapshot,
            mode=part.mode,
            store=store_path,
            mirrors=part.mirrors,
            catalog=catalog,
            wrap=wrap,
            limiter=limiter,
            incidents=part.incidents,
        ) as src,
        _sealed_misses(part.snapshot),
    ):
        total = len(part.base_requests) + len(part.extra)
        for done, resend in enumerate(part.base_requests, 1):
            tick(progress, "re-executing", done, total)
            tool = catalog.get(resend.tool)
            if (entry := part.sealed_left_out.get(_label(tool, resend.args) or "")) is not None:
                outcomes["blocked_error"] += 1
                base_blocked += 1
                left_out.append(entry)
                continue
            key = src.key_for(tool)
            register_secret(key)
            # rebuilt from the binding: the catalog's host, path and key placement (see rebuild_requests)
            method, url, headers, _ = build_request(tool, resend.args, key)
            request = httpx.Request(
                method,
                url,
                headers=headers,  # type: ignore[arg-type]  # str and bytes values, as execute sends them
                extensions={"kopa_tool": tool.name, "kopa_secrets": (key,) if key else ()},
            )
            try:
                response = src.client.send(request)
            except BlockedAnswer as exc:  # after the retries still no answer of the platform: never recorded
                outcomes["blocked_error"] += 1
                base_blocked += 1
                left_out.append(left_out_entry(tool, resend.args, exc.evidence))
                continue
            except httpx.TransportError:
                outcomes["no_answer"] += 1  # after the retries: nothing to record; the diff reports it apart
                continue
            outcomes[str(response.status_code)] += 1
        env = ToolEnvironment(catalog, src)
        for done, (tool_name, args) in enumerate(part.extra, len(part.base_requests) + 1):
            tick(progress, "re-executing", done, total)
            if (entry := part.sealed_left_out.get(_label(catalog.get(tool_name), args) or "")) is not None:
                outcomes["blocked_error"] += 1
                left_out.append(entry)
                added += 1
                continue
            result = env.call(tool_name, dict(args))
            outcomes[result.outcome] += 1
            added += 1
            if result.outcome == "blocked_error":
                left_out.append(left_out_entry(catalog.get(tool_name), result.args, str(result.message)))
    return _RefreshDone(dict(outcomes), added, made[0].stats.to_dict() if made else None, left_out, base_blocked)


@dataclass(frozen=True)
class _RefreshShardJob:
    part: _RefreshPart
    catalog: Catalog
    path: Path
    settings: Mapping[str, Any]
    limiter: Any


def _refresh_shard(job: _RefreshShardJob) -> _RefreshDone:
    """One worker's part of a refresh, into a shard store of its own (runs in a Ray worker or a thread)."""
    store = Store(job.path)
    try:
        with store.transaction(job.part.snapshot, create=False):
            store.ensure_snapshot(job.part.snapshot, **job.settings)
            store.begin_recording(job.part.snapshot)
    finally:
        store.close()
    done = _refresh_part(job.part, job.catalog, job.path, limiter=job.limiter)
    with Store(job.path) as store:
        store.end_recording(job.part.snapshot)
    return done


def _refresh_sharded(
    store: Store, catalog: Catalog, part: _RefreshPart, executor: Any, folder: Path, progress: Progress | None
) -> _RefreshDone:
    """``part`` re-executed by the executor's workers in shards (by endpoint), merged into ``store``."""
    from dataclasses import replace

    from kopa_replay.scale.limits import shared_limiter

    count = executor.spec.workers
    calls = [PlannedCall(resend.tool, {"#": index}, False) for index, resend in enumerate(part.base_requests)]
    calls += [PlannedCall(tool, args, True) for tool, args in part.extra]

    def endpoint(call: PlannedCall) -> tuple[str, ...]:
        http = catalog.get(call.tool).http  # where the catalog sends it: a recorded request is rebuilt from it too
        return http.method, http.base_url + http.path

    shards = recording_shards(catalog, calls, count, endpoint)
    info = store.snapshot(part.snapshot)
    settings = {name: getattr(info, name) for name in _SETTINGS}
    folder.mkdir(parents=True, exist_ok=True)
    limiter = shared_limiter(executor, catalog, part.source, part.mirrors)
    jobs = []
    for k, shard in enumerate(shards):
        mine = replace(
            part,
            base_requests=[part.base_requests[int(c.args["#"])] for c in shard if not c.validated],
            extra=[(c.tool, dict(c.args)) for c in shard if c.validated],
        )
        jobs.append(_RefreshShardJob(mine, catalog, folder / f"shard-{k + 1}-of-{count}.sqlite", settings, limiter))
    tick(progress, "re-executing (shards)", 0, count)
    parts = executor.map(_refresh_shard, jobs)
    tick(progress, "re-executing (shards)", count, count)
    _copy_shards(store, part.snapshot, [job.path for job in jobs])
    for job in jobs:
        _remove_shard(job.path)  # merged: nothing left in it to resume
    outcomes: Counter[str] = Counter()
    retries: Counter[str] = Counter()
    for done in parts:
        outcomes.update(done.outcomes)
        retries.update(done.retries or {})
    left_out = [entry for done in parts for entry in done.left_out]
    blocked = sum(done.base_blocked for done in parts)
    return _RefreshDone(dict(outcomes), sum(done.added for done in parts), dict(retries) or None, left_out, blocked)


def _remove_shard(path: Path) -> None:
    """A merged shard store (and its -wal / -shm beside it); only files this recording named, never a folder."""
    for extra in ("", "-wal", "-shm", "-journal"):
        Path(f"{path}{extra}").unlink(missing_ok=True)


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


def _carry_over(store: Store, snapshot: str, items: Iterable[Any], source: Store | None = None) -> int:
    """Copy interactions (of ``source``, default ``store``) into ``snapshot`` unchanged (same request key and seq;
    a place already taken is left alone), in batches; returns how many were written."""
    from itertools import islice

    from kopa_replay.record.store import RecordedRow

    source = source or store
    written = 0
    items = iter(items)
    while batch := list(islice(items, 2048)):  # a million interactions in flat memory
        rows = [
            RecordedRow(
                i.request_key,
                i.tool,
                i.method,
                i.url,
                i.request_headers,
                i.status,
                i.response_headers,
                source.body(i.body_digest),
                i.seq,
            )
            for i in batch
        ]
        written += store.put_many(snapshot, rows)
    return written


@dataclass
class MergeSummary:
    snapshot: str
    shards: list[str]
    #: interactions each shard held, in the order given
    interactions: list[int]
    #: interactions written into the merged snapshot (a request two shards both hold is written once)
    merged: int
    #: requests (key, seq) two shards answered differently; the first shard's answer stands
    conflicts: int
    #: requests (key, seq) two shards both hold with one answer (shards of one recording never overlap)
    overlaps: int = 0
    manifest: dict[str, Any] | None = None

    def to_dict(self) -> dict[str, Any]:
        out = {
            "snapshot": self.snapshot,
            "shards": self.shards,
            "interactions": self.interactions,
            "merged": self.merged,
            "conflicts": self.conflicts,
            "overlaps": self.overlaps,
        }
        if self.manifest:
            out["digest"] = self.manifest["digest"]
        return out


_SETTINGS = ("as_of", "source", "seed", "catalog_digest")


def merge_snapshots(
    shards: Iterable[str | Path],
    *,
    store_path: str | Path,
    snapshot: str,
    catalog: Catalog,
    seal: bool = True,
    manifest_dir: str | Path | None = None,
) -> MergeSummary:
    """Combine recording shards (stores, each holding ``snapshot`` as one recorder left it) into ``snapshot`` of
    ``store_path``: the union of their interactions, each at its seq — so the merged snapshot's digest equals one
    recorder's over the same requests — then seal it.

    The shards must hold the snapshot with one set of settings (as-of date, source, seed, this catalog's
    digest) and a finished recording; the target may hold nothing of it yet, or an open snapshot with the same
    settings (a merge stopped midway is run again). Where two shards hold the same request at the same seq with
    different answers (a live source that changed between them) the first shard's stands and ``conflicts`` says how
    many.
    """
    check_snapshot_name(snapshot)
    paths = [Path(shard) for shard in shards]
    if not paths:
        raise UsageError("cassette merge needs at least one shard store")
    for path in paths:
        if path.resolve() == Path(store_path).resolve():
            raise UsageError(f"shard {path} is the store merged into: name the shards and the target apart")
    settings = _shard_settings(paths, snapshot)
    if settings["catalog_digest"] not in (None, catalog.digest()):
        raise SnapshotError(
            f"the shards recorded {snapshot!r} with another catalog (digest "
            f"{str(settings['catalog_digest'])[:12]}…, this one {catalog.digest()[:12]}…): merge with the catalog "
            "they were recorded with"
        )
    with Store(store_path) as store:
        if snapshot in store.snapshot_names() and store.snapshot(snapshot).sealed:
            return _merged_already(store, snapshot, settings, paths, catalog, manifest_dir)
        _open_for_merge(store, snapshot, settings)
        held, merged, conflicts, overlaps = _copy_shards(store, snapshot, paths)
        left_out = _sorted_left_out(entry for path in paths for entry in _shard_left_out(path, snapshot))
        if left_out:
            store.set_provenance(snapshot, {**(store.provenance(snapshot) or {}), "left_out": left_out})
        store.end_recording(snapshot)
        summary = MergeSummary(snapshot, [str(p) for p in paths], held, merged, conflicts, overlaps)
        if seal:
            summary.manifest = seal_snapshot(store, snapshot, catalog, manifest_dir, tool_digests=tool_schema_digests)
        store.finalize()
    return summary


def _shard_left_out(path: Path, snapshot: str) -> list[dict[str, Any]]:
    """The left-out requests a shard's recorder wrote (only well-formed entries: a shard is a store too)."""
    from kopa_replay.record.snapshots import left_out_entries

    with Store(path, readonly=True) as shard:
        return left_out_entries(shard.provenance(snapshot))


def _merged_already(
    store: Store,
    snapshot: str,
    settings: Mapping[str, Any],
    paths: list[Path],
    catalog: Catalog,
    manifest_dir: str | Path | None,
) -> MergeSummary:
    """A merge run again after it sealed (as a recording run again): nothing to write when the sealed snapshot
    holds every interaction of the shards, with the same settings; its manifest is written again. Otherwise an
    error: a sealed snapshot takes nothing more."""
    existing = store.snapshot(snapshot)
    differs = [
        f"{k} {getattr(existing, k)!r} (shards: {v!r})" for k, v in settings.items() if getattr(existing, k) != v
    ]
    sealed = {(i.request_key, i.seq): _answer(i) for i in store.interactions(snapshot)}
    held: list[int] = []
    lacking, conflicts = [], 0
    for path in paths:
        with Store(path, readonly=True) as shard:
            items = list(shard.interactions(snapshot))
        held.append(len(items))
        for item in items:
            there = sealed.get((item.request_key, item.seq))
            if there is None:
                lacking.append(item)
            elif there != _answer(item):
                conflicts += 1  # as when it was merged: the first shard's answer stood
    if differs or lacking:
        why = (
            f"other settings: {'; '.join(differs)}"
            if differs
            else f"it lacks {len(lacking)} of the shards' interactions"
        )
        raise SnapshotError(f"snapshot {snapshot!r} is sealed in {store.path} ({why}); merge into a new snapshot name")
    summary = MergeSummary(snapshot, [str(p) for p in paths], held, 0, conflicts)
    summary.manifest = seal_snapshot(store, snapshot, catalog, manifest_dir, tool_digests=tool_schema_digests)
    return summary


def _shard_settings(paths: list[Path], snapshot: str) -> dict[str, Any]:
    """The settings every shard recorded ``snapshot`` with (one set, or an error naming the shard that differs);
    shards that say which part of a recording they are (``record --shard K/N``) must be every part of one, once."""
    settings: dict[str, Any] | None = None
    parts: list[tuple[Path, dict[str, Any]]] = []
    for path in paths:
        if not path.is_file():
            raise UsageError(f"no shard store {path}")
        with Store(path, readonly=True) as shard:
            if snapshot not in shard.snapshot_names():
                held = ", ".join(shard.snapshot_names()) or "none"
                raise SnapshotError(f"shard {path} holds no snapshot {snapshot!r} (it holds: {held})")
            info = shard.snapshot(snapshot)
            parts.append((path, shard.provenance(snapshot) or {}))
        if info.unfinished:
            raise SnapshotError(
                f"shard {path}: the recording of {snapshot!r} did not finish; run that shard again first"
            )
        mine = {name: getattr(info, name) for name in _SETTINGS}
        if settings is None:
            settings = mine
        elif mine != settings:
            differs = "; ".join(
                f"{k} {mine[k]!r} (first shard: {settings[k]!r})" for k in _SETTINGS if mine[k] != settings[k]
            )
            raise SnapshotError(f"shard {path} recorded {snapshot!r} with other settings: {differs}")
    assert settings is not None
    _check_parts(parts, snapshot)
    return settings


def _check_parts(parts: list[tuple[Path, dict[str, Any]]], snapshot: str) -> None:
    named = [(path, made["shard"], made.get("plan")) for path, made in parts if "shard" in made]
    if len(named) != len(parts):
        plain = next(path for path, made in parts if "shard" not in made)
        raise SnapshotError(
            f"{plain} is not a part of a sharded recording of {snapshot!r} (record --shard K/N --no-seal writes "
            "one): cassette merge combines the parts of one recording"
        )
    first_path, (_, count), plan = named[0]
    for path, (_, n), other in named:
        if (n, other) != (count, plan):
            raise SnapshotError(
                f"shard {path} is a part of another recording of {snapshot!r} than {first_path} (another split or "
                "other requests): merge the parts of one recording"
            )
    seen: dict[int, Path] = {}
    for path, (k, _), _ in named:
        if k in seen:
            raise SnapshotError(f"shards {seen[k]} and {path} are both part {k}/{count} of {snapshot!r}")
        seen[k] = path
    missing = sorted(set(range(1, count + 1)) - set(seen))
    if missing:
        raise SnapshotError(
            f"the shards of {snapshot!r} lack part{'s' if len(missing) > 1 else ''} "
            f"{', '.join(f'{k}/{count}' for k in missing)}: record {'them' if len(missing) > 1 else 'it'} "
            "(record --shard K/N) and merge every part"
        )


def _copy_shards(store: Store, snapshot: str, paths: list[Path]) -> tuple[list[int], int, int, int]:
    """Every shard's interactions of ``snapshot`` into ``store``'s, in shard order: (held per shard, written,
    conflicts — a request at a seq an earlier shard answered otherwise; the earlier answer stands —, overlaps —
    one an earlier shard answered the same)."""
    held: list[int] = []
    merged = conflicts = overlaps = 0
    answers = {(i.request_key, i.seq): _answer(i) for i in store.interactions(snapshot)}  # read once, kept current
    for path in paths:
        with Store(path, readonly=True) as shard:
            fresh, count = [], 0
            for item in shard.interactions(snapshot):
                count += 1
                there = answers.get((item.request_key, item.seq))
                if there is None:
                    fresh.append(item)
                elif there != _answer(item):
                    conflicts += 1
                else:
                    overlaps += 1
            held.append(count)
            merged += _carry_over(store, snapshot, fresh, source=shard)
            answers.update({(i.request_key, i.seq): _answer(i) for i in fresh})
    return held, merged, conflicts, overlaps


def _answer(item: Any) -> tuple[int, dict[str, str], str]:
    return item.status, dict(item.response_headers), item.body_digest


def _open_for_merge(store: Store, snapshot: str, settings: Mapping[str, Any]) -> None:
    """Create ``snapshot`` with the shards' settings, or check an open one has them (a merge run again)."""
    with store.transaction(snapshot, create=False):
        if snapshot in store.snapshot_names():
            existing = store.snapshot(snapshot)
            if existing.sealed:
                raise SnapshotError(f"snapshot {snapshot!r} is sealed in {store.path}; merge into a new snapshot name")
            settled = existing.interactions or existing.as_of is not None
            differs = [
                f"{k} {getattr(existing, k)!r} (shards: {v!r})"
                for k, v in settings.items()
                if getattr(existing, k) != v
            ]
            if settled and differs:
                raise SnapshotError(
                    f"snapshot {snapshot!r} in {store.path} is open with other settings: {'; '.join(differs)}; "
                    "merge into a new snapshot name"
                )
        store.ensure_snapshot(snapshot, **settings)
        store.begin_recording(snapshot)
