"""Hypothesis strategies for the snapshot model (shared by the core and recording tests)."""

from __future__ import annotations

from hypothesis import strategies as st

from gputui.core.model import (
    ClusterSnapshot,
    ComputeInstance,
    GpuInstance,
    GpuSnapshot,
    MpsClient,
    MpsDaemon,
    NodeResources,
    NodeSnapshot,
    ProcessInfo,
)

small = st.integers(min_value=0, max_value=100)
mib = st.none() | st.integers(min_value=0, max_value=200_000)
maybe_int = st.none() | st.integers(min_value=-(2**40), max_value=2**40)
text = st.none() | st.text(max_size=12)
watts = (
    st.none() | st.floats(min_value=0, max_value=2000, allow_nan=False) | st.integers(0, 2000).map(lambda w: w / 100)
)

compute_instances = st.builds(
    ComputeInstance,
    ci_id=st.none() | small,
    profile=text,
    sm_count=st.none() | small,
    mig_uuid=text,
    mig_device_index=st.none() | small,
)
gpu_instances = st.builds(
    GpuInstance,
    gi_id=st.none() | small,
    profile=text,
    profile_id=st.none() | small,
    placement_start=st.none() | small,
    placement_size=st.none() | small,
    memory_total_mib=mib,
    memory_used_mib=mib,
    sm_count=st.none() | small,
    compute_instances=st.lists(compute_instances, max_size=3).map(tuple),
)
mps = st.none() | st.builds(
    MpsDaemon,
    running=st.booleans(),
    control_pid=maybe_int,
    server_pid=maybe_int,
    pipe_directory=text,
    clients=st.lists(
        st.builds(
            MpsClient,
            pid=st.integers(1, 10**6),
            active_thread_percentage=st.none() | small,
            memory_used_mib=mib,
            user=text,
            command=text,
        ),
        max_size=3,
    ).map(tuple),
)
processes = st.builds(
    ProcessInfo,
    pid=st.integers(1, 10**7),
    type=st.none() | st.sampled_from(["C", "G", "C+G", "M", "M+C"]),
    used_memory_mib=mib,
    user=text,
    command=text,
    gi_id=st.none() | small,
    ci_id=st.none() | small,
)
gpus = st.builds(
    GpuSnapshot,
    index=small,
    uuid=text,
    name=text,
    pci_bus_id=text,
    memory_total_mib=mib,
    memory_used_mib=mib,
    utilization_gpu=st.none() | small,
    utilization_memory=st.none() | small,
    temperature_c=maybe_int,
    power_draw_w=watts,
    power_limit_w=watts,
    fan_percent=st.none() | small,
    clock_sm_mhz=maybe_int,
    performance_state=text,
    compute_mode=text,
    persistence_mode=st.none() | st.booleans(),
    mig_mode_current=st.none() | st.booleans(),
    mig_mode_pending=st.none() | st.booleans(),
    gpu_instances=st.lists(gpu_instances, max_size=3).map(tuple),
    mps=mps,
    processes=st.lists(processes, max_size=4).map(tuple),
    lost=st.booleans(),
)
count = st.none() | st.integers(min_value=0, max_value=4096)
resources = st.none() | st.builds(
    NodeResources,
    cpus=count,
    memory_mib=st.none() | st.integers(min_value=0, max_value=2**34),
    cpus_alloc=count,
    memory_alloc_mib=mib,
    memory_used_mib=mib,
)
shares = st.lists(st.tuples(st.sampled_from(["mps", "shard"]), small, st.none() | small), max_size=2).map(tuple)
nodes = st.builds(
    NodeSnapshot,
    name=st.text(min_size=1, max_size=8),
    gpus=st.lists(gpus, max_size=3).map(tuple),
    driver_version=text,
    cuda_version=text,
    state=text,
    shares=shares,
    resources=resources,
    features=st.lists(st.text(min_size=1, max_size=8), max_size=3).map(tuple),
)
clusters = st.builds(
    ClusterSnapshot,
    timestamp=st.floats(min_value=0, max_value=4e9, allow_nan=False),
    nodes=st.lists(nodes, max_size=3).map(tuple),
    source=text,
)
