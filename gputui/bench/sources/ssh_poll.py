"""The SSH source at fleet size: CPU of the collecting process and of its ssh clients at 1 Hz, and the delay from a
change on a host to the frame that shows it.

python -m gputui.bench ssh_poll [--hosts 64] [--gpus 8] [--seconds 30] [--changes 20] [--mode sshd|local]

Runs from a checkout with the test extra and Debian's openssh-server (``.ci/sshd-setup``): ``--mode sshd`` (the
default) reads ``--hosts`` ssh_config aliases of one real sshd on 127.0.0.1 (tests/support/ssh_lab.py), each its own
connection with two sessions, each host a fake nvidia-smi streaming a real capture; ``--mode local`` runs the same
remote commands through a local ``sh`` instead of ssh (the collector alone, no ssh or sshd). CPU is read from
/proc: the collecting process (all its threads: readers, parsing, frame assembly at 1 Hz), its ssh clients, and
the "remote" side (sshd and the fakes), as per cent of one core. The delay: a GPU's utilisation is set on one host
(the fake reads its control file before each poll, like a real GPU sampled by ``nvidia-smi -l 1``), then timed
until the source has it (polled every 20 ms) and until a 1 Hz frame would show it.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[3]
TICK = os.sysconf("SC_CLK_TCK")


def _cpu_of(pids: list[int]) -> float:
    """CPU seconds (user + system) of these live processes."""
    total = 0
    for pid in pids:
        try:
            with open(f"/proc/{pid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            total += int(fields[11]) + int(fields[12])
        except (OSError, IndexError, ValueError):
            continue
    return total / TICK


def _self_cpu() -> float:
    t = os.times()
    return t.user + t.system


def _fake_ssh(root: Path) -> str:
    """A stand-in for ssh that runs the remote command locally, as the fake host named before it."""
    path = root / "local-ssh"
    path.write_text(
        "#!/bin/sh\n"
        'while [ "$#" -gt 0 ] && [ "$1" != "--" ]; do shift; done\n'
        "shift\n"
        'GPUTUI_FAKE_HOST="$1" exec sh -c "$2"\n'
    )
    path.chmod(0o755)
    return str(path)


def _delays(source: Any, lab: Any, hosts: list[str], changes: int) -> tuple[list[float], list[float]]:
    """(change -> in the source, change -> in a 1 Hz frame) for ``changes`` changes on random hosts."""
    rng = random.Random(1)
    to_source: list[float] = []
    to_frame: list[float] = []
    for k in range(changes):
        host = rng.choice(hosts)
        value = 1 + (k * 37) % 98
        frame_phase = rng.random()  # where the next 1 Hz frame tick falls after the change
        t0 = time.monotonic()
        lab.control(host, util=value)
        deadline = t0 + 15
        seen = None
        while time.monotonic() < deadline:
            node = source.poll().node(host)
            if node.gpus and all(g.utilization_gpu == value for g in node.gpus):
                seen = time.monotonic() - t0
                break
            time.sleep(0.02)
        if seen is None:
            print(f"  change {k} on {host}: not seen within 15 s")
            continue
        to_source.append(seen)
        # frames tick at frame_phase, frame_phase + 1, ...: the first at or after the value arrived shows it
        ticks = max(0, int(-(-(seen - frame_phase) // 1)))
        to_frame.append(frame_phase + ticks)
    return to_source, to_frame


def _parse_costs(lab: Any, gpus: int) -> tuple[float, float, int, int]:
    """(median ms to read one full XML document, to read one poll's CSV rows, their sizes in bytes) for one host,
    interleaved: the choice between full XML every poll and CSV values with XML less often."""
    import subprocess

    from gputui.sources.ssh.remote import VALUE_FIELDS, ValueRows, parse_detail

    fake = [sys.executable, str(REPO / "tests" / "support" / "fake_nvidia_smi.py")]
    env = dict(os.environ, GPUTUI_FAKE_HOST="h000", GPUTUI_FAKE_DIR=str(lab.root))
    xml = subprocess.run([*fake, "-q", "-x"], capture_output=True, env=env, check=True).stdout
    query = [f"--query-gpu={','.join(VALUE_FIELDS)}", "--format=csv,noheader,nounits"]
    csv_text = subprocess.run([*fake, *query], capture_output=True, env=env, check=True).stdout.decode()
    lines = csv_text.splitlines()
    rows = ValueRows("h000")
    rows.expected = gpus
    t_xml: list[float] = []
    t_csv: list[float] = []
    for _ in range(50):
        t0 = time.perf_counter()
        parse_detail("h000", xml, [])
        t1 = time.perf_counter()
        for line in lines:
            rows.add(line)
        t_csv.append(time.perf_counter() - t1)
        t_xml.append(t1 - t0)
    return statistics.median(t_xml) * 1e3, statistics.median(t_csv) * 1e3, len(xml), len(csv_text)


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(prog="python -m gputui.bench ssh_poll")
    ap.add_argument("--hosts", type=int, default=64)
    ap.add_argument("--gpus", type=int, default=8)
    ap.add_argument("--seconds", type=float, default=30.0, help="the CPU window, after every host answered")
    ap.add_argument("--changes", type=int, default=20)
    ap.add_argument("--detail", type=float, default=15.0, help="seconds between XML documents per host")
    ap.add_argument("--values", type=float, default=1.0, help="seconds between value rows ([ssh] values)")
    ap.add_argument("--mode", choices=("sshd", "local"), default="sshd")
    args = ap.parse_args(argv)
    sys.path.insert(0, str(REPO / "tests" / "support"))
    try:
        import ssh_lab  # the test lab: a checkout with the test extra
    except ImportError as e:
        print(f"ssh_poll: needs a checkout with the test extra ({e})")
        return 1
    from gputui.sources.ssh import SshSettings, SshSource

    gen = ssh_lab.make_lab()
    try:
        lab = next(gen)
    except BaseException as e:  # pytest's skip outside pytest: no sshd here
        print(f"ssh_poll: cannot start the lab: {e}")
        return 1
    try:
        hosts = [f"h{i:03d}" for i in range(args.hosts)]
        for h in hosts:
            lab.add_host(h, args.gpus)
        control = lab.root / "cm"
        control.mkdir(mode=0o700)
        settings = SshSettings(
            config=str(lab.config), control_dir=control, detail=args.detail, connect_timeout=20, interval=args.values
        )
        if args.mode == "local":
            os.environ["PATH"] = f"{lab.root / 'bin'}:{os.environ['PATH']}"
            os.environ["GPUTUI_FAKE_DIR"] = str(lab.root)
            settings = SshSettings(program=_fake_ssh(lab.root), detail=args.detail, interval=args.values)
        t_start = time.monotonic()
        source = SshSource(hosts, settings)
        try:
            return _run(args, lab, source, hosts, t_start)
        finally:
            source.close()
    finally:
        next(gen, None)


def _run(args: argparse.Namespace, lab: Any, source: Any, hosts: list[str], t_start: float) -> int:
    from ssh_lab import descendants

    def ready() -> bool:
        snap = source.poll()
        return all(n.fault is None and len(n.gpus) == args.gpus for n in snap.nodes)

    while not ready():
        if time.monotonic() - t_start > 120:
            bad = [n.name for n in source.poll().nodes if n.fault is not None]
            print(f"ssh_poll: {len(bad)} hosts not answering after 120 s (first: {bad[:3]})")
            return 1
        time.sleep(0.2)
    took = time.monotonic() - t_start
    print(f"{args.hosts} hosts x {args.gpus} GPUs, mode {args.mode}: all answering after {took:.1f} s; "
          f"values every {args.values:g} s, XML every {args.detail:g} s")  # fmt: skip
    ms_xml, ms_csv, b_xml, b_csv = _parse_costs(lab, args.gpus)
    print(f"one host's poll: full XML {b_xml / 1024:.0f} KiB, read in {ms_xml:.1f} ms; CSV values {b_csv} bytes, "
          f"read in {ms_csv:.2f} ms ({ms_xml / ms_csv:.0f}x less); XML every poll would cost "
          f"{ms_xml * args.hosts / 10:.0f} % of a core at 1 Hz")  # fmt: skip
    time.sleep(3)  # let the start-up settle

    def ssh_pids() -> list[int]:
        return [p for p in descendants(os.getpid()) if _comm(p) == "ssh"]

    def remote_pids() -> list[int]:
        out = []
        for s in lab.servers:
            if s.process is not None:
                out += [s.process.pid, *descendants(s.process.pid)]
        return out

    clients, remote = ssh_pids(), remote_pids()
    c0, s0, r0, w0 = _self_cpu(), _cpu_of(clients), _cpu_of(remote), time.monotonic()
    frames = 0
    next_tick = w0
    while time.monotonic() - w0 < args.seconds:
        next_tick += 1.0
        snap = source.poll()  # the frame, as the dashboard asks for it at 1 Hz
        frames += 1
        time.sleep(max(0.0, next_tick - time.monotonic()))
    wall = time.monotonic() - w0
    collector = (_self_cpu() - c0) / wall * 100
    ssh_cpu = (_cpu_of(clients) - s0) / wall * 100
    remote_cpu = (_cpu_of(remote) - r0) / wall * 100
    gpus = snap.gpu_count
    print(f"CPU over {wall:.0f} s, {frames} frames of {gpus} GPUs (per cent of one core):")
    print(f"  collecting process: {collector:.1f} %  (target <= 15 %)")
    if args.mode == "sshd":
        print(f"  its {len(clients)} ssh clients: {ssh_cpu:.1f} %")
        print(f"  remote side (sshd and {args.hosts} fake nvidia-smi): {remote_cpu:.1f} %")
    to_source, to_frame = _delays(source, lab, hosts, args.changes)
    if to_source:
        ranked = sorted(to_frame)
        p95 = ranked[min(len(ranked) - 1, round(0.95 * (len(ranked) - 1)))]
        print(f"delay from a change on a host ({len(to_source)} changes): in the source median "
              f"{statistics.median(to_source):.2f} s, max {max(to_source):.2f} s; in a 1 Hz frame median "
              f"{statistics.median(to_frame):.2f} s, p95 {p95:.2f} s, max {max(to_frame):.2f} s "
              "(target <= 1.5 s)")  # fmt: skip
    return 0


def _comm(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/comm") as f:
            return f.read().strip()
    except OSError:
        return ""


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
