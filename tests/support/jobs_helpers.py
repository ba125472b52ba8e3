"""Builders shared by the jobs tests: a hand-made snapshot of one machine, services on a temporary store."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from pathlib import Path

from gputui.core.model import ClusterSnapshot, ComputeInstance, GpuInstance, GpuSnapshot, MpsDaemon, NodeSnapshot
from gputui.jobs.records import User
from gputui.jobs.runners.local import LocalRunner
from gputui.jobs.runners.procstat import host_name, self_stamp
from gputui.jobs.runners.simulated import SimRunner
from gputui.jobs.service import JobService
from gputui.jobs.store import JobStore, Owner

A100 = "NVIDIA A100-SXM4-40GB"
MPS_PIPE = "/tmp/gputui-test-mps-pipe"
ALICE = User("alice", 1001)
BOB = User("bob", 1002)
T0 = 1_800_000_000.0


def gpu(index: int, **kw: object) -> GpuSnapshot:
    values: dict[str, object] = {"uuid": f"GPU-test-{index}", "name": A100, "memory_total_mib": 40960,
                                 "memory_used_mib": 0, "utilization_gpu": 0}  # fmt: skip
    values.update(kw)
    return GpuSnapshot(index, **values)  # type: ignore[arg-type]


def machine(t: float = T0, whole: int = 2, node: str = "testnode") -> ClusterSnapshot:
    """``whole`` plain GPUs, then a MIG GPU with two 3g.20gb instances, then a GPU with an MPS daemon."""
    gpus = [gpu(i) for i in range(whole)]
    gis = tuple(
        GpuInstance(
            gi, "3g.20gb", 9, start, 4, 20096, 0, 42, (ComputeInstance(0, "3g.20gb", 42, f"MIG-test-{gi}", gi - 1),)
        )  # fmt: skip
        for gi, start in ((1, 4), (2, 0))
    )
    gpus.append(gpu(whole, mig_mode_current=True, gpu_instances=gis, utilization_gpu=None))
    gpus.append(gpu(whole + 1, mps=MpsDaemon(True, 100, 101, MPS_PIPE)))
    return ClusterSnapshot(t, (NodeSnapshot(node, tuple(gpus)),), "test machine")


def other_process(n: int = 1) -> Owner:
    """A stand-in for another live process of this machine (this process, as if started at another time)."""
    pid, start = self_stamp()
    return Owner(pid, None if start is None else start - n, host_name())


def sim_service(tmp: Path, user: User = ALICE, process: Owner | None = None) -> JobService:
    store = JobStore(tmp / "jobs.db", busy_timeout_s=0.2)
    return JobService(store, SimRunner(), "replay:test", user=user, process=process)


def local_service(tmp: Path, user: User = ALICE, grace_s: float = 0.5) -> JobService:
    runner = LocalRunner(tmp / "jobs", grace_s=grace_s)
    (tmp / "jobs").mkdir(mode=0o700, exist_ok=True)
    return JobService(JobStore(tmp / "jobs.db", busy_timeout_s=0.2), runner, "local:test", user=user)


def py(code: str) -> list[str]:
    """A small Python program as argv (no shell)."""
    return [sys.executable, "-c", code]


def wait_for(cond: Callable[[], object], timeout: float = 5.0, step: float = 0.02) -> object:
    """Poll ``cond`` until it returns something true, or fail after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        got = cond()
        if got:
            return got
        if time.monotonic() > deadline:
            raise AssertionError(f"condition not met within {timeout} s")
        time.sleep(step)
