"""kill -9 during recording leaves a clean store; concurrent recorders lose nothing."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from kopa_replay.record import Store

WORKER = Path(__file__).with_name("recorder_worker.py")


def _worker(store, snapshot, worker, count):
    return subprocess.Popen(
        [sys.executable, str(WORKER), str(store), snapshot, str(worker), str(count)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def test_kill_9_mid_recording_keeps_every_committed_interaction(tmp_path):
    store_path = tmp_path / "store.sqlite"
    Store(store_path).ensure_snapshot("k")
    process = _worker(store_path, "k", 1, 100_000)
    committed = 0
    for line in process.stdout:
        committed = int(line.split()[1])  # with commit_every 1, printed once committed
        if committed >= 40:
            break
    os.kill(process.pid, signal.SIGKILL)
    process.communicate()
    assert process.returncode == -signal.SIGKILL
    store = Store(store_path)
    assert store.verify() == []
    count = store.stats()["interactions"]
    assert committed <= count <= committed + 1  # the one in flight may or may not have landed, whole


@pytest.mark.parametrize("workers", [4])
def test_four_processes_recording_at_once_lose_nothing(tmp_path, workers):
    store_path = tmp_path / "store.sqlite"
    Store(store_path).ensure_snapshot("c")
    per_worker = 25
    processes = [_worker(store_path, "c", w, per_worker) for w in range(1, workers + 1)]
    for process in processes:
        out, err = process.communicate(timeout=120)
        assert process.returncode == 0, err
    store = Store(store_path)
    assert store.verify() == []
    interactions = list(store.interactions("c"))
    assert len(interactions) == workers * per_worker + 1
    shared = [i for i in interactions if "pageNo=999" in i.url]
    assert [i.seq for i in shared] == [1]  # every worker's first occurrence of it is one answer, written once
