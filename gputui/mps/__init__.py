"""MPS (Multi-Process Service): find control daemons and servers, start / stop / query them, read their logs.

Modules are imported directly (gputui.mps.control, .detect, .status, ...); this package imports nothing,
so that the NVML source can use detection without pulling in the rest.
"""
