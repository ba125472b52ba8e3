"""Finding MPS daemons and servers in a /proc tree, and deciding each GPU's MPS state from them."""

from __future__ import annotations

import pytest
from fakes.proc_tree import user_of, write_process

from gputui.core.model import MpsClient, MpsDaemon
from gputui.procfs import mps_detect as detect
from gputui.procfs.mps_detect import MpsControlProc, MpsScan, MpsScanner, MpsServerProc, gpu_in_visible_devices
from gputui.sources.mps_attach import mps_for_gpu

ENV = {"CUDA_MPS_PIPE_DIRECTORY": "/run/mps-a", "CUDA_MPS_LOG_DIRECTORY": "/var/log/mps-a"}


def scanner(root, **kw) -> MpsScanner:
    return MpsScanner(str(root), users=user_of, **kw)


def test_daemon_servers_and_directories(tmp_path):
    write_process(
        tmp_path, 100, ["/usr/bin/nvidia-cuda-mps-control", "-d"], environ={**ENV, "CUDA_VISIBLE_DEVICES": "1"}
    )
    write_process(tmp_path, 101, ["nvidia-cuda-mps-server"], user="alice", ppid=100, environ=None)
    write_process(tmp_path, 200, ["nvidia-cuda-mps-control", "-d"], user="bob", environ={})
    write_process(tmp_path, 300, ["nvidia-cuda-mps-server"], ppid=1, environ=None)  # its daemon is gone
    write_process(tmp_path, 400, ["python", "train.py"], user="alice", environ={})
    scan = scanner(tmp_path).scan()
    a, b = scan.daemons
    assert (a.pid, a.pipe_directory, a.log_directory, a.visible_devices, a.user) == (
        100,
        "/run/mps-a",
        "/var/log/mps-a",
        "1",
        "root",
    )
    assert a.servers == (MpsServerProc(101, 100, "alice"),)
    assert (b.pid, b.pipe_directory, b.log_directory, b.visible_devices, b.servers) == (
        200,
        "/tmp/nvidia-mps",
        "/var/log/nvidia-mps",
        None,
        (),
    )
    assert [s.pid for s in scan.orphan_servers] == [300]


def test_a_script_run_by_an_interpreter_counts_by_its_second_word(tmp_path):
    write_process(
        tmp_path, 10, ["python3", "/opt/fake/nvidia-cuda-mps-control", "-d"], comm="nvidia-cuda-mps", environ={}
    )
    write_process(tmp_path, 11, ["python3", "other.py"], comm="nvidia-cuda-mps", environ={})  # same name, not MPS
    assert [d.pid for d in scanner(tmp_path).scan().daemons] == [10]


def test_unreadable_environment_is_na_unless_the_pid_file_names_the_daemon(tmp_path):
    pipe = tmp_path / "pipe"
    pipe.mkdir()
    (pipe / detect.PID_FILE).write_text("77\n")
    proc = tmp_path / "proc"
    write_process(proc, 77, ["nvidia-cuda-mps-control", "-d"], environ=None)
    write_process(proc, 78, ["nvidia-cuda-mps-control", "-d"], environ=None)
    d77, d78 = scanner(proc, pipe_dirs=(str(pipe),)).scan().daemons
    assert (d77.env_readable, d77.pipe_directory, d77.log_directory) == (False, str(pipe), None)
    assert d78.pipe_directory is None
    assert d77.serves(0, "GPU-x") is None


def test_new_pids_are_read_and_plain_ones_rechecked_only_now_and_then(tmp_path):
    write_process(tmp_path, 5, ["bash"], environ={})
    s = scanner(tmp_path, recheck=4)
    assert s.scan().daemons == ()
    # PID 5 exec's into the control daemon: noticed within ``recheck`` scans, not necessarily at once
    write_process(tmp_path, 5, ["nvidia-cuda-mps-control", "-d"], environ={})
    write_process(tmp_path, 6, ["nvidia-cuda-mps-control", "-d"], environ={})
    first = [d.pid for d in s.scan().daemons]
    assert 6 in first
    seen = [sorted(d.pid for d in s.scan().daemons) for _ in range(4)]
    assert seen[-1] == [5, 6]


