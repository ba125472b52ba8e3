"""The command of a job made by ``sbatch --wrap`` (Slurm lists none) read from its batch script: once per job, and
never an error when Slurm does not give the script."""

from __future__ import annotations

from test_slurm_jobs import SLURM, Lab

from gputui.slurm.batch_script import batch_script_argv, wrapped_command

WRAP = (SLURM / "22.05-batch-script-wrap.txt").read_text()  # real output of Slurm 22.05


def test_the_command_of_a_wrap_script() -> None:
    assert wrapped_command(WRAP) == "sleep 300 && echo 'hi there'"
    assert wrapped_command("#!/bin/sh\n# This script was created by sbatch --wrap.\n\npython a.py\nexit 3\n") == (
        "python a.py\nexit 3"
    )


def test_any_other_script_has_no_wrapped_command() -> None:
    assert wrapped_command("#!/bin/bash\n#SBATCH --gpus=1\nsleep 200\n") is None
    assert wrapped_command("") is None  # an unknown job: scontrol prints nothing on stdout (and exits 0)
    assert wrapped_command("#!/bin/sh\n# This script was created by sbatch --wrap.\n\n") is None
    assert batch_script_argv(7) == ["scontrol", "write", "batch_script", "7", "-"]


def test_a_foreign_wrap_job_shows_its_command_asked_once(tmp_path) -> None:  # type: ignore[no-untyped-def]
    lab = Lab(tmp_path)
    assert lab.jobs.list()[2].command == ()  # job 3: squeue lists no command
    lab.answer(batch_script_argv(3), stdout=WRAP)
    assert lab.jobs.get(3).record.command_text == "sleep 300 && echo 'hi there'"
    assert lab.jobs.get(3).record.command_text == "sleep 300 && echo 'hi there'"
    assert lab.calls("scontrol").count(tuple(batch_script_argv(3))) == 1


def test_a_script_slurm_does_not_give_leaves_the_command_empty(tmp_path) -> None:  # type: ignore[no-untyped-def]
    lab = Lab(tmp_path)
    lab.answer(batch_script_argv(2), stderr="scontrol: error: Access/permission denied\n", code=1)
    assert lab.jobs.get(2).record.command == ()
    lab.answer(batch_script_argv(4), stderr="job script retrieval failed: Invalid job id specified\n")
    assert lab.jobs.get(4).record.command == ()
