"""What masking keys in response bodies costs: `Redactor.scrub_bytes` beside the least a masker can do.

Every body recorded from a live, mirror or simulated source is scrubbed for the keys in use, in every spelling an
echo may take (kopa_replay.record.redact). The baseline, in the same run: `bytes.replace` of each key's literal
UTF-8 bytes — what a masker that knows only the key as sent would cost. Bodies: JSON (UTF-8 and ASCII-escaped) and
XML of 2-20 KB in the platforms' shapes, some echoing a key; keys: a 40-hex OpenDART key and a ~100-character
base64 data.go.kr key.

    python benchmarks/bench_scrub.py [--rounds 200] [--json]
"""

from __future__ import annotations

import argparse
import json
import timeit

import numpy as np

from kopa_replay.record.redact import MASK, Redactor

NAMES = ("삼성전자", "서울특별시 중구 세종대로 110", "도로교통법", "주식회사 카카오", "한국거래소")


def _keys(rng: np.random.Generator) -> tuple[str, str]:
    dart = "".join(rng.choice(list("0123456789abcdef"), 40))
    alphabet = list("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")
    return dart, "".join(rng.choice(alphabet, 98)) + "=="


def _bodies(rng: np.random.Generator, dart: str, data: str) -> list[tuple[str, bytes]]:
    def record(i: int) -> dict:
        return {
            "corp_code": f"{i:08d}",
            "corp_name": NAMES[int(rng.integers(len(NAMES)))],
            "hm_url": f"https://www.example{i}.co.kr/ir?a=1&b=2",
            "amount": int(rng.integers(10**9)),
        }

    out = []
    for n in (10, 40, 80):
        doc = {"status": "000", "message": "정상", "list": [record(i) for i in range(n)]}
        if n == 40:
            doc["link"] = f"https://opendart.fss.or.kr/api/x.json?crtfc_key={dart}"  # an echo, as sent
        out.append(("json utf-8", json.dumps(doc, ensure_ascii=False).encode()))
        out.append(("json ascii", json.dumps(doc, ensure_ascii=True).encode()))
        rows = "".join(
            f"<row><법령명>{NAMES[i % len(NAMES)]}</법령명><링크>/DRF/lawService.do?OC={data if n == 80 else 'x'}"
            f"&amp;target=law&amp;MST={i}</링크></row>"
            for i in range(n)
        )
        out.append(("xml", f'<?xml version="1.0" encoding="UTF-8"?><response><body>{rows}</body></response>'.encode()))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=200)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    dart, data = _keys(rng)
    bodies = _bodies(rng, dart, data)
    redactor = Redactor(secret_values=(dart, data))
    literal = [k.encode() for k in (dart, data)]
    mask = MASK.encode()

    def baseline(body: bytes) -> bytes:
        for key in literal:
            body = body.replace(key, mask)
        return body

    rows = []
    for kind, body in bodies:
        assert dart.encode() not in redactor.scrub_bytes(body) and data.encode() not in redactor.scrub_bytes(body)
        ours = min(timeit.repeat(lambda: redactor.scrub_bytes(body), number=args.rounds, repeat=5)) / args.rounds
        floor = min(timeit.repeat(lambda: baseline(body), number=args.rounds, repeat=5)) / args.rounds
        rows.append({"body": kind, "kb": round(len(body) / 1024, 1), "scrub_us": ours * 1e6, "replace_us": floor * 1e6})
    total_kb = sum(r["kb"] for r in rows)
    summary = {
        "bodies": rows,
        "scrub_us_per_kb": sum(r["scrub_us"] for r in rows) / total_kb,
        "replace_us_per_kb": sum(r["replace_us"] for r in rows) / total_kb,
    }
    summary["ratio"] = summary["scrub_us_per_kb"] / summary["replace_us_per_kb"]
    if args.json:
        print(json.dumps(summary, indent=2))
        return
    print(f"{'body':<11} {'KB':>5} {'scrub µs':>9} {'replace µs':>10}")
    for r in rows:
        print(f"{r['body']:<11} {r['kb']:>5} {r['scrub_us']:>9.1f} {r['replace_us']:>10.1f}")
    print(
        f"scrub_bytes {summary['scrub_us_per_kb']:.2f} µs/KB, literal replace {summary['replace_us_per_kb']:.2f} µs/KB: "
        f"{summary['ratio']:.1f}x the least a masker can do"
    )


if __name__ == "__main__":
    main()
