"""The '/' filter: which GPUs match a typed text, by node, GPU index, model, user or job.

Matching is a case-insensitive substring over each of a GPU's words (so '3' finds GPU 3 and
node03; 'node03/1' finds one GPU). Jobs match through the GPUs they were placed on.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from gputui.core.model import GpuSnapshot


def gpu_words(node: str, gpu: GpuSnapshot) -> list[str]:
    """What a GPU can be found by: its node, index, model, UUID and the users of its processes."""
    words = [node, f"{node}/{gpu.index}", f"gpu{gpu.index}", str(gpu.index)]
    if gpu.name:
        words.append(gpu.name)
    if gpu.uuid:
        words.append(gpu.uuid)
    words.extend(p.user for p in gpu.processes if p.user)
    if gpu.mps is not None:
        words.extend(c.user for c in gpu.mps.clients if c.user)
    if gpu.lost:
        words.append("lost")
    return words


class GpuFilter:
    """A typed filter; empty matches everything. ``jobs`` maps 'node/index' to job ids and names on it."""

    def __init__(self, text: str, jobs: Mapping[str, Iterable[str]] | None = None) -> None:
        self.text = text.strip()
        self._needle = self.text.lower()
        self._jobs = jobs or {}

    def __bool__(self) -> bool:
        return bool(self._needle)

    def matches(self, node: str, gpu: GpuSnapshot) -> bool:
        needle = self._needle
        if not needle:
            return True
        words = gpu_words(node, gpu)
        words.extend(self._jobs.get(f"{node}/{gpu.index}", ()))
        return any(needle in w.lower() for w in words)
