"""An empty queue's owner runs its passes without the scheduler: it loads with the first job (memory: about 2 MiB
of modules a dashboard never needs while nobody submits), and the job then runs as it always did."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

SUPPORT = Path(__file__).resolve().parents[1] / "support"
CODE = """
import sys, tempfile
from pathlib import Path
sys.path.insert(0, sys.argv[1])
from jobs_helpers import T0, machine, sim_service
heavy = ("queue", "state", "parse.options")
heavy = [f"gputui.core.scheduler.{m}" for m in heavy]
with tempfile.TemporaryDirectory() as tmp:
    svc = sim_service(Path(tmp))
    for i in range(5):
        r = svc.tick(machine(T0 + i))
        assert r.owner and r.error is None, r
    print("idle", [m[22:] for m in heavy if m in sys.modules])
    job = svc.submit("--gpus=1 -t 1:00", ["python", "train.py"])
    r = svc.tick(machine(T0 + 10))
    print("events", [e.kind for e in r.events], svc.get(job.id).record.state)
    print("loaded", [m[22:] for m in heavy if m in sys.modules])
    r = svc.tick(machine(T0 + 100))
    print("ended", [e.kind for e in r.events])
    svc.close()
"""


def test_an_idle_queue_ticks_without_the_scheduler_and_loads_it_with_the_first_job() -> None:
    run = subprocess.run([sys.executable, "-c", CODE, str(SUPPORT)], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    assert run.stdout.splitlines() == [
        "idle []",
        "events ['job_submitted', 'job_started'] RUNNING",
        "loaded ['queue', 'state', 'parse.options']",
        "ended ['job_ended']",
    ]
