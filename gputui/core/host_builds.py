"""Host CPUs and memory of the usual server builds for each GPU model, for synthetic and demo nodes.

A four-GPU server and an eight-GPU HGX/DGX board: a DGX A100 has 128 cores and 1-2 TiB, a DGX H100 or H200 112
cores and 2 TiB (NVIDIA's DGX data sheets); other models get the A100-40GB builds. Within 64-128 CPUs and
512 GiB-2 TiB, as operators see them.
"""

from __future__ import annotations

from gputui.core.mig_profiles import model_for

GIB = 1024  # MiB
#: model key (or a part of a product name) -> (CPUs, GiB) with up to four GPUs, and with more; first match wins
BUILDS: tuple[tuple[str, tuple[int, int], tuple[int, int]], ...] = (
    ("A100-80", (64, 1024), (128, 2048)),
    ("A100", (64, 512), (128, 1024)),
    ("H100", (96, 1024), (112, 2048)),
    ("H200", (96, 1536), (112, 2048)),
)
OTHER = ((64, 512), (128, 1024))


def host_build(gpu_model: str | None, gpu_count: int) -> tuple[int, int]:
    """(CPUs, MiB) of a node with ``gpu_count`` GPUs of ``gpu_model`` (a model key or an nvidia-smi name)."""
    model = model_for(gpu_model) if gpu_model else None
    key = model.key if model is not None else (gpu_model or "").upper()
    small, large = next(((s, b) for fam, s, b in BUILDS if fam in key), OTHER)
    cpus, gib = small if gpu_count <= 4 else large
    return cpus, gib * GIB
