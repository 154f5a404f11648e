"""Executors: run a stage's shards in this process or on a Ray cluster, results always in shard order.

A stage splits its work into shards that are a pure function of (inputs, seed, shard id) — by endpoint when
recording, by path batch when pruning, by attempt when synthesizing, by task when benchmarking — and hands them to
an executor. The executor decides only *where* a shard runs; it returns the results in the order the shards were
given, so merging them in that order makes the output the same bytes whatever the executor, the number of workers
or their timing. (Determinism comes from the split, not from Ray: ``ray.get`` over a list in a fixed order.)

Two shapes of work:

* :meth:`Executor.map` — independent tasks (``fn(item)`` for each item), e.g. one recording shard each;
* :meth:`Executor.pool` — a pool of stateful workers (one object per worker process, built once: an opened
  environment, a catalog, a sampler) that many small jobs are sent to, e.g. the batches of every pruning
  iteration.

``local`` runs everything in this process: ``map`` on ``workers`` threads (worth it where the work waits on the
network: recording, model servers), a pool as a single object. ``ray`` starts a local cluster with ``workers`` CPUs,
or joins the cluster at ``--ray-address``; functions and classes must be importable (module level) and their
arguments picklable.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Any, Literal, Protocol, TypeVar

from kopa_replay.errors import KopaError, UsageError

__all__ = [
    "ExecutorSpec",
    "Executor",
    "WorkerPool",
    "LocalExecutor",
    "RayExecutor",
    "open_executor",
    "shards_of",
    "EXECUTORS",
]

T = TypeVar("T")
R = TypeVar("R")

EXECUTORS = ("local", "ray")


@dataclass(frozen=True)
class ExecutorSpec:
    """Where shards run: ``local`` (this process) or ``ray``; ``workers`` at most at once."""

    kind: Literal["local", "ray"] = "local"
    workers: int = 1
    #: the cluster to join (``auto``, ``ray://host:10001``); None starts a local one with ``workers`` CPUs
    address: str | None = None

    def __post_init__(self) -> None:
        if self.kind not in EXECUTORS:
            raise UsageError(f"--executor must be one of {', '.join(EXECUTORS)}, not {self.kind!r}")
        if self.workers < 1:
            raise UsageError(f"--workers must be at least 1, not {self.workers}")
        if self.address is not None and self.kind != "ray":
            raise UsageError("--ray-address goes with --executor ray")


class WorkerPool(Protocol):
    """Stateful workers: ``run(method, jobs)`` calls ``worker.method(job)`` for each job, results in job order;
    ``close()`` calls each worker's ``close()`` (what it opened: an environment whose recorder must commit)."""

    size: int

    def run(self, method: str, jobs: Sequence[Any]) -> list[Any]: ...

    def close(self) -> None: ...


class Executor(Protocol):
    spec: ExecutorSpec

    def map(self, fn: Callable[[T], R], items: Sequence[T]) -> list[R]: ...

    def pool(self, factory: type, *args: Any) -> WorkerPool: ...

    def close(self) -> None: ...


class _LocalPool:
    """One worker object in this process: jobs run one after another."""

    size = 1

    def __init__(self, factory: type, *args: Any) -> None:
        self.worker = factory(*args)

    def run(self, method: str, jobs: Sequence[Any]) -> list[Any]:
        call = getattr(self.worker, method)
        return [call(job) for job in jobs]

    def close(self) -> None:
        if hasattr(self.worker, "close"):
            self.worker.close()


class LocalExecutor:
    def __init__(self, spec: ExecutorSpec) -> None:
        self.spec = spec

    def map(self, fn: Callable[[T], R], items: Sequence[T]) -> list[R]:
        if self.spec.workers == 1 or len(items) <= 1:
            return [fn(item) for item in items]
        with ThreadPoolExecutor(max_workers=self.spec.workers, thread_name_prefix="kopa-shard") as threads:
            return list(threads.map(fn, items))  # map keeps the items' order

    def pool(self, factory: type, *args: Any) -> WorkerPool:
        return _LocalPool(factory, *args)

    def close(self) -> None:
        pass


def _ray() -> Any:
    try:
        import ray
    except ImportError:
        raise UsageError("--executor ray needs Ray: pip install 'kopa-replay[ray]' (or use --executor local)") from None
    return ray


class _RayPool:
    """``size`` Ray actors; each job goes to the next actor round-robin, results come back in job order."""

    def __init__(self, ray: Any, factory: type, size: int, args: tuple[Any, ...]) -> None:
        self._ray = ray
        remote = ray.remote(num_cpus=1)(factory)
        shared = tuple(ray.put(arg) for arg in args)  # sent to the object store once, not once per actor
        # no more actors than the cluster has CPUs: an actor that can never be placed would hold its jobs forever
        cpus = int(ray.cluster_resources().get("CPU", 1))
        self.size = max(1, min(size, cpus))
        self.actors = [remote.remote(*shared) for _ in range(self.size)]
        self._closes = hasattr(factory, "close")

    def run(self, method: str, jobs: Sequence[Any]) -> list[Any]:
        # which actor runs a job never changes what it returns (a job is a pure function of itself and the
        # worker's read-only state), only when
        refs = [getattr(self.actors[i % self.size], method).remote(job) for i, job in enumerate(jobs)]
        return gather_in_order(self._ray, refs)

    def close(self) -> None:
        if self._closes:
            gather_in_order(self._ray, [actor.close.remote() for actor in self.actors])


