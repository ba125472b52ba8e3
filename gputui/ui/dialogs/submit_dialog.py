"""The submit dialog: a form (or one pasted Slurm line) checked as it is typed, with a live preview.

The dialog runs its own workers: the preview (debounced, the newest only) and the submit, each calling the
job service in a thread; it is dismissed with the change made (the stored job and the job list after it).
"""

from __future__ import annotations

import asyncio

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.timer import Timer
from textual.widgets import Button, ContentSwitcher, Input, Static, Tab, Tabs

from gputui.core.errors import GputuiError
from gputui.core.plain_text import sanitise_block
from gputui.core.scheduler.errors import RequestError
from gputui.core.scheduler.parse.options import tokenize
from gputui.dashboard.jobs import JobChange, JobsController
from gputui.dashboard.submit_check import WHOLE, JobSubmission, check_form, check_line, field_of, form_job, line_job
from gputui.jobs.form import JobForm
from gputui.jobs.submission import is_batch_script
from gputui.jobs.views import Preview
from gputui.ui.palette import PLAIN, Palette
from gputui.ui.widgets.jobs_table import time_text

#: field, label, placeholder, relative width; one tuple per row of the form
ROWS: tuple[tuple[tuple[str, str, str, int], ...], ...] = (
    (("name", "Name", "train", 1), ("command", "Command or batch script", "python train.py --epochs 3", 3)),
    (("gpus", "GPUs", "2 or a100:2", 1), ("gpus_per_node", "GPUs per node", "4", 1), ("nodes", "Nodes", "1", 1),
     ("nodelist", "Node list", "node[01-02]", 1), ("gpu_ids", "Device indices", "0,1", 1)),
    (("mig_profile", "MIG profile", "3g.20gb", 1), ("mig_count", "MIG count", "1", 1),
     ("mps_percent", "MPS %", "25", 1), ("mem_per_gpu", "GPU memory", "10G", 1), ("cpus", "CPUs", "4", 1),
     ("mem", "Memory", "8G", 1)),
    (("time", "Time limit", "1:00:00", 1), ("priority", "Priority", "0", 1),
     ("extra", "More Slurm options", "--exclusive --dependency=afterok:12", 3)),
)  # fmt: skip
FIELD_NAMES = tuple(f for row in ROWS for f, *_ in row)


