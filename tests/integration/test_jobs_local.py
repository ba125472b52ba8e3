"""Local execution with real child processes (no GPU needed: a hand-made snapshot stands in for NVML):
environment, logs, exit codes, batch scripts, cancel with SIGTERM then SIGKILL, time limits, own processes."""

from __future__ import annotations

import os
import signal
import stat
import time
from dataclasses import replace
from pathlib import Path

import pytest
from jobs_helpers import MPS_PIPE, local_service, machine, py, wait_for

from gputui.core.model import MpsClient, ProcessInfo
from gputui.jobs.errors import JobError
from gputui.jobs.records import CANCELLED, COMPLETED, FAILED, RUNNING
from gputui.jobs.runners.procstat import is_alive

PRINT_ENV = (
    "import os\n"
    "for k in sorted(os.environ):\n"
    "    if k.startswith(('CUDA', 'SLURM', 'GPU_')): print(k + '=' + os.environ[k])\n"
)


@pytest.fixture
def svc(tmp_path):  # type: ignore[no-untyped-def]
    s = local_service(tmp_path, grace_s=0.3)
    s.tick(machine(time.time()))
    yield s
    for rec in s.list([RUNNING]):  # leave no process behind, whatever the test did
        if rec.pid and is_alive(rec.pid, rec.pid_start):
            os.killpg(rec.pid, signal.SIGKILL)
    s.close()


def run_until_ended(svc, *ids: int, snap=None) -> None:  # type: ignore[no-untyped-def]
    def ended() -> bool:
        svc.tick(snap or machine(time.time()))
        return all(svc.store.get(i).ended for i in ids)

    wait_for(ended)


def env_of(svc, job_id: int) -> dict[str, str]:  # type: ignore[no-untyped-def]
    lines = svc.get(job_id).stdout_tail.splitlines()
    return dict(line.split("=", 1) for line in lines)


def test_a_cpu_only_job_really_runs_and_sees_no_gpu(svc) -> None:  # type: ignore[no-untyped-def]
    job = svc.submit("-c 2 --mem=1G -J etl", py(PRINT_ENV))
    run_until_ended(svc, job.id)
    rec = svc.store.get(job.id)
    assert (rec.state, rec.exit_code, rec.allocation_text) == ("COMPLETED", 0, "testnode (2 CPUs, 1 GiB)")
    e = env_of(svc, job.id)
    assert e["CUDA_VISIBLE_DEVICES"] == "" and "SLURM_JOB_GPUS" not in e  # CUDA sees no GPU
    assert (e["SLURM_CPUS_ON_NODE"], e["SLURM_MEM_PER_NODE"], e["SLURM_CPUS_PER_TASK"]) == ("2", "1024", "2")


def test_jobs_get_their_devices_and_slurm_variables(svc) -> None:  # type: ignore[no-untyped-def]
    whole = svc.submit("--gpus=1 -J envjob", py(PRINT_ENV))
    mig = svc.submit("--gres=gpu:3g.20gb:1", py(PRINT_ENV))
    mps = svc.submit("--gres=mps:25", py(PRINT_ENV))
    run_until_ended(svc, whole.id, mig.id, mps.id)
    e = env_of(svc, whole.id)
    assert e["CUDA_VISIBLE_DEVICES"] == "GPU-test-0" and e["SLURM_JOB_ID"] == str(whole.id)
    assert (e["SLURM_JOB_NAME"], e["SLURM_JOB_GPUS"], e["SLURM_JOB_NODELIST"]) == ("envjob", "0", "testnode")
    assert e["SLURM_JOB_USER"] == "alice" and "CUDA_MPS_ACTIVE_THREAD_PERCENTAGE" not in e
    assert env_of(svc, mig.id)["CUDA_VISIBLE_DEVICES"] == "MIG-test-1"
    e = env_of(svc, mps.id)
    assert (e["CUDA_VISIBLE_DEVICES"], e["CUDA_MPS_ACTIVE_THREAD_PERCENTAGE"], e["CUDA_MPS_PIPE_DIRECTORY"]) == (
        "GPU-test-3", "25", MPS_PIPE,
    )  # fmt: skip
    rec = svc.get(whole.id).record
    assert (rec.state, rec.exit_code) == (COMPLETED, 0) and rec.end_time is not None
    assert rec.environment["testnode"]["CUDA_VISIBLE_DEVICES"] == "GPU-test-0"


