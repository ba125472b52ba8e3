"""Physical figures of the GPU models the generator can simulate: memory, power, clocks, temperatures.

Values are what nvidia-smi reports on these boards (total memory, default power limit, max clocks);
idle and loaded temperatures and powers are typical of air-cooled DGX/HGX machines.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class GpuSpec:
    name: str  # nvidia-smi product name
    memory_total_mib: int
    power_limit_w: float
    power_idle_w: float
    clock_max_mhz: int  # graphics and SM
    clock_idle_mhz: int
    clock_memory_mhz: int
    temp_idle_c: float
    temp_full_c: float  # steady temperature at the power limit
    driver_overhead_mib: int  # memory nvidia-smi shows as used by the driver once a context exists
    clock_step_mhz: int = 15


SPECS: dict[str, GpuSpec] = {
    s.name: s
    for s in (
        GpuSpec("NVIDIA A100-SXM4-40GB", 40960, 400.0, 52.0, 1410, 210, 1215, 29.0, 66.0, 4),
        GpuSpec("NVIDIA A100-SXM4-80GB", 81920, 400.0, 60.0, 1410, 210, 1593, 30.0, 67.0, 4),
        GpuSpec("NVIDIA H100 80GB HBM3", 81559, 700.0, 69.0, 1980, 345, 2619, 33.0, 68.0, 2),
        GpuSpec("NVIDIA H200", 143771, 700.0, 75.0, 1980, 345, 3201, 33.0, 68.0, 2),
    )
}


def spec_for(name: str) -> GpuSpec:
    """The figures for an nvidia-smi product name; ValueError names the known ones."""
    try:
        return SPECS[name]
    except KeyError:
        raise ValueError(f"no simulated figures for '{name}' (known: {', '.join(SPECS)})") from None
