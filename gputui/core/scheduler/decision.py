"""A start decision: the allocation, and the environment each node's part of the job must get."""

from __future__ import annotations

from dataclasses import dataclass

from gputui.core.scheduler.allocation import Allocation, GpuGrant, NodeGrant
from gputui.core.scheduler.parse.hostlist import compress_hostlist
from gputui.core.scheduler.request import JobRequest


@dataclass(frozen=True, slots=True)
class Decision:
    """Job ``job_id`` starts at ``time`` on ``allocation``, with the environment :meth:`environment` gives.

    The environment is built when asked for: it follows from the allocation and the request alone.
    """

    job_id: int
    time: float
    allocation: Allocation
    request: JobRequest
    backfilled: bool = False
    warnings: tuple[str, ...] = ()

    def environment(self) -> dict[str, dict[str, str]]:
        """Per node (in allocation order): the variables that node's part of the job must get."""
        return {ng.node: node_environment(self.job_id, self.request, self.allocation, i)
                for i, ng in enumerate(self.allocation.nodes)}  # fmt: skip

    def env_for(self, node: str) -> dict[str, str]:
        for i, ng in enumerate(self.allocation.nodes):
            if ng.node == node:
                return node_environment(self.job_id, self.request, self.allocation, i)
        raise KeyError(node)


def _device(node: NodeGrant, g: GpuGrant) -> list[str]:
    if g.mig is not None:
        out = []
        for ci_id, mig_uuid in g.mig.cis or ((0, None),):
            if mig_uuid:
                out.append(mig_uuid)
            elif g.uuid:  # an instance not created yet: the CUDA 11 "MIG-<GPU UUID>/<GI>/<CI>" form names it
                out.append(f"MIG-{g.uuid}/{g.mig.gi_id}/{ci_id or 0}")
            else:
                out.append(str(g.index))
        return out
    return [g.uuid or str(g.index)]


def node_environment(job_id: int, request: JobRequest, alloc: Allocation, node_pos: int) -> dict[str, str]:
    """What one node's part of a job gets: the request's exports, CUDA's variables, Slurm-style job variables."""
    ng = alloc.nodes[node_pos]
    env = dict(request.environment)
    devices: list[str] = []
    for g in ng.gpus:
        devices.extend(_device(ng, g))
    indices = sorted({g.index for g in ng.gpus})
    env["CUDA_VISIBLE_DEVICES"] = ",".join(devices)  # empty for a CPU-only job: CUDA then sees no GPU
    if ng.gpus:
        env["GPU_DEVICE_ORDINAL"] = ",".join(str(i) for i in indices)
    mps = [g.mps_percent for g in ng.gpus if g.mps_percent is not None]
    if mps:
        env["CUDA_MPS_ACTIVE_THREAD_PERCENTAGE"] = str(mps[0])
        if ng.mps_pipe_directory:
            env["CUDA_MPS_PIPE_DIRECTORY"] = ng.mps_pipe_directory
    env["SLURM_JOB_ID"] = env["SLURM_JOBID"] = str(job_id)
    if request.name:
        env["SLURM_JOB_NAME"] = request.name
    env["SLURM_JOB_NODELIST"] = compress_hostlist(alloc.node_names)
    env["SLURM_JOB_NUM_NODES"] = env["SLURM_NNODES"] = str(len(alloc.nodes))
    env["SLURM_NODEID"] = str(node_pos)
    env["SLURMD_NODENAME"] = ng.node
    if ng.gpus:
        env["SLURM_JOB_GPUS"] = env["SLURM_STEP_GPUS"] = ",".join(str(i) for i in indices)
        env["SLURM_GPUS_ON_NODE"] = str(len(devices))
    shards = sum(g.shards for g in ng.gpus if g.shards is not None)
    if shards:
        env["SLURM_SHARDS_ON_NODE"] = str(shards)
    if ng.cpu_milli:
        env["SLURM_CPUS_ON_NODE"] = str(-(-ng.cpu_milli // 1000))  # whole CPUs, as a process sees them
    if ng.mem_mib:
        env["SLURM_MEM_PER_NODE"] = str(ng.mem_mib)
    if request.ntasks:
        env["SLURM_NTASKS"] = env["SLURM_NPROCS"] = str(request.ntasks)
    if request.cpus_per_task:
        env["SLURM_CPUS_PER_TASK"] = str(request.cpus_per_task)
    return env


def make_decision(job_id: int, request: JobRequest, alloc: Allocation, now: float, backfilled: bool,
                  warnings: tuple[str, ...] = ()) -> Decision:  # fmt: skip
    notes = list(warnings)
    if request.ignored:
        notes.append("ignored (no effect on placement): " + ", ".join(dict.fromkeys(request.ignored)))
    return Decision(job_id, now, alloc, request, backfilled, tuple(notes))
