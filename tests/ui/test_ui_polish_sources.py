"""What the dashboard says depends on the source: the empty event log's text, a MIG device that a job holds
(no process is known on Slurm), and the Slurm node's state and shares in the GPU detail header."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from conftest import FIXTURES
from list_source import ListSource
from test_ui_app import settle
from test_ui_sample_data import frames, replay

from gputui.core.errors import GputuiError
from gputui.core.model import ClusterSnapshot, GpuInstance, GpuSnapshot, MpsDaemon, NodeSnapshot, ProcessInfo
from gputui.dashboard.job_records import holders_by_gpu
from gputui.dashboard.occupancy import holder_summary
from gputui.slurm import SlurmJobs, SlurmSource
from gputui.slurm.fake import FakeSlurm, captured_answers
from gputui.ui import GputuiApp, create_app
from gputui.ui.widgets.detail import DetailPane, render_header
from gputui.ui.widgets.event_log import LIVE_PLACEHOLDER, PLACEHOLDER, EventLog, placeholder
from gputui.ui.widgets.overview import OverviewTable

SIZE = (160, 50)
T0 = 1796122497.0


def slurm_source(tmp_path: Path) -> SlurmSource:
    """The Slurm source on the captured 22.05 lab outputs (node03: four MIG-typed GRES; node04: mps:200)."""
    conf = tmp_path / "slurm.conf"
    conf.write_text("ClusterName=testlab\n")
    fake = FakeSlurm(captured_answers(FIXTURES / "slurm"))
    return SlurmSource({}, conf_path=conf, runner=fake, nvml=None, clock=lambda: T0)


@asynccontextmanager
async def slurm_dashboard(tmp_path: Path) -> AsyncIterator[tuple[GputuiApp, Any]]:
    """The dashboard on the captured Slurm cluster with its Slurm job back end, settled after its first poll."""
    source = slurm_source(tmp_path)
    jobs = SlurmJobs(source, wall=lambda: T0)
    app = create_app(source, poll_interval=3600, jobs_service=jobs, themes_path=tmp_path / "none")
    try:
        async with app.run_test(size=SIZE) as pilot:
            await settle(app, pilot)
            yield app, pilot
    finally:
        source.close()


def log_text(log: EventLog) -> list[str]:
    return [strip.text.rstrip() for strip in log.lines]


# -- the event log's empty state -----------------------------------------------------------------------------------
def test_placeholder_names_what_the_source_gives() -> None:
    assert placeholder(True) == PLACEHOLDER and "replay" in PLACEHOLDER
    assert placeholder(False) == LIVE_PLACEHOLDER
    assert "recording" not in LIVE_PLACEHOLDER and "replay" not in LIVE_PLACEHOLDER


async def test_a_live_source_with_a_job_queue_shows_the_live_placeholder() -> None:
    def no_queue() -> Any:
        raise GputuiError("no queue here")

    app = create_app(ListSource([frames(1)[0]]), poll_interval=3600, jobs_opener=no_queue)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        assert log_text(app.query_one(EventLog)) == [LIVE_PLACEHOLDER]


async def test_a_replay_keeps_the_recording_placeholder() -> None:
    source = replay(3)
    app = create_app(source, poll_interval=3600)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        log = app.query_one(EventLog)
        assert log.shown == [] and log_text(log) == [PLACEHOLDER]


# -- a MIG device that a job holds ---------------------------------------------------------------------------------
def slurm_mig_gpu(index: int = 0, profile: str = "1g.10gb") -> GpuSnapshot:
    """A MIG-typed GRES device as the Slurm source builds it: MIG mode, one GI, no process, no load."""
    return GpuSnapshot(index, name=profile, mig_mode_current=True, gpu_instances=(GpuInstance(0, profile),))


def test_a_held_mig_device_without_processes_counts_as_busy() -> None:
    gpu = slurm_mig_gpu()
    assert holder_summary(gpu) == ("MIG 0/1 GI busy", "mig")  # nobody known to hold it
    assert holder_summary(gpu, held=True) == ("MIG 1/1 GI busy", "mig")


def test_held_never_lowers_or_inflates_what_processes_show() -> None:
    gis = tuple(GpuInstance(i, "1g.10gb") for i in range(4))
    procs = (ProcessInfo(10, "C", user="ann", gi_id=1), ProcessInfo(11, "C", user="bo", gi_id=2))
    gpu = GpuSnapshot(0, mig_mode_current=True, gpu_instances=gis, processes=procs)
    assert holder_summary(gpu, held=True) == holder_summary(gpu) == ("MIG 2/4 GI busy: ann, bo", "mig")
    # A held GPU of several instances with no process seen: one instance at least, not all of them.
    assert holder_summary(GpuSnapshot(0, mig_mode_current=True, gpu_instances=gis), held=True)[0] == "MIG 1/4 GI busy"


def test_a_held_mps_gpu_without_clients_is_not_called_idle() -> None:
    gpu = GpuSnapshot(0, mps=MpsDaemon(running=True, server_pid=None))
    assert holder_summary(gpu) == ("MPS: idle", "mps")
    assert holder_summary(gpu, held=True) == ("MPS: no client seen", "mps")


def test_held_leaves_other_kinds_alone() -> None:
    free, lost = GpuSnapshot(0, utilization_gpu=0), GpuSnapshot(1, lost=True)
    assert holder_summary(free, held=True) == ("free", "free")  # the overview shows the job in its place
    assert holder_summary(lost, held=True) == ("GPU lost", "lost")


def test_every_mig_device_the_slurm_source_builds_and_a_job_holds_reads_busy(tmp_path: Path) -> None:
    source = slurm_source(tmp_path)
    try:
        snap = source.poll()
        jobs = SlurmJobs(source, wall=lambda: T0)
        jobs.tick(snap)
        held = holders_by_gpu(jobs.list())
    finally:
        source.close()
    node03 = snap.node("node03")
    texts = {g.index: holder_summary(g, held=f"node03/{g.index}" in held)[0] for g in node03.gpus}
    assert held["node03/0"] == "job 4 mig-1g (1g.10gb)"
    assert texts == {0: "MIG 1/1 GI busy", 1: "MIG 1/1 GI busy", 2: "MIG 1/1 GI busy", 3: "MIG 0/1 GI busy"}


async def test_the_overview_names_the_job_and_a_busy_instance_on_slurm(tmp_path: Path) -> None:
    async with slurm_dashboard(tmp_path) as (app, _pilot):
        assert app.state.jobs_by_gpu.get("node03/0") == "job 4 mig-1g (1g.10gb)"
        holder = app.query_one(OverviewTable).get_row("node03/0")[-1].plain
        assert holder == "job 4 mig-1g (1g.10gb) · MIG 1/1 GI busy"


# -- the Slurm node in the detail header ---------------------------------------------------------------------------
def test_header_shows_the_slurm_state_and_shares() -> None:
    node = NodeSnapshot("node04", (GpuSnapshot(0),), state="MIXED", shares=(("mps", 200, 100), ("shard", 8, None)))
    lines = render_header(node, node.gpus[0], width=120).plain.splitlines()
    assert lines[1] == "Slurm node MIXED  MPS used 100/200  shards used N/A/8"


def test_header_without_a_workload_manager_is_unchanged() -> None:
    gpu = GpuSnapshot(0, name="A100", utilization_gpu=5)
    plain = render_header(NodeSnapshot("n1", (gpu,)), gpu, width=120).plain
    assert "Slurm" not in plain and "used" not in plain
    assert plain.splitlines()[1].startswith("util 5%")  # the gauges follow the identity directly


def test_header_shows_a_lost_gpu_s_node_state_too() -> None:
    gpu = GpuSnapshot(0, lost=True)
    lines = render_header(NodeSnapshot("n1", (gpu,), state="DOWN+DRAIN"), gpu, width=120).plain.splitlines()
    assert lines[1:] == ["Slurm node DOWN+DRAIN", lines[2]] and lines[2].startswith("✖ GPU lost")


async def test_slurm_dashboard_detail_pane_and_event_log(tmp_path: Path) -> None:
    async with slurm_dashboard(tmp_path) as (app, pilot):
        assert isinstance(app, GputuiApp) and app.replay is None
        log = app.query_one(EventLog)
        # The queue's first look takes the jobs as they are: no event yet, so the live text shows.
        assert log.shown == [] and log_text(log) == [LIVE_PLACEHOLDER]
        table = app.query_one(OverviewTable)
        table.select_key("node04/0")
        await pilot.pause()
        header = app.query_one("#gpu-header").render()
        text = getattr(header, "plain", str(header))
        assert "Slurm node MIXED" in text and "MPS used 100/200" in text
        pane = app.query_one(DetailPane)
        shown = pane._shown
        assert shown is not None and shown[0].name == "node04"
        # A new node state with the same GPU is drawn too.
        changed = ClusterSnapshot(T0, (NodeSnapshot("node04", shown[0].gpus, state="DOWN+DRAIN"),))
        pane.show(changed.nodes[0], changed.nodes[0].gpus[0])
        await pilot.pause()
        header = app.query_one("#gpu-header").render()
        assert "Slurm node DOWN+DRAIN" in getattr(header, "plain", str(header))
