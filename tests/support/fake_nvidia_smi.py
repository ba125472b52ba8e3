"""A fake `nvidia-smi` for the SSH lab (tests/support/ssh_lab.py): run on the "remote" side through a real sshd.

It answers the forms gputui's SSH source runs, from a real capture in fixtures/nvidia-smi, with values that change
every second (utilisation, memory used, temperature, power):

- ``nvidia-smi -q -x [-l N]``: the capture's document, its first GPU repeated for each GPU of the host;
- ``nvidia-smi --query-gpu=F1,F2,... --format=csv[,noheader][,nounits] [-l N | -lms MS]``: CSV rows of the same
  values.

The host is named by ``GPUTUI_FAKE_HOST`` (the ssh_config alias sets it with SetEnv); its GPU set is read from
``$GPUTUI_FAKE_DIR/hosts/HOST.json`` (capture, GPU count, processes), and what it should do wrong from
``$GPUTUI_FAKE_DIR/ctl/HOST.json``, read again before every poll so that a test can change it mid-stream:
``idle`` (GPU indices reporting 0 %), ``stop_after`` (exit 1 after that many polls: the stream stops),
``garbage`` (write bytes that are no nvidia-smi output), ``delay`` (seconds to wait before each poll: a slow host),
``exit`` (exit at once with that status and a message on stderr), ``util`` (a fixed utilisation for every GPU
not idle).
"""

from __future__ import annotations

import json
import os
import sys
import time
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
CAPTURES = REPO / "fixtures" / "nvidia-smi"


def _read_json(path: Path) -> dict[str, Any]:
    try:
        return dict(json.loads(path.read_text()))
    except (OSError, ValueError):
        return {}


class Host:
    def __init__(self) -> None:
        self.name = os.environ.get("GPUTUI_FAKE_HOST", "fakehost")
        self.dir = Path(os.environ.get("GPUTUI_FAKE_DIR", "."))
        self.spec = _read_json(self.dir / "hosts" / f"{self.name}.json")
        self.count = int(self.spec.get("gpus", 8))
        capture = CAPTURES / str(self.spec.get("capture", "telegraf-tesla-t4.xml"))
        self.tree = ET.parse(capture)
        self.seed = sum(map(ord, self.name))

    def control(self) -> dict[str, Any]:
        return _read_json(self.dir / "ctl" / f"{self.name}.json")

    def values(self, i: int, tick: int, ctl: dict[str, Any]) -> dict[str, Any]:
        """The changing values of GPU ``i`` at second ``tick``."""
        idle = i in (ctl.get("idle") or ())
        util = 0 if idle else int(ctl.get("util", (tick * 7 + i * 17 + self.seed) % 101))
        total = 15360
        return {
            "uuid": f"GPU-{self.seed:08x}-{len(self.name):04x}-4000-8000-{i:012x}",
            "bus": f"00000000:{0x10 + i:02X}:00.0",
            "util": util,
            "mem_util": util // 2,
            "mem_used": 0 if idle else 1000 + (tick * 97 + i * 311) % (total - 1000),
            "mem_total": total,
            "temp": 35 + (tick + i * 3) % 40,
            "power": round(20.0 + util * 0.5 + (tick % 7) * 0.25, 2),
            "limit": 70.0,
        }


def _set(el: ET.Element, path: str, value: str) -> None:
    node = el.find(path)
    if node is not None:
        node.text = value


