"""What the submit dialog sends and how it checks a form or a pasted line as it is typed, with the parser.

The parser stops at the first problem and names the option in its one line; each message is put under
the field that option came from, and the form is parsed again without that field to find the problems of
the others. Nothing here reads files or runs anything: batch scripts are read by the preview, off the UI.
"""

from __future__ import annotations

from dataclasses import dataclass, fields, replace

from gputui.core.scheduler.errors import RequestError
from gputui.core.scheduler.parse.options import parse_options, tokenize
from gputui.jobs.form import JobForm, form_options, form_submission
from gputui.jobs.submission import split_sbatch

#: the key of a problem with the request as a whole (shown above the preview), not with one field
WHOLE = ""

#: option (as the parser names it) -> the form field it comes from
OPTION_FIELDS = {
    "--job-name": "name", "--gpus": "gpus", "--gpus-per-node": "gpus_per_node", "--nodes": "nodes",
    "--nodelist": "nodelist", "--gpu-ids": "gpu_ids", "--gpu-mem": "mem_per_gpu", "--time": "time",
    "--priority": "priority", "--cpus-per-task": "cpus", "--mem": "mem",
}  # fmt: skip
FORM_FIELDS = tuple(f.name for f in fields(JobForm))


@dataclass(frozen=True, slots=True)
class JobSubmission:
    """What :meth:`JobService.submit` takes, and the same as :meth:`JobService.preview` does."""

    options: tuple[str, ...]
    command: tuple[str, ...] = ()
    script: str | None = None

    @property
    def preview_args(self) -> tuple[list[str], str | None]:
        """(options, script) for a preview: without a script the command words go along (they end the options)."""
        if self.script is not None:
            return list(self.options), self.script
        return list(self.options) + (["--", *self.command] if self.command else []), None


def field_of(message: str, form: JobForm) -> str:
    """The form field a parser message is about (WHOLE when it is about the request as a whole)."""
    # "--gpus: count ..." from the parser, "--gpus=9: the cluster has 3 such GPUs" from the capacity check
    option = message.split(":", 1)[0].split("=", 1)[0] if message.startswith("-") else ""
    if message.startswith(("unsupported option", "cannot split options", "unexpected")):
        return "extra"
    if option == "--gres":
        if "mps" in message and form.mps_percent.strip():
            return "mps_percent"
        if form.mig_profile.strip():
            return "mig_count" if "count" in message and form.mig_count.strip() else "mig_profile"
        return "extra" if form.extra.strip() else WHOLE
    name = OPTION_FIELDS.get(option)
    if name is not None and getattr(form, name).strip():
        return name
    if option and option in form.extra:
        return "extra"
    return WHOLE


def _blank(form: JobForm, name: str) -> JobForm:
    if name == "mig_profile":
        return replace(form, mig_profile="", mig_count="")
    return replace(form, **{name: ""})


def check_form(form: JobForm, *, command_from_script: bool = False) -> dict[str, str]:
    """Problems of a form by field (WHOLE for the request as a whole); empty when the parser accepts it.

    ``command_from_script``: the command is a batch script, whose #SBATCH lines may ask for the GPUs, so a
    request without GPUs is not a problem here.
    """
    problems: dict[str, str] = {}
    for _ in range(len(FORM_FIELDS)):
        try:
            parse_options([*form_options(form), "--", "job"])
            break
        except RequestError as e:
            name = field_of(str(e), form)
            if name == WHOLE:
                if not problems and not command_from_script:
                    problems[WHOLE] = str(e)  # later ones may come from a field set aside: not the user's
                break
            problems[name] = str(e)
            form = _blank(form, name)
    return problems


def check_line(line: str) -> str | None:
    """The problem of a pasted Slurm line (options, then a command or a batch script), or None."""
    try:
        words = tokenize(line)
        options, script, _args = split_sbatch(words)
        if script is not None:
            parse_options([*options, "--", "job"])  # the script's own #SBATCH lines are read by the preview
            return None
        request = parse_options(words)
    except RequestError as e:
        return str(e)
    if not request.command:
        return "no command: end the line with the command, or with the path of a batch script"
    return None


def form_job(form: JobForm) -> JobSubmission:
    """The submission a form stands for (RequestError for an unbalanced quote)."""
    options, argv, script = form_submission(form)
    return JobSubmission(tuple(options), tuple(argv), script)


def line_job(line: str) -> JobSubmission:
    """The submission a pasted line stands for: sbatch style when a batch script follows the options."""
    words = tokenize(line)
    options, script, args = split_sbatch(words)
    if script is not None:
        return JobSubmission(tuple(options), tuple(args), script)
    return JobSubmission(tuple(words))
