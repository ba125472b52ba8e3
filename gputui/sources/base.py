"""The one interface every source offers, and the frame-store interface behind replays."""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from typing import Protocol, runtime_checkable

from gputui.core.model import ClusterSnapshot, Event


@runtime_checkable
class Source(Protocol):
    """Something that yields cluster snapshots: live NVML, a recording, an nvidia-smi log."""

    description: str

    def poll(self) -> ClusterSnapshot: ...

    def close(self) -> None: ...


class FrameStore(Protocol):
    """Numbered, time-ordered frames with random access (a recording file, a parsed log)."""

    events: list[Event]
    start_time: float
    end_time: float

    @property
    def frame_count(self) -> int: ...

    def frame(self, i: int) -> ClusterSnapshot: ...

    def timestamp(self, i: int) -> float: ...

    def locate(self, t: float) -> int: ...

    def close(self) -> None: ...


class MemoryFrames:
    """A frame store over snapshots already in memory (imported nvidia-smi logs, tests)."""

    def __init__(self, frames: Sequence[ClusterSnapshot], events: Sequence[Event] = ()) -> None:
        if not frames:
            raise ValueError("no frames")
        self._frames = sorted(frames, key=lambda s: s.timestamp)
        self._times = [f.timestamp for f in self._frames]
        self.events = sorted(events, key=lambda e: e.timestamp)
        self.start_time = self._times[0]
        self.end_time = self._times[-1]

    @property
    def frame_count(self) -> int:
        return len(self._frames)

    def frame(self, i: int) -> ClusterSnapshot:
        if not 0 <= i < len(self._frames):
            raise IndexError(i)
        return self._frames[i]

    def timestamp(self, i: int) -> float:
        return self._times[i]

    def locate(self, t: float) -> int:
        return max(0, bisect.bisect_right(self._times, t) - 1)

    def close(self) -> None:
        pass
