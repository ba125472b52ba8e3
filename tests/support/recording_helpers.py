"""Small deterministic snapshot sequences for recording and replay tests."""

from __future__ import annotations

import random

from gputui.core.model import ClusterSnapshot, ComputeInstance, GpuInstance, GpuSnapshot, NodeSnapshot, ProcessInfo

T0 = 1_762_074_000.0  # 2025-11-02T09:00:00Z


def frames(n: int, gpus: int = 4, seed: int = 1, step: float = 1.0) -> list[ClusterSnapshot]:
    rnd = random.Random(seed)
    out = []
    for i in range(n):
        gs = []
        for g in range(gpus):
            procs = tuple(
                ProcessInfo(
                    pid=1000 + g * 10 + k,
                    type="C",
                    used_memory_mib=rnd.randrange(100, 9000),
                    user="alice",
                    command="python train.py",
                )
                for k in range((i // 5 + g) % 3)
            )
            mig = g == gpus - 1
            gs.append(
                GpuSnapshot(
                    index=g,
                    uuid=f"GPU-{g:08x}",
                    name="NVIDIA A100-SXM4-40GB",
                    memory_total_mib=40960,
                    memory_used_mib=sum(p.used_memory_mib or 0 for p in procs),
                    utilization_gpu=rnd.randrange(0, 101),
                    utilization_memory=rnd.randrange(0, 101),
                    temperature_c=30 + rnd.randrange(50),
                    power_draw_w=round(rnd.uniform(50, 400), 2),
                    power_limit_w=400.0,
                    fan_percent=None,
                    mig_mode_current=mig,
                    mig_mode_pending=mig,
                    gpu_instances=(
                        GpuInstance(
                            gi_id=1,
                            profile="3g.20gb",
                            placement_start=4,
                            placement_size=4,
                            compute_instances=(ComputeInstance(0, "3g.20gb", 42, "MIG-1"),),
                        ),
                    )
                    if mig and i % 2
                    else (),
                    processes=procs,
                )
            )
        out.append(ClusterSnapshot(T0 + i * step, (NodeSnapshot("node01", tuple(gs), "550.54", "12.4"),), "test"))
    return out
