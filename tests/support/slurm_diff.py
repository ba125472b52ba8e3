"""The differential check of gputui's Slurm what-if against a real Slurm: capture, replay and report.

``capture(lab)`` runs every case of :mod:`slurm_cases` on an idle lab: before each step it records what gputui's
Slurm source reads (``sinfo --json``, ``squeue --json``, trimmed to what the parsers read and checked to parse
the same), then submits the step with sbatch and records Slurm's decision: refused (sbatch's message), started
(nodes and GPU IDX from ``scontrol show job -d``) or pending (its Reason once a backfill cycle has looked at it).
``replay(fixture)`` feeds each step's recorded outputs to gputui's real Slurm source and job back end (through
:class:`~gputui.slurm.fake.FakeSlurm`) and asks the same what-if that ``gputui submit --test-only`` asks.

    python tests/support/slurm_diff.py capture fixtures/slurm/22.05-differential.json   # starts a lab (root)
    python tests/support/slurm_diff.py compare fixtures/slurm/22.05-differential.json   # no Slurm needed
"""

from __future__ import annotations

import json
import re
import shlex
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from slurm_cases import CASES

from gputui.core.scheduler.errors import RequestError
from gputui.jobs.errors import JobError
from gputui.slurm import SlurmJobs, SlurmSource
from gputui.slurm.fake import FakeSlurm
from gputui.slurm.formats.job_info import jobs_from_json
from gputui.slurm.formats.nodes import nodes_from_json
from gputui.slurm.jobs.outcome import outcome_of, same_decision

#: Pending reasons that no scheduling pass changes: the decision is final at once.
FINAL = frozenset({"JobHeldUser", "JobHeldAdmin", "BeginTime", "Dependency", "DependencyNeverSatisfied"})
FINISHED = frozenset({"COMPLETED", "CANCELLED", "FAILED", "TIMEOUT", "NODE_FAIL", "PREEMPTED", "BOOT_FAIL", "OOM"})
#: Keys kept in trimmed JSON even where today's parsers do not read them (what a later model may need).
KEEP = frozenset({"name", "job_id", "job_state", "state", "weight", "cpus", "alloc_cpus", "real_memory",
                  "alloc_memory", "gres", "gres_used", "features", "active_features"})  # fmt: skip
CONFIG = ("scontrol", "show", "config")


# -- trimming captured JSON -----------------------------------------------------------------------------------
class _Seen(dict):  # type: ignore[type-arg]
    """A dict that remembers which keys were read."""

    def __init__(self, *a: Any) -> None:
        super().__init__(*a)
        self.read: set[str] = set()

    def get(self, key: Any, default: Any = None) -> Any:
        self.read.add(key)
        return super().get(key, default)

    def __getitem__(self, key: Any) -> Any:
        self.read.add(key)
        return super().__getitem__(key)

    def __contains__(self, key: object) -> bool:
        self.read.add(str(key))
        return super().__contains__(key)


def _strip(v: Any) -> Any:
    if isinstance(v, _Seen):
        return {k: _strip(x) for k, x in v.items() if k in v.read or k in KEEP}
    if isinstance(v, list):
        return [_strip(x) for x in v]
    return v


def trim(text: str, parse: Callable[[Any], Any], keep_job: Callable[[Any], bool] | None = None) -> str:
    """``text`` (a command's JSON) with only the keys ``parse`` reads (and :data:`KEEP`); ended jobs dropped.
    Raises AssertionError if the trimmed text does not parse to the same as the whole."""
    whole = json.loads(text)
    if keep_job is not None:
        whole["jobs"] = [j for j in whole["jobs"] if keep_job(j)]
    seen = json.loads(json.dumps(whole), object_hook=_Seen)
    full = parse(seen)
    small = _strip(seen)
    assert parse(json.loads(json.dumps(small))) == full, "trimmed JSON parses differently"
    return json.dumps(small, separators=(",", ":"), sort_keys=True)


# -- capture on a live lab ------------------------------------------------------------------------------------
_DETAIL = re.compile(r"^\s+Nodes=(\S+) CPU_IDs=\S+ Mem=\S+ GRES=(\S*)", re.M)
_IDX = re.compile(r"\(IDX:([^)]*)\)")


def _indices(text: str) -> list[int]:
    out: set[int] = set()
    for part in filter(None, text.split(",")):
        lo, _, hi = part.partition("-")
        if lo.isdigit():
            out.update(range(int(lo), int(hi or lo) + 1))
    return sorted(out)


