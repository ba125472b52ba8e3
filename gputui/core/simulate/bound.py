"""An upper bound on FGD's metric: no placement of the pods that arrived allocates more GPU than this LP allows.

For one seed the pods that have arrived by the last event of the demand bucket (FGD's metric averages the events
of that bucket, and the allocation at each of them is at most what the pods arrived by the last one can take) are
grouped by request (CPUs, memory, GPUs, thousandths per GPU, allowed models) and the nodes by kind (CPUs, memory,
GPUs, model). Variables: how many pods of each group go to each node kind where one fits an empty node of that kind
(model allowed, enough GPUs, CPUs and memory). Rows: no more pods of a group than arrived; per node kind, the pods'
CPUs, memory, GPU thousandths and whole GPUs (for whole-GPU pods) within the kind's totals. Maximised: the GPU
thousandths placed. It relaxes integrality, which node of a kind a pod lands on, and the online rule (each pod
tried once, in arrival order, and placed whenever it fits), so it bounds every policy's allocation from above.
Solved by HiGHS (``highspy``, the optional ``mig`` extra); ``None`` where HiGHS is missing or gives no optimum.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from gputui.core.scheduler.policies.shapes import MILLI, PodShape
from gputui.core.simulate.arrivals import arrivals
from gputui.core.simulate.workload import TraceNode, TracePod


def available() -> bool:
    try:
        import highspy  # noqa: F401
    except ImportError:
        return False
    return True


def arrived_by_bucket(order: Sequence[PodShape], total_gpus: int, demand: int) -> list[PodShape]:
    """The pods arrived by the last event whose arrived % (as FGD's metric rounds it) is at most ``demand``."""
    out: list[PodShape] = []
    arrived = 0
    for s in order:
        arrived += s.total_gpu_milli
        if int(round(arrived / total_gpus / 10, 0)) > demand:
            break
        out.append(s)
    return out


def lp_bound(pods: Sequence[PodShape], nodes: Sequence[TraceNode]) -> float | None:
    """The most GPU thousandths the LP lets ``pods`` take on ``nodes`` (module docstring); None without HiGHS."""
    try:
        import highspy
    except ImportError:
        return None
    groups = Counter((p.cpu_milli, p.mem_mib, p.num_gpu, p.gpu_milli, p.gpu_spec) for p in pods if p.total_gpu_milli)
    kinds = list(Counter((n.cpu_milli, n.mem_mib, n.gpus, n.model) for n in nodes if n.gpus).items())
    cost: list[float] = []
    cols: list[dict[int, float]] = []
    rows_hi: list[float] = []
    kind_row = []  # per kind: its rows of CPUs, memory, GPU thousandths, whole GPUs
    for (cpu, mem, gpus, _), n in kinds:
        kind_row.append(len(rows_hi))
        rows_hi.extend((float(n * cpu), float(n * mem), float(n * gpus * MILLI), float(n * gpus)))
    for (cpu, mem, num, milli, spec), count in groups.items():
        r = len(rows_hi)
        rows_hi.append(float(count))
        whole = milli >= MILLI or num > 1
        for k, ((ncpu, nmem, ngpus, model), _) in enumerate(kinds):
            if cpu > ncpu or mem > nmem or num > ngpus or (spec and model not in spec):
                continue
            base = kind_row[k]
            col = {r: 1.0, base: float(cpu), base + 1: float(mem), base + 2: float(num * milli)}
            if whole:
                col[base + 3] = float(num)
            cost.append(float(num * milli))
            cols.append(col)
    if not cols:
        return 0.0
    lp = highspy.HighsLp()
    lp.num_col_ = len(cost)
    lp.num_row_ = len(rows_hi)
    lp.col_cost_ = cost
    lp.col_lower_ = [0.0] * len(cost)
    lp.col_upper_ = [highspy.kHighsInf] * len(cost)
    lp.row_lower_ = [-highspy.kHighsInf] * len(rows_hi)
    lp.row_upper_ = rows_hi
    lp.sense_ = highspy.ObjSense.kMaximize
    start, index, value = [0], [], []
    for col in cols:
        for row in sorted(col):
            index.append(row)
            value.append(col[row])
        start.append(len(index))
    lp.a_matrix_.format_ = highspy.MatrixFormat.kColwise
    lp.a_matrix_.start_ = start
    lp.a_matrix_.index_ = index
    lp.a_matrix_.value_ = value
    h = highspy._Highs() if hasattr(highspy, "_Highs") else highspy.Highs()  # the bare binding prints no banner
    h.setOptionValue("output_flag", False)
    h.setOptionValue("threads", 1)
    h.passModel(lp)
    h.run()
    if h.getModelStatus() != highspy.HighsModelStatus.kOptimal:
        return None
    return float(h.getInfo().objective_function_value)


def seed_bound(pods: list[TracePod], nodes: list[TraceNode], seed: int, demand: int = 130) -> float | None:
    """The bound on the allocation ratio (% of the cluster's GPUs) at ``demand`` % arrived, for one seed."""
    total_gpus = sum(n.gpus for n in nodes)
    if not total_gpus:
        return None
    arr = arrivals(pods, nodes, seed, demand)
    got = lp_bound(arrived_by_bucket(arr.pods, total_gpus, demand), nodes)
    if got is None:
        return None
    # up to the hundredth (the metric's rounding), so that the bound stays at or above every value it bounds
    return min(100.0, -(-round(got / total_gpus / 10 * 100, 6) // 1) / 100)


def trace_bound(pods: list[TracePod], nodes: list[TraceNode], seeds: Sequence[int], demand: int = 130) -> float | None:
    """The mean over ``seeds`` of :func:`seed_bound` (each seed's bound is above that seed's value, so the mean is
    above the seeds' mean), up to the hundredth; None without HiGHS."""
    got = [seed_bound(pods, nodes, s, demand) for s in seeds]
    vals = [v for v in got if v is not None]
    if not vals or len(vals) < len(got):
        return None
    return -(-round(sum(vals) / len(vals) * 100, 6) // 1) / 100
