"""The store tried as a hostile tester would: kill -9 at random moments then resume, concurrent recorders on one
store and on one snapshot, racing replay-or-record workers, single-bit flips in every kind of blob, header
edits past the triggers. Each ends in the snapshot one uninterrupted, sequential recorder makes, or a clear
refusal — never a wrong answer."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from hostile import edit_past_triggers

import kopa_replay.catalog
from kopa_replay.errors import SnapshotError, StoreError
from kopa_replay.record import Store
from kopa_replay.record.snapshots import check_pinned, snapshot_digest, verify_snapshot
from kopa_replay.record.store import shipped_store_path

WORKER = Path(__file__).with_name("recorder_worker.py")
BUILTIN = Path(kopa_replay.catalog.__file__).parent / "builtin"
AS_OF = "2026-09-01"


def _cli(*args: str) -> list[str]:
    return [sys.executable, "-c", "from kopa_replay.cli import main; main()", *args]


#: the recorder's mechanics do not depend on how many platforms it records: five platforms' catalog files (169
#: requests on the small world) give ten kill points mid-recording at a third of the whole catalog's time
PLATFORMS = ("seoul", "gg", "neis", "tago", "seoulbus")
CATALOG = [arg for name in PLATFORMS for arg in ("--catalog", str(BUILTIN / f"{name}.yaml"))]


def _record(store: Path, snapshot: str, *extra: str) -> subprocess.Popen:
    """`kopa-replay record` of the probe workload (every tool's examples and largest pages) from the simulator."""
    return subprocess.Popen(
        _cli("record", "--snapshot", snapshot, "--as-of", AS_OF, "--no-bench", "--store", str(store), *CATALOG, *extra),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _finish(process: subprocess.Popen) -> str:
    out, err = process.communicate(timeout=300)
    assert process.returncode == 0, err
    return out


@pytest.fixture(scope="module")
def reference(tmp_path_factory) -> tuple[str, int]:
    """The digest and size of one uninterrupted recording, by a single process."""
    store = tmp_path_factory.mktemp("reference") / "cassettes" / "kopa.sqlite"
    _finish(_record(store, "ref"))
    opened = Store(store, readonly=True)
    return opened.snapshot("ref").digest, opened.snapshot("ref").interactions


def _hack(path: Path, *sql: str, params: tuple = ()) -> None:
    """Edit the file with the store's triggers dropped (and put back after)."""
    edit_past_triggers(path, *sql, params=params)


def _committed(store: Path, snapshot: str) -> int:
    if not store.exists():
        return 0
    with Store(store, readonly=True) as reader:
        return reader.snapshot(snapshot).interactions if snapshot in reader.snapshot_names() else 0


@pytest.mark.slow
def test_kill_9_at_ten_random_moments_then_resume_gives_the_uninterrupted_snapshot(tmp_path, reference):
    store = tmp_path / "cassettes" / "kopa.sqlite"
    total = reference[1]
    # ten random points of the recording's progress; each run (resuming the last) is killed once its commits
    # pass the next point: moments spread over one recording whatever the machine's speed
    targets = sorted(np.random.default_rng(14).choice(np.arange(1, total - 24), size=10, replace=False))
    held = []
    for target in targets:
        process = _record(store, "k", "--commit-every", "4")
        while process.poll() is None and _committed(store, "k") < target:
            time.sleep(0.01)
        if process.poll() is None:
            os.kill(process.pid, signal.SIGKILL)
        process.communicate()
        opened = Store(store, readonly=True)
        assert opened.verify() == []
        info = opened.snapshot("k")
        assert info.unfinished or info.sealed
        held.append(info.interactions)
        opened.close()
    midway = [count for count in held if 0 < count < total]
    assert len(midway) >= 8, f"the kills should land mid-recording: {held}"
    assert held == sorted(held), "a resumed recording never loses what an earlier run committed"
    if Store(store, readonly=True).snapshot("k").unfinished:
        seal = subprocess.run(
            _cli("snapshot", "seal", "k", "--store", str(store), *CATALOG), capture_output=True, text=True
        )
        assert seal.returncode == 1 and "did not finish" in seal.stderr and "--force" in seal.stderr
    _finish(_record(store, "k"))  # resume: only what is missing is sent
    final = Store(store, readonly=True)
    assert (final.snapshot("k").digest, final.snapshot("k").interactions) == reference
    assert verify_snapshot(final, "k") == []


@pytest.mark.slow
def test_four_record_processes_on_one_store_then_on_one_snapshot(tmp_path, reference):
    store = tmp_path / "cassettes" / "kopa.sqlite"
    for process in [_record(store, f"s{i}") for i in range(4)]:  # different snapshots, sealed at the end
        _finish(process)
    opened = Store(store, readonly=True)
    assert [(opened.snapshot(f"s{i}").digest, opened.snapshot(f"s{i}").interactions) for i in range(4)] == [
        reference
    ] * 4
    opened.close()
    # one shared snapshot: recorders fill it, the last one to need it seals it
    for process in [_record(store, "shared", "--no-seal") for _ in range(4)]:
        _finish(process)
    seal = subprocess.run(
        _cli("snapshot", "seal", "shared", "--store", str(store), *CATALOG), capture_output=True, text=True
    )
    assert seal.returncode == 0, seal.stderr
    opened = Store(store, readonly=True)
    assert (opened.snapshot("shared").digest, opened.snapshot("shared").interactions) == reference
    assert opened.verify() == [] and verify_snapshot(opened, "shared") == []


def _race(store: Path, snapshot: str, seeds: list[int]) -> None:
    processes = [
        subprocess.Popen(
            [sys.executable, str(WORKER), "--race", str(store), snapshot, str(seed)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for seed in seeds
    ]
    for process in processes:
        _finish(process)


def test_racing_replay_or_record_workers_give_the_sequential_digest(tmp_path):
    sequential, racing = tmp_path / "sequential.sqlite", tmp_path / "racing.sqlite"
    _race(sequential, "r", [0])
    _race(racing, "r", [1, 2, 3, 4])
    one, many = Store(sequential, readonly=True), Store(racing, readonly=True)
    assert one.snapshot("r").interactions == many.snapshot("r").interactions == 32  # each request once
    assert snapshot_digest(many, "r") == snapshot_digest(one, "r")


def test_every_sampled_single_bit_flip_is_refused_or_harmless(tmp_path):
    """Flip one bit of a stored blob (raw and zstd ones alike) and read it back as replay does: a StoreError
    naming the body, or the very same bytes. 0 changed answers."""
    store_path = tmp_path / "kopa.sqlite"
    store_path.write_bytes(shipped_store_path().read_bytes())
    conn = sqlite3.connect(store_path)
    blobs = conn.execute("SELECT digest, codec, data FROM blobs ORDER BY digest").fetchall()
    conn.close()
    codecs = {codec for _, codec, _ in blobs}
    assert "raw" in codecs and any(c.startswith("zstd:") for c in codecs)  # plain and dictionary-coded alike
    rng = np.random.default_rng(2026)
    refused = harmless = changed = 0
    for index in rng.choice(len(blobs), size=240):
        digest, codec, data = blobs[index]
        original = Store(store_path, readonly=True)._decode(codec, data)
        flipped = bytearray(data)
        position = int(rng.integers(len(flipped)))
        flipped[position] ^= 1 << int(rng.integers(8))
        edit_past_triggers(store_path, "UPDATE blobs SET data = ? WHERE digest = ?", params=(bytes(flipped), digest))
        reader = Store(store_path, readonly=True)  # a new process's view: nothing verified yet
        try:
            served = reader.body(digest)
        except StoreError as exc:
            assert digest[:12] in str(exc) and "Traceback" not in str(exc)
            refused += 1
        else:
            harmless += served == original
            changed += served != original
        reader.close()
        edit_past_triggers(store_path, "UPDATE blobs SET data = ? WHERE digest = ?", params=(data, digest))
    assert changed == 0 and refused + harmless == 240 and refused > 200


@pytest.mark.parametrize(
    "statement",
    [
        'UPDATE interactions SET response_headers = \'{"content-type": "application/zip"}\' WHERE rowid = '
        "(SELECT MIN(rowid) FROM interactions)",
        'UPDATE interactions SET response_headers = \'{"content-disposition": "attachment; filename=x.zip", '
        '"content-type": "application/json;charset=UTF-8"}\' WHERE rowid = (SELECT MIN(rowid) FROM interactions)',
        "UPDATE interactions SET status = 503 WHERE rowid = (SELECT MAX(rowid) FROM interactions)",
    ],
)
def test_header_and_status_edits_of_a_sealed_snapshot_are_caught(tmp_path, statement):
    """The digest covers every header replay serves (version 2), so even a header the version 1 digest did
    not cover is caught by `snapshot verify` and by pinned replay."""
    store_path = tmp_path / "cassettes" / "kopa.sqlite"
    store_path.parent.mkdir()
    recorded = Store(store_path)
    recorded.append(
        snapshot="s",
        request_key="k",
        tool="t",
        method="GET",
        url="https://h/p",
        request_headers={},
        status=200,
        response_headers={"content-type": "application/json;charset=UTF-8"},
        body=b"{}",
    )
    recorded.append(
        snapshot="s",
        request_key="l",
        tool="t",
        method="GET",
        url="https://h/q",
        request_headers={},
        status=200,
        response_headers={"content-type": "application/json;charset=UTF-8"},
        body=b"[]",
    )
    from kopa_replay.catalog import builtin_catalog
    from kopa_replay.drift.recorded import tool_schema_digests
    from kopa_replay.record.snapshots import seal_snapshot

    manifest = seal_snapshot(recorded, "s", builtin_catalog(), tool_digests=tool_schema_digests)
    assert manifest["digest_version"] == 3
    recorded.close()
    _hack(store_path, statement)
    fresh = Store(store_path, readonly=True)
    assert any("hash to" in p for p in verify_snapshot(fresh, "s"))
    with pytest.raises(SnapshotError, match="the store was edited"):
        check_pinned(fresh, "s")


def test_an_idle_recorder_commits_what_it_recorded_without_being_closed(tmp_path):
    """Batched commits never hold an answer back indefinitely: an idle recorder's timer commits it, so a kill -9
    after a pause loses nothing."""
    import httpx

    from kopa_replay.record import RecordTransport
    from kopa_replay.sim import SimTransport, Simulator

    path = tmp_path / "idle.sqlite"
    transport = RecordTransport(SimTransport(Simulator(seed=0)), Store(path), "idle", "record")
    client = httpx.Client(transport=transport)
    client.get("https://opendart.fss.or.kr/api/company.json?crtfc_key=sim-key&corp_code=00439743")
    seen = 0
    for _ in range(100):  # up to 10 s; the timer fires after 0.5 s
        with Store(path, readonly=True) as reader:
            seen = reader.snapshot("idle").interactions
        if seen:
            break
        time.sleep(0.1)
    assert seen == 1
    client.close()


def _two_answer_snapshot(path: Path) -> tuple[Store, list]:
    import httpx

    from kopa_replay.record import RecordTransport

    bodies = {"/a": b"answer A", "/b": b"answer B"}
    inner = httpx.MockTransport(
        lambda r: httpx.Response(200, headers={"content-type": "text/plain"}, content=bodies[r.url.path])
    )
    store = Store(path)
    with httpx.Client(transport=RecordTransport(inner, store, "snap", "record", commit_every=1)) as client:
        for route in ("/a", "/b"):
            client.get("http://x.test" + route, extensions={"kopa_tool": "t_x"})
    return store, list(store.interactions("snap"))


def test_a_row_forged_to_carry_the_next_rows_text_does_not_pass_the_digest(tmp_path):
    """Versions 2 and 3 hash one JSON array per row: a tool name holding tabs and a newline cannot make one row read
    as two (with tab-joined lines it could: the same bytes hashed, and replay served B for A)."""
    import json

    from kopa_replay.catalog import builtin_catalog
    from kopa_replay.drift.recorded import tool_schema_digests
    from kopa_replay.record.snapshots import seal_snapshot

    store, (first, second) = _two_answer_snapshot(tmp_path / "s.sqlite")
    seal_snapshot(store, "snap", builtin_catalog(), tool_digests=tool_schema_digests)  # the manifest pins it
    headers = json.dumps(first.response_headers, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    forged = (
        "\t".join([first.tool, str(first.status), headers, first.body_digest])
        + "\n"
        + "\t".join([second.request_key, str(second.seq), second.tool])
    )
    _hack(store.path, "DELETE FROM interactions WHERE request_key = ?", params=(second.request_key,))
    _hack(
        store.path,
        "UPDATE interactions SET tool = ?, body = ? WHERE request_key = ?",
        params=(forged, second.body_digest, first.request_key),
    )
    fresh = Store(store.path, readonly=True)
    assert any("hash to" in p for p in verify_snapshot(fresh, "snap"))
    with pytest.raises(SnapshotError, match="the store was edited"):
        check_pinned(fresh, "snap")


def test_a_gap_in_the_recorded_seqs_is_filled_not_skipped(tmp_path):
    """A store holding answers 1 and 3 of a request (a send failed, a recorder died mid-batch): resuming serves 1,
    sends and records the 2nd occurrence, serves 3."""
    import httpx

    from kopa_replay.record import RecordTransport
    from kopa_replay.record.store import RecordedRow

    store = Store(tmp_path / "g.sqlite")
    url = "http://x.test/q"
    key = RecordTransport(None, store, "g", "record")._core.redactor.request_key("GET", url, b"")
    store.put_many("g", [RecordedRow(key, "t", "GET", url, {}, 200, {}, f"#{seq}".encode(), seq) for seq in (1, 3)])
    sent = []

    def live(request):
        sent.append(request)
        return httpx.Response(200, content=b"live")

    with httpx.Client(transport=RecordTransport(httpx.MockTransport(live), store, "g", "record")) as client:
        served = [client.get(url).content for _ in range(3)]
    assert served == [b"#1", b"live", b"#3"] and len(sent) == 1
    assert [store.body(a[2]) for a in store.answers("g", key).values()] == [b"#1", b"live", b"#3"]


def test_a_failed_send_does_not_spend_its_occurrence(tmp_path):
    import httpx

    from kopa_replay.record import RecordTransport

    calls = []

    def flaky(request):
        calls.append(request)
        if len(calls) == 1:
            raise httpx.ConnectTimeout("timed out", request=request)
        return httpx.Response(200, content=b"ok")

    store = Store(tmp_path / "f.sqlite")
    for mode in ("record", "replay-or-record"):
        calls.clear()
        with httpx.Client(transport=RecordTransport(httpx.MockTransport(flaky), store, mode, mode)) as client:
            with pytest.raises(httpx.ConnectTimeout):
                client.get("http://x.test/q")
            assert client.get("http://x.test/q").content == b"ok"  # the retry
        assert [seq for seq in store.answers(mode, next(iter({i.request_key for i in store.interactions(mode)})))] == [
            1
        ]


def test_threads_sharing_one_replay_or_record_transport_record_a_request_once(tmp_path):
    import threading

    import httpx

    from kopa_replay.record import RecordTransport

    gate = threading.Barrier(4)

    def slow(request):
        return httpx.Response(200, content=b"same")

    store = Store(tmp_path / "t.sqlite")
    client = httpx.Client(transport=RecordTransport(httpx.MockTransport(slow), store, "t", "replay-or-record"))

    def ask():
        gate.wait()
        client.get("http://x.test/q")

    threads = [threading.Thread(target=ask) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    client.close()
    assert store.snapshot("t").interactions == 1


def test_a_rolled_back_dictionary_is_never_used(tmp_path):
    """A dictionary trained inside a transaction that rolls back is gone from the file: nothing may be written with
    it afterwards (those bodies would be unreadable)."""
    from kopa_replay.record.store import RecordedRow

    store = Store(tmp_path / "r.sqlite")

    def body(n: int) -> bytes:
        return (
            f'{{"corp_code": "{n:08d}", "corp_name": "회사{n}", "stock_code": "{n:06d}", '
            f'"modify_date": "2026{1 + n % 12:02d}01", "pad": "{"가나다라" * (n % 7 + 10)}"}}'
        ).encode()

    store.put_many(
        "open", [RecordedRow(f"k{n}", "dart_company", "GET", "u", {}, 200, {}, body(n), 1) for n in range(47)]
    )
    store.put_many("sealed", [RecordedRow("z", "t", "GET", "u", {}, 200, {}, b"z", 1)])
    store.seal("sealed", "d")
    with pytest.raises(SnapshotError):  # the 48th dart body trains a dictionary, then the write is refused
        store.put_many(
            "sealed", [RecordedRow(f"k{n}", "dart_company", "GET", "u", {}, 200, {}, body(n), 2) for n in range(47, 52)]
        )
    assert store.conn.execute("SELECT COUNT(*) FROM dictionaries").fetchone()[0] == 0
    store.put_many(
        "open", [RecordedRow(f"k{n}", "dart_company", "GET", "u", {}, 200, {}, body(n), 1) for n in range(47, 120)]
    )
    fresh = Store(store.path, readonly=True)
    assert fresh.verify() == []
    assert [fresh.body(a[2]) for n in range(120) for a in fresh.answers("open", f"k{n}").values()] == [
        body(n) for n in range(120)
    ]


def test_threads_replaying_from_one_store_get_the_right_bodies(tmp_path):
    """zstandard's decompressors are not thread-safe: each thread has its own."""
    import threading

    from kopa_replay.record.store import RecordedRow

    store = Store(tmp_path / "p.sqlite")
    bodies = [(f'{{"n": {n}, "text": "' + "값" * (200 + n) + '"}').encode() for n in range(200)]
    store.put_many("p", [RecordedRow(f"k{n}", "law_x", "GET", "u", {}, 200, {}, b, 1) for n, b in enumerate(bodies)])
    reader = Store(store.path, readonly=True)
    digests = [a[2] for n in range(200) for a in reader.answers("p", f"k{n}").values()]
    wrong: list[int] = []

    def read(offset: int) -> None:
        for n in range(offset, 200, 4):
            if reader.body(digests[n]) != bodies[n]:
                wrong.append(n)

    threads = [threading.Thread(target=read, args=(i,)) for i in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert wrong == []
