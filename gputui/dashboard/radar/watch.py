"""One radar run over a stream of frames: who holds what (queue or Slurm records, a recording's events, else
processes) and the radar's verdict, cheap per frame (the records' holdings are worked out again only when the
records change, the recording's jobs only when an event comes)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING

from gputui.core.idle import (
    DEFAULT_THRESHOLD,
    DEFAULT_WINDOW_S,
    HeldJob,
    Holder,
    IdleRadar,
    RadarResult,
    RecordedJobs,
    UnitKey,
    holdings_from_jobs,
    merge_holdings,
    process_holdings,
)
from gputui.core.idle.holdings import held_gpus
from gputui.core.model import ClusterSnapshot, Event
from gputui.core.plain_text import sanitise

if TYPE_CHECKING:  # the job service loads after the first frame; this module before it
    from gputui.jobs.records import JobRecord


def held_jobs(records: Iterable[JobRecord]) -> list[HeldJob]:
    """The running records with an allocation, as the radar takes them (Slurm's jobs marked as such)."""
    return [
        HeldJob(
            str(r.id),
            r.allocation,
            sanitise(r.user) if r.user else None,
            sanitise(r.display_name),
            r.start_time,
            "slurm" if r.runner == "slurm" else "queue",
        )
        for r in sorted(records, key=lambda r: r.id)
        if r.running and r.allocation is not None
    ]


class RadarWatch:
    """The radar with its holdings; call :meth:`step` once per frame."""

    def __init__(self, threshold: int = DEFAULT_THRESHOLD, window_s: float = DEFAULT_WINDOW_S) -> None:
        self.radar = IdleRadar(threshold, window_s)
        self.recorded = RecordedJobs()
        self._records: object = None
        self._queue: dict[UnitKey, Holder] = {}
        self._last_t: float | None = None
        self.last: RadarResult | None = None
        self._holders: dict[object, Holder] = {}  # process holders by their users, kept from frame to frame
        self._sources: tuple[object, object] = (None, None)
        self._known: dict[UnitKey, Holder] = {}
        self._held: frozenset[tuple[str, int]] = frozenset()
        # told each frame with the holdings it was judged on (gputui idle --advise sizes the held units)
        self.observer: Callable[[ClusterSnapshot, dict[UnitKey, Holder]], None] | None = None

    @property
    def threshold(self) -> int:
        return self.radar.threshold

    @property
    def window_s(self) -> float:
        return self.radar.window_s

    def set_records(self, records: Sequence[JobRecord]) -> None:
        """The job queue's records now (the same object again costs nothing)."""
        if records is not self._records:
            self._records = records
            self.set_jobs(held_jobs(records))

    def set_jobs(self, jobs: Iterable[HeldJob]) -> None:
        """The running jobs as the radar takes them (what set_records gives it from the records)."""
        self._queue = holdings_from_jobs(jobs)

    def restart_events(self, events: Sequence[Event]) -> None:
        """Every recorded event up to the frame now shown (a replay's start, or after a seek back)."""
        self.recorded.reset(events)

    def step(self, snap: ClusterSnapshot, new_events: Iterable[Event] = ()) -> RadarResult:
        """The next frame and the recorded events since the last one; what is idle now."""
        self.recorded.apply(new_events)
        sources = (self._queue, self.recorded.holdings())
        if sources[0] is not self._sources[0] or sources[1] is not self._sources[1]:
            self._sources = sources  # the jobs changed: who they hold, worked out once
            self._known = merge_holdings(*sources)
            self._held = held_gpus(self._known)
        procs = process_holdings(snap, self._held, self._holders)
        holdings = merge_holdings(self._known, procs) if procs else self._known
        self.last = self.radar.step(snap, holdings)
        if self.observer is not None:
            self.observer(snap, holdings)
        return self.last
