"""Big synthetic clusters for benchmarks: random jobs arriving and leaving on whole GPUs, MIG devices and MPS.

Frames are produced lazily, one per simulated second, so a day of a large cluster never sits in memory.
"""

from __future__ import annotations

import heapq
import math
import random
from collections.abc import Iterator
from dataclasses import dataclass

from gputui.core.mig_profiles import GpuModel, model_for
from gputui.core.model import ClusterSnapshot
from gputui.synth.gpu_sim import make_gpu
from gputui.synth.gpu_specs import spec_for
from gputui.synth.host_specs import host_for
from gputui.synth.jobs import Job, Target
from gputui.synth.load import LoadProfile
from gputui.synth.mig_layout import LayoutItem, MigLayoutError, place
from gputui.synth.node_sim import MpsState, NodeSim
from gputui.synth.timeline import DEFAULT_START, Step, run_nodes

USERS = ("alice", "bob", "carol", "dave", "erin", "frank", "grace", "henry")
MPS_USER = "svc-infer"
MODELS = ("resnet50", "vit_b_16", "bert-large-uncased", "gpt2-medium", "llama-2-7b", "mistral-7b", "yolov8m", "t5-base")

# Layouts as compute slices per GI (a tuple splits a GI into compute instances); each is checked
# against the GPU's table with place(), and those the table refuses are dropped.
_MIG_SHAPES: tuple[tuple[int | tuple[int, tuple[int, ...]], ...], ...] = (
    (7,),
    (4, 3),
    (3, 3),
    (3, 2, 1, 1),
    (2, 2, 2, 1),
    (1, 1, 1, 1, 1, 1, 1),
    (4, 2, 1),
    ((3, (2, 1)), 2, 1, 1),
    # four-slice GPUs (A30)
    (4,),
    (2, 2),
    (2, 1, 1),
    ((2, (1, 1)), 1, 1),
)


@dataclass(slots=True)
class _Slot:
    """A place one job can run: a whole GPU, one MIG compute instance, or one MPS client seat."""

    node: int
    target: Target
    mem_mib: int  # memory a job here may take
    whole_gpu: bool
    index: int = 0  # position in the cluster's slot list
    due: int = 0  # second of the next submission
    busy_until: int = 0  # second the current job ends


def _smallest_profile(model: GpuModel, slices: int) -> str | None:
    same = [p for p in model.profiles if p.compute_slices == slices and not p.name.endswith("+me")]
    return min(same, key=lambda p: p.memory_slices).name if same else None


def mig_layouts(model: GpuModel) -> list[list[LayoutItem]]:
    """The stock layouts that the table of ``model`` accepts, as profile names."""
    out = []
    for shape in _MIG_SHAPES:
        layout: list[LayoutItem] = []
        for item in shape:
            slices, split = (item, None) if isinstance(item, int) else item
            name = _smallest_profile(model, slices)
            if name is None:
                break
            layout.append(name if split is None else (name, split))
        else:
            try:
                place(model, [x if isinstance(x, str) else x[0] for x in layout])
            except MigLayoutError:
                continue
            out.append(layout)
    return out


