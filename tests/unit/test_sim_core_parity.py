"""The simulator and the embedded scheduler core place a slice of the openb trace alike, policy by policy."""

from __future__ import annotations

import pytest
from conftest import FIXTURES

from gputui.core.scheduler import ledger
from gputui.core.scheduler.build import GpuSpec, NodeSpec, state_from_specs
from gputui.core.scheduler.parse.options import parse_options
from gputui.core.scheduler.place.finder import find_allocation
from gputui.core.scheduler.place.placement import prepare
from gputui.core.scheduler.policies.frag import Fragmenter, typical_shapes
from gputui.core.scheduler.policies.shapes import PodShape
from gputui.core.scheduler.policies.trace_adapter import TraceInCore
from gputui.core.simulate.arrivals import arrivals
from gputui.core.simulate.benchmark import make_policy
from gputui.core.simulate.engine import Engine
from gputui.core.simulate.workload import read_nodes, read_pods

SIM = FIXTURES / "simulate"


def _options(p: PodShape) -> list[str]:
    opts = [f"--cpu-milli={p.cpu_milli}", f"--mem={p.mem_mib}M"]
    if p.share:
        opts.append(f"--gpu-milli={p.gpu_milli}")
    elif p.num_gpu:
        opts.append(f"--gpus-per-node={p.num_gpu}")
    return opts


@pytest.mark.parametrize("policy", ["bestfit", "dotprod", "packing"])
def test_same_placements_as_the_live_core(policy: str) -> None:
    pods = read_pods(SIM / "openb_pod_list_default.csv")
    nodes = read_nodes(SIM / "openb_node_list_gpu_node.csv")[:50]
    frag = Fragmenter(typical_shapes([p.shape for p in pods]))
    arr = arrivals(pods, nodes, 42, 130)
    engine = Engine(arr.nodes, make_policy(policy, frag), frag)
    state = state_from_specs(
        [
            NodeSpec(n.name, tuple(GpuSpec(model=n.model) for _ in range(n.gpus)), n.cpu_milli // 1000, n.mem_mib)
            for n in arr.nodes
        ]  # fmt: skip
    )
    live = TraceInCore(make_policy(policy, frag))
    placed = failed = 0
    for job, pod in enumerate(arr.pods[:700], start=1):
        sim = engine.place(pod)
        alloc = find_allocation(state, prepare(state, parse_options(_options(pod))), live)
        if sim is None:
            assert alloc is None, (job, pod)
            failed += 1
            continue
        assert alloc is not None, (job, pod)
        (ng,) = alloc.nodes
        assert (ng.node, tuple(g.index for g in ng.gpus)) == (arr.nodes[sim[0]].name, sim[1]), (job, pod)
        ledger.apply(state, alloc, job)
        placed += 1
    assert placed > 300 and failed > 50  # the slice fills the 50 nodes: both paths see full nodes too
