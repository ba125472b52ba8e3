"""The ``nvidia-smi mig`` commands that turn one GPU's layout into another, as argv lists (never shell text).

Order: destroy the compute instances of each GPU instance that goes (``-dci``), then the instance (``-dgi``), then
create each new instance at its placement with its default compute instance (``-cgi ID:START -C``; the placement
specifier is the colon form of nvidia-smi's profile tuple). Largest new instances are created first, as NVIDIA's
guide advises (order matters on some drivers when no placement is given).
"""

from __future__ import annotations

from dataclasses import dataclass

from gputui.core.mig_profiles import GpuModel
from gputui.core.migplan.layouts import Slot


@dataclass(frozen=True, slots=True)
class LiveInstance:
    """A GPU instance as it exists now: its id, slot, and compute instance ids."""

    gi_id: int
    slot: Slot
    ci_ids: tuple[int, ...] = (0,)


def commands(gpu_index: int, model: GpuModel, remove: list[LiveInstance], create: list[Slot]) -> list[list[str]]:
    """argv of every command, in order, for one GPU."""
    out: list[list[str]] = []
    i = str(gpu_index)
    for inst in sorted(remove, key=lambda x: x.gi_id):
        if inst.ci_ids:
            cis = ",".join(str(c) for c in sorted(inst.ci_ids))
            out.append(["nvidia-smi", "mig", "-i", i, "-gi", str(inst.gi_id), "-ci", cis, "-dci"])
        out.append(["nvidia-smi", "mig", "-i", i, "-gi", str(inst.gi_id), "-dgi"])
    for s in sorted(create, key=lambda s: (-s.size, s.start)):
        p = model.profile(s.profile)
        assert p is not None
        out.append(["nvidia-smi", "mig", "-i", i, "-cgi", f"{p.gi_profile_id}:{s.start}", "-C"])
    return out
