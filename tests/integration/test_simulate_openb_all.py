"""FGD's published figure for seed 42 on each of the seventeen published openb workloads, where the full openb
data is on this machine ($GPUTUI_OPENB or ../shared/data/openb; skipped otherwise: the repository bundles two
traces, tested in test_simulate_cmd.py). Every seed of every deterministic policy is `python -m gputui.bench fgd`."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from conftest import REPO
from test_simulate_cmd import published

from gputui.bench.fgd import NODES, TRACES
from gputui.core.simulate.benchmark import run_seed
from gputui.core.simulate.workload import read_nodes, read_pods


def _openb() -> Path | None:
    for cand in (os.environ.get("GPUTUI_OPENB"), str(REPO.parent / "shared" / "data" / "openb")):
        if cand and (Path(cand) / NODES).is_file() and (Path(cand) / "openb_pod_list_gpuspec25.csv").is_file():
            return Path(cand)
    return None


DATA = _openb()


@pytest.mark.skipif(DATA is None, reason="the full openb data set is not on this machine")
@pytest.mark.parametrize("trace", TRACES)
def test_fgd_seed_42_as_published(trace: str) -> None:
    assert DATA is not None
    pods = read_pods(DATA / f"openb_pod_list_{trace}.csv")
    run = run_seed(pods, read_nodes(DATA / NODES), "fgd", 42)
    assert run.value == published("fgd", 42, trace)
