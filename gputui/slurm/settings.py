"""What of a Slurm cluster's configuration changes where Slurm puts a job, read from ``scontrol show config`` and
the nodes, and a request put in the terms Slurm's placement uses.

* ``SelectTypeParameters``: with ``CR_*_Memory`` host memory is a consumable (jobs hold it, DefMemPerCPU /
  DefMemPerNode apply); otherwise memory is only checked against each node's RealMemory at submit.
* Node ``Weight``: Slurm fills the lowest-weight nodes first (then in slurm.conf order).
* The MPS count per GPU (a node's ``mps:N`` spread evenly over its GPUs): ``--gres=mps:N`` asks for N of those
  counts on one GPU, a percentage only where the count per GPU is 100.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace

from gputui.core.scheduler.allocation import Allocation, GpuGrant
from gputui.core.scheduler.config import SchedulerConfig
from gputui.core.scheduler.request import JobRequest
from gputui.slurm.commands import SlurmClient
from gputui.slurm.errors import SlurmError
from gputui.slurm.formats.nodes import SlurmNode
from gputui.slurm.jobs.records import mps_per_gpu

_LINE = re.compile(r"^\s*([A-Za-z][\w/]*)\s*=\s*(.*?)\s*$")


def parse_config(text: str) -> dict[str, str]:
    """``Key = Value`` lines of ``scontrol show config``."""
    out: dict[str, str] = {}
    for line in text.splitlines():
        m = _LINE.match(line)
        if m:
            out.setdefault(m.group(1), m.group(2))
    return out


def read_config(client: SlurmClient) -> str:
    """``scontrol show config``; empty (Slurm's defaults apply) when it does not answer."""
    try:
        return client.output(("scontrol", "show", "config"))
    except SlurmError:
        return ""


def _mib(value: str | None) -> int | None:
    if value is None or not value.strip().isdigit():
        return None
    return int(value)


@dataclass(frozen=True, slots=True)
class SlurmSettings:
    """The placement-relevant configuration; the defaults are Slurm's own."""

    select_parameters: str = "CR_CORE"
    memory_consumable: bool = False
    def_mem_per_cpu_mib: int | None = None
    def_mem_per_node_mib: int | None = None  # None: UNLIMITED (the whole node) or unset
    weights: Mapping[str, int] = field(default_factory=dict)
    mps_per_gpu: Mapping[str, int] = field(default_factory=dict)
    mps_totals: Mapping[str, int] = field(default_factory=dict)  # node -> its whole mps:N

    @classmethod
    def read(cls, config_text: str | None, nodes: Sequence[SlurmNode]) -> SlurmSettings:
        cfg = parse_config(config_text or "")
        params = cfg.get("SelectTypeParameters", "CR_CORE").upper()
        return cls(
            select_parameters=params,
            memory_consumable="MEMORY" in params,
            def_mem_per_cpu_mib=_mib(cfg.get("DefMemPerCPU")),
            def_mem_per_node_mib=_mib(cfg.get("DefMemPerNode")),
            weights={n.name: n.weight for n in nodes if n.weight is not None},
            mps_per_gpu=mps_per_gpu(nodes),
            mps_totals={n.name: t for n in nodes if (t := sum(i.count or 0 for i in n.gres if i.name == "mps"))},
        )

    def scheduler_config(self) -> SchedulerConfig:
        """The embedded scheduler set up to decide as this Slurm does."""
        per_cpu = self.def_mem_per_cpu_mib if self.memory_consumable else 0
        return SchedulerConfig(mps_percent_cap=100, policy="slurm", mps_beside_whole=True,
                               default_mem_per_cpu_mib=per_cpu or 0)  # fmt: skip

    def mps_unit(self) -> int:
        """The MPS count per GPU that ``mps:N`` is counted in (the most common one of the cluster; 100 if none)."""
        counts = list(self.mps_per_gpu.values())
        return max(set(counts), key=counts.count) if counts else 100

    def request(self, req: JobRequest, keep_memory: bool = False) -> JobRequest:
        """``req`` as Slurm's placement sees it: a MIG-typed GRES is a GPU type like any other, ``mps:N`` a share
        of the MPS count per GPU, host memory gone where it is no consumable."""
        if req.kind == "mig" and len(req.mig) == 1:
            profile, count = req.mig[0]
            req = replace(req, kind="count", mig=(), gpu_type=profile, gpus_per_node=count)
        elif req.kind == "mps" and req.mps_percent is not None:
            unit = self.mps_unit()
            req = replace(req, mps_percent=-(-req.mps_percent * 100 // unit))
        if not self.memory_consumable and not keep_memory:
            req = replace(req, mem_mib=None, mem_per_cpu_mib=None, mem_per_gpu_mib=None)
        return req


def plain_allocation(alloc: Allocation | None) -> Allocation | None:
    """An allocation with MIG-typed GRES as plain GPUs (their index only), as the Slurm what-if's view has them."""
    if alloc is None or not any(g.mig for ng in alloc.nodes for g in ng.gpus):
        return alloc
    return Allocation(tuple(
        replace(ng, gpus=tuple(GpuGrant(g.index, g.uuid) if g.mig else g for g in ng.gpus)) for ng in alloc.nodes
    ))  # fmt: skip
