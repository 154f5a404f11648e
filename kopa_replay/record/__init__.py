"""The recorder: SQLite cassettes, pinned snapshots, strict offline replay, refresh.

``RecordTransport`` wraps any httpx transport per client; ``Store`` is the
cassette file; ``snapshots`` seals and verifies named snapshots with
manifests; ``workflows`` records a probe workload and refreshes a snapshot
against a source.
"""

from kopa_replay.record.redact import MASK, Redactor, redactor_for
from kopa_replay.record.store import SCHEMA_VERSION, Interaction, Snapshot, Store, default_store_path
from kopa_replay.record.transport import MODES, AsyncRecordTransport, RecordTransport, decide

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
