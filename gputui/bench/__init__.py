"""Benchmarks, run as `python -m gputui.bench NAME` (they measure; they are not tests)."""
