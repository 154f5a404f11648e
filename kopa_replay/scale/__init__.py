"""Scale-out: a stage's shards run in this process or on a Ray cluster, merged in a fixed order (the same bytes
whatever the executor or the number of workers)."""

from kopa_replay.util import lazy_exports

__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "kopa_replay.scale.executor": (
            "ExecutorSpec",
            "Executor",
            "WorkerPool",
            "open_executor",
            "shards_of",
            "EXECUTORS",
        )
    },
)
