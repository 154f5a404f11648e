"""The recorder: SQLite cassettes, pinned snapshots, strict offline replay, refresh.

``RecordTransport`` wraps any httpx transport per client; ``Store`` is the
cassette file; ``snapshots`` seals and verifies named snapshots with
manifests. Recording a probe workload and refreshing a snapshot against a
source drive the whole stack: they are stages (:mod:`kopa_replay.stages.workflows`).
"""

from kopa_replay.util import lazy_exports

# loaded on first use: importing the package (the command line does) stays cheap
__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "kopa_replay.record.redact": (
            "MASK",
            "Redactor",
            "redactor_for",
        ),
        "kopa_replay.record.store": (
            "SCHEMA_VERSION",
            "Interaction",
            "Snapshot",
            "Store",
            "default_store_path",
        ),
        "kopa_replay.record.transport": (
            "MODES",
            "AsyncRecordTransport",
            "RecordTransport",
            "decide",
        ),
    },
)

__all__ = [
    "MASK",
    "MODES",
    "SCHEMA_VERSION",
    "AsyncRecordTransport",
    "Interaction",
    "RecordTransport",
    "Redactor",
    "Snapshot",
    "Store",
    "decide",
    "default_store_path",
    "redactor_for",
]
