"""The simulator's indexed engine decides exactly as scoring every node every time, for every policy."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from gputui.core.scheduler.policies.frag import Fragmenter, typical_shapes
from gputui.core.scheduler.policies.shapes import PodShape
from gputui.core.simulate.benchmark import make_policy, policy_names
from gputui.core.simulate.engine import Engine
from gputui.core.simulate.workload import TraceNode

MODELS = ("G2", "T4")

nodes_st = st.lists(
    st.builds(
        lambda c, m, g, mo: (c * 1000, m * 1024, g, mo),
        st.integers(4, 32),
        st.integers(8, 64),
        st.sampled_from([0, 1, 2, 4, 8]),
        st.sampled_from(MODELS),
    ),  # fmt: skip
    min_size=1,
    max_size=12,
)
pod_st = st.one_of(
    st.builds(
        lambda c, m, g: PodShape(c * 1000, m * 1024, 1, g),
        st.integers(1, 8),
        st.integers(1, 16),
        st.sampled_from([110, 230, 470, 500, 810]),
    ),  # fmt: skip
    st.builds(lambda c, k: PodShape(c * 1000, 4096, k, 1000), st.integers(1, 16), st.sampled_from([1, 2, 4, 8])),
    st.builds(lambda c: PodShape(c * 1000, 2048, 0, 0), st.integers(1, 16)),
    st.builds(lambda c: PodShape(c * 1000, 2048, 1, 500, frozenset({"T4"})), st.integers(1, 4)),
)


@settings(max_examples=40, deadline=None)
@given(nodes=nodes_st, pods=st.lists(pod_st, min_size=1, max_size=40), leave=st.lists(st.integers(0, 39)))
def test_indexed_choice_equals_full_scan(nodes: list, pods: list[PodShape], leave: list[int]) -> None:
    trace_nodes = [TraceNode(f"n{i:02d}", c, m, g, mo) for i, (c, m, g, mo) in enumerate(nodes)]
    frag = Fragmenter(typical_shapes(pods))
    for name in policy_names():
        if name == "random":
            continue
        engine = Engine(trace_nodes, make_policy(name, frag), frag)
        placed: list[tuple[int, PodShape, tuple[int, ...]]] = []
        for i, pod in enumerate(pods):
            want = engine.choose_by_scan(pod)
            got = engine.choose(pod)
            assert got == want, (name, i, pod)
            if got is not None:
                engine.commit(got[0], pod, got[1])
                placed.append((got[0], pod, got[1]))
            if i in leave and placed:  # pods leave too (replays): the index must follow
                r, p, g = placed.pop(0)
                engine.release(r, p, g)
        for nf, tn in zip(engine.nodes, trace_nodes, strict=True):
            assert nf.cpu_milli >= 0 and nf.mem_mib >= 0
            assert all(0 <= g <= 1000 for g in nf.gpus) and len(nf.gpus) == tn.gpus
