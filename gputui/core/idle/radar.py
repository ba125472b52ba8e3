"""The radar itself: fed one snapshot and its holdings per frame, it keeps per held unit when its current
quiet run began (every reading known and under the threshold, no gap in the frames) and flags the unit idle
once that run covers the window. Constant work per held unit and frame; nothing of the past is stored."""

from __future__ import annotations

from dataclasses import dataclass

from gputui.core.idle.holdings import Holder, Holdings, UnitKey
from gputui.core.idle.readings import read_unit
from gputui.core.model import ClusterSnapshot, GpuSnapshot

DEFAULT_THRESHOLD = 5  # per cent: a unit under this counts as doing nothing
DEFAULT_WINDOW_S = 600.0  # ten minutes

IDLE = "idle"
UNKNOWN = "unknown"


@dataclass(frozen=True, slots=True)
class IdleRow:
    """One held unit the radar reports: ``state`` 'idle' (flagged) or 'unknown' (no reading to judge it by)."""

    key: UnitKey
    holder: Holder
    state: str
    held_since: float  # the job's start where known, else when the radar first saw the unit held
    idle_for_s: float | None  # how long the quiet run has lasted (idle rows)
    memory_mib: int | None
    util_now: int | None  # the unit's reading now (a bound for a part of a GPU)
    util_max: int | None  # the highest reading of the quiet run
    gpu_util: int | None  # the GPU's own utilisation now
    basis: str | None  # 'gpu' (the unit's own), 'gpu-bound' (the GPU's, bounding a part), 'gpm', 'process'

    @property
    def node(self) -> str:
        return self.key.node

    @property
    def unit(self) -> str:
        return self.key.label


#: One reported unit as the step records it (made into an IdleRow only when asked for).
_Raw = tuple[UnitKey, Holder, str, float, "float | None", "int | None", "int | None", "int | None", "int | None",
             "str | None"]  # fmt: skip


class RadarResult:
    """What one frame shows: the idle units, the held units without a reading, and the GPUs with an idle unit.

    The rows are built when first asked for: the overview reads only which GPUs are idle, every frame."""

    __slots__ = ("timestamp", "held", "_idle_raw", "_unknown_raw", "_idle", "_unknown")

    def __init__(
        self, timestamp: float, idle: tuple[_Raw, ...] = (), unknown: tuple[_Raw, ...] = (), held: int = 0
    ) -> None:
        self.timestamp = timestamp
        self.held = held  # held units seen this frame
        self._idle_raw = idle
        self._unknown_raw = unknown
        self._idle: tuple[IdleRow, ...] | None = None
        self._unknown: tuple[IdleRow, ...] | None = None

    @property
    def idle(self) -> tuple[IdleRow, ...]:
        if self._idle is None:
            self._idle = tuple(IdleRow(*r) for r in self._idle_raw)
        return self._idle

    @property
    def unknown(self) -> tuple[IdleRow, ...]:
        if self._unknown is None:
            self._unknown = tuple(IdleRow(*r) for r in self._unknown_raw)
        return self._unknown

    @property
    def idle_gpus(self) -> frozenset[tuple[str, int]]:
        return frozenset((r[0].node, r[0].gpu) for r in self._idle_raw)

    def idle_spans(self) -> list[tuple[str, int, float]]:
        """(node, GPU index, idle for) of each idle unit, without building rows."""
        return [(r[0].node, r[0].gpu, r[4] or 0.0) for r in self._idle_raw]


class _Track:
    __slots__ = ("identity", "since", "quiet_since", "util_max")

    def __init__(self, holder: Holder, t: float) -> None:
        self.identity = holder.identity
        self.since = holder.since if holder.since is not None else t
        self.quiet_since: float | None = None
        self.util_max = 0


class IdleRadar:
    """Flags held units whose utilisation stayed under ``threshold`` per cent for ``window_s`` seconds.

    Frames further apart than ``max_gap_s`` (default: half the window) break a quiet run, as does time going
    backwards (a replay sought back), which starts the radar afresh."""

    def __init__(
        self,
        threshold: int = DEFAULT_THRESHOLD,
        window_s: float = DEFAULT_WINDOW_S,
        max_gap_s: float | None = None,
    ) -> None:
        if not 0 < threshold <= 100:
            raise ValueError(f"threshold {threshold} is not a percentage above 0")
        if window_s < 0:
            raise ValueError(f"window {window_s} is negative")
        self.threshold = threshold
        self.window_s = window_s
        self.max_gap_s = max_gap_s if max_gap_s is not None else max(window_s / 2, 1.0)
        self._tracks: dict[UnitKey, _Track] = {}
        self._last_t: float | None = None
        self._gpus: dict[tuple[str, int], GpuSnapshot] = {}
        self._gpus_of: ClusterSnapshot | None = None

    def reset(self) -> None:
        self._tracks = {}
        self._last_t = None

    def _gpu_index(self, snap: ClusterSnapshot) -> dict[tuple[str, int], GpuSnapshot]:
        if self._gpus_of is not snap:
            self._gpus = {(n.name, g.index): g for n in snap.nodes for g in n.gpus}
            self._gpus_of = snap
        return self._gpus

    def step(self, snap: ClusterSnapshot, holdings: Holdings) -> RadarResult:
        """Take the next frame and who holds what in it; returns what is idle now."""
        t = snap.timestamp
        last = self._last_t
        if last is not None and t < last:
            self.reset()
            last = None
        gap = last is not None and t - last > self.max_gap_s
        self._last_t = t
        gpus = self._gpu_index(snap)
        old = self._tracks
        tracks: dict[UnitKey, _Track] = {}
        idle: list[_Raw] = []
        unknown: list[_Raw] = []
        threshold, start_by = self.threshold, t - self.window_s
        for key, holder in holdings.items():
            tr = old.get(key)
            if tr is None or tr.identity != holder.identity:
                tr = _Track(holder, t)
            tracks[key] = tr
            r = read_unit(key, holder, gpus.get((key.node, key.gpu)), threshold)
            util = r.util
            if util is None or util >= threshold:
                tr.quiet_since = None
                if util is None:
                    unknown.append(
                        (key, holder, UNKNOWN, tr.since, None, r.memory_mib, None, None, r.gpu_util, r.basis)
                    )
                continue
            if tr.quiet_since is None or gap:
                tr.quiet_since, tr.util_max = t, util
            elif util > tr.util_max:
                tr.util_max = util
            if tr.quiet_since <= start_by:
                idle.append((key, holder, IDLE, tr.since, t - tr.quiet_since, r.memory_mib, util, tr.util_max,
                             r.gpu_util, r.basis))  # fmt: skip
        self._tracks = tracks
        return RadarResult(t, tuple(idle), tuple(unknown), len(tracks))