def slurm_allocation(lab: Any, job_id: int) -> dict[str, list[int]]:
    """node -> GPU IDX of a running job, from ``scontrol show job -d`` (every node, GPUs or not)."""
    text = lab.run(["scontrol", "show", "job", "-d", str(job_id)], check=True).stdout
    out: dict[str, list[int]] = {}
    for nodes, gres in _DETAIL.findall(text):
        idx = sorted({i for m in _IDX.findall(gres) for i in _indices(m)})
        for host in lab.expand_hostlist(nodes):
            out[host] = idx
    return dict(sorted(out.items()))


def _bf_cycles(lab: Any) -> int:
    text = lab.run(["sdiag"], timeout=10).stdout
    backfill = text.split("Backfilling stats", 1)[-1]
    m = re.search(r"Total cycles:\s*(\d+)", backfill)
    return int(m.group(1)) if m else 0


def settle(lab: Any, job_id: int, cycles_before: int, timeout: float = 8.0) -> dict[str, Any]:
    """Slurm's decision on a job just submitted: running (where), or pending once a backfill cycle has seen it."""
    deadline = time.monotonic() + timeout
    one_cycle_at: float | None = None  # when the first cycle after the submission was seen
    while True:
        state, reason = lab.job_field(job_id, "JobState"), lab.job_field(job_id, "Reason")
        if state == "RUNNING":
            return {"outcome": "start", "allocation": slurm_allocation(lab, job_id), "reason": None}
        looked = False
        if state == "PENDING" and reason not in (None, "None"):
            # Two cycles after the submission: one surely began after it. A cycle only runs when something changed,
            # so one cycle and then a quiet second also means a cycle has seen the job.
            cycles = _bf_cycles(lab)
            if cycles > cycles_before and one_cycle_at is None:
                one_cycle_at = time.monotonic()
            looked = cycles > cycles_before + 1 or (one_cycle_at is not None and time.monotonic() - one_cycle_at > 1.5)
        if state == "PENDING" and (reason in FINAL or looked):
            return {"outcome": "wait", "allocation": {}, "reason": reason}
        if state in FINISHED:
            return {"outcome": "refuse", "allocation": {}, "reason": None, "message": f"ended {state}"}
        if time.monotonic() > deadline:
            return {"outcome": "wait", "allocation": {}, "reason": reason or "None"}
        time.sleep(0.05)


def capture(labs: Any, cases: Sequence[tuple[str, tuple[str, ...]]] = CASES) -> dict[str, Any]:
    """Run every case on ``labs`` (one or more started :class:`slurm_lab.SlurmLab`, alike but for their ports and
    folders: the cases are shared out among them and run side by side) and return the fixture."""
    import concurrent.futures

    labs = list(labs) if isinstance(labs, (list, tuple)) else [labs]
    t0 = time.monotonic()
    shares = [list(enumerate(cases))[i :: len(labs)] for i in range(len(labs))]
    with concurrent.futures.ThreadPoolExecutor(len(labs)) as pool:
        parts = list(pool.map(_capture_cases, labs, shares))
    fixture = parts[0][0]
    fixture["cases"] = [case for _, case in sorted((c for _, got in parts for c in got), key=lambda t: t[0])]
    fixture["capture_s"] = round(time.monotonic() - t0, 1)
    return fixture


def _capture_cases(
    lab: Any, cases: Sequence[tuple[int, tuple[str, tuple[str, ...]]]]
) -> tuple[dict[str, Any], list[tuple[int, dict[str, Any]]]]:
    """(the fixture's head, [(case number, case)]) from running ``cases`` on one lab."""
    got: list[tuple[int, dict[str, Any]]] = []
    version = lab.run(["sinfo", "--version"], check=True).stdout
    fixture: dict[str, Any] = {
        "slurm": version.strip(),
        "version": version,
        "config": lab.run(list(CONFIG), check=True).stdout,
    }
    for number, (name, steps) in cases:
        lab.cancel_all()
        ids: list[int] = []
        done_steps = []
        for template in steps:
            options = template.format(*ids)
            t = time.time()
            sinfo = trim(lab.run(["sinfo", "--json"], check=True).stdout, nodes_from_json)
            squeue = trim(lab.run(["squeue", "--json"], check=True).stdout, jobs_from_json,
                          lambda j: j.get("job_state") not in FINISHED)  # fmt: skip
            cycles = _bf_cycles(lab)
            argv = ["sbatch", "--parsable", "-o", "/dev/null", *shlex.split(options), "--wrap", "sleep 300"]
            sent = lab.run(argv)
            if sent.returncode != 0:
                decision = {"outcome": "refuse", "allocation": {}, "reason": None, "message": sent.stderr.strip()}
                ids.append(0)
            else:
                job_id = int(sent.stdout.strip().split(";")[0])
                ids.append(job_id)
                decision = settle(lab, job_id, cycles)
            done_steps.append({"options": options, "time": t, "sinfo": sinfo, "squeue": squeue, "slurm": decision})
        got.append((number, {"name": name, "steps": done_steps}))
    lab.cancel_all()
    return fixture, got


