"""A recording process for the crash and concurrency tests (run as a script, not collected).

Usage: python recorder_worker.py STORE SNAPSHOT WORKER COUNT
Records COUNT distinct requests plus one request shared by every worker, printing
"committed N" after each interaction is committed.
"""

import sys

import httpx

from kopa_replay.record import RecordTransport, Store
from kopa_replay.sim import SimTransport, Simulator

URL = ("https://apis.data.go.kr/1160100/service/GetStockSecuritiesInfoService/getStockPriceInfo"
       "?serviceKey=sim-key&resultType=json&basDt=20260831&numOfRows=3&pageNo={}")


def main() -> None:
    store_path, snapshot, worker, count = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    transport = RecordTransport(SimTransport(Simulator(seed=0)), Store(store_path), snapshot, "record")
    with httpx.Client(transport=transport) as client:
        client.get(URL.format(999))  # the request every worker shares
        print("committed 1", flush=True)
        for i in range(count):
            client.get(URL.format(worker * 100_000 + i + 1) + f"&likeItmsNm=w{worker}")
            print(f"committed {i + 2}", flush=True)


if __name__ == "__main__":
    main()