def test_exit_code_logs_and_private_job_files(svc) -> None:  # type: ignore[no-untyped-def]
    job = svc.submit("--gpus=1", py("import sys; print('out'); print('oops', file=sys.stderr); sys.exit(3)"))
    run_until_ended(svc, job.id)
    d = svc.get(job.id)
    assert (d.record.state, d.record.exit_code, d.record.end_reason) == (FAILED, 3, "exit code 3")
    assert (d.stdout_tail, d.stderr_tail) == ("out", "oops")
    job_dir = Path(d.record.job_dir)  # type: ignore[arg-type]
    assert stat.S_IMODE(job_dir.stat().st_mode) == 0o700
    for name in ("stdout.log", "stderr.log", "exit.json", "wrapper.json"):
        assert stat.S_IMODE((job_dir / name).stat().st_mode) == 0o600, name


def test_a_batch_script_runs_with_its_interpreter_as_submitted(svc, tmp_path) -> None:  # type: ignore[no-untyped-def]
    script = tmp_path / "job.sh"
    script.write_text('#!/bin/sh\n#SBATCH --gpus=1\n#SBATCH -J scripted\necho "args=$1,$2 job=$SLURM_JOB_ID"\n')
    job = svc.submit([], ["a 1", "b"], script=script)
    script.write_text("#!/bin/sh\necho changed after submit\n")  # sbatch runs the script as it was submitted
    run_until_ended(svc, job.id)
    d = svc.get(job.id)
    assert d.record.display_name == "scripted" and d.record.state == COMPLETED
    assert d.stdout_tail == f"args=a 1,b job={job.id}"


def test_commands_and_scripts_that_cannot_run(svc, tmp_path) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(JobError, match="^command not found: no-such-program-xyz$"):
        svc.submit("--gpus=1", ["no-such-program-xyz"])
    plain = tmp_path / "plain.sh"
    plain.write_text("echo no interpreter line\n")
    with pytest.raises(JobError, match="the first line must be #!"):
        svc.submit([], script=plain)
    bad = tmp_path / "bad.sh"
    bad.write_text("#!/nonexistent/interpreter\n#SBATCH --gpus=1\n")
    job = svc.submit([], script=bad)  # the interpreter is looked for when the job runs, as the kernel would
    run_until_ended(svc, job.id)
    rec = svc.get(job.id).record
    assert (rec.state, rec.exit_code) == (FAILED, 127)
    assert rec.end_reason == "cannot run /nonexistent/interpreter: No such file or directory"


def _started(svc, job_id: int) -> list[str]:  # type: ignore[no-untyped-def]
    def ready() -> list[str] | None:
        svc.tick(machine(time.time()))
        out = svc.get(job_id).stdout_tail.splitlines()
        return out if out and out[-1] == "ready" else None

    return wait_for(ready)  # type: ignore[return-value]


def test_cancel_sends_sigterm_to_the_process_group(svc) -> None:  # type: ignore[no-untyped-def]
    code = (
        "import signal, sys, time\n"
        "signal.signal(signal.SIGTERM, lambda *a: (print('got TERM', flush=True), sys.exit(0)))\n"
        "print('ready', flush=True)\n"
        "time.sleep(30)\n"
    )
    job = svc.submit("--gpus=1", py(code))
    _started(svc, job.id)
    assert svc.cancel(job.id).stop_requested == "cancel"
    run_until_ended(svc, job.id)
    d = svc.get(job.id)
    assert (d.record.state, d.record.exit_code, d.stdout_tail.splitlines()[-1]) == (CANCELLED, 0, "got TERM")


