"""Against the real thing: a real Prometheus scrapes `gputui export demo` and answers queries on dcgm-exporter's
names with MIG and job labels; the real promtool turns a backfill file into blocks that Prometheus then serves.

Skipped where Prometheus is not installed; with CI=true a Prometheus that is missing or cannot start fails.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from export_process import running_export
from prometheus_process import SETUP, running_prometheus
from services import program, wait_for


def test_prometheus_scrapes_the_demo_and_finds_gpus_by_job_and_mig_instance(tmp_path: Path) -> None:
    program("prometheus", SETUP)
    # +5m into the demo, paused: the 2-GPU torchrun job 48212 (bob) holds node01 GPUs 2 and 3
    with (
        running_export(tmp_path / "state", "demo", "--at", "+5m", "--paused") as (url, _proc),
        running_prometheus(tmp_path / "prom", tmp_path / "prom-data", url.split("/")[2]) as prom,
    ):
        result = wait_for(
            "a scrape with a job label",
            lambda: prom.query('DCGM_FI_DEV_GPU_UTIL{hpc_job="48212"}') or None,
            timeout=60,
        )
        assert sorted(r["metric"]["gpu"] for r in result) == ["2", "3"]
        metric = result[0]["metric"]
        assert metric["hpc_user"] == "bob" and metric["Hostname"] == "node01" and metric["job"] == "gputui"
        assert metric["modelName"] == "NVIDIA A100-SXM4-40GB" and metric["UUID"].startswith("GPU-")
        mig = prom.query('DCGM_FI_DEV_FB_USED{GPU_I_PROFILE="3g.40gb", Hostname="node03"}')
        assert {r["metric"]["GPU_I_ID"] for r in mig} == {"1", "2"}  # 3g.40gb on GPU 0 (GI 1) and GPU 1 (GI 2)
        assert all(r["metric"]["gpu"] in ("0", "1") for r in mig)
        targets = prom.api("targets")["activeTargets"]
        assert [t["health"] for t in targets] == ["up"]


def test_promtool_makes_blocks_of_the_backfill_and_prometheus_serves_its_history(tmp_path: Path) -> None:
    promtool = program("promtool", SETUP)
    om = tmp_path / "demo.om"
    r = subprocess.run([sys.executable, "-m", "gputui", "export", "demo", "--openmetrics", str(om)],
                       capture_output=True, text=True, timeout=300)  # fmt: skip
    assert r.returncode == 0, r.stderr
    samples = int(re.search(r"(\d+) samples", r.stdout).group(1))  # type: ignore[union-attr]
    blocks = tmp_path / "blocks"
    made = subprocess.run([promtool, "tsdb", "create-blocks-from", "openmetrics", str(om), str(blocks)],
                          capture_output=True, text=True, timeout=300)  # fmt: skip
    assert made.returncode == 0, made.stdout + made.stderr
    listed = subprocess.run([promtool, "tsdb", "list", str(blocks)], capture_output=True, text=True, timeout=60)
    rows = [line.split() for line in listed.stdout.splitlines()[1:] if line.strip()]
    assert rows and sum(int(row[4]) for row in rows) == samples  # NUM SAMPLES: every sample written
    # the demo's recorded time, 2026-11-02 09:00 to 09:10 UTC, as Prometheus serves it from the blocks
    start = 1793610000.0
    with running_prometheus(tmp_path / "prom", blocks, None, "--storage.tsdb.retention.time=100y") as prom:
        held = prom.query('DCGM_FI_DEV_GPU_UTIL{hpc_job="48212"}', at=start + 300)
        assert sorted(x["metric"]["gpu"] for x in held) == ["2", "3"]
        assert prom.query("DCGM_FI_DEV_GPU_UTIL", at=start - 3600) == []  # nothing before the recording
