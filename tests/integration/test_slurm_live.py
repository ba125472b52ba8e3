"""Tests against a real Slurm 22.05 lab (tests/support/slurm_lab.py): the lab itself, then gputui's Slurm adapter on it.

Skipped where Slurm is not installed; in CI (CI=true) a lab that cannot start fails the run.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable

import pytest
from slurm_diff import capture, replay, report
from slurm_fixtures import (  # noqa: F401  (the fixtures register by being imported)
    Adapter,
    adapter_fixture,
    clean_lab_fixture,
    job_gpus,
    job_gres,
    slurm_lab_fixture,
)
from slurm_lab import SlurmLab

from gputui.core.scheduler.allocation import Allocation
from gputui.core.scheduler.errors import RequestError
from gputui.jobs.errors import JobNotFound, JobRefused
from gputui.jobs.records import CANCELLED, PENDING, RUNNING
from gputui.slurm import SlurmError


def test_lab_nodes_show_their_gres_including_mig_types_and_mps(lab: SlurmLab) -> None:
    data = json.loads(lab.run(["sinfo", "--json"], check=True).stdout)
    nodes = {n["name"]: n for n in data["nodes"]}
    assert {name: n["gres"] for name, n in nodes.items()} == {
        "node01": "gpu:a100:4",
        "node02": "gpu:a100:4",
        "node03": "gpu:1g.10gb:2,gpu:2g.20gb:1,gpu:3g.40gb:1",
        "node04": "gpu:2,mps:200",
    }
    assert {n["state"] for n in nodes.values()} == {"idle"}
    assert data["meta"]["Slurm"]["release"].startswith("22.05")


def test_sbatch_runs_with_the_gpus_and_devices_it_asked_for(lab: SlurmLab) -> None:
    out = lab.work_dir / "cvd.txt"
    job = lab.sbatch("--gres=gpu:a100:2", wrap=f"echo $CUDA_VISIBLE_DEVICES > {out}; sleep 300")
    lab.wait_job_state(job, {"RUNNING"})
    assert job_gres(lab, job) == {"node01": {"gpu:a100": 2}}
    lab.wait_for(lambda: out.exists() and out.read_text().strip() != "", f"job {job} to write {out.name}")
    # Character-device File= entries are what make Slurm set CUDA_VISIBLE_DEVICES at all.
    assert out.read_text().strip() == "0,1"


def test_mig_typed_and_mps_requests_land_on_their_nodes(lab: SlurmLab) -> None:
    mig = lab.sbatch("--gres=gpu:1g.10gb:1")
    mps_a = lab.sbatch("--gres=mps:50")
    mps_b = lab.sbatch("--gres=mps:50")
    for job in (mig, mps_a, mps_b):
        lab.wait_job_state(job, {"RUNNING"})
    assert job_gres(lab, mig) == {"node03": {"gpu:1g.10gb": 1}}
    assert job_gres(lab, mps_a) == {"node04": {"mps": 50}}
    assert job_gres(lab, mps_b) == {"node04": {"mps": 50}}
    detail = lab.run(["scontrol", "show", "job", "-d", str(mps_b)], check=True).stdout
    assert "GRES=mps:50(IDX:0)" in detail  # Slurm 22.05 puts every MPS share on GPU 0


def test_scancel_ends_a_running_and_a_pending_job(lab: SlurmLab) -> None:
    running = lab.sbatch("-N2", "--gres=gpu:a100:4")
    lab.wait_job_state(running, {"RUNNING"})
    pending = lab.sbatch("-N2", "--gres=gpu:a100:4")
    lab.wait_job_state(pending, {"PENDING"})
    # Reason is None until the scheduler has looked at the job; then it must say why it waits.
    lab.wait_for(lambda: lab.job_field(pending, "Reason") == "Resources", f"job {pending} to wait for Resources")
    for job in (pending, running):
        done = lab.run(["scancel", str(job)])
        assert done.returncode == 0, done.stderr
        assert lab.wait_job_state(job, {"CANCELLED"}) == "CANCELLED"


def test_an_impossible_request_is_refused_by_sbatch(lab: SlurmLab) -> None:
    done = lab.run(["sbatch", "--gres=gpu:a100:5", "--wrap", "true"])
    assert done.returncode == 1
    assert (
        done.stderr.strip()
        == "sbatch: error: Batch job submission failed: Requested node configuration is not available"
    )


# -- through gputui's adapter ----------------------------------------------------------------------------------


def test_adapter_snapshot_numbers_gpus_as_slurm_does(adapter: Adapter) -> None:
    snap = adapter.source.poll()
    layout = {n.name: [(g.index, g.name) for g in n.gpus] for n in snap.nodes}
    # Slurm numbers a node's GPUs through its gres.conf lines in order; gres_detail's IDX refers to these numbers.
    assert layout == {
        "node01": [(i, "a100") for i in range(4)],
        "node02": [(i, "a100") for i in range(4)],
        "node03": [(0, "1g.10gb"), (1, "1g.10gb"), (2, "2g.20gb"), (3, "3g.40gb")],
        "node04": [(0, None), (1, None)],
    }


def _where(alloc: Allocation | None) -> dict[str, tuple[int, ...]]:
    return {ng.node: tuple(sorted(g.index for g in ng.gpus)) for ng in alloc.nodes} if alloc else {}


@pytest.mark.parametrize(
    ("options", "check"),
    [
        pytest.param("--gpus=2", lambda a: a.gpu_count == 2 and len(a.nodes) == 1, id="count"),
        pytest.param("-N2 --gpus-per-node=2", lambda a: [len(n.gpus) for n in a.nodes] == [2, 2], id="multi-node"),
        pytest.param(
            "--gres=gpu:a100:2",
            lambda a: a.gpu_count == 2 and set(a.node_names) <= {"node01", "node02"},
            id="typed",
        ),
        pytest.param(
            "--gres=gpu:1g.10gb:1",
            lambda a: a.node_names == ("node03",) and a.nodes[0].gpus[0].mig.profile == "1g.10gb",
            id="mig-typed",
        ),
        pytest.param(
            "--gres=mps:50",
            lambda a: a.node_names == ("node04",) and a.nodes[0].gpus[0].mps_percent == 50,
            id="mps",
        ),
    ],
)
def test_adapter_submits_and_reads_back_slurms_placement(
    adapter: Adapter, options: str, check: Callable[[Allocation], bool]
) -> None:
    job = adapter.submit(options)
    record = adapter.wait_state(job, RUNNING)
    assert record.allocation is not None
    # The adapter's allocation is exactly what Slurm says it gave, GPU index for GPU index.
    assert _where(record.allocation) == job_gpus(adapter.lab, job)
    assert check(record.allocation), record.allocation


def test_adapter_shows_slurms_refusal_of_an_impossible_request(adapter: Adapter) -> None:
    with pytest.raises(RequestError):
        adapter.jobs.preview("--gres=gpu:a100:5")  # gputui finds it impossible too
    with pytest.raises(SlurmError) as refused:
        adapter.submit("--gres=gpu:a100:5")
    assert str(refused.value) == (
        "sbatch: error: Batch job submission failed: Requested node configuration is not available"
    )


def test_adapter_cancels_a_running_and_a_pending_job(adapter: Adapter) -> None:
    running = adapter.submit("-N2 --gres=gpu:a100:4")
    adapter.wait_state(running, RUNNING)
    pending = adapter.submit("-N2 --gres=gpu:a100:4")
    assert adapter.wait_decided(pending) == "PENDING"
    adapter.wait_state(pending, PENDING)
    for job in (pending, running):
        assert adapter.jobs.cancel(job).stop_requested == "cancel"
        assert adapter.wait_state(job, CANCELLED).state == CANCELLED
        assert adapter.lab.job_state(job) == "CANCELLED"
    with pytest.raises(JobRefused):
        adapter.jobs.cancel(running)  # already ended
    with pytest.raises(JobNotFound):
        adapter.jobs.cancel(999999)


def test_a_job_behind_a_waiting_one_waits_for_priority_in_slurm_and_in_the_prediction(adapter: Adapter) -> None:
    running = adapter.submit("-N2 --gres=gpu:a100:4")  # every A100 of node01 and node02
    adapter.wait_state(running, RUNNING)
    first = adapter.submit("-N2 --gres=gpu:a100:4")
    assert adapter.wait_decided(first) == "PENDING"
    adapter.refresh()
    predicted = adapter.jobs.preview("--gres=gpu:a100:1")
    assert predicted.reason == "Priority" and not predicted.starts_now
    behind = adapter.submit("--gres=gpu:a100:1")
    assert adapter.wait_decided(behind) == "PENDING"

    def reasons() -> tuple[str | None, str | None]:
        return adapter.lab.job_field(first, "Reason"), adapter.lab.job_field(behind, "Reason")

    # Slurm's passes settle the reasons within a few seconds (bf_interval=2); a timeout names what it saw.
    adapter.lab.wait_for(lambda: reasons() == ("Resources", "Priority"), "Slurm to say Resources, then Priority")


def test_adapter_shows_the_command_of_a_job_submitted_with_sbatch_wrap_elsewhere(adapter: Adapter) -> None:
    job = adapter.lab.sbatch("--gpus=1", wrap="sleep 300 && echo 'done here'")  # not through gputui
    record = adapter.wait_state(job, RUNNING)
    assert record.command_text == "sleep 300 && echo 'done here'"  # from the batch script; squeue lists none
    with pytest.raises(JobNotFound):
        adapter.jobs.get(999999)


# The request sequence for the comparison: each one is submitted after the previous one has started or been told
# why it waits, as a user would submit them one by one.
SEQUENCE = (
    "--gres=gpu:a100:2",
    "--gpus=1",
    "--gres=gpu:1g.10gb:1",
    "--gres=mps:50",
    "--gres=mps:50",
    "-N2 --gpus-per-node=2",
    "--gres=gpu:3g.40gb:1",
    "--gres=gpu:a100:5",
    # Last: a job that waits makes every later one wait behind it (Reason=Priority), whatever is free.
    "--gres=mps:60",
    "-N2 --gres=gpu:a100:4",
)


def _text(where: dict[str, tuple[int, ...]]) -> str:
    return " ".join(f"{node}:{','.join(map(str, idx))}" for node, idx in sorted(where.items())) or "-"


def test_gputui_placement_against_slurms_on_the_same_sequence(
    adapter: Adapter, record_property: Callable[[str, object], None]
) -> None:
    rows = [("request", "gputui predicts", "Slurm does", "same")]
    must_agree: list[str] = []
    for options in SEQUENCE:
        adapter.refresh()
        try:
            preview = adapter.jobs.preview(options)
            predicted = _text(_where(preview.allocation)) if preview.starts_now else f"wait ({preview.reason})"
        except RequestError as e:
            preview, predicted = None, f"impossible: {e}"
        try:
            job = adapter.submit(options)
        except SlurmError as e:
            actual, slurm_where = f"refused: {e}", None
        else:
            if adapter.wait_decided(job) == "RUNNING":
                slurm_where = job_gpus(adapter.lab, job)
                actual = _text(slurm_where)
            else:
                slurm_where, actual = None, f"wait ({adapter.lab.job_field(job, 'Reason')})"
        same = predicted == actual or all(
            t.startswith("impossible") or t.startswith("refused") for t in (predicted, actual)
        )
        rows.append((options, predicted, actual, "yes" if same else "NO"))
        if (preview is None) != actual.startswith("refused"):
            must_agree.append(f"{options}: possible/impossible differ")
        if preview is not None and preview.starts_now and slurm_where is not None:
            mine = sorted(len(i) for i in _where(preview.allocation).values())
            theirs = sorted(len(i) for i in slurm_where.values())
            if mine != theirs:
                must_agree.append(f"{options}: GPUs per node {mine} vs Slurm's {theirs}")
    width = [max(len(r[i]) for r in rows) for i in range(4)]
    table = "\n".join(" | ".join(c.ljust(w) for c, w in zip(r, width, strict=True)) for r in rows)
    record_property("gputui_vs_slurm_placement", table)
    print(f"\ngputui's placement against Slurm 22.05's on the lab:\n{table}")
    assert not must_agree, "\n".join(must_agree) + "\n" + table


def _gputui(lab: SlurmLab, tmp_path, *argv: str) -> subprocess.CompletedProcess[str]:  # type: ignore[no-untyped-def]
    """The installed command line, as a user in a shell with the lab's SLURM_CONF would run it."""
    env = {**os.environ, **lab.env, "XDG_STATE_HOME": str(tmp_path / "state")}
    return subprocess.run(
        [sys.executable, "-m", "gputui", *argv],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_the_command_line_submits_lists_and_cancels_on_slurm(lab: SlurmLab, tmp_path) -> None:  # type: ignore[no-untyped-def]
    source = f"slurm:{lab.conf_path}"
    done = _gputui(lab, tmp_path, "submit", "--source", source, "--gres=gpu:a100:2", "-J", "cli", "--", "sleep", "300")
    assert done.returncode == 0, done.stderr
    job = int(done.stdout.split("Submitted batch job ")[1].split()[0])
    lab.wait_job_state(job, {"RUNNING"})
    listed = _gputui(lab, tmp_path, "queue", "--source", source, "--json")
    assert listed.returncode == 0, listed.stderr
    mine = next(j for j in json.loads(listed.stdout)["jobs"] if j["id"] == job)
    assert mine["state"] == RUNNING and mine["name"] == "cli"
    cancelled = _gputui(lab, tmp_path, "cancel", "--source", source, str(job))
    assert cancelled.returncode == 0 and f"job {job}: scancel sent" in cancelled.stdout
    assert lab.wait_job_state(job, {"CANCELLED"}) == "CANCELLED"
    refused = _gputui(lab, tmp_path, "submit", "--source", source, "--gres=gpu:a100:5", "--", "true")
    assert refused.returncode != 0 and refused.stdout == ""
    assert "Requested node configuration is not available" in refused.stderr
    assert refused.stderr.count("\n") == 1 and "Traceback" not in refused.stderr


def test_adapter_snapshot_carries_node_cpus_memory_and_their_allocation(adapter: Adapter) -> None:
    from gputui.core.model import NodeResources
    from gputui.slurm import SlurmSource

    idle = NodeResources(cpus=16, memory_mib=64000, cpus_alloc=0, memory_alloc_mib=0)  # the lab's slurm.conf
    assert {n.name: n.resources for n in adapter.source.poll().nodes} == {f"node0{i}": idle for i in range(1, 5)}
    job = adapter.lab.sbatch("-w", "node02", "-c", "4", "--mem=2000")
    adapter.lab.wait_job_state(job, ["RUNNING"])
    json_nodes = {n.name: n for n in adapter.source.poll().nodes}
    # CR_Core: memory is no consumable in the lab, so Slurm's AllocMem stays 0 under --mem (checked on 22.05.8)
    assert json_nodes["node02"].resources == NodeResources(16, 64000, 4, 0)
    assert json_nodes["node01"].resources == idle
    assert {k: v.features for k, v in json_nodes.items()} == {
        "node01": ("a100", "nvlink"), "node02": ("a100",), "node03": ("a100", "mig"), "node04": ("mps",),
    }  # fmt: skip
    text = SlurmSource(adapter.lab.env, nvml=None, mode="text")
    assert {n.name: (n.resources, n.features) for n in text.poll().nodes} == {
        k: (v.resources, v.features) for k, v in json_nodes.items()
    }


def test_the_what_if_agrees_with_slurm_on_the_differential_cases(
    lab: SlurmLab,
    tmp_path,
    record_property: Callable[[str, object], None],  # type: ignore[no-untyped-def]
) -> None:
    """Every case of tests/support/slurm_cases.py run on the lab and predicted from what gputui read just before
    (GPUTUI_SLURM_DIFF_OUT=FILE keeps the capture: the fixture of tests/unit/test_slurm_differential.py). A second
    lab alike runs half of the cases side by side: the time goes to Slurm's scheduling passes, not to the CPUs."""
    with SlurmLab(tmp_path / "second") as second:
        fixture = capture([lab, second])
    if os.environ.get("GPUTUI_SLURM_DIFF_OUT"):
        with open(os.environ["GPUTUI_SLURM_DIFF_OUT"], "w") as f:
            f.write(json.dumps(fixture, indent=1) + "\n")
    rate, text = report(replay(fixture))
    record_property("slurm_differential", text)
    print(f"\n{text}\n(captured in {fixture['capture_s']} s)")
    assert rate >= 0.95, text


def test_plan_and_submit_test_only_give_one_answer_while_slurm_runs_jobs(lab: SlurmLab, tmp_path) -> None:  # type: ignore[no-untyped-def]
    source = f"slurm:{lab.conf_path}"
    for options in ("-w node01 -c 8", "--gres=gpu:a100:4", "--gres=mps:60"):
        lab.wait_job_state(lab.sbatch(*options.split()), {"RUNNING"})
    asked = {
        "--gres=gpu:a100:1": ("start", {"node02": [0]}),  # node01's GPUs are all held
        "--gres=gpu:1": ("start", {"node04": [0]}),  # a whole GPU beside the MPS share, as Slurm does
        "--gres=mps:60": ("wait", {}),  # Slurm only tries GPU 0, which has 40 left
        "-w node03 --gres=gpu:a100:1": ("refuse", {}),
        "--hold --gres=gpu:1 --signal=B:USR1@60": ("wait", {}),
    }
    for options, (outcome, allocation) in asked.items():
        plan = _gputui(lab, tmp_path, "plan", "--source", source, "--json", "--", *options.split())
        test = _gputui(lab, tmp_path, "submit", "--source", source, "--test-only", "--json", *options.split(), "--",
                       "true")  # fmt: skip
        answer, same = json.loads(plan.stdout), json.loads(test.stdout)
        # the message may hold a start time counted from the moment of asking, a second apart between the two
        cut = [a.pop("message").split("; expected to start")[0] for a in (answer, same)]
        assert (answer, cut[0], plan.returncode) == (same, cut[1], test.returncode), (options, plan, test)
        assert (answer["outcome"], answer["allocation"]) == (outcome, allocation), (options, answer)
    assert (answer["reason"], answer["ignored_options"]) == ("JobHeldUser", ["--signal"])
    words = _gputui(lab, tmp_path, "plan", "--source", source, "--", "--gres=gpu:a100:1")
    assert words.returncode == 0 and words.stdout.startswith("would start now on node02:0"), words


def test_the_prediction_is_kept_for_explain_in_another_shell(lab: SlurmLab, tmp_path) -> None:  # type: ignore[no-untyped-def]
    source = f"slurm:{lab.conf_path}"
    done = _gputui(lab, tmp_path, "submit", "--source", source, "--gres=gpu:a100:2", "--", "sleep", "300")
    assert done.returncode == 0, done.stderr
    job = int(done.stdout.split("Submitted batch job ")[1].split()[0])
    lab.wait_job_state(job, {"RUNNING"})
    why = _gputui(lab, tmp_path, "explain", "--source", source, str(job))  # a new process: only the store knows
    assert why.returncode == 0, why.stderr
    assert "predicted node01:0,1; Slurm placed node01:0,1 (same)" in why.stdout, why.stdout
