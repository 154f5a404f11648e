"""A recording process for the crash and concurrency tests (run as a script, not collected).

Usage: python recorder_worker.py STORE SNAPSHOT WORKER COUNT [COMMIT_EVERY]
    Records COUNT distinct requests plus one request shared by every worker, printing "sent N" after
    each (with COMMIT_EVERY 1, the default here, each is committed before it is printed).
Usage: python recorder_worker.py --race STORE SNAPSHOT ORDER_SEED
    Runs the race workload (``race_requests``) in replay-or-record mode, in an order shuffled by
    ORDER_SEED, and prints nothing.
"""

import sys

import httpx
import numpy as np

from kopa_replay.record import RecordTransport, Store
from kopa_replay.sim import SimTransport, Simulator

URL = (
    "https://apis.data.go.kr/1160100/service/GetStockSecuritiesInfoService/getStockPriceInfo"
    "?serviceKey=sim-key&resultType=json&basDt=20260831&numOfRows=3&pageNo={}"
)


def race_requests() -> list[str]:
    """Forty requests, eight of them asked twice: what racing workers all ask, each in its own order."""
    distinct = [URL.format(page) for page in range(1, 33)]
    return distinct + distinct[:8]


def record(store_path: str, snapshot: str, worker: int, count: int, commit_every: int) -> None:
    transport = RecordTransport(
        SimTransport(Simulator(seed=0)), Store(store_path), snapshot, "record", commit_every=commit_every
    )
    with httpx.Client(transport=transport) as client:
        client.get(URL.format(999))  # the request every worker shares
        print("sent 1", flush=True)
        for i in range(count):
            client.get(URL.format(worker * 100_000 + i + 1) + f"&likeItmsNm=w{worker}")
            print(f"sent {i + 2}", flush=True)


def race(store_path: str, snapshot: str, order_seed: int) -> None:
    requests = race_requests()
    order = np.random.default_rng(order_seed).permutation(len(requests))
    transport = RecordTransport(SimTransport(Simulator(seed=0)), Store(store_path), snapshot, "replay-or-record")
    with httpx.Client(transport=transport) as client:
        for index in order:
            client.get(requests[index])


if __name__ == "__main__":
    if sys.argv[1] == "--race":
        race(sys.argv[2], sys.argv[3], int(sys.argv[4]))
    else:
        record(
            sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5]) if len(sys.argv) > 5 else 1
        )
