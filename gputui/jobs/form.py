"""A submit form's fields to Slurm option words, so that a form and a pasted line go through one parser.

Fields hold what the user typed; a blank field adds nothing. Values are not checked here: the parser checks
them and names the option in its one-line message, which a form can show next to the field.
"""

from __future__ import annotations

from dataclasses import dataclass

from gputui.core.scheduler.parse.options import tokenize
from gputui.jobs.submission import is_batch_script


@dataclass(frozen=True, slots=True)
class JobForm:
    name: str = ""
    command: str = ""  # a command line (split like a shell, nothing expanded) or the path of a batch script
    gpus: str = ""  # a total that may span nodes: "8" or "a100:8"
    gpus_per_node: str = ""
    nodes: str = ""
    nodelist: str = ""  # "node[01-04]"
    gpu_ids: str = ""  # device indices on the one node of --nodelist: "0,1"
    mig_profile: str = ""  # "3g.20gb"
    mig_count: str = ""  # instances of mig_profile per node (default 1)
    mps_percent: str = ""
    mem_per_gpu: str = ""  # "10G": GPU memory per GPU (--gpu-mem)
    cpus: str = ""  # CPUs of the job's one task (--cpus-per-task); with no GPU field, a CPU-only job
    mem: str = ""  # host memory per node (--mem): "8G"
    time: str = ""  # "1:00:00"
    priority: str = ""
    extra: str = ""  # further Slurm options, pasted as one line


#: form field -> the option it becomes
_OPTIONS = (
    ("name", "--job-name"), ("gpus", "--gpus"), ("gpus_per_node", "--gpus-per-node"), ("nodes", "--nodes"),
    ("nodelist", "--nodelist"), ("gpu_ids", "--gpu-ids"), ("mem_per_gpu", "--gpu-mem"), ("cpus", "--cpus-per-task"),
    ("mem", "--mem"), ("time", "--time"), ("priority", "--priority"),
)  # fmt: skip


def form_options(form: JobForm) -> list[str]:
    """The option words the form stands for (RequestError for an unbalanced quote in ``extra``)."""
    words = [f"{opt}={value}" for field, opt in _OPTIONS if (value := getattr(form, field).strip())]
    if form.mig_profile.strip():
        words.append(f"--gres=gpu:{form.mig_profile.strip()}:{form.mig_count.strip() or 1}")
    if form.mps_percent.strip():
        words.append(f"--gres=mps:{form.mps_percent.strip()}")
    return words + (tokenize(form.extra) if form.extra.strip() else [])


def form_submission(form: JobForm) -> tuple[list[str], list[str], str | None]:
    """(options, command argv, batch script path or None), as :meth:`JobService.submit` takes them."""
    options = form_options(form)
    argv = tokenize(form.command) if form.command.strip() else []
    if argv and is_batch_script(argv[0]):
        return options, argv[1:], argv[0]
    return options, argv, None
