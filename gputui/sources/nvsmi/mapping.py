"""The one mapping from an nvidia-smi log tree (`-q -x` XML or `-q` text) to the snapshot model.

Each field lists the paths it may be found at: XML tag names first, then the normalised `-q` text
labels, then older or newer schema spellings (v11 `power_readings`, v12 `gpu_power_readings`, v13
`average_power_draw` / `instant_power_draw`). The first path that holds a value wins, so an N/A
in one spelling does not hide a value in another.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from gputui.core.model import GpuSnapshot, NodeSnapshot, ProcessInfo
from gputui.sources.nvsmi.mig import ListedMig, MigDevice, gpu_instances
from gputui.sources.nvsmi.processes import mps_from_processes, process_from_record, process_records
from gputui.sources.nvsmi.tree import Node
from gputui.sources.nvsmi.values import enabled, integer, number, smi_time, text


def _power(readings: tuple[str, ...], names: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(f"{r}/{n}" for r in readings for n in names)


_READINGS = ("gpu_power_readings", "power_readings")

# model field -> (converter, paths below the <gpu> element); every N/A spelling converts to None
GPU_FIELDS: tuple[tuple[str, Callable[[str | None], Any], tuple[str, ...]], ...] = (
    ("uuid", text, ("uuid", "gpu_uuid")),
    ("name", text, ("product_name",)),
    ("pci_bus_id", text, ("@id", "pci/pci_bus_id", "pci/bus_id")),
    ("memory_total_mib", integer, ("fb_memory_usage/total",)),
    ("memory_used_mib", integer, ("fb_memory_usage/used",)),
    ("utilization_gpu", integer, ("utilization/gpu_util", "utilization/gpu")),
    ("utilization_memory", integer, ("utilization/memory_util", "utilization/memory")),
    ("temperature_c", integer, ("temperature/gpu_temp", "temperature/gpu_current_temp")),
    # nvidia-smi's own "power.draw" is the average where the driver has both
    (
        "power_draw_w",
        number,
        _power(_READINGS, ("power_draw", "average_power_draw", "instant_power_draw", "instantaneous_power_draw")),
    ),
    ("power_limit_w", number, _power(_READINGS, ("current_power_limit", "enforced_power_limit", "power_limit"))),
    ("fan_percent", integer, ("fan_speed",)),
    ("clock_graphics_mhz", integer, ("clocks/graphics_clock", "clocks/graphics")),
    ("clock_sm_mhz", integer, ("clocks/sm_clock", "clocks/sm")),
    ("clock_memory_mhz", integer, ("clocks/mem_clock", "clocks/memory")),
    ("performance_state", text, ("performance_state",)),
    ("compute_mode", text, ("compute_mode",)),
    ("persistence_mode", enabled, ("persistence_mode",)),
    ("mig_mode_current", enabled, ("mig_mode/current_mig", "mig_mode/current")),
    ("mig_mode_pending", enabled, ("mig_mode/pending_mig", "mig_mode/pending")),
)

# MigDevice field -> (converter, paths below a <mig_device> element)
MIG_FIELDS: tuple[tuple[str, Callable[[str | None], Any], tuple[str, ...]], ...] = (
    ("index", integer, ("index",)),
    ("gi_id", integer, ("gpu_instance_id",)),
    ("ci_id", integer, ("compute_instance_id",)),
    ("sm_count", integer, ("device_attributes/shared/multiprocessor_count",)),
    ("memory_total_mib", integer, ("fb_memory_usage/total", "shared_fb_memory_usage/total")),
    ("memory_used_mib", integer, ("fb_memory_usage/used", "shared_fb_memory_usage/used")),
)


def first_value(node: Node, convert: Callable[[str | None], Any], paths: tuple[str, ...]) -> Any:
    """The first path under ``node`` whose value converts to something other than None."""
    for path in paths:
        raw = node.value(path)
        if raw is not None:
            v = convert(raw)
            if v is not None:
                return v
    return None


def read_fields(node: Node, fields: tuple[tuple[str, Callable[[str | None], Any], tuple[str, ...]], ...]) -> dict:
    return {name: first_value(node, convert, paths) for name, convert, paths in fields}


def gpu_from_tree(gpu: Node, index: int, listed: dict[int, ListedMig] | None = None) -> GpuSnapshot:
    """A GpuSnapshot from one <gpu> element (or `GPU 0000:...` text section)."""
    values = read_fields(gpu, GPU_FIELDS)
    mig_nodes = gpu.find_all("mig_devices/mig_device") or gpu.find_all("mig_device")
    devices = [MigDevice(**read_fields(m, MIG_FIELDS)) for m in mig_nodes]
    procs: tuple[ProcessInfo, ...] = tuple(
        p for p in (process_from_record(r) for r in process_records(gpu.child("processes"))) if p is not None
    )
    return GpuSnapshot(
        index=index,
        **values,
        gpu_instances=gpu_instances(devices, values["name"], listed) if devices else (),
        mps=mps_from_processes(procs),
        processes=procs,
    )


def node_from_tree(
    root: Node, node_name: str, listing: dict[int, dict[int, ListedMig]] | None = None
) -> tuple[float | None, NodeSnapshot]:
    """The document's time (UTC seconds, None if absent) and its machine as a NodeSnapshot.

    GPUs are indexed by their order in the document, which is nvidia-smi's own GPU index; the
    minor number can differ from it (it is the /dev/nvidiaN number).
    """
    listing = listing or {}
    gpus = tuple(gpu_from_tree(g, i, listing.get(i)) for i, g in enumerate(root.all("gpu")))
    node = NodeSnapshot(
        name=node_name,
        gpus=gpus,
        driver_version=text(root.value("driver_version")),
        cuda_version=text(root.value("cuda_version")),
    )
    return smi_time(root.value("timestamp")), node
