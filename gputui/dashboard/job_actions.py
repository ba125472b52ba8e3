"""The registry entries of jobs, recording and MPS control: keys, help and palette lines, and what is mutating."""

from __future__ import annotations

from gputui.dashboard.actions import ActionSpec

JOB_ACTIONS: tuple[ActionSpec, ...] = (
    ActionSpec("toggle_jobs", "Jobs", "View", ("j",), "Show the jobs view (pending, running, finished) or GPU detail"),
    ActionSpec(
        "submit_job", "Submit", "Jobs", ("s",), "Submit a job: a form or a Slurm line, previewed as you type",
        mutating=True,
    ),
    ActionSpec(
        "cancel_job", "Cancel job", "Jobs", ("c", "delete"),
        "Cancel the job selected in the jobs view, or the job on the highlighted GPU", mutating=True,
    ),
    ActionSpec(
        "requeue_job", "Requeue", "Jobs", ("R",), "Queue the selected job again (a running one is stopped first)",
        mutating=True, footer=False, key_display="R",
    ),
    ActionSpec(
        "job_priority", "Priority", "Jobs", ("P",), "Change the selected pending job's priority",
        mutating=True, footer=False, key_display="P",
    ),
    ActionSpec("toggle_record", "Record", "App", ("r",), "Start or stop recording this session to a file"),
    ActionSpec(
        "mps_toggle", "MPS start/stop", "GPU", ("M",),
        "Start or stop the MPS control daemon of the highlighted GPU (a live machine)", mutating=True,
        footer=False, key_display="M",
    ),
)  # fmt: skip
