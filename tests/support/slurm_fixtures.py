"""Pytest fixtures for tests against a real Slurm lab: skipped where Slurm is absent, a failure in CI."""

from __future__ import annotations

import os
import re
from collections.abc import Iterator

import pytest
from slurm_lab import LabError, SlurmLab, missing_binaries

from gputui.jobs.records import JobRecord


def in_ci() -> bool:
    """Whether this run is CI, where a lab that cannot start must fail the run rather than skip."""
    return os.environ.get("CI", "").strip().lower() in {"1", "true", "yes"}


def _cannot_run(reason: str) -> None:
    if in_ci():
        pytest.fail(f"CI=true but the Slurm lab cannot run: {reason}", pytrace=False)
    pytest.skip(reason)


# Module scope: a fixture imported into a test module is that module's own, so a session scope would not be
# shared anyway; and the daemons stop as soon as the module is done instead of idling through the suite.
@pytest.fixture(scope="module", name="slurm_lab")
def slurm_lab_fixture(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SlurmLab]:
    """One running lab per test module; skipped without Slurm, failed in CI if it cannot start."""
    missing = missing_binaries()
    if missing:
        _cannot_run(f"Slurm lab needs {', '.join(missing)} (run .ci/slurm-setup as root)")
    if os.geteuid() != 0:
        _cannot_run("the Slurm lab runs its daemons as root (SlurmUser=root)")
    lab = SlurmLab(tmp_path_factory.mktemp("slurm-lab"))
    try:
        lab.start()
    except LabError as err:
        pytest.fail(f"the Slurm lab did not start: {err}", pytrace=False)
    try:
        yield lab
    finally:
        lab.stop()


@pytest.fixture(name="lab")
def clean_lab_fixture(slurm_lab: SlurmLab) -> Iterator[SlurmLab]:
    """The session's lab, idle before the test, with every job the test left cancelled after it."""
    slurm_lab.wait_idle()
    yield slurm_lab
    slurm_lab.cancel_all()


_ITEM = re.compile(r"([\w.:]+?):(\d+)\(IDX:([^)]*)\)")


def _indices(text: str) -> set[int]:
    out: set[int] = set()
    for part in filter(None, text.split(",")):
        lo, _, hi = part.partition("-")
        if lo.isdigit():
            out.update(range(int(lo), int(hi or lo) + 1))
    return out


def _per_node_gres(lab: SlurmLab, job_id: int) -> dict[str, list[tuple[str, int, set[int]]]]:
    """node -> [(gres name[:type], count, GPU indices)] of a running job, from ``scontrol show job -d``."""
    text = lab.run(["scontrol", "show", "job", "-d", str(job_id)], check=True).stdout
    placed: dict[str, list[tuple[str, int, set[int]]]] = {}
    for node, gres in re.findall(r"^\s+Nodes=(\S+) CPU_IDs=\S+ Mem=\S+ GRES=(\S*)", text, re.M):
        items = [(name, int(count), _indices(idx)) for name, count, idx in _ITEM.findall(gres) if int(count)]
        for host in lab.expand_hostlist(node):
            placed[host] = items
    return placed


def job_gres(lab: SlurmLab, job_id: int) -> dict[str, dict[str, int]]:
    """Slurm's real placement of a running job: node -> {gres name or name:type -> count}."""
    return {
        node: {name: sum(c for n, c, _ in items if n == name) for name, _, _ in items}
        for node, items in _per_node_gres(lab, job_id).items()
    }


def job_gpus(lab: SlurmLab, job_id: int) -> dict[str, tuple[int, ...]]:
    """Slurm's real placement of a running job: node -> the GPU indices it holds there (whole, MIG-typed or MPS)."""
    return {
        node: tuple(sorted(set().union(*(idx for _, _, idx in items))))
        for node, items in _per_node_gres(lab, job_id).items()
    }


class Adapter:
    """gputui's Slurm source and job back end on the lab, with polling helpers for tests."""

    def __init__(self, lab: SlurmLab) -> None:
        from gputui.slurm import SlurmJobs, SlurmSource

        self.lab = lab
        self.source = SlurmSource(lab.env, nvml=None)
        self.jobs = SlurmJobs(self.source)
        self.refresh()

    def refresh(self) -> None:
        """One poll of the source, handed to the back end as the dashboard does."""
        self.jobs.tick(self.source.poll())

    def submit(self, options: str) -> int:
        return self.jobs.submit(options, ["sleep", "300"], cwd=str(self.lab.work_dir)).id

    def wait_state(self, job_id: int, state: str, timeout: float = 10) -> JobRecord:
        """Poll until the back end's record of the job is in ``state`` (gputui's state names)."""

        def ready() -> bool:
            self.refresh()
            return any(r.id == job_id and r.state == state for r in self.jobs.list())

        self.lab.wait_for(ready, f"gputui to see job {job_id} {state}", timeout)
        return self.jobs.get(job_id).record

    def wait_decided(self, job_id: int, timeout: float = 10) -> str:
        """Wait until Slurm has started the job or given a reason for it to wait; returns its JobState."""

        def decided() -> bool:
            state = self.lab.job_state(job_id)
            return state == "RUNNING" or (state == "PENDING" and self.lab.job_field(job_id, "Reason") != "None")

        self.lab.wait_for(decided, f"Slurm to start job {job_id} or say why it waits", timeout)
        return str(self.lab.job_state(job_id))


@pytest.fixture(name="adapter")
def adapter_fixture(lab: SlurmLab) -> Iterator[Adapter]:
    """A fresh SlurmSource + SlurmJobs on the idle lab."""
    adapter = Adapter(lab)
    yield adapter
    adapter.source.close()
