"""The benchmark matrix: traces x policies x seeds, run on several processes, summarised per trace and policy."""

from __future__ import annotations

import os
import statistics
from collections.abc import Callable, Iterable
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import dataclass, field
from pathlib import Path

from gputui.core.simulate.benchmark import SeedRun, run_seed
from gputui.core.simulate.workload import TraceNode, TracePod, read_nodes, read_pods


@dataclass(frozen=True, slots=True)
class Task:
    trace: str  # pod list path
    nodes: str  # node list path
    policy: str
    seed: int
    demand: int


@dataclass(slots=True)
class Summary:
    trace: str
    policy: str
    demand: int
    runs: dict[int, SeedRun] = field(default_factory=dict)

    def values(self) -> list[float]:
        return [v for r in self.runs.values() if (v := r.value) is not None]

    @property
    def mean(self) -> float | None:
        vals = self.values()
        return round(statistics.fmean(vals), 2) if vals else None

    @property
    def sd(self) -> float | None:
        vals = self.values()
        if not vals:
            return None
        return round(statistics.stdev(vals), 2) if len(vals) > 1 else 0.0

    def mean_curve(self, which: str = "alloc") -> dict[int, float]:
        """Per arrived %, the mean over seeds (of the seeds that reached it)."""
        acc: dict[int, list[float]] = {}
        for r in self.runs.values():
            for b, v in (r.alloc if which == "alloc" else r.frag).items():
                acc.setdefault(b, []).append(v)
        return {b: round(statistics.fmean(vs), 2) for b, vs in sorted(acc.items())}

    def as_json(self) -> dict:
        return {"trace": self.trace, "policy": self.policy, "demand": self.demand, "mean": self.mean, "sd": self.sd,
                "per_seed": {str(s): self.runs[s].value for s in sorted(self.runs)}}  # fmt: skip


def trace_name(path: str) -> str:
    """``openb_pod_list_default.csv`` -> ``default``; other files by their name without the suffix."""
    stem = Path(path).stem
    return stem.removeprefix("openb_pod_list_")


_CACHE: dict[str, list] = {}


def _load_pods(path: str) -> list[TracePod]:
    if path not in _CACHE:
        _CACHE[path] = read_pods(path)
    return _CACHE[path]


def _load_nodes(path: str) -> list[TraceNode]:
    key = "nodes:" + path
    if key not in _CACHE:
        _CACHE[key] = read_nodes(path)
    return _CACHE[key]


def run_task(task: Task) -> tuple[Task, SeedRun]:
    return task, run_seed(_load_pods(task.trace), _load_nodes(task.nodes), task.policy, task.seed, task.demand)


def tasks_for(traces: Iterable[str], nodes: str, policies: Iterable[str], seeds: Iterable[int],
              demand: int) -> list[Task]:  # fmt: skip
    pols, ss = list(policies), list(seeds)
    return [Task(t, nodes, p, s, demand) for t in traces for p in pols for s in ss]


def default_workers() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


def run_matrix(tasks: list[Task], workers: int = 0, on_done: Callable[[Task, SeedRun], None] | None = None,
               ) -> list[Summary]:  # fmt: skip
    """Every task, on ``workers`` processes (0: one per CPU this process may use; 1: in this process)."""
    if tasks:  # read every file once here, so that a bad one fails before any process starts
        for path in {t.trace for t in tasks}:
            _load_pods(path)
        _load_nodes(tasks[0].nodes)
    workers = workers or default_workers()
    summaries: dict[tuple[str, str], Summary] = {}
    for t in tasks:
        summaries.setdefault((t.trace, t.policy), Summary(trace_name(t.trace), t.policy, t.demand))

    def done(task: Task, run: SeedRun) -> None:
        summaries[(task.trace, task.policy)].runs[task.seed] = run
        if on_done is not None:
            on_done(task, run)

    if workers == 1 or len(tasks) <= 1:
        for t in tasks:
            done(*run_task(t))
        return list(summaries.values())
    # the slowest first, so that the last minutes are not one long run on one core
    order = sorted(tasks, key=lambda t: (t.policy not in ("fgd", "fgd-cpu", "random"), t.trace, t.seed))
    with ProcessPoolExecutor(max_workers=workers) as pool:
        pending: set[Future] = {pool.submit(run_task, t) for t in order}
        while pending:
            finished, pending = wait(pending, return_when=FIRST_COMPLETED)
            for f in finished:
                done(*f.result())
    return list(summaries.values())
