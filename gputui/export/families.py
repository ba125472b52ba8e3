"""Every metric family of one frame, in a fixed order: dcgm-exporter's first, then gputui's."""

from __future__ import annotations

from gputui.export.dcgm_families import dcgm_families, prof_families
from gputui.export.frame import Frame
from gputui.export.gputui_families import (
    activity_families,
    gpu_families,
    mig_families,
    mps_families,
    queue_families,
)
from gputui.export.rows import gpu_rows
from gputui.export.text_format import Family


def families(frame: Frame) -> list[Family]:
    rows = gpu_rows(frame.snapshot.nodes, frame.attribution)
    stamp = Family("gputui_snapshot_timestamp_seconds", "When the exported snapshot was taken (Unix time).")
    stamp.add("", frame.snapshot.timestamp)
    return [
        *dcgm_families(rows),
        *prof_families(rows),
        *gpu_families(rows),
        *activity_families(rows),
        *mps_families(rows, frame.attribution),
        *mig_families(rows),
        *queue_families(frame.attribution, frame.now),
        stamp,
    ]
