"""MIG profile tables per GPU model, loaded from package data, and the placement arithmetic on them.

Placements are memory-slot intervals; we keep them as bitmasks so that "does it fit" is one AND.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import cache
from importlib import resources


@dataclass(frozen=True, slots=True)
class MigProfile:
    name: str  # "3g.20gb"
    gi_profile_id: int
    compute_slices: int
    memory_slices: int
    max_instances: int
    sm_count: int | None
    memory_gib: float | None
    memory_mib_observed: int | None
    placements: tuple[tuple[int, int], ...]  # (start, size) in memory slots

    def placement_mask(self, start: int) -> int:
        for s, size in self.placements:
            if s == start:
                return ((1 << size) - 1) << s
        raise ValueError(f"{self.name} cannot start at slot {start}")

    @property
    def memory_mib_estimate(self) -> int | None:
        if self.memory_mib_observed is not None:
            return self.memory_mib_observed
        if self.memory_gib is None:
            return None
        return round(self.memory_gib * 1024)


@dataclass(frozen=True, slots=True)
class GpuModel:
    key: str  # "A100-40GB"
    description: str
    aliases: tuple[str, ...]
    compute_slices: int
    memory_slices: int
    sms_in_mig_mode: int | None
    profiles: tuple[MigProfile, ...]

    def profile(self, name: str) -> MigProfile | None:
        wanted = normalise_profile_name(name)
        for p in self.profiles:
            if p.name == wanted:
                return p
        return None

    def profile_by_id(self, gi_profile_id: int) -> MigProfile | None:
        for p in self.profiles:
            if p.gi_profile_id == gi_profile_id:
                return p
        return None

    def free_placements(self, profile: MigProfile, used_mask: int) -> list[int]:
        """Start slots where ``profile`` fits given the memory slots already taken."""
        return [s for s, size in profile.placements if not (((1 << size) - 1) << s) & used_mask]

    def fits_by_slices(self, in_use: list[str]) -> list[MigProfile] | None:
        """The profiles the slice counts leave room for beside GPU instances of the profiles ``in_use``, when
        their placements are unknown (a log never carries them); None when a profile in use is not in the table.

        Free memory and compute slices and the per-profile instance limit are necessary, not sufficient:
        where the free slots lie can still rule a profile out, but nothing left out here could fit.
        """
        used = [self.profile(n) for n in in_use]
        if any(p is None for p in used):
            return None
        known = [p for p in used if p is not None]
        memory = self.memory_slices - sum(p.memory_slices for p in known)
        compute = self.compute_slices - sum(p.compute_slices for p in known)
        return [
            p
            for p in self.profiles
            if not p.name.endswith("+me")
            and p.memory_slices <= memory
            and p.compute_slices <= compute
            and sum(q.name == p.name for q in known) < p.max_instances
        ]


def normalise_profile_name(name: str) -> str:
    """'MIG 3g.20gb', 'mig-3g.20gb', 'a100_3g.20gb' and '3G.20GB' all mean '3g.20gb'.

    A compute-instance name such as '1c.3g.20gb' is kept whole: it is not a GPU-instance profile.
    """
    n = name.strip().lower()
    n = re.sub(r"^mig[\s-]+", "", n)
    m = re.search(r"(?:^|[_\s-])(\d+g\.\d+gb(?:\+me)?)$", n)
    return m.group(1) if m else n


@cache
def load_models() -> dict[str, GpuModel]:
    raw = json.loads(resources.files("gputui.core").joinpath("data/mig_profiles.json").read_text())
    models = {}
    for key, m in raw["gpu_models"].items():
        profiles = tuple(
            MigProfile(
                name=p["name"],
                gi_profile_id=p["gi_profile_id"],
                compute_slices=p["compute_slices"],
                memory_slices=p["memory_slices"],
                max_instances=p["max_instances"],
                sm_count=p["sm_count"],
                memory_gib=p["memory_gib"],
                memory_mib_observed=p["memory_mib_observed"],
                placements=tuple((s, size) for s, size in p["placements"]),
            )
            for p in m["profiles"]
        )
        models[key] = GpuModel(
            key=key,
            description=m["description"],
            aliases=tuple(m["aliases"]),
            compute_slices=m["compute_slices"],
            memory_slices=m["memory_slices"],
            sms_in_mig_mode=m["sms_in_mig_mode"],
            profiles=profiles,
        )
    return models


# Product-name patterns for GPUs whose nvidia-smi name is not literally one of the aliases.
_NAME_RULES: tuple[tuple[str, str], ...] = (
    (r"gh200.*144", "GH200-144GB"),
    (r"gh200|h20\b|96gb", "H100-96GB"),
    (r"h100.*(nvl|94gb)|h800 nvl", "H100-94GB"),
    (r"h100|h800", "H100-80GB"),
    (r"h200", "H200-141GB"),
    (r"b200", "B200-180GB"),
    (r"a100.*80gb|a800.*80gb", "A100-80GB"),
    (r"a100|a800", "A100-40GB"),
    (r"\ba30\b", "A30-24GB"),
)


@cache
def model_for(name: str | None) -> GpuModel | None:
    """The MIG table for a GPU, given its model key ('A100-40GB') or nvidia-smi product name."""
    if not name:
        return None
    models = load_models()
    if name in models:
        return models[name]
    low = name.lower().strip()
    for m in models.values():
        if m.key.lower() == low or any(a.lower() == low for a in m.aliases):
            return m
    for pattern, key in _NAME_RULES:
        if re.search(pattern, low):
            return models[key]
    return None


def infer_profile(model: GpuModel, memory_mib: int | None, sm_count: int | None = None) -> MigProfile | None:
    """Guess a GPU instance's profile from its memory size (and SMs), as nvidia-smi -q does not name it.

    Picks the profile whose memory is nearest (within 12 %), preferring one whose SM count matches.
    """
    if memory_mib is None:
        return None
    best: tuple[float, int, MigProfile] | None = None
    for p in model.profiles:
        if p.name.endswith("+me"):
            continue
        est = p.memory_mib_estimate
        if est is None:
            continue
        err = abs(est - memory_mib) / est
        if err > 0.12:
            continue
        sm_miss = 0 if sm_count is None or p.sm_count == sm_count else 1
        key = (sm_miss + err, p.compute_slices)
        if best is None or key < (best[0], best[1]):
            best = (key[0], key[1], p)
    return best[2] if best else None
