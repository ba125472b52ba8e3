"""Trace-driven simulation: FGD's benchmark on Alibaba's openb trace, and replays of real workloads."""