# -- replay through gputui ------------------------------------------------------------------------------------
def predict_step(fixture: dict[str, Any], step: dict[str, Any]) -> dict[str, Any]:
    """gputui's what-if for one step, from the outputs recorded before it was submitted."""
    answers: dict[tuple[str, ...], Any] = {
        ("sinfo", "--version"): fixture["version"],
        ("sinfo", "--json"): step["sinfo"],
        ("squeue", "--json"): step["squeue"],
        CONFIG: fixture["config"],
    }
    source = SlurmSource({}, runner=FakeSlurm(answers), nvml=None, clock=lambda: float(step["time"]))
    jobs = SlurmJobs(source, wall=lambda: float(step["time"]))
    jobs.tick(source.poll())
    try:
        return outcome_of(jobs.preview(step["options"]))
    except (RequestError, JobError) as e:
        return outcome_of(None, str(e))


def replay(fixture: dict[str, Any]) -> list[dict[str, Any]]:
    """One row per case: its steps' options, Slurm's and gputui's decisions, and whether every step agrees."""
    rows = []
    for case in fixture["cases"]:
        steps = []
        for step in case["steps"]:
            mine = predict_step(fixture, step)
            steps.append({"options": step["options"], "slurm": step["slurm"], "gputui": mine,
                          "same": same_decision(step["slurm"], mine)})  # fmt: skip
        rows.append({"name": case["name"], "steps": steps, "same": all(s["same"] for s in steps)})
    return rows


def _said(d: dict[str, Any]) -> str:
    if d["outcome"] == "start":
        return " ".join(f"{n}:{','.join(map(str, i)) or 'cpu'}" for n, i in d["allocation"].items())
    if d["outcome"] == "wait":
        return f"wait ({d['reason']})"
    return "refuse"


def report(rows: list[dict[str, Any]]) -> tuple[float, str]:
    """(agreement rate over cases, a text listing the rate and every case that differs, step by step)."""
    same = sum(1 for r in rows if r["same"])
    steps = [s for r in rows for s in r["steps"]]
    lines = [
        f"gputui's Slurm what-if agrees with Slurm on {same}/{len(rows)} cases ({100 * same / len(rows):.1f} %), "
        f"{sum(s['same'] for s in steps)}/{len(steps)} steps"
    ]
    for r in rows:
        if r["same"]:
            continue
        lines.append(f"  {r['name']}:")
        for s in r["steps"]:
            mark = "  " if s["same"] else "!="
            lines.append(f"    {mark} {s['options']:<44} Slurm {_said(s['slurm']):<24} gputui {_said(s['gputui'])}")
    return same / len(rows), "\n".join(lines)


def _main(argv: Sequence[str]) -> int:
    if len(argv) != 2 or argv[0] not in ("capture", "compare"):
        print("usage: python tests/support/slurm_diff.py capture|compare FIXTURE", file=sys.stderr)
        return 2
    action, path = argv
    if action == "capture":
        from slurm_lab import SlurmLab

        with (
            tempfile.TemporaryDirectory(prefix="slurm-diff-") as root,
            SlurmLab(f"{root}/a") as a,
            SlurmLab(f"{root}/b") as b,
        ):
            fixture = capture([a, b])
        Path(path).write_text(json.dumps(fixture, indent=1) + "\n")
        print(f"captured {len(fixture['cases'])} cases in {fixture['capture_s']} s into {path}")
    fixture = json.loads(Path(path).read_text())
    print(report(replay(fixture))[1])
    return 0


if __name__ == "__main__":
    sys.exit(_main(sys.argv[1:]))
