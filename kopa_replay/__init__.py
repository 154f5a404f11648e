"""kopa-replay: offline record/replay and simulation of Korean open public APIs.

The public surface is re-exported here; implementation lives in one subpackage
per concept (catalog, sim, env, ...).
"""

from kopa_replay.errors import (
    CassetteMiss,
    CatalogError,
    DriftError,
    KopaError,
    SimError,
    SnapshotError,
    SourceError,
    StoreError,
    UnknownTool,
    UsageError,
)

__version__ = "0.1.0"

__all__ = [
    "__version__",
    "KopaError",
    "UsageError",
    "CatalogError",
    "UnknownTool",
    "SimError",
    "SourceError",
    "StoreError",
    "SnapshotError",
    "CassetteMiss",
    "DriftError",
]
