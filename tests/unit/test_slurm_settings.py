"""What of Slurm's configuration the what-if reads, and a request put in Slurm's terms."""

from __future__ import annotations

from gputui.core.scheduler.parse.options import parse_options
from gputui.slurm.formats.gres import parse_gres
from gputui.slurm.formats.nodes import SlurmNode
from gputui.slurm.settings import SlurmSettings, parse_config

CONFIG = """Configuration data as of 2026-12-01T12:33:27
DefMemPerCPU            = 2000
SelectType              = select/cons_tres
SelectTypeParameters    = CR_CORE_MEMORY
"""
NODES = (
    SlurmNode("node01", "IDLE", parse_gres("gpu:a100:4"), weight=10),
    SlurmNode("node04", "IDLE", parse_gres("gpu:2,mps:400"), weight=1),
)


def test_the_configuration_is_read_from_scontrol_show_config_and_the_nodes() -> None:
    assert parse_config(CONFIG)["SelectTypeParameters"] == "CR_CORE_MEMORY"
    s = SlurmSettings.read(CONFIG, NODES)
    assert (s.memory_consumable, s.def_mem_per_cpu_mib, dict(s.weights)) == (True, 2000, {"node01": 10, "node04": 1})
    assert (dict(s.mps_per_gpu), dict(s.mps_totals), s.mps_unit()) == ({"node04": 200}, {"node04": 400}, 200)
    assert s.scheduler_config().default_mem_per_cpu_mib == 2000 and s.scheduler_config().policy == "slurm"
    plain = SlurmSettings.read("SelectTypeParameters = CR_Core\n", NODES)
    assert not plain.memory_consumable and plain.scheduler_config().default_mem_per_cpu_mib == 0
    assert SlurmSettings.read("", ()).select_parameters == "CR_CORE"  # Slurm's default where it says nothing


def test_a_request_in_slurms_terms() -> None:
    s = SlurmSettings.read(CONFIG, NODES)
    mig = s.request(parse_options("--gres=gpu:1g.10gb:2", slurm=True))
    assert (mig.kind, mig.gpu_type, mig.gpus_per_node) == ("count", "1g.10gb", 2)  # a GPU type like any other
    assert s.request(parse_options("--gres=mps:50", slurm=True)).mps_percent == 25  # 50 of 200 per GPU
    plain = SlurmSettings.read("SelectTypeParameters = CR_Core\n", NODES)
    assert plain.request(parse_options("--mem=8G --gres=gpu:1", slurm=True)).mem_mib is None  # no consumable
    assert plain.request(parse_options("--mem=8G --gres=gpu:1", slurm=True), keep_memory=True).mem_mib == 8192
