"""The submit form: each field becomes the option the parser reads into the request the user meant."""

from __future__ import annotations

import pytest

from gputui.core.scheduler.errors import RequestError
from gputui.core.scheduler.parse.options import parse_options
from gputui.jobs.form import JobForm, form_options, form_submission


@pytest.mark.parametrize(
    ("form", "expect"),
    [
        (JobForm(gpus="8", time="1:00:00", name="train"), {"kind": "count", "gpus": 8, "time_limit_s": 3600,
                                                          "name": "train"}),
        (JobForm(gpus_per_node="4", nodes="2", gpus=""), {"kind": "count", "gpus_per_node": 4, "nodes": 2}),
        (JobForm(nodelist="node01", gpu_ids="0,1"), {"kind": "device", "gpu_ids": (0, 1), "nodelist": ("node01",)}),
        (JobForm(mig_profile="3g.20gb", mig_count="2"), {"kind": "mig", "mig": (("3g.20gb", 2),)}),
        (JobForm(mig_profile="1g.5gb"), {"kind": "mig", "mig": (("1g.5gb", 1),)}),
        (JobForm(mps_percent="30", mem_per_gpu="4G"), {"kind": "mps", "mps_percent": 30, "gpu_mem_mib": 4096}),
        (JobForm(cpus="4", mem="8G"), {"kind": "cpu", "cpus_per_task": 4, "mem_mib": 8192}),
        (JobForm(gpus="1", cpus="16"), {"kind": "count", "gpus": 1, "cpus_per_task": 16}),
        (JobForm(gpus="1", priority="5", extra="--nice=2 --dependency=afterok:7"),
         {"priority": 5, "nice": 2, "dependencies": (("afterok", 7),)}),
    ],
)  # fmt: skip
def test_fields_become_the_request(form, expect) -> None:  # type: ignore[no-untyped-def]
    req = parse_options(form_options(form))
    for k, v in expect.items():
        assert getattr(req, k) == v, k


def test_a_bad_field_is_the_parsers_message_naming_the_option() -> None:
    with pytest.raises(RequestError, match="^--time: cannot read time limit"):
        parse_options(form_options(JobForm(gpus="1", time="soon")))


def test_command_or_script(tmp_path) -> None:  # type: ignore[no-untyped-def]
    assert form_submission(JobForm(gpus="1", command="python train.py --lr '1e-3 x'")) == (
        ["--gpus=1"], ["python", "train.py", "--lr", "1e-3 x"], None,
    )  # fmt: skip
    script = tmp_path / "job.sh"
    script.write_text("#!/bin/sh\necho hi\n")
    assert form_submission(JobForm(command=f"{script} a")) == ([], ["a"], str(script))
