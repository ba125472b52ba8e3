"""Scheduler settings: what counts as busy, MPS limits, MIG mode, defaults for the queue."""

from __future__ import annotations

from dataclasses import dataclass

#: CUDA MPS serves at most this many clients per GPU (Volta and later).
MPS_MAX_CLIENTS = 48

#: Where MPS daemons put their pipes unless a daemon or node says otherwise.
DEFAULT_MPS_PIPE_DIRECTORY = "/tmp/nvidia-mps"


@dataclass(frozen=True, slots=True)
class SchedulerConfig:
    """Every tunable of the scheduler core, with Slurm-like defaults."""

    foreign_busy: bool = True  # a GPU / MIG instance running processes we did not start is taken
    mig_dynamic: bool = False  # create GPU instances in free slots (simulation and planning) instead of static MIG
    mps_percent_cap: int | None = None  # per-GPU cap on the sum of MPS percentages; None: no cap (MPS does not queue)
    mps_strict_memory: bool = False  # refuse an MPS share whose declared memory overflows the GPU, instead of warning
    mps_max_clients: int = MPS_MAX_CLIENTS
    mps_pipe_directory: str = DEFAULT_MPS_PIPE_DIRECTORY
    default_time_s: int = 3600  # the limit of jobs without --time, for backfill
    backfill: bool = True
    backfill_depth: int = 200  # pending jobs tried past the first waiting one per pass (Slurm's bf_max_job_test)
    reservation_refresh_s: int = 60  # recompute a standing head reservation at most this often (it only improves)
    policy: str = "best-fit"
    default_mem_per_cpu_mib: int = 0  # host memory a job without --mem / --mem-per-* takes per CPU (DefMemPerCPU)
    shards_per_gpu: int = 0  # GPU shards per GPU where no workload manager says (Slurm's gres.conf Name=shard)
    mps_beside_whole: bool = False  # a whole-GPU job may take a GPU that MPS shares use (Slurm's separate GRES)
    workload: tuple = ()  # the expected workload, (weight, JobRequest) pairs, for fragmentation-aware policies
