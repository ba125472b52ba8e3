"""The one mapping from an nvidia-smi log tree (`-q -x` XML or `-q` text) to the snapshot model.

Which path holds which field is in :mod:`~gputui.sources.nvsmi.spellings`, one table per format; the
first path that holds a value wins, so an N/A in one spelling does not hide a value in another.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from gputui.core.model import GpuSnapshot, NodeSnapshot, ProcessInfo
from gputui.sources.nvsmi.mig import ListedMig, MigDevice, gpu_instances
from gputui.sources.nvsmi.processes import mps_from_processes, process_from_record, process_records
from gputui.sources.nvsmi.spellings import TREE_TABLES, paths
from gputui.sources.nvsmi.tree import Node
from gputui.sources.nvsmi.values import smi_time

_Paths = tuple[tuple[str, Callable[[str | None], Any], tuple[str, ...]], ...]
# format ('xml' or 'text') -> (GPU, MIG device, node) paths
_TABLES: dict[str, tuple[_Paths, _Paths, _Paths]] = {
    fmt: (paths(gpu), paths(mig), paths(node)) for fmt, (gpu, mig, node) in TREE_TABLES.items()
}


def first_value(node: Node, convert: Callable[[str | None], Any], paths: tuple[str, ...]) -> Any:
    """The first path under ``node`` whose value converts to something other than None."""
    for path in paths:
        raw = node.value(path)
        if raw is not None:
            v = convert(raw)
            if v is not None:
                return v
    return None


def read_fields(node: Node, fields: _Paths) -> dict:
    return {name: first_value(node, convert, paths) for name, convert, paths in fields}


def gpu_from_tree(gpu: Node, index: int, listed: dict[int, ListedMig] | None = None, fmt: str = "xml") -> GpuSnapshot:
    """A GpuSnapshot from one <gpu> element (``fmt`` 'xml') or `GPU 0000:...` section (``fmt`` 'text')."""
    gpu_paths, mig_paths, _ = _TABLES[fmt]
    values = read_fields(gpu, gpu_paths)
    mig_nodes = gpu.find_all("mig_devices/mig_device") or gpu.find_all("mig_device")
    devices = [MigDevice(**read_fields(m, mig_paths)) for m in mig_nodes]
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
    root: Node, node_name: str, listing: dict[int, dict[int, ListedMig]] | None = None, fmt: str = "xml"
) -> tuple[float | None, NodeSnapshot]:
    """The document's time (UTC seconds, None if absent) and its machine as a NodeSnapshot.

    GPUs are indexed by their order in the document, which is nvidia-smi's own GPU index; the
    minor number can differ from it (it is the /dev/nvidiaN number).
    """
    listing = listing or {}
    gpus = tuple(gpu_from_tree(g, i, listing.get(i), fmt) for i, g in enumerate(root.all("gpu")))
    node = NodeSnapshot(name=node_name, gpus=gpus, **read_fields(root, _TABLES[fmt][2]))
    return smi_time(root.value("timestamp")), node
