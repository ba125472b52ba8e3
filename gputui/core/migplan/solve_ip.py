"""The exact plan: an integer program over the aggregated problem, solved by HiGHS (the optional ``highspy``).

Variables: per GPU class and option, how many of its GPUs take it (they sum to the class's size); per demand
group and node, how many of its members start there. Per node and profile, what starts there needs no more
instances than the chosen options offer. Maximised: compute slices started, less the drained slices times the
drain weight, then fewer drained jobs, then fewer destroy commands (lexicographic by scale).
"""

from __future__ import annotations

import math

from gputui.core.migplan.aggregate import Aggregate, Solution


def available() -> bool:
    try:
        import highspy  # noqa: F401
    except ImportError:
        return False
    return True


def solve(agg: Aggregate, time_limit_s: float = 4.0) -> Solution | None:
    """The optimal solution, or None when HiGHS is missing or gave no proven answer in time."""
    try:
        import highspy
    except ImportError:
        return None
    cmd_w = 1.0
    drained_jobs_cap = sum(len(i.holders) for c in agg.classes for g in c.gpus for i in g.instances) + 1
    cmd_cap = sum(max((o.commands for o in c.options), default=0) * len(c.gpus) for c in agg.classes) + 1
    mid = cmd_w * cmd_cap + 1
    big = mid * (drained_jobs_cap + 1)
    never = math.isinf(agg.drain_weight)
    cost: list[float] = []
    lower: list[float] = []
    upper: list[float] = []
    cols: list[dict[int, float]] = []  # per column, row -> coefficient
    rows_lo: list[float] = []
    rows_hi: list[float] = []
    y_index: list[list[int]] = []
    # one equality row per class
    for c in agg.classes:
        r = len(rows_lo)
        rows_lo.append(len(c.gpus))
        rows_hi.append(len(c.gpus))
        idx = []
        for o in c.options:
            idx.append(len(cost))
            blocked = never and o.drained_compute > 0
            cost.append(-(big * agg.drain_weight * o.drained_compute if o.drained_compute else 0.0)
                        - mid * len(o.drained) - cmd_w * o.commands)  # fmt: skip
            lower.append(0.0)
            upper.append(0.0 if blocked else float(len(c.gpus)))
            cols.append({r: 1.0})
        y_index.append(idx)
    # capacity rows: per (node, profile): sum need*x - sum offer*y <= 0
    cap_row: dict[tuple[str, str], int] = {}
    for n in agg.nodes:
        for p in agg.profiles:
            cap_row[(n, p)] = len(rows_lo)
            rows_lo.append(-highspy.kHighsInf)
            rows_hi.append(0.0)
    for c, idx in zip(agg.classes, y_index, strict=True):
        for o, j in zip(c.options, idx, strict=True):
            for p, k in o.offer:
                row = cap_row.get((c.node, p))
                if row is not None:
                    cols[j][row] = -float(k)
    x_index: list[dict[str, int]] = []
    for grp in agg.groups:
        r = len(rows_lo)
        rows_lo.append(-highspy.kHighsInf)
        rows_hi.append(float(len(grp.members)))
        xi = {}
        for n in grp.nodes:
            xi[n] = len(cost)
            cost.append(big * grp.compute)
            lower.append(0.0)
            upper.append(float(len(grp.members)))
            col = {r: 1.0}
            for p, k in grp.needs:
                col[cap_row[(n, p)]] = float(k)
            cols.append(col)
        x_index.append(xi)
    lp = highspy.HighsLp()
    lp.num_col_ = len(cost)
    lp.num_row_ = len(rows_lo)
    lp.col_cost_ = cost
    lp.col_lower_ = lower
    lp.col_upper_ = upper
    lp.row_lower_ = rows_lo
    lp.row_upper_ = rows_hi
    lp.sense_ = highspy.ObjSense.kMaximize
    start, index, value = [0], [], []
    for col in cols:
        for r in sorted(col):
            index.append(r)
            value.append(col[r])
        start.append(len(index))
    lp.a_matrix_.format_ = highspy.MatrixFormat.kColwise
    lp.a_matrix_.start_ = start
    lp.a_matrix_.index_ = index
    lp.a_matrix_.value_ = value
    lp.integrality_ = [highspy.HighsVarType.kInteger] * len(cost)
    h = highspy._Highs() if hasattr(highspy, "_Highs") else highspy.Highs()  # the bare binding prints no banner
    h.setOptionValue("output_flag", False)
    h.setOptionValue("time_limit", float(time_limit_s))
    h.setOptionValue("mip_rel_gap", 0.0)
    h.setOptionValue("mip_abs_gap", 0.5)
    h.setOptionValue("threads", 1)
    h.passModel(lp)
    h.run()
    if h.getModelStatus() != highspy.HighsModelStatus.kOptimal:
        return None
    x = list(h.getSolution().col_value)
    choice = [[round(x[j]) for j in idx] for idx in y_index]
    starts = [{n: round(x[j]) for n, j in xi.items() if round(x[j])} for xi in x_index]
    from gputui.core.migplan.aggregate import objective_of

    obj = objective_of(agg, choice, starts)
    return Solution(choice, starts, "HiGHS integer program (optimal)", bound=obj, objective=obj)
