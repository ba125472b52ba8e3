"""The GPU parts of a request: ``--gres``, ``--gpus`` and ``--gpus-per-node`` values to typed items."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache

from gputui.core.index_ranges import index_range
from gputui.core.mig_profiles import load_models, normalise_profile_name
from gputui.core.numbers import shown, too_long
from gputui.core.scheduler.errors import RequestError

_TYPE = re.compile(r"^[A-Za-z0-9_.+\-]+$")
_PROFILE = re.compile(r"(?:^|[_\-])(\d+g\.\d+gb(?:\+me)?)$", re.IGNORECASE)
_MAX_COUNT = 1_000_000


@dataclass(frozen=True, slots=True)
class GpuItem:
    """One element of a GPU spec: a count of whole GPUs (maybe typed), device indices, MIG instances or MPS."""

    what: str  # "gpu" | "ids" | "mig" | "mps" | "shard"
    count: int = 0
    gpu_type: str | None = None  # whole-GPU type, or the model prefix of a MIG type ("a100")
    profile: str | None = None
    ids: tuple[int, ...] = ()


@cache
def known_profiles() -> frozenset[str]:
    """Every MIG profile name in the bundled tables."""
    return frozenset(p.name for m in load_models().values() for p in m.profiles)


def _count(text: str, option: str) -> int:
    if not re.fullmatch(r"[+-]?\d+", text.strip()):
        raise RequestError(f"{option}: count {shown(text)} is not a whole number")
    if too_long(text.strip()):
        raise RequestError(f"{option}: count {shown(text.strip())} is too large")
    n = int(text)
    if n <= 0:
        raise RequestError(f"{option}: count must be at least 1, not {n}")
    if n > _MAX_COUNT:
        raise RequestError(f"{option}: count {n} is too large")
    return n


def _typed(type_text: str, count: int, option: str) -> GpuItem:
    if not _TYPE.match(type_text):
        raise RequestError(f"{option}: bad GPU type {shown(type_text)}")
    if type_text.lower().startswith("mig-") or _PROFILE.search(type_text):
        profile = normalise_profile_name(type_text)
        if profile not in known_profiles():
            raise RequestError(f"{option}: unknown MIG profile {shown(type_text)}")
        m = _PROFILE.search(type_text)
        head = type_text[: m.start()] if m else ""
        prefix = re.sub(r"^mig$", "", head, flags=re.IGNORECASE).strip("_-")
        return GpuItem("mig", count, gpu_type=prefix.lower() or None, profile=profile)
    return GpuItem("gpu", count, gpu_type=type_text.lower())


def parse_gpu_spec(text: str, option: str) -> GpuItem:
    """A ``--gpus`` / ``--gpus-per-node`` value: ``N`` or ``TYPE:N`` (TYPE may be a MIG profile)."""
    t = text.strip()
    if "," in t:
        raise RequestError(f"{option}: several GPU types in one request are not supported ({shown(text)})")
    parts = t.split(":")
    if len(parts) == 1:
        return GpuItem("gpu", _count(parts[0], option))
    if len(parts) == 2:
        return _typed(parts[0], _count(parts[1], option), option)
    raise RequestError(f"{option}: expected N or TYPE:N, got {shown(text)}")


def _int_list(items: list[str], option: str) -> tuple[int, ...]:
    ids: list[int] = []
    for it in items:
        indices = index_range(it, 1024)
        if indices is None:
            raise RequestError(f"{option}: bad GPU index {shown(it)}")
        if not indices:
            raise RequestError(f"{option}: bad GPU index range {shown(it)}")
        ids.extend(indices)
    if len(set(ids)) != len(ids):
        raise RequestError(f"{option}: GPU index listed twice")
    return tuple(ids)


def parse_gpu_ids(text: str, option: str = "--gpu-ids") -> tuple[int, ...]:
    """A comma list of GPU indices (ranges such as ``0-3`` allowed)."""
    return _int_list(text.split(","), option)


def parse_gres(text: str, option: str = "--gres") -> list[GpuItem]:
    """A ``--gres`` value: ``gpu[:TYPE][:N]``, ``gpu:I,J`` (indices), ``gpu/MIG-1g.10gb:N``, ``mps:N``, comma lists."""
    pieces = [p.strip() for p in text.split(",")]
    if not text.strip() or any(not p for p in pieces):
        raise RequestError(f"{option}: empty item in {shown(text)}")
    items: list[GpuItem] = []
    i = 0
    while i < len(pieces):
        p = pieces[i]
        name, _, rest = p.partition(":")
        if "/" in name:  # gpu/MIG-1g.10gb[:N]
            base, _, sub = name.partition("/")
            if base.lower() != "gpu" or not sub:
                raise RequestError(f"{option}: unknown resource {shown(name)}")
            rest = f"{sub}:{rest}" if rest else sub
            name = "gpu"
        name = name.lower()
        if name in ("mps", "shard"):
            if not rest:
                example = "mps:50" if name == "mps" else "shard:2"
                raise RequestError(f"{option}: {name} needs a count, as in {example}")
            items.append(GpuItem(name, _count(rest, option)))
        elif name == "gpu":
            fields = rest.split(":") if rest else []
            nxt = pieces[i + 1 : i + 2]
            if len(fields) == 1 and fields[0].isdigit() and nxt and re.fullmatch(r"\d+(-\d+)?", nxt[0]):
                # gpu:0,1 -- a comma list of numbers after gpu: names device indices
                j = i + 1
                while j < len(pieces) and re.fullmatch(r"\d+(-\d+)?", pieces[j]):
                    j += 1
                items.append(GpuItem("ids", ids=_int_list([fields[0], *pieces[i + 1 : j]], option)))
                i = j
                continue
            if not fields:
                items.append(GpuItem("gpu", 1))
            elif len(fields) == 1:
                f = fields[0]
                if re.fullmatch(r"[+-]?\d+", f):
                    items.append(GpuItem("gpu", _count(f, option)))
                else:
                    items.append(_typed(f, 1, option))
            elif len(fields) == 2:
                items.append(_typed(fields[0], _count(fields[1], option), option))
            else:
                raise RequestError(f"{option}: expected gpu[:TYPE][:N], got {shown(p)}")
        else:
            raise RequestError(f"{option}: unsupported resource {shown(name)} (gpu, mps and shard are supported)")
        i += 1
    return items