class _Workload:
    """Draws jobs for slots: what runs, for how long, and when the next one comes."""

    def __init__(self, rng: random.Random, start_id: int = 100_000) -> None:
        self.rng = rng
        self.next_id = start_id

    def job(self, slot: _Slot, targets: tuple[Target, ...], start: int, end: int, submit: int | None) -> Job:
        rng = self.rng
        self.next_id += 1
        model = rng.choice(MODELS)
        mem = int(slot.mem_mib * rng.uniform(0.25, 0.8))
        if slot.target.is_mps:
            user = MPS_USER
            batch, port = rng.choice((8, 16, 32, 64)), 9000 + rng.randrange(100)
            command = f"python infer.py --model {model} --batch-size {batch} --port {port}"
            load = LoadProfile(rng.uniform(15, 45), mem, jitter=9.0, ramp_s=12, mem_intensity=0.6, power_intensity=0.6)
        else:
            user = rng.choice(USERS)
            kind = rng.random()
            if kind < 0.55:
                command = f"python train.py --model {model} --batch-size {rng.choice((64, 128, 256))}"
                if len(targets) > 1:
                    command = f"torchrun --nproc_per_node={len(targets)} train.py --model {model}"
                load = LoadProfile(
                    rng.uniform(80, 97), mem, jitter=3.0, ramp_s=rng.randint(15, 60), period_s=600, dip_s=20
                )
            elif kind < 0.85:
                command = f"python infer.py --model {model} --batch-size {rng.choice((1, 4, 8, 16))}"
                load = LoadProfile(rng.uniform(30, 70), mem, jitter=11.0, ramp_s=25, mem_intensity=0.7, mem_growth=0.0)
            else:
                command = "python -m ipykernel_launcher -f /run/user/kernel.json"
                load = LoadProfile(rng.uniform(2, 10), mem // 3, jitter=5.0, ramp_s=5, mem_growth=0.01)
        return Job(str(self.next_id), user, command, targets, load, start, end, submit)

    def duration(self) -> int:
        # job lengths in GPU clusters are heavy-tailed: median about 20 minutes, some run for hours
        return min(6 * 3600, max(60, int(self.rng.lognormvariate(math.log(1200), 1.0))))

    def gap(self) -> int:
        return max(5, int(self.rng.expovariate(1 / 300)))


def synth_cluster_steps(
    nodes: int,
    gpus_per_node: int,
    gpu_name: str = "NVIDIA A100-SXM4-80GB",
    *,
    seconds: int,
    seed: int,
    mig_fraction: float = 0.0,
    mps_fraction: float = 0.0,
    start: float = DEFAULT_START,
) -> Iterator[Step]:
    """Frames with their events, one per second for ``seconds`` seconds; see :func:`synth_cluster`."""
    if nodes < 1 or gpus_per_node < 1 or seconds < 0:
        raise ValueError("nodes and gpus_per_node must be at least 1, seconds at least 0")
    if not (0.0 <= mig_fraction <= 1.0 and 0.0 <= mps_fraction <= 1.0 and mig_fraction + mps_fraction <= 1.0):
        raise ValueError("mig_fraction and mps_fraction must lie in [0, 1] and sum to at most 1")
    spec = spec_for(gpu_name)
    rng = random.Random(f"cluster:{seed}")
    total = nodes * gpus_per_node
    order = list(range(total))
    rng.shuffle(order)
    n_mig = round(total * mig_fraction)
    n_mps = min(total - n_mig, round(total * mps_fraction))
    mig_gpus, mps_gpus = set(order[:n_mig]), set(order[n_mig : n_mig + n_mps])
    model = model_for(gpu_name)
    layouts = mig_layouts(model) if model is not None else []
    if n_mig and not layouts:
        raise ValueError(f"{gpu_name} has no MIG table")
    width = max(2, len(str(nodes)))
    sims: list[NodeSim] = []
    slots: list[_Slot] = []
    for n in range(nodes):
        name = f"node{n + 1:0{width}d}"
        gpus, served = [], []
        for i in range(gpus_per_node):
            g = n * gpus_per_node + i
            layout = rng.choice(layouts) if g in mig_gpus else None
            gpu = make_gpu(seed, name, i, gpu_name, layout, "Exclusive_Process" if g in mps_gpus else "Default")
            gpus.append(gpu)
            if layout is not None:
                for gi in gpu.instances or ():
                    share = (gi.memory_total_mib or 0) // max(1, len(gi.compute_instances))
                    for ci in gi.compute_instances:
                        slots.append(_Slot(n, Target(i, gi.gi_id, ci.ci_id), int(share * 0.85), False))
            elif g in mps_gpus:
                served.append(i)
                for pct in rng.sample((25, 50, 50, 100), 3):
                    slots.append(_Slot(n, Target(i, mps_threads=pct), spec.memory_total_mib // 4, False))
            else:
                slots.append(_Slot(n, Target(i), int(spec.memory_total_mib * 0.85), True))
        mps = MpsState(gpus=tuple(served), user=MPS_USER) if served else None
        host = host_for(gpu_name, gpus_per_node)
        node = NodeSim(name, gpus, random.Random(f"{seed}:{name}"), start, mps=mps, host=host)
        if mps is not None:
            node.start_mps_now()
            t = 0.0
            while True:  # restarts of the daemon, about one every six hours
                t += rng.expovariate(1 / 21600)
                if t >= seconds:
                    break
                node.schedule_mps(int(t), "stop", "the MPS daemon restarted")
                node.schedule_mps(int(t) + 3, "start")
        sims.append(node)
    work = _Workload(random.Random(f"jobs:{seed}"))
    heap: list[tuple[int, int]] = []
    by_node: list[list[_Slot]] = [[] for _ in sims]
    for k, slot in enumerate(slots):
        slot.index = k
        by_node[slot.node].append(slot)
        if work.rng.random() < 0.65:  # busy when the timeline begins
            length = work.duration()
            begun = work.rng.randint(1, length)
            slot.busy_until = length - begun
            sims[slot.node].add_job(work.job(slot, (slot.target,), -begun, slot.busy_until, None))
            slot.due = slot.busy_until + work.gap()
        else:
            slot.due = work.rng.randint(0, 600)
        heapq.heappush(heap, (slot.due, k))

    def arrivals(t: int) -> None:
        while heap and heap[0][0] <= t:
            due, k = heapq.heappop(heap)
            slot = slots[k]
            if due != slot.due:
                continue  # taken by a multi-GPU job meanwhile; a newer entry stands for it
            begin = t + work.rng.randint(1, 20)
            end = begin + work.duration()
            group = [slot]
            if slot.whole_gpu and work.rng.random() < 0.15:  # a data-parallel job takes idle neighbours too
                idle = [s for s in by_node[slot.node] if s.whole_gpu and s is not slot and s.busy_until <= t]
                group += idle[: work.rng.choice((1, 3))]
            sims[slot.node].add_job(work.job(slot, tuple(s.target for s in group), begin, end, t))
            for s in group:
                s.busy_until = end
                s.due = end + work.gap()
                heapq.heappush(heap, (s.due, s.index))

    steps = run_nodes(sims, seconds, start, "synthetic cluster")
    for t, step in enumerate(steps):
        arrivals(t + 1)  # jobs submitted now appear in the next frames
        yield step


def synth_cluster(
    nodes: int,
    gpus_per_node: int,
    gpu_name: str = "NVIDIA A100-SXM4-80GB",
    *,
    seconds: int,
    seed: int,
    mig_fraction: float = 0.0,
    mps_fraction: float = 0.0,
    start: float = DEFAULT_START,
) -> Iterator[ClusterSnapshot]:
    """One ClusterSnapshot per second, made on demand; the same arguments always give the same frames.

    ``mig_fraction`` of the GPUs run a stock MIG layout legal for ``gpu_name``; ``mps_fraction`` are
    served by an MPS daemon per node. Jobs arrive, run for heavy-tailed durations and leave.
    """
    for snap, _events in synth_cluster_steps(
        nodes,
        gpus_per_node,
        gpu_name,
        seconds=seconds,
        seed=seed,
        mig_fraction=mig_fraction,
        mps_fraction=mps_fraction,
        start=start,
    ):
        yield snap
