"""Stores the record tests build: many realistic bodies of one platform, enough for the store to train a zstd
dictionary from them (codec ``zstd:ID``)."""

from __future__ import annotations

import json

from kopa_replay.record import Store


def platform_bodies(count: int) -> list[bytes]:
    """Distinct, realistic JSON bodies of one platform."""
    return [
        json.dumps(
            {
                "response": {
                    "header": {"resultCode": "00", "resultMsg": "NORMAL SERVICE."},
                    "body": {
                        "items": {
                            "item": [
                                {
                                    "basDt": f"2026{m:02d}{d:02d}",
                                    "srtnCd": f"{n:06d}",
                                    "itmsNm": f"종목{n}",
                                    "clpr": str(1000 + n * 7 + d),
                                    "vs": str(d - 15),
                                    "mrktCtg": "KOSDAQ",
                                }
                                for d in range(1, 6)
                            ]
                        },
                        "numOfRows": 5,
                        "pageNo": 1,
                        "totalCount": 5,
                    },
                }
            },
            ensure_ascii=False,
        ).encode()
        for n, m in ((n, 1 + n % 12) for n in range(count))
    ]


def append_bodies(store: Store, bodies: list[bytes], tool: str = "datagokr_x", url: str = "https://h/p") -> None:
    """Each body as the answer to request key ``k<n>`` of snapshot "s", recorded for ``tool``."""
    for n, body in enumerate(bodies):
        store.append(
            snapshot="s",
            request_key=f"k{n}",
            tool=tool,
            method="GET",
            url=url.format(n=n),
            request_headers={},
            status=200,
            response_headers={},
            body=body,
        )
