"""A real local Ray cluster for the tests that run stages on Ray (started once, shut down at the end)."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="session")
def ray_cluster():
    """``ray.init(num_cpus=2)``: the executor joins it (it starts none of its own while one is up)."""
    ray = pytest.importorskip("ray", reason="the ray extra is not installed: pip install -e '.[ray]'")
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, logging_level="ERROR")
    yield ray
    ray.shutdown()