class SubmitDialog(ModalScreen[JobChange | None]):
    """Dismissed with the change once the job is submitted, or with None."""

    BINDINGS = [
        Binding("escape", "close", "Cancel"),
        Binding("f2", "switch_mode", "Form / Slurm line"),
        Binding("ctrl+s", "submit", "Submit", show=False),
    ]

    def __init__(
        self, jobs: JobsController, palette: Palette = PLAIN, *, debounce_s: float = 0.3, line: str = ""
    ) -> None:
        super().__init__(classes="dialog", id="submit")
        self.jobs = jobs
        self.palette = palette
        self.debounce_s = debounce_s
        self.mode = "line" if line else "form"
        self.problems: dict[str, str] = {}
        self.preview: Preview | None = None
        self.preview_error: str | None = None
        self.submitting = False
        self._line = line
        self._serial = 0
        self._timer: Timer | None = None
        self._shown_problems: dict[str, str] = {}
        self._shown_preview: Text | None = None

    # -- layout --------------------------------------------------------------------------------
    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog-box", id="submit-box"):
            yield Static(Text("Submit a job", style="bold"), classes="dialog-title")
            yield Tabs(Tab("Form", id="mode-form"), Tab("Slurm line", id="mode-line"), id="submit-mode")
            with ContentSwitcher(initial=f"{self.mode}-pane", id="submit-panes"):
                # Few widgets (the label is the input's border title, one error line per row): a dialog
                # opens in about the time Textual takes per widget, and this one has many fields.
                with VerticalScroll(id="form-pane"):
                    for i, row in enumerate(ROWS):
                        with Horizontal(classes="form-row"):
                            for name, label, placeholder, width in row:
                                field = Input(placeholder=placeholder, id=f"f-{name}", classes=f"field w{width}")
                                field.border_title = label
                                yield field
                        yield Static("", id=f"e-row{i}", classes="field-error")
                with Vertical(id="line-pane"):
                    yield Static(
                        "Slurm options and the command, as after srun; or the options and a batch script, as "
                        "after sbatch (its #SBATCH lines are read too).",
                        classes="field-label",
                    )
                    line = Input(self._line, placeholder="--gpus=2 -t 1:00:00 -J train -- python train.py",
                                 id="f-line", classes="field")  # fmt: skip
                    line.border_title = "Slurm line"
                    yield line
                    yield Static("", id="e-line", classes="field-error")
            yield Static("", id="submit-problem", classes="field-error")
            yield Static("", id="submit-preview")
            with Horizontal(classes="dialog-buttons"):
                yield Button("Submit", id="submit-ok", variant="primary", compact=True)
                yield Button("Cancel", id="submit-cancel", compact=True)
            yield Static(
                Text("Enter: submit · Esc: cancel · F2: form / Slurm line · Tab: next field", style="dim"),
                classes="dialog-hint",
            )

    def on_mount(self) -> None:
        self.query_one(Tabs).active = f"mode-{self.mode}"
        self.query_one("#f-line" if self.mode == "line" else "#f-name", Input).focus()
        self._changed()

    # -- reading the form ----------------------------------------------------------------------
    def value(self, name: str) -> str:
        return self.query_one(f"#f-{name}", Input).value

    def form(self) -> JobForm:
        return JobForm(**{name: self.value(name) for name in FIELD_NAMES})

    def _command_is_script(self, form: JobForm) -> bool:
        try:
            argv = tokenize(form.command)
        except RequestError:
            return False
        return bool(argv) and is_batch_script(argv[0])

    def _check(self) -> tuple[dict[str, str], JobSubmission | None]:
        """Problems by field (``line`` in line mode) and the submission when there are none."""
        if self.mode == "line":
            line = self.value("line")
            problem = check_line(line)
            return ({"line": problem} if problem else {}), (None if problem else line_job(line))
        form = self.form()
        script = self._command_is_script(form)
        problems = check_form(form, command_from_script=script)
        try:
            job = form_job(form)
        except RequestError as e:
            problems["command"] = str(e)
            return problems, None
        return problems, (None if problems else job)

    # -- reacting to typing --------------------------------------------------------------------
    def on_input_changed(self, event: Input.Changed) -> None:
        event.stop()
        self._changed()

    def _changed(self) -> None:
        self.problems, job = self._check()
        self._show_problems()
        self._serial += 1
        if self._timer is not None:
            self._timer.stop()
            self._timer = None
        self.preview, self.preview_error = None, None
        if job is None:
            self._show_preview()
            return
        serial = self._serial
        self._show_preview(pending=True)
        if self.debounce_s <= 0:
            self._preview(serial, job)
        else:
            self._timer = self.set_timer(self.debounce_s, lambda: self._preview(serial, job))

    @work(group="jobs-preview", exclusive=True)
    async def _preview(self, serial: int, job: JobSubmission) -> None:
        """Where would ``job`` land now? ``serial`` drops answers to older questions."""
        service = self.jobs.service
        if service is None:
            return
        options, script = job.preview_args
        try:
            preview = await asyncio.to_thread(service.preview, options, script)
        except GputuiError as e:
            self.show_preview(serial, None, str(e), request=isinstance(e, RequestError))
            return
        self.show_preview(serial, preview)

    def _show_problems(self) -> None:
        # Only what changed is updated: each update of a Static asks for a new layout of the dialog.
        boxes = {f"e-row{i}": "\n".join(f"{label}: {self.problems[n]}" for n, label, *_ in row if n in self.problems)
                 for i, row in enumerate(ROWS)}  # fmt: skip
        boxes["e-line"] = self.problems.get("line", "")
        boxes["submit-problem"] = self.problems.get(WHOLE, "")
        for box_id, text in boxes.items():
            if self._shown_problems.get(box_id, "") != text:
                self._shown_problems[box_id] = text
                box = self.query_one(f"#{box_id}", Static)
                box.update(Text(sanitise_block(text)))  # a problem may quote what was typed: never markup
                box.display = bool(text)
        for name in (*FIELD_NAMES, "line"):
            self.query_one(f"#f-{name}", Input).set_class(name in self.problems, "-problem")

    # -- answers from the workers --------------------------------------------------------------
    def show_preview(
        self, serial: int, preview: Preview | None, error: str | None = None, *, request: bool = True
    ) -> None:
        """The preview's answer; ``request``: the error is the parser's (it names an option)."""
        if serial != self._serial:
            return
        self.preview, self.preview_error = preview, None
        if error is not None:
            name = field_of(error, self.form()) if (request and self.mode == "form") else WHOLE
            if name != WHOLE:
                self.problems = {**self.problems, name: error}
                self._show_problems()
            else:
                self.preview_error = error
        self._show_preview()

    def _show_preview(self, pending: bool = False) -> None:
        p = self.palette
        t = Text()
        if self.preview is not None:
            pv = self.preview
            t.append("▶ " if pv.starts_now else "⏸ ", style=p.free if pv.starts_now else p.warn)
            t.append(sanitise_block(pv.text), style=p.text)
            if pv.reservation_time is not None and not pv.starts_now:
                t.append(f"\n  starts by {time_text(pv.reservation_time, pv.reservation_time)} at the latest",
                         style=p.muted)  # fmt: skip
            for w in pv.warnings:
                t.append(f"\n  ⚠ {sanitise_block(w)}", style=p.warn)
        elif self.preview_error is not None:
            t.append(f"✖ {sanitise_block(self.preview_error)}", style=p.lost)
        elif pending:
            t.append("… looking where it would land", style=p.muted)
        elif self.problems:
            t.append("Fix the problems shown above to see where the job would land.", style=p.muted)
        self._set_preview(t)

    def _set_preview(self, t: Text) -> None:
        if self._shown_preview is None or t.plain != self._shown_preview.plain or t.spans != self._shown_preview.spans:
            self._shown_preview = t
            self.query_one("#submit-preview", Static).update(t)

    def submit_failed(self, error: str, *, request: bool = True) -> None:
        """The submit failed: the message goes under its field (or above the preview); the form stays."""
        self.submitting = False
        name = field_of(error, self.form()) if (request and self.mode == "form") else WHOLE
        if self.mode == "line" and request:
            name = "line"
        self.problems = {**self.problems, name: error}
        self._show_problems()
        self._focus_problem()

    # -- submitting ----------------------------------------------------------------------------
    def action_submit(self) -> None:
        if self.submitting:
            return
        self.problems, job = self._check()
        if job is not None and self.mode == "form" and not job.command and job.script is None:
            self.problems["command"] = "give a command, or the path of a batch script"
            job = None
        self._show_problems()
        if job is None:
            self._focus_problem()
            return
        self.submitting = True
        self._set_preview(Text("… submitting", style=self.palette.muted))
        self._submit(job)

    @work(group="jobs")
    async def _submit(self, job: JobSubmission) -> None:
        if self.jobs.service is None:
            return
        try:
            change = await asyncio.to_thread(
                self.jobs.change, lambda s: s.submit(job.options, job.command, script=job.script)
            )
        except GputuiError as e:
            self.submit_failed(str(e), request=isinstance(e, RequestError))
            return
        self.dismiss(change)

    def _focus_problem(self) -> None:
        for name in (*FIELD_NAMES, "line"):
            if name in self.problems:
                self.query_one(f"#f-{name}", Input).focus()
                return

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.action_submit()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if event.button.id == "submit-ok":
            self.action_submit()
        else:
            self.dismiss(None)

    def action_close(self) -> None:
        self.dismiss(None)

    # -- modes ---------------------------------------------------------------------------------
    def action_switch_mode(self) -> None:
        self.query_one(Tabs).active = "mode-line" if self.mode == "form" else "mode-form"

    def on_tabs_tab_activated(self, event: Tabs.TabActivated) -> None:
        event.stop()
        mode = "line" if event.tab.id == "mode-line" else "form"
        if mode == self.mode:
            return
        self.mode = mode
        self.query_one(ContentSwitcher).current = f"{mode}-pane"
        self.query_one("#f-line" if mode == "line" else "#f-name", Input).focus()
        self._changed()

    def fill(self, **values: str) -> None:
        """Set form fields (``line`` too) by name, as typing would; for the app's presets and for tests."""
        for name, value in values.items():
            self.query_one(f"#f-{name}", Input).value = value


__all__ = ["FIELD_NAMES", "JobSubmission", "SubmitDialog"]
