"""What the pipeline tests and the report tests share: one run of the README's first command.

``kopa-replay pipeline run`` on the shipped snapshot is the costliest thing the suite does (minutes on the
full-size world); the report's tests read its output directory rather than making another (tests/conftest.py keeps
both modules on one worker)."""

from __future__ import annotations

import pytest
from pipeline_project import pipeline, shipped_digest


@pytest.fixture(scope="session")
def shipped_before():
    return shipped_digest()


@pytest.fixture(scope="session")
def first(tmp_path_factory, shipped_before):
    cwd = tmp_path_factory.mktemp("project")
    result = pipeline(cwd, "--json")
    assert result.returncode == 0, result.stderr
    return cwd, result
