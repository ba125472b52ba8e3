"""The live source's CPUs and host memory: /proc/meminfo read per poll from an injectable root, CPUs once."""

from __future__ import annotations

from fakes.proc_tree import write_node

from gputui.core.model import GpuSnapshot, NodeResources, NodeSnapshot
from gputui.procfs.host_resources import HostResources, read_meminfo, usable_cpus
from gputui.sources.nvml import NvmlSource
from gputui.sources.nvml_fake import FakeNvml

MEMINFO = """MemTotal:       527958016 kB
MemFree:        100000000 kB
MemAvailable:   317958016 kB
Buffers:          2048 kB
"""


def test_meminfo_total_and_in_use(tmp_path):
    (tmp_path / "meminfo").write_text(MEMINFO)
    assert read_meminfo(str(tmp_path)) == (515584, 205078)  # MiB: total, total minus available


def test_meminfo_missing_or_odd_is_na(tmp_path):
    assert read_meminfo(str(tmp_path / "nowhere")) == (None, None)
    (tmp_path / "meminfo").write_text("MemTotal: 1024 kB\n")  # an old kernel without MemAvailable
    assert read_meminfo(str(tmp_path)) == (1, None)
    (tmp_path / "meminfo").write_text("garbage\nMemTotal: lots\n")
    assert read_meminfo(str(tmp_path)) == (None, None)


def test_cpus_asked_once_memory_every_read(tmp_path):
    asked: list[int] = []

    def cpus() -> int:
        asked.append(1)
        return 64

    host = HostResources(str(tmp_path), cpus)
    assert host.read() == NodeResources(cpus=64)
    (tmp_path / "meminfo").write_text(MEMINFO)
    assert host.read() == NodeResources(cpus=64, memory_mib=515584, memory_used_mib=205078)
    assert len(asked) == 1
    assert HostResources(str(tmp_path / "nowhere"), lambda: None).read() is None
    assert (usable_cpus() or 0) >= 1


def test_nvml_source_reports_the_node_resources(tmp_path):
    node = NodeSnapshot("node01", (GpuSnapshot(0, uuid="GPU-0", name="NVIDIA A100-SXM4-40GB"),), "550.90.07")
    fake = FakeNvml(node)
    write_node(tmp_path, fake.node)
    (tmp_path / "meminfo").write_text(MEMINFO)
    src = NvmlSource(fake, node_name="node01", proc_root=str(tmp_path), cpus=lambda: 96)
    res = src.poll().nodes[0].resources
    assert res == NodeResources(cpus=96, memory_mib=515584, memory_used_mib=205078)
    assert (res.cpus_alloc, res.memory_alloc_mib) == (None, None)  # no workload manager: no allocation
    (tmp_path / "meminfo").write_text(MEMINFO.replace("317958016", "217958016"))
    assert src.poll().nodes[0].resources.memory_used_mib == 302734
    (tmp_path / "meminfo").unlink()  # /proc gone: N/A, no crash
    assert src.poll().nodes[0].resources == NodeResources(cpus=96)
