"""The registry entries of jobs, recording and MPS control: keys, help and palette lines, and what is mutating."""

from __future__ import annotations

from gputui.dashboard.actions import ActionSpec

JOB_ACTIONS: tuple[ActionSpec, ...] = (
    ActionSpec(
        "toggle_jobs", "Jobs", "View", ("j",), "Show the jobs view (pending, running, finished) or the overview",
        rank=30,
    ),
    ActionSpec(
        "submit_job", "Submit", "Jobs", ("s",), "Submit a job: a form or a Slurm line, previewed as you type",
        mutating=True, rank=25, leads=("jobs",), opens_input=True, needs_queue=True,
    ),
    ActionSpec(
        "cancel_job", "Cancel job", "Jobs", ("c", "delete"),
        "Cancel the job selected in the jobs view, or the job on the highlighted GPU", mutating=True, rank=26,
        leads=("jobs",), needs_queue=True,
    ),
    ActionSpec(
        "screen.job_states", "Show", "Jobs", ("f",), "List all jobs, or the active, pending, running or finished ones",
        rank=27, views=("jobs",), leads=("jobs",), needs_queue=True,
    ),
    ActionSpec(
        "requeue_job", "Requeue", "Jobs", ("R",), "Queue the selected job again (a running one is stopped first)",
        mutating=True, key_display="R", rank=28, views=("jobs",), needs_queue=True,
    ),
    ActionSpec(
        "job_priority", "Priority", "Jobs", ("P",), "Change the selected pending job's priority",
        mutating=True, key_display="P", rank=29, views=("jobs",), needs_queue=True,
    ),
    ActionSpec("toggle_record", "Record", "App", ("r",), "Start or stop recording this session to a file", rank=61),
    ActionSpec(
        "mps_toggle", "MPS start/stop", "GPU", ("M",),
        "Start or stop the MPS control daemon of the highlighted GPU (a live machine)", mutating=True,
        key_display="M", rank=70, views=("overview", "detail"),
    ),
)  # fmt: skip
