"""`python -m gputui.bench fuzz_requests [N]`: N (default 10,000) generated hostile requests through the job service.

Each request is a list of words such as the submit dialog or `gputui submit` gives: Slurm options (real ones,
typos, short forms) with values chosen to hurt: numbers of thousands of digits, zero, negative, ranges that run
backwards or span billions, sizes with every unit, host ranges, control characters and Rich markup. Every one
goes through ``JobService.preview`` and then ``submit`` on a store in a temporary directory. The invariants:
each answer is a preview or a GputuiError of one short line that names an option; no other exception; no
request takes more than a second; a stored row reads back. Needs hypothesis (the ``test`` extra).
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HUGE = "9" * 5000
HANG_S = 5.0  # a request answered later than this counts as a hang (the machine may be shared and busy)
OPTIONS = (
    "--gpus", "-G", "--gres", "--gpus-per-node", "--gpu-ids", "--time", "-t", "--mem", "--mem-per-gpu",
    "--mem-per-cpu", "--nodelist", "-w", "--exclude", "--nodes", "-N", "--ntasks", "-n", "--cpus-per-task", "-c",
    "--job-name", "-J", "--constraint", "--dependency", "--nice", "--priority", "--gpu-milli", "--export",
    "--gpus-per-task", "--bogus", "-Z", "--gpus-per-nod", "--tim",
)  # fmt: skip
NASTY = ("\x1b]0;pwned\x07", "\x1b[2J", "\x9b31m", "\r", "\u202e", "[bold red]x[/]", "[link=file:///etc/passwd]y")


def strategies() -> Any:
    """The hypothesis strategy of one request (a list of words)."""
    from hypothesis import strategies as st

    digits = st.integers(1, 30).map(lambda n: "9" * n) | st.just(HUGE) | st.just("0" * 4999 + "1")
    number = st.integers(-(2**70), 2**70).map(str) | digits
    piece = (
        number
        | st.sampled_from(NASTY)
        | st.sampled_from(("a100", "A100-40GB", "3g.20gb", "mig-1g.5gb", "gpu", "mps", "shard", "INFINITE"))
        | st.text(max_size=6)
    )
    joiner = st.sampled_from(("", ":", "-", ",", "[", "]", "K", "G", "T", "P", "-1:", "node["))
    value = st.lists(st.tuples(piece, joiner), max_size=4).map(lambda ps: "".join(a + b for a, b in ps))
    word = st.tuples(st.sampled_from(OPTIONS), st.sampled_from(("=", " ", "")), value).map(
        lambda t: [t[0] + t[1] + t[2]] if t[1] != " " else [t[0], t[2]]
    )
    return st.lists(word, min_size=1, max_size=5).map(lambda ws: [w for group in ws for w in group])


class Checker:
    """The job service on a store in ``root``, and the invariants each request must keep."""

    def __init__(self, root: Path) -> None:
        from gputui.core.model import ClusterSnapshot, GpuSnapshot, NodeSnapshot
        from gputui.jobs.records import User
        from gputui.jobs.runners.simulated import SimRunner
        from gputui.jobs.service import JobService
        from gputui.jobs.store import JobStore

        gpus = tuple(GpuSnapshot(i, uuid=f"GPU-{i}", name="NVIDIA A100-SXM4-40GB", memory_total_mib=40960,
                                 memory_used_mib=0) for i in range(8))  # fmt: skip
        self.snap = ClusterSnapshot(1_800_000_000.0, (NodeSnapshot("node01", gpus),), "fuzz")
        self.service = JobService(JobStore(root / "jobs.db"), SimRunner(), "fuzz", user=User("alice", 1001))
        self.service.tick(self.snap)
        self.counts = {"preview": 0, "refused": 0, "stored": 0}
        self.slowest = 0.0

    def check(self, words: list[str]) -> None:
        from gputui.core.errors import GputuiError
        from gputui.core.plain_text import sanitise

        t0 = time.perf_counter()
        try:
            self.service.preview(words)
            self.counts["preview"] += 1
            rec = self.service.submit(words, ["true"])
            self.counts["stored"] += 1
            assert self.service.get(rec.id).record.id == rec.id
            self.service.cancel(rec.id)  # the queue stays small: each request is timed on its own
        except GputuiError as e:
            self.counts["refused"] += 1
            line = str(e)
            assert "\n" not in line and len(line) < 400, f"a refusal longer than a line: {sanitise(line[:200])}"
            assert line.startswith("-") or "option" in line or ":" in line, f"names no option: {sanitise(line)}"
        took = time.perf_counter() - t0
        self.slowest = max(self.slowest, took)
        assert took < HANG_S, f"{took:.2f} s for {sanitise(' '.join(words))[:200]}"

    def close(self) -> None:
        self.service.close()


def main(argv: list[str]) -> int:
    import argparse

    from hypothesis import HealthCheck, given, settings

    ap = argparse.ArgumentParser(prog="python -m gputui.bench fuzz_requests")
    ap.add_argument("count", nargs="?", type=int, default=10_000, help="requests (hypothesis examples)")
    n = ap.parse_args(argv).count
    with tempfile.TemporaryDirectory() as tmp:
        checker = Checker(Path(tmp))
        t0 = time.perf_counter()

        @settings(max_examples=n, deadline=None, database=None, suppress_health_check=list(HealthCheck))
        @given(strategies())
        def run(words: list[str]) -> None:
            checker.check(words)

        run()
        took = time.perf_counter() - t0
        checker.close()
    total = sum(checker.counts.values()) - checker.counts["stored"]
    print(f"fuzz_requests: {total} requests in {took:.1f} s, {checker.counts}, slowest {checker.slowest * 1000:.0f} ms")
    print(f"0 tracebacks, 0 hangs (every request under {HANG_S:g} s), every refusal one line naming its option")
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main(sys.argv[1:]))
