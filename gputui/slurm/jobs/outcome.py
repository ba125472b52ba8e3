"""A Slurm what-if answer for scripts: ``{"outcome", "allocation", "reason", "message", "ignored_options"}``.

``outcome`` is "start" (Slurm would start it now), "wait" (it would pend; ``reason`` is Slurm's word) or "refuse"
(sbatch would reject it). ``allocation`` maps each node to the GPU indices it would get, as Slurm's IDX
(an empty list: the node's CPUs only). The same shape is recorded from Slurm itself by the differential tests.
"""

from __future__ import annotations

from typing import Any

from gputui.core.scheduler.allocation import Allocation
from gputui.jobs.views import Preview


def allocation_map(alloc: Allocation | None) -> dict[str, list[int]]:
    """node -> sorted GPU indices (IDX), for every node of the allocation."""
    if alloc is None:
        return {}
    return {ng.node: sorted({g.index for g in ng.gpus}) for ng in alloc.nodes}


def outcome_of(preview: Preview | None, error: str | None = None) -> dict[str, Any]:
    """The answer for a preview, or for a refusal (``preview`` None, ``error`` the one-line reason)."""
    if preview is None:
        return {"outcome": "refuse", "allocation": {}, "reason": None, "message": error or "refused",
                "ignored_options": []}  # fmt: skip
    ignored = list(preview.request.ignored)
    if preview.starts_now:
        return {"outcome": "start", "allocation": allocation_map(preview.allocation), "reason": None,
                "message": preview.text, "ignored_options": ignored}  # fmt: skip
    return {"outcome": "wait", "allocation": {}, "reason": preview.reason, "message": preview.text,
            "ignored_options": ignored}  # fmt: skip


def same_decision(a: dict[str, Any], b: dict[str, Any]) -> bool:
    """Whether two answers agree exactly: same outcome, and the same nodes and IDX, or the same pending reason."""
    if a["outcome"] != b["outcome"]:
        return False
    if a["outcome"] == "start":
        return a["allocation"] == b["allocation"]
    if a["outcome"] == "wait":
        return a["reason"] == b["reason"]
    return True