def gather_in_order(ray: Any, refs: list[Any]) -> list[Any]:
    """The results of ``refs`` in order; a kopa-replay error a worker raised is raised here as itself (its one
    ``Error:`` line on the command line), not wrapped in Ray's task error with the worker's traceback; a worker
    Ray lost (crashed, out of memory, never started) is a :class:`KopaError` saying so."""
    try:
        return list(ray.get(refs))
    except ray.exceptions.RayTaskError as failed:
        cause = getattr(failed, "cause", None)
        if isinstance(cause, KopaError):
            raise cause from None
        raise
    except ray.exceptions.RayError as lost:
        first = str(lost).strip().splitlines()[0] if str(lost).strip() else ""
        raise KopaError(f"a Ray worker failed ({type(lost).__name__}): {first}") from None


def _check_reachable(address: str) -> None:
    """A HOST:PORT cluster address answers, or a clear error now: Ray itself retries an unreachable one for ever."""
    import socket

    if address == "auto" or "://" in address:
        return  # Ray finds "auto" itself, and a ray:// client fails fast
    host, _, port = address.rpartition(":")
    if not host or not port.isdigit():
        raise UsageError(f"--ray-address must be auto, ray://HOST:PORT or HOST:PORT, not {address!r}")
    try:
        socket.create_connection((host, int(port)), timeout=5).close()
    except OSError as exc:
        raise UsageError(f"cannot reach the Ray cluster at {address}: {exc.strerror or exc}") from None


class RayExecutor:
    def __init__(self, spec: ExecutorSpec) -> None:
        self.spec = spec
        self._ray = _ray()
        self._started = False
        if spec.address:
            _check_reachable(spec.address)
        if not self._ray.is_initialized():
            options: dict[str, Any] = {"include_dashboard": False, "log_to_driver": False, "logging_level": "ERROR"}
            if spec.address:
                options["address"] = spec.address
            else:
                options["num_cpus"] = spec.workers
            # nothing of this process's environment is handed to Ray (its runtime env is logged and kept in the
            # cluster's job table: API keys would be too); a local cluster's workers inherit it, a joined cluster's
            # nodes need their own keys and settings
            try:
                self._ray.init(**options)
            except (ConnectionError, RuntimeError, ValueError) as exc:
                where = spec.address or "a local cluster"
                raise UsageError(f"cannot start Ray on {where}: {exc}") from None
            self._started = True

    def map(self, fn: Callable[[T], R], items: Sequence[T]) -> list[R]:
        remote = self._ray.remote(num_cpus=1)(fn)
        refs: list[Any] = []
        running: list[Any] = []
        for item in items:
            if len(running) >= self.spec.workers:  # at most ``workers`` in flight, on any size of cluster
                _, running = self._ray.wait(running, num_returns=1)
            refs.append(remote.remote(item))
            running.append(refs[-1])
        return gather_in_order(self._ray, refs)  # in submission order, whatever finished first

    def pool(self, factory: type, *args: Any) -> WorkerPool:
        return _RayPool(self._ray, factory, self.spec.workers, args)

    def close(self) -> None:
        if self._started:
            self._ray.shutdown()
            self._started = False


class _Opened(AbstractContextManager):
    def __init__(self, executor: Any) -> None:
        self.executor = executor

    def __enter__(self) -> Any:
        return self.executor

    def __exit__(self, *exc: object) -> None:
        self.executor.close()


def open_executor(spec: ExecutorSpec) -> AbstractContextManager[Executor]:
    """The executor ``spec`` names, closed (a cluster it started shut down) on leaving the ``with``."""
    return _Opened(RayExecutor(spec) if spec.kind == "ray" else LocalExecutor(spec))


def shards_of(items: Iterable[T], count: int, weight: Callable[[T], int] = lambda _: 1) -> list[list[T]]:
    """``items`` (groups that must stay whole) dealt into ``count`` shards, heaviest first to the lightest shard
    (ties to the lower index): a deterministic balance that depends only on the items and their weights."""
    dealt: list[list[tuple[int, T]]] = [[] for _ in range(count)]
    loads = [0] * count
    for index, item in sorted(enumerate(items), key=lambda pair: (-weight(pair[1]), pair[0])):
        lightest = min(range(count), key=lambda i: (loads[i], i))
        dealt[lightest].append((index, item))
        loads[lightest] += weight(item)
    return [[item for _, item in sorted(shard, key=lambda pair: pair[0])] for shard in dealt]  # given order kept
