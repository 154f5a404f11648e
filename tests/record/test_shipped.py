"""The shipped default: the package's data/cassettes/kopa.sqlite holds sealed snapshot 2026-09-01, reproducible from the simulator."""

from __future__ import annotations

import json
import subprocess
import sys

from kopa_replay.bench.suite import benchmark_workload
from kopa_replay.env import open_source
from kopa_replay.record import Store
from kopa_replay.record.snapshots import verify_snapshot
from kopa_replay.record.store import shipped_store_path
from kopa_replay.sim.simulator import DEFAULT_AS_OF
from kopa_replay.stages.showcase import walk_lightron
from kopa_replay.stages.workflows import record_snapshot

SHIPPED = shipped_store_path()
MANIFEST = shipped_store_path().parents[1] / "snapshots" / "2026-09-01.json"


def test_the_shipped_snapshot_is_sealed_and_verifies():
    store = Store(SHIPPED, readonly=True)
    assert store.snapshot("2026-09-01").sealed
    assert verify_snapshot(store, "2026-09-01") == []
    assert store.verify() == []


def test_re_recording_from_the_simulator_reproduces_the_shipped_digest(tmp_path, catalog):
    manifest = json.loads(MANIFEST.read_text(encoding="utf-8"))
    source = manifest["source"]  # the world it was recorded on: sim:full, the platforms at their real sizes
    workload = benchmark_workload(catalog, source=source, seed=manifest["seed"], as_of="2026-09-01")
    assert workload, "the shipped benchmark's calls belong in the shipped snapshot"
    again = record_snapshot(
        catalog,
        store_path=tmp_path / "again.sqlite",
        snapshot="2026-09-01",
        source=source,
        as_of="2026-09-01",
        seed=manifest["seed"],
        requests=workload,
    )
    assert again.manifest["digest"] == manifest["digest"], (
        "the simulator or the catalog examples changed: re-record the shipped snapshot (README)"
    )
    assert again.manifest == {**manifest, "kopa_replay": again.manifest["kopa_replay"]}


def test_the_showcase_replays_offline_from_the_shipped_snapshot(catalog, no_network):
    with open_source("replay", snapshot="2026-09-01", store=SHIPPED, catalog=catalog) as source:
        result = walk_lightron(catalog, source, DEFAULT_AS_OF)
    assert (result.floor_price, result.prior_close) == (532, 1680)
    assert no_network == []


def test_replaying_the_shipped_snapshot_imports_no_data_frame_library():
    """A fresh process that opens the default snapshot and answers a call — every ``bench run``, MCP server and
    GRPO worker — does not import pandas (sqlite-utils imports it when installed: ≈0.4 s of each such process here,
    and tens of thousands of objects every full garbage collection walks through afterwards)."""
    script = (
        "import sys\n"
        "from kopa_replay.catalog import builtin_catalog\n"
        "from kopa_replay.env import ToolEnvironment\n"
        "catalog = builtin_catalog()\n"
        "tool = catalog.get('datagokr_get_stock_price_info')\n"
        "with ToolEnvironment.open(catalog) as env:\n"
        "    result = env.call(tool.name, dict(tool.examples[0]))\n"
        "assert result.outcome == 'ok', result\n"
        "print(sorted(sys.modules.keys() & {'pandas', 'pyarrow', 'sqlite_utils'}))\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"
