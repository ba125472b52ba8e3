"""The detail of one job as Rich Text: the full request, the allocation, the environment it got, its output."""

from __future__ import annotations

from rich.text import Text

from gputui.core.plain_text import sanitise, sanitise_lines
from gputui.jobs.describe import clock_text, limit_text
from gputui.jobs.views import JobDetail
from gputui.ui.palette import PLAIN, Palette
from gputui.ui.widgets.jobs_table import state_style, time_text

LABEL_WIDTH = 11


def _line(t: Text, label: str, value: str | Text, p: Palette) -> None:
    t.append(f"\n{label:<{LABEL_WIDTH}}", style=p.muted)
    t.append_text(value if isinstance(value, Text) else Text(sanitise(value), style=p.text))


def _block(t: Text, title: str, body: str, p: Palette, empty: str) -> None:
    t.append(f"\n\n{sanitise(title)}", style="bold")
    if not body.strip():
        t.append(f"\n  {empty}", style=p.na)
        return
    for line in sanitise_lines(body.rstrip("\n")):
        t.append(f"\n  {line}", style=p.text)


#: where a job of each runner kind runs, in the words of the detail pane
RUNS = {
    "sim": "simulated on a replay: nothing is executed",
    "local": "a process on this machine",
    "slurm": "Slurm",
}


def render_job_detail(detail: JobDetail | None, now: float, p: Palette = PLAIN) -> Text:
    """Every field a user may want of one job; ``None`` gives the empty state. Each string from the job (its
    name, user, options, command, environment, output) is sanitised here, where it enters rendering."""
    if detail is None:
        return Text("No job selected: submit one with s, or move the cursor onto a job.", style=p.muted)
    r = detail.record
    t = Text.assemble(
        (f"Job {r.id}", "bold"), "  ", (sanitise(r.display_name), p.text), "  ", (sanitise(r.user), p.muted), "  "
    )
    t.append(r.state, style=state_style(r.state, p))  # type: ignore[arg-type]
    reason = sanitise(detail.reason) if detail.reason not in ("", "None") else ""
    if detail.explanation or reason:
        _line(t, "Why", detail.explanation or f"waiting: {reason}", p)
        if reason and detail.explanation:
            t.append(f"  (Slurm's reason: {reason})", style=p.warn)
    _line(t, "Queue", RUNS.get(r.runner, sanitise(r.runner)), p)
    _line(t, "Request", r.request.describe(), p)
    _line(t, "Options", r.options or "(none)", p)
    _line(t, "Command", r.command_text or "(none)", p)
    if r.cwd:
        _line(t, "Directory", r.cwd, p)
    alloc = Text(sanitise(r.allocation_text) or "none yet", style=p.text if r.allocation_text else p.na)
    if r.allocation is not None and len(r.allocation.nodes) > 1:
        alloc.append(f"  ({sanitise(r.nodelist)})", style=p.muted)
    _line(t, "Allocation", alloc, p)
    times = [f"submitted {time_text(r.submit_time, now)}"]
    if r.start_time is not None:
        times.append(f"started {time_text(r.start_time, now)}")
        times.append(f"elapsed {clock_text(r.elapsed(now))}")
    if r.end_time is not None:
        times.append(f"ended {time_text(r.end_time, now)}")
    times.append(f"limit {limit_text(r.time_limit_s)}")
    _line(t, "Times", " · ".join(times), p)
    ending = []
    if r.exit_code is not None:
        ending.append(f"exit code {r.exit_code}")
    if r.end_reason:
        ending.append(sanitise(r.end_reason))
    if ending:
        _line(t, "Ended", Text("; ".join(ending), style=p.lost if r.state == "FAILED" else p.text), p)
    _line(t, "Priority", str(r.priority), p)
    if r.environment:
        for node, env in r.environment.items():
            body = "\n".join(f"{k}={v}" for k, v in sorted(env.items()))
            _block(t, f"Environment on {node}", body, p, "(none)")
    else:
        _block(t, "Environment", "", p, "given when the job starts")
    no_log = "(a simulated job writes no output)" if r.runner == "sim" else "(no log yet)"
    _block(t, "Output (stdout, last lines)", detail.stdout_tail, p, "(empty)" if r.stdout_path else no_log)
    if detail.stderr_tail.strip():
        _block(t, "Errors (stderr, last lines)", detail.stderr_tail, p, "(empty)")
    return t
