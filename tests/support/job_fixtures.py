"""Fixtures of the Pilot tests of the job parts (submit, cancel, recording), loaded by tests/conftest.py."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from jobs_helpers import T0, machine, sim_service

from gputui.jobs.service import JobService


@pytest.fixture
def svc(tmp_path: Path) -> Iterator[JobService]:
    """A simulated job service on a fresh store, ticked once on the test machine."""
    s = sim_service(tmp_path)
    s.tick(machine(T0))
    yield s
    s.close()