def test_a_daemon_that_exits_is_forgotten(tmp_path):
    write_process(tmp_path, 9, ["nvidia-cuda-mps-control", "-d"], environ={})
    s = scanner(tmp_path)
    assert len(s.scan().daemons) == 1
    for f in (tmp_path / "9").iterdir():
        f.rmdir() if f.is_dir() else f.unlink()
    (tmp_path / "9").rmdir()
    assert s.scan().daemons == ()


@pytest.mark.parametrize(
    ("value", "index", "expected"),
    [
        ("0,1", 1, True),
        ("0,1", 2, False),
        ("GPU-ae5b", 3, True),  # a UUID prefix, as CUDA accepts
        ("GPU-ffff", 3, False),
        ("MIG-aaaa-bbbb", 3, True),
        ("MIG-GPU-ae5b492a-c297/1/0", 3, True),
        ("", 0, False),
        ("-1,0", 0, False),  # CUDA stops at the first invalid entry
        ("0,bogus,3", 3, False),
    ],
)
def test_cuda_visible_devices(value, index, expected):
    uuid = "GPU-ae5b492a-c297" if index == 3 else "GPU-1111"
    assert gpu_in_visible_devices(value, index, uuid, ("MIG-aaaa-bbbb",) if index == 3 else ()) is expected


def test_hidepid_makes_the_scan_incomplete(tmp_path, monkeypatch):
    (tmp_path / "mounts").write_text(f"proc {tmp_path} proc rw,nosuid,relatime,hidepid=invisible 0 0\n")
    monkeypatch.setattr(detect.os, "geteuid", lambda: 1000)
    assert detect.hides_processes(str(tmp_path))
    monkeypatch.setattr(detect.os, "geteuid", lambda: 0)
    assert not detect.hides_processes(str(tmp_path))


CLIENT = MpsClient(42, 50, 1000, "alice", "python infer.py")
KNOWN = MpsControlProc(
    100, "root", True, "/tmp/nvidia-mps", "/var/log/nvidia-mps", "0", (MpsServerProc(101, 100, "alice"),)
)
HIDDEN = MpsControlProc(200, "root", False, None, None, None, (MpsServerProc(201, 200, "bob"),))


@pytest.mark.parametrize(
    ("scan", "index", "pids", "clients", "expected"),
    [
        # named by CUDA_VISIBLE_DEVICES: running, with its one server
        (
            MpsScan((KNOWN,)),
            0,
            {101, 42},
            (CLIENT,),
            MpsDaemon(True, 100, 101, "/tmp/nvidia-mps", "/var/log/nvidia-mps", (CLIENT,)),
        ),
        # not named, every daemon's GPUs known: known to be off
        (MpsScan((KNOWN,)), 1, set(), (), MpsDaemon(False)),
        # a daemon whose environment is hidden: found through its server on this GPU
        (MpsScan((HIDDEN,)), 1, {201}, (), MpsDaemon(True, 200, 201, None, None, ())),
        # ... and unknown on a GPU where none of its servers runs
        (MpsScan((HIDDEN,)), 0, set(), (), None),
        # NVML sees clients but /proc shows no daemon (another PID namespace)
        (MpsScan(()), 0, {42}, (CLIENT,), MpsDaemon(True, clients=(CLIENT,))),
        # /proc hides other users' processes: no daemon visible means unknown, not off
        (MpsScan((), complete=False), 0, set(), (), None),
        (None, 0, set(), (), None),
    ],
)
def test_mps_state_of_a_gpu(scan, index, pids, clients, expected):
    assert mps_for_gpu(scan, index, f"GPU-{index}", (), frozenset(pids), clients) == expected
