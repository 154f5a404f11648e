"""Incidents against classes: the confusion matrix of every injected incident kind and the class assigned.

Rows are the incident kinds of ``kopa_replay.sim.incidents.INCIDENT_KINDS`` (each at rate 1, its truth its
``truth``: a retry storm is environmental on its first three attempts), the same storm met by an environment that
retries three times (the answer: ok), and the natural answers with no incident (an answer, no data, a missing
parameter sent raw), which must never land in "blocked". Columns are the classes the environment assigns (ok /
empty / structural / environmental / blocked). Each call is a tool's first example (a page far past the last for
no data; the first required parameter blank for a missing parameter); the gateway kinds only where the gateway
answers (apis.data.go.kr on the simulator).

Three sources, each printed as its own matrix with its diagonal share: the simulator in-process, the simulator
over HTTP (``make_server`` on loopback, a fresh server per row, reached as a mirror's URL), and an API of our own
on loopback with a user-written catalog that renders every incident kind with its own code
(``tests/incident_matrix.py``: its own HTML pages, bodies and gateway fault envelope with its own code table).
The baseline is the diagonal itself: 100 % is the target.

    python benchmarks/bench_incidents.py
    python benchmarks/bench_incidents.py --per-platform 5 --json
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import tempfile
from pathlib import Path

# the matrix and the local API live with the tests that assert it (tests/incident_matrix.py)
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

import incident_matrix as im  # noqa: E402

from kopa_replay.catalog import builtin_catalog  # noqa: E402

#: the key the local API accepts (its catalog reads it from im.KEY_ENV)
LOCAL_KEY = "harbor-bench-key-0123456789"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--per-platform", type=int, default=0, help="simulated tools per platform, the rarest shapes first (0: all)"
    )
    parser.add_argument("--seed", type=int, default=0, help="the simulator's seed [default: 0]")
    parser.add_argument("--no-served", action="store_true", help="skip the simulator over HTTP")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    options = parser.parse_args()
    # the small world: which incident strikes and how it is read does not depend on the world's size
    os.environ.setdefault("KOPA_WORLD_SIZE", "default")
    os.environ[im.KEY_ENV] = LOCAL_KEY

    catalog = builtin_catalog()
    tools = im.sample_tools(catalog, options.per_platform)
    gateway = im.SIM_GATEWAY_HOSTS
    matrices = {"simulator in-process": im.measure(im.sim_opener(catalog, options.seed), tools, gateway)}
    if not options.no_served:
        matrices["simulator over HTTP"] = im.measure(im.served_opener(catalog, options.seed), tools, gateway)
    with im.IncidentApi(LOCAL_KEY) as api, tempfile.TemporaryDirectory() as folder:
        local = im.write_catalog(Path(folder), api.url)
        matrices["local API (not the simulator)"] = im.measure(im.local_opener(api, local), list(local), None)

    result = {
        "python": platform.python_version(),
        "simulated_tools": len(tools),
        "seed": options.seed,
        "sources": {name: matrix.to_dict() for name, matrix in matrices.items()},
    }
    if options.json:
        print(json.dumps(result, indent=2, ensure_ascii=False))
        return
    for name, matrix in matrices.items():
        print(f"\n{name}: {matrix.total} calls in {matrix.seconds:.1f} s ([n]: the truth)")
        print(matrix.render())
        for row, misses in sorted(matrix.misses.items()):
            for tool, cls, evidence in misses[:3]:
                print(f"  miss: {row} -> {cls} on {tool}: {evidence}")


if __name__ == "__main__":
    main()
