"""The one snapshot type: cluster -> node -> GPU -> MIG / MPS / processes, frozen and JSON-friendly.

``None`` is the explicit N/A: a value the source does not have. It is never replaced by 0, so a
renderer can tell "0 %" from "unknown" and show ``N/A`` in place.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

#: Process types as nvidia-smi prints them: compute, graphics, both, MPS client, MPS client + compute.
PROCESS_TYPES = ("C", "G", "C+G", "M", "M+C")

#: Compute modes as nvidia-smi prints them.
COMPUTE_MODES = ("Default", "Exclusive_Thread", "Prohibited", "Exclusive_Process")


@dataclass(frozen=True, slots=True)
class Activity:
    """What a GPU's or a MIG GPU instance's SMs and memory did over the last poll interval (NVML GPM), in per cent.

    Whole per cent, as NVML's utilisation is (a recording then spends a byte or two on a change). Each figure is
    **of the unit's own slices** (gputui's meaning): a MIG instance whose SMs are all busy reads
    100 whatever its size. :func:`activity_of_gpu` gives DCGM's meaning, the same work as a share of the whole GPU.
    """

    sm_active: int | None = None  # NVML_GPM_METRIC_SM_UTIL: share of the SMs busy (DCGM_FI_PROF_SM_ACTIVE)
    sm_occupancy: int | None = None  # NVML_GPM_METRIC_SM_OCCUPANCY: resident warps against the maximum
    dram_active: int | None = None  # NVML_GPM_METRIC_DRAM_BW_UTIL: share of peak memory bandwidth used
    tensor_active: int | None = None  # NVML_GPM_METRIC_ANY_TENSOR_UTIL: share of time on any tensor pipe


def activity_of_gpu(a: Activity, slices: int | None, gpu_slices: int | None) -> Activity | None:
    """``a`` of an instance spanning ``slices`` of ``gpu_slices`` compute slices, as a share of the whole GPU
    (DCGM's meaning); None when either count is unknown."""
    if not slices or not gpu_slices:
        return None

    def scale(v: int | None) -> int | None:
        return None if v is None else round(v * slices / gpu_slices)

    return Activity(scale(a.sm_active), scale(a.sm_occupancy), scale(a.dram_active), scale(a.tensor_active))


def activity_of_instances(parts: list[tuple[Activity | None, int]], gpu_slices: int) -> Activity | None:
    """A MIG GPU's activity from its instances' (activity, compute slices): their work as a share of the whole
    GPU, slices without an instance idle; None where an instance's activity is unknown."""
    if not gpu_slices:
        return None
    sums: list[int | None] = [0, 0, 0, 0]
    for a, n in parts:
        if a is None:
            return None
        for k, v in enumerate((a.sm_active, a.sm_occupancy, a.dram_active, a.tensor_active)):
            total = sums[k]
            sums[k] = None if v is None or total is None else total + v * n
    return Activity(*(None if v is None else round(v / gpu_slices) for v in sums))


@dataclass(frozen=True, slots=True)
class ComputeInstance:
    """One compute instance inside a GPU instance; with MIG each CI is one CUDA device."""

    ci_id: int | None
    profile: str | None = None  # "3g.20gb" for a full CI, "1c.3g.20gb" for a partial one
    sm_count: int | None = None
    mig_uuid: str | None = None  # "MIG-..." as CUDA_VISIBLE_DEVICES takes it
    mig_device_index: int | None = None  # the "MIG Dev" column of nvidia-smi


@dataclass(frozen=True, slots=True)
class GpuInstance:
    """One MIG GPU instance: a placement of memory slices with its compute instances."""

    gi_id: int | None
    profile: str | None = None  # "3g.20gb"
    profile_id: int | None = None  # the "ID" column of `nvidia-smi mig -lgip`
    placement_start: int | None = None
    placement_size: int | None = None
    memory_total_mib: int | None = None
    memory_used_mib: int | None = None
    sm_count: int | None = None
    compute_instances: tuple[ComputeInstance, ...] = ()
    activity: Activity | None = None  # GPM over the last interval, of this instance's own slices; None: N/A


@dataclass(frozen=True, slots=True)
class MpsClient:
    """A process attached to an MPS server."""

    pid: int
    active_thread_percentage: int | None = None
    memory_used_mib: int | None = None
    user: str | None = None
    command: str | None = None
    sm_util: int | None = None  # per cent of the GPU's SMs its kernels used (nvmlDeviceGetProcessUtilization)


@dataclass(frozen=True, slots=True)
class MpsDaemon:
    """MPS state of one GPU; ``running`` False means known to be off, a missing daemon object means unknown."""

    running: bool
    control_pid: int | None = None
    server_pid: int | None = None
    pipe_directory: str | None = None
    log_directory: str | None = None
    clients: tuple[MpsClient, ...] = ()


@dataclass(frozen=True, slots=True)
class ProcessInfo:
    """A process holding GPU memory, as in nvidia-smi's process table."""

    pid: int
    type: str | None = None  # one of PROCESS_TYPES
    used_memory_mib: int | None = None
    user: str | None = None
    command: str | None = None
    gi_id: int | None = None
    ci_id: int | None = None


@dataclass(frozen=True, slots=True)
class GpuSnapshot:
    """What nvidia-smi shows of one GPU, plus what a scheduler needs."""

    index: int
    uuid: str | None = None
    name: str | None = None
    pci_bus_id: str | None = None
    memory_total_mib: int | None = None
    memory_used_mib: int | None = None
    utilization_gpu: int | None = None  # per cent
    utilization_memory: int | None = None  # per cent
    temperature_c: int | None = None
    power_draw_w: float | None = None
    power_limit_w: float | None = None
    fan_percent: int | None = None
    clock_graphics_mhz: int | None = None
    clock_sm_mhz: int | None = None
    clock_memory_mhz: int | None = None
    performance_state: str | None = None  # "P0"
    compute_mode: str | None = None  # one of COMPUTE_MODES
    persistence_mode: bool | None = None
    mig_mode_current: bool | None = None
    mig_mode_pending: bool | None = None
    gpu_instances: tuple[GpuInstance, ...] = ()
    mps: MpsDaemon | None = None
    processes: tuple[ProcessInfo, ...] = ()
    lost: bool = False  # the driver reported the GPU lost; other values are then stale or N/A
    activity: Activity | None = None  # GPM over the last interval, of the whole GPU; None: N/A
    activity_na: str | None = None  # why GPM figures (this GPU's and its instances') are N/A; None: they are not

    @property
    def mig_enabled(self) -> bool:
        return bool(self.mig_mode_current)

    @property
    def memory_free_mib(self) -> int | None:
        if self.memory_total_mib is None or self.memory_used_mib is None:
            return None
        return self.memory_total_mib - self.memory_used_mib


@dataclass(frozen=True, slots=True)
class NodeResources:
    """A node's CPUs and host memory: what it has, and what a workload manager has handed out.

    ``cpus_alloc`` / ``memory_alloc_mib`` are allocations (Slurm's CPUAlloc / AllocMem), not load: None where no
    workload manager says. ``memory_used_mib`` is what the operating system counts as in use (MemTotal minus
    MemAvailable), for display only.
    """

    cpus: int | None = None
    memory_mib: int | None = None
    cpus_alloc: int | None = None
    memory_alloc_mib: int | None = None
    memory_used_mib: int | None = None


#: Why a node's live values are missing, as :class:`NodeFault` kinds: the link to it is being set up or is down.
NODE_FAULTS = ("connecting", "unreachable", "auth", "host-key", "no-nvidia-smi", "stopped", "garbage", "stalled")


@dataclass(frozen=True, slots=True)
class NodeFault:
    """The telemetry of a node is not coming in (a remote source's host is down, refuses the key, has no
    nvidia-smi, ...): ``kind`` one of NODE_FAULTS, ``reason`` one line (ssh's own words where it gave some), and
    ``since`` the moment it started (seconds since the epoch). The node's GPUs keep their identity; their live
    values are N/A while it lasts."""

    kind: str
    reason: str
    since: float


@dataclass(frozen=True, slots=True)
class NodeSnapshot:
    """One machine and its GPUs."""

    name: str
    gpus: tuple[GpuSnapshot, ...] = ()
    driver_version: str | None = None
    cuda_version: str | None = None
    state: str | None = None  # the workload manager's node state ("MIXED", "IDLE+DRAIN"); None: no manager
    shares: tuple[tuple[str, int, int | None], ...] = ()  # shared GRES such as MPS or shards: (name, total, used)
    resources: NodeResources | None = None  # CPUs and host memory; None: not known (older recordings)
    features: tuple[str, ...] = ()  # the workload manager's node features (Slurm's ActiveFeatures), as given
    fault: NodeFault | None = None  # a remote source's link to the node is down; None: fine, or not remote


@dataclass(frozen=True, slots=True)
class ClusterSnapshot:
    """Every node at one moment; ``timestamp`` is seconds since the Unix epoch (UTC)."""

    timestamp: float
    nodes: tuple[NodeSnapshot, ...] = ()
    source: str | None = None  # a short description of where the snapshot came from

    @property
    def gpu_count(self) -> int:
        return sum(len(n.gpus) for n in self.nodes)

    def node(self, name: str) -> NodeSnapshot:
        for n in self.nodes:
            if n.name == name:
                return n
        raise KeyError(name)

    def with_time(self, timestamp: float) -> ClusterSnapshot:
        return replace(self, timestamp=timestamp)


@dataclass(frozen=True, slots=True)
class Event:
    """Something that happened at a moment: a job or MPS daemon changing state."""

    timestamp: float
    kind: str  # one of EVENT_KINDS
    message: str = ""
    node: str | None = None
    gpus: tuple[int, ...] = ()
    job_id: str | None = None
    data: tuple[tuple[str, str], ...] = field(default=())


EVENT_KINDS = (
    "job_submitted",
    "job_started",
    "job_ended",
    "job_cancelled",
    "job_failed",
    "mps_started",
    "mps_stopped",
    "note",
)
