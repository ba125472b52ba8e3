"""`python -m gputui.bench mig`: MIG packing against the optimum.

Random MIG job lists (one instance each, profiles drawn with fixed weights until the demand reaches 130 % of the
cluster's compute slices) arrive in order on 1, 4, 16 and 64 empty A100-80GB and H100-80GB GPUs (8 per node).
Online: the live scheduler (dynamic MIG) places each job as it arrives or drops it, as jobs never end here.
Offline: `mig plan`'s heuristic and its exact integer program (HiGHS) see the whole list. Reported: compute slices
placed as a percentage of the optimum (the integer program's), mean and worst over the seeds, and plan times.
"""

from __future__ import annotations

import argparse
import random
import statistics

from gputui.core.mig_profiles import load_models
from gputui.core.migplan import solve_ip
from gputui.core.migplan.plan import make_plan
from gputui.core.migplan.problem import Demand, PlanGpu, Problem, profile_compute
from gputui.core.scheduler import ledger
from gputui.core.scheduler.build import GpuSpec, NodeSpec, state_from_specs
from gputui.core.scheduler.config import SchedulerConfig
from gputui.core.scheduler.parse.options import parse_options
from gputui.core.scheduler.place.finder import find_allocation
from gputui.core.scheduler.place.placement import prepare
from gputui.core.scheduler.policies import get_policy

#: Profile mix (weights): small instances most common, as on shared inference and notebook clusters.
MIX = (("1g.10gb", 30), ("1g.20gb", 10), ("2g.20gb", 20), ("3g.40gb", 20), ("4g.40gb", 10), ("7g.80gb", 10))


def job_list(rnd: random.Random, n_gpus: int, load: float = 1.3) -> list[str]:
    names = [p for p, _ in MIX]
    weights = [w for _, w in MIX]
    out: list[str] = []
    demand = 0
    while demand < load * 7 * n_gpus:
        p = rnd.choices(names, weights)[0]
        out.append(p)
        demand += profile_compute(p)
    return out


def online(model: str, n_gpus: int, jobs: list[str], policy: str) -> int:
    per_node = min(8, n_gpus)
    specs = [NodeSpec(f"n{k:02d}", tuple(GpuSpec(model=model, mig=()) for _ in range(per_node)))
             for k in range(n_gpus // per_node)]  # fmt: skip
    state = state_from_specs(specs, SchedulerConfig(mig_dynamic=True, policy=policy))
    pol = get_policy(policy)
    reqs = {p: parse_options(f"--gres=gpu:{p}:1") for p in set(jobs)}
    placed = 0
    for job, p in enumerate(jobs, start=1):
        alloc = find_allocation(state, prepare(state, reqs[p]), pol)
        if alloc is not None:
            ledger.apply(state, alloc, job)
            placed += profile_compute(p)
    return placed


def offline(model: str, n_gpus: int, jobs: list[str], solver: str) -> tuple[float, float, str]:
    m = load_models()[model]
    gpus = tuple(PlanGpu(f"n{i // 8:02d}", i % 8, m) for i in range(n_gpus))
    demands = tuple(Demand(f"j{k}", f"j{k}", ((p, 1),), rank=k) for k, p in enumerate(jobs))
    plan = make_plan(Problem(gpus, demands), solver)
    return plan.objective, plan.seconds, plan.method


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(prog="python -m gputui.bench mig", description=__doc__)
    ap.add_argument("--sizes", default="1,4,16,64")
    ap.add_argument("--models", default="A100-80GB,H100-80GB")
    ap.add_argument("--seeds", type=int, default=10)
    ap.add_argument("--policies", default="best-fit,fragmentation,spread")
    args = ap.parse_args(argv)
    if not solve_ip.available():
        print("HiGHS (highspy) is not installed: the optimum cannot be computed; pip install 'gputui[mig]'")
        return 1
    policies = args.policies.split(",")
    head = f"{'model':<10} {'GPUs':>4} " + " ".join(f"{p[:13]:>13}" for p in policies)
    print("compute slices placed, % of the optimum: mean (worst) over seeds; exact s, heur s: the slowest plan")
    print(head + f" {'heuristic':>13} {'exact s':>8} {'heur s':>7}")
    for model in args.models.split(","):
        for n in (int(x) for x in args.sizes.split(",")):
            ratios: dict[str, list[float]] = {p: [] for p in policies + ["heuristic"]}
            t_exact: list[float] = []
            t_heur: list[float] = []
            for seed in range(args.seeds):
                jobs = job_list(random.Random(seed * 1000 + n), n)
                opt, t_e, method = offline(model, n, jobs, "highs")
                assert method.startswith("HiGHS"), method
                t_exact.append(t_e)
                for p in policies:
                    ratios[p].append(online(model, n, jobs, p) / opt)
                h, t_h, _ = offline(model, n, jobs, "heuristic")
                t_heur.append(t_h)
                ratios["heuristic"].append(h / opt)
            cells = [f"{100 * statistics.mean(r):6.2f} ({100 * min(r):5.1f})" for r in ratios.values()]
            print(f"{model:<10} {n:>4} " + " ".join(f"{c:>13}" for c in cells)
                  + f" {max(t_exact):8.2f} {max(t_heur):7.2f}")  # fmt: skip
    return 0


if __name__ == "__main__":
    import sys

    raise SystemExit(main(sys.argv[1:]))
