"""MIG grouping and profile inference, and regrouping the flat process list of `nvidia-smi -q`."""

from __future__ import annotations

from gputui.sources.nvsmi.mig import ListedMig, MigDevice, gpu_instances
from gputui.sources.nvsmi.processes import process_from_record, process_records
from gputui.sources.nvsmi.query_text import iter_text_documents

H100 = "NVIDIA H100 80GB HBM3"


def dev(index: int, gi: int, ci: int, sms: int | None, total: int, used: int = 0) -> MigDevice:
    return MigDevice(index=index, gi_id=gi, ci_id=ci, sm_count=sms, memory_total_mib=total, memory_used_mib=used)


def test_cis_of_one_gi_are_grouped_and_share_its_memory() -> None:
    (gi,) = gpu_instances([dev(0, 1, 0, 16, 40448, 500), dev(1, 1, 1, 16, 40448, 500)], H100)
    assert (gi.gi_id, gi.memory_total_mib, gi.memory_used_mib) == (1, 40448, 500)
    assert [(c.ci_id, c.mig_device_index, c.sm_count) for c in gi.compute_instances] == [(0, 0, 16), (1, 1, 16)]
    # 40448 MiB fits 3g.40gb and 4g.40gb alike; 32 SMs in the CIs match neither, so no guess is made
    assert (gi.profile, gi.profile_id, gi.sm_count) == (None, None, None)
    assert [c.profile for c in gi.compute_instances] == [None, None]


def test_sms_separate_profiles_of_equal_memory() -> None:
    three, four = gpu_instances([dev(0, 1, 0, 60, 40448), dev(1, 2, 0, 64, 40448)], H100)
    assert (three.profile, three.profile_id, three.sm_count) == ("3g.40gb", 9, 60)
    assert (four.profile, four.profile_id) == ("4g.40gb", 5)
    assert (four.placement_start, four.placement_size) == (0, 4)  # 4g.40gb has one placement only
    assert (three.placement_start, three.placement_size) == (None, None)


def test_a_listed_partial_ci_names_the_gi_and_the_other_ci() -> None:
    listed = {0: ListedMig("1c.3g.40gb", "MIG-a")}
    (gi,) = gpu_instances([dev(0, 1, 0, 16, 40448), dev(1, 1, 1, 32, 40448)], H100, listed)
    assert (gi.profile, gi.profile_id, gi.sm_count) == ("3g.40gb", 9, 60)
    assert [(c.profile, c.mig_uuid) for c in gi.compute_instances] == [("1c.3g.40gb", "MIG-a"), ("2c.3g.40gb", None)]


def test_a_whole_gi_profile_from_the_sum_of_its_cis() -> None:
    (gi,) = gpu_instances([dev(0, 7, 0, 32, 20096), dev(1, 7, 1, 16, 20096)], H100)
    assert gi.profile is None  # 48 SMs is no 20 GB profile: ambiguous between 1g.20gb and 2g.20gb
    (gi,) = gpu_instances([dev(0, 7, 0, 16, 20096), dev(1, 7, 1, 16, 20096)], H100)
    assert (gi.profile, gi.sm_count) == ("2g.20gb", 32)
    assert [c.profile for c in gi.compute_instances] == ["1c.2g.20gb", "1c.2g.20gb"]


def test_an_unknown_gpu_model_keeps_ids_and_memory() -> None:
    (gi,) = gpu_instances([dev(0, 4, 0, 14, 19968, 12)], "Some Future GPU")
    assert (gi.gi_id, gi.profile, gi.memory_total_mib, gi.memory_used_mib) == (4, None, 19968, 12)
    assert gi.compute_instances[0].sm_count == 14


def test_flat_text_processes_are_regrouped() -> None:
    text = """
==============NVSMI LOG==============
Timestamp                                 : Tue Jul 14 09:00:44 2026
GPU 00000000:00:09.0
    Product Name                          : NVIDIA H100 80GB HBM3
    Processes
        GPU instance ID                   : N/A
        Compute instance ID               : N/A
        Process ID                        : 11
            Type                          : M+C
            Name                          : /usr/bin/python3
            Used GPU Memory               : 100 MiB
        GPU instance ID                   : N/A
        Compute instance ID               : N/A
        Process ID                        : 12
            Type                          : C
            Name                          : nvidia-cuda-mps-server
            Used GPU Memory               : 30 MiB
"""
    (root,) = iter_text_documents(text.splitlines(), "t")
    gpu = root.child("gpu")
    assert gpu is not None and gpu.attrs == {"id": "00000000:00:09.0"}
    procs = [process_from_record(r) for r in process_records(gpu.child("processes"))]
    assert [(p.pid, p.type, p.command, p.used_memory_mib, p.gi_id) for p in procs if p] == [
        (11, "M+C", "/usr/bin/python3", 100, None),
        (12, "C", "nvidia-cuda-mps-server", 30, None),
    ]