def xml_document(host: Host, tick: int, ctl: dict[str, Any]) -> bytes:
    root = host.tree.getroot()
    template = root.find("gpu")
    assert template is not None
    doc = ET.Element(root.tag, root.attrib)
    for child in root:
        if child.tag != "gpu":
            doc.append(child)
    _set(doc, "timestamp", time.strftime("%a %b %d %H:%M:%S %Y", time.gmtime()))
    _set(doc, "attached_gpus", str(host.count))
    procs = host.spec.get("procs", [])
    for i in range(host.count):
        v = host.values(i, tick, ctl)
        gpu = ET.fromstring(ET.tostring(template))
        gpu.set("id", v["bus"])
        _set(gpu, "uuid", v["uuid"])
        _set(gpu, "minor_number", str(i))
        _set(gpu, "pci/pci_bus_id", v["bus"])
        _set(gpu, "fb_memory_usage/total", f"{v['mem_total']} MiB")
        _set(gpu, "fb_memory_usage/used", f"{v['mem_used']} MiB")
        _set(gpu, "utilization/gpu_util", f"{v['util']} %")
        _set(gpu, "utilization/memory_util", f"{v['mem_util']} %")
        _set(gpu, "temperature/gpu_temp", f"{v['temp']} C")
        for path in ("power_readings/power_draw", "gpu_power_readings/power_draw"):
            _set(gpu, path, f"{v['power']:.2f} W")
        processes = gpu.find("processes")
        if processes is not None:
            processes.clear()
            for p in procs:
                if int(p.get("gpu", 0)) != i:
                    continue
                info = ET.SubElement(processes, "process_info")
                for tag, value in (
                    ("gpu_instance_id", "N/A"),
                    ("compute_instance_id", "N/A"),
                    ("pid", str(p["pid"])),
                    ("type", p.get("type", "C")),
                    ("process_name", p.get("name", "python")),
                    ("used_memory", f"{p.get('mib', 1000)} MiB"),
                ):
                    ET.SubElement(info, tag).text = value
        doc.append(gpu)
    return b'<?xml version="1.0" ?>\n' + ET.tostring(doc) + b"\n"


_CSV = {
    "index": lambda i, v: str(i),
    "uuid": lambda i, v: v["uuid"],
    "name": lambda i, v: "Tesla T4",
    "pci.bus_id": lambda i, v: v["bus"],
    "utilization.gpu": lambda i, v: str(v["util"]),
    "utilization.memory": lambda i, v: str(v["mem_util"]),
    "memory.used": lambda i, v: str(v["mem_used"]),
    "memory.total": lambda i, v: str(v["mem_total"]),
    "temperature.gpu": lambda i, v: str(v["temp"]),
    "power.draw": lambda i, v: f"{v['power']:.2f}",
    "power.limit": lambda i, v: f"{v['limit']:.2f}",
    "timestamp": lambda i, v: time.strftime("%Y/%m/%d %H:%M:%S.000", time.gmtime()),
}
_UNITS = {"utilization.gpu": " %", "utilization.memory": " %", "memory.used": " MiB", "memory.total": " MiB",
          "temperature.gpu": "", "power.draw": " W", "power.limit": " W"}  # fmt: skip


def csv_rows(host: Host, fields: list[str], units: bool, tick: int, ctl: dict[str, Any]) -> bytes:
    out = []
    for i in range(host.count):
        v = host.values(i, tick, ctl)
        cells = []
        for f in fields:
            cell = _CSV.get(f, lambda i, v: "[N/A]")(i, v)
            cells.append(cell + (_UNITS.get(f, "") if units else ""))
        out.append(", ".join(cells))
    return ("\n".join(out) + "\n").encode()


def main(argv: list[str]) -> int:
    host = Host()
    ctl = host.control()
    if "exit" in ctl:
        sys.stderr.write(f"nvidia-smi: {ctl.get('message', 'failed')}\n")
        return int(ctl["exit"])
    interval: float | None = None
    fields: list[str] | None = None
    units = True
    header = True
    for k, a in enumerate(argv):
        if a == "-l" and k + 1 < len(argv):
            interval = float(argv[k + 1])
        elif a.startswith("-lms") and k + 1 < len(argv):
            interval = float(argv[k + 1]) / 1000
        elif a.startswith("--query-gpu="):
            fields = [f.strip() for f in a.split("=", 1)[1].split(",")]
        elif a.startswith("--format="):
            opts = a.split("=", 1)[1].split(",")
            units = "nounits" not in opts
            header = "noheader" not in opts
    out = sys.stdout.buffer
    if fields is not None and header:
        out.write((", ".join(fields) + "\n").encode())
    polls = 0
    while True:
        ctl = host.control()
        delay = float(ctl.get("delay", 0))
        if delay:
            time.sleep(delay)
        stop_after = ctl.get("stop_after")
        if stop_after is not None and polls >= int(stop_after):
            sys.stderr.write("nvidia-smi: stopped by the test\n")
            return 1
        tick = int(time.time())
        if ctl.get("garbage"):
            data = b"\x00\xff<<garbage \x1b[31m not nvidia-smi >>\n" * 4
        elif fields is not None:
            data = csv_rows(host, fields, units, tick, ctl)
        else:
            data = xml_document(host, tick, ctl)
        try:
            out.write(data)
            out.flush()
        except BrokenPipeError:
            return 0
        polls += 1
        if interval is None:
            return 0
        time.sleep(interval)


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except KeyboardInterrupt:
        sys.exit(130)
