"""What one node's part of a job needs of the host: CPUs and memory, with Slurm's meaning of the options.

Tasks default to one per node; ``--ntasks`` spread over the job's nodes gives each node its share, rounded up
(Slurm's block distribution packs the first nodes instead: noted in the README). Memory comes from ``--mem`` (per
node; 0 means all of it), else ``--mem-per-cpu``, else ``--mem-per-gpu``, else the configured default per CPU.
CPUs are counted in thousandths, so that a trace's millicores (``--cpu-milli``) map exactly.
"""

from __future__ import annotations

from gputui.core.scheduler.request import JobRequest

#: Memory need meaning "all of the node's memory" (``--mem=0``, ``--exclusive``).
ALL_MEMORY = -1


def host_need(req: JobRequest, nodes: int, gpus_on_node: int, default_mem_per_cpu_mib: int = 0) -> tuple[int, int]:
    """(thousandths of CPUs, MiB) one node of the job needs; MiB may be :data:`ALL_MEMORY`."""
    if req.host_default:
        return 1000, default_mem_per_cpu_mib
    if req.cpu_milli:
        milli = req.cpu_milli
    elif req.cpus_per_gpu and gpus_on_node:
        milli = gpus_on_node * req.cpus_per_gpu * 1000
    else:
        if req.ntasks_per_node:
            tasks = req.ntasks_per_node
        elif req.ntasks:
            tasks = -(-req.ntasks // max(1, nodes))
        else:
            tasks = 1
        milli = tasks * (req.cpus_per_task or 1) * 1000
    if req.mem_mib is not None:
        mem = ALL_MEMORY if req.mem_mib == 0 else req.mem_mib
    elif req.mem_per_cpu_mib:
        mem = -(-milli * req.mem_per_cpu_mib // 1000)
    elif req.mem_per_gpu_mib:
        mem = gpus_on_node * req.mem_per_gpu_mib
    else:
        mem = -(-milli * default_mem_per_cpu_mib // 1000)
    return milli, mem
