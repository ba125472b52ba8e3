"""An idle jobs view with a long queue costs what the overview costs: an unchanged record's row is not made again,
and the same list shown twice at the same moment (apply_tick, then the frame) is not redrawn.
`python -m gputui.bench jobs_idle` measures the CPU."""

from __future__ import annotations

from pathlib import Path

from jobs_helpers import machine, sim_service

import gputui.ui.widgets.jobs_table as jobs_table


def test_unchanged_rows_are_kept_and_running_ones_follow_the_clock(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    svc = sim_service(tmp_path)
    try:
        snap = machine()
        svc.tick(snap)
        svc.submit("--gpus=2 -t 100", ["true"])
        svc.tick(snap)
        for _ in range(50):
            svc.submit("--gpus=1 -t 10", ["true"])
        svc.tick(snap)
        records = tuple(svc.list(None))
    finally:
        svc.close()
    made: list[int] = []
    real = jobs_table.job_row
    monkeypatch.setattr(jobs_table, "job_row", lambda rec, now: made.append(rec.id) or real(rec, now))
    cache: jobs_table.RowCache = {}
    first = jobs_table.job_rows(records, snap.timestamp, cache=cache)
    assert len(made) == len(records) == 51
    made.clear()
    again = jobs_table.job_rows(records, snap.timestamp + 5, cache=cache)
    running = [r.id for r in records if r.running]
    assert made == running and 0 < len(running) < 5  # only the running jobs: their elapsed time moved
    assert [r.id for r in again] == [r.id for r in first]
    assert again == jobs_table.job_rows(records, snap.timestamp + 5)  # the same rows as made afresh
