"""Deterministic names a driver or kernel would hand out: GPU and MIG UUIDs, PCI bus ids, process ids.

Each identifier is a hash of the seed and the thing it names, so it does not depend on the order in
which a timeline asks for it.
"""

from __future__ import annotations

import hashlib
import random

# Bus numbers of the GPUs in DGX A100 and DGX H100 machines, in nvidia-smi's index order.
_A100_BUSES = (0x07, 0x0F, 0x47, 0x4E, 0x87, 0x90, 0xB7, 0xBD)
_H100_BUSES = (0x18, 0x2A, 0x3A, 0x5D, 0x9A, 0xAB, 0xBA, 0xDB)


def _uuid_text(*parts: object) -> str:
    digest = hashlib.sha256(":".join(str(p) for p in parts).encode()).hexdigest()
    return f"{digest[0:8]}-{digest[8:12]}-{digest[12:16]}-{digest[16:20]}-{digest[20:32]}"


def gpu_uuid(seed: int, node: str, index: int) -> str:
    """A 'GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx' UUID for one GPU of one node."""
    return "GPU-" + _uuid_text("gpu", seed, node, index)


def mig_uuid(seed: int, node: str, gpu_index: int, gi_id: int, ci_id: int, generation: int = 0) -> str:
    """A 'MIG-...' UUID for one compute instance; ``generation`` changes when the instance is re-created."""
    return "MIG-" + _uuid_text("mig", seed, node, gpu_index, gi_id, ci_id, generation)


def pci_bus_id(gpu_name: str, index: int) -> str:
    """The PCI bus id nvidia-smi prints, as on a DGX machine of that GPU's generation."""
    buses = _H100_BUSES if "H100" in gpu_name or "H200" in gpu_name else _A100_BUSES
    domain, slot = divmod(index, len(buses))  # past 8 GPUs: the next PCI domain, as on large hosts
    return f"{domain:08X}:{buses[slot]:02X}:00.0"


class PidAllocator:
    """Process ids that grow with small random gaps, as on a busy Linux machine."""

    def __init__(self, rng: random.Random, start: int | None = None) -> None:
        self._rng = rng
        self._next = start if start is not None else rng.randrange(180_000, 900_000)

    def next(self) -> int:
        pid = self._next
        self._next += self._rng.randrange(3, 400)
        if self._next > 4_000_000:  # kernel.pid_max on modern distributions: wrap like the kernel
            self._next = 300 + self._rng.randrange(1000)
        return pid