def test_a_job_ignoring_sigterm_is_killed_after_the_grace_period(svc) -> None:  # type: ignore[no-untyped-def]
    code = (
        "import signal, subprocess, sys, time\n"
        "signal.signal(signal.SIGTERM, signal.SIG_IGN)\n"
        "child = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(30)'])\n"
        "print(child.pid); print('ready', flush=True)\n"
        "time.sleep(30)\n"
    )
    job = svc.submit("--gpus=1", py(code))
    grandchild = int(_started(svc, job.id)[0])
    t0 = time.monotonic()
    svc.cancel(job.id)
    run_until_ended(svc, job.id)
    assert time.monotonic() - t0 >= 0.3  # it got its grace period
    rec = svc.get(job.id).record
    assert (rec.state, rec.exit_code) == (CANCELLED, 137)
    wait_for(lambda: not is_alive(grandchild, None))  # the whole process group went


def test_an_explicit_time_limit_stops_a_local_job(svc) -> None:  # type: ignore[no-untyped-def]
    job = svc.submit("--gpus=1 -t 0:01", py("import time; print('ready', flush=True); time.sleep(30)"))
    _started(svc, job.id)
    start = svc.get(job.id).record.start_time
    snap = machine(start + 2)  # the queue's clock (the snapshot's time) says the limit is past
    run_until_ended(svc, job.id, snap=snap)
    rec = svc.get(job.id).record
    assert (rec.state, rec.end_reason, rec.exit_code) == (FAILED, "time limit reached", 143)


def test_the_jobs_own_gpu_processes_are_told_from_foreign_ones(svc) -> None:  # type: ignore[no-untyped-def]
    code = (
        "import os, subprocess, sys, time\n"
        "child = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(30)'])\n"
        "print(os.getpid()); print(child.pid); print('ready', flush=True); time.sleep(30)\n"
    )
    job = svc.submit("--gres=mps:30", py(code))
    main, worker = (int(x) for x in _started(svc, job.id)[:2])  # the job, and a worker it forked
    base = machine(time.time())
    gpus = list(base.nodes[0].gpus)
    mps = gpus[3].mps
    assert mps is not None
    gpus[3] = replace(gpus[3], processes=(ProcessInfo(worker, "M+C", 1000),), mps=replace(mps, clients=(
        MpsClient(worker, 30, 1000),)))  # fmt: skip
    gpus[0] = replace(gpus[0], processes=(ProcessInfo(main, "C", 1000),))  # a GPU the job was not given
    gpus[1] = replace(gpus[1], processes=(ProcessInfo(1, "C", 1000, "root", "someone else"),))
    snap = replace(base, nodes=(replace(base.nodes[0], gpus=tuple(gpus)),))
    running = svc.list([RUNNING])
    assert set(svc.runner.own_pids(snap, running)) == {("testnode", worker)} and len(gpus[3].mps.clients) == 1
    svc.tick(snap)
    assert svc.get(job.id).record.running
    assert svc.preview("--gres=mps:70").text == "would start now on testnode:3[MPS 70%]"  # 30 % is the job's own
    other = svc.submit("--gpus=1", py("print('x')"))
    svc.tick(snap)
    # GPUs 0 and 1 are busy (the job's stray process, a stranger's); the MPS GPU is shared; the MIG one is MIG
    assert svc.get(other.id).record.reason == "Resources"


def _sockets(pid: int | str) -> set[str]:
    out = set()
    for fd in Path(f"/proc/{pid}/fd").iterdir():
        try:
            target = os.readlink(fd)
        except OSError:
            continue
        if target.startswith("socket:"):
            out.add(target)
    return out


def test_commands_run_by_argv_with_no_shell_and_no_network(svc, tmp_path) -> None:  # type: ignore[no-untyped-def]
    before = _sockets("self")
    marker = tmp_path / "pwned"
    words = [f"$(touch {marker})", f"; touch {marker}", "*", "`id`"]
    code = "import sys, time; print(sys.argv[1:]); print('ready', flush=True); time.sleep(30)"
    job = svc.submit("--gpus=1", [*py(code), *words])
    lines = _started(svc, job.id)
    assert lines[0] == repr(words) and not marker.exists()  # every word reached the program untouched
    rec = svc.get(job.id).record
    assert is_alive(rec.pid, rec.pid_start) and _sockets(rec.pid) == set()  # the wrapper holds no socket
    svc.cancel(job.id)
    run_until_ended(svc, job.id)
    assert _sockets("self") == before  # the service opened none: nothing listens
