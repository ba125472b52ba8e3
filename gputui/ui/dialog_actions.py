"""The dashboard actions that run a dialog flow (cancel, requeue, priority, record, MPS) in a worker of the
``DIALOG`` group, so that one dialog at a time is open. Mixed into the app (and into the test app that mounts the
same keys), which provides ``job_keys``, ``record_keys`` and ``mps_keys``."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from gputui.ui.record_keys import RecordingFailed

if TYPE_CHECKING:
    from gputui.ui.job_keys import JobKeys
    from gputui.ui.mps_keys import MpsKeys
    from gputui.ui.record_keys import RecordKeys

#: The worker group of actions that wait for a dialog's answer (tests wait for every other worker).
DIALOG = "dialog"


class DialogActions:
    job_keys: JobKeys
    record_keys: RecordKeys
    mps_keys: MpsKeys

    if TYPE_CHECKING:

        def run_worker(self, *args: Any, **kwargs: Any) -> Any: ...  # Textual's App provides it

    def action_cancel_job(self) -> None:
        self.run_worker(self.job_keys.cancel(), group=DIALOG)

    def action_requeue_job(self) -> None:
        self.run_worker(self.job_keys.requeue(), group=DIALOG)

    def action_job_priority(self) -> None:
        self.run_worker(self.job_keys.priority(), group=DIALOG)

    def action_toggle_record(self) -> None:
        self.run_worker(self.record_keys.toggle(), group=DIALOG)

    def on_recording_failed(self, message: RecordingFailed) -> None:
        self.record_keys.failed(message)

    def action_mps_toggle(self) -> None:
        self.run_worker(self.mps_keys.toggle(), group=DIALOG)
